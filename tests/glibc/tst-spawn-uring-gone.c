/* Check that a spawn chain whose child was gone before any step ran is
   not reported as a spawned process.  Linux version.
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

/* A seccomp filter that another thread installs with
   SECCOMP_FILTER_FLAG_TSYNC after posix_spawn checked for one, but
   before the kernel cloned the chain's child, is inherited by the
   child, which then ends without running any step: the clone's CQE has
   the pid and IORING_CQE_F_SPAWN_GONE, every other one -ECANCELED.
   Nothing of that spawn exists, so posix_spawn and pidfd_spawn must
   spawn through the clone path (or fail): never return the pid or a
   pidfd of a process that is gone.

   The window is made certain with the test kernel's delay point before
   the clone (/sys/kernel/debug/io_uring_spawn/preclone_us, not part of
   the series): the kernel holds the clone 300 ms and the filter comes
   100 ms after the spawn started.  A spawn that took less than the
   delay did not go through the kernel's clone: the test is then
   UNSUPPORTED (no such kernel, or the tunable is 0).  */

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <support/check.h>
#include <support/support.h>
#include <support/xthread.h>
#include <support/xunistd.h>

static const char knob[] = "/sys/kernel/debug/io_uring_spawn/preclone_us";
enum { delay_us = 300000, filter_us = 100000 };

static bool
set_delay (unsigned int us)
{
  int fd = open (knob, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char buf[32];
  int n = snprintf (buf, sizeof buf, "%u\n", us);
  bool ok = write (fd, buf, n) == n;
  close (fd);
  return ok;
}

static void *
install_filter (void *closure)
{
  usleep (filter_us);
  struct sock_filter allow[] =
    {
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
  struct sock_fprog prog = { .len = 1, .filter = allow };
  TEST_COMPARE (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
  TEST_COMPARE (syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			 SECCOMP_FILTER_FLAG_TSYNC, &prog), 0);
  return NULL;
}

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* In a process of its own (the filter stays with it): spawn /bin/true
   while the filter comes; exit 0 if the spawn's child really ran, 77 if
   the chain never reached the kernel's clone.  */
static void
run (bool pidfd)
{
  pid_t p = xfork ();
  if (p != 0)
    {
      int status;
      xwaitpid (p, &status, 0);
      TEST_VERIFY (WIFEXITED (status));
      if (WEXITSTATUS (status) == 77)
	FAIL_UNSUPPORTED ("the spawn did not go through the kernel's clone");
      TEST_COMPARE (WEXITSTATUS (status), 0);
      return;
    }

  char *argv[] = { (char *) "true", NULL };
  char *envp[] = { NULL };
  pthread_t t = xpthread_create (NULL, install_filter, NULL);
  double t0 = now ();
  int r, fd = -1;
  pid_t pid = -1;
  if (pidfd)
    r = pidfd_spawn (&fd, "/bin/true", NULL, NULL, argv, envp);
  else
    r = posix_spawn (&pid, "/bin/true", NULL, NULL, argv, envp);
  double took = now () - t0;
  xpthread_join (t);
  TEST_COMPARE (r, 0);
  if (r == 0)
    {
      siginfo_t info = { 0 };
      int w = pidfd ? waitid (P_PIDFD, fd, &info, WEXITED)
		    : waitid (P_PID, pid, &info, WEXITED);
      if (w != 0)
	FAIL ("%s reported a child that waitid cannot find: %m",
	      pidfd ? "pidfd_spawn" : "posix_spawn");
      else
	{
	  TEST_COMPARE (info.si_code, CLD_EXITED);
	  TEST_COMPARE (info.si_status, 0);
	}
    }
  if (took < delay_us / 1e6)
    _exit (support_record_failure_is_failed () ? 1 : 77);
  _exit (support_record_failure_is_failed () ? 1 : 0);
}

static int
do_test (void)
{
  /* The delay points are the whole kernel's: one test that sets them at
     a time, as make check runs tests in parallel.  */
  int lock = open ("/tmp/tst-spawn-uring-delays.lock",
		   O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock >= 0)
    flock (lock, LOCK_EX);
  if (!set_delay (0))
    FAIL_UNSUPPORTED ("no delay point %s", knob);
  set_delay (delay_us);
  run (false);
  run (true);
  set_delay (0);
  return 0;
}

#include <support/test-driver.c>
