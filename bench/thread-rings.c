/* thread-rings: the kernel memory a thread keeps once it spawned through
   glibc's io_uring path (the glibc review's M6).

     thread-rings THREADS spawn|none

   starts THREADS threads; each spawns /bin/true once (spawn) or not
   (none), waits for it, and then waits at a barrier with the others.
   When all are there it prints how much /proc/meminfo's Slab,
   SUnreclaim, Percpu, KernelStack and PageTables and this process's
   VmRSS and VmPTE grew since before the first thread, in kB, then lets
   them exit.  Run it with the glibc build under test
   (testrun.sh), with GLIBC_TUNABLES=glibc.spawn.io_uring=0 for the clone
   path, on an otherwise idle guest: the difference between "spawn" on
   the two paths, divided by THREADS, is what a thread's ring costs
   (scripts/thread-rings.sh runs the three ways).  */

#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

static pthread_barrier_t all_there, may_exit;
static int do_spawn;

static void *
thread (void *arg)
{
  if (do_spawn)
    {
      char *argv[] = { (char *) "true", NULL };
      pid_t pid;
      int status;
      if (posix_spawn (&pid, "/bin/true", NULL, NULL, argv, environ) != 0
	  || waitpid (pid, &status, 0) != pid || status != 0)
	{
	  fprintf (stderr, "thread-rings: spawn failed\n");
	  exit (1);
	}
    }
  pthread_barrier_wait (&all_there);
  pthread_barrier_wait (&may_exit);
  return arg;
}

static const char *const names[] =
  { "Slab", "SUnreclaim", "Percpu", "KernelStack", "PageTables", "VmRSS",
    "VmPTE", NULL };
enum { nnames = sizeof names / sizeof names[0] - 1 };

/* Add the fields of FILE among NAMES to V.  */
static void
read_fields (const char *file, long int *v)
{
  FILE *f = fopen (file, "r");
  char line[256];
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    for (int i = 0; i < nnames; i++)
      if (strncmp (line, names[i], strlen (names[i])) == 0
	  && line[strlen (names[i])] == ':')
	v[i] += strtol (line + strlen (names[i]) + 1, NULL, 10);
  if (f != NULL)
    fclose (f);
}

static void
read_all (long int *v)
{
  memset (v, 0, nnames * sizeof *v);
  read_fields ("/proc/meminfo", v);
  read_fields ("/proc/self/status", v);
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: thread-rings THREADS spawn|none\n");
      return 2;
    }
  int n = atoi (argv[1]);
  do_spawn = strcmp (argv[2], "spawn") == 0;
  pthread_t *t = calloc (n, sizeof *t);
  pthread_attr_t attr;
  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, 64 * 1024);
  pthread_barrier_init (&all_there, NULL, n + 1);
  pthread_barrier_init (&may_exit, NULL, n + 1);
  long int before[nnames], after[nnames];
  read_all (before);
  for (int i = 0; i < n; i++)
    if (pthread_create (&t[i], &attr, thread, NULL) != 0)
      {
	fprintf (stderr, "thread-rings: thread %d not created\n", i);
	return 1;
      }
  pthread_barrier_wait (&all_there);
  read_all (after);
  for (int i = 0; i < nnames; i++)
    printf ("%s %ld\n", names[i], after[i] - before[i]);
  fflush (stdout);
  pthread_barrier_wait (&may_exit);
  for (int i = 0; i < n; i++)
    pthread_join (t[i], NULL);
  return 0;
}
