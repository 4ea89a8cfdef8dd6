/* M-2 (kernel review of v3): "a traced submitter is refused" was checked
   before argv was copied and the child cloned, without CLONE_UNTRACED.
   A tracer that attached with PTRACE_O_TRACEFORK in between got a fork
   event in the submitter's task_work and an auto-attached child with
   an empty mm (v2's M-3 again).

   Deterministic: the delay point before kernel_clone() holds the
   submitter 300 ms.  A helper submits CLONE + EXEC of /bin/true and
   reports the CQEs; 100 ms after it starts the submit, this process
   PTRACE_SEIZEs it with TRACEFORK, TRACEVFORK and TRACECLONE.  Checks:
   no fork event, no auto-attached child; the chain was refused
   (-EOPNOTSUPP) or its child ran untraced and exec'd.  */

#include "st.h"
#include <sys/ptrace.h>

static char *argv_true[] = { "true", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

int
main (void)
{
  if (!st_delay_test_start ("tracer attaches during the clone"))
    return 77;
  int go[2], res[2];
  if (pipe2 (go, O_CLOEXEC) || pipe2 (res, O_CLOEXEC))
    return 1;
  st_delay ("preclone", 300000);
  pid_t h = fork ();
  if (h == 0)
    {
      int r[3] = { INT32_MIN, INT32_MIN, 0 };
      st_init (0);
      st_clone (&st_ring, &ca, 0);
      st_exec (&st_ring, "/bin/true", argv_true, st_envp, 1);
      if (write (go[1], "g", 1) != 1)
	_exit (2);
      st_run (&st_ring, 2);
      r[0] = st_res[0];
      r[1] = st_res[1];
      if (st_res[0] > 0)
	r[2] = st_wait (st_res[0]);
      if (write (res[1], r, sizeof r) != sizeof r)
	_exit (3);
      _exit (0);
    }
  char c;
  if (read (go[0], &c, 1) != 1)
    kt_fail ("helper", "did not start");
  usleep (100000);
  if (ptrace (PTRACE_SEIZE, h, 0,
	      PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE))
    kt_fail ("PTRACE_SEIZE", "%m");
  int events = 0, others = 0, status;
  for (;;)
    {
      pid_t w = waitpid (-1, &status, __WALL);
      if (w < 0)
	break;
      if (w != h)
	{
	  /* a child auto-attached to us: the fork event's */
	  others++;
	  if (WIFSTOPPED (status))
	    ptrace (PTRACE_DETACH, w, 0, 0);
	  continue;
	}
      if (WIFEXITED (status) || WIFSIGNALED (status))
	break;
      if (WIFSTOPPED (status))
	{
	  int ev = status >> 16;
	  int sig = WSTOPSIG (status);
	  if (ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK
	      || ev == PTRACE_EVENT_CLONE)
	    events++;
	  ptrace (PTRACE_CONT, h, 0,
		  ev == 0 && sig != SIGTRAP ? sig : 0);
	}
    }
  st_delay ("preclone", 0);
  KT_EXPECT_EQ ("no fork event in the submitter", events, 0);
  KT_EXPECT_EQ ("no child attached to the tracer", others, 0);
  int r[3];
  if (read (res[0], r, sizeof r) != sizeof r)
    kt_fail ("the chain's results", "none");
  else if (r[0] == -EOPNOTSUPP)
    kt_pass ("the chain was refused: the submitter is traced");
  else if (r[0] > 0 && r[1] == 0 && r[2] == 0)
    kt_pass ("the child ran untraced and exec'd");
  else
    kt_fail ("the chain's results", "clone %d, exec %d, status %#x",
	     r[0], r[1], r[2]);
  st_kmsg_clean ("the kernel log is clean");
  return kt_exit ();
}
