/* M3 (glibc review of v3): a ring set up with IORING_SETUP_PRIVATE_SLOT
   sits in the task's private registered-ring slot, which the
   application's registration calls cannot name.

   - The flag without IORING_SETUP_REGISTERED_FD_ONLY: -EINVAL.
   - The private ring's index is IO_RINGFD_REG_MAX (16); io_uring_enter
     and io_uring_register (IORING_REGISTER_USE_REGISTERED_RING) take it.
   - A second private ring: -EBUSY.
   - The application's ring registered at each of the 16 offsets
     explicitly, then all 16 unregistered: the private ring is still
     there.  Offset 16 is refused by both calls.
   - A REGISTERED_FD_ONLY ring without the flag takes slot 0, as before.
   - A child of fork has no private ring.  */

#include "st.h"
#include <sys/mman.h>

#ifndef IORING_SETUP_PRIVATE_SLOT
# define IORING_SETUP_PRIVATE_SLOT (1U << 21)
#endif

enum { slots = 16 };

/* Set up a REGISTERED_FD_ONLY ring (with FLAGS added) in memory of our
   own; return its index or -errno.  */
static int
setup_fd_only (unsigned int flags)
{
  long page = sysconf (_SC_PAGESIZE);
  char *mem = mmap (NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return -errno;
  struct io_uring_params p;
  memset (&p, 0, sizeof p);
  p.flags = (IORING_SETUP_NO_MMAP | IORING_SETUP_NO_SQARRAY
	     | IORING_SETUP_REGISTERED_FD_ONLY | flags);
  p.cq_off.user_addr = (uintptr_t) mem;
  p.sq_off.user_addr = (uintptr_t) mem + page;
  int ret = syscall (__NR_io_uring_setup, 4, &p);
  return ret < 0 ? -errno : ret;
}

static int
enter_registered (int index)
{
  int ret = syscall (__NR_io_uring_enter, index, 0, 0,
		     IORING_ENTER_REGISTERED_RING, NULL, 0);
  return ret < 0 ? -errno : ret;
}

static int
register_slots (int fd, unsigned int op, int ring_fd, unsigned int offset,
		int n)
{
  struct io_uring_rsrc_update upd[slots];
  for (int i = 0; i < n; i++)
    upd[i] = (struct io_uring_rsrc_update) { .offset = offset + i,
					     .data = ring_fd };
  int ret = syscall (__NR_io_uring_register, fd, op, upd, n);
  return ret < 0 ? -errno : ret;
}

int
main (void)
{
  if (!st_spawn_present ())
    {
      kt_unsupported ("private slot", "no spawn chains");
      return 77;
    }
  KT_EXPECT_EQ ("the flag alone is refused",
		syscall (__NR_io_uring_setup, 4,
			 &(struct io_uring_params)
			 { .flags = IORING_SETUP_PRIVATE_SLOT }) < 0
		? -errno : 0, -EINVAL);

  int ret, priv = setup_fd_only (IORING_SETUP_PRIVATE_SLOT);
  KT_EXPECT_EQ ("the private ring's index", priv, slots);
  KT_EXPECT_EQ ("io_uring_enter takes it", enter_registered (priv), 0);
  struct io_uring_probe *probe = calloc (1, sizeof *probe
					 + 256 * sizeof probe->ops[0]);
  ret = syscall (__NR_io_uring_register, priv,
		 IORING_REGISTER_PROBE | IORING_REGISTER_USE_REGISTERED_RING,
		 probe, 256);
  KT_EXPECT_EQ ("io_uring_register takes it", ret < 0 ? -errno : ret, 0);
  free (probe);
  KT_EXPECT_EQ ("a second private ring", setup_fd_only
		(IORING_SETUP_PRIVATE_SLOT), -EBUSY);

  struct io_uring app;
  ret = io_uring_queue_init (4, &app, 0);
  if (ret < 0)
    {
      kt_fail ("the application's ring", "%s", strerror (-ret));
      return kt_exit ();
    }
  KT_EXPECT_EQ ("the application's ring at offsets 0 to 15",
		register_slots (app.ring_fd, IORING_REGISTER_RING_FDS,
				app.ring_fd, 0, slots), slots);
  KT_EXPECT_EQ ("offset 16 is not the application's to register",
		register_slots (app.ring_fd, IORING_REGISTER_RING_FDS,
				app.ring_fd, slots, 1), -EINVAL);
  KT_EXPECT_EQ ("all 16 unregistered",
		register_slots (app.ring_fd, IORING_UNREGISTER_RING_FDS, 0,
				0, slots), slots);
  KT_EXPECT_EQ ("offset 16 is not the application's to unregister",
		register_slots (app.ring_fd, IORING_UNREGISTER_RING_FDS, 0,
				slots, 1), -EINVAL);
  KT_EXPECT_EQ ("the private ring is still there", enter_registered (priv),
		0);
  KT_EXPECT_EQ ("a ring without the flag takes slot 0", setup_fd_only (0),
		0);

  pid_t pid = fork ();
  if (pid == 0)
    {
      /* With a ring of its own, so that the task has a table.  */
      struct io_uring child;
      if (io_uring_queue_init (4, &child, 0) < 0)
	_exit (2);
      _exit (enter_registered (slots) == -EBADF ? 0 : 1);
    }
  KT_EXPECT_EQ ("a child of fork has no private ring", st_wait (pid), 0);
  io_uring_queue_exit (&app);
  return kt_exit ();
}
