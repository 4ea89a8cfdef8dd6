#!/bin/sh
# scripts/deb-test-guest.sh -- the programs ./build.sh deb-test runs in
# its guest (copied into the root as /root/uring-spawn-deb-test/guest.sh;
# run by scripts/deb-test-init.sh).  Plain sh: the root is a minbase
# Debian 12 with make, python3 and gawk.
#
# Each test writes its output to out/NAME.out and its exit status to
# out/NAME.status; the host compares them between the root with Debian's
# libc6 and the one with ours.  Tracing: io_uring:io_uring_spawn (one
# event per spawn chain) and sched:sched_process_exec (to name each
# spawner), system-wide, with a marker in the trace before each test;
# the whole trace ends in out/trace.txt.

D=/root/uring-spawn-deb-test
O=$D/out
T=/sys/kernel/tracing
W=/tmp/work
mkdir -p "$O" "$W"

echo "kernel: $(uname -r)"
echo "libc6: $(dpkg-query -W -f='${Version}' libc6)"
echo "spawn sysctl: $(cat /proc/sys/kernel/io_uring_spawn_disabled 2>/dev/null || echo absent)"

# --- tracing -----------------------------------------------------------
# Without its events the counts mean nothing: any failure here is the
# script's exit status (the tests still run).
fail=0
echo 0 > $T/tracing_on || fail=1
echo 16384 > $T/buffer_size_kb || fail=1
echo > $T/trace || fail=1
if [ -d $T/events/io_uring/io_uring_spawn ]; then
  echo 1 > $T/events/io_uring/io_uring_spawn/enable || fail=1
else
  echo "NO io_uring:io_uring_spawn trace event in this kernel"
  fail=1
fi
echo 1 > $T/events/sched/sched_process_exec/enable || fail=1
echo 1 > $T/tracing_on || fail=1

# run NAME CMD...: a test.  Its output (stdout and stderr) and status.
run ()
{
  name=$1; shift
  echo "BEGIN $name" > $T/trace_marker
  start=$(cut -d' ' -f1 /proc/uptime)
  "$@" > "$O/$name.out" 2>&1 < /dev/null
  echo $? > "$O/$name.status"
  end=$(cut -d' ' -f1 /proc/uptime)
  echo "END $name" > $T/trace_marker
  echo "$name: status $(cat "$O/$name.status"), $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
}

# --- GNU make: 200 targets, -j2 ------------------------------------------
# all <- m0..m8 <- 190 leaves l0..l189 (leaf k under m(k mod 9)): 200
# targets, each recipe with a redirection, so make runs it through
# /bin/sh.
mk=$W/make
mkdir -p $mk
{
  printf 'M := m0 m1 m2 m3 m4 m5 m6 m7 m8\n'
  printf 'all: $(M)\n\t@cat $(M) | sort | md5sum > $@\n'
  i=0
  while [ $i -lt 9 ]; do
    printf 'm%d:' $i
    k=$i; while [ $k -lt 190 ]; do printf ' l%d' $k; k=$((k + 9)); done
    printf '\n\t@cat $^ > $@\n'
    i=$((i + 1))
  done
  printf 'l%%:\n\t@echo $@ > $@\n'
} > $mk/Makefile
cat > $W/make_tree.sh <<EOF
cd $mk && rm -f all m[0-9] l[0-9]* && make -s -j2 && cat all && ls | wc -l
EOF
run make sh $W/make_tree.sh
# The switches: the tunable, then the kernel's sysctl.
run make-tunable-off env GLIBC_TUNABLES=glibc.spawn.io_uring=0 sh $W/make_tree.sh
if [ -f /proc/sys/kernel/io_uring_spawn_disabled ]; then
  echo 1 > /proc/sys/kernel/io_uring_spawn_disabled
  run make-sysctl-off sh $W/make_tree.sh
  echo 0 > /proc/sys/kernel/io_uring_spawn_disabled
else
  run make-sysctl-off sh -c 'echo "no /proc/sys/kernel/io_uring_spawn_disabled"; exit 1'
fi

# --- Python's subprocess (posix_spawn: close_fds=False, a path with /) --
cat > $W/sp.py <<'EOF'
import subprocess, sys
print("posix_spawn used by subprocess:", subprocess._USE_POSIX_SPAWN)
for i in range(50):
    r = subprocess.run(["/bin/echo", "py", str(i)], close_fds=False,
                       capture_output=True, text=True)
    print(r.returncode, r.stdout.strip())
r = subprocess.run(["/bin/sh", "-c", "echo to-stderr >&2; exit 3"],
                   close_fds=False, capture_output=True, text=True)
print("sh:", r.returncode, r.stderr.strip())
p = subprocess.Popen(["/usr/bin/tr", "a-z", "A-Z"], close_fds=False,
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
print("tr:", p.communicate("through a pipe\n")[0].strip())
try:
    subprocess.run(["/nonexistent/program"], close_fds=False)
except FileNotFoundError as e:
    print("missing program:", e.errno, e.strerror)
try:
    subprocess.run(["/etc/passwd"], close_fds=False)
except PermissionError as e:
    print("not executable:", e.errno, e.strerror)
EOF
run python python3 $W/sp.py

# --- system() and popen(): gawk ------------------------------------------
run gawk gawk 'BEGIN {
  for (i = 0; i < 20; i++) system("echo system " i)
  print "status", system("exit 7")
  cmd = "echo popen; echo line2"
  while ((cmd | getline l) > 0) print "got " l
  close(cmd)
  print "to a pipe" | "tr a-z A-Z"
  close("tr a-z A-Z")
}'

# --- dpkg and apt running maintainer scripts ------------------------------
pkg=$W/uringtest
mkdir -p $pkg/DEBIAN $pkg/usr/share/uringtest
cat > $pkg/DEBIAN/control <<'EOF'
Package: uringtest
Version: 1.0
Architecture: all
Maintainer: uring-spawn developers <dev@uring-spawn.invalid>
Description: maintainer scripts that spawn
 A package for ./build.sh deb-test.
EOF
for s in preinst postinst prerm postrm; do
  printf '#!/bin/sh\nset -e\necho "%s $*"\nls /usr/share/uringtest | wc -l\n' $s > $pkg/DEBIAN/$s
  chmod 755 $pkg/DEBIAN/$s
done
echo data > $pkg/usr/share/uringtest/file
# The same bytes on both roots: apt prints the package's size.
find $pkg -exec touch -h -d @0 {} +
run dpkg-deb env SOURCE_DATE_EPOCH=0 dpkg-deb --root-owner-group -Zgzip --build $pkg $W/uringtest_1.0_all.deb
# "(Reading database ... N files" counts the root's files, which our
# libc6 may change: say "N".
cat > $W/dpkg.sh <<EOF
{ dpkg -i $W/uringtest_1.0_all.deb && dpkg -r uringtest && dpkg -P uringtest; } 2>&1 \\
  | sed 's/database \\.\\.\\. [0-9]* files/database ... N files/'
EOF
run dpkg sh $W/dpkg.sh
cat > $W/apt.sh <<EOF
{ apt-get -q -y -o Dpkg::Use-Pty=0 install $W/uringtest_1.0_all.deb \\
  && apt-get -q -y -o Dpkg::Use-Pty=0 purge uringtest; } 2>&1 \\
  | sed 's/database \\.\\.\\. [0-9]* files/database ... N files/'
EOF
run apt sh $W/apt.sh

# --- controls: programs that fork or vfork themselves ---------------------
run env env A=1 B=2 sh -c 'echo $A $B'
run xargs sh -c 'seq 1 40 | xargs -n 7 echo'
run find-exec sh -c 'find /etc/apt /etc/dpkg -maxdepth 1 -exec echo found {} \; | sort'
run sh-c sh -c 'for i in 1 2 3 4 5; do sh -c "echo child $i"; done; (echo subshell); echo $(echo substitution)'
run runuser runuser -u nobody -- sh -c 'id -un; id -u'
run su su -s /bin/sh -c 'id -un; id -u' nobody

echo 0 > $T/tracing_on
cat $T/trace > $O/trace.txt || fail=1
echo "trace: $(grep -c io_uring_spawn: $O/trace.txt) io_uring_spawn events, $(grep -c sched_process_exec: $O/trace.txt) execs"
exit $fail
