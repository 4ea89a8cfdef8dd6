/* Check that posix_spawn leaves the application's registered rings alone.
   Linux version.
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

/* A thread that spawned through io_uring has a ring in its private
   registered-ring slot.  An application using registered rings of its
   own, with liburing and with IORING_REGISTER_RING_FDS at explicit
   offsets, must get what it gets with a C library that has no ring,
   with spawns in between:

   - its rings registered at every one of the 16 offsets, explicitly;
   - all 16 unregistered, after which every spawn still submits its
     chain;
   - a ring registered by liburing (the lowest free slot) with an SQE
     queued and not submitted: spawns do not submit it, and liburing
     then submits it and reaps its CQE.

   Every spawn must succeed.  A spawn counts as submitted if the thread's
   ring's SQ tail moved; where the kernel runs no chains, or the tunable
   is 0, none may.  */

#include <elf.h>
#include <errno.h>
#include <liburing.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tls.h>

#define TUNABLE_NAMESPACE spawn
#include <elf/dl-tunables.h>

#include <support/check.h>
#include <support/xunistd.h>

/* The auxiliary vector's bit for chains.  */
#define IORING_SPAWN_F_CHAIN 1

/* The application's registered-ring slots (Linux IO_RINGFD_REG_MAX).  */
enum { slots = 16 };

static const char true_path[] = "/bin/true";

static bool uring;

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

/* Spawn /bin/true N times; each must submit a chain where the kernel
   runs them, and none may elsewhere.  */
static void
spawn_true (int n, const char *when)
{
  char *args[] = { (char *) true_path, NULL };
  for (int i = 0; i < n; i++)
    {
      unsigned int tail = sq_tail ();
      pid_t pid;
      int status;
      TEST_COMPARE (posix_spawn (&pid, true_path, NULL, NULL, args, NULL),
		    0);
      TEST_COMPARE (xwaitpid (pid, &status, 0), pid);
      TEST_COMPARE (status, 0);
      if ((sq_tail () != tail) != uring)
	FAIL ("%s: spawn %d %s", when, i,
	      uring ? "did not submit" : "submitted");
    }
}

static int
register_slots (int fd, unsigned int op, int ring_fd)
{
  struct io_uring_rsrc_update upd[slots];
  for (int i = 0; i < slots; i++)
    upd[i] = (struct io_uring_rsrc_update) { .offset = i, .data = ring_fd };
  return syscall (__NR_io_uring_register, fd, op, upd, slots);
}

static int
do_test (void)
{
  uring = ((getauxval (AT_IO_URING_SPAWN) & IORING_SPAWN_F_CHAIN) != 0
	   && TUNABLE_GET (io_uring, int32_t, NULL) != 0);
  printf ("info: AT_IO_URING_SPAWN %#lx, glibc.spawn.io_uring=%d\n",
	  getauxval (AT_IO_URING_SPAWN),
	  (int) TUNABLE_GET (io_uring, int32_t, NULL));

  /* The thread's ring, where it makes one.  */
  spawn_true (1, "first spawn");

  struct io_uring app;
  int ret = io_uring_queue_init (8, &app, 0);
  if (ret < 0)
    {
      if (uring)
	FAIL_EXIT1 ("io_uring_queue_init: %s", strerror (-ret));
      FAIL_UNSUPPORTED ("io_uring_queue_init: %s", strerror (-ret));
    }

  /* The application's ring at every offset, explicitly.  */
  TEST_COMPARE (register_slots (app.ring_fd, IORING_REGISTER_RING_FDS,
				app.ring_fd), slots);
  spawn_true (4, "all 16 slots taken");
  TEST_COMPARE (register_slots (app.ring_fd, IORING_UNREGISTER_RING_FDS, 0),
		slots);
  spawn_true (4, "all 16 slots unregistered");

  /* liburing's registration takes the lowest free slot.  A queued SQE
     stays the application's to submit.  */
  TEST_COMPARE (io_uring_register_ring_fd (&app), 1);
  struct io_uring_sqe *sqe = io_uring_get_sqe (&app);
  TEST_VERIFY_EXIT (sqe != NULL);
  io_uring_prep_nop (sqe);
  sqe->user_data = 42;
  spawn_true (4, "liburing's registered ring");
  TEST_COMPARE (io_uring_sq_ready (&app), 1);
  TEST_COMPARE (*app.sq.khead, 0);
  TEST_COMPARE (io_uring_cq_ready (&app), 0);
  TEST_COMPARE (io_uring_submit_and_wait (&app, 1), 1);
  struct io_uring_cqe *cqe;
  TEST_COMPARE (io_uring_wait_cqe (&app, &cqe), 0);
  TEST_COMPARE (cqe->user_data, 42);
  TEST_COMPARE (cqe->res, 0);
  io_uring_cqe_seen (&app, cqe);
  TEST_COMPARE (io_uring_unregister_ring_fd (&app), 1);
  io_uring_queue_exit (&app);
  spawn_true (1, "after liburing's ring");
  return 0;
}

#include <support/test-driver.c>
