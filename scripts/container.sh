# scripts/container.sh -- ./build.sh container: docker/Dockerfile, built
# and run where there is no Docker daemon and no image registry.
# Sourced by build.sh after lib.sh, glibc.sh and kernel.sh.
#
#   ./build.sh container [--build-only]
#
# 1. a minbase Debian 12 root by debootstrap from Debian's mirror, with
#    bookworm-updates and bookworm-security in its APT sources (cached by
#    scripts/rootfs.sh), imported once as the local image
#    localhost/uring-spawn-base:bookworm-KEY;
# 2. `buildah bud --isolation=chroot --layers` of docker/Dockerfile with
#    --build-arg BASE=that image: installs the build's packages, builds the
#    kernels and glibc (the layers stay in buildah's storage, so an
#    unchanged step is not run again);
# 3. the image's default command (./build.sh check) in a container of it
#    (`buildah run --isolation=chroot`); its output in
#    build/container/check.log and its build/results in
#    build/container/results; the last line is the check's
#    "N passed, N failed", and the exit status is the check's.
# Everything runs under the build lock (one hold for 2, one for 3).

CONTAINER_IMAGE=${CONTAINER_IMAGE:-localhost/uring-spawn:latest}

_ct_here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$_ct_here/scripts/rootfs.sh"
. "$_ct_here/scripts/deb.sh"

# _ct_base_image ROOT: import ROOT as a local image (once); print its name.
_ct_base_image ()
{
  local root=$1 name
  name=localhost/uring-spawn-base:bookworm-${root##*-}
  if ! buildah inspect --type image "$name" >/dev/null 2>&1; then
    local ctr mnt
    ctr=$(buildah from scratch) || die "buildah from scratch failed"
    mnt=$(buildah mount "$ctr") || die "buildah mount failed"
    cp -a "$root/." "$mnt/" || die "copying $root into the image failed"
    rm -f "$mnt/.uring-spawn-packages"
    buildah umount "$ctr" >/dev/null
    buildah config --cmd /bin/bash --env LANG=C.UTF-8 \
      --label org.opencontainers.image.description="Debian 12 (bookworm) minbase, debootstrapped by uring-spawn" \
      "$ctr" >/dev/null
    buildah commit --rm "$ctr" "$name" >/dev/null || die "buildah commit failed"
  fi
  printf '%s\n' "$name"
}

# _ct_build BASE: the Dockerfile built on the image BASE.
_ct_build ()
{
  local base=$1
  (
    cd "$_ct_here" || exit 1
    buildah bud --isolation=chroot --layers --pull=never --format docker \
      --build-arg BASE="$base" \
      --ignorefile docker/Dockerfile.dockerignore \
      -f docker/Dockerfile -t "$CONTAINER_IMAGE" .
  )
}

# _ct_run OUTDIR: the image's default command in a new container; its
# build/results copied out; the container removed.  Returns its status.
_ct_run ()
{
  local out=$1 ctr rc=0 conf
  # The image's config as JSON (this buildah's --format has no json).
  conf=$(buildah inspect --type image "$CONTAINER_IMAGE") || return 1
  # Its working directory, then its default command, a line each.
  local lines=() wd args
  mapfile -t lines < <(python3 -c '
import json, sys
c = json.loads(sys.stdin.read())["OCIv1"]["config"]
print("\n".join([c.get("WorkingDir") or "/"] + (c.get("Cmd") or [])))' <<<"$conf")
  wd=${lines[0]:-/}
  args=("${lines[@]:1}")
  [ ${#args[@]} -gt 0 ] || { echo "the image has no default command" >&2; return 1; }
  ctr=$(buildah from --pull=never "$CONTAINER_IMAGE") || return 1
  echo "default command: ${args[*]} (in $wd)"
  buildah run --isolation=chroot --workingdir "$wd" "$ctr" -- "${args[@]}" || rc=$?
  local mnt
  if mnt=$(buildah mount "$ctr"); then
    rm -rf "$out/results"
    cp -rL "$mnt$wd/build/results" "$out/results" 2>/dev/null || true
    cp "$mnt/etc/uring-spawn-versions" "$out/versions" 2>/dev/null || true
    buildah umount "$ctr" >/dev/null
  fi
  buildah rm "$ctr" >/dev/null
  return $rc
}

container_main ()
{
  local build_only=0
  case "${1:-}" in
    '') ;;
    --build-only) build_only=1 ;;
    *) die "usage: ./build.sh container [--build-only]" ;;
  esac
  need_packages buildah debootstrap python3
  local out=$_ct_here/build/container t0 t1 root base
  mkdir -p "$out"
  t0=$(date +%s)
  root=$(rootfs_bookworm container)
  base=$(locked_fn _ct_base_image "$root")
  say "container: base image $base (from $root)"
  step "$out/build.log" "container: buildah bud docker/Dockerfile (cold: about 45 min)" \
    locked_fn _ct_build "$base"
  t1=$(date +%s)
  echo $(( t1 - t0 )) > "$out/build-seconds"
  say "container: image $CONTAINER_IMAGE built in $(( t1 - t0 ))s"
  [ $build_only = 1 ] && return 0
  say "container: running its default command (./build.sh check) in it; output in build/container/check.log"
  local rc=0
  rm -f "$out/check.status"
  { locked_fn _ct_run "$out" 2>&1; echo $? > "$out/check.status"; } \
    | tee "$out/check.log" | grep --line-buffered -E '^==>|passed, .* failed' || true
  rc=$(cat "$out/check.status" 2>/dev/null || echo 1)
  echo $(( $(date +%s) - t1 )) > "$out/run-seconds"
  say "container: the check ran $(( $(date +%s) - t1 ))s in the container (exit $rc); image build $(cat "$out/build-seconds")s"
  # The check's own count, not what buildah prints after a failure.
  grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/check.log" | tail -n 1 \
    || tail -n 1 "$out/check.log"
  return "$rc"
}
