/* M-2 (review 2026-12): the chain child has its parent's exe until it
   execs, as a fork child has.  v2's empty mm had no exe_file: while the
   chain ran, /proc/PID/exe was ENOENT, audit records said exe=(null)
   and audit_exe_compare() never matched, so a rule such as
   `-F exe=/usr/sbin/foo -S openat` missed the chain's opens (a vfork
   child matches it).

   1. A chain CLONE + SPAWN_OPEN of a FIFO (the child blocks) + EXEC:
      while it blocks, /proc/CHILD/exe is this program (the same link
      as /proc/self/exe) and /proc/CHILD/comm is ours.  A kernel with
      the defect: readlink fails (ENOENT) -- FAIL.
   2. With auditctl (else UNSUPPORTED): this test becomes the audit
      daemon (a minimal netlink reader, as spawn.security/audit.c),
      adds `-a always,exit -F arch=b64 -S openat -S open -F exe=<our
      exe> -k stv3exe`, and runs a chain CLONE + SPAWN_OPEN of a marker
      file + EXEC.  A SYSCALL record with key "stv3exe", syscall=257
      (openat; 2, open, is accepted too: the cover letter says only
      "audited as that system call") and the child's pid must arrive, with the marker in a PATH record
      of the same event.  A kernel with the defect leaves none: FAIL.  */

#include "st.h"
#include <linux/audit.h>
#include <linux/netlink.h>
#include <sys/socket.h>

static char fifo[] = "/tmp/st-v3-exe-fifo";
static char marker[] = "/tmp/st-v3-exe-marker";
static int nl = -1;

static int
audit_send (int type, const void *data, size_t len)
{
  struct { struct nlmsghdr h; char buf[1024]; } m;
  memset (&m, 0, sizeof m);
  m.h.nlmsg_len = NLMSG_LENGTH (len);
  m.h.nlmsg_type = type;
  m.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  m.h.nlmsg_seq = 1;
  memcpy (NLMSG_DATA (&m.h), data, len);
  struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
  if (sendto (nl, &m, m.h.nlmsg_len, 0, (struct sockaddr *) &sa, sizeof sa) < 0)
    return -errno;
  for (int i = 0; i < 100; i++)
    {
      char buf[8192];
      struct pollfd pfd = { .fd = nl, .events = POLLIN };
      if (poll (&pfd, 1, 2000) != 1)
	return -ETIMEDOUT;
      ssize_t n = recv (nl, buf, sizeof buf, 0);
      if (n <= 0)
	return -EIO;
      struct nlmsghdr *h = (struct nlmsghdr *) buf;
      for (; NLMSG_OK (h, n); h = NLMSG_NEXT (h, n))
	if (h->nlmsg_type == NLMSG_ERROR)
	  return ((struct nlmsgerr *) NLMSG_DATA (h))->error;
    }
  return -EIO;
}

static int
audit_set (unsigned mask, unsigned enabled, unsigned pid)
{
  struct audit_status s;
  memset (&s, 0, sizeof s);
  s.mask = mask;
  s.enabled = enabled;
  s.pid = pid;
  return audit_send (AUDIT_SET, &s, sizeof s);
}

/* Records received: type and text, at most 512.  */
static struct { int type; long serial; char text[2048]; } recs[512];
static int nrecs;

static void
collect (int ms)
{
  for (;;)
    {
      char buf[16384];
      struct pollfd pfd = { .fd = nl, .events = POLLIN };
      if (poll (&pfd, 1, ms) != 1)
	return;
      ssize_t n = recv (nl, buf, sizeof buf, 0);
      if (n <= 0)
	return;
      struct nlmsghdr *h = (struct nlmsghdr *) buf;
      if (n < NLMSG_HDRLEN || h->nlmsg_type < 1300 || h->nlmsg_type >= 1400
	  || nrecs >= 512)
	continue;
      size_t len = h->nlmsg_len;
      if (len > (size_t) n - NLMSG_HDRLEN)
	len = n - NLMSG_HDRLEN;
      if (len >= sizeof recs[0].text)
	len = sizeof recs[0].text - 1;
      recs[nrecs].type = h->nlmsg_type;
      memcpy (recs[nrecs].text, NLMSG_DATA (h), len);
      recs[nrecs].text[len] = '\0';
      char *c = strchr (recs[nrecs].text, ':');
      recs[nrecs].serial = c != NULL ? atol (c + 1) : -1;
      nrecs++;
    }
}

static bool
have_auditctl (void)
{
  return access ("/sbin/auditctl", X_OK) == 0
	 || access ("/usr/sbin/auditctl", X_OK) == 0;
}

int
main (void)
{
  st_init (0);
  char self[512], comm[64];
  st_exe_of (0, self, sizeof self);
  st_read_file ("/proc/self/comm", comm, sizeof comm);
  static char *argv[] = { "true", NULL };
  struct clone_args ca = { .exit_signal = SIGCHLD };

  /* 1. /proc/CHILD/exe while the chain runs.  */
  if (!st_mkfifo (fifo))
    return kt_exit ();
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, fifo, O_RDONLY, 10, 1);
  st_exec (&st_ring, "/bin/true", argv, st_envp, 2);
  st_reset ();
  io_uring_submit (&st_ring);
  pid_t child = st_find_child (getpid (), "S");
  if (child == 0)
    kt_fail ("chain child blocked in the FIFO open", "none");
  else
    {
      char exe[512], ccomm[64] = "";
      int n = st_exe_of (child, exe, sizeof exe);
      if (n > 0 && strcmp (exe, self) == 0)
	kt_pass ("/proc/CHILD/exe is the parent's exe");
      else
	kt_fail ("/proc/CHILD/exe is the parent's exe", "%s (parent %s)",
		 n < 0 ? strerror (-n) : exe, self);
      char path[64];
      snprintf (path, sizeof path, "/proc/%d/comm", (int) child);
      st_read_file (path, ccomm, sizeof ccomm);
      ST_EXPECT_STR ("/proc/CHILD/comm is the parent's comm", ccomm, comm);
      int w = st_fifo_writer (fifo);
      st_reap (&st_ring, 3, 20);
      if (w >= 0)
	close (w);
      KT_EXPECT_EQ ("released chain: the clone's pid", st_res[0], child);
      ST_EXPECT_STATUS ("released chain: the child", st_wait (child), 0);
    }
  unlink (fifo);

  /* 2. An audit rule on our exe sees the chain's open.  */
  if (!have_auditctl ())
    {
      kt_unsupported ("audit exe= rule matches the chain's open",
		      "no auditctl");
      st_no_children ("no child left");
      return kt_exit ();
    }
  nl = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
  struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
  if (nl < 0 || bind (nl, (struct sockaddr *) &sa, sizeof sa) != 0)
    {
      kt_unsupported ("audit exe= rule matches the chain's open",
		      "netlink: %m");
      return kt_exit ();
    }
  int err = audit_set (AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID, 1, getpid ());
  if (err != 0)
    {
      kt_fail ("become the audit daemon", "%s", strerror (-err));
      return kt_exit ();
    }
  int fd = open (marker, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0)
    close (fd);
  char cmd[1024];
  if (system ("auditctl -D >/dev/null 2>&1") != 0)
    kt_fail ("auditctl -D", "failed");
  snprintf (cmd, sizeof cmd, "auditctl -a always,exit -F arch=b64 -S openat -S open "
	    "-F exe=%s -k stv3exe >/dev/null", self);
  if (system (cmd) != 0)
    {
      kt_fail ("the rule", "%s failed", cmd);
      audit_set (AUDIT_STATUS_PID | AUDIT_STATUS_ENABLED, 0, 0);
      return kt_exit ();
    }
  collect (200);
  nrecs = 0;
  st_clone (&st_ring, &ca, 0);
  st_open (&st_ring, marker, O_RDONLY, 10, 1);
  st_exec (&st_ring, "/bin/true", argv, st_envp, 2);
  st_run (&st_ring, 3);
  pid_t cpid = st_res[0];
  KT_EXPECT_EQ ("audited chain: the open", st_res[1], 10);
  ST_EXPECT_STATUS ("audited chain: the child", st_fate (), 0);
  collect (1000);
  if (system ("auditctl -D >/dev/null 2>&1") != 0)
    kt_fail ("auditctl -D", "failed");
  audit_set (AUDIT_STATUS_PID | AUDIT_STATUS_ENABLED, 0, 0);

  char want_pid[32];
  snprintf (want_pid, sizeof want_pid, " pid=%d ", (int) cpid);
  long serial = -1;
  for (int i = 0; i < nrecs; i++)
    if (recs[i].type == AUDIT_SYSCALL && strstr (recs[i].text, want_pid)
	&& (strstr (recs[i].text, " syscall=257 ")
	    || strstr (recs[i].text, " syscall=2 "))
	&& strstr (recs[i].text, "key=\"stv3exe\""))
      serial = recs[i].serial;
  if (serial < 0)
    {
      printf ("%d records (chain child %d):\n", nrecs, (int) cpid);
      for (int i = 0; i < nrecs && i < 20; i++)
	printf ("  %d %s\n", recs[i].type, recs[i].text);
    }
  KT_EXPECT_EQ ("audit exe= rule matches the chain's open", serial >= 0, 1);
  bool path = false;
  for (int i = 0; i < nrecs; i++)
    if (recs[i].serial == serial && recs[i].type == AUDIT_PATH
	&& strstr (recs[i].text, marker) != NULL)
      path = true;
  KT_EXPECT_EQ ("its PATH record names the file", path, 1);
  close (nl);
  unlink (marker);
  st_no_children ("no child left");
  return kt_exit ();
}
