#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rfsd under systemd: the unit's exposure score, the bpffs it must never
# mount for itself, and a real systemd running systemd/rfsd.service
# (tests/lib/nspawn.sh: a Debian tree booted with systemd-nspawn, sharing
# the host's network namespace and bpffs): Type=notify readiness, reload,
# and stop and restart leaving the datapath steering.  Each test has its
# own lab (tests/lib/lab.sh), torn down on every exit path, the container
# first.
#
#	tests/integration/test_systemd.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.
# SD_MAX_EXPOSURE (default 2.0): the highest score test_security_score
# takes.  The first run builds the container's tree (debootstrap, a few
# minutes, ~250 MB under build/nspawn/); later runs reuse it.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_security_score
	test_bpffs_not_mounted_under_systemd
	test_notify_ready_reload
	test_parser_under_unit
	test_stop_restart_keep_steering
	test_detach_on_exit_under_unit
	test_root_pins_adopted
	test_netns_move_under_unit
	test_metrics_under_unit
	test_half_built_tree_removed
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/nspawn.sh"

UNIT_IN=${RFSD_UNIT_IN:-$LAB_TOP/systemd/rfsd.service.in}
SD_MAX_EXPOSURE=${SD_MAX_EXPOSURE:-2.0}
SEQ=$LAB_BUILD/tests/rfs_seq
SEQ_PORT=$((LAB_PORT + 300))

# A TCP port free on loopback now (the kernel's pick).
free_port()
{
	"$LAB_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The unit as `make install` writes it (the Makefile's sed, word for word),
# ExecStart in directory $1, rfsd-prepare under $2/xdp-rfs.
make_unit()
{
	sed -e "s|@SBINDIR@|$1|g" -e "s|@LIBEXECDIR@|$2|g" "$UNIT_IN"
}

# ------------------------------------------------------ without a systemd

# The unit's systemd-analyze security exposure, offline (no unit installed,
# nothing started): at most SD_MAX_EXPOSURE.
test_security_score()
{
	local dir out score
	lab_need systemd-analyze
	lab_trap
	lab_init
	dir=$LAB_DIR/unit
	mkdir -p "$dir"
	make_unit /usr/sbin /usr/libexec > "$dir/rfsd.service"
	out=$(systemd-analyze security --offline=yes --no-pager \
		"$dir/rfsd.service" 2>&1) ||
		fail "systemd-analyze security --offline=yes failed: $(tail -n 3 <<< "$out")"
	score=$(sed -n 's/.*Overall exposure level for rfsd\.service: \([0-9.]*\).*/\1/p' <<< "$out")
	[ -n "$score" ] || fail "no overall exposure in: $(tail -n 3 <<< "$out")"
	say "exposure $score ($(grep -c '✗' <<< "$out") settings open: $(grep '✗' <<< "$out" |
		awk '{ print $2 }' | tr '\n' ' '))"
	awk -v s="$score" -v m="$SD_MAX_EXPOSURE" 'BEGIN { exit !(s <= m) }' ||
		fail "exposure $score > $SD_MAX_EXPOSURE; open settings:
$(grep '✗' <<< "$out")"
}

# Under systemd (INVOCATION_ID set) with no bpffs at /sys/fs/bpf, rfsd
# refuses to start rather than mount one in the unit's mount namespace,
# where the pins would die with the unit.  Simulated in a mount namespace
# of our own (unshare -m, private propagation) with /sys/fs/bpf unmounted
# there only; the host's bpffs is never touched.
test_bpffs_not_mounted_under_systemd()
{
	local out rc after
	lab_require_root
	lab_need_bins
	lab_need unshare umount
	lab_trap
	lab_init
	# shellcheck disable=SC2016
	out=$(unshare -m sh -c '
		umount -l /sys/fs/bpf 2>/dev/null
		[ "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs ] &&
			{ echo "SETUP: /sys/fs/bpf still a bpffs"; exit 0; }
		INVOCATION_ID=rfstest "$1" --socket "$2" --pin-dir "$3" \
			--config "$4" 2>&1
		echo "RC $?"
		echo "FS $(stat -f -c %T /sys/fs/bpf)"' sh "$RFSD" "$LAB_DIR/nobpf.sock" \
		"$RFS_PIN" "$LAB_DIR/rfsd.conf")
	grep -q '^SETUP:' <<< "$out" && skip "can't unmount /sys/fs/bpf in a mount namespace of our own"
	rc=$(sed -n 's/^RC //p' <<< "$out")
	after=$(sed -n 's/^FS //p' <<< "$out")
	say "rfsd: $(grep -v '^RC \|^FS ' <<< "$out" | tail -n 1)"
	[ "$rc" = 1 ] || fail "rfsd exited $rc, want 1; it said: $out"
	grep -q "under systemd rfsd won't mount one" <<< "$out" ||
		fail "no refusal naming systemd in: $out"
	grep -q "mount -t bpf bpf /sys/fs/bpf" <<< "$out" ||
		fail "the refusal does not say how to mount it: $out"
	[ "$after" != bpf_fs ] ||
		fail "a bpffs was mounted at /sys/fs/bpf in rfsd's namespace"
	[ "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs ] ||
		fail "the host's /sys/fs/bpf is no bpffs any more"
}

# ------------------------------------------------------- under systemd

# The journal of rfsd.service in the container goes to RFSD_LOG, where
# fail() shows it from.
sd_log()
{
	# less the noise of systemd's debug level: a unit reloaded for every
	# systemctl show of a stopped unit, and the system call names its
	# libseccomp does not know
	[ -n "$NSPAWN_LEADER" ] || return 0
	sd journalctl -u rfsd -o cat --no-pager 2>&1 |
		grep -vE 'Failed to parse system call|: Collecting\.$|Failed to send unit (change|remove) signal' \
		> "$RFSD_LOG"
}

sd_fail()
{
	sd_log
	LAB_LOG_LINES=25 fail "$@"
}

# A unit property of rfsd.service.
sd_prop() { sd systemctl show -p "$1" --value rfsd; }

# The container's journal since cursor $1, one message per line, with the
# unit name (systemd's own debug lines say which unit they are about).
sd_journal_since()
{
	sd journalctl --after-cursor="$1" -o cat --no-pager 2>/dev/null
}

sd_cursor()
{
	sd journalctl -n 0 --show-cursor --no-pager 2>/dev/null |
		sed -n 's/^-- cursor: //p'
}

# Wait up to $2 seconds for the journal since cursor $1 to match the
# extended regexps $3, $4, ... in that order; 1 if it does not.
sd_wait_journal()
{
	local cur=$1 t=$2 i
	shift 2
	for ((i = 0; i < t * 10; i++)); do
		sd_journal_since "$cur" | awk -v n=$# '
			BEGIN { for (i = 1; i <= n; i++) re[i] = ARGV[i]; ARGC = 1; k = 1 }
			k <= n && $0 ~ re[k] { k++ }
			END { exit k <= n }' "$@" && return 0
		sleep 0.1
	done
	return 1
}

# systemd's debug line for a notification from rfsd: "rfsd.service: Got
# notification message from PID 123 (READY=1, STATUS=...)".
notify_re() { echo "rfsd\\.service: Got notification message from PID [0-9]+ \\(.*$1"; }

# The host PIDs of the container's process $1 (a PID in its namespace)
# and of that process's children, such as LeakSanitizer's tracer at exit.
sd_host_pids()
{
	local ns p main=
	ns=$(readlink "/proc/$NSPAWN_LEADER/ns/pid") || return 0
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] || continue
		[ "$(awk '/^NSpid:/ { print $NF }' "$p/status" 2>/dev/null)" = "$1" ] &&
			main=${p#/proc/} && break
	done
	[ -n "$main" ] || return 0
	echo "$main"
	grep -l "^PPid:[[:space:]]*$main\$" /proc/[0-9]*/status 2>/dev/null |
		cut -d/ -f3
}

# Every thread of the host processes $@: state, wait channel, system call
# and kernel stack; what a stop that hangs was waiting for.
sd_dump_tasks()
{
	local p t
	for p in "$@"; do
		echo "== host PID $p: $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)"
		grep -E '^(State|TracerPid|NSpid|SigBlk|SigPnd|ShdPnd)' "/proc/$p/status" 2>/dev/null
		for t in /proc/"$p"/task/*; do
			echo "-- task ${t##*/} ($(cat "$t/comm" 2>/dev/null)):" \
				"state $(awk '{ print $3 }' "$t/stat" 2>/dev/null)," \
				"wchan $(cat "$t/wchan" 2>/dev/null)," \
				"syscall $(cut -d' ' -f1 "$t/syscall" 2>/dev/null)"
			sed 's/^/   /' "$t/stack" 2>/dev/null
		done
	done
}

# systemctl stop rfsd; if rfsd has not exited after SD_STOP_WATCH seconds
# (20; the unit gives it 30 before SIGKILL), what its threads are doing
# goes to SD_STOP_DUMP (how LeakSanitizer's hang at stop was caught: see
# the sanitizers' drop-in in sd_setup).
sd_stop()
{
	local main watch i rc=0
	main=$(sd_prop MainPID)
	SD_STOP_DUMP=$LAB_DIR/stop-tasks.txt
	rm -f "$SD_STOP_DUMP"
	(
		for ((i = 0; i < ${SD_STOP_WATCH:-20} * 10; i++)); do sleep 0.1; done
		# shellcheck disable=SC2046
		sd_dump_tasks $(sd_host_pids "$main") > "$SD_STOP_DUMP.tmp" &&
			mv "$SD_STOP_DUMP.tmp" "$SD_STOP_DUMP"
	) &
	watch=$!
	timeout 60 nsenter -t "$NSPAWN_LEADER" -a -- systemctl stop rfsd || rc=$?
	kill "$watch" 2>/dev/null
	wait "$watch" 2>/dev/null
	return $rc
}

# What sd_stop saw of a stop that hung, for a failure message.
sd_stop_seen()
{
	[ -s "${SD_STOP_DUMP:-}" ] || return 0
	echo "rfsd had not exited ${SD_STOP_WATCH:-20} s into the stop:"
	cat "$SD_STOP_DUMP"
}

# Lab, tree, unit installed in the container, config attaching $LAB_A,
# container booted with systemd logging at debug (so the notifications
# rfsd sends are in the journal).  The control socket is reached through
# the container's root: /proc/LEADER/root/run/rfs/rfsd.sock.
sd_setup()
{
	# rfsd-prepare gives libxdp's state dir to the container's rfs: the
	# host's, shared with the container, goes back to its owner
	SD_XDP_OWNER=$(stat -c %u:%g /sys/fs/bpf/xdp 2>/dev/null)
	trap 'nspawn_down; sd_xdp_owner; lab_down' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	lab_require_root
	lab_need_bins
	# The unit runs with PrivateTmp: a build under /tmp or /var/tmp is
	# out of its sight (the unit would fail with 203/EXEC).
	case $LAB_BUILD in
	/tmp/*|/var/tmp/*)
		skip "the build ($LAB_BUILD) is under /tmp or /var/tmp, which the unit's PrivateTmp hides; run from a checkout elsewhere" ;;
	esac
	lab_up
	nspawn_tree || skip "no Debian tree for systemd-nspawn: $NSPAWN_WHY"
	mkdir -p "$NSPAWN_ETC/rfs"
	make_unit "$LAB_BUILD" /usr/libexec > "$NSPAWN_ETC/rfsd.service"
	echo "RFSD_OPTS=\"-v --pin-dir $RFS_PIN\"" > "$NSPAWN_ETC/default-rfsd"
	printf '[interface %s]\n' "$LAB_A" > "$NSPAWN_ETC/rfs/rfsd.conf"
	# make check SANITIZE=1: the sanitizers' options.  No leak check
	# here (the integration tests that run rfsd directly do it):
	# LeakSanitizer stops rfsd's threads at exit with ptrace, and a stop
	# under systemd hung in it (2 CI runs of the last 7; sd_stop's dump):
	# rfsd running, attached by LSan's tracer, which waited in wait4()
	# for it to stop, and the tracer had systemd's SIGTERM and SIGCONT
	# pending, so systemd's kill sweep was still going after rfsd's exit
	# had begun; a SIGCONT discards a pending SIGSTOP, the one ptrace's
	# attach sends, most likely what happened here.
	mkdir -p "$NSPAWN_ETC/rfsd.service.d" "$NSPAWN_ETC/rfsd-metrics.socket.d"
	cp "$LAB_TOP/systemd/rfsd-metrics.socket" "$NSPAWN_ETC/"
	if ldd "$RFSD" 2>/dev/null | grep -q libasan; then
		cat > "$NSPAWN_ETC/rfsd.service.d/sanitizers.conf" <<-EOF
		[Service]
		Environment="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
		Environment="UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
		EOF
	fi
	nspawn_boot \
		--bind-ro="$NSPAWN_ETC/rfsd.service:/etc/systemd/system/rfsd.service" \
		--bind-ro="$NSPAWN_ETC/rfsd.service.d:/etc/systemd/system/rfsd.service.d" \
		--bind-ro="$NSPAWN_ETC/rfsd-metrics.socket:/etc/systemd/system/rfsd-metrics.socket" \
		--bind-ro="$NSPAWN_ETC/rfsd-metrics.socket.d:/etc/systemd/system/rfsd-metrics.socket.d" \
		--bind-ro="$NSPAWN_ETC/default-rfsd:/etc/default/rfsd" \
		--bind-ro="$NSPAWN_ETC/rfs:/etc/rfs" \
		--bind-ro="$LAB_TOP/systemd/rfsd-prepare:/usr/libexec/xdp-rfs/rfsd-prepare" ||
		skip "can't boot a systemd container here: $NSPAWN_WHY"
	say "container $NSPAWN_MACHINE up (systemd $(sd systemctl --version | awk 'NR == 1 { print $2 }'), PID 1 is host PID $NSPAWN_LEADER)"
	# the unit's User= and Group=, as make install adds them
	sd groupadd --system rfs && sd useradd --system --gid rfs \
		--no-create-home --home-dir /nonexistent rfs ||
		fail "can't add user and group rfs in the container"
	sd systemctl log-level debug || fail "can't set the container's log level"
	RFS_SOCK=/proc/$NSPAWN_LEADER/root/run/rfs/rfsd.sock
}

sd_xdp_owner()
{
	if [ -n "${SD_XDP_OWNER:-}" ]; then
		chown "$SD_XDP_OWNER" /sys/fs/bpf/xdp
	else
		rmdir /sys/fs/bpf/xdp 2>/dev/null
	fi
	return 0
}

# systemctl start, which returns once rfsd said READY=1 (or failed).
sd_start()
{
	timeout 60 nsenter -t "$NSPAWN_LEADER" -a -- systemctl "${1:-start}" rfsd ||
		sd_fail "systemctl ${1:-start} rfsd failed: $(sd systemctl status rfsd --no-pager 2>&1 | head -n 5)"
}

# Type=notify: `systemctl start` returns once rfsd sent READY=1, which it
# does only after the configured interface is attached: the program is on
# the link the moment start returns, the unit is active (running) with
# rfsd's STATUS=, and READY=1 came after the attach.  Reload (SIGHUP via
# ExecReload): rfsd sends RELOADING=1, applies the changed config and
# sends READY=1; the unit is running again, the program the same.
test_notify_ready_reload()
{
	local cur prog st
	sd_setup
	cur=$(sd_cursor)
	sd_start
	prog=$(lab_xdp_id "$LAB_A")
	[ -n "$prog" ] || sd_fail "systemctl start returned before $LAB_A had its XDP program"
	st="$(sd_prop ActiveState)/$(sd_prop SubState)"
	[ "$st" = active/running ] || sd_fail "rfsd.service is $st after start"
	[ "$(sd_prop StatusText)" = "steering 1 interface" ] ||
		sd_fail "StatusText is '$(sd_prop StatusText)', want 'steering 1 interface'"
	# (the journal gets rfsd's lines and systemd's in either order: the
	# order is proven by the program being there when start returned)
	sd_wait_journal "$cur" 5 "attached to $LAB_A " &&
	sd_wait_journal "$cur" 5 "$(notify_re 'READY=1')" ||
		sd_fail "no attach of $LAB_A and READY=1 in the journal"
	say "started: XDP id $prog on $LAB_A when start returned (READY=1), status '$(sd_prop StatusText)'"
	[ "$(ctlj status | jget "d['interfaces'][0]['flow_cnt']")" = 4096 ] ||
		sd_fail "rfsctl status through $RFS_SOCK does not show flow_cnt 4096"

	printf '[interface %s]\nflow_cnt = 8192\n' "$LAB_A" > "$NSPAWN_ETC/rfs/rfsd.conf"
	cur=$(sd_cursor)
	timeout 30 nsenter -t "$NSPAWN_LEADER" -a -- systemctl reload rfsd ||
		sd_fail "systemctl reload rfsd failed"
	sd_wait_journal "$cur" 10 "$(notify_re 'RELOADING=1')" \
		"$(notify_re 'READY=1')" &&
	sd_wait_journal "$cur" 5 "reloading config '/etc/rfs/rfsd.conf'" ||
		sd_fail "no RELOADING=1 then READY=1, and reload, in the journal after systemctl reload"
	[ "$(ctlj status | jget "d['interfaces'][0]['flow_cnt']")" = 8192 ] ||
		sd_fail "the reloaded flow_cnt = 8192 is not in effect"
	st="$(sd_prop ActiveState)/$(sd_prop SubState)"
	[ "$st" = active/running ] || sd_fail "rfsd.service is $st after reload"
	[ "$(lab_xdp_id "$LAB_A")" = "$prog" ] || sd_fail "reload replaced the XDP program"
	say "reloaded: RELOADING=1, flow_cnt 4096 -> 8192, READY=1; XDP id $prog kept"
	sd_log
}

# Under the unit rfsd runs as user rfs with the unit's five capabilities
# (ambient ones, which rfsd clears once it has them) and no CAP_SETUID,
# CAP_SETGID or CAP_SETPCAP: the control socket has its group (rfsd's gid
# at bind, the unit's Group=), and the parser, user rfs with no
# capability, serves under its system call filter.
test_parser_under_unit()
{
	local sock v pid st f uid want
	sd_setup
	sd_start
	uid=$(sd id -u rfs) || sd_fail "no user rfs in the container"
	sock=$(sd stat -c '%a %U %G' /run/rfs/rfsd.sock)
	[ "$sock" = "660 rfs rfs" ] || sd_fail "control socket is $sock, want 660 rfs rfs"
	st=$(sd cat "/proc/$(sd_prop MainPID)/status")
	# CAP_NET_ADMIN 12, CAP_SYS_ADMIN 21, CAP_SYS_NICE 23, CAP_PERFMON 38,
	# CAP_BPF 39
	want=$(printf '%016x' $(((1 << 12) | (1 << 21) | (1 << 23) | (1 << 38) | (1 << 39))))
	for f in "Uid:$uid" "CapEff:$want" "CapBnd:$want"; do
		[ "$(awk -v f="${f%%:*}:" '$1 == f { print $2 }' <<<"$st")" = "${f#*:}" ] ||
			sd_fail "rfsd: want $f in: $(grep -E '^(Uid|Cap)' <<<"$st")"
	done
	v=$(awk '$1 == "CapBnd:" { print $2 }' <<<"$st")
	(( 16#$v & 0x1c0 )) &&
		sd_fail "rfsd's bounding set $v has CAP_SETUID, CAP_SETGID or CAP_SETPCAP"
	pid=$(ctlj status | jget "d['parser_pid']")
	st=$(sd cat "/proc/$pid/status") || sd_fail "no parser $pid in the container"
	for f in Seccomp:2 NoNewPrivs:1 "Uid:$uid" CapEff:0000000000000000 \
		 CapPrm:0000000000000000 CapAmb:0000000000000000; do
		[ "$(awk -v f="${f%%:*}:" '$1 == f { print $2 }' <<<"$st")" = "${f#*:}" ] ||
			sd_fail "parser $pid: want $f in: $(grep -E '^(Uid|Cap|NoNew|Seccomp)' <<<"$st")"
	done
	ctlj stats "$LAB_A" >/dev/null || sd_fail "rfsctl stats $LAB_A failed"
	ctl set flow-cnt "$LAB_A" 8192 >/dev/null || sd_fail "rfsctl set flow-cnt failed"
	[ "$(ctlj status | jget "d['parser_pid']")" = "$pid" ] ||
		sd_fail "the parser $pid died serving"
	say "rfsd uid $uid (rfs), capabilities $want; socket $sock; parser $pid: uid $uid, no capabilities, Seccomp 2; serves"
}

# stats of $LAB_A -> "seen steered"
seen_steered()
{
	ctlj stats "$LAB_A" | jget '"%d %d" % (d["total"]["seen"], d["total"]["steered"])'
}

# Stop (SIGTERM, the unit's KillSignal) leaves the datapath pinned,
# attached and steering: the unit ends inactive with success after
# STOPPING=1, the program and pins stay, and frames sent while no rfsd
# runs are seen and steered by it (counted in the pinned counters the
# next rfsd reads) and arrive in order.  Start adopts it: same program.
# Restart under traffic: same program, a new rfsd, no frame reordered.
test_stop_restart_keep_steering()
{
	local cur prog pid s0 s1 sent recv inv lost
	[ -x "$SEQ" ] || skip "$SEQ is not built (make)"
	sd_setup
	sd_start
	prog=$(lab_xdp_id "$LAB_A")
	pid=$(sd_prop MainPID)
	s0=$(seen_steered)

	cur=$(sd_cursor)
	sd_stop || sd_fail "systemctl stop rfsd failed$(sd_stop_seen)"
	[ "$(sd_prop ActiveState)" = inactive ] ||
		sd_fail "rfsd.service is $(sd_prop ActiveState) after stop
$(sd_stop_seen)"
	[ "$(sd_prop Result)" = success ] ||
		sd_fail "rfsd.service stopped with result $(sd_prop Result) (exit $(sd_prop ExecMainStatus))
$(sd_stop_seen)"
	sd_wait_journal "$cur" 5 "$(notify_re 'STOPPING=1')" &&
	sd_wait_journal "$cur" 5 "left the datapath pinned and steering" ||
		sd_fail "no STOPPING=1 and 'left the datapath ... steering' in the journal"
	[ "$(lab_xdp_id "$LAB_A")" = "$prog" ] ||
		sd_fail "stop removed or replaced the XDP program (was id $prog, now '$(lab_xdp_id "$LAB_A")')"
	[ -d "$RFS_PIN_V/if/$LAB_A" ] || sd_fail "stop removed the pins of $LAB_A"
	[ ! -e "$RFS_SOCK" ] || sd_fail "the control socket outlived the unit"
	say "stopped: unit inactive (success), XDP id $prog still on $LAB_A, pins kept"

	lab_seq_start "$SEQ_PORT" 2 1000 2
	lab_seq_result "$SEQ_PORT"
	read -r sent recv inv lost <<< "$SEQ_RESULT"
	say "while down: sent $sent, received $recv, inversions $inv, lost $lost"
	[ "$inv" = 0 ] && [ "$recv" -ge $((sent * 99 / 100)) ] ||
		sd_fail "while rfsd was down: $inv inversions, received $recv of $sent; the receiver said: $(cat "$LAB_DIR/seq.recv.$SEQ_PORT")"

	cur=$(sd_cursor)
	sd_start
	sd_wait_journal "$cur" 5 "adopted datapath from $RFS_PIN: 1 interfaces" &&
	sd_wait_journal "$cur" 5 "$(notify_re 'READY=1')" ||
		sd_fail "the next start did not adopt the datapath"
	[ "$(lab_xdp_id "$LAB_A")" = "$prog" ] || sd_fail "start replaced the XDP program"
	s1=$(seen_steered)
	read -r a b <<< "$s0"
	read -r c d <<< "$s1"
	say "started again: adopted, XDP id $prog; while down seen +$((c - a)), steered +$((d - b)) (sent $sent)"
	[ $((c - a)) -ge "$sent" ] && [ $((d - b)) -ge "$sent" ] ||
		sd_fail "frames sent while rfsd was down were not all steered: seen +$((c - a)), steered +$((d - b)), sent $sent"

	pid=$(sd_prop MainPID)
	lab_seq_start $((SEQ_PORT + 1)) 6 1000 3
	sleep 2
	cur=$(sd_cursor)
	sd_start restart
	[ "$(sd_prop MainPID)" != "$pid" ] || sd_fail "restart kept the same rfsd (PID $pid)"
	[ "$(lab_xdp_id "$LAB_A")" = "$prog" ] || sd_fail "restart replaced the XDP program"
	sd_wait_journal "$cur" 5 "$(notify_re 'STOPPING=1')" "$(notify_re 'READY=1')" &&
	sd_wait_journal "$cur" 5 "adopted datapath from $RFS_PIN: 1 interfaces" ||
		sd_fail "restart: no STOPPING=1, adoption, READY=1 in the journal"
	lab_seq_result $((SEQ_PORT + 1))
	read -r sent recv inv lost <<< "$SEQ_RESULT"
	say "restart under traffic: XDP id $prog kept, rfsd PID $pid -> $(sd_prop MainPID); sent $sent, received $recv, inversions $inv, lost $lost"
	[ "$inv" = 0 ] && [ "$recv" -ge $((sent * 99 / 100)) ] ||
		sd_fail "across the restart: $inv inversions, received $recv of $sent; the receiver said: $(cat "$LAB_DIR/seq.recv.$((SEQ_PORT + 1))"); counters after: $(ctlj stats 2>&1 | tr -d '\n ' | cut -c1-1500)"
	sd_log
}

# detach_on_exit = yes under the unit: a stop takes the program off the
# interface and leaves no pin dir on the host.  rfsd empties it but can't
# remove it (under the unit it is a mount point); the unit's
# ExecStopPost (rfsd-prepare --release) removes it once it is empty.
test_detach_on_exit_under_unit()
{
	local prog
	sd_setup
	printf '[global]\ndetach_on_exit = yes\n[interface %s]\n' "$LAB_A" \
		> "$NSPAWN_ETC/rfs/rfsd.conf"
	sd_start
	prog=$(lab_xdp_id "$LAB_A")
	[ -n "$prog" ] || sd_fail "rfsd under the unit did not attach $LAB_A"
	[ -d "$RFS_PIN_V/if/$LAB_A" ] || sd_fail "no pins of $LAB_A under $RFS_PIN"
	sd_stop || sd_fail "systemctl stop rfsd failed$(sd_stop_seen)"
	[ -z "$(lab_xdp_id "$LAB_A")" ] ||
		sd_fail "detach_on_exit left XDP id $(lab_xdp_id "$LAB_A") on $LAB_A"
	[ ! -e "$RFS_PIN" ] ||
		sd_fail "detach_on_exit left the pin dir $RFS_PIN on the host: $(ls -A "$RFS_PIN" 2>&1 | head -n 5 | tr '\n' ' ')"
	say "detach_on_exit: stop took XDP id $prog off $LAB_A and $RFS_PIN is gone"
}

# An upgrade from a release whose rfsd ran as root: the pin tree it left
# steering, and its libxdp dispatcher's, are root's (0700).  The unit's
# rfsd-prepare gives both to rfs before rfsd starts, so rfsd, user rfs,
# adopts the datapath (the same XDP program), frames sent after are
# steered, and it can still change it: detach takes the program off.
test_root_pins_adopted()
{
	local prog sock cur uid left x a b c d sent recv inv lost
	[ -x "$SEQ" ] || skip "$SEQ is not built (make)"
	sd_setup
	uid=$(sd id -u rfs) || sd_fail "no user rfs in the container"
	sock=$RFS_SOCK
	RFS_SOCK=$LAB_DIR/root.sock
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || fail "rfsd as root: attach $LAB_A failed"
	prog=$(lab_xdp_id "$LAB_A")
	lab_stop_rfsd
	RFS_SOCK=$sock
	[ -n "$prog" ] && [ "$(lab_xdp_id "$LAB_A")" = "$prog" ] ||
		fail "rfsd as root did not leave XDP id '$prog' on $LAB_A"
	[ "$(stat -c %u "$RFS_PIN_V/if/$LAB_A")" = 0 ] ||
		fail "rfsd as root left pins not root's"
	say "rfsd as root left XDP id $prog on $LAB_A, pins root's"

	cur=$(sd_cursor)
	sd_start
	sd_wait_journal "$cur" 5 "adopted datapath from $RFS_PIN: 1 interfaces" ||
		sd_fail "rfsd under the unit did not adopt the root-owned pins"
	[ "$(lab_xdp_id "$LAB_A")" = "$prog" ] || sd_fail "start replaced the XDP program"
	left=$(find "$RFS_PIN" ! -uid "$uid" | head -n 3 | tr '\n' ' ')
	[ -z "$left" ] || sd_fail "pins not given to rfs (uid $uid): $left"
	for x in "/sys/fs/bpf/xdp/dispatch-$(cat "/sys/class/net/$LAB_A/ifindex")-"*; do
		[ ! -e "$x" ] || [ -z "$(find "$x" ! -uid "$uid")" ] ||
			sd_fail "libxdp's $x not given to rfs (uid $uid)"
	done
	read -r a b <<< "$(seen_steered)"
	lab_seq_start "$SEQ_PORT" 2 1000 2
	lab_seq_result "$SEQ_PORT"
	read -r sent recv inv lost <<< "$SEQ_RESULT"
	read -r c d <<< "$(seen_steered)"
	say "adopted as rfs (uid $uid): XDP id $prog kept; sent $sent, steered +$((d - b)), inversions $inv"
	[ "$inv" = 0 ] && [ $((d - b)) -ge "$sent" ] ||
		sd_fail "after adopting: steered +$((d - b)) of $sent sent, $inv inversions"
	ctl detach "$LAB_A" >/dev/null || sd_fail "rfsctl detach $LAB_A failed under the unit"
	[ -z "$(lab_xdp_id "$LAB_A")" ] || sd_fail "detach left XDP on $LAB_A"
	say "detached as rfs: no XDP program on $LAB_A"
	sd_log
}

# Move $LAB_A from the host into netns $1 (a PID or an nsfs path), and
# wait for rfsd's journal to say of it: moved to another network namespace
# $2 (an extended regexp); 1 if it does not.
sd_move()
{
	local cur
	cur=$(sd_cursor)
	ip link set dev "$LAB_A" netns "$1" || fail "can't move $LAB_A into netns $1"
	sd_wait_journal "$cur" 5 "iface '$LAB_A' \\(ifindex [0-9]+\\): moved to another network namespace $2"
}

# The unit's sandbox lets rfsd do what an interface moved to another
# network namespace takes (daemon/rfsd/netns.c): find the namespace, fork,
# setns() into it (RestrictNamespaces=net, CAP_SYS_ADMIN, SystemCallFilter)
# and detach its program there.  A named one (ip netns add in the
# container, after rfsd started: the mount reaches the unit's own mount
# namespace) is found without CAP_SYS_PTRACE, which the unit does not
# give.  One only a process holds (unshare --net, a sleep in the
# container) is not: rfsd says so, with the fix; the fix, a drop-in
# adding CAP_SYS_PTRACE as docs/operations.md has it, then lets rfsd
# detach there (its other drop-in, perf_event_open, is checked for what
# systemd makes of it).  The lab veth is moved from the host.
test_netns_move_under_unit()
{
	local prog holder i ns=rfsmv$LAB_ID named
	local detached='\(netns id [0-9-]+\): detached XDP there'
	sd_setup
	sd_start
	prog=$(lab_xdp_id "$LAB_A")
	# named as ip netns names it (the container has no ip: unshare
	# binds it, the host's ip moves the link through the path)
	sd mkdir -p /run/netns && sd touch "/run/netns/$ns" &&
		sd unshare --net="/run/netns/$ns" true ||
		fail "can't make /run/netns/$ns in the container"
	named=/proc/$NSPAWN_LEADER/root/run/netns/$ns
	sd_move "$named" "$detached" ||
		sd_fail "rfsd under the unit did not detach XDP in the named namespace $ns"
	nsenter --net="$named" ip -d link show dev "$LAB_A" | grep -q 'prog/xdp' &&
		sd_fail "$LAB_A moved to $ns still runs rfs_xdp (id $prog)"
	nsenter --net="$named" ip link set dev "$LAB_A" netns 1 ||
		fail "can't move $LAB_A back"
	sd umount "/run/netns/$ns"
	say "$LAB_A moved to $ns, named in the container: rfsd detached XDP (id $prog) there"

	lab_bg nsenter -t "$NSPAWN_LEADER" -a -- unshare --net sleep 120
	for ((i = 0; i < 50; i++)); do
		holder=$(pgrep -P "$LAB_BG_PID" -x sleep)
		[ -n "$holder" ] && break
		sleep 0.1
	done
	[ -n "$holder" ] || fail "no process holding a new netns in the container"
	# ended by us before the container powers off: systemd-shutdown
	# stops it (SIGSTOP to all) but does not end a process it did not
	# start, and the poweroff then waits for it
	LAB_PIDS+=("$holder:$(lab_starttime "$holder")")
	trap 'lab_kill '"$holder"' KILL 2; nspawn_down; sd_xdp_owner; lab_down' EXIT
	for ((i = 0; i < 50; i++)); do
		prog=$(lab_xdp_id "$LAB_A")
		[ -n "$prog" ] && break
		sleep 0.1
	done
	[ -n "$prog" ] || sd_fail "$LAB_A back from $ns was not attached again"
	sd_move "$holder" ".*can't detach XDP there: .*without CAP_SYS_PTRACE; our program stays on it there, pins dropped; name it \\(ip netns attach NAME PID\\), or add CAP_SYS_PTRACE to rfsd's CapabilityBoundingSet= in a drop-in" ||
		sd_fail "rfsd under the unit did not say why XDP stays in the netns of PID $holder"
	[ "$(sd_prop ActiveState)" = active ] || sd_fail "rfsd.service is $(sd_prop ActiveState) after the move"
	say "$LAB_A moved to the netns only a process holds (host PID $holder): rfsd says why XDP stays there"

	# the drop-in; restarted with $LAB_A back, rfsd sweeps the program
	# it left (an orphan of ours) and attaches again
	nsenter -t "$holder" -n ip link set dev "$LAB_A" netns 1 ||
		fail "can't move $LAB_A back from PID $holder's netns"
	printf '[Service]\nCapabilityBoundingSet=CAP_SYS_PTRACE\nAmbientCapabilities=CAP_SYS_PTRACE\n' \
		> "$NSPAWN_ETC/rfsd.service.d/ptrace.conf"
	# and the other recipe there, perf_event_open (kprobes, which this
	# kernel may not have): systemd adds it to the allow list
	printf '[Service]\nSystemCallFilter=perf_event_open\n' \
		> "$NSPAWN_ETC/rfsd.service.d/kprobes.conf"
	sd systemctl daemon-reload || fail "systemctl daemon-reload failed"
	sd_prop SystemCallFilter | grep -qw perf_event_open ||
		sd_fail "the drop-in did not allow perf_event_open: $(sd_prop SystemCallFilter | cut -c1-300)"
	sd_prop CapabilityBoundingSet | grep -qw cap_sys_ptrace ||
		sd_fail "the drop-in did not add CAP_SYS_PTRACE: $(sd_prop CapabilityBoundingSet)"
	sd_start restart
	prog=$(lab_xdp_id "$LAB_A")
	[ -n "$prog" ] || sd_fail "$LAB_A not attached after the restart"
	sd_move "$holder" "$detached" ||
		sd_fail "with CAP_SYS_PTRACE from a drop-in rfsd did not detach XDP in the netns of PID $holder"
	nsenter -t "$holder" -n ip -d link show dev "$LAB_A" | grep -q 'prog/xdp' &&
		sd_fail "$LAB_A moved to another netns still runs rfs_xdp (id $prog)"
	say "with the drop-in: rfsd detached XDP (id $prog) in the netns of PID $holder"
	sd_log
	lab_kill "$holder"
}

# /metrics under the unit, which lets rfsd open no IP socket: with
# metrics_listen set and no socket from systemd, rfsd fails to start and
# names the fix; the fix as it says it (enable rfsd-metrics.socket,
# restart rfsd) serves /metrics on the socket systemd passes, with the
# port and address from a drop-in as an admin writes one, and
# metrics_listen left unopened.  The drop-in listens on every address, so
# the socket unit's filter alone decides: a scrape of 127.0.0.1 gets the
# metrics, one from the lab namespace to the lab address gets nothing.
# rfsd stopped, a scrape starts it again (socket activation).
test_metrics_under_unit()
{
	local port cfg_port cur i
	lab_need curl
	sd_setup
	port=$(free_port) && cfg_port=$(free_port) || fail "can't pick a port"
	printf '[global]\nmetrics_listen = 127.0.0.1:%s\n[interface %s]\n' \
		"$cfg_port" "$LAB_A" > "$NSPAWN_ETC/rfs/rfsd.conf"
	cur=$(sd_cursor)
	timeout 60 nsenter -t "$NSPAWN_LEADER" -a -- systemctl start rfsd &&
		sd_fail "rfsd.service started with metrics_listen and no socket from systemd"
	sd_wait_journal "$cur" 10 "can't serve metrics on '127\\.0\\.0\\.1:$cfg_port': .*; rfsd\\.service lets rfsd open no IP socket: systemctl enable --now rfsd-metrics\\.socket; systemctl restart rfsd" ||
		sd_fail "no message naming rfsd-metrics.socket when metrics_listen can't open a socket under the unit"
	say "metrics_listen under rfsd.service: $(sd_journal_since "$cur" | grep -o "can't serve metrics.*" | head -n 1)"

	printf '[Socket]\nListenStream=\nListenStream=0.0.0.0:%s\n' "$port" \
		> "$NSPAWN_ETC/rfsd-metrics.socket.d/port.conf"
	sd systemctl daemon-reload || fail "can't reload the container's systemd"
	sd systemctl enable --now rfsd-metrics.socket ||
		sd_fail "systemctl enable --now rfsd-metrics.socket failed"
	cur=$(sd_cursor)
	sd_start restart
	curl -sS --max-time 10 --fail "http://127.0.0.1:$port/metrics" \
		> "$LAB_DIR/unit.prom" ||
		sd_fail "no scrape of the socket systemd passed rfsd.service"
	grep -q "^rfs_interface_attached{interface=\"$LAB_A\"," "$LAB_DIR/unit.prom" ||
		sd_fail "the scrape under rfsd.service does not show $LAB_A attached"
	sd_wait_journal "$cur" 5 "metrics_listen '127\\.0\\.0\\.1:$cfg_port' ignored" \
		"serving metrics on http://0\\.0\\.0\\.0:$port/metrics \\(the socket systemd passed\\)" ||
		sd_fail "rfsd did not say it serves the passed socket rather than metrics_listen"
	curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$cfg_port/metrics" &&
		sd_fail "metrics_listen's 127.0.0.1:$cfg_port answers beside the passed socket"
	say "a loopback scrape of rfsd-metrics.socket: $(grep -vc '^#' "$LAB_DIR/unit.prom") samples"
	lab_ns curl -s --max-time 5 -o /dev/null "http://$LAB_IP4_A:$port/metrics" &&
		sd_fail "a scrape from the lab namespace got through the socket unit's IPAddressDeny=any"
	say "a scrape of $LAB_IP4_A:$port from $LAB_NS: refused by the socket unit, as it should"

	sd_stop || sd_fail "systemctl stop rfsd failed"
	curl -sS --max-time 30 --fail -o /dev/null "http://127.0.0.1:$port/metrics" ||
		sd_fail "a scrape with rfsd stopped did not start it"
	# rfsd answers before READY=1 (it serves /metrics just before)
	for ((i = 0; i < 50; i++)); do
		[ "$(sd_prop ActiveState)" = active ] && break
		sleep 0.1
	done
	[ "$(sd_prop ActiveState)" = active ] ||
		sd_fail "rfsd.service is $(sd_prop ActiveState) after a scrape of its socket"
	say "rfsd stopped, a scrape started it again"
	sd_log
}

lab_trap

# ------------------------------------------------------ the tree's upkeep

# What a debootstrap killed midway leaves (its target's /proc mounted, a
# bind mount of a directory outside the tree) is removed before the next
# build: the mounts are gone, the tree is gone, and what the bind mount
# showed is untouched.
test_half_built_tree_removed()
{
	local tree outside rc=0
	lab_need unshare mount umount
	lab_trap
	lab_init
	tree=$LAB_DIR/tree.new
	outside=$LAB_DIR/outside
	mkdir -p "$tree/proc" "$tree/mnt/host" "$tree/var/lib" "$outside"
	echo keep > "$outside/file"
	echo junk > "$tree/var/lib/file"
	unshare -m --propagation private bash -c '
		mount -t proc proc "$1/proc" &&
			mount --bind "$2" "$1/mnt/host" || exit 2
		. "$3/tests/lib/nspawn.sh" || exit 3
		nspawn_rm_tree "$1"
		rc=$?
		grep -q " $1/" /proc/self/mountinfo && exit 4
		exit $rc' sh "$tree" "$outside" "$LAB_TOP" || rc=$?
	case $rc in
	0) ;;
	2) skip "can't mount proc or a bind mount in a mount namespace of our own" ;;
	4) fail "mounts under $tree are left after nspawn_rm_tree" ;;
	*) fail "nspawn_rm_tree did not remove $tree (exit $rc)" ;;
	esac
	[ ! -e "$tree" ] || fail "$tree is still there"
	[ "$(cat "$outside/file" 2>/dev/null)" = keep ] ||
		fail "removing the tree removed what a bind mount in it showed ($outside/file)"
}

lab_run_tests test_systemd "${*:-$ALL_TESTS}"
