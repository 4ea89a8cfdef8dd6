/* The values of abi-list.h as the patched kernel's UAPI headers define
   them.  */
#include <stddef.h>
#include <linux/io_uring.h>
#include <linux/auxvec.h>
#include "abi-list.h"

#define ABI(name, expr) { name, (unsigned long long) (expr) },
const struct abi_value abi_kernel[] = { ABI_LIST { NULL, 0 } };
