#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel-test guest's runner: PID 1 of the guest once the initramfs
# (tests/kernels/init.sh) has mounted the host's / read-only over 9p.
# It runs from the shared checkout, as root, on the guest's kernel:
#
#   1. a few settings the tests need (lo up, modprobe from the tested
#      kernel's own modules, a hostname);
#   2. "facts": what this kernel offers the datapath, read off the kernel
#      itself (tracepoints, BTF, cpumap GRO, kprobes), printed as
#      "  FACT  name: value" lines for the support matrix;
#   3. the machine's shape: the possible CPUs run.sh asked for
#      (RFS_VM_POSSIBLE), checked as a result line;
#   4. tests/run.sh with the layers run.sh asked for (RFS_VM_LAYERS, none
#      when empty), on the objects built on the host (BPF objects are
#      CO-RE);
#   5. the end-to-end tests named in RFS_VM_E2E, "script:test,test ...",
#      each script once with its tests, reported in tests/run.sh's format
#      ("  PASS  integration/test_steering.sh: test_follows_app"), unless
#      RFS_VM_LAYERS has the whole integration layer;
#   6. with a sanitized build (RFS_VM_SAN_DIR), one result line for the
#      ASan/UBSan reports written there by any process (each shown);
#   7. one line "rfs-guest: exit N" (0: nothing failed), then power off.
#
# Its output is the guest's serial console, which tests/kernels/run.sh
# reads back on the host.  Settings come from /run/rfs.env (run.sh wrote
# them into the initramfs).

set -u
# everything in it is for the tests too: exported
set -a
# shellcheck source=/dev/null
. /run/rfs.env
set +a

export PATH=/run/rfs-bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
export RFS_BUILD=$RFS_VM_BUILD

say() { echo "rfs-guest: $*"; }

halt()
{
	sync
	echo o > /proc/sysrq-trigger
	# the shared root may be gone before sleep is loaded: say nothing
	sleep 10 2>/dev/null
	exit "${1:-1}"		# PID 1 exits: the kernel panics, panic=-1 ends QEMU
}

fact() { printf '  FACT  %s: %s\n' "$1" "$2"; }

setup()
{
	hostname rfs-guest 2>/dev/null
	ip link set dev lo up
	# Modules come from the tested kernel's package, unpacked on the host:
	# the kernel's own requests (veth, sch_*, ...) and the tests' modprobe
	# both go through a wrapper that points kmod at it.
	mkdir -p /run/rfs-bin
	if [ -n "${RFS_VM_MODROOT:-}" ]; then
		cat > /run/rfs-bin/modprobe <<-EOF
		#!/bin/sh
		exec $(command -v modprobe || echo /usr/sbin/modprobe) -d "$RFS_VM_MODROOT" "\$@"
		EOF
		chmod 0755 /run/rfs-bin/modprobe
		echo /run/rfs-bin/modprobe > /proc/sys/kernel/modprobe
	fi
	ulimit -l unlimited 2>/dev/null
	ulimit -n 65536 2>/dev/null
	# TCG makes a busy kernel look stalled; these are not test failures
	echo 0 > /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
	echo 1 > /proc/sys/kernel/printk_ratelimit 2>/dev/null
	# the tests run in no cgroup of their own: leave cgroup2 as it is
	[ -n "${RFS_VM_SAN_DIR:-}" ] && mkdir -p "$RFS_VM_SAN_DIR"
	for m in $RFS_VM_MODULES; do
		modprobe "$m" 2>/dev/null || say "modprobe $m failed"
	done
}

has_event() { [ -d "/sys/kernel/tracing/events/$1" ]; }

# What this kernel offers the datapath, read off the kernel itself.
facts()
{
	local btf=/tmp/vmlinux.btf ev kp f members

	fact kernel "$(uname -r) ($(uname -v))"
	fact cpus "$(nproc) online, accel ${RFS_VM_ACCEL:-?}"
	fact bpf_jit "$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null || echo '?')"
	bpftool btf dump file /sys/kernel/btf/vmlinux > "$btf" 2>/dev/null ||
		fact btf "no /sys/kernel/btf/vmlinux (no CO-RE, no tp_btf)"

	# tp_btf needs the tracepoint's btf_trace_* typedef; the raw
	# tracefs event says whether the tracepoint exists at all
	for ev in sock/sock_recv_length sock/sock_send_length \
		  xdp/xdp_cpumap_kthread xdp/xdp_cpumap_enqueue \
		  net/netif_receive_skb sched/sched_switch; do
		f="tracefs $(has_event "$ev" && echo yes || echo no)"
		grep -q "TYPEDEF 'btf_trace_${ev#*/}'" "$btf" 2>/dev/null &&
			f="$f, tp_btf yes" || f="$f, tp_btf no"
		fact "tracepoint $ev" "$f"
	done

	# GRO in the cpumap kthread (6.x+): struct bpf_cpu_map_entry gets a
	# napi/gro member with it
	members=$(awk "/STRUCT 'bpf_cpu_map_entry'/ { on = 1; next }
		on && /^\[/ { exit }
		on { gsub(/'/, \"\", \$1); printf \"%s \", \$1 }" "$btf" 2>/dev/null)
	fact "struct bpf_cpu_map_entry" "${members:-not in BTF}"
	case " $members " in
	*" gro "*|*" napi "*) fact "cpumap GRO" "yes (member gro/napi)" ;;
	*) fact "cpumap GRO" "no (no gro/napi member in bpf_cpu_map_entry)" ;;
	esac

	# kprobes: can a probe be placed on the fallback's functions?
	kp=/sys/kernel/tracing/kprobe_events
	if [ -w "$kp" ]; then
		for f in tcp_recvmsg tcp_sendmsg udp_recvmsg udp_sendmsg \
			 udpv6_recvmsg udpv6_sendmsg; do
			if echo "p:rfsvm_probe $f" >> "$kp" 2>/dev/null; then
				fact "kprobe $f" yes
				echo "-:rfsvm_probe" >> "$kp" 2>/dev/null
			else
				fact "kprobe $f" "no ($(grep -c "^$f\$" \
					/sys/kernel/tracing/available_filter_functions \
					2>/dev/null) in available_filter_functions)"
			fi
		done
	else
		fact kprobes "no kprobe_events in tracefs"
	fi
	# fentry/fexit (--trace-mode fexit) needs BTF for each function the
	# socket side hooks and an ftrace trampoline
	for f in tcp_recvmsg tcp_sendmsg udp_recvmsg udp_sendmsg \
		 udpv6_recvmsg udpv6_sendmsg; do
		if grep -q "FUNC '$f'" "$btf" 2>/dev/null; then
			fact "btf func $f" yes
		else
			fact "btf func $f" no
		fi
	done
	fact "bpftool" "$(bpftool version 2>/dev/null | head -n 1)"
	rm -f "$btf"
}

# shellcheck source=tests/lib/result.sh
. "$RFS_VM_TOP/tests/lib/result.sh" || { say "FATAL: no checkout at $RFS_VM_TOP"; halt 1; }

# The end-to-end tests of RFS_VM_E2E: each script runs once with the
# tests named for it (all of them when none is), and each of its
# "--- PASS|FAIL|SKIP name" lines becomes a result line.  Its output is
# shown when something failed (or V=1).
run_e2e()
{
	local spec script tests log=/tmp/rfs-e2e.log rc line st name nres bad
	local t=${RFS_TEST_TIMEOUT:-600}

	for spec in $RFS_VM_E2E; do
		script=${spec%%:*}
		tests=
		[ "$spec" != "$script" ] && tests=${spec#*:} && tests=${tests//,/ }
		if [ ! -f "tests/integration/$script" ]; then
			result FAIL "integration/$script" "no such test script"
			continue
		fi
		timeout -k 10 "$t" stdbuf -oL -eL \
			bash "tests/integration/$script" "$tests" \
			</dev/null >"$log" 2>&1
		rc=$?
		nres=0
		bad=0
		while IFS= read -r line; do
			case $line in
			"--- PASS "*) st=PASS ;;
			"--- FAIL "*) st=FAIL; bad=1 ;;
			"--- SKIP "*) st=SKIP ;;
			*) continue ;;
			esac
			name=${line#--- ???? }
			name=${name%% (*}
			nres=$((nres + 1))
			# shellcheck disable=SC2094	# both only read $log
			if [ "$st" = SKIP ]; then
				result SKIP "integration/$script: $name" \
					"$(grep -m1 '^SKIP: ' "$log" | cut -c7-)"
			else
				result "$st" "integration/$script: $name"
			fi
		done < "$log"
		if [ "$rc" = 124 ]; then
			result FAIL "integration/$script${tests:+: $tests}" \
				"timed out after ${t}s (RFS_TEST_TIMEOUT)"
			bad=1
		elif [ "$nres" = 0 ] && [ "$rc" = 249 ]; then
			result SKIP "integration/$script" "$(tail -n 1 "$log")"
		elif [ "$nres" = 0 ] || { [ "$rc" != 0 ] && [ "$rc" != 249 ] &&
					 [ "$bad" = 0 ]; }; then
			result FAIL "integration/$script${tests:+: $tests}" "exit $rc"
			bad=1
		fi
		if [ "$bad" = 1 ] || [ "${V:-0}" = 1 ]; then
			sed 's/^/        /' "$log"
		fi
	done
}

# The possible CPUs are what libbpf sizes a per-CPU value by: the shape
# run.sh asked for must be what the kernel made, or the leg tests
# nothing it claims to.
check_possible()
{
	local want=$((RFS_VM_POSSIBLE - 1)) got
	got=$(cat /sys/devices/system/cpu/possible 2>/dev/null)
	if [ "$got" = "0-$want" ]; then
		result PASS "possible CPUs 0-$want" "online $(cat /sys/devices/system/cpu/online)"
	else
		result FAIL "possible CPUs 0-$want" "the kernel says '$got'"
	fi
}

# Any ASan/UBSan report a sanitized process wrote: one result line, and
# the reports.  A file without one (LeakSanitizer's list of the default
# suppressions it used) is no report.
check_sanitizers()
{
	local f n=0
	for f in "$RFS_VM_SAN_DIR"/*; do
		grep -Eqs 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$f" ||
			continue
		n=$((n + 1))
		echo "    ${f##*/}:"
		sed 's/^/        /' "$f"
	done
	if [ "$n" = 0 ]; then
		result PASS "sanitizers: no ASan/UBSan report"
	else
		result FAIL "sanitizers: $n processes reported (above)"
	fi
}

main()
{
	local rc t0

	setup
	say "kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MiB" }' /proc/meminfo)"
	[ "${RFS_VM_FACTS:-1}" = 1 ] && facts
	cd "$RFS_VM_TOP" || { say "FATAL: no checkout at $RFS_VM_TOP"; halt 1; }
	# rfsd's own reading of this kernel (rfs_features.c), and its verdict:
	# every kernel this runs on must keep flows in order
	if "$RFS_BUILD/rfsd" --features > /tmp/rfs-features.txt 2>&1; then
		result PASS "rfsd --features: flows kept in order"
	else
		result FAIL "rfsd --features: flows NOT kept in order"
	fi
	sed 's/^/  FEATURE /' /tmp/rfs-features.txt
	if [ -n "${RFS_VM_CMD:-}" ]; then
		# a developer's own command instead of the suite
		say "bash -c '$RFS_VM_CMD'"
		bash -c "$RFS_VM_CMD"
		rc=$?
	else
		rc=0
		[ -n "${RFS_VM_POSSIBLE:-}" ] && check_possible
		if [ -n "$RFS_VM_LAYERS" ]; then
			say "tests/run.sh $RFS_VM_LAYERS (RFS_BUILD=$RFS_BUILD)"
			t0=$SECONDS
			# shellcheck disable=SC2086	# a list of layers
			tests/run.sh $RFS_VM_LAYERS
			rc=$?
			say "$RFS_VM_LAYERS took $((SECONDS - t0)) s"
		fi
		case " $RFS_VM_LAYERS " in
		*" integration "*) ;;
		*)
			if [ -n "${RFS_VM_E2E:-}" ]; then
				say "end-to-end: $RFS_VM_E2E (RFS_BUILD=$RFS_BUILD)"
				t0=$SECONDS
				run_e2e
				say "end-to-end took $((SECONDS - t0)) s"
				echo "e2e: $n_pass passed, $n_fail failed, $n_skip skipped"
			fi ;;
		esac
		[ -n "${RFS_VM_SAN_DIR:-}" ] && check_sanitizers
		[ "$n_fail" = 0 ] || rc=1
	fi
	say "exit $rc"
	halt "$rc"
}

main "$@"
