#!/usr/bin/env python3
"""Instruction counts of the loops in `cuobjdump -sass` / `nvdisasm` output, by issue pipe.

Usage: sass_loop_count.py FILE.sass [--all] [--hot]

For every backward branch (a loop's back edge) prints the loop's address range, its
instruction count and a split by the pipe each opcode issues to on sm_80/sm_90 (the split
`ncu`'s `sm__inst_executed_pipe_*` metrics use): `alu` (integer and logic but for IMAD:
LOP3, SHF, PRMT, IADD3, ISETP, SEL, LEA, FLO, IMNMX, ...), `fma` (FFMA/FMUL/FADD and every
IMAD form), `fp64`, `mem` (loads, stores, shuffles), `xu` (MUFU, conversions), `ctl`
(branches, predicates) and `other`. Only the innermost loops (containing no other back edge)
are printed unless `--all` is given. A loop's count is per trip; divide by the values a trip
produces.

`--hot` also walks the hot path of each function's longest loop: from the loop head, straight
on, taking unconditional branches, skipping conditional ones (`BRA.DIV`, a guarded skip of a
store) except a branch guarded like the last wide store (`STG.E.128`/`STG.E.64`) on the path,
which leaves the scalar fallback of a unit that was stored whole. That is the trip of the
kernels here whose units are all in range and stored with one vector store each.
"""
import re
import sys
from collections import Counter

ALU = {"LOP3", "LOP", "SHF", "PRMT", "IADD3", "ISETP", "SEL", "LEA", "FLO", "IMNMX", "VIMNMX",
       "POPC", "BREV", "PLOP3", "ISCADD", "FSEL", "FSETP", "FMNMX", "SHL", "SHR", "IABS", "BMSK",
       "SGXT", "LEA.HI", "P2R", "R2P", "CSET", "ICMP", "FCHK"}
FMA = {"IMAD", "FFMA", "FMUL", "FADD", "IMUL", "HFMA2", "HMUL2", "HADD2", "IDP", "IDP4A"}
FP64 = {"DADD", "DMUL", "DFMA", "DSETP", "DMNMX"}
XU = {"MUFU", "F2F", "I2F", "F2I", "I2FP", "F2IP", "FRND"}
MEM = {"LDG", "STG", "LDS", "STS", "LD", "ST", "LDL", "STL", "SHFL", "ATOM", "ATOMS", "RED",
       "LDC", "ULDC", "LDSM", "BAR", "MEMBAR"}
CTL = {"BRA", "EXIT", "BSSY", "BSYNC", "WARPSYNC", "CALL", "RET", "NOP", "YIELD", "BREAK"}

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
FUNC = re.compile(r"Function : (\S+)|^\s*\.text\.(\S+):")


def pipe(op: str) -> str:
    base = op.split(".")[0]
    if base.startswith("U"):  # uniform datapath: its own pipe, off the vector ALU/FMA
        return "uniform"
    if base == "MOV":
        return "alu"  # MOV issues to the ALU pipe (IMAD.MOV to the FMA pipe)
    for name, ops in (("alu", ALU), ("fma", FMA), ("fp64", FP64), ("xu", XU), ("mem", MEM), ("ctl", CTL)):
        if base in ops:
            return name
    return "other"


def parse(path):
    funcs, cur = {}, None
    for line in open(path):
        f = FUNC.search(line)
        if f:
            cur = f.group(1) or f.group(2)
            funcs[cur] = []
            continue
        m = LINE.search(line)
        if m and cur is not None:
            addr = int(m.group(1), 16)
            op = m.group(3)
            target = None
            if op.startswith("BRA"):
                t = re.search(r"0x([0-9a-f]+)", m.group(4))
                target = int(t.group(1), 16) if t else None
            funcs[cur].append((addr, op, target, (m.group(2) or "").strip()))
    return funcs


def main():
    path = sys.argv[1]
    show_all = "--all" in sys.argv
    for name, insts in parse(path).items():
        loops = [(t, a) for a, op, t, _ in insts if t is not None and t <= a]
        print(f"{name}: {len(insts)} instructions")
        for lo, hi in sorted(set(loops)):
            inner = not any(lo <= t2 and a2 <= hi for t2, a2 in set(loops) if (t2, a2) != (lo, hi))
            if not (inner or show_all):
                continue
            body = [op for a, op, _, _ in insts if lo <= a <= hi]
            pipes = Counter(pipe(op) for op in body)
            ops = Counter(op.split(".")[0] if not op.startswith("IMAD") else op for op in body)
            print(f"  loop {lo:#06x}-{hi:#06x}: {len(body)} instructions; "
                  + " ".join(f"{k} {v}" for k, v in sorted(pipes.items())))
            print("    " + " ".join(f"{k} {v}" for k, v in ops.most_common()))
        if "--hot" in sys.argv and loops:
            lo, hi = max(set(loops), key=lambda l: l[1] - l[0])
            hot(insts, lo, hi)


def hot(insts, lo, hi):
    at = {a: k for k, (a, _, _, _) in enumerate(insts)}
    k, path, wide = at[lo], [], None
    while len(path) < 100000:
        a, op, target, guard = insts[k]
        path.append(op)
        if a == hi:
            break
        if op.startswith(("STG.E.128", "STG.E.64")):
            wide = guard
        if op.startswith("BRA") and not op.startswith("BRA.DIV") and target is not None:
            if not guard or guard == wide:
                k, wide = at[target], None
                continue
        k += 1
    pipes = Counter(pipe(op) for op in path)
    ops = Counter(op.split(".")[0] if not op.startswith("IMAD") else op for op in path)
    print(f"  hot trip {lo:#06x}-{hi:#06x}: {len(path)} instructions; "
          + " ".join(f"{k} {v}" for k, v in sorted(pipes.items())))
    print("    " + " ".join(f"{k} {v}" for k, v in ops.most_common()))


if __name__ == "__main__":
    main()
