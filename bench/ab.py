#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-round A/B ratios of bench runs (bench/run.sh's results.tsv).

    bench/ab.py OUTDIR[,OUTDIR...] A B [REF]

For each cell (workload, param) and each of tps, p99_us and
throughput_gbps: A/B, and with REF also A/REF and B/REF, each the median
(min-max) of the ratios of the same round (the modes of one round ran
back to back, so a round's ratio cancels the machine's drift between
rounds); then each mode's TCP retransmits per round; last, the median
over cells of A/B's tps.  bench/report.py compares every mode with
`base` only; this is for two modes against each other (a policy, a
change) in a run of --modes A,B,REF.  Several OUTDIRs, comma-separated,
pool their rounds (runs of the same modes, one after the other, for more
rounds than one run gives the sockperf workloads).
"""
import collections
import csv
import statistics
import sys

METRICS = ("tps", "p99_us", "throughput_gbps")


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


def main(argv):
    if len(argv) not in (4, 5) or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    figures, rounds = load(argv[1].split(","))
    a, b = argv[2], argv[3]
    ref = argv[4] if len(argv) == 5 else None
    pairs = [(a, b)] + ([(a, ref), (b, ref)] if ref else [])
    modes = [m for m in (b, a, ref) if m]
    print("%-8s %-18s %-15s " % ("workload", "cell", "metric") +
          " ".join("%-18s" % ("%s/%s" % p) for p in pairs) +
          "  retransmits per round: " + " | ".join(modes))
    a_over_b = []
    for w, p in sorted({(w, p) for (w, p, _m) in figures}):
        for metric in METRICS:
            cell = figures.get((w, p, metric))
            if not cell:
                continue
            r = [ratios(cell, x, y, rounds) for x, y in pairs]
            if metric == "tps" and r[0]:
                a_over_b.append(statistics.median(r[0]))
            rt = figures.get((w, p, "retrans"), {})
            cell_rounds = sorted({n for (_m, n) in cell})
            per_mode = [",".join("%d" % rt[(m, n)] if (m, n) in rt else "-"
                                 for n in cell_rounds) for m in modes]
            print("%-8s %-18s %-15s " % (w, p, metric) +
                  " ".join("%-18s" % medrange(x) for x in r) +
                  "  " + " | ".join(per_mode))
    if a_over_b:
        print("tps %s/%s, median over %d cells: %.3f (min %.2f)" %
              (a, b, len(a_over_b), statistics.median(a_over_b),
               min(a_over_b)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
