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
#	                                            kernel nice:-10 fifo:1)
#	bench/ksched.sh --summary [POLICY...]      the tables again
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
[ $# -gt 0 ] || set -- kernel nice:-10 fifo:1
OUT=$TOP/build/bench
LOGS=$OUT/ksched-logs
mkdir -p "$LOGS"
RAW=$LOGS/raw.txt

# Per policy, over its runs: median (min-max) of each column of raw.txt.
summarize()
{
	python3 - "$@" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("%-10s %4s %5s  %-20s %-20s %s" % ("policy", "runs", "fails",
      "ring wait median ms", "ring wait max ms", "move ms"))
for p in sys.argv[2:]:
    rs = [r for r in rows if r[0] == p]
    def col(i):
        v = [float(r[i]) for r in rs if r[i] != "none"]
        if not v:
            return "none"
        return "%.1f (%.1f-%.1f)" % (statistics.median(v), min(v), max(v))
    print("%-10s %4d %5d  %-20s %-20s %s" % (p, len(rs),
          sum(r[2] != "0" for r in rs), col(3), col(4), col(5)))
print("(median (min-max) over runs; a run counts even when the test's own")
print("checks failed, which here were the load's: see ksched-logs/)")
PY
}

if [ "${1:-}" = --summary ]; then	# again, from an earlier run's raw.txt
	shift
	[ $# -gt 0 ] || set -- kernel nice:-10 fifo:1
	summarize "$RAW" "$@"
	exit
fi
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
		# one line per run in the log, "policy round rc ring_median
		# ring_max move" (none where the run did not get that far)
		awk -v p="$p" -v r="$r" -v rc="$rc" '
			function out() { if (n) print p, r, rc, med, max, mv; n = 0 }
			/^=== test_saturated_cpu/ { out(); n = 1; med = max = mv = "none" }
			/waiting for A.s kthread median/ {
				for (i = 1; i <= NF; i++) {
					if ($i == "median") med = $(i + 1)
					if ($i == "max") max = $(i + 1)
				}
			}
			/move time: first frame on CPU/ {
				for (i = 1; i <= NF; i++) if ($i == "CPU") { mv = $(i + 2); break }
			}
			END { out() }' "$log" | tee -a "$RAW"
	done
done

summarize "$RAW" "$@" | tee "$OUT/ksched.txt"
