# scripts/kselftests.sh -- mainline's own kselftests for what the kernel
# series touches, on the kernel with the series and on the same kernel
# without it (issue 19).
#
#   ./build.sh kselftests        (or: bash scripts/kselftests.sh)
#   bash scripts/kselftests.sh --compare MAINLINE.tap SERIES.tap
#
# 1. Builds, or takes from the cache, the plain kernel with the series
#    (build/kernel, as `bench` does) and the same kernel without it
#    (build/kernel-mainline: the same tarball and config.fragment, no
#    patch; `bash scripts/kernel.sh --mainline`).
# 2. Builds the kselftests of $KSELFTEST_TARGETS (default: exec clone3
#    pidfd ptrace seccomp) from the 7.3 tree once, against the headers of
#    the kernel without the series (its `make headers_install`), into
#    $CACHE/kselftests/KEY/install (log: $CACHE/logs/kselftests-build.log).
#    The tree's tools/, samples/ and scripts/ are copied first: the
#    extracted tarball is never written.
# 3. Boots each kernel once in the VM (scripts/vm.sh with VM_BZIMAGE,
#    under flock $CACHE/.vm.lock), copies the installed tests to the
#    guest's /tmp and runs them there with run_kselftest.sh, each test
#    with a timeout of $KSELFTEST_TIMEOUT seconds (default 300: QEMU TCG
#    is slow; the tests' own settings say 45, seccomp 180), the whole
#    boot at most $KSELFTEST_VM_TIMEOUT seconds (default 5400).
# 4. Takes the TAP results per test program (exec:execveat) and per
#    subtest (exec:execveat: <description>) of both runs and prints the
#    programs' table (test, without the series, with it), the subtests
#    whose results differ, and the counts:
#      programs: mainline: N ok, N not ok, N skip; series: N ok, N not ok, N skip
#      subtests: mainline: ...; series: ...
#
# Exit status: non-zero if a test (program or subtest) that passes
# without the series does not pass with it (not ok, or no result: the
# run died), or if a run gave no result at all; a pass that becomes a
# skip is shown ("changed") but does not fail.  The guests' kernel logs
# are saved and their BUG/WARNING/... lines counted, for information.
#
# Results in build/results/kselftests/: mainline.tap, series.tap (the
# runner's output), *.vm.log (vm.sh's), *.dmesg, table.txt (every
# program and subtest), summary.txt (what was printed).
#
# --compare A B re-reads two saved runs (A without the series, B with
# it) and prints the same table and counts, with the same exit status.
#
# --repeat COLLECTION:PROGRAM N runs one program N times on each kernel
# (one boot each), to tell a race from a change: results in
# repeat-C-P-{mainline,series}.repeat; exit status 0 unless a run gave
# no result.  The counts are for information, not a verdict.

_ks_here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# ---------------------------------------------------------------------
# In the guest: --guest INSTALL PREFIX TIMEOUT.  Runs the tests from a
# copy in /tmp (some write next to themselves), writes PREFIX.tap
# (PREFIX.tap.tmp while it runs), PREFIX.dmesg, PREFIX.uname and
# PREFIX.rc (run_kselftest.sh's status: 1 if a test failed).  Exits 0
# once the tests ran: their results are in the TAP.
_ks_guest ()
{
  local inst=$1 prefix=$2 timeout=$3 work=/tmp/kselftest rc=0
  _ks_guest_copy "$inst" "$prefix" "$work"
  rm -f "$prefix.tap"
  (cd "$work" && ./run_kselftest.sh -o "$timeout" 2>&1) | tee "$prefix.tap.tmp"
  rc=${PIPESTATUS[0]}
  mv -f "$prefix.tap.tmp" "$prefix.tap"
  printf '%s\n' "$rc" > "$prefix.rc"
  dmesg > "$prefix.dmesg" 2>&1
  sync
  printf 'kselftests: run_kselftest.sh exited %s\n' "$rc"
  return 0
}

# _ks_guest_copy INSTALL PREFIX WORK: record the kernel, copy the tests.
_ks_guest_copy ()
{
  uname -a > "$2.uname"
  printf 'kselftests: kernel %s\n' "$(uname -rv)"
  rm -rf "$3" && cp -a "$1" "$3" || { echo "cannot copy $1 to $3"; exit 125; }
}

# In the guest: --guest-repeat INSTALL PREFIX TIMEOUT COLLECTION:PROGRAM N.
# Runs one program N times from a copy in /tmp; PREFIX.repeat gets one
# line per failed run (its number, exit status and the "not ok" lines
# of its TAP) and a last line "runs: N passed, N failed".
_ks_guest_repeat ()
{
  local inst=$1 prefix=$2 timeout=$3 coll=${4%%:*} prog=${4#*:} n=$5
  local work=/tmp/kselftest i rc pass=0 fail=0
  _ks_guest_copy "$inst" "$prefix" "$work"
  [ -x "$work/$coll/$prog" ] || { echo "no test program $coll/$prog in $inst"; exit 125; }
  : > "$prefix.repeat.tmp"
  for i in $(seq "$n"); do
    rc=0
    (cd "$work/$coll" && timeout "$timeout" "./$prog" > /tmp/ks-run.tap 2>&1) || rc=$?
    if [ "$rc" = 0 ]; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      { printf 'run %s: exit %s\n' "$i" "$rc"
	grep -E '^not ok|Expected|Test terminated' /tmp/ks-run.tap | sed 's/^/  /'
      } >> "$prefix.repeat.tmp"
    fi
    [ $((i % 20)) != 0 ] || printf 'kselftests: %s: %s of %s runs, %s failed\n' "$4" "$i" "$n" "$fail"
  done
  printf 'runs: %s passed, %s failed\n' "$pass" "$fail" >> "$prefix.repeat.tmp"
  mv -f "$prefix.repeat.tmp" "$prefix.repeat"
  dmesg > "$prefix.dmesg" 2>&1
  sync
  return 0
}

# ---------------------------------------------------------------------
# TAP.  _ks_parse FILE: one line per result, in order of appearance:
#   P<TAB>COLLECTION:PROGRAM<TAB>RESULT
#   S<TAB>COLLECTION:PROGRAM: DESCRIPTION<TAB>RESULT<TAB>COLLECTION:PROGRAM<TAB>N
# RESULT is ok, not ok, skip, xfail or xpass.  Programs come from the
# runner's own lines ("ok 3 selftests: exec: execveat # SKIP"); subtests
# from the programs' TAP, which the runner prefixes with "# " (deeper
# levels, "# # ok ...", are not counted).  A subtest belongs to the last
# "# selftests: C: P" header.  Long hex numbers in a description
# (addresses) become 0x…, a description seen twice in one program gets
# " (#2)".
_ks_parse ()
{
  awk '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    # "ok N DESC # DIRECTIVE" or "not ok N ..." (prefix removed): sets
    # R and D.  The harness writes "ok 1 global.x #  " (an empty
    # directive), ksft_test_result_skip "ok 3 # SKIP reason".
    function result(line,   dir) {
      R = "ok"
      if (line ~ /^not ok/) { R = "not ok"; sub(/^not ok/, "", line) } else sub(/^ok/, "", line)
      N = line; sub(/^[ \t]+/, "", N); sub(/[^0-9].*/, "", N)
      sub(/^[ \t]+[0-9]+/, "", line)
      dir = ""
      if (match(line, / #( |$)/)) { D = substr(line, 1, RSTART - 1); dir = trim(substr(line, RSTART + 2)) }
      else D = line
      D = trim(D); sub(/^- /, "", D)
      if (dir ~ /^[Ss][Kk][Ii][Pp]/) { R = "skip" }
      else if (dir ~ /^XFAIL/) { R = "xfail" }
      else if (dir ~ /^XPASS/) { R = "xpass" }
      if (D == "") { D = dir; sub(/^[A-Za-z]+[ :]*/, "", D); D = trim(D) }
      gsub(/0x[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]+/, "0x…", D)
      gsub(/\t/, " ", D)
    }
    { sub(/\r$/, "") }
    # The line of each program goes before its subtests.
    function flush(   i) { for (i = 1; i <= nb; i++) print buf[i]; nb = 0 }
    /^# selftests: [^:]+: / {
      flush()
      s = $0; sub(/^# selftests: /, "", s)
      c = s; sub(/:.*/, "", c); p = s; sub(/^[^:]+: */, "", p); p = trim(p)
      prog = c ":" p; split("", seen); next
    }
    /^(not )?ok [0-9]+ selftests: [^:]+: / {
      result($0)
      s = D; sub(/^selftests: /, "", s)
      c = s; sub(/:.*/, "", c); p = s; sub(/^[^:]+: */, "", p); p = trim(p)
      printf "P\t%s:%s\t%s\n", c, p, R
      flush(); prog = ""; next
    }
    /^# (not )?ok [0-9]+/ && prog != "" {
      result(substr($0, 3))
      if (D == "") D = "(no description)"
      n = ++seen[D]; if (n > 1) D = D " (#" n ")"
      buf[++nb] = sprintf("S\t%s: %s\t%s\t%s\t%s", prog, D, R, prog, N)
    }
    END { flush() }
  ' "$1"
}

# _ks_compare A B: the table and the counts from two parsed runs (the
# output of _ks_parse for the kernel without the series, then with it).
# Subtests match by description; one seen in only one run is matched to
# the other run's subtest of the same program and number if that one
# too is in only one run (ksft_test_result_skip and many failures put
# the reason in the description), and shown as "A [series: B]".
# Writes the full table to $KS_TABLE if set.  Exit status 1 on a
# regression, 2 if a run has no result at all.
_ks_compare ()
{
  awk -F '\t' -v table="${KS_TABLE:-}" '
    function pad(s, n) { return sprintf("%-" n "s", s) }
    function count(r, lv, which,   s) {
      s = which ": " (n[r, lv, "ok"] + n[r, lv, "xfail"]) " ok, " \
	  (n[r, lv, "not ok"] + n[r, lv, "xpass"]) " not ok, " (n[r, lv, "skip"] + 0) " skip"
      if (n[r, lv, "xfail"]) s = s " (" n[r, lv, "xfail"] " xfail among the ok)"
      return s
    }
    FNR == 1 { run++ }
    {
      k = $1 SUBSEP $2
      if (!(k in known)) { known[k] = 1; order[++nk] = k; lev[nk] = $1; name[nk] = $2 }
      res[run, k] = $3; n[run, $1, $3]++; tot[run]++
      if ($1 == "S") { pn[run, $4 SUBSEP $5] = k; if (run == 1) at1[k] = $4 SUBSEP $5 }
    }
    END {
      # Pair the subtests that only one run has, by program and number.
      for (i = 1; i <= nk; i++) {
	k = order[i]
	if (lev[i] != "S" || !((1, k) in res) || ((2, k) in res) || !((2, at1[k]) in pn)) continue
	k2 = pn[2, at1[k]]
	if (((1, k2) in res) || (k2 in merged)) continue
	res[2, k] = res[2, k2]; merged[k2] = 1
	split(k2, kq, SUBSEP); sfx = kq[2]; sub(/^[^:]*:[^:]*: /, "", sfx)
	name[i] = name[i] " [series: " sfx "]"
      }
      w = 40
      for (i = 1; i <= nk; i++) if (lev[i] == "P" && length(name[i]) > w) w = length(name[i])
      if (w > 70) w = 70
      hdr = pad("test", w) "  " pad("mainline", 8) "  series"
      print hdr
      reg = 0; diff = 0
      for (i = 1; i <= nk; i++) {
	k = order[i]
	if (k in merged) continue
	a = ((1, k) in res) ? res[1, k] : "-"
	b = ((2, k) in res) ? res[2, k] : "-"
	mark = ""
	if ((a == "ok" || a == "xfail") && b != "ok" && b != "xfail" && b != "skip") { mark = "  <- REGRESSION"; reg++ }
	else if (a != b) { mark = "  <- changed" }
	line = pad(name[i], w) "  " pad(a, 8) "  " b mark
	if (table != "") print (lev[i] == "S" ? "  " : "") line > table
	if (lev[i] == "P") print line
	else if (a != b) { dl[++ns] = line }
      }
      print ""
      if (ns) { print "subtests whose results differ:"; for (i = 1; i <= ns; i++) print dl[i] }
      else print "subtests: every result is the same on both kernels"
      print ""
      print "programs: " count(1, "P", "mainline") "; " count(2, "P", "series")
      print "subtests: " count(1, "S", "mainline") "; " count(2, "S", "series")
      if (!tot[1] || !tot[2]) {
	print "kselftests: ERROR: no result from the run " (!tot[1] ? "without" : "with") " the series"
	exit 2
      }
      if (reg) { print "kselftests: " reg " test(s) pass without the series and fail with it"; exit 1 }
      print "kselftests: nothing that passes without the series fails with it"
    }
  ' "$1" "$2"
}

# _ks_report MAINLINE.tap SERIES.tap [OUTDIR]
_ks_report ()
{
  local a=$1 b=$2 dir=${3:-} tmp rc=0
  tmp=$(mktemp -d /tmp/kselftests.XXXXXX) || die "mktemp failed"
  _ks_parse "$a" > "$tmp/a"
  _ks_parse "$b" > "$tmp/b"
  if [ -n "$dir" ]; then
    KS_TABLE=$dir/table.txt _ks_compare "$tmp/a" "$tmp/b" > "$dir/summary.txt" || rc=$?
    cat "$dir/summary.txt"
  else
    _ks_compare "$tmp/a" "$tmp/b" || rc=$?
  fi
  rm -rf "$tmp"
  return "$rc"
}

# ---------------------------------------------------------------------
# On the host.

KSELFTEST_TARGETS=${KSELFTEST_TARGETS:-exec clone3 pidfd ptrace seccomp}
KSELFTEST_TIMEOUT=${KSELFTEST_TIMEOUT:-300}
KSELFTEST_VM_TIMEOUT=${KSELFTEST_VM_TIMEOUT:-5400}
# Bump when the way the tests are built changes.
_KS_RECIPE=1

# _ks_clean_list INSTALL: the exec Makefile's notice "exec selftests:
# skipping binfmt_misc_bpf, ..." lands in kselftest-list.txt, where
# run_kselftest.sh reads its first words as the collections "exec" and
# "selftests", so exec ran twice.  Keep the collection:test lines.
_ks_clean_list ()
{
  local list=$1/kselftest-list.txt
  grep -q -v '^[A-Za-z0-9_./-]*:[^ ]*$' "$list" || return 0
  grep -v '^[A-Za-z0-9_./-]*:[^ ]*$' "$list" | sed 's/^/kselftests: dropped from the list: /' >&2
  grep '^[A-Za-z0-9_./-]*:[^ ]*$' "$list" > "$list.new" && mv "$list.new" "$list"
}

# _ks_build MAINLINE-OUT: build (or reuse) the installed tests; print
# their directory on stdout.
_ks_build ()
{
  local hdrs=$1/usr/include th key dir log
  th=$(kernel_tarball_hash)
  key=$(hash_of "recipe $_KS_RECIPE" "tarball $th" "headers $(readlink -f "$1")" \
	  "targets $KSELFTEST_TARGETS" "$(gcc --version | head -n 1)" "$(ld --version | head -n 1)")
  dir=$CACHE/kselftests/$key
  if [ -f "$dir/.done" ]; then
    _ks_clean_list "$dir/install"
    say "kselftests ($KSELFTEST_TARGETS): cached in $dir/install" >&2
    printf '%s\n' "$dir/install"
    return 0
  fi
  [ -d "$hdrs/linux" ] || die "no kernel headers in $hdrs"
  local src=$CACHE/kernel/src-$th
  [ -f "$src/.done" ] || die "the 7.3 tree $src is not extracted (kernel_build does that)"
  mkdir -p "$CACHE/kselftests" "$CACHE/logs"
  exec 6>"$CACHE/kselftests/.lock"
  if ! flock -n 6; then
    say "waiting for another kselftests build ($CACHE/kselftests/.lock)" >&2
    flock 6
  fi
  if [ ! -f "$dir/.done" ]; then
    rm -rf "$dir" && mkdir -p "$dir/obj" || die "cannot create $dir"
    # A real copy (not hard links): a test's Makefile that wrote into its
    # source directory would otherwise write into the pristine tree.
    step "$CACHE/logs/kselftests-copy.log" "copying the 7.3 tree's tools/, samples/, scripts/ for the kselftests" \
      cp -a "$src/Makefile" "$src/tools" "$src/samples" "$src/scripts" "$dir/" >&2
    cp -a "$1/usr" "$dir/obj/usr" || die "cannot copy the headers from $1/usr"
    log=$CACHE/logs/kselftests-build.log
    # O=: objects in obj/kselftest, headers from obj/usr/include;
    # FORCE_TARGETS: a target that does not build fails the build.
    step "$log" "building the kselftests ($KSELFTEST_TARGETS) against $(cat "$1/release" 2>/dev/null || echo 7.3) without the series" \
      locked env GIT_CEILING_DIRECTORIES="$CACHE" \
	make -C "$dir/tools/testing/selftests" O="$dir/obj" TARGETS="$KSELFTEST_TARGETS" \
	  FORCE_TARGETS=1 KSFT_INSTALL_PATH="$dir/install" -j"$JOBS" install >&2
    [ -x "$dir/install/run_kselftest.sh" ] && [ -s "$dir/install/kselftest-list.txt" ] \
      || die "the kselftests did not install into $dir/install; log: $log"
    cp "$log" "$dir/build.log"
    _ks_clean_list "$dir/install"
    touch "$dir/.done"
    say "kselftests: $(wc -l < "$dir/install/kselftest-list.txt") test programs in $dir/install" >&2
  fi
  exec 6>&-
  printf '%s\n' "$dir/install"
}

# _ks_run NAME WHAT BZIMAGE INSTALL OUTDIR [C:P N]: one boot, the tests
# in it (with C:P N: that program N times, --guest-repeat).
_ks_run ()
{
  local name=$1 what=$2 bz=$3 inst=$4 out=$5 rc=0 guest
  guest=(--guest "$inst" "$out/$name" "$KSELFTEST_TIMEOUT")
  [ $# -lt 7 ] || guest=(--guest-repeat "$inst" "$out/$name" "$KSELFTEST_TIMEOUT" "$6" "$7")
  rm -f "$out/$name".*
  if ! flock -n "$CACHE/.vm.lock" true; then
    say "waiting for the VM lock $CACHE/.vm.lock (another VM run)"
  fi
  run_step "$out/$name.vm.log" "VM: the kselftests on the kernel $what ($bz)" \
    env VM_BZIMAGE="$bz" flock "$CACHE/.vm.lock" \
      bash "$_ks_here/scripts/vm.sh" --timeout "$KSELFTEST_VM_TIMEOUT" -- \
	bash "$_ks_here/scripts/kselftests.sh" "${guest[@]}" \
    || rc=$?
  case $rc in
    0) ;;
    124) warn "the $name run did not finish within ${KSELFTEST_VM_TIMEOUT}s (KSELFTEST_VM_TIMEOUT); its results are partial" ;;
    125) warn "the VM failed during the $name run (boot, panic or crash); see $out/$name.vm.log" ;;
    *) warn "the $name run exited $rc; see $out/$name.vm.log" ;;
  esac
  if [ -f "$out/$name.rc" ]; then
    case $(cat "$out/$name.rc") in
      0|1) ;;	# 1: a test failed
      *) warn "run_kselftest.sh exited $(cat "$out/$name.rc") in the $name run; see $out/$name.tap" ;;
    esac
  fi
  [ $# -lt 7 ] || return 0
  # A run that died leaves what it had written so far.
  if [ ! -f "$out/$name.tap" ]; then
    if [ -f "$out/$name.tap.tmp" ]; then
      mv "$out/$name.tap.tmp" "$out/$name.tap"
    else
      : > "$out/$name.tap"
    fi
  fi
}

_ks_dmesg_note ()
{
  local name=$1 f=$2 hits
  [ -f "$f" ] || { say "kernel log ($name): none saved"; return 0; }
  hits=$( . "$_ks_here/scripts/vm.sh"; grep -cE "$VM_DMESG_PATTERNS" "$f" ) || true
  say "kernel log ($name): ${hits:-0} line(s) like BUG/WARNING/Call Trace in $f"
}

# _ks_repeat MAINLINE-OUT SERIES-OUT INSTALL OUTDIR C:P N
_ks_repeat ()
{
  local mainline=$1 series=$2 inst=$3 out=$4 test=$5 n=$6 pair name kernel f rc=0
  local base=repeat-${test//[:\/]/-}
  _ks_run "$base-mainline" "without the series, $test $n times" "$mainline/bzImage" "$inst" "$out" "$test" "$n"
  _ks_run "$base-series" "with the series, $test $n times" "$series/bzImage" "$inst" "$out" "$test" "$n"
  printf '\n'
  for pair in "mainline $mainline" "series $series"; do
    read -r name kernel <<< "$pair"
    f=$out/$base-$name.repeat
    printf '== %s (%s)\n' "$name" "${kernel##*/}"
    if [ ! -s "$f" ]; then
      printf 'no result (see %s)\n' "${out#"$_ks_here"/}/$base-$name.vm.log"
      rc=1
      continue
    fi
    printf '%s: %s\n' "$test" "$(tail -n 1 "$f")"
    grep '^  not ok' "$f" | sed 's/^ *//' | sort | uniq -c || true
    _ks_dmesg_note "$name" "$out/$base-$name.dmesg"
  done
  return $rc
}

kselftests_main ()
{
  case "${1:-}" in
    --compare)
      [ $# -eq 3 ] || die "usage: bash scripts/kselftests.sh --compare MAINLINE.tap SERIES.tap"
      _ks_report "$2" "$3"
      return ;;
    -h|--help) sed -n '2,47p' "$_ks_here/scripts/kselftests.sh" | sed 's/^# \{0,1\}//'; return 0 ;;
    '') ;;
    --repeat)
      [ $# -eq 3 ] && [[ $2 == ?*:?* ]] && [[ $3 =~ ^[1-9][0-9]*$ ]] \
	|| die "usage: ./build.sh kselftests --repeat COLLECTION:PROGRAM N" ;;
    *) die "usage: ./build.sh kselftests (see bash scripts/kselftests.sh --help)" ;;
  esac
  case $KSELFTEST_TIMEOUT$KSELFTEST_VM_TIMEOUT in
    *[!0-9]*) die "KSELFTEST_TIMEOUT and KSELFTEST_VM_TIMEOUT are seconds" ;;
  esac
  # libcap-dev: exec, clone3 and seccomp link -lcap; rsync: lib.mk's
  # install; perl, python3: the runner's prefix.pl, exec's binfmt_script.py.
  need_packages build-essential libc6-dev libcap-dev rsync perl python3 \
    qemu-system-x86 util-linux coreutils
  local t0 series mainline inst out=$_ks_here/build/results/kselftests
  t0=$(date +%s)
  kernel_build
  kernel_build --mainline
  # The builds themselves, not the symlinks (another run may re-point
  # build/kernel meanwhile).
  series=$CACHE/kernel/out-$(kernel_key plain)
  mainline=$CACHE/kernel/out-$(kernel_key mainline)
  [ -f "$series/.done" ] && [ -f "$mainline/.done" ] || die "no kernel build at $series or $mainline"
  [ "$series" != "$mainline" ] || die "the kernels with and without the series are the same build ($series)"
  inst=$(_ks_build "$mainline") || exit 1
  mkdir -p "$out"
  # One results directory per clone at a time.
  exec 7>"$out/.lock"
  if ! flock -n 7; then
    say "waiting for another kselftests run in this clone ($out/.lock)"
    flock 7
  fi
  if [ "${1:-}" = --repeat ]; then
    _ks_repeat "$mainline" "$series" "$inst" "$out" "$2" "$3"
    return
  fi
  _ks_run mainline "without the series" "$mainline/bzImage" "$inst" "$out"
  _ks_run series "with the series" "$series/bzImage" "$inst" "$out"
  _ks_dmesg_note "without the series" "$out/mainline.dmesg"
  _ks_dmesg_note "with the series" "$out/series.dmesg"
  say "the kselftests took $(( ($(date +%s) - t0) / 60 )) min; results in ${out#"$_ks_here"/}"
  printf '\n'
  _ks_report "$out/mainline.tap" "$out/series.tap" "$out"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  if [ "${1:-}" = --guest-repeat ]; then
    shift
    [ $# -eq 5 ] || { echo "usage: kselftests.sh --guest-repeat INSTALL PREFIX TIMEOUT C:P N" >&2; exit 2; }
    _ks_guest_repeat "$@"
    exit
  fi
  if [ "${1:-}" = --guest ]; then
    shift
    [ $# -eq 3 ] || { echo "usage: kselftests.sh --guest INSTALL PREFIX TIMEOUT" >&2; exit 2; }
    _ks_guest "$@"
    exit
  fi
  set -eo pipefail
  TOP=$_ks_here
  cd "$TOP"
  . scripts/lib.sh
  . scripts/kernel.sh
  kselftests_main "$@"
fi
