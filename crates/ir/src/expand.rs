//! f64 `exp`, `ln`, `sin` and `cos` as sequences of exactly rounded IR ops (range reduction,
//! then a polynomial), for back ends whose hardware has no accurate f64 transcendental (PTX's
//! approximate instructions are f32 only).
//!
//! Every op used (`fma`, `+ - * /`, `floor`, casts, bit casts, shifts, selects) is correctly
//! rounded or exact on every back end, so the expansion gives the same bits wherever it runs;
//! the CPU executor can run it to check it against the host's libm.
//!
//! Accuracy (relative, against a correctly rounded result): `exp` and `ln` within a few ulp
//! (below 1e-15) over the whole f64 range; `sin` and `cos` within a few ulp of the reduced
//! argument for |x| < 1e5 (Cody-Waite reduction by pi/2 in three parts; larger arguments lose
//! about one bit per doubling, as no Payne-Hanek reduction is done).

use crate::*;

/// Replaces every f64 `exp`, `ln`, `sin` and `cos` in `f` by its expansion. The result value
/// of each keeps its number; the new values are appended to the arena.
pub fn expand_f64_math(f: &mut Function) {
    for r in 0..f.regions.len() {
        let insts = std::mem::take(&mut f.regions[r]);
        let mut e = Emit { values: &mut f.values, out: Vec::with_capacity(insts.len()) };
        for inst in insts {
            match (&inst.op, inst.result) {
                (Op::Unary(op @ (UnaryOp::Exp | UnaryOp::Log | UnaryOp::Sin | UnaryOp::Cos), x), Some(d))
                    if e.values[x.0 as usize] == Type::Scalar(ScalarType::F64) =>
                {
                    let (op, x) = (*op, *x);
                    let (c, a, b) = match op {
                        UnaryOp::Exp => e.exp(x),
                        UnaryOp::Log => e.ln(x),
                        UnaryOp::Sin => e.sin_cos(x, 0),
                        _ => e.sin_cos(x, 1),
                    };
                    // The last step is a select, which defines the original result value.
                    e.out.push(Inst { result: Some(d), op: Op::Select(c, a, b) });
                }
                _ => e.out.push(inst),
            }
        }
        f.regions[r] = e.out;
    }
}

/// Whether `f` holds an op [`expand_f64_math`] would replace.
pub fn has_f64_math(f: &Function) -> bool {
    let mut found = false;
    f.walk(&mut |i| {
        if let Op::Unary(UnaryOp::Exp | UnaryOp::Log | UnaryOp::Sin | UnaryOp::Cos, x) = i.op {
            found |= f.value_type(x) == Type::Scalar(ScalarType::F64);
        }
    });
    found
}

struct Emit<'a> {
    values: &'a mut Vec<Type>,
    out: Vec<Inst>,
}

use ScalarType::{Bool, F64, I64, U64};

/// ln 2 in two parts (fdlibm's); the high part has 21 trailing zero bits, so `n * LN2_HI` is
/// exact for the exponents that occur.
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
/// pi/2 in three parts of 33 bits (fdlibm's pio2_1, pio2_2, pio2_3), so `k * part` is exact for
/// |k| < 2^20.
const PIO2_1: f64 = f64::from_bits(0x3FF9_21FB_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3DD0_B461_1A60_0000);
const PIO2_3: f64 = f64::from_bits(0x3BA3_198A_2E00_0000);

impl Emit<'_> {
    fn op(&mut self, op: Op, ty: ScalarType) -> Value {
        self.values.push(ty.into());
        let v = Value(self.values.len() as u32 - 1);
        self.out.push(Inst { result: Some(v), op });
        v
    }
    fn f(&mut self, x: f64) -> Value {
        self.op(Op::Const(Const { ty: F64, bits: x.to_bits() }), F64)
    }
    fn i(&mut self, x: i64) -> Value {
        self.op(Op::Const(Const { ty: I64, bits: x as u64 }), I64)
    }
    fn bin(&mut self, op: BinaryOp, a: Value, b: Value, ty: ScalarType) -> Value {
        self.op(Op::Binary(op, a, b), ty)
    }
    fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        self.op(Op::Fma(a, b, c), F64)
    }
    fn cmp(&mut self, op: CmpOp, a: Value, b: Value) -> Value {
        self.op(Op::Cmp(op, a, b), Bool)
    }
    fn select(&mut self, c: Value, a: Value, b: Value, ty: ScalarType) -> Value {
        self.op(Op::Select(c, a, b), ty)
    }
    /// `c[0] + x * (c[1] + x * (...))` by fused multiply-adds.
    fn horner(&mut self, x: Value, c: &[f64]) -> Value {
        let mut acc = self.f(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let kv = self.f(k);
            acc = self.fma(acc, x, kv);
        }
        acc
    }
    /// `2^n` for an i64 `n` in [-1022, 1023], built from its exponent bits.
    fn pow2(&mut self, n: Value) -> Value {
        let bias = self.i(1023);
        let e = self.bin(BinaryOp::Add, n, bias, I64);
        let s = self.op(Op::Const(Const { ty: U64, bits: 52 }), U64);
        let bits = self.bin(BinaryOp::Shl, e, s, I64);
        self.op(Op::Bitcast(bits), F64)
    }

    /// e^x = 2^n e^r with n = round(x / ln 2), r = x - n ln 2 (|r| <= 0.35), e^r by its Taylor
    /// series to degree 13 (first omitted term below 5e-18).
    fn exp(&mut self, x: Value) -> (Value, Value, Value) {
        // Past these bounds e^x is inf or 0 anyway; clamping keeps 2^n in reach of two scales.
        let (lo, hi) = (self.f(-746.0), self.f(710.0));
        let xc = self.bin(BinaryOp::Max, x, lo, F64);
        let xc = self.bin(BinaryOp::Min, xc, hi, F64);
        let (log2e, half) = (self.f(std::f64::consts::LOG2_E), self.f(0.5));
        let t = self.fma(xc, log2e, half);
        let nf = self.op(Op::Unary(UnaryOp::Floor, t), F64);
        let nneg = self.op(Op::Unary(UnaryOp::Neg, nf), F64);
        let (ln2_hi, ln2_lo) = (self.f(LN2_HI), self.f(LN2_LO));
        let r = self.fma(nneg, ln2_hi, xc);
        let r = self.fma(nneg, ln2_lo, r);
        let mut c = [1.0f64; 14];
        for k in 1..14 {
            c[k] = c[k - 1] / k as f64;
        }
        let p = self.horner(r, &c);
        // 2^n as two scales, so results near the overflow and underflow bounds still round once.
        let n = self.op(Op::Cast(nf), I64);
        let one = self.op(Op::Const(Const { ty: U64, bits: 1 }), U64);
        let n1 = self.bin(BinaryOp::Shr, n, one, I64);
        let n2 = self.bin(BinaryOp::Sub, n, n1, I64);
        let (s1, s2) = (self.pow2(n1), self.pow2(n2));
        let y = self.bin(BinaryOp::Mul, p, s1, F64);
        let y = self.bin(BinaryOp::Mul, y, s2, F64);
        // NaN in, NaN out (the clamp would have turned it into a number).
        let nan = self.cmp(CmpOp::Ne, x, x);
        (nan, x, y)
    }

    /// ln x = e ln 2 + ln m with x = m 2^e, m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s) with
    /// s = (m - 1) / (m + 1), |s| <= 0.172, by its series to s^21 (first omitted term below
    /// 1e-16 of the result).
    fn ln(&mut self, x: Value) -> (Value, Value, Value) {
        // Subnormals are scaled into the normal range first.
        let (min_normal, two54) = (self.f(f64::MIN_POSITIVE), self.f(18_014_398_509_481_984.0));
        let sub = self.cmp(CmpOp::Lt, x, min_normal);
        let scaled = self.bin(BinaryOp::Mul, x, two54, F64);
        let xs = self.select(sub, scaled, x, F64);
        let (m54, zero_i) = (self.i(-54), self.i(0));
        let e_adj = self.select(sub, m54, zero_i, I64);
        let bits = self.op(Op::Bitcast(xs), I64);
        let s52 = self.op(Op::Const(Const { ty: U64, bits: 52 }), U64);
        let biased = self.bin(BinaryOp::Shr, bits, s52, I64);
        let mask11 = self.i(0x7ff);
        let biased = self.bin(BinaryOp::And, biased, mask11, I64);
        let mant_mask = self.i(0x000f_ffff_ffff_ffff);
        let one_bits = self.i(0x3ff0_0000_0000_0000);
        let mb = self.bin(BinaryOp::And, bits, mant_mask, I64);
        let mb = self.bin(BinaryOp::Or, mb, one_bits, I64);
        let m = self.op(Op::Bitcast(mb), F64);
        // m in [1, 2): halve it above sqrt(2) so |m - 1| stays small.
        let sqrt2 = self.f(std::f64::consts::SQRT_2);
        let big = self.cmp(CmpOp::Gt, m, sqrt2);
        let half = self.f(0.5);
        let mh = self.bin(BinaryOp::Mul, m, half, F64);
        let m = self.select(big, mh, m, F64);
        let (one_i, bias) = (self.i(1), self.i(1023));
        let inc = self.select(big, one_i, zero_i, I64);
        let e = self.bin(BinaryOp::Sub, biased, bias, I64);
        let e = self.bin(BinaryOp::Add, e, inc, I64);
        let e = self.bin(BinaryOp::Add, e, e_adj, I64);
        let ef = self.op(Op::Cast(e), F64);
        let one = self.f(1.0);
        let fm = self.bin(BinaryOp::Sub, m, one, F64);
        let den = self.bin(BinaryOp::Add, m, one, F64);
        let s = self.bin(BinaryOp::Div, fm, den, F64);
        let z = self.bin(BinaryOp::Mul, s, s, F64);
        // q = 1/3 + z/5 + ... + z^9/21; ln m = 2s + 2s z q.
        let c: Vec<f64> = (1..=10).map(|k| 1.0 / (2 * k + 1) as f64).collect();
        let q = self.horner(z, &c);
        let two_s = self.bin(BinaryOp::Add, s, s, F64);
        let zq = self.bin(BinaryOp::Mul, z, q, F64);
        let lnm = self.fma(two_s, zq, two_s);
        let (ln2_hi, ln2_lo) = (self.f(LN2_HI), self.f(LN2_LO));
        let lo = self.fma(ef, ln2_lo, lnm);
        let y = self.fma(ef, ln2_hi, lo);
        // ln 0 = -inf, ln inf = inf, ln of a negative number or NaN is NaN.
        let zero = self.f(0.0);
        let is_zero = self.cmp(CmpOp::Eq, x, zero);
        let ninf = self.f(f64::NEG_INFINITY);
        let y = self.select(is_zero, ninf, y, F64);
        let inf = self.f(f64::INFINITY);
        let is_inf = self.cmp(CmpOp::Eq, x, inf);
        let y = self.select(is_inf, inf, y, F64);
        let ok = self.cmp(CmpOp::Ge, x, zero);
        let nan = self.f(f64::NAN);
        (ok, y, nan)
    }

    /// sin x (`shift` 0) or cos x (`shift` 1): r = x - k pi/2 with k = round(2x / pi), then
    /// the sine or cosine Taylor polynomial of r (|r| <= pi/4; to degree 15 and 16, first
    /// omitted terms below 6e-17 and 2e-18), chosen and signed by the quadrant k + shift.
    fn sin_cos(&mut self, x: Value, shift: i64) -> (Value, Value, Value) {
        let (two_over_pi, half) = (self.f(std::f64::consts::FRAC_2_PI), self.f(0.5));
        let t = self.fma(x, two_over_pi, half);
        let kf = self.op(Op::Unary(UnaryOp::Floor, t), F64);
        let kneg = self.op(Op::Unary(UnaryOp::Neg, kf), F64);
        let p1 = self.f(PIO2_1);
        let p2 = self.f(PIO2_2);
        let p3 = self.f(PIO2_3);
        let r = self.fma(kneg, p1, x);
        let r = self.fma(kneg, p2, r);
        let r = self.fma(kneg, p3, r);
        let z = self.bin(BinaryOp::Mul, r, r, F64);
        // sin r = r (1 - z/3! + z^2/5! - ...), cos r = 1 - z/2! + z^2/4! - ...
        let mut fact = [1.0f64; 18];
        for k in 1..18 {
            fact[k] = fact[k - 1] * k as f64;
        }
        let sc: Vec<f64> = (0..8).map(|k| if k % 2 == 0 { 1.0 } else { -1.0 } / fact[2 * k + 1]).collect();
        let cc: Vec<f64> = (0..9).map(|k| if k % 2 == 0 { 1.0 } else { -1.0 } / fact[2 * k]).collect();
        let sp = self.horner(z, &sc);
        let s = self.bin(BinaryOp::Mul, r, sp, F64);
        let c = self.horner(z, &cc);
        let k = self.op(Op::Cast(kf), I64);
        let sh = self.i(shift);
        let q = self.bin(BinaryOp::Add, k, sh, I64);
        let (one, two, zero) = (self.i(1), self.i(2), self.i(0));
        let odd = self.bin(BinaryOp::And, q, one, I64);
        let odd = self.cmp(CmpOp::Ne, odd, zero);
        let v = self.select(odd, c, s, F64);
        let neg = self.bin(BinaryOp::And, q, two, I64);
        let neg = self.cmp(CmpOp::Ne, neg, zero);
        let nv = self.op(Op::Unary(UnaryOp::Neg, v), F64);
        (neg, nv, v)
    }
}
