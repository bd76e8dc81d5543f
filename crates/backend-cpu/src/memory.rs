//! Host memory for the CPU device: how much there is (the machine's, or the container's cgroup
//! limit where that is smaller) and allocations that do not touch their pages up front.
//!
//! Large allocations are anonymous `mmap`s, zero-filled by the kernel page by page as they are
//! first touched, so allocating memory that is never used costs no resident memory and a cgroup
//! limit is not hit by zeroing. Small ones come from the global allocator and are zeroed
//! eagerly (a few pages at most).

use std::alloc::Layout;

/// Allocations at least this large are mapped directly.
const MMAP_THRESHOLD: usize = 256 * 1024;

/// How an allocation was made, so it is released the same way.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Block {
    Heap(Layout),
    Mapped(usize),
}

impl Block {
    /// Bytes the allocation holds.
    pub(crate) fn size(self) -> usize {
        match self {
            Block::Heap(l) => l.size(),
            Block::Mapped(len) => len,
        }
    }
}

/// Allocates `size` zeroed bytes aligned to `align` (at most the page size); `None` when the
/// system has no memory for it.
pub(crate) fn allocate(size: usize, align: usize) -> Option<(*mut u8, Block)> {
    let size = size.max(1);
    if size >= MMAP_THRESHOLD {
        // SAFETY: an anonymous private mapping with no address hint; the kernel returns
        // page-aligned, zero-filled memory or MAP_FAILED.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        return Some((p as *mut u8, Block::Mapped(size)));
    }
    let layout = Layout::from_size_align(size, align).ok()?;
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    (!p.is_null()).then_some((p, Block::Heap(layout)))
}

/// Releases an allocation.
///
/// # Safety
/// `ptr` and `block` came from one [`allocate`] call and are released once.
pub(crate) unsafe fn release(ptr: *mut u8, block: Block) {
    match block {
        // SAFETY: forwarded from the caller.
        Block::Heap(layout) => unsafe { std::alloc::dealloc(ptr, layout) },
        // SAFETY: forwarded: the mapping of exactly `len` bytes at `ptr`.
        Block::Mapped(len) => unsafe {
            libc::munmap(ptr as *mut libc::c_void, len);
        },
    }
}

/// The memory a CPU device may use, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HostMemory {
    pub(crate) total: u64,
    pub(crate) available: u64,
}

/// Reads the machine's memory and the cgroup limit that applies to this process.
pub(crate) fn host_memory() -> HostMemory {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let meminfo = read("/proc/meminfo").unwrap_or_default();
    let cgroup = read("/proc/self/cgroup").unwrap_or_default();
    limits(&meminfo, cgroup_limit(&cgroup, &|p| read(p)))
}

/// Combines `/proc/meminfo` with a cgroup's (limit, usage).
pub(crate) fn limits(meminfo: &str, cgroup: Option<(u64, u64)>) -> HostMemory {
    let field = |name: &str| -> Option<u64> {
        let line = meminfo.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kib| kib * 1024)
    };
    let total = field("MemTotal:").unwrap_or(8 << 30);
    let available = field("MemAvailable:").unwrap_or(total);
    match cgroup {
        Some((limit, usage)) if limit < total => {
            HostMemory { total: limit, available: available.min(limit.saturating_sub(usage)) }
        }
        _ => HostMemory { total, available },
    }
}

/// The memory limit and usage of this process's cgroup, from cgroup v2 (`memory.max`,
/// `memory.current`) or v1 (`memory.limit_in_bytes`, `memory.usage_in_bytes`). `read` reads a
/// file (a parameter so tests can supply a fake file system). `None` where there is no limit.
pub(crate) fn cgroup_limit(
    proc_self_cgroup: &str,
    read: &dyn Fn(&str) -> Option<String>,
) -> Option<(u64, u64)> {
    let num = |text: Option<String>| -> Option<u64> { text?.trim().parse().ok() };
    for line in proc_self_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_end_matches('/');
        if id == "0" && controllers.is_empty() {
            // cgroup v2: the path may be hidden by a namespace, so try it and the root.
            for dir in [format!("/sys/fs/cgroup{path}"), "/sys/fs/cgroup".to_string()] {
                let max = read(&format!("{dir}/memory.max"));
                if let Some(limit) = num(max) {
                    let usage = num(read(&format!("{dir}/memory.current"))).unwrap_or(0);
                    return Some((limit, usage));
                }
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            for dir in [format!("/sys/fs/cgroup/memory{path}"), "/sys/fs/cgroup/memory".to_string()] {
                if let Some(limit) = num(read(&format!("{dir}/memory.limit_in_bytes"))) {
                    let usage = num(read(&format!("{dir}/memory.usage_in_bytes"))).unwrap_or(0);
                    return Some((limit, usage));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMINFO: &str =
        "MemTotal:       24575548 kB\nMemFree:        20000000 kB\nMemAvailable:   23000000 kB\n";

    fn fs(files: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |p| files.iter().find(|(k, _)| *k == p).map(|(_, v)| v.to_string())
    }

    #[test]
    fn a_cgroup_v2_limit_caps_total_and_available() {
        let read = fs(&[
            ("/sys/fs/cgroup/job/memory.max", "1610612736\n"),
            ("/sys/fs/cgroup/job/memory.current", "104857600\n"),
        ]);
        let cg = cgroup_limit("0::/job\n", &read);
        assert_eq!(cg, Some((1_610_612_736, 104_857_600)));
        let m = limits(MEMINFO, cg);
        assert_eq!(m, HostMemory { total: 1_610_612_736, available: 1_610_612_736 - 104_857_600 });
    }

    #[test]
    fn an_unlimited_cgroup_leaves_the_machine_s_memory() {
        // v2 "max" does not parse as a number; v1 reports a huge number.
        let v2 = fs(&[("/sys/fs/cgroup/memory.max", "max\n")]);
        assert_eq!(cgroup_limit("0::/\n", &v2), None);
        let v1 = fs(&[
            ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n"),
            ("/sys/fs/cgroup/memory/memory.usage_in_bytes", "2867290112\n"),
        ]);
        let cg = cgroup_limit("4:memory:/process_api/x\n0::/\n", &v1);
        assert_eq!(cg, Some((9_223_372_036_854_771_712, 2_867_290_112)));
        let m = limits(MEMINFO, cg);
        assert_eq!(m, HostMemory { total: 24_575_548 * 1024, available: 23_000_000 * 1024 });
    }

    #[test]
    fn a_cgroup_v1_limit_under_a_namespace_is_found_at_the_root() {
        let read = fs(&[
            ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "1073741824\n"),
            ("/sys/fs/cgroup/memory/memory.usage_in_bytes", "1073000000\n"),
        ]);
        let m = limits(MEMINFO, cgroup_limit("4:memory:/hidden/path\n", &read));
        assert_eq!(m, HostMemory { total: 1 << 30, available: (1 << 30) - 1_073_000_000 });
        // Usage above the limit leaves nothing available rather than wrapping.
        assert_eq!(limits(MEMINFO, Some((100, 200))).available, 0);
    }

    #[test]
    fn large_allocations_are_mapped_and_zeroed() {
        for size in [1, 4096, MMAP_THRESHOLD - 1, MMAP_THRESHOLD, 3 << 20] {
            let (p, block) = allocate(size, 256).expect("allocation");
            assert_eq!(p as usize % 256, 0);
            assert_eq!(matches!(block, Block::Mapped(_)), size >= MMAP_THRESHOLD);
            // SAFETY: `p` holds `size` zeroed bytes.
            let bytes = unsafe { std::slice::from_raw_parts_mut(p, size) };
            assert!(bytes.iter().all(|&b| b == 0));
            bytes[size - 1] = 7;
            // SAFETY: released once, as allocated.
            unsafe { release(p, block) };
        }
    }
}
