/* The descriptor snapshot, v3: opt-in with IORING_CLONE_FD_SNAPSHOT in
   CLONE's spawn_flags (announced by IORING_SPAWN_F_FD_SNAPSHOT in
   AT_IO_URING_SPAWN).  With it the child is created with the
   descriptors its exec keeps plus those the chain's SPAWN_ACTIONs name
   by number (fd, and the target of OPEN and DUP2); without it the
   child's table is a copy of the submitter's, as a fork child's.  No
   kernel code looks at path strings any more (v2 guessed from "/proc",
   "/dev/fd", relative paths: B-4).  Either way, after its exec the
   child has exactly the table a fork + execve child doing the same
   operations has.

   The spawner holds regular files (with offsets, O_APPEND), pipes, a
   socket pair, an O_PATH descriptor, a directory, 1,000 unreferenced
   close-on-exec descriptors and two high ones; the chain opens a FIFO,
   dup2s close-on-exec descriptors onto new numbers, onto themselves and
   onto a close-on-exec target, closes a plain and a close-on-exec one,
   fchdirs through a close-on-exec directory and execs this program,
   which prints its table (number, descriptor and file flags, type,
   device, inode, offset) and moves every offset by one.  Spawns of the
   same operations:

   A. with IORING_CLONE_FD_SNAPSHOT, an absolute FIFO path: while the
      child blocks in the FIFO open its table is the spawner's without
      the close-on-exec descriptors no operation names;
   A2. the same with a relative FIFO path: still the snapshot (a kernel
      that looks at the path, as v2 did, gives the whole table: FAIL);
   B. without the flag (absolute path): the spawner's whole table (v2
      gave a snapshot for an absolute path: FAIL);
   C. fork + the same calls + execve.

   The tables after the exec, and the offsets each moved in the
   spawner's open files, must be the same.  Without
   IORING_SPAWN_F_FD_SNAPSHOT, A and A2 are UNSUPPORTED and the flag
   must be refused (-EINVAL, no child).

   D. An O_CLOEXEC SPAWN_OPEN onto T, where T - 1 is the spawner's
      lowest descriptor that is free or close-on-exec, and is a
      close-on-exec one: as glibc does, T is closed, the file opened on
      the lowest free descriptor and moved to T if it is not there,
      which clears its FD_CLOEXEC.  Without the snapshot the lowest free
      descriptor is T (the whole table), so the new program must not
      have T, as after fork + close + open + execve.  With the snapshot
      the lowest free descriptor is the snapshot's (T - 1 was not
      copied), as the cover letter documents: the new program has the
      same table plus T, without FD_CLOEXEC.  (glibc never asks for the
      snapshot with an OPEN action.)
   E. Without the snapshot, an EXEC of /proc/self/fd/N, N a
      close-on-exec memfd no operation names (what fexecve does): the
      program runs (v2 needed its path heuristic for that).  */

#include "st.h"
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define MAXFD 4096
#define NCLOEXEC 1000

static char dir[] = "/tmp/st-snapshot";
static char self[300];
static struct clone_args ca = { .exit_signal = SIGCHLD };

/* Print the table of this process and move each offset by one.  */
static int
dump (void)
{
  char cwd[300];
  if (getcwd (cwd, sizeof cwd) == NULL)
    strcpy (cwd, "?");
  printf ("cwd %s\n", cwd);
  for (int fd = 0; fd < MAXFD; fd++)
    {
      int fdfl = fcntl (fd, F_GETFD);
      if (fdfl < 0)
	continue;
      struct stat st;
      if (fstat (fd, &st) != 0)
	memset (&st, 0, sizeof st);
      off_t pos = lseek (fd, 0, SEEK_CUR);
      /* The capture pipe is new for every spawn.  */
      if (fd == 1)
	st.st_ino = 0;
      printf ("%d fd %d fl %o type %o dev %lx ino %lu pos %lld\n", fd, fdfl,
	      fcntl (fd, F_GETFL), st.st_mode & S_IFMT,
	      (unsigned long) st.st_dev, (unsigned long) st.st_ino,
	      (long long) pos);
    }
  fflush (stdout);
  for (int fd = 3; fd < MAXFD; fd++)
    lseek (fd, 1, SEEK_CUR);
  return 0;
}

/* The spawner's table, and the offsets it resets before each spawn.  */
static const struct { int fd; off_t pos; } offsets[] = {
  { 10, 3 }, { 11, 5 }, { 12, 0 }, { 30, 7 }, { 31, 9 }, { 50, 11 },
  { 51, 13 }, { 52, 15 }
};

static void
place (int fd, int target, bool cloexec)
{
  if (fd != target)
    {
      if (dup3 (fd, target, cloexec ? O_CLOEXEC : 0) != target)
	{
	  kt_fail ("set up the table", "dup3 %d: %m", target);
	  kt_exit ();
	}
      close (fd);
    }
  else
    fcntl (fd, F_SETFD, cloexec ? FD_CLOEXEC : 0);
}

static void
make_table (const char *file)
{
  place (open (file, O_RDONLY), 10, false);
  place (open (file, O_RDONLY), 11, true);
  place (open (file, O_WRONLY | O_APPEND), 12, false);
  int p[2];
  if (pipe (p) != 0)
    kt_exit ();
  place (p[0], 13, false);
  place (p[1], 14, false);
  if (pipe (p) != 0)
    kt_exit ();
  place (p[0], 15, true);
  place (p[1], 16, true);
  place (open ("/", O_PATH), 17, false);
  if (socketpair (AF_UNIX, SOCK_STREAM, 0, p) != 0)
    kt_exit ();
  place (p[0], 18, true);
  place (p[1], 19, false);
  place (open ("/tmp", O_RDONLY | O_DIRECTORY), 20, true);
  place (open (file, O_RDONLY), 30, true);
  place (open (file, O_RDONLY), 31, true);
  place (open (file, O_RDONLY), 50, false);
  place (open (file, O_RDONLY), 51, true);
  place (open (file, O_RDONLY), 52, true);
  for (int i = 0; i < NCLOEXEC; i++)
    place (dup (11), 100 + i, true);
  place (dup (10), 2000, false);
  place (dup (11), 2001, true);
}

static void
reset_offsets (void)
{
  for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
    lseek (offsets[i].fd, offsets[i].pos, SEEK_SET);
}

/* How far the spawn moved each offset, as text.  */
static void
moved (char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
    len += snprintf (buf + len, size - len, "%d+%lld ", offsets[i].fd,
		     (long long) (lseek (offsets[i].fd, 0, SEEK_CUR)
				  - offsets[i].pos));
}

/* The open descriptors of PID (self for 0) as a bitmap; their number.  */
static int
table_of (pid_t pid, bool *open_fds)
{
  char path[64];
  if (pid == 0)
    strcpy (path, "/proc/self/fd");
  else
    snprintf (path, sizeof path, "/proc/%d/fd", (int) pid);
  memset (open_fds, 0, MAXFD);
  DIR *d = opendir (path);
  if (d == NULL)
    return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    {
      int fd = atoi (e->d_name);
      if (e->d_name[0] == '.' || fd == dirfd (d) || fd >= MAXFD)
	continue;
      open_fds[fd] = true;
      n++;
    }
  closedir (d);
  return n;
}

/* Compare the table of the blocked child with what it should be: the
   spawner's, less the close-on-exec descriptors not in NAMED (all of
   them if WHOLE).  */
static void
expect_table (const char *what, pid_t child, bool whole, const int *named,
	      int nnamed)
{
  static bool mine[MAXFD], its[MAXFD];
  table_of (0, mine);
  int n = table_of (child, its);
  int want = 0, wrong = -1;
  for (int fd = 0; fd < MAXFD; fd++)
    {
      bool keep = mine[fd];
      if (keep && !whole && (fcntl (fd, F_GETFD) & FD_CLOEXEC))
	{
	  keep = false;
	  for (int i = 0; i < nnamed; i++)
	    keep |= named[i] == fd;
	}
      want += keep;
      if (keep != its[fd] && wrong < 0)
	wrong = fd;
    }
  if (wrong < 0 && n == want)
    kt_pass (what);
  else
    kt_fail (what, "%d descriptors, expected %d; first difference fd %d "
	     "(%s in the child)", n, want, wrong,
	     wrong >= 0 && its[wrong] ? "open" : "not open");
}

/* Spawn A, A2 or B through a chain (SNAP: IORING_CLONE_FD_SNAPSHOT;
   RELATIVE: the FIFO's path); the new program's table into OUT.  */
static void
spawn_chain (bool snap, bool relative, char *out, size_t size)
{
  const char *what = !snap ? "whole table"
		     : relative ? "snapshot, relative path" : "snapshot";
  char name[128];
  char fifo[300];
  snprintf (fifo, sizeof fifo, "%s/fifo", dir);
  static char *argv_dump[] = { "snapshot", "--dump", NULL };
  int w;
  st_init (0);
  st_clone (&st_ring, &ca, 0)->spawn_flags = snap ? IORING_CLONE_FD_SNAPSHOT : 0;
  st_open (&st_ring, relative ? "fifo" : fifo, O_RDONLY, 60, 1);
  int r = st_capture (&st_ring, 2, &w);
  st_link (st_dup2 (&st_ring, 30, 40, 3));
  st_link (st_dup2 (&st_ring, 31, 31, 4));
  st_link (st_dup2 (&st_ring, 10, 52, 5));
  st_close (&st_ring, 50, 0, 6);
  st_close (&st_ring, 51, 0, 7);
  st_fchdir (&st_ring, 20, 8);
  st_exec (&st_ring, self, argv_dump, st_envp, 9);
  reset_offsets ();
  st_reset ();
  io_uring_submit (&st_ring);
  pid_t child = st_find_child (getpid (), "S");
  snprintf (name, sizeof name, "%s: the child blocks in its FIFO open", what);
  KT_EXPECT_EQ (name, child > 0, 1);
  if (child > 0)
    {
      /* Named by number: fd of DUP2, CLOSE, FCHDIR; the targets of
	 OPEN and DUP2.  */
      const int named[] = { 20, 30, 31, 40, 51, 52, 60, w };
      snprintf (name, sizeof name, "%s: the blocked child's table is %s",
		what, !snap ? "the spawner's whole table"
		: "the spawner's less the unnamed close-on-exec descriptors");
      expect_table (name, child, !snap, named, 8);
    }
  close (w);
  int fw = st_fifo_writer (fifo);
  snprintf (name, sizeof name, "%s: all CQEs", what);
  KT_EXPECT_EQ (name, st_reap (&st_ring, 10, 20), 10);
  /* open, dup2 x 4: their targets; close x 2, fchdir, exec: 0.  */
  static const int want[10] = { 0, 60, 1, 40, 31, 52, 0, 0, 0, 0 };
  bool ok = true;
  for (int i = 1; i <= 9; i++)
    ok &= st_res[i] == want[i];
  snprintf (name, sizeof name, "%s: every operation succeeded", what);
  if (ok)
    kt_pass (name);
  else
    kt_fail (name, "open %d dup2 %d %d %d %d close %d %d fchdir %d exec %d",
	     st_res[1], st_res[2], st_res[3], st_res[4], st_res[5], st_res[6],
	     st_res[7], st_res[8], st_res[9]);
  if (st_read_all (r, out, size) < 0)
    kt_fail ("read the table", "%s", what);
  snprintf (name, sizeof name, "%s: the new program ran", what);
  ST_EXPECT_STATUS (name, st_fate (), 0);
  if (fw >= 0)
    close (fw);
  io_uring_queue_exit (&st_ring);
}

/* Spawn C: fork, the same calls, execve.  */
static void
spawn_fork (char *out, size_t size)
{
  char fifo[300];
  snprintf (fifo, sizeof fifo, "%s/fifo", dir);
  int p[2];
  if (pipe2 (p, O_CLOEXEC) != 0)
    kt_exit ();
  reset_offsets ();
  pid_t pid = fork ();
  if (pid == 0)
    {
      int fd = open (fifo, O_RDONLY);
      if (fd < 0 || dup2 (fd, 60) != 60 || close (fd) != 0
	  || dup2 (p[1], 1) != 1 || dup2 (30, 40) != 40
	  || fcntl (31, F_SETFD, 0) != 0 || dup2 (10, 52) != 52
	  || close (50) != 0 || close (51) != 0 || fchdir (20) != 0)
	_exit (126);
      execl (self, "snapshot", "--dump", (char *) NULL);
      _exit (127);
    }
  close (p[1]);
  int fw = st_fifo_writer (fifo);
  if (st_read_all (p[0], out, size) < 0)
    kt_fail ("read the table", "fork");
  ST_EXPECT_STATUS ("fork: the new program ran", st_wait (pid), 0);
  if (fw >= 0)
    close (fw);
}

/* Spawn D through a chain, or by fork (FORK); the table into OUT; T.  */
static int
spawn_cloexec_open (bool fork_it, bool snap, const char *file, char *out,
		    size_t size)
{
  /* T - 1: the lowest descriptor that is free or close-on-exec, made a
     close-on-exec one if it is free.  */
  int target = 0, extra = -1;
  while (fcntl (target, F_GETFD) == 0)
    target++;
  if (fcntl (target, F_GETFD) < 0)
    extra = open (file, O_RDONLY | O_CLOEXEC);
  KT_EXPECT_EQ ("cloexec open: T - 1 is close-on-exec",
		fcntl (target, F_GETFD), FD_CLOEXEC);
  target++;
  reset_offsets ();
  static char *argv_dump[] = { "snapshot", "--dump", NULL };
  int r, w;
  if (fork_it)
    {
      int p[2];
      if (pipe2 (p, O_CLOEXEC) != 0)
	kt_exit ();
      r = p[0];
      pid_t pid = fork ();
      if (pid == 0)
	{
	  close (target);
	  int fd = open (file, O_RDONLY | O_CLOEXEC);
	  if (fd < 0 || dup2 (p[1], 1) != 1)
	    _exit (126);
	  if (fd != target && (dup2 (fd, target) != target || close (fd) != 0))
	    _exit (126);
	  execv (self, argv_dump);
	  _exit (127);
	}
      close (p[1]);
      if (st_read_all (r, out, size) < 0)
	kt_fail ("read the table", "cloexec open, fork");
      ST_EXPECT_STATUS ("cloexec open, fork: the new program ran",
			st_wait (pid), 0);
    }
  else
    {
      st_init (0);
      st_clone (&st_ring, &ca, 0)->spawn_flags
	= snap ? IORING_CLONE_FD_SNAPSHOT : 0;
      st_open (&st_ring, file, O_RDONLY | O_CLOEXEC, target, 1);
      r = st_capture (&st_ring, 2, &w);
      st_exec (&st_ring, self, argv_dump, st_envp, 3);
      int fate = st_finish (4);
      close (w);
      KT_EXPECT_EQ ("cloexec open: the open's result is the target",
		    st_res[1], target);
      if (st_read_all (r, out, size) < 0)
	kt_fail ("read the table", "cloexec open");
      ST_EXPECT_STATUS ("cloexec open: the new program ran", fate, 0);
      io_uring_queue_exit (&st_ring);
    }
  if (extra >= 0)
    close (extra);
  return target;
}

/* OUT: the table TABLE without descriptor FD's line; whether it had one
   without FD_CLOEXEC.  */
static bool
without_fd (const char *table, int fd, char *out, size_t size)
{
  char head[32];
  int n = snprintf (head, sizeof head, "%d fd 0 ", fd);
  bool had = false;
  size_t len = 0;
  for (const char *l = table; *l != '\0';)
    {
      const char *e = strchrnul (l, '\n');
      size_t ll = e - l + (*e == '\n');
      if (strncmp (l, head, n) == 0)
	had = true;
      else if (len + ll < size)
	{
	  memcpy (out + len, l, ll);
	  len += ll;
	}
      l += ll;
    }
  out[len] = '\0';
  return had;
}

/* Spawn E.  */
static void
spawn_memfd (void)
{
  int fd = memfd_create ("snapshot-true", MFD_CLOEXEC);
  if (fd < 0 || write (fd, st_tiny_true_elf, sizeof st_tiny_true_elf)
      != sizeof st_tiny_true_elf)
    {
      kt_fail ("memfd", "%m");
      return;
    }
  char path[64];
  snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  static char *argv_true[] = { "true", NULL };
  st_init (0);
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, path, argv_true, st_envp, 1);
  int fate = st_finish (2);
  KT_EXPECT_EQ ("exec of /proc/self/fd/N, N a close-on-exec memfd", st_res[1],
		0);
  ST_EXPECT_STATUS ("exec of /proc/self/fd/N: the program ran", fate, 0);
  io_uring_queue_exit (&st_ring);
  close (fd);
}

static void
expect_same (const char *what, const char *got, const char *fork_got)
{
  if (strcmp (got, fork_got) == 0)
    kt_pass (what);
  else
    kt_fail (what, "\n%s\n--- fork + execve:\n%s", got, fork_got);
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--dump") == 0)
    return dump ();
  if (!st_spawn_present ())
    {
      kt_unsupported ("snapshot", "no spawn series");
      return 0;
    }
  ssize_t len = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0)
    {
      kt_fail ("readlink /proc/self/exe", "%m");
      kt_exit ();
    }
  self[len] = '\0';
  struct rlimit rl = { MAXFD, MAXFD };
  if (setrlimit (RLIMIT_NOFILE, &rl) != 0)
    {
      kt_fail ("setrlimit RLIMIT_NOFILE", "%m");
      kt_exit ();
    }
  mkdir (dir, 0755);
  if (chdir (dir) != 0)
    kt_exit ();
  char file[300];
  snprintf (file, sizeof file, "%s/data", dir);
  int fd = open (file, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
  char data[64];
  memset (data, 'd', sizeof data);
  if (fd < 0 || write (fd, data, sizeof data) != sizeof data)
    kt_exit ();
  close (fd);
  snprintf (file, sizeof file, "%s/fifo", dir);
  if (!st_mkfifo (file))
    kt_exit ();
  snprintf (file, sizeof file, "%s/data", dir);
  make_table (file);

  static char a[MAXFD * 8], a2[MAXFD * 8], b[MAXFD * 8], c[MAXFD * 8];
  char ma[256], ma2[256], mb[256], mc[256];
  bool snap = (st_spawn_features () & IORING_SPAWN_F_FD_SNAPSHOT) != 0;
  if (snap)
    {
      spawn_chain (true, false, a, sizeof a);
      moved (ma, sizeof ma);
      spawn_chain (true, true, a2, sizeof a2);
      moved (ma2, sizeof ma2);
    }
  else
    {
      /* Not announced: the flag is refused.  */
      static char *argv_true[] = { "true", NULL };
      st_init (0);
      st_clone (&st_ring, &ca, 0)->spawn_flags = IORING_CLONE_FD_SNAPSHOT;
      st_exec (&st_ring, "/bin/true", argv_true, st_envp, 1);
      st_run (&st_ring, 2);
      KT_EXPECT_EQ ("IORING_CLONE_FD_SNAPSHOT not announced: EINVAL",
		    st_res[0], -EINVAL);
      st_no_children ("IORING_CLONE_FD_SNAPSHOT not announced: no child");
      io_uring_queue_exit (&st_ring);
      kt_unsupported ("snapshot", "IORING_SPAWN_F_FD_SNAPSHOT not in "
		      "AT_IO_URING_SPAWN");
    }
  spawn_chain (false, false, b, sizeof b);
  moved (mb, sizeof mb);
  spawn_fork (c, sizeof c);
  moved (mc, sizeof mc);

  KT_EXPECT_EQ ("fork: the new program printed a table", strlen (c) > 0, 1);
  if (snap)
    {
      expect_same ("snapshot: the new program's table is fork + execve's",
		   a, c);
      expect_same ("snapshot, relative path: the new program's table is "
		   "fork + execve's", a2, c);
      expect_same ("snapshot: the same open files shared (offsets moved)",
		   ma, mc);
      expect_same ("snapshot, relative path: the same open files shared "
		   "(offsets moved)", ma2, mc);
    }
  expect_same ("whole table: the new program's table is fork + execve's", b,
	       c);
  expect_same ("whole table: the same open files shared (offsets moved)", mb,
	       mc);
  KT_EXPECT_EQ ("fork: the dup2s share fd 10's offset", strstr (mc, "10+3 ")
		!= NULL, 1);

  spawn_cloexec_open (true, false, file, c, sizeof c);
  spawn_cloexec_open (false, false, file, a, sizeof a);
  expect_same ("cloexec open onto T, whole table: the new program's table "
	       "is fork + close + open + execve's", a, c);
  if (snap)
    {
      int t = spawn_cloexec_open (false, true, file, a, sizeof a);
      static char a_t[sizeof a];
      KT_EXPECT_EQ ("cloexec open onto T, snapshot: the new program has T "
		    "(the snapshot's lowest free descriptor)",
		    without_fd (a, t, a_t, sizeof a_t), 1);
      expect_same ("cloexec open onto T, snapshot: otherwise the new "
		   "program's table is fork + close + open + execve's",
		   a_t, c);
    }
  spawn_memfd ();
  st_no_children ("snapshot: no child left");
  kt_exit ();
}
