# scripts/deb-test.sh -- ./build.sh deb-test: a whole Debian 12 system on
# our libc6, booted on the kernel with the series, against the same system
# on Debian's own libc6.  Sourced by build.sh after lib.sh, glibc.sh,
# kernel.sh and deb.sh.
#
#   ./build.sh deb-test [--keep] [--stock-only]
#
# 1. the .debs of ./build.sh deb (built first if missing: about half an hour);
# 2. the plain kernel with the series (build/kernel/bzImage);
# 3. a debootstrapped minbase bookworm root with make, python3 and gawk
#    (cached: scripts/rootfs.sh);
# 4. two throw-away copies of it under $CACHE/deb-test/: "stock" as
#    debootstrapped (Debian's libc6), "patched" with our libc6, libc-bin...
#    installed by `dpkg -i` (every built package that the root has);
# 5. each copy booted as the guest's / (virtio-9p, read-write) under QEMU,
#    PID 1 scripts/deb-test-init.sh, which runs scripts/deb-test-guest.sh:
#    GNU make (200 targets, -j2), Python's subprocess, gawk's system() and
#    pipes, dpkg-deb, dpkg and apt running maintainer scripts, and the
#    controls env, xargs, find -exec, sh -c, runuser, su; with the trace
#    events io_uring:io_uring_spawn and sched:sched_process_exec on;
# 6. the comparison: every test's output and status must be the same in
#    both; the spawns that went through io_uring are counted per test and
#    program; make and python must show some on "patched", none with the
#    tunable glibc.spawn.io_uring=0 or the sysctl
#    kernel.io_uring_spawn_disabled=1, and "stock" none at all.
#
# Results: build/deb-test/results.md (the table), build/deb-test/{stock,patched}/
# (outputs, trace, guest log, console log).  The last line is
# "deb-test: N passed, N failed".  --keep leaves the two roots in
# $CACHE/deb-test/ (they are replaced by the next run anyway).

DEBTEST_PACKAGES=(make python3 gawk)
DEBTEST_TIMEOUT=${DEBTEST_TIMEOUT:-1800}

# _debtest_boot ROOT RUNDIR: boot ROOT as / under QEMU; the guest's
# console log goes to RUNDIR/console.log.  Runs under the build lock.
_debtest_boot ()
{
  local root=$1 run=$2 kernel=$_deb_here/build/kernel/bzImage accel=${VM_ACCEL:-tcg} cpu=max
  [ "$accel" = kvm ] && cpu=host
  local t0=$(date +%s) rc=0
  timeout --signal=KILL "$DEBTEST_TIMEOUT" setpriv --pdeathsig KILL -- \
    qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp 2 -m 2G \
      -nographic -nodefaults -no-user-config -no-reboot \
      -kernel "$kernel" \
      -append "console=ttyS0 root=/dev/root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose rw init=/uring-spawn-init acpi=noirq panic=-1 oops=panic" \
      -fsdev "local,id=fsroot,path=$root,security_model=passthrough,multidevs=remap" \
      -device virtio-9p-pci,fsdev=fsroot,mount_tag=/dev/root \
      -device virtio-rng-pci \
      -serial "file:$run/console.log" < /dev/null > "$run/qemu.log" 2>&1 || rc=$?
  echo $(( $(date +%s) - t0 )) > "$run/boot-seconds"
  [ $rc -eq 137 ] && echo "QEMU killed after ${DEBTEST_TIMEOUT}s (DEBTEST_TIMEOUT)" >&2
  return $rc
}

# _debtest_root NAME BASE: a fresh copy of BASE for one run, with the
# guest's init and script in it.  Prints its path.
_debtest_root ()
{
  local name=$1 base=$2 root=$CACHE/deb-test/$1
  rm -rf "$root"
  mkdir -p "$CACHE/deb-test"
  cp -a "$base" "$root" || die "cannot copy $base to $root"
  install -m 755 "$_deb_here/scripts/deb-test-init.sh" "$root/uring-spawn-init"
  mkdir -p "$root/root/uring-spawn-deb-test/out"
  install -m 755 "$_deb_here/scripts/deb-test-guest.sh" "$root/root/uring-spawn-deb-test/guest.sh"
  printf '%s\n' "$root"
}

# _debtest_install ROOT DEBDIR LOG: dpkg -i, in ROOT, every package of
# DEBDIR that ROOT has installed (libc6, libc-bin, ...).
_debtest_install ()
{
  local root=$1 debdir=$2 log=$3 d pkg debs=()
  for d in "$debdir"/*.deb; do
    pkg=$(dpkg-deb -f "$d" Package)
    if chroot "$root" dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
      debs+=("$d")
    fi
  done
  [ ${#debs[@]} -gt 0 ] || die "none of the packages in $debdir is installed in $root"
  mkdir -p "$root/tmp/uring-spawn-debs"
  cp "${debs[@]}" "$root/tmp/uring-spawn-debs/"
  {
    echo "dpkg -i ${debs[*]##*/}"
    chroot "$root" env PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
      sh -c 'dpkg -i /tmp/uring-spawn-debs/*.deb' 2>&1
  } > "$log" || { tail -n 20 "$log" >&2; die "dpkg -i of our packages failed in $root; log: $log"; }
  rm -rf "$root/tmp/uring-spawn-debs"
}

debtest_main ()
{
  local keep=0 variants=(stock patched)
  while [ $# -gt 0 ]; do
    case $1 in
      --keep) keep=1 ;;
      # The harness alone, on Debian's libc6 (no .debs needed).
      --stock-only) variants=(stock) ;;
      *) die "usage: ./build.sh deb-test [--keep] [--stock-only]" ;;
    esac
    shift
  done
  local t0=$(date +%s) out=$_deb_here/build/deb-test
  need_packages qemu-system-x86 debootstrap python3
  # 1. the packages, 2. the kernel.
  [ ${#variants[@]} -eq 1 ] || deb_build
  kernel_build
  local debdir=$_deb_here/build/deb
  # 3. the root.
  local base
  base=$(rootfs_bookworm deb-test "${DEBTEST_PACKAGES[@]}")
  local vroot
  vroot=$(sed -n 's/^libc6 //p' "$base/.uring-spawn-packages")
  say "deb-test: base root $base ($vroot: Debian's libc6)"
  # The stock root is the baseline: it must be the Debian version our
  # packages were built from, or the comparison mixes two revisions.
  if [ ${#variants[@]} -eq 2 ] && [ "$vroot" != "${DEB_VERSION%"$DEB_SUFFIX"}" ]; then
    die "deb-test: the root's libc6 is $vroot, our packages are $DEB_VERSION (from glibc-source $(deb_pkg_version glibc-source)): bring glibc-source and the root to the same version (remove $base to debootstrap it again)"
  fi
  # 4. the two copies.
  rm -rf "$out" && mkdir -p "$out/stock"
  # What this run used: glibc-source, linux-source, the patches' hashes.
  deb_record_versions "$out/versions.txt"
  local stock patched v
  stock=$(_debtest_root stock "$base")
  if [ ${#variants[@]} -eq 2 ]; then
    mkdir -p "$out/patched"
    patched=$(_debtest_root patched "$base")
    _debtest_install "$patched" "$debdir" "$out/patched/dpkg-i.log"
    say "deb-test: installed in the patched root: $(chroot "$patched" dpkg-query -W -f='${Package} ${Version}, ' libc6 libc-bin)"
  fi
  # 5. boot them, one after the other.
  for v in "${variants[@]}"; do
    step "$out/$v/boot.log" "deb-test: booting the $v root on $(cat "$_deb_here/build/kernel/release")" \
      locked_fn _debtest_boot "$CACHE/deb-test/$v" "$out/$v"
    [ -f "$CACHE/deb-test/$v/root/uring-spawn-deb-test/out/status" ] \
      || { tail -n 30 "$out/$v/console.log" >&2; die "the $v guest did not finish; console log: $out/$v/console.log"; }
    cp -a "$CACHE/deb-test/$v/root/uring-spawn-deb-test/out/." "$out/$v/"
    say "deb-test: $v guest done in $(cat "$out/$v/boot-seconds")s (guest script status $(cat "$out/$v/status"))"
  done
  [ $keep = 1 ] || rm -rf "$CACHE/deb-test/stock" "$CACHE/deb-test/patched"
  # 6. compare and count.
  local rc=0
  python3 "$_deb_here/scripts/deb-test-report.py" "$out" \
    "$(( $(date +%s) - t0 ))" | tee "$out/summary.txt" || rc=$?
  say "deb-test: results in build/deb-test/results.md; took $(( $(date +%s) - t0 ))s"
  tail -n 1 "$out/summary.txt"
  return $rc
}
