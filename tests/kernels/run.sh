#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-kernels: the test suite on other kernels, each booted in a
# small QEMU guest (tests/kernels/README.md).
#
#   tests/kernels/run.sh [debian] [host]	(both when none is named)
#
#   debian  Debian 12's own kernel: the linux-image-6.1.0-*-amd64 package
#           that linux-image-amd64 depends on, fetched with apt-get
#           download and unpacked under build/kernels/ (never installed
#           as the host's kernel)
#   host    the kernel this machine runs, from /boot and /lib/modules,
#           when they are there (skipped, with the reason, when not)
#
# The guest (2 vCPUs, 2 GiB) shares the host's / read-only over 9p, as
# virtme does, with tmpfs for /tmp, /run, /var/tmp and /root; a busybox
# initramfs (tests/kernels/init.sh) loads the kernel's 9p and virtio
# modules and hands over to tests/kernels/guest.sh, which runs
# tests/run.sh on the checkout's build.  KVM is used where a probe boot
# works, TCG otherwise.  The guest's serial console is this script's
# output and is kept in build/kernels/<kernel>.log; the guest is killed
# on timeout and on every exit path.
#
# Each test result line of the guest counts; a guest that does not
# finish counts one failure more.  The closing lines, per kernel and in
# all, are what CI reads:
#   <kernel>: N passed, N failed, N skipped
#   kernels: N passed, N failed, N skipped
# Exit status: non-zero when anything failed.  When QEMU itself cannot
# run here, the whole run says "skipped: <reason>" and exits 0.
#
# What the guest runs (tests/kernels/guest.sh): tests/run.sh with
# RFS_VM_LAYERS, then the end-to-end tests of RFS_VM_E2E, by default the
# three that must hold on every kernel: steering follows the application,
# no reordering, adoption after SIGKILL; and what rfsd reports of the
# kernel (the socket hooks it loaded are the ones it names).  The whole integration layer
# (RFS_VM_LAYERS="unit prog integration") takes far longer under TCG than
# CI can give it.
#
# Environment:
#   RFS_VM_LAYERS    tests/run.sh layers in the guest (unit prog)
#   RFS_VM_E2E       "script:test,test script:..." from tests/integration
#                    (test_steering.sh:test_follows_app,test_no_reorder,
#                    test_sigkill_adopt test_kernel.sh:test_features_shown);
#                    empty: none
#   RFS_VM_CMD       run this shell command in the guest instead (a
#                    developer's probe, e.g. 'V=1 build/tests/test_xdp')
#   RFS_VM_TIMEOUT   seconds one guest may run (default: 1500 under TCG,
#                    900 under KVM)
#   RFS_VM_9P_CACHE  the 9p root's cache mode (loose: the root is read-only
#                    and nothing on it changes during a run; empty: none)
#   RFS_VM_ACCEL     kvm or tcg (default: probe KVM, else TCG)
#   RFS_VM_CPUS, RFS_VM_MEM (MiB)          2 and 2048
#   RFS_KERNEL_PKG   the Debian kernel package (default: what
#                    linux-image-amd64 depends on)
#   RFS_VM_CACHE     where kernels are unpacked (build/kernels)
#   RFS_BUILD        the build to test (build), as for tests/run.sh
# and the tests' own knobs, passed to the guest when set here:
# RFS_TEST_*, LAB_RFSD_WAIT, ORDER_*, BULK_*, MOVE_BOUND_MS, V.  Under
# TCG, RFS_TEST_TIMEOUT, RFS_TEST_WINDOW and LAB_RFSD_WAIT get larger
# defaults (emulation is 10-50 times slower).

set -u

cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
RFS_BUILD=${RFS_BUILD:-build}
BUILD=$RFS_BUILD
[[ $BUILD == /* ]] || BUILD=$TOP/$BUILD
CACHE=${RFS_VM_CACHE:-$BUILD/kernels}
LAYERS=${RFS_VM_LAYERS:-unit prog}
# the end-to-end tests that must hold on every kernel (issue 11)
E2E=${RFS_VM_E2E-test_steering.sh:test_follows_app,test_no_reorder,test_sigkill_adopt test_kernel.sh:test_features_shown}
CPUS=${RFS_VM_CPUS:-2}
MEM=${RFS_VM_MEM:-2048}
QEMU=${QEMU:-qemu-system-x86_64}
# modules the initramfs loads to reach the root; virtio_rng feeds the
# guest's entropy pool (getrandom() must not stall under TCG)
INIT_MODULES="virtio_pci 9pnet_virtio 9p virtio_rng"
# modules the runner loads before the tests (the rest on demand)
GUEST_MODULES="veth"

# shellcheck source=tests/lib/result.sh
. "$(dirname "$0")/../lib/result.sh"
QPID=
TMP=$(mktemp -d /tmp/rfs-kernels.XXXXXX) || exit 1

say() { echo "check-kernels: $*"; }

# Kill the guest we started (by the PID QEMU wrote), whatever the exit.
kill_guest()
{
	local pid=$QPID i
	[ -n "$pid" ] || return 0
	QPID=
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = qemu-system-x86 ] || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		[ -d "/proc/$pid" ] || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
}

cleanup()
{
	kill_guest
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM HUP

skip_all()
{
	echo "skipped: $*"
	echo "kernels: 0 passed, 0 failed, 1 skipped"
	exit 0
}

fmt_secs() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# ------------------------------------------------------------ kernels

# Debian's kernel package: download and unpack it into $CACHE/<version>/
# once.  Sets KVER, KIMAGE, MODROOT.
fetch_debian()
{
	local pkg=${RFS_KERNEL_PKG:-} dir deb

	if [ -z "$pkg" ]; then
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
			awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	fi
	if [ -z "$pkg" ]; then
		apt-get update -q >/dev/null 2>&1
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
			awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	fi
	[ -n "$pkg" ] || { SKIP_WHY="no linux-image-amd64 in the package lists"; return 1; }
	KVER=${pkg#linux-image-}
	dir=$CACHE/$KVER
	if [ ! -e "$dir/.unpacked" ]; then
		say "fetching $pkg"
		rm -rf "$dir" "$TMP/deb"
		mkdir -p "$dir" "$TMP/deb" || return 1
		# apt-get download as root: no _apt sandbox, warn quietly
		(cd "$TMP/deb" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
			{ SKIP_WHY="apt-get download $pkg failed"; return 1; }
		deb=$(echo "$TMP"/deb/*.deb)
		dpkg-deb -x "$deb" "$dir/root" ||
			{ SKIP_WHY="dpkg-deb -x $deb failed"; return 1; }
		# modules.dep and aliases: the guest's modprobe needs them
		depmod -b "$dir/root" "$KVER" ||
			{ SKIP_WHY="depmod for $KVER failed"; return 1; }
		basename "$deb" > "$dir/.unpacked"
	fi
	KIMAGE=$dir/root/boot/vmlinuz-$KVER
	MODROOT=$dir/root
	KDESC="Debian $(cat "$dir/.unpacked")"
	[ -r "$KIMAGE" ] || { SKIP_WHY="no $KIMAGE in the package"; return 1; }
}

# The host's own kernel, where /boot has it.  Sets KVER, KIMAGE, MODROOT.
find_host()
{
	KVER=$(uname -r)
	KIMAGE=/boot/vmlinuz-$KVER
	MODROOT=
	KDESC="this machine's kernel $KVER"
	if [ ! -r "$KIMAGE" ]; then
		SKIP_WHY="no image of the running kernel $KVER in /boot ($KIMAGE missing: this machine is booted from outside its own filesystem)"
		return 1
	fi
	if [ -d "/lib/modules/$KVER" ]; then
		MODROOT=/
	elif ! grep -qs 'CONFIG_NET_9P_VIRTIO=y' "/boot/config-$KVER"; then
		SKIP_WHY="no /lib/modules/$KVER and 9p over virtio is not built in"
		return 1
	fi
}

# ------------------------------------------------------------ initramfs

# initramfs for the kernel in KVER/MODROOT: busybox, init.sh, the 9p and
# virtio modules in dependency order, and rfs.env from the arguments
# (NAME=VALUE ...).
make_initramfs()	# OUT NAME=VALUE...
{
	local out=$1 d=$TMP/initramfs m line ko kv
	shift
	rm -rf "$d"
	mkdir -p "$d/bin" "$d/modules" || return 1
	cp "$BUSYBOX" "$d/bin/busybox" && ln -s busybox "$d/bin/sh" || return 1
	cp tests/kernels/init.sh "$d/init" && chmod 0755 "$d/init" || return 1
	: > "$d/modules.load"
	if [ -n "$MODROOT" ]; then
		for m in $INIT_MODULES; do
			modprobe -d "$MODROOT" -S "$KVER" --show-depends "$m" \
				2>/dev/null || echo "missing $m"
		done > "$TMP/deps"
		while read -r line; do
			case $line in
			insmod\ *)
				ko=${line#insmod }
				ko=${ko%% *}
				[ -e "$d/modules/${ko##*/}" ] && continue
				cp "$ko" "$d/modules/" || return 1
				echo "${ko##*/}" >> "$d/modules.load" ;;
			missing\ *)
				say "warning: kernel $KVER has no module ${line#missing }" ;;
			esac
		done < "$TMP/deps"
	fi
	for kv in "$@"; do
		printf '%s=%q\n' "${kv%%=*}" "${kv#*=}"
	done > "$d/rfs.env"
	(cd "$d" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
}

# ------------------------------------------------------------ QEMU

# The QEMU command line for accel $1, initramfs $2, into QCMD.
qemu_cmd()	# ACCEL INITRD
{
	local cpu=max accel=tcg,thread=multi append
	[ "$1" = kvm ] && cpu=host accel=kvm
	append="console=ttyS0,115200 panic=-1 loglevel=4 mitigations=off"
	append+=" rcupdate.rcu_cpu_stall_suppress=1 no_timer_check"
	append+=" random.trust_cpu=on 8250.nr_uarts=1"
	# shellcheck disable=SC2054	# QEMU's own commas
	QCMD=("$QEMU" -name rfs-kernels -nodefaults -no-user-config
	      -display none -monitor none -serial stdio -no-reboot
	      -machine pc -accel "$accel" -cpu "$cpu" -smp "$CPUS" -m "$MEM"
	      -kernel "$KIMAGE" -initrd "$2" -append "$append"
	      -fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	      -device virtio-9p-pci,fsdev=root,mount_tag=/dev/root
	      -device virtio-rng-pci
	      -pidfile "$TMP/qemu.pid")
}

# Run the guest: console to stdout and to $1, at most $2 seconds.
# Sets GUEST_RC (QEMU's exit status, 124 on timeout).
run_guest()	# LOG TIMEOUT QEMU-ARGS...
{
	local log=$1 t=$2 pid
	shift 2
	rm -f "$TMP/qemu.pid"
	{ timeout -k 10 "$t" "$@" </dev/null 2>&1; echo "$?" > "$TMP/qemu.rc"; } |
		tee "$log" | tr -d '\r' &
	pid=$!
	# the pidfile appears once QEMU runs: that PID is what kill_guest ends
	while [ ! -s "$TMP/qemu.pid" ] && [ -d "/proc/$pid" ]; do
		sleep 0.1
	done
	QPID=$(cat "$TMP/qemu.pid" 2>/dev/null)
	wait "$pid"
	QPID=
	GUEST_RC=$(cat "$TMP/qemu.rc" 2>/dev/null || echo 1)
}

# Which accelerator: RFS_VM_ACCEL, else KVM if a probe guest boots with
# it within 30 s, else TCG.  Sets ACCEL and ACCEL_WHY.
pick_accel()
{
	local log=$TMP/probe.log
	if [ -n "${RFS_VM_ACCEL:-}" ]; then
		ACCEL=$RFS_VM_ACCEL
		ACCEL_WHY="RFS_VM_ACCEL"
		return
	fi
	ACCEL=tcg
	if [ ! -c /dev/kvm ]; then
		ACCEL_WHY="no /dev/kvm"
		return
	fi
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		ACCEL_WHY="/dev/kvm is not readable and writable"
		return
	fi
	make_initramfs "$TMP/probe.img" RFS_VM_PROBE=1 || return
	qemu_cmd kvm "$TMP/probe.img"
	run_guest "$log" 30 "${QCMD[@]}" >/dev/null
	if grep -q 'rfs-init: probe ok' "$log"; then
		ACCEL=kvm
		ACCEL_WHY="a probe guest booted with KVM"
	else
		ACCEL_WHY="a KVM probe guest did not boot ($(tr -d '\r' < "$log" |
			grep -v '^$' | tail -n 1 | cut -c1-120))"
	fi
}

# Can QEMU run here at all?  Skips the whole run when it cannot.
check_qemu()
{
	command -v "$QEMU" >/dev/null 2>&1 ||
		skip_all "$QEMU is not installed (make deps installs qemu-system-x86)"
	"$QEMU" -version >/dev/null 2>&1 ||
		skip_all "$QEMU does not start: $("$QEMU" -version 2>&1 | head -n 1)"
	"$QEMU" -accel help 2>/dev/null | grep -qx tcg ||
		skip_all "$QEMU has neither KVM nor TCG here"
	# the initramfs has no libc: busybox-static's
	BUSYBOX=$(command -v busybox) ||
		skip_all "no busybox for the guest's initramfs (make deps installs busybox-static)"
	readelf -l "$BUSYBOX" 2>/dev/null | grep -q 'INTERP' &&
		skip_all "$BUSYBOX is linked dynamically (make deps installs busybox-static)"
	command -v cpio >/dev/null 2>&1 || skip_all "no cpio (make deps)"
}

# ------------------------------------------------------------ one kernel

# Count the guest's result lines into the totals and print one line.
tally()		# LOG NAME FINISHED-WHY
{
	local log=$1 name=$2 p f s rc
	p=$(tr -d '\r' < "$log" | grep -c '^  PASS  ')
	f=$(tr -d '\r' < "$log" | grep -c '^  FAIL  ')
	s=$(tr -d '\r' < "$log" | grep -c '^  SKIP  ')
	rc=$(tr -d '\r' < "$log" | sed -n 's/^rfs-guest: exit \([0-9]*\)$/\1/p' | tail -n 1)
	if [ -z "$rc" ]; then
		echo "  FAIL  $name: the guest did not finish: $3"
		f=$((f + 1))
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "  FAIL  $name: tests/run.sh exited $rc with no failed test"
		f=$((f + 1))
	elif [ $((p + f + s)) = 0 ]; then
		echo "  FAIL  $name: the guest ran no test"
		f=$((f + 1))
	fi
	n_pass=$((n_pass + p))
	n_fail=$((n_fail + f))
	n_skip=$((n_skip + s))
	echo "$name: $p passed, $f failed, $s skipped"
}

# Pass the tests' knobs that are set here into the guest, with TCG
# defaults for the ones that time things.
guest_env()
{
	local v
	ENV=(RFS_VM_RUNNER="$TOP/tests/kernels/guest.sh" RFS_VM_TOP="$TOP"
	     RFS_VM_BUILD="$BUILD" RFS_VM_LAYERS="$LAYERS" RFS_VM_E2E="$E2E"
	     RFS_VM_MODROOT="$MODROOT" RFS_VM_MODULES="$GUEST_MODULES"
	     RFS_VM_ACCEL="$ACCEL" RFS_VM_CMD="${RFS_VM_CMD:-}"
	     RFS_VM_FACTS="${RFS_VM_FACTS:-1}"
	     RFS_VM_9P_CACHE="${RFS_VM_9P_CACHE-loose}")
	if [ "$ACCEL" = tcg ]; then
		ENV+=(RFS_TEST_TIMEOUT=1800 RFS_TEST_WINDOW=4 LAB_RFSD_WAIT=120)
	fi
	while IFS= read -r v; do
		ENV+=("$v=${!v}")
	done < <(compgen -e | grep -E '^(RFS_TEST_[A-Z_]*|LAB_RFSD_WAIT|ORDER_[A-Z_]*|BULK_[A-Z_]*|MOVE_BOUND_MS|V)$')
}

run_kernel()	# debian|host
{
	local kind=$1 name log t start why
	SKIP_WHY=
	case $kind in
	debian) fetch_debian ;;
	host) find_host ;;
	esac || {
		if [ "$kind" = debian ]; then
			result FAIL "kernel $kind" "$SKIP_WHY"
		else
			result SKIP "kernel $kind" "$SKIP_WHY"
		fi
		return
	}
	name=linux-$KVER
	log=$CACHE/$name.log
	mkdir -p "$CACHE"
	[ -n "${ACCEL:-}" ] || pick_accel
	if [ "$ACCEL" = tcg ]; then
		t=${RFS_VM_TIMEOUT:-1500}
	else
		t=${RFS_VM_TIMEOUT:-900}
	fi
	guest_env
	make_initramfs "$TMP/$name.img" "${ENV[@]}" ||
		{ result FAIL "$name" "can't build the initramfs"; return; }
	qemu_cmd "$ACCEL" "$TMP/$name.img"
	say "booting $KDESC: $ACCEL ($ACCEL_WHY), $CPUS vCPUs, $MEM MiB, timeout ${t}s; console in ${log#"$TOP"/}"
	start=$SECONDS
	run_guest "$log" "$t" "${QCMD[@]}"
	case $GUEST_RC in
	0) why="QEMU exited before the runner's last line" ;;
	124) why="timed out after ${t}s (RFS_VM_TIMEOUT)" ;;
	*) why="QEMU exited $GUEST_RC" ;;
	esac
	grep -q 'Kernel panic' "$log" && why="$why; the kernel panicked"
	say "$name: guest ran $(fmt_secs $((SECONDS - start)))"
	tally "$log" "$name" "$why"
}

usage()
{
	echo "Usage: $0 [debian] [host]" >&2
	exit 2
}

(($# > 0)) || set -- debian host
for k in "$@"; do
	case $k in debian|host) ;; *) usage ;; esac
done

check_qemu
for k in "$@"; do
	run_kernel "$k"
done
echo "kernels: $n_pass passed, $n_fail failed, $n_skip skipped"
((n_fail == 0))
