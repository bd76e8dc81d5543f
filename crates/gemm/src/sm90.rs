//! The Hopper (sm_90a) kernel: a persistent, warp-specialized TMA + `wgmma` GEMM.
//!
//! `C[m x n] = alpha * A[m x k] * B[k x n] + beta * C` with f16, bf16, tf32, e4m3 or e5m2 inputs,
//! f32 accumulation and an f32, f16 or bf16 row-major C. One block of 384 threads per multiprocessor walks output
//! tiles of `BM x bn` in a grouped order (`group_m` tile rows share each column sweep, so the B
//! panels they read stay in L2):
//! - warpgroup 0, the producer, gives up registers (`setmaxnreg` 40) and one thread of it moves
//!   the A and B tiles of each 128-byte K step into a `stages`-deep ring of shared memory with TMA,
//!   signalling `full[s]` through the copies' transaction bytes;
//! - warpgroups 1 and 2, the consumers (`setmaxnreg` 232), each own 64 rows of the tile: a
//!   64 x bn f32 accumulator (bn / 2 registers per thread) fed by `wgmma m64n{bn}k16` straight
//!   from the swizzled shared tiles, releasing stage `s` on `empty[s]` once the `wgmma` group
//!   that read it has retired (one group stays in flight), then writing their rows of C.
//!
//! Two epilogues share that body (a `TileStore`). [`gemm_sm90_tma`] (16-bit C with 16-byte
//! aligned rows: the planner's default there) writes each consumer's 64 x bn rows with
//! `stmatrix` into its own C buffer after the ring (bn / 64 boxes of 64 x 64, 128-byte swizzled)
//! and one thread of the consumer stores the boxes with TMA; the consumer goes on to the next
//! tile while they drain, and waits for them to have read the buffer only before writing it
//! again, a tile later (with beta != 0 the old C is loaded into the buffer by TMA and read back
//! with `ldmatrix` first). [`gemm_sm90`] writes C from the registers with plain stores (any C
//! type and alignment).
//!
//! Every stage holds 128 bytes of K per row (one 128-byte swizzle row): 32 tf32 (f32) elements, 64
//! 16-bit ones or 128 8-bit ones, and every `wgmma` consumes 32 bytes of it (K 8, 16 or 32), so
//! the ring, the TMA boxes and the descriptors are the same in bytes for every input type. tf32
//! inputs must be K-major (`wgmma` has no transpose for them); the TMA copies move the f32 bits
//! unchanged and the tensor cores read the top 19 of each. 8-bit inputs differ in two ways: they
//! must be K-major too, and their sums are promoted: Hopper's tensor cores keep fewer bits in fp8
//! accumulation than f32 has (DeepGEMM's finding), so each stage's `wgmma`s start from zero and
//! their 128-K partial sum is added by the CUDA cores into a second f32 accumulator, which the
//! epilogue writes.
//!
//! Operands may be K-major (A row-major, B column-major) or M/N-major (A column-major, B
//! row-major): TMA lays each out in the 128-byte-swizzled canonical form `wgmma` reads, and the
//! instruction's transpose bits say which. Edges need no special code: TMA fills the parts of a
//! box outside the matrix with zeros, TMA stores clip boxes at C's edges, and the register
//! epilogue skips rows and columns outside C.

use ferrocm_kernel::dsl::{
    bf16_from_bits, cast, f16_from_bits, pack_half2, vec2, vec4, Elem, IntoVal, SliceMut,
};
use ferrocm_kernel::f16;
use ferrocm_kernel::prelude::*;

/// Rows of the block tile (two consumer warpgroups of 64).
pub const BM: u32 = 128;
/// Bytes of K per pipeline stage and tile row: one 128-byte swizzle row (32 tf32 elements, 64
/// 16-bit ones, 128 8-bit ones).
pub const ROW_BYTES: u32 = 128;
/// Bytes of K one `wgmma` consumes per row (K 8 of tf32, K 16 of 16-bit types, K 32 of 8-bit
/// ones).
const STEP_BYTES: u32 = 32;
/// Threads per block: one producer and two consumer warpgroups.
pub const THREADS: u32 = 384;
/// Columns of one TMA store box of C: 128 bytes of 16-bit elements, the 128-byte swizzle's span.
const C_BOX: u32 = 64;
/// Bytes of one C box in shared memory (64 rows of 128 bytes).
const C_BOX_BYTES: u32 = 64 * 128;

/// The compile-time shape of one kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// `F16`, `BF16`, `TF32`, `E4M3` or `E5M2` (both operands; tf32 and 8-bit ones K-major
    /// only).
    pub input: MmaType,
    /// Columns of the block tile, the `wgmma` N: a multiple of 64 from 64 to 256.
    pub bn: u32,
    /// Shared-memory ring depth.
    pub stages: u32,
    /// A is row-major (K contiguous); else column-major.
    pub a_k_major: bool,
    /// B is column-major (K contiguous); else row-major.
    pub b_k_major: bool,
    /// Tile rows that share a sweep over the tile columns.
    pub group_m: u32,
    /// Blocks per cluster along M (1 or 2): the pair works on vertically adjacent tiles and each
    /// loads half of their common B tile, multicast to both.
    pub cluster_m: u32,
    /// C's start and row pitch are even (in elements): whole tiles store column pairs with one
    /// access each (the register epilogue of [`gemm_sm90`]).
    pub pair_stores: bool,
    /// The epilogue goes through shared memory: each consumer warpgroup writes its 64 x bn rows
    /// with `stmatrix` into a C buffer after the ring and one thread stores them with TMA while
    /// the warpgroup starts the next tile ([`gemm_sm90_tma`]; 16-bit C, beta 0).
    pub tma_store: bool,
    /// The launch walks `batch` products: work item `u` is tile `u % tiles` of product
    /// `u / tiles`, the operands' tensor maps have the batch as a third (outermost) dimension
    /// and C's batch offset is `batch * stride_c` (see [`gemm_sm90`]).
    pub batched: bool,
    /// Split-K (with `batched`): the "products" are slices of K, `k_split` k-tiles each (the
    /// last one shorter), all reading the same A and B (rank-2 maps) and writing their f32
    /// partial sums to consecutive `m x n` matrices of a workspace ([`gemm_sm90`] into f32,
    /// alpha 1, beta 0), which [`reduce_split_k`] sums.
    pub split_k: bool,
}

impl Config {
    /// K per pipeline stage, in elements.
    pub fn bk(&self) -> u32 {
        ROW_BYTES / self.input.bytes()
    }

    /// Elements of one 128-byte span of an M/N-major operand (16-bit types).
    fn span(&self) -> u32 {
        ROW_BYTES / self.input.bytes()
    }

    /// Whether partial sums are promoted into a second accumulator every stage (8-bit inputs).
    pub fn promotes(&self) -> bool {
        self.input.bytes() == 1
    }

    /// Bytes of A in one stage.
    pub fn a_stage(&self) -> u32 {
        BM * ROW_BYTES
    }

    /// Bytes of B in one stage.
    pub fn b_stage(&self) -> u32 {
        self.bn * ROW_BYTES
    }

    /// Bytes of the stage ring.
    pub fn ring_bytes(&self) -> u32 {
        self.stages * (self.a_stage() + self.b_stage())
    }

    /// Bytes of one consumer warpgroup's C buffer (64 x bn 16-bit elements, in boxes of 64
    /// columns), or 0 without [`Config::tma_store`].
    pub fn c_buffer(&self) -> u32 {
        if self.tma_store {
            64 * self.bn * 2
        } else {
            0
        }
    }

    /// Dynamic shared memory a block needs: the ring, then the two consumers' C buffers
    /// (barriers are static).
    pub fn shared_bytes(&self) -> u32 {
        self.ring_bytes() + 2 * self.c_buffer()
    }

    /// The TMA box of C (16-bit elements): 64 columns (one 128-byte swizzle row) by 64 rows.
    pub fn c_box(&self) -> [u32; 2] {
        [C_BOX, 64]
    }

    /// The TMA box of A: `[inner, outer]` in elements.
    pub fn a_box(&self) -> [u32; 2] {
        if self.a_k_major {
            [self.bk(), BM]
        } else {
            [self.span(), self.bk()]
        }
    }

    /// The TMA box of B.
    pub fn b_box(&self) -> [u32; 2] {
        if self.b_k_major {
            [self.bk(), self.bn / self.cluster_m]
        } else {
            [self.span(), self.bk()]
        }
    }

    fn op(&self) -> Wgmma {
        let mut op = Wgmma::new(self.bn, self.input);
        if !self.a_k_major {
            op = op.trans_a();
        }
        if !self.b_k_major {
            op = op.trans_b();
        }
        op
    }
}

/// The (tile row, tile column) of persistent work item `tile`: groups of `group` tile rows, each
/// group swept column by column, rows fastest within a column.
#[device]
fn tile_coords(tile: u32, tiles_m: u32, tiles_n: u32, #[comptime] group: u32) -> (Val<u32>, Val<u32>) {
    let per_group = tiles_n * group;
    let first = (tile / per_group) * group;
    let rows = (tiles_m - first).min(group);
    let within = tile % per_group;
    (first + within % rows, within / rows)
}

/// The (product, tile) of work item `item`: items run through one product's tiles, then the
/// next's. Unbatched kernels have one product.
fn batch_coords(cfg: &Config, item: Val<u32>, num_tiles: Val<u32>) -> (Val<u32>, Val<u32>) {
    if cfg.batched {
        (item / num_tiles, item % num_tiles)
    } else {
        (Val::constant(0u32), item)
    }
}

/// The k-tiles `[kt0, kt1)` product `bz` sums: all of them, or slice `bz` of `k_split` under
/// split-K (the planner makes every slice non-empty).
fn k_range(cfg: &Config, bz: Val<u32>, k_split: Val<u32>, k_tiles: Val<u32>) -> (Val<u32>, Val<u32>) {
    if cfg.split_k {
        let kt0 = bz * k_split;
        (kt0, (kt0 + k_split).min(k_tiles))
    } else {
        (Val::constant(0u32), k_tiles)
    }
}

/// Issues the TMA copies of one operand tile (`rows` x `bk` at `(k0, mn0)`) into the ring at
/// byte `at`, completing on `full[s]`. With `parts` > 1 the tile is shared by the `parts`
/// blocks of a cluster: this block copies part `part` of it into every block (multicast).
#[allow(clippy::too_many_arguments)]
fn load_operand(
    cfg: &Config,
    map: &TensorMap,
    smem: &Shared<u8>,
    at: Val<u32>,
    full: &Barriers,
    s: Val<u32>,
    k0: Val<i32>,
    mn0: Val<i32>,
    rows: u32,
    k_major: bool,
    parts: u32,
    part: Val<u32>,
    bz: Val<i32>,
) {
    let mask = ((1u32 << parts) - 1) as u16;
    // The box's coordinates, plus the batch (the outermost dimension) in a batched launch.
    let at_batch = |x: Val<i32>, y: Val<i32>| -> Vec<Val<i32>> {
        if cfg.batched && !cfg.split_k {
            vec![x, y, bz]
        } else {
            vec![x, y]
        }
    };
    if k_major {
        if parts == 1 {
            map.load(smem, at, full, s, at_batch(k0, mn0).as_slice());
        } else {
            let r = rows / parts;
            let row = mn0 + cast::<i32, _>(part * r);
            map.load_multicast(
                smem,
                at + part * (r * ROW_BYTES),
                full,
                s,
                at_batch(k0, row).as_slice(),
                mask,
            );
        }
    } else {
        // Spans of `span` M/N elements by bk K rows of 128 bytes.
        let (span, span_bytes) = (cfg.span(), cfg.bk() * ROW_BYTES);
        let spans = rows / span;
        if parts == 1 {
            for j in 0..spans {
                let coords = at_batch(mn0 + (j * span) as i32, k0);
                map.load(smem, at + j * span_bytes, full, s, coords.as_slice());
            }
        } else {
            for j in 0..spans / parts {
                let q = part * (spans / parts) + j;
                let col = mn0 + cast::<i32, _>(q * span);
                map.load_multicast(smem, at + q * span_bytes, full, s, at_batch(col, k0).as_slice(), mask);
            }
        }
    }
}

/// The `wgmma` descriptor of k-step `kk` of an operand tile starting at byte `at` (from `row0`
/// of the tile, a multiple of 64).
fn descriptor(
    cfg: &Config,
    smem: &Shared<u8>,
    at: Val<u32>,
    row0: impl IntoVal<u32>,
    kk: u32,
    k_major: bool,
) -> Val<u64> {
    if k_major {
        // Rows of 128 bytes in 8-row atoms (1024 bytes apart); k-step kk starts 32 kk bytes in.
        matrix_descriptor(smem, at + row0.into_val() * ROW_BYTES + kk * STEP_BYTES, Swizzle::B128, 16, 1024)
    } else {
        // Spans of 64 rows by bk (8 KiB apart), each 8 k-rows of 128 bytes per 1024-byte atom;
        // a k-step is 16 k-rows. The first span of row0 is row0 / 64 spans in.
        let span_bytes = cfg.bk() * ROW_BYTES;
        matrix_descriptor(
            smem,
            at + row0.into_val() * (span_bytes / 64) + kk * 16 * ROW_BYTES,
            Swizzle::B128,
            span_bytes,
            1024,
        )
    }
}

/// `C = alpha A B + beta C` (see the module docs), the epilogue from registers: `ldc` is C's row
/// pitch in elements; `k` is at least 1 (the first k-step's `wgmma` overwrites the
/// accumulators).
///
/// With `cfg.batched`, `batch` products: product `z` reads batch coordinate `z * batch_a` of
/// `ta` (0 or 1: a broadcast operand's map has one batch entry) and `z * batch_b` of `tb`, and
/// writes C from element `z * stride_c`. Unbatched kernels take `batch` 1 and ignore the rest.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn gemm_sm90<O: Elem>(
    #[comptime] cfg: Config,
    ta: TensorMap,
    tb: TensorMap,
    c: &mut [O],
    m: u32,
    n: u32,
    k: u32,
    ldc: u32,
    alpha: f32,
    beta: f32,
    batch: u32,
    batch_a: u32,
    batch_b: u32,
    stride_c: u64,
    k_split: u32,
) {
    let out = ToGlobal { c, m, n, ldc, alpha, beta, stride_c };
    gemm_body(cfg, ta, tb, &out, m, n, k, batch, batch_a, batch_b, k_split);
}

/// `C = alpha A B + beta C` with the epilogue through shared memory and TMA stores of the tensor
/// `tc` (C's `[n, m]`, row pitch and 128-byte swizzle; boxes of [`Config::c_box`]), overlapped
/// with the next tile's main loop; with beta != 0 the old C comes in by TMA loads of the same
/// boxes. `O` is f16 or bf16; `cfg.tma_store` is set. Batched as [`gemm_sm90`], C's map
/// having the batch as its third dimension.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn gemm_sm90_tma<O: Elem>(
    #[comptime] cfg: Config,
    ta: TensorMap,
    tb: TensorMap,
    tc: TensorMap,
    m: u32,
    n: u32,
    k: u32,
    alpha: f32,
    beta: f32,
    batch: u32,
    batch_a: u32,
    batch_b: u32,
) {
    let out = ToTensor::<O>::new(tc, m, n, alpha, beta);
    gemm_body(cfg, ta, tb, &out, m, n, k, batch, batch_a, batch_b, 0u32);
}

/// Where the consumer warpgroups put finished tiles.
trait TileStore {
    /// Writes consumer `cw`'s 64 rows of tile `(mt, nt)` of product `bz` from its result
    /// fragment `sum`; this is the consumer's tile number `round` (from 0), and `cload[cw]` its
    /// barrier for loads of C.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        cfg: &Config,
        sum: &Fragment<f32>,
        bz: Val<u32>,
        mt: Val<u32>,
        nt: Val<u32>,
        cw: Val<u32>,
        round: Val<u32>,
        cload: &Barriers,
    );
    /// Runs once in each consumer warpgroup after its last tile.
    fn finish(&self, cfg: &Config);
}

/// The register epilogue: each thread writes its accumulator elements to C in global memory
/// (reading C first when beta is not 0).
struct ToGlobal<O: Elem> {
    c: SliceMut<O>,
    m: Val<u32>,
    n: Val<u32>,
    ldc: Val<u32>,
    alpha: Val<f32>,
    beta: Val<f32>,
    /// Elements between consecutive products' C (batched kernels).
    stride_c: Val<u64>,
}

impl<O: Elem> TileStore for ToGlobal<O> {
    fn write(
        &self,
        cfg: &Config,
        sum: &Fragment<f32>,
        bz: Val<u32>,
        mt: Val<u32>,
        nt: Val<u32>,
        cw: Val<u32>,
        _: Val<u32>,
        _: &Barriers,
    ) {
        let base = if cfg.batched { cast::<u64, _>(bz) * self.stride_c } else { Val::constant(0u64) };
        write_global(*cfg, self.c, sum, base, mt, nt, cw, self.m, self.n, self.ldc, self.alpha, self.beta);
    }
    fn finish(&self, _: &Config) {}
}

/// The shared-memory epilogue: `stmatrix` into the consumer's C buffer, TMA stores out of it
/// (and, with beta != 0, TMA loads of the old C into it first).
struct ToTensor<O: Elem> {
    tc: TensorMap,
    m: Val<u32>,
    n: Val<u32>,
    alpha: Val<f32>,
    beta: Val<f32>,
    _out: std::marker::PhantomData<O>,
}

impl<O: Elem> ToTensor<O> {
    fn new(tc: TensorMap, m: Val<u32>, n: Val<u32>, alpha: Val<f32>, beta: Val<f32>) -> ToTensor<O> {
        ToTensor { tc, m, n, alpha, beta, _out: std::marker::PhantomData }
    }
}

impl<O: Elem> TileStore for ToTensor<O> {
    fn write(
        &self,
        cfg: &Config,
        sum: &Fragment<f32>,
        bz: Val<u32>,
        mt: Val<u32>,
        nt: Val<u32>,
        cw: Val<u32>,
        round: Val<u32>,
        cload: &Barriers,
    ) {
        let (m, n) = (self.m, self.n);
        write_tma::<O>(*cfg, self.tc, sum, bz, mt, nt, cw, m, n, self.alpha, self.beta, round, cload);
    }
    fn finish(&self, _: &Config) {
        drain_stores();
    }
}

/// The kernel: producer and consumer warpgroups over the persistent tile walk; `out` writes the
/// finished tiles.
#[device]
fn gemm_body<S: TileStore>(
    #[comptime] cfg: Config,
    ta: TensorMap,
    tb: TensorMap,
    out: &S,
    m: u32,
    n: u32,
    k: u32,
    batch: u32,
    batch_a: u32,
    batch_b: u32,
    k_split: u32,
) {
    launch_bounds(THREADS, 1);
    let cl = cfg.cluster_m;
    if cl > 1 {
        cluster_dims(cl, 1, 1);
    }
    let bn = cfg.bn;
    let stages = cfg.stages;
    let a_stage = cfg.a_stage();
    let b_stage = cfg.b_stage();
    let smem = dyn_shared_aligned::<u8>(1024);
    let full = Barriers::new(cfg.stages as usize);
    let empty = Barriers::new(cfg.stages as usize);
    // One per consumer: its TMA loads of C (the shared-memory epilogue with beta != 0).
    let cload = Barriers::new(2);
    let t = thread_idx_x();
    let wg = t / 128u32;
    // Work items are cluster tiles of cl x 1 block tiles; rank r of a cluster takes block-tile
    // row cl * mt + r of item (mt, nt).
    let tiles_m = (m + (BM * cl - 1)) / (BM * cl);
    let tiles_n = (n + (bn - 1)) / bn;
    let num_tiles = tiles_m * tiles_n;
    // Work items: every tile of every product, product by product (a cluster's tiles are one
    // item, so they are always in the same product).
    let num_items = if cfg.batched { num_tiles * batch } else { num_tiles };
    let bk = cfg.bk();
    let k_tiles = (k + (bk - 1)) / bk;
    let rank = if cl > 1 { cluster_rank() } else { Val::constant(0u32) };
    let first_tile = block_idx_x() / cl;
    let tile_step = grid_dim_x() / cl;
    if t == 0u32 {
        for s in 0..stages {
            full.init(s, 1u32);
            // Every consumer of the cluster frees a stage: each block's producer writes into all.
            empty.init(s, 2u32 * cl);
        }
        if cfg.tma_store {
            cload.init(0u32, 1u32);
            cload.init(1u32, 1u32);
        }
        fence_mbarrier_init();
    }
    if cl > 1 {
        cluster_sync();
    } else {
        sync_threads();
    }
    if wg == 0u32 {
        setmaxnreg_dec(40);
        if t == 0u32 {
            let mut it = 0u32;
            let mut item = first_tile;
            while item < num_items {
                let (bz, tile) = batch_coords(&cfg, item, num_tiles);
                let (mt, nt) = tile_coords(tile, tiles_m, tiles_n, cfg.group_m);
                let m0 = ((mt * cl + rank) * BM) as i32;
                let n0 = (nt * bn) as i32;
                let za = cast::<i32, _>(bz * batch_a);
                let zb = cast::<i32, _>(bz * batch_b);
                let (kt0, kt1) = k_range(&cfg, bz, k_split, k_tiles);
                let mut kt = kt0;
                while kt < kt1 {
                    let s = it % stages;
                    let phase = (it / stages) % 2u32;
                    if it >= stages {
                        empty.wait(s, phase ^ 1u32);
                    }
                    full.arrive_expect_tx(s, a_stage + b_stage);
                    let k0 = (kt * bk) as i32;
                    load_operand(
                        &cfg,
                        &ta,
                        &smem,
                        s * a_stage,
                        &full,
                        s,
                        k0,
                        m0,
                        BM,
                        cfg.a_k_major,
                        1,
                        rank,
                        za,
                    );
                    load_operand(
                        &cfg,
                        &tb,
                        &smem,
                        stages * a_stage + s * b_stage,
                        &full,
                        s,
                        k0,
                        n0,
                        bn,
                        cfg.b_k_major,
                        cl,
                        rank,
                        zb,
                    );
                    it += 1u32;
                    kt += 1u32;
                }
                item += tile_step;
            }
        }
    } else {
        setmaxnreg_inc(232);
        let op = cfg.op();
        let acc = op.accumulator();
        // 8-bit inputs: the promoted sum (the epilogue's source); else the accumulator itself.
        let sum = result_fragment(&cfg, acc);
        let cw = wg - 1u32;
        let w = (t % 128u32) / 32u32;
        let l = lane_id();
        let leader = t % 128u32 == 0u32;
        let mut it = 0u32;
        // Tiles this block's consumers have finished.
        let mut round = 0u32;
        let mut item = first_tile;
        while item < num_items {
            let (bz, tile) = batch_coords(&cfg, item, num_tiles);
            let (ct, nt) = tile_coords(tile, tiles_m, tiles_n, cfg.group_m);
            let mt = ct * cl + rank;
            if cfg.promotes() {
                sum.fill(0.0f32);
            }
            let (kt0, kt1) = k_range(&cfg, bz, k_split, k_tiles);
            let mut kt = kt0;
            while kt < kt1 {
                let s = it % stages;
                let phase = (it / stages) % 2u32;
                full.wait(s, phase);
                wgmma_fence();
                for kk in 0..(ROW_BYTES / STEP_BYTES) {
                    let ad = descriptor(&cfg, &smem, s * a_stage, cw * 64u32, kk, cfg.a_k_major);
                    let bd = descriptor(&cfg, &smem, stages * a_stage + s * b_stage, 0u32, kk, cfg.b_k_major);
                    if kk == 0 {
                        // Promoting: every stage's partial sum starts from zero.
                        let keep = if cfg.promotes() { Val::constant(false) } else { kt > kt0 };
                        wgmma(op, &acc, ad, bd, keep);
                    } else {
                        wgmma(op, &acc, ad, bd, true);
                    }
                }
                wgmma_commit();
                if cfg.promotes() {
                    // The stage's partial sum is complete and its stage free; the other consumer
                    // warpgroup's group keeps the tensor cores busy while this one adds.
                    wgmma_wait(0);
                    if leader {
                        release(&empty, s, cl, rank);
                    }
                    for i in 0..sum.len() {
                        sum.set(i, sum.get(i) + acc.get(i));
                    }
                } else {
                    // The group before this one has retired: its stage is free.
                    wgmma_wait(1);
                    if leader && kt > kt0 {
                        release(&empty, (it + (stages - 1)) % stages, cl, rank);
                    }
                }
                it += 1u32;
                kt += 1u32;
            }
            if !cfg.promotes() {
                wgmma_wait(0);
                if leader {
                    release(&empty, (it + (stages - 1)) % stages, cl, rank);
                }
            }
            out.write(&cfg, &sum, bz, mt, nt, cw, round, &cload);
            round += 1u32;
            item += tile_step;
        }
        out.finish(&cfg);
    }
    if cl > 1 {
        // No block leaves while its partner may still copy into it or arrive on its barriers.
        cluster_sync();
    }
}

/// Consumer `cw`'s rows of tile `(mt, nt)` from registers to C in global memory: thread (w, l)
/// holds rows 16w + l/4 (+8) and column pairs 2(l%4) of every 8-column block of its consumer's
/// 64 rows.
#[device]
#[allow(clippy::too_many_arguments)]
fn write_global<O: Elem>(
    #[comptime] cfg: Config,
    c: &mut [O],
    sum: &Fragment<f32>,
    base: u64,
    mt: u32,
    nt: u32,
    cw: u32,
    m: u32,
    n: u32,
    ldc: u32,
    alpha: f32,
    beta: f32,
) {
    let bn = cfg.bn;
    let w = (thread_idx_x() % 128u32) / 32u32;
    let l = lane_id();
    let row0 = mt * BM + cw * 64u32 + 16u32 * w + l / 4u32;
    let col0 = nt * bn + 2u32 * (l % 4u32);
    let inside = mt * BM + BM <= m && nt * bn + bn <= n;
    let pairs = if cfg.pair_stores { inside } else { Val::constant(false) };
    if pairs {
        if cfg.pair_stores {
            // Whole tile, C aligned for 2-element accesses: one store per column pair.
            for q in 0..(bn / 8) {
                for h in 0..2u32 {
                    let row = row0 + 8u32 * h;
                    let col = col0 + 8 * q;
                    let pair = (base as usize + row as usize * ldc as usize + col as usize) / 2usize;
                    let mut x0 = sum.get((4 * q + 2 * h) as usize) * alpha;
                    let mut x1 = sum.get((4 * q + 2 * h + 1) as usize) * alpha;
                    if beta != 0.0f32 {
                        let old = c.load2(pair);
                        x0 += beta * cast::<f32, _>(old.get(0));
                        x1 += beta * cast::<f32, _>(old.get(1));
                    }
                    c.store2(pair, vec2(cast::<O, _>(x0), cast::<O, _>(x1)));
                }
            }
        }
    } else {
        for q in 0..(bn / 8) {
            for v in 0..4u32 {
                let row = row0 + if v >= 2 { 8u32 } else { 0u32 };
                let col = col0 + (8 * q + (v & 1));
                if inside || (row < m && col < n) {
                    let at = base as usize + row as usize * ldc as usize + col as usize;
                    let mut x = sum.get((4 * q + v) as usize) * alpha;
                    if beta != 0.0f32 {
                        x += beta * cast::<f32, _>(c[at]);
                    }
                    c[at] = cast::<O, _>(x);
                }
            }
        }
    }
}

/// Consumer `cw`'s rows of tile `(mt, nt)` through its C buffer: each warp converts its 16 rows
/// and writes them with `stmatrix` (16 x 16 elements per `.x4`) in the 128-byte-swizzled layout
/// of the TMA boxes, then one thread stores the boxes (clipped at C's edges by the tensor map)
/// and commits them as one bulk group. The buffer is reused only after that group has read it,
/// one tile later, so the stores drain while the warpgroup runs the next tile's main loop.
#[device]
#[allow(clippy::too_many_arguments)]
fn write_tma<O: Elem>(
    #[comptime] cfg: Config,
    tc: TensorMap,
    sum: &Fragment<f32>,
    bz: u32,
    mt: u32,
    nt: u32,
    cw: u32,
    m: u32,
    n: u32,
    alpha: f32,
    beta: f32,
    round: u32,
    cload: &Barriers,
) {
    let bn = cfg.bn;
    let cbuf = dyn_shared_aligned::<u16>(1024);
    let t = thread_idx_x() % 128u32;
    let w = t / 32u32;
    let l = lane_id();
    let leader = t == 0u32;
    // Named barrier 1 + cw: the consumer's 128 threads (0 is the block's).
    let bar = 1u32 + cw;
    if leader {
        bulk_wait_read(0);
    }
    named_barrier_sync(bar, 128u32);
    // Lane 8 i + r gives row r of matrix i of a `.x4`: matrices (q, rows 0-7), (q, rows 8-15),
    // (q + 1, rows 0-7), (q + 1, rows 8-15) of the warp's 16 rows, q an even 8-column block.
    // In a box, 16-byte chunk j of row r sits at chunk j ^ (r % 8) (the 128-byte swizzle).
    // Addresses in 16-bit elements of `cbuf` (64 per 128-byte row, 8 per chunk).
    let base = cfg.ring_bytes() / 2 + cw * (cfg.c_buffer() / 2);
    let row = 16u32 * w + 8u32 * ((l / 8u32) % 2u32) + l % 8u32;
    let row_at = base + row * 64u32;
    let odd = l / 16u32;
    let r8 = l % 8u32;
    if beta != 0.0f32 {
        // The old C through the same buffer: the storing thread loads the tile's boxes (TMA
        // fills what lies outside C with zeros) and every thread reads its elements back with
        // `ldmatrix` from the addresses it then writes.
        if leader {
            cload.arrive_expect_tx(cw, (bn / C_BOX) * C_BOX_BYTES);
            for j in 0..(bn / C_BOX) {
                let coords = c_coords(&cfg, nt * bn + j * C_BOX, mt * BM + cw * 64u32, bz);
                tc.load(&cbuf, base + j * (C_BOX_BYTES / 2), cload, cw, coords.as_slice());
            }
        }
        cload.wait(cw, round % 2u32);
        for p in 0..(bn / 16) {
            let q = 2 * p;
            let chunk = (odd + q % 8) ^ r8;
            let at = row_at + (q / 8) * (C_BOX_BYTES / 2) + chunk * 8u32;
            let old = ldmatrix_x4(&cbuf, at);
            let regs = vec4(
                blended_pair::<O>(sum, 4 * q, alpha, beta, old.get(0)),
                blended_pair::<O>(sum, 4 * q + 2, alpha, beta, old.get(1)),
                blended_pair::<O>(sum, 4 * q + 4, alpha, beta, old.get(2)),
                blended_pair::<O>(sum, 4 * q + 6, alpha, beta, old.get(3)),
            );
            stmatrix_x4(&cbuf, at, regs);
        }
    } else {
        for p in 0..(bn / 16) {
            let q = 2 * p;
            let regs = vec4(
                scaled_pair::<O>(sum, 4 * q, alpha),
                scaled_pair::<O>(sum, 4 * q + 2, alpha),
                scaled_pair::<O>(sum, 4 * q + 4, alpha),
                scaled_pair::<O>(sum, 4 * q + 6, alpha),
            );
            let chunk = (odd + q % 8) ^ r8;
            stmatrix_x4(&cbuf, row_at + (q / 8) * (C_BOX_BYTES / 2) + chunk * 8u32, regs);
        }
    }
    fence_proxy_async();
    named_barrier_sync(bar, 128u32);
    if leader {
        let row0 = mt * BM + cw * 64u32;
        if row0 < m {
            for j in 0..(bn / C_BOX) {
                let col0 = nt * bn + j * C_BOX;
                if col0 < n {
                    let coords = c_coords(&cfg, col0, row0, bz);
                    tc.store(&cbuf, base + j * (C_BOX_BYTES / 2), coords.as_slice());
                }
            }
        }
        bulk_commit();
    }
}

/// The coordinates of C's box at column `col`, row `row` of product `bz` (the third dimension of
/// a batched kernel's C map).
fn c_coords(cfg: &Config, col: Val<u32>, row: Val<u32>, bz: Val<u32>) -> Vec<Val<i32>> {
    let mut coords = vec![cast::<i32, _>(col), cast::<i32, _>(row)];
    if cfg.batched {
        coords.push(cast::<i32, _>(bz));
    }
    coords
}

/// The consumer's storing thread waits for its last stores: the block's shared memory must
/// outlive their reads of it.
#[device]
fn drain_stores() {
    if thread_idx_x() % 128u32 == 0u32 {
        bulk_wait(0);
    }
}

/// Elements `i` and `i + 1` of `sum` times `alpha`, converted to `O` (16-bit) and packed as one
/// `mma` fragment register.
fn scaled_pair<O: Elem>(sum: &Fragment<f32>, i: u32, alpha: Val<f32>) -> Val<u32> {
    let x = |i: u32| cast::<O, _>(sum.get(i as usize) * alpha);
    pack_half2(x(i), x(i + 1))
}

/// [`scaled_pair`] plus `beta` times the two 16-bit `O` elements packed in `old`.
fn blended_pair<O: Elem>(
    sum: &Fragment<f32>,
    i: u32,
    alpha: Val<f32>,
    beta: Val<f32>,
    old: Val<u32>,
) -> Val<u32> {
    let widen = |h: Val<u32>| -> Val<f32> {
        let h = cast::<u16, _>(h);
        if O::TY == <f16 as Elem>::TY {
            cast::<f32, _>(f16_from_bits(h))
        } else {
            cast::<f32, _>(bf16_from_bits(h))
        }
    };
    let x = |k: u32, o: Val<f32>| cast::<O, _>(sum.get(k as usize) * alpha + beta * o);
    pack_half2(x(i, widen(old & 0xffffu32)), x(i + 1, widen(old >> 16u32)))
}

/// The fragment the epilogue writes: a second accumulator for promoted (8-bit) inputs, else the
/// `wgmma` accumulator `acc` itself.
fn result_fragment(cfg: &Config, acc: Fragment<f32>) -> Fragment<f32> {
    if cfg.promotes() {
        cfg.op().accumulator()
    } else {
        acc
    }
}

/// Frees stage `s` for every producer of the cluster. The consumers only read the stage, through
/// `wgmma` groups that have retired, so the remote arrivals need no cluster-scope release (whose
/// GPU-wide memory barrier per k-step halved the kernel's speed; NOTES.md, v1).
fn release(empty: &Barriers, s: Val<u32>, cl: u32, rank: Val<u32>) {
    empty.arrive(s);
    for r in 1..cl {
        empty.arrive_remote_cta(s, (rank + r) % cl);
    }
}

/// Split-K's second pass: `C[r][c] = alpha * sum_s ws[s][r][c] + beta * C[r][c]` over the
/// `slices` f32 partial products (`m x n`, row-major, packed, one after another), summed in slice
/// order (deterministic), rounded once to `O`; C row-major with pitch `ldc`. One thread per
/// element, grid-stride.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn reduce_split_k<O: Elem>(
    ws: &[f32],
    c: &mut [O],
    m: u32,
    n: u32,
    ldc: u32,
    slices: u32,
    alpha: f32,
    beta: f32,
) {
    let total = m as usize * n as usize;
    let mut i = global_index();
    while i < total {
        let mut sum = 0.0f32;
        let mut s = 0u32;
        while s < slices {
            sum += ws[s as usize * total + i];
            s += 1u32;
        }
        let row = i / n as usize;
        let col = i % n as usize;
        let at = row * ldc as usize + col;
        let mut x = sum * alpha;
        if beta != 0.0f32 {
            x += beta * cast::<f32, _>(c[at]);
        }
        c[at] = cast::<O, _>(x);
        i += grid_stride();
    }
}
