#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The hand-off of one request from the RX CPU to the server's CPU, in
time, from `perf script --ns -F cpu,time,event,trace` of one rr
stream (bench/handoff.sh).  Per request, four points:

  t0  the RX CPU hands the request on: its poll's flush puts the frame on
      the target's cpumap ring (xdp:xdp_cpumap_enqueue, modes xdp and
      cpumap), or RPS sends the target its IPI (ipi:ipi_send_cpu to it)
  t1  the target starts on it: the switch to its cpumap kthread, or its
      NET_RX softirq (irq:softirq_entry vec=3)
  t2  the stack wakes the server (sched:sched_wakeup of its comm)
  t3  the server runs (sched:sched_switch to it)

and the segments t1-t0 (hand-off), t2-t1 (skb and stack), t3-t2 (the
server waits for the CPU), t3-t0 (the whole).  A request whose target
was already running when it was handed on has no t1 and is counted
apart.

    handoff.py MODE SERVER_COMM TARGET_CPU RX_CPU < perf-script-output
prints one line: MODE requests unmatched then median and p90 of each
segment in us.
"""
import re
import statistics
import sys

LINE = re.compile(r'\[(\d+)\]\s+(\d+\.\d+):\s+([\w:]+):\s*(.*)')


def field(rest, key):
    m = re.search(r'(?:^|\s)' + key + r'=(\S+)', rest)
    return m.group(1) if m else None


def main():
    mode, comm, target, rx = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    cpumap = mode in ('xdp', 'cpumap') or mode.startswith('xdp-')
    segs = ([], [], [], [])
    unmatched = 0
    p = None
    for line in sys.stdin:
        m = LINE.search(line)
        if not m:
            continue
        cpu, t, ev, rest = int(m.group(1)), float(m.group(2)), m.group(3), m.group(4)
        if cpu == rx:
            if (cpumap and ev == 'xdp:xdp_cpumap_enqueue' and field(rest, 'to_cpu') == str(target)) or \
               (not cpumap and ev == 'ipi:ipi_send_cpu' and field(rest, 'cpu') == str(target)):
                if p is None:
                    p = [t, None, None]
                elif p[1] is None:
                    # handed on again before the target started: one hand-off
                    pass
                else:
                    unmatched += 1
                    p = [t, None, None]
            continue
        if cpu != target or p is None:
            continue
        if p[1] is None:
            if cpumap and ev == 'sched:sched_switch' and \
               (field(rest, 'next_comm') or '').startswith('cpumap/'):
                p[1] = t
            elif not cpumap and ev == 'irq:softirq_entry' and field(rest, 'vec') == '3':
                p[1] = t
            elif ev == 'sched:sched_wakeup' and field(rest, 'comm') == comm:
                # woken without the target starting: it was running
                unmatched += 1
                p = None
            continue
        if p[2] is None:
            if ev == 'sched:sched_wakeup' and field(rest, 'comm') == comm:
                p[2] = t
            continue
        if ev == 'sched:sched_switch' and field(rest, 'next_comm') == comm:
            t0, t1, t2 = p
            for s, v in zip(segs, (t1 - t0, t2 - t1, t - t2, t - t0)):
                s.append(v * 1e6)
            p = None
    n = len(segs[3])
    out = [mode, str(n), str(unmatched)]
    for s in segs:
        if s:
            s.sort()
            out += ['%.2f' % statistics.median(s), '%.2f' % s[int(0.9 * (len(s) - 1))]]
        else:
            out += ['-', '-']
    print(' '.join(out))


if __name__ == '__main__':
    main()
