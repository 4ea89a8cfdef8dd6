/* posix_spawn through io_uring spawn chains.  Linux version.
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

#ifndef _SPAWNI_URING_H
#define _SPAWNI_URING_H	1

#include <spawn.h>
#include <tls-internal-struct.h>

#if HAVE_SPAWN_URING
/* Spawn as __spawni does, with one io_uring submission.  Return what
   posix_spawn returns, or -1, before any process is created, where the
   kernel or the request cannot take the spawn this way; the caller then
   spawns with clone.  */
extern int __spawni_uring (int *pid, const char *file,
			   const posix_spawn_file_actions_t *file_actions,
			   const posix_spawnattr_t *attrp, char *const argv[],
			   char *const envp[], int xflags) attribute_hidden;

/* Free the calling thread's ring, if it has one; called when the thread
   exits.  */
extern void __spawni_uring_freeres (void) attribute_hidden;
#else
static inline int
__spawni_uring (int *pid, const char *file,
		const posix_spawn_file_actions_t *file_actions,
		const posix_spawnattr_t *attrp, char *const argv[],
		char *const envp[], int xflags)
{
  return -1;
}
#endif

#endif /* spawni-uring.h */
