/* A child SIGKILLed between clone and exec, N times: it is always
   reapable, the parent never blocks, every CQE of the chain arrives.
   Odd iterations block the child in an open of a FIFO (so the kill
   lands inside the chain); even ones race the kill with the exec.  */

#include "st.h"

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 1000;
  st_init (0);
  char fifo[] = "/tmp/st-kill-fifo";
  if (!st_mkfifo (fifo))
    return kt_exit ();
  static char *argv_true[] = { "true", NULL };
  struct clone_args ca = { .exit_signal = SIGCHLD };
  int bad_reap = 0, bad_cqe = 0, killed = 0, ran = 0;

  for (int i = 0; i < n; i++)
    {
      int blocking = i & 1;
      st_clone (&st_ring, &ca, 0);
      if (blocking)
	{
	  struct io_uring_sqe *sqe = st_sqe (&st_ring, IORING_OP_SPAWN_OPEN, 1);
	  sqe->fd = AT_FDCWD;
	  sqe->addr = (uintptr_t) fifo;
	  ST_SPAWN_FLAGS (sqe) = O_RDONLY;
	  sqe->off = 5;
	  sqe->flags = IOSQE_IO_LINK;
	}
      st_exec (&st_ring, "/bin/true", argv_true, st_envp, 2);
      /* Submit, wait for the clone's CQE only, then kill.  */
      for (int j = 0; j < ST_MAX; j++)
	st_res[j] = INT32_MIN;
      io_uring_submit (&st_ring);
      int want = blocking ? 3 : 2, got = 0;
      pid_t pid = 0;
      while (got < want)
	{
	  struct io_uring_cqe *cqe;
	  struct __kernel_timespec ts = { .tv_sec = 20 };
	  if (io_uring_wait_cqe_timeout (&st_ring, &cqe, &ts) < 0)
	    break;
	  st_res[cqe->user_data] = cqe->res;
	  io_uring_cqe_seen (&st_ring, cqe);
	  got++;
	  if (cqe->user_data == 0 && cqe->res > 0)
	    {
	      pid = cqe->res;
	      kill (pid, SIGKILL);
	    }
	}
      if (pid <= 0 || got != want)
	{
	  bad_cqe++;
	  if (bad_cqe < 5)
	    kt_fail ("cqes", "iteration %d: pid %d, %d of %d CQEs", i, pid, got, want);
	  if (pid <= 0)
	    continue;
	}
      int status = st_wait (pid);
      if (status == -1)
	{
	  bad_reap++;
	  if (bad_reap < 5)
	    kt_fail ("reap", "iteration %d: child %d not reapable", i, pid);
	  continue;
	}
      if (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL)
	killed++;
      else if (WIFEXITED (status) && WEXITSTATUS (status) == 0 && !blocking)
	ran++;
      else
	{
	  bad_reap++;
	  kt_fail ("status", "iteration %d: status %#x", i, status);
	}
      if (blocking && got == want)
	{
	  /* The open was interrupted or never started; the exec never ran.  */
	  if ((st_res[1] != -EINTR && st_res[1] != -ECANCELED)
	      || st_res[2] != -ECANCELED)
	    {
	      bad_cqe++;
	      if (bad_cqe < 5)
		kt_fail ("chain cqes", "iteration %d: open %d exec %d", i,
			 st_res[1], st_res[2]);
	    }
	}
    }
  printf ("%d iterations: %d killed, %d exec'd before the kill\n", n, killed, ran);
  KT_EXPECT_EQ ("every child reaped with the right status", bad_reap, 0);
  KT_EXPECT_EQ ("every CQE arrived", bad_cqe, 0);
  KT_EXPECT_EQ ("every blocked child was killed", killed >= n / 2, 1);
  st_no_children ("no zombie left");
  unlink (fifo);
  return kt_exit ();
}
