//! The public API: a GEMM's description, the planner, and running a plan.

use ferrocm_kernel::dsl::{Elem, MmaType};
use ferrocm_kernel::runtime::backend::Feature;
use ferrocm_kernel::runtime::{
    AsDeviceSlice, AsDeviceSliceMut, Device, LaunchConfig, Stream, TensorMap, TensorMapElement,
    TensorMapSwizzle, TiledLayout,
};
use ferrocm_kernel::{bf16, f16};

use crate::error::{GemmError, Result};
use crate::sm90;

/// Element types of GEMM operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ElemType {
    F16,
    BF16,
    F32,
}

impl ElemType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElemType::F16 | ElemType::BF16 => 2,
            ElemType::F32 => 4,
        }
    }
}

/// Host types that name an [`ElemType`] (`half::f16`, `half::bf16`, `f32`).
pub trait GemmElement: Elem<Repr = Self> + TensorMapElement {
    const TYPE: ElemType;
}
impl GemmElement for f16 {
    const TYPE: ElemType = ElemType::F16;
}
impl GemmElement for bf16 {
    const TYPE: ElemType = ElemType::BF16;
}
impl GemmElement for f32 {
    const TYPE: ElemType = ElemType::F32;
}

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

/// What to compute: `C = alpha * A * B + beta * C` with `A` `m x k`, `B` `k x n`, `C` `m x n`.
/// Build with [`GemmDesc::new`] (all row-major and packed, C of the input type, `alpha` 1,
/// `beta` 0) and the `with_*` methods.
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
}

impl GemmDesc {
    /// An `m x n x k` product of `ty` matrices (C of type `ty` too), all row-major and packed.
    pub fn new(m: usize, n: usize, k: usize, ty: ElemType) -> GemmDesc {
        let op = Operand { ty, layout: Layout::RowMajor, ld: None };
        GemmDesc { m, n, k, a: op, b: op, c: op, alpha: 1.0, beta: 0.0 }
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
    /// Block-tile columns: 64, 128, 192 or 256.
    pub bn: Option<u32>,
    /// Shared-memory pipeline stages: 2 or more (as many as fit).
    pub stages: Option<u32>,
    /// Tile rows that share a sweep over the tile columns (the L2-friendly order): 1 or more.
    pub group_m: Option<u32>,
    /// Persistent blocks: 1 or more (default: one per multiprocessor, at most one per tile).
    pub grid: Option<u32>,
    /// Blocks per cluster along M, sharing B by TMA multicast: 1 or 2.
    pub cluster_m: Option<u32>,
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

fn check_operand(
    name: &'static str,
    ld_name: &'static str,
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
        return Err(GemmError::InvalidShape {
            what: ld_name,
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

impl Gemm {
    /// Picks a kernel for `desc` on `device`, checking everything that can be checked before
    /// the buffers are known.
    pub fn plan(device: &Device, desc: &GemmDesc) -> Result<Plan> {
        Gemm::plan_tuned(device, desc, Tuning::default())
    }

    /// [`Gemm::plan`] with some of the kernel's shape given (see [`Tuning`]).
    pub fn plan_tuned(device: &Device, desc: &GemmDesc, tuning: Tuning) -> Result<Plan> {
        let (a, b, c) = desc.types();
        let input = match (a, b) {
            (ElemType::F16, ElemType::F16) => MmaType::F16,
            (ElemType::BF16, ElemType::BF16) => MmaType::BF16,
            _ => return Err(GemmError::UnsupportedTypes { a, b, c }),
        };
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
        check_operand("A", "lda", &desc.a, desc.m, desc.k, true)?;
        check_operand("B", "ldb", &desc.b, desc.k, desc.n, true)?;
        check_operand("C", "ldc", &desc.c, desc.m, desc.n, false)?;
        if !desc.alpha.is_finite() || !desc.beta.is_finite() {
            return Err(GemmError::InvalidShape {
                what: "alpha/beta",
                value: 0,
                allowed: format!("finite scalars (got alpha {}, beta {})", desc.alpha, desc.beta),
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
        let bn = tuning.bn.unwrap_or(if kn <= 128 { 128 } else { 256 });
        if !matches!(bn, 64 | 128 | 192 | 256) {
            return Err(GemmError::InvalidShape {
                what: "tuning.bn",
                value: bn as usize,
                allowed: "64, 128, 192 or 256".into(),
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
        let clusters = device.properties().compute_units.max(1) as usize / cl;
        let grid = (tuning.grid.map_or(tiles.min(clusters) * cl, |g| g as usize).max(cl) / cl * cl) as u32;
        Ok(Plan {
            device: device.clone(),
            desc: *desc,
            cfg,
            grid,
            swapped: desc.c.layout == Layout::ColMajor,
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
}

/// Checks one buffer against the plan: type, device, length; returns its address range.
fn check_buffer<T: GemmElement>(
    operand: &'static str,
    want: ElemType,
    device: &Device,
    buf: &impl AsDeviceSlice<T>,
    need: usize,
) -> Result<(u64, u64)> {
    if T::TYPE != want {
        return Err(GemmError::WrongType { operand, want, got: T::TYPE });
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
fn operand_map<'a, T: GemmElement>(
    buf: &'a impl AsDeviceSlice<T>,
    layout: Layout,
    rows: usize,
    cols: usize,
    ld: usize,
    box_dims: [u32; 2],
) -> Result<TensorMap<'a>> {
    // dims[0] is the contiguous dimension.
    let (inner, outer) = match layout {
        Layout::RowMajor => (cols, rows),
        Layout::ColMajor => (rows, cols),
    };
    let l = TiledLayout::new(&[inner as u64, outer as u64], &box_dims)
        .with_strides(&[(ld * std::mem::size_of::<T>()) as u64])
        .with_swizzle(TensorMapSwizzle::B128);
    Ok(TensorMap::tiled(buf, &l)?)
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

    /// A one-line description of the chosen kernel (for logs and benchmarks).
    pub fn kernel_name(&self) -> String {
        let c = &self.cfg;
        format!(
            "sm90 ws-tma-wgmma {}x{}x{} {} stages, cluster {}, {}{} grid {}",
            sm90::BM,
            c.bn,
            sm90::BK,
            c.stages,
            c.cluster_m,
            if c.a_k_major { 'T' } else { 'N' },
            if c.b_k_major { 'T' } else { 'N' },
            self.grid
        )
    }

    /// Runs `C = alpha A B + beta C` on `stream` (asynchronously). Every check (types, devices,
    /// lengths, aliasing) runs before anything is launched.
    pub fn run<T: GemmElement, C: GemmElement>(
        &self,
        stream: &Stream,
        a: &impl AsDeviceSlice<T>,
        b: &impl AsDeviceSlice<T>,
        c: &mut impl AsDeviceSliceMut<C>,
    ) -> Result<()> {
        let d = &self.desc;
        let (lda, ldb, ldc) = d.leading_dims();
        if stream.device().index() != self.device.index() {
            return Err(GemmError::WrongDevice {
                operand: "stream",
                want: self.device.index(),
                got: stream.device().index(),
            });
        }
        let ra = check_buffer("A", d.a.ty, &self.device, a, span(d.a.layout, d.m, d.k, lda))?;
        let rb = check_buffer("B", d.b.ty, &self.device, b, span(d.b.layout, d.k, d.n, ldb))?;
        let rc = check_buffer("C", d.c.ty, &self.device, c, span(d.c.layout, d.m, d.n, ldc))?;
        let overlaps = |x: (u64, u64)| x.0 < rc.1 && rc.0 < x.1 && x.0 != x.1 && rc.0 != rc.1;
        if overlaps(ra) {
            return Err(GemmError::Aliasing { operand: "A" });
        }
        if overlaps(rb) {
            return Err(GemmError::Aliasing { operand: "B" });
        }
        if d.m == 0 || d.n == 0 {
            return Ok(());
        }
        // Normalized to a row-major C (see `Gemm::plan`).
        let (m, n) = if self.swapped { (d.n, d.m) } else { (d.m, d.n) };
        let k = d.k;
        let (ma, mb) = if self.swapped {
            (
                operand_map(b, d.b.layout.flip(), d.n, k, ldb, self.cfg.a_box())?,
                operand_map(a, d.a.layout.flip(), k, d.m, lda, self.cfg.b_box())?,
            )
        } else {
            (
                operand_map(a, d.a.layout, d.m, k, lda, self.cfg.a_box())?,
                operand_map(b, d.b.layout, k, d.n, ldb, self.cfg.b_box())?,
            )
        };
        // Column pairs go out in one access when C's start and pitch allow it.
        let pair_stores = ldc % 2 == 0 && c.device_ptr().0 % (2 * std::mem::size_of::<C>() as u64) == 0;
        let cfg = sm90::Config { pair_stores, ..self.cfg };
        let launch = LaunchConfig::new(self.grid, sm90::THREADS)
            .with_shared_mem(self.cfg.shared_bytes())
            .with_cluster((self.cfg.cluster_m, 1, 1));
        sm90::gemm_sm90::launch::<C>(
            stream, launch, cfg, &ma, &mb, c, m as u32, n as u32, k as u32, ldc as u32, d.alpha, d.beta,
        )?;
        Ok(())
    }
}
