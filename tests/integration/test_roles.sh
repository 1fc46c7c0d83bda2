#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who may do what on rfsd's control socket (docs/security.md), against a
# real rfsd with a temporary --pin-dir, --socket and config
# (tests/lib/lab.sh).  Each test makes two throwaway groups, the socket
# group (socket_group) and the admin group (admin_group), named after its
# pid, and removes them on every exit path; peers run as uid 65534 with
# setpriv, in one group, the other, both or none.
#
#	tests/integration/test_roles.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_socket_file
	test_reader_reads
	test_reader_changes_refused
	test_admin_changes
	test_admin_group_missing
	test_per_uid_cap
	test_line_deadline
	test_parser_unprivileged
	test_parser_unprivileged_unit
	test_socket_group_unit
	test_parser_restart
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

PEER=$LAB_TOP/tests/tools/ctl_peer.py
MAX_PER_UID=16		# RFSD_MAX_PER_UID
LINE_SECS=10		# RFSD_LINE_SECS
NOBODY=65534
GRP_R=
GRP_A=

roles_down()
{
	[ -n "$GRP_R" ] && groupdel "$GRP_R" 2>/dev/null
	[ -n "$GRP_A" ] && groupdel "$GRP_A" 2>/dev/null
	lab_down
}

# rfsd started as the unit starts it: root, with no CAP_SETUID, CAP_SETGID
# or CAP_SETPCAP in any set, and the unit's Group= as its gid ($1; none:
# root's).
unit_rfsd()
{
	local w=$LAB_DIR/rfsd-unit
	RFSD_REAL=${RFSD_REAL:-$RFSD}
	printf '#!/bin/sh\nexec setpriv --bounding-set=-setuid,-setgid,-setpcap %s --clear-groups %s "$@"\n' \
		"${1:+--regid=$1}" "$RFSD_REAL" > "$w" && chmod 0755 "$w" ||
		fail "can't write $w"
	RFSD=$w
}

# The two groups (the admin one only with $1 = admin), a config naming
# them, rfsd started (with $2 = unit, as the unit starts it), copies of
# rfsctl and the raw peer anyone can run.
setup()
{
	trap roles_down EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	lab_require_root
	lab_need setpriv groupadd groupdel "$LAB_PY"
	lab_need_bins
	lab_init
	GRP_R=rfsr$BASHPID
	groupadd "$GRP_R" || { GRP_R=; fail "can't add group"; }
	GID_R=$(getent group "$GRP_R" | cut -d: -f3)
	GRP_A=rfsa$BASHPID
	if [ "${1:-}" = admin ]; then
		groupadd "$GRP_A" || { GRP_A=; fail "can't add group"; }
		GID_A=$(getent group "$GRP_A" | cut -d: -f3)
	fi
	printf '[global]\nsocket_group = %s\nadmin_group = %s\n' \
		"$GRP_R" "$GRP_A" > "$LAB_DIR/rfsd.conf"
	CTL=$LAB_DIR/rfsctl
	cp "$RFSCTL" "$CTL" && chmod 0755 "$CTL"
	PEER_RUN=$LAB_DIR/ctl_peer.py
	cp "$PEER" "$PEER_RUN" && chmod 0644 "$PEER_RUN"
	[ "${2:-}" = unit ] && unit_rfsd "$GID_R"
	lab_start_rfsd
}

# rfsctl as uid 65534 in the groups $1 (gids, comma-separated, or "-" for
# none); its output and exit status.
as()
{
	local g=$1
	shift
	if [ "$g" = - ]; then
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
			"$CTL" --socket "$RFS_SOCK" "$@" 2>&1
	else
		setpriv --reuid=$NOBODY --regid=$NOBODY --groups="$g" \
			"$CTL" --socket "$RFS_SOCK" "$@" 2>&1
	fi
}

# The socket file is 0660 root:<socket group> from the start: a peer in
# no group can't even connect, before rfsd reads a byte of it, and is
# told the group that could (socket_group, not a fixed name).
test_socket_file()
{
	local out rc=0
	setup
	[ "$(stat -c '%F %a %U %G' "$RFS_SOCK")" = "socket 660 root $GRP_R" ] ||
		fail "control socket is $(stat -c '%F %a %U %G' "$RFS_SOCK"), want socket 660 root $GRP_R"
	out=$(as - status) || rc=$?
	[ $rc -eq 1 ] || fail "status from no group exited $rc, want 1: $out"
	grep -qi "permission denied" <<<"$out" ||
		fail "status from no group: no 'permission denied' in: $out"
	grep -qF "needs root or group '$GRP_R'" <<<"$out" ||
		fail "status from no group: the socket's group $GRP_R is not named in: $out"
	say "socket $(stat -c '%a %U:%G' "$RFS_SOCK"); no group: \"$out\""
}

# The socket group reads: status, version, stats, explain.
test_reader_reads()
{
	local out cmd
	setup
	for cmd in status version stats; do
		# shellcheck disable=SC2086	# the command and its argument
		out=$(as "$GID_R" -j $cmd) ||
			fail "rfsctl $cmd from the socket group failed: $out"
	done
	say "status, version and stats answer the socket group"
}

# ... and changes nothing: attach, detach and set are refused by name,
# with the group that could, and nothing changes.
test_reader_changes_refused()
{
	local out rc cmd want before
	setup
	before=$(ctlj status | jget "len(d['interfaces'])")
	for cmd in "attach eth1" "detach eth1" "set flow-cnt eth1 1024" \
		   "set sock-flow-entries 1024"; do
		rc=0
		# shellcheck disable=SC2086	# the command and its arguments
		out=$(as "$GID_R" $cmd) || rc=$?
		[ $rc -eq 1 ] || fail "rfsctl $cmd from the socket group exited $rc, want 1: $out"
		case $cmd in
		attach*) want="can't attach 'eth1': permission denied" ;;
		detach*) want="can't detach 'eth1': permission denied" ;;
		"set flow"*) want="can't set flow_cnt of 'eth1': permission denied" ;;
		*) want="can't set sock_flow_entries: permission denied" ;;
		esac
		grep -qF "$want: changes need root or group '$GRP_A'" <<<"$out" ||
			fail "rfsctl $cmd: want \"$want: changes need root or group '$GRP_A'\", got: $out"
		say "$cmd: \"$out\""
	done
	[ "$(ctlj status | jget "len(d['interfaces'])")" = "$before" ] ||
		fail "the interfaces changed"
	[ "$(ctlj status | jget "d['sock_flow_entries']")" != 1024 ] ||
		fail "sock_flow_entries changed"
}

# The admin group changes: attach, set, detach (it is in the socket
# group too, as it must be to open the socket).
test_admin_changes()
{
	local out
	setup admin
	lab_need ip
	lab_up
	out=$(as "$GID_R,$GID_A" attach "$LAB_A") ||
		fail "attach from the admin group failed: $out"
	[ "$(lab_if_status "$LAB_A")" != null ] || fail "$LAB_A not attached"
	out=$(as "$GID_R,$GID_A" set flow-cnt "$LAB_A" 1024) ||
		fail "set flow-cnt from the admin group failed: $out"
	out=$(as "$GID_R,$GID_A" detach "$LAB_A") ||
		fail "detach from the admin group failed: $out"
	[ "$(lab_if_status "$LAB_A")" = null ] || fail "$LAB_A still attached"
	say "attach, set flow-cnt and detach from the admin group"
}

# An admin group that does not exist has no members: only root changes,
# and root always may.
test_admin_group_missing()
{
	local out rc=0
	setup
	lab_wait_log "group '$GRP_A' does not exist" ||
		fail "no log line about the missing admin group"
	out=$(as "$GID_R" set sock-flow-entries 1024) || rc=$?
	[ $rc -eq 1 ] && grep -q "permission denied" <<<"$out" ||
		fail "a change with no admin group: exit $rc: $out"
	ctl set sock-flow-entries 1024 >/dev/null ||
		fail "root can't set sock-flow-entries"
	say "no admin group: refused ($out), root may"
}

# One uid holds at most 16 connections: 4 more of it are turned away,
# and root and other uids still get in.
test_per_uid_cap()
{
	local n=$((MAX_PER_UID + 4)) out opened closed
	setup
	out=$(setpriv --reuid=$NOBODY --regid=$NOBODY --groups="$GID_R" \
		"$LAB_PY" "$PEER_RUN" hold "$RFS_SOCK" "$n" --seconds 2 2>&1) ||
		fail "ctl_peer.py hold failed: $out"
	opened=$(jget "d['opened']" <<<"$out")
	closed=$(jget "d['closed']" <<<"$out")
	[ "$opened" = "$n" ] || fail "$opened of $n connected: $out"
	[ "$closed" -ge 4 ] && [ "$closed" -lt "$n" ] ||
		fail "$closed of $n closed, want at least 4 and fewer than all: $out"
	lab_wait_log "from uid $NOBODY .*: $MAX_PER_UID from that uid already" ||
		fail "no log line about the per-uid cap"
	ctl status >/dev/null || fail "root's status failed"
	say "$n connections of one uid: $closed turned away ($out)"
}

# A request line must end within 10 s of its first byte, however often
# bytes trickle in (the idle timeout alone would keep it for as long as
# a byte comes every minute).
test_line_deadline()
{
	local out after said
	setup
	out=$("$LAB_PY" "$PEER_RUN" trickle "$RFS_SOCK" --every 1 \
		--seconds $((LINE_SECS + 15)))
	after=$(jget "d['after']" <<<"$out")
	said=$(jget "d['said']" <<<"$out")
	[ "$after" != null ] ||
		fail "a request trickled for $((LINE_SECS + 15)) s was never cut: $out"
	awk -v t="$after" -v m="$LINE_SECS" 'BEGIN { exit !(t >= m - 1 && t <= m + 3) }' ||
		fail "cut after ${after}s, want about ${LINE_SECS}s: $out"
	grep -q "request line not finished within $LINE_SECS s" <<<"$said" ||
		fail "no reason given: $out"
	say "a trickled request was cut after ${after}s: $said"
}

# The process that parses what peers send (rfsd-parse, rfsd's child):
# its pid from status, checked to be the parser rfsd forked.
parser_pid()
{
	local pid
	pid=$(ctlj status 2>/dev/null | jget "d['parser_pid']" 2>/dev/null) || return 1
	[ "$pid" -gt 0 ] 2>/dev/null &&
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = rfsd-parse ] &&
		[ "$(awk '/^PPid:/ { print $2 }' "/proc/$pid/status")" = "$RFSD_PID" ] ||
		return 1
	echo "$pid"
}

# The parser holds no capability and can't gain one (no_new_privs); its
# system call filter is on (Seccomp: 2).  Started by hand as root ($1 =
# root) it runs as nobody with an empty bounding set; under the unit's
# set ($1 = unit) it stays uid 0 and keeps rfsd's bounding set (dropping
# it takes CAP_SETPCAP), which only execve() could use, and the filter
# kills that (tests/unit/test_caps.c).  Every command works through it.
parser_unprivileged()
{
	local pid st f v out bnd
	setup admin "$1"
	lab_need ip
	lab_up
	pid=$(parser_pid) || fail "no rfsd-parse child of rfsd $RFSD_PID in status"
	st=$(cat "/proc/$pid/status")
	bnd=$(awk '$1 == "CapBnd:" { print $2 }' "/proc/$RFSD_PID/status")
	for f in CapInh CapPrm CapEff CapBnd CapAmb; do
		v=$(awk -v f="$f:" '$1 == f { print $2 }' <<<"$st")
		[ $((16#$v)) -eq 0 ] && continue
		[ "$1" = unit ] && [ $f = CapBnd ] && [ "$v" = "$bnd" ] &&
			continue
		fail "parser $pid has $f $v, want none"
	done
	# CAP_SETPCAP 8, CAP_SETGID 6, CAP_SETUID 7
	[ "$1" = unit ] && (( 16#$bnd & 0x1c0 )) &&
		fail "rfsd under the unit's set still has them in CapBnd $bnd"
	v=$(awk '$1 == "Uid:" { print $2 }' <<<"$st")
	if [ "$1" = unit ]; then
		[ "$v" = 0 ] || fail "parser $pid switched to uid $v without CAP_SETUID"
		! grep -q "request parser: can't" "$RFSD_LOG" ||
			fail "rfsd complained about the parser: $(grep "request parser" "$RFSD_LOG")"
	else
		[ "$v" = $NOBODY ] || fail "parser $pid runs as uid $v, want $NOBODY"
	fi
	v=$(awk '$1 == "NoNewPrivs:" { print $2 }' <<<"$st")
	[ "$v" = 1 ] || fail "parser $pid has NoNewPrivs $v"
	v=$(awk '$1 == "Seccomp:" { print $2 }' <<<"$st")
	[ "$v" = 2 ] || fail "parser $pid has Seccomp ${v:-?}, want 2 (filter)"
	# rfsd itself still holds what it needs: the parser is the only part
	# without it
	v=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$RFSD_PID/status")
	(( (16#$v >> 21) & 1 )) || fail "rfsd lost CAP_SYS_ADMIN ($v)"
	out=$(as "$GID_R,$GID_A" attach "$LAB_A") ||
		fail "attach from the admin group failed: $out"
	for f in "-j status" version "stats" "stats $LAB_A" "top --once" \
		 "flows $LAB_A --interval 100" \
		 "explain $LAB_A 10.0.0.1 10.0.0.2 1000 80 tcp"; do
		# shellcheck disable=SC2086	# the command and its arguments
		out=$(as "$GID_R" $f) ||
			fail "rfsctl $f from the socket group failed: $out"
	done
	out=$(as "$GID_R" set sock-flow-entries 1024) &&
		fail "a reader's change went through: $out"
	for f in "set flow-cnt $LAB_A 1024" "set cpus $LAB_A 0" \
		 "set sock-flow-entries 1024" "detach $LAB_A"; do
		# shellcheck disable=SC2086	# the command and its arguments
		out=$(as "$GID_R,$GID_A" $f) ||
			fail "rfsctl $f from the admin group failed: $out"
	done
	[ "$(parser_pid)" = "$pid" ] || fail "the parser died on the way"
	say "parser $pid ($1): uid $(awk '$1 == "Uid:" { print $2 }' <<<"$st"), no capabilities, Seccomp 2; every command works"
}

test_parser_unprivileged()
{
	parser_unprivileged root
}

test_parser_unprivileged_unit()
{
	parser_unprivileged unit
}

# Without CAP_SETGID rfsd can give the socket only its own gid: with
# another, it refuses to start and names the fix; with the socket
# group's (the unit's Group=), the file is root:<group> as ever.
test_socket_group_unit()
{
	local rc=0
	setup "" unit
	[ "$(stat -c '%a %U %G' "$RFS_SOCK")" = "660 root $GRP_R" ] ||
		fail "control socket is $(stat -c '%a %U %G' "$RFS_SOCK"), want 660 root $GRP_R"
	lab_stop_rfsd
	unit_rfsd
	: >"$RFSD_LOG"
	lab_bg "$RFSD" --socket "$RFS_SOCK" --pin-dir "$RFS_PIN" \
		--config "$LAB_DIR/rfsd.conf" >>"$RFSD_LOG" 2>&1
	RFSD_PID=$LAB_BG_PID
	lab_wait "$RFSD_PID" 10 || rc=$?
	[ "$rc" = 1 ] || fail "rfsd with a socket group it can't give: exit $rc, want 1"
	RFSD_PID=
	grep -q "can't give control socket '$RFS_SOCK' to group '$GRP_R': .*Group=$GRP_R" "$RFSD_LOG" ||
		LAB_LOG_LINES=5 fail "no error naming Group=$GRP_R"
	[ ! -e "$RFS_SOCK" ] || fail "a socket was left at $RFS_SOCK"
	say "$(grep "can't give control socket" "$RFSD_LOG")"
}

# A parser that dies is started again, and the socket answers.
test_parser_restart()
{
	local old new i
	setup
	old=$(parser_pid) || fail "no parser"
	kill -KILL "$old"
	for i in $(seq 1 50); do
		new=$(parser_pid) && [ "$new" != "$old" ] && break
		new=
		sleep 0.1
	done
	[ -n "$new" ] || fail "no new parser 5 s after killing $old"
	lab_wait_log "request parser (pid $old) .*restarting" ||
		fail "no log line about the parser's restart"
	ctl status >/dev/null || fail "status after the restart failed"
	say "parser $old killed; $new took over"
}

# ----------------------------------------------------------------- runner

lab_trap
lab_need "$LAB_PY"
lab_run_tests test_roles "${*:-$ALL_TESTS}"
