//! XORWOW (Marsaglia's xorshift with a Weyl sequence) with cuRAND's `curandStateXORWOW_t`
//! semantics.
//!
//! The five xorshift words form a 160-bit vector that one step maps linearly over GF(2);
//! skipping `n` steps multiplies it by the step matrix to the power `n`. The Weyl counter `d`
//! is affine and skips by `362437 * n`. A subsequence is 2^67 steps; since
//! `362437 * 2^67` is a multiple of 2^32, subsequence skips leave `d` alone.
//!
//! The matrix powers `M^(2^k)` and `M^(2^(67+k))`, `k < 64`, are computed once at first use
//! ([`skip_tables`]); a device port uploads them as constant data (cuRAND ships the same kind
//! of table in `curand_precalc.h`, at a coarser stride).

use std::sync::OnceLock;

use super::{BoxMullerCache, CurandDevice};

/// Weyl increment added to `d` on every step.
pub const XORWOW_WEYL: u32 = 362_437;

/// A linear map on the 160-bit state: row `i` is the image of state bit `i`
/// (bit `i % 32` of word `i / 32`), as in cuRAND's matrices.
pub type Gf2Matrix = [[u32; 5]; 160];

/// Applies a matrix to a state vector.
#[inline]
pub fn mat_vec(m: &Gf2Matrix, v: [u32; 5]) -> [u32; 5] {
    let mut r = [0u32; 5];
    for (w, &word) in v.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let row = &m[w * 32 + b];
            for k in 0..5 {
                r[k] ^= row[k];
            }
        }
    }
    r
}

/// `b * a`: apply `a`, then `b`.
fn mat_then(a: &Gf2Matrix, b: &Gf2Matrix) -> Box<Gf2Matrix> {
    let mut c = Box::new([[0u32; 5]; 160]);
    for (row, out) in a.iter().zip(c.iter_mut()) {
        *out = mat_vec(b, *row);
    }
    c
}

/// One xorshift step on the five words (no Weyl counter).
#[inline]
fn xorshift_step(v: [u32; 5]) -> [u32; 5] {
    let t = v[0] ^ (v[0] >> 2);
    [v[1], v[2], v[3], v[4], (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1))]
}

/// The one-step matrix, found by stepping each single-bit state.
pub fn step_matrix() -> Box<Gf2Matrix> {
    let mut m = Box::new([[0u32; 5]; 160]);
    for (i, row) in m.iter_mut().enumerate() {
        let mut v = [0u32; 5];
        v[i / 32] = 1 << (i % 32);
        *row = xorshift_step(v);
    }
    m
}

/// Skip-ahead tables: `offset[k] = M^(2^k)` and `subsequence[k] = M^(2^(67+k))`.
pub struct SkipTables {
    /// Powers for skipping single values.
    pub offset: Vec<Gf2Matrix>,
    /// Powers for skipping subsequences of 2^67 values.
    pub subsequence: Vec<Gf2Matrix>,
}

/// The skip-ahead tables, computed on first use (about 200 GF(2) matrix squarings).
pub fn skip_tables() -> &'static SkipTables {
    static TABLES: OnceLock<SkipTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut m = step_matrix();
        let mut offset = Vec::with_capacity(64);
        for _ in 0..64 {
            offset.push(*m);
            m = mat_then(&m, &m);
        }
        // m is now M^(2^64); three more squarings reach M^(2^67).
        for _ in 64..67 {
            m = mat_then(&m, &m);
        }
        let mut subsequence = Vec::with_capacity(64);
        for _ in 0..64 {
            subsequence.push(*m);
            m = mat_then(&m, &m);
        }
        SkipTables { offset, subsequence }
    })
}

/// `curandStateXORWOW_t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Xorwow {
    /// Weyl counter.
    pub d: u32,
    /// Xorshift words.
    pub v: [u32; 5],
    /// Box-Muller cache.
    pub cache: BoxMullerCache,
}

impl Xorwow {
    /// The state right after cuRAND's seed scrambling, before any skip.
    pub fn from_seed(seed: u64) -> Self {
        let s0 = (seed as u32) ^ 0xaad2_6b49;
        let s1 = ((seed >> 32) as u32) ^ 0xf7dc_efdd;
        let t0 = 1_099_087_573u32.wrapping_mul(s0);
        let t1 = 2_591_861_531u32.wrapping_mul(s1);
        Self {
            d: 6_615_241u32.wrapping_add(t1).wrapping_add(t0),
            v: [
                123_456_789u32.wrapping_add(t0),
                362_436_069u32 ^ t0,
                521_288_629u32.wrapping_add(t1),
                88_675_123u32 ^ t1,
                5_783_321u32.wrapping_add(t0),
            ],
            cache: BoxMullerCache::default(),
        }
    }

    /// `curand_init(seed, subsequence, offset, &state)`.
    pub fn new(seed: u64, subsequence: u64, offset: u64) -> Self {
        let mut s = Self::from_seed(seed);
        s.skip_subsequence(subsequence);
        s.skip(offset);
        s
    }

    /// `skipahead(n, &state)`.
    pub fn skip(&mut self, n: u64) {
        let t = skip_tables();
        self.v = apply_powers(&t.offset, n, self.v);
        self.d = self.d.wrapping_add(XORWOW_WEYL.wrapping_mul(n as u32));
    }

    /// `skipahead_sequence(n, &state)`: skip `n * 2^67` values.
    pub fn skip_subsequence(&mut self, n: u64) {
        let t = skip_tables();
        self.v = apply_powers(&t.subsequence, n, self.v);
    }
}

fn apply_powers(powers: &[Gf2Matrix], n: u64, mut v: [u32; 5]) -> [u32; 5] {
    let mut bits = n;
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        v = mat_vec(&powers[k], v);
    }
    v
}

impl CurandDevice for Xorwow {
    /// `curand(&state)`.
    fn next_u32(&mut self) -> u32 {
        self.v = xorshift_step(self.v);
        self.d = self.d.wrapping_add(XORWOW_WEYL);
        self.v[4].wrapping_add(self.d)
    }

    fn cache(&mut self) -> &mut BoxMullerCache {
        &mut self.cache
    }
}
