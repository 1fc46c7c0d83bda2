#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One config for a fleet: two lab "nodes", network namespaces made here
# with differently named veths, one rfsd.conf whose [interface ...]
# sections pick interfaces by pattern, by default route and with
# excludes.  In each node rfsd --check-config says what it would attach,
# then rfsd runs there (ip netns exec, with a bpffs and the cgroup2 root
# mounted in the mount namespace ip gives it) and attaches exactly that;
# an interface made, renamed or given a default route later is picked
# up, one excluded never is.
#
#   node A (rfsfa$$)  fa$$p0 fa$$p1 picked by 'fa*p?'; fa$$x0 excluded;
#                     their peers fa$$r0.. picked by nothing
#   node B (rfsfb$$)  fb$$e0 picked by 'fb*e?'; fb$$w0 by default-route;
#                     fb$$z0 once it gets a default route; fb$$x1 never,
#                     excluded even when it carries one
#
# Every name carries the PID, and rfsd sees only the namespace it runs
# in: no pattern can reach an interface of the host.
#
#	tests/integration/test_fleet.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_check_config
	test_node_a
	test_node_b
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

NA=rfsfa$LAB_ID
NB=rfsfb$LAB_ID
A=fa$LAB_ID
B=fb$LAB_ID
FLEET_NS=()

fleet_down()
{
	local ns
	lab_down
	# the nodes' links and programs go with their namespaces
	for ns in "${FLEET_NS[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	FLEET_NS=()
}

# A veth pair inside node $1: $2 and its peer $3, both up.
fleet_veth()
{
	ip -n "$1" link add "$2" type veth peer name "$3" &&
	ip -n "$1" link set dev "$2" up && ip -n "$1" link set dev "$3" up ||
		fail "can't make veth $2/$3 in $1"
}

# Both nodes and the one config file.
fleet_up()
{
	trap fleet_down EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	lab_require_root
	lab_need ip
	lab_need_bins
	lab_init
	for ns in "$NA" "$NB"; do
		ip netns add "$ns" || fail "can't create netns $ns"
		FLEET_NS+=("$ns")
		ip -n "$ns" link set dev lo up
	done
	fleet_veth "$NA" "${A}p0" "${A}r0"
	fleet_veth "$NA" "${A}p1" "${A}r1"
	fleet_veth "$NA" "${A}x0" "${A}r2"
	fleet_veth "$NB" "${B}e0" "${B}r0"
	fleet_veth "$NB" "${B}w0" "${B}r1"
	fleet_veth "$NB" "${B}x1" "${B}r2"
	# a default route out of w0 (on-link: no gateway, no traffic)
	ip -n "$NB" route add default dev "${B}w0" ||
		fail "can't add a default route in $NB"
	CONF=$LAB_DIR/fleet.conf
	cat > "$CONF" <<-EOF
	[global]
	exclude = *x?
	detach_on_exit = yes

	[interface ${A}n9]

	[interface fa*p? fa*x? fb*e? !*p9]
	cpus = housekeeping
	flow_cnt = 1024

	[interface default-route]
	mode = generic
	EOF
}

# rfsd --check-config in node $1, JSON: "action name" lines, sorted.
fleet_check()
{
	ip netns exec "$1" "$RFSD" --check-config --config "$CONF" --json \
		> "$LAB_DIR/check.json" || fail "--check-config in $1 failed: $(cat "$LAB_DIR/check.json")"
	jget '"\n".join(sorted(i["action"] + " " + i["name"] for i in d["interfaces"]))' \
		< "$LAB_DIR/check.json"
}

# Start rfsd in node $1 (its own bpffs and the cgroup2 root mounted in
# the mount namespace of ip netns exec); wait for status.
fleet_rfsd()
{
	local i
	lab_bg ip netns exec "$1" sh -c '
		mount -t bpf bpf /sys/fs/bpf && mount -t cgroup2 none /sys/fs/cgroup &&
		exec "$@"' rfsd "$RFSD" --socket "$RFS_SOCK" --pin-dir "$RFS_PIN" \
		--config "$CONF" -v >> "$RFSD_LOG" 2>&1
	RFSD_PID=$LAB_BG_PID
	for ((i = 0; i < 150; i++)); do
		lab_alive "$RFSD_PID" || LAB_LOG_LINES=20 fail "rfsd exited in $1"
		ctl status >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "rfsd in $1 did not answer status"
}

# The attached interfaces, sorted, one line.
fleet_attached()
{
	ctlj status | jget '" ".join(sorted(i["name"] for i in d["interfaces"]))'
}

# Wait up to 5 s for the attached set to be "$1".
fleet_wait_attached()
{
	local i got
	for ((i = 0; i < 50; i++)); do
		got=$(fleet_attached)
		[ "$got" = "$1" ] && return 0
		sleep 0.1
	done
	fail "attached: '$got', want '$1'"
}

# The XDP programs in node $1, as "name" lines, sorted: what the kernel
# says, beside what rfsd says.
fleet_xdp()
{
	ip -n "$1" -d -o link show | awk -F': ' '/prog\/xdp/ { sub(/@.*/, "", $2); print $2 }' |
		sort | tr '\n' ' ' | sed 's/ $//'
}

test_check_config()
{
	local out want
	fleet_up
	out=$(fleet_check "$NA")
	want="attach ${A}p0
attach ${A}p1
skip ${A}x0
wait ${A}n9"
	[ "$out" = "$want" ] || fail "node A: check-config said
$out
want
$want"
	jget 'd["interfaces"][[i["name"] for i in d["interfaces"]].index("'"${A}p0"'")]' \
		< "$LAB_DIR/check.json" > "$LAB_DIR/p0.json"
	grep -q '"cpus": "0-' "$LAB_DIR/p0.json" &&
		grep -q '"flow_cnt": 1024' "$LAB_DIR/p0.json" &&
		grep -q '"section": "\[interface fa\*p? fa\*x? fb\*e? !\*p9\]"' "$LAB_DIR/p0.json" ||
		fail "node A: ${A}p0's settings: $(cat "$LAB_DIR/p0.json")"
	jget 'next(i["why"] for i in d["interfaces"] if i["action"] == "skip")' \
		< "$LAB_DIR/check.json" | grep -q excluded || fail "node A: ${A}x0 not said excluded"
	out=$(fleet_check "$NB")
	want="attach ${B}e0
attach ${B}w0
wait ${A}n9"
	[ "$out" = "$want" ] || fail "node B: check-config said
$out
want
$want"
	say "node A: $(fleet_check "$NA" | tr '\n' ',')  node B: $(fleet_check "$NB" | tr '\n' ',')"
	# the text form, and a bad config is an error with its line
	ip netns exec "$NB" "$RFSD" --check-config --config "$CONF" > "$LAB_DIR/check.txt" ||
		fail "plain --check-config in $NB failed"
	grep -q "^attach *${B}w0 *\[interface default-route\]: cpus all, flow_cnt 4096, mode generic" \
		"$LAB_DIR/check.txt" || fail "plain output: $(cat "$LAB_DIR/check.txt")"
	grep -q "is valid$" "$LAB_DIR/check.txt" || fail "plain output has no verdict"
	printf '[interface fa* !]\n' > "$LAB_DIR/bad.conf"
	if out=$("$RFSD" --check-config --config "$LAB_DIR/bad.conf" 2>&1); then
		fail "a bad pattern passed --check-config: $out"
	fi
	grep -q "bad.conf:1': bad interface pattern" <<< "$out" || fail "bad config: $out"
	# nothing was attached by any of this
	[ -z "$(fleet_xdp "$NA")$(fleet_xdp "$NB")" ] || fail "--check-config attached something"
}

test_node_a()
{
	fleet_up
	fleet_rfsd "$NA"
	fleet_wait_attached "${A}p0 ${A}p1"
	[ "$(fleet_xdp "$NA")" = "${A}p0 ${A}p1" ] ||
		fail "node A: XDP on '$(fleet_xdp "$NA")'"
	lab_wait_log "${A}x0: skipped: excluded" 1 || fail "no log line for the excluded ${A}x0"
	# made later: picked up if the pattern picks it, never if excluded
	fleet_veth "$NA" "${A}p2" "${A}r3"
	fleet_veth "$NA" "${A}x2" "${A}r4"
	fleet_wait_attached "${A}p0 ${A}p1 ${A}p2"
	# renamed into the pattern; renamed out of it stays attached
	ip -n "$NA" link set dev "${A}r1" down
	ip -n "$NA" link set dev "${A}r1" name "${A}p3"
	ip -n "$NA" link set dev "${A}p3" up
	fleet_wait_attached "${A}p0 ${A}p1 ${A}p2 ${A}p3"
	# and a veto in the section: p9 is never picked
	fleet_veth "$NA" "${A}p9" "${A}r5"
	sleep 1
	fleet_wait_attached "${A}p0 ${A}p1 ${A}p2 ${A}p3"
	[ "$(fleet_xdp "$NA")" = "${A}p0 ${A}p1 ${A}p2 ${A}p3" ] ||
		fail "node A: XDP on '$(fleet_xdp "$NA")'"
	lab_stop_rfsd
	[ -z "$(fleet_xdp "$NA")" ] || fail "detach_on_exit left XDP on $(fleet_xdp "$NA")"
}

test_node_b()
{
	fleet_up
	fleet_rfsd "$NB"
	fleet_wait_attached "${B}e0 ${B}w0"
	[ "$(fleet_xdp "$NB")" = "${B}e0 ${B}w0" ] ||
		fail "node B: XDP on '$(fleet_xdp "$NB")'"
	ctlj status | jget 'next(i["mode"] for i in d["interfaces"] if i["name"] == "'"${B}w0"'")' |
		grep -q generic || fail "${B}w0 not in the generic mode its section asks"
	# a default route appears on a link no pattern names
	fleet_veth "$NB" "${B}z0" "${B}r3"
	sleep 0.5
	[ "$(fleet_attached)" = "${B}e0 ${B}w0" ] || fail "${B}z0 attached before it had a route"
	ip -6 -n "$NB" route add default dev "${B}z0" metric 10 ||
		fail "can't add an IPv6 default route in $NB"
	fleet_wait_attached "${B}e0 ${B}w0 ${B}z0"
	# excluded even with a default route
	ip -n "$NB" route add default dev "${B}x1" metric 20 ||
		fail "can't add a second default route in $NB"
	sleep 1
	fleet_wait_attached "${B}e0 ${B}w0 ${B}z0"
	lab_stop_rfsd
	[ -z "$(fleet_xdp "$NB")" ] || fail "detach_on_exit left XDP on $(fleet_xdp "$NB")"
}

lab_run_tests test_fleet.sh "${*:-$ALL_TESTS}"
