/* Job control, the freezer and ptrace stops inside a chain (issue 11,
   item 4).  v1's child never processed stops between or during its
   operations: a SIGSTOP, a freeze or a ptrace attach made a blocked
   operation fail with EINTR and the spawn fail.  Now an operation
   interrupted by anything but a fatal signal restarts after the stop,
   as a system call would.  The child blocks in a FIFO open (its own
   process group, made by SETPGID), then:

   - SIGSTOP to its process group: it stops (state T, and waitpid
     WUNTRACED reports it, it is an ordinary child), SIGCONT: it goes
     back to its open (state S, WCONTINUED); the FIFO opened, the spawn
     succeeds;
   - cgroup v2 freezer (it was spawned with CLONE_INTO_CGROUP):
     cgroup.freeze 1 makes the cgroup frozen with the child in it
     (cgroup.events "frozen 1", the child still in cgroup.procs), 0
     thaws it; the spawn succeeds;
   - PTRACE_SEIZE + PTRACE_INTERRUPT: it enters a ptrace stop (state
     t), the tracer detaches, it goes back to its open; the spawn
     succeeds.  */

#include "st.h"
#include <sys/ptrace.h>

static char fifo[] = "/tmp/st-jobctl-fifo";
static char *argv_true[] = { "true", NULL };
static char prog[] = "/tmp/st-jobctl-true";

/* Submit CLONE (ARGS) + SETPGID + OPEN of the FIFO + EXEC; return the
   blocked child's pid.  */
static pid_t
start (struct clone_args *args)
{
  struct io_uring_sqe *sqe = st_clone_attr (&st_ring, args,
					    &st_attr_setpgroup, 0);
  sqe->len = sizeof *args;
  st_nop_action (&st_ring, 1);
  st_open (&st_ring, fifo, O_RDONLY, 5, 2);
  st_exec (&st_ring, prog, argv_true, st_envp, 3);
  st_reset ();
  io_uring_submit (&st_ring);
  return st_find_child (getpid (), "S");
}

/* Meet the child's open; check the chain succeeded.  */
static void
finish (const char *pfx)
{
  char name[128];
  int w = st_fifo_writer (fifo);
  int got = st_reap (&st_ring, 4, 20);
  if (w >= 0)
    close (w);
  snprintf (name, sizeof name, "%s: all CQEs", pfx);
  KT_EXPECT_EQ (name, got, 4);
  snprintf (name, sizeof name, "%s: open (restarted)", pfx);
  KT_EXPECT_EQ (name, st_res[2], 5);
  snprintf (name, sizeof name, "%s: exec", pfx);
  KT_EXPECT_EQ (name, st_res[3], 0);
  snprintf (name, sizeof name, "%s: the spawn succeeds", pfx);
  ST_EXPECT_STATUS (name, st_fate (), 0);
}

/* "frozen N" of cgroup.events in DIR; -1 if unreadable.  */
static int
frozen (const char *dir)
{
  char path[256], buf[256];
  snprintf (path, sizeof path, "%s/cgroup.events", dir);
  if (st_read_file (path, buf, sizeof buf) < 0)
    return -1;
  char *p = strstr (buf, "frozen ");
  return p != NULL ? atoi (p + 7) : -1;
}

static int
wait_frozen (const char *dir, int want)
{
  int f = -1;
  for (int i = 0; i < 2000; i++)
    {
      f = frozen (dir);
      if (f == want)
	break;
      usleep (10000);
    }
  return f;
}

int
main (void)
{
  st_init (0);
  if (!st_mkfifo (fifo) || !st_tiny_true (prog))
    return kt_exit ();
  struct clone_args ca = { .exit_signal = SIGCHLD };
  int status;

  /* 1. SIGSTOP and SIGCONT to the child's process group.  */
  pid_t pid = start (&ca);
  KT_EXPECT_EQ ("stop: the child blocks in its open", pid > 0, 1);
  KT_EXPECT_EQ ("stop: its own process group", getpgid (pid), pid);
  kill (-pid, SIGSTOP);
  KT_EXPECT_EQ ("stop: the child stops", st_wait_state (pid, "T"), 'T');
  status = st_wait_for (pid, WUNTRACED, 20);
  KT_EXPECT_EQ ("stop: waitpid reports it stopped",
		status >= 0 && WIFSTOPPED (status) && WSTOPSIG (status) == SIGSTOP, 1);
  KT_EXPECT_EQ ("stop: no CQE meanwhile", io_uring_cq_ready (&st_ring), 0);
  kill (-pid, SIGCONT);
  KT_EXPECT_EQ ("stop: back in its open", st_wait_state (pid, "S"), 'S');
  status = st_wait_for (pid, WCONTINUED, 20);
  KT_EXPECT_EQ ("stop: waitpid reports it continued",
		status >= 0 && WIFCONTINUED (status), 1);
  finish ("stop");

  /* The same, stopped twice, and with SIGTSTP (blocked in the chain:
     pending for the new program, which ignores it here).  */
  struct io_uring_spawn_attr sigs = { .flags = IORING_SPAWN_ATTR_SETPGROUP
					       | IORING_SPAWN_ATTR_SETSIGIGN,
				      .sigignore = ST_SIGBIT (SIGTSTP) };
  st_clone_attr (&st_ring, &ca, &sigs, 0);
  st_nop_action (&st_ring, 1);
  st_open (&st_ring, fifo, O_RDONLY, 5, 2);
  st_exec (&st_ring, prog, argv_true, st_envp, 3);
  st_reset ();
  io_uring_submit (&st_ring);
  pid = st_find_child (getpid (), "S");
  for (int i = 0; i < 2; i++)
    {
      kill (-pid, SIGTSTP);
      kill (-pid, SIGSTOP);
      st_wait_state (pid, "T");
      kill (-pid, SIGCONT);
    }
  KT_EXPECT_EQ ("stop twice: back in its open", st_wait_state (pid, "S"), 'S');
  finish ("stop twice");
  while (waitpid (-1, NULL, WNOHANG | WUNTRACED | WCONTINUED) > 0)
    ;

  /* 2. The cgroup v2 freezer.  */
  char cg[128];
  snprintf (cg, sizeof cg, "/sys/fs/cgroup/st-jobctl-%d", (int) getpid ());
  char freeze[160];
  snprintf (freeze, sizeof freeze, "%s/cgroup.freeze", cg);
  if (mkdir (cg, 0755) == 0 && access (freeze, W_OK) == 0)
    {
      int cgfd = open (cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      struct clone_args cc = { .flags = CLONE_INTO_CGROUP, .cgroup = cgfd,
			       .exit_signal = SIGCHLD };
      pid = start (&cc);
      KT_EXPECT_EQ ("freeze: the child blocks in its open", pid > 0, 1);
      KT_EXPECT_EQ ("freeze: not frozen yet", frozen (cg), 0);
      st_write_file (freeze, "1");
      KT_EXPECT_EQ ("freeze: the cgroup is frozen", wait_frozen (cg, 1), 1);
      char procs[200], list[64] = "";
      snprintf (procs, sizeof procs, "%s/cgroup.procs", cg);
      st_read_file (procs, list, sizeof list);
      KT_EXPECT_EQ ("freeze: with the child in it (not dead)", atoi (list), pid);
      KT_EXPECT_EQ ("freeze: no CQE meanwhile", io_uring_cq_ready (&st_ring), 0);
      st_write_file (freeze, "0");
      KT_EXPECT_EQ ("freeze: thawed", wait_frozen (cg, 0), 0);
      KT_EXPECT_EQ ("freeze: back in its open", st_wait_state (pid, "S"), 'S');
      finish ("freeze");
      close (cgfd);
    }
  else
    kt_unsupported ("freeze", "%s: %m", freeze);
  rmdir (cg);

  /* 3. A ptrace attach and interrupt.  */
  pid = start (&ca);
  KT_EXPECT_EQ ("ptrace: the child blocks in its open", pid > 0, 1);
  if (ptrace (PTRACE_SEIZE, pid, 0, 0) == 0)
    {
      ptrace (PTRACE_INTERRUPT, pid, 0, 0);
      int st = st_wait_for (pid, __WALL, 20);
      KT_EXPECT_EQ ("ptrace: the child enters a ptrace stop",
		    st >= 0 && WIFSTOPPED (st) && st >> 16 == PTRACE_EVENT_STOP, 1);
      KT_EXPECT_EQ ("ptrace: state t", st_state (pid), 't');
      KT_EXPECT_EQ ("ptrace: no CQE meanwhile", io_uring_cq_ready (&st_ring), 0);
      KT_EXPECT_EQ ("ptrace: detach", ptrace (PTRACE_DETACH, pid, 0, 0), 0);
      KT_EXPECT_EQ ("ptrace: back in its open", st_wait_state (pid, "S"), 'S');
      finish ("ptrace");
    }
  else
    {
      kt_fail ("ptrace", "PTRACE_SEIZE: %m");
      kill (pid, SIGKILL);
      st_reap (&st_ring, 4, 20);
      st_fate ();
    }

  st_no_children ("no child left");
  unlink (fifo);
  unlink (prog);
  return kt_exit ();
}
