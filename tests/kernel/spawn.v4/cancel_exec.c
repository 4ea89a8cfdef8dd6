/* M-3 (kernel review of v3): cancellation's kill.
   1. It was not excluded from the exec's commit: a cancel that found the
      child before its exec could SIGKILL the program after it started,
      while the chain reported the EXEC as done.  Deterministic: the
      cancel's delay point holds it 500 ms between its check and its
      kill.  The chain, CLONE (0) + SPAWN_OPEN of a FIFO (1) + EXEC of
      /bin/sleep 2 (2), blocks in the open; a thread cancels it with
      IORING_REGISTER_SYNC_CANCEL; 100 ms later the FIFO is opened for
      writing, so the child goes on to its exec inside the window.  The
      outcome must be one of the two consistent ones: the EXEC's CQE
      -ECANCELED and the child dead of SIGKILL (the kill came before the
      exec), or the EXEC's CQE 0, the cancel -EALREADY and the program
      exiting 0.  Never an EXEC reported done and its program killed.
   2. The kill was the kernel's own, whoever cancelled: a process the
      ring was passed to, under another uid, killed the submitter's
      pre-exec child, which kill(2) would refuse it.  Cancelling kills
      only for the submitter's thread group: another process's cancel is
      -EPERM and the child lives on.  */

#include "st.h"
#include <pthread.h>

static char fifo[] = "/tmp/st-v4-cancel-exec-fifo";
static char *argv_sleep[] = { "sleep", "2", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };
static int cancel_ret;

static void
queue_chain (void)
{
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, fifo, O_RDONLY, 10, 1);
  st_exec (&st_ring, "/bin/sleep", argv_sleep, st_envp, 2);
  st_reset ();
  if (io_uring_submit (&st_ring) != 3)
    kt_fail ("submit", "not 3 SQEs");
}

static void *
canceller (void *arg)
{
  struct io_uring_sync_cancel_reg reg = {
    .addr = 0, .timeout = { .tv_sec = 10 },
  };
  cancel_ret = io_uring_register_sync_cancel (&st_ring, &reg);
  return arg;
}

static void
case_commit (void)
{
  queue_chain ();
  pid_t child = st_find_child (getpid (), "S");
  if (child <= 0)
    {
      kt_fail ("commit", "the chain's child did not block in its open");
      return;
    }
  st_delay ("cancel", 500000);
  pthread_t t;
  pthread_create (&t, NULL, canceller, NULL);
  usleep (100000);
  int w = st_fifo_writer (fifo);
  pthread_join (t, NULL);
  st_delay ("cancel", 0);
  st_reap (&st_ring, 3, 20);
  if (w >= 0)
    close (w);
  int status = st_wait (child);
  bool killed = status >= 0 && WIFSIGNALED (status)
		&& WTERMSIG (status) == SIGKILL;
  printf ("note: cancel %d, clone %d, open %d, exec %d, status %#x\n",
	  cancel_ret, st_res[0], st_res[1], st_res[2], status);
  if (st_res[2] == 0 && killed)
    kt_fail ("a cancel never kills an exec'd program",
	     "the EXEC's CQE is 0 and the program died of SIGKILL");
  else if (st_res[2] == 0 && status == 0 && cancel_ret == -EALREADY)
    kt_pass ("a cancel never kills an exec'd program (exec first)");
  else if (st_res[2] == -ECANCELED && killed && cancel_ret == 1)
    kt_pass ("a cancel never kills an exec'd program (kill first)");
  else
    kt_fail ("a cancel never kills an exec'd program",
	     "cancel %d, exec %d, status %#x", cancel_ret, st_res[2], status);
}

static void
case_other_process (void)
{
  queue_chain ();
  pid_t child = st_find_child (getpid (), "S");
  if (child <= 0)
    {
      kt_fail ("other process", "the chain's child did not block");
      return;
    }
  int res[2];
  if (pipe2 (res, O_CLOEXEC))
    return;
  pid_t b = fork ();
  if (b == 0)
    {
      /* the ring came with the fork, as over SCM_RIGHTS */
      int r[2];
      if (setresgid (2000, 2000, 2000) || setresuid (2000, 2000, 2000))
	_exit (2);
      r[0] = kill (child, SIGKILL) ? -errno : 0;
      struct io_uring_sync_cancel_reg reg = {
	.addr = 0, .timeout = { .tv_sec = 2 },
      };
      r[1] = io_uring_register_sync_cancel (&st_ring, &reg);
      _exit (write (res[1], r, sizeof r) == sizeof r ? 0 : 3);
    }
  int r[2] = { 0, 0 }, status;
  if (read (res[0], r, sizeof r) != sizeof r)
    kt_fail ("other process", "no results");
  waitpid (b, &status, 0);
  close (res[0]);
  close (res[1]);
  KT_EXPECT_EQ ("another uid's kill(2) of the child", r[0], -EPERM);
  KT_EXPECT_EQ ("another process's cancel kills nothing", r[1], -EPERM);
  usleep (100000);
  char s = st_state (child);
  if (s == 'S')
    kt_pass ("the child still waits in its open");
  else
    kt_fail ("the child still waits in its open", "state %c", s ? s : '-');
  /* the submitter's own cancel does kill it */
  struct io_uring_sync_cancel_reg reg = {
    .addr = 0, .timeout = { .tv_sec = 5 },
  };
  KT_EXPECT_EQ ("the submitter's cancel",
		io_uring_register_sync_cancel (&st_ring, &reg), 1);
  st_reap (&st_ring, 3, 20);
  status = st_wait (child);
  if (status >= 0 && WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL)
    kt_pass ("the submitter's cancel killed the child");
  else
    {
      kt_fail ("the submitter's cancel killed the child", "status %#x",
	       status);
      int w = st_fifo_writer (fifo);
      if (w >= 0)
	close (w);
    }
}

int
main (void)
{
  if (!st_delay_test_start ("cancel and exec"))
    return 77;
  if (!st_mkfifo (fifo))
    kt_exit ();
  st_init (0);
  case_commit ();
  case_other_process ();
  st_no_children ("no child left");
  st_kmsg_clean ("the kernel log is clean");
  unlink (fifo);
  return kt_exit ();
}
