#!/usr/bin/env bash
# scripts/check-v3.sh -- what ./build.sh check runs, for the v3 series
# (glibc 2.44 with sysdeps-overlay-v3/, Linux 7.3 with
# patches/kernel-v3/), until v3 replaces v2 there.  Results go to
# build/results-v3.  The last line is "N passed, N failed".
#
#   bash scripts/check-v3.sh [--no-kernel-suite]
#
# --no-kernel-suite leaves out the DejaGnu suite on the debug kernel
# (bash scripts/check-kernel.sh --v3 runs it alone).
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP"
. scripts/lib.sh
. scripts/glibc.sh
. scripts/kernel.sh
. scripts/sources.sh

suite=1
[ "${1:-}" = --no-kernel-suite ] && suite=0

glibc_use_v3
kernel_use_v3
export VM_V3=1
export GLIBC_RESULTS=$TOP/build/results-v3
results=$GLIBC_RESULTS
mkdir -p "$results"
p=0 f=0

# add SUMMARY: the counts of its last "[WORD: ]N passed, N failed" line.
add ()
{
  local np nf
  read -r np nf <<<"$(sed -n 's/^\([a-z-]*: \)\{0,1\}\([0-9]*\) passed, \([0-9]*\) failed.*/\2 \3/p' "$1" | tail -n 1)"
  p=$((p + ${np:-0})); f=$((f + ${nf:-1}))
}

glibc_patch_check
glibc_build
say "host: glibc 2.44's tests on this machine's kernel (v3)"
glibc_check | tee "$results/host.summary" || true
add "$results/host.summary"
say "VM: glibc 2.44's tests on the v3 kernel, both paths"
kernel_build
glibc_check_vm | tee "$results/vm.summary" || true
add "$results/vm.summary"
if [ "$suite" = 1 ]; then
  say "VM: the v3 kernel suite on the v3 debug kernel"
  bash scripts/check-kernel.sh --v3 2>&1 | tee "$results/kernel.summary" || true
  add "$results/kernel.summary"
  # The suite's detection test, built by it, on this machine's kernel.
  say "host: the spawn series must be detected as absent here ($(uname -r))"
  build/tests/kernel-v3/detect --expect-absent 2>&1 \
    | tee "$results/host-detect.log" || true
  np=$(grep -c '^PASS:' "$results/host-detect.log" || true)
  nf=$(grep -c '^FAIL:' "$results/host-detect.log" || true)
  [ "${np:-0}" -gt 0 ] || nf=$((nf + 1))
  p=$((p + np)); f=$((f + nf))
fi
printf '%d passed, %d failed\n' "$p" "$f"
[ "$f" -eq 0 ]
