//! Shared-memory bank accounting: how many wavefronts each warp-wide access to a shared array
//! would take on a GPU with 32 banks of 4 bytes, so a kernel's shared-memory layout can be
//! checked for bank conflicts without a GPU.
//!
//! The model is on [`SharedBankStats`].

use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that makes every launch on the executor report its shared-memory
/// wavefronts on standard error (any value but empty or `0`).
pub const BANKS_VAR: &str = "FERROCM_CPU_SHARED_BANKS";

/// Whether [`BANKS_VAR`] asks for the report.
pub(crate) fn requested() -> bool {
    std::env::var_os(BANKS_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// One launch's warp-wide accesses to shared arrays and the wavefronts they take.
///
/// The model, as the CUDA programming guide describes shared memory: a warp's access of up to 4
/// bytes per lane is one phase, of 8 bytes two (lanes 0-15, 16-31), of 16 bytes four (eight
/// lanes each); a phase takes as many wavefronts as the most distinct 4-byte words that any one
/// bank holds among its lanes' bytes (lanes touching the same word share it, as a broadcast),
/// and the access takes the sum over its phases. 32 lanes reading consecutive 4-byte words take
/// 1, consecutive 8-byte elements 2, 16-byte ones 4 (the conflict-free minimum Nsight Compute
/// shows for those widths); 32 lanes reading 4-byte words 128 bytes apart take 32.
///
/// It counts the loads and stores of shared arrays (vector ones included), not intrinsics
/// (`ldmatrix`, async copies, distributed shared memory) or byte-addressed accesses, and it is a
/// model of the hardware, not a measurement of it. (The FFT's 1000-point kernel: 3.63 wavefronts
/// per load and 2.58 per store by this model; Nsight Compute on an H100 reported 3.7 and 2.7.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedBankStats {
    pub load_requests: u64,
    pub load_wavefronts: u64,
    pub store_requests: u64,
    pub store_wavefronts: u64,
}

impl SharedBankStats {
    /// Wavefronts per load request (0 without loads).
    pub fn load_ratio(&self) -> f64 {
        ratio(self.load_wavefronts, self.load_requests)
    }

    /// Wavefronts per store request (0 without stores).
    pub fn store_ratio(&self) -> f64 {
        ratio(self.store_wavefronts, self.store_requests)
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Counters a launch's warps add to from several host threads.
#[derive(Debug, Default)]
pub(crate) struct BankCounters {
    /// Load requests, load wavefronts, store requests, store wavefronts.
    n: [AtomicU64; 4],
}

impl BankCounters {
    /// Counts one warp-wide access of `width` bytes per lane at the shared byte addresses
    /// `addr(lane)` of the lanes set in `active`.
    pub fn count(&self, store: bool, active: u32, width: u32, addr: impl Fn(usize) -> u64) {
        if active == 0 {
            return;
        }
        let fronts = wavefronts(active, addr, width);
        let at = if store { 2 } else { 0 };
        self.n[at].fetch_add(1, Ordering::Relaxed);
        self.n[at + 1].fetch_add(fronts as u64, Ordering::Relaxed);
    }

    pub fn stats(&self) -> SharedBankStats {
        let n = |i: usize| self.n[i].load(Ordering::Relaxed);
        SharedBankStats {
            load_requests: n(0),
            load_wavefronts: n(1),
            store_requests: n(2),
            store_wavefronts: n(3),
        }
    }
}

/// Wavefronts of one warp-wide access of `width` bytes per lane by the lanes set in `active` at
/// byte addresses `addr(lane)`: per phase, the most distinct 4-byte words in any one bank.
fn wavefronts(active: u32, addr: impl Fn(usize) -> u64, width: u32) -> u32 {
    let width = width.max(1);
    let phase = match width {
        0..=4 => 32,
        5..=8 => 16,
        _ => 8,
    };
    let mut total = 0;
    for start in (0..32).step_by(phase) {
        // At most 16 lanes of 8 bytes or 8 of 16 (plus a word for an unaligned tail).
        let mut words: Vec<u64> = Vec::with_capacity(40);
        for lane in (start..start + phase).filter(|l| active >> l & 1 != 0) {
            let a = addr(lane);
            words.extend(a / 4..=(a + width as u64 - 1) / 4);
        }
        words.sort_unstable();
        words.dedup();
        let mut per_bank = [0u32; 32];
        for w in words {
            per_bank[(w % 32) as usize] += 1;
        }
        total += per_bank.into_iter().max().unwrap_or(0);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::wavefronts;

    #[test]
    fn the_model_on_known_patterns() {
        let lanes = |stride: u64, width: u32| wavefronts(u32::MAX, |l| l as u64 * stride, width);
        assert_eq!(lanes(4, 4), 1, "consecutive words");
        assert_eq!(lanes(0, 4), 1, "one word for every lane (a broadcast)");
        assert_eq!(lanes(8, 8), 2, "consecutive 8-byte elements");
        assert_eq!(lanes(16, 16), 4, "consecutive 16-byte elements");
        assert_eq!(lanes(8, 4), 2, "every other word: two lanes per bank");
        assert_eq!(lanes(128, 4), 32, "one bank for every lane");
        assert_eq!(lanes(132, 4), 1, "a row stride of 33 words: a bank each");
        assert_eq!(lanes(16, 8), 4, "8-byte elements 16 bytes apart");
        assert_eq!(wavefronts(0, |_| 0, 4), 0, "no lanes");
        // Lane l of each half reads element l: the halves collide with each other only.
        assert_eq!(wavefronts(u32::MAX, |l| (l % 16) as u64 * 8, 8), 2, "8-byte halves in turn");
        // Lanes 0-7 on words 0-15, lanes 8-15 on words 32-47: one conflict in each half.
        let half = |l: usize| ((l % 8) * 8 + (l / 8 % 2) * 128 + (l / 16) * 64) as u64;
        assert_eq!(wavefronts(u32::MAX, half, 8), 4, "two-way conflicts inside each half");
        assert_eq!(wavefronts(0x0000_ffff, |l| l as u64 * 8, 8), 1, "one half active");
    }
}
