# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The comparison workloads, sourced by bench/run.sh (which has the lab,
# the modes and tsv() by then): rr-many and rpc (the kernel RFS patch's
# netperf TCP_RR and RPC tests), order-bulk and order-udp (the ordering
# A/B).  Every cell appends its figures to results.tsv; a client that
# measured nothing is left out with a warning, and the bench goes on.
#
# Ports, from run.sh's PORT: +8 rfs_rpc, +9 rfs_bulk's sink, +10.. the
# rfs_seq readers (one per UDP flow), +60.. one rfs_rr server per request
# size of RR_CELLS, +100.. the rfs_seq senders.
#
# The servers of rr-many and rpc count receive locality (bench/README.md,
# "Locality at the socket") into $WORK/loc.PORT, a page they share with
# the rfs_rr client of each cell, which reads it at the start and the
# end of its measured window: the servers stay up across cells and modes.

# Die unless build/tests/$1 is built.
need_tool()
{
	[ -x "$TOOLS/$1" ] || die "$TOOLS/$1 is not built (make bench builds it)"
}

# The request sizes of RR_CELLS, each once, in order
rr_sizes()
{
	local c
	for c in $RR_CELLS; do echo "${c#*:}"; done | awk '!s[$0]++'
}

# The CPUs, server order: SRV_CPU first (the first connection's server
# is then not on the RX CPU, as in rr), then every other online one
srv_cpus()
{
	{ echo "$SRV_CPU"; lab_online_cpus | grep -vx "$SRV_CPU"; } | paste -sd,
}

new_servers_up()
{
	local i=0 s ports=()
	case " $WORKLOADS " in
	*" rr-many "*)
		for s in $(rr_sizes); do
			bg "$TOOLS/rfs_rr" server --bind "$IP_A" --port $((PORT + 60 + i)) \
				--cpus "$(srv_cpus)" --size "$s" \
				--stats "$WORK/loc.$((PORT + 60 + i))" \
				> "$OUT/logs/server.rr-many.$s" 2>&1
			ports+=($((PORT + 60 + i)))
			i=$((i + 1))
		done
		;;
	esac
	case " $WORKLOADS " in
	*" rpc "*)
		bg "$TOOLS/rfs_rpc" --bind "$IP_A" --port $((PORT + 8)) \
			--size "$RPC_SIZE" --stats "$WORK/loc.$((PORT + 8))" \
			> "$OUT/logs/server.rpc" 2>&1
		ports+=($((PORT + 8)))
		;;
	esac
	[ ${#ports[@]} -eq 0 ] || wait_listen "${ports[@]}"
}

# An rfs_rr client run: WORKLOAD PARAM PORT CONNS SIZE SECONDS; its
# figures into results.tsv with the TCP retransmits of both namespaces
# over the run, the server's receive locality over the client's
# measured window (from the server's stats file, $WORK/loc.PORT), and in
# the xdp modes their own counters over the run (xdp_rows).
rr_run()
{
	local w=$1 param=$2 port=$3 conns=$4 size=$5 secs=$6 log kv k v
	local tps='' util='' loc='' rtx rows=() row
	log=$OUT/logs/$R.$M.$w.${param//[=,]/_}
	counters > "$WORK/c0"
	[ "${M#xdp}" != "$M" ] && xdp_snap "$WORK/x0.json"
	ns "$TOOLS/rfs_rr" client --addr "$IP_A" --port "$port" --cpus "$CLI_CPU" \
		--conns "$conns" --size "$size" --seconds "$secs" \
		--warmup "$RR_WARMUP" --stats "$WORK/loc.$port" > "$log" 2>&1
	counters > "$WORK/c1"
	for kv in $(tail -n 1 "$log"); do
		k=${kv%%=*} v=${kv#*=}
		case $k in
		tps) tps=$v; rows+=("tps $v tps") ;;
		p50_us|p90_us|p99_us|p999_us|max_us) rows+=("$k $v us") ;;
		rx_cpu_util_pct) util=$v; rows+=("$k $v pct") ;;
		cpu[0-9]*_util_pct) rows+=("$k $v pct") ;;
		errors) rows+=("conn_errors $v count") ;;
		recv_local|recv_remote) rows+=("$k $v count") ;;
		# "-": no sample in the window, no figure
		locality_pct) [ "$v" = - ] || { loc=$v; rows+=("$k $v pct"); } ;;
		recv_unknown) [ "$v" = 0 ] ||
			warn "round $R $M $w $param: $v locality samples without a CPU (log: $log)" ;;
		esac
	done
	# a client that measured nothing is left out, not a row of zeros
	if [ -z "$tps" ] || [ "$tps" = 0 ]; then
		warn "round $R $M $w $param: no transaction measured (log: $log)"
		return 0
	fi
	for row in "${rows[@]}"; do
		# shellcheck disable=SC2086	# metric value unit
		tsv "$w" "$param" "$M" "$R" $row
	done
	rtx=$(counters_delta "$WORK/c0" "$WORK/c1" |
		awk '{ for (i = 1; i <= NF; i++) { split($i, a, "=");
			if (a[1] == "rtxn" || a[1] == "rtxr") t += a[2] } }
			END { print t + 0 }')
	tsv "$w" "$param" "$M" "$R" retrans "$rtx" count
	xdp_rows "$param"
	# CPU time of the whole machine per transaction: what a mode costs
	tsv "$w" "$param" "$M" "$R" cpu_us_per_tx \
		"$(awk -v u="$util" -v n="$NCPU" -v t="$tps" \
			'BEGIN { printf "%.2f", u / 100 * n * 1e6 / t }')" us
	LINE+="$param=$tps${loc:+ (local $loc%)} "
}

# results.tsv rows from the xdp modes' own counters over a cell: frames
# held on the old path (the in-order rule at work), cpumap ring drops,
# and how long the cpumap kthreads waited for their CPU per run
xdp_rows()
{
	local d
	case $M in
	xdp*) ;;
	*) return 0 ;;
	esac
	xdp_snap "$WORK/x1.json"
	d=$(xdp_delta "$WORK/x0.json" "$WORK/x1.json")
	for kv in $d; do
		case ${kv%%=*} in
		held) tsv "$W" "$1" "$M" "$R" held_frames "${kv#*=}" count ;;
		ringdrop) tsv "$W" "$1" "$M" "$R" drops_cpumap "${kv#*=}" count ;;
		seen) tsv "$W" "$1" "$M" "$R" frames_seen "${kv#*=}" count ;;
		kwait) [ "${kv#*=}" = - ] ||
			tsv "$W" "$1" "$M" "$R" kthread_wait_us "${kv#*=}" us ;;
		esac
	done
}

# One bulk stream, sender on CLI_CPU, the sink hopping every HOP_MS.  The
# sender's veth takes its ACKs in on CLI_CPU too (RPS there): otherwise
# TCP also transmits from the sink's CPU, in the softirq that handles the
# ACKs, and the lab's veth receives on whichever CPU transmitted, so two
# CPUs feed $A's one queue and the stream arrives out of order before
# anything steers it (bench/order_locate.sh; README Known limits).  A
# NIC's queue is fed by the wire, from one sender.
order_bulk()
{
	local param="hop_ms=$HOP_MS" sink log=$OUT/logs/$R.$M.order-bulk kv d
	local rps=/sys/class/net/$B/queues/rx-0/rps_cpus
	lab_ns_backpressure "$B"
	ns sh -c "printf '%x' $((1 << CLI_CPU)) > $rps" ||
		die "can't set $rps in $NS"
	[ "$M" = cpumap ] && cpumap_target "$SRV_CPU"
	bg "$TOOLS/rfs_bulk" sink --bind "$IP_A" --port $((PORT + 9)) \
		--seconds "$ORDER_SECS" --hop-ms "$HOP_MS" --cpus "$(srv_cpus)" \
		> "$log.sink" 2>&1
	sink=$BG_PID
	wait_listen $((PORT + 9))
	[ "${M#xdp}" != "$M" ] && xdp_snap "$WORK/x0.json"
	counters > "$WORK/c0"
	ns taskset -c "$CLI_CPU" "$TOOLS/rfs_bulk" source --addr "$IP_A" \
		--port $((PORT + 9)) --seconds "$ORDER_SECS" > "$log.source" 2>&1
	if ! lab_wait "$sink" 15; then
		warn "round $R $M order-bulk: the sink failed (log: $log.sink)"
		lab_kill "$sink"	# it may still hold the port
	fi
	counters > "$WORK/c1"
	ns tc qdisc del dev "$B" root 2>/dev/null
	ns sh -c "echo 0 > $rps"
	xdp_rows "$param"
	d=$(counters_delta "$WORK/c0" "$WORK/c1")
	for kv in $(tail -n 1 "$log.sink") $(tail -n 1 "$log.source") $d; do
		case ${kv%%=*} in
		gbps) tsv order-bulk "$param" "$M" "$R" throughput_gbps "${kv#*=}" gbps ;;
		rcv_ooopack) tsv order-bulk "$param" "$M" "$R" ooo_segments "${kv#*=}" count ;;
		hops) tsv order-bulk "$param" "$M" "$R" hops "${kv#*=}" count ;;
		reord_seen) tsv order-bulk "$param" "$M" "$R" reord_seen "${kv#*=}" count ;;
		total_retrans) tsv order-bulk "$param" "$M" "$R" retrans "${kv#*=}" count ;;
		ofo) tsv order-bulk "$param" "$M" "$R" tcp_ofo_queue "${kv#*=}" count ;;
		dsack) tsv order-bulk "$param" "$M" "$R" dsack_segments "${kv#*=}" count ;;
		veth) tsv order-bulk "$param" "$M" "$R" drops_veth "${kv#*=}" count ;;
		backlog) tsv order-bulk "$param" "$M" "$R" drops_backlog "${kv#*=}" count ;;
		esac
	done
	LINE+="ooo $(sed -n 's/.*rcv_ooopack=\([0-9]*\).*/\1/p' "$log.sink") "
}

# UDP_FLOWS numbered flows from CLI_CPU, their readers hopping out of phase
order_udp()
{
	local param="flows=$UDP_FLOWS,pps=$UDP_PPS,hop_ms=$HOP_MS" i ready
	local log=$OUT/logs/$R.$M.order-udp pids=() sum
	rm -f "$log".recv.*
	for ((i = 0; i < UDP_FLOWS; i++)); do
		bg "$TOOLS/rfs_seq" recv "$IP_A" $((PORT + 10 + i)) "$IP_B" \
			$((PORT + 100 + i)) $((ORDER_SECS + 15)) "$HOP_MS" "$i" \
			> "$log.recv.$i" 2>&1
		pids+=("$BG_PID")
	done
	for ((i = 0; i < 100; i++)); do
		ready=$(ss -Huan "( sport >= :$((PORT + 10)) and sport < :$((PORT + 10 + UDP_FLOWS)) )" | wc -l)
		[ "$ready" -ge "$UDP_FLOWS" ] && break
		sleep 0.1
	done
	[ "$ready" -ge "$UDP_FLOWS" ] || die "only $ready of $UDP_FLOWS rfs_seq readers bound in 10 s"
	[ "${M#xdp}" != "$M" ] && xdp_snap "$WORK/x0.json"
	ns taskset -c "$CLI_CPU" "$TOOLS/rfs_seq" send "$IP_B" $((PORT + 100)) \
		"$IP_A" $((PORT + 10)) "$ORDER_SECS" "$UDP_PPS" "$UDP_FLOWS" \
		> "$log.send" 2>&1 || warn "round $R $M order-udp: the sender failed (log: $log.send)"
	for i in "${pids[@]}"; do
		lab_wait "$i" $((ORDER_SECS + 20)) || warn "round $R $M order-udp: a reader failed"
	done
	xdp_rows "$param"
	sum=$(cat "$log".recv.* "$log.send" | "$LAB_PY" -c '
import json, sys
t = {"received": 0, "inversions": 0, "lost": 0, "cpu_moves": 0, "sent": 0}
for line in sys.stdin:
    try:
        d = json.loads(line)
    except ValueError:
        continue
    for k in t:
        t[k] += d.get(k, 0)
print(t["received"], t["inversions"], t["lost"], t["cpu_moves"], t["sent"])')
	read -r recv inv lost moves sent <<< "$sum"
	if [ -z "${recv:-}" ] || [ "$recv" = 0 ]; then
		warn "round $R $M order-udp: nothing received (logs: $log.*)"
		return 0
	fi
	tsv order-udp "$param" "$M" "$R" inversions "$inv" count
	tsv order-udp "$param" "$M" "$R" losses "$lost" count
	tsv order-udp "$param" "$M" "$R" received "$recv" count
	tsv order-udp "$param" "$M" "$R" sent "$sent" count
	tsv order-udp "$param" "$M" "$R" hops "$moves" count
	LINE+="inversions $inv lost $lost "
}

# Workload $W of mode $M, round $R.  Not in a subshell: what bg starts
# must be recorded here (lab_down ends it), and a fail must end the bench.
new_workload()
{
	local c n s i
	LINE=
	case $W in
	rr-many)
		# --kprofile: one profile over all of the mode's cells
		kprofile_start open
		for c in $RR_CELLS; do
			n=${c%%:*} s=${c#*:}
			i=$(rr_sizes | grep -nx "$s" | cut -d: -f1)
			rr_run rr-many "n=$n,req=$s" $((PORT + 59 + i)) "$n" "$s" "$RR_SECS"
		done
		kprofile_end "$OUT/logs/$R.$M.rr-many.kprofile"
		;;
	rpc)
		rr_run rpc "conns=$RPC_CONNS,req=$RPC_SIZE" $((PORT + 8)) \
			"$RPC_CONNS" "$RPC_SIZE" "$RPC_SECS"
		;;
	order-bulk) order_bulk ;;
	order-udp) order_udp ;;
	esac
	msg "$M" "round $R $W: $LINE"
}

# Medians over the rounds of the main figures, and the median of the
# per-round ratios to base, from results.tsv (bench/report.sh, when
# present, makes the full report).
new_summary()
{
	"$LAB_PY" - "$OUT/results.tsv" <<'PY'
import collections, statistics as st, sys
rows = collections.defaultdict(dict)      # (w, param, metric) -> {(mode, round): v}
for i, line in enumerate(open(sys.argv[1])):
    f = line.rstrip('\n').split('\t')
    if i == 0 or len(f) != 7:
        continue
    w, param, mode, rnd, metric, value, unit = f
    try:
        rows[(w, param, metric)][(mode, rnd)] = float(value)
    except ValueError:
        pass
show = {'rr-many': ('tps', 'p99_us', 'locality_pct'),
        'rpc': ('tps', 'p50_us', 'p90_us', 'p99_us', 'locality_pct'),
        'order-bulk': ('ooo_segments', 'retrans', 'throughput_gbps'),
        'order-udp': ('inversions', 'losses')}
out = []
for (w, param, metric), c in sorted(rows.items()):
    if metric not in show.get(w, ()):
        continue
    modes = sorted({m for m, _ in c}, key=lambda m: ['base', 'rps', 'rfs', 'xdp', 'xdp-noguard'].index(m)
                   if m in ('base', 'rps', 'rfs', 'xdp', 'xdp-noguard') else 9)
    cells = []
    for m in modes:
        v = [x for (mm, r), x in c.items() if mm == m]
        s = '%s %.4g' % (m, st.median(v))
        ratios = [x / c[('base', r)] for (mm, r), x in c.items()
                  if mm == m and m != 'base' and c.get(('base', r))]
        if ratios and metric in ('tps', 'p50_us', 'p90_us', 'p99_us', 'throughput_gbps'):
            s += ' (x%.2f)' % st.median(ratios)
        cells.append(s)
    out.append('%-10s %-22s %-15s %s' % (w, param, metric, '; '.join(cells)))
if out:
    print('medians over rounds (x: median ratio to base of the same round):')
    print('\n'.join(out))
PY
}
