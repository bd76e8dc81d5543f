//! The stream-ordered caching allocator behind [`Stream::alloc`] (as `hipMallocAsync` with a
//! default memory pool).
//!
//! Freed blocks are kept per device, keyed by rounded size, together with the stream that freed
//! them and an event on every other stream that used them (recorded when the block was freed).
//! A block is reused at once by the stream that freed it, after the other users' events; another
//! stream also waits on an event recorded on the freeing stream. So no stream's queued work can
//! still be writing a block handed out again, and a loop of allocate and free on one stream calls
//! the driver only on its first iteration.
//!
//! The cache is given back to the driver by [`Device::trim_pool`], automatically when a driver
//! allocation runs out of memory, and, when a release threshold is set
//! ([`Device::set_pool_release_threshold`], as `cudaMemPoolAttrReleaseThreshold`), at each
//! synchronize that leaves more than the threshold cached.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use ferrocm_backend::DevicePtr;

use crate::device::Device;
use crate::event::Event;
use crate::memory::UseTracker;
use crate::stream::Stream;
use crate::{lock, Result};

const SMALL: u64 = 1 << 20;
const SMALL_GRANULE: u64 = 512;
const LARGE_GRANULE: u64 = 2 << 20;

struct FreeBlock {
    ptr: DevicePtr,
    freed_on: Stream,
    /// Events on the other streams that used the block, recorded when it was freed.
    others: Vec<Event>,
    /// The use tracker of the buffer that held the block, emptied, for the block's next buffer
    /// (so an allocate-and-free loop allocates nothing on the host).
    tracker: Option<Arc<UseTracker>>,
}

/// A block handed out by [`Pool::alloc`].
pub(crate) struct Block {
    pub ptr: DevicePtr,
    pub bytes: u64,
    /// An empty use tracker kept with the block, if it had one.
    pub tracker: Option<Arc<UseTracker>>,
}

struct State {
    free: BTreeMap<u64, Vec<FreeBlock>>,
    cached: u64,
    release_threshold: u64,
}

impl Default for State {
    fn default() -> Self {
        State { free: BTreeMap::new(), cached: 0, release_threshold: u64::MAX }
    }
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
    pub(crate) fn alloc(&self, stream: &Stream, bytes: u64) -> Result<Block> {
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
            // An emptied list stays in the map: the next free of this size reuses it.
            if let Some((size, _)) = &found {
                st.cached -= size;
            }
            found
        };
        let device = stream.device();
        let Some((size, block)) = reused else {
            return Ok(Block { ptr: device.backend_alloc(rounded, false)?, bytes: rounded, tracker: None });
        };
        if let Err(e) = self.order_reuse(stream, &block) {
            self.put(size, block);
            return Err(e);
        }
        Ok(Block { ptr: block.ptr, bytes: size, tracker: block.tracker })
    }

    /// Makes `stream`'s later work wait for every stream whose work may still use `block`.
    fn order_reuse(&self, stream: &Stream, block: &FreeBlock) -> Result<()> {
        if block.freed_on != *stream {
            stream.wait_event(&block.freed_on.completion_event()?)?;
        }
        for e in &block.others {
            stream.wait_event(e)?;
        }
        Ok(())
    }

    /// Returns a block freed on `stream`; `used_on` are all streams that queued work on it. It
    /// becomes reusable in `stream`'s order, after the others' work. `tracker`, if given, is an
    /// emptied use tracker to hand out with the block again.
    pub(crate) fn release(
        &self,
        device: &Device,
        ptr: DevicePtr,
        size: u64,
        stream: Stream,
        used_on: Vec<Stream>,
        tracker: Option<Arc<UseTracker>>,
    ) {
        let mut others = Vec::new();
        for s in used_on.iter().filter(|s| **s != stream) {
            match s.completion_event() {
                Ok(e) => others.push(e),
                Err(_) => {
                    // Without an event to order reuse after `s`, the block must not be reused:
                    // free it to the driver once every user's work is done.
                    crate::device::free_after(device, ptr, used_on);
                    return;
                }
            }
        }
        self.put(size, FreeBlock { ptr, freed_on: stream, others, tracker });
    }

    fn put(&self, size: u64, block: FreeBlock) {
        let mut st = lock(&self.state);
        st.cached += size;
        match st.free.get_mut(&size) {
            Some(list) => list.push(block),
            None => {
                st.free.insert(size, vec![block]);
            }
        }
    }

    /// Frees every cached block to the driver, once the work that used each is done.
    pub(crate) fn trim(&self, device: &Device) -> Result<()> {
        crate::callback::forbid("trimming the memory pool")?;
        let blocks = {
            let mut st = lock(&self.state);
            st.cached = 0;
            std::mem::take(&mut st.free)
        };
        self.free_blocks(device, blocks.into_values().flatten())
    }

    fn free_blocks(&self, device: &Device, blocks: impl Iterator<Item = FreeBlock>) -> Result<()> {
        let mut first = Ok(());
        for block in blocks {
            for e in &block.others {
                // The other streams' events were recorded at free time: waiting for them
                // waits for exactly their work on the block.
                let _ = e.synchronize();
            }
            let r = crate::device::free_now(device, block.ptr, std::slice::from_ref(&block.freed_on));
            if first.is_ok() {
                first = r;
            }
        }
        first
    }

    /// Gives back cached blocks freed on `stream` (any stream when `None`: after a device
    /// synchronize) while more than the release threshold is cached; their work is done.
    pub(crate) fn release_over_threshold(&self, device: &Device, stream: Option<&Stream>) {
        let blocks: Vec<FreeBlock> = {
            let mut st = lock(&self.state);
            if st.cached <= st.release_threshold {
                return;
            }
            let State { free, cached, release_threshold } = &mut *st;
            let mut out = Vec::new();
            // Largest blocks first: the fewest driver calls bring the cache under the threshold.
            for (&size, list) in free.iter_mut().rev() {
                while *cached > *release_threshold {
                    let Some(i) = list.iter().position(|b| stream.is_none_or(|s| b.freed_on == *s)) else {
                        break;
                    };
                    out.push(list.swap_remove(i));
                    *cached -= size;
                }
            }
            free.retain(|_, list| !list.is_empty());
            out
        };
        let _ = self.free_blocks(device, blocks.into_iter());
    }

    pub(crate) fn cached_bytes(&self) -> u64 {
        lock(&self.state).cached
    }

    pub(crate) fn set_release_threshold(&self, bytes: u64) {
        lock(&self.state).release_threshold = bytes;
    }
}
