/* B-3 and M-9 (kernel review of v3): where the architecture cannot give
   a child a pristine mm (x86 under Xen PV; arm64 with GCS, for the exec
   into the pristine mm), or where chains cannot run at all (a 32-bit
   kernel, more than 64 signals), pristine_mm_supported() or the
   compile-time test says no, and then:

   - every request of the chain is refused at prep with -EOPNOTSUPP, and
     no child exists;
   - IO_URING_QUERY_SPAWN answers no features;
   - a program exec'd meanwhile gets no AT_IO_URING_SPAWN, so a C
     library never tries;
   - a chain prepared before the answer changed is refused by
     kernel_clone() itself (the switch is turned on while the submitter
     waits at the test kernel's preclone delay point): CLONE
     -EOPNOTSUPP, EXEC cancelled, no child.

   Those machines cannot run here.  The test kernel's switch
   /sys/kernel/debug/io_uring_spawn/pristine_refused (kernel/test/, not
   the series) makes pristine_mm_supported() answer no as their
   architecture hooks would; switched off again, everything comes
   back.  */

#include "st.h"
#include <pthread.h>

static char tiny[] = "/tmp/st-arch-refused-true";
static char *argv_true[] = { "true", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

/* Set the switch; false if the kernel has none.  */
static bool
set_refused (bool on)
{
  int fd = open ("/sys/kernel/debug/io_uring_spawn/pristine_refused",
		 O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool ok = write (fd, on ? "Y\n" : "N\n", 2) == 2;
  close (fd);
  return ok;
}

/* Never leave the switch on for the tests that follow.  */
static void
switch_off (void)
{
  set_refused (false);
  st_delay ("preclone", 0);
}

/* Exec this program again with "--auxv": its exit status is 1 if the
   new image has AT_IO_URING_SPAWN, 0 if not.  */
static int
auxv_after_exec (void)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      char *argv[] = { "arch_refused", "--auxv", NULL };
      execv ("/proc/self/exe", argv);
      _exit (127);
    }
  int status = st_wait (pid);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 0x100 | status;
}

static void
check (bool refused)
{
  const char *when = refused ? "refused" : "allowed";
  char name[160];

  struct io_uring_query_spawn q;
  int r = io_uring_query_spawn (&q);
  snprintf (name, sizeof name, "%s: the query answers %s", when,
	    refused ? "no features" : "IORING_SPAWN_F_CHAIN");
  if (r == 0 && (refused ? q.features == 0
		 : (q.features & IORING_SPAWN_F_CHAIN) != 0))
    kt_pass (name);
  else
    kt_fail (name, "%d, features %#llx", r, (unsigned long long) q.features);

  snprintf (name, sizeof name, "%s: a program exec'd now %s AT_IO_URING_SPAWN",
	    when, refused ? "lacks" : "has");
  KT_EXPECT_EQ (name, auxv_after_exec (), refused ? 0 : 1);

  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, tiny, argv_true, st_envp, 1);
  int fate = st_finish (2);
  if (refused)
    {
      snprintf (name, sizeof name,
		"refused: CLONE and EXEC -EOPNOTSUPP at prep, no child");
      if (st_res[0] == -EOPNOTSUPP && st_res[1] == -EOPNOTSUPP
	  && waitpid (-1, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD)
	kt_pass (name);
      else
	kt_fail (name, "clone %d, exec %d", st_res[0], st_res[1]);
    }
  else
    {
      snprintf (name, sizeof name, "allowed: the chain runs");
      if (st_res[0] > 0 && st_res[1] == 0 && fate == 0)
	kt_pass (name);
      else
	kt_fail (name, "clone %d, exec %d, fate %#x", st_res[0], st_res[1],
		 fate);
    }
}

static void *
flip_on (void *arg)
{
  (void) arg;
  usleep (200 * 1000);
  set_refused (true);
  return NULL;
}

static void
refused_at_clone (void)
{
  const char *name = "refused after the prep: kernel_clone() fails the CLONE "
		     "with -EOPNOTSUPP, EXEC cancelled, no child";
  if (!st_delay ("preclone", 1000 * 1000))
    {
      kt_fail (name, "cannot set the preclone delay");
      return;
    }
  pthread_t t;
  pthread_create (&t, NULL, flip_on, NULL);
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, tiny, argv_true, st_envp, 1);
  st_finish (2);
  pthread_join (t, NULL);
  switch_off ();
  if (st_res[0] == -EOPNOTSUPP && st_res[1] == -ECANCELED
      && waitpid (-1, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD)
    kt_pass (name);
  else
    kt_fail (name, "clone %d, exec %d", st_res[0], st_res[1]);
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "--auxv") == 0)
    return st_spawn_features () != 0;
  if (!st_delay_test_start ("arch_refused"))
    return kt_exit ();
  if (!set_refused (false))
    {
      kt_unsupported ("arch_refused", "no pristine_refused switch in this "
		      "kernel (CONFIG_IO_URING_SPAWN_TEST_DELAYS)");
      return kt_exit ();
    }
  if (!st_tiny_true (tiny))
    return kt_exit ();
  atexit (switch_off);
  st_init (0);
  check (false);
  if (!set_refused (true))
    {
      kt_fail ("arch_refused", "cannot turn the switch on");
      return kt_exit ();
    }
  check (true);
  set_refused (false);
  check (false);
  refused_at_clone ();
  check (false);
  unlink (tiny);
  st_kmsg_clean ("the kernel log is clean");
  return kt_exit ();
}
