/* The harness itself: the program runs inside the test VM (the guest's
   kernel is ours, not the host's) and io_uring works there: a NOP, a
   linked pair of NOPs and the opcode probe.  */

#include "kt.h"
#include <liburing.h>
#include <sys/utsname.h>

int
main (void)
{
  struct utsname u;
  if (uname (&u) != 0)
    kt_fail ("guest kernel", "uname: %m");
  else if (strstr (u.release, "-uring-spawn") == NULL)
    kt_fail ("guest kernel", "release %s is not a uring-spawn kernel: "
	     "not running inside the test VM", u.release);
  else
    kt_pass ("guest kernel");

  struct io_uring ring;
  int ret = io_uring_queue_init (8, &ring, 0);
  if (ret < 0)
    {
      kt_fail ("io_uring_queue_init", "%s", strerror (-ret));
      kt_exit ();
    }
  kt_pass ("io_uring_queue_init");

  /* One NOP with user_data.  */
  struct io_uring_sqe *sqe = io_uring_get_sqe (&ring);
  io_uring_prep_nop (sqe);
  sqe->user_data = 0x1234;
  KT_EXPECT_EQ ("submit nop", io_uring_submit (&ring), 1);
  struct io_uring_cqe *cqe;
  ret = io_uring_wait_cqe (&ring, &cqe);
  if (ret < 0)
    kt_fail ("nop cqe", "wait: %s", strerror (-ret));
  else
    {
      KT_EXPECT_EQ ("nop res", cqe->res, 0);
      KT_EXPECT_EQ ("nop user_data", (long long) cqe->user_data, 0x1234);
      io_uring_cqe_seen (&ring, cqe);
    }

  /* Two linked NOPs complete in order.  */
  for (int i = 0; i < 2; i++)
    {
      sqe = io_uring_get_sqe (&ring);
      io_uring_prep_nop (sqe);
      sqe->user_data = i + 1;
      if (i == 0)
	sqe->flags |= IOSQE_IO_LINK;
    }
  KT_EXPECT_EQ ("submit linked nops", io_uring_submit (&ring), 2);
  for (int i = 0; i < 2; i++)
    {
      ret = io_uring_wait_cqe (&ring, &cqe);
      if (ret < 0)
	{
	  kt_fail ("linked nop cqe", "wait: %s", strerror (-ret));
	  break;
	}
      char name[32];
      snprintf (name, sizeof name, "linked nop %d", i + 1);
      if (cqe->res != 0 || cqe->user_data != (unsigned) i + 1)
	kt_fail (name, "res %d user_data %llu", cqe->res,
		 (unsigned long long) cqe->user_data);
      else
	kt_pass (name);
      io_uring_cqe_seen (&ring, cqe);
    }

  /* The probe knows NOP.  */
  struct io_uring_probe *probe = io_uring_get_probe_ring (&ring);
  if (probe == NULL)
    kt_fail ("probe", "io_uring_get_probe_ring failed");
  else
    {
      if (io_uring_opcode_supported (probe, IORING_OP_NOP))
	kt_pass ("probe NOP");
      else
	kt_fail ("probe NOP", "NOP not reported as supported");
      io_uring_free_probe (probe);
    }

  io_uring_queue_exit (&ring);
  return kt_exit ();
}
