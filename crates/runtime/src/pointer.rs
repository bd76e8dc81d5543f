//! Pointer attributes: from any address inside an allocation the runtime made (device, managed or
//! pinned host memory), the allocation it belongs to, in O(log n) (what `hipPointerGetAttributes`
//! and `hipMemcpy` with `hipMemcpyDefault` need).

use std::collections::BTreeMap;
use std::sync::{OnceLock, RwLock};

use ferrocm_backend::DevicePtr;

use crate::device::Device;
use crate::Result;

/// What kind of memory an allocation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MemoryKind {
    /// Device memory.
    Device,
    /// Managed (unified) memory, reachable from host and device.
    Managed,
    /// Page-locked host memory.
    PinnedHost,
}

/// The allocation an address belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointerAttributes {
    /// The device that made the allocation.
    pub device: Device,
    /// Its first address.
    pub base: DevicePtr,
    /// Its size in bytes.
    pub size: u64,
    pub kind: MemoryKind,
}

struct Record {
    size: u64,
    device: usize,
    kind: MemoryKind,
}

fn table() -> &'static RwLock<BTreeMap<u64, Record>> {
    static TABLE: OnceLock<RwLock<BTreeMap<u64, Record>>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

pub(crate) fn register(base: u64, size: u64, device: usize, kind: MemoryKind) {
    table().write().unwrap_or_else(|e| e.into_inner()).insert(base, Record { size, device, kind });
}

pub(crate) fn unregister(base: u64) {
    table().write().unwrap_or_else(|e| e.into_inner()).remove(&base);
}

/// The allocation that contains `address`, or `None` if the runtime made none there.
pub fn pointer_attributes(address: u64) -> Result<Option<PointerAttributes>> {
    let found = {
        let t = table().read().unwrap_or_else(|e| e.into_inner());
        t.range(..=address)
            .next_back()
            .filter(|(&base, r)| address - base < r.size)
            .map(|(&base, r)| (base, r.size, r.device, r.kind))
    };
    match found {
        Some((base, size, device, kind)) => {
            Ok(Some(PointerAttributes { device: Device::get(device)?, base: DevicePtr(base), size, kind }))
        }
        None => Ok(None),
    }
}
