# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A real systemd for the tests that need one (this machine's PID 1 may not
# be systemd): a minimal Debian tree, made once with debootstrap and kept
# under build/nspawn/, booted with systemd-nspawn.  Sourced after
# tests/lib/lab.sh, never run.
#
# The container shares the host's network namespace (no --private-network:
# rfsd inside attaches to the lab's veth, which lives in the root
# namespace) and the host's bpffs (--bind=/sys/fs/bpf: the pins outlive
# the container, as they outlive rfsd.service on a host).  The tree is
# booted with --volatile=overlay, so nothing a boot writes reaches the
# cache.  The build directory is bind-mounted read-only at the same path,
# so the unit's ExecStart names the binary under test; the unit itself,
# /etc/default/rfsd and /etc/rfs come read-only from $NSPAWN_ETC, which
# the test fills.  nspawn's own seccomp filter allows bpf() and
# perf_event_open() only when asked (--system-call-filter), and its
# capability set lacks CAP_BPF and CAP_PERFMON unless --capability=all:
# what the container gets beyond that is what the unit gives rfsd.
#
# Without systemd on the host nspawn can't register a machine or make a
# scope: it runs with --register=no --keep-unit and makes its cgroups
# (payload/, supervisor/) under the cgroup it was started in; so it is
# started in one of its own, rfssd$LAB_ID, in each hierarchy systemd uses
# (cgroup2, and name=systemd on hybrid hosts), removed by nspawn_down.
#
#	. tests/lib/lab.sh; . tests/lib/nspawn.sh
#	nspawn_tree || skip "$NSPAWN_WHY"
#	nspawn_boot || fail "$NSPAWN_WHY"
#	sd systemctl start rfsd		(any command, inside the container)
#	nspawn_down			(before lab_down: rfsd --cleanup then
#					 finds the pin dir free)
#
# RFS_NSPAWN_TREE overrides where the tree is kept; RFS_NSPAWN_MIRROR the
# Debian mirror (default: the one apt uses here).

NSPAWN_CODENAME=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-bookworm}")
NSPAWN_TREE=${RFS_NSPAWN_TREE:-$LAB_TOP/build/nspawn/debian-$NSPAWN_CODENAME}
NSPAWN_MACHINE=rfssd$LAB_ID
NSPAWN_ETC=$LAB_DIR/nspawn-etc
NSPAWN_PID=
NSPAWN_LEADER=
NSPAWN_CGROUPS=()
NSPAWN_WHY=
# what the tree needs besides rfsd's libraries: an init, and /bin/kill
# for ExecReload
NSPAWN_BASE_PKGS="systemd systemd-sysv procps"

# The Debian mirror apt uses for this release (one-line .list or deb822
# .sources), else deb.debian.org.
nspawn_mirror()
{
	local f m=
	[ -n "${RFS_NSPAWN_MIRROR:-}" ] && { echo "$RFS_NSPAWN_MIRROR"; return; }
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		m=$(awk -v s="$NSPAWN_CODENAME" '$1 == "deb" {
			i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++
			if ($i ~ /^\[/ || $i ~ /\]$/) i++
			if ($(i + 1) == s && $i !~ /security/) { print $i; exit } }' "$f")
		[ -n "$m" ] && break
	done
	if [ -z "$m" ]; then
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			# paragraphs: URIs and Suites of the same stanza
			m=$(awk -v s="$NSPAWN_CODENAME" '
				/^$/ { u = ""; ok = 0 }
				/^URIs:/ { u = $2 }
				/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
				u != "" && ok && u !~ /security/ { print u; exit }' "$f")
			[ -n "$m" ] && break
		done
	fi
	echo "${m:-http://deb.debian.org/debian}"
}

# The Debian packages of the shared libraries binary $1 links (ldd, then
# dpkg -S, trying both sides of the /usr merge).
nspawn_lib_pkgs()
{
	local lib p alt pkg
	ldd "$1" 2>/dev/null | awk '$3 ~ /^\// { print $3 }' |
	while read -r lib; do
		alt=${lib#/usr}
		[ "$alt" = "$lib" ] && alt=/usr$lib
		for p in "$lib" "$alt" "$(readlink -f "$lib")"; do
			pkg=$(dpkg -S "$p" 2>/dev/null | head -n 1)
			[ -n "$pkg" ] && { echo "$pkg"; break; }
		done
	done | cut -d: -f1 | sort -u | tr '\n' ' '
}

# Packages of $@ not installed in the tree.
nspawn_missing()
{
	local p
	for p in "$@"; do
		dpkg-query --admindir="$NSPAWN_TREE/var/lib/dpkg" -W \
			-f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || echo "$p"
	done
}

# Remove a tree, or what is left of one.  A debootstrap killed midway (a
# CI run stopped in test_systemd) leaves its target's /proc and /sys
# mounted: unmount everything under $1, deepest first, and never follow
# rm into another filesystem.  1 if anything is left.
nspawn_rm_tree()
{
	local dir=$1 mp
	[ -e "$dir" ] || return 0
	awk -v d="$dir/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo |
		sort -r | while read -r mp; do
			umount -l "$mp" 2>/dev/null
		done
	rm -rf --one-file-system "$dir" 2>/dev/null
	[ ! -e "$dir" ]
}

# Build the tree once (or add what rfsd links that it lacks); under a lock,
# so parallel runs build it once.  1 and NSPAWN_WHY when it can't be had.
nspawn_tree()
{
	local lockfd rc=0
	lab_need systemd-nspawn debootstrap nsenter unshare flock ldd
	mkdir -p "$(dirname "$NSPAWN_TREE")" ||
		{ NSPAWN_WHY="can't create $(dirname "$NSPAWN_TREE")"; return 1; }
	exec {lockfd}> "$NSPAWN_TREE.lock"
	flock "$lockfd"
	nspawn_tree_locked || rc=$?
	exec {lockfd}>&-
	return $rc
}

nspawn_tree_locked()
{
	local pkgs missing mirror log=$LAB_DIR/debootstrap.log rc=0
	pkgs="$NSPAWN_BASE_PKGS $(nspawn_lib_pkgs "$RFSD")"
	if [ ! -x "$NSPAWN_TREE/lib/systemd/systemd" ]; then
		mirror=$(nspawn_mirror)
		lab_msg "    building the Debian $NSPAWN_CODENAME tree for systemd-nspawn (once; minutes): $NSPAWN_TREE from $mirror"
		nspawn_rm_tree "$NSPAWN_TREE.new" ||
			{ NSPAWN_WHY="can't remove the half-built $NSPAWN_TREE.new"; return 1; }
		# shellcheck disable=SC2086	# a list of words
		debootstrap --variant=minbase --include="$(echo $pkgs | tr ' ' ,)" \
			"$NSPAWN_CODENAME" "$NSPAWN_TREE.new" "$mirror" \
			> "$log" 2>&1 || rc=$?
		if [ $rc -ne 0 ]; then
			NSPAWN_WHY="debootstrap $NSPAWN_CODENAME from $mirror failed (exit $rc): $(grep -E '^E:|^W:' "$log" | tail -n 1)"
			nspawn_rm_tree "$NSPAWN_TREE.new"
			return 1
		fi
		nspawn_rm_tree "$NSPAWN_TREE" ||
			{ NSPAWN_WHY="can't remove the old $NSPAWN_TREE"; return 1; }
		mv "$NSPAWN_TREE.new" "$NSPAWN_TREE"
	fi
	# shellcheck disable=SC2086
	missing=$(nspawn_missing $pkgs | tr '\n' ' ')
	[ -n "${missing// /}" ] || return 0
	lab_msg "    adding to the tree: $missing"
	# apt in a chroot, /proc mounted in a mount namespace of its own
	# shellcheck disable=SC2016
	unshare -m sh -c 'mount -t proc proc "$1/proc" &&
		DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -q \
			--no-install-recommends $2' sh "$NSPAWN_TREE" "$missing" \
		> "$log" 2>&1 || rc=$?
	[ $rc -eq 0 ] && return 0
	NSPAWN_WHY="can't install $missing in $NSPAWN_TREE: $(grep -E '^E:' "$log" | tail -n 1)"
	return 1
}

# The mount points of the hierarchies nspawn puts its cgroups in: the
# cgroup2 one, and the name=systemd one on hybrid hosts.
nspawn_cg_mounts()
{
	awk '{ for (i = 7; $i != "-"; i++) ; t = $(i + 1); o = $(i + 3)
		if (t == "cgroup2" || (t == "cgroup" && o ~ /(^|,)name=systemd(,|$)/))
			print $5 }' /proc/self/mountinfo
}

# Boot the tree; extra arguments go to systemd-nspawn.  Waits until the
# container's systemd has finished starting up (running or degraded).
# NSPAWN_LEADER: the container's PID 1, as the host sees it.
nspawn_boot()
{
	local mp i state procs=()
	mkdir -p "$NSPAWN_ETC"
	for mp in $(nspawn_cg_mounts); do
		mkdir -p "$mp/$NSPAWN_MACHINE" ||
			{ NSPAWN_WHY="can't create cgroup $mp/$NSPAWN_MACHINE"; return 1; }
		NSPAWN_CGROUPS+=("$mp/$NSPAWN_MACHINE")
		procs+=("$mp/$NSPAWN_MACHINE/cgroup.procs")
	done
	cat > "$LAB_DIR/nspawn-run" <<'EOF'
#!/bin/sh
# into our own cgroups, then become systemd-nspawn (same PID)
while [ "$1" != -- ]; do echo $$ > "$1" || exit 1; shift; done
shift
exec systemd-nspawn "$@"
EOF
	chmod +x "$LAB_DIR/nspawn-run"
	lab_bg "$LAB_DIR/nspawn-run" "${procs[@]}" -- \
		--quiet --boot --directory="$NSPAWN_TREE" --volatile=overlay \
		--register=no --keep-unit --machine="$NSPAWN_MACHINE" \
		--console=passive --capability=all \
		--system-call-filter='bpf perf_event_open' \
		--bind=/sys/fs/bpf --bind-ro="$LAB_BUILD" "$@" \
		</dev/null >"$LAB_DIR/nspawn.log" 2>&1
	NSPAWN_PID=$LAB_BG_PID
	for ((i = 0; i < 300; i++)); do
		lab_alive "$NSPAWN_PID" || {
			NSPAWN_WHY="systemd-nspawn exited: $(tail -n 3 "$LAB_DIR/nspawn.log" | tr '\n' ' ')"
			return 1
		}
		NSPAWN_LEADER=$(pgrep -P "$NSPAWN_PID" -x systemd | head -n 1)
		[ -n "$NSPAWN_LEADER" ] && break
		sleep 0.1
	done
	[ -n "$NSPAWN_LEADER" ] ||
		{ NSPAWN_WHY="no systemd in the container after 30 s"; return 1; }
	# its bus socket may not be there yet: ask until it answers
	for ((i = 0; i < 600; i++)); do
		state=$(sd systemctl is-system-running 2>/dev/null)
		case $state in
		running|degraded) return 0 ;;
		esac
		lab_alive "$NSPAWN_PID" || break
		sleep 0.1
	done
	NSPAWN_WHY="the container's systemd did not finish starting up in 60 s: '$state'; $(tail -n 3 "$LAB_DIR/nspawn.log" | tr '\n' ' ')"
	return 1
}

# Run a command in the container (every namespace of its PID 1).
sd()
{
	SYSTEMD_PAGER=cat SYSTEMD_COLORS=0 \
		nsenter -t "$NSPAWN_LEADER" -a -- "$@"
}

# Power the container off (nspawn turns SIGTERM into the container's
# poweroff), KILL it after 30 s; remove its cgroups.  Safe to call twice.
nspawn_down()
{
	local cg i
	if [ -n "$NSPAWN_PID" ] && lab_alive "$NSPAWN_PID"; then
		kill -TERM "$NSPAWN_PID" 2>/dev/null
		lab_wait "$NSPAWN_PID" 30 >/dev/null 2>&1
		if lab_alive "$NSPAWN_PID"; then
			lab_warn "systemd-nspawn did not power off in 30 s; killing it"
			kill -KILL "$NSPAWN_PID" 2>/dev/null
			lab_wait "$NSPAWN_PID" 5 >/dev/null 2>&1
		fi
	fi
	NSPAWN_PID=
	NSPAWN_LEADER=
	# deepest first; a cgroup is empty a moment after its last process
	# exited, so try for a while; one with a process left in it stays
	# (rmdir fails): nothing is killed by cgroup
	for cg in "${NSPAWN_CGROUPS[@]}"; do
		for ((i = 0; i < 100; i++)); do
			[ -d "$cg" ] || break
			find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null
			sleep 0.1
		done
		[ -d "$cg" ] && lab_warn "cgroup $cg is left: not empty"
	done
	NSPAWN_CGROUPS=()
	return 0
}
