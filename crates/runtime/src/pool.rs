//! The stream-ordered caching allocator behind [`Stream::alloc`] (as `hipMallocAsync` with a
//! default memory pool).
//!
//! Freed blocks are kept per device, keyed by rounded size, together with the stream that
//! freed them. A block is reused at once by the same stream (stream order already puts the
//! new work after the old); another stream first waits on an event recorded on the freeing
//! stream. So a loop of allocate and free calls the driver only on the first iteration. The
//! cache is given back to the driver by [`Device::trim_pool`], and automatically when a driver
//! allocation runs out of memory.

use std::collections::BTreeMap;
use std::sync::Mutex;

use ferrocm_backend::{DevicePtr, EventFlags};

use crate::device::Device;
use crate::stream::Stream;
use crate::{lock, Result};

const SMALL: u64 = 1 << 20;
const SMALL_GRANULE: u64 = 512;
const LARGE_GRANULE: u64 = 2 << 20;

struct FreeBlock {
    ptr: DevicePtr,
    freed_on: Stream,
}

#[derive(Default)]
struct State {
    free: BTreeMap<u64, Vec<FreeBlock>>,
    cached: u64,
}

#[derive(Default)]
pub(crate) struct Pool {
    state: Mutex<State>,
}

/// The block size a request of `bytes` is served from.
pub(crate) fn round(bytes: u64) -> u64 {
    let g = if bytes <= SMALL { SMALL_GRANULE } else { LARGE_GRANULE };
    bytes.div_ceil(g) * g
}

/// The largest cached block that may serve a request for a `rounded`-byte block.
fn max_fit(rounded: u64) -> u64 {
    if rounded <= SMALL {
        rounded * 2
    } else {
        rounded + rounded / 8
    }
}

impl Pool {
    /// A block of at least `bytes` bytes for use on `stream`; returns its address and size.
    pub(crate) fn alloc(&self, stream: &Stream, bytes: u64) -> Result<(DevicePtr, u64)> {
        let rounded = round(bytes);
        let reused = {
            let mut st = lock(&self.state);
            let mut found = None;
            for (&size, blocks) in st.free.range_mut(rounded..=max_fit(rounded)) {
                let i = blocks.iter().position(|b| b.freed_on == *stream).unwrap_or(0);
                if i < blocks.len() {
                    found = Some((size, blocks.swap_remove(i)));
                    break;
                }
            }
            if let Some((size, _)) = &found {
                st.cached -= size;
                if st.free.get(size).is_some_and(Vec::is_empty) {
                    st.free.remove(size);
                }
            }
            found
        };
        let device = stream.device();
        match reused {
            Some((size, block)) => {
                if block.freed_on != *stream {
                    // Work queued on the freeing stream may still use the block: order after it.
                    let b = &device.inner.backend;
                    let event = b
                        .event_create(device.ordinal(), EventFlags { timing: false, blocking_sync: false })
                        .map_err(|e| device.error(e))?;
                    let r = b
                        .event_record(event, block.freed_on.handle())
                        .and_then(|_| b.stream_wait_event(stream.handle(), event));
                    let _ = b.event_destroy(event);
                    if let Err(e) = r {
                        self.release(block.ptr, size, block.freed_on);
                        return Err(device.error(e));
                    }
                }
                Ok((block.ptr, size))
            }
            None => Ok((device.backend_alloc(rounded, false)?, rounded)),
        }
    }

    /// Returns a block; it becomes reusable in `stream`'s order.
    pub(crate) fn release(&self, ptr: DevicePtr, size: u64, stream: Stream) {
        let mut st = lock(&self.state);
        st.cached += size;
        st.free.entry(size).or_default().push(FreeBlock { ptr, freed_on: stream });
    }

    /// Frees every cached block to the driver.
    pub(crate) fn trim(&self, device: &Device) -> Result<()> {
        let blocks = {
            let mut st = lock(&self.state);
            st.cached = 0;
            std::mem::take(&mut st.free)
        };
        let mut first = Ok(());
        for block in blocks.into_values().flatten() {
            let r = device.inner.backend.free(device.ordinal(), block.ptr).map_err(|e| device.error(e));
            if first.is_ok() {
                first = r;
            }
        }
        first
    }

    pub(crate) fn cached_bytes(&self) -> u64 {
        lock(&self.state).cached
    }
}
