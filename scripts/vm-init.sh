#!/bin/sh
# scripts/vm-init.sh -- PID 1 of the uring-spawn test VM (see scripts/vm.sh).
#
# The kernel runs it as init= from the host's / (shared read-only over
# virtio-9p), so it is plain POSIX sh using the host's own tools.  It sets
# up the guest, then, by the vm_mode= kernel parameter:
#   run    run the command that vm.sh wrote to $vm_run/cmd.sh, with its
#          output on /dev/ttyS1 (vm.sh's stdout), write its exit status to
#          $vm_run/status and the kernel log to $vm_run/dmesg;
#   agent  run scripts/vm-agent.py, which serves `vm.sh exec` requests
#          until `vm.sh stop`;
# and powers the machine off.  The kernel log goes to ttyS0, which vm.sh
# saves as console.log.  Lines starting with "uring-spawn-vm:" on ttyS0
# are for vm.sh.

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

log () { echo "uring-spawn-vm: $*" > /dev/console; }

poweroff_now ()
{
  sync
  # sysrq o powers off through ACPI; b resets, which QEMU (-no-reboot)
  # also treats as the end.  Never return: PID 1 must not exit.
  echo o > /proc/sysrq-trigger
  sleep 5
  echo b > /proc/sysrq-trigger
  while :; do sleep 1; done
}

mount -t proc proc /proc
read -r cmdline < /proc/cmdline
case " $cmdline " in
  *" vm_trace=1 "*) trace () { read -r up _ < /proc/uptime; log "$up $*"; } ;;
  *) trace () { :; } ;;
esac
trace "init started"
here=${0%/*}
# The kernel mounts devtmpfs on /dev (DEVTMPFS_MOUNT) unless it could not.
devtmpfs=
while read -r _ mp _; do [ "$mp" = /dev ] && devtmpfs=1; done < /proc/mounts
[ -n "$devtmpfs" ] || mount -t devtmpfs devtmpfs /dev
mount -a -T "$here/vm-fstab"
mkdir -p /run/lock /run/shm && chmod 1777 /run/lock /run/shm
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s fd/2 /dev/stderr
trace "mounted"
echo uring-spawn-vm > /proc/sys/kernel/hostname
ip link set lo up
trace "lo up"

vm_mode= vm_run= vm_repo= vm_cache=
for arg in $cmdline; do
  case $arg in
    vm_mode=*|vm_run=*|vm_repo=*|vm_cache=*) eval "${arg%%=*}=\${arg#*=}" ;;
  esac
done

# The repository and the build cache, writable, at their host paths.
# Those may lie under a tmpfs mounted above (a clone in /tmp, as CI may
# make), where the mount point has to be made first.
opts=trans=virtio,version=9p2000.L,msize=512000,cache=mmap
for share in "repo $vm_repo" "cache $vm_cache"; do
  set -- $share
  [ -n "${2:-}" ] || continue
  mkdir -p "$2" 2>/dev/null
  mount -t 9p -o "$opts" "$1" "$2"
done
trace "shares mounted"

# Fault injection, on a kernel that has it (the debug kernel), for
# tst-spawn-uring-fault: every slab allocation of a thread that sets its
# /proc/thread-self/make-it-fail fails, and fail-nth counts allocations
# that may sleep too.  Threads that set neither see no failure, and
# injected failures are not logged.
f=/sys/kernel/debug/failslab
if mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null && [ -d $f ]; then
  echo N > $f/ignore-gfp-wait
  echo Y > $f/task-filter
  echo 100 > $f/probability
  echo 1 > $f/interval
  echo -1 > $f/times
  echo 0 > $f/verbose
fi
trace "fault injection set up"

# The kernel's own log level for the console: errors and worse only, so
# that oopses, KASAN and lockdep reports land in console.log as they happen.
echo 4 > /proc/sys/kernel/printk

case $vm_mode in
  run)
    if [ ! -f "$vm_run/cmd.sh" ]; then
      log "no command in $vm_run/cmd.sh"
      poweroff_now
    fi
    stty -F /dev/ttyS1 raw -echo 2>/dev/null
    cat /proc/uptime > "$vm_run/started"
    log "running the command"
    sh "$vm_run/cmd.sh" < /dev/null > /dev/ttyS1 2>&1
    rc=$?
    dmesg > "$vm_run/dmesg" 2>&1
    echo "$rc" > "$vm_run/status.tmp" && mv "$vm_run/status.tmp" "$vm_run/status"
    sync
    log "exit status $rc"
    ;;
  agent)
    # The test VM: no tracepoint re-patching while tests run.
    sh "$here/vm-trace-pin" || log "vm-trace-pin failed"
    trace "tracepoints pinned"
    cat /proc/uptime > "$vm_run/started"
    log "starting the agent"
    # The agent logs to the console; it exits 0 on `vm.sh stop`.  If a
    # test kills it (kill -1, OOM), start it again.
    while :; do
      /usr/bin/python3 "$vm_repo/scripts/vm-agent.py" serve --port 7000 \
	--token-file "$vm_run/token" > /dev/console 2>&1
      rc=$?
      log "agent exited with status $rc"
      [ $rc -eq 0 ] && break
      sleep 1
    done
    ;;
  *)
    log "unknown vm_mode '$vm_mode'"
    ;;
esac
poweroff_now
