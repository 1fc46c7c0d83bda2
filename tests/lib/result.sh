# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The result line every test runner prints ("  PASS  name: detail") and
# its counts, shared by tests/run.sh, tests/kernels/run.sh and the guest's
# tests/kernels/guest.sh so the three report in one format.  Sourced,
# never run.

n_pass=0
n_fail=0
n_skip=0

result()	# STATUS NAME [DETAIL]
{
	case $1 in
	PASS) n_pass=$((n_pass + 1)) ;;
	FAIL) n_fail=$((n_fail + 1)) ;;
	SKIP) n_skip=$((n_skip + 1)) ;;
	esac
	printf '  %-4s  %s%s\n' "$1" "$2" "${3:+: $3}"
}
