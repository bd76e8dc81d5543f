//! What kernels on the CPU device may touch, and where their `printf` goes.

use ferrocm_cpu_exec::HostEnv;

/// Every allocation the runtime made (device, managed and pinned memory, module variables),
/// looked up in its pointer table. Device `printf` writes to the C library's `stdout`, so it
/// interleaves with the program's own `printf` in the order they run.
pub struct HostMemory;

extern "C" {
    // glibc's and musl's `stdout` stream.
    static mut stdout: *mut libc::FILE;
}

impl HostEnv for HostMemory {
    fn global_range(&self, addr: u64) -> Option<(u64, u64)> {
        ferrocm_runtime::pointer_attributes(addr).ok().flatten().map(|a| (a.base.0, a.size))
    }

    fn print(&self, text: &[u8]) {
        if text.is_empty() {
            return;
        }
        // SAFETY: `stdout` is the C library's stream, valid for the life of the process;
        // `fwrite` locks it and reads `text.len()` bytes of `text`.
        unsafe {
            let out = std::ptr::addr_of!(stdout).read();
            libc::fwrite(text.as_ptr() as *const libc::c_void, 1, text.len(), out);
        }
    }
}
