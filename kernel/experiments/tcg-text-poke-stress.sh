#!/bin/bash
# kernel/experiments/tcg-text-poke-stress.sh [chains|true|none] [ROUNDS]
# [pinned]: in the VM,
#   bash scripts/vm.sh --debug --no-build --timeout 600 -- \
#     bash kernel/experiments/tcg-text-poke-stress.sh true 1000
# switch three sched tracepoints on and off ROUNDS times (each switch
# re-patches their static call sites with text_poke and int3) while
# ring-cost chains, fork + exec of /bin/true, or nothing but a sleeping
# loop run in the background.  With "pinned", first hold two probes on
# them as scripts/vm-trace-pin does in the test VM, so that no switch
# re-patches anything.
#
# Under QEMU 7.2's multi-threaded TCG with two vCPUs this stops the guest
# with "Oops: int3" at __schedule (the sched_switch site): on 7.3-rc7
# without the series as with it, plain or debug, with io_uring chains or
# only fork + exec, or with no load at all; see kernel/README.md for the
# runs.  "chains" needs build/bench/bin/ring-cost (./build.sh bench
# --build-only).
top=$(cd "$(dirname "$0")/../.." && pwd)
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs nodev $T
if [ "${3:-}" = pinned ]; then
  sh "$top/scripts/vm-trace-pin" || exit 1
fi
case ${1:-true} in
  chains) ( while :; do "$top/build/bench/bin/ring-cost" 50 >/dev/null 2>&1; done ) & ;;
  true) ( while :; do for i in $(seq 50); do /bin/true; done; done ) & ;;
  none) ( while :; do sleep 1; done ) & ;;
  *) echo "usage: $0 [chains|true|none] [ROUNDS] [pinned]" >&2; exit 2 ;;
esac
bg=$!
start=$SECONDS
for i in $(seq "${2:-1000}"); do
  for v in 1 0; do
    for e in sched_switch sched_waking sched_process_free; do
      echo $v > $T/events/sched/$e/enable
    done
  done
  [ $((i % 100)) = 0 ] && echo "round $i at $((SECONDS - start)) s"
done
kill $bg
echo "stress: done, $((SECONDS - start)) s"
