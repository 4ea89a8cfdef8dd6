/* The chain's exec builds the new program in the child's pristine mm
   when nothing has looked at that mm, and in an mm of its own
   otherwise (patch 13; mem_across_exec.c checks what a look must not
   reach).  A kprobe on mm_alloc() (exec's only way to a new mm), in a
   trace instance of our own limited to this test and its descendants,
   counts the calls each child makes:

     fork + execve                          1 (the control: the probe works)
     CLONE + EXEC                           0 (the pristine mm was used)
     CLONE + blocked FIFO open + EXEC,
       /proc/CHILD/maps read while blocked  1 (the mm was exposed)
     the same, move_pages(2) on the child
       while blocked (NUMA kernels)         1 (find_mm_struct() exposed it)
     CLONE + EXEC of a file no binary
       format takes (hard-linked) + EXEC    1 (the failed exec claimed the
                                               pristine mm; the next one
                                               takes its own)
     CLONE + open /dev/null + EXEC          0 (a memory device keeps it)
     CLONE + open /dev/vcs (a node of our
       own, 7:0) + EXEC                     1 (a driver may bind the mm)

   Every child must run the program and exit 0.  */

#include "st.h"
#include <sys/sysmacros.h>

static char prog[64], junk[64], fifo[64], vcs[64];
static char inst[160];
static const char *tracing;
static char *argv_true[] = { "true", NULL };

static bool
setup (void)
{
  char path[256], v[32];
  tracing = st_tracefs ();
  if (tracing == NULL)
    return false;
  snprintf (path, sizeof path, "%s/kprobe_events", tracing);
  /* Without O_TRUNC, kprobe_events adds to what is there.  */
  if (st_write_file (path, "p:st_mm_alloc mm_alloc\n") != 0)
    return false;
  snprintf (inst, sizeof inst, "%s/instances/st-exec-mm", tracing);
  rmdir (inst);
  if (mkdir (inst, 0755) != 0)
    return false;
  snprintf (v, sizeof v, "%d", (int) getpid ());
  snprintf (path, sizeof path, "%s/set_event_pid", inst);
  st_write_file (path, v);
  snprintf (path, sizeof path, "%s/options/event-fork", inst);
  st_write_file (path, "1");
  snprintf (path, sizeof path, "%s/events/kprobes/st_mm_alloc/enable", inst);
  return st_write_file (path, "1") == 0;
}

static void
teardown (void)
{
  char path[256];
  snprintf (path, sizeof path, "%s/events/kprobes/st_mm_alloc/enable", inst);
  st_write_file (path, "0");
  rmdir (inst);
  snprintf (path, sizeof path, "%s/kprobe_events", tracing);
  st_write_file (path, "-:st_mm_alloc\n");
}

/* The mm_alloc() calls PID made, by the instance's buffer (its lines
   read "COMM-PID [CPU] ... st_mm_alloc: ...", the PID padded with
   spaces).  */
static int
calls (pid_t pid)
{
  char who[24];
  snprintf (who, sizeof who, "-%d ", (int) pid);
  return st_trace_count (inst, " st_mm_alloc:", who);
}

static void
expect_true (const char *name, int status)
{
  if (status >= 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0)
    kt_pass (name);
  else
    kt_fail (name, "status %#x", status);
}

/* Look at the blocked child's mm.  */
static bool
look_maps (pid_t child)
{
  char path[64], buf[256];
  snprintf (path, sizeof path, "/proc/%d/maps", (int) child);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  bool ok = fd >= 0 && read (fd, buf, sizeof buf) >= 0;
  if (fd >= 0)
    close (fd);
  return ok;
}

static bool
look_move_pages (pid_t child)
{
  return syscall (SYS_move_pages, child, 0UL, NULL, NULL, NULL, 0) == 0;
}

/* CLONE, an open of the FIFO that blocks, EXEC: LOOK at the child while
   it blocks, then let it go.  Its exec must take an mm of its own.  */
static void
blocked_look (const char *what, bool (*look) (pid_t))
{
  static struct clone_args ca = { .exit_signal = SIGCHLD };
  char name[128];
  st_reset ();
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, fifo, O_RDONLY, 10, 1);
  st_exec (&st_ring, prog, argv_true, st_envp, 2);
  if (io_uring_submit (&st_ring) != 3)
    kt_fail ("submit", "not 3 SQEs");
  pid_t child = st_find_child (getpid (), "S");
  if (child <= 0 || !look (child))
    kt_fail (what, "on the blocked child: %m");
  int w = st_fifo_writer (fifo);
  if (w < 0)
    kt_fail ("release the FIFO", "no reader");
  snprintf (name, sizeof name, "the chain's 3 CQEs (%s)", what);
  KT_EXPECT_EQ (name, st_reap (&st_ring, 3, 20), 3);
  if (w >= 0)
    close (w);
  snprintf (name, sizeof name, "the exec after %s runs the program", what);
  expect_true (name, st_fate ());
  snprintf (name, sizeof name, "an exec after %s on the child takes its "
	    "own mm (one mm_alloc)", what);
  KT_EXPECT_EQ (name, calls (st_res[0]), 1);
}

int
main (void)
{
  snprintf (prog, sizeof prog, "/tmp/st-v3-mm-true-%d", (int) getpid ());
  snprintf (junk, sizeof junk, "/tmp/st-v3-mm-junk-%d", (int) getpid ());
  snprintf (fifo, sizeof fifo, "/tmp/st-v3-mm-fifo-%d", (int) getpid ());
  snprintf (vcs, sizeof vcs, "/tmp/st-v3-mm-vcs-%d", (int) getpid ());
  st_init (0);
  if (!st_tiny_true (prog) || !st_mkfifo (fifo))
    return kt_exit ();
  /* Not an ELF, not "#!": no binary format takes it (ENOEXEC).  */
  FILE *f = fopen (junk, "we");
  if (f == NULL || fputs ("\x7f" "ELX not a program\n", f) < 0
      || fclose (f) != 0 || chmod (junk, 0755) != 0)
    {
      kt_fail ("write the file no binary format takes", "%m");
      return kt_exit ();
    }
  if (!setup ())
    {
      /* kernel/config.fragment asks for KPROBE_EVENTS.  */
      kt_fail ("a kprobe on mm_alloc in a trace instance", "%m");
      teardown ();
      unlink (prog);
      unlink (junk);
      unlink (fifo);
      return kt_exit ();
    }

  /* The control.  */
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      execve (prog, argv_true, st_envp);
      _exit (127);
    }
  expect_true ("fork + execve runs the program", st_wait (c));
  KT_EXPECT_EQ ("a fork child's execve calls mm_alloc once", calls (c), 1);

  /* Nothing looked at the child's mm.  */
  static struct clone_args ca = { .exit_signal = SIGCHLD };
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, prog, argv_true, st_envp, 1);
  expect_true ("CLONE + EXEC runs the program", st_finish (2));
  KT_EXPECT_EQ ("the exec builds the program in the pristine mm "
		"(no mm_alloc)", calls (st_res[0]), 0);

  blocked_look ("/proc/CHILD/maps", look_maps);
  /* move_pages() with no page takes the mm through find_mm_struct()
     and returns 0; without NUMA it is not there.  */
  if (syscall (SYS_move_pages, getpid (), 0UL, NULL, NULL, NULL, 0) == 0)
    blocked_look ("move_pages", look_move_pages);
  else
    kt_unsupported ("an exec after move_pages on the child takes its own mm",
		    "move_pages: %m (no NUMA)");

  /* A claimed mm whose exec fails.  */
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, junk, argv_true, st_envp, 1)->flags = IOSQE_IO_HARDLINK;
  st_exec (&st_ring, prog, argv_true, st_envp, 2);
  int status = st_finish (3);
  KT_EXPECT_EQ ("the exec of the file no format takes fails", st_res[1],
		-ENOEXEC);
  KT_EXPECT_EQ ("the next exec succeeds", st_res[2], 0);
  expect_true ("it runs the program", status);
  KT_EXPECT_EQ ("it builds the program in an mm of its own "
		"(one mm_alloc)", calls (st_res[0]), 1);

  /* Character devices opened by the chain.  */
  st_reset ();
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, "/dev/null", O_RDONLY, 10, 1);
  st_exec (&st_ring, prog, argv_true, st_envp, 2);
  expect_true ("CLONE + open /dev/null + EXEC runs the program",
	       st_finish (3));
  KT_EXPECT_EQ ("after opening /dev/null the exec builds in the pristine "
		"mm (no mm_alloc)", calls (st_res[0]), 0);
  /* CONFIG_VT: /dev/vcs, the current console's screen, always opens.  */
  if (mknod (vcs, S_IFCHR | 0600, makedev (7, 0)) != 0)
    kt_fail ("mknod a /dev/vcs node", "%m");
  st_reset ();
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, vcs, O_RDONLY, 10, 1);
  st_exec (&st_ring, prog, argv_true, st_envp, 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("the chain opens /dev/vcs", st_res[1], 10);
  expect_true ("CLONE + open /dev/vcs + EXEC runs the program", status);
  KT_EXPECT_EQ ("after opening another character device the exec takes "
		"an mm of its own (one mm_alloc)", calls (st_res[0]), 1);

  teardown ();
  unlink (prog);
  unlink (junk);
  unlink (fifo);
  unlink (vcs);
  st_no_children ("no child left");
  return kt_exit ();
}
