/* IORING_OP_CLONE + IORING_OP_EXEC (ABI 3).

   - Success: the clone's CQE carries the child's pid and comes first,
     then the EXEC's, as a link chain's, once the exec has happened; SIGCHLD arrives,
     waitpid reaps the child, the new program runs with argv/envp.
   - CQE timing: while the child blocks in its chain (a FIFO open) no
     CQE of the chain has been posted (v1 posted the clone's at once);
     the child's mm is new and empty meanwhile (v1 shared the
     parent's); the CQEs come when the open is met.
   - A chain that fails by itself (each exec errno): the clone's CQE
     has the pid and IORING_CQE_F_SPAWN_GONE, the child is gone at once
     (no zombie, waitpid -ECHILD without waiting) and sent no exit
     signal, whatever exit_signal was (v1: a zombie exiting 127 and a
     SIGCHLD).
   - v3: argument errors never make a child.  The path is copied at
     the EXEC's prep (delayed_getname: EFAULT, ENAMETOOLONG, ENOENT for
     ""), argv/envp when the clone is issued, before the child exists
     (EFAULT, E2BIG): the chain fails with no child, the error on the
     EXEC's or the clone's CQE (v2 reported them from a child that was
     then gone; which of the two CQEs carries it is the kernel's
     choice, both are accepted, the other must be -ECANCELED or the
     same error).
   - A child killed in its chain is an ordinary child: no GONE flag, a
     zombie with WIFSIGNALED by the time the CQEs arrive, a SIGCHLD.
   - PATH search: IORING_EXEC_SEARCH goes on after ENOENT/EACCES/ENOTDIR
     and stops at other errors; hard links go on after any error; the
     first successful exec cancels the rest; a soft-linked failure
     cancels the rest.
   - CLONE_PIDFD; exit_signal 0, which a successful exec resets to
     SIGCHLD as it does after clone3 (the cover letter says it does not:
     it does, in de_thread ()).  */

#include "st.h"
#include <poll.h>
#include <sys/stat.h>

static char *envp[] = { "ST_VAR=hello", NULL };
static sigset_t chld;

/* Spawn PATH ARGV through a CLONE + EXEC chain (with exit_signal SIG);
   return the clone's result.  */
static int
spawn_sig (const char *path, char *const argv[], int sig,
	   unsigned int exec_flags)
{
  struct clone_args ca = { .exit_signal = sig };
  st_clone (&st_ring, &ca, 0);
  ST_SPAWN_FLAGS (st_exec (&st_ring, path, argv, envp, 1)) = exec_flags;
  if (st_run (&st_ring, 2) != 2)
    kt_fail ("spawn", "missing CQEs");
  return st_res[0];
}

/* No signal of SET is pending (they are blocked).  */
static void
expect_no_signal (const char *name, int sig)
{
  sigset_t pend;
  sigpending (&pend);
  if (sigismember (&pend, sig))
    kt_fail (name, "signal %d is pending", sig);
  else
    kt_pass (name);
}

static void
exec_error (const char *name, const char *path, char *const argv[], int err)
{
  char n[128];
  int res = spawn_sig (path, argv, SIGCHLD, 0);
  snprintf (n, sizeof n, "%s: clone res is a pid", name);
  if (res > 0)
    kt_pass (n);
  else
    kt_fail (n, "clone res %d", res);
  snprintf (n, sizeof n, "%s: exec res", name);
  KT_EXPECT_EQ (n, st_res[1], -err);
  snprintf (n, sizeof n, "%s: the CQEs in link order", name);
  ST_EXPECT_LINK_ORDER (n, 2);
  snprintf (n, sizeof n, "%s: child gone, no zombie", name);
  ST_EXPECT_GONE (n, st_fate ());
  snprintf (n, sizeof n, "%s: no SIGCHLD", name);
  expect_no_signal (n, SIGCHLD);
}

/* An argument error: no child; one of the two CQEs is -ERR, the other
   -ERR or -ECANCELED.  */
static void
submit_error (const char *name, const char *path, char *const argv[], int err)
{
  char n[128];
  int res = spawn_sig (path, argv, SIGCHLD, 0);
  snprintf (n, sizeof n, "%s: no child (clone res)", name);
  if (res < 0)
    kt_pass (n);
  else
    {
      kt_fail (n, "clone res %d", res);
      st_fate ();
    }
  snprintf (n, sizeof n, "%s: the error", name);
  bool ok = (st_res[0] == -err || st_res[1] == -err)
	    && (st_res[0] == -err || st_res[0] == -ECANCELED)
	    && (st_res[1] == -err || st_res[1] == -ECANCELED);
  if (ok)
    kt_pass (n);
  else
    kt_fail (n, "clone %d, exec %d, expected %d on one of them", st_res[0],
	     st_res[1], -err);
  snprintf (n, sizeof n, "%s: no child left", name);
  st_no_children (n);
  snprintf (n, sizeof n, "%s: no SIGCHLD", name);
  expect_no_signal (n, SIGCHLD);
}

int
main (void)
{
  st_init (0);
  char tmpl[] = "/tmp/st-exec-XXXXXX";
  if (mkdtemp (tmpl) == NULL)
    {
      kt_fail ("mkdtemp", "%m");
      return kt_exit ();
    }

  /* SIGCHLD (and SIGUSR1, an exit signal below) are collected with
     sigtimedwait and looked for with sigpending.  */
  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  sigaddset (&chld, SIGUSR1);
  sigprocmask (SIG_BLOCK, &chld, NULL);
  siginfo_t si;
  struct timespec ts = { .tv_sec = 20 };
  struct timespec zero = { 0 };

  /* 1. Success: the program runs with argv and envp, exit status 7.  */
  char script[256];
  snprintf (script, sizeof script,
	    "test \"$0 $1 $ST_VAR\" = \"sh arg1 hello\" && echo $$ > %s/pid"
	    " && exit 7", tmpl);
  char *argv_sh[] = { "sh", "-c", script, "sh", "arg1", NULL };
  /* "sh -c script sh arg1": $0 = sh, $1 = arg1.  */
  pid_t pid = spawn_sig ("/bin/sh", argv_sh, SIGCHLD, 0);
  if (pid > 0)
    kt_pass ("clone returns a pid");
  else
    kt_fail ("clone returns a pid", "res %d", st_res[0]);
  KT_EXPECT_EQ ("exec res 0", st_res[1], 0);
  KT_EXPECT_EQ ("success: no GONE flag", st_cflags[0], 0);
  ST_EXPECT_LINK_ORDER ("success: the CQEs in link order", 2);
  int sig = sigtimedwait (&chld, &si, &ts);
  if (sig == SIGCHLD && si.si_pid == pid && si.si_code == CLD_EXITED
      && si.si_status == 7)
    kt_pass ("SIGCHLD from the child");
  else
    kt_fail ("SIGCHLD from the child", "sig %d pid %d (want %d) code %d "
	     "status %d", sig, (int) si.si_pid, (int) pid, si.si_code,
	     si.si_status);
  int status;
  pid_t r = waitpid (pid, &status, 0);
  KT_EXPECT_EQ ("waitpid (pid) reaps it", r, pid);
  if (r == pid && WIFEXITED (status) && WEXITSTATUS (status) == 7)
    kt_pass ("exit status of the new program");
  else
    kt_fail ("exit status of the new program", "status %#x", status);
  /* The pid the program saw is the one the CQE reported.  */
  char pidfile[300];
  snprintf (pidfile, sizeof pidfile, "%s/pid", tmpl);
  FILE *f = fopen (pidfile, "r");
  int seen = -1;
  if (f != NULL)
    {
      if (fscanf (f, "%d", &seen) != 1)
	seen = -1;
      fclose (f);
    }
  KT_EXPECT_EQ ("program's pid is the CQE's pid", seen, pid);

  /* 2. CQE timing: no CQE while the chain blocks in a FIFO open.  */
  char fifo[300];
  snprintf (fifo, sizeof fifo, "%s/fifo", tmpl);
  char *argv_true[] = { "true", NULL };
  if (st_mkfifo (fifo))
    {
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&st_ring, &ca, 0);
      st_open (&st_ring, fifo, O_RDONLY, 5, 1);
      st_exec (&st_ring, "/bin/true", argv_true, envp, 2);
      st_reset ();
      io_uring_submit (&st_ring);
      pid_t child = st_find_child (getpid (), "S");
      if (child > 0)
	kt_pass ("timing: the child blocks in its chain");
      else
	kt_fail ("timing: the child blocks in its chain", "no sleeping child");
      KT_EXPECT_EQ ("timing: no CQE while the chain runs",
		    io_uring_cq_ready (&st_ring), 0);
      char vm[64] = "(none)";
      if (child > 0)
	{
	  if (st_status_field (child, "VmSize", vm, sizeof vm)
	      && atol (vm) == 0)
	    kt_pass ("timing: the child in its chain has an empty mm");
	  else
	    kt_fail ("timing: the child in its chain has an empty mm",
		     "VmSize: %s", vm);
	}
      int w = st_fifo_writer (fifo);
      KT_EXPECT_EQ ("timing: CQEs after the open is met",
		    st_reap (&st_ring, 3, 20), 3);
      if (w >= 0)
	close (w);
      KT_EXPECT_EQ ("timing: clone res is the blocked child", st_res[0], child);
      KT_EXPECT_EQ ("timing: open res", st_res[1], 5);
      KT_EXPECT_EQ ("timing: exec res", st_res[2], 0);
      ST_EXPECT_LINK_ORDER ("timing: the CQEs in link order", 3);
      ST_EXPECT_STATUS ("timing: the child ran", st_fate (), 0);
      sigtimedwait (&chld, &si, &ts);
    }

  /* 3. A child killed in its chain: an ordinary child, a zombie by the
     time the CQEs come.  */
  if (st_mkfifo (fifo))
    {
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&st_ring, &ca, 0);
      st_open (&st_ring, fifo, O_RDONLY, 5, 1);
      st_exec (&st_ring, "/bin/true", argv_true, envp, 2);
      st_reset ();
      io_uring_submit (&st_ring);
      pid_t child = st_find_child (getpid (), "S");
      if (child > 0)
	kill (child, SIGKILL);
      KT_EXPECT_EQ ("killed: CQEs arrive", st_reap (&st_ring, 3, 20), 3);
      KT_EXPECT_EQ ("killed: clone res is the pid", st_res[0], child);
      KT_EXPECT_EQ ("killed: no GONE flag", st_cflags[0] & IORING_CQE_F_SPAWN_GONE, 0);
      KT_EXPECT_EQ ("killed: open cancelled", st_res[1], -ECANCELED);
      KT_EXPECT_EQ ("killed: exec cancelled", st_res[2], -ECANCELED);
      ST_EXPECT_LINK_ORDER ("killed: the CQEs in link order", 3);
      r = waitpid (child, &status, WNOHANG);
      KT_EXPECT_EQ ("killed: a zombie when the CQEs arrive", r, child);
      KT_EXPECT_EQ ("killed: WIFSIGNALED SIGKILL",
		    r == child && WIFSIGNALED (status)
		    && WTERMSIG (status) == SIGKILL, 1);
      sig = sigtimedwait (&chld, &si, &ts);
      KT_EXPECT_EQ ("killed: SIGCHLD", sig == SIGCHLD && si.si_pid == child, 1);
    }

  /* 4. Failures: each errno, the child gone without a trace.  */
  while (sigtimedwait (&chld, &si, &zero) > 0)
    ;
  exec_error ("ENOENT", "/nonexistent/true", argv_true, ENOENT);

  char noexec[300];
  snprintf (noexec, sizeof noexec, "%s/noexec", tmpl);
  int fd = open (noexec, O_CREAT | O_WRONLY, 0644);
  if (fd >= 0)
    {
      if (write (fd, "#!/bin/sh\nexit 0\n", 17) != 17)
	kt_fail ("write", "%m");
      close (fd);
    }
  exec_error ("EACCES", noexec, argv_true, EACCES);

  char garbage[300];
  snprintf (garbage, sizeof garbage, "%s/garbage", tmpl);
  fd = open (garbage, O_CREAT | O_WRONLY, 0755);
  if (fd >= 0)
    {
      if (write (fd, "\x01\x02\x03\x04garbage garbage garbage\n", 28) != 28)
	kt_fail ("write", "%m");
      close (fd);
    }
  exec_error ("ENOEXEC", garbage, argv_true, ENOEXEC);

  /* One argument longer than MAX_ARG_STRLEN (32 pages): found when the
     clone is issued (v3), no child.  */
  size_t biglen = 33 * 4096;
  char *big = malloc (biglen + 1);
  memset (big, 'x', biglen);
  big[biglen] = '\0';
  char *argv_big[] = { "true", big, NULL };
  submit_error ("E2BIG", "/bin/true", argv_big, E2BIG);
  free (big);

  char **bad_argv = (char **) 8;
  __asm__ ("" : "+r" (bad_argv));
  submit_error ("EFAULT argv", "/bin/true", bad_argv, EFAULT);
  char *argv_badstr[] = { "true", (char *) 8, NULL };
  submit_error ("EFAULT argv string", "/bin/true", argv_badstr, EFAULT);
  submit_error ("EFAULT path", (const char *) 8, argv_true, EFAULT);
  /* Both bad: the path is looked at first, as execve () does.  */
  submit_error ("EFAULT path and argv", (const char *) 8, bad_argv, EFAULT);
  char *longpath = malloc (PATH_MAX + 10);
  memset (longpath, 'a', PATH_MAX + 9);
  longpath[0] = '/';
  longpath[PATH_MAX + 9] = '\0';
  submit_error ("ENAMETOOLONG", longpath, argv_true, ENAMETOOLONG);
  submit_error ("ENAMETOOLONG path, bad argv", longpath, bad_argv, ENAMETOOLONG);
  free (longpath);
  submit_error ("empty path", "", argv_true, ENOENT);

  /* Directory: EACCES.  */
  exec_error ("EACCES dir", "/tmp", argv_true, EACCES);

  /* Any exit signal: none is sent for a failed chain.  */
  int res = spawn_sig ("/nonexistent", argv_true, SIGUSR1, 0);
  KT_EXPECT_EQ ("exit_signal SIGUSR1, failed: exec", st_res[1], -ENOENT);
  ST_EXPECT_GONE ("exit_signal SIGUSR1, failed: gone", res > 0 ? st_fate () : -1);
  expect_no_signal ("exit_signal SIGUSR1, failed: no SIGUSR1", SIGUSR1);
  res = spawn_sig ("/nonexistent", argv_true, 0, 0);
  ST_EXPECT_GONE ("exit_signal 0, failed: gone", res > 0 ? st_fate () : -1);

  /* 5. IORING_EXEC_SEARCH: a PATH search in soft links.  */
  struct clone_args ca = { .exit_signal = SIGCHLD };
  char notdir[300];
  snprintf (notdir, sizeof notdir, "%s/noexec/true", tmpl);
  st_clone (&st_ring, &ca, 0);
  st_link (st_search (&st_ring, "/nonexistent/true", argv_true, envp, 1));
  st_link (st_search (&st_ring, noexec, argv_true, envp, 2));
  st_link (st_search (&st_ring, notdir, argv_true, envp, 3));
  st_link (st_search (&st_ring, "/bin/true", argv_true, envp, 4));
  st_search (&st_ring, "/bin/false", argv_true, envp, 5);
  status = st_finish (6);
  KT_EXPECT_EQ ("search: ENOENT, goes on", st_res[1], -ENOENT);
  KT_EXPECT_EQ ("search: EACCES, goes on", st_res[2], -EACCES);
  KT_EXPECT_EQ ("search: ENOTDIR, goes on", st_res[3], -ENOTDIR);
  KT_EXPECT_EQ ("search: 4th runs", st_res[4], 0);
  KT_EXPECT_EQ ("search: rest cancelled", st_res[5], -ECANCELED);
  ST_EXPECT_LINK_ORDER ("search: the CQEs in link order", 6);
  ST_EXPECT_STATUS ("search: /bin/true ran", status, 0);

  /* A search step that fails with another error ends the chain.  */
  st_clone (&st_ring, &ca, 0);
  st_link (st_search (&st_ring, garbage, argv_true, envp, 1));
  st_search (&st_ring, "/bin/true", argv_true, envp, 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("search: ENOEXEC stops", st_res[1], -ENOEXEC);
  KT_EXPECT_EQ ("search: ENOEXEC: next cancelled", st_res[2], -ECANCELED);
  ST_EXPECT_GONE ("search: ENOEXEC: child gone", status);
  /* The last step of a failed search: gone as well.  */
  st_clone (&st_ring, &ca, 0);
  st_link (st_search (&st_ring, "/nonexistent/a", argv_true, envp, 1));
  st_search (&st_ring, "/nonexistent/b", argv_true, envp, 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("search: all fail: 1st", st_res[1], -ENOENT);
  KT_EXPECT_EQ ("search: all fail: 2nd", st_res[2], -ENOENT);
  ST_EXPECT_GONE ("search: all fail: child gone", status);
  /* The v3 list of errors a search goes on after is execvp ()'s:
     EACCES, ENOENT, ESTALE, ENOTDIR, ENAMETOOLONG, ENODEV, ETIMEDOUT
     (cover letter).  ENAMETOOLONG from the lookup (a component longer
     than NAME_MAX, the whole path shorter than PATH_MAX: found in the
     child, not at prep).  The kernel header's comment leaves
     ENAMETOOLONG out: a kernel that stops the search there fails
     "search: ENAMETOOLONG goes on".  */
  {
    static char longcomp[400];
    memset (longcomp, 0, sizeof longcomp);
    strcpy (longcomp, "/tmp/");
    memset (longcomp + 5, 'n', 300);
    strcpy (longcomp + 305, "/true");
    st_clone (&st_ring, &ca, 0);
    st_link (st_search (&st_ring, longcomp, argv_true, envp, 1));
    st_search (&st_ring, "/bin/true", argv_true, envp, 2);
    status = st_finish (3);
    KT_EXPECT_EQ ("search: ENAMETOOLONG", st_res[1], -ENAMETOOLONG);
    KT_EXPECT_EQ ("search: ENAMETOOLONG goes on", st_res[2], 0);
    ST_EXPECT_STATUS ("search: ENAMETOOLONG: /bin/true ran", status, 0);
  }

  /* 6. Hard links go on after any error; the first success cancels
     the rest.  */
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, "/nonexistent/true", argv_true, envp, 1)->flags
    = IOSQE_IO_HARDLINK;
  st_exec (&st_ring, garbage, argv_true, envp, 2)->flags = IOSQE_IO_HARDLINK;
  st_exec (&st_ring, "/bin/true", argv_true, envp, 3)->flags
    = IOSQE_IO_HARDLINK;
  st_exec (&st_ring, "/bin/false", argv_true, envp, 4);
  status = st_finish (5);
  KT_EXPECT_EQ ("hard links: 1st ENOENT", st_res[1], -ENOENT);
  KT_EXPECT_EQ ("hard links: 2nd ENOEXEC", st_res[2], -ENOEXEC);
  KT_EXPECT_EQ ("hard links: 3rd runs", st_res[3], 0);
  KT_EXPECT_EQ ("hard links: rest cancelled", st_res[4], -ECANCELED);
  ST_EXPECT_STATUS ("hard links: /bin/true ran", status, 0);

  /* 7. A soft-linked failure stops the chain.  */
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, "/nonexistent/true", argv_true, envp, 1)->flags
    = IOSQE_IO_LINK;
  st_exec (&st_ring, "/bin/true", argv_true, envp, 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("soft link: ENOENT", st_res[1], -ENOENT);
  KT_EXPECT_EQ ("soft link: next cancelled", st_res[2], -ECANCELED);
  ST_EXPECT_GONE ("soft link: child gone", status);

  /* 8. CLONE_PIDFD: the pidfd refers to the child.  */
  while (sigtimedwait (&chld, &si, &zero) > 0)
    ;
  int pidfd = -1;
  struct clone_args cp = { .flags = CLONE_PIDFD, .pidfd = (uintptr_t) &pidfd,
			   .exit_signal = SIGCHLD };
  st_clone (&st_ring, &cp, 0);
  char *argv_exit3[] = { "sh", "-c", "exit 3", NULL };
  st_exec (&st_ring, "/bin/sh", argv_exit3, envp, 1);
  st_run (&st_ring, 2);
  pid = st_res[0];
  if (pidfd >= 0)
    {
      struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
      KT_EXPECT_EQ ("pidfd polls readable at exit", poll (&pfd, 1, 20000), 1);
      siginfo_t wi;
      memset (&wi, 0, sizeof wi);
      int w = waitid (P_PIDFD, pidfd, &wi, WEXITED);
      KT_EXPECT_EQ ("waitid (P_PIDFD)", w, 0);
      KT_EXPECT_EQ ("pidfd child pid", wi.si_pid, pid);
      KT_EXPECT_EQ ("pidfd child status", wi.si_status, 3);
      close (pidfd);
    }
  else
    kt_fail ("CLONE_PIDFD", "no pidfd, clone res %d", st_res[0]);
  /* A failed chain with a pidfd: the pidfd polls readable (the child
     is gone), waitid on it finds nothing.  */
  pidfd = -1;
  st_clone (&st_ring, &cp, 0);
  st_exec (&st_ring, "/nonexistent", argv_true, envp, 1);
  st_run (&st_ring, 2);
  if (pidfd >= 0)
    {
      ST_EXPECT_GONE ("pidfd, failed: child gone", st_fate ());
      struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
      KT_EXPECT_EQ ("pidfd, failed: readable", poll (&pfd, 1, 0), 1);
      siginfo_t wi;
      KT_EXPECT_EQ ("pidfd, failed: waitid ECHILD",
		    waitid (P_PIDFD, pidfd, &wi, WEXITED | WNOHANG) < 0
		    && errno == ECHILD, 1);
      close (pidfd);
    }
  else
    kt_fail ("CLONE_PIDFD, failed", "no pidfd, clone res %d", st_res[0]);

  /* 9. exit_signal 0: a successful exec makes it SIGCHLD (de_thread()
     does, for clone3 () + execve () too), so the new program's exit
     sends SIGCHLD and plain waitpid sees it -- exactly as with
     clone3 (exit_signal 0) + execve.  */
  while (sigtimedwait (&chld, &si, &zero) > 0)
    ;
  struct clone_args c0 = { .exit_signal = 0 };
  st_clone (&st_ring, &c0, 0);
  st_exec (&st_ring, "/bin/sh", argv_exit3, envp, 1);
  st_run (&st_ring, 2);
  pid = st_res[0];
  KT_EXPECT_EQ ("exit_signal 0: exec", st_res[1], 0);
  sig = sigtimedwait (&chld, &si, &ts);
  KT_EXPECT_EQ ("exit_signal 0, exec'd: SIGCHLD, as clone3 + execve",
		sig == SIGCHLD && si.si_pid == pid, 1);
  r = waitpid (pid, &status, 0);
  KT_EXPECT_EQ ("exit_signal 0, exec'd: plain waitpid reaps it", r, pid);
  ST_EXPECT_STATUS ("exit_signal 0, exec'd: status", r == pid ? status : -1, 3);
  long c3 = syscall (SYS_clone3, &c0, sizeof c0);
  if (c3 == 0)
    {
      execve ("/bin/sh", argv_exit3, envp);
      _exit (127);
    }
  sig = sigtimedwait (&chld, &si, &ts);
  KT_EXPECT_EQ ("exit_signal 0: clone3 + execve sends SIGCHLD too",
		sig == SIGCHLD && si.si_pid == c3, 1);
  st_wait (c3);

  st_no_children ("no child left");

  char cmd[400];
  snprintf (cmd, sizeof cmd, "rm -rf %s", tmpl);
  if (system (cmd) != 0)
    kt_fail ("cleanup", "%s", cmd);
  io_uring_queue_exit (&st_ring);
  return kt_exit ();
}
