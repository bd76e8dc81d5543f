//! Sobol32 points in the kernel language.

use ferrocm_kernel::dsl::{self, DslCmp, Memory, Val};
use ferrocm_kernel::ir::CmpOp;

use super::var_u32;

/// Count of trailing zero bits of a nonzero `x` (PTX `brev` + `clz` on NVIDIA).
pub fn ctz32(x: Val<u32>) -> Val<u32> {
    x.trailing_zeros()
}

/// Point `i` of the Sobol32 dimension whose 32 direction vectors start at word `base` of
/// `directions`: the XOR of the vectors selected by the Gray code of `i`. A loop that stops
/// at the Gray code's top bit: on an H200 a fully unrolled, branch-free form (32 loads per
/// point, 32 points per thread) measured 147 GSample/s against this form's 363.
pub fn sobol32_point(directions: impl Memory<u32>, base: Val<u32>, i: Val<u32>) -> Val<u32> {
    let gray = i ^ (i >> 1u32);
    let x = var_u32("sobol_x", 0u32);
    let g = var_u32("sobol_g", gray);
    let k = var_u32("sobol_k", 0u32);
    dsl::while_(
        || g.get().dsl_cmp(CmpOp::Ne, 0u32),
        || {
            let bit = Val::constant(0u32) - (g.get() & 1u32);
            x.set(x.get() ^ (directions.load(base + k.get()) & bit));
            g.set(g.get() >> 1u32);
            k.set(k.get() + 1u32);
        },
    );
    x.get()
}

/// Point `i` of the Sobol64 dimension whose 64 direction vectors start at word `base` of
/// `directions` (cuRAND's `curandStateSobol64_t` after `curand_init(vectors, i, &state)`).
pub fn sobol64_point(directions: impl Memory<u64>, base: Val<u32>, i: Val<u64>) -> Val<u64> {
    let gray = i ^ (i >> 1u32);
    let x = dsl::var("sobol64_x", Val::constant(0u64));
    let g = dsl::var("sobol64_g", gray);
    let k = dsl::var("sobol64_k", Val::constant(0u32));
    dsl::while_(
        || g.get().dsl_cmp(CmpOp::Ne, 0u64),
        || {
            let bit = Val::constant(0u64) - (g.get() & 1u64);
            x.set(x.get() ^ (directions.load(base + k.get()) & bit));
            g.set(g.get() >> 1u32);
            k.set(k.get() + 1u32);
        },
    );
    x.get()
}

/// The Sobol64 point after point `x` of index `i` (`curand` on a Sobol64 state): `x` with the
/// direction vector of the lowest zero bit of `i` flipped (the last one for `i = 2^64 - 1`).
pub fn sobol64_next(directions: impl Memory<u64>, base: Val<u32>, i: Val<u64>, x: Val<u64>) -> Val<u64> {
    let k = (!i).trailing_zeros().min(63u32);
    x ^ directions.load(base + k)
}
