//! `curandStatePhilox4_32_10_t` in the kernel language.

use ferrocm_kernel::device;
use ferrocm_kernel::dsl::{cast, select, IntoVal, Val, Var};

use super::{uniform_f32, uniform_f64_from_u32, var_u32, Cache, DeviceGenerator};

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// `(hi, lo)` of the 64-bit product of a constant and `x`: `mul.hi.u32` and `mul.lo.u32`, as
/// cuRAND's `__umulhi` and `*` (faster than a 64-bit product of zero-extended operands on an
/// H200; see `NOTES.md`).
fn mulhilo(m: u32, x: Val<u32>) -> (Val<u32>, Val<u32>) {
    (x.mul_hi(m), x * m)
}

/// The ten round keys of `key` (cuRAND adds the Weyl constants round by round); kernels that
/// run many blocks with one key compute them once, outside their loop.
pub fn philox_round_keys(key: [Val<u32>; 2]) -> [[Val<u32>; 2]; 10] {
    let mut k = key;
    std::array::from_fn(|r| {
        if r > 0 {
            k = [k[0] + W0, k[1] + W1];
        }
        k
    })
}

/// The block function with precomputed round keys ([`philox_round_keys`]).
pub fn philox4x32_10_keyed(ctr: [Val<u32>; 4], keys: &[[Val<u32>; 2]; 10]) -> [Val<u32>; 4] {
    let mut c = ctr;
    for k in keys {
        let (hi0, lo0) = mulhilo(M0, c[0]);
        let (hi1, lo1) = mulhilo(M1, c[2]);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// `curand_Philox4x32_10(counter, key)`: the ten-round block function.
pub fn philox4x32_10(ctr: [Val<u32>; 4], key: [Val<u32>; 2]) -> [Val<u32>; 4] {
    let mut c = ctr;
    let mut k = key;
    for r in 0..10 {
        if r > 0 {
            k = [k[0] + W0, k[1] + W1];
        }
        let (hi0, lo0) = mulhilo(M0, c[0]);
        let (hi1, lo1) = mulhilo(M1, c[2]);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// A Philox4x32-10 state: counter, key, the current block's four outputs and the index of the
/// next one, and the Box-Muller cache.
#[derive(Clone, Copy)]
pub struct Philox {
    ctr: [Var<Val<u32>>; 4],
    key: [Val<u32>; 2],
    output: [Var<Val<u32>>; 4],
    index: Var<Val<u32>>,
    cache: Cache,
}

impl Philox {
    /// `curand_init(seed, subsequence, offset, &state)`.
    pub fn init(
        seed: impl IntoVal<u64>,
        subsequence: impl IntoVal<u64>,
        offset: impl IntoVal<u64>,
    ) -> Philox {
        let seed = seed.into_val();
        let key = [cast::<u32, _>(seed), cast::<u32, _>(seed >> 32u32)];
        let s = Philox {
            ctr: [
                var_u32("ph_c0", 0u32),
                var_u32("ph_c1", 0u32),
                var_u32("ph_c2", 0u32),
                var_u32("ph_c3", 0u32),
            ],
            key,
            output: [
                var_u32("ph_o0", 0u32),
                var_u32("ph_o1", 0u32),
                var_u32("ph_o2", 0u32),
                var_u32("ph_o3", 0u32),
            ],
            index: var_u32("ph_idx", 0u32),
            cache: Cache::new(),
        };
        s.skipahead_sequence(subsequence);
        s.skipahead(offset);
        s
    }

    fn ctr(&self) -> [Val<u32>; 4] {
        self.ctr.map(|v| v.get())
    }

    fn refill(&self) {
        let o = philox4x32_10(self.ctr(), self.key);
        for (v, x) in self.output.iter().zip(o) {
            v.set(x);
        }
    }

    /// `Philox_State_Incr`, with cuRAND's carry logic (a dropped carry included), branch-free.
    #[device]
    fn incr(&self, n: u64) {
        let nlo = n as u32;
        let nhi = (n >> 32u32) as u32;
        let c0 = self.ctr[0] + nlo;
        self.ctr[0] = c0;
        let nhi = nhi + select(c0 < nlo, 1u32, 0u32);
        let c1 = self.ctr[1] + nhi;
        self.ctr[1] = c1;
        let carry = c1 < nhi;
        let c2 = self.ctr[2].get() + select(carry, 1u32, 0u32);
        self.ctr[2] = c2;
        let carry2 = carry && c2 == 0u32;
        self.ctr[3] = self.ctr[3].get() + select(carry2, 1u32, 0u32);
    }

    /// `skipahead(n, &state)`: skip `n` 32-bit values.
    #[device]
    pub fn skipahead(&self, n: u64) {
        let idx = (self.index.get() & 3u32) + ((n as u32) & 3u32);
        let over = idx > 3u32;
        let blocks = (n >> 2u32) + select(over, 1u64, 0u64);
        self.index = select(over, idx - 4u32, idx);
        self.incr(blocks);
        self.refill();
    }

    /// `skipahead_sequence(n, &state)`: skip `n` subsequences of 2^66 values.
    #[device]
    pub fn skipahead_sequence(&self, n: u64) {
        let nlo = n as u32;
        let nhi = (n >> 32u32) as u32;
        let c2 = self.ctr[2] + nlo;
        self.ctr[2] = c2;
        let nhi = nhi + select(c2 < nlo, 1u32, 0u32);
        self.ctr[3] = self.ctr[3] + nhi;
        self.refill();
    }

    /// `curand4(&state)`: the next four values.
    #[device]
    pub fn next4(&self) -> [Val<u32>; 4] {
        let t = self.output.map(|v| v.get());
        self.incr(1u64);
        self.refill();
        let o = self.output.map(|v| v.get());
        let i = self.index.get();
        let is = |k: u32| i == k;
        let pick = |a: [Val<u32>; 4]| select(is(0), a[0], select(is(1), a[1], select(is(2), a[2], a[3])));
        [
            pick([t[0], t[1], t[2], t[3]]),
            pick([t[1], t[2], t[3], o[0]]),
            pick([t[2], t[3], o[0], o[1]]),
            pick([t[3], o[0], o[1], o[2]]),
        ]
    }

    /// `curand_uniform4(&state)`.
    pub fn uniform4(&self) -> [Val<f32>; 4] {
        self.next4().map(uniform_f32)
    }

    /// `curand_normal4(&state)`.
    pub fn normal4(&self) -> [Val<f32>; 4] {
        let x = self.next4();
        let (a, b) = super::box_muller(x[0], x[1]);
        let (c, d) = super::box_muller(x[2], x[3]);
        [a, b, c, d]
    }

    /// `curand_uniform2_double(&state)`.
    pub fn uniform2_double(&self) -> [Val<f64>; 2] {
        let x = self.next4();
        [super::uniform_f64_hq(x[0], x[1]), super::uniform_f64_hq(x[2], x[3])]
    }

    /// `curand_normal4_double(&state)`.
    pub fn normal4_double(&self) -> [Val<f64>; 4] {
        let (a, b) = self.box_muller_double();
        let (c, d) = self.box_muller_double();
        [a, b, c, d]
    }
}

impl DeviceGenerator for Philox {
    #[device]
    fn next_u32(&self) -> Val<u32> {
        let i = self.index.get() & 3u32;
        let o = self.output.map(|v| v.get());
        let is = |k: u32| i == k;
        let ret = select(is(0), o[0], select(is(1), o[1], select(is(2), o[2], o[3])));
        let next = i + 1u32;
        let wrap = next == 4u32;
        self.index = select(wrap, 0u32, next);
        if wrap {
            self.incr(1u64);
            self.refill();
        }
        ret
    }

    fn cache(&self) -> Cache {
        self.cache
    }

    /// One 32-bit draw, as cuRAND's Philox `curand_uniform_double`.
    fn uniform_double(&self) -> Val<f64> {
        uniform_f64_from_u32(self.next_u32())
    }

    fn box_muller_double(&self) -> (Val<f64>, Val<f64>) {
        let x = self.next4();
        super::box_muller_double(x[0], x[1], x[2], x[3])
    }
}
