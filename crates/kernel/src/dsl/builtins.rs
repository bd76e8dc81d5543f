//! Built-ins: thread and block indices, barriers, fences, warp shuffles and votes, select.

use super::*;

macro_rules! special_fns {
    ($($name:ident => $s:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` of the calling thread (a runtime `u32`).")]
        pub fn $name() -> Val<u32> {
            Val::from_ir(b(|b| b.special($s)))
        }
    )*};
}
special_fns! {
    thread_idx_x => Special::ThreadIdx(Axis::X);
    thread_idx_y => Special::ThreadIdx(Axis::Y);
    thread_idx_z => Special::ThreadIdx(Axis::Z);
    block_idx_x => Special::BlockIdx(Axis::X);
    block_idx_y => Special::BlockIdx(Axis::Y);
    block_idx_z => Special::BlockIdx(Axis::Z);
    block_dim_x => Special::BlockDim(Axis::X);
    block_dim_y => Special::BlockDim(Axis::Y);
    block_dim_z => Special::BlockDim(Axis::Z);
    grid_dim_x => Special::GridDim(Axis::X);
    grid_dim_y => Special::GridDim(Axis::Y);
    grid_dim_z => Special::GridDim(Axis::Z);
    lane_id => Special::LaneId;
    warp_size => Special::WarpSize;
}

/// The device's nanosecond timer (`%globaltimer`, a runtime `u64`; the host's
/// `CLOCK_MONOTONIC` on the CPU executor): the same clock on every multiprocessor, updated about
/// every microsecond on most NVIDIA GPUs. For spin-waits and coarse measurements.
pub fn global_timer() -> Val<u64> {
    let call = ferrocm_ir::Call::new(&ferrocm_ir::intrinsics::timer::GLOBAL_TIMER, &[], &[], &[]);
    Val::from_ir(b(|b| b.intrinsic_value(call, vec![], ferrocm_ir::Type::Scalar(ScalarType::U64))))
}

/// `block_idx_x * block_dim_x + thread_idx_x`, as a `usize` (computed in 64 bits).
pub fn global_index() -> Val<usize> {
    let bi: Val<usize> = cast::<usize, _>(block_idx_x());
    let bd: Val<usize> = cast::<usize, _>(block_dim_x());
    let t: Val<usize> = cast::<usize, _>(thread_idx_x());
    bi * bd + t
}

/// `grid_dim_x * block_dim_x`: the stride of a grid-stride loop, as a `usize`.
pub fn grid_stride() -> Val<usize> {
    let g: Val<usize> = cast::<usize, _>(grid_dim_x());
    let bd: Val<usize> = cast::<usize, _>(block_dim_x());
    g * bd
}

/// Block-wide barrier (`__syncthreads`).
pub fn sync_threads() {
    b(|b| b.barrier())
}
/// Warp-wide barrier over every lane (`__syncwarp()`): the lanes meet, and each lane's memory
/// accesses before it are ordered before every lane's accesses after it. Needed before one lane
/// publishes what all lanes wrote (a single-lane `mbarrier` arrive, a flag store).
pub fn sync_warp() {
    sync_warp_mask(u32::MAX)
}
/// Warp barrier over the lanes set in `mask` (`__syncwarp(mask)`); every executing lane must be
/// in the mask, and every lane the mask names must reach the same call.
pub fn sync_warp_mask(mask: impl IntoVal<u32>) {
    intrinsic(&intrinsics::warp::WARP_SYNC, &[], &[], vec![mask.into_val().v])
}
/// Orders this thread's memory accesses as seen by its block.
pub fn fence_block() {
    b(|b| b.fence(FenceScope::Block))
}
/// Orders this thread's memory accesses as seen by the whole device.
pub fn fence_device() {
    b(|b| b.fence(FenceScope::Device))
}
/// Orders this thread's memory accesses as seen by the host and peer devices.
pub fn fence_system() {
    b(|b| b.fence(FenceScope::System))
}

fn shuffle<T: Elem>(mode: ShuffleMode, v: Val<T>, lane: impl IntoVal<u32>) -> Val<T> {
    let l = lane.into_val().v;
    Val::from_ir(b(|b| b.shuffle(mode, v.v, l)))
}
/// The value of `v` in lane `lane` of the warp (the whole warp must be converged).
pub fn shfl_idx<T: Elem>(v: Val<T>, lane: impl IntoVal<u32>) -> Val<T> {
    shuffle(ShuffleMode::Idx, v, lane)
}
/// The value of `v` in lane `lane_id - delta` (own value in the first `delta` lanes).
pub fn shfl_up<T: Elem>(v: Val<T>, delta: impl IntoVal<u32>) -> Val<T> {
    shuffle(ShuffleMode::Up, v, delta)
}
/// The value of `v` in lane `lane_id + delta` (own value in the last `delta` lanes).
pub fn shfl_down<T: Elem>(v: Val<T>, delta: impl IntoVal<u32>) -> Val<T> {
    shuffle(ShuffleMode::Down, v, delta)
}
/// The value of `v` in lane `lane_id ^ mask`.
pub fn shfl_xor<T: Elem>(v: Val<T>, mask: impl IntoVal<u32>) -> Val<T> {
    shuffle(ShuffleMode::Xor, v, mask)
}
/// Whether `p` holds in any active lane of the warp.
pub fn vote_any(p: Val<bool>) -> Val<bool> {
    Val::from_ir(b(|b| b.vote(VoteMode::Any, p.v)))
}
/// Whether `p` holds in every active lane of the warp.
pub fn vote_all(p: Val<bool>) -> Val<bool> {
    Val::from_ir(b(|b| b.vote(VoteMode::All, p.v)))
}
/// Bit `i` set where `p` holds in lane `i`.
pub fn ballot(p: Val<bool>) -> Val<u32> {
    Val::from_ir(b(|b| b.vote(VoteMode::Ballot, p.v)))
}

/// `c ? a : b` without branching.
pub fn select<T: Elem>(c: Val<bool>, a: impl IntoVal<T>, b_: impl IntoVal<T>) -> Val<T> {
    let (a, bb) = (a.into_val().v, b_.into_val().v);
    Val::from_ir(b(|b| b.select(c.v, a, bb)))
}
