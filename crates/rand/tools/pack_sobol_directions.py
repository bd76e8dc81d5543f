#!/usr/bin/env python3
"""Pack the Joe-Kuo new-joe-kuo-6.21201 Sobol direction numbers into data/joe_kuo_6_21201.bin.

Input: SciPy's scipy/stats/_sobol_direction_numbers.npz (arrays `poly`, `vinit`), taken from
a SciPy wheel (`pip download --no-deps scipy`, then unzip that one file).

    python3 pack_sobol_directions.py path/to/_sobol_direction_numbers.npz ../data/joe_kuo_6_21201.bin

Output format (all little-endian):
    b"JKDN", u32 version (1), u32 dimension count D (dimension 0 included)
    then a bit stream, least significant bit of each byte first, for dimensions 1..D-1:
        s        5 bits   degree of the primitive polynomial
        a        s-1 bits interior coefficients a_1..a_{s-1}, a_1 most significant
        m_1..m_s k bits for m_k (m_k is odd and below 2^k)
Dimension 0 (all m_k = 1, the van der Corput sequence) is implicit.
"""
import struct
import sys

import numpy as np


def main(src, dst):
    d = np.load(src)
    poly, vinit = d["poly"], d["vinit"]
    count = len(poly)
    bits = []

    def put(value, width):
        assert 0 <= value < (1 << width) or width == 0, (value, width)
        for i in range(width):
            bits.append((value >> i) & 1)

    for dim in range(1, count):
        p = int(poly[dim])
        s = p.bit_length() - 1
        assert 1 <= s < 32 and p & 1 and p >> s == 1, (dim, p)
        a = (p >> 1) & ((1 << (s - 1)) - 1)
        put(s, 5)
        put(a, s - 1)
        for k in range(1, s + 1):
            m = int(vinit[dim, k - 1])
            assert m & 1 and m < (1 << k), (dim, k, m)
            put(m, k)
        assert all(int(v) == 0 for v in vinit[dim, s:]), dim
    while len(bits) % 8:
        bits.append(0)
    payload = bytes(sum(bits[i + j] << j for j in range(8)) for i in range(0, len(bits), 8))
    with open(dst, "wb") as f:
        f.write(b"JKDN" + struct.pack("<II", 1, count) + payload)
    print("wrote", dst, "dimensions", count, "bytes", 12 + len(payload))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
