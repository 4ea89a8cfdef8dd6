/* The file descriptor operations of a spawn chain, v3: the
   IORING_OP_SPAWN_ACTION sub-ops IORING_SPAWN_OPEN onto a given fd
   (addr3; target closed first), IORING_SPAWN_DUP2 (new fd in addr3;
   same fd clears FD_CLOEXEC), IORING_SPAWN_CLOSE (close(): EBADF if
   not open, unless IORING_SPAWN_CLOSE_IN_LIMIT and the fd is below
   RLIMIT_NOFILE), IORING_SPAWN_CLOSE_RANGE (last in addr3); their
   error paths (the failed operation's CQE has the errno, the child is
   gone without a trace); they act on the child's copy of the table
   only; SPAWN_ACTION is EINVAL outside a chain, and so is an unknown
   sub-op.  */

#include "st.h"
#include <linux/close_range.h>

static struct clone_args ca = { .exit_signal = SIGCHLD };

int
main (void)
{
  umask (022);
  st_init (0);
  char dir[] = "/tmp/st-fd-XXXXXX";
  if (mkdtemp (dir) == NULL)
    {
      kt_fail ("mkdtemp", "%m");
      return kt_exit ();
    }
  char path[300], script[600], out[256];
  int w, r, status;

  /* SPAWN_OPEN onto fd 7, which the parent has open on /dev/null: the
     child's fd 7 is closed and replaced, the parent's stays.  */
  int devnull = open ("/dev/null", O_RDONLY);
  if (devnull != 7 && dup2 (devnull, 7) != 7)
    kt_fail ("dup2", "%m");
  snprintf (path, sizeof path, "%s/out", dir);
  st_clone (&st_ring, &ca, 0);
  struct io_uring_sqe *sqe = st_next (&st_ring, 1);
  io_uring_prep_spawn_open (sqe, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC,
			    0640, 7);
  st_link (sqe);
  st_sh ("echo opened >&7", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("open: res is the target fd", st_res[1], 7);
  KT_EXPECT_EQ ("open: exec", st_res[2], 0);
  ST_EXPECT_STATUS ("open: child", status, 0);
  r = open (path, O_RDONLY);
  st_read_all (r, out, sizeof out);
  ST_EXPECT_STR ("open: file written through fd 7", out, "opened");
  struct stat stt;
  if (stat (path, &stt) == 0 && (stt.st_mode & 0777) == 0640)
    kt_pass ("open: mode");
  else
    kt_fail ("open: mode", "mode %o", (unsigned) stt.st_mode);
  struct stat s7, snull;
  fstat (7, &s7);
  stat ("/dev/null", &snull);
  KT_EXPECT_EQ ("open: parent's fd 7 untouched", s7.st_rdev == snull.st_rdev, 1);

  /* SPAWN_OPEN onto a free high number.  */
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, path, O_RDONLY, 8, 1);
  st_sh ("read x <&8 && test \"$x\" = opened", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("open high fd: res", st_res[1], 8);
  ST_EXPECT_STATUS ("open high fd: child read it", status, 0);
  KT_EXPECT_EQ ("open high fd: not in the parent", fcntl (8, F_GETFD), -1);

  /* O_CLOEXEC behaves as glibc's open + dup2 onto the target: it stays
     only if the target is the lowest free fd (the open lands there),
     otherwise the dup2 clears it (ABI 2).  */
  int low = dup (0);
  close (low);
  static const struct { const char *name; int lowest; int status; } ce[] = {
    { "open O_CLOEXEC onto the lowest free fd: closed at exec", 1, 0 },
    { "open O_CLOEXEC onto another fd: kept open", 0, 1 },
  };
  for (unsigned i = 0; i < 2; i++)
    {
      int target = ce[i].lowest ? low : 9;
      snprintf (script, sizeof script,
		"test -e /proc/self/fd/%d && exit 1; exit 0", target);
      st_clone (&st_ring, &ca, 0);
      st_open (&st_ring, path, O_RDONLY | O_CLOEXEC, target, 1);
      st_sh (script, 2);
      status = st_finish (3);
      KT_EXPECT_EQ (ce[i].name, st_res[1], target);
      ST_EXPECT_STATUS (ce[i].name, status, ce[i].status);
    }

  /* Errors: ENOENT stops the chain; dirfd EBADF; EINVAL flags.  */
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, "/nonexistent/file", O_RDONLY, 5, 1);
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("open ENOENT", st_res[1], -ENOENT);
  KT_EXPECT_EQ ("open ENOENT: exec cancelled", st_res[2], -ECANCELED);
  ST_EXPECT_GONE ("open ENOENT: child gone", status);

  st_clone (&st_ring, &ca, 0);
  sqe = st_next (&st_ring, 1);
  io_uring_prep_spawn_open (sqe, 999, "relative", O_RDONLY, 0, 5);
  st_link (sqe);
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("open bad dirfd", st_res[1], -EBADF);
  ST_EXPECT_GONE ("open bad dirfd: child gone", status);

  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, (const char *) 8, O_RDONLY, 5, 1);
  st_sh ("exit 0", 2);
  /* v3 copies the path at prep (delayed_getname): the chain fails at
     submission and no child is made.  */
  st_run (&st_ring, 3);
  KT_EXPECT_EQ ("open EFAULT", st_res[1], -EFAULT);
  KT_EXPECT_EQ ("open EFAULT: clone cancelled", st_res[0], -ECANCELED);
  st_no_children ("open EFAULT: no child");

  /* DUP2 onto stdout; the child's output reaches the pipe.  */
  st_clone (&st_ring, &ca, 0);
  r = st_capture (&st_ring, 1, &w);
  st_sh ("echo via-dup2", 2);
  status = st_finish (3);
  close (w);
  KT_EXPECT_EQ ("dup2: res is newfd", st_res[1], 1);
  st_read_all (r, out, sizeof out);
  ST_EXPECT_STR ("dup2: output through the pipe", out, "via-dup2");
  ST_EXPECT_STATUS ("dup2: child", status, 0);

  /* DUP2 of an O_CLOEXEC fd onto itself clears FD_CLOEXEC.  */
  int p[2];
  if (pipe2 (p, O_CLOEXEC) != 0)
    kt_fail ("pipe2", "%m");
  snprintf (script, sizeof script, "echo kept >&%d", p[1]);
  st_clone (&st_ring, &ca, 0);
  st_link (st_dup2 (&st_ring, p[1], p[1], 1));
  st_sh (script, 2);
  status = st_finish (3);
  close (p[1]);
  KT_EXPECT_EQ ("dup2 same fd: res", st_res[1], p[1]);
  st_read_all (p[0], out, sizeof out);
  ST_EXPECT_STR ("dup2 same fd: FD_CLOEXEC cleared", out, "kept");
  KT_EXPECT_EQ ("dup2 same fd: child", WEXITSTATUS (status), 0);

  /* Control: without it the fd is closed at exec.  */
  if (pipe2 (p, O_CLOEXEC) != 0)
    kt_fail ("pipe2", "%m");
  snprintf (script, sizeof script, "echo kept >&%d", p[1]);
  st_clone (&st_ring, &ca, 0);
  st_sh (script, 1);
  status = st_finish (2);
  close (p[1]);
  st_read_all (p[0], out, sizeof out);
  ST_EXPECT_STR ("no dup2: O_CLOEXEC fd closed", out, "");

  /* DUP2 errors.  */
  st_clone (&st_ring, &ca, 0);
  st_link (st_dup2 (&st_ring, 555, 3, 1));
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("dup2 bad oldfd", st_res[1], -EBADF);
  ST_EXPECT_GONE ("dup2 bad oldfd: child gone", status);
  st_clone (&st_ring, &ca, 0);
  st_link (st_dup2 (&st_ring, 0, 1 << 30, 1));
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("dup2 newfd past the limit", st_res[1], -EBADF);
  ST_EXPECT_GONE ("dup2 newfd past the limit: child gone", status);

  /* SPAWN_CLOSE closes the child's fd only.  */
  int fd = open ("/dev/null", O_RDONLY);
  snprintf (script, sizeof script, "test -e /proc/self/fd/%d && exit 1; exit 0", fd);
  st_clone (&st_ring, &ca, 0);
  st_close (&st_ring, fd, 0, 1);
  st_sh (script, 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("close: res", st_res[1], 0);
  ST_EXPECT_STATUS ("close: closed in the child", status, 0);
  KT_EXPECT_EQ ("close: still open in the parent", fcntl (fd, F_GETFD) >= 0, 1);
  /* Soft-linked close of a closed fd: EBADF, the chain ends.  */
  st_clone (&st_ring, &ca, 0);
  st_close (&st_ring, 444, 0, 1);
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("close EBADF", st_res[1], -EBADF);
  KT_EXPECT_EQ ("close EBADF: exec cancelled", st_res[2], -ECANCELED);
  ST_EXPECT_GONE ("close EBADF: child gone", status);
  /* Hard-linked: EBADF, the chain goes on.  */
  st_clone (&st_ring, &ca, 0);
  st_close (&st_ring, 444, 0, 1)->flags = IOSQE_IO_HARDLINK;
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("close EBADF hard-linked", st_res[1], -EBADF);
  ST_EXPECT_STATUS ("close EBADF hard-linked: chain goes on", status, 0);
  /* Close then open onto the same number: the lowest free fd.  */
  st_clone (&st_ring, &ca, 0);
  st_close (&st_ring, 0, 0, 1);
  st_open (&st_ring, "/dev/null", O_RDONLY, 0, 2);
  st_sh ("test \"$(readlink /proc/self/fd/0)\" = /dev/null", 3);
  status = st_finish (4);
  KT_EXPECT_EQ ("close 0: res", st_res[1], 0);
  KT_EXPECT_EQ ("close 0, open onto 0: res", st_res[2], 0);
  ST_EXPECT_STATUS ("close 0, open onto 0: stdin is /dev/null", status, 0);

  /* IORING_SPAWN_CLOSE_IN_LIMIT: a closed fd below RLIMIT_NOFILE is no
     error (posix_spawn_file_actions_addclose); one at or past the limit
     still is (EBADF).  A kernel that ignores the flag: EBADF and the
     child gone -- FAIL.  */
  st_clone (&st_ring, &ca, 0);
  st_close (&st_ring, 444, IORING_SPAWN_CLOSE_IN_LIMIT, 1);
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("close IN_LIMIT of a closed fd: res 0", st_res[1], 0);
  ST_EXPECT_STATUS ("close IN_LIMIT of a closed fd: the chain goes on",
		    status, 0);
  st_clone (&st_ring, &ca, 0);
  st_close (&st_ring, 1 << 30, IORING_SPAWN_CLOSE_IN_LIMIT, 1);
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("close IN_LIMIT past RLIMIT_NOFILE: EBADF", st_res[1], -EBADF);
  ST_EXPECT_GONE ("close IN_LIMIT past RLIMIT_NOFILE: child gone", status);
  st_clone (&st_ring, &ca, 0);
  st_close (&st_ring, 444, 1U << 5, 1);
  st_sh ("exit 0", 2);
  st_run (&st_ring, 3);
  KT_EXPECT_EQ ("close with an unknown flag: EINVAL", st_res[1], -EINVAL);
  st_no_children ("close with an unknown flag: no child");

  /* CLOSE_RANGE from fd onwards.  */
  snprintf (script, sizeof script,
	    "test -e /proc/self/fd/%d && exit 1; test -e /proc/self/fd/7 && exit 2; exit 0", fd);
  st_clone (&st_ring, &ca, 0);
  st_close_range (&st_ring, 5, ~0U, 0, 1);
  st_sh (script, 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("close_range: res", st_res[1], 0);
  ST_EXPECT_STATUS ("close_range: fds closed", status, 0);
  KT_EXPECT_EQ ("close_range: parent keeps fd 7", fcntl (7, F_GETFD) >= 0, 1);
  /* CLOSE_RANGE_CLOEXEC.  */
  st_clone (&st_ring, &ca, 0);
  st_close_range (&st_ring, 5, ~0U, CLOSE_RANGE_CLOEXEC, 1);
  st_sh (script, 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("close_range cloexec: res", st_res[1], 0);
  ST_EXPECT_STATUS ("close_range cloexec: fds closed at exec", status, 0);
  /* Errors: first > last, found when it runs.  */
  st_clone (&st_ring, &ca, 0);
  st_close_range (&st_ring, 10, 5, 0, 1);
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("close_range first > last", st_res[1], -EINVAL);
  ST_EXPECT_GONE ("close_range first > last: child gone", status);
  /* An unknown flag: close_range () finds it, when it runs.  */
  st_clone (&st_ring, &ca, 0);
  st_close_range (&st_ring, 10, 20, 1U << 10, 1);
  st_sh ("exit 0", 2);
  /* v3 checks the flags at prep: no child.  */
  st_run (&st_ring, 3);
  KT_EXPECT_EQ ("close_range bad flag", st_res[1], -EINVAL);
  KT_EXPECT_EQ ("close_range bad flag: clone cancelled", st_res[0],
		-ECANCELED);
  st_no_children ("close_range bad flag: no child");
  /* CLOSE_RANGE_UNSHARE: only CLOSE_RANGE_CLOEXEC is taken (the
     child's table is its own already); refused at prep, no child.  */
  st_clone (&st_ring, &ca, 0);
  st_close_range (&st_ring, 5, ~0U, CLOSE_RANGE_UNSHARE, 1);
  st_sh ("exit 0", 2);
  st_run (&st_ring, 3);
  KT_EXPECT_EQ ("close_range unshare: refused", st_res[1], -EINVAL);
  st_no_children ("close_range unshare: no child");

  /* Reserved fields of a spawn op (prep: the clone is cancelled).  */
  st_clone (&st_ring, &ca, 0);
  st_link (st_dup2 (&st_ring, 0, 4, 1))->addr = 1;
  st_sh ("exit 0", 2);
  st_run (&st_ring, 3);
  KT_EXPECT_EQ ("dup2 with addr set", st_res[1], -EINVAL);
  KT_EXPECT_EQ ("dup2 with addr set: clone cancelled", st_res[0], -ECANCELED);

  /* An unknown sub-op: EINVAL at prep, no child.  */
  st_clone (&st_ring, &ca, 0);
  st_action (&st_ring, IORING_SPAWN_OP_LAST, 1);
  st_sh ("exit 0", 2);
  st_run (&st_ring, 3);
  KT_EXPECT_EQ ("unknown sub-op", st_res[1], -EINVAL);
  st_no_children ("unknown sub-op: no child");

  /* Outside a chain: EINVAL.  */
  static const int ops[] = { IORING_SPAWN_OPEN, IORING_SPAWN_DUP2,
			     IORING_SPAWN_CLOSE, IORING_SPAWN_CLOSE_RANGE };
  for (unsigned i = 0; i < 4; i++)
    {
      char name[64];
      st_action (&st_ring, ops[i], 0)->flags = 0;
      st_run (&st_ring, 1);
      snprintf (name, sizeof name, "sub-op %d outside a chain", ops[i]);
      KT_EXPECT_EQ (name, st_res[0], -EINVAL);
    }

  st_no_children ("no child left");
  snprintf (script, sizeof script, "rm -rf %s", dir);
  if (system (script) != 0)
    kt_fail ("cleanup", "%s", script);
  return kt_exit ();
}
