/* io_uring spawn chains: the kernel interface posix_spawn uses.  Linux.
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

#ifndef _IO_URING_SPAWN_H
#define _IO_URING_SPAWN_H	1

/* The subset of the io_uring UAPI that posix_spawn needs, so that glibc
   builds with any kernel headers.  The values are checked against the
   kernel's headers by tst-io_uring_spawn-consts.py.  The kernel's own
   <linux/io_uring.h> must not be included with this file.  */

#include <elf.h>
#include <stdint.h>

#ifdef LINUX_IO_URING_H
# error "<io_uring_spawn.h> and <linux/io_uring.h> define the same types"
#endif

/* The bits of the auxiliary vector entry AT_IO_URING_SPAWN (<elf.h>) of
   a kernel that runs spawn chains for the process.  */
#define IORING_SPAWN_F_CHAIN		(1U << 0)
#define IORING_SPAWN_F_FD_SNAPSHOT	(1U << 1)

struct io_uring_sqe
{
  uint8_t opcode;
  uint8_t flags;
  uint16_t ioprio;
  int32_t fd;
  union
  {
    uint64_t off;
    uint64_t addr2;
    struct
    {
      uint32_t cmd_op;
      uint32_t __pad1;
    };
  };
  uint64_t addr;
  uint32_t len;
  uint32_t spawn_flags;
  uint64_t user_data;
  uint16_t buf_index;
  uint16_t personality;
  uint32_t optlen;
  uint64_t addr3;
  uint64_t __pad2[1];
};

struct io_uring_cqe
{
  uint64_t user_data;
  int32_t res;
  uint32_t flags;
};

struct io_sqring_offsets
{
  uint32_t head, tail, ring_mask, ring_entries, flags, dropped, array;
  uint32_t resv1;
  uint64_t user_addr;
};

struct io_cqring_offsets
{
  uint32_t head, tail, ring_mask, ring_entries, overflow, cqes, flags;
  uint32_t resv1;
  uint64_t user_addr;
};

struct io_uring_params
{
  uint32_t sq_entries;
  uint32_t cq_entries;
  uint32_t flags;
  uint32_t sq_thread_cpu;
  uint32_t sq_thread_idle;
  uint32_t features;
  uint32_t wq_fd;
  uint32_t resv[3];
  struct io_sqring_offsets sq_off;
  struct io_cqring_offsets cq_off;
};

#define IORING_SETUP_CQSIZE			(1U << 3)
#define IORING_SETUP_SINGLE_ISSUER		(1U << 12)
#define IORING_SETUP_DEFER_TASKRUN		(1U << 13)
#define IORING_SETUP_NO_MMAP			(1U << 14)
#define IORING_SETUP_REGISTERED_FD_ONLY		(1U << 15)
#define IORING_SETUP_NO_SQARRAY			(1U << 16)
#define IORING_SETUP_PRIVATE_SLOT		(1U << 21)

#define IORING_ENTER_GETEVENTS			(1U << 0)
#define IORING_ENTER_REGISTERED_RING		(1U << 4)

#define IOSQE_IO_LINK				(1U << 2)

/* IORING_OP_CLONE heads a link chain of IORING_OP_SPAWN_ACTIONs and
   IORING_OP_EXECs, which the new child runs, each as its system call
   would, until an EXEC succeeds.  */
#define IORING_OP_CLONE				65
#define IORING_OP_EXEC				66
#define IORING_OP_SPAWN_ACTION			67

/* IORING_OP_SPAWN_ACTION's sub-operations, in sqe->cmd_op.  */
enum
{
  IORING_SPAWN_OPEN,
  IORING_SPAWN_CLOSE,
  IORING_SPAWN_DUP2,
  IORING_SPAWN_CLOSE_RANGE,
  IORING_SPAWN_CHDIR,
  IORING_SPAWN_FCHDIR,
  IORING_SPAWN_TCSETPGRP,
};

/* IORING_OP_CLONE, sqe->addr2 (size in sqe->optlen): the attributes,
   applied in the child before its SPAWN_ACTIONs.  Signal N is bit
   N - 1.  */
struct io_uring_spawn_attr
{
  uint64_t flags;
  uint64_t sigmask;
  uint64_t sigdefault;
  uint64_t sigignore;
  int32_t pgid;
  int32_t sched_policy;
  int32_t sched_priority;
  uint32_t __resv;
};

#define IORING_SPAWN_ATTR_SETSID		(1U << 0)
#define IORING_SPAWN_ATTR_SETPGROUP		(1U << 1)
#define IORING_SPAWN_ATTR_RESETIDS		(1U << 2)
#define IORING_SPAWN_ATTR_SETSCHEDPARAM		(1U << 3)
#define IORING_SPAWN_ATTR_SETSCHEDULER		(1U << 4)
#define IORING_SPAWN_ATTR_SETSIGMASK		(1U << 5)
#define IORING_SPAWN_ATTR_SETSIGDEF		(1U << 6)

/* IORING_OP_CLONE, sqe->spawn_flags: the child's descriptor table holds
   only what its exec keeps and what its SPAWN_ACTIONs name.  */
#define IORING_CLONE_FD_SNAPSHOT		(1U << 0)
/* IORING_OP_EXEC, sqe->spawn_flags: a step of a PATH search.  */
#define IORING_EXEC_SEARCH			(1U << 0)
/* IORING_SPAWN_CLOSE, sqe->spawn_flags: no close error for a descriptor
   below RLIMIT_NOFILE.  */
#define IORING_SPAWN_CLOSE_IN_LIMIT		(1U << 0)

/* IORING_OP_CLONE's CQE: the chain failed and the child is gone.  */
#define IORING_CQE_F_SPAWN_GONE			(1U << 6)

#endif /* io_uring_spawn.h */
