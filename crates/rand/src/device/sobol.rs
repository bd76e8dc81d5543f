//! Sobol32 points in the kernel language.

use ferrocm_kernel::dsl::{self, select, DslCmp, Memory, Val};
use ferrocm_kernel::ir::CmpOp;

use super::var_u32;

/// Count of trailing zero bits of a nonzero `x` (the IR has no `ctz`; a five-step search on
/// the isolated lowest bit).
pub fn ctz32(x: Val<u32>) -> Val<u32> {
    let low = x & (Val::constant(0u32) - x);
    let mut n: Val<u32> = Val::constant(0u32);
    for (mask, add) in
        [(0xFFFF_0000u32, 16u32), (0xFF00_FF00, 8), (0xF0F0_F0F0, 4), (0xCCCC_CCCC, 2), (0xAAAA_AAAA, 1)]
    {
        n = n + select((low & mask).dsl_cmp(CmpOp::Ne, 0u32), add, 0u32);
    }
    n
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
