/* The ring is closed while a chain runs in the child (blocked in an
   open of a FIFO), N times.  v3: ring exit is one of the paths that
   cancel, and cancelling a chain whose child has not exec'd sends the
   child SIGKILL; the ring's teardown does not wait for the child (no
   io_uring exit work stays busy: v1's teardown waited for it).  Ring
   exit runs when the ring's last reference goes.  Two cases, in turn:
   - with IORING_CLONE_FD_SNAPSHOT the child's table has no copy of the
     ring's (close-on-exec) descriptor: the close is the last reference
     and the child dies of SIGKILL, whether the test then releases it
     or kills it itself;
   - without it the child's copy of the table holds the ring until the
     child execs or dies (as a fork child's would): after the close the
     child still blocks, released it execs and exits 0, killed through
     its pidfd it dies of SIGKILL, and either way the ring is then torn
     down.
   The child is reached through its pidfd (the CQEs come when the chain
   is over).  */

#include "st.h"

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 100;
  char fifo[] = "/tmp/st-ringclose-fifo";
  char prog[] = "/tmp/st-ringclose-true";
  if (!st_mkfifo (fifo) || !st_tiny_true (prog))
    return kt_exit ();
  static char *argv_true[] = { "true", NULL };
  int bad = 0, bad_cqe = 0, busy = 0, held = 0;
  int fds = st_count_fds ();
  bool can_snap = (st_spawn_features () & IORING_SPAWN_F_FD_SNAPSHOT) != 0;
  if (!can_snap)
    kt_unsupported ("ring close with the snapshot",
		    "IORING_SPAWN_F_FD_SNAPSHOT not announced");

  for (int i = 0; i < n; i++)
    {
      struct io_uring ring;
      if (io_uring_queue_init (8, &ring, 0) < 0)
	{
	  kt_fail ("ring", "%m");
	  break;
	}
      int pidfd = -1;
      struct clone_args ca = { .flags = CLONE_PIDFD, .pidfd = (uintptr_t) &pidfd,
			       .exit_signal = SIGCHLD };
      bool snap = can_snap && !(i & 2);
      st_clone (&ring, &ca, 0)->spawn_flags
	= snap ? IORING_CLONE_FD_SNAPSHOT : 0;
      st_open (&ring, fifo, O_RDONLY, 5, 1);
      st_exec (&ring, prog, argv_true, st_envp, 2);
      io_uring_submit (&ring);
      siginfo_t si;
      memset (&si, 0, sizeof si);
      /* The child, seen blocked in its open.  */
      pid_t pid = 0;
      if (pidfd >= 0)
	{
	  for (int t = 0; t < 2000 && pid == 0; t++)
	    {
	      pid_t c[4];
	      if (st_children_of (getpid (), c, 4) == 1 && st_state (c[0]) == 'S')
		pid = c[0];
	      else
		usleep (10000);
	    }
	}
      if (pid <= 0)
	{
	  bad++;
	  kt_fail ("clone", "iteration %d: no blocked child (pidfd %d)", i, pidfd);
	  io_uring_queue_exit (&ring);
	  continue;
	}
      if (io_uring_cq_ready (&ring) != 0)
	{
	  if (bad_cqe++ < 5)
	    kt_fail ("cqes", "iteration %d: a CQE before the chain is over", i);
	}
      /* Close the ring while the child sits in the open.  */
      io_uring_queue_exit (&ring);
      if (snap)
	{
	  if (!st_ring_exit_done () && busy++ < 5)
	    kt_fail ("ring teardown", "iteration %d: the ring's exit work "
		     "still runs while the child blocks (state %c)", i,
		     st_state (pid));
	  char cs = st_wait_state (pid, "Z");
	  if (cs != 'Z' && cs != 0)
	    {
	      bad++;
	      kt_fail ("child", "iteration %d: child state %c after the "
		       "ring's close, expected killed by the cancellation",
		       i, cs);
	    }
	}
      else
	{
	  /* The child's table holds the ring: nothing is cancelled.  */
	  usleep (50000);
	  char cs = st_state (pid);
	  if (cs != 'S' && held++ < 5)
	    kt_fail ("child", "iteration %d: child state %c after the "
		     "ring's close without the snapshot, expected still "
		     "blocked", i, cs);
	}
      int want_kill = i & 1;
      if (want_kill)
	syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
      else
	{
	  /* Meet the child's open; never block if it is gone.  */
	  int w = st_fifo_writer (fifo);
	  if (w >= 0)
	    close (w);
	}
      close (pidfd);
      int status = st_wait (pid);
      bool ok;
      if (snap || want_kill)
	ok = status >= 0 && WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL;
      else
	ok = status >= 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0;
      if (!ok)
	{
	  bad++;
	  if (bad < 5)
	    kt_fail ("child", "iteration %d (%s snapshot, %s): status %#x", i,
		     snap ? "with" : "without",
		     want_kill ? "killed" : "released", status);
	}
      /* Without the snapshot the child's end dropped the last reference.  */
      if (!snap && !st_ring_exit_done () && busy++ < 5)
	kt_fail ("ring teardown", "iteration %d: the ring's exit work still "
		 "runs after the child is gone", i);
    }
  KT_EXPECT_EQ ("the ring's last close kills the blocked children, and "
		"only the last", bad, 0);
  KT_EXPECT_EQ ("a child's copy of the table holds the ring", held, 0);
  KT_EXPECT_EQ ("no CQE before the chain is over", bad_cqe, 0);
  KT_EXPECT_EQ ("the ring's teardown does not wait for the child, and "
		"runs once the last reference is gone", busy, 0);
  KT_EXPECT_EQ ("no fd leaked", st_count_fds (), fds);
  st_no_children ("no zombie left");
  unlink (fifo);
  unlink (prog);
  return kt_exit ();
}
