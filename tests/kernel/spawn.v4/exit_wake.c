/* M-1 (kernel review of v3): the exit wake-up published "dequeued"
   (->head = NULL) before it was done with the spawn.  The completion of
   a chain whose child exec'd is queued at the exec; if it ran in that
   window it saw nothing left to dequeue and freed the spawn under the
   wake-up (KASAN: use-after-free on spawn->lock).

   Deterministic: the wake-up's delay point holds it 50 ms once it has
   dequeued (busy, interrupts off, as it runs).  The submitter, on a
   DEFER_TASKRUN ring (its completions run only when it asks), runs
   CLONE + EXEC of /bin/sleep 0.3 with the child on the other CPU, waits
   until the child is a zombie (the state it takes just before the
   wake-up), then reaps the chain's CQEs at once, inside the window.  Five rounds.  Checks: the CQEs (the pid, the EXEC 0), the
   child exited 0, and the kernel logged no BUG, WARNING or KASAN
   report.  */

#include "st.h"
#include <sched.h>

static char *argv_sleep[] = { "sleep", "0.3", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

static void
pin (int cpu)
{
  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  sched_setaffinity (0, sizeof set, &set);
}

int
main (void)
{
  if (!st_delay_test_start ("exit wake-up"))
    return 77;
  if (sysconf (_SC_NPROCESSORS_ONLN) < 2)
    {
      kt_unsupported ("exit wake-up", "one CPU: the window cannot be entered");
      return 77;
    }
  st_init (IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
  st_delay ("wake", 50000);
  int good = 0;
  for (int round = 0; round < 5; round++)
    {
      st_clone (&st_ring, &ca, 0);
      st_exec (&st_ring, "/bin/sleep", argv_sleep, st_envp, 1);
      st_reset ();
      /* The child runs on CPU 1 (it inherits the submitter's mask), the
	 submitter on CPU 0: it must run while the wake-up spins with
	 interrupts off.  */
      pin (1);
      int n = io_uring_submit (&st_ring);
      pin (0);
      if (n != 2)
	{
	  kt_fail ("submit", "not 2 SQEs");
	  break;
	}
      /* A SIGCHLD waiter cannot see the window: the wake-up runs under
	 the parent's siglock, which dequeuing the signal needs.  The
	 child's state can: it is Z from just before the wake-up.  */
      pid_t child = 0;
      for (int i = 0; i < 2000 && child == 0; i++)
	if (st_children_of (getpid (), &child, 1) != 1)
	  usleep (1000);
      /* (a child that is gone, its chain failed, ends the wait too) */
      char state = 0;
      while (child > 0 && (state = st_state (child)) != 'Z' && state != 0)
	;
      /* the chain's completion, while the wake-up is in its window */
      st_reap (&st_ring, 2, 20);
      int status = st_res[0] > 0 ? st_wait (st_res[0]) : -1;
      good += st_res[0] > 0 && st_res[1] == 0 && status == 0;
    }
  st_delay ("wake", 0);
  KT_EXPECT_EQ ("each chain exec'd and its child exited 0", good, 5);
  st_no_children ("no child left");
  st_kmsg_clean ("no use-after-free: the kernel log is clean");
  return kt_exit ();
}
