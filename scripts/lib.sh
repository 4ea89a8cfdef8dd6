# scripts/lib.sh -- helpers shared by build.sh and the scripts it runs.
# Sourced, never executed.  Everything here is bash.

# Where builds live.  Outside the clone so that a fresh clone (CI) on a
# warm machine reuses them; every directory below is keyed by a hash of
# the inputs that decide its contents.
CACHE=${URING_SPAWN_CACHE:-/var/cache/uring-spawn}
# One build at a time: the machines have two cores.  Every compile step
# (glibc, kernel, tests) runs under this lock.
BUILD_LOCK=$CACHE/.build.lock
JOBS=${JOBS:-3}

_t0=$(date +%s)

# Elapsed time since build.sh started, as "MmSSs".
elapsed ()
{
  local s=$(( $(date +%s) - _t0 ))
  printf '%dm%02ds' $((s / 60)) $((s % 60))
}

say ()  { printf '==> [%s] %s\n' "$(elapsed)" "$*"; }
warn () { printf 'build.sh: warning: %s\n' "$*" >&2; }
die ()  { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

# run_step LOG DESCRIPTION CMD...: run CMD with all output in LOG and
# print progress: a line when it starts, a heartbeat every 30 s with the
# log's last line, the time it took.  Returns CMD's status; on failure
# it has shown the tail of LOG and its path.
run_step ()
{
  local log=$1 what=$2; shift 2
  mkdir -p "$(dirname "$log")"
  local start=$(date +%s)
  say "$what (log: $log)"
  ( "$@" ) >"$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    local n=0
    while [ $n -lt 30 ] && kill -0 "$pid" 2>/dev/null; do
      sleep 1; n=$((n + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
      printf '    ... %s: %ds, %s\n' "$what" $(( $(date +%s) - start )) \
	"$(tail -n 1 "$log" | cut -c1-100)"
    fi
  done
  local rc=0
  wait "$pid" || rc=$?
  if [ $rc -ne 0 ]; then
    printf '\n--- last 30 lines of %s ---\n' "$log" >&2
    tail -n 30 "$log" | cut -c1-300 >&2
    printf -- '---\n%s: exit %d after %ds; full log: %s\n' "$what" $rc \
      $(( $(date +%s) - start )) "$log" >&2
    return $rc
  fi
  say "$what: done in $(( $(date +%s) - start ))s"
}

# step LOG DESCRIPTION CMD...: run_step, and stop at the first error.
step ()
{
  run_step "$@" || die "$2 failed; full log: $1"
}

# locked CMD...: run CMD holding the build lock.  A caller that holds it
# already around a whole run (flock $BUILD_LOCK env URING_SPAWN_LOCKED=1
# ./build.sh ..., so that a build and a VM never run at once) sets
# URING_SPAWN_LOCKED, and it is not taken again.
locked ()
{
  if [ -n "${URING_SPAWN_LOCKED:-}" ]; then
    "$@"
    return
  fi
  mkdir -p "$CACHE"
  if ! flock -n "$BUILD_LOCK" true; then
    echo "waiting for the build lock $BUILD_LOCK (another build is running)"
  fi
  flock "$BUILD_LOCK" "$@"
}

# need_packages PKG...: install the Debian packages that are missing.
need_packages ()
{
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' \
      || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    die "missing Debian packages: ${missing[*]}; run as root or: apt-get install ${missing[*]}"
  fi
  say "installing Debian packages: ${missing[*]}"
  local log=$CACHE/logs/apt.log
  mkdir -p "$(dirname "$log")"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	 "${missing[@]}" >"$log" 2>&1; then
    # A fresh machine has no package lists yet.
    DEBIAN_FRONTEND=noninteractive apt-get update >>"$log" 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      "${missing[@]}" >>"$log" 2>&1 \
      || { tail -n 20 "$log" >&2; die "apt-get install ${missing[*]} failed; log: $log"; }
  fi
}

# hash_of FILE-OR-STRING...: a short, stable hash of files' contents and
# literal strings, used to key cache directories.
hash_of ()
{
  local a
  for a in "$@"; do
    if [ -f "$a" ]; then sha256sum < "$a"; else printf '%s\n' "$a"; fi
  done | sha256sum | cut -c1-12
}
