#!/usr/bin/env python3
"""Diff our mapping tables (data/*.tsv) against HIPIFY's published tables.

Usage:
    audit_hipify_tables.py [--data DIR] [--verbose] SOURCE...

Each SOURCE is one of HIPIFY's `docs/tables/*.md` files (ROCm/HIPIFY on
GitHub), or an extract of one in `tools/hipify_docs/*.tsv`
(`CUDA<TAB>HIP[<TAB>ROC[<TAB>FLAGS]]`, an empty HIP column meaning "HIPIFY
lists the name as unsupported"). A directory stands for every `.md`/`.tsv`
file in it. The table of ours a source is compared with is named by the
source's file name (see `OURS`); names found in none of that table's rows
are looked up in every other table (a name may live in a table of a
different API here, e.g. the library data types in runtime.tsv).

What hipify-clang does with a row of HIPIFY's tables (src/Statistics.cpp,
src/HipifyAction.cpp):
* an empty HIP column is `HIP_UNSUPPORTED`: the name is left as it is and a
  warning is printed;
* the CUDA `D`/`R` columns (`CUDA_DEPRECATED`, `CUDA_REMOVED`) change
  nothing: a deprecated or removed CUDA name with a HIP name is translated;
* the HIP `E` column (`HIP_EXPERIMENTAL`) is translated only with
  `--experimental` (else left with a warning); our tables mark such a row
  with a fourth column `experimental`;
* the HIP `D`/`R` columns (`HIP_DEPRECATED`, `HIP_REMOVED`) are reported,
  the name still translated to the HIP name listed.
* the ROC (or MIOPEN) column is used with `--roc` for the APIs hipify-clang
  sends to ROC libraries (BLAS, SPARSE, SOLVER, DNN, and the library data
  types of the runtime and complex APIs); cuRAND's ROC column is
  hipify-perl's only.

Per table it prints: HIPIFY's mapped and unsupported row counts, and
  missing     names HIPIFY maps that no table of ours lists,
  we_unsup    names HIPIFY maps that we list as unsupported (`-`),
  differ      names both map, to different HIP names,
  we_map      names we map that HIPIFY lists as unsupported,
  roc_differ  names whose ROC column differs (tables with a ROC column),
and with --verbose every name in each class. Exit status 0 whatever the
differences: this is a report, the decisions are in data/README.md.
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")

# HIPIFY table (by a prefix of its file name, case-insensitive) -> our table.
OURS = [
    ("cuda_runtime_api", "runtime"),
    ("cuda_driver_api", "driver"),
    ("cuda_rtc_api", "rtc"),
    ("cuda_device_api", "device"),
    ("cublas", "blas"),
    ("cusparse", "sparse"),
    ("cusolver", "solver"),
    ("cudnn", "dnn"),
    ("cufft", "fft"),
    ("curand", "rand"),
    ("cub_", "cub"),
    ("cucomplex", "complex"),
    # The short names of the extracts in tools/hipify_docs.
    ("runtime", "runtime"),
    ("driver", "driver"),
    ("rtc", "rtc"),
    ("device", "device"),
    ("blas", "blas"),
    ("sparse", "sparse"),
    ("solver", "solver"),
    ("dnn", "dnn"),
    ("fft", "fft"),
    ("rand", "rand"),
    ("cub", "cub"),
    ("complex", "complex"),
]

# Our tables in the order src/tables.rs loads them (a later row wins).
LOAD_ORDER = ["runtime", "driver", "device", "complex", "rtc", "blas", "rand", "fft",
              "sparse", "solver", "dnn", "cub"]

TICKED = re.compile(r"^`(.*)`$")


class Row:
    __slots__ = ("cuda", "hip", "roc", "flags")

    def __init__(self, cuda, hip, roc, flags):
        self.cuda, self.hip, self.roc, self.flags = cuda, hip, roc, flags

    @property
    def mapped(self):
        return bool(self.hip)


def cell(text):
    text = text.strip()
    m = TICKED.match(text)
    return m.group(1) if m else text


def parse_markdown(path):
    """HIPIFY's layout: CUDA, A, D, C, R, HIP, A, D, C, R, E[, ROC/MIOPEN, A, D, C, R, E]."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("|`"):
                continue
            cols = line.strip("|").split("|")
            if len(cols) < 11:
                continue
            c = [cell(x) for x in cols]
            flags = set()
            if c[2]:
                flags.add("D")
            if c[4]:
                flags.add("R")
            if c[7]:
                flags.add("hD")
            if c[9]:
                flags.add("hR")
            if c[10]:
                flags.add("hE")
            roc = c[11] if len(c) > 11 else None
            rows.append(Row(c[0], c[5], roc, flags))
    return rows


def derive(cuda):
    """The extracts' `=`: the first `cuda`/`CUDA` spelled `hip`/`HIP`, else a
    leading `cu`/`CU` (cuCtxCreate -> hipCtxCreate, CU_X -> HIP_X)."""
    m = re.search(r"cuda|CUDA", cuda)
    if m:
        return cuda[: m.start()] + ("hip" if m.group() == "cuda" else "HIP") + cuda[m.end():]
    if cuda.startswith("cu"):
        return "hip" + cuda[2:]
    if cuda.startswith("CU"):
        return "HIP" + cuda[2:]
    raise ValueError(f"'=' cannot derive a HIP name from {cuda}")


def parse_extract(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t") + ["", "", ""]
            flags = set(cols[3].split()) if cols[3] else set()
            hip = derive(cols[0]) if cols[1] == "=" else cols[1]
            rows.append(Row(cols[0], hip, cols[2] or None, flags))
    return rows


def load_source(path):
    rows = parse_markdown(path) if path.endswith(".md") else parse_extract(path)
    by_name = {}
    for r in rows:
        by_name[r.cuda] = r  # a name listed twice: the later row stands
    return by_name


def our_table(name, data_dir):
    """CUDA name -> (hip or None for '-', roc or None/''), later rows winning."""
    table = {}
    with open(os.path.join(data_dir, name + ".tsv"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            hip = cols[1] if len(cols) > 1 else "-"
            roc = cols[2] if len(cols) > 2 else ""
            experimental = len(cols) > 3 and cols[3] == "experimental"
            table[cols[0]] = (None if hip == "-" else hip, roc, experimental)
    return table


def which_table(path):
    base = os.path.basename(path).lower()
    for prefix, ours in OURS:
        if base.startswith(prefix):
            return ours
    return None


def audit(path, data_dir, everything, verbose):
    ours_name = which_table(path)
    if ours_name is None:
        print(f"{path}: no table of ours for this file name", file=sys.stderr)
        return None
    theirs = load_source(path)
    ours = our_table(ours_name, data_dir)
    has_roc = any(r.roc is not None for r in theirs.values())
    classes = {k: [] for k in ("missing", "we_unsup", "differ", "we_map", "roc_differ")}
    for name, r in sorted(theirs.items()):
        mine = ours.get(name)
        elsewhere = None
        if mine is None:
            for t in LOAD_ORDER:
                if t != ours_name and name in everything[t]:
                    mine, elsewhere = everything[t][name], t
        if r.mapped and "hE" in r.flags:
            if mine is None or mine[0] != r.hip or not mine[2]:
                got = "missing" if mine is None else f"ours {mine[0]}" + ("" if mine[2] else ", not experimental")
                classes["differ"].append((name, r.hip + " (experimental)", got))
        elif r.mapped:
            if mine is None and r.hip == name:
                pass  # an identity mapping: the name stays, as it does when unlisted
            elif mine is None:
                classes["missing"].append((name, r.hip, ""))
            elif mine[0] is None:
                classes["we_unsup"].append((name, r.hip, elsewhere or ""))
            elif mine[0] != r.hip:
                classes["differ"].append((name, r.hip, f"ours {mine[0]}" + (f" ({elsewhere})" if elsewhere else "")))
            elif has_roc and r.roc is not None and ours_name in ("rand", "blas", "sparse", "solver", "dnn"):
                our_roc = mine[1]
                if r.roc and our_roc != r.roc and not (our_roc == "" and ours_name not in ("rand", "blas", "sparse", "solver")):
                    classes["roc_differ"].append((name, r.roc, f"ours {our_roc or '(none)'}"))
        elif not r.mapped and mine is not None and mine[0] is not None and mine[0] != name:
            classes["we_map"].append((name, "", f"ours {mine[0]}" + (f" ({elsewhere})" if elsewhere else "")))
    mapped = sum(1 for r in theirs.values() if r.mapped)
    counts = {k: len(v) for k, v in classes.items()}
    if verbose:
        for k, items in classes.items():
            for name, hip, note in items:
                print(f"{ours_name}\t{k}\t{name}\t{hip}\t{note}")
    return ours_name, os.path.basename(path), mapped, len(theirs) - mapped, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="+", help="HIPIFY docs/tables/*.md files, extracts, or directories of them")
    ap.add_argument("--data", default=DATA, help="our data/ directory")
    ap.add_argument("--verbose", action="store_true", help="list every differing name")
    args = ap.parse_args()
    files = []
    for s in args.sources:
        if os.path.isdir(s):
            files += sorted(os.path.join(s, f) for f in os.listdir(s) if f.endswith((".md", ".tsv")))
        else:
            files.append(s)
    everything = {t: our_table(t, args.data) for t in LOAD_ORDER}
    results = [r for r in (audit(f, args.data, everything, args.verbose) for f in files) if r]
    cols = ("missing", "we_unsup", "differ", "we_map", "roc_differ")
    print("| table | source | HIPIFY maps | HIPIFY unsupported | " + " | ".join(cols) + " |")
    print("|---|---|---|---|" + "---|" * len(cols))
    for ours_name, src, mapped, unsup, counts in results:
        print(f"| {ours_name} | {src} | {mapped} | {unsup} | " + " | ".join(str(counts[c]) for c in cols) + " |")


if __name__ == "__main__":
    main()
