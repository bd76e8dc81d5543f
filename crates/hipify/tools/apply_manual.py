#!/usr/bin/env python3
"""Apply the hand-written rows of tools/manual/API.tsv to data/API.tsv in place.

Usage: apply_manual.py API...   (runtime, driver, rtc, blas, rand, fft, sparse, solver)

`gen_tables.py` lets every row of `tools/manual/API.tsv` win over the derived
ones; this script does the same to the committed table without the unpacked
wheels gen_tables.py needs: a row whose CUDA name the table already lists is
replaced where it stands, a new name is appended under a comment. Running it
twice changes nothing, and a full `gen_tables.py` run produces the same
mappings.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
MANUAL = os.path.join(HERE, "manual")
APPENDED = "# Added by tools/apply_manual.py from tools/manual/%s.tsv"


def load_manual(api):
    out = {}
    with open(os.path.join(MANUAL, api + ".tsv"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 2:
                cols.append("-")
            while len(cols) > 2 and not cols[-1]:
                cols.pop()  # CUDA, HIP[, ROC[, experimental]]: no empty trailing columns
            out[cols[0]] = "\t".join(cols)
    return out


def apply(api):
    manual = load_manual(api)
    path = os.path.join(DATA, api + ".tsv")
    lines = open(path, encoding="utf-8").read().splitlines()
    seen = set()
    changed = 0
    for i, line in enumerate(lines):
        if not line or line.startswith("#"):
            continue
        name = line.split("\t", 1)[0]
        if name in manual:
            seen.add(name)
            if lines[i] != manual[name]:
                lines[i] = manual[name]
                changed += 1
    new = [manual[n] for n in manual if n not in seen]
    if new:
        if APPENDED % api not in lines:
            lines.append(APPENDED % api)
        lines += new
    if changed or new:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{api}: {changed} rows changed, {len(new)} added")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for api in sys.argv[1:]:
        if not os.path.exists(os.path.join(MANUAL, api + ".tsv")):
            sys.exit(f"no tools/manual/{api}.tsv (the APIs with a manual file: "
                     + ", ".join(sorted(f[:-4] for f in os.listdir(MANUAL))) + ")")
        apply(api)


if __name__ == "__main__":
    main()
