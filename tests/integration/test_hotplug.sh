#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CPU hotplug for real: CPU 1 (HOTPLUG_CPU) goes offline under traffic
# that xdp-rfs steers to it, and comes back.  What rfsd does about it
# (daemon/lib/rfs_dp.c rfs_dp_sync_cpumap, rfs_iface.c rfs_if_refresh): the
# offline CPU leaves every interface's allowed set at the next refresh
# (1 s), stays usable while a flow still has frames in flight there (its
# cpumap kthread, unbound, drains them on another CPU), and keeps its
# cpumap entry; when it is back the entry is remade once nothing is in
# flight there, its new kthread made SCHED_FIFO 1 (rfsd's default policy)
# before any frame, and then it is allowed again.
#
# The CPU is brought back by the EXIT trap and, in case this shell is
# killed before it runs, by a watchdog started (setsid, its own session)
# before the CPU goes offline, which puts it online HOTPLUG_WATCHDOG
# seconds (default 60) after it went offline, whatever happened; the trap
# ends the watchdog, by its PID, when the test ends.  The machine is never
# left with a CPU offline that this test took away.  The watchdog counts
# from the end of the offline, not its start: beside busy loops taking a
# CPU offline has taken minutes, and an online written meanwhile waits
# for it and undoes it at once.
#
# Oracles: order, tests/tools/rfs_seq (numbered UDP, counted by the
# receivers: 0 inversions); where the stack ran, net:netif_receive_skb on
# the lab veth per CPU (lab.sh cpu_frames).
#
#	tests/integration/test_hotplug.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.
# Knobs: HOTPLUG_CPU (default 1), HOTPLUG_WATCHDOG (s, default 60),
# HOTPLUG_FLOWS (default 8), HOTPLUG_PPS (per flow, default 2000),
# HOTPLUG_SECS (traffic, at most; default 600: the test ends it).

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_cpu_offline_online
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

SEQ=$LAB_BUILD/tests/rfs_seq
HP_CPU=${HOTPLUG_CPU:-1}
HP_ONLINE=/sys/devices/system/cpu/cpu$HP_CPU/online
HP_WATCHDOG=${HOTPLUG_WATCHDOG:-60}
HP_FLOWS=${HOTPLUG_FLOWS:-8}
HP_PPS=${HOTPLUG_PPS:-2000}
# the traffic's limit: seq_result ends it once the checks are done (a CPU
# going offline under load has taken most of a minute)
HP_SECS=${HOTPLUG_SECS:-600}
MIN_SHARE=90			# percent, as in test_steering.sh
SEQ_PORT=$((LAB_PORT + 500))	# receivers here, senders +1000
# how long the watchdog waits for the offline to begin taking effect
HP_OFF_MAX=1800
HP_WD_PID=
HP_WD_START=

# ------------------------------------------------------ CPU and watchdog

hp_online() { [ "$(cat "$HP_ONLINE" 2>/dev/null)" = 1 ]; }

# Put the CPU back online (if we took it), a few tries: the kernel refuses
# while another hotplug operation runs.
hp_restore()
{
	local i
	if [ -n "${HP_TOOK:-}" ]; then
		for ((i = 0; i < 20; i++)); do
			hp_online && break
			echo 1 > "$HP_ONLINE" 2>/dev/null && break
			sleep 0.5
		done
		hp_online || lab_warn "CPU $HP_CPU is still offline; the watchdog (PID $HP_WD_PID) will retry"
		hp_online && HP_TOOK=
	fi
	# the watchdog is left running only if the CPU is not back
	hp_online && hp_watchdog_stop
	return 0
}

# The watchdog: a session of its own (setsid: no signal to this test's
# process group reaches it, nor tests/run.sh's timeout), which writes its
# PID, waits (up to HP_OFF_MAX s) for the CPU to be offline, sleeps, and
# puts the CPU online.
hp_watchdog_start()
{
	local f=$LAB_DIR/watchdog.pid i
	rm -f "$f"
	# shellcheck disable=SC2016
	setsid bash -c 'echo $$ > "$1.tmp" && mv "$1.tmp" "$1"
		for ((i = 0; i < $4 * 2; i++)); do
			[ "$(cat "$3")" = 0 ] && break
			sleep 0.5
		done
		sleep "$2"
		echo 1 > "$3"' rfs-hotplug-watchdog "$f" "$HP_WATCHDOG" \
		"$HP_ONLINE" "$HP_OFF_MAX" </dev/null >/dev/null 2>&1 &
	for ((i = 0; i < 50; i++)); do
		[ -s "$f" ] && break
		sleep 0.1
	done
	[ -s "$f" ] || fail "the hotplug watchdog did not start"
	HP_WD_PID=$(cat "$f")
	HP_WD_START=$(lab_starttime "$HP_WD_PID")
}

# End the watchdog and its sleep: its process group (it leads its
# session), only if the PID is still the watchdog we started.
hp_watchdog_stop()
{
	[ -n "$HP_WD_PID" ] || return 0
	if [ -d "/proc/$HP_WD_PID" ] &&
	   [ "$(lab_starttime "$HP_WD_PID")" = "$HP_WD_START" ]; then
		kill -TERM -- "-$HP_WD_PID" 2>/dev/null
	fi
	HP_WD_PID=
}

# HP_OFF_SECS: how long the kernel took
hp_offline()
{
	local t0
	hp_watchdog_start
	HP_TOOK=1
	t0=$(date +%s)
	echo 0 > "$HP_ONLINE" || fail "can't take CPU $HP_CPU offline"
	HP_OFF_SECS=$(($(date +%s) - t0))
}

# ---------------------------------------------------------------- traffic

# HP_FLOWS numbered UDP flows from $LAB_NS (one sender, pinned to $1) to
# receivers in the root namespace pinned to $2, for HP_SECS.
seq_start()
{
	local send_cpu=$1 recv_cpu=$2 i ready
	HP_RECV=()
	for ((i = 0; i < HP_FLOWS; i++)); do
		lab_bg taskset -c "$recv_cpu" "$SEQ" recv "$LAB_IP4_A" \
			$((SEQ_PORT + i)) "$LAB_IP4_B" $((SEQ_PORT + 1000 + i)) \
			$((HP_SECS + 5)) > "$LAB_DIR/seq.recv.$i"
		HP_RECV+=("$LAB_BG_PID")
	done
	for ((i = 0; i < 50; i++)); do
		ready=$(ss -Huan "( sport >= :$SEQ_PORT and sport < :$((SEQ_PORT + HP_FLOWS)) )" |
			wc -l)
		[ "$ready" -ge "$HP_FLOWS" ] && break
		sleep 0.1
	done
	[ "$ready" -ge "$HP_FLOWS" ] || fail "only $ready of $HP_FLOWS receivers bound"
	lab_bg_ns taskset -c "$send_cpu" "$SEQ" send "$LAB_IP4_B" \
		$((SEQ_PORT + 1000)) "$LAB_IP4_A" "$SEQ_PORT" "$HP_SECS" \
		"$HP_PPS" "$HP_FLOWS" > "$LAB_DIR/seq.send" 2>&1
	HP_SEND=$LAB_BG_PID
}

# Move every receiver to CPU $1 (after the CPU came back: going offline
# reset their affinity).
seq_pin() { local p; for p in "${HP_RECV[@]}"; do lab_pin "$p" "$1"; done; }

# End the traffic: the sender first, the receivers once what it sent has
# landed (SIGTERM: each prints its totals); HP_RESULT="sent received
# inversions lost".
seq_result()
{
	local p rc=0
	kill -TERM "$HP_SEND" 2>/dev/null
	lab_wait "$HP_SEND" 20 || rc=$?
	[ $rc -eq 0 ] || fail "rfs_seq send failed (exit $rc): $(cat "$LAB_DIR/seq.send")"
	sleep 0.5
	for p in "${HP_RECV[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${HP_RECV[@]}"; do
		lab_wait "$p" 30 || fail "an rfs_seq receiver failed"
	done
	HP_RESULT=$(cat "$LAB_DIR"/seq.recv.* "$LAB_DIR/seq.send" | "$LAB_PY" -c '
import json, sys
t = {"sent": 0, "received": 0, "inversions": 0, "lost": 0}
for line in sys.stdin:
    d = json.loads(line)
    for k in t:
        t[k] += d.get(k, 0)
print(t["sent"], t["received"], t["inversions"], t["lost"])') ||
		fail "can't read the rfs_seq results"
}

# ---------------------------------------------------------------- checks

# Wait up to $1 seconds for rfsd's log to have a line matching $2 (grep
# -E) after line $3.
log_wait()
{
	local t=$1 re=$2 from=${3:-0} i
	for ((i = 0; i < t * 10; i++)); do
		tail -n +"$((from + 1))" "$RFSD_LOG" | grep -qE "$re" && return 0
		sleep 0.1
	done
	return 1
}

log_lines() { wc -l < "$RFSD_LOG"; }

active_cpus() { lab_if_status "$LAB_A" | jget 'd["active_cpus"]'; }

# Wait up to $1 s for active_cpus to be $2 (JSON, e.g. [0, 1]).
active_wait()
{
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		[ "$(active_cpus)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# The share of the lab's frames the stack took on CPU $1, measured over
# 2 s windows until it is at least MIN_SHARE or $2 windows went by.
share_wait()
{
	local cpu=$1 n=$2 i frames
	for ((i = 0; i < n; i++)); do
		frames=$(cpu_frames 2)
		HP_SHARE=$(share_of "$cpu" <<< "$frames")
		HP_SHARES=$(fmt_shares <<< "$frames")
		[ "$HP_SHARE" -ge "$MIN_SHARE" ] && return 0
	done
	return 1
}

# A CPU taken offline under traffic and brought back.  Flows
# steered to CPU 1 (receivers pinned there, the sender on CPU 0) leave it
# when it goes (the kernel moves the receivers to CPU 0) with no datagram
# reordered; rfsd logs the change and the removal; CPU 1 leaves the
# interface's active CPUs; when it is back rfsd logs it and remakes its
# cpumap queue, the CPU is active again, and once the receivers are on it
# again the stack takes >= 90 % of the frames there, as before.
test_cpu_offline_online()
{
	local other l0 sent recv inv lost n
	lab_require_root
	lab_need_bins
	lab_need perf taskset setsid
	[ -x "$SEQ" ] || skip "$SEQ is not built (make)"
	[ -e "$HP_ONLINE" ] || skip "CPU $HP_CPU has no $HP_ONLINE (absent, or the boot CPU)"
	[ -w "$HP_ONLINE" ] || skip "$HP_ONLINE is not writable here"
	hp_online || skip "CPU $HP_CPU is offline already"
	other=$(lab_online_cpus | grep -vx "$HP_CPU" | head -n 1)
	[ -n "$other" ] || skip "needs another online CPU besides $HP_CPU"
	trap 'hp_restore; lab_down' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	lab_up
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
	[ "$(active_cpus)" = "$(lab_online_cpus | "$LAB_PY" -c 'import sys; print([int(l) for l in sys.stdin])')" ] ||
		fail "active CPUs of $LAB_A are $(active_cpus) at start"

	seq_start "$other" "$HP_CPU"
	sleep 2
	share_wait "$HP_CPU" 3 ||
		fail "before: flows not steered to CPU $HP_CPU: $HP_SHARES"
	say "before: $HP_SHARES"

	l0=$(log_lines)
	hp_offline
	say "CPU $HP_CPU offline, in ${HP_OFF_SECS}s (watchdog PID $HP_WD_PID puts it back in ${HP_WATCHDOG}s otherwise)"
	log_wait 5 "CPU $HP_CPU: went offline \\(online CPUs .* -> " "$l0" ||
		fail "rfsd did not log the online CPUs changing"
	log_wait 10 "iface '$LAB_A' \\(ifindex [0-9]+\\): CPU $HP_CPU removed: no flow in flight there any more" "$l0" ||
		fail "rfsd did not log CPU $HP_CPU leaving $LAB_A"
	active_wait 5 "[$other]" || fail "active CPUs of $LAB_A are $(active_cpus) with CPU $HP_CPU offline"
	say "rfsd: $(tail -n +"$((l0 + 1))" "$RFSD_LOG" | grep -E 'went offline|came online|active cpus|CPU [0-9]+ removed' | sed "s/^rfsd: //" | tr "\n" ";")"
	share_wait "$other" 1 || fail "offline: frames not on CPU $other: $HP_SHARES"
	say "offline: $HP_SHARES"
	ctlj stats "$LAB_A" >/dev/null || fail "rfsctl stats failed with CPU $HP_CPU offline"
	sleep 2

	l0=$(log_lines)
	echo 1 > "$HP_ONLINE" || fail "can't put CPU $HP_CPU back online"
	hp_online && HP_TOOK=
	hp_watchdog_stop
	say "CPU $HP_CPU online again"
	log_wait 5 "CPU $HP_CPU: came online \\(online CPUs .* -> " "$l0" ||
		fail "rfsd did not log CPU $HP_CPU coming back"
	log_wait 10 "CPU $HP_CPU: cpumap queue remade \\(back online\\)" "$l0" ||
		fail "rfsd did not remake CPU $HP_CPU's cpumap queue"
	# the new queue's kthread gets the default policy (SCHED_FIFO 1) as it
	# is made, before any flow is steered back there (ksched.c)
	log_wait 5 "cpu $HP_CPU: cpumap kthread pid [0-9]+ -> SCHED_FIFO 1" "$l0" ||
		fail "CPU $HP_CPU's new cpumap kthread did not get SCHED_FIFO 1 before traffic: $(tail -n +"$((l0 + 1))" "$RFSD_LOG" | grep -i kthread)"
	active_wait 5 "$(lab_online_cpus | "$LAB_PY" -c 'import sys; print([int(l) for l in sys.stdin])')" ||
		fail "active CPUs of $LAB_A are $(active_cpus) with CPU $HP_CPU back"
	say "rfsd: $(tail -n +"$((l0 + 1))" "$RFSD_LOG" | grep -E 'came online|active cpus|cpumap queue remade' | sed "s/^rfsd: //" | tr "\n" ";")"
	seq_pin "$HP_CPU"
	share_wait "$HP_CPU" 4 ||
		fail "after: flows not steered back to CPU $HP_CPU: $HP_SHARES"
	say "after: $HP_SHARES"
	say "rfsd: $(tail -n +"$((l0 + 1))" "$RFSD_LOG" | grep -E "cpumap kthread" | sed "s/^rfsd: //" | tr "\n" ";")"
	# one kthread got the policy since the CPU came back, the new one:
	# never the one it replaced (same name until it has drained, and
	# named by the datapath until the new one has run)
	n=$(tail -n +"$((l0 + 1))" "$RFSD_LOG" |
		sed -n "s/.*cpu $HP_CPU: cpumap kthread pid \([0-9]*\) -> .*/\1/p" | sort -u | wc -l)
	[ "$n" -eq 1 ] ||
		fail "$n kthreads of CPU $HP_CPU got a policy since it came back, want the new one alone"

	say "ending the traffic"
	seq_result
	read -r sent recv inv lost <<< "$HP_RESULT"
	say "rfs_seq: $HP_FLOWS flows, sent $sent, received $recv, inversions $inv, lost $lost"
	[ "$inv" = 0 ] || fail "$inv datagrams arrived out of order across the hotplug"
	[ "$recv" -gt 0 ] || fail "nothing received"
}

lab_trap
lab_run_tests test_hotplug "${*:-$ALL_TESTS}"
