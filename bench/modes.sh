# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The modes, sourced by bench/run.sh (which has the lab, $A, $WORK and
# the settings by then): each mode's setup before a cell and its undoing
# after (mode_on, mode_off), the kernel settings they change and put back
# through lab.sh's lab_set/lab_restore, rfsd's start and stop for the xdp
# modes, the bare cpumap redirect of mode cpumap, the XDP_PASS program of
# mode pass, and which workloads each mode runs (applies).

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
	[ -n "$CPUMAP_PID" ] && [ "$CPUMAP_TARGET" = "$1" ] &&
		alive "$CPUMAP_PID" && return 0
	cpumap_detach
	bg_attached "$WORK/cpumap.out" "$COST" --attach "$A" --target "$1" ||
		die "cost --attach $A --target $1 did not attach: $(cat "$WORK/cpumap.out")"
	CPUMAP_PID=$BG_PID
	CPUMAP_TARGET=$1
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
	# shellcheck disable=SC2034  # cell() in bench/cells.sh reads it
	XDP_MODE=$(jget 'd["mode"]' <<< "$st")
	[ "$(jget 'd.get("noguard", False)' <<< "$st")" = "$want_ng" ] ||
		die "rfsd's noguard on $A is not $want_ng: $st"
}

# Mode $1's cpumap_kthread_sched and the policy rfsd then reports on a
# kthread, as "VALUE|POLICY" (VALUE empty: the key left out; POLICY null:
# rfsd left the kthread alone)
mode_ksched()
{
	case $1 in
	xdp) echo "|SCHED_FIFO 1" ;;
	xdp-kernel) echo "kernel|null" ;;
	xdp-batch) echo "batch:0|SCHED_BATCH nice 0" ;;
	esac
}

# The kthread of the workload's server CPU has policy $2 (mode $1's), or
# is SCHED_FIFO's kthread stepped down for a flood (rfsd.h: a busy
# many-connection cell can do that)
ksched_check()
{
	local k
	k=$(ctlj status | jget "next(((k['policy'] or 'null') + (' (flooded)' if k.get('flooded') else '') for k in d['cpumap_kthreads']['kthreads'] if k['cpu'] == $SRV_CPU), None)")
	[ "$k" = "$2" ] || [ "$k" = "SCHED_OTHER nice 0 (flooded)" ] ||
		die "mode $1: CPU $SRV_CPU's cpumap kthread is '$k', not '$2'"
}

mode_on()
{
	local i ks conf
	case $1 in
	base|cpumap) ;;		# cpumap: attached per workload
	pass) pass_attach ;;
	sock)
		# rfsd loads its socket hooks at start, attached or not
		pass_attach
		rfsd_start $'[global]\ndetach_on_exit = yes\n'
		[ "$(lab_if_status "$A")" = null ] ||
			die "rfsd attached $A in mode sock"
		;;
	tp-floor)
		pass_attach
		tp_floor_start
		;;
	rps) lab_rps "$A" "$ALLMASK" 0 ;;
	rfs|rfs-pass)
		lab_rps "$A" "$ALLMASK" 4096
		lab_set "$SFE_FILE" 32768
		[ "$1" = rfs ] || pass_attach
		;;
	xdp|xdp-kernel|xdp-batch)
		# never the host's /etc/rfs/rfsd.conf; and stopping rfsd
		# between cells must take xdp-rfs off the link
		conf=$'[global]\ndetach_on_exit = yes\n'
		ks=$(mode_ksched "$1")
		[ -z "${ks%%|*}" ] || conf+="cpumap_kthread_sched = ${ks%%|*}"$'\n'
		rfsd_start "$conf"
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
	local ks
	case $1 in
	rps|rfs) lab_restore_rps ;;
	rfs-pass)
		pass_detach
		lab_restore_rps
		;;
	xdp|xdp-noguard|xdp-kernel|xdp-batch)
		# rfsd sets the policy within a second of a kthread's first
		# batch: the server's CPU must have got it during the cell
		ks=$(mode_ksched "$1")
		[ -z "$ks" ] || ksched_check "$1" "${ks#*|}"
		ctl detach "$A" >/dev/null || warn "rfsctl detach $A failed"
		rfsd_stop
		;;
	cpumap) cpumap_detach ;;
	pass) pass_detach ;;
	sock)
		rfsd_stop
		pass_detach
		;;
	tp-floor)
		tp_floor_stop
		pass_detach
		;;
	esac
}

# tp-floor: bench/floor's empty programs, among them one on each socket
# tracepoint rfsd hooks, with nothing else of xdp-rfs loaded
TP_FLOOR_PID=
tp_floor_start()
{
	bg_attached "$WORK/tp_floor.out" "$FLOOR" ||
		die "mode tp-floor: $FLOOR did not attach: $(cat "$WORK/tp_floor.out")"
	TP_FLOOR_PID=$BG_PID
}

tp_floor_stop()
{
	[ -n "$TP_FLOOR_PID" ] || return 0
	stop_pid "$TP_FLOOR_PID" 5
	TP_FLOOR_PID=
}

pass_attach()
{
	ip link set dev "$A" xdpdrv obj "$WORK/xdp_pass.o" sec xdp ||
		die "can't attach the XDP_PASS program to $A"
}

pass_detach()
{
	ip link set dev "$A" xdpdrv off || die "can't detach XDP from $A"
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

# Does mode $1 run workload $2 in round $3?  The comparison workloads
# (rr-many, rpc, order-*) run in base rps rfs xdp xdp-noguard; rr-many and
# rpc also in rfs-pass (kernel RFS on xdp-rfs's receive path); order-bulk
# also in cpumap and pass, the ordering floor of the path itself (a bare
# redirect to the receiver's first CPU, and no redirect at all).  Of the
# sockperf/iperf3 ones (rounds 1..OLD_ROUNDS only): cpumap sends every
# flow to one CPU: no multi; pass and rfs-pass no multi either (rr and
# bulk tell what they stand for); sock (the socket side's cost) and
# tp-floor (the least a socket side on those tracepoints costs) rr and
# rr-local; rps (a reference there) only rr and multi; xdp-noguard none
# (nothing in them moves a flow).
applies()
{
	case " $NEW_WORKLOADS " in
	*" $2 "*)
		case $1:$2 in
		cpumap:order-bulk|pass:order-bulk) return 0 ;;
		rfs-pass:rr-many|rfs-pass:rpc) return 0 ;;
		xdp-kernel:rr-many|xdp-kernel:rpc) return 0 ;;
		xdp-kernel:*) return 1 ;;
		xdp-batch:*) return 0 ;;
		cpumap:*|pass:*|rfs-pass:*|sock:*|tp-floor:*) return 1 ;;
		*) return 0 ;;
		esac
		;;
	esac
	[ "${3:-1}" -le "$OLD_ROUNDS" ] || return 1
	# quick: the diagnostic modes and rps are left out of these
	[ -z "$QUICK" ] || case $1 in base|xdp) ;; *) return 1 ;; esac
	case $1:$2 in
	cpumap:multi) return 1 ;;
	pass:multi|rfs-pass:multi) return 1 ;;
	sock:rr|sock:rr-local|tp-floor:rr|tp-floor:rr-local) return 0 ;;
	sock:*|tp-floor:*) return 1 ;;
	rps:rr|rps:multi) return 0 ;;
	rps:*) return 1 ;;
	xdp-noguard:*) return 1 ;;
	xdp-kernel:rr|xdp-kernel:bulk) return 0 ;;
	xdp-kernel:*) return 1 ;;
	xdp-batch:rr|xdp-batch:bulk) return 0 ;;
	xdp-batch:*) return 1 ;;
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
