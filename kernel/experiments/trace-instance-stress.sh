#!/bin/bash
# kernel/experiments/trace-instance-stress.sh [chains|true] [ROUNDS]: in
# the VM (bash scripts/vm.sh --debug -- bash THIS chains 300), create and
# remove a trace instance with set_event_pid + event-fork, as the glibc
# harness does per test, ROUNDS times while chains (ring-cost) or
# fork + exec of true run in the background.  The reproducer of the
# "Oops: int3" seen with p12-exec-builds-in-pristine-mm-fenced.patch.
# Needs build/bench/bin/ring-cost (./build.sh bench --build-only).
ring_cost=$(cd "$(dirname "$0")/../.." && pwd)/build/bench/bin/ring-cost
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs nodev $T
mode=${1:-chains}
if [ "$mode" = chains ]; then
  ( while :; do "$ring_cost" 50 >/dev/null 2>&1; done ) &
else
  ( while :; do for i in $(seq 50); do /bin/true; done; done ) &
fi
bg=$!
for i in $(seq ${2:-300}); do
  d=$T/instances/st-stress-$i
  mkdir $d && echo 1 > $d/options/event-fork && echo $$ > $d/set_event_pid \
    && echo 1 > $d/events/io_uring/io_uring_spawn/enable \
    && echo 1 > $d/events/task/task_newtask/enable
  /bin/true
  echo 0 > $d/tracing_on
  rmdir $d
  [ $((i % 50)) = 0 ] && echo "round $i"
done
# The loop ends here; a ring-cost it started ends on its own.
kill $bg
echo "stress: done"
