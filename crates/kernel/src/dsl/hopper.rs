//! Hopper (sm_90) instructions and the building blocks of a warp-specialized kernel: register
//! fragments, `wgmma` with its matrix descriptors, `mbarrier` objects, TMA copies through
//! tensor-map parameters, clusters and distributed shared memory, named barriers, `elect.sync`,
//! `setmaxnreg`, `stmatrix`, the async-proxy fence, the cooperative grid barrier, and the launch
//! attributes the PTX back end states (`launch_bounds`, `cluster_dims`).
//!
//! Each function emits one intrinsic row of [`ferrocm_ir::intrinsics`]; the row says what the
//! instruction needs (a device without it gets a compile error naming both) and how the CPU
//! executor runs it.

use ferrocm_ir::KernelAttrs;

use super::*;

// ---------------------------------------------------------------- launch attributes

fn set_attrs(f: impl FnOnce(&mut KernelAttrs)) {
    b(|b| {
        let mut a = b.func().attrs;
        f(&mut a);
        b.set_attrs(a)
    })
}

/// The kernel is launched with at most `max_threads` threads per block and `min_blocks` blocks
/// must fit on a multiprocessor (`__launch_bounds__`; PTX `.maxntid`, `.minnctapersm`). The
/// compiler may then give each thread more registers, and `setmaxnreg` needs it; launches with
/// more threads are refused.
pub fn launch_bounds(max_threads: u32, min_blocks: u32) {
    set_attrs(|a| {
        a.max_threads = Some(max_threads);
        a.min_blocks_per_sm = Some(min_blocks);
    })
}

/// Every launch groups blocks into clusters of `x * y * z` blocks (`__cluster_dims__`; PTX
/// `.reqnctapercluster`); the grid must be a whole number of clusters.
pub fn cluster_dims(x: u32, y: u32, z: u32) {
    set_attrs(|a| a.cluster = Some([x, y, z]))
}

// ---------------------------------------------------------------- register fragments

/// A register fragment: `len` values per thread held in registers (a `wgmma` accumulator: N/2
/// f32 for a 64xN tile, up to 128), indexed only by compile-time constants so it never moves to
/// local memory.
pub struct Fragment<T> {
    var: ferrocm_ir::Var,
    len: usize,
    _t: PhantomData<T>,
}

impl<T> Clone for Fragment<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Fragment<T> {}

/// A fragment of `len` elements (2 to 128), each starting at `init`.
pub fn fragment<T: Elem>(len: usize, init: impl IntoVal<T>) -> Fragment<T> {
    let init = init.into_val().v;
    let n = len.clamp(2, Type::MAX_LANES as usize) as u8;
    let var = b(|b| {
        if len != n as usize {
            b.fail(BuildError::Unsupported {
                what: format!("a fragment of {len} elements"),
                why: format!("fragments have 2 to {} elements", Type::MAX_LANES),
            });
        }
        let var = b.var("frag", Type::Vector(T::TY, n));
        for k in 0..n {
            b.write_var_lane(var, k, init);
        }
        var
    });
    Fragment { var, len: n as usize, _t: PhantomData }
}

impl<T: Elem> Fragment<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `k` (a compile-time index).
    pub fn get(&self, k: usize) -> Val<T> {
        let var = self.var;
        Val::from_ir(b(|b| b.read_var_lane(var, k as u8)))
    }

    /// Sets element `k` (a compile-time index).
    pub fn set(&self, k: usize, v: impl IntoVal<T>) {
        let (var, v) = (self.var, v.into_val().v);
        b(|b| b.write_var_lane(var, k as u8, v))
    }

    /// Sets every element to `v`.
    pub fn fill(&self, v: impl IntoVal<T>) {
        let v = v.into_val();
        for k in 0..self.len {
            self.set(k, v);
        }
    }

    /// The IR variable holding the fragment.
    pub fn ir(&self) -> ferrocm_ir::Var {
        self.var
    }
}

// ---------------------------------------------------------------- wgmma

/// Input types of `wgmma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaType {
    F16,
    BF16,
    /// f32 data read as tf32 (the top 19 bits).
    TF32,
    /// 8-bit float, 4 exponent and 3 mantissa bits.
    E4M3,
    /// 8-bit float, 5 exponent and 2 mantissa bits.
    E5M2,
}

impl MmaType {
    fn imm(self) -> i64 {
        self as i64
    }

    /// K of one instruction: 16 for f16/bf16, 8 for tf32, 32 for the 8-bit types.
    pub fn k(self) -> u32 {
        match self {
            MmaType::F16 | MmaType::BF16 => 16,
            MmaType::TF32 => 8,
            _ => 32,
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> u32 {
        match self {
            MmaType::F16 | MmaType::BF16 => 2,
            MmaType::TF32 => 4,
            _ => 1,
        }
    }
}

/// The shape and options of one `wgmma.mma_async`: `D[64 x n] (+)= A[64 x K] * B[n x K]^T` with
/// f32 accumulators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wgmma {
    /// N: a multiple of 8 from 8 to 256.
    pub n: u32,
    pub a: MmaType,
    pub b: MmaType,
    /// A is M-major in shared memory (16-bit types only).
    pub trans_a: bool,
    /// B is N-major in shared memory (16-bit types only).
    pub trans_b: bool,
    pub neg_a: bool,
    pub neg_b: bool,
}

impl Wgmma {
    /// `m64n{n}` with both inputs of type `ty`, K-major, not negated.
    pub fn new(n: u32, ty: MmaType) -> Wgmma {
        Wgmma { n, a: ty, b: ty, trans_a: false, trans_b: false, neg_a: false, neg_b: false }
    }
    /// B of another 8-bit type (e4m3 with e5m2).
    pub fn with_b(self, b: MmaType) -> Wgmma {
        Wgmma { b, ..self }
    }
    pub fn trans_a(self) -> Wgmma {
        Wgmma { trans_a: true, ..self }
    }
    pub fn trans_b(self) -> Wgmma {
        Wgmma { trans_b: true, ..self }
    }
    pub fn neg_a(self) -> Wgmma {
        Wgmma { neg_a: true, ..self }
    }
    pub fn neg_b(self) -> Wgmma {
        Wgmma { neg_b: true, ..self }
    }

    fn imms(self, regs: bool) -> [(&'static str, i64); 8] {
        [
            ("n", self.n as i64),
            ("atype", self.a.imm()),
            ("btype", self.b.imm()),
            ("rs", regs as i64),
            ("ta", self.trans_a as i64),
            ("tb", self.trans_b as i64),
            ("na", self.neg_a as i64),
            ("nb", self.neg_b as i64),
        ]
    }

    /// An accumulator fragment for this shape (N/2 f32 per thread), zeroed.
    pub fn accumulator(self) -> Fragment<f32> {
        fragment::<f32>(self.n as usize / 2, 0.0f32)
    }
}

fn wgmma_call(op: Wgmma, regs: bool, acc: &Fragment<f32>, a: Value, b_desc: Val<u64>, scale_d: Val<bool>) {
    let imms = op.imms(regs);
    let call = Call::new(&intrinsics::wgmma::MMA, &imms, &[], &[acc.var]);
    b(|b| b.intrinsic(call, vec![a, b_desc.v, scale_d.v]));
}

/// `wgmma.mma_async` with A and B in shared memory (matrix descriptors): `acc = A B^T + (scale_d
/// ? acc : 0)`, asynchronously. The whole warpgroup (four consecutive warps) executes it; the
/// accumulators are readable after [`wgmma_commit`] and a [`wgmma_wait`] covering the group.
pub fn wgmma(
    op: Wgmma,
    acc: &Fragment<f32>,
    a_desc: Val<u64>,
    b_desc: Val<u64>,
    scale_d: impl IntoVal<bool>,
) {
    wgmma_call(op, false, acc, a_desc.v, b_desc, scale_d.into_val())
}

/// `wgmma.mma_async` with A from registers (4 u32 per thread, the `mma.m16n8k16` A layout for
/// 16-bit types) and B in shared memory.
pub fn wgmma_rs(op: Wgmma, acc: &Fragment<f32>, a: Vec4<u32>, b_desc: Val<u64>, scale_d: impl IntoVal<bool>) {
    wgmma_call(op, true, acc, a.v, b_desc, scale_d.into_val())
}

/// `wgmma.fence`: before the first `wgmma` that reads registers or accumulators written since.
pub fn wgmma_fence() {
    intrinsic(&intrinsics::wgmma::FENCE, &[], &[], vec![])
}

/// `wgmma.commit_group`: closes the group of `wgmma` operations issued since the last commit.
pub fn wgmma_commit() {
    intrinsic(&intrinsics::wgmma::COMMIT, &[], &[], vec![])
}

/// `wgmma.wait_group`: waits until at most `pending` (0 to 7) committed groups are in flight.
pub fn wgmma_wait(pending: u32) {
    intrinsic(&intrinsics::wgmma::WAIT, &[("pending", pending as i64)], &[], vec![])
}

/// Shared-memory layouts of matrix operands (and of TMA boxes): the swizzle mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    None,
    B32,
    B64,
    B128,
}

impl Swizzle {
    fn descriptor_mode(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B128 => 1,
            Swizzle::B64 => 2,
            Swizzle::B32 => 3,
        }
    }
}

/// The 64-bit `wgmma` matrix descriptor of a shared-memory operand that starts at element
/// `index` of `smem`: its shared address, the leading- and stride-dimension byte offsets (the
/// distances between 8x16-byte core matrices along K and along M/N for K-major operands without
/// swizzle; see `ferrocm_ir::intrinsics::wgmma` for every layout) and the swizzle. Adding
/// `bytes / 16` to a descriptor moves its start by `bytes`.
pub fn matrix_descriptor<T: Elem>(
    smem: &Shared<T>,
    index: impl Index,
    swizzle: Swizzle,
    leading_bytes: u32,
    stride_bytes: u32,
) -> Val<u64> {
    let addr = shared_addr(smem, index);
    let fields = ((leading_bytes as u64 >> 4) & 0x3fff) << 16
        | ((stride_bytes as u64 >> 4) & 0x3fff) << 32
        | swizzle.descriptor_mode() << 62;
    let start: Val<u64> = cast::<u64, _>((addr & 0x3ffffu32) >> 4u32);
    start | fields
}

/// The shared-window byte address of element `index` of `smem` (a `u32`).
pub fn shared_addr<T: Elem>(smem: &Shared<T>, index: impl Index) -> Val<u32> {
    let (m, i) = (smem.mem(), index.index());
    Val::from_ir(intrinsic_value(
        &intrinsics::atomic::SHARED_ADDR,
        &[],
        &[m],
        vec![i],
        ScalarType::U32.into(),
    ))
}

// ---------------------------------------------------------------- mbarrier

/// An array of `mbarrier` objects in shared memory: phase-tracking barriers with an arrival
/// count and a transaction (byte) count, the synchronization of TMA copies and of
/// producer/consumer pipelines.
#[derive(Clone, Copy)]
pub struct Barriers {
    mem: Shared<u64>,
}

impl Barriers {
    /// `n` barriers (initialize each with [`Barriers::init`] before use).
    pub fn new(n: usize) -> Barriers {
        Barriers { mem: shared_array_aligned::<u64>(n, 16) }
    }

    fn call(&self, def: &'static Def, args: Vec<Value>) {
        intrinsic(def, &[], &[self.mem.mem()], args)
    }

    /// `mbarrier.init`: barrier `i` starts in phase 0 and completes a phase after `count`
    /// arrivals (and the bytes it expects). One thread initializes; a block barrier (and for
    /// cluster use [`fence_mbarrier_init`] and a cluster barrier) must follow before others use it.
    pub fn init(&self, i: impl Index, count: impl IntoVal<u32>) {
        self.call(&intrinsics::mbarrier::INIT, vec![i.index(), count.into_val().v])
    }

    /// One arrival per executing thread.
    pub fn arrive(&self, i: impl Index) {
        self.call(&intrinsics::mbarrier::ARRIVE, vec![i.index()])
    }

    /// Raises the bytes the current phase waits for by `bytes`, then arrives (the thread that
    /// issues a TMA load into the stage).
    pub fn arrive_expect_tx(&self, i: impl Index, bytes: impl IntoVal<u32>) {
        self.call(&intrinsics::mbarrier::ARRIVE_EXPECT_TX, vec![i.index(), bytes.into_val().v])
    }

    /// Raises the bytes the current phase waits for, without arriving.
    pub fn expect_tx(&self, i: impl Index, bytes: impl IntoVal<u32>) {
        self.call(&intrinsics::mbarrier::EXPECT_TX, vec![i.index(), bytes.into_val().v])
    }

    /// Whether the phase of parity `parity` (0 or 1) of barrier `i` has completed, after waiting
    /// a while for it (`mbarrier.try_wait.parity`, sm_90).
    pub fn try_wait(&self, i: impl Index, parity: impl IntoVal<u32>) -> Val<bool> {
        let args = vec![i.index(), parity.into_val().v];
        Val::from_ir(intrinsic_value(&intrinsics::mbarrier::TRY_WAIT, &[], &[self.mem.mem()], args, BOOL_TY))
    }

    /// Whether the phase of parity `parity` has completed, without waiting (sm_80).
    pub fn test_wait(&self, i: impl Index, parity: impl IntoVal<u32>) -> Val<bool> {
        let args = vec![i.index(), parity.into_val().v];
        Val::from_ir(intrinsic_value(&intrinsics::mbarrier::TEST_WAIT, &[], &[self.mem.mem()], args, BOOL_TY))
    }

    /// Waits until the phase of parity `parity` of barrier `i` has completed.
    pub fn wait(&self, i: impl Index + Copy, parity: impl IntoVal<u32> + Copy) {
        let bars = *self;
        loop_(move || {
            let done = bars.try_wait(i, parity);
            if_else(done, break_, || ());
        });
    }

    /// One arrival on barrier `i` in the shared memory of the cluster's CTA `rank`.
    pub fn arrive_remote(&self, i: impl Index, rank: impl IntoVal<u32>) {
        self.call(&intrinsics::mbarrier::ARRIVE_REMOTE, vec![i.index(), rank.into_val().v])
    }

    /// [`Barriers::arrive_remote`] that releases at CTA scope only: no cluster-wide fence (which
    /// costs a GPU-wide memory barrier per arrival). For a CTA telling a partner that it is done
    /// reading something asynchronously (a stage whose `wgmma` group has retired), with no write
    /// of its own to publish.
    pub fn arrive_remote_cta(&self, i: impl Index, rank: impl IntoVal<u32>) {
        self.call(&intrinsics::mbarrier::ARRIVE_REMOTE_CTA, vec![i.index(), rank.into_val().v])
    }

    /// The shared array holding the barriers.
    pub fn memory(&self) -> Shared<u64> {
        self.mem
    }
}

const BOOL_TY: Type = Type::Scalar(ScalarType::Bool);

// ---------------------------------------------------------------- TMA

/// A tensor-map kernel parameter (`CUtensorMap`, 128 bytes by value): the tensor TMA copies
/// boxes of. Launch with a [`crate::runtime::TensorMap`] on a device, a [`crate::HostTensorMap`]
/// on the executor.
#[derive(Clone, Copy)]
pub struct TensorMap {
    mem: Mem,
}

/// Declares a tensor-map parameter (the macro does this for parameters of type `TensorMap`).
pub fn tensor_map_param(name: &str) -> TensorMap {
    TensorMap { mem: b(|b| b.tensor_map_param(name)) }
}

/// The coordinates of a box's first element, dimension 0 (innermost) first: 1 to 5 `i32`s.
pub trait Coords {
    fn values(self) -> Vec<Value>;
}
impl<const R: usize> Coords for [Val<i32>; R] {
    fn values(self) -> Vec<Value> {
        self.iter().map(|v| v.v).collect()
    }
}
impl<const R: usize> Coords for [i32; R] {
    fn values(self) -> Vec<Value> {
        self.iter().map(|&v| Val::constant(v).v).collect()
    }
}
impl Coords for &[Val<i32>] {
    fn values(self) -> Vec<Value> {
        self.iter().map(|v| v.v).collect()
    }
}
/// Compile-time coordinates (a `#[comptime]` list).
impl Coords for &[i32] {
    fn values(self) -> Vec<Value> {
        self.iter().map(|&v| Val::constant(v).v).collect()
    }
}
impl Coords for &Vec<i32> {
    fn values(self) -> Vec<Value> {
        self.as_slice().values()
    }
}

fn dims_imm(rank: usize) -> i64 {
    if !(1..=5).contains(&rank) {
        fail(BuildError::Unsupported {
            what: format!("a TMA copy with {rank} coordinates"),
            why: "tensors have 1 to 5 dimensions".into(),
        });
    }
    rank.clamp(1, 5) as i64 - 1
}

impl TensorMap {
    /// Copies the box at `coords` to `dst` from element `dst_index` (128-byte aligned; laid out
    /// densely, swizzled as the map says), and completes its bytes on barrier `bar[bar_index]`.
    pub fn load<T: Elem>(
        &self,
        dst: &Shared<T>,
        dst_index: impl Index,
        bar: &Barriers,
        bar_index: impl Index,
        coords: impl Coords,
    ) {
        let c = coords.values();
        let dims = dims_imm(c.len());
        let mut args = vec![dst_index.index(), bar_index.index()];
        args.extend(c);
        intrinsic(&intrinsics::tma::LOAD, &[("dims", dims)], &[dst.mem(), self.mem, bar.mem.mem()], args);
    }

    /// [`TensorMap::load`] into the same place of every CTA of the cluster whose bit is set in
    /// `cta_mask`, completing on the barrier at the same place in each.
    pub fn load_multicast<T: Elem>(
        &self,
        dst: &Shared<T>,
        dst_index: impl Index,
        bar: &Barriers,
        bar_index: impl Index,
        coords: impl Coords,
        cta_mask: impl IntoVal<u16>,
    ) {
        let c = coords.values();
        let dims = dims_imm(c.len());
        let mut args = vec![dst_index.index(), bar_index.index()];
        args.extend(c);
        args.push(cta_mask.into_val().v);
        let imms = [("dims", dims), ("multicast", 1)];
        intrinsic(&intrinsics::tma::LOAD, &imms, &[dst.mem(), self.mem, bar.mem.mem()], args);
    }

    /// Copies the box at `coords` from `src` (from element `src_index`) to the tensor, skipping
    /// elements outside it. Shared memory written by ordinary stores needs [`fence_proxy_async`]
    /// first; the copy is complete after [`bulk_commit`] and a [`bulk_wait`] covering it.
    pub fn store<T: Elem>(&self, src: &Shared<T>, src_index: impl Index, coords: impl Coords) {
        let c = coords.values();
        let dims = dims_imm(c.len());
        let mut args = vec![src_index.index()];
        args.extend(c);
        intrinsic(&intrinsics::tma::STORE, &[("dims", dims)], &[self.mem, src.mem()], args);
    }
}

/// Closes the bulk group of TMA stores issued since the last commit.
pub fn bulk_commit() {
    intrinsic(&intrinsics::async_copy::BULK_COMMIT, &[], &[], vec![])
}

/// Waits until at most `pending` bulk groups of this thread are in flight (complete, writes
/// visible).
pub fn bulk_wait(pending: u32) {
    intrinsic(&intrinsics::async_copy::BULK_WAIT, &[("pending", pending as i64)], &[], vec![])
}

/// Waits until at most `pending` bulk groups have finished reading their shared memory.
pub fn bulk_wait_read(pending: u32) {
    intrinsic(&intrinsics::async_copy::BULK_WAIT, &[("pending", pending as i64), ("read", 1)], &[], vec![])
}

/// Makes this thread's shared-memory writes visible to asynchronous operations (TMA stores,
/// `wgmma` operands), after a following barrier.
pub fn fence_proxy_async() {
    intrinsic(&intrinsics::atomic::FENCE_PROXY_ASYNC, &[], &[], vec![])
}

/// Makes this thread's `mbarrier` initializations visible to the cluster.
pub fn fence_mbarrier_init() {
    intrinsic(&intrinsics::atomic::FENCE_MBARRIER_INIT, &[], &[], vec![])
}

// ---------------------------------------------------------------- clusters

/// Arrives at the cluster barrier.
pub fn cluster_arrive() {
    intrinsic(&intrinsics::cluster::ARRIVE, &[], &[], vec![])
}

/// Waits until every thread of the cluster has arrived at the cluster barrier.
pub fn cluster_wait() {
    intrinsic(&intrinsics::cluster::WAIT, &[], &[], vec![])
}

/// Arrives at the cluster barrier and waits for the whole cluster.
pub fn cluster_sync() {
    cluster_arrive();
    cluster_wait();
}

/// Element `index` of the same shared array in the cluster's CTA `rank` (distributed shared
/// memory).
pub fn dsmem_load<T: Elem>(smem: &Shared<T>, index: impl Index, rank: impl IntoVal<u32>) -> Val<T> {
    let args = vec![index.index(), rank.into_val().v];
    Val::from_ir(intrinsic_value(&intrinsics::cluster::DSMEM_LOAD, &[], &[smem.mem()], args, T::TY.into()))
}

/// Elements `index` and `index + 1` (`index` even) of the same shared array in the cluster's
/// CTA `rank`, in one access (`ld.shared::cluster.v2`).
pub fn dsmem_load2<T: Elem>(smem: &Shared<T>, index: impl Index, rank: impl IntoVal<u32>) -> VecVal<T, 2> {
    let args = vec![index.index(), rank.into_val().v];
    VecVal::from_ir_value(intrinsic_value(
        &intrinsics::cluster::DSMEM_LOAD2,
        &[],
        &[smem.mem()],
        args,
        Type::Vector(T::TY, 2),
    ))
}

/// Writes element `index` of the same shared array in the cluster's CTA `rank`.
pub fn dsmem_store<T: Elem>(
    smem: &Shared<T>,
    index: impl Index,
    rank: impl IntoVal<u32>,
    v: impl IntoVal<T>,
) {
    let args = vec![index.index(), rank.into_val().v, v.into_val().v];
    intrinsic(&intrinsics::cluster::DSMEM_STORE, &[], &[smem.mem()], args)
}

/// Writes elements `index` and `index + 1` (`index` even) of the same shared array in the
/// cluster's CTA `rank`, in one access (`st.shared::cluster.v2`).
pub fn dsmem_store2<T: Elem>(smem: &Shared<T>, index: impl Index, rank: impl IntoVal<u32>, v: VecVal<T, 2>) {
    let args = vec![index.index(), rank.into_val().v, v.v];
    intrinsic(&intrinsics::cluster::DSMEM_STORE2, &[], &[smem.mem()], args)
}

macro_rules! cluster_specials {
    ($($(#[$m:meta])* $name:ident => $s:expr;)*) => {$(
        $(#[$m])*
        pub fn $name() -> Val<u32> {
            Val::from_ir(b(|b| b.special($s)))
        }
    )*};
}
cluster_specials! {
    /// The block's rank within its cluster (`%cluster_ctarank`).
    cluster_rank => Special::ClusterRank;
    /// Blocks per cluster (`%cluster_nctarank`).
    cluster_size => Special::ClusterSize;
    /// The block's x position within its cluster.
    cluster_block_idx_x => Special::ClusterBlockIdx(Axis::X);
    cluster_block_idx_y => Special::ClusterBlockIdx(Axis::Y);
    cluster_block_idx_z => Special::ClusterBlockIdx(Axis::Z);
    /// The cluster's width in blocks.
    cluster_dim_x => Special::ClusterDim(Axis::X);
    cluster_dim_y => Special::ClusterDim(Axis::Y);
    cluster_dim_z => Special::ClusterDim(Axis::Z);
    /// The cluster's x position in the grid of clusters.
    cluster_idx_x => Special::ClusterIdx(Axis::X);
    cluster_idx_y => Special::ClusterIdx(Axis::Y);
    cluster_idx_z => Special::ClusterIdx(Axis::Z);
}

// ---------------------------------------------------------------- warps, warpgroups, the grid

/// True in exactly one active lane of the warp (`elect.sync`; which one is not specified).
pub fn elect_one() -> Val<bool> {
    Val::from_ir(intrinsic_value(&intrinsics::warp::ELECT, &[], &[], vec![], BOOL_TY))
}

/// Named barrier `id` (1 to 15; 0 is [`sync_threads`]'s) of `threads` threads (a multiple of 32):
/// arrives and waits until `threads` threads have arrived.
pub fn named_barrier_sync(id: impl IntoVal<u32>, threads: impl IntoVal<u32>) {
    let args = vec![id.into_val().v, threads.into_val().v];
    intrinsic(&intrinsics::warp::NAMED_BARRIER, &[("kind", 0)], &[], args)
}

/// Arrives at named barrier `id` of `threads` threads without waiting (a producer signalling
/// consumers that sync on it).
pub fn named_barrier_arrive(id: impl IntoVal<u32>, threads: impl IntoVal<u32>) {
    let args = vec![id.into_val().v, threads.into_val().v];
    intrinsic(&intrinsics::warp::NAMED_BARRIER, &[("kind", 1)], &[], args)
}

/// Raises the registers per thread of the executing warpgroup to `regs` (24 to 256, a
/// multiple of 8; sm_90a). Needs [`launch_bounds`].
pub fn setmaxnreg_inc(regs: u32) {
    intrinsic(&intrinsics::wgmma::SETMAXNREG, &[("dir", 0), ("regs", regs as i64)], &[], vec![])
}

/// Lowers the registers per thread of the executing warpgroup to `regs` (a producer warpgroup
/// giving registers to consumers).
pub fn setmaxnreg_dec(regs: u32) {
    intrinsic(&intrinsics::wgmma::SETMAXNREG, &[("dir", 1), ("regs", regs as i64)], &[], vec![])
}

/// Every thread of a cooperative launch arrives before any goes on. Launch with
/// `LaunchConfig::cooperative` and a grid whose blocks can all be resident at once.
pub fn grid_sync() {
    intrinsic(&intrinsics::warp::GRID_SYNC, &[], &[], vec![])
}

fn stmatrix_call<H: Elem>(s: &Shared<H>, row_start: impl Index, regs: Value, num: i64, trans: bool) {
    let args = vec![row_start.index(), regs];
    intrinsic(&intrinsics::tensor::STMATRIX, &[("num", num), ("trans", trans as i64)], &[s.mem()], args)
}

/// `stmatrix .x4`: stores four 8x8 matrices of 16-bit elements (the inverse of
/// [`ldmatrix_x4`]); lane `8m + r` gives the element index where row `r` of matrix `m` starts.
pub fn stmatrix_x4<H: Elem>(s: &Shared<H>, row_start: impl Index, regs: Vec4<u32>) {
    stmatrix_call(s, row_start, regs.v, 4, false)
}
/// [`stmatrix_x4`] with each matrix transposed.
pub fn stmatrix_x4_trans<H: Elem>(s: &Shared<H>, row_start: impl Index, regs: Vec4<u32>) {
    stmatrix_call(s, row_start, regs.v, 4, true)
}
/// `stmatrix .x2`.
pub fn stmatrix_x2<H: Elem>(s: &Shared<H>, row_start: impl Index, regs: Vec2<u32>) {
    stmatrix_call(s, row_start, regs.v, 2, false)
}
/// `stmatrix .x1`.
pub fn stmatrix_x1<H: Elem>(s: &Shared<H>, row_start: impl Index, reg: Val<u32>) {
    stmatrix_call(s, row_start, reg.v, 1, false)
}
