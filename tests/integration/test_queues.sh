#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RX queue counts that change after attach (ethtool -L).  The dev flow
# table has a row of entries per RX queue the device allocated, not per
# queue it had at attach: a queue added later then has entries of its own
# instead of sharing queue 0's, where two RX CPUs would write one entry
# and one flow could be proven drained by another flow's RX CPU.  Same
# lab and conventions as test_order.sh (tests/lib/lab.sh); order is told
# by tests/tools/rfs_seq (numbered UDP datagrams, counted by the
# receiver; no xdp-rfs counter involved).
#
#	tests/integration/test_queues.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.
# Knobs: QUEUES_PPS (datagrams/s per flow, default 2000), QUEUES_SECS
# (seconds of traffic on the added queues per cycle, default 3),
# QUEUES_CYCLES (raise and lower cycles, default 2), QUEUES_FLOW_CNT
# (the attach's --flow-cnt, default 64).

ALL_TESTS="
	test_queue_count_change
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

SEQ=$LAB_BUILD/tests/rfs_seq
QUEUES_MAX=4			# the veth pair is made with this many
# Low enough that two CPUs carry the two senders, sixteen hopping
# receivers and both cpumap kthreads: rfsd's SCHED_FIFO kthreads starve
# the receivers of an overloaded lab (test_order.sh, test_two_producers),
# which then stop reading before their flows end.
QUEUES_PPS=${QUEUES_PPS:-2000}
QUEUES_SECS=${QUEUES_SECS:-3}
QUEUES_CYCLES=${QUEUES_CYCLES:-2}
# Few slots, so that flows of queue 0 and of the added queues share some:
# were the added queues folded onto queue 0's entries, such an entry
# would be written by both RX CPUs.
QUEUES_FLOW_CNT=${QUEUES_FLOW_CNT:-64}
QUEUES_FLOWS=8			# per sender
QUEUES_BOUNCE_MS=20
SEQ_PORT=$((LAB_PORT + 200))	# receivers here, senders +1000

mapfile -t CPU_LIST < <(lab_online_cpus)
CPU_A=${CPU_LIST[0]}
CPU_B=${CPU_LIST[1]:-}

# ----------------------------------------------------------------- helpers

need_tool()
{
	[ -x "$1" ] || skip "$1 is not built (make ${1#"$LAB_TOP"/})"
}

cpu_mask() { printf '%x' $((1 << $1)); }

# Root-namespace UDP receive errors (full socket buffers and the like).
udp_errors()
{
	nstat -saz UdpInErrors Udp6InErrors 2>/dev/null |
		awk '/^Udp/ { t += $2 } END { print t + 0 }'
}

# The loss counters outside xdp-rfs between two lab_drops snapshots: the
# veth ring and the backlogs.
other_drops()
{
	join <(sort <<< "$1") <(sort <<< "$2") |
		awk '$1 == "veth_ring" || $1 == "backlog" { t += $3 - $2 }
			END { print t + 0 }'
}

# Set the RX or TX queue count ($2: rx or tx) of $1, in $LAB_NS if $3.
set_queues()
{
	local dev=$1 dir=$2 n=$3 ns=${4:-} out
	if [ -n "$ns" ]; then
		out=$(lab_ns ethtool -L "$dev" "$dir" "$n" 2>&1)
	else
		out=$(ethtool -L "$dev" "$dir" "$n" 2>&1)
	fi || fail "ethtool -L $dev $dir $n: $out"
}

# The real RX queue count of $LAB_A and TX queue count of $LAB_B.
queue_counts()
{
	echo "$LAB_A rx $(ls -d /sys/class/net/"$LAB_A"/queues/rx-* | wc -l), $LAB_B tx $(lab_ns sh -c "ls -d /sys/class/net/$LAB_B/queues/tx-*" | wc -l)"
}

# veth's own per-queue count of frames the XDP program ran on, "q n"
# lines for every queue $LAB_A has now (ethtool -S rx_queue_N_xdp_packets).
queue_frames()
{
	ethtool -S "$LAB_A" 2>/dev/null |
		sed -n 's/^ *rx_queue_\([0-9]*\)_xdp_packets: \([0-9]*\)$/\1 \2/p'
}

# The sum of those counts over queues 1..
queue_frames_added()
{
	queue_frames | awk '$1 > 0 { t += $2 } END { print t + 0 }'
}

# Numbered flows: $2 of them, receivers on ports SEQ_PORT+$1.. hopping
# CPUs every QUEUES_BOUNCE_MS out of phase (until they have had nothing
# for a second, or $4 + 5 s), and one sender in $LAB_NS on CPU $3 for $4
# seconds.  Results in $LAB_DIR/seq.{recv,send}.$5.*; PIDs appended to
# FLOW_RPIDS and FLOW_SPIDS.
start_flows()
{
	local first=$1 n=$2 cpu=$3 secs=$4 tag=$5 i ready=0
	for ((i = 0; i < n; i++)); do
		lab_bg "$SEQ" recv "$LAB_IP4_A" $((SEQ_PORT + first + i)) \
			"$LAB_IP4_B" $((SEQ_PORT + 1000 + first + i)) \
			$((secs + 5)) "$QUEUES_BOUNCE_MS" "$i" \
			> "$LAB_DIR/seq.recv.$tag.$i"
		FLOW_RPIDS+=("$LAB_BG_PID")
	done
	# every receiver bound before the first datagram: one sent to a
	# port with no socket yet would count as lost
	for ((i = 0; i < 50; i++)); do
		ready=$(ss -Huan "( sport >= :$((SEQ_PORT + first)) and sport < :$((SEQ_PORT + first + n)) )" |
			wc -l)
		[ "$ready" -ge "$n" ] && break
		sleep 0.1
	done
	[ "$ready" -ge "$n" ] || fail "only $ready of $n rfs_seq receivers bound"
	lab_bg_ns taskset -c "$cpu" "$SEQ" send "$LAB_IP4_B" \
		$((SEQ_PORT + 1000 + first)) "$LAB_IP4_A" $((SEQ_PORT + first)) \
		"$secs" "$QUEUES_PPS" "$n" > "$LAB_DIR/seq.send.$tag"
	FLOW_SPIDS+=("$LAB_BG_PID")
}

# Wait for the flows started since FLOW_RPIDS/FLOW_SPIDS were emptied;
# $1: seconds the longest sender may still run.
wait_flows()
{
	local i
	for i in "${FLOW_SPIDS[@]}"; do
		lab_wait "$i" $(($1 + 10)) || fail "an rfs_seq sender failed"
	done
	for i in "${FLOW_RPIDS[@]}"; do
		lab_wait "$i" 15 || fail "an rfs_seq receiver failed"
	done
	FLOW_SPIDS=()
	FLOW_RPIDS=()
}

# The sum of the receivers' and senders' JSON of tag $1 ("*": all):
# "received inversions lost cpu_moves sent".
sum_flows()
{
	# shellcheck disable=SC2086	# the tag may be a glob
	cat "$LAB_DIR"/seq.recv.$1.* "$LAB_DIR"/seq.send.$1 | "$LAB_PY" -c '
import json, sys
t = {"received": 0, "inversions": 0, "lost": 0, "cpu_moves": 0, "sent": 0}
for line in sys.stdin:
    d = json.loads(line)
    for k in t:
        t[k] += d.get(k, 0)
print(t["received"], t["inversions"], t["lost"], t["cpu_moves"], t["sent"])'
}

# The interface's dev flow table (its pin) as "index cpu rx_cpu flags
# last" lines, the header (index 0) first, into $LAB_DIR/devtab.  With
# BTF bpftool names the fields; without, the raw bytes are struct
# rfs_dev_flow's (include/rfs_common.h): last u32, rx_cpu u16, cpu u8,
# flags u8, little-endian.  The header's rx_cpu is the table's RX queue
# count, its last the flow mask.
dev_table()
{
	local pin=$RFS_PIN_V/if/$LAB_A/rfs_dev_flows
	bpftool -j map dump pinned "$pin" > "$LAB_DIR/devtab.json" ||
		fail "can't dump $pin"
	"$LAB_PY" -c '
import json, struct, sys
for e in json.load(open(sys.argv[1])):
    if "formatted" in e:
        k, v = e["formatted"]["key"], e["formatted"]["value"]
        print(k, v["cpu"], v["rx_cpu"], v["flags"], v["last"])
        continue
    raw = lambda b: bytes(int(x, 16) for x in b)
    k = struct.unpack("<I", raw(e["key"]))[0]
    last, rx_cpu, cpu, flags = struct.unpack("<IHBB", raw(e["value"]))
    print(k, cpu, rx_cpu, flags, last)' "$LAB_DIR/devtab.json" \
		> "$LAB_DIR/devtab" || fail "can't read the dump of $pin"
}

# ------------------------------------------------------------------ tests

# A veth pair made with QUEUES_MAX queues each way, brought down to 1
# (ethtool -L) before rfsd attaches, as a NIC that allocated more channels
# than it runs with.  The table must be made for the QUEUES_MAX queues the
# device allocated (its header, in the pin and in status), and a frame of
# a queue added later must find entries of its own there.
#
# Traffic: flows of queue 0 (8 numbered UDP flows sent from CPU A) run
# through the whole test; each cycle raises $LAB_A's RX and then
# $LAB_B's TX queues to QUEUES_MAX under them, runs 8 more flows sent from
# CPU B for QUEUES_SECS on the added queues only, and lowers the counts
# back to 1 (TX first: veth refuses fewer RX queues under XDP than its
# peer has TX queues).  XPS on $LAB_B keeps CPU A's flows on queue 0 and
# CPU B's on queues 1..: veth polls a queue on the CPU that sends into
# it, so queue 0 has RX CPU A and the added queues RX CPU B.  Receivers
# hop between CPUs every QUEUES_BOUNCE_MS, so flows keep switching CPU.
#
# No live flow changes queue: the added queues' flows start after the
# raise and end before the lowering, queue 0's stay on queue 0 (XPS).  A
# flow moved between two rings polled on two CPUs is reordered by veth
# itself, before XDP sees a frame (as a NIC's RSS move reorders), which
# no steering can undo and which would hide what this test is about.
#
# Checked: 0 inversions; no loss other than counted veth, backlog or UDP
# socket drops; no frame dropped on a full cpumap ring and no redirect
# error; frames on the added queues (veth's own per-queue counters); and
# written entries of queues 1.. in the dev flow table.
test_queue_count_change()
{
	local hdr q tq n c s0 s1 d0 d1 u0 u1 recv inv lost moves sent ring \
		redir early other written cycle long_secs qf added_unused=
	need_tool "$SEQ"
	lab_need nstat ss bpftool
	lab_trap
	[ -n "$CPU_B" ] || skip "needs 2 online CPUs (have ${#CPU_LIST[@]})"
	LAB_QUEUES=$QUEUES_MAX
	lab_up
	set_queues "$LAB_A" rx 1
	set_queues "$LAB_A" tx 1
	set_queues "$LAB_B" rx 1 ns
	set_queues "$LAB_B" tx 1 ns
	# CPU A's flows on queue 0 whatever the count (tx-0 is the only queue
	# that exists now; its XPS map stays when queues are added)
	lab_ns sh -c "echo $(cpu_mask "$CPU_A") > /sys/class/net/$LAB_B/queues/tx-0/xps_cpus" ||
		fail "can't set XPS on $LAB_B tx-0"
	lab_start_rfsd
	ctl attach "$LAB_A" --flow-cnt "$QUEUES_FLOW_CNT" >/dev/null ||
		fail "rfsctl attach $LAB_A failed"
	say "attached at $(queue_counts), $QUEUES_MAX allocated"

	n=$(lab_if_status "$LAB_A" | jget 'd["rx_queues"]')
	dev_table
	hdr=$(head -n 1 "$LAB_DIR/devtab")
	say "status rx_queues $n; dev table header (index cpu rx_cpu flags last): $hdr"
	read -r _ _ tq _ fmask <<< "$hdr"

	s0=$(ctlj stats "$LAB_A")
	d0=$(lab_drops)
	u0=$(udp_errors)
	FLOW_RPIDS=()
	FLOW_SPIDS=()
	long_secs=$((QUEUES_CYCLES * (QUEUES_SECS + 3) + 2))
	start_flows 0 "$QUEUES_FLOWS" "$CPU_A" "$long_secs" long
	local long_r=("${FLOW_RPIDS[@]}") long_s=("${FLOW_SPIDS[@]}")
	FLOW_RPIDS=()
	FLOW_SPIDS=()
	say "$QUEUES_FLOWS flows from CPU $CPU_A x $QUEUES_PPS/s for ${long_secs}s; receivers hop every $QUEUES_BOUNCE_MS ms"
	sleep 1
	for ((cycle = 1; cycle <= QUEUES_CYCLES; cycle++)); do
		set_queues "$LAB_A" rx "$QUEUES_MAX"
		set_queues "$LAB_B" tx "$QUEUES_MAX" ns
		for ((q = 1; q < QUEUES_MAX; q++)); do
			lab_ns sh -c "echo $(cpu_mask "$CPU_B") > /sys/class/net/$LAB_B/queues/tx-$q/xps_cpus" ||
				fail "can't set XPS on $LAB_B tx-$q"
		done
		say "cycle $cycle: raised to $(queue_counts)"
		qf=$(queue_frames_added)
		start_flows $((100 * cycle)) "$QUEUES_FLOWS" "$CPU_B" \
			"$QUEUES_SECS" "added$cycle"
		wait_flows "$QUEUES_SECS"
		qf=$(( $(queue_frames_added) - qf ))
		read -r recv inv lost moves sent <<< "$(sum_flows "added$cycle")"
		say "cycle $cycle: flows from CPU $CPU_B: sent $sent received $recv, inversions $inv, lost $lost; XDP frames on queues 1..: $qf ($(queue_frames | tr '\n' ' '))"
		set_queues "$LAB_B" tx 1 ns
		sleep 0.2	# what the lowered queues hold is polled
		set_queues "$LAB_A" rx 1
		say "cycle $cycle: lowered to $(queue_counts)"
		[ "$qf" -gt 0 ] || added_unused+=" $cycle"
		sleep 1
	done
	FLOW_RPIDS=("${long_r[@]}")
	FLOW_SPIDS=("${long_s[@]}")
	wait_flows "$long_secs"
	s1=$(ctlj stats "$LAB_A")
	d1=$(lab_drops)
	u1=$(udp_errors)

	read -r recv inv lost moves sent <<< "$(sum_flows long)"
	say "flows of queue 0: sent $sent received $recv, inversions $inv, lost $lost, receiver CPU moves $moves"
	read -r recv inv lost moves sent <<< "$(sum_flows '*')"
	ring=$("$LAB_PY" -c 'import json, sys; a, b = (json.loads(x)["total"] for x in sys.argv[1:]); print(b["enqueue_drops"] - a["enqueue_drops"], b["redirect_err"] - a["redirect_err"], b["switches"] - a["switches"], b["early_drop"] + b["early_drop_target"] - a["early_drop"] - a["early_drop_target"])' "$s0" "$s1")
	read -r ring redir c early <<< "$ring"
	# early drops stand for the UDP socket drops they spare
	other=$(( $(other_drops "$d0" "$d1") + u1 - u0 + early ))
	say "all: sent $sent received $recv, inversions $inv, lost $lost (veth/backlog/UDP and early drops $other, cpumap ring drops $ring), after the receivers ended $((sent - recv - lost)), switches +$c, redirect_err +$redir"

	# per queue of the table (queue-major: a run of flow_cnt entries
	# each, rfs_dev_index): its written entries and the RX CPUs that
	# wrote them, "q0:8[0] q1:2[1] ..."
	dev_table
	written=$(awk -v nq="$tq" -v fc=$((fmask + 1)) '
		$1 > 0 && ($2 || $3 || $4 || $5) {
			q = int(($1 - 1) / fc); w[q]++
			if (!((q, $3) in seen)) { seen[q, $3] = 1; c[q] = c[q] (c[q] == "" ? "" : ",") $3 }
		}
		END { for (q = 0; q < nq; q++) printf "q%d:%d[%s] ", q, w[q] + 0, c[q] }' \
		"$LAB_DIR/devtab")
	say "written dev flow entries per RX queue [by RX CPU]: $written"

	[ "$n" = "$QUEUES_MAX" ] ||
		fail "status says rx_queues $n, want the $QUEUES_MAX $LAB_A allocated"
	[ "$tq" = "$QUEUES_MAX" ] ||
		fail "the dev flow table is made for $tq RX queues, want the $QUEUES_MAX $LAB_A allocated"
	[ -z "$added_unused" ] ||
		fail "no frame came on an added queue in cycle(s)$added_unused: the lab did not use them"
	[ "$recv" -gt $((sent / 2)) ] ||
		fail "only $recv datagrams received of $sent sent"
	[ "$moves" -gt 0 ] || fail "the receivers never moved"
	[ "$c" -gt 0 ] || fail "no flow switched CPU: the run proved nothing"
	[ "$inv" -eq 0 ] || fail "$inv datagrams arrived after a later one: reordered"
	[ "$ring" -eq 0 ] || fail "$ring frames dropped on full cpumap rings"
	[ "$redir" -eq 0 ] || fail "redirect_err +$redir"
	[ "$lost" -le "$other" ] ||
		fail "$lost datagrams lost, only $other of them dropped outside xdp-rfs (veth ring, backlog, UDP socket) or early for a full socket"
	grep -Eq 'q[1-9][0-9]*:[1-9]' <<< "$written" ||
		fail "no dev flow entry of an added RX queue was written ($written)"
	# queue 0 is polled on CPU A only, the added ones on CPU B only: an
	# entry written by the other RX CPU is a frame of another queue's
	awk -v a="$CPU_A" -v b="$CPU_B" '{
		for (i = 1; i <= NF; i++) {
			split($i, f, /[:[\]]/); want = f[1] == "q0" ? a : b
			n = split(f[3], cpus, ","); for (j = 1; j <= n; j++)
				if (cpus[j] != want) bad = 1
		} } END { exit bad }' <<< "$written" ||
		fail "an entry was written by another queue's RX CPU ($written; queue 0 has RX CPU $CPU_A, the others $CPU_B)"
}

lab_need ip ethtool taskset bpftool nstat "$LAB_PY"
lab_run_tests test_queues "${*:-$ALL_TESTS}"
