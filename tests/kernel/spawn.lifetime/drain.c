/* IOSQE_IO_DRAIN after spawns completes (issue 11, item 3).  v1 posted
   a chain's completions by hand (io_post_aux_cqe() + CQE_SKIP), so each
   chain SQE counted in the submission sequence without a request CQE and
   a drained request after a spawn waited forever.  Every SQE of a chain
   now posts exactly one CQE through the normal path:

   - after chains that succeeded, that failed by themselves (the child
     gone), that were refused (kernel.io_uring_spawn_disabled=1), that
     were malformed (a prep error) and that a fatal signal ended, a
     drained NOP completes;
   - a drained NOP submitted while a chain still runs (its child blocks
     in a FIFO open) waits for that chain, and completes after the
     chain's CQEs once the child goes on.

   And chains after a drain: a chain submitted after a drained request
   (in the same submission, after one that failed, or while one waits
   for an earlier chain) must run once the drain is over.  io_uring
   marks every request FORCE_ASYNC while a ring's drain is active, and
   a drained request that fails never clears that state; the spawn
   operations must not take that for a user's IOSQE_ASYNC.

   Each case uses a fresh ring (DRAIN accounting is per ring).  */

#include "st.h"
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

static char fifo[] = "/tmp/st-drain-fifo";
static char prog[] = "/tmp/st-drain-true";
static char *argv_true[] = { "true", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

/* Queue one chain of kind K (user_data from UD); return its length.  */
static int
queue_chain (int k, int ud)
{
  switch (k)
    {
    case 0:			/* success, three SQEs */
      st_clone_attr (&st_ring, &ca, &st_attr_setpgroup, ud);
      st_nop_action (&st_ring, ud + 1);
      st_exec (&st_ring, prog, argv_true, st_envp, ud + 2);
      return 3;
    case 1:			/* fails by itself, four SQEs */
      st_clone (&st_ring, &ca, ud);
      st_link (st_search (&st_ring, "/nonexistent/a", argv_true, st_envp,
			  ud + 1));
      st_link (st_search (&st_ring, "/nonexistent/b", argv_true, st_envp,
			  ud + 2));
      st_exec (&st_ring, "/nonexistent/c", argv_true, st_envp, ud + 3);
      return 4;
    }
  return 0;
}

/* Submit what is queued plus a drained NOP (user_data 63); wait for
   N + 1 CQEs; PASS NAME if the NOP's came last.  */
static void
drain_after (const char *name, int n)
{
  st_sqe (&st_ring, IORING_OP_NOP, 63)->flags = IOSQE_IO_DRAIN;
  int got = st_run (&st_ring, n + 1);
  if (got == n + 1 && st_res[63] == 0 && st_order[n] == 63)
    kt_pass (name);
  else
    kt_fail (name, "%d of %d CQEs, NOP res %d", got, n + 1, st_res[63]);
}

static void
reap_all (void)
{
  while (waitpid (-1, NULL, __WALL | WNOHANG) > 0)
    ;
  for (int i = 0; i < 200 && waitpid (-1, NULL, __WALL | WNOHANG) >= 0; i++)
    usleep (10000);
}

int
main (void)
{
  if (!st_tiny_true (prog) || !st_mkfifo (fifo))
    return kt_exit ();

  /* 1. After successful chains.  */
  st_init (0);
  int n = queue_chain (0, 0);
  n += queue_chain (0, 3);
  drain_after ("drain after two spawns", n);
  KT_EXPECT_EQ ("drain after two spawns: exec", st_res[2] == 0 && st_res[5] == 0, 1);
  reap_all ();
  /* A second round on the same ring: the accounting still holds.  */
  n = queue_chain (0, 0);
  drain_after ("drain after a spawn, again", n);
  reap_all ();
  io_uring_queue_exit (&st_ring);

  /* 2. After chains that failed by themselves.  */
  st_init (0);
  n = queue_chain (1, 0);
  n += queue_chain (1, 4);
  drain_after ("drain after failed chains", n);
  KT_EXPECT_EQ ("drain after failed chains: gone",
		(st_cflags[0] & st_cflags[4] & IORING_CQE_F_SPAWN_GONE) != 0, 1);
  io_uring_queue_exit (&st_ring);

  /* 3. After a malformed chain (a prep error: the rest cancelled).  */
  st_init (0);
  st_clone (&st_ring, &ca, 0);
  st_link (st_dup2 (&st_ring, 0, 5, 1));
  st_link (st_dup2 (&st_ring, 0, 6, 2))->addr = 1;
  st_exec (&st_ring, prog, argv_true, st_envp, 3);
  drain_after ("drain after a malformed chain", 4);
  KT_EXPECT_EQ ("drain after a malformed chain: prep error", st_res[2], -EINVAL);
  io_uring_queue_exit (&st_ring);

  /* 4. After a refused chain.  v2 refused through the sysctl
     kernel.io_uring_spawn_disabled, which v3 does not have; v3 refuses
     a submitter under any seccomp filter: a child process installs an
     allow-all filter and runs the case.  */
  fflush (stdout);
  pid_t t = fork ();
  if (t == 0)
    {
      struct sock_filter allow[] = { BPF_STMT (BPF_RET | BPF_K,
					       SECCOMP_RET_ALLOW) };
      struct sock_fprog fp = { .len = 1, .filter = allow };
      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
	  || syscall (__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) != 0)
	{
	  kt_unsupported ("drain after a refused chain", "seccomp: %m");
	  _exit (0);
	}
      st_init (0);
      n = queue_chain (0, 0);
      drain_after ("drain after a refused chain", n);
      KT_EXPECT_EQ ("drain after a refused chain: refused", st_res[0],
		    -EOPNOTSUPP);
      _exit (kt_failures ? 1 : 0);
    }
  ST_EXPECT_STATUS ("drain after a refused chain: the process", st_wait (t),
		    0);

  /* 5. After a chain a fatal signal ended.  */
  st_init (0);
  int pidfd = -1;
  struct clone_args cp = { .flags = CLONE_PIDFD, .pidfd = (uintptr_t) &pidfd,
			   .exit_signal = SIGCHLD };
  st_clone (&st_ring, &cp, 0);
  st_open (&st_ring, fifo, O_RDONLY, 5, 1);
  st_exec (&st_ring, prog, argv_true, st_envp, 2);
  st_reset ();
  io_uring_submit (&st_ring);
  pid_t pid = pidfd >= 0 ? st_pidfd_pid (pidfd) : -1;
  if (pid > 0)
    st_wait_state (pid, "S");
  syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
  st_reap (&st_ring, 3, 20);
  close (pidfd);
  st_sqe (&st_ring, IORING_OP_NOP, 63)->flags = IOSQE_IO_DRAIN;
  st_reset ();
  io_uring_submit (&st_ring);
  KT_EXPECT_EQ ("drain after a killed chain", st_reap (&st_ring, 1, 20) == 1
		&& st_res[63] == 0, 1);
  reap_all ();
  io_uring_queue_exit (&st_ring);

  /* 6. A drained NOP while a chain runs waits for it.  */
  st_init (0);
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, fifo, O_RDONLY, 5, 1);
  st_exec (&st_ring, prog, argv_true, st_envp, 2);
  st_sqe (&st_ring, IORING_OP_NOP, 63)->flags = IOSQE_IO_DRAIN;
  st_reset ();
  io_uring_submit (&st_ring);
  pid = st_find_child (getpid (), "S");
  KT_EXPECT_EQ ("drain during a chain: the child blocks", pid > 0, 1);
  KT_EXPECT_EQ ("drain during a chain: the NOP waits", io_uring_cq_ready (&st_ring), 0);
  int w = st_fifo_writer (fifo);
  int got = st_reap (&st_ring, 4, 20);
  if (w >= 0)
    close (w);
  KT_EXPECT_EQ ("drain during a chain: all CQEs", got, 4);
  KT_EXPECT_EQ ("drain during a chain: the NOP completes last",
		st_nrecv == 4 && st_order[3] == 63 && st_res[63] == 0, 1);
  KT_EXPECT_EQ ("drain during a chain: exec", st_res[2], 0);
  ST_EXPECT_STATUS ("drain during a chain: child", st_fate (), 0);
  io_uring_queue_exit (&st_ring);

  /* 7. A chain in the submission after a drained NOP.  */
  st_init (0);
  st_sqe (&st_ring, IORING_OP_NOP, 63)->flags = IOSQE_IO_DRAIN;
  n = queue_chain (0, 0);
  got = st_run (&st_ring, n + 1);
  KT_EXPECT_EQ ("chain after a drained NOP: all CQEs", got, n + 1);
  KT_EXPECT_EQ ("chain after a drained NOP: clone", st_res[0] > 0, 1);
  KT_EXPECT_EQ ("chain after a drained NOP: exec", st_res[2], 0);
  reap_all ();
  io_uring_queue_exit (&st_ring);

  /* 8. A chain after a drained request that failed.  */
  st_init (0);
  struct io_uring_sqe *sqe = st_sqe (&st_ring, IORING_OP_NOP, 63);
  sqe->flags = IOSQE_IO_DRAIN;
  sqe->ioprio = 1;
  st_run (&st_ring, 1);
  KT_EXPECT_EQ ("chain after a failed drained NOP: the NOP fails", st_res[63], -EINVAL);
  n = queue_chain (0, 0);
  got = st_run (&st_ring, n);
  KT_EXPECT_EQ ("chain after a failed drained NOP: clone", st_res[0] > 0, 1);
  KT_EXPECT_EQ ("chain after a failed drained NOP: exec", st_res[2], 0);
  reap_all ();
  io_uring_queue_exit (&st_ring);

  /* 9. A chain submitted while a drained NOP waits for a blocked
     chain: it runs after them.  */
  st_init (0);
  struct clone_args cb = { .exit_signal = SIGCHLD };
  st_clone (&st_ring, &cb, 10);
  st_open (&st_ring, fifo, O_RDONLY, 5, 11);
  st_exec (&st_ring, prog, argv_true, st_envp, 12);
  st_sqe (&st_ring, IORING_OP_NOP, 63)->flags = IOSQE_IO_DRAIN;
  st_reset ();
  io_uring_submit (&st_ring);
  pid = st_find_child (getpid (), "S");
  n = queue_chain (0, 0);
  io_uring_submit (&st_ring);
  /* Nothing may complete before the blocked chain: the drain holds the
     second chain back.  */
  KT_EXPECT_EQ ("chain behind a drain: held back", st_reap (&st_ring, 1, 1), 0);
  w = st_fifo_writer (fifo);
  got = st_reap (&st_ring, 4 + n, 20);
  if (w >= 0)
    close (w);
  KT_EXPECT_EQ ("chain behind a drain: all CQEs", got, 4 + n);
  KT_EXPECT_EQ ("chain behind a drain: the first chain", st_res[12], 0);
  KT_EXPECT_EQ ("chain behind a drain: the NOP", st_res[63], 0);
  KT_EXPECT_EQ ("chain behind a drain: the second clone", st_res[0] > 0, 1);
  KT_EXPECT_EQ ("chain behind a drain: the second exec", st_res[2], 0);
  reap_all ();
  io_uring_queue_exit (&st_ring);

  reap_all ();
  st_no_children ("no child left");
  unlink (fifo);
  unlink (prog);
  return kt_exit ();
}
