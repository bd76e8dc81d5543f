#!/usr/bin/env python3
"""Digest the long host-API streams of curand_vectors.py (host_raw.txt) for the tests.

    python3 digest_host_raw.py host_raw.txt > ../tests/data/curand_host_raw_digests.txt

Each line keeps the keys of the stream and replaces its 65,536 values by their count and the
64-bit FNV-1a hash of the values as little-endian u32 bytes.
"""
import sys

FNV_OFFSET, FNV_PRIME = 0xCBF29CE484222325, 0x100000001B3

print("# FNV-1a-64 over little-endian u32 bytes of cuRAND host-API streams (see tools/digest_host_raw.py)")
for line in open(sys.argv[1]):
    if not line.strip() or line.startswith("#"):
        continue
    head, values = line.split(" : ")
    vals = [int(v) for v in values.split()]
    h = FNV_OFFSET
    for v in vals:
        for b in v.to_bytes(4, "little"):
            h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    print("%s count=%d : %d" % (head, len(vals), h))
