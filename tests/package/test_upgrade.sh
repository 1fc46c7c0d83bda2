#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package through its package manager, under a real systemd
# (tests/lib/nspawn.sh: a Debian tree booted with systemd-nspawn, sharing
# the host's network namespace and bpffs): apt installs version N, which
# starts rfsd.service and attaches the lab veth; numbered UDP flows while
# apt installs version N+1 (same code, a newer changelog entry), whose
# postinst restarts rfsd: no datagram reordered or lost, the same XDP
# program on the link, and rfsctl status names the new build; the
# /metrics socket unit is installed and off.  apt remove then leaves no
# XDP program and no pins (prerm's rfsd --cleanup), apt purge no config.
#
#	tests/package/test_upgrade.sh [test_name...]
#
# The packages: RFS_DEB_N and RFS_DEB_N1 (paths of the two .deb files);
# make check-package builds them (scripts/deb.sh) and sets both.
# The package's pin dir is the default, /sys/fs/bpf/rfs, in the host's
# bpffs: the test skips when something is pinned there already.
#
# Exit: 0 all passed, 249 all skipped, 1 a failure.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_install_upgrade_remove_purge
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/nspawn.sh"
SEQ=$LAB_BUILD/tests/rfs_seq

# dpkg needs adduser for the package's postinst (addgroup)
NSPAWN_BASE_PKGS="$NSPAWN_BASE_PKGS adduser"
PKG_PIN=/sys/fs/bpf/rfs
PKG_PIN_MADE=
PKG_XDP_OWNER=$(stat -c %u:%g /sys/fs/bpf/xdp 2>/dev/null)
PKG_DEBS=$LAB_DIR/debs
SEQ_PORT=$((LAB_PORT + 400))

# The journal of rfsd.service in the container, for fail().
pkg_log()
{
	[ -n "$NSPAWN_LEADER" ] || return 0
	sd journalctl -u rfsd -o cat --no-pager > "$RFSD_LOG" 2>&1
}

pkg_fail()
{
	pkg_log
	LAB_LOG_LINES=25 fail "$@"
}

# What the package's rfsd left at the default pin dir, if this test made
# it: removed the way prerm does (the host's rfsd --cleanup of this
# build), then whatever is left.
pkg_down()
{
	nspawn_down
	# the unit's rfsd-prepare gave libxdp's state dir (the host's,
	# shared with the container) to the container's rfs
	if [ -n "$PKG_XDP_OWNER" ]; then
		chown "$PKG_XDP_OWNER" /sys/fs/bpf/xdp
	fi
	if [ -n "$PKG_PIN_MADE" ] && [ -d "$PKG_PIN" ]; then
		"$RFSD" --cleanup --pin-dir "$PKG_PIN" >/dev/null 2>&1
		rm -rf "$PKG_PIN"
	fi
	lab_down
}

sd_prop() { sd systemctl show -p "$1" --value rfsd; }

# apt in the container, bounded; its output in $LAB_DIR/apt.log.
pkg_apt()
{
	timeout 180 nsenter -t "$NSPAWN_LEADER" -a -- env \
		DEBIAN_FRONTEND=noninteractive apt-get -y -q \
		-o Dpkg::Options::=--force-confold "$@" > "$LAB_DIR/apt.log" 2>&1
}

pkg_setup()
{
	local f
	trap pkg_down EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	lab_require_root
	lab_need_bins
	[ -x "$SEQ" ] || skip "$SEQ is not built (make)"
	for f in "${RFS_DEB_N:-}" "${RFS_DEB_N1:-}"; do
		[ -f "$f" ] ||
			skip "RFS_DEB_N and RFS_DEB_N1 must name the two packages (make check-package builds them)"
	done
	[ -e "$PKG_PIN" ] &&
		skip "$PKG_PIN exists on this host (an rfsd of its own?): the package's default pin dir must be free"
	lab_up
	mkdir -p "$PKG_DEBS"
	cp "$RFS_DEB_N" "$RFS_DEB_N1" "$PKG_DEBS/"
	nspawn_tree || skip "no Debian tree for systemd-nspawn: $NSPAWN_WHY"
	PKG_PIN_MADE=1
	nspawn_boot --bind-ro="$PKG_DEBS:/debs" ||
		skip "can't boot a systemd container here: $NSPAWN_WHY"
	say "container $NSPAWN_MACHINE up (systemd $(sd systemctl --version | awk 'NR == 1 { print $2 }'))"
	# lab.sh's ctl and ctlj reach rfsd through the container's root
	# shellcheck disable=SC2034
	RFS_SOCK=/proc/$NSPAWN_LEADER/root/run/rfs/rfsd.sock
}

# Version of a .deb file.
deb_version() { dpkg-deb -f "$1" Version; }

test_install_upgrade_remove_purge()
{
	local vn vn1 prog pid sent recv inv lost commit i left f st
	pkg_setup
	vn=$(deb_version "$RFS_DEB_N")
	vn1=$(deb_version "$RFS_DEB_N1")
	dpkg --compare-versions "$vn1" gt "$vn" ||
		fail "version N+1 ($vn1) is not newer than N ($vn)"

	# the admin's config, before the package: postinst starts rfsd with it
	sd sh -c "mkdir -p /etc/rfs && printf '[interface %s]\n' '$LAB_A' > /etc/rfs/rfsd.conf" ||
		fail "can't write /etc/rfs/rfsd.conf in the container"
	pkg_apt install "/debs/${RFS_DEB_N##*/}" ||
		pkg_fail "apt install of $vn failed: $(tail -n 5 "$LAB_DIR/apt.log")"
	[ "$(sd_prop ActiveState)" = active ] ||
		pkg_fail "rfsd.service is $(sd_prop ActiveState) after installing $vn"
	[ "$(sd_prop UnitFileState)" = enabled ] ||
		pkg_fail "rfsd.service is $(sd_prop UnitFileState) after installing $vn"
	sd getent group rfs >/dev/null || pkg_fail "no group rfs after installing $vn"
	st=$(sd awk '$1 == "Uid:" { print $2 }' "/proc/$(sd_prop MainPID)/status")
	[ "$st" = "$(sd id -u rfs)" ] || pkg_fail "rfsd runs as uid '$st', not user rfs"
	# /metrics is off unless the admin turns it on, as metrics_listen is
	st="$(sd systemctl show -p UnitFileState --value rfsd-metrics.socket) $(sd systemctl show -p ActiveState --value rfsd-metrics.socket)"
	[ "$st" = "disabled inactive" ] ||
		pkg_fail "rfsd-metrics.socket is '$st' after installing $vn, want disabled and inactive"
	prog=$(lab_xdp_id "$LAB_A")
	[ -n "$prog" ] || pkg_fail "no XDP program on $LAB_A once the package's rfsd started"
	pid=$(sd_prop MainPID)
	commit=$(ctlj status | jget 'd["commit"]')
	[[ $commit == *"+deb$vn" ]] || pkg_fail "rfsctl status says commit '$commit', want *+deb$vn"
	st=$(ctlj status | jget 'd["version"]')
	[ "$st" = "$vn" ] || pkg_fail "rfsctl status says version '$st', want $vn"
	say "installed $vn: rfsd.service active and enabled (PID $pid), group rfs, XDP id $prog on $LAB_A, status commit $commit"

	# version N+1 while numbered datagrams flow
	lab_seq_start "$SEQ_PORT" 10 1000 5
	sleep 2
	pkg_apt install "/debs/${RFS_DEB_N1##*/}" ||
		pkg_fail "apt install of $vn1 failed: $(tail -n 5 "$LAB_DIR/apt.log")"
	say "apt install $vn1 returned"
	lab_seq_result "$SEQ_PORT"
	read -r sent recv inv lost <<< "$SEQ_RESULT"
	[ "$(sd_prop ActiveState)" = active ] ||
		pkg_fail "rfsd.service is $(sd_prop ActiveState) after the upgrade"
	[ "$(sd_prop MainPID)" != "$pid" ] ||
		pkg_fail "the upgrade did not restart rfsd (PID $pid)"
	[ "$(lab_xdp_id "$LAB_A")" = "$prog" ] ||
		pkg_fail "the upgrade replaced the XDP program (was id $prog, now '$(lab_xdp_id "$LAB_A")')"
	sd journalctl -u rfsd -o cat --no-pager | grep -q "adopted datapath from $PKG_PIN: 1 interfaces" ||
		pkg_fail "the new rfsd did not adopt the datapath"
	commit=$(ctlj status | jget 'd["commit"]')
	[[ $commit == *"+deb$vn1" ]] || pkg_fail "rfsctl status says commit '$commit' after the upgrade, want *+deb$vn1"
	st=$(ctlj status | jget 'd["version"]')
	[ "$st" = "$vn1" ] || pkg_fail "rfsctl status says version '$st' after the upgrade, want $vn1"
	say "upgraded to $vn1 under traffic: rfsd PID $pid -> $(sd_prop MainPID), XDP id $prog kept, adopted, status commit $commit"
	say "traffic across the upgrade: sent $sent, received $recv, inversions $inv, lost $lost"
	if [ "$inv" != 0 ] || [ "$lost" != 0 ] || [ "$recv" != "$sent" ]; then
		pkg_fail "across the upgrade: $inv inversions, $lost lost, received $recv of $sent"
	fi

	# remove: stop, then prerm's rfsd --cleanup detaches and unpins
	pkg_apt remove xdp-rfs ||
		pkg_fail "apt remove failed: $(tail -n 5 "$LAB_DIR/apt.log")"
	[ -z "$(lab_xdp_id "$LAB_A")" ] ||
		pkg_fail "an XDP program (id $(lab_xdp_id "$LAB_A")) is left on $LAB_A after apt remove"
	[ "$(sd_prop ActiveState)" = inactive ] ||
		pkg_fail "rfsd.service is $(sd_prop ActiveState) after apt remove"
	left=$(find "$PKG_PIN" 2>/dev/null | head -n 3 | tr '\n' ' ')
	say "removed: no XDP program on $LAB_A, rfsd.service inactive, pins left: '${left:-none}'"
	sd test -e /etc/default/rfsd || pkg_fail "apt remove took the conffile /etc/default/rfsd"

	pkg_apt purge xdp-rfs ||
		pkg_fail "apt purge failed: $(tail -n 5 "$LAB_DIR/apt.log")"
	for ((i = 0; i < 20; i++)); do
		[ -e "$PKG_PIN" ] || break
		sleep 0.1
	done
	[ ! -e "$PKG_PIN" ] || fail "pins left after apt purge: $(find "$PKG_PIN" | head -n 5 | tr '\n' ' ')"
	for f in /etc/rfs /etc/default/rfsd; do
		sd test -e "$f" && fail "$f is left after apt purge"
	done
	# shellcheck disable=SC2016	# dpkg-query's format, not the shell's
	st=$(sd dpkg-query -W -f='${Status}' xdp-rfs 2>/dev/null)
	case $st in
	""|*not-installed) ;;
	*) fail "dpkg says '$st' of xdp-rfs after purge" ;;
	esac
	say "purged: no pins at $PKG_PIN, no /etc/rfs, no /etc/default/rfsd"
}

lab_run_tests test_upgrade "${*:-$ALL_TESTS}"
