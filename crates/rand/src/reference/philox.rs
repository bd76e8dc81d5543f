//! Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) with
//! cuRAND's `curandStatePhilox4_32_10_t` semantics.
//!
//! The state is a 128-bit counter, a 64-bit key (the seed), the four outputs of the current
//! block and the index of the next one to hand out. `subsequence` adds to the upper 64 bits of
//! the counter (each subsequence is 2^66 values long); `offset` skips values inside the stream.

use super::{BoxMullerCache, CurandDevice};

const PHILOX_M4X32_0: u32 = 0xD251_1F53;
const PHILOX_M4X32_1: u32 = 0xCD9E_8D57;
const PHILOX_W32_0: u32 = 0x9E37_79B9;
const PHILOX_W32_1: u32 = 0xBB67_AE85;

#[inline]
fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = (a as u64) * (b as u64);
    ((p >> 32) as u32, p as u32)
}

#[inline]
fn round(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (hi0, lo0) = mulhilo(PHILOX_M4X32_0, ctr[0]);
    let (hi1, lo1) = mulhilo(PHILOX_M4X32_1, ctr[2]);
    [hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0]
}

/// The Philox4x32 block function with `R` rounds: 4 output words for one counter and key.
#[inline]
pub fn philox4x32<const R: usize>(mut ctr: [u32; 4], mut key: [u32; 2]) -> [u32; 4] {
    for r in 0..R {
        if r > 0 {
            key[0] = key[0].wrapping_add(PHILOX_W32_0);
            key[1] = key[1].wrapping_add(PHILOX_W32_1);
        }
        ctr = round(ctr, key);
    }
    ctr
}

/// `curand_Philox4x32_10(counter, key)`.
#[inline]
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    philox4x32::<10>(ctr, key)
}

/// `curandStatePhilox4_32_10_t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Philox4x32_10 {
    /// The 128-bit counter, least significant word first.
    pub ctr: [u32; 4],
    /// The key: the seed's low and high words.
    pub key: [u32; 2],
    /// Outputs of the block at `ctr`.
    pub output: [u32; 4],
    /// Index in `output` of the next value (cuRAND's `STATE`).
    pub index: u32,
    /// Box-Muller cache.
    pub cache: BoxMullerCache,
}

impl Philox4x32_10 {
    /// `curand_init(seed, subsequence, offset, &state)`.
    pub fn new(seed: u64, subsequence: u64, offset: u64) -> Self {
        let mut s = Self {
            ctr: [0; 4],
            key: [seed as u32, (seed >> 32) as u32],
            output: [0; 4],
            index: 0,
            cache: BoxMullerCache::default(),
        };
        s.skip_subsequence(subsequence);
        s.skip(offset);
        s
    }

    /// `Philox_State_Incr`: add `n` to the 128-bit counter (cuRAND's carry logic, kept as is).
    fn incr(&mut self, n: u64) {
        let nlo = n as u32;
        let mut nhi = (n >> 32) as u32;
        self.ctr[0] = self.ctr[0].wrapping_add(nlo);
        if self.ctr[0] < nlo {
            nhi = nhi.wrapping_add(1);
        }
        self.ctr[1] = self.ctr[1].wrapping_add(nhi);
        if nhi <= self.ctr[1] {
            return;
        }
        self.ctr[2] = self.ctr[2].wrapping_add(1);
        if self.ctr[2] != 0 {
            return;
        }
        self.ctr[3] = self.ctr[3].wrapping_add(1);
    }

    /// `Philox_State_Incr_hi`: add `n` to the upper 64 bits of the counter.
    fn incr_hi(&mut self, n: u64) {
        let nlo = n as u32;
        let mut nhi = (n >> 32) as u32;
        self.ctr[2] = self.ctr[2].wrapping_add(nlo);
        if self.ctr[2] < nlo {
            nhi = nhi.wrapping_add(1);
        }
        self.ctr[3] = self.ctr[3].wrapping_add(nhi);
    }

    /// `skipahead(n, &state)`: skip `n` 32-bit values.
    pub fn skip(&mut self, n: u64) {
        self.index = (self.index & 3) + (n & 3) as u32;
        let mut blocks = n / 4;
        if self.index > 3 {
            blocks += 1;
            self.index -= 4;
        }
        self.incr(blocks);
        self.output = philox4x32_10(self.ctr, self.key);
    }

    /// `skipahead_sequence(n, &state)`: skip `n` subsequences of 2^66 values.
    pub fn skip_subsequence(&mut self, n: u64) {
        self.incr_hi(n);
        self.output = philox4x32_10(self.ctr, self.key);
    }

    /// `curand4(&state)`: the next four values.
    pub fn next4(&mut self) -> [u32; 4] {
        let t = self.output;
        self.incr(1);
        self.output = philox4x32_10(self.ctr, self.key);
        let o = self.output;
        match self.index {
            0 => t,
            1 => [t[1], t[2], t[3], o[0]],
            2 => [t[2], t[3], o[0], o[1]],
            _ => [t[3], o[0], o[1], o[2]],
        }
    }

    /// `curand_uniform4(&state)`.
    pub fn uniform4(&mut self) -> [f32; 4] {
        self.next4().map(super::distributions::uniform_f32)
    }

    /// `curand_uniform2_double(&state)`.
    pub fn uniform2_double(&mut self) -> [f64; 2] {
        let x = self.next4();
        [super::distributions::uniform_f64_hq(x[0], x[1]), super::distributions::uniform_f64_hq(x[2], x[3])]
    }

    /// `curand_normal4(&state)`.
    pub fn normal4(&mut self) -> [f32; 4] {
        let x = self.next4();
        let [a, b] = super::distributions::box_muller(x[0], x[1]);
        let [c, d] = super::distributions::box_muller(x[2], x[3]);
        [a, b, c, d]
    }

    /// `curand_normal4_double(&state)`.
    pub fn normal4_double(&mut self) -> [f64; 4] {
        let [a, b] = self.box_muller_double();
        let [c, d] = self.box_muller_double();
        [a, b, c, d]
    }
}

impl CurandDevice for Philox4x32_10 {
    /// `curand(&state)`.
    fn next_u32(&mut self) -> u32 {
        // `index` is below 4 in every state this module builds; masking keeps a hand-built
        // state from indexing out of bounds.
        self.index &= 3;
        let ret = self.output[self.index as usize];
        self.index += 1;
        if self.index == 4 {
            self.incr(1);
            self.output = philox4x32_10(self.ctr, self.key);
            self.index = 0;
        }
        ret
    }

    fn cache(&mut self) -> &mut BoxMullerCache {
        &mut self.cache
    }

    /// Unlike XORWOW, cuRAND's Philox `curand_uniform_double` spends one 32-bit draw:
    /// `x * 2^-32 + 2^-32` (verified against CUDA 13's cuRAND 10.4).
    fn uniform_double(&mut self) -> f64 {
        super::distributions::uniform_f64_from_u32(self.next_u32())
    }

    /// Philox draws its four words with one `curand4`.
    fn box_muller_double(&mut self) -> [f64; 2] {
        let x = self.next4();
        super::distributions::box_muller_double(x[0], x[1], x[2], x[3])
    }
}
