/* The ring is closed while a chain runs in the child (blocked in an
   open of a FIFO), N times: closing the ring cancels the chain, the
   ring's teardown does not wait for the child (no io_uring exit work
   stays busy: v1's teardown waited for it).  v3: ring exit is one of
   the paths that cancel, and cancelling a chain whose child has not
   exec'd sends the child SIGKILL (v2 let the child go on alone, and
   this test released half of them to exec): every child dies of
   SIGKILL, whether the test then releases it (even iterations) or
   kills it itself through its pidfd (odd ones).  The child is reached
   through its pidfd (the CQEs come when the chain is over).  */

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
  int bad = 0, bad_cqe = 0, busy = 0;
  int fds = st_count_fds ();

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
      st_clone (&ring, &ca, 0);
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
      if (!st_ring_exit_done ())
	{
	  if (busy++ < 5)
	    kt_fail ("ring teardown", "iteration %d: the ring's exit work "
		     "still runs while the child blocks (state %c)", i,
		     st_state (pid));
	}
      char cs = st_wait_state (pid, "Z");
      if (cs != 'Z' && cs != 0)
	{
	  bad++;
	  kt_fail ("child", "iteration %d: child state %c after the ring's "
		   "close, expected killed by the cancellation", i, cs);
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
      if (!(status >= 0 && WIFSIGNALED (status)
	    && WTERMSIG (status) == SIGKILL))
	{
	  bad++;
	  if (bad < 5)
	    kt_fail ("child", "iteration %d: status %#x", i, status);
	}
    }
  KT_EXPECT_EQ ("the ring's close kills the blocked children", bad, 0);
  KT_EXPECT_EQ ("no CQE before the chain is over", bad_cqe, 0);
  KT_EXPECT_EQ ("the ring's teardown does not wait for the child", busy, 0);
  KT_EXPECT_EQ ("no fd leaked", st_count_fds (), fds);
  st_no_children ("no zombie left");
  unlink (fifo);
  unlink (prog);
  return kt_exit ();
}
