#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rfsctl's command line, without rfsd: exit codes (2 bad usage, 1 runtime
# error), error messages, JSON errors under -j, and man/rfsctl.8 against
# the help text (its SYNOPSIS is 'rfsctl help', its COMMANDS subsections
# 'rfsctl COMMAND --help', word for word).
#
#	tests/integration/test_rfsctl_usage.sh [TEST...]
#
# RFSCTL overrides the binary (default $RFS_BUILD/rfsctl, build/rfsctl).  Every command that
# gets past the parser goes to a socket that does not exist, so a usage
# error that slips through shows as exit 1, not as a change to a running
# rfsd.  Exit 0 if every test passed, 1 otherwise.

# shellcheck disable=SC2317  # the test_* functions are called by name
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# tests/run.sh exports RFS_BUILD (build-san under SANITIZE=1)
BUILD=${RFS_BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
RFSCTL=${RFSCTL:-$BUILD/rfsctl}
MAN=${RFSCTL_MAN:-$ROOT/man/rfsctl.8}
NOSOCK=/nonexistent/path
VERSION=$(sed -n 's/^#define RFS_VERSION[[:space:]]*"\(.*\)"/\1/p' \
	"$ROOT/include/rfs_common.h")

ALL_TESTS="
	test_usage_exit_codes
	test_usage_messages
	test_no_daemon
	test_json_errors
	test_help
	test_version
	test_man_synopsis
	test_man_commands
"

FAILED=0
OUT="" ERR="" RC=0

fail()
{
	echo "  FAIL: $*"
	FAILED=1
}

# run ARGS...: OUT, ERR, RC of rfsctl --socket $NOSOCK ARGS
run()
{
	local e
	e=$(mktemp)
	OUT=$(RFS_SOCKET='' "$RFSCTL" --socket "$NOSOCK" "$@" 2>"$e")
	RC=$?
	ERR=$(cat "$e")
	rm -f "$e"
}

# expect_rc RC ARGS...
expect_rc()
{
	local want=$1
	shift
	run "$@"
	[[ $RC -eq $want ]] ||
		fail "rfsctl $* exited $RC, not $want (stderr: ${ERR:-none})"
}

# Bad usage is exit 2, and says what to try.
test_usage_exit_codes()
{
	local args
	expect_rc 2
	[[ $ERR == "rfsctl: missing command, try 'rfsctl help'" ]] ||
		fail "no command: got '$ERR'"
	while IFS= read -r args; do
		[[ -z $args ]] && continue
		eval "set -- $args"
		expect_rc 2 "$@"
		[[ $ERR == *"try 'rfsctl "* ]] ||
			fail "rfsctl $args: no \"try 'rfsctl ...'\" hint in: $ERR"
	done <<'EOF'
''
x
st
stat
s
--bogus
--socket
attach
'attach veth0 veth1'
'attach veth0 --bogus'
'attach veth0 --flow-cnt'
'attach veth0 --flow-cnt 12x'
'attach veth0 --flow-cnt -5'
'attach veth0 --flow-cnt 0'
'attach veth0 --flow-cnt 99999999999'
'attach veth0 --flow-cnt ""'
'attach veth0 --flow-cnt=+5'
'attach veth0 --cpus 0-x'
'attach veth0 --cpus 0-999'
'attach veth0 --cpus 3-1'
'attach veth0 --cpus ""'
'attach veth0 --mode foo'
'attach veth0 --json=yes'
'attach aaaaaaaaaaaaaaaaaaaaaaaa'
'attach a/b'
detach
'detach veth0 veth1'
'status extra'
'stats veth0 veth1'
'flows --limit 0'
'flows --limit x'
'flows --interval -1'
set
'set x'
'set sock-flow-entries'
'set sock-flow-entries 12x'
'set sock-flow-entries -1'
'set sock-flow-entries 1 2'
'set flow-cnt veth0'
'set flow-cnt veth0 abc'
'set cpus veth0'
'set cpus veth0 x'
'help x'
'help st'
'version extra'
EOF
}

# The messages the issue names.
test_usage_messages()
{
	run x
	[[ $ERR == "rfsctl: command 'x' is unknown, try 'rfsctl help'" ]] ||
		fail "unknown command: got '$ERR'"
	run st
	[[ $ERR == "rfsctl: command 'st' is ambiguous"* ]] ||
		fail "ambiguous command: got '$ERR'"
	run attach veth0 --flow-cnt 12x
	[[ $ERR == *12x*"try 'rfsctl attach --help'" ]] ||
		fail "bad number: got '$ERR'"
	run set cpus veth0 0-x
	[[ $ERR == *0-x*"try 'rfsctl set cpus --help'" ]] ||
		fail "bad CPU list: got '$ERR'"
	[[ -z $OUT ]] || fail "usage error printed on stdout: $OUT"
}

# No daemon: exit 1, and the message says where and why.
test_no_daemon()
{
	local args want
	want="rfsctl: can't connect to rfsd at '$NOSOCK': No such file or directory (is rfsd running?)"
	for args in status stats "stats veth0" "attach veth0" "detach veth0" \
		"flows --limit 3" "set sock-flow-entries 1000" \
		"set flow-cnt veth0 4096" "set cpus veth0 0" statu "set f veth0 64"; do
		# shellcheck disable=SC2086
		expect_rc 1 $args
		[[ $ERR == "$want" ]] || fail "rfsctl $args: got '$ERR'"
	done
	ERR=$(RFS_SOCKET=/nonexistent/env "$RFSCTL" status 2>&1 >/dev/null)
	[[ $ERR == *"'/nonexistent/env'"* ]] ||
		fail "RFS_SOCKET not used: got '$ERR'"
}

# Under -j an error is one JSON document {"error": ...} on stdout.
test_json_errors()
{
	local args
	for args in "-j x" "-j st" "x -j" "-p bogus" "-j attach" \
		"-j attach veth0 --flow-cnt 12x" "-j set cpus veth0 x" \
		"-j status" "-p status" "status -j" "-j --bogus"; do
		# shellcheck disable=SC2086
		run $args
		[[ $RC -ne 0 ]] || fail "rfsctl $args: exit 0"
		echo "$OUT" | python3 -m json.tool >/dev/null 2>&1 ||
			fail "rfsctl $args: stdout is not JSON: $OUT"
		echo "$OUT" | python3 -c \
			'import json,sys; d=json.load(sys.stdin); sys.exit(not isinstance(d.get("error"), str) or len(d) != 1)' \
			2>/dev/null || fail "rfsctl $args: not {\"error\": \"...\"}: $OUT"
		[[ -z $ERR ]] || fail "rfsctl $args: stderr under -j: $ERR"
	done
}

# Every way to ask for help works, on stdout, within 80 columns.
test_help()
{
	local args g
	g=$("$RFSCTL" help)
	for args in help --help -h "help status" "status --help" "-h status" \
		"set --help" "set flow-cnt --help" "help set" "attach -h" \
		"attach veth0 --help"; do
		# shellcheck disable=SC2086
		expect_rc 0 $args
		[[ -n $OUT ]] || fail "rfsctl $args: no help text"
		[[ -z $ERR ]] || fail "rfsctl $args: stderr: $ERR"
		while IFS= read -r line; do
			((${#line} <= 80)) ||
				fail "rfsctl $args: line over 80 columns: $line"
		done <<<"$OUT"
	done
	[[ $("$RFSCTL" --help) == "$g" ]] || fail "--help differs from help"
	[[ $("$RFSCTL" help attach) == "$("$RFSCTL" attach --help)" ]] ||
		fail "'help attach' differs from 'attach --help'"
}

test_version()
{
	expect_rc 0 --version
	[[ $OUT == "rfsctl $VERSION" ]] || fail "--version: got '$OUT'"
	# no daemon is no error for version
	expect_rc 0 version
	[[ $OUT == "rfsctl $VERSION" ]] || fail "version: got '$OUT'"
	expect_rc 0 -j version
	echo "$OUT" | python3 -m json.tool >/dev/null 2>&1 ||
		fail "-j version: not JSON: $OUT"
}

# man/rfsctl.8 as text lines: requests dropped (their text kept for .SH,
# .SS, .B, .I, .TP...), font escapes and \- undone, blanks squeezed.
# $1: a section name to print only that section ("" for all).
man_text()
{
	python3 - "$MAN" "$1" <<'EOF'
import re, shlex, sys
path, want = sys.argv[1], sys.argv[2]
section, out = None, []
def clean(s):
    s = re.sub(r'\\f(\[[^]]*\]|\(..|.)', '', s)
    s = s.replace('\\-', '-').replace('\\&', '').replace('\\e', '\\')
    s = s.replace('\\ ', ' ').replace('\\(em', '--')
    return ' '.join(s.split())
for line in open(path):
    line = line.rstrip('\n')
    if line.startswith('.\\"'):
        continue
    if line.startswith('.'):
        req, _, rest = line[1:].partition(' ')
        if req == 'SH':
            section = clean(rest.strip('"'))
            continue
        if req in ('SS', 'B', 'I', 'BI', 'IB', 'BR', 'RB', 'IR', 'RI'):
            try:
                args = shlex.split(rest.replace('\\', '\\\\'))
            except ValueError:
                args = [rest]
            line = ''.join(args) if len(req) == 2 and req != 'SS' else ' '.join(args)
        else:
            continue
    if want and section != want:
        continue
    t = clean(line)
    if t:
        out.append(t)
print('\n'.join(out))
EOF
}

squeeze()
{
	sed 's/^Usage: //' | tr -s ' \t' ' ' | sed 's/^ //; s/ $//' | grep -v '^$'
}

# The SYNOPSIS is 'rfsctl help', line for line.
test_man_synopsis()
{
	local want got
	[[ -r $MAN ]] || { fail "$MAN missing"; return; }
	want=$("$RFSCTL" help | squeeze)
	got=$(man_text SYNOPSIS)
	if [[ $want != "$got" ]]; then
		fail "man SYNOPSIS differs from 'rfsctl help' (< help, > man):"
		diff <(echo "$want") <(echo "$got") | sed 's/^/    /'
	fi
}

# Each command's help text is in the COMMANDS section: the usage line,
# the description, each argument and option with its help, the grammar.
test_man_commands()
{
	local man cmds cmd line term text
	[[ -r $MAN ]] || { fail "$MAN missing"; return; }
	man=$(man_text COMMANDS)
	# "rfsctl set flow-cnt IFACE N" -> "set flow-cnt"
	cmds=$("$RFSCTL" help | squeeze | sed -n 's/^rfsctl //p' |
		awk '{ c = ""; for (i = 1; i <= NF; i++) {
			if ($i ~ /^[a-z]/) c = c (c ? " " : "") $i; else break }
			if (c) print c }')
	while IFS= read -r cmd; do
		grep -qxF -- "$cmd" <<<"$man" ||
			fail "man COMMANDS: no subsection '$cmd'"
		# shellcheck disable=SC2086
		while IFS= read -r line; do
			[[ -z ${line// /} ]] && continue
			line=${line#Usage: }
			if [[ $line =~ ^\ +([^ ]|[^ ].*[^ ])\ \ +([^ ].*)$ ]]; then
				# "       --cpus LIST   CPUs to steer to ..."
				term=${BASH_REMATCH[1]} text=${BASH_REMATCH[2]}
				grep -qxF -- "$term" <<<"$man" ||
					fail "man '$cmd': no item '$term'"
				grep -qxF -- "$text" <<<"$man" ||
					fail "man '$cmd': '$term' is not described as '$text'"
			else
				text=$(squeeze <<<"$line")
				grep -qxF -- "$text" <<<"$man" ||
					fail "man '$cmd': no line '$text'"
			fi
		done < <("$RFSCTL" $cmd --help)
	done <<<"$cmds"
}

main()
{
	local t tests=("$@")
	((${#tests[@]})) || read -ra tests <<<"${ALL_TESTS//$'\n'/ }"
	if [[ ! -x $RFSCTL ]]; then
		echo "FAIL: $RFSCTL not found or not executable (make build/rfsctl)"
		exit 1
	fi
	for t in "${tests[@]}"; do
		echo "$t"
		"$t"
	done
	if ((FAILED)); then
		echo "test_rfsctl_usage: FAILED"
		exit 1
	fi
	echo "test_rfsctl_usage: all passed"
	exit 0
}

main "$@"
