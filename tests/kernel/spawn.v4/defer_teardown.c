/* B-1 (kernel review of v3): a DEFER_TASKRUN ring torn down while its
   submitter is between kernel_clone() and the end of the clone's
   task_work.  The child's reference to the spawn was all the submitter
   used there: a child that fails at once completes its chain as the
   ring's local work, which the ring's exit work runs itself in a
   kworker, and that freed the spawn under the submitter (KASAN:
   slab-use-after-free in io_spawn_clone_tw).

   Deterministic: the clone's delay point holds the submitter 400 ms
   right after kernel_clone().  Thread S submits CLONE (with the
   descriptor snapshot where offered, so that the child holds no
   reference to the ring's file) + SPAWN_CLOSE of fd 12345 (-EBADF at
   once) + EXEC on a SINGLE_ISSUER | DEFER_TASKRUN ring; the main thread
   unmaps the ring and closes its fd 150 ms after S made the ring.  Checks: S comes back, the
   child is gone (nothing to reap), and the kernel logged no BUG,
   WARNING or KASAN report.  Five rounds.  */

#include "st.h"
#include <pthread.h>
#include <sys/mman.h>

static char *argv_true[] = { "true", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };
static struct io_uring ring;
static volatile int submitted, ring_ready;

static void *
submitter (void *arg)
{
  unsigned int snap = *(unsigned int *) arg;
  /* SINGLE_ISSUER: the ring is its creator's */
  struct io_uring_params p = {
    .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
  };
  if (io_uring_queue_init_params (8, &ring, &p) < 0)
    {
      ring_ready = -1;
      return NULL;
    }
  ring_ready = 1;
  struct io_uring_sqe *sqe = st_clone (&ring, &ca, 0);
  sqe->spawn_flags = snap;
  st_close (&ring, 12345, 0, 1);
  st_exec (&ring, "/bin/true", argv_true, st_envp, 2);
  /* the clone runs as task_work on the way out of this call */
  submitted = io_uring_submit (&ring);
  return NULL;
}

int
main (void)
{
  if (!st_delay_test_start ("ring teardown during a clone"))
    return 77;
  struct io_uring_query_spawn q;
  unsigned int snap = 0;
  if (io_uring_query_spawn (&q) == 0 && (q.features & IORING_SPAWN_F_FD_SNAPSHOT))
    snap = IORING_CLONE_FD_SNAPSHOT;
  st_delay ("clone", 400000);
  int ok = 0;
  for (int round = 0; round < 5; round++)
    {
      pthread_t s;
      submitted = -1;
      ring_ready = 0;
      pthread_create (&s, NULL, submitter, &snap);
      while (ring_ready == 0)
	usleep (1000);
      if (ring_ready < 0)
	{
	  pthread_join (s, NULL);
	  kt_fail ("ring", "no DEFER_TASKRUN ring");
	  break;
	}
      usleep (150000);
      /* The ring's mappings and its fd are the last references to its
	 file (S's io_uring_enter dropped its own before the task_work
	 ran): with them gone the ring's exit work runs.  */
      size_t sqes = *ring.sq.kring_entries * sizeof (struct io_uring_sqe);
      if (ring.cq.ring_ptr != ring.sq.ring_ptr)
	munmap (ring.cq.ring_ptr, ring.cq.ring_sz);
      munmap (ring.sq.ring_ptr, ring.sq.ring_sz);
      munmap (ring.sq.sqes, sqes);
      close (ring.ring_fd);
      pthread_join (s, NULL);
      ok += submitted == 3;
    }
  st_delay ("clone", 0);
  KT_EXPECT_EQ ("the submitter came back from each submit", ok, 5);
  usleep (200000);
  st_no_children ("the children are gone");
  st_kmsg_clean ("no use-after-free: the kernel log is clean");
  return kt_exit ();
}
