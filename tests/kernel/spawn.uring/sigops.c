/* Signals of a spawn chain, v3: the signal fields of struct
   io_uring_spawn_attr at the clone's sqe->addr2 (v2's struct
   io_uring_spawn_sigs at sqe->off is gone):

   - without attributes the new program gets the submitter's mask and
     its SIG_IGN dispositions;
   - with IORING_SPAWN_ATTR_SETSIGMASK, sigmask is the new program's
     mask (SIGKILL, SIGSTOP dropped), applied by the exec; without the
     flag sigmask is not used (the submitter's mask);
   - with IORING_SPAWN_ATTR_SETSIGDEF, sigdefault resets exactly the
     given dispositions (without the flag it is not used), then
     sigignore ignores the given ones;
   - the chain itself runs with every signal but SIGKILL and SIGSTOP
     blocked and no handler (seen in /proc while the child blocks in a
     FIFO open); a signal sent to the child meanwhile does not disturb
     the chain and stays pending for the new program (delivered to it
     if its mask lets it through);
   - the submitter's own mask and dispositions never change.

   The new program is sed printing a field of its /proc/self/status.  */

#include "st.h"

static char *envp[] = { NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };
static char fifo[] = "/tmp/st-sigops-fifo";

#define BIT(sig) ST_SIGBIT (sig)
/* The chain's mask: everything but SIGKILL and SIGSTOP.  */
#define ALL_BUT_KILL_STOP (~(BIT (SIGKILL) | BIT (SIGSTOP)))

/* Queue the EXEC of "sed printing FIELD of /proc/self/status" (user
   data N), run the N + 1 SQEs, read the output from R; return the
   value (hex).  */
static unsigned long long
status_field (const char *field, int n, int r, int w)
{
  static char script[128];
  static char *argv[] = { "sed", "-n", script, "/proc/self/status", NULL };
  snprintf (script, sizeof script, "s/^%s:[[:space:]]*//p", field);
  st_exec (&st_ring, "/bin/sed", argv, envp, n);
  st_run (&st_ring, n + 1);
  close (w);
  char out[128];
  st_read_all (r, out, sizeof out);
  st_fate ();
  return strtoull (out, NULL, 16);
}

/* A chain with SIGS (or none), the child's stdout captured, printing
   FIELD.  */
static unsigned long long
spawn_field (struct io_uring_spawn_attr *sigs, const char *field)
{
  int w;
  if (sigs != NULL)
    st_clone_attr (&st_ring, &ca, sigs, 0);
  else
    st_clone (&st_ring, &ca, 0);
  int r = st_capture (&st_ring, 1, &w);
  return status_field (field, 2, r, w);
}

static void
on_usr2 (int sig)
{
  (void) sig;
}

int
main (void)
{
  st_init (0);
  struct io_uring_spawn_attr sigs;

  /* 1. Without sigs: the submitting thread's mask is the new
     program's.  */
  sigset_t set;
  sigemptyset (&set);
  sigaddset (&set, SIGUSR1);
  sigaddset (&set, SIGTERM);
  sigprocmask (SIG_BLOCK, &set, NULL);
  KT_EXPECT_EQ ("no sigs: mask inherited", spawn_field (NULL, "SigBlk"),
		BIT (SIGUSR1) | BIT (SIGTERM));

  /* 2. sigs.mask is the new program's mask; SIGKILL/SIGSTOP dropped.  */
  memset (&sigs, 0, sizeof sigs);
  sigs.flags |= IORING_SPAWN_ATTR_SETSIGMASK;
  sigs.sigmask = BIT (SIGUSR2) | BIT (SIGKILL) | BIT (SIGSTOP) | BIT (SIGRTMIN + 1);
  KT_EXPECT_EQ ("sigs.mask: the new mask", spawn_field (&sigs, "SigBlk"),
		BIT (SIGUSR2) | BIT (SIGRTMIN + 1));
  sigs.sigmask = 0;
  KT_EXPECT_EQ ("sigs.mask 0: nothing blocked", spawn_field (&sigs, "SigBlk"), 0);
  sigs.flags |= IORING_SPAWN_ATTR_SETSIGMASK;
  sigs.sigmask = ~0ULL;
  KT_EXPECT_EQ ("sigs.mask all: all but KILL and STOP",
		spawn_field (&sigs, "SigBlk"), ALL_BUT_KILL_STOP);
  /* No SETSIGMASK: the submitter's mask.  (A sigmask without the flag
     is -EINVAL: spawn.v4/minors.c.)  */
  memset (&sigs, 0, sizeof sigs);
  KT_EXPECT_EQ ("no SETSIGMASK: the submitter's mask",
		spawn_field (&sigs, "SigBlk"), BIT (SIGUSR1) | BIT (SIGTERM));
  sigset_t cur;
  sigprocmask (SIG_BLOCK, NULL, &cur);
  KT_EXPECT_EQ ("sigs.mask: the submitter's mask unchanged",
		sigismember (&cur, SIGUSR1) && sigismember (&cur, SIGTERM)
		&& !sigismember (&cur, SIGUSR2), 1);
  sigprocmask (SIG_UNBLOCK, &set, NULL);

  /* 3. SIG_IGN survives exec; sig_dfl resets only the given signals,
     then sig_ign ignores the given ones.  */
  signal (SIGUSR1, SIG_IGN);
  signal (SIGUSR2, SIG_IGN);
  signal (SIGHUP, SIG_IGN);
  unsigned long long mine = BIT (SIGUSR1) | BIT (SIGUSR2) | BIT (SIGHUP);
  unsigned long long ign = spawn_field (NULL, "SigIgn");
  KT_EXPECT_EQ ("no sigs: ignored signals inherited", ign & mine, mine);

  memset (&sigs, 0, sizeof sigs);
  sigs.flags |= IORING_SPAWN_ATTR_SETSIGDEF;
  sigs.sigdefault = BIT (SIGUSR1) | BIT (SIGHUP) | BIT (SIGKILL);
  ign = spawn_field (&sigs, "SigIgn");
  KT_EXPECT_EQ ("sig_dfl: only the given ones reset", ign & mine, BIT (SIGUSR2));
  /* (sigdefault without SETSIGDEF is -EINVAL: spawn.v4/minors.c.)  */
  memset (&sigs, 0, sizeof sigs);
  sigs.flags = IORING_SPAWN_ATTR_SETSIGIGN;
  sigs.sigignore = BIT (SIGTERM) | BIT (SIGQUIT) | BIT (SIGKILL) | BIT (SIGSTOP);
  ign = spawn_field (&sigs, "SigIgn");
  KT_EXPECT_EQ ("sig_ign: the given ones ignored, not KILL/STOP",
		ign & (BIT (SIGTERM) | BIT (SIGQUIT) | BIT (SIGKILL) | BIT (SIGSTOP)),
		BIT (SIGTERM) | BIT (SIGQUIT));
  memset (&sigs, 0, sizeof sigs);
  sigs.flags |= IORING_SPAWN_ATTR_SETSIGDEF | IORING_SPAWN_ATTR_SETSIGIGN;
  sigs.sigdefault = BIT (SIGTERM) | BIT (SIGUSR1);
  sigs.sigignore = BIT (SIGTERM);
  ign = spawn_field (&sigs, "SigIgn");
  KT_EXPECT_EQ ("sig_dfl then sig_ign: sig_ign wins",
		ign & (BIT (SIGTERM) | BIT (SIGUSR1)), BIT (SIGTERM));
  struct sigaction sa;
  sigaction (SIGUSR1, NULL, &sa);
  KT_EXPECT_EQ ("sig_dfl: the submitter's disposition unchanged",
		sa.sa_handler == SIG_IGN, 1);
  sigaction (SIGTERM, NULL, &sa);
  KT_EXPECT_EQ ("sig_ign: the submitter's disposition unchanged",
		sa.sa_handler == SIG_DFL, 1);

  /* CLONE_CLEAR_SIGHAND (implied anyway) keeps SIG_IGN, as clone3.  */
  struct clone_args cc = { .flags = CLONE_CLEAR_SIGHAND, .exit_signal = SIGCHLD };
  int w;
  st_clone (&st_ring, &cc, 0);
  int r = st_capture (&st_ring, 1, &w);
  ign = status_field ("SigIgn", 2, r, w);
  KT_EXPECT_EQ ("CLONE_CLEAR_SIGHAND: clone", st_res[0] > 0, 1);
  KT_EXPECT_EQ ("CLONE_CLEAR_SIGHAND: SIG_IGN kept", ign & mine, mine);

  /* 4. The chain runs with everything blocked and no handler.  The
     submitter has a handler for SIGUSR2 and blocks nothing; the
     child's sigs ignore SIGTERM.  */
  signal (SIGUSR1, SIG_DFL);
  signal (SIGHUP, SIG_DFL);
  signal (SIGUSR2, on_usr2);
  static char *argv_true[] = { "true", NULL };
  if (st_mkfifo (fifo))
    {
      memset (&sigs, 0, sizeof sigs);
      sigs.flags = IORING_SPAWN_ATTR_SETSIGIGN;
      sigs.sigignore = BIT (SIGTERM);
      st_clone_attr (&st_ring, &ca, &sigs, 0);
      st_open (&st_ring, fifo, O_RDONLY, 5, 1);
      st_exec (&st_ring, "/bin/true", argv_true, envp, 2);
      st_reset ();
      io_uring_submit (&st_ring);
      pid_t child = st_find_child (getpid (), "S");
      char v[64] = "";
      st_status_field (child, "SigBlk", v, sizeof v);
      KT_EXPECT_EQ ("in the chain: all but KILL and STOP blocked",
		    strtoull (v, NULL, 16), ALL_BUT_KILL_STOP);
      v[0] = '\0';
      st_status_field (child, "SigCgt", v, sizeof v);
      KT_EXPECT_EQ ("in the chain: no handler", strtoull (v, NULL, 16), 0);
      v[0] = '\0';
      st_status_field (child, "SigIgn", v, sizeof v);
      KT_EXPECT_EQ ("in the chain: sig_ign applied",
		    strtoull (v, NULL, 16) & BIT (SIGTERM), BIT (SIGTERM));
      int w = st_fifo_writer (fifo);
      st_reap (&st_ring, 3, 20);
      if (w >= 0)
	close (w);
      KT_EXPECT_EQ ("in the chain: exec", st_res[2], 0);
      ST_EXPECT_STATUS ("in the chain: child", st_fate (), 0);
    }
  signal (SIGUSR2, SIG_DFL);

  /* 5. A signal sent to the child in its chain stays pending for the
     new program; the chain is not disturbed.  */
  if (st_mkfifo (fifo))
    {
      memset (&sigs, 0, sizeof sigs);
      sigs.flags |= IORING_SPAWN_ATTR_SETSIGMASK;
      sigs.sigmask = BIT (SIGUSR1);
      st_clone_attr (&st_ring, &ca, &sigs, 0);
      r = st_capture (&st_ring, 1, &w);
      st_open (&st_ring, fifo, O_RDONLY, 5, 2);
      static char *argv[] = { "sed", "-n", "s/^ShdPnd:[[:space:]]*//p",
			      "/proc/self/status", NULL };
      st_exec (&st_ring, "/bin/sed", argv, envp, 3);
      st_reset ();
      io_uring_submit (&st_ring);
      close (w);
      pid_t child = st_find_child (getpid (), "S");
      kill (child, SIGUSR1);
      /* Still blocked in the open, SIGUSR1 pending.  */
      KT_EXPECT_EQ ("pending: the chain goes on", st_state (child), 'S');
      KT_EXPECT_EQ ("pending: no CQE yet", io_uring_cq_ready (&st_ring), 0);
      int fw = st_fifo_writer (fifo);
      st_reap (&st_ring, 4, 20);
      if (fw >= 0)
	close (fw);
      char out[64];
      st_read_all (r, out, sizeof out);
      KT_EXPECT_EQ ("pending: open", st_res[2], 5);
      KT_EXPECT_EQ ("pending: exec", st_res[3], 0);
      KT_EXPECT_EQ ("pending: SIGUSR1 pending in the new program",
		    strtoull (out, NULL, 16) & BIT (SIGUSR1), BIT (SIGUSR1));
      ST_EXPECT_STATUS ("pending: child", st_fate (), 0);
    }

  /* 6. A signal the new program does not block is delivered to it
     right after the exec, not to the chain.  */
  if (st_mkfifo (fifo))
    {
      memset (&sigs, 0, sizeof sigs);
      static char *argv_sleep[] = { "sleep", "100", NULL };
      st_clone_attr (&st_ring, &ca, &sigs, 0);
      st_open (&st_ring, fifo, O_RDONLY, 5, 1);
      st_exec (&st_ring, "/bin/sleep", argv_sleep, envp, 2);
      st_reset ();
      io_uring_submit (&st_ring);
      pid_t child = st_find_child (getpid (), "S");
      kill (child, SIGTERM);
      int fw = st_fifo_writer (fifo);
      st_reap (&st_ring, 3, 20);
      if (fw >= 0)
	close (fw);
      KT_EXPECT_EQ ("delivered: open", st_res[1], 5);
      KT_EXPECT_EQ ("delivered: exec", st_res[2], 0);
      KT_EXPECT_EQ ("delivered: no GONE flag", st_cflags[0], 0);
      int status = st_fate ();
      KT_EXPECT_EQ ("delivered: the new program dies of SIGTERM",
		    status >= 0 && WIFSIGNALED (status)
		    && WTERMSIG (status) == SIGTERM, 1);
    }
  unlink (fifo);

  st_no_children ("no child left");
  return kt_exit ();
}
