#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What handing a request from the RX CPU to the server's CPU costs, in
# time (a benchmark, not a test): bench/run.sh's rr (sockperf 64 B
# ping-pong, client on CPU 0, the RX CPU; server on CPU 1) per mode,
# rounds interleaved, each under `perf record` of the scheduler, IPI,
# softirq and cpumap tracepoints, then bench/handoff.py's four points per
# request: handed on (the cpumap flush, or RPS's IPI), the target starts
# (its cpumap kthread switched in, or its NET_RX softirq), the server
# woken, the server running.  Per mode, the median and range over rounds
# of each segment's per-round median, and the round trip (1/tps) of the
# same cells.  Tracing every event slows every mode; compare modes, not
# these round trips with an untraced run's.
#
#	bench/handoff.sh [--rounds N] [--seconds S] [MODE...]
#	    (default: 3 rounds of 3 s runs, modes xdp cpumap rfs-pass)
#	bench/handoff.sh --summary [MODE...]    the table again
#
# Results to stdout and build/bench/handoff.txt; each run's perf data and
# bench output in build/bench/handoff-logs/.  Root; needs perf with the
# sched, ipi, irq and xdp tracepoints, and what bench/run.sh needs (make
# bench builds it).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=3
SECS=3
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--summary) SUMMARY=1; shift ;;
	-h|--help) sed -n '4,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bench/handoff.sh: unknown option $1 (--help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- xdp cpumap rfs-pass
OUT=$TOP/build/bench
LOGS=$OUT/handoff-logs
RAW=$LOGS/raw.txt
RX_CPU=0	# bench/run.sh's CLI_CPU
SRV_CPU=1	# bench/run.sh's SRV_CPU
SERVER=sockperf	# the server's comm

summarize()
{
	python3 - "$@" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
cols = ['hand-off', 'stack', 'wait', 'whole']
print('one connection, 64 B: per request, us, median (min-max) over rounds'
      ' of each round\'s median (p90 of the whole in brackets)')
print('%-9s %4s %8s %6s  ' % ('mode', 'runs', 'requests', 'no-t1') +
      '  '.join('%-17s' % c for c in cols) + '  %-17s' % 'round trip (1/tps)')
def rng(v):
    return '%.2f (%.2f-%.2f)' % (statistics.median(v), min(v), max(v)) if v else 'none'
for m in sys.argv[2:]:
    rs = [r for r in rows if r[0] == m and r[3] != '-']
    if not rs:
        continue
    cells = [rng([float(r[3 + 2 * i]) for r in rs]) for i in range(4)]
    p90 = statistics.median(float(r[10]) for r in rs)
    rt = [1e6 / float(r[11]) for r in rs if r[11] != '-' and float(r[11]) > 0]
    print('%-9s %4d %8.0f %6.0f  ' % (m, len(rs),
          statistics.median(float(r[1]) for r in rs),
          statistics.median(float(r[2]) for r in rs)) +
          '  '.join('%-17s' % c for c in cells[:3]) +
          '  %-17s' % (cells[3] + ' [%.1f]' % p90) + '  ' + rng(rt))
PY
}

if [ -n "${SUMMARY:-}" ]; then	# again, from an earlier run's raw.txt
	summarize "$RAW" "$@"
	exit
fi

[ "$(id -u)" = 0 ] || { echo "bench/handoff.sh: needs root" >&2; exit 1; }
command -v perf > /dev/null ||
	{ echo "bench/handoff.sh: perf is not installed (Debian: linux-perf)" >&2; exit 1; }
for ev in ipi:ipi_send_cpu xdp:xdp_cpumap_enqueue irq:softirq_entry sched:sched_switch sched:sched_wakeup; do
	[ -d "/sys/kernel/tracing/events/${ev/://}" ] ||
		[ -d "/sys/kernel/debug/tracing/events/${ev/://}" ] ||
		{ echo "bench/handoff.sh: no tracepoint $ev on this kernel" >&2; exit 1; }
done
mkdir -p "$LOGS"
: > "$RAW"
for ((r = 1; r <= ROUNDS; r++)); do
	for m in "$@"; do
		log=$LOGS/$r.$m
		rm -rf "$log.bench"
		# the whole run, lab set-up included: the matcher keeps only
		# requests handed from the RX CPU to the server's
		if ! perf record -q --no-buildid -a -m 1024 -o "$log.data" \
			-e xdp:xdp_cpumap_enqueue \
			-e ipi:ipi_send_cpu --filter "cpu == $SRV_CPU" \
			-e irq:softirq_entry --filter 'vec == 3' \
			-e sched:sched_switch -e sched:sched_wakeup -- \
			"$TOP/bench/run.sh" --rounds 1 --modes "$m" --workloads rr \
			--seconds "$SECS" --no-cost --no-nic --no-profile \
			--out "$log.bench" \
			> "$log.out" 2>&1; then
			echo "bench/handoff.sh: round $r, mode $m failed: see $log.out" >&2
			exit 1
		fi
		tps=$(awk -F'\t' '$1 == "rr" && $5 == "tps" { print $6 }' "$log.bench/results.tsv")
		echo "$(perf script --ns -i "$log.data" -F cpu,time,event,trace 2> "$log.script.err" |
			python3 "$TOP/bench/handoff.py" "$m" "$SERVER" "$SRV_CPU" "$RX_CPU") ${tps:--}" >> "$RAW"
		rm -f "$log.data"
		echo "round $r $m: $(tail -n 1 "$RAW")"
	done
done
summarize "$RAW" "$@" | tee "$OUT/handoff.txt"
