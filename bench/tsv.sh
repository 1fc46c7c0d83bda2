# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The bench's results file, $OUT/results.tsv (format in bench/README.md,
# "Results"): sourced by the workload scripts, which append rows to it.
# bench/run.sh writes the header when it starts a run; a script run on
# its own writes it when the file is new.

TSV_HEADER=$'workload\tparam\tmode\tround\tmetric\tvalue\tunit'

# Make $OUT and the header of $OUT/results.tsv if there is none yet.
tsv_init()
{
	mkdir -p "$OUT" || return 1
	TSV=$OUT/results.tsv
	[ -s "$TSV" ] || printf '%s\n' "$TSV_HEADER" > "$TSV"
}

# tsv_row WORKLOAD PARAM MODE ROUND METRIC VALUE UNIT
tsv_row()
{
	local IFS=$'\t'
	printf '%s\n' "$*" >> "$TSV"
}
