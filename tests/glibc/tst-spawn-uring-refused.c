/* Check what a thread's spawns cost after the kernel refused its chain
   through io_uring's own restrictions.  Linux version.
   Copyright (C) 2026 Free Software Foundation, Inc.
   This file is part of the GNU C Library.

   The GNU C Library is free software; you can redistribute it and/or
   modify it under the terms of the GNU Lesser General Public
   License as published by the Free Software Foundation; either
   version 2.1 of the License, or (at your option) any later version.

   The GNU C Library is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   Lesser General Public License for more details.

   You should have received a copy of the GNU Lesser General Public
   License along with the GNU C Library; if not, see
   <https://www.gnu.org/licenses/>.  */

/* Each case runs in a child of fork, which makes a ring of its own at
   its first spawn:

   - Task restrictions (IORING_REGISTER_RESTRICTIONS on fd -1) that allow
     IORING_OP_NOP alone, and a task BPF filter (IORING_REGISTER_BPF_FILTER
     on fd -1) that denies IORING_OP_CLONE: the kernel fails the clone
     with -EACCES.  The thread's next 1, 3, 7... spawns must take the
     clone path without a submission, as after -EOPNOTSUPP.

   Every spawn must succeed.  A submission is seen as a move of the
   ring's SQ tail, which glibc advances by what the kernel took.  Where the kernel runs no chains, or the
   tunable is 0, no spawn may submit.  */

#include <errno.h>
#include <linux/filter.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <io_uring_spawn.h>
#include <tls.h>

#define TUNABLE_NAMESPACE spawn
#include <elf/dl-tunables.h>

#include <support/check.h>
#include <support/xunistd.h>

/* The rest of the io_uring UAPI this test needs.  */
#define IORING_OP_NOP 0
#define IORING_REGISTER_RESTRICTIONS 11
#define IORING_REGISTER_BPF_FILTER 37
#define IORING_RESTRICTION_SQE_OP 1
struct test_task_restriction
{
  uint16_t flags;
  uint16_t nr_res;
  uint32_t resv[3];
  struct
  {
    uint16_t opcode;
    uint8_t sqe_op;
    uint8_t resv;
    uint32_t resv2[3];
  } res[1];
};
struct test_bpf
{
  uint16_t cmd_type;			/* IO_URING_BPF_CMD_FILTER, 1.  */
  uint16_t cmd_flags;
  uint32_t resv;
  uint32_t opcode;
  uint32_t flags;
  uint32_t filter_len;
  uint8_t pdu_size;
  uint8_t resv1[3];
  uint64_t filter_ptr;
  uint64_t resv2[5];
};

static const char true_path[] = "/bin/true";

/* The spawns a case makes in a row.  */
enum { spawns = 20 };

static bool uring;

static void
spawn_true (void)
{
  char *args[] = { (char *) true_path, NULL };
  pid_t pid;
  int status;
  TEST_COMPARE (posix_spawn (&pid, true_path, NULL, NULL, args, NULL), 0);
  TEST_COMPARE (xwaitpid (pid, &status, 0), pid);
  TEST_COMPARE (status, 0);
}

/* The thread's ring's SQ tail; 0 where glibc has no ring code.  */
static unsigned int
sq_tail (void)
{
#if HAVE_SPAWN_URING
  return THREAD_SELF->tls_state.spawn_ring.sq_tail;
#else
  return 0;
#endif
}

/* Bit I: spawn I submitted.  */
static unsigned int
spawns_submitted (void)
{
  unsigned int submitted = 0;
  for (int i = 0; i < spawns; i++)
    {
      unsigned int tail = sq_tail ();
      spawn_true ();
      if (sq_tail () != tail)
	submitted |= 1U << i;
    }
  return submitted;
}

static long int
io_uring_register (int fd, unsigned int op, void *arg, unsigned int n)
{
  return syscall (__NR_io_uring_register, fd, op, arg, n);
}

/* Refuse the thread's chains with io_uring's restrictions (BPF false)
   or a BPF filter (BPF true).  A kernel without them runs no chains
   either.  */
static void
refuse (bool bpf)
{
  TEST_COMPARE (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
  if (bpf)
    {
      struct sock_filter deny[] = { BPF_STMT (BPF_RET | BPF_K, 0) };
      struct test_bpf b =
	{
	  .cmd_type = 1,
	  .opcode = IORING_OP_CLONE,
	  .filter_len = 1,
	  .filter_ptr = (uintptr_t) deny,
	};
      if (io_uring_register (-1, IORING_REGISTER_BPF_FILTER, &b, 1) == 0)
	return;
      printf ("info: IORING_REGISTER_BPF_FILTER: %m\n");
    }
  else
    {
      struct test_task_restriction r =
	{
	  .nr_res = 1,
	  .res[0] = { .opcode = IORING_RESTRICTION_SQE_OP,
		      .sqe_op = IORING_OP_NOP },
	};
      if (io_uring_register (-1, IORING_REGISTER_RESTRICTIONS, &r, 1) == 0)
	return;
      printf ("info: IORING_REGISTER_RESTRICTIONS: %m\n");
    }
  if (uring)
    FAIL_EXIT1 ("the kernel runs chains but has no task %s",
		bpf ? "BPF filters" : "restrictions");
}

static void
case_refused (bool bpf)
{
  const char *what = bpf ? "BPF filter" : "task restrictions";
  refuse (bpf);
  unsigned int expected = 0;
  if (uring)
    for (int i = 0, backoff = 0; i < spawns;
	 backoff = 2 * backoff + 1, i += backoff + 1)
      expected |= 1U << i;
  unsigned int submitted = spawns_submitted ();
  printf ("info: %s: spawns that submitted %#x\n", what, submitted);
  if (submitted != expected)
    FAIL ("%s: spawns that submitted %#x, expected %#x", what, submitted,
	  expected);
}

static void
run (void (*fn) (bool), bool arg, const char *what)
{
  printf ("info: %s\n", what);
  pid_t pid = xfork ();
  if (pid == 0)
    {
      fn (arg);
      exit (support_record_failure_is_failed () ? 1 : 0);
    }
  int status;
  xwaitpid (pid, &status, 0);
  if (status != 0)
    FAIL ("%s: status %#x", what, status);
}

static int
do_test (void)
{
  /* As spawni-uring.c decides.  */
  uring = (_NSIG <= 65
	   && (getauxval (AT_IO_URING_SPAWN) & IORING_SPAWN_F_CHAIN) != 0
	   && TUNABLE_GET (io_uring, int32_t, NULL) != 0);
  printf ("info: AT_IO_URING_SPAWN %#lx, glibc.spawn.io_uring=%d\n",
	  getauxval (AT_IO_URING_SPAWN),
	  (int) TUNABLE_GET (io_uring, int32_t, NULL));

  run (case_refused, false, "task restrictions");
  run (case_refused, true, "task BPF filter");
  return 0;
}

#include <support/test-driver.c>
