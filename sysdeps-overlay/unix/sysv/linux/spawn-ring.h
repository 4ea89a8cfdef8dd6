/* posix_spawn's io_uring ring in the thread state.  Linux version.
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

#ifndef _SPAWN_RING_H
#define _SPAWN_RING_H 1

#include <bits/wordsize.h>

/* The kernel runs io_uring spawn chains for 64-bit programs only: the
   others (i686, x32) have neither the ring nor the code.  */
#if __WORDSIZE == 64
# define HAVE_SPAWN_URING 1
#else
# define HAVE_SPAWN_URING 0
#endif

#if HAVE_SPAWN_URING
/* The thread's io_uring ring for posix_spawn (spawni-uring.c).  */
struct spawn_ring
{
  char *mem;			/* Its rings, SQEs and PATH names, or null.  */
  unsigned int index;		/* Its registered-ring index.  */
  unsigned int sq_tail;		/* Our copies of the SQ tail and */
  unsigned int cq_head;		/* the CQ head.  */
  unsigned short int sq_tail_off;	/* Offsets in MEM of the kernel's */
  unsigned short int sq_entries_off;	/* SQ tail and ring size, CQ head, */
  unsigned short int cq_head_off;	/* CQ tail and CQEs.  */
  unsigned short int cq_tail_off;
  unsigned short int cqes_off;
  unsigned short int failed;	/* No ring again in this thread.  */
  unsigned short int backoff;	/* Spawns to leave to clone after the */
  unsigned short int backoff_left;	/* kernel refused; left of them.  */
};
#endif

#endif
