# scripts/bench.sh -- ./build.sh bench [--quick] [--host-only|--vm-only]:
# build what the benchmarks need, run them natively on this machine and in
# the VM under QEMU -icount, write the CSVs, the Markdown table and the
# plots.  Sourced by build.sh after lib.sh, glibc.sh and kernel.sh.  See
# bench/README.md.
#
# glibc 2.44 with the series (build/glibc) against stock 2.44
# (build/glibc-stock), the plain kernel (build/kernel); binaries in
# build/bench/bin, results in bench/results/ (--quick:
# build/bench/quick/).  v2's benchmark is at git tag v2, its results in
# bench/results-v2/.

BENCH_STAGE=/tmp/uring-spawn-bench	# must match bench/run.sh
BENCH_BIN=$TOP/build/bench/bin

bench_usage ()
{
  cat <<EOF
Usage: ./build.sh bench [--quick] [--host-only | --vm-only | --build-only]

  --quick      300 spawns per figure instead of 2000, 30 fresh processes
               for the first-spawn figure; results in build/bench/quick/
               (the full run writes bench/results/)
  --host-only  only the native run (wall clock; no io_uring path here)
  --vm-only    only the run in the VM (QEMU -icount: guest instruction clock),
               and the event loop (examples/spawn-loop, bench/loop.sh)
  --loop-only  only the event loop in the VM: loop.csv, loop.md
  --build-only build what the benchmark needs (both C libraries, the plain
               kernel, build/bench/bin) and stop: for kphases.py, ring-cost
               and runs by hand
EOF
}

# spawn-bench is compiled against Debian 12's glibc 2.36 headers and
# linked against its libc.so, and runs on 2.44.  That is safe if every
# symbol it binds is at the version a build against 2.44 would bind, its
# newest in 2.44's ABI list (glibc keeps every version; a missing one
# would also stop the loader).  See bench/README.md.
bench_abi_check ()
{
  local abilist=$PRISTINE/sysdeps/unix/sysv/linux/x86_64/64/libc.abilist
  local ver sym newest bad= n=0
  [ -f "$abilist" ] || die "bench: no $abilist"
  while read -r ver sym; do
    n=$((n + 1))
    newest=$(awk -v s="$sym" '$2 == s { print $1 }' "$abilist" | sort -V | tail -n 1)
    [ "$ver" = "$newest" ] || bad+=" $sym@$ver (2.44: ${newest:-none})"
  done < <(objdump -T "$BENCH_BIN/spawn-bench-stock" \
	     | sed -n 's/.*(\(GLIBC_[0-9.]*\))[[:space:]]*\([A-Za-z_0-9]*\)$/\1 \2/p')
  [ "$n" -gt 0 ] || die "bench: no versioned symbol in $BENCH_BIN/spawn-bench-stock"
  [ -z "$bad" ] || die "bench: spawn-bench binds symbols that 2.44 has newer versions of:$bad; compile it against 2.44's headers"
  say "benchmark ABI: the $n glibc symbols spawn-bench binds are 2.44's default versions"
}

bench_build ()
{
  need_packages gnuplot-nox gcc libc6-dev
  glibc_build
  glibc_stock_build
  kernel_build
  liburing_build
  local mk=(make -C bench OUT="$BENCH_BIN" STOCK="$GSTOCK" PATCHED="$GBUILD"
	    KHDR="$TOP/build/$KERNEL_LINK/usr/include" LIBURING="$LIBURING_TREE"
	    STAGE="$BENCH_STAGE")
  # Only a build takes the lock: a long locked job (glibc's tests) must
  # not hold up a run whose binaries are current.
  local rel=${BENCH_BIN#"$TOP"/}
  if "${mk[@]}" -q >/dev/null 2>&1; then
    say "benchmark binaries: up to date ($rel)"
  else
    mkdir -p "${BENCH_BIN%/bin}"
    step "${BENCH_BIN%/bin}/compile.log" "compiling the benchmark into $rel" \
      locked "${mk[@]}"
  fi
  bench_abi_check
}

# The host part: natively, wall clock.  One at a time per machine: the
# runs share /tmp/uring-spawn-bench.
bench_host ()
{
  local out=$1 quick=$2
  say "host: $(uname -r), native, wall clock (other load on this machine shows in the numbers)"
  if ! flock "$CACHE/.bench-host.lock" \
       bash bench/run.sh --bin "$BENCH_BIN" --out "$out/host.csv" --where host \
	 --clock wall $quick 2>&1 | tee "$out/host.log"; then
    die "the host run failed; log: $out/host.log"
  fi
  # One run's medians move more on this clock than the clone path's
  # goal allows: the verdict is interleaved rounds' ratios.
  say "host: stock against the clone path, interleaved (bench/ab.sh)"
  flock "$CACHE/.bench-host.lock" bash bench/ab.sh "$([ -n "$quick" ] && echo 20 || echo 100)" small "$out" \
    || die "bench/ab.sh failed"
}

# The VM part: the kernel with the series under QEMU TCG -icount, 3 GiB
# (the 1 GiB parent states), everything for every mechanism; the
# single-threaded measurements pinned to one vCPU (see bench/run.sh).
bench_vm ()
{
  local out=$1 quick=$2 timeout=7200
  [ -n "$quick" ] && timeout=900
  say "VM: the kernel with the series (build/$KERNEL_LINK), QEMU -icount (guest instruction clock)"
  if ! VM_MEM=${VM_MEM:-3G} bash scripts/vm.sh --icount --no-build --timeout "$timeout" -- \
       bash bench/run.sh --bin "$BENCH_BIN" --out "$out/vm.csv" --where vm \
	 --clock guest-insn --uring --pin $quick 2>&1 | tee "$out/vm.log"; then
    die "the VM run failed; log: $out/vm.log"
  fi
}

# The event loop (issue 39): examples/spawn-loop in the VM on the plain
# kernel under -icount, five ways of spawning, three parents
# (bench/loop.sh); loop.csv and loop.md (bench/loop-report.py).
bench_loop ()
{
  local out=$1 quick=$2 n=300 reps=3 timeout=7200
  [ -n "$quick" ] && n=100 reps=1 timeout=1800
  liburing_build
  say "VM: the event loop, $n spawns per run, $reps runs per row (QEMU -icount: guest instruction clock)"
  if ! VM_MEM=${VM_MEM:-3G} bash scripts/vm.sh --icount --no-build --timeout "$timeout" -- \
       sh bench/loop.sh "$TOP" "$out/loop.csv" "$n" "$reps" 2>&1 | tee "$out/loop.log"; then
    die "the event-loop run failed; log: $out/loop.log"
  fi
  python3 bench/loop-report.py "$out/loop.csv" "$n" > "$out/loop.md" \
    || { cat "$out/loop.md"; die "bench: a row of the event loop took the wrong path or failed ($out/loop.md)"; }
  cat "$out/loop.md"
}

# Which overlay the patched glibc was built from: glibc_build syncs the
# working tree's, committed or not.
bench_overlay ()
{
  local rev src=("$G_OVERLAY" "$G_HUNKS" "$G_SERIES")
  rev=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
  if git diff --quiet HEAD -- "${src[@]}" 2>/dev/null \
     && [ -z "$(git ls-files --others --exclude-standard "${src[@]}")" ]; then
    printf '%s, overlay of %s' "$GLIBC_VERSION" "$rev"
  else
    printf '%s, overlay of %s plus uncommitted changes' "$GLIBC_VERSION" "$rev"
  fi
}

# mmss SECONDS
mmss () { printf '%dm%02ds' $(( $1 / 60 )) $(( $1 % 60 )); }

# bench_part WHERE OUT QUICK OVERLAY: run one part (bench_host,
# bench_vm) and record in OUT/WHERE.meta when, how long and on what it
# ran; report.py puts those lines at the top of results.md.
bench_part ()
{
  local where=$1 out=$2 quick=$3 overlay=$4 t0 what mode=full
  [ -z "$quick" ] || mode=quick
  rm -f "$out/$where".*
  t0=$(date +%s)
  "bench_$where" "$out" "$quick"
  if [ "$where" = host ]; then
    what="native on $(uname -r), $(nproc) CPUs, wall clock"
  else
    what="VM: $(cat "build/$KERNEL_LINK/release" 2>/dev/null), QEMU TCG -icount shift=0, ${VM_SMP:-2} vCPUs, ${VM_MEM:-3G}, guest instruction clock"
  fi
  printf '%s part (%s): run %s, took %s by the host clock (%s); patched glibc: %s\n' \
    "$where" "$mode" "$(date -u +%Y-%m-%dT%H:%MZ)" \
    "$(mmss $(( $(date +%s) - t0 )))" "$what" "$overlay" > "$out/$where.meta"
  say "$(cat "$out/$where.meta")"
}

bench_main ()
{
  local quick= host=1 vm=1 out= mode=full build_only=0 loop_only=0
  while [ $# -gt 0 ]; do
    case $1 in
      --quick) quick=--quick; mode=quick ;;
      --host-only) vm=0 ;;
      --vm-only) host=0 ;;
      --loop-only) host=0 vm=0 loop_only=1 ;;
      --build-only) build_only=1 ;;
      -h|--help) bench_usage; return 0 ;;
      *) bench_usage >&2; die "bench: unknown argument '$1'" ;;
    esac
    shift
  done
  [ $host = 1 ] || [ $vm = 1 ] || [ $loop_only = 1 ] || die "bench: --host-only and --vm-only exclude each other"
  local results=bench/results quickdir=build/bench/quick t0 t1 overlay
  local title="uring-spawn benchmarks, v3"
  if [ -n "$quick" ]; then out=$TOP/$quickdir; else out=$TOP/$results; fi
  t0=$(date +%s)
  if [ $loop_only = 1 ]; then
    # The loop needs neither stock 2.44 (glibc's tunable gives its clone
    # path) nor the benchmark binaries.
    glibc_build
    kernel_build
  else
    bench_build
  fi
  [ $build_only = 1 ] && return 0
  overlay=$(bench_overlay)
  t1=$(date +%s)
  mkdir -p "$out"
  if [ $loop_only = 1 ]; then
    bench_part loop "$out" "$quick" "$overlay"
    return 0
  fi
  # A part not run now keeps its last results (host and VM may be run
  # apart: the VM's clock does not mind a busy host, the host's does).
  [ $host = 1 ] && bench_part host "$out" "$quick" "$overlay"
  [ $vm = 1 ] && bench_part vm "$out" "$quick" "$overlay"
  [ $vm = 1 ] && bench_part loop "$out" "$quick" "$overlay"
  rm -f "$out"/*.svg "$out"/*.dat
  python3 bench/report.py "$out" --title "$title ($mode run)" > /dev/null \
    || die "bench: the report failed"
  cat "$out/results.md"
  say "bench ($mode): $(mmss $(( $(date +%s) - t0 ))) in all, of which builds $(mmss $((t1 - t0))) (cached or not) and measuring $(mmss $(( $(date +%s) - t1 ))); results in ${out#"$TOP"/}/: results.md, host.csv, vm.csv, *.svg"
}
