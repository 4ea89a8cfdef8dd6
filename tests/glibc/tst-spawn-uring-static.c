/* Check that the threads of a static program that spawn leave no
   io_uring spawn ring behind.  Linux version.
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

/* Threads spawn, each once, and exit.  Where the kernel announces
   io_uring spawn chains each may make a ring, whose memory is the only
   MADV_WIPEONFORK memory of the process ("wf" in /proc/self/smaps) but
   what MAP_DROPPABLE ("dp") also marks so; the thread's exit must free
   it, with nothing else of a static program that frees it linked in.

   With DLOPEN the threads spawn through the libc.so of
   tst-spawn-uring-mod.so, a secondary namespace, which must make no
   ring at all: the thread's exit runs this program's libc.  */

#ifndef DLOPEN
# define DLOPEN 0
#endif

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include <support/check.h>
#include <support/support.h>
#include <support/xdlfcn.h>
#include <support/xstdio.h>
#include <support/xthread.h>

enum { threads = 8 };

/* The size in kB of the process's MADV_WIPEONFORK memory.  */
static long int
wipeonfork_kb (void)
{
  FILE *f = xfopen ("/proc/self/smaps", "re");
  char *line = NULL;
  size_t n = 0;
  long int size = 0, total = 0;
  while (getline (&line, &n, f) > 0)
    if (sscanf (line, "Size: %ld kB", &size) == 1)
      continue;
    else if (strncmp (line, "VmFlags:", 8) == 0
	     && strstr (line, " wf") != NULL && strstr (line, " dp") == NULL)
      total += size;
  free (line);
  xfclose (f);
  return total;
}

#if !DLOPEN
/* The module's mod_spawn, linked into this program.  */
# include "tst-spawn-uring-mod.c"
#endif

static int (*spawn_fn) (void);
static int rings;

static void *
thread (void *closure)
{
  TEST_COMPARE (spawn_fn (), 0);
  long int kb = wipeonfork_kb ();
  if (DLOPEN)
    TEST_COMPARE (kb, 0);
  rings += kb > 0;
  return NULL;
}

static int
do_test (void)
{
  support_need_proc ("the test reads /proc/self/smaps");
  printf ("info: AT_IO_URING_SPAWN %#lx\n", getauxval (AT_IO_URING_SPAWN));
#if DLOPEN
  void *handle = xdlopen ("tst-spawn-uring-mod.so", RTLD_NOW);
  spawn_fn = xdlsym (handle, "mod_spawn");
#else
  spawn_fn = mod_spawn;
#endif
  TEST_COMPARE (wipeonfork_kb (), 0);
  for (int i = 0; i < threads; i++)
    xpthread_join (xpthread_create (NULL, thread, NULL));
  printf ("info: %d of %d threads had a ring\n", rings, threads);
  /* Each thread makes one where the kernel runs chains for us, and none
     through a dlopen'ed libc or with the tunable at 0.  */
  const char *tunables = getenv ("GLIBC_TUNABLES");
  bool uring = (!DLOPEN && (getauxval (AT_IO_URING_SPAWN) & 1) != 0
		&& (tunables == NULL
		    || strstr (tunables, "glibc.spawn.io_uring=0") == NULL));
  TEST_COMPARE (rings, uring ? threads : 0);
  TEST_COMPARE (wipeonfork_kb (), 0);
#if DLOPEN
  xdlclose (handle);
#endif
  return 0;
}

#include <support/test-driver.c>
