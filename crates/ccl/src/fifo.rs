//! The receive FIFO of one connection: a region of memory owned by the receiving rank, written
//! by the sending rank (through a pointer in one process, through a shared mapping across
//! processes) or by the receiver's network proxy (TCP, UCX).
//!
//! Two rings share the region. The bulk ring (`Protocol::Simple`) has [`SLOTS`] slots of
//! [`SLOT_BYTES`]: the sender copies a message into the next free slot and then publishes the
//! slot count `tail` (release); the receiver consumes and publishes `head`. The low-latency ring
//! (`Protocol::LowLatency`, NCCL's LL) has [`LL_SLOTS`] slots of 8-byte words, each word holding
//! 4 bytes of data and a 4-byte flag in one store: the first word of a message carries its
//! length, and the receiver polls each word until its flag says it belongs to the message it
//! expects, so no fence or counter stands between the data and its reader. Flow control of both
//! rings is the receiver's head counter; a sender never overwrites an unconsumed slot.
//!
//! Layout (all offsets from the base, which is 64-byte aligned): control block (one cache line
//! per counter), then the bulk slots, then the LL slots.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::state::{WaitError, Waiter};

/// Bulk slots per connection.
pub(crate) const SLOTS: usize = 8;
/// Bytes per bulk slot: the largest bulk message.
pub(crate) const SLOT_BYTES: usize = 128 << 10;
/// Low-latency slots per connection.
pub(crate) const LL_SLOTS: usize = 8;
/// Data bytes per low-latency message (one header word, then 4 bytes per word).
pub(crate) const LL_MAX_BYTES: usize = 4096;
const LL_WORDS: usize = 1 + LL_MAX_BYTES / 4;

const LINE: usize = 64;
const TAIL: usize = 0;
const HEAD: usize = LINE;
const LL_HEAD: usize = 2 * LINE;
const LENS: usize = 3 * LINE;
const CONTROL: usize = (LENS + SLOTS * 8).div_ceil(LINE) * LINE;
const DATA: usize = CONTROL;
const LL: usize = DATA + SLOTS * SLOT_BYTES;

/// Bytes of memory one FIFO needs.
pub(crate) const FIFO_BYTES: usize = LL + LL_SLOTS * LL_WORDS * 8;

/// Memory that holds a FIFO and keeps it alive (heap, device memory, a shared mapping).
pub(crate) trait FifoMemory: Send + Sync {
    /// The base address: [`FIFO_BYTES`] bytes, 64-byte aligned, zeroed when first created, valid
    /// while `self` lives.
    fn base(&self) -> *mut u8;
}

/// FIFO memory on the heap (network proxies write into it).
pub(crate) struct HeapFifo(Box<[AtomicU64]>);

impl HeapFifo {
    pub fn new() -> Arc<HeapFifo> {
        let words = FIFO_BYTES / 8;
        let v: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
        Arc::new(HeapFifo(v.into_boxed_slice()))
    }
}

impl FifoMemory for HeapFifo {
    fn base(&self) -> *mut u8 {
        // 8-byte alignment is all the atomics need; the data slots are reached byte-wise.
        self.0.as_ptr() as *mut u8
    }
}

/// A handle on FIFO memory; cheap to clone.
#[derive(Clone)]
pub(crate) struct Fifo {
    /// Keeps the memory alive while any end uses it.
    _mem: Arc<dyn FifoMemory>,
    base: *mut u8,
}

// SAFETY: the FIFO's memory is only accessed through atomics (control words and LL words) and
// through slot copies that the protocol gives to one side at a time (a slot belongs to the
// sender until `tail` publishes it and to the receiver until `head` releases it).
unsafe impl Send for Fifo {}
unsafe impl Sync for Fifo {}

impl Fifo {
    pub fn new(mem: Arc<dyn FifoMemory>) -> Fifo {
        let base = mem.base();
        Fifo { _mem: mem, base }
    }

    fn word(&self, offset: usize) -> &AtomicU64 {
        debug_assert!(offset.is_multiple_of(8) && offset + 8 <= FIFO_BYTES);
        // SAFETY: the offset is inside the region, 8-byte aligned, and the region lives as long
        // as `self._mem`; all accesses to control and LL words are atomic.
        unsafe { &*(self.base.add(offset) as *const AtomicU64) }
    }

    fn slot(&self, i: usize) -> *mut u8 {
        // SAFETY: slot `i % SLOTS` lies inside the region.
        unsafe { self.base.add(DATA + (i % SLOTS) * SLOT_BYTES) }
    }

    fn ll_word(&self, message: u64, k: usize) -> &AtomicU64 {
        self.word(LL + ((message as usize % LL_SLOTS) * LL_WORDS + k) * 8)
    }

    pub fn writer(&self) -> FifoWriter {
        FifoWriter { fifo: self.clone(), sent: 0, ll_sent: 0 }
    }

    pub fn reader(&self) -> FifoReader {
        FifoReader { fifo: self.clone(), received: 0, ll_received: 0, scratch: Vec::new() }
    }
}

/// The flag that marks LL words of message `m` (never the zero of fresh memory in round one,
/// and never the flag of the message that used the slot before).
fn ll_flag(m: u64) -> u64 {
    ((m as u32).wrapping_add(1) as u64) << 32
}

/// The sending end: the only writer of `tail` and of the slots it has not yet published.
pub(crate) struct FifoWriter {
    fifo: Fifo,
    sent: u64,
    ll_sent: u64,
}

impl FifoWriter {
    /// Copies `data` (at most [`SLOT_BYTES`]) into the next bulk slot and publishes it.
    pub fn send(&mut self, data: &[u8], w: &Waiter, peer: usize) -> Result<(), WaitError> {
        debug_assert!(data.len() <= SLOT_BYTES);
        let head = self.fifo.word(HEAD);
        let sent = self.sent;
        w.wait_for(Some(peer), || (sent - head.load(Ordering::Acquire) < SLOTS as u64).then_some(()))?;
        // SAFETY: the slot is free (the receiver released it: head > sent - SLOTS), so nobody
        // reads it until `tail` publishes it below; `data` is at most one slot.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.fifo.slot(sent as usize), data.len()) };
        self.publish(data.len());
        Ok(())
    }

    /// The next bulk slot if it is free (for proxies that receive straight into it).
    pub fn try_slot(&mut self) -> Option<&mut [u8]> {
        let head = self.fifo.word(HEAD).load(Ordering::Acquire);
        if self.sent - head >= SLOTS as u64 {
            return None;
        }
        // SAFETY: as in `send`: the free slot belongs to the writer until published.
        Some(unsafe { std::slice::from_raw_parts_mut(self.fifo.slot(self.sent as usize), SLOT_BYTES) })
    }

    /// Publishes the slot returned by [`FifoWriter::try_slot`], holding `len` bytes.
    pub fn publish(&mut self, len: usize) {
        self.fifo.word(LENS + (self.sent as usize % SLOTS) * 8).store(len as u64, Ordering::Relaxed);
        self.sent += 1;
        self.fifo.word(TAIL).store(self.sent, Ordering::Release);
    }

    /// Writes `data` (at most [`LL_MAX_BYTES`]) as one low-latency message.
    pub fn send_ll(&mut self, data: &[u8], w: &Waiter, peer: usize) -> Result<(), WaitError> {
        debug_assert!(data.len() <= LL_MAX_BYTES);
        let head = self.fifo.word(LL_HEAD);
        let m = self.ll_sent;
        w.wait_for(Some(peer), || (m - head.load(Ordering::Acquire) < LL_SLOTS as u64).then_some(()))?;
        let flag = ll_flag(m);
        for (k, chunk) in data.chunks(4).enumerate() {
            let mut b = [0u8; 4];
            b[..chunk.len()].copy_from_slice(chunk);
            // One 8-byte store carries the data and its flag.
            self.fifo.ll_word(m, k + 1).store(u32::from_le_bytes(b) as u64 | flag, Ordering::Release);
        }
        self.fifo.ll_word(m, 0).store(data.len() as u64 | flag, Ordering::Release);
        self.ll_sent += 1;
        Ok(())
    }
}

/// The receiving end: the only writer of `head`.
pub(crate) struct FifoReader {
    fifo: Fifo,
    received: u64,
    ll_received: u64,
    scratch: Vec<u8>,
}

impl FifoReader {
    /// Waits for the next bulk message and hands its bytes to `f`, then releases the slot.
    pub fn recv<R>(&mut self, w: &Waiter, peer: usize, f: impl FnOnce(&[u8]) -> R) -> Result<R, WaitError> {
        let tail = self.fifo.word(TAIL);
        let received = self.received;
        w.wait_for(Some(peer), || (tail.load(Ordering::Acquire) > received).then_some(()))?;
        let len = self.fifo.word(LENS + (received as usize % SLOTS) * 8).load(Ordering::Relaxed) as usize;
        // SAFETY: `tail` (acquire) published the slot and its length; it stays the reader's
        // until `head` releases it below.
        let data =
            unsafe { std::slice::from_raw_parts(self.fifo.slot(received as usize), len.min(SLOT_BYTES)) };
        let r = f(data);
        self.received += 1;
        self.fifo.word(HEAD).store(self.received, Ordering::Release);
        Ok(r)
    }

    /// Waits for the next low-latency message and hands its bytes to `f`.
    pub fn recv_ll<R>(
        &mut self,
        w: &Waiter,
        peer: usize,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, WaitError> {
        let m = self.ll_received;
        let flag = ll_flag(m);
        let fifo = &self.fifo;
        let header = w.wait_for(Some(peer), || {
            let v = fifo.ll_word(m, 0).load(Ordering::Acquire);
            (v & !0xffff_ffff == flag).then_some(v)
        })?;
        let len = ((header & 0xffff_ffff) as usize).min(LL_MAX_BYTES);
        self.scratch.resize(len.div_ceil(4) * 4, 0);
        for k in 0..len.div_ceil(4) {
            // The sender stores the header word last, so (release, acquire) the data words are
            // normally visible already; each still carries its flag, which is checked.
            let word = fifo.ll_word(m, k + 1);
            let mut v = word.load(Ordering::Acquire);
            if v & !0xffff_ffff != flag {
                v = w.wait_for(Some(peer), || {
                    let v = word.load(Ordering::Acquire);
                    (v & !0xffff_ffff == flag).then_some(v)
                })?;
            }
            self.scratch[4 * k..4 * k + 4].copy_from_slice(&(v as u32).to_le_bytes());
        }
        let r = f(&self.scratch[..len]);
        self.ll_received += 1;
        self.fifo.word(LL_HEAD).store(self.ll_received, Ordering::Release);
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{Health, RankState};
    use std::time::Duration;

    #[test]
    fn layout_is_aligned() {
        assert_eq!(CONTROL % LINE, 0);
        const { assert!(CONTROL >= LENS + SLOTS * 8) };
        assert_eq!(LL % 8, 0);
    }

    /// Many messages of both protocols cross a FIFO between two threads in order, including
    /// lengths that are not a multiple of the LL word and every slot wrapping around.
    #[test]
    fn messages_arrive_in_order_across_threads() {
        let fifo = Fifo::new(HeapFifo::new());
        let (health, state) = (Health::default(), RankState::default());
        let n = 200usize;
        let msg = |i: usize, ll: bool| -> Vec<u8> {
            let len = if ll { (i * 37) % (LL_MAX_BYTES + 1) } else { (i * 7919) % SLOT_BYTES + 1 };
            (0..len).map(|k| (k * 31 + i) as u8).collect()
        };
        std::thread::scope(|s| {
            let mut wr = fifo.writer();
            let (h, st) = (&health, &state);
            s.spawn(move || {
                let w = Waiter::new(h, st, Duration::from_secs(30));
                for i in 0..n {
                    wr.send(&msg(i, false), &w, 1).unwrap();
                    wr.send_ll(&msg(i, true), &w, 1).unwrap();
                }
            });
            let mut rd = fifo.reader();
            let w = Waiter::new(&health, &state, Duration::from_secs(30));
            for i in 0..n {
                assert_eq!(rd.recv(&w, 0, |d| d.to_vec()).unwrap(), msg(i, false), "bulk {i}");
                assert_eq!(rd.recv_ll(&w, 0, |d| d.to_vec()).unwrap(), msg(i, true), "LL {i}");
            }
        });
    }
}
