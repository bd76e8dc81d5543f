//! Stream memory operations: a stream waits until a 32- or 64-bit word in device memory meets
//! a comparison, or writes a word, in stream order, without a kernel and without the host
//! (CUDA's `cuStreamWaitValue32/64` and `cuStreamWriteValue32/64`, HIP's `hipStreamWaitValue*`
//! and `hipStreamWriteValue*`). The word may be written by another stream, another device of
//! the backend, or another process that maps the same [`crate::SharedBuffer`]: that is how
//! ranks of a collective in different processes order their streams.
//!
//! A wait that is never satisfied blocks its stream, and every synchronization with it, for
//! good (as on a GPU); whoever queues one must make sure that the word comes or, to give up,
//! write the awaited value themselves (from another stream or the host).

use ferrocm_backend::{DevicePtr, StreamWord, WaitCondition};

use crate::graph::InCapture;
use crate::memory::{AsDeviceSlice, AsDeviceSliceMut, DeviceRepr};
use crate::pointer::{pointer_attributes, MemoryKind};
use crate::stream::Stream;
use crate::{Error, Result};

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// A word that stream memory operations act on: `u32` or `u64`.
pub trait MemoryWord: DeviceRepr + sealed::Sealed {
    /// The value as the backend's [`StreamWord`].
    fn stream_word(self) -> StreamWord;
}

impl MemoryWord for u32 {
    fn stream_word(self) -> StreamWord {
        StreamWord::U32(self)
    }
}

impl MemoryWord for u64 {
    fn stream_word(self) -> StreamWord {
        StreamWord::U64(self)
    }
}

impl Stream {
    /// Makes later work on this stream wait until the one word of `word` meets `condition`
    /// against `value` (`cuStreamWaitValue32/64`). `word` is a view of exactly one `u32` or
    /// `u64` of device memory of this stream's device (a [`crate::SharedBuffer`] imported from
    /// another process included); managed memory is refused, as the drivers refuse it.
    ///
    /// The stream holds no compute unit and no host thread of the caller while it waits; the
    /// call returns at once. On a capturing stream the wait becomes a node of the graph.
    ///
    /// On NVIDIA GPUs a waiting stream blocks the hardware queue it is mapped to, and streams
    /// share those queues (`CUDA_DEVICE_MAX_CONNECTIONS`, 8 by default, handed out round-robin as
    /// streams are made): with more streams waiting at once than there are queues, or when the
    /// write that releases a wait is queued on a stream sharing a queue with it, the release can
    /// sit behind the wait for good. CUDA documents this hazard for `cuStreamWaitValue32`; keep
    /// few streams blocked at once and release waits from another process or from a stream that
    /// is not blocked behind them.
    pub fn wait_value<W: MemoryWord>(
        &self,
        word: &impl AsDeviceSlice<W>,
        value: W,
        condition: WaitCondition,
    ) -> Result<()> {
        let _t = crate::trace::api("Stream::wait_value");
        let _op = self.op("waiting on a memory word", InCapture::Recorded)?;
        let addr = self.check_word(word)?;
        crate::trace::break_chain(self);
        word.uses().record(self);
        // SAFETY: the view names one aligned word of a live, non-managed allocation of this
        // device (checked above), whose use by this stream is recorded, so it is not freed or
        // reused before the wait completes.
        unsafe {
            self.device().inner.backend.stream_wait_value(self.handle(), addr, value.stream_word(), condition)
        }
        .map_err(|e| self.device().error(e))
    }

    /// Writes `value` to the one word of `word` in stream order (`cuStreamWriteValue32/64`):
    /// after the stream's earlier work has completed and its writes are visible, so a stream
    /// (or process) waiting on the word with [`Stream::wait_value`] sees that work done. The
    /// same rules for `word` as [`Stream::wait_value`]; on a capturing stream the write becomes
    /// a node of the graph.
    pub fn write_value<W: MemoryWord>(&self, word: &mut impl AsDeviceSliceMut<W>, value: W) -> Result<()> {
        let _t = crate::trace::api("Stream::write_value");
        let _op = self.op("writing a memory word", InCapture::Recorded)?;
        let addr = self.check_word(&*word)?;
        crate::trace::break_chain(self);
        word.uses().record(self);
        // SAFETY: as in `wait_value`.
        unsafe { self.device().inner.backend.stream_write_value(self.handle(), addr, value.stream_word()) }
            .map_err(|e| self.device().error(e))
    }

    /// The address of a one-word view, after checking device, length, alignment and kind.
    fn check_word<W: MemoryWord>(&self, word: &impl AsDeviceSlice<W>) -> Result<DevicePtr> {
        self.same_device("memory word", word.device())?;
        let addr = word.device_ptr();
        let bytes = std::mem::size_of::<W>() as u64;
        if word.len() != 1 {
            return Err(Error::InvalidAddress {
                address: addr.0,
                bytes: word.byte_len(),
                reason: format!(
                    "a stream memory operation acts on one word; the view holds {} (take `slice(i..i + 1)`)",
                    word.len()
                ),
            });
        }
        self.check_word_address(addr.0, bytes)?;
        Ok(addr)
    }

    /// Checks a word's address: aligned, inside one live allocation of this stream's device,
    /// not managed memory.
    pub(crate) fn check_word_address(&self, address: u64, bytes: u64) -> Result<()> {
        let bad = |reason: String| Error::InvalidAddress { address, bytes, reason };
        if address == 0 {
            return Err(bad("a null pointer".into()));
        }
        if !address.is_multiple_of(bytes) {
            return Err(bad(format!("a {bytes}-byte word must be aligned to {bytes} bytes")));
        }
        let Some(a) = pointer_attributes(address)? else {
            return Err(bad(
                "not a live device allocation (freed, or never allocated by this runtime)".into()
            ));
        };
        if &a.device != self.device() {
            return Err(Error::DeviceMismatch {
                what: "memory word",
                expected: self.device().index(),
                actual: a.device.index(),
            });
        }
        match a.kind {
            MemoryKind::Device => {}
            MemoryKind::Managed => {
                return Err(bad(
                    "managed memory (stream memory operations take device memory, as the drivers do)".into(),
                ))
            }
            MemoryKind::PinnedHost => {
                return Err(bad(
                    "page-locked host memory (stream memory operations take device memory)".into()
                ))
            }
        }
        if address + bytes > a.base.0 + a.size {
            return Err(bad(format!("the word runs past the end of its allocation ({} bytes)", a.size)));
        }
        Ok(())
    }

    /// [`Stream::wait_value`] on a raw address (for the HIP C ABI): `address` must be an
    /// aligned word inside a live device allocation of this stream's device.
    ///
    /// The wait is not recorded in any buffer's use tracking (it knows no buffer): free the
    /// memory only after synchronizing the stream, as HIP requires.
    pub fn wait_value_raw(&self, address: u64, value: StreamWord, condition: WaitCondition) -> Result<()> {
        let _op = self.op("waiting on a memory word", InCapture::Recorded)?;
        self.check_word_address(address, value.bytes())?;
        crate::trace::break_chain(self);
        // SAFETY: an aligned word inside a live device allocation of this device (checked);
        // keeping it allocated until the wait completes is the documented duty of the caller,
        // as for `hipStreamWaitValue32`.
        unsafe {
            self.device().inner.backend.stream_wait_value(self.handle(), DevicePtr(address), value, condition)
        }
        .map_err(|e| self.device().error(e))
    }

    /// [`Stream::write_value`] on a raw address (for the HIP C ABI); the rules of
    /// [`Stream::wait_value_raw`].
    pub fn write_value_raw(&self, address: u64, value: StreamWord) -> Result<()> {
        let _op = self.op("writing a memory word", InCapture::Recorded)?;
        self.check_word_address(address, value.bytes())?;
        crate::trace::break_chain(self);
        // SAFETY: as in `wait_value_raw`.
        unsafe { self.device().inner.backend.stream_write_value(self.handle(), DevicePtr(address), value) }
            .map_err(|e| self.device().error(e))
    }
}
