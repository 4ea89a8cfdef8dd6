/* Check that the io_uring path of posix_spawn survives allocation
   failures in the kernel, a submission the kernel takes only in part
   among them, and leaves the thread's ring consistent.  Linux version.
   Copyright (C) 2026 Free Software Foundation, Inc.
   This file is part of the GNU C Library.

   The GNU C Library is free software; you can redistribute it and/or
   modify it under the terms of the GNU Lesser General Public
   License as published by the Free Software Foundation; either
   version 2.1 of the License, or (at your option) any later version.

   The GNU C Library is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   Lesser General Public License for more details.

   You should have received a copy of the GNU Lesser General Public
   License along with the GNU C Library; if not, see
   <https://www.gnu.org/licenses/>.  */

/* This needs a kernel that runs io_uring spawn chains for the process
   and has fault injection (CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB),
   and glibc.spawn.io_uring=1; elsewhere it is UNSUPPORTED.  It injects
   faults through the calling thread's /proc/thread-self files only,
   which no other thread sees.

   Each spawn runs this program again with file actions (a chain of
   several SQEs), and checks that posix_spawn either succeeded and the
   new program saw the file actions, or failed and left no child.  After
   each spawn the thread's ring (this is an internal test: it reads
   spawni-uring.c's struct spawn_ring) must be consistent: the kernel's
   SQ head at our SQ tail, its CQ tail at our CQ head, as many CQEs
   consumed as SQEs taken.  A failed spawn is followed by spawns without
   faults, which must all go through a whole chain and succeed; a ring
   left behind by a short submission would give them stale CQEs or make
   the kernel read stale SQEs.

   1. fail-nth: for N = 1, 2, ... the Nth allocation failslab sees in
      the spawn fails, until a spawn makes fewer than N; once on a
      thread whose ring is made (A), once on a new thread for each N,
      whose first spawn makes the ring (B).
   2. make-it-fail: every allocation failslab sees in one spawn fails,
      on a thread whose ring holds fewer requests than the chain has
      SQEs (C).

   Only (C) can make a short submission.  io_submit_sqes stops short
   only where io_alloc_req fails, and __io_alloc_req_refill tries a
   single allocation after a failed bulk one: fail-nth fails one
   allocation, so both never fail together, and by default failslab
   ignores allocations that may sleep (ignore-gfp-wait), as the
   requests' are.  (C) needs failslab set up by the machine (debugfs:
   probability 100, times -1, task-filter Y, ignore-gfp-wait N) and
   CAP_SYS_RESOURCE; without it (C) is skipped, and the test is
   UNSUPPORTED after (A) and (B) if no submission was short.  */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <io_uring_spawn.h>
#include <pthreadP.h>
#define TUNABLE_NAMESPACE spawn
#include <elf/dl-tunables.h>

#include <support/check.h>
#include <support/support.h>
#include <support/temp_file.h>
#include <support/test-driver.h>
#include <support/xthread.h>
#include <support/xunistd.h>

#if !HAVE_SPAWN_URING
static int
do_test (int argc, char **argv)
{
  FAIL_UNSUPPORTED ("glibc spawns through io_uring for 64-bit programs only");
}
#else
static int child;
#define CMDLINE_OPTIONS \
  { "child", no_argument, &child, 1 },

/* How to run this program again: [ld.so --library-path PATH] PROGRAM.  */
static char **initial_argv;
static int initial_argc;

/* The temporary directory, with symbolic links resolved.  */
static char *tmpdir;

/* The new program's view: CHILD_IN_FD is TMPDIR/input, opened after the
   chdir to TMPDIR; CHILD_OUT_FD the write end of a pipe, dup2'd.  */
#define CHILD_IN_FD 5
#define CHILD_OUT_FD 7
#define INPUT "input"
/* The file actions before the padding.  */
#define BASE_ACTIONS 5
/* The pipe's ends are moved to here or above.  */
#define PIPE_FD 20
/* Closes of descriptors that are not open, from here up, make a chain
   as long as wanted.  */
#define PAD_FD 100

/* A bound on N for fail-nth, far above the allocations of a spawn.  */
#define MAX_NTH 5000

/* The new program: PROGRAM --child TOKEN READ-FD WRITE-FD.  It checks
   the file actions and writes TOKEN to CHILD_OUT_FD.  */
static int
handle_child (int argc, char **argv)
{
  TEST_VERIFY_EXIT (argc == 4);
  int rfd = atoi (argv[2]);
  int wfd = atoi (argv[3]);
  struct stat st;
  TEST_COMPARE (fstat (CHILD_OUT_FD, &st), 0);
  TEST_VERIFY (S_ISFIFO (st.st_mode));
  TEST_COMPARE (fcntl (CHILD_OUT_FD, F_GETFL) & O_ACCMODE, O_WRONLY);
  TEST_COMPARE (fcntl (CHILD_OUT_FD, F_GETFD), 0);
  char buf[sizeof INPUT] = "";
  TEST_COMPARE (read (CHILD_IN_FD, buf, sizeof buf), sizeof INPUT - 1);
  TEST_COMPARE_STRING (buf, INPUT);
  TEST_COMPARE (fcntl (rfd, F_GETFD), -1);
  TEST_COMPARE (fcntl (wfd, F_GETFD), -1);
  xwrite (CHILD_OUT_FD, argv[1], strlen (argv[1]));
  return 0;
}

/* The calling thread's ring.  */
static struct spawn_ring *
ring_self (void)
{
  return &THREAD_SELF->tls_state.spawn_ring;
}

static unsigned int
ring_load (const struct spawn_ring *r, unsigned int off)
{
  return __atomic_load_n ((unsigned int *) (r->mem + off), __ATOMIC_ACQUIRE);
}

/* The kernel's SQ head: the kernel's struct io_uring is { head, tail }.  */
static unsigned int
ring_sq_head (const struct spawn_ring *r)
{
  return ring_load (r, r->sq_tail_off - sizeof (unsigned int));
}

/* What a spawn did to the ring, from our side of it.  */
enum outcome
{
  /* The kernel took the whole chain and it made the child.  */
  OUT_CHAIN,
  /* It took the whole chain, which failed before a child existed; the
     clone path spawned.  */
  OUT_CHAIN_FAILED,
  /* It took part of the chain (B2).  */
  OUT_SHORT,
  /* It took none of it.  */
  OUT_NONE_TAKEN,
  /* The thread has no ring: making it failed.  */
  OUT_NO_RING,
  /* The ring was given up (its CQEs could not be waited for).  */
  OUT_LOST,
  OUT_COUNT
};
static const char *const outcome_names[] =
  { "chain", "chain failed, clone path", "short submission",
    "nothing taken", "no ring", "ring lost" };

struct counts
{
  unsigned int n[OUT_COUNT];
};

static void
print_counts (const char *what, const struct counts *c)
{
  printf ("info: %s:", what);
  for (int i = 0; i < OUT_COUNT; i++)
    if (c->n[i] != 0)
      printf (" %s %u,", outcome_names[i], c->n[i]);
  puts (" (outcomes)");
}

/* The per-thread fault knob FD, /proc/thread-self/fail-nth or
   make-it-fail, set to VALUE.  */
static void
knob_write (int fd, unsigned int value)
{
  char buf[16];
  int len = snprintf (buf, sizeof buf, "%u", value);
  if (pwrite (fd, buf, len, 0) != len)
    FAIL_EXIT1 ("writing %u to a fault injection file: %m", value);
}

static unsigned int
knob_read (int fd)
{
  char buf[16];
  ssize_t n = pread (fd, buf, sizeof buf - 1, 0);
  if (n <= 0)
    FAIL_EXIT1 ("reading a fault injection file: %m");
  buf[n] = '\0';
  return strtoul (buf, NULL, 10);
}

static int
knob_open (const char *name)
{
  char *path = xasprintf ("/proc/thread-self/%s", name);
  int fd = open (path, O_RDWR | O_CLOEXEC);
  free (path);
  return fd;
}

/* One spawn with a fault injected: VALUE written to the calling
   thread's knob FD (fail-nth or make-it-fail) just before posix_spawn,
   0 just after.  FD -1 injects nothing.  */
struct inject
{
  const char *name;
  int fd;
  unsigned int value;
  /* After the spawn: what fail-nth had left, 0 if it failed an
     allocation.  */
  unsigned int left;
};

/* Spawn this program with NACTIONS file actions (a chain of NACTIONS + 2
   SQEs), injecting INJ, and check the outcome: success and a program
   that saw the file actions, or failure and no child; in both cases a
   consistent ring.  Return what the ring shows.  */
static enum outcome
spawn_checked (int line, unsigned int nactions, struct inject *inj)
{
  static unsigned int counter;
  unsigned int id = __atomic_fetch_add (&counter, 1, __ATOMIC_RELAXED);
  char token[32];
  snprintf (token, sizeof token, "spawn %u", id);

  /* A pipe, close-on-exec, above the descriptors of the new program
     and below the padding.  */
  int fds[2];
  xpipe (fds);
  for (int i = 0; i < 2; i++)
    {
      int fd = fcntl (fds[i], F_DUPFD_CLOEXEC, PIPE_FD);
      TEST_VERIFY_EXIT (fd >= PIPE_FD && fd < PAD_FD);
      xclose (fds[i]);
      fds[i] = fd;
    }
  char rfd[16], wfd[16];
  snprintf (rfd, sizeof rfd, "%d", fds[0]);
  snprintf (wfd, sizeof wfd, "%d", fds[1]);

  TEST_VERIFY_EXIT (nactions >= BASE_ACTIONS);
  posix_spawn_file_actions_t fa;
  TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
  TEST_COMPARE (posix_spawn_file_actions_addchdir_np (&fa, tmpdir), 0);
  TEST_COMPARE (posix_spawn_file_actions_addopen (&fa, CHILD_IN_FD, INPUT,
						  O_RDONLY, 0), 0);
  TEST_COMPARE (posix_spawn_file_actions_adddup2 (&fa, fds[1],
						  CHILD_OUT_FD), 0);
  TEST_COMPARE (posix_spawn_file_actions_addclose (&fa, fds[0]), 0);
  TEST_COMPARE (posix_spawn_file_actions_addclose (&fa, fds[1]), 0);
  for (unsigned int i = BASE_ACTIONS; i < nactions; i++)
    TEST_COMPARE (posix_spawn_file_actions_addclose (&fa,
						     PAD_FD + i), 0);

  char *args[initial_argc + 6];
  int argc = 0;
  for (int i = 0; i < initial_argc; i++)
    args[argc++] = initial_argv[i];
  args[argc++] = (char *) "--direct";
  args[argc++] = (char *) "--child";
  args[argc++] = token;
  args[argc++] = rfd;
  args[argc++] = wfd;
  args[argc] = NULL;

  struct spawn_ring *r = ring_self ();
  char *mem = r->mem;
  unsigned int sq_tail = mem != NULL ? r->sq_tail : 0;
  unsigned int cq_head = mem != NULL ? r->cq_head : 0;
  unsigned int n = nactions + 2;

  pid_t pid = -1;
  if (inj != NULL)
    knob_write (inj->fd, inj->value);
  int ret = posix_spawn (&pid, initial_argv[0], &fa, NULL, args, environ);
  if (inj != NULL)
    {
      inj->left = knob_read (inj->fd);
      knob_write (inj->fd, 0);
    }

  /* What the ring shows.  */
  enum outcome outcome;
  unsigned int taken = 0;
  int clone_res = 0;
  if (r->mem == NULL)
    outcome = mem == NULL ? OUT_NO_RING : OUT_LOST;
  else
    {
      TEST_VERIFY (mem == NULL || r->mem == mem);
      taken = r->sq_tail - sq_tail;
      if (r->cq_head - cq_head != taken)
	FAIL ("line %d: %u SQEs taken, %u CQEs consumed", line, taken,
	      r->cq_head - cq_head);
      if (ring_sq_head (r) != r->sq_tail)
	FAIL ("line %d: the kernel's SQ head is %u, our SQ tail %u", line,
	      ring_sq_head (r), r->sq_tail);
      if (ring_load (r, r->cq_tail_off) != r->cq_head
	  || ring_load (r, r->cq_head_off) != r->cq_head)
	FAIL ("line %d: CQ head %u, the kernel's CQ head %u and tail %u",
	      line, r->cq_head, ring_load (r, r->cq_head_off),
	      ring_load (r, r->cq_tail_off));
      if (taken == 0)
	outcome = OUT_NONE_TAKEN;
      else if (taken < n)
	outcome = OUT_SHORT;
      else
	{
	  if (taken != n)
	    FAIL ("line %d: %u SQEs taken for a chain of %u", line, taken,
		  n);
	  /* The clone's CQE, among the chain's consumed ones; glibc makes
	     the CQ as large as the SQ.  */
	  unsigned int size = ring_load (r, r->sq_entries_off);
	  const struct io_uring_cqe *cqes
	    = (const struct io_uring_cqe *) (r->mem + r->cqes_off);
	  bool found = false;
	  for (unsigned int i = 0; i < taken; i++)
	    {
	      const struct io_uring_cqe *cqe
		= &cqes[(r->cq_head - taken + i) % size];
	      if (cqe->user_data == 0)
		{
		  clone_res = cqe->res;
		  found = true;
		}
	    }
	  if (!found)
	    FAIL ("line %d: no CQE for the clone", line);
	  outcome = clone_res > 0 ? OUT_CHAIN : OUT_CHAIN_FAILED;
	  if (clone_res > 0 && (ret != 0 || pid != clone_res))
	    FAIL ("line %d: the chain made %d; posix_spawn returned %d, pid"
		  " %d", line, clone_res, ret, (int) pid);
	}
    }
  if (outcome == OUT_LOST)
    FAIL ("line %d: the ring was given up (posix_spawn: %d)", line, ret);

  /* What the new program did.  */
  xclose (fds[1]);
  char buf[sizeof token] = "";
  size_t got = 0;
  while (got < sizeof buf - 1)
    {
      ssize_t k = read (fds[0], buf + got, sizeof buf - 1 - got);
      if (k <= 0)
	break;
      got += k;
    }
  xclose (fds[0]);
  if (ret == 0)
    {
      int status;
      TEST_COMPARE (xwaitpid (pid, &status, 0), pid);
      if (status != 0)
	FAIL ("line %d: the new program's status is %#x", line, status);
      if (strcmp (buf, token) != 0)
	FAIL ("line %d: the new program wrote \"%s\", not \"%s\"", line,
	      buf, token);
    }
  else
    {
      if (pid != -1)
	FAIL ("line %d: posix_spawn failed (%s) and set the pid to %d",
	      line, strerrorname_np (ret), (int) pid);
      if (got != 0)
	FAIL ("line %d: posix_spawn failed (%s), yet \"%s\" came", line,
	      strerrorname_np (ret), buf);
    }
  /* No child, no zombie.  */
  siginfo_t si = { 0 };
  if (waitid (P_ALL, 0, &si, WEXITED | WNOHANG) != -1 || errno != ECHILD)
    FAIL ("line %d: a child is left: %d (posix_spawn: %d)", line,
	  (int) si.si_pid, ret);

  if (inj != NULL && (outcome != OUT_CHAIN || ret != 0))
    printf ("info: line %d: %s %u: %s (%u of %u SQEs taken, clone %d),"
	    " posix_spawn: %s\n", line,
	    inj->name, inj->value, outcome_names[outcome], taken, n, clone_res,
	    ret == 0 ? "0" : strerrorname_np (ret));
  TEST_COMPARE (posix_spawn_file_actions_destroy (&fa), 0);
  return outcome;
}

/* Spawns without faults after one with: each must be a whole chain,
   of another length than the last, and succeed.  */
static void
spawns_after (int line, unsigned int nactions)
{
  unsigned int lengths[] = { BASE_ACTIONS, nactions, BASE_ACTIONS + 3 };
  for (int i = 0; i < 3; i++)
    {
      enum outcome o = spawn_checked (line, lengths[i], NULL);
      if (o != OUT_CHAIN)
	FAIL ("line %d: a spawn after the fault: %s", line,
	      outcome_names[o]);
    }
}

/* (A) fail-nth on the calling thread, whose ring exists.  */
static unsigned int
sweep_warm (struct counts *c)
{
  int fd = knob_open ("fail-nth");
  TEST_VERIFY_EXIT (fd >= 0);
  unsigned int nth;
  for (nth = 1; nth <= MAX_NTH; nth++)
    {
      struct inject inj = { .name = "fail-nth", .fd = fd, .value = nth };
      enum outcome o = spawn_checked (__LINE__, BASE_ACTIONS + 1, &inj);
      if (inj.left != 0)
	break;
      c->n[o]++;
      spawns_after (__LINE__, BASE_ACTIONS + 1);
    }
  xclose (fd);
  return nth;
}

/* (B) fail-nth on a new thread, whose first spawn makes its ring.  */
struct cold
{
  unsigned int nth;
  bool reached;
  enum outcome outcome;
};

static void *
cold_thread (void *closure)
{
  struct cold *cold = closure;
  int fd = knob_open ("fail-nth");
  TEST_VERIFY_EXIT (fd >= 0);
  TEST_VERIFY (ring_self ()->mem == NULL);
  struct inject inj = { .name = "fail-nth", .fd = fd, .value = cold->nth };
  /* A chain longer than the requests io_uring allocates at once.  */
  cold->outcome = spawn_checked (__LINE__, 12, &inj);
  cold->reached = inj.left == 0;
  if (cold->reached)
    spawns_after (__LINE__, 12);
  xclose (fd);
  return NULL;
}

static unsigned int
sweep_cold (struct counts *c)
{
  unsigned int nth;
  for (nth = 1; nth <= MAX_NTH; nth++)
    {
      struct cold cold = { .nth = nth };
      xpthread_join (xpthread_create (NULL, cold_thread, &cold));
      if (!cold.reached)
	break;
      c->n[cold.outcome]++;
    }
  return nth;
}

/* (C) make-it-fail: every allocation of the spawn fails, with fewer
   requests in the ring's cache than the chain has SQEs.  */
struct hot
{
  bool usable;
  struct counts c;
};

static void
touch_stack (void)
{
  /* No page fault may need memory while allocations fail.  */
  volatile char buf[64 * 1024];
  memset ((char *) buf, 0, sizeof buf);
}

static void *
hot_thread (void *closure)
{
  struct hot *hot = closure;
  /* Writing it takes CAP_SYS_RESOURCE.  */
  int fd = knob_open ("make-it-fail");
  if (fd < 0 || pwrite (fd, "0", 1, 0) != 1)
    {
      printf ("info: make-it-fail: %m: (C) skipped\n");
      if (fd >= 0)
	xclose (fd);
      return NULL;
    }
  touch_stack ();
  /* The ring, with the requests of a short chain in its cache.  */
  TEST_COMPARE (spawn_checked (__LINE__, BASE_ACTIONS, NULL), OUT_CHAIN);
  /* Each chain is longer than any before, so the requests the ring has
     are too few for it.  */
  static const unsigned int lengths[] = { 10, 20, 40, 62 };
  for (int i = 0; i < 4; i++)
    {
      struct inject inj = { .name = "make-it-fail", .fd = fd, .value = 1 };
      enum outcome o = spawn_checked (__LINE__, lengths[i], &inj);
      if (i == 0 && o == OUT_CHAIN)
	{
	  printf ("info: make-it-fail fails no allocation here"
		  " (failslab's debugfs settings): (C) skipped\n");
	  break;
	}
      hot->usable = true;
      hot->c.n[o]++;
      spawns_after (__LINE__, lengths[i]);
    }
  xclose (fd);
  return NULL;
}

static int
do_test (int argc, char **argv)
{
  if (child)
    return handle_child (argc, argv);
  /* The counts so far, should the test time out.  */
  setvbuf (stdout, NULL, _IOLBF, 0);
  /* Expected: [ld.so --library-path PATH] PROGRAM.  */
  TEST_VERIFY_EXIT (argc == 2 || argc == 5);
  initial_argc = argc - 1;
  initial_argv = argv + 1;

  if ((getauxval (AT_IO_URING_SPAWN) & IORING_SPAWN_F_CHAIN) == 0)
    FAIL_UNSUPPORTED ("the kernel runs no io_uring spawn chains here");
  int fd = knob_open ("fail-nth");
  if (fd < 0)
    FAIL_UNSUPPORTED ("/proc/thread-self/fail-nth: %m (the kernel needs"
		      " CONFIG_FAULT_INJECTION and CONFIG_FAILSLAB)");
  xclose (fd);
  if (TUNABLE_GET (io_uring, int32_t, NULL) == 0)
    FAIL_UNSUPPORTED ("glibc.spawn.io_uring=0: the io_uring path is off");

  char *dir = support_create_temp_directory ("tst-spawn-uring-fault-");
  tmpdir = realpath (dir, NULL);
  TEST_VERIFY_EXIT (tmpdir != NULL);
  free (dir);
  char *input = xasprintf ("%s/" INPUT, tmpdir);
  fd = xopen (input, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  xwrite (fd, INPUT, strlen (INPUT));
  xclose (fd);
  add_temp_file (input);

  /* The ring, made by a spawn that the kernel runs as a chain.  */
  enum outcome o = spawn_checked (__LINE__, BASE_ACTIONS, NULL);
  if (o == OUT_CHAIN_FAILED)
    FAIL_UNSUPPORTED ("the kernel refuses this process's chains");
  if (o != OUT_CHAIN)
    FAIL_EXIT1 ("glibc.spawn.io_uring=1 and AT_IO_URING_SPAWN %#lx, yet"
		" the spawn went no chain: %s",
		getauxval (AT_IO_URING_SPAWN), outcome_names[o]);

  /* (C) first: it is the one that can fail fast.  */
  struct hot hot = { 0 };
  xpthread_join (xpthread_create (NULL, hot_thread, &hot));
  if (hot.usable)
    print_counts ("(C) make-it-fail", &hot.c);

  struct counts warm = { 0 }, cold = { 0 };
  unsigned int last = sweep_warm (&warm);
  printf ("info: (A) fail-nth 1 to %u failed an allocation of a spawn on a"
	  " thread with a ring; %u failed none\n", last - 1, last);
  print_counts ("(A)", &warm);
  last = sweep_cold (&cold);
  printf ("info: (B) fail-nth 1 to %u failed an allocation of a thread's"
	  " first spawn; %u failed none\n", last - 1, last);
  print_counts ("(B)", &cold);

  unsigned int shorts = (warm.n[OUT_SHORT] + cold.n[OUT_SHORT]
			 + hot.c.n[OUT_SHORT]);
  printf ("info: %u short submissions\n", shorts);
  free (input);
  free (tmpdir);
  if (shorts == 0)
    FAIL_UNSUPPORTED ("no submission was short; failslab needs"
		      " probability 100, times -1, task-filter Y and"
		      " ignore-gfp-wait N for make-it-fail to make one");
  return 0;
}

#endif /* HAVE_SPAWN_URING */

/* Hundreds of spawns, each of which runs this program, under an
   emulated CPU and a kernel with KASAN and lockdep.  */
#define TIMEOUT 600
#define TEST_FUNCTION_ARGV do_test
#include <support/test-driver.c>
