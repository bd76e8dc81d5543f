//! The services the CPU executor gives an intrinsic's `exec` semantics: the warp's registers
//! and masks, bounds-checked memory, the shared window of the block and its cluster, tensor
//! maps, and the barriers a warp may arrive at or wait on.
//!
//! Every method that can fail returns the executor's message (naming the kernel, the memory,
//! the index and the thread), so semantics only add what the instruction itself knows.

use ferrocm_backend::tensor_map::TensorMapDesc;

use crate::*;

/// One warp register: a 64-bit value per lane.
pub type Lanes = [u64; 32];

/// Where a warp goes after an intrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// On to the next instruction.
    Next,
    /// Arrive at a barrier and go on.
    Arrive(Wait),
    /// Arrive at a barrier and wait until it releases, then go on.
    Block(Wait),
    /// Not ready: suspend the warp and run this instruction again once what it waits for may
    /// have changed.
    Retry(Wait),
}

/// Something a warp waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Named barrier `id` of the block, released when `threads` threads have arrived.
    Named { id: u32, threads: u32 },
    /// The phase of parity `parity` of the `mbarrier` at shared address `addr` of the cluster's
    /// CTA `rank` completing.
    Mbarrier { rank: u32, addr: u64, parity: u32 },
    /// The cluster barrier (`barrier.cluster`): every thread of the cluster arrives.
    Cluster,
    /// The grid barrier of a cooperative launch: every thread of the grid arrives.
    Grid,
}

/// An operation on an `mbarrier` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarrierOp {
    /// `mbarrier.init`: `count` arrivals complete a phase.
    Init { count: u32 },
    /// One arrival (per lane that executes it), after raising the expected transaction bytes.
    Arrive { expect_tx: u32 },
    /// Raise the expected transaction bytes without arriving.
    ExpectTx { bytes: u32 },
    /// Transactions of `bytes` completed (a TMA copy landed).
    CompleteTx { bytes: u32 },
}

/// What the executor offers an intrinsic's semantics while one warp runs it.
pub trait Exec {
    /// The kernel being run.
    fn func(&self) -> &Function;
    /// Lanes executing the instruction.
    fn active(&self) -> u32;
    /// Lanes of the warp that exist (a last, partial warp has fewer).
    fn live(&self) -> u32;
    /// The warp's index within its block.
    fn warp(&self) -> u32;
    /// Threads in the block.
    fn block_threads(&self) -> u32;

    /// The registers of value operand `i` (one per vector element).
    fn arg(&self, i: usize) -> &[Lanes];
    /// The type of value operand `i`.
    fn arg_type(&self, i: usize) -> Type;
    /// The registers of variable operand `i`, to read and write in place.
    fn var(&mut self, i: usize) -> &mut [Lanes];
    /// Writes element `k` of the result.
    fn set_result(&mut self, k: usize, v: Lanes);

    /// A message that names the kernel, the block and the warp: "kernel `k`: {what} in block
    /// (0, 0, 0), warp 3".
    fn fault(&self, what: &str) -> String;

    /// Element `index` of memory operand `m` for `lane` (zero-extended bits), bounds checked.
    fn read(&mut self, m: usize, lane: usize, index: i128) -> Result<u64, String>;
    /// Writes element `index` of memory operand `m` for `lane`, bounds checked.
    fn write(&mut self, m: usize, lane: usize, index: i128, bits: u64) -> Result<(), String>;
    /// An atomic read-modify-write of element `index` of memory operand `m`; the old bits.
    fn atomic(
        &mut self,
        m: usize,
        lane: usize,
        index: i128,
        op: AtomicOp,
        bits: u64,
        compare: u64,
    ) -> Result<u64, String>;
    /// The shared-window byte address of element `index` of shared memory operand `m` (checked
    /// to lie inside it).
    fn shared_addr(&mut self, m: usize, lane: usize, index: i128) -> Result<u64, String>;

    /// Reads `size` (1, 2, 4 or 8) bytes at shared-window address `addr` of the cluster's CTA
    /// `rank` (the own CTA: [`Exec::cta_rank`]); the access must lie inside that CTA's shared
    /// memory and be aligned to its size.
    fn shared_read(&mut self, rank: u32, addr: u64, size: u32) -> Result<u64, String>;
    /// Writes `size` bytes at a shared-window address, as [`Exec::shared_read`].
    fn shared_write(&mut self, rank: u32, addr: u64, size: u32, bits: u64) -> Result<(), String>;
    /// This CTA's rank in its cluster (0 without clusters).
    fn cta_rank(&self) -> u32;
    /// CTAs in the cluster (1 without clusters).
    fn cluster_size(&self) -> u32;

    /// The tensor map passed in tensor-map operand `m`.
    fn tensor_map(&self, m: usize) -> Result<TensorMapDesc, String>;
    /// Reads `size` bytes of global memory inside the extent of tensor map `m`.
    fn tensor_read(&mut self, m: usize, addr: u64, size: u32) -> Result<u64, String>;
    /// Writes `size` bytes of global memory inside the extent of tensor map `m`.
    fn tensor_write(&mut self, m: usize, addr: u64, size: u32, bits: u64) -> Result<(), String>;

    /// Applies `op`, by thread `lane` of the warp, to the `mbarrier` at shared address `addr` of
    /// CTA `rank`.
    fn mbarrier(&mut self, rank: u32, addr: u64, op: MbarrierOp, lane: usize) -> Result<(), String>;
    /// Whether the phase of parity `parity` of the `mbarrier` at `addr` of CTA `rank` has
    /// completed (the barrier's current phase has the other parity).
    fn mbarrier_done(&mut self, rank: u32, addr: u64, parity: u32) -> Result<bool, String>;
}

/// Runs `f` for each active lane.
pub fn each_lane(active: u32, mut f: impl FnMut(usize) -> Result<(), String>) -> Result<(), String> {
    let mut m = active;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        f(lane)?;
        m &= m - 1;
    }
    Ok(())
}

/// The signed value of an index register of type `ty`.
pub fn index_value(ty: Type, bits: u64) -> i128 {
    use ScalarType::*;
    match ty.elem() {
        I8 => bits as i8 as i128,
        I16 => bits as i16 as i128,
        I32 => bits as i32 as i128,
        I64 => bits as i64 as i128,
        U8 => bits as u8 as i128,
        U16 => bits as u16 as i128,
        U32 => bits as u32 as i128,
        _ => bits as i128,
    }
}

/// The value of one lane of a register that all active lanes must agree on (a barrier id, a
/// descriptor); an error naming `what` otherwise.
pub fn uniform(e: &dyn Exec, reg: &Lanes, what: &str) -> Result<u64, String> {
    let active = e.active();
    let first = reg[active.trailing_zeros().min(31) as usize];
    let mut m = active;
    while m != 0 {
        let lane = m.trailing_zeros() as usize;
        if reg[lane] != first {
            return Err(e.fault(&format!(
                "{what} differs between lanes ({first:#x} in one, {:#x} in lane {lane}); it must be the same \
                 in every thread",
                reg[lane]
            )));
        }
        m &= m - 1;
    }
    Ok(first)
}
