#!/usr/bin/env python3
"""bench/kphases.py -- where the kernel's part of a spawn goes.

Run in the VM, on one vCPU, under the instruction clock (the kernel with
patches/kernel, and ring-cost built against its UAPI headers):

    VM_SMP=1 ./build.sh vm --icount -- python3 bench/kphases.py \\
        build/bench/bin/ring-cost 500

With --first it splits a thread's first ring instead: it runs
`ring-cost --first N` (N fresh processes, each making the ring as glibc
does and spawning twice through it) and probes what io_uring_setup()
and the ring's mmap() and madvise() run (FIRST_FUNCS); the figures are
per fresh process.

It runs `ring-cost --phases N` twice: once plain (its medians: the
spawning call, the wait for the chain's CQEs, waitpid), once with a
kprobe and a kretprobe on each kernel function below.  ring-cost marks
each mechanism's measured spawns in trace_marker; for each mechanism
this prints how often each function ran per spawn and its mean
inclusive time per call and per spawn, in µs of the guest clock (1000
instructions).  Every probe hit adds the same few hundred instructions
to every mechanism: compare the plain and the probed medians.

The trace clock is x86-tsc (exact); it is converted to the guest's
CLOCK_MONOTONIC with the two timestamps ring-cost writes in each marker.

A function is probed by its name in /proc/kallsyms, or by the one local
copy the compiler made of it (name.isra.N, name.constprop.N, name.part.N);
one the compiler inlined everywhere is not there and is reported as not
probed.  On 7.3 copy_mm() is inlined into copy_process() and
bprm_execve() into do_execveat_common(), so mm_init() (the chain's
pristine mm, and every exec's new mm) and do_execveat_common()
(execve()'s and the chain's exec alike) stand in for them.
"""

import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict

T = "/sys/kernel/tracing"
FUNCS = ["kernel_clone", "copy_process", "mm_init", "dup_fd", "dup_fd_exec",
         "io_spawn_clone_tw", "do_execveat_common", "begin_new_exec",
         "load_elf_binary", "exit_mmap", "exit_files", "release_task"]
CLONE = re.compile(r"^(?:\.(?:isra|constprop|part)\.\d+)+$")
# --first: the ring's set-up, from the system calls down.
FIRST_FUNCS = ["ksys_mmap_pgoff", "do_madvise", "io_uring_setup",
               "io_prepare_config", "percpu_ref_init", "io_alloc_cache_init",
               "io_create_region", "io_pin_pages", "io_sq_offload_create",
               "anon_inode_create_getfile", "__io_uring_add_tctx_node",
               "io_uring_alloc_task_context", "io_wq_create",
               "io_ring_add_registered_file"]
MECHS = ["CLONE+EXEC chain", "CLONE+EXEC chain, exec fails",
         "vfork+execve", "vfork+execve, exec fails"]


def w(name, text, append=False):
    # os.open: Python's append mode seeks, which tracefs refuses.
    fd = os.open(os.path.join(T, name),
                 os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def symbols():
    """FUNCS -> the text symbol to probe for each: the name itself, or its
    one local copy (name.isra.0...); absent if inlined."""
    found = defaultdict(list)
    with open("/proc/kallsyms") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in "tT":
                continue
            base, dot, rest = parts[2].partition(".")
            if base in FUNCS and (not dot or CLONE.match(dot + rest)):
                found[base].append(parts[2])
    return {f: (f if f in syms else syms[0])
            for f, syms in found.items() if f in syms or len(syms) == 1}


def setup():
    if not os.path.exists(os.path.join(T, "trace")):
        subprocess.run(["mount", "-t", "tracefs", "tracefs", T], check=True)
    w("tracing_on", "0")
    w("kprobe_events", "")
    probed = []
    syms = symbols()
    for f in FUNCS:
        sym = syms.get(f)
        if sym is None:
            print(f"kphases: {f}: not probed (not one text symbol in "
                  "/proc/kallsyms: inlined in this kernel, or several)")
            continue
        try:
            w("kprobe_events", f"p:kph/{f}_in {sym}\n", append=True)
            w("kprobe_events", f"r:kph/{f}_out {sym}\n", append=True)
            probed.append(f)
        except OSError as e:
            print(f"kphases: {f} ({sym}): not probed ({e.strerror})")
    w("trace_clock", "x86-tsc")
    w("buffer_size_kb", "131072")
    w("trace", "")
    w("events/kph/enable", "1")
    return probed


def teardown():
    w("tracing_on", "0")
    w("events/kph/enable", "0")
    w("kprobe_events", "")
    w("trace_clock", "local")


LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[\d+\]\s+\S+\s+(\d+): (\S+): (.*)$")
MARK = re.compile(r"ring-cost: (begin|end) (\d) (\d+)")


def analyse(lines, n, probed):
    windows = {}                    # m -> [tsc0, ns0, tsc1, ns1]
    events = []
    for line in lines:
        mo = LINE.match(line)
        if not mo:
            continue
        pid, ts, ev, rest = int(mo.group(2)), int(mo.group(3)), mo.group(4), mo.group(5)
        if ev == "tracing_mark_write":
            mk = MARK.search(rest)
            if mk:
                m = int(mk.group(2))
                slot = windows.setdefault(m, [None] * 4)
                if mk.group(1) == "begin":
                    slot[0], slot[1] = ts, int(mk.group(3))
                else:
                    slot[2], slot[3] = ts, int(mk.group(3))
            continue
        events.append((ts, pid, ev))
    open_ = defaultdict(list)
    per = defaultdict(lambda: [0, 0])   # (m, func) -> [calls, tsc]
    for ts, pid, ev in events:
        func, kind = ev.rsplit("_", 1)
        if kind == "in":
            open_[(pid, func)].append(ts)
        elif open_[(pid, func)]:
            t0 = open_[(pid, func)].pop()
            for m, (a, _, b, _) in windows.items():
                if a is not None and b is not None and a <= t0 <= b:
                    per[(m, func)][0] += 1
                    per[(m, func)][1] += ts - t0
    unit = "fresh process" if FUNCS is FIRST_FUNCS else "spawn"
    print(f"\nkernel functions, per {unit} (mean of {n}; µs of the guest "
          "clock, inclusive of what they call)")
    for m in sorted(windows):
        a, na, b, nb = windows[m]
        if None in (a, na, b, nb) or b == a:
            continue
        scale = (nb - na) / (b - a)     # guest ns per tsc tick
        if unit == "spawn":
            print(f"\n{MECHS[m]}: {(nb - na) / n / 1e3:.1f} µs per spawn+wait "
                  "(probed)")
        else:
            print(f"\nfresh process (fork, ring, two spawn+wait, exit): "
                  f"{(nb - na) / n / 1e3:.1f} µs each (probed)")
        print(f"  {'function':<27} {'calls/' + unit:>11} {'µs/call':>9} {'µs/' + unit:>9}")
        for f in probed:
            calls, tsc = per.get((m, f), (0, 0))
            if calls == 0:
                continue
            us = tsc * scale / 1e3
            print(f"  {f:<27} {calls / n:>11.2f} {us / calls:>9.1f} {us / n:>9.1f}")


def main():
    global FUNCS
    args = sys.argv[1:]
    mode = "--phases"
    if args[:1] == ["--first"]:
        mode, FUNCS = args.pop(0), FIRST_FUNCS
    if len(args) != 2:
        sys.exit("usage: kphases.py [--first] RING-COST N")
    n = int(args[1])
    # From tmpfs: an exec that reads over 9p makes the idle guest skip
    # ahead to its next timer under -icount sleep=off.
    prog = "/tmp/kphases-ring-cost"
    shutil.copy(args[0], prog)
    print("plain:", flush=True)
    subprocess.run(["taskset", "-c", "0", prog, mode, str(n)], check=True)
    probed = setup()
    try:
        print("\nprobed:", flush=True)
        w("tracing_on", "1")
        subprocess.run(["taskset", "-c", "0", prog, mode, str(n)],
                       check=True)
        w("tracing_on", "0")
        with open(os.path.join(T, "trace")) as f:
            lines = f.read().splitlines()
        lost = [l for l in lines if "LOST" in l]
        if lost:
            print("kphases: the trace buffer overflowed:", lost[0])
        analyse(lines, n, probed)
    finally:
        teardown()


if __name__ == "__main__":
    main()
