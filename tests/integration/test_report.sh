#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/report.sh's arithmetic on a small synthetic results.tsv: medians
# (odd and even counts), min-max, quartiles only from 4 rounds, per-round
# ratios to base, rfs and cpumap (a round missing on one side left out),
# one-shot rows, a malformed row skipped, missing workloads named as such,
# a results file with a header only, the machine at the report's head; bench/ab.py's ratios
# (and its merge of bench/ab-commits.sh's runs), bench/meta.sh's keys,
# bench/kprofile.py's means and bench/summary.py's bulk bounds.  Figures are checked in summary.tsv
# (the report's machine-readable twin) and in REPORT.md's table rows.  No
# lab, no root.
#
#	tests/integration/test_report.sh

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
REPORT=$TOP/bench/report.sh
LAB_SKIP=249

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3" >&2; exit $LAB_SKIP; }

T=$(mktemp -d) || fail "can't make a temporary directory"
trap 'rm -rf "$T"' EXIT

# row WORKLOAD PARAM MODE ROUND METRIC VALUE UNIT, into $ROWS
ROWS=$T/results.tsv
row() { local IFS=$'\t'; printf '%s\n' "$*" >> "$ROWS"; }

printf 'workload\tparam\tmode\tround\tmetric\tvalue\tunit\n' > "$T/results.tsv"
# 4 rounds: quartiles; xdp has a 5th round with no base or rfs in it
for r in 1 2 3 4; do
	row nic socks=64 base "$r" delivered_pps $((r * 100)) pps
done
r=1; for v in 150 300 600 200; do row nic socks=64 rfs $r delivered_pps $v pps; r=$((r + 1)); done
for r in 1 2 3 4; do row nic socks=64 xdp "$r" delivered_pps 300 pps; done
row nic socks=64 xdp 5 delivered_pps 1000 pps
# 3 runs: no quartiles; ratio to cpumap
r=1; for v in 10 20 40; do row cost path=prog cpumap $r ns_per_frame $v ns; r=$((r + 1)); done
r=1; for v in 30 50 80; do row cost path=prog xdp $r ns_per_frame $v ns; r=$((r + 1)); done
# 2 rounds: the median of an even count is the mean of the middle two
row rr-many n=16,req=1 base 1 tps 10 tps
row rr-many n=16,req=1 base 2 tps 20 tps
# a percentage: its own table, with no ratio column, and its plot
row rr-many n=16,req=1 base 1 locality_pct 40 pct
row rr-many n=16,req=1 base 2 locality_pct 60 pct
row rr-many n=16,req=1 xdp 1 locality_pct 95 pct
row rr-many n=16,req=1 xdp 2 locality_pct 99.5 pct
# one-shot
row sizing flows=256,sock=4096,devtab=1024,cpus=8 sim 0 accuracy_pct 93.5 pct
printf 'nic\tbroken row\n' >> "$T/results.tsv"
printf 'commit: abc123\nkernel: 6.18\n' > "$T/meta.txt"

"$REPORT" "$T" 2> "$T/err" || fail "report.sh failed: $(cat "$T/err")"
[ -s "$T/REPORT.md" ] || fail "no REPORT.md"
[ -s "$T/summary.tsv" ] || fail "no summary.tsv"

# summary.tsv: workload param mode metric n median min max q1 q3
#   x_base x_base_min x_base_max x_rfs ... x_cpumap ...
get()	# WORKLOAD PARAM MODE METRIC COLUMN-NAME
{
	awk -F'\t' -v w="$1" -v p="$2" -v m="$3" -v k="$4" -v c="$5" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == w && $2 == p && $3 == m && $4 == k { print $col[c]; f = 1 }
		END { if (!f) print "none" }' "$T/summary.tsv"
}
expect()	# WORKLOAD PARAM MODE METRIC COLUMN WANT
{
	local got
	got=$(get "$1" "$2" "$3" "$4" "$5")
	[ "$got" = "$6" ] || fail "$1 $2 $3 $4: $5 is '$got', want '$6'"
}

# base 100 200 300 400: median 250, q1 at 0.75 of the way 100..200
expect nic socks=64 base delivered_pps n 4
expect nic socks=64 base delivered_pps median 250
expect nic socks=64 base delivered_pps min 100
expect nic socks=64 base delivered_pps max 400
expect nic socks=64 base delivered_pps q1 175
expect nic socks=64 base delivered_pps q3 325
# rfs / base per round: 1.5 1.5 2 0.5
expect nic socks=64 rfs delivered_pps x_base 1.5
expect nic socks=64 rfs delivered_pps x_base_min 0.5
expect nic socks=64 rfs delivered_pps x_base_max 2
# xdp: 5 values (300 x4, 1000); ratios from rounds 1-4 only:
# to base 3 1.5 1 0.75 -> 1.25; to rfs 2 1 0.5 1.5 -> 1.25
expect nic socks=64 xdp delivered_pps n 5
expect nic socks=64 xdp delivered_pps median 300
expect nic socks=64 xdp delivered_pps max 1000
expect nic socks=64 xdp delivered_pps x_base 1.25
expect nic socks=64 xdp delivered_pps x_base_max 3
expect nic socks=64 xdp delivered_pps x_rfs 1.25
expect nic socks=64 xdp delivered_pps x_rfs_min 0.5
# no reference to itself
expect nic socks=64 base delivered_pps x_base -
# 3 values: no quartiles; xdp / cpumap 3 2.5 2
expect cost path=prog cpumap ns_per_frame median 20
expect cost path=prog cpumap ns_per_frame q1 -
expect cost path=prog xdp ns_per_frame x_cpumap 2.5
expect cost path=prog xdp ns_per_frame x_cpumap_min 2
expect cost path=prog xdp ns_per_frame x_cpumap_max 3
expect cost path=prog xdp ns_per_frame x_base -
expect rr-many n=16,req=1 base tps median 15
expect rr-many n=16,req=1 base locality_pct median 50
expect rr-many n=16,req=1 xdp locality_pct median 97.25
expect rr-many n=16,req=1 xdp locality_pct min 95
expect sizing flows=256,sock=4096,devtab=1024,cpus=8 sim accuracy_pct median 93.5

# the same in the tables a reader sees (base / rfs: 0.667 0.667 0.5 2)
grep -qF '| socks=64 | base | 4 | 250 | 100–400 | 175–325 |  | 0.667 (0.500–2.000) |' "$T/REPORT.md" ||
	fail "REPORT.md: no base row with its median, range, IQR and × rfs: $(grep 'socks=64 | base' "$T/REPORT.md" | head -n 1)"
grep -qF '| socks=64 | xdp | 5 | 300 | 300–1000 | 300–300 | 1.250 (0.750–3.000) | 1.250 (0.500–2.000) |' "$T/REPORT.md" ||
	fail "REPORT.md: no xdp row: $(grep 'socks=64 | xdp' "$T/REPORT.md" | head -n 1)"
grep -qF '| path=prog | xdp | 3 | 50 | 30–80 | – | 2.500 (2.000–3.000) |' "$T/REPORT.md" ||
	fail "REPORT.md: no cost row: $(grep 'path=prog | xdp' "$T/REPORT.md" | head -n 1)"
grep -qF '| 256 | 93.5 |' "$T/REPORT.md" || fail "REPORT.md: no sizing row"
sed -n '/^## rr-many:/,/^## /p' "$T/REPORT.md" > "$T/rr-many.md"
grep -qxF '**locality_pct** (pct)' "$T/rr-many.md" ||
	fail "REPORT.md: no locality_pct table under rr-many"
grep -qxF '| n=16,req=1 | xdp | 2 | 97.2 | 95–99.5 | – |' "$T/rr-many.md" ||
	fail "REPORT.md: no xdp locality row (or a ratio column on a percentage): $(grep 'req=1 | xdp' "$T/rr-many.md" | head -n 1)"
grep -q '1 malformed rows skipped' "$T/REPORT.md" || fail "REPORT.md: the malformed row is not reported"
grep -q 'commit: abc123' "$T/REPORT.md" || fail "REPORT.md: meta.txt is not quoted"
# the machine at the head; what a run did not record is said so
grep -qxF 'Machine: CPUs not recorded; kernel 6.18; CONFIG_HZ not recorded; preemption not recorded; cpuidle driver not recorded.' "$T/REPORT.md" ||
	fail "REPORT.md: no machine line for a run that recorded only its kernel: $(grep '^Machine' "$T/REPORT.md")"
for w in rpc order-bulk order-udp; do
	grep -A 2 "^## $w:" "$T/REPORT.md" | grep -q 'No rows for this workload' ||
		fail "REPORT.md: missing workload $w is not said to be missing"
done
grep -A 2 '^## nic:' "$T/REPORT.md" | grep -q 'No rows' &&
	fail "REPORT.md: nic has rows but is said to be missing"
if command -v gnuplot >/dev/null 2>&1; then
	for p in nic_delivered cost_ns_per_frame sizing_accuracy rr_many_locality_req1; do
		[ -s "$T/$p.png" ] || fail "no $p.png although gnuplot is installed"
		grep -qF "($p.png)" "$T/REPORT.md" || fail "REPORT.md does not show $p.png"
	done
fi

# a run that produced nothing yet: still a report, every workload missing
E=$T/empty
mkdir "$E" && printf 'workload\tparam\tmode\tround\tmetric\tvalue\tunit\n' > "$E/results.tsv"
# meta.txt as bench/run.sh writes it, the machine's lines in it
printf '%s\n' 'commit: abc123' 'kernel: 6.18.44' 'cpus: 2' 'cpu_model: Some CPU' \
	'hz: 250' 'preempt: dynamic, none at boot (the config'"'"'s default)' \
	'cpuidle: haltpoll (governor haltpoll)' 'guest_halt_poll_ns: 200000' > "$E/meta.txt"
"$REPORT" "$E" 2> "$T/err" || fail "report.sh failed on a header-only file: $(cat "$T/err")"
[ "$(sed -n 3p "$E/REPORT.md")" = "Machine: 2 CPUs; kernel 6.18.44; CONFIG_HZ 250; preemption dynamic, none at boot (the config's default); cpuidle haltpoll (governor haltpoll); guest_halt_poll_ns 200000." ] ||
	fail "REPORT.md's head does not name the machine: $(sed -n 3p "$E/REPORT.md")"
[ "$(grep -c 'No rows for this workload' "$E/REPORT.md")" -ge 7 ] ||
	fail "header-only results: not every workload is said to be missing"
# bench/ab.py on a copy with tps rows added (and the malformed row):
# rr-many n=16,req=1 tps, base 10 20, xdp 15 10, rfs 5 20 -> per round
# xdp/rfs 3 0.5, xdp/base 1.5 0.5, rfs/base 0.5 1
{ mkdir "$T/ab" && cp "$T/results.tsv" "$T/ab/"; } || fail "can't copy results.tsv"
ROWS=$T/ab/results.tsv
for v in "xdp 1 tps 15 tps" "xdp 2 tps 10 tps" "rfs 1 tps 5 tps" "rfs 2 tps 20 tps" \
	"xdp 2 retrans 7 segments" "rfs 1 retrans 0 segments"; do
	# shellcheck disable=SC2086	# the words of a row
	row rr-many n=16,req=1 $v
done
AB=$("$TOP/bench/ab.py" "$T/ab" xdp rfs base) || fail "bench/ab.py failed"
grep -q "^rr-many  *n=16,req=1  *tps  *1.75 (0.50-3.00)  *1.00 (0.50-1.50)  *0.75 (0.50-1.00)  *0,- | -,7 | -,-\$" <<< "$AB" ||
	fail "bench/ab.py's rr-many row: $(grep '^rr-many' <<< "$AB")"
grep -q "^tps xdp/rfs, median over 1 cells: 1.750 (min 1.75)\$" <<< "$AB" ||
	fail "bench/ab.py's summary: $(tail -n 1 <<< "$AB")"
"$TOP/bench/ab.py" "$T/ab" xdp > /dev/null 2>&1 && fail "bench/ab.py with one mode did not fail"
# a second run pooled with it: its round 1 (xdp 8, rfs 4: 2) is a round
# of its own, not the first run's round 1 again -> xdp/rfs 3 0.5 2
mkdir "$T/ab2" && printf 'workload\tparam\tmode\tround\tmetric\tvalue\tunit\n' > "$T/ab2/results.tsv" ||
	fail "can't write $T/ab2/results.tsv"
printf 'rr-many\tn=16,req=1\t%s\t1\ttps\t%s\ttps\n' xdp 8 rfs 4 >> "$T/ab2/results.tsv"
AB=$("$TOP/bench/ab.py" "$T/ab,$T/ab2" xdp rfs base) || fail "bench/ab.py on two runs failed"
grep -q "^rr-many  *n=16,req=1  *tps  *2.00 (0.50-3.00)  *1.00 (0.50-1.50)  *0.75 (0.50-1.00)  *0,-,- | -,7,- | -,-,-\$" <<< "$AB" ||
	fail "bench/ab.py's rr-many row over two runs: $(grep '^rr-many' <<< "$AB")"
# bench/ab.py merge: bench/ab-commits.sh's pairs of runs, a-I and b-I,
# into one file, modes renamed, the pair as the round, profile.json's
# figures as workload bpf.  rr tps a 100 120, b 100 100 -> 1.00 1.20;
# rfs_xdp ns per run a 300 400, b 250 200 -> 1.20 2.00; sampled ns per
# transaction in pair 1 only (a 600, b 300); a run without a
# profile.json (a-3) adds its results.tsv alone.
M=$T/merge
for r in a-1 b-1 a-2 b-2 a-3; do
	mkdir -p "$M/runs/$r" &&
		printf 'workload\tparam\tmode\tround\tmetric\tvalue\tunit\n' > "$M/runs/$r/results.tsv" ||
		fail "can't write $M/runs/$r"
done
mkdir -p "$M/runs/a-x" "$M/runs/c-1"	# not a pair's run: left out
for v in "a-1 100" "a-2 120" "b-1 100" "b-2 100"; do
	set -- $v
	printf 'rr\tmsg=64\txdp\t1\ttps\t%s\ttps\n' "$2" >> "$M/runs/$1/results.tsv"
done
printf 'rr\tmsg=64\txdp\t1\ttps\t999\ttps\n' > "$M/runs/c-1/results.tsv"
prof() # DIR RUNS NS [SAMPLED_NS_PER_TX]
{
	local sampled=null
	[ -z "${4:-}" ] ||
		sampled="{\"ns_per_tx\": $4, \"ns_per_tx_steered\": $4, \"ns_per_tx_prog\": {\"rfs_xdp\": $4}}"
	printf '{"phases": {"rr": {"transactions": 10, "progs": [{"name": "rfs_xdp", "runs": %s, "ns": %s}, {"name": "rfs_cpumap", "runs": 0, "ns": 0}]}}, "sampled": %s}\n' \
		"$2" "$3" "$sampled" > "$1/profile.json"
}
prof "$M/runs/a-1" 10 3000 600
prof "$M/runs/b-1" 10 2500 300
prof "$M/runs/a-2" 10 4000
prof "$M/runs/b-2" 10 2000
"$TOP/bench/ab.py" merge "$M" || fail "bench/ab.py merge failed"
grep -q $'^rr\tmsg=64\txdp@b\t2\ttps\t100\ttps$' "$M/results.tsv" ||
	fail "bench/ab.py merge: b's pair 2 is not round 2 of xdp@b: $(cat "$M/results.tsv")"
grep -q '999' "$M/results.tsv" && fail "bench/ab.py merge took a run that is not a or b"
AB=$("$TOP/bench/ab.py" "$M" xdp@a xdp@b) || fail "bench/ab.py on merged runs failed"
grep -q '^rr  *msg=64  *tps  *1.10 (1.00-1.20) ' <<< "$AB" ||
	fail "bench/ab.py's merged rr row: $AB"
grep -q '^bpf  *rfs_xdp  *ns_per_run  *1.60 (1.20-2.00) ' <<< "$AB" ||
	fail "bench/ab.py's merged ns per run: $AB"
grep -q '^bpf  *all  *ns_per_tx  *2.00 (2.00-2.00) ' <<< "$AB" ||
	fail "bench/ab.py's merged sampled ns per transaction: $AB"
grep -q 'rfs_cpumap' <<< "$AB" && fail "bench/ab.py merged a program that never ran: $AB"
[ -z "$("$TOP/bench/ab.py" "$M" sim@a sim@b)" ] ||
	fail "bench/ab.py printed a table for modes with no figures"
"$TOP/bench/ab.py" merge "$T/empty" 2> /dev/null && fail "bench/ab.py merge of no runs did not fail"
# bench/meta.sh: meta.txt's head, the keys report.sh reads, in order
META=$(cd "$TOP" && TOP=$TOP BUILD=$TOP/build bash -c '. bench/meta.sh && meta_machine') ||
	fail "bench/meta.sh's meta_machine failed"
[ "$(cut -d: -f1 <<< "$META" | paste -sd' ')" = "commit kernel cpus cpu_model hz preempt cpuidle date" ] ||
	fail "bench/meta.sh's keys: $META"
[ "$(sed -n 's/^cpus: //p' <<< "$META")" = "$(nproc)" ] || fail "bench/meta.sh's cpus: $META"
META=$(cd "$TOP" && TOP=$TOP BUILD=/b RFS_BENCH_REV=abc bash -c '. bench/meta.sh && meta_machine') ||
	fail "bench/meta.sh's meta_machine failed with RFS_BENCH_REV"
[ "$(sed -n 1p <<< "$META")" = "commit: abc (rfsd /b/rfsd)" ] ||
	fail "bench/meta.sh's commit with RFS_BENCH_REV: $(sed -n 1p <<< "$META")"
# bench/kprofile.py: two rounds of xdp and one of pass, a call-chain
# line and a BPF program's tag in them; means per mode and CPU, symbols
# under the cut left out, sorted by their largest mean
mkdir -p "$T/kp/logs" || fail "can't make $T/kp/logs"
printf '%s\n' '== CPU 0 (RX CPU): top symbols' '    30.00%  [k] memcpy' \
	'    10.00%  [k] bpf_prog_0123456789abcdef_rfs_xdp' '== CPU 1 (server): top symbols' \
	'    50.00%  [k] halt' '-- CPU 0: call chains' '    30.00% memcpy;veth_poll' \
	'== page pool, every CPU, per second: ppalloc=900000 ppfree=899000' \
	> "$T/kp/logs/1.xdp.bulk.kprofile"
printf '%s\n' '== CPU 0 (RX CPU): top symbols' '    20.00%  [k] memcpy' \
	'    0.50%  [k] tiny' '== CPU 1 (server): top symbols' '    10.00%  [k] halt' \
	'== page pool, every CPU, per second: ppalloc=700000 ppfree=700001' \
	> "$T/kp/logs/2.xdp.bulk.kprofile"
printf '%s\n' '== CPU 0 (RX CPU): top symbols' '    40.00%  [k] memcpy' \
	'== page pool, every CPU, per second: ppalloc=10 ppfree=12' \
	> "$T/kp/logs/1.pass.bulk.kprofile"
KP=$("$TOP/bench/kprofile.py" "$T/kp" bulk 1) || fail "bench/kprofile.py failed"
[ "$(grep -A 5 '^CPU 0, bulk' <<< "$KP" | grep '^| [a-z]' | tr -d ' ')" = "$(printf '%s\n' '|symbol|pass|xdp|' '|memcpy|40.0|25.0|' '|bpf:rfs_xdp|0.0|5.0|')" ] ||
	fail "bench/kprofile.py's CPU 0 table: $KP"
grep -q '^| halt | 0.0 | 30.0 |$' <<< "$KP" || fail "bench/kprofile.py's CPU 1 row: $KP"
grep -q 'rounds: pass 1, xdp 2' <<< "$KP" || fail "bench/kprofile.py's round counts: $KP"
# the page pool's table: its rows are not mistaken for a CPU's symbols
grep -q '^| from the page allocator | 10 | 800000 |$' <<< "$KP" &&
	grep -q '^| back to it | 12 | 799500 |$' <<< "$KP" ||
	fail "bench/kprofile.py's page pool table: $KP"
grep -q '^CPU pool' <<< "$KP" && fail "bench/kprofile.py made a CPU of the page pool line: $KP"
"$TOP/bench/kprofile.py" "$T/kp" bulk-local > /dev/null 2>&1 &&
	fail "bench/kprofile.py with no profiles did not fail"
# bench/summary.py's bulk targets: the bare cpumap redirect's bound
# (cpumap / pass 6/8, 5/8), xdp-rfs against it (5.7/6, 5.5/5) and the
# page pool's pages by mode, on two hand-made rounds
mkdir "$T/sum" || fail "can't make $T/sum"
printf '%s\n' "1 base bulk gbps=10 irtx=0" "1 pass bulk gbps=8 irtx=0 ppalloc=100" \
	"1 cpumap bulk gbps=6 irtx=0 ppalloc=500000" "1 xdp bulk gbps=5.7 irtx=0 ringdrop=0 ppalloc=490000" \
	"2 base bulk gbps=10 irtx=0" "2 pass bulk gbps=8 irtx=0 ppalloc=140" \
	"2 cpumap bulk gbps=5 irtx=0 ppalloc=400000" "2 xdp bulk gbps=5.5 irtx=0 ringdrop=0 ppalloc=420000" \
	> "$T/sum/raw.txt"
SUM=$(python3 "$TOP/bench/summary.py" "$T/sum" "base pass cpumap xdp" bulk 1 0 - 6 2 2 10 0) ||
	fail "bench/summary.py on two bulk rounds failed"
grep -q '^| (the bound on the second bulk line) .*(cpumap / pass, same round).* | 0.688 (0.625–0.750) | bound |$' <<< "$SUM" ||
	fail "bench/summary.py's bare-redirect bound: $(grep 'cpumap' <<< "$SUM")"
grep -q '^| bulk against the bare cpumap redirect (xdp / cpumap, same round).* | 1.025 (0.950–1.100) | - |$' <<< "$SUM" ||
	fail "bench/summary.py's xdp / cpumap row: $(grep 'cpumap' <<< "$SUM")"
grep -q '| pass 120 (100–140), cpumap 450000 (400000–500000), xdp 455000 (420000–490000) | - |$' <<< "$SUM" ||
	fail "bench/summary.py's page pool row: $(grep 'page pool' <<< "$SUM")"
echo "report arithmetic: medians, quartiles, per-round ratios and missing workloads as computed by hand; bench/ab.py's ratios too, also over two runs and over bench/ab-commits.sh's merged pairs; bench/kprofile.py's means; bench/summary.py's bulk bounds; the machine at the head and bench/meta.sh's keys"
