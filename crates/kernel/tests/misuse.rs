//! Misuse of the kernel language, the compiler and the CPU executor: a table of cases, each run
//! by one `check`, which asserts the kind of error, a phrase of its message, and that nothing was
//! written to the kernel's output (it starts filled with a sentinel).

use ferrocm_kernel::ir::{self, Builder, MemSpace, ScalarType};
use ferrocm_kernel::prelude::*;
use ferrocm_kernel::{dims, HostArgs, KernelError};

const SENTINEL: u32 = 0xDEAD_BEEF;

/// The kind of error a case must give.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// The kernel could not be built (a size, an operand, a shape).
    Build,
    /// A GPU limit refused when the kernel loads.
    Limit,
    /// An instruction the target lacks.
    MissingFeature,
    /// Code generation refused the target (PTX version).
    Codegen,
    /// The executor refused or stopped the launch.
    Launch,
    /// Host arguments that do not match the kernel.
    HostArg,
}

fn kind_of(e: &KernelError) -> Option<Kind> {
    Some(match e {
        KernelError::Build { .. } => Kind::Build,
        KernelError::Limit(_) => Kind::Limit,
        KernelError::MissingFeature { .. } => Kind::MissingFeature,
        KernelError::Codegen { .. } => Kind::Codegen,
        KernelError::Launch { .. } => Kind::Launch,
        KernelError::HostArg { .. } => Kind::HostArg,
        _ => return None,
    })
}

struct Case {
    name: &'static str,
    /// Misuses the compiler or the executor with `out` as the kernel's output.
    run: fn(&mut [u32]) -> Result<(), KernelError>,
    kind: Kind,
    says: &'static str,
}

fn check(case: &Case) -> Result<(), String> {
    let mut out = vec![SENTINEL; 256];
    let e = match (case.run)(&mut out) {
        Ok(()) => return Err(format!("{}: expected an error", case.name)),
        Err(e) => e,
    };
    let msg = e.to_string();
    if kind_of(&e) != Some(case.kind) {
        return Err(format!("{}: expected a {:?} error, got {e:?}", case.name, case.kind));
    }
    if !msg.contains(case.says) {
        return Err(format!("{}: the message `{msg}` does not say `{}`", case.name, case.says));
    }
    if let Some(i) = out.iter().position(|&x| x != SENTINEL) {
        return Err(format!("{}: element {i} of the output was written ({:#x})", case.name, out[i]));
    }
    Ok(())
}

fn one_block(threads: u32) -> LaunchDims {
    dims(1, threads, 0)
}

// ------------------------------------------------------------------ kernels

#[kernel]
fn wrapping_shared(out: &mut [u32]) {
    // 0x2000_0001 f64 is 2^32 + 8 bytes: 8 in 32 bits, which let this write past the heap.
    let s = shared_array::<f64>(0x2000_0001);
    s[3u32] = 7.0f64;
    out[0u32] = 1u32;
}

#[kernel]
fn huge_local(out: &mut [u32]) {
    // 2 GiB per thread: once an abort ("memory allocation of 68719476736 bytes failed").
    let l = local_array::<f64>(0x0FFF_FFFF);
    l[1u32] = 1.0f64;
    out[0u32] = 1u32;
}

#[kernel]
fn four_mb_static_shared(out: &mut [u32]) {
    let s = shared_array::<u32>(1 << 20);
    s[thread_idx_x()] = 1u32;
    out[0u32] = s[0u32];
}

#[kernel]
fn too_much_dynamic(out: &mut [u32]) {
    let s = shared_array::<u32>(10 * 1024);
    let d = dyn_shared::<u32>();
    d[0u32] = s[0u32];
    out[0u32] = d[0u32];
}

#[kernel]
fn cp_async_260(x: &[u32], out: &mut [u32]) {
    let s = shared_array::<u32>(128);
    cp_async(&s, 0u32, &x, 0u32, 260);
    out[0u32] = s[0u32];
}

#[kernel]
fn odd_alignment(out: &mut [u32]) {
    let s = shared_array_aligned::<u32>(64, 48);
    out[0u32] = s[0u32];
}

#[kernel]
fn wgmma_n12(out: &mut [u32]) {
    let op = Wgmma::new(12, MmaType::BF16);
    let acc = fragment::<f32>(6, 0.0f32);
    wgmma(op, &acc, Val::constant(0u64), Val::constant(0u64), true);
    out[0u32] = 1u32;
}

#[kernel]
fn wgmma_small_accumulator(out: &mut [u32]) {
    let op = Wgmma::new(64, MmaType::F16);
    let acc = fragment::<f32>(16, 0.0f32);
    wgmma(op, &acc, Val::constant(0u64), Val::constant(0u64), true);
    out[0u32] = 1u32;
}

#[kernel]
fn ldmatrix_f32(out: &mut [u32]) {
    let s = shared_array::<f32>(256);
    let r = ldmatrix_x4(&s, lane_id() * 8u32);
    out[0u32] = r.get(0);
}

#[kernel]
fn tma_six_dims(map: TensorMap, out: &mut [u32]) {
    let s = shared_array_aligned::<u8>(1024, 1024);
    let bar = Barriers::new(1);
    map.load(&s, 0u32, &bar, 0u32, [0i32, 0, 0, 0, 0, 0]);
    out[0u32] = 1u32;
}

/// A TMA load whose innermost coordinate is 10 bytes into the tensor (u16 element 5).
#[kernel]
fn tma_unaligned_inner(map: TensorMap, out: &mut [u32]) {
    let s = shared_array_aligned::<u8>(1024, 1024);
    let bar = Barriers::new(1);
    if thread_idx_x() == 0u32 {
        bar.init(0u32, 1u32);
        bar.arrive_expect_tx(0u32, 1024u32);
        map.load(&s, 0u32, &bar, 0u32, [5i32, 0]);
    }
    bar.wait(0u32, 0u32);
    out[0u32] = 1u32;
}

/// A TMA store whose box starts one row before the tensor.
#[kernel]
fn tma_store_negative(map: TensorMap, out: &mut [u32]) {
    let s = shared_array_aligned::<u8>(1024, 1024);
    if thread_idx_x() == 0u32 {
        map.store(&s, 0u32, [0i32, -1]);
        bulk_commit();
        bulk_wait(0);
    }
    out[0u32] = 1u32;
}

#[kernel]
fn setmaxnreg_30(out: &mut [u32]) {
    setmaxnreg_inc(30);
    out[0u32] = 1u32;
}

#[kernel]
fn break_in_unrolled(out: &mut [u32]) {
    for i in 0..4u32 {
        if i == 2u32 {
            break;
        }
        out[i] = i;
    }
}

#[kernel]
fn big_fragment(out: &mut [u32]) {
    let f = fragment::<u32>(200, 0u32);
    out[0u32] = f.get(0);
}

#[kernel]
fn wgmma_kernel(out: &mut [u32]) {
    wgmma_fence();
    out[thread_idx_x()] = 1u32;
}

#[kernel]
fn bounded(out: &mut [u32]) {
    launch_bounds(128, 1);
    out[thread_idx_x()] = 1u32;
}

#[kernel]
fn plain(out: &mut [u32]) {
    out[thread_idx_x()] = 1u32;
}

#[kernel]
fn grid_synced(out: &mut [u32]) {
    grid_sync();
    out[thread_idx_x()] = 1u32;
}

#[kernel]
fn divergent_sync(out: &mut [u32]) {
    let t = thread_idx_x();
    if t < 32u32 {
        sync_threads();
    } else {
        sync_threads();
    }
    out[t] = t;
}

#[kernel]
fn partial_return(out: &mut [u32]) {
    let t = thread_idx_x();
    if t >= 32u32 {
        return;
    }
    sync_threads();
    out[t] = t;
}

#[kernel]
fn wait_forever(out: &mut [u32]) {
    let bar = Barriers::new(1);
    if thread_idx_x() == 0u32 {
        bar.init(0u32, 2u32);
    }
    sync_threads();
    // Only one of the two arrivals the phase needs ever comes.
    if thread_idx_x() == 0u32 {
        bar.arrive(0u32);
    }
    bar.wait(0u32, 0u32);
    out[thread_idx_x()] = 1u32;
}

#[kernel]
fn arrive_twice(out: &mut [u32]) {
    let bar = Barriers::new(1);
    if thread_idx_x() == 0u32 {
        bar.init(0u32, 2u32);
        bar.arrive(0u32);
        bar.arrive(0u32);
    }
    sync_threads();
    out[thread_idx_x()] = 1u32;
}

#[kernel]
fn tx_never_fills(out: &mut [u32]) {
    let bar = Barriers::new(1);
    if thread_idx_x() == 0u32 {
        bar.init(0u32, 1u32);
        bar.arrive_expect_tx(0u32, 64u32);
    }
    sync_threads();
    bar.wait(0u32, 0u32);
    out[thread_idx_x()] = 1u32;
}

#[kernel]
fn uninitialized_barrier(out: &mut [u32]) {
    let bar = Barriers::new(1);
    bar.arrive(0u32);
    out[thread_idx_x()] = 1u32;
}

#[kernel]
fn divergent_sync_warp(out: &mut [u32]) {
    let t = thread_idx_x();
    if t < 16u32 {
        sync_warp();
    }
    out[t] = t;
}

#[kernel]
fn sync_warp_without_own_lane(out: &mut [u32]) {
    let t = thread_idx_x();
    sync_warp_mask(0xFFFF_FFFEu32);
    out[t] = t;
}

#[kernel]
fn divergent_shuffle(out: &mut [u32]) {
    let t = thread_idx_x();
    let mut v = t;
    if t < 16u32 {
        v = shfl_xor(t, 1u32);
    }
    out[t] = v;
}

#[kernel]
fn named_bad_count(out: &mut [u32]) {
    named_barrier_sync(1u32, 48u32);
    out[thread_idx_x()] = 1u32;
}

#[kernel]
fn out_of_bounds(x: &[u32], out: &mut [u32]) {
    let v = x[thread_idx_x() + 1000u32];
    out[thread_idx_x()] = v;
}

#[kernel]
fn typed_args(x: &[f32], out: &mut [u32]) {
    out[0u32] = x[0u32] as u32;
}

#[kernel]
fn cluster_kernel(out: &mut [u32]) {
    out[block_idx_x()] = cluster_rank();
}

#[kernel]
fn fill_ones(out: &mut [u32]) {
    let i = global_index();
    if i < out.len() {
        out[i] = 1u32;
    }
}

/// The timed variant of `fill_ones` with a timing slot of `words` elements.
fn timed_with_slot(out: &mut [u32], words: usize) -> Result<(), KernelError> {
    let mut slot = vec![0u64; words];
    let mut args = HostArgs::default();
    args.push(out).push(&mut slot[..]);
    fill_ones::kernel()?.timed()?.launch_host(one_block(32), &args)
}

// ------------------------------------------------------------------ the table

fn host(
    k: Result<std::sync::Arc<ferrocm_kernel::CompiledKernel>, KernelError>,
    d: LaunchDims,
    out: &mut [u32],
) -> Result<(), KernelError> {
    let mut args = HostArgs::default();
    args.push(out);
    k?.launch_host(d, &args)
}

static CASES: &[Case] = &[
    Case {
        name: "timed variant given an empty timing slot",
        run: |o| timed_with_slot(o, 0),
        kind: Kind::Launch,
        says: "ferrocm_timing_slot",
    },
    Case {
        name: "timed variant launched without its timing slot",
        run: |o| host(fill_ones::kernel().and_then(|k| k.timed()), one_block(32), o),
        kind: Kind::HostArg,
        says: "the kernel takes 2 arguments, got 1",
    },
    Case {
        name: "shared array whose byte size wrapped u32 (heap corruption)",
        run: |o| wrapping_shared::launch_host(one_block(32), o),
        kind: Kind::Build,
        says: "4294967304 bytes is larger than any device allows",
    },
    Case {
        name: "local array of 2 GiB per thread (process abort)",
        run: |o| huge_local::launch_host(one_block(32), o),
        kind: Kind::Limit,
        says: "2147483648 bytes of local memory per thread; the limit is 524288 bytes",
    },
    Case {
        name: "4 MiB of static shared memory, which the CPU once accepted",
        run: |o| four_mb_static_shared::launch_host(one_block(32), o),
        kind: Kind::Limit,
        says: "4194304 bytes of static shared memory; the limit is 49152 bytes",
    },
    Case {
        name: "4 MiB of static shared memory through the runtime's CPU device",
        run: |o| {
            let stream = Device::cpu().expect("cpu device").create_stream().expect("stream");
            let mut buf = stream.clone_htod(o).expect("upload");
            let r = four_mb_static_shared::launch(&stream, LaunchConfig::new(1, 32), &mut buf);
            o.copy_from_slice(&stream.clone_dtoh(&buf).expect("download"));
            r
        },
        kind: Kind::Limit,
        says: "the limit is 49152 bytes",
    },
    Case {
        name: "static plus dynamic shared memory over the opt-in limit",
        run: |o| too_much_dynamic::launch_host(dims(1, 32, 200 * 1024), o),
        kind: Kind::Launch,
        says: "more than the 232448 bytes a block may use",
    },
    Case {
        name: "cp_async of 260 bytes (once truncated to 4)",
        run: |o| {
            let x = [0u32; 128];
            cp_async_260::launch_host(one_block(32), &x, o)
        },
        kind: Kind::Build,
        says: "copies 4, 8 or 16 bytes, not 260",
    },
    Case {
        name: "shared memory aligned to 48 bytes",
        run: |o| odd_alignment::launch_host(one_block(32), o),
        kind: Kind::Build,
        says: "alignments are powers of two from 16 to 1024",
    },
    Case {
        name: "wgmma with N = 12",
        run: |o| wgmma_n12::launch_host(one_block(128), o),
        kind: Kind::Build,
        says: "N is 12; it must be a multiple of 8",
    },
    Case {
        name: "wgmma accumulator of the wrong size",
        run: |o| wgmma_small_accumulator::launch_host(one_block(128), o),
        kind: Kind::Build,
        says: "the accumulator is f32x16, expected f32x32",
    },
    Case {
        name: "ldmatrix of 32-bit elements",
        run: |o| ldmatrix_f32::launch_host(one_block(32), o),
        kind: Kind::Build,
        says: "moves 16-bit elements",
    },
    Case {
        name: "TMA copy with 6 coordinates",
        run: |o| host(tma_six_dims::kernel(), one_block(32), o),
        kind: Kind::Build,
        says: "tensors have 1 to 5 dimensions",
    },
    Case {
        name: "TMA load at an innermost coordinate 10 bytes into the tensor",
        run: |o| {
            let mut data = vec![0u16; 64 * 8];
            let layout = ferrocm_kernel::runtime::TiledLayout::new(&[64, 8], &[64, 8]);
            let map = HostTensorMap::new(&mut data, &layout).expect("a valid map");
            tma_unaligned_inner::launch_host(one_block(32), &map, o)
        },
        kind: Kind::Launch,
        says: "the innermost TMA coordinate 5 lies 10 bytes from the tensor's start, not a multiple of 16",
    },
    Case {
        name: "TMA store whose box starts before the tensor",
        run: |o| {
            let mut data = vec![0xAAAAu16; 64 * 8];
            let layout = ferrocm_kernel::runtime::TiledLayout::new(&[64, 8], &[64, 8]);
            let r = {
                let map = HostTensorMap::new(&mut data, &layout).expect("a valid map");
                tma_store_negative::launch_host(one_block(32), &map, o)
            };
            assert!(data.iter().all(|&v| v == 0xAAAA), "the refused store wrote to the tensor");
            r
        },
        kind: Kind::Launch,
        says: "TMA store coordinate 1 is -1; a store's box may not start before the tensor",
    },
    Case {
        name: "setmaxnreg to 30 registers",
        run: |o| setmaxnreg_30::launch_host(one_block(128), o),
        kind: Kind::Build,
        says: "it must be a multiple of 8 from 24 to 256",
    },
    Case {
        name: "break in a loop unrolled at compile time",
        run: |o| break_in_unrolled::launch_host(one_block(32), o),
        kind: Kind::Build,
        says: "in a loop unrolled at compile time",
    },
    Case {
        name: "a fragment of 200 elements",
        run: |o| big_fragment::launch_host(one_block(32), o),
        kind: Kind::Build,
        says: "fragments have 2 to 128 elements",
    },
    Case {
        name: "wgmma for sm_80",
        run: |_| wgmma_kernel::kernel()?.ptx("sm_80").map(|_| ()),
        kind: Kind::MissingFeature,
        says: "`wgmma.fence` needs wgmma (sm_90a or newer), but the device's target is sm_80",
    },
    Case {
        name: "wgmma for a driver that takes PTX 7.8 at most",
        run: |_| {
            let mut t = ferrocm_kernel::Target::nvidia((9, 0), 12080);
            t.max_ptx_version = (7, 8);
            wgmma_kernel::kernel()?.ptx_for(&t).map(|_| ())
        },
        kind: Kind::Codegen,
        says: "needs PTX ISA 8.0, but the driver takes at most 7.8",
    },
    Case {
        name: "a block of 2048 threads",
        run: |o| plain::launch_host(one_block(2048), o),
        kind: Kind::Launch,
        says: "a block of 2048 threads is over the limit of 1024",
    },
    Case {
        name: "a block larger than the kernel's launch bounds",
        run: |o| bounded::launch_host(one_block(256), o),
        kind: Kind::Launch,
        says: "a block of 256 threads is over the limit of 128",
    },
    Case {
        name: "a grid that is not a whole number of clusters",
        run: |o| {
            let mut d = dims(3, 32, 0);
            d.cluster = Dim3::new(2, 1, 1);
            cluster_kernel::launch_host(d, o)
        },
        kind: Kind::Launch,
        says: "is not a whole number of clusters",
    },
    Case {
        name: "a cluster of 16 blocks",
        run: |o| {
            let mut d = dims(16, 32, 0);
            d.cluster = Dim3::new(16, 1, 1);
            cluster_kernel::launch_host(d, o)
        },
        kind: Kind::Launch,
        says: "a cluster of 16 blocks ((16, 1, 1)) is outside 1 to 8",
    },
    Case {
        name: "a cooperative grid larger than can be resident",
        run: |o| {
            let mut d = dims(1 << 20, 1024, 0);
            d.cooperative = true;
            grid_synced::launch_host(d, o)
        },
        kind: Kind::Launch,
        says: "a cooperative launch of 1048576 blocks is more than the",
    },
    Case {
        name: "grid_sync in a launch that is not cooperative",
        run: |o| grid_synced::launch_host(dims(2, 32, 0), o),
        kind: Kind::Launch,
        says: "grid_sync() in a launch that is not cooperative",
    },
    Case {
        name: "warps waiting at different sync_threads() calls",
        run: |o| divergent_sync::launch_host(one_block(64), o),
        kind: Kind::Launch,
        says: "wait at different sync_threads() calls",
    },
    Case {
        name: "a barrier after part of the block returned",
        run: |o| partial_return::launch_host(one_block(64), o),
        kind: Kind::Launch,
        says: "reached by only part of the block (warps [1] had already returned)",
    },
    Case {
        name: "waiting on a phase nobody completes",
        run: |o| wait_forever::launch_host(one_block(64), o),
        kind: Kind::Launch,
        says: "waits on mbarrier `@shared0[0]` for the phase of parity 0, which cannot complete (phase 0: 1 of 2 arrivals pending",
    },
    Case {
        name: "a thread arriving twice in one phase",
        run: |o| arrive_twice::launch_host(one_block(32), o),
        kind: Kind::Launch,
        says: "arrives twice in phase 0 of mbarrier `@shared0[0]`",
    },
    Case {
        name: "a transaction count that never fills",
        run: |o| tx_never_fills::launch_host(one_block(32), o),
        kind: Kind::Launch,
        says: "64 transaction bytes outstanding",
    },
    Case {
        name: "an mbarrier used before init",
        run: |o| uninitialized_barrier::launch_host(one_block(32), o),
        kind: Kind::Launch,
        says: "before it was initialized",
    },
    Case {
        name: "a shuffle in divergent code",
        run: |o| divergent_shuffle::launch_host(one_block(32), o),
        kind: Kind::Launch,
        says: "executed by only part of warp 0",
    },
    Case {
        name: "sync_warp reached by half the warp",
        run: |o| divergent_sync_warp::launch_host(one_block(32), o),
        kind: Kind::Launch,
        says: "waits for lane 16, which is not at this call",
    },
    Case {
        name: "sync_warp with a mask that leaves out the executing lane",
        run: |o| sync_warp_without_own_lane::launch_host(one_block(32), o),
        kind: Kind::Launch,
        says: "lane 0 executes bar.warp.sync with mask 0xfffffffe, which does not name it",
    },
    Case {
        name: "a named barrier of 48 threads",
        run: |o| named_bad_count::launch_host(one_block(64), o),
        kind: Kind::Launch,
        says: "the count must be a multiple of 32",
    },
    Case {
        name: "wgmma in a block that is not whole warpgroups",
        run: |o| wgmma_kernel::launch_host(one_block(96), o),
        kind: Kind::Launch,
        says: "runs on warpgroups of 128 threads, but blocks have 96 threads",
    },
    Case {
        name: "an index out of bounds",
        run: |o| {
            let x = [1u32; 64];
            out_of_bounds::launch_host(one_block(32), &x, o)
        },
        kind: Kind::Launch,
        says: "index 1000 out of bounds for `x` of length 64",
    },
    Case {
        name: "host arguments of the wrong element type",
        run: |o| {
            let x = [0u32; 4];
            let mut args = HostArgs::default();
            args.push(&x[..]).push(o);
            typed_args::kernel()?.launch_host(one_block(32), &args)
        },
        kind: Kind::HostArg,
        says: "`x` is &[f32], got &[u32]",
    },
    Case {
        name: "a read-only slice for a parameter the kernel writes",
        run: |o| {
            let x = [0f32; 4];
            let mut args = HostArgs::default();
            let shared: &[u32] = o;
            args.push(&x[..]).push(shared);
            typed_args::kernel()?.launch_host(one_block(32), &args)
        },
        kind: Kind::HostArg,
        says: "`out` is &mut [u32], got &[u32]",
    },
    Case {
        name: "too few host arguments",
        run: |o| {
            let mut args = HostArgs::default();
            args.push(o);
            typed_args::kernel()?.launch_host(one_block(32), &args)
        },
        kind: Kind::HostArg,
        says: "the kernel takes 2 arguments, got 1",
    },
];

#[test]
fn every_misuse_is_an_error_that_says_what_and_writes_nothing() {
    assert!(CASES.len() >= 25);
    let failures: Vec<String> = CASES.iter().filter_map(|c| check(c).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// A misuse below the kernel language: IR built by hand with an mbarrier on a u32 array.
#[test]
fn mbarrier_on_a_u32_array_is_refused_by_the_builder() {
    let mut b = Builder::new("k");
    let m = b.add_mem("bars", ScalarType::U32, MemSpace::Shared { len: 4, align: 16 });
    let i = b.constant(ScalarType::U32, 0);
    let c = b.constant(ScalarType::U32, 1);
    let call = ir::Call::new(&ir::intrinsics::mbarrier::INIT, &[], &[m], &[]);
    b.intrinsic(call, vec![i, c]);
    let e = b.finish().expect_err("refused");
    assert!(e.to_string().contains("mbarriers are u64 elements, but `bars` holds u32"), "{e}");
}
