/* Every argument of a chain is copied at submission, and the child has
   a new, empty mm, none of its parent's (issue 11, item 5).  v1's child shared its
   parent's mm and read paths, argv, envp and sigsets lazily, from memory
   other threads of the parent kept using, and marked the parent's mm
   MMF_MULTIPROCESS for good.

   v3: the attributes and paths are copied at prep, argv and envp when
   the clone is issued (before the child exists); none of them later.
   A chain CLONE (io_uring_spawn_attr) + SPAWN_CHDIR + SPAWN_OPEN (a FIFO:
   the child blocks) + EXEC is submitted; while the child blocks, another
   thread overwrites the path, argv, envp, the chdir path and the sigs,
   then unmaps the pages that held them.  Released, the child must exec
   exactly what was submitted (its program prints argv, a variable of
   its environment, its cwd and its signal mask).

   While it blocks the child has a new, empty (pristine) mm (/proc/PID/status says
   VmSize 0 kB, /proc/PID/maps is empty), and the task:task_newtask trace event of
   its creation shows clone flags without CLONE_VM: copy_oom_score_adj()
   sets MMF_MULTIPROCESS on the parent's mm only for a CLONE_VM child
   (there is no kprobe-free way to read mm->flags, and
   copy_oom_score_adj() is inlined, so it cannot be probed).  The
   io_uring:io_uring_spawn event of the chain names the spawner, the
   child and result 0.  */

#include "st.h"
#include <pthread.h>
#include <sys/mman.h>

static char fifo[] = "/tmp/st-overwrite-fifo";
static char *page;
static size_t pagesz;
static const char *tracing;

static void *
vandal (void *arg)
{
  (void) arg;
  memset (page, 'Z', pagesz);
  /* Pointers too: argv and envp now point at garbage.  */
  char **p = (char **) page;
  for (int i = 0; i < 16; i++)
    p[i] = (char *) 8;
  struct io_uring_spawn_attr *s = (void *) (page + 2048);
  s->sigmask = ~0ULL;
  s->sigignore = ~0ULL;
  munmap (page, pagesz);
  return NULL;
}

/* Enable the trace events we read; false if tracefs is missing.  */
static bool
trace_on (void)
{
  tracing = st_tracefs ();
  if (tracing == NULL)
    return false;
  char path[256];
  snprintf (path, sizeof path, "%s/trace", tracing);
  st_write_file (path, "");
  snprintf (path, sizeof path, "%s/events/task/task_newtask/enable", tracing);
  int a = st_write_file (path, "1");
  snprintf (path, sizeof path, "%s/events/io_uring/io_uring_spawn/enable", tracing);
  int b = st_write_file (path, "1");
  return a == 0 && b == 0;
}

static void
trace_off (void)
{
  char path[256];
  snprintf (path, sizeof path, "%s/events/task/task_newtask/enable", tracing);
  st_write_file (path, "0");
  snprintf (path, sizeof path, "%s/events/io_uring/io_uring_spawn/enable", tracing);
  st_write_file (path, "0");
}

/* The exec'd program: what it got.  */
static int
report (int argc, char **argv)
{
  char cwd[256], blk[64] = "?";
  if (getcwd (cwd, sizeof cwd) == NULL)
    strcpy (cwd, "?");
  st_status_field (getpid (), "SigBlk", blk, sizeof blk);
  const char *v = getenv ("ST_V");
  printf ("%s|%s|%d|%s|%s|%s\n", argv[0], argc > 2 ? argv[2] : "?", argc,
	  v ? v : "?", cwd, blk);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--report") == 0)
    return report (argc, argv);
  st_init (0);
  if (!st_mkfifo (fifo))
    return kt_exit ();
  pagesz = sysconf (_SC_PAGESIZE);
  page = mmap (NULL, pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  bool traced = trace_on ();
  if (!traced)
    kt_unsupported ("trace events", "no tracefs or events");

  /* Everything the chain names lives in PAGE.  The program is this
     one, in its --report mode (a shell would reset the mask).  */
  char *path = page + 1024;
  ssize_t len = readlink ("/proc/self/exe", path, 300);
  if (len <= 0)
    kt_fail ("readlink /proc/self/exe", "%m");
  else
    path[len] = '\0';
  char *a0 = page + 1400, *a1 = page + 1420, *a2 = page + 1440;
  char *e0 = page + 1460, *dir = page + 1500;
  strcpy (a0, "overwrite");
  strcpy (a1, "--report");
  strcpy (a2, "one");
  strcpy (e0, "ST_V=submitted");
  strcpy (dir, "/tmp");
  char **cargv = (char **) page;
  cargv[0] = a0;
  cargv[1] = a1;
  cargv[2] = a2;
  cargv[3] = NULL;
  char **envp = cargv + 6;
  envp[0] = e0;
  envp[1] = NULL;
  struct io_uring_spawn_attr *sigs = (void *) (page + 2048);
  memset (sigs, 0, sizeof *sigs);
  sigs->flags = IORING_SPAWN_ATTR_SETSIGMASK;
  sigs->sigmask = ST_SIGBIT (SIGUSR1) | ST_SIGBIT (SIGHUP);

  struct clone_args ca = { .exit_signal = SIGCHLD };
  st_clone_attr (&st_ring, &ca, sigs, 0);
  int w;
  int r = st_capture (&st_ring, 1, &w);
  st_chdir (&st_ring, dir, 2);
  st_open (&st_ring, fifo, O_RDONLY, 5, 3);
  st_exec (&st_ring, path, cargv, envp, 4);
  st_reset ();
  io_uring_submit (&st_ring);
  close (w);
  pid_t child = st_find_child (getpid (), "S");
  KT_EXPECT_EQ ("the child blocks in its open", child > 0, 1);

  /* A new, empty mm while in the chain: none of the parent's memory.  */
  char v[64] = "(none)";
  if (st_status_field (child, "VmSize", v, sizeof v) && atol (v) == 0)
    kt_pass ("the child in its chain has an empty mm");
  else
    kt_fail ("the child in its chain has an empty mm", "VmSize: %s", v);
  char mpath[64], maps[256];
  snprintf (mpath, sizeof mpath, "/proc/%d/maps", (int) child);
  KT_EXPECT_EQ ("the child in its chain has no mappings",
		st_read_file (mpath, maps, sizeof maps), 0);

  /* Another thread overwrites and unmaps everything.  */
  pthread_t t;
  pthread_create (&t, NULL, vandal, NULL);
  pthread_join (t, NULL);

  int fw = st_fifo_writer (fifo);
  int got = st_reap (&st_ring, 5, 20);
  if (fw >= 0)
    close (fw);
  char out[512];
  st_read_all (r, out, sizeof out);
  KT_EXPECT_EQ ("all CQEs", got, 5);
  KT_EXPECT_EQ ("chdir", st_res[2], 0);
  KT_EXPECT_EQ ("exec", st_res[4], 0);
  char want[256];
  snprintf (want, sizeof want, "overwrite|one|3|submitted|/tmp|%016llx",
	    (unsigned long long) (ST_SIGBIT (SIGUSR1) | ST_SIGBIT (SIGHUP)));
  ST_EXPECT_STR ("the child execs what was submitted", out, want);
  ST_EXPECT_STATUS ("the child", st_fate (), 0);

  if (traced)
    {
      trace_off ();
      char tpath[256];
      snprintf (tpath, sizeof tpath, "%s/trace", tracing);
      FILE *f = fopen (tpath, "re");
      char line[512];
      bool newtask = false, spawn_ev = false;
      unsigned long flags = ~0UL;
      while (f != NULL && fgets (line, sizeof line, f) != NULL)
	{
	  char *p;
	  char want_pid[32];
	  snprintf (want_pid, sizeof want_pid, "pid=%d ", (int) child);
	  if ((p = strstr (line, "task_newtask:")) != NULL
	      && strstr (p, want_pid) != NULL)
	    {
	      char *cf = strstr (p, "clone_flags=");
	      if (cf != NULL)
		flags = strtoul (cf + 12, NULL, 16);
	      newtask = true;
	    }
	  char want_spawn[96];
	  snprintf (want_spawn, sizeof want_spawn, "tgid %d, pid %d, result 0,",
		    (int) getpid (), (int) child);
	  if (strstr (line, "io_uring_spawn:") != NULL
	      && strstr (line, want_spawn) != NULL)
	    spawn_ev = true;
	}
      if (f != NULL)
	fclose (f);
      KT_EXPECT_EQ ("task_newtask event of the child", newtask, 1);
      if (newtask)
	{
	  if (flags & CLONE_VM)
	    kt_fail ("the child is not a CLONE_VM child (no MMF_MULTIPROCESS)",
		     "clone_flags %#lx", flags);
	  else
	    kt_pass ("the child is not a CLONE_VM child (no MMF_MULTIPROCESS)");
	}
      KT_EXPECT_EQ ("io_uring_spawn event: spawner, child, result 0", spawn_ev, 1);
    }

  st_no_children ("no child left");
  unlink (fifo);
  return kt_exit ();
}
