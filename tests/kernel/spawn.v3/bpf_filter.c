/* The administrator's switches in v3 (cover letter, "Filters and
   restrictions"): IORING_REGISTER_RESTRICTIONS and the 7.0 io_uring BPF
   filters (IORING_REGISTER_BPF_FILTER, <linux/io_uring/bpf_filter.h>)
   see each spawn operation as what it is.  The review found (§3) that a
   chain's SPAWN_OPEN bypassed an OPENAT filter unless the filter set
   used DENY_REST, and (B-1) that filters ran after prep had copied
   argv/envp, so a filter denying EXEC did not prevent the copy.

   1. Ring restrictions (an R_DISABLED ring, IORING_REGISTER_
      RESTRICTIONS, then enabled) that allow EXEC, SPAWN_ACTION, OPENAT
      and NOP but not CLONE: the clone fails with -EACCES, no child.
      With CLONE allowed too, the same chain runs (control).
   2. Restrictions that allow CLONE, EXEC and SPAWN_ACTION but not
      OPENAT: a chain with a SPAWN_OPEN is refused (the OPEN's CQE
      -EACCES, the clone's an error, no child); without the OPEN it
      runs.  A kernel that treats SPAWN_OPEN as its own opcode only:
      the chain runs -- FAIL.
   3. Task restrictions (IORING_REGISTER_RESTRICTIONS with no ring,
      fd -1, after PR_SET_NO_NEW_PRIVS, in a child process) allowing
      only NOP: a ring made afterwards cannot spawn (-EACCES).
   4. A BPF filter on IORING_OP_OPENAT that denies O_WRONLY (returns 0
      when (open.flags & O_ACCMODE) == O_WRONLY): io_uring's own
      OPENAT with O_WRONLY gets -EACCES (control: the filter works), a
      chain's SPAWN_OPEN with O_WRONLY is refused (-EACCES, no child),
      one with O_RDONLY runs.  A kernel where the filter does not see
      SPAWN_OPEN (the §3 bypass): the O_WRONLY chain runs -- FAIL.
   5. A filter on IORING_OP_EXEC that denies everything, and an EXEC
      whose argv is a bad pointer ((char **) 8): the EXEC's CQE is
      -EACCES (the filter ran first), not -EFAULT (an argv copy was
      attempted before the filter, B-1), and no child.
   6. The CLONE pdu (cover letter: clone flags, exit signal, attribute
      flags): a filter on IORING_OP_CLONE that denies
      IORING_SPAWN_ATTR_SETSID in clone.attr_flags refuses a chain with
      that attribute (-EACCES, no child) and lets one without it run.
   7. The SPAWN_ACTION pdu (sub-op, descriptor, target, OPEN's mode,
      the action's flags): a filter on IORING_OP_SPAWN_ACTION that
      denies a DUP2 onto fd 2 refuses that chain and lets a DUP2 onto
      fd 5 run.  A DUP2 onto 2 + (1 << 32) fails at prep with -EBADF,
      as dup2 () onto a descriptor no int holds, before the filter
      runs (v4 review m-2): v3 showed the filter the target cut to 32
      bits, 2, and the chain was refused with -EACCES.
   The filters are registered on the ring (IORING_REGISTER_BPF_FILTER
   with the ring's fd), without IO_URING_BPF_FILTER_SZ_STRICT.  The
   exact result of a refused chain's CLONE is not spelt out in the
   cover letter ("cannot spawn"): any error is accepted for the clone,
   -EACCES is required for the refused SQE itself (it is what the
   restriction and filter code returns).  */

#include "st.h"
#include <linux/filter.h>
#include <linux/io_uring/bpf_filter.h>
#include <stddef.h>
#include <sys/prctl.h>

static char prog[] = "/tmp/st-v3-bpf-true";
static char wfile[] = "/tmp/st-v3-bpf-file";
static char *argv_true[] = { "true", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

static int
sys_register (int fd, unsigned op, void *arg, unsigned nr)
{
  long r = syscall (__NR_io_uring_register, fd, op, arg, nr);
  return r < 0 ? -errno : (int) r;
}

/* Set up RING disabled, register restrictions allowing the opcodes
   OPS (NOPS of them), enable it; 0 or -errno.  */
static int
restricted_ring (struct io_uring *ring, const int *ops, int nops)
{
  int ret = io_uring_queue_init (64, ring, IORING_SETUP_R_DISABLED);
  if (ret < 0)
    return ret;
  struct io_uring_restriction res[16];
  memset (res, 0, sizeof res);
  for (int i = 0; i < nops; i++)
    {
      res[i].opcode = IORING_RESTRICTION_SQE_OP;
      res[i].sqe_op = ops[i];
    }
  res[nops].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
  res[nops].sqe_flags = IOSQE_IO_LINK | IOSQE_IO_HARDLINK;
  /* Raw io_uring_register: Debian's liburing 2.3 declares
     io_uring_register_restrictions but does not export it.  */
  ret = sys_register (ring->ring_fd, IORING_REGISTER_RESTRICTIONS, res,
		      nops + 1);
  if (ret < 0)
    return ret;
  return sys_register (ring->ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
}

/* Run CLONE + (OPEN of PATH with FLAGS if PATH) + EXEC of the tiny
   true on RING; fill st_res; return the fate (st_fate).  */
static int
chain (struct io_uring *ring, const char *path, int flags)
{
  int n = 2;
  st_clone (ring, &ca, 0);
  if (path != NULL)
    {
      st_open (ring, path, flags, 10, 1);
      n = 3;
    }
  st_exec (ring, prog, argv_true, st_envp, n - 1);
  st_run (ring, n);
  return st_fate ();
}

/* The chain just run was refused: the SQE REFUSED got -EACCES, the
   clone an error, no child.  */
static void
expect_refused (const char *name, int refused)
{
  char n[160];
  snprintf (n, sizeof n, "%s: -EACCES", name);
  KT_EXPECT_EQ (n, st_res[refused], -EACCES);
  snprintf (n, sizeof n, "%s: the clone fails", name);
  if (st_res[0] < 0)
    kt_pass (n);
  else
    {
      kt_fail (n, "clone res %d", st_res[0]);
      if (st_res[0] > 0)
	st_wait (st_res[0]);
    }
  snprintf (n, sizeof n, "%s: no child", name);
  st_no_children (n);
}

static void
expect_ran (const char *name, int status)
{
  char n[160];
  snprintf (n, sizeof n, "%s: runs", name);
  if (st_res[0] > 0 && status == 0)
    kt_pass (n);
  else
    kt_fail (n, "clone res %d, status %#x", st_res[0], status);
}

/* Register on RING a filter for OPCODE made of the LEN instructions
   INSNS; 0 or -errno.  */
static int
add_filter (struct io_uring *ring, int opcode, struct sock_filter *insns,
	    unsigned len)
{
  struct io_uring_bpf b;
  memset (&b, 0, sizeof b);
  b.cmd_type = IO_URING_BPF_CMD_FILTER;
  b.filter.opcode = opcode;
  b.filter.filter_len = len;
  b.filter.filter_ptr = (uintptr_t) insns;
  return sys_register (ring->ring_fd, IORING_REGISTER_BPF_FILTER, &b, 1);
}

int
main (void)
{
  if (!st_tiny_true (prog))
    return kt_exit ();
  int fd = open (wfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0)
    close (fd);
  struct io_uring ring;

  /* 1. No CLONE in the restrictions.  */
  static const int no_clone[] = { IORING_OP_NOP, IORING_OP_OPENAT,
				  IORING_OP_EXEC, IORING_OP_SPAWN_ACTION };
  int ret = restricted_ring (&ring, no_clone, 4);
  if (ret < 0)
    kt_fail ("restricted ring", "%s", strerror (-ret));
  else
    {
      chain (&ring, NULL, 0);
      expect_refused ("restrictions without CLONE", 0);
      io_uring_queue_exit (&ring);
    }
  static const int all[] = { IORING_OP_OPENAT, IORING_OP_CLONE,
			     IORING_OP_EXEC, IORING_OP_SPAWN_ACTION };
  ret = restricted_ring (&ring, all, 4);
  if (ret < 0)
    kt_fail ("restricted ring", "%s", strerror (-ret));
  else
    {
      int s = chain (&ring, "/dev/null", O_RDONLY);
      expect_ran ("restrictions with CLONE, EXEC, SPAWN_ACTION, OPENAT", s);
      io_uring_queue_exit (&ring);
    }

  /* 2. No OPENAT.  */
  ret = restricted_ring (&ring, all + 1, 3);
  if (ret < 0)
    kt_fail ("restricted ring", "%s", strerror (-ret));
  else
    {
      chain (&ring, "/dev/null", O_RDONLY);
      expect_refused ("restrictions without OPENAT: SPAWN_OPEN", 1);
      int s = chain (&ring, NULL, 0);
      expect_ran ("restrictions without OPENAT: no SPAWN_OPEN", s);
      io_uring_queue_exit (&ring);
    }

  /* 3. Task restrictions.  */
  fflush (stdout);
  pid_t t = fork ();
  if (t == 0)
    {
      prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
      struct
      {
	struct io_uring_task_restriction h;
	struct io_uring_restriction r[1];
      } tr;
      memset (&tr, 0, sizeof tr);
      tr.h.nr_res = 1;
      tr.r[0].opcode = IORING_RESTRICTION_SQE_OP;
      tr.r[0].sqe_op = IORING_OP_NOP;
      ret = sys_register (-1, IORING_REGISTER_RESTRICTIONS, &tr, 1);
      if (ret < 0)
	{
	  kt_fail ("task restrictions", "%s", strerror (-ret));
	  _exit (1);
	}
      struct io_uring r2;
      if (io_uring_queue_init (64, &r2, 0) < 0)
	_exit (1);
      chain (&r2, NULL, 0);
      expect_refused ("task restrictions: NOP only", 0);
      _exit (kt_failures ? 1 : 0);
    }
  ST_EXPECT_STATUS ("task restrictions: the child process", st_wait (t), 0);

  /* 4. A filter on OPENAT that denies O_WRONLY.  */
  if (io_uring_queue_init (64, &ring, 0) < 0)
    return kt_exit ();
  struct sock_filter deny_wronly[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
	      offsetof (struct io_uring_bpf_ctx, open.flags)),
    BPF_STMT (BPF_ALU | BPF_AND | BPF_K, O_ACCMODE),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, O_WRONLY, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, 0),
    BPF_STMT (BPF_RET | BPF_K, 1),
  };
  ret = add_filter (&ring, IORING_OP_OPENAT, deny_wronly,
		    sizeof deny_wronly / sizeof deny_wronly[0]);
  if (ret < 0)
    kt_fail ("OPENAT filter", "%s", strerror (-ret));
  else
    {
      struct io_uring_sqe *sqe = io_uring_get_sqe (&ring);
      io_uring_prep_openat (sqe, AT_FDCWD, wfile, O_WRONLY | O_CLOEXEC, 0);
      sqe->user_data = 5;
      st_run (&ring, 1);
      KT_EXPECT_EQ ("OPENAT filter: io_uring's openat O_WRONLY", st_res[5],
		    -EACCES);
      if (st_res[5] >= 0)
	close (st_res[5]);
      chain (&ring, wfile, O_WRONLY);
      expect_refused ("OPENAT filter: SPAWN_OPEN O_WRONLY", 1);
      int s = chain (&ring, wfile, O_RDONLY);
      expect_ran ("OPENAT filter: SPAWN_OPEN O_RDONLY", s);
    }

  /* 5. A filter on EXEC that denies everything, before argv is read.  */
  struct sock_filter deny_all[] = { BPF_STMT (BPF_RET | BPF_K, 0) };
  ret = add_filter (&ring, IORING_OP_EXEC, deny_all, 1);
  if (ret < 0)
    kt_fail ("EXEC filter", "%s", strerror (-ret));
  else
    {
      st_clone (&ring, &ca, 0);
      st_exec (&ring, prog, argv_true, st_envp, 1)->addr2 = 8;
      st_run (&ring, 2);
      st_fate ();
      expect_refused ("EXEC filter: refused before any argv copy", 1);
    }
  io_uring_queue_exit (&ring);

  /* 6. The CLONE pdu: deny SETSID in the attribute flags.  */
  if (io_uring_queue_init (64, &ring, 0) < 0)
    return kt_exit ();
  struct sock_filter deny_setsid[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
	      offsetof (struct io_uring_bpf_ctx, clone.attr_flags)),
    BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, IORING_SPAWN_ATTR_SETSID, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, 0),
    BPF_STMT (BPF_RET | BPF_K, 1),
  };
  ret = add_filter (&ring, IORING_OP_CLONE, deny_setsid,
		    sizeof deny_setsid / sizeof deny_setsid[0]);
  if (ret < 0)
    kt_fail ("CLONE filter", "%s", strerror (-ret));
  else
    {
      static struct io_uring_spawn_attr sid
	= { .flags = IORING_SPAWN_ATTR_SETSID };
      st_clone_attr (&ring, &ca, &sid, 0);
      st_exec (&ring, prog, argv_true, st_envp, 1);
      st_run (&ring, 2);
      st_fate ();
      expect_refused ("CLONE filter: SETSID denied", 0);
      int s6 = chain (&ring, NULL, 0);
      expect_ran ("CLONE filter: no SETSID", s6);
    }
  io_uring_queue_exit (&ring);

  /* 7. The SPAWN_ACTION pdu: deny a DUP2 onto fd 2.  */
  if (io_uring_queue_init (64, &ring, 0) < 0)
    return kt_exit ();
  struct sock_filter deny_dup2_2[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
	      offsetof (struct io_uring_bpf_ctx, spawn_action.action)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, IORING_SPAWN_DUP2, 0, 3),
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
	      offsetof (struct io_uring_bpf_ctx, spawn_action.target)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, 0),
    BPF_STMT (BPF_RET | BPF_K, 1),
  };
  ret = add_filter (&ring, IORING_OP_SPAWN_ACTION, deny_dup2_2,
		    sizeof deny_dup2_2 / sizeof deny_dup2_2[0]);
  if (ret < 0)
    kt_fail ("SPAWN_ACTION filter", "%s", strerror (-ret));
  else
    {
      st_clone (&ring, &ca, 0);
      st_link (st_dup2 (&ring, 0, 2, 1));
      st_exec (&ring, prog, argv_true, st_envp, 2);
      st_run (&ring, 3);
      st_fate ();
      expect_refused ("SPAWN_ACTION filter: DUP2 onto 2 denied", 1);
      st_clone (&ring, &ca, 0);
      st_link (st_dup2 (&ring, 0, 5, 1));
      st_exec (&ring, prog, argv_true, st_envp, 2);
      st_run (&ring, 3);
      expect_ran ("SPAWN_ACTION filter: DUP2 onto 5", st_fate ());
      st_clone (&ring, &ca, 0);
      struct io_uring_sqe *d = st_dup2 (&ring, 0, 2, 1);
      d->addr3 = (1ULL << 32) + 2;
      d->flags = IOSQE_IO_LINK;
      st_exec (&ring, prog, argv_true, st_envp, 2);
      st_run (&ring, 3);
      KT_EXPECT_EQ ("SPAWN_ACTION filter: DUP2 onto 2 + (1 << 32): -EBADF "
		    "at prep, before the filter", st_res[1], -EBADF);
      if (st_res[0] > 0)
	st_fate ();
      st_no_children ("SPAWN_ACTION filter: DUP2 onto 2 + (1 << 32): "
		      "no child");
    }
  io_uring_queue_exit (&ring);

  unlink (prog);
  unlink (wfile);
  st_no_children ("no child left");
  return kt_exit ();
}
