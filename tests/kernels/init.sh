#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the kernel-test guest's initramfs (busybox sh; tests/kernels/
# run.sh builds the initramfs around it).  It loads the modules the guest
# needs to reach its root (virtio-pci and 9p over virtio, or virtiofs for
# a kernel without 9p, from the tested kernel's own package: run.sh
# picks them per kernel), mounts the host's / read-only as the guest's
# root, gives it writable tmpfs where the tests write (/tmp, /run,
# /var/tmp, /root), mounts proc, sysfs, devtmpfs, bpffs, tracefs, debugfs
# and cgroup2 there, and hands over to the runner (tests/kernels/guest.sh
# on the shared checkout) as PID 1.
#
# Its settings come from /rfs.env (written by run.sh): RFS_VM_RUNNER, the
# runner's path on the host's root, and the rest for the runner, which
# reads them from /run/rfs.env.  RFS_VM_PROBE=1 only prints a marker and
# powers off: run.sh's check that an accelerator boots at all.

PATH=/bin
export PATH

say() { echo "rfs-init: $*"; }

# The end: power off, so QEMU (-no-reboot) exits.  A panic (panic=-1 on
# the command line) does the same if the sysrq is refused.
halt()
{
	sync
	echo o > /proc/sysrq-trigger
	sleep 5
	poweroff -f
}

/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /newroot
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo 1 > /proc/sys/kernel/sysrq

# shellcheck source=/dev/null
. /rfs.env

if [ "${RFS_VM_PROBE:-0}" = 1 ]; then
	say "probe ok: $(uname -r)"
	halt
fi

# modules.load lists the .ko files in dependency order
while read -r m; do
	[ -n "$m" ] || continue
	err=$(insmod "/modules/$m" 2>&1) ||
		case $err in
		*"File exists"*) ;;
		*) say "insmod $m: $err" ;;
		esac
done < /modules.load

# the host's / read-only: over 9p (virtme's tag), or virtiofs
mount_root()
{
	case ${RFS_VM_SHARE:-9p} in
	virtiofs)
		mount -t virtiofs -o ro rfsroot /newroot ;;
	*)
		mount -t 9p -o "trans=virtio,version=9p2000.L,ro,msize=${RFS_VM_MSIZE:-524288}${RFS_VM_9P_CACHE:+,cache=$RFS_VM_9P_CACHE}" \
			/dev/root /newroot ;;
	esac
}
if ! mount_root; then
	say "FATAL: can't mount the host's root over ${RFS_VM_SHARE:-9p}"
	halt
fi

# The checkout, its build and the kernel's modules may be under a directory
# that gets a tmpfs below (a clean clone in /tmp): keep a bind of each,
# and put it back in place on the tmpfs.
n=0
for p in "$RFS_VM_TOP" "$RFS_VM_BUILD" "${RFS_VM_MODROOT:-}"; do
	case $p/ in
	/tmp/*|/var/tmp/*|/root/*|/run/*) ;;
	*) continue ;;
	esac
	mkdir -p "/keep/$n" && mount --bind "/newroot$p" "/keep/$n" &&
		echo "$n $p" >> /keep.list
	n=$((n + 1))
done
for d in tmp var/tmp root; do
	mount -t tmpfs -o mode=1777 tmpfs "/newroot/$d" ||
		say "can't mount tmpfs on /$d"
done
chmod 0700 /newroot/root
mount -t tmpfs -o mode=0755 tmpfs /newroot/run
if [ -e /keep.list ]; then
	while read -r n p; do
		if ! { mkdir -p "/newroot$p" &&
		       mount --bind "/keep/$n" "/newroot$p"; }; then
			say "can't keep $p visible"
		fi
	done < /keep.list
fi
mkdir -p /newroot/run/netns /newroot/run/lock
# the tested kernel's config where a Debian system has it (rfsd reads
# CONFIG_HZ there); the host's /boot is not this kernel's
kconfig=${RFS_VM_MODROOT:+/newroot$RFS_VM_MODROOT/boot/config-$(uname -r)}
if [ -n "$kconfig" ] && [ -r "$kconfig" ]; then
	if ! { mount -t tmpfs -o mode=0755 tmpfs /newroot/boot &&
	       cp "$kconfig" /newroot/boot/; }; then
		say "can't put the kernel's config in /boot"
	fi
fi

mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
# what udev would add: bash's <(...) needs /dev/fd
ln -sf /proc/self/fd /newroot/dev/fd
ln -sf /proc/self/fd/0 /newroot/dev/stdin
ln -sf /proc/self/fd/1 /newroot/dev/stdout
ln -sf /proc/self/fd/2 /newroot/dev/stderr
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
mount -t bpf -o mode=0700 bpffs /newroot/sys/fs/bpf
mount -t tracefs tracefs /newroot/sys/kernel/tracing
mount -t debugfs debugfs /newroot/sys/kernel/debug
mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup
cp /rfs.env /newroot/run/rfs.env

if [ ! -x "/newroot$RFS_VM_RUNNER" ]; then
	say "FATAL: no runner $RFS_VM_RUNNER on the shared root"
	halt
fi
say "root mounted, starting $RFS_VM_RUNNER"
# shellcheck disable=SC2093	# only reached if switch_root fails
exec switch_root /newroot /bin/bash "$RFS_VM_RUNNER"
say "FATAL: switch_root failed"
halt
