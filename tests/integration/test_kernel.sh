#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What rfsd finds in the running kernel, what it tells the operator, and
# its refusal where flows can't be kept in order.  The refusal
# is shown on this host by faking the finding: RFS_TEST_FEATURES (rfsd.8,
# for tests only) overrides what rfs_features.c detected.
#
#	tests/integration/test_kernel.sh [test_name...]
#
# Exit: 0 all passed (some may have skipped), 249 all skipped, 1 a failure.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_features_shown
	test_refused_unordered
	test_allow_unordered_config
	test_no_socket_hooks
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

say() { printf '    [%5.1fs] %s\n' "$(lab_since "$TEST_T0")" "$*"; }

xdp_id()
{
	ip -d link show dev "$1" 2>/dev/null |
		sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1
}

# What the kernel's own BTF says about the cpumap's GRO stage, read with
# bpftool, independently of rfs_features.c: gro_node or none.
btf_cpumap_gro()
{
	if bpftool btf dump file /sys/kernel/btf/vmlinux format c 2>/dev/null |
		awk '/^struct bpf_cpu_map_entry \{/,/^\};/' |
		grep -q 'struct gro_node gro;'; then
		echo gro_node
	else
		echo none
	fi
}

# What udp_fail_queue_rcv_skb passes, read from the kernel's BTF with
# bpftool: its prototype's parameters after the context (rc, sk; since
# 6.10 also skb), 0 without the tracepoint.
btf_sock_full_args()
{
	bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | awk '
		/^\[[0-9]+\] / {
			id = substr($1, 2, length($1) - 2)
			for (i = 3; i <= NF; i++) {
				if ($i ~ /^type_id=/) to[id] = substr($i, 9)
				if ($i ~ /^vlen=/) n[id] = substr($i, 6)
			}
			if ($2 == "TYPEDEF" && $3 == "\047btf_trace_udp_fail_queue_rcv_skb\047")
				td = id
		}
		END { p = to[to[td]]; print td == "" ? 0 : n[p] - 1 }'
}

# The kernel block is in status (plain and JSON), one log line per
# feature, and the cpumap and early-drop findings match the kernel's BTF.
test_features_shown()
{
	local st names want n_log line args
	lab_trap
	lab_up
	unset RFS_TEST_FEATURES
	lab_start_rfsd
	ctl attach "$LAB_A" >/dev/null || fail "attach $LAB_A failed"
	st=$(ctlj status) || fail "status -j failed"
	[ "$(jget "d['kernel']['order_kept']" <<< "$st")" = true ] ||
		fail "order_kept is not true on this kernel: $st"
	[ "$(jget "d['kernel']['release']" <<< "$st")" = "$(uname -r)" ] ||
		fail "kernel release is not $(uname -r)"
	names=$(jget "' '.join(l['name'] for l in d['kernel']['features'])" <<< "$st")
	for want in btf cpumap_gro delivery_proof kthread_state cpumap_meta \
		    socket_hooks kprobes sockops enqueue_drops early_drop fentry hz; do
		grep -qw "$want" <<< "$names" || fail "no feature '$want' in status: $names"
		grep -q "^rfsd:   $want " "$RFSD_LOG" ||
			fail "rfsd logged no line for '$want'"
	done
	n_log=$(grep -c "kernel: flows are kept in order" "$RFSD_LOG")
	[ "$n_log" = 1 ] || fail "the verdict is logged $n_log times, want once"
	want=$(btf_cpumap_gro)
	[ "$(jget "next(l['value'] for l in d['kernel']['features'] if l['name'] == 'cpumap_gro')" <<< "$st")" = "$want" ] ||
		fail "cpumap_gro in status differs from the kernel's BTF ($want)"
	say "cpumap_gro: $want (as bpftool reads the BTF)"
	args=$(btf_sock_full_args)
	case $args in
	0) want=none ;;
	2) want="connected only" ;;
	*) want=tp_btf/udp_fail_queue_rcv_skb ;;
	esac
	[ "$(jget "next(l['value'] for l in d['kernel']['features'] if l['name'] == 'early_drop')" <<< "$st")" = "$want" ] ||
		fail "early_drop in status differs from what the kernel's BTF says the tracepoint passes ($want)"
	say "early_drop: $want (udp_fail_queue_rcv_skb passes $args arguments)"
	# the socket hooks loaded are the ones the kernel block names (none:
	# nothing loaded, and trace_mode has no value for that)
	want=$(jget "next(l['value'] for l in d['kernel']['features'] if l['name'] == 'socket_hooks')" <<< "$st")
	[ "$want" = none ] ||
		[ "$(jget "d['trace_mode']" <<< "$st")" = "${want%%/*}" ] ||
		fail "trace_mode $(jget "d['trace_mode']" <<< "$st") is not the socket_hooks chosen ($want)"
	say "socket hooks: $want, trace_mode $(jget "d['trace_mode']" <<< "$st")"
	[ "$(jget "[l['value'] for l in d['kernel']['interfaces']['$LAB_A'] if l['name'] == 'xdp_mode'][0]" <<< "$st")" = native ] ||
		fail "xdp_mode of $LAB_A is not native"
	line=$(ctl status) || fail "plain status failed"
	# what this kernel offers, into the test's output (the support
	# matrix of README.md is read off these lines in the kernel guest)
	sed -n '/^kernel /,$p' <<< "$line" | while IFS= read -r l; do say "$l"; done
	grep -q "^kernel $(uname -r): flows kept in order" <<< "$line" ||
		fail "plain status has no kernel line: $line"
	grep -q "^  cpumap_gro " <<< "$line" || fail "plain status lists no cpumap_gro"
	grep -q "^  interface $LAB_A" <<< "$line" || fail "plain status lists no interface features"
}

# A kernel whose cpumap holds frames where the proof can't see them:
# rfsd says so, refuses to attach (nothing is left on the interface),
# and attaches when told --allow-unordered.
test_refused_unordered()
{
	local out rc
	lab_trap
	lab_up
	"$RFSD" --features >/dev/null || fail "rfsd --features says this kernel can't keep order"
	RFS_TEST_FEATURES=cpumap_gro=unreadable "$RFSD" --features >/dev/null &&
		fail "rfsd --features exits 0 on a kernel that can't keep order"
	RFS_TEST_FEATURES=cpumap_gro=unreadable lab_start_rfsd
	grep -q "flows can NOT be kept in order on this kernel; attach is refused" "$RFSD_LOG" ||
		fail "rfsd did not say the order can't be kept"
	grep -q "features faked by RFS_TEST_FEATURES" "$RFSD_LOG" ||
		fail "rfsd did not say its features were faked"
	[ "$(ctlj status | jget "d['kernel']['order_kept']")" = false ] ||
		fail "status says order_kept with an unreadable GRO stage"
	out=$(ctl attach "$LAB_A" 2>&1)
	rc=$?
	[ $rc -ne 0 ] || fail "attach succeeded on a kernel that can't keep order"
	grep -q "can't keep flows in order (cpumap_gro: unreadable)" <<< "$out" ||
		fail "attach refused without saying why: $out"
	grep -q -- "--allow-unordered" <<< "$out" || fail "refusal does not say what to do: $out"
	[ -z "$(xdp_id "$LAB_A")" ] || fail "a refused attach left an XDP program on $LAB_A"
	say "refused: $out"
	ctl attach --allow-unordered "$LAB_A" >/dev/null ||
		fail "attach --allow-unordered failed"
	[ -n "$(xdp_id "$LAB_A")" ] || fail "no XDP program after attach --allow-unordered"
}

# A kernel that takes none of the socket hooks: rfsd loads none, says so
# in status ("none", not the kprobe mode it did not load), and a new
# rfsd adopting that datapath says the same.
test_no_socket_hooks()
{
	local st
	lab_trap
	lab_up
	RFS_TEST_FEATURES=tp_sock_len=0,fentry=0,kprobes=0 lab_start_rfsd
	st=$(ctlj status) || fail "status -j failed"
	[ "$(jget "d['trace_mode']" <<< "$st")" = none ] ||
		fail "trace_mode is not none with no socket hook: $st"
	[ "$(jget "next(l['value'] for l in d['kernel']['features'] if l['name'] == 'socket_hooks')" <<< "$st")" = none ] ||
		fail "the kernel block's socket_hooks is not none: $st"
	ls "$RFS_PIN"/*/links >/dev/null 2>&1 ||
		fail "no links pinned under $RFS_PIN"
	! ls "$RFS_PIN"/*/links | grep -qE "^rfs_(tp|fx|kp)_" ||
		fail "a socket hook is pinned: $(ls "$RFS_PIN"/*/links | tr '\n' ' ')"
	say "no socket hooks: trace_mode none"
	lab_stop_rfsd KILL
	RFS_TEST_FEATURES=tp_sock_len=0,fentry=0,kprobes=0 lab_start_rfsd
	[ "$(ctlj status | jget "d['trace_mode']")" = none ] ||
		fail "the adopting rfsd reports trace_mode $(ctlj status | jget "d['trace_mode']")"
	say "adopted: trace_mode none"
}

# allow_unordered = yes in [global]: the configured interface attaches.
test_allow_unordered_config()
{
	local i
	lab_trap
	lab_up
	lab_init
	printf '[global]\nallow_unordered = yes\n\n[interface %s]\n' "$LAB_A" \
		> "$LAB_DIR/rfsd.conf"
	RFS_TEST_FEATURES=cpumap_gro=unreadable lab_start_rfsd
	for ((i = 0; i < 300; i++)); do
		[ -n "$(xdp_id "$LAB_A")" ] && break
		sleep 0.1
	done
	[ -n "$(xdp_id "$LAB_A")" ] ||
		fail "the configured $LAB_A was not attached with allow_unordered = yes"
	grep -q "attaching anyway (allow_unordered)" "$RFSD_LOG" ||
		fail "rfsd did not warn that it attaches anyway"
	[ "$(ctlj status | jget "d['kernel']['allow_unordered']")" = true ] ||
		fail "status does not show allow_unordered"
}

run_tests()
{
	local t rc t0 pass=0 failed=0 skipped=0 failures=""
	lab_require_root
	lab_need_bins
	lab_need ip ethtool bpftool "$LAB_PY"
	for t in ${1:-$ALL_TESTS}; do
		declare -F "$t" >/dev/null || { echo "no test '$t'"; return 1; }
		echo "=== $t"
		t0=$(lab_now)
		TEST_T0=$t0
		( "$t" )
		rc=$?
		case $rc in
		0) echo "--- PASS $t ($(lab_since "$t0")s)"; pass=$((pass + 1)) ;;
		249) echo "--- SKIP $t ($(lab_since "$t0")s)"; skipped=$((skipped + 1)) ;;
		*) echo "--- FAIL $t ($(lab_since "$t0")s)"; failed=$((failed + 1))
		   failures="$failures $t" ;;
		esac
		[ $rc -eq 130 ] || [ $rc -eq 143 ] && break
	done
	echo "test_kernel: $pass passed, $failed failed, $skipped skipped"
	[ $failed -eq 0 ] || { echo "failed:$failures"; return 1; }
	[ $pass -eq 0 ] && [ $skipped -gt 0 ] && return 249
	return 0
}

trap lab_down EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
run_tests "$*"
