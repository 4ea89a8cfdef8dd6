/* The signal operations of a spawn chain: the child inherits the
   submitting thread's signal mask; SIGMASK replaces it; SIGDEFAULT
   resets exactly the given dispositions; error paths.  The child's
   /proc/self/status tells what the new program got.  */

#include "st.h"

static char *envp[] = { NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

/* Spawn "grep FIELD /proc/self/status" after the queued ops (user_data
   1 .. N-1 already queued after the clone at 0); return the value.  */
static unsigned long long
status_field (const char *field, int n, int r, int w)
{
  static char script[128];
  static char *argv[] = { "sh", "-c", script, NULL };
  snprintf (script, sizeof script,
	    "exec sed -n 's/^%s:[[:space:]]*//p' /proc/self/status", field);
  st_exec (&st_ring, "/bin/sh", argv, envp, n);
  st_run (&st_ring, n + 1);
  close (w);
  char out[128];
  st_read_all (r, out, sizeof out);
  if (st_res[0] > 0)
    st_wait (st_res[0]);
  return strtoull (out, NULL, 16);
}

#define BIT(sig) (1ULL << ((sig) - 1))

int
main (void)
{
  st_init (0);
  int w, r;
  struct io_uring_sqe *sqe;

  /* The submitting thread's mask is inherited.  */
  sigset_t set;
  sigemptyset (&set);
  sigaddset (&set, SIGUSR1);
  sigaddset (&set, SIGTERM);
  sigprocmask (SIG_BLOCK, &set, NULL);
  st_clone (&st_ring, &ca, 0);
  r = st_capture (&st_ring, 1, &w);
  unsigned long long blk = status_field ("SigBlk", 2, r, w);
  KT_EXPECT_EQ ("mask inherited", blk, BIT (SIGUSR1) | BIT (SIGTERM));

  /* SIGMASK sets it (SIGKILL/SIGSTOP silently dropped).  */
  uint64_t kset = BIT (SIGUSR2) | BIT (SIGKILL) | BIT (SIGSTOP);
  st_clone (&st_ring, &ca, 0);
  r = st_capture (&st_ring, 1, &w);
  sqe = st_sqe (&st_ring, IORING_OP_SPAWN_SIGMASK, 2);
  sqe->addr = (uintptr_t) &kset;
  sqe->len = 8;
  sqe->flags = IOSQE_IO_LINK;
  blk = status_field ("SigBlk", 3, r, w);
  KT_EXPECT_EQ ("sigmask: res", st_res[2], 0);
  KT_EXPECT_EQ ("sigmask: new mask", blk, BIT (SIGUSR2));
  sigset_t cur;
  sigprocmask (SIG_BLOCK, NULL, &cur);
  KT_EXPECT_EQ ("sigmask: parent's mask unchanged",
		sigismember (&cur, SIGUSR1) && !sigismember (&cur, SIGUSR2), 1);
  sigprocmask (SIG_UNBLOCK, &set, NULL);

  /* SIGMASK errors: EFAULT (issue), bad size (prep).  */
  st_clone (&st_ring, &ca, 0);
  sqe = st_sqe (&st_ring, IORING_OP_SPAWN_SIGMASK, 1);
  sqe->addr = 8;
  sqe->len = 8;
  sqe->flags = IOSQE_IO_LINK;
  static char *argv_true[] = { "true", NULL };
  st_exec (&st_ring, "/bin/true", argv_true, envp, 2);
  st_run (&st_ring, 3);
  KT_EXPECT_EQ ("sigmask EFAULT", st_res[1], -EFAULT);
  ST_EXPECT_STATUS ("sigmask EFAULT: child exits 127", st_res[0] > 0 ? st_wait (st_res[0]) : -1, 127);
  st_clone (&st_ring, &ca, 0);
  sqe = st_sqe (&st_ring, IORING_OP_SPAWN_SIGMASK, 1);
  sqe->addr = (uintptr_t) &kset;
  sqe->len = 16;
  sqe->flags = IOSQE_IO_LINK;
  st_exec (&st_ring, "/bin/true", argv_true, envp, 2);
  st_run (&st_ring, 3);
  KT_EXPECT_EQ ("sigmask bad size", st_res[1], -EINVAL);
  KT_EXPECT_EQ ("sigmask bad size: clone cancelled", st_res[0], -ECANCELED);

  /* SIG_IGN survives exec, SIGDEFAULT resets only the given signals.  */
  signal (SIGUSR1, SIG_IGN);
  signal (SIGUSR2, SIG_IGN);
  signal (SIGHUP, SIG_IGN);
  st_clone (&st_ring, &ca, 0);
  r = st_capture (&st_ring, 1, &w);
  unsigned long long ign = status_field ("SigIgn", 2, r, w);
  unsigned long long mine = BIT (SIGUSR1) | BIT (SIGUSR2) | BIT (SIGHUP);
  KT_EXPECT_EQ ("ignored signals inherited", ign & mine, mine);

  uint64_t dfl = BIT (SIGUSR1) | BIT (SIGHUP) | BIT (SIGKILL);
  st_clone (&st_ring, &ca, 0);
  r = st_capture (&st_ring, 1, &w);
  sqe = st_sqe (&st_ring, IORING_OP_SPAWN_SIGDEFAULT, 2);
  sqe->addr = (uintptr_t) &dfl;
  sqe->len = 8;
  sqe->flags = IOSQE_IO_LINK;
  ign = status_field ("SigIgn", 3, r, w);
  KT_EXPECT_EQ ("sigdefault: res", st_res[2], 0);
  KT_EXPECT_EQ ("sigdefault: only the given ones reset", ign & mine, BIT (SIGUSR2));
  struct sigaction sa;
  sigaction (SIGUSR1, NULL, &sa);
  KT_EXPECT_EQ ("sigdefault: parent's disposition unchanged",
		sa.sa_handler == SIG_IGN, 1);

  /* SIGDEFAULT with a bad pointer.  */
  st_clone (&st_ring, &ca, 0);
  sqe = st_sqe (&st_ring, IORING_OP_SPAWN_SIGDEFAULT, 1);
  sqe->addr = 8;
  sqe->len = 8;
  sqe->flags = IOSQE_IO_LINK;
  st_exec (&st_ring, "/bin/true", argv_true, envp, 2);
  st_run (&st_ring, 3);
  KT_EXPECT_EQ ("sigdefault EFAULT", st_res[1], -EFAULT);
  ST_EXPECT_STATUS ("sigdefault EFAULT: child exits 127", st_res[0] > 0 ? st_wait (st_res[0]) : -1, 127);

  /* CLONE_CLEAR_SIGHAND resets handlers but keeps SIG_IGN (clone3).  */
  struct clone_args cc = { .flags = CLONE_CLEAR_SIGHAND, .exit_signal = SIGCHLD };
  st_clone (&st_ring, &cc, 0);
  r = st_capture (&st_ring, 1, &w);
  ign = status_field ("SigIgn", 2, r, w);
  KT_EXPECT_EQ ("CLONE_CLEAR_SIGHAND: clone", st_res[0] > 0, 1);
  KT_EXPECT_EQ ("CLONE_CLEAR_SIGHAND: SIG_IGN kept", ign & mine, mine);

  st_no_children ("no child left");
  return kt_exit ();
}
