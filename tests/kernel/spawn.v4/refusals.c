/* M-8 (kernel review of v3): the refusals the test kernel could not
   reach.  It now has IA32_EMULATION and FTRACE_SYSCALLS.

   - A compat system call: a chain submitted with io_uring_enter through
     int $0x80 (from this 64-bit process, on a ring it set up natively)
     fails at prep, as the cover letter says: every CQE -EINVAL, no
     child.  The same chain submitted natively runs.
   - The query made through int $0x80 answers no features; natively it
     answers IORING_SPAWN_F_CHAIN.
   - A 32-bit program gets no AT_IO_URING_SPAWN (a tiny static i386 ELF
     that exits 1 if its auxiliary vector has the entry; with an
     argument it looks for AT_PAGESZ instead, which must be found).
   - A syscall trace event switched on (SYSCALL_TRACEPOINT work on every
     task): the chain is refused; switched off again, it runs.  */

#include "st.h"
#include <sys/mman.h>

static char tiny[] = "/tmp/st-refusals-true";
static char aux32[] = "/tmp/st-refusals-aux32";
static char *argv_true[] = { "true", NULL };
static struct clone_args ca = { .exit_signal = SIGCHLD };

/* aux32.s, built with as --32 and ld -m elf_i386 -N -s:
	mov	(%esp), %ecx		# argc
	mov	$52, %edx		# AT_IO_URING_SPAWN
	cmp	$1, %ecx
	je	0f
	mov	$6, %edx		# AT_PAGESZ
   0:	lea	8(%esp,%ecx,4), %esi	# envp
   1:	lodsl
	test	%eax, %eax
	jnz	1b
   2:	lodsl				# a_type
	test	%eax, %eax
	jz	3f
	cmp	%edx, %eax
	je	4f
	lodsl				# a_val
	jmp	2b
   3:	xor	%ebx, %ebx
	jmp	5f
   4:	mov	$1, %ebx
   5:	mov	$1, %eax		# exit
	int	$0x80  */
static const unsigned char aux32_elf[] = {
  0x7f, 0x45, 0x4c, 0x46, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x54, 0x80, 0x04, 0x08, 0x34, 0x00, 0x00, 0x00, 0x9c, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x34, 0x00, 0x20, 0x00, 0x01, 0x00, 0x28, 0x00,
  0x03, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x54, 0x00, 0x00, 0x00,
  0x54, 0x80, 0x04, 0x08, 0x54, 0x80, 0x04, 0x08, 0x37, 0x00, 0x00, 0x00,
  0x37, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x8b, 0x0c, 0x24, 0xba, 0x34, 0x00, 0x00, 0x00, 0x83, 0xf9, 0x01, 0x74,
  0x05, 0xba, 0x06, 0x00, 0x00, 0x00, 0x8d, 0x74, 0x8c, 0x08, 0xad, 0x85,
  0xc0, 0x75, 0xfb, 0xad, 0x85, 0xc0, 0x74, 0x07, 0x39, 0xd0, 0x74, 0x07,
  0xad, 0xeb, 0xf4, 0x31, 0xdb, 0xeb, 0x05, 0xbb, 0x01, 0x00, 0x00, 0x00,
  0xb8, 0x01, 0x00, 0x00, 0x00, 0xcd, 0x80, 0x00, 0x2e, 0x73, 0x68, 0x73,
  0x74, 0x72, 0x74, 0x61, 0x62, 0x00, 0x2e, 0x74, 0x65, 0x78, 0x74, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x07, 0x00, 0x00, 0x00, 0x54, 0x80, 0x04, 0x08, 0x54, 0x00, 0x00, 0x00,
  0x37, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x8b, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
};

/* A system call through the 32-bit entry, up to five arguments.  */
static long
compat_syscall (long nr, long a, long b, long c, long d, long e)
{
  long ret;
  asm volatile ("int $0x80"
		: "=a" (ret)
		: "a" (nr), "b" (a), "c" (b), "d" (c), "S" (d), "D" (e)
		: "memory", "r8", "r9", "r10", "r11");
  return ret;
}

/* Queue CLONE + EXEC of the tiny true.  */
static void
queue_chain (void)
{
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, tiny, argv_true, st_envp, 1);
}

/* Run the queued chain natively; expect a child that exits 0.  */
static void
expect_runs (const char *name)
{
  int fate = st_finish (2);
  if (st_res[0] > 0 && st_res[1] == 0 && fate == 0)
    kt_pass (name);
  else
    kt_fail (name, "clone %d, exec %d, fate %#x", st_res[0], st_res[1], fate);
}

static void
expect_failed (const char *name, int clone_res, int exec_res)
{
  if (st_res[0] == clone_res && st_res[1] == exec_res
      && waitpid (-1, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD)
    kt_pass (name);
  else
    kt_fail (name, "clone %d, exec %d", st_res[0], st_res[1]);
}

static void
compat_enter (void)
{
  queue_chain ();
  /* Published as io_uring_submit does, entered through int $0x80.  */
  struct io_uring_sq *sq = &st_ring.sq;
  sq->sqe_head = sq->sqe_tail;
  __atomic_store_n (sq->ktail, sq->sqe_tail, __ATOMIC_RELEASE);
  unsigned int n = sq->sqe_tail - *sq->khead;
  st_reset ();
  long ret = compat_syscall (__NR_io_uring_enter, st_ring.ring_fd, n, 0, 0,
			     0);
  if (ret != 2)
    {
      kt_fail ("compat io_uring_enter", "returned %ld", ret);
      return;
    }
  if (st_reap (&st_ring, 2, 20) != 2)
    kt_fail ("compat io_uring_enter", "missing CQEs");
  expect_failed ("a chain submitted by a compat system call fails at prep",
		 -EINVAL, -EINVAL);
}

static void
compat_query (void)
{
  struct io_uring_query_hdr *hdr
    = mmap (NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (hdr == MAP_FAILED)
    {
      kt_fail ("MAP_32BIT", "%m");
      return;
    }
  struct io_uring_query_spawn *q = (struct io_uring_query_spawn *) (hdr + 1);
  hdr->query_op = IO_URING_QUERY_SPAWN;
  hdr->query_data = (uintptr_t) q;
  hdr->size = sizeof *q;
  q->features = ~0ULL;
  long ret = compat_syscall (__NR_io_uring_register, -1,
			     IORING_REGISTER_QUERY, (uintptr_t) hdr, 0, 0);
  if (ret == 0 && hdr->result == 0 && q->features == 0)
    kt_pass ("the compat query answers no features");
  else
    kt_fail ("the compat query answers no features",
	     "returned %ld, result %d, features %#llx", ret, hdr->result,
	     (unsigned long long) q->features);
  munmap (hdr, 4096);

  struct io_uring_query_spawn nq;
  int r = io_uring_query_spawn (&nq);
  if (r == 0 && (nq.features & IORING_SPAWN_F_CHAIN))
    kt_pass ("the native query answers IORING_SPAWN_F_CHAIN");
  else
    kt_fail ("the native query answers IORING_SPAWN_F_CHAIN",
	     "%d, features %#llx", r, (unsigned long long) nq.features);
}

/* Run the 32-bit program, with an argument if ARG; its exit status.  */
static int
run_aux32 (bool arg)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      char *argv[] = { aux32, arg ? (char *) "pagesz" : NULL, NULL };
      execv (aux32, argv);
      _exit (127);
    }
  int status = st_wait (pid);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 0x100 | status;
}

static void
compat_auxv (void)
{
  if (!st_write_program (aux32, aux32_elf, sizeof aux32_elf))
    return;
  KT_EXPECT_EQ ("a 32-bit program finds AT_PAGESZ", run_aux32 (true), 1);
  KT_EXPECT_EQ ("a 32-bit program has no AT_IO_URING_SPAWN",
		run_aux32 (false), 0);
  if (st_spawn_present ())
    kt_pass ("this 64-bit program has AT_IO_URING_SPAWN");
  else
    kt_fail ("this 64-bit program has AT_IO_URING_SPAWN", "absent");
  unlink (aux32);
}

static void
syscall_tracepoint (void)
{
  static const char event[] = "syscalls/sys_enter_getppid";
  const char *tracing = st_tracefs ();
  if (tracing == NULL)
    {
      kt_fail ("tracefs", "not mounted and not mountable");
      return;
    }
  int ret = st_trace_event (tracing, event, true);
  if (ret != 0)
    {
      kt_fail ("switch on a syscall trace event", "%s: %s", event,
	       strerror (-ret));
      return;
    }
  queue_chain ();
  st_run (&st_ring, 2);
  st_trace_event (tracing, event, false);
  expect_failed ("a chain is refused while a syscall trace event is on",
		 -EOPNOTSUPP, -ECANCELED);
  queue_chain ();
  expect_runs ("and runs once it is off");
}

/* Run FN in a child with a ring of its own: without IA32_EMULATION
   int $0x80 kills it, which is a FAIL, and the other cases still run.  */
static void
in_child (void (*fn) (void), const char *name)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      st_init (0);
      fn ();
      kt_exit ();
    }
  int status = st_wait (pid);
  if (WIFSIGNALED (status))
    kt_fail (name, "killed by signal %d (a kernel without IA32_EMULATION?)",
	     WTERMSIG (status));
  else if (status != 0)
    kt_failures++;
}

int
main (void)
{
  if (!st_spawn_present ())
    {
      kt_unsupported ("refusals", "no spawn chains");
      return 77;
    }
  st_kmsg_open ();
  if (!st_tiny_true (tiny))
    return kt_exit ();
  st_init (0);
  queue_chain ();
  expect_runs ("a chain submitted natively runs");
  in_child (compat_enter, "compat io_uring_enter");
  in_child (compat_query, "compat query");
  compat_auxv ();
  syscall_tracepoint ();
  unlink (tiny);
  st_kmsg_clean ("the kernel log is clean");
  return kt_exit ();
}
