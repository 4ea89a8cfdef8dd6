# scripts/liburing.sh -- the liburing series (issue 39): Debian's liburing
# source (src:liburing in patches/sources.lock) with patches/liburing/,
# and the examples built on it.  Sourced by build.sh after
# scripts/sources.sh.
#
#   ./build.sh liburing           build the series' tree (library, the
#                                 spawn test, the examples) into the
#                                 cache; build/liburing points at it
#   ./build.sh liburing-suite [N] liburing's whole suite in the VM, N runs
#                                 (default 3) on the plain kernel with the
#                                 series and N on the same kernel without
#                                 it; the table in kernel/results/
#   liburing_check (part of check): the man pages render without a
#                                 warning, the spawn test skips on this
#                                 machine's kernel, and in the VM on the
#                                 debug kernel it passes under liburing's
#                                 own runner and the examples run with the
#                                 path proof (scripts/vm-test-run)
#
# The tree is $CACHE/liburing/tree-KEY (KEY: the tarball and the
# patches), a git tree of the tarball (tag "base") with the patches
# applied by git am: the series is edited there (or in any such tree) and
# written back with ./build.sh liburing --export [TREE].

LIBURING_PATCHES=$TOP/patches/liburing
LIBURING_LINK=$TOP/build/liburing
EXAMPLES=$TOP/examples

# liburing_build: the tree, configured and built; sets LIBURING_TREE.
liburing_build ()
{
  local tarball key tree
  tarball=$(sources_get src:liburing) || exit 1
  need_packages git make gcc man-db
  key=$(hash_of "$tarball" $(_liburing_series))
  tree=$CACHE/liburing/tree-$key
  # Built where it stays: configure records the tree's path.
  if [ ! -f "$tree/.done" ]; then
    rm -rf "$tree"
    mkdir -p "$tree" || die "cannot create $tree"
    step "$CACHE/logs/liburing-tree.log" "liburing: unpacking $(basename "$tarball") and applying patches/liburing/ (git am)" \
      _liburing_tree "$tarball" "$tree"
    step "$CACHE/logs/liburing-build.log" "liburing: building the library" \
      _liburing_make "$tree" -C src
    step "$CACHE/logs/liburing-build-test.log" "liburing: building the spawn test" \
      _liburing_make "$tree" -C test spawn.t
    touch "$tree/.done" || die "cannot write $tree/.done"
  fi
  mkdir -p "$TOP/build"
  ln -sfn "$tree" "$LIBURING_LINK"
  LIBURING_TREE=$tree
  step "$CACHE/logs/liburing-examples.log" "examples: building them on the series' liburing" \
    make -C "$EXAMPLES" LIBURING="$tree" OUT="$TOP/build/examples"
}

# The series' patches in order, without the cover letter.
_liburing_series ()
{
  ls "$LIBURING_PATCHES"/0*.patch | grep -v '/0000-'
}

_liburing_tree ()
{
  local tarball=$1 dir=$2
  tar -xzf "$tarball" -C "$dir" --strip-components=1 || return 1
  cd "$dir" || return 1
  git init -q && git add -f . \
    && git -c user.name=base -c user.email=base@invalid commit -qm "liburing (Debian $(basename "$tarball"))" \
    && git tag base \
    && git -c user.name=am -c user.email=am@invalid am -q --whitespace=nowarn $(_liburing_series) \
    && ./configure --prefix=/usr
}

_liburing_make ()
{
  local dir=$1
  shift
  make -C "$dir" -j"${JOBS:-3}" "$@"
}

# The pages the series adds or changes (not the names that link to them).
_liburing_pages ()
{
  (cd "$LIBURING_TREE" && git diff --name-only --diff-filter=AM base HEAD -- man/) \
    | while read -r p; do
	[ -L "$LIBURING_TREE/$p" ] || printf '%s\n' "$LIBURING_TREE/$p"
      done
}

# ./build.sh liburing --export [TREE]: write the series of TREE (a git
# tree of the tarball, tag "base", the series on top; default
# build/liburing) into patches/liburing/, the cover letter's subject and
# text taken from patches/liburing/cover.txt.
liburing_export ()
{
  local tree=${1:-$LIBURING_LINK} tmp subject
  [ -d "$tree/.git" ] && git -C "$tree" rev-parse -q --verify base >/dev/null \
    || die "$tree is not a liburing tree with a base tag"
  tmp=$(mktemp -d) || die "mktemp failed"
  git -C "$tree" format-patch -q --zero-commit --no-signature --cover-letter \
    --subject-prefix="RFC PATCH liburing" -o "$tmp" base..HEAD || die "git format-patch failed"
  subject=$(head -n 1 "$LIBURING_PATCHES/cover.txt")
  python3 - "$tmp"/0000-cover-letter.patch "$LIBURING_PATCHES/cover.txt" "$subject" <<'PY' || die "cannot write the cover letter"
import re, sys
p, cover, subject = sys.argv[1:]
s = open(p).read()
blurb = open(cover).read().split("\n", 2)[2]
s = re.sub(r"^Date: .*$", "Date: Mon, 7 Dec 2026 18:00:00 +0000", s, count=1, flags=re.M)
s = s.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***\n", blurb)
open(p, "w").write(s)
PY
  rm -f "$LIBURING_PATCHES"/0*.patch
  cp "$tmp"/*.patch "$LIBURING_PATCHES/" && rm -rf "$tmp"
  say "liburing: the series of $tree written to patches/liburing/"
}

# liburing_check: the check part; prints "liburing: N passed, N failed".
liburing_check ()
{
  local p=0 f=0 page err rc results=$TOP/build/results/liburing
  liburing_build
  rm -rf "$results" && mkdir -p "$results"

  for page in $(_liburing_pages); do
    err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    if [ $? -eq 0 ] && [ -z "$err" ]; then
      echo "PASS: man -l $(basename "$page")"; p=$((p + 1))
    else
      echo "FAIL: man -l $(basename "$page"): $err"; f=$((f + 1))
    fi
  done

  # This machine's kernel has no spawn chains: the test must say SKIP
  # (77), as liburing's runner counts it, and run nothing.
  rc=0
  "$LIBURING_TREE/test/spawn.t" > "$results/host-spawn.log" 2>&1 || rc=$?
  if [ "$rc" -eq 77 ]; then
    echo "PASS: test/spawn.t skips on $(uname -r)"; p=$((p + 1))
  else
    echo "FAIL: test/spawn.t on $(uname -r): status $rc, not 77 (skip); $results/host-spawn.log"
    f=$((f + 1))
  fi

  # In the VM: liburing's runner on the new test, then the examples.
  rc=0
  bash scripts/vm.sh --debug --no-build --timeout 1200 -- \
    bash "$TOP/scripts/liburing-vm-check" "$LIBURING_TREE" "$TOP/build/examples" "$results" \
    > "$results/vm.log" 2>&1 || rc=$?
  local np nf
  np=$(grep -c '^PASS:' "$results/vm.log" || true)
  nf=$(grep -c '^FAIL:' "$results/vm.log" || true)
  grep -E '^(PASS|FAIL):' "$results/vm.log" || true
  if [ "$rc" -ne 0 ] || [ "$np" -eq 0 ]; then
    echo "FAIL: the VM run (status $rc); $results/vm.log"
    nf=$((nf + 1))
  fi
  p=$((p + np)); f=$((f + nf))
  echo "liburing: $p passed, $f failed"
  [ "$f" -eq 0 ]
}

# ---------------------------------------------------------------------
# ./build.sh liburing-suite [N]: liburing's whole suite (its own runner,
# make runtests) in the VM, N boots (default 3) on the plain kernel with
# the series (build/kernel) and N on the same kernel without it
# (build/kernel-mainline), one boot per run.  A test is a regression if
# it fails (or times out) in a majority of the runs with the series and
# passes in a majority of the runs without it.  Each run's output is in
# build/results/liburing-suite/; the table (each test, its results on
# both kernels, the verdict) in kernel/results/liburing-suite-DATE.txt.
# Exit status non-zero on a regression, or a run that gave no result.
# LIBURING_SUITE_TESTS="a.t b.t" runs only those (to try the command);
# TIMEOUT is the runner's per-test limit (default 120 s here: TCG).
liburing_suite_main ()
{
  local runs=${1:-3} out=$TOP/build/results/liburing-suite kind i bz rc
  local series mainline table
  case $runs in ''|*[!0-9]*|0) die "usage: ./build.sh liburing-suite [RUNS]" ;; esac
  need_packages qemu-system-x86 util-linux
  liburing_build
  step "$CACHE/logs/liburing-suite-build.log" "liburing: building its whole test suite" \
    _liburing_make "$LIBURING_TREE" -C test all
  kernel_build
  kernel_build --mainline
  series=$CACHE/kernel/out-$(kernel_key plain)
  mainline=$CACHE/kernel/out-$(kernel_key mainline)
  [ -f "$series/.done" ] && [ -f "$mainline/.done" ] || die "no kernel build at $series or $mainline"
  rm -rf "$out" && mkdir -p "$out"
  for i in $(seq 1 "$runs"); do
    for kind in mainline series; do
      if [ $kind = series ]; then bz=$series/bzImage; else bz=$mainline/bzImage; fi
      rc=0
      run_step "$out/$kind-$i.vm.log" "VM: liburing's suite, run $i of $runs, on the kernel $([ $kind = series ] && echo with || echo without) the series" \
	env VM_BZIMAGE="$bz" flock "$CACHE/.vm.lock" \
	  bash "$TOP/scripts/vm.sh" --timeout "${LIBURING_SUITE_VM_TIMEOUT:-14400}" \
	    --env TIMEOUT="${TIMEOUT:-120}" --env LIBURING_SUITE_TESTS="${LIBURING_SUITE_TESTS:-}" -- \
	    bash "$TOP/scripts/liburing-vm-check" --suite "$LIBURING_TREE" "$out/$kind-$i.log" \
	|| rc=$?
      [ "$rc" -eq 0 ] || warn "the $kind run $i exited $rc; see $out/$kind-$i.vm.log"
    done
  done
  table=$TOP/kernel/results/liburing-suite-$(date +%F).txt
  _liburing_suite_table "$out" "$runs" > "$table.tmp" && mv "$table.tmp" "$table"
  say "the table: $table"
  tail -n 4 "$table"
  ! grep -q '^REGRESSION\|^NO RESULT' "$table"
}

# The results of one run's log: "TEST pass|fail|skip|timeout" per test.
# A test's output runs from its "Running test" line to the next one; the
# runner's verdict may be on either.
_liburing_suite_results ()
{
  awk '
    function verdict () {
      if (t == "") return
      r = "fail"
      if (b ~ /timed out/) r = "timeout"
      else if (b ~ /failed with ret|expected fail|failed dmesg/) r = "fail"
      else if (b ~ /Skipped/) r = "skip"
      else if (b ~ /[0-9]+ sec/) r = "pass"
      res[t] = r; order[++n] = t; t = ""
    }
    /^Running test / { verdict(); t = $3; b = $0; next }
    /^Test run complete/ { verdict(); next }
    /^Tests failed \(/ { sub(/^[^:]*: /, ""); for (i = 1; i <= NF; i++) { g = $i; gsub(/[<>]/, "", g); res[g] = "fail" } next }
    /^Tests timed out \(/ { sub(/^[^:]*: /, ""); for (i = 1; i <= NF; i++) { g = $i; gsub(/[<>]/, "", g); res[g] = "timeout" } next }
    t != "" { b = b "\n" $0 }
    END { verdict(); for (i = 1; i <= n; i++) print order[i], res[order[i]] }' "$1"
}

_liburing_suite_table ()
{
  local out=$1 runs=$2 kind i f
  printf "liburing %s's suite (make runtests), %s runs on each kernel, %s\n" \
    "$(awk '$1 == "src:liburing" { print $2 }' "$SOURCES_LOCK")" "$runs" "$(date -u '+%F %H:%M UTC')"
  printf 'without: %s\nwith:    %s\n' "$(kernel_key mainline)" "$(kernel_key plain)"
  printf 'A regression fails in a majority of the runs with the series and passes\n'
  printf 'in a majority of the runs without it.  p pass, F fail, s skip, T timeout,\n'
  printf '? no result.\n\n'
  for kind in mainline series; do
    for i in $(seq 1 "$runs"); do
      f=$out/$kind-$i.log
      if [ -s "$f" ] && grep -q '^Test run complete' "$f"; then
	_liburing_suite_results "$f" | sed "s/^/$kind $i /"
      else
	echo "$kind $i - none"
      fi
    done
  done | awk -v runs="$runs" '
    $3 == "-" { bad = bad "NO RESULT: the " $1 " run " $2 "\n"; next }
    {
      c = $4 == "pass" ? "p" : $4 == "fail" ? "F" : $4 == "skip" ? "s" : "T"
      r[$3, $1] = r[$3, $1] c
      if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 }
    }
    END {
      printf "%-12s %-40s %-8s %s\n", "verdict", "test", "without", "with"
      for (i = 1; i <= n; i++) {
	t = order[i]; a = r[t, "mainline"]; b = r[t, "series"]
	pa = gsub(/p/, "p", a); fb = gsub(/[FT]/, "&", b); pb = gsub(/p/, "p", b)
	v = a == b ? "same" : "differs"
	if (2 * fb > runs && 2 * pa > runs) { v = "REGRESSION"; nreg++ }
	printf "%-12s %-40s %-8s %s\n", v, t, a == "" ? "?" : a, b == "" ? "?" : b
	if (2 * pb > runs) passed++
      }
      printf "\n%d tests; %d pass in a majority of the runs with the series; %d regressions\n", n, passed, nreg
      printf "%s", bad
    }'
}
