/* bench/child-exit.c -- the program the benchmarks spawn: it exits at
   once.  Static and without libc, so that what is measured is process
   creation and exec, not the start-up of a C library (which would be
   the same for every mechanism and only blur the differences).

   Built with -static -nostdlib; _start is the entry point.  */

#include <sys/syscall.h>

#define STR_(x) #x
#define STR(x) STR_ (x)

__asm__ (".text\n"
	 ".globl _start\n"
	 "_start:\n\t"
	 "mov $" STR (SYS_exit_group) ", %eax\n\t"
	 "xor %edi, %edi\n\t"
	 "syscall\n\t"
	 "hlt\n");
