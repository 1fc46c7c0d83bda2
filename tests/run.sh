#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the test layers:
#	tests/run.sh [--repeat N] [unit] [prog] [fuzz] [integration] [SCRIPT[:TEST,...]]...
# (all four layers when none is named).  `make check` builds everything
# first.
#
#   unit         build/tests/test_* built from tests/unit/test_*.c
#   prog         build/tests/test_* built from tests/prog/test_*.c (root:
#                BPF_PROG_TEST_RUN); skipped when not root
#   fuzz         each libFuzzer target of tests/fuzz (build-fuzz/fuzz_*,
#                clang-16): its corpus replayed, every crash ever found
#                included, then a short burst of new inputs from a fixed
#                seed, the same on every machine (tests/fuzz/run.sh
#                --replay --seed RFS_FUZZ_SEED --seconds RFS_FUZZ_SECONDS)
#   integration  tests/integration/test_*.sh, each in its own process
#   SCRIPT[:TEST,...]
#                one integration script (test_order, test_order.sh or
#                tests/integration/test_order.sh), and of it only the
#                test_* functions named (the script's own arguments)
#
# --repeat N runs all of that N times over, each round after the one
# before, whatever it gave: a line per round with that round's counts,
# every round's results counted in the summary, and before it the
# results that failed in some rounds and in which.  For one test until
# it shows itself flaky or not:
#	tests/run.sh --repeat 10 test_order:test_two_producers
#
# Each result goes on its own line, then one summary line that CI parses,
# always the last:
#   N passed, N failed, N skipped
# The exit status is non-zero when anything failed.
#
# Counting: every cmocka test counts once, read from cmocka's own result
# line ("[       OK ] name", "[  FAILED  ] name", "[  SKIPPED ] name") that
# follows the "[ RUN      ] name" line of that test; the "listed below"
# recap at the end is not counted again.  A binary that dies inside a
# test fails that test; one that exits non-zero without reporting a
# failed test (abort, group setup error) adds one failure of its own.
# Tests it never got to are not counted.  A binary that reports no cmocka
# result counts as one test by its exit status, like a script: 0 passed,
# 249 skipped (the xdp-tools skip code), anything else failed.  An
# integration script counts once, by its exit status.
#
# Environment: V=1 shows the output of passing tests too (failing ones
# always show it); RFS_BUILD (default build) is where binaries are;
# RFS_TEST_TIMEOUT (seconds, default 600) bounds each test;
# RFS_FUZZ_SECONDS (default 5) is each fuzz target's burst and
# RFS_FUZZ_SEED (default 1) its libFuzzer seed.

set -u

RFS_SKIP=249

usage()
{
	echo "Usage: $0 [--repeat N] [unit] [prog] [fuzz] [integration] [SCRIPT[:TEST,...]]..." >&2
	exit 2
}

cd "$(dirname "$0")/.." || exit 1
RFS_ROOT=$PWD
RFS_BUILD=${RFS_BUILD:-build}
RFS_TEST_TIMEOUT=${RFS_TEST_TIMEOUT:-600}
RFS_FUZZ_SECONDS=${RFS_FUZZ_SECONDS:-5}
RFS_FUZZ_SEED=${RFS_FUZZ_SEED:-1}
export RFS_ROOT RFS_BUILD
# The parser reads cmocka's standard output, not TAP/XML/subunit.
unset CMOCKA_MESSAGE_OUTPUT CMOCKA_XML_FILE

# shellcheck source=tests/lib/result.sh
. tests/lib/result.sh

# The rounds in which each result failed (--repeat).
declare -A failed_in=()
round=1

# result, and a failure noted against its round
counted()	# STATUS NAME [DETAIL]
{
	result "$@"
	[[ $1 == FAIL ]] && failed_in[$2]+=" $round"
	return 0
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log

# Line-buffered stdout keeps cmocka's stdout and stderr in order in the
# log, and keeps what a crashing binary printed before it died.
linebuf=()
if command -v stdbuf >/dev/null 2>&1; then
	linebuf=(stdbuf -oL -eL)
fi

show_log()
{
	sed 's/^/        /' "$log"
}

# Run a command with the timeout, output to $log; sets rc.  The subshell
# keeps bash's own "Aborted (core dumped)" notice out of the report.
run_logged()
{
	(timeout -k 10 "$RFS_TEST_TIMEOUT" "${linebuf[@]}" "$@" \
		</dev/null >"$log" 2>&1; exit $?) 2>/dev/null
	rc=$?
}

exit_detail()
{
	if (($1 == 124)); then
		echo "timed out after ${RFS_TEST_TIMEOUT}s"
	elif (($1 > 128 && $1 < 128 + 65)); then
		echo "killed by SIG$(kill -l "$(($1 - 128))")"
	else
		echo "exit $1"
	fi
}

# One cmocka binary: a result line per cmocka test.
run_cmocka()	# LABEL BINARY
{
	local label=$1 bin=$2 line cur="" name status msg="" nres=0 nfailed=0

	if [[ ! -x $bin ]]; then
		counted FAIL "$label" "not built ($bin missing, run make)"
		return
	fi
	run_logged "$bin"
	while IFS= read -r line; do
		case $line in
		"[ RUN      ] "*)
			cur=${line#"[ RUN      ] "}
			msg=""
			continue ;;
		"[       OK ] "*)
			name=${line#"[       OK ] "}; status=PASS ;;
		"[  FAILED  ] "*)
			name=${line#"[  FAILED  ] "}; status=FAIL ;;
		"[  SKIPPED ] "*)
			name=${line#"[  SKIPPED ] "}; status=SKIP ;;
		"["*)
			continue ;;
		*)
			# a test's own message: says why it skipped
			[[ -n $line ]] && msg=$line
			continue ;;
		esac
		[[ -n $cur && $name == "$cur" ]] || continue
		cur=""
		nres=$((nres + 1))
		[[ $status == FAIL ]] && nfailed=$((nfailed + 1))
		[[ $status == SKIP ]] || msg=""
		counted "$status" "$label: $name" "$msg"
	done <"$log"

	if [[ -n $cur ]]; then
		# died inside a test: that test failed
		counted FAIL "$label: $cur" "$(exit_detail "$rc") during the test"
		nfailed=$((nfailed + 1))
	elif ((nres == 0)); then
		case $rc in
		0) counted PASS "$label" ;;
		"$RFS_SKIP") counted SKIP "$label" ;;
		*) counted FAIL "$label" "$(exit_detail "$rc")"; nfailed=1 ;;
		esac
	elif ((rc != 0 && nfailed == 0)); then
		counted FAIL "$label" "$(exit_detail "$rc") after $nres test(s)"
		nfailed=1
	fi
	if ((nfailed > 0)) || [[ $rc != 0 && $rc != "$RFS_SKIP" ]] ||
	   [[ ${V:-0} == 1 ]]; then
		show_log
	fi
}

# The binaries of one layer, named after their sources.
layer_bins()	# DIR
{
	local src

	for src in "$1"/test_*.c; do
		src=${src##*/}
		echo "$RFS_BUILD/tests/${src%.c}"
	done
}

run_unit()
{
	local bin found=0

	while IFS= read -r bin; do
		found=1
		run_cmocka "unit/${bin##*/}" "$bin"
	done < <(layer_bins tests/unit)
	((found)) || printf '  %-4s  %s\n' "----" "unit: no tests"
}

run_prog()
{
	local bin found=0

	while IFS= read -r bin; do
		found=1
		if ((EUID != 0)); then
			counted SKIP "prog/${bin##*/}" "needs root"
			continue
		fi
		run_cmocka "prog/${bin##*/}" "$bin"
	done < <(layer_bins tests/prog)
	((found)) || printf '  %-4s  %s\n' "----" "prog: no tests"
}

# One result per fuzz target: what tests/fuzz/run.sh says of it.  The
# targets are ASan+UBSan builds of their own (build-fuzz/), the same in a
# SANITIZE=1 run.
run_fuzz()
{
	local src t found=0

	for src in tests/fuzz/fuzz_*.c; do
		found=1
		t=${src##*/fuzz_}
		t=${t%.c}
		run_logged tests/fuzz/run.sh --replay --seed "$RFS_FUZZ_SEED" \
			--seconds "$RFS_FUZZ_SECONDS" "$t"
		case $rc in
		0) counted PASS "fuzz/$t" "$(sed -n 's/^  PASS  [a-z_]*: //p' "$log" |
					    paste -sd ';' | sed 's/;/; /g')" ;;
		*) counted FAIL "fuzz/$t" "$(exit_detail "$rc")" ;;
		esac
		if [[ $rc != 0 ]] || [[ ${V:-0} == 1 ]]; then
			show_log
		fi
	done
	((found)) || printf '  %-4s  %s\n' "----" "fuzz: no targets"
}

# One integration script, with its arguments (test names) if any; the
# label names them.
run_script()	# SCRIPT [TEST...]
{
	local t=$1 label="integration/${1##*/}"

	shift
	(($# > 0)) && label+=":$(IFS=,; echo "$*")"
	if [[ -x $t ]]; then
		run_logged "./$t" "$@"
	else
		run_logged bash "$t" "$@"
	fi
	case $rc in
	0)
		counted PASS "$label" ;;
	"$RFS_SKIP")
		# the script says why on its last line
		counted SKIP "$label" "$(tail -n 1 "$log")" ;;
	*)
		counted FAIL "$label" "$(exit_detail "$rc")" ;;
	esac
	if [[ $rc != 0 && $rc != "$RFS_SKIP" ]] || [[ ${V:-0} == 1 ]]; then
		show_log
	fi
}

run_integration()
{
	local t found=0

	for t in tests/integration/test_*.sh; do
		found=1
		run_script "$t"
	done
	((found)) || printf '  %-4s  %s\n' "----" "integration: no tests"
}

# SCRIPT[:TEST,...] -> the script's path, then the tests; nothing if
# there is no such script.
script_args()	# WORD
{
	local s=${1%%:*} tests=

	[[ $1 == *:* ]] && tests=${1#*:}
	s=${s#tests/integration/}
	s=${s%.sh}.sh
	[[ -f tests/integration/$s && $s == test_*.sh ]] || return 1
	echo "tests/integration/$s ${tests//,/ }"
}

repeat=1
steps=()
while (($# > 0)); do
	case $1 in
	--repeat)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage
		repeat=$2
		shift 2 ;;
	--repeat=*)
		repeat=${1#*=}
		[[ $repeat =~ ^[1-9][0-9]*$ ]] || usage
		shift ;;
	unit|prog|fuzz|integration)
		steps+=("run_$1")
		shift ;;
	*)
		args=$(script_args "$1") || {
			echo "$0: no layer or integration script '$1'" >&2
			usage
		}
		steps+=("run_script $args")
		shift ;;
	esac
done
((${#steps[@]} > 0)) || steps=(run_unit run_prog run_fuzz run_integration)

shopt -s nullglob
for ((round = 1; round <= repeat; round++)); do
	p0=$n_pass f0=$n_fail s0=$n_skip
	((repeat > 1)) && echo "round $round of $repeat"
	for step in "${steps[@]}"; do
		# the words of a step: a function and its arguments
		$step
	done
	((repeat > 1)) &&
		echo "round $round of $repeat: $((n_pass - p0)) passed, $((n_fail - f0)) failed, $((n_skip - s0)) skipped"
done

if ((repeat > 1 && ${#failed_in[@]} > 0)); then
	echo "failed in some of the $repeat rounds:"
	for name in "${!failed_in[@]}"; do
		read -ra rounds <<< "${failed_in[$name]}"
		echo "  $name: ${#rounds[@]} of $repeat (round$( ((${#rounds[@]} > 1)) && echo s) ${rounds[*]})"
	done | sort
fi
echo "$n_pass passed, $n_fail failed, $n_skip skipped"
((n_fail == 0))
