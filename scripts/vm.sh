# scripts/vm.sh -- run commands in the uring-spawn test kernel under QEMU.
#
# One command per boot:
#   bash scripts/vm.sh [--debug] [--icount] [--timeout SECS] [--dmesg-check]
#                      [--env VAR=VALUE]... [--no-build] [--verbose] -- CMD ARGS...
# A persistent VM for many commands (glibc's test-wrapper):
#   bash scripts/vm.sh start [--debug] [--icount] [--name NAME]
#   bash scripts/vm.sh exec [--timeout SECS] [--env VAR=VALUE]... [--] CMD ARGS...
#   bash scripts/vm.sh dmesg [--check]       the guest's kernel log [checked]
#   bash scripts/vm.sh status | stop
#
# The guest is the kernel from build/kernel (build/kernel-debug with
# --debug; scripts/kernel.sh is run first to bring it up to date unless
# --no-build; or the bzImage that the environment variable VM_BZIMAGE
# names, which implies --no-build and makes --debug moot) with the host's
# / as its root, read-only over virtio-9p, and
# the repository and $CACHE mounted writable at the same paths.  It has
# /proc, /sys, /dev (devtmpfs, /dev/pts, /dev/shm), tmpfs on /tmp,
# /var/tmp and /run, cgroup2 on /sys/fs/cgroup, loopback up and, on a
# kernel with fault injection (the debug one), debugfs with failslab set
# up for threads that set their make-it-fail (see vm-init.sh).  CMD runs
# as root in the caller's working directory (which must be inside the
# repository, $CACHE or another path the guest sees the same way) with
# PATH from the caller, HOME=/root, LANG=C, TIMEOUTFACTOR if set, and
# every --env.  The guest's PID 1 is scripts/vm-init.sh.
#
# Exit status: CMD's own (128+N if a signal N killed it); 124 if --timeout
# expired; 125 if the VM failed (boot failure, panic, crash) or
# --dmesg-check found a kernel report; 2 for a usage error.  On a failure
# vm.sh prints the tail of the console log and the path of the full one.
#
# Persistent mode: `start` boots a VM whose init runs scripts/vm-agent.py,
# reachable only from this host through QEMU's user-mode network
# (127.0.0.1:PORT forwarded to the guest, guest otherwise isolated) and a
# random token; `exec` sends one command over it: argv, cwd, environment,
# stdin/stdout/stderr and the exit status pass through, calls may run
# concurrently, each with a timeout (default $VM_EXEC_TIMEOUT or 1800 s).
# State lives in build/vm/NAME (NAME: --name or $VM_NAME, default "default").
# scripts/vm-test-wrapper is glibc's test-wrapper on top of `exec`.
#
# The accelerator is TCG; KVM is used only if a bounded boot probe shows
# that it works here (result cached in $CACHE/vm; VM_ACCEL=tcg|kvm forces).

_vm_here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$_vm_here/scripts/lib.sh"

VM_MEM=${VM_MEM:-2G}
VM_SMP=${VM_SMP:-2}
VM_PY=/usr/bin/python3
VM_AGENT=$_vm_here/scripts/vm-agent.py

vm_die () { printf 'vm.sh: error: %s\n' "$*" >&2; exit 125; }
vm_note () { printf 'vm.sh: %s\n' "$*" >&2; }

# Quote words for sh, as glibc's cross-test-ssh.sh does.
_vm_quote ()
{
  local a
  for a in "$@"; do
    printf "'%s' " "${a//\'/\'\\\'\'}"
  done
}

# Make sure the kernel is built; print the bzImage path ($VM_BZIMAGE
# as it is, if set).
_vm_kernel ()
{
  local debug=$1 nobuild=$2
  if [ -n "${VM_BZIMAGE:-}" ]; then
    [ -f "$VM_BZIMAGE" ] || vm_die "no kernel at VM_BZIMAGE=$VM_BZIMAGE"
    printf '%s\n' "$VM_BZIMAGE"
    return 0
  fi
  local dir=$_vm_here/build/kernel
  [ "$debug" = 1 ] && dir=$dir-debug
  if [ "$nobuild" != 1 ]; then
    ( . "$_vm_here/scripts/kernel.sh"
      if [ "$debug" = 1 ]; then kernel_build --debug; else kernel_build; fi ) >&2 \
      || vm_die "building the kernel failed"
  fi
  [ -f "$dir/bzImage" ] || vm_die "no kernel at $dir/bzImage; run: bash scripts/kernel.sh${debug:+ --debug}"
  printf '%s\n' "$dir/bzImage"
}

# The patterns that mark a kernel report in a kernel log.
VM_DMESG_PATTERNS='BUG:|WARNING:|possible circular locking|possible recursive locking|inconsistent lock state|inconsistent IRQ|lock held when returning|suspicious RCU usage|bad unlock balance|KASAN:|UBSAN:|Oops|Call Trace|general protection fault|kernel BUG|Kernel panic|INFO: task .* blocked|stack-protector|refcount_t:|list_add corruption|list_del corruption|sleeping function called from invalid context'

# _vm_dmesg_check FILE: fail (status 1) if FILE has a kernel report.
_vm_dmesg_check ()
{
  local hits
  hits=$(grep -nE "$VM_DMESG_PATTERNS" "$1") || return 0
  printf 'vm.sh: the guest kernel log has reports (%s):\n' "$1" >&2
  printf '%s\n' "$hits" | head -n 20 | sed 's/^/    /' >&2
  return 1
}

# _vm_known_boot_report CONSOLE: true if the boot logged the early-boot
# KASAN report that mainline's debug kernel logs too (an interrupt taken
# in identify_cpu() or a function it calls, handle_edge_irq ->
# do_raw_spin_lock, wild-memory-access), and tests/known-failures lists
# it as boot-kasan-identify-cpu.  A KASAN report turns lockdep off for
# the rest of the boot, so such a boot is not used: vm_start boots again.
_vm_known_boot_report ()
{
  grep -q '^boot-kasan-identify-cpu[[:space:]]' "$_vm_here/tests/known-failures" \
    2>/dev/null || return 1
  tr -d '\r' < "$1" | awk '
    /^\[ *[0-9.]+\] =+$/ { if (inblock && kasan && irq && cpu) found = 1
			     inblock = !inblock; kasan = irq = cpu = 0; next }
    inblock && /BUG: KASAN: wild-memory-access in do_raw_spin_lock/ { kasan = 1 }
    inblock && /handle_edge_irq/ { irq = 1 }
    inblock && /identify_cpu\+/ { cpu = 1 }
    END { exit !found }'
}

# Decide between KVM and TCG, once per host kernel and QEMU version.
_vm_accel ()
{
  local kernel=$1
  case ${VM_ACCEL:-} in tcg|kvm) echo "$VM_ACCEL"; return ;; esac
  if [ ! -w /dev/kvm ]; then echo tcg; return; fi
  local key f
  key=$(hash_of "$(uname -r)" "$(qemu-system-x86_64 --version | head -n 1)")
  f=$CACHE/vm/accel-$key
  if [ -f "$f" ]; then cat "$f"; return; fi
  mkdir -p "$CACHE/vm"
  vm_note "probing whether KVM boots here (at most 20 s, once)"
  local log=$CACHE/vm/accel-$key.log
  # A kernel with no root file system panics at once and, with panic=-1
  # and -no-reboot, QEMU exits: a working KVM does that within seconds.
  local verdict=tcg
  if timeout -s KILL 20 qemu-system-x86_64 -accel kvm -cpu host -m 256M -smp 1 \
       -nodefaults -no-user-config -display none -no-reboot -serial "file:$log" \
       -kernel "$kernel" -append "console=ttyS0 panic=-1 root=/dev/nonexistent" \
       </dev/null >/dev/null 2>&1 \
     && grep -q 'Kernel panic' "$log"; then
    verdict=kvm
  fi
  echo "$verdict" > "$f"
  vm_note "KVM probe: using $verdict (cached in $f)"
  echo "$verdict"
}

# The QEMU command line shared by both modes; $1 = bzImage, $2 = run dir,
# $3 = mode, $4 = icount (0/1), $5 = accel.  Sets the array vm_qemu.
_vm_qemu_cmd ()
{
  local kernel=$1 run=$2 mode=$3 icount=$4 accel=$5
  local cpu=max
  [ "$accel" = kvm ] && cpu=host
  local append="console=ttyS0 root=/dev/root rootfstype=9p"
  append+=" rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose ro"
  # acpi=noirq: evaluating the ACPI PCI link objects takes 20 s each
  # under the debug kernel (TCG, KASAN, lockdep); legacy IRQ routing works.
  append+=" acpi=noirq init=$_vm_here/scripts/vm-init.sh panic=-1 oops=panic printk.devkmsg=on"
  append+=" vm_mode=$mode vm_run=$run vm_repo=$_vm_here vm_cache=$CACHE"
  [ -n "${VM_TRACE:-}" ] && append+=" vm_trace=1"
  # Extra kernel parameters, e.g. VM_APPEND="lockdep.prove_locking=0".
  [ -n "${VM_APPEND:-}" ] && append+=" $VM_APPEND"
  [ "$mode" = agent ] && append+=" ip=10.0.2.15::10.0.2.2:255.255.255.0:uring-spawn-vm:eth0:off"
  vm_qemu=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp "$VM_SMP" -m "$VM_MEM"
    -nographic -nodefaults -no-user-config -no-reboot
    -kernel "$kernel" -append "$append"
    -fsdev "local,id=fsroot,path=/,security_model=passthrough,readonly=on,multidevs=remap"
    -device virtio-9p-pci,fsdev=fsroot,mount_tag=/dev/root
    -fsdev "local,id=fsrepo,path=$_vm_here,security_model=passthrough,multidevs=remap"
    -device virtio-9p-pci,fsdev=fsrepo,mount_tag=repo
    -fsdev "local,id=fscache,path=$CACHE,security_model=passthrough,multidevs=remap"
    -device virtio-9p-pci,fsdev=fscache,mount_tag=cache
    -device virtio-rng-pci
    -serial "file:$run/console.log")
  [ "$icount" = 1 ] && vm_qemu+=(-icount shift=0,sleep=off)
  return 0
}

# The environment CMD gets: the essentials plus --env.
_vm_env ()
{
  printf '%s\n' "PATH=$PATH" HOME=/root LANG=C USER=root LOGNAME=root TERM=dumb
  [ -n "${TIMEOUTFACTOR:-}" ] && printf '%s\n' "TIMEOUTFACTOR=$TIMEOUTFACTOR"
  return 0
}

_vm_tail_console ()
{
  local log=$1
  if [ -s "$log" ]; then
    printf -- '--- last 40 lines of the console log ---\n' >&2
    tail -n 40 "$log" | tr -d '\r' >&2
    printf -- '--- full console log: %s\n' "$log" >&2
  else
    printf 'vm.sh: the console log %s is empty\n' "$log" >&2
  fi
}

# Old run directories: keep the last 30, and any that may still be in
# use: younger than an hour, or a persistent VM's younger than two days.
_vm_prune_runs ()
{
  local d
  ls -1dt "$CACHE"/vm/runs/run-* 2>/dev/null | tail -n +31 | while IFS= read -r d; do
    case $d in
      *-agent-*) [ -n "$(find "$d" -maxdepth 0 -mmin -2880)" ] && continue ;;
      *) [ -n "$(find "$d" -maxdepth 0 -mmin -60)" ] && continue ;;
    esac
    rm -rf "$d"
  done
}

vm_run ()
{
  local debug=0 icount=0 timeout=${VM_TIMEOUT:-600} dmesg_check=0 nobuild=0 verbose=0
  local extra_env=()
  while [ $# -gt 0 ]; do
    case $1 in
      --debug) debug=1 ;;
      --icount) icount=1 ;;
      --timeout) timeout=${2:?--timeout needs seconds}; shift ;;
      --timeout=*) timeout=${1#*=} ;;
      --dmesg-check) dmesg_check=1 ;;
      --env) extra_env+=("${2:?--env needs VAR=VALUE}"); shift ;;
      --env=*) extra_env+=("${1#*=}") ;;
      --no-build) nobuild=1 ;;
      --verbose|-v) verbose=1 ;;
      --) shift; break ;;
      -*) printf 'vm.sh: unknown option %s\n' "$1" >&2; exit 2 ;;
      *) break ;;
    esac
    shift
  done
  [ $# -gt 0 ] || { printf 'usage: vm.sh [OPTIONS] -- CMD ARGS...\n' >&2; exit 2; }
  case $timeout in ''|*[!0-9]*) printf 'vm.sh: bad --timeout %s\n' "$timeout" >&2; exit 2 ;; esac
  need_packages qemu-system-x86 iproute2 util-linux coreutils >&2
  local kernel accel
  kernel=$(_vm_kernel $debug $nobuild) || exit 125
  accel=$(_vm_accel "$kernel")
  mkdir -p "$CACHE/vm/runs"
  _vm_prune_runs
  local run
  run=$(mktemp -d "$CACHE/vm/runs/run-$(date +%Y%m%d-%H%M%S)-XXXX") || vm_die "mktemp failed"
  # The command, as a tiny sh script run by the guest's init.
  {
    printf 'cd %s || exit 125\n' "$(_vm_quote "$PWD")"
    printf 'exec env -i '
    local v
    while IFS= read -r v; do _vm_quote "$v"; done < <(_vm_env)
    for v in "${extra_env[@]}"; do _vm_quote "$v"; done
    _vm_quote "$@"
    printf '\n'
  } > "$run/cmd.sh"
  local vm_qemu
  _vm_qemu_cmd "$kernel" "$run" run "$icount" "$accel"
  # CMD's output: the guest's second serial port, on our stdout.
  vm_qemu+=(-chardev stdio,id=out,signal=off -serial chardev:out)
  [ $verbose = 1 ] && vm_note "run dir $run; accel $accel; kernel $(readlink -f "$kernel")"
  local t0 rc=0
  t0=$(date +%s.%N)
  local qpid= wpid=
  trap 'kill -KILL $qpid $wpid 2>/dev/null; vm_note "interrupted; console log: $run/console.log"; exit 130' INT TERM HUP
  # --pdeathsig: QEMU dies with vm.sh even if vm.sh is SIGKILLed.
  setpriv --pdeathsig KILL -- "${vm_qemu[@]}" </dev/null 2>"$run/qemu.err" &
  qpid=$!
  # Watchdog: the whole run may take at most $timeout seconds.  It must
  # not hold our stdout (a pipe reader would wait for it), and its sleep
  # must die with it.
  ( sleep "$timeout" & spid=$!
    trap 'kill $spid; exit 0' TERM
    wait $spid && kill -0 $qpid && touch "$run/timed-out" && kill -KILL $qpid
  ) </dev/null >/dev/null 2>&1 &
  wpid=$!
  wait $qpid 2>/dev/null || rc=$?
  kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
  trap - INT TERM
  local t1
  t1=$(date +%s.%N)
  if [ -f "$run/started" ]; then
    local boot
    boot=$(awk -v a="$t0" -v b="$(stat -c %.9Y "$run/started")" 'BEGIN { printf "%.1f", b - a }')
    printf '%s\n' "$boot" > "$run/boot-seconds"
    [ $verbose = 1 ] && vm_note "boot took ${boot}s (QEMU start to CMD start); total $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')s"
  fi
  if [ -f "$run/timed-out" ]; then
    _vm_tail_console "$run/console.log"
    printf 'vm.sh: error: the VM did not finish within %ss (--timeout); killed it\n' "$timeout" >&2
    exit 124
  fi
  if [ ! -f "$run/status" ]; then
    [ -s "$run/qemu.err" ] && { printf -- '--- QEMU said:\n' >&2; cat "$run/qemu.err" >&2; }
    _vm_tail_console "$run/console.log"
    if grep -q 'Kernel panic' "$run/console.log" 2>/dev/null; then
      vm_die "the guest kernel panicked before CMD finished (QEMU exit $rc)"
    fi
    vm_die "the VM ended before CMD finished (QEMU exit $rc)"
  fi
  local status
  status=$(cat "$run/status")
  if [ $dmesg_check = 1 ]; then
    [ -f "$run/dmesg" ] || vm_die "no guest kernel log in $run/dmesg"
    if ! _vm_dmesg_check "$run/dmesg"; then
      printf 'vm.sh: error: --dmesg-check failed (CMD exited %s); guest kernel log: %s\n' \
	"$status" "$run/dmesg" >&2
      exit 125
    fi
  fi
  exit "$status"
}

# ---------------------------------------------------------------------
# Persistent mode.

_vm_state ()
{
  printf '%s\n' "$_vm_here/build/vm/${VM_NAME:-default}"
}

_vm_alive ()
{
  local st=$1
  [ -f "$st/qemu.pid" ] && kill -0 "$(cat "$st/qemu.pid")" 2>/dev/null
}

vm_start ()
{
  local debug=0 icount=0 nobuild=0 timeout=${VM_START_TIMEOUT:-300}
  local args=("$@")
  while [ $# -gt 0 ]; do
    case $1 in
      --debug) debug=1 ;;
      --icount) icount=1 ;;
      --no-build) nobuild=1 ;;
      --name) VM_NAME=${2:?}; shift ;;
      --timeout) timeout=${2:?}; shift ;;
      *) printf 'vm.sh start: unknown option %s\n' "$1" >&2; exit 2 ;;
    esac
    shift
  done
  local st
  st=$(_vm_state)
  if _vm_alive "$st"; then
    vm_note "VM '${VM_NAME:-default}' is already running (pid $(cat "$st/qemu.pid"), $(cat "$st/kernel" 2>/dev/null)); stop it first to change kernels"
    return 0
  fi
  need_packages qemu-system-x86 iproute2 util-linux coreutils python3 >&2
  local kernel accel
  kernel=$(_vm_kernel $debug $nobuild) || exit 125
  accel=$(_vm_accel "$kernel")
  rm -rf "$st" && mkdir -p "$st" || vm_die "cannot create $st"
  # Each start has its own directory in $CACHE (the guest writes there).
  local run
  mkdir -p "$CACHE/vm/runs"
  _vm_prune_runs
  run=$(mktemp -d "$CACHE/vm/runs/run-$(date +%Y%m%d-%H%M%S)-agent-XXXX") || vm_die "mktemp failed"
  ( umask 077; head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$run/token" )
  local port
  port=$("$VM_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') \
    || vm_die "cannot find a free TCP port"
  local vm_qemu
  _vm_qemu_cmd "$kernel" "$run" agent "$icount" "$accel"
  vm_qemu+=(-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:7000"
    -device virtio-net-pci,netdev=n0,romfile=
    -daemonize -pidfile "$st/qemu.pid")
  printf '%s\n' "$run" > "$st/run"
  printf '%s\n' "$port" > "$st/port"
  readlink -f "$kernel" > "$st/kernel"
  ln -sfn "$run/console.log" "$st/console.log"
  local t0=$(date +%s)
  "${vm_qemu[@]}" </dev/null >"$run/qemu.err" 2>&1 \
    || { cat "$run/qemu.err" >&2; vm_die "QEMU did not start"; }
  vm_note "VM '${VM_NAME:-default}' booting (pid $(cat "$st/qemu.pid"), $accel, port $port); console: $run/console.log"
  # Ready when the agent answers.
  while :; do
    if "$VM_PY" "$VM_AGENT" ping --port "$port" --token-file "$run/token" 2>/dev/null; then
      break
    fi
    if ! _vm_alive "$st"; then
      _vm_tail_console "$run/console.log"
      vm_die "the VM died while booting"
    fi
    if [ $(( $(date +%s) - t0 )) -ge "$timeout" ]; then
      kill -KILL "$(cat "$st/qemu.pid")" 2>/dev/null
      _vm_tail_console "$run/console.log"
      vm_die "the VM's agent did not answer within ${timeout}s; killed the VM"
    fi
    sleep 0.5
  done
  vm_note "VM '${VM_NAME:-default}' ready after $(( $(date +%s) - t0 ))s"
  if _vm_known_boot_report "$run/console.log"; then
    local tries=${_VM_BOOT_TRIES:-1}
    [ "$tries" -lt 3 ] \
      || vm_die "the known early-boot KASAN report in $tries boots in a row; console: $run/console.log"
    vm_note "the boot logged the known early-boot KASAN report (tests/known-failures: boot-kasan-identify-cpu), which turns lockdep off: booting again"
    vm_stop >&2
    _VM_BOOT_TRIES=$((tries + 1)) vm_start "${args[@]}"
  fi
}

_vm_need_running ()
{
  local st
  st=$(_vm_state)
  _vm_alive "$st" || vm_die "VM '${VM_NAME:-default}' is not running; start it with: bash scripts/vm.sh start"
}

vm_exec ()
{
  local args=()
  while [ $# -gt 0 ]; do
    case $1 in
      --timeout) args+=(--timeout "${2:?}"); shift ;;
      --env) args+=(--env "${2:?}"); shift ;;
      --name) VM_NAME=${2:?}; shift ;;
      --) shift; break ;;
      *) break ;;
    esac
    shift
  done
  [ $# -gt 0 ] || { printf 'usage: vm.sh exec [--timeout S] [--env V=X]... [--] CMD ARGS...\n' >&2; exit 2; }
  local st run
  st=$(_vm_state)
  _vm_need_running
  run=$(cat "$st/run")
  local v
  while IFS= read -r v; do args+=(--env "$v"); done < <(_vm_env)
  exec "$VM_PY" "$VM_AGENT" exec --port "$(cat "$st/port")" --token-file "$run/token" \
    --cwd "$PWD" --timeout "${VM_EXEC_TIMEOUT:-1800}" "${args[@]}" -- "$@"
}

vm_stop ()
{
  [ "${1:-}" = --name ] && VM_NAME=$2
  local st
  st=$(_vm_state)
  if ! _vm_alive "$st"; then
    vm_note "VM '${VM_NAME:-default}' is not running"
    rm -rf "$st"
    return 0
  fi
  local pid run
  pid=$(cat "$st/qemu.pid")
  run=$(cat "$st/run")
  "$VM_PY" "$VM_AGENT" poweroff --port "$(cat "$st/port")" --token-file "$run/token" 2>/dev/null
  local n=0
  while kill -0 "$pid" 2>/dev/null && [ $n -lt 60 ]; do sleep 0.5; n=$((n + 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    vm_note "the VM did not power off; killing QEMU (pid $pid)"
    kill -KILL "$pid"
  fi
  rm -rf "$st"
  vm_note "VM '${VM_NAME:-default}' stopped; console log: $run/console.log"
}

vm_dmesg ()
{
  local check=0
  [ "${1:-}" = --check ] && check=1
  local st run
  st=$(_vm_state)
  _vm_need_running
  run=$(cat "$st/run")
  local f=$run/dmesg.$$
  "$VM_PY" "$VM_AGENT" exec --port "$(cat "$st/port")" --token-file "$run/token" \
    --cwd / --timeout 60 --env PATH=/usr/sbin:/usr/bin:/sbin:/bin -- dmesg > "$f" \
    || vm_die "cannot read the guest's kernel log"
  if [ $check = 1 ]; then
    _vm_dmesg_check "$f" || { printf 'vm.sh: error: dmesg check failed; log: %s\n' "$f" >&2; exit 125; }
    vm_note "dmesg check: clean ($(wc -l < "$f") lines, $f)"
  else
    cat "$f"; rm -f "$f"
  fi
}

vm_status ()
{
  local st
  st=$(_vm_state)
  if _vm_alive "$st"; then
    printf 'running: pid %s, port %s, kernel %s, console %s\n' "$(cat "$st/qemu.pid")" \
      "$(cat "$st/port")" "$(cat "$st/kernel")" "$(cat "$st/run")/console.log"
  else
    printf 'not running\n'; return 1
  fi
}

vm_main ()
{
  case "${1:-}" in
    start) shift; vm_start "$@" ;;
    exec) shift; vm_exec "$@" ;;
    stop) shift; vm_stop "$@" ;;
    status) shift; vm_status "$@" ;;
    dmesg) shift; vm_dmesg "$@" ;;
    -h|--help|'') sed -n '2,42p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ] ;;
    *) vm_run "$@" ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -o pipefail
  vm_main "$@"
fi
