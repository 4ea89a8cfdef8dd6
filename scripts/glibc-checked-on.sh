# scripts/glibc-checked-on.sh -- the glibc cover letter's "Checked on"
# runs (issue 20), outside `check` for their time: the full `make check`
# of the subdirectories the series can affect, $CHECKED_ON_SUBDIRS
# (default: posix stdlib libio nptl elf signal), with the patched build.
#
#   ./build.sh checked-on [host] [vm] [vm-off]      (default: all three)
#
#   host    this machine's kernel, which has no spawn series: the clone
#           path (and no io_uring call; `check` proves that with strace)
#   vm      the VM on the plain kernel with the series, every test through
#           scripts/vm-test-wrapper (TIMEOUTFACTOR 10: TCG): the io_uring
#           path, proven per test as in `check` (no spawn through the
#           clone path, at least one chain)
#   vm-off  the same VM with GLIBC_TUNABLES=glibc.spawn.io_uring=0: the
#           clone path on the series kernel (a test that sets
#           GLIBC_TUNABLES itself overrides it), proven (no chain)
#
# Results in build/results/checked-on/: WHERE.sum (glibc's tests.sum),
# WHERE.log, WHERE-failed/ (the failed tests' output), WHERE-paths.txt,
# and summary.txt: per subdirectory PASS/FAIL/XFAIL/UNSUPPORTED for each
# run, then every test whose result differs between the runs.  Exits
# non-zero if a run has no results, a path proof fails, or a test that
# passes with vm-off does not pass with vm (the io_uring path must not
# fail what the clone path passes on the same kernel).  Failures common
# to all runs are listed, not judged: they are the environment's (the
# summary says which).  Runs are long (the VM ones take hours): each
# prints progress; tests run under the build lock.

CHECKED_ON_SUBDIRS=${CHECKED_ON_SUBDIRS:-posix stdlib libio nptl elf signal}

checked_on_main ()
{
  local runs=("$@") r results rc=0
  [ ${#runs[@]} -gt 0 ] || runs=(host vm vm-off)
  for r in "${runs[@]}"; do
    case $r in
      host|vm|vm-off) ;;
      *) die "usage: ./build.sh checked-on [host] [vm] [vm-off]" ;;
    esac
  done
  glibc_build
  results=$TOP/build/results/checked-on
  mkdir -p "$results"
  export GLIBC_RESULTS=$results
  if [[ " ${runs[*]} " = *" vm"* ]]; then
    kernel_build
    export VM_NAME=checked-on-$$
    bash scripts/vm.sh stop >/dev/null 2>&1 || true
    bash scripts/vm.sh start || die "the VM did not start"
    trap 'bash scripts/vm.sh stop >/dev/null 2>&1 || true' EXIT
  fi
  for r in "${runs[@]}"; do
    case $r in
      host) _checked_on_run host ;;
      vm) _checked_on_run vm \
	    test-wrapper="$TOP/scripts/vm-test-wrapper --timeoutfactor 10" ;;
      vm-off) _checked_on_run vm-off \
	    test-wrapper="$TOP/scripts/vm-test-wrapper --timeoutfactor 10 --env GLIBC_TUNABLES=glibc.spawn.io_uring=0" ;;
    esac || rc=1
  done
  if [ -n "${VM_NAME:-}" ]; then
    bash scripts/vm.sh stop >/dev/null 2>&1 || true
    trap - EXIT
  fi
  _checked_on_summary "$results" > "$results/summary.txt" || rc=1
  cat "$results/summary.txt"
  return $rc
}

# _checked_on_run WHERE [MAKE-ARGS...]: make check of the subdirectories,
# from scratch (no result of an earlier run is kept), into WHERE.sum.
_checked_on_run ()
{
  local where=$1 results=$GLIBC_RESULTS d
  shift
  (
    exec 9>"$BUILD_LOCK"
    flock -n 9 || { echo "waiting for the build lock $BUILD_LOCK"; flock 9; }
    export URING_SPAWN_LOCKED=1
    rm -f "$GBUILD/tests.sum"
    for d in $CHECKED_ON_SUBDIRS; do
      rm -f "$GBUILD/$d"/*.out "$GBUILD/$d"/*.test-result "$GBUILD/$d/subdir-tests.sum"
    done
    rm -rf "$results/$where-paths"
    # make check exits non-zero when a test fails: the summary decides.
    GLIBC_VM_PATHS=$results/$where-paths \
      run_step "$results/$where.log" "glibc ($where): make check subdirs=\"$CHECKED_ON_SUBDIRS\"" \
	make -C "$GBUILD" -j"$JOBS" "${GLIBC_MAKEFLAGS[@]}" "$@" \
	  check subdirs="$CHECKED_ON_SUBDIRS" || true
    [ -f "$GBUILD/tests.sum" ] || { echo "FAIL: $where: no tests.sum (see $results/$where.log)"; exit 1; }
    cp "$GBUILD/tests.sum" "$results/$where.sum"
    _glibc_keep_failed "$where" "$results/$where.sum"
  ) || return 1
  if [ "$where" != host ]; then
    _glibc_path_proof "$where" >/dev/null
  fi
}

# _checked_on_summary RESULTS: the table and the differences.
_checked_on_summary ()
{
  local results=$1 f runs=() differs=0
  for f in host vm vm-off; do
    [ -f "$results/$f.sum" ] && runs+=("$f")
  done
  [ ${#runs[@]} -gt 0 ] || { echo "FAIL: no run has results in $results"; return 1; }
  printf 'glibc %s with the series, make check of: %s\n' "$GLIBC_VERSION" "$CHECKED_ON_SUBDIRS"
  for f in "${runs[@]}"; do
    printf '  %-7s %s\n' "$f" "$(_checked_on_where "$f")"
  done
  awk -v runs="${runs[*]}" -v subdirs="$CHECKED_ON_SUBDIRS" '
    BEGIN {
      nr = split (runs, r, " "); ns = split (subdirs, s, " ")
      for (j = 1; j <= ns; j++) want[s[j]] = 1
    }
    FNR == 1 { n = split (FILENAME, p, "/"); run = p[n]; sub (/\.sum$/, "", run) }
    /^[A-Z]+: / {
      res = substr ($1, 1, length ($1) - 1); t = $2
      split (t, q, "/"); d = q[1]
      # A run of other subdirectories (an earlier host run of all six,
      # say) is compared on these only.
      if (!(d in want)) next
      c[run, d, res]++; tot[run, res]++
      got[t, run] = res; tests[t] = 1
    }
    END {
      printf "\n%-8s", "subdir"
      for (i = 1; i <= nr; i++) printf " %26s", r[i] " P/F/XF/U"
      printf "\n"
      for (j = 1; j <= ns + 1; j++) {
	d = j <= ns ? s[j] : "all"
	printf "%-8s", d
	for (i = 1; i <= nr; i++) {
	  if (d == "all")
	    v = sprintf ("%d/%d/%d/%d", tot[r[i], "PASS"], tot[r[i], "FAIL"] + tot[r[i], "ERROR"],
			 tot[r[i], "XFAIL"], tot[r[i], "UNSUPPORTED"])
	  else
	    v = sprintf ("%d/%d/%d/%d", c[r[i], d, "PASS"], c[r[i], d, "FAIL"] + c[r[i], d, "ERROR"],
			 c[r[i], d, "XFAIL"], c[r[i], d, "UNSUPPORTED"])
	  printf " %26s", v
	}
	printf "\n"
      }
      printf "\ntests whose result differs between the runs (%s):\n", runs
      bad = 0; ndiff = 0
      for (t in tests) {
	line = ""; same = 1; first = ""
	for (i = 1; i <= nr; i++) {
	  v = ((t, r[i]) in got) ? got[t, r[i]] : "-"
	  line = line sprintf (" %-12s", v)
	  if (i == 1) first = v; else if (v != first) same = 0
	}
	if (!same) {
	  ndiff++
	  mark = ""
	  if (((t, "vm-off") in got) && ((t, "vm") in got) \
	      && got[t, "vm-off"] == "PASS" && got[t, "vm"] != "PASS") { mark = "  <- FAIL: passes on the clone path, not on the io_uring path"; bad++ }
	  printf "  %-40s%s%s\n", t, line, mark
	}
      }
      if (ndiff == 0) print "  none"
      printf "\ntests that fail in every run (the environment'"'"'s, or 2.44'"'"'s):\n"
      none = 1
      for (t in tests) {
	all = 1
	for (i = 1; i <= nr; i++)
	  if (!((t, r[i]) in got) || (got[t, r[i]] != "FAIL" && got[t, r[i]] != "ERROR")) all = 0
	if (all) { printf "  %s\n", t; none = 0 }
      }
      if (none) print "  none"
      exit bad > 0
    }' $(for f in "${runs[@]}"; do printf '%s ' "$results/$f.sum"; done) || differs=1
  local proof=0
  for r in vm vm-off; do
    [ -f "$results/$r.sum" ] || continue
    if grep -q "^FAIL: $r-path-proof" "$results/$r.sum"; then
      echo "FAIL: $r: the path proof failed:"
      grep "^FAIL: $r-path-proof" "$results/$r.sum"
      proof=1
    else
      printf '%s: path proof passed: %s\n' "$r" "$(awk '$1 ~ /^[a-z]/ && $2 ~ /^[0-9]+$/ { c += $2; v += $4 } END { printf "%d chains, %d clone-path spawns", c, v }' "$results/$r-paths.txt") (a spawn off the run's path only in tests/vm-paths-allowed)"
    fi
  done
  [ $differs = 0 ] && [ $proof = 0 ]
}

_checked_on_where ()
{
  case $1 in
    host) echo "this machine's kernel $(uname -r), no spawn series: the clone path" ;;
    vm) echo "VM (QEMU TCG), 7.3-rc7 with the kernel series (plain): the io_uring path" ;;
    vm-off) echo "the same VM, GLIBC_TUNABLES=glibc.spawn.io_uring=0: the clone path" ;;
  esac
}
