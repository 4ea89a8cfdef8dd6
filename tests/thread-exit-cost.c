/* Create and join N threads (default 1000), none of which spawns: the
   workload of review item M4.  Run under strace -f -c with the patched
   and the stock C library (scripts/thread-exit-cost.sh): a thread that
   never spawned must cost the same system calls at its exit.  */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *
thread_main (void *arg)
{
  return arg;
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 1000;
  for (int i = 0; i < n; i++)
    {
      pthread_t t;
      if (pthread_create (&t, NULL, thread_main, NULL) != 0
	  || pthread_join (t, NULL) != 0)
	{
	  fprintf (stderr, "thread %d: create or join failed\n", i);
	  return 1;
	}
    }
  return 0;
}
