/* Detection of the spawn series (ABI 3): AT_IO_URING_SPAWN in the
   auxiliary vector carries IORING_SPAWN_MAGIC; no feature bit and no
   query opcode any more (v1's IORING_FEAT_SPAWN and IORING_CLONE_QUERY
   are gone); the probe reports 128..140 supported and the gap 58..127
   not; opcodes in the gap and past the block are -EINVAL.  A program
   exec'd with the series present sees the entry too (the kernel puts it
   in every native ELF program's vector).

   With --expect-absent (run on a kernel without the series, e.g. the
   6.18 host by build.sh check) it checks that detection reports
   "absent" and exits 0; it then makes no spawn submission at all (the
   numbers 128.. mean nothing there).  --print-auxv prints the entry's
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
      printf ("%#llx\n", (unsigned long long) getauxval (AT_IO_URING_SPAWN));
      return 0;
    }

  unsigned long magic = getauxval (AT_IO_URING_SPAWN);
  int present = magic == IORING_SPAWN_MAGIC;
  printf ("spawn series: %s (AT_IO_URING_SPAWN %#lx)\n",
	  present ? "present" : "absent", magic);
  if (absent)
    {
      KT_EXPECT_EQ ("no AT_IO_URING_SPAWN", magic, 0);
      KT_EXPECT_EQ ("no AT_IO_URING_SPAWN in /proc/self/auxv",
		    proc_auxv (AT_IO_URING_SPAWN), -1);
      KT_EXPECT_EQ ("detection reports absent", present, 0);
      return kt_exit ();
    }

  KT_EXPECT_EQ ("AT_IO_URING_SPAWN is the magic", magic, IORING_SPAWN_MAGIC);
  KT_EXPECT_EQ ("the magic's tag", magic & IORING_SPAWN_MAGIC_MASK,
		IORING_SPAWN_MAGIC_TAG);
  KT_EXPECT_EQ ("ABI version 3", magic & 0xff, 3);
  KT_EXPECT_EQ ("/proc/self/auxv agrees", proc_auxv (AT_IO_URING_SPAWN),
		(long long) IORING_SPAWN_MAGIC);

  st_init (0);
  /* v1's IORING_FEAT_SPAWN (1U << 31) is gone: no feature bit past
     mainline 6.12's last (IORING_FEAT_MIN_TIMEOUT).  */
  KT_EXPECT_EQ ("no feature bit beyond mainline's",
		st_features & ~((IORING_FEAT_MIN_TIMEOUT << 1) - 1), 0);

  /* v1's query (an unlinked CLONE with spawn_flags 1) is gone: an
     unlinked CLONE is -EINVAL, whatever its flags.  */
  struct io_uring_sqe *sqe = st_sqe (&st_ring, IORING_OP_CLONE, 0);
  ST_SPAWN_FLAGS (sqe) = 1;
  st_run (&st_ring, 1);
  KT_EXPECT_EQ ("v1's CLONE query is EINVAL", st_res[0], -EINVAL);
  st_no_children ("the query creates no task");

  /* The probe: 128..140 supported, the gap not.  */
  struct io_uring_probe *probe = io_uring_get_probe_ring (&st_ring);
  if (probe == NULL)
    kt_fail ("probe", "io_uring_get_probe_ring failed");
  else
    {
      int block_ok = 1;
      for (int op = IORING_OP_CLONE; op <= IORING_OP_SPAWN_TCSETPGRP; op++)
	if (!io_uring_opcode_supported (probe, op))
	  block_ok = 0;
      KT_EXPECT_EQ ("probe: 128..140 supported", block_ok, 1);
      KT_EXPECT_EQ ("probe LISTEN (57)", io_uring_opcode_supported (probe, 57), 1);
      int gap_ok = 1;
      for (int op = 58; op < 128; op++)
	if (io_uring_opcode_supported (probe, op))
	  gap_ok = 0;
      KT_EXPECT_EQ ("probe: 58..127 unsupported", gap_ok, 1);
      KT_EXPECT_EQ ("probe last_op", probe->last_op, IORING_OP_SPAWN_TCSETPGRP);
      io_uring_free_probe (probe);
    }
  KT_EXPECT_EQ ("IORING_OP_LAST_MAINLINE is 58", IORING_OP_LAST_MAINLINE, 58);
  KT_EXPECT_EQ ("IORING_OP_SPAWN_TCSETPGRP is 140", IORING_OP_SPAWN_TCSETPGRP, 140);

  /* Gap opcodes and opcodes past the block fail cleanly.  */
  int ops[] = { 58, 100, 127, IORING_OP_SPAWN_TCSETPGRP + 1, 255 };
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
  snprintf (want, sizeof want, "%#x", IORING_SPAWN_MAGIC);
  ST_EXPECT_STR ("an exec'd program has AT_IO_URING_SPAWN", out, want);

  st_no_children ("no child left");
  return kt_exit ();
}
