//! Byte-addressed memory ([`MemSpace::Addressed`], made by the PTX front end): every access is
//! resolved to a host pointer after checking it against the memory it lies in (an allocation the
//! kernel's [`HostEnv`](crate::HostEnv) names, the block's shared memory, the thread's local
//! memory) and its alignment. Device `printf` and the strings of failed assertions are read
//! through the same checks.

use ferrocm_ir::generic::{LOCAL_BASE, SHARED_BASE, WINDOW_BYTES};
use ferrocm_ir::*;

use crate::launch::Launch;
use crate::memory::read_mem;
use crate::printf;
use crate::sched::Warp;

/// Global allocations remembered per warp (the most recently found ones).
const RANGE_CACHE: usize = 16;

/// The address space and address a generic address names (shared and local windows, else
/// global); other spaces unchanged.
pub(crate) fn split_generic(space: AddrSpace, addr: u64) -> (AddrSpace, u64) {
    match space {
        AddrSpace::Generic if addr.wrapping_sub(SHARED_BASE) < WINDOW_BYTES => {
            (AddrSpace::Shared, addr - SHARED_BASE)
        }
        AddrSpace::Generic if addr.wrapping_sub(LOCAL_BASE) < WINDOW_BYTES => {
            (AddrSpace::Local, addr - LOCAL_BASE)
        }
        AddrSpace::Generic => (AddrSpace::Global, addr),
        s => (s, addr),
    }
}

/// The host pointer behind `bytes` bytes at byte address `addr` of `space` for `lane` of `w`,
/// after checking that the whole access lies inside memory the kernel may touch and is aligned
/// to `align`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve(
    l: &Launch,
    w: &mut Warp,
    shared: *mut u8,
    space: AddrSpace,
    addr: u64,
    bytes: u32,
    align: u32,
    lane: usize,
    blk: (u32, u32, u32),
) -> Result<*mut u8, String> {
    let (space, addr) = split_generic(space, addr);
    let where_ =
        |w: &Warp| format!("in thread {:?} of block {blk:?}", l.thread_coords(w.id * 32 + lane as u32));
    let name = &l.k.func.name;
    if !addr.is_multiple_of(align as u64) {
        return Err(format!(
            "kernel `{name}`: misaligned address: {} address {addr:#x} of a {bytes}-byte access is not {align}-byte \
             aligned {}",
            space.name(),
            where_(w)
        ));
    }
    let end = addr.checked_add(bytes as u64);
    match space {
        AddrSpace::Shared | AddrSpace::Local => {
            let (limit, what) = match space {
                AddrSpace::Shared => (l.shared_bytes, "shared memory of the block"),
                _ => (l.k.local_bytes, "local memory of the thread"),
            };
            if end.is_none_or(|e| e > limit) {
                return Err(format!(
                    "kernel `{name}`: illegal address: {} byte offset {addr} ({bytes} bytes) is outside the {limit} \
                     bytes of {what} {}",
                    space.name(),
                    where_(w)
                ));
            }
            // SAFETY (of the pointer arithmetic): the check above keeps the access inside the
            // block's shared buffer or this lane's local area, both sized at launch.
            Ok(unsafe {
                match space {
                    AddrSpace::Shared => shared.add(addr as usize),
                    _ => (w.local.as_ptr() as *mut u8).add(lane * l.k.local_bytes as usize + addr as usize),
                }
            })
        }
        _ => {
            let Some(end) = end else {
                return Err(format!("kernel `{name}`: illegal address {addr:#x} {}", where_(w)));
            };
            if w.ranges.iter().any(|&(b, e)| addr >= b && end <= e) {
                return Ok(addr as *mut u8);
            }
            match l.k.env.as_ref().and_then(|env| env.global_range(addr)) {
                Some((base, size)) if addr >= base && end <= base.saturating_add(size) => {
                    if w.ranges.len() == RANGE_CACHE {
                        w.ranges.remove(0);
                    }
                    w.ranges.push((base, base + size));
                    Ok(addr as *mut u8)
                }
                Some((base, size)) => Err(format!(
                    "kernel `{name}`: illegal address: global access of {bytes} bytes at {addr:#x} runs past the \
                     end of the allocation at {base:#x} of {size} bytes {}",
                    where_(w)
                )),
                None => Err(format!(
                    "kernel `{name}`: illegal address: global address {addr:#x} is not inside any allocation {}",
                    where_(w)
                )),
            }
        }
    }
}

/// Reads the NUL-terminated string at generic address `addr` for `lane` (at most 64 KiB).
pub(crate) fn c_string(
    l: &Launch,
    w: &mut Warp,
    shared: *mut u8,
    addr: u64,
    lane: usize,
    blk: (u32, u32, u32),
) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for i in 0..65536u64 {
        let p = resolve(l, w, shared, AddrSpace::Generic, addr.wrapping_add(i), 1, 1, lane, blk)?;
        // SAFETY: `resolve` checked the byte against the memory it lies in.
        let b = unsafe { read_mem(p, 1) } as u8;
        if b == 0 {
            return Ok(out);
        }
        out.push(b);
    }
    Err(format!("kernel `{}`: a string at {addr:#x} is not terminated within 64 KiB", l.k.func.name))
}

/// Formats one `printf` of `lane` (CUDA's `vprintf` argument layout: each argument aligned to
/// its size); the text and the number of arguments.
pub(crate) fn printf(
    l: &Launch,
    w: &mut Warp,
    shared: *mut u8,
    fmt: u64,
    args: u64,
    lane: usize,
    blk: (u32, u32, u32),
) -> Result<(Vec<u8>, i32), String> {
    let fmt = c_string(l, w, shared, fmt, lane, blk)?;
    let mut offset = 0u64;
    let mut read_arg = |w: &mut Warp, size: u32| -> Result<u64, String> {
        offset = offset.next_multiple_of(size as u64);
        let p = resolve(l, w, shared, AddrSpace::Generic, args.wrapping_add(offset), size, size, lane, blk)?;
        offset += size as u64;
        // SAFETY: `resolve` checked the argument's bytes and alignment.
        Ok(unsafe { read_mem(p, size) })
    };
    let mut out = Vec::new();
    let mut count = 0;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let Some(spec) = printf::Spec::parse(&fmt[i..]) else {
            // A malformed conversion is copied as it is, as the GPU's printf does.
            out.push(b'%');
            i += 1;
            continue;
        };
        i += spec.len;
        if spec.conv == b'%' {
            out.push(b'%');
            continue;
        }
        let width = if spec.star_width { Some(read_arg(w, 4)? as u32 as i32) } else { None };
        let precision = if spec.star_precision { Some(read_arg(w, 4)? as u32 as i32) } else { None };
        let arg = match spec.conv {
            b's' => {
                let ptr = read_arg(w, 8)?;
                printf::Arg::Str(if ptr == 0 {
                    b"(null)".to_vec()
                } else {
                    c_string(l, w, shared, ptr, lane, blk)?
                })
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                printf::Arg::Float(f64::from_bits(read_arg(w, 8)?))
            }
            b'p' => printf::Arg::Int(read_arg(w, 8)?),
            _ => printf::Arg::Int(read_arg(w, spec.int_size())?),
        };
        count += 1;
        spec.format(&mut out, width, precision, arg);
    }
    Ok((out, count))
}
