/* M2 (glibc review of v3), the kernel side: with IORING_CLONE_FD_SNAPSHOT
   the child lacks the close-on-exec descriptors, so a script whose
   interpreter is #!/dev/fd/9 fails with -ENOENT.  In an
   IORING_EXEC_SEARCH that must end the search (execvp() would have run
   the script), not go on to the next directory's program of the same
   name.  Descriptor 9 is /bin/sh, close-on-exec; a/prog is the #!/dev/fd/9
   script (exit 7), b/prog a #!/bin/sh one (exit 3).

   - snapshot, search a/prog then b/prog: a/prog -ENOENT, b/prog
     -ECANCELED, the child gone without a trace;
   - snapshot, search a/none then b/prog: the search goes on, exit 3;
   - no snapshot, search a/prog then b/prog: exit 7.  */

#include "st.h"

static char dir[] = "/tmp/st-snapshot-search";
static char *argv_prog[] = { "prog", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

static void
write_script (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  if (fd < 0 || write (fd, text, strlen (text)) != (ssize_t) strlen (text))
    {
      kt_fail ("set-up", "%s: %s", path, strerror (errno));
      kt_exit ();
    }
  close (fd);
}

/* Run CLONE + EXEC FIRST + EXEC SECOND, both IORING_EXEC_SEARCH.  */
static int
search (bool snapshot, const char *first, const char *second)
{
  struct io_uring_sqe *sqe = st_clone (&st_ring, &ca, 0);
  if (snapshot)
    ST_SPAWN_FLAGS (sqe) = IORING_CLONE_FD_SNAPSHOT;
  st_link (st_search (&st_ring, first, argv_prog, st_envp, 1));
  st_search (&st_ring, second, argv_prog, st_envp, 2);
  return st_finish (3);
}

int
main (void)
{
  if (!(st_spawn_features () & IORING_SPAWN_F_FD_SNAPSHOT))
    {
      kt_unsupported ("snapshot search", "no descriptor snapshot");
      return 77;
    }
  st_kmsg_open ();
  mkdir (dir, 0755);
  char a[64], b[64], none[64];
  snprintf (a, sizeof a, "%s/a", dir);
  snprintf (b, sizeof b, "%s/b", dir);
  mkdir (a, 0755);
  mkdir (b, 0755);
  snprintf (a, sizeof a, "%s/a/prog", dir);
  snprintf (b, sizeof b, "%s/b/prog", dir);
  snprintf (none, sizeof none, "%s/a/none", dir);
  write_script (a, "#!/dev/fd/9\nexit 7\n");
  write_script (b, "#!/bin/sh\nexit 3\n");
  int fd = open ("/bin/sh", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || dup3 (fd, 9, O_CLOEXEC) != 9)
    {
      kt_fail ("set-up", "descriptor 9: %s", strerror (errno));
      return kt_exit ();
    }
  close (fd);
  st_init (0);

  int fate = search (true, a, b);
  if (st_res[1] == -ENOENT && st_res[2] == -ECANCELED && fate == ST_GONE)
    kt_pass ("snapshot: the search ends at the script it cannot run");
  else
    kt_fail ("snapshot: the search ends at the script it cannot run",
	     "exec %d, next %d, fate %#x (3 << 8: the next directory's ran)",
	     st_res[1], st_res[2], fate);

  fate = search (true, none, b);
  if (st_res[1] == -ENOENT && st_res[2] == 0 && fate == 3 << 8)
    kt_pass ("snapshot: a candidate that is not there goes on");
  else
    kt_fail ("snapshot: a candidate that is not there goes on",
	     "exec %d, next %d, fate %#x", st_res[1], st_res[2], fate);

  fate = search (false, a, b);
  if (st_res[1] == 0 && fate == 7 << 8)
    kt_pass ("no snapshot: the script runs");
  else
    kt_fail ("no snapshot: the script runs", "exec %d, next %d, fate %#x",
	     st_res[1], st_res[2], fate);

  unlink (a);
  unlink (b);
  snprintf (a, sizeof a, "%s/a", dir);
  snprintf (b, sizeof b, "%s/b", dir);
  rmdir (a);
  rmdir (b);
  rmdir (dir);
  st_kmsg_clean ("the kernel log is clean");
  return kt_exit ();
}
