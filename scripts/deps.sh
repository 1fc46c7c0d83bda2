#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages xdp-rfs needs to build, test and run its demo,
# only those missing.  Run as root on Debian 12 (make deps does it).
#   scripts/deps.sh package   also what make deb, image and check-package
#                             need (contrib/README.md): not for make check
set -eu

PKGS="clang llvm make gcc pkg-config libbpf-dev libxdp-dev xdp-tools bpftool
libelf-dev zlib1g-dev libcmocka-dev libinih-dev libsystemd-dev libjson-c-dev
libmnl-dev iproute2 ethtool iputils-ping sockperf iperf3 linux-perf
systemd procps python3 clang-16 libfuzzer-16-dev libclang-rt-16-dev
qemu-system-x86 busybox-static cpio kmod
systemd-container debootstrap util-linux libncurses-dev tmux gnuplot-nox
libmicrohttpd-dev prometheus curl"
[ "${1:-}" = package ] && PKGS="$PKGS
debhelper devscripts lintian podman runc yamllint"
# libncurses-dev: rfsctl top's live view; tmux: tests/integration/
# test_top.sh runs it in a detached 80x24 session and reads the pane
# systemd-container, debootstrap: tests/integration/test_systemd.sh boots a
# Debian tree under systemd-nspawn to run rfsd.service under a real systemd
# gnuplot-nox: bench/report.sh draws the bench's plots (PNG, no X)
# libmicrohttpd-dev: rfsd's /metrics endpoint (metrics_listen); prometheus:
# promtool and a real server for tests/integration/test_metrics.sh; curl
# scrapes the endpoint there.  (On a systemd host, installing prometheus
# also enables its own service on :9090; the tests never use that one.)

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing; run 'sudo make deps'" >&2
	exit 1
fi
echo "  DEPS  installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
