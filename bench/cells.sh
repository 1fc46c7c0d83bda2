# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The cells of the sockperf/iperf3 workloads (rr, rr-local, multi, bulk,
# bulk-local), sourced by bench/run.sh (which has the lab, the modes and
# tsv() by then): their servers, the clients and their output parsers,
# the counters every cell reads before and after, raw.txt and
# results.tsv rows, and cell(), which runs one mode in one round over
# every workload it applies to (the workloads declared through
# bench/workloads.sh's new_workload).

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
	# shellcheck disable=SC2034  # profile_xdp (bench/profile.sh) reads it
	SRV_PID_RR=$BG_PID
	SERVERS+=("$BG_PID:$SRV_CPU")
	bg taskset -c "$CLI_CPU" sockperf server --tcp -i "$IP_A" -p $((PORT + 3)) \
		>"$WORK/server.3.log" 2>&1
	# shellcheck disable=SC2034  # profile_xdp (bench/profile.sh) reads it
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

# Wait for a server to listen on every port given (10 s each)
wait_listen()
{
	local p
	for p in "$@"; do
		lab_wait_listen "$p" 100 || die "no server is listening on port $p"
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
FILENAME == "/proc/stat" && $1 ~ /^cpu[0-9]+$/ {
	c = substr($1, 4)
	for (i = 2; i <= 9; i++) v["cputot" c] += $i	# user .. steal
	v["cpuidle" c] += $5 + $6
	v["cpusoft" c] += $8
}
FILENAME ~ /_dropped$/ { v["veth"] += $1 }
END { for (k in v) print k sfx, v[k] }'

counters()
{
	ns awk -v sfx=n "$COUNT_AWK" /proc/net/snmp /proc/net/netstat \
		"/sys/class/net/$B/statistics/tx_dropped" \
		"/sys/class/net/$B/statistics/rx_dropped" 2>/dev/null
	awk -v sfx=r "$COUNT_AWK" /proc/net/snmp /proc/net/netstat /proc/net/softnet_stat /proc/stat \
		"/sys/class/net/$A/statistics/tx_dropped" \
		"/sys/class/net/$A/statistics/rx_dropped" 2>/dev/null
}

# Two counters snapshots -> the raw.txt keys: rtxn rtxr veth backlog
# sockdrop ofo dsack, and where the CPU time went (/proc/stat, the whole
# host): rxbusy/rxsoft, the percent of the cell CLI_CPU (the RX CPU, which
# also runs the clients and the bulk sender) was busy / in softirq, and
# srvbusy, that of SRV_CPU: which CPU limits a cell
counters_delta()
{
	awk -v rx="$CLI_CPU" -v srv="$SRV_CPU" '
	NR == FNR { a[$1] = $2; next } { d[$1] = $2 - a[$1] }
	function pct(n, t) { return t > 0 ? 100 * n / t : 0 }
	END { printf "rtxn=%d rtxr=%d veth=%d backlog=%d sockdrop=%d ofo=%d dsack=%d",
		d["rtxn"], d["rtxr"], d["vethn"] + d["vethr"], d["backlogr"],
		d["sockdropr"], d["ofor"], d["dsackn"]
	      t = d["cputot" rx "r"]; u = d["cputot" srv "r"]
	      if (t > 0 && u > 0)
		printf " rxbusy=%.0f rxsoft=%.0f srvbusy=%.0f",
			pct(t - d["cpuidle" rx "r"], t), pct(d["cpusoft" rx "r"], t),
			pct(u - d["cpuidle" srv "r"], u) }' "$1" "$2"
}

# xdp-rfs's own counters (rfsctl -j stats) into $1
xdp_snap() { ctl -j stats "$A" > "$1" 2>/dev/null || : > "$1"; }

# Two xdp_snap files -> "seen= redir= local= held= ringdrop= rerr=
# kwait=": kwait is the microseconds the cpumap kthreads waited for their
# CPU per run over the cell (the kernel's schedstat, summed over the
# CPUs; "-" when rfsd had no figure at the end, or no kthread ran).  A
# kthread without a figure at the start had not run yet (rfsd learns its
# PID from its first batch): all of its count is the cell's.
xdp_delta()
{
	python3 - "$1" "$2" <<'PY' 2>/dev/null || echo "xdperr=1"
import json, sys
a, b = (json.load(open(f))['total'] for f in sys.argv[1:3])
d = {k: b.get(k, 0) - a.get(k, 0) for k in b}
runs = d.get('kthread_runs', 0)
kwait = ('%.1f' % (d['kthread_wait_ns'] / runs / 1e3)
         if 'kthread_runs' in b and runs > 0 and d['kthread_wait_ns'] >= 0
         else '-')
print('seen=%d redir=%d local=%d held=%d ringdrop=%d rerr=%d kwait=%s' % (
    d['seen'], d['steered'] - d.get('local', 0), d.get('local', 0),
    d.get('held', 0), d.get('enqueue_drops', 0), d.get('redirect_err', 0),
    kwait))
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
		kwait) tsv "$3" "$param" "$2" "$1" kthread_wait_us "$v" us ;;
		rxbusy) tsv "$3" "$param" "$2" "$1" rx_cpu_busy_pct "$v" pct ;;
		rxsoft) tsv "$3" "$param" "$2" "$1" rx_cpu_softirq_pct "$v" pct ;;
		srvbusy) tsv "$3" "$param" "$2" "$1" srv_cpu_busy_pct "$v" pct ;;
		ppalloc) tsv "$3" "$param" "$2" "$1" page_pool_allocs_per_s "$v" per_s ;;
		ppfree) tsv "$3" "$param" "$2" "$1" page_pool_frees_per_s "$v" per_s ;;
		esac
	done
	tsv "$3" "$param" "$2" "$1" retrans "$rtx" count
}

# --kprofile: kernel samples on CLI_CPU and SRV_CPU (cpu-clock: a timer,
# no PMU needed) from 1 s into a bulk cell to 1 s before its end, and
# over each mode's rr-many workload.
# --page-pool: over the same window, how many pages the page pools took
# from the page allocator and gave back to it (perf stat of the
# page_pool_state_hold/_release tracepoints, every CPU: the host's pools,
# the lab's veth the busy one).  A pool that recycles takes almost none;
# veth's XDP_REDIRECT of a frame that came from its peer as an skb
# releases the frame's page from the pool (veth_xdp_rcv_skb), so under a
# redirect the pool takes one page per frame.  Counting costs every
# event, so the modes that redirect pay more: a separate option.
# With "open" as $1 (rr-many: its cells, one after the other), the
# samples cover the whole workload instead, until kprofile_end stops
# perf record, and --page-pool does not count.
KPROF_PID=
KPROF_PP_PID=
KPROF_KEYS=
KPROF_OPEN=
# shellcheck disable=SC2120  # bench/workloads.sh passes "open"
kprofile_start()
{
	local rec=(perf record -q -g -e cpu-clock -C "$CLI_CPU,$SRV_CPU" -o "$WORK/kprof.data")
	KPROF_PID=''
	KPROF_PP_PID=''
	KPROF_KEYS=''
	KPROF_OPEN=''
	rm -f "$WORK/kprof.data"
	if [ "${1:-}" = open ]; then
		[ -n "$KPROFILE" ] || return 0
		bg "${rec[@]}"
		KPROF_PID=$BG_PID KPROF_OPEN=1
		return 0
	fi
	[ "$BULK_SECS" -ge 3 ] || return 0
	if [ -n "$KPROFILE" ]; then
		bg sh -c "sleep 1; exec ${rec[*]} -- sleep $((BULK_SECS - 2))"
		KPROF_PID=$BG_PID
	fi
	if [ -n "$PAGE_POOL" ]; then
		rm -f "$WORK/kprof.pp"
		bg sh -c "sleep 1; exec perf stat -a -x, -o '$WORK/kprof.pp' \
			-e page_pool:page_pool_state_hold,page_pool:page_pool_state_release \
			-- sleep $((BULK_SECS - 2))"
		KPROF_PP_PID=$BG_PID
	fi
}

# perf stat -x, output ($1) -> "ppalloc=N ppfree=M", per second of $2
kprofile_pp_keys()
{
	awk -F, -v s="$2" '
	$3 == "page_pool:page_pool_state_hold" && $1 ~ /^[0-9]+$/ { a = $1; ha = 1 }
	$3 == "page_pool:page_pool_state_release" && $1 ~ /^[0-9]+$/ { f = $1; hf = 1 }
	END { if (ha && hf && s > 0) printf "ppalloc=%.0f ppfree=%.0f", a / s, f / s }' "$1"
}

# Into $1: with --kprofile, for each CPU its top symbols (percent of that
# CPU's samples), then for those with 3 % or more the call chains behind
# them (folded, innermost first, cut at 10 frames, chains alike that far
# summed); with --page-pool, a last line of the page pools' pages per
# second (also the raw.txt keys ppalloc and ppfree, in $KPROF_KEYS)
kprofile_end()
{
	local rc
	: > "$1.new"
	if [ -n "$KPROF_PP_PID" ]; then
		if lab_wait "$KPROF_PP_PID" 10; then
			KPROF_KEYS=$(kprofile_pp_keys "$WORK/kprof.pp" $((BULK_SECS - 2)))
			[ -n "$KPROF_KEYS" ] ||
				warn "round $R $M $W: no page pool counts from perf stat: $(head -c 300 "$WORK/kprof.pp")"
		else
			warn "round $R $M $W: perf stat (page pool) did not end"
		fi
	fi
	if [ -n "$KPROF_PID" ]; then
		# an open-ended perf record writes its data on SIGINT, and
		# then exits with a status that is not 0
		[ -z "$KPROF_OPEN" ] || kill -INT "$KPROF_PID" 2>/dev/null
		lab_wait "$KPROF_PID" 10
		rc=$?
		if [ $rc = 124 ]; then
			warn "round $R $M $W: perf record did not end"
			stop_pid "$KPROF_PID" 2
		elif [ ! -s "$WORK/kprof.data" ] || { [ $rc != 0 ] && [ -z "$KPROF_OPEN" ]; }; then
			warn "round $R $M $W: perf record failed (exit $rc)"
		else
			kprofile_report >> "$1.new"
		fi
	fi
	[ -z "$KPROF_KEYS" ] ||
		echo "== page pool, every CPU, per second: $KPROF_KEYS" >> "$1.new"
	if [ -s "$1.new" ]; then mv "$1.new" "$1"; else rm -f "$1.new"; fi
}

# $WORK/kprof.data -> each CPU's top symbols and call chains, on stdout
kprofile_report()
{
	local c
	for c in $CLI_CPU $SRV_CPU; do
		echo "== CPU $c ($([ "$c" = "$CLI_CPU" ] && echo "RX CPU, also the clients' and the bulk sender's" || echo "the server's")): top symbols, % of its samples"
		perf report -i "$WORK/kprof.data" --stdio --no-children -C "$c" \
			--sort sym -g none --percentage relative --percent-limit 0.8 2>/dev/null |
			grep -v '^#' | grep -v '^$'
	done
	for c in $CLI_CPU $SRV_CPU; do
		echo "-- CPU $c: call chains of the symbols over 3 %, % of its samples"
		perf report -i "$WORK/kprof.data" --stdio --no-children -C "$c" \
			--sort sym --percentage relative --percent-limit 3 \
			-g folded,1,callee 2>/dev/null |
			awk '/^#/ || /^$/ || /\[k\]/ { next }
				{ n = split($2, f, ";"); s = f[1]
				  for (i = 2; i <= n && i <= 10; i++) s = s ";" f[i]
				  if (!(s in p)) o[++k] = s
				  p[s] += $1 }
				END { for (i = 1; i <= k; i++)
					printf "    %.2f%% %s\n", p[o[i]], o[i] }'
	done
}

# Workload $W of mode $M, round $R: one raw.txt line, the client's own
# output kept in $OUT/logs/ROUND.MODE.WORKLOAD[.N].
workload()
{
	local res share=- x="" i xsnap
	KPROF_KEYS=
	case $W in
	rr|bulk) WCPU=$SRV_CPU ;;
	*) WCPU=$CLI_CPU ;;
	esac
	[ "$M" = cpumap ] && cpumap_target "$WCPU"
	repin_servers ||
		warn "round $R $M $W: a CPU went offline or a server lost its pin before the cell; pinned again"
	# the datapath's own counters, in every mode that runs rfsd attached
	# (xdp_rows takes the same ones)
	case $M in xdp*) xsnap=1 ;; *) xsnap= ;; esac
	[ -n "$xsnap" ] && xdp_snap "$WORK/x0.json"
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
		# and one RX CPU for the stream, the sender's, as a NIC
		# queue's interrupt gives (lab_sender_rx_cpu; before
		# 2026-12-05f the stream's frames also arrived on SRV_CPU)
		lab_sender_rx_cpu "$CLI_CPU"
		kprofile_start
		ns taskset -c "$CLI_CPU" iperf3 -c "$IP_A" -p "$i" -t "$BULK_SECS" \
			-J --connect-timeout 3000 > "$WORK/ip.$W" 2>&1
		kprofile_end "$OUT/logs/$R.$M.$W.kprofile"
		lab_sender_rx_cpu ""
		ns tc qdisc del dev "$B" root 2>/dev/null
		cp "$WORK/ip.$W" "$OUT/logs/$R.$M.$W"
		res=$(parse_iperf "$WORK/ip.$W")
		;;
	esac
	counters > "$WORK/c1"
	[ -n "$xsnap" ] && xdp_snap "$WORK/x1.json" &&
		x=" $(xdp_delta "$WORK/x0.json" "$WORK/x1.json")"
	repin_servers ||
		res="bad: CPU hotplug during the cell (online now $(cat /sys/devices/system/cpu/online), servers pinned again)"
	case $res in
	bad:*) record "$R" "$M" "$W" "$res" ;;
	*) record "$R" "$M" "$W" "$res share=$share $(counters_delta "$WORK/c0" "$WORK/c1")$x${KPROF_KEYS:+ $KPROF_KEYS}" ;;
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
