# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The profile session, sourced by bench/run.sh (which has the lab, the
# modes and the rr servers by then): profile_xdp runs it after the rounds;
# bench/profile.py turns its raw files into $OUT/profile.json and prints
# its two PROFILE lines.

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

# bench/floor (empty programs on sock_recv_length, sock_send_length and
# xdp_cpumap_kthread)
# through the session: what a run that does nothing costs here, which
# every ns/run of the session includes.  Left out, with a warning, where
# it can't attach.
FLOOR=$BUILD/bench/floor
FLOOR_PID=
floor_start()
{
	[ -x "$FLOOR" ] || { warn "profile: $FLOOR is not built: no empty-program floor"; return 0; }
	if bg_attached "$WORK/floor.out" "$FLOOR"; then
		FLOOR_PID=$BG_PID
	else
		warn "profile: no empty-program floor: $(cat "$WORK/floor.out")"
	fi
}

floor_stop()
{
	[ -n "$FLOOR_PID" ] || return 0
	stop_pid "$FLOOR_PID" 5
	FLOOR_PID=
}

# rr once more with the stats off, under perf record -a (cpu-clock at
# SAMPLE_HZ; 0: not run): BPF time per transaction without the stats'
# two clock reads per run, from where the samples fell, per program and
# CPU (bench/profile.py adds them up; rfs_* programs by name, so
# another rfsd's would count too).  Samples, not runs: no per-run
# floor to subtract, and what a hook's dispatch costs outside the
# program is not counted.
SAMPLE_HZ=${SAMPLE_HZ:-10000}
rr_sampled()
{
	local ppid
	[ "$SAMPLE_HZ" -gt 0 ] || return 0
	bg perf record -a -q -e cpu-clock -F "$SAMPLE_HZ" -o "$WORK/rr.sampled.data"
	ppid=$BG_PID
	sleep 0.5
	pp_client "$CLI_CPU" "$PORT" "$WORK/pp.prof.rr-sampled"
	is_ours "$ppid" && kill -INT "$ppid" 2>/dev/null
	wait "$ppid" 2>/dev/null
	if ! perf script -i "$WORK/rr.sampled.data" -F cpu,ip,sym 2>/dev/null |
		awk '{ n[$1 " " $3]++ } END { for (k in n) print n[k], k }' \
		> "$WORK/rr.sampled.syms" || [ ! -s "$WORK/rr.sampled.syms" ]; then
		warn "profile: perf record -a gave no samples: no sampled BPF time"
		rm -f "$WORK/rr.sampled.syms"
		return 0
	fi
	echo "hz $SAMPLE_HZ srv_cpu $SRV_CPU cli_cpu $CLI_CPU" > "$WORK/rr.sampled.meta"
	rm -f "$WORK/rr.sampled.data"
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
	floor_start
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
	floor_stop
	rr_sampled
	bpftool -j link show > "$WORK/links.json" 2>/dev/null || echo '[]' > "$WORK/links.json"
	python3 "$TOP/bench/profile.py" analyse "$PIN" "$A" "$WORK" > "$OUT/profile.json"
	mode_off xdp
	python3 "$TOP/bench/profile.py" print "$OUT/profile.json" >&2
}
