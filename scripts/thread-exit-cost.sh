#!/usr/bin/env bash
# scripts/thread-exit-cost.sh -- review item M4: a thread that never
# spawned pays nothing for the io_uring path.  Runs tests/thread-exit-cost
# (1,000 threads created and joined, no spawn) under strace -f -c with
# two C library builds and compares the rt_sigprocmask, mmap and munmap
# calls.  Not part of check (it needs the stock build).
#
#   bash scripts/thread-exit-cost.sh [PATCHED STOCK [THREADS]]
#
# PATCHED and STOCK are glibc build directories (default build/glibc
# and build/glibc-stock: ./build.sh glibc and ./build.sh glibc --stock).
# Prints one line per system call and build; exits non-zero if a count
# differs.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
patched=${1:-$TOP/build/glibc}
stock=${2:-$TOP/build/glibc-stock}
threads=${3:-1000}
for b in "$patched" "$stock"; do
  [ -x "$b/testrun.sh" ] || { echo "no glibc build at $b (testrun.sh)" >&2; exit 2; }
done
command -v strace >/dev/null || { echo "strace is not installed" >&2; exit 2; }
out=$TOP/build/thread-exit-cost
mkdir -p "$out"
gcc -O2 -Wall -o "$out/thread-exit-cost" "$TOP/tests/thread-exit-cost.c" -lpthread

# count BUILD NAME: strace's per-call counts into $out/NAME.counts.
count ()
{
  strace -f -c -U name,calls -e trace=rt_sigprocmask,mmap,munmap \
    -o "$out/$2.strace" "$1/testrun.sh" "$out/thread-exit-cost" "$threads"
  awk '$1 ~ /^(rt_sigprocmask|mmap|munmap)$/ { print $1, $2 }' \
    "$out/$2.strace" | sort > "$out/$2.counts"
}
count "$patched" patched
count "$stock" stock
rc=0
for sc in rt_sigprocmask mmap munmap; do
  p=$(awk -v s=$sc '$1 == s { print $2 }' "$out/patched.counts")
  s=$(awk -v s=$sc '$1 == s { print $2 }' "$out/stock.counts")
  if [ "${p:-0}" = "${s:-0}" ]; then
    echo "PASS: $sc: ${p:-0} calls, patched and stock ($threads threads)"
  else
    echo "FAIL: $sc: patched ${p:-0}, stock ${s:-0} ($threads threads)"
    rc=1
  fi
done
exit $rc
