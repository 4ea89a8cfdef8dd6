#!/bin/bash
# tests/kernel/compile-all.sh -- compile every test of the v3 suite on
# the host, with the flags lib/spawn.exp's kt_compile (and kt_host_test
# for spawn.abi) uses, against the v3 kernel's exported UAPI headers.
# Nothing is run.  A test that fails to build or prints any warning is
# reported; the exit status is the number of such tests (0: all clean).
#
#   bash tests/kernel/compile-all.sh [HDR [OUT]]
#
# HDR: the headers_install directory (default: the v3 kernel's,
# build/kernel/usr/include, or $KT_HEADERS); OUT: where the binaries
# go (default build/tests/kernel-compile).  The liburing series' tree
# is $KT_LIBURING (default build/liburing).
set -u
here=$(cd "$(dirname "$0")" && pwd)
hdr=${1:-${KT_HEADERS:-$here/../../build/kernel/usr/include}}
out=${2:-$here/../../build/tests/kernel-compile}
mkdir -p "$out"
if [ ! -f "$hdr/linux/io_uring.h" ]; then
  echo "no linux/io_uring.h in $hdr (make headers_install first)" >&2
  exit 100
fi
lu=${KT_LIBURING:-$here/../../build/liburing}
if [ ! -f "$lu/src/liburing.a" ]; then
  echo "no liburing series built in $lu (./build.sh liburing)" >&2
  exit 101
fi
bad=0 good=0
check () {			# NAME LOGFILE STATUS
  if [ "$3" -ne 0 ]; then
    echo "FAIL: $1: does not compile"; sed 's/^/    /' "$2" | head -20
    bad=$((bad + 1))
  elif [ -s "$2" ]; then
    echo "FAIL: $1: warnings"; sed 's/^/    /' "$2" | head -20
    bad=$((bad + 1))
  else
    echo "PASS: $1"
    good=$((good + 1))
  fi
}
for src in "$here"/spawn.*/*.c; do
  case $src in */spawn.abi/*) continue ;; esac
  name=$(basename "$src" .c)
  log="$out/$name.log"
  nice gcc -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall \
    -Werror=implicit-function-declaration -isystem "$hdr" -I "$here/lib" \
    -I "$lu/src/include" -o "$out/$name" "$src" "$lu/src/liburing.a" \
    -lpthread >"$log" 2>&1
  rc=$?
  check "$(basename "$(dirname "$src")")/$name.c" "$log" $rc
done
# spawn.abi: as kt_host_test builds it (glibc's copy without the kernel
# headers, the kernel side with them, then the main program).
abi=$here/spawn.abi
log="$out/abi.log"
{
  nice gcc -std=gnu11 -O2 -Wall -c -o "$out/abi-glibc.o" "$abi/abi-glibc.c" &&
  nice gcc -std=gnu11 -O2 -Wall -c -o "$out/abi-kernel.o" "$abi/abi-kernel.c" -isystem "$hdr" &&
  nice gcc -std=gnu11 -O2 -Wall -o "$out/abi" "$abi/abi-main.c" "$out/abi-glibc.o" "$out/abi-kernel.o"
} >"$log" 2>&1
rc=$?
check "spawn.abi/abi" "$log" $rc
echo "compile-all: $good passed, $bad failed"
exit $bad
