#!/usr/bin/env python3
"""cuRAND's MT19937 host API (CURAND_RNG_PSEUDO_MT19937): engine spacing and known answers.

    python3 curand_host_mt19937.py --derive data/mt19937_curand_jumps.txt   # check; minutes, no GPU
    python3 curand_host_mt19937.py tests/data/curand_host_mt19937.txt      # known answers
    python3 curand_host_mt19937.py OUT.txt --device                        # also cuRAND on the GPU
    python3 curand_host_mt19937.py OUT.txt --device --device-quick         # only the integer cases

Loads libcurand as tools/curand_host_layout.py does (CURAND_LIB_DIR, site-packages, /usr/local/cuda)
and uses its CPU generator (`curandCreateGeneratorHost`), which runs without a GPU.

--derive: output i of cuRAND's stream is thread `lane % 8` of engine `lane / 8`
(`lane = i % 65536`), row `(i / 65536) % 78` of that engine's twisted block `i / 65536 / 78`,
thread t's row l taking element `element(t, l)` (rocRAND's octo-engine order; engine 0 is
`init_genrand(seed)`). For engines 1, 2, 3 the first block is untempered and untwisted back to
the engine's initial state S_g; MT19937's characteristic polynomial P (degree 19937) is found by
Berlekamp-Massey from 2 * 19937 + 64 top bits of init_genrand(5489), and the polynomial a_g with
a_g(f) S_0 = S_g is solved in GF(2)[x]/P through the generating functions of the states' top-bit
sequences (shift = multiplication by x^-1 modulo the reciprocal of P). Found: a_2 = a_1^2 and
a_3 = a_1^3, so the engines are equally spaced; a_1 is *not* rocRAND's 2^1000-step jump
(rocRAND's mt19937_precomputed.hpp gives other streams): it is x^(2^2048) mod P, found by
squaring x (the engines are 2^2048 steps apart). The script checks that a_1 is line 0 of the
file `tools/mt19937_jump.py` computes (x^(2^(2048 + p)) mod P, p = 0..12).
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import curand_host_layout as L  # noqa: E402

MT19937 = 142
N, M, MATRIX_A, UPPER, LOWER, MEXP = 624, 397, 0x9908B0DF, 0x80000000, 0x7FFFFFFF, 19937
FIRST = [0, 113, 170, 283, 340, 397, 510, 567]
OFFSETS = [1, 57, 114, 171, 227, 284, 341, 398, 454, 511, 568]


def element(t, l):
    return FIRST[t] if l == 0 else OFFSETS[(l - 1) // 7] + 7 * t + (l - 1) % 7


def generate(dist, seed, counts, device=False):
    """One generator, one call per entry of `counts`; the outputs concatenated."""
    g = ctypes.c_void_p()
    create = L.LIB.curandCreateGenerator if device else L.LIB.curandCreateGeneratorHost
    L.check(create(ctypes.byref(g), MT19937), "create")
    L.check(L.LIB.curandSetPseudoRandomGeneratorSeed(g, ctypes.c_ulonglong(seed)), "seed")
    name, param = (dist.split(":") + [None])[:2]
    dtype = {"u32": np.uint32, "uniform": np.float32, "normal": np.float32, "log_normal": np.float32,
             "poisson": np.uint32}.get(name, np.float64)
    outs = []
    for n in counts:
        if device:
            import cupy as cp
            buf = cp.empty(n, dtype)
            ptr = ctypes.c_void_p(buf.data.ptr)
        else:
            host = np.empty(n, dtype)
            ptr = host.ctypes.data_as(ctypes.c_void_p)
        f, d, sz = ctypes.c_float, ctypes.c_double, L.SZ(n)
        call = {
            "u32": lambda: L.LIB.curandGenerate(g, ptr, sz),
            "uniform": lambda: L.LIB.curandGenerateUniform(g, ptr, sz),
            "uniform_double": lambda: L.LIB.curandGenerateUniformDouble(g, ptr, sz),
            "normal": lambda: L.LIB.curandGenerateNormal(g, ptr, sz, f(0.0), f(1.0)),
            "normal_double": lambda: L.LIB.curandGenerateNormalDouble(g, ptr, sz, d(0.0), d(1.0)),
            "log_normal": lambda: L.LIB.curandGenerateLogNormal(g, ptr, sz, f(0.5), f(0.75)),
            "log_normal_double": lambda: L.LIB.curandGenerateLogNormalDouble(g, ptr, sz, d(0.5), d(0.75)),
            "poisson": lambda: L.LIB.curandGeneratePoisson(g, ptr, sz, d(float(param or 4))),
        }[name]
        L.check(call(), dist)
        if device:
            cp.cuda.Device().synchronize()
            host = cp.asnumpy(buf)
        outs.append(host)
    L.LIB.curandDestroyGenerator(g)
    return np.concatenate(outs)


# ---- derivation of the engine spacing -------------------------------------------------------

def init_genrand(seed):
    mt = [seed & 0xFFFFFFFF]
    for i in range(1, N):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
    return mt


def twist(mt):
    mt = list(mt)
    for i in range(N):
        y = (mt[i] & UPPER) | (mt[(i + 1) % N] & LOWER)
        mt[i] = mt[(i + M) % N] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
    return mt


def untemper(y):
    y ^= y >> 18
    y ^= (y << 15) & 0xEFC60000
    t = y
    for _ in range(5):
        t = y ^ ((t << 7) & 0x9D2C5680)
    y = t & 0xFFFFFFFF
    t = y
    for _ in range(3):
        t = y ^ (t >> 11)
    return t & 0xFFFFFFFF


def untwist(new):
    """The state before a twist (all but the 31 low bits of word 0, which nothing reads)."""
    old = [0] * N

    def g_inv(v):
        return ((((v ^ MATRIX_A) << 1) | 1) if v & UPPER else (v << 1)) & 0xFFFFFFFF

    for i in range(N - 1, -1, -1):
        y = g_inv(new[i] ^ (new[i - 227] if i >= 227 else old[i + M]))
        old[i] = (y & UPPER) | (old[i] & LOWER)
        if i < N - 1:
            old[i + 1] = (old[i + 1] & UPPER) | (y & LOWER)
    return old


def berlekamp_massey(bits):
    c, b, length, m, window = 1, 1, 0, 1, 0
    for n, s in enumerate(bits):
        window = (window << 1) | s
        if (c & window).bit_count() & 1 == 0:
            m += 1
        elif 2 * length <= n:
            c, b, length, m = c ^ (b << m), c, n + 1 - length, 1
        else:
            c ^= b << m
            m += 1
    return c, length


def clmul(a, b):
    r = 0
    while b:
        low = b & -b
        r ^= a << (low.bit_length() - 1)
        b ^= low
    return r


def pmod(a, m):
    dm = m.bit_length()
    while a.bit_length() >= dm:
        a ^= m << (a.bit_length() - dm)
    return a


def pinv(a, m):
    r0, r1, s0, s1 = m, pmod(a, m), 0, 1
    while r1 != 1:
        q = 0
        while r0.bit_length() >= r1.bit_length():
            sh = r0.bit_length() - r1.bit_length()
            q ^= 1 << sh
            r0 ^= r1 << sh
        r0, r1, s0, s1 = r1, r0, s1, s0 ^ clmul(q, s1)
    return pmod(s1, m)


def top_bits(state):
    out, mt = [], state
    while len(out) < MEXP:
        mt = twist(mt)
        out.extend(w >> 31 for w in mt)
    return out[:MEXP]


def derive(path, seed=1234):
    a = generate("u32", seed, [65536 * 78])
    words = []
    s = init_genrand(5489)
    while len(words) < 2 * MEXP + 64:
        s = twist(s)
        words.extend(s)
    rp, length = berlekamp_massey([w >> 31 for w in words[:2 * MEXP + 64]])  # reciprocal of P
    assert length == MEXP
    p = int(bin(rp)[2:].zfill(MEXP + 1)[::-1], 2)

    def numerator(state):
        v = int("".join(map(str, reversed(top_bits(state)))), 2)
        return clmul(rp, v) & ((1 << MEXP) - 1)

    g0_inv = pinv(numerator(init_genrand(seed)), rp)
    polys = {}
    for g in (1, 2, 3):
        block = [0] * N
        for t in range(8):
            for l in range(78):
                block[element(t, l)] = untemper(int(a[l * 65536 + 8 * g + t]))
        c = pmod(clmul(numerator(untwist(block)), g0_inv), rp)
        polys[g] = int(bin(pmod(c << (MEXP - 1), rp))[2:].zfill(MEXP)[::-1], 2)
    assert polys[2] == pmod(clmul(polys[1], polys[1]), p), "engines are not equally spaced"
    assert polys[3] == pmod(clmul(polys[2], polys[1]), p), "engines are not equally spaced"
    line0 = list(map(int, open(path).readline().split()))
    assert [(polys[1] >> (32 * w)) & 0xFFFFFFFF for w in range(N)] == line0, "spacing differs from the file"
    print(f"cuRAND's engines are equally spaced by line 0 of {path} (x^(2^2048) mod P)")


# ---- known answers ----------------------------------------------------------------------------

ROW, BLOCK = 65536, 65536 * 78
CASES = [  # dist, seed, counts of successive calls
    ("u32", 1234, [4096]),
    ("u32", 0, [ROW + 100]),
    ("u32", (7 << 32) + 99, [1000]),
    ("u32", 1234, [3000, ROW + 5000]),
    ("u32", 5, [BLOCK + 1000]),
    ("uniform", 1234, [20000]),
    ("uniform_double", 1234, [20000]),
    ("normal", 1234, [20000]),
    ("normal_double", 1234, [20000]),
    ("log_normal", 1234, [20000]),
    ("log_normal_double", 1234, [20000]),
    ("poisson:4", 1234, [20000]),
    ("poisson:100", 1234, [20000]),
    ("poisson:3000", 1234, [20000]),
]


def close(a, b, dist):
    name = dist.split(":")[0]
    if name in ("normal", "log_normal"):
        a, b = a.astype(np.float64), b.astype(np.float64)
        return bool(np.all(np.abs(a - b) <= 1e-5 * np.maximum(1.0, np.abs(b))))
    if name in ("normal_double", "log_normal_double"):
        return bool(np.all(np.abs(a - b) <= 1e-13 * np.maximum(1.0, np.abs(b))))
    return bool(np.array_equal(a, b))


def main():
    if sys.argv[1] == "--derive":
        return derive(sys.argv[2])
    device = "--device" in sys.argv
    v = ctypes.c_int()
    L.LIB.curandGetVersion(ctypes.byref(v))
    lines = [f"# cuRAND {v.value} MT19937 host API, CPU generator; tools/curand_host_mt19937.py (see tests/data/README.md)"]
    bad = 0
    quick = "--device-quick" in sys.argv
    for dist, seed, counts in CASES:
        if quick and dist != "u32":
            continue
        a = generate(dist, seed, counts)
        if device:
            ok = close(generate(dist, seed, counts, True), a, dist)
            bad += not ok
            print(f"{'same' if ok else 'DIFFERENT'}: GPU and CPU MT19937, {dist} seed {seed} calls {counts}", flush=True)
        n = len(a)
        marks = [0, n - 8, 4088, 65532, ROW + 96, BLOCK - 4, BLOCK + 992] + [k * n // 5 for k in range(1, 5)]
        w = sorted({m for m in marks if 0 <= m <= n - 8})
        vals = " ".join(str(int(x)) for s in w for x in L.bits(a[s:s + 8]))
        exact = dist.split(":")[0] in ("u32", "uniform", "uniform_double", "poisson")
        dg = L.digest(a) if exact else "-"
        lines.append(f"dist={dist} seed={seed} calls={','.join(map(str, counts))} count={n} digest={dg} "
                     f"windows={','.join(map(str, w))} : {vals}")
    open(sys.argv[1], "w").write("\n".join(lines) + "\n")
    print(f"{len(CASES)} MT19937 cases; {bad} differ between GPU and CPU generators")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
