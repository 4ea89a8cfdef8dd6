/* tests/kernel/spawn.abi/abi-list.h -- the values glibc's private UAPI
   copy (sysdeps-overlay/unix/sysv/linux/io_uring_spawn.h, v3) shares with
   the kernel's <linux/io_uring.h> and <linux/auxvec.h>: every constant,
   size and offset posix_spawn relies on.  abi-glibc.c and abi-kernel.c
   evaluate this same list, each with one of the two headers; abi-main.c
   compares the results.  A name the glibc header lacks fails its
   compilation, which the driver reports as a FAIL too; a macro the
   kernel header lacks (the v3 header is still being written) is
   ABI_MISSING on the kernel side (abi-kernel.c) and reported by
   abi-main.c as "missing from the kernel header".  */

#define ABI_MISSING 0xdeadbeefdeadbeefULL

#define ABI_MEMBER(type, m) \
  ABI ("offsetof (" #type ", " #m ")", offsetof (struct type, m)) \
  ABI ("sizeof (" #type "." #m ")", sizeof (((struct type *) 0)->m))

#define ABI_LIST \
  ABI ("IORING_OP_CLONE", IORING_OP_CLONE) \
  ABI ("IORING_OP_EXEC", IORING_OP_EXEC) \
  ABI ("IORING_OP_SPAWN_ACTION", IORING_OP_SPAWN_ACTION) \
  ABI ("IORING_SPAWN_OPEN", IORING_SPAWN_OPEN) \
  ABI ("IORING_SPAWN_CLOSE", IORING_SPAWN_CLOSE) \
  ABI ("IORING_SPAWN_DUP2", IORING_SPAWN_DUP2) \
  ABI ("IORING_SPAWN_CLOSE_RANGE", IORING_SPAWN_CLOSE_RANGE) \
  ABI ("IORING_SPAWN_CHDIR", IORING_SPAWN_CHDIR) \
  ABI ("IORING_SPAWN_FCHDIR", IORING_SPAWN_FCHDIR) \
  ABI ("IORING_SPAWN_TCSETPGRP", IORING_SPAWN_TCSETPGRP) \
  ABI ("IORING_CQE_F_SPAWN_GONE", IORING_CQE_F_SPAWN_GONE) \
  ABI ("IORING_EXEC_SEARCH", IORING_EXEC_SEARCH) \
  ABI ("IORING_CLONE_FD_SNAPSHOT", IORING_CLONE_FD_SNAPSHOT) \
  ABI ("IORING_SPAWN_CLOSE_IN_LIMIT", IORING_SPAWN_CLOSE_IN_LIMIT) \
  ABI ("IORING_SPAWN_ATTR_SETSID", IORING_SPAWN_ATTR_SETSID) \
  ABI ("IORING_SPAWN_ATTR_SETPGROUP", IORING_SPAWN_ATTR_SETPGROUP) \
  ABI ("IORING_SPAWN_ATTR_RESETIDS", IORING_SPAWN_ATTR_RESETIDS) \
  ABI ("IORING_SPAWN_ATTR_SETSCHEDPARAM", IORING_SPAWN_ATTR_SETSCHEDPARAM) \
  ABI ("IORING_SPAWN_ATTR_SETSCHEDULER", IORING_SPAWN_ATTR_SETSCHEDULER) \
  ABI ("IORING_SPAWN_ATTR_SETSIGMASK", IORING_SPAWN_ATTR_SETSIGMASK) \
  ABI ("IORING_SPAWN_ATTR_SETSIGDEF", IORING_SPAWN_ATTR_SETSIGDEF) \
  ABI ("AT_IO_URING_SPAWN", AT_IO_URING_SPAWN) \
  ABI ("IORING_SPAWN_F_CHAIN", IORING_SPAWN_F_CHAIN) \
  ABI ("IORING_SPAWN_F_FD_SNAPSHOT", IORING_SPAWN_F_FD_SNAPSHOT) \
  ABI ("IORING_SETUP_DEFER_TASKRUN", IORING_SETUP_DEFER_TASKRUN) \
  ABI ("IORING_SETUP_CQSIZE", IORING_SETUP_CQSIZE) \
  ABI ("IORING_SETUP_SINGLE_ISSUER", IORING_SETUP_SINGLE_ISSUER) \
  ABI ("IORING_SETUP_NO_MMAP", IORING_SETUP_NO_MMAP) \
  ABI ("IORING_SETUP_REGISTERED_FD_ONLY", IORING_SETUP_REGISTERED_FD_ONLY) \
  ABI ("IORING_SETUP_NO_SQARRAY", IORING_SETUP_NO_SQARRAY) \
  ABI ("IORING_SETUP_PRIVATE_SLOT", IORING_SETUP_PRIVATE_SLOT) \
  ABI ("IORING_ENTER_GETEVENTS", IORING_ENTER_GETEVENTS) \
  ABI ("IORING_ENTER_REGISTERED_RING", IORING_ENTER_REGISTERED_RING) \
  ABI ("IOSQE_IO_LINK", IOSQE_IO_LINK) \
  ABI ("sizeof (io_uring_sqe)", sizeof (struct io_uring_sqe)) \
  ABI_MEMBER (io_uring_sqe, opcode) \
  ABI_MEMBER (io_uring_sqe, flags) \
  ABI_MEMBER (io_uring_sqe, ioprio) \
  ABI_MEMBER (io_uring_sqe, fd) \
  ABI_MEMBER (io_uring_sqe, off) \
  ABI_MEMBER (io_uring_sqe, addr) \
  ABI_MEMBER (io_uring_sqe, len) \
  ABI_MEMBER (io_uring_sqe, spawn_flags) \
  ABI_MEMBER (io_uring_sqe, user_data) \
  ABI_MEMBER (io_uring_sqe, buf_index) \
  ABI_MEMBER (io_uring_sqe, personality) \
  ABI_MEMBER (io_uring_sqe, addr3) \
  ABI_MEMBER (io_uring_sqe, __pad2) \
  ABI ("sizeof (io_uring_cqe)", sizeof (struct io_uring_cqe)) \
  ABI_MEMBER (io_uring_cqe, user_data) \
  ABI_MEMBER (io_uring_cqe, res) \
  ABI_MEMBER (io_uring_cqe, flags) \
  ABI_MEMBER (io_uring_sqe, addr2) \
  ABI_MEMBER (io_uring_sqe, cmd_op) \
  ABI_MEMBER (io_uring_sqe, optlen) \
  ABI ("sizeof (io_uring_spawn_attr)", sizeof (struct io_uring_spawn_attr)) \
  ABI_MEMBER (io_uring_spawn_attr, flags) \
  ABI_MEMBER (io_uring_spawn_attr, sigmask) \
  ABI_MEMBER (io_uring_spawn_attr, sigdefault) \
  ABI_MEMBER (io_uring_spawn_attr, sigignore) \
  ABI_MEMBER (io_uring_spawn_attr, pgid) \
  ABI_MEMBER (io_uring_spawn_attr, sched_policy) \
  ABI_MEMBER (io_uring_spawn_attr, sched_priority) \
  ABI_MEMBER (io_uring_spawn_attr, __resv) \
  ABI ("sizeof (io_uring_params)", sizeof (struct io_uring_params)) \
  ABI_MEMBER (io_uring_params, sq_entries) \
  ABI_MEMBER (io_uring_params, cq_entries) \
  ABI_MEMBER (io_uring_params, flags) \
  ABI_MEMBER (io_uring_params, features) \
  ABI_MEMBER (io_uring_params, sq_off) \
  ABI_MEMBER (io_uring_params, cq_off) \
  ABI ("sizeof (io_sqring_offsets)", sizeof (struct io_sqring_offsets)) \
  ABI_MEMBER (io_sqring_offsets, head) \
  ABI_MEMBER (io_sqring_offsets, tail) \
  ABI_MEMBER (io_sqring_offsets, ring_mask) \
  ABI_MEMBER (io_sqring_offsets, ring_entries) \
  ABI_MEMBER (io_sqring_offsets, flags) \
  ABI_MEMBER (io_sqring_offsets, dropped) \
  ABI_MEMBER (io_sqring_offsets, array) \
  ABI_MEMBER (io_sqring_offsets, user_addr) \
  ABI ("sizeof (io_cqring_offsets)", sizeof (struct io_cqring_offsets)) \
  ABI_MEMBER (io_cqring_offsets, head) \
  ABI_MEMBER (io_cqring_offsets, tail) \
  ABI_MEMBER (io_cqring_offsets, ring_mask) \
  ABI_MEMBER (io_cqring_offsets, ring_entries) \
  ABI_MEMBER (io_cqring_offsets, overflow) \
  ABI_MEMBER (io_cqring_offsets, cqes) \
  ABI_MEMBER (io_cqring_offsets, flags) \
  ABI_MEMBER (io_cqring_offsets, user_addr)

struct abi_value
{
  const char *name;
  unsigned long long value;
};
