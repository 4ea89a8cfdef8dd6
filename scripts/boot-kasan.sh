#!/bin/bash
# scripts/boot-kasan.sh -- how often a debug kernel's early boot logs a
# KASAN report (issue #35: "BUG: KASAN: wild-memory-access in
# do_raw_spin_lock", an interrupt taken during identify_cpu()), for the
# series' debug kernel against mainline's, the same configuration
# without the series (bash scripts/kernel.sh --mainline-debug).
#
#   bash scripts/boot-kasan.sh [--load] [--rounds N] [--out FILE] KERNEL_DIR...
#
# Each round boots every KERNEL_DIR's bzImage once, in turn, so that the
# kernels see the same host conditions.  A boot is QEMU as scripts/vm.sh
# starts it (the same CPU model, vCPUs, memory, devices and the kernel
# parameters that matter this early) until the console shows that
# arch_cpu_finalize_init() is done ("x86/fpu: Enabled xstate"), or 30 s;
# then QEMU is stopped.  The report, if any, comes before that line.
# --load keeps both host cores busy (two busy loops) during the boots:
# TCG delivers the guest's timer interrupts at other points then.
# Prints, per kernel, boots and boots with a KASAN report, and keeps each
# reporting boot's console log next to FILE (default
# build/results/boot-kasan.txt).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=100 load= out=$here/build/results/boot-kasan.txt
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --load) load=1; shift ;;
    --out) out=$2; shift 2 ;;
    -*) echo "usage: $0 [--load] [--rounds N] [--out FILE] KERNEL_DIR..." >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--load] [--rounds N] [--out FILE] KERNEL_DIR..." >&2; exit 2; }
kernels=()
for k in "$@"; do
  k=$(readlink -f "$k")
  [ -f "$k/bzImage" ] || { echo "$k/bzImage: not found" >&2; exit 2; }
  kernels+=("$k")
done
mkdir -p "$(dirname "$out")"
logs=${out%.txt}-logs
rm -rf "$logs" && mkdir -p "$logs"
smp=${VM_SMP:-2} mem=${VM_MEM:-2048}

loaders=()
stop_load () { [ ${#loaders[@]} -eq 0 ] || kill "${loaders[@]}" 2>/dev/null; }
trap stop_load EXIT
if [ -n "$load" ]; then
  for _ in 1 2; do
    ( while :; do :; done ) &
    loaders+=($!)
  done
fi

# boot KERNEL CONSOLE: 0 when the boot got past identify_cpu(), 1 if not.
boot ()
{
  local kernel=$1 console=$2 pid t
  : > "$console"
  qemu-system-x86_64 -accel tcg -cpu max -smp "$smp" -m "$mem" \
    -nographic -nodefaults -no-user-config -no-reboot \
    -kernel "$kernel/bzImage" \
    -append "console=ttyS0 acpi=noirq panic=-1 oops=panic root=/dev/nonexistent" \
    -fsdev "local,id=fsroot,path=/,security_model=passthrough,readonly=on,multidevs=remap" \
    -device virtio-9p-pci,fsdev=fsroot,mount_tag=/dev/root \
    -device virtio-rng-pci \
    -serial "file:$console" >/dev/null 2>&1 &
  pid=$!
  for ((t = 0; t < 300; t++)); do
    grep -q 'x86/fpu: Enabled xstate' "$console" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  grep -q 'x86/fpu: Enabled xstate' "$console"
}

declare -A boots reports incomplete
for k in "${kernels[@]}"; do boots[$k]=0 reports[$k]=0 incomplete[$k]=0; done
start=$(date +%s)
for ((r = 1; r <= rounds; r++)); do
  for k in "${kernels[@]}"; do
    c=$logs/console.tmp
    boot "$k" "$c" || incomplete[$k]=$(( ${incomplete[$k]} + 1 ))
    boots[$k]=$(( ${boots[$k]} + 1 ))
    if grep -q 'BUG: KASAN' "$c"; then
      reports[$k]=$(( ${reports[$k]} + 1 ))
      cp "$c" "$logs/$(basename "$k")-round$r.log"
    fi
  done
  if (( r % 10 == 0 )); then
    printf '    ... %d rounds, %ds:' "$r" $(( $(date +%s) - start ))
    for k in "${kernels[@]}"; do printf ' %s %d/%d' "$(basename "$k")" "${reports[$k]}" "${boots[$k]}"; done
    echo
  fi
done
rm -f "$logs/console.tmp"
{
  echo "# bash scripts/boot-kasan.sh${load:+ --load} --rounds $rounds, $(date -u +%F), $(( $(date +%s) - start )) s;"
  echo "# QEMU TCG -cpu max -smp $smp -m $mem, each boot stopped after arch_cpu_finalize_init()"
  for k in "${kernels[@]}"; do
    series="without the series"
    grep -q ' io_clone_prep$' "$k/System.map" 2>/dev/null && series="with the series"
    echo "$(basename "$k") ($(cat "$k/release" 2>/dev/null), $series): ${reports[$k]} of ${boots[$k]} boots logged a KASAN report (${incomplete[$k]} did not reach the end of identify_cpu in 30 s)"
  done
  for f in "$logs"/*.log; do
    [ -f "$f" ] || continue
    echo "--- $(basename "$f"): $(grep -m1 'BUG: KASAN' "$f" | tr -d '\r')"
  done
} | tee "$out"
