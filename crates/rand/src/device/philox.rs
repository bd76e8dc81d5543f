//! `curandStatePhilox4_32_10_t` in the kernel language.

use ferrocm_kernel::device;
use ferrocm_kernel::dsl::{self, cast, select, DslCmp, IntoVal, Val, Var};
use ferrocm_kernel::ir::CmpOp;

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

#[device]
fn lt(a: u32, b: u32) -> bool {
    a < b
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
    fn incr(&self, n: Val<u64>) {
        let nlo: Val<u32> = cast::<u32, _>(n);
        let nhi: Val<u32> = cast::<u32, _>(n >> 32u32);
        let c0 = self.ctr[0].get() + nlo;
        self.ctr[0].set(c0);
        let nhi = nhi + select(lt(c0, nlo), 1u32, 0u32);
        let c1 = self.ctr[1].get() + nhi;
        self.ctr[1].set(c1);
        let carry = lt(c1, nhi);
        let c2 = self.ctr[2].get() + select(carry, 1u32, 0u32);
        self.ctr[2].set(c2);
        let carry2 = dsl::DslLogic::and_then(carry, || c2.dsl_cmp(CmpOp::Eq, 0u32));
        self.ctr[3].set(self.ctr[3].get() + select(carry2, 1u32, 0u32));
    }

    /// `skipahead(n, &state)`: skip `n` 32-bit values.
    pub fn skipahead(&self, n: impl IntoVal<u64>) {
        let n = n.into_val();
        let idx = (self.index.get() & 3u32) + (cast::<u32, _>(n) & 3u32);
        let over = idx.dsl_cmp(CmpOp::Gt, 3u32);
        let blocks = (n >> 2u32) + select(over, 1u64, 0u64);
        self.index.set(select(over, idx - 4u32, idx));
        self.incr(blocks);
        self.refill();
    }

    /// `skipahead_sequence(n, &state)`: skip `n` subsequences of 2^66 values.
    pub fn skipahead_sequence(&self, n: impl IntoVal<u64>) {
        let n = n.into_val();
        let nlo: Val<u32> = cast::<u32, _>(n);
        let nhi: Val<u32> = cast::<u32, _>(n >> 32u32);
        let c2 = self.ctr[2].get() + nlo;
        self.ctr[2].set(c2);
        let nhi = nhi + select(lt(c2, nlo), 1u32, 0u32);
        self.ctr[3].set(self.ctr[3].get() + nhi);
        self.refill();
    }

    /// `curand4(&state)`: the next four values.
    pub fn next4(&self) -> [Val<u32>; 4] {
        let t = self.output.map(|v| v.get());
        self.incr(Val::constant(1u64));
        self.refill();
        let o = self.output.map(|v| v.get());
        let i = self.index.get();
        let is = |k: u32| i.dsl_cmp(CmpOp::Eq, k);
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
    fn next_u32(&self) -> Val<u32> {
        let i = self.index.get() & 3u32;
        let o = self.output.map(|v| v.get());
        let is = |k: u32| i.dsl_cmp(CmpOp::Eq, k);
        let ret = select(is(0), o[0], select(is(1), o[1], select(is(2), o[2], o[3])));
        let next = i + 1u32;
        let wrap = next.dsl_cmp(CmpOp::Eq, 4u32);
        self.index.set(select(wrap, 0u32, next));
        dsl::if_else(
            wrap,
            || {
                self.incr(Val::constant(1u64));
                self.refill();
            },
            || (),
        );
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
