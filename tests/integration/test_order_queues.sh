#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-order rule (include/rfs_order.h) when a flow's RX queue and RX
# CPU change under it: a veth of 4 RX queues, each fed from its own
# sender CPU, receivers hopping over every online CPU, and the queue
# counts (ethtool -L) and XPS maps changed between bursts.  What
# must hold whatever the queue layout: frames from every RX queue keep
# their order, including queues added after rfsd attached.  Same lab and
# oracle as test_order.sh (tests/lib/lab.sh; tests/tools/rfs_seq counts
# inversions and losses at the receiver, no xdp-rfs counter involved),
# whose helpers it reuses.
#
#	tests/integration/test_order_queues.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.
# Knobs: ORDER_QUEUES_SECS (seconds of traffic per run, default 12),
# ORDER_QUEUES_FLOWS (default 16), ORDER_QUEUES_PPS (datagrams/s per flow,
# default 1000), ORDER_BOUNCE_MS (the receivers' hop, default 20),
# ORDER_CONTROL_RUNS (noguard runs at most, default 8).

# sourced for its helpers (stats, stat_delta, noguard_control, ...): it
# defines them and returns without running anything
# shellcheck source=tests/integration/test_order.sh
. "$(dirname "${BASH_SOURCE[0]}")/test_order.sh"

ALL_TESTS="
	test_queue_changes
"

ORDER_QUEUES_SECS=${ORDER_QUEUES_SECS:-12}
ORDER_QUEUES_FLOWS=${ORDER_QUEUES_FLOWS:-16}
ORDER_QUEUES_PPS=${ORDER_QUEUES_PPS:-1000}
QC_QUEUES=4			# the veth's queues, one per sender CPU
QC_PORT=$((LAB_PORT + 300))	# receivers here, senders +1000

# ---------------------------------------------------------------- helpers

# The RX queue count of $LAB_A and the TX queue count of $LAB_B, as
# "rx tx".
qc_counts()
{
	local rx
	rx=(/sys/class/net/"$LAB_A"/queues/rx-*)
	echo "${#rx[@]}" \
		"$(lab_ns sh -c "ls -d /sys/class/net/$LAB_B/queues/tx-*" | wc -l)"
}

# What rfsd's status says of $LAB_A's RX queues (a report only).
qc_rfsd_queues()
{
	lab_if_status "$LAB_A" | jget 'd["rx_queues"]' 2>/dev/null || echo '?'
}

# $LAB_A's RX queues and $LAB_B's TX queues to $1.  veth refuses, while
# XDP is attached, a peer sending on a queue the XDP side does not
# receive on (such frames would pass the stack without XDP): shrink the
# sender first, grow the receiver first.
qc_channels()
{
	local n=$1 rx
	read -r rx _ <<< "$(qc_counts)"
	if [ "$n" -lt "$rx" ]; then
		lab_ns ethtool -L "$LAB_B" tx "$n" ||
			fail "can't set $LAB_B to $n TX queues"
		ethtool -L "$LAB_A" rx "$n" ||
			fail "can't set $LAB_A to $n RX queues"
	elif [ "$n" -gt "$rx" ]; then
		ethtool -L "$LAB_A" rx "$n" ||
			fail "can't set $LAB_A to $n RX queues"
		lab_ns ethtool -L "$LAB_B" tx "$n" ||
			fail "can't set $LAB_B to $n TX queues"
	fi
	[ "$(qc_counts)" = "$n $n" ] ||
		fail "asked for $n queues, have (rx tx) $(qc_counts)"
}

# XPS of $LAB_B: sender i's CPU (CPU_LIST[i]) transmits on queue $((i+1))
# of the arguments (sender 0's queue first).  A connected socket keeps
# the queue it picked until its route is checked again: flushing the
# namespace's route cache makes every live flow pick again, by this map.
qc_xps()
{
	local masks=() i q nq
	read -r _ nq <<< "$(qc_counts)"
	for ((q = 0; q < nq; q++)); do
		masks[q]=0
	done
	i=0
	for q in "$@"; do
		((q < nq)) || fail "XPS: queue $q of $nq"
		masks[q]=$((masks[q] | 1 << CPU_LIST[i]))
		i=$((i + 1))
	done
	for ((q = 0; q < nq; q++)); do
		lab_ns sh -c "printf '%x' ${masks[q]} > /sys/class/net/$LAB_B/queues/tx-$q/xps_cpus" ||
			fail "can't set XPS on $LAB_B tx-$q"
	done
	lab_ns ip route flush cache || fail "can't flush $LAB_NS's route cache"
	QC_LAYOUT+=" | $nq queues, senders on $*"
}

# The layout every run starts from: 4 queues, sender i on queue i.
qc_start_layout()
{
	qc_channels "$QC_QUEUES"
	qc_xps 0 1 2 3
}

# The UDP datagrams sent in $LAB_NS (only the rfs_seq senders send
# there) and the frames dropped on the veth rings (as lab_drops counts
# them), as "sent veth_drops".
qc_sent()
{
	local b a o d
	b=$(lab_ns sh -c "nstat -saz UdpOutDatagrams Udp6OutDatagrams 2>/dev/null |
		awk '/^Udp/ { t += \$2 } END { print t + 0 }';
		cat /sys/class/net/$LAB_B/statistics/tx_dropped")
	a=$(cat "/sys/class/net/$LAB_A/statistics/rx_dropped")
	read -r o d <<< "${b//$'\n'/ }"
	echo "$o $((d + a))"
}

# Frames of the run not yet past the cpumap rings (rings_pending), and
# datagrams sent but not yet seen by XDP (still in a veth ring), as
# "inflight unseen": $1 and $2 are the stats and qc_sent at the run's
# start.
qc_sample()
{
	local s1 q1
	s1=$(stats)
	q1=$(qc_sent)
	echo "$(rings_pending "$1" "$s1")" "$("$LAB_PY" -c '
import json, sys
a, b = (json.loads(x)["total"] for x in sys.argv[1:3])
d = lambda k: b.get(k, 0) - a.get(k, 0)
(s0, v0), (s1, v1) = (map(int, x.split()) for x in sys.argv[3:5])
print(s1 - s0 - (v1 - v0) -
      (d("seen") - d("pass_not_ip") - d("pass_other_proto")))' \
		"$1" "$s1" "$2" "$q1")"
}

# What the senders are and said, for a failure message.
qc_senders()
{
	local p i=0
	for p in "${QC_SENDERS[@]}"; do
		printf ' [%s: %s; %s]' "$p" \
			"$(cut -d' ' -f2,3 "/proc/$p/stat" 2>/dev/null || echo gone)" \
			"$(cat "$LAB_DIR/qc.send.$i" "$LAB_DIR/qc.send.$i.err" 2>/dev/null)"
		i=$((i + 1))
	done
}

# Wait until nothing the senders sent is in flight: every datagram seen
# by XDP (or dropped on a veth ring) and off the cpumap rings; then half
# a second for a kthread that took the last ones to deliver them (it
# does in the same run, without sleeping).  $1: what is waited for; $2,
# $3: the run's stats and qc_sent at its start.
qc_quiet()
{
	local t0=$SECONDS cur p q
	while :; do
		cur=$(qc_sample "$2" "$3")
		read -r p q <<< "$cur"
		if [ "$p" -le 0 ] && [ "$q" -le 0 ]; then
			sleep 0.5
			break
		fi
		[ "$SECONDS" -lt $((t0 + 20)) ] ||
			fail "$1: frames still in flight 20 s after the senders stopped (past XDP, not yet seen by it: $cur);$(qc_senders)"
		sleep 0.1
	done
	say "$1: nothing in flight after $((SECONDS - t0)) s"
}

# Stop the senders (SIGSTOP: rfs_seq resumes at its rate, without
# arrears) and wait until nothing of theirs is in flight (qc_quiet).  A
# flow that changes RX queue with frames in flight can be reordered in
# the veth itself, before any steering (its old queue still polled on
# another CPU, or not yet), and on the old queue's path (docs/design.md,
# "Flows that change RX queue"): the queue changes are made between
# bursts, as that section says order is kept.  $1, $2: as qc_quiet's $2
# and $3.
qc_pause()
{
	local p st deadline=$((SECONDS + 20)) err
	err=$(kill -STOP "${QC_SENDERS[@]}" 2>&1) ||
		fail "can't stop the rfs_seq senders: $err;$(qc_senders)"
	for p in "${QC_SENDERS[@]}"; do
		until st=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null) &&
		      [ "$st" = T ]; do
			[ "$SECONDS" -lt "$deadline" ] ||
				fail "rfs_seq sender $p not stopped:$(qc_senders)"
			sleep 0.05
		done
	done
	QC_PAUSES=$((QC_PAUSES + 1))
	qc_quiet "pause $QC_PAUSES" "$@"
}

qc_resume()
{
	local err
	err=$(kill -CONT "${QC_SENDERS[@]}" 2>&1) ||
		fail "can't continue the rfs_seq senders: $err;$(qc_senders)"
}

# The changes, one every $1 seconds, each between bursts (qc_pause):
# every flow moves to another queue fed from the same CPU; two senders
# share a queue (its NAPI then runs on either CPU, so a flow's RX CPU
# changes between polls, under traffic) with the other two queues gone;
# back to 4 queues, reversed; 3 queues; the start layout again; then
# the senders end (SIGTERM: they print their totals).  Their sending
# time is the test's 6 gaps, whatever the changes took.  $2, $3: as
# qc_pause's.
qc_changes()
{
	local gap=$1 p=("$2" "$3")
	sleep "$gap"; qc_pause "${p[@]}"; qc_xps 1 2 3 0; qc_resume
	sleep "$gap"; qc_pause "${p[@]}"; qc_channels 2; qc_xps 0 1 0 1; qc_resume
	sleep "$gap"; qc_pause "${p[@]}"; qc_channels 4; qc_xps 3 2 1 0; qc_resume
	sleep "$gap"; qc_pause "${p[@]}"; qc_channels 3; qc_xps 0 1 2 0; qc_resume
	sleep "$gap"; qc_pause "${p[@]}"; qc_start_layout; qc_resume
	sleep "$gap"
	kill -TERM "${QC_SENDERS[@]}" 2>/dev/null
}

# One run: ORDER_QUEUES_FLOWS numbered UDP flows for ORDER_QUEUES_SECS
# at ORDER_QUEUES_PPS each, receivers in the root namespace hopping over
# every online CPU every ORDER_BOUNCE_MS, out of phase; a sender process
# pinned on each of the first 4 CPUs with a quarter of the flows; the
# queue changes (qc_changes) between their bursts.  The receivers wait
# out a pause (RFS_SEQ_QUIET) rather than take it for the end, which the
# test tells them once nothing is in flight.  Sets
# RUN_* as test_order.sh's seq_run does, and QC_SEEN (RX CPUs that saw
# frames).
qc_run()
{
	local secs=$ORDER_QUEUES_SECS n=$ORDER_QUEUES_FLOWS i rpids=() spids=()
	local per=$((ORDER_QUEUES_FLOWS / QC_QUEUES)) ready s0 s1 d0 d1 u0 u1 c q0
	rm -f "$LAB_DIR"/qc.recv.* "$LAB_DIR"/qc.send.*
	QC_LAYOUT=
	QC_PAUSES=0
	QC_SENDERS=()
	s0=$(stats)
	d0=$(lab_drops)
	u0=$(udp_errors)
	q0=$(qc_sent)
	for ((i = 0; i < n; i++)); do
		RFS_SEQ_QUIET=60 lab_bg "$SEQ" recv "$LAB_IP4_A" \
			$((QC_PORT + i)) "$LAB_IP4_B" \
			$((QC_PORT + 1000 + i)) $((secs * 10 + 60)) "$ORDER_BOUNCE_MS" \
			"$i" > "$LAB_DIR/qc.recv.$i"
		rpids+=("$LAB_BG_PID")
	done
	for ((i = 0; i < 100; i++)); do
		ready=$(ss -Huan "( sport >= :$QC_PORT and sport < :$((QC_PORT + n)) )" |
			wc -l)
		[ "$ready" -ge "$n" ] && break
		sleep 0.1
	done
	[ "$ready" -ge "$n" ] || fail "only $ready of $n rfs_seq receivers bound"
	for ((i = 0; i < QC_QUEUES; i++)); do
		lab_bg_ns taskset -c "${CPU_LIST[i]}" "$SEQ" send "$LAB_IP4_B" \
			$((QC_PORT + 1000 + i * per)) "$LAB_IP4_A" \
			$((QC_PORT + i * per)) $((secs * 10)) "$ORDER_QUEUES_PPS" "$per" \
			> "$LAB_DIR/qc.send.$i" 2> "$LAB_DIR/qc.send.$i.err"
		spids+=("$LAB_BG_PID")
	done
	QC_SENDERS=("${spids[@]}")
	qc_changes "$(awk -v s="$secs" 'BEGIN { printf "%.2f", s / 6 }')" "$s0" "$q0"
	for i in "${spids[@]}"; do
		lab_wait "$i" 30 || fail "an rfs_seq sender failed"
	done
	# the receivers end (SIGTERM) once they hold all there is to read
	qc_quiet "end" "$s0" "$q0"
	kill -TERM "${rpids[@]}" 2>/dev/null
	for i in "${rpids[@]}"; do
		lab_wait "$i" 30 || fail "an rfs_seq receiver failed"
	done
	s1=$(stats)
	d1=$(lab_drops)
	u1=$(udp_errors)
	read -r RUN_RECV RUN_INV RUN_LOST RUN_MOVES RUN_SENT < <(
		cat "$LAB_DIR"/qc.recv.* "$LAB_DIR"/qc.send.[0-9] | "$LAB_PY" -c '
import json, sys
t = {"received": 0, "inversions": 0, "lost": 0, "cpu_moves": 0, "sent": 0}
for line in sys.stdin:
    d = json.loads(line)
    for k in t:
        t[k] += d.get(k, 0)
print(t["received"], t["inversions"], t["lost"], t["cpu_moves"], t["sent"])')
	[ -n "$RUN_SENT" ] || fail "no rfs_seq results"
	RUN_RING=$(stat_delta "$s0" "$s1" enqueue_drops)
	RUN_OTHER=$(( $(other_drops "$d0" "$d1") + u1 - u0 ))
	QC_DROPS="$(lab_drops_delta "$d0" "$d1") UDP receive errors +$((u1 - u0))"
	QC_VETH=$(join <(sort <<< "$d0") <(sort <<< "$d1") |
		awk '$1 == "veth_ring" { print $3 - $2 }')
	RUN_SWITCHES=$(stat_delta "$s0" "$s1" switches)
	RUN_REDIR_ERR=$(stat_delta "$s0" "$s1" redirect_err)
	RUN_PRODUCERS=
	QC_SEEN=0
	for ((i = 0; i < QC_QUEUES; i++)); do
		c=$(stat_delta "$s0" "$s1" seen "${CPU_LIST[i]}")
		RUN_PRODUCERS+=" cpu${CPU_LIST[i]}:seen+$c"
		[ "$c" -gt 0 ] && QC_SEEN=$((QC_SEEN + 1))
	done
	say "$1: layouts${QC_LAYOUT} ($QC_PAUSES, each between bursts)"
	say "$1: sent $RUN_SENT received $RUN_RECV, inversions $RUN_INV, lost $RUN_LOST (cpumap ring drops $RUN_RING, veth/backlog/UDP drops $RUN_OTHER: $QC_DROPS), after the receivers ended $((RUN_SENT - RUN_RECV - RUN_LOST)), receiver CPU moves $RUN_MOVES"
	say "$1: switches +$RUN_SWITCHES, redirect_err +$RUN_REDIR_ERR; per sender CPU:$RUN_PRODUCERS"
	say "$1: stats grown: $(stats_grown "$s0" "$s1")"
}

# ------------------------------------------------------------------ tests

# rfsd attaches while the veth has 2 queues; it then gets 4, each fed
# from its own sender CPU by XPS, and the numbered flows run while the
# queues and the XPS map change between bursts (qc_changes): every flow
# changes queue, and RX CPU, several times, some onto queues that did not
# exist at attach, while the receivers hop under traffic.  0 inversions
# and 0 lost past the veth rings (below), every sender CPU's queue seen
# by the datapath, flows did switch CPU.  Control: the same with noguard
# (moves at once, ignoring the in-order rule) must show inversions, or 0
# above proves nothing.  Not tested: a change with frames in flight,
# which the veth itself can reorder (qc_pause).
test_queue_changes()
{
	local rxq
	need_tool "$SEQ"
	need_tool "$IFCFG"
	lab_need nstat ss ethtool
	lab_trap
	[ "${#CPU_LIST[@]}" -ge "$QC_QUEUES" ] ||
		skip "needs $QC_QUEUES online CPUs, one per sender (have ${#CPU_LIST[@]})"
	# shellcheck disable=SC2034	# lab_veth's
	LAB_QUEUES=$QC_QUEUES
	lab_up
	# the receive buffer rfs_seq asks for (SO_RCVBUF is capped by
	# rmem_max): a reader that waits for its CPU must not lose datagrams
	[ "$(cat /proc/sys/net/core/rmem_max)" -ge $((4 << 20)) ] ||
		lab_set /proc/sys/net/core/rmem_max $((4 << 20))
	# attach on fewer queues than the device can have: the ones added
	# after are queues rfsd never saw at attach
	ethtool -L "$LAB_A" rx 2 || fail "can't set $LAB_A to 2 RX queues"
	lab_ns ethtool -L "$LAB_B" tx 2 || fail "can't set $LAB_B to 2 TX queues"
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
	rxq=$(qc_rfsd_queues)
	qc_start_layout
	say "attached on 2 queues (rfsd: rx_queues $rxq), now 4 (rfsd: rx_queues $(qc_rfsd_queues)); $ORDER_QUEUES_FLOWS flows x $ORDER_QUEUES_PPS/s for ${ORDER_QUEUES_SECS}s from CPUs ${CPU_LIST[*]:0:QC_QUEUES}, receivers hop over ${#CPU_LIST[@]} CPUs every ${ORDER_BOUNCE_MS} ms"

	qc_run guarded
	[ "$QC_SEEN" -eq "$QC_QUEUES" ] ||
		fail "only $QC_SEEN of $QC_QUEUES sender CPUs' frames seen by the datapath ($RUN_PRODUCERS)"
	[ "$RUN_RECV" -gt $((RUN_SENT / 2)) ] ||
		fail "only $RUN_RECV datagrams received of $RUN_SENT sent"
	[ "$RUN_MOVES" -gt 0 ] || fail "the receivers never moved"
	[ "$RUN_SWITCHES" -gt 0 ] ||
		fail "no flow switched CPU: the run proved nothing"
	[ "$RUN_INV" -eq 0 ] ||
		fail "$RUN_INV datagrams arrived after a later one: reordered"
	# Loss: none past XDP.  A frame dropped on the full ring of a veth
	# queue never reached the datapath: before Linux 6.16 veth drops
	# there rather than stopping the sender, and an emulated CPU that
	# stalls fills it.  Those are reported; anything else fails.
	if [ "$RUN_RING" -ne 0 ] || [ "$RUN_REDIR_ERR" -ne 0 ] ||
	   [ "$RUN_LOST" -gt "$QC_VETH" ]; then
		fail "$RUN_LOST datagrams lost: $RUN_RING on full cpumap rings, redirect_err +$RUN_REDIR_ERR, $QC_VETH dropped in the veth ring before XDP ($QC_DROPS)"
	fi
	[ "$RUN_LOST" -eq 0 ] ||
		lab_warn "$RUN_LOST datagrams lost, all of them on full veth rings before XDP ($QC_VETH dropped there)"

	noguard_control qc_run RUN_INV inversions
}

# ----------------------------------------------------------------- runner

lab_trap
lab_require_root
lab_need_bins
lab_need ip ethtool taskset bpftool nstat "$LAB_PY"
lab_run_tests test_order_queues "${*:-$ALL_TESTS}"
