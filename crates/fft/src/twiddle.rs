//! Host-side tables the kernels read: Stockham twiddles, four-step twiddles, Bluestein chirps
//! and filters, and the real-transform twiddles. All are computed in `f64` with the angle
//! reduced to the first octant by exact integer arithmetic, then rounded once to the plan's
//! precision.

use num_complex::Complex;

/// `e^{-2 pi i e / n}` as `(cos, -sin)` of `2 pi e / n`, accurate to about one `f64` ulp: the
/// angle is brought into `[0, pi/4]` exactly (on the integers `e`, `n`) before `sin`/`cos`.
pub fn unit_root(e: u64, n: u64) -> (f64, f64) {
    let (mut num, mut den) = ((e % n) as u128, n as u128);
    let (mut cos_sign, mut sin_sign, mut swap) = (1.0, 1.0, false);
    if 2 * num > den {
        // theta -> 2 pi - theta
        num = den - num;
        sin_sign = -1.0;
    }
    if 4 * num > den {
        // theta -> pi - theta
        num = den - 2 * num;
        den *= 2;
        cos_sign = -1.0;
    }
    if 8 * num > den {
        // theta -> pi/2 - theta
        num = den - 4 * num;
        den *= 4;
        swap = true;
    }
    let x = std::f64::consts::TAU * (num as f64 / den as f64);
    let (mut c, mut s) = (x.cos(), x.sin());
    if swap {
        std::mem::swap(&mut c, &mut s);
    }
    (cos_sign * c, -(sin_sign * s))
}

/// `e^{-2 pi i e / n}`.
pub fn root(e: u64, n: u64) -> Complex<f64> {
    let (c, s) = unit_root(e, n);
    Complex::new(c, s)
}

/// The Stockham twiddles of one transform: for each pass `p` after the first (radix `R`,
/// `Ns` the product of the earlier radices), entries `(r - 1) Ns + k` hold `W_{Ns R}^{k r}`
/// for `k < Ns`, `1 <= r < R` (consecutive `k`, which consecutive threads take, adjacent).
/// Returns the table and each pass's offset.
pub fn stockham(radices: &[usize]) -> (Vec<Complex<f64>>, Vec<usize>) {
    let mut table = Vec::new();
    let mut offsets = Vec::with_capacity(radices.len());
    let mut ns = 1usize;
    for &r in radices {
        offsets.push(table.len());
        if ns > 1 {
            for j in 1..r {
                for k in 0..ns {
                    table.push(root((k * j) as u64, (ns * r) as u64));
                }
            }
        }
        ns *= r;
    }
    (table, offsets)
}

/// The four-step twiddle `W_n^e` split as `lo[e % m] * hi[e / m]` with `m = 2^bits`:
/// returns `lo` (length `m`) followed by `hi` (length `ceil(n / m)`).
pub fn four_step(n: u64, bits: u32) -> Vec<Complex<f64>> {
    let m = 1u64 << bits;
    let mut t: Vec<Complex<f64>> = (0..m).map(|e| root(e, n)).collect();
    t.extend((0..n.div_ceil(m)).map(|q| root(q * m, n)));
    t
}

/// Bits of the low table for a four-step twiddle of `n`: about half of `log2 n`.
pub fn four_step_bits(n: u64) -> u32 {
    let log = 64 - (n.max(2) - 1).leading_zeros();
    log.div_ceil(2)
}

/// Bluestein's chirp `w[j] = e^{-pi i j^2 / n}` for `j < n` (the exponent reduced mod `2n`
/// exactly).
pub fn chirp(n: usize) -> Vec<Complex<f64>> {
    let two_n = 2 * n as u128;
    (0..n).map(|j| root(((j as u128 * j as u128) % two_n) as u64, two_n as u64)).collect()
}

/// The real-transform twiddles `W_{2l}^k` for `k < l` (`l` the half length).
pub fn real_twiddles(l: usize) -> Vec<Complex<f64>> {
    (0..l).map(|k| root(k as u64, 2 * l as u64)).collect()
}
