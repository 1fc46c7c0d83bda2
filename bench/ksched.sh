#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What cpumap_kthread_sched buys on a saturated CPU (a benchmark, not a
# test): tests/integration/test_order.sh test_saturated_cpu, run with
# ORDER_KSCHED set to each policy in turn (rounds interleave them, so the
# VM's noise hits each alike), and per policy the median and range over
# the rounds of
#   ring_max_ms / ring_median_ms  how long a flush into the saturated
#                                 CPU's cpumap ring waited for its kthread
#   move_ms                       the moving flow's first frame on the new
#                                 CPU after the reader's first recv there
#
#	bench/ksched.sh [--rounds N] [POLICY...]   (default: 5 rounds of
#	                                            default nice:-10 fifo:1)
#
# Results to stdout and build/bench/ksched.txt; each run's output in
# build/bench/ksched-logs/.  Root; needs 2 CPUs and iperf3.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=5
if [ "${1:-}" = --rounds ]; then
	ROUNDS=$2
	shift 2
fi
[ $# -gt 0 ] || set -- default nice:-10 fifo:1
OUT=$TOP/build/bench
LOGS=$OUT/ksched-logs
mkdir -p "$LOGS"
RAW=$LOGS/raw.txt
: > "$RAW"

for ((r = 1; r <= ROUNDS; r++)); do
	# rotate the order every round
	pols=("$@")
	for ((i = 0; i < (r - 1) % $#; i++)); do
		pols=("${pols[@]:1}" "${pols[0]}")
	done
	for p in "${pols[@]}"; do
		log=$LOGS/round$r.${p//:/_}.log
		ORDER_KSCHED=$p "$TOP/tests/integration/test_order.sh" \
			test_saturated_cpu > "$log" 2>&1
		rc=$?
		ring=$(sed -n 's/.*waiting for A.s kthread median \([0-9.]*\) ms, max \([0-9.]*\) ms.*/\1 \2/p' "$log")
		move=$(sed -n 's/.*move time: first frame on CPU [0-9]* \([0-9.]*\) ms after.*/\1/p' "$log")
		pol=$(sed -n 's/.*s kthread: \(.*\)$/\1/p' "$log")
		printf '%s round %d rc %d ring_median_ms %s ring_max_ms %s move_ms %s  # %s\n' \
			"$p" "$r" "$rc" "${ring% *}" "${ring#* }" "${move:-none}" "$pol" |
			tee -a "$RAW"
	done
done

python3 - "$RAW" "$@" <<'PY' | tee "$OUT/ksched.txt"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
print("policy      runs  ring wait median ms   ring wait max ms       move ms")
print("                   median (min-max)      median (min-max)       median (min-max)")
for p in sys.argv[2:]:
    rs = [r for r in rows if r[0] == p]
    def col(k):
        v = [float(r[r.index(k) + 1]) for r in rs if r[r.index(k) + 1] not in ("", "none", "#")]
        return "%7.1f (%.1f-%.1f)" % (statistics.median(v), min(v), max(v)) if v else "   none"
    print("%-10s %5d  %-21s %-22s %s" % (p, len(rs), col("ring_median_ms"), col("ring_max_ms"), col("move_ms")))
PY
