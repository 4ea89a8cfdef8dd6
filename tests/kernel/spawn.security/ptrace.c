/* ptrace (issue 10): a tracer that only asks for fork and exec events
   gets them from a chain; one that watches system calls makes the chain
   refused, so that the spawner uses system calls it can see.

   - PTRACE_O_TRACEFORK | TRACEEXEC, resumed with PTRACE_CONT: the
     tracer sees PTRACE_EVENT_FORK in the spawner (its message is the
     pid the clone's CQE then carries: the spawn went through the
     chain), the child's initial stop, PTRACE_EVENT_EXEC in the child,
     and the child's exec completes (it exits 0).
   - The same with a chain that fails (exec ENOENT): a traced child does
     not vanish; it exits with status 127, the clone's CQE has its pid
     and no IORING_CQE_F_SPAWN_GONE, and the spawner reaps it.
   - PTRACE_SYSCALL: the CLONE fails with -EOPNOTSUPP, no child, no fork
     event.
   - PTRACE_SINGLESTEP from io_uring_enter's entry stop (the call runs
     single-stepped, without system-call tracing): -EOPNOTSUPP.
   - Syscall user dispatch switched on (selector "allow"): -EOPNOTSUPP.  */

#include "st.h"
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#ifndef PR_SET_SYSCALL_USER_DISPATCH
# define PR_SET_SYSCALL_USER_DISPATCH 59
# define PR_SYS_DISPATCH_OFF 0
# define PR_SYS_DISPATCH_ON 1
#endif
#ifndef SYSCALL_DISPATCH_FILTER_ALLOW
# define SYSCALL_DISPATCH_FILTER_ALLOW 0
#endif

static char prog[] = "/tmp/st-ptrace-true";
static char *argv_true[] = { "true", NULL };

/* The spawner: one chain, exec PATH; reports on fd 1 then exits 0.  */
static void
spawner (const char *path)
{
  if (ptrace (PTRACE_TRACEME, 0, 0, 0) != 0)
    _exit (20);
  raise (SIGSTOP);
  st_init (0);
  struct clone_args ca = { .exit_signal = SIGCHLD };
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, path, argv_true, st_envp, 1);
  int got = st_run (&st_ring, 2);
  int status = st_res[0] > 0 ? st_wait (st_res[0]) : -1;
  int none = waitpid (-1, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD;
  printf ("got %d clone %d exec %d cflags %u status %d none %d\n", got,
	  st_res[0], st_res[1], st_cflags[0], status, none);
  fflush (stdout);
  _exit (0);
}

struct trace_result
{
  int forks, initial, execs, exits, singlesteps;
  pid_t fork_pid;
  int got, clone, exec, status, none;
  unsigned cflags;
};

/* Run a spawner of PATH under a tracer that resumes it with REQUEST
   (PTRACE_CONT or PTRACE_SYSCALL); STEP: resume io_uring_enter's entry
   stop with PTRACE_SINGLESTEP.  */
static struct trace_result
trace (const char *path, int request, bool step)
{
  struct trace_result t = { .clone = INT32_MIN, .exec = INT32_MIN, .status = -1 };
  int p[2];
  if (pipe (p) != 0)
    return t;
  fflush (stdout);
  pid_t s = fork ();
  if (s == 0)
    {
      dup2 (p[1], 1);
      spawner (path);
    }
  close (p[1]);
  int st;
  waitpid (s, &st, 0);
  ptrace (PTRACE_SETOPTIONS, s, 0, PTRACE_O_TRACEFORK | PTRACE_O_TRACEEXEC
	  | PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD);
  ptrace (request, s, 0, 0);
  bool stepped = false;
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
	    break;
	  if (!WIFSTOPPED (st))
	    continue;
	  int sig = WSTOPSIG (st);
	  int req = request;
	  if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_FORK << 8)))
	    {
	      unsigned long msg = 0;
	      ptrace (PTRACE_GETEVENTMSG, s, 0, &msg);
	      t.fork_pid = msg;
	      t.forks++;
	      sig = 0;
	    }
	  else if (sig == (SIGTRAP | 0x80))
	    {
	      /* A system-call stop; io_uring_enter's entry: step it.  */
	      struct user_regs_struct regs;
	      ptrace (PTRACE_GETREGS, s, 0, &regs);
	      if (step && !stepped && regs.orig_rax == SYS_io_uring_enter
		  && regs.rax == (unsigned long) -ENOSYS)
		{
		  stepped = true;
		  req = PTRACE_SINGLESTEP;
		}
	      sig = 0;
	    }
	  else if (sig == SIGTRAP)
	    {
	      /* The single step's trap: on with system calls traced.  */
	      t.singlesteps++;
	      sig = 0;
	    }
	  else if (sig == SIGSTOP)
	    sig = 0;
	  ptrace (req, s, 0, sig);
	  continue;
	}
      if (WIFEXITED (st) || WIFSIGNALED (st))
	{
	  t.exits++;
	  continue;
	}
      if (!WIFSTOPPED (st))
	continue;
      if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
	t.execs++;
      else if (WSTOPSIG (st) == SIGSTOP && t.initial == 0)
	t.initial++;
      ptrace (PTRACE_CONT, q, 0, 0);
    }
  char line[256] = "";
  if (st_read_line (p[0], line, sizeof line, 5) > 0)
    sscanf (line, "got %d clone %d exec %d cflags %u status %d none %d",
	    &t.got, &t.clone, &t.exec, &t.cflags, &t.status, &t.none);
  printf ("spawner: %s\n", line);
  close (p[0]);
  kill (s, SIGKILL);
  st_wait (s);
  return t;
}

int
main (void)
{
  if (!st_tiny_true (prog))
    return kt_exit ();

  /* 1. TRACEFORK | TRACEEXEC, PTRACE_CONT.  */
  struct trace_result t = trace (prog, PTRACE_CONT, false);
  KT_EXPECT_EQ ("events: the clone went through the chain", t.clone > 0, 1);
  KT_EXPECT_EQ ("events: PTRACE_EVENT_FORK in the spawner", t.forks, 1);
  KT_EXPECT_EQ ("events: the fork event's pid is the CQE's", t.fork_pid, t.clone);
  KT_EXPECT_EQ ("events: the child's initial stop", t.initial, 1);
  KT_EXPECT_EQ ("events: PTRACE_EVENT_EXEC in the child", t.execs, 1);
  KT_EXPECT_EQ ("events: exec res", t.exec, 0);
  ST_EXPECT_STATUS ("events: the child's exec completes", t.status, 0);

  /* 2. A traced child whose chain fails is an ordinary child.  */
  t = trace ("/nonexistent/true", PTRACE_CONT, false);
  KT_EXPECT_EQ ("traced, failed: clone res is the pid", t.clone > 0
		&& t.clone == t.fork_pid, 1);
  KT_EXPECT_EQ ("traced, failed: exec ENOENT", t.exec, -ENOENT);
  KT_EXPECT_EQ ("traced, failed: no GONE flag", t.cflags & IORING_CQE_F_SPAWN_GONE, 0);
  ST_EXPECT_STATUS ("traced, failed: the child exits 127", t.status, 127);
  KT_EXPECT_EQ ("traced, failed: no exec event", t.execs, 0);

  /* 3. PTRACE_SYSCALL: refused.  */
  t = trace (prog, PTRACE_SYSCALL, false);
  KT_EXPECT_EQ ("PTRACE_SYSCALL: CLONE refused", t.clone, -EOPNOTSUPP);
  KT_EXPECT_EQ ("PTRACE_SYSCALL: exec cancelled", t.exec, -ECANCELED);
  KT_EXPECT_EQ ("PTRACE_SYSCALL: no fork event", t.forks, 0);
  KT_EXPECT_EQ ("PTRACE_SYSCALL: no child", t.none, 1);

  /* 4. Single-stepped io_uring_enter: refused.  */
  t = trace (prog, PTRACE_SYSCALL, true);
  KT_EXPECT_EQ ("single-step: the step trapped", t.singlesteps >= 1, 1);
  KT_EXPECT_EQ ("single-step: CLONE refused", t.clone, -EOPNOTSUPP);
  KT_EXPECT_EQ ("single-step: no child", t.none, 1);

  /* 5. Syscall user dispatch: refused.  */
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      static volatile char selector = SYSCALL_DISPATCH_FILTER_ALLOW;
      st_init (0);
      if (prctl (PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0, 0,
		 &selector) != 0)
	_exit (2);
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&st_ring, &ca, 0);
      st_exec (&st_ring, prog, argv_true, st_envp, 1);
      st_run (&st_ring, 2);
      int res = st_res[0];
      prctl (PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, 0);
      if (res > 0)
	st_wait (res);
      _exit (res == -EOPNOTSUPP ? 0 : 1);
    }
  int status = st_wait (c);
  if (status >= 0 && WIFEXITED (status) && WEXITSTATUS (status) == 2)
    kt_unsupported ("syscall user dispatch", "prctl failed");
  else
    ST_EXPECT_STATUS ("syscall user dispatch: CLONE refused", status, 0);

  st_no_children ("no child left");
  unlink (prog);
  return kt_exit ();
}
