//! Conformance of the Hopper instructions: each kernel runs on the CPU executor (the reference)
//! and on every device present, and is checked against a host computation (f64 for arithmetic,
//! the layouts of the PTX ISA for data movement). See `common` for the harness.

mod common;

use common::*;
use ferrocm_kernel::prelude::*;
use ferrocm_kernel::runtime::TiledLayout;
use ferrocm_kernel::tensor_map::TensorMapSwizzle;

// ------------------------------------------------------------------ register fragments

#[kernel]
fn fragment_roundtrip(x: &[f32], out: &mut [f32]) {
    let t = thread_idx_x() as usize;
    let f = fragment::<f32>(96, 0.0f32);
    for k in 0..96usize {
        f.set(k, x[t * 96 + k] * 2.0f32);
    }
    for k in 0..96usize {
        out[t * 96 + (95 - k)] = f.get(k) + 1.0f32;
    }
}

#[test]
fn fragments_hold_values_by_compile_time_index() {
    let mut r = Rng::new();
    let x = r.f32s(64 * 96, -4.0, 4.0);
    let out = Launch::new("fragment_roundtrip", fragment_roundtrip::kernel(), 1, 64)
        .buf(&x)
        .buf(&vec![0f32; 64 * 96])
        .run();
    let got = out.get::<f32>(1);
    for t in 0..64 {
        for k in 0..96 {
            assert_eq!(got[t * 96 + 95 - k], x[t * 96 + k] * 2.0 + 1.0, "thread {t} element {k}");
        }
    }
    // The fragment stays in registers: no local memory in the PTX.
    let ptx = fragment_roundtrip::kernel().unwrap().ptx("sm_90a").unwrap();
    assert!(!ptx.contains(".local"), "{ptx}");
}

// ------------------------------------------------------------------ elect, named barriers

#[kernel]
fn elect_count(limit: u32, counts: &mut [u32]) {
    let lane = lane_id();
    let warp = thread_idx_x() / 32u32;
    if lane < limit {
        if elect_one() {
            counts.atomic_add(warp, 1u32);
        }
    }
}

#[test]
fn elect_one_picks_one_active_lane_per_warp() {
    for limit in [32u32, 20, 1] {
        let out =
            Launch::new("elect_count", elect_count::kernel(), 1, 128).scalar(limit).buf(&[0u32; 4]).run();
        assert_eq!(out.get::<u32>(1), vec![1; 4], "{limit} active lanes");
    }
}

/// Warp 0 produces a row, warp 1 consumes it behind named barrier 1 (64 threads): warp 0 only
/// arrives, warp 1 waits. Then they swap roles behind barrier 2.
#[kernel]
fn named_handoff(out: &mut [u32]) {
    let s = shared_array::<u32>(64);
    let t = thread_idx_x();
    let lane = lane_id();
    if t < 32u32 {
        s[lane] = lane * 3u32 + 1u32;
        named_barrier_arrive(1u32, 64u32);
        named_barrier_sync(2u32, 64u32);
        out[32u32 + lane] = s[32u32 + lane];
    } else {
        named_barrier_sync(1u32, 64u32);
        out[lane] = s[lane];
        s[32u32 + lane] = lane * 5u32 + 2u32;
        named_barrier_arrive(2u32, 64u32);
    }
}

#[test]
fn named_barriers_hand_data_between_warps() {
    let out = Launch::new("named_handoff", named_handoff::kernel(), 1, 64).buf(&[0u32; 64]).run();
    let want: Vec<u32> = (0..32).map(|l| l * 3 + 1).chain((0..32).map(|l| l * 5 + 2)).collect();
    assert_eq!(out.get::<u32>(0), want);
}

// ------------------------------------------------------------------ mbarrier pipeline

/// A two-stage ring in shared memory: warp 0 produces 8 tiles of 32 values, warps 1..3 consume
/// each tile; `full[s]` (count 1) says a tile is in stage s, `empty[s]` (count 3) that it is free.
/// One lane per warp arrives, after a warp barrier.
#[kernel]
fn mbarrier_ring(x: &[u32], out: &mut [u32]) {
    let ring = shared_array::<u32>(64);
    let full = Barriers::new(2);
    let empty = Barriers::new(2);
    let t = thread_idx_x();
    let lane = lane_id();
    let warp = t / 32u32;
    if t == 0u32 {
        for s in 0..2u32 {
            full.init(s, 1u32);
            empty.init(s, 3u32);
        }
    }
    sync_threads();
    if warp == 0u32 {
        for tile in 0u32..8u32 {
            let s = tile % 2u32;
            let phase = (tile / 2u32) % 2u32;
            // The first pass over each stage finds it empty.
            if tile >= 2u32 {
                empty.wait(s, phase ^ 1u32);
            }
            ring[s * 32u32 + lane] = x[tile * 32u32 + lane];
            // Lane 0's arrive releases only what happens before it: the warp barrier puts every
            // lane's store there (racecheck on an H100 caught the ring without it).
            sync_warp();
            if lane == 0u32 {
                full.arrive(s);
            }
        }
    } else {
        for tile in 0u32..8u32 {
            let s = tile % 2u32;
            let phase = (tile / 2u32) % 2u32;
            full.wait(s, phase);
            let v = ring[s * 32u32 + lane];
            out[((warp - 1u32) * 8u32 + tile) * 32u32 + lane] = v + warp;
            sync_warp();
            if lane == 0u32 {
                empty.arrive(s);
            }
        }
    }
}

#[test]
fn mbarrier_phases_run_a_producer_consumer_ring() {
    let mut r = Rng::new();
    let x = r.u32s(256, 1 << 20);
    let out = Launch::new("mbarrier_ring", mbarrier_ring::kernel(), 1, 128).buf(&x).buf(&[0u32; 768]).run();
    let got = out.get::<u32>(1);
    for w in 1..4 {
        for i in 0..256 {
            assert_eq!(got[(w - 1) * 256 + i], x[i] + w as u32, "consumer warp {w}, element {i}");
        }
    }
}

// ------------------------------------------------------------------ clusters

#[kernel]
fn cluster_ring<const C: u32>(out: &mut [u32]) {
    cluster_dims(C, 1, 1);
    let s = shared_array::<u32>(32);
    let rank = cluster_rank();
    let size = cluster_size();
    let lane = lane_id();
    s[lane] = rank * 100u32 + lane;
    cluster_sync();
    let next = (rank + 1u32) % size;
    let v = dsmem_load(&s, lane, next);
    let b = block_idx_x() as usize;
    out[b * 64usize + lane as usize] = v;
    // Every CTA has read before any overwrites.
    cluster_sync();
    // Write into the previous CTA's array; it reads it after the next barrier.
    let prev = (rank + size - 1u32) % size;
    dsmem_store(&s, lane, prev, 7u32 * lane + rank);
    cluster_sync();
    out[b * 64usize + 32usize + lane as usize] =
        s[lane] + cluster_idx_x() * 1000u32 + cluster_block_idx_x() * 10000u32;
}

#[test]
fn clusters_share_memory_between_their_blocks() {
    for csize in [2u32, 4] {
        let blocks = 8u32;
        let k = if csize == 2 { cluster_ring::kernel::<2>() } else { cluster_ring::kernel::<4>() };
        let out = Launch::new("cluster_ring", k, blocks, 32)
            .cluster(csize)
            .buf(&vec![0u32; blocks as usize * 64])
            .run();
        let got = out.get::<u32>(0);
        for b in 0..blocks {
            let rank = b % csize;
            let next = (rank + 1) % csize;
            let from_next = (rank + 1) % csize;
            for l in 0..32 {
                assert_eq!(got[(b * 64 + l) as usize], next * 100 + l, "block {b} lane {l}");
                let written_by = from_next; // the next CTA writes into this one
                let want = 7 * l + written_by + (b / csize) * 1000 + rank * 10000;
                assert_eq!(got[(b * 64 + 32 + l) as usize], want, "block {b} lane {l}, cluster of {csize}");
            }
        }
    }
}

#[kernel]
fn cluster_pairs(out: &mut [u32]) {
    cluster_dims(4, 1, 1);
    let s = shared_array::<u32>(64);
    let rank = cluster_rank();
    let lane = lane_id();
    s[lane] = rank * 1000u32 + lane;
    s[lane + 32u32] = rank * 1000u32 + lane + 32u32;
    cluster_sync();
    // Lane l reads elements 2l and 2l + 1 of the next CTA's array in one access.
    let v = dsmem_load2(&s, lane * 2u32, (rank + 1u32) % cluster_size());
    let at = block_idx_x() as usize * 64usize + 2usize * lane as usize;
    out[at] = v.get(0);
    out[at + 1usize] = v.get(1);
    cluster_sync();
}

#[test]
fn cluster_pair_loads_read_two_adjacent_elements() {
    let blocks = 8u32;
    let out = Launch::new("cluster_pairs", cluster_pairs::kernel(), blocks, 32)
        .cluster(4)
        .buf(&vec![0u32; blocks as usize * 64])
        .run();
    let got = out.get::<u32>(0);
    for b in 0..blocks {
        let next = (b % 4 + 1) % 4;
        for e in 0..64 {
            assert_eq!(got[(b * 64 + e) as usize], next * 1000 + e, "block {b} element {e}");
        }
    }
}

#[kernel]
fn cluster_pair_pushes(out: &mut [u32]) {
    cluster_dims(4, 1, 1);
    let s = shared_array::<u32>(64);
    let rank = cluster_rank();
    let lane = lane_id();
    // Every CTA has started before any writes into another's shared memory.
    cluster_sync();
    // Lane l writes elements 2l and 2l + 1 of the next CTA's array in one access.
    let v = vec2(rank * 1000u32 + 2u32 * lane, rank * 1000u32 + 2u32 * lane + 1u32);
    dsmem_store2(&s, lane * 2u32, (rank + 1u32) % cluster_size(), v);
    cluster_sync();
    let at = block_idx_x() as usize * 64usize;
    out[at + lane as usize] = s[lane];
    out[at + 32usize + lane as usize] = s[lane + 32u32];
}

#[test]
fn cluster_pair_stores_write_two_adjacent_elements() {
    let blocks = 8u32;
    let out = Launch::new("cluster_pair_pushes", cluster_pair_pushes::kernel(), blocks, 32)
        .cluster(4)
        .buf(&vec![0u32; blocks as usize * 64])
        .run();
    let got = out.get::<u32>(0);
    for b in 0..blocks {
        // Written by the previous CTA of the cluster.
        let from = (b % 4 + 3) % 4;
        for e in 0..64 {
            assert_eq!(got[(b * 64 + e) as usize], from * 1000 + e, "block {b} element {e}");
        }
    }
}

#[kernel]
fn cluster_pair_odd(out: &mut [u32]) {
    cluster_dims(2, 1, 1);
    let s = shared_array::<u32>(64);
    let lane = lane_id();
    s[lane] = lane;
    cluster_sync();
    let v = dsmem_load2(&s, lane * 2u32 + 1u32, 0u32);
    out[block_idx_x() as usize * 32usize + lane as usize] = v.get(0);
    cluster_sync();
}

#[test]
fn cluster_pair_loads_need_an_even_index() {
    let Err(err) = Launch::new("cluster_pair_odd", cluster_pair_odd::kernel(), 2, 32)
        .cluster(2)
        .buf(&[0u32; 64])
        .try_run()
    else {
        panic!("an odd index of a 2-element access ran");
    };
    assert!(err.contains("at element 1, which is not a multiple of 2"), "{err}");
}

// ------------------------------------------------------------------ grid barrier

#[kernel]
fn grid_rotate(x: &[u32], tmp: &mut [u32], out: &mut [u32]) {
    let b = block_idx_x();
    let n = grid_dim_x();
    let t = thread_idx_x();
    let i = (b * block_dim_x() + t) as usize;
    tmp[i] = x[i] * 3u32;
    grid_sync();
    let from = (((b + 1u32) % n) * block_dim_x() + t) as usize;
    out[i] = tmp[from] + 1u32;
}

#[test]
fn grid_sync_orders_a_cooperative_launch() {
    let mut r = Rng::new();
    let (blocks, threads) = (8usize, 64usize);
    let x = r.u32s(blocks * threads, 1 << 20);
    let out = Launch::new("grid_rotate", grid_rotate::kernel(), blocks as u32, threads as u32)
        .cooperative()
        .buf(&x)
        .buf_unordered(&vec![0u32; blocks * threads])
        .buf(&vec![0u32; blocks * threads])
        .run();
    let got = out.get::<u32>(2);
    for b in 0..blocks {
        for t in 0..threads {
            let from = ((b + 1) % blocks) * threads + t;
            assert_eq!(got[b * threads + t], x[from] * 3 + 1);
        }
    }
}

// ------------------------------------------------------------------ stmatrix

/// Each lane holds fragment registers with known values; `stmatrix` writes them to shared
/// memory, which the kernel copies out.
#[kernel]
fn stmatrix_dump<const TRANS: bool>(out: &mut [u16]) {
    let s = shared_array_aligned::<u16>(256, 128);
    let lane = lane_id();
    let r0 = (lane * 4u32) << 16u32 | lane * 4u32 + 1000u32;
    let v = vec4(r0, r0 + 1u32, r0 + 2u32, r0 + 3u32);
    let m = lane / 8u32;
    let r = lane % 8u32;
    // Matrix m is the 8x8 block at element 64 m; rows are 8 elements.
    let row_start = m * 64u32 + r * 8u32;
    if TRANS {
        stmatrix_x4_trans(&s, row_start, v);
    } else {
        stmatrix_x4(&s, row_start, v);
    }
    sync_threads();
    for k in 0..8u32 {
        let i = lane * 8u32 + k;
        out[i] = s[i];
    }
}

#[test]
fn stmatrix_writes_fragments_as_the_ptx_isa_lays_them_out() {
    for trans in [false, true] {
        let k = if trans { stmatrix_dump::kernel::<true>() } else { stmatrix_dump::kernel::<false>() };
        let out = Launch::new("stmatrix_dump", k, 1, 32).buf(&[0u16; 256]).run();
        let got = out.get::<u16>(0);
        // Lane l's register m holds row l / 4, columns 2 (l % 4) and +1 of matrix m.
        let mut want = [0u16; 256];
        for l in 0..32usize {
            for m in 0..4usize {
                let reg = ((l * 4) << 16 | (l * 4 + 1000)) as u32 + m as u32;
                for half in 0..2 {
                    let (row, col) = (l / 4, 2 * (l % 4) + half);
                    let (row, col) = if trans { (col, row) } else { (row, col) };
                    want[m * 64 + row * 8 + col] = (reg >> (16 * half)) as u16;
                }
            }
        }
        assert_eq!(got, want.to_vec(), "trans {trans}");
    }
}

// ------------------------------------------------------------------ TMA

/// Shared-memory bytes a TMA test box may take.
const BOX_SMEM: usize = 8192;

/// Loads the box at `coords` into shared memory (1024-byte aligned), expecting `tx_bytes`, and
/// dumps the `dump.len()` bytes it spans.
#[kernel]
fn tma_load_box<T: Elem>(
    x: &mut [T],
    map: TensorMap,
    #[comptime] coords: Vec<i32>,
    tx_bytes: u32,
    dump: &mut [u8],
) {
    let s = shared_array_aligned::<u8>(BOX_SMEM, 1024);
    let bar = Barriers::new(1);
    let t = thread_idx_x();
    let bytes = dump.len();
    // Shared memory starts as 0xEE, so the bytes the copy leaves alone (row padding) are known.
    let mut i = t as usize;
    while i < bytes {
        s[i] = 0xEEu8;
        i += block_dim_x() as usize;
    }
    fence_proxy_async();
    if t == 0u32 {
        bar.init(0u32, 1u32);
        // The initialization must be visible to the copy engine before it completes bytes.
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0u32 {
        bar.arrive_expect_tx(0u32, tx_bytes);
        map.load(&s, 0u32, &bar, 0u32, &coords);
    }
    bar.wait(0u32, 0u32);
    let mut i = t as usize;
    while i < bytes {
        dump[i] = s[i];
        i += block_dim_x() as usize;
    }
}

/// The box a map copies, as the PTX ISA and `cuTensorMapEncodeTiled` define it: elements per
/// dimension and the global coordinates of each, dimension 0 fastest.
fn box_elements(dims: &[u64], box_dims: &[u32], strides: &[u32], coords: &[i32]) -> Vec<Option<Vec<u64>>> {
    // An H100 does not apply dimension 0's element stride: it copies whole rows.
    let strides: Vec<u64> =
        strides.iter().enumerate().map(|(d, &s)| if d == 0 { 1 } else { s as u64 }).collect();
    let counts: Vec<u64> = box_dims.iter().zip(&strides).map(|(&b, &s)| (b as u64).div_ceil(s)).collect();
    let total: u64 = counts.iter().product();
    (0..total)
        .map(|mut n| {
            let mut g = Vec::new();
            for d in 0..dims.len() {
                let j = n % counts[d];
                n /= counts[d];
                let c = coords[d] as i64 + (j * strides[d]) as i64;
                if c < 0 || c as u64 >= dims[d] {
                    return None;
                }
                g.push(c as u64);
            }
            Some(g)
        })
        .collect()
}

/// Where element `n` of a box (rows of `row_len` elements of `esize` bytes) lands in shared
/// memory, as an H100 lays it out: rows one after another, but a row shorter than the swizzle
/// span takes the whole span, then the swizzle. Also how many bytes the box spans.
fn shared_pos(n: usize, row_len: usize, esize: usize, s: TensorMapSwizzle) -> usize {
    swizzle((n / row_len) * row_pitch(row_len, esize, s) + (n % row_len) * esize, s)
}

fn row_pitch(row_len: usize, esize: usize, s: TensorMapSwizzle) -> usize {
    let span = match s {
        TensorMapSwizzle::None => 0,
        TensorMapSwizzle::B32 => 32,
        TensorMapSwizzle::B64 => 64,
        _ => 128,
    };
    (row_len * esize).max(span)
}

/// The bytes a box of `elements` in rows of `row_len` spans in shared memory.
fn shared_span(elements: usize, row_len: usize, esize: usize, s: TensorMapSwizzle) -> usize {
    elements / row_len * row_pitch(row_len, esize, s)
}

/// The swizzle of a shared-memory offset from a 1024-byte boundary: 16-byte chunk bits 4.. XOR
/// line bits 7.., over 1, 2 or 3 bits.
fn swizzle(offset: usize, s: TensorMapSwizzle) -> usize {
    let bits = match s {
        TensorMapSwizzle::None => return offset,
        TensorMapSwizzle::B32 => 1,
        TensorMapSwizzle::B64 => 2,
        _ => 3,
    };
    offset ^ (((offset >> 7) & ((1 << bits) - 1)) << 4)
}

struct BoxCase {
    dims: Vec<u64>,
    box_dims: Vec<u32>,
    strides: Vec<u32>,
    swizzle: TensorMapSwizzle,
    coords: Vec<i32>,
}

fn check_tma_load<T: Elem + ferrocm_kernel::runtime::TensorMapElement + Copy>(
    case: &BoxCase,
    data: Vec<T>,
    fill: Option<T>,
) {
    let esize = std::mem::size_of::<T>();
    let elems = box_elements(&case.dims, &case.box_dims, &case.strides, &case.coords);
    let inner = case.box_dims[0] as usize;
    let tx_bytes = elems.len() * esize;
    let bytes = shared_span(elems.len(), inner, esize, case.swizzle);
    assert!(bytes <= BOX_SMEM);
    let mut layout = TiledLayout::new(&case.dims, &case.box_dims)
        .with_swizzle(case.swizzle)
        .with_element_strides(&case.strides);
    if fill.is_some() {
        layout = layout.with_oob_fill(ferrocm_kernel::tensor_map::TensorMapOobFill::NanRequestZeroFma);
    }
    let name =
        format!("tma_load {:?} box {:?} {:?} at {:?}", case.dims, case.box_dims, case.swizzle, case.coords);
    let out = Launch::new(&name, tma_load_box::kernel::<T>(case.coords.clone()), 1, 128)
        .buf(&data)
        .tensor_map(0, layout)
        .scalar(tx_bytes as u32)
        .buf(&vec![0u8; bytes])
        .run();
    let got = out.get::<u8>(3);
    // The expected image, byte by byte; row padding keeps the kernel's 0xEE.
    let mut want = vec![0xEEu8; bytes];
    let row_len: Vec<u64> = case.dims.clone();
    for (n, g) in elems.iter().enumerate() {
        let v: T = match g {
            Some(g) => {
                let mut idx = 0u64;
                let mut mul = 1u64;
                for d in 0..g.len() {
                    idx += g[d] * mul;
                    mul *= row_len[d];
                }
                data[idx as usize]
            }
            None => fill.unwrap_or_else(|| data[0].zeroed()),
        };
        let at = shared_pos(n, inner, esize, case.swizzle);
        // SAFETY: `T` is a plain element type of `esize` bytes.
        let b = unsafe { std::slice::from_raw_parts(&v as *const T as *const u8, esize) };
        want[at..at + esize].copy_from_slice(b);
    }
    assert_eq!(got, want, "{name}");
}

/// A zero of the element type (what out-of-bounds elements read as).
trait Zeroed {
    fn zeroed(self) -> Self;
}
impl<T: Elem> Zeroed for T {
    fn zeroed(self) -> Self {
        // SAFETY: every element type is valid with all bits zero.
        unsafe { std::mem::zeroed() }
    }
}

fn u16_case(dims: &[u64], box_dims: &[u32], strides: &[u32], swizzle: TensorMapSwizzle, coords: &[i32]) {
    let mut r = Rng::new();
    let case = BoxCase {
        dims: dims.to_vec(),
        box_dims: box_dims.to_vec(),
        strides: strides.to_vec(),
        swizzle,
        coords: coords.to_vec(),
    };
    let n: u64 = case.dims.iter().product();
    check_tma_load::<u16>(&case, (0..n).map(|_| r.u32() as u16).collect(), None);
}

// One test per box, so a GPU fault in one leaves the others' results standing. Innermost
// coordinates sit a multiple of 16 bytes from the tensor's start: other offsets stop the kernel
// on an H100 (the executor refuses them; see the misuse suite).
#[test]
fn tma_load_2d_aligned_box_without_swizzle() {
    u16_case(&[64, 8], &[64, 8], &[1, 1], TensorMapSwizzle::None, &[0, 0]);
}

#[test]
fn tma_load_1d_box_past_the_end_of_the_tensor() {
    u16_case(&[200], &[64], &[1], TensorMapSwizzle::None, &[152]);
}

#[test]
fn tma_load_2d_128_byte_swizzle_out_of_bounds_in_both_dimensions() {
    u16_case(&[104, 37], &[64, 16], &[1, 1], TensorMapSwizzle::B128, &[40, 30]);
}

#[test]
fn tma_load_2d_128_byte_swizzle_from_negative_coordinates() {
    u16_case(&[104, 37], &[64, 16], &[1, 1], TensorMapSwizzle::B128, &[-8, -3]);
}

#[test]
fn tma_load_2d_64_and_32_byte_swizzle() {
    u16_case(&[72, 20], &[32, 8], &[1, 1], TensorMapSwizzle::B64, &[8, 5]);
    u16_case(&[72, 20], &[16, 8], &[1, 1], TensorMapSwizzle::B32, &[56, 3]);
}

// Rows shorter than the swizzle span take the whole span in shared memory (an H100 result).
#[test]
fn tma_load_16_byte_rows_under_32_byte_swizzle() {
    u16_case(&[40, 12], &[8, 8], &[1, 1], TensorMapSwizzle::B32, &[32, 7]);
}

#[test]
fn tma_load_32_byte_rows_under_64_byte_swizzle() {
    u16_case(&[40, 12], &[16, 8], &[1, 1], TensorMapSwizzle::B64, &[-8, -2]);
}

#[test]
fn tma_load_16_and_64_byte_rows_under_128_byte_swizzle() {
    u16_case(&[40, 12], &[8, 16], &[1, 1], TensorMapSwizzle::B128, &[16, 1]);
    u16_case(&[40, 12], &[32, 8], &[1, 2], TensorMapSwizzle::B128, &[24, 3]);
}

// Dimension 0's element stride is not applied (an H100 result): whole rows of 16 elements.
#[test]
fn tma_load_ignores_the_element_stride_of_dimension_0() {
    u16_case(&[64, 8], &[16, 4], &[2, 1], TensorMapSwizzle::B32, &[16, 2]);
}

#[test]
fn tma_load_every_other_row_by_element_stride() {
    u16_case(&[64, 40], &[64, 8], &[1, 2], TensorMapSwizzle::B128, &[0, 33]);
}

#[test]
fn tma_load_5d_box() {
    u16_case(&[16, 3, 3, 3, 3], &[8, 2, 2, 2, 2], &[1; 5], TensorMapSwizzle::B32, &[8, 2, 0, 1, 2]);
}

#[test]
fn tma_load_3d_f32_and_4d_u8_boxes() {
    let mut r = Rng::new();
    let c3 = BoxCase {
        dims: vec![40, 9, 7],
        box_dims: vec![16, 4, 3],
        strides: vec![1; 3],
        swizzle: TensorMapSwizzle::B64,
        coords: vec![32, 7, 5],
    };
    let n3: u64 = c3.dims.iter().product();
    check_tma_load::<f32>(&c3, r.f32s(n3 as usize, -1.0, 1.0), None);
    let c4 = BoxCase {
        dims: vec![32, 5, 4, 3],
        box_dims: vec![16, 4, 2, 2],
        strides: vec![1; 4],
        swizzle: TensorMapSwizzle::None,
        coords: vec![16, 3, 3, 2],
    };
    let n4: u64 = c4.dims.iter().product();
    check_tma_load::<u8>(&c4, (0..n4).map(|_| r.u32() as u8).collect(), None);
}

/// Writes a byte pattern to the `bytes` of shared memory a box spans and stores the box to the
/// tensor with TMA.
#[kernel]
fn tma_store_box<T: Elem>(
    x: &mut [T],
    map: TensorMap,
    #[comptime] coords: Vec<i32>,
    #[comptime] bytes: usize,
) {
    let s = shared_array_aligned::<u8>(BOX_SMEM, 1024);
    let t = thread_idx_x() as usize;
    let mut i = t;
    while i < bytes {
        s[i] = (i * 7usize + 3usize) as u8;
        i += block_dim_x() as usize;
    }
    fence_proxy_async();
    sync_threads();
    if t == 0usize {
        map.store(&s, 0u32, &coords);
        bulk_commit();
        bulk_wait(0);
    }
}

/// Stores a `box_dims` box at `coords` into an 88 x 19 u16 tensor of 0xAAAA: the elements inside
/// the tensor take the pattern's bytes from where the box lies in shared memory, nothing else
/// changes. (A store's coordinates may not be negative: the misuse suite has that case.)
fn store_case(swizzle: TensorMapSwizzle, box_dims: [u32; 2], coords: [i32; 2]) {
    let dims = vec![88u64, 19];
    let data = vec![0xAAAAu16; (dims[0] * dims[1]) as usize];
    let elems = box_elements(&dims, &box_dims, &[1, 1], &coords);
    let row_len = box_dims[0] as usize;
    let bytes = shared_span(elems.len(), row_len, 2, swizzle);
    let layout = TiledLayout::new(&dims, &box_dims).with_swizzle(swizzle);
    let out = Launch::new("tma_store", tma_store_box::kernel::<u16>(coords.to_vec(), bytes), 1, 128)
        .buf(&data)
        .tensor_map(0, layout)
        .run();
    let got = out.get::<u16>(0);
    let mut want = data.clone();
    for (n, g) in elems.iter().enumerate() {
        if let Some(g) = g {
            let at = shared_pos(n, row_len, 2, swizzle);
            let v = ((at * 7 + 3) as u8) as u16 | (((at + 1) * 7 + 3) as u8 as u16) << 8;
            want[(g[0] + g[1] * dims[0]) as usize] = v;
        }
    }
    assert_eq!(got, want, "{swizzle:?} box {box_dims:?} at {coords:?}");
}

#[test]
fn tma_store_128_byte_swizzle_past_the_end_in_both_dimensions() {
    store_case(TensorMapSwizzle::B128, [64, 8], [48, 14]);
}

#[test]
fn tma_store_without_swizzle_past_the_last_row() {
    store_case(TensorMapSwizzle::None, [16, 4], [8, 17]);
}

#[test]
fn tma_store_32_byte_swizzle_inside_the_tensor() {
    store_case(TensorMapSwizzle::B32, [16, 8], [0, 0]);
}

#[test]
fn tma_store_16_byte_rows_under_32_byte_swizzle() {
    store_case(TensorMapSwizzle::B32, [8, 8], [80, 5]);
}

/// Rank 0 of a cluster of 2 loads a box into both CTAs (multicast); each dumps its copy.
#[kernel]
fn tma_multicast(x: &mut [u16], map: TensorMap, dump: &mut [u8]) {
    cluster_dims(2, 1, 1);
    let s = shared_array_aligned::<u8>(4096, 1024);
    let bar = Barriers::new(1);
    let t = thread_idx_x();
    let bytes = 64u32 * 16u32 * 2u32;
    if t == 0u32 {
        bar.init(0u32, 1u32);
        fence_mbarrier_init();
    }
    cluster_sync();
    if t == 0u32 {
        bar.arrive_expect_tx(0u32, bytes);
        if cluster_rank() == 0u32 {
            map.load_multicast(&s, 0u32, &bar, 0u32, [8i32, 3i32], 3u16);
        }
    }
    bar.wait(0u32, 0u32);
    let base = block_idx_x() * bytes;
    let mut i = t;
    while i < bytes {
        dump[base + i] = s[i];
        i += block_dim_x();
    }
    // Neither CTA leaves while the other may still be using the cluster.
    cluster_sync();
}

#[test]
fn tma_multicast_fills_every_cta_of_the_cluster() {
    let mut r = Rng::new();
    let dims = vec![80u64, 30];
    let data: Vec<u16> = (0..dims[0] * dims[1]).map(|_| r.u32() as u16).collect();
    let layout = TiledLayout::new(&dims, &[64, 16]).with_swizzle(TensorMapSwizzle::B128);
    let bytes = 64 * 16 * 2;
    let out = Launch::new("tma_multicast", tma_multicast::kernel(), 4, 128)
        .cluster(2)
        .buf(&data)
        .tensor_map(0, layout)
        .buf(&vec![0u8; 4 * bytes])
        .run();
    let got = out.get::<u8>(2);
    let elems = box_elements(&dims, &[64, 16], &[1, 1], &[8, 3]);
    let mut want = vec![0u8; bytes];
    for (n, g) in elems.iter().enumerate() {
        let v = g.as_ref().map_or(0, |g| data[(g[0] + g[1] * dims[0]) as usize]);
        let at = swizzle(n * 2, TensorMapSwizzle::B128);
        want[at..at + 2].copy_from_slice(&v.to_le_bytes());
    }
    for b in 0..4 {
        assert_eq!(&got[b * bytes..(b + 1) * bytes], &want[..], "block {b}");
    }
}

// ------------------------------------------------------------------ wgmma

/// One `wgmma` test: a 64 x N x (K per instruction * k_steps) product with operands laid out in
/// shared memory as the PTX ISA's canonical layouts say (built on the host below).
#[derive(Clone, Copy, Debug)]
struct WgCfg {
    n: u32,
    a: MmaType,
    b: MmaType,
    /// Swizzle of both operands.
    swizzle: Swizzle,
    trans_a: bool,
    trans_b: bool,
    /// A from registers instead of shared memory.
    a_regs: bool,
    k_steps: u32,
    neg_a: bool,
    /// Start from the values in `out` (scale-d set from the first step).
    accumulate: bool,
}

impl WgCfg {
    fn new(n: u32, ty: MmaType, swizzle: Swizzle, k_steps: u32) -> WgCfg {
        WgCfg {
            n,
            a: ty,
            b: ty,
            swizzle,
            trans_a: false,
            trans_b: false,
            a_regs: false,
            k_steps,
            neg_a: false,
            accumulate: false,
        }
    }
    fn k(&self) -> u32 {
        self.a.k() * self.k_steps
    }
    fn op(&self) -> Wgmma {
        let mut w = Wgmma::new(self.n, self.a).with_b(self.b);
        if self.trans_a {
            w = w.trans_a();
        }
        if self.trans_b {
            w = w.trans_b();
        }
        if self.neg_a {
            w = w.neg_a();
        }
        w
    }
}

/// Bytes of one swizzle row (0 without swizzle).
fn swizzle_bytes(s: Swizzle) -> u32 {
    match s {
        Swizzle::None => 0,
        Swizzle::B32 => 32,
        Swizzle::B64 => 64,
        Swizzle::B128 => 128,
    }
}

/// Where element (`mn`, `k`) of a `rows` x `k_total` operand of `esize`-byte elements lives, and
/// the descriptor's (LBO, SBO), in the canonical layout: K-major swizzled operands are rows of S
/// bytes in 8-row atoms (consecutive atoms along M/N, then along K); K-major without swizzle
/// is 8x16-byte core matrices, contiguous along K; M/N-major 128-byte swizzle is atoms of 64
/// elements along M/N by 8 along K.
fn operand_offset(
    mn: u32,
    k: u32,
    rows: u32,
    k_total: u32,
    esize: u32,
    swz: Swizzle,
    k_major: bool,
) -> (u32, u32, u32) {
    let s = swizzle_bytes(swz);
    if k_major {
        let kb = k * esize;
        if s == 0 {
            let row_chunks = k_total * esize / 16;
            let (lbo, sbo) = (128, 128 * row_chunks);
            ((mn / 8) * sbo + (kb / 16) * lbo + (mn % 8) * 16 + kb % 16, lbo, sbo)
        } else {
            let atom_col = rows * s;
            let off = (kb / s) * atom_col + (mn / 8) * 8 * s + (mn % 8) * s + kb % s;
            (off, 16, 8 * s)
        }
    } else {
        assert_eq!(s, 128, "the tests use M/N-major operands with 128-byte swizzle");
        let per_chunk = 128 / esize;
        let (sbo, lbo) = (1024, (k_total / 8) * 1024);
        let off = (mn / per_chunk) * lbo + (k / 8) * sbo + (k % 8) * 128 + (mn % per_chunk) * esize;
        (off, lbo, sbo)
    }
}

fn apply_swizzle(off: u32, swz: Swizzle) -> u32 {
    let bits = match swz {
        Swizzle::None => return off,
        Swizzle::B32 => 1,
        Swizzle::B64 => 2,
        Swizzle::B128 => 3,
    };
    off ^ (((off >> 7) & ((1 << bits) - 1)) << 4)
}

/// Bytes an operand of `rows` rows takes in shared memory (swizzled rows are at least S bytes).
fn operand_bytes(rows: u32, k_total: u32, esize: u32, swz: Swizzle) -> u32 {
    rows * (k_total * esize).next_multiple_of(swizzle_bytes(swz).max(1))
}

/// The descriptor start offset of K step `s`, and LBO and SBO.
fn step_layout(c: &WgCfg, rows: u32, ty: MmaType, k_major: bool, s: u32) -> (u32, u32, u32) {
    let (_, lbo, sbo) = operand_offset(0, 0, rows, c.k(), ty.bytes(), c.swizzle, k_major);
    let k0 = s * ty.k();
    let kb = k0 * ty.bytes();
    let sw = swizzle_bytes(c.swizzle);
    let start = match (k_major, kb.checked_div(sw)) {
        (false, _) => (k0 / 8) * sbo,
        (true, None) => (kb / 16) * lbo,
        (true, Some(col)) => col * rows * sw + kb % sw,
    };
    (start, lbo, sbo)
}

/// Encodes a small integer as an element of `ty`.
fn encode(ty: MmaType, v: i32) -> u32 {
    match ty {
        MmaType::F16 => half::f16::from_f32(v as f32).to_bits() as u32,
        MmaType::BF16 => half::bf16::from_f32(v as f32).to_bits() as u32,
        MmaType::TF32 => (v as f32).to_bits(),
        // Small integers are exact in both 8-bit formats.
        MmaType::E5M2 => (half::f16::from_f32(v as f32).to_bits() >> 8) as u32,
        MmaType::E4M3 => {
            if v == 0 {
                return 0;
            }
            let (s, a) = ((v < 0) as u32, v.unsigned_abs());
            let e = 31 - a.leading_zeros();
            let m = ((a << 3) >> e) & 7;
            s << 7 | (e + 7) << 3 | m
        }
    }
}

/// The shared-memory image of an operand (as u32 words), and its elements.
fn operand_image(c: &WgCfg, rows: u32, ty: MmaType, k_major: bool, r: &mut Rng) -> (Vec<u32>, Vec<Vec<i32>>) {
    let (k_total, esize) = (c.k(), ty.bytes());
    let vals: Vec<Vec<i32>> =
        (0..rows).map(|_| (0..k_total).map(|_| (r.u32() % 9) as i32 - 4).collect()).collect();
    let bytes = operand_bytes(rows, k_total, esize, c.swizzle);
    let mut img = vec![0u8; bytes as usize];
    for mn in 0..rows {
        for k in 0..k_total {
            let (off, _, _) = operand_offset(mn, k, rows, k_total, esize, c.swizzle, k_major);
            let at = apply_swizzle(off, c.swizzle) as usize;
            let bits = encode(ty, vals[mn as usize][k as usize]).to_le_bytes();
            img[at..at + esize as usize].copy_from_slice(&bits[..esize as usize]);
        }
    }
    let words = img.chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
    (words, vals)
}

/// A's register fragments for each K step: 4 u32 per thread, thread t = 32 w + lane, holding
/// rows 16 w + ... in the layout of its type.
fn a_fragments(c: &WgCfg, a: &[Vec<i32>]) -> Vec<u32> {
    let ty = c.a;
    let mut out = vec![0u32; (c.k_steps * 128 * 4) as usize];
    for s in 0..c.k_steps {
        for t in 0..128u32 {
            let (w, l) = (t / 32, t % 32);
            let (g, tq) = (l / 4, l % 4);
            for j in 0..4u32 {
                let mut reg = 0u32;
                match ty {
                    MmaType::F16 | MmaType::BF16 => {
                        for h in 0..2 {
                            let i = 2 * j + h;
                            let row = 16 * w + g + if i % 4 >= 2 { 8 } else { 0 };
                            let col = 2 * tq + (i & 1) + if i >= 4 { 8 } else { 0 };
                            reg |= encode(ty, a[row as usize][(s * 16 + col) as usize]) << (16 * h);
                        }
                    }
                    MmaType::TF32 => {
                        let (row, col) = (16 * w + g + 8 * (j % 2), tq + 4 * (j / 2));
                        reg = encode(ty, a[row as usize][(s * 8 + col) as usize]);
                    }
                    _ => {
                        for byte in 0..4 {
                            let (row, col) = (16 * w + g + 8 * (j % 2), 4 * tq + byte + 16 * (j / 2));
                            reg |= encode(ty, a[row as usize][(s * 32 + col) as usize]) << (8 * byte);
                        }
                    }
                }
                out[((s * 128 + t) * 4 + j) as usize] = reg;
            }
        }
    }
    out
}

#[kernel]
fn wgmma_tile(#[comptime] c: WgCfg, a_img: &[u32], b_img: &[u32], a_frag: &[u32], out: &mut [f32]) {
    let sa =
        shared_array_aligned::<u32>((operand_bytes(64, c.k(), c.a.bytes(), c.swizzle) / 4) as usize, 1024);
    let sb =
        shared_array_aligned::<u32>((operand_bytes(c.n, c.k(), c.b.bytes(), c.swizzle) / 4) as usize, 1024);
    let t = thread_idx_x();
    let mut i = t;
    while i < a_img.len() as u32 {
        sa[i] = a_img[i];
        i += 128u32;
    }
    let mut j = t;
    while j < b_img.len() as u32 {
        sb[j] = b_img[j];
        j += 128u32;
    }
    fence_proxy_async();
    sync_threads();
    let op = c.op();
    let acc = op.accumulator();
    let w = t / 32u32;
    let l = lane_id();
    let n = c.n;
    if c.accumulate {
        for q in 0..(n / 8) {
            for v in 0..4u32 {
                let row = 16u32 * w + l / 4u32 + if v >= 2 { 8u32 } else { 0u32 };
                let col = 8u32 * q + 2u32 * (l % 4u32) + (v & 1);
                acc.set((4 * q + v) as usize, out[row * n + col]);
            }
        }
    }
    wgmma_fence();
    for s in 0..c.k_steps {
        let (a0, alo, aso) = step_layout(&c, 64, c.a, !c.trans_a, s);
        let (b0, blo, bso) = step_layout(&c, c.n, c.b, !c.trans_b, s);
        let bd = matrix_descriptor(&sb, b0 / 4, c.swizzle, blo, bso);
        let scale = s > 0 || c.accumulate;
        if c.a_regs {
            let base = (s * 128u32 + t) * 4u32;
            let regs = vec4(a_frag[base], a_frag[base + 1u32], a_frag[base + 2u32], a_frag[base + 3u32]);
            wgmma_rs(op, &acc, regs, bd, scale);
        } else {
            let ad = matrix_descriptor(&sa, a0 / 4, c.swizzle, alo, aso);
            wgmma(op, &acc, ad, bd, scale);
        }
    }
    wgmma_commit();
    wgmma_wait(0);
    for q in 0..(n / 8) {
        for v in 0..4u32 {
            let row = 16u32 * w + l / 4u32 + if v >= 2 { 8u32 } else { 0u32 };
            let col = 8u32 * q + 2u32 * (l % 4u32) + (v & 1);
            out[row * n + col] = acc.get((4 * q + v) as usize);
        }
    }
}

fn check_wgmma(c: WgCfg) {
    let mut r = Rng::new();
    let (a_img, a) = operand_image(&c, 64, c.a, !c.trans_a, &mut r);
    let (b_img, b) = operand_image(&c, c.n, c.b, !c.trans_b, &mut r);
    let frag = if c.a_regs { a_fragments(&c, &a) } else { vec![0u32; 4] };
    let n = c.n as usize;
    let init: Vec<f32> = if c.accumulate {
        (0..64 * n).map(|_| (r.u32() % 100) as f32 - 50.0).collect()
    } else {
        vec![0.0; 64 * n]
    };
    let out = Launch::new(&format!("wgmma {c:?}"), wgmma_tile::kernel(c), 1, 128)
        .buf(&a_img)
        .buf(&b_img)
        .buf(&frag)
        .buf(&init)
        .run();
    let got = out.get::<f32>(3);
    let sign = if c.neg_a { -1.0 } else { 1.0 };
    let mut want = vec![0f64; 64 * n];
    for m in 0..64 {
        for col in 0..n {
            let dot: f64 = (0..c.k() as usize).map(|k| a[m][k] as f64 * b[col][k] as f64).sum();
            want[m * n + col] = sign * dot + init[m * n + col] as f64;
        }
    }
    // Small integers: every product and sum is exact, so results must match exactly.
    check_close(&format!("wgmma {c:?}"), &f64s(&got), &want, 0.0, 0.0);
}

macro_rules! wgmma_tests {
    ($($name:ident => $cfg:expr;)*) => {$(
        #[test]
        fn $name() {
            check_wgmma($cfg);
        }
    )*};
}

fn with(c: WgCfg, f: impl FnOnce(&mut WgCfg)) -> WgCfg {
    let mut c = c;
    f(&mut c);
    c
}

// One test per configuration, so a GPU fault in one leaves the others' results standing.
wgmma_tests! {
    wgmma_bf16_n8 => WgCfg::new(8, MmaType::BF16, Swizzle::B128, 4);
    wgmma_bf16_n64 => WgCfg::new(64, MmaType::BF16, Swizzle::B128, 4);
    wgmma_bf16_n256 => WgCfg::new(256, MmaType::BF16, Swizzle::B128, 4);
    wgmma_f16_n128_negated_a => with(WgCfg::new(128, MmaType::F16, Swizzle::B128, 2), |c| c.neg_a = true);
    wgmma_tf32_n64 => WgCfg::new(64, MmaType::TF32, Swizzle::B128, 4);
    wgmma_e4m3_n128 => WgCfg::new(128, MmaType::E4M3, Swizzle::B128, 4);
    wgmma_e5m2_by_e4m3_n64 => with(WgCfg::new(64, MmaType::E5M2, Swizzle::B128, 2), |c| c.b = MmaType::E4M3);
    wgmma_bf16_64_byte_swizzle => WgCfg::new(32, MmaType::BF16, Swizzle::B64, 2);
    wgmma_bf16_32_byte_swizzle => WgCfg::new(32, MmaType::BF16, Swizzle::B32, 2);
    wgmma_bf16_no_swizzle => WgCfg::new(32, MmaType::BF16, Swizzle::None, 2);
    wgmma_bf16_mn_major_operands => with(WgCfg::new(128, MmaType::BF16, Swizzle::B128, 2), |c| {
        c.trans_a = true;
        c.trans_b = true;
    });
    wgmma_bf16_a_from_registers => with(WgCfg::new(64, MmaType::BF16, Swizzle::B128, 2), |c| c.a_regs = true);
    wgmma_tf32_a_from_registers => with(WgCfg::new(32, MmaType::TF32, Swizzle::B128, 2), |c| c.a_regs = true);
    wgmma_e4m3_a_from_registers => with(WgCfg::new(64, MmaType::E4M3, Swizzle::B128, 2), |c| c.a_regs = true);
    wgmma_f16_accumulates_onto_d => with(WgCfg::new(64, MmaType::F16, Swizzle::B128, 1), |c| c.accumulate = true);
}

// ------------------------------------------------------------------ warp-specialized GEMM skeleton

/// Block tile of the skeleton GEMM: 128 x 64 outputs, K in steps of 32 (64 bytes of bf16, one
/// 64-byte swizzle row), two pipeline stages (24 KiB of shared memory).
const GM: u32 = 128;
const GN: u32 = 64;
const GK: u32 = 32;
const STAGES: u32 = 2;
const A_STAGE: u32 = GM * GK; // elements
const B_STAGE: u32 = GN * GK;

/// `C = A B^T` (bf16 in, f32 out) by one producer warpgroup and two consumer warpgroups: the
/// producer moves A and B tiles into a two-stage ring with TMA, signalling `full`; each consumer
/// multiplies its 64 rows with `wgmma` and frees the stage on `empty`. The producer gives
/// registers to the consumers with `setmaxnreg`. The skeleton the GEMM grows from.
#[kernel]
fn ws_gemm(ta: TensorMap, tb: TensorMap, c: &mut [f32], k_tiles: u32) {
    launch_bounds(384, 1);
    let smem = dyn_shared_aligned::<bf16>(1024);
    let full = Barriers::new(STAGES as usize);
    let empty = Barriers::new(STAGES as usize);
    let t = thread_idx_x();
    let wg = t / 128u32;
    let m0 = block_idx_y() * GM;
    let n0 = block_idx_x() * GN;
    let n_total = grid_dim_x() * GN;
    if t == 0u32 {
        for s in 0..STAGES {
            full.init(s, 1u32);
            empty.init(s, 2u32);
        }
        fence_mbarrier_init();
    }
    sync_threads();
    if wg == 0u32 {
        setmaxnreg_dec(40);
        if t == 0u32 {
            for kt in 0u32..k_tiles {
                let s = kt % STAGES;
                let phase = (kt / STAGES) % 2u32;
                if kt >= STAGES {
                    empty.wait(s, phase ^ 1u32);
                }
                full.arrive_expect_tx(s, (A_STAGE + B_STAGE) * 2u32);
                let k0 = (kt * GK) as i32;
                ta.load(&smem, s * A_STAGE, &full, s, [k0, m0 as i32]);
                tb.load(&smem, STAGES * A_STAGE + s * B_STAGE, &full, s, [k0, n0 as i32]);
            }
        }
    } else {
        setmaxnreg_inc(232);
        let op = Wgmma::new(GN, MmaType::BF16);
        let acc = op.accumulator();
        let cw = wg - 1u32;
        for kt in 0u32..k_tiles {
            let s = kt % STAGES;
            let phase = (kt / STAGES) % 2u32;
            full.wait(s, phase);
            wgmma_fence();
            for kk in 0..(GK / 16) {
                let a_at = s * A_STAGE + cw * 64u32 * GK + kk * 16;
                let b_at = STAGES * A_STAGE + s * B_STAGE + kk * 16;
                let ad = matrix_descriptor(&smem, a_at, Swizzle::B64, 16, 512);
                let bd = matrix_descriptor(&smem, b_at, Swizzle::B64, 16, 512);
                if kk == 0 {
                    wgmma(op, &acc, ad, bd, kt > 0u32);
                } else {
                    wgmma(op, &acc, ad, bd, true);
                }
            }
            wgmma_commit();
            wgmma_wait(0);
            if t % 128u32 == 0u32 {
                empty.arrive(s);
            }
        }
        let w = (t % 128u32) / 32u32;
        let l = lane_id();
        for q in 0..(GN / 8) {
            for v in 0..4u32 {
                let row = m0 + cw * 64u32 + 16u32 * w + l / 4u32 + if v >= 2 { 8u32 } else { 0u32 };
                let col = n0 + 8u32 * q + 2u32 * (l % 4u32) + (v & 1);
                c[row * n_total + col] = acc.get((4 * q + v) as usize);
            }
        }
    }
}

#[test]
fn warp_specialized_tma_wgmma_pipeline_multiplies_matrices() {
    let mut r = Rng::new();
    let (m, n, k) = (256usize, 128usize, 512usize);
    let ints = |r: &mut Rng, len: usize| -> Vec<i32> { (0..len).map(|_| (r.u32() % 9) as i32 - 4).collect() };
    let (ai, bi) = (ints(&mut r, m * k), ints(&mut r, n * k));
    let a: Vec<bf16> = ai.iter().map(|&v| bf16::from_f32(v as f32)).collect();
    let b: Vec<bf16> = bi.iter().map(|&v| bf16::from_f32(v as f32)).collect();
    let la = TiledLayout::new(&[k as u64, m as u64], &[GK, GM]).with_swizzle(TensorMapSwizzle::B64);
    let lb = TiledLayout::new(&[k as u64, n as u64], &[GK, GN]).with_swizzle(TensorMapSwizzle::B64);
    let smem = STAGES * (A_STAGE + B_STAGE) * 2;
    let out = Launch::new("ws_gemm", ws_gemm::kernel(), ((n as u32) / GN, (m as u32) / GM), 384)
        .shared(smem)
        .buf(&a)
        .buf(&b)
        .tensor_map(0, la)
        .tensor_map(1, lb)
        .buf(&vec![0f32; m * n])
        .scalar((k as u32) / GK)
        .pass_only(&[2, 3, 4, 5])
        .run();
    let got = out.get::<f32>(4);
    let mut want = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            want[i * n + j] = (0..k).map(|p| ai[i * k + p] as f64 * bi[j * k + p] as f64).sum();
        }
    }
    check_close("ws_gemm", &f64s(&got), &want, 0.0, 0.0);
}

#[kernel]
fn maxnreg_roles(out: &mut [u32]) {
    launch_bounds(256, 1);
    let t = thread_idx_x();
    if t < 128u32 {
        setmaxnreg_dec(56);
        out[t] = t * 2u32;
    } else {
        setmaxnreg_inc(200);
        out[t] = t * 3u32;
    }
}

#[test]
fn setmaxnreg_moves_registers_between_warpgroups() {
    let out = Launch::new("maxnreg_roles", maxnreg_roles::kernel(), 1, 256).buf(&[0u32; 256]).run();
    let want: Vec<u32> = (0..256).map(|t| if t < 128 { t * 2 } else { t * 3 }).collect();
    assert_eq!(out.get::<u32>(0), want);
    // The launch bounds the PTX states, which setmaxnreg needs.
    let ptx = maxnreg_roles::kernel().unwrap().ptx("sm_90a").unwrap();
    assert!(ptx.contains(".maxntid 256, 1, 1") && ptx.contains(".minnctapersm 1"), "{ptx}");
    assert!(ptx.contains("setmaxnreg.dec.sync.aligned.u32 56;"), "{ptx}");
}

/// Each CTA of a cluster of 2 arrives on its partner's barrier (a remote arrive through `mapa`)
/// after writing into the partner's shared memory, then waits for its own barrier.
#[kernel]
fn remote_arrive(#[comptime] cta_scope: bool, out: &mut [u32]) {
    cluster_dims(2, 1, 1);
    let s = shared_array::<u32>(32);
    let bar = Barriers::new(1);
    let t = thread_idx_x();
    let rank = cluster_rank();
    let partner = rank ^ 1u32;
    if t == 0u32 {
        bar.init(0u32, 32u32);
        fence_mbarrier_init();
    }
    cluster_sync();
    dsmem_store(&s, t, partner, t * 10u32 + rank);
    fence_block();
    if cta_scope {
        bar.arrive_remote_cta(0u32, partner);
    } else {
        bar.arrive_remote(0u32, partner);
    }
    // Released by all 32 of the partner's threads; the cluster barrier then orders their
    // stores at cluster scope before the reads.
    bar.wait(0u32, 0u32);
    cluster_sync();
    out[block_idx_x() * 32u32 + t] = s[t];
}

#[test]
fn remote_mbarrier_arrivals_release_the_partner_cta() {
    // Both scopes of release: the phase completes either way, and the cluster barrier after
    // the wait orders the partner's stores.
    for cta_scope in [false, true] {
        let out = Launch::new("remote_arrive", remote_arrive::kernel(cta_scope), 4, 32)
            .cluster(2)
            .buf(&[0u32; 128])
            .run();
        let got = out.get::<u32>(0);
        for b in 0..4u32 {
            for t in 0..32u32 {
                // Written by the partner (rank ^ 1).
                assert_eq!(
                    got[(b * 32 + t) as usize],
                    t * 10 + ((b % 2) ^ 1),
                    "block {b} thread {t}, cta scope {cta_scope}"
                );
            }
        }
    }
}
