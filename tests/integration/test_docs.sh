#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Facts written once: the counters' names and meanings live in one table,
# daemon/lib/rfs_prom.c (the help text of /metrics).  rfsctl(8)'s COUNTERS
# section must list exactly those counters with the same text, and
# docs/protocol.md must name each in the stats reply.  No root, no build.
#
#	tests/integration/test_docs.sh
#
# Exit: 0 passed, 1 a difference (each one printed).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)

python3 - "$ROOT" <<'PY'
import re, sys

root = sys.argv[1]
src = open(root + "/daemon/lib/rfs_prom.c").read()
man = open(root + "/man/rfsctl.8").read()
proto = open(root + "/docs/protocol.md").read()
bad = []

# the counters of stats (every kind but the kthread's wait, which stats
# gives in ns and the man page describes with kthread_runs)
m = re.search(r"rfs_ctrs\[\] = \{(.*?)\n\};", src, re.S)
if not m:
    bad.append("rfs_prom.c has no table rfs_ctrs")
want = dict(re.findall(r'CTR\((?:IF|GLOBAL|GAUGE|KTHREAD), [a-z], '
                       r'([a-z0-9_]+), "((?:[^"\\]|\\.)*)"\)',
                       m.group(1) if m else ""))

sec = re.search(r"\n\.SH COUNTERS\n(.*?)\n\.SH ", man, re.S)
if not sec:
    bad.append("rfsctl.8 has no COUNTERS section")
    got = {}
else:
    got = dict(re.findall(r"\n\.TP\n\.B ([a-z0-9_]+)\n([^\n]*)", sec.group(1)))

def plain(roff):
    return roff.replace("\\-", "-").replace("\\e", "\\")

for name in sorted(set(want) | set(got)):
    if name not in got:
        bad.append("rfsctl.8 COUNTERS lacks " + name)
    elif name not in want:
        bad.append("rfsctl.8 COUNTERS has %s, rfs_prom.c does not" % name)
    elif plain(got[name]) != want[name]:
        bad.append("%s: rfsctl.8 says %r, rfs_prom.c %r" %
                   (name, plain(got[name]), want[name]))
    if name in want and '"%s"' % name not in proto:
        bad.append("docs/protocol.md does not name " + name)

for b in bad:
    print("    FAIL: " + b)
print("test_docs: %d counters, %s" % (len(want), "differences: %d" % len(bad)
                                       if bad else "man page and protocol agree"))
sys.exit(1 if bad else 0)
PY
