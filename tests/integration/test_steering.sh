#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end tests of xdp-rfs: a real rfsd attached to the root side of a
# veth pair (tests/lib/lab.sh), clients in the namespace, servers in the
# root namespace, and the kernel's own net:netif_receive_skb tracepoint
# (filtered on the lab interface) as the oracle of which CPU ran the stack
# for each frame, on the cpumap path and on the local path alike
# (tests/lib/lab.sh, "The oracle").
#
#	tests/integration/test_steering.sh [test_name...]
#
# Runs every test_* function of ALL_TESTS (or those named), each in its
# own subshell with its own lab and rfsd, torn down on every exit path.
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.
#
# RFS_TEST_SELFCHECK=1 expects every steered frame on the wrong CPU: the
# steering tests must then fail (proof that they can).

ALL_TESTS="
	test_follows_app
	test_app_locality
	test_rr_tool_placement
	test_no_reorder
	test_ipv6
	test_dual_stack
	test_sigkill_adopt
	test_sigterm_keeps_steering
	test_sigterm_detach_on_exit
	test_iface_delete
	test_loopback_flag
	test_live_changes
	test_kernel_rps
	test_bad_input
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

WINDOW=${RFS_TEST_WINDOW:-2}	# seconds per oracle measurement
# Bulk senders are paced (bytes/s): an unpaced one overflows the veth ring
# and losses hide reordering (see bulk_in_order).
BULK_RATE=${BULK_RATE:-100000000}
MIN_SHARE=90			# percent of the frames on the expected CPU
# The request/response client runs until client_ok ends it: its own limit
# is the test's, not a guess at how long the test takes (under emulation
# test_sigkill_adopt outlived a 90 s client, and saw no traffic).
CLIENT_SECS=${RFS_TEST_TIMEOUT:-600}
RR=$LAB_BUILD/tests/rfs_rr	# the bench's request/response tool

# ----------------------------------------------------------------- helpers

# The two CPUs the tests move applications between (the first two online
# ones); picked once, before any test.
CPU_LIST=($(lab_online_cpus))
CPU_A=${CPU_LIST[0]}
CPU_B=${CPU_LIST[1]:-}

# lab + rfsd + attach to the root-side veth, extra args to attach.
setup()
{
	lab_trap
	[ -n "$CPU_B" ] || skip "needs 2 online CPUs (have ${#CPU_LIST[@]})"
	lab_up_attached "$@"
}

# >= MIN_SHARE % of the frames on CPU $1 over $WINDOW seconds ($2: what)
expect_on() { lab_expect_frames_on "$1" "$2" 100; }

# The same once flows have left a CPU their applications saturate: they
# hand over through that CPU's cpumap kthread, which waits for the
# scheduler there (README Known limits: 1-2 s seen in this test), so up to
# MOVE_WINDOWS windows may pass before one shows the move.
MOVE_WINDOWS=3
expect_moved_to() { lab_expect_frames_on "$1" "$2" 100 "$MOVE_WINDOWS"; }

# A total counter of stats for the lab interface.
stat_of() { lab_stat "$LAB_A" "$1"; }

# Two `stats` JSON documents -> what grew in between: "to_desired N",
# "steered N", or with "ran", "cpu N" lines of the frames rfsd's programs
# saw handed to each CPU's stack: dequeued (its cpumap program ran on
# them, on the target CPU) plus local (passed up where they arrived):
# rfsd's own view, to hold against the oracle.
# stats_delta KEY|ran SNAP0 SNAP1
stats_delta()
{
	"$LAB_PY" -c '
import json, sys
a, b = json.loads(sys.argv[2]), json.loads(sys.argv[3])
if sys.argv[1] == "ran":
    ran = lambda c: c["dequeued"] + c["local"]
    pa = {c["cpu"]: ran(c) for c in a["per_cpu"]}
    for c in b["per_cpu"]:
        print(c["cpu"], ran(c) - pa.get(c["cpu"], 0))
else:
    print(b["total"][sys.argv[1]] - a["total"][sys.argv[1]])' "$@"
}

# Stop the request/response client and check it ran clean.
client_ok()
{
	local rc=0
	lab_signal "$LAB_CLIENT_PID" TERM
	lab_wait "$LAB_CLIENT_PID" 10 || rc=$?
	[ $rc -eq 0 ] ||
		fail "request/response client failed (rc $rc): $(tail -n 3 "$LAB_DIR/rr.out")"
	say "client: $(cat "$LAB_DIR/rr.out")"
}

# The interface object (name ifindex mode flow_cnt cpus prog_id) as one
# comparable line, or "null".
if_state()
{
	lab_if_status "$1" | jget 'd and " ".join(str(d[k]) for k in
		("name", "ifindex", "mode", "flow_cnt", "cpus", "prog_id"))'
}

# Start an rfs_rr server on the lab's root-side address: PORT CPUS, extra
# arguments to the server; wait until it listens.
rr_server_up()
{
	local port=$1 cpus=$2 i
	shift 2
	lab_bg "$RR" server --bind "$LAB_IP4_A" --port "$port" --cpus "$cpus" \
		"$@" > "$LAB_DIR/rr_srv.out" 2>&1
	for ((i = 0; i < 50; i++)); do
		grep -q '^listening' "$LAB_DIR/rr_srv.out" && return 0
		sleep 0.1
	done
	fail "rfs_rr server did not start: $(cat "$LAB_DIR/rr_srv.out")"
}

# rfs_rr's receive locality over one client run: "LOCAL REMOTE PCT" of
# the server on CPU_B as its client on CPU_A saw it over its window
# (--stats: the server's shared counters, bench/README.md
# "Locality at the socket").
rr_locality()
{
	local out k
	lab_ns "$RR" client --addr "$LAB_IP4_A" --port $((LAB_PORT + 2)) \
		--cpus "$CPU_A" --conns 4 --warmup 1 --seconds "$WINDOW" \
		--stats "$LAB_DIR/loc" > "$LAB_DIR/rr_loc.out" 2>&1 ||
		fail "rfs_rr client failed: $(tail -n 3 "$LAB_DIR/rr_loc.out")"
	out=$(tail -n 1 "$LAB_DIR/rr_loc.out")
	for k in recv_local recv_remote locality_pct; do
		sed -n "s/.* $k=\([0-9.-]*\).*/\1/p" <<< "$out"
	done | paste -sd' '
}

# One rr_locality run, $1 saying what is checked: at least 50 samples,
# and a locality of >= MIN_SHARE % ($2 high) or <= 100 - MIN_SHARE %
# ($2 low); RFS_TEST_SELFCHECK=1 swaps high and low.
expect_locality()
{
	local what=$1 want=$2 loc rem pct
	read -r loc rem pct <<< "$(rr_locality)"
	say "$what: server on CPU $CPU_B read $loc samples local, $rem remote ($pct %)"
	[ $((loc + rem)) -ge 50 ] || fail "$what: only $((loc + rem)) locality samples"
	[ -z "${RFS_TEST_SELFCHECK:-}" ] ||
		{ [ "$want" = high ] && want=low || want=high; }
	if [ "$want" = high ]; then
		awk -v p="$pct" -v h="$MIN_SHARE" 'BEGIN { exit !(p >= h) }' ||
			fail "$what: $pct % of the reads on the CPU that processed the frame, want >= $MIN_SHARE %"
	else
		awk -v p="$pct" -v l=$((100 - MIN_SHARE)) 'BEGIN { exit !(p <= l) }' ||
			fail "$what: $pct % of the reads on the CPU that processed the frame, want <= $((100 - MIN_SHARE)) %"
	fi
}

# Why flows did not follow the server (fail()'s hook in follow_server):
# where the server runs, rfsd's busiest flows with their desired and
# current CPU, the reason for each of the server's connections, and the
# cpumap kthreads' policies
move_diag()
{
	local peer port
	echo "server pid $LAB_SERVER_PID: $(taskset -pc "$LAB_SERVER_PID" 2>&1)"
	ctl flows "$LAB_A" --limit 8 --interval 200
	ss -Htn state established "( sport = :$LAB_PORT )" | awk '{ print $4 }' |
		while read -r peer; do
			port=${peer##*:}
			peer=${peer%:*}
			peer=${peer#[}
			peer=${peer%]}
			ctl explain "$LAB_A" "${peer#::ffff:}" "$LAB_IP4_A" "$port" "$LAB_PORT"
		done
	ctlj status | "$LAB_PY" -c 'import json, sys
for k in json.load(sys.stdin).get("cpumap_kthreads", {}).get("kthreads", []):
    print("cpumap kthread", k)'
}

# Steering follows the server from CPU_A to CPU_B: server bound to $1,
# client to $2, extra args to the server.
follow_server()
{
	local bind=$1 dst=$2 s0 s1 td st ran share
	shift 2
	lab_server "$CPU_A" "$bind" "$@"
	if [ "$bind" = "::" ]; then
		ss -6 -tln "( sport = :$LAB_PORT )" | grep -q ":$LAB_PORT" ||
			fail "the dual-stack server is not an AF_INET6 listener"
	fi
	lab_client "$dst" "$CLIENT_SECS" 4
	sleep 1
	expect_on "$CPU_A" "server on CPU $CPU_A"
	lab_pin "$LAB_SERVER_PID" "$CPU_B"
	sleep 0.5
	s0=$(ctlj stats "$LAB_A")
	# shellcheck disable=SC2034  # lab.sh's fail() reads it
	LAB_ON_FAIL=move_diag
	expect_on "$CPU_B" "server moved to CPU $CPU_B"
	# shellcheck disable=SC2034
	LAB_ON_FAIL=
	s1=$(ctlj stats "$LAB_A")
	# rfsd agrees: frames went to the desired CPU, and its stack got
	# them there (through the cpumap or passed up locally)
	td=$(stats_delta to_desired "$s0" "$s1")
	st=$(stats_delta steered "$s0" "$s1")
	ran=$(stats_delta ran "$s0" "$s1")
	share=$(share_of "$CPU_B" <<< "$ran")
	say "stats, same window: to_desired +$td of steered +$st; dequeued + local $(fmt_shares <<< "$ran")"
	[ "$td" -gt 0 ] || fail "stats: to_desired did not grow"
	[ $((100 * td)) -ge $((MIN_SHARE * st)) ] ||
		fail "stats: only $td of $st steered frames went to the desired CPU"
	[ -n "${RFS_TEST_SELFCHECK:-}" ] || [ "$share" -ge "$MIN_SHARE" ] ||
		fail "stats: only $share% dequeued or passed up on CPU $CPU_B after the move ($(fmt_shares <<< "$ran"))"
	flows_on "$CPU_B"
	client_ok
}

# rfsctl flows: the client's 4 flows (the busiest) are desired and sent
# on CPU $1.
flows_on()
{
	local bad
	bad=$(ctlj flows "$LAB_A" --limit 4 | jget '[f for f in
		(d["flows"] if isinstance(d, dict) else d)
		if f["desired_cpu"] != '"$1"' or f["current_cpu"] != '"$1"']')
	say "flows: 4 busiest desired and current on CPU $1: $([ "$bad" = "[]" ] && echo yes || echo "no: $bad")"
	[ -n "${RFS_TEST_SELFCHECK:-}" ] || [ "$bad" = "[]" ] ||
		fail "rfsctl flows: flows not on CPU $1: $bad"
}

# ------------------------------------------------------------------ tests

# Frames follow the application from CPU A to CPU B (IPv4).
test_follows_app()
{
	setup
	follow_server "$LAB_IP4_A" "$LAB_IP4_A"
}

# What the bench's locality measure says (rfs_rr --stats: the server
# compares SO_INCOMING_CPU with its own CPU after a read) is what
# happened: unsteered, veth runs every request's stack on the client's
# CPU A, so a server on CPU B reads none of them where they were
# processed; with xdp-rfs attached it reads them there.  Under
# RFS_TEST_SELFCHECK=1 both expectations swap, and the test must fail.
test_app_locality()
{
	lab_trap
	[ -n "$CPU_B" ] || skip "needs 2 online CPUs (have ${#CPU_LIST[@]})"
	[ -x "$RR" ] || skip "$RR is not built (make check builds it)"
	lab_up
	rr_server_up $((LAB_PORT + 2)) "$CPU_B" --stats "$LAB_DIR/loc"
	expect_locality "no steering" low
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
	expect_locality "xdp-rfs" high
}

# The bench's rfs_rr server puts connection i of every client run on
# the i-th CPU of its list, however many runs it served before: each of
# three one-connection runs against one server listed "CPU_B,CPU_A" keeps
# CPU_B busy (the server thread is there; unsteered, the stack runs on the
# client's CPU A).  Its count used to run on over the server's life, so
# the second run's connection was served on CPU A, and the bench's
# one-connection cells compared modes served on different CPUs.
test_rr_tool_placement()
{
	local i out busy
	lab_trap
	[ -n "$CPU_B" ] || skip "needs 2 online CPUs (have ${#CPU_LIST[@]})"
	[ -x "$RR" ] || skip "$RR is not built (make check builds it)"
	lab_up
	rr_server_up $((LAB_PORT + 3)) "$CPU_B,$CPU_A"
	for i in 1 2 3; do
		lab_ns "$RR" client --addr "$LAB_IP4_A" --port $((LAB_PORT + 3)) \
			--cpus "$CPU_A" --conns 1 --warmup 0.2 --seconds 1 \
			--util-cpus "$CPU_B" > "$LAB_DIR/rr_place.out" 2>&1 ||
			fail "rfs_rr client run $i failed: $(tail -n 3 "$LAB_DIR/rr_place.out")"
		out=$(tail -n 1 "$LAB_DIR/rr_place.out")
		busy=$(sed -n "s/.* cpu${CPU_B}_util_pct=\([0-9.]*\).*/\1/p" <<< "$out")
		[ -n "$busy" ] || fail "no cpu${CPU_B}_util_pct in the client's line: $out"
		say "run $i: CPU $CPU_B $busy % busy"
		awk -v b="$busy" 'BEGIN { exit !(b >= 10) }' ||
			fail "run $i: CPU $CPU_B only $busy % busy: the connection was not served there ($out)"
	done
}

# IPv6: the same over the lab's 2001:db8: prefix.
test_ipv6()
{
	setup
	follow_server "$LAB_IP6_A" "$LAB_IP6_A"
}

# A dual-stack listener (AF_INET6 on ::, IPV6_V6ONLY=0) serving an IPv4
# client: the socket is AF_INET6 with a v4-mapped address, the frames IPv4.
test_dual_stack()
{
	setup
	follow_server "::" "$LAB_IP4_A" --v6only 0
}

# Start a bulk sink in the root namespace on CPU $1 and a bulk sender in
# the namespace for at most $2 seconds, pinned to CPU $3 (default: $1).
# The sender stays put, as a NIC's interrupt would: a sender that migrates
# makes veth deliver from two CPUs' backlogs, reordered before XDP (and
# without it).  PIDs in SINK_PID, BULK_PID.
start_bulk()
{
	local i r="$LAB_DIR/sink.ready"
	rm -f "$r" "$LAB_DIR/sink.out"
	lab_bg taskset -c "$1" "$LAB_PY" "$LAB_DIR/rfslab.py" sink \
		--bind "$LAB_IP4_A" --port $((LAB_PORT + 1)) --cpu "$1" \
		--ready "$r" --out "$LAB_DIR/sink.out" --timeout $(($2 + 30))
	SINK_PID=$LAB_BG_PID
	for ((i = 0; i < 50; i++)); do
		[ -e "$r" ] && break
		sleep 0.1
	done
	[ -e "$r" ] || fail "bulk sink did not start"
	lab_bg_ns taskset -c "${3:-$1}" \
		"$LAB_PY" "$LAB_DIR/rfslab.py" bulk --addr "$LAB_IP4_A" \
		--port $((LAB_PORT + 1)) --seconds "$2" --rate "${BULK_RATE:-0}" \
		>"$LAB_DIR/bulk.out" 2>&1
	BULK_PID=$LAB_BG_PID
}

# Wait for the bulk transfer; check the receiver saw no segment out of
# order (its own socket's tcpi_rcv_ooopack) and that data flowed: the
# sink read every byte the sender wrote, up to its EOF (a stalled flow
# leaves the sink at its timeout short of it), however many that was,
# since how fast a machine moves them is no business of a test.  $1: a
# lab_drops snapshot from before: a frame lost on the way also makes the
# next ones "out of order", so losses are told apart from reordering.
bulk_in_order()
{
	local rc=0 ooo bytes lost sent
	lab_signal "$BULK_PID" TERM
	lab_wait "$BULK_PID" 30 || rc=$?
	[ $rc -eq 0 ] || fail "bulk sender failed (rc $rc): $(tail -n 3 "$LAB_DIR/bulk.out")"
	lab_wait "$SINK_PID" 30 || fail "bulk sink failed"
	[ -s "$LAB_DIR/sink.out" ] || fail "bulk sink wrote no result"
	ooo=$(jget 'd["rcv_ooopack"]' < "$LAB_DIR/sink.out")
	bytes=$(jget 'd["bytes"]' < "$LAB_DIR/sink.out")
	sent=$(jget 'd["bytes_sent"]' < "$LAB_DIR/bulk.out") ||
		fail "bulk sender wrote no result: $(tail -n 3 "$LAB_DIR/bulk.out")"
	lost=$(lab_drops_delta "$1" "$(lab_drops)")
	say "receiver: $((bytes / 1048576)) MiB, rcv_ooopack $ooo; sender: $(cat "$LAB_DIR/bulk.out"); drops: ${lost:-none}"
	[ "$sent" -gt 0 ] || fail "bulk: the sender wrote nothing"
	[ "$bytes" -eq "$sent" ] ||
		fail "bulk: $bytes bytes received of $sent sent (stalled?)"
	[ "$ooo" = null ] && lab_warn "kernel has no tcpi_rcv_ooopack"
	[ "$ooo" = null ] || [ "$ooo" -eq 0 ] && return 0
	[ -z "$lost" ] ||
		fail "bulk: $ooo segments queued out of order at the receiver, after frames were lost on the way ($lost): lossy path, reordering not proven"
	fail "bulk: $ooo segments arrived out of order at the receiver with no frame lost: reordered"
}

# Root-namespace TCPOFOQueue must not move either; if it does while our
# flow's own count is 0, the reordering was someone else's traffic.
ofo_unchanged()
{
	local ofo0=$1 ofo1
	ofo1=$(lab_ofo)
	say "nstat TcpExtTCPOFOQueue +$((ofo1 - ofo0)) (root namespace)"
	[ "$ofo1" -eq "$ofo0" ] ||
		lab_warn "TCPOFOQueue grew by $((ofo1 - ofo0)) in the root namespace, but not on the test flow: other traffic"
}

# A bulk stream whose receiver bounces between two CPUs every 100 ms is
# never reordered, while its flow does switch CPUs.
test_no_reorder()
{
	local sw0 sw1 held ofo0 i secs=5 out mpid drops0
	setup
	lab_need nstat
	ofo0=$(lab_ofo)
	sw0=$(stat_of switches)
	drops0=$(lab_drops)
	start_bulk "$CPU_A" "$secs"
	sleep 0.5
	# the oracle over the bouncing (the whole run but its first and last
	# half second): both CPUs must get frames.  Two seconds were too few
	# under emulation (6.1 guest: 38 switches in the run, none in the
	# window)
	lab_bg cpu_frames $((secs - 1)) > "$LAB_DIR/bounce"
	mpid=$LAB_BG_PID
	for ((i = 0; i < secs * 10 + 10; i++)); do
		lab_alive "$SINK_PID" || break
		if [ $((i % 2)) -eq 0 ]; then
			taskset -a -pc "$CPU_B" "$SINK_PID" >/dev/null 2>&1
		else
			taskset -a -pc "$CPU_A" "$SINK_PID" >/dev/null 2>&1
		fi
		sleep 0.1
	done
	lab_wait "$mpid" 10
	bulk_in_order "$drops0"
	ofo_unchanged "$ofo0"
	sw1=$(stat_of switches)
	held=$(stat_of held)
	out=$(cat "$LAB_DIR/bounce" 2>/dev/null)
	say "while bouncing: $(fmt_shares <<< "$out")"
	say "stats: switches +$((sw1 - sw0)), held $held"
	[ $((sw1 - sw0)) -gt 0 ] ||
		fail "the flow never switched CPU: the test proved nothing"
	# with no frame in the window both shares read 0, "on both CPUs"
	[ "$(lab_total <<< "$out")" -ge 100 ] ||
		fail "the oracle saw $(lab_total <<< "$out") frames while the receiver bounced: nothing to tell where they went"
	[ "$(share_of "$CPU_A" <<< "$out")" -lt 100 ] &&
		[ "$(share_of "$CPU_B" <<< "$out")" -lt 100 ] ||
		fail "frames stayed on one CPU while the receiver bounced ($(fmt_shares <<< "$out"))"
}

# rfsd dies by SIGKILL: the datapath keeps steering without it, and the
# next rfsd on the same pin dir adopts it unchanged, counters included.
test_sigkill_adopt()
{
	local st0 st1 seen0 seen1 seen2
	setup --cpus "$CPU_A,$CPU_B" --flow-cnt 1024
	st0=$(if_state "$LAB_A")
	lab_server "$CPU_A" "$LAB_IP4_A"
	lab_client "$LAB_IP4_A" "$CLIENT_SECS" 4
	sleep 1
	seen0=$(stat_of seen)
	say "steering with rfsd up; killing it"
	lab_stop_rfsd KILL 5
	say "rfsd killed (SIGKILL)"
	expect_on "$CPU_A" "rfsd dead, server on CPU $CPU_A"
	lab_pin "$LAB_SERVER_PID" "$CPU_B"
	sleep 0.5
	expect_on "$CPU_B" "rfsd dead, server moved to CPU $CPU_B"
	lab_start_rfsd
	say "rfsd restarted on the same pin dir"
	st1=$(if_state "$LAB_A")
	say "before: $st0"
	say "after:  $st1"
	[ "$st1" = "$st0" ] ||
		fail "restarted rfsd does not show $LAB_A as it was: '$st1', was '$st0'"
	seen1=$(stat_of seen)
	[ "$seen1" -gt "$seen0" ] ||
		fail "counters reset across the restart: seen $seen0 -> $seen1"
	expect_on "$CPU_B" "after the restart"
	seen2=$(stat_of seen)
	[ "$seen2" -gt "$seen1" ] || fail "seen stopped growing after restart"
	grep -qi adopt "$RFSD_LOG" || lab_warn "rfsd log does not say it adopted"
	# and the adopted interface can still be managed
	ctl set flow-cnt "$LAB_A" 2048 >/dev/null ||
		fail "set flow-cnt on the adopted $LAB_A failed"
	[ "$(lab_if_status "$LAB_A" | jget 'd["flow_cnt"]')" = 2048 ] ||
		fail "adopted $LAB_A: flow_cnt not 2048 after set"
	expect_on "$CPU_B" "adopted, flow-cnt 2048"
	client_ok
}

# SIGTERM detaches: no XDP program left on the interface, no pins.
# "hash current_cpu" of each flow rfsd sees on $LAB_A in 500 ms, busiest
# first.
flow_cpus()
{
	ctlj flows --limit 64 |
		jget '"\n".join("%s %s" % (f["hash"], f["current_cpu"]) for f in d)'
}

# Stopping rfsd leaves the datapath steering (restarts): under
# traffic, SIGTERM exits 0 and leaves the same XDP program on the link and
# its pins; frames are still steered while rfsd is down; the next rfsd
# adopts it, same program, same hash seed, the flows on the same CPUs
# (two request/response connections whose server stays on CPU_B: the same
# hashes on CPU_B before the stop and after the adoption); and 0
# inversions on a UDP sequence stream, whose reader hops CPUs, through
# all of it.
test_sigterm_keeps_steering()
{
	local prog seed seen0 seen1 out seq_hash before after f t0 adopted
	setup
	prog=$(lab_xdp_id "$LAB_A")
	[ -n "$prog" ] || fail "no XDP program on $LAB_A while attached"
	seed=$(bpftool -j map dump pinned "$RFS_PIN_V/maps/rfs_globals" |
		jget 'd[0]["formatted"]["value"]["hash_seed"]')
	# one numbered UDP flow whose reader hops CPUs every 200 ms; it runs
	# until it is stopped after the adoption, however long the steps
	# in between take on this machine (the reader ends a second after
	# the last datagram)
	lab_bg "$LAB_BUILD/tests/rfs_seq" recv "$LAB_IP4_A" "$LAB_PORT" \
		"$LAB_IP4_B" $((LAB_PORT + 1)) "$CLIENT_SECS" 200 "$CPU_A" \
		>"$LAB_DIR/seq.json"
	local rpid=$LAB_BG_PID spid
	sleep 0.3
	t0=$(lab_now)
	lab_bg_ns taskset -c "$CPU_A" "$LAB_BUILD/tests/rfs_seq" send \
		"$LAB_IP4_B" $((LAB_PORT + 1)) "$LAB_IP4_A" "$LAB_PORT" \
		"$CLIENT_SECS" 5000 >/dev/null
	spid=$LAB_BG_PID
	sleep 1
	# the UDP stream alone so far: its hash, to tell it from the others
	seq_hash=$(flow_cpus | head -n 1)
	seq_hash=${seq_hash%% *}
	[ -n "$seq_hash" ] || fail "rfsd sees no flow of the UDP stream"
	lab_server "$CPU_B" "$LAB_IP4_A"
	lab_client "$LAB_IP4_A" 30 2
	sleep 1
	before=$(flow_cpus | grep -v "^$seq_hash ")
	say "flows on CPU $CPU_B before the stop: $(tr '\n' ' ' <<< "$before")"
	if [ "$(wc -l <<< "$before")" -lt 2 ] || grep -qv " $CPU_B\$" <<< "$before"; then
		fail "the request/response flows are not on CPU $CPU_B: $before"
	fi
	lab_stop_rfsd TERM 10
	[ "$LAB_RFSD_RC" = 0 ] || fail "rfsd exited with $LAB_RFSD_RC on SIGTERM"
	out=$(lab_xdp_id "$LAB_A")
	[ "$out" = "$prog" ] || fail "XDP program $prog gone after SIGTERM (now '${out}')"
	[ -e "$RFS_PIN_V/if/$LAB_A/prog" ] || fail "pins gone after SIGTERM"
	seen0=$(bpftool -j map dump pinned "$RFS_PIN_V/if/$LAB_A/rfs_if_stats" |
		jget 'sum(v["value"]["steered"] for v in d[0]["formatted"]["values"])')
	sleep 2
	seen1=$(bpftool -j map dump pinned "$RFS_PIN_V/if/$LAB_A/rfs_if_stats" |
		jget 'sum(v["value"]["steered"] for v in d[0]["formatted"]["values"])')
	say "while rfsd was down: $((seen1 - seen0)) frames steered in 2 s"
	# the counter grows only when the program steers a frame
	[ "$((seen1 - seen0))" -gt 0 ] ||
		fail "not steering while rfsd was down ($seen0 -> $seen1)"
	lab_start_rfsd
	adopted=$(lab_since "$t0")
	grep -q "iface '$LAB_A' (ifindex [0-9]*): adopted" "$RFSD_LOG" || fail "the new rfsd did not adopt $LAB_A"
	out=$(lab_xdp_id "$LAB_A")
	[ "$out" = "$prog" ] || fail "adopting replaced the program ($prog -> $out)"
	out=$(bpftool -j map dump pinned "$RFS_PIN_V/maps/rfs_globals" |
		jget 'd[0]["formatted"]["value"]["hash_seed"]')
	[ "$out" = "$seed" ] || fail "hash seed changed across the restart"
	after=$(flow_cpus)
	say "flows after the adoption: $(tr '\n' ' ' <<< "$after")"
	while read -r f; do
		grep -qx "$f" <<< "$after" ||
			fail "flow ${f% *} was on CPU $CPU_B before the stop; after the adoption: '$(grep "^${f% *} " <<< "$after")'"
	done <<< "$before"
	client_ok
	sleep 1
	lab_kill "$spid"
	lab_wait "$rpid" 20 || fail "rfs_seq receiver did not finish"
	out=$(jget '"%d %d %d %.1f" % (d["received"], d["inversions"], d["lost"], d.get("active_s", 0))' \
		< "$LAB_DIR/seq.json") || fail "no rfs_seq result"
	say "rfs_seq: received, inversions, lost, seconds from first to last = $out; rfsd adopted ${adopted}s after the sender started"
	set -- $out
	# its first datagram came after the sender started: a stream read
	# for longer than that to the adoption went on across the restart
	# (a stream that stalled then would not), however many datagrams
	# the machine moved meanwhile
	awk -v a="$4" -v b="$adopted" 'BEGIN { exit !(a > b) }' ||
		fail "the UDP stream was read for $4 s only, ending before rfsd adopted the datapath ${adopted}s after the sender started: its order proves nothing about the restart"
	[ "$2" -eq 0 ] || fail "$2 inversions across the restart"
}

# detach_on_exit = yes: stop means off.
test_sigterm_detach_on_exit()
{
	local left
	lab_trap
	[ -n "$CPU_B" ] || skip "needs 2 online CPUs (have ${#CPU_LIST[@]})"
	lab_up
	lab_init
	printf '[global]\ndetach_on_exit = yes\n' > "$LAB_DIR/rfsd.conf"
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
	lab_server "$CPU_A" "$LAB_IP4_A"
	lab_client "$LAB_IP4_A" 30 2
	sleep 1
	# under traffic: the connections must survive the detach
	lab_stop_rfsd TERM 10
	[ "$LAB_RFSD_RC" = 0 ] || fail "rfsd exited with $LAB_RFSD_RC on SIGTERM"
	sleep 1
	client_ok
	if ip -d link show dev "$LAB_A" | grep -q "xdp"; then
		fail "XDP left on $LAB_A after SIGTERM: $(ip -d link show dev "$LAB_A" | grep xdp)"
	fi
	if [ -d "$RFS_PIN" ]; then
		left=$(find "$RFS_PIN" -mindepth 1 | head -n 5)
		[ -z "$left" ] || fail "pins left after SIGTERM: $left"
	fi
	say "no XDP on $LAB_A, pin dir $([ -d "$RFS_PIN" ] && echo empty || echo gone)"
}

# The interface disappears while attached: rfsd stays up and forgets it.
test_iface_delete()
{
	local i st
	setup
	lab_up_spare
	ctl attach "$LAB_X" >/dev/null || fail "rfsctl attach $LAB_X failed"
	# no traffic in flight: nothing may look for the deleted link's route
	ip link del dev "$LAB_A" || fail "can't delete $LAB_A"
	for ((i = 0; i < 50; i++)); do
		st=$(lab_if_status "$LAB_A" 2>/dev/null)
		[ "$st" = null ] && break
		sleep 0.1
	done
	lab_rfsd_alive || fail "rfsd died when $LAB_A was deleted"
	ctl status >/dev/null || fail "status does not answer after $LAB_A was deleted"
	[ "$st" = null ] || fail "status still lists deleted $LAB_A after 5s: $st"
	[ "$(lab_if_status "$LAB_X")" != null ] ||
		fail "status lost $LAB_X when $LAB_A was deleted"
	[ -d "$RFS_PIN_V/if" ] ||
		fail "no $RFS_PIN_V/if: pin layout changed? (the check below would prove nothing)"
	[ -e "$RFS_PIN_V/if/$LAB_A" ] &&
		fail "pins of deleted $LAB_A left: $RFS_PIN_V/if/$LAB_A"
	say "$LAB_A gone from status, $LAB_X still attached, rfsd up"
}

# Loopback sockets are recorded only while a loopback interface is steered
# (rfs_globals.steer_loopback; test_sock checks what the socket programs
# do with it): an rfsd run in the lab's namespace sets it when it attaches
# that namespace's lo (ours: made with the namespace) and clears it when
# it detaches it.  nsenter, not ip netns exec: that mounts a new /sys over
# bpffs.
test_loopback_flag()
{
	local i flag
	lab_trap
	lab_up
	lab_need_bins
	lab_bg nsenter --net="/run/netns/$LAB_NS" "$RFSD" --socket "$RFS_SOCK" \
		--pin-dir "$RFS_PIN" --config "$LAB_DIR/rfsd.conf" -v \
		>>"$RFSD_LOG" 2>&1
	RFSD_PID=$LAB_BG_PID
	for ((i = 0; i < 150; i++)); do
		ctl status >/dev/null 2>&1 && break
		lab_alive "$RFSD_PID" || fail "rfsd exited while starting"
		sleep 0.1
	done
	loopback_flag() {
		bpftool -j map dump pinned "$RFS_PIN_V/maps/rfs_globals" |
			jget "d[0]['formatted']['value']['steer_loopback']"
	}
	flag=$(loopback_flag) || fail "can't read rfs_globals under $RFS_PIN_V"
	[ "$flag" = 0 ] || fail "steer_loopback is $flag with no interface attached"
	ctl attach lo >/dev/null || fail "rfsctl attach lo (the lab namespace's) failed"
	flag=$(loopback_flag)
	[ "$flag" = 1 ] || fail "steer_loopback is $flag with lo attached"
	grep -q "loopback sockets now recorded" "$RFSD_LOG" ||
		fail "rfsd did not say loopback sockets are now recorded"
	ctl detach lo >/dev/null || fail "rfsctl detach lo failed"
	flag=$(loopback_flag)
	[ "$flag" = 0 ] || fail "steer_loopback is still $flag after lo was detached"
	say "steer_loopback 0 -> 1 (lo attached) -> 0 (lo detached)"
}

# Live changes under traffic: the CPU set, the flow table size and the
# sock flow table size, each keeping steering right and order intact.
test_live_changes()
{
	local v drops0
	setup --cpus "$CPU_A,$CPU_B"
	lab_server "$CPU_A" "$LAB_IP4_A"
	# both run until the test ends them: a slow oracle window must not
	# outlast them
	lab_client "$LAB_IP4_A" "$CLIENT_SECS" 4
	drops0=$(lab_drops)
	start_bulk "$CPU_A" "$CLIENT_SECS"
	sleep 1
	expect_on "$CPU_A" "cpus $CPU_A,$CPU_B, apps on CPU $CPU_A"

	ctl set cpus "$LAB_A" "$CPU_B" >/dev/null || fail "set cpus $CPU_B failed"
	v=$(lab_if_status "$LAB_A" | jget 'd["cpus"]')
	[ "$v" = "[$CPU_B]" ] || fail "status cpus is $v after set cpus $CPU_B"
	sleep 0.3
	expect_moved_to "$CPU_B" "set cpus $CPU_B"

	ctl set cpus "$LAB_A" "$CPU_A,$CPU_B" >/dev/null || fail "set cpus back failed"
	sleep 0.3
	expect_on "$CPU_A" "set cpus $CPU_A,$CPU_B again"

	ctl set flow-cnt "$LAB_A" 8192 >/dev/null || fail "set flow-cnt 8192 failed"
	v=$(lab_if_status "$LAB_A" | jget 'd["flow_cnt"]')
	[ "$v" = 8192 ] || fail "status flow_cnt is $v after set flow-cnt 8192"
	expect_on "$CPU_A" "flow-cnt grown to 8192"

	ctl set flow-cnt "$LAB_A" 256 >/dev/null || fail "set flow-cnt 256 failed"
	v=$(lab_if_status "$LAB_A" | jget 'd["flow_cnt"]')
	[ "$v" = 256 ] || fail "status flow_cnt is $v after set flow-cnt 256"
	expect_on "$CPU_A" "flow-cnt shrunk to 256"

	ctl set sock-flow-entries 65536 >/dev/null ||
		fail "set sock-flow-entries 65536 failed"
	v=$(ctlj status | jget 'd["sock_flow_entries"]')
	[ "$v" = 65536 ] || fail "status sock_flow_entries is $v after set 65536"
	sleep 0.3
	expect_on "$CPU_A" "sock-flow-entries 65536"

	lab_pin "$LAB_SERVER_PID" "$CPU_B"
	lab_pin "$SINK_PID" "$CPU_B"
	sleep 0.3
	expect_moved_to "$CPU_B" "after all that, apps moved to CPU $CPU_B"
	bulk_in_order "$drops0"
	client_ok
}

# Kernel RPS on the steered interface moves every skb the stack gets from
# it into some CPU's backlog, xdp-rfs's included (seen: rps_cpus set to
# CPU 0 under a flow steered to CPU 1, and every frame reached the stack
# on CPU 0).  attach refuses it, naming the file; turned on later, rfsd
# says so in its log, and when it is off again.
test_kernel_rps()
{
	local q out rc=0 mask
	lab_trap
	lab_up
	lab_start_rfsd
	q=/sys/class/net/$LAB_A/queues/rx-0/rps_cpus
	[ -e "$q" ] || skip "no rps_cpus on $LAB_A (kernel without RPS)"
	mask=$(printf %x $((1 << CPU_A)))
	lab_set "$q" "$mask"
	out=$(ctl attach "$LAB_A" 2>&1) || rc=$?
	[ $rc -eq 1 ] || fail "attach with RPS on: exit $rc, want 1 ($out)"
	grep -q "kernel RPS is on ($q is not 0)" <<< "$out" ||
		fail "attach with RPS on: '$out' does not name RPS and $q"
	[ -z "$(lab_xdp_id "$LAB_A")" ] ||
		fail "attach with RPS on left an XDP program on $LAB_A"
	say "attach with RPS on: exit 1, \"$out\""

	lab_set "$q" 0
	ctl attach "$LAB_A" >/dev/null || fail "attach with RPS off failed"
	lab_set "$q" "$mask"
	lab_wait_log "kernel RPS turned on ($q is not 0)" 5 ||
		fail "rfsd did not log RPS turned on for $LAB_A"
	[ "$(lab_if_status "$LAB_A" | jget 'd["kernel_rps"]')" = true ] ||
		fail "status kernel_rps is not true with RPS on"
	ctl status | grep -q "kernel_rps *ON" ||
		fail "rfsctl status does not show kernel_rps ON"
	ctl explain "$LAB_A" "$LAB_IP4_B" "$LAB_IP4_A" 40000 80 tcp |
		grep -q "kernel RPS ON" ||
		fail "rfsctl explain does not say kernel RPS is on"
	[ "$(ctlj explain "$LAB_A" "$LAB_IP4_B" "$LAB_IP4_A" 40000 80 tcp |
	     jget 'd["kernel_rps"]')" = true ] ||
		fail "explain -j kernel_rps is not true with RPS on"
	lab_set "$q" 0
	lab_wait_log "iface '$LAB_A' (ifindex [0-9]*): kernel RPS off again" 5 ||
		fail "rfsd did not log RPS off again for $LAB_A"
	[ "$(lab_if_status "$LAB_A" | jget 'd["kernel_rps"]')" = false ] ||
		fail "status kernel_rps is not false with RPS off again"
	say "RPS on and off after attach: both logged, and in status"
}

# rfsctl's errors: exit 1, a message naming the cause; rfsd unmoved.
# check_err WHAT PATTERN [CODE] -- rfsctl args...   CODE defaults to 1
# (EXIT_FAILURE); rfsctl exits 2 (RFSCTL_EXIT_USAGE) on bad syntax.
check_err()
{
	local what=$1 pat=$2 code=1 out rc=0
	[ "$3" != -- ] && { code=$3; shift; }
	shift 3
	out=$(ctl "$@" 2>&1) || rc=$?
	[ $rc -eq "$code" ] || fail "$what: rfsctl $* exited $rc, want $code ($out)"
	grep -qiE -- "$pat" <<< "$out" ||
		fail "$what: message '$out' does not match /$pat/"
	say "$what: exit $code, \"$out\""
	unchanged "$what"
}

# rfsd alive, status answering, the lab interface exactly as set up.
unchanged()
{
	lab_rfsd_alive || fail "$1: rfsd died"
	ctl status >/dev/null 2>&1 || fail "$1: status does not answer"
	[ "$(if_state "$LAB_A")" = "$REF_STATE" ] ||
		fail "$1: $LAB_A changed: '$(if_state "$LAB_A")', was '$REF_STATE'"
}

# Compile a do-nothing XDP program, a foreign one for rfsd to refuse.
foreign_xdp()
{
	local obj="$LAB_DIR/xdp_pass.o" pin="/sys/fs/bpf/rfs-lab-pass-$LAB_ID"
	cat > "$LAB_DIR/xdp_pass.c" <<'EOF'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp") int lab_xdp_pass(struct xdp_md *ctx) { return XDP_PASS; }
char _license[] SEC("license") = "GPL";
EOF
	command -v clang >/dev/null && command -v bpftool >/dev/null ||
		return 1
	clang -O2 -g -target bpf -I"/usr/include/$(gcc -dumpmachine 2>/dev/null)" \
		-c "$LAB_DIR/xdp_pass.c" -o "$obj" 2>/dev/null || return 1
	bpftool prog load "$obj" "$pin" type xdp || return 1
	bpftool net attach xdpgeneric pinned "$pin" dev "$1"
	local rc=$?
	rm -f "$pin"	# the attachment holds it now
	return $rc
}

# Raw lines on the control socket: garbage, oversized, half a line.
raw_socket()
{
	"$LAB_PY" - "$RFS_SOCK" <<'EOF'
import json, socket, sys
path = sys.argv[1]

def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    return s, s.makefile('rb')

def ask(s, f, line):
    s.sendall(line)
    r = f.readline()
    if not r:
        return None
    return json.loads(r)

def expect_err(r, what, pat):
    if r is None or r.get('ok') is not False or pat not in r.get('error', ''):
        raise SystemExit('%s: reply %r, want an error with %r' % (what, r, pat))
    print('    socket %s: "%s"' % (what, r['error']))

s, f = conn()
# one connection, many bad lines: each gets one error reply, the
# connection stays up
for line, pat in [(b'garbage\n', 'bad request'),
                  (b'\xff\xfe\x00\x01\n', 'bad request'),
                  (b'[1, 2]\n', 'bad request'),
                  (b'{"cmd": 5}\n', 'bad request'),
                  (b'{}\n', 'bad request'),
                  (b'{"cmd": "attach"}\n', 'bad request'),
                  (b'{"cmd": "attach", "iface": 7}\n', 'bad request'),
                  (b'{"cmd": "nosuch"}\n', "unknown command 'nosuch'"),
                  (b'{"cmd": "set", "key": "flow_cnt", "iface": "x"}\n',
                   'bad request')]:
    expect_err(ask(s, f, line), repr(line[:24]), pat)
r = ask(s, f, b'{"cmd": "status"}\n')
if not r or r.get('ok') is not True:
    raise SystemExit('status after garbage on the same connection: %r' % r)
print('    socket: status still answered on the same connection')
s.close()

# oversized line: one error, then the connection closes
s, f = conn()
try:
    s.sendall(b'{"cmd": "status", "pad": "' + b'x' * 70000 + b'"}\n')
except OSError:
    pass
r = f.readline()
r = json.loads(r) if r else None
expect_err(r, '70 KB line', 'too long')
try:
    rest = f.readline()
except OSError:
    rest = b''
if rest:
    raise SystemExit('connection not closed after the oversized line: %r' % rest)
s.close()

# oversized without a newline at all
s, f = conn()
try:
    s.sendall(b'y' * 70000)
except OSError:
    pass
r = f.readline()
expect_err(json.loads(r) if r else None, '70 KB, no newline', 'too long')
s.close()

# half a line then close, and connect-and-close: nothing to answer
s, f = conn()
s.sendall(b'{"cmd": "sta')
s.close()
s, f = conn()
s.close()
EOF
}

test_bad_input()
{
	local nope=rfsnope$LAB_ID fid out rc ctl_copy
	setup --cpus "$CPU_A,$CPU_B" --flow-cnt 1024
	REF_STATE=$(if_state "$LAB_A")
	lab_up_spare

	check_err "nonexistent interface" "$nope" -- attach "$nope"
	check_err "flow-cnt 1000 at attach" "not a power of two" -- \
		attach "$LAB_X" --flow-cnt 1000
	check_err "set flow-cnt 1000" "not a power of two" -- \
		set flow-cnt "$LAB_A" 1000
	check_err "flow-cnt 32 (too small)" "not a power of two|64" -- \
		set flow-cnt "$LAB_A" 32
	check_err "CPU 99" "99" -- attach "$LAB_X" --cpus 99
	check_err "set cpus 99" "99" -- set cpus "$LAB_A" 99
	check_err "bad CPU list" "not a CPU list" 2 -- set cpus "$LAB_A" 1-0x
	check_err "attach twice" "already attached" -- attach "$LAB_A"
	check_err "detach unattached" "$LAB_X" -- detach "$LAB_X"
	check_err "stats unattached" "$LAB_X" -- stats "$LAB_X"
	check_err "sock-flow-entries 1000" "not a power of two" -- \
		set sock-flow-entries 1000
	check_err "bad --mode" "mode|bogus" 2 -- attach "$LAB_X" --mode bogus
	[ "$(lab_if_status "$LAB_X")" = null ] ||
		fail "a refused attach left $LAB_X in status"

	# -j: errors as JSON
	rc=0
	out=$(ctl -j attach "$nope" 2>&1) || rc=$?
	[ $rc -eq 1 ] || fail "-j attach $nope exited $rc"
	jget 'd["error"]' <<< "$out" >/dev/null 2>&1 ||
		fail "-j error is not {\"error\": ...}: $out"
	say "-j error: $out"

	# unknown command: points to help
	rc=0
	out=$(ctl bogus-command 2>&1) || rc=$?
	[ $rc -ne 0 ] || fail "rfsctl bogus-command exited 0"
	grep -q help <<< "$out" || fail "unknown command does not point to help: $out"
	unchanged "unknown command"

	# another XDP program on the spare: refused, left alone
	if foreign_xdp "$LAB_X"; then
		fid=$(lab_xdp_id "$LAB_X")
		check_err "foreign XDP program" "another XDP program" -- \
			attach "$LAB_X"
		[ "$(lab_xdp_id "$LAB_X")" = "$fid" ] ||
			fail "foreign XDP program $fid on $LAB_X replaced by $(lab_xdp_id "$LAB_X")"
		[ "$(lab_if_status "$LAB_X")" = null ] ||
			fail "$LAB_X in status after a refused attach"
	else
		lab_warn "can't load a foreign XDP program (clang/bpftool): case skipped"
	fi

	# raw protocol abuse
	raw_socket || fail "control socket misbehaved (see above)"
	unchanged "raw socket input"

	# a caller in no group: the socket is 0660 root:rfs (ctlsock.h) and
	# keeps it out, a read and a change alike
	[ "$(stat -c %a "$RFS_SOCK")" = 660 ] ||
		fail "control socket mode $(stat -c %a "$RFS_SOCK"), want 660"
	ctl_copy="$LAB_DIR/rfsctl"
	cp "$RFSCTL" "$ctl_copy" && chmod 0755 "$ctl_copy"
	for cmd in status "detach $LAB_A"; do
		rc=0
		# shellcheck disable=SC2086	# the command and its argument
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$ctl_copy" --socket "$RFS_SOCK" $cmd 2>&1) || rc=$?
		[ $rc -eq 1 ] || fail "non-root $cmd exited $rc, want 1: $out"
		grep -qi "permission denied" <<< "$out" ||
			fail "non-root $cmd: no 'permission denied': $out"
		say "non-root $cmd: exit 1, \"$out\""
		unchanged "non-root $cmd"
	done
}

# ----------------------------------------------------------------- runner

lab_trap
lab_require_root
lab_need_bins
lab_need ip ethtool taskset setpriv bpftool nstat "$LAB_PY"
# the oracle: perf, else a tracefs instance
command -v perf >/dev/null 2>&1 ||
	[ -d /sys/kernel/tracing/instances ] ||
	[ -d /sys/kernel/debug/tracing/instances ] || lab_need perf
lab_run_tests test_steering "${*:-$ALL_TESTS}"
