/* bench/child-stamp.c -- a spawned program that reports when it started:
   its first action is to read CLOCK_MONOTONIC, which it writes (a struct
   timespec, 16 bytes) to the file descriptor named by argv[1], then it
   exits.  The parent took its own CLOCK_MONOTONIC reading just before the
   spawn call; the difference is the time until the child's first
   instruction (plus one clock_gettime system call, the same for every
   mechanism: the child has no vDSO lookup, so the clock is read through
   the system call).

   Static and without libc (-static -nostdlib): nothing runs before
   _start.  */

#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>

static long
syscall3 (long nr, long a, long b, long c)
{
  long ret;
  __asm__ volatile ("syscall"
		    : "=a" (ret)
		    : "0" (nr), "D" (a), "S" (b), "d" (c)
		    : "rcx", "r11", "memory");
  return ret;
}

static int
parse_fd (const char *s)
{
  int fd = 0;
  if (s == NULL || *s == '\0')
    return -1;
  for (; *s != '\0'; s++)
    {
      if (*s < '0' || *s > '9')
	return -1;
      fd = fd * 10 + (*s - '0');
    }
  return fd;
}

/* Called from _start with the initial stack pointer: argc, then argv.  */
__attribute__ ((noreturn, used)) static void
stamp_main (long *sp)
{
  struct timespec ts;
  /* First: the clock.  Everything else comes after the reading.  */
  syscall3 (SYS_clock_gettime, CLOCK_MONOTONIC, (long) &ts, 0);
  long argc = sp[0];
  char **argv = (char **) (sp + 1);
  int fd = argc > 1 ? parse_fd (argv[1]) : -1;
  int status = 1;
  if (fd >= 0 && syscall3 (SYS_write, fd, (long) &ts, sizeof ts) == sizeof ts)
    status = 0;
  for (;;)
    syscall3 (SYS_exit_group, status, 0, 0);
}

/* The kernel starts us with %rsp at argc, 16-byte aligned; a C function
   wants %rsp + 8 aligned at entry, which the call provides.  */
__asm__ (".text\n"
	 ".globl _start\n"
	 "_start:\n\t"
	 "xor %ebp, %ebp\n\t"
	 "mov %rsp, %rdi\n\t"
	 "and $-16, %rsp\n\t"
	 "call stamp_main\n\t"
	 "hlt\n");
