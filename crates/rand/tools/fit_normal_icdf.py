#!/usr/bin/env python3
"""Fit the coefficients of ferrocm's f32 inverse normal CDF (`device::normal_icdf_f32`).

The function is written as x(u) = (2u - 1) * p(w) with w = -ln(4u(1 - u)), the structure of
Giles' single-precision erfinv ("Approximating the erfinv function", GPU Computing Gems Jade
Edition, 2011): p is a polynomial in w - 2.5 for w < 5 and in sqrt(w) - 3 for 5 <= w <= 23.5
(u down to 2^-33). This script fits both polynomials by relatively weighted least squares on
Chebyshev nodes against an f64 inverse CDF (Newton on erfc), then measures the error of the
f32 Horner evaluation with fused multiply-adds. Needs numpy.

    python3 fit_normal_icdf.py
"""
import math

import numpy as np

DEGREE = 8


def icdf(u):
    x = 0.0 if abs(u - 0.5) < 1e-15 else math.copysign(math.sqrt(-2 * math.log(min(u, 1 - u))), u - 0.5) * 0.9
    for _ in range(100):
        d = (0.5 * math.erfc(-x / math.sqrt(2)) - u) * math.sqrt(2 * math.pi) * math.exp(x * x / 2)
        x -= d
        if abs(d) < 1e-17 * max(1.0, abs(x)):
            break
    return x


def target(w):
    """x / (2u - 1) for the u < 1/2 with 4u(1 - u) = e^-w."""
    s = math.sqrt(-math.expm1(-w))
    return icdf((1 - s) / 2) / -s


def fit(lo, hi, arg, n=400):
    t = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    ws = (lo + hi) / 2 + (hi - lo) / 2 * t
    ys = np.array([target(w) for w in ws])
    v = np.vander(np.array([arg(w) for w in ws]), DEGREE + 1)
    c, *_ = np.linalg.lstsq(v / np.abs(ys)[:, None], ys / np.abs(ys), rcond=None)
    c32 = [np.float32(x) for x in c]
    worst = 0.0
    for w in np.linspace(lo, hi, 20001):
        a, p = np.float32(arg(w)), c32[0]
        for k in c32[1:]:
            p = np.float32(np.float64(p) * np.float64(a) + np.float64(k))
        worst = max(worst, abs(float(p) - target(w)) / abs(target(w)))
    return c32, worst


if __name__ == "__main__":
    for name, lo, hi, arg in (("CENTRAL", 1e-9, 5.0, lambda w: w - 2.5),
                              ("TAIL", 5.0, 23.5, lambda w: math.sqrt(w) - 3.0)):
        c, worst = fit(lo, hi, arg)
        print(f"const {name}: [f32; {DEGREE + 1}] = [{', '.join(repr(float(x)) for x in c)}];")
        print(f"// worst relative error of the f32 evaluation: {worst:.2e}")
