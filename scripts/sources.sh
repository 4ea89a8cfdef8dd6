# scripts/sources.sh -- the bases (Linux 7.3, glibc 2.44), fetched from Debian's experimental
# suite without touching the machine's APT configuration.  Sourced by
# build.sh after scripts/lib.sh; `./build.sh sources` runs sources_main.
#
# patches/sources.lock names, for each base, the Debian package, the
# version the series was tested on and the sha256 of that .deb:
#
#   PACKAGE VERSION SHA256 PATH-IN-PACKAGE
#   src:SOURCE VERSION SHA256 FILE
#
# The second form is a source package (liburing, which ships no
# -source .deb) from $SOURCES_SRC_SUITE: FILE is its upstream tarball,
# kept with the .dsc in $CACHE/sources/src/ and checked as a .deb is.
#
# The .debs are kept in $CACHE/sources/debs/ (experimental drops old
# versions, so the cache is the only copy) and unpacked once into
# $CACHE/sources/PACKAGE_VERSION/.  On a machine without the pinned .deb
# the archive's current version is taken: with the pinned version and a
# different hash the build stops (the archive changed what a version
# is); with another version it warns loudly and goes on, and only a
# series that stops applying or building fails.
#
# The private APT state (sources list, lists, archives) lives in
# $CACHE/sources/apt/: apt-get update and download only, never install.

SOURCES_LOCK=$TOP/patches/sources.lock
SOURCES_DIR=$CACHE/sources
SOURCES_MIRROR=${SOURCES_MIRROR:-http://deb.debian.org/debian}
SOURCES_SUITE=experimental
SOURCES_SRC_SUITE=sid

# _sources_apt_in DIR [apt-cache] ARGS...: apt-get (or apt-cache) on the
# private APT state in DIR: its lists, its archives, no other sources.
_sources_apt_in ()
{
  local a=$1 tool=apt-get
  shift
  case $1 in apt-cache) tool=apt-cache; shift ;; esac
  "$tool" -q -o Dir::Etc::SourceList="$a/sources.list" \
    -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$a/lists" \
    -o Dir::Cache="$a/cache" -o Dir::Cache::archives="$a/cache/archives" "$@"
}

# _sources_apt_init_in DIR TYPE SUITE WHAT LOG: DIR's sources.list is
# "TYPE ... SUITE main" (deb or deb-src); its lists are refreshed at most
# once a day.
_sources_apt_init_in ()
{
  local a=$1 type=$2 suite=$3 what=$4 log=$5
  mkdir -p "$a/lists/partial" "$a/cache/archives/partial" || die "cannot create $a"
  printf '%s [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
    "$type" "$SOURCES_MIRROR" "$suite" > "$a/sources.list"
  local stamp=$a/lists/.updated
  if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
    step "$CACHE/logs/$log" "reading Debian $suite's $what (private APT state in $a)" \
      _sources_apt_in "$a" update
    touch "$stamp"
  fi
}

# The private apt-get for the binary packages of $SOURCES_SUITE.
_sources_apt () { _sources_apt_in "$SOURCES_DIR/apt" "$@"; }

_sources_apt_init ()
{
  _sources_apt_init_in "$SOURCES_DIR/apt" deb "$SOURCES_SUITE" "package lists" sources-apt.log
}

# The lock's line for PACKAGE: "VERSION SHA256 PATH".
_sources_locked ()
{
  awk -v p="$1" '$1 == p { print $2, $3, $4 }' "$SOURCES_LOCK"
}

# sources_get PACKAGE: print the path of the pinned (or, failing that,
# the current) version's tarball, unpacked from the package.  Callers
# take it with $(...): the progress lines go to stderr.
sources_get ()
{
  _sources_fetch "$1" >&2 || exit 1
  printf '%s\n' "$SOURCES_GOT"
}

# _sources_fetch PACKAGE: download and unpack; set SOURCES_GOT.
_sources_fetch ()
{
  local pkg=$1 ver sum path deb got
  read -r ver sum path <<<"$(_sources_locked "$pkg")"
  [ -n "$ver" ] || die "$pkg is not in $SOURCES_LOCK"
  case $pkg in
    src:*) _sources_fetch_src "${pkg#src:}" "$ver" "$sum" "$path"; return ;;
  esac
  mkdir -p "$SOURCES_DIR/debs"
  deb=$SOURCES_DIR/debs/${pkg}_$(printf '%s' "$ver" | sed 's/:/%3a/')_all.deb
  if [ ! -f "$deb" ]; then
    need_packages debian-archive-keyring
    _sources_apt_init
    local have
    have=$(_sources_apt_policy "$pkg")
    [ -n "$have" ] || die "$pkg: Debian $SOURCES_SUITE has no such package (see $CACHE/logs/sources-apt.log)"
    if [ "$have" != "$ver" ]; then
      _sources_warn_newer "$pkg" "$ver" "$have"
      ver=$have sum=
      deb=$SOURCES_DIR/debs/${pkg}_$(printf '%s' "$ver" | sed 's/:/%3a/')_all.deb
    fi
    if [ ! -f "$deb" ]; then
      step "$CACHE/logs/sources-$pkg.log" "downloading $pkg $ver from Debian $SOURCES_SUITE" \
	_sources_download "$pkg" "$ver" "$deb"
    fi
  fi
  got=$(sha256sum < "$deb" | cut -d' ' -f1)
  if [ -n "$sum" ] && [ "$sum" != - ] && [ "$got" != "$sum" ]; then
    die "$deb: sha256 $got, but $SOURCES_LOCK records $sum for $pkg $ver: these are not the bytes the series was tested on (a damaged cache, or the archive changed what this version is); find out which before you remove the file and fetch it again"
  fi
  local dir=$SOURCES_DIR/${pkg}_$ver
  if [ ! -f "$dir/.done" ]; then
    rm -rf "$dir" "$dir.tmp"
    step "$CACHE/logs/sources-$pkg.log" "unpacking $pkg $ver" \
      dpkg-deb -x "$deb" "$dir.tmp"
    [ -e "$dir.tmp/$path" ] || die "$pkg $ver has no $path"
    printf '%s %s %s\n' "$pkg" "$ver" "$got" > "$dir.tmp/.done" && mv "$dir.tmp" "$dir" \
      || die "cannot create $dir"
  fi
  SOURCES_GOT=$dir/$path
}

# The newest version of PACKAGE in the suite (the private lists only:
# the version installed here, if any, does not count).
_sources_apt_policy ()
{
  _sources_apt apt-cache madison "$1" 2>/dev/null \
    | awk -F' [|] ' -v s="$SOURCES_SUITE/" 'index($3, s) && $3 ~ /Packages/ { gsub(/ /, "", $2); print $2; exit }' || true
}

_sources_download ()
{
  local pkg=$1 ver=$2 deb=$3
  ( cd "$SOURCES_DIR/debs" && _sources_apt download "$pkg=$ver" ) || return 1
  # apt-get download names the file itself; find it by package and version.
  local f
  f=$(ls -t "$SOURCES_DIR"/debs/"${pkg}"_*_all.deb 2>/dev/null | head -n 1)
  [ -n "$f" ] || return 1
  [ "$f" = "$deb" ] || mv -f "$f" "$deb"
}

# _sources_in_dir DIR CMD...: CMD in DIR (step runs it in a subshell).
_sources_in_dir () { cd "$1" && shift && "$@"; }

# _sources_fetch_src SOURCE VERSION SHA256 FILE: the upstream tarball of
# a source package, checked; set SOURCES_GOT to its path.
_sources_fetch_src ()
{
  local src=$1 ver=$2 sum=$3 file=$4 dir=$SOURCES_DIR/src have got
  local a=$SOURCES_DIR/apt-$SOURCES_SRC_SUITE-src
  mkdir -p "$dir" || die "cannot create $dir"
  if [ ! -f "$dir/$file" ]; then
    need_packages debian-archive-keyring dpkg-dev
    _sources_apt_init_in "$a" deb-src "$SOURCES_SRC_SUITE" "source lists" sources-apt-src.log
    have=$(_sources_apt_in "$a" apt-cache showsrc "$src" 2>/dev/null \
	     | awk '/^Version:/ { print $2 }' | sort -V | tail -n 1)
    [ -n "$have" ] || die "$src: Debian $SOURCES_SRC_SUITE has no such source package (see $CACHE/logs/sources-apt-src.log)"
    if [ "$have" != "$ver" ]; then
      _sources_warn_newer "$src" "$ver" "$have"
      file=${src}_${have%-*}.orig.tar.${file##*.orig.tar.}
      ver=$have sum=
    fi
    step "$CACHE/logs/sources-$src.log" "downloading the source package $src $ver from Debian $SOURCES_SRC_SUITE" \
      _sources_in_dir "$dir" _sources_apt_in "$a" source --download-only "$src=$ver"
    [ -f "$dir/$file" ] || die "$src $ver: no $file in $dir (see $CACHE/logs/sources-$src.log)"
  fi
  got=$(sha256sum < "$dir/$file" | cut -d' ' -f1)
  if [ -n "$sum" ] && [ "$got" != "$sum" ]; then
    die "$dir/$file: sha256 $got, but $SOURCES_LOCK records $sum for $src $ver: these are not the bytes the series was tested on; find out why before you remove the file and fetch it again"
  fi
  SOURCES_GOT=$dir/$file
}

_sources_warn_newer ()
{
  local pkg=$1 want=$2 have=$3 i
  for i in 1 2 3; do
    printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' >&2
  done
  cat >&2 <<EOF
build.sh: WARNING: $pkg $want, the version the series was tested on
  ($SOURCES_LOCK), is not in the cache, and Debian $SOURCES_SUITE now has
  $have: building on $have instead.  The series may not apply or may
  behave differently; if it builds and passes, record $have and its sha256
  in $SOURCES_LOCK.
EOF
  printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' >&2
}

# ./build.sh sources: fetch and unpack every base in the lock, print
# where each tarball is.
sources_main ()
{
  local pkg where
  for pkg in $(awk '!/^#/ && NF { print $1 }' "$SOURCES_LOCK"); do
    where=$(sources_get "$pkg") || exit 1
    say "$pkg: $where"
  done
}
