/* A child SIGKILLed in its chain, N times (ABI 3).  The CQEs of a chain
   come when it is over, so the child is reached through its pidfd
   (CLONE_PIDFD, valid once io_uring_enter returns).  Odd iterations
   block the child in an open of a FIFO and kill it there (the open was
   seen sleeping); even ones race the kill with the exec of a tiny
   static program.  Every time:

   - every CQE of the chain arrives, the clone's first, with the child's
     pid, without IORING_CQE_F_SPAWN_GONE (a killed child is an ordinary
     child; v1 reported the pid before the chain ran);
   - a child whose chain did not reach its exec (its EXEC's CQE is
     -ECANCELED) is already a zombie when the CQEs arrive, and its status
     is WIFSIGNALED with SIGKILL; one that exec'd exits 0 or dies of the
     SIGKILL;
   - the operations that did not run are -ECANCELED (an open interrupted
     by the fatal signal too);
   - one SIGCHLD per child, nothing left to reap at the end.  */

#include "st.h"

static volatile sig_atomic_t sigchld_count;

static void
on_sigchld (int sig)
{
  (void) sig;
  sigchld_count++;
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 1000;
  st_init (0);
  char fifo[] = "/tmp/st-kill-fifo";
  char prog[] = "/tmp/st-kill-true";
  if (!st_mkfifo (fifo) || !st_tiny_true (prog))
    return kt_exit ();
  struct sigaction sa = { .sa_handler = on_sigchld, .sa_flags = SA_RESTART };
  sigaction (SIGCHLD, &sa, NULL);
  static char *argv_true[] = { "true", NULL };
  int bad_reap = 0, bad_cqe = 0, killed = 0, ran = 0, children = 0;
  int not_zombie = 0, not_blocked = 0;

  for (int i = 0; i < n; i++)
    {
      int blocking = i & 1;
      int pidfd = -1;
      struct clone_args ca = { .flags = CLONE_PIDFD, .pidfd = (uintptr_t) &pidfd,
			       .exit_signal = SIGCHLD };
      st_clone (&st_ring, &ca, 0);
      if (blocking)
	st_open (&st_ring, fifo, O_RDONLY, 5, 1);
      st_exec (&st_ring, prog, argv_true, st_envp, 2);
      st_reset ();
      io_uring_submit (&st_ring);
      pid_t pid = pidfd >= 0 ? st_pidfd_pid (pidfd) : -1;
      if (pid > 0 && blocking && st_wait_state (pid, "S") != 'S')
	not_blocked++;
      if (pidfd >= 0)
	syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
      int want = blocking ? 3 : 2;
      int got = st_reap (&st_ring, want, 20);
      if (pidfd >= 0)
	close (pidfd);
      if (pid <= 0 || got != want || st_res[0] != pid
	  || (st_cflags[0] & IORING_CQE_F_SPAWN_GONE)
	  || st_order[0] != 0)
	{
	  bad_cqe++;
	  if (bad_cqe < 5)
	    kt_fail ("cqes", "iteration %d: pid %d, %d of %d CQEs, clone res "
		     "%d cflags %#x", i, pid, got, want, st_res[0], st_cflags[0]);
	  if (pid <= 0)
	    continue;
	}
      children++;
      int exec_res = st_res[2];
      int status;
      if (exec_res == -ECANCELED)
	{
	  /* The chain is over and the child did not exec: it is dead.  */
	  pid_t r = waitpid (pid, &status, WNOHANG);
	  if (r != pid)
	    {
	      if (not_zombie++ < 5)
		kt_fail ("zombie", "iteration %d: child %d not a zombie when "
			 "the CQEs came (waitpid %d)", i, pid, r);
	      status = st_wait (pid);
	    }
	}
      else
	status = st_wait (pid);
      if (status == -1)
	{
	  bad_reap++;
	  if (bad_reap < 5)
	    kt_fail ("reap", "iteration %d: child %d not reapable", i, pid);
	  continue;
	}
      if (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL)
	killed++;
      else if (WIFEXITED (status) && WEXITSTATUS (status) == 0
	       && exec_res == 0)
	ran++;
      else
	{
	  bad_reap++;
	  kt_fail ("status", "iteration %d: status %#x, exec %d", i, status,
		   exec_res);
	}
      if (blocking && got == want
	  && (st_res[1] != -ECANCELED || st_res[2] != -ECANCELED))
	{
	  bad_cqe++;
	  if (bad_cqe < 5)
	    kt_fail ("chain cqes", "iteration %d: open %d exec %d, expected "
		     "both -ECANCELED", i, st_res[1], st_res[2]);
	}
      if (!blocking && got == want && exec_res != 0 && exec_res != -ECANCELED)
	{
	  bad_cqe++;
	  if (bad_cqe < 5)
	    kt_fail ("chain cqes", "iteration %d: exec %d", i, exec_res);
	}
    }
  printf ("%d iterations: %d killed, %d exec'd before the kill, %d SIGCHLD\n",
	  n, killed, ran, (int) sigchld_count);
  KT_EXPECT_EQ ("every child reaped with the right status", bad_reap, 0);
  KT_EXPECT_EQ ("every CQE arrived, the clone's first with the pid", bad_cqe, 0);
  KT_EXPECT_EQ ("a child killed in its chain is a zombie at its CQEs",
		not_zombie, 0);
  KT_EXPECT_EQ ("every blocking child was seen blocked", not_blocked, 0);
  KT_EXPECT_EQ ("every blocked child was killed", killed >= n / 2, 1);
  KT_EXPECT_EQ ("one SIGCHLD per child", sigchld_count, children);
  st_no_children ("no zombie left");
  unlink (fifo);
  unlink (prog);
  return kt_exit ();
}
