/* Host-side ABI check: glibc's private io_uring_spawn.h (sysdeps-overlay) against the
   patched kernel's <linux/io_uring.h> (run by spawn.abi/abi.exp on the
   host, not in the VM).  abi-glibc.c and abi-kernel.c, each compiled
   with one of the headers only, export the values of the same list
   (abi-list.h); this compares them, one PASS or FAIL line per value.  */
#include <stdio.h>
#include <string.h>
#include "abi-list.h"

extern const struct abi_value abi_glibc[], abi_kernel[];

int
main (void)
{
  int failures = 0, n = 0;
  for (int i = 0; abi_glibc[i].name != NULL || abi_kernel[i].name != NULL; i++)
    {
      const struct abi_value *g = &abi_glibc[i], *k = &abi_kernel[i];
      n++;
      if (g->name == NULL || k->name == NULL || strcmp (g->name, k->name) != 0)
	{
	  printf ("FAIL: abi list %d: the two lists differ\n", i);
	  return 1;
	}
      if (k->value == ABI_MISSING)
	{
	  printf ("FAIL: %s: missing from the kernel header (glibc %#llx)\n",
		  g->name, g->value);
	  failures++;
	}
      else if (g->value == k->value)
	printf ("PASS: %s\n", g->name);
      else
	{
	  printf ("FAIL: %s: glibc %#llx, kernel %#llx\n", g->name, g->value,
		  k->value);
	  failures++;
	}
    }
  printf ("%d values compared, %d differ\n", n, failures);
  return failures != 0;
}
