/* B-1 (review 2026-12, blocker): what a hostile unprivileged chain can
   make the kernel allocate.  v2 copied argv/envp at each EXEC's prep
   (up to 6 MiB each, ignoring RLIMIT_STACK), shared a copy only with
   the immediately preceding EXEC, and had no limit on the length of a
   chain: 1 CLONE + 32767 EXECs alternating between two argv arrays over
   the same 6 MiB of strings asked for ~190 GiB of kernel memory, which
   the OOM killer does not see.  v3: the distinct copies of a whole
   chain together stay within one execve()'s budget,
   min (RLIMIT_STACK / 4, 3/4 of _STK_LIM = 6 MiB) (never below exec's
   ARG_MAX floor, 32 pages), beyond it the clone fails with -E2BIG and no
   child exists; EXECs naming the same arrays share one copy anywhere in
   the chain; a chain has at most IORING_SPAWN_MAX_OPS (64) SQEs.  v4
   (review M-4): the copies and the paths are charged to the submitter's
   memory cgroup and to no RSS (v3 counted the copies in the submitter's
   RssAnon, which mm maintainers object to, and charged no path).

   Runs in a memory cgroup of its own (st-membound): the test kernel has
   CONFIG_MEMCG, and the charges are read from its memory.current.

   Runs as root only to set up (the FIFO, the tiny program), then
   setresuid/setresgid to nobody (65534): everything checked is what an
   unprivileged user can do.

   1. Chain length: CLONE + 63 more SQEs is accepted; CLONE + 64 more
      fails with -EINVAL (all its CQEs), and no child.  A v2 kernel runs
      the 65-SQE chain: FAIL "65 SQEs refused".
   2. The hostile chain within budget: CLONE + SPAWN_OPEN of a FIFO
      nobody writes (the child blocks) + 62 EXECs whose argv alternate
      between arrays A and B (different pointer arrays over the same
      string block), each copy 2/5 of the budget.  The distinct copies
      (2) fit: the clone runs (the child blocks in the open).  While it
      blocks, the cgroup's memory.current grows by no more than the budget plus a fixed slack (64 requests, one
      task, 4 MiB of noise) and by at least the two copies (they are
      charged), and the submitter's RssAnon grows by less than half of
      them (v3 counted them there).  A kernel that copies per EXEC
      (v2's adjacent-only sharing makes 62 copies here, ~25 budgets)
      fails the growth bound.  Then the child is killed (it is an
      ordinary child: SIGKILL) and reaped, and memory.current falls
      back.
   3. Over budget: the same chain with each copy 3/5 of the budget
      (distinct copies 6/5 of it): the clone fails with -E2BIG, the
      other CQEs -ECANCELED, no child.  v2 (6 MiB per copy, no chain
      total) runs it: FAIL.
   4. The budget follows RLIMIT_STACK: with RLIMIT_STACK lowered so that
      the budget is a quarter of what it was (read back with
      getrlimit), the chain of 2 that fitted in step 2 fails with
      -E2BIG.  A kernel with v2's fixed 6 MiB limit runs it: FAIL.
   5. Paths: 8 chains of CLONE + SPAWN_OPEN of the FIFO + 62 EXECs,
      each EXEC with its own path of 4000 bytes (the kernel holds each
      in a PATH_MAX buffer while the child blocks): memory.current grows
      by at least the 496 paths (1.9 MiB; the memcg's per-CPU charge
      batches are 256 KiB each).  v3 took them with delayed_getname()
      from the unaccounted names_cache and kmalloc: FAIL.  */

#include "st.h"
#include <grp.h>
#include <sys/resource.h>

static char fifo[] = "/tmp/st-v3-membound-fifo";
static char prog[] = "/tmp/st-v3-membound-true";

/* exec's floor for the argument budget (ARG_MAX in the kernel: 32
   pages of 4 KiB).  */
#define ST_ARG_MIN (32 * 4096UL)
/* The most one argument string may be (MAX_ARG_STRLEN).  */
#define ST_STRLEN_MAX (32 * 4096UL)

/* The budget of one execve() of this process: min (RLIMIT_STACK / 4,
   6 MiB), at least ST_ARG_MIN.  */
static unsigned long
budget (void)
{
  struct rlimit rl;
  unsigned long b = 6UL << 20;
  if (getrlimit (RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
      && rl.rlim_cur / 4 < b)
    b = rl.rlim_cur / 4;
  return b < ST_ARG_MIN ? ST_ARG_MIN : b;
}

/* The memory charged to our cgroup, in kB (memory.current).  */
static char memcur[512];
static const char memcg[] = "st-membound";

static long
kernel_kb (void)
{
  char buf[64];
  if (st_read_file (memcur, buf, sizeof buf) > 0)
    return atol (buf) / 1024;
  return -1;
}

static long
rss_anon_kb (void)
{
  char buf[64];
  if (!st_status_field (getpid (), "RssAnon", buf, sizeof buf))
    return -1;
  return atol (buf);
}

/* Two argv arrays over the same block of strings worth BYTES (NULs and
   pointers included, as the kernel counts them).  */
static char *block;
static char **argv_a, **argv_b;

static void
make_args (unsigned long bytes)
{
  free (block);
  free (argv_a);
  free (argv_b);
  unsigned long each = ST_STRLEN_MAX / 2;	/* bytes per string, NUL in */
  unsigned long n = bytes / (each + sizeof (char *)) + 1;
  block = malloc (n * each);
  argv_a = calloc (n + 1, sizeof (char *));
  argv_b = calloc (n + 1, sizeof (char *));
  if (block == NULL || argv_a == NULL || argv_b == NULL)
    {
      kt_fail ("malloc", "%lu bytes", n * each);
      kt_exit ();
    }
  memset (block, 'x', n * each);
  for (unsigned long i = 0; i < n; i++)
    {
      block[(i + 1) * each - 1] = '\0';
      argv_a[i] = argv_b[i] = block + i * each;
    }
}

/* Queue CLONE (0) + SPAWN_OPEN of the FIFO (1) + NEXEC EXECs (2...)
   alternating between argv_a and argv_b (the last one unlinked).  */
static struct clone_args ca = { .exit_signal = SIGCHLD };

static void
queue_hostile (int nexec, bool open_fifo)
{
  st_clone (&st_ring, &ca, 0);
  if (open_fifo)
    st_open (&st_ring, fifo, O_RDONLY, 10, 1);
  for (int i = 0; i < nexec; i++)
    {
      struct io_uring_sqe *sqe
	= st_exec (&st_ring, prog, (i & 1) ? argv_b : argv_a, st_envp,
		   (open_fifo ? 2 : 1) + i);
      if (i + 1 < nexec)
	sqe->flags = IOSQE_IO_LINK;
    }
}

/* Submit what is queued (N SQEs) and expect the clone to fail with
   WANT and every other CQE -ECANCELED, no child.  */
static void
expect_refused (const char *name, int n, int want)
{
  st_run (&st_ring, n);
  char what[160];
  snprintf (what, sizeof what, "%s: the clone fails", name);
  KT_EXPECT_EQ (what, st_res[0], want);
  int bad = 0;
  for (int i = 1; i < n; i++)
    if (st_res[i] != -ECANCELED && st_res[i] != want)
      bad++;
  snprintf (what, sizeof what, "%s: the other CQEs are errors", name);
  KT_EXPECT_EQ (what, bad, 0);
  if (st_res[0] > 0)
    {
      kill (st_res[0], SIGKILL);
      st_wait (st_res[0]);
    }
  snprintf (what, sizeof what, "%s: no child", name);
  st_no_children (what);
}

static int run (void);

/* 5. Paths: NCHAINS blocked chains, each EXEC with a path of its own of
   PATH_LEN bytes.  */
enum { nchains = 8, path_len = 4000 };

static void
paths (void)
{
  struct io_uring ring;
  int r = io_uring_queue_init (IORING_SPAWN_MAX_OPS, &ring, 0);
  if (r < 0)
    {
      kt_fail ("paths: a ring", "%s", strerror (-r));
      return;
    }
  int nexec = IORING_SPAWN_MAX_OPS - 2;
  static char names[IORING_SPAWN_MAX_OPS][path_len];
  for (int i = 0; i < nexec; i++)
    {
      memset (names[i], 'p', path_len - 1);
      memcpy (names[i], "/tmp/", 5);
      names[i][5] = 'a' + i % 26;
      names[i][6] = 'a' + i / 26;
      names[i][path_len - 1] = '\0';
      /* Components of at most NAME_MAX.  */
      for (int j = 200; j < path_len - 1; j += 200)
	names[i][j] = '/';
    }
  char *argv[] = { "true", NULL };
  struct clone_args pca = { .exit_signal = SIGCHLD };
  long k0 = kernel_kb ();
  pid_t children[nchains];
  int started = 0;
  for (int c = 0; c < nchains; c++)
    {
      st_clone (&ring, &pca, 0);
      st_open (&ring, fifo, O_RDONLY, 10, 1);
      for (int i = 0; i < nexec; i++)
	{
	  struct io_uring_sqe *sqe
	    = st_exec (&ring, names[i], argv, st_envp, 2 + i);
	  if (i + 1 < nexec)
	    sqe->flags = IOSQE_IO_LINK;
	}
      if (io_uring_submit (&ring) != nexec + 2)
	{
	  kt_fail ("paths: submit", "chain %d", c);
	  break;
	}
      /* The child blocks in its open: the next chain's child is
	 another one.  */
      pid_t child = 0;
      for (int tries = 0; tries < 200 && child == 0; tries++)
	{
	  pid_t pids[nchains + 1];
	  int n = st_children_of (getpid (), pids, nchains + 1);
	  for (int j = 0; j < n && child == 0; j++)
	    {
	      bool known = false;
	      for (int k = 0; k < started; k++)
		known |= pids[j] == children[k];
	      if (!known && st_state (pids[j]) == 'S')
		child = pids[j];
	    }
	  if (child == 0)
	    usleep (10000);
	}
      if (child == 0)
	{
	  kt_fail ("paths: a blocked child", "chain %d", c);
	  break;
	}
      children[started++] = child;
    }
  usleep (200000);
  long k1 = kernel_kb ();
  long want = (long) started * nexec * path_len / 1024;
  printf ("paths: %d chains blocked, memory.current %ld -> %ld kB, the paths"
	  " %ld kB\n", started, k0, k1, want);
  if (started == nchains && k1 - k0 >= want)
    kt_pass ("paths: charged to the memory cgroup");
  else
    kt_fail ("paths: charged to the memory cgroup",
	     "memory.current grew by %ld kB, the paths are %ld kB", k1 - k0,
	     want);
  for (int c = 0; c < started; c++)
    kill (children[c], SIGKILL);
  int got = 0;
  for (int c = 0; c < started; c++)
    {
      got += st_reap (&ring, nexec + 2, 20);
      st_wait (children[c]);
    }
  KT_EXPECT_EQ ("paths: every CQE", got, started * (nexec + 2));
  io_uring_queue_exit (&ring);
}

int
main (void)
{
  if (geteuid () != 0)
    {
      kt_unsupported ("membound", "must start as root (then drops to 65534)");
      return 77;
    }
  if (!st_mkfifo (fifo) || !st_tiny_true (prog))
    return kt_exit ();
  chmod (fifo, 0666);
  /* The test runs in a child that drops its privileges; this process
     cleans up after it.  */
  fflush (stdout);
  pid_t t = fork ();
  if (t == 0)
    _exit (run ());
  int status = st_wait_for (t, 0, 550);
  st_memcg_remove (memcg);
  unlink (fifo);
  unlink (prog);
  if (status < 0 || !WIFEXITED (status))
    {
      kt_fail ("membound", "the test process: status %#x", status);
      if (status < 0)
	kill (t, SIGKILL);
      return kt_exit ();
    }
  return WEXITSTATUS (status);
}

static int
run (void)
{
  /* A memory cgroup of our own, made before dropping privileges
     (reading memory.current stays allowed).  */
  if (!st_memcg_enter (memcg, memcur, sizeof memcur))
    {
      kt_fail ("a memory cgroup", "%s: %m (a kernel without CONFIG_MEMCG?)",
	       memcur);
      return 1;
    }
  if (setgroups (0, NULL) != 0 || setresgid (65534, 65534, 65534) != 0
      || setresuid (65534, 65534, 65534) != 0)
    {
      kt_fail ("become nobody", "%m");
      return 1;
    }
  /* 128 entries: a 65-SQE chain must fit in one submission.  */
  int r = io_uring_queue_init (128, &st_ring, 0);
  if (r < 0)
    {
      kt_fail ("ring of 128", "%s", strerror (-r));
      return 1;
    }
  unsigned long b = budget ();
  printf ("budget %lu bytes (%s)\n", b, memcur);

  /* 1. Chain length.  Small argv: only the length matters.  */
  make_args (1);
  queue_hostile (IORING_SPAWN_MAX_OPS - 1, false);
  st_run (&st_ring, IORING_SPAWN_MAX_OPS);
  if (st_res[0] > 0)
    kt_pass ("64 SQEs accepted");
  else
    kt_fail ("64 SQEs accepted", "clone res %d", st_res[0]);
  KT_EXPECT_EQ ("64 SQEs: the first exec ran", st_res[1], 0);
  ST_EXPECT_STATUS ("64 SQEs: the child", st_fate (), 0);
  queue_hostile (IORING_SPAWN_MAX_OPS, false);
  expect_refused ("65 SQEs refused", IORING_SPAWN_MAX_OPS + 1, -EINVAL);

  /* 2. The hostile chain within budget.  */
  int nexec = IORING_SPAWN_MAX_OPS - 2;
  make_args (b * 2 / 5);
  long rss0 = rss_anon_kb ();
  long k0 = kernel_kb ();
  queue_hostile (nexec, true);
  st_reset ();
  int ret = io_uring_submit (&st_ring);
  KT_EXPECT_EQ ("hostile chain submitted", ret, nexec + 2);
  pid_t child = st_find_child (getpid (), "S");
  if (child == 0)
    kt_fail ("hostile chain within budget runs", "no child blocked in the "
	     "FIFO open (the clone's CQE: %d)",
	     st_reap (&st_ring, nexec + 2, 1) > 0 ? st_res[0] : 0);
  else
    {
      kt_pass ("hostile chain within budget runs");
      usleep (200000);
      long k1 = kernel_kb (), rss1 = rss_anon_kb ();
      long bound = (long) (b / 1024) + 64 * 8 + 4096;
      printf ("kernel memory %ld -> %ld kB (bound +%ld), RssAnon %ld -> "
	      "%ld kB\n", k0, k1, bound, rss0, rss1);
      if (k1 - k0 <= bound)
	kt_pass ("kernel memory within one exec's budget");
      else
	kt_fail ("kernel memory within one exec's budget",
		 "grew by %ld kB, bound %ld kB", k1 - k0, bound);
      long copies = (long) (2 * (b * 2 / 5) / 1024);
      if (k1 - k0 >= copies)
	kt_pass ("the copies are charged to the memory cgroup");
      else
	kt_fail ("the copies are charged to the memory cgroup",
		 "memory.current grew by %ld kB, the copies are %ld kB",
		 k1 - k0, copies);
      /* RSS counters are per-CPU batched: half is plenty to tell
	 counted from not counted.  */
      if (rss1 - rss0 < copies / 2)
	kt_pass ("the copies are not counted in the submitter's RSS");
      else
	kt_fail ("the copies are not counted in the submitter's RSS",
		 "RssAnon grew by %ld kB, the copies are %ld kB",
		 rss1 - rss0, copies);
      kill (child, SIGKILL);
      int got = st_reap (&st_ring, nexec + 2, 20);
      KT_EXPECT_EQ ("killed chain: every CQE", got, nexec + 2);
      KT_EXPECT_EQ ("killed chain: the clone's CQE has the pid", st_res[0],
		    child);
      int status = st_wait (child);
      if (status >= 0 && WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL)
	kt_pass ("killed chain: the child died of SIGKILL");
      else
	kt_fail ("killed chain: the child died of SIGKILL", "status %#x",
		 status);
      long k2 = kernel_kb ();
      if (k2 - k0 < copies / 2)
	kt_pass ("the copies are uncharged when the chain ends");
      else
	kt_fail ("the copies are uncharged when the chain ends",
		 "memory.current still %ld kB above", k2 - k0);
    }

  /* 3. Over budget.  */
  make_args (b * 3 / 5);
  queue_hostile (nexec, true);
  expect_refused ("distinct copies over budget: E2BIG", nexec + 2, -E2BIG);

  /* 4. The budget follows RLIMIT_STACK.  */
  make_args (b * 2 / 5);
  struct rlimit rl;
  getrlimit (RLIMIT_STACK, &rl);
  unsigned long want = b;	/* four times smaller budget: stack = b */
  if (want / 4 < ST_ARG_MIN)
    kt_unsupported ("budget follows RLIMIT_STACK", "budget %lu too small", b);
  else
    {
      rl.rlim_cur = want;
      if (setrlimit (RLIMIT_STACK, &rl) != 0)
	kt_fail ("lower RLIMIT_STACK", "%m");
      unsigned long b2 = budget ();
      printf ("RLIMIT_STACK %lu: budget %lu\n", want, b2);
      if (2 * (b * 2 / 5) <= b2)
	kt_unsupported ("budget follows RLIMIT_STACK", "budget %lu not lower",
			b2);
      else
	{
	  queue_hostile (nexec, true);
	  expect_refused ("budget follows RLIMIT_STACK: E2BIG", nexec + 2,
			  -E2BIG);
	}
    }

  paths ();
  st_no_children ("no child left");
  return kt_failures ? 1 : 0;
}
