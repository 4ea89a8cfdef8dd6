/* io_uring process spawning: the user-space view of the uring-spawn
   kernel series (patches/kernel/).  Linux specific.
   This file is part of the uring-spawn overlay of the GNU C Library.

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
#define _IO_URING_SPAWN_H 1

/* This header is the one place user space (the glibc overlay and the
   kernel tests) takes the numbers of the spawn series from.  It may be
   included after any <linux/io_uring.h>: with the headers of a kernel
   that carries the series (they define IORING_FEAT_SPAWN) it checks at
   compile time that both agree; with older headers it supplies the
   definitions itself.

   How a spawn works.  An IORING_OP_CLONE SQE heads a link chain
   (IOSQE_IO_LINK or IOSQE_IO_HARDLINK).  It creates a child process
   and its CQE carries the child's pid.  The child runs the SQEs linked
   after the clone, in order, in its own context (its own copy of the
   file table and of the cwd/umask, the submitting thread's signal mask
   and credentials, the parent's memory shared until exec) and posts
   one CQE per SQE to the ring.  A failed SQE cancels the rest of the
   chain (-ECANCELED) unless it was hard-linked.  The first successful
   IORING_OP_EXEC ends the chain: its CQE has res 0, the SQEs after it
   complete with -ECANCELED and the child continues as the new program.
   A child whose chain ends without a successful exec exits with
   status 127 once all CQEs of the chain are posted.  The child is an
   ordinary child process of the submitter: it sends exit_signal from
   struct clone_args when it terminates (SIGCHLD for a child plain
   waitpid reaps; 0 needs __WALL; a successful exec resets it to SIGCHLD,
   as execve always does) and must be reaped.

   The order of the clone's CQE and the chain's CQEs is not defined:
   match them by user_data.  All user memory the chain refers to (paths,
   argv, envp, signal sets, ...) is read by the child when the SQE runs
   and must stay valid until the chain's last CQE has been seen.

   SQE fields not listed for an operation must be zero (-EINVAL
   otherwise).  IOSQE_ASYNC, IOSQE_IO_DRAIN, IOSQE_FIXED_FILE,
   IOSQE_BUFFER_SELECT and personalities are refused everywhere in a
   chain; IOSQE_CQE_SKIP_SUCCESS is refused on the clone (its CQE is the
   pid) and honoured elsewhere.  Rings set up with SQPOLL, IOPOLL or
   DEFER_TASKRUN cannot spawn.  Only the operations below and
   IORING_OP_CLOSE may be linked after a clone; the spawn operations
   other than IORING_OP_CLONE fail with -EINVAL outside such a chain.

   SQE field names: spawn_flags is a new member of the operation-flags
   union (the one holding rw_flags); with older headers use rw_flags.
   sqe->off is the same field as sqe->addr2.

   IORING_OP_CLONE	addr: struct clone_args *, len: its size (clone3
			size versioning: CLONE_ARGS_SIZE_VER0 and up;
			larger sizes with non-zero tail give E2BIG).
			Flags: CLONE_PIDFD, CLONE_INTO_CGROUP,
			CLONE_CLEAR_SIGHAND; exit_signal any valid signal;
			stack, tls, set_tid and the tid pointers zero.
			spawn_flags: 0, or IORING_CLONE_QUERY (see below).
			res: the child's pid, or -errno; -EINTR when a
			signal for the submitter came in during the clone
			(fork would restart, a request cannot: retry).
   IORING_OP_EXEC	execveat: fd: directory fd or AT_FDCWD, addr:
			path, off: argv, addr3: envp, spawn_flags:
			AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW.  res: 0 or
			-errno (-ENOENT, -EACCES, -ENOEXEC, -E2BIG,
			-EFAULT, ...).
   IORING_OP_SPAWN_OPEN	open onto a given fd: fd: directory fd or
			AT_FDCWD, addr: path, spawn_flags: O_* flags,
			len: mode, off: the target fd.  The target is
			closed first, the file then lands on exactly
			that number.  res: the target fd.
   IORING_OP_CLOSE	(the mainline opcode, reused) fd: the fd to
			close in the child.  io_uring fds cannot be closed
			this way (-EBADF); use CLOSE_RANGE for those.
   IORING_OP_SPAWN_DUP2	fd: old fd, off: new fd.  If they are equal
			FD_CLOEXEC is cleared (POSIX).  res: new fd.
   IORING_OP_SPAWN_CLOSE_RANGE
			close_range: fd: first, off: last (at most
			~0U), spawn_flags: CLOSE_RANGE_CLOEXEC or
			CLOSE_RANGE_UNSHARE.  res: 0.
   IORING_OP_SPAWN_CHDIR	addr: path.  res: 0.
   IORING_OP_SPAWN_FCHDIR	fd: a directory fd.  res: 0.
   IORING_OP_SPAWN_SETSID	no fields.  res: the new session id.
   IORING_OP_SPAWN_SETPGID	off: process group id, 0: the child's pid.
			res: 0.
   IORING_OP_SPAWN_SIGMASK	addr: sigset_t * (kernel layout), len: its
			size (8).  Sets the blocked mask.  res: 0.
   IORING_OP_SPAWN_SIGDEFAULT
			addr: sigset_t *, len: 8.  Sets the disposition of
			each signal in the set to SIG_DFL (SIGKILL and
			SIGSTOP are skipped).  res: 0.
   IORING_OP_SPAWN_SCHED	addr: struct sched_param *; spawn_flags 0:
			sched_setparam (len must be 0);
			IORING_SPAWN_SCHED_SETSCHEDULER:
			sched_setscheduler with policy len.  res: 0.
   IORING_OP_SPAWN_RESETIDS
			setegid (getgid ()); seteuid (getuid ()).  res: 0.
   IORING_OP_SPAWN_TCSETPGRP
			tcsetpgrp: fd: the terminal, off: process group,
			0: the child's own process group.  res: 0.

   Detection.  A kernel without the series can show neither of these,
   and user space must check both before it relies on spawn chains:
   IORING_FEAT_SPAWN in io_uring_params.features after
   io_uring_setup, and an unlinked IORING_OP_CLONE SQE whose only
   non-zero field is spawn_flags == IORING_CLONE_QUERY completing with
   res == IORING_SPAWN_MAGIC (no task is created).  The opcode probe
   alone proves nothing: other kernels may use the same numbers.  The
   low byte of the magic is the version of the spawn ABI; a version
   other than IORING_SPAWN_ABI_VERSION means an incompatible series.  */

#include <linux/io_uring.h>

/* The values, under names no kernel header uses.  */
#define __IORING_SPAWN_OP_CLONE			128
#define __IORING_SPAWN_OP_EXEC			129
#define __IORING_SPAWN_OP_SPAWN_OPEN		130
#define __IORING_SPAWN_OP_SPAWN_DUP2		131
#define __IORING_SPAWN_OP_SPAWN_CLOSE_RANGE	132
#define __IORING_SPAWN_OP_SPAWN_CHDIR		133
#define __IORING_SPAWN_OP_SPAWN_FCHDIR		134
#define __IORING_SPAWN_OP_SPAWN_SETSID		135
#define __IORING_SPAWN_OP_SPAWN_SETPGID		136
#define __IORING_SPAWN_OP_SPAWN_SIGMASK		137
#define __IORING_SPAWN_OP_SPAWN_SIGDEFAULT	138
#define __IORING_SPAWN_OP_SPAWN_SCHED		139
#define __IORING_SPAWN_OP_SPAWN_RESETIDS	140
#define __IORING_SPAWN_OP_SPAWN_TCSETPGRP	141
#define __IORING_SPAWN_FEAT_SPAWN		(1U << 31)
#define __IORING_SPAWN_CLONE_QUERY		(1U << 0)
#define __IORING_SPAWN_MAGIC_MASK		0xffffff00U
#define __IORING_SPAWN_MAGIC_TAG		0x53505700U
#define __IORING_SPAWN_ABI_VERSION		2
#define __IORING_SPAWN_SCHED_SETSCHEDULER	(1U << 0)

#ifdef IORING_FEAT_SPAWN
/* The kernel headers carry the series: they must agree with us.  */
# define __IORING_SPAWN_CHECK(a, b) \
  _Static_assert ((a) == (b), #a " differs from the kernel's " #b)
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_CLONE, IORING_OP_CLONE);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_EXEC, IORING_OP_EXEC);
__IORING_SPAWN_CHECK (__IORING_SPAWN_FEAT_SPAWN, IORING_FEAT_SPAWN);
__IORING_SPAWN_CHECK (__IORING_SPAWN_CLONE_QUERY, IORING_CLONE_QUERY);
__IORING_SPAWN_CHECK (__IORING_SPAWN_MAGIC_MASK, IORING_SPAWN_MAGIC_MASK);
__IORING_SPAWN_CHECK (__IORING_SPAWN_MAGIC_TAG, IORING_SPAWN_MAGIC_TAG);
__IORING_SPAWN_CHECK (__IORING_SPAWN_ABI_VERSION, IORING_SPAWN_ABI_VERSION);
__IORING_SPAWN_CHECK (__IORING_SPAWN_MAGIC_TAG | __IORING_SPAWN_ABI_VERSION,
		      IORING_SPAWN_MAGIC);
# ifdef IORING_SPAWN_SCHED_SETSCHEDULER
/* Kernel headers with every spawn operation.  */
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_OPEN, IORING_OP_SPAWN_OPEN);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_DUP2, IORING_OP_SPAWN_DUP2);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_CLOSE_RANGE,
		      IORING_OP_SPAWN_CLOSE_RANGE);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_CHDIR, IORING_OP_SPAWN_CHDIR);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_FCHDIR,
		      IORING_OP_SPAWN_FCHDIR);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_SETSID,
		      IORING_OP_SPAWN_SETSID);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_SETPGID,
		      IORING_OP_SPAWN_SETPGID);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_SIGMASK,
		      IORING_OP_SPAWN_SIGMASK);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_SIGDEFAULT,
		      IORING_OP_SPAWN_SIGDEFAULT);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_SCHED, IORING_OP_SPAWN_SCHED);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_RESETIDS,
		      IORING_OP_SPAWN_RESETIDS);
__IORING_SPAWN_CHECK (__IORING_SPAWN_OP_SPAWN_TCSETPGRP,
		      IORING_OP_SPAWN_TCSETPGRP);
__IORING_SPAWN_CHECK (__IORING_SPAWN_SCHED_SETSCHEDULER,
		      IORING_SPAWN_SCHED_SETSCHEDULER);
# endif
# undef __IORING_SPAWN_CHECK
#else
/* Older kernel headers: supply the definitions.  */
# define IORING_OP_CLONE		__IORING_SPAWN_OP_CLONE
# define IORING_OP_EXEC			__IORING_SPAWN_OP_EXEC
# define IORING_FEAT_SPAWN		__IORING_SPAWN_FEAT_SPAWN
# define IORING_CLONE_QUERY		__IORING_SPAWN_CLONE_QUERY
# define IORING_SPAWN_MAGIC_MASK	__IORING_SPAWN_MAGIC_MASK
# define IORING_SPAWN_MAGIC_TAG		__IORING_SPAWN_MAGIC_TAG
# define IORING_SPAWN_ABI_VERSION	__IORING_SPAWN_ABI_VERSION
# define IORING_SPAWN_MAGIC \
  (IORING_SPAWN_MAGIC_TAG | IORING_SPAWN_ABI_VERSION)
#endif

#ifndef IORING_SPAWN_SCHED_SETSCHEDULER
/* Headers without the spawn operations after IORING_OP_EXEC.  */
# define IORING_OP_SPAWN_OPEN		__IORING_SPAWN_OP_SPAWN_OPEN
# define IORING_OP_SPAWN_DUP2		__IORING_SPAWN_OP_SPAWN_DUP2
# define IORING_OP_SPAWN_CLOSE_RANGE	__IORING_SPAWN_OP_SPAWN_CLOSE_RANGE
# define IORING_OP_SPAWN_CHDIR		__IORING_SPAWN_OP_SPAWN_CHDIR
# define IORING_OP_SPAWN_FCHDIR		__IORING_SPAWN_OP_SPAWN_FCHDIR
# define IORING_OP_SPAWN_SETSID		__IORING_SPAWN_OP_SPAWN_SETSID
# define IORING_OP_SPAWN_SETPGID	__IORING_SPAWN_OP_SPAWN_SETPGID
# define IORING_OP_SPAWN_SIGMASK	__IORING_SPAWN_OP_SPAWN_SIGMASK
# define IORING_OP_SPAWN_SIGDEFAULT	__IORING_SPAWN_OP_SPAWN_SIGDEFAULT
# define IORING_OP_SPAWN_SCHED		__IORING_SPAWN_OP_SPAWN_SCHED
# define IORING_OP_SPAWN_RESETIDS	__IORING_SPAWN_OP_SPAWN_RESETIDS
# define IORING_OP_SPAWN_TCSETPGRP	__IORING_SPAWN_OP_SPAWN_TCSETPGRP
# define IORING_SPAWN_SCHED_SETSCHEDULER __IORING_SPAWN_SCHED_SETSCHEDULER
#endif

/* ABI version 2 adds what posix_spawn needs to keep glibc's semantics.
   IORING_SPAWN_SIG_IGN (IORING_OP_SPAWN_SIGDEFAULT spawn_flags): set the
   signals in the set to SIG_IGN instead of SIG_DFL.
   IORING_EXEC_SEARCH (IORING_OP_EXEC spawn_flags): a PATH search step; if
   the exec fails with EACCES, ENOENT, ESTALE, ENOTDIR, ENODEV or ETIMEDOUT
   the chain goes on with the next SQE, as execvp goes on with the next
   directory; any other error ends it as a failed linked SQE does.
   IORING_OP_SPAWN_OPEN lands the file as open and then dup2 onto the
   target would: O_CLOEXEC stays only if the target is the lowest free
   descriptor.  */
#define __IORING_SPAWN_SIG_IGN			(1U << 0)
#define __IORING_EXEC_SEARCH			(1U << 24)
#ifdef IORING_EXEC_SEARCH
_Static_assert (__IORING_SPAWN_SIG_IGN == IORING_SPAWN_SIG_IGN,
		"IORING_SPAWN_SIG_IGN differs from the kernel's");
_Static_assert (__IORING_EXEC_SEARCH == IORING_EXEC_SEARCH,
		"IORING_EXEC_SEARCH differs from the kernel's");
#else
# define IORING_SPAWN_SIG_IGN		__IORING_SPAWN_SIG_IGN
# define IORING_EXEC_SEARCH		__IORING_EXEC_SEARCH
#endif

#endif /* io_uring_spawn.h */
