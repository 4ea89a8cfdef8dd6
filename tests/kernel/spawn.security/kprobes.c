/* LSM hooks (issue 10): each operation of a chain reaches the security
   hooks its system-call twin reaches, as many times.  Kprobe events
   (/sys/kernel/tracing/kprobe_events, in a trace instance of our own,
   limited to this test and its descendants with set_event_pid +
   event-fork) count the hits of security_file_ioctl,
   security_task_setpgid, security_bprm_check, security_file_open and
   security_task_setscheduler in a spawned child:

     chain A: CLONE with the attributes SETSID and SETSCHEDULER (v3:
              one struct, run before the actions) + SPAWN_OPEN (a pty's
              slave onto fd 0) + SPAWN_TCSETPGRP + EXEC
     twin A:  fork; setsid (); close (0); open (slave); ioctl (0,
              TIOCSPGRP); sched_setscheduler (); execve ()
     chain B: CLONE with the attribute SETPGROUP + EXEC
     twin B:  fork; setpgid (0, 0); execve ()

   The counts per hook must be equal.  v1 skipped security_file_ioctl
   for TCSETPGRP (0 against 1).  */

#include "st.h"
#include <sched.h>
#include <sys/ioctl.h>

static char prog[] = "/tmp/st-kprobes-true";
static char slave[64];
static char inst[160];
static const char *tracing;

static const char *hooks[] = {
  "security_file_ioctl", "security_task_setpgid", "security_bprm_check",
  "security_file_open", "security_task_setscheduler",
};
#define NHOOKS (sizeof hooks / sizeof hooks[0])

static int
tfile (const char *rel, const char *val, bool append)
{
  char path[256];
  snprintf (path, sizeof path, "%s/%s", rel[0] == '/' ? "" : tracing, rel);
  int fd = open (path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
  if (fd < 0)
    return -errno;
  ssize_t n = write (fd, val, strlen (val));
  int err = n < 0 ? -errno : 0;
  close (fd);
  return err;
}

static bool
setup (void)
{
  tracing = st_tracefs ();
  if (tracing == NULL)
    return false;
  for (unsigned i = 0; i < NHOOKS; i++)
    {
      char def[128];
      snprintf (def, sizeof def, "p:st_h%u %s\n", i, hooks[i]);
      if (tfile ("kprobe_events", def, true) != 0)
	return false;
    }
  snprintf (inst, sizeof inst, "%s/instances/st-kprobes", tracing);
  rmdir (inst);
  if (mkdir (inst, 0755) != 0)
    return false;
  char v[32];
  snprintf (v, sizeof v, "%d", (int) getpid ());
  char rel[256];
  snprintf (rel, sizeof rel, "%s/set_event_pid", inst);
  tfile (rel, v, false);
  snprintf (rel, sizeof rel, "%s/options/event-fork", inst);
  tfile (rel, "1", false);
  for (unsigned i = 0; i < NHOOKS; i++)
    {
      snprintf (rel, sizeof rel, "%s/events/kprobes/st_h%u/enable", inst, i);
      if (tfile (rel, "1", false) != 0)
	return false;
    }
  return true;
}

static void
teardown (void)
{
  char rel[256];
  for (unsigned i = 0; i < NHOOKS; i++)
    {
      snprintf (rel, sizeof rel, "%s/events/kprobes/st_h%u/enable", inst, i);
      tfile (rel, "0", false);
    }
  rmdir (inst);
  for (unsigned i = 0; i < NHOOKS; i++)
    {
      char def[32];
      snprintf (def, sizeof def, "-:st_h%u\n", i);
      tfile ("kprobe_events", def, true);
    }
}

/* Count the hits of each hook by PID in the instance's buffer.  */
static void
count (pid_t pid, int *n)
{
  for (unsigned i = 0; i < NHOOKS; i++)
    n[i] = 0;
  char path[256];
  snprintf (path, sizeof path, "%s/trace", inst);
  FILE *f = fopen (path, "re");
  char line[512];
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    {
      if (line[0] == '#')
	continue;
      char *b = strstr (line, " [");
      if (b == NULL)
	continue;
      char *d = b;
      while (d > line && d[-1] != '-')
	d--;
      if (atoi (d) != pid)
	continue;
      for (unsigned i = 0; i < NHOOKS; i++)
	{
	  char ev[32];
	  snprintf (ev, sizeof ev, " st_h%u:", i);
	  if (strstr (line, ev) != NULL)
	    n[i]++;
	}
    }
  if (f != NULL)
    fclose (f);
}

static pid_t
twin (bool a)
{
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      if (a)
	{
	  setsid ();
	  close (0);
	  if (open (slave, O_RDWR) != 0)
	    _exit (100);
	  pid_t pg = getpgrp ();
	  if (ioctl (0, TIOCSPGRP, &pg) != 0)
	    _exit (101);
	  struct sched_param sp = { 0 };
	  if (sched_setscheduler (0, SCHED_OTHER, &sp) != 0)
	    _exit (102);
	}
      else if (setpgid (0, 0) != 0)
	_exit (103);
      static char *argv_true[] = { "true", NULL };
      execve (prog, argv_true, st_envp);
      _exit (127);
    }
  int status = st_wait (c);
  if (!(status >= 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0))
    kt_fail ("twin", "status %#x", status);
  return c;
}

static pid_t
chain (bool a)
{
  static char *argv_true[] = { "true", NULL };
  /* v3: setsid, the scheduler and setpgid are attributes of the
     clone, run (as their system calls) before the actions.  */
  static struct io_uring_spawn_attr attr_a
    = { .flags = IORING_SPAWN_ATTR_SETSID | IORING_SPAWN_ATTR_SETSCHEDULER,
	.sched_policy = SCHED_OTHER };
  struct clone_args ca = { .exit_signal = SIGCHLD };
  st_clone_attr (&st_ring, &ca, a ? &attr_a : &st_attr_setpgroup, 0);
  int n = 1;
  if (a)
    {
      st_open (&st_ring, slave, O_RDWR, 0, n++);
      st_tcsetpgrp (&st_ring, 0, 0, n++);
    }
  st_exec (&st_ring, prog, argv_true, st_envp, n++);
  st_run (&st_ring, n);
  pid_t pid = st_res[0];
  bool ok = true;
  for (int i = 1; i < n; i++)
    ok &= st_res[i] >= 0;
  if (!ok)
    kt_fail ("chain", "an operation failed: %d %d %d %d %d", st_res[1],
	     st_res[2], st_res[3], st_res[4], st_res[5]);
  int status = st_fate ();
  if (!(status >= 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0))
    kt_fail ("chain", "status %#x", status);
  return pid;
}

int
main (void)
{
  if (!st_tiny_true (prog))
    return kt_exit ();
  int master = posix_openpt (O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt (master) != 0 || unlockpt (master) != 0)
    {
      kt_unsupported ("kprobes", "no pty: %m");
      return kt_exit ();
    }
  snprintf (slave, sizeof slave, "%s", ptsname (master));
  if (!setup ())
    {
      kt_unsupported ("kprobes", "no tracefs or kprobe events: %m");
      teardown ();
      return kt_exit ();
    }
  st_init (0);
  pid_t pids[4];
  pids[0] = chain (true);
  pids[1] = twin (true);
  pids[2] = chain (false);
  pids[3] = twin (false);
  int n[4][NHOOKS];
  for (int i = 0; i < 4; i++)
    count (pids[i], n[i]);
  teardown ();
  for (int i = 0; i < 4; i++)
    {
      printf ("%s %c (pid %d):", i % 2 ? "syscalls" : "chain", i < 2 ? 'A' : 'B',
	      (int) pids[i]);
      for (unsigned h = 0; h < NHOOKS; h++)
	printf (" %s %d", hooks[h], n[i][h]);
      printf ("\n");
    }
  for (int k = 0; k < 2; k++)
    for (unsigned h = 0; h < NHOOKS; h++)
      {
	char name[128];
	snprintf (name, sizeof name, "%s: %s hits, chain = syscalls",
		  k == 0 ? "A" : "B", hooks[h]);
	KT_EXPECT_EQ (name, n[2 * k][h], n[2 * k + 1][h]);
      }
  /* And the hooks were reached at all.  */
  KT_EXPECT_EQ ("A: security_file_ioctl reached by the chain", n[0][0] >= 1, 1);
  KT_EXPECT_EQ ("B: security_task_setpgid reached by the chain", n[2][1] >= 1, 1);
  KT_EXPECT_EQ ("A: security_bprm_check reached by the chain", n[0][2] >= 1, 1);
  close (master);
  st_no_children ("no child left");
  unlink (prog);
  return kt_exit ();
}
