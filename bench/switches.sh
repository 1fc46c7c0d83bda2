#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the many-connection request/response gap to kernel RFS goes (a
# benchmark, not a test): one round of bench/run.sh's rr-many per mode,
# rounds interleaved, each under `perf stat` on CPU 1, and per mode the
# median and range over the rounds of these counts per skb received on
# CPU 1 (net:netif_receive_skb), so that runs of different speed compare.
# rr-many's clients and the lab's RX CPU are CPU 0; its server serves
# every other connection on CPU 1 (the rest share CPU 0), so every skb on
# CPU 1 is a steered one:
#   switches  sched:sched_switch: kernel RFS hands a request over with an
#             IPI and runs it in softirq on top of the running task; a
#             cpumap wakes its kthread, a task of its own
#   wakeups   sched:sched_wakeup on that CPU
#   ipi_call  irq_vectors:call_function_single_entry (RPS's IPI)
#   ipi_resched  irq_vectors:reschedule_entry (a remote wake-up)
#   batches   xdp:xdp_cpumap_kthread (one per cpumap kthread batch)
#
#	bench/switches.sh [--rounds N] [MODE...]   (default: 3 rounds of
#	                                            xdp rfs-pass rfs)
#	bench/switches.sh --summary [MODE...]      the table again
#
# Results to stdout and build/bench/switches.txt; each run's perf and
# bench output in build/bench/switches-logs/.  Root; needs perf with the
# sched, irq_vectors, xdp and net tracepoints, and what bench/run.sh needs.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=3
if [ "${1:-}" = --rounds ]; then
	ROUNDS=$2
	shift 2
fi
[ $# -gt 0 ] || set -- xdp rfs-pass rfs
OUT=$TOP/build/bench
LOGS=$OUT/switches-logs
RAW=$LOGS/raw.txt
SRV_CPU=1	# bench/run.sh's SRV_CPU
EVENTS=sched:sched_switch,sched:sched_wakeup,irq_vectors:call_function_single_entry,irq_vectors:reschedule_entry,xdp:xdp_cpumap_kthread,net:netif_receive_skb

summarize()
{
	python3 - "$@" <<'PY'
import statistics, sys
cols = ["switches", "wakeups", "ipi_call", "ipi_resched", "batches"]
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("per skb received on CPU %s: median (min-max) over rounds" % sys.argv[2])
print("%-9s %4s %10s  " % ("mode", "runs", "skb") +
      "  ".join("%-17s" % c for c in cols))
for m in sys.argv[3:]:
    rs = [r for r in rows if r[0] == m]
    if not rs:
        continue
    skb = statistics.median(float(r[2]) for r in rs)
    cells = []
    for i, _ in enumerate(cols):
        v = [float(r[3 + i]) / float(r[2]) for r in rs if float(r[2]) > 0]
        cells.append("%.3f (%.3f-%.3f)" % (statistics.median(v), min(v), max(v))
                     if v else "none")
    print("%-9s %4d %10.0f  " % (m, len(rs), skb) +
          "  ".join("%-17s" % c for c in cells))
PY
}

if [ "${1:-}" = --summary ]; then	# again, from an earlier run's raw.txt
	shift
	[ $# -gt 0 ] || set -- xdp rfs-pass rfs
	summarize "$RAW" "$SRV_CPU" "$@"
	exit
fi

[ "$(id -u)" = 0 ] || { echo "bench/switches.sh: needs root" >&2; exit 1; }
command -v perf > /dev/null ||
	{ echo "bench/switches.sh: perf is not installed (Debian: linux-perf)" >&2; exit 1; }
mkdir -p "$LOGS"
: > "$RAW"
for ((r = 1; r <= ROUNDS; r++)); do
	for m in "$@"; do
		log=$LOGS/$r.$m
		# the whole run, lab set-up included: the set-up's few
		# hundred events are noise beside the cells' ~10^5 skbs
		if ! perf stat -C "$SRV_CPU" -e "$EVENTS" -x, -o "$log.perf" -- \
			"$TOP/bench/run.sh" --rounds 1 --modes "$m" --workloads rr-many \
			--no-cost --no-nic --no-profile --out "$log.bench" \
			> "$log.out" 2>&1; then
			echo "bench/switches.sh: round $r, mode $m failed: see $log.out" >&2
			exit 1
		fi
		awk -F, -v m="$m" -v r="$r" '
			/^#/ || NF < 3 { next }
			{ n[$3] = $1 }
			END {
				printf "%s %d %s %s %s %s %s %s\n", m, r,
					n["net:netif_receive_skb"] + 0,
					n["sched:sched_switch"] + 0,
					n["sched:sched_wakeup"] + 0,
					n["irq_vectors:call_function_single_entry"] + 0,
					n["irq_vectors:reschedule_entry"] + 0,
					n["xdp:xdp_cpumap_kthread"] + 0
			}' "$log.perf" >> "$RAW"
		echo "round $r $m: $(tail -n 1 "$RAW")"
	done
done
summarize "$RAW" "$SRV_CPU" "$@" | tee "$OUT/switches.txt"
