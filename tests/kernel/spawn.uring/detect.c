/* Detection of the spawn series, v3: AT_IO_URING_SPAWN (52) in the
   auxiliary vector is a bitmask of IORING_SPAWN_F_* (CHAIN, FD_SNAPSHOT),
   absent on kernels without the series (v2's magic value 0x5350... and
   ABI version are gone, B-3); IORING_REGISTER_QUERY with
   IO_URING_QUERY_SPAWN (no ring) gives the same features, the accepted
   clone flags, attribute flags, actions, exec flags and
   IORING_SPAWN_MAX_OPS; the probe reports 65..67 (CLONE, EXEC,
   SPAWN_ACTION) supported, last_op 67, nothing after; v2's block
   128..140 and opcodes past 67 are -EINVAL.  A program exec'd with
   the series present sees the entry too.

   With --expect-absent (run on a kernel without the series, e.g. the
   host) it checks that detection reports "absent" and exits 0; it then
   makes no spawn submission at all.  --print-auxv prints the entry's
   value and exits (used by the tests that exec this program).  */

#include "st.h"

/* The value of TYPE in /proc/self/auxv, the kernel's own copy; -1 if
   there is no such entry.  */
static long long
proc_auxv (unsigned long type)
{
  unsigned long v[2];
  int fd = open ("/proc/self/auxv", O_RDONLY);
  if (fd < 0)
    return -2;
  long long found = -1;
  while (read (fd, v, sizeof v) == sizeof v && v[0] != AT_NULL)
    if (v[0] == type)
      found = v[1];
  close (fd);
  return found;
}

int
main (int argc, char **argv)
{
  int absent = argc > 1 && strcmp (argv[1], "--expect-absent") == 0;
  if (argc > 1 && strcmp (argv[1], "--print-auxv") == 0)
    {
      printf ("%#lx\n", st_spawn_features ());
      return 0;
    }

  unsigned long features = st_spawn_features ();
  int present = st_spawn_present ();
  printf ("spawn series: %s (AT_IO_URING_SPAWN %#lx)\n",
	  present ? "present" : "absent", features);
  if (absent)
    {
      KT_EXPECT_EQ ("no AT_IO_URING_SPAWN", features, 0);
      KT_EXPECT_EQ ("no AT_IO_URING_SPAWN in /proc/self/auxv",
		    proc_auxv (AT_IO_URING_SPAWN), -1);
      KT_EXPECT_EQ ("detection reports absent", present, 0);
      return kt_exit ();
    }

  KT_EXPECT_EQ ("AT_IO_URING_SPAWN has IORING_SPAWN_F_CHAIN",
		!!(features & IORING_SPAWN_F_CHAIN), 1);
  KT_EXPECT_EQ ("AT_IO_URING_SPAWN has no unknown bit",
		features & ~(unsigned long) (IORING_SPAWN_F_CHAIN
					     | IORING_SPAWN_F_FD_SNAPSHOT), 0);
  KT_EXPECT_EQ ("/proc/self/auxv agrees", proc_auxv (AT_IO_URING_SPAWN),
		(long long) features);

  /* IORING_REGISTER_QUERY, no ring.  */
  struct io_uring_query_spawn q;
  int ret = io_uring_query_spawn (&q);
  KT_EXPECT_EQ ("IO_URING_QUERY_SPAWN answers", ret, 0);
  if (ret == 0)
    {
      KT_EXPECT_EQ ("query: the auxv's features", q.features, features);
      KT_EXPECT_EQ ("query: max_ops", q.max_ops, IORING_SPAWN_MAX_OPS);
      KT_EXPECT_EQ ("query: the 7 actions", q.actions,
		    (1ULL << IORING_SPAWN_OP_LAST) - 1);
      KT_EXPECT_EQ ("query: IORING_EXEC_SEARCH",
		    !!(q.exec_flags & IORING_EXEC_SEARCH), 1);
      KT_EXPECT_EQ ("query: the attribute flags", q.attr_flags,
		    (IORING_SPAWN_ATTR_SETSIGIGN << 1) - 1);
      unsigned long long want = CLONE_PIDFD | CLONE_INTO_CGROUP
				| CLONE_AUTOREAP | CLONE_NNP
				| CLONE_PIDFD_AUTOKILL;
      KT_EXPECT_EQ ("query: the clone flags of the cover letter",
		    q.clone_flags & want, want);
    }
  struct io_uring_query_opcode qo;
  struct io_uring_query_hdr hdr;
  memset (&hdr, 0, sizeof hdr);
  memset (&qo, 0, sizeof qo);
  hdr.query_op = IO_URING_QUERY_OPCODES;
  hdr.query_data = (uintptr_t) &qo;
  hdr.size = sizeof qo;
  if (syscall (__NR_io_uring_register, -1, IORING_REGISTER_QUERY, &hdr, 0) == 0
      && hdr.result >= 0)
    KT_EXPECT_EQ ("query: 68 request opcodes", qo.nr_request_opcodes,
		  IORING_OP_SPAWN_ACTION + 1);
  else
    kt_fail ("IO_URING_QUERY_OPCODES", "%m / %d", hdr.result);

  st_init (0);
  /* No feature bit for the series (detection is the auxv and the
     query).  */
  KT_EXPECT_EQ ("no feature bit beyond mainline's",
		st_features & (1U << 31), 0);

  /* An unlinked CLONE is -EINVAL, whatever its flags.  */
  struct io_uring_sqe *sqe = st_sqe (&st_ring, IORING_OP_CLONE, 0);
  ST_SPAWN_FLAGS (sqe) = 1;
  st_run (&st_ring, 1);
  KT_EXPECT_EQ ("an unlinked CLONE is EINVAL", st_res[0], -EINVAL);
  st_no_children ("it creates no task");

  /* The probe: 65..67 supported, nothing after.  */
  KT_EXPECT_EQ ("IORING_OP_CLONE is 65", IORING_OP_CLONE, 65);
  KT_EXPECT_EQ ("IORING_OP_EXEC is 66", IORING_OP_EXEC, 66);
  KT_EXPECT_EQ ("IORING_OP_SPAWN_ACTION is 67", IORING_OP_SPAWN_ACTION, 67);
  struct io_uring_probe *probe = io_uring_get_probe_ring (&st_ring);
  if (probe == NULL)
    kt_fail ("probe", "io_uring_get_probe_ring failed");
  else
    {
      int ok = 1;
      for (int op = IORING_OP_CLONE; op <= IORING_OP_SPAWN_ACTION; op++)
	if (!io_uring_opcode_supported (probe, op))
	  ok = 0;
      KT_EXPECT_EQ ("probe: 65..67 supported", ok, 1);
      KT_EXPECT_EQ ("probe URING_CMD128 (64)",
		    io_uring_opcode_supported (probe, 64), 1);
      int after = 0;
      for (int op = IORING_OP_SPAWN_ACTION + 1; op < 256; op++)
	if (io_uring_opcode_supported (probe, op))
	  after = 1;
      KT_EXPECT_EQ ("probe: nothing past 67", after, 0);
      KT_EXPECT_EQ ("probe last_op", probe->last_op, IORING_OP_SPAWN_ACTION);
      io_uring_free_probe (probe);
    }

  /* v2's block and opcodes past the last fail cleanly.  */
  int ops[] = { IORING_OP_SPAWN_ACTION + 1, 100, 128, 134, 140, 255 };
  for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; i++)
    {
      char name[64];
      st_sqe (&st_ring, ops[i], 0);
      st_run (&st_ring, 1);
      snprintf (name, sizeof name, "opcode %d is EINVAL", ops[i]);
      KT_EXPECT_EQ (name, st_res[0], -EINVAL);
    }

  /* A program this one execs gets the entry as well.  */
  int p[2];
  if (pipe (p) != 0)
    kt_fail ("pipe", "%m");
  pid_t pid = fork ();
  if (pid == 0)
    {
      dup2 (p[1], 1);
      execl ("/proc/self/exe", "detect", "--print-auxv", (char *) NULL);
      _exit (127);
    }
  close (p[1]);
  char out[64];
  st_read_all (p[0], out, sizeof out);
  waitpid (pid, NULL, 0);
  char want[64];
  snprintf (want, sizeof want, "%#lx", features);
  ST_EXPECT_STR ("an exec'd program has AT_IO_URING_SPAWN", out, want);

  st_no_children ("no child left");
  return kt_exit ();
}
