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

#include <atomic.h>
#include <clone3.h>
#include <clone_internal.h>
#include <confstr.h>
#include <errno.h>
#include <execvpe-search.h>
#include <fcntl.h>
#include <internal-signals.h>
#include <io_uring_spawn.h>
#include <ldsodefs.h>
#include <libc-internal.h>
#include <not-cancel.h>
#include <pthreadP.h>
#include <spawn_int.h>
#include <spawni-uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sysdep.h>
#include <tls-internal.h>
#include <unistd.h>
#define TUNABLE_NAMESPACE spawn
#include <elf/dl-tunables.h>

#if HAVE_SPAWN_URING

/* A kernel that runs io_uring spawn chains takes a whole spawn as one
   submission:

     IORING_OP_CLONE		the child, with the attributes and the new
				program's signal mask and dispositions
     IORING_OP_SPAWN_ACTION	one per file action, in order
     IORING_OP_EXEC		one per PATH candidate

   The kernel creates the child without our memory, runs the attributes
   and file actions in it as __spawni_child would run the system calls,
   and executes the program; no code of ours runs in the child.  All the
   CQEs of the chain come when it is over; the clone's has the child's
   pid, and IORING_CQE_F_SPAWN_GONE when the chain failed and the child
   left no trace.

   The kernel tells in the auxiliary vector whether it runs chains for
   this process, so that no system call is made to find out.  It may
   still refuse a chain: -EOPNOTSUPP under a seccomp filter or a tracer,
   -EACCES under io_uring's own restrictions or filters.  The clone path
   then spawns.

   Each thread that spawns has a ring, made by its first spawn and freed
   when the thread exits.  It has no file descriptor, so nothing the
   application does to its descriptors reaches it and no child inherits
   it.  It sits in the thread's private registered-ring slot, which the
   application's own io_uring registration calls cannot name.  Its memory
   is ours (IORING_SETUP_NO_MMAP), wiped in a child of fork, which then
   makes a ring of its own.  Signals are blocked while a spawn uses it,
   so a signal handler cannot spawn through it at the same time; at the
   thread's exit a handler finds it gone before its pages are unmapped,
   and the kernel frees the ring with the thread.  */

#ifndef SHARED
/* The hook that frees a thread's ring at its exit is linked into a
   static program only if something refers to it.  */
static void (*const uring_free_hook) (void) __attribute_used__
  = __glibc_tls_internal_free;
#endif

/* The SQEs of a spawn at most, and the CQ's size: a page of SQEs.
   Longer spawns take the clone path.  */
#define URING_ENTRIES 64
_Static_assert (URING_ENTRIES * sizeof (struct io_uring_sqe) <= 4096,
		"the SQEs fit in a page");

/* After the kernel refused a chain, the clone path takes the next
   BACKOFF spawns of the thread: 1, 3, 7... after successive refusals,
   up to this; a chain the kernel runs resets it.  */
#define URING_BACKOFF_MAX 1024

/* The kernel's spawn features for this process, or 0 if it runs no
   chains for it or the tunable says no; -1 if not known yet.  */
static long int uring_features = -1;

static long int
uring_enabled (void)
{
  /* The chain's signal sets hold signals 1 to 64: with more, the clone
     path.  */
  if (_NSIG > 65)
    return 0;
  long int features = atomic_load_relaxed (&uring_features);
  if (features < 0)
    {
      unsigned long int aux;
      features = 0;
      /* Only the initial libc: a thread's exit frees its ring, and for
	 a secondary namespace (dlmopen, static dlopen) that runs another
	 libc's code, which a static program may not even have.  */
      if (__libc_initial && __getauxval2 (AT_IO_URING_SPAWN, &aux)
	  && (aux & IORING_SPAWN_F_CHAIN) != 0
	  && TUNABLE_GET (io_uring, int32_t, NULL) != 0)
	features = aux;
      atomic_store_relaxed (&uring_features, features);
    }
  return features;
}

/* The ring's memory: one page for the SQ and CQ rings, one for the SQEs,
   one for the names of a PATH search.  */
enum { RING_PAGE, SQE_PAGE, NAMES_PAGE, RING_PAGES };

static size_t
ring_size (void)
{
  return RING_PAGES * GLRO (dl_pagesize);
}

static char *
ring_page (const struct spawn_ring *r, int page)
{
  return r->mem + page * GLRO (dl_pagesize);
}

static unsigned int *
ring_u32 (const struct spawn_ring *r, unsigned short int off)
{
  return (unsigned int *) (r->mem + off);
}

/* Make the ring.  Return 0, or the error of the system call that
   failed.  */
static int
ring_open (struct spawn_ring *r)
{
  char *mem = __mmap (NULL, ring_size (), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return errno;
  /* A child of fork gets zeroes here, and so no ring_entries.  */
  if (__madvise (mem, ring_size (), MADV_WIPEONFORK) != 0)
    {
      int err = errno;
      __munmap (mem, ring_size ());
      return err;
    }

  struct io_uring_params p =
    {
      .flags = (IORING_SETUP_NO_MMAP | IORING_SETUP_REGISTERED_FD_ONLY
		| IORING_SETUP_PRIVATE_SLOT | IORING_SETUP_NO_SQARRAY
		| IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN
		| IORING_SETUP_CQSIZE),
      .cq_entries = URING_ENTRIES,
      .cq_off.user_addr = (uintptr_t) mem,
      .sq_off.user_addr = (uintptr_t) mem + GLRO (dl_pagesize),
    };
  long int ret = INTERNAL_SYSCALL_CALL (io_uring_setup, URING_ENTRIES, &p);
  if (INTERNAL_SYSCALL_ERROR_P (ret))
    {
      __munmap (mem, ring_size ());
      return INTERNAL_SYSCALL_ERRNO (ret);
    }
  /* The SQE and CQE indexes below assume these sizes.  A kernel that
     chose others keeps the ring, and the pages it pinned, until the
     thread exits.  */
  if (p.sq_entries != URING_ENTRIES || p.cq_entries != URING_ENTRIES)
    {
      __munmap (mem, ring_size ());
      return EINVAL;
    }
  *r = (struct spawn_ring)
    {
      .mem = mem,
      .index = ret,
      .sq_tail_off = p.sq_off.tail,
      .sq_entries_off = p.sq_off.ring_entries,
      .cq_head_off = p.cq_off.head,
      .cq_tail_off = p.cq_off.tail,
      .cqes_off = p.cq_off.cqes,
    };
  return 0;
}

/* The calling thread's ring, made if needed; null if it has none or must
   not use one now.  */
static struct spawn_ring *
ring_get (void)
{
  struct pthread *self = THREAD_SELF;
  struct spawn_ring *r = &self->tls_state.spawn_ring;
  int tid = THREAD_GETMEM (self, tid);

  /* A child of vfork, or of a raw clone, has this thread's descriptor
     but another tid: it must not touch the ring.  */
  if (INTERNAL_SYSCALL_CALL (gettid) != tid)
    return NULL;

  /* In a child of fork the ring's pages are wiped: the ring was the
     parent's.  */
  if (r->mem != NULL && *ring_u32 (r, r->sq_entries_off) == 0)
    {
      __munmap (r->mem, ring_size ());
      *r = (struct spawn_ring) { 0 };
    }

  if (r->mem != NULL)
    {
      if (r->backoff_left == 0)
	return r;
      r->backoff_left--;
      return NULL;
    }
  if (r->failed)
    return NULL;

  int err = ring_open (r);
  if (err != 0)
    {
      /* Not again in this thread when io_uring is not there for us
	 (disabled, restricted, the private slot taken); a lack of
	 memory is no reason to stop trying.  */
      if (err == EPERM || err == EINVAL || err == ENOSYS || err == EBUSY
	  || err == EACCES)
	r->failed = 1;
      return NULL;
    }
  return r;
}

void
__spawni_uring_freeres (void)
{
  struct pthread *self = THREAD_SELF;
  struct spawn_ring *r = &self->tls_state.spawn_ring;
  /* A thread that never spawned through io_uring has nothing to free and
     makes no system call here.  */
  if (r->mem == NULL)
    return;
  /* Signals are not blocked here: a handler that spawns from now on
     finds no ring and makes none.  The kernel frees the ring itself
     when the thread exits, and keeps the pages it pinned until then.  */
  char *mem = r->mem;
  r->mem = NULL;
  r->failed = 1;
  __munmap (mem, ring_size ());
}

static struct io_uring_sqe *
ring_sqe (const struct spawn_ring *r, unsigned int i)
{
  struct io_uring_sqe *sqes = (struct io_uring_sqe *) ring_page (r, SQE_PAGE);
  return &sqes[(r->sq_tail + i) % URING_ENTRIES];
}

static const struct io_uring_cqe *
ring_cqe (const struct spawn_ring *r, unsigned int i)
{
  const struct io_uring_cqe *cqes
    = (const struct io_uring_cqe *) (r->mem + r->cqes_off);
  return &cqes[(r->cq_head + i) % URING_ENTRIES];
}

static long int
ring_enter (const struct spawn_ring *r, unsigned int submit,
	    unsigned int wait)
{
  return INTERNAL_SYSCALL_CALL (io_uring_enter, r->index, submit, wait,
				IORING_ENTER_GETEVENTS
				| IORING_ENTER_REGISTERED_RING, NULL, 0);
}

/* Hand the N CQEs after the CQ head back to the kernel.  */
static void
ring_consume (struct spawn_ring *r, unsigned int n)
{
  r->cq_head += n;
  atomic_store_release (ring_u32 (r, r->cq_head_off), r->cq_head);
}

/* Wait until the N CQEs after the CQ head are there.  Until they are,
   the kernel may still create a child, read the caller's argv and write
   the pidfd into posix_spawn's frame: if they cannot be waited for,
   nothing safe is left to do.  */
static void
ring_wait (struct spawn_ring *r, unsigned int n)
{
  while (atomic_load_acquire (ring_u32 (r, r->cq_tail_off)) - r->cq_head < n)
    {
      long int ret = ring_enter (r, 0, n);
      if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
	__libc_fatal ("Fatal glibc error: posix_spawn cannot wait for its "
		      "io_uring completion\n");
    }
}

/* Submit the N SQEs after the SQ tail and wait for their N CQEs.  False
   if the kernel did not take the whole chain, which then did nothing:
   no child exists, the CQEs of what the kernel took are consumed and the
   ring is as before, or given up if it will take none.  */
static bool
ring_run (struct spawn_ring *r, unsigned int n)
{
  atomic_store_release (ring_u32 (r, r->sq_tail_off), r->sq_tail + n);
  long int ret;
  do
    ret = ring_enter (r, n, n);
  while (ret == -EINTR);
  if (ret == n)
    {
      r->sq_tail += n;
      ring_wait (r, n);
      return true;
    }

  if (ret == -EBADF || ret == -EINVAL || ret == -EOPNOTSUPP
      || ret == -EEXIST)
    {
      /* The ring will never take a submission: not again in this
	 thread.  */
      __munmap (r->mem, ring_size ());
      r->mem = NULL;
      r->failed = 1;
      return false;
    }

  /* The kernel took the first TAKEN SQEs only (it ran out of memory for
     the next request, for instance).  It fails a chain it did not get
     whole, before any child exists, with a CQE for each SQE it took;
     the rest were never seen.  */
  unsigned int taken = ret > 0 ? ret : 0;
  r->sq_tail += taken;
  atomic_store_release (ring_u32 (r, r->sq_tail_off), r->sq_tail);
  ring_wait (r, taken);
  ring_consume (r, taken);
  return false;
}

/* The chain being written into the ring.  */
struct chain
{
  struct spawn_ring *ring;
  unsigned int n;			/* SQEs so far.  */
  unsigned int first_exec;		/* The first EXEC.  */
  struct clone_args clone_args;
  struct io_uring_spawn_attr attr;
};

static struct io_uring_sqe *
chain_add (struct chain *c, int opcode)
{
  struct io_uring_sqe *sqe = ring_sqe (c->ring, c->n);
  memset (sqe, 0, sizeof (*sqe));
  sqe->opcode = opcode;
  sqe->flags = IOSQE_IO_LINK;
  sqe->user_data = c->n++;
  return sqe;
}

static struct io_uring_sqe *
chain_action (struct chain *c, unsigned int action, int fd)
{
  struct io_uring_sqe *sqe = chain_add (c, IORING_OP_SPAWN_ACTION);
  sqe->cmd_op = action;
  sqe->fd = fd;
  return sqe;
}

static uint64_t
sigset_bits (const internal_sigset_t *set)
{
  uint64_t bits = 0;
  for (int sig = 1; sig < _NSIG && sig <= 64; sig++)
    if (internal_sigismember (set, sig))
      bits |= UINT64_C (1) << (sig - 1);
  return bits;
}

/* The clone, with the attributes and the signal state __spawni_child
   gives the new program: handlers reset (the kernel implies
   CLONE_CLEAR_SIGHAND), the POSIX_SPAWN_SETSIGDEF signals to SIG_DFL,
   and the caller's signal mask, or POSIX_SPAWN_SETSIGMASK's without
   the internal signals.  */
static void
chain_clone (struct chain *c, const posix_spawnattr_t *attr,
	     const internal_sigset_t *oldmask, int *pidfd, bool snapshot)
{
  short int flags = attr->__flags;
  internal_sigset_t set;

  c->clone_args = (struct clone_args) { .exit_signal = SIGCHLD };
  if (pidfd != NULL)
    {
      c->clone_args.flags |= CLONE_PIDFD;
      c->clone_args.pidfd = (uintptr_t) pidfd;
    }
  if (flags & POSIX_SPAWN_SETCGROUP)
    {
      c->clone_args.flags |= CLONE_INTO_CGROUP;
      c->clone_args.cgroup = attr->__cgroup;
    }

  /* The caller's mask is the one in force while the chain is submitted
     with every signal blocked: always pass it.  */
  c->attr = (struct io_uring_spawn_attr)
    { .flags = IORING_SPAWN_ATTR_SETSIGMASK };
  if (flags & POSIX_SPAWN_SETSIGMASK)
    {
      internal_sigset_from_sigset (&set, &attr->__ss);
      internal_sigdelset (&set, SIGCANCEL);
      internal_sigdelset (&set, SIGSETXID);
      c->attr.sigmask = sigset_bits (&set);
    }
  else
    c->attr.sigmask = sigset_bits (oldmask);
  if (flags & POSIX_SPAWN_SETSIGDEF)
    {
      internal_sigset_from_sigset (&set, &attr->__sd);
      c->attr.flags |= IORING_SPAWN_ATTR_SETSIGDEF;
      c->attr.sigdefault = sigset_bits (&set);
    }
  if ((flags & (POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER))
      == POSIX_SPAWN_SETSCHEDPARAM)
    {
      c->attr.flags |= IORING_SPAWN_ATTR_SETSCHEDPARAM;
      c->attr.sched_priority = attr->__sp.sched_priority;
    }
  else if (flags & POSIX_SPAWN_SETSCHEDULER)
    {
      c->attr.flags |= IORING_SPAWN_ATTR_SETSCHEDULER;
      c->attr.sched_policy = attr->__policy;
      c->attr.sched_priority = attr->__sp.sched_priority;
    }
  if (flags & POSIX_SPAWN_SETSID)
    c->attr.flags |= IORING_SPAWN_ATTR_SETSID;
  if (flags & POSIX_SPAWN_SETPGROUP)
    {
      c->attr.flags |= IORING_SPAWN_ATTR_SETPGROUP;
      c->attr.pgid = attr->__pgrp;
    }
  if (flags & POSIX_SPAWN_RESETIDS)
    c->attr.flags |= IORING_SPAWN_ATTR_RESETIDS;

  struct io_uring_sqe *sqe = chain_add (c, IORING_OP_CLONE);
  sqe->addr = (uintptr_t) &c->clone_args;
  sqe->len = sizeof (c->clone_args);
  sqe->addr2 = (uintptr_t) &c->attr;
  sqe->optlen = sizeof (c->attr);
  if (snapshot)
    sqe->spawn_flags = IORING_CLONE_FD_SNAPSHOT;
}

static void
chain_file_actions (struct chain *c, const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attr)
{
  for (int i = 0; i < fa->__used; i++)
    {
      const struct __spawn_action *action = &fa->__actions[i];
      struct io_uring_sqe *sqe;

      switch (action->tag)
	{
	case spawn_do_close:
	  /* As __spawni_child: no close error below the limit (a
	     descriptor not open, a flush that failed), EBADF above.  */
	  sqe = chain_action (c, IORING_SPAWN_CLOSE,
			      action->action.close_action.fd);
	  sqe->spawn_flags = IORING_SPAWN_CLOSE_IN_LIMIT;
	  break;

	case spawn_do_open:
	  sqe = chain_action (c, IORING_SPAWN_OPEN, AT_FDCWD);
	  sqe->addr = (uintptr_t) action->action.open_action.path;
	  sqe->spawn_flags = action->action.open_action.oflag | O_LARGEFILE;
	  sqe->len = action->action.open_action.mode;
	  sqe->addr3 = action->action.open_action.fd;
	  break;

	case spawn_do_dup2:
	  sqe = chain_action (c, IORING_SPAWN_DUP2,
			      action->action.dup2_action.fd);
	  sqe->addr3 = action->action.dup2_action.newfd;
	  break;

	case spawn_do_chdir:
	  sqe = chain_action (c, IORING_SPAWN_CHDIR, 0);
	  sqe->addr = (uintptr_t) action->action.chdir_action.path;
	  break;

	case spawn_do_fchdir:
	  chain_action (c, IORING_SPAWN_FCHDIR,
			action->action.fchdir_action.fd);
	  break;

	case spawn_do_closefrom:
	  sqe = chain_action (c, IORING_SPAWN_CLOSE_RANGE,
			      action->action.closefrom_action.from);
	  sqe->addr3 = ~0U;
	  break;

	case spawn_do_tcsetpgrp:
	  /* 0 is the child's process group.  */
	  sqe = chain_action (c, IORING_SPAWN_TCSETPGRP,
			      action->action.setpgrp_action.fd);
	  if ((attr->__flags & POSIX_SPAWN_SETPGROUP) != 0)
	    sqe->addr3 = attr->__pgrp;
	  break;
	}
    }
}

static void
chain_exec (struct chain *c, const char *path, char *const argv[],
	    char *const envp[], unsigned int flags)
{
  struct io_uring_sqe *sqe = chain_add (c, IORING_OP_EXEC);
  sqe->fd = AT_FDCWD;
  sqe->addr = (uintptr_t) path;
  sqe->addr2 = (uintptr_t) argv;
  sqe->addr3 = (uintptr_t) envp;
  sqe->spawn_flags = flags;
}

/* Write into BUF, of SIZE bytes, the names posix_spawnp tries for FILE,
   as __execvpex does: each entry of PATH followed by a slash, if it is
   not empty, and FILE.  Return how many, or 0 if they do not fit; *USED
   is the bytes they take.  */
static unsigned int
path_candidates (const char *file, const char *path, char *buf,
		 size_t size, size_t *used)
{
  size_t file_len = strlen (file) + 1;
  unsigned int n = 0;
  *used = 0;
  for (const char *p = path, *end; ; p = end + 1)
    {
      end = __strchrnul (p, ':');
      size_t len = (end - p) + (p < end) + file_len;
      if (len > size - *used)
	return 0;
      char *pend = __mempcpy (buf + *used, p, end - p);
      *pend = '/';
      memcpy (pend + (p < end), file, file_len);
      *used += len;
      n++;
      if (*end == '\0')
	return n;
    }
}

/* Whether a path may lead to a descriptor: a relative one (through a
   directory descriptor or a working directory in /proc), one in /proc or
   /dev, or one spelled so that a prefix test cannot tell (an empty, "."
   or ".." component, as in "//proc" or "/../proc").  A symbolic link
   elsewhere that points there is not seen.  */
static bool
path_may_name_fd (const char *path)
{
  if (path[0] != '/'
      || strncmp (path, "/proc/", 6) == 0
      || strncmp (path, "/dev/", 5) == 0)
    return true;
  for (const char *p = path; *p != '\0'; )
    {
      /* P is at a slash; the component after it ends at Q.  */
      const char *q = __strchrnul (p + 1, '/');
      size_t len = q - (p + 1);
      if (len == 0 || (len == 1 && p[1] == '.')
	  || (len == 2 && p[1] == '.' && p[2] == '.'))
	return true;
      p = q;
    }
  return false;
}

/* Whether the child needs none of the caller's close-on-exec descriptors:
   no file action reaches a descriptor through a path, and no program
   name may lead to one.  */
static bool
chain_may_snapshot (const posix_spawn_file_actions_t *fa, const char *file,
		    const char *names, size_t names_size)
{
  if (fa != NULL)
    for (int i = 0; i < fa->__used; i++)
      if (fa->__actions[i].tag == spawn_do_open
	  || fa->__actions[i].tag == spawn_do_chdir)
	return false;
  if (names == NULL)
    return !path_may_name_fd (file);
  for (const char *name = names; name < names + names_size;
       name += strlen (name) + 1)
    if (path_may_name_fd (name))
      return false;
  return true;
}

/* The outcome of the chain C from its CQEs: whether an EXEC succeeded,
   else the error posix_spawn reports, the clone's result in *CLONE_RES
   and its CQE flags in *CFLAGS.  The error is 0 if the chain ended
   before a failure was final: a signal killed the child (the clone
   path's child then reports none), or the kernel ended a search with
   the snapshot at a program whose interpreter it may lack.  The steps
   after that are -ECANCELED.  *LAST_EXEC is the EXEC tried last,
   counted from the first.  */
static int
chain_result (const struct chain *c, bool *execd, int *clone_res,
	      unsigned int *cflags, unsigned int *last_exec)
{
  int res[URING_ENTRIES];
  for (unsigned int i = 0; i < c->n; i++)
    res[i] = -ECANCELED;
  for (unsigned int i = 0; i < c->n; i++)
    {
      const struct io_uring_cqe *cqe = ring_cqe (c->ring, i);
      if (cqe->user_data < c->n)
	res[cqe->user_data] = cqe->res;
      if (cqe->user_data == 0)
	*cflags = cqe->flags;
    }
  *clone_res = res[0];
  *execd = false;

  for (unsigned int i = 1; i < c->first_exec; i++)
    if (res[i] < 0 && res[i] != -ECANCELED)
      return -res[i];

  /* As __execvpex: the error of the last name tried, or EACCES if the
     search went through every name and one was EACCES.  */
  bool eacces = false;
  int err = 0;
  unsigned int i;
  for (i = c->first_exec; i < c->n && res[i] != -ECANCELED; i++)
    {
      *last_exec = i - c->first_exec;
      if (res[i] >= 0)
	{
	  *execd = true;
	  return 0;
	}
      err = -res[i];
      eacces |= err == EACCES;
    }
  if (!__execvpe_search_goes_on (err))
    return err;
  /* A search cut short had not failed yet.  */
  if (i < c->n)
    return 0;
  return eacces ? EACCES : err;
}

/* Whether the program that EXEC number I (from the first) of a chain
   for FILE, or for the PATH candidates NAMES, named is there for the
   caller, looked up with the effective IDs, as its exec looks it up.  */
static bool
exec_name_exists (const char *names, const char *file, unsigned int i)
{
  const char *name = file;
  if (names != NULL)
    for (name = names; i > 0; i--)
      name += strlen (name) + 1;
  return INTERNAL_SYSCALL_CALL (faccessat2, AT_FDCWD, name, F_OK,
				AT_EACCESS) == 0;
}

int
__spawni_uring (int *pid, const char *file,
		const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[],
		char *const envp[], int xflags)
{
  /* The compat ENOEXEC retry through /bin/sh has no chain equivalent.  */
  if ((xflags & SPAWN_XFLAGS_TRY_SHELL) != 0)
    return -1;
  long int features = uring_enabled ();
  if (features == 0)
    return -1;
  bool use_pidfd = (xflags & SPAWN_XFLAGS_RET_PIDFD) != 0;
  /* Let the clone path report ENOSYS.  */
  if (use_pidfd && !__clone_pidfd_supported ())
    return -1;
  /* A compound literal here would not outlive the if statement.  */
  static const posix_spawnattr_t no_attr;
  if (attr == NULL)
    attr = &no_attr;

  const char *path = NULL;
  if ((xflags & SPAWN_XFLAGS_USE_PATH) && file[0] != '\0'
      && strchr (file, '/') == NULL)
    {
      path = getenv ("PATH") ?: CS_PATH;
      /* A name __execvpex refuses with ENAMETOOLONG, or a PATH long
	 enough that it skips entries: the clone path does either.  */
      if (strlen (file) > NAME_MAX || strlen (path) >= PATH_MAX)
	return -1;
    }
  unsigned int nops = 1 + (fa != NULL ? fa->__used : 0);
  if (nops >= URING_ENTRIES)
    return -1;

  /* A process that came under a seccomp filter after it started is
     refused by the kernel; a filter could also kill it for the io_uring
     calls that would find out.  */
  if (INTERNAL_SYSCALL_CALL (prctl, PR_GET_SECCOMP) != 0)
    return -1;

  int pidfd = -1;
  int ec = -1;
  /* posix_spawn reports its errors by its result: errno is left as it
     was, whatever the ring's system calls set.  */
  int saved_errno = errno;
  int state;
  __pthread_setcancelstate (PTHREAD_CANCEL_DISABLE, &state);
  /* As for the clone path: a concurrent abort must not make the child
     see SIGABRT's disposition half-changed.  It also blocks every
     signal, so that no handler uses the ring meanwhile.  */
  internal_sigset_t oldmask;
  __abort_lock_rdlock (&oldmask);

  struct chain c = { .ring = ring_get () };
  if (c.ring == NULL)
    goto out;

  char *names = NULL;
  size_t names_size = 0;
  unsigned int nexec = 1;
  if (path != NULL)
    {
      names = ring_page (c.ring, NAMES_PAGE);
      nexec = path_candidates (file, path, names, GLRO (dl_pagesize),
			       &names_size);
      if (nexec == 0 || nops + nexec > URING_ENTRIES)
	goto out;
    }
  bool snapshot = ((features & IORING_SPAWN_F_FD_SNAPSHOT) != 0
		   && chain_may_snapshot (fa, file, names, names_size));

  chain_clone (&c, attr, &oldmask, use_pidfd ? &pidfd : NULL, snapshot);
  if (fa != NULL)
    chain_file_actions (&c, fa, attr);
  c.first_exec = c.n;
  if (names != NULL)
    for (const char *name = names; name < names + names_size;
	 name += strlen (name) + 1)
      chain_exec (&c, name, argv, envp, IORING_EXEC_SEARCH);
  else
    chain_exec (&c, file, argv, envp, 0);
  ring_sqe (c.ring, c.n - 1)->flags = 0;

  if (!ring_run (c.ring, c.n))
    goto out;
  bool execd;
  int clone_res;
  unsigned int cflags = 0;
  unsigned int last_exec = 0;
  int err = chain_result (&c, &execd, &clone_res, &cflags, &last_exec);
  ring_consume (c.ring, c.n);

  if (clone_res <= 0)
    {
      /* No child.  The clone path spawns instead: after a refusal, for
	 the thread's next few spawns too.  A clone that failed fails
	 there the same way.  */
      if (clone_res == -EOPNOTSUPP || clone_res == -EACCES)
	{
	  c.ring->backoff = MIN (2 * c.ring->backoff + 1, URING_BACKOFF_MAX);
	  c.ring->backoff_left = c.ring->backoff;
	}
      goto out;
    }
  c.ring->backoff = 0;

  if (!execd && err == 0 && (cflags & IORING_CQE_F_SPAWN_GONE))
    {
      /* The child was gone before any step ran (a seccomp filter it
	 inherited, say), or its search ended as above: nothing of the
	 chain exists, and the clone path spawns instead.  */
      if (use_pidfd)
	__close_nocancel_nostatus (pidfd);
      goto out;
    }
  if (snapshot && !execd && err == ENOENT
      && (cflags & IORING_CQE_F_SPAWN_GONE)
      && exec_name_exists (names, file, last_exec))
    {
      /* The program is there for us, so it or its interpreter is named
	 through a close-on-exec descriptor the snapshot left out
	 (#!/dev/fd/N, an ELF or binfmt_misc interpreter in /proc/self/fd,
	 procfs mounted elsewhere).  The chain left no trace: the clone
	 path spawns, with the whole table.  */
      if (use_pidfd)
	__close_nocancel_nostatus (pidfd);
      goto out;
    }
  ec = err;
  if (ec != 0 && !(cflags & IORING_CQE_F_SPAWN_GONE))
    {
      /* The child failed and is a zombie, or traced, or was killed
	 after the failure: reap it, as the clone path does.  One that a
	 signal killed before any failure is the caller's to see, and
	 posix_spawn succeeds.  */
      siginfo_t info;
      if (use_pidfd)
	__waitid (P_PIDFD, pidfd, &info, WEXITED);
      else
	__waitid (P_PID, clone_res, &info, WEXITED);
    }
  if (ec == 0)
    {
      if (pid != NULL)
	*pid = use_pidfd ? pidfd : clone_res;
    }
  else if (use_pidfd)
    __close_nocancel_nostatus (pidfd);

 out:
  __abort_lock_unlock (&oldmask);
  __pthread_setcancelstate (state, NULL);
  __set_errno (saved_errno);
  return ec;
}

#endif /* HAVE_SPAWN_URING */
