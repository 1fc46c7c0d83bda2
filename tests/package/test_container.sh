#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The OCI image of contrib/container under podman, run as the Kubernetes
# DaemonSet of contrib/kubernetes runs it: host network and PID namespace,
# the host's bpffs and cgroup v2 root mounted, a read-only root, every
# capability dropped but those of rfsd.service's CapabilityBoundingSet, no
# --privileged, the runtime's default seccomp filter.  rfsd in it attaches
# the lab veth; frames follow a server moved from one CPU to another (the
# demo's oracle: the kernel's net:netif_receive_skb per CPU); then the
# container restarts under numbered UDP with no datagram reordered or
# lost and the same XDP program on the link, adopted by the new rfsd.
#
#	tests/package/test_container.sh [test_name...]
#
# RFS_IMAGE: the image to run (default: one built here from RFS_DEB_N with
# contrib/container/build.sh, removed at the end).  RFS_PODMAN_RUNTIME:
# podman's --runtime (default runc when installed: crun refuses hosts
# whose cgroup v2 tree has controllers beside v1, the hybrid layout).
# Exit: 0 all passed, 249 all skipped, 1 a failure.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_container_steers_and_restarts
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"
SEQ=$LAB_BUILD/tests/rfs_seq

CT_NAME=rfsct$LAB_ID
CT_IMAGE=
CT_IMAGE_MADE=
CT_RUNTIME=${RFS_PODMAN_RUNTIME:-}
[ -z "$CT_RUNTIME" ] && command -v runc >/dev/null 2>&1 && CT_RUNTIME=runc
SEQ_PORT=$((LAB_PORT + 500))
MIN_SHARE=90
WINDOW=3

pm() { podman ${CT_RUNTIME:+--runtime "$CT_RUNTIME"} "$@"; }

# The container first (its rfsd stops and leaves the datapath, which
# lab_down removes with rfsd --cleanup), then the image if built here.
ct_down()
{
	pm rm -f -t 10 "$CT_NAME" >/dev/null 2>&1
	[ -n "$CT_IMAGE_MADE" ] && podman rmi -f "$CT_IMAGE" >/dev/null 2>&1
	lab_down
}

ct_log()
{
	pm logs "$CT_NAME" > "$RFSD_LOG" 2>&1
}

ct_fail()
{
	ct_log
	LAB_LOG_LINES=25 fail "$@"
}

# The host's cgroup v2 mount (the unified root, or /sys/fs/cgroup/unified
# on hybrid hosts), as rfsd finds it.
ct_cgroup2()
{
	awk '{ for (i = 7; $i != "-"; i++) ; if ($(i + 1) == "cgroup2") { print $5; exit } }' \
		/proc/self/mountinfo
}

# Wait up to $1 seconds for rfsd in the container to answer status.
ct_wait_status()
{
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		ctl status >/dev/null 2>&1 && return 0
		[ "$(pm inspect -f '{{.State.Running}}' "$CT_NAME" 2>/dev/null)" = true ] ||
			ct_fail "the container is not running: $(pm inspect -f '{{.State.Status}} exit {{.State.ExitCode}}' "$CT_NAME" 2>&1)"
		sleep 0.1
	done
	ct_fail "rfsd in the container did not answer status in $1 s"
}

ct_setup()
{
	local cg nproc
	trap ct_down EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	lab_require_root
	lab_need_bins
	lab_need podman
	[ -x "$SEQ" ] || skip "$SEQ is not built (make)"
	cg=$(ct_cgroup2)
	[ -n "$cg" ] || skip "no cgroup v2 mount here"
	lab_up
	if [ -n "${RFS_IMAGE:-}" ]; then
		CT_IMAGE=$RFS_IMAGE
	else
		[ -f "${RFS_DEB_N:-}" ] ||
			skip "neither RFS_IMAGE nor RFS_DEB_N (a package to build one from) is given"
		CT_IMAGE=localhost/xdp-rfs-test:$LAB_ID
		CT_IMAGE_MADE=1
		"$LAB_TOP/contrib/container/build.sh" "$RFS_DEB_N" "$CT_IMAGE" \
			> "$LAB_DIR/image.log" 2>&1 ||
			fail "contrib/container/build.sh failed: $(tail -n 5 "$LAB_DIR/image.log")"
	fi
	mkdir -p "$LAB_DIR/etc" "$LAB_DIR/run"
	printf '[interface %s]\n' "$LAB_A" > "$LAB_DIR/etc/rfsd.conf"
	# lab.sh's ctl and ctlj reach rfsd through it
	# shellcheck disable=SC2034
	RFS_SOCK=$LAB_DIR/run/rfsd.sock
	# podman's default rlimits are above this host's, and raising one
	# takes CAP_SYS_RESOURCE, which the runtime may lack: the host's
	# open files, and processes at most as many as podman runs its
	# runtime with (conmon shows RLIMIT_NPROC 32768 where the shell has
	# more)
	nproc=$(ulimit -Hu)
	[ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
	pm run -d --name "$CT_NAME" \
		--network host --pid host \
		--cap-drop all \
		--cap-add BPF,PERFMON,NET_ADMIN,SYS_ADMIN,SYS_PTRACE,SYS_NICE,SETGID \
		--read-only \
		--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" \
		--ulimit "nproc=$nproc:$nproc" \
		-v /sys/fs/bpf:/sys/fs/bpf \
		-v "$cg:/host/cgroup:ro" \
		-v "$LAB_DIR/etc:/etc/rfs:ro" \
		-v "$LAB_DIR/run:/run/rfs" \
		"$CT_IMAGE" --config /etc/rfs/rfsd.conf --cgroup /host/cgroup \
		--pin-dir "$RFS_PIN" -v > "$LAB_DIR/run.out" 2>&1 ||
		fail "podman run failed: $(cat "$LAB_DIR/run.out")"
	ct_wait_status 30
	say "container $CT_NAME of $CT_IMAGE up${CT_RUNTIME:+ (runtime $CT_RUNTIME)}: $(ctl status | head -n 1)"
}

# Frames of the lab's TCP clients on CPU $1, per the kernel's oracle.
ct_expect_on()
{
	local out share total
	out=$(cpu_frames "$WINDOW")
	share=$(share_of "$1" <<< "$out")
	total=$(lab_total <<< "$out")
	say "$2: $(fmt_shares <<< "$out")"
	[ "$total" -ge 100 ] || ct_fail "$2: only $total frames in ${WINDOW}s (traffic stalled?)"
	[ "$share" -ge "$MIN_SHARE" ] ||
		ct_fail "$2: $share% of frames on CPU $1, want >= $MIN_SHARE%"
}

test_container_steers_and_restarts()
{
	local prog sent recv inv lost
	ct_setup
	prog=$(lab_xdp_id "$LAB_A")
	[ -n "$prog" ] || ct_fail "no XDP program on $LAB_A with rfsd up in the container"
	say "XDP id $prog on $LAB_A, mode $(lab_if_status "$LAB_A" | jget 'd.get("mode")')"

	lab_server 0 "$LAB_IP4_A"
	lab_client "$LAB_IP4_A" 60 4
	sleep 1
	ct_expect_on 0 "server on CPU 0"
	lab_pin "$LAB_SERVER_PID" 1
	sleep 0.5
	ct_expect_on 1 "server moved to CPU 1"
	lab_signal "$LAB_CLIENT_PID" TERM
	lab_wait "$LAB_CLIENT_PID" 10

	lab_seq_start "$SEQ_PORT" 10 1000 5
	sleep 2
	pm restart -t 30 "$CT_NAME" > "$LAB_DIR/restart.out" 2>&1 ||
		ct_fail "podman restart failed: $(cat "$LAB_DIR/restart.out")"
	ct_wait_status 30
	lab_seq_result "$SEQ_PORT"
	read -r sent recv inv lost <<< "$SEQ_RESULT"
	[ "$(lab_xdp_id "$LAB_A")" = "$prog" ] ||
		ct_fail "the restart replaced the XDP program (was id $prog, now '$(lab_xdp_id "$LAB_A")')"
	pm logs "$CT_NAME" 2>&1 | grep -q "adopted datapath from $RFS_PIN: 1 interfaces" ||
		ct_fail "the restarted rfsd did not adopt the datapath"
	say "container restarted under traffic: XDP id $prog kept, adopted; sent $sent, received $recv, inversions $inv, lost $lost"
	if [ "$inv" != 0 ] || [ "$lost" != 0 ] || [ "$recv" != "$sent" ]; then
		ct_fail "across the restart: $inv inversions, $lost lost, received $recv of $sent"
	fi
	ct_log
}

lab_run_tests test_container "${*:-$ALL_TESTS}"
