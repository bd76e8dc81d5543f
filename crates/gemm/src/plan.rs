//! The public API: a GEMM's description, the planner, and running a plan.

use ferrocm_kernel::dsl::{Elem, MmaType};
use ferrocm_kernel::runtime::backend::Feature;
use ferrocm_kernel::runtime::{
    AsDeviceSlice, AsDeviceSliceMut, Device, LaunchConfig, Stream, TensorMap, TensorMapElement,
    TensorMapSwizzle, TiledLayout,
};
use ferrocm_kernel::{bf16, f16};

use crate::error::{GemmError, Result};
use crate::fp8::{E4M3, E5M2};
use crate::sm90;

/// Element types of GEMM operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ElemType {
    F16,
    BF16,
    F32,
    /// f32 data multiplied as TF32 (cuBLAS's `CUBLAS_COMPUTE_32F_FAST_TF32`, hipBLASLt's
    /// `HIPBLAS_COMPUTE_32F_FAST_TF32` on f32 inputs): A and B only, held in `f32` buffers; the
    /// tensor cores read the sign, the 8 exponent bits and the top 10 mantissa bits of each
    /// element (the rest is dropped, not rounded) and sum the products in f32.
    TF32,
    /// 8-bit float, 4 exponent and 3 mantissa bits ([`E4M3`]): A and B only.
    E4M3,
    /// 8-bit float, 5 exponent and 2 mantissa bits ([`E5M2`]): A and B only.
    E5M2,
}

impl ElemType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElemType::E4M3 | ElemType::E5M2 => 1,
            ElemType::F16 | ElemType::BF16 => 2,
            ElemType::F32 | ElemType::TF32 => 4,
        }
    }

    /// The type of the elements a buffer of this type holds (`F32` for `TF32`).
    fn storage(self) -> ElemType {
        match self {
            ElemType::TF32 => ElemType::F32,
            t => t,
        }
    }

    /// The `wgmma` input type of an A or B operand of this type, if it can be one.
    fn mma(self) -> Option<MmaType> {
        match self {
            ElemType::F16 => Some(MmaType::F16),
            ElemType::BF16 => Some(MmaType::BF16),
            ElemType::E4M3 => Some(MmaType::E4M3),
            ElemType::E5M2 => Some(MmaType::E5M2),
            ElemType::TF32 => Some(MmaType::TF32),
            ElemType::F32 => None,
        }
    }
}

/// Host types that name an [`ElemType`] (`half::f16`, `half::bf16`, `f32`, [`E4M3`], [`E5M2`]):
/// the element types of A and B buffers (`f32` buffers serve [`ElemType::TF32`] inputs too).
pub trait GemmElement: TensorMapElement {
    const TYPE: ElemType;
}
/// Element types C may have (`half::f16`, `half::bf16`, `f32`): the kernel converts to them.
pub trait GemmOutput: GemmElement + Elem<Repr = Self> {}

impl GemmElement for f16 {
    const TYPE: ElemType = ElemType::F16;
}
impl GemmElement for bf16 {
    const TYPE: ElemType = ElemType::BF16;
}
impl GemmElement for f32 {
    const TYPE: ElemType = ElemType::F32;
}
impl GemmElement for E4M3 {
    const TYPE: ElemType = ElemType::E4M3;
}
impl GemmElement for E5M2 {
    const TYPE: ElemType = ElemType::E5M2;
}
impl GemmOutput for f16 {}
impl GemmOutput for bf16 {}
impl GemmOutput for f32 {}

/// How a matrix is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Rows are contiguous: element (i, j) at `i * ld + j`.
    RowMajor,
    /// Columns are contiguous: element (i, j) at `j * ld + i` (BLAS's convention).
    ColMajor,
}

impl Layout {
    fn flip(self) -> Layout {
        match self {
            Layout::RowMajor => Layout::ColMajor,
            Layout::ColMajor => Layout::RowMajor,
        }
    }
}

/// One matrix operand: its type, layout and leading dimension (`None`: packed).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Operand {
    ty: ElemType,
    layout: Layout,
    ld: Option<usize>,
}

impl Operand {
    /// The leading dimension of a `rows x cols` matrix.
    fn ld(&self, rows: usize, cols: usize) -> usize {
        self.ld.unwrap_or(match self.layout {
            Layout::RowMajor => cols,
            Layout::ColMajor => rows,
        })
    }
}

/// What to compute: `C = alpha * scale_a * scale_b * A * B + beta * C` with `A` `m x k`, `B`
/// `k x n`, `C` `m x n`. Build with [`GemmDesc::new`] (all row-major and packed, C of the input
/// type, `alpha` 1, `beta` 0, scales 1) and the `with_*` methods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemmDesc {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    a: Operand,
    b: Operand,
    c: Operand,
    pub alpha: f32,
    pub beta: f32,
    /// Per-tensor scale of A (the dequantization factor of 8-bit inputs).
    pub scale_a: f32,
    /// Per-tensor scale of B.
    pub scale_b: f32,
    /// Products in the batch ([`GemmDesc::with_batch`]); 1 by default.
    batch: usize,
    /// Elements between consecutive products' A, B and C.
    strides: [usize; 3],
}

impl GemmDesc {
    /// An `m x n x k` product of `ty` matrices (C of type `ty` too), all row-major and packed.
    pub fn new(m: usize, n: usize, k: usize, ty: ElemType) -> GemmDesc {
        let op = Operand { ty, layout: Layout::RowMajor, ld: None };
        GemmDesc {
            m,
            n,
            k,
            a: op,
            b: op,
            c: op,
            alpha: 1.0,
            beta: 0.0,
            scale_a: 1.0,
            scale_b: 1.0,
            batch: 1,
            strides: [0; 3],
        }
    }

    /// An `m x n x k` product of 8-bit `ty` inputs (A row-major, B column-major: the only
    /// layouts `wgmma` reads 8-bit types in) into a row-major bf16 C: `torch._scaled_mm`'s
    /// request. Set the scales with [`GemmDesc::with_scales`].
    pub fn new_scaled(m: usize, n: usize, k: usize, ty: ElemType) -> GemmDesc {
        GemmDesc::new(m, n, k, ty).with_c_type(ElemType::BF16).with_layouts(
            Layout::RowMajor,
            Layout::ColMajor,
            Layout::RowMajor,
        )
    }

    /// The type of C (the inputs keep theirs).
    pub fn with_c_type(mut self, ty: ElemType) -> GemmDesc {
        self.c.ty = ty;
        self
    }

    /// The types of A and B.
    pub fn with_input_types(mut self, a: ElemType, b: ElemType) -> GemmDesc {
        self.a.ty = a;
        self.b.ty = b;
        self
    }

    /// The layouts of A, B and C.
    pub fn with_layouts(mut self, a: Layout, b: Layout, c: Layout) -> GemmDesc {
        self.a.layout = a;
        self.b.layout = b;
        self.c.layout = c;
        self
    }

    /// Leading dimensions (elements between consecutive rows of a row-major matrix, columns of
    /// a column-major one).
    pub fn with_leading_dims(mut self, lda: usize, ldb: usize, ldc: usize) -> GemmDesc {
        self.a.ld = Some(lda);
        self.b.ld = Some(ldb);
        self.c.ld = Some(ldc);
        self
    }

    /// `C = alpha A B + beta C`.
    pub fn with_alpha_beta(mut self, alpha: f32, beta: f32) -> GemmDesc {
        self.alpha = alpha;
        self.beta = beta;
        self
    }

    /// Per-tensor scales of A and B: `C = alpha * scale_a * scale_b * A B + beta C`, the scales
    /// applied once to the f32 sum (as `torch._scaled_mm` with per-tensor scales).
    pub fn with_scales(mut self, scale_a: f32, scale_b: f32) -> GemmDesc {
        self.scale_a = scale_a;
        self.scale_b = scale_b;
        self
    }

    /// `count` products of the same shape in one launch: product `z` reads A from element
    /// `z * stride_a` of A's buffer, B from `z * stride_b`, and writes C from `z * stride_c`
    /// (strides in elements). A stride of 0 for A or B uses one matrix for every product
    /// (broadcast). The planner checks the strides against what the kernel's TMA reads allow
    /// (see [`Gemm::plan`]). A count of 0 computes nothing; 1 (the default) ignores the strides.
    pub fn with_batch(mut self, count: usize, stride_a: usize, stride_b: usize, stride_c: usize) -> GemmDesc {
        self.batch = count;
        self.strides = [stride_a, stride_b, stride_c];
        self
    }

    /// Products in the batch.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// Elements between consecutive products' A, B and C (as given to
    /// [`GemmDesc::with_batch`]).
    pub fn batch_strides(&self) -> (usize, usize, usize) {
        (self.strides[0], self.strides[1], self.strides[2])
    }

    /// `alpha * scale_a * scale_b`, computed in f64 and rounded to f32: the factor of `A B`.
    pub fn product_scale(&self) -> f32 {
        (self.alpha as f64 * self.scale_a as f64 * self.scale_b as f64) as f32
    }

    /// Types of A, B and C.
    pub fn types(&self) -> (ElemType, ElemType, ElemType) {
        (self.a.ty, self.b.ty, self.c.ty)
    }

    /// Layouts of A, B and C.
    pub fn layouts(&self) -> (Layout, Layout, Layout) {
        (self.a.layout, self.b.layout, self.c.layout)
    }

    /// Leading dimensions of A, B and C as the plan uses them.
    pub fn leading_dims(&self) -> (usize, usize, usize) {
        (self.a.ld(self.m, self.k), self.b.ld(self.k, self.n), self.c.ld(self.m, self.n))
    }
}

/// The planner.
pub struct Gemm;

/// A kernel shape to use instead of the planner's choice (benchmarks and tuning; the planner's
/// choice is the supported default). Fields left `None` keep the planner's value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    /// Block-tile columns: 64, 128, 192 or 256 (8-bit inputs: up to 192).
    pub bn: Option<u32>,
    /// Shared-memory pipeline stages: 2 or more (as many as fit).
    pub stages: Option<u32>,
    /// Tile rows that share a sweep over the tile columns (the L2-friendly order): 1 or more.
    pub group_m: Option<u32>,
    /// Persistent blocks: 1 or more (default: one per multiprocessor, at most one per tile).
    pub grid: Option<u32>,
    /// Blocks per cluster along M, sharing B by TMA multicast: 1 or 2.
    pub cluster_m: Option<u32>,
    /// The epilogue through shared memory (`stmatrix`) and TMA stores, overlapped with the next
    /// tile (`true`), or from registers straight to C (`false`). Default: on wherever it applies
    /// (C f16 or bf16 with a row pitch of a multiple of 16 bytes); `Some(true)` elsewhere is an
    /// error. A C whose start is not 16-byte aligned takes the register epilogue at run time.
    pub tma_store: Option<bool>,
    /// Slices of K summed separately (split-K): 1 or more, at most one per k-tile of 128 bytes
    /// of K; 1 is off. Each slice's f32 partial product goes to a workspace of `slices * m * n`
    /// f32 (from the stream's pool; [`Plan::workspace_bytes`]) and a second kernel sums the slices in order (deterministic)
    /// and applies alpha, beta and the conversion to C; a stream capturing a graph (whose pool
    /// allocations are refused) runs the plan without the split. Default: on for a single product whose
    /// tiles fill under half of the multiprocessors and whose K has at least 16 k-tiles (decode
    /// shapes such as m 16, n 8192, k 8192), off elsewhere. Not with batches.
    pub split_k: Option<u32>,
}

/// Largest dimension the kernels index (TMA coordinates are `i32`; C indices are 64-bit).
const MAX_DIM: usize = i32::MAX as usize;

fn check_dim(what: &'static str, value: usize) -> Result<()> {
    if value > MAX_DIM {
        return Err(GemmError::InvalidShape { what, value, allowed: format!("at most {MAX_DIM}") });
    }
    Ok(())
}

/// Elements a `rows x cols` matrix with leading dimension `ld` spans.
fn span(layout: Layout, rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        return 0;
    }
    match layout {
        Layout::RowMajor => (rows - 1) * ld + cols,
        Layout::ColMajor => (cols - 1) * ld + rows,
    }
}

/// Checks one operand's leading dimension. `dims` names its rows and columns: a packed operand's
/// leading dimension is one of them, and an error names that dimension instead.
fn check_operand(
    name: &'static str,
    ld_name: &'static str,
    dims: [&'static str; 2],
    op: &Operand,
    rows: usize,
    cols: usize,
    tma: bool,
) -> Result<()> {
    if rows == 0 || cols == 0 {
        // An empty matrix is never read or written.
        return Ok(());
    }
    let ld = op.ld(rows, cols);
    let min = match op.layout {
        Layout::RowMajor => cols,
        Layout::ColMajor => rows,
    }
    .max(1);
    if ld < min {
        return Err(GemmError::InvalidShape {
            what: ld_name,
            value: ld,
            allowed: format!("at least {min} for a {rows} x {cols} {:?} {name}", op.layout),
        });
    }
    if tma && (ld * op.ty.size()) % 16 != 0 {
        let packed = match op.layout {
            Layout::RowMajor => dims[1],
            Layout::ColMajor => dims[0],
        };
        return Err(GemmError::InvalidShape {
            what: if op.ld.is_some() { ld_name } else { packed },
            value: ld,
            allowed: format!(
                "a multiple of {} ({:?}): the tensor-core path reads {name} with TMA, whose row pitch is a multiple of 16 bytes",
                16 / op.ty.size(),
                op.ty
            ),
        });
    }
    check_dim(ld_name, ld)
}

/// Elements from one product's start to the next that TMA needs at least for an operand of
/// `rows x cols`: its leading dimension times its outer dimension (a tensor map's strides grow
/// with the dimensions: the matrices of a batch may not interleave).
fn tma_batch_extent(op: &Operand, rows: usize, cols: usize) -> usize {
    let outer = match op.layout {
        Layout::RowMajor => rows,
        Layout::ColMajor => cols,
    };
    op.ld(rows, cols).saturating_mul(outer)
}

/// Checks a batch's count and strides (`desc.batch` above 1).
fn check_batch(desc: &GemmDesc) -> Result<()> {
    let (m, n, k) = (desc.m, desc.n, desc.k);
    if desc.batch > MAX_DIM {
        return Err(GemmError::InvalidShape {
            what: "batch",
            value: desc.batch,
            allowed: format!("at most {MAX_DIM} (TMA coordinates are i32)"),
        });
    }
    for (name, op, rows, cols, stride) in
        [("stride_a", &desc.a, m, k, desc.strides[0]), ("stride_b", &desc.b, k, n, desc.strides[1])]
    {
        if stride == 0 || rows == 0 || cols == 0 {
            continue;
        }
        let min = tma_batch_extent(op, rows, cols);
        if (stride * op.ty.size()) % 16 != 0 || stride < min {
            return Err(GemmError::InvalidShape {
                what: name,
                value: stride,
                allowed: format!(
                    "0 (one matrix for every product) or a multiple of {} ({:?}: 16 bytes) of at least {min} (leading dimension times {}): the kernel reads each operand as one TMA tensor with the batch as its outermost dimension",
                    16 / op.ty.size(),
                    op.ty,
                    if op.layout == Layout::RowMajor { "rows" } else { "columns" }
                ),
            });
        }
        check_dim(name, stride.saturating_mul(desc.batch - 1))?;
    }
    if m != 0 && n != 0 {
        let (_, _, ldc) = desc.leading_dims();
        let min = span(desc.c.layout, m, n, ldc);
        if desc.strides[2] < min {
            return Err(GemmError::InvalidShape {
                what: "stride_c",
                value: desc.strides[2],
                allowed: format!("at least {min}: the products' C matrices may not overlap"),
            });
        }
    }
    Ok(())
}

impl Gemm {
    /// Picks a kernel for `desc` on `device`, checking everything that can be checked before
    /// the buffers are known.
    pub fn plan(device: &Device, desc: &GemmDesc) -> Result<Plan> {
        Gemm::plan_tuned(device, desc, Tuning::default())
    }

    /// [`Gemm::plan`] with some of the kernel's shape given (see [`Tuning`]).
    pub fn plan_tuned(device: &Device, desc: &GemmDesc, tuning: Tuning) -> Result<Plan> {
        let (a, b, c) = desc.types();
        let input = match (a.mma(), c) {
            (Some(input), ElemType::F32 | ElemType::F16 | ElemType::BF16) if a == b => input,
            _ => return Err(GemmError::UnsupportedTypes { a, b, c }),
        };
        let eight_bit = input.bytes() == 1;
        // `wgmma` reads 8-bit and tf32 operands K-major only (it has no transpose for them).
        if input.bytes() != 2 && (desc.a.layout, desc.b.layout) != (Layout::RowMajor, Layout::ColMajor) {
            return Err(GemmError::UnsupportedLayouts { ty: a, a: desc.a.layout, b: desc.b.layout });
        }
        let target = device.target();
        let missing: Vec<&str> = [Feature::Wgmma, Feature::Tma, Feature::SetMaxNReg]
            .into_iter()
            .filter(|&f| !target.has(f))
            .map(|f| f.name())
            .collect();
        if !missing.is_empty() {
            return Err(GemmError::UnsupportedDevice {
                device: device.index(),
                target: target.to_string(),
                why: format!("the GEMM kernels need {} (NVIDIA sm_90a)", missing.join(", ")),
            });
        }
        check_dim("m", desc.m)?;
        check_dim("n", desc.n)?;
        check_dim("k", desc.k)?;
        if desc.k == 0 {
            return Err(GemmError::InvalidShape {
                what: "k",
                value: 0,
                allowed: "at least 1 (with k = 0, C = beta C is a scaling, not a product)".into(),
            });
        }
        check_operand("A", "lda", ["m", "k"], &desc.a, desc.m, desc.k, true)?;
        check_operand("B", "ldb", ["k", "n"], &desc.b, desc.k, desc.n, true)?;
        check_operand("C", "ldc", ["m", "n"], &desc.c, desc.m, desc.n, false)?;
        let batched = desc.batch > 1;
        if batched {
            check_batch(desc)?;
        }
        if !desc.alpha.is_finite() || !desc.beta.is_finite() {
            return Err(GemmError::InvalidShape {
                what: "alpha/beta",
                value: 0,
                allowed: format!("finite scalars (got alpha {}, beta {})", desc.alpha, desc.beta),
            });
        }
        if !desc.scale_a.is_finite() || !desc.scale_b.is_finite() || !desc.product_scale().is_finite() {
            return Err(GemmError::InvalidShape {
                what: "scale_a/scale_b",
                value: 0,
                allowed: format!(
                    "finite scales whose product with alpha is a finite f32 (got scale_a {}, scale_b {}, alpha {})",
                    desc.scale_a, desc.scale_b, desc.alpha
                ),
            });
        }

        // A column-major C is the row-major C^T = B^T A^T: swap the operands and flip layouts.
        let (mut km, mut kn) = (desc.m, desc.n);
        let (mut oa, mut ob) = (desc.a, desc.b);
        if desc.c.layout == Layout::ColMajor {
            std::mem::swap(&mut km, &mut kn);
            std::mem::swap(&mut oa, &mut ob);
            oa.layout = oa.layout.flip();
            ob.layout = ob.layout.flip();
        }
        // 8-bit inputs keep a second, promoted accumulator: two 64 x bn f32 tiles per consumer
        // thread must fit in its 232 registers (NOTES.md, fp8).
        let widest = if eight_bit { 192 } else { 256 };
        let bn = tuning.bn.unwrap_or(if kn <= 128 { 128 } else { widest });
        if !(bn % 64 == 0 && (64..=widest).contains(&bn)) {
            return Err(GemmError::InvalidShape {
                what: "tuning.bn",
                value: bn as usize,
                allowed: if eight_bit {
                    "64, 128 or 192 for 8-bit inputs (their f32 promotion holds two accumulators)".into()
                } else {
                    "64, 128, 192 or 256".into()
                },
            });
        }
        let mut cfg = sm90::Config {
            input,
            bn,
            stages: tuning.stages.unwrap_or(if bn == 256 { 4 } else { 6 }).max(2),
            a_k_major: oa.layout == Layout::RowMajor,
            b_k_major: ob.layout == Layout::ColMajor,
            group_m: tuning.group_m.unwrap_or(8).max(1),
            cluster_m: 1,
            pair_stores: false,
            tma_store: false,
            batched,
            split_k: false,
        };
        // A pair shares B in halves: a row-major B is copied in 64-column spans, so its tile
        // must hold an even number of them.
        let can_pair = target.has(Feature::TmaMulticast) && (cfg.b_k_major || bn % 128 == 0);
        // Clusters of 2 measured half as fast as single blocks on an H100 (NOTES.md, v1): the
        // default stays 1 until their grid is sized to the clusters that can be resident.
        cfg.cluster_m = tuning.cluster_m.unwrap_or(1);
        if !(cfg.cluster_m == 1 || cfg.cluster_m == 2 && can_pair) {
            return Err(GemmError::InvalidShape {
                what: "tuning.cluster_m",
                value: cfg.cluster_m as usize,
                allowed: format!(
                    "1, or 2 on devices with TMA multicast{}",
                    if cfg.b_k_major { "" } else { " when B is row-major only with bn 128 or 256" }
                ),
            });
        }
        // The shared-memory epilogue: 16-bit C elements written by `stmatrix` (read back by
        // `ldmatrix` when beta != 0), loaded and stored by TMA (rows 16-byte aligned). On the
        // H100 a TMA store clipped a row at a 16-byte boundary, not at the tensor's last column
        // (it wrote the padding after columns 257, 140, 130 of f16 rows: NOTES.md), so C's
        // contiguous extent must be a multiple of 16 bytes too.
        let ldc = desc.c.ld(desc.m, desc.n);
        let c_inner = match desc.c.layout {
            Layout::RowMajor => desc.n,
            Layout::ColMajor => desc.m,
        };
        // Batched, C's map has the batch as a third dimension: its stride obeys TMA's rules too.
        let c_stride_fits = !batched
            || (desc.strides[2] * c.size()) % 16 == 0
                && desc.strides[2] >= tma_batch_extent(&desc.c, desc.m, desc.n);
        let tma_fits = matches!(c, ElemType::F16 | ElemType::BF16)
            && (ldc * c.size()) % 16 == 0
            && (c_inner * c.size()) % 16 == 0
            && c_stride_fits
            && target.has(Feature::StMatrix)
            && target.has(Feature::LdMatrix);
        cfg.tma_store = match tuning.tma_store {
            None => tma_fits,
            Some(false) => false,
            Some(true) if tma_fits => true,
            Some(true) => {
                return Err(GemmError::InvalidShape {
                    what: "tuning.tma_store",
                    value: 1,
                    allowed: format!(
                        "true only for an f16 or bf16 C whose row pitch and row length (and batch stride, at least ldc times its outer dimension) are multiples of 16 bytes (got C {c:?}, ldc {ldc}, {c_inner} elements per row, batch stride {})",
                        desc.strides[2]
                    ),
                })
            }
        };
        let limit = device.properties().shared_mem_per_block_optin.max(48 << 10) as u32;
        // Keep a little for the barriers (static shared memory).
        while cfg.shared_bytes() + 1024 > limit && cfg.stages > 2 {
            cfg.stages -= 1;
        }
        if cfg.shared_bytes() + 1024 > limit {
            return Err(GemmError::UnsupportedDevice {
                device: device.index(),
                target: target.to_string(),
                why: format!(
                    "{} bytes of shared memory per block; the kernel needs {}",
                    limit,
                    cfg.shared_bytes()
                ),
            });
        }
        let cl = cfg.cluster_m as usize;
        let tiles = km.div_ceil(sm90::BM as usize * cl) * kn.div_ceil(bn as usize);
        // Work items of the launch: every (cluster) tile of every product, counted in u32.
        let items = tiles.saturating_mul(desc.batch.max(1));
        if items > u32::MAX as usize {
            return Err(GemmError::InvalidShape {
                what: "batch",
                value: desc.batch,
                allowed: format!(
                    "at most {} for this shape ({tiles} tiles per product)",
                    u32::MAX as usize / tiles
                ),
            });
        }
        let tiles = items;
        // Split-K: slices of K as the products of a batched launch, partial sums to a workspace.
        let k_tiles = desc.k.div_ceil(cfg.bk() as usize);
        let sms = device.properties().compute_units.max(1) as usize;
        let split = match tuning.split_k {
            Some(s) if s == 0 || s as usize > k_tiles || (s > 1 && batched) => {
                return Err(GemmError::InvalidShape {
                    what: "tuning.split_k",
                    value: s as usize,
                    allowed: format!(
                        "1 to {k_tiles} (one slice per {} elements of K at most), and 1 for batches",
                        cfg.bk()
                    ),
                });
            }
            Some(s) => s as usize,
            None if !batched && tiles * 2 <= sms && k_tiles >= 16 => (sms / tiles).min(k_tiles / 8).max(1),
            None => 1,
        };
        // Every slice non-empty: `k_split` k-tiles each, the last one shorter.
        let k_split = k_tiles.div_ceil(split);
        let split = k_tiles.div_ceil(k_split);
        if split > 1 {
            if tuning.tma_store == Some(true) {
                return Err(GemmError::InvalidShape {
                    what: "tuning.split_k",
                    value: split,
                    allowed: "1 with tuning.tma_store (split-K writes f32 partial sums from registers)"
                        .into(),
                });
            }
            cfg.batched = true;
            cfg.split_k = true;
            cfg.tma_store = false;
        }
        let tiles = tiles * split;
        let clusters = device.properties().compute_units.max(1) as usize / cl;
        let grid = (tuning.grid.map_or(tiles.min(clusters) * cl, |g| g as usize).max(cl) / cl * cl) as u32;
        Ok(Plan {
            device: device.clone(),
            desc: *desc,
            cfg,
            grid,
            swapped: desc.c.layout == Layout::ColMajor,
            split: split as u32,
            k_split: k_split as u32,
            // A capturing stream cannot take the workspace from its pool: the unsplit kernel.
            unsplit: if split > 1 {
                Some(Box::new(Gemm::plan_tuned(device, desc, Tuning { split_k: Some(1), ..tuning })?))
            } else {
                None
            },
        })
    }
}

/// A planned GEMM: the kernel and grid chosen for one [`GemmDesc`] on one device.
#[derive(Clone, Debug)]
pub struct Plan {
    device: Device,
    desc: GemmDesc,
    cfg: sm90::Config,
    grid: u32,
    swapped: bool,
    /// Slices of K (1: no split-K) and k-tiles per slice.
    split: u32,
    k_split: u32,
    /// The plan without split-K, for streams capturing a graph.
    unsplit: Option<Box<Plan>>,
}

/// Checks one buffer against the plan: type, device, length; returns its address range.
fn check_buffer<T: GemmElement>(
    operand: &'static str,
    want: ElemType,
    device: &Device,
    buf: &impl AsDeviceSlice<T>,
    need: usize,
) -> Result<(u64, u64)> {
    if T::TYPE != want.storage() {
        return Err(GemmError::WrongType { operand, want: want.storage(), got: T::TYPE });
    }
    if buf.device().index() != device.index() {
        return Err(GemmError::WrongDevice { operand, want: device.index(), got: buf.device().index() });
    }
    if buf.len() < need {
        return Err(GemmError::BufferTooSmall { operand, len: buf.len(), need });
    }
    let start = buf.device_ptr().0;
    Ok((start, start + buf.byte_len()))
}

/// The tensor map of an operand of `rows x cols` read `k_major` or not, boxes of `box_dims`.
/// `batch` (a batched kernel's operands): the number of matrices and the elements from one to
/// the next, the map's third dimension (a stride of 0, one matrix for every product, is a
/// dimension of 1 that the kernel always reads at 0).
fn operand_map<'a, T: GemmElement>(
    buf: &'a impl AsDeviceSlice<T>,
    layout: Layout,
    rows: usize,
    cols: usize,
    ld: usize,
    box_dims: [u32; 2],
    batch: Option<(usize, usize)>,
) -> Result<TensorMap<'a>> {
    // dims[0] is the contiguous dimension.
    let (inner, outer) = match layout {
        Layout::RowMajor => (cols, rows),
        Layout::ColMajor => (rows, cols),
    };
    let size = std::mem::size_of::<T>();
    let mut dims = vec![inner as u64, outer as u64];
    let mut boxes = box_dims.to_vec();
    let mut strides = vec![(ld * size) as u64];
    if let Some((count, stride)) = batch {
        let (count, stride) = if stride == 0 { (1, ld * outer) } else { (count, stride) };
        dims.push(count as u64);
        boxes.push(1);
        strides.push((stride * size) as u64);
    }
    let l = TiledLayout::new(&dims, &boxes).with_strides(&strides).with_swizzle(TensorMapSwizzle::B128);
    Ok(TensorMap::tiled(buf, &l)?)
}

/// Elements `count` matrices of `one` elements each, `stride` apart, span.
fn batch_span(count: usize, stride: usize, one: usize) -> usize {
    if count == 0 || one == 0 {
        0
    } else {
        (count - 1) * stride + one
    }
}

impl Plan {
    /// The description the plan was made for.
    pub fn desc(&self) -> &GemmDesc {
        &self.desc
    }

    /// The device the plan runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Bytes of device memory one [`Plan::run`] takes from the stream's pool: the split-K
    /// partial sums (`slices * m * n` f32), 0 without split-K. A caller with a workspace limit
    /// plans again with [`Tuning::split_k`] `Some(1)` when this exceeds it.
    pub fn workspace_bytes(&self) -> u64 {
        if self.cfg.split_k {
            self.split as u64 * self.desc.m as u64 * self.desc.n as u64 * 4
        } else {
            0
        }
    }

    /// A one-line description of the chosen kernel (for logs and benchmarks).
    pub fn kernel_name(&self) -> String {
        let c = &self.cfg;
        format!(
            "sm90 ws-tma-wgmma {:?} {}x{}x{} {} stages, cluster {}, {}{} grid {}, {} epilogue{}",
            c.input,
            sm90::BM,
            c.bn,
            c.bk(),
            c.stages,
            c.cluster_m,
            if c.a_k_major { 'T' } else { 'N' },
            if c.b_k_major { 'T' } else { 'N' },
            self.grid,
            if c.tma_store { "stmatrix + TMA store" } else { "register" },
            if c.split_k {
                format!(", split-K {} x {} k-tiles", self.split, self.k_split)
            } else if c.batched {
                format!(", batch {}", self.desc.batch)
            } else {
                String::new()
            }
        )
    }

    /// Runs `C = alpha scale_a scale_b A B + beta C` on `stream` (asynchronously). Every check (types, devices,
    /// lengths, aliasing) runs before anything is launched.
    pub fn run<T: GemmElement, C: GemmOutput>(
        &self,
        stream: &Stream,
        a: &impl AsDeviceSlice<T>,
        b: &impl AsDeviceSlice<T>,
        c: &mut impl AsDeviceSliceMut<C>,
    ) -> Result<()> {
        if let (Some(unsplit), true) = (&self.unsplit, stream.is_capturing()) {
            return unsplit.run(stream, a, b, c);
        }
        let d = &self.desc;
        let (lda, ldb, ldc) = d.leading_dims();
        if stream.device().index() != self.device.index() {
            return Err(GemmError::WrongDevice {
                operand: "stream",
                want: self.device.index(),
                got: stream.device().index(),
            });
        }
        let [sa, sb, sc] = d.strides;
        let nb = d.batch;
        let need = |stride: usize, one: usize| if nb == 1 { one } else { batch_span(nb, stride, one) };
        let ra = check_buffer("A", d.a.ty, &self.device, a, need(sa, span(d.a.layout, d.m, d.k, lda)))?;
        let rb = check_buffer("B", d.b.ty, &self.device, b, need(sb, span(d.b.layout, d.k, d.n, ldb)))?;
        let rc = check_buffer("C", d.c.ty, &self.device, c, need(sc, span(d.c.layout, d.m, d.n, ldc)))?;
        let overlaps = |x: (u64, u64)| x.0 < rc.1 && rc.0 < x.1 && x.0 != x.1 && rc.0 != rc.1;
        if overlaps(ra) {
            return Err(GemmError::Aliasing { operand: "A" });
        }
        if overlaps(rb) {
            return Err(GemmError::Aliasing { operand: "B" });
        }
        if d.m == 0 || d.n == 0 || nb == 0 {
            return Ok(());
        }
        let batched = self.cfg.batched;
        let operand_batch = |stride: usize| (batched && !self.cfg.split_k).then_some((nb, stride));
        // Normalized to a row-major C (see `Gemm::plan`).
        let (m, n) = if self.swapped { (d.n, d.m) } else { (d.m, d.n) };
        let k = d.k;
        let (ma, mb) = if self.swapped {
            (
                operand_map(b, d.b.layout.flip(), d.n, k, ldb, self.cfg.a_box(), operand_batch(sb))?,
                operand_map(a, d.a.layout.flip(), k, d.m, lda, self.cfg.b_box(), operand_batch(sa))?,
            )
        } else {
            (
                operand_map(a, d.a.layout, d.m, k, lda, self.cfg.a_box(), operand_batch(sa))?,
                operand_map(b, d.b.layout, k, d.n, ldb, self.cfg.b_box(), operand_batch(sb))?,
            )
        };
        // The kernel's batch arguments: products, and whether the (kernel's) A and B advance.
        let (strided_a, strided_b) = if self.swapped { (sb != 0, sa != 0) } else { (sa != 0, sb != 0) };
        let (kb, kba, kbb) =
            if batched { (nb as u32, strided_a as u32, strided_b as u32) } else { (1, 0, 0) };
        if self.cfg.split_k {
            return self.run_split_k(stream, &ma, &mb, c, m, n, k, ldc);
        }
        let c_aligned = c.device_ptr().0 % 16 == 0;
        if self.cfg.tma_store && c_aligned {
            // C's rows are 16-byte aligned (the plan checked the pitch): boxes of 64 x 64.
            let csize = std::mem::size_of::<C>();
            let (mut dims, mut boxes) = (vec![n as u64, m as u64], self.cfg.c_box().to_vec());
            let mut strides = vec![(ldc * csize) as u64];
            if batched {
                dims.push(nb as u64);
                boxes.push(1);
                strides.push((sc * csize) as u64);
            }
            let l =
                TiledLayout::new(&dims, &boxes).with_strides(&strides).with_swizzle(TensorMapSwizzle::B128);
            let mc = TensorMap::tiled(&*c, &l)?;
            let launch = LaunchConfig::new(self.grid, sm90::THREADS)
                .with_shared_mem(self.cfg.shared_bytes())
                .with_cluster((self.cfg.cluster_m, 1, 1));
            sm90::gemm_sm90_tma::launch::<C>(
                stream,
                launch,
                self.cfg,
                &ma,
                &mb,
                &mc,
                m as u32,
                n as u32,
                k as u32,
                d.product_scale(),
                d.beta,
                kb,
                kba,
                kbb,
            )?;
            return Ok(());
        }
        // Column pairs go out in one access when C's start and pitch allow it.
        let pair_stores = ldc % 2 == 0
            && (!batched || sc % 2 == 0)
            && c.device_ptr().0 % (2 * std::mem::size_of::<C>() as u64) == 0;
        let cfg = sm90::Config { pair_stores, tma_store: false, ..self.cfg };
        let launch = LaunchConfig::new(self.grid, sm90::THREADS)
            .with_shared_mem(cfg.shared_bytes())
            .with_cluster((cfg.cluster_m, 1, 1));
        sm90::gemm_sm90::launch::<C>(
            stream,
            launch,
            cfg,
            &ma,
            &mb,
            c,
            m as u32,
            n as u32,
            k as u32,
            ldc as u32,
            d.product_scale(),
            d.beta,
            kb,
            kba,
            kbb,
            if batched { sc as u64 } else { 0 },
            0,
        )?;
        Ok(())
    }

    /// Split-K: each slice's partial product (f32, row-major `m x n` in normalized coordinates)
    /// into a workspace from the stream's pool, then [`sm90::reduce_split_k`] into C.
    #[allow(clippy::too_many_arguments)]
    fn run_split_k<C: GemmOutput>(
        &self,
        stream: &Stream,
        ma: &TensorMap,
        mb: &TensorMap,
        c: &mut impl AsDeviceSliceMut<C>,
        m: usize,
        n: usize,
        k: usize,
        ldc: usize,
    ) -> Result<()> {
        let d = &self.desc;
        let mn = m * n;
        let mut ws = stream.alloc::<f32>(self.split as usize * mn)?;
        let cfg = sm90::Config { pair_stores: n % 2 == 0, ..self.cfg };
        let launch = LaunchConfig::new(self.grid, sm90::THREADS)
            .with_shared_mem(cfg.shared_bytes())
            .with_cluster((cfg.cluster_m, 1, 1));
        sm90::gemm_sm90::launch::<f32>(
            stream,
            launch,
            cfg,
            ma,
            mb,
            &mut ws,
            m as u32,
            n as u32,
            k as u32,
            n as u32,
            1.0,
            0.0,
            self.split,
            0,
            0,
            mn as u64,
            self.k_split,
        )?;
        let threads = 256u32;
        let blocks = mn.div_ceil(threads as usize).min(4 * 1024) as u32;
        sm90::reduce_split_k::launch::<C>(
            stream,
            LaunchConfig::new(blocks, threads),
            &ws,
            c,
            m as u32,
            n as u32,
            ldc as u32,
            self.split,
            d.product_scale(),
            d.beta,
        )?;
        Ok(())
    }
}
