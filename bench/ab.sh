#!/bin/bash
# bench/ab.sh [ROUNDS [STATE [DIR]]]: stock 2.44's posix_spawn against the
# patched clone path (io_uring=0), interleaved, ROUNDS rounds (20) of
# 2000 spawns each after 200 of warm-up, pinned to CPU 0, on this
# machine's wall clock.  One spawn-bench run's median moves by more than
# the difference looked for, so the figure is the median over rounds of
# each round's ratio, with the spread of both.  Run after
# "./build.sh bench --build-only" (the host part of "./build.sh bench"
# runs it); writes DIR/host-ab.csv and the summary to DIR/host-ab.txt
# (DIR: bench/results).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20} state=${2:-small} dir=${3:-bench/results}
bin=build/bench/bin stage=/tmp/uring-spawn-bench	# as bench/run.sh
out=$dir/host-ab.csv
[ -x "$bin/spawn-bench-stock" ] || { echo "bench/ab.sh: no $bin; run ./build.sh bench --build-only" >&2; exit 1; }
rm -rf "$stage" && mkdir -p "$stage" && cp -a "$bin/." "$stage/"
{
  printf 'round,'; "$stage/spawn-bench-stock" --header
  for r in $(seq "$rounds"); do
    echo "bench/ab.sh: round $r of $rounds" >&2
    for m in spawn-stock spawn-fallback; do
      b=stock e=()
      [ $m = spawn-fallback ] && b=patched e=(GLIBC_TUNABLES=glibc.spawn.io_uring=0)
      env "${e[@]}" taskset -c 0 "$stage/spawn-bench-$b" --mech posix_spawn \
	--label $m --where host --clock wall --dir "$stage" --iters 2000 \
	--warmup 200 --max-seconds 0 --expect-path clone --state "$state" \
	| sed "s/^/$r,/"
    done
  done
} > "$out"
rm -rf "$stage"
python3 - "$out" <<'PY' | tee "${out%.csv}.txt"
import csv, statistics as st, sys
d = {}
for r in csv.DictReader(open(sys.argv[1])):
    d.setdefault((r["figure"], r["round"]), {})[r["mechanism"]] = float(r["median_us"])
for fig in ("call", "first-insn", "spawn-wait"):
    pairs = [v for (f, _), v in d.items() if f == fig and len(v) == 2]
    q = [v["spawn-fallback"] / v["spawn-stock"] for v in pairs]
    s = [v["spawn-stock"] for v in pairs]
    print(f"{fig}: clone path ÷ stock, median of {len(q)} rounds {st.median(q):.3f} "
          f"(rounds {min(q):.3f}–{max(q):.3f}); stock's own medians spread "
          f"{max(s) / min(s):.2f}×")
PY
