/* M-3 (review 2026-12), the debugger itself: a program that spawns
   under gdb with follow-fork-mode child behaves as one that forks.  v2
   let gdb's PTRACE_O_TRACEFORK tracer see a fork event for a chain
   child with ip = sp = 0 and an empty mm: following it, gdb reads code
   at pc 0 ("Cannot access memory at address 0x0") and the program
   misbehaves under the debugger.  v3 refuses any traced submitter, so
   the C library (or the program) falls back to clone + exec.

   This program, run by gdb -batch -ex 'set follow-fork-mode child'
   -ex 'break main' -ex run -ex continue --args THIS MODE, in each
   mode:
     --system   system ("true"), prints "system=STATUS"
     --fork     fork + execl ("/bin/true"), prints "fork=STATUS"
     --chain    submits CLONE + EXEC itself, prints "chain=RES", and
                on a refusal falls back to fork + exec ("fallback=...")
   Checks: the --system and --fork runs both end with the followed
   child "exited normally", print their STATUS 0 and show no memory or
   register errors and no SIGSEGV/SIGILL (the same gdb transcript
   markers for both); --chain prints chain=-95 (-EOPNOTSUPP) and its
   fallback works; and no chain ran around the gdb runs: the number of
   io_uring:io_uring_spawn trace events that report a child (pid > 0)
   does not change.  A kernel with the defect: --chain prints a pid, a
   spawn event with a child is recorded, and gdb's transcript for
   --system (when the C library spawns through io_uring) shows memory
   errors at 0x0 -- FAIL.  No gdb: UNSUPPORTED; no tracefs: that check
   UNSUPPORTED.

   The --system run uses the guest's own C library.  Then, if the
   patched glibc 2.44 is built (build/glibc, found from this program's
   place in build/tests/kernel), a program that calls system ("true"),
   built here with that glibc's dynamic loader and libraries, runs under
   gdb the same way: gdb must stop at its main, the markers must be
   fork's, and the trace must show that the kernel refused the chain
   glibc submitted (an io_uring_spawn event with -EOPNOTSUPP for a pid,
   none with a child), not merely that glibc took the clone path.  No
   such build or no gcc: those checks UNSUPPORTED.  */

#include "st.h"

static int
mode_system (void)
{
  int s = system ("true");
  printf ("system=%d\n", s);
  return s != 0;
}

static int
mode_fork (void)
{
  pid_t p = fork ();
  if (p == 0)
    {
      execl ("/bin/true", "true", (char *) NULL);
      _exit (127);
    }
  int s = st_wait (p);
  printf ("fork=%d\n", s);
  return s != 0;
}

static int
mode_chain (void)
{
  st_init (0);
  static char *argv[] = { "true", NULL };
  struct clone_args ca = { .exit_signal = SIGCHLD };
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, "/bin/true", argv, st_envp, 1);
  st_run (&st_ring, 2);
  printf ("chain=%d\n", st_res[0]);
  fflush (stdout);
  if (st_res[0] > 0)
    return st_fate () != 0;
  return mode_fork ();
}

/* gdb's transcript for the inferior command line ARGS into BUF.  */
static int
run_gdb (const char *gdb, const char *args, char *buf, size_t size)
{
  char cmd[6144];
  snprintf (cmd, sizeof cmd, "timeout 120 %s -batch -nx "
	    "-ex 'set follow-fork-mode child' -ex 'break main' -ex run "
	    "-ex continue --args %s 2>&1 </dev/null", gdb, args);
  FILE *f = popen (cmd, "r");
  if (f == NULL)
    return -1;
  size_t len = fread (buf, 1, size - 1, f);
  buf[len] = '\0';
  int st = pclose (f);
  /* The transcript, indented: a "PASS:"/"FAIL:" line of the inferior
     must not become one of ours.  */
  printf ("--- gdb %s (status %#x):\n", args, st);
  for (char *l = buf, *e; *l != '\0'; l = e + (*e != '\0'))
    {
      e = strchr (l, '\n');
      if (e == NULL)
	e = l + strlen (l);
      printf ("  | %.*s\n", (int) (e - l), l);
    }
  return st;
}

/* The io_uring_spawn events in TRACING that report a refusal.  */
static int
trace_refused (const char *tracing)
{
  char path[256], line[1024], want[32];
  snprintf (path, sizeof path, "%s/trace", tracing);
  snprintf (want, sizeof want, ", pid %d,", -EOPNOTSUPP);
  FILE *f = fopen (path, "re");
  int n = 0;
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    if (strstr (line, "io_uring_spawn:") != NULL && strstr (line, want) != NULL)
      n++;
  if (f != NULL)
    fclose (f);
  return n;
}

/* The patched glibc's dynamic loader and library path for this program
   at SELF (BUILD/tests/kernel/NAME, BUILD/glibc the build) into LDSO and
   LIBS; false if there is no such build.  */
static bool
patched_glibc (const char *self, char *ldso, size_t ldso_size, char *libs,
	       size_t libs_size)
{
  char build[512];
  snprintf (build, sizeof build, "%s", self);
  for (int i = 0; i < 3; i++)
    {
      char *slash = strrchr (build, '/');
      if (slash == NULL)
	return false;
      *slash = '\0';
    }
  snprintf (ldso, ldso_size, "%s/glibc/elf/ld-linux-x86-64.so.2", build);
  snprintf (libs, libs_size, "%s/glibc:%s/glibc/nptl:%s/glibc/elf:"
	    "%s/glibc/dlfcn:%s/glibc/math:%s/glibc/rt", build, build, build,
	    build, build, build);
  return access (ldso, X_OK) == 0;
}

/* Build PROG, a program that calls system ("true") and prints
   "system=STATUS", against the patched glibc's loader LDSO and library
   path LIBS; false if it cannot be built.  */
static bool
build_patched_system (const char *ldso, const char *libs, char *prog,
		      size_t size)
{
  snprintf (prog, size, "/tmp/st-gdb-system-%d", (int) getpid ());
  char src[96];
  snprintf (src, sizeof src, "%s.c", prog);
  FILE *f = fopen (src, "w");
  if (f == NULL)
    return false;
  fputs ("#include <stdio.h>\n#include <stdlib.h>\nint\nmain (void)\n"
	 "{\n  int s = system (\"true\");\n"
	 "  printf (\"system=%d\\n\", s);\n  return s != 0;\n}\n", f);
  fclose (f);
  char cmd[8192];
  snprintf (cmd, sizeof cmd, "gcc -g -O0 -o %s %s -Wl,--dynamic-linker=%s "
	    "-Wl,-rpath,%s >/dev/null 2>&1", prog, src, ldso, libs);
  int st = system (cmd);
  unlink (src);
  return st == 0;
}

/* The markers of a transcript we compare.  */
struct marks
{
  bool exited_normally, mem_error, reg_error, segv, status0;
};

static struct marks
marks_of (const char *t, const char *key)
{
  struct marks m;
  char want[64];
  snprintf (want, sizeof want, "%s=0", key);
  m.exited_normally = strstr (t, "exited normally") != NULL;
  m.mem_error = strstr (t, "Cannot access memory") != NULL
		|| strstr (t, "Cannot insert breakpoint") != NULL
		|| strstr (t, "Cannot remove breakpoint") != NULL;
  m.reg_error = strstr (t, "Couldn't get registers") != NULL
		|| strstr (t, "Couldn't get CS") != NULL;
  m.segv = strstr (t, "SIGSEGV") != NULL || strstr (t, "SIGILL") != NULL;
  m.status0 = strstr (t, want) != NULL;
  return m;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "--system") == 0)
    return mode_system ();
  if (argc > 1 && strcmp (argv[1], "--fork") == 0)
    return mode_fork ();
  if (argc > 1 && strcmp (argv[1], "--chain") == 0)
    return mode_chain ();

  const char *gdb = NULL;
  static const char *gdbs[] = { "/usr/bin/gdb", "/usr/local/bin/gdb", "/bin/gdb" };
  for (unsigned i = 0; i < sizeof gdbs / sizeof gdbs[0]; i++)
    if (access (gdbs[i], X_OK) == 0)
      gdb = gdbs[i];
  if (gdb == NULL)
    {
      kt_unsupported ("gdb follow-fork", "no gdb");
      return 77;
    }
  char self[512];
  if (st_exe_of (0, self, sizeof self) < 0)
    {
      kt_fail ("readlink /proc/self/exe", "%m");
      return kt_exit ();
    }
  const char *tracing = st_tracefs ();
  bool traced = tracing != NULL
		&& st_trace_event (tracing, "io_uring/io_uring_spawn", true) == 0;
  if (traced)
    st_trace_clear (tracing);
  int before = traced ? st_trace_spawned (tracing) : 0;

  static char ts[65536], tf[65536], tc[65536], tg[65536];
  char args[5120];
  snprintf (args, sizeof args, "%s --system", self);
  run_gdb (gdb, args, ts, sizeof ts);
  snprintf (args, sizeof args, "%s --fork", self);
  run_gdb (gdb, args, tf, sizeof tf);
  snprintf (args, sizeof args, "%s --chain", self);
  run_gdb (gdb, args, tc, sizeof tc);

  struct marks ms = marks_of (ts, "system"), mf = marks_of (tf, "fork");
  KT_EXPECT_EQ ("fork under gdb: the child exited normally",
		mf.exited_normally, 1);
  KT_EXPECT_EQ ("system under gdb: the child exited normally",
		ms.exited_normally, 1);
  KT_EXPECT_EQ ("system under gdb: status 0", ms.status0, mf.status0);
  KT_EXPECT_EQ ("system under gdb: no memory errors", ms.mem_error,
		mf.mem_error);
  KT_EXPECT_EQ ("system under gdb: no register errors", ms.reg_error,
		mf.reg_error);
  KT_EXPECT_EQ ("system under gdb: no SIGSEGV/SIGILL", ms.segv, mf.segv);
  char want[32];
  snprintf (want, sizeof want, "chain=%d", -EOPNOTSUPP);
  KT_EXPECT_EQ ("chain under gdb: -EOPNOTSUPP", strstr (tc, want) != NULL, 1);
  KT_EXPECT_EQ ("chain under gdb: the fallback works",
		strstr (tc, "fork=0") != NULL, 1);

  int after = traced ? st_trace_spawned (tracing) : 0;

  /* system () of the patched glibc under gdb.  */
  char ldso[600], libs[3600], prog[64];
  if (!patched_glibc (self, ldso, sizeof ldso, libs, sizeof libs))
    kt_unsupported ("system under gdb, patched glibc",
		    "no build/glibc next to build/tests/kernel");
  else if (!build_patched_system (ldso, libs, prog, sizeof prog))
    kt_unsupported ("system under gdb, patched glibc",
		    "gcc could not build the program for it");
  else
    {
      int refused = traced ? trace_refused (tracing) : 0;
      run_gdb (gdb, prog, tg, sizeof tg);
      unlink (prog);
      struct marks mg = marks_of (tg, "system");
      KT_EXPECT_EQ ("system under gdb, patched glibc: gdb stops at main",
		    strstr (tg, "Breakpoint 1, main") != NULL, 1);
      KT_EXPECT_EQ ("system under gdb, patched glibc: the child exited "
		    "normally", mg.exited_normally, 1);
      KT_EXPECT_EQ ("system under gdb, patched glibc: status 0",
		    mg.status0, mf.status0);
      KT_EXPECT_EQ ("system under gdb, patched glibc: no memory errors",
		    mg.mem_error, mf.mem_error);
      KT_EXPECT_EQ ("system under gdb, patched glibc: no SIGSEGV/SIGILL",
		    mg.segv, mf.segv);
      if (traced)
	{
	  int n = trace_refused (tracing) - refused;
	  if (n >= 1)
	    kt_pass ("system under gdb, patched glibc: the kernel refused "
		     "its chain (io_uring_spawn events)");
	  else
	    kt_fail ("system under gdb, patched glibc: the kernel refused "
		     "its chain (io_uring_spawn events)",
		     "%d refusals: glibc did not submit one", n);
	}
    }

  if (traced)
    {
      int last = st_trace_spawned (tracing);
      st_trace_event (tracing, "io_uring/io_uring_spawn", false);
      KT_EXPECT_EQ ("no chain ran under gdb (io_uring_spawn events)",
		    after - before, 0);
      KT_EXPECT_EQ ("no chain ran under gdb, patched glibc "
		    "(io_uring_spawn events)", last - after, 0);
    }
  else
    kt_unsupported ("no chain ran under gdb (io_uring_spawn events)",
		    "no tracefs or no io_uring_spawn event");
  st_no_children ("no child left");
  return kt_exit ();
}
