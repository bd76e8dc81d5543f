#!/usr/bin/env python3
"""Traced launch overhead from `ferrocm bench runtime --json` runs: DIR holds rt_plain_*.json and
rt_traced_*.json (one process each, alternating). The raw driver loop of each process (the row's
baseline) moves by 10-30% between processes, so each run's launch rows are divided by its own
baseline and the medians of those ratios compared: traced / plain - 1 is the tracing cost."""
import glob, json, os, statistics, sys


def load(pattern):
    runs = []
    for f in sorted(glob.glob(pattern)):
        r = {}
        for line in open(f):
            try:
                j = json.loads(line)
            except ValueError:
                continue
            r[j["metric"]] = (j["ferrocm"], j.get("baseline"))
        runs.append(r)
    return runs


def main(d):
    plain, traced = load(os.path.join(d, "rt_plain_*.json")), load(os.path.join(d, "rt_traced_*.json"))
    for m in plain[0] if plain else {}:
        if "launch" not in m:
            continue
        pn = [r[m][0] / r[m][1] for r in plain if m in r and r[m][1]]
        tn = [r[m][0] / r[m][1] for r in traced if m in r and r[m][1]]
        pv = statistics.median(r[m][0] for r in plain if m in r)
        tv = statistics.median(r[m][0] for r in traced if m in r)
        line = f"{m[:40]:<40} plain {pv:8.3f} traced {tv:8.3f}"
        if pn and tn:
            cost = statistics.median(tn) / statistics.median(pn) - 1
            line += f" | / own driver loop: plain {[round(x, 3) for x in pn]} traced {[round(x, 3) for x in tn]} -> {cost:+.1%}"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1])
