#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/summary.py OUT MODES WORKLOADS SRV_CPU CLI_CPU MSG BULK_SECS SECS
ROUNDS TOOK PIPE_LOOPS: the summary of a bench/run.sh run, in markdown, to
stdout (run.sh puts it in results.txt).

From OUT/raw.txt (the sockperf/iperf3 cells), OUT/profile.json,
OUT/profile.bad and OUT/cost.txt: a table per workload with the median
(min-max) over rounds and the ratio to the same round's base, xdp-rfs's
datapath counters, the BPF time per transaction and per context switch
of the profile session, the per-frame targets judged on the medians,
and the per-frame cost.  MODES and WORKLOADS are space-separated, in the
order of the tables; the other arguments only go into the text.
"""
import json, os, statistics as st, sys

# bench/floor's empty programs and the tracepoints they sit on
FLOOR_HOOKS = {'floor_sock_recv': 'sock_recv_length', 'floor_sock_send': 'sock_send_length',
               'floor_kthread': 'xdp_cpumap_kthread'}


def main():
    out_dir, modes, wls, srv, cli, msg, bsecs, secs, rounds, took, loops = sys.argv[1:12]
    modes = modes.split(); wls = wls.split()
    cells = {}            # (workload, mode) -> {round: {key: value}}
    checks = []; bad = []
    for line in open(os.path.join(out_dir, 'raw.txt')):
        f = line.split()
        if len(f) < 4:
            continue
        if f[1] == 'xdp-check':
            checks.append('round %s %s' % (f[0], ' '.join(f[3:])))
            continue
        r, m, w = int(f[0]), f[1], f[2]
        if f[3] == 'bad':
            bad.append('round %d %s %s: %s' % (r, m, w, ' '.join(f[4:])))
            continue
        kv = {}
        for x in f[3:]:
            k, _, v = x.partition('=')
            try:
                kv[k] = float(v)
            except ValueError:
                kv[k] = None
        cells.setdefault((w, m), {})[r] = kv

    def spread(v, fmt='%.0f'):
        if not v:
            return '-'
        if len(v) == 1:
            return fmt % v[0]
        return (fmt + ' (' + fmt + '–' + fmt + ')') % (st.median(v), min(v), max(v))

    def ratios(w, m, ref, key):
        c, b = cells.get((w, m), {}), cells.get((w, ref), {})
        return [c[r][key] / b[r][key] for r in sorted(c)
                if r in b and c[r].get(key) and b[r].get(key)]

    def total(c, key):
        v = [c[r][key] for r in c if c[r].get(key) is not None]
        return '%d' % sum(v) if v else '-'

    out = []
    out.append('xdp-rfs bench: %s rounds x %d modes, %s s per sockperf run, %s s per '
               'iperf3 run, order rotated per round; took %s s' %
               (rounds, len(modes), secs, bsecs, took))
    out.append('median (min–max) over rounds; "vs base" is the ratio to the '
               'baseline of the same round')
    out.append('')
    titles = {
        'rr': 'rr: 1 TCP connection, sockperf ping-pong %s B, server on CPU %s, client (and RX) on CPU %s' % (msg, srv, cli),
        'rr-local': 'rr-local: the same, server on CPU %s with the client: the app shares the RX CPU' % cli,
        'multi': 'multi: 4 TCP connections, servers on CPU 0 and CPU 1 (2 each), each client on the other CPU',
        'bulk': 'bulk: iperf3, 1 TCP stream, %s s, sender (and RX) on CPU %s, receiver on CPU %s; counts summed over the rounds' % (bsecs, cli, srv),
        'bulk-local': 'bulk-local: the same, receiver on CPU %s with the sender; counts summed over the rounds' % cli,
    }
    for w in wls:
        if not any(k[0] == w for k in cells):
            continue
        out.append('### ' + titles[w])
        out.append('')
        if w.startswith('bulk'):
            hdr = ('| mode | Gbit/s | vs base | TCP retrans (iperf3), all rounds | of which D-SACKed (spurious) '
                   '| cpumap ring drops | veth drops | backlog drops (host-wide) | TCP receive drops (root netns) '
                   '| out-of-order segments at the receiver (root netns) |')
        else:
            hdr = ('| mode | transactions/s | vs base | p50 RTT µs | p50 vs base | p99 RTT µs '
                   '| p99 vs base | max RTT µs | TCP retrans, all rounds |')
            if w != 'multi':
                hdr += ' requests rx on CPU %s |' % (srv if w == 'rr' else cli)
        # which CPU limits the cell (/proc/stat over it, counters_delta)
        hdr += ' CPU %s (RX, clients) busy %% | CPU %s busy %% |' % (cli, srv)
        out.append(hdr)
        out.append('|' + '---|' * (hdr.count('|') - 1))
        for m in modes:
            c = cells.get((w, m), {})
            if not c:
                continue
            rs = sorted(c)
            col = lambda k: [c[r][k] for r in rs if c[r].get(k) is not None]
            if w.startswith('bulk'):
                row = '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                    m, spread(col('gbps'), '%.2f'),
                    '1.00' if m == 'base' else spread(ratios(w, m, 'base', 'gbps'), '%.2f'),
                    total(c, 'irtx'), total(c, 'dsack'),
                    total(c, 'ringdrop') if m == 'xdp' else '-', total(c, 'veth'),
                    total(c, 'backlog'), total(c, 'sockdrop'), total(c, 'ofo'))
            else:
                rtx = [c[r].get('rtxn', 0) + c[r].get('rtxr', 0) for r in rs]
                row = '| %s | %s | %s | %s | %s | %s | %s | %s | %d |' % (
                    m, spread(col('tps')),
                    '1.00' if m == 'base' else spread(ratios(w, m, 'base', 'tps'), '%.2f'),
                    spread(col('p50'), '%.1f'),
                    '1.00' if m == 'base' else spread(ratios(w, m, 'base', 'p50'), '%.2f'),
                    spread(col('p99'), '%.1f'),
                    '1.00' if m == 'base' else spread(ratios(w, m, 'base', 'p99'), '%.2f'),
                    spread(col('max')), sum(rtx))
                if w != 'multi':
                    sh = col('share')
                    row += ' %s |' % (spread(sh) + ' %' if sh else '-')
            row += ' %s | %s |' % (spread(col('rxbusy')), spread(col('srvbusy')))
            out.append(row)
        out.append('')

    # xdp-rfs's own counters, per workload
    xw = [w for w in wls if cells.get((w, 'xdp'))]
    if xw:
        out.append("### xdp-rfs's datapath counters in the xdp cells (rfsctl -j stats, deltas, all rounds)")
        out.append('')
        out.append('| workload | frames seen | redirected to a cpumap | local path (XDP_PASS) | held on the old path | cpumap ring drops | redirect errors |')
        out.append('|---|---|---|---|---|---|---|')
        for w in xw:
            c = cells[(w, 'xdp')]
            s = lambda k: sum(c[r].get(k) or 0 for r in c)
            seen = s('seen') or 1
            out.append('| %s | %d | %.1f %% | %.1f %% | %.2f %% | %d | %d |' % (
                w, s('seen'), 100 * s('redir') / seen, 100 * s('local') / seen,
                100 * s('held') / seen, s('ringdrop'), s('rerr')))
        out.append('')
        if checks:
            out.append('xdp-rfs attach mode per round: ' + '; '.join(checks))
            out.append('')
    if bad:
        out.append('left out (the client measured nothing, or a CPU went offline): ' + '; '.join(bad))
        out.append('')

    # the profile session
    prof = None
    pf = os.path.join(out_dir, 'profile.json')
    if os.path.exists(pf) and os.path.getsize(pf):
        try:
            prof = json.load(open(pf))
        except ValueError:
            prof = None
    ph = prof['phases'] if prof else {}
    def own_ns(p):
        """BPF ns the bench's own tasks caused: tracepoint programs at ns/run
        times their hook's firings in our tasks; other hooks as counted"""
        if p.get('own_runs') is None or not p['runs']:
            return p['ns']
        return p['ns'] / p['runs'] * p['own_runs']
    def srv_ns(p):
        """The part on the steered host alone: the socket tracepoints in the
        server only (the lab's client stands for another machine)"""
        if p.get('srv_runs') is None or not p['runs']:
            return own_ns(p)
        return p['ns'] / p['runs'] * p['srv_runs']
    def per_tx(k, own=False, server=False):
        t = ph[k]['transactions'] or 1
        f = srv_ns if server else own_ns if own else lambda p: p['ns']
        return sum(f(p) for p in ph[k]['progs']) / t
    def floor_ns(k):
        """ns per run of bench/floor's cheapest empty program in phase k"""
        v = [f['ns'] / f['runs'] for f in ph[k].get('floor', {}).values() if f['runs']]
        return min(v) if v else None
    def net_tx(k, server=False):
        """own (or steered-host) BPF ns per transaction less one empty
        program's cost per run"""
        fl, t = floor_ns(k), ph[k]['transactions'] or 1
        tot = 0
        for p in ph[k]['progs']:
            if not p['runs']:
                continue
            n = p['runs']
            if p.get('own_runs') is not None:
                n = p['own_runs']
            if server and p.get('srv_runs') is not None:
                n = p['srv_runs']
            tot += max(p['ns'] / p['runs'] - fl, 0) * n
        return tot / t
    if 'rr' in ph and 'rr-local' in ph:
        out.append('### BPF time per transaction (one more xdp session, kernel.bpf_stats_enabled=1)')
        out.append('')
        if os.path.exists(os.path.join(out_dir, 'profile.bad')):
            out.append('**' + open(os.path.join(out_dir, 'profile.bad')).read().strip() + '**')
            out.append('')
        bg = ph.get('bg')
        out.append('Transactions: rr %d, rr-local %d (whole sockperf runs, warm-up included). '
                   'The stats add two clock reads per run: ns are upper bounds. "host" counts are '
                   "every run of this rfsd's programs while the client ran (the socket tracepoints fire "
                   'for every socket on the host, the cpumap tracepoints for every cpumap%s); "own" counts '
                   "the firings of a tracepoint program's hook caused by the bench itself: the socket "
                   'tracepoints in the rr client and server (perf stat per task), the cpumap tracepoints '
                   'filtered on this rfsd\'s cpumap (perf stat --filter map_id); "own ns/tx" is ns/run '
                   '(the average over all runs) times that.' % (
                       ph['rr']['transactions'], ph['rr-local']['transactions'],
                       '; with none of the bench\'s traffic they ran %.0f times/s here' %
                       (sum(p['runs'] for p in bg['progs']) / bg['secs']) if bg else ''))
        out.append('')
        out.append('| program | hook | rr runs/tx, host | rr runs/tx, own | rr ns/run | rr ns/tx, host | rr ns/tx, own '
                   '| rr-local runs/tx, host | rr-local runs/tx, own | rr-local ns/run | rr-local ns/tx, host | rr-local ns/tx, own |')
        out.append('|' + '---|' * 12)
        def cellf(k, i):
            t = ph[k]['transactions'] or 1
            p = next((p for p in ph[k]['progs'] if p['id'] == i), None)
            if not p or not p['runs']:
                return '0 | %s | - | 0 | 0' % ('0' if p and p.get('own_runs') is not None else '-')
            return '%.2f | %s | %.0f | %.0f | %.0f' % (
                p['runs'] / t, '%.2f' % (p['own_runs'] / t) if p.get('own_runs') is not None else '-',
                p['ns'] / p['runs'], p['ns'] / t, own_ns(p) / t)
        for p in ph['rr']['progs']:
            out.append('| %s | %s | %s | %s |' % (p['name'], p['hook'], cellf('rr', p['id']), cellf('rr-local', p['id'])))
        out.append('| **all of this rfsd** | | | | | **%.0f** | **%.0f** | | | | **%.0f** | **%.0f** |' % (
            per_tx('rr'), per_tx('rr', True), per_tx('rr-local'), per_tx('rr-local', True)))
        if any(p.get('srv_runs') is not None for p in ph['rr']['progs']):
            out.append('| **of which on the steered host** (the socket tracepoints in the server only; '
                       'the lab\'s client stands for another machine) | | | | | | **%.0f** | | | | | **%.0f** |' % (
                           per_tx('rr', server=True), per_tx('rr-local', server=True)))
        for k, lab in (('rfs_other', "other labs' rfs_* programs (not this rfsd)"),
                       ('other', "everyone else's BPF programs")):
            f2 = lambda w: '%.2f | | | %.0f | ' % (ph[w][k + '_runs'] / (ph[w]['transactions'] or 1),
                                                     ph[w][k + '_ns'] / (ph[w]['transactions'] or 1))
            out.append('| %s | | %s | %s |' % (lab, f2('rr'), f2('rr-local')))
        out.append('')
        if floor_ns('rr') is not None and floor_ns('rr-local') is not None:
            fr = ph['rr'].get('floor', {})
            out.append('An empty program on the same tracepoints (bench/floor, attached beside ours for the '
                       'session), ns per run in rr: %s; what a run costs here before it does anything, the '
                       "stats' two clock reads included; every ns/run above includes it. Less the cheapest "
                       'of them once per run: %.0f ns per rr transaction for the bench\'s own traffic, '
                       '%.0f on the steered host alone; rr-local %.0f and %.0f.' % (
                           ', '.join('%.0f on %s' % (f['ns'] / f['runs'], FLOOR_HOOKS.get(n, n))
                                        for n, f in sorted(fr.items()) if f['runs']),
                           net_tx('rr'), net_tx('rr', True), net_tx('rr-local'), net_tx('rr-local', True)))
            out.append('')
    sp = prof.get('sampled') if prof else None
    if sp and sp.get('ns_per_tx') is not None:
        out.append('Sampled with the stats off (one more rr run under perf record -a, cpu-clock at %d Hz, '
                   '%d transactions, %d samples in rfs_* programs, told by name): %.0f ns per rr '
                   'transaction by the lab count, '
                   '%.0f on the steered host (the socket hooks on the client\'s CPU left out); %s. Only '
                   'samples inside the programs count: no clock reads of the stats, no floor to subtract, '
                   'and a hook\'s dispatch outside its program is not in it.' % (
                       sp['hz'], sp['transactions'],
                       sum(sum(c.values()) for c in sp['progs'].values()),
                       sp['ns_per_tx'], sp['ns_per_tx_steered'],
                       ', '.join('%s %.0f' % (k, v) for k, v in sorted(sp['ns_per_tx_prog'].items(),
                                                                      key=lambda kv: -kv[1]))))
        out.append('')
    if 'pipe' in ph:
        p = ph['pipe']
        sw = p.get('switches') or 0
        out.append('### perf bench sched pipe -l %s with rfsd attached (kernel.bpf_stats_enabled=1)' % loops)
        out.append('')
        out.append('usecs/op: %s without rfsd, %s with rfsd attached and stats on. Context switches of the '
                   "pipe's two processes (perf stat per task): %d. \"host\": every run of this rfsd's programs "
                   'during the pipe run, anyone\'s traffic included; "in the pipe\'s tasks": firings of a '
                   "tracepoint program's hook in the pipe's processes (perf stat per task). Programs not on a "
                   'tracepoint are counted host-wide (rfs_xdp and rfs_cpumap only see this lab\'s interface).' % (
                       p.get('usecs_per_op_base'), p.get('usecs_per_op_xdp'), sw))
        out.append('')
        out.append("| program | hook | runs on the host during the pipe run | runs in the pipe's tasks | per pipe context switch |")
        out.append('|---|---|---|---|---|')
        def pcount(q):
            return q['own_runs'] if q.get('own_runs') is not None else q['runs']
        for q in sorted(p['progs'], key=lambda q: (-pcount(q), q['name'])):
            out.append('| %s | %s | %d | %s | %s |' % (
                q['name'], q['hook'], q['runs'], q['own_runs'] if q.get('own_runs') is not None else '-',
                '%.4f' % (pcount(q) / sw) if sw else '-'))
        tot = sum(pcount(q) for q in p['progs'])
        out.append('| **all of this rfsd** | | **%d** | **%d** | **%s** |' % (
            sum(q['runs'] for q in p['progs']), tot, '%.4f' % (tot / sw) if sw else '-'))
        out.append("| other labs' rfs_* programs (not this rfsd) | | %d | | |" % p['rfs_other_runs'])
        out.append('')

    # the per-frame targets, from the tables above
    tg = []
    def med(v):
        return st.median(v) if v else None
    if 'rr' in ph:
        v = per_tx('rr', True)
        tg.append(('BPF time per rr transaction ≤ 800 ns',
                   '%.0f ns for the bench\'s own traffic (%.0f counting every run on the host, %.0f on the '
                   'steered host alone); rr-local %.0f (%.0f, %.0f)%s' % (
                       v, per_tx('rr'), per_tx('rr', server=True), per_tx('rr-local', True),
                       per_tx('rr-local'), per_tx('rr-local', server=True),
                       '; less an empty program\'s cost per run: %.0f (%.0f on the steered host)' % (
                           net_tx('rr'), net_tx('rr', True)) if floor_ns('rr') is not None else ''),
                   'yes' if v <= 800 else 'no'))
    r = ratios('rr', 'xdp', 'cpumap', 'tps')
    if r:
        tg.append(('rr transactions/s within 3 % of the bare cpumap redirect (xdp / cpumap, same round)',
                   spread(r, '%.3f'), 'yes' if med(r) >= 0.97 else 'no'))
    r = ratios('rr-local', 'xdp', 'rfs', 'tps')
    if r:
        tg.append(('rr-local transactions/s ≥ kernel RFS (xdp / rfs, same round)',
                   spread(r, '%.3f'), 'yes' if med(r) >= 1.0 else 'no'))
    r = ratios('rr-local', 'xdp', 'rfs-pass', 'tps')
    if r:
        tg.append(('the same, on the same receive path: ≥ kernel RFS behind an XDP_PASS program '
                   '(xdp / rfs-pass, same round)',
                   spread(r, '%.3f'), 'yes' if med(r) >= 1.0 else 'no'))
    r = ratios('rr-local', 'tp-floor', 'rfs-pass', 'tps')
    if r:
        tg.append(('(the bound on the line above) rr-local with nothing on the socket tracepoints but '
                   'empty programs, behind XDP_PASS (tp-floor / rfs-pass, same round): what no socket '
                   'side on those tracepoints can beat', spread(r, '%.3f'), 'bound'))
    for w in ('bulk', 'bulk-local'):
        c = cells.get((w, 'xdp'), {})
        irtx = sum(c[x].get('irtx') or 0 for x in c)
        drops = sum(c[x].get('ringdrop') or 0 for x in c)
        for ref, what in (('base', 'no steering'),
                          ('pass', 'no steering on the same receive path (an XDP_PASS program)')):
            r = ratios(w, 'xdp', ref, 'gbps')
            if r:
                tg.append(('%s ≥ 0.95 × %s with 0 retransmits (xdp / %s)' % (w, what, ref),
                           '%s, %d retransmits, %d ring drops' % (spread(r, '%.3f'), irtx, drops),
                           'yes' if med(r) >= 0.95 and irtx == 0 else 'no'))
        r = ratios(w, 'pass', 'base', 'gbps')
        if r:
            tg.append(('(the bound on the first %s line) %s with an XDP_PASS program and no steering '
                       '(pass / base, same round): what no XDP program on veth\'s own path can beat'
                       % (w, w), spread(r, '%.3f'), 'bound'))
        r = ratios(w, 'cpumap', 'pass', 'gbps')
        if r:
            tg.append(('(the bound on the second %s line) %s through the bare cpumap redirect, no '
                       'steering (cpumap / pass, same round): what no steering through a cpumap can '
                       'beat on this path' % (w, w), spread(r, '%.3f'), 'bound'))
        r = ratios(w, 'xdp', 'cpumap', 'gbps')
        if r:
            tg.append(('%s against the bare cpumap redirect (xdp / cpumap, same round): what '
                       'xdp-rfs\'s own programs cost there' % w, spread(r, '%.3f'), '-'))
        pp = []
        for m in modes:
            c = cells.get((w, m), {})
            v = [c[x]['ppalloc'] for x in c if c[x].get('ppalloc') is not None]
            if v:
                pp.append((m, v))
        if pp:
            tg.append(('(why, with --page-pool) pages the page pools took from the page allocator per '
                       'second of a %s cell: veth releases each page it redirects from its pool' % w,
                       ', '.join('%s %s' % (m, spread(v)) for m, v in pp), '-'))
    if 'pipe' in ph and ph['pipe'].get('switches'):
        p = ph['pipe']
        tot = sum(q['own_runs'] if q.get('own_runs') is not None else q['runs'] for q in p['progs'])
        sched = sorted(set(q['hook'] for q in p['progs'] if q['hook'].startswith('tp_btf/sched')))
        v = tot / p['switches']
        tg.append(('no xdp-rfs program runs per context switch (sched pipe)',
                   "%d runs in the pipe's %d context switches: %.4f per switch; programs on a sched "
                   'tracepoint: %s' % (tot, p['switches'], v, ', '.join(sched) or 'none'),
                   'yes' if not sched and v < 0.01 else 'no'))
    if tg:
        out.append('### per-frame targets, judged on the medians')
        out.append('')
        out.append('| target | measured: median (min–max) | met |')
        out.append('|---|---|---|')
        for t in tg:
            out.append('| %s | %s | %s |' % t)
        out.append('')

    costf = os.path.join(out_dir, 'cost.txt')
    if os.path.exists(costf) and os.path.getsize(costf):
        s = {}
        for line in open(costf):
            f = line.split()
            if f and f[0] == 'summary' and len(f) >= 9:
                s[(f[1], f[2])] = (float(f[4]), float(f[6]), float(f[8]))
        def c3(k, fmt='%.0f'):
            v = s.get(k)
            return (fmt + ' (' + fmt + '–' + fmt + ')') % v if v else '-'
        if s:
            out.append('### cost per frame: BPF_PROG_TEST_RUN, repeat 1000000, same IPv4 TCP frame')
            out.append('')
            out.append('| test-run mode | bare cpumap redirect ns | rfs_xdp ns | rfs_xdp − bare ns | ratio (budget ≤ 1.25) | ratio, wall clock | rfs_xdp ring drops % |')
            out.append('|---|---|---|---|---|---|---|')
            for mode, what in (('prog', 'plain (program only)'), ('live', 'live frames (redirect carried out)')):
                if (mode, 'ratio') in s:
                    out.append('| %s | %s | %s | %s | %s | %s | %s |' % (
                        what, c3((mode, 'bare_ns')), c3((mode, 'rfs_ns')),
                        c3((mode, 'delta_ns')), c3((mode, 'ratio'), '%.2f'),
                        c3((mode, 'wall_ratio'), '%.2f'),
                        c3((mode, 'drops_pct'), '%.1f')))
            out.append('')
    print('\n'.join(out))


if __name__ == '__main__':
    main()
