//! Memory access helpers: relaxed atomic loads and stores on host memory, atomics, and
//! register borrows.

use std::sync::atomic::*;

use ferrocm_ir::{AtomicOp, ScalarType};

use crate::compile::Reg;
use crate::lanes::Lanes;

/// Resizes `v` to `n` zeroed elements, or reports that the host has no memory for them (an
/// error for this launch, never an abort of the process).
pub(crate) fn zeroed<T: Copy + Default>(
    v: &mut Vec<T>,
    n: usize,
    what: &str,
    kernel: &str,
) -> Result<(), String> {
    v.clear();
    v.try_reserve_exact(n).map_err(|_| {
        format!(
            "kernel `{kernel}`: the host could not allocate {} bytes of {what} for a block",
            n.saturating_mul(std::mem::size_of::<T>())
        )
    })?;
    v.resize(n, T::default());
    Ok(())
}

pub(crate) fn read_le(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
    u64::from_le_bytes(b)
}

/// Reads `size` bytes at `p` as a relaxed atomic.
///
/// # Safety
/// `p` must be valid for reads of `size` bytes and aligned to `size`.
#[inline(always)]
pub(crate) unsafe fn read_mem(p: *mut u8, size: u32) -> u64 {
    match size {
        1 => AtomicU8::from_ptr(p).load(Ordering::Relaxed) as u64,
        2 => AtomicU16::from_ptr(p as *mut u16).load(Ordering::Relaxed) as u64,
        4 => AtomicU32::from_ptr(p as *mut u32).load(Ordering::Relaxed) as u64,
        _ => AtomicU64::from_ptr(p as *mut u64).load(Ordering::Relaxed),
    }
}

/// Writes the low `size` bytes of `v` at `p` as a relaxed atomic.
///
/// # Safety
/// `p` must be valid for writes of `size` bytes and aligned to `size`.
#[inline(always)]
pub(crate) unsafe fn write_mem(p: *mut u8, size: u32, v: u64) {
    match size {
        1 => AtomicU8::from_ptr(p).store(v as u8, Ordering::Relaxed),
        2 => AtomicU16::from_ptr(p as *mut u16).store(v as u16, Ordering::Relaxed),
        4 => AtomicU32::from_ptr(p as *mut u32).store(v as u32, Ordering::Relaxed),
        _ => AtomicU64::from_ptr(p as *mut u64).store(v, Ordering::Relaxed),
    }
}

/// The result register `dst` (mutable) and `N` operand registers (shared) of one instruction.
/// Lowering gives every result a fresh register, so `dst` never aliases an operand; if it did,
/// the operand is taken from a copy instead.
#[inline(always)]
pub(crate) fn regs_mut<const N: usize>(
    regs: &mut [Lanes],
    dst: Reg,
    ops: [Reg; N],
) -> (&mut Lanes, [&Lanes; N]) {
    let d = dst as usize;
    assert!(d < regs.len() && ops.iter().all(|&o| (o as usize) < regs.len()), "register out of range");
    let base = regs.as_mut_ptr();
    // SAFETY: all indices are in bounds (checked above); `dst` is distinct from every operand
    // (the lowering allocates a fresh register per result, and the `assert` below keeps it so),
    // so the one mutable and the shared borrows never overlap.
    assert!(ops.iter().all(|&o| o as usize != d), "result register aliases an operand");
    unsafe { (&mut *base.add(d), ops.map(|o| &*base.add(o as usize))) }
}

/// Loads element `ix[lane]` (of `N` bytes) from `base` into `d` for each active lane.
///
/// # Safety
/// Every active lane's element must lie inside valid, `N`-aligned memory at `base`.
#[inline]
pub(crate) unsafe fn gather<const N: u32>(base: *mut u8, ix: &[i64; 32], active: u32, d: &mut Lanes) {
    for lane in 0..32 {
        if active >> lane & 1 != 0 {
            d[lane] = read_mem(base.add(ix[lane] as usize * N as usize), N);
        }
    }
}

/// Stores `v[lane]` (`N` bytes) at element `ix[lane]` of `base` for each active lane.
///
/// # Safety
/// As for [`gather`], for writes.
#[inline]
pub(crate) unsafe fn scatter<const N: u32>(base: *mut u8, ix: &[i64; 32], active: u32, v: &Lanes) {
    for lane in 0..32 {
        if active >> lane & 1 != 0 {
            write_mem(base.add(ix[lane] as usize * N as usize), N, v[lane]);
        }
    }
}

/// One atomic read-modify-write; returns the old bits.
///
/// # Safety
/// `p` must be valid for reads and writes of the element and aligned to its size.
pub(crate) unsafe fn atomic_rmw(op: AtomicOp, elem: ScalarType, p: *mut u8, v: u64, cmp: u64) -> u64 {
    macro_rules! int_rmw {
        ($A:ty, $t:ty, $u:ty) => {{
            let a = <$A>::from_ptr(p as *mut $t);
            let x = v as $u as $t;
            let o = Ordering::SeqCst;
            let old = match op {
                AtomicOp::Add => a.fetch_add(x, o),
                AtomicOp::Sub => a.fetch_sub(x, o),
                AtomicOp::Min => a.fetch_min(x, o),
                AtomicOp::Max => a.fetch_max(x, o),
                AtomicOp::And => a.fetch_and(x, o),
                AtomicOp::Or => a.fetch_or(x, o),
                AtomicOp::Xor => a.fetch_xor(x, o),
                AtomicOp::Exch => a.swap(x, o),
                AtomicOp::Cas => a.compare_exchange(cmp as $u as $t, x, o, o).unwrap_or_else(|e| e),
            };
            old as $u as u64
        }};
    }
    macro_rules! float_rmw {
        ($A:ty, $f:ty, $u:ty) => {{
            let a = <$A>::from_ptr(p as *mut $u);
            let x = <$f>::from_bits(v as $u);
            let o = Ordering::SeqCst;
            match op {
                AtomicOp::Exch => a.swap(v as $u, o) as u64,
                _ => a
                    .fetch_update(o, o, |old| Some((<$f>::from_bits(old) + x).to_bits()))
                    .unwrap_or_else(|e| e) as u64,
            }
        }};
    }
    match elem {
        ScalarType::I32 => int_rmw!(AtomicI32, i32, u32),
        ScalarType::U32 => int_rmw!(AtomicU32, u32, u32),
        ScalarType::I64 => int_rmw!(AtomicI64, i64, u64),
        ScalarType::U64 => int_rmw!(AtomicU64, u64, u64),
        ScalarType::F32 => float_rmw!(AtomicU32, f32, u32),
        _ => float_rmw!(AtomicU64, f64, u64),
    }
}
