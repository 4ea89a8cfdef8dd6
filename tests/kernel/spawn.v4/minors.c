/* Minors of the kernel review of v3 that a program can see.

   m-1: a field of struct io_uring_spawn_attr is accepted only with the
   flag that uses it (as clone_args.cgroup only with CLONE_INTO_CGROUP);
   sigignore, which no POSIX attribute has, only with
   IORING_SPAWN_ATTR_SETSIGIGN.  Otherwise the CLONE is -EINVAL at prep
   and no child exists.

   m-5: the child's registers are a copy of the submitter's, which is in
   io_uring_enter().  Before its exec the child shows no system call and
   no arguments of the submitter's: /proc/CHILD/syscall reads "-1 ...",
   as for a task outside any system call, while the child blocks in an
   OPEN of a FIFO nobody writes.  */

#include "st.h"

#ifndef IORING_SPAWN_ATTR_SETSIGIGN
# define IORING_SPAWN_ATTR_SETSIGIGN (1U << 7)	/* v4: a kernel before it has none */
#endif

static char tiny[] = "/tmp/st-minors-true";
static char fifo[] = "/tmp/st-minors-fifo";
static char *argv_true[] = { "true", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

/* A chain CLONE (with ATTR) + EXEC of tiny; the CLONE's result.  */
static int
clone_with (struct io_uring_spawn_attr attr)
{
  st_clone_attr (&st_ring, &ca, &attr, 0);
  st_exec (&st_ring, tiny, argv_true, st_envp, 1);
  st_run (&st_ring, 2);
  return st_res[0];
}

static void
attr_fields (void)
{
  static const struct
  {
    const char *name;
    struct io_uring_spawn_attr attr;
  } bad[] = {
    { "sigmask without SETSIGMASK", { .sigmask = 1 } },
    { "sigdefault without SETSIGDEF", { .sigdefault = 1 } },
    { "sigignore without SETSIGIGN", { .sigignore = 1 } },
    { "pgid without SETPGROUP", { .pgid = 1 } },
    { "sched_policy without SETSCHEDULER",
      { .flags = IORING_SPAWN_ATTR_SETSCHEDPARAM, .sched_policy = 1 } },
    { "sched_priority without SETSCHEDPARAM or SETSCHEDULER",
      { .sched_priority = 1 } },
  };
  char name[160];

  for (unsigned int i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      snprintf (name, sizeof name, "m-1: %s: CLONE -EINVAL, no child",
		bad[i].name);
      int r = clone_with (bad[i].attr);
      if (r == -EINVAL && st_res[1] == -ECANCELED
	  && waitpid (-1, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD)
	kt_pass (name);
      else
	{
	  kt_fail (name, "clone %d, exec %d", r, st_res[1]);
	  if (r > 0)
	    st_fate ();
	}
    }

  /* Each field with its flag still runs: sigignore with SETSIGIGN, the
     other fields as glibc passes them.  */
  static const struct io_uring_spawn_attr good[] = {
    { .flags = IORING_SPAWN_ATTR_SETSIGIGN, .sigignore = ST_SIGBIT (SIGTERM) },
    { .flags = IORING_SPAWN_ATTR_SETSIGMASK | IORING_SPAWN_ATTR_SETSIGDEF
	       | IORING_SPAWN_ATTR_SETPGROUP,
      .sigmask = ST_SIGBIT (SIGUSR1), .sigdefault = ST_SIGBIT (SIGUSR2) },
  };
  for (unsigned int i = 0; i < sizeof good / sizeof good[0]; i++)
    {
      snprintf (name, sizeof name, "m-1: valid attributes %u: the chain runs",
		i);
      struct io_uring_spawn_attr attr = good[i];
      st_clone_attr (&st_ring, &ca, &attr, 0);
      st_exec (&st_ring, tiny, argv_true, st_envp, 1);
      int fate = st_finish (2);
      if (st_res[0] > 0 && st_res[1] == 0 && fate == 0)
	kt_pass (name);
      else
	kt_fail (name, "clone %d, exec %d, fate %#x", st_res[0], st_res[1],
		 fate);
    }
}

static void
child_registers (void)
{
  const char *name = "m-5: /proc/CHILD/syscall before the exec: no system "
		     "call (-1)";
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, fifo, O_RDONLY, 5, 1);
  st_exec (&st_ring, tiny, argv_true, st_envp, 2);
  st_reset ();
  io_uring_submit (&st_ring);
  pid_t pid = st_find_child (getpid (), "S");
  char path[64], buf[256] = "";
  snprintf (path, sizeof path, "/proc/%d/syscall", (int) pid);
  bool read_ok = pid > 0 && st_read_file (path, buf, sizeof buf) > 0;
  int w = st_fifo_writer (fifo);
  st_reap (&st_ring, 3, 20);
  if (w >= 0)
    close (w);
  int fate = st_fate ();
  if (read_ok && strncmp (buf, "-1 ", 3) == 0)
    kt_pass (name);
  else
    kt_fail (name, "pid %d, \"%s\"", (int) pid, buf);
  KT_EXPECT_EQ ("m-5: the chain then runs", st_res[2] == 0 && fate == 0, 1);
}

int
main (void)
{
  if (!st_spawn_present ())
    {
      kt_unsupported ("minors", "no io_uring spawn in this kernel");
      return kt_exit ();
    }
  st_kmsg_open ();
  if (!st_tiny_true (tiny) || !st_mkfifo (fifo))
    return kt_exit ();
  st_init (0);
  attr_fields ();
  child_registers ();
  unlink (tiny);
  unlink (fifo);
  st_kmsg_clean ("minors: the kernel log is clean");
  return kt_exit ();
}
