/* The process operations of a spawn chain, v3: the SPAWN_ACTION
   sub-ops IORING_SPAWN_CHDIR and FCHDIR, and the attributes
   IORING_SPAWN_ATTR_SETSID and SETPGROUP of struct io_uring_spawn_attr
   (CLONE's addr2; v2 had an SQE for each); their error paths; the
   parent's cwd is untouched; CHDIR and FCHDIR check permissions as the
   system calls do.  An attribute that fails ends the chain
   before its first operation: the clone's CQE has the pid and
   SPAWN_GONE, and the first operation's CQE carries the error (what the
   v3 kernel does; the cover letter only says "the failed SQE's CQE
   carries the error").  */

#include "st.h"

static struct clone_args ca = { .exit_signal = SIGCHLD };

int
main (void)
{
  st_init (0);
  char dir[] = "/tmp/st-proc-XXXXXX";
  if (mkdtemp (dir) == NULL)
    {
      kt_fail ("mkdtemp", "%m");
      return kt_exit ();
    }
  char cwd[512], out[512], file[600];
  if (getcwd (cwd, sizeof cwd) == NULL)
    kt_fail ("getcwd", "%m");
  int w, r, status;

  /* CHDIR.  */
  st_clone (&st_ring, &ca, 0);
  r = st_capture (&st_ring, 1, &w);
  st_chdir (&st_ring, dir, 2);
  st_sh ("pwd", 3);
  status = st_finish (4);
  close (w);
  KT_EXPECT_EQ ("chdir: res", st_res[2], 0);
  st_read_all (r, out, sizeof out);
  ST_EXPECT_STR ("chdir: child's cwd", out, dir);
  ST_EXPECT_STATUS ("chdir: child", status, 0);
  char now[512];
  ST_EXPECT_STR ("chdir: parent's cwd unchanged", getcwd (now, sizeof now), cwd);

  /* CHDIR errors.  */
  snprintf (file, sizeof file, "%s/file", dir);
  close (open (file, O_CREAT | O_WRONLY, 0600));
  static const struct { const char *name; const char *path; int err; } cd[] = {
    { "chdir ENOENT", "/nonexistent", ENOENT },
    { "chdir ENOTDIR", NULL, ENOTDIR },
    { "chdir EFAULT", (const char *) 8, EFAULT },
  };
  for (unsigned i = 0; i < 3; i++)
    {
      char name[64];
      st_clone (&st_ring, &ca, 0);
      st_chdir (&st_ring, cd[i].path ? cd[i].path : file, 1);
      st_sh ("exit 0", 2);
      if (cd[i].err == EFAULT)
	{
	  /* v3 copies the path at prep: the chain fails at submission
	     and no child is made.  */
	  st_run (&st_ring, 3);
	  KT_EXPECT_EQ (cd[i].name, st_res[1], -cd[i].err);
	  snprintf (name, sizeof name, "%s: clone cancelled", cd[i].name);
	  KT_EXPECT_EQ (name, st_res[0], -ECANCELED);
	  snprintf (name, sizeof name, "%s: no child", cd[i].name);
	  st_no_children (name);
	  continue;
	}
      status = st_finish (3);
      KT_EXPECT_EQ (cd[i].name, st_res[1], -cd[i].err);
      snprintf (name, sizeof name, "%s: child gone", cd[i].name);
      ST_EXPECT_GONE (name, status);
    }

  /* FCHDIR.  */
  int dfd = open (dir, O_RDONLY | O_DIRECTORY);
  st_clone (&st_ring, &ca, 0);
  r = st_capture (&st_ring, 1, &w);
  st_fchdir (&st_ring, dfd, 2);
  st_sh ("pwd", 3);
  status = st_finish (4);
  close (w);
  KT_EXPECT_EQ ("fchdir: res", st_res[2], 0);
  st_read_all (r, out, sizeof out);
  ST_EXPECT_STR ("fchdir: child's cwd", out, dir);
  int ffd = open (file, O_RDONLY);
  static const struct { const char *name; int fd; int err; } fcd[] = {
    { "fchdir EBADF", 333, EBADF }, { "fchdir ENOTDIR", -1, ENOTDIR },
  };
  for (unsigned i = 0; i < 2; i++)
    {
      st_clone (&st_ring, &ca, 0);
      st_fchdir (&st_ring, fcd[i].fd < 0 ? ffd : fcd[i].fd, 1);
      st_sh ("exit 0", 2);
      status = st_finish (3);
      KT_EXPECT_EQ (fcd[i].name, st_res[1], -fcd[i].err);
      char name[64];
      snprintf (name, sizeof name, "%s: child gone", fcd[i].name);
      ST_EXPECT_GONE (name, status);
    }

  /* The permission checks of chdir () and fchdir (), which the actions
     share with the system calls: with effective uid 65534 (no
     capabilities), a directory of root's without search permission is
     EACCES, by path and by a descriptor root opened.  */
  char closed[64];
  snprintf (closed, sizeof closed, "/tmp/st-proc-closed-%d", (int) getpid ());
  if (mkdir (closed, 0700) != 0)
    kt_fail ("mkdir", "%m");
  int cfd = open (closed, O_RDONLY | O_DIRECTORY);
  if (setresuid (-1, 65534, -1) != 0)
    kt_fail ("setresuid", "%m");
  for (int i = 0; i < 2; i++)
    {
      const char *what = i == 0 ? "chdir EACCES" : "fchdir EACCES";
      char name[64];
      st_clone (&st_ring, &ca, 0);
      if (i == 0)
	st_chdir (&st_ring, closed, 1);
      else
	st_fchdir (&st_ring, cfd, 1);
      st_sh ("exit 0", 2);
      status = st_finish (3);
      KT_EXPECT_EQ (what, st_res[1], -EACCES);
      snprintf (name, sizeof name, "%s: child gone", what);
      ST_EXPECT_GONE (name, status);
    }
  if (setresuid (-1, 0, -1) != 0)
    kt_fail ("setresuid back", "%m");
  close (cfd);
  rmdir (closed);

  /* SETSID: the child is a session leader (its own group).  The child
     stays alive (reading a pipe) while the parent looks at it.  */
  int hold[2];
  if (pipe2 (hold, O_CLOEXEC) != 0)
    kt_fail ("pipe", "%m");
  struct io_uring_spawn_attr attr;
  memset (&attr, 0, sizeof attr);
  attr.flags = IORING_SPAWN_ATTR_SETSID;
  st_clone_attr (&st_ring, &ca, &attr, 0);
  st_link (st_dup2 (&st_ring, hold[0], 0, 1));
  st_sh ("read x; exit 0", 2);
  st_run (&st_ring, 3);
  pid_t pid = st_res[0];
  KT_EXPECT_EQ ("setsid: exec", st_res[2], 0);
  KT_EXPECT_EQ ("setsid: getsid (child)", getsid (pid), pid);
  KT_EXPECT_EQ ("setsid: getpgid (child)", getpgid (pid), pid);
  KT_EXPECT_EQ ("setsid: parent's session unchanged", getsid (0) != pid, 1);
  close (hold[1]);
  ST_EXPECT_STATUS ("setsid: child", st_wait (pid), 0);
  close (hold[0]);

  /* SETPGROUP 0: own group.  */
  if (pipe2 (hold, O_CLOEXEC) != 0)
    kt_fail ("pipe", "%m");
  memset (&attr, 0, sizeof attr);
  attr.flags = IORING_SPAWN_ATTR_SETPGROUP;
  st_clone_attr (&st_ring, &ca, &attr, 0);
  st_link (st_dup2 (&st_ring, hold[0], 0, 1));
  st_sh ("read x; exit 0", 2);
  st_run (&st_ring, 3);
  pid = st_res[0];
  KT_EXPECT_EQ ("setpgroup 0: exec", st_res[2], 0);
  KT_EXPECT_EQ ("setpgroup 0: getpgid (child)", getpgid (pid), pid);
  KT_EXPECT_EQ ("setpgroup 0: same session", getsid (pid), getsid (0));
  pid_t group = pid;
  /* SETPGROUP into that group.  */
  struct io_uring_spawn_attr attr2;
  memset (&attr2, 0, sizeof attr2);
  attr2.flags = IORING_SPAWN_ATTR_SETPGROUP;
  attr2.pgid = group;
  st_clone_attr (&st_ring, &ca, &attr2, 0);
  st_link (st_dup2 (&st_ring, hold[0], 0, 1));
  st_sh ("read x; exit 0", 2);
  st_run (&st_ring, 3);
  pid_t pid2 = st_res[0];
  KT_EXPECT_EQ ("setpgroup group: exec", st_res[2], 0);
  KT_EXPECT_EQ ("setpgroup group: getpgid (child)", getpgid (pid2), group);
  close (hold[1]);
  ST_EXPECT_STATUS ("setpgroup: child 1", st_wait (pid), 0);
  ST_EXPECT_STATUS ("setpgroup: child 2", st_wait (pid2), 0);
  close (hold[0]);

  /* Attribute errors: a group that does not exist; SETSID of a group
     leader (SETSID runs before SETPGROUP, as in glibc: setsid then
     setpgid (0, 0) is EPERM from setpgid on a session leader).  */
  memset (&attr, 0, sizeof attr);
  attr.flags = IORING_SPAWN_ATTR_SETPGROUP;
  attr.pgid = 0x3ffffff0;
  st_clone_attr (&st_ring, &ca, &attr, 0);
  st_sh ("exit 0", 1);
  status = st_finish (2);
  KT_EXPECT_EQ ("setpgroup nonexistent group: the first SQE's CQE",
		st_res[1], -EPERM);
  ST_EXPECT_GONE ("setpgroup error: child gone", status);
  memset (&attr, 0, sizeof attr);
  attr.flags = IORING_SPAWN_ATTR_SETSID | IORING_SPAWN_ATTR_SETPGROUP;
  st_clone_attr (&st_ring, &ca, &attr, 0);
  st_sh ("exit 0", 1);
  status = st_finish (2);
  KT_EXPECT_EQ ("setsid + setpgroup: EPERM", st_res[1], -EPERM);
  ST_EXPECT_GONE ("setsid + setpgroup: child gone", status);

  /* Unknown attribute flags and a non-zero __resv: EINVAL at prep.  */
  memset (&attr, 0, sizeof attr);
  attr.flags = 1U << 8;
  st_clone_attr (&st_ring, &ca, &attr, 0);
  st_sh ("exit 0", 1);
  st_run (&st_ring, 2);
  KT_EXPECT_EQ ("unknown attribute flag", st_res[0], -EINVAL);
  memset (&attr, 0, sizeof attr);
  attr.__resv = 1;
  st_clone_attr (&st_ring, &ca, &attr, 0);
  st_sh ("exit 0", 1);
  st_run (&st_ring, 2);
  KT_EXPECT_EQ ("attribute __resv", st_res[0], -EINVAL);
  /* Size versioning (copy_struct_from_user): smaller than VER0 EINVAL,
     larger with a non-zero tail E2BIG, larger with a zero tail fine.  */
  static unsigned char big[IORING_SPAWN_ATTR_SIZE_VER0 + 8];
  memset (big, 0, sizeof big);
  struct io_uring_sqe *s2 = st_clone (&st_ring, &ca, 0);
  s2->addr2 = (uintptr_t) big;
  s2->optlen = IORING_SPAWN_ATTR_SIZE_VER0 - 8;
  st_sh ("exit 0", 1);
  st_run (&st_ring, 2);
  KT_EXPECT_EQ ("attr size below VER0", st_res[0], -EINVAL);
  big[IORING_SPAWN_ATTR_SIZE_VER0 + 4] = 1;
  s2 = st_clone (&st_ring, &ca, 0);
  s2->addr2 = (uintptr_t) big;
  s2->optlen = sizeof big;
  st_sh ("exit 0", 1);
  st_run (&st_ring, 2);
  KT_EXPECT_EQ ("attr larger, non-zero tail", st_res[0], -E2BIG);
  big[IORING_SPAWN_ATTR_SIZE_VER0 + 4] = 0;
  s2 = st_clone (&st_ring, &ca, 0);
  s2->addr2 = (uintptr_t) big;
  s2->optlen = sizeof big;
  st_sh ("exit 0", 1);
  status = st_finish (2);
  ST_EXPECT_STATUS ("attr larger, zero tail", status, 0);
  /* A size without a pointer.  */
  s2 = st_clone (&st_ring, &ca, 0);
  s2->optlen = IORING_SPAWN_ATTR_SIZE_VER0;
  st_sh ("exit 0", 1);
  st_run (&st_ring, 2);
  KT_EXPECT_EQ ("attr size without a pointer", st_res[0], -EINVAL);

  st_no_children ("no child left");
  char cmd[600];
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  if (system (cmd) != 0)
    kt_fail ("cleanup", "%s", cmd);
  return kt_exit ();
}
