# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the package and container tests share: numbered UDP across a
# restart (tests/tools/rfs_seq.c).  Sourced after tests/lib/lab.sh, never
# run.

SEQ=$LAB_BUILD/tests/rfs_seq

# Numbered UDP from $LAB_NS to the root namespace for $2 seconds at $3
# datagrams/s on port pair $1 (tests/tools/rfs_seq.c).
seq_start()
{
	local port=$1 secs=$2 pps=$3 i
	lab_bg "$SEQ" recv "$LAB_IP4_A" "$port" "$LAB_IP4_B" $((port + 1000)) \
		$((secs + 5)) > "$LAB_DIR/seq.recv"
	SEQ_RECV_PID=$LAB_BG_PID
	for ((i = 0; i < 50; i++)); do
		ss -Huan "( sport = :$port )" | grep -q . && break
		sleep 0.1
	done
	lab_bg_ns "$SEQ" send "$LAB_IP4_B" $((port + 1000)) "$LAB_IP4_A" "$port" \
		"$secs" "$pps" > "$LAB_DIR/seq.send" 2>&1
	SEQ_SEND_PID=$LAB_BG_PID
}

# SEQ_RESULT="sent received inversions lost", for the test that sourced this
# shellcheck disable=SC2034
seq_result()
{
	local rc=0
	lab_wait "$SEQ_SEND_PID" 60 || rc=$?
	[ $rc -eq 0 ] || fail "rfs_seq send failed (exit $rc): $(cat "$LAB_DIR/seq.send")"
	lab_wait "$SEQ_RECV_PID" 60 || fail "rfs_seq recv failed"
	SEQ_RESULT=$(cat "$LAB_DIR/seq.send" "$LAB_DIR/seq.recv" | "$LAB_PY" -c '
import json, sys
d = {}
for line in sys.stdin:
    d.update(json.loads(line))
print(d["sent"], d["received"], d["inversions"], d["lost"])') ||
		fail "can't read the rfs_seq results"
}

