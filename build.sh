#!/usr/bin/env bash
# build.sh -- the single entry point of uring-spawn.  See ./build.sh --help.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Where the user ran us: paths given on the command line are relative to it.
CALLER_PWD=$PWD
cd "$TOP"
. scripts/lib.sh
. scripts/glibc.sh
. scripts/kernel.sh
. scripts/sources.sh

usage ()
{
  cat <<EOF
Usage: ./build.sh [COMMAND] [ARGS]

Commands:
  (none), all   build everything: the patched glibc and the test kernels
                (plain and debug); print where each artifact is
  glibc [--v3 | --v3-stock]
                extract Debian's glibc 2.36, apply the overlay, build it;
                --v3: glibc 2.44 with the v3 series in progress
                (build/glibc-v3); --v3-stock: stock 2.44, Debian's source
                as it is (build/glibc-v3-stock)
  kernel [--v3] [--debug|--both]
                build the kernel with the series in patches/kernel/
                (scripts/kernel.sh; see kernel/README.md); --v3: the v3
                series in progress, patches/kernel-v3/ on Debian's
                linux-source-7.3, to build/kernel-v3[-debug]
  kernel-each [--no-configs]
                each patch of the v3 series on its own: checkpatch, then
                patches 1..N applied and the objects patch N touches
                built; then the whole series without CONFIG_IO_URING and
                without CONFIG_AUDIT (scripts/kernel-each.sh)
  sources       fetch the v3 bases pinned in patches/sources.lock (Debian
                experimental's linux-source-7.3 and glibc-source 2.44)
                into the cache, without touching the machine's APT
                configuration (scripts/sources.sh)
  vm [--debug] [--icount] [--timeout S] [--dmesg-check] -- CMD ARGS...
                boot that kernel under QEMU, run CMD in it, return its
                status (scripts/vm.sh; also start/exec/stop for a
                persistent VM)
  check [--v3]  all tests: the committed patch is in sync and applies,
                glibc's posix/ tests and the spawn/exec users elsewhere
                (tst-spawn-uring included) on this machine's kernel, and
                the kernel suite (tests/kernel, DejaGnu) in the VM on the
                debug kernel; ends with the line "N passed, N failed";
                --v3: the same for the v3 series (glibc 2.44, Linux 7.3,
                tests/kernel-v3; results in build/results-v3)
  bench [--v3] [--quick] [--host-only|--vm-only]
                benchmarks (bench/): fork, vfork, stock and patched
                posix_spawn, the raw io_uring chain, natively and in the
                VM under QEMU -icount; CSV, table and plots in
                bench/results/ (--quick: build/bench/quick/); --v3: the
                v3 kernel and glibc 2.44 + v3 against stock 2.44, in
                bench/results-v3/ (build/bench-v3/quick/); see
                bench/README.md
  deb [--biarch | --prepare-only [DIR]]
                Debian's own glibc packages with our two patches added to
                debian/patches/series (scripts/deb.sh): dpkg-buildpackage
                -b, .debs in build/deb/ (--biarch: with libc6-i386 and
                libc6-x32, in build/deb/biarch/); about half an hour cold;
                --prepare-only: the patched source tree alone, in
                DIR/glibc-2.36 (default build/deb-src/)
  deb-test [--keep] [--stock-only]
                a debootstrapped bookworm root with those .debs installed,
                booted on the series kernel: make, Python, gawk, dpkg,
                apt... compared with a stock root, io_uring spawns counted
                per program (scripts/deb-test.sh); --stock-only: the
                harness on Debian's libc6 alone; --keep: keep the roots
  container [--build-only]
                docker/Dockerfile built with buildah on a debootstrapped
                bookworm base, then its default command (./build.sh
                check) run in it (scripts/container.sh)
  patch [--v3]  regenerate patches/0001-posix_spawn-io_uring.patch from
                sysdeps-overlay/, tests/ and patches/glibc-hunks/; --v3:
                patches/glibc-v3/posix_spawn-io_uring.mbox, the v3 series
                on 2.44, from sysdeps-overlay-v3/, tests/glibc-v3/ and
                patches/glibc-v3/
  clean         remove build/ and glibc/ from the clone (the cache in
                \$URING_SPAWN_CACHE stays; "clean --all" removes it too)
  help          this text

Environment:
  URING_SPAWN_CACHE  where builds are cached (default /var/cache/uring-spawn)
  JOBS               make parallelism (default 3)
EOF
}

cmd_all ()
{
  glibc_build
  kernel_build
  kernel_build --debug
  cat <<EOF

Artifacts:
  glibc source (patched)   $TOP/glibc -> $(readlink -f glibc)
  glibc build              $TOP/build/glibc -> $(readlink -f build/glibc)
  run a program with it    build/glibc/testrun.sh PROG [ARGS]
  the glibc patch          patches/0001-posix_spawn-io_uring.patch
  kernel (series applied)  build/kernel/bzImage, debug: build/kernel-debug/bzImage
  run a command in it      ./build.sh vm -- CMD [ARGS]
Run the tests with: ./build.sh check
EOF
}

# The counts of the last "[WORD: ]N passed, N failed" line in file $1.
counts_of ()
{
  sed -n 's/^\([a-z-]*: \)\{0,1\}\([0-9]*\) passed, \([0-9]*\) failed.*/\2 \3/p' "$1" \
    | tail -n 1
}

# cmd_check [--v3]: v2, or (--v3) the v3 series until it replaces v2:
# glibc 2.44 with sysdeps-overlay-v3/, Linux 7.3 with patches/kernel-v3/,
# tests/kernel-v3/; results in build/results-v3.
cmd_check ()
{
  local results=build/results p=0 f=0 np nf v3=
  if [ "${1:-}" = --v3 ]; then
    v3=--v3 results=build/results-v3
    glibc_use_v3
    kernel_use_v3
    export VM_V3=1 GLIBC_RESULTS=$TOP/$results
  else
    # Drift first: when Debian's glibc-source changes under the patch,
    # that is the diagnosis, not "the patch is stale".  (v3's packages
    # are pending.)
    . scripts/deb.sh && deb_drift_check
  fi
  glibc_patch_check
  glibc_build
  mkdir -p "$results"
  say "host: glibc's tests on this machine's kernel"
  glibc_check | tee "$results/host.summary" || true
  read -r np nf <<<"$(counts_of "$results/host.summary")"
  p=$((p + ${np:-0})); f=$((f + ${nf:-1}))
  say "VM: glibc's tests on the kernel with the series"
  kernel_build
  glibc_check_vm | tee "$results/vm.summary" || true
  read -r np nf <<<"$(counts_of "$results/vm.summary")"
  p=$((p + ${np:-0})); f=$((f + ${nf:-1}))
  say "VM: the kernel suite on the debug kernel"
  bash scripts/check-kernel.sh $v3 2>&1 | tee "$results/kernel.summary" || true
  read -r np nf <<<"$(counts_of "$results/kernel.summary")"
  p=$((p + ${np:-0})); f=$((f + ${nf:-1}))
  # The suite's detection test, built by it, on this machine's kernel,
  # where the same opcode numbers mean other operations.
  say "host: the spawn series must be detected as absent here ($(uname -r))"
  build/tests/kernel${v3:+-v3}/detect --expect-absent 2>&1 | tee "$results/host-detect.log" || true
  np=$(grep -c '^PASS:' "$results/host-detect.log" || true)
  nf=$(grep -c '^FAIL:' "$results/host-detect.log" || true)
  [ "${np:-0}" -gt 0 ] || nf=$((nf + 1))
  p=$((p + np)); f=$((f + nf))
  printf '%d passed, %d failed\n' "$p" "$f"
  [ "$f" -eq 0 ]
}

cmd_clean ()
{
  rm -rf build glibc
  if [ "${1:-}" = --all ]; then
    rm -rf "$CACHE"
  fi
  say "clean: done"
}

case "${1:-all}" in
  all)       cmd_all ;;
  glibc)     shift; glibc_main "$@" ;;
  kernel)    shift; bash scripts/kernel.sh "$@" ;;
  vm)        shift; exec bash scripts/vm.sh "$@" ;;
  check)     shift; cmd_check "$@" ;;
  bench)     shift; . scripts/bench.sh; bench_main "$@" ;;
  deb)       shift; . scripts/deb.sh; deb_main "$@" ;;
  deb-test)  shift; . scripts/deb.sh; . scripts/deb-test.sh; debtest_main "$@" ;;
  container) shift; . scripts/container.sh; container_main "$@" ;;
  sources)   sources_main ;;
  kernel-each) shift; . scripts/kernel-each.sh; kernel_each_main "$@" ;;
  patch)     shift; [ "${1:-}" = --v3 ] && glibc_use_v3; glibc_patch_write ;;
  clean)     shift; cmd_clean "$@" ;;
  help|-h|--help) usage ;;
  *)         usage >&2; die "unknown command: $1" ;;
esac
