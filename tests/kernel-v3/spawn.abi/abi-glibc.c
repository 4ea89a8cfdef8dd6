/* The values of abi-list.h as glibc's private copy of the UAPI defines
   them (compiled without the kernel's headers).  */
#include <stddef.h>
#include "../../../sysdeps-overlay-v3/unix/sysv/linux/io_uring_spawn.h"
#include "abi-list.h"

#define ABI(name, expr) { name, (unsigned long long) (expr) },
const struct abi_value abi_glibc[] = { ABI_LIST { NULL, 0 } };
