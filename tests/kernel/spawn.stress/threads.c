/* T threads share N spawns (CLONE + EXEC /bin/true), each thread with
   its own ring: every spawn returns a pid and exit status 0; afterwards
   no fd is leaked, no child is left, and the io_kiocb slab holds no
   more objects than before (no leaked requests).  */

#include "st.h"
#include <dirent.h>
#include <pthread.h>

static int per_thread;
static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int
count_fds (void)
{
  int n = 0;
  DIR *d = opendir ("/proc/self/fd");
  if (d == NULL)
    return -1;
  while (readdir (d) != NULL)
    n++;
  closedir (d);
  return n;
}

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

static void *
worker (void *arg)
{
  struct io_uring ring;
  if (io_uring_queue_init (8, &ring, 0) < 0)
    {
      fail ("ring", 0, 0);
      return NULL;
    }
  static char *argv_true[] = { "true", NULL };
  static char *envp[] = { NULL };
  struct clone_args ca = { .exit_signal = SIGCHLD };
  for (int i = 0; i < per_thread; i++)
    {
      st_clone (&ring, &ca, 0);
      st_exec (&ring, "/bin/true", argv_true, envp, 1);
      io_uring_submit (&ring);
      int res[2] = { INT32_MIN, INT32_MIN };
      for (int got = 0; got < 2; got++)
	{
	  struct io_uring_cqe *cqe;
	  struct __kernel_timespec ts = { .tv_sec = 60 };
	  if (io_uring_wait_cqe_timeout (&ring, &cqe, &ts) < 0)
	    break;
	  if (cqe->user_data < 2)
	    res[cqe->user_data] = cqe->res;
	  io_uring_cqe_seen (&ring, cqe);
	}
      if (res[0] <= 0 || res[1] != 0)
	fail ("cqes", res[0], res[1]);
      if (res[0] > 0)
	{
	  int status;
	  if (waitpid (res[0], &status, 0) != res[0])
	    fail ("waitpid", res[0], errno);
	  else if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
	    fail ("status", res[0], status);
	}
    }
  io_uring_queue_exit (&ring);
  return NULL;
}

int
main (int argc, char **argv)
{
  int threads = argc > 1 ? atoi (argv[1]) : 8;
  int total = argc > 2 ? atoi (argv[2]) : 10000;
  per_thread = total / threads;
  int fds = count_fds ();
  long before = kiocbs ();
  pthread_t t[64];
  for (int i = 0; i < threads; i++)
    pthread_create (&t[i], NULL, worker, NULL);
  for (int i = 0; i < threads; i++)
    pthread_join (t[i], NULL);
  printf ("%d threads x %d spawns\n", threads, per_thread);
  KT_EXPECT_EQ ("every spawn worked", failures, 0);
  KT_EXPECT_EQ ("no fd leaked", count_fds (), fds);
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
  return kt_exit ();
}
