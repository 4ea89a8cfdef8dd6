/* tests/kernel/lib/st.h -- helpers for the spawn-chain kernel tests:
   ring set-up, SQE builders for the three spawn opcodes on the liburing
   series' prep helpers (io_uring_prep_clone, io_uring_prep_exec,
   io_uring_prep_spawn_*), a way to run a chain and collect its CQEs by
   index, and the checks every test needs (the child's fate, its state
   in /proc, no child left).  Include instead of kt.h.

   The UAPI is the patched kernel's headers_install (<linux/io_uring.h>,
   <linux/auxvec.h>), included before liburing's copy; glibc's private
   copy sysdeps-overlay/.../io_uring_spawn.h is checked against them by
   spawn.abi, not used here.  */

#ifndef ST_H
#define ST_H

#include "kt.h"
#include <liburing.h>
#include <linux/auxvec.h>
#include <linux/io_uring/query.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>

#ifndef CLONE_ARGS_SIZE_VER0
# define CLONE_ARGS_SIZE_VER0 64
#endif
#ifndef CLONE_ARGS_SIZE_VER2
# define CLONE_ARGS_SIZE_VER2 88
#endif

#ifndef CLONE_AUTOREAP
# define CLONE_AUTOREAP (1ULL << 34)
#endif
#ifndef CLONE_NNP
# define CLONE_NNP (1ULL << 35)
#endif
#ifndef CLONE_PIDFD_AUTOKILL
# define CLONE_PIDFD_AUTOKILL (1ULL << 36)
#endif

#define ST_MAX 128

/* Bit of signal SIG in the __u64 sets of struct io_uring_spawn_attr.  */
#define ST_SIGBIT(sig) (1ULL << ((sig) - 1))

/* The op-flags union member of the spawn operations.  */
#define ST_SPAWN_FLAGS(sqe) ((sqe)->spawn_flags)

static struct io_uring st_ring;
static unsigned int st_features;

/* The features the kernel announced to this process in its auxiliary
   vector (AT_IO_URING_SPAWN, a mask of IORING_SPAWN_F_*), 0 if the
   entry is absent.  */
static inline unsigned long
st_spawn_features (void)
{
  errno = 0;
  unsigned long v = getauxval (AT_IO_URING_SPAWN);
  return errno == ENOENT ? 0 : v;
}

/* Whether the kernel runs spawn chains for this process.  */
static inline bool
st_spawn_present (void)
{
  return (st_spawn_features () & IORING_SPAWN_F_CHAIN) != 0;
}

/* Set up RING with FLAGS (64 entries); fail the test if impossible.  */
static inline void
st_init_ring (struct io_uring *ring, unsigned int flags)
{
  struct io_uring_params p;
  memset (&p, 0, sizeof p);
  p.flags = flags;
  int ret = io_uring_queue_init_params (64, ring, &p);
  if (ret < 0)
    {
      kt_fail ("ring setup", "%s", strerror (-ret));
      kt_exit ();
    }
  st_features = p.features;
}

/* Set up the ring used by the st_* helpers.  */
static inline void
st_init (unsigned int flags)
{
  st_init_ring (&st_ring, flags);
}

static inline struct io_uring_sqe *
st_sqe (struct io_uring *ring, int op, unsigned long long user_data)
{
  struct io_uring_sqe *sqe = io_uring_get_sqe (ring);
  if (sqe == NULL)
    {
      kt_fail ("get sqe", "ring full");
      kt_exit ();
    }
  memset (sqe, 0, sizeof *sqe);
  sqe->opcode = op;
  sqe->user_data = user_data;
  return sqe;
}

/* SQE with IOSQE_IO_LINK added: liburing's prep helpers clear the
   flags, and only a chain's last request is unlinked.  */
static inline struct io_uring_sqe *
st_link (struct io_uring_sqe *sqe)
{
  sqe->flags |= IOSQE_IO_LINK;
  return sqe;
}

/* A CLONE heading a chain with ARGS and the attributes ATTR (NULL:
   none).  */
static inline struct io_uring_sqe *
st_clone_attr (struct io_uring *ring, struct clone_args *args,
	       struct io_uring_spawn_attr *attr, unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_sqe (ring, IORING_OP_CLONE, user_data);
  io_uring_prep_clone (sqe, args, CLONE_ARGS_SIZE_VER0, attr, 0);
  return sqe;
}

static inline struct io_uring_sqe *
st_clone (struct io_uring *ring, struct clone_args *args,
	  unsigned long long user_data)
{
  return st_clone_attr (ring, args, NULL, user_data);
}

/* An unlinked EXEC (the end of a chain).  */
static inline struct io_uring_sqe *
st_exec (struct io_uring *ring, const char *path, char *const argv[],
	 char *const envp[], unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_sqe (ring, IORING_OP_EXEC, user_data);
  io_uring_prep_exec (sqe, AT_FDCWD, path, argv, envp, 0);
  return sqe;
}

/* An EXEC of one candidate of a PATH search (IORING_EXEC_SEARCH),
   unlinked: st_link it unless it is the last.  */
static inline struct io_uring_sqe *
st_search (struct io_uring *ring, const char *path, char *const argv[],
	   char *const envp[], unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_sqe (ring, IORING_OP_EXEC, user_data);
  io_uring_prep_exec (sqe, AT_FDCWD, path, argv, envp, IORING_EXEC_SEARCH);
  return sqe;
}

/* An IORING_OP_SPAWN_ACTION with sub-op ACTION (sqe->cmd_op) and no
   operands, linked: for what liburing's helpers cannot express.  */
static inline struct io_uring_sqe *
st_action (struct io_uring *ring, unsigned int action,
	   unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_sqe (ring, IORING_OP_SPAWN_ACTION, user_data);
  sqe->cmd_op = action;
  return st_link (sqe);
}

/* The next SQE for a SPAWN_ACTION prep helper, with USER_DATA (which
   the helpers leave alone).  */
static inline struct io_uring_sqe *
st_next (struct io_uring *ring, unsigned long long user_data)
{
  return st_sqe (ring, IORING_OP_SPAWN_ACTION, user_data);
}

/* The file actions, linked.  */
static inline struct io_uring_sqe *
st_open (struct io_uring *ring, const char *path, int flags, int target,
	 unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_next (ring, user_data);
  io_uring_prep_spawn_open (sqe, AT_FDCWD, path, flags, 0, target);
  return st_link (sqe);
}

static inline struct io_uring_sqe *
st_close (struct io_uring *ring, int fd, unsigned int flags,
	  unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_next (ring, user_data);
  io_uring_prep_spawn_close (sqe, fd, flags);
  return st_link (sqe);
}

static inline struct io_uring_sqe *
st_close_range (struct io_uring *ring, int first, unsigned int last,
		unsigned int flags, unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_next (ring, user_data);
  io_uring_prep_spawn_close_range (sqe, first, last, flags);
  return st_link (sqe);
}

static inline struct io_uring_sqe *
st_chdir (struct io_uring *ring, const char *path,
	  unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_next (ring, user_data);
  io_uring_prep_spawn_chdir (sqe, path);
  return st_link (sqe);
}

static inline struct io_uring_sqe *
st_fchdir (struct io_uring *ring, int fd, unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_next (ring, user_data);
  io_uring_prep_spawn_fchdir (sqe, fd);
  return st_link (sqe);
}

/* PGRP 0: the child's group.  */
static inline struct io_uring_sqe *
st_tcsetpgrp (struct io_uring *ring, int fd, pid_t pgrp,
	      unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_next (ring, user_data);
  io_uring_prep_spawn_tcsetpgrp (sqe, fd, pgrp);
  return st_link (sqe);
}

/* A SPAWN_ACTION that does nothing (CLOSE_RANGE of fd 1000..1000, res
   0), linked: where a v2 test had an SQE for an attribute, the v3 port
   keeps the chain's user_data numbering with this.  */
static inline struct io_uring_sqe *
st_nop_action (struct io_uring *ring, unsigned long long user_data)
{
  return st_close_range (ring, 1000, 1000, 0, user_data);
}

/* The attributes of a child in its own process group (v2's SETPGID 0
   SQE).  */
static struct io_uring_spawn_attr st_attr_setpgroup __attribute__ ((unused))
  = { .flags = IORING_SPAWN_ATTR_SETPGROUP };

/* Results of the last st_run, by user_data (0 .. ST_MAX-1); INT32_MIN
   for a CQE that did not arrive.  st_order[i] is the user_data of the
   i-th CQE that arrived, st_nrecv their number.  */
static int st_res[ST_MAX];
static unsigned int st_cflags[ST_MAX];
static unsigned long long st_order[ST_MAX];
static int st_nrecv;

static inline void
st_reset (void)
{
  for (int i = 0; i < ST_MAX; i++)
    {
      st_res[i] = INT32_MIN;
      st_cflags[i] = 0;
    }
  st_nrecv = 0;
}

/* Wait for N CQEs of RING (user_data < ST_MAX), at most SECS s each;
   record them.  Return the number received.  */
static inline int
st_reap (struct io_uring *ring, int n, int secs)
{
  int got = 0;
  while (got < n)
    {
      struct io_uring_cqe *cqe;
      struct __kernel_timespec ts = { .tv_sec = secs };
      int ret = io_uring_wait_cqe_timeout (ring, &cqe, &ts);
      /* A signal (a test's SIGCHLD handler) interrupts the wait, not
	 the chain.  */
      if (ret == -EINTR)
	continue;
      if (ret < 0)
	break;
      if (cqe->user_data < ST_MAX)
	{
	  st_res[cqe->user_data] = cqe->res;
	  st_cflags[cqe->user_data] = cqe->flags;
	}
      else
	kt_fail ("cqe", "unexpected user_data %llu",
		 (unsigned long long) cqe->user_data);
      if (st_nrecv < ST_MAX)
	st_order[st_nrecv++] = cqe->user_data;
      io_uring_cqe_seen (ring, cqe);
      got++;
    }
  return got;
}

/* Submit what is queued and wait for N CQEs, at most 20 s each.  */
static inline int
st_run (struct io_uring *ring, int n)
{
  st_reset ();
  int ret = io_uring_submit (ring);
  if (ret < 0)
    {
      kt_fail ("submit", "%s", strerror (-ret));
      return 0;
    }
  return st_reap (ring, n, 20);
}

/* The environment of the programs the tests exec.  */
static char *st_envp[] = { NULL };

/* Queue an EXEC of "/bin/sh -c SCRIPT" with USER_DATA.  */
static inline struct io_uring_sqe *
st_sh (const char *script, unsigned long long user_data)
{
  static char *argv[4] = { "sh", "-c", NULL, NULL };
  argv[2] = (char *) script;
  return st_exec (&st_ring, "/bin/sh", argv, st_envp, user_data);
}

/* Wait for PID (at most 20 s); return its status or -1.  */
static inline int
st_wait (pid_t pid)
{
  for (int i = 0; i < 2000; i++)
    {
      int status;
      pid_t r = waitpid (pid, &status, WNOHANG | __WALL);
      if (r == pid)
	return status;
      if (r < 0)
	return -1;
      usleep (10000);
    }
  return -1;
}

/* What st_finish returns for a child whose chain failed by itself and
   which is gone: IORING_CQE_F_SPAWN_GONE on the clone's CQE, and
   nothing to reap.  */
#define ST_GONE (-2)

/* The fate of the child of the chain whose CQEs st_run just collected
   (the CLONE's user_data 0): -1 if no child was created; ST_GONE if
   the clone's CQE says IORING_CQE_F_SPAWN_GONE and there is indeed no
   child to reap (at once: the CQEs come when the chain is over);
   otherwise the child's wait status.  A GONE child that can still be
   reaped is a FAIL.  */
static inline int
st_fate (void)
{
  pid_t pid = st_res[0];
  if (pid <= 0)
    return -1;
  if (st_cflags[0] & IORING_CQE_F_SPAWN_GONE)
    {
      int status;
      pid_t r = waitpid (pid, &status, WNOHANG | __WALL);
      if (r < 0 && errno == ECHILD)
	return ST_GONE;
      kt_fail ("gone child", "IORING_CQE_F_SPAWN_GONE but waitpid (%d) = %d "
	       "(status %#x)", (int) pid, (int) r, r == pid ? status : 0);
      if (r == 0)
	return st_wait (pid);
      return status;
    }
  return st_wait (pid);
}

/* Run the queued chain of N SQEs (the CLONE's user_data 0); return its
   fate (st_fate).  */
static inline int
st_finish (int n)
{
  if (st_run (&st_ring, n) != n)
    kt_fail ("chain", "missing CQEs");
  return st_fate ();
}

/* Make a FIFO at PATH, anew; false, with a FAIL, if it cannot be.  */
static inline bool
st_mkfifo (const char *path)
{
  unlink (path);
  if (mkfifo (path, 0666) == 0)
    return true;
  kt_fail ("mkfifo", "%s: %m", path);
  return false;
}

/* Open the FIFO at PATH for writing without blocking, trying for at
   most 20 s (a reader has to be there); the fd or -1.  */
static inline int
st_fifo_writer (const char *path)
{
  for (int t = 0; t < 2000; t++)
    {
      int w = open (path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (w >= 0)
	return w;
      if (errno != ENXIO)
	return -1;
      usleep (10000);
    }
  return -1;
}

/* The test kernel's delay points (kernel/test/, not the series):
   /sys/kernel/debug/io_uring_spawn/POINT_us.  st_delay sets POINT to US
   microseconds (0: off); false if the kernel has no such point.  */
static inline bool
st_delay (const char *point, unsigned int us)
{
  char path[128], val[32];
  snprintf (path, sizeof path, "/sys/kernel/debug/io_uring_spawn/%s_us",
	    point);
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  int n = snprintf (val, sizeof val, "%u\n", us);
  bool ok = write (fd, val, n) == n;
  close (fd);
  return ok;
}

/* Whether the kernel has the delay points; UNSUPPORTED for NAME and
   false if not.  */
static inline bool
st_have_delays (const char *name)
{
  if (st_delay ("child", 0))
    return true;
  kt_unsupported (name, "no delay points in this kernel "
		  "(CONFIG_IO_URING_SPAWN_TEST_DELAYS)");
  return false;
}

/* The kernel log from now on: st_kmsg_open at the start, then
   st_kmsg_clean (NAME) FAILs NAME if a BUG, WARNING or KASAN report
   was logged since.  */
static int st_kmsg_fd = -1;

static inline void
st_kmsg_open (void)
{
  st_kmsg_fd = open ("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (st_kmsg_fd >= 0)
    lseek (st_kmsg_fd, 0, SEEK_END);
}

static inline void
st_kmsg_clean (const char *name)
{
  char rec[8192];
  const char *bad = NULL;
  if (st_kmsg_fd < 0)
    {
      kt_unsupported (name, "/dev/kmsg: %m");
      return;
    }
  for (;;)
    {
      ssize_t n = read (st_kmsg_fd, rec, sizeof rec - 1);
      if (n < 0 && errno == EPIPE)
	continue;
      if (n <= 0)
	break;
      rec[n] = '\0';
      const char *msg = strchr (rec, ';');
      msg = msg != NULL ? msg + 1 : rec;
      if (bad == NULL
	  && (strstr (msg, "BUG:") != NULL || strstr (msg, "WARNING:") != NULL
	      || strstr (msg, "KASAN") != NULL
	      || strstr (msg, "refcount_t:") != NULL))
	{
	  static char first[256];
	  snprintf (first, sizeof first, "%.*s", (int) strcspn (msg, "\n"),
		    msg);
	  bad = first;
	}
    }
  if (bad == NULL)
    kt_pass (name);
  else
    kt_fail (name, "the kernel logged: %s", bad);
}

/* The start of a test that needs spawn chains and the delay points:
   false, with NAME UNSUPPORTED, without them; else the kernel log is
   watched from here (st_kmsg_clean).  */
static inline bool
st_delay_test_start (const char *name)
{
  if (!st_spawn_present ())
    {
      kt_unsupported (name, "no spawn chains");
      return false;
    }
  if (!st_have_delays (name))
    return false;
  st_kmsg_open ();
  return true;
}

/* Check that the calling process has no child left (nothing was
   created behind our back, nothing is left to reap).  */
static inline void
st_no_children (const char *name)
{
  int status;
  pid_t r = waitpid (-1, &status, WNOHANG | __WALL);
  if (r < 0 && errno == ECHILD)
    kt_pass (name);
  else
    kt_fail (name, "waitpid (-1) = %d: there is a child", (int) r);
}

/* The state letter of PID in /proc (R, S, D, T, t, Z, X...), or 0 if
   it has none.  */
static inline char
st_state (pid_t pid)
{
  char path[64], buf[512];
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  char *p = strrchr (buf, ')');
  return p != NULL && p[1] == ' ' ? p[2] : 0;
}

/* Wait until PID's state is one of STATES (at most 20 s); the state
   seen last.  */
static inline char
st_wait_state (pid_t pid, const char *states)
{
  char s = 0;
  for (int i = 0; i < 2000; i++)
    {
      s = st_state (pid);
      if (s != 0 && strchr (states, s) != NULL)
	return s;
      usleep (10000);
    }
  return s;
}

/* The value of FIELD in /proc/PID/status (text after "FIELD:\t") into
   BUF; false if there is no such line.  */
static inline bool
st_status_field (pid_t pid, const char *field, char *buf, size_t size)
{
  char path[64], line[512];
  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return false;
  size_t len = strlen (field);
  bool found = false;
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, field, len) == 0 && line[len] == ':')
      {
	char *v = line + len + 1;
	while (*v == ' ' || *v == '\t')
	  v++;
	size_t n = strcspn (v, "\n");
	if (n >= size)
	  n = size - 1;
	memcpy (buf, v, n);
	buf[n] = '\0';
	found = true;
	break;
      }
  fclose (f);
  return found;
}

/* The children of PARENT (from /proc/<pid>/stat), at most MAX into
   PIDS; their number.  Threads are not listed, processes are.  */
static inline int
st_children_of (pid_t parent, pid_t *pids, int max)
{
  DIR *d = opendir ("/proc");
  int n = 0;
  if (d == NULL)
    return 0;
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    {
      if (e->d_name[0] < '0' || e->d_name[0] > '9')
	continue;
      char path[300], buf[512];
      snprintf (path, sizeof path, "/proc/%s/stat", e->d_name);
      int fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
	continue;
      ssize_t len = read (fd, buf, sizeof buf - 1);
      close (fd);
      if (len <= 0)
	continue;
      buf[len] = '\0';
      char *p = strrchr (buf, ')');
      int ppid;
      char st;
      if (p == NULL || sscanf (p + 1, " %c %d", &st, &ppid) != 2)
	continue;
      if (ppid == parent && n < max)
	pids[n++] = atoi (e->d_name);
    }
  closedir (d);
  return n;
}

/* Wait (at most 20 s) until PARENT has a child in one of STATES; its
   pid or 0.  */
static inline pid_t
st_find_child (pid_t parent, const char *states)
{
  for (int i = 0; i < 2000; i++)
    {
      pid_t pids[16];
      int n = st_children_of (parent, pids, 16);
      for (int j = 0; j < n; j++)
	{
	  char s = st_state (pids[j]);
	  if (s != 0 && strchr (states, s) != NULL)
	    return pids[j];
	}
      usleep (10000);
    }
  return 0;
}

/* The number of open fds of the calling process.  */
static inline int
st_count_fds (void)
{
  int n = 0;
  DIR *d = opendir ("/proc/self/fd");
  if (d == NULL)
    return -1;
  while (readdir (d) != NULL)
    n++;
  closedir (d);
  return n - 3;		/* ".", ".." and the DIR's own fd */
}

#define ST_EXPECT_STATUS(name, status, code)				\
  do {									\
    int st_s_ = (status);						\
    if (st_s_ >= 0 && WIFEXITED (st_s_) && WEXITSTATUS (st_s_) == (code)) \
      kt_pass (name);							\
    else								\
      kt_fail (name, "status %#x, expected exit %d", st_s_, (code));	\
  } while (0)

/* The child's chain failed by itself and the child left nothing.  */
#define ST_EXPECT_GONE(name, status)					\
  do {									\
    int st_s_ = (status);						\
    if (st_s_ == ST_GONE)						\
      kt_pass (name);							\
    else								\
      kt_fail (name, "fate %#x (clone res %d, cflags %#x), expected a "	\
	       "child gone without a trace", st_s_, st_res[0],		\
	       st_cflags[0]);						\
  } while (0)

/* The N CQEs of a chain whose SQEs have user_data 0 .. N-1 came in link
   order: the CLONE's first, when the chain is over, then the others as
   io_uring issues a link chain's.  */
#define ST_EXPECT_LINK_ORDER(name, n)					\
  do {									\
    int st_o_ = st_nrecv == (n);					\
    for (int st_i_ = 0; st_o_ && st_i_ < (n); st_i_++)			\
      st_o_ = st_order[st_i_] == (unsigned long long) st_i_;		\
    if (st_o_)								\
      kt_pass (name);							\
    else								\
      kt_fail (name, "%d CQEs, the first %llu, the last %llu; expected "	\
	       "0 .. %d in order", st_nrecv,				\
	       st_nrecv > 0 ? st_order[0] : ~0ULL,			\
	       st_nrecv > 0 ? st_order[st_nrecv - 1] : ~0ULL, (n) - 1);	\
  } while (0)

/* A DUP2 of OLDFD onto NEWFD, not linked (st_link it unless it ends
   the chain).  */
static inline struct io_uring_sqe *
st_dup2 (struct io_uring *ring, int oldfd, int newfd,
	 unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_next (ring, user_data);
  io_uring_prep_spawn_dup2 (sqe, oldfd, newfd);
  return sqe;
}

/* Queue a DUP2 of the write end of a new O_CLOEXEC pipe onto fd 1 (the
   child's stdout); return the read end and store the write end in *W,
   which the caller closes once the chain is submitted.  */
static inline int
st_capture (struct io_uring *ring, unsigned long long user_data, int *w)
{
  int p[2];
  if (pipe2 (p, O_CLOEXEC) != 0)
    {
      kt_fail ("pipe2", "%m");
      kt_exit ();
    }
  st_link (st_dup2 (ring, p[1], 1, user_data));
  *w = p[1];
  return p[0];
}

/* Read FD to EOF (at most 20 s) into BUF, without a trailing newline;
   close FD.  Return the length or -1.  */
static inline int
st_read_all (int fd, char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (;;)
    {
      struct pollfd pfd = { .fd = fd, .events = POLLIN };
      if (poll (&pfd, 1, 20000) != 1)
	{
	  close (fd);
	  return -1;
	}
      ssize_t n = read (fd, buf + len, size - 1 - len);
      if (n <= 0)
	break;
      len += n;
    }
  close (fd);
  buf[len] = '\0';
  while (len > 0 && buf[len - 1] == '\n')
    buf[--len] = '\0';
  return len;
}

#define ST_EXPECT_STR(name, got, want)					\
  do {									\
    const char *st_g_ = (got), *st_w_ = (want);			\
    if (st_g_ != NULL && strcmp (st_g_, st_w_) == 0)			\
      kt_pass (name);							\
    else								\
      kt_fail (name, "got \"%s\", expected \"%s\"",			\
	       st_g_ ? st_g_ : "(null)", st_w_);			\
  } while (0)

/* A static x86-64 ELF that only calls exit (0): dynamic /bin/true costs
   ~0.2 s per spawn under TCG, this a fraction of it.  */
static const unsigned char st_tiny_true_elf[] = {
  0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x3e, 0x00, 0x01, 0x00, 0x00, 0x00,
  0xb0, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0xd0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x38, 0x00, 0x02, 0x00, 0x40, 0x00,
  0x03, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
  0xb0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb0, 0x00, 0x40, 0x00,
  0x00, 0x00, 0x00, 0x00, 0xb0, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x51, 0xe5, 0x74, 0x64, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb8, 0x3c, 0x00, 0x00,
  0x00, 0x31, 0xff, 0x0f, 0x05, 0xc3, 0x00, 0x2e, 0x73, 0x68, 0x73, 0x74,
  0x72, 0x74, 0x61, 0x62, 0x00, 0x2e, 0x74, 0x65, 0x78, 0x74, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00,
  0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0xb0, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb0, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0xba, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00,
};

/* Write the program of SIZE bytes at ELF to PATH (mode 0755); false,
   with a FAIL, if it cannot be.  */
static inline bool
st_write_program (const char *path, const unsigned char *elf, size_t size)
{
  unlink (path);
  FILE *f = fopen (path, "we");
  if (f == NULL || fwrite (elf, size, 1, f) != 1
      || fclose (f) != 0 || chmod (path, 0755) != 0)
    {
      kt_fail ("write the test program", "%s: %m", path);
      return false;
    }
  return true;
}

/* Write the tiny static "true" to PATH.  */
static inline bool
st_tiny_true (const char *path)
{
  return st_write_program (path, st_tiny_true_elf, sizeof st_tiny_true_elf);
}

/* Write STR to the file PATH (a sysctl, a cgroup or tracefs file);
   0 or -errno.  */
static inline int
st_write_file (const char *path, const char *str)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  ssize_t n = write (fd, str, strlen (str));
  int err = n < 0 ? -errno : 0;
  close (fd);
  return err;
}

/* Read the file PATH into BUF (at most SIZE - 1 bytes, without the
   trailing newline); its length or -errno.  */
static inline int
st_read_file (const char *path, char *buf, size_t size)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  size_t len = 0;
  for (;;)
    {
      ssize_t n = read (fd, buf + len, size - 1 - len);
      if (n < 0)
	{
	  int err = -errno;
	  close (fd);
	  return err;
	}
      if (n == 0 || len + n >= size - 1)
	{
	  len += n;
	  break;
	}
      len += n;
    }
  close (fd);
  buf[len] = '\0';
  while (len > 0 && buf[len - 1] == '\n')
    buf[--len] = '\0';
  return len;
}

/* kmemleak (debug kernel): st_kmemleak_clear forgets what was found so
   far; st_kmemleak_check scans (twice, past kmemleak's 5 s minimum age
   of an object) and reports NAME as PASS if nothing new leaked, FAIL
   with the first report otherwise, UNSUPPORTED without kmemleak.
   debugfs is mounted if needed.  */
#define ST_KMEMLEAK "/sys/kernel/debug/kmemleak"

static inline bool
st_kmemleak_available (void)
{
  if (access (ST_KMEMLEAK, F_OK) != 0)
    {
      mkdir ("/sys/kernel/debug", 0755);
      if (system ("mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null") != 0)
	{
	}
    }
  return access (ST_KMEMLEAK, W_OK) == 0;
}

static inline void
st_kmemleak_clear (void)
{
  if (st_kmemleak_available ())
    st_write_file (ST_KMEMLEAK, "clear");
}

static inline void
st_kmemleak_check (const char *name)
{
  if (!st_kmemleak_available ())
    {
      kt_unsupported (name, "no %s (not the debug kernel?)", ST_KMEMLEAK);
      return;
    }
  /* Objects freed through RCU and task_work need a moment; an object
     is reported only once unreferenced for 5 s.  */
  sleep (1);
  st_write_file (ST_KMEMLEAK, "scan");
  sleep (6);
  int err = st_write_file (ST_KMEMLEAK, "scan");
  static char buf[8192];
  int len = st_read_file (ST_KMEMLEAK, buf, sizeof buf);
  if (err < 0 || len < 0)
    kt_fail (name, "kmemleak scan: %s", strerror (-(err < 0 ? err : len)));
  else if (len == 0)
    kt_pass (name);
  else
    {
      /* The first report, on one line.  */
      buf[len > 1500 ? 1500 : len] = '\0';
      for (char *p = buf; *p; p++)
	if (*p == '\n')
	  *p = '|';
      kt_fail (name, "kmemleak: %s", buf);
    }
}

/* Read one line (at most SIZE - 1 bytes, without its newline) from FD
   within SECS seconds; its length, or -1 on timeout, EOF or error.  */
static inline int
st_read_line (int fd, char *buf, size_t size, int secs)
{
  size_t len = 0;
  struct timespec t0;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  while (len < size - 1)
    {
      struct timespec now;
      clock_gettime (CLOCK_MONOTONIC, &now);
      int left = secs * 1000 - (int) ((now.tv_sec - t0.tv_sec) * 1000
				      + (now.tv_nsec - t0.tv_nsec) / 1000000);
      struct pollfd pfd = { .fd = fd, .events = POLLIN };
      if (left <= 0 || poll (&pfd, 1, left) != 1)
	break;
      char c;
      if (read (fd, &c, 1) != 1)
	break;
      if (c == '\n')
	{
	  buf[len] = '\0';
	  return len;
	}
      buf[len++] = c;
    }
  buf[len] = '\0';
  return -1;
}

/* Wait for PID with OPTIONS (WNOHANG added) for at most SECS seconds;
   its status, or -1 if it did not change state in time.  */
static inline int
st_wait_for (pid_t pid, int options, int secs)
{
  for (int i = 0; i < secs * 100; i++)
    {
      int status;
      pid_t r = waitpid (pid, &status, options | WNOHANG);
      if (r == pid || (pid < 0 && r > 0))
	return status;
      if (r < 0)
	return -1;
      usleep (10000);
    }
  return -1;
}

/* Whether a kworker runs io_uring's ring exit work: its comm ends in
   "+iou_exit" while it does ("-iou_exit" once done).  */
static inline bool
st_ring_exit_busy (void)
{
  DIR *d = opendir ("/proc");
  bool busy = false;
  struct dirent *e;
  while (d != NULL && (e = readdir (d)) != NULL)
    {
      if (e->d_name[0] < '0' || e->d_name[0] > '9')
	continue;
      char path[300], comm[64];
      snprintf (path, sizeof path, "/proc/%s/comm", e->d_name);
      if (st_read_file (path, comm, sizeof comm) > 0
	  && strstr (comm, "+iou_exit") != NULL)
	busy = true;
    }
  if (d != NULL)
    closedir (d);
  return busy;
}

/* Wait (at most 10 s) until no ring exit work runs; true if none does.  */
static inline bool
st_ring_exit_done (void)
{
  for (int i = 0; i < 1000; i++)
    {
      if (!st_ring_exit_busy ())
	return true;
      usleep (10000);
    }
  return false;
}

/* The pid a pidfd refers to (/proc/self/fdinfo), or -1.  */
static inline pid_t
st_pidfd_pid (int pidfd)
{
  char path[64], line[128];
  snprintf (path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
  FILE *f = fopen (path, "re");
  pid_t pid = -1;
  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, "Pid:", 4) == 0)
      pid = atoi (line + 4);
  fclose (f);
  return pid;
}

/* tracefs, mounted if needed; NULL if there is none.  */
static inline const char *
st_tracefs (void)
{
  static const char dir[] = "/sys/kernel/tracing";
  char path[128];
  snprintf (path, sizeof path, "%s/trace", dir);
  if (access (path, F_OK) != 0
      && system ("mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null") != 0)
    return NULL;
  return access (path, F_OK) == 0 ? dir : NULL;
}

/* Enable (ON) or disable the trace event EVENT ("io_uring/io_uring_spawn")
   in TRACING; 0 or -errno.  */
static inline int
st_trace_event (const char *tracing, const char *event, bool on)
{
  char path[256];
  snprintf (path, sizeof path, "%s/events/%s/enable", tracing, event);
  return st_write_file (path, on ? "1" : "0");
}

/* Empty the trace buffer of TRACING.  */
static inline void
st_trace_clear (const char *tracing)
{
  char path[256];
  snprintf (path, sizeof path, "%s/trace", tracing);
  st_write_file (path, "");
}

/* The number of lines of TRACING's trace buffer that contain NEEDLE
   and, if NEEDLE2 is not NULL, NEEDLE2 too.  */
static inline int
st_trace_count (const char *tracing, const char *needle, const char *needle2)
{
  char path[256], line[1024];
  snprintf (path, sizeof path, "%s/trace", tracing);
  FILE *f = fopen (path, "re");
  int n = 0;
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    if (line[0] != '#' && strstr (line, needle) != NULL
	&& (needle2 == NULL || strstr (line, needle2) != NULL))
      n++;
  if (f != NULL)
    fclose (f);
  return n;
}

/* The io_uring:io_uring_spawn events in TRACING that report a child
   (pid > 0): chains that ran.  */
static inline int
st_trace_spawned (const char *tracing)
{
  char path[256], line[1024];
  snprintf (path, sizeof path, "%s/trace", tracing);
  FILE *f = fopen (path, "re");
  int n = 0;
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    {
      char *p = strstr (line, "io_uring_spawn:");
      if (p == NULL || (p = strstr (p, ", pid ")) == NULL)
	continue;
      if (atoi (p + 6) > 0)
	n++;
    }
  if (f != NULL)
    fclose (f);
  return n;
}

/* The target of /proc/PID/exe (PID 0: self) into BUF; its length or
   -errno.  */
static inline int
st_exe_of (pid_t pid, char *buf, size_t size)
{
  char path[64];
  if (pid == 0)
    snprintf (path, sizeof path, "/proc/self/exe");
  else
    snprintf (path, sizeof path, "/proc/%d/exe", (int) pid);
  ssize_t n = readlink (path, buf, size - 1);
  if (n < 0)
    {
      buf[0] = '\0';
      return -errno;
    }
  buf[n] = '\0';
  return n;
}

/* The cgroup v2 directory of the calling process (from /proc/self/cgroup,
   under /sys/fs/cgroup) into BUF; false if there is none.  */
static inline bool
st_own_cgroup (char *buf, size_t size)
{
  char line[512];
  bool found = false;
  FILE *f = fopen ("/proc/self/cgroup", "re");
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, "0::", 3) == 0)
      {
	line[strcspn (line, "\n")] = '\0';
	size_t n = strlen (line + 3);
	if (n + 15 <= size)
	  {
	    memcpy (buf, "/sys/fs/cgroup", 14);
	    memcpy (buf + 14, line + 3, n + 1);
	    found = true;
	  }
      }
  if (f != NULL)
    fclose (f);
  return found;
}

/* Move this process into a new cgroup /sys/fs/cgroup/NAME with the memory
   controller, and put its memory.current path in MEMCUR; false if the
   kernel has no memory cgroup (or no cgroup2 at /sys/fs/cgroup).  The
   caller removes the cgroup (st_memcg_remove) once nothing is in it.  */
static inline bool
st_memcg_enter (const char *name, char *memcur, size_t size)
{
  char dir[256], path[300];
  snprintf (dir, sizeof dir, "/sys/fs/cgroup/%s", name);
  st_write_file ("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
  if (mkdir (dir, 0755) != 0 && errno != EEXIST)
    return false;
  snprintf (path, sizeof path, "%s/cgroup.procs", dir);
  if (st_write_file (path, "0") != 0)
    return false;
  snprintf (memcur, size, "%s/memory.current", dir);
  return access (memcur, R_OK) == 0;
}

static inline void
st_memcg_remove (const char *name)
{
  char dir[256];
  snprintf (dir, sizeof dir, "/sys/fs/cgroup/%s", name);
  rmdir (dir);
}

#endif /* ST_H */
