/* ptrace (issue 10), v3: any tracer makes the chain refused (M-3:
   v2 let a TRACEFORK-only tracer get a fork event for a child with no
   code), so that the spawner uses system calls the tracer can see.

   - PTRACE_O_TRACEFORK | TRACEEXEC, resumed with PTRACE_CONT: v2 ran
     the chain and the tracer saw PTRACE_EVENT_FORK; v3: the CLONE fails
     with -EOPNOTSUPP, the EXEC is cancelled, no fork event, no child.
   - A chain child that gets traced later (PTRACE_SEIZE while it blocks
     in its FIFO open) and whose chain then fails (exec ENOENT) does not
     vanish: it dies visibly (v2: exit 127; any exit or fatal signal is
     accepted, the cover letter says only "dies visibly"), the clone's
     CQE has its pid and no IORING_CQE_F_SPAWN_GONE, and the spawner
     reaps it.  (v2 made this case with a traced submitter, which v3
     refuses.)
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

  /* 1. TRACEFORK | TRACEEXEC, PTRACE_CONT: refused in v3.  */
  struct trace_result t = trace (prog, PTRACE_CONT, false);
  KT_EXPECT_EQ ("TRACEFORK: CLONE refused", t.clone, -EOPNOTSUPP);
  KT_EXPECT_EQ ("TRACEFORK: exec cancelled", t.exec, -ECANCELED);
  KT_EXPECT_EQ ("TRACEFORK: no fork event", t.forks, 0);
  KT_EXPECT_EQ ("TRACEFORK: no child stop", t.initial, 0);
  KT_EXPECT_EQ ("TRACEFORK: no child", t.none, 1);

  /* 2. A child traced later, whose chain fails, dies visibly.  */
  static char fifo[] = "/tmp/st-ptrace-fifo";
  if (st_mkfifo (fifo))
    {
      st_init (0);
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&st_ring, &ca, 0);
      st_open (&st_ring, fifo, O_RDONLY, 5, 1);
      st_exec (&st_ring, "/nonexistent/true", argv_true, st_envp, 2);
      st_reset ();
      io_uring_submit (&st_ring);
      pid_t child = st_find_child (getpid (), "S");
      if (child == 0 || ptrace (PTRACE_SEIZE, child, 0, 0) != 0)
	kt_fail ("attached later", "no child to seize (%d): %m", (int) child);
      else
	{
	  int w = st_fifo_writer (fifo);
	  int status = -1;
	  for (int i = 0; i < 1000; i++)
	    {
	      pid_t r = waitpid (child, &status, __WALL);
	      if (r != child)
		break;
	      if (WIFEXITED (status) || WIFSIGNALED (status))
		break;
	      int sig = WSTOPSIG (status);
	      ptrace (PTRACE_CONT, child, 0,
		      (status >> 16) == 0 && sig != SIGTRAP ? sig : 0);
	    }
	  if (w >= 0)
	    close (w);
	  st_reap (&st_ring, 3, 20);
	  printf ("attached later: status %#x\n", status);
	  KT_EXPECT_EQ ("attached later, failed: the child dies visibly",
			WIFEXITED (status) || WIFSIGNALED (status), 1);
	  KT_EXPECT_EQ ("attached later, failed: the clone's CQE has the pid",
			st_res[0], child);
	  KT_EXPECT_EQ ("attached later, failed: exec ENOENT", st_res[2],
			-ENOENT);
	  KT_EXPECT_EQ ("attached later, failed: no GONE flag",
			st_cflags[0] & IORING_CQE_F_SPAWN_GONE, 0);
	}
      io_uring_queue_exit (&st_ring);
      unlink (fifo);
    }

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
