/* tests/kernel/lib/st.h -- helpers for the spawn-chain kernel tests:
   ring set-up, SQE builders for the spawn operations and a way to run a
   chain and collect its CQEs by index.  Include instead of kt.h.  */

#ifndef ST_H
#define ST_H

#include "kt.h"
#include <liburing.h>
#include "../../../sysdeps-overlay/unix/sysv/linux/io_uring_spawn.h"

#include <fcntl.h>
#include <stdbool.h>
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

#define ST_MAX 32

/* The op-flags union member: spawn_flags in new headers, rw_flags is the
   same storage everywhere.  */
#define ST_SPAWN_FLAGS(sqe) ((sqe)->rw_flags)

static struct io_uring st_ring;
static unsigned int st_features;

/* Set up the ring used by the st_* helpers; fail the test if impossible.  */
static inline void
st_init (unsigned int flags)
{
  struct io_uring_params p;
  memset (&p, 0, sizeof p);
  p.flags = flags;
  int ret = io_uring_queue_init_params (64, &st_ring, &p);
  if (ret < 0)
    {
      kt_fail ("ring setup", "%s", strerror (-ret));
      kt_exit ();
    }
  st_features = p.features;
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

/* A CLONE heading a chain (IOSQE_IO_LINK) with ARGS.  */
static inline struct io_uring_sqe *
st_clone (struct io_uring *ring, struct clone_args *args,
	  unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_sqe (ring, IORING_OP_CLONE, user_data);
  sqe->addr = (uintptr_t) args;
  sqe->len = CLONE_ARGS_SIZE_VER0;
  sqe->flags = IOSQE_IO_LINK;
  return sqe;
}

static inline struct io_uring_sqe *
st_exec (struct io_uring *ring, const char *path, char *const argv[],
	 char *const envp[], unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_sqe (ring, IORING_OP_EXEC, user_data);
  sqe->fd = AT_FDCWD;
  sqe->addr = (uintptr_t) path;
  sqe->off = (uintptr_t) argv;
  sqe->addr3 = (uintptr_t) envp;
  return sqe;
}

/* Results of the last st_run, by user_data (0 .. ST_MAX-1); INT32_MIN
   for a CQE that did not arrive.  */
static int st_res[ST_MAX];
static unsigned int st_cflags[ST_MAX];

/* Submit what is queued and wait for N CQEs (user_data < ST_MAX), at
   most 20 s.  Return the number received.  */
static inline int
st_run (struct io_uring *ring, int n)
{
  for (int i = 0; i < ST_MAX; i++)
    st_res[i] = INT32_MIN;
  int ret = io_uring_submit (ring);
  if (ret < 0)
    {
      kt_fail ("submit", "%s", strerror (-ret));
      return 0;
    }
  int got = 0;
  while (got < n)
    {
      struct io_uring_cqe *cqe;
      struct __kernel_timespec ts = { .tv_sec = 20 };
      ret = io_uring_wait_cqe_timeout (ring, &cqe, &ts);
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
      io_uring_cqe_seen (ring, cqe);
      got++;
    }
  return got;
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

/* Run the queued chain of N SQEs (the CLONE's user_data 0); return the
   child's exit status, or -1 if there is no child.  */
static inline int
st_finish (int n)
{
  if (st_run (&st_ring, n) != n)
    kt_fail ("chain", "missing CQEs");
  return st_res[0] > 0 ? st_wait (st_res[0]) : -1;
}

/* Make a FIFO at PATH, anew; false, with a FAIL, if it cannot be.  */
static inline bool
st_mkfifo (const char *path)
{
  unlink (path);
  if (mkfifo (path, 0600) == 0)
    return true;
  kt_fail ("mkfifo", "%s: %m", path);
  return false;
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

#define ST_EXPECT_STATUS(name, status, code)				\
  do {									\
    int st_s_ = (status);						\
    if (st_s_ != -1 && WIFEXITED (st_s_) && WEXITSTATUS (st_s_) == (code)) \
      kt_pass (name);							\
    else								\
      kt_fail (name, "status %#x, expected exit %d", st_s_, (code));	\
  } while (0)

/* A DUP2 of OLDFD onto NEWFD.  */
static inline struct io_uring_sqe *
st_dup2 (struct io_uring *ring, int oldfd, int newfd,
	 unsigned long long user_data)
{
  struct io_uring_sqe *sqe = st_sqe (ring, IORING_OP_SPAWN_DUP2, user_data);
  sqe->fd = oldfd;
  sqe->off = newfd;
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
  st_dup2 (ring, p[1], 1, user_data)->flags = IOSQE_IO_LINK;
  *w = p[1];
  return p[0];
}

/* Read FD to EOF (at most 20 s) into BUF, without a trailing newline;
   close FD.  Return the length or -1.  */
static inline int
st_read_all (int fd, char *buf, size_t size)
{
  size_t len = 0;
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
    if (strcmp (st_g_, st_w_) == 0)					\
      kt_pass (name);							\
    else								\
      kt_fail (name, "got \"%s\", expected \"%s\"", st_g_, st_w_);	\
  } while (0)

#endif /* ST_H */
