/* set-user-ID files, file capabilities, no_new_privs and nosuid mounts
   (issue 10): the exec of a chain is bprm_execve(), and behaves exactly
   as execve() does.  As an unprivileged uid (65534):

   - a setuid-root copy of /usr/bin/id (on a tmpfs of our own, mode
     4755) exec'd through the chain reports euid 0 (`id -u`);
   - under PR_SET_NO_NEW_PRIVS, and from a nosuid mount, it reports
     65534;
   - a copy of sed with the file capability cap_dac_read_search+ep gets
     it in CapEff; not under no_new_privs nor from the nosuid mount;

   and in every case the output is the same as with fork + execve.  */

#include "st.h"
#include <grp.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/xattr.h>

static char suid_dir[] = "/tmp/st-setuid";
static char nosuid_dir[] = "/tmp/st-setuid-nosuid";
static const uid_t user = 65534;

static bool
copy (const char *from, const char *to, mode_t mode)
{
  char cmd[512];
  snprintf (cmd, sizeof cmd, "cp %s %s && chown 0:0 %s && chmod %o %s", from,
	    to, to, (unsigned) mode, to);
  return system (cmd) == 0;
}

static bool
set_caps (const char *path)
{
  struct vfs_cap_data cap;
  memset (&cap, 0, sizeof cap);
  cap.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
  cap.data[0].permitted = 1U << CAP_DAC_READ_SEARCH;
  return setxattr (path, "security.capability", &cap, XATTR_CAPS_SZ_2, 0) == 0;
}

/* As USER (NNP: with no_new_privs), run PATH ARGV through the chain
   (CHAIN) or fork + execve; its output.  */
static void
run (bool chain, bool nnp, const char *path, char **argv, char *out, size_t size)
{
  int p[2];
  out[0] = '\0';
  if (pipe2 (p, O_CLOEXEC) != 0)
    return;
  fflush (stdout);
  pid_t c = fork ();
  if (c == 0)
    {
      if (setgroups (0, NULL) != 0 || setresgid (user, user, user) != 0
	  || setresuid (user, user, user) != 0)
	_exit (2);
      if (nnp && prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
	_exit (3);
      if (!chain)
	{
	  dup2 (p[1], 1);
	  execve (path, argv, st_envp);
	  _exit (127);
	}
      st_init (0);
      struct clone_args ca = { .exit_signal = SIGCHLD };
      st_clone (&st_ring, &ca, 0);
      st_link (st_dup2 (&st_ring, p[1], 1, 1));
      st_exec (&st_ring, path, argv, st_envp, 2);
      st_run (&st_ring, 3);
      int status = st_fate ();
      _exit (st_res[0] > 0 && st_res[2] == 0 && status == 0 ? 0 : 4);
    }
  close (p[1]);
  st_read_all (p[0], out, size);
  int status = st_wait (c);
  if (!(status >= 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0))
    kt_fail ("run", "%s %s%s: status %#x", path, chain ? "chain" : "fork+execve",
	     nnp ? " (nnp)" : "", status);
}

static void
check (const char *name, bool nnp, const char *path, char **argv,
       const char *want)
{
  char a[128], b[128], n[200];
  run (true, nnp, path, argv, a, sizeof a);
  run (false, nnp, path, argv, b, sizeof b);
  snprintf (n, sizeof n, "%s: through the chain", name);
  ST_EXPECT_STR (n, a, want);
  snprintf (n, sizeof n, "%s: as with fork + execve", name);
  ST_EXPECT_STR (n, a, b);
}

int
main (void)
{
  mkdir (suid_dir, 0755);
  mkdir (nosuid_dir, 0755);
  if (mount ("tmpfs", suid_dir, "tmpfs", 0, "mode=755") != 0
      || mount ("tmpfs", nosuid_dir, "tmpfs", MS_NOSUID, "mode=755") != 0)
    {
      kt_unsupported ("setuid", "mount tmpfs: %m");
      return kt_exit ();
    }
  char id1[64], id2[64], sed1[64], sed2[64];
  snprintf (id1, sizeof id1, "%s/id", suid_dir);
  snprintf (id2, sizeof id2, "%s/id", nosuid_dir);
  snprintf (sed1, sizeof sed1, "%s/sed", suid_dir);
  snprintf (sed2, sizeof sed2, "%s/sed", nosuid_dir);
  if (!copy ("/usr/bin/id", id1, 04755) || !copy ("/usr/bin/id", id2, 04755)
      || !copy ("/bin/sed", sed1, 0755) || !copy ("/bin/sed", sed2, 0755))
    kt_fail ("setuid", "copying the programs failed");
  bool caps = set_caps (sed1) && set_caps (sed2);

  static char *argv_id[] = { "id", "-u", NULL };
  check ("setuid root", false, id1, argv_id, "0");
  check ("setuid root, no_new_privs", true, id1, argv_id, "65534");
  check ("setuid root, nosuid mount", false, id2, argv_id, "65534");

  static char *argv_cap[] = { "sed", "-n", "s/^CapEff:[[:space:]]*//p",
			      "/proc/self/status", NULL };
  if (caps)
    {
      char want[32];
      snprintf (want, sizeof want, "%016llx", 1ULL << CAP_DAC_READ_SEARCH);
      check ("file capability", false, sed1, argv_cap, want);
      check ("file capability, no_new_privs", true, sed1, argv_cap,
	     "0000000000000000");
      check ("file capability, nosuid mount", false, sed2, argv_cap,
	     "0000000000000000");
    }
  else
    kt_unsupported ("file capability", "setxattr security.capability: %m");

  umount (suid_dir);
  umount (nosuid_dir);
  rmdir (suid_dir);
  rmdir (nosuid_dir);
  st_no_children ("no child left");
  return kt_exit ();
}
