/* B-2 (kernel review of v3): a cancel that comes before the child first
   runs.  v3 took the child's self_exec_id, inherited from the submitter,
   for one changed by an exec until the child had run and recorded its
   own: such a cancel was refused (-EALREADY) and killed nothing, and the
   submitter's exec then waited without bound for a child that blocked.

   The child's delay point (100 ms at its first instruction) makes "has
   not run yet" certain.  Each case runs CLONE (0) + SPAWN_OPEN of a FIFO
   nobody writes (1) + EXEC (2):
   1. IORING_REGISTER_SYNC_CANCEL of user_data 0 right after the submit:
      1, the clone's CQE the pid, the OPEN and the EXEC -ECANCELED, the
      child dead of SIGKILL.
   2. The same with IORING_OP_ASYNC_CANCEL.
   3. A helper process submits the chain and calls execve(): the exec
      cancels the chain and goes on (the helper's new program exits 0
      within 10 s); the child dies of SIGKILL.
   4. The same with _exit() instead of execve().
   5. The ring's last references (its mappings and its fd; the child
      holds none, with the descriptor snapshot) go right after the
      submit: the ring's exit work kills the child within 10 s.  (On v3
      this one passes too: that work retries every 50 ms, and its cancel
      succeeds once the child has run.)
   A case that hangs is released by opening the FIFO for writing, so
   the test ends either way.  */

#include "st.h"
#include <sys/mman.h>

static char fifo[] = "/tmp/st-v4-early-cancel-fifo";
static char *argv_true[] = { "true", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

static void
queue_chain (struct io_uring *ring)
{
  st_clone (ring, &ca, 0);
  st_open (ring, fifo, O_RDONLY, 10, 1);
  st_exec (ring, "/bin/true", argv_true, st_envp, 2);
}

/* Whether the chain's child would still block: release it if so.  */
static void
release (void)
{
  int w = open (fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (w >= 0)
    close (w);
}

static bool
chain_done (void)
{
  return st_res[0] != INT32_MIN && st_res[1] != INT32_MIN
	 && st_res[2] != INT32_MIN;
}

static void
check_killed (const char *name, int cancel_res)
{
  char n[160];
  snprintf (n, sizeof n, "%s: the cancel counts the chain", name);
  KT_EXPECT_EQ (n, cancel_res, 1);
  /* the chain's three CQEs; a chain that goes on blocking is released */
  for (int round = 0; round < 2 && !chain_done (); round++)
    {
      while (!chain_done () && st_reap (&st_ring, 1, 10) == 1)
	;
      if (!chain_done ())
	release ();
    }
  pid_t child = st_res[0];
  snprintf (n, sizeof n, "%s: the clone's CQE has a pid", name);
  if (child > 0)
    kt_pass (n);
  else
    kt_fail (n, "%d", child);
  snprintf (n, sizeof n, "%s: the OPEN did not run", name);
  KT_EXPECT_EQ (n, st_res[1], -ECANCELED);
  snprintf (n, sizeof n, "%s: the EXEC did not run", name);
  KT_EXPECT_EQ (n, st_res[2], -ECANCELED);
  int status = child > 0 ? st_wait (child) : -1;
  snprintf (n, sizeof n, "%s: the child died of SIGKILL", name);
  if (status >= 0 && WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL)
    kt_pass (n);
  else
    kt_fail (n, "status %#x", status);
}

static void
case_sync (void)
{
  struct io_uring_sync_cancel_reg reg = {
    .addr = 0, .timeout = { .tv_sec = 2 },
  };
  queue_chain (&st_ring);
  st_reset ();
  if (io_uring_submit (&st_ring) != 3)
    kt_fail ("sync", "submit: not 3 SQEs");
  int ret = io_uring_register_sync_cancel (&st_ring, &reg);
  check_killed ("sync cancel before the child ran", ret);
}

static void
case_async (void)
{
  queue_chain (&st_ring);
  st_reset ();
  /* the clone runs on the way out of this submit */
  if (io_uring_submit (&st_ring) != 3)
    kt_fail ("async", "submit: not 3 SQEs");
  struct io_uring_sqe *sqe = io_uring_get_sqe (&st_ring);
  io_uring_prep_cancel64 (sqe, 0, 0);
  sqe->user_data = 3;
  if (io_uring_submit (&st_ring) != 1)
    kt_fail ("async", "submit: not the cancel");
  /* the cancel's own CQE comes at once */
  while (st_res[3] == INT32_MIN && st_reap (&st_ring, 1, 10) == 1)
    ;
  check_killed ("async cancel before the child ran", st_res[3]);
}

/* A helper submits the chain, then EXEC_OR_EXIT: the helper must be
   gone (its own status 0) within 10 s.  */
static void
case_helper (const char *name, bool exec)
{
  char n[160];
  pid_t h = fork ();
  if (h == 0)
    {
      struct io_uring ring;
      if (io_uring_queue_init (8, &ring, 0) < 0)
	_exit (2);
      queue_chain (&ring);
      if (io_uring_submit (&ring) != 3)
	_exit (3);
      if (exec)
	{
	  execve ("/bin/true", argv_true, st_envp);
	  _exit (4);
	}
      _exit (0);
    }
  int status = -1;
  bool done = false;
  for (int i = 0; i < 1000 && !done; i++)
    {
      if (waitpid (h, &status, WNOHANG) == h)
	done = true;
      else
	usleep (10000);
    }
  snprintf (n, sizeof n, "%s: the submitter is gone within 10 s", name);
  if (done && WIFEXITED (status) && WEXITSTATUS (status) == 0)
    kt_pass (n);
  else if (done)
    kt_fail (n, "status %#x", status);
  else
    {
      kt_fail (n, "it waits for the chain's child");
      release ();
      waitpid (h, &status, 0);
    }
  /* The chain's child was the helper's: reparented to init, which
     reaps it.  None may block on the FIFO.  */
  usleep (200000);
  int w = open (fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  snprintf (n, sizeof n, "%s: no child is left in the open", name);
  if (w < 0 && errno == ENXIO)
    kt_pass (n);
  else
    {
      kt_fail (n, "a reader is still there");
      if (w >= 0)
	close (w);
    }
}

static void
case_ring_close (void)
{
  const char *name = "the ring closed before the child ran";
  struct io_uring_query_spawn q;
  if (io_uring_query_spawn (&q) != 0 || !(q.features & IORING_SPAWN_F_FD_SNAPSHOT))
    {
      kt_unsupported (name, "no descriptor snapshot");
      return;
    }
  struct io_uring ring;
  if (io_uring_queue_init (8, &ring, 0) < 0)
    {
      kt_fail (name, "ring: %m");
      return;
    }
  queue_chain (&ring);
  ring.sq.sqes[0].spawn_flags = IORING_CLONE_FD_SNAPSHOT;
  if (io_uring_submit (&ring) != 3)
    kt_fail (name, "submit: not 3 SQEs");
  pid_t child = 0;
  st_children_of (getpid (), &child, 1);
  size_t sqes = *ring.sq.kring_entries * sizeof (struct io_uring_sqe);
  if (ring.cq.ring_ptr != ring.sq.ring_ptr)
    munmap (ring.cq.ring_ptr, ring.cq.ring_sz);
  munmap (ring.sq.ring_ptr, ring.sq.ring_sz);
  munmap (ring.sq.sqes, sqes);
  close (ring.ring_fd);
  int status = child > 0 ? st_wait (child) : -1;
  char n[160];
  snprintf (n, sizeof n, "%s: the child died of SIGKILL", name);
  if (status >= 0 && WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL)
    kt_pass (n);
  else
    {
      kt_fail (n, "child %d, status %#x", (int) child, status);
      release ();
      if (child > 0)
	st_wait (child);
    }
}

int
main (void)
{
  if (!st_delay_test_start ("early cancel"))
    return 77;
  if (!st_mkfifo (fifo))
    kt_exit ();
  st_init (0);
  st_delay ("child", 100000);
  case_sync ();
  case_async ();
  case_helper ("execve after the submit", true);
  case_helper ("_exit after the submit", false);
  case_ring_close ();
  st_delay ("child", 0);
  st_no_children ("no child left");
  st_kmsg_clean ("the kernel log is clean");
  unlink (fifo);
  return kt_exit ();
}
