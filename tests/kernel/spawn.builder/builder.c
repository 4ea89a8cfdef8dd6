/* The process builder (#37): pidfd_open(0, PIDFD_EMPTY), then one
   pidfd_config() per attribute or step, then PIDFD_CONFIG_CMD_RUN, which
   the spawn engine runs in a child with a pristine mm.
   1. EXEC of /bin/true: RUN returns the pid, which exits 0 (SIGCHLD,
      an ordinary child); a second RUN and any later config are -EBUSY.
   2. OPEN of a file onto 1, CHDIR /tmp, EXEC of sh -c 'pwd; echo $$':
      the file holds /tmp and the pid RUN returned.
   3. A step that fails: EXEC of a missing file is -ENOENT from RUN and
      leaves no child, also when the child lingers before its exit (the
      test kernel's "failed" delay point: RUN waits until it is gone);
      OPEN of a missing file the same, before the exec.
   4. PATH candidates (PIDFD_SPAWN_EXEC_SEARCH): a missing one, then
      /bin/true: the pid.  A file without x (EACCES), then a missing one
      (ENOENT): -EACCES, as execvp() reports.
   5. Attributes: SET_PGROUP 0 and SET_SIGMASK {SIGUSR1}: the exec'd
      grep's /proc status has its own process group and SigBlk 0x200.
   6. Under a seccomp filter that allows everything (no_new_privs): an
      io_uring chain is refused (-EOPNOTSUPP) and the builder runs; a
      filter that makes pidfd_config() fail with EPERM stops it at its
      first call: the filter sees each call.
   7. Refusals: pid with PIDFD_EMPTY, pidfd_config() on a real pidfd
      (-EBADF) or with an unknown command, an argument the command does
      not take, the 64th step (-E2BIG).  */

#include "st.h"
#include <linux/filter.h>
/* the series' pidfd.h; its linux/fcntl.h clashes with <fcntl.h> (st.h) */
#define _LINUX_FCNTL_H
#include <linux/pidfd.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

#ifndef __NR_pidfd_config
# define __NR_pidfd_config 473
#endif

static int
empty (void)
{
  return syscall (SYS_pidfd_open, 0, PIDFD_EMPTY);
}

static long
config (int fd, unsigned cmd, const char *key, const struct pidfd_spawn_args *a)
{
  long r = syscall (__NR_pidfd_config, fd, cmd, key, a, a ? (int) sizeof *a : 0);
  return r < 0 ? -errno : r;
}

static long
add_exec (int fd, const char *path, char **argv, unsigned flags)
{
  struct pidfd_spawn_args a = {
    .fd = AT_FDCWD, .flags = flags,
    .argv = (uintptr_t) argv, .envp = (uintptr_t) st_envp,
  };
  return config (fd, PIDFD_CONFIG_ADD_EXEC, path, &a);
}

static long
run (int fd)
{
  return config (fd, PIDFD_CONFIG_CMD_RUN, NULL, NULL);
}

static char *argv_true[] = { "true", NULL };

/* Read FILE into BUF.  */
static void
slurp (const char *file, char *buf, size_t size)
{
  buf[0] = '\0';
  int fd = open (file, O_RDONLY);
  if (fd < 0)
    return;
  ssize_t n = read (fd, buf, size - 1);
  buf[n > 0 ? n : 0] = '\0';
  close (fd);
}

/* Run FD's process, which writes to OUT, and wait for it (*STATUS);
   OUT's text into BUF, and OUT removed.  The pid, or RUN's error.  */
static long
run_to_file (int fd, const char *out, char *buf, size_t size, int *status)
{
  long pid = run (fd);
  close (fd);
  *status = pid > 0 ? st_wait (pid) : -1;
  slurp (out, buf, size);
  unlink (out);
  return pid;
}

static void
basic (void)
{
  int fd = empty ();
  KT_EXPECT_EQ ("basic: pidfd_open (0, PIDFD_EMPTY)", fd >= 0, 1);
  KT_EXPECT_EQ ("basic: EXEC", add_exec (fd, "/bin/true", argv_true, 0), 0);
  long pid = run (fd);
  KT_EXPECT_EQ ("basic: RUN returns a pid", pid > 0, 1);
  if (pid > 0)
    ST_EXPECT_STATUS ("basic: the child exits 0", st_wait (pid), 0);
  KT_EXPECT_EQ ("basic: a second RUN", run (fd), -EBUSY);
  KT_EXPECT_EQ ("basic: config after RUN",
		add_exec (fd, "/bin/true", argv_true, 0), -EBUSY);
  close (fd);
}

static void
actions (void)
{
  static char out[] = "/tmp/st-builder-out";
  static char *argv_sh[] = { "sh", "-c", "pwd; echo $$", NULL };
  unlink (out);
  int fd = empty ();
  struct pidfd_spawn_args o = {
    .fd = AT_FDCWD, .flags = O_WRONLY | O_CREAT | O_TRUNC, .mode = 0600,
    .target = 1,
  };
  KT_EXPECT_EQ ("actions: OPEN", config (fd, PIDFD_CONFIG_ADD_OPEN, out, &o), 0);
  KT_EXPECT_EQ ("actions: CHDIR", config (fd, PIDFD_CONFIG_ADD_CHDIR, "/tmp", NULL), 0);
  KT_EXPECT_EQ ("actions: EXEC", add_exec (fd, "/bin/sh", argv_sh, 0), 0);
  char buf[256], want[256];
  int status;
  long pid = run_to_file (fd, out, buf, sizeof buf, &status);
  KT_EXPECT_EQ ("actions: RUN returns a pid", pid > 0, 1);
  ST_EXPECT_STATUS ("actions: sh exits 0", status, 0);
  snprintf (want, sizeof want, "/tmp\n%ld\n", pid);
  ST_EXPECT_STR ("actions: the file has the cwd and the pid", buf, want);
}

static void
failures (void)
{
  int fd = empty ();
  add_exec (fd, "/nonexistent/st-builder", argv_true, 0);
  /* the failed child waits 300 ms before its exit: RUN must wait too */
  KT_EXPECT_EQ ("failure: the delay point", st_delay ("failed", 300000), 1);
  KT_EXPECT_EQ ("failure: EXEC of a missing file", run (fd), -ENOENT);
  st_no_children ("failure: no child left, though it lingered");
  st_delay ("failed", 0);
  close (fd);

  fd = empty ();
  struct pidfd_spawn_args o = { .fd = AT_FDCWD, .flags = O_RDONLY, .target = 5 };
  config (fd, PIDFD_CONFIG_ADD_OPEN, "/nonexistent/st-builder", &o);
  add_exec (fd, "/bin/true", argv_true, 0);
  KT_EXPECT_EQ ("failure: OPEN of a missing file", run (fd), -ENOENT);
  close (fd);
  st_no_children ("failure: no child left after the OPEN");
}

static void
search (void)
{
  int fd = empty ();
  add_exec (fd, "/nonexistent/true", argv_true, PIDFD_SPAWN_EXEC_SEARCH);
  add_exec (fd, "/bin/true", argv_true, PIDFD_SPAWN_EXEC_SEARCH);
  long pid = run (fd);
  close (fd);
  KT_EXPECT_EQ ("search: the second candidate runs", pid > 0, 1);
  if (pid > 0)
    ST_EXPECT_STATUS ("search: it exits 0", st_wait (pid), 0);

  fd = empty ();
  add_exec (fd, "/etc/passwd", argv_true, PIDFD_SPAWN_EXEC_SEARCH);
  add_exec (fd, "/nonexistent/true", argv_true, PIDFD_SPAWN_EXEC_SEARCH);
  KT_EXPECT_EQ ("search: EACCES, then ENOENT, is EACCES", run (fd), -EACCES);
  close (fd);
  st_no_children ("search: no child left");
}

static void
attributes (void)
{
  static char out[] = "/tmp/st-builder-attr";
  /* grep itself: a shell would set its own mask */
  static char *argv_grep[] = {
    "grep", "-E", "^(NSpgid|SigBlk):", "/proc/self/status", NULL
  };
  unlink (out);
  int fd = empty ();
  struct pidfd_spawn_args pg = { .target = 0 };
  struct pidfd_spawn_args mask = { .target = 1ULL << (SIGUSR1 - 1) };
  struct pidfd_spawn_args o = {
    .fd = AT_FDCWD, .flags = O_WRONLY | O_CREAT | O_TRUNC, .mode = 0600,
    .target = 1,
  };
  KT_EXPECT_EQ ("attributes: SET_PGROUP", config (fd, PIDFD_CONFIG_SET_PGROUP, NULL, &pg), 0);
  KT_EXPECT_EQ ("attributes: SET_SIGMASK", config (fd, PIDFD_CONFIG_SET_SIGMASK, NULL, &mask), 0);
  config (fd, PIDFD_CONFIG_ADD_OPEN, out, &o);
  add_exec (fd, "/bin/grep", argv_grep, 0);
  char buf[256], want[256];
  int status;
  long pid = run_to_file (fd, out, buf, sizeof buf, &status);
  snprintf (want, sizeof want, "NSpgid:\t%ld\nSigBlk:\t0000000000000200\n", pid);
  ST_EXPECT_STR ("attributes: its own group, SIGUSR1 blocked", buf, want);
}

static int
install (int nr, unsigned action)
{
  struct sock_filter f[8];
  int n = 0;
  f[n++] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
					  offsetof (struct seccomp_data, nr));
  if (nr >= 0)
    {
      f[n++] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1);
      f[n++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, action);
    }
  f[n++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = { .len = n, .filter = f };
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    return -1;
  return syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : -1;
}

/* In a child under a filter (NR gets ACTION, NR -1: allow all): the
   chain's clone result, the builder's RUN result, and the child's
   status, packed into R.  */
static void
filtered (int nr, unsigned action, long r[3])
{
  int p[2];
  r[0] = r[1] = r[2] = INT32_MIN;
  if (pipe (p))
    return;
  pid_t h = fork ();
  if (h == 0)
    {
      long w[3] = { INT32_MIN, INT32_MIN, -1 };
      if (install (nr, action) == 0)
	{
	  struct clone_args ca = { .exit_signal = SIGCHLD };
	  st_init (0);
	  st_clone (&st_ring, &ca, 0);
	  st_exec (&st_ring, "/bin/true", argv_true, st_envp, 1);
	  st_run (&st_ring, 2);
	  w[0] = st_res[0];
	  if (st_res[0] > 0)
	    st_wait (st_res[0]);
	  int fd = empty ();
	  long e = add_exec (fd, "/bin/true", argv_true, 0);
	  w[1] = e < 0 ? e : run (fd);
	  if (w[1] > 0)
	    w[2] = st_wait (w[1]);
	}
      if (write (p[1], w, sizeof w) != sizeof w)
	_exit (1);
      _exit (0);
    }
  close (p[1]);
  if (read (p[0], r, 3 * sizeof *r) != 3 * sizeof *r)
    r[0] = r[1] = r[2] = INT32_MIN;
  close (p[0]);
  st_wait (h);
}

static void
seccomp_filters (void)
{
  long r[3];
  filtered (-1, SECCOMP_RET_ALLOW, r);
  KT_EXPECT_EQ ("seccomp: an allow-all filter refuses the chain", r[0], -EOPNOTSUPP);
  KT_EXPECT_EQ ("seccomp: the builder runs under it", r[1] > 0, 1);
  ST_EXPECT_STATUS ("seccomp: its child exits 0", (int) r[2], 0);
  filtered (__NR_pidfd_config, SECCOMP_RET_ERRNO | EPERM, r);
  KT_EXPECT_EQ ("seccomp: a filter denying pidfd_config stops the builder",
		r[1], -EPERM);
}

static void
refusals (void)
{
  KT_EXPECT_EQ ("refusal: a pid with PIDFD_EMPTY",
		syscall (SYS_pidfd_open, getpid (), PIDFD_EMPTY) < 0 && errno == EINVAL, 1);
  int real = syscall (SYS_pidfd_open, getpid (), 0);
  KT_EXPECT_EQ ("refusal: pidfd_config on a real pidfd", run (real), -EBADF);
  close (real);
  int fd = empty ();
  KT_EXPECT_EQ ("refusal: an unknown command",
		config (fd, PIDFD_CONFIG_CMD_RUN + 1, NULL, NULL), -EINVAL);
  struct pidfd_spawn_args a = { .fd = 3 };
  KT_EXPECT_EQ ("refusal: an argument CHDIR does not take",
		config (fd, PIDFD_CONFIG_ADD_CHDIR, "/", &a), -EINVAL);
  KT_EXPECT_EQ ("refusal: a key DUP2 does not take",
		config (fd, PIDFD_CONFIG_ADD_DUP2, "/", NULL), -EINVAL);
  struct pidfd_spawn_args d = { .fd = 0, .target = 1ULL << 32 };
  KT_EXPECT_EQ ("refusal: a DUP2 target past INT_MAX",
		config (fd, PIDFD_CONFIG_ADD_DUP2, NULL, &d), -EBADF);
  int added = 0;
  long e = 0;
  for (int i = 0; i < 80 && e == 0; i++)
    {
      struct pidfd_spawn_args c = { .fd = 100 + i, .flags = PIDFD_SPAWN_CLOSE_IN_LIMIT };
      e = config (fd, PIDFD_CONFIG_ADD_CLOSE, NULL, &c);
      added += e == 0;
    }
  KT_EXPECT_EQ ("refusal: 63 steps, then -E2BIG", added == 63 && e == -E2BIG, 1);
  close (fd);
}

int
main (void)
{
  int fd = empty ();
  if (fd < 0)
    {
      /* the suite runs on the series' kernel, which has it */
      kt_fail ("builder", "pidfd_open (0, PIDFD_EMPTY): %m");
      return kt_exit ();
    }
  close (fd);
  basic ();
  actions ();
  failures ();
  search ();
  attributes ();
  seccomp_filters ();
  refusals ();
  st_no_children ("no child left");
  return kt_exit ();
}
