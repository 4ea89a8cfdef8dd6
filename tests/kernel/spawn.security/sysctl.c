/* The administrator's switches and ring restrictions (issue 10), v3:

   - kernel.io_uring_disabled=2: io_uring_setup fails (EPERM) for
     everyone, so a C library falls back to its clone path; =1: fails
     for an unprivileged uid outside kernel.io_uring_group, works for
     root; the auxiliary vector follows it (v4, review M-7): a program
     exec'd while io_uring_disabled=2, or =1 by a uid that may not set up
     a ring, has no AT_IO_URING_SPAWN, so its C library makes no failing
     io_uring_setup to find out (v3 announced chains all the same);
   - v2's kernel.io_uring_spawn_disabled is gone (v3 adds no sysctl: a
     kernel that still has /proc/sys/kernel/io_uring_spawn_disabled
     FAILs "no io_uring_spawn_disabled sysctl"); its tests were dropped
     (BPF filters and task restrictions are the switches now:
     spawn.v3/bpf_filter.c);
   - IORING_REGISTER_RESTRICTIONS: a ring whose allowed opcodes omit the
     spawn operations refuses the CLONE (-EACCES on its SQE); one that
     allows CLONE but not EXEC fails the EXEC (-EACCES), the clone is
     cancelled; one that allows them all spawns.  No child in the
     refused cases.  */

#include "st.h"
#include <grp.h>

static const char dis[] = "/proc/sys/kernel/io_uring_disabled";
static const char spawn_dis[] = "/proc/sys/kernel/io_uring_spawn_disabled";
static char *argv_true[] = { "true", NULL };

static int
setup_errno (uid_t uid)
{
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      if (uid != 0 && (setgroups (0, NULL) != 0 || setresgid (uid, uid, uid) != 0
		       || setresuid (uid, uid, uid) != 0))
	_exit (200);
      struct io_uring r;
      int ret = io_uring_queue_init (4, &r, 0);
      if (ret == 0)
	io_uring_queue_exit (&r);
      _exit (-ret);
    }
  int status = st_wait (c);
  return status >= 0 && WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
auxv_of_exec (uid_t uid, char *out, size_t size)
{
  int p[2];
  if (pipe (p) != 0)
    return;
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      dup2 (p[1], 1);
      if (uid != 0 && (setgroups (0, NULL) != 0 || setresgid (uid, uid, uid) != 0
		       || setresuid (uid, uid, uid) != 0))
	_exit (200);
      execl ("/proc/self/exe", "sysctl", "--print-auxv", (char *) NULL);
      _exit (3);
    }
  close (p[1]);
  st_read_all (p[0], out, size);
  st_wait (c);
}

/* A ring with R_DISABLED, restricted to the opcodes in OPS (and
   IOSQE_IO_LINK), enabled.  */
static int
restricted_ring (struct io_uring *r, const int *ops, int nops)
{
  int ret = io_uring_queue_init (8, r, IORING_SETUP_R_DISABLED);
  if (ret < 0)
    return ret;
  struct io_uring_restriction res[32];
  memset (res, 0, sizeof res);
  int n = 0;
  for (int i = 0; i < nops; i++)
    {
      res[n].opcode = IORING_RESTRICTION_SQE_OP;
      res[n++].sqe_op = ops[i];
    }
  res[n].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
  res[n++].sqe_flags = IOSQE_IO_LINK;
  if (syscall (SYS_io_uring_register, r->ring_fd, IORING_REGISTER_RESTRICTIONS,
	       res, n) != 0
      || syscall (SYS_io_uring_register, r->ring_fd, IORING_REGISTER_ENABLE_RINGS,
		  NULL, 0) != 0)
    return -errno;
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--print-auxv") == 0)
    {
      printf ("%#lx\n", st_spawn_features ());
      return 0;
    }
  char old[16] = "0";
  st_read_file (dis, old, sizeof old);
  char out[64], want[64];
  snprintf (want, sizeof want, "%#lx", st_spawn_features ());

  /* kernel.io_uring_disabled.  */
  if (st_write_file (dis, "2") == 0)
    {
      KT_EXPECT_EQ ("io_uring_disabled=2: setup fails for root", setup_errno (0), EPERM);
      KT_EXPECT_EQ ("io_uring_disabled=2: and for a user", setup_errno (65534), EPERM);
      out[0] = '\0';
      auxv_of_exec (0, out, sizeof out);
      ST_EXPECT_STR ("io_uring_disabled=2: no AT_IO_URING_SPAWN after exec",
		     out, "0");
      st_write_file (dis, "1");
      KT_EXPECT_EQ ("io_uring_disabled=1: setup works for root", setup_errno (0), 0);
      KT_EXPECT_EQ ("io_uring_disabled=1: fails for a user outside io_uring_group",
		    setup_errno (65534), EPERM);
      out[0] = '\0';
      auxv_of_exec (0, out, sizeof out);
      ST_EXPECT_STR ("io_uring_disabled=1: AT_IO_URING_SPAWN for root", out,
		     want);
      out[0] = '\0';
      auxv_of_exec (65534, out, sizeof out);
      ST_EXPECT_STR ("io_uring_disabled=1: none for a user outside "
		     "io_uring_group", out, "0");
      st_write_file (dis, old);
      KT_EXPECT_EQ ("io_uring_disabled=0: works for a user", setup_errno (65534), 0);
    }
  else
    kt_unsupported ("io_uring_disabled", "%s: %m", dis);

  /* No kernel.io_uring_spawn_disabled in v3.  */
  KT_EXPECT_EQ ("no io_uring_spawn_disabled sysctl",
		access (spawn_dis, F_OK) != 0 && errno == ENOENT, 1);

  /* IORING_REGISTER_RESTRICTIONS.  */
  struct io_uring r;
  static const int nop_only[] = { IORING_OP_NOP };
  int ret = restricted_ring (&r, nop_only, 1);
  if (ret == 0)
    {
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&r, &ca, 0);
      st_exec (&r, "/bin/true", argv_true, st_envp, 1);
      st_run (&r, 2);
      KT_EXPECT_EQ ("restrictions without spawn ops: CLONE EACCES", st_res[0], -EACCES);
      KT_EXPECT_EQ ("restrictions without spawn ops: EXEC fails",
		    st_res[1] == -EACCES || st_res[1] == -ECANCELED, 1);
      st_no_children ("restrictions without spawn ops: no child");
      io_uring_queue_exit (&r);
    }
  else
    kt_fail ("restrictions", "%s", strerror (-ret));
  static const int clone_only[] = { IORING_OP_NOP, IORING_OP_CLONE };
  ret = restricted_ring (&r, clone_only, 2);
  if (ret == 0)
    {
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&r, &ca, 0);
      st_exec (&r, "/bin/true", argv_true, st_envp, 1);
      st_run (&r, 2);
      KT_EXPECT_EQ ("restrictions with CLONE only: CLONE cancelled", st_res[0], -ECANCELED);
      KT_EXPECT_EQ ("restrictions with CLONE only: EXEC EACCES", st_res[1], -EACCES);
      st_no_children ("restrictions with CLONE only: no child");
      io_uring_queue_exit (&r);
    }
  else
    kt_fail ("restrictions", "%s", strerror (-ret));
  static const int all[] = { IORING_OP_CLONE, IORING_OP_EXEC };
  ret = restricted_ring (&r, all, 2);
  if (ret == 0)
    {
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&r, &ca, 0);
      st_exec (&r, "/bin/true", argv_true, st_envp, 1);
      st_run (&r, 2);
      KT_EXPECT_EQ ("restrictions with CLONE and EXEC: spawns", st_res[0] > 0, 1);
      ST_EXPECT_STATUS ("restrictions with CLONE and EXEC: the child", st_fate (), 0);
      io_uring_queue_exit (&r);
    }
  else
    kt_fail ("restrictions", "%s", strerror (-ret));

  st_no_children ("no child left");
  return kt_exit ();
}
