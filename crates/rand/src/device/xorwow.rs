//! `curandStateXORWOW_t` in the kernel language.

use ferrocm_kernel::dsl::{cast, IntoVal, Memory, Val, Var};
use ferrocm_kernel::prelude::*;

use super::{var_u32, Cache, DeviceGenerator};
use crate::reference::xorwow::{skip_tables, XORWOW_WEYL};

const ROWS: u32 = 160 * 5;
const POWERS: u32 = 64;

/// The skip-ahead table a kernel passes to [`Xorwow::init`]: `M^(2^k)` then `M^(2^(67+k))`,
/// `k < 64`, each 160 rows of 5 words (102,400 words, 400 KiB).
pub fn xorwow_skip_table() -> Vec<u32> {
    let t = skip_tables();
    t.offset
        .iter()
        .chain(t.subsequence.iter())
        .flat_map(|m| m.iter().flat_map(|row| row.iter().copied()))
        .collect()
}

/// `v` times the matrix starting at word `base` of `table`, branch-free over the bits of `v`
/// (a runtime loop over each word's 32 bits).
#[device]
fn mat_vec(table: &[u32], base: u32, v: [Val<u32>; 5]) -> [Val<u32>; 5] {
    let r: [Var<Val<u32>>; 5] = std::array::from_fn(|_| var_u32("xw_r", 0u32));
    for (w, word) in v.into_iter().enumerate() {
        for b in Val::constant(0u32)..32u32 {
            let mask = Val::constant(0u32) - ((word >> b) & 1u32);
            let row = base + (b + (w as u32 * 32)) * 5u32;
            for (k, rk) in r.iter().enumerate() {
                rk.set(rk.get() ^ (table[row + k as u32] & mask));
            }
        }
    }
    r.map(|x| x.get())
}

/// `v` times power `k` of `table`'s set `which` (0: offsets, 1: subsequences).
fn apply_power(table: impl Memory<u32>, which: u32, k: Val<u32>, v: [Var<Val<u32>>; 5]) {
    let r = mat_vec(table, (k + which * POWERS) * ROWS, v.map(|x| x.get()));
    for (x, y) in v.iter().zip(r) {
        x.set(y);
    }
}

/// Applies `table`'s powers selected by the bits of `n` (`which` 0: offsets, 1: subsequences).
#[device]
fn apply_powers(table: &[u32], #[comptime] which: u32, n: u64, v: [Var<Val<u32>>; 5]) {
    let mut bits = n;
    let mut k = 0u32;
    while bits != 0u64 {
        if (bits & 1u64) != 0u64 {
            apply_power(table, which, k, v);
        }
        bits = bits >> 1u32;
        k = k + 1u32;
    }
}

/// An XORWOW state: Weyl counter, five xorshift words, Box-Muller cache.
#[derive(Clone, Copy)]
pub struct Xorwow {
    d: Var<Val<u32>>,
    v: [Var<Val<u32>>; 5],
    cache: Cache,
}

impl Xorwow {
    /// `curand_init(seed, subsequence, offset, &state)`; `table` is [`xorwow_skip_table`] in
    /// device memory.
    pub fn init(
        seed: impl IntoVal<u64>,
        subsequence: impl IntoVal<u64>,
        offset: impl IntoVal<u64>,
        table: impl Memory<u32>,
    ) -> Xorwow {
        let seed = seed.into_val();
        let s0 = cast::<u32, _>(seed) ^ 0xaad2_6b49u32;
        let s1 = cast::<u32, _>(seed >> 32u32) ^ 0xf7dc_efddu32;
        let t0 = s0 * 1_099_087_573u32;
        let t1 = s1 * 2_591_861_531u32;
        let s = Xorwow {
            d: var_u32("xw_d", t1 + 6_615_241u32 + t0),
            v: [
                var_u32("xw_v0", t0 + 123_456_789u32),
                var_u32("xw_v1", t0 ^ 362_436_069u32),
                var_u32("xw_v2", t1 + 521_288_629u32),
                var_u32("xw_v3", t1 ^ 88_675_123u32),
                var_u32("xw_v4", t0 + 5_783_321u32),
            ],
            cache: super::Cache::new(),
        };
        s.skipahead_sequence(subsequence, table);
        s.skipahead(offset, table);
        s
    }

    /// A state from its raw words (`d`, `v[0..5]`), as kept in device memory between calls.
    pub fn from_words(d: Val<u32>, v: [Val<u32>; 5]) -> Xorwow {
        Xorwow { d: var_u32("xw_d", d), v: v.map(|x| var_u32("xw_v", x)), cache: Cache::new() }
    }

    /// The raw words (`d`, `v[0..5]`), to keep the state in device memory.
    pub fn words(&self) -> [Val<u32>; 6] {
        [self.d.get(), self.v[0].get(), self.v[1].get(), self.v[2].get(), self.v[3].get(), self.v[4].get()]
    }

    /// `skipahead(n, &state)`.
    pub fn skipahead(&self, n: impl IntoVal<u64>, table: impl Memory<u32>) {
        let n = n.into_val();
        apply_powers(table, 0, n, self.v);
        self.d.set(self.d.get() + cast::<u32, _>(n) * XORWOW_WEYL);
    }

    /// `skipahead_sequence(n, &state)`: skip `n * 2^67` values.
    pub fn skipahead_sequence(&self, n: impl IntoVal<u64>, table: impl Memory<u32>) {
        apply_powers(table, 1, n.into_val(), self.v);
    }
}

impl DeviceGenerator for Xorwow {
    fn next_u32(&self) -> Val<u32> {
        let v0 = self.v[0].get();
        let v4 = self.v[4].get();
        let t = v0 ^ (v0 >> 2u32);
        let nv = (v4 ^ (v4 << 4u32)) ^ (t ^ (t << 1u32));
        for k in 0..4 {
            self.v[k].set(self.v[k + 1].get());
        }
        self.v[4].set(nv);
        let d = self.d.get() + XORWOW_WEYL;
        self.d.set(d);
        nv + d
    }

    fn cache(&self) -> Cache {
        self.cache
    }
}
