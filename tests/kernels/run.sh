#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-kernels: the test suite on other kernels and machine shapes,
# each booted in a small QEMU guest (tests/kernels/README.md).
#
#   tests/kernels/run.sh [debian] [rt] [cloud] [order] [host]
#                                               (all when none is named)
#
#   debian  Debian 12's generic kernel (the linux-image-6.1.0-*-amd64 that
#           linux-image-amd64 depends on), 4 vCPUs online of 300 possible
#           (possible_cpus=300: per-CPU maps get 300 slots, as on a big
#           server), the ASan+UBSan build (build-san/) with
#           tests/kernels/rfs_bpfcheck.so preloaded: a buffer sized by the
#           online or present CPUs, or a cap below the possible ones, that
#           the kernel fills with one value per possible CPU overflows
#           there, and ASan reports it
#   rt      Debian 12's PREEMPT_RT kernel (linux-image-rt-amd64): softirqs
#           in threads, NAPI polls preemptible
#   cloud   Debian 12's cloud kernel (linux-image-cloud-amd64): no 9p, so
#           the root is shared over virtiofs (virtiofsd on the host)
#   order   the generic kernel with 8 vCPUs: the ordering test of queue
#           count and XPS changes between bursts (tests/integration/
#           test_order_queues.sh) alone
#   host    the kernel this machine runs, from /boot and /lib/modules,
#           when they are there (skipped, with the reason, when not)
#
# Debian's packages are fetched with apt-get download and unpacked under
# build/kernels/ (never installed as the host's kernel).  Each guest
# shares the host's / read-only (9p, as virtme does, or virtiofs where
# the kernel has no 9p), with tmpfs for /tmp, /run, /var/tmp and /root; a
# busybox initramfs (tests/kernels/init.sh) loads the kernel's own
# virtio and file system modules and hands over to
# tests/kernels/guest.sh, which runs the leg's tests on the checkout's
# build.  Guests run one after another, each with its own timeout, QEMU
# at a lower priority (the machine is shared).  KVM is used where a
# probe boot works, TCG otherwise.  The guest's serial console is this
# script's output and is kept in build/kernels/<leg>-linux-<version>.log;
# the guest is killed on timeout and on every exit path.
#
# Each test result line of the guest counts; a guest that does not
# finish counts one failure more.  The closing lines, per guest and in
# all, are what CI reads:
#   <leg> (linux-<version>): N passed, N failed, N skipped
#   kernels: N passed, N failed, N skipped
# Exit status: non-zero when anything failed.  When QEMU itself cannot
# run here, the whole run says "skipped: <reason>" and exits 0.
#
# What each guest runs is set per leg (leg_setup below): tests/run.sh
# with its layers, then its end-to-end tests.  The whole integration
# layer takes far longer under TCG than CI can give it.
#
# Environment (each overrides every leg's own choice when set):
#   RFS_VM_LAYERS    tests/run.sh layers in the guest
#   RFS_VM_E2E       "script:test,test script:..." from tests/integration;
#                    empty: none
#   RFS_VM_CMD       run this shell command in the guest instead (a
#                    developer's probe, e.g. 'V=1 build/tests/test_xdp')
#   RFS_VM_TIMEOUT   seconds one guest may run
#   RFS_VM_CPUS      vCPUs
# and, for all legs:
#   RFS_VM_9P_CACHE  the 9p root's cache mode (loose: the root is read-only
#                    and nothing on it changes during a run; empty: none)
#   RFS_VM_ACCEL     kvm or tcg (default: probe KVM, else TCG)
#   RFS_VM_MEM       MiB (2048)
#   RFS_VM_NICE      QEMU's (and virtiofsd's) nice value (10)
#   RFS_VM_BUDGET    seconds the whole run may take (2400): no guest gets
#                    a timeout past it, and a leg with no time left fails
#                    without booting
#   RFS_KERNEL_PKG   the generic Debian kernel package (default: what
#                    linux-image-amd64 depends on)
#   RFS_VM_CACHE     where kernels are unpacked (build/kernels)
#   RFS_BUILD        the build to test (build), as for tests/run.sh
#   RFS_VM_SAN_BUILD the sanitized build of the debian leg (build-san)
# and the tests' own knobs, passed to the guest when set here:
# RFS_TEST_*, LAB_RFSD_WAIT, ORDER_*, BULK_*, MOVE_BOUND_MS, V.  Under
# TCG, RFS_TEST_TIMEOUT, RFS_TEST_WINDOW and LAB_RFSD_WAIT get larger
# defaults (emulation is far slower than the host).

set -u

cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
RFS_BUILD=${RFS_BUILD:-build}
BUILD=$RFS_BUILD
[[ $BUILD == /* ]] || BUILD=$TOP/$BUILD
CACHE=${RFS_VM_CACHE:-$BUILD/kernels}
SAN_BUILD=${RFS_VM_SAN_BUILD:-build-san}
[[ $SAN_BUILD == /* ]] || SAN_BUILD=$TOP/$SAN_BUILD
MEM=${RFS_VM_MEM:-2048}
NICE=${RFS_VM_NICE:-10}
# CI's hour less what make check and make check SANITIZE=1 take
BUDGET=${RFS_VM_BUDGET:-2400}
QEMU=${QEMU:-qemu-system-x86_64}
# the end-to-end tests that must hold on every kernel
E2E_ALL="test_steering.sh:test_follows_app,test_no_reorder,test_sigkill_adopt test_kernel.sh:test_features_shown"
# modules the runner loads before the tests (the rest on demand)
GUEST_MODULES="veth"

# shellcheck source=tests/lib/result.sh
. "$(dirname "$0")/../lib/result.sh"
QPID=
VPID=
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

# The same for the virtiofsd we started for a guest's root.
kill_virtiofsd()
{
	local pid=$VPID
	[ -n "$pid" ] || return 0
	VPID=
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = virtiofsd ] || return 0
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

cleanup()
{
	kill_guest
	kill_virtiofsd
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

# Debian's kernel package of flavour $1 (empty: generic, rt, cloud):
# download and unpack it into $CACHE/<version>/ once.  Sets KVER,
# KIMAGE, MODROOT, KDESC.
fetch_debian()	# [FLAVOUR]
{
	local flavour=${1:-} meta pkg='' dir deb

	meta=linux-image-${flavour:+$flavour-}amd64
	[ -z "$flavour" ] && pkg=${RFS_KERNEL_PKG:-}
	if [ -z "$pkg" ]; then
		pkg=$(apt-cache depends "$meta" 2>/dev/null |
			awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	fi
	if [ -z "$pkg" ]; then
		apt-get update -q >/dev/null 2>&1
		pkg=$(apt-cache depends "$meta" 2>/dev/null |
			awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	fi
	[ -n "$pkg" ] || { SKIP_WHY="no $meta in the package lists"; return 1; }
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
	KCONFIG=$dir/root/boot/config-$KVER
	MODROOT=$dir/root
	KDESC="Debian $(cat "$dir/.unpacked")"
	[ -r "$KIMAGE" ] || { SKIP_WHY="no $KIMAGE in the package"; return 1; }
}

# The host's own kernel, where /boot has it.  Sets KVER, KIMAGE, MODROOT.
find_host()
{
	KVER=$(uname -r)
	KIMAGE=/boot/vmlinuz-$KVER
	KCONFIG=/boot/config-$KVER
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

# Has the kernel in KVER/MODROOT module $1, as a module of its own or
# built in (its config says $2=y)?
kernel_has()	# MODULE CONFIG_SYMBOL
{
	[ -n "$MODROOT" ] &&
		modprobe -d "$MODROOT" -S "$KVER" --show-depends "$1" \
			>/dev/null 2>&1 && return 0
	grep -qs "^$2=y" "$KCONFIG"
}

# How the guest reaches the host's root: 9p where the kernel has it (a
# module or built in), else virtiofs, which needs virtiofsd on the host
# (Debian's cloud kernel leaves 9p out).  Sets SHARE, INIT_MODULES (what
# the initramfs loads to mount it; virtio_rng feeds the guest's entropy
# pool: getrandom() must not stall under TCG) and VIRTIOFSD.
pick_share()
{
	local m
	if kernel_has 9pnet_virtio CONFIG_NET_9P_VIRTIO &&
	   kernel_has 9p CONFIG_9P_FS; then
		SHARE=9p
		INIT_MODULES="virtio_pci 9pnet_virtio 9p virtio_rng"
	elif kernel_has virtiofs CONFIG_VIRTIO_FS; then
		SHARE=virtiofs
		INIT_MODULES="virtio_pci virtiofs virtio_rng"
		VIRTIOFSD=
		for m in "${RFS_VM_VIRTIOFSD:-}" /usr/libexec/virtiofsd \
			 /usr/lib/qemu/virtiofsd "$(command -v virtiofsd)"; do
			[ -n "$m" ] && [ -x "$m" ] && VIRTIOFSD=$m && break
		done
		[ -n "$VIRTIOFSD" ] || {
			SKIP_WHY="kernel $KVER has no 9p, only virtiofs, and there is no virtiofsd here (qemu-system-common has it)"
			return 1
		}
	else
		SKIP_WHY="kernel $KVER has neither 9p nor virtiofs to reach the shared root"
		return 1
	fi
	for m in $GUEST_MODULES; do
		kernel_has "$m" "CONFIG_$(tr '[:lower:]' '[:upper:]' <<< "$m")" || {
			SKIP_WHY="kernel $KVER has no $m (the tests' lab needs it)"
			return 1
		}
	done
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

# The QEMU command line for accel $1, initramfs $2, into QCMD: CPUS
# vCPUs, POSSIBLE possible CPUs when set, the root shared as SHARE says
# (9p, virtiofs through the socket $TMP/virtiofs.sock, none).
qemu_cmd()	# ACCEL INITRD
{
	local cpu=max accel=tcg,thread=multi append machine=pc
	[ "$1" = kvm ] && cpu=host accel=kvm
	append="console=ttyS0,115200 panic=-1 loglevel=4 mitigations=off"
	append+=" rcupdate.rcu_cpu_stall_suppress=1 no_timer_check"
	append+=" random.trust_cpu=on 8250.nr_uarts=1"
	# x86 takes the possible CPUs from this, up to NR_CPUS, whatever
	# the firmware lists: per-CPU maps get that many slots while only
	# CPUS are online, as on a server with a large NR_CPUS and few cores
	[ -n "${POSSIBLE:-}" ] && append+=" possible_cpus=$POSSIBLE"
	# virtiofs maps the guest's memory into virtiofsd: shared memory
	[ "$SHARE" = virtiofs ] && machine+=,memory-backend=mem
	# shellcheck disable=SC2054	# QEMU's own commas
	QCMD=(nice -n "$NICE" "$QEMU" -name rfs-kernels -nodefaults
	      -no-user-config -display none -monitor none -serial stdio
	      -no-reboot -machine "$machine" -accel "$accel" -cpu "$cpu"
	      -smp "$CPUS" -m "$MEM"
	      -kernel "$KIMAGE" -initrd "$2" -append "$append"
	      -device virtio-rng-pci
	      -pidfile "$TMP/qemu.pid")
	# shellcheck disable=SC2054	# QEMU's own commas
	case $SHARE in
	9p)
		QCMD+=(-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
		       -device virtio-9p-pci,fsdev=root,mount_tag=/dev/root) ;;
	virtiofs)
		QCMD+=(-object "memory-backend-memfd,id=mem,size=${MEM}M,share=on"
		       -chardev "socket,id=rootfs,path=$TMP/virtiofs.sock"
		       -device vhost-user-fs-pci,chardev=rootfs,tag=rfsroot) ;;
	esac
}

# virtiofsd serving the host's / to the next guest, on
# $TMP/virtiofs.sock; it ends when the guest does (kill_virtiofsd
# makes sure).  The guest mounts it read-only.  Its chroot sandbox: the
# namespace one pivots the root, which a machine that is itself a
# container refuses.
start_virtiofsd()
{
	local i
	rm -f "$TMP/virtiofs.sock"
	nice -n "$NICE" "$VIRTIOFSD" --socket-path="$TMP/virtiofs.sock" \
		-o source=/ -o cache=always -o announce_submounts \
		-o sandbox=chroot -o log_level=err > "$TMP/virtiofsd.log" 2>&1 &
	VPID=$!
	for ((i = 0; i < 100; i++)); do
		[ -S "$TMP/virtiofs.sock" ] && return 0
		[ -d "/proc/$VPID" ] || break
		sleep 0.1
	done
	SKIP_WHY="virtiofsd did not start: $(tail -n 1 "$TMP/virtiofsd.log")"
	kill_virtiofsd
	return 1
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
	SHARE=none qemu_cmd kvm "$TMP/probe.img"
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

# What leg $1 boots and runs: sets FLAVOUR (host, or the Debian kernel
# flavour: generic, rt, cloud), CPUS, POSSIBLE, LBUILD, LAYERS, E2E,
# LTIMEOUT (TCG; KVM gets less), SAN, LENV and LENV_TCG (the tests'
# knobs for this guest, always and under TCG, NAME=VALUE; set here, a
# knob wins), LDESC.  The RFS_VM_*
# overrides win.
# Each leg's tests are chosen for what its machine shape can break, and
# sized so that all of them fit CI's time under TCG.
leg_setup()	# LEG
{
	FLAVOUR=generic CPUS=2 POSSIBLE='' LBUILD=$BUILD SAN='' LENV=() LENV_TCG=()
	LAYERS="unit prog"
	case $1 in
	debian)
		# the possible CPUs far above the online ones, and the
		# sanitized build: a per-CPU buffer sized by the online or
		# present CPUs overflows when a map lookup fills all of them
		CPUS=4 POSSIBLE=300 LBUILD=$SAN_BUILD SAN=1
		E2E=$E2E_ALL
		LTIMEOUT=1200 ;;
	rt)
		# softirqs in threads: a NAPI poll can be preempted
		FLAVOUR=rt
		E2E="test_steering.sh:test_no_reorder,test_follows_app test_kernel.sh:test_features_shown"
		LTIMEOUT=720 ;;
	cloud)
		# a kernel without 9p and most drivers: loading, attaching
		# and steering on what it has
		FLAVOUR=cloud
		E2E="test_steering.sh:test_follows_app test_kernel.sh:test_features_shown"
		LTIMEOUT=480 ;;
	order)
		# 4 RX queues fed from 4 CPUs, readers over all 8, queue
		# counts and XPS changed between bursts: the ordering test
		# alone (the layers ran on the other legs)
		CPUS=8 LAYERS=
		E2E="test_order_queues.sh:test_queue_changes"
		# what 8 emulated CPUs on a small host receive without
		# dropping at the sockets
		LENV_TCG=(ORDER_QUEUES_PPS=100)
		# its counts, guarded and control, are the leg's report
		LENV=(V=1)
		LTIMEOUT=600 ;;
	host)
		FLAVOUR=host
		E2E=$E2E_ALL
		LTIMEOUT=1200 ;;
	esac
	LAYERS=${RFS_VM_LAYERS-$LAYERS}
	E2E=${RFS_VM_E2E-$E2E}
	CPUS=${RFS_VM_CPUS:-$CPUS}
	LDESC="$CPUS vCPUs${POSSIBLE:+ of $POSSIBLE possible}, $MEM MiB, ${LBUILD#"$TOP"/}/"
}

# Pass the tests' knobs that are set here into the guest, with TCG
# defaults for the ones that time things.
guest_env()
{
	local v
	ENV=(RFS_VM_RUNNER="$TOP/tests/kernels/guest.sh" RFS_VM_TOP="$TOP"
	     RFS_VM_BUILD="$LBUILD" RFS_VM_LAYERS="$LAYERS" RFS_VM_E2E="$E2E"
	     RFS_VM_MODROOT="$MODROOT" RFS_VM_MODULES="$GUEST_MODULES"
	     RFS_VM_ACCEL="$ACCEL" RFS_VM_CMD="${RFS_VM_CMD:-}"
	     RFS_VM_FACTS="${RFS_VM_FACTS:-1}" RFS_VM_SHARE="$SHARE"
	     RFS_VM_POSSIBLE="$POSSIBLE"
	     RFS_VM_9P_CACHE="${RFS_VM_9P_CACHE-loose}")
	if [ -n "$SAN" ]; then
		# as the Makefile's SANITIZE=1, and every report kept in a
		# file: the runner fails on any, even from a process whose
		# test passed or whose log the lab removed.  rfs_bpfcheck.so
		# shows ASan what the kernel copies for bpf(2): one value per
		# possible CPU into a per-CPU lookup's buffer
		ENV+=(RFS_VM_SAN_DIR=/tmp/rfs-san
		      LD_PRELOAD="$LBUILD/tests/rfs_bpfcheck.so"
		      ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:print_suppressions=0:log_path=/tmp/rfs-san/asan
		      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=/tmp/rfs-san/ubsan)
	fi
	# the leg's own, then what is set here (the guest reads them in order)
	ENV+=("${LENV[@]}")
	if [ "$ACCEL" = tcg ]; then
		ENV+=(RFS_TEST_TIMEOUT=1800 RFS_TEST_WINDOW=4 LAB_RFSD_WAIT=120
		      "${LENV_TCG[@]}")
	fi
	while IFS= read -r v; do
		ENV+=("$v=${!v}")
	done < <(compgen -e | grep -E '^(RFS_TEST_[A-Z_]*|LAB_RFSD_WAIT|ORDER_[A-Z_]*|BULK_[A-Z_]*|MOVE_BOUND_MS|V)$')
}

# The kernel of leg $1's FLAVOUR: sets KVER, KIMAGE, KCONFIG, MODROOT,
# KDESC, SHARE, INIT_MODULES; SKIP_WHY when it can't.
find_kernel()
{
	case $FLAVOUR in
	host) find_host ;;
	generic) fetch_debian ;;
	*) fetch_debian "$FLAVOUR" ;;
	esac || return
	pick_share
}

run_kernel()	# LEG
{
	local leg=$1 name log t start why left
	SKIP_WHY=
	leg_setup "$leg"
	if ! find_kernel; then
		# Debian's kernels are the matrix: not getting one fails
		if [ "$leg" = host ]; then
			result SKIP "kernel $leg" "$SKIP_WHY"
		else
			result FAIL "kernel $leg" "$SKIP_WHY"
		fi
		return
	fi
	if [ ! -x "$LBUILD/rfsd" ] ||
	   { [ -n "$SAN" ] && [ ! -e "$LBUILD/tests/rfs_bpfcheck.so" ]; }; then
		result FAIL "$leg" "no ${LBUILD#"$TOP"/}/rfsd or tests/rfs_bpfcheck.so (make check-kernels builds them)"
		return
	fi
	name="$leg (linux-$KVER)"
	log=$CACHE/$leg-linux-$KVER.log
	mkdir -p "$CACHE"
	[ -n "${ACCEL:-}" ] || pick_accel
	if [ "$ACCEL" = tcg ]; then
		t=${RFS_VM_TIMEOUT:-$LTIMEOUT}
	else
		t=${RFS_VM_TIMEOUT:-$((LTIMEOUT * 2 / 3))}
	fi
	left=$((BUDGET - SECONDS))
	if ((left < 120)); then
		result FAIL "$name" "not run: ${left}s left of the run's ${BUDGET}s (RFS_VM_BUDGET)"
		return
	fi
	((t <= left)) || t=$left
	guest_env
	make_initramfs "$TMP/$leg.img" "${ENV[@]}" ||
		{ result FAIL "$name" "can't build the initramfs"; return; }
	qemu_cmd "$ACCEL" "$TMP/$leg.img"
	if [ "$SHARE" = virtiofs ] && ! start_virtiofsd; then
		result FAIL "$name" "$SKIP_WHY"
		return
	fi
	say "booting $KDESC for $leg: $ACCEL ($ACCEL_WHY), $LDESC, root over $SHARE, timeout ${t}s; console in ${log#"$TOP"/}"
	start=$SECONDS
	run_guest "$log" "$t" "${QCMD[@]}"
	kill_virtiofsd
	case $GUEST_RC in
	0) why="QEMU exited before the runner's last line" ;;
	124) why="timed out after ${t}s (the leg's timeout, RFS_VM_TIMEOUT, or what was left of RFS_VM_BUDGET)" ;;
	*) why="QEMU exited $GUEST_RC" ;;
	esac
	grep -q 'Kernel panic' "$log" && why="$why; the kernel panicked"
	say "$name: guest ran $(fmt_secs $((SECONDS - start)))"
	tally "$log" "$name" "$why"
}

LEGS="debian rt cloud order host"

usage()
{
	echo "Usage: $0 [${LEGS// /] [}]" >&2
	exit 2
}

# shellcheck disable=SC2086	# the list of legs
(($# > 0)) || set -- $LEGS
for k in "$@"; do
	case " $LEGS " in *" $k "*) ;; *) usage ;; esac
done

check_qemu
for k in "$@"; do
	run_kernel "$k"
done
echo "kernels: $n_pass passed, $n_fail failed, $n_skip skipped"
((n_fail == 0))
