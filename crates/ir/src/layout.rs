//! Where a kernel's shared and local arrays live, and the GPU's limits on them.
//!
//! Sizes are computed in `u64` with checked arithmetic, so no array size wraps; every back end
//! checks a kernel against [`Limits`] when it loads it ([`Function::check_limits`]), so the CPU
//! executor refuses exactly what an NVIDIA GPU refuses.

use crate::*;

/// The per-kernel memory limits of the GPUs ferrocm targets (the CUDA Programming Guide's table
/// of technical specifications, identical for compute capability 7.0 to 10.x).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Statically allocated shared memory per block: 48 KiB (more is dynamic shared memory
    /// only, after an opt-in).
    pub static_shared_bytes: u64,
    /// Local memory per thread: 512 KiB.
    pub local_bytes_per_thread: u64,
}

impl Limits {
    /// The NVIDIA limits, which every back end applies.
    pub const GPU: Limits = Limits { static_shared_bytes: 48 * 1024, local_bytes_per_thread: 512 * 1024 };
}

/// A kernel needs more of a memory than a device allows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitError {
    #[error(
        "kernel `{kernel}` uses {bytes} bytes of static shared memory; the limit is {limit} bytes \
         (use dynamic shared memory for more)"
    )]
    StaticShared { kernel: String, bytes: u64, limit: u64 },
    #[error("kernel `{kernel}` uses {bytes} bytes of local memory per thread; the limit is {limit} bytes")]
    Local { kernel: String, bytes: u64, limit: u64 },
}

/// Rounds `x` up to a multiple of `align` (a power of two), saturating instead of wrapping.
fn align_up(x: u64, align: u64) -> u64 {
    x.checked_next_multiple_of(align).unwrap_or(u64::MAX)
}

impl MemData {
    /// The array's size in bytes (0 for global and dynamic shared memory), without overflow.
    pub fn bytes(&self) -> u64 {
        match self.space {
            MemSpace::Shared { len, .. } | MemSpace::Local { len } => len as u64 * self.elem.size() as u64,
            _ => 0,
        }
    }
}

impl Function {
    /// Byte offset of each static shared array (`None` for other memories) and the total, each
    /// array aligned to its alignment (16 bytes at least).
    pub fn shared_layout(&self) -> (Vec<Option<u64>>, u64) {
        let mut offset = 0u64;
        let offsets = self
            .mems
            .iter()
            .map(|m| match m.space {
                MemSpace::Shared { align, .. } => {
                    let at = align_up(offset, align.max(16) as u64);
                    offset = align_up(at.saturating_add(m.bytes()), 16);
                    Some(at)
                }
                _ => None,
            })
            .collect();
        (offsets, offset)
    }

    /// Bytes of static shared memory per block.
    pub fn static_shared_bytes(&self) -> u64 {
        self.shared_layout().1
    }

    /// The alignment the dynamic shared memory needs (the largest any view of it asks for).
    pub fn dyn_shared_align(&self) -> u64 {
        self.mems
            .iter()
            .filter_map(|m| match m.space {
                MemSpace::DynShared { align } => Some(align.max(16) as u64),
                _ => None,
            })
            .max()
            .unwrap_or(16)
    }

    /// Byte offset of each local array within a thread's local memory (0 for other memories),
    /// and the bytes per thread; arrays are 16-byte aligned.
    pub fn local_layout(&self) -> (Vec<u64>, u64) {
        let mut bytes = 0u64;
        let offsets = self
            .mems
            .iter()
            .map(|m| match m.space {
                MemSpace::Local { .. } => {
                    let at = bytes;
                    bytes = align_up(bytes.saturating_add(m.bytes()), 16);
                    at
                }
                _ => 0,
            })
            .collect();
        (offsets, bytes)
    }

    /// Bytes of local memory per thread.
    pub fn local_bytes_per_thread(&self) -> u64 {
        self.local_layout().1
    }

    /// Checks static shared memory and local memory per thread against `limits`.
    pub fn check_limits(&self, limits: &Limits) -> Result<(), LimitError> {
        let shared = self.static_shared_bytes();
        if shared > limits.static_shared_bytes {
            return Err(LimitError::StaticShared {
                kernel: self.name.clone(),
                bytes: shared,
                limit: limits.static_shared_bytes,
            });
        }
        let local = self.local_bytes_per_thread();
        if local > limits.local_bytes_per_thread {
            return Err(LimitError::Local {
                kernel: self.name.clone(),
                bytes: local,
                limit: limits.local_bytes_per_thread,
            });
        }
        Ok(())
    }
}
