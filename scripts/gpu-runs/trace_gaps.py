"""Reads kernel_trace.csv files (ferrocm prof) and prints, per kernel name, the median duration,
the median start-to-start interval of consecutive launches of it on one stream, and the median
idle gap (next start minus this end). A launch-bound loop whose gaps are near zero is bound by
the GPU's kernel throughput, not by the host's launch calls. Usage: trace_gaps.py DIR..."""
import csv, glob, os, statistics, sys
from collections import defaultdict

for d in sys.argv[1:]:
    recs = defaultdict(list)
    for f in glob.glob(os.path.join(d, "**", "*kernel_trace.csv"), recursive=True):
        for r in csv.DictReader(open(f)):
            recs[(r["Kernel_Name"], r["Stream_Id"])].append((int(r["Start_Timestamp"]), int(r["End_Timestamp"])))
    for (name, stream), v in sorted(recs.items(), key=lambda kv: -len(kv[1])):
        if len(v) < 1000:
            continue
        v.sort()
        dur = [e - s for s, e in v]
        step = [b[0] - a[0] for a, b in zip(v, v[1:])]
        gap = [b[0] - a[1] for a, b in zip(v, v[1:])]
        small = sum(1 for g in gap if g < 500) / len(gap)
        print(f"{d}: {name[:40]} stream {stream}: {len(v)} launches, duration median {statistics.median(dur)/1e3:.2f} us,"
              f" start-to-start median {statistics.median(step)/1e3:.2f} us, gap median {statistics.median(gap)/1e3:.2f} us,"
              f" gaps under 0.5 us {small:.0%}")
