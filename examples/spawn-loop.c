/* spawn-loop -- an event loop that keeps serving while it spawns.

   The loop echoes 8-byte messages on a socket pair for a client thread,
   which sends one, waits for the echo, measures the round trip and
   pauses 200 us before the next, while the loop spawns N children (PROG,
   /bin/true by default), at most K at a time, one of three ways:

     uring   a spawn chain (IORING_OP_CLONE + IORING_OP_EXEC) on the loop's
             own ring: the clone runs in the loop's submission, the exec
             does not; the clone's CQE comes when the exec has succeeded or
             failed.  With IORING_CLONE_FD_SNAPSHOT where the kernel has
             it and PROG is an absolute path outside /proc and /dev, as
             the series' glibc asks for it;
     posix   posix_spawn() called by the loop, which blocks until the exec;
     thread  posix_spawn() and waitpid() in K worker threads, which tell
             the loop through an eventfd.

   The loop reaps children with IORING_OP_WAITID in the first two modes.
   It prints one line:

     MODE n=N k=K fds=F mib=M spawns/s=S max_rtt_us=R mean_rtt_us=A
       max_busy_us=B echoes=E failed=X

   max_rtt_us is the longest round trip the client saw (the loop's longest
   stall as a client sees it; the client is closed-loop, so one sample
   covers a stall, and the mean is biased low), max_busy_us the longest
   stretch the loop spent from a wake-up to its next wait: the CQEs, the
   spawns it started (a posix_spawn call returns after the exec) and the
   submission (where a chain's clone runs).  Exit status 0 if every child
   exited 0 and the loop answered echoes while it spawned.

   Usage: spawn-loop [-k K] [-f FDS] [-m MIB] [-p PROG] uring|posix|thread N
   -f opens FDS close-on-exec descriptors first, -m touches MIB MiB of
   anonymous memory first (a big parent).  */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/sched.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { MODE_URING, MODE_POSIX, MODE_THREAD };
enum { TAG_RECV = 1, TAG_SEND, TAG_EVENT, TAG_CLONE, TAG_EXEC, TAG_WAIT };

#define MAX_K 64

static int mode, n_spawn, k_max = 4, snapshot;
static const char *prog = "/bin/true";
static char *child_argv[2];

static int sv[2];
static atomic_int stop_client;
static _Atomic uint64_t t_start;
static uint64_t max_rtt_ns, sum_rtt_ns, n_rtt;

/* The state of one spawn slot: what the kernel writes into until its CQE.  */
static struct slot
{
  struct clone_args args;
  siginfo_t si;
  int busy;
} slots[MAX_K];

/* The thread mode's shared counters.  */
static atomic_int next_job, thread_failed;
static int event_fd;

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void
die (const char *what, int err)
{
  fprintf (stderr, "spawn-loop: %s: %s\n", what, strerror (err));
  exit (2);
}

static void *
client (void *arg)
{
  struct timespec pause = { 0, 200000 };
  uint64_t t0, echo;

  (void) arg;
  while (!atomic_load (&stop_client))
    {
      t0 = now_ns ();
      if (write (sv[1], &t0, sizeof t0) != sizeof t0
	  || read (sv[1], &echo, sizeof echo) != sizeof echo || echo != t0)
	{
	  /* The loop shuts its end down when it is done.  */
	  if (atomic_load (&stop_client))
	    break;
	  die ("client", errno ? errno : EPROTO);
	}
      uint64_t rtt = now_ns () - t0, start = atomic_load (&t_start);
      nanosleep (&pause, NULL);
      /* Only the round trips that the spawns could delay count.  */
      if (start == 0 || t0 < start)
	continue;
      if (rtt > max_rtt_ns)
	max_rtt_ns = rtt;
      sum_rtt_ns += rtt;
      n_rtt++;
    }
  return NULL;
}

static void *
worker (void *arg)
{
  uint64_t one = 1;

  (void) arg;
  while (atomic_fetch_add (&next_job, 1) < n_spawn)
    {
      pid_t pid;
      int status, err;

      err = posix_spawn (&pid, prog, NULL, NULL, child_argv, environ);
      if (err || waitpid (pid, &status, 0) != pid
	  || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
	atomic_fetch_add (&thread_failed, 1);
      if (write (event_fd, &one, sizeof one) != sizeof one)
	die ("eventfd write", errno);
    }
  return NULL;
}

static struct io_uring_sqe *
get_sqe (struct io_uring *ring)
{
  struct io_uring_sqe *sqe = io_uring_get_sqe (ring);
  if (sqe == NULL)
    {
      io_uring_submit (ring);
      sqe = io_uring_get_sqe (ring);
      if (sqe == NULL)
	die ("no SQE", EBUSY);
    }
  return sqe;
}

static uint64_t
ud (int tag, int slot)
{
  return (uint64_t) tag << 32 | (uint32_t) slot;
}

static void
arm_wait (struct io_uring *ring, int slot, pid_t pid)
{
  struct io_uring_sqe *sqe = get_sqe (ring);
  io_uring_prep_waitid (sqe, P_PID, pid, &slots[slot].si, WEXITED, 0);
  sqe->user_data = ud (TAG_WAIT, slot);
}

/* Start one spawn in SLOT; false if it failed at once.  */
static int
start_spawn (struct io_uring *ring, int slot)
{
  struct io_uring_sqe *sqe;

  slots[slot].busy = 1;
  if (mode == MODE_URING)
    {
      /* The chain's two SQEs go in one submission.  */
      if (io_uring_sq_space_left (ring) < 2)
	io_uring_submit (ring);
      slots[slot].args = (struct clone_args) { .exit_signal = SIGCHLD };
      sqe = get_sqe (ring);
      io_uring_prep_clone (sqe, &slots[slot].args, sizeof slots[slot].args,
			   NULL, snapshot ? IORING_CLONE_FD_SNAPSHOT : 0);
      sqe->user_data = ud (TAG_CLONE, slot);
      sqe = get_sqe (ring);
      io_uring_prep_exec (sqe, AT_FDCWD, prog, child_argv, environ, 0);
      sqe->user_data = ud (TAG_EXEC, slot);
      return 1;
    }

  pid_t pid;
  int err = posix_spawn (&pid, prog, NULL, NULL, child_argv, environ);
  if (err)
    {
      fprintf (stderr, "spawn-loop: posix_spawn: %s\n", strerror (err));
      slots[slot].busy = 0;
      return 0;
    }
  arm_wait (ring, slot, pid);
  return 1;
}

static void
big_parent (int fds, int mib)
{
  if (fds > 0)
    {
      struct rlimit rl = { fds + 256, fds + 256 };
      int fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
      if (fd < 0 || setrlimit (RLIMIT_NOFILE, &rl))
	die ("RLIMIT_NOFILE", errno);
      for (int i = 1; i < fds; i++)
	if (fcntl (fd, F_DUPFD_CLOEXEC, 0) < 0)
	  die ("F_DUPFD_CLOEXEC", errno);
    }
  if (mib > 0)
    {
      size_t len = (size_t) mib << 20;
      char *p = mmap (NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
	die ("mmap", errno);
      for (size_t i = 0; i < len; i += 4096)
	p[i] = 1;
    }
}

int
main (int argc, char **argv)
{
  struct io_uring ring;
  struct io_uring_cqe *cqe;
  struct io_uring_sqe *sqe;
  pthread_t client_thread, workers[MAX_K];
  uint64_t echo_buf, event_buf, t_end, t_wake, max_busy_ns = 0;
  int started = 0, done = 0, failed = 0, inflight = 0, echoes = 0;
  int fds = 0, mib = 0, opt, ret;

  while ((opt = getopt (argc, argv, "k:f:m:p:")) != -1)
    switch (opt)
      {
      case 'k': k_max = atoi (optarg); break;
      case 'f': fds = atoi (optarg); break;
      case 'm': mib = atoi (optarg); break;
      case 'p': prog = optarg; break;
      default: goto usage;
      }
  if (argc - optind != 2 || k_max < 1 || k_max > MAX_K)
    goto usage;
  if (!strcmp (argv[optind], "uring"))
    mode = MODE_URING;
  else if (!strcmp (argv[optind], "posix"))
    mode = MODE_POSIX;
  else if (!strcmp (argv[optind], "thread"))
    mode = MODE_THREAD;
  else
    goto usage;
  n_spawn = atoi (argv[optind + 1]);
  if (n_spawn < 1)
    goto usage;
  child_argv[0] = (char *) prog;

  if (mode == MODE_URING)
    {
      struct io_uring_query_spawn qs;
      ret = io_uring_query_spawn (&qs);
      if (ret < 0 || !(qs.features & IORING_SPAWN_F_CHAIN))
	{
	  fprintf (stderr, "spawn-loop: this kernel runs no io_uring spawn"
		   " chains for us (%s)\n",
		   ret < 0 ? strerror (-ret) : "the query says none");
	  return 2;
	}
      snapshot = (qs.features & IORING_SPAWN_F_FD_SNAPSHOT) && prog[0] == '/'
		 && strncmp (prog, "/proc/", 6) && strncmp (prog, "/dev/", 5);
    }
  big_parent (fds, mib);
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
    die ("socketpair", errno);
  ret = io_uring_queue_init (4 * MAX_K, &ring, 0);
  if (ret)
    die ("io_uring_queue_init", -ret);

  sqe = get_sqe (&ring);
  io_uring_prep_recv (sqe, sv[0], &echo_buf, sizeof echo_buf, MSG_WAITALL);
  sqe->user_data = ud (TAG_RECV, 0);
  if (mode == MODE_THREAD)
    {
      event_fd = eventfd (0, EFD_CLOEXEC);
      if (event_fd < 0)
	die ("eventfd", errno);
      sqe = get_sqe (&ring);
      io_uring_prep_read (sqe, event_fd, &event_buf, sizeof event_buf, 0);
      sqe->user_data = ud (TAG_EVENT, 0);
    }
  if (pthread_create (&client_thread, NULL, client, NULL))
    die ("pthread_create", EAGAIN);
  atomic_store (&t_start, now_ns ());
  if (mode == MODE_THREAD)
    for (int i = 0; i < k_max; i++)
      if (pthread_create (&workers[i], NULL, worker, NULL))
	die ("pthread_create", EAGAIN);

  t_wake = atomic_load (&t_start);
  while (done < n_spawn)
    {
      if (mode != MODE_THREAD)
	for (int i = 0; i < k_max && started < n_spawn; i++)
	  if (!slots[i].busy)
	    {
	      started++;
	      if (start_spawn (&ring, i))
		inflight++;
	      else
		failed++, done++;
	    }
      /* The loop was busy from its last wake-up until the submission
	 returns (a chain's clone runs in it).  */
      ret = io_uring_submit (&ring);
      if (ret < 0)
	die ("io_uring_submit", -ret);
      uint64_t busy = now_ns () - t_wake;
      if (busy > max_busy_ns)
	max_busy_ns = busy;
      ret = io_uring_wait_cqe (&ring, &cqe);
      if (ret < 0 && ret != -EINTR)
	die ("io_uring_wait_cqe", -ret);
      t_wake = now_ns ();
      unsigned head, seen = 0;
      io_uring_for_each_cqe (&ring, head, cqe)
	{
	  int tag = cqe->user_data >> 32, slot = (uint32_t) cqe->user_data;
	  seen++;
	  switch (tag)
	    {
	    case TAG_RECV:
	      if (cqe->res != sizeof echo_buf)
		die ("recv", cqe->res < 0 ? -cqe->res : EPROTO);
	      sqe = get_sqe (&ring);
	      io_uring_prep_send (sqe, sv[0], &echo_buf, sizeof echo_buf, 0);
	      sqe->flags |= IOSQE_IO_LINK;
	      sqe->user_data = ud (TAG_SEND, 0);
	      sqe = get_sqe (&ring);
	      io_uring_prep_recv (sqe, sv[0], &echo_buf, sizeof echo_buf,
				  MSG_WAITALL);
	      sqe->user_data = ud (TAG_RECV, 0);
	      echoes++;
	      break;
	    case TAG_SEND:
	      if (cqe->res != sizeof echo_buf)
		die ("send", cqe->res < 0 ? -cqe->res : EPROTO);
	      break;
	    case TAG_EVENT:
	      if (cqe->res != sizeof event_buf)
		die ("eventfd read", cqe->res < 0 ? -cqe->res : EPROTO);
	      done += event_buf;
	      sqe = get_sqe (&ring);
	      io_uring_prep_read (sqe, event_fd, &event_buf, sizeof event_buf,
				  0);
	      sqe->user_data = ud (TAG_EVENT, 0);
	      break;
	    case TAG_EXEC:
	      if (cqe->res < 0)
		fprintf (stderr, "spawn-loop: exec %s: %s\n", prog,
			 strerror (-cqe->res));
	      break;
	    case TAG_CLONE:
	      /* The last CQE of the chain: the exec has succeeded or
		 failed.  */
	      if (cqe->res > 0 && !(cqe->flags & IORING_CQE_F_SPAWN_GONE))
		arm_wait (&ring, slot, cqe->res);
	      else
		{
		  /* No child, or one gone after a failed exec.  */
		  if (cqe->res < 0)
		    die ("the spawn chain's clone", -cqe->res);
		  failed++, done++, inflight--;
		  slots[slot].busy = 0;
		}
	      break;
	    case TAG_WAIT:
	      if (cqe->res < 0 || slots[slot].si.si_code != CLD_EXITED
		  || slots[slot].si.si_status != 0)
		failed++;
	      done++, inflight--;
	      slots[slot].busy = 0;
	      break;
	    }
	}
      io_uring_cq_advance (&ring, seen);
    }
  t_end = now_ns ();

  if (mode == MODE_THREAD)
    for (int i = 0; i < k_max; i++)
      pthread_join (workers[i], NULL);
  failed += atomic_load (&thread_failed);
  atomic_store (&stop_client, 1);
  shutdown (sv[0], SHUT_RDWR);
  pthread_join (client_thread, NULL);

  printf ("%s%s n=%d k=%d fds=%d mib=%d spawns/s=%.0f max_rtt_us=%.0f"
	  " mean_rtt_us=%.1f max_busy_us=%.0f echoes=%d failed=%d\n",
	  argv[optind], snapshot ? "+snapshot" : "", n_spawn, k_max, fds, mib,
	  n_spawn / ((t_end - atomic_load (&t_start)) / 1e9), max_rtt_ns / 1e3,
	  n_rtt ? sum_rtt_ns / 1e3 / n_rtt : 0.0, max_busy_ns / 1e3, echoes,
	  failed);
  return failed == 0 && echoes > 0 ? 0 : 1;

usage:
  fprintf (stderr, "usage: spawn-loop [-k K] [-f FDS] [-m MIB] [-p PROG]"
	   " uring|posix|thread N\n");
  return 2;
}
