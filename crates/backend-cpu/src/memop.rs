//! Stream memory operations on the CPU device: a write is an atomic store made by the stream's
//! worker after the stream's earlier work; a wait polls the word on the worker with a short
//! backoff (spin, then yield, then sleeps of growing length up to [`MAX_SLEEP`]), so it holds
//! one thread of its own stream and no kernel thread: other streams go on. A wait whose stream
//! is destroyed before the word meets the condition gives up (see `stream`), so destroying a
//! stream, or dropping the backend, never hangs on a word that will not come.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use ferrocm_backend::{BackendError, Result, StreamWord, WaitCondition};

use crate::stream;

/// Polls spent spinning, then yielding, before the wait starts to sleep.
const SPINS: u32 = 64;
const YIELDS: u32 = 256;
/// The longest sleep between two polls: the most a satisfied wait can lag behind its word.
const MAX_SLEEP: Duration = Duration::from_micros(200);

/// Reads the word at `addr` with acquire ordering and tests the condition.
///
/// # Safety
/// `addr` is aligned to the word's size and valid for reads of it.
unsafe fn is_met(addr: u64, value: StreamWord, condition: WaitCondition) -> bool {
    match value {
        StreamWord::U32(v) => {
            // SAFETY: the caller's promise; other writers use atomics or stream writes.
            let word = unsafe { AtomicU32::from_ptr(addr as *mut u32) }.load(Ordering::Acquire);
            condition.is_met_u32(word, v)
        }
        StreamWord::U64(v) => {
            // SAFETY: as above.
            let word = unsafe { AtomicU64::from_ptr(addr as *mut u64) }.load(Ordering::Acquire);
            condition.is_met_u64(word, v)
        }
    }
}

/// Blocks the calling stream worker until the word at `addr` meets `condition` against
/// `value`, or fails once the worker's stream has been destroyed.
///
/// # Safety
/// `addr` is aligned to the word's size and stays valid for reads of it while the wait runs.
pub(crate) unsafe fn wait(addr: u64, value: StreamWord, condition: WaitCondition) -> Result<()> {
    let mut polls = 0u32;
    let mut sleep = Duration::from_micros(5);
    loop {
        // SAFETY: forwarded from the caller.
        if unsafe { is_met(addr, value, condition) } {
            return Ok(());
        }
        polls = polls.saturating_add(1);
        if polls < SPINS {
            std::hint::spin_loop();
        } else if polls < SPINS + YIELDS {
            std::thread::yield_now();
        } else {
            if stream::current_stream_destroyed() {
                return Err(abandoned());
            }
            std::thread::sleep(sleep);
            sleep = (sleep * 2).min(MAX_SLEEP);
        }
    }
}

/// The error of a wait given up because its stream was destroyed.
pub(crate) fn abandoned() -> BackendError {
    BackendError::NotPermitted {
        what: "waiting on a memory word",
        reason: "the stream was destroyed before the word met the condition; the wait and the work queued after it were dropped",
    }
}

/// Whether `e` is the error of a wait given up by [`wait`].
pub(crate) fn is_abandoned(e: &BackendError) -> bool {
    matches!(e, BackendError::NotPermitted { what: "waiting on a memory word", .. })
}

/// Stores `value` at `addr` with release ordering (after everything the stream did before).
///
/// # Safety
/// `addr` is aligned to the word's size and valid for writes of it.
pub(crate) unsafe fn write(addr: u64, value: StreamWord) {
    match value {
        // SAFETY: the caller's promise.
        StreamWord::U32(v) => unsafe { AtomicU32::from_ptr(addr as *mut u32) }.store(v, Ordering::Release),
        // SAFETY: as above.
        StreamWord::U64(v) => unsafe { AtomicU64::from_ptr(addr as *mut u64) }.store(v, Ordering::Release),
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use ferrocm_backend::{Backend, EventFlags, StreamFlags};

    use super::*;
    use crate::CpuBackend;

    /// Destroying a stream whose wait will never be met returns at once; its worker gives the
    /// wait up, drops the work queued behind it (which must not run: it was ordered after the
    /// word) and completes the events recorded behind it, so neither the stream's thread nor a
    /// waiter on such an event, nor dropping the backend, hangs. Other streams are not held.
    #[test]
    fn a_destroyed_stream_gives_up_its_pending_wait() {
        let b = CpuBackend::new(1);
        let flag = b.alloc(0, 8).unwrap();
        let after = b.alloc(0, 8).unwrap();
        let s = b.stream_create(0, StreamFlags::default()).unwrap();
        let event = b.event_create(0, EventFlags::default()).unwrap();
        // SAFETY: live stream and event; both words are aligned and live until the backend drops.
        unsafe {
            b.memset_async(s, flag, 0, 8).unwrap();
            b.memset_async(s, after, 0, 8).unwrap();
            b.stream_wait_value(s, flag, StreamWord::U32(1), WaitCondition::Eq).unwrap();
            b.stream_write_value(s, after, StreamWord::U64(5)).unwrap();
            b.event_record(event, s).unwrap();
            std::thread::sleep(Duration::from_millis(20));
            assert!(!b.stream_query(s).unwrap(), "the wait did not hold the stream");
            let other = b.stream_create(0, StreamFlags::default()).unwrap();
            b.stream_write_value(other, after.offset(4), StreamWord::U32(3)).unwrap();
            b.stream_synchronize(other).unwrap();
            let start = Instant::now();
            b.stream_destroy(s).unwrap();
            b.event_synchronize(event).unwrap();
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "the abandoned wait took {:?}",
                start.elapsed()
            );
            assert_eq!(*(after.0 as *const u32), 0, "work queued after the abandoned wait ran");
            assert_eq!(*((after.0 + 4) as *const u32), 3);
        }
        drop(b);
    }

    /// The backend's drop does not hang on a stream blocked by a wait that never comes.
    #[test]
    fn dropping_the_backend_gives_up_pending_waits() {
        let b = CpuBackend::new(1);
        let flag = b.alloc(0, 4).unwrap();
        let s = b.stream_create(0, StreamFlags::default()).unwrap();
        // SAFETY: a live stream and an aligned word that lives as long as the backend.
        unsafe {
            b.memset_async(s, flag, 0, 4).unwrap();
            b.stream_wait_value(s, flag, StreamWord::U32(1), WaitCondition::Geq).unwrap();
        }
        let start = Instant::now();
        drop(b);
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
