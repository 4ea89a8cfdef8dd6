/* The values of abi-list.h as glibc's private copy of the UAPI defines
   them (compiled without the kernel's headers).  */
#include <stddef.h>
/* AT_IO_URING_SPAWN is in the patched glibc's <elf.h> (glibc/, the source
   tree the build keeps), which io_uring_spawn.h includes; the host's has
   no such entry.  */
#include "../../../glibc/elf/elf.h"
#include "../../../sysdeps-overlay/unix/sysv/linux/io_uring_spawn.h"
#include "abi-list.h"

#define ABI(name, expr) { name, (unsigned long long) (expr) },
const struct abi_value abi_glibc[] = { ABI_LIST { NULL, 0 } };
