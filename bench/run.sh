#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: xdp-rfs against no steering, kernel RPS and kernel RFS, on
# one lab, in one run, in interleaved rounds (the order of the modes
# rotates every round, so the VM's noise hits every mode alike).
#
#   root namespace                              namespace rfsbns$$
#   sockperf server(s)                          sockperf ping-pong client(s)
#   rfsbA$$  198.18.N.1/24  <------ veth ------>  rfsbB$$  198.18.N.2/24
#     ^ the mode under test acts here: requests arrive on this side
#
# Modes (each set up before and undone after its cell):
#   base  no steering: rps_cpus 0 on rfsbA's RX queue
#   rps   rps_cpus = every CPU
#   rfs   rps_cpus = every CPU, rps_flow_cnt 4096 on the queue and
#         net.core.rps_sock_flow_entries 32768 (put back afterwards)
#   xdp   rfsd (own pin dir and socket) + rfsctl attach rfsbA$$
#   cpumap  diagnostic, rr only: bench/bare_redirect.bpf.c attached to
#         rfsbA$$ (build/bench/cost --attach), every frame to the rr
#         server's CPU.  The cpumap path without rfs_xdp's work: what is
#         left between it and xdp is steering's own cost, what is between
#         it and rfs is the cost of going through a cpumap at all.
# Workloads, per mode and round:
#   rr    one TCP connection, sockperf ping-pong (64 B) from the namespace
#         (client on CPU $CLI_CPU) to a server pinned to CPU $SRV_CPU
#   multi 4 TCP connections at once, 2 to a server pinned to each CPU,
#         each client pinned to the other CPU: both CPUs busy, and every
#         flow is received on its client's CPU unless it is steered
# plus the per-frame cost of the XDP program (build/bench/cost), and one
# extra xdp rr run with BPF run-time stats on: where its time goes.
#
# Also counted per rr cell, as a check on what each mode did: on which CPU
# the kernel received the requests (net:netif_receive_skb on rfsbA$$,
# perf stat per CPU; every path, backlog, GRO and cpumap, goes through it).
#
# Everything it makes carries its PID and is removed on every exit path:
# the namespace, the veth pair, the safety route, rfsd (by recorded PID),
# its pin dir, the work dir; sysctl and RPS settings are put back.  It
# never touches an interface it did not create.
#
# Usage: bench/run.sh [--rounds N] [--seconds S] [--modes LIST]
#                     [--no-multi] [--no-cost] [--out DIR]
# Results: build/bench/results.txt (summary), raw.txt (every cell); a
# markdown table on stdout.

set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${RFS_BUILD:-$TOP/build}
[[ $BUILD == /* ]] || BUILD=$TOP/$BUILD
RFSD=$BUILD/rfsd
RFSCTL=$BUILD/rfsctl
COST=$BUILD/bench/cost
OUT=$BUILD/bench

ROUNDS=5
SECS=3			# per sockperf run: its valid window is ~SECS-0.45,
			# and each run costs ~SECS+2.3 (connect, warm-up, exit)
MODES="base rps rfs xdp cpumap"
DO_MULTI=1
DO_COST=1
SRV_CPU=1
CLI_CPU=0
MSG=64
# sockperf times with rdtsc by default; on this VM that clock jumped
# (a 3 s run reported RunTime=3855 s, another 0 transactions/s): take
# the monotonic clock (--no-rdtsc) on every client

usage()
{
	if [ "${1:-2}" = 0 ]; then exec 3>&1; else exec 3>&2; fi
	sed -n '/^# Usage:/,/^# markdown/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&3
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--rounds|--seconds|--modes|--out)
		[ $# -ge 2 ] || { echo "bench: $1 needs a value" >&2; usage; } ;;
	esac
	case $1 in
	--rounds) ROUNDS=$2; shift ;;
	--seconds) SECS=$2; shift ;;
	--modes) MODES=${2//,/ }; shift ;;
	--no-multi) DO_MULTI= ;;
	--no-cost) DO_COST= ;;
	--out) OUT=$2; shift ;;
	-h|--help) usage 0 ;;
	*) echo "bench: unknown option '$1'" >&2; usage ;;
	esac
	shift
done

ID=$$
NS=rfsbns$ID
A=rfsbA$ID
B=rfsbB$ID
WORK=/tmp/rfs-bench-$ID
PIN=/sys/fs/bpf/rfs-bench-$ID
SOCK=$WORK/rfsd.sock
PORT=$((30000 + ID % 20000))

PIDS=()			# everything started here, "pid:starttime"
RFSD_PID=
CPUMAP_PID=
NS_MADE=
LINK_MADE=
IFINDEX=
ROUTE=
SFE_FILE=/proc/sys/net/core/rps_sock_flow_entries
SFE_ORIG=
SFE_SET=
STATS_FILE=/proc/sys/kernel/bpf_stats_enabled
STATS_ORIG=
STATS_SET=
T0=$(date +%s.%N)

msg() { printf '  %-7s %s\n' "$1" "$2" >&2; }
warn() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }'; }

# ---------------------------------------------------------------- processes

starttime()
{
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	s=${s##*) }
	# shellcheck disable=SC2086	# fields on purpose
	set -- $s
	echo "${20}"
}

# Start "$@" in the background (exec-style wrappers only: taskset, ip
# netns exec), record it; PID in BG_PID.
bg()
{
	"$@" &
	BG_PID=$!
	PIDS+=("$BG_PID:$(starttime "$BG_PID")")
}

is_ours()
{
	local e
	for e in "${PIDS[@]}"; do
		[ "${e%%:*}" = "$1" ] || continue
		# an explicit status: a bare "return" in a function run from
		# the EXIT trap returns the status from before the trap
		[ -d "/proc/$1" ] && [ "${e#*:}" = "$(starttime "$1")" ] &&
			return 0
		return 1
	done
	return 1
}

alive()
{
	is_ours "$1" && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# TERM a recorded PID, wait up to $2 s (default 5), then KILL; reap it.
stop_pid()
{
	local pid=$1 t=${2:-5} i
	is_ours "$pid" || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < t * 10; i++)); do
		alive "$pid" || break
		sleep 0.1
	done
	alive "$pid" && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# ------------------------------------------------------------------ cleanup

cleanup()
{
	local e
	trap - INT TERM
	[ -n "$RFSD_PID" ] && stop_pid "$RFSD_PID" 10
	RFSD_PID=
	for e in "${PIDS[@]}"; do
		stop_pid "${e%%:*}" 3
	done
	PIDS=()
	# put net.core.rps_sock_flow_entries back, unless someone else has
	# changed it since we did
	if [ -n "$SFE_SET" ] && [ "$(cat "$SFE_FILE")" = 32768 ]; then
		echo "$SFE_ORIG" > "$SFE_FILE"
	fi
	SFE_SET=
	[ -n "$STATS_SET" ] && echo "$STATS_ORIG" > "$STATS_FILE"
	STATS_SET=
	if [ -n "$LINK_MADE" ] && [ -d "/sys/class/net/$A" ]; then
		echo 0 > "/sys/class/net/$A/queues/rx-0/rps_flow_cnt" 2>/dev/null
		echo 0 > "/sys/class/net/$A/queues/rx-0/rps_cpus" 2>/dev/null
		ip link del dev "$A" 2>/dev/null
	fi
	LINK_MADE=
	# libxdp's dispatcher pins for our (now gone) ifindex
	if [ -n "$IFINDEX" ] && ! ip -o link show | grep -q "^$IFINDEX:"; then
		rm -rf /sys/fs/bpf/xdp/dispatch-"$IFINDEX"-* 2>/dev/null
	fi
	[ -n "$ROUTE" ] && ip route del unreachable "$ROUTE" metric 4000 2>/dev/null
	ROUTE=
	[ -n "$NS_MADE" ] && ip netns del "$NS" 2>/dev/null
	NS_MADE=
	[ -d "$PIN" ] && rm -rf "$PIN"
	[ -d "$WORK" ] && rm -rf "$WORK"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------- lab

# Is the /24 a.b.c routed or addressed in the root namespace?
net_used()
{
	local n=${1//./\\.}
	ip -4 route show table all 2>/dev/null |
		grep -Eq "^(unreachable |local |broadcast )?$n\." && return 0
	ip -4 addr show 2>/dev/null | grep -q "inet $n\."
}

# One /24 of 198.18.0.0/15 (RFC 2544 benchmarking), from the PID, skipping
# any the root namespace already uses (other labs; never eth0's).
pick_net()
{
	local i n
	for ((i = 0; i < 512; i++)); do
		n=$(((ID + 257 + i) % 512))
		NET=198.$((18 + n / 256)).$((n % 256))
		net_used "$NET" || return 0
	done
	die "no free /24 in 198.18.0.0/15"
}

ns() { ip netns exec "$NS" "$@"; }

lab_up()
{
	pick_net
	IP_A=$NET.1
	IP_B=$NET.2
	mkdir -p "$WORK" || die "can't create $WORK"
	: > "$WORK/rfsd.conf"		# never the host's /etc/rfs/rfsd.conf
	ip netns add "$NS" || die "can't create netns $NS"
	NS_MADE=1
	ns ip link set dev lo up
	# one queue each way, like a single-queue NIC: RPS/RFS then act on
	# rx-0 and every request of a flow shares one ring
	ip link add "$A" numtxqueues 1 numrxqueues 1 type veth peer name "$B" \
		netns "$NS" numtxqueues 1 numrxqueues 1 ||
		die "can't create veth $A/$B"
	LINK_MADE=1
	IFINDEX=$(cat "/sys/class/net/$A/ifindex")
	ip route add unreachable "$NET.0/24" metric 4000 && ROUTE=$NET.0/24
	ip addr add "$IP_A/24" dev "$A" &&
	ip link set dev "$A" up &&
	ns ip addr add "$IP_B/24" dev "$B" &&
	ns ip link set dev "$B" up || die "can't set up $A/$B"
	# XDP redirect of a veth frame loses its partial checksum: with TX
	# checksum offload on, redirected TCP segments are dropped
	ethtool -K "$A" tx off >/dev/null 2>&1 &&
	ns ethtool -K "$B" tx off >/dev/null 2>&1 ||
		die "can't turn off tx checksum offload on $A/$B"
	ns ping -c 1 -W 2 "$IP_A" >/dev/null 2>&1 ||
		die "$IP_A does not answer from $NS"
	RXQ=/sys/class/net/$A/queues/rx-0
	NCPU=$(nproc)
	ALLMASK=$(printf '%x' $(((1 << NCPU) - 1)))
}

# ---------------------------------------------------------------- the modes

ctl() { "$RFSCTL" --socket "$SOCK" "$@"; }

rfsd_start()
{
	local i
	bg "$RFSD" --socket "$SOCK" --pin-dir "$PIN" --config "$WORK/rfsd.conf" \
		>>"$WORK/rfsd.log" 2>&1
	RFSD_PID=$BG_PID
	for ((i = 0; i < 150; i++)); do
		alive "$RFSD_PID" || { tail -5 "$WORK/rfsd.log" >&2; die "rfsd exited"; }
		ctl status >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	die "rfsd did not answer within 15s"
}

rfsd_stop()
{
	[ -n "$RFSD_PID" ] || return 0
	stop_pid "$RFSD_PID" 10
	RFSD_PID=
}

mode_on()
{
	local i
	echo 0 > "$RXQ/rps_flow_cnt"
	echo 0 > "$RXQ/rps_cpus"
	case $1 in
	base) ;;
	rps) echo "$ALLMASK" > "$RXQ/rps_cpus" ;;
	rfs)
		echo "$ALLMASK" > "$RXQ/rps_cpus"
		echo 4096 > "$RXQ/rps_flow_cnt"
		echo 32768 > "$SFE_FILE"
		SFE_SET=1
		;;
	xdp)
		rfsd_start
		ctl attach "$A" >/dev/null || die "rfsctl attach $A failed"
		XDP_MODE=$("$RFSCTL" --socket "$SOCK" -j status | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next((i.get("mode", "?") for i in d["interfaces"] if i["name"] == sys.argv[1]), "none"))' "$A")
		;;
	cpumap)
		: > "$WORK/cpumap.out"
		bg "$COST" --attach "$A" --target "$SRV_CPU" > "$WORK/cpumap.out"
		CPUMAP_PID=$BG_PID
		for ((i = 0; i < 50; i++)); do
			grep -q '^attached' "$WORK/cpumap.out" && return 0
			alive "$CPUMAP_PID" || break
			sleep 0.1
		done
		die "cost --attach $A did not attach"
		;;
	esac
}

mode_off()
{
	echo 0 > "$RXQ/rps_flow_cnt"
	echo 0 > "$RXQ/rps_cpus"
	case $1 in
	rfs)
		[ "$(cat "$SFE_FILE")" = 32768 ] && echo "$SFE_ORIG" > "$SFE_FILE"
		SFE_SET=
		;;
	xdp)
		# stats while attached: did it steer?
		"$RFSCTL" --socket "$SOCK" -j stats "$A" > "$WORK/stats.$2.json" 2>/dev/null
		ctl detach "$A" >/dev/null || warn "rfsctl detach $A failed"
		rfsd_stop
		;;
	cpumap)
		stop_pid "$CPUMAP_PID" 5
		ip link show dev "$A" | grep -q 'prog/xdp' &&
			die "an XDP program is still on $A after cost --attach"
		;;
	esac
}

# ---------------------------------------------------------------- workloads

servers_up()
{
	local i p c
	# rr: one server on SRV_CPU (blocking recvfrom, one connection);
	# multi: one server per CPU (0 and 1)
	bg taskset -c "$SRV_CPU" sockperf server --tcp -i "$IP_A" -p "$PORT" \
		>"$WORK/server.0.log" 2>&1
	# several connections per server need epoll, which needs a feed file
	for i in 1 2; do
		p=$((PORT + i))
		c=$((i - 1))
		echo "T:$IP_A:$p" > "$WORK/feed.$i"
		bg taskset -c "$c" sockperf server -f "$WORK/feed.$i" -F e \
			>"$WORK/server.$i.log" 2>&1
	done
	for ((i = 0; i < 50; i++)); do
		ns sockperf ping-pong --tcp -i "$IP_A" -p "$PORT" -t 1 -m "$MSG" \
			>/dev/null 2>&1 && return 0
		sleep 0.2
	done
	die "sockperf server on $IP_A:$PORT does not answer"
}

# Run "$@" under perf stat, counting per CPU the skbs the kernel received
# on $A (net:netif_receive_skb, filtered on the device): "cpu count"
# lines into $WORK/rxcpu, empty without perf.
rx_cpus_during()
{
	: > "$WORK/rxcpu"
	if [ -z "$HAVE_PERF" ]; then
		"$@"
		return
	fi
	perf stat -a -A -x, -e net:netif_receive_skb --filter "name == \"$A\"" \
		-o "$WORK/perf.out" -- "$@"
	awk -F, '/^CPU[0-9]+,/ { v = $2; if (v !~ /^[0-9]+$/) v = 0;
		print substr($1, 4), v }' "$WORK/perf.out" > "$WORK/rxcpu"
}

# sockperf ping-pong output(s) -> "tps p50 p99 max" (µs, full round
# trips), or "bad: why" for a run that did not measure anything.
parse_pp()
{
	python3 - "$@" <<'EOF'
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
print('%.0f %.2f %.2f %.1f' % (sum(tps), p50[len(p50) // 2], max(p99), max(mx)))
EOF
}

run_rr()
{
	rx_cpus_during ip netns exec "$NS" taskset -c "$CLI_CPU" \
		sockperf ping-pong --tcp -i "$IP_A" -p "$PORT" -t "$SECS" \
		-m "$MSG" --full-rtt --no-rdtsc > "$WORK/pp.rr" 2>&1
}

# Clients i = 0..3: to the server on CPU i % 2, pinned to the other CPU,
# as in rr (unpinned, where the scheduler put them swung the rate by 2x
# from one cell to the next, whatever the mode).
run_multi()
{
	local i pids=()
	for i in 0 1 2 3; do
		ns taskset -c $((1 - i % 2)) sockperf ping-pong --tcp -i "$IP_A" \
			-p $((PORT + 1 + i % 2)) -t "$SECS" -m "$MSG" --full-rtt --no-rdtsc \
			> "$WORK/pp.multi.$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i"; done
}

# TCP segments retransmitted so far, both ends: root namespace (server
# side) plus the lab's (client side).  A frame lost anywhere on the path
# (veth ring, cpumap ring, backlog) shows up here, usually as an RTO stall
# of >= 200 ms in the max column.
retrans()
{
	local f='$1 == "Tcp:" { if (!h) { for (i = 1; i <= NF; i++) if ($i == "RetransSegs") c = i; h = 1 } else print $c }'
	echo $(( $(awk "$f" /proc/net/snmp) + $(ns awk "$f" /proc/net/snmp) ))
}

# raw.txt line: round mode workload tps p50 p99 max share retrans, or a "bad"
# line (left out of the summary, listed under it) when sockperf measured
# nothing; the bench goes on either way.
record()
{
	case $4 in
	bad:*)
		warn "round $1 $2 $3: ${4#bad: } (logs in $OUT/logs)"
		echo "$1 $2 $3 bad ${4#bad: }" >> "$OUT/raw.txt"
		;;
	*) echo "$1 $2 $3 $4 $5 $6" >> "$OUT/raw.txt" ;;
	esac
}

# One cell: mode $1, round $2.  Appends to raw.txt; sockperf's own
# output is kept in $OUT/logs/ROUND.MODE.WORKLOAD[.N].
cell()
{
	local m=$1 r=$2 i res share="-" steer="-" t0
	XDP_MODE=
	mode_on "$m"
	t0=$(retrans)
	run_rr
	cp "$WORK/pp.rr" "$OUT/logs/$r.$m.rr"
	res=$(parse_pp "$WORK/pp.rr")
	[ -s "$WORK/rxcpu" ] &&
		share=$(awk -v c="$SRV_CPU" '{ t += $2; if ($1 == c) s = $2 }
			END { if (t) printf "%.0f", 100 * s / t; else print "-" }' "$WORK/rxcpu")
	record "$r" "$m" rr "$res" "$share" $(($(retrans) - t0))
	# cpumap sends every flow to one CPU: no multi-connection cell
	if [ -n "$DO_MULTI" ] && [ "$m" != cpumap ]; then
		t0=$(retrans)
		run_multi
		for i in 0 1 2 3; do
			cp "$WORK/pp.multi.$i" "$OUT/logs/$r.$m.multi.$i"
		done
		record "$r" "$m" multi "$(parse_pp "$WORK"/pp.multi.*)" - \
			$(($(retrans) - t0))
	fi
	mode_off "$m" "$r"
	if [ "$m" = xdp ]; then
		steer=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["total"]
print("%s %.1f%%" % (sys.argv[2], 100.0 * t["steered"] / max(t["seen"], 1)))' \
			"$WORK/stats.$r.json" "$XDP_MODE" 2>/dev/null || echo "?")
		echo "$r xdp-check $steer" >> "$OUT/raw.txt"
	fi
	msg "$m" "round $r: $(awk -v r="$r" -v m="$m" '$1 == r && $2 == m && $4 != "bad" {
		printf "%s %s/s p50 %s p99 %s max %s us rtx %s  ", $3, $4, $5, $6, $7, $9 }' "$OUT/raw.txt")rx on cpu$SRV_CPU $share%${steer:+  xdp $steer}"
}

# Where xdp-rfs's time goes: one more xdp rr run with BPF run-time stats on
# (kernel.bpf_stats_enabled, put back after), then per program of this
# rfsd: runs per transaction and ns per run.  Programs of anyone else on
# the machine (another lab's rfsd) are summed as "others".  Not part of
# the rounds: the stats cost two clock reads per program run.
profile_xdp()
{
	local ids=() f id
	mode_on xdp
	id=$(ctl -j status 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(str(v) for v in d.get("programs", {}).values()))
for i in d["interfaces"]:
    print(i.get("prog_id", ""))')
	read -ra ids <<< "$(echo $id)"
	for f in "$PIN"/v1/links/* "$PIN"/v1/progs/*; do
		[ -e "$f" ] || continue
		id=$(bpftool -j link show pinned "$f" 2>/dev/null ||
		     bpftool -j prog show pinned "$f" 2>/dev/null)
		id=$(echo "$id" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d.get("prog_id", d.get("id", "")))' 2>/dev/null)
		[ -n "$id" ] && ids+=("$id")
	done
	STATS_ORIG=$(cat "$STATS_FILE")
	echo 1 > "$STATS_FILE" && STATS_SET=1
	bpftool -j prog show > "$WORK/progs.0.json"
	ip netns exec "$NS" taskset -c "$CLI_CPU" sockperf ping-pong --tcp \
		-i "$IP_A" -p "$PORT" -t "$SECS" -m "$MSG" --full-rtt --no-rdtsc \
		> "$WORK/pp.prof" 2>&1
	bpftool -j prog show > "$WORK/progs.1.json"
	echo "$STATS_ORIG" > "$STATS_FILE"
	STATS_SET=
	mode_off xdp prof
	python3 - "$WORK/progs.0.json" "$WORK/progs.1.json" "$WORK/pp.prof" \
		"${ids[@]}" > "$OUT/profile.txt" <<'EOF'
import json, re, sys
a = {p['id']: p for p in json.load(open(sys.argv[1]))}
b = {p['id']: p for p in json.load(open(sys.argv[2]))}
t = re.sub(r'\x1b\[[0-9;]*m', '', open(sys.argv[3]).read())
m = re.search(r'\[Total Run\] RunTime=[0-9.]+ sec; Warm up time=\d+ msec; '
              r'SentMessages=\d+; ReceivedMessages=(\d+)', t)
tx = int(m.group(1)) if m else 0
ours = set(int(i) for i in sys.argv[4:] if i.isdigit())
rows = []; other_cnt = other_ns = 0
for i, p in b.items():
    q = a.get(i, {})
    cnt = p.get('run_cnt', 0) - q.get('run_cnt', 0)
    ns = p.get('run_time_ns', 0) - q.get('run_time_ns', 0)
    if cnt <= 0:
        continue
    if i in ours:
        rows.append((p.get('name', '?'), cnt, ns))
    else:
        other_cnt += cnt; other_ns += ns
print('transactions %d' % tx)
for name, cnt, ns in sorted(rows, key=lambda r: -r[2]):
    print('prog %s runs_per_tx %.2f ns_per_run %.0f ns_per_tx %.0f' %
          (name, cnt / max(tx, 1), ns / cnt, ns / max(tx, 1)))
tot = sum(r[2] for r in rows)
print('total ours ns_per_tx %.0f' % (tot / max(tx, 1)))
print('total others runs_per_tx %.2f ns_per_tx %.0f' %
      (other_cnt / max(tx, 1), other_ns / max(tx, 1)))
EOF
	msg PROFILE "$(grep '^total ours' "$OUT/profile.txt")"
}

# ------------------------------------------------------------------- report

summary()
{
	python3 - "$OUT/raw.txt" "$OUT/cost.txt" "$MODES" "$ROUNDS" "$SECS" \
		"$SRV_CPU" "$CLI_CPU" "$1" <<'EOF'
import os, statistics as st, sys
raw, costf, modes, rounds, secs, srv, cli, took = sys.argv[1:9]
modes = modes.split()
cells = {}            # (workload, mode) -> {round: (tps, p50, p99, share, max)}
checks = []
bad = []
for line in open(raw):
    f = line.split()
    if f[1] == 'xdp-check':
        checks.append(' '.join(f[2:]))
        continue
    r, m, w = int(f[0]), f[1], f[2]
    if f[3] == 'bad':
        bad.append('round %d %s %s: %s' % (r, m, w, ' '.join(f[4:])))
        continue
    share = None if f[7] == '-' else float(f[7])
    cells.setdefault((w, m), {})[r] = (float(f[3]), float(f[4]), float(f[5]),
                                       share, float(f[6]), int(f[8]))

def spread(v, fmt='%.0f'):
    if not v:
        return '-'
    return (fmt + ' (' + fmt + '–' + fmt + ')') % (st.median(v), min(v), max(v))

out = []
out.append('xdp-rfs bench: %s rounds x %s modes, %s s per sockperf run, '
           'order rotated per round; took %s s' % (rounds, len(modes), secs, took))
out.append('median (min–max) over rounds; "vs base" is the ratio to the '
           'baseline of the same round')
out.append('')
wl = [w for w in ('rr', 'multi') if any(k[0] == w for k in cells)]
titles = {
    'rr': 'rr: 1 TCP connection, sockperf ping-pong %s B, server on CPU %s, client on CPU %s',
    'multi': 'multi: 4 TCP connections, servers on CPU 0 and CPU 1 (2 each), each client on the other CPU',
}
for w in wl:
    out.append('### ' + (titles[w] % ('64', srv, cli) if w == 'rr' else titles[w]))
    out.append('')
    hdr = '| mode | transactions/s | vs base | p50 RTT µs | p50 vs base | p99 RTT µs | p99 vs base | max RTT µs | TCP retrans, all rounds |'
    if w == 'rr':
        hdr += ' requests rx on CPU %s |' % srv
    out.append(hdr)
    out.append('|' + '---|' * (hdr.count('|') - 1))
    base = cells.get((w, 'base'), {})
    for m in modes:
        c = cells.get((w, m), {})
        if not c:
            continue
        rs = sorted(c)
        tps = [c[r][0] for r in rs]
        p50 = [c[r][1] for r in rs]
        p99 = [c[r][2] for r in rs]
        rt = [c[r][0] / base[r][0] for r in rs if r in base]
        r50 = [c[r][1] / base[r][1] for r in rs if r in base]
        r99 = [c[r][2] / base[r][2] for r in rs if r in base]
        mx = [c[r][4] for r in rs]
        row = '| %s | %s | %s | %s | %s | %s | %s | %s | %d |' % (
            m, spread(tps), spread(rt, '%.2f'), spread(p50, '%.1f'),
            spread(r50, '%.2f'), spread(p99, '%.1f'), spread(r99, '%.2f'),
            spread(mx), sum(c[r][5] for r in rs))
        if w == 'rr':
            sh = [c[r][3] for r in rs if c[r][3] is not None]
            row += ' %s |' % (spread(sh) + ' %' if sh else '-')
        out.append(row)
    out.append('')
if bad:
    out.append('left out (sockperf measured nothing): ' + '; '.join(bad))
    out.append('')
if checks:
    out.append('xdp-rfs attach mode and share of frames steered, per round: ' +
               '; '.join(checks))
    out.append('')
if os.path.exists(costf) and os.path.getsize(costf):
    s = {}
    for line in open(costf):
        f = line.split()
        if f and f[0] == 'summary':
            s[(f[1], f[2])] = (float(f[4]), float(f[6]), float(f[8]))
    def c3(k, fmt='%.0f'):
        v = s.get(k)
        return (fmt + ' (' + fmt + '–' + fmt + ')') % v if v else '-'
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
proff = os.path.join(os.path.dirname(raw), 'profile.txt')
if os.path.exists(proff) and os.path.getsize(proff):
    lines = open(proff).read().split('\n')
    out.append('### where xdp-rfs spends BPF time in rr (one extra run, kernel.bpf_stats_enabled)')
    out.append('')
    out.append('| program | runs per transaction | ns per run | ns per transaction |')
    out.append('|---|---|---|---|')
    for l in lines:
        f = l.split()
        if f and f[0] == 'prog':
            out.append('| %s | %s | %s | %s |' % (f[1], f[3], f[5], f[7]))
        elif f[:2] == ['total', 'ours']:
            out.append('| all of this rfsd | | | %s |' % f[3])
        elif f[:2] == ['total', 'others']:
            out.append("| anyone else's BPF programs (other labs) | %s | | %s |" % (f[3], f[5]))
    out.append('')
print('\n'.join(out))
EOF
}

# --------------------------------------------------------------------- main

[ "$(id -u)" -eq 0 ] || die "must run as root"
for c in ip ethtool taskset sockperf python3 awk; do
	command -v "$c" >/dev/null 2>&1 || die "'$c' is not installed (make deps)"
done
for f in "$RFSD" "$RFSCTL"; do
	[ -x "$f" ] || die "$f is not built (make)"
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"
for m in $MODES; do
	case $m in
	base|rps|rfs|xdp|cpumap) ;;
	*) die "unknown mode '$m' (base rps rfs xdp cpumap)" ;;
	esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] && [[ $SECS =~ ^[1-9][0-9]*$ ]] ||
	die "--rounds and --seconds take whole numbers >= 1"
case " $MODES " in
*" cpumap "*) [ -x "$COST" ] || die "$COST is not built (make $COST)" ;;
esac
# the per-CPU receive check needs perf and the tracepoint; without them
# the bench runs, with "-" in that column
HAVE_PERF=
perf stat -a -e net:netif_receive_skb -o /dev/null -- true >/dev/null 2>&1 &&
	HAVE_PERF=1
SFE_ORIG=$(cat "$SFE_FILE")

mkdir -p "$OUT" || die "can't create $OUT"
: > "$OUT/raw.txt"
: > "$OUT/cost.txt"
rm -rf "$OUT/logs" && mkdir -p "$OUT/logs" || die "can't create $OUT/logs"
: > "$OUT/profile.txt"
lab_up
msg LAB "$A <-> $NS/$B, $IP_A/$IP_B, $NCPU CPUs, rounds $ROUNDS x ${SECS}s"

if [ -n "$DO_COST" ]; then
	if [ -x "$COST" ]; then
		msg COST "$COST --runs 7"
		"$COST" --runs 7 --pin-dir "$PIN-cost" > "$OUT/cost.txt" ||
			warn "cost failed; no cost table"
	else
		warn "$COST is not built (make $COST); no cost table"
	fi
fi

servers_up
read -ra M <<< "$MODES"
for ((r = 1; r <= ROUNDS; r++)); do
	for ((k = 0; k < ${#M[@]}; k++)); do
		cell "${M[(k + r - 1) % ${#M[@]}]}" "$r"
	done
done

case " $MODES " in
*" xdp "*) command -v bpftool >/dev/null 2>&1 && profile_xdp ;;
esac

TOOK=$(elapsed)
{
	echo "command: $0 --rounds $ROUNDS --seconds $SECS --modes '$MODES'"
	echo "kernel: $(uname -r), $(nproc) CPUs; lab $A/$B $IP_A/$IP_B"
	echo
	summary "$TOOK"
	echo "raw cells (round mode workload tps p50 p99 max share% retrans): $OUT/raw.txt"
	echo "sockperf logs: $OUT/logs/; cost runs: $OUT/cost.txt"
} > "$OUT/results.txt"
summary "$TOOK"
msg DONE "$OUT/results.txt (${TOOK}s)"
