//! LFSR113 ([`crate::reference::lfsr113`]) in the kernel language.

use ferrocm_kernel::dsl::{cast, IntoVal, Memory, Val, Var};
use ferrocm_kernel::prelude::*;

use super::{var_u32, Cache, DeviceGenerator};
use crate::reference::lfsr113::{skip_tables, LFSR113_MIN};

/// Words of one table: 4 components x 64 powers x 32 rows.
const TABLE_WORDS: u32 = 4 * 64 * 32;

/// The skip-ahead table a kernel passes to [`Lfsr113::init`]: the reference's offset powers
/// then its subsequence powers, `[which][component][k][row]` (16,384 words, 64 KiB).
pub fn lfsr113_skip_table() -> Vec<u32> {
    let t = skip_tables();
    [&t.offset, &t.subsequence]
        .iter()
        .flat_map(|w| w.iter().flat_map(|c| c.iter().flat_map(|m| m.iter().copied())))
        .collect()
}

/// `(q, s, k - s, mask)` of each component, as in the reference.
const STEPS: [(u32, u32, u32, u32); 4] =
    [(6, 18, 13, 0xFFFF_FFFE), (2, 2, 27, 0xFFFF_FFF8), (13, 7, 21, 0xFFFF_FFF0), (3, 13, 12, 0xFFFF_FF80)];

/// An LFSR113 state: the four component words and the Box-Muller cache.
#[derive(Clone, Copy)]
pub struct Lfsr113 {
    z: [Var<Val<u32>>; 4],
    cache: Cache,
}

/// A seed word made valid for its component: `x + min` where `x` is below the component's
/// minimum `min` (the reference's `Lfsr113::new`).
#[device]
fn valid_word(x: u32, #[comptime] min: u32) -> u32 {
    select(x < min, x + min, x)
}

impl Lfsr113 {
    /// The reference's `Lfsr113::new(seed, subsequence, offset)`; `table` is
    /// [`lfsr113_skip_table`] in device memory.
    pub fn init(
        seed: impl IntoVal<u64>,
        subsequence: impl IntoVal<u64>,
        offset: impl IntoVal<u64>,
        table: impl Memory<u32>,
    ) -> Lfsr113 {
        let seed = seed.into_val();
        let lo: Val<u32> = cast::<u32, _>(seed);
        let hi: Val<u32> = cast::<u32, _>(seed >> 32u32);
        let raw = [lo, hi, lo ^ 0x5555_5555u32, hi ^ 0xAAAA_AAAAu32];
        let s = Self::from_words(std::array::from_fn(|c| valid_word(raw[c], LFSR113_MIN[c])));
        s.skip(1, subsequence.into_val(), table);
        s.skip(0, offset.into_val(), table);
        s
    }

    /// A state from its words (already valid), as kept in device memory between calls.
    pub fn from_words(z: [Val<u32>; 4]) -> Lfsr113 {
        Lfsr113 { z: z.map(|x| var_u32("lfsr_z", x)), cache: Cache::new() }
    }

    /// The component words.
    pub fn words(&self) -> [Val<u32>; 4] {
        self.z.map(|v| v.get())
    }

    /// Skips `n` steps (`which` 0) or subsequences of 2^55 steps (`which` 1).
    fn skip(&self, which: u32, n: Val<u64>, table: impl Memory<u32>) {
        skip_powers(table, which, n, self.z);
    }
}

/// Applies `table`'s powers selected by the bits of `n` (`which` 0: steps, 1: subsequences).
#[device]
fn skip_powers(table: &[u32], #[comptime] which: u32, n: u64, z: [Var<Val<u32>>; 4]) {
    let mut bits = n;
    let mut k = 0u32;
    while bits != 0u64 {
        if (bits & 1u64) != 0u64 {
            apply_power(table, which, k, z);
        }
        bits = bits >> 1u32;
        k = k + 1u32;
    }
}

/// Power `k` of `table` (each component's 32x32 bit matrix) applied to the words (a runtime
/// loop over each word's 32 bits).
#[device]
fn apply_power(table: &[u32], #[comptime] which: u32, k: u32, z: [Var<Val<u32>>; 4]) {
    for (c, z) in z.iter().enumerate() {
        let base = which * TABLE_WORDS + (c as u32 * 64 + k) * 32u32;
        let mut lfsr_r = 0u32;
        let v = z.get();
        for i in Val::constant(0u32)..32u32 {
            let mask = Val::constant(0u32) - ((v >> i) & 1u32);
            lfsr_r = lfsr_r ^ (table[base + i] & mask);
        }
        z.set(lfsr_r);
    }
}

impl DeviceGenerator for Lfsr113 {
    fn next_u32(&self) -> Val<u32> {
        let mut out = Val::constant(0u32);
        for (c, z) in self.z.iter().enumerate() {
            let (q, s, ks, mask) = STEPS[c];
            let v = z.get();
            let b = ((v << q) ^ v) >> ks;
            let n = ((v & mask) << s) ^ b;
            z.set(n);
            out = out ^ n;
        }
        out
    }

    fn cache(&self) -> Cache {
        self.cache
    }
}
