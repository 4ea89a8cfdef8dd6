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

#include <alloca.h>
#include <atomic.h>
#include <clone3.h>
#include <confstr.h>
#include <errno.h>
#include <fcntl.h>
#include <internal-signals.h>
#include <io_uring_spawn.h>
#include <ldsodefs.h>
#include <pthreadP.h>
#include <spawn_int.h>
#include <spawni-uring.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sysdep.h>
#include <tls-internal.h>
#if HAVE_TUNABLES
# define TUNABLE_NAMESPACE spawn
# include <elf/dl-tunables.h>
#endif

/* A kernel that runs io_uring spawn chains takes a whole spawn as one
   submission:

     IORING_OP_CLONE		the child, with the new program's signal
				mask and dispositions
     the attributes		in the order __spawni_child applies them
     the file actions		in order
     IORING_OP_EXEC		one per PATH candidate

   The kernel copies every argument at submission, creates the child
   without our memory and runs the operations in it as the clone path's
   child would run the system calls, and no code of ours runs in the
   child.  All the CQEs of the chain come when it is over; the clone's
   has the child's pid, and IORING_CQE_F_SPAWN_GONE when the chain
   failed and the child left no trace.

   The kernel tells in the auxiliary vector whether it runs chains for
   this process, so that no system call is needed to find out.  It may
   still refuse a chain (-EOPNOTSUPP), for instance under a seccomp
   filter or a tracer that must see the system calls; the clone path
   then spawns.

   Each thread has a ring, made by its first spawn and freed when the
   thread exits.  It has no file descriptor, so nothing the application
   does to its descriptors reaches it and no child inherits it; it takes
   one of the thread's registered-ring slots.  All signals are blocked
   while it is used, so a signal handler cannot spawn through it at the
   same time.  */

/* The SQEs of a spawn at most, and the CQ's size: a page of SQEs.
   Longer spawns take the clone path.  */
#define URING_ENTRIES 64
_Static_assert (URING_ENTRIES * sizeof (struct io_uring_sqe) <= 4096,
		"the SQEs fit in a page");

/* Whether the kernel runs chains for this process: 1 no, 2 yes, 0 not
   known yet.  */
static int uring_state;

static bool
uring_enabled (void)
{
  int state = atomic_load_relaxed (&uring_state);
  if (state == 0)
    {
      unsigned long int magic;
      bool yes = (__getauxval2 (AT_IO_URING_SPAWN, &magic)
		  && magic == IORING_SPAWN_MAGIC);
#if HAVE_TUNABLES
      if (TUNABLE_GET (io_uring, int32_t, NULL) == 0)
	yes = false;
#endif
      state = yes ? 2 : 1;
      atomic_store_relaxed (&uring_state, state);
    }
  return state == 2;
}

static size_t
ring_size (void)
{
  return 2 * GLRO (dl_pagesize);
}

/* Make the ring, with its memory our own (IORING_SETUP_NO_MMAP): one
   page for the SQ and CQ rings, one for the SQEs.  */
static bool
ring_open (struct spawn_ring *r, int tid)
{
  size_t page = GLRO (dl_pagesize);
  char *mem = __mmap (NULL, ring_size (), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return false;

  struct io_uring_params p =
    {
      .flags = (IORING_SETUP_NO_MMAP | IORING_SETUP_REGISTERED_FD_ONLY
		| IORING_SETUP_NO_SQARRAY | IORING_SETUP_SINGLE_ISSUER
		| IORING_SETUP_CQSIZE),
      .cq_entries = URING_ENTRIES,
      .cq_off.user_addr = (uintptr_t) mem,
      .sq_off.user_addr = (uintptr_t) mem + page,
    };
  long int ret = INTERNAL_SYSCALL_CALL (io_uring_setup, URING_ENTRIES, &p);
  if (INTERNAL_SYSCALL_ERROR_P (ret))
    {
      __munmap (mem, ring_size ());
      return false;
    }
  *r = (struct spawn_ring)
    {
      .mem = mem,
      .owner = tid,
      .index = ret,
      .sq_tail_off = p.sq_off.tail,
      .cq_head_off = p.cq_off.head,
      .cq_tail_off = p.cq_off.tail,
      .cqes_off = p.cq_off.cqes,
    };
  return true;
}

/* Free the ring of the calling thread.  */
static void
ring_close (struct spawn_ring *r)
{
  struct io_uring_rsrc_update update = { .offset = r->index };
  INTERNAL_SYSCALL_CALL (io_uring_register, r->index,
			 IORING_UNREGISTER_RING_FDS
			 | IORING_REGISTER_USE_REGISTERED_RING, &update, 1);
  __munmap (r->mem, ring_size ());
  r->mem = NULL;
}

/* The calling thread's ring, made if needed; null if it has none.  */
static struct spawn_ring *
ring_get (void)
{
  struct pthread *self = THREAD_SELF;
  struct spawn_ring *r = &self->tls_state.spawn_ring;
  int tid = THREAD_GETMEM (self, tid);

  /* In a child of fork the ring, if any, is the parent's; its pages are
     our own copy.  */
  if (r->owner != tid)
    {
      if (r->mem != NULL)
	__munmap (r->mem, ring_size ());
      *r = (struct spawn_ring) { .owner = tid };
    }
  if (r->mem != NULL || r->failed)
    return r->mem != NULL ? r : NULL;

  /* A child of vfork or of a raw clone runs on this thread's memory
     without being this thread: it must not make a ring here.  */
  if (INTERNAL_SYSCALL_CALL (gettid) != tid)
    return NULL;
  if (!ring_open (r, tid))
    {
      /* Not again in this thread: no free slot, io_uring disabled...  */
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
  if (r->mem != NULL && r->owner == THREAD_GETMEM (self, tid))
    ring_close (r);
}

static unsigned int *
ring_u32 (const struct spawn_ring *r, unsigned short int off)
{
  return (unsigned int *) (r->mem + off);
}

static struct io_uring_sqe *
ring_sqe (const struct spawn_ring *r, unsigned int i)
{
  struct io_uring_sqe *sqes
    = (struct io_uring_sqe *) (r->mem + GLRO (dl_pagesize));
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

/* Submit the N SQEs after the SQ tail and wait for their N CQEs, so that
   no CQE of the chain is left behind.  Return RUN_DONE; RUN_NONE if the
   kernel took none (this task does not own the ring: a child of vfork),
   and nothing happened; RUN_LOST if the CQEs cannot be waited for, which
   the ring's owner never sees: the ring is then given up, its pages
   left to the kernel.  */
enum { RUN_DONE, RUN_NONE, RUN_LOST };
static int
ring_run (struct spawn_ring *r, unsigned int n)
{
  atomic_store_release (ring_u32 (r, r->sq_tail_off), r->sq_tail + n);
  long int ret;
  do
    ret = ring_enter (r, n, n);
  while (ret == -EINTR);
  if (ret != n)
    {
      atomic_store_release (ring_u32 (r, r->sq_tail_off), r->sq_tail);
      return RUN_NONE;
    }
  r->sq_tail += n;
  while (atomic_load_acquire (ring_u32 (r, r->cq_tail_off)) - r->cq_head < n)
    {
      ret = ring_enter (r, 0, n);
      if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
	{
	  r->mem = NULL;
	  r->failed = 1;
	  return RUN_LOST;
	}
    }
  return RUN_DONE;
}

/* Hand the N CQEs after the CQ head back to the kernel.  */
static void
ring_consume (struct spawn_ring *r, unsigned int n)
{
  r->cq_head += n;
  atomic_store_release (ring_u32 (r, r->cq_head_off), r->cq_head);
}

/* The chain being written into the ring.  */
struct chain
{
  struct spawn_ring *ring;
  unsigned int n;			/* SQEs so far.  */
  unsigned int first_exec;		/* The first EXEC.  */
  struct clone_args clone_args;
  struct io_uring_spawn_sigs sigs;
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

static uint64_t
sigset_bits (const internal_sigset_t *set)
{
  uint64_t bits = 0;
  for (int sig = 1; sig < _NSIG && sig <= 64; sig++)
    if (internal_sigismember (set, sig))
      bits |= UINT64_C (1) << (sig - 1);
  return bits;
}

/* The clone, with the signal state __spawni_child gives the new program:
   the POSIX_SPAWN_SETSIGDEF signals to SIG_DFL, glibc's internal signals
   otherwise ignored, handlers reset, and the caller's signal mask or
   POSIX_SPAWN_SETSIGMASK's without the internal signals.  */
static void
chain_clone (struct chain *c, const posix_spawnattr_t *attr,
	     const internal_sigset_t *oldmask)
{
  internal_sigset_t set;

  c->clone_args = (struct clone_args) { .exit_signal = SIGCHLD };
  if (attr->__flags & POSIX_SPAWN_SETSIGMASK)
    {
      internal_sigset_from_sigset (&set, &attr->__ss);
      internal_sigdelset (&set, SIGCANCEL);
      internal_sigdelset (&set, SIGSETXID);
      c->sigs.mask = sigset_bits (&set);
    }
  else
    c->sigs.mask = sigset_bits (oldmask);
  if (attr->__flags & POSIX_SPAWN_SETSIGDEF)
    {
      internal_sigset_from_sigset (&set, &attr->__sd);
      c->sigs.sig_dfl = sigset_bits (&set);
    }
  c->sigs.sig_ign = (((UINT64_C (1) << (SIGCANCEL - 1))
		      | (UINT64_C (1) << (SIGSETXID - 1)))
		     & ~c->sigs.sig_dfl);

  struct io_uring_sqe *sqe = chain_add (c, IORING_OP_CLONE);
  sqe->addr = (uintptr_t) &c->clone_args;
  sqe->len = sizeof (c->clone_args);
  sqe->off = (uintptr_t) &c->sigs;
}

/* The attributes, in the order __spawni_child applies them.  */
static void
chain_attributes (struct chain *c, const posix_spawnattr_t *attr)
{
  short int flags = attr->__flags;
  struct io_uring_sqe *sqe;

  if (flags & (POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER))
    {
      sqe = chain_add (c, IORING_OP_SPAWN_SCHED);
      sqe->addr = (uintptr_t) &attr->__sp;
      if (flags & POSIX_SPAWN_SETSCHEDULER)
	{
	  sqe->spawn_flags = IORING_SPAWN_SCHED_SETSCHEDULER;
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
chain_file_actions (struct chain *c, const posix_spawn_file_actions_t *fa,
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
	  /* As __spawni_child: a descriptor that is not open is no error,
	     one out of range is.  */
	  fd = action->action.close_action.fd;
	  if (fd < 0 || fd >= fdlimit.rlim_cur)
	    chain_add (c, IORING_OP_SPAWN_CLOSE)->fd = fd;
	  else
	    {
	      sqe = chain_add (c, IORING_OP_SPAWN_CLOSE_RANGE);
	      sqe->fd = fd;
	      sqe->off = fd;
	    }
	  break;

	case spawn_do_open:
	  sqe = chain_add (c, IORING_OP_SPAWN_OPEN);
	  sqe->fd = AT_FDCWD;
	  sqe->addr = (uintptr_t) action->action.open_action.path;
	  sqe->spawn_flags = action->action.open_action.oflag | O_LARGEFILE;
	  sqe->len = action->action.open_action.mode;
	  sqe->off = action->action.open_action.fd;
	  break;

	case spawn_do_dup2:
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
	  sqe = chain_add (c, IORING_OP_SPAWN_CLOSE_RANGE);
	  sqe->fd = action->action.closefrom_action.from;
	  sqe->off = ~0U;
	  break;

	case spawn_do_tcsetpgrp:
	  /* 0 is the child's process group.  */
	  sqe = chain_add (c, IORING_OP_SPAWN_TCSETPGRP);
	  sqe->fd = action->action.setpgrp_action.fd;
	  if ((attr->__flags & POSIX_SPAWN_SETPGROUP) != 0)
	    sqe->off = attr->__pgrp;
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
  sqe->off = (uintptr_t) argv;
  sqe->addr3 = (uintptr_t) envp;
  sqe->spawn_flags = flags;
}

/* The names posix_spawnp tries for FILE, as __execvpex does: each entry
   of PATH followed by a slash, if it is not empty, and FILE.  With BUF
   null, only count them and the bytes they take.  */
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

/* The errors on which __execvpex tries the next PATH entry.  */
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

/* The outcome of the chain C from its CQEs: whether an EXEC succeeded,
   else the error posix_spawn reports (0 if a signal stopped the chain
   before anything failed), the clone's result in *CLONE_RES and its CQE
   flags in *CFLAGS.  */
static int
chain_result (const struct chain *c, bool *execd, int *clone_res,
	      unsigned int *cflags)
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
  for (unsigned int i = c->first_exec; i < c->n && res[i] != -ECANCELED;
       i++)
    {
      if (res[i] >= 0)
	{
	  *execd = true;
	  return 0;
	}
      err = -res[i];
      eacces |= err == EACCES;
    }
  return eacces && exec_search_goes_on (err) ? EACCES : err;
}

int
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
      /* Names __execvpex refuses with ENAMETOOLONG: the clone path
	 reports it.  */
      if (strlen (file) > NAME_MAX || strlen (path) >= PATH_MAX)
	return -1;
    }
  size_t names_size = 0;
  unsigned int nexec = (path != NULL
			? path_candidates (file, path, NULL, &names_size)
			: 1);
  unsigned int nops = (1 + ((attr->__flags & (POSIX_SPAWN_SETSCHEDPARAM
					      | POSIX_SPAWN_SETSCHEDULER))
			    != 0)
		       + ((attr->__flags & POSIX_SPAWN_SETSID) != 0)
		       + ((attr->__flags & POSIX_SPAWN_SETPGROUP) != 0)
		       + ((attr->__flags & POSIX_SPAWN_RESETIDS) != 0)
		       + (fa != NULL ? fa->__used : 0));
  if (nops + nexec > URING_ENTRIES
      || (path != NULL && !__libc_alloca_cutoff (names_size)))
    return -1;
  char *names = path != NULL ? alloca (names_size) : NULL;
  if (path != NULL)
    path_candidates (file, path, names, &names_size);

  /* A process that came under a seccomp filter after it started is
     refused by the kernel; a filter could also kill it for the io_uring
     calls that would find out.  */
  if (INTERNAL_SYSCALL_CALL (prctl, PR_GET_SECCOMP) != 0)
    return -1;

  internal_sigset_t oldmask;
  internal_signal_block_all (&oldmask);
  int state;
  __pthread_setcancelstate (PTHREAD_CANCEL_DISABLE, &state);

  int ec = -1;
  struct chain c = { .ring = ring_get () };
  while (c.ring != NULL)
    {
      c.n = 0;
      chain_clone (&c, attr, &oldmask);
      chain_attributes (&c, attr);
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

      int run = ring_run (c.ring, c.n);
      if (run == RUN_NONE)
	break;
      if (run == RUN_LOST)
	{
	  /* A child may exist and run: never spawn a second one.  */
	  ec = EAGAIN;
	  break;
	}
      bool execd;
      int clone_res;
      unsigned int cflags = 0;
      int err = chain_result (&c, &execd, &clone_res, &cflags);
      ring_consume (c.ring, c.n);

      /* No child: a clone interrupted by a signal is tried again, as
	 fork is restarted; a refused one, or one that failed, is the
	 clone path's.  */
      if (clone_res == -EINTR)
	continue;
      if (clone_res <= 0)
	break;

      ec = err;
      if (!execd && !(cflags & IORING_CQE_F_SPAWN_GONE))
	{
	  /* The child is a zombie, or traced.  As with the clone path, a
	     signal that killed it before its exec is the caller's to see,
	     and posix_spawn succeeds; otherwise it is reaped here.  */
	  siginfo_t info;
	  if (err == 0
	      || (__waitid (P_PID, clone_res, &info, WEXITED | WNOWAIT) == 0
		  && info.si_code != CLD_EXITED))
	    ec = 0;
	  else
	    __waitpid (clone_res, NULL, 0);
	}
      if (ec == 0 && pid != NULL)
	*pid = clone_res;
      break;
    }

  __pthread_setcancelstate (state, NULL);
  internal_signal_restore_set (&oldmask);
  return ec;
}
