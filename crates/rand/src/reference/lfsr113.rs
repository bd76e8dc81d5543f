//! LFSR113 (L'Ecuyer, "Tables of maximally equidistributed combined LFSR generators", Math.
//! Comp. 68 (1999) 261-269): four Tausworthe components of 31, 29, 28 and 25 bits combined by
//! XOR, period about 2^113. The step is L'Ecuyer's `lfsr113` function; the tests check his
//! published known answer (from four seeds of 12345, the millionth output is 1205173390).
//!
//! Each component is linear over GF(2) on its 32-bit word, so skipping `n` steps multiplies
//! each word by a power of its 32x32 step matrix (tables of `M^(2^k)` built at first use).
//! A subsequence is 2^55 steps. Seeding (ferrocm's, documented on [`Lfsr113::new`]) keeps each
//! word above its component's minimum (2, 8, 16, 128).

use std::sync::OnceLock;

use super::{BoxMullerCache, CurandDevice};

/// Smallest valid word of each component: words below lose the component's period.
pub const LFSR113_MIN: [u32; 4] = [2, 8, 16, 128];
/// Steps per subsequence.
pub const LFSR113_SUBSEQUENCE_LOG2: u32 = 55;

/// `(shift q, shift s, shift k - s, mask)` of each component's step
/// `z = ((z & mask) << s) ^ (((z << q) ^ z) >> (k - s))`.
const STEPS: [(u32, u32, u32, u32); 4] =
    [(6, 18, 13, 0xFFFF_FFFE), (2, 2, 27, 0xFFFF_FFF8), (13, 7, 21, 0xFFFF_FFF0), (3, 13, 12, 0xFFFF_FF80)];

/// One step of component `c`.
#[inline]
pub fn component_step(c: usize, z: u32) -> u32 {
    let (q, s, ks, mask) = STEPS[c];
    let b = ((z << q) ^ z) >> ks;
    ((z & mask) << s) ^ b
}

/// A 32x32 GF(2) matrix: entry `i` is the image of bit `i`.
pub type Matrix32 = [u32; 32];

/// `m` applied to `v`.
pub fn mat_vec(m: &Matrix32, v: u32) -> u32 {
    let mut r = 0;
    let mut bits = v;
    while bits != 0 {
        let i = bits.trailing_zeros();
        bits &= bits - 1;
        r ^= m[i as usize];
    }
    r
}

fn square(m: &Matrix32) -> Matrix32 {
    std::array::from_fn(|i| mat_vec(m, m[i]))
}

/// Skip tables: `offset[c][k] = M_c^(2^k)`, `subsequence[c][k] = M_c^(2^(55+k))`, `k < 64`.
pub struct SkipTables {
    /// Powers for single steps.
    pub offset: [[Matrix32; 64]; 4],
    /// Powers for subsequences.
    pub subsequence: [[Matrix32; 64]; 4],
}

/// The skip tables, built on first use (a few thousand 32x32 squarings).
pub fn skip_tables() -> &'static SkipTables {
    static T: OnceLock<Box<SkipTables>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Box::new(SkipTables { offset: [[[0; 32]; 64]; 4], subsequence: [[[0; 32]; 64]; 4] });
        for c in 0..4 {
            let mut m: Matrix32 = std::array::from_fn(|i| component_step(c, 1 << i));
            for k in 0..64 {
                t.offset[c][k] = m;
                m = square(&m);
            }
            // m = M^(2^64); move back to M^(2^55) from the table instead.
            let mut p = t.offset[c][LFSR113_SUBSEQUENCE_LOG2 as usize];
            for k in 0..64 {
                t.subsequence[c][k] = p;
                p = square(&p);
            }
        }
        t
    })
}

/// The LFSR113 state: four component words and cuRAND-style Box-Muller caching for the
/// shared distributions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lfsr113 {
    /// The component words `z1..z4`.
    pub z: [u32; 4],
    /// Box-Muller cache.
    pub cache: BoxMullerCache,
}

impl Lfsr113 {
    /// A state from four words; each below its component's minimum ([`LFSR113_MIN`]) is
    /// raised by that minimum (so every word is valid).
    pub fn from_words(z: [u32; 4]) -> Self {
        let z = std::array::from_fn(|c| if z[c] < LFSR113_MIN[c] { z[c] + LFSR113_MIN[c] } else { z[c] });
        Self { z, cache: BoxMullerCache::default() }
    }

    /// `init(seed, subsequence, offset)`: the words from the seed (`z1 = seed_lo`,
    /// `z2 = seed_hi`, `z3 = seed_lo ^ 0x5555_5555`, `z4 = seed_hi ^ 0xAAAA_AAAA`, each raised
    /// into range by [`from_words`](Self::from_words)), then `subsequence` skips of 2^55 steps
    /// and `offset` steps.
    pub fn new(seed: u64, subsequence: u64, offset: u64) -> Self {
        let (lo, hi) = (seed as u32, (seed >> 32) as u32);
        let mut s = Self::from_words([lo, hi, lo ^ 0x5555_5555, hi ^ 0xAAAA_AAAA]);
        s.skip_subsequence(subsequence);
        s.skip(offset);
        s
    }

    fn apply(&mut self, tables: &[[Matrix32; 64]; 4], n: u64) {
        for (c, z) in self.z.iter_mut().enumerate() {
            let mut bits = n;
            while bits != 0 {
                let k = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                *z = mat_vec(&tables[c][k], *z);
            }
        }
    }

    /// Skip `n` steps.
    pub fn skip(&mut self, n: u64) {
        self.apply(&skip_tables().offset, n);
    }

    /// Skip `n` subsequences of 2^55 steps.
    pub fn skip_subsequence(&mut self, n: u64) {
        self.apply(&skip_tables().subsequence, n);
    }
}

impl CurandDevice for Lfsr113 {
    /// L'Ecuyer's `lfsr113()`: step the four components, return their XOR.
    fn next_u32(&mut self) -> u32 {
        for (c, z) in self.z.iter_mut().enumerate() {
            *z = component_step(c, *z);
        }
        self.z[0] ^ self.z[1] ^ self.z[2] ^ self.z[3]
    }

    fn cache(&mut self) -> &mut BoxMullerCache {
        &mut self.cache
    }
}
