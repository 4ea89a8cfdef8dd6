# scripts/kernel-arches.sh -- the kernel series cross-compiled for the
# architectures whose refusals cannot run here (issue 35: B-3, M-9).
#
#   ./build.sh kernel-arches
#
#   x86_64 + XEN_PV     x86's arch_pristine_mm_supported() (patch 1) has
#                       Xen PV to test at run time
#   arm64 + ARM64_GCS   arm64's arch_pristine_mm_supported() (patch 17)
#   mips64              _NSIG is 128: io_uring/spawn.c refuses chains at
#                       compile time (M-9)
#   i386                a 32-bit kernel: the same
#
# For each: its defconfig, plus IO_URING and the option above, checked to be
# set; the whole series applied; then the objects that hold the hooks
# and the refusals compiled (fork, exec, binfmt_elf, io_uring's spawn.c
# and query.c, the architecture's process.c).  The run-time side of the
# refusal is tested on x86 by tests/kernel/spawn.v4/arch_refused.c
# through a switch of the test kernel.  Cross compilers:
# gcc-aarch64-linux-gnu and gcc-mips64-linux-gnuabi64 (Debian 12; they
# conflict with gcc-multilib).  Ends with "kernel-arches: N passed, N
# failed"; logs in $CACHE/logs/kernel-arches/.

# name ARCH CROSS_COMPILE DEFCONFIG OPCODES options...  OPCODES: "run" if
# io_uring/opdef.o must reach io_clone_prep() (the refusal is decided at
# run time, by the hook), "refused" if it must not (compile time, M-9).
KERNEL_ARCHES=(
  "x86_64-xenpv x86_64 - defconfig run XEN XEN_PV"
  "arm64-gcs arm64 aarch64-linux-gnu- defconfig run ARM64_GCS"
  "mips64 mips mips64-linux-gnuabi64- 64r2_defconfig refused 64BIT"
  "i386 i386 - defconfig refused -"
)

kernel_arches_main ()
{
  [ $# -eq 0 ] || die "usage: ./build.sh kernel-arches"
  . "$TOP/scripts/kernel.sh"
  kernel_tarball
  need_packages build-essential bc bison flex libelf-dev libssl-dev \
    gcc-aarch64-linux-gnu gcc-mips64-linux-gnuabi64
  local th src tree logs patches p f spec name arch cross defconfig opts obj
  local pass=0 fail=0
  th=$(kernel_tarball_hash)
  src=$CACHE/kernel/src-$th
  tree=$CACHE/kernel/arches-$th
  logs=$CACHE/logs/kernel-arches
  mkdir -p "$CACHE/kernel" "$logs"
  exec 8>"$CACHE/kernel/.tree.lock"
  flock 8
  _kernel_extract "$src"
  mapfile -t patches < <(kernel_patches)
  [ ${#patches[@]} -gt 0 ] || die "no patches in $KERNEL_SERIES_DIR"
  rm -rf "$tree" && cp -al "$src" "$tree" || die "cannot create $tree"
  # The tree is hard-linked to the pristine one: copy what the series
  # touches before it is written.
  for f in $(_kernel_patch_files "${patches[@]}"); do
    [ -f "$tree/$f" ] && { cp "$tree/$f" "$tree/$f.new" && mv -f "$tree/$f.new" "$tree/$f"; }
  done
  for p in "${patches[@]}"; do
    (cd "$tree" && GIT_CEILING_DIRECTORIES=$CACHE git apply -p1 "$p") \
      > "$logs/apply.log" 2>&1 || die "${p##*/} does not apply ($logs/apply.log)"
  done
  for spec in "${KERNEL_ARCHES[@]}"; do
    read -r name arch cross defconfig opcodes opts <<< "$spec"
    [ "$cross" = - ] && cross=
    [ "$opts" = - ] && opts=
    obj=$CACHE/kernel/obj-$th-arch-$name
    if run_step "$logs/$name.log" "kernel-arches: $name ($defconfig, IO_URING${opts:+ $opts})" \
	 _kernel_arch_build "$tree" "$obj" "$arch" "$cross" "$defconfig" "$opts" \
	   "$opcodes"; then
      pass=$((pass + 1))
      say "kernel-arches: PASS: $name: $(tail -n 1 "$logs/$name.log")"
    else
      fail=$((fail + 1))
      say "kernel-arches: FAIL: $name ($logs/$name.log)"
    fi
  done
  say "kernel-arches: $pass passed, $fail failed"
  [ $fail -eq 0 ]
}

# _kernel_arch_build TREE OBJ ARCH CROSS DEFCONFIG "OPTS" OPCODES
_kernel_arch_build ()
{
  local tree=$1 obj=$2 arch=$3 cross=$4 defconfig=$5 opts=$6 opcodes=$7 o
  local objs=() refs
  local mk=(make -C "$tree" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" -j"$JOBS")
  mkdir -p "$obj"
  locked "${mk[@]}" "$defconfig" || return 1
  for o in IO_URING $opts; do
    "$tree/scripts/config" --file "$obj/.config" -e "$o" || return 1
  done
  locked "${mk[@]}" olddefconfig || return 1
  for o in IO_URING $opts; do
    grep -qx "CONFIG_$o=y" "$obj/.config" \
      || { echo "CONFIG_$o is not set after olddefconfig"; return 1; }
  done
  locked "${mk[@]}" prepare || return 1
  # What holds the hooks and the refusals, and the files around them.
  objs=(kernel/fork.o fs/exec.o fs/binfmt_elf.o io_uring/spawn.o
	io_uring/query.o io_uring/opdef.o)
  case $arch in
    x86_64|i386) objs+=(arch/x86/kernel/process.o) ;;
    *) objs+=("arch/$arch/kernel/process.o") ;;
  esac
  locked "${mk[@]}" "${objs[@]}" || return 1
  # Where chains cannot run at all, the opcode table must not reach the
  # spawn preps: every spawn opcode is io_eopnotsupp_prep().
  refs=$("${cross}nm" -u "$obj/io_uring/opdef.o" | grep -c -w io_clone_prep || true)
  case $opcodes in
    run) [ "$refs" -gt 0 ] || { echo "opdef.o does not reach io_clone_prep()"; return 1; } ;;
    refused) [ "$refs" -eq 0 ] || { echo "opdef.o reaches io_clone_prep()"; return 1; } ;;
  esac
  echo "built ${#objs[@]} objects: ${objs[*]}; the spawn opcodes: $opcodes"
}
