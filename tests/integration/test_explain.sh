#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rfsctl explain against the kernel: for a live flow in the lab, the CPU
# explain predicts for its next frame is the CPU the kernel's
# net:netif_receive_skb (the oracle of tests/lib/lab.sh) sees its frames
# run on; after the reader moves CPU, the explanation moves with it.  And
# explain's refusals.
#
#	tests/integration/test_explain.sh [test_name...]
#
# RFS_TEST_SELFCHECK=1 compares the prediction with the other CPU: the
# live tests must then fail (proof that they can).

ALL_TESTS="
	test_explain_ipv4
	test_explain_ipv6
	test_explain_errors
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

WINDOW=${RFS_TEST_WINDOW:-2}
MIN_SHARE=90

CPU_LIST=($(lab_online_cpus))
CPU_A=${CPU_LIST[0]}
CPU_B=${CPU_LIST[1]:-}

setup()
{
	lab_trap
	[ -n "$CPU_B" ] || skip "needs 2 online CPUs (have ${#CPU_LIST[@]})"
	lab_up_attached
}

# The client's source port of its one connection to $1 (the server's
# address as the client sees it).
client_port()
{
	local i p
	for ((i = 0; i < 50; i++)); do
		p=$(lab_ns ss -tnH state established "( dport = :$LAB_PORT )" |
			awk '{ n = split($3, a, ":"); print a[n]; exit }')
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.1
	done
	fail "no established client connection to port $LAB_PORT"
}

# explain the client's flow (src $1 sport $2 -> dst $3 port LAB_PORT):
# "CPU NEXT PATH" of its RX queue's first case; the JSON in $LAB_DIR/x.json.
explain_cpu()
{
	ctlj explain "$LAB_A" "$1" "$3" "$2" "$LAB_PORT" tcp > "$LAB_DIR/x.json" ||
		fail "rfsctl explain failed: $(cat "$LAB_DIR/x.json")"
	jget '"%s %s %s" % tuple(d["rx_queues"][0]["cases"][0][k]
				   for k in ("cpu", "next", "path"))' \
		< "$LAB_DIR/x.json"
}

# The oracle agrees with explain: >= MIN_SHARE % of the frames on $1.
oracle_on() { lab_expect_frames_on "$1" "$2: oracle" 30; }

# A live flow from $1 (client) to $2 (server): explain, oracle, move the
# reader, explain and oracle again.
explain_follows()
{
	local src=$1 dst=$2 sport p1 p2 cpu next path why
	lab_server "$CPU_A" "$dst"
	# longer than the test can take, oracles that stall on a loaded
	# machine included (ended below): a client that finished would
	# close the connection explained, and its entry with it
	lab_client "$dst" 600 1
	# the sender stays on CPU_A: its frames arrive there (veth's NAPI
	# runs on the sending CPU), first on the local path, then, once the
	# reader moved, through the cpumap
	lab_pin "$LAB_CLIENT_PID" "$CPU_A"
	sport=$(client_port)
	sleep 1
	p1=$(explain_cpu "$src" "$sport" "$dst")
	read -r cpu next path <<< "$p1"
	why=$(jget 'd["rx_queues"][0]["cases"][0]["why"]' < "$LAB_DIR/x.json")
	say "explain, server on CPU $CPU_A: CPU $cpu, $next, $path: $why"
	[ "$(jget 'd["desired_cpu"]' < "$LAB_DIR/x.json")" = "$CPU_A" ] ||
		fail "explain: desired CPU is not $CPU_A: $(cat "$LAB_DIR/x.json")"
	[ "$(jget 'd["sock"]["tag_match"]' < "$LAB_DIR/x.json")" = true ] ||
		fail "explain: the sock entry's tag does not match the flow"
	case $next in keep|switch|new) ;; *)
		fail "explain: a steady flow's next frame should keep or switch, not '$next'" ;;
	esac
	oracle_on "$cpu" "flow as explained"

	lab_pin "$LAB_SERVER_PID" "$CPU_B"
	sleep 1
	p2=$(explain_cpu "$src" "$sport" "$dst")
	read -r cpu next path <<< "$p2"
	why=$(jget 'd["rx_queues"][0]["cases"][0]["why"]' < "$LAB_DIR/x.json")
	say "explain, server on CPU $CPU_B: CPU $cpu, $next, $path: $why"
	[ "$p1" != "$p2" ] || fail "explain did not change after the reader moved: $p2"
	[ "$(jget 'd["desired_cpu"]' < "$LAB_DIR/x.json")" = "$CPU_B" ] ||
		fail "explain: desired CPU is not $CPU_B after the move"
	grep -q "application reads.*CPU $CPU_B" <<< "$why" ||
		fail "explain does not say why: $why"
	oracle_on "$cpu" "after the move, as explained"
	ctl explain "$LAB_A" "$src" "$dst" "$sport" "$LAB_PORT" |
		sed 's/^/        /'
	lab_signal "$LAB_CLIENT_PID" TERM
	lab_wait "$LAB_CLIENT_PID" 10 || true
}

test_explain_ipv4()
{
	setup
	explain_follows "$LAB_IP4_B" "$LAB_IP4_A"
}

test_explain_ipv6()
{
	setup
	explain_follows "$LAB_IP6_B" "$LAB_IP6_A"
}

# expect RC PATTERN CMD...: exit status RC and PATTERN in its output.
expect()
{
	local rc=$1 pat=$2 out got=0
	shift 2
	out=$("$@" 2>&1) || got=$?
	[ "$got" = "$rc" ] || fail "'$*': exit $got, want $rc: $out"
	grep -q -- "$pat" <<< "$out" || fail "'$*': no '$pat' in: $out"
	say "$*: $out"
}

test_explain_errors()
{
	local nope=rfsQ$LAB_ID
	setup
	lab_up_spare
	expect 1 "explain $nope: no such interface" \
		ctl explain "$nope" 10.0.0.1 10.0.0.2 1 2
	expect 1 "explain $LAB_X: not attached" \
		ctl explain "$LAB_X" 10.0.0.1 10.0.0.2 1 2
	expect 2 "can't parse address '10.0.0.300': not an IPv4 or IPv6 address" \
		ctl explain "$LAB_A" 10.0.0.300 10.0.0.2 1 2
	expect 2 "can't parse address 'fe80::1': not of the family of '10.0.0.1'" \
		ctl explain "$LAB_A" 10.0.0.1 fe80::1 1 2
	expect 2 "not a port number" ctl explain "$LAB_A" 10.0.0.1 10.0.0.2 1 70000
	expect 2 "SPORT and DPORT go together" \
		ctl explain "$LAB_A" 10.0.0.1 10.0.0.2 1
	# the daemon checks as strictly as rfsctl (the protocol is public)
	expect 0 "can't parse address 'x'" "$LAB_PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"{\"cmd\": \"explain\", \"iface\": \"" + sys.argv[2].encode() + b"\", \"src\": \"x\", \"dst\": \"10.0.0.2\"}\n")
print(s.makefile().readline())' "$RFS_SOCK" "$LAB_A"
	expect 0 "unknown argument\|not an argument\|bad request" "$LAB_PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"{\"cmd\": \"explain\", \"iface\": \"" + sys.argv[2].encode() + b"\", \"src\": \"10.0.0.1\", \"dst\": \"10.0.0.2\", \"bogus\": 1}\n")
print(s.makefile().readline())' "$RFS_SOCK" "$LAB_A"
	# a frame with no ports is not steered, and says so
	expect 0 "passed: not TCP or UDP" ctl explain "$LAB_A" 10.0.0.1 10.0.0.2
}

lab_trap
lab_require_root
lab_need_bins
lab_need ip ethtool taskset ss "$LAB_PY"
command -v perf >/dev/null 2>&1 ||
	[ -d /sys/kernel/tracing/instances ] ||
	[ -d /sys/kernel/debug/tracing/instances ] || lab_need perf
lab_run_tests test_explain "${*:-$ALL_TESTS}"
