#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where each CPU's time went in the bulk cells (or the rr-many cells) of
one or more bench runs made with --kprofile: the mean share of each
kernel symbol in a CPU's samples, over the rounds of each mode, one table
per CPU.

    bench/kprofile.py DIR[,DIR...] [WORKLOAD] [MIN_PCT]

WORKLOAD is bulk (default), bulk-local or rr-many; a symbol is listed when it has
MIN_PCT (default 0.8) or more in some mode.  BPF programs are listed by
name (bpf:rfs_xdp), whatever their tag.  Where the logs count the page
pools' pages (bench since 2026-12-05g), a last table gives their mean
pages per second taken from the page allocator and given back.
"""
import collections
import glob
import re
import sys

LINE = re.compile(r'\s*([\d.]+)%\s+\[k\]\s+(\S+)')
PAGE_POOL = re.compile(r'== page pool.*: ppalloc=(\d+) ppfree=(\d+)')


def read(path):
    """({cpu: {symbol: pct}}, {what: pages per second} or None) of one
    .kprofile file"""
    cpus, cur, pool = {}, None, None
    for line in open(path):
        m = PAGE_POOL.match(line)
        if m:
            pool = {'from the page allocator': float(m.group(1)),
                    'back to it': float(m.group(2))}
            continue
        if line.startswith('== CPU'):
            cur = cpus.setdefault(line.split()[2], collections.Counter())
            continue
        m = LINE.match(line)
        if m and cur is not None:
            sym = m.group(2)
            if sym.startswith('bpf_prog_'):
                sym = 'bpf:' + sym.split('_', 3)[-1]
            cur[sym] += float(m.group(1))
    return cpus, pool


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if len(sys.argv) > 1 else 2
    workload = sys.argv[2] if len(sys.argv) > 2 else 'bulk'
    min_pct = float(sys.argv[3]) if len(sys.argv) > 3 else 0.8
    runs = collections.defaultdict(list)	# (mode, cpu) -> [Counter]
    pool = collections.defaultdict(list)	# mode -> [{what: pages/s}]
    for d in sys.argv[1].split(','):
        for f in sorted(glob.glob('%s/logs/*.%s.kprofile' % (d, workload))):
            mode = f.rsplit('/', 1)[-1].split('.')[1]
            cpus, pages = read(f)
            for cpu, c in cpus.items():
                runs[(mode, cpu)].append(c)
            if pages:
                pool[mode].append(pages)
    if not runs and not pool:
        print('kprofile: no logs/*.%s.kprofile in %s (run bench/run.sh --kprofile)'
              % (workload, sys.argv[1]), file=sys.stderr)
        return 1
    modes = sorted({m for m, _ in runs})
    for cpu in sorted({c for _, c in runs}, key=int):
        mean = {m: collections.Counter() for m in modes}
        for m in modes:
            rs = runs.get((m, cpu), [])
            for r in rs:
                for s, v in r.items():
                    mean[m][s] += v / len(rs)
        syms = sorted({s for m in modes for s, v in mean[m].items() if v >= min_pct},
                      key=lambda s: -max(mean[m][s] for m in modes))
        print('CPU %s, %s: mean %% of its samples (rounds: %s)' % (
            cpu, workload, ', '.join('%s %d' % (m, len(runs.get((m, cpu), []))) for m in modes)))
        print('| symbol | ' + ' | '.join(modes) + ' |')
        print('|---|' + '---|' * len(modes))
        for s in syms:
            print('| %s | ' % s + ' | '.join('%.1f' % mean[m][s] for m in modes) + ' |')
        print()
    if pool:
        pm = sorted(pool)
        print('Page pools, %s: pages per second (rounds: %s)' % (
            workload, ', '.join('%s %d' % (m, len(pool[m])) for m in pm)))
        print('| pages | ' + ' | '.join(pm) + ' |')
        print('|---|' + '---|' * len(pm))
        for k in ('from the page allocator', 'back to it'):
            print('| %s | ' % k + ' | '.join(
                '%.0f' % (sum(r[k] for r in pool[m]) / len(pool[m])) for m in pm) + ' |')
        print()
    return 0


if __name__ == '__main__':
    sys.exit(main())
