/* v3: the attributes IORING_SPAWN_ATTR_SETSCHEDPARAM / SETSCHEDULER
   (sched_priority, sched_policy) and RESETIDS of struct
   io_uring_spawn_attr, and the SPAWN_ACTION sub-op IORING_SPAWN_TCSETPGRP
   (pgrp in addr3), with their error paths.  An attribute that fails
   ends the chain before its first operation, whose CQE carries the
   error; the clone's CQE has the pid and SPAWN_GONE.  v2's "EFAULT
   reported when it runs" and "setparam with a policy" checks are gone:
   the attributes are one struct copied at prep (a bad pointer is the
   clone's -EFAULT, checked below).  */

#include "st.h"
#include <sched.h>
#include <sys/ioctl.h>
#include <termios.h>

static struct clone_args ca = { .exit_signal = SIGCHLD };

/* Exec sed printing the effective uid and gid (a shell would drop
   privileges itself when euid != uid).  */
static void
ids (unsigned long long ud)
{
  static char *argv[] = { "sed", "-n",
    "/^Uid:/{s/^Uid:\\t[0-9]*\\t\\([0-9]*\\).*/\\1/;h};"
    "/^Gid:/{s/^Gid:\\t[0-9]*\\t\\([0-9]*\\).*/\\1/;H;x;s/\\n/ /p}",
    "/proc/self/status", NULL };
  st_exec (&st_ring, "/bin/sed", argv, st_envp, ud);
}

int
main (void)
{
  st_init (0);
  struct io_uring_sqe *sqe;
  int hold[2], status;

  /* SETSCHEDULER SCHED_FIFO 3; the parent checks while the child waits.  */
  struct io_uring_spawn_attr attr;
  memset (&attr, 0, sizeof attr);
  attr.flags = IORING_SPAWN_ATTR_SETSCHEDULER;
  attr.sched_policy = SCHED_FIFO;
  attr.sched_priority = 3;
  if (pipe2 (hold, O_CLOEXEC) != 0)
    kt_fail ("pipe", "%m");
  st_clone_attr (&st_ring, &ca, &attr, 0);
  st_link (st_dup2 (&st_ring, hold[0], 0, 1));
  st_sh ("read x; exit 0", 2);
  st_run (&st_ring, 3);
  pid_t pid = st_res[0];
  KT_EXPECT_EQ ("setscheduler: exec", st_res[2], 0);
  KT_EXPECT_EQ ("setscheduler: policy", sched_getscheduler (pid), SCHED_FIFO);
  struct sched_param got = { 0 };
  sched_getparam (pid, &got);
  KT_EXPECT_EQ ("setscheduler: priority", got.sched_priority, 3);
  KT_EXPECT_EQ ("setscheduler: parent unchanged", sched_getscheduler (0), SCHED_OTHER);
  close (hold[1]);
  ST_EXPECT_STATUS ("setscheduler: child", st_wait (pid), 0);
  close (hold[0]);

  /* SETSCHEDPARAM keeps the policy: a SCHED_FIFO parent, priority 7
     for the child.  */
  struct sched_param pp = { .sched_priority = 2 };
  if (sched_setscheduler (0, SCHED_FIFO, &pp) == 0)
    {
      memset (&attr, 0, sizeof attr);
      attr.flags = IORING_SPAWN_ATTR_SETSCHEDPARAM;
      attr.sched_priority = 7;
      if (pipe2 (hold, O_CLOEXEC) != 0)
	kt_fail ("pipe", "%m");
      st_clone_attr (&st_ring, &ca, &attr, 0);
      st_link (st_dup2 (&st_ring, hold[0], 0, 1));
      st_sh ("read x; exit 0", 2);
      st_run (&st_ring, 3);
      pid = st_res[0];
      KT_EXPECT_EQ ("setparam: exec", st_res[2], 0);
      KT_EXPECT_EQ ("setparam: policy kept", sched_getscheduler (pid), SCHED_FIFO);
      sched_getparam (pid, &got);
      KT_EXPECT_EQ ("setparam: priority", got.sched_priority, 7);
      close (hold[1]);
      ST_EXPECT_STATUS ("setparam: child", st_wait (pid), 0);
      close (hold[0]);
      pp.sched_priority = 0;
      sched_setscheduler (0, SCHED_OTHER, &pp);
    }
  else
    kt_unsupported ("setparam", "sched_setscheduler: %m");

  /* Errors: bad policy, priority out of range (found in the child:
     the first operation's CQE), a bad attr pointer (the clone's
     -EFAULT at prep, no child).  */
  static const struct { const char *name; int policy; int prio; int err; } bad[] = {
    { "sched bad policy", 99, 0, EINVAL },
    { "sched bad priority", SCHED_OTHER, 5, EINVAL },
  };
  for (unsigned i = 0; i < 2; i++)
    {
      memset (&attr, 0, sizeof attr);
      attr.flags = IORING_SPAWN_ATTR_SETSCHEDULER;
      attr.sched_policy = bad[i].policy;
      attr.sched_priority = bad[i].prio;
      st_clone_attr (&st_ring, &ca, &attr, 0);
      st_sh ("exit 0", 1);
      status = st_finish (2);
      KT_EXPECT_EQ (bad[i].name, st_res[1], -bad[i].err);
      ST_EXPECT_GONE (bad[i].name, status);
    }
  sqe = st_clone (&st_ring, &ca, 0);
  sqe->addr2 = 8;
  sqe->optlen = sizeof attr;
  st_sh ("exit 0", 1);
  st_run (&st_ring, 2);
  KT_EXPECT_EQ ("attr EFAULT: the clone", st_res[0], -EFAULT);
  KT_EXPECT_EQ ("attr EFAULT: the exec cancelled", st_res[1], -ECANCELED);
  st_no_children ("attr EFAULT: no child");

  /* RESETIDS: with euid 1000/egid 1000 and real ids 0 in the submitting
     thread, the child runs with euid 0 / egid 0.  */
  if (syscall (SYS_setresgid, -1, 1000, -1) == 0
      && syscall (SYS_setresuid, -1, 1000, -1) == 0)
    {
      int w, r;
      char out[64];
      memset (&attr, 0, sizeof attr);
      attr.flags = IORING_SPAWN_ATTR_RESETIDS;
      st_clone_attr (&st_ring, &ca, &attr, 0);
      r = st_capture (&st_ring, 1, &w);
      ids (2);
      st_run (&st_ring, 3);
      close (w);
      st_read_all (r, out, sizeof out);
      KT_EXPECT_EQ ("resetids: exec", st_res[2], 0);
      ST_EXPECT_STR ("resetids: effective ids reset", out, "0 0");
      st_wait (st_res[0]);
      /* Control: without it the child keeps euid 1000.  */
      st_clone (&st_ring, &ca, 0);
      r = st_capture (&st_ring, 1, &w);
      ids (2);
      st_run (&st_ring, 3);
      close (w);
      st_read_all (r, out, sizeof out);
      ST_EXPECT_STR ("no resetids: effective ids kept", out, "1000 1000");
      st_wait (st_res[0]);
      if (syscall (SYS_setresuid, -1, 0, -1) != 0
	  || syscall (SYS_setresgid, -1, 0, -1) != 0)
	kt_fail ("restore ids", "%m");
    }
  else
    kt_unsupported ("resetids", "cannot change the effective ids: %m");

  /* TCSETPGRP: new session, the pty slave becomes the controlling
     terminal (opened onto fd 0), own process group in the foreground.  */
  int master = posix_openpt (O_RDWR | O_NOCTTY);
  if (master >= 0 && grantpt (master) == 0 && unlockpt (master) == 0)
    {
      char *slave = ptsname (master);
      if (pipe2 (hold, O_CLOEXEC) != 0)
	kt_fail ("pipe", "%m");
      struct io_uring_spawn_attr sid;
      memset (&sid, 0, sizeof sid);
      sid.flags = IORING_SPAWN_ATTR_SETSID;
      st_clone_attr (&st_ring, &ca, &sid, 0);
      st_open (&st_ring, slave, O_RDWR, 0, 1);
      st_tcsetpgrp (&st_ring, 0, 0, 2);
      st_link (st_dup2 (&st_ring, hold[0], 5, 3));
      st_sh ("read x <&5; exit 0", 4);
      st_run (&st_ring, 5);
      pid = st_res[0];
      KT_EXPECT_EQ ("tcsetpgrp: open the tty", st_res[1], 0);
      KT_EXPECT_EQ ("tcsetpgrp: res", st_res[2], 0);
      pid_t fg = -1;
      ioctl (master, TIOCGPGRP, &fg);
      KT_EXPECT_EQ ("tcsetpgrp: foreground group is the child's", fg, pid);
      close (hold[1]);
      ST_EXPECT_STATUS ("tcsetpgrp: child", st_wait (pid), 0);
      close (hold[0]);

      /* A process group out of range: EINVAL, as ioctl (TIOCSPGRP)
	 with a negative one, at prep (review m-2): no child.  */
      st_clone_attr (&st_ring, &ca, &sid, 0);
      st_open (&st_ring, slave, O_RDWR, 0, 1);
      sqe = st_tcsetpgrp (&st_ring, 0, 0, 2);
      sqe->addr3 = 1ULL << 31;
      st_sh ("exit 0", 3);
      status = st_finish (4);
      KT_EXPECT_EQ ("tcsetpgrp: pgrp > INT_MAX", st_res[2], -EINVAL);
      KT_EXPECT_EQ ("tcsetpgrp: pgrp > INT_MAX: no child", status, -1);

      /* Not our controlling terminal: ENOTTY.  */
      int sfd = open (slave, O_RDWR | O_NOCTTY);
      st_clone (&st_ring, &ca, 0);
      st_tcsetpgrp (&st_ring, sfd, 0, 1);
      st_sh ("exit 0", 2);
      status = st_finish (3);
      KT_EXPECT_EQ ("tcsetpgrp: not the controlling tty", st_res[1], -ENOTTY);
      ST_EXPECT_GONE ("tcsetpgrp: not the controlling tty: child gone", status);
      close (sfd);
      close (master);
    }
  else
    kt_unsupported ("tcsetpgrp", "no pty: %m");
  int p[2];
  if (pipe (p) != 0)
    kt_fail ("pipe", "%m");
  st_clone (&st_ring, &ca, 0);
  st_tcsetpgrp (&st_ring, p[0], 0, 1);
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("tcsetpgrp: not a tty", st_res[1], -ENOTTY);
  ST_EXPECT_GONE ("tcsetpgrp: not a tty: child gone", status);
  st_clone (&st_ring, &ca, 0);
  st_tcsetpgrp (&st_ring, 444, 0, 1);
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("tcsetpgrp: bad fd", st_res[1], -EBADF);
  ST_EXPECT_GONE ("tcsetpgrp: bad fd: child gone", status);

  st_no_children ("no child left");
  return kt_exit ();
}
