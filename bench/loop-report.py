#!/usr/bin/env python3
"""bench/loop-report.py LOOP.CSV N: the event loop's table (bench/loop.sh's
CSV) as Markdown: per parent and way of spawning, the median of the runs
(min-max) of spawns per second, the longest round trip the echo client
saw, and the loop's longest busy stretch; and the path proof (the chains
the kernel ran and the clone path's spawns, over all runs)."""
import csv, statistics, sys

rows = list(csv.DictReader(open(sys.argv[1])))
n = int(sys.argv[2])
parents = {"small": "small parent", "fds100k": "100,000 close-on-exec descriptors",
           "mem1g": "1 GiB parent"}
modes = {"uring": "spawn chain on the loop's ring (async)",
         "posix-uring": "posix_spawn in the loop, series' glibc (io_uring path)",
         "posix-clone": "posix_spawn in the loop, glibc 2.44's clone path",
         "thread-uring": "posix_spawn in 4 threads, io_uring path",
         "thread-clone": "posix_spawn in 4 threads, clone path"}

def col(rs, key, fmt="%.0f"):
    v = [float(r[key]) for r in rs if r[key]]
    if not v:
        return "?"
    return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(v), min(v), max(v))

bad = []
print("| parent | way | spawns/s | longest echo round trip, us | loop's longest busy stretch, us | chains / clone-path spawns |")
print("| --- | --- | --- | --- | --- | --- |")
for p in parents:
    for m in modes:
        rs = [r for r in rows if r["parent"] == p and r["mode"] == m]
        if not rs:
            continue
        chains = sum(int(r["chains"] or 0) for r in rs)
        clones = sum(int(r["clones"] or 0) for r in rs)
        failed = sum(int(r["failed"] or 1) for r in rs)
        want_chains = n * len(rs) if "clone" not in m else 0
        want_clones = n * len(rs) if "clone" in m else 0
        if failed or chains != want_chains or clones != want_clones:
            bad.append("%s %s: failed %d, chains %d (want %d), clone-path spawns %d (want %d)"
                       % (p, m, failed, chains, want_chains, clones, want_clones))
        print("| %s | %s | %s | %s | %s | %d / %d |" % (
            parents[p], modes[m], col(rs, "spawns_s"), col(rs, "max_rtt_us"),
            col(rs, "max_busy_us"), chains, clones))
print()
print("%d spawns of /bin/true per run, at most 4 at a time; %d runs per row: "
      "median (min-max)." % (n, max(int(r["rep"]) for r in rows)))
for b in bad:
    print("PATH OR RESULT WRONG: " + b)
sys.exit(1 if bad else 0)
