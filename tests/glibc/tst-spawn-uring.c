/* Check posix_spawn, posix_spawnp, pidfd_spawn and pidfd_spawnp on both
   of their Linux paths, from inside the spawned program.
   Copyright (C) 2026 Free Software Foundation, Inc.
   This file is part of the GNU C Library.

   The GNU C Library is free software; you can redistribute it and/or
   modify it under the terms of the GNU Lesser General Public
   License as published by the Free Software Foundation; either
   version 2.1 of the License, or (at your option) any later version.

   The GNU C Library is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   Lesser General Public License for more details.

   You should have received a copy of the GNU Lesser General Public
   License along with the GNU C Library; if not, see
   <https://www.gnu.org/licenses/>.  */

/* Every check runs twice, in new processes with glibc.spawn.io_uring=0
   and =1.  On a kernel that runs io_uring spawn chains the second run
   spawns through them, except where spawni-uring.c leaves a spawn to the
   clone path (more SQEs than the ring has, long names, the compat
   symbols, seccomp, a raw clone's child); elsewhere both runs take the
   clone path.  The results must be the same.  Which path a spawn took is
   not checked: that needs the kernel's trace events, and a glibc test
   leaves the machine as it found it.

   Most checks run this program again with --restart REPORT TTYFD ARGS;
   it writes to REPORT what it sees (ids, process group, session, the
   terminal's foreground group, scheduling, signal mask and ignored
   signals as the kernel has them, cwd, cgroup, environment, arguments,
   descriptors with their flags and files), and the caller compares that
   with what it asked for.  A failure must return the error, leave *PID
   or *PIDFD alone, and leave no child and no descriptor behind.  */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <array_length.h>
#include <shlib-compat.h>
#include <support/check.h>
#include <support/descriptors.h>
#include <support/support.h>
#include <support/temp_file.h>
#include <support/test-driver.h>
#include <support/xsignal.h>
#include <support/xstdio.h>
#include <support/xthread.h>
#include <support/xunistd.h>

#if TEST_COMPAT (libc, GLIBC_2_2, GLIBC_2_15)
/* The symbols that run a program without #! through /bin/sh.  */
extern __typeof (posix_spawn) compat_posix_spawn;
extern __typeof (posix_spawnp) compat_posix_spawnp;
compat_symbol_reference (libc, compat_posix_spawn, posix_spawn, GLIBC_2_2);
compat_symbol_reference (libc, compat_posix_spawnp, posix_spawnp, GLIBC_2_2);
#endif

#if defined __x86_64__ && defined __LP64__
# define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined __i386__
# define TEST_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined __aarch64__ && defined __AARCH64EL__
# define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined __riscv && __riscv_xlen == 64
# define TEST_AUDIT_ARCH AUDIT_ARCH_RISCV64
#endif

#ifndef CGROUP2_SUPER_MAGIC
# define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* The descriptors the report shows, with these status flags.  */
#define MAX_FD 256
#define FD_FLAGS (O_ACCMODE | O_APPEND | O_NONBLOCK)

static int restart;
/* 0 at the top, which runs the checks in new processes with
   glibc.spawn.io_uring=0 (1 here) and =1 (2 here).  */
static int mode;
#define CMDLINE_OPTIONS \
  { "restart", no_argument, &restart, 1 }, \
  { "uring-off", no_argument, &mode, 1 }, \
  { "uring-on", no_argument, &mode, 2 },

/* How to run this program again: [ld.so --library-path PATH] PROGRAM.  */
static char **initial_argv;
static int initial_argc;

static char *tmpdir;
/* TMPDIR/missing, which does not exist.  */
static char *missing;
/* posix_spawnp finds this program by this name, in TMPDIR/bin.  */
#define PROG_NAME "tst-spawn-uring-prog"
static const char true_path[] = "/bin/true";

/* What the spawned program saw.  */
struct report
{
  pid_t pid, ppid, pgid, sid, tcpgrp;
  int policy, priority;
  uid_t uid, euid;
  gid_t gid, egid;
  /* Bit N - 1 is signal N.  */
  unsigned long long int blocked, ignored;
  char cwd[PATH_MAX], cgroup[PATH_MAX], env[64];
  int nargs;
  char args[4][64];
  struct
  {
    bool open;
    int flags;
    char target[256];
  } fd[MAX_FD];
};

#define FAIL_AT(line, ...)						\
  do									\
    {									\
      support_record_failure ();					\
      printf ("%s:%d: error: ", __FILE__, (line));			\
      printf (__VA_ARGS__);						\
      putchar ('\n');							\
    }									\
  while (0)

/* Add a file action, which must be accepted.  */
#define ADD(action, ...) \
  TEST_COMPARE (posix_spawn_file_actions_add##action (__VA_ARGS__), 0)

static bool
in_mask (unsigned long long int mask, int sig)
{
  return (mask >> (sig - 1)) & 1;
}

/* Not one of glibc's two internal signals below SIGRTMIN.  */
static bool
user_signal (int sig)
{
  return sig < __SIGRTMIN || sig >= SIGRTMIN;
}

/* This process's cgroup v2 path, or "".  */
static void
read_cgroup (char *buf, size_t size)
{
  buf[0] = '\0';
  FILE *f = fopen ("/proc/self/cgroup", "re");
  if (f == NULL)
    return;
  char *line = NULL;
  size_t n = 0;
  while (getline (&line, &n, f) > 0)
    if (strncmp (line, "0::", 3) == 0)
      {
	snprintf (buf, size, "%.*s", (int) strcspn (line + 3, "\n"),
		  line + 3);
	break;
      }
  free (line);
  fclose (f);
}

static void
fd_target (int fd, char *buf, size_t size)
{
  char link[64];
  snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink (link, buf, size - 1);
  TEST_VERIFY_EXIT (n > 0);
  buf[n] = '\0';
}

/* The spawned program: PROGRAM REPORT TTYFD ARGS...  It writes its
   struct report to REPORT, which it opens last so that the descriptor
   is not in it.  */
static int
handle_restart (int argc, char **argv)
{
  TEST_VERIFY_EXIT (argc >= 3);
  static struct report r;
  int ttyfd = atoi (argv[2]);
  struct sched_param sp;
  TEST_COMPARE (sched_getparam (0, &sp), 0);
  r.pid = getpid ();
  r.ppid = getppid ();
  r.pgid = getpgid (0);
  r.sid = getsid (0);
  r.tcpgrp = ttyfd >= 0 ? tcgetpgrp (ttyfd) : -1;
  r.policy = sched_getscheduler (0);
  r.priority = sp.sched_priority;
  r.uid = getuid ();
  r.euid = geteuid ();
  r.gid = getgid ();
  r.egid = getegid ();
  TEST_VERIFY_EXIT (getcwd (r.cwd, sizeof r.cwd) != NULL);
  read_cgroup (r.cgroup, sizeof r.cgroup);
  snprintf (r.env, sizeof r.env, "%s", getenv ("TST_SPAWN_URING") ?: "");
  for (int i = 3; i < argc && r.nargs < array_length (r.args); i++)
    snprintf (r.args[r.nargs++], sizeof r.args[0], "%s", argv[i]);
  /* The kernel's view, with glibc's internal signals.  */
  FILE *status = xfopen ("/proc/self/status", "re");
  char *line = NULL;
  size_t n = 0;
  while (getline (&line, &n, status) > 0)
    if (sscanf (line, "SigBlk: %llx", &r.blocked) != 1)
      sscanf (line, "SigIgn: %llx", &r.ignored);
  free (line);
  xfclose (status);
  for (int fd = 0; fd < MAX_FD; fd++)
    {
      r.fd[fd].flags = fcntl (fd, F_GETFL) & FD_FLAGS;
      r.fd[fd].open = fcntl (fd, F_GETFD) != -1;
      if (r.fd[fd].open)
	fd_target (fd, r.fd[fd].target, sizeof r.fd[fd].target);
    }
  int fd = xopen (argv[1], O_WRONLY | O_TRUNC | O_CLOEXEC, 0);
  xwrite (fd, &r, sizeof r);
  xclose (fd);
  return 0;
}

/* The four interfaces; the compat ones are called on their own.  */
enum
{
  API_SPAWN, API_SPAWNP, API_PIDFD, API_PIDFDP, API_COUNT,
  API_COMPAT = API_COUNT, API_COMPATP,
  /* The next of the four, in turn.  */
  API_NEXT = -1
};
static const char *const api_names[] =
  { "posix_spawn", "posix_spawnp", "pidfd_spawn", "pidfd_spawnp",
    "compat posix_spawn", "compat posix_spawnp" };

/* pidfd_spawn works here (CLONE_PIDFD and P_PIDFD).  */
static bool have_pidfd;

static bool
api_pidfd (int api)
{
  return api == API_PIDFD || api == API_PIDFDP;
}

static bool
api_usable (int api)
{
  return have_pidfd || !api_pidfd (api);
}

static int
api_resolve (int api)
{
  static unsigned int next;
  while (api == API_NEXT || !api_usable (api))
    api = __atomic_fetch_add (&next, 1, __ATOMIC_RELAXED) % API_COUNT;
  return api;
}

static int
spawn_api (int api, int *id, const char *file,
	   const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
	   char *const argv[], char *const envp[])
{
  switch (api)
    {
    case API_SPAWN:
      return posix_spawn (id, file, fa, attr, argv, envp);
    case API_SPAWNP:
      return posix_spawnp (id, file, fa, attr, argv, envp);
    case API_PIDFD:
      return pidfd_spawn (id, file, fa, attr, argv, envp);
    case API_PIDFDP:
      return pidfd_spawnp (id, file, fa, attr, argv, envp);
#if TEST_COMPAT (libc, GLIBC_2_2, GLIBC_2_15)
    case API_COMPAT:
      return compat_posix_spawn (id, file, fa, attr, argv, envp);
    case API_COMPATP:
      return compat_posix_spawnp (id, file, fa, attr, argv, envp);
#endif
    }
  FAIL_EXIT1 ("no interface %d here", api);
}

/* Wait for the child spawn_api gave as ID, a pid or a pidfd; return its
   pid and store in *STATUS its exit status, or 256 + the signal that
   killed it.  A pidfd must be one: close-on-exec, with the child's pid,
   waitable.  */
static pid_t
wait_child (int line, int api, int id, int *status)
{
  siginfo_t si = { 0 };
  if (api_pidfd (api))
    {
      TEST_COMPARE (fcntl (id, F_GETFD), FD_CLOEXEC);
      pid_t pid = pidfd_getpid (id);
      if (pid <= 0)
	FAIL_EXIT1 ("line %d: %s gave %d, which is no pidfd (%m)", line,
		    api_names[api], id);
      TEST_COMPARE (waitid (P_PIDFD, id, &si, WEXITED), 0);
      TEST_COMPARE (si.si_pid, pid);
      xclose (id);
    }
  else
    TEST_COMPARE (waitid (P_PID, id, &si, WEXITED), 0);
  *status = si.si_code == CLD_EXITED ? si.si_status : 256 + si.si_status;
  return si.si_pid;
}

/* Run this program again with API (or the next one), FILE (null: the
   usual name), FA and ATTR, wait for it and read its report into *R.
   TTYFD, if not -1, is a terminal whose foreground group it reports.  */
static void
spawn_report_1 (int line, int api, const char *file,
		const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, int ttyfd, struct report *r)
{
  static unsigned int counter;
  api = api_resolve (api);
  char *report = xasprintf ("%s/report-%u", tmpdir,
			    __atomic_fetch_add (&counter, 1,
						__ATOMIC_RELAXED));
  /* Writable by all: the RESETIDS check runs the program as nobody.  */
  int fd = xopen (report, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  xfchmod (fd, 0666);
  xclose (fd);

  char ttyarg[16];
  snprintf (ttyarg, sizeof ttyarg, "%d", ttyfd);
  char *args[initial_argc + 7];
  int argc = 0;
  for (int i = 0; i < initial_argc; i++)
    args[argc++] = initial_argv[i];
  args[argc++] = (char *) "--direct";
  args[argc++] = (char *) "--restart";
  args[argc++] = report;
  args[argc++] = ttyarg;
  args[argc++] = (char *) "";
  args[argc++] = (char *) "two words";
  args[argc] = NULL;
  /* This program's environment, with a mark.  */
  size_t nenv = 0;
  while (environ[nenv] != NULL)
    nenv++;
  char **envp = xcalloc (nenv + 2, sizeof *envp);
  envp[0] = xasprintf ("TST_SPAWN_URING=%s", api_names[api]);
  memcpy (envp + 1, environ, nenv * sizeof *envp);

  if (file == NULL)
    file = api == API_SPAWNP || api == API_PIDFDP ? PROG_NAME
					       : initial_argv[0];
  int id = -1, status;
  int ret = spawn_api (api, &id, file, fa, attr, args, envp);
  if (ret != 0)
    FAIL_EXIT1 ("line %d: %s (%s): %s", line, api_names[api], file,
		strerrorname_np (ret));
  pid_t pid = wait_child (line, api, id, &status);
  if (status != 0)
    FAIL_AT (line, "%s: the new program's status is %#x", api_names[api],
	     status);
  fd = xopen (report, O_RDONLY | O_CLOEXEC, 0);
  if (read (fd, r, sizeof *r) != sizeof *r)
    FAIL_EXIT1 ("line %d: %s: the new program made no report", line,
		api_names[api]);
  xclose (fd);
  if (r->pid != pid || r->ppid != getpid ())
    FAIL_AT (line, "%s: the new program is %d, child of %d; expected %d,"
	     " child of %d", api_names[api], (int) r->pid, (int) r->ppid,
	     (int) pid, (int) getpid ());
  if (strcmp (r->env, api_names[api]) != 0 || r->nargs != 2
      || strcmp (r->args[0], "") != 0 || strcmp (r->args[1], "two words"))
    FAIL_AT (line, "%s: the new program's environment or arguments differ",
	     api_names[api]);
  xunlink (report);
  free (report);
  free (envp[0]);
  free (envp);
}
#define spawn_report(api, fa, attr, ttyfd, r) \
  spawn_report_1 (__LINE__, api, NULL, fa, attr, ttyfd, r)

/* Spawn FILE with API, FA, ATTR and ARGV (FILE alone if null).  With
   ERR 0 it must succeed and the program exit with EXIT_STATUS; else it
   must fail with ERR, leave *PID or *PIDFD alone, and leave the
   descriptors as they were.  Either way no child is left.  Only where
   no other thread spawns.  */
static void
spawn_check_1 (int line, int api, const char *file,
	       const posix_spawn_file_actions_t *fa,
	       const posix_spawnattr_t *attr, char *const argv[], int err,
	       int exit_status)
{
  char *args[] = { (char *) file, NULL };
  api = api_resolve (api);
  struct support_descriptors *fds = NULL;
  if (err != 0)
    fds = support_descriptors_list ();
  int id = -2, status;
  int ret = spawn_api (api, &id, file, fa, attr, argv ?: args, environ);
  if (ret != err)
    FAIL_AT (line, "%s (\"%.40s%s\") returned %s, expected %s",
	     api_names[api], file, strlen (file) > 40 ? "..." : "",
	     strerrorname_np (ret) ?: "0", strerrorname_np (err) ?: "0");
  if (ret == 0)
    {
      wait_child (line, api, id, &status);
      if (err == 0 && status != exit_status)
	FAIL_AT (line, "%s: status %#x, expected exit status %d",
		 api_names[api], status, exit_status);
    }
  else if (id != -2)
    FAIL_AT (line, "%s: *%s is %d after a failure", api_names[api],
	     api_pidfd (api) ? "pidfd" : "pid", id);
  if (fds != NULL)
    {
      bool failed = support_record_failure_is_failed ();
      support_descriptors_check (fds);
      support_descriptors_free (fds);
      if (!failed && support_record_failure_is_failed ())
	FAIL_AT (line, "%s changed the descriptors", api_names[api]);
    }
  siginfo_t si = { 0 };
  if (waitid (P_ALL, 0, &si, WEXITED | WNOHANG) != -1 || errno != ECHILD)
    FAIL_AT (line, "%s left a child behind (%d)", api_names[api],
	     (int) si.si_pid);
}

/* Each interface fails with ERR.  */
static void
spawn_fails_1 (int line, const char *file,
	       const posix_spawn_file_actions_t *fa,
	       const posix_spawnattr_t *attr, int err)
{
  for (int api = 0; api < API_COUNT; api++)
    if (api_usable (api))
      spawn_check_1 (line, api, file, fa, attr, NULL, err, 0);
}
#define spawn_fails(file, fa, attr, err) \
  spawn_fails_1 (__LINE__, file, fa, attr, err)

/* posix_spawnp and pidfd_spawnp of FILE fail with ERR, or with ERR 0
   the program exits with EXIT_STATUS.  */
#define spawnp_result(file, err, exit_status) \
  do									\
    {									\
      spawn_check_1 (__LINE__, API_SPAWNP, file, NULL, NULL, NULL, err, \
		     exit_status);					\
      if (have_pidfd)							\
	spawn_check_1 (__LINE__, API_PIDFDP, file, NULL, NULL, NULL, err, \
		       exit_status);					\
    }									\
  while (0)

/* The new program blocks the signals in MASK that a program can block,
   and ignores those in IGNORED that a program can handle (either may be
   null: not checked); glibc's internal signals are never blocked.  */
static void
check_signals_1 (int line, const struct report *r, const sigset_t *mask,
		 const sigset_t *ignored)
{
  for (int sig = 1; sig < _NSIG && sig <= 64; sig++)
    {
      bool user = user_signal (sig);
      if (mask != NULL
	  && in_mask (r->blocked, sig) != (user && sig != SIGKILL
					   && sig != SIGSTOP
					   && sigismember (mask, sig) == 1))
	FAIL_AT (line, "signal %d is%s blocked in the new program", sig,
		 in_mask (r->blocked, sig) ? "" : " not");
      if (ignored != NULL && user
	  && in_mask (r->ignored, sig) != (sigismember (ignored, sig) == 1))
	FAIL_AT (line, "signal %d is%s ignored in the new program", sig,
		 in_mask (r->ignored, sig) ? "" : " not");
    }
}
#define check_signals(r, mask, ignored) \
  check_signals_1 (__LINE__, r, mask, ignored)

static bool
cloexec (int fd)
{
  int flags = fcntl (fd, F_GETFD);
  return flags != -1 && (flags & FD_CLOEXEC);
}

/* The new program has exactly this process's descriptors that are not
   close-on-exec, on the same files with the same flags, except those
   from FIRST to LAST, which the caller checks.  */
static void
check_fds_1 (int line, const struct report *r, int first, int last)
{
  for (int fd = 0; fd < MAX_FD; fd++)
    {
      if (fd >= first && fd <= last)
	continue;
      bool inherited = fcntl (fd, F_GETFD) != -1 && !cloexec (fd);
      char target[PATH_MAX];
      if (r->fd[fd].open != inherited)
	FAIL_AT (line, "descriptor %d is%s open in the new program", fd,
		 r->fd[fd].open ? "" : " not");
      else if (inherited)
	{
	  fd_target (fd, target, sizeof target);
	  int flags = fcntl (fd, F_GETFL) & FD_FLAGS;
	  if (strcmp (r->fd[fd].target, target) != 0
	      || r->fd[fd].flags != flags)
	    FAIL_AT (line, "descriptor %d: %s, flags %#x in the new program;"
		     " %s, %#x here", fd, r->fd[fd].target, r->fd[fd].flags,
		     target, flags);
	}
    }
}
#define check_fds(r, first, last) check_fds_1 (__LINE__, r, first, last)

/* Without attributes and file actions, the new program has what this
   process has.  */
static void
check_inherited_1 (int line, const struct report *r)
{
  sigset_t mask, ignored;
  TEST_COMPARE (sigprocmask (SIG_BLOCK, NULL, &mask), 0);
  sigemptyset (&ignored);
  for (int sig = 1; sig < _NSIG; sig++)
    {
      struct sigaction sa;
      if (user_signal (sig) && sigaction (sig, NULL, &sa) == 0
	  && sa.sa_handler == SIG_IGN)
	sigaddset (&ignored, sig);
    }
  check_signals_1 (line, r, &mask, &ignored);
  check_fds_1 (line, r, -1, -1);
  struct sched_param sp;
  TEST_COMPARE (sched_getparam (0, &sp), 0);
  char cwd[PATH_MAX], cgroup[PATH_MAX];
  TEST_VERIFY_EXIT (getcwd (cwd, sizeof cwd) != NULL);
  read_cgroup (cgroup, sizeof cgroup);
  if (r->pgid != getpgrp () || r->sid != getsid (0)
      || r->policy != sched_getscheduler (0)
      || r->priority != sp.sched_priority || r->uid != getuid ()
      || r->euid != geteuid () || r->gid != getgid ()
      || r->egid != getegid () || strcmp (r->cwd, cwd) != 0
      || strcmp (r->cgroup, cgroup) != 0)
    FAIL_AT (line, "the new program has pgid %d, sid %d, policy %d/%d,"
	     " ids %d %d %d %d, cwd %s, cgroup %s", (int) r->pgid,
	     (int) r->sid, r->policy, r->priority, (int) r->uid,
	     (int) r->euid, (int) r->gid, (int) r->egid, r->cwd, r->cgroup);
}
#define check_inherited(r) check_inherited_1 (__LINE__, r)

static void
attr_init (posix_spawnattr_t *attr, short int flags)
{
  TEST_COMPARE (posix_spawnattr_init (attr), 0);
  TEST_COMPARE (posix_spawnattr_setflags (attr, flags), 0);
}

/* A file or directory (CONTENTS null) in TMPDIR.  */
static char *
tmp_file (const char *name, const char *contents, mode_t mode)
{
  char *path = xasprintf ("%s/%s", tmpdir, name);
  if (contents == NULL)
    xmkdir (path, mode);
  else
    {
      int fd = xopen (path, O_WRONLY | O_CREAT | O_TRUNC, mode);
      xwrite (fd, contents, strlen (contents));
      xclose (fd);
      xchmod (path, mode);
    }
  add_temp_file (path);
  return path;
}

/* End a forked checking process; its failures are in memory it shares
   with the test.  */
static _Noreturn void
child_exit (void)
{
  fflush (stdout);
  _exit (0);
}

static void
wait_checker_1 (int line, pid_t pid, const char *what)
{
  int status;
  xwaitpid (pid, &status, 0);
  if (WIFEXITED (status) && WEXITSTATUS (status) == EXIT_UNSUPPORTED)
    printf ("info: %s: not possible here, skipped\n", what);
  else if (status != 0)
    FAIL_AT (line, "%s: status %#x", what, status);
}
#define wait_checker(pid, what) wait_checker_1 (__LINE__, pid, what)

static void
handler (int sig)
{
}

/* No attributes, no file actions: the caller's mask, ignored signals
   stay ignored and handled ones go back to the default, and exactly the
   descriptors that are not close-on-exec.  */
static void
test_inherit (void)
{
  int keep = xopen ("/dev/null", O_RDONLY, 0);
  int drop = xopen ("/dev/zero", O_RDONLY | O_CLOEXEC, 0);
  char *name = xasprintf ("%s/append", tmpdir);
  int app = xopen (name, O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK, 0600);
  add_temp_file (name);
  sigset_t set, old;
  sigemptyset (&set);
  sigaddset (&set, SIGUSR2);
  sigaddset (&set, SIGRTMIN + 1);
  TEST_COMPARE (sigprocmask (SIG_BLOCK, &set, &old), 0);
  xsignal (SIGUSR1, SIG_IGN);
  xsignal (SIGHUP, handler);

  for (int api = 0; api < API_COUNT; api++)
    if (api_usable (api))
      {
	struct report r;
	spawn_report (api, NULL, NULL, -1, &r);
	check_inherited (&r);
	TEST_VERIFY (r.fd[keep].open && !r.fd[drop].open);
	TEST_COMPARE (r.fd[app].flags, O_WRONLY | O_APPEND | O_NONBLOCK);
	TEST_VERIFY (in_mask (r.blocked, SIGUSR2));
	TEST_VERIFY (in_mask (r.ignored, SIGUSR1));
	TEST_VERIFY (!in_mask (r.ignored, SIGHUP));
      }

  TEST_COMPARE (sigprocmask (SIG_SETMASK, &old, NULL), 0);
  xsignal (SIGUSR1, SIG_DFL);
  xsignal (SIGHUP, SIG_DFL);
  xclose (keep);
  xclose (drop);
  xclose (app);
  free (name);
}

/* SETSIGMASK gives that mask, not the caller's; SETSIGDEF resets those
   signals, other ignored ones stay ignored.  */
static void
test_signals (void)
{
  sigset_t block, old;
  sigemptyset (&block);
  sigaddset (&block, SIGUSR2);
  TEST_COMPARE (sigprocmask (SIG_BLOCK, &block, &old), 0);
  xsignal (SIGUSR1, SIG_IGN);
  xsignal (SIGUSR2, SIG_IGN);
  xsignal (SIGHUP, handler);

  sigset_t sets[3];
  sigemptyset (&sets[0]);
  sigaddset (&sets[0], SIGTERM);
  sigaddset (&sets[0], SIGRTMAX);
  sigemptyset (&sets[1]);
  sigfillset (&sets[2]);
  posix_spawnattr_t attr;
  struct report r;
  attr_init (&attr, POSIX_SPAWN_SETSIGMASK);
  for (int i = 0; i < array_length (sets); i++)
    {
      TEST_COMPARE (posix_spawnattr_setsigmask (&attr, &sets[i]), 0);
      spawn_report (API_NEXT, NULL, &attr, -1, &r);
      check_signals (&r, &sets[i], NULL);
    }

  sigset_t def, ignored;
  sigemptyset (&def);
  sigaddset (&def, SIGUSR1);
  sigaddset (&def, SIGHUP);
  sigemptyset (&ignored);
  sigaddset (&ignored, SIGUSR2);
  TEST_COMPARE (posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSIGDEF), 0);
  TEST_COMPARE (posix_spawnattr_setsigdefault (&attr, &def), 0);
  spawn_report (API_NEXT, NULL, &attr, -1, &r);
  check_signals (&r, &block, &ignored);
  /* Every signal to the default, every one blocked.  */
  TEST_COMPARE (posix_spawnattr_setflags
		(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK), 0);
  TEST_COMPARE (posix_spawnattr_setsigdefault (&attr, &sets[2]), 0);
  TEST_COMPARE (posix_spawnattr_setsigmask (&attr, &sets[2]), 0);
  spawn_report (API_NEXT, NULL, &attr, -1, &r);
  check_signals (&r, &sets[2], &sets[1]);
  posix_spawnattr_destroy (&attr);

  TEST_COMPARE (sigprocmask (SIG_SETMASK, &old, NULL), 0);
  xsignal (SIGUSR1, SIG_DFL);
  xsignal (SIGUSR2, SIG_DFL);
  xsignal (SIGHUP, SIG_DFL);
}

static void
test_pgroup_sid (void)
{
  posix_spawnattr_t attr;
  struct report r;
  attr_init (&attr, POSIX_SPAWN_SETPGROUP);
  spawn_report (API_NEXT, NULL, &attr, -1, &r);
  TEST_COMPARE (r.pgid, r.pid);
  TEST_COMPARE (r.sid, getsid (0));
  TEST_COMPARE (posix_spawnattr_setpgroup (&attr, getpgrp ()), 0);
  spawn_report (API_NEXT, NULL, &attr, -1, &r);
  TEST_COMPARE (r.pgid, getpgrp ());
  TEST_COMPARE (posix_spawnattr_setpgroup (&attr, -1), 0);
  spawn_fails (true_path, NULL, &attr, EINVAL);

  TEST_COMPARE (posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSID), 0);
  spawn_report (API_NEXT, NULL, &attr, -1, &r);
  TEST_COMPARE (r.sid, r.pid);
  TEST_COMPARE (r.pgid, r.pid);
  /* setsid comes first, and a session leader cannot change its
     group.  */
  TEST_COMPARE (posix_spawnattr_setpgroup (&attr, 0), 0);
  TEST_COMPARE (posix_spawnattr_setflags
		(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETPGROUP), 0);
  spawn_fails (true_path, NULL, &attr, EPERM);
  posix_spawnattr_destroy (&attr);
}

/* Scheduling, with what needs no privileges: SCHED_BATCH for the caller,
   and priorities out of range.  */
static void
test_sched (void)
{
  posix_spawnattr_t attr;
  struct report r;
  struct sched_param sp = { .sched_priority = 0 };
  pid_t pid = xfork ();
  if (pid == 0)
    {
      TEST_COMPARE (sched_setscheduler (0, SCHED_BATCH, &sp), 0);
      attr_init (&attr, POSIX_SPAWN_SETSCHEDULER);
      TEST_COMPARE (posix_spawnattr_setschedpolicy (&attr, SCHED_OTHER), 0);
      TEST_COMPARE (posix_spawnattr_setschedparam (&attr, &sp), 0);
      spawn_report (API_NEXT, NULL, &attr, -1, &r);
      TEST_COMPARE (r.policy, SCHED_OTHER);
      /* SETSCHEDPARAM alone keeps the caller's policy.  */
      TEST_COMPARE (posix_spawnattr_setflags
		    (&attr, POSIX_SPAWN_SETSCHEDPARAM), 0);
      spawn_report (API_NEXT, NULL, &attr, -1, &r);
      TEST_COMPARE (r.policy, SCHED_BATCH);
      TEST_COMPARE (r.priority, 0);
      child_exit ();
    }
  wait_checker (pid, "SCHED_BATCH");

  attr_init (&attr, POSIX_SPAWN_SETSCHEDULER);
  sp.sched_priority = 1000;
  TEST_COMPARE (posix_spawnattr_setschedparam (&attr, &sp), 0);
  TEST_COMPARE (posix_spawnattr_setschedpolicy (&attr, SCHED_FIFO), 0);
  spawn_fails (true_path, NULL, &attr, EINVAL);
  TEST_COMPARE (posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSCHEDPARAM),
		0);
  spawn_fails (true_path, NULL, &attr, EINVAL);
  posix_spawnattr_destroy (&attr);
}

/* RESETIDS: the effective ids become the real ones.  As root, in a
   process whose effective ids are nobody's; else only as a no-op.  */
static void
test_resetids (void)
{
  posix_spawnattr_t attr;
  struct report r;
  attr_init (&attr, POSIX_SPAWN_RESETIDS);
  if (getuid () != 0)
    {
      spawn_report (API_NEXT, NULL, &attr, -1, &r);
      TEST_COMPARE (r.euid, geteuid ());
      TEST_COMPARE (r.egid, getegid ());
      posix_spawnattr_destroy (&attr);
      return;
    }
  /* The forked process makes its reports as nobody.  */
  xchmod (tmpdir, 01777);
  pid_t pid = xfork ();
  if (pid == 0)
    {
      TEST_COMPARE (setegid (65534), 0);
      TEST_COMPARE (seteuid (65534), 0);
      spawn_report (API_NEXT, NULL, &attr, -1, &r);
      TEST_COMPARE (r.euid, 0);
      TEST_COMPARE (r.egid, 0);
      TEST_COMPARE (posix_spawnattr_setflags (&attr, 0), 0);
      spawn_report (API_NEXT, NULL, &attr, -1, &r);
      TEST_COMPARE (r.uid, 0);
      TEST_COMPARE (r.euid, 65534);
      TEST_COMPARE (r.egid, 65534);
      child_exit ();
    }
  wait_checker (pid, "RESETIDS");
  xchmod (tmpdir, 0700);
  posix_spawnattr_destroy (&attr);
}

static void
test_file_actions (void)
{
  posix_spawn_file_actions_t fa;
  struct report r;
  char *out = xasprintf ("%s/out", tmpdir);
  add_temp_file (out);
  char *rel = tmp_file ("rel", "", 0600);
  /* Fixed numbers above what the test has open.  */
  enum { target = 100, ce, gone, dupped, same, cefd, relfd };
  int nul = xopen ("/dev/null", O_RDONLY, 0);
  xdup2 (nul, target);
  xdup2 (nul, gone);
  int zero = xopen ("/dev/zero", O_RDONLY | O_CLOEXEC, 0);
  xdup2 (zero, same);
  TEST_COMPARE (fcntl (same, F_SETFD, FD_CLOEXEC), 0);
  int dirfd = xopen (tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

  /* open closes TARGET first and lands on it.  The actions run in order:
     the chdir applies to the open after it.  */
  TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
  ADD (open, &fa, target, out, O_WRONLY | O_CREAT | O_APPEND, 0640);
  ADD (open, &fa, ce, out, O_RDONLY | O_CLOEXEC, 0);
  ADD (close, &fa, gone);
  /* Closing a descriptor that is not open is no error.  */
  ADD (close, &fa, MAX_FD - 1);
  ADD (dup2, &fa, zero, dupped);
  /* dup2 onto itself clears FD_CLOEXEC (Austin Group issue #411).  */
  ADD (dup2, &fa, same, same);
  ADD (dup2, &fa, target, cefd);
  ADD (chdir_np, &fa, tmpdir);
  ADD (open, &fa, relfd, "rel", O_RDWR, 0);
  spawn_report (API_NEXT, &fa, NULL, -1, &r);
  TEST_COMPARE (posix_spawn_file_actions_destroy (&fa), 0);
  check_fds (&r, target, relfd);
  TEST_COMPARE_STRING (r.fd[target].target, out);
  TEST_COMPARE (r.fd[target].flags, O_WRONLY | O_APPEND);
  struct stat st;
  TEST_COMPARE (stat (out, &st), 0);
  TEST_COMPARE (st.st_mode & 0777, 0640 & ~022);
  /* Open-then-dup2 drops O_CLOEXEC.  */
  TEST_COMPARE_STRING (r.fd[ce].target, out);
  TEST_COMPARE (r.fd[ce].flags, O_RDONLY);
  TEST_VERIFY (!r.fd[gone].open);
  TEST_COMPARE_STRING (r.fd[dupped].target, "/dev/zero");
  TEST_COMPARE_STRING (r.fd[same].target, "/dev/zero");
  TEST_COMPARE_STRING (r.fd[cefd].target, out);
  TEST_COMPARE_STRING (r.fd[relfd].target, rel);
  TEST_COMPARE (r.fd[relfd].flags, O_RDWR);
  TEST_COMPARE_STRING (r.cwd, tmpdir);
  /* The caller's table is untouched.  */
  TEST_COMPARE (fcntl (gone, F_GETFD), 0);
  TEST_VERIFY (cloexec (same));

  /* No open and no chdir by name: the close-on-exec descriptors the
     actions name are there for them.  */
  TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
  ADD (dup2, &fa, zero, dupped);
  ADD (dup2, &fa, same, same);
  ADD (fchdir_np, &fa, dirfd);
  ADD (close, &fa, gone);
  ADD (closefrom_np, &fa, same + 1);
  for (int api = 0; api < API_COUNT; api++)
    if (api_usable (api))
      {
	spawn_report (api, &fa, NULL, -1, &r);
	check_fds (&r, gone, MAX_FD - 1);
	TEST_VERIFY (!r.fd[gone].open);
	TEST_COMPARE_STRING (r.fd[dupped].target, "/dev/zero");
	TEST_COMPARE_STRING (r.fd[same].target, "/dev/zero");
	for (int fd = same + 1; fd < MAX_FD; fd++)
	  TEST_VERIFY (!r.fd[fd].open);
	TEST_COMPARE_STRING (r.cwd, tmpdir);
      }
  TEST_COMPARE (posix_spawn_file_actions_destroy (&fa), 0);

  /* An O_CLOEXEC open that lands on its target, the lowest free
     descriptor, keeps the flag.  */
  int lowest = xopen ("/dev/null", O_RDONLY, 0);
  xclose (lowest);
  TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
  ADD (open, &fa, lowest, out, O_RDONLY | O_CLOEXEC, 0);
  spawn_report (API_NEXT, &fa, NULL, -1, &r);
  TEST_COMPARE (posix_spawn_file_actions_destroy (&fa), 0);
  check_fds (&r, -1, -1);

  xclose (dirfd);
  xclose (nul);
  xclose (zero);
  xclose (target);
  xclose (gone);
  xclose (same);
  free (rel);
  free (out);
}

/* The program named through a close-on-exec descriptor of the caller's,
   as fexecve does: the name is resolved before the exec closes it.  */
static void
test_program_by_descriptor (void)
{
  int fd = xopen (initial_argv[0], O_RDONLY | O_CLOEXEC, 0);
  const char *const formats[] =
    { "/proc/self/fd/%d", "/dev/fd/%d", "//proc/self/fd/%d" };
  for (int i = 0; i < array_length (formats); i++)
    {
      char *name = xasprintf (formats[i], fd);
      struct report r;
      if (access (name, X_OK) != 0)
	printf ("info: %s: %m, skipped\n", name);
      else
	{
	  spawn_report_1 (__LINE__, API_NEXT, name, NULL, NULL, -1, &r);
	  check_inherited (&r);
	}
      free (name);
    }
  xclose (fd);
}

/* tcsetpgrp, in a new session whose controlling terminal is a
   pseudo-terminal, as in tst-spawn6.  */
static void
test_tcsetpgrp (void)
{
  pid_t pid = xfork ();
  if (pid == 0)
    {
      int ptmx = posix_openpt (O_RDWR | O_NOCTTY);
      if (ptmx == -1)
	FAIL_UNSUPPORTED ("posix_openpt: %m");
      TEST_COMPARE (grantpt (ptmx), 0);
      TEST_COMPARE (unlockpt (ptmx), 0);
      TEST_VERIFY_EXIT (setsid () != -1);
      int tty = xopen (ptsname (ptmx), O_RDWR, 0);
      TEST_COMPARE (ioctl (tty, TIOCSCTTY, 0), 0);

      posix_spawnattr_t attr;
      posix_spawn_file_actions_t fa;
      struct report r;
      attr_init (&attr, POSIX_SPAWN_SETPGROUP);
      TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
      ADD (tcsetpgrp_np, &fa, tty);
      spawn_report (API_NEXT, &fa, &attr, tty, &r);
      TEST_COMPARE (r.pgid, r.pid);
      TEST_COMPARE (r.tcpgrp, r.pid);
      /* Without SETPGROUP, the caller's group, from the background.  */
      TEST_COMPARE (posix_spawnattr_setflags (&attr, 0), 0);
      spawn_report (API_NEXT, &fa, &attr, tty, &r);
      TEST_COMPARE (r.tcpgrp, getpgrp ());
      TEST_COMPARE (tcgetpgrp (tty), getpgrp ());
      /* After setsid the terminal is not the controlling one.  */
      TEST_COMPARE (posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSID), 0);
      spawn_fails (true_path, &fa, &attr, ENOTTY);
      posix_spawn_file_actions_destroy (&fa);
      posix_spawnattr_destroy (&attr);
      child_exit ();
    }
  wait_checker (pid, "tcsetpgrp");
}

/* POSIX_SPAWN_SETCGROUP: the child starts in that cgroup.  Needs cgroup
   v2 at /sys/fs/cgroup, where this process can make a group (removed at
   exit); else only the error for a bad descriptor is checked.  */
static void
test_cgroup (void)
{
  posix_spawnattr_t attr;
  attr_init (&attr, POSIX_SPAWN_SETCGROUP);
  TEST_COMPARE (posix_spawnattr_setcgroup_np (&attr, -1), 0);
  char *args[] = { (char *) true_path, NULL };
  pid_t pid;
  int ret = posix_spawn (&pid, true_path, NULL, &attr, args, environ);
  if (ret == 0)
    xwaitpid (pid, NULL, 0);
  else if (ret == ENOTSUP)
    {
      printf ("info: POSIX_SPAWN_SETCGROUP: ENOTSUP, skipped\n");
      posix_spawnattr_destroy (&attr);
      return;
    }
  spawn_fails (true_path, NULL, &attr, EINVAL);

  struct statfs fs;
  char own[PATH_MAX];
  read_cgroup (own, sizeof own);
  char *group = xasprintf ("%s/tst-spawn-uring-%d",
			   strcmp (own, "/") == 0 ? "" : own, (int) getpid ());
  char *path = xasprintf ("/sys/fs/cgroup%s", group);
  if (statfs ("/sys/fs/cgroup", &fs) != 0 || fs.f_type != CGROUP2_SUPER_MAGIC
      || own[0] != '/')
    printf ("info: no cgroup v2 at /sys/fs/cgroup, POSIX_SPAWN_SETCGROUP"
	    " only checked with a bad descriptor\n");
  else if (mkdir (path, 0755) != 0)
    printf ("info: mkdir %s: %m, POSIX_SPAWN_SETCGROUP only checked with"
	    " a bad descriptor\n", path);
  else
    {
      add_temp_file (path);
      int fd = xopen (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
      TEST_COMPARE (posix_spawnattr_setcgroup_np (&attr, fd), 0);
      for (int api = 0; api < API_COUNT; api++)
	if (api_usable (api))
	  {
	    struct report r;
	    spawn_report (api, NULL, &attr, -1, &r);
	    TEST_COMPARE_STRING (r.cgroup, group);
	  }
      spawn_fails (missing, NULL, &attr, ENOENT);
      xclose (fd);
    }
  free (path);
  free (group);
  posix_spawnattr_destroy (&attr);
}

/* Exec errors reach the caller.  The PATH search goes on past EACCES
   and ENOENT, reports EACCES if it saw one, and stops at other errors;
   only the compat symbols try /bin/sh after ENOEXEC.  */
static void
test_exec_errors (void)
{
  spawn_fails (missing, NULL, NULL, ENOENT);
  spawn_fails ("", NULL, NULL, ENOENT);
  spawn_fails (tmpdir, NULL, NULL, EACCES);
  char *noexec = tmp_file ("noexec", "#!/bin/sh\nexit 0\n", 0644);
  spawn_fails (noexec, NULL, NULL, EACCES);
  char *script = tmp_file ("script", "exit 7\n", 0755);
  spawn_fails (script, NULL, NULL, ENOEXEC);

  char *dirs[3];
  const char *names[] = { "p-eacces", "p-noexec", "p-ok" };
  const char *bodies[] = { "#!/bin/sh\nexit 1\n", "exit 2\n",
			   "#!/bin/sh\nexit 42\n" };
  for (int i = 0; i < 3; i++)
    {
      dirs[i] = tmp_file (names[i], NULL, 0755);
      char *prog = xasprintf ("%s/prog", names[i]);
      free (tmp_file (prog, bodies[i], i == 0 ? 0644 : 0755));
      free (prog);
    }
  char *saved = xstrdup (getenv ("PATH"));
  const char *paths[][3] =
    {
      { missing, dirs[0], dirs[2] },
      { missing, dirs[0], missing },
      { dirs[0], missing, missing },
      { missing, missing, missing },
      { missing, dirs[1], dirs[2] },
    };
  const int errs[] = { 0, EACCES, EACCES, ENOENT, ENOEXEC };
  for (int i = 0; i < array_length (paths); i++)
    {
      char *path = xasprintf ("%s:%s:%s", paths[i][0], paths[i][1],
			      paths[i][2]);
      TEST_COMPARE (setenv ("PATH", path, 1), 0);
      spawnp_result ("prog", errs[i], 42);
      free (path);
    }
  /* A name with a slash is not searched for.  */
  spawnp_result ("p-ok/prog", ENOENT, 0);
  spawnp_result ("", ENOENT, 0);
  /* Without PATH, confstr (_CS_PATH), which has /bin.  */
  TEST_COMPARE (unsetenv ("PATH"), 0);
  spawnp_result ("true", 0, 0);

#if TEST_COMPAT (libc, GLIBC_2_2, GLIBC_2_15)
  /* /bin/sh gets the name as found, and searches PATH for it again if it
     has no slash.  */
  char *path = xasprintf ("%s:%s", missing, dirs[2]);
  TEST_COMPARE (setenv ("PATH", path, 1), 0);
  spawn_check_1 (__LINE__, API_COMPAT, script, NULL, NULL, NULL, 0, 7);
  spawn_check_1 (__LINE__, API_COMPATP, script, NULL, NULL, NULL, 0, 7);
  spawn_check_1 (__LINE__, API_COMPATP, "prog", NULL, NULL, NULL, 0, 42);
  spawn_check_1 (__LINE__, API_COMPATP, "none", NULL, NULL, NULL, ENOENT,
		 0);
  free (path);
#endif
  TEST_COMPARE (setenv ("PATH", saved, 1), 0);
  free (saved);
  for (int i = 0; i < 3; i++)
    free (dirs[i]);
  free (noexec);
  free (script);
}

/* A file action that fails gives its error, after one that works.  */
static void
test_action_errors (void)
{
  char *plain = tmp_file ("plain", "x", 0600);
  int plainfd = xopen (plain, O_RDONLY | O_CLOEXEC, 0);
  int closed = 200;
  TEST_VERIFY_EXIT (fcntl (closed, F_GETFD) == -1);
  posix_spawn_file_actions_t fa[7];
  const int errs[] = { ENOENT, EISDIR, EBADF, ENOENT, ENOTDIR, EBADF,
		       ENOTDIR };
  for (int i = 0; i < array_length (fa); i++)
    {
      TEST_COMPARE (posix_spawn_file_actions_init (&fa[i]), 0);
      ADD (close, &fa[i], MAX_FD - 1);
    }
  ADD (open, &fa[0], 100, missing, O_RDONLY, 0);
  ADD (open, &fa[1], 100, tmpdir, O_WRONLY, 0);
  ADD (dup2, &fa[2], closed, 100);
  ADD (chdir_np, &fa[3], missing);
  ADD (chdir_np, &fa[4], plain);
  ADD (fchdir_np, &fa[5], closed);
  ADD (fchdir_np, &fa[6], plainfd);
  for (int i = 0; i < array_length (fa); i++)
    {
      spawn_fails (true_path, &fa[i], NULL, errs[i]);
      TEST_COMPARE (posix_spawn_file_actions_destroy (&fa[i]), 0);
    }

  /* Closing a descriptor that is not open fails only at or above
     RLIMIT_NOFILE.  */
  struct rlimit rl, low;
  TEST_COMPARE (getrlimit (RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_cur > 500)
    {
      TEST_COMPARE (posix_spawn_file_actions_init (&fa[0]), 0);
      ADD (close, &fa[0], 500);
      spawn_check_1 (__LINE__, API_NEXT, true_path, &fa[0], NULL, NULL, 0,
		     0);
      low = rl;
      low.rlim_cur = MAX_FD;
      TEST_COMPARE (setrlimit (RLIMIT_NOFILE, &low), 0);
      spawn_fails (true_path, &fa[0], NULL, EBADF);
      TEST_COMPARE (setrlimit (RLIMIT_NOFILE, &rl), 0);
      TEST_COMPARE (posix_spawn_file_actions_destroy (&fa[0]), 0);
    }
  xclose (plainfd);
  free (plain);
}

/* A PATH of COUNT entries that do not exist, then LAST.  */
static char *
make_path (int count, const char *last)
{
  char *path = xstrdup (last);
  for (int i = 0; i < count; i++)
    {
      char *p = xasprintf ("%s/missing-%d:%s", tmpdir, i, path);
      free (path);
      path = p;
    }
  return path;
}

/* A spawn that needs more SQEs than a chain may have (64: the clone,
   one per file action, one exec per name tried), or longer names: the
   same results.  */
static void
test_limits (void)
{
  struct report ref, r;
  spawn_report (API_SPAWN, NULL, NULL, -1, &ref);
  int nul = xopen ("/dev/null", O_RDONLY | O_CLOEXEC, 0);
  for (int n = 61; n <= 63; n++)
    {
      /* N actions, the last of which shows that they all ran.  */
      posix_spawn_file_actions_t fa;
      TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
      for (int i = 0; i < n - 1; i++)
	ADD (close, &fa, MAX_FD - 1);
      ADD (dup2, &fa, nul, 150);
      spawn_report (API_NEXT, &fa, NULL, -1, &r);
      TEST_COMPARE_STRING (r.fd[150].target, "/dev/null");
      /* glibc's internal signals too.  */
      TEST_COMPARE (r.blocked, ref.blocked);
      TEST_COMPARE (r.ignored, ref.ignored);
      ADD (open, &fa, 151, missing, O_RDONLY, 0);
      spawn_fails (true_path, &fa, NULL, ENOENT);
      TEST_COMPARE (posix_spawn_file_actions_destroy (&fa), 0);
    }
  xclose (nul);

  char *saved = xstrdup (getenv ("PATH"));
  char *dir = tmp_file ("limits", NULL, 0755);
  free (tmp_file ("limits/prog", "#!/bin/sh\nexit 43\n", 0755));
  for (int n = 62; n <= 64; n++)
    {
      char *path = make_path (n, missing);
      TEST_COMPARE (setenv ("PATH", path, 1), 0);
      spawnp_result ("prog", ENOENT, 0);
      free (path);
      path = make_path (n - 1, dir);
      TEST_COMPARE (setenv ("PATH", path, 1), 0);
      spawnp_result ("prog", 0, 43);
      free (path);
    }
  /* NAME_MAX bytes are searched for, more are not.  */
  TEST_COMPARE (setenv ("PATH", dir, 1), 0);
  char name[NAME_MAX + 2];
  memset (name, 'n', sizeof name);
  name[NAME_MAX] = '\0';
  spawnp_result (name, ENOENT, 0);
  name[NAME_MAX] = 'n';
  name[NAME_MAX + 1] = '\0';
  spawnp_result (name, ENAMETOOLONG, 0);
  TEST_COMPARE (setenv ("PATH", saved, 1), 0);
  free (saved);
  free (dir);
}

/* Spawns in a child of fork, of a raw clone, or in a new PID namespace,
   which may start with a copy of its parent's ring.  In a new PID
   namespace PIDFD is false: pidfd_getpid may answer in /proc's.  */
static void
spawns_in_child (bool pidfd)
{
  for (int api = 0; api < API_COUNT; api++)
    if (api_usable (api) && (pidfd || !api_pidfd (api)))
      {
	struct report r;
	spawn_report (api, NULL, NULL, -1, &r);
	check_inherited (&r);
	spawn_check_1 (__LINE__, api, missing, NULL, NULL, NULL, ENOENT, 0);
      }
}

static void
test_fork_children (void)
{
  struct report r;
  spawn_report (API_SPAWN, NULL, NULL, -1, &r);
  pid_t pid = xfork ();
  if (pid == 0)
    {
      spawns_in_child (true);
      child_exit ();
    }
  wait_checker (pid, "fork");

  /* glibc does not know the tid of a raw clone's child.  */
#ifdef __s390__
  pid = syscall (SYS_clone, 0, SIGCHLD, NULL, NULL, 0);
#else
  pid = syscall (SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
#endif
  if (pid == 0)
    {
      spawns_in_child (true);
      child_exit ();
    }
  TEST_VERIFY_EXIT (pid > 0);
  wait_checker (pid, "clone (SIGCHLD)");

  /* Process 1 of a new PID namespace spawns, then makes process 1 of
     another, whose tid is its parent's.  */
  pid = xfork ();
  if (pid == 0)
    {
      if (unshare (CLONE_NEWPID) != 0)
	FAIL_UNSUPPORTED ("unshare (CLONE_NEWPID): %m");
      pid_t init = xfork ();
      if (init == 0)
	{
	  TEST_COMPARE (getpid (), 1);
	  spawns_in_child (false);
	  if (unshare (CLONE_NEWPID) != 0)
	    FAIL_EXIT1 ("unshare (CLONE_NEWPID) in process 1: %m");
	  pid_t inner = xfork ();
	  if (inner == 0)
	    {
	      TEST_COMPARE (getpid (), 1);
	      spawns_in_child (false);
	      child_exit ();
	    }
	  wait_checker (inner, "nested PID namespace");
	  child_exit ();
	}
      wait_checker (init, "PID namespace");
      child_exit ();
    }
  wait_checker (pid, "unshare (CLONE_NEWPID)");
  spawn_report (API_SPAWN, NULL, NULL, -1, &r);
  check_inherited (&r);
}

#ifdef TEST_AUDIT_ARCH
static void *
report_thread (void *closure)
{
  struct report r;
  spawn_report (API_NEXT, NULL, NULL, -1, &r);
  check_inherited (&r);
  return NULL;
}
#endif

/* Under a seccomp filter that kills the process at any io_uring call,
   spawns work: glibc must not try io_uring.  */
static void
test_seccomp (void)
{
#ifdef TEST_AUDIT_ARCH
  struct sock_filter filter[] =
    {
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
		offsetof (struct seccomp_data, arch)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 3, 0),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_enter, 2, 0),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_register, 1, 0),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    };
  struct sock_fprog prog = { .len = array_length (filter), .filter = filter };
  pid_t pid = xfork ();
  if (pid == 0)
    {
      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
	  || prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
	FAIL_UNSUPPORTED ("seccomp: %m");
      spawns_in_child (true);
      /* A thread's first spawn.  */
      xpthread_join (xpthread_create (NULL, report_thread, NULL));
      child_exit ();
    }
  wait_checker (pid, "seccomp");
#endif
}

/* Threads that spawn at once, each with a signal mask of its own.  */
enum { threads_count = 8 };
static pthread_barrier_t barrier;

static void *
spawn_thread (void *closure)
{
  int i = (intptr_t) closure;
  sigset_t set, mask;
  sigemptyset (&set);
  sigaddset (&set, SIGRTMIN + i);
  xpthread_sigmask (SIG_BLOCK, &set, &mask);
  sigaddset (&mask, SIGRTMIN + i);
  xpthread_barrier_wait (&barrier);

  struct report r;
  spawn_report (API_NEXT, NULL, NULL, -1, &r);
  check_signals (&r, &mask, NULL);
  posix_spawnattr_t attr;
  attr_init (&attr, POSIX_SPAWN_SETSIGMASK);
  sigemptyset (&set);
  sigaddset (&set, SIGRTMIN + threads_count + i);
  TEST_COMPARE (posix_spawnattr_setsigmask (&attr, &set), 0);
  spawn_report (API_NEXT, NULL, &attr, -1, &r);
  check_signals (&r, &set, NULL);
  posix_spawnattr_destroy (&attr);

  char *args[] = { (char *) true_path, NULL };
  for (int j = 0; j < 4; j++)
    {
      int api = api_resolve (API_NEXT), id, status;
      int ret = spawn_api (api, &id, true_path, NULL, NULL, args, environ);
      if (ret != 0)
	FAIL ("%s in thread %d: %s", api_names[api], i,
	      strerrorname_np (ret));
      else
	{
	  wait_child (__LINE__, api, id, &status);
	  TEST_COMPARE (status, 0);
	}
    }
  return NULL;
}

static void
test_threads (void)
{
  pthread_t threads[threads_count];
  xpthread_barrier_init (&barrier, NULL, threads_count);
  for (int i = 0; i < threads_count; i++)
    threads[i] = xpthread_create (NULL, spawn_thread, (void *) (intptr_t) i);
  for (int i = 0; i < threads_count; i++)
    xpthread_join (threads[i]);
  xpthread_barrier_destroy (&barrier);
  TEST_COMPARE (waitid (P_ALL, 0, &(siginfo_t) { 0 }, WEXITED | WNOHANG),
		-1);
  TEST_COMPARE (errno, ECHILD);
}

/* Run every check in a new process with glibc.spawn.io_uring=VALUE:
   PROGRAM --direct --uring-X -- PROGRAM, as the test was run.  The
   checks compare the new program's descriptors and signals with their
   caller's, so that process starts with nothing inherited: inherited
   descriptors are shared with others, who may change them meanwhile (a
   new run of the test removes its output file), or may hold numbers the
   checks use, and inherited ignored signals are not what the checks
   expect.  Its output comes through a pipe.  */
static void
run_mode (int value)
{
  int fds[2];
  xpipe (fds);
  pid_t pid = xfork ();
  if (pid == 0)
    {
      xdup2 (fds[1], STDOUT_FILENO);
      xdup2 (fds[1], STDERR_FILENO);
      int nul = xopen ("/dev/null", O_RDONLY, 0);
      xdup2 (nul, STDIN_FILENO);
      closefrom (STDERR_FILENO + 1);
      for (int sig = 1; sig < _NSIG; sig++)
	if (user_signal (sig) && sig != SIGKILL && sig != SIGSTOP)
	  xsignal (sig, SIG_DFL);
      sigset_t none;
      sigemptyset (&none);
      TEST_COMPARE (sigprocmask (SIG_SETMASK, &none, NULL), 0);
      const char *old = getenv ("GLIBC_TUNABLES");
      char *tunables = old != NULL
	? xasprintf ("%s:glibc.spawn.io_uring=%d", old, value)
	: xasprintf ("glibc.spawn.io_uring=%d", value);
      TEST_COMPARE (setenv ("GLIBC_TUNABLES", tunables, 1), 0);
      char *args[2 * initial_argc + 4];
      int argc = 0;
      for (int i = 0; i < initial_argc; i++)
	args[argc++] = initial_argv[i];
      args[argc++] = (char *) "--direct";
      args[argc++] = (char *) (value ? "--uring-on" : "--uring-off");
      args[argc++] = (char *) "--";
      for (int i = 0; i < initial_argc; i++)
	args[argc++] = initial_argv[i];
      args[argc] = NULL;
      execv (args[0], args);
      FAIL_EXIT1 ("execv (%s): %m", args[0]);
    }
  xclose (fds[1]);
  char buf[512];
  ssize_t n;
  while ((n = read (fds[0], buf, sizeof buf)) > 0)
    xwrite (STDOUT_FILENO, buf, n);
  xclose (fds[0]);
  int status;
  xwaitpid (pid, &status, 0);
  if (status != 0)
    FAIL ("checks with glibc.spawn.io_uring=%d: status %#x", value, status);
}

static int
do_test (int argc, char **argv)
{
  if (restart)
    return handle_restart (argc, argv);
  /* Expected: [ld.so --library-path PATH] PROGRAM.  */
  TEST_VERIFY_EXIT (argc == 2 || argc == 5);
  initial_argc = argc - 1;
  initial_argv = argv + 1;
  if (mode == 0)
    {
      run_mode (0);
      run_mode (1);
      return 0;
    }

  support_need_proc ("the spawned program reports from /proc/self");
  struct support_descriptors *fds = support_descriptors_list ();
  char *dir = support_create_temp_directory ("tst-spawn-uring-");
  /* The report has the cwd with symbolic links resolved.  */
  tmpdir = realpath (dir, NULL);
  TEST_VERIFY_EXIT (tmpdir != NULL);
  free (dir);
  missing = xasprintf ("%s/missing", tmpdir);
  umask (022);
  xsignal (SIGCHLD, SIG_DFL);
  printf ("info: glibc.spawn.io_uring=%d, AT_IO_URING_SPAWN %#lx\n",
	  mode - 1, getauxval (AT_IO_URING_SPAWN));

  int pidfd, status;
  char *args[] = { (char *) true_path, NULL };
  int ret = pidfd_spawn (&pidfd, true_path, NULL, NULL, args, environ);
  have_pidfd = ret == 0;
  if (ret == ENOSYS)
    printf ("info: pidfd_spawn: ENOSYS, skipped\n");
  else if (ret != 0)
    FAIL_EXIT1 ("pidfd_spawn (%s): %s", true_path, strerrorname_np (ret));
  else
    {
      wait_child (__LINE__, API_PIDFD, pidfd, &status);
      TEST_COMPARE (status, 0);
    }

  /* posix_spawnp finds this program after a name that does not
     exist.  */
  char *bin = tmp_file ("bin", NULL, 0755);
  char *prog = xasprintf ("%s/" PROG_NAME, bin);
  char *target = realpath (initial_argv[0], NULL);
  TEST_VERIFY_EXIT (target != NULL);
  xsymlink (target, prog);
  add_temp_file (prog);
  char *path = xasprintf ("%s:%s:%s", missing, bin, getenv ("PATH") ?: "");
  TEST_COMPARE (setenv ("PATH", path, 1), 0);

  test_inherit ();
  test_signals ();
  test_pgroup_sid ();
  test_sched ();
  test_resetids ();
  test_file_actions ();
  test_tcsetpgrp ();
  test_cgroup ();
  test_exec_errors ();
  test_action_errors ();
  test_limits ();
  test_fork_children ();
  test_seccomp ();
  test_threads ();
  test_program_by_descriptor ();

  free (path);
  free (target);
  free (prog);
  free (bin);
  free (missing);
  free (tmpdir);
  support_descriptors_check (fds);
  support_descriptors_free (fds);
  return 0;
}

/* Each run starts this program about a hundred times, which is slow
   under emulation.  */
#define TIMEOUT 60
#define TEST_FUNCTION_ARGV do_test
#include <support/test-driver.c>
