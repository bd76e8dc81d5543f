//! hipBLASLt-style matmul: a [`MatmulDesc`] (operations, types, layouts with batches, 8-bit
//! float inputs with per-tensor scales, an [`Epilogue`]), the heuristic
//! [`Handle::matmul_algorithms`] and [`Handle::matmul`].
//!
//! # What it computes
//! `D = act(alpha scale_a scale_b op(A) op(B) + beta D + bias)` for each batch entry, `D`
//! `m x n` column-major (as `hipblasLtMatmul` with C and D the same matrix), `op(A)` `m x k`,
//! `op(B)` `k x n`; `bias` is a vector of `m` (one value per row of D, shared by the batch);
//! the `*Aux` epilogues also store the pre-activation `x` (after the bias) to an auxiliary
//! `m x n` matrix of D's type. Products accumulate in f32; `x` is formed in f32 and rounded once
//! to D's type. `beta = 0` never reads D.
//!
//! # Epilogues (hipBLASLt's `HIPBLASLT_EPILOGUE_*`)
//! | [`Epilogue`] | hipBLASLt | applies |
//! |---|---|---|
//! | `Default` | `DEFAULT` | nothing |
//! | `Relu` | `RELU` | `max(x, 0)` |
//! | `Bias` | `BIAS` | `x + bias` |
//! | `ReluBias` | `RELU_BIAS` | `max(x + bias, 0)` |
//! | `Gelu` | `GELU` | `gelu(x)` |
//! | `GeluBias` | `GELU_BIAS` | `gelu(x + bias)` |
//! | `ReluAux` | `RELU_AUX` | `max(x, 0)`, `aux = x` |
//! | `ReluAuxBias` | `RELU_AUX_BIAS` | `max(x + bias, 0)`, `aux = x + bias` |
//! | `GeluAux` | `GELU_AUX` | `gelu(x)`, `aux = x` |
//! | `GeluAuxBias` | `GELU_AUX_BIAS` | `gelu(x + bias)`, `aux = x + bias` |
//!
//! `gelu(x) = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`, the tanh approximation
//! cuBLASLt and hipBLASLt use (hipBLASLt keeps the aux output of D's type, as here).
//!
//! # Types
//! A and B one of f16, bf16, f32, [`E4M3`], [`E5M2`] (the same type); D f16, bf16 or f32 (f32
//! inputs: D f32); bias f16, bf16 or f32. `alpha`, `beta` and the scales are host f32 values
//! (hipBLASLt also takes device scalars and device scale pointers: not here yet). The scales
//! multiply 8-bit products only in effect, but any type takes them.
//!
//! # Algorithms
//! [`Handle::matmul_algorithms`] returns the candidates in preference order, each with the
//! workspace it needs (bytes from the stream-ordered pool); those above the limit are left out.
//! The product runs on the `ferrocm-gemm` Hopper kernel ([`GemmFamily::Wgmma`]: sm_90a and the
//! CPU executor; 8-bit inputs only with op(A) = T, op(B) = N, its K-major layouts), the SIMT
//! kernels (8-bit inputs decoded exactly to f32 in workspace first), or the native CPU engine.
//! The epilogue is a separate element-wise launch over an f32 product in workspace (fusing it
//! into the Hopper kernel's epilogue is later work); `Default` on 16-bit or f32 inputs writes D
//! directly and needs no workspace.
//!
//! # Accuracy
//! Products are summed in f32 (error within `(k + 6) u sum |a b|`, `u = 2^-24`) and the result
//! rounded once to D's type, with one exception: 8-bit inputs on the Hopper kernel are summed by
//! the tensor cores, which keep about 13-14 bits of the running sum within each block of 128 of
//! K (as cuBLASLt's fp8 GEMM on the same hardware), so their sum is within `2^-10 sum |a b|`
//! (the bound `ferrocm-gemm`'s tests hold the H100 to).

use ferrocm_kernel::runtime::backend::Feature;
use ferrocm_kernel::runtime::{
    AsDeviceSlice, AsDeviceSliceMut, DeviceBuffer, DeviceRepr, DeviceSlice, DeviceSliceMut, KernelArgs,
};
use half::{bf16, f16};

pub use ferrocm_gemm::{E4M3, E5M2};

use crate::check::size32;
use crate::error::{BlasError, Result};
use crate::gemm_ex::GemmExType;
use crate::handle::Handle;
use crate::kernels::{self, gemm_ex as kx};
use crate::level2::bools;
use crate::level3::GemmFamily;
use crate::native::{self, push_buf};
use crate::types::{ComputeType, DataType, Operation};

/// Element types of matmul operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MatmulType {
    /// `f16_r`
    F16,
    /// `bf16_r`
    BF16,
    /// `f32_r`
    F32,
    /// `f8_r` (e4m3, hipBLASLt's `HIP_R_8F_E4M3`)
    E4M3,
    /// `bf8_r` (e5m2, `HIP_R_8F_E5M2`)
    E5M2,
}

impl MatmulType {
    fn is_8bit(self) -> bool {
        matches!(self, MatmulType::E4M3 | MatmulType::E5M2)
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Host types of matmul operands (`f16`, `bf16`, `f32`, [`E4M3`], [`E5M2`]). Sealed.
pub trait MatmulElement: DeviceRepr + Copy + sealed::Sealed {
    /// The element type.
    const TYPE: MatmulType;
}
/// Types D, the aux matrix and the bias may have (`f16`, `bf16`, `f32`). Sealed.
pub trait MatmulOutput: MatmulElement + GemmExType + ferrocm_kernel::dsl::Elem<Repr = Self> {}

macro_rules! elem {
    ($t:ty, $ty:ident) => {
        impl sealed::Sealed for $t {}
        impl MatmulElement for $t {
            const TYPE: MatmulType = MatmulType::$ty;
        }
    };
}
elem!(f16, F16);
elem!(bf16, BF16);
elem!(f32, F32);
elem!(E4M3, E4M3);
elem!(E5M2, E5M2);
impl MatmulOutput for f16 {}
impl MatmulOutput for bf16 {}
impl MatmulOutput for f32 {}

/// What the matmul applies after the product (see the [module docs](self) for hipBLASLt's
/// names and the formulas).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Epilogue {
    #[default]
    Default,
    Relu,
    Bias,
    ReluBias,
    Gelu,
    GeluBias,
    ReluAux,
    ReluAuxBias,
    GeluAux,
    GeluAuxBias,
}

impl Epilogue {
    /// `(activation, bias, aux)`.
    fn parts(self) -> (u32, bool, bool) {
        use Epilogue::*;
        let act = match self {
            Relu | ReluBias | ReluAux | ReluAuxBias => kx::ACT_RELU,
            Gelu | GeluBias | GeluAux | GeluAuxBias => kx::ACT_GELU,
            Default | Bias => kx::ACT_NONE,
        };
        (
            act,
            matches!(self, Bias | ReluBias | GeluBias | ReluAuxBias | GeluAuxBias),
            matches!(self, ReluAux | ReluAuxBias | GeluAux | GeluAuxBias),
        )
    }

    /// Whether the epilogue reads a bias vector.
    pub fn has_bias(self) -> bool {
        self.parts().1
    }

    /// Whether the epilogue writes the aux matrix.
    pub fn has_aux(self) -> bool {
        self.parts().2
    }
}

/// One matrix's layout (`hipblasLtMatrixLayout`): leading dimension and batch stride in
/// elements (column-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixLayout {
    /// Leading dimension (`>= max(1, stored rows)`).
    pub ld: usize,
    /// Elements between batch entries.
    pub stride: usize,
}

/// A matmul's description (`hipblasLtMatmulDesc` with its matrix layouts). Build with
/// [`MatmulDesc::new`] and the `with_*` methods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatmulDesc {
    pub transa: Operation,
    pub transb: Operation,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// The type of A and B.
    pub input: MatmulType,
    /// The type of D (and the aux matrix).
    pub output: MatmulType,
    pub a: MatrixLayout,
    pub b: MatrixLayout,
    pub d: MatrixLayout,
    /// The aux matrix's layout (used by the `*Aux` epilogues).
    pub aux: MatrixLayout,
    pub batch_count: usize,
    pub epilogue: Epilogue,
    /// Per-tensor scale of A (8-bit inputs' dequantization factor; 1 by default).
    pub scale_a: f32,
    /// Per-tensor scale of B.
    pub scale_b: f32,
}

impl MatmulDesc {
    /// `D (m x n, output) = op(A) op(B)` with A and B of type `input`, packed leading
    /// dimensions, one batch, no epilogue, scales 1.
    pub fn new(
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        input: MatmulType,
        output: MatmulType,
    ) -> MatmulDesc {
        let (ra, ca) = if transa == Operation::N { (m, k) } else { (k, m) };
        let (rb, cb) = if transb == Operation::N { (k, n) } else { (n, k) };
        let lay = |r: usize, c: usize| MatrixLayout { ld: r.max(1), stride: r.max(1) * c };
        MatmulDesc {
            transa,
            transb,
            m,
            n,
            k,
            input,
            output,
            a: lay(ra, ca),
            b: lay(rb, cb),
            d: lay(m, n),
            aux: lay(m, n),
            batch_count: 1,
            epilogue: Epilogue::Default,
            scale_a: 1.0,
            scale_b: 1.0,
        }
    }

    /// Leading dimensions of A, B and D (the aux matrix takes D's).
    pub fn with_leading_dims(mut self, lda: usize, ldb: usize, ldd: usize) -> MatmulDesc {
        let cols = |l: MatrixLayout, ld_old: usize| l.stride / ld_old.max(1);
        let (ca, cb, cd) = (cols(self.a, self.a.ld), cols(self.b, self.b.ld), cols(self.d, self.d.ld));
        self.a = MatrixLayout { ld: lda, stride: lda * ca };
        self.b = MatrixLayout { ld: ldb, stride: ldb * cb };
        self.d = MatrixLayout { ld: ldd, stride: ldd * cd };
        self.aux = self.d;
        self
    }

    /// `batch_count` products with the given strides (elements) of A, B and D (aux: D's).
    pub fn with_batches(
        mut self,
        batch_count: usize,
        stride_a: usize,
        stride_b: usize,
        stride_d: usize,
    ) -> MatmulDesc {
        self.batch_count = batch_count;
        self.a.stride = stride_a;
        self.b.stride = stride_b;
        self.d.stride = stride_d;
        self.aux.stride = stride_d;
        self
    }

    /// The aux matrix's layout.
    pub fn with_aux_layout(mut self, aux: MatrixLayout) -> MatmulDesc {
        self.aux = aux;
        self
    }

    /// The epilogue.
    pub fn with_epilogue(mut self, epilogue: Epilogue) -> MatmulDesc {
        self.epilogue = epilogue;
        self
    }

    /// Per-tensor scales of A and B.
    pub fn with_scales(mut self, scale_a: f32, scale_b: f32) -> MatmulDesc {
        self.scale_a = scale_a;
        self.scale_b = scale_b;
        self
    }

    fn needs_product_workspace(&self) -> bool {
        self.epilogue != Epilogue::Default || self.input.is_8bit()
    }
}

/// One algorithm the heuristic offers (`hipblasLtMatmulHeuristicResult`): the kernel family
/// of the product and the workspace it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatmulAlgo {
    /// The product's kernel family.
    pub family: GemmFamily,
    /// Bytes of workspace the call takes from the pool.
    pub workspace_bytes: u64,
}

const F32: u64 = 4;

/// What one algorithm needs: the workspace it cannot run without, and the split-K partial sums
/// the Hopper plan adds when the limit leaves room for them (else it runs unsplit).
struct AlgoNeed {
    family: GemmFamily,
    least: u64,
    split: u64,
}

impl Handle {
    /// The algorithms that can run `desc` on this handle's device, best first, each with the
    /// workspace it takes within `workspace_limit` (the Hopper kernel's split-K partial sums
    /// count only where they fit; past the limit it runs unsplit); those needing more than
    /// `workspace_limit` bytes are left out (`hipblasLtMatmulAlgoGetHeuristic`). Empty when none
    /// fits (or the description is not supported: [`Handle::matmul`] says why).
    pub fn matmul_algorithms(&self, desc: &MatmulDesc, workspace_limit: u64) -> Vec<MatmulAlgo> {
        self.algorithm_needs(desc)
            .into_iter()
            .filter(|a| a.least <= workspace_limit)
            .map(|a| {
                let with_split = a.least.saturating_add(a.split);
                let workspace_bytes = if with_split <= workspace_limit { with_split } else { a.least };
                MatmulAlgo { family: a.family, workspace_bytes }
            })
            .collect()
    }

    /// Every algorithm that can run `desc`, best first, with its workspace needs.
    fn algorithm_needs(&self, desc: &MatmulDesc) -> Vec<AlgoNeed> {
        if check_desc(desc).is_err() {
            return Vec::new();
        }
        let mn = (desc.m * desc.n * desc.batch_count) as u64;
        let product = if desc.needs_product_workspace() { mn * F32 } else { 0 };
        let decoded = if desc.input.is_8bit() {
            let span = |l: MatrixLayout, rows: usize, cols: usize| {
                if rows == 0 || cols == 0 || desc.batch_count == 0 {
                    0
                } else {
                    ((desc.batch_count - 1) * l.stride + l.ld * (cols - 1) + rows) as u64
                }
            };
            let (ra, ca) = if desc.transa == Operation::N { (desc.m, desc.k) } else { (desc.k, desc.m) };
            let (rb, cb) = if desc.transb == Operation::N { (desc.k, desc.n) } else { (desc.n, desc.k) };
            (span(desc.a, ra, ca) + span(desc.b, rb, cb)) * F32
        } else {
            0
        };
        let mut out = Vec::new();
        if !self.use_kernels() {
            out.push(AlgoNeed { family: GemmFamily::Native, least: product + decoded, split: 0 });
        } else {
            let target = self.stream().device().target();
            let hopper_target =
                [Feature::Wgmma, Feature::Tma, Feature::SetMaxNReg].into_iter().all(|f| target.has(f));
            // The plan the call makes (one batched launch where the batched kernel applies).
            let plan = (hopper_target && desc.input != MatmulType::F32 && desc.k > 0)
                .then(|| hopper_desc(desc))
                .flatten()
                .and_then(|g| {
                    let device = self.stream().device();
                    let batched = (desc.batch_count > 1)
                        .then(|| {
                            g.with_batch(desc.batch_count, desc.a.stride, desc.b.stride, desc.m * desc.n)
                        })
                        .and_then(|g| ferrocm_gemm::Gemm::plan(device, &g).ok());
                    batched.or_else(|| ferrocm_gemm::Gemm::plan(device, &g).ok())
                });
            if let Some(plan) = plan {
                out.push(AlgoNeed {
                    family: GemmFamily::Wgmma,
                    least: product,
                    split: plan.workspace_bytes(),
                });
            }
            out.push(AlgoNeed { family: GemmFamily::Simt, least: product + decoded, split: 0 });
        }
        out
    }

    /// Runs `desc` with `algo` (from [`Handle::matmul_algorithms`]): `D = act(alpha scale_a
    /// scale_b op(A) op(B) + beta D + bias)`, the aux matrix written by the `*Aux` epilogues
    /// (see the [module docs](self)). `bias` (`m` elements) is required by the `*Bias`
    /// epilogues and `aux` by the `*Aux` ones; giving one the epilogue does not use is an
    /// error too. The workspace comes from the pool within the handle's workspace limit.
    #[allow(clippy::too_many_arguments)]
    pub fn matmul<TI: MatmulElement, TO: MatmulOutput, TB: MatmulOutput>(
        &self,
        desc: &MatmulDesc,
        algo: &MatmulAlgo,
        alpha: f32,
        a: &impl AsDeviceSlice<TI>,
        b: &impl AsDeviceSlice<TI>,
        beta: f32,
        d: &mut impl AsDeviceSliceMut<TO>,
        bias: Option<DeviceSlice<'_, TB>>,
        aux: Option<DeviceSliceMut<'_, TO>>,
    ) -> Result<()> {
        check_desc(desc)?;
        if <TI as MatmulElement>::TYPE != desc.input || <TO as MatmulElement>::TYPE != desc.output {
            return Err(BlasError::InvalidValue {
                arg: "a/d",
                value: format!(
                    "{:?} inputs, {:?} D",
                    <TI as MatmulElement>::TYPE,
                    <TO as MatmulElement>::TYPE
                ),
                rule: "the buffers' element types must be the description's input and output types",
            });
        }
        let (act, has_bias, has_aux) = desc.epilogue.parts();
        let (m, n, k, batch) = (desc.m, desc.n, desc.k, desc.batch_count);
        let (ta, tb) = (real_op(desc.transa), real_op(desc.transb));
        let (ra, ca) = if ta == Operation::N { (m, k) } else { (k, m) };
        let (rb, cb) = if tb == Operation::N { (k, n) } else { (n, k) };
        self.check_batch("a", "lda", a, ra, ca, desc.a.ld, desc.a.stride, batch)?;
        self.check_batch("b", "ldb", b, rb, cb, desc.b.ld, desc.b.stride, batch)?;
        self.check_batch("d", "ldd", d, m, n, desc.d.ld, desc.d.stride, batch)?;
        if batch > 1 && m > 0 && n > 0 && desc.d.stride < desc.d.ld.saturating_mul(n) {
            return Err(BlasError::InvalidValue {
                arg: "stride_d",
                value: desc.d.stride.to_string(),
                rule: "the batches of D must not overlap: stride_d >= ldd * n when batch_count > 1",
            });
        }
        match (has_bias, &bias) {
            (true, Some(v)) => self.check_len("bias", v, "a bias of m elements", m)?,
            (true, None) => {
                return Err(BlasError::InvalidValue {
                    arg: "bias",
                    value: "None".into(),
                    rule: "the *Bias epilogues need a bias vector of m elements",
                })
            }
            (false, Some(_)) => {
                return Err(BlasError::InvalidValue {
                    arg: "bias",
                    value: "Some".into(),
                    rule: "only the *Bias epilogues take a bias vector",
                })
            }
            (false, None) => {}
        }
        match (has_aux, &aux) {
            (true, Some(v)) => {
                self.check_batch("aux", "ld_aux", v, m, n, desc.aux.ld, desc.aux.stride, batch)?;
                let (pa, pd) = (v.device_ptr().0, d.device_ptr().0);
                let (la, ld) = (v.byte_len(), d.byte_len());
                if pa < pd + ld && pd < pa + la && la > 0 && ld > 0 {
                    return Err(BlasError::InvalidValue {
                        arg: "aux",
                        value: format!("{pa:#x}"),
                        rule: "the aux matrix must not overlap D",
                    });
                }
            }
            (true, None) => {
                return Err(BlasError::InvalidValue {
                    arg: "aux",
                    value: "None".into(),
                    rule: "the *Aux epilogues need an aux matrix",
                })
            }
            (false, Some(_)) => {
                return Err(BlasError::InvalidValue {
                    arg: "aux",
                    value: "Some".into(),
                    rule: "only the *Aux epilogues take an aux matrix",
                })
            }
            (false, None) => {}
        }
        let offered = self.algorithm_needs(desc);
        let Some(need) = offered.iter().find(|o| o.family == algo.family) else {
            return Err(BlasError::Unsupported {
                what: format!(
                    "matmul on GemmFamily::{:?} with this handle and description (offered: {:?})",
                    algo.family,
                    offered.iter().map(|o| o.family).collect::<Vec<_>>()
                ),
            });
        };
        if let Some(limit) = self.workspace_limit().filter(|&l| need.least > l) {
            return Err(BlasError::WorkspaceTooSmall { required: need.least, available: limit });
        }
        if m == 0 || n == 0 || batch == 0 {
            return Ok(());
        }
        let scale = (alpha as f64 * desc.scale_a as f64 * desc.scale_b as f64) as f32;
        let s = self.stream();
        // alpha = 0 or k = 0 reads neither A nor B: the planner's family (D = beta D).
        let forced = if alpha == 0.0 || k == 0 { None } else { Some(algo.family) };
        // Default on 16-bit and f32 inputs: the product straight into D.
        if !desc.needs_product_workspace() {
            macro_rules! direct {
                ($i:ty) => {{
                    let (av, bv) =
                        (a.as_device_slice().reinterpret::<$i>()?, b.as_device_slice().reinterpret::<$i>()?);
                    return self.gemm_ex_forced(
                        forced,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        scale,
                        &av,
                        desc.a.ld,
                        desc.a.stride,
                        &bv,
                        desc.b.ld,
                        desc.b.stride,
                        beta,
                        d,
                        desc.d.ld,
                        desc.d.stride,
                        batch,
                    );
                }};
            }
            match desc.input {
                MatmulType::F16 => direct!(f16),
                MatmulType::BF16 => direct!(bf16),
                _ => direct!(f32),
            }
        }
        // The f32 product, packed m x n per batch entry.
        let total = m * n * batch;
        let mut p = self.workspace::<f32>(total)?;
        match desc.input {
            MatmulType::F16 | MatmulType::BF16 | MatmulType::F32 => {
                macro_rules! product {
                    ($i:ty) => {{
                        let (av, bv) = (
                            a.as_device_slice().reinterpret::<$i>()?,
                            b.as_device_slice().reinterpret::<$i>()?,
                        );
                        self.gemm_ex_forced(
                            forced,
                            ta,
                            tb,
                            m,
                            n,
                            k,
                            scale,
                            &av,
                            desc.a.ld,
                            desc.a.stride,
                            &bv,
                            desc.b.ld,
                            desc.b.stride,
                            0.0,
                            &mut p,
                            m,
                            m * n,
                            batch,
                        )?;
                    }};
                }
                match desc.input {
                    MatmulType::F16 => product!(f16),
                    MatmulType::BF16 => product!(bf16),
                    _ => product!(f32),
                }
            }
            _ if algo.family == GemmFamily::Wgmma => {
                let g = hopper_desc(desc)
                    .ok_or_else(|| BlasError::Unsupported {
                        what: "matmul of 8-bit inputs on GemmFamily::Wgmma: op(A) = T and op(B) = N only, \
                               leading dimensions and batch strides multiples of 16"
                            .into(),
                    })?
                    .with_alpha_beta(alpha, 0.0)
                    .with_scales(desc.scale_a, desc.scale_b);
                // One launch for the batch where the batched kernel reads the strides, else one
                // per entry.
                let taken = total as u64 * F32;
                let batched = (batch > 1)
                    .then(|| g.with_batch(batch, desc.a.stride, desc.b.stride, m * n))
                    .and_then(|g| self.hopper_plan(&g, taken).ok());
                let plan = match batched {
                    Some(p) => p,
                    None => self
                        .hopper_plan(&g, taken)
                        .map_err(|e| BlasError::Kernel { message: e.to_string() })?,
                };
                macro_rules! run {
                    ($t:ty) => {{
                        let (av, bv) = (
                            a.as_device_slice().reinterpret::<$t>()?,
                            b.as_device_slice().reinterpret::<$t>()?,
                        );
                        if plan.desc().batch() > 1 {
                            plan.run(s, &av, &bv, &mut p)
                                .map_err(|e| BlasError::Kernel { message: e.to_string() })?;
                        } else {
                            for z in 0..batch {
                                let (az, bz) =
                                    (av.slice(z * desc.a.stride..)?, bv.slice(z * desc.b.stride..)?);
                                let mut pz = p.slice_mut(z * m * n..)?;
                                plan.run(s, &az, &bz, &mut pz)
                                    .map_err(|e| BlasError::Kernel { message: e.to_string() })?;
                            }
                        }
                    }};
                }
                if desc.input == MatmulType::E4M3 {
                    run!(E4M3)
                } else {
                    run!(E5M2)
                }
            }
            _ => {
                // 8-bit inputs elsewhere: decoded exactly to f32, then the f32 GEMM.
                let e5 = desc.input == MatmulType::E5M2;
                let (af, bf) = (self.decode_fp8(a, e5)?, self.decode_fp8(b, e5)?);
                self.gemm_strided_batched(
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    scale,
                    &af,
                    desc.a.ld,
                    desc.a.stride,
                    &bf,
                    desc.b.ld,
                    desc.b.stride,
                    0.0f32,
                    &mut p,
                    m,
                    m * n,
                    batch,
                )?;
            }
        }
        // The epilogue.
        let total32 = size32("m * n * batch_count", total)?;
        size32("d", d.len())?;
        let bias_view = match bias {
            Some(v) => v,
            None => self.dummy.as_device_slice().reinterpret::<TB>()?,
        };
        let mut dummy_aux;
        let mut aux_view = match aux {
            Some(v) => v,
            None => {
                dummy_aux = self.workspace::<TO>(1)?;
                dummy_aux.as_device_slice_mut()
            }
        };
        size32("aux", aux_view.len())?;
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(m as u64).push(n as u64).push(batch as u64);
            push_buf(&mut args, &p);
            args.push(beta);
            push_buf(&mut args, d);
            args.push(desc.d.ld as u64).push(desc.d.stride as u64);
            args.push(type_code(<TB as MatmulElement>::TYPE))
                .push(act)
                .push(has_bias as u32)
                .push(has_aux as u32);
            push_buf(&mut args, &bias_view);
            push_buf(&mut args, &aux_view);
            args.push(desc.aux.ld as u64).push(desc.aux.stride as u64);
            return native::launch(s, "matmul_epilogue", <TO as MatmulElement>::TYPE.dtype(), &args);
        }
        let cfg = kernels::cfg(kernels::grid(s, total));
        let mut dv = d.as_device_slice_mut().reinterpret::<TO>()?;
        let (ldd, sd, lx, sx) =
            (desc.d.ld as u32, desc.d.stride as u32, desc.aux.ld as u32, desc.aux.stride as u32);
        let (m32, n32) = (m as u32, n as u32);
        macro_rules! epi {
            ($act:expr) => {
                bools!(has_bias => BIAS, bools!(has_aux => AUX, {
                    kx::matmul_epilogue::launch::<TO, TB, { $act }, BIAS, AUX>(
                        s, cfg, m32, n32, total32, &p, beta, &mut dv, ldd, sd, &bias_view, &mut aux_view, lx, sx,
                    )?
                }))
            };
        }
        match act {
            kx::ACT_RELU => epi!(kx::ACT_RELU),
            kx::ACT_GELU => epi!(kx::ACT_GELU),
            _ => epi!(kx::ACT_NONE),
        }
        Ok(())
    }

    /// The 8-bit floats of `x` decoded to f32 in workspace (same positions).
    fn decode_fp8<T: MatmulElement>(&self, x: &impl AsDeviceSlice<T>, e5: bool) -> Result<DeviceBuffer<f32>> {
        let n = x.len();
        let mut y = self.workspace::<f32>(n)?;
        let bytes = x.as_device_slice().reinterpret::<u8>()?;
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(n as u64).push(e5 as u32);
            push_buf(&mut args, &bytes);
            push_buf(&mut args, &y);
            native::launch(s, "fp8_decode", DataType::F32, &args)?;
        } else {
            let n32 = size32("a/b", n)?;
            let cfg = kernels::cfg(kernels::grid(s, n));
            if e5 {
                kx::fp8_decode::launch::<true>(s, cfg, n32, &bytes, &mut y)?;
            } else {
                kx::fp8_decode::launch::<false>(s, cfg, n32, &bytes, &mut y)?;
            }
        }
        Ok(y)
    }
}

/// The native epilogue's code for the bias type.
fn type_code(t: MatmulType) -> u32 {
    match t {
        MatmulType::F16 => 0,
        MatmulType::BF16 => 1,
        _ => 2,
    }
}

impl MatmulType {
    /// The BLAS data type of a 16- or 32-bit float.
    fn dtype(self) -> DataType {
        match self {
            MatmulType::F16 => DataType::F16,
            MatmulType::BF16 => DataType::BF16,
            _ => DataType::F32,
        }
    }
}

fn real_op(o: Operation) -> Operation {
    if o == Operation::C {
        Operation::T
    } else {
        o
    }
}

/// The description's own rules (types, scales).
fn check_desc(desc: &MatmulDesc) -> Result<()> {
    use MatmulType::*;
    let ok = matches!((desc.input, desc.output), (F16 | BF16 | E4M3 | E5M2, F16 | BF16 | F32) | (F32, F32));
    if !ok {
        return Err(BlasError::Unsupported {
            what: format!(
                "matmul with {:?} inputs and {:?} D (supported: f16, bf16, e4m3 or e5m2 inputs with f16, bf16 or f32 D; f32 with f32)",
                desc.input, desc.output
            ),
        });
    }
    if !desc.scale_a.is_finite() || !desc.scale_b.is_finite() {
        return Err(BlasError::InvalidValue {
            arg: "scale_a/scale_b",
            value: format!("{} / {}", desc.scale_a, desc.scale_b),
            rule: "the scales must be finite",
        });
    }
    Ok(())
}

/// `ferrocm-gemm`'s description of the product (into a packed f32 C), if its Hopper kernel can
/// read the operands as described: 8-bit inputs K-major only (op(A) = T, op(B) = N), TMA's
/// 16-byte rows, batch strides keeping the starts 16-byte aligned. (Buffers must start
/// 16-byte aligned, as allocations do.)
fn hopper_desc(desc: &MatmulDesc) -> Option<ferrocm_gemm::GemmDesc> {
    use ferrocm_gemm::{ElemType, GemmDesc, Layout};
    let ty = match desc.input {
        MatmulType::F16 => ElemType::F16,
        MatmulType::BF16 => ElemType::BF16,
        MatmulType::E4M3 => ElemType::E4M3,
        MatmulType::E5M2 => ElemType::E5M2,
        _ => return None,
    };
    let size = ty.size();
    let (ta, tb) = (real_op(desc.transa), real_op(desc.transb));
    let kmajor = ta == Operation::T && tb == Operation::N;
    let rows16 =
        |l: MatrixLayout| (l.ld * size) % 16 == 0 && (desc.batch_count <= 1 || (l.stride * size) % 16 == 0);
    if (desc.input.is_8bit() && !kmajor) || !rows16(desc.a) || !rows16(desc.b) {
        return None;
    }
    let layout = |o: Operation| if o == Operation::N { Layout::ColMajor } else { Layout::RowMajor };
    Some(
        GemmDesc::new(desc.m, desc.n, desc.k, ty)
            .with_c_type(ElemType::F32)
            .with_layouts(layout(ta), layout(tb), Layout::ColMajor)
            .with_leading_dims(desc.a.ld, desc.b.ld, desc.m.max(1)),
    )
}

impl Handle {
    /// `gemm_strided_batched_ex` with f32 scalars on `family` (the matmul's chosen algorithm).
    #[allow(clippy::too_many_arguments)]
    fn gemm_ex_forced<TI: GemmExType, TO: GemmExType>(
        &self,
        family: Option<GemmFamily>,
        ta: Operation,
        tb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: f32,
        a: &impl AsDeviceSlice<TI>,
        lda: usize,
        sa: usize,
        b: &impl AsDeviceSlice<TI>,
        ldb: usize,
        sb: usize,
        beta: f32,
        c: &mut impl AsDeviceSliceMut<TO>,
        ldc: usize,
        sc: usize,
        batch: usize,
    ) -> Result<()> {
        self.gemm_ex_on(
            family,
            ta,
            tb,
            m,
            n,
            k,
            alpha.into(),
            a,
            lda,
            sa,
            b,
            ldb,
            sb,
            beta.into(),
            c,
            ldc,
            sc,
            batch,
            ComputeType::F32,
        )
    }
}
