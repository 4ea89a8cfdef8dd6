/* Check the result of a spawn whose child is killed after a file action
   failed.  Linux version.
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

/* The clone path's child reports a failed file action before it exits;
   a SIGKILL that comes after that does not change posix_spawn's result.
   A spawn chain's child must give the same: the error, with the child
   reaped, for posix_spawn and for pidfd_spawn.

   The window is made certain with the test kernel's delay point in the
   child after its chain failed (/sys/kernel/debug/io_uring_spawn/
   failed_us, not part of the series): the child waits there 400 ms, and
   another thread kills it once it is asleep there (its wchan), not
   before its file action ran.  The delay points are the whole kernel's:
   the tests that set them take a lock, as make check runs tests in
   parallel.  A spawn that took less than the
   delay did not go through a chain: the test is then UNSUPPORTED (no
   such kernel, or the tunable is 0).  */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <support/check.h>
#include <support/xthread.h>
#include <support/xunistd.h>

static const char knob[] = "/sys/kernel/debug/io_uring_spawn/failed_us";
enum { delay_us = 400000 };

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

/* A child of this process, or 0.  */
static pid_t
find_child (void)
{
  DIR *d = opendir ("/proc/self/task");
  if (d == NULL)
    return 0;
  pid_t child = 0;
  struct dirent *e;
  while (child == 0 && (e = readdir (d)) != NULL)
    {
      if (e->d_name[0] == '.')
	continue;
      char path[300];
      snprintf (path, sizeof path, "/proc/self/task/%s/children", e->d_name);
      FILE *f = fopen (path, "re");
      if (f == NULL)
	continue;
      int pid;
      if (fscanf (f, "%d", &pid) == 1)
	child = pid;
      fclose (f);
    }
  closedir (d);
  return child;
}

/* Whether PID sleeps at the delay point (fsleep: msleep).  */
static bool
at_delay_point (pid_t pid)
{
  char path[64], buf[64];
  snprintf (path, sizeof path, "/proc/%d/wchan", (int) pid);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  return strstr (buf, "sleep") != NULL;
}

/* Kill the first child once it sleeps at the delay point, within a
   second.  */
static void *
killer (void *closure)
{
  for (int i = 0; i < 200; i++)
    {
      pid_t pid = find_child ();
      /* On the clone path the child may be gone already.  */
      if (pid > 0 && at_delay_point (pid))
	return kill (pid, SIGKILL) == 0 ? (void *) 1 : NULL;
      usleep (5000);
    }
  return NULL;
}

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spawn with an addopen that fails, its child killed after the failure;
   false if the spawn did not wait at the delay point.  */
static bool
spawn_killed (bool use_pidfd)
{
  const char *what = use_pidfd ? "pidfd_spawn" : "posix_spawn";
  posix_spawn_file_actions_t fa;
  TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
  TEST_COMPARE (posix_spawn_file_actions_addopen
		(&fa, 5, "/nonexistent/tst-spawn-uring-killed", O_RDONLY, 0),
		0);
  char *args[] = { (char *) "true", NULL };

  pthread_t thr = xpthread_create (NULL, killer, NULL);
  double t0 = now ();
  int pid = -1;
  int ret = use_pidfd
	    ? pidfd_spawn (&pid, "/bin/true", &fa, NULL, args, NULL)
	    : posix_spawn (&pid, "/bin/true", &fa, NULL, args, NULL);
  double took = now () - t0;
  bool killed = xpthread_join (thr) != NULL;
  posix_spawn_file_actions_destroy (&fa);
  printf ("info: %s: %d (%s) after %.3f s, child %s\n", what, ret,
	  strerror (ret), took, killed ? "killed" : "not found");
  if (took < delay_us / 1e6)
    {
      if (ret == 0 && pid >= 0)
	{
	  if (use_pidfd)
	    close (pid);
	  else
	    xwaitpid (pid, NULL, 0);
	}
      while (waitpid (-1, NULL, 0) > 0)
	;
      return false;
    }
  TEST_VERIFY (killed);
  if (ret != ENOENT)
    FAIL ("%s returned %d (%s) for a child killed after its addopen "
	  "failed, not ENOENT", what, ret, strerror (ret));
  if (ret == 0 && pid >= 0 && use_pidfd)
    close (pid);
  /* Reaped by the spawn: nothing to wait for.  */
  errno = 0;
  TEST_COMPARE (waitpid (-1, NULL, WNOHANG), -1);
  TEST_COMPARE (errno, ECHILD);
  return true;
}

static int
do_test (void)
{
  int lock = open ("/tmp/tst-spawn-uring-delays.lock",
		   O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock >= 0)
    flock (lock, LOCK_EX);
  if (!set_delay (delay_us))
    FAIL_UNSUPPORTED ("no delay point %s: %m", knob);
  bool chained = spawn_killed (false);
  chained &= spawn_killed (true);
  set_delay (0);
  if (!chained)
    FAIL_UNSUPPORTED ("the spawns did not go through chains");
  return 0;
}

#include <support/test-driver.c>
