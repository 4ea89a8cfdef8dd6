/* A spawner that execs or exits while its child's chain blocks (issue
   11, item 1).  In each case a spawner process S (a child of this test,
   which is a child subreaper) has two threads; one of them submits a
   chain CLONE + SPAWN_OPEN of a FIFO + EXEC of a tiny program, and the
   child blocks in the open.  Then:

     exec-other   S's other thread (not the submitter) execs;
     exec-self    the submitting thread itself execs;
     exit         S exits (exit_group) with the child still blocked;
     thread-exit  the submitting thread alone exits;

   and in each case the exec, the exit or the thread's exit must return
   (v1's io_uring_cancel_generic() waited for the chain's requests, so
   the exec or exit hung until the child was done), and the ring of S,
   closed by the exec or the exit, must be torn down (no io_uring exit
   work stays busy: v1's io_ring_exit_work() waited for the child and
   WARNed after 5 minutes).

   v3 changed what happens to the child: a chain is cancelled "by every
   path that cancels requests (ring exit, the submitter's exit or
   exec)", and cancelling a chain whose child has not exec'd sends the
   child SIGKILL.  v2 let the child go on (this test checked it still
   blocked and then exec'd when released); v3's child dies of SIGKILL
   in every mode, and the thread-exit CQEs carry the pid (the clone's)
   and -ECANCELED (the EXEC's; the interrupted OPEN -ECANCELED or
   -EINTR).  Afterwards nothing leaks: no child left, no fd; with
   --kmemleak (KT_BIG=1 on the debug kernel) kmemleak finds nothing.

     exec_exit [--kmemleak]  */

#include "st.h"
#include <pthread.h>
#include <sys/prctl.h>

static char fifo[] = "/tmp/st-exec-exit-fifo";
static char prog[] = "/tmp/st-exec-exit-true";
static struct io_uring ring;
static int report = -1;		/* S -> test */
static int go[2];		/* T -> S main: submitted */
static int found[2];		/* S main -> T: the child was seen */
static pthread_t submitter;

static void
say (const char *fmt, ...)
{
  char buf[128];
  va_list ap;
  va_start (ap, fmt);
  int n = vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  if (write (report, buf, n) != n)
    _exit (3);
}

/* The chain whose child blocks.  */
static void
submit_chain (void)
{
  static char *argv_true[] = { "true", NULL };
  struct clone_args ca = { .exit_signal = SIGCHLD };
  if (io_uring_queue_init (8, &ring, 0) < 0)
    _exit (4);
  st_clone (&ring, &ca, 0);
  st_open (&ring, fifo, O_RDONLY, 5, 1);
  st_exec (&ring, prog, argv_true, st_envp, 2);
  if (io_uring_submit (&ring) != 3)
    _exit (5);
}

/* The image S execs into: report, then reap the child and report its
   status.  */
static int
after_exec (int fd)
{
  report = fd;
  say ("exec'd\n");
  int status;
  pid_t r = waitpid (-1, &status, 0);
  say ("reaped %d %d\n", (int) r, r > 0 ? status : -1);
  return 0;
}

static void
exec_self (void)
{
  char fd[16];
  snprintf (fd, sizeof fd, "%d", report);
  execl ("/proc/self/exe", "exec_exit", "--after-exec", fd, (char *) NULL);
  _exit (6);
}

static const char *mode;

static void *
thread_main (void *arg)
{
  (void) arg;
  if (strcmp (mode, "exec-self") == 0)
    {
      /* The main thread submits and execs; this one only exists.  */
      for (;;)
	pause ();
    }
  submit_chain ();
  if (write (go[1], "s", 1) != 1)
    _exit (7);
  if (strcmp (mode, "thread-exit") == 0)
    {
      /* The exit cancels the chain: not before the child was seen
	 blocked.  */
      char c;
      if (read (found[0], &c, 1) != 1)
	_exit (12);
      return NULL;
    }
  /* Wait to be killed by the exec or the exit.  */
  for (;;)
    pause ();
  return NULL;
}

/* The spawner S.  */
static void
spawner (void)
{
  if (pipe (go) != 0 || pipe (found) != 0)
    _exit (8);
  if (pthread_create (&submitter, NULL, thread_main, NULL) != 0)
    _exit (9);
  if (strcmp (mode, "exec-self") == 0)
    submit_chain ();
  else
    {
      char c;
      if (read (go[0], &c, 1) != 1)
	_exit (10);
    }
  pid_t child = st_find_child (getpid (), "S");
  say ("child %d\n", (int) child);
  if (strcmp (mode, "exec-other") == 0 || strcmp (mode, "exec-self") == 0)
    exec_self ();
  if (strcmp (mode, "exit") == 0)
    exit (0);
  /* thread-exit: the submitter is gone once joined.  */
  if (write (found[1], "f", 1) != 1)
    _exit (13);
  pthread_join (submitter, NULL);
  say ("joined\n");
  /* Its CQEs: cancelled at once, or when the chain is over.  */
  st_reset ();
  int got = st_reap (&ring, 3, 30);
  say ("cqes %d %d %d %d\n", got, st_res[0], st_res[1], st_res[2]);
  int status;
  pid_t r = waitpid (child, &status, 0);
  say ("reaped %d %d\n", (int) r, r > 0 ? status : -1);
  exit (0);
}

/* Wait (at most 20 s) until CHILD is a zombie or gone; its state.  */
static char
wait_dead (pid_t child)
{
  char s = st_state (child);
  for (int i = 0; i < 2000 && s != 0 && s != 'Z'; i++)
    {
      usleep (10000);
      s = st_state (child);
    }
  return s;
}

/* One scenario; KILL: kill the child instead of releasing it.  */
static void
scenario (const char *md, bool kill_child)
{
  char name[160], line[128], m[64];
  mode = md;
  snprintf (m, sizeof m, "%s, %s", md, kill_child ? "killed" : "released");
  int p[2];
  if (pipe (p) != 0)
    {
      kt_fail (m, "pipe: %m");
      return;
    }
  pid_t s = fork ();
  if (s == 0)
    {
      close (p[0]);
      report = p[1];
      spawner ();
      _exit (11);
    }
  close (p[1]);
  int child = 0;
  if (st_read_line (p[0], line, sizeof line, 30) < 0
      || sscanf (line, "child %d", &child) != 1 || child <= 0)
    {
      snprintf (name, sizeof name, "%s: the child blocks", m);
      kt_fail (name, "spawner said \"%s\"", line);
      kill (s, SIGKILL);
      st_wait (s);
      close (p[0]);
      return;
    }

  /* The exec, exit or thread exit returns with the child blocked.  */
  bool returned = false;
  if (strcmp (md, "exit") == 0)
    {
      int status = st_wait_for (s, 0, 20);
      returned = status >= 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0;
      s = 0;
    }
  else
    {
      int n = st_read_line (p[0], line, sizeof line, 20);
      returned = n > 0 && strcmp (line, strcmp (md, "thread-exit") == 0
				  ? "joined" : "exec'd") == 0;
    }
  snprintf (name, sizeof name, "%s: returns while the child blocks", m);
  if (returned)
    kt_pass (name);
  else
    kt_fail (name, "no sign of the spawner (\"%s\"), child state %c",
	     line, st_state (child));
  snprintf (name, sizeof name, "%s: the chain is cancelled: the child "
	    "is killed", m);
  {
    char cs = wait_dead (child);
    if (cs == 'Z' || cs == 0)
      kt_pass (name);
    else
      kt_fail (name, "child state %c", cs);
  }
  if (strcmp (md, "thread-exit") != 0)
    {
      snprintf (name, sizeof name, "%s: the ring is torn down meanwhile", m);
      if (st_ring_exit_done ())
	kt_pass (name);
      else
	kt_fail (name, "io_uring's exit work still runs, child state %c",
		 st_state (child));
    }

  /* Release or kill the child; a child the cancel killed has no open
     to release (st_fifo_writer would wait for a reader in vain).  */
  char cs = st_state (child);
  if (kill_child)
    kill (child, SIGKILL);
  else if (cs != 0 && cs != 'Z')
    {
      int w = st_fifo_writer (fifo);
      if (w >= 0)
	close (w);
    }
  int status = -1;
  if (s == 0)
    {
      /* exit: the child is ours now (subreaper).  */
      status = st_wait (child);
    }
  else
    {
      if (strcmp (md, "thread-exit") == 0)
	{
	  int got, r0, r1, r2;
	  st_read_line (p[0], line, sizeof line, 40);
	  if (sscanf (line, "cqes %d %d %d %d", &got, &r0, &r1, &r2) == 4)
	    {
	      snprintf (name, sizeof name, "%s: the chain's CQEs arrive", m);
	      KT_EXPECT_EQ (name, got, 3);
	      /* Either the chain's outcome or a cancellation.  */
	      bool cancelled = r0 == child && r2 == -ECANCELED
			       && (r1 == -ECANCELED || r1 == -EINTR);
	      bool outcome = false;
	      snprintf (name, sizeof name, "%s: CQEs", m);
	      if (cancelled || outcome)
		kt_pass (name);
	      else
		kt_fail (name, "clone %d open %d exec %d", r0, r1, r2);
	    }
	  else
	    kt_fail (m, "spawner said \"%s\"", line);
	}
      int r;
      if (st_read_line (p[0], line, sizeof line, 30) > 0
	  && sscanf (line, "reaped %d %d", &r, &status) == 2 && r == child)
	;
      else
	status = -1;
      int sst = st_wait (s);
      snprintf (name, sizeof name, "%s: the spawner ends", m);
      ST_EXPECT_STATUS (name, sst, 0);
    }
  (void) kill_child;
  snprintf (name, sizeof name, "%s: the child dies of SIGKILL", m);
  KT_EXPECT_EQ (name, status >= 0 && WIFSIGNALED (status)
		&& WTERMSIG (status) == SIGKILL, 1);
  close (p[0]);
}

int
main (int argc, char **argv)
{
  if (argc > 2 && strcmp (argv[1], "--after-exec") == 0)
    return after_exec (atoi (argv[2]));
  bool kmemleak = argc > 1 && strcmp (argv[1], "--kmemleak") == 0;
  if (!st_mkfifo (fifo) || !st_tiny_true (prog))
    return kt_exit ();
  if (prctl (PR_SET_CHILD_SUBREAPER, 1) != 0)
    kt_fail ("subreaper", "%m");
  if (kmemleak)
    st_kmemleak_clear ();
  int fds = st_count_fds ();

  static const char *modes[] = { "exec-other", "exec-self", "exit", "thread-exit" };
  for (unsigned i = 0; i < 4; i++)
    {
      scenario (modes[i], false);
      scenario (modes[i], true);
    }

  KT_EXPECT_EQ ("no fd leaked", st_count_fds (), fds);
  st_no_children ("no child left");
  if (kmemleak)
    st_kmemleak_check ("kmemleak finds nothing");
  unlink (fifo);
  unlink (prog);
  return kt_exit ();
}
