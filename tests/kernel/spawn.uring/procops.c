/* The process operations of a spawn chain: CHDIR, FCHDIR, SETSID,
   SETPGID, their error paths; the parent's cwd is untouched.  */

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
  struct io_uring_sqe *sqe;

  /* CHDIR.  */
  st_clone (&st_ring, &ca, 0);
  r = st_capture (&st_ring, 1, &w);
  sqe = st_sqe (&st_ring, IORING_OP_SPAWN_CHDIR, 2);
  sqe->addr = (uintptr_t) dir;
  sqe->flags = IOSQE_IO_LINK;
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
      sqe = st_sqe (&st_ring, IORING_OP_SPAWN_CHDIR, 1);
      sqe->addr = (uintptr_t) (cd[i].path ? cd[i].path : file);
      sqe->flags = IOSQE_IO_LINK;
      st_sh ("exit 0", 2);
      status = st_finish (3);
      KT_EXPECT_EQ (cd[i].name, st_res[1], -cd[i].err);
      snprintf (name, sizeof name, "%s: child gone", cd[i].name);
      ST_EXPECT_GONE (name, status);
    }

  /* FCHDIR.  */
  int dfd = open (dir, O_RDONLY | O_DIRECTORY);
  st_clone (&st_ring, &ca, 0);
  r = st_capture (&st_ring, 1, &w);
  sqe = st_sqe (&st_ring, IORING_OP_SPAWN_FCHDIR, 2);
  sqe->fd = dfd;
  sqe->flags = IOSQE_IO_LINK;
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
      sqe = st_sqe (&st_ring, IORING_OP_SPAWN_FCHDIR, 1);
      sqe->fd = fcd[i].fd < 0 ? ffd : fcd[i].fd;
      sqe->flags = IOSQE_IO_LINK;
      st_sh ("exit 0", 2);
      status = st_finish (3);
      KT_EXPECT_EQ (fcd[i].name, st_res[1], -fcd[i].err);
      char name[64];
      snprintf (name, sizeof name, "%s: child gone", fcd[i].name);
      ST_EXPECT_GONE (name, status);
    }

  /* SETSID: res is the new session id, the child's pid.  The child
     stays alive (reading a pipe) while the parent looks at it.  */
  int hold[2];
  if (pipe2 (hold, O_CLOEXEC) != 0)
    kt_fail ("pipe", "%m");
  st_clone (&st_ring, &ca, 0);
  st_dup2 (&st_ring, hold[0], 0, 1)->flags = IOSQE_IO_LINK;
  st_sqe (&st_ring, IORING_OP_SPAWN_SETSID, 2)->flags = IOSQE_IO_LINK;
  st_sh ("read x; exit 0", 3);
  st_run (&st_ring, 4);
  pid_t pid = st_res[0];
  KT_EXPECT_EQ ("setsid: res is the pid", st_res[2], pid);
  KT_EXPECT_EQ ("setsid: exec", st_res[3], 0);
  KT_EXPECT_EQ ("setsid: getsid (child)", getsid (pid), pid);
  KT_EXPECT_EQ ("setsid: getpgid (child)", getpgid (pid), pid);
  KT_EXPECT_EQ ("setsid: parent's session unchanged", getsid (0) != pid, 1);
  close (hold[1]);
  ST_EXPECT_STATUS ("setsid: child", st_wait (pid), 0);
  close (hold[0]);

  /* SETPGID 0: own group.  */
  if (pipe2 (hold, O_CLOEXEC) != 0)
    kt_fail ("pipe", "%m");
  st_clone (&st_ring, &ca, 0);
  st_dup2 (&st_ring, hold[0], 0, 1)->flags = IOSQE_IO_LINK;
  st_sqe (&st_ring, IORING_OP_SPAWN_SETPGID, 2)->flags = IOSQE_IO_LINK;
  st_sh ("read x; exit 0", 3);
  st_run (&st_ring, 4);
  pid = st_res[0];
  KT_EXPECT_EQ ("setpgid 0: res", st_res[2], 0);
  KT_EXPECT_EQ ("setpgid 0: getpgid (child)", getpgid (pid), pid);
  KT_EXPECT_EQ ("setpgid 0: same session", getsid (pid), getsid (0));
  pid_t group = pid;
  /* SETPGID into that group.  */
  st_clone (&st_ring, &ca, 0);
  sqe = st_sqe (&st_ring, IORING_OP_SPAWN_SETPGID, 1);
  sqe->off = group;
  sqe->flags = IOSQE_IO_LINK;
  st_dup2 (&st_ring, hold[0], 0, 2)->flags = IOSQE_IO_LINK;
  st_sh ("read x; exit 0", 3);
  st_run (&st_ring, 4);
  pid_t pid2 = st_res[0];
  KT_EXPECT_EQ ("setpgid group: res", st_res[1], 0);
  KT_EXPECT_EQ ("setpgid group: getpgid (child)", getpgid (pid2), group);
  close (hold[1]);
  ST_EXPECT_STATUS ("setpgid: child 1", st_wait (pid), 0);
  ST_EXPECT_STATUS ("setpgid: child 2", st_wait (pid2), 0);
  close (hold[0]);

  /* SETPGID errors: a group that does not exist; SETSID of a group
     leader.  */
  st_clone (&st_ring, &ca, 0);
  sqe = st_sqe (&st_ring, IORING_OP_SPAWN_SETPGID, 1);
  sqe->off = 0x3ffffff0;
  sqe->flags = IOSQE_IO_LINK;
  st_sh ("exit 0", 2);
  status = st_finish (3);
  KT_EXPECT_EQ ("setpgid nonexistent group", st_res[1], -EPERM);
  ST_EXPECT_GONE ("setpgid error: child gone", status);
  st_clone (&st_ring, &ca, 0);
  st_sqe (&st_ring, IORING_OP_SPAWN_SETPGID, 1)->flags = IOSQE_IO_LINK;
  st_sqe (&st_ring, IORING_OP_SPAWN_SETSID, 2)->flags = IOSQE_IO_LINK;
  st_sh ("exit 0", 3);
  status = st_finish (4);
  KT_EXPECT_EQ ("setsid of a group leader", st_res[2], -EPERM);
  ST_EXPECT_GONE ("setsid error: child gone", status);

  st_no_children ("no child left");
  char cmd[600];
  snprintf (cmd, sizeof cmd, "rm -rf %s", dir);
  if (system (cmd) != 0)
    kt_fail ("cleanup", "%s", cmd);
  return kt_exit ();
}
