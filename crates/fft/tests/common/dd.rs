//! Double-double arithmetic (about 106 bits) and an FFT in it: the reference for `f64`
//! results, as rocFFT's accuracy tests use a higher-precision reference. Powers of two by
//! radix 2, short lengths by the direct DFT, others by Bluestein (all in double-double, with
//! twiddles from double-double Taylor series after an exact octant reduction).

use ferrocm_fft::Complex;

/// `hi + lo` with `|lo| <= ulp(hi) / 2`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dd {
    pub hi: f64,
    pub lo: f64,
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

impl Dd {
    pub const fn new(hi: f64, lo: f64) -> Dd {
        Dd { hi, lo }
    }
    pub fn from(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }
    pub fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let (s, e) = quick_two_sum(s, e + t);
        let (hi, lo) = quick_two_sum(s, e + f);
        Dd { hi, lo }
    }
    pub fn neg(self) -> Dd {
        Dd { hi: -self.hi, lo: -self.lo }
    }
    pub fn sub(self, o: Dd) -> Dd {
        self.add(o.neg())
    }
    pub fn mul(self, o: Dd) -> Dd {
        let p = self.hi * o.hi;
        let e = self.hi.mul_add(o.hi, -p) + (self.hi * o.lo + self.lo * o.hi);
        let (hi, lo) = quick_two_sum(p, e);
        Dd { hi, lo }
    }
    pub fn div(self, o: Dd) -> Dd {
        let q1 = self.hi / o.hi;
        let r = self.sub(o.mul(Dd::from(q1)));
        let q2 = r.hi / o.hi;
        let r = r.sub(o.mul(Dd::from(q2)));
        let q3 = r.hi / o.hi;
        let (hi, lo) = quick_two_sum(q1, q2);
        Dd { hi, lo }.add(Dd::from(q3))
    }
    pub fn to_f64(self) -> f64 {
        self.hi + self.lo
    }
}

/// 2 pi in double-double.
const TAU: Dd = Dd::new(std::f64::consts::TAU, 2.449_293_598_294_706_4e-16);

/// `(cos x, sin x)` for `0 <= x <= pi/4` by Taylor series.
fn sincos(x: Dd) -> (Dd, Dd) {
    let x2 = x.mul(x);
    let (mut s, mut c) = (x, Dd::from(1.0));
    let mut term_s = x;
    let mut term_c = Dd::from(1.0);
    let mut k = 1.0;
    for _ in 0..30 {
        // term_s *= -x^2 / ((2k)(2k+1)); term_c *= -x^2 / ((2k-1)(2k)).
        term_c = term_c.mul(x2).div(Dd::from((2.0 * k - 1.0) * (2.0 * k))).neg();
        term_s = term_s.mul(x2).div(Dd::from((2.0 * k) * (2.0 * k + 1.0))).neg();
        c = c.add(term_c);
        s = s.add(term_s);
        if term_s.hi.abs() < 1e-34 && term_c.hi.abs() < 1e-34 {
            break;
        }
        k += 1.0;
    }
    (c, s)
}

/// Complex double-double.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cdd {
    pub re: Dd,
    pub im: Dd,
}

impl Cdd {
    pub fn from(c: Complex<f64>) -> Cdd {
        Cdd { re: Dd::from(c.re), im: Dd::from(c.im) }
    }
    pub fn to_c64(self) -> Complex<f64> {
        Complex::new(self.re.to_f64(), self.im.to_f64())
    }
    pub fn add(self, o: Cdd) -> Cdd {
        Cdd { re: self.re.add(o.re), im: self.im.add(o.im) }
    }
    pub fn sub(self, o: Cdd) -> Cdd {
        Cdd { re: self.re.sub(o.re), im: self.im.sub(o.im) }
    }
    pub fn mul(self, o: Cdd) -> Cdd {
        Cdd { re: self.re.mul(o.re).sub(self.im.mul(o.im)), im: self.re.mul(o.im).add(self.im.mul(o.re)) }
    }
    pub fn conj(self) -> Cdd {
        Cdd { re: self.re, im: self.im.neg() }
    }
    pub fn scale(self, s: Dd) -> Cdd {
        Cdd { re: self.re.mul(s), im: self.im.mul(s) }
    }
}

/// `e^{-2 pi i e / n}` in double-double (exact octant reduction, then Taylor series).
pub fn root(e: u64, n: u64) -> Cdd {
    let (mut num, mut den) = ((e % n) as u128, n as u128);
    let (mut cs, mut ss, mut swap) = (1.0, 1.0, false);
    if 2 * num > den {
        num = den - num;
        ss = -1.0;
    }
    if 4 * num > den {
        num = den - 2 * num;
        den *= 2;
        cs = -1.0;
    }
    if 8 * num > den {
        num = den - 4 * num;
        den *= 4;
        swap = true;
    }
    let x = TAU.mul(Dd::from(num as f64).div(Dd::from(den as f64)));
    let (mut c, mut s) = sincos(x);
    if swap {
        std::mem::swap(&mut c, &mut s);
    }
    Cdd { re: c.mul(Dd::from(cs)), im: s.mul(Dd::from(-ss)) }
}

/// The DFT of `x` in double-double, forward or inverse (unnormalised).
pub fn fft(x: &[Cdd], inverse: bool) -> Vec<Cdd> {
    let n = x.len();
    let tw = |e: usize, m: usize| {
        let r = root(e as u64, m as u64);
        if inverse {
            r.conj()
        } else {
            r
        }
    };
    if n <= 1 {
        return x.to_vec();
    }
    if n.is_power_of_two() {
        let roots: Vec<Cdd> = (0..n / 2).map(|e| tw(e, n)).collect();
        let bits = n.trailing_zeros();
        let mut a: Vec<Cdd> = (0..n).map(|i| x[i.reverse_bits() >> (usize::BITS - bits)]).collect();
        let mut len = 2;
        while len <= n {
            let step = n / len;
            for start in (0..n).step_by(len) {
                for j in 0..len / 2 {
                    let u = a[start + j];
                    let v = a[start + j + len / 2].mul(roots[j * step]);
                    a[start + j] = u.add(v);
                    a[start + j + len / 2] = u.sub(v);
                }
            }
            len *= 2;
        }
        return a;
    }
    if n <= 64 {
        return (0..n)
            .map(|k| {
                x.iter().enumerate().fold(Cdd::default(), |acc, (j, v)| acc.add(v.mul(tw((j * k) % n, n))))
            })
            .collect();
    }
    // Bluestein in double-double.
    let m = (2 * n - 1).next_power_of_two();
    let chirp: Vec<Cdd> = (0..n)
        .map(|j| {
            let r = root(((j as u128 * j as u128) % (2 * n as u128)) as u64, 2 * n as u64);
            if inverse {
                r.conj()
            } else {
                r
            }
        })
        .collect();
    let mut a = vec![Cdd::default(); m];
    let mut b = vec![Cdd::default(); m];
    for j in 0..n {
        a[j] = x[j].mul(chirp[j]);
        b[j] = chirp[j].conj();
        if j > 0 {
            b[m - j] = chirp[j].conj();
        }
    }
    let fa = fft(&a, false);
    let fb = fft(&b, false);
    let prod: Vec<Cdd> = fa.iter().zip(&fb).map(|(p, q)| p.mul(*q)).collect();
    let c = fft(&prod, true);
    let inv_m = Dd::from(1.0 / m as f64);
    (0..n).map(|k| c[k].scale(inv_m).mul(chirp[k])).collect()
}

/// [`fft`] on `f64` data, rounded back (for line-by-line references).
pub fn fft_line(x: &mut [Complex<f64>], inverse: bool) {
    let y = fft(&x.iter().map(|c| Cdd::from(*c)).collect::<Vec<_>>(), inverse);
    for (o, v) in x.iter_mut().zip(y) {
        *o = v.to_c64();
    }
}
