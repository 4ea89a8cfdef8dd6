/* A bounded fuzzer of spawn chains (issue 10; run by fuzz.exp only with
   KT_FUZZ=1):

     fuzz COUNT SEED

   As an unprivileged user (65534), COUNT random submissions: chains of
   the spawn operations (a CLONE head or not), random fields, flags,
   lengths and pointers (valid ones, NULL, small, kernel, unmapped,
   PROT_NONE, strings and arrays running into a PROT_NONE page), random
   clone_args and io_uring_spawn_attr (v3: CLONE's addr2/optlen and
   spawn_flags, SPAWN_ACTION sub-ops in cmd_op, EXEC's argv in addr2),
   chains longer than IORING_SPAWN_MAX_OPS, random link shapes and SQE
   flags, ordinary operations (NOP, a random opcode, but none that
   closes or makes a descriptor in the fuzzer's own table) mixed in,
   children killed, stopped and continued at random, and rings (plain,
   DEFER_TASKRUN, SQPOLL, IOPOLL) closed at random points, with chains in
   flight.  A FIFO no one writes to keeps some children blocked in their
   chain across a ring's close.

   Checked: every CQE's res is a pid, a count or a clean errno (a fixed
   list); after every submission the fuzzer's own descriptors (0, 1, 2
   and its O_PATH one) are the files they were (the first one that is
   not is reported with its submission's SQEs); afterwards no task of
   the user is left, no fd of the fuzzer is left open (a CLONE_PIDFD
   clone writes its pidfd into a slot of its own or into memory nobody
   can write, so every pidfd is the fuzzer's to close), and (debug
   kernel) kmemleak finds nothing.  The kernel log is checked by
   check-kernel.sh.  The seed is printed: the same seed gives the same
   submissions.  */

#include "st.h"
#include <grp.h>
#include <sys/mman.h>
#include <sys/prctl.h>

static const uid_t user = 65534;
static char dir[] = "/tmp/st-fuzz";
static uint64_t rng;

static uint64_t
rnd (void)
{
  /* xorshift64* */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ULL;
}

static unsigned
below (unsigned n)
{
  return n ? rnd () % n : 0;
}

static bool
chance (unsigned percent)
{
  return below (100) < percent;
}

/* Memory the pointers point into.  */
static char *good;		/* read-write, strings and arrays */
static char *none;		/* PROT_NONE */
static char *edge;		/* the last bytes before NONE */
static size_t pg;

static const char *paths[] = {
  "/tmp/st-fuzz/true", "/bin/true", "/", "/tmp/st-fuzz", "/nonexistent",
  "", "/tmp/st-fuzz/fifo", "/tmp/st-fuzz/file", "/tmp/st-fuzz/new",
  "/dev/null", "/proc/self/fd/0", "true", "fifo", "/tmp/st-fuzz/noexec",
  "/dev/ptmx", "/tmp/st-fuzz/sh",
};
#define NPATHS (sizeof paths / sizeof paths[0])

static char *argv_ok[] = { "true", "a", NULL };
static char *envp_ok[] = { "A=b", NULL };
static char **argv_edge, **argv_unterminated;
static char *longpath;
static int path_fd = -1;
static struct io_uring_spawn_attr sigs_buf;
/* Each CLONE gets clone_args of its own, and a slot for its pidfd,
   which no later CLONE reuses while the first may still be read (an
   SQPOLL thread reads its SQE late, a deferred chain writes its pidfd
   late).  A pidfd goes into that slot or into memory nobody can write,
   so every pidfd the kernel gives the fuzzer is in a slot, and closed:
   one left open at the end is the kernel's leak, not one written into a
   random buffer or over another.  */
#define NCLONES 4096
static struct clone_args ca_buf[NCLONES];
static int pidfds[NCLONES];
static unsigned int clone_next;

static uint64_t
rnd_unwritable_ptr (void)
{
  switch (below (4))
    {
    case 0: return 0;
    case 1: return 8;
    case 2: return 0xffff888000000000ULL;
    default: return (uintptr_t) none;
    }
}

/* Close the pidfds in the slots of the last N clones.  */
static void
close_pidfds (unsigned int n)
{
  for (unsigned int k = 0; k < n && k < NCLONES; k++)
    {
      int *slot = &pidfds[(clone_next - 1 - k) % NCLONES];
      if (*slot > 0)
	close (*slot);
      *slot = -1;
    }
}

static uint64_t
rnd_ptr (int kind_hint)
{
  switch (below (14))
    {
    case 0: return 0;
    case 1: return 8;
    case 2: return 0xffff888000000000ULL;
    case 3: return (uintptr_t) none;
    case 4: return (uintptr_t) edge;
    case 5: return rnd ();
    case 6: return (uintptr_t) longpath;
    case 7: return (uintptr_t) (good + below (pg));
    default:
      if (kind_hint == 1)
	return (uintptr_t) (chance (80) ? argv_ok : chance (50) ? argv_edge
			    : argv_unterminated);
      if (kind_hint == 2)
	return (uintptr_t) (chance (80) ? envp_ok : argv_edge);
      return (uintptr_t) paths[below (NPATHS)];
    }
}

static uint32_t
rnd_u32 (void)
{
  switch (below (6))
    {
    case 0: return 0;
    case 1: return below (16);
    case 2: return 1U << below (32);
    case 3: return ~0U;
    default: return rnd ();
    }
}

static int32_t
rnd_fd (void)
{
  switch (below (8))
    {
    case 0: return AT_FDCWD;
    case 1: return path_fd;
    case 2: return -1;
    case 3: return rnd ();
    case 4: return 1 << 30;
    default: return below (12);
    }
}

static uint64_t
rnd_off (void)
{
  switch (below (6))
    {
    case 0: return 0;
    case 1: return below (12);
    case 2: return rnd ();
    case 3: return (uint64_t) INT32_MAX + below (3);
    default: return rnd_ptr (1);
    }
}

static unsigned
rnd_sqe_flags (bool link)
{
  unsigned f = link ? (chance (80) ? IOSQE_IO_LINK : IOSQE_IO_HARDLINK) : 0;
  if (chance (5))
    f |= 1U << below (7);
  return f;
}

/* Whether OP, run by the fuzzer's ring, may close a descriptor of the
   fuzzer or make one.  */
static bool
op_changes_fds (int op)
{
  switch (op)
    {
    case IORING_OP_ACCEPT:
    case IORING_OP_OPENAT:
    case IORING_OP_CLOSE:
    case IORING_OP_OPENAT2:
    case IORING_OP_SOCKET:
    case IORING_OP_FIXED_FD_INSTALL:
    case IORING_OP_PIPE:
      return true;
    default:
      return false;
    }
}

/* A random spawn operation (or another opcode) into SQE.  */
static void
rnd_op (struct io_uring_sqe *sqe)
{
  int op, sub = -1;
  if (chance (5))
    op = IORING_OP_NOP;
  else if (chance (3))
    {
      op = below (256);
      /* Not the ordinary operations that close or make descriptors in the
	 fuzzer's own table (its fd 0 closed by IORING_OP_CLOSE, seed 102):
	 the chains must leave that table as it was, and the checks say
	 so.  */
      if (op_changes_fds (op))
	op = IORING_OP_NOP;
    }
  else if (chance (30))
    op = IORING_OP_EXEC;
  else
    {
      op = IORING_OP_SPAWN_ACTION;
      sub = chance (95) ? (int) below (IORING_SPAWN_OP_LAST)
	    : (int) rnd_u32 ();
      sqe->cmd_op = sub;
    }
  sqe->opcode = op;
  /* Plausible fields most of the time, anything sometimes.  */
  if (op == IORING_OP_EXEC)
    {
      sqe->fd = chance (80) ? AT_FDCWD : rnd_fd ();
      sqe->addr = chance (70) ? (uintptr_t) paths[below (3)] : rnd_ptr (0);
      sqe->addr2 = chance (80) ? (uintptr_t) argv_ok : rnd_ptr (1);
      sqe->addr3 = chance (80) ? (uintptr_t) envp_ok : rnd_ptr (2);
      if (chance (30))
	sqe->spawn_flags = chance (70) ? IORING_EXEC_SEARCH
	  : chance (50) ? AT_EMPTY_PATH : rnd_u32 ();
    }
  else if (op == IORING_OP_SPAWN_ACTION)
    switch (sub)
      {
      case IORING_SPAWN_OPEN:
	sqe->fd = chance (80) ? AT_FDCWD : rnd_fd ();
	sqe->addr = rnd_ptr (0);
	sqe->spawn_flags = chance (50) ? (O_RDONLY | (chance (20) ? O_NONBLOCK : 0))
	  : rnd_u32 ();
	sqe->len = chance (80) ? 0644 : rnd_u32 ();
	sqe->addr3 = chance (80) ? below (12) : rnd_off ();
	break;
      case IORING_SPAWN_CLOSE:
	sqe->fd = rnd_fd ();
	if (chance (30))
	  sqe->spawn_flags = chance (80) ? IORING_SPAWN_CLOSE_IN_LIMIT
			     : rnd_u32 ();
	break;
      case IORING_SPAWN_FCHDIR:
	sqe->fd = rnd_fd ();
	break;
      case IORING_SPAWN_DUP2:
      case IORING_SPAWN_TCSETPGRP:
	sqe->fd = rnd_fd ();
	sqe->addr3 = chance (80) ? below (12) : rnd_off ();
	break;
      case IORING_SPAWN_CLOSE_RANGE:
	sqe->fd = rnd_fd ();
	sqe->addr3 = rnd_off ();
	sqe->spawn_flags = chance (50) ? below (8) : rnd_u32 ();
	break;
      case IORING_SPAWN_CHDIR:
	sqe->addr = rnd_ptr (0);
	break;
      default:
	break;
      }
  /* Anything anywhere, sometimes.  */
  if (chance (8))
    {
      switch (below (10))
	{
	case 0: sqe->fd = rnd_fd (); break;
	case 1: sqe->__pad1 = rnd_u32 (); break;
	case 2: sqe->addr = rnd_ptr (below (3)); break;
	case 3: sqe->len = rnd_u32 (); break;
	case 4: sqe->spawn_flags = rnd_u32 (); break;
	case 5: sqe->addr3 = rnd_ptr (2); break;
	case 6: sqe->ioprio = rnd (); break;
	case 7: sqe->buf_index = rnd (); break;
	case 8: sqe->personality = below (3); break;
	case 9: sqe->optlen = rnd (); break;
	}
    }
}

/* A random CLONE into SQE, with clone_args and a pidfd slot of its own.  */
static void
rnd_clone (struct io_uring_sqe *sqe)
{
  unsigned int i = clone_next++ % NCLONES;
  struct clone_args *ca = &ca_buf[i];
  memset (ca, 0, sizeof *ca);
  ca->exit_signal = chance (80) ? SIGCHLD : below (70);
  /* Valid, but a child that dies before its exec would send it to the
     fuzzer, which cannot ignore them (see worker).  */
  if (ca->exit_signal == SIGKILL || ca->exit_signal == SIGSTOP)
    ca->exit_signal = SIGCHLD;
  if (chance (30))
    {
      static const uint64_t fl[] = { CLONE_PIDFD, CLONE_CLEAR_SIGHAND,
				     CLONE_INTO_CGROUP, CLONE_VM, CLONE_FILES,
				     CLONE_NEWPID, CLONE_THREAD, 1ULL << 40,
				     CLONE_NNP, CLONE_AUTOREAP | CLONE_PIDFD,
				     CLONE_AUTOREAP | CLONE_PIDFD
				     | CLONE_PIDFD_AUTOKILL | CLONE_NNP };
      ca->flags = fl[below (11)];
    }
  if (ca->flags & CLONE_PIDFD)
    {
      pidfds[i] = -1;
      ca->pidfd = (chance (90) ? (uintptr_t) &pidfds[i]
		   : rnd_unwritable_ptr ());
    }
  if (chance (5))
    ca->cgroup = below (12);
  if (chance (3))
    ca->stack = rnd ();
  sqe->opcode = IORING_OP_CLONE;
  sqe->addr = chance (95) ? (uintptr_t) ca : rnd_ptr (0);
  static const uint32_t sizes[] = { CLONE_ARGS_SIZE_VER0, CLONE_ARGS_SIZE_VER2, 96, 4096 };
  sqe->len = chance (90) ? sizes[below (2)] : chance (50) ? sizes[below (4)] : rnd_u32 ();
  if (chance (40))
    {
      memset (&sigs_buf, 0, sizeof sigs_buf);
      sigs_buf.flags = chance (80) ? below (1U << 8) : rnd ();
      sigs_buf.sigmask = rnd ();
      sigs_buf.sigdefault = rnd ();
      sigs_buf.sigignore = chance (50) ? rnd () : 0;
      sigs_buf.pgid = chance (80) ? 0 : (int32_t) rnd_u32 ();
      sigs_buf.sched_policy = below (8);
      sigs_buf.sched_priority = below (100);
      /* Mostly as a caller passes them: no field without its flag (the
	 prep refuses one, as it does a reserved word).  */
      if (chance (85))
	{
	  unsigned long long f = sigs_buf.flags;
	  if (!(f & IORING_SPAWN_ATTR_SETSIGMASK))
	    sigs_buf.sigmask = 0;
	  if (!(f & IORING_SPAWN_ATTR_SETSIGDEF))
	    sigs_buf.sigdefault = 0;
	  if (!(f & IORING_SPAWN_ATTR_SETSIGIGN))
	    sigs_buf.sigignore = 0;
	  if (!(f & IORING_SPAWN_ATTR_SETPGROUP))
	    sigs_buf.pgid = 0;
	  if (!(f & IORING_SPAWN_ATTR_SETSCHEDULER))
	    sigs_buf.sched_policy = 0;
	  if (!(f & (IORING_SPAWN_ATTR_SETSCHEDPARAM
		     | IORING_SPAWN_ATTR_SETSCHEDULER)))
	    sigs_buf.sched_priority = 0;
	}
      if (chance (3))
	sigs_buf.__resv = rnd_u32 ();
      sqe->addr2 = chance (90) ? (uintptr_t) &sigs_buf : rnd_ptr (0);
      sqe->optlen = chance (90) ? sizeof sigs_buf : rnd_u32 ();
    }
  if (chance (5))
    sqe->spawn_flags = chance (70) ? IORING_CLONE_FD_SNAPSHOT : rnd_u32 ();
}

/* The errnos a spawn operation may return: those of its system-call
   twin and io_uring's own.  Another opcode may return any errno (they
   are mainline's business), but never a kernel-internal one.  */
static const int clean[] = {
  EINVAL, EFAULT, EBADF, ENOENT, EACCES, EPERM, ECANCELED, E2BIG, ENOMEM,
  ENAMETOOLONG, ENOTDIR, ENOEXEC, EOPNOTSUPP, EINTR, ENOTTY, ESRCH, EISDIR,
  ELOOP, EMFILE, ENXIO, EEXIST, EAGAIN, ENODEV, ETXTBSY, EROFS, EBUSY,
  ENFILE, EOVERFLOW, EMLINK, EWOULDBLOCK, EXDEV, ENOSPC, ESPIPE,
};

static long counts[4096];
static long unclean, cqes, children_seen, gone_seen;

/* user_data: iteration << 16 | opcode << 8 | index.  */
static void
tally (struct io_uring_cqe *cqe)
{
  cqes++;
  int res = cqe->res;
  int op = (cqe->user_data >> 8) & 0xff;
  if (res >= 0)
    {
      if (op == IORING_OP_CLONE && res > 0)
	children_seen++;
      if (cqe->flags & IORING_CQE_F_SPAWN_GONE)
	gone_seen++;
      return;
    }
  int e = -res;
  bool ok = e < 512;
  if (op >= IORING_OP_CLONE && op <= IORING_OP_SPAWN_ACTION)
    {
      ok = false;
      for (unsigned i = 0; i < sizeof clean / sizeof clean[0]; i++)
	ok |= e == clean[i];
    }
  if (e < 4096)
    counts[e]++;
  if (!ok && unclean++ < 10)
    printf ("fuzz: unclean res %d (opcode %d, user_data %#llx, flags %#x)\n",
	    res, op, (unsigned long long) cqe->user_data, cqe->flags);
}

/* Collect up to WANT CQEs for at most MS milliseconds in all.  */
static void
drain (struct io_uring *ring, int want, int ms)
{
  struct timespec t0, now;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  for (int got = 0; got < want; got++)
    {
      clock_gettime (CLOCK_MONOTONIC, &now);
      long left = ms - ((now.tv_sec - t0.tv_sec) * 1000
			+ (now.tv_nsec - t0.tv_nsec) / 1000000);
      if (left <= 0)
	break;
      struct io_uring_cqe *cqe;
      struct __kernel_timespec ts = { .tv_sec = left / 1000,
				      .tv_nsec = (left % 1000) * 1000000L };
      if (io_uring_wait_cqe_timeout (ring, &cqe, &ts) != 0)
	break;
      tally (cqe);
      io_uring_cqe_seen (ring, cqe);
    }
  /* Whatever else is there.  */
  struct io_uring_cqe *cqe;
  while (io_uring_peek_cqe (ring, &cqe) == 0)
    {
      tally (cqe);
      io_uring_cqe_seen (ring, cqe);
    }
}

static void
reap (void)
{
  while (waitpid (-1, NULL, WNOHANG | __WALL) > 0)
    ;
}

static void
kill_all (void)
{
  kill (-1, SIGKILL);
  for (int i = 0; i < 500; i++)
    {
      pid_t r = waitpid (-1, NULL, WNOHANG | __WALL);
      if (r < 0)
	return;
      if (r == 0)
	usleep (10000);
    }
}

static int
new_ring (struct io_uring *ring)
{
  unsigned flags = 0;
  switch (below (12))
    {
    case 0: flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN; break;
    case 1: flags = IORING_SETUP_SQPOLL; break;
    case 2: flags = IORING_SETUP_IOPOLL; break;
    case 3: flags = IORING_SETUP_COOP_TASKRUN; break;
    default: break;
    }
  if (io_uring_queue_init (128, ring, flags) == 0)
    return 0;
  return io_uring_queue_init (128, ring, 0);
}

/* The fuzzer's own descriptors (0, 1, 2 and path_fd), each open with the
   same file as at the start: checked after every submission, so that the
   first one gone or replaced is reported with the submission that did
   it.  */
static struct stat own_st[4];
static int own_fd[4];
static int own_n;
static bool own_lost;

static void
own_fds_note (void)
{
  int fds[] = { 0, 1, 2, path_fd };
  for (int i = 0; i < 4; i++)
    if (fstat (fds[i], &own_st[own_n]) == 0)
      own_fd[own_n++] = fds[i];
}

static void
own_fds_check (long it, const struct io_uring_sqe *sqes, int n)
{
  if (own_lost)
    return;
  for (int i = 0; i < own_n; i++)
    {
      struct stat st;
      bool open = fstat (own_fd[i], &st) == 0;
      if (open && st.st_dev == own_st[i].st_dev
	  && st.st_ino == own_st[i].st_ino)
	continue;
      own_lost = true;
      printf ("fuzz: submission %ld: the fuzzer's fd %d is %s; its SQEs:\n",
	      it, own_fd[i], open ? "another file" : "closed");
      for (int k = 0; k < n; k++)
	printf ("fuzz:   %d: opcode %u cmd_op %u fd %d flags %#x\n", k,
		sqes[k].opcode, sqes[k].cmd_op, sqes[k].fd, sqes[k].flags);
      fflush (stdout);
    }
}

static int
worker (long count, uint64_t seed)
{
  if (setgroups (0, NULL) != 0 || setresgid (user, user, user) != 0
      || setresuid (user, user, user) != 0)
    {
      kt_fail ("fuzz: drop privileges", "%m");
      return 1;
    }
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  /* A child that dies before its exec sends its random exit signal, as
     a clone3 child would: ignore them all (its zombie stays, __WALL
     reaps it), or a real-time one ends the fuzzer.  */
  /* A fault of the fuzzer itself still kills it: the kernel resets an
     ignored SIGSEGV it forces.  */
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGCHLD && sig != SIGKILL && sig != SIGSTOP)
      signal (sig, SIG_IGN);
  if (chdir (dir) != 0)
    return 2;
  rng = seed ? seed : 1;
  pg = sysconf (_SC_PAGESIZE);
  good = mmap (NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  none = good + 2 * pg;
  mprotect (none, pg, PROT_NONE);
  memset (good, 'a', 2 * pg);
  edge = none - 5;
  argv_edge = (char **) (none - sizeof (char *));
  argv_edge[0] = "x";
  argv_unterminated = (char **) (none - 2 * sizeof (char *));
  argv_unterminated[0] = "y";
  argv_unterminated[1] = "z";
  longpath = malloc (8192);
  memset (longpath, 'p', 8191);
  longpath[0] = '/';
  longpath[8191] = '\0';
  path_fd = open ("/tmp/st-fuzz/true", O_PATH | O_CLOEXEC);
  int fds = st_count_fds ();
  own_fds_note ();
  /* Chains of up to IORING_SPAWN_MAX_OPS + 4 SQEs.  */
  struct io_uring_sqe sent[IORING_SPAWN_MAX_OPS + 4];

  struct io_uring ring;
  new_ring (&ring);
  long progress = count / 10 ? count / 10 : 1;
  for (long it = 0; it < count; it++)
    {
      /* Now and then a chain around IORING_SPAWN_MAX_OPS (64): over it
	 the clone is -EINVAL (B-1).  */
      int n = chance (1) ? IORING_SPAWN_MAX_OPS - 4 + (int) below (8)
	      : 1 + (int) below (8);
      bool head = chance (85);
      int submitted = 0;
      for (int i = 0; i < n; i++)
	{
	  struct io_uring_sqe *sqe = io_uring_get_sqe (&ring);
	  if (sqe == NULL)
	    break;
	  memset (sqe, 0, sizeof *sqe);
	  if (i == 0 && head)
	    rnd_clone (sqe);
	  else
	    rnd_op (sqe);
	  bool more = i < n - 1 ? chance (92) : chance (3);
	  sqe->flags = rnd_sqe_flags (more);
	  sqe->user_data = ((uint64_t) it << 16) | (sqe->opcode << 8) | i;
	  sent[submitted++] = *sqe;
	}
      int ret = io_uring_submit (&ring);
      if (ret < 0 && ret != -EBUSY && ret != -EAGAIN && ret != -EINVAL
	  && ret != -EOPNOTSUPP)
	{
	  if (unclean++ < 10)
	    printf ("fuzz: submit: %d\n", ret);
	}
      drain (&ring, submitted, chance (90) ? 50 : 0);
      own_fds_check (it, sent, submitted);
      /* Signals for whatever children there are.  */
      if (chance (10))
	{
	  pid_t pids[8];
	  int nc = st_children_of (getpid (), pids, 8);
	  if (nc > 0)
	    {
	      static const int sigs[] = { SIGKILL, SIGSTOP, SIGCONT, SIGTERM, SIGUSR1 };
	      kill (pids[below (nc)], sigs[below (5)]);
	    }
	}
      close_pidfds (64);
      reap ();
      /* Close the ring at random points, chains in flight or not.  */
      if (chance (3))
	{
	  io_uring_queue_exit (&ring);
	  new_ring (&ring);
	}
      if (it % 500 == 499)
	kill_all ();
      if ((it + 1) % progress == 0)
	{
	  printf ("fuzz: %ld of %ld, %ld CQEs, %ld children, %ld gone, %ld unclean\n",
		  it + 1, count, cqes, children_seen, gone_seen, unclean);
	  fflush (stdout);
	}
    }
  io_uring_queue_exit (&ring);
  kill_all ();
  close_pidfds (NCLONES);
  close (path_fd);
  printf ("fuzz: errnos:");
  for (int e = 1; e < 4096; e++)
    if (counts[e])
      printf (" %s %ld", strerrorname_np (e) ? strerrorname_np (e) : "?", counts[e]);
  printf ("\n");
  KT_EXPECT_EQ ("fuzz: only clean errnos", unclean, 0);
  KT_EXPECT_EQ ("fuzz: no fd left open", st_count_fds (), fds - 1);
  KT_EXPECT_EQ ("fuzz: its own fds untouched", own_lost, false);
  /* What is left, for the record.  */
  for (int fd = 0; fd < 1024; fd++)
    {
      char l[64], t[256];
      snprintf (l, sizeof l, "/proc/self/fd/%d", fd);
      ssize_t n = readlink (l, t, sizeof t - 1);
      if (n > 0)
	{
	  char info[512] = "";
	  snprintf (l, sizeof l, "/proc/self/fdinfo/%d", fd);
	  st_read_file (l, info, sizeof info);
	  for (char *c = info; *c; c++)
	    if (*c == '\n')
	      *c = ' ';
	  printf ("fuzz: fd %d -> %.*s (%s)\n", fd, (int) n, t, info);
	}
    }
  st_no_children ("fuzz: no child left");
  return kt_failures ? 1 : 0;
}

/* Processes of USER still alive (or zombies).  */
static int
user_tasks (void)
{
  DIR *d = opendir ("/proc");
  int n = 0;
  struct dirent *e;
  while (d != NULL && (e = readdir (d)) != NULL)
    {
      if (e->d_name[0] < '0' || e->d_name[0] > '9')
	continue;
      char path[300];
      struct stat st;
      snprintf (path, sizeof path, "/proc/%s", e->d_name);
      if (stat (path, &st) == 0 && st.st_uid == user)
	{
	  char s[64] = "";
	  snprintf (path, sizeof path, "/proc/%s/stat", e->d_name);
	  st_read_file (path, s, sizeof s);
	  printf ("fuzz: left: %s\n", s);
	  n++;
	}
    }
  if (d != NULL)
    closedir (d);
  return n;
}

int
main (int argc, char **argv)
{
  long count = argc > 1 ? atol (argv[1]) : 100000;
  uint64_t seed = argc > 2 ? strtoull (argv[2], NULL, 0) : (uint64_t) time (NULL);
  printf ("fuzz: count %ld seed %llu\n", count, (unsigned long long) seed);
  fflush (stdout);
  char cmd[256];
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  if (system (cmd) != 0 || mkdir (dir, 0755) != 0 || chown (dir, user, user) != 0)
    {
      kt_fail ("fuzz: set-up", "%s: %m", dir);
      return kt_exit ();
    }
  char p[128];
  snprintf (p, sizeof p, "%s/true", dir);
  st_tiny_true (p);
  snprintf (p, sizeof p, "%s/fifo", dir);
  mkfifo (p, 0666);
  snprintf (p, sizeof p, "%s/file", dir);
  close (open (p, O_CREAT | O_WRONLY, 0666));
  snprintf (p, sizeof p, "%s/noexec", dir);
  close (open (p, O_CREAT | O_WRONLY, 0644));
  snprintf (p, sizeof p, "%s/sh", dir);
  if (symlink ("/bin/sh", p) != 0)
    kt_fail ("fuzz: symlink", "%m");
  st_kmemleak_clear ();

  fflush (stdout);
  pid_t w = fork ();
  if (w == 0)
    _exit (worker (count, seed));
  int status;
  while (waitpid (w, &status, 0) < 0 && errno == EINTR)
    ;
  ST_EXPECT_STATUS ("fuzz: the fuzzer ends", status, 0);
  /* Its children were all reaped; nothing of the user remains.  */
  int left = 0;
  for (int i = 0; i < 100 && (left = user_tasks ()) != 0; i++)
    usleep (100000);
  KT_EXPECT_EQ ("fuzz: no task left", left, 0);
  st_kmemleak_check ("fuzz: kmemleak finds nothing");
  if (system (cmd) != 0)
    kt_fail ("fuzz: clean-up", "%s", cmd);
  printf ("fuzz: seed %llu\n", (unsigned long long) seed);
  return kt_exit ();
}
