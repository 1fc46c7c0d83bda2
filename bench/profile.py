#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/profile.py: the profile session of bench/run.sh (profile_xdp in
bench/profile.sh), from its raw files to profile.json and back to two lines.

  bench/profile.py analyse PIN IFNAME WORK > OUT/profile.json
      PIN: the rfsd's pin dir (its maps, links and programs are "ours"),
      IFNAME: the lab interface (hook names), WORK: the lab dir holding
      phases, progs.PHASE.{0,1}.json, links.json, pp.prof.*, pipe.*,
      rr.sampled.{meta,syms}
  bench/profile.py print OUT/profile.json
      the PROFILE lines (BPF time per transaction, sched pipe runs)

profile.json: {"ours": [prog ids], "phases": {PHASE: {...}}, "sampled":
{...} or null}, keys in bench/README.md ("Results").
"""
import glob, json, os, re, subprocess, sys


def bt(*a):
    r = subprocess.run(('bpftool', '-j') + a, capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {}


def load(f):
    try:
        return {p['id']: p for p in json.load(open(f))}
    except (OSError, ValueError):
        return {}


def perf_counts(*files):
    """perf stat -x, outputs -> {event: count}, summed over the files"""
    c = {}
    for f in files:
        try:
            lines = open(f).read().splitlines()
        except OSError:
            continue
        for l in lines:
            x = l.split(',')
            if len(x) > 2 and x[0].isdigit():
                c[x[2]] = c.get(x[2], 0) + int(x[0])
    return c


def tx(f):
    try:
        t = re.sub(r'\x1b\[[0-9;]*m', '', open(f).read())
    except OSError:
        return 0
    m = re.search(r'\[Total Run\] RunTime=([0-9.]+) sec; Warm up time=\d+ msec; '
                  r'SentMessages=\d+; ReceivedMessages=(\d+)', t)
    return int(m.group(2)) if m else 0


def analyse(pin, ifname, work):
    phases = {}
    for line in open(os.path.join(work, 'phases')):
        n, t0, t1 = line.split()
        phases[n] = {'secs': float(t1) - float(t0),
                     'a': load(os.path.join(work, 'progs.%s.0.json' % n)),
                     'b': load(os.path.join(work, 'progs.%s.1.json' % n))}

    # this rfsd: its pinned maps, links and programs, and every rfs_* program
    # using one of those maps
    our_maps, ours = set(), set()
    for f in glob.glob(os.path.join(pin, '**'), recursive=True):
        if not os.path.isfile(f):
            continue
        for kind in ('map', 'link', 'prog'):
            d = bt(kind, 'show', 'pinned', f)
            if isinstance(d, dict) and 'id' in d:
                if kind == 'map':
                    our_maps.add(d['id'])
                elif kind == 'link':
                    ours.add(d.get('prog_id'))
                else:
                    ours.add(d['id'])
                break
    last = phases[list(phases)[-1]]['b']
    for p in last.values():
        if p.get('name', '').startswith('rfs_') and our_maps & set(p.get('map_ids', [])):
            ours.add(p['id'])
    ours.discard(None)
    hook, tp = {}, {}
    for l in json.load(open(os.path.join(work, 'links.json'))):
        if l.get('tp_name'):
            hook[l.get('prog_id')] = 'tp_btf/' + l['tp_name']
            tp[l.get('prog_id')] = l['tp_name']
        else:
            hook[l.get('prog_id')] = l.get('attach_type') or l.get('type', '?')
    for i, p in last.items():
        if i in hook:
            continue
        if p.get('name') == 'rfs_cpumap':
            hook[i] = 'cpumap program'
        elif p.get('type') == 'xdp':
            hook[i] = 'XDP on ' + ifname
        else:
            hook[i] = p.get('type', '?')

    out = {'ours': sorted(ours), 'phases': {}}
    for n, ph in phases.items():
        own = {}; srv = {}
        if n in ('rr', 'rr-local'):
            f = os.path.join(work, 'pp.prof.' + n)
            own = perf_counts(f + '.cli', f + '.srv', f + '.map')
            srv = perf_counts(f + '.srv', f + '.map')
        elif n == 'pipe':
            own = perf_counts(os.path.join(work, 'pipe.xdp.perf'))
        own = {k.split(':')[-1]: v for k, v in own.items()}
        srv = {k.split(':')[-1]: v for k, v in srv.items()}
        a, b = ph['a'], ph['b']
        rows = []; ro = [0, 0]; o = [0, 0]; floor = {}
        for i, p in b.items():
            q = a.get(i, {})
            cnt = p.get('run_cnt', 0) - q.get('run_cnt', 0)
            ns = p.get('run_time_ns', 0) - q.get('run_time_ns', 0)
            if p.get('name', '').startswith('floor_'):
                # bench/floor's empty programs
                floor[p['name']] = {'runs': cnt, 'ns': ns}
            elif i in ours:
                rows.append({'id': i, 'name': p.get('name', '?'), 'hook': hook.get(i, '?'),
                             'runs': cnt, 'ns': ns, 'own_runs': own.get(tp.get(i)),
                             'srv_runs': srv.get(tp.get(i))})
            elif cnt > 0:
                x = ro if p.get('name', '').startswith('rfs_') else o
                x[0] += cnt; x[1] += ns
        rows.sort(key=lambda r: (-r['ns'], r['name']))
        e = {'secs': ph['secs'], 'progs': rows, 'rfs_other_runs': ro[0], 'rfs_other_ns': ro[1],
             'other_runs': o[0], 'other_ns': o[1], 'floor': floor}
        if n in ('rr', 'rr-local'):
            e['transactions'] = tx(os.path.join(work, 'pp.prof.' + n))
        if n == 'pipe':
            e['switches'] = own.get('context-switches')
            for f, key in (('pipe.xdp', 'xdp'), ('pipe.base', 'base')):
                try:
                    t = open(os.path.join(work, f)).read()
                except OSError:
                    t = ''
                m = re.search(r'([0-9.]+) usecs/op', t)
                e['usecs_per_op_' + key] = float(m.group(1)) if m else None
        out['phases'][n] = e
    out['sampled'] = sampled(work)
    print(json.dumps(out, indent=1))


def sampled(work):
    """rr_sampled's samples: {"hz", "transactions", "srv_cpu", "cli_cpu",
    "progs": {name: {cpu: samples}}, "samples": {cpu: all samples}}, or
    None where it did not run"""
    try:
        meta = open(os.path.join(work, 'rr.sampled.meta')).read().split()
        lines = open(os.path.join(work, 'rr.sampled.syms')).read().splitlines()
    except OSError:
        return None
    m = dict(zip(meta[0::2], (int(v) for v in meta[1::2])))
    progs, total = {}, {}
    for l in lines:
        x = l.split()
        if len(x) < 3:
            continue
        n, cpu, sym = int(x[0]), int(x[1].strip('[]')), x[2]
        total[cpu] = total.get(cpu, 0) + n
        # a JIT-ed program's symbol: bpf_prog_<tag>_<name>
        g = re.match(r'bpf_prog_[0-9a-f]+_(rfs_\w+)$', sym)
        if g:
            c = progs.setdefault(g.group(1), {})
            c[cpu] = c.get(cpu, 0) + n
    d = {'hz': m.get('hz'), 'srv_cpu': m.get('srv_cpu'), 'cli_cpu': m.get('cli_cpu'),
         'transactions': tx(os.path.join(work, 'pp.prof.rr-sampled')),
         'progs': progs, 'samples': total}
    d['ns_per_tx'] = sampled_ns(d)
    d['ns_per_tx_steered'] = sampled_ns(d, True)
    d['ns_per_tx_prog'] = {k: sampled_ns(d, only=k) for k in sorted(progs)}
    return d


# The programs whose samples on the client's CPU are the steered host's:
# that CPU is also the RX CPU.  Anything else there (the socket hooks,
# tracepoint, fexit or kprobe) ran for the client, another machine.
RX_CPU_PROGS = ('rfs_xdp', 'rfs_enqueue')


def sampled_ns(s, steered=False, only=None):
    """ns of our programs (or of program only) per rr transaction from the
    samples: the lab's count, or the steered host's"""
    if not s or not s['transactions'] or not s['hz']:
        return None
    n = 0
    for name, cpus in s['progs'].items():
        for cpu, k in cpus.items():
            if (steered and cpu == s['cli_cpu'] and name not in RX_CPU_PROGS) or \
               (only and name != only):
                continue
            n += k
    return n * 1e9 / s['hz'] / s['transactions']


def own_ns(p):
    if p['own_runs'] is None or not p['runs']:
        return p['ns']
    return p['ns'] / p['runs'] * p['own_runs']


def floor_ns(phase):
    """ns per run of the cheapest empty program that ran in this phase
    (bench/floor), or None"""
    v = [f['ns'] / f['runs'] for f in phase.get('floor', {}).values() if f['runs']]
    return min(v) if v else None


def net_ns(p, floor):
    """own_ns less one empty program's cost per run"""
    if not p['runs']:
        return 0
    runs = p['own_runs'] if p['own_runs'] is not None else p['runs']
    return max(p['ns'] / p['runs'] - floor, 0) * runs


def show(path):
    d = json.load(open(path))['phases']
    for k in ('rr', 'rr-local'):
        if k not in d:
            continue
        t = d[k]['transactions'] or 1
        fl = floor_ns(d[k])
        print('  PROFILE %s: %.0f ns of this rfsd\'s BPF time per transaction, %.0f for our own traffic%s'
              % (k, sum(p['ns'] for p in d[k]['progs']) / t, sum(own_ns(p) for p in d[k]['progs']) / t,
                 '; an empty program %.0f ns per run, %.0f net of it' % (
                     fl, sum(net_ns(p, fl) for p in d[k]['progs']) / t) if fl is not None else ''))
    sp = json.load(open(path)).get('sampled')
    if sp and sp.get('ns_per_tx') is not None:
        print('  PROFILE rr sampled, stats off: %.0f ns of our programs per transaction, %.0f on the steered host'
              % (sp['ns_per_tx'], sp['ns_per_tx_steered']))
    if 'pipe' in d:
        p = d['pipe']
        print('  PROFILE sched pipe: %s context switches; this rfsd\'s programs ran %d times on the host, '
              '%d times in the pipe\'s tasks' % (p['switches'], sum(q['runs'] for q in p['progs']),
                                                  sum(q['own_runs'] or 0 for q in p['progs'])))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == 'analyse':
        analyse(*sys.argv[2:5])
    elif len(sys.argv) == 3 and sys.argv[1] == 'print':
        show(sys.argv[2])
    else:
        sys.exit('usage: bench/profile.py analyse PIN IFNAME WORK | print PROFILE_JSON')


if __name__ == '__main__':
    main()
