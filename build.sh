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
. scripts/liburing.sh

usage ()
{
  cat <<EOF
Usage: ./build.sh [COMMAND] [ARGS]

Commands:
  (none), all   build what check needs: glibc 2.44 with the series and
                the debug kernel with the kernel series; print where each
                artifact is
  glibc [--stock | --abis]
                extract Debian's glibc 2.44 (patches/sources.lock), apply
                the series (sysdeps-overlay/, tests/, patches/glibc/),
                build it to build/glibc; --stock: stock
                2.44, Debian's source as it is (build/glibc-stock);
                --abis: the series for i686 and x32, compile-only
                (libc6-dev-i386, libc6-dev-x32)
  kernel [--debug|--both|--mainline|--mainline-debug]
                build Debian's linux-source-7.3 with the series in
                patches/kernel/ (scripts/kernel.sh; see kernel/README.md):
                build/kernel (plain: the benchmarks), build/kernel-debug
                (lockdep, KASAN, kmemleak, fault injection: the tests);
                --mainline: the plain one without the series
                (build/kernel-mainline); --mainline-debug: the debug
                one without it (build/kernel-mainline-debug)
  kernel-each [--no-configs]
                the series on the files it touches less Debian's changes
                (kernel/debian-changes.diff: the mainline base), with no
                fuzz; each patch of the kernel series on its own:
                checkpatch, then patches 1..N applied and the objects
                patch N touches built; then the whole series without
                CONFIG_IO_URING and without CONFIG_AUDIT
                (scripts/kernel-each.sh)
  kernel-arches the series cross-compiled where its refusals cannot run
                here: x86_64 with XEN_PV, arm64 with GCS, mips64, i386
                (scripts/kernel-arches.sh)
  checked-on [host] [vm] [vm-off]
                the glibc cover letter's "Checked on" runs: the full make
                check of posix, stdlib, libio, nptl, elf and signal here
                (the clone path) and in the VM on the plain kernel with
                the series, with the tunable at 1 and at 0; hours (scripts/
                glibc-checked-on.sh; build/results/checked-on/)
  kselftests    mainline's kselftests for what the series touches (exec,
                clone3, pidfd, ptrace, seccomp from the 7.3 tree), built
                once, run in the VM on the plain kernel without the
                series and with it; a table of both results and the
                counts; fails if a test that passes without the series
                fails with it (scripts/kselftests.sh; build/results/
                kselftests/); kselftests --repeat C:P N runs one program
                N times on each kernel
  sources       fetch the bases pinned in patches/sources.lock (Debian
                experimental's linux-source-7.3 and glibc-source 2.44,
                sid's liburing source) into the cache, without touching
                the machine's APT configuration (scripts/sources.sh)
  liburing [--check]
                Debian's liburing 2.15 with the liburing series
                (patches/liburing/: prep helpers, the query, man pages,
                test/spawn.c) and examples/ built on it: build/liburing,
                build/examples (scripts/liburing.sh); --check: check's
                liburing part alone; --export [TREE]: write a tree's
                series (default build/liburing) to patches/liburing/
  liburing-suite [N]
                liburing's whole test suite in the VM, N runs (default
                3) on the plain kernel with the series and N without it;
                the table in kernel/results/ (scripts/liburing.sh)
  vm [--debug] [--icount] [--timeout S] [--dmesg-check] -- CMD ARGS...
                boot that kernel under QEMU, run CMD in it, return its
                status (scripts/vm.sh; also start/exec/stop for a
                persistent VM)
  check         all tests: the committed series is in sync and applies;
                glibc's posix/ tests and the spawn and popen users
                elsewhere (tst-spawn-uring included) on this machine's
                kernel; the spawn tests among them in the VM on the debug
                kernel, on both paths; the kernel suite (tests/kernel,
                DejaGnu) there; ends with the line "N passed, N failed"
  bench [--quick] [--host-only|--vm-only|--build-only]
                benchmarks (bench/): fork, vfork, stock 2.44 and patched
                posix_spawn, the raw io_uring chain, natively and in the
                VM under QEMU -icount on the plain kernel; CSV, table and
                plots in bench/results/ (--quick: build/bench/quick/);
                see bench/README.md
  patch         regenerate the glibc series from sysdeps-overlay/,
                tests/ and patches/glibc/: the posting, cover letter
                included, in patches/glibc/posix_spawn-io_uring.mbox,
                and its patches, one file each, for quilt, in
                patches/000N-posix_spawn-io_uring.patch
  posting [MBOX [OVERLAY]]
                what the glibc review asked of the posting and its text
                (RFC tags and cover, NEWS, "Checked on", the claims, the
                documented differences and costs) and the thread
                descriptor without the ring on i686 and x32; part of check
  deb, deb-test, container
                pending: Debian 13 packages and the container come in
                their own issue (v2's, for glibc 2.36, are at tag v2)
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
  kernel_build --debug
  liburing_build
  cat <<EOF

Artifacts:
  glibc source (patched)   $TOP/glibc -> $(readlink -f glibc)
  glibc build              $TOP/build/glibc -> $(readlink -f build/glibc)
  run a program with it    build/glibc/testrun.sh PROG [ARGS]
  the glibc series         patches/glibc/posix_spawn-io_uring.mbox
  liburing (series applied) build/liburing -> $(readlink -f build/liburing)
  kernel (series applied)  build/kernel-debug/bzImage (the plain one for
                           the benchmarks: ./build.sh kernel)
  run a command in it      ./build.sh vm --debug -- CMD [ARGS]
Run the tests with: ./build.sh check
EOF
}

# The counts of the last "[WORD: ]N passed, N failed" line in file $1.
counts_of ()
{
  sed -n 's/^\([a-z-]*: \)\{0,1\}\([0-9]*\) passed, \([0-9]*\) failed.*/\2 \3/p' "$1" \
    | tail -n 1
}

# cmd_check: every part runs, each prints "PART: N passed, N failed" and
# its results go to build/results; the last line is the total.
cmd_check ()
{
  local results=build/results p=0 f=0 np nf t0
  [ $# -eq 0 ] || die "usage: ./build.sh check"
  glibc_patch_check
  glibc_build
  mkdir -p "$results"
  export GLIBC_RESULTS=$TOP/$results
  t0=$(date +%s)
  say "the glibc posting and its documentation"
  glibc_posting_check | tee "$results/posting.summary" || true
  read -r np nf <<<"$(counts_of "$results/posting.summary")"
  p=$((p + ${np:-0})); f=$((f + ${nf:-1}))
  say "host: glibc's tests on this machine's kernel"
  glibc_check | tee "$results/host.summary" || true
  read -r np nf <<<"$(counts_of "$results/host.summary")"
  p=$((p + ${np:-0})); f=$((f + ${nf:-1}))
  kernel_build --debug
  say "host: glibc's constants against the series kernel's headers"
  glibc_consts_check "$TOP/build/kernel-debug/usr/include" | tee "$results/consts.summary" || true
  read -r np nf <<<"$(counts_of "$results/consts.summary")"
  p=$((p + ${np:-0})); f=$((f + ${nf:-1}))
  say "VM: glibc's spawn tests on the debug kernel with the series"
  glibc_check_vm | tee "$results/vm.summary" || true
  read -r np nf <<<"$(counts_of "$results/vm.summary")"
  p=$((p + ${np:-0})); f=$((f + ${nf:-1}))
  say "liburing: the series' pages and test, here and in the VM; examples/ in the VM"
  liburing_check 2>&1 | tee "$results/liburing.summary" || true
  read -r np nf <<<"$(counts_of "$results/liburing.summary")"
  p=$((p + ${np:-0})); f=$((f + ${nf:-1}))
  say "VM: the kernel suite on the debug kernel"
  bash scripts/check-kernel.sh 2>&1 | tee "$results/kernel.summary" || true
  read -r np nf <<<"$(counts_of "$results/kernel.summary")"
  p=$((p + ${np:-0})); f=$((f + ${nf:-1}))
  # The suite's detection test, built by it, on this machine's kernel,
  # where the same opcode numbers mean other operations.
  say "host: the spawn series must be detected as absent here ($(uname -r))"
  build/tests/kernel/detect --expect-absent 2>&1 | tee "$results/host-detect.log" || true
  np=$(grep -c '^PASS:' "$results/host-detect.log" || true)
  nf=$(grep -c '^FAIL:' "$results/host-detect.log" || true)
  [ "${np:-0}" -gt 0 ] || nf=$((nf + 1))
  p=$((p + np)); f=$((f + nf))
  say "the tests took $(( ($(date +%s) - t0) / 60 )) min"
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
  deb|deb-test|container)
	     die "$1: pending: Debian 13 packages and the container come in their own issue; v2's (glibc 2.36, Debian 12) are at git tag v2" ;;
  sources)   sources_main ;;
  liburing)  shift; case ${1:-} in
	       --check) liburing_check ;;
	       --export) shift; liburing_export "$@" ;;
	       '') liburing_build ;;
	       *) die "usage: ./build.sh liburing [--check | --export [TREE]]" ;;
	     esac ;;
  liburing-suite) shift; liburing_suite_main "$@" ;;
  kernel-each) shift; . scripts/kernel-each.sh; kernel_each_main "$@" ;;
  kernel-arches) shift; . scripts/kernel-arches.sh; kernel_arches_main "$@" ;;
  kselftests) shift; bash scripts/kselftests.sh "$@" ;;
  checked-on) shift; . scripts/glibc-checked-on.sh; checked_on_main "$@" ;;
  patch)     glibc_patch_write ;;
  posting)   shift; glibc_paths; glibc_extract "$PRISTINE"; glibc_posting_check "$@" ;;
  clean)     shift; cmd_clean "$@" ;;
  help|-h|--help) usage ;;
  *)         usage >&2; die "unknown command: $1" ;;
esac
