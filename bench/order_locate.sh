#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a bulk TCP stream over the lab loses its order, without xdp-rfs:
# bench/order_locate (a bare redirect of every frame to CPU 1's cpumap)
# counts the data segments that arrive behind the highest sequence number
# seen, once at the XDP hook and once at the target's dequeue.  Rounds as
# bench/run.sh's order-bulk was before its sender's ACKs were confined to
# the sender's CPU (tests/tools/rfs_bulk, the sender on CPU 0 in the lab's
# namespace with a pfifo on its veth, the receiver pinned to CPU 1; the
# sender also transmits from CPU 1, where its ACKs arrive), with the
# sender's retransmits and its qdisc's requeues (its
# veth stopped the queue: the XDP ring was full).  A retransmitted
# segment is behind too; segments behind the top in a round without a
# retransmit arrived out of order.
#
#	bench/order_locate.sh [ROUNDS]		(default 20; root)
#
# One line per round, then a total.  The lab is torn down on every exit.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${1:-20}
SECS=2
BUILD=${RFS_BUILD:-$TOP/build}
LOC=$BUILD/bench/order_locate
BULK=$BUILD/tests/rfs_bulk

die() { printf 'order_locate: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (netns, XDP)"
[[ $ROUNDS =~ ^[0-9]+$ ]] && [ "$ROUNDS" -gt 0 ] || die "ROUNDS must be a positive number, not '$ROUNDS'"
[ -x "$LOC" ] && [ -x "$BULK" ] || die "build first: make $LOC $BULK"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"

LAB_ID=$$
. "$TOP/tests/lib/lab.sh"
lab_trap
lab_up || die "can't set up the lab"
lab_ns_backpressure "$LAB_B"

requeues() { lab_ns tc -s qdisc show dev "$LAB_B" | sed -n 's/.*requeues \([0-9]*\).*/\1/p' | head -n 1; }
kv() { sed -n "s/.*\"$2\": \\([0-9]*\\).*/\\1/p" "$1"; }

tot_in=0 tot_deq=0 tot_rtx=0 tot_ooo=0 late_rounds=0
for ((r = 1; r <= ROUNDS; r++)); do
	port=$((43000 + r))
	lab_bg "$LOC" "$LAB_A" --target 1 > "$LAB_DIR/loc.out" 2>&1
	loc=$LAB_BG_PID
	for ((i = 0; i < 50; i++)); do
		grep -q '^attached' "$LAB_DIR/loc.out" && break
		lab_alive "$loc" || die "order_locate did not attach: $(cat "$LAB_DIR/loc.out")"
		sleep 0.1
	done
	rq0=$(requeues)
	lab_bg taskset -c 1 "$BULK" sink --bind "$LAB_IP4_A" --port "$port" \
		--seconds "$SECS" > "$LAB_DIR/sink.out" 2>&1
	sink=$LAB_BG_PID
	sleep 0.3
	lab_ns taskset -c 0 "$BULK" source --addr "$LAB_IP4_A" --port "$port" \
		--seconds "$SECS" > "$LAB_DIR/source.out" 2>&1 ||
		die "round $r: the sender failed: $(cat "$LAB_DIR/source.out")"
	lab_wait "$sink" 15 || die "round $r: the receiver failed: $(cat "$LAB_DIR/sink.out")"
	rq1=$(requeues)
	lab_kill "$loc" TERM 5
	in=$(kv "$LAB_DIR/loc.out" ingress_behind)
	deq=$(kv "$LAB_DIR/loc.out" dequeue_behind)
	moves=$(kv "$LAB_DIR/loc.out" rx_cpu_changes)
	segs_in=$(kv "$LAB_DIR/loc.out" ingress_segments)
	segs_deq=$(kv "$LAB_DIR/loc.out" dequeue_segments)
	rtx=$(sed -n 's/.*total_retrans=\([0-9]*\).*/\1/p' "$LAB_DIR/source.out")
	ooo=$(sed -n 's/.*rcv_ooopack=\([0-9]*\).*/\1/p' "$LAB_DIR/sink.out")
	[ -n "$in" ] && [ -n "$deq" ] && [ -n "$rtx" ] && [ -n "$ooo" ] ||
		die "round $r: missing counts (logs in $LAB_DIR)"
	printf 'round %d: segments at the XDP hook %d, at the cpumap dequeue %d; behind the top there %d and %d; receiver out-of-order %d; sender retransmits %d; qdisc requeues %d; RX CPU changes %d\n' \
		"$r" "$segs_in" "$segs_deq" "$in" "$deq" "$ooo" "$rtx" $((rq1 - rq0)) "$moves"
	tot_in=$((tot_in + in)) tot_deq=$((tot_deq + deq))
	tot_rtx=$((tot_rtx + rtx)) tot_ooo=$((tot_ooo + ooo))
	[ "$in" -gt 0 ] && [ "$rtx" -eq 0 ] && late_rounds=$((late_rounds + 1))
done
printf 'total over %d rounds: behind the top at the XDP hook %d, at the cpumap dequeue %d; receiver out-of-order %d; sender retransmits %d; rounds with segments behind at the hook and no retransmit %d\n' \
	"$ROUNDS" "$tot_in" "$tot_deq" "$tot_ooo" "$tot_rtx" "$late_rounds"
