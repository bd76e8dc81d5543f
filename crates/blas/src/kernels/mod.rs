//! The kernel-language kernels (GPUs, and the CPU executor when [`Engine::Kernels`] is
//! chosen), and the host code that sizes and launches them.
//!
//! Conventions shared by every kernel here:
//! - Element type `R` is the *real* type (`f32`, `f64`); a complex matrix or vector is viewed
//!   as interleaved `R` pairs, and the compile-time flag `CX` says which.
//! - Scalars arrive both as host values (`a_re`, `a_im`) and as a device view; the
//!   compile-time flag `DS` picks the view (rocBLAS's device pointer mode), which the kernel
//!   reads when it runs.
//! - Strided vectors are `(offset, inc)`: element `i` of the walk is at `offset + i * inc`,
//!   with the offset of a negative increment at the far end (reference BLAS's order).
//! - Indices are 32-bit (views are limited to 2^32 - 1 elements by the argument checks).
//!
//! [`Engine::Kernels`]: crate::Engine::Kernels

pub(crate) mod gemm;
pub(crate) mod gemm_ex;
pub(crate) mod l2mv;
pub(crate) mod l2rank;
pub(crate) mod l3;
pub(crate) mod level1;
pub(crate) mod level2;

use ferrocm_kernel::dsl::Val;
use ferrocm_kernel::prelude::*;
use ferrocm_kernel::runtime::{AsDeviceSlice, AsDeviceSliceMut, DeviceSlice, LaunchConfig, Stream};

use crate::error::Result;
use crate::handle::Handle;
use crate::types::{Scalar, ScalarArg};

/// The real element types of the kernels (`f32`, `f64`).
pub use crate::types::RealScalar as KReal;

/// The constant `x` as a kernel value of type `R`.
pub fn lit<R: KReal>(x: f64) -> Val<R> {
    Val::constant(R::from_f64(x))
}

/// Reads a scalar: the device view when `DS`, else the host value.
#[device]
pub fn scalar<R: KReal>(#[comptime] ds: bool, host: R, view: &[R], k: u32) -> R {
    let mut v = host;
    if ds {
        v = view.load(k);
    }
    v
}

/// Threads per block of the element-wise and reduction kernels.
pub(crate) const BLOCK: u32 = 256;

/// The grid's `y` and `z` limit (blocks) on NVIDIA GPUs.
pub const MAX_GRID_YZ: u32 = 65_535;

/// A grid of at most `cap` blocks of [`BLOCK`] threads covering `n` items (grid-stride loops
/// cover the rest); at least one block.
pub(crate) fn grid(stream: &Stream, n: usize) -> u32 {
    let cus = stream.device().properties().compute_units.max(1);
    let cap = (cus * 8).max(8) as usize;
    n.div_ceil(BLOCK as usize).clamp(1, cap) as u32
}

/// A launch of `blocks` blocks of [`BLOCK`] threads.
pub(crate) fn cfg(blocks: u32) -> LaunchConfig {
    LaunchConfig::new(blocks, BLOCK)
}

/// A scalar as the kernels take it: host parts and a device view of reals (the handle's
/// placeholder when the scalar is a host value).
pub(crate) struct KScalar<'a, R: KReal> {
    pub re: R,
    pub im: R,
    pub view: DeviceSlice<'a, R>,
    pub device: bool,
}

impl Handle {
    /// Splits a scalar argument for the kernels.
    pub(crate) fn kscalar<'a, T: Scalar>(&'a self, s: &ScalarArg<'a, T>) -> Result<KScalar<'a, T::Real>> {
        Ok(match s {
            ScalarArg::Host(v) => {
                let (re, im) = v.parts();
                KScalar {
                    re,
                    im,
                    view: self.dummy.as_device_slice().reinterpret::<T::Real>()?,
                    device: false,
                }
            }
            ScalarArg::Device(d) => {
                let zero = <T::Real as Scalar>::zero();
                KScalar { re: zero, im: zero, view: d.reinterpret::<T::Real>()?, device: true }
            }
        })
    }
}

/// `(offset, inc)` of a strided walk of `n` elements in 32-bit kernel terms.
pub(crate) fn walk(n: usize, inc: isize) -> (u32, i32) {
    let off = if inc < 0 && n > 0 { (n - 1) * inc.unsigned_abs() } else { 0 };
    // The argument checks bound every span by 2^32 - 1 elements, and increments by the span.
    (off as u32, inc.clamp(i32::MIN as isize, i32::MAX as isize) as i32)
}

/// Declares the next launch's work for the profiler's roofline.
pub(crate) fn annotate(flops: u64, bytes: u64) {
    ferrocm_kernel::runtime::trace::annotate_next_launch(ferrocm_kernel::runtime::trace::Work::new(
        flops, bytes,
    ));
}

/// The Level 1 reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduceOp {
    Dot { conj: bool },
    Nrm2,
    Asum,
    Iamax { max: bool },
}

/// A reduction in two launches: per-block partials into pooled workspace, then one block
/// writes `result[0]`. Arguments were checked by the caller; `n` is 0 where reference BLAS
/// sees nothing.
pub(crate) fn level1_reduce<T: Scalar, U: ferrocm_kernel::runtime::DeviceRepr, Y: AsDeviceSlice<T>>(
    h: &Handle,
    op: ReduceOp,
    n: usize,
    x: &impl AsDeviceSlice<T>,
    incx: isize,
    y: Option<(&Y, isize)>,
    result: &mut impl AsDeviceSliceMut<U>,
) -> Result<()> {
    use level1 as k;
    let s = h.stream();
    let cx = T::COMPLEX;
    let blocks = grid(s, n);
    let n32 = n as u32;
    let xr = x.as_device_slice().reinterpret::<T::Real>()?;
    let inc = incx as i32;
    let bytes = (n * size_of::<T>()) as u64;
    match op {
        ReduceOp::Dot { conj } => {
            let (y, incy) = y.expect("dot has a y");
            let yr = y.as_device_slice().reinterpret::<T::Real>()?;
            let ((ox, ix), (oy, iy)) = (walk(n, incx), walk(n, incy));
            let mut part = h.workspace::<T::Real>(2 * blocks as usize)?;
            annotate(2 * n as u64 * if cx { 4 } else { 1 }, 2 * bytes);
            let c = cfg(blocks);
            match (cx, conj) {
                (false, _) => k::dot_partial::launch::<T::Real, false, false>(
                    s, c, n32, &xr, ox, ix, &yr, oy, iy, &mut part,
                )?,
                (true, false) => k::dot_partial::launch::<T::Real, true, false>(
                    s, c, n32, &xr, ox, ix, &yr, oy, iy, &mut part,
                )?,
                (true, true) => k::dot_partial::launch::<T::Real, true, true>(
                    s, c, n32, &xr, ox, ix, &yr, oy, iy, &mut part,
                )?,
            }
            let mut out = result.as_device_slice_mut().reinterpret::<T::Real>()?;
            if cx {
                k::finish_sum::launch::<T::Real, true>(s, cfg(1), blocks, &part, &mut out)?;
            } else {
                k::finish_sum::launch::<T::Real, false>(s, cfg(1), blocks, &part, &mut out)?;
            }
        }
        ReduceOp::Asum => {
            let mut part = h.workspace::<T::Real>(2 * blocks as usize)?;
            annotate(n as u64 * if cx { 2 } else { 1 }, bytes);
            if cx {
                k::asum_partial::launch::<T::Real, true>(s, cfg(blocks), n32, &xr, inc, &mut part)?;
            } else {
                k::asum_partial::launch::<T::Real, false>(s, cfg(blocks), n32, &xr, inc, &mut part)?;
            }
            let mut out = result.as_device_slice_mut().reinterpret::<T::Real>()?;
            k::finish_sum::launch::<T::Real, false>(s, cfg(1), blocks, &part, &mut out)?;
        }
        ReduceOp::Nrm2 => {
            // Unit-stride, 16-byte aligned vectors are read 16 bytes at a time as reals (a
            // complex vector's norm is its 2 n reals' norm).
            let reals = if cx { 2 * n } else { n };
            let vector = incx == 1 && xr.device_ptr().0 % 16 == 0 && reals <= u32::MAX as usize;
            let vw = if vector { 16 / size_of::<T::Real>() } else { 1 };
            let blocks = if vw > 1 { grid(s, reals.div_ceil(vw)) } else { blocks };
            let mut part = h.workspace::<f64>(2 * blocks as usize)?;
            annotate(2 * reals as u64, bytes);
            let scaled = size_of::<T::Real>() == 8;
            let c = cfg(blocks);
            macro_rules! go {
                ($cx:literal, $scaled:literal, $vw:literal, $n:expr) => {
                    k::nrm2_partial::launch::<T::Real, $cx, $scaled, $vw>(s, c, $n, &xr, inc, &mut part)?
                };
            }
            match (cx, scaled, vw) {
                (_, false, 4) => go!(false, false, 4, reals as u32),
                (_, true, 2) => go!(false, true, 2, reals as u32),
                (false, false, _) => go!(false, false, 1, n32),
                (false, true, _) => go!(false, true, 1, n32),
                (true, false, _) => go!(true, false, 1, n32),
                (true, true, _) => go!(true, true, 1, n32),
            }
            let mut out = result.as_device_slice_mut().reinterpret::<T::Real>()?;
            k::finish_norm::launch::<T::Real>(s, cfg(1), blocks, &part, &mut out)?;
        }
        ReduceOp::Iamax { max } => {
            let mut val = h.workspace::<T::Real>(blocks as usize)?;
            let mut idx = h.workspace::<u32>(blocks as usize)?;
            annotate(n as u64 * if cx { 2 } else { 1 }, bytes);
            macro_rules! go {
                ($cx:literal, $max:literal) => {{
                    k::iamax_partial::launch::<T::Real, $cx, $max>(
                        s,
                        cfg(blocks),
                        n32,
                        &xr,
                        inc,
                        &mut val,
                        &mut idx,
                    )?;
                    let mut out = result.as_device_slice_mut().reinterpret::<i32>()?;
                    k::finish_iamax::launch::<T::Real, $cx, $max>(
                        s,
                        cfg(1),
                        n32,
                        &xr,
                        blocks,
                        &val,
                        &idx,
                        &mut out,
                    )?;
                }};
            }
            match (cx, max) {
                (false, true) => go!(false, true),
                (false, false) => go!(false, false),
                (true, true) => go!(true, true),
                (true, false) => go!(true, false),
            }
        }
    }
    Ok(())
}

/// The GPU code of the kernels whose speed rests on particular instructions: lowered to PTX
/// here (no GPU needed), so a code generator change that loses them fails on every machine.
#[cfg(test)]
mod ptx {
    use super::{gemm, level2};

    /// Writes the PTX to `/tmp/<name>.ptx` when `BLAS_DUMP_PTX` is set (for `ptxas -v`).
    fn dump(name: &str, ptx: &str) {
        if std::env::var_os("BLAS_DUMP_PTX").is_some() {
            std::fs::write(format!("/tmp/{name}.ptx"), ptx.as_bytes()).unwrap();
        }
    }

    fn has(ptx: &str, what: &[&str], kernel: &str) {
        for w in what {
            assert!(ptx.contains(w), "{kernel}: PTX has no `{w}`");
        }
    }

    #[test]
    fn dgemm_uses_the_fp64_tensor_core_and_cp_async() {
        for (wide, ptx) in [
            (false, gemm::gemm_dmma::kernel::<0, 1, false, false, false>().unwrap().ptx("sm_90").unwrap()),
            (true, gemm::gemm_dmma::kernel::<0, 0, false, false, true>().unwrap().ptx("sm_90").unwrap()),
        ] {
            dump(if wide { "gemm_dmma_wide" } else { "gemm_dmma" }, &ptx);
            has(
                &ptx,
                &["mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", "cp.async", "cp.async.wait_group 1"],
                "gemm_dmma",
            );
            if wide {
                has(&ptx, &[".maxntid 512, 1, 1", ".minnctapersm 1"], "gemm_dmma wide");
            } else {
                has(&ptx, &[".maxntid 256, 1, 1", ".minnctapersm 2"], "gemm_dmma narrow");
            }
        }
    }

    #[test]
    fn dgemm16_uses_hoppers_fp64_shape_and_cp_async() {
        use gemm::{
            gemm_dmma16, DMMA16_K8 as K8, DMMA16_NARROW as NARROW, DMMA16_W32 as W32, DMMA16_WIDE as WIDE,
        };
        // Each geometry with A stored along the tile (N) and along K (T): the copy mappings differ.
        for (name, limits, ptx) in [
            ("gemm_dmma16", (128, 2), gemm_dmma16::kernel::<1, 0, false, false, NARROW>()),
            ("gemm_dmma16_wide", (256, 1), gemm_dmma16::kernel::<0, 0, false, false, WIDE>()),
            ("gemm_dmma16_w32", (256, 2), gemm_dmma16::kernel::<0, 0, false, false, W32>()),
            ("gemm_dmma16_w32_tn", (256, 2), gemm_dmma16::kernel::<1, 0, false, false, W32>()),
            ("gemm_dmma16_k8", (128, 2), gemm_dmma16::kernel::<0, 0, false, false, K8>()),
        ] {
            let ptx = ptx.unwrap().ptx("sm_90").unwrap();
            dump(name, &ptx);
            let shape = if name.ends_with("k8") { "m16n8k8" } else { "m16n8k16" };
            has(
                &ptx,
                &[
                    &format!("mma.sync.aligned.{shape}.row.col.f64.f64.f64.f64"),
                    "cp.async",
                    "cp.async.wait_group 2",
                    "ld.shared.v2.f64",
                ],
                name,
            );
            assert!(!ptx.contains("m8n8k4"), "{name} uses the sm_80 shape");
            let (threads, blocks) = limits;
            has(&ptx, &[&format!(".maxntid {threads}, 1, 1"), &format!(".minnctapersm {blocks}")], name);
        }
        // sm_80 lacks the shape: the kernel must not compile there.
        assert!(gemm_dmma16::kernel::<0, 0, false, false, WIDE>().unwrap().ptx("sm_80").is_err());
    }

    /// Every operation pair and scalar mode of every geometry lowers for sm_90 (the launch picks
    /// any of them); with `BLAS_DUMP_PTX` each is written as
    /// `/tmp/gemm_dmma16_g<geo>_<ta><tb>_<dsa><dsb>.ptx`, so `ptxas -v` can check them all for
    /// spills.
    #[test]
    fn dgemm16_every_variant_lowers() {
        use gemm::{
            gemm_dmma16, DMMA16_K8 as K8, DMMA16_NARROW as NARROW, DMMA16_W32 as W32, DMMA16_WIDE as WIDE,
        };
        macro_rules! each {
            ($($ta:literal $tb:literal $dsa:literal $dsb:literal),*) => {
                $(
                    for (geo, k) in [
                        (NARROW, gemm_dmma16::kernel::<$ta, $tb, $dsa, $dsb, NARROW>()),
                        (WIDE, gemm_dmma16::kernel::<$ta, $tb, $dsa, $dsb, WIDE>()),
                        (W32, gemm_dmma16::kernel::<$ta, $tb, $dsa, $dsb, W32>()),
                        (K8, gemm_dmma16::kernel::<$ta, $tb, $dsa, $dsb, K8>()),
                    ] {
                        let name = format!(
                            "gemm_dmma16_g{geo}_{}{}_{}{}",
                            $ta, $tb, u8::from($dsa), u8::from($dsb)
                        );
                        let ptx = k.unwrap().ptx("sm_90").unwrap();
                        dump(&name, &ptx);
                        let shape = if geo == K8 { "m16n8k8" } else { "m16n8k16" };
                        has(&ptx, &[&format!("mma.sync.aligned.{shape}.row.col.f64.f64.f64.f64")], &name);
                    }
                )*
            };
        }
        each!(
            0 0 false false, 0 1 false false, 1 0 false false, 1 1 false false,
            0 0 true false, 0 1 true false, 1 0 true false, 1 1 true false,
            0 0 false true, 0 1 false true, 1 0 false true, 1 1 false true,
            0 0 true true, 0 1 true true, 1 0 true true, 1 1 true true
        );
    }

    #[test]
    fn sgemm_reads_fragments_16_bytes_at_a_time() {
        let ptx =
            gemm::gemm_simt::kernel::<f32, false, 0, 0, false, false, 8>().unwrap().ptx("sm_90").unwrap();
        dump("gemm_simt", &ptx);
        has(&ptx, &["ld.shared.v4.f32"], "gemm_simt");
    }

    #[test]
    fn nrm2_reads_16_bytes_at_a_time() {
        use super::level1::nrm2_partial;
        let ptx = nrm2_partial::kernel::<f32, false, false, 4>().unwrap().ptx("sm_90").unwrap();
        dump("nrm2_f32", &ptx);
        has(&ptx, &["ld.global.v4.f32", "fma.rn.f64"], "nrm2_partial f32");
        let ptx = nrm2_partial::kernel::<f64, false, true, 2>().unwrap().ptx("sm_90").unwrap();
        dump("nrm2_f64", &ptx);
        has(&ptx, &["ld.global.v2.f64"], "nrm2_partial f64");
    }

    #[test]
    fn sgemm_wt_uses_cp_async_and_16_byte_fragments() {
        for (ta, ptx) in [
            (0, gemm::gemm_wt::kernel::<0, 0, false, false>().unwrap().ptx("sm_90").unwrap()),
            (1, gemm::gemm_wt::kernel::<1, 1, false, false>().unwrap().ptx("sm_90").unwrap()),
        ] {
            dump(&format!("gemm_wt_{ta}{ta}"), &ptx);
            has(&ptx, &["ld.shared.v4.f32", "ld.global.v4.f32", ".minnctapersm 2"], "gemm_wt");
            if ta == 0 {
                has(&ptx, &["cp.async.cg.shared.global [%r"], "gemm_wt NN");
            }
        }
    }

    #[test]
    fn gemv_reads_16_byte_strips() {
        let ptx = level2::gemv_n_part::kernel::<f32, false, false, 4, true>().unwrap().ptx("sm_90").unwrap();
        has(&ptx, &["ld.global.v4.f32"], "gemv_n_part");
        let ptx = level2::gemv_n_part::kernel::<f64, false, false, 2, true>().unwrap().ptx("sm_90").unwrap();
        has(&ptx, &["ld.global.v2.f64"], "gemv_n_part f64");
        let ptx = level2::gemv_t::kernel::<f32, false, false, false, false, 4, true, true>()
            .unwrap()
            .ptx("sm_90")
            .unwrap();
        has(&ptx, &["ld.global.v4.f32"], "gemv_t");
    }
}
