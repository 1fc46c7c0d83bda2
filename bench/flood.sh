#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a flood steered to a CPU leaves the tasks there (a benchmark, not a
# test): numbered UDP (tests/tools/rfs_seq) at PPS datagrams/s for 4 s
# from a sender on CPU 0 in the lab's namespace to a reader pinned to CPU
# 1, beside a CPU-bound counter (a Python loop) also on CPU 1.  Per round
# and mode: the counter's progress under the flood against 2 s of it
# alone just before, and the datagrams the reader lost (it falls behind
# and its socket buffer overflows).  Modes:
#   rfs       kernel RFS (rps_cpus on every CPU, rps_flow_cnt 4096, 32768
#             sock flow entries), no XDP program
#   POLICY    rfsd attached with cpumap_kthread_sched = POLICY (kernel,
#             fifo:1, batch:0, ...; "default" for rfsd's default)
#
#	bench/flood.sh [--rounds N] [--pps N] [MODE...]
#	    (default: 3 rounds of rfs kernel default, 400000/s; root)
#
# One line per round and mode, then per mode the median (min-max) of the
# counter's share and of the datagrams lost; rfsd's log lines about its
# kthreads under each xdp mode.  The lab is torn down on every exit.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=3
PPS=400000
SECS=4
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=${2:-}; shift 2 ;;
	--pps) PPS=${2:-}; shift 2 ;;
	-h|--help) sed -n '/^# What a flood/,/^# kthreads under/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "flood: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- rfs kernel default

die() { printf 'flood: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (netns, XDP)"
[[ $ROUNDS =~ ^[0-9]+$ ]] && [ "$ROUNDS" -gt 0 ] || die "--rounds must be a positive number, not '$ROUNDS'"
[[ $PPS =~ ^[0-9]+$ ]] && [ "$PPS" -gt 0 ] || die "--pps must be a positive number, not '$PPS'"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"

LAB_ID=$$
. "$TOP/tests/lib/lab.sh"
SEQ=$LAB_BUILD/tests/rfs_seq
[ -x "$SEQ" ] || die "build first: make $SEQ"
lab_trap
lab_up || die "can't set up the lab"
lab_init
PORT=$((LAB_PORT + 500))
RAW=$LAB_DIR/raw

# Python's loop count over $1 seconds on CPU 1
count()
{
	taskset -c 1 "$LAB_PY" -c '
import sys, time
end = time.time() + float(sys.argv[1]); n = 0
while time.time() < end:
    for _ in range(10000): pass
    n += 1
print(n)' "$1"
}

mode_on()
{
	local q
	if [ "$1" = rfs ]; then
		for q in /sys/class/net/"$LAB_A"/queues/rx-*; do
			lab_set "$q/rps_cpus" 3
			lab_set "$q/rps_flow_cnt" 4096
		done
		lab_set /proc/sys/net/core/rps_sock_flow_entries 32768
		return
	fi
	# a datapath of its own each time: an rfsd that adopts one leaves
	# kthreads an earlier rfsd changed as they are
	printf '[global]\ndetach_on_exit = yes\n' > "$LAB_DIR/rfsd.conf"
	[ "$1" = default ] ||
		printf 'cpumap_kthread_sched = %s\n' "$1" >> "$LAB_DIR/rfsd.conf"
	: > "$RFSD_LOG"
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || die "rfsctl attach $LAB_A failed"
}

mode_off()
{
	local q
	if [ "$1" = rfs ]; then
		for q in /sys/class/net/"$LAB_A"/queues/rx-*; do
			lab_restore "$q/rps_cpus"
			lab_restore "$q/rps_flow_cnt"
		done
		lab_restore /proc/sys/net/core/rps_sock_flow_entries
		return
	fi
	grep -E "cpumap kthread" "$RFSD_LOG" | sed "s/^rfsd: /    $1: /"
	ctl detach "$LAB_A" >/dev/null
	lab_stop_rfsd TERM 10
}

: > "$RAW"
for ((r = 1; r <= ROUNDS; r++)); do
	for m in "$@"; do
		mode_on "$m"
		lab_bg taskset -c 1 "$SEQ" recv "$LAB_IP4_A" "$PORT" "$LAB_IP4_B" \
			$((PORT + 1000)) $((SECS + 4)) > "$LAB_DIR/recv"
		rpid=$LAB_BG_PID
		sleep 0.5
		alone=$(count 2)
		lab_bg_ns taskset -c 0 "$SEQ" send "$LAB_IP4_B" $((PORT + 1000)) \
			"$LAB_IP4_A" "$PORT" "$SECS" "$PPS" > "$LAB_DIR/send"
		spid=$LAB_BG_PID
		sleep 0.3
		under=$(count $((SECS - 1)))
		under=$((under * 2 / (SECS - 1)))	# per 2 s, as alone
		lab_wait "$spid" 20 || die "the sender failed"
		lab_wait "$rpid" 20 || die "the reader failed"
		read -r sent lost < <("$LAB_PY" -c '
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
r = json.loads(open(sys.argv[2]).read().splitlines()[-1])
print(s["sent"], r["lost"])' "$LAB_DIR/send" "$LAB_DIR/recv") || die "no result from rfs_seq"
		mode_off "$m"
		share=$(awk -v a="$alone" -v b="$under" 'BEGIN { printf "%.2f", b / a }')
		echo "$m $share $lost $sent" >> "$RAW"
		printf 'round %d %-8s counter %s of alone, lost %s of %s datagrams\n' \
			"$r" "$m" "$share" "$lost" "$sent"
	done
done
"$LAB_PY" - "$RAW" "$@" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("%-8s %-22s %s" % ("mode", "counter (of alone)", "lost (% of sent)"))
for m in sys.argv[2:]:
    sh = [float(r[1]) for r in rows if r[0] == m]
    lo = [100.0 * int(r[2]) / int(r[3]) for r in rows if r[0] == m]
    f = lambda l, p: "%.*f (%.*f-%.*f)" % (p, statistics.median(l), p, min(l), p, max(l))
    print("%-8s %-22s %s" % (m, f(sh, 2), f(lo, 1)))
PY
