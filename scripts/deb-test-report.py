#!/usr/bin/env python3
"""scripts/deb-test-report.py OUT [SECONDS] -- ./build.sh deb-test's verdict.

OUT holds stock/ and patched/ (each: NAME.out, NAME.status, trace.txt,
guest.log); patched/ alone is fine (--stock-only is the reverse).  Compares
every test's output and status, counts the io_uring:io_uring_spawn events
per test and per spawning program (the program the spawner's tgid last
exec'd, from sched:sched_process_exec; else the trace's comm column),
writes OUT/results.md and OUT/counts.tsv, prints one line per check and
"deb-test: N passed, N failed" last; exit status 1 on any failure.
"""
import collections
import os
import re
import sys

LINE = re.compile(r'^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(\(\s*[-\d]+\)\s+)?\[\d+\]\s+\S+\s+'
                  r'(?P<ts>[\d.]+):\s+(?P<event>\w+):\s+(?P<rest>.*)$')
SPAWN = re.compile(r'tgid (-?\d+), pid (-?\d+), result (-?\d+), cflags (0x[0-9a-f]+)')
EXEC = re.compile(r'filename=(\S+) pid=(\d+) old_pid=(\d+)')
# Every test scripts/deb-test-guest.sh runs: a missing one fails.
EXPECTED = ('make', 'make-tunable-off', 'make-sysctl-off', 'python', 'gawk',
            'dpkg-deb', 'dpkg', 'apt', 'env', 'xargs', 'find-exec', 'sh-c',
            'runuser', 'su')
# Tests that must spawn through io_uring on the patched root, and the
# program whose spawns count.
MUST_SPAWN = {'make': 'make', 'python': 'python3'}
# Tests that must not: the two switches.
MUST_NOT = ('make-tunable-off', 'make-sysctl-off')


def tests_of(d):
    if not os.path.isdir(d):
        return []
    return sorted(f[:-7] for f in os.listdir(d) if f.endswith('.status'))


def read(p):
    try:
        with open(p, errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return None


def parse_trace(path):
    """{test: Counter((program, ok) -> n)} and the events outside tests;
    the tests whose BEGIN marker the trace has; the number of execs."""
    per = collections.defaultdict(collections.Counter)
    begun, execs = set(), 0
    prog_of = {}
    test = None
    text = read(path) or ''
    for line in text.splitlines():
        if line.startswith('#'):
            continue
        m = LINE.match(line)
        if not m:
            continue
        ev, rest = m.group('event'), m.group('rest')
        if ev == 'tracing_mark_write' or ev == 'print':
            r = rest.strip()
            if r.startswith('BEGIN '):
                test = r[6:].strip()
                begun.add(test)
            elif r.startswith('END '):
                test = None
        elif ev == 'sched_process_exec':
            execs += 1
            e = EXEC.search(rest)
            if e:
                prog_of[int(e.group(2))] = os.path.basename(e.group(1))
        elif ev == 'io_uring_spawn':
            s = SPAWN.search(rest)
            if not s:
                continue
            tgid, result = int(s.group(1)), int(s.group(3))
            prog = prog_of.get(tgid, m.group('comm').strip() or '?')
            per[test or '(outside tests)'][(prog, result == 0)] += 1
    return per, begun, execs


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: deb-test-report.py OUT [SECONDS]')
    out = sys.argv[1]
    secs = sys.argv[2] if len(sys.argv) > 2 else None
    stock_d, patched_d = os.path.join(out, 'stock'), os.path.join(out, 'patched')
    names = sorted(set(tests_of(stock_d)) | set(tests_of(patched_d)) | set(EXPECTED))
    have_stock, have_patched = os.path.isdir(stock_d), os.path.isdir(patched_d)
    traces = {v: parse_trace(os.path.join(out, v, 'trace.txt'))
              for v in ('stock', 'patched')}
    counts = {v: traces[v][0] for v in traces}
    passed = failed = 0
    lines = []
    if not (have_stock or have_patched):
        sys.exit(f'deb-test-report: neither {stock_d} nor {patched_d} exists')

    def verdict(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
        print(('PASS: ' if ok else 'FAIL: ') + what)

    def fmt(c, test):
        c = c.get(test, {})
        progs = sorted({p for p, _ in c})
        parts = []
        for p in progs:
            ok, bad = c.get((p, True), 0), c.get((p, False), 0)
            parts.append(f'{p} {ok}' + (f' (+{bad} failed)' if bad else ''))
        return ', '.join(parts) or '0'

    def ok_spawns(c, test, prog=None):
        return sum(n for (p, ok), n in c.get(test, {}).items()
                   if ok and (prog is None or p == prog))

    for v, d, have in (('stock', stock_d, have_stock), ('patched', patched_d, have_patched)):
        if not have:
            continue
        st = read(os.path.join(d, 'status'))
        verdict(st is not None and st.strip() == '0',
                f'{v} guest: guest.sh exit status {st.strip() if st else "missing"}')
        missing = [t for t in EXPECTED if read(os.path.join(d, t + '.status')) is None]
        verdict(not missing, f'{v} guest: all {len(EXPECTED)} tests ran'
                + (f' (missing: {" ".join(missing)})' if missing else ''))
        # The counts below mean something only if the trace saw every test.
        _, begun, execs = traces[v]
        unseen = [t for t in EXPECTED if t not in begun]
        verdict(not unseen and execs > 0,
                f'{v} guest: the trace has every test and {execs} execs'
                + (f' (no marker for: {" ".join(unseen)})' if unseen else ''))

    for t in names:
        so, ss = read(os.path.join(stock_d, t + '.out')), read(os.path.join(stock_d, t + '.status'))
        po, ps = read(os.path.join(patched_d, t + '.out')), read(os.path.join(patched_d, t + '.status'))
        same = None
        if have_stock and have_patched:
            same = (so == po and ss == ps)
            verdict(same, f'{t}: same output and status on both roots'
                    + ('' if same else f' (stock status {ss and ss.strip()}, patched {ps and ps.strip()}; '
                       f'diff {os.path.join(out, "stock", t + ".out")} {os.path.join(out, "patched", t + ".out")})'))
        status = (ps if have_patched else ss)
        if status is not None and status.strip() != '0':
            verdict(False, f'{t}: exit status {status.strip()} (output: {os.path.join(out, "patched" if have_patched else "stock", t + ".out")})')
        if have_patched:
            n = ok_spawns(counts['patched'], t)
            if t in MUST_SPAWN:
                n = ok_spawns(counts['patched'], t, MUST_SPAWN[t])
                verdict(n > 0, f'{t}: {MUST_SPAWN[t]} made {n} spawns through io_uring on the patched root')
            if t in MUST_NOT:
                verdict(n == 0, f'{t}: {n} spawns through io_uring (must be 0)')
        lines.append((t, fmt(counts['stock'], t) if have_stock else '-',
                      fmt(counts['patched'], t) if have_patched else '-',
                      '-' if same is None else ('same' if same else '**differs**'),
                      (ps or ss or '?').strip()))
    if have_stock:
        total = sum(n for c in counts['stock'].values() for n in c.values())
        verdict(total == 0, f'stock root (Debian\'s libc6): {total} io_uring spawns (must be 0)')
    extra = counts['patched'].get('(outside tests)') if have_patched else None
    with open(os.path.join(out, 'counts.tsv'), 'w') as f:
        f.write('root\ttest\tprogram\tthrough_io_uring\tfailed_chains\n')
        for v in ('stock', 'patched'):
            for t, c in sorted(counts[v].items()):
                for p in sorted({p for p, _ in c}):
                    f.write(f'{v}\t{t}\t{p}\t{c.get((p, True), 0)}\t{c.get((p, False), 0)}\n')
    info = {}
    for v in ('stock', 'patched'):
        g = read(os.path.join(out, v, 'guest.log')) or ''
        info[v] = {k: val for k, val in re.findall(r'^(kernel|libc6): (.*)$', g, re.M)}
    with open(os.path.join(out, 'results.md'), 'w') as f:
        f.write('# ./build.sh deb-test\n\n')
        for v in ('stock', 'patched'):
            if info[v]:
                f.write(f'- {v}: libc6 {info[v].get("libc6", "?")}, kernel {info[v].get("kernel", "?")}\n')
        if secs:
            f.write(f'- took {secs} s in all\n')
        vers = read(os.path.join(out, 'versions.txt'))
        if vers:
            f.write('- versions (versions.txt):\n\n')
            f.write(''.join(f'      {l}\n' for l in vers.splitlines()))
        f.write('\nSpawns through io_uring (io_uring:io_uring_spawn events with result 0), '
                'per test and spawning program:\n\n')
        f.write('| test | stock libc6 | patched libc6 | output and status | exit |\n')
        f.write('| --- | --- | --- | --- | --- |\n')
        for t, s, p, same, st in lines:
            f.write(f'| {t} | {s} | {p} | {same} | {st} |\n')
        if extra:
            f.write(f'\nOutside the tests (patched): {fmt(counts["patched"], "(outside tests)")}\n')
        f.write(f'\n{passed} passed, {failed} failed\n')
    print(f'deb-test: {passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
