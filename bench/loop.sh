#!/bin/sh
# bench/loop.sh -- in the guest (scripts/bench.sh's loop part): the
# event loop of examples/spawn-loop, which echoes on a socket pair while it
# spawns N children (/bin/true) at most 4 at a time, five ways:
#   uring         spawn chains on the loop's ring (liburing helpers)
#   posix-uring   posix_spawn() in the loop, the series' glibc (its
#                 io_uring path)
#   posix-clone   the same with GLIBC_TUNABLES=glibc.spawn.io_uring=0:
#                 glibc 2.44's clone path
#   thread-uring, thread-clone
#                 posix_spawn() and waitpid() in 4 worker threads
# for three parents: small, 100,000 close-on-exec descriptors, 1 GiB of
# touched memory.  REPS runs of each, each in scripts/vm-test-run, which
# counts the chains the kernel ran and the clone path's spawns (the path
# proof of each row).  Writes CSV lines to OUT:
#   parent,mode,rep,spawns_s,max_rtt_us,mean_rtt_us,max_busy_us,echoes,failed,chains,clones
# Usage: sh loop.sh TOP OUT N REPS
top=$1 out=$2 n=$3 reps=$4
ex=$top/build/examples/spawn-loop
run=$top/build/glibc/testrun.sh
paths=/tmp/loop-paths.$$
echo "parent,mode,rep,spawns_s,max_rtt_us,mean_rtt_us,max_busy_us,echoes,failed,chains,clones" > "$out"
for parent in small fds100k mem1g; do
  case $parent in
    small) opts= ;;
    fds100k) opts="-f 100000" ;;
    mem1g) opts="-m 1024" ;;
  esac
  for mode in uring posix-uring posix-clone thread-uring thread-clone; do
    r=1
    while [ $r -le "$reps" ]; do
      : > "$paths"
      case $mode in
	uring) set -- "$ex" $opts uring "$n" ;;
	*-uring) set -- "$run" "$ex" $opts ${mode%-uring} "$n" ;;
	*-clone) set -- env GLIBC_TUNABLES=glibc.spawn.io_uring=0 "$run" "$ex" $opts ${mode%-clone} "$n" ;;
      esac
      line=$(sh "$top/scripts/vm-test-run" "$paths" "$@")
      rc=$?
      read -r _ ok bad _ clones < "$paths"
      echo "$parent $mode $r: $line (status $rc; chains $ok ok $bad failed, clone-path spawns $clones)" >&2
      echo "$line" | awk -v p="$parent" -v m="$mode" -v r="$r" -v c="$ok" -v k="$clones" '
	{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	  printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", p, m, r, v["spawns/s"], v["max_rtt_us"],
		 v["mean_rtt_us"], v["max_busy_us"], v["echoes"], v["failed"], c, k }' >> "$out"
      r=$((r + 1))
    done
  done
done
rm -f "$paths"
