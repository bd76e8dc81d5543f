#!/usr/bin/env python3
"""Merges tools/manual/<api>_roc.tsv (CUDA -> ROC names transcribed from
HIPIFY's "... supported by HIP and ROC" tables) into data/<api>.tsv's ROC
column. A line `@LETTERS<TAB>cusparse%x<TAB>rocsparse_%x` stands for one line
per precision letter ('%' is the letter, upper case in the CUDA name, lower
case in the ROC name). A CUDA name missing from the data table is added with
no HIP name ('-').

    python3 tools/merge_roc.py sparse
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
api = sys.argv[1] if len(sys.argv) > 1 else "sparse"
pairs = {}
for line in open(os.path.join(HERE, "manual", api + "_roc.tsv"), encoding="utf-8"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    cols = line.split("\t")
    if cols[0].startswith("@"):
        for p in cols[0][1:]:
            pairs[cols[1].replace("%", p)] = cols[2].replace("%", p.lower())
    else:
        pairs[cols[0]] = cols[1]

path = os.path.join(HERE, "..", "data", api + ".tsv")
out, seen = [], set()
for line in open(path, encoding="utf-8").read().splitlines():
    if not line or line.startswith("#"):
        out.append(line)
        continue
    cols = line.split("\t")
    if cols[0] in pairs:
        cols = [cols[0], cols[1] if len(cols) > 1 else "-", pairs[cols[0]]]
        seen.add(cols[0])
    out.append("\t".join(cols))
missing = sorted(set(pairs) - seen)
if missing:
    out.append(f"# ROC names from tools/manual/{api}_roc.tsv without a HIP name")
    out.extend(f"{c}\t-\t{pairs[c]}" for c in missing)
open(path, "w", encoding="utf-8").write("\n".join(out) + "\n")
print(f"{api}: {len(pairs)} ROC names, {len(missing)} added without a HIP name")
