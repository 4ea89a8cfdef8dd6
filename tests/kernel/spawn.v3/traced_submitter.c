/* M-3 (review 2026-12): a ptraced submitter is refused.  v2 refused
   only syscall tracing (PTRACE_SYSCALL, single-step, emulation) and let
   a PTRACE_O_TRACEFORK tracer -- gdb always sets it -- get a
   PTRACE_EVENT_FORK from inside task_work for a child with ip = sp = 0
   and an empty mm, which gdb cannot handle (it reads code at pc 0 with
   follow-fork-mode child, removes breakpoints from memory that does not
   exist with detach-on-fork).  v3: any tracer at all means -EOPNOTSUPP
   before a child exists; the C library falls back to clone + exec.

   For each tracer setup -- PTRACE_SEIZE with PTRACE_O_TRACEFORK only;
   with TRACEFORK | TRACEVFORK | TRACECLONE | TRACEEXEC (gdb's set);
   PTRACE_SEIZE with no options; PTRACE_TRACEME -- a traced child of
   this test submits CLONE + EXEC of the tiny "true" and reports the
   clone's result on a pipe.  It must be -EOPNOTSUPP, the EXEC's
   -ECANCELED, the submitter must have no child, and the tracer must
   see no fork event.  A kernel with the defect (TRACEFORK allowed):
   the clone returns a pid and the tracer gets PTRACE_EVENT_FORK --
   FAIL.  After the tracer detaches, the same process's spawn works
   (the refusal is decided at submission, not remembered).  */

#include "st.h"
#include <sys/ptrace.h>

static char prog[] = "/tmp/st-v3-traced-true";

/* The traced process: wait for "go" on R, spawn, report on W
   "clone exec children", then, after a second "go" (the tracer has
   detached), spawn again and report the same way.  */
static int
submitter (int r, int w, bool traceme)
{
  if (traceme)
    {
      ptrace (PTRACE_TRACEME, 0, 0, 0);
      raise (SIGSTOP);
    }
  st_init (0);
  static char *argv[] = { "true", NULL };
  for (int round = 0; round < 2; round++)
    {
      char c;
      if (read (r, &c, 1) != 1)
	return 1;
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&st_ring, &ca, 0);
      st_exec (&st_ring, prog, argv, st_envp, 1);
      st_run (&st_ring, 2);
      int status = st_fate ();
      pid_t pids[4];
      int kids = st_children_of (getpid (), pids, 4);
      dprintf (w, "%d %d %d %d\n", st_res[0], st_res[1], kids, status);
    }
  return 0;
}

static void
one (const char *name, bool traceme, bool seize, long options)
{
  int down[2], up[2];
  if (pipe (down) != 0 || pipe (up) != 0)
    {
      kt_fail (name, "pipe: %m");
      return;
    }
  fflush (stdout);
  pid_t s = fork ();
  if (s == 0)
    {
      close (down[1]);
      close (up[0]);
      _exit (submitter (down[0], up[1], traceme));
    }
  close (down[0]);
  close (up[1]);
  int status;
  if (traceme)
    {
      waitpid (s, &status, __WALL);	/* its SIGSTOP */
      ptrace (PTRACE_SETOPTIONS, s, 0, options);
      ptrace (PTRACE_CONT, s, 0, 0);
    }
  else if (seize && ptrace (PTRACE_SEIZE, s, 0, options) != 0)
    {
      kt_fail (name, "PTRACE_SEIZE: %m");
      kill (s, SIGKILL);
      st_wait (s);
      return;
    }
  if (write (down[1], "g", 1) != 1)
    kt_fail (name, "write: %m");
  /* Be its tracer until it reports: count fork events, pass signals.  */
  int forks = 0;
  char line[128] = "";
  for (int i = 0; i < 3000; i++)
    {
      struct pollfd pfd = { .fd = up[0], .events = POLLIN };
      if (poll (&pfd, 1, 0) == 1)
	break;
      pid_t r = waitpid (-1, &status, __WALL | WNOHANG);
      if (r == s && WIFSTOPPED (status))
	{
	  int ev = status >> 16, sig = WSTOPSIG (status);
	  if (ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK
	      || ev == PTRACE_EVENT_CLONE)
	    forks++;
	  ptrace (PTRACE_CONT, s, 0,
		  ev == 0 && sig != SIGTRAP && sig != SIGSTOP ? sig : 0);
	}
      else if (r > 0 && r != s && WIFSTOPPED (status))
	/* An auto-attached new child (only with the defect).  */
	ptrace (PTRACE_DETACH, r, 0, 0);
      else if (r == 0)
	usleep (10000);
    }
  char n1[160];
  if (st_read_line (up[0], line, sizeof line, 10) < 0)
    kt_fail (name, "no report from the traced submitter");
  else
    {
      int clone = 0, exec = 0, kids = -1, fate = 0;
      sscanf (line, "%d %d %d %d", &clone, &exec, &kids, &fate);
      snprintf (n1, sizeof n1, "%s: clone -EOPNOTSUPP", name);
      KT_EXPECT_EQ (n1, clone, -EOPNOTSUPP);
      snprintf (n1, sizeof n1, "%s: exec -ECANCELED", name);
      KT_EXPECT_EQ (n1, exec, -ECANCELED);
      snprintf (n1, sizeof n1, "%s: no child", name);
      KT_EXPECT_EQ (n1, kids, 0);
      snprintf (n1, sizeof n1, "%s: no fork event", name);
      KT_EXPECT_EQ (n1, forks, 0);
    }
  /* Detach (it runs: stop it first for a ptrace-stop; the detach
     suppresses the SIGSTOP), then let it spawn untraced.  */
  if (seize || traceme)
    {
      kill (s, SIGSTOP);
      waitpid (s, &status, __WALL);
      ptrace (PTRACE_DETACH, s, 0, 0);
      kill (s, SIGCONT);
    }
  if (write (down[1], "g", 1) != 1)
    kt_fail (name, "write: %m");
  if (st_read_line (up[0], line, sizeof line, 20) < 0)
    kt_fail (name, "no second report");
  else
    {
      int clone = 0, exec = -1, kids = -1, fate = -1;
      sscanf (line, "%d %d %d %d", &clone, &exec, &kids, &fate);
      snprintf (n1, sizeof n1, "%s: after the detach the spawn works", name);
      if (clone > 0 && exec == 0 && fate == 0)
	kt_pass (n1);
      else
	kt_fail (n1, "clone %d, exec %d, status %#x", clone, exec, fate);
    }
  close (down[1]);
  close (up[0]);
  status = st_wait (s);
  snprintf (n1, sizeof n1, "%s: the submitter", name);
  ST_EXPECT_STATUS (n1, status, 0);
}

int
main (void)
{
  if (!st_tiny_true (prog))
    return kt_exit ();
  one ("TRACEFORK only", false, true, PTRACE_O_TRACEFORK);
  one ("gdb's options", false, true,
       PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE
       | PTRACE_O_TRACEEXEC);
  one ("seized, no options", false, true, 0);
  one ("PTRACE_TRACEME", true, false, PTRACE_O_TRACEFORK);
  unlink (prog);
  st_no_children ("no child left");
  return kt_exit ();
}
