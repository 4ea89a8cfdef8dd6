/* No io_uring lock is held while the clone waits for a tracer or does
   its cgroup work (issue 11, item 2; v1 called kernel_clone() under
   ctx->uring_lock).

   ptrace, v3: v2 traced a spawner S with PTRACE_O_TRACEFORK | TRACEEXEC
   and checked that a second thread's NOP on the same ring completed
   while S was stopped at the chain's fork event.  v3 refuses any
   traced submitter (M-3), so there is no fork event to stop at: the
   traced runs now check the refusal (the clone -EOPNOTSUPP, the other
   CQEs -ECANCELED, no fork event, no child) and the lock-across-a-stop
   check is dropped (the clone runs from TWA_RESUME task_work with no
   io_uring lock held, which spawn.v3/defer_taskrun.c and the lockdep
   runs of the debug kernel cover).

   cgroup: CLONE_INTO_CGROUP into a new cgroup (the child runs there:
   its program prints /proc/self/cgroup), untraced, and refused when
   traced; into a threaded cgroup the clone fails as clone3() fails
   (-EOPNOTSUPP).  The debug kernel's lockdep checks the lock
   order of the cgroup work.  */

#include "st.h"
#include <pthread.h>
#include <sys/ptrace.h>

static struct io_uring ring;
static int nop_req[2], nop_done[2], out_pipe[2];
static char cgdir[128];

/* S's second thread: on request, a NOP on the shared ring.  */
static void *
nop_thread (void *arg)
{
  (void) arg;
  char c;
  if (read (nop_req[0], &c, 1) != 1)
    return NULL;
  struct io_uring_sqe *sqe = io_uring_get_sqe (&ring);
  io_uring_prep_nop (sqe);
  sqe->user_data = 99;
  int ret = io_uring_submit (&ring);
  int res = INT32_MIN;
  struct io_uring_cqe *cqe;
  struct __kernel_timespec ts = { .tv_sec = 20 };
  if (ret == 1 && io_uring_wait_cqe_timeout (&ring, &cqe, &ts) == 0)
    {
      res = cqe->user_data == 99 ? cqe->res : -1000;
      io_uring_cqe_seen (&ring, cqe);
    }
  dprintf (nop_done[1], "nop %d\n", res);
  return NULL;
}

/* The spawner: traced, or not; CGFD >= 0: CLONE_INTO_CGROUP.  Prints
   its own results; exits with their verdict.  */
static void
spawner (bool traced, int cgfd)
{
  if (traced)
    {
      if (ptrace (PTRACE_TRACEME, 0, 0, 0) != 0)
	_exit (20);
      raise (SIGSTOP);
    }
  if (io_uring_queue_init (8, &ring, 0) < 0)
    _exit (21);
  pthread_t t;
  if (pthread_create (&t, NULL, nop_thread, NULL) != 0)
    _exit (22);
  struct clone_args ca = { .exit_signal = SIGCHLD };
  if (cgfd >= 0)
    {
      ca.flags = CLONE_INTO_CGROUP;
      ca.cgroup = cgfd;
    }
  struct io_uring_sqe *sqe = st_clone (&ring, &ca, 0);
  sqe->len = sizeof ca;
  st_link (st_dup2 (&ring, out_pipe[1], 1, 1));
  static char *argv[] = { "cat", "/proc/self/cgroup", NULL };
  st_exec (&ring, "/bin/cat", argv, st_envp, 2);
  st_reset ();
  io_uring_submit (&ring);
  /* The CQEs of the chain (the NOP's is the other thread's).  */
  int got = 0;
  while (got < 3)
    {
      struct io_uring_cqe *cqe;
      struct __kernel_timespec ts = { .tv_sec = 30 };
      if (io_uring_peek_cqe (&ring, &cqe) != 0)
	{
	  if (!traced && io_uring_wait_cqe_timeout (&ring, &cqe, &ts) != 0)
	    break;
	  if (traced)
	    {
	      usleep (10000);
	      continue;
	    }
	}
      if (cqe->user_data < 3)
	{
	  st_res[cqe->user_data] = cqe->res;
	  st_cflags[cqe->user_data] = cqe->flags;
	  st_order[got++] = cqe->user_data;
	  io_uring_cqe_seen (&ring, cqe);
	}
      else if (!traced)
	io_uring_cqe_seen (&ring, cqe);
      else
	usleep (10000);
    }
  st_nrecv = got;
  printf ("spawner: clone %d exec %d\n", st_res[0], st_res[2]);
  fflush (stdout);
  const char *pfx = traced ? "traced" : "untraced";
  char name[128];
  if (traced)
    {
      snprintf (name, sizeof name, "%s%s: the chain is refused", pfx,
		cgfd >= 0 ? ", cgroup" : "");
      KT_EXPECT_EQ (name, st_res[0], -EOPNOTSUPP);
      snprintf (name, sizeof name, "%s%s: the rest cancelled", pfx,
		cgfd >= 0 ? ", cgroup" : "");
      KT_EXPECT_EQ (name, st_res[1] == -ECANCELED && st_res[2] == -ECANCELED,
		    1);
      if (st_res[0] > 0)
	st_wait (st_res[0]);
      _exit (kt_failures ? 1 : 0);
    }
  snprintf (name, sizeof name, "%s%s: the chain is not refused", pfx,
	    cgfd >= 0 ? ", cgroup" : "");
  if (st_res[0] > 0)
    kt_pass (name);
  else
    kt_fail (name, "clone res %d", st_res[0]);
  snprintf (name, sizeof name, "%s%s: exec", pfx, cgfd >= 0 ? ", cgroup" : "");
  KT_EXPECT_EQ (name, st_res[2], 0);
  snprintf (name, sizeof name, "%s%s: the CQEs in link order", pfx,
	    cgfd >= 0 ? ", cgroup" : "");
  ST_EXPECT_LINK_ORDER (name, 3);
  int status = st_res[0] > 0 ? st_wait (st_res[0]) : -1;
  snprintf (name, sizeof name, "%s%s: the child exits 0", pfx,
	    cgfd >= 0 ? ", cgroup" : "");
  ST_EXPECT_STATUS (name, status, 0);
  if (!traced)
    {
      /* Nobody asked for the NOP.  */
      close (nop_req[1]);
    }
  _exit (kt_failures ? 1 : 0);
}

/* Run a spawner, traced or not, into the cgroup CGFD or none.  */
static void
run (bool traced, int cgfd, const char *want_cgroup)
{
  char name[128], line[128];
  const char *pfx = cgfd >= 0 ? (traced ? "traced, cgroup" : "untraced, cgroup")
    : (traced ? "traced" : "untraced");
  if (pipe (nop_req) != 0 || pipe (nop_done) != 0 || pipe2 (out_pipe, O_CLOEXEC) != 0)
    {
      kt_fail (pfx, "pipe: %m");
      return;
    }
  fflush (stdout);
  pid_t s = fork ();
  if (s == 0)
    spawner (traced, cgfd);
  close (out_pipe[1]);
  bool fork_seen = false, initial_stop = false, exec_seen = false,
    nop_ok = false, child_exited = false;
  pid_t child = 0, held = 0;
  int s_status = -1;
  if (traced)
    {
      int st;
      if (waitpid (s, &st, 0) != s || !WIFSTOPPED (st))
	kt_fail (pfx, "the spawner did not stop");
      ptrace (PTRACE_SETOPTIONS, s, 0,
	      PTRACE_O_TRACEFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL);
      ptrace (PTRACE_CONT, s, 0, 0);
      for (int spins = 0; spins < 4000; spins++)
	{
	  pid_t p = waitpid (-1, &st, __WALL | WNOHANG);
	  if (p == 0)
	    {
	      usleep (10000);
	      continue;
	    }
	  if (p < 0)
	    break;
	  if (p == s)
	    {
	      if (WIFEXITED (st) || WIFSIGNALED (st))
		{
		  s_status = st;
		  break;
		}
	      if (!WIFSTOPPED (st))
		continue;
	      int sig = WSTOPSIG (st);
	      if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_FORK << 8)))
		{
		  unsigned long msg = 0;
		  ptrace (PTRACE_GETEVENTMSG, s, 0, &msg);
		  child = msg;
		  fork_seen = true;
		  /* S is stopped in its fork event: the other thread's NOP.  */
		  char state = st_state (s);
		  if (write (nop_req[1], "n", 1) != 1)
		    kt_fail (pfx, "write: %m");
		  int res = -1;
		  if (st_read_line (nop_done[0], line, sizeof line, 20) > 0)
		    sscanf (line, "nop %d", &res);
		  nop_ok = res == 0;
		  snprintf (name, sizeof name,
			    "%s: a NOP completes while the spawner is stopped at "
			    "its fork event", pfx);
		  if (nop_ok)
		    kt_pass (name);
		  else
		    kt_fail (name, "NOP res %d (\"%s\"), spawner state %c", res,
			     line, state);
		  snprintf (name, sizeof name, "%s: the spawner was in a "
			    "ptrace stop", pfx);
		  KT_EXPECT_EQ (name, state, 't');
		  ptrace (PTRACE_CONT, s, 0, 0);
		  if (held)
		    {
		      ptrace (PTRACE_CONT, held, 0, 0);
		      held = 0;
		    }
		  continue;
		}
	      if (sig == SIGTRAP || sig == SIGSTOP)
		sig = 0;
	      ptrace (PTRACE_CONT, s, 0, sig);
	      continue;
	    }
	  /* The child.  */
	  if (WIFEXITED (st) || WIFSIGNALED (st))
	    {
	      child_exited = true;
	      continue;
	    }
	  if (!WIFSTOPPED (st))
	    continue;
	  if (child == 0)
	    child = p;
	  if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
	    {
	      exec_seen = true;
	      ptrace (PTRACE_CONT, p, 0, 0);
	    }
	  else if (WSTOPSIG (st) == SIGSTOP && !initial_stop)
	    {
	      initial_stop = true;
	      /* Not before the NOP: the chain's CQEs would mix with it.  */
	      if (fork_seen && nop_ok)
		ptrace (PTRACE_CONT, p, 0, 0);
	      else
		held = p;
	    }
	  else
	    ptrace (PTRACE_CONT, p, 0, WSTOPSIG (st) == SIGTRAP ? 0 : WSTOPSIG (st));
	}
      if (s_status == -1)
	{
	  kill (s, SIGKILL);
	  s_status = st_wait (s);
	}
      snprintf (name, sizeof name, "%s: no fork event", pfx);
      KT_EXPECT_EQ (name, fork_seen, 0);
      snprintf (name, sizeof name, "%s: no child stop", pfx);
      KT_EXPECT_EQ (name, initial_stop, 0);
      snprintf (name, sizeof name, "%s: no exec event", pfx);
      KT_EXPECT_EQ (name, exec_seen, 0);
      snprintf (name, sizeof name, "%s: no child exit", pfx);
      KT_EXPECT_EQ (name, child_exited, 0);
    }
  else
    s_status = st_wait (s);
  snprintf (name, sizeof name, "%s: the spawner's checks", pfx);
  ST_EXPECT_STATUS (name, s_status, 0);
  char out[256];
  st_read_all (out_pipe[0], out, sizeof out);
  if (want_cgroup != NULL && !traced)
    {
      snprintf (name, sizeof name, "%s: the child runs in the cgroup", pfx);
      ST_EXPECT_STR (name, out, want_cgroup);
    }
  close (nop_req[0]);
  close (nop_req[1]);
  close (nop_done[0]);
  close (nop_done[1]);
}

int
main (void)
{
  char line[64];
  /* Our own cgroup, to compare with the child's.  */
  int n = st_read_file ("/proc/self/cgroup", line, sizeof line);
  if (n <= 0)
    kt_fail ("cgroup", "/proc/self/cgroup: %s", strerror (-n));

  run (true, -1, line);

  snprintf (cgdir, sizeof cgdir, "/sys/fs/cgroup/st-ptrace-cgroup-%d", (int) getpid ());
  if (mkdir (cgdir, 0755) != 0)
    {
      kt_unsupported ("cgroup", "mkdir %s: %m", cgdir);
      st_no_children ("no child left");
      return kt_exit ();
    }
  int cgfd = open (cgdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char want[160];
  snprintf (want, sizeof want, "0::%s", cgdir + strlen ("/sys/fs/cgroup"));
  run (false, cgfd, want);
  run (true, cgfd, want);
  close (cgfd);

  /* A threaded cgroup, and its sibling that this makes "domain
     invalid": the chain's clone does what clone3 (CLONE_INTO_CGROUP)
     does, success (the threaded one) or -EOPNOTSUPP (the invalid
     one).  */
  char thr[200], inv[200], path[220], type[64];
  snprintf (thr, sizeof thr, "%s/thr", cgdir);
  snprintf (inv, sizeof inv, "%s/inv", cgdir);
  snprintf (path, sizeof path, "%s/cgroup.type", thr);
  if (mkdir (inv, 0755) == 0 && mkdir (thr, 0755) == 0
      && st_write_file (path, "threaded") == 0)
    {
      st_init (0);
      static char *argv_true[] = { "true", NULL };
      const char *dirs[] = { thr, inv };
      for (int i = 0; i < 2; i++)
	{
	  snprintf (path, sizeof path, "%s/cgroup.type", dirs[i]);
	  st_read_file (path, type, sizeof type);
	  int fd = open (dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	  struct clone_args ca = { .flags = CLONE_INTO_CGROUP, .cgroup = fd,
				   .exit_signal = SIGCHLD };
	  long r = syscall (SYS_clone3, &ca, sizeof ca);
	  if (r == 0)
	    _exit (0);
	  int clone3_res = r < 0 ? -errno : 1;
	  if (r > 0)
	    st_wait (r);
	  struct io_uring_sqe *sqe = st_clone (&st_ring, &ca, 0);
	  sqe->len = sizeof ca;
	  st_exec (&st_ring, "/bin/true", argv_true, st_envp, 1);
	  st_run (&st_ring, 2);
	  int chain_res = st_res[0] > 0 ? 1 : st_res[0];
	  int exec_res = st_res[1];
	  st_fate ();
	  char name[160];
	  snprintf (name, sizeof name, "a %s cgroup: the chain's clone does what "
		    "clone3 does", type);
	  KT_EXPECT_EQ (name, chain_res, clone3_res);
	  snprintf (name, sizeof name, "a %s cgroup: the exec", type);
	  KT_EXPECT_EQ (name, exec_res, clone3_res > 0 ? 0 : -ECANCELED);
	  printf ("%s cgroup: clone3 %d, chain %d\n", type, clone3_res, chain_res);
	  close (fd);
	}
      io_uring_queue_exit (&st_ring);
    }
  else
    kt_unsupported ("threaded cgroup", "%s: %m", thr);
  rmdir (thr);
  rmdir (inv);
  if (rmdir (cgdir) != 0)
    kt_fail ("cgroup cleanup", "rmdir %s: %m", cgdir);
  st_no_children ("no child left");
  return kt_exit ();
}
