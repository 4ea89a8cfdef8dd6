/* Check the io_uring system calls of posix_spawn, seen by a tracer, in
   a traced thread and in children of fork, vfork and raw clone.
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

/* A child of this process is traced with PTRACE_SYSCALL, and so are its
   children; the tracer counts each task's io_uring system calls and
   their results.  The kernel refuses the chains of a traced thread, so
   every spawn here ends on the clone path, which must not change what
   the calls are:

   - Where the kernel announces no chains, or glibc.spawn.io_uring=0, no
     task makes any io_uring call.
   - Otherwise the traced thread tries a chain on its first spawn and,
     after each refusal, leaves the next 1, 3, 7... spawns to the clone
     path without a call.
   - A child of fork makes a ring of its own, whose submission the
     kernel takes; so does process 1 of a new PID namespace and process
     1 of one nested in it, which has its parent's thread ID.  A child
     of vfork, or of a raw clone, makes no io_uring call: it has the
     parent's thread descriptor, but not its thread.

   The traced thread's spawns have a file action, a close, for which
   neither path calls getrlimit in the calling thread.

   The tasks tell the tracer who they are with a getcpu call whose third
   argument, which the kernel ignores, is a mark.  */

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <io_uring_spawn.h>

#define TUNABLE_NAMESPACE spawn
#include <elf/dl-tunables.h>

#include <support/check.h>
#include <support/test-driver.h>
#include <support/xunistd.h>

static const char true_path[] = "/bin/true";

/* The spawns the traced thread makes in a row.  */
enum { backoff_spawns = 20 };

/* Who a traced task is.  */
enum
{
  ROLE_OTHER,		/* A spawned program, or a task with no mark.  */
  ROLE_TRACEE,		/* The traced thread: BACKOFF_SPAWNS spawns.  */
  ROLE_FORK,		/* A child of fork.  */
  ROLE_VFORK,		/* A child of vfork.  */
  ROLE_CLONE,		/* A child of clone (SIGCHLD).  */
  ROLE_PIDNS,		/* Process 1 of a new PID namespace.  */
  ROLE_PIDNS2,		/* Process 1 of one made by process 1.  */
  ROLE_COUNT,
  /* Marks that are no role.  */
  MARK_SPAWN = ROLE_COUNT,	/* The traced thread spawns again.  */
  MARK_NO_PIDNS,		/* No PID namespace could be made.  */
  MARK_BASE = 0x5eed0000
};
static const char *const role_names[] =
  {
    "spawned programs", "the traced thread", "the child of fork",
    "the child of vfork", "the child of clone",
    "process 1 of a PID namespace", "process 1 of a nested one"
  };

static void
mark (int what)
{
  syscall (__NR_getcpu, NULL, NULL, (void *) (uintptr_t) (MARK_BASE + what));
}

/* What the tracer saw a role do.  */
static struct
{
  bool seen;
  int setup, reg, enter, failed, rlimit;
  /* Bit I: the traced thread's spawn I made an io_uring_enter call.  */
  unsigned int spawns_entered;
} roles[ROLE_COUNT];
static bool no_pidns;

static void
spawn_true (const posix_spawn_file_actions_t *fa)
{
  char *args[] = { (char *) true_path, NULL };
  pid_t pid;
  int status;
  TEST_COMPARE (posix_spawn (&pid, true_path, fa, NULL, args, NULL), 0);
  TEST_COMPARE (xwaitpid (pid, &status, 0), pid);
  TEST_COMPARE (status, 0);
}

static void
wait_ok (pid_t pid, const char *what)
{
  int status;
  xwaitpid (pid, &status, 0);
  if (status != 0)
    FAIL ("%s: status %#x", what, status);
}

/* The traced process.  */
static void
tracee (void)
{
  if (ptrace (PTRACE_TRACEME, 0, NULL, NULL) != 0)
    {
      if (errno == EPERM)
	FAIL_UNSUPPORTED ("PTRACE_TRACEME: %m");
      FAIL_EXIT1 ("PTRACE_TRACEME: %m");
    }
  raise (SIGSTOP);
  mark (ROLE_TRACEE);

  /* The children first: this thread is not in back-off yet, and a
     child of vfork shares its ring.  */
  pid_t pid = vfork ();
  if (pid == 0)
    {
      /* Nothing that writes the parent's memory but the spawn.  */
      char *args[] = { (char *) true_path, NULL };
      pid_t child;
      int status = 1;
      mark (ROLE_VFORK);
      if (posix_spawn (&child, true_path, NULL, NULL, args, NULL) == 0)
	waitpid (child, &status, 0);
      _exit (status);
    }
  TEST_VERIFY_EXIT (pid > 0);
  wait_ok (pid, "vfork");

  /* glibc does not know the tid of a raw clone's child.  */
#ifdef __s390__
  pid = syscall (__NR_clone, 0, SIGCHLD, NULL, NULL, 0);
#else
  pid = syscall (__NR_clone, SIGCHLD, 0, NULL, NULL, 0);
#endif
  if (pid == 0)
    {
      mark (ROLE_CLONE);
      spawn_true (NULL);
      _exit (0);
    }
  TEST_VERIFY_EXIT (pid > 0);
  wait_ok (pid, "clone (SIGCHLD)");

  pid = xfork ();
  if (pid == 0)
    {
      mark (ROLE_FORK);
      spawn_true (NULL);
      _exit (0);
    }
  wait_ok (pid, "fork");

  /* A file action that the clone path does without getrlimit.  */
  posix_spawn_file_actions_t fa;
  TEST_COMPARE (posix_spawn_file_actions_init (&fa), 0);
  TEST_COMPARE (posix_spawn_file_actions_addclose (&fa,
						   xdup (STDOUT_FILENO)), 0);
  for (int i = 0; i < backoff_spawns; i++)
    {
      mark (MARK_SPAWN);
      spawn_true (&fa);
    }

  if (unshare (CLONE_NEWPID) != 0)
    {
      printf ("info: unshare (CLONE_NEWPID): %m; PID namespaces skipped\n");
      fflush (stdout);
      mark (MARK_NO_PIDNS);
      _exit (0);
    }
  pid = xfork ();
  if (pid == 0)
    {
      mark (ROLE_PIDNS);
      spawn_true (NULL);
      if (unshare (CLONE_NEWPID) != 0)
	FAIL_EXIT1 ("unshare (CLONE_NEWPID) in process 1: %m");
      pid_t init = xfork ();
      if (init == 0)
	{
	  TEST_COMPARE (getpid (), 1);
	  mark (ROLE_PIDNS2);
	  spawn_true (NULL);
	  _exit (0);
	}
      wait_ok (init, "nested PID namespace");
      _exit (0);
    }
  wait_ok (pid, "PID namespace");
  _exit (0);
}

/* A traced task: its role, the system call it is in, the traced
   thread's spawn it is at.  */
static struct task
{
  pid_t tid;
  int role;
  long int nr;
  int spawn;
} tasks[512];
static int ntasks;

static struct task *
task_find (pid_t tid, bool *is_new)
{
  for (int i = 0; i < ntasks; i++)
    if (tasks[i].tid == tid)
      {
	*is_new = false;
	return &tasks[i];
      }
  TEST_VERIFY_EXIT (ntasks < sizeof tasks / sizeof tasks[0]);
  *is_new = true;
  tasks[ntasks] = (struct task) { .tid = tid, .role = ROLE_OTHER,
				  .nr = -1, .spawn = -1 };
  return &tasks[ntasks++];
}

static void
syscall_stop (struct task *t)
{
  struct __ptrace_syscall_info info;
  if (ptrace (PTRACE_GET_SYSCALL_INFO, t->tid, sizeof info, &info) <= 0)
    FAIL_EXIT1 ("PTRACE_GET_SYSCALL_INFO: %m");
  if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
    {
      t->nr = info.entry.nr;
      uint64_t what = info.entry.args[2] - MARK_BASE;
      if (t->nr == __NR_getcpu && what <= MARK_NO_PIDNS)
	{
	  if (what == MARK_SPAWN)
	    t->spawn++;
	  else if (what == MARK_NO_PIDNS)
	    no_pidns = true;
	  else
	    {
	      t->role = what;
	      roles[what].seen = true;
	    }
	}
      return;
    }
  if (info.op != PTRACE_SYSCALL_INFO_EXIT)
    return;
  if (t->nr == __NR_prlimit64
#ifdef __NR_getrlimit
      || t->nr == __NR_getrlimit
#endif
      )
    {
      /* posix_spawn_file_actions_addclose makes one.  */
      if (t->spawn >= 0)
	roles[t->role].rlimit++;
      return;
    }
  if (t->nr == __NR_io_uring_setup)
    roles[t->role].setup++;
  else if (t->nr == __NR_io_uring_register)
    roles[t->role].reg++;
  else if (t->nr == __NR_io_uring_enter)
    {
      roles[t->role].enter++;
      /* A ring that is not the task's fails.  */
      if (info.exit.is_error)
	roles[t->role].failed++;
      if (t->spawn >= 0 && t->spawn < 32)
	roles[t->role].spawns_entered |= 1U << t->spawn;
    }
  else
    return;
  if (info.exit.is_error)
    printf ("info: %s: system call %ld: %s\n", role_names[t->role], t->nr,
	    strerrorname_np (-info.exit.rval));
}

/* Trace PID, stopped at its SIGSTOP, and its children until all have
   exited; return PID's status.  */
static int
trace (pid_t pid)
{
  int status, pid_status = -1;
  xwaitpid (pid, &status, 0);
  if (WIFEXITED (status) && WEXITSTATUS (status) == EXIT_UNSUPPORTED)
    FAIL_UNSUPPORTED ("the child cannot be traced");
  TEST_VERIFY_EXIT (WIFSTOPPED (status) && WSTOPSIG (status) == SIGSTOP);
  if (ptrace (PTRACE_SETOPTIONS, pid, NULL,
	      PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK
	      | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE
	      | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) != 0)
    FAIL_EXIT1 ("PTRACE_SETOPTIONS: %m");
  pid_t tid = pid;
  int sig;
  do
    {
      bool is_new;
      struct task *t = task_find (tid, &is_new);
      if (!WIFSTOPPED (status))
	{
	  if (tid == pid)
	    pid_status = status;
	  /* A later task may have its number.  */
	  t->tid = 0;
	  continue;
	}
      sig = 0;
      if (WSTOPSIG (status) == (SIGTRAP | 0x80))
	syscall_stop (t);
      else if (status >> 16 != 0)
	/* A fork, vfork, clone or exec event.  */
	;
      else if (!(is_new && WSTOPSIG (status) == SIGSTOP))
	/* Not a new child's first stop.  */
	sig = WSTOPSIG (status);
      if (ptrace (PTRACE_SYSCALL, tid, NULL, (void *) (uintptr_t) sig) != 0
	  && errno != ESRCH)
	FAIL_EXIT1 ("PTRACE_SYSCALL: %m");
    }
  while ((tid = waitpid (-1, &status, __WALL)) > 0);
  TEST_COMPARE (errno, ECHILD);
  return pid_status;
}

static int
do_test (void)
{
  /* As spawni-uring.c decides.  */
  bool uring = (_NSIG <= 65
		&& (getauxval (AT_IO_URING_SPAWN) & IORING_SPAWN_F_CHAIN) != 0
		&& TUNABLE_GET (io_uring, int32_t, NULL) != 0);
  printf ("info: AT_IO_URING_SPAWN %#lx, glibc.spawn.io_uring=%d\n",
	  getauxval (AT_IO_URING_SPAWN),
	  (int) TUNABLE_GET (io_uring, int32_t, NULL));
  /* The children start with a copy of a ring, where there is one.  */
  spawn_true (NULL);

  pid_t pid = xfork ();
  if (pid == 0)
    tracee ();
  int status = trace (pid);
  if (status != 0)
    FAIL_EXIT1 ("the traced process: status %#x", status);

  for (int r = 0; r < ROLE_COUNT; r++)
    printf ("info: %s: io_uring_setup %d, io_uring_register %d,"
	    " io_uring_enter %d (%d failed), spawns entered %#x,"
	    " getrlimit %d\n",
	    role_names[r], roles[r].setup, roles[r].reg, roles[r].enter,
	    roles[r].failed, roles[r].spawns_entered, roles[r].rlimit);
  for (int r = ROLE_TRACEE; r < ROLE_COUNT; r++)
    if (!roles[r].seen && !(no_pidns && r >= ROLE_PIDNS))
      FAIL ("%s was not seen", role_names[r]);

  unsigned int tries = 0;
  if (uring)
    for (int i = 0, backoff = 0; i < backoff_spawns;
	 backoff = 2 * backoff + 1, i += backoff + 1)
      tries |= 1U << i;
  for (int r = 0; r < ROLE_COUNT; r++)
    {
      /* One ring each, made at the first spawn with io_uring_setup
	 alone; no thread exits.  */
      bool own_ring = uring && (r == ROLE_TRACEE || r == ROLE_FORK
				|| (!no_pidns && r >= ROLE_PIDNS));
      if (roles[r].setup != own_ring || roles[r].reg != 0)
	FAIL ("%s: %d io_uring_setup, %d io_uring_register, expected %d"
	      " and 0", role_names[r], roles[r].setup, roles[r].reg,
	      own_ring);
      if (roles[r].failed != 0)
	FAIL ("%s: %d io_uring_enter failed", role_names[r],
	      roles[r].failed);
      if (r == ROLE_TRACEE)
	{
	  if (roles[r].rlimit != 0)
	    FAIL ("%s: %d getrlimit or prlimit64 calls", role_names[r],
		  roles[r].rlimit);
	  if (roles[r].spawns_entered != tries)
	    FAIL ("%s: spawns that made io_uring_enter %#x, expected %#x",
		  role_names[r], roles[r].spawns_entered, tries);
	}
      else if (roles[r].enter != own_ring)
	FAIL ("%s: %d io_uring_enter, expected %d", role_names[r],
	      roles[r].enter, own_ring);
    }
  return 0;
}

#include <support/test-driver.c>
