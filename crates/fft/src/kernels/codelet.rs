//! Complex arithmetic on kernel values and the straight-line DFT butterflies ("codelets") the
//! Stockham passes use. Everything here runs while a kernel is being built: a radix-`R`
//! butterfly becomes a fixed sequence of IR instructions with its constants folded in.
//!
//! Every butterfly is the forward DFT (`e^{-2 pi i jk / R}`); inverse transforms conjugate on
//! the way in and out instead, so one set of codelets serves both directions.

use ferrocm_kernel::dsl::Val;

use crate::precision::FftFloat;

/// A complex kernel value: two runtime floats.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cx<T> {
    pub re: Val<T>,
    pub im: Val<T>,
}

fn k<T: FftFloat>(x: f64) -> Val<T> {
    Val::constant(T::lit(x))
}

impl<T: FftFloat> Cx<T> {
    pub fn new(re: Val<T>, im: Val<T>) -> Cx<T> {
        Cx { re, im }
    }

    pub fn zero() -> Cx<T> {
        Cx { re: k(0.0), im: k(0.0) }
    }

    pub fn add(self, o: Cx<T>) -> Cx<T> {
        Cx { re: self.re + o.re, im: self.im + o.im }
    }

    pub fn sub(self, o: Cx<T>) -> Cx<T> {
        Cx { re: self.re - o.re, im: self.im - o.im }
    }

    pub fn conj(self) -> Cx<T> {
        Cx { re: self.re, im: -self.im }
    }

    /// `self * -i`.
    pub fn mul_neg_i(self) -> Cx<T> {
        Cx { re: self.im, im: -self.re }
    }

    /// `self * i`.
    pub fn mul_i(self) -> Cx<T> {
        Cx { re: -self.im, im: self.re }
    }

    pub fn scale(self, s: Val<T>) -> Cx<T> {
        Cx { re: self.re * s, im: self.im * s }
    }

    /// The complex product, two multiplies and two fused multiply-adds.
    pub fn mul(self, o: Cx<T>) -> Cx<T> {
        let re = self.re.mul_add(o.re, -(self.im * o.im));
        let im = self.re.mul_add(o.im, self.im * o.re);
        Cx { re, im }
    }

    /// The product with a compile-time constant `(c, s)`, with the trivial cases folded.
    pub fn mul_const(self, c: f64, s: f64) -> Cx<T> {
        let exact = |x: f64, v: f64| (x - v).abs() < 1e-15;
        if exact(s, 0.0) {
            if exact(c, 1.0) {
                return self;
            }
            if exact(c, -1.0) {
                return Cx { re: -self.re, im: -self.im };
            }
        }
        if exact(c, 0.0) {
            if exact(s, -1.0) {
                return self.mul_neg_i();
            }
            if exact(s, 1.0) {
                return self.mul_i();
            }
        }
        if exact(c.abs(), s.abs()) {
            // (a + ib)(c + is) with |c| = |s|: c (a - sgn b) ... two adds and two multiplies.
            let (a, b) = (self.re, self.im);
            let h = k::<T>(c.abs());
            return match (c > 0.0, s > 0.0) {
                (true, true) => Cx { re: (a - b) * h, im: (a + b) * h },
                (true, false) => Cx { re: (a + b) * h, im: (b - a) * h },
                (false, true) => Cx { re: -(a + b) * h, im: (a - b) * h },
                (false, false) => Cx { re: (b - a) * h, im: -(a + b) * h },
            };
        }
        let (cc, ss) = (k::<T>(c), k::<T>(s));
        let re = self.re.mul_add(cc, -(self.im * ss));
        let im = self.re.mul_add(ss, self.im * cc);
        Cx { re, im }
    }
}

/// `e^{-2 pi i e / n}` as `(cos, sin)`, with the octant symmetries taken exactly, so the
/// constants of one codelet agree to the last bit wherever they are equal in exact arithmetic.
pub(crate) fn root(e: u64, n: u64) -> (f64, f64) {
    crate::twiddle::unit_root(e, n)
}

/// The smallest prime factor of `n` (n >= 2).
fn smallest_factor(n: usize) -> usize {
    let mut p = 2;
    while p * p <= n {
        if n % p == 0 {
            return p;
        }
        p += 1;
    }
    n
}

/// The forward DFT of `x` (any length), as straight-line code.
pub(crate) fn dft<T: FftFloat>(x: &[Cx<T>]) -> Vec<Cx<T>> {
    let r = x.len();
    match r {
        0 | 1 => x.to_vec(),
        2 => vec![x[0].add(x[1]), x[0].sub(x[1])],
        4 => dft4(x[0], x[1], x[2], x[3]).to_vec(),
        _ => {
            // Coprime factors first (no twiddles between them), then radix-4 steps where they
            // fit (fewest multiplies), then the smallest prime.
            if let Some((r1, r2)) = coprime_split(r) {
                return dft_prime_factor(x, r1, r2);
            }
            let first = if r % 4 == 0 && r > 4 { 4 } else { smallest_factor(r) };
            if first == r {
                dft_prime(x)
            } else {
                dft_split(x, first, r / first)
            }
        }
    }
}

fn dft4<T: FftFloat>(a: Cx<T>, b: Cx<T>, c: Cx<T>, d: Cx<T>) -> [Cx<T>; 4] {
    let t0 = a.add(c);
    let t1 = a.sub(c);
    let t2 = b.add(d);
    let t3 = b.sub(d).mul_neg_i();
    [t0.add(t2), t1.add(t3), t0.sub(t2), t1.sub(t3)]
}

/// `r = r1 r2` with `r1` the largest power of `r`'s smallest prime and `r2 > 1` coprime to
/// it, if there is such a split.
fn coprime_split(r: usize) -> Option<(usize, usize)> {
    let p = smallest_factor(r);
    let mut r1 = p;
    while r % (r1 * p) == 0 {
        r1 *= p;
    }
    (r1 < r).then_some((r1, r / r1))
}

/// The inverse of `a` modulo `m` (`a` and `m` coprime, `m > 1`).
fn inverse_mod(a: usize, m: usize) -> usize {
    (1..m).find(|&x| a * x % m == 1).expect("coprime")
}

/// Good-Thomas (prime-factor) in registers for coprime `r1`, `r2`: input `n = (r2 n1 + r1 n2)
/// mod r` and output `k = (r2 e2 k1 + r1 e1 k2) mod r` (`e2 = r2^-1 mod r1`, `e1 = r1^-1 mod
/// r2`, the Chinese remainder map) make `W_r^{nk} = W_r1^{n1 k1} W_r2^{n2 k2}`: the two short
/// DFTs with no twiddles between them.
fn dft_prime_factor<T: FftFloat>(x: &[Cx<T>], r1: usize, r2: usize) -> Vec<Cx<T>> {
    let r = r1 * r2;
    let (e2, e1) = (inverse_mod(r2 % r1, r1), inverse_mod(r1 % r2, r2));
    let y: Vec<Vec<Cx<T>>> =
        (0..r2).map(|n2| dft(&(0..r1).map(|n1| x[(r2 * n1 + r1 * n2) % r]).collect::<Vec<_>>())).collect();
    let mut out = vec![Cx::zero(); r];
    for k1 in 0..r1 {
        let row: Vec<Cx<T>> = (0..r2).map(|n2| y[n2][k1]).collect();
        for (k2, v) in dft(&row).into_iter().enumerate() {
            out[(r2 * e2 * k1 + r1 * e1 * k2) % r] = v;
        }
    }
    out
}

/// Cooley-Tukey in registers: `n = r2 n1 + n2`, `k = k1 + r1 k2`.
fn dft_split<T: FftFloat>(x: &[Cx<T>], r1: usize, r2: usize) -> Vec<Cx<T>> {
    let r = r1 * r2;
    let mut y: Vec<Vec<Cx<T>>> = Vec::with_capacity(r2);
    for n2 in 0..r2 {
        let col: Vec<Cx<T>> = (0..r1).map(|n1| x[r2 * n1 + n2]).collect();
        let mut f = dft(&col);
        for (k1, v) in f.iter_mut().enumerate() {
            let (c, s) = root((n2 * k1) as u64, r as u64);
            *v = v.mul_const(c, s);
        }
        y.push(f);
    }
    let mut out = vec![Cx::zero(); r];
    for k1 in 0..r1 {
        let row: Vec<Cx<T>> = (0..r2).map(|n2| y[n2][k1]).collect();
        for (k2, v) in dft(&row).into_iter().enumerate() {
            out[k1 + r1 * k2] = v;
        }
    }
    out
}

/// An odd prime length by the symmetric direct formula: `(r - 1)^2 / 2` real multiply pairs.
fn dft_prime<T: FftFloat>(x: &[Cx<T>]) -> Vec<Cx<T>> {
    let r = x.len();
    let h = (r - 1) / 2;
    let s: Vec<Cx<T>> = (1..=h).map(|m| x[m].add(x[r - m])).collect();
    let d: Vec<Cx<T>> = (1..=h).map(|m| x[m].sub(x[r - m])).collect();
    let mut out = vec![Cx::zero(); r];
    let mut x0 = x[0];
    for v in &s {
        x0 = x0.add(*v);
    }
    out[0] = x0;
    for kk in 1..=h {
        let (mut are, mut aim) = (x[0].re, x[0].im);
        let mut bre: Option<Val<T>> = None;
        let mut bim: Option<Val<T>> = None;
        for m in 1..=h {
            let (c, sn) = root((kk * m) as u64, r as u64);
            // root gives (cos, -sin) of 2 pi km / r; the formula wants sin itself.
            let sn = -sn;
            are = s[m - 1].re.mul_add(k::<T>(c), are);
            aim = s[m - 1].im.mul_add(k::<T>(c), aim);
            bre = Some(match bre {
                None => d[m - 1].re * k::<T>(sn),
                Some(b) => d[m - 1].re.mul_add(k::<T>(sn), b),
            });
            bim = Some(match bim {
                None => d[m - 1].im * k::<T>(sn),
                Some(b) => d[m - 1].im.mul_add(k::<T>(sn), b),
            });
        }
        let (bre, bim) = (bre.unwrap_or(k(0.0)), bim.unwrap_or(k(0.0)));
        // X_k = A - iB, X_{r-k} = A + iB.
        out[kk] = Cx { re: are + bim, im: aim - bre };
        out[r - kk] = Cx { re: are - bim, im: aim + bre };
    }
    out
}
