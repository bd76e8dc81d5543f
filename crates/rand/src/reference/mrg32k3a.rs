//! MRG32k3a (L'Ecuyer's combined multiple recursive generator) with cuRAND's
//! `curandStateMRG32k3a_t` semantics.
//!
//! Two order-3 recurrences modulo `m1 = 2^32 - 209` and `m2 = 2^32 - 22853`; the output is
//! their difference in `1..=m1`. Skipping multiplies each 3-word state by a power of its
//! 3x3 companion matrix. The power tables (`A^(2^k)` for offsets, `A^(2^(76+k))` for
//! subsequences of 2^76 values) are `static` data evaluated at compile time.

use super::{BoxMullerCache, CurandDevice};

/// First modulus, `2^32 - 209`.
pub const MRG_M1: u32 = 4_294_967_087;
/// Second modulus, `2^32 - 22853`.
pub const MRG_M2: u32 = 4_294_944_443;
const M1C: u64 = 209;
const M2C: u64 = 22_853;
const A12: u64 = 1_403_580;
const A13N: u64 = 810_728;
const A21: u64 = 527_612;
const A23N: u64 = 1_370_589;
/// `MRG32K3A_NORM`: scales the output to (0, 1].
pub const MRG_NORM: f64 = 2.328_306_549_837_829e-10;
/// `MRG32K3A_BITS_NORM`: scales the output to 32 bits for `curand()`.
pub const MRG_BITS_NORM: f64 = 1.000_000_048_662;

type Mat3 = [[u32; 3]; 3];

const fn mat_mul(a: &Mat3, b: &Mat3, m: u32) -> Mat3 {
    let mut o = [[0u32; 3]; 3];
    let mut i = 0;
    while i < 3 {
        let mut j = 0;
        while j < 3 {
            let mut acc = 0u64;
            let mut k = 0;
            while k < 3 {
                acc += (a[i][k] as u64 * b[k][j] as u64) % m as u64;
                k += 1;
            }
            o[i][j] = (acc % m as u64) as u32;
            j += 1;
        }
        i += 1;
    }
    o
}

/// `[A^(2^(start)), A^(2^(start+1)), ...]`, 64 entries.
const fn pow2_table(a: Mat3, m: u32, start: u32) -> [Mat3; 64] {
    let mut p = a;
    let mut i = 0;
    while i < start {
        p = mat_mul(&p, &p, m);
        i += 1;
    }
    let mut t = [[[0u32; 3]; 3]; 64];
    let mut k = 0;
    while k < 64 {
        t[k] = p;
        p = mat_mul(&p, &p, m);
        k += 1;
    }
    t
}

/// Companion matrix of the first recurrence: `(s0, s1, s2) -> (s1, s2, a12 s1 - a13n s0)`.
const A1: Mat3 = [[0, 1, 0], [0, 0, 1], [MRG_M1 - A13N as u32, A12 as u32, 0]];
/// Companion matrix of the second recurrence: `(s0, s1, s2) -> (s1, s2, a21 s2 - a23n s0)`.
const A2: Mat3 = [[0, 1, 0], [0, 0, 1], [MRG_M2 - A23N as u32, 0, A21 as u32]];

/// `A1^(2^k)`.
pub static M1_OFFSET: [Mat3; 64] = pow2_table(A1, MRG_M1, 0);
/// `A2^(2^k)`.
pub static M2_OFFSET: [Mat3; 64] = pow2_table(A2, MRG_M2, 0);
/// `A1^(2^(76+k))`.
pub static M1_SUBSEQUENCE: [Mat3; 64] = pow2_table(A1, MRG_M1, 76);
/// `A2^(2^(76+k))`.
pub static M2_SUBSEQUENCE: [Mat3; 64] = pow2_table(A2, MRG_M2, 76);

fn mat_vec(a: &Mat3, v: [u32; 3], m: u32) -> [u32; 3] {
    let mut o = [0u32; 3];
    for (row, out) in a.iter().zip(o.iter_mut()) {
        let mut acc = 0u64;
        for (&x, &y) in row.iter().zip(v.iter()) {
            acc += (x as u64 * y as u64) % m as u64;
        }
        *out = (acc % m as u64) as u32;
    }
    o
}

fn apply_powers(table: &[Mat3; 64], n: u64, mut v: [u32; 3], m: u32) -> [u32; 3] {
    let mut bits = n;
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        v = mat_vec(&table[k], v, m);
    }
    v
}

/// `curandStateMRG32k3a_t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mrg32k3a {
    /// State of the first recurrence, each word below `m1`.
    pub s1: [u32; 3],
    /// State of the second recurrence, each word below `m2`.
    pub s2: [u32; 3],
    /// Box-Muller cache.
    pub cache: BoxMullerCache,
}

impl Mrg32k3a {
    /// `curand_init(seed, subsequence, offset, &state)`. Seed 0 gives L'Ecuyer's published
    /// initial state (all words 12345).
    pub fn new(seed: u64, subsequence: u64, offset: u64) -> Self {
        let mut s = Self { s1: [12345; 3], s2: [12345; 3], cache: BoxMullerCache::default() };
        if seed != 0 {
            let x1 = (seed as u32 ^ 0x5555_5555) as u64;
            let x2 = ((seed >> 32) as u32 ^ 0xAAAA_AAAA) as u64;
            let mul = |x: u64, y: u32, m: u32| ((x * y as u64) % m as u64) as u32;
            s.s1 = [mul(x1, s.s1[0], MRG_M1), mul(x2, s.s1[1], MRG_M1), mul(x1, s.s1[2], MRG_M1)];
            s.s2 = [mul(x2, s.s2[0], MRG_M2), mul(x1, s.s2[1], MRG_M2), mul(x2, s.s2[2], MRG_M2)];
        }
        s.skip_subsequence(subsequence);
        s.skip(offset);
        s
    }

    /// `skipahead(n, &state)`.
    pub fn skip(&mut self, n: u64) {
        self.s1 = apply_powers(&M1_OFFSET, n, self.s1, MRG_M1);
        self.s2 = apply_powers(&M2_OFFSET, n, self.s2, MRG_M2);
    }

    /// `skipahead_subsequence(n, &state)`: skip `n * 2^76` values.
    pub fn skip_subsequence(&mut self, n: u64) {
        self.s1 = apply_powers(&M1_SUBSEQUENCE, n, self.s1, MRG_M1);
        self.s2 = apply_powers(&M2_SUBSEQUENCE, n, self.s2, MRG_M2);
    }

    /// `curand_MRG32k3a(&state)`: one step; the raw output in `1..=m1`.
    ///
    /// Reductions use `2^32 = c (mod m)` with `c = 209` or `22853`, as cuRAND's device code
    /// does, so no 64-bit division is needed on a GPU.
    pub fn next_raw(&mut self) -> u32 {
        // Valid states keep every word below its modulus, and then nothing here wraps; the
        // wrapping operations only keep a state assembled by hand from out-of-range words
        // from panicking (its output is then meaningless, as it would be on the device).
        let m1 = MRG_M1 as u64;
        let m2 = MRG_M2 as u64;
        let p3 = A13N.wrapping_mul(m1.wrapping_sub(self.s1[0] as u64));
        let mut p1 = A12.wrapping_mul(self.s1[1] as u64).wrapping_add(p3);
        p1 = (p1 >> 32).wrapping_mul(M1C).wrapping_add(p1 & 0xffff_ffff);
        if p1 >= m1 {
            p1 = p1.wrapping_sub(m1);
        }
        self.s1 = [self.s1[1], self.s1[2], p1 as u32];
        let p4 = A23N.wrapping_mul(m2.wrapping_sub(self.s2[0] as u64));
        let mut p2 = A21.wrapping_mul(self.s2[2] as u64).wrapping_add(p4);
        p2 = (p2 >> 32).wrapping_mul(M2C).wrapping_add(p2 & 0xffff_ffff);
        p2 = (p2 >> 32).wrapping_mul(M2C).wrapping_add(p2 & 0xffff_ffff);
        if p2 >= m2 {
            p2 = p2.wrapping_sub(m2);
        }
        self.s2 = [self.s2[1], self.s2[2], p2 as u32];
        let p5 = (p1 as u32).wrapping_sub(p2 as u32);
        if p1 <= p2 {
            p5.wrapping_add(MRG_M1)
        } else {
            p5
        }
    }
}

impl CurandDevice for Mrg32k3a {
    /// `curand(&state)`: the raw output scaled by `MRG32K3A_BITS_NORM` and truncated.
    fn next_u32(&mut self) -> u32 {
        (self.next_raw() as f64 * MRG_BITS_NORM) as u32
    }

    fn cache(&mut self) -> &mut BoxMullerCache {
        &mut self.cache
    }

    /// `curand_uniform`: `(float)(raw * MRG32K3A_NORM)`.
    fn uniform(&mut self) -> f32 {
        (self.next_raw() as f64 * MRG_NORM) as f32
    }

    /// `curand_uniform_double`: `raw * MRG32K3A_NORM`, one step.
    fn uniform_double(&mut self) -> f64 {
        self.next_raw() as f64 * MRG_NORM
    }

    /// `curand_box_muller_mrg`: from two float uniforms.
    fn box_muller(&mut self) -> [f32; 2] {
        let x = self.uniform();
        let y = self.uniform() * super::distributions::TWO_PI_F32;
        let s = (-2.0f32 * x.ln()).sqrt();
        let (sin, cos) = y.sin_cos();
        [sin * s, cos * s]
    }

    /// `curand_box_muller_mrg_double`: from two double uniforms, angle by `sincospi`.
    fn box_muller_double(&mut self) -> [f64; 2] {
        let x = self.uniform_double();
        let y = self.uniform_double() * 2.0;
        let s = (-2.0 * x.ln()).sqrt();
        let (sin, cos) = super::distributions::sincospi(y);
        [sin * s, cos * s]
    }
}
