//! MTGP32 (Saito and Matsumoto's Mersenne Twister for GPUs, exponent 11213) with cuRAND's
//! device-API semantics (`curand_mtgp32_kernel.h`: `curandMakeMTGP32KernelState`, `curand` on
//! a block of threads) and its host-API layout (`CURAND_RNG_PSEUDO_MTGP32`).
//!
//! A state is 1024 words of which a window of 351 (`N`) is live, plus a moving offset. One
//! round hands out 256 values, thread `t` of the block computing
//! `r = para_rec(s[o + t], s[o + t + 1], s[o + t + pos])`, storing it at `s[o + t + N]` and
//! returning `temper(r, s[o + t + pos - 1])`; then `o += 256`. All reads of a round come
//! from before it (`pos + 255 < N`), so the round is a function of the state before it.
//!
//! The host API (read off cuRAND 10.4's host generator, `tools/curand_host_layout.py`):
//! generators `0..192` with parameter sets `0..192` and seeds `(u32)(seed ^ seed >> 32) + g + 1`;
//! value `i` is thread `i % 256` of round `c / 192` of generator `c % 192`, `c = i / 256`.
//! cuRAND refuses offsets for MTGP32; uniforms are `_curand_uniform` of the 32-bit values.
//!
//! The parameter sets are the MTGP authors' dynamic-creator sets for exponent 11213
//! (`data/mtgp32dc_params_11213.txt`, see `data/README.md`).

use std::sync::OnceLock;

/// Live state words (`MTGPDC_N`).
pub const MTGP32_N: usize = 351;
/// State array length (`MTGP32_STATE_SIZE`).
pub const MTGP32_STATE_SIZE: usize = 1024;
/// Values per round (threads per block).
pub const MTGP32_ROUND: usize = 256;
/// Generators the host API interleaves.
pub const MTGP32_HOST_GENERATORS: usize = 192;

/// One parameter set (`mtgp32_params_fast_t`, without its redundant fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mtgp32Params {
    /// Pick-up position.
    pub pos: u32,
    /// Shift 1.
    pub sh1: u32,
    /// Shift 2.
    pub sh2: u32,
    /// State mask of the first word.
    pub mask: u32,
    /// Recursion table.
    pub tbl: [u32; 16],
    /// Tempering table.
    pub tmp_tbl: [u32; 16],
    /// Tempering-to-float table (unused by the host API).
    pub flt_tmp_tbl: [u32; 16],
}

static PARAMS: &str = include_str!("../../data/mtgp32dc_params_11213.txt");

/// The 200 parameter sets, parsed on first use.
pub fn params() -> &'static [Mtgp32Params] {
    static P: OnceLock<Vec<Mtgp32Params>> = OnceLock::new();
    P.get_or_init(|| {
        PARAMS
            .lines()
            .filter_map(|l| {
                let w: Vec<u32> = l
                    .split_whitespace()
                    .enumerate()
                    .map(|(i, x)| if i < 3 { x.parse().ok() } else { u32::from_str_radix(x, 16).ok() })
                    .collect::<Option<Vec<u32>>>()?;
                (w.len() == 52).then(|| Mtgp32Params {
                    pos: w[0],
                    sh1: w[1],
                    sh2: w[2],
                    mask: w[3],
                    tbl: std::array::from_fn(|k| w[4 + k]),
                    tmp_tbl: std::array::from_fn(|k| w[20 + k]),
                    flt_tmp_tbl: std::array::from_fn(|k| w[36 + k]),
                })
            })
            .collect()
    })
}

/// `mtgp32_init_state`: the live window of a state for parameter set `p` and a 32-bit seed.
pub fn init_state(p: &Mtgp32Params, seed: u32) -> [u32; MTGP32_N] {
    let hidden = p.tbl[4] ^ (p.tbl[8] << 16);
    let mut tmp = hidden;
    tmp = tmp.wrapping_add(tmp >> 16);
    tmp = tmp.wrapping_add(tmp >> 8);
    let byte = tmp & 0xff;
    let mut s = [byte * 0x0101_0101; MTGP32_N];
    s[0] = seed;
    s[1] = hidden;
    for i in 1..MTGP32_N {
        s[i] ^= 1_812_433_253u32.wrapping_mul(s[i - 1] ^ (s[i - 1] >> 30)).wrapping_add(i as u32);
    }
    s
}

/// `curandStateMtgp32_t` of one generator: state words, offset, parameter set.
#[derive(Debug, Clone, PartialEq)]
pub struct Mtgp32 {
    /// The state array.
    pub s: Vec<u32>,
    /// The moving offset (`0..1024`).
    pub offset: u32,
    /// The parameter set.
    pub params: Mtgp32Params,
}

impl Mtgp32 {
    /// State `g` of `curandMakeMTGP32KernelState(.., params, .., n, seed)`: parameter set `g`,
    /// seed `(u32)(seed ^ seed >> 32) + g + 1`. `g` must be below 200.
    pub fn new(seed: u64, g: usize) -> Self {
        let p = params()[g];
        let mut s = vec![0u32; MTGP32_STATE_SIZE];
        let seed32 = ((seed ^ (seed >> 32)) as u32).wrapping_add(g as u32 + 1);
        s[..MTGP32_N].copy_from_slice(&init_state(&p, seed32));
        Self { s, offset: 0, params: p }
    }

    /// One round of `d` threads (`curand` called once by each thread of a block of `d`).
    pub fn round(&mut self, d: usize) -> Vec<u32> {
        let p = &self.params;
        let m = MTGP32_STATE_SIZE as u32 - 1;
        let at = |i: u32| (self.offset + i) & m;
        let mut out = Vec::with_capacity(d);
        let mut new = Vec::with_capacity(d);
        for t in 0..d as u32 {
            let mut x = (self.s[at(t) as usize] & p.mask) ^ self.s[at(t + 1) as usize];
            x ^= x << p.sh1;
            let y = x ^ (self.s[at(t + p.pos) as usize] >> p.sh2);
            let r = y ^ p.tbl[(y & 15) as usize];
            new.push((at(t + MTGP32_N as u32), r));
            let mut tt = self.s[at(t + p.pos - 1) as usize];
            tt ^= tt >> 16;
            tt ^= tt >> 8;
            out.push(r ^ p.tmp_tbl[(tt & 15) as usize]);
        }
        for (i, r) in new {
            self.s[i as usize] = r;
        }
        self.offset = (self.offset + d as u32) & m;
        out
    }
}

/// The host API's MTGP32 stream (`curandGenerate` on `CURAND_RNG_PSEUDO_MTGP32`): values
/// `first .. first + out.len()` of the stream of `seed`.
pub fn host_generate(seed: u64, first: u64, out: &mut [u32]) {
    let mut gens: Vec<(Mtgp32, u64)> =
        (0..MTGP32_HOST_GENERATORS).map(|g| (Mtgp32::new(seed, g), 0)).collect();
    let (mut j, mut i) = (0usize, first);
    while j < out.len() {
        let c = i / MTGP32_ROUND as u64;
        let (g, round) = ((c % MTGP32_HOST_GENERATORS as u64) as usize, c / MTGP32_HOST_GENERATORS as u64);
        let (state, done) = &mut gens[g];
        // Each (generator, round) chunk is visited once, in order: compute up to this round.
        let mut vals = Vec::new();
        while *done <= round {
            vals = state.round(MTGP32_ROUND);
            *done += 1;
        }
        let start = (i % MTGP32_ROUND as u64) as usize;
        let take = (MTGP32_ROUND - start).min(out.len() - j);
        out[j..j + take].copy_from_slice(&vals[start..start + take]);
        j += take;
        i += take as u64;
    }
}
