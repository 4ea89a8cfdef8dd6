# scripts/glibc.sh -- the glibc half of build.sh: sources, patch, build,
# tests.  Sourced by build.sh after scripts/lib.sh.

# Debian experimental's glibc-source 2.44 (patches/sources.lock, fetched
# by scripts/sources.sh); glibc_paths sets GLIBC_TARBALL.
GLIBC_VERSION=2.44
# What the patch is made of (see glibc_desired), and where builds link.
G_OVERLAY=sysdeps-overlay
G_TESTS=tests/glibc
# The series' main test, where the project's layout puts it.
G_TEST_MAIN=tests/tst-spawn-uring.c
G_HUNKS=patches/glibc/hunks
G_SERIES=patches/glibc/series
G_BASE=patches/glibc/overlay-base.sha256
G_LINK=glibc
GLIBC_PACKAGES=(build-essential gawk bison python3 xz-utils git patch rsync)
# Configure arguments.  MAKEINFO=: because Debian's tarball carries no
# manual (as in Debian's own packaging).
GLIBC_CONFIGURE=(--prefix=/usr)
GLIBC_MAKEFLAGS=(MAKEINFO=:)
# Spawn and exec users outside posix/, run with "make test t=...".
GLIBC_EXTRA_TESTS=(stdlib/tst-system stdio-common/tst-popen
		   stdio-common/tst-popen2 libio/tst-popen1)
# The patch series, both mails in one mbox (git am applies them in turn);
# fixed identity and date so that it is stable.
PATCH_NAME=glibc/posix_spawn-io_uring.mbox
PATCH_IDENT="uring-spawn developers <dev@uring-spawn.invalid>"
PATCH_DATE="2026-11-30T00:00:00+00:00"

# ./build.sh glibc [--stock]: glibc 2.44 with the series, or stock 2.44
# (the benchmark's reference).
glibc_main ()
{
  case "${1:-}" in
    '') glibc_build ;;
    --stock) glibc_stock_build ;;
    --abis) glibc_abis_build ;;
    *) die "usage: ./build.sh glibc [--stock | --abis]" ;;
  esac
}

# ./build.sh glibc --abis: the series built for i686 and x32 from the same
# patched tree (compile-only: nothing runs; the kernel refuses chains to
# compat tasks and gives them no auxv entry).  Each ABI has its own build
# directory, keyed like $GBUILD; a finished one is only re-made.
GLIBC_ABIS=("i686 i686-linux-gnu -m32" "x32 x86_64-linux-gnux32 -mx32")
glibc_abis_build ()
{
  glibc_sources
  # What gcc-multilib and g++-multilib bring, without them: they
  # conflict with the cross compilers of ./build.sh kernel-arches.
  need_packages libc6-dev-i386 libc6-dev-x32 lib32stdc++-12-dev libx32stdc++-12-dev
  local abi name host flag build t0 failed=()
  for abi in "${GLIBC_ABIS[@]}"; do
    read -r name host flag <<< "$abi"
    build=$GDIR/build-$name-${GBUILD##*/build-}
    _glibc_configure "$GSRC" "$build" "glibc for $name" --host="$host" \
	CC="gcc $flag" CXX="g++ $flag" \
      || { failed+=("$name (configure)"); continue; }
    t0=$(date +%s)
    [ -f "$build/libc.so" ] || say "glibc for $name: a cold build takes 10-15 min"
    if run_step "$build/make.log" "building glibc for $name (make -j$JOBS)" \
	 locked make -C "$build" -j"$JOBS" "${GLIBC_MAKEFLAGS[@]}"; then
      say "glibc for $name: built in $(( $(date +%s) - t0 ))s ($build)"
    else
      failed+=("$name")
    fi
  done
  [ ${#failed[@]} -eq 0 ] || die "glibc --abis: failed: ${failed[*]}"
}

# Set the cache paths.  The source trees are keyed by the tarball; the
# build directory also by the compiler and the configure arguments.  The
# overlay is NOT part of the key: it is synced into the source tree file
# by file, so that editing it rebuilds only what it touches.
glibc_paths ()
{
  [ -n "${GDIR:-}" ] && return 0
  need_packages "${GLIBC_PACKAGES[@]}"
  GLIBC_TARBALL=$(sources_get glibc-source) || exit 1
  [ -f "$GLIBC_TARBALL" ] || die "$GLIBC_TARBALL missing"
  GDIR=$CACHE/glibc-$GLIBC_VERSION-$(hash_of "$GLIBC_TARBALL")
  PRISTINE=$GDIR/pristine
  GSRC=$GDIR/src
  GBUILD=$GDIR/build-$(hash_of "$(gcc --version | head -n 1)" \
			     "$(ld --version | head -n 1)" \
			     "${GLIBC_CONFIGURE[*]}" "${GLIBC_MAKEFLAGS[*]}")
}

# extract DIR: unpack the tarball into DIR, atomically.
glibc_extract ()
{
  local dir=$1
  [ -d "$dir" ] && return 0
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  step "$CACHE/logs/extract.log" "extracting $(basename "$GLIBC_TARBALL") into $dir" \
    tar -C "$dir.tmp" --strip-components=1 -xf "$GLIBC_TARBALL"
  mv "$dir.tmp" "$dir"
}

# sysdeps-overlay/ holds new files, and whole copies of the glibc files
# listed in patches/glibc/overlay-base.sha256 with the sha256 of the
# version each was made from (Linux's spawni.c).  When a glibc-source
# update changes one of those, a build from the overlay (and a patch
# regenerated from it) would silently revert Debian's change: stop and
# say so.  Any other glibc file changes through a hunk.
glibc_overlay_base_check ()
{
  local base=$TOP/$G_BASE f out bad shadow=
  [ -r "$base" ] || die "$base missing"
  for f in $(cd "$TOP/$G_OVERLAY" && find . -type f | sed 's|^\./||'); do
    [ -e "$PRISTINE/sysdeps/$f" ] \
      && ! awk -v f="sysdeps/$f" '$2 == f { found = 1 } END { exit !found }' "$base" \
      && shadow="$shadow sysdeps/$f"
  done
  [ -z "$shadow" ] \
    || die "$G_OVERLAY/ replaces glibc's own$shadow, which $G_BASE does not list: make the change a hunk in $G_HUNKS/"
  out=$(cd "$PRISTINE" && sha256sum --quiet --strict -c "$base" 2>&1) && return 0
  bad=$(printf '%s\n' "$out" | sed -n 's/: FAILED.*//p')
  [ -n "$bad" ] || die "$G_BASE: $out"
  die "Debian's glibc $GLIBC_VERSION ($GLIBC_TARBALL) changed $(echo $bad), which $G_OVERLAY/ replaces whole: merge that change into $G_OVERLAY/ (a regenerated patch would revert it), then record the new base with (cd $PRISTINE && sha256sum $(echo $bad)) in $G_BASE"
}

# Make $GDIR/desired hold every file our patches change, as it must be:
# sysdeps-overlay/X is sysdeps/X, tests/tst-spawn-uring.c and
# tests/glibc/tst-*.c and tst-*.py are Linux tests
# (sysdeps/unix/sysv/linux/), and patches/glibc/hunks/*.diff are small
# edits of glibc's own files (the Makefile lines that register them).
glibc_desired ()
{
  local d=$GDIR/desired f rel hunk
  glibc_overlay_base_check
  rm -rf "$d"
  mkdir -p "$d"
  # Patch 1 of the series, as diffs of glibc's files; the overlay below
  # holds the final version of those it also replaces.
  for hunk in "$G_SERIES"/0001-*.diff; do
    [ -f "$hunk" ] || continue
    for rel in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$hunk"); do
      mkdir -p "$d/$(dirname "$rel")"
      [ -f "$PRISTINE/$rel" ] && cp "$PRISTINE/$rel" "$d/$rel"
    done
    patch -s -p1 -d "$d" --no-backup-if-mismatch < "$hunk" \
      || die "$hunk does not apply to glibc $GLIBC_VERSION"
  done
  [ ! -d "$G_OVERLAY" ] || (cd "$G_OVERLAY" && find . -type f) | sort | while read -r f; do
    rel=sysdeps/${f#./}
    mkdir -p "$d/$(dirname "$rel")"
    cp "$G_OVERLAY/$f" "$d/$rel"
  done
  for f in "$G_TEST_MAIN" "$G_TESTS"/tst-*.c "$G_TESTS"/tst-*.py; do
    [ -f "$f" ] || continue
    mkdir -p "$d/sysdeps/unix/sysv/linux"
    cp "$f" "$d/sysdeps/unix/sysv/linux/"
  done
  for hunk in "$G_HUNKS"/*.diff; do
    [ -f "$hunk" ] || continue
    for rel in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$hunk"); do
      [ -e "$d/$rel" ] && die "$hunk edits $rel, which the overlay or patch 1 changes"
      mkdir -p "$d/$(dirname "$rel")"
      cp "$PRISTINE/$rel" "$d/$rel"
    done
    patch -s -p1 -d "$d" --no-backup-if-mismatch < "$hunk" \
      || die "$hunk does not apply to glibc $GLIBC_VERSION"
  done
  (cd "$d" && find . -type f | sed 's|^\./||' | sort) > "$GDIR/desired.list"
}

# Bring the patched source tree in line with the desired files, touching
# only the files whose content changed.  Sets GLIBC_SYNCED=1 if any did.
glibc_sync ()
{
  local f manifest=$GSRC/.uring-spawn-files
  GLIBC_SYNCED=0
  glibc_desired
  while read -r f; do
    if ! cmp -s "$GDIR/desired/$f" "$GSRC/$f"; then
      # A header that is new here may shadow one of the same name in
      # another sysdeps directory, which the objects built so far
      # depend on: touch those, so that make rebuilds them.
      if [ ! -e "$GSRC/$f" ] && [ "${f%.h}" != "$f" ]; then
	find "$GSRC" -name "$(basename "$f")" -exec touch {} +
      fi
      mkdir -p "$GSRC/$(dirname "$f")"
      cp "$GDIR/desired/$f" "$GSRC/$f"
      say "updated glibc/$f"
      GLIBC_SYNCED=1
    fi
  done < "$GDIR/desired.list"
  # Files the overlay no longer provides go back to glibc's version.
  if [ -f "$manifest" ]; then
    comm -23 "$manifest" "$GDIR/desired.list" | while read -r f; do
      if [ -f "$PRISTINE/$f" ]; then
	cp -p "$PRISTINE/$f" "$GSRC/$f"
	touch "$GSRC/$f"
      else
	rm -f "$GSRC/$f"
      fi
      say "restored glibc/$f"
    done
    cmp -s "$manifest" "$GDIR/desired.list" || GLIBC_SYNCED=1
  fi
  cp "$GDIR/desired.list" "$manifest"
}

glibc_sources ()
{
  glibc_paths
  glibc_extract "$PRISTINE"
  glibc_extract "$GSRC"
  glibc_sync
  ln -sfn "$GSRC" "$G_LINK"
}

glibc_build ()
{
  glibc_sources
  local stamp=$GBUILD/.uring-spawn-built
  mkdir -p build
  ln -sfn "$GBUILD" "build/$G_LINK"
  if [ "$GLIBC_SYNCED" = 0 ] && [ -f "$stamp" ]; then
    say "glibc: up to date ($GBUILD)"
    return 0
  fi
  rm -f "$stamp"
  glibc_configure_make "$GSRC" "$GBUILD" glibc
  touch "$stamp"
}

# _glibc_configure SRC BUILD NAME [ARGS...]: configure SRC in BUILD, once,
# with GLIBC_CONFIGURE and ARGS; non-zero if configure failed.
_glibc_configure ()
{
  local src=$1 build=$2 name=$3
  shift 3
  mkdir -p "$build"
  [ -f "$build/config.status" ] && return 0
  run_step "$build/configure.log" "configuring $name" \
    bash -c 'cd "$1" && shift && "$@"' _ "$build" \
      "$src/configure" "${GLIBC_CONFIGURE[@]}" "$@" "${GLIBC_MAKEFLAGS[@]}"
}

# glibc_configure_make SRC BUILD NAME: configure SRC in BUILD (once) and
# make it, under the build lock; NAME is what the progress lines say.
glibc_configure_make ()
{
  local src=$1 build=$2 name=$3
  _glibc_configure "$src" "$build" "$name" \
    || die "configuring $name failed; full log: $build/configure.log"
  step "$build/make.log" "building $name (make -j$JOBS)" \
    locked make -C "$build" -j"$JOBS" "${GLIBC_MAKEFLAGS[@]}"
}

# The stock glibc -- Debian's source without our patch -- that the
# benchmarks (bench/) compare against.  Its own extracted copy, never
# synced with the overlay (the pristine tree stays untouched by a build),
# and a build directory keyed like $GBUILD.  Built once; later calls only
# link build/glibc-stock to it.
glibc_stock_build ()
{
  glibc_paths
  local src=$GDIR/stock-src
  GSTOCK=$GDIR/stock-${GBUILD##*/}
  local stamp=$GSTOCK/.uring-spawn-built
  mkdir -p build
  ln -sfn "$GSTOCK" "build/$G_LINK-stock"
  if [ -f "$stamp" ]; then
    say "stock glibc: up to date ($GSTOCK)"
    return 0
  fi
  glibc_extract "$src"
  say "stock glibc: a cold build takes 15-20 min"
  glibc_configure_make "$src" "$GSTOCK" "the stock glibc"
  touch "$stamp"
}

# Write the patch series for the current overlay to the file $1: the
# git format-patch mails, made in a throw-away repository holding glibc's
# versions of the files, then patch 1 (the clone path, glibc's spawni.c
# with patches/glibc/series/0001-*.diff), then ours (patch 2).  With a
# directory $2, also write there each patch as git format-patch -o
# writes it (the mbox's mails 1 and 2, byte for byte), named
# NNNN-posix_spawn-io_uring.patch.
glibc_patch_make ()
{
  local out=$1 dir=${2:-} tmp f msg n=0
  glibc_paths
  glibc_extract "$PRISTINE"
  glibc_desired
  tmp=$(mktemp -d)
  export GIT_AUTHOR_NAME=${PATCH_IDENT% <*} GIT_COMMITTER_NAME=${PATCH_IDENT% <*}
  export GIT_AUTHOR_EMAIL=dev@uring-spawn.invalid GIT_COMMITTER_EMAIL=dev@uring-spawn.invalid
  export GIT_AUTHOR_DATE=$PATCH_DATE GIT_COMMITTER_DATE=$PATCH_DATE
  (
    cd "$tmp"
    git init -q
    git config core.autocrlf false
    while read -r f; do
      if [ -f "$PRISTINE/$f" ]; then
	mkdir -p "$(dirname "$f")"
	cp "$PRISTINE/$f" "$f"
      fi
    done < "$GDIR/desired.list"
    git add -A
    git commit -q --allow-empty -m "glibc $GLIBC_VERSION (Debian glibc-source)"
    # Each mail NNNN.msg of the series commits: the diffs NNNN-*.diff
    # applied to glibc's files, or the desired files NNNN.files lists,
    # or, the last, everything that is left.
    for msg in "$TOP/$G_SERIES"/[0-9][0-9][0-9][0-9].msg; do
      local stem=${msg%.msg} diffs=
      n=$((n + 1))
      for f in "$stem"-*.diff; do
	[ -f "$f" ] || continue
	diffs=1
	patch -s -p1 --no-backup-if-mismatch < "$f" \
	  || die "$f does not apply to glibc $GLIBC_VERSION"
      done
      if [ -f "$stem.files" ]; then
	while read -r f; do
	  mkdir -p "$(dirname "$f")" && cp "$GDIR/desired/$f" "$f" \
	    || die "$stem.files: $f is not a file of the patch"
	done < "$stem.files"
      elif [ -z "$diffs" ]; then
	cp -r "$GDIR/desired/." .
      fi
      git add -A
      git commit -q -F "$msg"
    done
    # The cover letter, mail 0: its subject line, then its body.
    git config "branch.$(git branch --show-current).description" \
      "$(sed -n '1s/^Subject: \[[^]]*\] //p' "$TOP/$G_SERIES/cover-letter.txt")

$(sed '1,/^$/d' "$TOP/$G_SERIES/cover-letter.txt")"
    local fp=(git format-patch -q -$n --no-signature --stat=72
	      --subject-prefix="RFC PATCH" --cover-letter
	      --cover-from-description=subject)
    if [ -n "$dir" ]; then
      "${fp[@]}" -o "$tmp/.out" HEAD >&2
      for f in "$tmp"/.out/[0-9][0-9][0-9][0-9]-*.patch; do
	case $f in */0000-cover-letter.patch) continue ;; esac
	f=${f##*/}
	cp "$tmp/.out/$f" "$dir/${f%%-*}-posix_spawn-io_uring.patch"
      done
    fi
    "${fp[@]}" --stdout HEAD
  ) > "$out"
  rm -rf "$tmp"
}

glibc_patch_write ()
{
  local tmp
  tmp=$(mktemp -d)
  glibc_patch_make "$tmp/mbox" "$tmp"
  rm -f patches/[0-9][0-9][0-9][0-9]-posix_spawn-io_uring.patch
  mv "$tmp"/*.patch patches/ && mv "$tmp/mbox" "patches/$PATCH_NAME"
  rm -rf "$tmp"
  say "wrote patches/$PATCH_NAME ($(grep -c '^Subject: ' "patches/$PATCH_NAME") patches, $(grep -c '^diff --git' "patches/$PATCH_NAME") diffs) and, one file each, $(cd patches && echo [0-9][0-9][0-9][0-9]-posix_spawn-io_uring.patch)"
}

# The committed series matches the overlay, and git am applies its
# patches in turn to Debian's glibc (to copies of the files they touch).
glibc_patch_check ()
{
  local tmp dir f stale=
  tmp=$(mktemp -d)
  glibc_patch_make "$tmp/mbox" "$tmp"
  cmp -s "$tmp/mbox" "patches/$PATCH_NAME" || stale="patches/$PATCH_NAME"
  for f in $( (cd "$tmp" && ls -- *.patch; cd "$TOP/patches" \
		&& ls -- [0-9][0-9][0-9][0-9]-posix_spawn-io_uring.patch) \
	      2>/dev/null | sort -u); do
    cmp -s "$tmp/$f" "patches/$f" || stale="$stale patches/$f"
  done
  if [ -n "$stale" ]; then
    for f in $stale; do
      diff -u "$f" "$tmp/$( [ "$f" = "patches/$PATCH_NAME" ] && echo mbox || basename "$f")" | head -n 40 >&2 || true
    done
    rm -rf "$tmp"
    die "stale:$stale: not what sysdeps-overlay/, $G_TEST_MAIN, $G_TESTS/ and patches/glibc/ make; run ./build.sh patch and commit the result"
  fi
  rm -rf "$tmp"
  dir=$(mktemp -d)
  (
    cd "$dir" && git init -q && git config user.name check \
      && git config user.email check@invalid \
      && sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$TOP/patches/$PATCH_NAME" | sort -u \
      | while read -r f; do
	  if [ -f "$PRISTINE/$f" ]; then
	    mkdir -p "$(dirname "$f")" && cp "$PRISTINE/$f" "$f"
	  fi
	done \
      && git add -A && git commit -q -m base \
      && git am -q --empty=drop "$TOP/patches/$PATCH_NAME"
  ) || { rm -rf "$dir"; die "git am patches/$PATCH_NAME fails on Debian's glibc $GLIBC_VERSION"; }
  # And with patch -p1, as quilt applies it: on copies of the same files
  # (a dry run cannot see the first mail's changes under the second's).
  rm -rf "$dir" && mkdir -p "$dir"
  sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "patches/$PATCH_NAME" | sort -u \
    | while read -r f; do
	if [ -f "$PRISTINE/$f" ]; then
	  mkdir -p "$dir/$(dirname "$f")" && cp "$PRISTINE/$f" "$dir/$f"
	fi
      done
  patch -s -p1 -d "$dir" < "patches/$PATCH_NAME" \
    || { rm -rf "$dir"; die "patches/$PATCH_NAME does not apply to Debian's glibc $GLIBC_VERSION with patch -p1"; }
  rm -rf "$dir"
  say "patches/$PATCH_NAME and patches/NNNN-posix_spawn-io_uring.patch are in sync with the overlay and its $(grep -c '^Subject: \[RFC PATCH [1-9]' "patches/$PATCH_NAME") patches apply in turn to glibc $GLIBC_VERSION (git am, patch -p1)"
}

# glibc_posting_check [MBOX [OVERLAY]]: what the glibc review of v3 asked
# of the posting (B3, B4) and of the documentation and the ABI (M5, M6),
# one PASS or FAIL line each, then "posting: N passed, N failed".
glibc_posting_check ()
{
  local mbox=${1:-patches/$PATCH_NAME} overlay=${2:-$G_OVERLAY} p=0 f=0 m want
  # _posting NAME CMD...: PASS if CMD succeeds.
  _posting ()
  {
    local name=$1
    shift
    if "$@"; then echo "PASS: posting: $name"; p=$((p + 1))
    else echo "FAIL: posting: $name"; f=$((f + 1)); fi
  }
  # The mbox's sentences, one per line, without texinfo's @code{}.
  _sentences ()
  {
    tr '\n' ' ' < "$mbox" | sed 's/  */ /g; s/@code{\([^}]*\)}/\1/g; s/\. /.\n/g'
  }
  # _twice TEXT: in the commit message and in the manual text.
  _twice () { [ "$(_sentences | grep -c -- "$1")" -ge 2 ]; }
  _checked_on ()
  {
    [ "$(awk '/^Subject: \[RFC PATCH [1-9]\/2\]/ { mail = 1 } /^---$/ { mail = 0 }
	     mail && /^Checked on / { n++ } END { print n + 0 }' "$mbox")" = 2 ]
  }
  _tcb ()
  {
    printf '#include <tls-internal-struct.h>\n_Static_assert (sizeof (struct tls_internal_t) %s 2 * sizeof (char *), "");\n' "$2" \
      | gcc "$1" -fsyntax-only -nostdinc -I "$overlay/unix/sysv/linux" \
	  -I "$GDIR/desired/sysdeps/generic" -I "$PRISTINE/sysdeps/generic" \
	  -I "$PRISTINE/sysdeps/x86" -x c - 2>/dev/null
  }
  for m in 0 1 2; do
    _posting "B3: mail $m/2 is an [RFC PATCH $m/2]" grep -q "^Subject: \[RFC PATCH $m/2\]" "$mbox"
  done
  _posting "B3: a NEWS hunk" grep -q '^diff --git a/NEWS b/NEWS' "$mbox"
  _posting 'B3: a "Checked on" line in each commit message' _checked_on
  _no_copy_claim () { ! grep -Eq 'never copied|address space is copied' "$mbox"; }
  _posting "B4: no claim that stock 2.44 copies the caller's page tables" _no_copy_claim
  _posting "B4: the figures name their clock (-icount)" grep -q -- '-icount' "$mbox"
  for m in 'execve in another thread' 'the process is terminated with a message'; do
    _posting "M5: the commit message and the manual text say: $m" _twice "$m"
  done
  for m in 'io-wq' '64 KiB pages'; do
    _posting "M6: the commit message and the manual text name the cost: $m" _twice "$m"
  done
  # The thread descriptor: no ring where the code cannot run.
  _posting "M6: struct tls_internal_t with -m32: two pointers, no ring" _tcb -m32 '=='
  _posting "M6: struct tls_internal_t with -mx32: two pointers, no ring" _tcb -mx32 '=='
  _posting "M6: struct tls_internal_t with -m64: holds the ring" _tcb -m64 '>'
  echo "posting: $p passed, $f failed"
  [ "$f" -eq 0 ]
}

# Where the test results go: build/results, or GLIBC_RESULTS.
glibc_results ()
{
  printf '%s\n' "${GLIBC_RESULTS:-$TOP/build/results}"
}

# glibc_run_tests WHERE [MAKE-ARGS...]: run glibc's whole posix/
# subdirectory and the spawn and exec users elsewhere, with MAKE-ARGS
# (a test-wrapper for the VM).  Results go to $(glibc_results)/WHERE.sum;
# with GLIBC_VM_ONLY set, only those of GLIBC_VM_TESTS.
glibc_run_tests ()
{
  # Under the build lock from the first rm to the last result: the build
  # directory is shared by every clone on the machine, and another run's
  # rm of posix/*.out deletes a running test's output file.
  if [ -z "${URING_SPAWN_LOCKED:-}" ]; then
    mkdir -p "$CACHE"
    (
      exec 9>"$BUILD_LOCK"
      flock -n 9 || { echo "waiting for the build lock $BUILD_LOCK"; flock 9; }
      URING_SPAWN_LOCKED=1 glibc_run_tests "$@"
    )
    return
  fi
  local where=$1 results sum t log
  results=$(glibc_results)
  shift
  mkdir -p "$results"
  sum=$results/$where.sum
  # Remove the previous results, or make would keep them: the tests run
  # every time, against the kernel at hand.
  rm -f "${sum%.sum}.flaky"
  rm -f "$GBUILD/tests.sum" "$GBUILD"/*.out "$GBUILD"/posix/*.out \
    "$GBUILD"/posix/*.test-result
  # "make check" exits non-zero when a test fails; the summary decides,
  # so only a broken harness (no tests.sum) stops us here.
  run_step "$results/$where-posix.log" "glibc ($where): make check subdirs=posix" \
    locked make -C "$GBUILD" -j"$JOBS" "${GLIBC_MAKEFLAGS[@]}" "$@" \
      check subdirs=posix || true
  [ -f "$GBUILD/tests.sum" ] || die "tests.sum missing: glibc's harness failed; see $results/$where-posix.log"
  if [ -n "${GLIBC_VM_ONLY:-}" ]; then
    _glibc_vm_lines < "$GBUILD/tests.sum" > "$sum"
  else
    cp "$GBUILD/tests.sum" "$sum"
  fi
  _glibc_keep_failed "$where" "$sum"
  _glibc_rerun_unrelated "$where" "$sum" "$@"
  for t in "${GLIBC_EXTRA_TESTS[@]}"; do
    rm -f "$GBUILD/$t.out" "$GBUILD/$t.test-result"
    log=$results/$where-$(basename "$t").log
    run_step "$log" "glibc ($where): make test t=$t" \
      locked make -C "$GBUILD" "${GLIBC_MAKEFLAGS[@]}" "$@" test t="$t" || true
    if [ -f "$GBUILD/$t.test-result" ]; then
      cat "$GBUILD/$t.test-result" >> "$sum"
    else
      echo "FAIL: $t (no result; see $log)" >> "$sum"
    fi
  done
}

# _glibc_keep_failed WHERE SUM: copy the output of every failed test to
# $(glibc_results)/WHERE-failed/ (the next run overwrites the build's).
_glibc_keep_failed ()
{
  local where=$1 sum=$2 t dir
  dir=$(glibc_results)/$where-failed
  rm -rf "$dir"
  for t in $(sed -n 's/^FAIL: //p' "$sum"); do
    [ -f "$GBUILD/$t.out" ] || continue
    mkdir -p "$dir/$(dirname "$t")" && cp "$GBUILD/$t.out" "$dir/$t.out"
  done
  [ ! -d "$dir" ] || echo "glibc ($where): the failed tests' output is in $dir"
}

# GLIBC_SPAWN_TESTS: the tests that create processes or exec (annexc
# runs the compiler through system); these are never rerun.
GLIBC_SPAWN_TESTS='spawn|exec|fork|popen|system|wait|wordexp|pidfd|tst-sched|annexc'
# GLIBC_VM_TESTS: those of them that reach posix_spawn, what the VM runs.
# The exec, fork, vfork, wait and sched tests do not (the path proof of
# a run with them all: no chain and no clone-path spawn of their own,
# but tst-exec*2's one system call, which tst-system makes too).
GLIBC_VM_TESTS='spawn|popen|system|wordexp|pidfd'

# _glibc_rerun_unrelated WHERE SUM [MAKE-ARGS...]: a failed test that does
# not create processes (tst-chmod has failed once on a CI host while it
# passed in the VM) runs once more.  Its first output is printed either
# way; a pass on the second run is counted as a pass and listed as FLAKY
# in the summary, so it is seen, not hidden.
_glibc_rerun_unrelated ()
{
  local where=$1 sum=$2 t out
  shift 2
  for t in $(sed -n 's/^FAIL: //p' "$sum"); do
    case $t in posix/*) ;; *) continue ;; esac
    if printf '%s\n' "$t" | grep -Eq "$GLIBC_SPAWN_TESTS"; then
      continue
    fi
    out=$GBUILD/$t.out
    echo "glibc ($where): $t failed; its output (first 40 lines):"
    sed -n '1,40s/^/    /p' "$out" 2>/dev/null || echo "    (no $out)"
    rm -f "$out" "$GBUILD/$t.test-result"
    locked make -C "$GBUILD" "${GLIBC_MAKEFLAGS[@]}" "$@" test t="$t" \
      >> "$(glibc_results)/$where-rerun.log" 2>&1 || true
    if grep -q '^PASS: ' "$GBUILD/$t.test-result" 2>/dev/null; then
      echo "glibc ($where): $t passed when run again: FLAKY, counted as passed"
      sed -i "s|^FAIL: $t\$|PASS: $t|" "$sum"
      echo "FLAKY: $t" >> "${sum%.sum}.flaky"
    else
      echo "glibc ($where): $t failed again"
    fi
  done
}

# The tests on this machine's kernel, which has no spawn series: the
# clone path.
glibc_check ()
{
  # tst-spawn-uring-slots links liburing where the build system has it:
  # a clean machine has to get it first, or that test is never built.
  need_packages liburing-dev
  glibc_run_tests host
  _glibc_series_tests_ran "$(glibc_results)/host.sum"
  summarize host "$(glibc_results)/host.sum"
}

# _glibc_series_tests_ran SUM: each glibc test of the series has a result
# in SUM; a FAIL line for one that has none (a test that is not built
# guards nothing).
_glibc_series_tests_ran ()
{
  local sum=$1 f t
  for f in "$G_TEST_MAIN" "$G_TESTS"/tst-*.c; do
    [ -f "$f" ] || continue
    t=$(basename "$f" .c)
    case $t in *-mod) continue ;; esac	# a module of another test
    grep -Eq "^[A-Z]+: [a-z-]+/$t\$" "$sum" \
      || echo "FAIL: $t (no result: not built?)" >> "$sum"
  done
}

# glibc's copy of the kernel's constants (io_uring_spawn.h) against the
# headers of the kernel built with the series (KHDR, a usr/include):
# tst-io_uring_spawn-consts with the test compiler pointed at them.  Only
# a PASS counts: UNSUPPORTED would mean the headers lack the series.
glibc_consts_check ()
{
  local khdr=$1 t=misc/tst-io_uring_spawn-consts cc
  cc=$(sed -n 's/^CC = //p' "$GBUILD/config.make")
  rm -f "$GBUILD/$t.out" "$GBUILD/$t.test-result"
  locked make -C "$GBUILD" "${GLIBC_MAKEFLAGS[@]}" test t="$t" \
    TEST_CC="$cc -isystem $khdr" > "$(glibc_results)/consts.log" 2>&1 || true
  cat "$GBUILD/$t.out" 2>/dev/null | tail -n 5
  if grep -q "^PASS: $t\$" "$GBUILD/$t.test-result" 2>/dev/null; then
    echo "consts: 1 passed, 0 failed"
  else
    echo "FAIL: $t ($(head -n 1 "$GBUILD/$t.test-result" 2>/dev/null | cut -d: -f1 | grep . || echo "no result; see $(glibc_results)/consts.log"))"
    echo "consts: 0 passed, 1 failed"
  fi
}

# The spawn tests (GLIBC_VM_TESTS) run in the VM on the debug kernel
# with the series (scripts/vm-test-wrapper, a persistent VM), twice: as
# built (the io_uring path; results vm.sum) and with glibc.spawn.io_uring=0
# (the clone path on the same kernel; vm-off.sum).  Each must pass there
# if it passes on the host.  Then scripts/vm-tunables-conf: the path as
# built, and turned off in /etc/tunables.conf (vm-tunables.sum).
glibc_check_vm ()
{
  export VM_NAME=glibc-check-$$
  bash scripts/vm.sh stop >/dev/null 2>&1 || true
  bash scripts/vm.sh start --debug || die "the glibc test VM did not start"
  _glibc_check_vm_run vm
  _glibc_check_vm_run vm-off --env GLIBC_TUNABLES=glibc.spawn.io_uring=0
  local results
  results=$(glibc_results)
  # The system-wide switch: /etc/tunables.conf through ldconfig.
  bash scripts/vm.sh exec --timeout 600 -- sh scripts/vm-tunables-conf "$GBUILD" "$results" \
    > "$results/vm-tunables.sum" 2>&1 \
    || echo "FAIL: tunables.conf (scripts/vm-tunables-conf did not run)" >> "$results/vm-tunables.sum"
  grep -q . "$results/vm-tunables.sum" \
    || echo "FAIL: tunables.conf (no result)" >> "$results/vm-tunables.sum"
  bash scripts/vm.sh stop >/dev/null 2>&1 || true
  unset VM_NAME
  summarize vm "$results/vm.sum" "$results/vm-off.sum" "$results/vm-tunables.sum"
}

# _glibc_check_vm_run WHERE [WRAPPER-OPTIONS...]
_glibc_check_vm_run ()
{
  local where=$1 results
  results=$(glibc_results)
  shift
  # TCG emulates the CPU: give the tests ten times their usual time.  The
  # wrapper answers UNSUPPORTED for the other tests without the VM; their
  # lines are dropped from the results.
  rm -rf "$results/$where-paths"
  GLIBC_VM_PATHS=$results/$where-paths GLIBC_VM_ONLY=1 glibc_run_tests "$where" \
    test-wrapper="$TOP/scripts/vm-test-wrapper --timeoutfactor 10 --only ${GLIBC_VM_TESTS//|/,} $*"
  _glibc_path_proof "$where"
  # Only a test that passes on the host and not in the VM is a difference:
  # a host failure (or UNSUPPORTED there: in a container, test-container's
  # namespaces) is counted in the host's summary already.
  comm -23 <(_glibc_vm_lines < "$results/host.sum" | sed -n 's/^PASS: //p' | sort) \
	   <(sed -n 's/^PASS: //p' "$results/$where.sum" | sort) \
    | while read -r t; do
	grep -qs '^vm-test-wrapper: a container test, not run in the VM' "$GBUILD/$t.out" \
	  || printf '%s\n' "$t"
      done > "$results/host-$where-pass.diff"
  if [ -s "$results/host-$where-pass.diff" ]; then
    echo "FAIL: tests that pass on the host do not pass in the VM ($where):"
    cat "$results/host-$where-pass.diff"
    echo "FAIL: host-$where-pass-set" >> "$results/$where.sum"
  fi
}

# _glibc_path_proof WHERE: every spawn of the VM pass WHERE took its
# path.  scripts/vm-test-run counted, per test, the chains the kernel ran
# (trace event io_uring_spawn) and the spawns of glibc's clone path (tasks
# created with CLONE_VFORK and CLONE_CLEAR_SIGHAND): on the io_uring pass
# (vm) no clone-path spawn may happen; on the clone pass (vm-off) no chain
# may run.  A test that
# does either on purpose is listed in tests/vm-paths-allowed with the
# reason.  The table is WHERE-paths.txt; a breach adds a FAIL line.
_glibc_path_proof ()
{
  local where=$1 results dir
  results=$(glibc_results)
  dir=$results/$where-paths
  [ -d "$dir" ] || { echo "FAIL: $where-path-proof (no trace counts: $dir)" >> "$results/$where.sum"; return; }
  awk -v where="$where" -v allowed="$TOP/tests/vm-paths-allowed" '
    BEGIN {
      while ((getline line < allowed) > 0)
	if (line !~ /^#/ && split (line, w, /[ \t]+/) >= 3) ok[w[1] " " w[2]] = 1
    }
    FNR == 1 { n = split (FILENAME, p, "/"); t = p[n]; sub (/@[0-9]+$/, "", t) }
    $1 == "chains" { c[t] += $2; f[t] += $3; v[t] += $5; all += $2 }
    END {
      printf "%-32s %8s %8s %8s\n", "test (" where ")", "chains", "failed", "clone" > "/dev/stderr"
      for (t in c) {
	printf "%-32s %8d %8d %8d\n", t, c[t], f[t], v[t] > "/dev/stderr"
	bad = (where == "vm") ? v[t] > 0 : c[t] + f[t] > 0
	if (bad && !((where " " t) in ok))
	  printf "FAIL: %s-path-proof/%s (%s)\n", where, t,
		 where == "vm" ? v[t] " spawn(s) through the clone path" : c[t] + f[t] " chain(s) with the tunable at 0"
      }
      if (where == "vm" && all == 0)
	print "FAIL: vm-path-proof (no chain ran: the kernel announces none?)"
    }' "$dir"/* 2> "$results/$where-paths.txt" | tee -a "$results/$where.sum"
}

# The result lines of the tests GLIBC_VM_TESTS names (by base name).
_glibc_vm_lines ()
{
  awk -v re="$GLIBC_VM_TESTS" '{ n = split ($2, p, "/") } p[n] ~ re'
}

# summarize WHERE SUM...: count the results of glibc .sum files, list
# failures, apply tests/known-failures, print "WHERE: N passed, N failed";
# non-zero on FAIL.
summarize ()
{
  local known=tests/known-failures where=$1 f
  shift
  for f in "$@"; do
    [ -f "${f%.sum}.flaky" ] && sed 's/$/ (failed, then passed when run again)/' "${f%.sum}.flaky"
  done
  awk -v known="$known" -v where="$where" '
    BEGIN {
      while ((getline line < known) > 0)
	if (line !~ /^#/ && split (line, w, /[ \t]+/) >= 2) kf[w[1]] = 1
    }
    /^[A-Z]+: / {
      r = substr ($1, 1, length ($1) - 1); t = $2
      if (r == "PASS") pass++
      else if (r == "XFAIL") xfail++
      else if (r == "UNSUPPORTED") unsup++
      else if ((r == "FAIL" || r == "ERROR") && (t in kf)) { known_n++; print "KNOWN " $0 }
      else { fail++; n = split (FILENAME, p, "/"); print $0 " (" p[n] ")" }
    }
    END {
      printf "%d unsupported, %d expected failures (XFAIL), %d known failures (tests/known-failures)\n",
	unsup, xfail, known_n
      printf "%s: %d passed, %d failed\n", where, pass, fail
      exit fail > 0
    }' "$@"
}
