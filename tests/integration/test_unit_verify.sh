#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# systemd/rfsd.service.in as `make install` turns it into rfsd.service
# (@SBINDIR@ and @LIBEXECDIR@ replaced), and systemd/rfsd-metrics.socket
# beside it, checked by systemd-analyze verify: any warning about them
# fails.  Also the hardening the unit must keep, and systemd/rfsd.env
# (what EnvironmentFile= reads).
#
#	tests/integration/test_unit_verify.sh [TEST...]
#
# RFSD overrides the binary ExecStart points to (default build/rfsd; a stub
# stands in when it is not built), RFSD_UNIT_IN the unit template.  Exit 0 if every test passed, 249 (skip)
# without systemd-analyze, 1 otherwise.  No root needed; nothing is started.

# shellcheck disable=SC2317  # the test_* functions are called by name
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
UNIT_IN=${RFSD_UNIT_IN:-$ROOT/systemd/rfsd.service.in}
ENV_FILE=$ROOT/systemd/rfsd.env
RFSD=${RFSD:-$ROOT/build/rfsd}
SKIP=249

ALL_TESTS="
	test_unit_verify
	test_unit_substituted
	test_unit_hardening
	test_metrics_socket
	test_env_file
"

if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "systemd-analyze not found"
	exit $SKIP
fi

FAILED=0

fail()
{
	echo "  FAIL: $*"
	FAILED=1
}

indent()
{
	local line

	while IFS= read -r line; do
		echo "    $line"
	done
}

TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

# The unit as make install writes it, with ExecStart on an executable.
SBINDIR=$TMP/sbin
LIBEXECDIR=$TMP/libexec
UNIT=$TMP/unit/rfsd.service
mkdir -p "$SBINDIR" "$LIBEXECDIR/xdp-rfs" "$TMP/unit"
cp "$ROOT/systemd/rfsd-prepare" "$LIBEXECDIR/xdp-rfs/rfsd-prepare"
if [[ -x $RFSD ]]; then
	ln -s "$RFSD" "$SBINDIR/rfsd"
else
	printf '#!/bin/sh\nexit 0\n' >"$SBINDIR/rfsd"
	chmod +x "$SBINDIR/rfsd"
	echo "  note: $RFSD not built; ExecStart points to a stub"
fi
# the Makefile's install rule, word for word
sed -e "s|@SBINDIR@|$SBINDIR|g" -e "s|@LIBEXECDIR@|$LIBEXECDIR|g" \
	"$UNIT_IN" >"$UNIT"

# Documentation=man: pages are looked up with man(1): point it at ours.
MAN_ARGS=()
if command -v man >/dev/null 2>&1 &&
   [[ -f $ROOT/man/rfsd.8 && -f $ROOT/man/rfsctl.8 ]]; then
	mkdir -p "$TMP/man/man8"
	cp "$ROOT/man/rfsd.8" "$ROOT/man/rfsctl.8" "$TMP/man/man8/"
	export MANPATH=$TMP/man
else
	echo "  note: man(1) or a man page missing; Documentation= not checked"
	MAN_ARGS=(--man=no)
fi

test_unit_verify()
{
	local out rc

	out=$(systemd-analyze verify "${MAN_ARGS[@]}" "$UNIT" 2>&1)
	rc=$?
	# other units it pulls in may warn on this host; ours must not
	if grep -E "rfsd\.service|$TMP" <<<"$out" >"$TMP/ours"; then
		fail "systemd-analyze verify warns about the unit:"
		indent <"$TMP/ours"
	fi
	if ((rc != 0)); then
		fail "systemd-analyze verify exited $rc:"
		indent <<<"$out"
	fi
}

test_unit_substituted()
{
	if grep -n '@[A-Z_]*@' "$UNIT"; then
		fail "placeholders left in the unit"
	fi
	grep -qx "ExecStart=$SBINDIR/rfsd \$RFSD_OPTS" "$UNIT" ||
		fail "ExecStart is not '$SBINDIR/rfsd \$RFSD_OPTS'"
	# as root, outside the sandbox: the pins' binds before, their
	# release after (systemd/rfsd-prepare)
	grep -qx "ExecStartPre=+$LIBEXECDIR/xdp-rfs/rfsd-prepare rfs" "$UNIT" ||
		fail "ExecStartPre is not '+$LIBEXECDIR/xdp-rfs/rfsd-prepare rfs'"
	grep -qx "ExecStopPost=+$LIBEXECDIR/xdp-rfs/rfsd-prepare --release" "$UNIT" ||
		fail "ExecStopPost is not '+$LIBEXECDIR/xdp-rfs/rfsd-prepare --release'"
}

# directive=value lines the unit must have (values as words, any order)
expect_directive()	# KEY WORD...
{
	local key=$1 line w
	shift

	line=$(grep -E "^$key=" "$UNIT" | tail -n 1)
	if [[ -z $line ]]; then
		fail "no $key="
		return
	fi
	for w in "$@"; do
		[[ " ${line#*=} " == *" $w "* ]] ||
			fail "$key= lacks $w (has '${line#*=}')"
	done
}

test_unit_hardening()
{
	local cap line w

	expect_directive Type notify
	expect_directive EnvironmentFile -/etc/default/rfsd
	expect_directive Restart on-failure
	expect_directive RuntimeDirectory rfs
	expect_directive RuntimeDirectoryPreserve no
	expect_directive ProtectSystem strict
	# all of /sys read-only: the pins are reached through rfsd-prepare's
	# binds under the RuntimeDirectory, never by writing /sys
	expect_directive ProtectKernelTunables yes
	grep -qE '^ReadWritePaths=.*/sys' "$UNIT" &&
		fail "ReadWritePaths= opens /sys again"
	expect_directive Environment RFSD_PIN_AT=/run/rfs/bpf/pins \
		LIBXDP_BPFFS=/run/rfs/bpf
	expect_directive ProtectHome yes
	expect_directive PrivateTmp yes
	expect_directive NoNewPrivileges yes
	# no IP socket, no IP traffic: /metrics comes from the socket unit
	line=$(grep -E '^RestrictAddressFamilies=' "$UNIT" | tr '\n' ' ')
	[[ $line == "RestrictAddressFamilies=AF_UNIX AF_NETLINK " ]] ||
		fail "RestrictAddressFamilies= must be AF_UNIX AF_NETLINK alone, is '$line'"
	expect_directive IPAddressDeny any
	grep -qE '^IPAddressAllow=' "$UNIT" &&
		fail "IPAddressAllow= in rfsd.service: its IP traffic is the socket unit's"
	# a bound on the flow tables too (BPF maps are charged to rfsd's
	# cgroup): above the budgets' defaults (daemon/lib/rfs_dp.h)
	expect_directive MemoryMax 15%
	expect_directive ProtectKernelModules yes
	expect_directive LockPersonality yes
	expect_directive MemoryDenyWriteExecute yes
	expect_directive SystemCallArchitectures native
	expect_directive Documentation man:rfsd\(8\) man:rfsctl\(8\)
	# exactly what rfsd keeps while it runs (daemon/rfsd/caps.c) but
	# CAP_SYS_PTRACE, which it keeps only if a drop-in gives it; not
	# CAP_SETUID, CAP_SETGID, CAP_SETPCAP: the request parser is confined
	# by its seccomp filter; no CAP_CHOWN: the socket's group comes from
	# bind() with rfsd's gid, the unit's Group=; User=rfs holds them
	# ambient, exactly the bounding set
	line=$(grep -E '^CapabilityBoundingSet=' "$UNIT" | tail -n 1)
	[[ $(tr ' ' '\n' <<<"${line#*=}" | sort | tr '\n' ' ') == \
	   "CAP_BPF CAP_NET_ADMIN CAP_PERFMON CAP_SYS_ADMIN CAP_SYS_NICE " ]] ||
		fail "CapabilityBoundingSet= is '${line#*=}', not the five rfsd keeps"
	grep -q "^	\[CAP_SYS_PTRACE\] = " "$ROOT/daemon/rfsd/caps.c" ||
		fail "caps.c does not keep CAP_SYS_PTRACE: a drop-in giving it would not work"
	expect_directive User rfs
	expect_directive Group rfs
	line=$(grep -E '^AmbientCapabilities=' "$UNIT" | tail -n 1)
	[[ $(tr ' ' '\n' <<<"${line#*=}" | sort | tr '\n' ' ') == \
	   "CAP_BPF CAP_NET_ADMIN CAP_PERFMON CAP_SYS_ADMIN CAP_SYS_NICE " ]] ||
		fail "AmbientCapabilities= is '${line#*=}', not the bounding set"
	for cap in CAP_BPF CAP_NET_ADMIN CAP_PERFMON CAP_SYS_ADMIN CAP_SYS_NICE; do
		grep -q "^	\[$cap\] = " "$ROOT/daemon/rfsd/caps.c" ||
			fail "$cap is in the unit but not kept by daemon/rfsd/caps.c"
	done
	# the default kthread policy (SCHED_FIFO 1, daemon/rfsd/ksched.c):
	# RestrictRealtime's filter would refuse it for any target, and the
	# two calls must be allowed after the denial of @resources
	expect_directive RestrictRealtime no
	line=$(grep -E '^SystemCallFilter=' "$UNIT" | tail -n 1)
	[[ ${line#*=} == "sched_setscheduler setpriority" ]] ||
		fail "the last SystemCallFilter= must allow sched_setscheduler setpriority, is '${line#*=}'"
	expect_directive ProtectControlGroups yes
	expect_directive RestrictNamespaces net
	# the first SystemCallFilter= makes it an allow list; no
	# perf_event_open (kprobes only, a drop-in: docs/operations.md)
	line=$(grep -E '^SystemCallFilter=' "$UNIT" | head -n 1)
	for w in @system-service bpf; do
		[[ " ${line#*=} " == *" $w "* ]] ||
			fail "the first SystemCallFilter= lacks $w (has '${line#*=}')"
	done
	grep -E '^SystemCallFilter=' "$UNIT" | grep -qw perf_event_open &&
		fail "the unit allows perf_event_open"
	# hidepid would hide root's processes, the cpumap kthreads among
	# them, from user rfs
	grep -Eq '^ProtectProc=(invisible|ptraceable|noaccess)' "$UNIT" &&
		fail "ProtectProc= hides the cpumap kthreads from user rfs"
	# CONFIG_HZ comes from /proc/config.gz where /boot has none
	grep -Eq '^ProcSubset=pid' "$UNIT" &&
		fail "ProcSubset=pid hides /proc/config.gz"
	grep -Eq '^PrivateNetwork=(yes|true)' "$UNIT" &&
		fail "PrivateNetwork would hide the host's interfaces"
	return 0
}

# The /metrics socket: verified beside the service it starts, on the
# port the man page documents, loopback only, and installed for
# sockets.target (enabled only when the admin says so).
test_metrics_socket()
{
	local sock=$TMP/unit/rfsd-metrics.socket out rc line

	cp "$ROOT/systemd/rfsd-metrics.socket" "$sock"
	out=$(systemd-analyze verify "${MAN_ARGS[@]}" "$sock" 2>&1)
	rc=$?
	if grep -E "rfsd-metrics\.socket|rfsd\.service|$TMP" <<<"$out" >"$TMP/ours"; then
		fail "systemd-analyze verify warns about the socket unit:"
		indent <"$TMP/ours"
	fi
	((rc == 0)) || fail "systemd-analyze verify of the socket unit exited $rc"
	line=$(grep -E '^ListenStream=' "$sock" | tr '\n' ' ')
	[[ $line == "ListenStream=127.0.0.1:9464 " ]] ||
		fail "ListenStream= must be 127.0.0.1:9464 alone, is '$line'"
	grep -q '127\.0\.0\.1:9464' "$ROOT/man/rfsd.8" ||
		fail "rfsd(8) does not document 127.0.0.1:9464"
	for line in Service=rfsd.service IPAddressDeny=any \
		    IPAddressAllow=localhost WantedBy=sockets.target; do
		grep -qx "$line" "$sock" || fail "rfsd-metrics.socket lacks $line"
	done
	grep -q '^Accept=yes' "$sock" && fail "Accept=yes: rfsd takes the listening socket"
	return 0
}

test_env_file()
{
	local line

	grep -q '^RFSD_OPTS=' "$ENV_FILE" || fail "rfsd.env does not set RFSD_OPTS"
	# systemd's syntax: comments, blank lines, KEY=value
	while IFS= read -r line; do
		[[ -z $line || $line == \#* ]] && continue
		[[ $line =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
			fail "rfsd.env: not KEY=value: '$line'"
	done <"$ENV_FILE"
	# every option it documents is one rfsd has
	[[ -x $RFSD ]] || return 0
	grep -oE '^#   (--[a-z-]+|-[a-zA-Z])' "$ENV_FILE" | sed 's/^#   //' |
	while IFS= read -r opt; do
		"$RFSD" --help | grep -qE -- "(^|[ ,])$opt([ ,=]|$)" ||
			echo "rfsd.env documents $opt, which rfsd --help lacks"
	done >"$TMP/opts"
	if [[ -s $TMP/opts ]]; then
		fail "$(cat "$TMP/opts")"
	fi
}

TESTS=${*:-$ALL_TESTS}
for t in $TESTS; do
	echo "$t"
	"$t"
done
exit $FAILED
