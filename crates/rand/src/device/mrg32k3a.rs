//! `curandStateMRG32k3a_t` in the kernel language.

use ferrocm_kernel::dsl::{self, cast, select, IntoVal, Memory, Val, Var};
use ferrocm_kernel::prelude::*;

use super::{var_u32, Cache, DeviceGenerator};
use crate::reference::distributions::TWO_PI_F32;
use crate::reference::mrg32k3a::{
    M1_OFFSET, M1_SUBSEQUENCE, M2_OFFSET, M2_SUBSEQUENCE, MRG_BITS_NORM, MRG_M1, MRG_M2, MRG_NORM,
};

/// The skip-ahead table a kernel passes to [`Mrg32k3a::init`]: the reference's `M1_OFFSET`,
/// `M2_OFFSET`, `M1_SUBSEQUENCE`, `M2_SUBSEQUENCE`, 64 row-major 3x3 matrices each (9 KiB).
pub fn mrg32k3a_skip_table() -> Vec<u32> {
    [&M1_OFFSET, &M2_OFFSET, &M1_SUBSEQUENCE, &M2_SUBSEQUENCE]
        .iter()
        .flat_map(|t| t.iter().flat_map(|m| m.iter().flat_map(|r| r.iter().copied())))
        .collect()
}

fn mat_vec(table: impl Memory<u32>, base: Val<u32>, v: [Val<u32>; 3], m: u32) -> [Val<u32>; 3] {
    std::array::from_fn(|i| {
        let mut acc: Val<u64> = Val::constant(0u64);
        for (j, x) in v.iter().enumerate() {
            let a: Val<u64> = cast::<u64, _>(table.load(base + (i * 3 + j) as u32));
            acc = acc + (a * cast::<u64, _>(*x)) % (m as u64);
        }
        cast::<u32, _>(acc % (m as u64))
    })
}

/// Applies `table`'s powers selected by the bits of `n` (`which` 0: offsets, 1: subsequences)
/// to one component (modulus `m`).
#[device]
fn apply_powers(table: &[u32], #[comptime] which: u32, n: u64, v: [Var<Val<u32>>; 3], #[comptime] m: u32) {
    let mut bits = n;
    let mut k = 0u32;
    while bits != 0u64 {
        if (bits & 1u64) != 0u64 {
            apply_power(table, which, k, v, m);
        }
        bits = bits >> 1u32;
        k = k + 1u32;
    }
}

/// Power `k` of `table` applied to one component's words.
fn apply_power(table: impl Memory<u32>, which: u32, k: Val<u32>, v: [Var<Val<u32>>; 3], m: u32) {
    let r = mat_vec(table, (k + which * 64u32) * 9u32, v.map(|x| x.get()), m);
    for (x, y) in v.iter().zip(r) {
        x.set(y);
    }
}

/// The doubles of an MRG32k3a step that are not PTX immediates (an immediate double needs a
/// zero low word): the moduli, their reciprocals and the two output scales.
///
/// [`MrgConstants::immediate`] writes them into the code, which is what a device-API kernel
/// gets. In a loop `ptxas` then rebuilds each one with two moves at every use rather than
/// keep it in registers; kernels that loop over many steps (the host API's) pass them as
/// kernel parameters instead ([`MrgConstants::VALUES`], [`MrgConstants::from_params`]), which
/// `ptxas` cannot rebuild and so keeps. The values, and so the results, are the same.
#[derive(Clone, Copy)]
pub struct MrgConstants {
    m1: Val<f64>,
    m2: Val<f64>,
    m1_inv: Val<f64>,
    m2_inv: Val<f64>,
    norm: Val<f64>,
    bits_norm: Val<f64>,
}

impl MrgConstants {
    /// `[m1, m2, 1/m1, 1/m2, MRG_NORM, MRG_BITS_NORM]`, the order of
    /// [`from_params`](Self::from_params).
    pub const VALUES: [f64; 6] =
        [MRG_M1 as f64, MRG_M2 as f64, 1.0 / MRG_M1 as f64, 1.0 / MRG_M2 as f64, MRG_NORM, MRG_BITS_NORM];

    /// The constants as code immediates.
    pub fn immediate() -> MrgConstants {
        Self::from_params(Self::VALUES.map(Val::constant))
    }

    /// The constants from kernel parameters holding [`VALUES`](Self::VALUES).
    pub fn from_params(v: [Val<f64>; 6]) -> MrgConstants {
        MrgConstants { m1: v[0], m2: v[1], m1_inv: v[2], m2_inv: v[3], norm: v[4], bits_norm: v[5] }
    }
}

/// An MRG32k3a state: the two 3-word components and the Box-Muller cache.
#[derive(Clone, Copy)]
pub struct Mrg32k3a {
    // The words are held as doubles: a step is exact integer arithmetic below 2^53 in f64
    // (as in L'Ecuyer's reference implementation), which is far cheaper on GPUs than the
    // 64-bit integer multiplies and folds of the reference's formulation, and gives the same
    // canonical residues.
    s1: [Var<Val<f64>>; 3],
    s2: [Var<Val<f64>>; 3],
    cache: Cache,
    k: MrgConstants,
}

fn f64_var(name: &str, v: Val<u32>) -> Var<Val<f64>> {
    dsl::var(name, cast::<f64, _>(v))
}

fn u32_vars(v: [Var<Val<f64>>; 3]) -> [Var<Val<u32>>; 3] {
    v.map(|x| var_u32("mrg_w", cast::<u32, _>(x.get())))
}

fn store_back(dst: [Var<Val<f64>>; 3], src: [Var<Val<u32>>; 3]) {
    for (d, s) in dst.iter().zip(src) {
        d.set(cast::<f64, _>(s.get()));
    }
}

/// `2^52 + 2^51`: adding it to a double of magnitude below `2^51` rounds to an integer.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// One component's step: `(a * x - b * y) mod m`, exact in f64.
///
/// `p = a * x - b * y` is an integer below `2^53` in magnitude (one multiply and one fused
/// multiply-add). `k`, the integer nearest to
/// `p / m` (the rounding-constant trick: one fused multiply-add and one subtraction, where
/// `floor` would cost a conversion instruction), may be off by one near a half-integer, so
/// `r = p - k * m` (exact: an integer below `2^53`) lies in `[-m/2 - 1, m/2 + 1]` and one
/// conditional `+ m` gives the canonical residue.
#[device]
fn mrg_component(#[comptime] a: f64, x: f64, #[comptime] b: f64, y: f64, m: f64, m_inv: f64) -> f64 {
    // Both products are exact integers below 2^53, so the fused form is exact too.
    let p = x.mul_add(a, y * -b);
    let k = p.mul_add(m_inv, ROUND_MAGIC) - ROUND_MAGIC;
    let r = k.mul_add(-m, p);
    // `r` is never -0 (an exact sum of opposite-signed terms rounds to +0), so "negative" is
    // its sign bit.
    add_if(r, high_word(r) < 0i32, m)
}

/// The high 32 bits of a double, as a signed integer: negative exactly when the sign bit is
/// set, and at most 0 for an integer-valued double exactly when it is at most 0 (+0's high
/// word is 0, a positive integer's is at least `0x3ff0_0000`). Comparing it is an integer
/// instruction, which leaves the f64 pipe (the MRG32k3a step's bottleneck) to the arithmetic.
fn high_word(x: Val<f64>) -> Val<i32> {
    cast::<i32, _>(cast::<u32, _>(x.to_bits() >> 32u32))
}

/// `x + add` where `cond`, else `x`: a branch around one add, which `ptxas` turns into a
/// predicated add (a `select` of doubles costs the add and two 32-bit selects).
#[device]
fn add_if(x: f64, cond: bool, add: f64) -> f64 {
    let mut r = x;
    if cond {
        r = r + add;
    }
    r
}

/// The output of one step, `p1 - p2` reduced into `(0, m1]` (`p1 <= p2` for the exact integer
/// difference).
#[device]
fn combine(p1: f64, p2: f64, m1: f64) -> f64 {
    let r = p1 - p2;
    add_if(r, high_word(r) <= 0i32, m1)
}

impl Mrg32k3a {
    /// `curand_init(seed, subsequence, offset, &state)`; `table` is [`mrg32k3a_skip_table`] in
    /// device memory.
    #[device]
    pub fn init(
        seed: impl IntoVal<u64>,
        subsequence: impl IntoVal<u64>,
        offset: impl IntoVal<u64>,
        table: impl Memory<u32>,
    ) -> Mrg32k3a {
        let seed = seed.into_val();
        let x1: Val<u64> = cast::<u64, _>(cast::<u32, _>(seed) ^ 0x5555_5555u32);
        let x2: Val<u64> = cast::<u64, _>(cast::<u32, _>(seed >> 32u32) ^ 0xAAAA_AAAAu32);
        let zero = seed == 0u64;
        let mul = |x: Val<u64>, m: u32| {
            let p = ((x * 12345u64) % (m as u64)) as u32;
            select(zero, 12345u32, p)
        };
        let s = Mrg32k3a {
            s1: [
                f64_var("mrg_a0", mul(x1, MRG_M1)),
                f64_var("mrg_a1", mul(x2, MRG_M1)),
                f64_var("mrg_a2", mul(x1, MRG_M1)),
            ],
            s2: [
                f64_var("mrg_b0", mul(x2, MRG_M2)),
                f64_var("mrg_b1", mul(x1, MRG_M2)),
                f64_var("mrg_b2", mul(x2, MRG_M2)),
            ],
            cache: Cache::new(),
            k: MrgConstants::immediate(),
        };
        s.skipahead_sequence(subsequence, table);
        s.skipahead(offset, table);
        s
    }

    /// A state from its raw words (`s1[0..3]`, `s2[0..3]`).
    pub fn from_words(w: [Val<u32>; 6]) -> Mrg32k3a {
        Self::from_words_with(w, MrgConstants::immediate())
    }

    /// [`from_words`](Self::from_words) with the step's constants from `k` (see
    /// [`MrgConstants`]).
    pub fn from_words_with(w: [Val<u32>; 6], k: MrgConstants) -> Mrg32k3a {
        Mrg32k3a {
            s1: [f64_var("mrg_a", w[0]), f64_var("mrg_a", w[1]), f64_var("mrg_a", w[2])],
            s2: [f64_var("mrg_b", w[3]), f64_var("mrg_b", w[4]), f64_var("mrg_b", w[5])],
            cache: Cache::new(),
            k,
        }
    }

    /// The raw words (`s1[0..3]`, `s2[0..3]`).
    pub fn words(&self) -> [Val<u32>; 6] {
        let w = |v: Var<Val<f64>>| -> Val<u32> { cast::<u32, _>(v.get()) };
        [w(self.s1[0]), w(self.s1[1]), w(self.s1[2]), w(self.s2[0]), w(self.s2[1]), w(self.s2[2])]
    }

    /// `skipahead(n, &state)`.
    pub fn skipahead(&self, n: impl IntoVal<u64>, table: impl Memory<u32>) {
        let n = n.into_val();
        let (s1, s2) = (u32_vars(self.s1), u32_vars(self.s2));
        apply_powers(table, 0, n, s1, MRG_M1);
        apply_powers(table, 1, n, s2, MRG_M2);
        store_back(self.s1, s1);
        store_back(self.s2, s2);
    }

    /// `skipahead_sequence(n, &state)`: skip `n * 2^127` values.
    pub fn skipahead_sequence(&self, n: impl IntoVal<u64>, table: impl Memory<u32>) {
        let n = n.into_val();
        let (s1, s2) = (u32_vars(self.s1), u32_vars(self.s2));
        apply_powers(table, 2, n, s1, MRG_M1);
        apply_powers(table, 3, n, s2, MRG_M2);
        store_back(self.s1, s1);
        store_back(self.s2, s2);
    }

    /// The generator's raw output in `1..=m1` (cuRAND's `curand_MRG32k3a`).
    pub fn next_raw(&self) -> Val<u32> {
        cast::<u32, _>(self.next_raw_f64())
    }

    /// The raw output as an (exact) double.
    pub fn next_raw_f64(&self) -> Val<f64> {
        let k = self.k;
        let p1 = mrg_component(1_403_580.0, self.s1[1].get(), 810_728.0, self.s1[0].get(), k.m1, k.m1_inv);
        self.s1[0].set(self.s1[1].get());
        self.s1[1].set(self.s1[2].get());
        self.s1[2].set(p1);
        let p2 = mrg_component(527_612.0, self.s2[2].get(), 1_370_589.0, self.s2[0].get(), k.m2, k.m2_inv);
        self.s2[0].set(self.s2[1].get());
        self.s2[1].set(self.s2[2].get());
        self.s2[2].set(p2);
        combine(p1, p2, k.m1)
    }
}

impl DeviceGenerator for Mrg32k3a {
    fn next_u32(&self) -> Val<u32> {
        cast::<u32, _>(self.next_raw_f64() * self.k.bits_norm)
    }

    fn cache(&self) -> Cache {
        self.cache
    }

    fn uniform(&self) -> Val<f32> {
        cast::<f32, _>(self.next_raw_f64() * self.k.norm)
    }

    fn uniform_double(&self) -> Val<f64> {
        self.next_raw_f64() * self.k.norm
    }

    fn box_muller(&self) -> (Val<f32>, Val<f32>) {
        let x = self.uniform();
        let y = self.uniform() * TWO_PI_F32;
        let s = super::box_muller_radius(x);
        (y.sin() * s, y.cos() * s)
    }

    fn box_muller_double(&self) -> (Val<f64>, Val<f64>) {
        let x = self.uniform_double();
        let y = self.uniform_double() * 2.0f64;
        let s = super::neg2_ln_f64(x).sqrt();
        super::sincospi_scaled(y, s)
    }
}
