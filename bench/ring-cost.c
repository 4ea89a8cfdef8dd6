/* ring-cost: what a spawn pays for its io_uring ring.

   The measurement behind the ring management of the glibc overlay
   (sysdeps-overlay/unix/sysv/linux/spawni-uring.c): a ring made for
   each spawn, exactly as __spawni_uring makes it, against one ring made
   once and reused, as glibc's per-thread ring is, and against one ring
   reused that has a file descriptor (entered through it, not through a
   registered index).  Compiled against the UAPI headers of a kernel
   with patches/kernel, and run on that kernel (./build.sh vm) on an
   otherwise idle guest with one CPU, under --icount, so that the guest
   clock counts every instruction of the deferred ring teardown too:

     VM_SMP=1 ./build.sh vm --icount -- sh -c \
       'cp build/bench/bin/ring-cost /tmp/rc && /tmp/rc [ITERATIONS]'

   (From tmpfs by an absolute path: no exec over 9p, and the descriptor
   snapshot, as below.)

   It prints, per spawn+wait of an exit-only static child (this program
   run as "ring-cost -c"), the mean and the median time of each way, and
   the cost of the set-up and teardown alone.  Means are over the whole
   run, so work the kernel defers (the ring's exit work) is counted where
   it lands.  (The detection costs nothing: the auxiliary vector says.)
   The chain is the raw one, CLONE + EXEC, with no attribute struct; the
   clone asks for the descriptor snapshot when the kernel has it and
   this program's path is absolute and outside /proc and /dev, as glibc
   asks for it.

     ring-cost --glibc [ITERATIONS]

   splits what glibc's io_uring path adds to the raw chain: the raw
   chain's spawn+wait, then the same with what __spawni_uring adds, one
   piece at a time (the attribute struct with the caller's signal mask;
   its prctl (PR_GET_SECCOMP) and gettid; every signal blocked around
   the submission and the mask restored, as the abort lock does), the
   ways interleaved iteration by iteration so that drift hits them all
   alike; and each of those system calls alone.

     ring-cost --first [ITERATIONS]

   splits a thread's first spawn through a ring of its own, in fresh
   processes: the ring's mmap, madvise and io_uring_setup, the first
   spawn+wait and a second one.  It marks the measured processes in
   trace_marker as --phases does (bench/kphases.py --first splits the
   kernel's part).

     ring-cost --design [ITERATIONS [CHILD]]

   prices the design choices a spawn can do without, on this kernel, the
   ways interleaved as for --glibc: the chain as glibc submits it (the
   ring with DEFER_TASKRUN, the clone with the descriptor snapshot), then
   the same with a ring without DEFER_TASKRUN, without the snapshot, with
   setsid, a signal mask and every handler reset carried in the clone's
   attribute struct, and with an EXEC that fails (ENOENT, a PATH search's
   miss) before the one that succeeds: the two share the chain's one
   copy of argv and envp.  CHILD (default: this program) is the program
   the chains execute: the benchmark's static child without a C library
   (bench/child-exit.c) makes each spawn+wait cheaper, and so the
   differences clearer.

     ring-cost --phases [ITERATIONS]

   splits a spawn+wait of the raw chain and of vfork+execve into the
   spawning call, the wait for the chain's CQEs and waitpid, with an exec
   that succeeds and one that fails: where the chain's time goes.  It
   writes "ring-cost: begin|end M NS" (M the mechanism's number, NS the
   CLOCK_MONOTONIC time) to /sys/kernel/tracing/trace_marker around each
   mechanism's measured spawns, if it can: bench/kphases.py splits the
   kernel's part of them with kprobes.  */

#ifndef _GNU_SOURCE
# define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <liburing.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/auxvec.h>
#include <linux/sched.h>

#define ENTRIES 64

struct ring
{
  int index;			/* the registered index, or the descriptor */
  bool fd;			/* INDEX is a descriptor */
  char *mem;
  size_t size;
  struct io_uring_sqe *sqes;
  unsigned int *sq_tail;
  unsigned int *cq_head;
  unsigned int *cq_tail;
  struct io_uring_cqe *cqes;
};

static char *self;
/* The set-up flags of glibc's ring that the ways here may leave out:
   fd-less, one issuer, its completions run when it waits.  */
#define GLIBC_RING (IORING_SETUP_REGISTERED_FD_ONLY \
		    | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN)

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A ring in pages of our own, wiped in a child of fork, with FLAGS
   (GLIBC_RING, or some of it: without IORING_SETUP_REGISTERED_FD_ONLY
   the ring has a descriptor).  If STAMPS, the times after the mmap, the
   madvise and the io_uring_setup go there.  */
static void
ring_open (struct ring *r, unsigned int flags, uint64_t *stamps)
{
  size_t page = sysconf (_SC_PAGESIZE);
  r->size = 2 * page;
  r->fd = !(flags & IORING_SETUP_REGISTERED_FD_ONLY);
  r->mem = mmap (NULL, r->size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stamps != NULL)
    stamps[0] = now_ns ();
  if (r->mem == MAP_FAILED
      || madvise (r->mem, r->size, MADV_WIPEONFORK) != 0)
    {
      perror ("the ring's memory");
      exit (1);
    }
  if (stamps != NULL)
    stamps[1] = now_ns ();
  struct io_uring_params p =
    {
      .flags = (IORING_SETUP_NO_MMAP | flags
		| IORING_SETUP_NO_SQARRAY | IORING_SETUP_CQSIZE),
      .cq_entries = ENTRIES,
    };
  p.cq_off.user_addr = (uintptr_t) r->mem;
  p.sq_off.user_addr = (uintptr_t) r->mem + page;
  r->index = syscall (SYS_io_uring_setup, ENTRIES, &p);
  if (stamps != NULL)
    stamps[2] = now_ns ();
  if (r->index < 0)
    {
      perror ("io_uring_setup");
      exit (1);
    }
  r->sqes = (struct io_uring_sqe *) (r->mem + page);
  r->sq_tail = (unsigned int *) (r->mem + p.sq_off.tail);
  r->cq_head = (unsigned int *) (r->mem + p.cq_off.head);
  r->cq_tail = (unsigned int *) (r->mem + p.cq_off.tail);
  r->cqes = (struct io_uring_cqe *) (r->mem + p.cq_off.cqes);
}

static void
ring_close (struct ring *r)
{
  struct io_uring_rsrc_update update = { .offset = r->index };
  if (r->fd)
    close (r->index);
  else
    syscall (SYS_io_uring_register, r->index,
	     IORING_UNREGISTER_RING_FDS | IORING_REGISTER_USE_REGISTERED_RING,
	     &update, 1);
  munmap (r->mem, r->size);
}

static unsigned int
ring_enter_flags (const struct ring *r)
{
  return r->fd ? 0 : IORING_ENTER_REGISTERED_RING;
}

/* Submit N SQEs and, with WAIT, wait for their CQEs.  */
static void
ring_submit (struct ring *r, unsigned int n, bool wait)
{
  __atomic_store_n (r->sq_tail, *r->sq_tail + n, __ATOMIC_RELEASE);
  if (syscall (SYS_io_uring_enter, r->index, n, wait ? n : 0,
	       (wait ? IORING_ENTER_GETEVENTS : 0) | ring_enter_flags (r),
	       NULL, 0) != (long) n)
    {
      perror ("io_uring_enter");
      exit (1);
    }
}

/* Wait until the N CQEs after the CQ head are in; consume them and
   return the result of the one with user_data 0.  */
static int
ring_reap (struct ring *r, unsigned int n)
{
  unsigned int head = *r->cq_head;
  /* The kernel counts from the CQ head: wait for all N, not for one
     more, which the clone's CQE may already be.  */
  while (__atomic_load_n (r->cq_tail, __ATOMIC_ACQUIRE) - head < n)
    syscall (SYS_io_uring_enter, r->index, 0, n,
	     IORING_ENTER_GETEVENTS | ring_enter_flags (r), NULL, 0);
  int res = 0;
  for (unsigned int i = head; i != head + n; i++)
    if (r->cqes[i % ENTRIES].user_data == 0)
      res = r->cqes[i % ENTRIES].res;
  __atomic_store_n (r->cq_head, head + n, __ATOMIC_RELEASE);
  return res;
}

static int
ring_run (struct ring *r, unsigned int n)
{
  ring_submit (r, n, true);
  return ring_reap (r, n);
}

static char *child_argv[3];
static char *child_envp[] = { NULL };
/* The clone's spawn_flags (main sets IORING_CLONE_FD_SNAPSHOT).  */
static unsigned int clone_spawn_flags;
/* The clone's attribute struct, or none (--glibc sets it).  */
static struct io_uring_spawn_attr *clone_attr;

/* --design: an EXEC of MISSING as a PATH candidate comes before the
   one that succeeds.  */
static bool chain_miss_first;
/* A name beside this program that does not exist: its lookup fails
   where this program is (tmpfs, in the VM), not on the 9p root, whose
   lookup makes the idle guest skip ahead to its next timer under
   -icount sleep=off.  */
static char missing[4096];

/* Write CLONE, then EXEC of "PATH -c", after the SQ tail; return the
   number of SQEs.  */
static unsigned int
chain_write (struct ring *r, const char *path)
{
  static struct clone_args ca = { .exit_signal = SIGCHLD };
  /* Where the ring's SQ wraps, the SQEs of a chain of three do too.  */
  struct io_uring_sqe sqe[3] = { 0 }, *s = sqe;
  io_uring_prep_clone (s, &ca, sizeof (ca), clone_attr, clone_spawn_flags);
  if (chain_miss_first)
    {
      io_uring_prep_exec (++s, AT_FDCWD, missing, child_argv, child_envp,
			  IORING_EXEC_SEARCH);
      s->flags = IOSQE_IO_LINK;
      s->user_data = 2;
    }
  io_uring_prep_exec (++s, AT_FDCWD, path, child_argv, child_envp, 0);
  s->user_data = 1;
  unsigned int n = s + 1 - sqe;
  for (unsigned int i = 0; i < n; i++)
    r->sqes[(*r->sq_tail + i) % ENTRIES] = sqe[i];
  return n;
}

static pid_t
checked_pid (int res)
{
  if (res <= 0)
    {
      fprintf (stderr, "ring-cost: clone: %s\n", strerror (-res));
      exit (1);
    }
  return res;
}

/* The program the chains execute (--design may name another).  */
static const char *child_path;

/* CLONE, then EXEC of CHILD_PATH; return the pid.  */
static pid_t
spawn (struct ring *r)
{
  return checked_pid (ring_run (r, chain_write (r, child_path)));
}

static void
reap_status (pid_t pid, int expected)
{
  int status;
  if (waitpid (pid, &status, 0) != pid || status != expected)
    {
      fprintf (stderr, "ring-cost: child %d: status %#x\n", pid, status);
      exit (1);
    }
}

static void
reap (pid_t pid)
{
  reap_status (pid, 0);
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

/* The median of the N times T (sorted here), in us.  */
static double
median_us (uint64_t *t, int n)
{
  qsort (t, n, sizeof (*t), cmp_u64);
  return t[n / 2] / 1e3;
}

static void
report (const char *what, uint64_t *t, int n, uint64_t total)
{
  double med = median_us (t, n);
  printf ("%-34s mean %8.1f us  median %8.1f us\n", what,
	  total / 1e3 / n, med);
}

/* The ways of running one iteration; WAY is its number, R the cached
   ring where there is one.  */
enum way { SETUP_ONLY, SPAWN_FRESH, SPAWN_CACHED, SPAWN_CACHED_FD, NWAYS };

static const char *const way_name[NWAYS] =
  {
    "ring set-up + teardown",
    "spawn+wait, ring per spawn",
    "spawn+wait, one ring reused",
    "spawn+wait, one ring with an fd",
  };

static void
iterate (enum way way, struct ring *cached, struct ring *cached_fd)
{
  struct ring r;
  switch (way)
    {
    case SETUP_ONLY:
      ring_open (&r, GLIBC_RING, NULL);
      ring_close (&r);
      break;
    case SPAWN_FRESH:
      ring_open (&r, GLIBC_RING, NULL);
      pid_t pid = spawn (&r);
      ring_close (&r);
      reap (pid);
      break;
    case SPAWN_CACHED:
      reap (spawn (cached));
      break;
    case SPAWN_CACHED_FD:
      reap (spawn (cached_fd));
      break;
    default:
      abort ();
    }
}

/* --phases: where the time of a spawn+wait goes, for the chain and for
   vfork, with an exec that succeeds and one that fails (ENOENT: the
   process is created and dies without an exec; the chain's child is
   then gone when the CQEs come, with nothing to wait for).  Stamps: T[0]
   before, T[1] when the spawning call returns (the chain: after the
   submission, whose task_work makes the child on the call's way back to
   user space, so the call includes the clone; vfork: when the child has
   exec'd or exited), T[2] when the chain's CQEs are in (vfork: = T[1]),
   T[3] after waitpid.  */
enum mech { M_CHAIN, M_CHAIN_FAIL, M_VFORK, M_VFORK_FAIL, NMECHS };
static const char *const mech_name[NMECHS] =
  {
    "CLONE+EXEC chain", "CLONE+EXEC chain, exec fails",
    "vfork+execve", "vfork+execve, exec fails"
  };

static void
phases_once (enum mech m, struct ring *r, uint64_t t[4])
{
  const char *path = (m == M_CHAIN || m == M_VFORK) ? self : missing;
  int status = (m == M_CHAIN || m == M_VFORK) ? 0 : 127 << 8;
  pid_t pid;
  t[0] = now_ns ();
  if (m == M_CHAIN || m == M_CHAIN_FAIL)
    {
      ring_submit (r, chain_write (r, path), false);
      t[1] = now_ns ();
      pid = checked_pid (ring_reap (r, 2));
      t[2] = now_ns ();
      if (m == M_CHAIN_FAIL)
	{
	  /* Gone without a trace: nothing to reap.  */
	  if (waitpid (pid, NULL, WNOHANG) != -1 || errno != ECHILD)
	    {
	      fprintf (stderr, "ring-cost: the failed child %d is there\n", pid);
	      exit (1);
	    }
	  t[3] = now_ns ();
	  return;
	}
    }
  else
    {
      pid = vfork ();
      if (pid == 0)
	{
	  execve (path, child_argv, child_envp);
	  _exit (127);
	}
      t[1] = t[2] = now_ns ();
    }
  reap_status (pid, status);
  t[3] = now_ns ();
}

static int marker_fd = -1;

static void
marker (const char *what, int m)
{
  char buf[64];
  int len = snprintf (buf, sizeof buf, "ring-cost: %s %d %llu\n", what, m,
		      (unsigned long long) now_ns ());
  if (marker_fd >= 0 && write (marker_fd, buf, len) != len)
    marker_fd = -1;
}

static void
phases (int n, struct ring *r)
{
  marker_fd = open ("/sys/kernel/tracing/trace_marker", O_WRONLY | O_CLOEXEC);
  uint64_t *d[3];
  for (int k = 0; k < 3; k++)
    d[k] = calloc (n, sizeof (uint64_t));
  printf ("%-30s %12s %12s %12s  (medians, us; v3 interface%s)\n",
	  "phases", "call", "until CQEs", "waitpid",
	  clone_spawn_flags ? ", descriptor snapshot" : "");
  for (int m = 0; m < NMECHS; m++)
    {
      uint64_t t[4];
      for (int i = 0; i < n / 10; i++)
	phases_once (m, r, t);
      marker ("begin", m);
      for (int i = 0; i < n; i++)
	{
	  phases_once (m, r, t);
	  for (int k = 0; k < 3; k++)
	    d[k][i] = t[k + 1] - t[k];
	}
      marker ("end", m);
      printf ("%-30s", mech_name[m]);
      for (int k = 0; k < 3; k++)
	{
	  printf (" %12.1f", median_us (d[k], n));
	}
      printf ("\n");
    }
}

/* --glibc and --design: run ONCE (WAY, ARG) for each of the NWAYS ways
   N times, after N / 10 rounds of warm-up; D[WAY][I] gets the times.
   Each round starts with another way, so that each follows each of the
   others as often: work one spawn leaves (its child's release, the
   ring's deferred work) lands on all alike.  */
static void
interleave (int n, int nways, void (*once) (int, void *), void *arg,
	    uint64_t **d)
{
  for (int i = 0; i < n / 10; i++)
    for (int w = 0; w < nways; w++)
      once (w, arg);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < nways; k++)
      {
	int w = (i + k) % nways;
	uint64_t t0 = now_ns ();
	once (w, arg);
	d[w][i] = now_ns () - t0;
      }
}

/* Print each way's median and its difference to the way before (or,
   with TO_FIRST, to the first).  */
static void
print_ways (int n, int nways, const char *const *name, uint64_t **d,
	    bool to_first)
{
  double first = 0, prev = 0;
  for (int w = 0; w < nways; w++)
    {
      double med = median_us (d[w], n);
      printf ("%-36s median %8.1f us", name[w], med);
      if (w > 0)
	printf ("  (%+.1f)", med - (to_first ? first : prev));
      printf ("\n");
      if (w == 0)
	first = med;
      prev = med;
    }
}

/* --glibc: the raw chain, then what __spawni_uring adds to it, one piece
   more in each way; the ways take turns, one spawn+wait each, each round
   starting with the next way.  */
enum gway { G_RAW, G_ATTR, G_CHECKS, G_MASK, NGWAYS };
static const char *const gway_name[NGWAYS] =
  {
    "raw chain (CLONE, EXEC)",
    "+ attribute struct, SETSIGMASK",
    "+ prctl (PR_GET_SECCOMP), gettid",
    "+ signals blocked, mask restored",
  };

static void
glibc_once (int g, void *arg)
{
  struct ring *r = arg;
  static struct io_uring_spawn_attr attr =
    { .flags = IORING_SPAWN_ATTR_SETSIGMASK };
  sigset_t all, old;
  clone_attr = g >= G_ATTR ? &attr : NULL;
  if (g >= G_CHECKS
      && (syscall (SYS_prctl, PR_GET_SECCOMP) != 0
	  || syscall (SYS_gettid) != getpid ()))
    {
      fprintf (stderr, "ring-cost: under seccomp, or not the main thread\n");
      exit (1);
    }
  if (g >= G_MASK)
    {
      sigfillset (&all);
      syscall (SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, _NSIG / 8);
    }
  pid_t pid = spawn (r);
  if (g >= G_MASK)
    syscall (SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
  clone_attr = NULL;
  reap (pid);
}

/* The median of N runs of CALL, in us.  */
static double
call_median (int n, uint64_t *t, void (*call) (void))
{
  for (int i = 0; i < n; i++)
    {
      uint64_t t0 = now_ns ();
      call ();
      t[i] = now_ns () - t0;
    }
  return median_us (t, n);
}

static void
call_prctl (void)
{
  syscall (SYS_prctl, PR_GET_SECCOMP);
}

static void
call_gettid (void)
{
  syscall (SYS_gettid);
}

static void
call_mask_pair (void)
{
  sigset_t all, old;
  sigfillset (&all);
  syscall (SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, _NSIG / 8);
  syscall (SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
}

static void
call_nothing (void)
{
}

static void
glibc_split (int n, struct ring *r)
{
  uint64_t *d[NGWAYS];
  for (int g = 0; g < NGWAYS; g++)
    d[g] = calloc (n, sizeof (uint64_t));
  interleave (n, NGWAYS, glibc_once, r, d);
  printf ("ring-cost --glibc: %d spawn+wait each, ways interleaved,"
	  " CLOCK_MONOTONIC, v3 interface%s\n", n,
	  clone_spawn_flags ? ", descriptor snapshot" : "");
  print_ways (n, NGWAYS, gway_name, d, false);
  double none = call_median (n, d[0], call_nothing);
  printf ("%-36s median %8.2f us\n", "prctl (PR_GET_SECCOMP) alone",
	  call_median (n, d[0], call_prctl) - none);
  printf ("%-36s median %8.2f us\n", "gettid alone",
	  call_median (n, d[0], call_gettid) - none);
  printf ("%-36s median %8.2f us\n", "rt_sigprocmask block + restore",
	  call_median (n, d[0], call_mask_pair) - none);
}

/* --design: glibc's chain, then the same without one of the design's
   choices, or with more to do; the ways interleaved as for --glibc.  */
enum dway { D_GLIBC, D_NO_DEFER, D_NO_SNAPSHOT, D_ATTRS, D_MISS, NDWAYS };
static const char *const dway_name[NDWAYS] =
  {
    "glibc's ring and chain",
    "ring without DEFER_TASKRUN",
    "clone without the fd snapshot",
    "setsid, mask, all handlers reset",
    "a failing EXEC first (ENOENT)",
  };

/* The two rings of --design: glibc's, and one without DEFER_TASKRUN.  */
struct design_rings
{
  struct ring *glibc;
  struct ring no_defer;
};

static void
design_once (int d, void *arg)
{
  struct design_rings *rings = arg;
  static struct io_uring_spawn_attr attr =
    {
      .flags = (IORING_SPAWN_ATTR_SETSID | IORING_SPAWN_ATTR_SETSIGMASK
		| IORING_SPAWN_ATTR_SETSIGDEF),
      .sigdefault = ~0ULL,
    };
  unsigned int flags = clone_spawn_flags;
  if (d == D_NO_SNAPSHOT)
    clone_spawn_flags = 0;
  clone_attr = d == D_ATTRS ? &attr : NULL;
  chain_miss_first = d == D_MISS;
  pid_t pid = spawn (d == D_NO_DEFER ? &rings->no_defer : rings->glibc);
  clone_spawn_flags = flags;
  clone_attr = NULL;
  chain_miss_first = false;
  reap (pid);
}

static void
design_split (int n, struct ring *r)
{
  struct design_rings rings = { .glibc = r };
  ring_open (&rings.no_defer, GLIBC_RING & ~IORING_SETUP_DEFER_TASKRUN,
	     NULL);
  uint64_t *d[NDWAYS];
  for (int w = 0; w < NDWAYS; w++)
    d[w] = calloc (n, sizeof (uint64_t));
  interleave (n, NDWAYS, design_once, &rings, d);
  printf ("ring-cost --design: %d spawn+wait each of %s, ways interleaved,"
	  " CLOCK_MONOTONIC, v3 interface%s\n", n, child_path,
	  clone_spawn_flags ? ", descriptor snapshot" : "");
  print_ways (n, NDWAYS, dway_name, d, true);
  ring_close (&rings.no_defer);
}

/* --first: a thread's first ring and spawn, in N fresh processes (made
   by fork, not measured): the ring's mmap, madvise and io_uring_setup
   (which also makes the task's io_uring context), the first spawn+wait
   through it, and a second one.  */
enum { F_MMAP, F_MADVISE, F_SETUP, F_FIRST, F_SECOND, NFSTEPS };
static const char *const fstep_name[NFSTEPS] =
  {
    "mmap (the ring's pages)", "madvise (MADV_WIPEONFORK)",
    "io_uring_setup", "first spawn+wait", "second spawn+wait",
  };

static void
first_once (uint64_t d[NFSTEPS])
{
  int pipefd[2];
  /* Close-on-exec: the spawns measured carry no descriptor of ours.  */
  if (pipe2 (pipefd, O_CLOEXEC) != 0)
    {
      perror ("pipe");
      exit (1);
    }
  pid_t pid = fork ();
  if (pid < 0)
    {
      perror ("fork");
      exit (1);
    }
  if (pid == 0)
    {
      uint64_t t[NFSTEPS + 1];
      struct ring r;
      /* This frame's copy-on-write faults before the clock starts (an
	 exec'd process does not pay them); explicit_bzero is not
	 optimized away.  */
      explicit_bzero (t, sizeof t);
      explicit_bzero (&r, sizeof r);
      t[0] = now_ns ();
      ring_open (&r, GLIBC_RING, &t[1]);
      reap (spawn (&r));
      t[4] = now_ns ();
      reap (spawn (&r));
      t[5] = now_ns ();
      for (int k = 0; k < NFSTEPS; k++)
	d[k] = t[k + 1] - t[k];
      ssize_t len = NFSTEPS * sizeof (uint64_t);
      _exit (write (pipefd[1], d, len) == len ? 0 : 1);
    }
  close (pipefd[1]);
  ssize_t len = NFSTEPS * sizeof (uint64_t);
  if (read (pipefd[0], d, len) != len)
    {
      fprintf (stderr, "ring-cost: no times from the fresh process\n");
      exit (1);
    }
  close (pipefd[0]);
  reap (pid);
}

static void
first_split (int n)
{
  uint64_t *d[NFSTEPS];
  for (int k = 0; k < NFSTEPS; k++)
    d[k] = calloc (n, sizeof (uint64_t));
  uint64_t one[NFSTEPS];
  for (int i = 0; i < n / 10; i++)
    first_once (one);
  /* For kphases.py --first, as for --phases.  */
  marker_fd = open ("/sys/kernel/tracing/trace_marker", O_WRONLY | O_CLOEXEC);
  marker ("begin", 0);
  for (int i = 0; i < n; i++)
    {
      first_once (one);
      for (int k = 0; k < NFSTEPS; k++)
	d[k][i] = one[k];
    }
  marker ("end", 0);
  printf ("ring-cost --first: %d fresh processes, CLOCK_MONOTONIC,"
	  " v3 interface%s\n", n,
	  clone_spawn_flags ? ", descriptor snapshot" : "");
  for (int k = 0; k < NFSTEPS; k++)
    {
      printf ("%-36s median %8.1f us\n", fstep_name[k], median_us (d[k], n));
    }
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "-c") == 0)
    return 0;
  self = argv[0];
  bool by_phase = argc > 1 && strcmp (argv[1], "--phases") == 0;
  bool by_glibc = argc > 1 && strcmp (argv[1], "--glibc") == 0;
  bool by_first = argc > 1 && strcmp (argv[1], "--first") == 0;
  bool by_design = argc > 1 && strcmp (argv[1], "--design") == 0;
  int mode = by_phase || by_glibc || by_first || by_design;
  int n = argc > 1 + mode ? atoi (argv[1 + mode]) : 2000;
  child_path = by_design && argc > 2 + mode ? argv[2 + mode] : self;
  if (n < 10 || argc > 2 + mode + by_design)
    {
      fprintf (stderr,
	       "usage: ring-cost [--phases | --glibc | --first] [ITERATIONS >= 10]\n"
	       "       ring-cost --design [ITERATIONS >= 10 [CHILD]]\n");
      return 2;
    }
  child_argv[0] = (char *) child_path;
  child_argv[1] = (char *) "-c";
  snprintf (missing, sizeof missing, "%s.nonexistent", self);
  /* As glibc (spawni-uring.c, path_may_name_fd): the snapshot for an
     absolute path outside /proc and /dev.  */
  if ((getauxval (AT_IO_URING_SPAWN) & IORING_SPAWN_F_FD_SNAPSHOT)
      && child_path[0] == '/' && strncmp (child_path, "/proc/", 6) != 0
      && strncmp (child_path, "/dev/", 5) != 0)
    clone_spawn_flags = IORING_CLONE_FD_SNAPSHOT;
  if (by_first)
    {
      first_split (n);
      return 0;
    }
  uint64_t *t = calloc (n, sizeof (*t));
  struct ring cached, cached_fd;
  ring_open (&cached, GLIBC_RING, NULL);
  if (by_phase)
    {
      phases (n, &cached);
      return 0;
    }
  if (by_glibc)
    {
      glibc_split (n, &cached);
      return 0;
    }
  if (by_design)
    {
      design_split (n, &cached);
      return 0;
    }
  ring_open (&cached_fd, GLIBC_RING & ~IORING_SETUP_REGISTERED_FD_ONLY,
	     NULL);
  printf ("ring-cost: %d iterations each, CLOCK_MONOTONIC, v3 interface%s\n",
	  n, clone_spawn_flags ? ", descriptor snapshot" : "");
  for (int way = 0; way < NWAYS; way++)
    {
      for (int i = 0; i < n / 10; i++)	/* Warm-up.  */
	iterate (way, &cached, &cached_fd);
      uint64_t start = now_ns ();
      for (int i = 0; i < n; i++)
	{
	  uint64_t t0 = now_ns ();
	  iterate (way, &cached, &cached_fd);
	  t[i] = now_ns () - t0;
	}
      report (way_name[way], t, n, now_ns () - start);
    }
  ring_close (&cached);
  ring_close (&cached_fd);
  return 0;
}
