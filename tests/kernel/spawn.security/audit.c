/* audit (issue 10): an exec through a chain is audited as the execve()
   of the child.  v1 skipped audit_uring_entry/exit and left no record.

   This test registers itself as the audit daemon (a minimal netlink
   reader, so no record goes to printk and its rate limit), adds the rule
   `auditctl -a always,exit -F arch=b64 -S execve -S execveat -F ppid=<this
   test> -k stspawn`, then execs /bin/true with the same argv, envp and cwd
   once through a chain and once with fork + execve.  Each exec leaves a
   SYSCALL (syscall=59), EXECVE, CWD, PATH and PROCTITLE record, and the
   two sets are equal once what always differs is normalised: the time
   and serial, pid=, and the raw argument values a0..a3.  A chain's
   pointer arguments are 0, not the submitter's pointers, which name
   nothing in the child's address space (review of v3, M-6): v3 recorded
   execve()'s path, argv and envp as the submitter's addresses.  */

#include "st.h"
#include <linux/audit.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#define MAXREC 64

struct rec
{
  int type;
  long serial;
  char text[2048];
};

static struct rec recs[512];
static int nrecs;
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
  /* The ack (records may come first: keep them).  */
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

/* Read records until none comes for MS milliseconds.  */
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
      /* One record per message; its nlmsg_len is the length of the
	 text alone (an audit quirk, see audit_log_end ()).  */
      struct nlmsghdr *h = (struct nlmsghdr *) buf;
      if (n < NLMSG_HDRLEN || h->nlmsg_type < 1300 || h->nlmsg_type >= 1400
	  || nrecs >= 512)
	continue;
      struct rec *r = &recs[nrecs++];
      r->type = h->nlmsg_type;
      size_t len = h->nlmsg_len;
      if (len > (size_t) n - NLMSG_HDRLEN)
	len = n - NLMSG_HDRLEN;
      if (len >= sizeof r->text)
	len = sizeof r->text - 1;
      memcpy (r->text, NLMSG_DATA (h), len);
      r->text[len] = '\0';
      char *c = strchr (r->text, ':');
      r->serial = c != NULL ? atol (c + 1) : -1;
    }
}

/* Remove " KEY=value" from S.  */
static void
drop_field (char *s, const char *key)
{
  char pat[32];
  snprintf (pat, sizeof pat, " %s=", key);
  char *p;
  while ((p = strstr (s, pat)) != NULL)
    {
      char *e = p + strlen (pat);
      while (*e && *e != ' ')
	e++;
      memmove (p, e, strlen (e) + 1);
    }
}

/* The normalised records of the event whose SYSCALL record has pid=PID,
   one per line, sorted by type, into OUT.  */
static void
event_of (pid_t pid, char *out, size_t size)
{
  char want[32];
  snprintf (want, sizeof want, " pid=%d ", (int) pid);
  long serial = -1;
  for (int i = 0; i < nrecs; i++)
    if (recs[i].type == AUDIT_SYSCALL && strstr (recs[i].text, want) != NULL
	&& strstr (recs[i].text, "key=\"stspawn\"") != NULL)
      serial = recs[i].serial;
  out[0] = '\0';
  if (serial < 0)
    return;
  size_t len = 0;
  for (int type = 1300; type < 1400; type++)
    for (int i = 0; i < nrecs; i++)
      {
	if (recs[i].serial != serial || recs[i].type != type)
	  continue;
	char t[2048];
	char *body = strstr (recs[i].text, "): ");
	snprintf (t, sizeof t, " %s", body != NULL ? body + 3 : recs[i].text);
	/* SYSCALL: the pid and the raw argument registers (EXECVE's a0...
	   are the argv strings: kept).  */
	static const char *drop[] = { "pid", "a0", "a1", "a2", "a3" };
	if (type == AUDIT_SYSCALL)
	  for (unsigned d = 0; d < sizeof drop / sizeof drop[0]; d++)
	    drop_field (t, drop[d]);
	len += snprintf (out + len, size > len ? size - len : 0, "%d:%s\n",
			 type, t);
      }
}

/* The raw SYSCALL record of PID's exec, or "".  */
static const char *
syscall_of (pid_t pid)
{
  char want[32];
  snprintf (want, sizeof want, " pid=%d ", (int) pid);
  for (int i = 0; i < nrecs; i++)
    if (recs[i].type == AUDIT_SYSCALL && strstr (recs[i].text, want) != NULL
	&& strstr (recs[i].text, "key=\"stspawn\"") != NULL)
      return recs[i].text;
  return "";
}

static bool
has_type (const char *ev, int type)
{
  char t[16];
  snprintf (t, sizeof t, "%d:", type);
  for (const char *p = ev; p != NULL && *p != '\0';)
    {
      if (strncmp (p, t, strlen (t)) == 0)
	return true;
      p = strchr (p, '\n');
      if (p != NULL)
	p++;
    }
  return false;
}

int
main (void)
{
  st_init (0);
  nl = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
  if (nl < 0)
    {
      kt_unsupported ("audit", "netlink: %m");
      return kt_exit ();
    }
  struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
  bind (nl, (struct sockaddr *) &sa, sizeof sa);
  int err = audit_set (AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID, 1, getpid ());
  if (err != 0)
    {
      kt_fail ("become the audit daemon", "%s", strerror (-err));
      return kt_exit ();
    }
  kt_pass ("become the audit daemon");
  char cmd[256];
  if (system ("auditctl -D >/dev/null 2>&1") != 0)
    kt_fail ("auditctl -D", "failed");
  snprintf (cmd, sizeof cmd, "auditctl -a always,exit -F arch=b64 -S execve "
	    "-S execveat -F ppid=%d -k stspawn >/dev/null", (int) getpid ());
  if (system (cmd) != 0)
    {
      kt_fail ("the rule", "%s failed", cmd);
      audit_set (AUDIT_STATUS_PID | AUDIT_STATUS_ENABLED, 0, 0);
      return kt_exit ();
    }
  if (chdir ("/tmp") != 0)
    kt_fail ("chdir", "%m");
  collect (200);
  nrecs = 0;

  static char *argv[] = { "true", "a", "b c", NULL };
  static char *envp[] = { "ST_AUDIT=1", NULL };
  /* Through the chain.  */
  struct clone_args ca = { .exit_signal = SIGCHLD };
  st_clone (&st_ring, &ca, 0);
  st_exec (&st_ring, "/bin/true", argv, envp, 1);
  st_run (&st_ring, 2);
  pid_t chain_pid = st_res[0];
  KT_EXPECT_EQ ("the chain's exec", st_res[1], 0);
  ST_EXPECT_STATUS ("the chain's child", st_fate (), 0);
  /* With fork + execve.  */
  pid_t fork_pid = fork ();
  if (fork_pid == 0)
    {
      execve ("/bin/true", argv, envp);
      _exit (127);
    }
  ST_EXPECT_STATUS ("the fork child", st_wait (fork_pid), 0);
  collect (1000);

  if (system ("auditctl -D >/dev/null 2>&1") != 0)
    kt_fail ("auditctl -D", "failed");
  audit_set (AUDIT_STATUS_PID | AUDIT_STATUS_ENABLED, 0, 0);

  static char a[8192], b[8192];
  event_of (chain_pid, a, sizeof a);
  event_of (fork_pid, b, sizeof b);
  if (a[0] == '\0' || b[0] == '\0')
    {
      printf ("%d records collected (chain pid %d, fork pid %d):\n", nrecs,
	      (int) chain_pid, (int) fork_pid);
      for (int i = 0; i < nrecs && i < 20; i++)
	printf ("  %d %s\n", recs[i].type, recs[i].text);
    }
  printf ("chain's records:\n%s", a);
  printf ("fork+execve's records:\n%s", b);
  KT_EXPECT_EQ ("the chain's exec is audited", a[0] != '\0', 1);
  KT_EXPECT_EQ ("so is fork+execve's", b[0] != '\0', 1);
  static const struct { int type; const char *name; } types[] = {
    { AUDIT_SYSCALL, "SYSCALL" }, { AUDIT_EXECVE, "EXECVE" },
    { AUDIT_PATH, "PATH" }, { AUDIT_CWD, "CWD" }, { AUDIT_PROCTITLE, "PROCTITLE" },
  };
  for (unsigned i = 0; i < sizeof types / sizeof types[0]; i++)
    {
      char name[64];
      snprintf (name, sizeof name, "the chain leaves a %s record",
		types[i].name);
      KT_EXPECT_EQ (name, has_type (a, types[i].type), 1);
    }
  KT_EXPECT_EQ ("syscall=59", strstr (a, " syscall=59 ") != NULL, 1);
  const char *raw = syscall_of (chain_pid);
  printf ("chain's SYSCALL record: %s\n", raw);
  KT_EXPECT_EQ ("no pointer of the submitter's: a0=0 a1=0 a2=0",
		strstr (raw, " a0=0 a1=0 a2=0 ") != NULL, 1);
  if (a[0] != '\0' && strcmp (a, b) == 0)
    kt_pass ("the same records as fork+execve");
  else
    kt_fail ("the same records as fork+execve", "they differ (see the log)");
  close (nl);
  st_no_children ("no child left");
  return kt_exit ();
}
