#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Flow table budgets (table_budget_iface, table_budget_total in rfsd.conf;
# docs/security.md) against a real rfsd on the lab's veth (one RX queue:
# a table is (1 + flow_cnt) x 8 bytes).  Attach and set flow-cnt over a
# budget are refused with the limit named, and change nothing.
#
#	tests/integration/test_budgets.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_budget_default_logged
	test_attach_over_iface_budget
	test_set_over_iface_budget
	test_attach_over_total_budget
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

# rfsd with the [global] lines $@ in its config, the lab up.
setup()
{
	lab_trap
	lab_require_root
	lab_need ip
	lab_init
	printf '[global]\n' > "$LAB_DIR/rfsd.conf"
	printf '%s\n' "$@" >> "$LAB_DIR/rfsd.conf"
	lab_up
	lab_start_rfsd
}

# Without the keys the budgets follow MemTotal, and rfsd says what they
# are.
test_budget_default_logged()
{
	local line
	setup
	lab_wait_log "flow table budget: .* per interface, .* in total" ||
		fail "no log line with the flow table budgets"
	line=$(grep "flow table budget:" "$RFSD_LOG" | head -n 1)
	say "${line#*: }"
	ctl attach "$LAB_A" >/dev/null || fail "attach with the defaults failed"
}

# flow_cnt 1048576 on one queue is 8 MiB: over 1 MiB per interface.
test_attach_over_iface_budget()
{
	local out rc=0
	setup "table_budget_iface = 1M"
	out=$(ctl attach "$LAB_A" --flow-cnt 1048576 2>&1) || rc=$?
	[ $rc -eq 1 ] || fail "attach over the budget exited $rc, want 1: $out"
	grep -qF "can't attach '$LAB_A': its flow table would take 8.0 MiB (flow_cnt 1048576 x 1 rx queues), over the budget of 1.0 MiB per interface (table_budget_iface in rfsd.conf)" <<<"$out" ||
		fail "attach over the budget: $out"
	[ "$(lab_if_status "$LAB_A")" = null ] || fail "$LAB_A attached anyway"
	ctl attach "$LAB_A" --flow-cnt 65536 >/dev/null ||
		fail "attach within the budget failed"
	say "$out"
}

test_set_over_iface_budget()
{
	local out rc=0
	setup "table_budget_iface = 1M"
	ctl attach "$LAB_A" --flow-cnt 4096 >/dev/null || fail "attach failed"
	out=$(ctl set flow-cnt "$LAB_A" 262144 2>&1) || rc=$?
	[ $rc -eq 1 ] || fail "set over the budget exited $rc, want 1: $out"
	grep -qF "can't set flow_cnt of '$LAB_A' to 262144: its flow table would take 2.0 MiB" <<<"$out" ||
		fail "set over the budget: $out"
	[ "$(lab_if_status "$LAB_A" | jget "d['flow_cnt']")" = 4096 ] ||
		fail "flow_cnt changed: $(lab_if_status "$LAB_A")"
	say "$out"
}

test_attach_over_total_budget()
{
	local out rc=0
	setup "table_budget_iface = 8M" "table_budget_total = 1M"
	out=$(ctl attach "$LAB_A" --flow-cnt 262144 2>&1) || rc=$?
	[ $rc -eq 1 ] || fail "attach over the total exited $rc, want 1: $out"
	grep -qF "over the budget of 1.0 MiB in total (table_budget_total in rfsd.conf)" <<<"$out" ||
		fail "attach over the total: $out"
	[ "$(lab_if_status "$LAB_A")" = null ] || fail "$LAB_A attached anyway"
	say "$out"
}

# ----------------------------------------------------------------- runner

lab_trap
lab_need "$LAB_PY"
lab_run_tests test_budgets "${*:-$ALL_TESTS}"
