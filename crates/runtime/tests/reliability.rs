//! Regression tests for "Reliability I": each case is named after what broke, and runs on every
//! backend present (CPU-only cases say so).

mod common;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::TestResult;
use ferrocm_runtime::{
    builtin, AsDeviceSlice, CpuKernel, CpuModule, Device, Dim3, Error, FunctionAttributes, HostBuffer,
    KernelArgs, LaunchConfig, LaunchDims, MemoryKind, ModuleImage, Stream, StreamFlags,
};

/// Under a sanitizer every launch is serialised and slow; timing bounds then only hold loosely.
fn slack() -> u32 {
    if std::env::var_os("FERROCM_SANITIZE").is_some() {
        20
    } else {
        1
    }
}

fn spin(stream: &Stream, ms: u64) -> TestResult {
    let f = builtin::load(stream.device())?.function("spin")?;
    let mut args = KernelArgs::new();
    args.push(ms * 1_000_000);
    // SAFETY: `spin` takes one u64 and touches no memory.
    unsafe { stream.launch(&f, LaunchConfig::new(1, 1), &args)? };
    Ok(())
}

fn axpy(stream: &Stream, x: &impl AsDeviceSlice<f32>, y: &impl AsDeviceSlice<f32>, a: f32) -> TestResult {
    let f = builtin::load(stream.device())?.function("axpy_f32")?;
    let mut args = KernelArgs::new();
    args.push_buffer(x).push_buffer(y).push(y.len() as u64).push(a);
    // SAFETY: axpy_f32 over two buffers of y.len() f32s.
    unsafe { stream.launch(&f, LaunchConfig::for_num_elems(y.len() as u32), &args)? };
    Ok(())
}

/// A CPU kernel that reports the resources it declares, to check the limits a GPU enforces.
struct Declares(FunctionAttributes);
impl CpuKernel for Declares {
    unsafe fn launch(&self, _: LaunchDims, _: &[&[u8]]) -> Result<(), String> {
        Ok(())
    }
    fn attributes(&self) -> FunctionAttributes {
        self.0
    }
}
impl CpuModule for Declares {
    fn function(&self, _: &str) -> Option<std::sync::Arc<dyn CpuKernel>> {
        Some(std::sync::Arc::new(Declares(self.0)))
    }
}

conformance! {
    pool_never_hands_out_memory_another_stream_is_writing(dev) {
        let (a, b) = (dev.create_stream()?, dev.create_stream()?);
        dev.trim_pool()?;
        let n = 65_536;
        let x = a.clone_htod(&vec![1.0f32; n])?;
        let y = a.clone_htod(&vec![0.0f32; n])?;
        let y_addr = y.device_ptr();
        a.synchronize()?;
        // Stream B queues a slow write into y, then y is dropped while B is still busy.
        spin(&b, 200)?;
        axpy(&b, &x, &y, 3.0)?;
        drop(y);
        // A's next allocation may get the same block, but only after B's work on it.
        let mut z = a.alloc::<f32>(n)?;
        a.copy_htod(&vec![5.0f32; n], &mut z)?;
        b.synchronize()?;
        a.synchronize()?;
        let got = a.clone_dtoh(&z)?;
        let survived = got.iter().filter(|&&v| v == 5.0).count();
        assert_eq!(survived, n, "B's kernel overwrote A's data (block reused: {})", z.device_ptr() == y_addr);
        Ok(())
    }

    dropping_a_buffer_in_a_host_callback_does_not_hang(dev) {
        let s = dev.create_stream()?;
        let direct = dev.alloc::<u32>(1024)?;
        let pooled = s.clone_htod(&[7u32; 1024])?;
        let pinned = HostBuffer::<u32>::new(dev, 1024)?;
        let (tx, rx) = mpsc::channel();
        s.add_callback(move || {
            drop((direct, pooled, pinned));
            let _ = tx.send(());
        })?;
        s.synchronize()?;
        rx.recv_timeout(Duration::from_secs(10 * slack() as u64)).map_err(|_| "the callback did not finish")?;
        Ok(())
    }

    synchronizing_a_stream_inside_its_callback_is_refused(dev) {
        let s = dev.create_stream()?;
        let (tx, rx) = mpsc::channel();
        let inner = s.clone();
        let device = dev.clone();
        s.add_callback(move || {
            let results = (
                inner.synchronize(),
                inner.alloc::<u8>(16).map(|_| ()),
                device.synchronize(),
                inner.query().map(|_| ()),
            );
            let _ = tx.send(results);
        })?;
        s.synchronize()?;
        let (sync, alloc, dev_sync, query) = rx.recv_timeout(Duration::from_secs(10))?;
        for r in [sync, alloc, dev_sync, query] {
            let e = r.expect_err("a blocking call inside a callback must be refused");
            assert!(matches!(e, Error::NotPermitted { .. }), "{e}");
            assert!(e.to_string().contains("host callback"), "{e}");
        }
        // The stream still works afterwards.
        assert_eq!(s.clone_dtoh(&s.clone_htod(&[3u8, 4])?)?, vec![3, 4]);
        Ok(())
    }

    dropping_the_last_stream_clone_in_its_own_callback_is_fine(dev) {
        let s = dev.create_stream()?;
        let (tx, rx) = mpsc::channel();
        let buf = s.clone_htod(&[1u64; 256])?;
        let own = s.clone();
        s.add_callback(move || {
            drop(own);
            let _ = tx.send(());
        })?;
        drop(s);
        drop(buf);
        rx.recv_timeout(Duration::from_secs(10 * slack() as u64)).map_err(|_| "the callback never ran")?;
        // The device keeps working.
        let t = dev.create_stream()?;
        assert_eq!(t.clone_dtoh(&t.clone_htod(&[9i32; 3])?)?, vec![9; 3]);
        Ok(())
    }

    free_waits_only_for_streams_that_used_the_memory(dev) {
        let busy = dev.create_stream()?;
        spin(&busy, 1500)?;
        let start = Instant::now();
        let other = dev.create_stream()?;
        let mut direct = dev.alloc::<u32>(1 << 16)?;
        other.memset_zero(&mut direct)?;
        drop(direct);
        let pooled = other.clone_htod(&[1u32; 1000])?;
        drop(pooled);
        dev.trim_pool()?;
        drop(other);
        // Dropping the busy stream itself returns at once too.
        drop(busy);
        let took = start.elapsed();
        assert!(
            took < Duration::from_millis(1000) * slack(),
            "freeing memory unrelated to a running kernel took {took:?}"
        );
        dev.synchronize()?;
        Ok(())
    }

    legacy_default_stream_orders_against_blocking_streams(dev) {
        let legacy = dev.legacy_default_stream()?;
        assert_eq!(legacy, dev.legacy_default_stream()?);
        let blocking = dev.create_stream_with(StreamFlags { non_blocking: false, priority: 0 })?;
        let n = 4096;
        let src = blocking.clone_htod(&vec![2.0f32; n])?;
        let mut dst = blocking.clone_htod(&vec![0.0f32; n])?;
        blocking.synchronize()?;
        // Work on a blocking stream, then a copy on the legacy stream: the copy waits for it.
        let x = blocking.clone_htod(&vec![0.0f32; n])?;
        spin(&blocking, 200)?;
        axpy(&blocking, &src, &x, 1.0)?; // x = 2
        legacy.copy_dtod(&x, &mut dst)?;
        legacy.synchronize()?;
        assert!(legacy.clone_dtoh(&dst)?.iter().all(|&v| v == 2.0), "the legacy stream did not wait for the blocking stream");
        // And the other way: legacy work, then blocking-stream work waits for it.
        spin(&legacy, 200)?;
        axpy(&legacy, &src, &x, 1.0)?; // x = 4
        blocking.copy_dtod(&x, &mut dst)?;
        blocking.synchronize()?;
        assert!(blocking.clone_dtoh(&dst)?.iter().all(|&v| v == 4.0), "the blocking stream did not wait for the legacy stream");
        // A non-blocking stream does not wait for the legacy stream.
        spin(&legacy, 1500)?;
        let free = dev.create_stream()?;
        let t = Instant::now();
        let mut y = free.alloc::<f32>(16)?;
        free.memset_zero(&mut y)?;
        free.synchronize()?;
        assert!(t.elapsed() < Duration::from_millis(1000) * slack(), "a non-blocking stream waited for the legacy stream");
        legacy.synchronize()?;
        // The per-thread default stream is a distinct blocking stream per thread.
        // The per-thread default stream: the same stream for repeated calls on one thread, and
        // each thread's is its own (a kernel on this thread's does not delay another thread's).
        let mine = dev.per_thread_default_stream()?;
        assert_eq!(mine, dev.per_thread_default_stream()?);
        spin(&mine, 1500)?;
        let d = dev.clone();
        let took = std::thread::spawn(move || -> ferrocm_runtime::Result<Duration> {
            let theirs = d.per_thread_default_stream()?;
            let t = Instant::now();
            let mut z = theirs.alloc::<u8>(64)?;
            theirs.memset_zero(&mut z)?;
            theirs.synchronize()?;
            Ok(t.elapsed())
        })
        .join()
        .unwrap()?;
        assert!(took < Duration::from_millis(1000) * slack(), "another thread's default stream waited {took:?}");
        mine.synchronize()?;
        Ok(())
    }

    pointer_attributes_find_the_allocation(dev) {
        let s = dev.create_stream()?;
        let direct = dev.alloc::<f64>(1000)?;
        let base = direct.device_ptr().0;
        for offset in [0u64, 8, 7999] {
            let a = ferrocm_runtime::pointer_attributes(base + offset)?.ok_or("no attributes inside the allocation")?;
            assert_eq!((a.base.0, a.size, a.kind, a.device.index()), (base, 8000, MemoryKind::Device, dev.index()));
        }
        let pinned = HostBuffer::<u8>::new(dev, 100)?;
        let p = pinned.as_ptr() as u64;
        let a = ferrocm_runtime::pointer_attributes(p + 99)?.ok_or("pinned memory not found")?;
        assert_eq!((a.base.0, a.kind), (p, MemoryKind::PinnedHost));
        let managed = dev.alloc_managed::<u32>(10)?;
        let a = ferrocm_runtime::pointer_attributes(managed.device_ptr().0)?.ok_or("managed memory not found")?;
        assert_eq!(a.kind, MemoryKind::Managed);
        // Pooled buffers live inside the pool's driver block.
        let pooled = s.alloc::<u8>(10)?;
        let a = ferrocm_runtime::pointer_attributes(pooled.device_ptr().0)?.ok_or("pooled memory not found")?;
        assert!(a.base.0 <= pooled.device_ptr().0 && pooled.device_ptr().0 + 10 <= a.base.0 + a.size);
        drop(direct);
        s.synchronize()?;
        assert_eq!(ferrocm_runtime::pointer_attributes(base)?, None, "a freed allocation is still listed");
        let stack = 0u8;
        assert_eq!(ferrocm_runtime::pointer_attributes(&stack as *const u8 as u64)?, None);
        Ok(())
    }

    cluster_shapes_are_validated(dev) {
        let s = dev.create_stream()?;
        let f = builtin::load(dev)?.function("empty")?;
        let none = KernelArgs::new();
        let cluster = |grid: u32, c: Dim3| LaunchConfig::new(grid, 32).with_cluster(c);
        // SAFETY (all launches): `empty` takes no parameters and touches no memory.
        let launch = |cfg| unsafe { s.launch(&f, cfg, &none) };
        if dev.target().has(ferrocm_runtime::Feature::Clusters) {
            launch(cluster(8, Dim3::new(2, 1, 1)))?;
            launch(cluster(16, Dim3::new(8, 1, 1)))?;
            s.synchronize()?;
            let e = launch(cluster(3, Dim3::new(2, 1, 1))).unwrap_err();
            assert!(matches!(e, Error::InvalidLaunch { .. }) && e.to_string().contains("grid.x = 3 is not a multiple of cluster.x = 2"), "{e}");
            let e = launch(cluster(32, Dim3::new(16, 1, 1))).unwrap_err();
            assert!(matches!(e, Error::LaunchTooLarge { what: "blocks per cluster", requested: 16, max: 8 }), "{e}");
            let e = launch(cluster(4, Dim3::new(0, 1, 1))).unwrap_err();
            assert!(matches!(e, Error::EmptyLaunch { .. }), "{e}");
            let e = launch(cluster(4, Dim3::new(2, 1, 1)).cooperative()).unwrap_err();
            assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
        } else {
            let e = launch(cluster(8, Dim3::new(2, 1, 1))).unwrap_err();
            assert!(matches!(e, Error::Unsupported { .. }) && e.to_string().contains("sm_90"), "{e}");
        }
        Ok(())
    }

    cooperative_grids_must_be_resident_at_once(dev) {
        let s = dev.create_stream()?;
        let f = builtin::load(dev)?.function("empty")?;
        let per_cu = f.max_active_blocks_per_cu(256, 0)?;
        assert!(per_cu >= 1);
        let fits = per_cu * dev.properties().compute_units;
        // SAFETY: `empty` takes no parameters and touches no memory.
        unsafe { s.launch(&f, LaunchConfig::new(fits, 256).cooperative(), &KernelArgs::new())? };
        s.synchronize()?;
        // SAFETY: as above.
        let e = unsafe { s.launch(&f, LaunchConfig::new(fits + 1, 256).cooperative(), &KernelArgs::new()) }.unwrap_err();
        assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
        assert!(e.to_string().contains(&format!("{} blocks", fits + 1)) && e.to_string().contains(&format!("at most {fits}")), "{e}");
        Ok(())
    }

    large_dynamic_shared_memory_is_opted_into(dev) {
        let s = dev.create_stream()?;
        let f = builtin::load(dev)?.function("empty")?;
        let p = dev.properties();
        let max = (p.shared_mem_per_block_optin - f.attributes().static_shared_bytes as u64) as u32;
        for bytes in [0, 48 * 1024, 48 * 1024 + 16, max] {
            // SAFETY: `empty` takes no parameters and touches no memory.
            unsafe { s.launch(&f, LaunchConfig::new(1, 32).with_shared_mem(bytes), &KernelArgs::new())? };
        }
        s.synchronize()?;
        // SAFETY: as above.
        let e = unsafe { s.launch(&f, LaunchConfig::new(1, 32).with_shared_mem(max + 1), &KernelArgs::new()) }.unwrap_err();
        assert!(matches!(e, Error::LaunchTooLarge { what: "dynamic shared memory bytes", .. }), "{e}");
        Ok(())
    }

    allocations_that_cannot_fit_are_errors(dev) {
        let (free, total) = dev.memory_info()?;
        assert!(free <= total);
        let e = dev.alloc::<u8>(total as usize + 1).unwrap_err();
        assert!(matches!(e, Error::AllocationTooLarge { .. }), "{e}");
        // Within the total but more than is free: an out-of-memory error, never a kill.
        if free + (1 << 30) < total {
            let e = dev.alloc::<u8>((free + (1 << 30)) as usize).unwrap_err();
            assert!(matches!(e, Error::OutOfMemory { .. }), "{e}");
        }
        let s = dev.create_stream()?;
        let ok = s.alloc::<u8>(1 << 20)?;
        drop(ok);
        Ok(())
    }
}

#[test]
fn kernels_declaring_more_than_a_gpu_allows_are_refused_on_the_cpu() {
    let dev = Device::cpu().unwrap();
    let declare = |attrs| {
        dev.load_module(ModuleImage::Cpu(std::sync::Arc::new(Declares(attrs)))).unwrap().function("k")
    };
    let base = FunctionAttributes { max_threads_per_block: 1024, ..Default::default() };
    let e = declare(FunctionAttributes { static_shared_bytes: 4 << 20, ..base }).unwrap_err();
    assert!(matches!(e, Error::KernelTooLarge { requested: 4194304, max: 49152, .. }), "{e}");
    assert!(e.to_string().contains("static shared memory"), "{e}");
    let e = declare(FunctionAttributes { local_bytes_per_thread: 1 << 20, ..base }).unwrap_err();
    assert!(matches!(e, Error::KernelTooLarge { max: 524288, .. }), "{e}");
    // At the limits it loads, and dynamic shared memory shrinks by the static amount.
    let f = declare(FunctionAttributes {
        static_shared_bytes: 48 * 1024,
        local_bytes_per_thread: 512 * 1024,
        ..base
    })
    .unwrap();
    let s = dev.create_stream().unwrap();
    let room = (dev.properties().shared_mem_per_block_optin - 48 * 1024) as u32;
    // SAFETY: the kernel takes no parameters.
    unsafe { s.launch(&f, LaunchConfig::new(1, 1).with_shared_mem(room), &KernelArgs::new()).unwrap() };
    let e = unsafe { s.launch(&f, LaunchConfig::new(1, 1).with_shared_mem(room + 1), &KernelArgs::new()) }
        .unwrap_err();
    assert!(matches!(e, Error::LaunchTooLarge { .. }), "{e}");
    s.synchronize().unwrap();
}

#[test]
fn many_streams_do_not_hold_many_threads() {
    let dev = Device::cpu().unwrap();
    let streams: Vec<Stream> = (0..2000).map(|_| dev.create_stream().unwrap()).collect();
    let mut bufs = Vec::new();
    for s in &streams {
        let mut b = s.alloc::<u8>(64).unwrap();
        s.memset_bytes(&mut b, 1).unwrap();
        bufs.push(b);
    }
    for s in &streams {
        s.synchronize().unwrap();
    }
    // Idle workers exit: wait for them, then count this process's threads.
    let threads = || std::fs::read_dir("/proc/self/task").map(|d| d.count()).unwrap_or(0);
    let deadline = Instant::now() + Duration::from_secs(10);
    while threads() > 64 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(threads() <= 64, "{} threads alive for 2000 idle streams", threads());
    // The streams still work after their workers exited.
    let s = &streams[1999];
    assert_eq!(s.clone_dtoh(&bufs[1999]).unwrap(), vec![1u8; 64]);
    drop(bufs);
}

#[test]
fn events_recorded_before_a_synchronize_are_complete_after_it() {
    // The CPU backend counted an event's marker done before stamping the event, so a
    // synchronized stream could still report its last event not ready.
    let dev = Device::cpu().unwrap();
    let s = dev.create_stream().unwrap();
    for _ in 0..2000 {
        let (a, b) = (ferrocm_runtime::Event::new(&dev).unwrap(), ferrocm_runtime::Event::new(&dev).unwrap());
        a.record(&s).unwrap();
        b.record(&s).unwrap();
        s.synchronize().unwrap();
        assert!(a.elapsed_ms(&b).is_ok(), "an event recorded before synchronize was not complete after it");
    }
}
