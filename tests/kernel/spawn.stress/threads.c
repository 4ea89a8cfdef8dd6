/* T threads do N spawns each (CLONE + EXEC of a tiny static program),
   each thread with its own ring, and K of all the spawns are killed in
   their chain (blocked in a FIFO open, reached through their pidfd):

     threads T N K [--kmemleak]

   Every spawn returns its pid on the clone's CQE, which comes first (the
   chain's others follow as a link chain's) and without
   IORING_CQE_F_SPAWN_GONE; the exec'd ones exit 0, the killed
   ones die of SIGKILL.  Afterwards no fd is leaked, no child is left,
   the io_kiocb slab holds no more objects than before (no leaked
   requests), and with --kmemleak (the debug kernel) kmemleak finds
   nothing new (tasks, files, rings, spawn state).  */

#include "st.h"
#include <pthread.h>

static char true_path[] = "/tmp/st-threads-true";
static char fifo[] = "/tmp/st-threads-fifo";

static int per_thread, total_kills, nthreads;
static int failures, killed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Active io_kiocb objects, or -1.  */
static long
kiocbs (void)
{
  FILE *f = fopen ("/proc/slabinfo", "r");
  if (f == NULL)
    return -1;
  char line[512];
  long active = -1;
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, "io_kiocb ", 9) == 0)
      sscanf (line + 9, "%ld", &active);
  fclose (f);
  return active;
}

static void
fail (const char *what, int a, int b)
{
  pthread_mutex_lock (&lock);
  if (failures++ < 5)
    kt_fail ("spawn", "%s: %d %d", what, a, b);
  pthread_mutex_unlock (&lock);
}

/* Collect the N CQEs of a chain into RES (by user_data); the clone's
   flags into *CFLAGS; false if they did not all come or the clone's
   was not the last.  */
static bool
collect (struct io_uring *ring, int n, int *res, unsigned *cflags)
{
  for (int got = 0; got < n; got++)
    {
      struct io_uring_cqe *cqe;
      struct __kernel_timespec ts = { .tv_sec = 60 };
      if (io_uring_wait_cqe_timeout (ring, &cqe, &ts) < 0)
	return false;
      if (cqe->user_data < 4)
	res[cqe->user_data] = cqe->res;
      if (cqe->user_data == 0)
	*cflags = cqe->flags;
      bool is_clone = cqe->user_data == 0;
      io_uring_cqe_seen (ring, cqe);
      if ((got == 0) != is_clone)
	return false;
    }
  return true;
}

static void *
worker (void *arg)
{
  int index = (int) (intptr_t) arg;
  int kills_per_thread = total_kills / nthreads + (index < total_kills % nthreads);
  struct io_uring ring;
  if (io_uring_queue_init (8, &ring, 0) < 0)
    {
      fail ("ring", 0, 0);
      return NULL;
    }
  static char *argv_true[] = { "true", NULL };
  static char *envp[] = { NULL };
  /* Spread the kills over the run.  */
  int every = kills_per_thread > 0 ? per_thread / kills_per_thread : 0;
  int kills = 0;
  for (int i = 0; i < per_thread; i++)
    {
      bool kill_it = every > 0 && kills < kills_per_thread && i % every == every / 2;
      int pidfd = -1;
      struct clone_args ca = { .exit_signal = SIGCHLD };
      if (kill_it)
	{
	  ca.flags = CLONE_PIDFD;
	  ca.pidfd = (uintptr_t) &pidfd;
	}
      st_clone (&ring, &ca, 0);
      if (kill_it)
	st_open (&ring, fifo, O_RDONLY, 5, 2);
      st_exec (&ring, true_path, argv_true, envp, 1);
      io_uring_submit (&ring);
      if (kill_it)
	{
	  pid_t pid = pidfd >= 0 ? st_pidfd_pid (pidfd) : -1;
	  if (pid <= 0 || st_wait_state (pid, "S") != 'S')
	    fail ("killed child not blocked", pid, pidfd);
	  syscall (SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	  close (pidfd);
	}
      int res[4] = { INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN };
      unsigned cflags = ~0U;
      if (!collect (&ring, kill_it ? 3 : 2, res, &cflags))
	fail ("cqes (missing, or the clone's not first)", res[0], res[1]);
      if (res[0] <= 0 || (cflags & IORING_CQE_F_SPAWN_GONE))
	fail ("clone", res[0], cflags);
      if (kill_it ? res[1] != -ECANCELED || res[2] != -ECANCELED : res[1] != 0)
	fail ("chain", res[1], res[2]);
      if (res[0] > 0)
	{
	  int status;
	  if (waitpid (res[0], &status, 0) != res[0])
	    fail ("waitpid", res[0], errno);
	  else if (kill_it ? !(WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL)
		   : !(WIFEXITED (status) && WEXITSTATUS (status) == 0))
	    fail ("status", res[0], status);
	  else if (kill_it)
	    kills++;
	}
    }
  io_uring_queue_exit (&ring);
  pthread_mutex_lock (&lock);
  killed += kills;
  pthread_mutex_unlock (&lock);
  return NULL;
}

int
main (int argc, char **argv)
{
  int threads = argc > 1 ? atoi (argv[1]) : 8;
  per_thread = argc > 2 ? atoi (argv[2]) : 10000;
  total_kills = argc > 3 ? atoi (argv[3]) : 0;
  bool kmemleak = argc > 4 && strcmp (argv[4], "--kmemleak") == 0;
  if (threads < 1 || threads > 64)
    threads = 8;
  nthreads = threads;
  if (!st_tiny_true (true_path) || !st_mkfifo (fifo))
    return kt_exit ();
  if (kmemleak)
    st_kmemleak_clear ();
  int fds = st_count_fds ();
  long before = kiocbs ();
  pthread_t t[64];
  for (int i = 0; i < threads; i++)
    pthread_create (&t[i], NULL, worker, (void *) (intptr_t) i);
  for (int i = 0; i < threads; i++)
    pthread_join (t[i], NULL);
  printf ("%d threads x %d spawns, %d killed in their chain\n", threads,
	  per_thread, killed);
  KT_EXPECT_EQ ("every spawn worked", failures, 0);
  KT_EXPECT_EQ ("every kill landed in the chain", killed, total_kills);
  KT_EXPECT_EQ ("no fd leaked", st_count_fds (), fds);
  st_no_children ("no zombie left");
  /* Requests are freed by task_work and RCU: give them a moment.  */
  long after = -1;
  for (int i = 0; i < 50; i++)
    {
      usleep (100000);
      after = kiocbs ();
      if (after <= before + 1000)
	break;
    }
  if (before < 0)
    kt_unsupported ("no leaked requests", "no io_kiocb in /proc/slabinfo");
  else if (after <= before + 1000)
    kt_pass ("no leaked requests");
  else
    kt_fail ("no leaked requests", "io_kiocb active %ld before, %ld after",
	     before, after);
  if (kmemleak)
    st_kmemleak_check ("kmemleak finds nothing");
  unlink (true_path);
  unlink (fifo);
  return kt_exit ();
}
