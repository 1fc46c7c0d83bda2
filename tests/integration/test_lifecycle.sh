#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rfsd's lifecycle in trouble: what a crash, a rename or a move to another
# network namespace leaves, and the recovery command.  Each test has its
# own lab (tests/lib/lab.sh) and rfsd, torn down on every exit path.
#
#	tests/integration/test_lifecycle.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_cleanup_after_kill
	test_cleanup_refused_while_running
	test_orphan_swept
	test_kill_during_attach
	test_orphan_replaced_by_attach
	test_other_rfsd_untouched
	test_cleanup_no_follow
	test_rename_live
	test_rename_while_down
	test_netns_move
	test_netns_move_no_ptrace
	test_replaced_by_other_tool
	test_incompatible_pins
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

setup()
{
	lab_up_attached
	PROG=$(lab_xdp_id "$LAB_A")
	[ -n "$PROG" ] || fail "no XDP program on $LAB_A after attach"
}

# after SIGKILL, 'rfsd --cleanup' removes everything
# the pinned datapath attached (two interfaces here) and its pins; a
# second run finds nothing and still succeeds.
test_cleanup_after_kill()
{
	setup
	lab_up_spare
	ctl attach "$LAB_X" >/dev/null || fail "rfsctl attach $LAB_X failed"
	lab_stop_rfsd KILL
	[ -n "$(lab_xdp_id "$LAB_A")" ] && [ -n "$(lab_xdp_id "$LAB_X")" ] ||
		fail "SIGKILL should leave both programs attached"
	"$RFSD" --cleanup --pin-dir "$RFS_PIN" >"$LAB_DIR/cleanup.log" 2>&1 ||
		fail "rfsd --cleanup failed: $(cat "$LAB_DIR/cleanup.log")"
	say "$(tr '\n' ' ' < "$LAB_DIR/cleanup.log")"
	[ -z "$(lab_xdp_id "$LAB_A")" ] || fail "$LAB_A still has XDP after --cleanup"
	[ -z "$(lab_xdp_id "$LAB_X")" ] || fail "$LAB_X still has XDP after --cleanup"
	[ ! -e "$RFS_PIN" ] || fail "$RFS_PIN still exists after --cleanup"
	"$RFSD" --cleanup --pin-dir "$RFS_PIN" >/dev/null 2>&1 ||
		fail "a second rfsd --cleanup (nothing left) failed"
}

test_cleanup_refused_while_running()
{
	local out rc
	setup
	out=$("$RFSD" --cleanup --pin-dir "$RFS_PIN" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || fail "rfsd --cleanup beside a running rfsd: exit $rc, want 1"
	grep -q "in use" <<< "$out" || fail "no 'in use' in: $out"
	[ "$(lab_xdp_id "$LAB_A")" = "$PROG" ] ||
		fail "the refused cleanup touched $LAB_A's program"
}

# a program attached but never pinned (rfsd killed
# between the two) is ours by its maps: the next rfsd detaches it at once,
# before it serves, and can then attach.
test_orphan_swept()
{
	setup
	lab_stop_rfsd KILL
	rm -rf "${RFS_PIN_V:?}/if/$LAB_A"
	[ "$(lab_xdp_id "$LAB_A")" = "$PROG" ] || fail "program gone before the test"
	lab_start_rfsd
	[ -z "$(lab_xdp_id "$LAB_A")" ] ||
		fail "orphaned program (id $PROG) still attached to $LAB_A once rfsd serves"
	grep -qs "detached our orphaned XDP program (id $PROG)" "$RFSD_LOG" ||
		fail "rfsd did not log removing the orphan"
	ctl attach "$LAB_A" >/dev/null ||
		fail "rfsctl attach $LAB_A after the sweep failed"
}

# The pinned program of $1 under our pin dir, empty if none.
pinned_prog()
{
	bpftool -j prog show pinned "$RFS_PIN_V/if/$1/prog" 2>/dev/null |
		jget 'd["id"]' 2>/dev/null
}

# Start rfsd stopping itself at failpoint $1 of its next attach
# (RFSD_TEST_PAUSE, HACKING.md), attach $2 and wait until it stops there.
pause_in_attach()
{
	local i
	lab_stop_rfsd KILL
	RFSD_TEST_PAUSE=$1 lab_start_rfsd
	ctl attach "$2" >/dev/null 2>&1 &
	for ((i = 0; i < 100; i++)); do
		[ "$(awk '{ print $3 }' "/proc/$RFSD_PID/stat")" = T ] && return 0
		sleep 0.1
	done
	fail "rfsd never stopped at failpoint '$1' attaching $2"
}

# rfsd killed in each window of an attach (stopped at a failpoint there,
# KILL_AT rounds each), then at a random point of attaching two
# interfaces, KILL_ROUNDS times, and restarted at once: once it serves,
# every program on them is pinned and adopted, or gone; and attaching
# again never fails.
test_kill_during_attach()
{
	local rounds=${KILL_ROUNDS:-50} r ifc id t0 ms=0 delay orphans=0 refused=0
	local at=() p
	for p in attached configured pinned; do
		for ((r = 0; r < ${KILL_AT:-2}; r++)); do at+=("$p"); done
	done
	setup
	lab_up_spare
	ctl detach "$LAB_A" >/dev/null || fail "rfsctl detach $LAB_A failed"
	# the window: as long as the two attaches take
	t0=$(date +%s%N)
	ctl attach "$LAB_A" >/dev/null && ctl attach "$LAB_X" >/dev/null ||
		fail "attach before the rounds failed"
	ms=$(( ($(date +%s%N) - t0) / 1000000 + 1 ))
	say "two attaches take ${ms} ms; ${#at[@]} rounds at failpoints, $rounds of SIGKILL within that"
	for ((r = 0; r < ${#at[@]} + rounds; r++)); do
		for ifc in "$LAB_A" "$LAB_X"; do
			[ -n "$(lab_xdp_id "$ifc")" ] && ctl detach "$ifc" >/dev/null
		done
		if ((r < ${#at[@]})); then
			pause_in_attach "${at[r]}" "$LAB_A"
		else
			delay=$(awk -v m="$ms" -v s="$RANDOM" 'BEGIN { printf "%.3f", m * (s % 1000) / 1000000 }')
			{ ctl attach "$LAB_A"; ctl attach "$LAB_X"; } >/dev/null 2>&1 &
			sleep "$delay"
		fi
		lab_stop_rfsd KILL
		wait $! 2>/dev/null
		lab_start_rfsd
		for ifc in "$LAB_A" "$LAB_X"; do
			id=$(lab_xdp_id "$ifc")
			if [ -n "$id" ] && [ "$id" != "$(pinned_prog "$ifc")" ]; then
				say "round $r (${at[r]:-random}): $ifc has program $id, pinned: '$(pinned_prog "$ifc")'"
				orphans=$((orphans + 1))
			fi
			if [ -z "$id" ] && ! ctl attach "$ifc" >/dev/null; then
				say "round $r (${at[r]:-random}): attach $ifc refused"
				refused=$((refused + 1))
			fi
		done
		((orphans + refused)) && break
	done
	say "$(grep -c 'detached our orphaned' "$RFSD_LOG") kills fell between attaching and pinning"
	[ "$orphans" = 0 ] || fail "$orphans programs without pins once rfsd served"
	[ "$refused" = 0 ] || fail "$refused attaches refused after a restart"
}

# Our own orphan (rfsd killed between attaching and pinning) on an
# interface the next rfsd's start did not see, being in another network
# namespace then: rfsctl attach replaces it.
test_orphan_replaced_by_attach()
{
	local ns=rfsor$LAB_ID orphan id
	setup
	lab_up_spare
	ip netns add "$ns" || fail "can't create netns $ns"
	# the veth pair goes with the namespace when it is deleted
	trap 'ip netns del '"$ns"' 2>/dev/null; lab_down' EXIT
	pause_in_attach attached "$LAB_X"
	orphan=$(lab_xdp_id "$LAB_X")
	[ -n "$orphan" ] || fail "no program on $LAB_X at the failpoint"
	ip link set dev "$LAB_X" netns "$ns" || fail "can't move $LAB_X"
	lab_stop_rfsd KILL
	wait $! 2>/dev/null
	lab_start_rfsd
	ip -n "$ns" link set dev "$LAB_X" netns 1 || fail "can't move $LAB_X back"
	[ "$(lab_xdp_id "$LAB_X")" = "$orphan" ] ||
		fail "our orphan (id $orphan) did not come back on $LAB_X"
	ctl attach "$LAB_X" >/dev/null ||
		fail "rfsctl attach over our orphan on $LAB_X refused"
	id=$(lab_xdp_id "$LAB_X")
	[ -n "$id" ] && [ "$id" != "$orphan" ] &&
		[ "$id" = "$(pinned_prog "$LAB_X")" ] ||
		fail "$LAB_X runs '$id' (orphan $orphan), pinned '$(pinned_prog "$LAB_X")'"
	grep -qs "detached our orphaned XDP program (id $orphan)" "$RFSD_LOG" ||
		fail "rfsd did not log replacing the orphan"
	ip netns del "$ns"
}

# A second rfsd, its pin dir on a bpffs the first can't see (another
# mount namespace, as in a container), and its program named as ours:
# neither the first's start nor its --cleanup touches it.
test_other_rfsd_untouched()
{
	local bpfb=$LAB_DIR/bpfB sockb=$LAB_DIR/rfsdB.sock pidb px i
	setup
	lab_up_spare
	mkdir -p "$bpfb"
	lab_bg unshare -m --propagation private sh -c \
		'mount -t bpf bpf "$1" && exec "$2" --socket "$3" --pin-dir "$1/rfs" --config "$4" -v' \
		sh "$bpfb" "$RFSD" "$sockb" "$LAB_DIR/rfsd.conf" \
		>>"$LAB_DIR/rfsdB.log" 2>&1
	pidb=$LAB_BG_PID
	for ((i = 0; i < 150; i++)); do
		"$RFSCTL" --socket "$sockb" status >/dev/null 2>&1 && break
		sleep 0.1
	done
	"$RFSCTL" --socket "$sockb" attach "$LAB_X" >/dev/null ||
		fail "the second rfsd can't attach $LAB_X: $(tail -3 "$LAB_DIR/rfsdB.log")"
	px=$(lab_xdp_id "$LAB_X")
	[ -n "$px" ] || fail "no program on $LAB_X"
	lab_stop_rfsd KILL
	lab_start_rfsd
	[ "$(lab_xdp_id "$LAB_X")" = "$px" ] ||
		fail "the first rfsd's start removed the second's program"
	lab_stop_rfsd KILL
	"$RFSD" --cleanup --pin-dir "$RFS_PIN" >"$LAB_DIR/cleanup.log" 2>&1 ||
		fail "rfsd --cleanup failed: $(cat "$LAB_DIR/cleanup.log")"
	[ -z "$(lab_xdp_id "$LAB_A")" ] || fail "--cleanup left our program on $LAB_A"
	[ "$(lab_xdp_id "$LAB_X")" = "$px" ] ||
		fail "the first rfsd's --cleanup removed the second's program"
	"$RFSCTL" --socket "$sockb" -j status |
		jget '[i["name"] for i in d["interfaces"] if i["prog_id"] == '"$px"']' |
		grep -q "\"$LAB_X\"" || fail "the second rfsd no longer lists $LAB_X"
	"$RFSCTL" --socket "$sockb" detach "$LAB_X" >/dev/null ||
		fail "the second rfsd can't detach $LAB_X"
	kill -TERM "$pidb"
	lab_wait "$pidb" 10 || fail "the second rfsd did not exit"
}

# --cleanup removes what is under the pin dir, never what a symlink there
# points at.
test_cleanup_no_follow()
{
	local scratch=$LAB_DIR/scratch
	setup
	lab_stop_rfsd KILL
	mkdir -p "$scratch/sub" && echo keep >"$scratch/sub/prog"
	ln -s "$scratch" "$RFS_PIN_V/if/trap" &&
		ln -s "$scratch" "$RFS_PIN/v9" ||
		fail "can't make symlinks under the pin dir"
	"$RFSD" --cleanup --pin-dir "$RFS_PIN" >"$LAB_DIR/cleanup.log" 2>&1 ||
		fail "rfsd --cleanup failed: $(cat "$LAB_DIR/cleanup.log")"
	[ -f "$scratch/sub/prog" ] ||
		fail "--cleanup followed a symlink and removed $scratch/sub/prog"
	[ -z "$(lab_xdp_id "$LAB_A")" ] || fail "$LAB_A still has XDP after --cleanup"
	[ ! -e "$RFS_PIN" ] || fail "$RFS_PIN still exists after --cleanup"
}

# a renamed interface is followed: status, pins,
# detach under the new name.
test_rename_live()
{
	local new=rfsN$LAB_ID
	setup
	ip link set dev "$LAB_A" name "$new" || fail "can't rename $LAB_A"
	LAB_A_RENAMED=$new
	sleep 1
	ctlj status | jget '[i["name"] for i in d["interfaces"]]' |
		grep -q "\"$new\"" || fail "status does not list $new"
	[ -d "$RFS_PIN_V/if/$new" ] || fail "pins did not move to if/$new"
	[ ! -e "$RFS_PIN_V/if/$LAB_A" ] || fail "pins left under the old name"
	ctl detach "$new" >/dev/null || fail "rfsctl detach $new failed"
	[ -z "$(lab_xdp_id "$new")" ] || fail "$new still has XDP after detach"
	ip link set dev "$new" name "$LAB_A"
}

test_rename_while_down()
{
	local new=rfsN$LAB_ID
	setup
	lab_stop_rfsd KILL
	ip link set dev "$LAB_A" name "$new" || fail "can't rename $LAB_A"
	lab_start_rfsd
	ctlj status | jget '[i["name"] for i in d["interfaces"]]' |
		grep -q "\"$new\"" ||
		fail "rfsd did not adopt $new (renamed from $LAB_A while down)"
	[ "$(lab_xdp_id "$new")" = "$PROG" ] || fail "adopting replaced the program"
	ctl detach "$new" >/dev/null || fail "rfsctl detach $new failed"
	[ -z "$(lab_xdp_id "$new")" ] || fail "$new still has XDP after detach"
	ip link set dev "$new" name "$LAB_A"
}

# moved to another network namespace, the interface
# keeps no program nobody owns.
test_netns_move()
{
	local ns=rfsmv$LAB_ID i
	setup
	ip netns add "$ns" || fail "can't create netns $ns"
	# the veth pair goes with the namespace when it is deleted
	trap 'ip netns del '"$ns"' 2>/dev/null; lab_down' EXIT
	ip link set dev "$LAB_A" netns "$ns" || fail "can't move $LAB_A"
	for ((i = 0; i < 30; i++)); do
		[ -z "$(lab_xdp_id "$LAB_A" "$ns")" ] && break
		sleep 0.1
	done
	[ -z "$(lab_xdp_id "$LAB_A" "$ns")" ] ||
		fail "$LAB_A in $ns still runs rfs_xdp (id $PROG)"
	grep -q "moved to another network namespace.*detached XDP there" \
		"$RFSD_LOG" || fail "rfsd did not log the move"
	ctlj status | jget '[i["name"] for i in d["interfaces"]]' |
		grep -q "\"$LAB_A\"" && fail "status still lists $LAB_A"
	ip -n "$ns" link set dev "$LAB_A" netns 1 2>/dev/null
	ip netns del "$ns"
}

# Without CAP_SYS_PTRACE, as the systemd unit runs it: an interface moved
# to a named namespace (ip netns, or a bind mount in a directory like
# Docker's /run/docker/netns, here one of the test's) is still detached
# there.  Moved to a namespace only a process holds (a container's:
# /proc/PID/ns/net of a process with more capabilities than rfsd opens
# only with CAP_SYS_PTRACE), our program stays there; rfsd says so once,
# with the fix, drops the interface and carries on.
test_netns_move_no_ptrace()
{
	local ns=rfsmv$LAB_ID dir=$LAB_DIR/netns holder i out
	lab_need setpriv unshare nsenter
	lab_trap
	lab_up
	mkdir -p "$dir" && touch "$dir/ctr" || fail "can't make $dir/ctr"
	trap 'ip netns del '"$ns"' 2>/dev/null; umount '"$dir/ctr"' 2>/dev/null; lab_down' EXIT
	unshare --net="$dir/ctr" true || skip "can't bind a new netns on $dir/ctr"
	ip netns add "$ns" || fail "can't create netns $ns"
	cat > "$LAB_DIR/rfsd-noptrace" <<-EOF
	#!/bin/sh
	RFSD_TEST_NETNS_DIRS='{/run/netns,$dir}/*' exec setpriv \\
		--bounding-set -sys_ptrace --inh-caps -sys_ptrace -- "$RFSD" "\$@"
	EOF
	chmod +x "$LAB_DIR/rfsd-noptrace"
	RFSD=$LAB_DIR/rfsd-noptrace lab_start_rfsd
	# CAP_SYS_PTRACE is capability 19
	(( ! (0x$(awk '/^CapEff:/ { print $2 }' "/proc/$RFSD_PID/status") & (1 << 19)) )) ||
		fail "rfsd runs with CAP_SYS_PTRACE"

	# named: by ip netns, and by a bind mount in a directory of its own
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
	ip link set dev "$LAB_A" netns "$ns" || fail "can't move $LAB_A to $ns"
	lab_wait_log "moved to another network namespace.*detached XDP there" ||
		fail "rfsd did not detach XDP in $ns"
	[ -z "$(lab_xdp_id "$LAB_A" "$ns")" ] || fail "$LAB_A in $ns still runs XDP"
	ip -n "$ns" link set dev "$LAB_A" netns 1 || fail "can't move $LAB_A back"
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A (back from $ns) failed"
	ip link set dev "$LAB_A" netns "$dir/ctr" || fail "can't move $LAB_A to $dir/ctr"
	for ((i = 0; i < 50; i++)); do
		[ "$(grep -c "detached XDP there" "$RFSD_LOG")" = 2 ] && break
		sleep 0.1
	done
	nsenter --net="$dir/ctr" ip -d link show dev "$LAB_A" | grep -q prog/xdp &&
		fail "$LAB_A in the namespace bound on $dir/ctr still runs XDP"
	[ "$(grep -c "detached XDP there" "$RFSD_LOG")" = 2 ] ||
		fail "rfsd did not log the detach in the namespace bound on $dir/ctr"
	nsenter --net="$dir/ctr" ip link set dev "$LAB_A" netns 1 ||
		fail "can't move $LAB_A back from $dir/ctr"
	say "named namespaces ($ns, $dir/ctr): XDP detached there without CAP_SYS_PTRACE"

	# held by a process only
	lab_bg unshare --net sleep 120
	holder=$LAB_BG_PID
	for ((i = 0; i < 50; i++)); do
		[ "$(readlink "/proc/$holder/ns/net")" != "$(readlink /proc/self/ns/net)" ] && break
		sleep 0.1
	done
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A (back from $dir/ctr) failed"
	ip link set dev "$LAB_A" netns "$holder" || fail "can't move $LAB_A to PID $holder's netns"
	lab_wait_log "can't detach XDP there: the namespace is not named" ||
		fail "rfsd did not say it could not detach XDP in PID $holder's netns"
	out=$(grep "can't detach XDP there" "$RFSD_LOG")
	say "$out"
	[ "$(wc -l <<< "$out")" = 1 ] || fail "logged more than once: $out"
	grep -q "iface '$LAB_A' (ifindex [0-9]*): moved to another network namespace (netns id [0-9-]*, ifindex [0-9]* there): .*without CAP_SYS_PTRACE.*our program stays on it there, pins dropped; name it (ip netns attach NAME PID), or add CAP_SYS_PTRACE to rfsd's CapabilityBoundingSet= in a drop-in" <<< "$out" ||
		fail "the line does not say what was left and the fix: $out"
	nsenter -t "$holder" -n ip -d link show dev "$LAB_A" | grep -q prog/xdp ||
		fail "the line says our program stays, but $LAB_A has none"
	ctlj status | jget '[i["name"] for i in d["interfaces"]]' |
		grep -q "\"$LAB_A\"" && fail "status still lists $LAB_A"
	# rfsd carries on: another interface attaches and detaches
	lab_up_spare
	ctl attach "$LAB_X" >/dev/null || fail "rfsctl attach $LAB_X failed after the move"
	[ -n "$(lab_xdp_id "$LAB_X")" ] || fail "no XDP on $LAB_X"
	ctl detach "$LAB_X" >/dev/null || fail "rfsctl detach $LAB_X failed"
	lab_kill "$holder"
}

# another tool replaces our program.  rfsd notices
# (rtnetlink), logs it, drops the interface and shows it as lost; detach
# then says why instead of succeeding silently.
test_replaced_by_other_tool()
{
	local obj=$LAB_BUILD/tests/bpf/other_xdp.bpf.o other i out rc
	[ -f "$obj" ] || skip "no $obj (make check builds it)"
	setup
	ip -force link set dev "$LAB_A" xdpdrv obj "$obj" sec xdp ||
		fail "can't put another program on $LAB_A"
	other=$(lab_xdp_id "$LAB_A")
	[ -n "$other" ] && [ "$other" != "$PROG" ] || fail "no other program on $LAB_A"
	for ((i = 0; i < 30; i++)); do
		grep -q "replaced by program $other" "$RFSD_LOG" && break
		sleep 0.1
	done
	grep -q "iface '$LAB_A' (ifindex [0-9]*): lost: our XDP program (id $PROG) was replaced by program $other" \
		"$RFSD_LOG" || fail "rfsd did not log the replacement"
	out=$(ctlj status | jget '[i["name"] for i in d["interfaces"]]')
	grep -q "\"$LAB_A\"" <<< "$out" && fail "status still lists $LAB_A as attached"
	out=$(ctlj status | jget '[(l["name"], l["replaced_by"]) for l in d["lost"]]')
	grep -q "\"$LAB_A\", $other" <<< "$out" ||
		fail "status does not show $LAB_A as lost to $other: $out"
	out=$(ctl detach "$LAB_A" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || fail "rfsctl detach of a lost interface: exit $rc, want 1"
	grep -q "replaced our XDP program with program $other" <<< "$out" ||
		fail "detach does not say why: $out"
	[ "$(lab_xdp_id "$LAB_A")" = "$other" ] || fail "the other program was touched"
	ip link set dev "$LAB_A" xdpdrv off
}

# pins another build made are refused with what to do,
# never read into this build's structs: a pinned map with other sizes,
# and a datapath of another pin layout next to ours.
test_incompatible_pins()
{
	local out rc
	setup
	lab_stop_rfsd KILL
	rm -f "$RFS_PIN_V/maps/rfs_globals"
	bpftool map create "$RFS_PIN_V/maps/rfs_globals" type array key 4 \
		value 8 entries 1 name rfs_globals ||
		fail "can't pin a look-alike rfs_globals"
	out=$(timeout 20 "$RFSD" --socket "$RFS_SOCK" --pin-dir "$RFS_PIN" \
		--config "$LAB_DIR/rfsd.conf" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || fail "rfsd over foreign pins: exit $rc, want 1"
	grep -q "pinned map rfs_globals has 8-byte values" <<< "$out" ||
		fail "no size mismatch reported: $out"
	grep -q "rfsd --cleanup --pin-dir $RFS_PIN" <<< "$out" ||
		fail "no way out given: $out"
	[ "$(lab_xdp_id "$LAB_A")" = "$PROG" ] || fail "the refused start touched $LAB_A"

	# another layout beside ours: refused too, and --cleanup clears it
	"$RFSD" --cleanup --pin-dir "$RFS_PIN" >/dev/null 2>&1 ||
		fail "rfsd --cleanup failed"
	mkdir -p "$RFS_PIN/v1/maps" || fail "can't make $RFS_PIN/v1"
	out=$(timeout 20 "$RFSD" --socket "$RFS_SOCK" --pin-dir "$RFS_PIN" \
		--config "$LAB_DIR/rfsd.conf" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || fail "rfsd beside a v1 layout: exit $rc, want 1"
	grep -q "holds a datapath of pin layout v1" <<< "$out" ||
		fail "no layout mismatch reported: $out"
	"$RFSD" --cleanup --pin-dir "$RFS_PIN" >/dev/null 2>&1 ||
		fail "rfsd --cleanup of a v1 layout failed"
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || fail "attach after --cleanup failed"
}

lab_trap
lab_require_root
lab_need_bins
lab_need ip ethtool "$LAB_PY"
lab_run_tests test_lifecycle "${*:-$ALL_TESTS}"
