/* IORING_OP_CLONE + IORING_OP_EXEC: the CQE carries the child's pid,
   SIGCHLD arrives, waitpid reaps the child, the new program runs with
   the given argv/envp; each exec failure errno; a failed exec ends the
   chain (child exits 127) unless hard-linked (a PATH search); the
   first successful exec cancels the rest; CLONE_PIDFD; exit_signal 0.  */

#include "st.h"
#include <poll.h>
#include <sys/stat.h>

static char *envp[] = { "ST_VAR=hello", NULL };

/* Spawn PATH ARGV through a CLONE + EXEC chain; return the pid from the
   CLONE CQE (0 if it failed).  st_res[1] is the exec's result.  */
static pid_t
spawn (const char *path, char *const argv[])
{
  struct clone_args ca = { .exit_signal = SIGCHLD };
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, path, argv, envp, 1);
  if (st_run (&st_ring, 2) != 2)
    kt_fail ("spawn", "missing CQEs");
  return st_res[0] > 0 ? st_res[0] : 0;
}

static void
exec_error (const char *name, const char *path, char *const argv[], int err)
{
  char n[128];
  pid_t pid = spawn (path, argv);
  snprintf (n, sizeof n, "%s: clone pid", name);
  if (pid > 0)
    kt_pass (n);
  else
    kt_fail (n, "clone res %d", st_res[0]);
  snprintf (n, sizeof n, "%s: exec res", name);
  KT_EXPECT_EQ (n, st_res[1], -err);
  snprintf (n, sizeof n, "%s: child exits 127", name);
  ST_EXPECT_STATUS (n, pid > 0 ? st_wait (pid) : -1, 127);
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

  /* SIGCHLD is collected with sigtimedwait.  */
  sigset_t chld;
  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  sigprocmask (SIG_BLOCK, &chld, NULL);

  /* 1. Success: the program runs with argv and envp, exit status 7.  */
  char script[256];
  snprintf (script, sizeof script,
	    "test \"$0 $1 $ST_VAR\" = \"sh arg1 hello\" && echo $$ > %s/pid"
	    " && exit 7", tmpl);
  char *argv_sh[] = { "sh", "-c", script, "sh", "arg1", NULL };
  /* "sh -c script sh arg1": $0 = sh, $1 = arg1.  */
  pid_t pid = spawn ("/bin/sh", argv_sh);
  if (pid > 0)
    kt_pass ("clone returns a pid");
  else
    kt_fail ("clone returns a pid", "res %d", st_res[0]);
  KT_EXPECT_EQ ("exec res 0", st_res[1], 0);
  siginfo_t si;
  struct timespec ts = { .tv_sec = 20 };
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

  /* 2. Exec failures: each errno, child exits 127.  */
  char *argv_true[] = { "true", NULL };
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

  /* One argument longer than MAX_ARG_STRLEN (32 pages).  */
  size_t biglen = 33 * 4096;
  char *big = malloc (biglen + 1);
  memset (big, 'x', biglen);
  big[biglen] = '\0';
  char *argv_big[] = { "true", big, NULL };
  exec_error ("E2BIG", "/bin/true", argv_big, E2BIG);
  free (big);

  char **bad_argv = (char **) 8;
  __asm__ ("" : "+r" (bad_argv));
  exec_error ("EFAULT argv", "/bin/true", bad_argv, EFAULT);
  exec_error ("EFAULT path", (const char *) 8, argv_true, EFAULT);

  /* Directory: EACCES.  */
  exec_error ("EACCES dir", "/tmp", argv_true, EACCES);

  /* Drain the SIGCHLDs of the failed children.  */
  ts.tv_sec = 0;
  while (sigtimedwait (&chld, &si, &ts) > 0)
    ;

  /* 3. Hard-linked EXECs are a PATH search; the first success cancels
     the rest.  */
  struct clone_args ca = { .exit_signal = SIGCHLD };
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, "/nonexistent/true", argv_true, envp, 1)->flags
    = IOSQE_IO_HARDLINK;
  st_exec (&st_ring, "/usr/local/nonexistent/true", argv_true, envp, 2)->flags
    = IOSQE_IO_HARDLINK;
  st_exec (&st_ring, "/bin/true", argv_true, envp, 3)->flags
    = IOSQE_IO_HARDLINK;
  st_exec (&st_ring, "/bin/false", argv_true, envp, 4);
  st_run (&st_ring, 5);
  pid = st_res[0];
  KT_EXPECT_EQ ("path search: 1st ENOENT", st_res[1], -ENOENT);
  KT_EXPECT_EQ ("path search: 2nd ENOENT", st_res[2], -ENOENT);
  KT_EXPECT_EQ ("path search: 3rd runs", st_res[3], 0);
  KT_EXPECT_EQ ("path search: rest cancelled", st_res[4], -ECANCELED);
  ST_EXPECT_STATUS ("path search: /bin/true ran", pid > 0 ? st_wait (pid) : -1, 0);

  /* 4. A soft-linked failure stops the chain.  */
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, "/nonexistent/true", argv_true, envp, 1)->flags
    = IOSQE_IO_LINK;
  st_exec (&st_ring, "/bin/true", argv_true, envp, 2);
  st_run (&st_ring, 3);
  pid = st_res[0];
  KT_EXPECT_EQ ("soft link: ENOENT", st_res[1], -ENOENT);
  KT_EXPECT_EQ ("soft link: next cancelled", st_res[2], -ECANCELED);
  ST_EXPECT_STATUS ("soft link: child exits 127", pid > 0 ? st_wait (pid) : -1, 127);

  /* 5. CLONE_PIDFD: the pidfd refers to the child.  */
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

  /* 6. exit_signal 0: a child that fails before exec sends no signal,
     plain waitpid does not see it, __WALL reaps it.  (A successful exec
     resets exit_signal to SIGCHLD, as exec always does.)  */
  struct clone_args c0 = { .exit_signal = 0 };
  ts.tv_sec = 0;
  ts.tv_nsec = 0;
  while (sigtimedwait (&chld, &si, &ts) > 0)
    ;
  st_clone (&st_ring, &c0, 0);
  st_exec (&st_ring, "/nonexistent", argv_true, envp, 1);
  st_run (&st_ring, 2);
  pid = st_res[0];
  KT_EXPECT_EQ ("exit_signal 0: exec fails", st_res[1], -ENOENT);
  usleep (200000);
  KT_EXPECT_EQ ("exit_signal 0: invisible to plain waitpid",
		waitpid (pid, &status, WNOHANG), -1);
  ST_EXPECT_STATUS ("exit_signal 0: reaped with __WALL", pid > 0 ? st_wait (pid) : -1, 127);
  ts.tv_sec = 0;
  ts.tv_nsec = 100000000;
  KT_EXPECT_EQ ("exit_signal 0: no SIGCHLD", sigtimedwait (&chld, &si, &ts), -1);

  st_no_children ("no child left");

  char cmd[400];
  snprintf (cmd, sizeof cmd, "rm -rf %s", tmpl);
  if (system (cmd) != 0)
    kt_fail ("cleanup", "%s", cmd);
  io_uring_queue_exit (&st_ring);
  return kt_exit ();
}
