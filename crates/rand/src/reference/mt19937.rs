//! MT19937 (Matsumoto and Nishimura's Mersenne Twister) in cuRAND's host-API layout
//! (`CURAND_RNG_PSEUDO_MT19937`), read off cuRAND 10.4's host generator
//! (`tools/curand_host_mt19937.py`).
//!
//! - 8192 generators (engines). Engine 0 is the standard `init_genrand(seed as u32)` state (the
//!   seed's upper 32 bits are ignored, as cuRAND does); engine `g` is engine 0 advanced by
//!   `g` times 2^2048 steps (`x^(2^2048) mod P` applied, [`jump_polynomials`] row 0). The
//!   spacing was read off cuRAND's outputs and the polynomials computed from MT19937's
//!   characteristic polynomial (`tools/mt19937_jump.py`, `data/README.md`); it is *not*
//!   rocRAND's 2^1000-step spacing (which gives other streams).
//! - Eight threads share an engine, as in rocRAND's `mt19937_octo_engine`: every 624 values of
//!   an engine (one twist) are handed out as 78 rows of 8, thread `t` taking in row `l` the
//!   element [`element`]`(t, l)` of the twisted block.
//! - Output `i` (of the one stream; split calls continue it, cuRAND refuses offsets) is, with
//!   `lane = i % 65536` and `k = i / 65536`: thread `lane % 8` of engine `lane / 8`, row
//!   `k % 78` of that engine's block `k / 78`, tempered.
//!
//! Distributions map each 32-bit value alone (read off cuRAND 10.4): uniforms
//! `(float)(x 2^-32 + 2^-33)` computed in double, doubles `x 2^-32 + 2^-33`, normals by the
//! inverse normal CDF of that double (cuRAND's `_curand_normal_icdf`: `erfcinvf` in float,
//! within 3.3e-7 of the double-precision value; doubles within 3.2e-15), log-normals
//! `exp(mean + stddev z)`.

use std::sync::OnceLock;

/// State words.
pub const MT19937_N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_B0DF;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7FFF_FFFF;
/// Degree of the characteristic polynomial (the Mersenne exponent).
pub const MT19937_MEXP: usize = 19937;
/// Engines the host API runs.
pub const MT19937_ENGINES: usize = 8192;
/// Threads sharing one engine.
pub const MT19937_THREADS: usize = 8;
/// Values per row of the host layout (`MT19937_ENGINES * MT19937_THREADS`).
pub const MT19937_LANES: u64 = (MT19937_ENGINES * MT19937_THREADS) as u64;
/// Rows per twisted block (624 / 8).
pub const MT19937_ROWS: u64 = (MT19937_N / MT19937_THREADS) as u64;
/// Jump polynomials stored (engine `g` needs the ones of `g`'s set bits).
pub const MT19937_JUMP_POWERS: usize = 13;

/// One polynomial over GF(2): bit `b` of word `w` is the coefficient of `x^(32 w + b)`.
pub type JumpPolynomial = [u32; MT19937_N];

static JUMPS: &str = include_str!("../../data/mt19937_curand_jumps.txt");

/// `x^(2^(2048 + p)) mod P` for `p = 0..13` (`P` MT19937's characteristic polynomial): jumps
/// of `2^p` engines (`data/mt19937_curand_jumps.txt`).
pub fn jump_polynomials() -> &'static [JumpPolynomial] {
    static J: OnceLock<Vec<JumpPolynomial>> = OnceLock::new();
    J.get_or_init(|| {
        JUMPS
            .lines()
            .filter_map(|l| {
                let w: Vec<u32> = l.split_whitespace().map(|x| x.parse().ok()).collect::<Option<_>>()?;
                <JumpPolynomial>::try_from(w).ok()
            })
            .collect()
    })
}

/// Row `l` of thread `t`'s share of a twisted block: `[0, 113, 170, 283, 340, 397, 510,
/// 567][t]` for row 0, else `OFFSETS[(l - 1) / 7] + 7 t + (l - 1) % 7` (rocRAND's octo-engine
/// element order).
pub const fn element(t: usize, l: usize) -> usize {
    const FIRST: [usize; 8] = [0, 113, 170, 283, 340, 397, 510, 567];
    const OFFSETS: [usize; 11] = [1, 57, 114, 171, 227, 284, 341, 398, 454, 511, 568];
    if l == 0 {
        FIRST[t]
    } else {
        OFFSETS[(l - 1) / 7] + 7 * t + (l - 1) % 7
    }
}

/// MT19937's tempering.
#[inline]
pub fn temper(mut y: u32) -> u32 {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9D2C_5680;
    y ^= (y << 15) & 0xEFC6_0000;
    y ^ (y >> 18)
}

#[inline]
fn comp(a: u32, b: u32, m: u32) -> u32 {
    let y = (a & UPPER) | (b & LOWER);
    m ^ (y >> 1) ^ if y & 1 != 0 { MATRIX_A } else { 0 }
}

/// An MT19937 state: 624 words, the oldest first (the next twist replaces them all).
#[derive(Clone, PartialEq, Eq)]
pub struct Mt19937 {
    /// The words.
    pub mt: [u32; MT19937_N],
}

impl std::fmt::Debug for Mt19937 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mt19937 {{ mt[0..4]: {:?} }}", &self.mt[..4])
    }
}

impl Mt19937 {
    /// `init_genrand(seed)`.
    pub fn new(seed: u32) -> Self {
        let mut mt = [0u32; MT19937_N];
        mt[0] = seed;
        for i in 1..MT19937_N {
            mt[i] = 1_812_433_253u32.wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_add(i as u32);
        }
        Self { mt }
    }

    /// Replaces the words by the next 624 (untempered), in place as `genrand_int32` does.
    pub fn twist(&mut self) {
        let mt = &mut self.mt;
        for i in 0..MT19937_N {
            mt[i] = comp(mt[i], mt[(i + 1) % MT19937_N], mt[(i + M) % MT19937_N]);
        }
    }

    /// `poly(f)` applied to this state (`f` one step of the recurrence), by Horner's rule on
    /// bytes of the polynomial: `sum_i poly_i f^i(self)`.
    pub fn jump(&self, poly: &JumpPolynomial) -> Mt19937 {
        // table[j] = sum over the set bits b of j of f^b(self), as rings aligned at 0.
        let mut powers = vec![self.mt];
        let mut ring = Ring { mt: self.mt, ptr: 0 };
        for _ in 1..8 {
            ring.step();
            powers.push(ring.aligned());
        }
        let mut table = vec![[0u32; MT19937_N]; 256];
        for j in 1..256usize {
            let top = (usize::BITS - 1 - j.leading_zeros()) as usize;
            let mut t = table[j & !(1 << top)];
            for (x, y) in t.iter_mut().zip(&powers[top]) {
                *x ^= *y;
            }
            table[j] = t;
        }
        let mut acc = Ring { mt: [0; MT19937_N], ptr: 0 };
        for byte in (0..MT19937_N * 4).rev() {
            let b = (poly[byte / 4] >> (8 * (byte % 4))) & 0xff;
            for _ in 0..8 {
                acc.step();
            }
            if b != 0 {
                acc.add(&table[b as usize]);
            }
        }
        Mt19937 { mt: acc.aligned() }
    }

    /// Engine `g` (`< 8192`) of the host API for `seed`: engine 0 advanced `g 2^2048` steps,
    /// one jump per set bit of `g`.
    pub fn engine(seed: u64, g: usize) -> Mt19937 {
        let mut s = Mt19937::new(seed as u32);
        for (p, poly) in jump_polynomials().iter().enumerate() {
            if g >> p & 1 != 0 {
                s = s.jump(poly);
            }
        }
        s
    }

    /// All 8192 engines of `seed` (20 MiB). The last two seeds' engines are kept (computing
    /// them is 8191 jumps, seconds of CPU time).
    pub fn engines(seed: u64) -> std::sync::Arc<Vec<Mt19937>> {
        use std::sync::{Arc, Mutex};
        static CACHE: Mutex<Vec<(u32, Arc<Vec<Mt19937>>)>> = Mutex::new(Vec::new());
        let key = seed as u32;
        let hit = CACHE.lock().ok().and_then(|c| c.iter().find(|e| e.0 == key).map(|e| e.1.clone()));
        if let Some(e) = hit {
            return e;
        }
        let e = Arc::new(Self::compute_engines(key));
        if let Ok(mut c) = CACHE.lock() {
            if c.len() >= 2 {
                c.remove(0);
            }
            c.push((key, e.clone()));
        }
        e
    }

    /// All 8192 engines of a 32-bit seed, level by level on the available cores.
    fn compute_engines(seed: u32) -> Vec<Mt19937> {
        let polys = jump_polynomials();
        let mut all = vec![Mt19937::new(seed)];
        // Level p adds engines 2^p .. 2^(p+1), each engine (g - 2^p) jumped by a^(2^p).
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        for poly in polys.iter().take(MT19937_JUMP_POWERS) {
            let have = all.len();
            let chunk = have.div_ceil(threads);
            let next: Vec<Mt19937> = std::thread::scope(|s| {
                let handles: Vec<_> = all
                    .chunks(chunk)
                    .map(|c| s.spawn(move || c.iter().map(|e| e.jump(poly)).collect::<Vec<_>>()))
                    .collect();
                handles.into_iter().flat_map(|h| h.join().expect("jump thread")).collect()
            });
            all.extend(next);
        }
        all
    }
}

/// A state as a ring with the index of its oldest word (for Horner steps without moving words).
struct Ring {
    mt: [u32; MT19937_N],
    ptr: usize,
}

impl Ring {
    fn step(&mut self) {
        let i = self.ptr;
        self.mt[i] = comp(self.mt[i], self.mt[(i + 1) % MT19937_N], self.mt[(i + M) % MT19937_N]);
        self.ptr = (i + 1) % MT19937_N;
    }

    fn add(&mut self, aligned: &[u32; MT19937_N]) {
        let (head, tail) = aligned.split_at(MT19937_N - self.ptr);
        for (x, y) in self.mt[self.ptr..].iter_mut().zip(head) {
            *x ^= *y;
        }
        for (x, y) in self.mt[..self.ptr].iter_mut().zip(tail) {
            *x ^= *y;
        }
    }

    fn aligned(&self) -> [u32; MT19937_N] {
        std::array::from_fn(|i| self.mt[(self.ptr + i) % MT19937_N])
    }
}

/// The host API's MT19937 stream: values `first .. first + out.len()` of `seed`'s stream.
/// Computes only the engines the range touches.
pub fn host_generate(seed: u64, first: u64, out: &mut [u32]) {
    if out.is_empty() {
        return;
    }
    let last = first + out.len() as u64 - 1;
    // The engines of lanes `first % 65536 ..= last % 65536`, or all when the range wraps.
    let (a, b) = ((first % MT19937_LANES) as usize / 8, (last % MT19937_LANES) as usize / 8);
    let engines: Vec<Option<Mt19937>> = if last - first >= MT19937_LANES || a > b || b - a > 1024 {
        Mt19937::engines(seed).iter().cloned().map(Some).collect()
    } else {
        let mut e = Mt19937::engine(seed, a);
        let mut v: Vec<Option<Mt19937>> = vec![None; MT19937_ENGINES];
        for slot in v.iter_mut().take(b + 1).skip(a) {
            let next = e.jump(&jump_polynomials()[0]);
            *slot = Some(std::mem::replace(&mut e, next));
        }
        v
    };
    let block_values = MT19937_LANES * MT19937_ROWS;
    let (b0, b1) = (first / block_values, last / block_values);
    let mut blocks: Vec<Option<Mt19937>> = engines;
    for b in 0..=b1 {
        for e in blocks.iter_mut().flatten() {
            e.twist();
        }
        if b < b0 {
            continue;
        }
        let lo = first.max(b * block_values);
        let hi = last.min((b + 1) * block_values - 1);
        for i in lo..=hi {
            let lane = (i % MT19937_LANES) as usize;
            let l = ((i / MT19937_LANES) % MT19937_ROWS) as usize;
            let e = blocks[lane / 8].as_ref().expect("engine of a touched lane");
            out[(i - first) as usize] = temper(e.mt[element(lane % 8, l)]);
        }
    }
}

/// `curandGenerateUniform` of one value: `(float)(x 2^-32 + 2^-33)` in double.
#[inline]
pub fn uniform(x: u32) -> f32 {
    uniform_double(x) as f32
}

/// `curandGenerateUniformDouble` of one value: `x 2^-32 + 2^-33`.
#[inline]
pub fn uniform_double(x: u32) -> f64 {
    (x as f64).mul_add(1.0 / 4_294_967_296.0, 1.0 / 8_589_934_592.0)
}

/// `curandGenerateNormalDouble` of one value (standard normal): the inverse normal CDF of
/// [`uniform_double`] (cuRAND: `_curand_normal_icdf_double`).
#[inline]
pub fn normal_double(x: u32) -> f64 {
    super::distributions::normal_icdf(uniform_double(x))
}

/// `curandGenerateNormal` of one value: [`normal_double`] rounded to float (cuRAND computes it
/// with `erfcinvf`; within 3.3e-7 of this on its host generator).
#[inline]
pub fn normal(x: u32) -> f32 {
    normal_double(x) as f32
}

/// `curandGeneratePoisson` of one value for lambda from 2000 (cuRAND's Gaussian method, in
/// float: `(u32)(sqrt(lambda) z + lambda + 0.5)` with `z` = [`normal`]); below 2000 the values
/// are [`crate::reference::host_poisson::PoissonTable`]'s square histogram of `x`.
#[inline]
pub fn poisson_gauss(x: u32, lambda: f64) -> u32 {
    let (m, s) = (lambda as f32, lambda.sqrt() as f32);
    (s * normal(x) + m + 0.5) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The jump machinery: x^k applied by Horner equals k steps.
    #[test]
    fn jump_by_monomial_equals_stepping() {
        let s = Mt19937::new(5489);
        for k in [1usize, 9, 624, 1000, 5000] {
            let mut poly = [0u32; MT19937_N];
            poly[k / 32] |= 1 << (k % 32);
            let mut r = Ring { mt: s.mt, ptr: 0 };
            for _ in 0..k {
                r.step();
            }
            let mut a = s.jump(&poly);
            let mut b = Mt19937 { mt: r.aligned() };
            a.twist();
            b.twist();
            assert_eq!(a, b, "k = {k}");
        }
    }

    /// `init_genrand(5489)`'s 10,000th output is 4123659995 (the C++ standard's check value).
    #[test]
    fn standard_check_value() {
        let mut s = Mt19937::new(5489);
        let mut v = 0;
        for i in 0..10_000 {
            if i % MT19937_N == 0 {
                s.twist();
            }
            v = temper(s.mt[i % MT19937_N]);
        }
        assert_eq!(v, 4_123_659_995);
    }

    #[test]
    fn elements_of_a_block_are_each_handed_out_once() {
        let mut seen = [false; MT19937_N];
        for t in 0..8 {
            for l in 0..78 {
                assert!(!std::mem::replace(&mut seen[element(t, l)], true));
            }
        }
    }

    #[test]
    fn one_engine_equals_the_chain() {
        let all = Mt19937::engines(7);
        for g in [1usize, 2, 3, 255, 4096, 8191] {
            assert_eq!(Mt19937::engine(7, g), all[g], "engine {g}");
        }
    }
}
