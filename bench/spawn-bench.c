/* bench/spawn-bench.c -- process-creation benchmark of uring-spawn.

   One mechanism per run (--mech):
     fork         fork, then execve in the child
     vfork        vfork, then execve in the child
     posix_spawn  posix_spawn of the C library the binary runs with: the
		  stock glibc 2.44, or the patched one (io_uring path or,
		  with GLIBC_TUNABLES=glibc.spawn.io_uring=0, the clone path)
     uring-raw    an IORING_OP_CLONE + IORING_OP_EXEC chain made with
		  the liburing series' helpers, on a ring set up once per
		  thread: the floor of the approach (needs the kernel
		  series)
   spawning the static programs child-exit and child-stamp from --dir.

   In one parent state (--state: small, mem-untouched, mem-touched,
   fds-100k (half close-on-exec), fds-100k-cloexec) it measures, over --iters spawns after --warmup:
     call        the spawn call: until the parent has the pid back (for
		 posix_spawn and the chain, after the child has exec'd)
     spawn-wait  the spawn call and waitpid of the child, which exits at
		 once
     first-insn  from just before the spawn call to the child's first
		 instruction (child-stamp reads CLOCK_MONOTONIC first)
   With --threads LIST it runs the thread sweep instead: for each count,
   that many threads spawn and wait concurrently (--iters spawns in all);
   spawns/s and the per-spawn spawn-wait latency.  With --first N it
   starts N fresh copies of itself, each timing its very first spawn call.

   Every result is a CSV line on stdout (the columns: csv_header); the
   clock column is what --clock says: the caller knows whether this runs
   on the host (wall clock) or under QEMU -icount (guest instruction
   clock).  Progress goes to stderr.

   --expect-path io_uring|clone proves the path of every spawning context
   it measures: the kernel's io_uring:io_uring_spawn trace event, one per
   chain, is counted over the warm-up spawns (see path_trace_end).  */

/* The patched kernel's UAPI header first: liburing's copy has the same
   include guard and is then skipped.  */
#include <linux/io_uring.h>
#include <liburing.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sched.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/auxvec.h>

#ifndef CLONE_ARGS_SIZE_VER0
# define CLONE_ARGS_SIZE_VER0 64
#endif

#define GIB (1UL << 30)
#define MANY_FDS 100000
/* The exit status of a run whose parent state this machine cannot give.  */
#define EXIT_SKIPPED 77

enum mech { MECH_FORK, MECH_VFORK, MECH_SPAWN, MECH_URING };

static const char *const mech_names[] = {
  [MECH_FORK] = "fork", [MECH_VFORK] = "vfork",
  [MECH_SPAWN] = "posix_spawn", [MECH_URING] = "uring-raw",
};

/* What the command line asked for.  */
struct options
{
  enum mech mech;
  const char *label;		/* the mechanism's name in the CSV */
  const char *where;		/* host, vm */
  const char *clock;		/* wall, guest-insn */
  const char *dir;		/* where child-exit and child-stamp are */
  const char *state;
  const char *threads;		/* the sweep's thread counts, or NULL */
  const char *expect_path;	/* io_uring, clone or NULL */
  long iters;
  long warmup;
  long first;			/* fresh processes for --first, or 0 */
  long max_seconds;		/* a loop's time budget, or 0: none */
};

static void __attribute__ ((noreturn, format (printf, 1, 2)))
die (const char *fmt, ...)
{
  va_list ap;
  fputs ("spawn-bench: ", stderr);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  exit (2);
}

static int64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * INT64_C (1000000000) + ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Spawning.  */

/* The programs' environment is empty: the same exec cost whatever the
   caller's environment (GLIBC_TUNABLES differs between runs).  */
static char *empty_env[] = { NULL };

/* One spawning context; a thread has its own (its ring).  */
struct spawner
{
  enum mech mech;
  struct io_uring ring;
  unsigned int clone_flags;	/* the clone's spawn_flags */
};

static void
spawner_init (struct spawner *s, enum mech mech)
{
  s->mech = mech;
  s->clone_flags = 0;
  if (mech == MECH_URING)
    {
      /* A ring like glibc's (spawni-uring.c), as far as liburing 2.3
	 goes: one issuer, completions run when it waits, entered through
	 its registered index; and the descriptor snapshot where the
	 kernel has it, as glibc asks for it for an absolute path outside
	 /proc and /dev and no file action.  glibc's ring has no
	 descriptor at all; this one's is close-on-exec, so the snapshot
	 leaves it out of the child.  */
      int ret = io_uring_queue_init (8, &s->ring,
				     IORING_SETUP_SINGLE_ISSUER
				     | IORING_SETUP_DEFER_TASKRUN);
      if (ret < 0)
	die ("io_uring_queue_init: %s", strerror (-ret));
      ret = io_uring_register_ring_fd (&s->ring);
      if (ret != 1)
	die ("io_uring_register_ring_fd: %s",
	     ret < 0 ? strerror (-ret) : "not registered");
      if (getauxval (AT_IO_URING_SPAWN) & IORING_SPAWN_F_FD_SNAPSHOT)
	s->clone_flags = IORING_CLONE_FD_SNAPSHOT;
    }
}

static void
spawner_fini (struct spawner *s)
{
  if (s->mech == MECH_URING)
    io_uring_queue_exit (&s->ring);
}

/* The next SQE, for a prep helper; the ring holds 8 and a spawn queues
   2 at a time.  */
static struct io_uring_sqe *
get_sqe (struct io_uring *ring)
{
  struct io_uring_sqe *sqe = io_uring_get_sqe (ring);
  if (sqe == NULL)
    die ("io_uring_get_sqe: the ring is full");
  return sqe;
}

/* No attribute struct (addr2 0): the new program gets our signal
   mask, and the clone implies CLONE_CLEAR_SIGHAND; nothing else of
   posix_spawn's is asked for.  */
static void
prep_clone (struct io_uring *ring, struct clone_args *ca,
	    unsigned int spawn_flags)
{
  struct io_uring_sqe *sqe = get_sqe (ring);
  io_uring_prep_clone (sqe, ca, CLONE_ARGS_SIZE_VER0, NULL, spawn_flags);
  sqe->user_data = 0;
}

static void
prep_exec (struct io_uring *ring, const char *path, char *const argv[])
{
  struct io_uring_sqe *sqe = get_sqe (ring);
  io_uring_prep_exec (sqe, AT_FDCWD, path, argv, empty_env, 0);
  sqe->user_data = 1;
}

/* The chain CLONE -> EXEC; returns once both CQEs are in, i.e. when the
   child has exec'd, as posix_spawn does.  */
static pid_t
spawn_uring (struct spawner *s, const char *path, char *const argv[])
{
  struct io_uring *ring = &s->ring;
  struct clone_args ca = { .exit_signal = SIGCHLD };
  prep_clone (ring, &ca, s->clone_flags);
  prep_exec (ring, path, argv);
  int ret = io_uring_submit_and_wait (ring, 2);
  if (ret != 2)
    die ("io_uring_submit_and_wait: %s", ret < 0 ? strerror (-ret) : "short");
  int res[2] = { INT_MIN, INT_MIN };
  for (int i = 0; i < 2; i++)
    {
      struct io_uring_cqe *cqe;
      ret = io_uring_wait_cqe (ring, &cqe);
      if (ret < 0)
	die ("io_uring_wait_cqe: %s", strerror (-ret));
      if (cqe->user_data < 2)
	res[cqe->user_data] = cqe->res;
      io_uring_cqe_seen (ring, cqe);
    }
  if (res[0] <= 0)
    die ("IORING_OP_CLONE: %s", strerror (-res[0]));
  if (res[1] != 0)
    die ("IORING_OP_EXEC: %s", strerror (-res[1]));
  return res[0];
}

/* Spawn PATH with ARGV by S's mechanism; return the child's pid.  */
static pid_t
spawn (struct spawner *s, const char *path, char *const argv[])
{
  pid_t pid;
  int err;
  switch (s->mech)
    {
    case MECH_FORK:
    case MECH_VFORK:
      /* Both in this frame: a vfork child must not return from the
	 function that called vfork.  */
      pid = s->mech == MECH_FORK ? fork () : vfork ();
      if (pid == 0)
	{
	  execve (path, argv, empty_env);
	  _exit (127);
	}
      break;
    case MECH_SPAWN:
      err = posix_spawn (&pid, path, NULL, NULL, argv, empty_env);
      if (err != 0)
	die ("posix_spawn %s: %s", path, strerror (err));
      break;
    case MECH_URING:
      pid = spawn_uring (s, path, argv);
      break;
    default:
      abort ();
    }
  if (pid < 0)
    die ("%s: %m", mech_names[s->mech]);
  return pid;
}

/* Reap PID; it must have exited with status 0 (a failed exec gives
   127: the measurement would be wrong).  */
static void
reap (pid_t pid)
{
  int status;
  if (waitpid (pid, &status, 0) != pid)
    die ("waitpid %d: %m", (int) pid);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    die ("child %d: status %#x", (int) pid, status);
}

/* ------------------------------------------------------------------ */
/* Statistics and output.  */

struct samples
{
  int64_t *v;
  size_t n;
};

static void
samples_init (struct samples *s, size_t cap)
{
  s->v = calloc (cap ? cap : 1, sizeof *s->v);
  if (s->v == NULL)
    die ("out of memory");
  s->n = 0;
}

static int
cmp_i64 (const void *a, const void *b)
{
  int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
  return (x > y) - (x < y);
}

/* The nearest-rank percentile P (0 < P <= 100) of sorted V[N].  */
static int64_t
percentile (const int64_t *v, size_t n, double p)
{
  size_t rank = (size_t) (p / 100.0 * n + 0.999999);
  if (rank < 1)
    rank = 1;
  return v[rank > n ? n - 1 : rank - 1];
}

static const char csv_header[] =
  "where,clock,mechanism,state,threads,figure,n,"
  "median_us,p95_us,p99_us,min_us,mean_us,spawns_per_s";

static const struct options *opt;

/* Print the CSV line of S (sorted here); SPAWNS_PER_S < 0: none.  */
static void
report (const char *state, int threads, const char *figure,
	struct samples *s, double spawns_per_s)
{
  if (s->n == 0)
    return;
  qsort (s->v, s->n, sizeof *s->v, cmp_i64);
  double sum = 0;
  for (size_t i = 0; i < s->n; i++)
    sum += s->v[i];
  printf ("%s,%s,%s,%s,%d,%s,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,",
	  opt->where, opt->clock, opt->label, state, threads, figure, s->n,
	  percentile (s->v, s->n, 50) / 1e3, percentile (s->v, s->n, 95) / 1e3,
	  percentile (s->v, s->n, 99) / 1e3, s->v[0] / 1e3, sum / s->n / 1e3);
  if (spawns_per_s >= 0)
    printf ("%.1f", spawns_per_s);
  putchar ('\n');
  fflush (stdout);
}

/* ------------------------------------------------------------------ */
/* Parent states.  */

/* 1 GiB of private anonymous memory, touched (one write per page) or
   not.  Small pages: transparent huge pages would turn fork's page-table
   copy of 262144 PTEs into 512 PMDs and make the result depend on the
   machine's THP setting.  */
static void
state_memory (int touch)
{
  char *p = mmap (NULL, GIB, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    die ("mmap 1 GiB: %m");
  madvise (p, GIB, MADV_NOHUGEPAGE);
  if (touch)
    for (size_t off = 0; off < GIB; off += 4096)
      p[off] = 1;
}

/* MANY_FDS more open descriptors (of /dev/null): every other one
   close-on-exec, so that the child inherits half of them, or, with
   ALL_CLOEXEC, all of them close-on-exec (a server's or a runtime's
   table: the child keeps none).  */
static void
state_fds (bool all_cloexec)
{
  struct rlimit rl = { MANY_FDS + 1024, MANY_FDS + 1024 };
  if (setrlimit (RLIMIT_NOFILE, &rl) != 0)
    {
      /* Raising the hard limit needs CAP_SYS_RESOURCE, which a container
	 may not give even to root: then this state cannot be measured
	 here (exit status 77: skipped).  */
      struct rlimit cur;
      getrlimit (RLIMIT_NOFILE, &cur);
      fprintf (stderr, "spawn-bench: skipped: setrlimit RLIMIT_NOFILE to %lu: "
	       "%m (hard limit %lu)\n", (unsigned long) rl.rlim_max,
	       (unsigned long) cur.rlim_max);
      exit (EXIT_SKIPPED);
    }
  int base = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  if (base < 0)
    die ("/dev/null: %m");
  for (int i = 1; i < MANY_FDS; i++)
    if (fcntl (base, i % 2 && !all_cloexec ? F_DUPFD : F_DUPFD_CLOEXEC,
	       0) < 0)
      die ("dup #%d: %m", i);
}

static void
state_setup (const char *state)
{
  if (strcmp (state, "small") == 0)
    return;
  if (strcmp (state, "mem-untouched") == 0)
    state_memory (0);
  else if (strcmp (state, "mem-touched") == 0)
    state_memory (1);
  else if (strcmp (state, "fds-100k") == 0)
    state_fds (false);
  else if (strcmp (state, "fds-100k-cloexec") == 0)
    state_fds (true);
  else
    die ("unknown state %s (small, mem-untouched, mem-touched, fds-100k,"
	 " fds-100k-cloexec)", state);
}

/* ------------------------------------------------------------------ */
/* Which path the spawns take.  */

#define TRACEFS "/sys/kernel/tracing"
#define SPAWN_EVENT "events/io_uring/io_uring_spawn"
/* The spawns the path of --first is proven on (path_burst).  */
#define PATH_BURST 20

/* The tracefs instance recording io_uring:io_uring_spawn while the
   spawns to prove run; empty if none does.  */
static char trace_inst[PATH_MAX];

static void
write_file (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_TRUNC);
  if (fd < 0 || write (fd, text, strlen (text)) != (ssize_t) strlen (text))
    die ("%s: %m", path);
  close (fd);
}

/* With --expect-path: start recording the kernel's io_uring_spawn
   events, one per chain when it is over, in a tracefs instance of our
   own.  No seccomp filter is involved: under any filter the kernel
   refuses chains (and leaves AT_IO_URING_SPAWN out of a program exec'd
   under one), so a filter would only prove itself.  */
static void
path_trace_begin (void)
{
  trace_inst[0] = '\0';
  if (opt->expect_path == NULL)
    return;
  if (access (TRACEFS "/events", F_OK) != 0)
    mount ("nodev", TRACEFS, "tracefs", 0, NULL);
  if (access (TRACEFS "/" SPAWN_EVENT, F_OK) != 0)
    {
      /* A kernel without the spawn series: no spawn is a chain.  */
      if (strcmp (opt->expect_path, "io_uring") == 0)
	die ("%s: this kernel has no %s: the io_uring path cannot be "
	     "proven", opt->label, SPAWN_EVENT);
      return;
    }
  char path[PATH_MAX + 64];
  snprintf (trace_inst, sizeof trace_inst, TRACEFS "/instances/spawn-bench-%d",
	    (int) getpid ());
  if (mkdir (trace_inst, 0700) != 0)
    die ("%s: %m", trace_inst);
  snprintf (path, sizeof path, "%s/" SPAWN_EVENT "/enable", trace_inst);
  write_file (path, "1");
}

/* Stop recording; the SPAWNS spawns made since path_trace_begin must
   have taken the path --expect-path names, or the run stops.  io_uring:
   one event of this process per spawn, each with a child (pid > 0) that
   runs its program (result 0).  clone: no event of this process at all
   (a chain the kernel refused, after which glibc takes the clone path,
   has one too, with pid -EOPNOTSUPP).  */
static void
path_trace_end (long spawns)
{
  if (opt->expect_path == NULL)
    return;
  long ok = 0, other = 0;
  if (trace_inst[0] != '\0')
    {
      char path[PATH_MAX + 64], line[512], tgid[32];
      long kept = -1, written = -1;
      snprintf (path, sizeof path, "%s/" SPAWN_EVENT "/enable", trace_inst);
      write_file (path, "0");
      snprintf (path, sizeof path, "%s/trace", trace_inst);
      FILE *f = fopen (path, "r");
      if (f == NULL)
	die ("%s: %m", path);
      snprintf (tgid, sizeof tgid, "tgid %d,", (int) getpid ());
      while (fgets (line, sizeof line, f) != NULL)
	{
	  const char *ev = strstr (line, tgid);
	  int pid, result;
	  if (sscanf (line, "# entries-in-buffer/entries-written: %ld/%ld",
		      &kept, &written) == 2
	      || strstr (line, " io_uring_spawn: ") == NULL || ev == NULL)
	    continue;
	  if (sscanf (ev, "tgid %*d, pid %d, result %d", &pid, &result) == 2
	      && pid > 0 && result == 0)
	    ok++;
	  else
	    other++;
	}
      fclose (f);
      rmdir (trace_inst);
      trace_inst[0] = '\0';
      if (kept < 0 || kept != written)
	die ("%s: the trace kept %ld of %ld events: the path is not proven",
	     opt->label, kept, written);
    }
  bool uring = strcmp (opt->expect_path, "io_uring") == 0;
  if (spawns < 1 || (uring ? ok != spawns || other != 0 : ok + other != 0))
    die ("%s: %ld spawns posted %ld events of a chain that ran its program"
	 " and %ld other io_uring_spawn events: not the %s path", opt->label,
	 spawns, ok, other, opt->expect_path);
  fprintf (stderr, "  %-15s %-13s path %s: %ld spawns, %ld chain events\n",
	   opt->label, opt->state, opt->expect_path, spawns, ok);
}

/* ------------------------------------------------------------------ */
/* The measurements.  */

static char exit_path[PATH_MAX], stamp_path[PATH_MAX];

static void
child_paths (const char *dir)
{
  snprintf (exit_path, sizeof exit_path, "%s/child-exit", dir);
  snprintf (stamp_path, sizeof stamp_path, "%s/child-stamp", dir);
  if (access (exit_path, X_OK) != 0 || access (stamp_path, X_OK) != 0)
    die ("%s/child-exit and child-stamp must exist and be executable", dir);
}

/* The end of a loop's time budget that starts at T0 (--max-seconds; a
   fifth of it for the warm-up): a quick run stops the slow cases (fork
   of a 1 GiB parent, 100k descriptors) early instead of taking minutes;
   the n column then says how many spawns were measured.  */
static int64_t
deadline (int64_t t0, int fifth)
{
  if (opt->max_seconds == 0)
    return INT64_MAX;
  int64_t budget = opt->max_seconds * INT64_C (1000000000);
  return t0 + (fifth ? budget / 5 : budget);
}

static void
progress (const char *what, long n, int64_t t0)
{
  fprintf (stderr, "  %-15s %-13s %-14s %6ld spawns  %.1f s\n", opt->label,
	   opt->state, what, n, (now_ns () - t0) / 1e9);
}

/* Figures call and spawn-wait: one loop, the child-exit program.  */
static void
measure_call (struct spawner *s)
{
  char *argv[] = { "child-exit", NULL };
  struct samples call, both;
  samples_init (&call, opt->iters);
  samples_init (&both, opt->iters);
  /* The warm-up spawns prove the path, in the measured parent state.  */
  int64_t warm_end = deadline (now_ns (), 1);
  long warm = 0;
  path_trace_begin ();
  for (; warm < opt->warmup && now_ns () < warm_end; warm++)
    reap (spawn (s, exit_path, argv));
  path_trace_end (warm);
  int64_t start = now_ns (), end = deadline (start, 0);
  for (long i = 0; i < opt->iters && now_ns () < end; i++)
    {
      int64_t t0 = now_ns ();
      pid_t pid = spawn (s, exit_path, argv);
      int64_t t1 = now_ns ();
      reap (pid);
      int64_t t2 = now_ns ();
      call.v[call.n++] = t1 - t0;
      both.v[both.n++] = t2 - t0;
    }
  progress ("call+wait", (long) call.n, start);
  report (opt->state, 1, "call", &call, -1);
  report (opt->state, 1, "spawn-wait", &both, -1);
  free (call.v);
  free (both.v);
}

/* Figure first-insn: child-stamp writes its first clock reading to the
   pipe it gets the number of in argv[1].  One spawn; returns the time
   from just before the call to that reading.  */
static int64_t
stamp_once (struct spawner *s, char *const argv[], int rfd)
{
  int64_t t0 = now_ns ();
  pid_t pid = spawn (s, stamp_path, argv);
  struct timespec ts;
  if (read (rfd, &ts, sizeof ts) != sizeof ts)
    die ("reading the child's timestamp: %m");
  reap (pid);
  return ts.tv_sec * INT64_C (1000000000) + ts.tv_nsec - t0;
}

static void
measure_first_insn (struct spawner *s, int rfd, int wfd)
{
  char fdarg[16];
  snprintf (fdarg, sizeof fdarg, "%d", wfd);
  char *argv[] = { "child-stamp", fdarg, NULL };
  struct samples first;
  samples_init (&first, opt->iters);
  int64_t warm_end = deadline (now_ns (), 1);
  for (long i = 0; i < opt->warmup && now_ns () < warm_end; i++)
    stamp_once (s, argv, rfd);
  int64_t start = now_ns (), end = deadline (start, 0);
  for (long i = 0; i < opt->iters && now_ns () < end; i++)
    first.v[first.n++] = stamp_once (s, argv, rfd);
  progress ("first-insn", (long) first.n, start);
  report (opt->state, 1, "first-insn", &first, -1);
  free (first.v);
}

/* The thread sweep.  */

struct sweep
{
  pthread_barrier_t ready, go;
  long per_thread;
  struct samples *lat;		/* one per thread */
};

struct worker
{
  struct sweep *sw;
  int index;
};

static void *
sweep_thread (void *arg)
{
  struct worker *w = arg;
  struct sweep *sw = w->sw;
  struct spawner s;
  char *argv[] = { "child-exit", NULL };
  spawner_init (&s, opt->mech);
  for (long i = 0; i < opt->warmup / 4 + 1; i++)
    reap (spawn (&s, exit_path, argv));
  pthread_barrier_wait (&sw->ready);
  pthread_barrier_wait (&sw->go);
  struct samples *lat = &sw->lat[w->index];
  for (long i = 0; i < sw->per_thread; i++)
    {
      int64_t t0 = now_ns ();
      reap (spawn (&s, exit_path, argv));
      lat->v[lat->n++] = now_ns () - t0;
    }
  spawner_fini (&s);
  return NULL;
}

/* NTHREADS threads spawn --iters children in all, each waiting for its
   own; spawns/s over the time from the start signal to the last join.  */
static void
sweep_one (int nthreads)
{
  struct sweep sw;
  pthread_t tid[nthreads];
  struct worker w[nthreads];
  sw.per_thread = (opt->iters + nthreads - 1) / nthreads;
  sw.lat = calloc (nthreads, sizeof *sw.lat);
  pthread_barrier_init (&sw.ready, NULL, nthreads + 1);
  pthread_barrier_init (&sw.go, NULL, nthreads + 1);
  /* Every thread's warm-up (its own ring) proves the path.  */
  path_trace_begin ();
  for (int i = 0; i < nthreads; i++)
    {
      samples_init (&sw.lat[i], sw.per_thread);
      w[i] = (struct worker) { &sw, i };
      int err = pthread_create (&tid[i], NULL, sweep_thread, &w[i]);
      if (err != 0)
	die ("pthread_create: %s", strerror (err));
    }
  pthread_barrier_wait (&sw.ready);
  path_trace_end (nthreads * (opt->warmup / 4 + 1));
  int64_t t0 = now_ns ();
  pthread_barrier_wait (&sw.go);
  for (int i = 0; i < nthreads; i++)
    pthread_join (tid[i], NULL);
  int64_t elapsed = now_ns () - t0;

  struct samples all;
  samples_init (&all, sw.per_thread * nthreads);
  for (int i = 0; i < nthreads; i++)
    {
      memcpy (all.v + all.n, sw.lat[i].v, sw.lat[i].n * sizeof *all.v);
      all.n += sw.lat[i].n;
      free (sw.lat[i].v);
    }
  char what[32];
  snprintf (what, sizeof what, "%d threads", nthreads);
  progress (what, (long) all.n, t0);
  report ("small", nthreads, "spawn-wait", &all, all.n * 1e9 / elapsed);
  free (all.v);
  free (sw.lat);
  pthread_barrier_destroy (&sw.ready);
  pthread_barrier_destroy (&sw.go);
}

static void
measure_threads (const char *list)
{
  char *copy = strdup (list), *save = NULL;
  for (char *t = strtok_r (copy, ",", &save); t != NULL;
       t = strtok_r (NULL, ",", &save))
    {
      int n = atoi (t);
      if (n < 1 || n > 256)
	die ("bad thread count %s", t);
      sweep_one (n);
    }
  free (copy);
}

/* --one: the body of a fresh process started by --first; prints how long
   its first spawn call took, in ns.  */
static int
first_one (void)
{
  struct spawner s;
  char *argv[] = { "child-exit", NULL };
  spawner_init (&s, opt->mech);
  int64_t t0 = now_ns ();
  pid_t pid = spawn (&s, exit_path, argv);
  int64_t t1 = now_ns ();
  reap (pid);
  printf ("%lld\n", (long long) (t1 - t0));
  return 0;
}

/* Run one fresh copy of this program with --one and return its output.
   Spawned with fork + execve whatever the mechanism under test: only the
   copy's own first spawn is timed.  */
static int64_t
run_fresh (char *const argv[])
{
  int p[2];
  if (pipe2 (p, O_CLOEXEC) != 0)
    die ("pipe2: %m");
  pid_t pid = fork ();
  if (pid < 0)
    die ("fork: %m");
  if (pid == 0)
    {
      dup2 (p[1], 1);
      execv ("/proc/self/exe", argv);
      _exit (127);
    }
  close (p[1]);
  char buf[64];
  ssize_t n = read (p[0], buf, sizeof buf - 1);
  close (p[0]);
  reap (pid);
  if (n <= 0)
    die ("the fresh process printed nothing");
  buf[n] = '\0';
  return strtoll (buf, NULL, 10);
}

/* --first: the path of the fresh copies, which run this binary in this
   environment, proven on PATH_BURST spawns of this process, the first
   of which is its own first spawn.  */
static void
path_burst (void)
{
  struct spawner s;
  char *argv[] = { "child-exit", NULL };
  spawner_init (&s, opt->mech);
  path_trace_begin ();
  for (long i = 0; i < PATH_BURST; i++)
    reap (spawn (&s, exit_path, argv));
  path_trace_end (PATH_BURST);
  spawner_fini (&s);
}

/* "First spawn of a process": --first fresh processes, one spawn each.
   The environment (GLIBC_TUNABLES) is passed on; the loader and libc are
   those of this binary.  */
static void
measure_first (void)
{
  path_burst ();
  char *argv[] = { "spawn-bench", "--one", "--mech",
		   (char *) mech_names[opt->mech], "--dir", (char *) opt->dir,
		   NULL };
  struct samples first;
  samples_init (&first, opt->first);
  int64_t start = now_ns ();
  for (long i = 0; i < opt->first; i++)
    first.v[first.n++] = run_fresh (argv);
  progress ("first spawn", opt->first, start);
  report ("first-spawn", 1, "call", &first, -1);
  free (first.v);
}

/* ------------------------------------------------------------------ */

static void
usage (FILE *f)
{
  fprintf (f,
	   "usage: spawn-bench --mech fork|vfork|posix_spawn|uring-raw --dir DIR\n"
	   "         [--label NAME] [--where WHERE] [--clock CLOCK]\n"
	   "         [--state small|mem-untouched|mem-touched|fds-100k|"
	   "fds-100k-cloexec]\n"
	   "         [--iters N] [--warmup N] [--max-seconds S]\n"
	   "         [--expect-path io_uring|clone]\n"
	   "         [--threads N,N,... | --first N]\n"
	   "       spawn-bench --header\n");
}

static long
parse_count (const char *s, const char *what)
{
  char *end;
  long v = strtol (s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < 0)
    die ("bad %s: %s", what, s);
  return v;
}

static enum mech
parse_mech (const char *s)
{
  for (size_t i = 0; i < sizeof mech_names / sizeof mech_names[0]; i++)
    if (strcmp (s, mech_names[i]) == 0)
      return i;
  die ("unknown mechanism %s", s);
}

/* The options with a value, and the member it goes to: a string, or
   a count (long).  */
static const struct
{
  const char *name;
  size_t offset;
  int is_count;
} value_options[] = {
  { "--label", offsetof (struct options, label), 0 },
  { "--where", offsetof (struct options, where), 0 },
  { "--clock", offsetof (struct options, clock), 0 },
  { "--dir", offsetof (struct options, dir), 0 },
  { "--state", offsetof (struct options, state), 0 },
  { "--threads", offsetof (struct options, threads), 0 },
  { "--expect-path", offsetof (struct options, expect_path), 0 },
  { "--iters", offsetof (struct options, iters), 1 },
  { "--warmup", offsetof (struct options, warmup), 1 },
  { "--first", offsetof (struct options, first), 1 },
  { "--max-seconds", offsetof (struct options, max_seconds), 1 },
};

/* Store option NAME's VALUE in O; false if there is no such option.  */
static int
set_option (struct options *o, const char *name, const char *value)
{
  for (size_t i = 0; i < sizeof value_options / sizeof value_options[0]; i++)
    if (strcmp (name, value_options[i].name) == 0)
      {
	char *field = (char *) o + value_options[i].offset;
	if (value_options[i].is_count)
	  *(long *) field = parse_count (value, name);
	else
	  *(const char **) field = value;
	return 1;
      }
  return 0;
}

static void
parse_args (int argc, char **argv, struct options *o, int *one)
{
  *o = (struct options) { .mech = -1, .where = "host", .clock = "wall",
			  .state = "small", .iters = 2000, .warmup = 200 };
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (strcmp (a, "--header") == 0)
	{
	  puts (csv_header);
	  exit (0);
	}
      if (strcmp (a, "--help") == 0)
	{
	  usage (stdout);
	  exit (0);
	}
      if (strcmp (a, "--one") == 0)
	{
	  *one = 1;
	  continue;
	}
      if (v == NULL || strncmp (a, "--", 2) != 0)
	{
	  usage (stderr);
	  die ("bad argument %s", a);
	}
      i++;
      if (strcmp (a, "--mech") == 0)
	o->mech = parse_mech (v);
      else if (!set_option (o, a, v))
	{
	  usage (stderr);
	  die ("unknown option %s", a);
	}
    }
  if ((int) o->mech < 0 || o->dir == NULL)
    {
      usage (stderr);
      die ("--mech and --dir are required");
    }
  if (o->label == NULL)
    o->label = mech_names[o->mech];
  if (o->iters < 1)
    die ("--iters must be at least 1");
  if (o->expect_path != NULL && strcmp (o->expect_path, "io_uring") != 0
      && strcmp (o->expect_path, "clone") != 0)
    die ("--expect-path io_uring or clone, not %s", o->expect_path);
  if (o->expect_path != NULL && o->warmup < 1 && o->first == 0
      && o->threads == NULL)
    die ("--expect-path proves the path on the warm-up: --warmup 1 at least");
}

int
main (int argc, char **argv)
{
  static struct options o;
  int one = 0;
  parse_args (argc, argv, &o, &one);
  opt = &o;
  child_paths (o.dir);
  if (one)
    return first_one ();

  if (o.first > 0)
    {
      measure_first ();
      return 0;
    }
  if (o.threads != NULL)
    {
      measure_threads (o.threads);
      return 0;
    }

  /* The stamp pipe before the state: its descriptors stay low.  */
  int p[2];
  if (pipe (p) != 0)
    die ("pipe: %m");
  fcntl (p[0], F_SETFD, FD_CLOEXEC);
  state_setup (o.state);
  struct spawner s;
  spawner_init (&s, o.mech);
  measure_call (&s);
  measure_first_insn (&s, p[0], p[1]);
  spawner_fini (&s);
  return 0;
}
