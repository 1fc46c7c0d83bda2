#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: xdp-rfs steering a live request/response workload, and
# following the server when it moves to another CPU.  Run as root after
# make (make demo builds first).  Everything it makes (a network namespace,
# a veth pair, an rfsd with its pins and socket) is removed on exit,
# Ctrl-C and failure alike.  Exit 0 when the frames followed the server,
# 1 otherwise.
#
# Knobs: DEMO_SECS (seconds per measurement, default 3).

. "$(dirname "${BASH_SOURCE[0]}")/../tests/lib/lab.sh"

SECS=${DEMO_SECS:-3}
MIN_SHARE=90
CPU_FROM=0
CPU_TO=1

step()
{
	printf '\n==> %s\n' "$1"
	shift
	local l
	for l in "$@"; do
		printf '    %s\n' "$l"
	done
}

die()
{
	printf '\ndemo: %s\n' "$*" >&2
	exit 1
}

# "cpu n" lines -> the percent of CPU $1, one decimal
pct()
{
	awk -v c="$1" '{ t += $2; if ($1 == c) m = $2 }
		END { if (t == 0) print "-"; else printf "%.1f%%\n", 100 * m / t }'
}

# rfsd's own view, per CPU: frames its cpumap program ran on there, plus
# frames passed up there on the local path (the app runs on the RX CPU)
dequeued()
{
	ctlj stats "$LAB_A" |
		jget '"\n".join("%d %d" % (c["cpu"], c["dequeued"] + c["local"]) for c in d["per_cpu"])'
}

# One measurement: the kernel oracle and rfsd's counters over the same
# $SECS seconds.  Sets ORACLE and COUNTERS ("cpu n" lines).
measure()
{
	local d0 d1
	d0=$(dequeued)
	ORACLE=$(cpu_frames "$SECS" "$MAPID")
	d1=$(dequeued)
	COUNTERS=$(join <(sort -n <<< "$d0") <(sort -n <<< "$d1") |
		awk '{ print $1, $3 - $2 }' | sort -n)
}

show_flows()
{
	printf '    rfsctl flows (the busiest flows; desired = where the server reads, current = where its frames go):\n'
	ctl flows "$LAB_A" --limit 4 | sed 's/^/      /'
}

# ------------------------------------------------------------------ main

[ "$(id -u)" -eq 0 ] || die "run as root (sudo make demo)"
[ -x "$RFSD" ] && [ -x "$RFSCTL" ] || die "build first: make"
for c in ip ethtool taskset bpftool; do
	command -v "$c" >/dev/null || die "'$c' is missing: make deps"
done
online=" $(lab_online_cpus | tr '\n' ' ')"
[[ $online == *" $CPU_FROM "* && $online == *" $CPU_TO "* ]] ||
	die "needs CPUs $CPU_FROM and $CPU_TO online (online:$online)"

trap 'step "Cleaning up" "stopping rfsd (SIGTERM leaves the datapath steering) and removing it (rfsd --cleanup), the workload, the namespace and the veth pair"; lab_down; echo "    done."' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cat <<EOF
xdp-rfs demo: Receive Flow Steering on XDP

An XDP program hashes every incoming flow, looks up the CPU on which the
application last read or wrote that flow's socket (recorded by BPF on
recv/send), and redirects the frame into that CPU's cpumap queue (or
passes it up right where it arrived, when that is the CPU), so the
kernel's network stack runs on the CPU where the data is consumed.  A flow
only moves once its frames queued on the old CPU are delivered: never
reordered.
EOF

step "1. The lab" \
	"a veth pair: $LAB_A (root namespace, $LAB_IP4_A) <-> $LAB_B (namespace $LAB_NS, $LAB_IP4_B)." \
	"The client runs in $LAB_NS; its frames arrive on $LAB_A, where XDP steers them."
lab_up
echo "    up."

step "2. Start rfsd and attach it to $LAB_A" \
	"rfsd loads the BPF programs, pins them under $RFS_PIN and serves rfsctl on $RFS_SOCK."
lab_start_rfsd
ctl attach "$LAB_A" >/dev/null || die "rfsctl attach $LAB_A failed"
MAPID=$(lab_cpumap_id)
ctl status | sed 's/^/      /'

step "3. A request/response workload, server pinned to CPU $CPU_FROM" \
	"An echo server in the root namespace on $LAB_IP4_A:$LAB_PORT, pinned to CPU $CPU_FROM;" \
	"a client in $LAB_NS pings it over 4 TCP connections (64-byte messages)."
lab_server "$CPU_FROM" "$LAB_IP4_A"
lab_client "$LAB_IP4_A" 120 4
sleep 1
echo "    running (server PID $LAB_SERVER_PID)."

step "4. Where do the frames go? (${SECS}s)" \
	"Two independent views: rfsd's own counters (frames dequeued per target CPU," \
	"or passed up locally) and the kernel's tracepoint net:netif_receive_skb on" \
	"$LAB_A (on which CPU the stack ran, per frame)."
measure
BEFORE_ORACLE=$ORACLE
BEFORE_COUNTERS=$COUNTERS
printf '    kernel oracle:  CPU %s %s, CPU %s %s\n' \
	"$CPU_FROM" "$(pct "$CPU_FROM" <<< "$ORACLE")" "$CPU_TO" "$(pct "$CPU_TO" <<< "$ORACLE")"
show_flows

step "5. Move the server to CPU $CPU_TO" \
	"taskset -a -pc $CPU_TO $LAB_SERVER_PID: the next recv() records CPU $CPU_TO for its flows," \
	"and XDP switches each flow once its frames still queued on CPU $CPU_FROM are drained."
lab_pin "$LAB_SERVER_PID" "$CPU_TO"
sleep 0.5
measure
AFTER_ORACLE=$ORACLE
AFTER_COUNTERS=$COUNTERS
printf '    kernel oracle:  CPU %s %s, CPU %s %s\n' \
	"$CPU_FROM" "$(pct "$CPU_FROM" <<< "$ORACLE")" "$CPU_TO" "$(pct "$CPU_TO" <<< "$ORACLE")"
show_flows

lab_signal "$LAB_CLIENT_PID" TERM
lab_wait "$LAB_CLIENT_PID" 10
rt=$(jget 'd["round_trips"]' < "$LAB_DIR/rr.out" 2>/dev/null)

step "6. rfsctl stats $LAB_A" \
	"to_desired: frames sent to the CPU their application runs on; switches: flows moved;" \
	"held: moves postponed until the old queue drained (that is what keeps order)."
ctl stats "$LAB_A" | sed 's/^/      /'

step "7. Before and after" \
	"Share of the steered frames per CPU over ${SECS}s, as rfsd counts them and as the kernel does."
printf '\n    %-26s %-22s %-22s\n' "" "rfsd counters" "kernel oracle"
printf '    %-26s %-10s %-11s %-10s %-11s\n' "" "CPU $CPU_FROM" "CPU $CPU_TO" "CPU $CPU_FROM" "CPU $CPU_TO"
printf '    %-26s %-10s %-11s %-10s %-11s\n' "before: server on CPU $CPU_FROM" \
	"$(pct "$CPU_FROM" <<< "$BEFORE_COUNTERS")" "$(pct "$CPU_TO" <<< "$BEFORE_COUNTERS")" \
	"$(pct "$CPU_FROM" <<< "$BEFORE_ORACLE")" "$(pct "$CPU_TO" <<< "$BEFORE_ORACLE")"
printf '    %-26s %-10s %-11s %-10s %-11s\n' "after:  server on CPU $CPU_TO" \
	"$(pct "$CPU_FROM" <<< "$AFTER_COUNTERS")" "$(pct "$CPU_TO" <<< "$AFTER_COUNTERS")" \
	"$(pct "$CPU_FROM" <<< "$AFTER_ORACLE")" "$(pct "$CPU_TO" <<< "$AFTER_ORACLE")"
printf '\n    frames seen by the oracle: %d before, %d after; %s round trips in all.\n' \
	"$(lab_total <<< "$BEFORE_ORACLE")" "$(lab_total <<< "$AFTER_ORACLE")" "${rt:-?}"

ok=1
b=$(share_of "$CPU_FROM" <<< "$BEFORE_ORACLE")
a=$(share_of "$CPU_TO" <<< "$AFTER_ORACLE")
[ "$(lab_total <<< "$BEFORE_ORACLE")" -gt 0 ] && [ "$b" -ge $MIN_SHARE ] || ok=
[ "$(lab_total <<< "$AFTER_ORACLE")" -gt 0 ] && [ "$a" -ge $MIN_SHARE ] || ok=
if [ -n "$ok" ]; then
	printf '\nResult: steering followed the server: %d%% of frames on CPU %s before the move, %d%% on CPU %s after.\n' \
		"$b" "$CPU_FROM" "$a" "$CPU_TO"
	exit 0
fi
printf '\nResult: FAILED: steering did not follow the server (want >= %d%%: %d%% on CPU %s before, %d%% on CPU %s after).\n' \
	"$MIN_SHARE" "$b" "$CPU_FROM" "$a" "$CPU_TO" >&2
printf 'rfsd log: last lines\n' >&2
tail -n 15 "$RFSD_LOG" >&2
exit 1
