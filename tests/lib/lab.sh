# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The lab of the integration tests and of the demo; sourced, never run.
#
#   root namespace                           namespace rfsns$$
#   rfsA$$  198.18.N.1/24  2001:db8:N::1/64  <-veth->  rfsB$$  198.18.N.2/24
#                                                              2001:db8:N::2/64
#
# The subnet is one /24 of the benchmarking range 198.18.0.0/15 (RFC 2544)
# and one /64 of the documentation prefix 2001:db8::/32, N picked from the
# PID and skipped past while the root namespace already routes it: the
# addresses live in the root namespace, so two labs (or the host: on some
# machines eth0 sits in 192.0.2.0/24 with its gateway at 192.0.2.1) must
# never share a subnet.  LAB_NET4=a.b.c LAB_NET6=2001:db8:x:: force one.
# While the lab is up, an "unreachable" route of high metric covers both
# subnets: a segment still in flight when a lab link is deleted can never
# fall through to the default route.
#
# rfsd runs in the root namespace (ip netns exec would hide bpffs from it)
# and is attached to rfsA$$: what a client in rfsns$$ sends arrives there,
# so a server in the root namespace bound to $LAB_IP4_A is what gets
# steered.  Every name carries the PID of the sourcing shell, so parallel
# runs and other people's labs never meet, and nothing outside the lab is
# ever touched: no interface but the ones made here, no process but the
# ones started here (ended by recorded PID), no traffic but to the lab
# addresses.
#
# The oracle: which CPU ran the network stack for each frame of the lab
# interface is told by the kernel itself, independently of xdp-rfs's
# counters, through the tracepoint net:netif_receive_skb filtered on the
# skb's device name.  It fires in __netif_receive_skb_core() for every skb
# the stack takes in, on the CPU doing the work, whichever way the frame
# came: passed up by rfs_xdp on the RX CPU (the local path: the veth's NAPI
# poll), redirected through the cpumap (the target CPU's cpumap kthread
# builds the skb with dev = the interface the frame arrived on), or not
# steered at all.  It counts skbs after GRO: a TCP skb merged from n
# segments counts once.  cpu_frames counts it per CPU with perf stat -A
# (exact counters in the kernel, nothing to overrun at any rate) or,
# without perf, from events recorded in a tracefs instance of our own
# (instances/rfslab$$, removed by lab_down); lab_rx_trace_* record them
# with timestamps, to time a move.  The tracepoint before the local path
# existed, xdp:xdp_cpumap_kthread, sees the cpumap path only (a frame
# passed up locally never reaches a kthread); lab_cpumap_frames still
# reads it, for a test about that path alone.  /proc/softirqs NET_RX is
# no oracle here: the cpumap kthread hands frames to the stack without
# raising NET_RX, and the veth NAPI that does raise it runs on the
# sender's CPU.
#
# Usage:
#	. tests/lib/lab.sh
#	trap lab_down EXIT INT TERM		(lab_trap does this)
#	lab_up && lab_start_rfsd
#	ctl attach "$LAB_A"; ctlj status | jget 'd["interfaces"][0]["name"]'
#	lab_set /proc/sys/net/core/rps_sock_flow_entries 32768	(put back
#		by lab_restore, and by lab_down on every exit path)
#
# bench/run.sh runs on this lab too.

LAB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAB_BUILD=${RFS_BUILD:-build}	# tests/run.sh exports RFS_BUILD
[[ $LAB_BUILD == /* ]] || LAB_BUILD=$LAB_TOP/$LAB_BUILD
RFSD=${RFSD:-$LAB_BUILD/rfsd}
RFSCTL=${RFSCTL:-$LAB_BUILD/rfsctl}
if [ -z "${LAB_PY:-}" ]; then
	if [ -x /usr/bin/python3 ]; then LAB_PY=/usr/bin/python3
	else LAB_PY=$(command -v python3 || echo python3); fi
fi

LAB_ID=${LAB_ID:-$$}
LAB_NS=rfsns$LAB_ID
LAB_A=rfsA$LAB_ID		# root side: rfsd attaches here
LAB_B=rfsB$LAB_ID		# in $LAB_NS: the clients send from here
LAB_X=rfsX$LAB_ID		# spare pair (lab_veth), root side
LAB_Y=rfsY$LAB_ID		# its peer, in $LAB_NS
LAB_NET_FIXED=${LAB_NET4:+1}
LAB_QUEUES=${LAB_QUEUES:-1}	# veth queues (lab_veth)
LAB_DIR=/tmp/rfs-lab-$LAB_ID
RFS_SOCK=$LAB_DIR/rfsd.sock
RFS_PIN=/sys/fs/bpf/rfs-test-$LAB_ID
# its versioned layout (RFS_PIN_LAYOUT in include/rfs_common.h)
LAB_PIN_LAYOUT=$(sed -n 's/^#define[[:space:]]*RFS_PIN_LAYOUT[[:space:]]*"\(.*\)"/\1/p' \
	"$LAB_TOP/include/rfs_common.h" 2>/dev/null)
RFS_PIN_V=$RFS_PIN/${LAB_PIN_LAYOUT:?}
RFSD_LOG=$LAB_DIR/rfsd.log
RFSD_PID=
LAB_PIDS=()			# "pid:starttime" of everything started here
LAB_LINKS=()			# root-namespace links made here
LAB_IFINDEXES=()		# and their ifindexes
LAB_ROUTES=()			# unreachable routes made here
LAB_NS_MADE=
LAB_BG_PID=
LAB_SETTINGS=()			# "path<TAB>original<TAB>as written" (lab_set)

# Is the /24 $1 (a.b.c) or the /64 $2 (prefix::) routed or addressed in
# the root namespace?
lab_net_used()
{
	local n4=${1//./\\.} n6=${2%::}
	ip -4 route show table all 2>/dev/null |
		grep -Eq "^(unreachable |local |broadcast )?$n4\." && return 0
	ip -4 addr show 2>/dev/null | grep -q "inet $n4\." && return 0
	ip -6 route show table all 2>/dev/null |
		grep -Eqi "^(unreachable |local )?$n6:" && return 0
	return 1
}

# Pick the lab's subnets: LAB_NET4 (a.b.c) and LAB_NET6 (prefix::).
lab_pick_net()
{
	local i n
	if [ -z "$LAB_NET_FIXED" ]; then
		for ((i = 0; i < 512; i++)); do
			n=$(((LAB_ID + i) % 512))
			LAB_NET4=198.$((18 + n / 256)).$((n % 256))
			LAB_NET6=2001:db8:$(printf '%x' $((0x100 + n)))::
			lab_net_used "$LAB_NET4" "$LAB_NET6" || break
		done
	fi
	LAB_NET6=${LAB_NET6:-2001:db8:ff::}
	LAB_IP4_A=$LAB_NET4.1
	LAB_IP4_B=$LAB_NET4.2
	LAB_IP6_A=${LAB_NET6}1
	LAB_IP6_B=${LAB_NET6}2
}
lab_pick_net

# ---------------------------------------------------------------- messages

lab_msg() { printf '%s\n' "$*"; }
lab_warn() { printf 'WARN: %s\n' "$*" >&2; }

# Exit code 249: the test could not run here (xdp-tools' test_runner).
LAB_SKIP=249
skip()
{
	printf 'SKIP: %s\n' "$*" >&2
	exit $LAB_SKIP
}

# A failed check: say why, then leave (the EXIT trap cleans up).  Tests run
# each test_* function in its own subshell, so this ends that test only.
fail()
{
	local hook=${LAB_ON_FAIL:-}
	printf 'FAIL: %s\n' "$*" >&2
	# a test's own account of what it failed on (once: the hook may fail)
	if [ -n "$hook" ]; then
		LAB_ON_FAIL=
		printf -- '--- %s ---\n' "$hook" >&2
		"$hook" >&2 2>&1 || true
	fi
	if [ -s "$RFSD_LOG" ]; then
		# rfsd's own lines but the tests' own control requests (which
		# would crowd out what rfsd did); -v adds libbpf's and libxdp's
		printf -- '--- rfsd log (last %d lines, libbpf/libxdp and control requests left out) ---\n' \
			"${LAB_LOG_LINES:-12}" >&2
		grep -v -e '^rfsd: lib\(bpf\|xdp\): ' \
			-e '^rfsd: control client ' -e '^rfsd: request from uid ' \
			"$RFSD_LOG" | tail -n "${LAB_LOG_LINES:-12}" >&2
	fi
	exit 1
}

lab_require_root()
{
	[ "$(id -u)" -eq 0 ] || skip "must run as root"
}

# Skip unless every named command exists.
lab_need()
{
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "'$c' is not installed (make deps)"
	done
}

lab_need_bins()
{
	[ -x "$RFSD" ] || skip "$RFSD is not built (make)"
	[ -x "$RFSCTL" ] || skip "$RFSCTL is not built (make)"
}

# Seconds since the epoch, with fractions, for durations.
lab_now() { date +%s.%N; }
lab_since() { awk -v a="$1" -v b="$(lab_now)" 'BEGIN { printf "%.1f", b - a }'; }

# ------------------------------------------------------------- processes

# Start "$@" in the background and record it; its PID is in LAB_BG_PID.
# Use exec-style wrappers only (taskset, ip netns exec, setpriv), so the
# recorded PID is the real process.
lab_bg()
{
	"$@" &
	LAB_BG_PID=$!
	LAB_PIDS+=("$LAB_BG_PID:$(lab_starttime "$LAB_BG_PID")")
}

# $2... in the background (lab_bg), its output in $1, until it prints a
# line starting "attached" (5 s at most): 0 with its PID in LAB_BG_PID,
# else 1, stopped.  bench/cost --attach says so once its program is on.
lab_bg_attached()
{
	local out=$1 i
	shift
	lab_bg "$@" > "$out" 2>&1
	for ((i = 0; i < 50; i++)); do
		grep -q '^attached' "$out" && return 0
		lab_alive "$LAB_BG_PID" || break
		sleep 0.1
	done
	lab_kill "$LAB_BG_PID" TERM 5
	return 1
}

# lab_bg inside the namespace.
lab_bg_ns()
{
	lab_bg ip netns exec "$LAB_NS" "$@"
}

# Field 22 of /proc/PID/stat: tells a recorded PID from a reused one.
lab_starttime()
{
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	s=${s##*) }
	# shellcheck disable=SC2086	# split into fields on purpose
	set -- $s
	echo "${20}"
}

# Is PID one of ours and still the same process?
lab_is_ours()
{
	local e
	for e in "${LAB_PIDS[@]}"; do
		[ "${e%%:*}" = "$1" ] || continue
		[ -d "/proc/$1" ] || return 1
		[ "${e#*:}" = "$(lab_starttime "$1")" ] && return 0
		return 1
	done
	return 1
}

lab_alive()
{
	lab_is_ours "$1" || return 1
	# a zombie is dead
	[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# Wait up to $2 tenths of a second (default 50) for a TCP socket of this
# namespace to listen on port $1; 1 if none did.
lab_wait_listen()
{
	local i
	for ((i = 0; i < ${2:-50}; i++)); do
		ss -Htln "( sport = :$1 )" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# Wait up to $2 seconds (default 10) for PID $1 to exit; its exit code is
# returned when it is our child, 0 otherwise.  124 on timeout.
lab_wait()
{
	local pid=$1 t=${2:-10} i rc=0
	for ((i = 0; i < t * 10; i++)); do
		lab_alive "$pid" || break
		sleep 0.1
	done
	lab_alive "$pid" && return 124
	wait "$pid" 2>/dev/null || rc=$?
	# 127: not our child (started in another subshell), nothing to reap
	[ $rc -eq 127 ] && rc=0
	return $rc
}

# Numbered UDP (tests/tools/rfs_seq.c) from $LAB_NS to the root namespace
# for $2 seconds at $3 datagrams/s on port pair $1; the receiver listens
# $4 seconds longer (default 3).  Results in $LAB_DIR/seq.{recv,send}.$1.
lab_seq_start()
{
	local port=$1 secs=$2 pps=$3 extra=${4:-3} seq=$LAB_BUILD/tests/rfs_seq i
	lab_bg "$seq" recv "$LAB_IP4_A" "$port" "$LAB_IP4_B" $((port + 1000)) \
		$((secs + extra)) > "$LAB_DIR/seq.recv.$port"
	LAB_SEQ_RECV_PID=$LAB_BG_PID
	for ((i = 0; i < 50; i++)); do
		ss -Huan "( sport = :$port )" | grep -q . && break
		sleep 0.1
	done
	lab_bg_ns "$seq" send "$LAB_IP4_B" $((port + 1000)) "$LAB_IP4_A" "$port" \
		"$secs" "$pps" > "$LAB_DIR/seq.send.$port" 2>&1
	LAB_SEQ_SEND_PID=$LAB_BG_PID
}

# Wait for the pair lab_seq_start began on port $1; SEQ_RESULT="sent
# received inversions lost".
lab_seq_result()
{
	local port=$1 rc=0
	lab_wait "$LAB_SEQ_SEND_PID" 60 || rc=$?
	[ $rc -eq 0 ] || fail "rfs_seq send failed (exit $rc): $(cat "$LAB_DIR/seq.send.$port")"
	lab_wait "$LAB_SEQ_RECV_PID" 60 || fail "rfs_seq recv failed"
	# shellcheck disable=SC2034	# read by the test that called this
	SEQ_RESULT=$(cat "$LAB_DIR/seq.send.$port" "$LAB_DIR/seq.recv.$port" | "$LAB_PY" -c '
import json, sys
d = {}
for line in sys.stdin:
    d.update(json.loads(line))
print(d["sent"], d["received"], d["inversions"], d["lost"])') ||
		fail "can't read the rfs_seq results"
}

# Send signal $2 (default TERM) to PID $1 if it is ours and alive.
lab_signal()
{
	lab_alive "$1" && kill -"${2:-TERM}" "$1" 2>/dev/null
	return 0
}

# Send signal $2 (default TERM) to a recorded PID, wait up to $3 seconds
# (default 5), then KILL it.  Never touches a PID not recorded here.
lab_kill()
{
	local pid=$1 sig=${2:-TERM} t=${3:-5}
	lab_is_ours "$pid" || return 0
	kill -"$sig" "$pid" 2>/dev/null
	if ! lab_wait "$pid" "$t" && lab_alive "$pid"; then
		kill -KILL "$pid" 2>/dev/null
		lab_wait "$pid" 2 || true
	fi
	return 0
}

# Move every thread of PID $1 to CPU list $2.
lab_pin()
{
	taskset -a -pc "$2" "$1" >/dev/null || fail "can't move PID $1 to CPU $2"
}

lab_nr_cpus()
{
	nproc --all
}

# The online CPUs, one per line.
lab_online_cpus()
{
	local ranges a b
	IFS=, read -ra ranges < /sys/devices/system/cpu/online
	for a in "${ranges[@]}"; do
		b=${a#*-}
		a=${a%-*}
		seq "$a" "$b"
	done
}

# ------------------------------------------------------------------- lab

# The helper programs: tiny Python clients and servers with bounded run
# times, written once per lab into $LAB_DIR/rfslab.py.
lab_write_py()
{
	cat > "$LAB_DIR/rfslab.py" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
# Lab workloads: echo server, request/response client, bulk sink/source.
# Every mode ends by itself (--seconds / --timeout).
import argparse, json, os, selectors, signal, socket, struct, sys, time

def fam_of(addr):
    return socket.AF_INET6 if ':' in addr else socket.AF_INET

def ready(path):
    if path:
        with open(path + '.tmp', 'w') as f:
            f.write('%d\n' % os.getpid())
        os.rename(path + '.tmp', path)

def listener(a):
    fam = socket.AF_INET6 if (a.v6only is not None or ':' in a.bind) \
        else socket.AF_INET
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6 and a.v6only is not None:
        ls.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, a.v6only)
    ls.bind((a.bind, a.port))
    ls.listen(64)
    return ls

def server(a):
    # echo server: one thread, every connection in one selector
    if a.cpu is not None:
        os.sched_setaffinity(0, {a.cpu})
    ls = listener(a)
    ls.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ)
    ready(a.ready)
    end = time.monotonic() + a.timeout
    while time.monotonic() < end:
        for key, _ in sel.select(timeout=0.5):
            s = key.fileobj
            if s is ls:
                try:
                    c, _ = ls.accept()
                except BlockingIOError:
                    continue
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sel.register(c, selectors.EVENT_READ)
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b''
            if not data:
                sel.unregister(s)
                s.close()
                continue
            try:
                s.sendall(data)
            except OSError:
                sel.unregister(s)
                s.close()

def rr(a):
    # request/response: each connection sends --size bytes and waits for
    # them to come back, round robin, for --seconds
    conns = []
    for _ in range(a.conns):
        c = socket.create_connection((a.addr, a.port), timeout=5)
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conns.append(c)
    msg = b'x' * a.size
    n = 0
    end = time.monotonic() + a.seconds
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    while time.monotonic() < end and not stop:
        for c in conns:
            c.sendall(msg)
            got = 0
            while got < a.size:
                d = c.recv(a.size - got)
                if not d:
                    raise SystemExit('rr: server closed the connection')
                got += len(d)
            n += 1
    for c in conns:
        c.close()
    print(json.dumps({'round_trips': n}))

# struct tcp_info (linux/tcp.h): tcpi_rcv_ooopack is the __u32 at 224,
# tcpi_bytes_received the __u64 at 128.
def tcp_info(s):
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    r = {'bytes_received': struct.unpack_from('=Q', b, 128)[0]}
    r['rcv_ooopack'] = struct.unpack_from('=I', b, 224)[0] \
        if len(b) >= 228 else None
    return r

def sink(a):
    # bulk receiver: one connection, read to EOF, then report how many
    # segments arrived out of order (TCP_INFO) into --out
    if a.cpu is not None:
        os.sched_setaffinity(0, {a.cpu})
    ls = listener(a)
    ls.settimeout(a.timeout)
    ready(a.ready)
    c, peer = ls.accept()
    c.settimeout(a.timeout)
    end = time.monotonic() + a.timeout
    total = 0
    while time.monotonic() < end:
        d = c.recv(1 << 18)
        if not d:
            break
        total += len(d)
    r = tcp_info(c)
    r['bytes'] = total
    r['peer'] = peer[:2]
    c.close()
    with open(a.out, 'w') as f:
        json.dump(r, f)

def bulk(a):
    c = socket.create_connection((a.addr, a.port), timeout=5)
    if a.rate:
        # TCP's own pacing (no fq needed): no burst overflows a ring, so
        # whatever arrives out of order was reordered, not lost
        c.setsockopt(socket.SOL_SOCKET, 47, a.rate)  # SO_MAX_PACING_RATE
    buf = b'y' * 65536
    end = time.monotonic() + a.seconds
    n = 0
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    while time.monotonic() < end and not stop:
        c.sendall(buf)
        n += len(buf)
    c.shutdown(socket.SHUT_WR)
    c.settimeout(10)
    while c.recv(4096):
        pass
    b = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    c.close()
    # tcpi_total_retrans at 100, tcpi_reord_seen at 220
    print(json.dumps({'bytes_sent': n,
                      'total_retrans': struct.unpack_from('=I', b, 100)[0],
                      'reord_seen': struct.unpack_from('=I', b, 220)[0]
                      if len(b) >= 224 else None}))

p = argparse.ArgumentParser()
p.add_argument('mode', choices=['server', 'rr', 'sink', 'bulk'])
p.add_argument('--bind', default='0.0.0.0')
p.add_argument('--addr')
p.add_argument('--port', type=int, default=5201)
p.add_argument('--v6only', type=int)
p.add_argument('--cpu', type=int)
p.add_argument('--ready')
p.add_argument('--out')
p.add_argument('--conns', type=int, default=1)
p.add_argument('--size', type=int, default=64)
p.add_argument('--seconds', type=float, default=5)
p.add_argument('--rate', type=int, default=0, help='bytes/s, bulk only')
p.add_argument('--timeout', type=float, default=120)
a = p.parse_args()
{'server': server, 'rr': rr, 'sink': sink, 'bulk': bulk}[a.mode](a)
EOF
}

lab_init()
{
	[ -d "$LAB_DIR" ] && return 0
	mkdir -p "$LAB_DIR" || fail "can't create $LAB_DIR"
	chmod 0755 "$LAB_DIR"	# non-root callers reach the socket (and get EACCES there)
	: > "$LAB_DIR/rfsd.conf"	# never the host's /etc/rfs/rfsd.conf
	lab_write_py
}

lab_ns() { ip netns exec "$LAB_NS" "$@"; }

# A veth pair: $1 in the root namespace, $2 in $LAB_NS (made if needed).
lab_veth()
{
	local a=$1 b=$2
	# One queue each way, like a single-queue NIC: a flow's frames then
	# share one ring and one NAPI, in order, wherever the sender runs.
	# (With a queue per CPU a sender that migrates spreads one flow over
	# two rings polled on two CPUs: reordered before XDP ever sees it.)
	ip link add "$a" numtxqueues "$LAB_QUEUES" numrxqueues "$LAB_QUEUES" \
		type veth peer name "$b" netns "$LAB_NS" \
		numtxqueues "$LAB_QUEUES" numrxqueues "$LAB_QUEUES" ||
		return 1
	LAB_LINKS+=("$a")
	LAB_IFINDEXES+=("$(cat "/sys/class/net/$a/ifindex")")
	ip link set dev "$a" up || return 1
	lab_ns ip link set dev "$b" up || return 1
	# Native XDP redirect turns the frame into an xdp_frame and the
	# partial checksum of a veth skb is lost on the way: with TX
	# checksum offload on, every redirected TCP segment is dropped.
	lab_ns ethtool -K "$b" tx off >/dev/null 2>&1 || return 1
	ethtool -K "$a" tx off >/dev/null 2>&1 || return 1
}

lab_up()
{
	lab_require_root
	lab_need ip ethtool taskset "$LAB_PY"
	[ -d /sys/fs/bpf ] || skip "no /sys/fs/bpf"
	lab_init
	lab_pick_net
	lab_net_used "$LAB_NET4" "$LAB_NET6" &&
		fail "lab subnets $LAB_NET4.0/24 $LAB_NET6/64 are in use in the root namespace"
	ip netns add "$LAB_NS" || fail "can't create netns $LAB_NS"
	LAB_NS_MADE=1
	lab_ns ip link set dev lo up
	lab_veth "$LAB_A" "$LAB_B" || fail "can't create veth $LAB_A/$LAB_B"
	# the safety net: never the default route for the lab's subnets
	ip route add unreachable "$LAB_NET4.0/24" metric 4000 &&
		LAB_ROUTES+=("$LAB_NET4.0/24")
	ip -6 route add unreachable "$LAB_NET6/64" metric 4000 &&
		LAB_ROUTES+=("$LAB_NET6/64")
	ip addr add "$LAB_IP4_A/24" dev "$LAB_A" &&
	ip -6 addr add "$LAB_IP6_A/64" dev "$LAB_A" nodad &&
	lab_ns ip addr add "$LAB_IP4_B/24" dev "$LAB_B" &&
	lab_ns ip -6 addr add "$LAB_IP6_B/64" dev "$LAB_B" nodad ||
		fail "can't address $LAB_A/$LAB_B"
	lab_trace_instance || true	# for lab_rx_trace_*; perf otherwise
	lab_ns ping -c 1 -W 2 "$LAB_IP4_A" >/dev/null 2>&1 ||
		fail "lab: $LAB_IP4_A does not answer from $LAB_NS"
	lab_ns ping -6 -c 1 -W 2 "$LAB_IP6_A" >/dev/null 2>&1 ||
		fail "lab: $LAB_IP6_A does not answer from $LAB_NS"
}

# Give the sending peer $1 (in $LAB_NS) a qdisc: when the ring of the
# receiving veth is full (it has one once an XDP program is attached,
# 256 frames per queue, drained by NAPI), veth then stops the queue and
# the qdisc holds the packet until NAPI has made room (Linux 6.16+),
# where with noqueue (veth's default) it drops it.  A NIC's sender is
# paced by the wire and never loses a frame that way; a TCP sender that
# outruns the receiving CPU's NAPI should not either.
lab_ns_backpressure()
{
	lab_ns tc qdisc replace dev "$1" root pfifo limit 1000 ||
		fail "can't give $1 a qdisc"
}

# Keep the RX CPU of a bulk sender in $LAB_NS on CPU $1 ("" puts it
# back): veth polls $LAB_A on the CPU that transmits into $LAB_B, and a
# sender's TCP transmits where it processes ACKs, so RPS on $LAB_B's
# receive side keeps that on CPU $1 (one RX CPU per flow, as a NIC
# queue's interrupt gives; else the flow's RX CPU follows the ACKs to the
# receiver's CPU and back).
lab_sender_rx_cpu()
{
	local mask=0
	[ -z "$1" ] || mask=$(printf '%x' $((1 << $1)))
	lab_ns sh -c "echo $mask > /sys/class/net/$LAB_B/queues/rx-0/rps_cpus" ||
		fail "can't set RPS on $LAB_B"
}

# The spare pair, for tests that need a second interface.
lab_up_spare()
{
	lab_veth "$LAB_X" "$LAB_Y" || fail "can't create veth $LAB_X/$LAB_Y"
}

lab_has_link() { ip link show dev "$1" >/dev/null 2>&1; }

# The id of the XDP program on $1 (in netns $2 if given), empty if none.
lab_xdp_id()
{
	local out
	if [ -n "${2:-}" ]; then
		out=$(ip -n "$2" -d link show dev "$1" 2>/dev/null)
	else
		out=$(ip -d link show dev "$1" 2>/dev/null)
	fi
	sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' <<< "$out" | head -1
}

# --------------------------------------------------------------- rfsd

ctl() { "$RFSCTL" --socket "$RFS_SOCK" "$@"; }
ctlj() { "$RFSCTL" --socket "$RFS_SOCK" -j "$@"; }

# Start rfsd in the foreground (in the background of this shell), logging
# to $RFSD_LOG; wait up to $LAB_RFSD_WAIT seconds (default 15) for status
# to answer.  Extra arguments go to rfsd.
lab_start_rfsd()
{
	local i t=${LAB_RFSD_WAIT:-15}
	lab_need_bins
	lab_init
	lab_bg "$RFSD" --socket "$RFS_SOCK" --pin-dir "$RFS_PIN" \
		--config "$LAB_DIR/rfsd.conf" -v "$@" >>"$RFSD_LOG" 2>&1
	RFSD_PID=$LAB_BG_PID
	for ((i = 0; i < t * 10; i++)); do
		lab_alive "$RFSD_PID" ||
			LAB_LOG_LINES=20 fail "rfsd exited while starting (its log below)"
		ctl status >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	LAB_LOG_LINES=20 fail "rfsd did not answer status within ${t}s"
}

# Stop rfsd with signal $1 (default TERM); fail if it takes longer than
# $2 seconds (default 10).  Its exit code is in LAB_RFSD_RC.
# A test's usual start: the lab up, rfsd running, attached to the
# root-side veth with extra attach args; torn down on every exit.
lab_up_attached()
{
	lab_trap
	lab_up
	lab_start_rfsd
	ctl attach "$LAB_A" "$@" >/dev/null ||
		fail "rfsctl attach $LAB_A $* failed"
}

# Wait up to $2 seconds (default 5) for a line of rfsd's log to match
# $1 (a grep basic regex); 1 if none did.
lab_wait_log()
{
	local pat=$1 t=${2:-5} i
	for ((i = 0; i < t * 10; i++)); do
		grep -q -- "$pat" "$RFSD_LOG" && return 0
		sleep 0.1
	done
	return 1
}

lab_stop_rfsd()
{
	local sig=${1:-TERM} t=${2:-10}
	LAB_RFSD_RC=
	[ -n "$RFSD_PID" ] || return 0
	lab_is_ours "$RFSD_PID" || { RFSD_PID=; return 0; }
	kill -"$sig" "$RFSD_PID" 2>/dev/null
	LAB_RFSD_RC=0
	lab_wait "$RFSD_PID" "$t" || LAB_RFSD_RC=$?
	if [ "$LAB_RFSD_RC" = 124 ]; then
		kill -KILL "$RFSD_PID" 2>/dev/null
		lab_wait "$RFSD_PID" 2 || true
		RFSD_PID=
		fail "rfsd did not exit within ${t}s of SIG$sig"
	fi
	RFSD_PID=
}

lab_rfsd_alive()
{
	[ -n "$RFSD_PID" ] && lab_alive "$RFSD_PID"
}

# JSON: evaluate a Python expression on the document read from stdin (d);
# strings are printed bare, everything else as JSON.
jget()
{
	"$LAB_PY" -c '
import json, sys
d = json.load(sys.stdin)
r = eval(sys.argv[1])
print(r if isinstance(r, str) else json.dumps(r))' "$1"
}

# The interface object of $1 in status, or "null".
lab_if_status()
{
	ctlj status | jget "next((i for i in d['interfaces'] if i['name'] == '$1'), None)"
}

# One total counter of `stats $1`: lab_stat IFACE KEY
lab_stat()
{
	ctlj stats "$1" | jget "d['total']['$2']"
}

# The id of this rfsd's cpumap (to filter lab_cpumap_frames), empty if
# unknown.
lab_cpumap_id()
{
	bpftool -j map show pinned "$RFS_PIN_V/maps/rfs_cpu_map" 2>/dev/null |
		jget 'd["id"]' 2>/dev/null
}

# ------------------------------------------------------------ the oracle

# The tracefs filter of the oracle: frames of device $1 (default $LAB_A),
# and expression $2 over the event's fields (skbaddr, len) if given.
lab_rx_filter()
{
	local f="name == \"${1:-$LAB_A}\""
	[ -n "${2:-}" ] && f="$f && ($2)"
	echo "$f"
}

# The oracle: per-CPU counts of the skbs the stack received on device $2
# (default $LAB_A) over $1 seconds, "cpu n" lines for every online CPU.
# $3: an extra filter on the event's fields, e.g. "len == 36" (an IPv4
# UDP datagram of 8 bytes: skb->len counts from the IP header here).
lab_rx_cpus()
{
	local secs=$1 dev=${2:-$LAB_A} filt
	filt=$(lab_rx_filter "$dev" "${3:-}")
	if [ -z "${LAB_NO_PERF:-}" ] && command -v perf >/dev/null 2>&1; then
		lab_rx_cpus_perf "$secs" "$filt"
	elif lab_trace_instance; then
		lab_rx_cpus_tracefs "$secs" "$filt"
	else
		fail "no oracle: neither perf nor a tracefs instance"
	fi
}

lab_rx_cpus_perf()
{
	local secs=$1 filt=$2 out t0 took
	t0=$(lab_now)
	out=$(perf stat -a -A -x, -e net:netif_receive_skb --filter "$filt" \
		-- sleep "$secs" 2>&1 >/dev/null) ||
		fail "perf stat -e net:netif_receive_skb failed: $(tail -n 2 <<< "$out")"
	# a window perf was slow to open or close may have outlived the
	# traffic it was to see: say so, or a failure after it reads as the
	# datapath's
	took=$(lab_since "$t0")
	awk -v t="$took" -v s="$secs" 'BEGIN { exit !(t > 2 * s + 10) }' &&
		lab_warn "the oracle (perf stat) took ${took}s for a ${secs}s window"
	{
		lab_online_cpus | sed 's/$/ 0/'
		awk -F, '/^CPU[0-9]+,/ { c = substr($1, 4); v = $2;
			 if (v !~ /^[0-9]+$/) v = 0; print c, v }' <<< "$out"
	} | awk '{ n[$1] += $2 } END { for (c in n) print c, n[c] }' | sort -n
}

lab_rx_cpus_tracefs()
{
	local secs=$1 filt=$2
	lab_rx_trace_start "$filt"
	sleep "$secs"
	lab_rx_trace_stop | awk '$2 != "MARK" { n[$2]++ }
		END { for (c in n) print c, n[c] }' |
		cat <(lab_online_cpus | sed 's/$/ 0/') - |
		awk '{ n[$1] += $2 } END { for (c in n) print c, n[c] }' | sort -n
}

# Record netif_receive_skb events matching filter $1 (lab_rx_filter) in
# the lab's tracefs instance until lab_rx_trace_stop; lab_rx_trace_mark
# puts a line of its own in between, in the same clock.  Events added
# with lab_trace_event before are recorded alongside.
lab_rx_trace_start()
{
	lab_trace_event net/netif_receive_skb "$1"
	: > "$LAB_TRACE_INST/trace"
	echo 1 > "$LAB_TRACE_INST/tracing_on"
}

# Record event $1 (a tracefs events/ path: xdp/xdp_cpumap_kthread,
# sched/sched_migrate_task, ...) matching filter $2 in the next
# lab_rx_trace_start .. _stop.
lab_trace_event()
{
	local ev
	lab_trace_instance || fail "no tracefs instance for the oracle"
	ev=$LAB_TRACE_INST/events/$1
	echo 0 > "$LAB_TRACE_INST/tracing_on"
	echo "$2" > "$ev/filter" || fail "tracefs refused the filter '$2' for $1"
	echo 1 > "$ev/enable" || fail "can't enable $1"
}

lab_rx_trace_mark()
{
	echo "rfslab $*" > "$LAB_TRACE_INST/trace_marker"
}

# Stop recording; print, in time order (the trace file merges the per-CPU
# buffers), "seconds cpu" per netif_receive_skb, "seconds MARK text" per
# mark and "seconds EV event cpu fields..." per other event.
lab_rx_trace_stop()
{
	local c o
	echo 0 > "$LAB_TRACE_INST/tracing_on"
	echo 0 > "$LAB_TRACE_INST/events/enable"	# every event of the instance
	for c in "$LAB_TRACE_INST"/per_cpu/cpu*; do
		o=$(awk '$1 == "overrun:" { print $2 }' "$c/stats")
		[ "${o:-0}" = 0 ] ||
			lab_warn "trace buffer overrun on ${c##*/}: $o events lost"
	done
	lab_parse_trace < "$LAB_TRACE_INST/trace"
	: > "$LAB_TRACE_INST/trace"
}

# "  comm-12  [001] ..s1.  2027.348209: netif_receive_skb: dev=..." ->
# "2027.348209 1"; a trace_marker line "... tracing_mark_write: rfslab X"
# -> "2027.3 MARK X"; "... 2027.4: xdp_cpumap_kthread: kthread cpu=1 ..."
# -> "2027.4 EV xdp_cpumap_kthread 1 kthread cpu=1 ...".
lab_parse_trace()
{
	awk '!/^#/ { c = -1; t = ""
		for (i = 1; i <= NF; i++) {
			if (c < 0 && $i ~ /^\[[0-9]+\]$/) {
				c = substr($i, 2, length($i) - 2) + 0
			} else if (c >= 0 && $i ~ /^[0-9]+\.[0-9]+:$/) {
				t = substr($i, 1, length($i) - 1); break
			}
		}
		if (t == "") next
		if ($0 ~ /tracing_mark_write: rfslab /) {
			sub(/.*tracing_mark_write: rfslab /, "")
			print t, "MARK", $0
		} else if ($(i + 1) == "netif_receive_skb:") {
			print t, c
		} else {
			e = $(i + 1); sub(/:$/, "", e)
			r = ""
			for (j = i + 2; j <= NF; j++) r = r " " $j
			print t, "EV", e, c r
		} }'
}

# cpu_frames SECS [MAPID]: the oracle on the lab interface, lab_rx_cpus
# SECS $LAB_A.  MAPID, which the cpumap-only oracle needed, is accepted
# and not needed: the device name already tells this lab's frames apart.
cpu_frames()
{
	lab_rx_cpus "$1" "$LAB_A"
}

# The oracle over $WINDOW seconds: >= $MIN_SHARE % of the frames of
# $LAB_A ran on CPU $1 ($2 says what is checked), and at least $3 frames
# came at all.  $4 (default 1): how many windows in a row may be tried for
# one that shows it, for a move that may take a while.
# RFS_TEST_SELFCHECK=1 expects the other CPU, so a test can be shown to
# fail.
lab_expect_frames_on()
{
	local cpu=$1 what=$2 min_total=$3 windows=${4:-1} out share total i
	[ -n "${RFS_TEST_SELFCHECK:-}" ] &&
		{ [ "$cpu" = "$CPU_A" ] && cpu=$CPU_B || cpu=$CPU_A; }
	for ((i = 1; i <= windows; i++)); do
		out=$(cpu_frames "$WINDOW")
		share=$(share_of "$cpu" <<< "$out")
		total=$(lab_total <<< "$out")
		say "$what${4:+ (window $i)}: $(fmt_shares <<< "$out")"
		[ "$total" -ge "$min_total" ] ||
			fail "$what: the stack received only $total frames on $LAB_A in ${WINDOW}s (traffic stalled?)"
		[ "$share" -ge "$MIN_SHARE" ] && return 0
	done
	fail "$what: $share% of frames on CPU $cpu, want >= $MIN_SHARE%${4:+ in one of $windows windows of ${WINDOW}s} ($(fmt_shares <<< "$out"))"
}

# Per-CPU counts of xdp:xdp_cpumap_kthread events (cpumap batches, not
# frames) over $1 seconds: "cpu count" lines.  $2: cpumap id to filter on.
cpu_counts()
{
	local secs=$1 id=${2:-} filt=()
	lab_need perf
	[ -n "$id" ] && filt=(--filter "map_id == $id && processed > 0")
	perf stat -a -A -x, -e xdp:xdp_cpumap_kthread "${filt[@]}" \
		-- sleep "$secs" 2>&1 >/dev/null |
		awk -F, '/^CPU[0-9]+,/ { c = substr($1, 4); v = $2;
			 if (v !~ /^[0-9]+$/) v = 0; print c, v }'
}

# Frames that took the cpumap path only, per target CPU: the sum of
# xdp:xdp_cpumap_kthread's "processed" over $1 seconds for cpumap $2
# (empty: any); "cpu frames" lines for every online CPU.  Blind to the
# local path: not the oracle of where the stack ran (cpu_frames is).
lab_cpumap_frames()
{
	if lab_trace_instance; then
		lab_cpumap_frames_tracefs "$@"
	else
		lab_cpumap_frames_perf "$@"
	fi
}

LAB_TRACEFS=
LAB_TRACE_INST=
# the events lab_trace_instance_rm turns off
# the events the lab relies on
LAB_TRACE_EVENTS="xdp/xdp_cpumap_kthread xdp/xdp_cpumap_enqueue net/netif_receive_skb"

# Make (once) a tracefs instance of this lab; events are enabled in it
# when needed, each with its own filter.
lab_trace_instance()
{
	local t e
	[ -n "$LAB_TRACE_INST" ] && return 0
	[ -n "${LAB_NO_TRACEFS:-}" ] && return 1
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$t/instances" ] && [ -d "$t/events/net/netif_receive_skb" ] &&
			{ LAB_TRACEFS=$t; break; }
	done
	[ -n "$LAB_TRACEFS" ] || return 1
	# made by this lab already (maybe from a subshell): reuse it
	if [ -d "$LAB_TRACEFS/instances/rfslab$LAB_ID" ]; then
		LAB_TRACE_INST=$LAB_TRACEFS/instances/rfslab$LAB_ID
		return 0
	fi
	mkdir "$LAB_TRACEFS/instances/rfslab$LAB_ID" 2>/dev/null || return 1
	LAB_TRACE_INST=$LAB_TRACEFS/instances/rfslab$LAB_ID
	echo 0 > "$LAB_TRACE_INST/tracing_on"
	echo 16384 > "$LAB_TRACE_INST/buffer_size_kb"	# per CPU
	for e in $LAB_TRACE_EVENTS; do
		[ -d "$LAB_TRACE_INST/events/$e" ] ||
			{ lab_trace_instance_rm; return 1; }
	done
}

lab_trace_instance_rm()
{
	local t
	# by name: it may have been made in a subshell
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$t/instances/rfslab$LAB_ID" ] &&
			LAB_TRACE_INST=$t/instances/rfslab$LAB_ID
	done
	[ -n "$LAB_TRACE_INST" ] && [ -d "$LAB_TRACE_INST" ] || return 0
	echo 0 > "$LAB_TRACE_INST/tracing_on" 2>/dev/null
	echo 0 > "$LAB_TRACE_INST/events/enable" 2>/dev/null
	rmdir "$LAB_TRACE_INST" 2>/dev/null
	LAB_TRACE_INST=
}

# "kthread cpu=1 map_id=5 action=PASS processed=3 ..." -> "1 3"
lab_parse_kthread()
{
	awk '{ p = -1; c = -1
		for (i = 1; i <= NF; i++) {
			if (substr($i, 1, 4) == "cpu=") c = substr($i, 5)
			else if (substr($i, 1, 10) == "processed=") {
				p = substr($i, 11); break }
		}
		if (c >= 0 && p >= 0) print c, p }'
}

lab_cpumap_frames_tracefs()
{
	local secs=$1 id=${2:-} ev="$LAB_TRACE_INST/events/xdp/xdp_cpumap_kthread" c o
	if [ -n "$id" ]; then
		echo "map_id == $id && processed > 0" > "$ev/filter"
	else
		echo "processed > 0" > "$ev/filter"
	fi
	echo 1 > "$ev/enable"
	: > "$LAB_TRACE_INST/trace"
	echo 1 > "$LAB_TRACE_INST/tracing_on"
	sleep "$secs"
	echo 0 > "$LAB_TRACE_INST/tracing_on"
	echo 0 > "$ev/enable"
	for c in "$LAB_TRACE_INST"/per_cpu/cpu*; do
		o=$(awk '$1 == "overrun:" { print $2 }' "$c/stats")
		[ "${o:-0}" = 0 ] ||
			lab_warn "trace buffer overrun on ${c##*/}: $o events lost"
	done
	{
		lab_online_cpus | sed 's/$/ 0/'
		lab_parse_kthread < "$LAB_TRACE_INST/trace"
	} | awk '{ n[$1] += $2 } END { for (c in n) print c, n[c] }' | sort -n
	: > "$LAB_TRACE_INST/trace"
}

lab_cpumap_frames_perf()
{
	local secs=$1 id=${2:-} f="$LAB_DIR/perf.$BASHPID.data" filt
	lab_need perf
	filt="processed > 0"
	[ -n "$id" ] && filt="map_id == $id && processed > 0"
	rm -f "$f"
	perf record -q -a -o "$f" -e xdp:xdp_cpumap_kthread --filter "$filt" \
		-- sleep "$secs" >/dev/null 2>&1 ||
		{ rm -f "$f"; fail "perf record of xdp:xdp_cpumap_kthread failed"; }
	{
		lab_online_cpus | sed 's/$/ 0/'
		perf script -i "$f" -F trace 2>/dev/null | lab_parse_kthread
	} | awk '{ n[$1] += $2 } END { for (c in n) print c, n[c] }' | sort -n
	rm -f "$f"
}

# From "cpu n" lines on stdin: the share (integer percent) of CPU $1.
# 0 when there is nothing at all.
share_of()
{
	awk -v c="$1" '{ t += $2; if ($1 == c) m = $2 }
		END { if (t == 0) print 0; else printf "%d\n", 100 * m / t }'
}

# "cpu n" lines -> "cpu0 40% (1234)  cpu1 60% (1851)"
fmt_shares()
{
	awk '{ c[NR] = $1; v[NR] = $2; t += $2 }
		END { for (i = 1; i <= NR; i++)
			printf "cpu%s %d%% (%d)  ", c[i],
				t ? 100 * v[i] / t : 0, v[i]; print "" }'
}

lab_total() { awk '{ t += $2 } END { print t + 0 }'; }

# NET_RX softirqs per CPU ("cpu n" lines), for reference only (see top).
net_rx_snapshot()
{
	awk '$1 == "NET_RX:" { for (i = 2; i <= NF; i++) print i - 2, $i }' \
		/proc/softirqs
}

# Root-namespace TcpExtTCPOFOQueue (segments queued out of order).
lab_ofo()
{
	nstat -saz TcpExtTCPOFOQueue 2>/dev/null |
		awk '$1 == "TcpExtTCPOFOQueue" { print $2; f = 1 } END { if (!f) print 0 }'
}

# Where frames can be lost between the sender and the receiving socket,
# as "counter value" lines: the veth ring (native XDP: ring full counts as
# tx_dropped on the sending peer), the cpumap rings (rfsd's enqueue_drops),
# the backlogs (softnet_stat, host-wide) and the root namespace's TCP
# receive-side drops.  A loss makes later segments arrive "out of order"
# too, so a reordering check needs these at zero to mean anything.
lab_drops()
{
	local f d=0
	echo "veth_ring $(( $(lab_ns cat "/sys/class/net/$LAB_B/statistics/tx_dropped" 2>/dev/null || echo 0) +
		$(cat "/sys/class/net/$LAB_A/statistics/rx_dropped" 2>/dev/null || echo 0) ))"
	echo "cpumap_ring $(lab_stat "$LAB_A" enqueue_drops 2>/dev/null || echo 0)"
	while read -r _ f _; do
		d=$((d + 0x$f))
	done < /proc/net/softnet_stat
	echo "backlog $d"
	nstat -saz TcpExtTCPBacklogDrop TcpExtTCPRcvQDrop TcpExtTCPOFODrop \
		TcpExtTCPZeroWindowDrop TcpExtPFMemallocDrop 2>/dev/null |
		awk '/^TcpExt/ { t += $2 } END { print "tcp_rcv", t + 0 }'
}

# Two lab_drops snapshots -> the counters that grew, "name +n ...", or "".
lab_drops_delta()
{
	join <(sort <<< "$1") <(sort <<< "$2") |
		awk '$3 != $2 { printf "%s%s +%d", sep, $1, $3 - $2; sep = " " }'
}

# ----------------------------------------------------------- workloads

LAB_PORT=${LAB_PORT:-$((20000 + LAB_ID % 20000))}

# Echo server in the root namespace on CPU $1, bound to $2 (default
# $LAB_IP4_A); extra args go to rfslab.py (--v6only 0, --port N).
# PID in LAB_SERVER_PID.  It lasts as long as a test may
# (RFS_TEST_TIMEOUT; lab_down ends it sooner): under emulation a test
# outlived a fixed 170 s and its client saw the connection reset.
lab_server()
{
	local cpu=$1 bind=${2:-$LAB_IP4_A} i r="$LAB_DIR/server.$LAB_PORT.ready"
	shift 2 2>/dev/null || shift $#
	rm -f "$r"
	lab_bg taskset -c "$cpu" "$LAB_PY" "$LAB_DIR/rfslab.py" server \
		--bind "$bind" --port "$LAB_PORT" --cpu "$cpu" --ready "$r" \
		--timeout "${RFS_TEST_TIMEOUT:-600}" "$@"
	LAB_SERVER_PID=$LAB_BG_PID
	for ((i = 0; i < 50; i++)); do
		[ -e "$r" ] && return 0
		lab_alive "$LAB_SERVER_PID" || fail "echo server on $bind did not start"
		sleep 0.1
	done
	fail "echo server on $bind not ready in 5s"
}

# Request/response client in $LAB_NS to $1 for at most $2 seconds, $3
# connections; SIGTERM ends it early (cleanly, exit 0).  PID in
# LAB_CLIENT_PID, its output ({"round_trips": N}) in $LAB_DIR/rr.out.
lab_client()
{
	lab_bg_ns "$LAB_PY" "$LAB_DIR/rfslab.py" rr --addr "$1" \
		--port "$LAB_PORT" --seconds "$2" --conns "${3:-4}" \
		>"$LAB_DIR/rr.out" 2>&1
	LAB_CLIENT_PID=$LAB_BG_PID
}

# ------------------------------------------------------ kernel settings

# Write $2 to the sysctl or sysfs file $1 (rps_cpus, rps_flow_cnt,
# net.core.rps_sock_flow_entries, kernel.bpf_stats_enabled, ...), keeping
# its value from before the first write for lab_restore (and lab_down,
# on every exit path).  Must run in the lab's own shell, not a subshell.
lab_set()
{
	local path=$1 val=$2 i orig
	orig=$(cat "$path" 2>/dev/null) || fail "can't read '$path'"
	echo "$val" > "$path" 2>/dev/null || fail "can't write '$val' to '$path'"
	for i in "${!LAB_SETTINGS[@]}"; do
		if [ "${LAB_SETTINGS[i]%%$'\t'*}" = "$path" ]; then
			orig=${LAB_SETTINGS[i]#*$'\t'}
			LAB_SETTINGS[i]="$path"$'\t'"${orig%%$'\t'*}"$'\t'"$(cat "$path")"
			return 0
		fi
	done
	LAB_SETTINGS+=("$path"$'\t'"$orig"$'\t'"$(cat "$path")")
}

# Put back what lab_set changed: the file $1 only, or every one (last
# first).  A host-wide setting someone else changed since is left as it
# is, with a warning; one whose file is gone (a deleted link) is dropped.
lab_restore()
{
	local i e path orig wrote keep=()
	for ((i = ${#LAB_SETTINGS[@]} - 1; i >= 0; i--)); do
		e=${LAB_SETTINGS[i]}
		path=${e%%$'\t'*}
		e=${e#*$'\t'}
		orig=${e%%$'\t'*}
		wrote=${e#*$'\t'}
		if [ -n "${1:-}" ] && [ "$path" != "$1" ]; then
			keep=("${LAB_SETTINGS[i]}" "${keep[@]}")
			continue
		fi
		[ -e "$path" ] || continue
		if [ "$(cat "$path" 2>/dev/null)" != "$wrote" ]; then
			lab_warn "$path changed by someone else since the lab set it; left as it is"
			continue
		fi
		echo "$orig" > "$path" 2>/dev/null ||
			lab_warn "can't put '$orig' back into '$path'"
	done
	LAB_SETTINGS=("${keep[@]}")
}

# RPS/RFS on every RX queue of $1: rps_cpus mask $2 (hex), rps_flow_cnt $3
lab_rps()
{
	local q
	for q in /sys/class/net/"$1"/queues/rx-*; do
		lab_set "$q/rps_cpus" "$2"
		lab_set "$q/rps_flow_cnt" "$3"
	done
}

# ----------------------------------------------------------- teardown

# Undo everything lab_up/lab_start_rfsd/lab_bg did.  Safe to call twice
# and after a partial setup.
lab_down()
{
	local e pid
	trap - INT TERM
	# kernel settings first, while the lab's links still exist
	lab_restore
	# rfsd first, gently (SIGTERM leaves the datapath steering), then
	# what it left, as a user would remove it: rfsd --cleanup
	if [ -n "$RFSD_PID" ] && lab_is_ours "$RFSD_PID"; then
		kill -TERM "$RFSD_PID" 2>/dev/null
		lab_wait "$RFSD_PID" 10 >/dev/null 2>&1 || true
		lab_alive "$RFSD_PID" && kill -KILL "$RFSD_PID" 2>/dev/null
	fi
	RFSD_PID=
	[ -d "$RFS_PIN" ] && [ -x "${RFSD:-}" ] &&
		"$RFSD" --cleanup --pin-dir "$RFS_PIN" >/dev/null 2>&1
	for e in "${LAB_PIDS[@]}"; do
		pid=${e%%:*}
		lab_is_ours "$pid" && kill -TERM "$pid" 2>/dev/null
	done
	for e in "${LAB_PIDS[@]}"; do
		pid=${e%%:*}
		lab_wait "$pid" 3 >/dev/null 2>&1
		lab_alive "$pid" && kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	LAB_PIDS=()
	for e in "${LAB_LINKS[@]}"; do
		ip link del dev "$e" 2>/dev/null
	done
	LAB_LINKS=()
	# libxdp's dispatcher pins of our (now deleted) interfaces
	for e in "${LAB_IFINDEXES[@]}"; do
		[ -n "$e" ] && ! ip -o link show | grep -q "^$e:" &&
			rm -rf /sys/fs/bpf/xdp/dispatch-"$e"-* 2>/dev/null
	done
	LAB_IFINDEXES=()
	for e in "${LAB_ROUTES[@]}"; do
		case $e in
		*:*) ip -6 route del unreachable "$e" metric 4000 2>/dev/null ;;
		*) ip route del unreachable "$e" metric 4000 2>/dev/null ;;
		esac
	done
	LAB_ROUTES=()
	if [ -n "$LAB_NS_MADE" ] || ip netns list 2>/dev/null |
			grep -qw "^$LAB_NS"; then
		ip netns del "$LAB_NS" 2>/dev/null
	fi
	LAB_NS_MADE=
	lab_trace_instance_rm
	# if --cleanup could not run: drop the pins (and with them the
	# links and programs)
	[ -d "$RFS_PIN" ] && rm -rf "$RFS_PIN"
	[ -n "$LAB_DIR" ] && [ -d "$LAB_DIR" ] && rm -rf "$LAB_DIR"
	return 0
}

lab_trap()
{
	trap lab_down EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# ----------------------------------------------------------------- runner

# A progress line, stamped with the seconds since the test began.
say() { printf '    [%5.1fs] %s\n' "$(lab_since "$TEST_T0")" "$*"; }

# The loop of every integration script:
#	lab_run_tests test_foo "${*:-$ALL_TESTS}"
# (the script's name, then the tests named or all) runs each in its own
# subshell, so a fail or skip ends that test only, with "=== t" before and
# "--- PASS|SKIP|FAIL t (Ns)" after it, and stops at an interrupt.  Then
# one line "NAME: N passed, N failed, N skipped".  Returns 1 if any
# failed (or a name is no test), LAB_SKIP if all skipped, else 0.
lab_run_tests()
{
	local name=$1 t rc pass=0 failed=0 skipped=0 failures=""

	for t in $2; do
		declare -F "$t" >/dev/null || { echo "no test '$t'"; return 1; }
		echo "=== $t"
		TEST_T0=$(lab_now)
		( "$t" )
		rc=$?
		case $rc in
		0) echo "--- PASS $t ($(lab_since "$TEST_T0")s)"; pass=$((pass + 1)) ;;
		"$LAB_SKIP") echo "--- SKIP $t ($(lab_since "$TEST_T0")s)"
		   skipped=$((skipped + 1)) ;;
		*) echo "--- FAIL $t ($(lab_since "$TEST_T0")s)"; failed=$((failed + 1))
		   failures="$failures $t" ;;
		esac
		# interrupted: stop here
		[ $rc -eq 130 ] || [ $rc -eq 143 ] && break
	done
	echo "$name: $pass passed, $failed failed, $skipped skipped"
	[ $failed -eq 0 ] || { echo "failed:$failures"; return 1; }
	[ $pass -eq 0 ] && [ $skipped -gt 0 ] && return "$LAB_SKIP"
	return 0
}
