#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the libFuzzer targets of tests/fuzz (README.md there); `make fuzz`
# and `make check-fuzz` build them first and call this.
#
#	tests/fuzz/run.sh [--replay] [--seconds N] [--seed N] [TARGET...]
#
#   --replay     first run every input of tests/fuzz/corpus/TARGET/ once:
#                the seeds, and every crash ever found, kept there
#   --seconds N  then fuzz each target for N seconds (default 0: none)
#   --seed N     fuzz from libFuzzer's seed N and the source corpus alone
#                (a fresh work dir), so that a run repeats another's
#                inputs wherever it reaches; without it, a random seed
#                and the inputs earlier runs found
#
# TARGETs default to every fuzz_*.c here.  FUZZ_BUILD (default build-fuzz)
# holds the binaries; inputs that find new coverage go to
# $FUZZ_BUILD/corpus/TARGET/ (never into the source tree; with --seed to
# $FUZZ_BUILD/seeded/TARGET/, emptied first), crashes to
# $FUZZ_BUILD/crash/TARGET/.  Exit 1 if a target crashed or broke one of
# its checks: its log is printed, with the input to copy into the corpus
# once the bug is fixed.

set -u
cd "$(dirname "$0")/../.." || exit 1
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
# stack traces with names in the crash reports
if [[ -z ${ASAN_SYMBOLIZER_PATH:-} ]]; then
	ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-16 ||
			       command -v llvm-symbolizer) && export ASAN_SYMBOLIZER_PATH
fi
replay=0
seconds=0
seed=

while (($#)); do
	case $1 in
	--replay) replay=1 ;;
	--seconds) seconds=${2:?--seconds needs a number}; shift ;;
	--seed) seed=${2:?--seed needs a number}; shift ;;
	-*) echo "usage: $0 [--replay] [--seconds N] [--seed N] [TARGET...]" >&2
	    exit 2 ;;
	*) break ;;
	esac
	shift
done
if (($# == 0)); then
	for f in tests/fuzz/fuzz_*.c; do
		f=${f##*/fuzz_}
		set -- "$@" "${f%.c}"
	done
fi

# the targets that need a socket path make it under TMPDIR: a crash
# leaves it behind, so TMPDIR is ours and goes with us
TMPDIR=$(mktemp -d /tmp/rfs-fuzz.XXXXXX) || exit 1
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

failed=0
for t in "$@"; do
	bin=$FUZZ_BUILD/fuzz_$t
	seeds=tests/fuzz/corpus/$t
	work=$FUZZ_BUILD/corpus/$t
	opts=()
	if [[ -n $seed ]]; then
		work=$FUZZ_BUILD/seeded/$t
		rm -rf "$work"
		opts=(-seed="$seed")
	fi
	crash=$FUZZ_BUILD/crash/$t
	log=$FUZZ_BUILD/$t.log
	[[ -x $bin ]] || { echo "  FAIL  $t: $bin is not built (make fuzz)"; failed=1; continue; }
	mkdir -p "$work" "$crash" "$seeds"
	t0=$SECONDS
	if ((replay)); then
		if ! "$bin" -runs=0 -artifact_prefix="$crash/" "$seeds" \
				>"$log" 2>&1; then
			echo "  FAIL  $t: an input of $seeds fails again"
			tail -n 40 "$log" | sed 's/^/        /'
			failed=1
			continue
		fi
		echo "  PASS  $t: $(find "$seeds" -type f | wc -l) corpus inputs replayed"
	fi
	((seconds > 0)) || continue
	if ! "$bin" -max_total_time="$seconds" -timeout=10 "${opts[@]}" \
			-artifact_prefix="$crash/" "$work" "$seeds" \
			>"$log" 2>&1; then
		echo "  FAIL  $t: crashed after $((SECONDS - t0)) s"
		tail -n 40 "$log" | sed 's/^/        /'
		echo "        (once fixed: cp $crash/<file> $seeds/)"
		failed=1
		continue
	fi
	echo "  PASS  $t: fuzzed ${seconds} s${seed:+ from seed $seed}, $(grep -o 'Done [0-9]* runs' "$log" | tail -n 1)"
done
exit $failed
