#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-frame cost as rows of $OUT/results.tsv:
# build/bench/cost's runs (bench/cost.c: BPF_PROG_TEST_RUN of rfs_xdp and
# of a bare cpumap redirect, plain and with live frames), one row per run
# and figure, so the report takes the xdp / cpumap ratio within a run:
#
#   workload cost, param path=prog|live, round = the run (1..N)
#   mode cpumap  the bare redirect         ns_per_frame, wall_ns_per_frame
#   mode xdp     rfs_xdp                   ns_per_frame, wall_ns_per_frame,
#                                          drops_cpumap (live: ring full)
#   mode pass    path=prog only: rfs_rearm and a verdict, the floor both
#                of the others stand on    ns_per_frame
#
# ns_per_frame is the kernel's test-run timer (whole ns), wall_ns_per_frame
# the wall clock around each run (finer, with the call's fixed cost).
#
#   OUT=build/bench QUICK= bench/cost.sh
#   bench/cost.sh [--out DIR] [--quick]
#
# QUICK=1: 3 runs (else 7; COST_RUNS overrides).  COST_TXT=FILE converts
# cost's output saved in FILE (bench/run.sh's $OUT/cost.txt) instead of
# running it again.  Root for a run; exit 249 when it can't run here.

set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=bench/tsv.sh
. bench/tsv.sh

OUT=${OUT:-build/bench}
QUICK=${QUICK:-}
# bench/run.sh's way of saying the same: --out DIR --rounds N --quick
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift ;;
	--rounds) shift ;;	# its runs are COST_RUNS, not rounds
	--quick) QUICK=1 ;;
	*) echo "usage: $0 [--out DIR] [--rounds N] [--quick]" >&2; exit 2 ;;
	esac
	shift
done
BUILD=${RFS_BUILD:-build}
COST=$BUILD/bench/cost
COST_RUNS=${COST_RUNS:-$([ -n "$QUICK" ] && echo 3 || echo 7)}
COST_TXT=${COST_TXT:-}

tsv_init || { echo "cost.sh: can't write $OUT/results.tsv" >&2; exit 1; }
if [ -z "$COST_TXT" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "cost.sh: needs root" >&2; exit 249; }
	[ -x "$COST" ] || { echo "cost.sh: $COST is not built (make bench)" >&2; exit 249; }
	COST_TXT=$OUT/cost.txt
	"$COST" --runs "$COST_RUNS" --pin-dir "/sys/fs/bpf/rfs-bench-cost-$$" \
		> "$COST_TXT"
	rc=$?
	# 77: cost could not run here
	[ $rc -eq 77 ] && exit 249
	[ $rc -eq 0 ] || { echo "cost.sh: $COST failed (exit $rc)" >&2; exit 1; }
fi
[ -s "$COST_TXT" ] || { echo "cost.sh: nothing in $COST_TXT" >&2; exit 1; }

# "run MODE I bare_ns X rfs_ns Y ... ring_drops D dequeued Q [rearm_ns K]"
awk -v OFS='\t' '$1 == "run" {
	for (i = 4; i < NF; i += 2)
		v[$i] = $(i + 1)
	p = "path=" $2
	print "cost", p, "cpumap", $3, "ns_per_frame", v["bare_ns"], "ns"
	print "cost", p, "cpumap", $3, "wall_ns_per_frame", v["wall_bare_ns"], "ns"
	print "cost", p, "xdp", $3, "ns_per_frame", v["rfs_ns"], "ns"
	print "cost", p, "xdp", $3, "wall_ns_per_frame", v["wall_rfs_ns"], "ns"
	if ($2 == "live")
		print "cost", p, "xdp", $3, "drops_cpumap", v["ring_drops"], "count"
	if ("rearm_ns" in v)
		print "cost", p, "pass", $3, "ns_per_frame", v["rearm_ns"], "ns"
	delete v
	n++
} END { if (!n) exit 1 }' "$COST_TXT" >> "$TSV" ||
	{ echo "cost.sh: no run lines in $COST_TXT" >&2; exit 1; }
printf '  cost    %s runs of each path into %s\n' \
	"$(grep -c '^run prog' "$COST_TXT")" "$TSV" >&2
