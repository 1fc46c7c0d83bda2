#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py OUT: results.tsv + meta.txt -> REPORT.md, summary.tsv,
and gnuplot inputs (plots/*.dat, plots/*.gp) for bench/report.sh to draw.

The statistics, per (workload, param, mode, metric), over its rounds:
  median, min, max; with 4 or more values also the quartiles q1 and q3
  (linear interpolation between order statistics, numpy's default: the
  value at position (n - 1) * q of the sorted values);
  ratios: per round, the mode's value over the reference mode's value in
  the same round (base, rfs, and cpumap where present), then the median,
  min and max of those ratios.  A round missing on either side, or a
  reference of 0, gives no ratio for that round.
Rows of round 0 (one-shot) count as one value each.
"""
import collections
import math
import os
import sys

WORKLOADS = [
    ('rr-many', 'Many-connection request/response (the RFS patch\'s netperf TCP_RR test)'),
    ('rpc', 'RPC with user-space work and migrating threads'),
    ('nic', 'NIC-like receive path: UDP injected on CPU 0 (BPF_PROG_TEST_RUN live frames)'),
    ('order-bulk', 'Ordering A/B: bulk TCP, receiver hopping CPUs'),
    ('order-udp', 'Ordering A/B: numbered UDP flows, readers hopping CPUs'),
    ('cost', 'Per-frame cost: BPF_PROG_TEST_RUN, plain and live frames'),
    ('sizing', 'Table sizing: steering accuracy against flows (simulation)'),
    ('rr', 'One TCP connection, ping-pong'),
    ('rr-local', 'One TCP connection, app on the RX CPU'),
    ('multi', 'Four TCP connections'),
    ('bulk', 'Bulk TCP'),
    ('bulk-local', 'Bulk TCP, receiver on the RX CPU'),
]
MODES = ['base', 'rps', 'rfs', 'xdp', 'xdp-batch', 'xdp-kernel', 'xdp-noguard', 'cpumap', 'pass', 'rfs-pass', 'sock', 'tp-floor', 'sim']
REFS = ['base', 'rfs', 'cpumap', 'pass', 'rfs-pass']
# metrics shown first, in this order; the rest follow by name
FIRST = ['tps', 'delivered_pps', 'ns_per_frame', 'accuracy_pct', 'p50_us',
         'p90_us', 'p99_us', 'p999_us', 'locality_pct', 'inversions',
         'ooo_segments']
PCTS = [('p50_us', 'p50'), ('p90_us', 'p90'), ('p99_us', 'p99'),
        ('p999_us', 'p99.9')]


def quantile(v, q):
    """Linear interpolation between order statistics (numpy default)."""
    s = sorted(v)
    h = (len(s) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def stats(v):
    r = {'n': len(v), 'median': quantile(v, 0.5), 'min': min(v),
         'max': max(v), 'q1': None, 'q3': None}
    if len(v) >= 4:
        r['q1'] = quantile(v, 0.25)
        r['q3'] = quantile(v, 0.75)
    return r


def fmt(x, ratio=False):
    if x is None:
        return '–'
    if ratio:
        return '%.3f' % x
    a = abs(x)
    if a >= 100 or a == int(a):
        return '%.0f' % x
    if a >= 10:
        return '%.1f' % x
    return '%.2f' % x


def load(path):
    """Rows of results.tsv as (w, p, mode, round, metric, value, unit)."""
    rows, bad = [], 0
    with open(path) as f:
        for i, line in enumerate(f):
            c = line.rstrip('\n').split('\t')
            if i == 0 and c[0] == 'workload':
                continue
            if len(c) != 7:
                bad += 1
                continue
            try:
                rows.append((c[0], c[1], c[2], int(c[3]), c[4], float(c[5]), c[6]))
            except ValueError:
                bad += 1
    return rows, bad


def order_key(names, first):
    return sorted(names, key=lambda m: (first.index(m) if m in first
                                        else len(first), m))


def param_dict(p):
    d = {}
    for kv in p.split(','):
        if '=' in kv:
            k, v = kv.split('=', 1)
            d[k] = v
    return d


def param_key(p):
    """Sort params by their numbers: n=16 before n=256."""
    out = []
    for kv in p.split(','):
        v = kv.split('=', 1)[-1]
        try:
            out.append((0, float(v), ''))
        except ValueError:
            out.append((1, 0, v))
    return out


class Results:
    def __init__(self, rows):
        # (w, p, mode, metric) -> {round: [values]}
        self.v = collections.defaultdict(lambda: collections.defaultdict(list))
        self.unit = {}
        for w, p, m, r, k, x, u in rows:
            self.v[(w, p, m, k)][r].append(x)
            self.unit[(w, k)] = u

    def workloads(self):
        return {k[0] for k in self.v}

    def params(self, w):
        return sorted({k[1] for k in self.v if k[0] == w}, key=param_key)

    def modes(self, w, p=None):
        return order_key({k[2] for k in self.v if k[0] == w and
                          (p is None or k[1] == p)}, MODES)

    def metrics(self, w):
        return order_key({k[3] for k in self.v if k[0] == w}, FIRST)

    def values(self, w, p, m, k):
        return [x for r in sorted(self.v.get((w, p, m, k), {}))
                for x in self.v[(w, p, m, k)][r]]

    def summary(self, w, p, m, k):
        v = self.values(w, p, m, k)
        return stats(v) if v else None

    def ratio(self, w, p, m, k, ref):
        """Per-round m / ref, summarised; None without a common round."""
        a = self.v.get((w, p, m, k), {})
        b = self.v.get((w, p, ref, k), {})
        rs = []
        for r in sorted(set(a) & set(b)):
            if r == 0:
                continue
            x = sum(a[r]) / len(a[r])
            y = sum(b[r]) / len(b[r])
            if y:
                rs.append(x / y)
        return stats(rs) if rs else None


def spread(s):
    if s is None:
        return '–', '–'
    mm = '%s–%s' % (fmt(s['min']), fmt(s['max']))
    iqr = '%s–%s' % (fmt(s['q1']), fmt(s['q3'])) if s['q1'] is not None else '–'
    return mm, iqr


def ratio_cell(s):
    if s is None:
        return '–'
    if s['n'] == 1:
        return fmt(s['median'], True)
    return '%s (%s–%s)' % (fmt(s['median'], True), fmt(s['min'], True),
                           fmt(s['max'], True))


def metric_table(res, w, k, out):
    unit = res.unit.get((w, k), '')
    # a ratio of counts, percentages or ratios says little: none for those
    refs = [r for r in REFS if unit not in ('count', 'pct', 'ratio')
            and any(r in res.modes(w, p) for p in res.params(w))
            and any(res.values(w, p, r, k) for p in res.params(w))]
    out.append('**%s** (%s)' % (k, unit))
    out.append('')
    head = ['param', 'mode', 'n', 'median', 'min–max', 'IQR'] + \
        ['× %s' % r for r in refs]
    out.append('| ' + ' | '.join(head) + ' |')
    out.append('|' + '---|' * len(head))
    for p in res.params(w):
        for m in res.modes(w, p):
            s = res.summary(w, p, m, k)
            if s is None:
                continue
            mm, iqr = spread(s)
            cells = [p, m, str(s['n']), fmt(s['median']), mm, iqr]
            for r in refs:
                cells.append('' if r == m else ratio_cell(res.ratio(w, p, m, k, r)))
            out.append('| ' + ' | '.join(cells) + ' |')
    out.append('')


def sizing_tables(res, out):
    """Pivot: flows down, table sizes across, one table per metric."""
    ps = res.params('sizing')
    by = collections.OrderedDict()
    for p in ps:
        d = param_dict(p)
        t = ','.join('%s=%s' % (x, d[x]) for x in d if x != 'flows')
        by.setdefault(t, {})[int(d.get('flows', 0))] = p
    flows = sorted({f for t in by for f in by[t]})
    for k in res.metrics('sizing'):
        out.append('**%s** (%s), by flows (rows) and sock_flow_entries / flow_cnt (columns)'
                   % (k, res.unit.get(('sizing', k), '')))
        out.append('')
        out.append('| flows | ' + ' | '.join(by) + ' |')
        out.append('|---|' + '---|' * len(by))
        for f in flows:
            cells = []
            for t in by:
                s = res.summary('sizing', by[t][f], 'sim', k) if f in by[t] else None
                cells.append(fmt(s['median']) if s else '–')
            out.append('| %d | %s |' % (f, ' | '.join(cells)))
        out.append('')


# ---------------------------------------------------------------- plots

class Plots:
    def __init__(self, out_dir):
        self.dir = os.path.join(out_dir, 'plots')
        os.makedirs(self.dir, exist_ok=True)
        self.made = []

    def write(self, name, data, script):
        with open(os.path.join(self.dir, name + '.dat'), 'w') as f:
            f.write(data)
        with open(os.path.join(self.dir, name + '.gp'), 'w') as f:
            f.write('set terminal pngcairo size 900,540 noenhanced font ",11"\n'
                    'set output "../%s.png"\n' % name)
            f.write('set key outside right top\nset grid ytics\n')
            f.write(script)
        self.made.append(name)
        return name + '.png'


def q(s):
    return '"%s"' % s.replace('"', "'")


def plot_lines(pl, name, title, xlabel, ylabel, xs, series, logx=False,
               logy=False, xtics=None, yrange=None):
    """series: [(label, {x: stats})]; lines with min-max bars."""
    lines = []
    for x in xs:
        row = [str(x)]
        for _, pts in series:
            s = pts.get(x)
            row += ['%g %g %g' % (s['median'], s['min'], s['max']) if s else '? ? ?']
        lines.append(' '.join(row))
    gp = 'set title %s\nset xlabel %s\nset ylabel %s\n' % (q(title), q(xlabel), q(ylabel))
    if logx:
        gp += 'set logscale x 2\n'
    if logy:
        gp += 'set logscale y\n'
    if yrange:
        gp += 'set yrange [%g:%g]\n' % yrange
    if xtics:
        gp += 'set xtics (%s)\n' % ', '.join('%s %s' % (q(l), x) for x, l in xtics)
        gp += 'set xrange [%g:%g]\n' % (xs[0] - 0.5, xs[-1] + 0.5)
    gp += 'set datafile missing "?"\nplot ' + ', \\\n     '.join(
        '"%s.dat" using 1:%d:%d:%d with yerrorlines lw 2 title %s'
        % (name, 2 + 3 * i, 3 + 3 * i, 4 + 3 * i, q(l))
        for i, (l, _) in enumerate(series)) + '\n'
    return pl.write(name, '\n'.join(lines) + '\n', gp)


def plot_bars(pl, name, title, xlabel, ylabel, groups, modes, cell):
    """Clustered bars: a cluster per group, a bar per mode, min-max bars."""
    lines = []
    for g in groups:
        row = [q(g)]
        for m in modes:
            s = cell(g, m)
            row += ['%g %g %g' % (s['median'], s['min'], s['max']) if s else '? ? ?']
        lines.append(' '.join(row))
    gp = ('set title %s\nset xlabel %s\nset ylabel %s\nset yrange [0:*]\n'
          'set style data histograms\nset style histogram errorbars gap 2 lw 1\n'
          'set style fill solid 0.7 border -1\nset datafile missing "?"\n'
          % (q(title), q(xlabel), q(ylabel)))
    gp += 'plot ' + ', \\\n     '.join(
        '"%s.dat" using %d:%d:%d%s title %s'
        % (name, 2 + 3 * i, 3 + 3 * i, 4 + 3 * i, ':xtic(1)' if i == 0 else '', q(m))
        for i, m in enumerate(modes)) + '\n'
    return pl.write(name, '\n'.join(lines) + '\n', gp)


def plots_rr_many(res, pl):
    w, pngs = 'rr-many', []
    ps = res.params(w)
    if not ps:
        return pngs
    groups = collections.defaultdict(list)
    for p in ps:
        d = param_dict(p)
        groups[d.get('req', '?')].append((int(d.get('n', 0)), p))
    for req, np_ in sorted(groups.items(), key=lambda g: param_key(g[0])):
        np_.sort()
        xs = [n for n, _ in np_]
        for k, name, title, ylabel, yr in (
                ('tps', 'rr_many_tps_req%s', 'transactions/s', 'transactions/s', None),
                ('locality_pct', 'rr_many_locality_req%s', 'receive locality',
                 'reads on the CPU that processed the frame (%)', (0, 105))):
            series = [(m, {n: res.summary(w, p, m, k) for n, p in np_
                           if res.summary(w, p, m, k)})
                      for m in res.modes(w)]
            series = [s for s in series if s[1]]
            if series:
                pngs.append(plot_lines(
                    pl, name % req,
                    'rr-many: %s against connections, %s-byte requests (median, bars min-max)' % (title, req),
                    'connections N', ylabel, xs, series, logx=True, yrange=yr))
        # latency at the largest N of this request size
        n, p = np_[-1]
        pngs += plot_pcts(res, pl, w, p, 'rr_many_lat_req%s_n%d' % (req, n))
    return pngs


def plot_pcts(res, pl, w, p, name):
    xs = list(range(1, len(PCTS) + 1))
    series = []
    for m in res.modes(w, p):
        pts = {}
        for i, (k, _) in enumerate(PCTS):
            s = res.summary(w, p, m, k)
            if s:
                pts[i + 1] = s
        if pts:
            series.append((m, pts))
    if not series:
        return []
    return [plot_lines(pl, name, '%s %s: latency percentiles (median over rounds, bars min-max)' % (w, p),
                       'percentile', 'latency (us, log scale)', xs, series,
                       logy=True, xtics=[(i + 1, l) for i, (_, l) in enumerate(PCTS)])]


def plots_nic(res, pl):
    w = 'nic'
    ps = res.params(w)
    if not ps:
        return []
    modes = res.modes(w)
    out = [plot_bars(pl, 'nic_delivered', 'NIC-like receive: datagrams/s delivered to the readers (median, bars min-max)',
                     'sockets (flows)', 'datagrams/s delivered', ps, modes,
                     lambda g, m: res.summary(w, g, m, 'delivered_pps'))]
    out.append(plot_bars(pl, 'nic_ns_per_frame', 'NIC-like receive: injecting CPU time per frame (kernel test-run timer)',
                         'sockets (flows)', 'ns per frame on CPU 0', ps, modes,
                         lambda g, m: res.summary(w, g, m, 'ns_per_frame')))
    return out


def plots_cost(res, pl):
    w = 'cost'
    ps = res.params(w)
    if not ps:
        return []
    return [plot_bars(pl, 'cost_ns_per_frame', 'Per-frame cost by path: BPF_PROG_TEST_RUN (median, bars min-max)',
                      'test-run mode (prog: the program alone; live: redirect carried out)',
                      'ns per frame', ps, res.modes(w),
                      lambda g, m: res.summary(w, g, m, 'ns_per_frame'))]


def plots_sizing(res, pl):
    w = 'sizing'
    ps = res.params(w)
    if not ps:
        return []
    by = collections.OrderedDict()
    for p in ps:
        d = param_dict(p)
        t = 'sock %s, flow_cnt %s' % (d.get('sock', '?'), d.get('devtab', '?'))
        s = res.summary(w, p, 'sim', 'accuracy_pct')
        if s:
            by.setdefault(t, {})[int(d.get('flows', 0))] = s
    xs = sorted({f for t in by for f in by[t]})
    if not xs:
        return []
    return [plot_lines(pl, 'sizing_accuracy', 'Steering accuracy against flows (simulation over include/)',
                       'flows', 'frames to the application CPU (%)', xs,
                       list(by.items()), logx=True)]


# ---------------------------------------------------------------- report

# meta.txt's keys for what the figures depend on, as the report's head
# names them; a run from before one was recorded says so.
MACHINE = [('cpus', 'CPUs', '%s CPUs'), ('kernel', 'kernel', 'kernel %s'),
           ('hz', 'CONFIG_HZ', 'CONFIG_HZ %s'),
           ('preempt', 'preemption', 'preemption %s'),
           ('cpuidle', 'cpuidle driver', 'cpuidle %s'),
           ('guest_halt_poll_ns', 'guest_halt_poll_ns', 'guest_halt_poll_ns %s')]


def machine(lines):
    kv = dict(ln.split(': ', 1) for ln in lines if ': ' in ln)
    # guest_halt_poll_ns means something only under the haltpoll driver
    # (runs before run.sh knew that recorded it under any driver)
    words = [fmt % kv[key] if key in kv else name + ' not recorded'
             for key, name, fmt in MACHINE
             if key != 'guest_halt_poll_ns' or
             kv.get('cpuidle', '').startswith('haltpoll')]
    return 'Machine: ' + '; '.join(words) + '.'


def main():
    out_dir = sys.argv[1]
    draw = '--no-plots' not in sys.argv[2:]
    tsv = os.path.join(out_dir, 'results.tsv')
    rows, bad = load(tsv) if os.path.exists(tsv) else ([], 0)
    res = Results(rows)
    pl = Plots(out_dir)
    pngs = {'rr-many': plots_rr_many(res, pl), 'nic': plots_nic(res, pl),
            'cost': plots_cost(res, pl), 'sizing': plots_sizing(res, pl)}
    pngs['rpc'] = [x for p in res.params('rpc')[:4]
                   for x in plot_pcts(res, pl, 'rpc', p, 'rpc_lat_%s' % ''.join(
                       c if c.isalnum() else '_' for c in p))]

    md = ['# xdp-rfs bench report', '']
    meta = os.path.join(out_dir, 'meta.txt')
    if os.path.exists(meta):
        lines = open(meta).read().rstrip('\n').split('\n')
        md += [machine(lines), '', '```'] + lines + ['```', '']
    else:
        md += ['_No meta.txt: the commit, kernel and CPUs of this run are unknown._', '']
    if not draw:
        md += ['_No plots: gnuplot is not installed (scripts/deps.sh installs gnuplot-nox)._', '']
    md += ['How to read it: each cell is the median over the rounds, with the '
           'minimum–maximum and, with 4 or more rounds, the interquartile range '
           '(q1–q3).  "× base", "× rfs", "× cpumap": the mode\'s value over that '
           'mode\'s in the same round, per round, then the median (min–max) of '
           'those ratios.  n: values (rounds).  %d rows read from results.tsv%s.'
           % (len(rows), ', %d malformed rows skipped' % bad if bad else ''), '']
    known = [w for w, _ in WORKLOADS]
    titles = dict(WORKLOADS)
    for w in known + sorted(res.workloads() - set(known)):
        md += ['## %s: %s' % (w, titles.get(w, w)), '']
        if w not in res.workloads():
            md += ['_No rows for this workload in results.tsv: it was not run '
                   'in this bench run, or it failed (see the run\'s log)._', '']
            continue
        for png in pngs.get(w, []) if draw else []:
            md += ['![%s](%s)' % (png[:-4], png), '']
        if w == 'sizing':
            sizing_tables(res, md)
            continue
        for k in res.metrics(w):
            metric_table(res, w, k, md)
    with open(os.path.join(out_dir, 'REPORT.md'), 'w') as f:
        f.write('\n'.join(md))

    # the same figures, machine-readable (tests/integration/test_report.sh)
    with open(os.path.join(out_dir, 'summary.tsv'), 'w') as f:
        f.write('workload\tparam\tmode\tmetric\tn\tmedian\tmin\tmax\tq1\tq3'
                + ''.join('\tx_%s\tx_%s_min\tx_%s_max' % (r, r, r) for r in REFS) + '\n')
        for (w, p, m, k) in sorted(res.v):
            s = res.summary(w, p, m, k)
            cells = [w, p, m, k, str(s['n'])] + \
                ['%.6g' % s[x] if s[x] is not None else '-'
                 for x in ('median', 'min', 'max', 'q1', 'q3')]
            for r in REFS:
                rs = res.ratio(w, p, m, k, r) if r != m else None
                cells += ['%.6g' % rs[x] if rs else '-' for x in ('median', 'min', 'max')]
            f.write('\t'.join(cells) + '\n')
    with open(os.path.join(pl.dir, 'list'), 'w') as f:
        f.write(''.join(n + '\n' for n in pl.made))


if __name__ == '__main__':
    main()
