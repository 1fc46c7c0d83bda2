#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-round A/B ratios of bench runs (bench/run.sh's results.tsv).

    bench/ab.py OUTDIR[,OUTDIR...] A B [REF]

For each cell (workload, param) that A or B ran and each of tps, p99_us,
throughput_gbps and the merged BPF figures below: A/B, and with REF also
A/REF and B/REF, each the median (min-max) of the ratios of the same
round (the modes of one round ran back to back, so a round's ratio
cancels the machine's drift between rounds); then each mode's TCP
retransmits per round; last, the median over cells of A/B's tps.
bench/report.py compares every mode with `base` only; this is for two
modes against each other (a policy, a change) in a run of --modes
A,B,REF. Several OUTDIRs, comma-separated, pool their rounds (runs of
the same modes, one after the other, for more rounds than one run gives
the sockperf workloads).

    bench/ab.py merge OUTDIR

For bench/ab-commits.sh: OUTDIR/runs/a-I and OUTDIR/runs/b-I (pair I of
commits a and b) into OUTDIR/results.tsv, every mode M renamed M@a or
M@b, the pair as the round, so that `bench/ab.py OUTDIR M@a M@b` gives
per-pair ratios.  Each run's profile.json adds rows of workload bpf under
mode xdp (the profile session's): param PROG, metric ns_per_run (the
stats' ns per run in the rr phase) and ns_per_tx (sampled, stats off);
param all and steered, metric ns_per_tx (sampled, every program; the
steered host's alone).
"""
import collections
import csv
import glob
import json
import os
import re
import statistics
import sys

METRICS = ("tps", "p99_us", "throughput_gbps", "ns_per_run", "ns_per_tx")


def load(outdirs):
    """every figure, keyed by (mode, (run, round)): a round of one run is
    not the same round of another"""
    figures = collections.defaultdict(dict)
    rounds = set()
    for run, outdir in enumerate(outdirs):
        with open(outdir + "/results.tsv") as f:
            rows = csv.reader(f, delimiter="\t")
            next(rows, None)
            for row in rows:
                try:
                    w, p, m, r, metric, v, _unit = row
                    figures[(w, p, metric)][(m, (run, int(r)))] = float(v)
                except ValueError:	# a malformed row, as report.py skips
                    continue
                rounds.add((run, int(r)))
    return figures, sorted(rounds)


def ratios(cell, a, b, rounds):
    return [cell[(a, r)] / cell[(b, r)] for r in rounds
            if (a, r) in cell and (b, r) in cell and cell[(b, r)]]


def medrange(values):
    if not values:
        return "-"
    return "%.2f (%.2f-%.2f)" % (statistics.median(values), min(values),
                                 max(values))


def profile_rows(path):
    """(param, metric, value, unit) of one run's profile.json"""
    try:
        with open(path) as f:
            prof = json.load(f)
    except (OSError, ValueError):
        return []
    rows = []
    rr = prof.get("phases", {}).get("rr") or {}
    for p in rr.get("progs", []):
        if p.get("runs"):
            rows.append((p["name"], "ns_per_run", p["ns"] / p["runs"], "ns"))
    sampled = prof.get("sampled") or {}
    for name, v in (sampled.get("ns_per_tx_prog") or {}).items():
        rows.append((name, "ns_per_tx", v, "ns"))
    for param, key in (("all", "ns_per_tx"), ("steered", "ns_per_tx_steered")):
        if sampled.get(key) is not None:
            rows.append((param, "ns_per_tx", sampled[key], "ns"))
    return rows


def merge(outdir):
    out = []
    for d in sorted(glob.glob(os.path.join(outdir, "runs", "*-*"))):
        m = re.fullmatch(r"([ab])-(\d+)", os.path.basename(d))
        if not m or not os.path.isdir(d):
            continue
        side, pair = m.group(1), m.group(2)
        try:
            with open(os.path.join(d, "results.tsv")) as f:
                rows = csv.reader(f, delimiter="\t")
                next(rows, None)
                for row in rows:
                    if len(row) == 7:
                        w, p, mode, _r, metric, v, unit = row
                        out.append((w, p, mode + "@" + side, pair, metric, v,
                                    unit))
        except OSError:
            pass
        for p, metric, v, unit in profile_rows(os.path.join(d,
                                                            "profile.json")):
            out.append(("bpf", p, "xdp@" + side, pair, metric, "%.1f" % v,
                        unit))
    if not out:
        print("ab.py: no runs under %s/runs" % outdir, file=sys.stderr)
        return 1
    with open(os.path.join(outdir, "results.tsv"), "w") as f:
        f.write("workload\tparam\tmode\tround\tmetric\tvalue\tunit\n")
        for row in out:
            f.write("\t".join(row) + "\n")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "merge":
        return merge(argv[2])
    if len(argv) not in (4, 5) or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    figures, rounds = load(argv[1].split(","))
    a, b = argv[2], argv[3]
    ref = argv[4] if len(argv) == 5 else None
    pairs = [(a, b)] + ([(a, ref), (b, ref)] if ref else [])
    modes = [m for m in (b, a, ref) if m]
    lines = []
    a_over_b = []
    for w, p in sorted({(w, p) for (w, p, _m) in figures}):
        for metric in METRICS:
            cell = figures.get((w, p, metric))
            if not cell or not any(m in (a, b) for (m, _n) in cell):
                continue	# neither mode ran it (another mode's cell)
            r = [ratios(cell, x, y, rounds) for x, y in pairs]
            if metric == "tps" and r[0]:
                a_over_b.append(statistics.median(r[0]))
            rt = figures.get((w, p, "retrans"), {})
            cell_rounds = sorted({n for (_m, n) in cell})
            per_mode = [",".join("%d" % rt[(m, n)] if (m, n) in rt else "-"
                                 for n in cell_rounds) for m in modes]
            lines.append("%-8s %-18s %-15s " % (w, p, metric) +
                         " ".join("%-18s" % medrange(x) for x in r) +
                         "  " + " | ".join(per_mode))
    if not lines:
        return 0	# nothing these modes ran has a figure compared here
    print("%-8s %-18s %-15s " % ("workload", "cell", "metric") +
          " ".join("%-18s" % ("%s/%s" % p) for p in pairs) +
          "  retransmits per round: " + " | ".join(modes))
    print("\n".join(lines))
    if a_over_b:
        print("tps %s/%s, median over %d cells: %.3f (min %.2f)" %
              (a, b, len(a_over_b), statistics.median(a_over_b),
               min(a_over_b)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
