#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bench's report: $OUT/results.tsv and $OUT/meta.txt (bench/run.sh)
# -> $OUT/REPORT.md, $OUT/summary.tsv (the same figures, one row per
# workload, param, mode and metric) and $OUT/*.png, drawn with gnuplot
# (pngcairo).  The statistics are bench/report.py's (its docstring says
# how medians, quartiles and per-round ratios are taken); the plots'
# data and gnuplot scripts stay in $OUT/plots/.  A workload with no rows
# is named in the report as missing; without gnuplot the report has
# tables only.
#
#   bench/report.sh [OUT]		(or OUT=DIR, or --out DIR; default
#					 build/bench)

set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-build/bench}
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift ;;
	--rounds|--quick) [ "$1" = --rounds ] && shift ;;	# run.sh's, not ours
	-h|--help) sed -n '3,15p' "$0"; exit 0 ;;
	*) OUT=$1 ;;
	esac
	shift
done
[ -d "$OUT" ] || { echo "report: can't read dir '$OUT': no such directory" >&2; exit 1; }
[ -f "$OUT/results.tsv" ] ||
	echo "report: no $OUT/results.tsv: the report will say every workload is missing" >&2

draw=
command -v gnuplot >/dev/null 2>&1 && draw=1
rm -f "$OUT"/plots/*.gp "$OUT"/plots/*.dat
python3 bench/report.py "$OUT" ${draw:+--plots} ${draw:---no-plots} ||
	{ echo "report: can't write $OUT/REPORT.md" >&2; exit 1; }
if [ -n "$draw" ]; then
	n=0
	while read -r p; do
		(cd "$OUT/plots" && gnuplot "$p.gp" 2> "$p.log") ||
			echo "report: gnuplot failed on $OUT/plots/$p.gp: $(tail -n 2 "$OUT/plots/$p.log")" >&2
		n=$((n + 1))
	done < "$OUT/plots/list"
else
	echo "report: gnuplot is not installed: no plots (scripts/deps.sh)" >&2
fi
echo "  report  $OUT/REPORT.md${draw:+, $n plots}" >&2
