/* Landlock (issue 10): SPAWN_TCSETPGRP goes through
   security_file_ioctl(TIOCSPGRP) as ioctl(TIOCSPGRP) does; v1's
   tty_file_set_pgrp() skipped the hook.

   Under a Landlock ruleset that handles LANDLOCK_ACCESS_FS_IOCTL_DEV and
   grants it nowhere, a chain SETSID + SPAWN_OPEN (a pty's slave, which
   becomes the controlling terminal) + SPAWN_TCSETPGRP fails its
   TCSETPGRP with -EACCES, exactly as setsid() + open() +
   ioctl(TIOCSPGRP) fail in a forked child under the same ruleset.
   Without the ruleset both succeed.  */

#include "st.h"
#include <linux/landlock.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <termios.h>

static char prog[] = "/tmp/st-landlock-true";
static char slave[64];

/* The twin: setsid, open the slave, TIOCSPGRP; 0 or the errno.  */
static int
twin (void)
{
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      if (setsid () < 0)
	_exit (100);
      int fd = open (slave, O_RDWR);
      if (fd < 0)
	_exit (101);
      pid_t pg = getpgrp ();
      _exit (ioctl (fd, TIOCSPGRP, &pg) == 0 ? 0 : errno);
    }
  int status = st_wait (c);
  return status >= 0 && WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* The chain; the TCSETPGRP's result (and the child's fate in *FATE).  */
static int
chain (int *fate)
{
  static char *argv_true[] = { "true", NULL };
  struct clone_args ca = { .exit_signal = SIGCHLD };
  static struct io_uring_spawn_attr sid = { .flags = IORING_SPAWN_ATTR_SETSID };
  st_clone_attr (&st_ring, &ca, &sid, 0);
  st_open (&st_ring, slave, O_RDWR, 0, 1);
  st_tcsetpgrp (&st_ring, 0, 0, 2);
  st_exec (&st_ring, prog, argv_true, st_envp, 3);
  st_run (&st_ring, 4);
  *fate = st_fate ();
  return st_res[2];
}

int
main (void)
{
  if (!st_tiny_true (prog))
    return kt_exit ();
  int abi = syscall (SYS_landlock_create_ruleset, NULL, 0,
		     LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 5)
    {
      kt_unsupported ("landlock", "ABI %d (%m): no LANDLOCK_ACCESS_FS_IOCTL_DEV", abi);
      return kt_exit ();
    }
  int master = posix_openpt (O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt (master) != 0 || unlockpt (master) != 0)
    {
      kt_unsupported ("landlock", "no pty: %m");
      return kt_exit ();
    }
  snprintf (slave, sizeof slave, "%s", ptsname (master));

  /* Without a ruleset: both work.  */
  st_init (0);
  int fate;
  KT_EXPECT_EQ ("no ruleset: TIOCSPGRP in a forked child", twin (), 0);
  KT_EXPECT_EQ ("no ruleset: SPAWN_TCSETPGRP", chain (&fate), 0);
  ST_EXPECT_STATUS ("no ruleset: the spawn succeeds", fate, 0);
  io_uring_queue_exit (&st_ring);

  /* Under the ruleset, in a child of ours.  */
  int p[2];
  if (pipe (p) != 0)
    kt_fail ("pipe", "%m");
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      struct landlock_ruleset_attr attr = {
	.handled_access_fs = LANDLOCK_ACCESS_FS_IOCTL_DEV,
      };
      int rs = syscall (SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
      if (rs < 0 || prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
	  || syscall (SYS_landlock_restrict_self, rs, 0) != 0)
	_exit (2);
      close (rs);
      st_init (0);
      int t = twin ();
      int ch = chain (&fate);
      dprintf (p[1], "%d %d %d %d\n", t, ch, fate, st_res[0]);
      _exit (0);
    }
  close (p[1]);
  char line[64] = "";
  st_read_line (p[0], line, sizeof line, 30);
  int t = -1, ch = -1, cfate = -1, clone = -1;
  sscanf (line, "%d %d %d %d", &t, &ch, &cfate, &clone);
  ST_EXPECT_STATUS ("ruleset: the restricted process", st_wait (c), 0);
  KT_EXPECT_EQ ("ruleset: TIOCSPGRP in a forked child is EACCES", t, EACCES);
  KT_EXPECT_EQ ("ruleset: the chain is not refused", clone > 0, 1);
  KT_EXPECT_EQ ("ruleset: SPAWN_TCSETPGRP is EACCES as well", ch, -EACCES);
  KT_EXPECT_EQ ("ruleset: the child gone", cfate, ST_GONE);
  close (master);
  st_no_children ("no child left");
  unlink (prog);
  return kt_exit ();
}
