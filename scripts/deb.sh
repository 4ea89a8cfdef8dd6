# scripts/deb.sh -- Debian's own glibc packages, built with our patches,
# the way a distribution maintainer would; and the cheap drift check
# that ./build.sh check runs.  Sourced by build.sh after lib.sh,
# glibc.sh and kernel.sh:
#
#   ./build.sh deb [--biarch | --prepare-only [DIR]]
#                               deb_main: .debs under build/deb/
#   deb_drift_check             (cmd_check) the patches still apply as the
#                               last entries of Debian's series, the kernel
#                               series to linux-source-6.12; no build
#
# The source: Debian's glibc-source package, /usr/src/glibc: the tarball
# is the tree with Debian's quilt series already applied (and no .pc/),
# debian/ beside it.  We unpack the tree, put debian/ into it, split our
# mbox (patches/0001-posix_spawn-io_uring.patch, two git format-patch
# mails) into two quilt patches under debian/patches/any/, append them to
# debian/patches/series, record Debian's series as applied in .pc/ (what
# dpkg-source -x would have left) and let quilt push ours; so
# dpkg-source --before-build (run by dpkg-buildpackage) finds every patch
# applied, and a maintainer's quilt pop/push works on ours.  A changelog
# entry +uringspawn1 names the versions used.  Then
# dpkg-buildpackage -b -uc -us under the build lock.
#
# Cache: $CACHE/deb/KEY/glibc-2.36 (the tree) and $CACHE/deb/KEY/out-FLAVOUR
# (the .debs), KEY = hash of the tarball, debian/, our patch and the recipe.
# build/deb/ then holds copies of the .debs (build/deb/biarch/ for --biarch),
# build/versions.txt the versions used.

DEB_SRC_DIR=${DEB_SRC_DIR:-/usr/src/glibc}
DEB_TARBALL=$DEB_SRC_DIR/glibc-2.36.tar.xz
# Our two patches, in order, as they go into debian/patches/.
DEB_PATCH_NAMES=(any/local-posix_spawn-clone-path.patch
		 any/local-posix_spawn-io_uring.patch)
DEB_SUFFIX=+uringspawn1
DEB_PROFILES="nobiarch noudeb"
DEB_OPTIONS="nocheck parallel=2"
# Bump when the way the tree is prepared or built changes.
_DEB_RECIPE=1

_deb_here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$_deb_here/scripts/rootfs.sh"

# deb_pkg_version PKG: the installed version of a Debian package, or
# "not-installed".
deb_pkg_version ()
{
  dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo not-installed
}

# deb_split_patches DIR: our mbox split into its two mails, written to
# DIR/<name> for the names in DEB_PATCH_NAMES.
deb_split_patches ()
{
  local dir=$1 tmp n i
  tmp=$(mktemp -d)
  n=$(git mailsplit -o"$tmp" "$_deb_here/patches/$PATCH_NAME") \
    || { rm -rf "$tmp"; die "git mailsplit patches/$PATCH_NAME failed"; }
  if [ "$n" != "${#DEB_PATCH_NAMES[@]}" ]; then
    rm -rf "$tmp"
    die "patches/$PATCH_NAME holds $n mails; scripts/deb.sh expects ${#DEB_PATCH_NAMES[@]} (update DEB_PATCH_NAMES)"
  fi
  for i in "${!DEB_PATCH_NAMES[@]}"; do
    mkdir -p "$dir/$(dirname "${DEB_PATCH_NAMES[$i]}")"
    cp "$tmp/$(printf '%04d' $((i + 1)))" "$dir/${DEB_PATCH_NAMES[$i]}"
  done
  rm -rf "$tmp"
}

# _deb_series_entries SERIES: the patch names of a quilt series file.
_deb_series_entries ()
{
  sed -e 's/[[:space:]]*#.*//' -e '/^[[:space:]]*$/d' -e 's/[[:space:]].*//' "$1"
}

# deb_prepare TREE: Debian's source tree with our patches as a maintainer
# adds them.  Prints nothing on stdout.
deb_prepare ()
{
  local tree=$1 base ver_glibc ver_linux
  [ -f "$DEB_TARBALL" ] && [ -d "$DEB_SRC_DIR/debian" ] \
    || die "$DEB_TARBALL or $DEB_SRC_DIR/debian missing (package glibc-source)"
  rm -rf "$tree" "$tree.tmp"
  mkdir -p "$tree.tmp"
  tar -C "$tree.tmp" --strip-components=1 -xJf "$DEB_TARBALL" \
    || die "cannot unpack $DEB_TARBALL"
  cp -a "$DEB_SRC_DIR/debian" "$tree.tmp/debian"
  (
    cd "$tree.tmp" || exit 1
    # Debian's series is applied in the tarball already: record it as
    # applied, as dpkg-source -x leaves it (quilt needs no backups of
    # patches it will not pop).
    # (errexit does not hold in this subshell: it is the left side of ||.)
    mkdir -p .pc \
      && _deb_series_entries debian/patches/series > .pc/applied-patches \
      && echo 2 > .pc/.version \
      && echo debian/patches > .pc/.quilt_patches \
      && echo series > .pc/.quilt_series || exit 1
    local p
    for p in "${DEB_PATCH_NAMES[@]}"; do
      if grep -qxF "$p" .pc/applied-patches; then
	echo "debian/patches/series already lists $p" >&2; exit 1
      fi
    done
    deb_split_patches debian/patches \
      && printf '%s\n' "${DEB_PATCH_NAMES[@]}" >> debian/patches/series || exit 1
    # No fuzz, as dpkg-source applies patches.
    QUILT_PATCHES=debian/patches quilt --quiltrc debian/quiltrc push -a --fuzz=0 \
      || { echo "quilt push of our patches failed" >&2; exit 1; }
    # The changelog entry.
    base=$(dpkg-parsechangelog -S Version) && [ -n "$base" ] || exit 1
    ver_glibc=$(deb_pkg_version glibc-source)
    ver_linux=$(deb_pkg_version linux-source-6.12)
    {
      printf 'glibc (%s%s) bookworm; urgency=medium\n\n' "$base" "$DEB_SUFFIX"
      printf '  * posix_spawn through io_uring spawn chains (uring-spawn):\n'
      printf '    - debian/patches/%s: linux: Make\n' "${DEB_PATCH_NAMES[0]}"
      printf "      posix_spawn's clone path cheaper (clone3, CLONE_CLEAR_SIGHAND).\n"
      printf '    - debian/patches/%s: linux:\n' "${DEB_PATCH_NAMES[1]}"
      printf '      posix_spawn through io_uring spawn chains; tunable\n'
      printf '      glibc.spawn.io_uring (1: use them where the kernel can, 0: never).\n'
      printf '  * Built from glibc-source %s; the kernel series was\n' "$ver_glibc"
      printf '    tested on linux-source-6.12 %s.\n\n' "$ver_linux"
      printf ' -- uring-spawn developers <dev@uring-spawn.invalid>  %s\n\n' "$(date -R)"
      cat debian/changelog
    } > debian/changelog.new && mv debian/changelog.new debian/changelog || exit 1
    [ "$(dpkg-parsechangelog -S Version)" = "$base$DEB_SUFFIX" ] || exit 1
  ) || die "preparing the Debian source tree in $tree.tmp failed"
  mv "$tree.tmp" "$tree"
}

# deb_key: the cache key of the Debian build.
deb_key ()
{
  local dsum
  dsum=$(cd "$DEB_SRC_DIR" && find debian -type f | sort | xargs sha256sum | sha256sum)
  hash_of "recipe $_DEB_RECIPE" "$(kernel_tarball_hash 2>/dev/null || true)" \
    "$DEB_TARBALL" "$dsum" "$_deb_here/patches/$PATCH_NAME"
}

# deb_record_versions [FILE]: write the versions used to FILE (default
# build/versions.txt).
deb_record_versions ()
{
  local file=${1:-$_deb_here/build/versions.txt}
  mkdir -p "$(dirname "$file")"
  {
    printf 'glibc-source %s\n' "$(deb_pkg_version glibc-source)"
    printf 'linux-source-6.12 %s\n' "$(deb_pkg_version linux-source-6.12)"
    printf 'glibc-patch %s %s\n' "$PATCH_NAME" \
      "$(sha256sum < "$_deb_here/patches/$PATCH_NAME" | cut -c1-12)"
    local p
    for p in $(kernel_patches); do
      printf 'kernel-patch %s %s\n' "${p##*/}" "$(sha256sum < "$p" | cut -c1-12)"
    done
    [ -n "${DEB_VERSION:-}" ] && printf 'deb %s\n' "$DEB_VERSION"
    printf 'recorded %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } > "$file"
}

# _deb_dpkg_buildpackage TREE PROFILES EXTRA-ARGS...: run under the lock.
_deb_dpkg_buildpackage ()
{
  local tree=$1 profiles=$2; shift 2
  # A -nc pass reuses the tree: clean its packaging under the lock.
  if [ "${1:-}" = -nc ]; then
    _deb_forget_packaging "$tree" || return 1
  fi
  cd "$tree" && env DEB_BUILD_PROFILES="$profiles" DEB_BUILD_OPTIONS="$DEB_OPTIONS" \
    dpkg-buildpackage -b -uc -us "$@"
}

# _deb_lib_is_ours DIR DEB: the libc.so.6 and ld.so of package DEB (any
# of the flavours), unpacked in DIR, are ours, without running them:
# ld.so names the tunable glibc.spawn.io_uring, and libc.so.6 makes the
# io_uring_setup system call (425 on i386 and x86-64, x32's 0x400001a9),
# which Debian's own libc never makes.  Prints the reason when not.
_deb_lib_is_ours ()
{
  local dir=$1 name libc ld
  name=$(basename "$2")
  libc=$(find "$dir" -name libc.so.6 -type f -print -quit)
  ld=$(find "$dir" \( -name 'ld-linux*.so.2' -o -name ld.so \) -type f -print -quit)
  if [ -z "$libc" ] || [ -z "$ld" ]; then
    echo "$name has no libc.so.6 or ld.so"
  elif ! grep -aqF glibc.spawn.io_uring "$ld"; then
    echo "the ld.so of $name does not know the tunable glibc.spawn.io_uring: not our patch"
  elif ! objdump -d --no-show-raw-insn "$libc" | grep -E 'mov +\$0x(40000)?1a9,%eax' > /dev/null; then
    echo "the libc.so.6 of $name never calls io_uring_setup: not our patch"
  else
    return 0
  fi
  return 1
}

# deb_verify DEBDIR: the built libc6 (and libc6-i386, libc6-x32 when
# built) is ours; the amd64 ld.so lists the tunable and a posix_spawn
# through the new libc works on this machine.
deb_verify ()
{
  local dir=$1 tmp lib i why
  shopt -s nullglob
  local debs=("$dir"/libc6_*_amd64.deb "$dir"/libc6-i386_*.deb "$dir"/libc6-x32_*.deb)
  shopt -u nullglob
  [ ${#debs[@]} -gt 0 ] && [[ ${debs[0]} == */libc6_*_amd64.deb ]] \
    || die "no libc6 .deb in $dir"
  # Each package unpacked in tmp/N; tmp/0 is libc6 itself.
  tmp=$(mktemp -d)
  for i in "${!debs[@]}"; do
    dpkg-deb -x "${debs[$i]}" "$tmp/$i" \
      || { rm -rf "$tmp"; die "cannot unpack ${debs[$i]}"; }
    why=$(_deb_lib_is_ours "$tmp/$i" "${debs[$i]}") \
      || { rm -rf "$tmp"; die "$why"; }
  done
  lib=$tmp/0/lib/x86_64-linux-gnu
  [ -d "$lib" ] || lib=$tmp/0/usr/lib/x86_64-linux-gnu
  if ! env -i "$lib/ld-linux-x86-64.so.2" --library-path "$lib" --list-tunables \
       | grep '^glibc\.spawn\.io_uring:' > "$dir/tunable.txt"; then
    rm -rf "$tmp"
    die "the built libc6 (${debs[0]}) does not list the tunable glibc.spawn.io_uring"
  fi
  # A posix_spawn through the new libc on this machine (the clone path
  # here unless this kernel has the series), with the tunable set.
  local out
  out=$(env -i GLIBC_TUNABLES=glibc.spawn.io_uring=1 "$lib/ld-linux-x86-64.so.2" \
	  --library-path "$lib" /usr/bin/python3 -c \
	  'import subprocess; print(subprocess.run(["/bin/echo", "spawned"], close_fds=False, capture_output=True, text=True).stdout.strip())' 2>&1) \
    || { rm -rf "$tmp"; die "python3 on the built libc6 failed: $out"; }
  [ "$out" = spawned ] || { rm -rf "$tmp"; die "python3 on the built libc6 said: $out"; }
  rm -rf "$tmp"
  say "verified: ours in $(for i in "${debs[@]}"; do basename "$i" | cut -d_ -f1; done | tr '\n' ' ')(tunable, io_uring_setup); $(cat "$dir/tunable.txt"); posix_spawn works through it"
}

# _deb_forget_packaging TREE: forget the packages an earlier pass made in
# TREE (debian/PKG/, debhelper's snippets and state, the binaryinst
# stamps) and keep what it built, so that a -nc pass packs every
# package again from a clean slate (dh_installman refuses to find its
# own compressed manual pages of the last pass, and debhelper would
# append its maintainer-script snippets a second time).
_deb_forget_packaging ()
{
  local tree=$1 p
  (
    cd "$tree" || exit 1
    for p in $(sed -n 's/^Package: //p' debian/control); do
      rm -rf "debian/$p" "debian/$p.substvars" "debian/$p.debhelper.log" \
	     debian/"$p".*.debhelper
    done
    rm -rf debian/.debhelper stamp-dir/binaryinst_*
  )
}

# deb_build [--biarch]: build the packages (or reuse them).
deb_build ()
{
  local flavour=nobiarch profiles=$DEB_PROFILES extra=()
  if [ "${1:-}" = --biarch ]; then
    # i386 and x32 as well (libc6-i386, libc6-x32); in the same tree, so
    # the amd64 pass already built is reused (-nc: no clean first).
    flavour=biarch profiles=noudeb extra=(-nc)
  fi
  need_packages glibc-source linux-source-6.12 dpkg-dev quilt git
  local key dir tree out dest
  key=$(deb_key)
  dir=$CACHE/deb/$key
  tree=$dir/glibc-2.36
  out=$dir/out-$flavour
  dest=$_deb_here/build/deb
  [ $flavour = biarch ] && dest=$dest/biarch
  if [ ! -f "$out/.done" ]; then
    if [ ! -f "$tree/.uring-spawn-prepared" ]; then
      say "preparing Debian's glibc source with our patches in $tree"
      deb_prepare "$tree"
      touch "$tree/.uring-spawn-prepared"
    fi
    DEB_VERSION=$(cd "$tree" && dpkg-parsechangelog -S Version)
    say "Debian's series + ours: $(cd "$tree" && QUILT_PATCHES=debian/patches quilt --quiltrc debian/quiltrc applied 2>/dev/null | tail -n 2 | tr '\n' ' ')"
    say "installing the build dependencies (apt-get build-dep, profiles: $profiles)"
    local log=$dir/build-dep-$flavour.log
    if ! DEBIAN_FRONTEND=noninteractive DEB_BUILD_PROFILES="$profiles" \
	 apt-get build-dep -y --no-install-recommends "$tree" > "$log" 2>&1; then
      DEBIAN_FRONTEND=noninteractive apt-get update >> "$log" 2>&1 || true
      DEBIAN_FRONTEND=noninteractive DEB_BUILD_PROFILES="$profiles" \
	apt-get build-dep -y --no-install-recommends "$tree" >> "$log" 2>&1 \
	|| { tail -n 20 "$log" >&2; die "apt-get build-dep failed; log: $log"; }
    fi
    rm -f "$dir"/*.deb "$dir"/*.changes "$dir"/*.buildinfo
    local t0
    t0=$(date +%s)
    say "dpkg-buildpackage -b -uc -us ${extra[*]} (DEB_BUILD_PROFILES=\"$profiles\" DEB_BUILD_OPTIONS=\"$DEB_OPTIONS\"); a cold build takes about half an hour"
    step "$dir/dpkg-buildpackage-$flavour.log" "dpkg-buildpackage ($flavour)" \
      locked_fn _deb_dpkg_buildpackage "$tree" "$profiles" "${extra[@]}"
    local secs=$(( $(date +%s) - t0 ))
    rm -rf "$out" && mkdir -p "$out"
    mv "$dir"/*.deb "$dir"/*.changes "$dir"/*.buildinfo "$out/"
    cp "$dir/dpkg-buildpackage-$flavour.log" "$out/"
    printf '%s\n' "$secs" > "$out/build-seconds"
    printf '%s\n' "$DEB_VERSION" > "$out/version"
    touch "$out/.done"
    say "dpkg-buildpackage ($flavour) took ${secs}s (lock wait included)"
  fi
  DEB_VERSION=$(cat "$out/version")
  # Files only: build/deb/biarch/ stays when the amd64 flavour is copied.
  mkdir -p "$dest" && find "$dest" -maxdepth 1 -type f -delete
  cp "$out"/*.deb "$out"/*.changes "$out/build-seconds" "$out/version" "$dest/"
  deb_verify "$dest"
  deb_record_versions
  say "deb ($flavour): $(ls "$dest"/*.deb | wc -l) packages of glibc $DEB_VERSION in build/deb${dest#$_deb_here/build/deb} (built in $(cat "$out/build-seconds")s); versions in build/versions.txt"
}

# The cheap check for ./build.sh check: do our two patches still apply,
# with quilt's strictness (no fuzz), as the last entries of the series
# of the glibc-source installed here, and does the kernel series still
# apply to the linux-source-6.12 installed here?  Seconds, no build.
deb_drift_check ()
{
  local vg vl tmp f i p out tested
  glibc_paths
  [ -f "$KERNEL_TARBALL" ] || need_packages linux-source-6.12
  vg=$(deb_pkg_version glibc-source)
  vl=$(deb_pkg_version linux-source-6.12)
  glibc_extract "$PRISTINE"
  tmp=$(mktemp -d)
  mkdir -p "$tmp/patches" "$tmp/glibc"
  deb_split_patches "$tmp/patches"
  for p in "${DEB_PATCH_NAMES[@]}"; do
    if _deb_series_entries "$DEB_SRC_DIR/debian/patches/series" | grep -qxF "$p"; then
      rm -rf "$tmp"
      die "drift: Debian's glibc-source $vg already has $p in debian/patches/series: rename ours (DEB_PATCH_NAMES in scripts/deb.sh)"
    fi
  done
  # Copies of the files the patches touch, from the tarball (Debian's
  # series applied), then each patch in turn, as quilt pushes them.
  for f in $(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$tmp"/patches/any/*.patch | sort -u); do
    if [ -f "$PRISTINE/$f" ]; then
      mkdir -p "$tmp/glibc/$(dirname "$f")" && cp "$PRISTINE/$f" "$tmp/glibc/$f"
    fi
  done
  for i in "${!DEB_PATCH_NAMES[@]}"; do
    p=${DEB_PATCH_NAMES[$i]}
    if ! out=$(patch -p1 -F0 -N --no-backup-if-mismatch -d "$tmp/glibc" \
		 < "$tmp/patches/$p" 2>&1); then
      printf '%s\n' "$out" | grep -v '^patching file' | head -n 20 >&2
      rm -rf "$tmp"
      die "drift: patch $((i + 1))/2 (debian/patches/$p) no longer applies after Debian's series of glibc-source $vg; update the patch against this glibc-source"
    fi
  done
  rm -rf "$tmp"
  say "drift: our 2 glibc patches apply (no fuzz) as the last entries of Debian's series (glibc-source $vg)"
  # The kernel series, on copies of the files it touches.
  local th src top
  mapfile -t _deb_kp < <(kernel_patches)
  [ -f "$KERNEL_TARBALL" ] || die "drift: $KERNEL_TARBALL missing (package linux-source-6.12)"
  th=$(kernel_tarball_hash)
  src=$CACHE/kernel/src-$th
  tmp=$(mktemp -d)
  if [ -f "$src/.done" ]; then
    while IFS= read -r f; do
      [ -f "$src/$f" ] && mkdir -p "$tmp/$(dirname "$f")" && cp "$src/$f" "$tmp/$f"
    done < <(_kernel_patch_files "${_deb_kp[@]}")
  else
    # Not unpacked yet: take just those files out of the tarball.
    top=$( (tar -tJf "$KERNEL_TARBALL" 2>/dev/null || true) | head -n 1 | cut -d/ -f1)
    _kernel_patch_files "${_deb_kp[@]}" | sed "s|^|$top/|" > "$tmp/.files"
    tar -C "$tmp" -xJf "$KERNEL_TARBALL" --strip-components=1 \
      --ignore-failed-read -T "$tmp/.files" 2>/dev/null || true
    rm -f "$tmp/.files"
  fi
  for p in "${_deb_kp[@]}"; do
    if ! out=$(cd "$tmp" && GIT_CEILING_DIRECTORIES=${tmp%/*} git apply -p1 \
		 --whitespace=nowarn "$p" 2>&1); then
      printf '%s\n' "$out" | head -n 20 >&2
      rm -rf "$tmp"
      die "drift: kernel patch ${p##*/} no longer applies to linux-source-6.12 $vl (after the patches before it); rebase patches/kernel/ on it"
    fi
  done
  rm -rf "$tmp"
  say "drift: the kernel series (${#_deb_kp[@]} patches) applies to linux-source-6.12 $vl"
  # The versions the distribution builds were last verified with.
  tested=$_deb_here/docker/tested-versions
  if [ -f "$tested" ]; then
    local tg tl
    tg=$(sed -n 's/^glibc-source //p' "$tested")
    tl=$(sed -n 's/^linux-source-6.12 //p' "$tested")
    if [ "$tg" != "$vg" ] || [ "$tl" != "$vl" ]; then
      say "drift: NOTE: ./build.sh deb, deb-test and container were last verified with glibc-source $tg and linux-source-6.12 $tl; this machine has $vg and $vl (the patches still apply; rerun them)"
    fi
  fi
}

deb_main ()
{
  case "${1:-}" in
    '') deb_build ;;
    --biarch) deb_build --biarch ;;
    --prepare-only)
      # Unpack and patch the tree into DIR/glibc-2.36 (default
      # build/deb-src/) and stop (no build dependencies, no build): what
      # a maintainer would get.  Never replace a tree of the user's.
      local tree=$_deb_here/build/deb-src/glibc-2.36
      if [ -n "${2:-}" ]; then
	case $2 in
	  /*) tree=$2/glibc-2.36 ;;
	  *) tree=${CALLER_PWD:-$PWD}/$2/glibc-2.36 ;;
	esac
	[ -e "$tree" ] && die "$tree exists: remove it or give another DIR"
      fi
      deb_prepare "$tree"
      say "prepared $tree ($(cd "$tree" && dpkg-parsechangelog -S Version))" ;;
    *) die "usage: ./build.sh deb [--biarch | --prepare-only [DIR]]" ;;
  esac
}
