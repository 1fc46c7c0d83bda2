#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rfsctl top, as a user sees it: a real rfsd attached to the lab's veth
# (tests/lib/lab.sh) under request/response traffic, and rfsctl top run
# in a detached tmux session of 80x24 on a tmux server of its own; the
# pane is read back with capture-pane.
#
#	tests/integration/test_top.sh [test_name...]
#
#   test_live       header, a row per CPU, the total and the interface;
#                   a rate becomes non-zero under traffic; every line
#                   fits 80 columns; q exits 0 and the terminal is as it
#                   was (stty settings, the screen before top)
#   test_resize_ctrl_c  with a minute between samples, a resize to 60x8
#                   is redrawn to fit at once (the view says what no
#                   longer fits), back to 80x24 the whole table; Ctrl-C
#                   exits 0 and restores the terminal
#   test_rfsd_restart  rfsd stops under the view and comes back with new
#                   maps: the view says so, then "counters reset" with
#                   rates from zero, then rates again; q still exits 0
#   test_plain      not a terminal: --once prints plain text after one
#                   interval (no escape sequence), -j --once JSON rates
#                   that agree with the traffic; without --once one block
#                   per interval until SIGINT; the backlog (stats) is 0
#                   on every CPU once the traffic stops
#   test_no_rfsd    rfsd not running: the usual "can't connect" error,
#                   exit 1, and not one byte of terminal control even on
#                   a terminal
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.

ALL_TESTS="
	test_live
	test_resize_ctrl_c
	test_rfsd_restart
	test_plain
	test_no_rfsd
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

LAB_PORT=${LAB_PORT:-$((20000 + $$ % 20000))}
TMUX_L=				# this test's tmux server (-L), if started
TOP_EXIT=			# where the pane writes rfsctl's exit code

tm() { tmux -L "$TMUX_L" "$@"; }

# End this test's tmux server (its pane, and rfsctl in it, get SIGHUP),
# then the lab.
top_down()
{
	[ -n "$TMUX_L" ] && tmux -L "$TMUX_L" kill-server 2>/dev/null
	TMUX_L=
	lab_down
}

top_trap()
{
	trap top_down EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# lab, rfsd attached to the lab veth, an echo server on the first CPU and
# a request/response client in the namespace
setup_traffic()
{
	top_trap
	lab_need tmux
	lab_up
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
	# the server on the last CPU, the client (and so the veth's NAPI
	# that runs rfs_xdp) on the first: frames cross CPUs via the cpumap
	lab_server "$(lab_online_cpus | tail -n 1)" "$LAB_IP4_A"
	lab_bg_ns taskset -c "$(lab_online_cpus | head -n 1)" "$LAB_PY" \
		"$LAB_DIR/rfslab.py" rr --addr "$LAB_IP4_A" --port "$LAB_PORT" \
		--seconds 150 --conns 4 > "$LAB_DIR/rr.out" 2>&1
	LAB_CLIENT_PID=$LAB_BG_PID
}

# Run rfsctl top ARGS in a detached 80x24 tmux session "top".  Before it
# the pane prints a marker and saves its stty settings; after it, the
# exit code and the settings again, so a test can tell the terminal was
# given back.
start_top()
{
	local sh
	TMUX_L=rfstop$LAB_ID.$BASHPID
	TOP_EXIT=$LAB_DIR/top.exit
	rm -f "$TOP_EXIT" "$LAB_DIR"/stty.*
	sh="stty -g > $LAB_DIR/stty.before; echo BEFORE-TOP;"
	sh="$sh $RFSCTL --socket $RFS_SOCK top $*;"
	sh="$sh echo EXIT=\$? > $TOP_EXIT.tmp; stty -g > $LAB_DIR/stty.after;"
	sh="$sh mv $TOP_EXIT.tmp $TOP_EXIT; echo AFTER-TOP; exec sleep 300"
	# -f /dev/null: none of the host's tmux configuration
	tm -f /dev/null new-session -d -s top -x 80 -y 24 "bash -c '$sh'" ||
		fail "can't start tmux"
}

pane() { tm capture-pane -p -t top; }

# Wait up to $2 seconds for the pane to match the extended regex $1;
# the pane is left in $PANE.
wait_pane()
{
	local re=$1 t=${2:-20} i
	for ((i = 0; i < t * 5; i++)); do
		PANE=$(pane)
		grep -Eq -- "$re" <<< "$PANE" && return 0
		sleep 0.2
	done
	printf '%s\n' '--- pane ---' "$PANE" '------------' >&2
	return 1
}

# Field $2 of the row whose first field is $1 in $PANE ("all" 2:
# steered/s of the total).
cell()
{
	awk -v r="$1" -v f="$2" '$1 == r { print $f; exit }' <<< "$PANE"
}

# The widest line of $PANE, and the number of lines.
pane_width() { awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' <<< "$PANE"; }
pane_lines() { printf '%s\n' "$PANE" | wc -l; }

wait_exit()
{
	local i
	for ((i = 0; i < 50; i++)); do
		[ -s "$TOP_EXIT" ] && { cat "$TOP_EXIT"; return 0; }
		sleep 0.2
	done
	echo "EXIT=none"
}

# After rfsctl left: exit code $1 wanted, the stty settings as before,
# and the screen from before top back (it drew on the alternate screen).
expect_restored()
{
	local want=$1 got
	got=$(wait_exit)
	[ "$got" = "EXIT=$want" ] || fail "rfsctl top: $got, want EXIT=$want"
	cmp -s "$LAB_DIR/stty.before" "$LAB_DIR/stty.after" ||
		fail "terminal settings not restored: $(cat "$LAB_DIR/stty.before") before, $(cat "$LAB_DIR/stty.after") after"
	wait_pane 'AFTER-TOP' 5 || fail "the pane never showed AFTER-TOP"
	grep -q 'BEFORE-TOP' <<< "$PANE" ||
		fail "the screen from before top is gone (no rmcup?)"
	! grep -q 'steered/s' <<< "$PANE" ||
		fail "top's table is still on the screen after it exited"
	say "exited: $got, stty settings and screen restored"
}

# ------------------------------------------------------------------- tests

test_live()
{
	local cpu steered w l
	setup_traffic
	start_top
	wait_pane '^CPU +steered/s' 15 || fail "no top header in the pane"
	say "header: $(grep -E '^CPU' <<< "$PANE")"
	# rates need two samples, and the client a moment to connect
	wait_pane '^all +[1-9]' 15 ||
		fail "the total steered/s stayed 0 or '-' under traffic"
	steered=$(cell all 2)
	say "all: $(grep -E '^all ' <<< "$PANE")"
	for cpu in $(lab_online_cpus); do
		grep -Eq "^$cpu +[-0-9]" <<< "$PANE" ||
			fail "no row for CPU $cpu"
	done
	grep -Eq "^IFACE +seen/s" <<< "$PANE" || fail "no interface table"
	grep -Eq "^$LAB_A +[0-9]" <<< "$PANE" || fail "no row for $LAB_A"
	grep -q '^rfsd .* every 1s' <<< "$PANE" || fail "no title line"
	w=$(pane_width)
	l=$(pane_lines)
	{ [ "$w" -le 80 ] && [ "$l" -le 24 ]; } ||
		fail "the view is ${w}x$l in an 80x24 terminal"
	say "80x24: ${w} columns used, all steered/s $steered"
	# RFS_TOP_SHOW=1: print the pane once the traffic has settled (the
	# README's capture comes from here)
	if [ -n "${RFS_TOP_SHOW:-}" ]; then
		sleep 4
		pane
	fi

	tm send-keys -t top q
	expect_restored 0
	client_running
}

# A minute between samples: whatever is redrawn within seconds of a
# resize was redrawn for the resize (KEY_RESIZE), not by the next sample.
test_resize_ctrl_c()
{
	local w l
	setup_traffic
	start_top --interval 60
	wait_pane '^rfsd .* every 60s' 15 || fail "no top title with 'every 60s'"
	wait_pane "^$LAB_A " 5 || fail "no row for $LAB_A"
	# smaller than the table: it must be redrawn to the new size, and say
	# what it left out (tmux only crops what was there)
	tm resize-window -t top -x 60 -y 8 || fail "tmux resize-window failed"
	wait_pane 'more lines' 5 ||
		fail "not redrawn for 60x8 (no 'more lines' line)"
	w=$(pane_width)
	l=$(pane_lines)
	{ [ "$w" -le 60 ] && [ "$l" -le 8 ]; } ||
		fail "the view is ${w}x$l in a 60x8 terminal"
	grep -Eq '^CPU +steered/s' <<< "$PANE" || fail "no header at 60x8"
	[ "$(tail -n 1 <<< "$PANE" | cut -c1-7)" = "q: quit" ] ||
		fail "the status line is not the last line at 60x8"
	say "60x8: redrawn, ${w}x$l"
	tm resize-window -t top -x 80 -y 24 || fail "tmux resize-window failed"
	wait_pane "^$LAB_A " 5 || fail "not redrawn whole at 80x24 again"
	grep -q 'more lines' <<< "$PANE" && fail "still clipped at 80x24"
	say "80x24 again: whole table"

	tm send-keys -t top C-c
	expect_restored 0
}

# rfsd goes away under a live view and comes back with new maps: the
# view stays, says rfsd is not answering, then that the counters were
# reset (rates counted from zero: tests/unit/test_top_rates.c), then
# plain rates again.
test_rfsd_restart()
{
	setup_traffic
	start_top
	wait_pane '^all +[1-9]' 20 || fail "no rates under traffic"
	lab_stop_rfsd TERM
	wait_pane "can't connect to rfsd at '$RFS_SOCK'" 10 ||
		fail "the view does not say rfsd stopped answering"
	grep -Eq '^CPU +steered/s' <<< "$PANE" || fail "the table is gone"
	say "rfsd stopped: $(tail -n 1 <<< "$PANE")"
	# new maps: what rfsd leaves pinned goes, so counters start at 0
	"$RFSD" --cleanup --pin-dir "$RFS_PIN" >/dev/null 2>&1 ||
		fail "rfsd --cleanup failed"
	lab_start_rfsd
	# its first sample against the last one before: counters went back
	# (the status line keeps saying when, so this wait can't miss it)
	wait_pane 'counters reset at [0-9:]+\)$' 10 ||
		fail "the view never said 'counters reset' after rfsd came back"
	say "reset: $(tail -n 1 <<< "$PANE")"
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
	wait_pane '^all +[1-9]' 10 || fail "no rates after rfsd came back"
	grep -q 'q: quit' <<< "$PANE" || fail "the status line still shows an error"
	grep -q '^rfsd .*(counters reset)' <<< "$PANE" &&
		fail "the title still says 'counters reset' samples later"
	tm send-keys -t top q
	expect_restored 0
}

# The client must still be running: the traffic was real all along.
client_running()
{
	lab_alive "$LAB_CLIENT_PID" ||
		fail "the request/response client died: $(tail -n 3 "$LAB_DIR/rr.out")"
}

test_plain()
{
	local out t0 el pid i
	setup_traffic
	sleep 1
	out=$LAB_DIR/once.txt
	t0=$(lab_now)
	ctl top --once > "$out" || fail "rfsctl top --once failed"
	el=$(lab_since "$t0")
	say "--once took ${el}s: $(grep -E '^all ' "$out")"
	awk -v e="$el" 'BEGIN { exit !(e >= 0.9) }' ||
		fail "--once returned after ${el}s: not one interval"
	grep -q $'\e' "$out" && fail "--once to a file wrote escape sequences"
	grep -Eq '^CPU +steered/s' "$out" || fail "--once: no header"
	grep -Eq '^all +[1-9]' "$out" ||
		fail "--once: total steered/s is 0 under traffic: $(cat "$out")"
	grep -Eq "^$LAB_A +[1-9]" "$out" || fail "--once: no busy row for $LAB_A"
	# the CPU that dequeued (deq/s, field 6) shows its kthread's wait
	# per run (kwait, the last field) as a number
	awk '$1 ~ /^[0-9]+$/ && $6 ~ /^[1-9]/ { n++; if ($NF !~ /^[0-9.]+$/) bad = bad " " $0 }
		END { exit !(n && bad == "") }' "$out" ||
		fail "--once: a CPU that dequeued has no kwait: $(cat "$out")"

	# -j: rates that agree with the traffic and with each other
	ctlj top --once > "$out" || fail "rfsctl -j top --once failed"
	"$LAB_PY" - "$out" "$(lab_online_cpus | wc -l)" "$LAB_A" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
t, cpus = d['total'], d['per_cpu']
assert len(cpus) >= int(sys.argv[2]), 'per_cpu: %d rows' % len(cpus)
assert t['steered_per_s'] > 0, 'total steered_per_s %r' % t['steered_per_s']
s = sum(c['steered_per_s'] for c in cpus)
assert abs(s - t['steered_per_s']) <= 1 + 0.01 * s, \
    'CPUs sum to %r, total %r' % (s, t['steered_per_s'])
assert 0 <= t['to_desired_pct'] <= 100, t['to_desired_pct']
ifs = [i for i in d['interfaces'] if i['name'] == sys.argv[3]]
assert ifs and ifs[0]['seen_per_s'] > 0, d['interfaces']
assert 0.9 <= d['seconds'] <= 5, d['seconds']
assert all(isinstance(c['backlog'], int) and c['backlog'] >= 0
           for c in cpus), [c['backlog'] for c in cpus]
# a CPU that dequeued had its cpumap kthread run: its wait per run is
# known (the kernel's schedstat), and no CPU's is negative
busy = [c for c in cpus if c['dequeued_per_s'] > 0]
assert busy, 'no CPU dequeued: %r' % cpus
assert all(isinstance(c['kthread_wait_us_per_run'], (int, float)) and
           c['kthread_wait_us_per_run'] >= 0 for c in busy), \
    [(c['cpu'], c['kthread_wait_us_per_run']) for c in busy]
PY
		fail "-j top --once: $(cat "$out")"
	say "-j --once: $(head -c 300 "$out")"

	# no --once, not a terminal: a block per interval until SIGINT
	lab_bg "$RFSCTL" --socket "$RFS_SOCK" top > "$out" 2>&1
	pid=$LAB_BG_PID
	for ((i = 0; i < 50; i++)); do
		[ "$(grep -c '^CPU ' "$out")" -ge 2 ] && break
		sleep 0.2
	done
	[ "$(grep -c '^CPU ' "$out")" -ge 2 ] ||
		fail "not a terminal: no second block: $(cat "$out")"
	kill -INT "$pid"
	lab_wait "$pid" 5 || fail "rfsctl top: exit $? after SIGINT, want 0"
	grep -q $'\e' "$out" && fail "plain blocks hold escape sequences"
	say "plain blocks until SIGINT, exit 0"

	# the backlog is a gauge of what is in the rings: with the traffic
	# stopped it must come back to 0 on every CPU, not stay where it was
	lab_kill "$LAB_CLIENT_PID" TERM 10
	sleep 1
	ctlj stats | jget '[c["backlog"] for c in d["per_cpu"]] + [d["total"]["backlog"]]' > "$out"
	"$LAB_PY" -c 'import json, sys; b = json.load(open(sys.argv[1])); sys.exit(any(b))' "$out" ||
		fail "backlog after the traffic stopped: $(cat "$out") (per CPU, then total)"
	say "backlog with no traffic: $(cat "$out")"
}

test_no_rfsd()
{
	local ts out
	top_trap
	lab_need script
	lab_init
	out=$LAB_DIR/err
	"$RFSCTL" --socket "$LAB_DIR/none.sock" top > "$LAB_DIR/out" 2> "$out"
	[ $? -eq 1 ] || fail "no rfsd: exit is not 1"
	grep -qx "rfsctl: can't connect to rfsd at '$LAB_DIR/none.sock': .*" "$out" ||
		fail "no rfsd: '$(cat "$out")'"
	[ -s "$LAB_DIR/out" ] && fail "no rfsd: something on stdout: $(cat "$LAB_DIR/out")"
	# on a terminal (script(1) gives it one): the error, and no escape
	# sequence (curses never started)
	ts=$LAB_DIR/typescript
	TERM=xterm script -qe -c "'$RFSCTL' --socket '$LAB_DIR/none.sock' top" \
		"$ts" > /dev/null 2>&1
	[ $? -eq 1 ] || fail "no rfsd on a terminal: exit is not 1"
	grep -q "can't connect to rfsd at '$LAB_DIR/none.sock'" "$ts" ||
		fail "no rfsd on a terminal: no error in $(cat -v "$ts")"
	grep -q $'\e' "$ts" &&
		fail "no rfsd on a terminal: escape sequences: $(cat -v "$ts")"
	say "no rfsd: $(cat "$out")"
}

# ------------------------------------------------------------------ runner

lab_trap
lab_run_tests test_top "${*:-$ALL_TESTS}"
