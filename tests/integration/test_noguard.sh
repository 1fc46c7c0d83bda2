#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# noguard, the bench's switch that turns the in-order rule off: refused
# unless rfsd runs with --unsafe-noguard, and when honoured, on in the
# interface's datapath config (the field rfs_decide.h reads), shown by
# status, put back by a reload, cleared on adoption by an rfsd that was
# not told.  Each test has its own lab (tests/lib/lab.sh) and rfsd.
#
#	tests/integration/test_noguard.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_refused_without_flag
	test_reload_refused_without_flag
	test_honoured_with_flag
	test_adopted_cleared_without_flag
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

IFCFG=$LAB_BUILD/tests/rfs_ifcfg

say() { printf '    [%5.1fs] %s\n' "$(lab_since "$TEST_T0")" "$*"; }

# SIGHUP rfsd and wait for it to say it re-read its config or kept the
# running one (it applies either before it serves the next request): a
# fixed sleep would be a guess at how fast the machine answers.
reload()
{
	local n i re='reloading config|keeping the running config'
	n=$(grep -cE "$re" "$RFSD_LOG")
	lab_signal "$RFSD_PID" HUP
	for ((i = 0; i < 200; i++)); do
		[ "$(grep -cE "$re" "$RFSD_LOG")" -gt "$n" ] && return 0
		lab_rfsd_alive || fail "rfsd exited on SIGHUP"
		sleep 0.1
	done
	fail "rfsd said nothing of its config 20 s after SIGHUP"
}

# The noguard field of $LAB_A's pinned datapath config (rfs_ifcfg reads
# the map itself, not rfsd's idea of it).
map_noguard()
{
	"$IFCFG" "$RFS_PIN_V/if/$LAB_A/rfs_if_cfg" |
		awk '$1 == "noguard" { print $2 }'
}

# status's noguard of $LAB_A: true, false, or null when not attached
status_noguard()
{
	lab_if_status "$LAB_A" | jget 'd["noguard"] if d else None'
}

# The config asks for noguard on $LAB_A; $1: yes or no; detach_on_exit $2
write_conf()
{
	printf '[global]\ndetach_on_exit = %s\n\n[interface %s]\nnoguard = %s\n' \
		"${2:-yes}" "$LAB_A" "$1" > "$LAB_DIR/rfsd.conf"
}

setup()
{
	lab_trap
	[ -x "$IFCFG" ] || skip "$IFCFG is not built (make check-integration)"
	lab_up
	lab_init
}

# Without --unsafe-noguard a config asking for noguard stops rfsd before
# it loads anything, with a message naming the key, the interface, the
# file and the option; nothing is attached.
test_refused_without_flag()
{
	local rc=0
	setup
	write_conf yes
	timeout 20 "$RFSD" --socket "$RFS_SOCK" --pin-dir "$RFS_PIN" \
		--config "$LAB_DIR/rfsd.conf" > "$RFSD_LOG" 2>&1 || rc=$?
	say "rfsd exit $rc: $(head -1 "$RFSD_LOG")"
	[ "$rc" = 1 ] || fail "rfsd should exit 1 on a noguard config without --unsafe-noguard (exit $rc)"
	grep -q "can't honour 'noguard = yes' in \[interface $LAB_A\] of '$LAB_DIR/rfsd.conf'.*--unsafe-noguard" \
		"$RFSD_LOG" || fail "no clear refusal in rfsd's output"
	ip link show dev "$LAB_A" | grep -q 'prog/xdp' &&
		fail "an XDP program is on $LAB_A after the refusal"
	[ ! -e "$RFS_PIN_V" ] || fail "the refused rfsd pinned $RFS_PIN_V"
}

# A SIGHUP that brings noguard in, without the flag, keeps the running
# config: the rule stays on.
test_reload_refused_without_flag()
{
	setup
	write_conf no
	lab_start_rfsd
	[ "$(status_noguard)" = false ] || fail "status noguard should be false, is $(status_noguard)"
	write_conf yes
	reload
	lab_rfsd_alive || fail "rfsd exited on the refused reload"
	grep -q "can't honour 'noguard = yes' in \[interface $LAB_A\].*keeping the running config" \
		"$RFSD_LOG" || fail "no refusal logged for the reload"
	[ "$(status_noguard)" = false ] || fail "noguard after a refused reload: $(status_noguard)"
	[ "$(map_noguard)" = 0 ] || fail "datapath noguard after a refused reload: $(map_noguard)"
}

# With the flag: a loud line, noguard in status and in the map; a reload
# that drops it puts the rule back, one that asks again turns it off;
# rfsctl attach of another interface keeps its rule.
test_honoured_with_flag()
{
	setup
	write_conf yes
	lab_start_rfsd --unsafe-noguard
	grep -q 'WARNING: --unsafe-noguard' "$RFSD_LOG" || fail "no WARNING line at start"
	grep -q "$LAB_A: NOGUARD: the in-order rule is OFF" "$RFSD_LOG" ||
		fail "no NOGUARD line for $LAB_A"
	[ "$(status_noguard)" = true ] || fail "status noguard should be true, is $(status_noguard)"
	[ "$(map_noguard)" = 1 ] || fail "datapath noguard should be 1, is $(map_noguard)"
	ctl status | grep -q 'noguard *YES: in-order rule OFF' ||
		fail "rfsctl status does not show noguard: $(ctl status)"
	say "honoured: status and map say noguard"

	write_conf no
	reload
	[ "$(status_noguard)" = false ] || fail "reload to no: status says $(status_noguard)"
	[ "$(map_noguard)" = 0 ] || fail "reload to no: map says $(map_noguard)"
	write_conf yes
	reload
	[ "$(map_noguard)" = 1 ] || fail "reload to yes: map says $(map_noguard)"
	say "reloads apply it both ways"

	lab_up_spare
	ctl attach "$LAB_X" >/dev/null || fail "rfsctl attach $LAB_X failed"
	[ "$(lab_if_status "$LAB_X" | jget 'd["noguard"]')" = false ] ||
		fail "rfsctl attach $LAB_X took noguard"
}

# An rfsd with the flag leaves noguard pinned (detach_on_exit = no); the
# next one, without the flag and without the key, adopts the interface
# and turns the rule back on.
test_adopted_cleared_without_flag()
{
	setup
	write_conf yes no
	lab_start_rfsd --unsafe-noguard
	[ "$(map_noguard)" = 1 ] || fail "datapath noguard should be 1, is $(map_noguard)"
	lab_stop_rfsd TERM
	[ "$(map_noguard)" = 1 ] || fail "noguard should stay pinned after SIGTERM"
	printf '[global]\ndetach_on_exit = yes\n' > "$LAB_DIR/rfsd.conf"
	lab_start_rfsd
	[ "$(status_noguard)" = false ] || fail "adopted without the flag: status says $(status_noguard)"
	[ "$(map_noguard)" = 0 ] || fail "adopted without the flag: map says $(map_noguard)"
	grep -q "adopted $LAB_A with noguard on; .*in-order rule on again" "$RFSD_LOG" ||
		fail "the clearing is not logged"
}

lab_require_root
lab_need_bins
lab_need ip ethtool timeout "$LAB_PY"
lab_trap
lab_run_tests test_noguard "${*:-$ALL_TESTS}"
