/* Per-thread state internal to glibc.  Linux version.
   Copyright (C) 2020-2026 Free Software Foundation, Inc.
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

#ifndef _TLS_INTERNAL_STRUCT_H
#define _TLS_INTERNAL_STRUCT_H 1

#include <stddef.h>

/* The thread's io_uring ring for posix_spawn (spawni-uring.c).  */
struct spawn_ring
{
  char *mem;			/* Its rings and SQEs, or null.  */
  int owner;			/* The thread that made it.  */
  unsigned int index;		/* Its registered-ring index.  */
  unsigned int sq_tail;		/* Our copies of the SQ tail and */
  unsigned int cq_head;		/* the CQ head.  */
  unsigned short int sq_tail_off;	/* Offsets in MEM of the kernel's */
  unsigned short int cq_head_off;	/* SQ tail, CQ head, CQ tail and */
  unsigned short int cq_tail_off;	/* CQEs.  */
  unsigned short int cqes_off;
  int failed;			/* Making one failed in this thread.  */
};

struct tls_internal_t
{
  char *strsignal_buf;
  char *strerror_l_buf;
  /* The stack of posix_spawn's child (spawni.c).  */
  void *spawn_stack;
  size_t spawn_stack_size;
  int spawn_stack_prot;
  struct spawn_ring spawn_ring;
};

#endif
