#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A CPU taken out of an interface's set while a flow still holds it: it
# stays usable until the flow is proven drained, and rfsd says so.
# `rfsctl set cpus` returns at once and reports the removal pending;
# status (plain and JSON), explain and /metrics (rfsctl stats --format
# prometheus, the same text) show the leaving CPU, how long it has
# waited and the flow with its reason; rfsd warns past
# leaving_warn_seconds, naming the flow; and once the flow drains the
# CPU is released and every report says so.
#
#	tests/integration/test_leaving.sh [test_name...]
#
# The held flow is made by hand: its dev flow entry says its last frame
# went from CPU A to CPU B with a sequence number B's cpumap program has
# never marked dequeued, which is what a flow whose frames never leave a
# gap looks like to the drain test at every look.  Real traffic can't be
# made to do that on demand (a veth lab drains in microseconds), and the
# test is about what is reported, not about the drain proof
# (tests/unit/test_order_sim.c, test_hotplug.sh).

ALL_TESTS="
	test_leaving_reported
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

CPU_LIST=($(lab_online_cpus))
CPU_A=${CPU_LIST[0]}
CPU_B=${CPU_LIST[1]:-}
# a TCP flow to the lab's server port; any tuple would do
SRC=$LAB_IP4_B
DST=$LAB_IP4_A
SPORT=40123
WARN_S=2

setup()
{
	lab_trap
	[ -n "$CPU_B" ] || skip "needs 2 online CPUs (have ${#CPU_LIST[@]})"
	lab_need bpftool
	lab_up
	lab_init
	printf '[global]\nleaving_warn_seconds = %s\n' "$WARN_S" \
		> "$LAB_DIR/rfsd.conf"
	lab_start_rfsd
	ctl attach "$LAB_A" --cpus "$CPU_A,$CPU_B" >/dev/null ||
		fail "rfsctl attach $LAB_A failed"
}

# A little-endian hex byte list of a u32 (bpftool's "hex" form).
le32() { printf '%02x %02x %02x %02x' $(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }

# Write dev flow entry $1 of the interface's current table: last $2, cpu
# $3, flags $4, rx_cpu $5 (struct rfs_dev_flow, include/rfs_common.h:
# last, then rx_cpu in 16 bits, cpu, flags).
dev_entry()
{
	bpftool map update pinned "$RFS_PIN_V/if/$LAB_A/rfs_dev_flows" \
		key hex $(le32 "$1") \
		value hex $(le32 "$2") $(printf '%02x %02x %02x %02x' \
			$(($5 & 255)) $(($5 >> 8)) "$3" "$4") ||
		fail "can't write dev flow entry $1"
}

explain_json() { ctlj explain "$LAB_A" "$SRC" "$DST" "$SPORT" "$LAB_PORT" tcp; }

iface_json() { lab_if_status "$LAB_A"; }

prom_line() { ctl stats --format prometheus | grep "^rfs_$1{interface=\"$LAB_A\"}"; }

test_leaving_reported()
{
	local slot out n
	setup
	slot=$(explain_json | jget 'd["rx_queues"][0]["slot"]') ||
		fail "no dev slot for the flow"
	# seq far past anything sent: never dequeued, never proven
	dev_entry "$slot" $((0x40000000)) "$CPU_B" 1 "$CPU_A"
	say "flow at dev slot $slot: RX CPU $CPU_A -> CPU $CPU_B, not dequeued"

	# set cpus returns at once, the removal pending in its reply
	out=$(timeout 10 "$RFSCTL" --socket "$RFS_SOCK" -j set cpus "$LAB_A" "$CPU_A") ||
		fail "rfsctl set cpus did not return at once: $out"
	n=$(jget '[(c["cpu"], c["flows"]) for c in d["leaving"]]' <<< "$out")
	[ "$n" = "[[$CPU_B, 1]]" ] ||
		fail "set cpus reply: leaving $n, want CPU $CPU_B with 1 flow: $out"
	out=$(ctl set cpus "$LAB_A" "$CPU_A") || fail "rfsctl set cpus failed"
	grep -q "leaving.*cpu $CPU_B, .*waits for 1 flow" <<< "$out" ||
		fail "plain set cpus does not say the removal is pending: $out"

	# status, JSON: since when, the flow, why
	out=$(iface_json)
	jget 'd["active_cpus"] == ['"$CPU_A"'] and d["held_flows"] == 1' \
		<<< "$out" | grep -q true ||
		fail "status: active_cpus/held_flows wrong: $out"
	n=$(jget 'd["leaving"][0]["held"][0]' <<< "$out")
	jget '(d["slot"], d["cpu"], d["rx_cpu"], d["reason"], d["table"])' \
		<<< "$n" | grep -qx "\[$slot, $CPU_B, $CPU_A, \"queued\", \"current\"\]" ||
		fail "status: the held flow is wrong: $n"
	jget 'd["leaving"][0]["since"] <= __import__("time").time()' \
		<<< "$out" | grep -q true || fail "status: no since: $out"
	# status, plain
	out=$(ctl status)
	grep -q "dev slot $slot (rx queue 0, hash .*RX CPU $CPU_A -> CPU $CPU_B, seq 1073741824: its last frame is not dequeued yet (ring busy" \
		<<< "$out" || fail "plain status does not name the flow: $out"
	say "status: $(grep -A1 '  leaving' <<< "$out" | tr -s ' ' | tr '\n' ' ')"

	# explain, for this one flow
	out=$(explain_json)
	n=$(jget 'd["rx_queues"][0]["hold"]' <<< "$out")
	jget '(d["cpu"], d["reason"], d["cpu_leaving"])' <<< "$n" |
		grep -qx "\[$CPU_B, \"queued\", true\]" ||
		fail "explain: hold is wrong: $n"
	out=$(ctl explain "$LAB_A" "$SRC" "$DST" "$SPORT" "$LAB_PORT" tcp)
	grep -q "CPU $CPU_B is leaving this interface" <<< "$out" ||
		fail "plain explain does not say its CPU is leaving: $out"

	# /metrics' text
	prom_line interface_leaving_cpus | grep -q ' 1$' ||
		fail "metrics: $(prom_line interface_leaving_cpus)"
	prom_line interface_held_flows | grep -q ' 1$' ||
		fail "metrics: $(prom_line interface_held_flows)"
	prom_line interface_leaving_wait_seconds |
		awk '{ exit !($2 > 0) }' ||
		fail "metrics: $(prom_line interface_leaving_wait_seconds)"

	# the warning past the bound, naming the flow
	lab_wait_log "CPU $CPU_B still leaving after [0-9]* s, kept usable by 1 flow .*dev slot $slot " \
		$((WARN_S + 5)) || fail "rfsd did not warn of the stuck removal"
	say "log: $(grep -o "CPU $CPU_B still leaving.*" "$RFSD_LOG" | head -1 | cut -c1-160)"

	# the flow drains: the CPU is released, the reports empty
	dev_entry "$slot" 0 0 0 0
	lab_wait_log "CPU $CPU_B removed: no flow in flight there any more" 5 ||
		fail "CPU $CPU_B was not released once its flow drained"
	out=$(iface_json)
	jget 'd["leaving"] == [] and d["held_flows"] == 0' <<< "$out" |
		grep -q true || fail "status after the release: $out"
	prom_line interface_leaving_cpus | grep -q ' 0$' ||
		fail "metrics after the release: $(prom_line interface_leaving_cpus)"
	jget 'd["rx_queues"][0]["hold"]' < <(explain_json) | grep -qx null ||
		fail "explain after the release still shows a hold"
}

lab_need ip bpftool "$LAB_PY"
lab_run_tests test_leaving "${*:-$ALL_TESTS}"
