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

/* Every check runs in new processes with glibc.spawn.io_uring=0 and =1.
   Where the kernel runs io_uring spawn chains the second run spawns
   through them, except where spawni-uring.c leaves a spawn to the clone
   path (more SQEs than the ring has, long names, the compat symbols,
   seccomp); elsewhere both take the clone path.  The results must be
   the same.  Which path a spawn took needs the kernel's trace events and
   is not checked here.

   Most checks run this program again with --restart REPORT ARGS; it
   writes to REPORT what it sees, and the caller compares that with what
   it asked for.  A failure must return the error, leave *PID or *PIDFD
   alone, and leave no child and no descriptor behind.  */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <array_length.h>
#include <libc-pointer-arith.h>
#include <shlib-compat.h>
#include <support/check.h>
#include <support/descriptors.h>
#include <support/support.h>
#include <support/temp_file.h>
#include <support/test-driver.h>
#include <support/tty.h>
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
/* pidfd_spawn works here (CLONE_PIDFD and P_PIDFD).  */
static bool have_pidfd;
/* Other threads spawn: a child of this process may be theirs.  */
static bool threaded;

/* What the spawned program saw.  */
struct report
{
  pid_t pid, ppid, pgid, sid, tcpgrp;
  int policy, priority;
  uid_t uid, euid;
  gid_t gid, egid;
  /* As the kernel has them, with glibc's internal signals; bit N - 1 is
     signal N.  */
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

#define FAIL_AT(line, ...) \
  support_print_failure_impl (__FILE__, line, __VA_ARGS__)
#define FAIL_EXIT1_AT(line, ...) \
  support_exit_failure_impl (1, __FILE__, line, __VA_ARGS__)

/* Add a file action, which must be accepted.  */
#define ADD(action, ...) \
  TEST_COMPARE (posix_spawn_file_actions_add##action (__VA_ARGS__), 0)

#define in_mask(mask, sig) (((mask) >> ((sig) - 1)) & 1)
/* Not one of glibc's two internal signals below SIGRTMIN.  */
#define user_signal(sig) ((sig) < __SIGRTMIN || (sig) >= SIGRTMIN)
#define cloexec(fd) (fcntl (fd, F_GETFD) == FD_CLOEXEC)

/* The rest of the line of /proc/self/FILE that starts with PREFIX, or
   "".  */
static void
proc_line (const char *file, const char *prefix, char *buf, size_t size)
{
  char *path = xasprintf ("/proc/self/%s", file), *line = NULL;
  FILE *f = xfopen (path, "re");
  size_t n = 0, len = strlen (prefix);
  buf[0] = '\0';
  while (getline (&line, &n, f) > 0)
    if (strncmp (line, prefix, len) == 0)
      snprintf (buf, size, "%.*s", (int) strcspn (line + len, "\n"),
		line + len);
  free (line);
  free (path);
  xfclose (f);
}
/* This process's cgroup v2 path, or "".  */
#define read_cgroup(buf, size) proc_line ("cgroup", "0::", buf, size)

static void
fd_target (int fd, char *buf, size_t size)
{
  char link[64];
  snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink (link, buf, size - 1);
  TEST_VERIFY_EXIT (n > 0);
  buf[n] = '\0';
}

/* The spawned program: PROGRAM REPORT ARGS...  It writes its struct
   report to REPORT, which it opens last so that the descriptor is not in
   it.  A terminal is its standard input, if any.  */
static int
handle_restart (int argc, char **argv)
{
  TEST_VERIFY_EXIT (argc >= 2);
  static struct report r;
  struct sched_param sp;
  TEST_COMPARE (sched_getparam (0, &sp), 0);
  r.pid = getpid ();
  r.ppid = getppid ();
  r.pgid = getpgid (0);
  r.sid = getsid (0);
  r.tcpgrp = tcgetpgrp (STDIN_FILENO);
  r.policy = sched_getscheduler (0);
  r.priority = sp.sched_priority;
  r.uid = getuid ();
  r.euid = geteuid ();
  r.gid = getgid ();
  r.egid = getegid ();
  TEST_VERIFY_EXIT (getcwd (r.cwd, sizeof r.cwd) != NULL);
  read_cgroup (r.cgroup, sizeof r.cgroup);
  snprintf (r.env, sizeof r.env, "%s", getenv ("TST_SPAWN_URING") ?: "");
  for (int i = 2; i < argc && r.nargs < array_length (r.args); i++)
    snprintf (r.args[r.nargs++], sizeof r.args[0], "%s", argv[i]);
  char buf[64];
  proc_line ("status", "SigBlk:", buf, sizeof buf);
  r.blocked = strtoull (buf, NULL, 16);
  proc_line ("status", "SigIgn:", buf, sizeof buf);
  r.ignored = strtoull (buf, NULL, 16);
  for (int fd = 0; fd < MAX_FD; fd++)
    {
      r.fd[fd].open = fcntl (fd, F_GETFD) != -1;
      if (r.fd[fd].open)
	{
	  r.fd[fd].flags = fcntl (fd, F_GETFL) & FD_FLAGS;
	  fd_target (fd, r.fd[fd].target, sizeof r.fd[fd].target);
	}
    }
  int fd = xopen (argv[1], O_WRONLY | O_TRUNC | O_CLOEXEC, 0);
  xwrite (fd, &r, sizeof r);
  xclose (fd);
  return 0;
}

/* The four interfaces, then the compat ones, called on their own.  */
enum
{
  API_SPAWN, API_SPAWNP, API_PIDFD, API_PIDFDP, API_COUNT,
  API_COMPAT = API_COUNT, API_COMPATP,
  /* The next of the four, in turn.  */
  API_NEXT = -1
};
static const struct
{
  const char *name;
  __typeof (posix_spawn) *fn;
} apis[] =
  {
    { "posix_spawn", posix_spawn }, { "posix_spawnp", posix_spawnp },
    { "pidfd_spawn", pidfd_spawn }, { "pidfd_spawnp", pidfd_spawnp },
#if TEST_COMPAT (libc, GLIBC_2_2, GLIBC_2_15)
    { "compat posix_spawn", compat_posix_spawn },
    { "compat posix_spawnp", compat_posix_spawnp },
#endif
  };
#define APIS_ALL 0xf
#define APIS_PATH ((1 << API_SPAWNP) | (1 << API_PIDFDP))

#define api_pidfd(api) ((api) == API_PIDFD || (api) == API_PIDFDP)
#define api_usable(api) (have_pidfd || !api_pidfd (api))
#define FOR_EACH_API(api) \
  for (int api = 0; api < API_COUNT; api++) \
    if (api_usable (api))

/* Wait for the child that API gave as ID, a pid or a pidfd; return its
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
	FAIL_EXIT1_AT (line, "%s gave %d, which is no pidfd (%m)",
		       apis[api].name, id);
      TEST_COMPARE (waitid (P_PIDFD, id, &si, WEXITED), 0);
      TEST_COMPARE (si.si_pid, pid);
      xclose (id);
    }
  else
    TEST_COMPARE (waitid (P_PID, id, &si, WEXITED), 0);
  *status = si.si_code == CLD_EXITED ? si.si_status : 256 + si.si_status;
  return si.si_pid;
}

/* Spawn FILE with API (or the next of the four), FA and ATTR.  With ERR
   0 it must succeed and the program exit with EXIT_STATUS; else it must
   fail with ERR, leave *PID or *PIDFD alone and the descriptors as they
   were.  No child is left.  With R, the program is this one (FILE null:
   by its usual name), with arguments and an environment of its own
   (ENVP, not environ), and its report goes to *R.  */
static void
spawn_1 (int line, int api, const char *file,
	 const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
	 int err, int exit_status, struct report *r)
{
  static unsigned int counter, next;
  while (api == API_NEXT || !api_usable (api))
    api = __atomic_fetch_add (&next, 1, __ATOMIC_RELAXED) % API_COUNT;
  const char *name = apis[api].name;
  char *args[initial_argc + 6], *report = NULL;
  char *envp[] = { xasprintf ("TST_SPAWN_URING=%s", name), NULL };
  int argc = 0;
  if (r != NULL)
    {
      report = xasprintf ("%s/report-%u", tmpdir,
			  __atomic_fetch_add (&counter, 1, __ATOMIC_RELAXED));
      /* Writable by all: the RESETIDS check runs the program as nobody.  */
      xclose (xopen (report, O_WRONLY | O_CREAT | O_CLOEXEC, 0));
      xchmod (report, 0666);
      for (int i = 0; i < initial_argc; i++)
	args[argc++] = initial_argv[i];
      args[argc++] = (char *) "--direct";
      args[argc++] = (char *) "--restart";
      args[argc++] = report;
      args[argc++] = (char *) "";
      args[argc++] = (char *) "two words";
      if (file == NULL)
	file = api == API_SPAWNP || api == API_PIDFDP ? PROG_NAME
						     : initial_argv[0];
    }
  else
    args[argc++] = (char *) file;
  args[argc] = NULL;

  struct support_descriptors *fds = NULL;
  if (err != 0)
    fds = support_descriptors_list ();
  int id = -2, status;
  pid_t pid = -1;
  int ret = apis[api].fn (&id, file, fa, attr, args,
			  r != NULL ? envp : environ);
  if (ret != err)
    FAIL_AT (line, "%s (\"%.40s%s\") returned %s, expected %s", name, file,
	     strlen (file) > 40 ? "..." : "", strerrorname_np (ret) ?: "0",
	     strerrorname_np (err) ?: "0");
  if (ret == 0)
    {
      pid = wait_child (line, api, id, &status);
      if (err == 0 && status != exit_status)
	FAIL_AT (line, "%s: status %#x, expected exit status %d", name,
		 status, exit_status);
    }
  else if (id != -2)
    FAIL_AT (line, "%s: *%s is %d after a failure", name,
	     api_pidfd (api) ? "pidfd" : "pid", id);
  if (fds != NULL)
    {
      bool failed = support_record_failure_is_failed ();
      support_descriptors_check (fds);
      support_descriptors_free (fds);
      if (!failed && support_record_failure_is_failed ())
	FAIL_AT (line, "%s changed the descriptors", name);
    }
  siginfo_t si = { 0 };
  if (!threaded
      && (waitid (P_ALL, 0, &si, WEXITED | WNOHANG) != -1 || errno != ECHILD))
    FAIL_AT (line, "%s left a child behind (%d)", name, (int) si.si_pid);
  free (envp[0]);
  if (r == NULL)
    return;

  int fd = xopen (report, O_RDONLY | O_CLOEXEC, 0);
  if (ret != 0 || read (fd, r, sizeof *r) != sizeof *r)
    FAIL_EXIT1_AT (line, "%s: the new program made no report", name);
  xclose (fd);
  xunlink (report);
  free (report);
  if (r->pid != pid || r->ppid != getpid () || strcmp (r->env, name) != 0
      || r->nargs != 2 || strcmp (r->args[0], "") != 0
      || strcmp (r->args[1], "two words") != 0)
    FAIL_AT (line, "%s: the new program is %d, child of %d, with %s and %d"
	     " arguments; expected %d, child of %d", name, (int) r->pid,
	     (int) r->ppid, r->env, r->nargs, (int) pid, (int) getpid ());
}
#define spawn_report(api, fa, attr, r) \
  spawn_1 (__LINE__, api, NULL, fa, attr, 0, 0, r)
#define spawn_check(api, file, fa, attr, err, exit_status) \
  spawn_1 (__LINE__, api, file, fa, attr, err, exit_status, NULL)

/* spawn_check with each of the interfaces in APIS that works here.  */
static void
spawn_each_1 (int line, unsigned int apis, const char *file,
	      const posix_spawn_file_actions_t *fa,
	      const posix_spawnattr_t *attr, int err, int exit_status)
{
  FOR_EACH_API (api)
    if ((apis >> api) & 1)
      spawn_1 (line, api, file, fa, attr, err, exit_status, NULL);
}
#define spawn_fails(file, fa, attr, err) \
  spawn_each_1 (__LINE__, APIS_ALL, file, fa, attr, err, 0)
/* posix_spawnp and pidfd_spawnp of FILE fail with ERR, or with ERR 0
   the program exits with EXIT_STATUS.  */
#define spawnp_result(file, err, exit_status) \
  spawn_each_1 (__LINE__, APIS_PATH, file, NULL, NULL, err, exit_status)

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

/* The new program has exactly this process's descriptors that are not
   close-on-exec, on the same files with the same flags, except those
   from FIRST to LAST, which the caller checks.  */
static void
check_fds_1 (int line, const struct report *r, int first, int last)
{
  for (int fd = 0; fd < MAX_FD; fd++)
    {
      char target[PATH_MAX] = "not inherited";
      bool inherited = fcntl (fd, F_GETFD) != -1 && !cloexec (fd);
      int flags = inherited ? fcntl (fd, F_GETFL) & FD_FLAGS : 0;
      if (fd >= first && fd <= last)
	continue;
      if (inherited)
	fd_target (fd, target, sizeof target);
      if (r->fd[fd].open != inherited
	  || (inherited && (strcmp (r->fd[fd].target, target) != 0
			    || r->fd[fd].flags != flags)))
	FAIL_AT (line, "descriptor %d: %s, flags %#x in the new program; %s,"
		 " %#x here", fd, r->fd[fd].open ? r->fd[fd].target : "closed",
		 r->fd[fd].flags, target, flags);
    }
}
#define check_fds(r, first, last) check_fds_1 (__LINE__, r, first, last)

/* Descriptor FD of the new program is open on TARGET with FLAGS (-1:
   not checked).  */
static void
check_fd_1 (int line, const struct report *r, int fd, const char *target,
	    int flags)
{
  if (!r->fd[fd].open || strcmp (r->fd[fd].target, target) != 0
      || (flags != -1 && r->fd[fd].flags != flags))
    FAIL_AT (line, "descriptor %d: %s, flags %#x in the new program;"
	     " expected %s, %#x", fd, r->fd[fd].open ? r->fd[fd].target
	     : "closed", r->fd[fd].flags, target, flags);
}
#define check_fd(r, fd, target, flags) \
  check_fd_1 (__LINE__, r, fd, target, flags)

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

/* Wait for a forked process that made checks (its failures are counted
   in memory shared with this one) and ended with _exit (0).  */
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

/* SET gets the signals in the list that ends with 0.  */
static sigset_t *
sigs (sigset_t *set, ...)
{
  va_list ap;
  va_start (ap, set);
  sigemptyset (set);
  for (int sig; (sig = va_arg (ap, int)) != 0; )
    sigaddset (set, sig);
  va_end (ap);
  return set;
}

/* Without attributes and file actions: the caller's mask, ignored
   signals stay ignored and handled ones go back to the default, and
   exactly the descriptors that are not close-on-exec.  SETSIGMASK gives
   that mask, not the caller's; SETSIGDEF resets those signals, other
   ignored ones stay ignored.  */
static void
test_inherit_signals (void)
{
  int keep = xopen ("/dev/null", O_RDONLY, 0);
  int drop = xopen ("/dev/zero", O_RDONLY | O_CLOEXEC, 0);
  int app = xopen (tmp_file ("append", "", 0600),
		   O_WRONLY | O_APPEND | O_NONBLOCK, 0);
  sigset_t caller, some, none, all, def, usr2;
  TEST_COMPARE (sigprocmask (SIG_BLOCK, sigs (&caller, SIGUSR2,
					      SIGRTMIN + 1, 0), NULL), 0);
  xsignal (SIGUSR1, SIG_IGN);
  xsignal (SIGUSR2, SIG_IGN);
  xsignal (SIGHUP, handler);
  FOR_EACH_API (api)
    {
      struct report r;
      spawn_report (api, NULL, NULL, &r);
      check_inherited (&r);
      /* What check_inherited must have compared.  */
      TEST_VERIFY (r.fd[keep].open && !r.fd[drop].open);
      TEST_COMPARE (r.fd[app].flags, O_WRONLY | O_APPEND | O_NONBLOCK);
      TEST_VERIFY (in_mask (r.blocked, SIGUSR2)
		   && in_mask (r.ignored, SIGUSR1)
		   && !in_mask (r.ignored, SIGHUP));
    }
  xclose (keep);
  xclose (drop);
  xclose (app);

  sigs (&some, SIGTERM, SIGRTMAX, 0);
  sigs (&none, 0);
  sigfillset (&all);
  sigs (&def, SIGUSR1, SIGHUP, 0);
  sigs (&usr2, SIGUSR2, 0);
  /* The attribute's flags, mask and default set; the mask and ignored
     signals the new program must have (null: not checked).  */
  const struct
  {
    int line;
    short int flags;
    const sigset_t *mask, *def, *blocked, *ignored;
  } cases[] =
    {
      { __LINE__, POSIX_SPAWN_SETSIGMASK, &some, &none, &some, NULL },
      { __LINE__, POSIX_SPAWN_SETSIGMASK, &none, &none, &none, NULL },
      { __LINE__, POSIX_SPAWN_SETSIGMASK, &all, &none, &all, NULL },
      /* A mask without its flag is not used.  */
      { __LINE__, POSIX_SPAWN_SETSIGDEF, &all, &def, &caller, &usr2 },
      { __LINE__, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK, &all,
	&all, &all, &none },
    };
  for (int i = 0; i < array_length (cases); i++)
    {
      posix_spawnattr_t attr;
      struct report r;
      attr_init (&attr, cases[i].flags);
      TEST_COMPARE (posix_spawnattr_setsigmask (&attr, cases[i].mask), 0);
      TEST_COMPARE (posix_spawnattr_setsigdefault (&attr, cases[i].def), 0);
      spawn_report (API_NEXT, NULL, &attr, &r);
      check_signals_1 (cases[i].line, &r, cases[i].blocked,
		       cases[i].ignored);
    }
  TEST_COMPARE (sigprocmask (SIG_SETMASK, &none, NULL), 0);
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
  spawn_report (API_NEXT, NULL, &attr, &r);
  TEST_VERIFY (r.pgid == r.pid && r.sid == getsid (0));
  TEST_COMPARE (posix_spawnattr_setpgroup (&attr, getpgrp ()), 0);
  spawn_report (API_NEXT, NULL, &attr, &r);
  TEST_COMPARE (r.pgid, getpgrp ());
  TEST_COMPARE (posix_spawnattr_setpgroup (&attr, -1), 0);
  spawn_fails (true_path, NULL, &attr, EINVAL);

  TEST_COMPARE (posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSID), 0);
  spawn_report (API_NEXT, NULL, &attr, &r);
  TEST_VERIFY (r.sid == r.pid && r.pgid == r.pid);
  /* setsid comes first, and a session leader cannot change its
     group.  */
  TEST_COMPARE (posix_spawnattr_setpgroup (&attr, 0), 0);
  TEST_COMPARE (posix_spawnattr_setflags
		(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETPGROUP), 0);
  spawn_fails (true_path, NULL, &attr, EPERM);
}

/* Scheduling, with what needs no privileges: SCHED_BATCH for the caller,
   and priorities out of range.  */
static void
test_sched (void)
{
  posix_spawnattr_t attr;
  struct sched_param sp = { .sched_priority = 0 };
  pid_t pid = xfork ();
  if (pid == 0)
    {
      struct report r;
      TEST_COMPARE (sched_setscheduler (0, SCHED_BATCH, &sp), 0);
      attr_init (&attr, POSIX_SPAWN_SETSCHEDULER);
      TEST_COMPARE (posix_spawnattr_setschedpolicy (&attr, SCHED_OTHER), 0);
      TEST_COMPARE (posix_spawnattr_setschedparam (&attr, &sp), 0);
      spawn_report (API_NEXT, NULL, &attr, &r);
      TEST_COMPARE (r.policy, SCHED_OTHER);
      /* SETSCHEDPARAM alone keeps the caller's policy.  */
      TEST_COMPARE (posix_spawnattr_setflags
		    (&attr, POSIX_SPAWN_SETSCHEDPARAM), 0);
      spawn_report (API_NEXT, NULL, &attr, &r);
      TEST_VERIFY (r.policy == SCHED_BATCH && r.priority == 0);
      _exit (0);
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
      spawn_report (API_NEXT, NULL, &attr, &r);
      TEST_VERIFY (r.euid == geteuid () && r.egid == getegid ());
      return;
    }
  /* The forked process makes its reports as nobody.  */
  xchmod (tmpdir, 01777);
  pid_t pid = xfork ();
  if (pid == 0)
    {
      TEST_COMPARE (setegid (65534), 0);
      TEST_COMPARE (seteuid (65534), 0);
      spawn_report (API_NEXT, NULL, &attr, &r);
      TEST_VERIFY (r.euid == 0 && r.egid == 0);
      TEST_COMPARE (posix_spawnattr_setflags (&attr, 0), 0);
      spawn_report (API_NEXT, NULL, &attr, &r);
      TEST_VERIFY (r.uid == 0 && r.euid == 65534 && r.egid == 65534);
      _exit (0);
    }
  wait_checker (pid, "RESETIDS");
  xchmod (tmpdir, 0700);
}

static void
test_file_actions (void)
{
  posix_spawn_file_actions_t fa;
  struct report r;
  char *out = xasprintf ("%s/out", tmpdir);
  add_temp_file (out);
  char *rel = tmp_file ("rel", "", 0600);
  /* Above what the test has open.  */
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
  spawn_report (API_NEXT, &fa, NULL, &r);
  check_fds (&r, target, relfd);
  check_fd (&r, target, out, O_WRONLY | O_APPEND);
  struct stat st;
  TEST_COMPARE (stat (out, &st), 0);
  TEST_COMPARE (st.st_mode & 0777, 0640 & ~022);
  /* Open-then-dup2 drops O_CLOEXEC.  */
  check_fd (&r, ce, out, O_RDONLY);
  TEST_VERIFY (!r.fd[gone].open);
  check_fd (&r, dupped, "/dev/zero", -1);
  check_fd (&r, same, "/dev/zero", -1);
  check_fd (&r, cefd, out, -1);
  check_fd (&r, relfd, rel, O_RDWR);
  TEST_COMPARE_STRING (r.cwd, tmpdir);
  /* The caller's table is untouched.  */
  TEST_VERIFY (fcntl (gone, F_GETFD) == 0 && cloexec (same));

  /* No open and no chdir by name: the close-on-exec descriptors the
     actions name are there for them.  */
  TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
  ADD (dup2, &fa, zero, dupped);
  ADD (dup2, &fa, same, same);
  ADD (fchdir_np, &fa, dirfd);
  ADD (close, &fa, gone);
  ADD (closefrom_np, &fa, same + 1);
  FOR_EACH_API (api)
    {
      spawn_report (api, &fa, NULL, &r);
      check_fds (&r, gone, MAX_FD - 1);
      TEST_VERIFY (!r.fd[gone].open);
      check_fd (&r, dupped, "/dev/zero", -1);
      check_fd (&r, same, "/dev/zero", -1);
      for (int fd = same + 1; fd < MAX_FD; fd++)
	TEST_VERIFY (!r.fd[fd].open);
      TEST_COMPARE_STRING (r.cwd, tmpdir);
    }

  /* An O_CLOEXEC open that lands on its target, the lowest free
     descriptor, keeps the flag.  */
  int lowest = xopen ("/dev/null", O_RDONLY, 0);
  xclose (lowest);
  TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
  ADD (open, &fa, lowest, out, O_RDONLY | O_CLOEXEC, 0);
  spawn_report (API_NEXT, &fa, NULL, &r);
  check_fds (&r, -1, -1);

  xclose (dirfd);
  xclose (nul);
  xclose (zero);
  xclose (target);
  xclose (gone);
  xclose (same);
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
	  spawn_1 (__LINE__, API_NEXT, name, NULL, NULL, 0, 0, &r);
	  check_inherited (&r);
	}
    }
  xclose (fd);
}

/* tcsetpgrp, in a new session whose controlling terminal is a
   pseudo-terminal on standard input.  */
static void
test_tcsetpgrp (void)
{
  pid_t pid = xfork ();
  if (pid == 0)
    {
      int outer, tty;
      posix_spawnattr_t attr;
      posix_spawn_file_actions_t fa;
      struct report r;
      support_openpty (&outer, &tty, NULL, NULL, NULL);
      TEST_VERIFY_EXIT (setsid () != -1);
      TEST_COMPARE (ioctl (tty, TIOCSCTTY, 0), 0);
      xdup2 (tty, STDIN_FILENO);
      attr_init (&attr, POSIX_SPAWN_SETPGROUP);
      TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
      ADD (tcsetpgrp_np, &fa, STDIN_FILENO);
      spawn_report (API_NEXT, &fa, &attr, &r);
      TEST_VERIFY (r.pgid == r.pid && r.tcpgrp == r.pid);
      /* Without SETPGROUP, the caller's group, from the background.  */
      TEST_COMPARE (posix_spawnattr_setflags (&attr, 0), 0);
      spawn_report (API_NEXT, &fa, &attr, &r);
      TEST_VERIFY (r.tcpgrp == getpgrp () && tcgetpgrp (tty) == getpgrp ());
      /* After setsid the terminal is not the controlling one.  */
      TEST_COMPARE (posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSID), 0);
      spawn_fails (true_path, &fa, &attr, ENOTTY);
      _exit (0);
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
  if (posix_spawn (&pid, true_path, NULL, &attr, args, environ) == ENOTSUP)
    {
      printf ("info: POSIX_SPAWN_SETCGROUP: ENOTSUP, skipped\n");
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
      || own[0] != '/' || mkdir (path, 0755) != 0)
    {
      printf ("info: cannot make cgroup v2 group %s, POSIX_SPAWN_SETCGROUP"
	      " only checked with a bad descriptor\n", path);
      return;
    }
  add_temp_file (path);
  int fd = xopen (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  TEST_COMPARE (posix_spawnattr_setcgroup_np (&attr, fd), 0);
  FOR_EACH_API (api)
    {
      struct report r;
      spawn_report (api, NULL, &attr, &r);
      TEST_COMPARE_STRING (r.cgroup, group);
    }
  spawn_fails (missing, NULL, &attr, ENOENT);
  xclose (fd);
}

/* Exec errors reach the caller.  The PATH search goes on past EACCES,
   ENOENT, ENOTDIR and ENAMETOOLONG, reports EACCES if it saw one, and
   stops at other errors (ENOEXEC, ETXTBSY); only the compat symbols try
   /bin/sh after ENOEXEC.  */
static void
test_exec_errors (void)
{
  char *noexec = tmp_file ("noexec", "#!/bin/sh\nexit 0\n", 0644);
  char *script = tmp_file ("script", "exit 7\n", 0755);
  const char *files[] = { missing, "", tmpdir, noexec, script };
  const int file_errs[] = { ENOENT, ENOENT, EACCES, EACCES, ENOEXEC };
  for (int i = 0; i < array_length (files); i++)
    spawn_fails (files[i], NULL, NULL, file_errs[i]);

  /* p-0/prog is not executable, p-1/prog has no #!, p-2/prog exits
     with 42, p-3/prog is open for writing (ETXTBSY).  */
  const char *bodies[] = { "#!/bin/sh\nexit 1\n", "exit 2\n",
			   "#!/bin/sh\nexit 42\n", "#!/bin/sh\nexit 3\n" };
  char *dirs[4];
  char *progs[4];
  for (int i = 0; i < 4; i++)
    {
      dirs[i] = tmp_file (xasprintf ("p-%d", i), NULL, 0755);
      progs[i] = tmp_file (xasprintf ("p-%d/prog", i), bodies[i],
			   i == 0 ? 0644 : 0755);
    }
  int busy = xopen (progs[3], O_WRONLY, 0);
  /* A PATH entry that is a file (ENOTDIR), and one too long a name
     (ENAMETOOLONG).  */
  char *long_dir = xasprintf ("%s/%0*d", tmpdir, NAME_MAX + 1, 0);
  char *saved = xstrdup (getenv ("PATH"));
  const char *paths[][3] =
    {
      { missing, dirs[0], dirs[2] },
      { missing, dirs[0], missing },
      { dirs[0], missing, missing },
      { missing, missing, missing },
      { missing, dirs[1], dirs[2] },
      { noexec, missing, dirs[2] },
      { long_dir, missing, dirs[2] },
      { missing, dirs[3], dirs[2] },
    };
  const int errs[] = { 0, EACCES, EACCES, ENOENT, ENOEXEC, 0, 0, ETXTBSY };
  for (int i = 0; i < array_length (paths); i++)
    {
      TEST_COMPARE (setenv ("PATH", xasprintf ("%s:%s:%s", paths[i][0],
					       paths[i][1], paths[i][2]), 1),
		    0);
      spawnp_result ("prog", errs[i], 42);
    }
  xclose (busy);
  free (long_dir);
  /* A name with a slash is not searched for.  */
  spawnp_result ("p-2/prog", ENOENT, 0);
  spawnp_result ("", ENOENT, 0);
  /* Without PATH, confstr (_CS_PATH), which has /bin.  */
  TEST_COMPARE (unsetenv ("PATH"), 0);
  spawnp_result ("true", 0, 0);

#if TEST_COMPAT (libc, GLIBC_2_2, GLIBC_2_15)
  /* /bin/sh gets the name as found, and searches PATH for it again if it
     has no slash.  */
  TEST_COMPARE (setenv ("PATH", xasprintf ("%s:%s", missing, dirs[2]), 1),
		0);
  spawn_check (API_COMPAT, script, NULL, NULL, 0, 7);
  spawn_check (API_COMPATP, script, NULL, NULL, 0, 7);
  spawn_check (API_COMPATP, "prog", NULL, NULL, 0, 42);
  spawn_check (API_COMPATP, "none", NULL, NULL, ENOENT, 0);
#endif
  TEST_COMPARE (setenv ("PATH", saved, 1), 0);
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
    spawn_fails (true_path, &fa[i], NULL, errs[i]);
  xclose (plainfd);

  /* Closing a descriptor that is not open fails only at or above
     RLIMIT_NOFILE.  */
  struct rlimit rl, low;
  TEST_COMPARE (getrlimit (RLIMIT_NOFILE, &rl), 0);
  if (rl.rlim_cur <= 500)
    return;
  TEST_COMPARE (posix_spawn_file_actions_init (&fa[0]), 0);
  ADD (close, &fa[0], 500);
  spawn_check (API_NEXT, true_path, &fa[0], NULL, 0, 0);
  low = rl;
  low.rlim_cur = MAX_FD;
  TEST_COMPARE (setrlimit (RLIMIT_NOFILE, &low), 0);
  spawn_fails (true_path, &fa[0], NULL, EBADF);
  TEST_COMPARE (setrlimit (RLIMIT_NOFILE, &rl), 0);
}

/* A PATH of COUNT entries that do not exist, then LAST.  */
static char *
make_path (int count, const char *last)
{
  char *path = xstrdup (last);
  for (int i = 0; i < count; i++)
    path = xasprintf ("%s/missing-%d:%s", tmpdir, i, path);
  return path;
}

static void *
spawnp_thread (void *file)
{
  char *args[] = { file, NULL };
  pid_t pid;
  return (void *) (intptr_t) posix_spawnp (&pid, file, NULL, NULL, args,
					   environ);
}

/* posix_spawnp is not async-signal-safe: the handler runs only for a
   raise from test_limits, so it interrupts nothing of libc's.  */
static char *volatile altstack_name;
static volatile int altstack_ret;

static void
altstack_handler (int sig)
{
  altstack_ret = (intptr_t) spawnp_thread (altstack_name);
}

/* A spawn that needs more SQEs than a chain may have (64: the clone,
   one per file action, one exec per name tried), or longer names: the
   same results.  */
static void
test_limits (void)
{
  struct report ref, r;
  spawn_report (API_SPAWN, NULL, NULL, &ref);
  int nul = xopen ("/dev/null", O_RDONLY | O_CLOEXEC, 0);
  for (int n = 61; n <= 63; n++)
    {
      /* N actions, the last of which shows that they all ran.  */
      posix_spawn_file_actions_t fa;
      TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
      for (int i = 0; i < n - 1; i++)
	ADD (close, &fa, MAX_FD - 1);
      ADD (dup2, &fa, nul, 150);
      spawn_report (API_NEXT, &fa, NULL, &r);
      check_fd (&r, 150, "/dev/null", -1);
      /* glibc's internal signals too.  */
      TEST_VERIFY (r.blocked == ref.blocked && r.ignored == ref.ignored);
      ADD (open, &fa, 151, missing, O_RDONLY, 0);
      spawn_fails (true_path, &fa, NULL, ENOENT);
    }
  xclose (nul);

  char *saved = xstrdup (getenv ("PATH"));
  char *dir = tmp_file ("limits", NULL, 0755);
  tmp_file ("limits/prog", "#!/bin/sh\nexit 43\n", 0755);
  for (int n = 62; n <= 64; n++)
    {
      TEST_COMPARE (setenv ("PATH", make_path (n, missing), 1), 0);
      spawnp_result ("prog", ENOENT, 0);
      TEST_COMPARE (setenv ("PATH", make_path (n - 1, dir), 1), 0);
      spawnp_result ("prog", 0, 43);
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

  /* The names a PATH search tries are not built on the caller's stack:
     a thread with the smallest stack searches 12 entries for a name of
     NAME_MAX bytes, and 60, some 18 KiB of names.  */
  name[NAME_MAX] = '\0';
  pthread_attr_t attr;
  xpthread_attr_init (&attr);
  xpthread_attr_setstacksize (&attr, sysconf (_SC_THREAD_STACK_MIN));
  for (int n = 12; n <= 60; n += 48)
    {
      TEST_COMPARE (setenv ("PATH", make_path (n, missing), 1), 0);
      TEST_COMPARE ((intptr_t) xpthread_join (xpthread_create (&attr,
								spawnp_thread,
								name)),
		    ENOENT);
    }
  xpthread_attr_destroy (&attr);

  /* Nor on an alternate signal stack of SIGSTKSZ bytes, with an
     inaccessible page below it.  */
  size_t page = sysconf (_SC_PAGESIZE);
  size_t size = ALIGN_UP (SIGSTKSZ, page);
  char *mem = xmmap (NULL, page + size, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1);
  xmprotect (mem + page, size, PROT_READ | PROT_WRITE);
  stack_t ss = { .ss_sp = mem + page, .ss_size = size }, old_ss;
  TEST_COMPARE (sigaltstack (&ss, &old_ss), 0);
  struct sigaction sa = { .sa_handler = altstack_handler,
			  .sa_flags = SA_ONSTACK }, old_sa;
  sigemptyset (&sa.sa_mask);
  xsigaction (SIGUSR1, &sa, &old_sa);
  sigset_t usr1, old_mask;
  xpthread_sigmask (SIG_UNBLOCK, sigs (&usr1, SIGUSR1, 0), &old_mask);
  altstack_name = name;
  for (int n = 12; n <= 60; n += 48)
    {
      TEST_COMPARE (setenv ("PATH", make_path (n, missing), 1), 0);
      altstack_ret = -1;
      TEST_COMPARE (raise (SIGUSR1), 0);
      TEST_COMPARE (altstack_ret, ENOENT);
    }
  xpthread_sigmask (SIG_SETMASK, &old_mask, NULL);
  xsigaction (SIGUSR1, &old_sa, NULL);
  TEST_COMPARE (sigaltstack (&old_ss, NULL), 0);
  xmunmap (mem, page + size);
  TEST_COMPARE (setenv ("PATH", saved, 1), 0);
}

/* Spawns in a child of fork or of a raw clone, or in a new PID
   namespace, which may start with a copy of its parent's ring.  In a new
   PID namespace PIDFD is false: pidfd_getpid may answer in /proc's.  */
static void
spawns_in_child (bool pidfd)
{
  FOR_EACH_API (api)
    if (pidfd || !api_pidfd (api))
      {
	struct report r;
	spawn_report (api, NULL, NULL, &r);
	check_inherited (&r);
	spawn_check (api, missing, NULL, NULL, ENOENT, 0);
      }
}

static void
test_fork_children (void)
{
  struct report r;
  spawn_report (API_SPAWN, NULL, NULL, &r);
  pid_t pid = xfork ();
  if (pid == 0)
    {
      spawns_in_child (true);
      _exit (0);
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
      _exit (0);
    }
  TEST_VERIFY_EXIT (pid > 0);
  wait_checker (pid, "clone (SIGCHLD)");

  /* Process 1 of a new PID namespace spawns, then makes process 1 of
     another, whose tid is its parent's.  */
  pid = xfork ();
  if (pid == 0)
    {
      for (int depth = 0; depth < 2; depth++)
	{
	  if (unshare (CLONE_NEWPID) != 0)
	    {
	      if (depth == 0)
		FAIL_UNSUPPORTED ("unshare (CLONE_NEWPID): %m");
	      FAIL_EXIT1 ("unshare (CLONE_NEWPID) in process 1: %m");
	    }
	  pid_t init = xfork ();
	  if (init != 0)
	    {
	      wait_checker (init, depth == 0 ? "PID namespace"
				  : "nested PID namespace");
	      _exit (0);
	    }
	  TEST_COMPARE (getpid (), 1);
	  spawns_in_child (false);
	}
      _exit (0);
    }
  wait_checker (pid, "unshare (CLONE_NEWPID)");
  spawns_in_child (true);
}

#ifdef TEST_AUDIT_ARCH
static void *
report_thread (void *closure)
{
  struct report r;
  spawn_report (API_NEXT, NULL, NULL, &r);
  check_inherited (&r);
  return NULL;
}

/* Under a seccomp filter that kills the process at any io_uring call,
   spawns work: glibc must not try io_uring.  With DENY_PRCTL the
   filter also makes prctl fail, as one that allows only what the clone
   path calls would.  */
static void
test_seccomp (bool deny_prctl)
{
  struct sock_filter filter[] =
    {
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
		offsetof (struct seccomp_data, arch)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 4, 0),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_enter, 3, 0),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_register, 2, 0),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, deny_prctl ? 2 : 0, 0),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
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
      _exit (0);
    }
  wait_checker (pid, deny_prctl ? "seccomp, prctl denied" : "seccomp");
}
#endif

/* A thread with asynchronous cancellation, cancelled while it spawns:
   posix_spawn is no cancellation point, and the cancellation acts when
   it returns, with the thread's signal mask restored first.  */
static char *cancel_fifo;
static pid_t cancel_pid;
static sigset_t cancel_mask;
static bool cancel_cleanup_ran;

static void
cancel_cleanup (void *closure)
{
  pthread_sigmask (SIG_SETMASK, NULL, &cancel_mask);
  cancel_cleanup_ran = true;
}

static void *
cancel_thread (void *closure)
{
  const posix_spawn_file_actions_t *fa = closure;
  char *args[] = { (char *) true_path, NULL };
  sigset_t set;
  xpthread_sigmask (SIG_BLOCK, sigs (&set, SIGUSR1, 0), NULL);
  pthread_cleanup_push (cancel_cleanup, NULL);
  pthread_setcanceltype (PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
  posix_spawn (&cancel_pid, true_path, fa, NULL, args, environ);
  pthread_setcanceltype (PTHREAD_CANCEL_DEFERRED, NULL);
  pthread_cleanup_pop (0);
  return NULL;
}

static void
test_async_cancel (void)
{
  char *children = xasprintf ("/proc/self/task/%d/children", gettid ());
  if (access (children, R_OK) != 0)
    {
      printf ("info: %s: %m; asynchronous cancellation skipped\n",
	      children);
      free (children);
      return;
    }
  free (children);
  cancel_fifo = xasprintf ("%s/fifo", tmpdir);
  TEST_COMPARE (mkfifo (cancel_fifo, 0600), 0);
  add_temp_file (cancel_fifo);
  /* The child opens the FIFO, and so stays in posix_spawn until this
     thread opens it too.  */
  posix_spawn_file_actions_t fa;
  TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
  ADD (open, &fa, STDIN_FILENO, cancel_fifo, O_RDONLY, 0);
  threaded = true;
  pthread_t thread = xpthread_create (NULL, cancel_thread, &fa);
  children = xasprintf ("/proc/self/task/%d/children",
			(int) pthread_gettid_np (thread));
  /* The thread is in posix_spawn when it has a child.  */
  for (int i = 0; ; i++)
    {
      FILE *f = xfopen (children, "re");
      bool child = fgetc (f) != EOF;
      xfclose (f);
      if (child)
	break;
      if (i == 30000)
	FAIL_EXIT1 ("the thread made no child in 30 s");
      usleep (1000);
    }
  xpthread_cancel (thread);
  xclose (xopen (cancel_fifo, O_WRONLY, 0));
  TEST_VERIFY (xpthread_join (thread) == PTHREAD_CANCELED);
  threaded = false;

  TEST_VERIFY (cancel_cleanup_ran);
  TEST_VERIFY (sigismember (&cancel_mask, SIGUSR1));
  TEST_VERIFY (!sigismember (&cancel_mask, SIGUSR2));
  /* The spawn was over before the cancellation.  */
  TEST_VERIFY_EXIT (cancel_pid > 0);
  int status;
  TEST_COMPARE (xwaitpid (cancel_pid, &status, 0), cancel_pid);
  TEST_COMPARE (status, 0);
  TEST_COMPARE (posix_spawn_file_actions_destroy (&fa), 0);
  free (children);
}

/* Threads that spawn at once, each with a signal mask of its own.  */
enum { threads_count = 8 };
static pthread_barrier_t barrier;

static void *
spawn_thread (void *closure)
{
  int i = (intptr_t) closure;
  sigset_t set, mask;
  xpthread_sigmask (SIG_BLOCK, sigs (&set, SIGRTMIN + i, 0), &mask);
  sigaddset (&mask, SIGRTMIN + i);
  xpthread_barrier_wait (&barrier);

  struct report r;
  spawn_report (API_NEXT, NULL, NULL, &r);
  check_signals (&r, &mask, NULL);
  posix_spawnattr_t attr;
  attr_init (&attr, POSIX_SPAWN_SETSIGMASK);
  sigs (&set, SIGRTMIN + threads_count + i, 0);
  TEST_COMPARE (posix_spawnattr_setsigmask (&attr, &set), 0);
  spawn_report (API_NEXT, NULL, &attr, &r);
  check_signals (&r, &set, NULL);
  for (int j = 0; j < 4; j++)
    spawn_check (API_NEXT, true_path, NULL, NULL, 0, 0);
  return NULL;
}

static void
test_threads (void)
{
  pthread_t threads[threads_count];
  xpthread_barrier_init (&barrier, NULL, threads_count);
  threaded = true;
  for (int i = 0; i < threads_count; i++)
    threads[i] = xpthread_create (NULL, spawn_thread, (void *) (intptr_t) i);
  for (int i = 0; i < threads_count; i++)
    xpthread_join (threads[i]);
  threaded = false;
  /* This spawn checks that no child is left.  */
  spawn_check (API_NEXT, true_path, NULL, NULL, 0, 0);
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
      xdup2 (xopen ("/dev/null", O_RDONLY, 0), STDIN_FILENO);
      closefrom (STDERR_FILENO + 1);
      for (int sig = 1; sig < _NSIG; sig++)
	if (user_signal (sig) && sig != SIGKILL && sig != SIGSTOP)
	  xsignal (sig, SIG_DFL);
      sigset_t none;
      TEST_COMPARE (sigprocmask (SIG_SETMASK, sigs (&none, 0), NULL), 0);
      const char *old = getenv ("GLIBC_TUNABLES");
      TEST_COMPARE (setenv ("GLIBC_TUNABLES",
			    xasprintf ("%s%sglibc.spawn.io_uring=%d",
				       old ?: "", old ? ":" : "", value), 1),
		    0);
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
  /* The report has the cwd with symbolic links resolved.  */
  tmpdir = realpath (support_create_temp_directory ("tst-spawn-uring-"),
		     NULL);
  TEST_VERIFY_EXIT (tmpdir != NULL);
  missing = xasprintf ("%s/missing", tmpdir);
  umask (022);
  xsignal (SIGCHLD, SIG_DFL);
  printf ("info: glibc.spawn.io_uring=%d, AT_IO_URING_SPAWN %#lx\n",
	  mode - 1, getauxval (AT_IO_URING_SPAWN));

  /* pidfd_spawn needs CLONE_PIDFD and P_PIDFD.  */
  int pidfd, status;
  char *args[] = { (char *) true_path, NULL };
  int ret = pidfd_spawn (&pidfd, true_path, NULL, NULL, args, environ);
  have_pidfd = ret == 0;
  if (have_pidfd)
    wait_child (__LINE__, API_PIDFD, pidfd, &status);
  else if (ret == ENOSYS)
    printf ("info: pidfd_spawn: ENOSYS, skipped\n");
  else
    FAIL_EXIT1 ("pidfd_spawn (%s): %s", true_path, strerrorname_np (ret));

  /* posix_spawnp finds this program after a name that does not
     exist.  */
  char *bin = tmp_file ("bin", NULL, 0755);
  char *target = realpath (initial_argv[0], NULL);
  TEST_VERIFY_EXIT (target != NULL);
  char *prog = xasprintf ("%s/" PROG_NAME, bin);
  xsymlink (target, prog);
  add_temp_file (prog);
  TEST_COMPARE (setenv ("PATH", xasprintf ("%s:%s:%s", missing, bin,
					   getenv ("PATH") ?: ""), 1), 0);

  test_inherit_signals ();
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
#ifdef TEST_AUDIT_ARCH
  test_seccomp (false);
  test_seccomp (true);
#endif
  test_threads ();
  test_async_cancel ();
  test_program_by_descriptor ();

  support_descriptors_check (fds);
  support_descriptors_free (fds);
  return 0;
}

/* Each run starts this program about a hundred times, which is slow
   under emulation.  */
#define TIMEOUT 60
#define TEST_FUNCTION_ARGV do_test
#include <support/test-driver.c>
