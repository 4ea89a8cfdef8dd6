/* Malformed spawn SQEs fail with a clean errno and create no child:
   each reserved field of CLONE and EXEC, bad clone flags and signals,
   clone_args size versioning, bad pointers, wrong link placement, EXEC
   outside a chain, forbidden SQE flags, non-spawn ops in the chain, an
   unterminated chain, and rings that cannot spawn.  */

#include "st.h"

static char *argv_true[] = { "true", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

/* Queue CLONE (user_data 0) + EXEC /bin/true (1); return the CLONE.  */
static struct io_uring_sqe *
chain (struct io_uring_sqe **exec)
{
  struct io_uring_sqe *c = st_clone (&st_ring, &ca, 0);
  struct io_uring_sqe *e = st_exec (&st_ring, "/bin/true", argv_true, NULL, 1);
  if (exec != NULL)
    *exec = e;
  return c;
}

/* Run the queued chain of N SQEs, expect CLONE to fail with -ERR and no
   child.  */
static void
expect_clone (const char *name, int n, int err)
{
  char buf[128];
  st_run (&st_ring, n);
  snprintf (buf, sizeof buf, "%s: clone res", name);
  KT_EXPECT_EQ (buf, st_res[0], -err);
  if (st_res[0] > 0)
    st_wait (st_res[0]);
  snprintf (buf, sizeof buf, "%s: rest cancelled", name);
  KT_EXPECT_EQ (buf, st_res[1], -ECANCELED);
  snprintf (buf, sizeof buf, "%s: no child", name);
  st_no_children (buf);
}

/* Run the queued chain, expect the EXEC's prep to fail with -ERR (the
   CLONE is then cancelled) and no child.  */
static void
expect_exec_prep (const char *name, int err)
{
  char buf[128];
  st_run (&st_ring, 2);
  snprintf (buf, sizeof buf, "%s: exec res", name);
  KT_EXPECT_EQ (buf, st_res[1], -err);
  snprintf (buf, sizeof buf, "%s: clone cancelled", name);
  KT_EXPECT_EQ (buf, st_res[0], -ECANCELED);
  if (st_res[0] > 0)
    st_wait (st_res[0]);
  snprintf (buf, sizeof buf, "%s: no child", name);
  st_no_children (buf);
}

int
main (void)
{
  st_init (0);
  struct io_uring_sqe *c, *e;

  /* Reserved fields of CLONE.  */
  c = chain (NULL); c->fd = 3; expect_clone ("clone fd", 2, EINVAL);
  c = chain (NULL); c->off = 1; expect_clone ("clone off", 2, EINVAL);
  c = chain (NULL); c->buf_index = 1; expect_clone ("clone buf_index", 2, EINVAL);
  c = chain (NULL); c->file_index = 1; expect_clone ("clone file_index", 2, EINVAL);
  c = chain (NULL); c->addr3 = 1; expect_clone ("clone addr3", 2, EINVAL);
  c = chain (NULL); c->__pad2[0] = 1; expect_clone ("clone pad2", 2, EINVAL);
  c = chain (NULL); c->ioprio = 1; expect_clone ("clone ioprio", 2, EINVAL);
  c = chain (NULL); ST_SPAWN_FLAGS (c) = 4; expect_clone ("clone unknown spawn_flags", 2, EINVAL);
  c = chain (NULL); c->flags |= IOSQE_ASYNC; expect_clone ("clone IOSQE_ASYNC", 2, EINVAL);
  /* (With CQE_SKIP_SUCCESS on the head, io_uring skips the CQEs of the
     cancelled links: only the clone's CQE arrives.)  */
  c = chain (NULL); c->flags |= IOSQE_CQE_SKIP_SUCCESS;
  st_run (&st_ring, 1);
  KT_EXPECT_EQ ("clone IOSQE_CQE_SKIP_SUCCESS", st_res[0], -EINVAL);
  st_no_children ("clone IOSQE_CQE_SKIP_SUCCESS: no child");
  c = chain (NULL); c->flags |= IOSQE_FIXED_FILE; expect_clone ("clone IOSQE_FIXED_FILE", 2, EINVAL);

  /* clone_args contents.  */
  static const struct { const char *name; unsigned long long flags; } bad[] = {
    { "CLONE_VM", CLONE_VM }, { "CLONE_FILES", CLONE_FILES },
    { "CLONE_FS", CLONE_FS }, { "CLONE_SIGHAND", CLONE_SIGHAND | CLONE_VM },
    { "CLONE_THREAD", CLONE_THREAD | CLONE_SIGHAND | CLONE_VM },
    { "CLONE_VFORK", CLONE_VFORK }, { "CLONE_NEWNS", CLONE_NEWNS },
    { "CLONE_PARENT", CLONE_PARENT }, { "CLONE_SETTLS", CLONE_SETTLS },
    { "bit 40", 1ULL << 40 },
  };
  for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      char buf[64];
      ca.flags = bad[i].flags;
      chain (NULL);
      snprintf (buf, sizeof buf, "flag %s", bad[i].name);
      expect_clone (buf, 2, EINVAL);
    }
  ca.flags = 0;
  ca.exit_signal = 65;
  chain (NULL); expect_clone ("exit_signal 65", 2, EINVAL);
  ca.exit_signal = 1ULL << 32 | SIGCHLD;
  chain (NULL); expect_clone ("exit_signal high bits", 2, EINVAL);
  ca.exit_signal = SIGCHLD;
  ca.stack = 4096;
  ca.stack_size = 4096;
  chain (NULL); expect_clone ("stack", 2, EINVAL);
  ca.stack = ca.stack_size = 0;
  ca.tls = 1;
  chain (NULL); expect_clone ("tls", 2, EINVAL);
  ca.tls = 0;
  ca.pidfd = 8;
  chain (NULL); expect_clone ("pidfd without CLONE_PIDFD", 2, EINVAL);
  ca.pidfd = 0;
  ca.flags = CLONE_PIDFD;
  ca.pidfd = 8;
  chain (NULL); expect_clone ("CLONE_PIDFD bad pointer", 2, EFAULT);
  ca.flags = 0;
  ca.pidfd = 0;

  /* Size versioning.  */
  c = chain (NULL); c->len = 32; expect_clone ("size below VER0", 2, EINVAL);
  c = chain (NULL); c->len = 0; expect_clone ("size 0", 2, EINVAL);
  c = chain (NULL); c->len = 8192; expect_clone ("size above a page", 2, E2BIG);
  {
    /* Larger than the kernel's struct: zero tail accepted, non-zero
       tail E2BIG.  */
    unsigned char big[256];
    memset (big, 0, sizeof big);
    memcpy (big, &ca, sizeof ca);
    c = chain (NULL);
    c->addr = (uintptr_t) big;
    c->len = sizeof big;
    st_run (&st_ring, 2);
    if (st_res[0] > 0)
      {
	kt_pass ("bigger size, zero tail");
	ST_EXPECT_STATUS ("bigger size: child ran", st_wait (st_res[0]), 0);
      }
    else
      kt_fail ("bigger size, zero tail", "clone res %d", st_res[0]);
    big[200] = 1;
    c = chain (NULL);
    c->addr = (uintptr_t) big;
    c->len = sizeof big;
    expect_clone ("bigger size, non-zero tail", 2, E2BIG);
  }
  c = chain (NULL); c->addr = 8; expect_clone ("clone_args EFAULT", 2, EFAULT);

  /* Link placement.  */
  c = st_clone (&st_ring, &ca, 0);
  c->flags = 0;
  st_run (&st_ring, 1);
  KT_EXPECT_EQ ("unlinked clone", st_res[0], -EINVAL);
  st_no_children ("unlinked clone: no child");

  st_sqe (&st_ring, IORING_OP_NOP, 2)->flags = IOSQE_IO_LINK;
  chain (NULL);
  st_run (&st_ring, 3);
  KT_EXPECT_EQ ("clone inside a chain", st_res[0], -EINVAL);
  st_no_children ("clone inside a chain: no child");

  /* An unterminated chain (the last SQE still has IOSQE_IO_LINK) would
     be punted to io-wq: refused.  */
  chain (&e);
  e->flags = IOSQE_IO_LINK;
  st_run (&st_ring, 2);
  KT_EXPECT_EQ ("unterminated chain", st_res[0], -EINVAL);
  KT_EXPECT_EQ ("unterminated chain: exec cancelled", st_res[1], -ECANCELED);
  st_no_children ("unterminated chain: no child");

  /* A non-spawn op in the chain: the clone fails, nothing runs.  */
  st_clone (&st_ring, &ca, 0);
  st_sqe (&st_ring, IORING_OP_NOP, 1);
  expect_clone ("NOP in the chain", 2, EINVAL);

  /* A hard-linked CLONE that fails must not let the chain run in the
     parent.  */
  ca.exit_signal = 99;
  c = chain (NULL);
  c->flags = IOSQE_IO_HARDLINK;
  expect_clone ("failed hard-linked clone", 2, EINVAL);
  ca.exit_signal = SIGCHLD;

  /* EXEC outside a chain, after a non-CLONE head.  */
  st_exec (&st_ring, "/bin/true", argv_true, NULL, 0);
  st_run (&st_ring, 1);
  KT_EXPECT_EQ ("exec alone", st_res[0], -EINVAL);
  st_sqe (&st_ring, IORING_OP_NOP, 0)->flags = IOSQE_IO_LINK;
  st_exec (&st_ring, "/bin/true", argv_true, NULL, 1);
  st_run (&st_ring, 2);
  KT_EXPECT_EQ ("exec after NOP", st_res[1], -EINVAL);
  st_no_children ("exec outside a chain: no child");

  /* Reserved fields and bad flags of EXEC.  */
  chain (&e); e->len = 1; expect_exec_prep ("exec len", EINVAL);
  chain (&e); e->buf_index = 1; expect_exec_prep ("exec buf_index", EINVAL);
  chain (&e); e->file_index = 1; expect_exec_prep ("exec file_index", EINVAL);
  chain (&e); e->__pad2[0] = 1; expect_exec_prep ("exec pad2", EINVAL);
  chain (&e); ST_SPAWN_FLAGS (e) = AT_REMOVEDIR; expect_exec_prep ("exec bad flags", EINVAL);
  chain (&e); e->flags |= IOSQE_ASYNC; expect_exec_prep ("exec IOSQE_ASYNC", EINVAL);
  chain (&e); e->flags |= IOSQE_FIXED_FILE; expect_exec_prep ("exec IOSQE_FIXED_FILE", EINVAL);

  io_uring_queue_exit (&st_ring);

  /* Rings that cannot spawn.  */
  static const struct { const char *name; unsigned flags; } rings[] = {
    { "SQPOLL ring", IORING_SETUP_SQPOLL },
    { "IOPOLL ring", IORING_SETUP_IOPOLL },
    { "DEFER_TASKRUN ring", IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN },
  };
  for (unsigned i = 0; i < sizeof rings / sizeof rings[0]; i++)
    {
      struct io_uring_params p;
      memset (&p, 0, sizeof p);
      p.flags = rings[i].flags;
      int ret = io_uring_queue_init_params (8, &st_ring, &p);
      if (ret < 0)
	{
	  kt_unsupported (rings[i].name, "setup: %s", strerror (-ret));
	  continue;
	}
      chain (NULL);
      st_run (&st_ring, 2);
      KT_EXPECT_EQ (rings[i].name, st_res[0], -EINVAL);
      st_no_children (rings[i].name);
      io_uring_queue_exit (&st_ring);
    }
  return kt_exit ();
}
