#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The NIC-like receive path: UDP datagrams for many
# connected sockets, injected on CPU 0 as a NIC RX queue would deliver
# them (build/bench/inject: BPF_PROG_TEST_RUN with live frames on the lab
# interface's ifindex), read by threads pinned to every other CPU.  On veth
# the kernel's own receive runs in the sender's context; here, as on a NIC,
# one CPU receives everything and the question is what it hands on:
#
#   base         XDP_PASS: skb built and the whole stack run on CPU 0
#   rps          XDP_PASS, rps_cpus = every CPU on the lab queue: skb
#                built on CPU 0, the stack on the CPU the hash picks
#   rfs          rps plus rps_flow_cnt 4096 and rps_sock_flow_entries
#                32768: the stack on the CPU that last read the socket
#   xdp          rfsd's rfs_xdp: no skb on CPU 0, the frame goes through
#                the cpumap to the reader's CPU, whose kthread builds it
#   xdp-noguard  the same with the in-order rule off: rfsd --unsafe-noguard
#                and 'noguard = yes' where rfsd has them, else rfs_ifcfg
#                noguard 1 behind its back; checked in the pinned config
#   cpumap       the floor: bench/bare_redirect.bpf.c (build/bench/cost
#                --attach --pin), every frame into the cpumap to the last
#                CPU: what a cpumap hop costs the RX CPU before any
#                steering, the least any xdp mode's RX CPU can spend, so
#                the report's "x rfs" of it bounds xdp's
#
# Every frame first passes bench/inject.bpf.c, which gives it its flow
# (a port per socket, round robin) and tail-calls the program under test:
# the same front end for every mode.  A test run hands its 4096 frames
# over at once, 64 to each of 64 sockets: a burst that overflows default
# socket buffers and kernel RPS/RFS's backlog (1000) whatever the rate.
# So the sockets take NIC_RCVBUF bytes (default 4 MiB) and
# net.core.netdev_max_backlog is NIC_BACKLOG (default 16384; put back
# after, unless someone changed it meanwhile), as on a server that
# expects bursts: what is lost is then what a mode can't take, not the
# lab's bursts.  Per cell: --warmup seconds of
# traffic (RFS and rfsd learn each socket's CPU from its reads), then the
# measured window.  Rows (bench/tsv.sh), workload nic, param socks=N:
# delivered_pps, injected_pps, ns_per_frame (the injecting CPU's, from the
# kernel's test-run timer), wall_ns_per_frame, drops_rcvbuf (UDP
# RcvbufErrors), drops_backlog (softnet_stat), drops_cpumap (rfsd's ring
# drops), drops_early (rfsd's early_drop and early_drop_target: at the
# RX CPU and on the targets), drops_noport, drops_total (injected -
# delivered), drops_other
# (lost where none of those counts: the injector itself), socks_fed_pct,
# stack_off_rx_cpu_pct (softnet_stat "processed" off CPU 0: where the
# stack ran; RPS/RFS act when it is above 0).  The snmp and softnet
# counters are the root namespace's and the host's: other traffic on the
# machine is in them.
#
#   OUT=build/bench ROUNDS=3 QUICK= bench/nic.sh
#   bench/nic.sh [--out DIR] [--rounds N] [--quick]
#
# Run on its own (OUT without a meta.txt), it writes OUT/meta.txt too:
# the commit and the machine (bench/meta.sh), its settings, the time.
#
# The overload cell (workload nic-overload, the first socket count, each
# mode of NIC_OVERLOAD, default "rfs xdp"; empty: none; base's RX CPU
# runs the stack in the injector's place, so nothing can overload it).
# First the highest lossless offered rate: one thread as
# fast as it can, then up to NIC_OVER_PROBES (default 4) paced probes, up
# by half while lossless, then halving the gap (lossless: at most 0.1 %
# not delivered, the window's edges).  Then three times that rate, paced.
# Paced runs use as many threads on the same CPU as offer twice their
# rate at one thread's (a live-frames test run sleeps for most of its
# wall time), at most NIC_OVER_THREADS (default 32); the 3x run doubles
# them while it offers under 2.5x the lossless rate (row over_threads:
# how many it took).  Last a flood: that
# many threads as fast as they can, many times more.  Rows
# lossless_offered_pps, lossless_delivered_pps, over_offered_pps,
# over_delivered_pps, over_per_lossless (ratio; near 1 or above: no
# receive livelock), over_drops_early (xdp's early drops),
# over_stack_off_rx_cpu_pct (as in the nic cells), the same five flood_*,
# probes.  The cell warns where no rate was lossless, and where the
# overload run offered under 2.5x the lossless rate or had 90 % of what
# it offered delivered (no overload made).
#
# QUICK=1: 64 sockets, at most 2 rounds, 0.5 s warm-up, 1 s windows.
# NIC_MODES, NIC_SOCKS, NIC_SECS, NIC_WARMUP, NIC_RCVBUF, NIC_BACKLOG,
# NIC_OVERLOAD and NIC_OVER_* override.  NIC_UNCONNECTED=1: the sockets
# are bound, not connected, as a server that reads from anyone has them
# (inject --unconnected; param socks=N,unconnected): no steering learns
# a CPU from them, so every mode spreads their flows by hash, and rfsd's
# early drop marks the flows whose datagrams they refused.
# Root; exit 249 when it can't run here (one CPU, no build).

set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tests/lib/lab.sh
. tests/lib/lab.sh
# shellcheck source=bench/tsv.sh
. bench/tsv.sh
# shellcheck source=bench/meta.sh
. bench/meta.sh

OUT=${OUT:-build/bench}
ROUNDS=${ROUNDS:-3}
QUICK=${QUICK:-}
NIC_CMDLINE="$0${*:+ $*}"
# bench/run.sh's way of saying the same: --out DIR --rounds N --quick
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--quick) QUICK=1 ;;
	*) echo "usage: $0 [--out DIR] [--rounds N] [--quick]" >&2; exit 2 ;;
	esac
	shift
done
INJECT=$LAB_BUILD/bench/inject
IFCFG=$LAB_BUILD/tests/rfs_ifcfg
COST=$LAB_BUILD/bench/cost
if [ -n "$QUICK" ]; then
	((ROUNDS > 2)) && ROUNDS=2
	NIC_SOCKS=${NIC_SOCKS:-64}
	NIC_SECS=${NIC_SECS:-1}
	NIC_WARMUP=${NIC_WARMUP:-0.5}
else
	NIC_SOCKS=${NIC_SOCKS:-"64 256"}
	NIC_SECS=${NIC_SECS:-3}
	NIC_WARMUP=${NIC_WARMUP:-1}
fi
NIC_MODES=${NIC_MODES:-"base rps rfs cpumap xdp xdp-noguard"}
NIC_OVERLOAD=${NIC_OVERLOAD-"rfs xdp"}
NIC_OVER_THREADS=${NIC_OVER_THREADS:-32}
NIC_OVER_PROBES=${NIC_OVER_PROBES:-4}
NIC_RCVBUF=${NIC_RCVBUF:-4194304}
NIC_BACKLOG=${NIC_BACKLOG:-16384}
NIC_UNCONNECTED=${NIC_UNCONNECTED:-}
# the cells' param: socks=N, or socks=N,unconnected
NIC_PSUFFIX=${NIC_UNCONNECTED:+,unconnected}
INJ_CPU=0

SFE_FILE=/proc/sys/net/core/rps_sock_flow_entries
SFE_ORIG=$(cat "$SFE_FILE")
SFE_OURS=32768
SFE_SET=
BL_FILE=/proc/sys/net/core/netdev_max_backlog
BL_ORIG=$(cat "$BL_FILE")
BL_SET=

say() { printf '  nic     %s\n' "$*" >&2; }

# Put back the one host-wide setting touched here (the rest lives on the
# lab's interface and goes with it), unless someone changed it since.
nic_restore()
{
	if [ -n "$SFE_SET" ] && [ "$(cat "$SFE_FILE")" = "$SFE_OURS" ]; then
		echo "$SFE_ORIG" > "$SFE_FILE"
	fi
	SFE_SET=
}

# The backlog, the same way.
backlog_restore()
{
	if [ -n "$BL_SET" ] && [ "$(cat "$BL_FILE")" = "$NIC_BACKLOG" ]; then
		echo "$BL_ORIG" > "$BL_FILE"
	fi
	BL_SET=
}

nic_down()
{
	nic_restore
	backlog_restore
	bare_off
	lab_down
}

BARE_PID=
BARE_PIN=

# The cpumap mode's program: cost --attach, pinned for inject's --prog.
bare_on()
{
	BARE_PIN=$RFS_PIN-bare
	lab_bg_attached "$LAB_DIR/bare.out" "$COST" --attach "$LAB_A" \
		--target "$(lab_online_cpus | tail -n 1)" --pin "$BARE_PIN" ||
		fail "cost --attach did not attach: $(tail -n 2 "$LAB_DIR/bare.out")"
	BARE_PID=$LAB_BG_PID
}

# SIGTERM: it detaches and unpins (by PID, only the one started here)
bare_off()
{
	[ -n "$BARE_PID" ] || return 0
	lab_kill "$BARE_PID"
	BARE_PID=
	rm -f "$BARE_PIN"
}

RXQ=
ALLMASK=

# rfsd attaches the interfaces of its config as it starts
nic_wait_pin()
{
	local i
	for ((i = 0; i < 50; i++)); do
		[ -e "$RFS_PIN_V/if/$LAB_A/rfs_if_cfg" ] && return 0
		sleep 0.1
	done
	fail "rfsd did not attach $LAB_A from its config"
}

# The in-order rule is as the mode says: the field rfs_xdp reads.
nic_check_noguard()
{
	local got
	got=$("$IFCFG" "$RFS_PIN_V/if/$LAB_A/rfs_if_cfg" |
		awk '$1 == "noguard" { print $2 }')
	[ "$got" = "$1" ] || fail "noguard is '$got' on $LAB_A, want $1"
}

mode_on()
{
	echo 0 > "$RXQ/rps_flow_cnt"
	echo 0 > "$RXQ/rps_cpus"
	case $1 in
	base) ;;
	rps) echo "$ALLMASK" > "$RXQ/rps_cpus" ;;
	rfs)
		echo "$ALLMASK" > "$RXQ/rps_cpus"
		echo 4096 > "$RXQ/rps_flow_cnt"
		SFE_SET=1
		echo "$SFE_OURS" > "$SFE_FILE"
		;;
	xdp)
		: > "$LAB_DIR/rfsd.conf"
		lab_start_rfsd
		ctl attach "$LAB_A" >/dev/null || fail "can't attach rfsd to $LAB_A"
		nic_check_noguard 0
		;;
	xdp-noguard)
		# rfsd's own switch where it has one (a config key it honours
		# only under --unsafe-noguard), else the field set behind its
		# back (tests/tools/rfs_ifcfg)
		if "$RFSD" --help 2>&1 | grep -q -- --unsafe-noguard; then
			printf '[interface %s]\nnoguard = yes\n' "$LAB_A" > "$LAB_DIR/rfsd.conf"
			lab_start_rfsd --unsafe-noguard
			nic_wait_pin
		else
			: > "$LAB_DIR/rfsd.conf"
			lab_start_rfsd
			ctl attach "$LAB_A" >/dev/null || fail "can't attach rfsd to $LAB_A"
			"$IFCFG" "$RFS_PIN_V/if/$LAB_A/rfs_if_cfg" noguard 1 >/dev/null ||
				fail "can't set noguard on $LAB_A"
		fi
		nic_check_noguard 1
		;;
	cpumap) bare_on ;;
	*) fail "unknown mode '$1'" ;;
	esac
}

mode_off()
{
	echo 0 > "$RXQ/rps_flow_cnt"
	echo 0 > "$RXQ/rps_cpus"
	case $1 in
	rfs) nic_restore ;;
	cpumap) bare_off ;;
	xdp|xdp-noguard)
		ctl detach "$LAB_A" >/dev/null || lab_warn "can't detach rfsd from $LAB_A"
		lab_stop_rfsd
		"$RFSD" --cleanup --pin-dir "$RFS_PIN" >/dev/null 2>&1
		;;
	esac
}

# Inject in mode $1 for $2 sockets as fast as CPU 0 can, more inject
# options after, into $LAB_DIR/inject.out; 1 (warned) when it failed.
nic_inject()
{
	local mode=$1 n=$2 args=("${@:3}")
	[ -z "$NIC_UNCONNECTED" ] || args+=(--unconnected)
	mode_on "$mode"
	case $mode in
	xdp*) args+=(--prog "$RFS_PIN_V/if/$LAB_A/prog"
		    --gstats "$RFS_PIN_V/maps/rfs_gstats"
		    --ifstats "$RFS_PIN_V/if/$LAB_A/rfs_if_stats") ;;
	cpumap) args+=(--prog "$BARE_PIN") ;;
	esac
	if ! "$INJECT" --ifname "$LAB_A" --src "$LAB_IP4_B" --dst "$LAB_IP4_A" \
		--socks "$n" --port0 $((LAB_PORT + 1000)) --rport $((LAB_PORT + 999)) \
		--cpu "$INJ_CPU" --warmup "$NIC_WARMUP" --secs "$NIC_SECS" \
		--rcvbuf "$NIC_RCVBUF" "${args[@]}" > "$LAB_DIR/inject.out" 2> "$LAB_DIR/inject.err"; then
		lab_warn "nic: $mode socks=$n${3:+ (${*:3})} failed, left out: $(tail -n 2 "$LAB_DIR/inject.err")"
		mode_off "$mode"
		return 1
	fi
	mode_off "$mode"
}

# A value of the last nic_inject, rounded.
nic_val() { awk -v k="$1" '$1 == k { printf "%.0f\n", $2 }' "$LAB_DIR/inject.out"; }

# One cell: mode $1, $2 sockets, round $3.
cell()
{
	local mode=$1 n=$2 round=$3 out=$LAB_DIR/inject.out k v u
	nic_inject "$mode" "$n" || return 0
	while read -r k v; do
		case $k in
		*_pps) u=pps ;;
		*ns_per_frame) u=ns ;;
		*_pct) u=pct ;;
		secs) u=s ;;
		*) u=count ;;
		esac
		tsv_row nic "socks=$n$NIC_PSUFFIX" "$mode" "$round" "$k" "$v" "$u"

	done < "$out"
	[ "$(awk '$1 == "drops_noport" { print $2 }' "$out")" = 0 ] ||
		lab_warn "nic: $mode socks=$n: datagrams to no socket (check the frame)"
	say "$(printf 'round %s socks=%-4s %-11s %s' "$round" "$n" "$mode" \
		"$(awk '{ v[$1] = $2 } END { printf "delivered %d/s of %d/s, %.0f ns/frame on cpu 0, stack off cpu 0 %.0f%%", v["delivered_pps"], v["injected_pps"], v["ns_per_frame"], v["stack_off_rx_cpu_pct"] }' "$out")")"
}

# Was the last nic_inject lossless (at most 0.1 % of what it offered
# not delivered: frames in flight at the window's edges)?
nic_lossless()
{
	local inj del
	inj=$(nic_val injected_pps)
	del=$(nic_val delivered_pps)
	((inj > 0 && (inj - del) * 1000 <= inj))
}

# Injecting threads for a paced rate of $1 frames/s: as many as offer
# twice that at one thread's unpaced rate $2, at most NIC_OVER_THREADS.
# No more: each paced thread's last run may overshoot by a run's frames.
over_threads()
{
	local t=$(((2 * $1 + $2 - 1) / $2))
	((t >= 1)) || t=1
	((t <= NIC_OVER_THREADS)) || t=$NIC_OVER_THREADS
	echo "$t"
}

# A line for each probe of the overload cell's search.
over_say()
{
	say "$(printf 'round %s socks=%-4s %-11s probe: offered %d/s, delivered %d/s%s' \
		"$1" "$2" "$3" "$(nic_val injected_pps)" "$(nic_val delivered_pps)" \
		"$(nic_lossless && echo ', lossless')")"
}

# The overload cell's rows $4_* (over, flood) of the last nic_inject of
# mode $1, $2 sockets, round $3, against the lossless rate's delivered $5.
over_rows()
{
	local mode=$1 n=$2 round=$3 p=$4 lod=$5
	tsv_row nic-overload "socks=$n$NIC_PSUFFIX" "$mode" "$round" "${p}_offered_pps" "$(nic_val injected_pps)" pps
	tsv_row nic-overload "socks=$n$NIC_PSUFFIX" "$mode" "$round" "${p}_delivered_pps" "$(nic_val delivered_pps)" pps
	tsv_row nic-overload "socks=$n$NIC_PSUFFIX" "$mode" "$round" "${p}_per_lossless" \
		"$(awk -v a="$(nic_val delivered_pps)" -v b="$lod" 'BEGIN { printf "%.3f", a / b }')" ratio
	tsv_row nic-overload "socks=$n$NIC_PSUFFIX" "$mode" "$round" "${p}_drops_early" "$(nic_val drops_early)" count
	tsv_row nic-overload "socks=$n$NIC_PSUFFIX" "$mode" "$round" "${p}_stack_off_rx_cpu_pct" "$(nic_val stack_off_rx_cpu_pct)" pct
}

# The overload cell: the highest lossless offered rate, then 3x it.
overload()
{
	local mode=$1 n=$2 round=$3 lo=0 lod=0 hi=0 one rate probes=1 oo od i t
	nic_inject "$mode" "$n" || return 0
	over_say "$round" "$n" "$mode"
	one=$(nic_val injected_pps)
	((one > 0)) || return 0
	if nic_lossless; then
		lo=$(nic_val injected_pps)
		lod=$(nic_val delivered_pps)
	else
		hi=$(nic_val injected_pps)
	fi
	for ((i = 0; i < NIC_OVER_PROBES; i++)); do
		if ((hi == 0)); then
			rate=$((lo * 3 / 2))
		elif ((lo == 0)); then
			rate=$((hi / 2))
		else
			# within an eighth: close enough for a bar at 0.9x
			((hi * 8 > lo * 9)) || break
			rate=$(((lo + hi) / 2))
		fi
		((rate > 0)) || break
		nic_inject "$mode" "$n" --rate "$rate" \
			--threads "$(over_threads "$rate" "$one")" || return 0
		probes=$((probes + 1))
		over_say "$round" "$n" "$mode"
		if nic_lossless; then
			# the rate offered, which a busy injector may keep under
			# the one asked for
			lo=$(nic_val injected_pps)
			lod=$(nic_val delivered_pps)
			((hi == 0 || lo < hi)) || hi=0
		else
			hi=$(nic_val injected_pps)
		fi
	done
	tsv_row nic-overload "socks=$n$NIC_PSUFFIX" "$mode" "$round" probes "$probes" count
	if ((lo == 0)); then
		lab_warn "nic: $mode socks=$n: no offered rate was lossless (down to $hi/s), no overload cell"
		return 0
	fi
	t=$(over_threads $((lo * 3)) "$one")
	while :; do
		nic_inject "$mode" "$n" --rate $((lo * 3)) --threads "$t" || return 0
		oo=$(nic_val injected_pps)
		# the RX CPU, busy with what they inject, keeps paced threads
		# under their rate: more of them, each paced lower
		((oo * 2 < lo * 5 && t < NIC_OVER_THREADS)) || break
		t=$((t * 2 < NIC_OVER_THREADS ? t * 2 : NIC_OVER_THREADS))
		say "$(printf 'round %s socks=%-4s %-11s 3x offered %d/s, under 2.5x: again with %d threads' \
			"$round" "$n" "$mode" "$oo" "$t")"
	done
	od=$(nic_val delivered_pps)
	tsv_row nic-overload "socks=$n$NIC_PSUFFIX" "$mode" "$round" over_threads "$t" count
	tsv_row nic-overload "socks=$n$NIC_PSUFFIX" "$mode" "$round" lossless_offered_pps "$lo" pps
	tsv_row nic-overload "socks=$n$NIC_PSUFFIX" "$mode" "$round" lossless_delivered_pps "$lod" pps
	over_rows "$mode" "$n" "$round" over "$lod"
	say "$(printf 'round %s socks=%-4s %-11s lossless at %d/s (%d probes); offered %d/s: delivered %d/s, %d%% of lossless' \
		"$round" "$n" "$mode" "$lod" "$probes" "$oo" "$od" $((100 * od / lod)))"
	((oo * 2 >= lo * 5)) ||
		lab_warn "nic: $mode socks=$n: offered $oo/s, under 2.5x the lossless $lo/s: no overload made"
	((od * 10 < oo * 9)) ||
		lab_warn "nic: $mode socks=$n: $od/s of $oo/s offered were delivered: no overload made"
	# and a flood: every thread as fast as it can
	nic_inject "$mode" "$n" --threads "$NIC_OVER_THREADS" || return 0
	over_rows "$mode" "$n" "$round" flood "$lod"
	say "$(printf 'round %s socks=%-4s %-11s flood of %d threads: offered %d/s: delivered %d/s, %d%% of lossless' \
		"$round" "$n" "$mode" "$NIC_OVER_THREADS" "$(nic_val injected_pps)" \
		"$(nic_val delivered_pps)" $((100 * $(nic_val delivered_pps) / lod)))"
}

# Run alone (bench/run.sh writes its own), a meta.txt: the machine and
# what this run set.
nic_meta()
{
	TOP=$LAB_TOP BUILD=$LAB_BUILD meta_machine
	echo "command: $NIC_CMDLINE"
	echo "settings: ROUNDS $ROUNDS${QUICK:+ (quick)}, NIC_MODES '$NIC_MODES', NIC_SOCKS '$NIC_SOCKS', $NIC_WARMUP s warm-up, $NIC_SECS s windows, NIC_RCVBUF $NIC_RCVBUF, NIC_BACKLOG $NIC_BACKLOG, NIC_OVERLOAD '$NIC_OVERLOAD', NIC_OVER_PROBES $NIC_OVER_PROBES, NIC_OVER_THREADS $NIC_OVER_THREADS${NIC_UNCONNECTED:+, NIC_UNCONNECTED (sockets bound, not connected)}"
	echo "host_settings: net.core.rps_sock_flow_entries $SFE_ORIG, net.core.netdev_max_backlog $BL_ORIG at the start ($NIC_BACKLOG while it ran)"
}

main()
{
	local t0 r n m i modes nm meta=
	lab_require_root
	[ -x "$INJECT" ] || skip "$INJECT is not built (make bench)"
	[ "$(lab_online_cpus | wc -l)" -ge 2 ] || skip "needs 2 CPUs"
	case " $NIC_MODES " in
	*" xdp"*) lab_need_bins; [ -x "$IFCFG" ] || skip "$IFCFG is not built (make $IFCFG)" ;;
	esac
	case " $NIC_MODES " in
	*" cpumap "*) [ -x "$COST" ] || skip "$COST is not built (make bench)" ;;
	esac
	trap nic_down EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	t0=$(lab_now)
	tsv_init || fail "can't write $OUT/results.tsv"
	lab_up
	if [ ! -e "$OUT/meta.txt" ]; then
		meta=$OUT/meta.txt
		nic_meta > "$meta"
	fi
	BL_SET=1
	echo "$NIC_BACKLOG" > "$BL_FILE"
	RXQ=/sys/class/net/$LAB_A/queues/rx-0
	ALLMASK=$(printf '%x' $(( (1 << $(nproc --all)) - 1 )))
	read -ra modes <<< "$NIC_MODES"
	nm=${#modes[@]}
	for ((r = 1; r <= ROUNDS; r++)); do
		for n in $NIC_SOCKS; do
			# rotate the order each round: a noisy spell hits every
			# mode in turn
			for ((i = 0; i < nm; i++)); do
				m=${modes[$(((i + r - 1) % nm))]}
				cell "$m" "$n" "$r"
			done
		done
		# the first socket count only: a search and a run each
		for m in $NIC_OVERLOAD; do
			overload "$m" "${NIC_SOCKS%% *}" "$r"
		done
	done
	say "done in $(lab_since "$t0") s ($ROUNDS rounds, socks $NIC_SOCKS, ${NIC_SECS}s windows)"
	[ -z "$meta" ] || echo "seconds: $(lab_since "$t0")" >> "$meta"
}

main "$@"
