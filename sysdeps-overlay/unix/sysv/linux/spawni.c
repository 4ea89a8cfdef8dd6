/* POSIX spawn interface.  Linux version.
   Copyright (C) 2016-2026 Free Software Foundation, Inc.
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

#include <atomic.h>
#include <internal-signals.h>
#include <io_uring_spawn.h>
#include <ldsodefs.h>
#include <local-setxid.h>
#include <not-cancel.h>
#include <paths.h>
#include <shlib-compat.h>
#include <spawn.h>
#include <spawn_int.h>
#include <sysdep.h>
#include <sys/resource.h>
#include <clone_internal.h>
#include <confstr.h>
#include <pthreadP.h>
#include <string.h>
#include <sys/wait.h>
#include <tls-internal.h>
#if HAVE_TUNABLES
# define TUNABLE_NAMESPACE spawn
# include <elf/dl-tunables.h>
#endif

/* Where the kernel can run a spawn as an io_uring link chain (the
   uring-spawn series, see io_uring_spawn.h), posix_spawn{p} submits
   IORING_OP_CLONE, the attributes and file actions as linked operations,
   and IORING_OP_EXEC, and the kernel does the rest; see "The io_uring
   path" below.  Everywhere else the code that follows runs.

   The Linux implementation of posix_spawn{p} uses the clone syscall directly
   with CLONE_VM and CLONE_VFORK flags and an allocated stack.  The new stack
   and start function solves most the vfork limitation (possible parent
   clobber due stack spilling). The remaining issue are:

   1. That no signal handlers must run in child context, to avoid corrupting
      parent's state.
   2. The parent must ensure child's stack freeing.
   3. Child must synchronize with parent to enforce 2. and to possible
      return execv issues.

   The first issue is solved by blocking all signals in child, even
   the NPTL-internal ones (SIGCANCEL and SIGSETXID).  The second and
   third issue is done by a stack allocation in parent, and by using a
   field in struct spawn_args where the child can write an error
   code. CLONE_VFORK ensures that the parent does not run until the
   child has either exec'ed successfully or exited.  */


/* The Unix standard contains a long explanation of the way to signal
   an error after the fork() was successful.  Since no new wait status
   was wanted there is no way to signal an error using one of the
   available methods.  The committee chose to signal an error by a
   normal program exit with the exit code 127.  */
#define SPAWN_ERROR	127


struct posix_spawn_args
{
  internal_sigset_t oldmask;
  const char *file;
  int (*exec) (const char *, char *const *, char *const *);
  const posix_spawn_file_actions_t *fa;
  const posix_spawnattr_t *restrict attr;
  char *const *argv;
  ptrdiff_t argc;
  char *const *envp;
  int xflags;
  /* The child was created with CLONE_CLEAR_SIGHAND.  */
  bool sighand_cleared;
  int err;
};

/* Older version requires that shell script without shebang definition
   to be called explicitly using /bin/sh (_PATH_BSHELL).  */
static void
maybe_script_execute (struct posix_spawn_args *args)
{
  if (SHLIB_COMPAT (libc, GLIBC_2_2, GLIBC_2_15)
      && (args->xflags & SPAWN_XFLAGS_TRY_SHELL) && errno == ENOEXEC)
    {
      char *const *argv = args->argv;
      ptrdiff_t argc = args->argc;

      /* Construct an argument list for the shell.  */
      char *new_argv[argc + 2];
      new_argv[0] = (char *) _PATH_BSHELL;
      new_argv[1] = (char *) args->file;
      if (argc > 1)
	memcpy (new_argv + 2, argv + 1, argc * sizeof (char *));
      else
	new_argv[2] = NULL;

      /* Execute the shell.  */
      args->exec (new_argv[0], new_argv, args->envp);
    }
}

/* Function used in the clone call to setup the signals mask, posix_spawn
   attributes, and file actions.  It run on its own stack (provided by the
   posix_spawn call).  */
static int
__spawni_child (void *arguments)
{
  struct posix_spawn_args *args = arguments;
  const posix_spawnattr_t *restrict attr = args->attr;
  const posix_spawn_file_actions_t *file_actions = args->fa;

  /* The child must ensure that no signal handler are enabled because it shared
     memory with parent, so the signal disposition must be either SIG_DFL or
     SIG_IGN.  If the kernel already reset the handlers (CLONE_CLEAR_SIGHAND),
     only the POSIX_SPAWN_SETSIGDEF signals and the internal ones, which
     posix_spawn has always left ignored in the new program, remain to be
     done; otherwise it iterates over all signals and although it could
     possibly be more optimized (by tracking which signal potentially have a
     signal handler), it might requires system specific solutions (since the
     sigset_t data type can be very different on different architectures).  */
  struct sigaction sa;
  memset (&sa, '\0', sizeof (sa));

  sigset_t hset;
  __sigprocmask (SIG_BLOCK, 0, &hset);
  for (int sig = 1; sig < _NSIG; ++sig)
    {
      if ((attr->__flags & POSIX_SPAWN_SETSIGDEF)
	  && __sigismember (&attr->__sd, sig))
	{
	  sa.sa_handler = SIG_DFL;
	}
      else if (args->sighand_cleared && !is_internal_signal (sig))
	continue;
      else if (__sigismember (&hset, sig))
	{
	  if (is_internal_signal (sig))
	    sa.sa_handler = SIG_IGN;
	  else
	    {
	      __libc_sigaction (sig, 0, &sa);
	      if (sa.sa_handler == SIG_IGN)
		continue;
	      sa.sa_handler = SIG_DFL;
	    }
	}
      else
	continue;

      __libc_sigaction (sig, &sa, 0);
    }

#ifdef _POSIX_PRIORITY_SCHEDULING
  /* Set the scheduling algorithm and parameters.  */
  if ((attr->__flags & (POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER))
      == POSIX_SPAWN_SETSCHEDPARAM)
    {
      if (__sched_setparam (0, &attr->__sp) == -1)
	goto fail;
    }
  else if ((attr->__flags & POSIX_SPAWN_SETSCHEDULER) != 0)
    {
      if (__sched_setscheduler (0, attr->__policy, &attr->__sp) == -1)
	goto fail;
    }
#endif

  if ((attr->__flags & POSIX_SPAWN_SETSID) != 0
      && __setsid () < 0)
    goto fail;

  /* Set the process group ID.  */
  if ((attr->__flags & POSIX_SPAWN_SETPGROUP) != 0
      && __setpgid (0, attr->__pgrp) != 0)
    goto fail;

  /* Set the effective user and group IDs.  */
  if ((attr->__flags & POSIX_SPAWN_RESETIDS) != 0
      && (local_seteuid (__getuid ()) != 0
	  || local_setegid (__getgid ()) != 0))
    goto fail;

  /* Execute the file actions.  */
  if (file_actions != 0)
    {
      int cnt;
      struct rlimit64 fdlimit;
      bool have_fdlimit = false;

      for (cnt = 0; cnt < file_actions->__used; ++cnt)
	{
	  struct __spawn_action *action = &file_actions->__actions[cnt];

	  switch (action->tag)
	    {
	    case spawn_do_close:
	      if (__close_nocancel (action->action.close_action.fd) != 0)
		{
		  if (!have_fdlimit)
		    {
		      __getrlimit64 (RLIMIT_NOFILE, &fdlimit);
		      have_fdlimit = true;
		    }

		  /* Signal errors only for file descriptors out of range.  */
		  if (action->action.close_action.fd < 0
		      || action->action.close_action.fd >= fdlimit.rlim_cur)
		    goto fail;
		}
	      break;

	    case spawn_do_open:
	      {
		/* POSIX states that if fildes was already an open file descriptor,
		   it shall be closed before the new file is opened.  This avoid
		   pontential issues when posix_spawn plus addopen action is called
		   with the process already at maximum number of file descriptor
		   opened and also for multiple actions on single-open special
		   paths (like /dev/watchdog).  */
		__close_nocancel (action->action.open_action.fd);

		int ret = __open_nocancel (action->action.open_action.path,
					   action->action.
					   open_action.oflag | O_LARGEFILE,
					   action->action.open_action.mode);

		if (ret == -1)
		  goto fail;

		int new_fd = ret;

		/* Make sure the desired file descriptor is used.  */
		if (ret != action->action.open_action.fd)
		  {
		    if (__dup2 (new_fd, action->action.open_action.fd)
			!= action->action.open_action.fd)
		      goto fail;

		    if (__close_nocancel (new_fd) != 0)
		      goto fail;
		  }
	      }
	      break;

	    case spawn_do_dup2:
	      /* Austin Group issue #411 requires adddup2 action with source
		 and destination being equal to remove close-on-exec flag.  */
	      if (action->action.dup2_action.fd
		  == action->action.dup2_action.newfd)
		{
		  int fd = action->action.dup2_action.newfd;
		  int flags = __fcntl (fd, F_GETFD, 0);
		  if (flags == -1)
		    goto fail;
		  if (__fcntl (fd, F_SETFD, flags & ~FD_CLOEXEC) == -1)
		    goto fail;
		}
	      else if (__dup2 (action->action.dup2_action.fd,
			       action->action.dup2_action.newfd)
		       != action->action.dup2_action.newfd)
		goto fail;
	      break;

	    case spawn_do_chdir:
	      if (__chdir (action->action.chdir_action.path) != 0)
		goto fail;
	      break;

	    case spawn_do_fchdir:
	      if (__fchdir (action->action.fchdir_action.fd) != 0)
		goto fail;
	      break;

	    case spawn_do_closefrom:
	      {
		int lowfd = action->action.closefrom_action.from;
	        int r = INLINE_SYSCALL_CALL (close_range, lowfd, ~0U, 0);
		if (r != 0 && !__closefrom_fallback (lowfd, false))
		  goto fail;
	      } break;

	    case spawn_do_tcsetpgrp:
	      {
		/* Check if it is possible to avoid an extra syscall.  */
		pid_t pgrp = (attr->__flags & POSIX_SPAWN_SETPGROUP) != 0
			       && attr->__pgrp != 0
			     ? attr->__pgrp : __getpgid (0);
		if (__tcsetpgrp (action->action.setpgrp_action.fd, pgrp) != 0)
		  goto fail;
	      }
	    }
	}
    }

  /* Set the initial signal mask of the child if POSIX_SPAWN_SETSIGMASK
     is set, otherwise restore the previous one.  */
  if (attr->__flags & POSIX_SPAWN_SETSIGMASK)
    __sigprocmask (SIG_SETMASK, &attr->__ss, NULL);
  else
    internal_sigprocmask (SIG_SETMASK, &args->oldmask, NULL);

  args->exec (args->file, args->argv, args->envp);

  /* This is compatibility function required to enable posix_spawn run
     script without shebang definition for older posix_spawn versions
     (2.15).  */
  maybe_script_execute (args);

fail:
  /* errno should have an appropriate non-zero value; otherwise,
     there's a bug in glibc or the kernel.  For lack of an error code
     (EINTERNALBUG) describing that, use ECHILD.  Another option would
     be to set args->err to some negative sentinel and have the parent
     abort(), but that seems needlessly harsh.  */
  args->err = errno ? : ECHILD;
  _exit (SPAWN_ERROR);
}

#ifndef CLONE_CLEAR_SIGHAND
# define CLONE_CLEAR_SIGHAND 0x100000000ULL
#endif

/* Create the child with clone3 and CLONE_CLEAR_SIGHAND (Linux 5.5) where
   the kernel has them, which saves the child a sigaction call per signal;
   otherwise as before.  */
static pid_t
spawn_clone (struct clone_args *clone_args, struct posix_spawn_args *args)
{
#ifdef HAVE_CLONE3_WRAPPER
  int saved_errno = errno;
  clone_args->flags |= CLONE_CLEAR_SIGHAND;
  args->sighand_cleared = true;
  pid_t pid = __clone3 (clone_args, sizeof (*clone_args), __spawni_child,
			args);
  /* EINVAL: a kernel with clone3 but without CLONE_CLEAR_SIGHAND.  */
  if (pid != -1 || (errno != ENOSYS && errno != EINVAL))
    return pid;
  __set_errno (saved_errno);
  clone_args->flags &= ~CLONE_CLEAR_SIGHAND;
#endif
  args->sighand_cleared = false;
  return __clone_internal (clone_args, __spawni_child, args);
}

/* Spawn a new process executing PATH with the attributes describes in *ATTRP.
   Before running the process perform the actions described in FILE-ACTIONS. */
static int
__spawnix (pid_t * pid, const char *file,
	   const posix_spawn_file_actions_t * file_actions,
	   const posix_spawnattr_t * attrp, char *const argv[],
	   char *const envp[], int xflags,
	   int (*exec) (const char *, char *const *, char *const *))
{
  pid_t new_pid;
  struct posix_spawn_args args;
  int ec;

  /* To avoid imposing hard limits on posix_spawn{p} the total number of
     arguments is first calculated to allocate a mmap to hold all possible
     values.  */
  ptrdiff_t argc = 0;
  /* Linux allows at most max (0x7FFFFFFF, 1/4 stack size) arguments
     to be used in a execve call.  We limit to INT_MAX minus one due the
     compatiblity code that may execute a shell script (maybe_script_execute)
     where it will construct another argument list with an additional
     argument.  */
  ptrdiff_t limit = INT_MAX - 1;
  while (argv[argc++] != NULL)
    if (argc == limit)
      {
	errno = E2BIG;
	return errno;
      }

  int prot = (PROT_READ | PROT_WRITE
	     | ((GL (dl_stack_flags) & PF_X) ? PROT_EXEC : 0));

  /* Add a slack area for child's stack.  */
  size_t argv_size = (argc * sizeof (void *)) + 512;
  /* We need at least a few pages in case the compiler's stack checking is
     enabled.  In some configs, it is known to use at least 24KiB.  We use
     32KiB to be "safe" from anything the compiler might do.  Besides, the
     extra pages won't actually be allocated unless they get used.
     It also acts the slack for spawn_closefrom (including MIPS64 getdents64
     where it might use about 1k extra stack space).  */
  argv_size += (32 * 1024);
  size_t stack_size = ALIGN_UP (argv_size, GLRO(dl_pagesize));
  void *stack = __mmap (NULL, stack_size, prot,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (__glibc_unlikely (stack == MAP_FAILED))
    return errno;

  /* Disable asynchronous cancellation.  */
  int state;
  __pthread_setcancelstate (PTHREAD_CANCEL_DISABLE, &state);

  /* Child must set args.err to something non-negative - we rely on
     the parent and child sharing VM.  */
  args.err = 0;
  args.file = file;
  args.exec = exec;
  args.fa = file_actions;
  args.attr = attrp ? attrp : &(const posix_spawnattr_t) { 0 };
  args.argv = argv;
  args.argc = argc;
  args.envp = envp;
  args.xflags = xflags;

  internal_signal_block_all (&args.oldmask);

  /* The clone flags used will create a new child that will run in the same
     memory space (CLONE_VM) and the execution of calling thread will be
     suspend until the child calls execve or _exit.

     Also since the calling thread execution will be suspend, there is not
     need for CLONE_SETTLS.  Although parent and child share the same TLS
     namespace, there will be no concurrent access for TLS variables (errno
     for instance).  */
  struct clone_args clone_args =
    {
      .flags = CLONE_VM | CLONE_VFORK,
      .exit_signal = SIGCHLD,
      .stack = (uintptr_t) stack,
      .stack_size = stack_size,
    };
  new_pid = spawn_clone (&clone_args, &args);

  /* It needs to collect the case where the auxiliary process was created
     but failed to execute the file (due either any preparation step or
     for execve itself).  */
  if (new_pid > 0)
    {
      /* Also, it handles the unlikely case where the auxiliary process was
	 terminated before calling execve as if it was successfully.  The
	 args.err is set to 0 as default and changed to a positive value
	 only in case of failure, so in case of premature termination
	 due a signal args.err will remain zeroed and it will be up to
	 caller to actually collect it.  */
      ec = args.err;
      if (ec > 0)
	/* There still an unlikely case where the child is cancelled after
	   setting args.err, due to a positive error value.  Also there is
	   possible pid reuse race (where the kernel allocated the same pid
	   to an unrelated process).  Unfortunately due synchronization
	   issues where the kernel might not have the process collected
	   the waitpid below can not use WNOHANG.  */
	__waitpid (new_pid, NULL, 0);
    }
  else
    ec = errno;

  __munmap (stack, stack_size);

  if ((ec == 0) && (pid != NULL))
    *pid = new_pid;

  internal_signal_restore_set (&args.oldmask);

  __pthread_setcancelstate (state, NULL);

  return ec;
}

/* The io_uring path.

   The spawn is one io_uring submission, a link chain that the kernel
   runs in the new process:

     IORING_OP_CLONE			the child; its CQE carries the pid
     the attributes			in the order __spawni_child uses
     the file actions			in order
     IORING_OP_SPAWN_SIGMASK		the new program's signal mask
     IORING_OP_EXEC			one per PATH candidate

   No code of ours runs in the child, so none of the constraints of the
   CLONE_VM child above apply to it.  Each SQE is linked to the next, so
   the first failure ends the chain and the rest complete with
   -ECANCELED; the EXECs of a PATH search carry IORING_EXEC_SEARCH, so
   that the kernel goes on to the next candidate on the errors __execvpex
   goes on for and stops on the others.  If no EXEC succeeds, the child
   exits once the chain's CQEs are posted; the parent reaps it, as the
   clone path does, and returns the error of the operation that failed.

   Everything the SQEs point to (paths, argv, envp, signal sets, the
   PATH candidates) stays valid in this frame or in the caller's
   arguments until the last CQE has arrived.

   Each thread has its own ring, made by its first spawn and kept until
   the thread exits (__spawn_thread_freeres).  Making a ring and tearing
   it down costs about as much as a seventh of a whole spawn and wait of
   a small static program: measured with bench/ring-cost.c in the VM
   (one CPU, guest instruction clock, 2000 spawns each), a ring per
   spawn took 434 us a spawn against 376 us with one ring reused, and
   the set-up and teardown alone 53 us (the teardown is deferred work
   of the kernel, which is why only means show all of it).  A ring per
   process would need a lock or a file descriptor; per thread needs
   neither.

   The ring has no file descriptor (IORING_SETUP_REGISTERED_FD_ONLY):
   it lives in the thread's table of registered rings, which the kernel
   keeps per task, so nothing the application does to its descriptors
   (closefrom, dup2 over ours, fork in another thread) can reach it,
   the child inherits none, and no ring of the application's is ever
   touched.  What it costs the application is one of the 16 slots of
   that table in each thread that spawned.  A child of fork has no
   registered rings at all: there the ring's memory is dropped and a new
   ring made (the index, which may by then name a ring of the child's
   own, is never used).  The flag needs the ring's memory to be ours
   (IORING_SETUP_NO_MMAP): one page for the SQ and CQ rings and one for
   the SQEs.

   All signals stay blocked while a spawn uses the ring, so that no
   signal handler can spawn through it at the same time.  */

/* Linux 6.5 and 6.6 UAPI, missing from older kernel headers.  */
#ifdef IORING_SETUP_NO_MMAP
# define RING_USER_ADDR(off) ((off).user_addr)
#else
# define IORING_SETUP_NO_MMAP			(1U << 14)
# define IORING_SETUP_REGISTERED_FD_ONLY	(1U << 15)
# define RING_USER_ADDR(off) ((off).resv2)
#endif
#ifndef IORING_SETUP_NO_SQARRAY
# define IORING_SETUP_NO_SQARRAY		(1U << 16)
#endif
#ifndef IORING_REGISTER_USE_REGISTERED_RING
# define IORING_REGISTER_USE_REGISTERED_RING	(1U << 31)
#endif

/* The most SQEs a spawn submits: the size of both rings, a page of
   SQEs.  A spawn that needs more (dozens of file actions, or a PATH of
   dozens of directories) takes the clone path.  */
#define URING_ENTRIES 64
_Static_assert (URING_ENTRIES * sizeof (struct io_uring_sqe) <= 4096,
		"the SQEs fit in a page");

struct spawn_ring
{
  char *mem;				/* The rings, then the SQEs; or null.  */
  unsigned long int generation;		/* __fork_generation when made.  */
  unsigned int index;			/* The registered ring.  */
  unsigned int sq_tail;			/* Our copies of the SQ tail and */
  unsigned int cq_head;			/* the CQ head.  */
  unsigned int features;
  struct io_uring_sqe *sqes;
  unsigned int *sq_tail_p;
  unsigned int *cq_head_p;
  unsigned int *cq_tail_p;
  struct io_uring_cqe *cqes;
};

static __thread struct spawn_ring thread_ring attribute_tls_model_ie;

static size_t
spawn_ring_size (void)
{
  return 2 * GLRO (dl_pagesize);
}

/* Set up a ring as described above.  Return false if the kernel will not
   give us one, for whatever reason (ENOSYS, EPERM from seccomp or
   kernel.io_uring_disabled, EINVAL from a kernel older than 6.6, ENOMEM,
   no free registered-ring slot); the caller then takes the clone path.  */
static bool
spawn_ring_open (struct spawn_ring *r)
{
  size_t page = GLRO (dl_pagesize);
  char *mem = __mmap (NULL, spawn_ring_size (), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return false;

  struct io_uring_params p =
    {
      .flags = (IORING_SETUP_NO_MMAP | IORING_SETUP_REGISTERED_FD_ONLY
		| IORING_SETUP_NO_SQARRAY | IORING_SETUP_CQSIZE),
      .cq_entries = URING_ENTRIES,
    };
  RING_USER_ADDR (p.cq_off) = (uintptr_t) mem;
  RING_USER_ADDR (p.sq_off) = (uintptr_t) mem + page;
  long int ret = INTERNAL_SYSCALL_CALL (io_uring_setup, URING_ENTRIES, &p);
  if (INTERNAL_SYSCALL_ERROR_P (ret))
    {
      __munmap (mem, spawn_ring_size ());
      return false;
    }
  *r = (struct spawn_ring)
    {
      .mem = mem,
      .generation = __fork_generation,
      .index = ret,
      .features = p.features,
      .sqes = (struct io_uring_sqe *) (mem + page),
      .sq_tail_p = (unsigned int *) (mem + p.sq_off.tail),
      .cq_head_p = (unsigned int *) (mem + p.cq_off.head),
      .cq_tail_p = (unsigned int *) (mem + p.cq_off.tail),
      .cqes = (struct io_uring_cqe *) (mem + p.cq_off.cqes),
    };
  return true;
}

/* Free the ring, or only its memory in a child of fork.  */
static void
spawn_ring_close (struct spawn_ring *r)
{
  if (r->generation == __fork_generation)
    {
      struct io_uring_rsrc_update update = { .offset = r->index };
      INTERNAL_SYSCALL_CALL (io_uring_register, r->index,
			     IORING_UNREGISTER_RING_FDS
			     | IORING_REGISTER_USE_REGISTERED_RING,
			     &update, 1);
    }
  __munmap (r->mem, spawn_ring_size ());
  r->mem = NULL;
}

/* The calling thread's ring, made if it has none; null if the kernel
   will not give us one.  */
static struct spawn_ring *
spawn_ring_get (void)
{
  struct spawn_ring *r = &thread_ring;
  if (r->mem != NULL && r->generation != __fork_generation)
    spawn_ring_close (r);
  if (r->mem == NULL && !spawn_ring_open (r))
    return NULL;
  return r;
}

/* Called when a thread exits.  */
void
__spawn_thread_freeres (void)
{
  if (thread_ring.mem != NULL)
    spawn_ring_close (&thread_ring);
}

static long int
spawn_ring_enter (struct spawn_ring *r, unsigned int submit,
		  unsigned int wait)
{
  return INTERNAL_SYSCALL_CALL (io_uring_enter, r->index, submit, wait,
				IORING_ENTER_GETEVENTS
				| IORING_ENTER_REGISTERED_RING, NULL, 0);
}

/* The Ith SQE after the SQ tail, and the Ith CQE after the CQ head.  */
static struct io_uring_sqe *
spawn_ring_sqe (struct spawn_ring *r, unsigned int i)
{
  return &r->sqes[(r->sq_tail + i) % URING_ENTRIES];
}

static const struct io_uring_cqe *
spawn_ring_cqe (const struct spawn_ring *r, unsigned int i)
{
  return &r->cqes[(r->cq_head + i) % URING_ENTRIES];
}

/* Submit the N SQEs after the tail and wait until every submitted one
   has its CQE.  Return how many were submitted (the kernel stops at an
   SQE it cannot prepare, and then does not wait), or 0 if none was, in
   which case no process was created.  The CQ ring holds URING_ENTRIES,
   so none is ever dropped.  The CQEs are read in place; spawn_ring_done
   hands their slots back.  */
static unsigned int
spawn_ring_run (struct spawn_ring *r, unsigned int n)
{
  atomic_store_release (r->sq_tail_p, r->sq_tail + n);
  long int ret;
  do
    ret = spawn_ring_enter (r, n, n);
  while (ret == -EINTR);
  if (INTERNAL_SYSCALL_ERROR_P (ret) || ret == 0)
    return 0;

  /* An interrupted wait loses nothing: the CQEs stay in the ring.  */
  unsigned int submitted = ret;
  while (atomic_load_acquire (r->cq_tail_p) - r->cq_head < submitted)
    {
      ret = spawn_ring_enter (r, 0, submitted);
      if (INTERNAL_SYSCALL_ERROR_P (ret) && ret != -EINTR)
	break;
    }
  return submitted;
}

/* Hand back the slots of a spawn_ring_run of N SQEs that submitted
   SUBMITTED.  If the kernel did not take them all, the rest would be
   submitted by the next spawn: then, and if any CQE is missing, the ring
   is not to be trusted any more and is freed.  */
static void
spawn_ring_done (struct spawn_ring *r, unsigned int n, unsigned int submitted)
{
  if (submitted < n
      || atomic_load_acquire (r->cq_tail_p) - r->cq_head != submitted)
    {
      spawn_ring_close (r);
      return;
    }
  r->sq_tail += n;
  r->cq_head += n;
  atomic_store_release (r->cq_head_p, r->cq_head);
}

/* The chain being built: its SQEs are written in place in the ring.  */
struct spawn_chain
{
  struct spawn_ring *ring;
  unsigned int n;			/* SQEs written.  */
  unsigned int first_exec;		/* Index of the first EXEC.  */
  /* What the SQEs point to.  */
  struct clone_args clone_args;
  internal_sigset_t sigign;
  internal_sigset_t sigmask;
};

static struct io_uring_sqe *
chain_add (struct spawn_chain *c, int opcode)
{
  struct io_uring_sqe *sqe = spawn_ring_sqe (c->ring, c->n);
  memset (sqe, 0, sizeof (*sqe));
  sqe->opcode = opcode;
  sqe->flags = IOSQE_IO_LINK;
  sqe->user_data = c->n++;
  return sqe;
}

static void
chain_add_sigset (struct spawn_chain *c, int opcode, const void *set,
		  int flags)
{
  struct io_uring_sqe *sqe = chain_add (c, opcode);
  sqe->addr = (uintptr_t) set;
  sqe->len = __NSIG_BYTES;
  sqe->rw_flags = flags;
}

/* The attributes, in the order __spawni_child applies them.  */
static void
chain_attributes (struct spawn_chain *c, const posix_spawnattr_t *attr)
{
  short int flags = attr->__flags;
  struct io_uring_sqe *sqe;

  if (flags & POSIX_SPAWN_SETSIGDEF)
    chain_add_sigset (c, IORING_OP_SPAWN_SIGDEFAULT, &attr->__sd, 0);
  /* glibc's own signals, which the clone path has always left ignored in
     the new program (see __spawni_child).  */
  internal_sigemptyset (&c->sigign);
  internal_sigaddset (&c->sigign, SIGCANCEL);
  internal_sigaddset (&c->sigign, SIGSETXID);
  chain_add_sigset (c, IORING_OP_SPAWN_SIGDEFAULT, &c->sigign,
		    IORING_SPAWN_SIG_IGN);

  if (flags & (POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER))
    {
      sqe = chain_add (c, IORING_OP_SPAWN_SCHED);
      sqe->addr = (uintptr_t) &attr->__sp;
      if (flags & POSIX_SPAWN_SETSCHEDULER)
	{
	  sqe->rw_flags = IORING_SPAWN_SCHED_SETSCHEDULER;
	  sqe->len = attr->__policy;
	}
    }
  if (flags & POSIX_SPAWN_SETSID)
    chain_add (c, IORING_OP_SPAWN_SETSID);
  if (flags & POSIX_SPAWN_SETPGROUP)
    chain_add (c, IORING_OP_SPAWN_SETPGID)->off = attr->__pgrp;
  if (flags & POSIX_SPAWN_RESETIDS)
    chain_add (c, IORING_OP_SPAWN_RESETIDS);
}

static void
chain_close_range (struct spawn_chain *c, int first, unsigned int last)
{
  struct io_uring_sqe *sqe = chain_add (c, IORING_OP_SPAWN_CLOSE_RANGE);
  sqe->fd = first;
  sqe->off = last;
}

static void
chain_file_actions (struct spawn_chain *c,
		    const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attr)
{
  struct rlimit64 fdlimit = { .rlim_cur = RLIM64_INFINITY };
  if (fa->__used > 0)
    __getrlimit64 (RLIMIT_NOFILE, &fdlimit);

  for (int i = 0; i < fa->__used; i++)
    {
      const struct __spawn_action *action = &fa->__actions[i];
      struct io_uring_sqe *sqe;
      int fd;

      switch (action->tag)
	{
	case spawn_do_close:
	  /* As in the clone path, closing a descriptor that is not open
	     is not an error, but one out of range is: IORING_OP_CLOSE
	     fails with EBADF there.  Within range close_range closes
	     anything, io_uring descriptors included.  */
	  fd = action->action.close_action.fd;
	  if (fd < 0 || fd >= fdlimit.rlim_cur)
	    chain_add (c, IORING_OP_CLOSE)->fd = fd;
	  else
	    chain_close_range (c, fd, fd);
	  break;

	case spawn_do_open:
	  /* The kernel closes the target first and lands the file on it,
	     as POSIX asks.  */
	  sqe = chain_add (c, IORING_OP_SPAWN_OPEN);
	  sqe->fd = AT_FDCWD;
	  sqe->addr = (uintptr_t) action->action.open_action.path;
	  sqe->open_flags = action->action.open_action.oflag | O_LARGEFILE;
	  sqe->len = action->action.open_action.mode;
	  sqe->off = action->action.open_action.fd;
	  break;

	case spawn_do_dup2:
	  /* With equal descriptors the kernel clears FD_CLOEXEC (Austin
	     Group issue #411).  */
	  sqe = chain_add (c, IORING_OP_SPAWN_DUP2);
	  sqe->fd = action->action.dup2_action.fd;
	  sqe->off = action->action.dup2_action.newfd;
	  break;

	case spawn_do_chdir:
	  sqe = chain_add (c, IORING_OP_SPAWN_CHDIR);
	  sqe->addr = (uintptr_t) action->action.chdir_action.path;
	  break;

	case spawn_do_fchdir:
	  chain_add (c, IORING_OP_SPAWN_FCHDIR)->fd
	    = action->action.fchdir_action.fd;
	  break;

	case spawn_do_closefrom:
	  chain_close_range (c, action->action.closefrom_action.from, ~0U);
	  break;

	case spawn_do_tcsetpgrp:
	  /* 0 is the child's process group at that point.  */
	  sqe = chain_add (c, IORING_OP_SPAWN_TCSETPGRP);
	  sqe->fd = action->action.setpgrp_action.fd;
	  if ((attr->__flags & POSIX_SPAWN_SETPGROUP) != 0)
	    sqe->off = attr->__pgrp;
	  break;
	}
    }
}

static void
chain_exec (struct spawn_chain *c, const char *path, char *const argv[],
	    char *const envp[], int flags)
{
  struct io_uring_sqe *sqe = chain_add (c, IORING_OP_EXEC);
  sqe->fd = AT_FDCWD;
  sqe->addr = (uintptr_t) path;
  sqe->off = (uintptr_t) argv;
  sqe->addr3 = (uintptr_t) envp;
  sqe->rw_flags = flags;
}

/* The errors on which __execvpex tries the next PATH directory.  */
static bool
exec_search_goes_on (int err)
{
  switch (err)
    {
    case EACCES: case ENOENT: case ESTALE: case ENOTDIR: case ENODEV:
    case ETIMEDOUT:
      return true;
    default:
      return false;
    }
}

/* Read the N CQEs of chain C.  Return 0 if an EXEC succeeded, otherwise
   the error posix_spawn reports, or -1 if the chain did not run as
   built, so that the clone path should take the spawn.  Store the
   child's pid, if there is a child, in *NEW_PID.  */
static int
chain_result (const struct spawn_chain *c, unsigned int n, pid_t *new_pid)
{
  int res[URING_ENTRIES];
  for (unsigned int i = 0; i < c->n; i++)
    res[i] = -ECANCELED;
  for (unsigned int i = 0; i < n; i++)
    {
      const struct io_uring_cqe *cqe = spawn_ring_cqe (c->ring, i);
      if (cqe->user_data < c->n)
	res[cqe->user_data] = cqe->res;
    }

  *new_pid = res[0] > 0 ? res[0] : 0;
  /* The kernel refused an SQE (a series without an operation or flag we
     use fails the whole chain, the clone with -ECANCELED or -EINVAL), or
     the submission was cut short: the chain did not run as asked.  */
  if (n < c->n || res[0] == -ECANCELED || res[0] == -EINVAL)
    return -1;
  for (unsigned int i = 0; i < c->first_exec; i++)
    if (res[i] < 0)
      return -res[i];

  /* As __execvpex: the error of the last candidate tried, or EACCES if
     the search went through every candidate and one was EACCES.  */
  bool eacces = false;
  int err = ENOENT;
  for (unsigned int i = c->first_exec; i < c->n && res[i] != -ECANCELED; i++)
    {
      if (res[i] >= 0)
	return 0;
      err = -res[i];
      eacces |= err == EACCES;
    }
  return eacces && exec_search_goes_on (err) ? EACCES : err;
}

/* Whether spawns go through io_uring in this process: known once per
   process, and again in a child of fork, which may run under
   restrictions its parent did not have (a seccomp filter, say).  The
   value is __fork_generation (a multiple of 4) plus URING_YES or
   URING_NO; anything else means not known yet.  Threads that race to
   find out all find the same answer.  */
enum { URING_NO = 1, URING_YES = 2 };
static unsigned long int uring_state;

/* Ask the kernel whether it has the spawn operations.  The opcode
   numbers alone prove nothing -- other kernels use them for other
   operations -- so it takes the feature bit and the answer to
   IORING_CLONE_QUERY, which no other kernel gives.  Where the answer is
   yes, the ring made for the question stays the thread's ring.  */
static bool
uring_detect (void)
{
#if HAVE_TUNABLES
  if (TUNABLE_GET (io_uring, int32_t, NULL) == 0)
    return false;
#endif
  internal_sigset_t oldmask;
  internal_signal_block_all (&oldmask);
  bool yes = false;
  struct spawn_chain c = { .ring = spawn_ring_get () };
  if (c.ring != NULL && (c.ring->features & IORING_FEAT_SPAWN))
    {
      struct io_uring_sqe *sqe = chain_add (&c, IORING_OP_CLONE);
      sqe->flags = 0;
      sqe->rw_flags = IORING_CLONE_QUERY;
      unsigned int n = spawn_ring_run (c.ring, 1);
      yes = n == 1 && spawn_ring_cqe (c.ring, 0)->res == IORING_SPAWN_MAGIC;
      spawn_ring_done (c.ring, 1, n);
    }
  if (!yes && c.ring != NULL && c.ring->mem != NULL)
    spawn_ring_close (c.ring);
  internal_signal_restore_set (&oldmask);
  return yes;
}

static bool
uring_enabled (void)
{
  unsigned long int state = atomic_load_relaxed (&uring_state);
  if ((state & ~3UL) != __fork_generation || (state & 3) == 0)
    {
      state = __fork_generation | (uring_detect () ? URING_YES : URING_NO);
      atomic_store_relaxed (&uring_state, state);
    }
  return (state & 3) == URING_YES;
}

/* The names posix_spawnp tries for FILE, as __execvpex does: FILE itself
   if it is empty or has a slash, otherwise each entry of PATH (confstr's
   _CS_PATH if PATH is unset) followed by a slash, if it is not empty,
   and FILE.  With BUF null, only count them and the bytes they need.  */
static unsigned int
path_candidates (const char *file, const char *path, char *buf,
		 size_t *size)
{
  size_t file_len = strlen (file) + 1;
  unsigned int n = 0;
  *size = 0;
  for (const char *p = path, *end; ; p = end + 1)
    {
      end = __strchrnul (p, ':');
      if (buf != NULL)
	{
	  char *pend = __mempcpy (buf + *size, p, end - p);
	  *pend = '/';
	  memcpy (pend + (p < end), file, file_len);
	}
      *size += (end - p) + (p < end) + file_len;
      n++;
      if (*end == '\0')
	return n;
    }
}

/* Write the chain of a spawn of FILE, or of the NAMES_SIZE bytes of
   PATH candidates at NAMES, into the ring.  OLDMASK is the caller's
   signal mask.  */
static void
chain_build (struct spawn_chain *c, const char *file, const char *names,
	     size_t names_size, const posix_spawn_file_actions_t *fa,
	     const posix_spawnattr_t *attr, char *const argv[],
	     char *const envp[], const internal_sigset_t *oldmask)
{
  struct io_uring_sqe *sqe = chain_add (c, IORING_OP_CLONE);
  c->clone_args = (struct clone_args) { .exit_signal = SIGCHLD };
  sqe->addr = (uintptr_t) &c->clone_args;
  sqe->len = sizeof (c->clone_args);
  chain_attributes (c, attr);
  if (fa != NULL)
    chain_file_actions (c, fa, attr);

  /* The new program's signal mask: the caller's, or
     POSIX_SPAWN_SETSIGMASK's without glibc's own signals, as sigprocmask
     would.  */
  if (attr->__flags & POSIX_SPAWN_SETSIGMASK)
    {
      internal_sigset_from_sigset (&c->sigmask, &attr->__ss);
      internal_sigdelset (&c->sigmask, SIGCANCEL);
      internal_sigdelset (&c->sigmask, SIGSETXID);
    }
  else
    c->sigmask = *oldmask;
  chain_add_sigset (c, IORING_OP_SPAWN_SIGMASK, &c->sigmask, 0);

  c->first_exec = c->n;
  if (names != NULL)
    for (const char *name = names; name < names + names_size;
	 name += strlen (name) + 1)
      chain_exec (c, name, argv, envp, IORING_EXEC_SEARCH);
  else
    chain_exec (c, file, argv, envp, 0);
  spawn_ring_sqe (c->ring, c->n - 1)->flags = 0;
}

/* Run chain C and wait for its end.  Return as __spawni_uring.  */
static int
chain_run (struct spawn_chain *c, pid_t *pid)
{
  pid_t new_pid = 0;
  int ec = -1;
  unsigned int ncqe = spawn_ring_run (c->ring, c->n);
  if (ncqe > 0)
    ec = chain_result (c, ncqe, &new_pid);
  spawn_ring_done (c->ring, c->n, ncqe);

  if (ec > 0 && new_pid > 0)
    {
      /* A failed chain ends with exit status 127.  A child killed
	 before its exec, though, is the caller's to see, as in the
	 clone path, where posix_spawn succeeds then.  */
      siginfo_t info;
      if (__waitid (P_PID, new_pid, &info, WEXITED | WNOWAIT) == 0
	  && info.si_code != CLD_EXITED)
	ec = 0;
    }
  /* A child whose chain failed has exited or is about to: reap it, as
     the clone path does, before the clone path is tried if it is.  */
  if (ec != 0 && new_pid > 0)
    __waitpid (new_pid, NULL, 0);

  if (ec == 0 && pid != NULL)
    *pid = new_pid;
  return ec;
}

/* Run the spawn as one io_uring chain.  Return -1, before any process is
   created, where this path cannot take the spawn: the clone path then
   does.  */
static int
__spawni_uring (pid_t *pid, const char *file,
		const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[],
		char *const envp[], int xflags)
{
  /* The compat ENOEXEC retry through /bin/sh has no chain equivalent.  */
  if ((xflags & SPAWN_XFLAGS_TRY_SHELL) != 0 || !uring_enabled ())
    return -1;

  const char *path = NULL;
  if ((xflags & SPAWN_XFLAGS_USE_PATH) && file[0] != '\0'
      && strchr (file, '/') == NULL)
    {
      path = getenv ("PATH") ?: CS_PATH;
      /* Names __execvpex refuses with ENAMETOOLONG take the clone path,
	 which reports it as before.  */
      if (strlen (file) > NAME_MAX || strlen (path) >= PATH_MAX)
	return -1;
    }
  size_t names_size = 0;
  unsigned int nexec = path != NULL
		       ? path_candidates (file, path, NULL, &names_size) : 1;
  unsigned int nops = (2 + ((attr->__flags & POSIX_SPAWN_SETSIGDEF) != 0)
		       + ((attr->__flags & (POSIX_SPAWN_SETSCHEDPARAM
					    | POSIX_SPAWN_SETSCHEDULER)) != 0)
		       + ((attr->__flags & POSIX_SPAWN_SETSID) != 0)
		       + ((attr->__flags & POSIX_SPAWN_SETPGROUP) != 0)
		       + ((attr->__flags & POSIX_SPAWN_RESETIDS) != 0)
		       + (fa != NULL ? fa->__used : 0) + 1);
  if (nops + nexec > URING_ENTRIES)
    return -1;

  char names[names_size + 1];
  if (path != NULL)
    path_candidates (file, path, names, &names_size);

  /* Block every signal: the thread's ring is ours until the spawn is
     over, and the child starts with them all blocked, so that nothing
     interrupts its chain.  */
  internal_sigset_t oldmask;
  internal_signal_block_all (&oldmask);
  int state;
  __pthread_setcancelstate (PTHREAD_CANCEL_DISABLE, &state);

  int ec = -1;
  struct spawn_chain c = { .ring = spawn_ring_get () };
  if (c.ring != NULL)
    {
      chain_build (&c, file, path != NULL ? names : NULL, names_size, fa,
		   attr, argv, envp, &oldmask);
      ec = chain_run (&c, pid);
    }

  __pthread_setcancelstate (state, NULL);
  internal_signal_restore_set (&oldmask);
  return ec;
}

/* Spawn a new process executing PATH with the attributes describes in *ATTRP.
   Before running the process perform the actions described in FILE-ACTIONS. */
int
__spawni (pid_t * pid, const char *file,
	  const posix_spawn_file_actions_t * acts,
	  const posix_spawnattr_t * attrp, char *const argv[],
	  char *const envp[], int xflags)
{
  static const posix_spawnattr_t default_attr;
  int ec = __spawni_uring (pid, file, acts, attrp ?: &default_attr, argv,
			   envp, xflags);
  if (ec >= 0)
    return ec;

  /* It uses __execvpex to avoid run ENOEXEC in non compatibility mode (it
     will be handled by maybe_script_execute).  */
  return __spawnix (pid, file, acts, attrp, argv, envp, xflags,
		    xflags & SPAWN_XFLAGS_USE_PATH ? __execvpex :__execve);
}
