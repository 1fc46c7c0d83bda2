#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: xdp-rfs against no steering, kernel RPS and kernel RFS (and
# against itself with the in-order rule off, and a bare cpumap redirect),
# on one lab, in one run, in interleaved rounds: the order of the modes
# rotates every round, so the VM's noise hits every mode alike, and every
# ratio is to the baseline of the same round.
#
#   root namespace                              namespace rfsns$$
#   servers / receivers (pinned)                clients (pinned to CPU 0)
#   rfsA$$  198.18.N.1/24  <------ veth ------>  rfsB$$  198.18.N.2/24
#     ^ the mode under test acts here: requests arrive on this side
#
# The lab is tests/lib/lab.sh's (the integration tests' own): its veth
# pair, namespace, rfsd start and stop, recorded PIDs, and lab_set, which
# keeps the original of every kernel setting the bench changes (rps_cpus,
# rps_flow_cnt, net.core.rps_sock_flow_entries, kernel.bpf_stats_enabled)
# and puts it back when a mode ends and in lab_down, on every exit path.
#
# veth receives on the sending CPU (its NAPI, or netif_rx, runs there), so
# every request and every bulk segment is received on CPU $CLI_CPU, the
# clients' CPU: a server on CPU $SRV_CPU has its "RX CPU" elsewhere, a
# server on CPU $CLI_CPU shares it.
#
# Modes (each set up before and undone after its cell):
#   base  no steering: rps_cpus 0 on rfsA's RX queue
#   rps   rps_cpus = every CPU
#   rfs   rps_cpus = every CPU, rps_flow_cnt 4096 on the queue and
#         net.core.rps_sock_flow_entries 32768 (put back afterwards)
#   xdp   rfsd (own pin dir and socket) + rfsctl attach rfsA$$
#   xdp-noguard  the same with the in-order rule off: rfsd --unsafe-noguard
#         attaching rfsA$$ from a config with noguard = yes (rfsd(8)).
#         What the rule buys, in the ordering A/B; never a production mode
#   cpumap  diagnostic (rr, rr-local, bulk, bulk-local):
#         bench/bare_redirect.bpf.c attached to rfsA$$ (build/bench/cost
#         --attach), every frame into the cpumap to the CPU of the
#         workload's server.  What is left between it and xdp is
#         steering's own cost, what is between it and rfs is the cost of
#         going through a cpumap at all
#   pass  diagnostic, rr-local and bulk-local only: an XDP program that
#         returns XDP_PASS for every frame (built here with clang, one
#         line): the floor of xdp-rfs's local path on veth
# Workloads, per mode and round (--workloads picks some):
#   rr-many     the RFS patch's netperf TCP_RR test: tests/tools/rfs_rr,
#               one pinned client thread on CPU $CLI_CPU, a server thread
#               pinned on every CPU (connection i on CPU i % ncpus, CPU
#               $SRV_CPU first), N connections with one transaction in
#               flight each, for every N in RR_CONNS and request size in
#               RR_SIZES; transactions/s, p50/p90/p99/p99.9 round trip,
#               busy % of every CPU (/proc/stat), TCP retransmits, and
#               receive locality: the share of the server's reads on the
#               CPU that processed the frame (SO_INCOMING_CPU against
#               its own CPU, sampled, over the client's window)
#   rpc         the RFS patch's RPC test: tests/tools/rfs_rpc, a pool of
#               4 x nproc unpinned server threads (free to migrate), each
#               request walking its connection's 32 KiB buffer 4 times;
#               RPC_CONNS connections from rfs_rr; the same figures,
#               locality included
#   order-bulk  ordering A/B: one bulk TCP stream (tests/tools/rfs_bulk),
#               sender on CPU $CLI_CPU, receiver hopping CPUs every
#               HOP_MS; segments out of order at the receiver (its
#               TCP_INFO and nstat TcpExtTCPOFOQueue), D-SACKs, TCP
#               retransmits; the sender's queue has a qdisc so that a
#               full veth ring holds rather than drops (a loss would look
#               like reordering)
#   order-udp   ordering A/B: tests/tools/rfs_seq, UDP_FLOWS numbered
#               flows at UDP_PPS each from CPU $CLI_CPU, their readers
#               hopping CPUs every HOP_MS out of phase; inversions (real
#               reordering) apart from losses
#   rr          one TCP connection, sockperf ping-pong (64 B), client on
#               CPU $CLI_CPU, server on CPU $SRV_CPU: the app is not on
#               the RX CPU, steering has to move the flow
#   rr-local    the same with the server on CPU $CLI_CPU too: the app
#               shares the RX CPU (xdp-rfs's local path, XDP_PASS)
#   multi       4 TCP connections at once, 2 to a server pinned to each
#               CPU, each client pinned to the other CPU (not by default:
#               rr-many covers many connections)
#   bulk        iperf3, one TCP stream for --bulk-seconds, sender on CPU
#               $CLI_CPU, receiver on CPU $SRV_CPU; the sender's veth has
#               a pfifo qdisc (lab_ns_backpressure) in every mode
#   bulk-local  the same with the receiver on CPU $CLI_CPU
# plus the per-frame cost of the XDP program (build/bench/cost), and, after
# the rounds, one profile session with kernel.bpf_stats_enabled=1 (put
# back after): xdp-rfs's BPF time per rr and rr-local transaction, per
# program, and the runs of its programs during `perf bench sched pipe`.
# Then, when present, with OUT, ROUNDS, QUICK and RFS_BUILD in their
# environment, each appending rows to the same results.tsv: bench/cost.sh
# (the cost runs above as rows, from cost.txt), build/bench/sizing (the
# table-sizing simulation), bench/nic.sh --out OUT --rounds N [--quick]
# (the NIC-like receive path); and last bench/report.sh OUT, which turns
# results.tsv and meta.txt into REPORT.md and plots.
#
# Also counted per cell, as checks on what each mode did: on which CPU the
# kernel received the requests (rr, rr-local: net:netif_receive_skb on
# rfsA$$, perf stat per CPU), TCP retransmissions, veth ring drops, and
# under xdp the datapath's own counters (rfsctl -j stats).
#
# Usage: bench/run.sh [--quick] [--rounds N] [--seconds S] [--bulk-seconds S]
#                     [--modes LIST] [--workloads LIST] [--no-multi]
#                     [--no-cost] [--no-profile] [--no-nic] [--out DIR]
#   default:  --rounds 3 --seconds 2 --bulk-seconds 3, every mode and
#             workload but multi, each mode on the workloads it applies
#             to; rr-many 1.5 s per cell (N = 1 16 64 256, 1 and 1024 B),
#             rpc 3 s, order-* 2 s (16 UDP flows); the sockperf/iperf3
#             workloads (rr rr-local bulk bulk-local) in rounds 1-2 only
#   --quick (or QUICK=1): one round, rr-many 0.5 s per cell (N = 1 64
#             256 at 1 B, 16 at 1024 B), rpc, order-* 1 s (8 UDP flows),
#             sockperf 2 s and iperf3 1 s in modes base and xdp only, 3
#             cost runs, a shorter profile; options after it win
# Results in OUT (default build/bench): results.tsv (one row per figure:
# workload param mode round metric value unit, bench/README.md),
# meta.txt (commit, kernel, CPUs, date, command line), results.txt (the
# sockperf/iperf3 summary), raw.txt (those cells), profile.json, cost.txt,
# logs/ (every client's output); the summary's markdown tables also go to
# stdout.

set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${RFS_BUILD:-$TOP/build}
[[ $BUILD == /* ]] || BUILD=$TOP/$BUILD
export RFS_BUILD=$BUILD		# lab.sh's binaries, and bench/nic.sh's
COST=$BUILD/bench/cost
TOOLS=$BUILD/tests
OUT=$BUILD/bench
CMDLINE="${QUICK:+QUICK=$QUICK }$0 $*"

ALL_MODES="base rps rfs xdp xdp-noguard cpumap pass"
ALL_WORKLOADS="rr-many rpc order-bulk order-udp rr rr-local multi bulk bulk-local"
NEW_WORKLOADS="rr-many rpc order-bulk order-udp"
ROUNDS=3
SECS=2			# per sockperf run: its valid window is ~SECS-0.45,
			# and each run costs ~SECS+2.3 (connect, warm-up, exit)
BULK_SECS=3		# per iperf3 run
OLD_ROUNDS=2		# sockperf/iperf3 workloads in rounds 1..this
RR_SECS=1.5		# rr-many, per (N, size) cell, after RR_WARMUP
RR_WARMUP=0.3
RR_CELLS="1:1 16:1 64:1 256:1 1:1024 16:1024 64:1024 256:1024"	# N:bytes
RPC_SECS=3
RPC_CONNS=32
RPC_SIZE=64
ORDER_SECS=2		# order-bulk and order-udp
HOP_MS=20		# the receivers' CPU hops
UDP_FLOWS=16
UDP_PPS=2000
COST_RUNS=7
MODES=$ALL_MODES
WORKLOADS="rr-many rpc order-bulk order-udp rr rr-local bulk bulk-local"
DO_COST=1
DO_PROFILE=1
DO_NIC=1
PIPE_LOOPS=50000	# perf bench sched pipe -l
SRV_CPU=1		# the rr/bulk server: not the RX CPU
CLI_CPU=0		# every client, hence the RX CPU; rr-local's server
MSG=64
# sockperf times with rdtsc by default; on this VM that clock jumped
# (a 3 s run reported RunTime=3855 s, another 0 transactions/s): take
# the monotonic clock (--no-rdtsc) on every client

usage()
{
	if [ "${1:-2}" = 0 ]; then exec 3>&1; else exec 3>&2; fi
	sed -n '/^# Usage:/,/^# stdout/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&3
	exit "${1:-2}"
}

quick()
{
	# sockperf's valid window is its run less ~0.45 s of warm-up: 1 s
	# left a loaded machine with no valid observation at all
	ROUNDS=1 SECS=2 BULK_SECS=1 COST_RUNS=3 QUICK=1 OLD_ROUNDS=1
	PIPE_LOOPS=10000 BG_SECS=1
	RR_SECS=0.5 RR_WARMUP=0.2 RPC_SECS=1 ORDER_SECS=1 UDP_FLOWS=8
	RR_CELLS="1:1 64:1 256:1 16:1024"
}
case ${QUICK:-} in
''|0) QUICK= ;;
*) quick ;;
esac

while [ $# -gt 0 ]; do
	case $1 in
	--rounds|--seconds|--bulk-seconds|--modes|--workloads|--out)
		[ $# -ge 2 ] || { echo "bench: $1 needs a value" >&2; usage; } ;;
	esac
	case $1 in
	--quick) quick ;;
	--rounds) ROUNDS=$2; shift ;;
	--seconds) SECS=$2; shift ;;
	--bulk-seconds) BULK_SECS=$2; shift ;;
	--modes) MODES=${2//,/ }; shift ;;
	--workloads) WORKLOADS=${2//,/ }; shift ;;
	--no-multi) WORKLOADS=$(echo " $WORKLOADS " | sed 's/ multi / /') ;;
	--no-cost) DO_COST= ;;
	--no-profile) DO_PROFILE= ;;
	--no-nic) DO_NIC= ;;
	--out) OUT=$2; shift ;;
	-h|--help) usage 0 ;;
	*) echo "bench: unknown option '$1'" >&2; usage ;;
	esac
	shift
done
[[ $OUT == /* ]] || OUT=$PWD/$OUT
[ "$OLD_ROUNDS" -le "$ROUNDS" ] || OLD_ROUNDS=$ROUNDS
ARGS="--rounds $ROUNDS --seconds $SECS --bulk-seconds $BULK_SECS --modes '$MODES' --workloads '$(echo $WORKLOADS)'"
[ -n "$DO_COST" ] || ARGS+=" --no-cost"
[ -n "$DO_PROFILE" ] || ARGS+=" --no-profile"

# the lab: names carry this PID (LAB_ID is not exported: bench/nic.sh
# makes its own)
LAB_ID=$$
. "$TOP/tests/lib/lab.sh"
. "$TOP/bench/workloads.sh"
A=$LAB_A
B=$LAB_B
NS=$LAB_NS
WORK=$LAB_DIR
PIN=$RFS_PIN
PORT=$((30000 + LAB_ID % 20000))	# rr; +1, +2 multi; +3 rr-local;
				# +4 bulk-local, +5 bulk (iperf3); +6, +7
				# rr-many 1 B and 1 KiB; +8 rpc; +9
				# order-bulk; +10.. order-udp (and +40..)

SERVERS=()		# the pinned servers, "pid:cpu"
CPUMAP_PID=
CPUMAP_TARGET=
SFE_FILE=/proc/sys/net/core/rps_sock_flow_entries
STATS_FILE=/proc/sys/kernel/bpf_stats_enabled
T0=$(date +%s.%N)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

msg() { printf '  %-7s [%3ss] %s\n' "$1" "$SECONDS" "$2" >&2; }
warn() { printf 'bench: %s\n' "$*" >&2; }
die() { fail "bench: $*"; }
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }'; }

# lab.sh's process bookkeeping under the bench's short names
bg() { lab_bg "$@"; BG_PID=$LAB_BG_PID; }
is_ours() { lab_is_ours "$1"; }
alive() { lab_alive "$1"; }
stop_pid() { lab_kill "$1" TERM "${2:-5}"; }
ns() { lab_ns "$@"; }

bench_down()
{
	lab_down
	rm -rf "$RFS_PIN-cost"
}
trap bench_down EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------------------ results

# One row of results.tsv: WORKLOAD PARAM MODE ROUND METRIC VALUE UNIT
tsv()
{
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$OUT/results.tsv"
}

# ---------------------------------------------------------------- the modes

# rfsd with $1 as its config; extra arguments go to rfsd
rfsd_start()
{
	local conf=$1
	shift
	printf '%s' "$conf" > "$WORK/rfsd.conf"
	lab_start_rfsd "$@"
}

rfsd_stop()
{
	[ -n "$RFSD_PID" ] || return 0
	lab_stop_rfsd TERM 10
}

# cpumap mode: the bare redirect on $A, every frame to CPU $1; kept while
# the target stays, re-attached when it changes
cpumap_target()
{
	local i
	[ -n "$CPUMAP_PID" ] && [ "$CPUMAP_TARGET" = "$1" ] &&
		alive "$CPUMAP_PID" && return 0
	cpumap_detach
	: > "$WORK/cpumap.out"
	bg "$COST" --attach "$A" --target "$1" > "$WORK/cpumap.out"
	CPUMAP_PID=$BG_PID
	CPUMAP_TARGET=$1
	for ((i = 0; i < 50; i++)); do
		grep -q '^attached' "$WORK/cpumap.out" && return 0
		alive "$CPUMAP_PID" || break
		sleep 0.1
	done
	die "cost --attach $A --target $1 did not attach"
}

cpumap_detach()
{
	[ -n "$CPUMAP_PID" ] || return 0
	stop_pid "$CPUMAP_PID" 5
	CPUMAP_PID=
	CPUMAP_TARGET=
	ip link show dev "$A" | grep -q 'prog/xdp' &&
		die "an XDP program is still on $A after cost --attach"
	return 0
}

# the xdp modes: which XDP mode rfsd attached in, and whether noguard is on
xdp_check()
{
	local want_ng=$1 st
	st=$(lab_if_status "$A")
	[ "$st" != null ] || die "rfsd has not attached $A"
	XDP_MODE=$(jget 'd["mode"]' <<< "$st")
	[ "$(jget 'd.get("noguard", False)' <<< "$st")" = "$want_ng" ] ||
		die "rfsd's noguard on $A is not $want_ng: $st"
}

mode_on()
{
	local i
	case $1 in
	base|cpumap) ;;		# cpumap: attached per workload
	pass)
		ip link set dev "$A" xdpdrv obj "$WORK/xdp_pass.o" sec xdp ||
			die "can't attach the XDP_PASS program to $A"
		;;
	rps) lab_rps "$A" "$ALLMASK" 0 ;;
	rfs)
		lab_rps "$A" "$ALLMASK" 4096
		lab_set "$SFE_FILE" 32768
		;;
	xdp)
		# never the host's /etc/rfs/rfsd.conf; and stopping rfsd
		# between cells must take xdp-rfs off the link
		rfsd_start $'[global]\ndetach_on_exit = yes\n'
		ctl attach "$A" >/dev/null || die "rfsctl attach $A failed"
		xdp_check false
		;;
	xdp-noguard)
		rfsd_start "$(printf '[global]\ndetach_on_exit = yes\n\n[interface %s]\nnoguard = yes\n' "$A")" \
			--unsafe-noguard
		for ((i = 0; i < 50; i++)); do
			[ "$(lab_if_status "$A")" != null ] && break
			sleep 0.1
		done
		xdp_check true
		;;
	esac
}

mode_off()
{
	case $1 in
	rps|rfs) lab_restore_rps ;;
	xdp|xdp-noguard)
		ctl detach "$A" >/dev/null || warn "rfsctl detach $A failed"
		rfsd_stop
		;;
	cpumap) cpumap_detach ;;
	pass) ip link set dev "$A" xdpdrv off || die "can't detach XDP from $A" ;;
	esac
}

# rps/rfs off again: every setting of $A's queues and the sock flow table
lab_restore_rps()
{
	local q
	for q in /sys/class/net/"$A"/queues/rx-*; do
		lab_restore "$q/rps_cpus"
		lab_restore "$q/rps_flow_cnt"
	done
	lab_restore "$SFE_FILE"
}

# Does mode $1 run workload $2 in round $3?  The workloads of issue 9
# (rr-many, rpc, order-*) run in base rps rfs xdp xdp-noguard.  Of the
# sockperf/iperf3 ones (rounds 1..OLD_ROUNDS only): cpumap sends every
# flow to one CPU: no multi; pass is the local path's floor: the local
# workloads only; rps (a reference there) only rr and multi; xdp-noguard
# none (nothing in them moves a flow).  That keeps a default run under
# 20 minutes on a busy 2-CPU VM.
applies()
{
	case " $NEW_WORKLOADS " in
	*" $2 "*)
		case $1 in
		cpumap|pass) return 1 ;;
		*) return 0 ;;
		esac
		;;
	esac
	[ "${3:-1}" -le "$OLD_ROUNDS" ] || return 1
	# quick: the diagnostic modes and rps are left out of these
	[ -z "$QUICK" ] || case $1 in base|xdp) ;; *) return 1 ;; esac
	case $1:$2 in
	cpumap:multi) return 1 ;;
	pass:rr-local|pass:bulk-local) return 0 ;;
	pass:*) return 1 ;;
	rps:rr|rps:multi) return 0 ;;
	rps:*) return 1 ;;
	xdp-noguard:*) return 1 ;;
	esac
	return 0
}

# The pass mode's program: XDP_PASS (2) for every frame
build_pass()
{
	printf '%s\n' \
		'__attribute__((section("xdp"), used)) int rfs_bench_pass(void *ctx) { return 2; }' \
		'char _license[] __attribute__((section("license"), used)) = "GPL";' |
		clang -target bpf -O2 -c -x c - -o "$WORK/xdp_pass.o"
}

# ---------------------------------------------------------------- workloads

# Servers, all in the root namespace, bound to $IP_A, pinned:
#   PORT    sockperf, CPU SRV_CPU (rr; blocking recvfrom, one connection)
#   PORT+1  sockperf with epoll, CPU 0 (multi)
#   PORT+2  sockperf with epoll, CPU 1 (multi)
#   PORT+3  sockperf, CPU CLI_CPU (rr-local)
#   PORT+4  iperf3, CPU CLI_CPU (bulk-local)
#   PORT+5  iperf3, CPU SRV_CPU (bulk)
servers_up()
{
	local i p c
	[ -z "$NEED_IPERF" ] || iperf_servers_up
	[ -n "$NEED_SOCKPERF" ] || return 0
	bg taskset -c "$SRV_CPU" sockperf server --tcp -i "$IP_A" -p "$PORT" \
		>"$WORK/server.0.log" 2>&1
	SRV_PID_RR=$BG_PID
	SERVERS+=("$BG_PID:$SRV_CPU")
	bg taskset -c "$CLI_CPU" sockperf server --tcp -i "$IP_A" -p $((PORT + 3)) \
		>"$WORK/server.3.log" 2>&1
	SRV_PID_LOCAL=$BG_PID
	SERVERS+=("$BG_PID:$CLI_CPU")
	# several connections per server need epoll, which needs a feed file
	for i in 1 2; do
		p=$((PORT + i))
		c=$((i - 1))
		echo "T:$IP_A:$p" > "$WORK/feed.$i"
		bg taskset -c "$c" sockperf server -f "$WORK/feed.$i" -F e \
			>"$WORK/server.$i.log" 2>&1
		SERVERS+=("$BG_PID:$c")
	done
	# listening is enough: lab_up has checked the path
	wait_listen "$PORT" $((PORT + 1)) $((PORT + 2)) $((PORT + 3))
}

# The iperf3 servers (bulk, bulk-local), also when no sockperf workload runs
iperf_servers_up()
{
	bg taskset -c "$CLI_CPU" iperf3 -s -B "$IP_A" -p $((PORT + 4)) \
		>"$WORK/server.4.log" 2>&1
	SERVERS+=("$BG_PID:$CLI_CPU")
	bg taskset -c "$SRV_CPU" iperf3 -s -B "$IP_A" -p $((PORT + 5)) \
		>"$WORK/server.5.log" 2>&1
	SERVERS+=("$BG_PID:$SRV_CPU")
	wait_listen $((PORT + 4)) $((PORT + 5))
}

# Wait for a server to listen on every port given (on $IP_A)
wait_listen()
{
	local p i
	for p in "$@"; do
		for ((i = 0; i < 100; i++)); do
			ss -Hltn "src $IP_A:$p" | grep -q . && break
			sleep 0.1
		done
		[ "$i" -lt 100 ] || die "no server is listening on $IP_A:$p"
	done
}

# A CPU taken offline (by anyone: other people's tests do it) leaves every
# task pinned to it unpinned for good.  Put the servers back on their CPU;
# fails when one had lost its pin, or when the online CPUs are not
# ONLINE0 (the set at the start), so that the cell in progress can be
# left out.
repin_servers()
{
	local e pid cpu ok=0 i
	# a CPU that is offline now may come back soon: wait up to 30 s
	for ((i = 0; i < 300; i++)); do
		[ "$(cat /sys/devices/system/cpu/online)" = "$ONLINE0" ] && break
		ok=1
		sleep 0.1
	done
	for e in "${SERVERS[@]}"; do
		pid=${e%%:*} cpu=${e#*:}
		alive "$pid" || continue
		# every thread, not only the first
		taskset -a -pc "$pid" 2>/dev/null |
			awk -v c="$cpu" '$NF != c { bad = 1 } END { exit bad }' &&
			continue
		taskset -a -pc "$cpu" "$pid" >/dev/null 2>&1 ||
			warn "can't pin server $pid back to CPU $cpu"
		ok=1
	done
	return $ok
}

# Run "${@:2}" (a command, not a function) under perf stat, its output
# into $1, counting per CPU the skbs the kernel received on $A
# (net:netif_receive_skb, filtered on the device): "cpu count" lines into
# $WORK/rxcpu, empty without perf.
rx_cpus_during()
{
	local o=$1
	shift
	: > "$WORK/rxcpu"
	if [ -z "$HAVE_PERF" ]; then
		"$@" > "$o" 2>&1
		return
	fi
	perf stat -a -A -x, -e net:netif_receive_skb --filter "name == \"$A\"" \
		-o "$WORK/perf.out" -- "$@" > "$o" 2>&1
	awk -F, '/^CPU[0-9]+,/ { v = $2; if (v !~ /^[0-9]+$/) v = 0;
		print substr($1, 4), v }' "$WORK/perf.out" > "$WORK/rxcpu"
}

# sockperf ping-pong output(s) -> "tps= p50= p99= max=" (µs, full round
# trips), or "bad: why" for a run that did not measure anything.
parse_pp()
{
	python3 - "$@" <<'PY'
import os, re, sys
tps = []; p50 = []; p99 = []; mx = []
for f in sys.argv[1:]:
    t = re.sub(r'\x1b\[[0-9;]*m', '', open(f).read())
    v = re.search(r'\[Valid Duration\] RunTime=([0-9.]+) sec; SentMessages=\d+; '
                  r'ReceivedMessages=(\d+)', t)
    a = re.search(r'percentile 50\.000 =\s*([0-9.]+)', t)
    b = re.search(r'percentile 99\.000 =\s*([0-9.]+)', t)
    c = re.search(r'<MAX> observation =\s*([0-9.]+)', t)
    name = os.path.basename(f)
    if not (v and a and b and c):
        print('bad: %s has no statistics' % name); sys.exit(0)
    if int(v.group(2)) == 0 or float(v.group(1)) <= 0:
        print('bad: %s counted %s messages in %s s' % (name, v.group(2), v.group(1)))
        sys.exit(0)
    tps.append(int(v.group(2)) / float(v.group(1)))
    p50.append(float(a.group(1))); p99.append(float(b.group(1)))
    mx.append(float(c.group(1)))
# several connections: summed rate, median of the p50s, worst p99 and max
p50.sort()
print('tps=%.0f p50=%.2f p99=%.2f max=%.1f' % (sum(tps), p50[len(p50) // 2], max(p99), max(mx)))
PY
}

# iperf3 -J output -> "gbps= irtx=" (received rate, sender's retransmits)
parse_iperf()
{
	python3 - "$1" <<'PY'
import json, os, sys
name = os.path.basename(sys.argv[1])
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print('bad: %s is not iperf3 JSON' % name); sys.exit(0)
if d.get('error'):
    print('bad: %s: %s' % (name, d['error'].replace(' ', '_'))); sys.exit(0)
e = d.get('end', {})
r = e.get('sum_received', {}).get('bits_per_second', 0)
if not r:
    print('bad: %s received nothing' % name); sys.exit(0)
print('gbps=%.3f irtx=%d' % (r / 1e9, e.get('sum_sent', {}).get('retransmits', 0)))
PY
}

# sockperf ping-pong client pinned to CPU $1, to port $2: its command line
# into PP (an array), to run as it is (perf stat, wait)
pp_cmd()
{
	PP=(ip netns exec "$NS" taskset -c "$1" sockperf ping-pong --tcp
	    -i "$IP_A" -p "$2" -t "$SECS" -m "$MSG" --full-rtt --no-rdtsc)
}

pp_client()	# CPU PORT OUTFILE
{
	pp_cmd "$1" "$2"
	"${PP[@]}" > "$3" 2>&1
}

# Clients i = 0..3: to the server on CPU i % 2, pinned to the other CPU,
# as in rr (unpinned, where the scheduler put them swung the rate by 2x
# from one cell to the next, whatever the mode).
run_multi()
{
	local i pids=()
	for i in 0 1 2 3; do
		pp_client $((1 - i % 2)) $((PORT + 1 + i % 2)) "$WORK/pp.multi.$i" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i"; done
}

# The counters every cell reads, before and after, from one awk per
# namespace (an `ip netns exec` costs tens of ms on a busy VM):
#   rtx       TCP segments retransmitted (Tcp RetransSegs).  A frame lost
#             anywhere on the path (veth ring, cpumap ring, backlog) shows
#             up here, usually as an RTO stall of >= 200 ms in rr's max.
#   dsack     (lab namespace: the clients, the bulk sender) retransmitted
#             segments the receiver reported as duplicates (D-SACK), i.e.
#             spurious retransmits, after reordering rather than loss
#   sockdrop  (root namespace: the servers, shared with anything else
#             there) segments TCP dropped on receive: socket backlog full,
#             receive queue full, out-of-order queue, zero window
#   ofo       (root namespace) segments that arrived out of order (queued
#             in the OFO queue: reordering, or a loss before them)
#   backlog   frames dropped at the backlogs (softnet_stat's second
#             column, every CPU; host-wide: anyone's traffic counts)
#   veth      frames dropped by the veth pair, both ways, both ends (with
#             XDP on $A, a full ring shows as a drop on the sending peer)
# "name value" lines: the lab namespace's with an "n" suffix, the root's
# with "r".
COUNT_AWK='
function hex(s,   i, d, x) {
	for (i = 1; i <= length(s); i++) {
		d = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
		x = x * 16 + d
	}
	return x
}
FILENAME ~ /snmp$/ && $1 == "Tcp:" {
	if (!th) { for (i = 1; i <= NF; i++) if ($i == "RetransSegs") rc = i; th = 1 }
	else v["rtx"] += $rc
}
FILENAME ~ /netstat$/ && $1 == "TcpExt:" {
	if (!eh) { for (i = 2; i <= NF; i++) n[i] = $i; eh = 1; next }
	for (i = 2; i <= NF; i++) {
		if (n[i] == "TCPDSACKRecvSegs") v["dsack"] += $i
		else if (n[i] == "TCPOFOQueue") v["ofo"] += $i
		else if (n[i] ~ /^(TCPBacklogDrop|TCPRcvQDrop|TCPOFODrop|TCPZeroWindowDrop)$/) v["sockdrop"] += $i
	}
}
FILENAME ~ /softnet_stat$/ { v["backlog"] += hex($2) }
FILENAME ~ /_dropped$/ { v["veth"] += $1 }
END { for (k in v) print k sfx, v[k] }'

counters()
{
	ns awk -v sfx=n "$COUNT_AWK" /proc/net/snmp /proc/net/netstat \
		"/sys/class/net/$B/statistics/tx_dropped" \
		"/sys/class/net/$B/statistics/rx_dropped" 2>/dev/null
	awk -v sfx=r "$COUNT_AWK" /proc/net/snmp /proc/net/netstat /proc/net/softnet_stat \
		"/sys/class/net/$A/statistics/tx_dropped" \
		"/sys/class/net/$A/statistics/rx_dropped" 2>/dev/null
}

# Two counters snapshots -> the raw.txt keys: rtxn rtxr veth backlog
# sockdrop ofo dsack
counters_delta()
{
	awk 'NR == FNR { a[$1] = $2; next } { d[$1] = $2 - a[$1] }
	END { printf "rtxn=%d rtxr=%d veth=%d backlog=%d sockdrop=%d ofo=%d dsack=%d",
		d["rtxn"], d["rtxr"], d["vethn"] + d["vethr"], d["backlogr"],
		d["sockdropr"], d["ofor"], d["dsackn"] }' "$1" "$2"
}

# xdp-rfs's own counters (rfsctl -j stats) into $1
xdp_snap() { ctl -j stats "$A" > "$1" 2>/dev/null || : > "$1"; }

# Two xdp_snap files -> "seen= redir= local= held= ringdrop= rerr="
xdp_delta()
{
	python3 - "$1" "$2" <<'PY' 2>/dev/null || echo "xdperr=1"
import json, sys
a, b = (json.load(open(f))['total'] for f in sys.argv[1:3])
d = {k: b.get(k, 0) - a.get(k, 0) for k in b}
print('seen=%d redir=%d local=%d held=%d ringdrop=%d rerr=%d' % (
    d['seen'], d['steered'] - d.get('local', 0), d.get('local', 0),
    d.get('held', 0), d.get('enqueue_drops', 0), d.get('redirect_err', 0)))
PY
}

# raw.txt: "round mode workload key=value ...", or "round mode workload
# bad why" (left out of the summary, listed under it) when the client
# measured nothing; the bench goes on either way.
record()
{
	case $4 in
	bad:*)
		warn "round $1 $2 $3: ${4#bad: } (logs in $OUT/logs)"
		echo "$1 $2 $3 bad ${4#bad: }" >> "$OUT/raw.txt"
		;;
	*)
		echo "$1 $2 $3 $4" >> "$OUT/raw.txt"
		old_tsv "$@"
		;;
	esac
}

# results.tsv rows of a sockperf/iperf3 cell: ROUND MODE WORKLOAD "k=v ..."
old_tsv()
{
	local kv k v rtx=0 param=-
	case $3 in
	rr|rr-local|multi) param="msg=$MSG" ;;
	esac
	for kv in $4; do
		k=${kv%%=*} v=${kv#*=}
		[[ $v =~ ^-?[0-9.]+$ ]] || continue
		case $k in
		tps) tsv "$3" "$param" "$2" "$1" tps "$v" tps ;;
		p50) tsv "$3" "$param" "$2" "$1" p50_us "$v" us ;;
		p99) tsv "$3" "$param" "$2" "$1" p99_us "$v" us ;;
		max) tsv "$3" "$param" "$2" "$1" max_us "$v" us ;;
		gbps) tsv "$3" "$param" "$2" "$1" throughput_gbps "$v" gbps ;;
		share) tsv "$3" "$param" "$2" "$1" rx_on_app_cpu_pct "$v" pct ;;
		rtxn|rtxr) rtx=$((rtx + v)) ;;
		ofo) tsv "$3" "$param" "$2" "$1" ooo_segments "$v" count ;;
		veth) tsv "$3" "$param" "$2" "$1" drops_veth "$v" count ;;
		ringdrop) tsv "$3" "$param" "$2" "$1" drops_cpumap "$v" count ;;
		esac
	done
	tsv "$3" "$param" "$2" "$1" retrans "$rtx" count
}

# Workload $W of mode $M, round $R: one raw.txt line, the client's own
# output kept in $OUT/logs/ROUND.MODE.WORKLOAD[.N].
workload()
{
	local res share=- x="" i
	case $W in
	rr|bulk) WCPU=$SRV_CPU ;;
	*) WCPU=$CLI_CPU ;;
	esac
	[ "$M" = cpumap ] && cpumap_target "$WCPU"
	repin_servers ||
		warn "round $R $M $W: a CPU went offline or a server lost its pin before the cell; pinned again"
	[ "$M" = xdp ] && xdp_snap "$WORK/x0.json"
	counters > "$WORK/c0"
	case $W in
	rr|rr-local)
		[ "$W" = rr ] && i=$PORT || i=$((PORT + 3))
		pp_cmd "$CLI_CPU" "$i"
		rx_cpus_during "$WORK/pp.$W" "${PP[@]}"
		cp "$WORK/pp.$W" "$OUT/logs/$R.$M.$W"
		res=$(parse_pp "$WORK/pp.$W")
		[ -s "$WORK/rxcpu" ] &&
			share=$(awk -v c="$WCPU" '{ t += $2; if ($1 == c) s = $2 }
				END { if (t) printf "%.0f", 100 * s / t; else print "-" }' "$WORK/rxcpu")
		;;
	multi)
		run_multi
		for i in 0 1 2 3; do
			cp "$WORK/pp.multi.$i" "$OUT/logs/$R.$M.multi.$i"
		done
		res=$(parse_pp "$WORK"/pp.multi.*)
		;;
	bulk|bulk-local)
		[ "$W" = bulk ] && i=$((PORT + 5)) || i=$((PORT + 4))
		# every mode with a qdisc on the sender, as order-bulk: a
		# full veth ring then pauses the sender instead of dropping
		# (an XDP-enabled veth queues in a 256-slot ring), so the
		# retransmits left are the receive path's own
		lab_ns_backpressure "$B"
		ns taskset -c "$CLI_CPU" iperf3 -c "$IP_A" -p "$i" -t "$BULK_SECS" \
			-J --connect-timeout 3000 > "$WORK/ip.$W" 2>&1
		ns tc qdisc del dev "$B" root 2>/dev/null
		cp "$WORK/ip.$W" "$OUT/logs/$R.$M.$W"
		res=$(parse_iperf "$WORK/ip.$W")
		;;
	esac
	counters > "$WORK/c1"
	[ "$M" = xdp ] && xdp_snap "$WORK/x1.json" &&
		x=" $(xdp_delta "$WORK/x0.json" "$WORK/x1.json")"
	repin_servers ||
		res="bad: CPU hotplug during the cell (online now $(cat /sys/devices/system/cpu/online), servers pinned again)"
	case $res in
	bad:*) record "$R" "$M" "$W" "$res" ;;
	*) record "$R" "$M" "$W" "$res share=$share $(counters_delta "$WORK/c0" "$WORK/c1")$x" ;;
	esac
}

# One cell: mode $1, round $2, every workload in $WORKLOADS it applies to
# (none: the mode is not even set up).
cell()
{
	local w line any=
	M=$1 R=$2
	XDP_MODE=
	for w in $WORKLOADS; do
		applies "$M" "$w" "$R" && any=1
	done
	[ -n "$any" ] || return 0
	mode_on "$M"
	for w in $WORKLOADS; do
		W=$w
		applies "$M" "$W" "$R" || continue
		case " $NEW_WORKLOADS " in
		*" $W "*) new_workload ;;
		*) workload ;;
		esac
	done
	mode_off "$M"
	case $M in
	xdp*)
		echo "$R $M-check - attach=$XDP_MODE" >> "$OUT/raw.txt"
		[ "$XDP_MODE" = native ] ||
			warn "round $R $M: rfsd attached in $XDP_MODE mode, not native"
		;;
	esac
	line=$(awk -v r="$R" -v m="$M" '$1 == r && $2 == m && $4 != "bad" {
		s = $3; for (i = 4; i <= NF; i++) if ($i ~ /^(tps|gbps|p50|share|rtxn|rtxr|ringdrop|local)=/) s = s " " $i
		printf "%s; ", s }' "$OUT/raw.txt")
	msg "$M" "round $R: $line${XDP_MODE:+xdp $XDP_MODE}"
}

# ------------------------------------------------------------------ profile

# Every BPF program's run_cnt and run_time_ns (kernel.bpf_stats_enabled)
prog_snap() { bpftool -j prog show > "$1" 2>/dev/null || echo '[]' > "$1"; }

# "${@:2}" under perf stat -a (context switches, whole machine); its
# output into $1, the switch count into $1.cs
switches_during()
{
	local o=$1
	shift
	perf stat -a -x, -e context-switches -o "$o.perf" -- "$@" > "$o" 2>&1
	awk -F, '$3 == "context-switches" { print $1 }' "$o.perf" > "$o.cs"
}

# One session with rfsd attached and kernel.bpf_stats_enabled=1 (put back
# after; the stats cost two clock reads per program run, so ns per run is
# an upper bound), in phases:
#   bg        BG_SECS of nothing from us: what this rfsd's programs run
#             for other traffic on the host
#   rr        one rr run (server on CPU SRV_CPU)
#   rr-local  one rr-local run (server on CPU CLI_CPU)
#   pipe      perf bench sched pipe -l PIPE_LOOPS: no socket, no traffic
#             on $A, ~2 context switches per loop
# with a bpftool snapshot of every program's run_cnt/run_time_ns before
# and after each.  Those counts are the whole host's: the socket
# tracepoints fire for every socket and the cpumap tracepoints for every
# cpumap, so on a shared host this rfsd's programs also run for other
# people's traffic.  What our own tasks caused is counted apart, with
# perf stat per task (no -a) on the tracepoints this rfsd's programs are
# attached to (a tp_btf program runs once per firing): the socket
# tracepoints in the rr client and server, every hooked tracepoint plus
# context switches in the pipe's two processes.  Programs of this rfsd are
# told from others (other labs' rfsd) by the maps they use: its maps are
# the ones pinned under $PIN.  Not part of the rounds.
BG_SECS=${BG_SECS:-2}

profile_phase()		# NAME COMMAND...
{
	local n=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	prog_snap "$WORK/progs.$n.0.json"
	"$@"
	prog_snap "$WORK/progs.$n.1.json"
	t1=$(date +%s.%N)
	echo "$n $t0 $t1" >> "$WORK/phases"
}

# The trace events behind this rfsd's tracepoint links, "sys:name" each,
# comma-separated; $1: only those matching this regex
hooked_events()
{
	local f t e out=''
	for f in "$PIN"/*/links/*; do
		[ -e "$f" ] || continue
		t=$(bpftool -j link show pinned "$f" 2>/dev/null |
			python3 -c 'import json, sys; print(json.load(sys.stdin).get("tp_name") or "")' 2>/dev/null)
		[ -n "$t" ] && [[ $t =~ $1 ]] || continue
		for e in /sys/kernel/tracing/events/*/"$t" /sys/kernel/debug/tracing/events/*/"$t"; do
			[ -d "$e" ] || continue
			e=${e%/*}
			out+=",${e##*/}:$t"
			break
		done
	done
	echo "${out#,}"
}

# rr client on CPU $1 to port $2, output $3, under perf stat counting the
# events $5 in it and, alongside, in the server's process $4 (-p), and
# host-wide the events in MAP_EV (perf args, filtered on this rfsd's
# cpumap): into $3.cli, $3.srv and $3.map
pp_client_counted()
{
	local ppid mpid=''
	if [ -z "$5" ]; then
		pp_client "$1" "$2" "$3"
		return
	fi
	bg perf stat -x, -e "$5" -p "$4" -o "$3.srv"
	ppid=$BG_PID
	if [ ${#MAP_EV[@]} -gt 0 ]; then
		bg perf stat -a -x, "${MAP_EV[@]}" -o "$3.map"
		mpid=$BG_PID
	fi
	sleep 0.3
	pp_cmd "$1" "$2"
	perf stat -x, -e "$5" -o "$3.cli" -- "${PP[@]}" > "$3" 2>&1
	is_ours "$ppid" && kill -INT "$ppid" 2>/dev/null
	wait "$ppid" 2>/dev/null
	[ -n "$mpid" ] && is_ours "$mpid" && kill -INT "$mpid" 2>/dev/null
	[ -n "$mpid" ] && wait "$mpid" 2>/dev/null
	return 0
}

profile_xdp()
{
	local have_pipe='' sock_ev all_ev id e
	perf bench sched pipe -l 1 >/dev/null 2>&1 && have_pipe=1
	: > "$WORK/phases"
	[ -n "$have_pipe" ] &&
		perf bench sched pipe -l "$PIPE_LOOPS" > "$WORK/pipe.base" 2>&1
	mode_on xdp
	sock_ev=$(hooked_events '^sock_')
	all_ev=$(hooked_events '.')
	# the cpumap tracepoints carry the map's id: count this rfsd's own
	MAP_EV=()
	id=$(bpftool -j map show pinned "$(echo "$PIN"/*/maps/rfs_cpu_map)" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])' 2>/dev/null)
	if [ -n "$id" ]; then
		for e in ${all_ev//,/ }; do
			case $e in
			xdp:xdp_cpumap_*) MAP_EV+=(-e "$e" --filter "map_id == $id") ;;
			esac
		done
	fi
	lab_set "$STATS_FILE" 1
	profile_phase bg sleep "$BG_SECS"
	profile_phase rr pp_client_counted "$CLI_CPU" "$PORT" "$WORK/pp.prof.rr" \
		"$SRV_PID_RR" "$sock_ev"
	profile_phase rr-local pp_client_counted "$CLI_CPU" $((PORT + 3)) \
		"$WORK/pp.prof.rr-local" "$SRV_PID_LOCAL" "$sock_ev"
	[ -n "$have_pipe" ] &&
		profile_phase pipe perf stat -x, -e "context-switches${all_ev:+,$all_ev}" \
			-o "$WORK/pipe.xdp.perf" -- perf bench sched pipe -l "$PIPE_LOOPS" \
			> "$WORK/pipe.xdp" 2>&1
	lab_restore "$STATS_FILE"
	bpftool -j link show > "$WORK/links.json" 2>/dev/null || echo '[]' > "$WORK/links.json"
	python3 - "$PIN" "$A" "$WORK" > "$OUT/profile.json" <<'PY'
import glob, json, os, re, subprocess, sys
pin, ifname, work = sys.argv[1:4]

def bt(*a):
    r = subprocess.run(('bpftool', '-j') + a, capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {}

def load(f):
    try:
        return {p['id']: p for p in json.load(open(f))}
    except (OSError, ValueError):
        return {}

def perf_counts(*files):
    """perf stat -x, outputs -> {event: count}, summed over the files"""
    c = {}
    for f in files:
        try:
            lines = open(f).read().splitlines()
        except OSError:
            continue
        for l in lines:
            x = l.split(',')
            if len(x) > 2 and x[0].isdigit():
                c[x[2]] = c.get(x[2], 0) + int(x[0])
    return c

phases = {}
for line in open(os.path.join(work, 'phases')):
    n, t0, t1 = line.split()
    phases[n] = {'secs': float(t1) - float(t0),
                 'a': load(os.path.join(work, 'progs.%s.0.json' % n)),
                 'b': load(os.path.join(work, 'progs.%s.1.json' % n))}

# this rfsd: its pinned maps, links and programs, and every rfs_* program
# using one of those maps
our_maps, ours = set(), set()
for f in glob.glob(os.path.join(pin, '**'), recursive=True):
    if not os.path.isfile(f):
        continue
    for kind in ('map', 'link', 'prog'):
        d = bt(kind, 'show', 'pinned', f)
        if isinstance(d, dict) and 'id' in d:
            if kind == 'map':
                our_maps.add(d['id'])
            elif kind == 'link':
                ours.add(d.get('prog_id'))
            else:
                ours.add(d['id'])
            break
last = phases[list(phases)[-1]]['b']
for p in last.values():
    if p.get('name', '').startswith('rfs_') and our_maps & set(p.get('map_ids', [])):
        ours.add(p['id'])
ours.discard(None)
hook, tp = {}, {}
for l in json.load(open(os.path.join(work, 'links.json'))):
    if l.get('tp_name'):
        hook[l.get('prog_id')] = 'tp_btf/' + l['tp_name']
        tp[l.get('prog_id')] = l['tp_name']
    else:
        hook[l.get('prog_id')] = l.get('attach_type') or l.get('type', '?')
for i, p in last.items():
    if i in hook:
        continue
    if p.get('name') == 'rfs_cpumap':
        hook[i] = 'cpumap program'
    elif p.get('type') == 'xdp':
        hook[i] = 'XDP on ' + ifname
    else:
        hook[i] = p.get('type', '?')

def tx(f):
    try:
        t = re.sub(r'\x1b\[[0-9;]*m', '', open(f).read())
    except OSError:
        return 0
    m = re.search(r'\[Total Run\] RunTime=([0-9.]+) sec; Warm up time=\d+ msec; '
                  r'SentMessages=\d+; ReceivedMessages=(\d+)', t)
    return int(m.group(2)) if m else 0

out = {'ours': sorted(ours), 'phases': {}}
for n, ph in phases.items():
    own = {}; srv = {}
    if n in ('rr', 'rr-local'):
        f = os.path.join(work, 'pp.prof.' + n)
        own = perf_counts(f + '.cli', f + '.srv', f + '.map')
        srv = perf_counts(f + '.srv', f + '.map')
    elif n == 'pipe':
        own = perf_counts(os.path.join(work, 'pipe.xdp.perf'))
    own = {k.split(':')[-1]: v for k, v in own.items()}
    srv = {k.split(':')[-1]: v for k, v in srv.items()}
    a, b = ph['a'], ph['b']
    rows = []; ro = [0, 0]; o = [0, 0]
    for i, p in b.items():
        q = a.get(i, {})
        cnt = p.get('run_cnt', 0) - q.get('run_cnt', 0)
        ns = p.get('run_time_ns', 0) - q.get('run_time_ns', 0)
        if i in ours:
            rows.append({'id': i, 'name': p.get('name', '?'), 'hook': hook.get(i, '?'),
                         'runs': cnt, 'ns': ns, 'own_runs': own.get(tp.get(i)),
                         'srv_runs': srv.get(tp.get(i))})
        elif cnt > 0:
            x = ro if p.get('name', '').startswith('rfs_') else o
            x[0] += cnt; x[1] += ns
    rows.sort(key=lambda r: (-r['ns'], r['name']))
    e = {'secs': ph['secs'], 'progs': rows, 'rfs_other_runs': ro[0], 'rfs_other_ns': ro[1],
         'other_runs': o[0], 'other_ns': o[1]}
    if n in ('rr', 'rr-local'):
        e['transactions'] = tx(os.path.join(work, 'pp.prof.' + n))
    if n == 'pipe':
        e['switches'] = own.get('context-switches')
        for f, key in (('pipe.xdp', 'xdp'), ('pipe.base', 'base')):
            try:
                t = open(os.path.join(work, f)).read()
            except OSError:
                t = ''
            m = re.search(r'([0-9.]+) usecs/op', t)
            e['usecs_per_op_' + key] = float(m.group(1)) if m else None
    out['phases'][n] = e
print(json.dumps(out, indent=1))
PY
	mode_off xdp
	python3 - "$OUT/profile.json" <<'PY' >&2
import json, sys
d = json.load(open(sys.argv[1]))['phases']
def own_ns(p):
    if p['own_runs'] is None or not p['runs']:
        return p['ns']
    return p['ns'] / p['runs'] * p['own_runs']
for k in ('rr', 'rr-local'):
    if k not in d:
        continue
    t = d[k]['transactions'] or 1
    print('  PROFILE %s: %.0f ns of this rfsd\'s BPF time per transaction, %.0f for our own traffic'
          % (k, sum(p['ns'] for p in d[k]['progs']) / t, sum(own_ns(p) for p in d[k]['progs']) / t))
if 'pipe' in d:
    p = d['pipe']
    print('  PROFILE sched pipe: %s context switches; this rfsd\'s programs ran %d times on the host, '
          '%d times in the pipe\'s tasks' % (p['switches'], sum(q['runs'] for q in p['progs']),
                                              sum(q['own_runs'] or 0 for q in p['progs'])))
PY
}

# ------------------------------------------------------------------- report

summary()
{
	python3 - "$OUT" "$MODES" "$WORKLOADS" "$SRV_CPU" "$CLI_CPU" "$MSG" \
		"$BULK_SECS" "$SECS" "$ROUNDS" "$1" "$PIPE_LOOPS" <<'PY'
import json, os, statistics as st, sys
out_dir, modes, wls, srv, cli, msg, bsecs, secs, rounds, took, loops = sys.argv[1:12]
modes = modes.split(); wls = wls.split()
cells = {}            # (workload, mode) -> {round: {key: value}}
checks = []; bad = []
for line in open(os.path.join(out_dir, 'raw.txt')):
    f = line.split()
    if len(f) < 4:
        continue
    if f[1] == 'xdp-check':
        checks.append('round %s %s' % (f[0], ' '.join(f[3:])))
        continue
    r, m, w = int(f[0]), f[1], f[2]
    if f[3] == 'bad':
        bad.append('round %d %s %s: %s' % (r, m, w, ' '.join(f[4:])))
        continue
    kv = {}
    for x in f[3:]:
        k, _, v = x.partition('=')
        try:
            kv[k] = float(v)
        except ValueError:
            kv[k] = None
    cells.setdefault((w, m), {})[r] = kv

def spread(v, fmt='%.0f'):
    if not v:
        return '-'
    if len(v) == 1:
        return fmt % v[0]
    return (fmt + ' (' + fmt + '–' + fmt + ')') % (st.median(v), min(v), max(v))

def ratios(w, m, ref, key):
    c, b = cells.get((w, m), {}), cells.get((w, ref), {})
    return [c[r][key] / b[r][key] for r in sorted(c)
            if r in b and c[r].get(key) and b[r].get(key)]

def total(c, key):
    v = [c[r][key] for r in c if c[r].get(key) is not None]
    return '%d' % sum(v) if v else '-'

out = []
out.append('xdp-rfs bench: %s rounds x %d modes, %s s per sockperf run, %s s per '
           'iperf3 run, order rotated per round; took %s s' %
           (rounds, len(modes), secs, bsecs, took))
out.append('median (min–max) over rounds; "vs base" is the ratio to the '
           'baseline of the same round')
out.append('')
titles = {
    'rr': 'rr: 1 TCP connection, sockperf ping-pong %s B, server on CPU %s, client (and RX) on CPU %s' % (msg, srv, cli),
    'rr-local': 'rr-local: the same, server on CPU %s with the client: the app shares the RX CPU' % cli,
    'multi': 'multi: 4 TCP connections, servers on CPU 0 and CPU 1 (2 each), each client on the other CPU',
    'bulk': 'bulk: iperf3, 1 TCP stream, %s s, sender (and RX) on CPU %s, receiver on CPU %s; counts summed over the rounds' % (bsecs, cli, srv),
    'bulk-local': 'bulk-local: the same, receiver on CPU %s with the sender; counts summed over the rounds' % cli,
}
for w in wls:
    if not any(k[0] == w for k in cells):
        continue
    out.append('### ' + titles[w])
    out.append('')
    if w.startswith('bulk'):
        hdr = ('| mode | Gbit/s | vs base | TCP retrans (iperf3), all rounds | of which D-SACKed (spurious) '
               '| cpumap ring drops | veth drops | backlog drops (host-wide) | TCP receive drops (root netns) '
               '| out-of-order segments at the receiver (root netns) |')
    else:
        hdr = ('| mode | transactions/s | vs base | p50 RTT µs | p50 vs base | p99 RTT µs '
               '| p99 vs base | max RTT µs | TCP retrans, all rounds |')
        if w != 'multi':
            hdr += ' requests rx on CPU %s |' % (srv if w == 'rr' else cli)
    out.append(hdr)
    out.append('|' + '---|' * (hdr.count('|') - 1))
    for m in modes:
        c = cells.get((w, m), {})
        if not c:
            continue
        rs = sorted(c)
        col = lambda k: [c[r][k] for r in rs if c[r].get(k) is not None]
        if w.startswith('bulk'):
            row = '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                m, spread(col('gbps'), '%.2f'),
                '1.00' if m == 'base' else spread(ratios(w, m, 'base', 'gbps'), '%.2f'),
                total(c, 'irtx'), total(c, 'dsack'),
                total(c, 'ringdrop') if m == 'xdp' else '-', total(c, 'veth'),
                total(c, 'backlog'), total(c, 'sockdrop'), total(c, 'ofo'))
        else:
            rtx = [c[r].get('rtxn', 0) + c[r].get('rtxr', 0) for r in rs]
            row = '| %s | %s | %s | %s | %s | %s | %s | %s | %d |' % (
                m, spread(col('tps')),
                '1.00' if m == 'base' else spread(ratios(w, m, 'base', 'tps'), '%.2f'),
                spread(col('p50'), '%.1f'),
                '1.00' if m == 'base' else spread(ratios(w, m, 'base', 'p50'), '%.2f'),
                spread(col('p99'), '%.1f'),
                '1.00' if m == 'base' else spread(ratios(w, m, 'base', 'p99'), '%.2f'),
                spread(col('max')), sum(rtx))
            if w != 'multi':
                sh = col('share')
                row += ' %s |' % (spread(sh) + ' %' if sh else '-')
        out.append(row)
    out.append('')

# xdp-rfs's own counters, per workload
xw = [w for w in wls if cells.get((w, 'xdp'))]
if xw:
    out.append("### xdp-rfs's datapath counters in the xdp cells (rfsctl -j stats, deltas, all rounds)")
    out.append('')
    out.append('| workload | frames seen | redirected to a cpumap | local path (XDP_PASS) | held on the old path | cpumap ring drops | redirect errors |')
    out.append('|---|---|---|---|---|---|---|')
    for w in xw:
        c = cells[(w, 'xdp')]
        s = lambda k: sum(c[r].get(k) or 0 for r in c)
        seen = s('seen') or 1
        out.append('| %s | %d | %.1f %% | %.1f %% | %.2f %% | %d | %d |' % (
            w, s('seen'), 100 * s('redir') / seen, 100 * s('local') / seen,
            100 * s('held') / seen, s('ringdrop'), s('rerr')))
    out.append('')
    if checks:
        out.append('xdp-rfs attach mode per round: ' + '; '.join(checks))
        out.append('')
if bad:
    out.append('left out (the client measured nothing, or a CPU went offline): ' + '; '.join(bad))
    out.append('')

# the profile session
prof = None
pf = os.path.join(out_dir, 'profile.json')
if os.path.exists(pf) and os.path.getsize(pf):
    try:
        prof = json.load(open(pf))
    except ValueError:
        prof = None
ph = prof['phases'] if prof else {}
def own_ns(p):
    """BPF ns the bench's own tasks caused: tracepoint programs at ns/run
    times their hook's firings in our tasks; other hooks as counted"""
    if p.get('own_runs') is None or not p['runs']:
        return p['ns']
    return p['ns'] / p['runs'] * p['own_runs']
def srv_ns(p):
    """The part on the steered host alone: the socket tracepoints in the
    server only (the lab's client stands for another machine)"""
    if p.get('srv_runs') is None or not p['runs']:
        return own_ns(p)
    return p['ns'] / p['runs'] * p['srv_runs']
def per_tx(k, own=False, server=False):
    t = ph[k]['transactions'] or 1
    f = srv_ns if server else own_ns if own else lambda p: p['ns']
    return sum(f(p) for p in ph[k]['progs']) / t
if 'rr' in ph and 'rr-local' in ph:
    out.append('### BPF time per transaction (one more xdp session, kernel.bpf_stats_enabled=1)')
    out.append('')
    if os.path.exists(os.path.join(out_dir, 'profile.bad')):
        out.append('**' + open(os.path.join(out_dir, 'profile.bad')).read().strip() + '**')
        out.append('')
    bg = ph.get('bg')
    out.append('Transactions: rr %d, rr-local %d (whole sockperf runs, warm-up included). '
               'The stats add two clock reads per run: ns are upper bounds. "host" counts are '
               "every run of this rfsd's programs while the client ran (the socket tracepoints fire "
               'for every socket on the host, the cpumap tracepoints for every cpumap%s); "own" counts '
               "the firings of a tracepoint program's hook caused by the bench itself: the socket "
               'tracepoints in the rr client and server (perf stat per task), the cpumap tracepoints '
               'filtered on this rfsd\'s cpumap (perf stat --filter map_id); "own ns/tx" is ns/run '
               '(the average over all runs) times that.' % (
                   ph['rr']['transactions'], ph['rr-local']['transactions'],
                   '; with none of the bench\'s traffic they ran %.0f times/s here' %
                   (sum(p['runs'] for p in bg['progs']) / bg['secs']) if bg else ''))
    out.append('')
    out.append('| program | hook | rr runs/tx, host | rr runs/tx, own | rr ns/run | rr ns/tx, host | rr ns/tx, own '
               '| rr-local runs/tx, host | rr-local runs/tx, own | rr-local ns/run | rr-local ns/tx, host | rr-local ns/tx, own |')
    out.append('|' + '---|' * 12)
    def cellf(k, i):
        t = ph[k]['transactions'] or 1
        p = next((p for p in ph[k]['progs'] if p['id'] == i), None)
        if not p or not p['runs']:
            return '0 | %s | - | 0 | 0' % ('0' if p and p.get('own_runs') is not None else '-')
        return '%.2f | %s | %.0f | %.0f | %.0f' % (
            p['runs'] / t, '%.2f' % (p['own_runs'] / t) if p.get('own_runs') is not None else '-',
            p['ns'] / p['runs'], p['ns'] / t, own_ns(p) / t)
    for p in ph['rr']['progs']:
        out.append('| %s | %s | %s | %s |' % (p['name'], p['hook'], cellf('rr', p['id']), cellf('rr-local', p['id'])))
    out.append('| **all of this rfsd** | | | | | **%.0f** | **%.0f** | | | | **%.0f** | **%.0f** |' % (
        per_tx('rr'), per_tx('rr', True), per_tx('rr-local'), per_tx('rr-local', True)))
    if any(p.get('srv_runs') is not None for p in ph['rr']['progs']):
        out.append('| **of which on the steered host** (the socket tracepoints in the server only; '
                   'the lab\'s client stands for another machine) | | | | | | **%.0f** | | | | | **%.0f** |' % (
                       per_tx('rr', server=True), per_tx('rr-local', server=True)))
    for k, lab in (('rfs_other', "other labs' rfs_* programs (not this rfsd)"),
                   ('other', "everyone else's BPF programs")):
        f2 = lambda w: '%.2f | | | %.0f | ' % (ph[w][k + '_runs'] / (ph[w]['transactions'] or 1),
                                                 ph[w][k + '_ns'] / (ph[w]['transactions'] or 1))
        out.append('| %s | | %s | %s |' % (lab, f2('rr'), f2('rr-local')))
    out.append('')
if 'pipe' in ph:
    p = ph['pipe']
    sw = p.get('switches') or 0
    out.append('### perf bench sched pipe -l %s with rfsd attached (kernel.bpf_stats_enabled=1)' % loops)
    out.append('')
    out.append('usecs/op: %s without rfsd, %s with rfsd attached and stats on. Context switches of the '
               "pipe's two processes (perf stat per task): %d. \"host\": every run of this rfsd's programs "
               'during the pipe run, anyone\'s traffic included; "in the pipe\'s tasks": firings of a '
               "tracepoint program's hook in the pipe's processes (perf stat per task). Programs not on a "
               'tracepoint are counted host-wide (rfs_xdp and rfs_cpumap only see this lab\'s interface).' % (
                   p.get('usecs_per_op_base'), p.get('usecs_per_op_xdp'), sw))
    out.append('')
    out.append("| program | hook | runs on the host during the pipe run | runs in the pipe's tasks | per pipe context switch |")
    out.append('|---|---|---|---|---|')
    def pcount(q):
        return q['own_runs'] if q.get('own_runs') is not None else q['runs']
    for q in sorted(p['progs'], key=lambda q: (-pcount(q), q['name'])):
        out.append('| %s | %s | %d | %s | %s |' % (
            q['name'], q['hook'], q['runs'], q['own_runs'] if q.get('own_runs') is not None else '-',
            '%.4f' % (pcount(q) / sw) if sw else '-'))
    tot = sum(pcount(q) for q in p['progs'])
    out.append('| **all of this rfsd** | | **%d** | **%d** | **%s** |' % (
        sum(q['runs'] for q in p['progs']), tot, '%.4f' % (tot / sw) if sw else '-'))
    out.append("| other labs' rfs_* programs (not this rfsd) | | %d | | |" % p['rfs_other_runs'])
    out.append('')

# the targets of issue 7, from the tables above
tg = []
def med(v):
    return st.median(v) if v else None
if 'rr' in ph:
    v = per_tx('rr', True)
    tg.append(('BPF time per rr transaction ≤ 800 ns',
               '%.0f ns for the bench\'s own traffic (%.0f counting every run on the host, %.0f on the '
               'steered host alone); rr-local %.0f (%.0f, %.0f)' % (
                   v, per_tx('rr'), per_tx('rr', server=True), per_tx('rr-local', True),
                   per_tx('rr-local'), per_tx('rr-local', server=True)),
               'yes' if v <= 800 else 'no'))
r = ratios('rr', 'xdp', 'cpumap', 'tps')
if r:
    tg.append(('rr transactions/s within 3 % of the bare cpumap redirect (xdp / cpumap, same round)',
               spread(r, '%.3f'), 'yes' if med(r) >= 0.97 else 'no'))
r = ratios('rr-local', 'xdp', 'rfs', 'tps')
if r:
    tg.append(('rr-local transactions/s ≥ kernel RFS (xdp / rfs, same round)',
               spread(r, '%.3f'), 'yes' if med(r) >= 1.0 else 'no'))
for w in ('bulk', 'bulk-local'):
    r = ratios(w, 'xdp', 'base', 'gbps')
    c = cells.get((w, 'xdp'), {})
    if r:
        irtx = sum(c[x].get('irtx') or 0 for x in c)
        drops = sum(c[x].get('ringdrop') or 0 for x in c)
        tg.append(('%s ≥ 0.95 × base with 0 retransmits (xdp / base)' % w,
                   '%s, %d retransmits, %d ring drops' % (spread(r, '%.3f'), irtx, drops),
                   'yes' if med(r) >= 0.95 and irtx == 0 else 'no'))
if 'pipe' in ph and ph['pipe'].get('switches'):
    p = ph['pipe']
    tot = sum(q['own_runs'] if q.get('own_runs') is not None else q['runs'] for q in p['progs'])
    sched = sorted(set(q['hook'] for q in p['progs'] if q['hook'].startswith('tp_btf/sched')))
    v = tot / p['switches']
    tg.append(('no xdp-rfs program runs per context switch (sched pipe)',
               "%d runs in the pipe's %d context switches: %.4f per switch; programs on a sched "
               'tracepoint: %s' % (tot, p['switches'], v, ', '.join(sched) or 'none'),
               'yes' if not sched and v < 0.01 else 'no'))
if tg:
    out.append('### targets (issue 7), judged on the medians')
    out.append('')
    out.append('| target | measured: median (min–max) | met |')
    out.append('|---|---|---|')
    for t in tg:
        out.append('| %s | %s | %s |' % t)
    out.append('')

costf = os.path.join(out_dir, 'cost.txt')
if os.path.exists(costf) and os.path.getsize(costf):
    s = {}
    for line in open(costf):
        f = line.split()
        if f and f[0] == 'summary' and len(f) >= 9:
            s[(f[1], f[2])] = (float(f[4]), float(f[6]), float(f[8]))
    def c3(k, fmt='%.0f'):
        v = s.get(k)
        return (fmt + ' (' + fmt + '–' + fmt + ')') % v if v else '-'
    if s:
        out.append('### cost per frame: BPF_PROG_TEST_RUN, repeat 1000000, same IPv4 TCP frame')
        out.append('')
        out.append('| test-run mode | bare cpumap redirect ns | rfs_xdp ns | rfs_xdp − bare ns | ratio (budget ≤ 1.25) | ratio, wall clock | rfs_xdp ring drops % |')
        out.append('|---|---|---|---|---|---|---|')
        for mode, what in (('prog', 'plain (program only)'), ('live', 'live frames (redirect carried out)')):
            if (mode, 'ratio') in s:
                out.append('| %s | %s | %s | %s | %s | %s | %s |' % (
                    what, c3((mode, 'bare_ns')), c3((mode, 'rfs_ns')),
                    c3((mode, 'delta_ns')), c3((mode, 'ratio'), '%.2f'),
                    c3((mode, 'wall_ratio'), '%.2f'),
                    c3((mode, 'drops_pct'), '%.1f')))
        out.append('')
print('\n'.join(out))
PY
}

# --------------------------------------------------------------------- main

[ "$(id -u)" -eq 0 ] || die "must run as root"
for c in ip ethtool taskset python3 awk ss nstat tc; do
	command -v "$c" >/dev/null 2>&1 || die "'$c' is not installed (make deps)"
done
for f in "$RFSD" "$RFSCTL"; do
	[ -x "$f" ] || die "$f is not built (make)"
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"
for m in $MODES; do
	case " $ALL_MODES " in
	*" $m "*) ;;
	*) die "unknown mode '$m' ($ALL_MODES)" ;;
	esac
done
NEED_SOCKPERF=
NEED_IPERF=
for w in $WORKLOADS; do
	case " $ALL_WORKLOADS " in
	*" $w "*) ;;
	*) die "unknown workload '$w' ($ALL_WORKLOADS)" ;;
	esac
	case $w in
	rr|rr-local|multi) NEED_SOCKPERF=1 ;;
	bulk|bulk-local) NEED_IPERF=1 ;;
	rr-many|rpc) need_tool rfs_rr; need_tool rfs_rpc ;;
	order-bulk) need_tool rfs_bulk ;;
	order-udp) need_tool rfs_seq ;;
	esac
done
[ -z "$NEED_SOCKPERF" ] || command -v sockperf >/dev/null 2>&1 ||
	die "'sockperf' is not installed (make deps)"
[ -z "$NEED_IPERF" ] || command -v iperf3 >/dev/null 2>&1 ||
	die "'iperf3' is not installed (make deps)"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] && [[ $SECS =~ ^[1-9][0-9]*$ ]] &&
	[[ $BULK_SECS =~ ^[1-9][0-9]*$ ]] ||
	die "--rounds, --seconds and --bulk-seconds take whole numbers >= 1"
case " $MODES " in
*" cpumap "*) [ -x "$COST" ] || die "$COST is not built (make $COST), needed by mode cpumap (or leave it out: --modes)" ;;
esac
case " $MODES " in
*" pass "*) command -v clang >/dev/null 2>&1 || die "mode pass needs clang (make deps)" ;;
esac
if [ -n "$DO_PROFILE" ]; then
	case " $MODES " in
	*" xdp "*) command -v bpftool >/dev/null 2>&1 ||
		{ warn "no bpftool: no profile"; DO_PROFILE=; } ;;
	*) DO_PROFILE= ;;
	esac
	# it measures the rr and rr-local servers
	case " $WORKLOADS " in
	*" rr "*|*" rr-local "*) ;;
	*) DO_PROFILE= ;;
	esac
fi
# the per-CPU receive check needs perf and the tracepoint; without them
# the bench runs, with "-" in that column
HAVE_PERF=
perf stat -a -e net:netif_receive_skb -o /dev/null -- true >/dev/null 2>&1 &&
	HAVE_PERF=1
ONLINE0=$(cat /sys/devices/system/cpu/online)
# What was measured: the checkout's HEAD and its uncommitted changes, or,
# for binaries built elsewhere (RFS_BUILD=, e.g. from a `git archive` of
# one commit, while this checkout moves on), what RFS_BENCH_REV says
if [ -n "${RFS_BENCH_REV:-}" ]; then
	REV="$RFS_BENCH_REV (binaries from $BUILD)"
	DIRTY=
else
	REV=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo "?")
	DIRTY=$(git -C "$TOP" status --porcelain --untracked-files=no -- bpf include daemon bench tests/tools Makefile 2>/dev/null |
		awk '{ print $2 }' | paste -sd' ')
fi

mkdir -p "$OUT" || die "can't create $OUT"
: > "$OUT/raw.txt"
: > "$OUT/cost.txt"
: > "$OUT/profile.json"
printf 'workload\tparam\tmode\tround\tmetric\tvalue\tunit\n' > "$OUT/results.tsv"
rm -f "$OUT/profile.txt" "$OUT/profile.bad" "$OUT/REPORT.md"
rm -rf "$OUT/logs" && mkdir -p "$OUT/logs" || die "can't create $OUT/logs"
{
	echo "commit: $REV${DIRTY:+ plus uncommitted changes to $DIRTY}"
	echo "kernel: $(uname -r)"
	echo "cpus: $(nproc)"
	echo "cpu_model: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "command: $CMDLINE"
	echo "settings: $ARGS${QUICK:+ (quick)}; rr-many ${RR_SECS}s per cell, cells $RR_CELLS; rpc ${RPC_SECS}s, $RPC_CONNS conns of ${RPC_SIZE} B; order-* ${ORDER_SECS}s, hops every ${HOP_MS} ms, $UDP_FLOWS UDP flows x $UDP_PPS/s"
	echo "load_start: $LOAD0"
} > "$OUT/meta.txt"
lab_up
IP_A=$LAB_IP4_A
IP_B=$LAB_IP4_B
NCPU=$(nproc)
ALLMASK=$(printf '%x' $(((1 << NCPU) - 1)))
case " $MODES " in
*" pass "*) build_pass || die "can't build the XDP_PASS program" ;;
esac
msg LAB "$A <-> $NS/$B, $IP_A/$IP_B, $NCPU CPUs, ${QUICK:+quick: }rounds $ROUNDS"

if [ -n "$DO_COST" ]; then
	if [ -x "$COST" ]; then
		msg COST "$COST --runs $COST_RUNS"
		"$COST" --runs "$COST_RUNS" --pin-dir "$PIN-cost" > "$OUT/cost.txt" ||
			warn "cost failed; no cost table"
	else
		warn "$COST is not built (make $COST); no cost table"
	fi
fi

servers_up
new_servers_up
read -ra MS <<< "$MODES"
for ((r = 1; r <= ROUNDS; r++)); do
	for ((k = 0; k < ${#MS[@]}; k++)); do
		cell "${MS[(k + r - 1) % ${#MS[@]}]}" "$r"
	done
	msg ROUND "$r of $ROUNDS done at $(elapsed) s"
done

if [ -n "$DO_PROFILE" ]; then
	repin_servers || warn "profile: a CPU went offline or a server lost its pin before it; pinned again"
	profile_xdp
	repin_servers || {
		warn "profile: CPU hotplug during the profile session"
		echo "CPU hotplug during the profile session: its figures are suspect" > "$OUT/profile.bad"
	}
fi
TOOK_OWN=$(elapsed)

if [ -n "$NEED_SOCKPERF$NEED_IPERF" ]; then
	{
		echo "command: $0 $ARGS"
		echo "commit: $REV${DIRTY:+ plus uncommitted changes to $DIRTY}"
		echo "kernel: $(uname -r), $(nproc) CPUs; lab $A/$B $IP_A/$IP_B"
		echo "load average (1, 5, 15 min): $LOAD0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
		echo
		summary "$TOOK_OWN"
		echo "raw cells (round mode workload key=value): $OUT/raw.txt"
		echo "client logs: $OUT/logs/; cost runs: $OUT/cost.txt; profile: $OUT/profile.json"
	} > "$OUT/results.txt"
	sed -n '/^xdp-rfs bench:/,/^raw cells/p' "$OUT/results.txt" | sed '$d'
fi
new_summary

# the lab goes before the other bench scripts, which make their own
bench_down
trap - EXIT
export OUT ROUNDS QUICK
# the cost runs above as rows (bench/cost.sh converts cost.txt)
if [ -s "$OUT/cost.txt" ] && [ -x "$TOP/bench/cost.sh" ]; then
	msg COST "bench/cost.sh: rows from $OUT/cost.txt"
	COST_TXT=$OUT/cost.txt "$TOP/bench/cost.sh" --out "$OUT" ${QUICK:+--quick} ||
		warn "bench/cost.sh failed"
fi
if [ -x "$BUILD/bench/sizing" ]; then
	msg SIZING "$BUILD/bench/sizing${QUICK:+ (QUICK)}"
	"$BUILD/bench/sizing" || warn "bench/sizing failed"
fi
if [ -n "$DO_NIC" ] && [ -x "$TOP/bench/nic.sh" ]; then
	msg NIC "bench/nic.sh --out $OUT --rounds $ROUNDS${QUICK:+ --quick}"
	"$TOP/bench/nic.sh" --out "$OUT" --rounds "$ROUNDS" ${QUICK:+--quick} ||
		warn "bench/nic.sh failed"
fi
TOOK=$(elapsed)
{
	echo "load_end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "seconds: $TOOK (this script's own workloads: $TOOK_OWN)"
} >> "$OUT/meta.txt"
if [ -x "$TOP/bench/report.sh" ]; then
	msg REPORT "bench/report.sh $OUT"
	export OUT
	"$TOP/bench/report.sh" "$OUT" || warn "bench/report.sh failed"
fi
msg DONE "$OUT/results.tsv, $OUT/meta.txt (${TOOK}s)"
