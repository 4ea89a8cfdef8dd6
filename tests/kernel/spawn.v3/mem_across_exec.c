/* A /proc/PID/mem opened before a chain's exec must not reach the new
   program's memory, as for any exec (CVE-2012-0056's class: proc_mem_open()
   pins the mm, and exec's fresh mm is what keeps the new image, set-uid
   or non-dumpable, out of an earlier opener's reach).  The chain's exec
   builds its image in the child's pristine mm only if nothing took that
   mm through mm_exec_expose() (mm_access(), move_pages(); patch 13, and
   exec_mm_reuse.c); an exec that reused it without that fence
   (kernel/experiments/) fails here.

   The chain: CLONE + SPAWN_OPEN of a FIFO nobody writes (the child
   blocks) + EXEC of this program in --hold mode (pause()).  While the
   child blocks, the parent opens /proc/CHILD/mem; then it releases the
   FIFO, waits for the exec, and reads the first mapping of the new image:
   through a descriptor opened now (the control: it must read) and
   through the one opened before the exec (it must read nothing).  The
   same for /proc/CHILD/maps, which needs only read access: opened before
   the exec it must list nothing of the new image.  A reference taken
   while the exec runs is a race this test does not try to hit.  */

#include "st.h"

static char fifo[64];

/* Read /proc/PID/FILE into BUF (NUL-terminated, NULs of cmdline turned
   into spaces); its length or -1.  */
static ssize_t
read_proc (pid_t pid, const char *file, char *buf, size_t size)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/%s", (int) pid, file);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read (fd, buf, size - 1);
  close (fd);
  if (n < 0)
    return -1;
  for (ssize_t i = 0; i < n; i++)
    if (buf[i] == '\0')
      buf[i] = ' ';
  buf[n] = '\0';
  return n;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--hold") == 0)
    {
      pause ();
      return 0;
    }
  char self[4096];
  ssize_t len = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0)
    {
      kt_fail ("readlink /proc/self/exe", "%m");
      return kt_exit ();
    }
  self[len] = '\0';
  snprintf (fifo, sizeof fifo, "/tmp/st-v3-mem-fifo-%d", (int) getpid ());
  st_init (0);
  if (!st_mkfifo (fifo))
    return kt_exit ();

  static struct clone_args ca = { .exit_signal = SIGCHLD };
  static char *argv_hold[] = { "mem_across_exec", "--hold", NULL };
  st_reset ();
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, fifo, O_RDONLY, 10, 1);
  st_exec (&st_ring, self, argv_hold, st_envp, 2);
  if (io_uring_submit (&st_ring) != 3)
    kt_fail ("submit", "not 3 SQEs");
  pid_t child = st_find_child (getpid (), "S");
  if (child == 0)
    {
      kt_fail ("the child blocks in the FIFO open", "no such child");
      unlink (fifo);
      return kt_exit ();
    }

  char path[64];
  snprintf (path, sizeof path, "/proc/%d/mem", (int) child);
  int before = open (path, O_RDONLY | O_CLOEXEC);
  if (before < 0)
    kt_fail ("/proc/CHILD/mem opens before the exec, as a fork child's",
	     "%m");
  else
    kt_pass ("/proc/CHILD/mem opens before the exec, as a fork child's");
  char maps_path[64];
  snprintf (maps_path, sizeof maps_path, "/proc/%d/maps", (int) child);
  int maps_before = open (maps_path, O_RDONLY | O_CLOEXEC);
  if (maps_before < 0)
    kt_fail ("/proc/CHILD/maps opens before the exec", "%m");

  int w = st_fifo_writer (fifo);
  if (w < 0)
    kt_fail ("release the FIFO", "no reader");
  int got = st_reap (&st_ring, 3, 20);
  KT_EXPECT_EQ ("the chain's 3 CQEs", got, 3);
  KT_EXPECT_EQ ("the clone's CQE has the pid", st_res[0], child);
  KT_EXPECT_EQ ("the exec succeeded", st_res[2], 0);

  /* The new image: its command line, then its first mapping.  */
  char buf[4096];
  int i;
  for (i = 0; i < 2000; i++)
    {
      if (read_proc (child, "cmdline", buf, sizeof buf) > 0
	  && strstr (buf, "--hold") != NULL)
	break;
      usleep (10000);
    }
  unsigned long start = 0;
  if (i == 2000 || read_proc (child, "maps", buf, sizeof buf) <= 0
      || sscanf (buf, "%lx-", &start) != 1)
    kt_fail ("the new image is mapped", "%s (the exec's CQE: %d)",
	     i == 2000 ? "no --hold command line" : "no maps", st_res[2]);
  else
    {
      unsigned char now_bytes[16], old_bytes[16];
      int now = open (path, O_RDONLY | O_CLOEXEC);
      ssize_t n = now < 0 ? -1 : pread (now, now_bytes, sizeof now_bytes,
					  start);
      /* The control: the new image is readable to its parent.  */
      KT_EXPECT_EQ ("a /proc/CHILD/mem opened after the exec reads it",
		    n, (ssize_t) sizeof now_bytes);
      if (now >= 0)
	close (now);
      if (before >= 0)
	{
	  ssize_t m = pread (before, old_bytes, sizeof old_bytes, start);
	  if (m > 0)
	    kt_fail ("the /proc/CHILD/mem opened before the exec reads "
		     "nothing of the new image",
		     "read %zd bytes at %#lx", m, start);
	  else
	    kt_pass ("the /proc/CHILD/mem opened before the exec reads "
		     "nothing of the new image");
	}
      if (maps_before >= 0)
	{
	  ssize_t m = read (maps_before, buf, sizeof buf - 1);
	  if (m > 0)
	    kt_fail ("the /proc/CHILD/maps opened before the exec lists "
		     "nothing of the new image", "read %zd bytes", m);
	  else
	    kt_pass ("the /proc/CHILD/maps opened before the exec lists "
		     "nothing of the new image");
	}
    }
  if (maps_before >= 0)
    close (maps_before);
  if (before >= 0)
    close (before);
  if (w >= 0)
    close (w);
  kill (child, SIGKILL);
  int status = st_wait (child);
  if (status >= 0 && WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL)
    kt_pass ("the child is reaped");
  else
    kt_fail ("the child is reaped", "status %#x", status);
  unlink (fifo);
  st_no_children ("no child left");
  return kt_exit ();
}
