#!/usr/bin/env python3
"""MT19937 jump polynomials of cuRAND's engine spacing: x^(2^(2048 + p)) mod P(x), p = 0..12.

    python3 mt19937_jump.py data/mt19937_curand_jumps.txt

P is MT19937's characteristic polynomial (degree 19937), found here by Berlekamp-Massey from
the top bits of 2 * 19937 + 64 outputs of init_genrand(5489); x^(2^k) mod P is k squarings of x
modulo P. Nothing is taken from elsewhere. Checks: x^(2^1000) mod P equals rocRAND's published
`mt19937_jump` at both ends (library/src/rng/mt19937_precomputed.hpp, its 2^1000-step jump: a
check of P and of the squaring); the Horner jump equals plain stepping for small jumps.
cuRAND's engines are 2^2048 steps apart: `curand_host_mt19937.py --derive` reads the spacing
off cuRAND's outputs and compares it with line 0 of this file. Output: one line per p, 624
decimal words, word w bit b = coefficient of x^(32 w + b) (rocRAND's `get_coef` layout).
"""
import sys

import numpy as np

N, M, MATRIX_A, UPPER, LOWER = 624, 397, 0x9908B0DF, 0x80000000, 0x7FFFFFFF
MEXP = 19937


def init_genrand(seed):
    mt = [seed & 0xFFFFFFFF]
    for i in range(1, N):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
    return np.array(mt, dtype=np.uint32)


def twist(mt):
    """The next 624 words (MT19937's genrand block), untempered."""
    mt = mt.copy()
    for i in range(N):
        y = (int(mt[i]) & UPPER) | (int(mt[(i + 1) % N]) & LOWER)
        mt[i] = int(mt[(i + M) % N]) ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
    return mt


def words(seed, count):
    mt, out = init_genrand(seed), []
    while len(out) < count:
        mt = twist(mt)
        out.extend(int(x) for x in mt)
    return out[:count]


def berlekamp_massey(bits):
    """Connection polynomial C (bit i = c_i, c_0 = 1) and its length L."""
    c, b, length, m, window = 1, 1, 0, 1, 0
    for n, s in enumerate(bits):
        window = (window << 1) | s  # bit i = s_{n - i}
        d = (c & window).bit_count() & 1
        if d == 0:
            m += 1
        elif 2 * length <= n:
            t = c
            c ^= b << m
            length, b, m = n + 1 - length, t, 1
        else:
            c ^= b << m
            m += 1
    return c, length


def poly_mulmod_square(a, p, deg):
    """a^2 mod p over GF(2) (ints as bit vectors)."""
    s = int.from_bytes(SPREAD[np.frombuffer(a.to_bytes((deg + 8) // 8, "little"), np.uint8)].tobytes(), "little")
    while s.bit_length() > deg:
        s ^= p << (s.bit_length() - 1 - deg)
    return s


SPREAD = np.array([sum(((x >> i) & 1) << (2 * i) for i in range(8)) for x in range(256)], dtype="<u2")


def to_words(a):
    return [(a >> (32 * w)) & 0xFFFFFFFF for w in range(N)]


class State:
    """rocRAND's `mt19937_state`: the 624-word ring and the index of the next word."""

    def __init__(self, mt, ptr=0):
        self.mt, self.ptr = [int(x) for x in mt], ptr

    def step(self):
        i, mt = self.ptr, self.mt
        y = (mt[i] & UPPER) | (mt[(i + 1) % N] & LOWER)
        mt[i] = mt[(i + M) % N] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        self.ptr = (i + 1) % N

    def add(self, other):
        for i in range(N):
            self.mt[(self.ptr + i) % N] ^= other.mt[(other.ptr + i) % N]

    def aligned(self):
        return [self.mt[(self.ptr + i) % N] for i in range(N)]


def jump(state_words, poly):
    """sum_i poly_i f^i(state) by Horner, aligned to ptr 0."""
    ss, tmp = State(state_words), State([0] * N)
    for i in range(poly.bit_length() - 1, -1, -1):
        tmp.step()
        if (poly >> i) & 1:
            tmp.add(ss)
    return tmp.aligned()


def main():
    seq = words(5489, 2 * MEXP + 64)
    c, length = berlekamp_massey([w >> 31 for w in seq])
    assert length == MEXP, length
    # Characteristic polynomial: the reciprocal of the connection polynomial.
    p = int(bin(c)[2:].zfill(MEXP + 1)[::-1], 2)
    assert p.bit_length() == MEXP + 1 and p & 1
    # The machinery: x^k mod P applied to a state equals k steps (all words after one block).
    base = init_genrand(1234)
    for k in (1, 5, 700, 1000):
        x_k = 1 << k
        st = State(base)
        for _ in range(k):
            st.step()
        got, want = twist(np.array(jump(base, x_k), np.uint32)), twist(np.array(st.aligned(), np.uint32))
        assert list(got) == list(want), k
    a = 2  # x
    polys = []
    for s in range(1, 2048 + 13):
        a = poly_mulmod_square(a, p, MEXP)
        if s == 1000:
            w0 = to_words(a)
        if s >= 2048:
            polys.append(a)
    rocrand_head, rocrand_tail = [1029216725, 522129096, 1404193697, 1706379128], [3858779640, 3925260371, 742182709, 1]
    assert w0[:4] == rocrand_head and w0[-4:] == rocrand_tail, (w0[:4], w0[-4:])
    with open(sys.argv[1], "w") as f:
        for q in polys:
            f.write(" ".join(map(str, to_words(q))) + "\n")
    print("13 jump polynomials written; x^(2^1000) matches rocRAND's mt19937_jump at both ends")


if __name__ == "__main__":
    main()
