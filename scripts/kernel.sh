# scripts/kernel.sh -- build the uring-spawn test kernel.
#
#   bash scripts/kernel.sh [--debug | --both | --mainline | --mainline-debug]
#   (or sourced by build.sh, which then calls: kernel_build [--debug])
#
# Debian's linux-source-7.3 (pinned in patches/sources.lock, fetched by
# scripts/sources.sh) + patches/kernel/0*.patch (in order, the cover
# letter excluded) + kernel/test/0*.patch (test-only aids, compiled only
# where debug.fragment enables them) + kernel/config.fragment
# [+ kernel/debug.fragment] -> a bzImage and the installed UAPI headers.
#
#   build/kernel/bzImage            plain kernel
#   build/kernel/usr/include        its `make headers_install` (patched
#                                   <linux/io_uring.h> for the tests)
#   build/kernel-debug/...          the same for --debug (lockdep, KASAN)
#   build/kernel-mainline/...       --mainline: the same tarball and
#                                   config.fragment as the plain kernel,
#                                   without the series (the kselftests'
#                                   reference, scripts/kselftests.sh)
#   build/kernel-mainline-debug/... --mainline-debug: the debug kernel's
#                                   configuration without the series (the
#                                   reference of scripts/boot-kasan.sh)
#
# build/kernel and build/kernel-debug are symlinks to
# $CACHE/kernel/out-KEY, KEY = hash(tarball, patches, fragments, variant):
# a re-run with nothing changed only re-points the symlink.
#
# Layout in $CACHE/kernel:
#   src-T/           the tarball T, extracted once, never modified
#   tree-T/          hard-linked copy of src-T with the current series
#                    applied; a file the series touches is replaced, never
#                    written in place, so src-T stays pristine.  When the
#                    series changes, only the files touched by the old or
#                    the new series are rewritten, so the builds below
#                    are incremental.
#   tree-T-mainline/ the same for --mainline: no patch applied
#   obj-T-plain/, obj-T-debug/, obj-T-mainline/   kbuild output
#                    directories (make O=)
#   out-KEY/         bzImage, config, System.map, usr/include, build.log
# The tree and obj directories are used under $CACHE/kernel/.tree.lock;
# every compile runs under the global build lock ($BUILD_LOCK).

_kernel_here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# build.sh has sourced lib.sh already (keep its clock running).
declare -F step >/dev/null || . "$_kernel_here/scripts/lib.sh"

# Set by kernel_tarball (patches/sources.lock) unless given.
KERNEL_TARBALL=${KERNEL_TARBALL:-}
# The series applied to it, and what build/kernel* is called for it.
KERNEL_SERIES_DIR=${KERNEL_SERIES_DIR:-$_kernel_here/patches/kernel}
KERNEL_LINK=${KERNEL_LINK:-kernel}
# The configuration: tinyconfig + this (+ the debug one for --debug).
KERNEL_TEST_PATCH_DIR=${KERNEL_TEST_PATCH_DIR:-$_kernel_here/kernel/test}
KERNEL_FRAGMENT=${KERNEL_FRAGMENT:-$_kernel_here/kernel/config.fragment}
KERNEL_DEBUG_FRAGMENT=${KERNEL_DEBUG_FRAGMENT:-$_kernel_here/kernel/debug.fragment}

# Point KERNEL_TARBALL at the pinned linux-source-7.3 (fetched on first
# use), unless it is set already.
kernel_tarball ()
{
  [ -n "$KERNEL_TARBALL" ] && return 0
  [ -n "${TOP:-}" ] || TOP=$_kernel_here
  declare -F sources_get >/dev/null || . "$_kernel_here/scripts/sources.sh"
  KERNEL_TARBALL=$(sources_get linux-source-7.3) || exit 1
}
# Bump when the way a kernel is configured or built changes.
_KERNEL_RECIPE=4

# The tarball's hash, remembered by path, size and mtime (hashing 150 MB
# takes a second).
kernel_tarball_hash ()
{
  local id memo
  kernel_tarball
  id=$(stat -c '%n %s %Y' "$KERNEL_TARBALL") || die "$KERNEL_TARBALL not found"
  memo=$CACHE/kernel/tarball-$(hash_of "$id")
  if [ -f "$memo" ]; then cat "$memo"; return; fi
  local h
  h=$(hash_of "$KERNEL_TARBALL")
  mkdir -p "$CACHE/kernel" && printf '%s\n' "$h" > "$memo.$$" && mv "$memo.$$" "$memo"
  printf '%s\n' "$h"
}

# The series: patches/kernel/0*.patch in order, without the cover letter.
kernel_patches ()
{
  local p
  for p in "$KERNEL_SERIES_DIR"/0*.patch; do
    [ -f "$p" ] || continue
    case ${p##*/} in
      0000-*|*cover-letter*) continue ;;
    esac
    printf '%s\n' "$p"
  done
}

# What the test kernels add after the series (kernel/test/*.patch, not
# part of it): debugging aids the tests use, each compiled only where a
# fragment enables it (debug.fragment), so the plain kernel's code is the
# series' own.
kernel_test_patches ()
{
  local p
  for p in "$KERNEL_TEST_PATCH_DIR"/0*.patch; do
    [ -f "$p" ] && printf '%s\n' "$p"
  done
}

# Files a patch touches (both sides of every diff, /dev/null excepted).
_kernel_patch_files ()
{
  sed -n -e 's|^--- a/\([^[:space:]]*\).*|\1|p' \
	 -e 's|^+++ b/\([^[:space:]]*\).*|\1|p' \
	 -e 's|^rename from \(.*\)|\1|p' -e 's|^rename to \(.*\)|\1|p' \
	 -e 's|^copy to \(.*\)|\1|p' "$@" | sort -u
}

# The fragments of a variant, in order.
_kernel_frags ()
{
  local variant=$1
  echo "$KERNEL_FRAGMENT"
  case $variant in
    debug) echo "$KERNEL_DEBUG_FRAGMENT" ;;
    mainline-debug)
      # Without the series' own options, which mainline does not have.
      mkdir -p "$CACHE/kernel"
      grep -v '^CONFIG_IO_URING_SPAWN' "$KERNEL_DEBUG_FRAGMENT" \
	> "$CACHE/kernel/mainline-debug.fragment"
      echo "$CACHE/kernel/mainline-debug.fragment" ;;
  esac
}

# Print the cache key of a variant (plain|debug|mainline|mainline-debug;
# mainline is plain without the series, mainline-debug debug without it).
kernel_key ()
{
  local variant=$1 frags
  mapfile -t frags < <(_kernel_frags "$variant")
  local patches=()
  case $variant in
    mainline*) ;;
    *) mapfile -t patches < <(kernel_patches; kernel_test_patches) ;;
  esac
  # The fragments' options, not their comments: a comment edit rebuilds
  # nothing.
  hash_of "recipe $_KERNEL_RECIPE" "variant $variant" "$(kernel_tarball_hash)" \
    "${patches[@]}" "$(_kernel_requested "${frags[@]}")"
}

# Extract the tarball once.  Caller holds the tree lock.
_kernel_extract ()
{
  local src=$1
  [ -f "$src/.done" ] && return 0
  rm -rf "$src" "$src.tmp"
  mkdir -p "$src.tmp"
  step "$CACHE/logs/kernel-extract.log" "extracting ${KERNEL_TARBALL##*/}" \
    tar -C "$src.tmp" -xf "$KERNEL_TARBALL"
  local top
  top=$(ls "$src.tmp")
  [ "$(printf '%s\n' "$top" | wc -l)" -eq 1 ] \
    || die "unexpected layout of $KERNEL_TARBALL"
  mv "$src.tmp/$top" "$src" && rmdir "$src.tmp" && touch "$src/.done"
}

# Bring tree-T to "pristine + the current series" (with a third
# argument "none": to pristine, no patch).  Caller holds the lock.
_kernel_sync_tree ()
{
  local src=$1 tree=$2
  if [ ! -f "$tree/.uring-spawn-tree" ]; then
    say "creating the kernel work tree $tree"
    rm -rf "$tree"
    cp -al "$src" "$tree.tmp" && rm -f "$tree.tmp/.done" \
      && : > "$tree.tmp/.uring-spawn-tree" && : > "$tree.tmp/.uring-spawn-files" \
      && mv "$tree.tmp" "$tree" || die "cannot create $tree"
  fi
  local patches=()
  [ "${3:-}" = none ] || mapfile -t patches < <(kernel_patches; kernel_test_patches)
  local want
  want=$(hash_of "${patches[@]}" "n=${#patches[@]}")
  if [ "$(cat "$tree/.uring-spawn-tree")" = "$want" ]; then
    return 0
  fi
  say "applying ${#patches[@]} kernel patch(es) to the work tree"
  local tmp=$CACHE/kernel/apply.tmp new_files old_files f
  rm -rf "$tmp" && mkdir -p "$tmp"
  new_files=
  if [ ${#patches[@]} -gt 0 ]; then
    new_files=$(_kernel_patch_files "${patches[@]}")
  fi
  old_files=$(cat "$tree/.uring-spawn-files")
  # Apply the series to copies of just the files it touches.
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    if [ -f "$src/$f" ]; then
      mkdir -p "$tmp/$(dirname "$f")" && cp "$src/$f" "$tmp/$f" || die "copying $f"
    fi
  done <<< "$new_files"
  local p out
  for p in "${patches[@]}"; do
    if ! out=$(cd "$tmp" && GIT_CEILING_DIRECTORIES=$CACHE git apply -p1 \
		 --whitespace=nowarn "$p" 2>&1); then
      printf '%s\n' "$out" >&2
      die "kernel patch ${p#$_kernel_here/} does not apply to ${KERNEL_TARBALL##*/} (after the patches before it)"
    fi
  done
  # Every file touched by the old or the new series: take its new
  # content (from $tmp, or pristine), replace it only if it differs.
  local n=0
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    local from=
    if grep -qxF -- "$f" <<< "$new_files"; then
      [ -f "$tmp/$f" ] && from=$tmp/$f
    else
      [ -f "$src/$f" ] && from=$src/$f
    fi
    if [ -z "$from" ]; then
      [ -e "$tree/$f" ] && { rm -f "$tree/$f"; n=$((n + 1)); }
    elif ! cmp -s "$from" "$tree/$f"; then
      mkdir -p "$tree/$(dirname "$f")"
      cp "$from" "$tree/$f.uring-spawn-new" && mv -f "$tree/$f.uring-spawn-new" "$tree/$f" \
	|| die "updating $tree/$f"
      n=$((n + 1))
    fi
  done < <(printf '%s\n%s\n' "$new_files" "$old_files" | sort -u)
  printf '%s\n' "$new_files" | sed '/^$/d' > "$tree/.uring-spawn-files"
  printf '%s\n' "$want" > "$tree/.uring-spawn-tree"
  rm -rf "$tmp"
  say "kernel work tree: $n file(s) changed"
}

# Options a fragment asks for, as the lines .config must contain.
_kernel_requested ()
{
  sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' \
	 -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/# \1 is not set/p' "$@"
}

# Check .config against the fragments: last request for a symbol wins.
_kernel_verify_config ()
{
  local config=$1; shift
  local bad=() line sym
  declare -A want=()
  local order=()
  while IFS= read -r line; do
    sym=${line#\# }; sym=${sym%%=*}; sym=${sym%% *}
    [ -n "${want[$sym]+x}" ] || order+=("$sym")
    want[$sym]=$line
  done < <(_kernel_requested "$@")
  for sym in "${order[@]}"; do
    line=${want[$sym]}
    case $line in
      '# '*)
	grep -q "^$sym=" "$config" && bad+=("$sym (wanted off, got $(grep "^$sym=" "$config" | cut -d= -f2-))") ;;
      *)
	if ! grep -qxF -- "$line" "$config"; then
	  local got
	  got=$(grep "^$sym=" "$config" | cut -d= -f2-)
	  bad+=("$sym (wanted ${line#*=}, got ${got:-not set})")
	fi ;;
    esac
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf '  %s\n' "${bad[@]}" >&2
    die "make olddefconfig dropped or changed ${#bad[@]} requested kernel option(s) (listed above; a dependency is missing); config: $config"
  fi
}

# kernel_build [--debug|--mainline|--mainline-debug]: build (or reuse) a
# variant and point build/kernel[-debug|-mainline|-mainline-debug] at it.
kernel_build ()
{
  local variant=plain
  case ${1:-} in
    --debug|--mainline|--mainline-debug) variant=${1#--} ;;
  esac
  local link=$_kernel_here/build/$KERNEL_LINK
  [ $variant = plain ] || link=$link-$variant
  kernel_tarball
  [ -f "$KERNEL_TARBALL" ] || die "$KERNEL_TARBALL not found"
  local key out th
  th=$(kernel_tarball_hash)
  key=$(kernel_key $variant)
  out=$CACHE/kernel/out-$key
  if [ ! -f "$out/.done" ]; then
    need_packages build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils git \
      rsync
    mkdir -p "$CACHE/kernel" "$CACHE/logs"
    exec 8>"$CACHE/kernel/.tree.lock"
    if ! flock -n 8; then
      say "waiting for another kernel build ($CACHE/kernel/.tree.lock)"
      flock 8
    fi
    # Someone else may have built it meanwhile.
    if [ ! -f "$out/.done" ]; then
      _kernel_build_locked "$variant" "$th" "$out"
    fi
    exec 8>&-
  fi
  mkdir -p "$(dirname "$link")"
  ln -sfn "$out" "$link.new" && mv -T "$link.new" "$link" || die "cannot update $link"
  say "kernel ($variant): $link -> $out ($(cat "$out/release"))"
}

# _kernel_configure OBJ NFRAGS FRAG... MAKE...: tinyconfig, then the
# fragments appended (a later line for a symbol wins), then olddefconfig.
_kernel_configure ()
{
  local obj=$1 n=$2; shift 2
  local frags=("${@:1:$n}"); shift "$n"
  "$@" tinyconfig && cat "${frags[@]}" >> "$obj/.config" && "$@" olddefconfig
}

# _kernel_make_timed FILE MAKE...: run MAKE under the build lock and write
# the seconds it took (lock wait excluded) to FILE.
_kernel_make_timed ()
{
  local tfile=$1; shift
  mkdir -p "$CACHE"
  (
    if [ -z "${URING_SPAWN_LOCKED:-}" ] && ! flock -n 9; then
      echo "(waiting for the build lock $BUILD_LOCK)"
      flock 9
    fi
    s=$(date +%s)
    "$@" 9>&-
    rc=$?
    echo $(( $(date +%s) - s )) > "$tfile"
    exit $rc
  ) 9>"$BUILD_LOCK"
}

_kernel_build_locked ()
{
  local variant=$1 th=$2 out=$3
  local src=$CACHE/kernel/src-$th tree=$CACHE/kernel/tree-$th
  local obj=$CACHE/kernel/obj-$th-$variant
  local log=$CACHE/logs/kernel-$variant.log
  local t0=$(date +%s)
  _kernel_extract "$src"
  case $variant in
    mainline*)
      _kernel_sync_tree "$src" "$tree-mainline" none
      tree=$tree-mainline ;;
    *) _kernel_sync_tree "$src" "$tree" ;;
  esac
  mkdir -p "$obj"
  local frags
  mapfile -t frags < <(_kernel_frags "$variant")
  local mk=(make -C "$tree" O="$obj" ARCH=x86_64 -j"$JOBS")
  # tinyconfig, then our fragments on top, then fill in the defaults.
  step "$CACHE/logs/kernel-$variant-config.log" "configuring the $variant kernel" \
    _kernel_configure "$obj" "${#frags[@]}" "${frags[@]}" "${mk[@]}"
  _kernel_verify_config "$obj/.config" "${frags[@]}"
  step "$log" "building the $variant kernel (bzImage)" \
    _kernel_make_timed "$obj/.make-seconds" "${mk[@]}" bzImage
  local tb
  tb=$(cat "$obj/.make-seconds")
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  # Copying headers, not compiling: no need to queue for the lock.
  step "$CACHE/logs/kernel-$variant-headers.log" "installing the $variant kernel's UAPI headers" \
    "${mk[@]}" headers_install INSTALL_HDR_PATH="$out.tmp/usr"
  cp "$obj/arch/x86/boot/bzImage" "$obj/System.map" "$out.tmp/" \
    && cp "$obj/.config" "$out.tmp/config" \
    && cp "$log" "$out.tmp/build.log" \
    && cat "$obj/include/config/kernel.release" > "$out.tmp/release" \
    && printf '%s\n' "$tb" > "$out.tmp/build-seconds" \
    || die "cannot collect the kernel build outputs"
  touch "$out.tmp/.done"
  rm -rf "$out" && mv "$out.tmp" "$out"
  say "$variant kernel $(cat "$out/release"): make took ${tb}s (lock wait excluded), $(( $(date +%s) - t0 ))s in all"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -eo pipefail
  case "${1:-}" in
    '') kernel_build ;;
    --debug) kernel_build --debug ;;
    --both) kernel_build && kernel_build --debug ;;
    --mainline|--mainline-debug) kernel_build "$1" ;;
    -h|--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "usage: bash scripts/kernel.sh [--debug | --both | --mainline | --mainline-debug]" ;;
  esac
fi
