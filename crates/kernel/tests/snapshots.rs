//! Snapshot tests of generated IR and PTX for representative kernels. The expected text is
//! embedded (`include_str!`), so the test binary runs anywhere; `FERROCM_BLESS=1` rewrites the
//! files under `tests/snapshots/` from the current output (on a machine with the source tree).

use ferrocm_kernel::prelude::*;

/// Compares `actual` with the snapshot `file` (embedded as `expect`), or rewrites it when blessing.
fn check(file: &str, actual: &str, expect: &str) {
    if std::env::var("FERROCM_BLESS").is_ok_and(|v| v == "1") {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(file);
        std::fs::write(&path, actual).unwrap_or_else(|e| panic!("bless {}: {e}", path.display()));
        return;
    }
    if actual != expect {
        let line = actual.lines().zip(expect.lines()).position(|(a, e)| a != e).unwrap_or(0) + 1;
        panic!(
            "snapshot {file} differs at line {line} (re-bless with FERROCM_BLESS=1 if the change is intended)\n\
             --- actual ---\n{actual}"
        );
    }
}

macro_rules! snapshot {
    ($test:ident, $name:literal, $kernel:expr, $arch:literal) => {
        #[test]
        fn $test() {
            let k = $kernel.expect("kernel builds");
            check(
                concat!($name, ".ir"),
                &k.ir().to_string(),
                include_str!(concat!("snapshots/", $name, ".ir")),
            );
            let ptx = k.ptx($arch).expect("PTX generates");
            check(
                concat!($name, ".", $arch, ".ptx"),
                &ptx,
                include_str!(concat!("snapshots/", $name, ".", $arch, ".ptx")),
            );
        }
    };
}

#[kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = global_index();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}
snapshot!(saxpy_ir_and_ptx, "saxpy", saxpy::kernel(), "sm_90");

#[kernel]
fn block_sum<const BLOCK: usize>(x: &[f32], partial: &mut [f32]) {
    let s = shared_array::<f32>(BLOCK);
    let t = thread_idx_x();
    let i = global_index();
    s[t] = if i < x.len() { x[i] } else { 0.0f32 };
    sync_threads();
    let mut stride = (BLOCK / 2) as u32;
    while stride > 0u32 {
        if t < stride {
            s[t] += s[t + stride];
        }
        sync_threads();
        stride = stride / 2u32;
    }
    if t == 0u32 {
        partial[block_idx_x()] = s[0u32];
    }
}
snapshot!(block_sum_ir_and_ptx, "block_sum", block_sum::kernel::<128>(), "sm_90");

#[kernel]
fn warp_reduce(x: &[f32], out: &mut [f32]) {
    let i = global_index();
    let mut v = x[i];
    for k in 0..5u32 {
        v += shfl_xor(v, 16u32 >> k);
    }
    if lane_id() == 0u32 && vote_any(v > 0.0f32) {
        out[i / 32usize] = v;
    }
}
snapshot!(warp_reduce_ir_and_ptx, "warp_reduce", warp_reduce::kernel(), "sm_80");

#[kernel]
fn histogram(x: &[u32], bins: &mut [u32]) {
    let mut i = global_index();
    while i < x.len() {
        bins.atomic_add(x[i] % (bins.len() as u32), 1u32);
        i += grid_stride();
    }
}
snapshot!(histogram_ir_and_ptx, "histogram", histogram::kernel(), "sm_90");

#[kernel]
fn wide_scale(x: &[f32], y: &mut [f32], a: f32) {
    let i = global_index();
    if i < x.len() / 4usize {
        let v = x.load4(i);
        y.store4(i, vec4(v.get(0) * a, v.get(1) * a, v.get(2) * a, v.get(3) * a));
    }
}
snapshot!(wide_scale_ir_and_ptx, "wide_scale", wide_scale::kernel(), "sm_90");

#[kernel]
fn mma_tile(a: &[bf16], bt: &[bf16], c: &mut [f32]) {
    let lane = lane_id();
    let g = lane / 4u32;
    let t = lane % 4u32;
    let a0 = pack_half2(a[g * 16u32 + t * 2u32], a[g * 16u32 + t * 2u32 + 1u32]);
    let b0 = pack_half2(bt[g * 16u32 + t * 2u32], bt[g * 16u32 + t * 2u32 + 1u32]);
    let d = mma_m16n8k16::<bf16>(vec4(a0, a0, a0, a0), vec2(b0, b0), vec4(0.0f32, 0.0f32, 0.0f32, 0.0f32));
    c[lane] = d.get(0);
}
snapshot!(mma_tile_ir_and_ptx, "mma_tile", mma_tile::kernel(), "sm_80");

#[kernel]
fn async_fragments(a: &[f16], c: &mut [u32]) {
    let s = shared_array::<f16>(256);
    let lane = lane_id();
    cp_async(&s, lane * 8u32, &a, lane * 8u32, 16);
    cp_async_commit();
    cp_async_wait(0);
    sync_threads();
    let f = ldmatrix_x4_trans(&s, (lane % 16u32) * 16u32 + (lane / 16u32) * 8u32);
    c[lane] = f.get(0) ^ f.get(3);
}
snapshot!(async_fragments_ir_and_ptx, "async_fragments", async_fragments::kernel(), "sm_90");

/// Compile-time constructs leave no trace but the arithmetic they unroll: a `match` on a
/// compile-time enum, a `for` over a constant array with a `#[comptime] let mut` accumulator, a
/// closure (no kernel variable, no loop).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Poly {
    Cubic,
    Quintic,
}

#[kernel]
fn horner_plan(#[comptime] poly: Poly, x: &[f32], y: &mut [f32]) {
    let coeffs: &[f32] = match poly {
        Poly::Cubic => &[1.0, -0.5, 0.25, 2.0],
        Poly::Quintic => &[0.125, 1.0, -0.5, 0.25, 2.0, -1.0],
    };
    let eval = |v| {
        #[comptime]
        let mut p = ferrocm_kernel::dsl::Val::constant(coeffs[0]);
        for &c in &coeffs[1..] {
            p = p.mul_add(v, c);
        }
        p
    };
    let i = global_index();
    if i < y.len() {
        y[i] = eval(x[i]);
    }
}
snapshot!(horner_plan_ir_and_ptx, "horner_plan", horner_plan::kernel(Poly::Cubic), "sm_90");

/// The other arm of `horner_plan`'s `match`: five coefficients after the first, five `fma`s.
#[test]
fn horner_plan_quintic_unrolls_five_fmas() {
    let ir = horner_plan::kernel(Poly::Quintic).unwrap().ir().to_string();
    assert_eq!(ir.matches(" fma ").count(), 5, "{ir}");
}
