//! Double-double arithmetic (about 106 bits), the host reference for every type: f32 and f64
//! inputs convert exactly, and sums of products stay exact far beyond the routines' bounds.

use std::ops::{Add, Mul, Neg, Sub};

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

impl Dd {
    pub const ZERO: Dd = Dd { hi: 0.0, lo: 0.0 };
    pub fn new(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }
    pub fn to_f64(self) -> f64 {
        if !self.hi.is_finite() {
            return self.hi;
        }
        self.hi + self.lo
    }
    pub fn abs(self) -> Dd {
        if self.hi < 0.0 || (self.hi == 0.0 && self.lo < 0.0) {
            -self
        } else {
            self
        }
    }
    pub fn sqrt(self) -> Dd {
        if self.hi <= 0.0 || !self.hi.is_finite() {
            return Dd::new(self.hi.sqrt());
        }
        let x = self.hi.sqrt();
        // One Newton step in double-double.
        let xx = Dd::new(x) * Dd::new(x);
        let r = (self - xx).to_f64() / (2.0 * x);
        let (hi, lo) = two_sum(x, r);
        Dd { hi, lo }
    }
}

impl Add for Dd {
    type Output = Dd;
    fn add(self, o: Dd) -> Dd {
        if !self.hi.is_finite() || !o.hi.is_finite() {
            return Dd::new(self.hi + o.hi);
        }
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let (s, e) = two_sum(s, e + t);
        let (hi, lo) = two_sum(s, e + f);
        Dd { hi, lo }
    }
}
impl Neg for Dd {
    type Output = Dd;
    fn neg(self) -> Dd {
        Dd { hi: -self.hi, lo: -self.lo }
    }
}
impl Sub for Dd {
    type Output = Dd;
    fn sub(self, o: Dd) -> Dd {
        self + (-o)
    }
}
impl Mul for Dd {
    type Output = Dd;
    fn mul(self, o: Dd) -> Dd {
        let p = self.hi * o.hi;
        if !p.is_finite() || p == 0.0 {
            return Dd::new(p + self.hi * o.lo + self.lo * o.hi);
        }
        let e = self.hi.mul_add(o.hi, -p) + (self.hi * o.lo + self.lo * o.hi);
        let (hi, lo) = two_sum(p, e);
        Dd { hi, lo }
    }
}

/// A complex double-double.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cd {
    pub re: Dd,
    pub im: Dd,
}

impl Cd {
    pub const ZERO: Cd = Cd { re: Dd::ZERO, im: Dd::ZERO };
    pub fn new(re: f64, im: f64) -> Cd {
        Cd { re: Dd::new(re), im: Dd::new(im) }
    }
    pub fn conj(self) -> Cd {
        Cd { re: self.re, im: -self.im }
    }
    /// `|re| + |im|` as f64.
    pub fn abs1(self) -> f64 {
        self.re.to_f64().abs() + self.im.to_f64().abs()
    }
    /// `|z|` as f64 (magnitudes for error bounds).
    pub fn mag(self) -> f64 {
        self.re.to_f64().hypot(self.im.to_f64())
    }
    pub fn is_zero(self) -> bool {
        self.re.hi == 0.0 && self.im.hi == 0.0
    }
}

impl Add for Cd {
    type Output = Cd;
    fn add(self, o: Cd) -> Cd {
        Cd { re: self.re + o.re, im: self.im + o.im }
    }
}
impl Sub for Cd {
    type Output = Cd;
    fn sub(self, o: Cd) -> Cd {
        Cd { re: self.re - o.re, im: self.im - o.im }
    }
}
impl Neg for Cd {
    type Output = Cd;
    fn neg(self) -> Cd {
        Cd { re: -self.re, im: -self.im }
    }
}
impl Mul for Cd {
    type Output = Cd;
    fn mul(self, o: Cd) -> Cd {
        if self.im.hi == 0.0 && o.im.hi == 0.0 && self.im.lo == 0.0 && o.im.lo == 0.0 {
            return Cd { re: self.re * o.re, im: Dd::ZERO };
        }
        Cd { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }
}
