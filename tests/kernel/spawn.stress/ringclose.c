/* The ring is closed while a chain runs in the child (blocked in an
   open of a FIFO): the child goes on, execs, is reaped; no crash.  N
   times; half of the children are then killed instead of released.  */

#include "st.h"

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 100;
  char fifo[] = "/tmp/st-ringclose-fifo";
  if (!st_mkfifo (fifo))
    return kt_exit ();
  static char *argv_true[] = { "true", NULL };
  struct clone_args ca = { .exit_signal = SIGCHLD };
  int bad = 0;

  for (int i = 0; i < n; i++)
    {
      struct io_uring ring;
      if (io_uring_queue_init (8, &ring, 0) < 0)
	{
	  kt_fail ("ring", "%m");
	  break;
	}
      st_clone (&ring, &ca, 0);
      struct io_uring_sqe *sqe = st_sqe (&ring, IORING_OP_SPAWN_OPEN, 1);
      sqe->fd = AT_FDCWD;
      sqe->addr = (uintptr_t) fifo;
      ST_SPAWN_FLAGS (sqe) = O_RDONLY;
      sqe->off = 5;
      sqe->flags = IOSQE_IO_LINK;
      st_exec (&ring, "/bin/true", argv_true, st_envp, 2);
      io_uring_submit (&ring);
      struct io_uring_cqe *cqe;
      pid_t pid = 0;
      struct __kernel_timespec ts = { .tv_sec = 20 };
      if (io_uring_wait_cqe_timeout (&ring, &cqe, &ts) == 0)
	{
	  if (cqe->user_data == 0)
	    pid = cqe->res;
	  io_uring_cqe_seen (&ring, cqe);
	}
      /* Close the ring while the child sits in the open.  */
      io_uring_queue_exit (&ring);
      if (pid <= 0)
	{
	  bad++;
	  kt_fail ("clone", "iteration %d: no pid", i);
	  continue;
	}
      int want_kill = i & 1;
      if (want_kill)
	kill (pid, SIGKILL);
      else
	{
	  /* Meet the child's open; never block if it is gone.  */
	  int w = -1;
	  for (int t = 0; t < 2000 && w < 0; t++)
	    {
	      w = open (fifo, O_WRONLY | O_NONBLOCK);
	      if (w < 0)
		usleep (10000);
	    }
	  if (w >= 0)
	    close (w);
	}
      int status = st_wait (pid);
      if (want_kill ? !(WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL)
	  : !(WIFEXITED (status) && WEXITSTATUS (status) == 0))
	{
	  bad++;
	  if (bad < 5)
	    kt_fail ("child", "iteration %d: status %#x", i, status);
	}
    }
  KT_EXPECT_EQ ("children survive the ring's close", bad, 0);
  st_no_children ("no zombie left");
  unlink (fifo);
  return kt_exit ();
}
