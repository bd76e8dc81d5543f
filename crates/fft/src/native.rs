//! The CPU device's engine: transforms computed by `rustfft` (complex) and `realfft` (real),
//! packaged as a native CPU kernel so they run in stream order like any launch. Lines along
//! each axis are gathered into contiguous scratch in chunks that stay in cache, transformed
//! there, and scattered to the output, with chunks spread over the CPU with rayon.

use std::sync::Arc;

use ferrocm_kernel::runtime::backend::{CpuKernel, CpuModule, LaunchDims};
use num_complex::Complex;
use rayon::prelude::*;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftPlanner};

use crate::layout::{Problem, TransformType};
use crate::precision::FftFloat;

/// Lines gathered per chunk: enough work per task, and a chunk of 1024-point lines (512 KiB
/// of `f32` complex) still fits in a core's L2.
const CHUNK_ELEMS: usize = 1 << 16;

/// A raw pointer that may cross to rayon's threads: every task writes disjoint lines.
#[derive(Clone, Copy)]
struct Ptr<U>(*mut U);
// SAFETY: the tasks that share a `Ptr` touch disjoint elements (one line each), and the
// launch that created it waits for all of them before returning.
unsafe impl<U> Send for Ptr<U> {}
unsafe impl<U> Sync for Ptr<U> {}

impl<U> Ptr<U> {
    /// The element `i` past the start.
    ///
    /// # Safety
    /// `i` must be inside the allocation.
    unsafe fn at(self, i: usize) -> *mut U {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.0.add(i) }
    }
}

/// One transform (forward or inverse) of a problem.
pub(crate) struct NativeFft<T: FftFloat> {
    problem: Problem,
    inverse: bool,
    /// The complex FFT of each axis (for R2C/C2R: of the other axes).
    axes: Vec<Option<Arc<dyn Fft<T>>>>,
    r2c: Option<Arc<dyn RealToComplex<T>>>,
    c2r: Option<Arc<dyn ComplexToReal<T>>>,
}

impl<T: FftFloat> NativeFft<T> {
    pub fn new(problem: &Problem, inverse: bool) -> NativeFft<T> {
        let mut planner = FftPlanner::<T>::new();
        let r = problem.n.len();
        let real = problem.kind != TransformType::C2C;
        let axes = (0..r)
            .map(|d| {
                if real && d == r - 1 {
                    None
                } else if inverse {
                    Some(planner.plan_fft_inverse(problem.n[d]))
                } else {
                    Some(planner.plan_fft_forward(problem.n[d]))
                }
            })
            .collect();
        let mut rp = RealFftPlanner::<T>::new();
        let last = problem.n[r - 1];
        NativeFft {
            problem: problem.clone(),
            inverse,
            axes,
            r2c: (problem.kind == TransformType::R2C).then(|| rp.plan_fft_forward(last)),
            c2r: (problem.kind == TransformType::C2R).then(|| rp.plan_fft_inverse(last)),
        }
    }

    /// Runs the transform.
    ///
    /// # Safety
    /// `input` and `output` must hold the layouts' required elements (input in reals for R2C,
    /// output in reals for C2R, complex values otherwise) and stay valid for the call; they may
    /// be the same memory only under the in-place layout rules.
    unsafe fn run(&self, input: *mut u8, output: *mut u8) {
        let p = &self.problem;
        let r = p.n.len();
        let last = r - 1;
        match p.kind {
            TransformType::C2C => {
                let (inp, out) = (input as *mut Complex<T>, output as *mut Complex<T>);
                for d in (0..r).rev() {
                    let (src, s_axes, s_dist) = if d == r - 1 {
                        (inp, &p.input.axes, p.input.dist)
                    } else {
                        (out, &p.output.axes, p.output.dist)
                    };
                    let fft = self.axes[d].as_ref().expect("complex axis has a plan");
                    // SAFETY: forwarded from this function's contract.
                    unsafe {
                        complex_axis(
                            fft.as_ref(),
                            &p.n,
                            d,
                            p.batch,
                            src,
                            s_axes,
                            s_dist,
                            out,
                            &p.output.axes,
                            p.output.dist,
                        )
                    };
                }
            }
            TransformType::R2C => {
                let out = output as *mut Complex<T>;
                let half = p.output_sizes();
                // SAFETY: forwarded from this function's contract.
                unsafe { self.r2c_axis(input as *mut T, out) };
                for d in (0..last).rev() {
                    let fft = self.axes[d].as_ref().expect("complex axis has a plan");
                    // SAFETY: in place on the output, which holds its layout.
                    unsafe {
                        complex_axis(
                            fft.as_ref(),
                            &half,
                            d,
                            p.batch,
                            out,
                            &p.output.axes,
                            p.output.dist,
                            out,
                            &p.output.axes,
                            p.output.dist,
                        )
                    };
                }
            }
            TransformType::C2R => {
                let half = p.input_sizes();
                if r == 1 {
                    // SAFETY: forwarded from this function's contract.
                    unsafe {
                        self.c2r_axis(input as *mut Complex<T>, &p.input.axes, p.input.dist, output as *mut T)
                    };
                    return;
                }
                // The other axes into packed scratch, so the input is never written.
                let total: usize = half.iter().product::<usize>() * p.batch;
                let mut scratch = vec![Complex::new(T::lit(0.0), T::lit(0.0)); total];
                let mut w_axes = vec![1usize; r];
                for d in (0..last).rev() {
                    w_axes[d] = w_axes[d + 1] * half[d + 1];
                }
                let w_dist = w_axes[0] * half[0];
                let w = scratch.as_mut_ptr();
                for d in (0..last).rev() {
                    let fft = self.axes[d].as_ref().expect("complex axis has a plan");
                    let (src, s_axes, s_dist) = if d == last - 1 {
                        (input as *mut Complex<T>, &p.input.axes, p.input.dist)
                    } else {
                        (w, &w_axes, w_dist)
                    };
                    // SAFETY: the scratch holds the packed layout; the input its own.
                    unsafe {
                        complex_axis(fft.as_ref(), &half, d, p.batch, src, s_axes, s_dist, w, &w_axes, w_dist)
                    };
                }
                // SAFETY: the scratch holds the packed half spectrum; the output its layout.
                unsafe { self.c2r_axis(w, &w_axes, w_dist, output as *mut T) };
            }
        }
    }

    /// The last axis of an R2C transform, input to output.
    unsafe fn r2c_axis(&self, input: *mut T, output: *mut Complex<T>) {
        let p = &self.problem;
        let last = p.n.len() - 1;
        let n = p.n[last];
        let h = n / 2 + 1;
        let fft = self.r2c.as_ref().expect("R2C plan");
        let lines =
            line_bases(&p.n, last, p.batch, &p.input.axes, p.input.dist, &p.output.axes, p.output.dist);
        let (si, so) = (p.input.axes[last], p.output.axes[last]);
        let (inp, out) = (Ptr(input), Ptr(output));
        let per = (CHUNK_ELEMS / n).max(1);
        lines.par_chunks(per).for_each(|chunk| {
            let mut x = fft.make_input_vec();
            let mut y = fft.make_output_vec();
            let mut scratch = fft.make_scratch_vec();
            for &(bi, bo) in chunk {
                for (j, v) in x.iter_mut().enumerate() {
                    // SAFETY: inside the input layout (the launch checked its length).
                    *v = unsafe { *inp.at(bi + j * si) };
                }
                // The lengths match the plan's, so this cannot fail.
                let _ = fft.process_with_scratch(&mut x, &mut y, &mut scratch);
                for (k, v) in y.iter().enumerate().take(h) {
                    // SAFETY: inside the output layout; lines are disjoint.
                    unsafe { *out.at(bo + k * so) = *v };
                }
            }
        });
    }

    /// The last axis of a C2R transform, from a half spectrum with the given layout.
    unsafe fn c2r_axis(&self, input: *mut Complex<T>, i_axes: &[usize], i_dist: usize, output: *mut T) {
        let p = &self.problem;
        let last = p.n.len() - 1;
        let n = p.n[last];
        let fft = self.c2r.as_ref().expect("C2R plan");
        let lines = line_bases(&p.n, last, p.batch, i_axes, i_dist, &p.output.axes, p.output.dist);
        let (si, so) = (i_axes[last], p.output.axes[last]);
        let (inp, out) = (Ptr(input), Ptr(output));
        let per = (CHUNK_ELEMS / n).max(1);
        lines.par_chunks(per).for_each(|chunk| {
            let mut x = fft.make_input_vec();
            let mut y = fft.make_output_vec();
            let mut scratch = fft.make_scratch_vec();
            let hl = x.len();
            for &(bi, bo) in chunk {
                for (k, v) in x.iter_mut().enumerate() {
                    // SAFETY: inside the input layout.
                    *v = unsafe { *inp.at(bi + k * si) };
                }
                // A Hermitian spectrum's first (and, for even n, last) values are real; their
                // imaginary parts do not enter the result.
                x[0].im = T::lit(0.0);
                if n % 2 == 0 {
                    x[hl - 1].im = T::lit(0.0);
                }
                let _ = fft.process_with_scratch(&mut x, &mut y, &mut scratch);
                for (j, v) in y.iter().enumerate() {
                    // SAFETY: inside the output layout; lines are disjoint.
                    unsafe { *out.at(bo + j * so) = *v };
                }
            }
        });
    }
}

/// The start of every line along axis `d` in the source and destination layouts.
fn line_bases(
    n: &[usize],
    d: usize,
    batch: usize,
    is: &[usize],
    idist: usize,
    os: &[usize],
    odist: usize,
) -> Vec<(usize, usize)> {
    let mut v = vec![(0usize, 0usize)];
    for e in 0..n.len() {
        if e == d {
            continue;
        }
        v = v.iter().flat_map(|&(a, b)| (0..n[e]).map(move |i| (a + i * is[e], b + i * os[e]))).collect();
    }
    v.iter().flat_map(|&(a, b)| (0..batch).map(move |k| (a + k * idist, b + k * odist))).collect()
}

/// Transforms every line along axis `d` from `src` to `dst` (possibly the same memory).
#[allow(clippy::too_many_arguments)]
unsafe fn complex_axis<T: FftFloat>(
    fft: &dyn Fft<T>,
    n: &[usize],
    d: usize,
    batch: usize,
    src: *mut Complex<T>,
    s_axes: &[usize],
    s_dist: usize,
    dst: *mut Complex<T>,
    d_axes: &[usize],
    d_dist: usize,
) {
    let len = n[d];
    let lines = line_bases(n, d, batch, s_axes, s_dist, d_axes, d_dist);
    let (si, so) = (s_axes[d], d_axes[d]);
    let (sp, dp) = (Ptr(src), Ptr(dst));
    let per = (CHUNK_ELEMS / len).max(1);
    lines.par_chunks(per).for_each(|chunk| {
        let zero = Complex::new(T::lit(0.0), T::lit(0.0));
        let mut buf = vec![zero; chunk.len() * len];
        let mut scratch = vec![zero; fft.get_inplace_scratch_len()];
        for (line, &(bi, _)) in buf.chunks_mut(len).zip(chunk) {
            if si == 1 {
                // SAFETY: a contiguous line inside the source layout.
                line.copy_from_slice(unsafe { std::slice::from_raw_parts(sp.at(bi), len) });
            } else {
                for (j, v) in line.iter_mut().enumerate() {
                    // SAFETY: inside the source layout.
                    *v = unsafe { *sp.at(bi + j * si) };
                }
            }
        }
        fft.process_with_scratch(&mut buf, &mut scratch);
        for (line, &(_, bo)) in buf.chunks(len).zip(chunk) {
            if so == 1 {
                // SAFETY: a contiguous line inside the destination layout, written by this task
                // only.
                unsafe { std::ptr::copy_nonoverlapping(line.as_ptr(), dp.at(bo), len) };
            } else {
                for (j, v) in line.iter().enumerate() {
                    // SAFETY: inside the destination layout, written by this task only.
                    unsafe { *dp.at(bo + j * so) = *v };
                }
            }
        }
    });
}

impl<T: FftFloat> CpuKernel for NativeFft<T> {
    unsafe fn launch(&self, _: LaunchDims, args: &[&[u8]]) -> Result<(), String> {
        let word = |i: usize| -> Result<u64, String> {
            args.get(i)
                .and_then(|a| <[u8; 8]>::try_from(*a).ok())
                .map(u64::from_ne_bytes)
                .ok_or_else(|| format!("native FFT: parameter {i} must be 8 bytes"))
        };
        if args.len() != 4 {
            return Err(format!("native FFT takes 4 parameters, got {}", args.len()));
        }
        let (inp, in_len, out, out_len) = (word(0)?, word(1)?, word(2)?, word(3)?);
        let p = &self.problem;
        let (need_in, need_out) = (p.input.required as u64, p.output.required as u64);
        if in_len < need_in || out_len < need_out {
            return Err(format!(
                "native FFT: buffers of {in_len} and {out_len} elements, the layouts need {need_in} and {need_out}"
            ));
        }
        let _ = self.inverse;
        // SAFETY: the launch contract (addresses valid for the lengths given, lengths
        // re-checked above against the layouts); the plan passes buffers it validated, on this
        // CPU device, alive until the stream reaches this launch's end.
        unsafe { self.run(inp as *mut u8, out as *mut u8) };
        Ok(())
    }
}

/// A module of one native transform, named `fft`.
pub(crate) struct NativeModule(pub Arc<dyn CpuKernel>);

impl CpuModule for NativeModule {
    fn function(&self, name: &str) -> Option<Arc<dyn CpuKernel>> {
        (name == "fft").then(|| self.0.clone())
    }
}
