# scripts/check-kernel.sh -- build the debug kernel, boot it, run the
# DejaGnu kernel suite (tests/kernel) in it and check its kernel log.
#
#   bash scripts/check-kernel.sh [--plain] [RUNTEST-ARGS...]
#
# --plain uses the plain kernel instead of the debug one (lockdep, KASAN).
# RUNTEST-ARGS go to runtest, e.g. basic.exp=nop.c to run one test.
# Results: build/results/spawn.sum and spawn.log (with KT_FUZZ also kept
# as spawn-fuzz-SEED.{log,sum}).  Exits non-zero if a
# test failed or was unresolved, or the guest's kernel log shows a report
# (BUG, WARNING, lockdep, KASAN, Oops...).  The last line is the totals:
#   kernel-tests: N passed, N failed, N skipped
_ck_here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$_ck_here/scripts/lib.sh"
. "$_ck_here/scripts/kernel.sh"
TOP=$_ck_here
. "$_ck_here/scripts/sources.sh"
. "$_ck_here/scripts/liburing.sh"

set -o pipefail
debug=--debug
suite=tests/kernel
if [ "${1:-}" = --plain ]; then debug=; shift; fi
# auditd for auditctl, which spawn.security's audit test runs in the
# guest (whose root is this machine's).
need_packages dejagnu gcc libc6-dev qemu-system-x86 python3 auditd

if [ -n "$debug" ]; then kernel_build --debug; else kernel_build; fi
# The tests are built on the liburing series (build/liburing).
liburing_build
kdir=$_ck_here/build/$KERNEL_LINK${debug:+-debug}

# One check at a time per clone: runs share build/results.
results=$_ck_here/build/results
mkdir -p "$results"
exec 7>"$results/.lock"
if ! flock -n 7; then
  say "waiting for another check-kernel.sh run in this clone ($results/.lock)"
  flock 7
fi

export VM_NAME=${VM_NAME:-check-$$}
vm=(bash "$_ck_here/scripts/vm.sh")
"${vm[@]}" stop >/dev/null 2>&1
t0=$(date +%s)
"${vm[@]}" start $debug --no-build || die "the test VM did not start"
trap '"${vm[@]}" stop' EXIT
say "VM up in $(( $(date +%s) - t0 ))s"

export KT_VM=exec KT_HEADERS=$kdir/usr/include
[ -n "$debug" ] && export KT_DEBUG=1
rc=0
say "running the kernel tests (runtest --tool spawn; results in $results)"
(cd "$_ck_here/$suite" && runtest --tool spawn --outdir "$results" "$@") || rc=$?

dmesg_rc=0
"${vm[@]}" dmesg --check || dmesg_rc=$?

sum=$results/spawn.sum
# A fuzzer run's log (its errno counts) would be overwritten by the next.
if [ -n "${KT_FUZZ:-}" ]; then
  keep=$results/spawn-fuzz-${KT_FUZZ_SEED:-default}
  cp "$results/spawn.log" "$keep.log" && cp "$sum" "$keep.sum"
  say "fuzzer log kept as $keep.log"
fi
count () { sed -n "s/^# of $1[[:space:]]*\([0-9]*\)$/\1/p" "$sum" | head -n 1; }
pass=$(count 'expected passes'); fail=$(count 'unexpected failures')
unres=$(count 'unresolved testcases'); unsup=$(count 'unsupported tests')
xpass=$(count 'unexpected successes'); xfail=$(count 'expected failures')
untested=$(count 'untested testcases')
printf '\n'
sed -n '/=== spawn Summary ===/,$p' "$sum"
[ "$dmesg_rc" -eq 0 ] || say "guest kernel log check FAILED"
nfail=$(( ${fail:-0} + ${unres:-0} + ${xpass:-0} + (dmesg_rc != 0) ))
nskip=$(( ${unsup:-0} + ${untested:-0} + ${xfail:-0} ))
printf 'kernel-tests: %d passed, %d failed, %d skipped\n' "${pass:-0}" "$nfail" "$nskip"
[ $rc -eq 0 ] && [ $dmesg_rc -eq 0 ] && [ "$nfail" -eq 0 ] && [ "${pass:-0}" -gt 0 ]
