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
#   xdp   rfsd (own pin dir and socket) + rfsctl attach rfsA$$, its
#         cpumap kthreads SCHED_FIFO 1 (rfsd's default)
#   xdp-batch  xdp with cpumap_kthread_sched = batch:0 (rfsd.conf): the
#         cpumap kthreads SCHED_BATCH, whose wake-ups do not preempt the
#         server (every workload but rr-local, bulk-local and multi)
#   xdp-kernel  diagnostic, only when --modes names it (rr-many, rpc,
#         rr, bulk): xdp with cpumap_kthread_sched = kernel (rfsd.conf):
#         the cpumap kthreads as the kernel makes them, SCHED_OTHER nice
#         0 (rfsd's default before 2026-12-05)
#   xdp-noguard  the same with the in-order rule off: rfsd --unsafe-noguard
#         attaching rfsA$$ from a config with noguard = yes (rfsd(8)).
#         What the rule buys, in the ordering A/B; never a production mode
#   cpumap  diagnostic (rr, rr-local, bulk, bulk-local, order-bulk):
#         bench/bare_redirect.bpf.c attached to rfsA$$ (build/bench/cost
#         --attach), every frame into the cpumap to the CPU of the
#         workload's server.  What is left between it and xdp is
#         steering's own cost, what is between it and rfs is the cost of
#         going through a cpumap at all
#   pass  an XDP program that returns XDP_PASS for every frame (built
#         here with clang, one line): no steering, on the receive path
#         every XDP mode has on veth (its NAPI, and a copy of each
#         frame into a page of its own), which no mode without XDP
#         takes.  That is the floor of xdp-rfs's local path, what the
#         lab reorders without a cpumap (order-bulk), and the baseline
#         that stands for a NIC, whose driver receives every frame that
#         way with or without XDP (rr rr-local bulk bulk-local)
#   rfs-pass  rfs with that XDP_PASS program attached: kernel RFS on the
#         same receive path as xdp-rfs (rr-many rpc rr rr-local bulk
#         bulk-local)
#   sock  diagnostic (rr, rr-local): pass plus rfsd running with nothing
#         attached, so its socket-side programs (sockops, the recv and
#         send hooks) run and rfs_xdp does not: what the socket side
#         costs, host-wide (the lab's clients are on this host too)
#   tp-floor  diagnostic (rr, rr-local): pass plus build/bench/floor's
#         empty programs on the socket tracepoints rfsd hooks, no rfsd:
#         the least any socket side on those tracepoints costs
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
#               sender on CPU $CLI_CPU (its veth takes the ACKs in there
#               too, so only that CPU transmits into the lab, as with a
#               NIC), receiver hopping CPUs every HOP_MS; segments out of order at the receiver (its
#               TCP_INFO and nstat TcpExtTCPOFOQueue), D-SACKs, TCP
#               retransmits; the sender's queue has a qdisc so that a
#               full veth ring holds rather than drops (a loss would look
#               like reordering); also in modes cpumap (every frame to
#               CPU $SRV_CPU) and pass: what the path reorders by itself
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
# This file is the driver (options, checks, the phases and their order);
# it sources bench/modes.sh (the modes), bench/cells.sh (the cells of the
# sockperf/iperf3 workloads), bench/workloads.sh (the comparison
# workloads), bench/profile.sh (the profile session, which
# bench/profile.py turns into profile.json) and bench/meta.sh (meta.txt's
# head: the commit and the machine), and bench/summary.py writes
# results.txt's tables.
#
# Usage: bench/run.sh [--quick] [--rounds N] [--seconds S] [--bulk-seconds S]
#                     [--modes LIST] [--workloads LIST] [--no-multi]
#                     [--no-cost] [--no-profile] [--no-nic] [--idle-poll NS]
#                     [--hog] [--no-gro] [--kprofile] [--page-pool] [--rr-seconds S]
#                     [--rr-cells LIST] [--out DIR]
#   default:  --rounds 3 --seconds 2 --bulk-seconds 3, every mode but
#             xdp-kernel and every workload but multi, each mode on the
#             workloads it applies to; rr-many 1.5 s per cell (N = 1 16 64 256, 1 and 1024 B),
#             rpc 3 s, order-* 2 s (16 UDP flows); the sockperf/iperf3
#             workloads (rr rr-local bulk bulk-local) in rounds 1-2 only
#   --quick (or QUICK=1): one round, rr-many 0.5 s per cell (N = 1 64
#             256 at 1 B, 16 at 1024 B), rpc, order-* 1 s (8 UDP flows),
#             sockperf 2 s and iperf3 1 s in modes base and xdp only, 3
#             cost runs, a shorter profile; options after it win
#   --idle-poll NS: in a guest whose cpuidle driver is haltpoll, poll
#             NS ns before halting an idle vCPU for the run (haltpoll's
#             guest_halt_poll_ns; 200000 is the kernel's default, some
#             VMs boot with 0), put back afterwards.  With 0 every
#             transaction of a one-connection ping-pong across CPUs
#             waits for a halted vCPU to wake, in every mode.  Refused
#             under any other driver, which ignores the parameter
#   --hog: a CPU-bound task (a shell busy loop, nice 0) pinned to the
#             server's CPU (1), for every round: a server whose
#             request threads share their CPU with computation, where
#             how soon a woken receive path gets the CPU decides the
#             round trip (the cpumap kthread is a task; softirq is not)
#   --no-gro: leave GRO off on the lab's receiving veth ($A), as veth
#             has it; by default the bench turns it on, in every mode
#             (since 2026-12-05; earlier results ran with it off).  veth
#             with GRO off takes frames without XDP through the backlog
#             one MTU-sized skb at a time, and with XDP (native) through
#             NAPI without GRO, cpumap's GRO included; a NIC's driver has
#             GRO on in both.  With it on, veth without XDP polls NAPI and
#             merges segments as such a driver does: the no-steering
#             baseline a NIC gives
#   --kprofile: sample the kernel on the RX CPU and the server's CPU
#             (perf record -e cpu-clock, no PMU needed) over each bulk
#             and bulk-local cell from 1 s in to 1 s before its end
#             (so --bulk-seconds 3 or more) and over each mode's
#             rr-many cells (all of them, one profile), and keep the
#             top symbols of each CPU and the call chains behind them
#             in logs/ROUND.MODE.WORKLOAD.kprofile; bench/kprofile.py
#             averages them (sampling costs every mode alike, a little
#             throughput)
#   --page-pool: count, over the same window of each bulk cell, the
#             pages the host's page pools took from the page allocator
#             and gave back to it (perf stat of page_pool:
#             page_pool_state_hold/_release, every CPU); a line of the
#             same .kprofile log and the metrics page_pool_allocs_per_s
#             and page_pool_frees_per_s.  Each counted event costs a
#             little, and under a redirect veth's pool counts one per
#             frame: read throughput from runs without it
#   --rr-seconds S, --rr-cells N:BYTES,...: rr-many's seconds per cell
#             and its cells (default 1.5 and 1:1,16:1,64:1,256:1,1:1024,
#             16:1024,64:1024,256:1024); longer cells of many connections
#             show rare stalls (bench/results/2026-12-05/kthread-default,
#             commit 1665295)
# Results in OUT (default build/bench): results.tsv (one row per figure:
# workload param mode round metric value unit, bench/README.md),
# meta.txt (commit, the machine, date, command line), results.txt (the
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

ALL_MODES="base rps rfs xdp xdp-batch xdp-kernel xdp-noguard cpumap pass rfs-pass sock tp-floor"
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
MODES=${ALL_MODES/ xdp-kernel/}	# xdp-kernel only when --modes names it
WORKLOADS="rr-many rpc order-bulk order-udp rr rr-local bulk bulk-local"
DO_COST=1
DO_PROFILE=1
DO_NIC=1
IDLE_POLL=		# --idle-poll: haltpoll's guest_halt_poll_ns for the run
HOG=			# --hog: a busy loop on SRV_CPU for the rounds
GRO=1			# GRO on for $A in every mode (--no-gro: off)
KPROFILE=		# --kprofile: perf samples of the bulk and rr-many cells
PAGE_POOL=		# --page-pool: page pool pages from the allocator, bulk cells
HALTPOLL_NS=/sys/module/haltpoll/parameters/guest_halt_poll_ns
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
	--rounds|--seconds|--bulk-seconds|--modes|--workloads|--out|--idle-poll|--rr-seconds|--rr-cells)
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
	--idle-poll) IDLE_POLL=$2; shift ;;
	--hog) HOG=1 ;;
	--no-gro) GRO= ;;
	--kprofile) KPROFILE=1 ;;
	--page-pool) PAGE_POOL=1 ;;
	--rr-seconds) RR_SECS=$2; shift ;;
	--rr-cells) RR_CELLS=${2//,/ }; shift ;;
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
[ -z "$IDLE_POLL" ] || ARGS+=" --idle-poll $IDLE_POLL"
[ -z "$HOG" ] || ARGS+=" --hog"
[ -n "$GRO" ] || ARGS+=" --no-gro"
[ -z "$KPROFILE" ] || ARGS+=" --kprofile"
[ -z "$PAGE_POOL" ] || ARGS+=" --page-pool"
ARGS+=" --rr-seconds $RR_SECS --rr-cells '$(echo $RR_CELLS)'"

# the lab: names carry this PID (LAB_ID is not exported: bench/nic.sh
# makes its own)
LAB_ID=$$
. "$TOP/tests/lib/lab.sh"
# the bench's pieces (functions, and the constants they use): the
# modes, the cells of the sockperf/iperf3 workloads, the comparison
# workloads, the profile session, meta.txt's head
. "$TOP/bench/modes.sh"
. "$TOP/bench/cells.sh"
. "$TOP/bench/workloads.sh"
. "$TOP/bench/profile.sh"
. "$TOP/bench/meta.sh"
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

# Does a mode of this run attach the XDP_PASS program (build_pass)?
uses_pass()
{
	local m
	for m in pass rfs-pass sock tp-floor; do
		case " $MODES " in *" $m "*) return 0 ;; esac
	done
	return 1
}

# lab.sh's process bookkeeping under the bench's short names
bg() { lab_bg "$@"; BG_PID=$LAB_BG_PID; }
is_ours() { lab_is_ours "$1"; }
alive() { lab_alive "$1"; }
stop_pid() { lab_kill "$1" TERM "${2:-5}"; }
ns() { lab_ns "$@"; }

# lab_bg_attached, its PID in BG_PID
bg_attached() { lab_bg_attached "$@"; local rc=$?; BG_PID=$LAB_BG_PID; return $rc; }

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

# ------------------------------------------------------------------- report

# results.txt's tables (and stdout's); $1: the seconds the rounds took
summary()
{
	python3 "$TOP/bench/summary.py" "$OUT" "$MODES" "$WORKLOADS" "$SRV_CPU" "$CLI_CPU" "$MSG" \
		"$BULK_SECS" "$SECS" "$ROUNDS" "$1" "$PIPE_LOOPS"
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
for opt in ${KPROFILE:+--kprofile} ${PAGE_POOL:+--page-pool}; do
	command -v perf >/dev/null 2>&1 || die "$opt needs 'perf' (make deps)"
	case $opt:" $WORKLOADS " in
	--kprofile:*" rr-many "*) ;;
	--kprofile:*) [ -n "$NEED_IPERF" ] ||
		warn "--kprofile samples the bulk, bulk-local and rr-many workloads only, and this run has none of them" ;;
	*) [ -n "$NEED_IPERF" ] ||
		warn "$opt counts over the bulk and bulk-local cells only, and this run has neither" ;;
	esac
	[ -z "$NEED_IPERF" ] || [ "$BULK_SECS" -ge 3 ] ||
		warn "$opt samples from 1 s into a bulk cell to 1 s before its end: with --bulk-seconds $BULK_SECS there is nothing to sample there"
done
if [ -n "$PAGE_POOL" ]; then
	perf list 2>/dev/null | grep -q 'page_pool:page_pool_state_hold' ||
		die "--page-pool needs the page_pool:page_pool_state_hold tracepoint, which perf does not list on this kernel"
fi
if [ -n "$IDLE_POLL" ]; then
	[[ $IDLE_POLL =~ ^[0-9]+$ ]] ||
		die "--idle-poll takes nanoseconds, a whole number (200000 is the kernel's default)"
	[ -w "$HALTPOLL_NS" ] ||
		die "--idle-poll: no $HALTPOLL_NS (not a guest with the cpuidle-haltpoll driver)"
	# the parameter is there whenever haltpoll is built in, but only the
	# haltpoll driver reads it
	drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)
	[ "$drv" = haltpoll ] ||
		die "--idle-poll: the cpuidle driver is '${drv:-none}', not haltpoll: $HALTPOLL_NS does nothing here, so this guest's idle CPUs can't be made to poll"
fi
case " $MODES " in
*" cpumap "*) [ -x "$COST" ] || die "$COST is not built (make $COST), needed by mode cpumap (or leave it out: --modes)" ;;
esac
uses_pass && { command -v clang >/dev/null 2>&1 || die "mode pass needs clang (make deps)"; }
case " $MODES " in
*" tp-floor "*) [ -x "$FLOOR" ] || die "$FLOOR is not built (make bench), needed by mode tp-floor (or leave it out: --modes)" ;;
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
REV=$(meta_rev)

mkdir -p "$OUT" || die "can't create $OUT"
: > "$OUT/raw.txt"
: > "$OUT/cost.txt"
: > "$OUT/profile.json"
printf 'workload\tparam\tmode\tround\tmetric\tvalue\tunit\n' > "$OUT/results.tsv"
rm -f "$OUT/profile.txt" "$OUT/profile.bad" "$OUT/REPORT.md"
rm -rf "$OUT/logs" && mkdir -p "$OUT/logs" || die "can't create $OUT/logs"
CPUIDLE=/sys/devices/system/cpu/cpuidle
{
	meta_machine
	echo "command: $CMDLINE"
	echo "settings: $ARGS${QUICK:+ (quick)}; rr-many ${RR_SECS}s per cell, cells $RR_CELLS; rpc ${RPC_SECS}s, $RPC_CONNS conns of ${RPC_SIZE} B; order-* ${ORDER_SECS}s, hops every ${HOP_MS} ms, $UDP_FLOWS UDP flows x $UDP_PPS/s"
	echo "load_start: $LOAD0"
	# only the haltpoll driver reads it, though it is there whenever
	# haltpoll is built in
	[ ! -r "$HALTPOLL_NS" ] || [ "$(cat "$CPUIDLE/current_driver" 2>/dev/null)" != haltpoll ] ||
		echo "guest_halt_poll_ns: $(cat "$HALTPOLL_NS")${IDLE_POLL:+, $IDLE_POLL during the run (--idle-poll)}"
	[ -z "$HOG" ] ||
		echo "hog: a busy loop pinned to CPU $SRV_CPU, nice 0, for every round (--hog)"
	if [ -n "$GRO" ]; then
		echo "gro: on for the receiving veth in every mode"
	else
		echo "gro: off for the receiving veth in every mode (--no-gro)"
	fi
	echo "host_settings: net.core.rps_sock_flow_entries $(cat "$SFE_FILE"), kernel.bpf_stats_enabled $(cat "$STATS_FILE") at the start"
} > "$OUT/meta.txt"
# A sock flow table left on turns on kernel RFS's record in every
# recvmsg/sendmsg of the host, in every mode: the modes stay comparable
# with each other, not with a run on a host without it
[ "$(cat "$SFE_FILE")" = 0 ] ||
	warn "net.core.rps_sock_flow_entries is $(cat "$SFE_FILE"), not 0: kernel RFS records flows in every mode of this run"
lab_up
# put back by the lab's exit trap, with the lab's other kernel settings
[ -z "$IDLE_POLL" ] || lab_set "$HALTPOLL_NS" "$IDLE_POLL"
# the veth goes with the lab: nothing to put back
[ -z "$GRO" ] || ethtool -K "$A" gro on >/dev/null ||
	die "can't turn GRO on for $A (--no-gro leaves it off)"
IP_A=$LAB_IP4_A
IP_B=$LAB_IP4_B
NCPU=$(nproc)
ALLMASK=$(printf '%x' $(((1 << NCPU) - 1)))
! uses_pass || build_pass || die "can't build the XDP_PASS program"
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
if [ -n "$HOG" ]; then
	bg taskset -c "$SRV_CPU" sh -c 'while :; do :; done'
	HOG_PID=$BG_PID
	msg HOG "pid $HOG_PID busy on CPU $SRV_CPU for every round"
fi
read -ra MS <<< "$MODES"
for ((r = 1; r <= ROUNDS; r++)); do
	for ((k = 0; k < ${#MS[@]}; k++)); do
		cell "${MS[(k + r - 1) % ${#MS[@]}]}" "$r"
	done
	msg ROUND "$r of $ROUNDS done at $(elapsed) s"
done
[ -z "$HOG" ] || stop_pid "$HOG_PID"

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
		echo "commit: $REV"
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
