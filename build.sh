#!/usr/bin/env bash
# build.sh -- the single entry point of uring-spawn.  See ./build.sh --help.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$TOP"
. scripts/lib.sh
. scripts/glibc.sh

usage ()
{
  cat <<EOF
Usage: ./build.sh [COMMAND] [ARGS]

Commands:
  (none), all   build everything: the patched glibc (and, once the kernel
                series lands, the kernel); print where each artifact is
  glibc         extract Debian's glibc 2.36, apply the overlay, build it
  check         all tests: the committed patch is in sync, glibc's posix/
                tests and the spawn/exec users elsewhere, tst-spawn-uring;
                ends with the line "N passed, N failed"
  patch         regenerate patches/0001-posix_spawn-io_uring.patch from
                sysdeps-overlay/, tests/ and patches/glibc-hunks/
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
  cat <<EOF

Artifacts:
  glibc source (patched)   $TOP/glibc -> $(readlink -f glibc)
  glibc build              $TOP/build/glibc -> $(readlink -f build/glibc)
  run a program with it    build/glibc/testrun.sh PROG [ARGS]
  the glibc patch          patches/0001-posix_spawn-io_uring.patch
Run the tests with: ./build.sh check
EOF
}

cmd_check ()
{
  glibc_patch_check
  glibc_build
  glibc_check
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
  glibc)     glibc_build ;;
  check)     cmd_check ;;
  patch)     glibc_patch_write ;;
  clean)     shift; cmd_clean "$@" ;;
  help|-h|--help) usage ;;
  *)         usage >&2; die "unknown command: $1" ;;
esac
