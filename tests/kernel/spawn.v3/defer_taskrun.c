/* M-5 (review 2026-12): DEFER_TASKRUN rings spawn.  v2 refused a chain
   on an IORING_SETUP_DEFER_TASKRUN ring (-EINVAL at the clone's prep),
   though glibc's per-thread SINGLE_ISSUER ring is the textbook
   DEFER_TASKRUN user.  v3: the child posts its CQEs with
   io_req_task_work_add_remote(), the clone runs from TWA_RESUME task
   work (never from the locked local list), and everything arrives when
   the submitter waits with IORING_ENTER_GETEVENTS.

   On a SINGLE_ISSUER | DEFER_TASKRUN ring (UNSUPPORTED if the kernel
   cannot make one):
   1. CLONE + DUP2 (a pipe onto stdout) + EXEC of sh -c 'echo ok':
      submitted and waited for in one io_uring_enter (submit_and_wait,
      GETEVENTS), all 3 CQEs arrive, the clone's first with the pid, the
      program prints "ok" and exits 0.  A kernel with v2's refusal: the
      clone's CQE is -EINVAL -- FAIL.
   2. A chain that blocks in a FIFO open, released by another thread
      while this one waits in GETEVENTS: the waiter wakes with every
      CQE (the child's post reaches a DEFER_TASKRUN ring from another
      task).  A kernel that queues the child's completion where only
      the waiter's own task work runs it, without a wake-up, hangs
      here: FAIL "blocked chain: all CQEs while waiting".
   3. A failing chain (EXEC of a missing file): SPAWN_GONE, the EXEC's
      -ENOENT, nothing to reap.
   4. The same ring spawns 20 times in a row (no lost CQE).  */

#include "st.h"
#include <pthread.h>

static char fifo[] = "/tmp/st-v3-defer-fifo";
static char prog[] = "/tmp/st-v3-defer-true";

/* Submit and wait for N CQEs in one io_uring_enter (GETEVENTS), then
   collect them; the number collected.  */
static int
submit_wait (int n)
{
  st_reset ();
  int ret;
  do
    ret = io_uring_submit_and_wait (&st_ring, n);
  while (ret == -EINTR);
  if (ret < 0)
    {
      kt_fail ("submit_and_wait", "%s", strerror (-ret));
      return 0;
    }
  return st_reap (&st_ring, n, 20);
}

static void *
release (void *arg)
{
  (void) arg;
  usleep (300000);
  int w = st_fifo_writer (fifo);
  if (w >= 0)
    close (w);
  return NULL;
}

int
main (void)
{
  struct io_uring_params p;
  memset (&p, 0, sizeof p);
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  int ret = io_uring_queue_init_params (64, &st_ring, &p);
  if (ret < 0)
    {
      kt_unsupported ("DEFER_TASKRUN ring", "%s", strerror (-ret));
      return 77;
    }
  if (!st_tiny_true (prog) || !st_mkfifo (fifo))
    return kt_exit ();
  struct clone_args ca = { .exit_signal = SIGCHLD };
  static char *argv_true[] = { "true", NULL };

  /* 1. A normal spawn.  */
  int w;
  st_clone (&st_ring, &ca, 0);
  int r = st_capture (&st_ring, 1, &w);
  st_sh ("echo ok", 2);
  int got = submit_wait (3);
  close (w);
  KT_EXPECT_EQ ("spawn: all 3 CQEs", got, 3);
  if (st_res[0] > 0)
    kt_pass ("spawn: the clone's CQE has a pid");
  else
    kt_fail ("spawn: the clone's CQE has a pid", "%d", st_res[0]);
  ST_EXPECT_LINK_ORDER ("spawn: the CQEs in link order", 3);
  KT_EXPECT_EQ ("spawn: the dup2", st_res[1], 1);
  KT_EXPECT_EQ ("spawn: the exec", st_res[2], 0);
  char out[64];
  st_read_all (r, out, sizeof out);
  ST_EXPECT_STR ("spawn: the program ran", out, "ok");
  ST_EXPECT_STATUS ("spawn: exit 0", st_fate (), 0);

  /* 2. Released while the submitter waits in GETEVENTS.  */
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, fifo, O_RDONLY, 10, 1);
  st_exec (&st_ring, prog, argv_true, st_envp, 2);
  pthread_t t;
  pthread_create (&t, NULL, release, NULL);
  got = submit_wait (3);
  pthread_join (t, NULL);
  KT_EXPECT_EQ ("blocked chain: all CQEs while waiting", got, 3);
  KT_EXPECT_EQ ("blocked chain: the open", st_res[1], 10);
  ST_EXPECT_STATUS ("blocked chain: exit 0", st_fate (), 0);

  /* 3. A failing chain.  */
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, "/nonexistent/st-v3", argv_true, st_envp, 1);
  got = submit_wait (2);
  KT_EXPECT_EQ ("failed chain: both CQEs", got, 2);
  KT_EXPECT_EQ ("failed chain: the exec's ENOENT", st_res[1], -ENOENT);
  ST_EXPECT_GONE ("failed chain: the child is gone", st_fate ());

  /* 4. In a row.  */
  int ok = 0;
  for (int i = 0; i < 20; i++)
    {
      st_clone (&st_ring, &ca, 0);
      st_exec (&st_ring, prog, argv_true, st_envp, 1);
      if (submit_wait (2) == 2 && st_res[1] == 0 && st_fate () == 0)
	ok++;
    }
  KT_EXPECT_EQ ("20 spawns in a row", ok, 20);

  unlink (fifo);
  unlink (prog);
  st_no_children ("no child left");
  return kt_exit ();
}
