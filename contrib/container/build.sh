#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An OCI image of rfsd made from the Debian package, with no registry:
# a Debian root (debootstrap --variant=minbase from the Debian archive, or
# a copy of one already made), the package installed in it with apt, and
# the tree imported with podman.  The image runs rfsd in the foreground;
# contrib/README.md says how to run it (podman, the Kubernetes DaemonSet).
#
#	contrib/container/build.sh DEB [IMAGE]
#
# DEB:   the package (make deb: build/deb/xdp-rfs_VERSION_ARCH.deb)
# IMAGE: the name to give it (default localhost/xdp-rfs:VERSION)
# RFS_IMAGE_BASE=DIR: copy this Debian root instead of running debootstrap
#   (tests/package/test_container.sh passes the nspawn tree of the tests)
# RFS_IMAGE_MIRROR: the Debian mirror for debootstrap (default: the one
#   apt uses here, else deb.debian.org)
# Prints the image's name on the last line.
set -eu

deb=${1:?usage: $0 DEB [IMAGE]}
[ -f "$deb" ] || { echo "image: no package '$deb' (make deb)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "image: run as root (debootstrap, chroot)" >&2; exit 1; }
for c in podman dpkg-deb unshare chroot; do
	command -v "$c" >/dev/null ||
		{ echo "image: '$c' is missing: make deps" >&2; exit 1; }
done
version=$(dpkg-deb -f "$deb" Version)
image=${2:-localhost/xdp-rfs:$version}
codename=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-bookworm}")

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/xdp-rfs-image.XXXXXX")
cleanup()
{
	# a chroot's /proc is mounted in a namespace of its own, gone with
	# it; never follow rm into another filesystem
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
root=$tmp/root

if [ -n "${RFS_IMAGE_BASE:-}" ]; then
	[ -x "$RFS_IMAGE_BASE/usr/bin/apt-get" ] ||
		{ echo "image: $RFS_IMAGE_BASE is no Debian root" >&2; exit 1; }
	echo "  IMAGE   root: a copy of $RFS_IMAGE_BASE"
	cp -a "$RFS_IMAGE_BASE" "$root"
else
	command -v debootstrap >/dev/null ||
		{ echo "image: 'debootstrap' is missing: make deps" >&2; exit 1; }
	mirror=${RFS_IMAGE_MIRROR:-$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)$/\1/p' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)}
	mirror=${mirror:-http://deb.debian.org/debian}
	echo "  IMAGE   root: debootstrap --variant=minbase $codename from $mirror"
	debootstrap --variant=minbase "$codename" "$root" "$mirror" \
		> "$tmp/debootstrap.log" 2>&1 || {
		echo "image: debootstrap failed:" >&2
		grep -E '^[EW]:' "$tmp/debootstrap.log" | tail -n 3 >&2
		exit 1
	}
fi

echo "  IMAGE   installing ${deb##*/}"
cp "$deb" "$root/tmp/"
# apt in a chroot, /proc mounted in a mount namespace of its own; the
# package's postinst makes the rfs group and starts nothing (no systemd)
# shellcheck disable=SC2016
unshare -m sh -c 'mount -t proc proc "$1/proc" &&
	export DEBIAN_FRONTEND=noninteractive &&
	chroot "$1" apt-get update -q &&
	chroot "$1" apt-get install -y -q --no-install-recommends "/tmp/$2" &&
	chroot "$1" apt-get clean' sh "$root" "${deb##*/}" \
	> "$tmp/apt.log" 2>&1 || {
	echo "image: installing the package failed:" >&2
	tail -n 5 "$tmp/apt.log" >&2
	exit 1
}
rm -rf "$root/tmp/${deb##*/}" "$root"/var/lib/apt/lists/* "$root"/var/log/*.log
# no init in the image: rfsd is its only process
echo "  IMAGE   podman import $image"
tar -C "$root" --numeric-owner -cf - . |
	podman import --quiet \
		--change 'ENTRYPOINT ["/usr/sbin/rfsd"]' \
		--change 'CMD []' \
		--change 'STOPSIGNAL SIGTERM' \
		--change "LABEL org.opencontainers.image.title=xdp-rfs" \
		--change "LABEL org.opencontainers.image.version=$version" \
		--change 'LABEL org.opencontainers.image.description=rfsd: Receive Flow Steering on XDP (run with the host network, PID namespace, bpffs and cgroup root; contrib/README.md)' \
		- "$image" >/dev/null
echo "$image"
