#!/usr/bin/env bash
# scripts/thread-rings.sh -- the kernel memory a thread keeps once it
# spawned through glibc's io_uring path (glibc review M6): runs
# bench/thread-rings in the VM on the plain kernel with the series
# (--debug: the debug kernel, whose KASAN inflates slab figures), with
# THREADS threads (default 1000) that spawn nothing, that spawn once on
# the clone path (tunable 0) and once on the io_uring path, each way
# twice in turn (the first round fills the slab caches), and prints the
# per-thread difference of the second round.  Not part of check.
#
#   bash scripts/thread-rings.sh [--debug] [THREADS]
set -euo pipefail
vmopts=()
if [ "${1:-}" = --debug ]; then vmopts=(--debug); shift; fi
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-1000}
out=$TOP/build/bench/bin
mkdir -p "$out"
gcc -O2 -Wall -o "$out/thread-rings" "$TOP/bench/thread-rings.c" -lpthread
run="$TOP/build/glibc/testrun.sh $out/thread-rings $n"
cd "$TOP"
./build.sh vm "${vmopts[@]}" -- sh -c "
  for round in 1 2; do
    for way in none clone uring; do
      sync; echo 3 > /proc/sys/vm/drop_caches
      case \$way in
	none) GLIBC_TUNABLES= $run none ;;
	clone) GLIBC_TUNABLES=glibc.spawn.io_uring=0 $run spawn ;;
	uring) GLIBC_TUNABLES= $run spawn ;;
      esac | sed \"s/^/\$round \$way /\"
    done
  done" | tee "$TOP/build/bench/thread-rings.txt" \
  | awk -v n="$n" '
      $1 == 2 && NF == 4 { v[$2, $3] = $4; k[$3] = 1 }
      END {
	printf "%-12s %10s %10s %10s %14s\n", "kB", "none", "clone", "uring", "uring-clone/thread"
	for (f in k)
	  printf "%-12s %10d %10d %10d %14.2f\n", f, v["none", f], v["clone", f], v["uring", f],
		 (v["uring", f] - v["clone", f]) / n
      }'
