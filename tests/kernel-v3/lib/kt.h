/* tests/kernel-v3/lib/kt.h -- tiny helpers for the uring-spawn kernel tests.

   A test is one C program run inside the test VM.  It reports each check
   on its stdout as a line the DejaGnu driver (lib/spawn.exp) maps to a
   result:

     PASS: <name>
     FAIL: <name>: <why>
     UNSUPPORTED: <name>: <why>

   and exits 0 when every check passed or was unsupported, 1 otherwise
   (kt_exit does that).  Include this before <liburing.h>: it includes the
   patched kernel's <linux/io_uring.h> first, so liburing's older copy
   (same include guard) is skipped and the new opcodes are visible.  */

#ifndef KT_H
#define KT_H

#include <linux/io_uring.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int kt_failures;

static inline void
kt_pass (const char *name)
{
  printf ("PASS: %s\n", name);
  fflush (stdout);
}

static inline void __attribute__ ((format (printf, 2, 3)))
kt_fail (const char *name, const char *fmt, ...)
{
  va_list ap;
  printf ("FAIL: %s: ", name);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
  fflush (stdout);
  kt_failures++;
}

static inline void __attribute__ ((format (printf, 2, 3)))
kt_unsupported (const char *name, const char *fmt, ...)
{
  va_list ap;
  printf ("UNSUPPORTED: %s: ", name);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
  fflush (stdout);
}

/* Check that EXPR (an int, typically a -errno result) equals WANT.  */
#define KT_EXPECT_EQ(name, expr, want)					\
  do {									\
    long long kt_got_ = (expr), kt_want_ = (want);			\
    if (kt_got_ == kt_want_)						\
      kt_pass (name);							\
    else								\
      kt_fail (name, "%s = %lld (%s), expected %lld (%s)", #expr,	\
	       kt_got_, kt_got_ < 0 ? strerror (-kt_got_) : "-",	\
	       kt_want_, kt_want_ < 0 ? strerror (-kt_want_) : "-");	\
  } while (0)

/* Exit with the status the driver expects.  */
static inline int
kt_exit (void)
{
  exit (kt_failures ? 1 : 0);
}

#endif /* KT_H */
