# scripts/rootfs.sh -- debootstrapped Debian 12 (bookworm) roots, cached.
# Sourced by scripts/deb-test.sh and scripts/container.sh (after lib.sh).
#
#   rootfs_bookworm NAME [PACKAGE...]
#
# prints the path of a minbase bookworm root with PACKAGE... included and
# bookworm, bookworm-updates and bookworm-security in its APT sources
# (linux-source-6.12 comes from bookworm-security), upgraded from them,
# with APT's lists removed (as in Docker's debian images).  Cached as
# $CACHE/rootfs/NAME-KEY, KEY = hash of the recipe, the suite, the mirror
# and the packages; the downloaded .debs stay in $CACHE/rootfs/debs for
# the next debootstrap.  Remove the directory to get a fresh one (the
# mirror moves on).  debootstrap runs under the build lock.

ROOTFS_SUITE=bookworm
ROOTFS_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
ROOTFS_SECURITY=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
_ROOTFS_RECIPE=1

# locked_fn FUNCTION ARGS...: lib.sh's `locked` for a shell function
# (flock runs programs only): hold the build lock around it, unless the
# caller holds it already (URING_SPAWN_LOCKED).
locked_fn ()
{
  if [ -n "${URING_SPAWN_LOCKED:-}" ]; then
    "$@"
    return
  fi
  mkdir -p "$CACHE"
  (
    if ! flock -n 9; then
      echo "waiting for the build lock $BUILD_LOCK (another build is running)" >&2
      flock 9
    fi
    URING_SPAWN_LOCKED=1 "$@" 9>&-
  ) 9>"$BUILD_LOCK"
}

_rootfs_make ()
{
  local dir=$1; shift
  local inc
  # Made while we waited for the lock?
  [ -f "$dir/.uring-spawn-packages" ] && return 0
  inc=$(IFS=,; echo "$*")
  mkdir -p "$CACHE/rootfs/debs"
  # A killed debootstrap may leave its /proc and /sys mounted in there.
  rm -rf --one-file-system "$dir.tmp" "$dir" \
    || { echo "cannot remove $dir.tmp: unmount what is mounted in it" >&2; return 1; }
  debootstrap --variant=minbase ${inc:+--include="$inc"} \
    --cache-dir="$CACHE/rootfs/debs" "$ROOTFS_SUITE" "$dir.tmp" "$ROOTFS_MIRROR" \
    || return 1
  cat > "$dir.tmp/etc/apt/sources.list" <<EOF
deb $ROOTFS_MIRROR $ROOTFS_SUITE main
deb $ROOTFS_MIRROR $ROOTFS_SUITE-updates main
deb $ROOTFS_SECURITY $ROOTFS_SUITE-security main
EOF
  cp /etc/resolv.conf "$dir.tmp/etc/resolv.conf" 2>/dev/null || true
  chroot "$dir.tmp" env DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    sh -c 'apt-get update && apt-get -y upgrade && apt-get clean' || return 1
  rm -rf "$dir.tmp"/var/lib/apt/lists/* "$dir.tmp"/var/cache/apt/*.bin
  : > "$dir.tmp/etc/resolv.conf"
  chroot "$dir.tmp" dpkg-query -W -f='${Package} ${Version}\n' > "$dir.tmp/.uring-spawn-packages" \
    && mv "$dir.tmp" "$dir"
}

rootfs_bookworm ()
{
  local name=$1; shift
  local key dir
  key=$(hash_of "recipe $_ROOTFS_RECIPE" "$ROOTFS_SUITE" "$ROOTFS_MIRROR" \
		"$ROOTFS_SECURITY" "$*")
  dir=$CACHE/rootfs/$name-$key
  if [ ! -f "$dir/.uring-spawn-packages" ]; then
    need_packages debootstrap >&2
    step "$CACHE/logs/debootstrap-$name.log" \
      "debootstrap: a $ROOTFS_SUITE root ($name${*:+: + $*})" \
      locked_fn _rootfs_make "$dir" "$@" >&2
  fi
  printf '%s\n' "$dir"
}
