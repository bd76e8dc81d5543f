//! The steady-state typed launch finds its compiled kernel and its loaded function without a
//! lock or an allocation (the runtime's own launch path is measured by `ferrocm bench runtime`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use ferrocm_kernel::prelude::*;

/// Counts allocations made by this thread while `COUNTING` is set.
struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.try_with(|c| c.get()).unwrap_or(false) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCS.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCS.load(Ordering::Relaxed) - before
}

#[kernel]
fn plain_axpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = global_index();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[derive(Clone, Debug)]
struct Config {
    unroll: u32,
    name: &'static str,
}

#[kernel]
fn configured<T: Float, const W: usize>(#[comptime] cfg: Config, x: &mut [T]) {
    let i = global_index() * W;
    for k in 0..W {
        if i + k < x.len() {
            x[i + k] = x[i + k] + x[i + k];
        }
    }
    // The config's fields are compile-time values (part of the instantiation's key).
    let _ = (cfg.unroll, cfg.name);
}

#[test]
fn finding_a_built_kernel_and_its_loaded_function_allocates_nothing() {
    let device = Device::cpu().expect("the CPU device");
    // Build and load once.
    let k = plain_axpy::kernel().expect("builds");
    k.function(&device).expect("loads");
    let cfg = Config { unroll: 4, name: "four" };
    let g = configured::kernel::<f32, 4>(cfg.clone()).expect("builds");
    g.function(&device).expect("loads");
    let n = allocations(|| {
        for _ in 0..100 {
            let k = plain_axpy::kernel().expect("cached");
            k.function(&device).expect("loaded");
            let g = configured::kernel::<f32, 4>(cfg.clone()).expect("cached");
            g.function(&device).expect("loaded");
        }
    });
    assert_eq!(n, 0, "the steady-state lookups allocated {n} times");
    // A different compile-time value is a different instantiation.
    let other = configured::kernel::<f32, 4>(Config { unroll: 4, name: "other" }).expect("builds");
    assert!(!std::sync::Arc::ptr_eq(&other, &g));
    let f64_kernel = configured::kernel::<f64, 4>(cfg).expect("builds");
    let again = configured::kernel::<f64, 4>(Config { unroll: 4, name: "four" }).expect("cached");
    assert!(std::sync::Arc::ptr_eq(&f64_kernel, &again), "equal compile-time values share one instantiation");
    assert!(!std::sync::Arc::ptr_eq(&f64_kernel, &g), "element types are part of the key");
}
