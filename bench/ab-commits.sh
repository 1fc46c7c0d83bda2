#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two commits' datapaths side by side, for a per-frame claim: rfsd and
# rfsctl (and so every BPF program, built into them) of commit A and of
# commit B, each driven by this checkout's bench/run.sh, its load
# generators and its build, alternated over N pairs (A B, B A, A B, ...)
# so the machine's drift over the minutes falls on both.  A VM's figures
# move between runs far more than a small change does, and two VMs can't
# be compared at all: a pair's ratio is the measure.
#
#   bench/ab-commits.sh [--pairs N] [--out DIR] [--keep] A B [-- RUN_ARGS]
#
# RUN_ARGS go to every bench/run.sh (default: --modes xdp --workloads rr
# --rounds 1 --no-nic --no-cost: one rr cell and the profile session,
# about a minute).  Each commit is checked out into a worktree under DIR and
# built there (`make all`); DIR/runs/a-I and DIR/runs/b-I are the runs,
# DIR/results.tsv all of them with each mode named MODE@a or MODE@b and
# the pair as its round (bench/ab.py merge), and DIR/ab.txt what
# bench/ab.py prints for each mode, a over b: the cells' tps and p99, the
# profile session's ns per run of each program and BPF ns per rr
# transaction, by the stats and sampled.  --pairs: default 4.  --keep
# keeps the worktrees (default: removed on every exit).  Root.

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
PAIRS=4
OUT=
KEEP=
usage()
{
	sed -n '/^#   bench/p' "$0" | sed 's/^#   /usage: /' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--pairs) PAIRS=$2; shift ;;
	--out) OUT=$2; shift ;;
	--keep) KEEP=1 ;;
	-h|--help) sed -n '4,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) break ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 2 ] || usage
REV_A=$1 REV_B=$2
shift 2
if [ $# -gt 0 ]; then
	[ "$1" = -- ] || usage
	shift
fi
RUN_ARGS=("$@")
[ ${#RUN_ARGS[@]} -gt 0 ] ||
	RUN_ARGS=(--modes xdp --workloads rr --rounds 1 --no-nic --no-cost)
[[ $PAIRS =~ ^[1-9][0-9]*$ ]] || { echo "ab-commits: --pairs wants a count" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "ab-commits: needs root (bench/run.sh)" >&2; exit 2; }

die() { echo "ab-commits: $*" >&2; exit 1; }
# shellcheck source=bench/meta.sh
. "$TOP/bench/meta.sh"
A=$(git -C "$TOP" rev-parse --verify --quiet "$REV_A^{commit}") ||
	die "'$REV_A' is not a commit"
B=$(git -C "$TOP" rev-parse --verify --quiet "$REV_B^{commit}") ||
	die "'$REV_B' is not a commit"
OUT=${OUT:-$TOP/build/ab/$(git -C "$TOP" rev-parse --short "$A")-$(git -C "$TOP" rev-parse --short "$B")}
[ -e "$OUT/runs" ] && die "$OUT has runs already: give another --out"
mkdir -p "$OUT/runs" || die "can't make $OUT"
OUT=$(cd "$OUT" && pwd)

TREES=()
cleanup()
{
	local t
	[ -n "$KEEP" ] && return
	for t in "${TREES[@]}"; do
		git -C "$TOP" worktree remove --force "$t" 2>/dev/null
	done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Commit $2's tree at $OUT/tree-$1, built.
build()
{
	local t=$OUT/tree-$1
	git -C "$TOP" worktree add --detach "$t" "$2" >/dev/null 2>&1 ||
		die "can't check $2 out into $t"
	TREES+=("$t")
	echo "ab-commits: building $1 = $(git -C "$TOP" log -1 --format='%h %s' "$2")"
	make -C "$t" -s all > "$OUT/build-$1.log" 2>&1 ||
		die "make all failed at $2 (see $OUT/build-$1.log)"
}

# Pair $2's run of tree $1.
run()
{
	local t=$OUT/tree-$1 d=$OUT/runs/$1-$2
	echo "ab-commits: pair $2, $1"
	RFSD=$t/build/rfsd RFSCTL=$t/build/rfsctl RFS_BENCH_REV="$1 $3" \
		"$TOP/bench/run.sh" "${RUN_ARGS[@]}" --out "$d" > "$d.log" 2>&1 ||
		die "bench/run.sh failed for $1, pair $2 (see $d.log)"
}

make -C "$TOP" -s all bench-bins > "$OUT/build-bench.log" 2>&1 ||
	die "make all bench-bins failed here (see $OUT/build-bench.log)"
build a "$A"
build b "$B"
{
	echo "a: $(git -C "$TOP" log -1 --format='%H %s' "$A")"
	echo "b: $(git -C "$TOP" log -1 --format='%H %s' "$B")"
	echo "pairs: $PAIRS, alternated (a b, b a, ...)"
	echo "bench/run.sh ${RUN_ARGS[*]} (this checkout's at $(git -C "$TOP" rev-parse --short HEAD), its load generators)"
	BUILD=$TOP/build RFS_BENCH_REV="this checkout's bench" meta_machine | sed 1d
	echo
} > "$OUT/ab.txt"
for ((i = 1; i <= PAIRS; i++)); do
	if ((i % 2)); then
		run a "$i" "$A"; run b "$i" "$B"
	else
		run b "$i" "$B"; run a "$i" "$A"
	fi
done
python3 "$TOP/bench/ab.py" merge "$OUT" || die "bench/ab.py merge failed"
awk -F'\t' 'NR > 1 && $3 ~ /@a$/ { sub(/@a$/, "", $3); print $3 }' "$OUT/results.tsv" |
	sort -u > "$OUT/modes"
while read -r m; do
	python3 "$TOP/bench/ab.py" "$OUT" "$m@a" "$m@b" >> "$OUT/ab.txt" ||
		die "bench/ab.py failed for mode $m"
done < "$OUT/modes"
cat "$OUT/ab.txt"
echo "ab-commits: runs and results in $OUT"
