#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cpumap_kthread_sched (rfsd.conf [global]): rfsd gives its own cpumap
# kthreads the policy asked for (SCHED_FIFO 1 without the key) once they
# have run (their PIDs come from the datapath, shown in `rfsctl -j
# status`), leaves other cpumaps' kthreads alone, refuses a bad value with
# a message saying what is wrong, and puts SCHED_OTHER nice 0 back when
# SIGHUP re-reads kernel, or a restart with kernel finds the kthreads an
# earlier rfsd changed (and only those); stats gives how long each kthread waited for its
# CPU, the kernel's own count; and with the default no kthread is kept
# off its CPU while tasks there wake each other (test_default_not_starved).
# Each test has its own lab (tests/lib/lab.sh) and rfsd, torn down on
# every exit path.
#
#	tests/integration/test_ksched.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_default_then_kernel
	test_policy_before_traffic
	test_nice_then_fifo
	test_batch_then_nice
	test_kernel_leaves_alone
	test_restart_undoes_earlier
	test_restart_leaves_operator
	test_added_by_sighup
	test_bad_values_refused
	test_kthread_wait
	test_kthread_wait_warned
	test_default_not_starved
	test_flood_steps_down
	test_burst_steps_down
	test_fake_kthread_ignored
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

SEQ=$LAB_BUILD/tests/rfs_seq
INJECT=$LAB_BUILD/bench/inject
SEQ_PORT=$((LAB_PORT + 400))
CPU_LIST=($(lab_online_cpus))
CAP_SYS_NICE=23
# include/net/tcp.h: no retransmit timer fires sooner
TCP_RTO_MIN_MS=200
OTHER_PIN=$RFS_PIN-other	# another cpumap's, on the same bpffs

ksched_trap()
{
	trap 'rm -f "$OTHER_PIN"; lab_down' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# Another cpumap, as another lab's rfsd would have: a kthread per CPU
# ("cpumap/<cpu>/map:<its id>"), each reniced to 7 so that a change shows.
other_cpumap()
{
	local c pid
	bpftool map create "$OTHER_PIN" type cpumap key 4 value 4 \
		entries ${#CPU_LIST[@]} name rfs_t_other ||
		fail "can't create a second cpumap"
	for c in "${CPU_LIST[@]}"; do
		# value: struct bpf_cpumap_val.qsize = 256, little endian
		bpftool map update pinned "$OTHER_PIN" key "$c" 0 0 0 \
			value 0 1 0 0 || fail "can't add CPU $c to the second cpumap"
	done
	OTHER_ID=$(bpftool -j map show pinned "$OTHER_PIN" | jget 'd["id"]')
	for c in "${CPU_LIST[@]}"; do
		for pid in $(all_cpumap_kthreads | awk -v n="cpumap/$c/map:$OTHER_ID" '$2 == n { print $1 }'); do
			renice -n 7 -p "$pid" >/dev/null || fail "can't renice pid $pid"
		done
	done
}

say() { printf '    [%5.1fs] %s\n' "$(lab_since "$TEST_T0")" "$*"; }

# lab + rfsd with cpumap_kthread_sched = $1 (none if empty) + attach.
setup()
{
	ksched_trap
	[ ${#CPU_LIST[@]} -ge 2 ] || skip "needs 2 online CPUs (have ${#CPU_LIST[@]})"
	[ -x "$SEQ" ] || skip "$SEQ is not built"
	lab_up
	lab_init
	set_key "$1"
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || fail "rfsctl attach $LAB_A failed"
}

set_key()
{
	if [ -n "$1" ]; then
		printf '[global]\ncpumap_kthread_sched = %s\n' "$1" > "$LAB_DIR/rfsd.conf"
	else
		: > "$LAB_DIR/rfsd.conf"
	fi
}

# SIGHUP and wait for rfsd to say it re-read the config.
reload()
{
	local n i
	n=$(grep -c "reloading config" "$RFSD_LOG")
	kill -HUP "$RFSD_PID" || fail "can't signal rfsd"
	for ((i = 0; i < 50; i++)); do
		[ "$(grep -c "reloading config" "$RFSD_LOG")" -gt "$n" ] && return 0
		sleep 0.1
	done
	fail "rfsd did not reload its config"
}

# Frames through both CPUs' cpumaps: veth receives on the sending CPU, so
# a sender on one CPU and its reader on the other puts the flow through
# the reader's CPU's cpumap queue, whose kthread then runs (and records
# its PID).  One such flow each way, 2 s at 500 packets/s.
traffic_both()
{
	local i a b pids=()
	for i in 0 1; do
		a=${CPU_LIST[i]}
		b=${CPU_LIST[1 - i]}
		lab_bg taskset -c "$b" "$SEQ" recv "$LAB_IP4_A" $((SEQ_PORT + i)) \
			"$LAB_IP4_B" $((SEQ_PORT + 1000 + i)) 6 > "$LAB_DIR/seq.recv.$i"
		pids+=("$LAB_BG_PID")
	done
	for ((i = 0; i < 50; i++)); do
		[ "$(ss -Huan "( sport = :$SEQ_PORT or sport = :$((SEQ_PORT + 1)) )" |
			wc -l)" -ge 2 ] && break
		sleep 0.1
	done
	for i in 0 1; do
		lab_bg_ns taskset -c "${CPU_LIST[i]}" "$SEQ" send "$LAB_IP4_B" \
			$((SEQ_PORT + 1000 + i)) "$LAB_IP4_A" $((SEQ_PORT + i)) 2 500 \
			> "$LAB_DIR/seq.send.$i"
		pids+=("$LAB_BG_PID")
	done
	for i in "${pids[@]}"; do
		lab_wait "$i" 15 || fail "rfs_seq failed"
	done
}

# "cpu pid policy" per CPU from `rfsctl -j status` (pid 0: none seen,
# policy "-": left alone).
status_kthreads()
{
	ctlj status | "$LAB_PY" -c '
import json, sys
for k in json.load(sys.stdin)["cpumap_kthreads"]["kthreads"]:
    print(k["cpu"], k["pid"] or 0, (k["policy"] or "-").replace(" ", "_"))'
}

# "comm policy rt_priority nice" of PID $1 from /proc/PID/stat (fields
# 2, 41, 40, 19); empty if it is gone.
proc_sched()
{
	local s comm
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	comm=${s#*(}
	comm=${comm%)*}
	s=${s##*) }
	# shellcheck disable=SC2086	# split into fields on purpose
	set -- $s
	echo "$comm ${39} ${38} ${17}"
}

# Every cpumap kthread on the host: "pid comm policy rt_priority nice".
all_cpumap_kthreads()
{
	local d pid
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		case "$(cat "$d/comm" 2>/dev/null)" in
		cpumap/*) echo "$pid $(proc_sched "$pid")" ;;
		esac
	done
}

# Wait up to 5 s until every online CPU's kthread (in status) shows policy
# $1 ("SCHED_FIFO_1", "-"); then check each in /proc: policy $2, rt
# priority $3, nice $4, named for its CPU and this rfsd's cpumap.  Sets
# OURS to the PIDs.
expect_policy()
{
	local want=$1 pol=$2 rt=$3 nice=$4 i c cpu pid p ok mapid got st
	for ((i = 0; i < 25; i++)); do
		st=$(status_kthreads)
		ok=1
		for c in "${CPU_LIST[@]}"; do
			read -r cpu pid p < <(awk -v c="$c" '$1 == c' <<< "$st")
			[ "${pid:-0}" != 0 ] && [ "$p" = "$want" ] || ok=0
		done
		((ok)) && break
		sleep 0.2
	done
	((ok)) || fail "status after 5 s: $(tr '\n' ';' <<< "$st") (want $want on CPUs ${CPU_LIST[*]})"
	mapid=$(lab_cpumap_id)
	OURS=()
	for c in "${CPU_LIST[@]}"; do
		read -r cpu pid p < <(awk -v c="$c" '$1 == c' <<< "$st")
		got=$(proc_sched "$pid")
		say "cpu $c: kthread pid $pid: $got (status: $p)"
		[ -n "$got" ] || fail "cpu $c: kthread pid $pid is gone"
		read -r comm gp grt gn <<< "$got"
		# the whole name, or the 15 characters a kernel keeps of it
		[ "$comm" = "cpumap/$c/map:$mapid" ] ||
			{ [ ${#comm} -eq 15 ] && [[ "cpumap/$c/map:$mapid" == "$comm"* ]]; } ||
			fail "cpu $c: pid $pid is '$comm', not cpumap/$c/map:$mapid"
		[ "$gp $grt $gn" = "$pol $rt $nice" ] ||
			fail "cpu $c: kthread pid $pid has policy $gp, rt_priority $grt, nice $gn; want $pol $rt $nice"
		OURS+=("$pid")
	done
}

# Other cpumaps' kthreads present in both snapshots $1 and $2 kept their
# policy, rt priority and nice; the second cpumap's (other_cpumap) are
# among them.
others_untouched()
{
	local changed n
	n=$(grep -c " cpumap/[0-9]*/map:$OTHER_ID 0 0 7\$" <<< "$2")
	[ "$n" -eq ${#CPU_LIST[@]} ] ||
		fail "the second cpumap's kthreads are not all at nice 7: $(grep "map:$OTHER_ID " <<< "$2")"
	changed=$(join <(sort <<< "$1") <(sort <<< "$2") | awk -v ours=" ${OURS[*]} " '
		index(ours, " " $1 " ") { next }
		$3 != $7 || $4 != $8 || $5 != $9 { print }')
	[ -z "$changed" ] || fail "other cpumap kthreads changed (pid comm before / comm after): $changed"
	say "$(join <(sort <<< "$1") <(sort <<< "$2") | awk -v ours=" ${OURS[*]} " '
		!index(ours, " " $1 " ")' | wc -l) other cpumap kthreads untouched"
}

cap_eff_has()
{
	local eff
	eff=$(awk '/^CapEff:/ { print $2 }' "/proc/$1/status")
	(( (16#$eff >> $2) & 1 ))
}

# ------------------------------------------------------------------ tests

# No key: both CPUs' kthreads become SCHED_FIFO 1 (logged once each),
# others stay as they were; kernel + SIGHUP: SCHED_OTHER nice 0.
test_default_then_kernel()
{
	local before after n
	setup ""
	other_cpumap
	before=$(all_cpumap_kthreads)
	cap_eff_has "$RFSD_PID" $CAP_SYS_NICE ||
		fail "rfsd dropped CAP_SYS_NICE though the default policy needs it"
	traffic_both
	expect_policy SCHED_FIFO_1 1 1 0
	for pid in "${OURS[@]}"; do
		n=$(grep -c "cpumap kthread pid $pid -> SCHED_FIFO 1\$" "$RFSD_LOG")
		[ "$n" = 1 ] || fail "rfsd logged the change of pid $pid $n times, want once"
	done
	ctl status | grep -q "kthread sched  *fifo:1" ||
		fail "rfsctl status does not show the policy: $(ctl status)"
	ctl status | grep -q "cpu ${CPU_LIST[0]} kthread  *pid ${OURS[0]}, SCHED_FIFO 1" ||
		fail "rfsctl status does not show cpu ${CPU_LIST[0]}'s kthread: $(ctl status)"
	after=$(all_cpumap_kthreads)
	others_untouched "$before" "$after"

	set_key kernel
	reload
	expect_policy - 0 0 0
	grep -q "cpumap kthread pid ${OURS[0]} -> SCHED_OTHER nice 0 (cpumap_kthread_sched = kernel)" \
		"$RFSD_LOG" || fail "rfsd did not log putting pid ${OURS[0]} back"
}

# The kthreads made with rfsd's cpumap get the policy at once, found in
# /proc by their name, not at their first batch (up to a second later,
# as SCHED_OTHER): right after start and attach, before any traffic,
# every one is SCHED_FIFO 1 and status names its PID.
test_policy_before_traffic()
{
	local mapid st c cpu pid p got
	setup ""
	st=$(status_kthreads)
	mapid=$(lab_cpumap_id)
	for c in "${CPU_LIST[@]}"; do
		got=$(all_cpumap_kthreads | awk -v n="cpumap/$c/map:$mapid" '$2 == n { print $1, $3, $4, $5 }')
		say "cpu $c: pid policy rt_priority nice: $got"
		[ "${got#* }" = "1 1 0" ] ||
			fail "cpu $c's kthread is not SCHED_FIFO 1 before any frame: '$got'"
		read -r cpu pid p < <(awk -v c="$c" '$1 == c' <<< "$st")
		[ "$pid" = "${got%% *}" ] && [ "$p" = SCHED_FIFO_1 ] ||
			fail "status says cpu $c: pid $pid, $p; /proc: $got"
	done
}

# nice:-5, then fifo:2 by SIGHUP (CAP_SYS_NICE kept since the start).
test_nice_then_fifo()
{
	local before
	setup nice:-5
	other_cpumap
	before=$(all_cpumap_kthreads)
	traffic_both
	expect_policy SCHED_OTHER_nice_-5 0 0 -5
	others_untouched "$before" "$(all_cpumap_kthreads)"
	set_key fifo:2
	reload
	expect_policy SCHED_FIFO_2 1 2 0
}

# batch:0: SCHED_BATCH (policy 3) at nice 0, others untouched; then
# nice:0 by SIGHUP: back to SCHED_OTHER, not a nice on a batch policy.
test_batch_then_nice()
{
	local before
	setup batch:0
	other_cpumap
	before=$(all_cpumap_kthreads)
	traffic_both
	expect_policy SCHED_BATCH_nice_0 3 0 0
	ctl status | grep -q "kthread sched  *batch:0" ||
		fail "rfsctl status does not show the policy: $(ctl status)"
	others_untouched "$before" "$(all_cpumap_kthreads)"
	set_key nice:0
	reload
	expect_policy SCHED_OTHER_nice_0 0 0 0
}

# kernel: rfsd leaves its kthreads alone, even one an operator changed by
# hand, and drops CAP_SYS_NICE.
test_kernel_leaves_alone()
{
	local pid
	setup kernel
	cap_eff_has "$RFSD_PID" $CAP_SYS_NICE &&
		fail "rfsd kept CAP_SYS_NICE with cpumap_kthread_sched = kernel"
	traffic_both
	expect_policy - 0 0 0
	pid=${OURS[0]}
	renice -n 3 -p "$pid" >/dev/null || fail "can't renice pid $pid"
	reload
	sleep 2
	[ "$(proc_sched "$pid" | awk '{ print $4 }')" = 3 ] ||
		fail "rfsd changed pid $pid with cpumap_kthread_sched = kernel: $(proc_sched "$pid")"
	grep -q "cpumap kthread pid" "$RFSD_LOG" &&
		fail "rfsd logged a policy change with cpumap_kthread_sched = kernel: $(grep "cpumap kthread pid" "$RFSD_LOG")"
	return 0
}

# A restarted rfsd knows which kthreads an earlier one changed (its note
# beside the pinned datapath; SIGTERM leaves the datapath steering): with
# kernel it puts SCHED_OTHER nice 0 back on them before it drops
# CAP_SYS_NICE, and says so; rfsd before the note left them SCHED_FIFO.
# A third start, with nothing noted, changes and says nothing.
test_restart_undoes_earlier()
{
	local pid n
	setup ""
	expect_policy SCHED_FIFO_1 1 1 0
	lab_stop_rfsd TERM
	for pid in "${OURS[@]}"; do
		[ "$(proc_sched "$pid" | awk '{ print $2, $3 }')" = "1 1" ] ||
			fail "pid $pid is not SCHED_FIFO 1 once rfsd stopped: $(proc_sched "$pid")"
	done
	set_key kernel
	lab_start_rfsd
	for pid in "${OURS[@]}"; do
		say "pid $pid after the restart: $(proc_sched "$pid")"
		[ "$(proc_sched "$pid" | awk '{ print $2, $3, $4 }')" = "0 0 0" ] ||
			fail "pid $pid is not SCHED_OTHER nice 0 after a restart with kernel: $(proc_sched "$pid")"
		grep -q "cpumap kthread pid $pid has SCHED_FIFO 1 from an earlier rfsd" "$RFSD_LOG" ||
			fail "rfsd did not say that pid $pid had SCHED_FIFO 1 from an earlier rfsd"
		grep -q "cpumap kthread pid $pid -> SCHED_OTHER nice 0 (cpumap_kthread_sched = kernel)" \
			"$RFSD_LOG" || fail "rfsd did not log putting pid $pid back"
	done
	cap_eff_has "$RFSD_PID" $CAP_SYS_NICE &&
		fail "rfsd kept CAP_SYS_NICE with cpumap_kthread_sched = kernel"
	lab_stop_rfsd TERM
	n=$(wc -l < "$RFSD_LOG")
	lab_start_rfsd
	tail -n +$((n + 1)) "$RFSD_LOG" | grep "from an earlier rfsd\|cpumap kthread pid" &&
		fail "a third start with nothing noted changed a kthread"
	return 0
}

# The note is only of what rfsd set: a kthread an operator gave
# SCHED_FIFO 3 by hand under kernel keeps it when rfsd restarts with
# kernel.
test_restart_leaves_operator()
{
	local pid
	setup kernel
	expect_policy - 0 0 0
	pid=${OURS[0]}
	chrt -f -p 3 "$pid" || fail "can't set pid $pid to SCHED_FIFO 3"
	lab_stop_rfsd TERM
	lab_start_rfsd
	[ "$(proc_sched "$pid" | awk '{ print $2, $3 }')" = "1 3" ] ||
		fail "rfsd restarted with kernel changed pid $pid, set by hand: $(proc_sched "$pid")"
	grep -q "cpumap kthread pid" "$RFSD_LOG" &&
		fail "rfsd logged a policy change: $(grep "cpumap kthread pid" "$RFSD_LOG")"
	return 0
}

# kernel at start, so CAP_SYS_NICE is dropped; nice:5 by SIGHUP
# (a lower priority) is still refused: the kernel lets only a holder of
# CAP_SYS_NICE change a task whose capabilities are not a subset of the
# caller's, as every kernel thread's are (cap_safe_nice).  status says
# why and that a restart helps; the kthreads are left as they were.
test_added_by_sighup()
{
	local err
	setup kernel
	traffic_both
	expect_policy - 0 0 0
	set_key nice:5
	reload
	for ((i = 0; i < 25; i++)); do
		err=$(ctlj status | jget "d['cpumap_kthreads']['kthreads'][0].get('error') or ''")
		[ -n "$err" ] && break
		sleep 0.2
	done
	say "cpu ${CPU_LIST[0]}: $err"
	grep -q "Operation not permitted (rfsd drops CAP_SYS_NICE when started with cpumap_kthread_sched = kernel: restart it)" <<< "$err" ||
		fail "status after adding nice:5 by SIGHUP: error '$err'"
	[ "$(proc_sched "${OURS[0]}" | awk '{ print $2, $4 }')" = "0 0" ] ||
		fail "pid ${OURS[0]} changed: $(proc_sched "${OURS[0]}")"
}

# Bad values: rfsd refuses to start and says which and why; a SIGHUP with
# one keeps the running config.
test_bad_values_refused()
{
	local v msg out rc
	ksched_trap
	lab_init
	while IFS='|' read -r v msg; do
		set_key "$v"
		out=$(timeout 20 "$RFSD" --socket "$RFS_SOCK" --pin-dir "$RFS_PIN" \
			--config "$LAB_DIR/rfsd.conf" 2>&1)
		rc=$?
		[ $rc -eq 1 ] || fail "rfsd with cpumap_kthread_sched = $v: exit $rc, want 1"
		grep -qF "rfsd.conf:2': cpumap_kthread_sched '$v'$msg" <<< "$out" ||
			fail "cpumap_kthread_sched = $v: want '...$v'$msg', got: $out"
	done <<'EOF_T'
fifo:100| is out of range (fifo:1..99)
nice:-21| is out of range (nice:-20..19)
fifo:x|: 'x' is not a number (fifo:1..99)
nice:5k|: '5k' is not a number (nice:-20..19)
rr:5| is not default (fifo:1), kernel, nice:N (-20..19), batch:N (-20..19) or fifo:N (1..99)
batch:20| is out of range (batch:-20..19)
EOF_T
	set_key fifo:1
	lab_start_rfsd
	set_key fifo:0
	kill -HUP "$RFSD_PID"
	for ((rc = 0; rc < 50; rc++)); do
		grep -q "keeping the running config" "$RFSD_LOG" && break
		sleep 0.1
	done
	grep -q "cpumap_kthread_sched 'fifo:0' is out of range (fifo:1..99); keeping the running config" \
		"$RFSD_LOG" || fail "a bad value on SIGHUP was not refused: $(tail -n 3 "$RFSD_LOG")"
	[ "$(ctlj status | jget 'd["cpumap_kthreads"]["sched"]')" = fifo:1 ] ||
		fail "the running policy changed on a refused reload"
}

# ----------------------------------------------------------------- runner

# "wait_ns runs" of CPU $1 from `rfsctl -j stats` ("- -" when absent).
stats_kwait()
{
	ctlj stats | "$LAB_PY" -c '
import json, sys
e = next(e for e in json.load(sys.stdin)["per_cpu"] if e["cpu"] == int(sys.argv[1]))
print(e.get("kthread_wait_ns", "-"), e.get("kthread_runs", "-"))' "$1"
}

# stats' kthread_wait_ns and kthread_runs are the kernel's schedstat of
# that CPU's own kthread: with a busy loop on the second CPU while frames
# are steered there, what rfsd says lies between the kernel's figures read
# just before and just after, and grew (the kthread ran, and waited for
# the busy loop: under the kernel's policy, which lets it wait);
# Prometheus has the same in seconds.
test_kthread_wait()
{
	local c pid hog w0 r0 w r w1 r1 line secs
	setup kernel
	traffic_both
	expect_policy - 0 0 0
	c=${CPU_LIST[1]}
	pid=${OURS[1]}
	lab_bg taskset -c "$c" sh -c 'while :; do :; done'
	hog=$LAB_BG_PID
	read -r _ w0 r0 < "/proc/$pid/schedstat" || fail "can't read /proc/$pid/schedstat"
	traffic_both
	read -r w r < <(stats_kwait "$c")
	read -r _ w1 r1 < "/proc/$pid/schedstat" || fail "can't read /proc/$pid/schedstat"
	lab_kill "$hog"
	say "cpu $c kthread pid $pid: kernel wait/runs $w0/$r0 before, $w1/$r1 after; stats $w/$r"
	[ "$w" != - ] && [ "$r" != - ] ||
		fail "stats has no kthread_wait_ns/kthread_runs for cpu $c: $(ctlj stats)"
	((w0 <= w && w <= w1 && r0 <= r && r <= r1)) ||
		fail "stats' $w ns / $r runs are not between the kernel's $w0/$r0 and $w1/$r1 (pid $pid)"
	((r > r0 && w > w0)) ||
		fail "the kthread did not run or never waited under a busy loop: $w0/$r0 -> $w/$r"
	ctl stats | grep -Eq '^kthread wait/run +[0-9.]+ us ' ||
		fail "rfsctl stats has no 'kthread wait/run' row: $(ctl stats)"
	read -r w r < <(stats_kwait "${CPU_LIST[0]}")
	[ "$w" != - ] || fail "stats has no kthread_wait_ns for cpu ${CPU_LIST[0]}"
	line=$(ctl stats --format prometheus | grep "^rfs_kthread_wait_seconds_total{cpu=\"$c\"} ") ||
		fail "no rfs_kthread_wait_seconds_total for cpu $c in: $(ctl stats --format prometheus | grep kthread)"
	secs=${line##* }
	"$LAB_PY" -c 'import sys; a, b, s = map(float, sys.argv[1:]); sys.exit(not (a <= s * 1e9 + 1 and s >= 0))' \
		"$w0" "$w1" "$secs" || fail "Prometheus says $secs s, the kernel $w0 ns before"
	return 0
}

# rfsd warns when a CPU's cpumap kthread keeps waiting for its CPU
# (ksched.c): with batch:0 (whose wake-up never preempts) beside a busy
# loop on the second CPU and one flow steered there for two of rfsd's 10 s
# windows, it says so once, for that CPU, with the average wait and what
# would help; the first CPU, whose kthread has nothing to do, gets no
# warning.
test_kthread_wait_warned()
{
	local c o hog pids=() i n line
	setup batch:0
	c=${CPU_LIST[1]}
	o=${CPU_LIST[0]}
	lab_bg taskset -c "$c" sh -c 'while :; do :; done'
	hog=$LAB_BG_PID
	lab_bg taskset -c "$c" "$SEQ" recv "$LAB_IP4_A" "$SEQ_PORT" \
		"$LAB_IP4_B" $((SEQ_PORT + 1000)) 40 > "$LAB_DIR/seq.recv"
	pids+=("$LAB_BG_PID")
	for ((i = 0; i < 50; i++)); do
		[ "$(ss -Huan "( sport = :$SEQ_PORT )" | wc -l)" -ge 1 ] && break
		sleep 0.1
	done
	lab_bg_ns taskset -c "$o" "$SEQ" send "$LAB_IP4_B" $((SEQ_PORT + 1000)) \
		"$LAB_IP4_A" "$SEQ_PORT" 30 500 > "$LAB_DIR/seq.send"
	pids+=("$LAB_BG_PID")
	for ((i = 0; i < 350; i++)); do
		grep -q "cpu $c: its cpumap kthread" "$RFSD_LOG" && break
		sleep 0.1
	done
	line=$(grep "cpu $c: its cpumap kthread" "$RFSD_LOG") ||
		fail "no warning for cpu $c after $(lab_since "$TEST_T0") s; stats: $(ctl stats | grep -i kthread)"
	say "rfsd: ${line#*rfsd: }"
	grep -Eq "cpu $c: its cpumap kthread \(pid [0-9]+\) waited [0-9.]+ ms per run for the CPU over the last 10 s \([0-9]+ runs\)" <<< "$line" ||
		fail "the warning does not say the kthread, its wait and runs: $line"
	grep -q "batch never preempts the task running there; fifo:1 (the default) does" <<< "$line" ||
		fail "the warning does not say what would help under batch: $line"
	lab_kill "$hog"
	for i in "${pids[@]}"; do
		lab_kill "$i"
	done
	n=$(grep -c "its cpumap kthread" "$RFSD_LOG")
	[ "$n" -eq 1 ] || fail "$n warnings, want one: $(grep "its cpumap kthread" "$RFSD_LOG")"
	return 0
}

# Record, in the lab's tracefs instance, every wake-up of the kthreads
# $@ (PIDs) and every switch to or from one of them, until
# kthread_waits_stop.
kthread_waits_start()
{
	local f="" pid
	for pid in "$@"; do
		f+="${f:+ || }pid == $pid"
	done
	lab_trace_event sched/sched_waking "$f"
	lab_trace_event sched/sched_switch "${f//pid/next_pid} || ${f//pid/prev_pid}"
	: > "$LAB_TRACE_INST/trace"
	echo 1 > "$LAB_TRACE_INST/tracing_on"
}

# Stop recording; how long each kthread waited for its CPU whenever it
# was runnable and not running: from a wake-up, or from being preempted
# (switched out still runnable), to the switch that ran it.  "pid prio
# wait_ms" lines, prio the kernel's then (below 100: real-time, as
# SCHED_FIFO is; 120: SCHED_OTHER nice 0, as a flooded kthread steps
# down to).  A buffer that overran kept only its CPU's newest events: a
# wait that began before the first event its CPU kept may have ended in
# the lost part, so it is left out.  $@: the kthreads' PIDs.
kthread_waits_stop()
{
	lab_rx_trace_stop | awk -v pids="$*" '
		BEGIN { n = split(pids, p, " "); for (i = 1; i <= n; i++) ours[p[i]] = 1 }
		function field(name,   i) {
			for (i = 5; i <= NF; i++)
				if (index($i, name "=") == 1)
					return substr($i, length(name) + 2)
			return ""
		}
		$2 != "EV" { next }
		!($4 in first) { first[$4] = $1 }
		$3 == "sched_waking" {
			pid = field("pid")
			if ((pid in ours) && !run[pid] && !(pid in since)) {
				since[pid] = $1; prio[pid] = field("prio")
			}
		}
		$3 == "sched_switch" {
			pid = field("prev_pid")
			if (pid in ours) {
				run[pid] = 0
				delete since[pid]
				# preempted: it waits from here
				if (field("prev_state") ~ /^R/) {
					since[pid] = $1; prio[pid] = field("prev_prio")
				}
			}
			pid = field("next_pid")
			if (!(pid in ours))
				next
			if ((pid in since) && since[pid] >= first[$4])
				printf "%s %s %.3f\n", pid, prio[pid], ($1 - since[pid]) * 1000
			delete since[pid]
			run[pid] = 1
		}'
}

# "pid wait_ns" of each kthread $@: the kernel's sum of the time it
# waited for its CPU (/proc/PID/schedstat, second field).
kthread_schedstat()
{
	local pid
	for pid in "$@"; do
		echo "$pid $(awk '{ print $2 }' "/proc/$pid/schedstat")"
	done
}

# TCP segments the lab namespace (the client's side) retransmitted so far,
# and of them those its peer reported as duplicates (D-SACK: spurious,
# sent on a timer while the original was late, not lost): "retrans
# dsacked" from its nstat.
ns_retrans()
{
	lab_ns nstat -saz TcpRetransSegs TcpExtTCPDSACKRecvSegs 2>/dev/null |
		awk '{ v[$1] = $2 } END { printf "%d %d\n", v["TcpRetransSegs"],
			v["TcpExtTCPDSACKRecvSegs"] }'
}

# The default policy keeps steered frames moving where tasks on a
# kthread's CPU wake each other all the time: 256 request/response
# connections (tests/tools/rfs_rr) from one client thread on the first
# CPU to a server thread on each CPU, a busy loop on the second, four
# times 1.5 s with new connections (flows settling onto their CPUs is when
# frames go through the RX CPU's own cpumap queue), after the kthreads are
# SCHED_FIFO.  Under the kernel's own policy a woken kthread was kept off
# its CPU there for longer than TCP's shortest retransmit timeout, the
# flows behind it stalled and the client retransmitted (README, Known
# limits).  Judged on what the kernel's scheduler did, traced
# (sched_waking to the sched_switch that runs the kthread): no wake-up of
# a kthread, while it was SCHED_FIFO, waited TCP_RTO_MIN or longer; and
# every connection answered.  The retransmits are reported, not judged:
# on a machine that is busy besides (a compile beside the test) a late
# response also fires TCP's timers, with no kthread kept waiting.  A
# kthread the flood rule stepped down to SCHED_OTHER (rfsd.h) may wait
# as any task does: its waits are reported.  STARVE_KSCHED=kernel runs
# the same under the kernel's policy, every wait judged (the control run;
# it fails).
test_default_not_starved()
{
	local port=$((LAB_PORT + 410)) c0=${CPU_LIST[0]} c1=${CPU_LIST[1]}
	local hog srv out r0 r1 d0 d1 i q0="" waits judged worst downs
	setup "${STARVE_KSCHED:-}"
	traffic_both
	if [ -z "${STARVE_KSCHED:-}" ]; then
		expect_policy SCHED_FIFO_1 1 1 0
	else
		expect_policy - 0 0 0
	fi
	[ -x "$LAB_BUILD/tests/rfs_rr" ] || skip "$LAB_BUILD/tests/rfs_rr is not built"
	lab_bg "$LAB_BUILD/tests/rfs_rr" server --bind "$LAB_IP4_A" --port "$port" \
		--cpus "$c1,$c0" > "$LAB_DIR/rr.server" 2>&1
	srv=$LAB_BG_PID
	lab_wait_listen "$port"
	lab_bg taskset -c "$c1" sh -c 'while :; do :; done'
	hog=$LAB_BG_PID
	read -r r0 d0 < <(ns_retrans)
	if lab_trace_instance; then
		kthread_waits_start "${OURS[@]}"
	else
		q0=$(kthread_schedstat "${OURS[@]}")
	fi
	for ((i = 1; i <= 4; i++)); do
		out=$(lab_ns "$LAB_BUILD/tests/rfs_rr" client --addr "$LAB_IP4_A" \
			--port "$port" --cpus "$c0" --conns 256 --seconds 1.5 \
			--warmup 0.2 2>&1) ||
			fail "rfs_rr client failed: $(tail -n 3 <<< "$out")"
		out=$(tail -n 1 <<< "$out")
		read -r r1 d1 < <(ns_retrans)
		say "${STARVE_KSCHED:-default}, run $i: $(grep -o 'tps=[0-9]*' <<< "$out") $(grep -o 'max_us=[0-9.]*' <<< "$out"), $((r1 - r0)) retransmits so far ($((d1 - d0)) reported duplicate)"
		[ "$(grep -o 'errors=[0-9]*' <<< "$out")" = errors=0 ] ||
			fail "connections failed: $out"
	done
	if [ -z "$q0" ]; then
		waits=$(kthread_waits_stop "${OURS[@]}")
	else
		# no tracefs: each kthread's whole wait over the runs, the
		# kernel's sum (/proc/PID/schedstat), stands for its longest
		# (no single wait was longer); "pid prio ms" as traced
		waits=$(join <(echo "$q0") <(kthread_schedstat "${OURS[@]}") |
			awk -v prio="${STARVE_KSCHED:+120}" '{ printf "%s %d %.3f\n", $1, prio ? prio : 98, ($3 - $2) / 1e6 }')
		say "no tracefs: judged on each kthread's total wait for its CPU over the runs, which no single wait exceeded"
	fi
	lab_kill "$hog"
	lab_kill "$srv"
	downs=$(grep -c 'SCHED_OTHER nice 0 while it runs over' "$RFSD_LOG")
	say "flood step downs (rfsd.h) meanwhile: $downs"
	[ -n "$waits" ] || fail "no wake-up of the kthreads (${OURS[*]}) traced"
	say "kthread waits for the CPU: $(awk '{ k = $1 " " ($2 < 100 ? "real-time" : "SCHED_OTHER")
		n[k]++; if ($3 > m[k]) m[k] = $3 }
		END { for (k in n) printf "pid %s: %d, longest %.1f ms; ", k, n[k], m[k] }' <<< "$waits")"
	[ "$r1" -eq "$r0" ] ||
		say "the client retransmitted $((r1 - r0)) segments ($((d1 - d0)) reported duplicate): not judged, a late response fires TCP's timers too"
	# judged: the waits of a SCHED_FIFO kthread (not of one the flood
	# rule stepped down), or under the control's kernel policy every one
	if [ -n "${STARVE_KSCHED:-}" ]; then
		judged=$waits
	elif [ -n "$q0" ] && [ "$downs" -gt 0 ]; then
		say "no tracefs and a kthread stepped down: its waits as SCHED_OTHER can't be told apart; not judged"
		return 0
	else
		judged=$(awk '$2 < 100' <<< "$waits")
	fi
	[ -n "$judged" ] || fail "no wake-up of a kthread traced while it was SCHED_FIFO"
	worst=$(sort -k3 -g <<< "$judged" | tail -n 1)
	awk -v b="$TCP_RTO_MIN_MS" '{ exit !($3 < b) }' <<< "$worst" ||
		fail "kthread pid ${worst%% *} waited ${worst##* } ms for its CPU, TCP_RTO_MIN is $TCP_RTO_MIN_MS ms: steered frames were held past TCP's retransmit timers; kthread wait: $(ctl stats | grep 'kthread wait')"
}

# A flood steered to a CPU: a SCHED_FIFO kthread that ran over half of
# 200 ms there steps down to SCHED_OTHER nice 0 (rfsd.h), logged once,
# status says so, and it is SCHED_FIFO 1 again once the flood has ended.
# The flood: numbered UDP as fast as one sender on the first CPU goes, to
# a reader on the second (without the step down, 400 000 datagrams/s
# there left the reader 9-31 % of them; README, Known limits).  Where the
# sender cannot load that kthread over the bound, the test skips.
test_flood_steps_down()
{
	local c=${CPU_LIST[1]} o=${CPU_LIST[0]} port=$((SEQ_PORT + 20)) pid
	local r s i line t0 t1 on0 on1 share
	setup ""
	traffic_both
	expect_policy SCHED_FIFO_1 1 1 0
	pid=${OURS[1]}
	lab_bg taskset -c "$c" "$SEQ" recv "$LAB_IP4_A" "$port" \
		"$LAB_IP4_B" $((port + 1000)) 12 > "$LAB_DIR/flood.recv"
	r=$LAB_BG_PID
	for ((i = 0; i < 50; i++)); do
		[ "$(ss -Huan "( sport = :$port )" | wc -l)" -ge 1 ] && break
		sleep 0.1
	done
	read -r on0 _ < "/proc/$pid/schedstat"
	t0=$(date +%s%N)
	lab_bg_ns taskset -c "$o" "$SEQ" send "$LAB_IP4_B" $((port + 1000)) \
		"$LAB_IP4_A" "$port" 5 2000000 > "$LAB_DIR/flood.send"
	s=$LAB_BG_PID
	for ((i = 0; i < 45; i++)); do
		grep -q "cpu $c: its cpumap kthread (pid $pid) ran [0-9]*% of the last [0-9]* ms, in runs of [0-9]* us on average: SCHED_OTHER" "$RFSD_LOG" && break
		sleep 0.1
	done
	read -r on1 _ < "/proc/$pid/schedstat"
	t1=$(date +%s%N)
	share=$(( (on1 - on0) * 100 / (t1 - t0) ))
	line=$(grep "cpu $c: its cpumap kthread (pid $pid) ran" "$RFSD_LOG" | head -n 1)
	if [ -z "$line" ] && [ "$share" -lt $((55)) ]; then
		lab_kill "$s"
		lab_kill "$r"
		skip "the sender loaded CPU $c's kthread to $share% only"
	fi
	[ -n "$line" ] ||
		fail "no step down though CPU $c's kthread ran $share% of $(( (t1 - t0) / 1000000 )) ms"
	say "rfsd: ${line#*rfsd: }"
	[ "$(proc_sched "$pid" | awk '{ print $2, $3 }')" = "0 0" ] ||
		fail "pid $pid is not SCHED_OTHER during the flood: $(proc_sched "$pid")"
	ctl status | grep -q "cpu $c kthread  *pid $pid, SCHED_OTHER nice 0 while flooded" ||
		fail "rfsctl status does not say cpu $c's kthread is flooded: $(ctl status | grep kthread)"
	lab_wait "$s" 15 || fail "the flood's sender failed"
	for ((i = 0; i < 40; i++)); do
		[ "$(proc_sched "$pid" | awk '{ print $2, $3 }')" = "1 1" ] && break
		sleep 0.1
	done
	say "after the flood: $(grep "cpu $c: its cpumap kthread (pid $pid) ran [0-9]*% of the last [0-9]* ms: back" "$RFSD_LOG" | sed 's/^rfsd: //')"
	[ "$(proc_sched "$pid" | awk '{ print $2, $3 }')" = "1 1" ] ||
		fail "pid $pid is not SCHED_FIFO 1 again 4 s after the flood: $(proc_sched "$pid")"
	ctl status | grep -q "cpu $c kthread  *pid $pid, SCHED_FIFO 1\$" ||
		fail "rfsctl status: $(ctl status | grep kthread)"
	lab_kill "$r"
	[ "$(grep -c "its cpumap kthread (pid $pid) ran [0-9]*% of the last [0-9]* ms, in runs of [0-9]* us on average: SCHED_OTHER" "$RFSD_LOG")" -eq 1 ] ||
		fail "the step down was logged more than once: $(grep "its cpumap kthread" "$RFSD_LOG")"
}

# Bursts drained in long runs: bench/inject pushes 4096 frames per test
# run from CPU 0 into 64 sockets read on CPU 1 (the NIC-like bench), and
# CPU 1's SCHED_FIFO kthread drains each burst in one run of 2 ms or
# more while the readers wait, a small share of its CPU: it steps down
# all the same, for its runs' length (the kernel's 2 ms softirq bound).
# Skipped where its runs stayed shorter (a faster machine) and where the
# burst loaded it over half the CPU (then the share steps it down).
test_burst_steps_down()
{
	local c=${CPU_LIST[1]} o=${CPU_LIST[0]} pid line r0 n0 r1 n1 avg rc pct run_us
	[ -x "$INJECT" ] || skip "$INJECT is not built"
	setup ""
	expect_policy SCHED_FIFO_1 1 1 0
	pid=${OURS[1]}
	read -r r0 _ n0 < "/proc/$pid/schedstat"
	"$INJECT" --ifname "$LAB_A" --src "$LAB_IP4_B" --dst "$LAB_IP4_A" \
		--socks 64 --port0 $((LAB_PORT + 1000)) --rport $((LAB_PORT + 999)) \
		--cpu "$o" --readers "$c" --warmup 1 --secs 2 \
		--prog "$RFS_PIN_V/if/$LAB_A/prog" \
		--gstats "$RFS_PIN_V/maps/rfs_gstats" \
		> "$LAB_DIR/inject.out" 2> "$LAB_DIR/inject.err"
	rc=$?
	[ $rc = 77 ] && skip "inject can't run here: $(tail -n 1 "$LAB_DIR/inject.err")"
	[ $rc = 0 ] || fail "inject failed ($rc): $(tail -n 2 "$LAB_DIR/inject.err")"
	read -r r1 _ n1 < "/proc/$pid/schedstat"
	say "inject: $(awk '{ v[$1] = $2 } END { printf "delivered %d/s of %d/s", v["delivered_pps"], v["injected_pps"] }' "$LAB_DIR/inject.out")"
	line=$(grep "cpu $c: its cpumap kthread (pid $pid) ran [0-9]*% of the last [0-9]* ms, in runs of" "$RFSD_LOG" | head -n 1)
	if [ -z "$line" ]; then
		avg=$(( (r1 - r0) / ((n1 - n0) > 0 ? (n1 - n0) : 1) / 1000 ))
		[ "$avg" -lt 2000 ] &&
			skip "CPU $c's kthread ran $avg us a run on average: no bursts that long here"
		fail "no step down though CPU $c's kthread ran $avg us a run on average"
	fi
	say "rfsd: ${line#*rfsd: }"
	read -r pct run_us < <(sed -n 's/.* ran \([0-9]*\)% of the last [0-9]* ms, in runs of \([0-9]*\) us.*/\1 \2/p' <<< "$line")
	[ "${pct:-100}" -le 50 ] ||
		skip "the bursts loaded CPU $c's kthread to $pct%: the share stepped it down"
	[ "${run_us:-0}" -ge 2000 ] ||
		fail "stepped down at $pct% in runs of $run_us us: neither bound was passed"
}


lab_need "$LAB_PY"
lab_trap
# A user process named like this cpumap's kthread of each CPU, asleep
# (what "drained" looks like) changes nothing: rfsd never gives it a
# policy, never takes its PID for the kthread's, and a resize that waits
# for the old table to drain completes twice over.
test_fake_kthread_ignored()
{
	local mapid c pid fakes=() st
	setup ""
	traffic_both
	mapid=$(lab_cpumap_id)
	for c in "${CPU_LIST[@]}"; do
		lab_bg "$LAB_PY" -c 'import sys, time
open("/proc/self/comm", "w").write(sys.argv[1])
time.sleep(600)' "cpumap/$c/map:$mapid"
		fakes+=("$LAB_BG_PID")
	done
	sleep 0.5
	for pid in "${fakes[@]}"; do
		case "$(cat "/proc/$pid/comm")" in
		cpumap/*) ;;
		*) fail "can't name pid $pid like a cpumap kthread" ;;
		esac
	done
	set_key fifo:2
	reload
	traffic_both
	ctl set flow-cnt "$LAB_A" 8192 >/dev/null || fail "the first resize failed"
	sleep 2
	ctl set flow-cnt "$LAB_A" 4096 >/dev/null ||
		fail "the second resize (the first table drained) failed"
	st=$(status_kthreads)
	for pid in "${fakes[@]}"; do
		[ "$(proc_sched "$pid" | awk '{ print $2 }')" = 0 ] ||
			fail "the fake kthread $pid got a policy: $(proc_sched "$pid")"
		awk '{ print $2 }' <<< "$st" | grep -qx "$pid" &&
			fail "rfsd took the fake $pid for a kthread: $st"
	done
	grep -q "SCHED_FIFO_2" <<< "$st" || fail "the real kthreads did not get fifo:2: $st"
	kill "${fakes[@]}"
}

lab_run_tests test_ksched "${*:-$ALL_TESTS}"
