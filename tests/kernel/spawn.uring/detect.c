/* Detection of the spawn series: IORING_FEAT_SPAWN, the IORING_CLONE_QUERY
   magic, the probe (block 128+ supported, the gap not) and -EINVAL for
   the gap and beyond.  With --expect-absent (run on a kernel without the
   series, e.g. the 6.18 host) it checks that detection reports
   "absent".  */

#include "st.h"

int
main (int argc, char **argv)
{
  int absent = argc > 1 && strcmp (argv[1], "--expect-absent") == 0;

  st_init (0);
  int feat = (st_features & IORING_FEAT_SPAWN) != 0;

  struct io_uring_sqe *sqe = st_sqe (&st_ring, IORING_OP_CLONE, 0);
  ST_SPAWN_FLAGS (sqe) = IORING_CLONE_QUERY;
  st_run (&st_ring, 1);
  int query = st_res[0];
  int present = feat && query == (int) IORING_SPAWN_MAGIC;

  printf ("spawn series: %s (feature bit %d, query res %d)\n",
	  present ? "present" : "absent", feat, query);
  if (absent)
    {
      KT_EXPECT_EQ ("feature bit absent", feat, 0);
      if (query == (int) IORING_SPAWN_MAGIC)
	kt_fail ("query absent", "got the magic");
      else
	kt_pass ("query absent");
      KT_EXPECT_EQ ("detection reports absent", present, 0);
      return kt_exit ();
    }

  KT_EXPECT_EQ ("IORING_FEAT_SPAWN", feat, 1);
  KT_EXPECT_EQ ("query magic", query, (int) IORING_SPAWN_MAGIC);
  KT_EXPECT_EQ ("query cflags", st_cflags[0], 0);
  KT_EXPECT_EQ ("magic version", query & 0xff, IORING_SPAWN_ABI_VERSION);
  st_no_children ("query creates no task");

  /* A linked query is invalid.  */
  sqe = st_sqe (&st_ring, IORING_OP_CLONE, 0);
  ST_SPAWN_FLAGS (sqe) = IORING_CLONE_QUERY;
  sqe->flags = IOSQE_IO_LINK;
  st_sqe (&st_ring, IORING_OP_NOP, 1);
  st_run (&st_ring, 2);
  KT_EXPECT_EQ ("linked query", st_res[0], -EINVAL);
  /* Query with other fields set.  */
  sqe = st_sqe (&st_ring, IORING_OP_CLONE, 0);
  ST_SPAWN_FLAGS (sqe) = IORING_CLONE_QUERY;
  sqe->len = 64;
  st_run (&st_ring, 1);
  KT_EXPECT_EQ ("query with len", st_res[0], -EINVAL);
  sqe = st_sqe (&st_ring, IORING_OP_CLONE, 0);
  ST_SPAWN_FLAGS (sqe) = IORING_CLONE_QUERY | 2;
  st_run (&st_ring, 1);
  KT_EXPECT_EQ ("query with unknown flag", st_res[0], -EINVAL);

  /* The probe: 128 and 129 supported, the gap and beyond not.  */
  struct io_uring_probe *probe = io_uring_get_probe_ring (&st_ring);
  if (probe == NULL)
    kt_fail ("probe", "io_uring_get_probe_ring failed");
  else
    {
      KT_EXPECT_EQ ("probe CLONE", io_uring_opcode_supported (probe, IORING_OP_CLONE), 1);
      KT_EXPECT_EQ ("probe EXEC", io_uring_opcode_supported (probe, IORING_OP_EXEC), 1);
      KT_EXPECT_EQ ("probe SPAWN_TCSETPGRP",
		    io_uring_opcode_supported (probe, IORING_OP_SPAWN_TCSETPGRP), 1);
      KT_EXPECT_EQ ("probe LISTEN", io_uring_opcode_supported (probe, IORING_OP_LISTEN), 1);
      int gap_ok = 1;
      for (int op = IORING_OP_LAST_MAINLINE; op < 128; op++)
	if (io_uring_opcode_supported (probe, op))
	  gap_ok = 0;
      KT_EXPECT_EQ ("probe gap unsupported", gap_ok, 1);
      KT_EXPECT_EQ ("probe last_op", probe->last_op, IORING_OP_SPAWN_TCSETPGRP);
      io_uring_free_probe (probe);
    }

  /* Gap opcodes and opcodes past the block fail cleanly.  */
  int ops[] = { IORING_OP_LAST_MAINLINE, 100, 127, IORING_OP_SPAWN_TCSETPGRP + 1, 255 };
  for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; i++)
    {
      char name[64];
      st_sqe (&st_ring, ops[i], 0);
      st_run (&st_ring, 1);
      snprintf (name, sizeof name, "opcode %d is EINVAL", ops[i]);
      KT_EXPECT_EQ (name, st_res[0], -EINVAL);
    }
  st_no_children ("no child left");
  return kt_exit ();
}
