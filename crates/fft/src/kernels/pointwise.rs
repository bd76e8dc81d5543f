//! One thread per element: the steps of multi-pass plans that are not FFT passes. Bluestein's
//! chirp, padding and filter, and the real-transform folds (`HalfSpectrumPairs` in and out, the
//! Hermitian expansion, the odd-length conversions) when the transform is too long for one
//! block. The reads and writes use the same layout arguments as the block kernel.

use ferrocm_kernel::dsl::{self, cast, vec2, DslCmp, MemoryMut, Slice, SliceMut, Val};
use ferrocm_kernel::ir::CmpOp;
use ferrocm_kernel::prelude::*;

use super::block::{cload, logical_input, real_twiddle, store_output, u32c, u64v, unfold, Geo};
use super::codelet::Cx;
use super::{Input, Output};
use crate::precision::FftFloat;

/// One pointwise step.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum PointOp {
    /// The logical input (any [`Input`] kind) to complex positions `0..pad`, zero from `n`
    /// on, times Bluestein's chirp at `aux[chirp..]` if given, conjugated for inverse plans.
    Load { input: Input, n: usize, pad: usize, chirp: Option<usize> },
    /// `x -> conj(x F[k])` over `m` positions, `F` at `aux[off..]` (Bluestein's filter).
    Filter { m: usize, off: usize },
    /// Complex positions (each `conj(v) w[k]` with Bluestein's chirp if given) to the output,
    /// written as `output` says for a transform of logical length `n`. The unfold
    /// (`HalfSpectrumPairs`) takes one thread per pair `k`, `n - k` (`k <= n / 2`): each value
    /// is read once and both outputs written.
    Store { output: Output, n: usize, chirp: Option<usize> },
}

/// A pointwise kernel's compile-time shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PointCfg {
    pub op: PointOp,
    pub inverse: bool,
    /// The real-transform twiddles in `aux`.
    pub real: super::RealTable,
    /// Batch dimensions used (1 to 4).
    pub dims: usize,
}

impl PointCfg {
    /// Elements each transform writes.
    pub fn positions(&self) -> usize {
        match &self.op {
            PointOp::Load { pad, .. } => *pad,
            PointOp::Filter { m, .. } => *m,
            PointOp::Store { output, n, .. } => match output {
                Output::Complex | Output::RealPairs | Output::Real => *n,
                Output::HalfSpectrum | Output::HalfSpectrumPairs => n / 2 + 1,
            },
        }
    }
}

/// The body of [`super::fft_pointwise`].
pub(crate) fn body<T: FftFloat>(cfg: &PointCfg, input: Slice<T>, output: SliceMut<T>, aux: Slice<T>, g: Geo) {
    launch_bounds(256, 4);
    let p = cfg.positions() as u64;
    let gi: Val<u64> = cast::<u64, _>(global_index());
    let mut total = g.n[0] * p;
    for d in 1..cfg.dims {
        total = total * g.n[d];
    }
    dsl::if_else(
        gi.dsl_cmp(CmpOp::Lt, total),
        || {
            let k64 = gi % p;
            let k: Val<u32> = cast::<u32, _>(k64);
            let mut rest = gi / p;
            let mut in_base = Val::constant(0u64);
            let mut out_base = Val::constant(0u64);
            for d in 0..cfg.dims {
                let idx = if d + 1 == cfg.dims { rest } else { rest % g.n[d] };
                if d + 1 < cfg.dims {
                    rest = rest / g.n[d];
                }
                in_base = in_base + idx * g.is[d];
                out_base = out_base + idx * g.os[d];
            }
            let out_off = out_base + k64 * g.out_stride;
            match &cfg.op {
                PointOp::Load { input: kind, n, chirp, .. } => {
                    let zero = Val::constant(T::lit(0.0));
                    let inside = k.dsl_cmp(CmpOp::Lt, *n as u32);
                    let ke = k.min((*n - 1) as u32);
                    let x = logical_input(*kind, *n, cfg.real, &input, &aux, &g, in_base, ke);
                    let mut x = if cfg.inverse { x.conj() } else { x };
                    if let Some(off) = chirp {
                        x = x.mul(cload(&aux, u64v(ke) + *off as u64));
                    }
                    let (re, im) = (dsl::select(inside, x.re, zero), dsl::select(inside, x.im, zero));
                    output.store2(out_off, vec2(re, im));
                }
                PointOp::Filter { off, .. } => {
                    let x = cload(&input, in_base + k64 * g.in_stride);
                    let y = x.mul(cload(&aux, k64 + *off as u64)).conj();
                    output.store2(out_off, vec2(y.re, y.im));
                }
                PointOp::Store { output: kind, n, chirp } => {
                    let result = |i: Val<u32>| -> Cx<T> {
                        let v = cload(&input, in_base + u64v(i) * g.in_stride);
                        match chirp {
                            None => v,
                            Some(off) => v.conj().mul(cload(&aux, u64v(i) + *off as u64)),
                        }
                    };
                    if *kind == Output::HalfSpectrumPairs {
                        // X[k] = unfold(Z[k], Z[n-k], W^k) and X[n-k] = unfold(Z[n-k], Z[k],
                        // W^(n-k)) (Z's indices mod n): thread k <= n / 2 writes both.
                        let m = u32c(*n) - k;
                        let zk = result(k);
                        let zm = result(dsl::select(k.dsl_cmp(CmpOp::Eq, 0u32), u32c(0), m));
                        let put = |at: Val<u32>, x: Cx<T>| {
                            output.store2(out_base + u64v(at) * g.out_stride, vec2(x.re, x.im));
                        };
                        put(k, unfold(zk, zm, real_twiddle(&aux, k, cfg.real)));
                        dsl::if_else(
                            k.dsl_cmp(CmpOp::Ne, m),
                            || put(m, unfold(zm, zk, real_twiddle(&aux, m, cfg.real))),
                            || (),
                        );
                    } else {
                        store_output(
                            *kind,
                            *n,
                            cfg.real,
                            cfg.inverse,
                            &output,
                            &aux,
                            &g,
                            out_base,
                            k,
                            &result,
                        );
                    }
                }
            }
        },
        || (),
    );
}
