#!/usr/bin/env python3
"""Reduce the output of curand_poisson_probe.py to the tests' known-answer files.

    python3 poisson_known_answers.py PROBE_DIR ../tests/data

Writes `curand_host_poisson.txt`: per generator, seed, offset and a subset of lambdas, the
count, FNV-1a-64 digest (over little-endian u32 bytes) and sum of all 16,384 values of
`curandGeneratePoisson`, and the first 512 values; plus `call=two` lines for the two
consecutive 1000-value Poisson(4) calls. And `curand_poisson_tables.txt`: per lambda, the
method of `curandCreatePoissonDistribution`, and for the square histogram (M2) its shift,
length, the digests of K (u32) and V (f64 bit patterns, u64) and their first 8 entries;
for the Gaussian method the bit patterns of mean and stddev; or the status it failed with.
"""
import gzip
import json
import os
import sys

FNV_OFFSET, FNV_PRIME = 0xCBF29CE484222325, 0x100000001B3
LAMBDAS = ["0.25", "4.0", "9.5", "10.0", "100.0", "1000.0", "1500.0", "1999.0", "2000.0", "5000.0", "8000.0", "8001.0",
           "20000.0"]
HEAD = 256


def fnv(values, width):
    h = FNV_OFFSET
    for v in values:
        for b in int(v).to_bytes(width, "little"):
            h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def f64_bits(x):
    import struct

    return struct.unpack("<Q", struct.pack("<d", x))[0]


def main():
    probe, out = sys.argv[1], sys.argv[2]
    streams = json.load(gzip.open(os.path.join(probe, "poisson_streams.json.gz")))
    tables = json.load(open(os.path.join(probe, "poisson_tables.json")))
    with open(os.path.join(out, "curand_host_poisson.txt"), "w") as f:
        f.write("# cuRAND curandGeneratePoisson (legacy host ordering); see tools/poisson_known_answers.py\n")
        for s in streams:
            key = "gen=%s seed=%d offset=%d" % (s["gen"], s["seed"], s["offset"])
            for lam in LAMBDAS:
                v = s["poisson"][lam]
                f.write("%s call=one lambda=%s count=%d fnv=%d sum=%d : %s\n"
                        % (key, lam, len(v), fnv(v, 4), sum(v), " ".join(map(str, v[:HEAD]))))
            v = s["two_calls_4"]
            f.write("%s call=two lambda=4.0 count=%d fnv=%d sum=%d : %s\n"
                    % (key, len(v), fnv(v, 4), sum(v), " ".join(map(str, v[:HEAD]))))
    with open(os.path.join(out, "curand_poisson_tables.txt"), "w") as f:
        f.write("# cuRAND curandCreatePoissonDistribution tables; see tools/poisson_known_answers.py\n")
        for lam, t in tables.items():
            if "method" not in t:
                f.write("lambda=%s status=%d : \n" % (lam, t["status"]))
            elif t["method"] == 5:
                f.write("lambda=%s method=m2 shift=%d length=%d k_fnv=%d v_fnv=%d : %s %s\n"
                        % (lam, t["shift"], t["length"], fnv(t["K"], 4), fnv(t["V_bits"], 8),
                           " ".join(map(str, t["K"][:8])), " ".join(map(str, t["V_bits"][:8]))))
            else:
                f.write("lambda=%s method=gauss mean=%d stddev=%d : \n"
                        % (lam, f64_bits(t["mean"]), f64_bits(t["stddev"])))


if __name__ == "__main__":
    main()
