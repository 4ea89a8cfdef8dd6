/* The values of abi-list.h as the patched kernel's UAPI headers define
   them.  A macro of the cover letter that the kernel header does not
   define (yet) is ABI_MISSING, which abi-main.c reports as a FAIL of
   its own instead of failing the whole build.  */
#include <stddef.h>
#include <linux/io_uring.h>
#include <linux/auxvec.h>
#include "abi-list.h"

#ifndef IORING_CLONE_FD_SNAPSHOT
# define IORING_CLONE_FD_SNAPSHOT ABI_MISSING
#endif
#ifndef IORING_SPAWN_CLOSE_IN_LIMIT
# define IORING_SPAWN_CLOSE_IN_LIMIT ABI_MISSING
#endif
#ifndef AT_IO_URING_SPAWN
# define AT_IO_URING_SPAWN ABI_MISSING
#endif
#ifndef IORING_SPAWN_F_CHAIN
# define IORING_SPAWN_F_CHAIN ABI_MISSING
#endif
#ifndef IORING_SPAWN_F_FD_SNAPSHOT
# define IORING_SPAWN_F_FD_SNAPSHOT ABI_MISSING
#endif

#define ABI(name, expr) { name, (unsigned long long) (expr) },
const struct abi_value abi_kernel[] = { ABI_LIST { NULL, 0 } };
