#!/usr/bin/env bash
# bench/run.sh -- run the benchmark matrix on the machine it runs on (the
# host, or the guest of ./build.sh vm) and write one CSV.  scripts/bench.sh
# runs it twice: natively, and in the VM under QEMU -icount.
#
#   bash bench/run.sh --bin DIR --out CSV --where host|vm --clock CLOCK
#                     [--quick] [--uring] [--pin]
#
# --bin is build/bench/bin (the binaries and the two C libraries, as
# scripts/bench.sh builds them); it is copied to /tmp/uring-spawn-bench
# first, the absolute path the binaries' dynamic loader and rpath name: on
# tmpfs in the guest, so that no measured exec reads over 9p.  --uring adds
# the mechanisms that need the kernel series (spawn-uring, uring-raw).
# --pin runs the single-threaded measurements on CPU 0 (taskset; the
# child inherits it): under QEMU -icount the clock counts the
# instructions of all vCPUs, run round-robin on one host thread, so a
# second CPU adds no speed, only run-to-run noise from how parent and
# child interleave (the median of a call moved by 40 % between runs).
# Every mechanism's path is proven (spawn-bench --expect-path).
set -euo pipefail

STAGE=/tmp/uring-spawn-bench
bin= out= where= clock= quick=0 uring=0 pin=0
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=${2:?}; shift ;;
    --out) out=${2:?}; shift ;;
    --where) where=${2:?}; shift ;;
    --clock) clock=${2:?}; shift ;;
    --quick) quick=1 ;;
    --uring) uring=1 ;;
    --pin) pin=1 ;;
    *) echo "bench/run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$bin" ] && [ -n "$out" ] && [ -n "$where" ] && [ -n "$clock" ] \
  || { echo "usage: bench/run.sh --bin DIR --out CSV --where W --clock C [--quick] [--uring] [--pin]" >&2; exit 2; }

# Sizes.  The full run: 2000 measured spawns per figure after 200 of
# warm-up (the minimum).  --quick: fewer, and at most 2 s of this
# machine's clock per loop, so that the slow cases (fork of a 1 GiB
# parent, 100k descriptors) do not take minutes; the CSV's n column says
# how many were measured.
if [ $quick = 1 ]; then
  ITERS=300 WARMUP=30 FIRST=30 BUDGET=2
else
  ITERS=2000 WARMUP=200 FIRST=2000 BUDGET=0
fi
STATES=(small mem-untouched mem-touched fds-100k fds-100k-cloexec)
THREADS=1,2,4,8,16

# The mechanisms: label, binary, --mech, the path the spawns must take
# (spawn-bench proves it on each run's warm-up with the kernel's
# io_uring_spawn events: io_uring, one per spawn; clone, none), the
# environment ("-": none).  fork, vfork and the raw chain run in the
# stock binary: their C library only wraps one system call.
MECHS=(
  "fork stock fork clone -"
  "vfork stock vfork clone -"
  "spawn-stock stock posix_spawn clone -"
  "spawn-fallback patched posix_spawn clone GLIBC_TUNABLES=glibc.spawn.io_uring=0"
)
if [ $uring = 1 ]; then
  MECHS+=("spawn-uring patched posix_spawn io_uring GLIBC_TUNABLES=glibc.spawn.io_uring=1"
	  "uring-raw stock uring-raw io_uring -")
fi

rm -rf "$STAGE"
mkdir -p "$STAGE"
cp -a "$bin/." "$STAGE/"

t0=$(date +%s)
# run PINNING LABEL BINARY MECH PATH ENV ARGS...: one spawn-bench run;
# PINNING "single" pins it to CPU 0 if --pin was given, "free" never.
run ()
{
  local pinning=$1 label=$2 binary=$3 mech=$4 path=$5 envs=$6
  shift 6
  local prefix=()
  [ "$pinning" = single ] && [ $pin = 1 ] && prefix=(taskset -c 0)
  local args=(--mech "$mech" --label "$label" --where "$where" --clock "$clock"
	      --dir "$STAGE" --iters "$ITERS" --warmup "$WARMUP"
	      --max-seconds "$BUDGET" --expect-path "$path")
  local rc=0
  env ${envs#-} "${prefix[@]}" "$STAGE/spawn-bench-$binary" "${args[@]}" "$@" >> "$out" || rc=$?
  case $rc in
    0) ;;
    77) echo "  $label: skipped (see above)" >&2 ;;
    *) echo "bench/run.sh: $label $*: spawn-bench failed (exit $rc)" >&2; exit 1 ;;
  esac
}

"$STAGE/spawn-bench-stock" --header > "$out"
echo "# $where ($clock clock, v3): $(uname -r), $(nproc) CPUs, iterations $ITERS, warm-up $WARMUP, budget per loop ${BUDGET}s (0: none), single-threaded runs pinned to CPU 0: $([ $pin = 1 ] && echo yes || echo no)" >&2
for state in "${STATES[@]}"; do
  echo "== parent state: $state ($(( $(date +%s) - t0 ))s)" >&2
  for m in "${MECHS[@]}"; do
    # shellcheck disable=SC2086
    run single $m --state "$state"
  done
done
echo "== threads $THREADS ($(( $(date +%s) - t0 ))s)" >&2
for m in "${MECHS[@]}"; do
  # shellcheck disable=SC2086
  run free $m --threads "$THREADS"
done
echo "== first spawn of a process, $FIRST fresh processes each ($(( $(date +%s) - t0 ))s)" >&2
for m in "${MECHS[@]}"; do
  # shellcheck disable=SC2086
  run single $m --first "$FIRST"
done
echo "== $where: done in $(( $(date +%s) - t0 ))s (by this machine's clock)" >&2
rm -rf "$STAGE"
