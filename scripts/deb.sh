#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian package of this tree, built with dpkg-buildpackage
# in a copy of it (the tree's files as they are, tracked and untracked,
# ignored ones left out), so debhelper's leftovers never land in the
# checkout.  Then lintian on the result.
#
#	scripts/deb.sh [--version VERSION] [--out DIR] [--no-lintian]
#
# --version: the package's version in the copy's debian/changelog (a new
#            entry on top, as dch makes it); the tree's is left alone.
#            tests/package/test_upgrade.sh builds its version N+1 so.
# --out:     where the .deb goes (default build/deb).
# Prints the path of the .deb on the last line.  DEB_BUILD_OPTIONS is
# passed through (nocheck skips the unit tests).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
version=
lintian=1
while [ $# -gt 0 ]; do
	case $1 in
	--version) version=$2; shift ;;
	--out) out=$2; shift ;;
	--no-lintian) lintian= ;;
	*) echo "deb: unknown argument '$1'; usage: $0 [--version V] [--out DIR] [--no-lintian]" >&2
	   exit 2 ;;
	esac
	shift
done
for c in dpkg-buildpackage dh dch; do
	command -v "$c" >/dev/null ||
		{ echo "deb: '$c' is missing: sudo scripts/deps.sh package" >&2; exit 1; }
done
[ -z "$lintian" ] || command -v lintian >/dev/null ||
	{ echo "deb: 'lintian' is missing: sudo scripts/deps.sh package" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xdp-rfs-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=$tmp/xdp-rfs
mkdir -p "$src" "$out"
# the tree as it is: what git knows of, and new files not ignored
git -C "$top" ls-files -z --cached --others --exclude-standard |
	(cd "$top" && xargs -0 cp --parents -d -t "$src" 2>/dev/null) ||
	{ echo "deb: can't copy the tree to $src" >&2; exit 1; }
# git ls-files lists deleted files too: cp skipped them, fine
commit=$(git -C "$top" describe --always --dirty --abbrev=12 --match=NONE \
	2>/dev/null || echo unknown)

if [ -n "$version" ]; then
	(cd "$src" && DEBEMAIL="$(dpkg-parsechangelog -S Maintainer)" \
		dch --newversion "$version" --force-bad-version \
		--distribution unstable "Rebuild as $version." >/dev/null 2>&1) ||
		{ echo "deb: dch --newversion $version failed" >&2; exit 1; }
fi
ver=$(cd "$src" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)

echo "  DEB     xdp-rfs $ver ($arch), commit $commit, in $src"
(cd "$src" && RFS_UPSTREAM_COMMIT=$commit \
	dpkg-buildpackage -b -us -uc -j"$(nproc)" > "$tmp/build.log" 2>&1) || {
	echo "deb: dpkg-buildpackage failed; the last lines of its log:" >&2
	tail -n 30 "$tmp/build.log" >&2
	exit 1
}
deb=xdp-rfs_${ver}_$arch.deb
cp "$tmp/$deb" "$out/"
cp "$tmp/build.log" "$out/build-$ver.log"
if [ -n "$lintian" ]; then
	echo "  LINTIAN $deb"
	# errors fail the build; warnings are listed (contrib/README.md
	# says which are kept and why)
	lintian --fail-on error --info "$tmp/xdp-rfs_${ver}_$arch.changes" |
		tee "$out/lintian-$ver.txt" || {
		echo "deb: lintian found errors in $deb" >&2
		exit 1
	}
fi
echo "$out/$deb"
