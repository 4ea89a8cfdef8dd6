# scripts/kernel-each.sh -- every patch of the kernel series on its own.
#
#   ./build.sh kernel-each [--no-configs]
#
# First, the series must apply with no fuzz to the files it touches with
# Debian's changes to them reverted (kernel/debian-changes.diff): the
# mainline base the cover letter names.
# Then, for patch N of patches/kernel/ (the cover letter excluded), in order:
#   - checkpatch.pl of the 7.3 tree, clean but for the Signed-off-by (left
#     to whoever sends the series);
#   - patches 1..N applied to a copy of the tree, and the objects of the
#     C files patch N touches compiled (W=1, warnings are errors) with the
#     test kernel's configuration plus kernel/each.fragment (options the
#     test kernel lacks that some touched file needs); a patch that
#     touches only headers builds vmlinux.
# Last, unless --no-configs, the whole series is built (vmlinux) with
# that configuration less CONFIG_AUDIT, where every C file the series
# touches must have been compiled (a single-object build compiles a file
# the configuration leaves out, often wrongly: this catches it), and
# less CONFIG_IO_URING.
# Ends with "kernel-each: N passed, N failed"; logs in
# $CACHE/logs/kernel-each/.  Every compile holds the build lock.

kernel_each_main ()
{
  local configs=1
  case "${1:-}" in
    --no-configs) configs=0 ;;
    '') ;;
    *) die "usage: ./build.sh kernel-each [--no-configs]" ;;
  esac
  . "$TOP/scripts/kernel.sh"
  kernel_tarball
  need_packages build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils git perl
  local th src each obj logs
  th=$(kernel_tarball_hash)
  src=$CACHE/kernel/src-$th
  each=$CACHE/kernel/each-$th
  obj=$CACHE/kernel/obj-$th-each
  logs=$CACHE/logs/kernel-each
  mkdir -p "$CACHE/kernel" "$logs"
  exec 8>"$CACHE/kernel/.tree.lock"
  flock 8
  _kernel_extract "$src"
  rm -rf "$each" && cp -al "$src" "$each" && rm -f "$each/.done" \
    || die "cannot create $each"

  local patches p n=0 pass=0 fail=0 files objs f log
  mapfile -t patches < <(kernel_patches)
  [ ${#patches[@]} -gt 0 ] || die "no patches in $KERNEL_SERIES_DIR"
  local mk=(make -C "$each" O="$obj" ARCH=x86_64 -j"$JOBS")
  local frags=("$KERNEL_FRAGMENT" "$TOP/kernel/each.fragment")
  if run_step "$logs/mainline.log" "kernel-each: the series on the touched files less Debian's changes (kernel/debian-changes.diff)" \
       _kernel_each_mainline "$src" "${patches[@]}"; then
    pass=$((pass + 1))
    say "kernel-each: $(tail -n 1 "$logs/mainline.log")"
  else
    fail=$((fail + 1))
    say "kernel-each: FAIL: the series on the tree less Debian's changes ($logs/mainline.log)"
  fi
  mkdir -p "$obj"
  step "$logs/config.log" "kernel-each: configuring (the test kernel's configuration and kernel/each.fragment)" \
    _kernel_configure "$obj" 2 "${frags[@]}" "${mk[@]}"
  _kernel_verify_config "$obj/.config" "${frags[@]}"
  for p in "${patches[@]}"; do
    n=$((n + 1))
    log=$logs/$(printf '%02d' $n).log
    files=$(_kernel_patch_files "$p")
    # The tree is hard-linked to the pristine one: replace what the patch
    # touches before it is written.
    while IFS= read -r f; do
      [ -n "$f" ] && [ -f "$each/$f" ] && { cp "$each/$f" "$each/$f.new" && mv -f "$each/$f.new" "$each/$f"; }
    done <<< "$files"
    if ! (cd "$each" && GIT_CEILING_DIRECTORIES=$CACHE git apply -p1 "$p") >"$log" 2>&1; then
      say "patch $n: FAIL: does not apply (${p##*/}; $log)"
      fail=$((fail + 1)); break
    fi
    # From the tree (run elsewhere, checkpatch misreads the mails).
    # FILE_PATH_CHANGES: io_uring/ as a whole is in MAINTAINERS already.
    if (cd "$each" && perl scripts/checkpatch.pl --no-tree \
	  --ignore MISSING_SIGN_OFF,FILE_PATH_CHANGES -q "$p") >>"$log" 2>&1; then
      pass=$((pass + 1))
    else
      say "patch $n: FAIL: checkpatch (${p##*/}; $log)"
      fail=$((fail + 1))
    fi
    objs=$(printf '%s\n' "$files" | sed -n 's/\.c$/.o/p')
    [ -n "$objs" ] || objs=vmlinux
    # shellcheck disable=SC2086
    if run_step "$log.build" "patch $n: building $(echo $objs)" \
	 _kernel_make_timed "$obj/.make-seconds" "${mk[@]}" W=1 KCFLAGS=-Werror $objs; then
      pass=$((pass + 1))
      say "patch $n: ok (${p##*/})"
    else
      fail=$((fail + 1))
      say "patch $n: FAIL: build (${p##*/}; $log.build)"
    fi
  done
  if [ "$configs" = 1 ] && [ "$n" -eq ${#patches[@]} ]; then
    local sym
    for sym in AUDIT IO_URING; do
      local o2=$CACHE/kernel/obj-$th-each-no-$sym frag=$logs/no-$sym.fragment
      { cat "${frags[@]}"; printf '# CONFIG_%s is not set\n' "$sym"; } > "$frag"
      mkdir -p "$o2"
      local mk2=(make -C "$each" O="$o2" ARCH=x86_64 -j"$JOBS")
      if run_step "$logs/no-$sym.log" "the whole series without CONFIG_$sym (vmlinux)" \
	   _kernel_each_without "$sym" "$o2" "$frag" "${mk2[@]}"; then
	pass=$((pass + 1))
      else
	fail=$((fail + 1))
	continue
      fi
      # A failed build has compiled part of the tree: no coverage verdict.
      [ "$sym" = AUDIT ] || continue
      if _kernel_each_coverage "$o2" "${patches[@]}"; then
	pass=$((pass + 1))
      else
	fail=$((fail + 1))
      fi
    done
  fi
  exec 8>&-
  printf 'kernel-each: %d passed, %d failed\n' "$pass" "$fail"
  [ "$fail" -eq 0 ]
}

# _kernel_each_mainline SRC PATCH...: copy the files the patches or
# Debian's recorded changes touch from SRC, revert those changes, apply
# the patches; patch(1) with no fuzz, so only offsets are allowed.
_kernel_each_mainline ()
{
  local src=$1 dir=$CACHE/kernel/each-mainline f p
  shift
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  for f in $( { for p in "$@"; do _kernel_patch_files "$p"; done
	       sed -n 's|^+++ b/||p' "$TOP/kernel/debian-changes.diff"; } | sort -u); do
    [ ! -f "$src/$f" ] || install -D -m 644 "$src/$f" "$dir/$f" || return 1
  done
  if ! (cd "$dir" && patch -R -p1 -F0 --no-backup-if-mismatch) < "$TOP/kernel/debian-changes.diff"; then
    echo "Debian's changes in kernel/debian-changes.diff are not in $src as recorded: has the base changed?"
    return 1
  fi
  local moved=
  for p in "$@"; do
    echo "== ${p##*/}"
    (cd "$dir" && patch -p1 -F0 --no-backup-if-mismatch) < "$p" > "$dir/.out" || { cat "$dir/.out"; return 1; }
    cat "$dir/.out"
    f=$(grep -c 'succeeded at .* (offset' "$dir/.out") || true
    [ "$f" = 0 ] || moved="$moved ${p##*/}: $f hunk(s);"
  done
  echo "the series applies with no fuzz to the touched files less Debian's changes; at an offset:${moved:- none}"
}

# _kernel_each_coverage OBJ PATCH...: every C file the patches touch was
# compiled into OBJ's vmlinux.
_kernel_each_coverage ()
{
  local o2=$1 f missing=
  shift
  for f in $(for p in "$@"; do _kernel_patch_files "$p"; done | sed -n 's/\.c$//p' | sort -u); do
    [ -f "$o2/$f.o" ] || missing="$missing $f.c"
  done
  if [ -n "$missing" ]; then
    say "FAIL: not compiled by the whole-series build ($o2):$missing; add what they need to kernel/each.fragment"
    return 1
  fi
  say "every C file the series touches is compiled by the whole-series build"
}

# _kernel_each_without SYM OBJ FRAGMENT MAKE...: configure with FRAGMENT
# (which turns SYM off), check that SYM is off, build vmlinux.
_kernel_each_without ()
{
  local sym=$1 o2=$2 frag=$3; shift 3
  _kernel_configure "$o2" 1 "$frag" "$@" || return 1
  if grep -q "^CONFIG_$sym=" "$o2/.config"; then
    echo "CONFIG_$sym is still set in $o2/.config"
    return 1
  fi
  _kernel_make_timed "$o2/.make-seconds" "$@" vmlinux
}
