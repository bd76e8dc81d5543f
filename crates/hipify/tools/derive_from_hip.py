#!/usr/bin/env python3
"""Adds to data/{sparse,solver,blas}.tsv the CUDA names that gen_tables.py
cannot see: names NVIDIA's CUDA 12 bindings no longer declare (the legacy
cuSPARSE API, cusolverRf, ...) but whose HIP counterpart the HIP library still
declares. Each HIP library names its CUDA counterparts by a fixed rule
(hipsparseX <- cusparseX, HIPSPARSE_X <- CUSPARSE_X, ...), which HIPIFY's
tables follow for these names; the rule is inverted here.

Input: the unpacked rocm-bindings-libraries wheel (see data/README.md), its
rocm/bindings/cy{hipsparse,hipsolver,hipblas}.pxd. Existing rows win: a name
already in a table (mapped, unsupported or hand-written) is never changed.

    python3 tools/derive_from_hip.py DIR
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/hpi/dl/rbl"
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")

# (table, binding, [(hip prefix, cuda prefix)])
RULES = [
    ("sparse", "cyhipsparse.pxd", [("hipsparse", "cusparse"), ("HIPSPARSE_", "CUSPARSE_")]),
    ("solver", "cyhipsolver.pxd", [("hipsolverRf", "cusolverRf"), ("HIPSOLVERRF_", "CUSOLVERRF_")]),
]

for table, binding, rules in RULES:
    text = open(os.path.join(ROOT, "rocm", "bindings", binding), encoding="utf-8").read()
    hip_names = set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", text))
    path = os.path.join(DATA, table + ".tsv")
    lines = open(path, encoding="utf-8").read().splitlines()
    known = {l.split("\t")[0] for l in lines if l and not l.startswith("#")}
    added = []
    for hip in sorted(hip_names):
        for hp, cp in rules:
            if hip.startswith(hp):
                cuda = cp + hip[len(hp):]
                if cuda not in known:
                    added.append(f"{cuda}\t{hip}")
                    known.add(cuda)
                break
    if added:
        lines.append(f"# Added by tools/derive_from_hip.py from {binding} (legacy and removed CUDA names)")
        lines.extend(added)
        open(path, "w", encoding="utf-8").write("\n".join(lines) + "\n")
    print(f"{table}: {len(added)} names added")
