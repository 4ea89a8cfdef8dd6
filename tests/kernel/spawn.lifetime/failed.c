/* N failed spawns leave no trace (issue 11, item 6): a chain that fails
   by itself -- an exec ENOENT, an exec EACCES, a failing file action
   (SPAWN_OPEN ENOENT), a failing process action (SPAWN_FCHDIR EBADF)
   -- reports the errno on the failed SQE's CQE and the child's pid with
   IORING_CQE_F_SPAWN_GONE on the clone's, and the child is gone: no
   SIGCHLD (counted with a handler and with a signalfd for a second
   signal, used as exit_signal), no zombie, nothing to wait for.  v1's
   child exited 127, sent SIGCHLD and stayed a zombie.

     failed N    (N spawns, spread over the four kinds)  */

#include "st.h"
#include <sys/signalfd.h>

static volatile sig_atomic_t sigchld;

static void
on_sigchld (int sig)
{
  (void) sig;
  sigchld++;
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 1000;
  st_init (0);
  char noexec[] = "/tmp/st-failed-noexec";
  int fd = open (noexec, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0 || write (fd, "#!/bin/sh\n", 10) != 10)
    kt_fail ("noexec file", "%m");
  close (fd);
  struct sigaction sa = { .sa_handler = on_sigchld, .sa_flags = SA_RESTART };
  sigaction (SIGCHLD, &sa, NULL);
  /* SIGUSR2 as the exit signal of every other spawn, read from a
     signalfd.  */
  sigset_t usr2;
  sigemptyset (&usr2);
  sigaddset (&usr2, SIGUSR2);
  sigprocmask (SIG_BLOCK, &usr2, NULL);
  int sfd = signalfd (-1, &usr2, SFD_NONBLOCK | SFD_CLOEXEC);

  static char *argv_true[] = { "true", NULL };
  static const char *kinds[] = { "exec ENOENT", "exec EACCES",
				 "open ENOENT", "fchdir EBADF" };
  static const int errs[] = { ENOENT, EACCES, ENOENT, EBADF };
  int wrong_errno[4] = { 0 }, not_gone[4] = { 0 }, zombies = 0, runs[4] = { 0 };
  for (int i = 0; i < n; i++)
    {
      int k = i % 4;
      struct clone_args ca = { .exit_signal = (i / 4) % 2 ? SIGUSR2 : SIGCHLD };
      st_clone (&st_ring, &ca, 0);
      int failing = 1;
      switch (k)
	{
	case 0:
	  st_exec (&st_ring, "/nonexistent/true", argv_true, st_envp, 1);
	  break;
	case 1:
	  st_exec (&st_ring, noexec, argv_true, st_envp, 1);
	  break;
	case 2:
	  st_link (st_dup2 (&st_ring, 0, 3, 1));
	  st_open (&st_ring, "/nonexistent/file", O_RDONLY, 4, 2);
	  st_exec (&st_ring, "/bin/true", argv_true, st_envp, 3);
	  failing = 2;
	  break;
	case 3:
	  st_fchdir (&st_ring, 999, 1);
	  st_exec (&st_ring, "/bin/true", argv_true, st_envp, 2);
	  break;
	}
      int nsqe = k == 2 ? 4 : k == 3 ? 3 : 2;
      int got = st_run (&st_ring, nsqe);
      runs[k]++;
      if (got != nsqe || st_res[failing] != -errs[k])
	{
	  if (wrong_errno[k]++ < 3)
	    kt_fail (kinds[k], "iteration %d: %d CQEs, res %d", i, got,
		     st_res[failing]);
	}
      int fate = st_fate ();
      if (fate != ST_GONE)
	{
	  if (not_gone[k]++ < 3)
	    kt_fail (kinds[k], "iteration %d: fate %#x, cflags %#x", i, fate,
		     st_cflags[0]);
	}
      if (i % 50 == 0 && waitpid (-1, NULL, WNOHANG | __WALL) != -1)
	zombies++;
    }
  char name[64];
  for (int k = 0; k < 4; k++)
    {
      snprintf (name, sizeof name, "%s: the right errno (%d spawns)", kinds[k], runs[k]);
      KT_EXPECT_EQ (name, wrong_errno[k], 0);
      snprintf (name, sizeof name, "%s: GONE, no zombie", kinds[k]);
      KT_EXPECT_EQ (name, not_gone[k], 0);
    }
  KT_EXPECT_EQ ("never a child to wait for", zombies, 0);
  KT_EXPECT_EQ ("no SIGCHLD", sigchld, 0);
  struct signalfd_siginfo si;
  KT_EXPECT_EQ ("no SIGUSR2 (the other exit signal)",
		read (sfd, &si, sizeof si) < 0 && errno == EAGAIN, 1);
  st_no_children ("no child left");
  unlink (noexec);
  return kt_exit ();
}
