/* Check that a spawn reaches close-on-exec descriptors as the clone path
   does where only a path names them.  Linux version.
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

/* The child of the clone path has all of the caller's descriptors until
   its exec, close-on-exec ones included, and the kernel opens a
   program's interpreter before it closes them.  A spawn chain whose
   child's table leaves them out (the descriptor snapshot) must give the
   same result where a path the snapshot rule cannot see names one.
   Descriptor 9 is /bin/sh (or ld.so), close-on-exec, and each program
   exits with status 7:

   - a script whose first line is #!/dev/fd/9, by its path and through a
     PATH search whose next directory has a program of the same name
     that exits with status 3;
   - an ELF program whose PT_INTERP is /proc/self/fd/9;
   - a file run by a binfmt_misc entry whose interpreter is
     /proc/self/fd/9 (in an instance of a user namespace of its own);
   - /bin/sh as DIR/self/fd/9, with procfs bind-mounted at DIR (in that
     mount namespace).  */

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
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
#include <support/xunistd.h>

static char *dir;

/* Make descriptor 9 a close-on-exec descriptor of PATH.  */
static void
fd9 (const char *path)
{
  int fd = xopen (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd != 9)
    {
      TEST_COMPARE (dup3 (fd, 9, O_CLOEXEC), 9);
      xclose (fd);
    }
}

/* Spawn PROG (searched for in DIR alone if SEARCH) with ARGV; it must
   exit with status 7.  */
static void
check_spawn (const char *what, const char *prog, char **argv, bool search)
{
  pid_t pid;
  int ret;
  if (search)
    {
      char *path = xasprintf ("%s:%s/next", dir, dir);
      char *env[] = { xasprintf ("PATH=%s", path), NULL };
      setenv ("PATH", path, 1);
      free (path);
      ret = posix_spawnp (&pid, prog, NULL, NULL, argv, env);
      free (env[0]);
    }
  else
    ret = posix_spawn (&pid, prog, NULL, NULL, argv, NULL);
  if (ret != 0)
    {
      FAIL ("%s: posix_spawn%s: %s", what, search ? "p" : "", strerror (ret));
      return;
    }
  int status;
  TEST_COMPARE (xwaitpid (pid, &status, 0), pid);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 7)
    FAIL ("%s: status %#x, not exit 7", what, status);
  else
    printf ("info: %s: exit 7\n", what);
}

static char *
write_file (const char *name, const void *data, size_t size, int mode)
{
  char *path = xasprintf ("%s/%s", dir, name);
  int fd = xopen (path, O_WRONLY | O_CREAT | O_TRUNC, mode);
  xwrite (fd, data, size);
  xclose (fd);
  add_temp_file (path);
  return path;
}

static void
case_script (void)
{
  static const char script[] = "#!/dev/fd/9\nexit 7\n";
  static const char next[] = "#!/bin/sh\nexit 3\n";
  char *path = write_file ("devfd-script", script, strlen (script), 0755);
  char *next_dir = xasprintf ("%s/next", dir);
  xmkdir (next_dir, 0755);
  add_temp_file (next_dir);
  free (write_file ("next/devfd-script", next, strlen (next), 0755));
  free (next_dir);
  fd9 ("/bin/sh");
  char *argv[] = { (char *) "devfd-script", NULL };
  check_spawn ("#!/dev/fd/9", path, argv, false);
  check_spawn ("#!/dev/fd/9 through PATH", "devfd-script", argv, true);
  xclose (9);
  free (path);
}

static void
case_pt_interp (void)
{
  /* /bin/sh, with its interpreter named through descriptor 9.  */
  int fd = xopen ("/bin/sh", O_RDONLY, 0);
  struct stat st;
  xfstat (fd, &st);
  char *elf = xmalloc (st.st_size);
  TEST_COMPARE (read (fd, elf, st.st_size), st.st_size);
  xclose (fd);
  Elf64_Ehdr *eh = (Elf64_Ehdr *) elf;
  Elf64_Phdr *ph = (Elf64_Phdr *) (elf + eh->e_phoff);
  char *interp = NULL;
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_INTERP && ph[i].p_filesz > 16)
      interp = elf + ph[i].p_offset;
  if (interp == NULL)
    {
      printf ("info: /bin/sh has no PT_INTERP; no PT_INTERP case\n");
      free (elf);
      return;
    }
  fd9 (interp);
  strcpy (interp, "/proc/self/fd/9");
  char *path = write_file ("fd-interp-sh", elf, st.st_size, 0755);
  char *argv[] = { (char *) "sh", (char *) "-c", (char *) "exit 7", NULL };
  check_spawn ("PT_INTERP /proc/self/fd/9", path, argv, false);
  xclose (9);
  free (path);
  free (elf);
}

/* Become root of a user and mount namespace of our own; false if the
   kernel does not let us.  */
static bool
own_namespaces (void)
{
  uid_t uid = getuid ();
  gid_t gid = getgid ();
  if (unshare (CLONE_NEWUSER | CLONE_NEWNS) != 0)
    {
      printf ("info: unshare: %m\n");
      return false;
    }
  char buf[64];
  int fd = xopen ("/proc/self/setgroups", O_WRONLY, 0);
  xwrite (fd, "deny", 4);
  xclose (fd);
  fd = xopen ("/proc/self/uid_map", O_WRONLY, 0);
  xwrite (fd, buf, snprintf (buf, sizeof buf, "0 %d 1", (int) uid));
  xclose (fd);
  fd = xopen ("/proc/self/gid_map", O_WRONLY, 0);
  xwrite (fd, buf, snprintf (buf, sizeof buf, "0 %d 1", (int) gid));
  xclose (fd);
  return mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
}

static void
case_binfmt_misc (void)
{
  char *mnt = xasprintf ("%s/binfmt", dir);
  xmkdir (mnt, 0755);
  add_temp_file (mnt);
  if (mount ("binfmt_misc", mnt, "binfmt_misc", 0, NULL) != 0)
    {
      printf ("info: no binfmt_misc instance of our own (%m); "
	      "no binfmt_misc case\n");
      free (mnt);
      return;
    }
  char *reg = xasprintf ("%s/register", mnt);
  static const char entry[] = ":tst-spawn-uring:E::tstsnap::/proc/self/fd/9:";
  int fd = xopen (reg, O_WRONLY, 0);
  xwrite (fd, entry, strlen (entry));
  xclose (fd);
  static const char script[] = "exit 7\n";
  char *path = write_file ("prog.tstsnap", script, strlen (script), 0755);
  fd9 ("/bin/sh");
  char *argv[] = { (char *) "prog.tstsnap", NULL };
  check_spawn ("binfmt_misc interpreter /proc/self/fd/9", path, argv, false);
  xclose (9);
  TEST_COMPARE (umount2 (mnt, MNT_DETACH), 0);
  free (path);
  free (reg);
  free (mnt);
}

static void
case_procfs_elsewhere (void)
{
  char *proc = xasprintf ("%s/proc", dir);
  xmkdir (proc, 0755);
  add_temp_file (proc);
  if (mount ("/proc", proc, NULL, MS_BIND | MS_REC, NULL) != 0)
    {
      printf ("info: bind mount of /proc: %m; no procfs case\n");
      free (proc);
      return;
    }
  char *path = xasprintf ("%s/self/fd/9", proc);
  fd9 ("/bin/sh");
  char *argv[] = { (char *) "sh", (char *) "-c", (char *) "exit 7", NULL };
  check_spawn ("procfs bind-mounted elsewhere", path, argv, false);
  xclose (9);
  TEST_COMPARE (umount2 (proc, MNT_DETACH), 0);
  free (path);
  free (proc);
}

static int
do_test (void)
{
  dir = support_create_temp_directory ("tst-spawn-uring-snapshot-");
  case_script ();
  case_pt_interp ();

  pid_t pid = xfork ();
  if (pid == 0)
    {
      if (own_namespaces ())
	{
	  case_binfmt_misc ();
	  case_procfs_elsewhere ();
	}
      /* Failures are recorded where the parent sees them.  */
      exit (0);
    }
  int status;
  xwaitpid (pid, &status, 0);
  TEST_COMPARE (status, 0);
  return 0;
}

#include <support/test-driver.c>
