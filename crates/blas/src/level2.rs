//! Level 2: matrix-vector operations (`s`, `d`, `c`, `z`). Matrices are column-major with a
//! leading dimension; vectors strided as in Level 1 (negative increments walk from the far
//! end; zero is an error).

use ferrocm_kernel::runtime::{
    AsDeviceSlice, AsDeviceSliceMut, DeviceSlice, DeviceSliceMut, KernelArgs, LaunchConfig,
};

use crate::check::{check_disjoint, size32};
use crate::error::Result;
use crate::handle::Handle;
use crate::kernels::{self, walk, KScalar};
use crate::native::{self, push_buf, push_scalar};
use crate::types::{Operation, Scalar, ScalarArg};

/// Picks a `bool` const generic from a runtime value: `bools!(v => V, body)`.
macro_rules! bools {
    ($v:expr => $name:ident, $body:expr) => {
        if $v {
            const $name: bool = true;
            $body
        } else {
            const $name: bool = false;
            $body
        }
    };
}
pub(crate) use bools;

impl Handle {
    /// `y = alpha op(A) x + beta y` (`?gemv`), `A` an `m x n` column-major matrix with
    /// leading dimension `lda >= max(1, m)`; `x` has `n` elements and `y` `m` for `op = N`,
    /// the other way round for `T` and `C`. `beta = 0` sets `y` without reading it (NaNs in
    /// `y` vanish); `alpha = 0` reads neither `A` nor `x`.
    #[allow(clippy::too_many_arguments)]
    pub fn gemv<'a, T: Scalar>(
        &'a self,
        op: Operation,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        beta: impl Into<ScalarArg<'a, T>>,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        self.gemv_strided_batched(op, m, n, alpha, a, lda, 0, x, incx, 0, beta, y, incy, 0, 1)
    }

    /// `batch_count` gemvs on matrices and vectors `stride_*` elements apart
    /// (`?gemv_strided_batched`): batch `i` computes `y_i = alpha op(A_i) x_i + beta y_i` with
    /// `A_i = A + i stride_a`, `x_i = x + i stride_x`, `y_i = y + i stride_y`, each as
    /// [`Handle::gemv`] describes. `A` and `x` may repeat (`stride 0`); the vectors `y_i` must
    /// not share an element (they may interleave: `stride_y = 1` with `incy = batch_count`).
    /// Each view must hold `(batch_count - 1) stride + ` one operand's span.
    #[allow(clippy::too_many_arguments)]
    pub fn gemv_strided_batched<'a, T: Scalar>(
        &'a self,
        op: Operation,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        stride_a: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        stride_x: usize,
        beta: impl Into<ScalarArg<'a, T>>,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
        stride_y: usize,
        batch_count: usize,
    ) -> Result<()> {
        let (alpha, beta) = (alpha.into(), beta.into());
        self.check_scalar("alpha", &alpha)?;
        self.check_scalar("beta", &beta)?;
        let span_a = self.check_batch("a", "lda", a, m, n, lda, stride_a, batch_count)?;
        let (lx, ly) = if op == Operation::N { (n, m) } else { (m, n) };
        let span_x = self.check_vector_batch("x", "incx", x, lx, incx, stride_x, batch_count)?;
        let span_y = self.check_vector_batch("y", "incy", y, ly, incy, stride_y, batch_count)?;
        check_disjoint("stride_y", ly, incy, stride_y, batch_count)?;
        if m == 0 || n == 0 || batch_count == 0 {
            // Reference BLAS returns at once, leaving y as it was.
            return Ok(());
        }
        if alpha.host().is_some_and(|v| v.is_zero()) && beta.host().is_some_and(|v| v.is_one()) {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(op.code()).push(m as u64).push(n as u64);
            push_scalar(&mut args, &alpha);
            push_buf(&mut args, a);
            args.push(lda as u64);
            push_buf(&mut args, x);
            args.push(incx as i64);
            push_scalar(&mut args, &beta);
            push_buf(&mut args, y);
            args.push(incy as i64);
            args.push(stride_a as u64).push(stride_x as u64).push(stride_y as u64).push(batch_count as u64);
            return native::launch(s, "gemv", T::TYPE, &args);
        }
        // The kernels index reals with 32 bits (a complex element is two).
        let reals = if T::COMPLEX { 2 } else { 1 };
        for (arg, span) in [("a", span_a), ("x", span_x), ("y", span_y)] {
            size32(arg, span.saturating_mul(reals))?;
        }
        let (m32, n32, lda32) = (size32("m", m)?, size32("n", n)?, size32("lda", lda)?);
        let (sa, sx, sy) = (stride_a as u32, stride_x as u32, stride_y as u32);
        let (ka, kb) = (self.kscalar(&alpha)?, self.kscalar(&beta)?);
        let flops = 2 * (m * n * batch_count) as u64 * if T::COMPLEX { 4 } else { 1 };
        let bytes = ((m * n + lx + 2 * ly) * batch_count * size_of::<T>()) as u64;
        // At most MAX_BATCH batches per launch (the grid's z limit): each chunk's views start
        // at its first batch.
        let mut b0 = 0;
        while b0 < batch_count {
            let nb = (batch_count - b0).min(MAX_BATCH);
            let from = |stride: usize| b0 * stride;
            let ar = a.as_device_slice().slice(from(stride_a).min(a.len())..)?.reinterpret::<T::Real>()?;
            let xr = x.as_device_slice().slice(from(stride_x).min(x.len())..)?.reinterpret::<T::Real>()?;
            let ylen = y.len();
            let (_, yv) = y.as_device_slice_mut().split_at_mut(from(stride_y).min(ylen))?;
            let mut yr = yv.reinterpret::<T::Real>()?;
            kernels::annotate(flops / batch_count as u64 * nb as u64, bytes / batch_count as u64 * nb as u64);
            self.gemv_launch::<T>(
                op,
                m,
                n,
                m32,
                n32,
                &ka,
                &kb,
                &ar,
                lda32,
                &xr,
                incx,
                &mut yr,
                incy,
                (sa, sx, sy),
                nb,
            )?;
            b0 += nb;
        }
        Ok(())
    }

    /// Queues one launch set of a checked gemv over `nb` batches (`nb <= MAX_BATCH`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gemv_launch<T: Scalar>(
        &self,
        op: Operation,
        m: usize,
        n: usize,
        m32: u32,
        n32: u32,
        ka: &KScalar<'_, T::Real>,
        kb: &KScalar<'_, T::Real>,
        ar: &DeviceSlice<'_, T::Real>,
        lda32: u32,
        xr: &DeviceSlice<'_, T::Real>,
        incx: isize,
        yr: &mut DeviceSliceMut<'_, T::Real>,
        incy: isize,
        (sa, sx, sy): (u32, u32, u32),
        nb: usize,
    ) -> Result<()> {
        let s = self.stream();
        let (lx, ly) = if op == Operation::N { (n, m) } else { (m, n) };
        let ((ox, ix), (oy, iy)) = (walk(lx, incx), walk(ly, incy));
        let lda = lda32 as usize;
        let reals = if T::COMPLEX { 2 } else { 1 };
        let nb32 = nb as u32;
        bools!(T::COMPLEX => CX, bools!(ka.device => DSA, bools!(kb.device => DSB, {
            if op == Operation::N {
                if let Some(plan) = self.gemv_n_split::<T>(m, n, lda, ar.device_ptr().0, sa as usize, nb) {
                    let mr = m * reals;
                    let mut part = self.workspace::<T::Real>(plan.splits as usize * mr * nb)?;
                    let grid = (plan.row_blocks, plan.splits, nb32);
                    let cfg = LaunchConfig::new(grid, kernels::level2::GEMV_N_WARPS * 32);
                    macro_rules! part {
                        ($v:literal, $vec:literal) => {
                            kernels::level2::gemv_n_part::launch::<T::Real, CX, DSA, $v, $vec>(
                                s, cfg, m32, n32, plan.cols, ka.re, ka.im, &ka.view, ar, lda32, xr,
                                ox, ix, &mut part, sa, sx,
                            )?
                        };
                    }
                    match (plan.reals, plan.vec) {
                        (4, true) => part!(4, true),
                        (4, false) => part!(4, false),
                        (2, true) => part!(2, true),
                        (_, _) => part!(2, false),
                    }
                    let cfg = LaunchConfig::new((kernels::grid(s, m), 1, nb32), kernels::BLOCK);
                    kernels::level2::gemv_n_finish::launch::<T::Real, CX, DSA, DSB>(
                        s, cfg, m32, plan.splits, ka.re, ka.im, &ka.view, &part, kb.re, kb.im,
                        &kb.view, yr, oy, iy, sy,
                    )?;
                } else {
                    let blocks = m.div_ceil(kernels::BLOCK as usize).max(1) as u32;
                    let cfg = LaunchConfig::new((blocks, 1, nb32), kernels::BLOCK);
                    kernels::level2::gemv_n::launch::<T::Real, CX, DSA, DSB>(
                        s, cfg, m32, n32, ka.re, ka.im, &ka.view, ar, lda32, xr, ox, ix, kb.re,
                        kb.im, &kb.view, yr, oy, iy, sa, sx, sy,
                    )?;
                }
            } else {
                let blocks = n.min(65_535 * 8) as u32;
                let cfg = LaunchConfig::new((blocks, 1, nb32), kernels::BLOCK);
                let (v, vec) = strips::<T>(lda, ar.device_ptr().0);
                // Wide accesses need every batch's start on a V-real boundary too.
                let vec = vec && (sa as usize * reals) % v as usize == 0;
                let xv = incx == 1
                    && xr.device_ptr().0 % 16 == 0
                    && (nb == 1 || (sx as usize * reals) % v as usize == 0);
                let reals = v;
                macro_rules! go {
                    ($v:literal, $vec:literal, $xv:literal) => {
                        bools!(op == Operation::C => CONJ, {
                            kernels::level2::gemv_t::launch::<T::Real, CX, CONJ, DSA, DSB, $v, $vec, $xv>(
                                s, cfg, m32, n32, ka.re, ka.im, &ka.view, ar, lda32, xr, ox, ix, kb.re,
                                kb.im, &kb.view, yr, oy, iy, sa, sx, sy,
                            )?;
                        })
                    };
                }
                match (reals, vec, xv) {
                    (4, true, true) => go!(4, true, true),
                    (4, true, false) => go!(4, true, false),
                    (4, false, true) => go!(4, false, true),
                    (4, false, false) => go!(4, false, false),
                    (_, true, true) => go!(2, true, true),
                    (_, true, false) => go!(2, true, false),
                    (_, false, true) => go!(2, false, true),
                    (_, false, false) => go!(2, false, false),
                }
            }
        })));
        Ok(())
    }
}

/// The most batches one launch covers (the grid's `z` limit).
const MAX_BATCH: usize = kernels::MAX_GRID_YZ as usize;

/// How the split `gemv` N covers an `m x n` matrix (see `kernels::level2::gemv_n_part`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GemvNSplit {
    /// Reals per lane and column (`V`): one 16-byte access (4 for f32 and c32 reals, 2 for
    /// f64 and c64).
    pub reals: u32,
    /// Whether `V`-wide accesses are aligned (`lda` in reals a multiple of `V`, `A` 16-byte
    /// aligned).
    pub vec: bool,
    /// Blocks down the rows (`32 V` reals each).
    pub row_blocks: u32,
    /// Column ranges (blocks across), each `cols` wide but the last.
    pub splits: u32,
    pub cols: u32,
}

/// The reals per lane-strip of a column (`V`, one 16-byte access: 4 for f32 and c32, 2 for
/// f64 and c64) and whether a column's full strips are aligned for it (`lda` in reals a
/// multiple of `V`, `A` at a 16-byte boundary), for `A` at device address `a_addr`.
fn strips<T: Scalar>(lda: usize, a_addr: u64) -> (u32, bool) {
    let reals = 16 / size_of::<T::Real>();
    let ldr = lda * if T::COMPLEX { 2 } else { 1 };
    (reals as u32, ldr % reals == 0 && a_addr % 16 == 0)
}

/// Resident blocks per compute unit the split gemv aims for (8 warps each, so 16 blocks
/// is two waves of a 64-warp SM; the partials' traffic stays under 1% of A's when
/// `n >= 16 splits`).
const GEMV_BLOCKS_PER_CU: usize = 16;
/// The fewest columns a range gets: each warp then sums at least 4 columns before the
/// shared-memory step, and the partials stay a small fraction of A's traffic.
const GEMV_MIN_COLS: usize = 32;

impl Handle {
    /// The split `gemv` N plan for an `m x n` matrix at device address `a_addr` with leading
    /// dimension `lda` (elements) and `batches` matrices `stride_a` apart, or `None` when the workspace limit leaves no room for the
    /// partials (the one-pass kernel runs then).
    pub(crate) fn gemv_n_split<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        lda: usize,
        a_addr: u64,
        stride_a: usize,
        batches: usize,
    ) -> Option<GemvNSplit> {
        let real = size_of::<T::Real>();
        let (reals, vec) = strips::<T>(lda, a_addr);
        let ra = if T::COMPLEX { 2 } else { 1 };
        // Wide accesses need every batch's matrix on a V-real boundary too.
        let vec = vec && (batches == 1 || (stride_a * ra) % reals as usize == 0);
        let mr = m * ra;
        let row_blocks = mr.div_ceil(32 * reals as usize);
        let cus = self.stream().device().properties().compute_units.max(1) as usize;
        let want = (cus * GEMV_BLOCKS_PER_CU).div_ceil(row_blocks * batches.max(1));
        let splits = want.clamp(1, n.div_ceil(GEMV_MIN_COLS).max(1));
        let cols = n.div_ceil(splits);
        let splits = n.div_ceil(cols);
        let bytes = (splits * mr * batches.max(1) * real) as u64;
        // Batches that fill the device alone need no column split: without one the partials
        // are pure overhead (and grow with the batch), so the one-pass kernel runs.
        if (batches > 1 && splits == 1)
            || self.workspace_limit().is_some_and(|l| bytes > l)
            || row_blocks > u32::MAX as usize
            || splits > kernels::MAX_GRID_YZ as usize
        {
            return None;
        }
        Some(GemvNSplit {
            reals,
            vec,
            row_blocks: row_blocks as u32,
            splits: splits as u32,
            cols: cols as u32,
        })
    }
}
