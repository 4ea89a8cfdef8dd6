/* CLONE_PIDFD and CLONE_INTO_CGROUP in CLONE's clone_args (cover
   letter, "IORING_OP_CLONE" and "What a C library needs":
   pidfd_spawn() and POSIX_SPAWN_SETCGROUP).

   1. CLONE_PIDFD: the pidfd is written before the CQE, refers to the
      clone's pid (/proc/self/fdinfo Pid:; PIDFD_GET_INFO
      is not used: <linux/pidfd.h> clashes with glibc's <fcntl.h>), pidfd_send_signal (pidfd, 0) works while the
      child lives, waitid (P_PIDFD) gets its exit 0.  A kernel that
      writes a pid where the pidfd is due, or no pidfd: FAIL.
   2. CLONE_PIDFD with a chain that fails by itself (EXEC of a missing
      file): IORING_CQE_F_SPAWN_GONE, the pidfd is installed and is
      the pidfd of a reaped child -- POLLIN (exited), pidfd_send_signal
      ESRCH, waitid (P_PIDFD) ECHILD -- and the caller closes it
      (close () 0); no zombie.
   3. CLONE_INTO_CGROUP (clone_args of size CLONE_ARGS_SIZE_VER2): a
      new cgroup under /sys/fs/cgroup (UNSUPPORTED if it cannot be
      made); the chain child, blocked in a FIFO open, is in it
      (/proc/CHILD/cgroup); released, it exits 0; the cgroup is
      removed.  A bad cgroup fd fails the clone as clone3() does
      (-EBADF), no child.
   4. CLONE_AUTOREAP with exit_signal 0: the child reaps itself
      (waitpid ECHILD after its exit) and the pidfd reports the exit.
   5. CLONE_NNP: the new program has NoNewPrivs 1 (/proc/self/status),
      the submitter keeps 0.  A kernel that refuses the flag (v2's
      clone flag list): the clone's -EINVAL -- FAIL.
   6. CLONE_PIDFD_AUTOKILL (with AUTOREAP, PIDFD, NNP, exit_signal 0,
      clone3's rules): closing the pidfd while the child blocks in its
      chain kills it; the chain completes (the clone's CQE has the pid),
      nothing to reap.  */

#include "st.h"

static char fifo[] = "/tmp/st-v3-pidfd-fifo";
static char prog[] = "/tmp/st-v3-pidfd-true";
static char *argv_true[] = { "true", NULL };

static int
sys_pidfd_send_signal (int pidfd, int sig)
{
  return syscall (__NR_pidfd_send_signal, pidfd, sig, NULL, 0) == 0 ? 0 : -errno;
}

int
main (void)
{
  st_init (0);
  if (!st_tiny_true (prog) || !st_mkfifo (fifo))
    return kt_exit ();

  /* 1. CLONE_PIDFD.  */
  int pidfd = -1;
  struct clone_args ca = { .flags = CLONE_PIDFD, .exit_signal = SIGCHLD,
			   .pidfd = (uintptr_t) &pidfd };
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, fifo, O_RDONLY, 10, 1);
  st_exec (&st_ring, prog, argv_true, st_envp, 2);
  st_reset ();
  io_uring_submit (&st_ring);
  pid_t child = st_find_child (getpid (), "S");
  if (child == 0)
    kt_fail ("pidfd: chain child blocked in the FIFO open", "none");
  else
    {
      KT_EXPECT_EQ ("pidfd: written before the CQE, a descriptor",
		    pidfd >= 0, 1);
      KT_EXPECT_EQ ("pidfd: fdinfo Pid: is the child", st_pidfd_pid (pidfd),
		    child);
      KT_EXPECT_EQ ("pidfd: pidfd_send_signal 0", sys_pidfd_send_signal (pidfd, 0),
		    0);
      int w = st_fifo_writer (fifo);
      st_reap (&st_ring, 3, 20);
      if (w >= 0)
	close (w);
      KT_EXPECT_EQ ("pidfd: the clone's CQE has the pid", st_res[0], child);
      siginfo_t si;
      memset (&si, 0, sizeof si);
      int r = waitid (P_PIDFD, pidfd, &si, WEXITED);
      if (r == 0 && si.si_pid == child && si.si_code == CLD_EXITED
	  && si.si_status == 0)
	kt_pass ("pidfd: waitid (P_PIDFD) exit 0");
      else
	kt_fail ("pidfd: waitid (P_PIDFD) exit 0", "r %d (%m), pid %d, code "
		 "%d, status %d", r, (int) si.si_pid, si.si_code, si.si_status);
    }
  if (pidfd >= 0)
    close (pidfd);

  /* 2. CLONE_PIDFD and SPAWN_GONE.  */
  pidfd = -1;
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, "/nonexistent/st-v3", argv_true, st_envp, 1);
  st_run (&st_ring, 2);
  KT_EXPECT_EQ ("gone: SPAWN_GONE", !!(st_cflags[0] & IORING_CQE_F_SPAWN_GONE),
		1);
  KT_EXPECT_EQ ("gone: the exec's ENOENT", st_res[1], -ENOENT);
  KT_EXPECT_EQ ("gone: the pidfd is installed", pidfd >= 0, 1);
  if (pidfd >= 0)
    {
      struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
      KT_EXPECT_EQ ("gone: the pidfd reports the exit (POLLIN)",
		    poll (&pfd, 1, 5000), 1);
      /* The exit wakes the pidfd (POLLIN) before release_task() unhashes
	 the child and wakes it again (POLLHUP); until then a signal still
	 finds the task, as it does any autoreaped child's.  */
      bool hup = false;
      for (int i = 0; i < 1000000 && !hup; i++)
	{
	  if (poll (&pfd, 1, 5000) != 1)
	    break;
	  hup = (pfd.revents & POLLHUP) != 0;
	  if (!hup)
	    sched_yield ();
	}
      KT_EXPECT_EQ ("gone: the pidfd reports the reap (POLLHUP)", hup, 1);
      KT_EXPECT_EQ ("gone: pidfd_send_signal ESRCH",
		    sys_pidfd_send_signal (pidfd, 0), -ESRCH);
      siginfo_t si;
      int r = waitid (P_PIDFD, pidfd, &si, WEXITED | WNOHANG);
      KT_EXPECT_EQ ("gone: waitid (P_PIDFD) ECHILD", r < 0 ? -errno : r,
		    -ECHILD);
      KT_EXPECT_EQ ("gone: the caller closes it", close (pidfd), 0);
    }
  ST_EXPECT_GONE ("gone: nothing to reap", st_fate ());

  /* 3. CLONE_INTO_CGROUP.  */
  char own[400], dir[512];
  if (!st_own_cgroup (own, sizeof own))
    strcpy (own, "/sys/fs/cgroup");
  snprintf (dir, sizeof dir, "/sys/fs/cgroup/st-v3-%d", (int) getpid ());
  if (mkdir (dir, 0755) != 0)
    kt_unsupported ("CLONE_INTO_CGROUP", "mkdir %s: %m", dir);
  else
    {
      int cg = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      struct clone_args cc = { .flags = CLONE_INTO_CGROUP,
			       .exit_signal = SIGCHLD, .cgroup = cg };
      st_clone (&st_ring, &cc, 0)->len = CLONE_ARGS_SIZE_VER2;
      st_open (&st_ring, fifo, O_RDONLY, 10, 1);
      st_exec (&st_ring, prog, argv_true, st_envp, 2);
      st_reset ();
      io_uring_submit (&st_ring);
      child = st_find_child (getpid (), "S");
      if (child == 0)
	{
	  st_reap (&st_ring, 3, 5);
	  kt_fail ("CLONE_INTO_CGROUP: chain child", "none (clone %d)",
		   st_res[0]);
	}
      else
	{
	  char path[64], line[512] = "", want[600];
	  snprintf (path, sizeof path, "/proc/%d/cgroup", (int) child);
	  st_read_file (path, line, sizeof line);
	  snprintf (want, sizeof want, "0::%s", dir + strlen ("/sys/fs/cgroup"));
	  ST_EXPECT_STR ("CLONE_INTO_CGROUP: the child is in the cgroup", line,
			 want);
	  int w = st_fifo_writer (fifo);
	  st_reap (&st_ring, 3, 20);
	  if (w >= 0)
	    close (w);
	  ST_EXPECT_STATUS ("CLONE_INTO_CGROUP: exit 0", st_fate (), 0);
	}
      close (cg);
      /* A bad cgroup descriptor.  */
      cc.cgroup = 1000;
      st_clone (&st_ring, &cc, 0)->len = CLONE_ARGS_SIZE_VER2;
      st_exec (&st_ring, prog, argv_true, st_envp, 1);
      st_run (&st_ring, 2);
      KT_EXPECT_EQ ("CLONE_INTO_CGROUP: a bad fd, -EBADF", st_res[0], -EBADF);
      st_no_children ("CLONE_INTO_CGROUP: a bad fd, no child");
      for (int i = 0; i < 100 && rmdir (dir) != 0; i++)
	usleep (10000);
    }

  /* 4. CLONE_AUTOREAP.  */
  pidfd = -1;
  struct clone_args cr = { .flags = CLONE_AUTOREAP | CLONE_PIDFD,
			   .exit_signal = 0, .pidfd = (uintptr_t) &pidfd };
  st_clone (&st_ring, &cr, 0);
  st_exec (&st_ring, prog, argv_true, st_envp, 1);
  st_run (&st_ring, 2);
  if (st_res[0] > 0 && pidfd >= 0)
    {
      struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
      KT_EXPECT_EQ ("autoreap: the pidfd reports the exit",
		    poll (&pfd, 1, 5000), 1);
      usleep (100000);
      int status;
      pid_t r = waitpid (st_res[0], &status, WNOHANG);
      KT_EXPECT_EQ ("autoreap: nothing to reap", r < 0 ? -errno : r, -ECHILD);
      close (pidfd);
    }
  else
    kt_fail ("autoreap", "clone %d, pidfd %d", st_res[0], pidfd);

  /* 5. CLONE_NNP.  */
  struct clone_args cn = { .flags = CLONE_NNP, .exit_signal = SIGCHLD };
  int w;
  st_clone (&st_ring, &cn, 0);
  int r = st_capture (&st_ring, 1, &w);
  static char *argv_sed[] = { "sed", "-n", "s/^NoNewPrivs:[[:space:]]*//p",
			      "/proc/self/status", NULL };
  st_exec (&st_ring, "/bin/sed", argv_sed, st_envp, 2);
  int status = st_finish (3);
  close (w);
  char out[32];
  st_read_all (r, out, sizeof out);
  KT_EXPECT_EQ ("CLONE_NNP: the clone", st_res[0] > 0, 1);
  ST_EXPECT_STR ("CLONE_NNP: NoNewPrivs in the new program", out, "1");
  ST_EXPECT_STATUS ("CLONE_NNP: exit 0", status, 0);
  char mine[32] = "";
  st_status_field (getpid (), "NoNewPrivs", mine, sizeof mine);
  ST_EXPECT_STR ("CLONE_NNP: the submitter's unchanged", mine, "0");

  /* 6. CLONE_PIDFD_AUTOKILL.  */
  pidfd = -1;
  struct clone_args ck = { .flags = CLONE_AUTOREAP | CLONE_PIDFD
				    | CLONE_PIDFD_AUTOKILL | CLONE_NNP,
			   .exit_signal = 0, .pidfd = (uintptr_t) &pidfd };
  st_clone (&st_ring, &ck, 0);
  st_open (&st_ring, fifo, O_RDONLY, 10, 1);
  st_exec (&st_ring, prog, argv_true, st_envp, 2);
  st_reset ();
  io_uring_submit (&st_ring);
  child = st_find_child (getpid (), "S");
  if (child == 0 || pidfd < 0)
    {
      st_reap (&st_ring, 3, 5);
      kt_fail ("autokill: chain child", "none (clone %d, pidfd %d)",
	       st_res[0], pidfd);
    }
  else
    {
      close (pidfd);
      int got = st_reap (&st_ring, 3, 20);
      KT_EXPECT_EQ ("autokill: closing the pidfd ends the chain", got, 3);
      KT_EXPECT_EQ ("autokill: the clone's CQE has the pid", st_res[0], child);
      bool gone = false;
      for (int i = 0; i < 500 && !gone; i++)
	{
	  gone = kill (child, 0) != 0 && errno == ESRCH;
	  if (!gone)
	    usleep (10000);
	}
      KT_EXPECT_EQ ("autokill: the child is gone", gone, 1);
    }

  unlink (fifo);
  unlink (prog);
  st_no_children ("no child left");
  return kt_exit ();
}
