/* seccomp (issue 10): a chain runs no system call of its own, so no
   filter could see it; a process with a seccomp filter must spawn with
   the system calls instead.  For filters denying execve, execveat,
   clone3, setsid, setpgid, ioctl(TIOCSPGRP) and sched_setscheduler, each
   by SECCOMP_RET_ERRNO, SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_TRAP and
   SECCOMP_RET_USER_NOTIF (a supervisor: this test), installed in a forked
   child (x86-64 arch-checked): that child's CLONE, heading a chain that
   uses the denied operation, fails with -EOPNOTSUPP, the rest of the
   chain is cancelled, no child is created, and the filter never fires
   (no SIGSYS, the child is not killed, the supervisor gets no
   notification).  v1 ran the chain and exec'd the program.

   Also: an allow-everything filter refuses as well (any filter); a
   filter installed by another thread only (no TSYNC) does not refuse a
   thread without one, whose clone3 would not be filtered either, and the
   program it spawns has no filter; a program exec'd under a filter has
   no AT_IO_URING_SPAWN in its auxiliary vector (it need not even try),
   one exec'd without has it.  */

#include "st.h"
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>

static volatile sig_atomic_t sigsys;

static void
on_sigsys (int sig)
{
  (void) sig;
  sigsys++;
}

static long
seccomp (unsigned op, unsigned flags, void *args)
{
  return syscall (SYS_seccomp, op, flags, args);
}

/* Install a filter: NR (ioctl: with TIOCSPGRP) gets ACTION, the rest is
   allowed; NR -1: allow everything.  Returns the listener fd for
   USER_NOTIF, 0 otherwise, -1 on error.  */
static int
install (int nr, unsigned action)
{
  struct sock_filter f[16];
  int n = 0;
  f[n++] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
					  offsetof (struct seccomp_data, arch));
  f[n++] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K,
					  AUDIT_ARCH_X86_64, 1, 0);
  f[n++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  if (nr >= 0)
    {
      f[n++] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
					      offsetof (struct seccomp_data, nr));
      if (nr == SYS_ioctl)
	{
	  f[n++] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 3);
	  f[n++] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
						  offsetof (struct seccomp_data, args[1]));
	  f[n++] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, TIOCSPGRP, 0, 1);
	}
      else
	f[n++] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1);
      f[n++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, action);
    }
  f[n++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = { .len = n, .filter = f };
  if (action == SECCOMP_RET_USER_NOTIF)
    return seccomp (SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  return seccomp (SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : -1;
}

static void
send_fd (int sock, int fd)
{
  char c = 'f';
  struct iovec iov = { &c, 1 };
  union { char buf[CMSG_SPACE (sizeof (int))]; struct cmsghdr align; } u;
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = u.buf, .msg_controllen = sizeof u.buf };
  struct cmsghdr *cm = CMSG_FIRSTHDR (&msg);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (cm), &fd, sizeof fd);
  sendmsg (sock, &msg, 0);
}

static int
recv_fd (int sock)
{
  char c;
  struct iovec iov = { &c, 1 };
  union { char buf[CMSG_SPACE (sizeof (int))]; struct cmsghdr align; } u;
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = u.buf, .msg_controllen = sizeof u.buf };
  if (recvmsg (sock, &msg, 0) != 1)
    return -1;
  struct cmsghdr *cm = CMSG_FIRSTHDR (&msg);
  if (cm == NULL || cm->cmsg_type != SCM_RIGHTS)
    return -1;
  int fd;
  memcpy (&fd, CMSG_DATA (cm), sizeof fd);
  return fd;
}

static const struct { const char *name; int nr; } calls[] = {
  { "execve", SYS_execve }, { "execveat", SYS_execveat },
  { "clone3", SYS_clone3 }, { "setsid", SYS_setsid },
  { "setpgid", SYS_setpgid }, { "ioctl(TIOCSPGRP)", SYS_ioctl },
  { "sched_setscheduler", SYS_sched_setscheduler },
};
static const struct { const char *name; unsigned action; } actions[] = {
  { "ERRNO", SECCOMP_RET_ERRNO | EPERM },
  { "KILL_PROCESS", SECCOMP_RET_KILL_PROCESS },
  { "TRAP", SECCOMP_RET_TRAP },
  { "USER_NOTIF", SECCOMP_RET_USER_NOTIF },
};

static char *argv_true[] = { "true", NULL };

/* The chain of the operation a filter on NR denies.  */
static int
queue_chain (int nr)
{
  /* v3: setsid, setpgid and the scheduler are attributes of the
     clone.  */
  static struct io_uring_spawn_attr attr;
  /* Read at the submission, after this returns.  */
  static struct clone_args ca = { .exit_signal = SIGCHLD };
  struct io_uring_sqe *sqe;
  memset (&attr, 0, sizeof attr);
  switch (nr)
    {
    case SYS_setsid:
    case SYS_ioctl:
      attr.flags = IORING_SPAWN_ATTR_SETSID;
      break;
    case SYS_setpgid:
      attr.flags = IORING_SPAWN_ATTR_SETPGROUP;
      break;
    case SYS_sched_setscheduler:
      attr.flags = IORING_SPAWN_ATTR_SETSCHEDULER;
      attr.sched_policy = SCHED_OTHER;
      break;
    }
  st_clone_attr (&st_ring, &ca, &attr, 0);
  int n = 1;
  if (nr == SYS_ioctl)
    st_tcsetpgrp (&st_ring, 0, 0, n++);
  sqe = st_exec (&st_ring, "/bin/true", argv_true, st_envp, n++);
  if (nr == SYS_execveat)
    {
      sqe->spawn_flags = AT_SYMLINK_NOFOLLOW;
    }
  return n;
}

/* The filtered child: install, submit, check; exit with the verdict.  */
static int
filtered (int nr, unsigned action, int sock, const char *name)
{
  struct sigaction sa = { .sa_handler = on_sigsys };
  sigaction (SIGSYS, &sa, NULL);
  st_init (0);
  int fd = install (nr, action);
  if (fd < 0)
    {
      kt_fail (name, "seccomp: %m");
      return 1;
    }
  if (action == SECCOMP_RET_USER_NOTIF)
    send_fd (sock, fd);
  int n = queue_chain (nr);
  int got = st_run (&st_ring, n);
  char buf[200];
  snprintf (buf, sizeof buf, "%s: CLONE refused (EOPNOTSUPP)", name);
  KT_EXPECT_EQ (buf, st_res[0], -EOPNOTSUPP);
  snprintf (buf, sizeof buf, "%s: the chain cancelled", name);
  int cancelled = got == n;
  for (int i = 1; i < n; i++)
    cancelled &= st_res[i] == -ECANCELED;
  KT_EXPECT_EQ (buf, cancelled, 1);
  snprintf (buf, sizeof buf, "%s: no GONE flag", name);
  KT_EXPECT_EQ (buf, st_cflags[0], 0);
  if (st_res[0] > 0)
    st_fate ();
  snprintf (buf, sizeof buf, "%s: no child created", name);
  st_no_children (buf);
  snprintf (buf, sizeof buf, "%s: no SIGSYS", name);
  KT_EXPECT_EQ (buf, sigsys, 0);
  /* Wait for the supervisor's look, then go.  */
  char c = 'd';
  if (write (sock, &c, 1) != 1 || read (sock, &c, 1) != 1)
    return 1;
  return kt_failures ? 1 : 0;
}

static void
one (int ci, int ai)
{
  char name[128];
  snprintf (name, sizeof name, "%s by %s", calls[ci].name, actions[ai].name);
  int sv[2];
  if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) != 0)
    {
      kt_fail (name, "socketpair: %m");
      return;
    }
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      close (sv[0]);
      _exit (filtered (calls[ci].nr, actions[ai].action, sv[1], name));
    }
  close (sv[1]);
  int listener = -1;
  if (actions[ai].action == SECCOMP_RET_USER_NOTIF)
    listener = recv_fd (sv[0]);
  char ch;
  bool done = false;
  struct pollfd pfd = { .fd = sv[0], .events = POLLIN };
  if (poll (&pfd, 1, 20000) == 1 && read (sv[0], &ch, 1) == 1)
    done = true;
  char buf[256];
  if (listener >= 0)
    {
      struct pollfd lp = { .fd = listener, .events = POLLIN };
      snprintf (buf, sizeof buf, "%s: the supervisor sees nothing", name);
      KT_EXPECT_EQ (buf, poll (&lp, 1, 0), 0);
      close (listener);
    }
  else if (actions[ai].action == SECCOMP_RET_USER_NOTIF)
    kt_fail (name, "no listener fd");
  if (done && write (sv[0], "g", 1) != 1)
    kt_fail (name, "write: %m");
  int status = st_wait (c);
  snprintf (buf, sizeof buf, "%s: the filtered process lives and passes", name);
  ST_EXPECT_STATUS (buf, status, 0);
  close (sv[0]);
}

/* A filter on another thread only.  */
static int other_thread_res, other_thread_status;
static char other_out[64];

static void *
filter_thread (void *arg)
{
  (void) arg;
  install (SYS_setsid, SECCOMP_RET_ERRNO | EPERM);
  return NULL;
}

static int
print_auxv (void)
{
  printf ("%#lx\n", st_spawn_features ());
  return 0;
}

/* Exec this program with --print-auxv, after installing an allow-all
   filter if FILTER; its output.  */
static void
auxv_after_exec (bool filter, char *out, size_t size)
{
  int p[2];
  if (pipe (p) != 0)
    return;
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      dup2 (p[1], 1);
      if (filter && install (-1, 0) != 0)
	_exit (2);
      execl ("/proc/self/exe", "seccomp", "--print-auxv", (char *) NULL);
      _exit (3);
    }
  close (p[1]);
  st_read_all (p[0], out, size);
  st_wait (c);
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--print-auxv") == 0)
    return print_auxv ();
  if (!st_spawn_present ())
    {
      kt_fail ("AT_IO_URING_SPAWN", "absent: this process was started with "
	       "a filter or on a kernel without the series");
      return kt_exit ();
    }

  for (unsigned ci = 0; ci < sizeof calls / sizeof calls[0]; ci++)
    for (unsigned ai = 0; ai < sizeof actions / sizeof actions[0]; ai++)
      one (ci, ai);

  /* Any filter refuses, even one that allows everything.  */
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      st_init (0);
      if (install (-1, 0) != 0)
	_exit (2);
      queue_chain (SYS_execve);
      st_run (&st_ring, 2);
      if (st_res[0] == -EOPNOTSUPP && st_res[1] == -ECANCELED)
	_exit (0);
      printf ("allow-all filter: clone %d exec %d, expected %d %d\n",
	      st_res[0], st_res[1], -EOPNOTSUPP, -ECANCELED);
      fflush (stdout);
      _exit (1);
    }
  ST_EXPECT_STATUS ("an allow-all filter refuses too", st_wait (c), 0);

  /* A filter on another thread only: this thread is not filtered, its
     chain runs (as its clone3 would), and the program has no filter.  */
  fflush (stdout);
  c = fork ();
  if (c == 0)
    {
      pthread_t t;
      pthread_create (&t, NULL, filter_thread, NULL);
      pthread_join (t, NULL);
      st_init (0);
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&st_ring, &ca, 0);
      int w;
      int r = st_capture (&st_ring, 1, &w);
      static char *argv_sed[] = { "sed", "-n", "s/^Seccomp:[[:space:]]*//p",
				  "/proc/self/status", NULL };
      st_exec (&st_ring, "/bin/sed", argv_sed, st_envp, 2);
      st_run (&st_ring, 3);
      close (w);
      other_thread_res = st_res[0];
      st_read_all (r, other_out, sizeof other_out);
      other_thread_status = st_fate ();
      _exit (other_thread_res > 0 && other_thread_status == 0
	     && strcmp (other_out, "0") == 0 ? 0 : 1);
    }
  ST_EXPECT_STATUS ("another thread's filter: the chain runs, no filter in the "
		    "program", st_wait (c), 0);

  /* AT_IO_URING_SPAWN of programs exec'd with and without a filter.  */
  char out[64] = "", want[64];
  snprintf (want, sizeof want, "%#lx", st_spawn_features ());
  auxv_after_exec (false, out, sizeof out);
  ST_EXPECT_STR ("exec'd without a filter: AT_IO_URING_SPAWN", out, want);
  out[0] = '\0';
  auxv_after_exec (true, out, sizeof out);
  ST_EXPECT_STR ("exec'd under a filter: no AT_IO_URING_SPAWN", out, "0");

  st_no_children ("no child left");
  return kt_exit ();
}
