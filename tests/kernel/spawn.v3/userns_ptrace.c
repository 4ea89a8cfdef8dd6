/* M-1 (review 2026-12, security): the chain child's ptrace and /proc
   access checks use the user namespace of its *parent's* mm, as a fork
   child's do.  v2's empty mm took current_user_ns(): for a
   non-dumpable process that did unshare(CLONE_NEWUSER) after its exec
   (a sandboxing browser or agent), the chain child's mm belonged to
   the new namespace, which a same-uid process outside owns -- it holds
   CAP_SYS_PTRACE there and could attach to the child during its chain
   and read its descriptors through /proc/PID/fd.  A fork child of the
   same process keeps the old mm's namespace and is refused.

   The test runs as nobody (65534) after setting up as root.  A victim
   process (also 65534) sets PR_SET_DUMPABLE 0, unshares a user
   namespace, then makes two children blocked in a FIFO open: a chain
   child (CLONE + SPAWN_OPEN of the FIFO + EXEC) and, for comparison, a
   fork child.  The test process -- same uid, outside the namespace,
   the children's grandparent (so Yama's ptrace_scope 1 allows it) --
   tries PTRACE_ATTACH and opendir (/proc/PID/fd) on each: both must be
   refused (EPERM / EACCES) for the chain child exactly as for the fork
   child.  On a kernel with the defect the chain child's attach
   succeeds: FAIL "chain child: PTRACE_ATTACH refused".

   UNSUPPORTED: not root to start with, unprivileged user namespaces
   off, Yama ptrace_scope 2 or 3 (attach refused for every reason), or
   the fork child attachable (the comparison does not hold here).  */

#include "st.h"
#include <grp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>

static char fifo[] = "/tmp/st-v3-userns-fifo";
static char prog[] = "/tmp/st-v3-userns-true";

/* The victim: non-dumpable, in a new user namespace; reports the pids
   of its chain child and its fork child on W ("chain fork\n"), or
   "unshare errno\n"; then waits for its stdin (a pipe) to close.  */
static int
victim (int w, int r)
{
  prctl (PR_SET_DUMPABLE, 0, 0, 0, 0);
  if (unshare (CLONE_NEWUSER) != 0)
    {
      dprintf (w, "unshare %d\n", errno);
      return 0;
    }
  pid_t f = fork ();
  if (f == 0)
    {
      int fd = open (fifo, O_RDONLY);
      _exit (fd < 0);
    }
  st_init (0);
  struct clone_args ca = { .exit_signal = SIGCHLD };
  static char *argv[] = { "true", NULL };
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, fifo, O_RDONLY, 10, 1);
  st_exec (&st_ring, prog, argv, st_envp, 2);
  st_reset ();
  io_uring_submit (&st_ring);
  pid_t c = 0;
  for (int i = 0; i < 2000 && c == 0; i++)
    {
      pid_t pids[4];
      int n = st_children_of (getpid (), pids, 4);
      for (int j = 0; j < n; j++)
	if (pids[j] != f && st_state (pids[j]) == 'S')
	  c = pids[j];
      if (c == 0)
	usleep (10000);
    }
  dprintf (w, "%d %d\n", (int) c, (int) f);
  char b;
  while (read (r, &b, 1) > 0)
    ;
  st_reap (&st_ring, 3, 20);
  st_wait (f);
  if (c > 0)
    st_wait (c);
  return 0;
}

/* Try to attach to PID and to read its /proc/PID/fd: 0 if both are
   refused, else a description into WHY.  */
static void
probe (const char *who, pid_t pid, bool *attached, bool *fds)
{
  *attached = ptrace (PTRACE_ATTACH, pid, 0, 0) == 0;
  int err = errno;
  if (*attached)
    {
      waitpid (pid, NULL, __WALL);
      ptrace (PTRACE_DETACH, pid, 0, 0);
    }
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/fd", (int) pid);
  DIR *d = opendir (path);
  *fds = d != NULL;
  if (d != NULL)
    closedir (d);
  printf ("%s %d: attach %s, /proc/PID/fd %s\n", who, (int) pid,
	  *attached ? "allowed" : strerror (err),
	  *fds ? "readable" : "refused");
}

int
main (void)
{
  if (geteuid () != 0)
    {
      kt_unsupported ("userns ptrace", "must start as root");
      return 77;
    }
  char scope[16];
  if (st_read_file ("/proc/sys/kernel/yama/ptrace_scope", scope,
		    sizeof scope) > 0 && atoi (scope) >= 2)
    {
      kt_unsupported ("userns ptrace", "yama ptrace_scope %s", scope);
      return 77;
    }
  if (!st_mkfifo (fifo) || !st_tiny_true (prog))
    return kt_exit ();
  chmod (fifo, 0666);
  fflush (stdout);
  pid_t t = fork ();
  if (t == 0)
    {
      if (setgroups (0, NULL) != 0 || setresgid (65534, 65534, 65534) != 0
	  || setresuid (65534, 65534, 65534) != 0)
	{
	  kt_fail ("become nobody", "%m");
	  _exit (1);
	}
      int up[2], down[2];
      if (pipe (up) != 0 || pipe (down) != 0)
	_exit (1);
      pid_t v = fork ();
      if (v == 0)
	{
	  close (up[0]);
	  close (down[1]);
	  _exit (victim (up[1], down[0]));
	}
      close (up[1]);
      close (down[0]);
      char line[64];
      int rc = 0;
      if (st_read_line (up[0], line, sizeof line, 30) < 0)
	{
	  kt_fail ("victim", "no report");
	  rc = 1;
	}
      else if (strncmp (line, "unshare", 7) == 0)
	{
	  kt_unsupported ("userns ptrace", "unshare (CLONE_NEWUSER): %s",
			  strerror (atoi (line + 8)));
	}
      else
	{
	  int c = 0, f = 0;
	  sscanf (line, "%d %d", &c, &f);
	  if (c <= 0)
	    {
	      kt_fail ("chain child blocked in the FIFO open", "none");
	      rc = 1;
	    }
	  else
	    {
	      bool fa, ff, ca, cf;
	      probe ("fork child", f, &fa, &ff);
	      probe ("chain child", c, &ca, &cf);
	      if (fa || ff)
		kt_unsupported ("userns ptrace", "the fork child is "
				"accessible too: no comparison here");
	      else
		{
		  KT_EXPECT_EQ ("chain child: PTRACE_ATTACH refused", ca, 0);
		  KT_EXPECT_EQ ("chain child: /proc/PID/fd refused", cf, 0);
		}
	    }
	  /* Release both children.  */
	  for (int i = 0; i < 2; i++)
	    {
	      int w = st_fifo_writer (fifo);
	      if (w >= 0)
		close (w);
	      usleep (100000);
	    }
	}
      close (down[1]);
      int status = st_wait (v);
      if (status != 0)
	kt_fail ("victim", "status %#x", status);
      _exit (rc || kt_failures ? 1 : 0);
    }
  int status = st_wait_for (t, 0, 120);
  unlink (fifo);
  unlink (prog);
  if (status < 0)
    kill (t, SIGKILL);
  return status >= 0 && WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}
