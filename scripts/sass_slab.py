#!/usr/bin/env python3
"""Counts the SASS instructions one warp issues per trip of a GEMM kernel's main loop on its
whole-slab path (no GPU needed): the loop is the range from the target of the last backward
branch whose loop holds an MMA to that branch; every path through it is walked and the one with the
most LDGSTS and no LDG (the guarded edge copies), then through the barrier, is reported, by
opcode. The count includes the
back-edge branch and ptxas's never-executed `@!PT LDS` fillers. Usage (the PTX from
`BLAS_DUMP_PTX=1 cargo test -p ferrocm-blas --lib dgemm16`, written to /tmp):

    ptxas -arch=sm_90 -v /tmp/gemm_dmma16_w32.ptx -o k.cubin
    cuobjdump -sass k.cubin > k.sass        (cuobjdump finds nvdisasm on PATH)
    python3 scripts/sass_slab.py k.sass
"""
import collections
import re
import sys

MMA = ("DMMA", "HMMA")


def load(path):
    ins = []
    for line in open(path):
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2).strip()))
    return ins


def opcode(text):
    return re.sub(r"^@!?U?P[T0-9]+\s+", "", text).split()[0]


def target(text):
    m = re.search(r"BRA (0x[0-9a-f]+)", text)
    return int(m.group(1), 16) if m else None


def main():
    ins = load(sys.argv[1])
    index = {a: i for i, (a, _) in enumerate(ins)}
    back = None
    for i, (a, t) in enumerate(ins):
        to = target(t)
        # The loop closed by this branch holds an MMA (the MMAs may sit anywhere in its body:
        # Dmma16K8 issues its copies after them).
        if to is not None and to < a and to in index and any(m in ins[j][1] for j in range(index[to], i) for m in MMA):
            back = i
    if back is None:
        sys.exit("no backward branch closing a loop with an MMA")
    head = index[target(ins[back][1])]
    best = None

    def walk(i, path):
        nonlocal best
        while True:
            if i == back:
                path = path + [i]
                c = collections.Counter(opcode(ins[j][1]).split(".")[0] for j in path)
                # Whole-slab copies, then the path through the barrier (Dmma16K8's last slab
                # skips it), then the shortest.
                key = (c["LDG"] == 0, c["LDGSTS"], c["BAR"], -len(path))
                if best is None or key > best[0]:
                    best = (key, path)
                return
            t = ins[i][1]
            to = target(t)
            if to is not None and head < index.get(to, -1) <= back:
                if t.startswith("@"):
                    walk(index[to], path + [i])
                    path, i = path + [i], i + 1
                else:
                    path, i = path + [i], index[to]
                continue
            if opcode(t) == "EXIT":
                return
            path, i = path + [i], i + 1

    walk(head, [])
    path = best[1]
    c = collections.Counter(opcode(ins[j][1]) for j in path)
    print(f"{sys.argv[1]}: loop body {back - head + 1} instructions, whole-slab path {len(path)}")
    for name, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {name}: {n}")


if __name__ == "__main__":
    main()
