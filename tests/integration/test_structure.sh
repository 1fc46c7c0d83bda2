#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The daemon's structure, read from what make built:
#
#   - no dependency cycle between object files: in the graph "A needs a
#     symbol B defines" (nm), no two objects need each other, directly or
#     around a loop.  Checked for rfsd (its objects and the library's),
#     for rfsctl (its objects and the library objects it pulls in) and for
#     daemon/lib alone;
#   - layering: daemon/lib needs nothing of rfsd's or rfsctl's (no symbol
#     they define, no header of theirs), and rfsd and rfsctl need nothing
#     of each other's: files are cut by concern, and a concern shared by
#     both sides lives in the library;
#   - rfsctl links only what it uses: no libbpf, libxdp, libelf, libz on
#     its link line or in its NEEDED entries, and neither rfsd nor rfsctl
#     has a NEEDED library it does not use (ldd -u).
#
#	tests/integration/test_structure.sh [TEST...]
#
# Builds nothing: `make check` builds first.  RFS_BUILD (default build) is
# where the objects are.  Exit 0 if every test passed, 249 (skip) without
# nm, 1 otherwise.  No root needed.

# shellcheck disable=SC2317  # the test_* functions are called by name
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${RFS_BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
SKIP=249

ALL_TESTS="
	test_no_cycles_lib
	test_no_cycles_rfsd
	test_no_cycles_rfsctl
	test_layering
	test_rfsctl_libs
	test_unused_libs
"

if ! command -v nm >/dev/null 2>&1; then
	echo "nm not found"
	exit $SKIP
fi

FAILED=0

fail()
{
	echo "  FAIL: $*"
	FAILED=1
}

# The objects of one daemon/ folder, one for each source there (a stale
# object whose source is gone is not read); a missing one fails.
objects()	# DIR (rfsd, lib, rfsctl)
{
	local src obj

	for src in "$ROOT"/daemon/"$1"/*.c; do
		obj=$BUILD/daemon/$1/$(basename "${src%.c}").o
		if [[ -f $obj ]]; then
			echo "$obj"
		else
			echo "missing $obj" >&2
		fi
	done
}

# "D obj sym" for every global symbol obj defines, "U obj sym" for every
# one it needs; obj relative to $BUILD/daemon.  One nm for all objects:
# each run of nm costs far more than its reading.
symbols()	# OBJ...
{
	local prefix=$BUILD/daemon/

	{
		nm -A -g --defined-only "$@" | sed 's/^/D /'
		nm -A -u "$@" | sed 's/^/U /'
	} | awk -v prefix="$prefix" '
	{
		# "D path:value T name" or "U path: U name"
		obj = $2
		sub(/:[0-9a-fA-F]*$/, "", obj)
		if (index(obj, prefix) == 1)
			obj = substr(obj, length(prefix) + 1)
		if ($1 == "D" && NF < 4)
			next
		print $1, obj, $NF
	}'
}

# Reads symbols(); ROOTS (space-separated, empty: every object) are where
# the link starts: only the objects they reach count, as in a link that
# pulls what it needs.  Prints each cycle (strongly connected component of
# more than one object) with the edges inside it, and "ok N" when none.
# shellcheck disable=SC2016  # an awk program, not shell
cycles_awk='
$1 == "D" { def[$3] = def[$3] " " $2; node[$2] = 1; next }
$1 == "U" { need[$2, $3] = 1; node[$2] = 1; next }
END {
	for (k in need) {
		split(k, p, SUBSEP)
		n = split(def[p[2]], to, " ")
		for (i = 1; i <= n; i++) {
			if (to[i] == p[1])
				continue
			if (!((p[1], to[i]) in edge))
				edge[p[1], to[i]] = p[2]
			else if (length(edge[p[1], to[i]]) < 60)
				edge[p[1], to[i]] = edge[p[1], to[i]] " " p[2]
			adj[p[1]] = adj[p[1]] " " to[i]
		}
	}
	# what the link holds: the roots and everything they reach
	nr = split(roots, r, " ")
	if (nr == 0)
		for (v in node)
			in_link[v] = 1
	for (i = 1; i <= nr; i++) {
		if (!(r[i] in node))
			continue
		in_link[r[i]] = 1
		queue[++qt] = r[i]
	}
	for (qh = 1; qh <= qt; qh++) {
		n = split(adj[queue[qh]], to, " ")
		for (i = 1; i <= n; i++)
			if (!(to[i] in in_link)) {
				in_link[to[i]] = 1
				queue[++qt] = to[i]
			}
	}
	# reach[a, b]: b can be reached from a (a BFS from each object)
	for (a in in_link) {
		delete seen
		qt = 0
		queue[++qt] = a
		seen[a] = 1
		for (qh = 1; qh <= qt; qh++) {
			n = split(adj[queue[qh]], to, " ")
			for (i = 1; i <= n; i++)
				if ((to[i] in in_link) && !(to[i] in seen)) {
					seen[to[i]] = 1
					reach[a, to[i]] = 1
					queue[++qt] = to[i]
				}
		}
	}
	found = 0
	for (a in in_link) {
		if (a in done)
			continue
		members = a
		cnt = 1
		done[a] = 1
		for (b in in_link)
			if (b != a && ((a, b) in reach) && ((b, a) in reach)) {
				members = members " " b
				done[b] = 1
				cnt++
			}
		if (cnt < 2)
			continue
		found++
		print "cycle of " cnt " objects:"
		n = split(members, m, " ")
		for (i = 1; i <= n; i++)
			for (j = 1; j <= n; j++)
				if (i != j && ((m[i], m[j]) in edge))
					print "    " m[i] " needs " m[j] ": " \
					      edge[m[i], m[j]]
	}
	if (!found)
		print "ok " length(in_link)
}'

check_cycles()	# LABEL ROOTS OBJ...
{
	local label=$1 roots=$2 out line
	shift 2

	out=$(symbols "$@" | awk -v roots="$roots" "$cycles_awk")
	if [[ $out == "ok "* ]]; then
		echo "    $label: ${out#ok } objects, no cycle"
		return
	fi
	fail "$label: objects that need each other"
	while IFS= read -r line; do
		echo "    $line"
	done <<<"$out"
}

read_objects()	# DIR -> OBJS
{
	local missing
	missing=$(objects "$1" 2>&1 >/dev/null)
	mapfile -t OBJS < <(objects "$1" 2>/dev/null)
	if [[ -n $missing ]]; then
		fail "daemon/$1 not built (run make): $missing"
		return 1
	fi
}

test_no_cycles_lib()
{
	read_objects lib || return
	check_cycles lib "" "${OBJS[@]}"
}

test_no_cycles_rfsd()
{
	local lib
	read_objects lib || return
	lib=("${OBJS[@]}")
	read_objects rfsd || return
	# the Makefile links every library object into rfsd
	check_cycles rfsd "" "${OBJS[@]}" "${lib[@]}"
}

test_no_cycles_rfsctl()
{
	local lib roots o
	read_objects lib || return
	lib=("${OBJS[@]}")
	read_objects rfsctl || return
	roots=""
	for o in "${OBJS[@]}"; do
		roots+=" ${o#"$BUILD"/daemon/}"
	done
	check_cycles rfsctl "$roots" "${OBJS[@]}" "${lib[@]}"
}

# The global symbols the objects of directory $1 (under $BUILD/daemon)
# define, one per line.
defined_in()
{
	nm --defined-only -g "$BUILD/daemon/$1"/*.o 2>/dev/null |
		awk 'NF == 3 { print $3 }' | sort -u
}

# The symbols the objects of directory $1 need from elsewhere.
needed_by()
{
	nm -u "$BUILD/daemon/$1"/*.o 2>/dev/null | awk 'NF == 2 { print $2 }' |
		sort -u
}

# Headers of directory $2 that files of directory $1 include.
includes_of()
{
	local h

	for h in "$ROOT/daemon/$2"/*.h; do
		[ -e "$h" ] || continue
		grep -l "#include \"${h##*/}\"" "$ROOT/daemon/$1"/*.[ch] \
			2>/dev/null | sed "s|\$|: ${h##*/}|"
	done
}

test_layering()
{
	local from to bad

	for from in lib rfsd rfsctl; do
		for to in rfsd rfsctl; do
			[ "$from" = "$to" ] && continue
			bad=$(comm -12 <(needed_by "$from") <(defined_in "$to"))
			[ -z "$bad" ] ||
				fail "daemon/$from needs $(echo $bad) of daemon/$to"
			bad=$(includes_of "$from" "$to")
			[ -z "$bad" ] ||
				fail "daemon/$from includes daemon/$to's headers: $bad"
		done
	done
}

# The libraries rfsctl must not need: the datapath's.
RFSCTL_NOT='libbpf|libxdp|libelf|libz'

test_rfsctl_libs()
{
	local rfsctl=$BUILD/rfsctl line needed bad

	if [[ ! -x $rfsctl ]]; then
		fail "$rfsctl not built (run make)"
		return
	fi
	needed=$(readelf -d "$rfsctl" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	bad=$(grep -E "^($RFSCTL_NOT)\." <<<"$needed")
	[[ -z $bad ]] || fail "rfsctl needs ${bad//$'\n'/ }"
	# the link line, as make would run it now (-n: nothing is built)
	line=$(make -C "$ROOT" --no-print-directory -n -B B="${BUILD#"$ROOT"/}" \
		"${BUILD#"$ROOT"/}/rfsctl" 2>/dev/null |
		grep -E -- "-o [^ ]*/rfsctl( |$)")
	if [[ -z $line ]]; then
		fail "can't find rfsctl's link line in make -n"
	elif grep -qE -- "-l(bpf|xdp|elf|z)( |$)" <<<"$line"; then
		fail "rfsctl's link line has the datapath's libraries: $line"
	fi
}

test_unused_libs()
{
	local bin out

	for bin in rfsd rfsctl; do
		if [[ ! -x $BUILD/$bin ]]; then
			fail "$BUILD/$bin not built (run make)"
			continue
		fi
		# run.sh preloads stdbuf: not a dependency of the binary
		out=$(env -u LD_PRELOAD ldd -u "$BUILD/$bin" 2>/dev/null |
			awk '$1 ~ /^\// { printf "%s%s", sep, $1; sep = " " }')
		[[ -z $out ]] ||
			fail "$bin needs libraries it does not use: $out"
	done
}

TESTS=${*:-$ALL_TESTS}
for t in $TESTS; do
	echo "$t"
	"$t"
done
if ((FAILED)); then
	echo "test_structure: FAILED"
	exit 1
fi
echo "test_structure: all passed"
exit 0
