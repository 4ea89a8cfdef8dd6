/* Spawning under a tracer (issue 11, item 7: v1 hung under strace -f).

   - N spawns by a process traced with PTRACE_O_TRACEFORK |
     PTRACE_O_TRACEEXEC (this test is the tracer, no system-call
     tracing).  v2 ran these chains and reported a fork event for a
     child with no code (M-3, gdb); v3 refuses any traced submitter:
     every clone is -EOPNOTSUPP, the EXEC cancelled, no child, and the
     tracer sees no fork, exec or child event; nothing hangs.  (The v2
     expectations -- a fork event per spawn -- are rewritten; see also
     spawn.v3/traced_submitter.c and gdb_fork.c.)
   - M spawns by a process run under `strace -f`: strace traces system
     calls, so every chain is refused (-EOPNOTSUPP on the clone, the
     EXEC cancelled, no child) and nothing hangs.

     traced N M  */

#include "st.h"
#include <sys/ptrace.h>

static char prog[] = "/tmp/st-traced-true";

/* The spawner: N chains; prints "spawned OK of N".  */
static int
spawner (int n, bool traceme)
{
  if (traceme)
    {
      if (ptrace (PTRACE_TRACEME, 0, 0, 0) != 0)
	return 20;
      raise (SIGSTOP);
    }
  st_init (0);
  static char *argv_true[] = { "true", NULL };
  int ok = 0, refused = 0, other = 0, children = 0;
  for (int i = 0; i < n; i++)
    {
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&st_ring, &ca, 0);
      st_exec (&st_ring, prog, argv_true, st_envp, 1);
      int got = st_run (&st_ring, 2);
      if (got == 2 && st_res[0] > 0 && st_res[1] == 0 && st_order[0] == 0)
	{
	  children++;
	  int status = st_wait (st_res[0]);
	  if (status >= 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0)
	    ok++;
	  else
	    other++;
	}
      else if (got == 2 && st_res[0] == -EOPNOTSUPP && st_res[1] == -ECANCELED
	       && st_cflags[0] == 0)
	refused++;
      else
	{
	  if (other++ < 3)
	    printf ("spawner: iteration %d: %d CQEs, clone %d, exec %d\n", i,
		    got, st_res[0], st_res[1]);
	  if (st_res[0] > 0)
	    st_wait (st_res[0]);
	}
    }
  int status;
  bool none_left = waitpid (-1, &status, WNOHANG | __WALL) < 0 && errno == ECHILD;
  printf ("spawned %d refused %d other %d children %d none-left %d of %d\n",
	  ok, refused, other, children, none_left, n);
  fflush (stdout);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 2 && strcmp (argv[1], "--spawner") == 0)
    return spawner (atoi (argv[2]), false);
  int n = argc > 1 ? atoi (argv[1]) : 1000;
  int m = argc > 2 ? atoi (argv[2]) : 20;
  if (!st_tiny_true (prog))
    return kt_exit ();
  char line[256];

  /* 1. Under a TRACEFORK | TRACEEXEC tracer.  */
  int p[2];
  if (pipe (p) != 0)
    kt_fail ("pipe", "%m");
  fflush (stdout);
  pid_t s = fork ();
  if (s == 0)
    {
      dup2 (p[1], 1);
      _exit (spawner (n, true));
    }
  close (p[1]);
  int st, forks = 0, initial = 0, execs = 0, exits = 0, s_status = -1;
  if (waitpid (s, &st, 0) != s || !WIFSTOPPED (st))
    kt_fail ("tracer", "the spawner did not stop");
  ptrace (PTRACE_SETOPTIONS, s, 0,
	  PTRACE_O_TRACEFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL);
  ptrace (PTRACE_CONT, s, 0, 0);
  /* At most 20 s without any event.  */
  for (int idle = 0; idle < 2000;)
    {
      pid_t q = waitpid (-1, &st, __WALL | WNOHANG);
      if (q == 0)
	{
	  usleep (10000);
	  idle++;
	  continue;
	}
      idle = 0;
      if (q < 0)
	break;
      if (q == s)
	{
	  if (WIFEXITED (st) || WIFSIGNALED (st))
	    {
	      s_status = st;
	      break;
	    }
	  if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_FORK << 8)))
	    {
	      forks++;
	      ptrace (PTRACE_CONT, s, 0, 0);
	    }
	  else if (WIFSTOPPED (st))
	    ptrace (PTRACE_CONT, s, 0,
		    WSTOPSIG (st) == SIGTRAP ? 0 : WSTOPSIG (st));
	  continue;
	}
      if (WIFEXITED (st) || WIFSIGNALED (st))
	{
	  exits++;
	  continue;
	}
      if (!WIFSTOPPED (st))
	continue;
      if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
	{
	  execs++;
	  ptrace (PTRACE_CONT, q, 0, 0);
	}
      else if (WSTOPSIG (st) == SIGSTOP)
	{
	  initial++;
	  ptrace (PTRACE_CONT, q, 0, 0);
	}
      else
	ptrace (PTRACE_CONT, q, 0, WSTOPSIG (st));
    }
  if (s_status == -1)
    {
      kt_fail ("traced: no hang", "no event for 20 s: %d forks, %d initial "
	       "stops, %d execs, %d exits", forks, initial, execs, exits);
      kill (s, SIGKILL);
      st_wait (s);
    }
  else
    kt_pass ("traced: no hang");
  printf ("tracer: %d forks, %d initial stops, %d execs, %d exits\n", forks,
	  initial, execs, exits);
  KT_EXPECT_EQ ("traced: no fork event", forks, 0);
  KT_EXPECT_EQ ("traced: no child stop", initial, 0);
  KT_EXPECT_EQ ("traced: no exec event of a child", execs, 0);
  KT_EXPECT_EQ ("traced: no child exit", exits, 0);
  int ok = -1, refused = -1, other = -1, children = -1, none = -1;
  if (st_read_line (p[0], line, sizeof line, 5) > 0)
    sscanf (line, "spawned %d refused %d other %d children %d none-left %d",
	    &ok, &refused, &other, &children, &none);
  printf ("%s\n", line);
  KT_EXPECT_EQ ("traced: every chain refused with EOPNOTSUPP", refused, n);
  KT_EXPECT_EQ ("traced: no child created", children, 0);
  KT_EXPECT_EQ ("traced: nothing left to reap", none, 1);
  close (p[0]);

  /* 2. Under strace -f: every chain refused.  */
  if (access ("/usr/bin/strace", X_OK) != 0)
    kt_unsupported ("strace", "no /usr/bin/strace");
  else
    {
      char self[256], count[16];
      ssize_t len = readlink ("/proc/self/exe", self, sizeof self - 1);
      self[len > 0 ? len : 0] = '\0';
      snprintf (count, sizeof count, "%d", m);
      if (pipe (p) != 0)
	kt_fail ("pipe", "%m");
      fflush (stdout);
      s = fork ();
      if (s == 0)
	{
	  dup2 (p[1], 1);
	  execl ("/usr/bin/strace", "strace", "-f", "-qq", "-o", "/dev/null",
		 self, "--spawner", count, (char *) NULL);
	  _exit (127);
	}
      close (p[1]);
      int status = st_wait_for (s, 0, 120);
      if (status == -1)
	{
	  kt_fail ("strace -f: no hang", "strace still runs after 120 s");
	  kill (s, SIGKILL);
	  st_wait (s);
	}
      else
	kt_pass ("strace -f: no hang");
      ST_EXPECT_STATUS ("strace -f: exit status", status, 0);
      line[0] = '\0';
      ok = refused = children = none = -1;
      if (st_read_line (p[0], line, sizeof line, 5) > 0)
	sscanf (line, "spawned %d refused %d other %d children %d none-left %d",
		&ok, &refused, &other, &children, &none);
      printf ("strace -f: %s\n", line);
      KT_EXPECT_EQ ("strace -f: every chain refused with EOPNOTSUPP", refused, m);
      KT_EXPECT_EQ ("strace -f: no child created", children, 0);
      close (p[0]);
    }
  st_no_children ("no child left");
  unlink (prog);
  return kt_exit ();
}
