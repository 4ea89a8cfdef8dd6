/* Check that a close file action whose flush fails is no error.
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

/* posix_spawn_file_actions_addclose ignores every close error for a
   descriptor below RLIMIT_NOFILE: a file on NFS, FUSE or CIFS whose
   flush fails (EIO, ENOSPC, EINTR) is closed all the same.  Both paths
   must spawn, the io_uring one with IORING_SPAWN_CLOSE_IN_LIMIT.

   A FUSE file system served by a thread of this test has one file,
   whose every flush fails with EIO.  The descriptor is not close-on-exec,
   so the child has it (with or without the kernel's descriptor
   snapshot) and its close flushes.  The test needs root and /dev/fuse;
   without them it is UNSUPPORTED.  */

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <support/check.h>
#include <support/support.h>
#include <support/temp_file.h>
#include <support/xthread.h>
#include <support/xunistd.h>

static int fuse_fd;
static atomic_int flushes;

enum { file_ino = 2 };

static void
attr_fill (struct fuse_attr *a, uint64_t ino)
{
  memset (a, 0, sizeof *a);
  a->ino = ino;
  a->mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
  a->nlink = 1;
}

static void
reply (uint64_t unique, int error, const void *body, size_t len)
{
  char buf[sizeof (struct fuse_out_header) + 256];
  struct fuse_out_header h =
    {
      .len = sizeof h + (error == 0 ? len : 0),
      .error = error,
      .unique = unique,
    };
  TEST_VERIFY_EXIT (len <= sizeof buf - sizeof h);
  memcpy (buf, &h, sizeof h);
  if (error == 0)
    memcpy (buf + sizeof h, body, len);
  /* ENOENT: the request was interrupted meanwhile.  */
  if (write (fuse_fd, buf, h.len) != h.len && errno != ENOENT)
    FAIL_EXIT1 ("write (/dev/fuse): %m");
}

static void *
serve (void *closure)
{
  static char buf[FUSE_MIN_READ_BUFFER + 65536];
  while (true)
    {
      ssize_t n = read (fuse_fd, buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
	continue;
      if (n < 0)
	/* ENODEV: unmounted.  */
	return NULL;
      struct fuse_in_header in;
      TEST_VERIFY_EXIT (n >= sizeof in);
      memcpy (&in, buf, sizeof in);
      const char *arg = buf + sizeof in;
      switch (in.opcode)
	{
	case FUSE_INIT:
	  {
	    struct fuse_init_in init;
	    memcpy (&init, arg, sizeof init);
	    struct fuse_init_out out =
	      {
		.major = FUSE_KERNEL_VERSION,
		.minor = FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = init.max_readahead,
		.max_background = 16,
		.congestion_threshold = 12,
		.max_write = 4096,
		.time_gran = 1,
	      };
	    reply (in.unique, 0, &out, sizeof out);
	  }
	  break;
	case FUSE_LOOKUP:
	  if (in.nodeid == FUSE_ROOT_ID && strcmp (arg, "f") == 0)
	    {
	      struct fuse_entry_out out = { .nodeid = file_ino };
	      attr_fill (&out.attr, file_ino);
	      reply (in.unique, 0, &out, sizeof out);
	    }
	  else
	    reply (in.unique, -ENOENT, NULL, 0);
	  break;
	case FUSE_GETATTR:
	  {
	    struct fuse_attr_out out = { 0 };
	    attr_fill (&out.attr, in.nodeid);
	    reply (in.unique, 0, &out, sizeof out);
	  }
	  break;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
	  {
	    struct fuse_open_out out = { .fh = 1 };
	    reply (in.unique, 0, &out, sizeof out);
	  }
	  break;
	case FUSE_FLUSH:
	  atomic_fetch_add (&flushes, 1);
	  reply (in.unique, -EIO, NULL, 0);
	  break;
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	  reply (in.unique, 0, NULL, 0);
	  break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
	  /* No reply.  */
	  break;
	default:
	  reply (in.unique, -ENOSYS, NULL, 0);
	}
    }
}

static int
do_test (void)
{
  char *dir = support_create_temp_directory ("tst-spawn-uring-close-");
  fuse_fd = open ("/dev/fuse", O_RDWR | O_CLOEXEC);
  if (fuse_fd < 0)
    FAIL_UNSUPPORTED ("/dev/fuse: %m");
  char *opts = xasprintf ("fd=%d,rootmode=40000,user_id=%d,group_id=%d",
			  fuse_fd, (int) getuid (), (int) getgid ());
  if (mount ("tst-spawn-uring-close", dir, "fuse", MS_NOSUID | MS_NODEV,
	     opts) != 0)
    FAIL_UNSUPPORTED ("mount (fuse): %m");
  free (opts);
  pthread_t server = xpthread_create (NULL, serve, NULL);

  char *path = xasprintf ("%s/f", dir);
  /* Not close-on-exec: the child has it.  */
  int fd = xopen (path, O_RDONLY, 0);

  /* The file system fails every flush.  */
  int fd2 = xdup (fd);
  errno = 0;
  TEST_COMPARE (close (fd2), -1);
  TEST_COMPARE (errno, EIO);
  TEST_COMPARE (atomic_load (&flushes), 1);

  posix_spawn_file_actions_t fa;
  TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
  TEST_COMPARE (posix_spawn_file_actions_addclose (&fa, fd), 0);
  char *args[] = { (char *) "/bin/true", NULL };
  pid_t pid;
  int ret = posix_spawn (&pid, args[0], &fa, NULL, args, NULL);
  if (ret != 0)
    /* Nothing to wait for; the file system is unmounted below.  */
    FAIL ("posix_spawn: %s", strerrorname_np (ret));
  else
    {
      int status;
      TEST_COMPARE (waitpid (pid, &status, 0), pid);
      TEST_COMPARE (status, 0);
    }
  /* The child's close flushed, and it failed.  */
  TEST_COMPARE (atomic_load (&flushes), 2);
  TEST_COMPARE (posix_spawn_file_actions_destroy (&fa), 0);

  TEST_COMPARE (close (fd), -1);
  TEST_COMPARE (errno, EIO);
  TEST_COMPARE (umount2 (dir, MNT_DETACH), 0);
  /* The server's read ends with ENODEV once the connection is gone, or
     with the cancellation.  */
  pthread_cancel (server);
  xpthread_join (server);
  xclose (fuse_fd);
  free (path);
  free (dir);
  return 0;
}

#include <support/test-driver.c>
