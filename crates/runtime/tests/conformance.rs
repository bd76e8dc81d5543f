//! The runtime conformance suite: every case runs on every backend present.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::Rng;
use ferrocm_runtime::{
    builtin, AsDeviceSlice, BackendKind, Device, DeviceSlice, DeviceSliceMut, Dim3, Error, Event, EventFlags,
    HostBuffer, KernelArgs, LaunchConfig, ModuleImage, Stream, StreamFlags,
};

/// Host reference for `axpy_f32`, in f64.
fn axpy_ref(a: f32, x: &[f32], y: &[f32], times: usize) -> Vec<f64> {
    x.iter().zip(y).map(|(&x, &y)| y as f64 + times as f64 * a as f64 * x as f64).collect()
}

fn assert_close(got: &[f32], want: &[f64], tol: f64) -> common::TestResult {
    assert_eq!(got.len(), want.len());
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if (g as f64 - w).abs() > tol * (1.0 + w.abs()) {
            return Err(format!("element {i}: got {g}, want {w}").into());
        }
    }
    Ok(())
}

fn axpy_args(x: &impl AsDeviceSlice<f32>, y: &impl AsDeviceSlice<f32>, n: u64, a: f32) -> KernelArgs {
    let mut args = KernelArgs::new();
    args.push_buffer(x).push_buffer(y).push(n).push(a);
    args
}

fn spin(stream: &Stream, module: &ferrocm_runtime::Module, ms: u64) -> common::TestResult {
    let f = module.function("spin")?;
    let mut args = KernelArgs::new();
    args.push(ms * 1_000_000);
    // SAFETY: `spin` takes one u64 and touches no memory.
    unsafe { stream.launch(&f, LaunchConfig::new(1, 1), &args)? };
    Ok(())
}

conformance! {
    properties_are_consistent(dev) {
        let p = dev.properties();
        assert!(!p.name.is_empty());
        assert_eq!(p.warp_size, 32);
        assert!(p.max_threads_per_block >= 256 && p.max_threads_per_block <= p.max_block_dim[0] * p.max_block_dim[1]);
        assert!(p.max_grid_dim.iter().all(|&d| d >= 65535));
        assert!(p.shared_mem_per_block >= 16 * 1024 && p.shared_mem_per_block_optin >= p.shared_mem_per_block);
        assert!(p.compute_units >= 1 && p.total_memory > 0 && p.uuid.len() >= 36);
        if dev.kind() == BackendKind::Cuda {
            assert!(p.arch.starts_with("sm_") && p.compute_capability.0 >= 7, "{}", p.arch);
            assert!(!p.pci_bus_id.is_empty() && p.l2_cache_bytes > 0 && p.clock_khz > 0);
        }
        let (free, total) = dev.memory_info()?;
        assert!(free <= total && total > 0, "free {free} total {total}");
        assert_eq!(Device::get(dev.index())?, *dev);
        Ok(())
    }

    copies_round_trip_every_type(dev) {
        let s = dev.create_stream()?;
        let mut rng = Rng::new(1);
        for n in [1usize, 7, 1000, (1 << 20) + 3] {
            let f: Vec<f32> = rng.vec_f32(n);
            assert_eq!(s.clone_dtoh(&s.clone_htod(&f)?)?, f);
            let u: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            assert_eq!(s.clone_dtoh(&s.clone_htod(&u)?)?, u);
            let d: Vec<f64> = (0..n).map(|_| rng.f32() as f64 * 1e300).collect();
            assert_eq!(s.clone_dtoh(&s.clone_htod(&d)?)?, d);
            let h: Vec<half::f16> = (0..n).map(|_| half::f16::from_f32(rng.f32())).collect();
            assert_eq!(s.clone_dtoh(&s.clone_htod(&h)?)?, h);
            let v: Vec<[i64; 2]> = (0..n).map(|_| [rng.next_u64() as i64, -(rng.next_u64() as i64)]).collect();
            assert_eq!(s.clone_dtoh(&s.clone_htod(&v)?)?, v);
        }
        Ok(())
    }

    direct_allocation_and_dtod(dev) {
        let s = dev.default_stream()?;
        let data: Vec<u32> = (0..4097u32).map(|i| i.wrapping_mul(2654435761)).collect();
        let mut a = dev.alloc::<u32>(data.len())?;
        s.copy_htod(&data, &mut a)?;
        let mut b = dev.alloc::<u32>(data.len())?;
        s.copy_dtod(&a, &mut b)?;
        assert_eq!(s.clone_dtoh(&b)?, data);
        Ok(())
    }

    slices_view_subranges(dev) {
        let s = dev.create_stream()?;
        let mut buf = s.alloc_zeroed::<i32>(100)?;
        let part: Vec<i32> = (0..30).map(|i| i * 3 - 7).collect();
        s.copy_htod(&part, &mut buf.slice_mut(10..40)?)?;
        let all = s.clone_dtoh(&buf)?;
        assert!(all[..10].iter().all(|&v| v == 0) && all[40..].iter().all(|&v| v == 0));
        assert_eq!(&all[10..40], &part[..]);
        assert_eq!(s.clone_dtoh(&buf.slice(12..=13)?)?, vec![part[2], part[3]]);
        assert!(s.clone_dtoh(&buf.slice(50..50)?)?.is_empty());
        assert!(matches!(buf.slice(90..101), Err(Error::OutOfRange { start: 90, end: 101, len: 100 })));
        let (start, end) = (5, 4);
        assert!(matches!(buf.slice(start..end), Err(Error::OutOfRange { .. })));
        Ok(())
    }

    split_views_are_disjoint_and_subslices_read_their_range(dev) {
        let s = dev.create_stream()?;
        let mut buf = s.alloc_zeroed::<i32>(50)?;
        let (mut left, mut right) = buf.slice_mut(5..45)?.split_at_mut(15)?;
        assert_eq!((left.len(), right.len()), (15, 25));
        s.copy_htod(&[1i32; 15], &mut left)?;
        s.copy_htod(&(0..25).collect::<Vec<i32>>(), &mut right)?;
        let all = s.clone_dtoh(&buf)?;
        assert!(all[..5].iter().all(|&v| v == 0) && all[45..].iter().all(|&v| v == 0));
        assert!(all[5..20].iter().all(|&v| v == 1));
        assert_eq!(all[20..45], (0..25).collect::<Vec<i32>>()[..]);
        // A view split at either end, and a split past the end.
        let (empty, whole) = buf.slice_mut(..)?.split_at_mut(0)?;
        assert_eq!((empty.len(), whole.len()), (0, 50));
        assert!(matches!(buf.slice_mut(..)?.split_at_mut(51), Err(Error::OutOfRange { start: 51, end: 51, len: 50 })));
        // A read-only view of a written piece, and sub-slices of a read-only view.
        let (_, tail) = buf.slice_mut(..)?.split_at_mut(20)?;
        let tail = tail.into_slice();
        assert_eq!(s.clone_dtoh(&tail.slice(3..6)?)?, vec![3, 4, 5]);
        assert_eq!(s.clone_dtoh(&tail.slice(3..6)?.slice(1..)?)?, vec![4, 5]);
        assert!(matches!(tail.slice(20..31), Err(Error::OutOfRange { start: 20, end: 31, len: 30 })));
        Ok(())
    }

    hulls_span_the_views_of_one_allocation(dev) {
        let s = dev.create_stream()?;
        let buf = s.clone_htod(&(0..60).collect::<Vec<i32>>())?;
        let other = s.clone_htod(&[5i32; 8])?;
        let views = [buf.slice(30..34)?, buf.slice(7..9)?, buf.slice(20..20)?, buf.slice(12..31)?];
        // SAFETY: only read, and only here.
        let hull = unsafe { DeviceSlice::hull(&views) }.expect("one allocation");
        assert_eq!((hull.device_ptr(), hull.len()), (buf.slice(7..)?.device_ptr(), 27));
        assert_eq!(s.clone_dtoh(&hull)?, (7..34).collect::<Vec<i32>>());
        let single = [buf.slice(3..5)?];
        assert_eq!(unsafe { DeviceSlice::hull(&single) }.map(|h| (h.device_ptr(), h.len())), Some((single[0].device_ptr(), 2)));
        let mixed = [buf.slice(0..4)?, other.slice(0..4)?];
        assert!(unsafe { DeviceSlice::hull(&mixed) }.is_none());
        assert!(unsafe { DeviceSlice::<i32>::hull::<DeviceSlice<'_, i32>>(&[]) }.is_none());
        // Views reinterpreted from a byte buffer.
        let bytes = s.alloc_zeroed::<u8>(64)?;
        let words = [bytes.slice(0..4)?.reinterpret::<u32>()?, bytes.slice(4..8)?.reinterpret::<u32>()?];
        assert_eq!(unsafe { DeviceSlice::hull(&words) }.map(|h| h.len()), Some(2));
        // A writable hull over disjoint writable views.
        let mut out = s.alloc_zeroed::<i32>(20)?;
        let (a, rest) = out.slice_mut(..)?.split_at_mut(6)?;
        let (_, b) = rest.split_at_mut(4)?;
        let (_, a) = a.split_at_mut(2)?;
        let mut parts = [a, b];
        let mut hull = unsafe { DeviceSliceMut::hull(&mut parts) }.expect("one allocation");
        assert_eq!(hull.len(), 18);
        s.copy_htod(&[9i32; 18], &mut hull)?;
        let back = s.clone_dtoh(&out)?;
        assert!(back[..2].iter().all(|&v| v == 0) && back[2..].iter().all(|&v| v == 9));
        Ok(())
    }

    memset_sets_every_byte(dev) {
        let s = dev.create_stream()?;
        let mut buf = s.clone_htod(&vec![7u16; 1001])?;
        s.memset_bytes(&mut buf.slice_mut(1..1000)?, 0xAB)?;
        let got = s.clone_dtoh(&buf)?;
        assert_eq!((got[0], got[1000]), (7, 7));
        assert!(got[1..1000].iter().all(|&v| v == 0xABAB));
        s.memset_zero(&mut buf)?;
        assert!(s.clone_dtoh(&buf)?.iter().all(|&v| v == 0));
        Ok(())
    }

    pinned_async_copies(dev) {
        let s = dev.create_stream()?;
        let mut rng = Rng::new(2);
        let data = rng.vec_f32(1 << 18);
        let host = HostBuffer::from_slice(dev, &data)?;
        let mut d = s.alloc::<f32>(data.len())?;
        s.copy_htod_async(&host, &mut d)?;
        let mut back = HostBuffer::<f32>::new(dev, data.len())?;
        s.copy_dtoh_async(&d, &mut back)?;
        // Reading the pinned buffer waits for the copy into it.
        assert_eq!(&back[..], &data[..]);
        Ok(())
    }

    misuse_is_reported(dev) {
        let s = dev.create_stream()?;
        assert!(matches!(s.alloc::<f32>(0), Err(Error::ZeroSizedAllocation)));
        assert!(matches!(dev.alloc::<u8>(0), Err(Error::ZeroSizedAllocation)));
        assert!(matches!(s.alloc::<f64>(usize::MAX), Err(Error::AllocationTooLarge { .. })));
        let mut small = s.alloc::<f32>(4)?;
        let e = s.copy_htod(&[1.0f32; 5], &mut small).unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { destination: 4, source_len: 5, .. }), "{e}");
        assert!(e.to_string().contains("destination holds 4 elements, source 5"), "{e}");
        let mut out = vec![0f32; 3];
        assert!(matches!(s.copy_dtoh(&small, &mut out), Err(Error::LengthMismatch { .. })));
        assert!(matches!(Device::get(10_000), Err(Error::InvalidDevice { index: 10_000, .. })));
        Ok(())
    }

    out_of_memory_is_recoverable(dev) {
        let (_, total) = dev.memory_info()?;
        // The whole memory can never be free, so the driver must refuse it.
        let e = dev.alloc::<u8>(total as usize).unwrap_err();
        assert!(matches!(e, Error::OutOfMemory { requested, .. } if requested == total), "{e}");
        assert!(e.to_string().contains("out of memory"), "{e}");
        let s = dev.create_stream()?;
        assert_eq!(s.clone_dtoh(&s.clone_htod(&[1u8, 2, 3])?)?, vec![1, 2, 3]);
        Ok(())
    }

    launch_computes_axpy(dev) {
        let module = builtin::load(dev)?;
        let f = module.function("axpy_f32")?;
        let s = dev.create_stream()?;
        let mut rng = Rng::new(3);
        let n = 100_003;
        let (x, y) = (rng.vec_f32(n), rng.vec_f32(n));
        let (dx, dy) = (s.clone_htod(&x)?, s.clone_htod(&y)?);
        let a = 1.75f32;
        let args = axpy_args(&dx, &dy, n as u64, a);
        // Several launches in a row: stream order means each sees the previous one's result.
        for _ in 0..3 {
            // SAFETY: axpy_f32(x: *f32, y: *mut f32, n, a) with two live n-element buffers.
            unsafe { s.launch(&f, LaunchConfig::for_num_elems(n as u32), &args)? };
        }
        assert_close(&s.clone_dtoh(&dy)?, &axpy_ref(a, &x, &y, 3), 1e-5)
    }

    launch_limits_are_checked(dev) {
        let module = builtin::load(dev)?;
        let f = module.function("empty")?;
        let s = dev.create_stream()?;
        let p = dev.properties().clone();
        let args = KernelArgs::new();
        let launch = |cfg: LaunchConfig| unsafe { s.launch(&f, cfg, &args) };
        assert!(matches!(launch(LaunchConfig::new(0, 1)), Err(Error::EmptyLaunch { what: "grid.x" })));
        assert!(matches!(launch(LaunchConfig::new(1, (32, 0))), Err(Error::EmptyLaunch { what: "block.y" })));
        let e = launch(LaunchConfig::new(1, p.max_threads_per_block + 1)).unwrap_err();
        assert!(matches!(e, Error::LaunchTooLarge { .. }), "{e}");
        assert!(e.to_string().contains(&p.max_threads_per_block.to_string()) || e.to_string().contains(&p.max_block_dim[0].to_string()), "{e}");
        let e = launch(LaunchConfig::new((1, p.max_grid_dim[1] + 1), 1)).unwrap_err();
        assert!(matches!(e, Error::LaunchTooLarge { what: "grid.y", .. }), "{e}");
        let e = launch(LaunchConfig::new(1, (32, 32, 2))).unwrap_err();
        assert!(matches!(e, Error::LaunchTooLarge { what: "threads per block", requested: 2048, .. }), "{e}");
        let too_much = (p.shared_mem_per_block_optin + 1) as u32;
        let e = launch(LaunchConfig::new(1, 32).with_shared_mem(too_much)).unwrap_err();
        assert!(matches!(e, Error::LaunchTooLarge { what: "dynamic shared memory bytes", .. }), "{e}");
        launch(LaunchConfig::new(Dim3::new(4, 2, 1), 64))?;
        s.synchronize()?;
        Ok(())
    }

    modules_report_bad_images(dev) {
        let other = if dev.kind() == BackendKind::Cpu { builtin::image(BackendKind::Cuda) } else { builtin::image(BackendKind::Cpu) };
        assert!(matches!(dev.load_module(other), Err(Error::ModuleTarget { .. })));
        let e = builtin::load(dev)?.function("no_such_kernel").unwrap_err();
        assert!(e.to_string().contains("no_such_kernel"), "{e}");
        if dev.kind() == BackendKind::Cuda {
            // The driver JIT's log comes back in the error, pointing at the bad line.
            let bad = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n    frobnicate.u32 %r1;\n    ret;\n}\n";
            let e = dev.load_module(ModuleImage::Ptx(bad.into())).unwrap_err().to_string();
            assert!(e.contains("line 6") || e.contains("frobnicate"), "{e}");
        }
        Ok(())
    }

    launches_are_asynchronous_and_events_time_them(dev) {
        let module = builtin::load(dev)?;
        let s = dev.create_stream()?;
        // Loaded and run once first: the driver loads a kernel on its first use (lazy loading),
        // which can wait for other work of the context (other tests' kernels) to finish.
        spin(&s, &module, 0)?;
        s.synchronize()?;
        let (start, end) = (Event::new(dev)?, Event::new(dev)?);
        start.record(&s)?;
        let t = Instant::now();
        spin(&s, &module, 100)?;
        end.record(&s)?;
        let queued = t.elapsed();
        // compute-sanitizer serialises and instruments every call: then only ordering is checked.
        if std::env::var_os("FERROCM_SANITIZE").is_none() {
            assert!(queued < Duration::from_millis(60), "queuing a 100 ms kernel took {queued:?}");
            assert!(!s.query()? && !end.query()?, "the stream finished a 100 ms kernel at once");
            assert!(matches!(start.elapsed_ms(&end), Err(Error::EventNotReady { .. }) | Err(Error::Backend { .. })));
        }
        end.synchronize()?;
        assert!(s.query()? && end.query()?);
        let ms = start.elapsed_ms(&end)?;
        assert!((95.0..2000.0).contains(&ms), "elapsed {ms} ms for a 100 ms kernel");
        let untimed = Event::with_flags(dev, EventFlags { timing: false, blocking_sync: false })?;
        untimed.record(&s)?;
        s.synchronize()?;
        assert!(start.elapsed_ms(&untimed).is_err());
        assert!(Event::new(dev)?.query()?, "an event never recorded counts as complete");
        Ok(())
    }

    streams_wait_on_events(dev) {
        let module = builtin::load(dev)?;
        let f = module.function("axpy_f32")?;
        let (a, b) = (dev.create_stream()?, dev.create_stream()?);
        let mut rng = Rng::new(4);
        let n = 4096;
        let (x, y) = (rng.vec_f32(n), rng.vec_f32(n));
        let (dx, dy) = (a.clone_htod(&x)?, a.clone_htod(&y)?);
        let done = Event::new(dev)?;
        spin(&a, &module, 50)?;
        // SAFETY: as in launch_computes_axpy.
        unsafe { a.launch(&f, LaunchConfig::for_num_elems(n as u32), &axpy_args(&dx, &dy, n as u64, 2.0))? };
        done.record(&a)?;
        b.wait_event(&done)?;
        let mut copy = b.alloc::<f32>(n)?;
        b.copy_dtod(&dy, &mut copy)?;
        assert_close(&b.clone_dtoh(&copy)?, &axpy_ref(2.0, &x, &y, 1), 1e-6)
    }

    host_callbacks_run_in_stream_order(dev) {
        let module = builtin::load(dev)?;
        let s = dev.create_stream()?;
        let log = Arc::new(Mutex::new(Vec::new()));
        for i in 0..4 {
            spin(&s, &module, 5)?;
            let log = Arc::clone(&log);
            s.add_callback(move || log.lock().unwrap().push(i))?;
        }
        s.synchronize()?;
        assert_eq!(*log.lock().unwrap(), vec![0, 1, 2, 3]);
        Ok(())
    }

    shared_across_threads(dev) {
        let s = dev.create_stream()?;
        let ok = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for t in 0..4u32 {
                let (s, ok, dev) = (&s, &ok, dev.clone());
                scope.spawn(move || {
                    let own = dev.create_stream().unwrap();
                    for round in 0..20u32 {
                        let data: Vec<u32> = (0..513).map(|i| i * 31 + t * 7 + round).collect();
                        let stream = if round % 2 == 0 { s } else { &own };
                        let back = stream.clone_dtoh(&stream.clone_htod(&data).unwrap()).unwrap();
                        if back == data {
                            ok.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(ok.load(Ordering::Relaxed), 80);
        Ok(())
    }

    streams_with_flags_and_device_synchronize(dev) {
        let module = builtin::load(dev)?;
        let high = dev.create_stream_with(StreamFlags { non_blocking: true, priority: -1 })?;
        let low = dev.create_stream_with(StreamFlags { non_blocking: false, priority: 0 })?;
        spin(&high, &module, 30)?;
        spin(&low, &module, 30)?;
        assert!(!high.query()? || !low.query()?);
        dev.synchronize()?;
        assert!(high.query()? && low.query()?, "device synchronize waits for every stream");
        assert_eq!(dev.default_stream()?, dev.default_stream()?);
        Ok(())
    }

    external_memory_is_used_in_place(dev) {
        // Memory owned elsewhere (here: a buffer the test keeps) borrowed as an ExternalBuffer:
        // copies and kernels act on it in place, and its drop waits for that work.
        let s = dev.create_stream()?;
        let owner = s.clone_htod(&[1.0f32; 1024])?;
        s.synchronize()?;
        {
            // SAFETY: `owner` holds 1024 f32s and outlives `ext`.
            let mut ext = unsafe { ferrocm_runtime::ExternalBuffer::<f32>::new(dev, owner.device_ptr(), 1024) };
            let module = builtin::load(dev)?;
            let f = module.function("axpy_f32")?;
            let x = s.clone_htod(&[2.0f32; 1024])?;
            // SAFETY: axpy over two 1024-element f32 buffers.
            unsafe { s.launch(&f, LaunchConfig::for_num_elems(1024), &axpy_args(&x, &ext, 1024, 1.5))? };
            let mut tail = ext.slice_mut(1000..)?;
            s.memset_zero(&mut tail)?;
            assert!(ext.slice(0..1025).is_err());
        }
        let got = s.clone_dtoh(&owner)?;
        assert!(got[..1000].iter().all(|&v| v == 4.0) && got[1000..].iter().all(|&v| v == 0.0));
        Ok(())
    }

    managed_memory(dev) {
        let s = dev.create_stream()?;
        let mut m = dev.alloc_managed::<u64>(1 << 12)?;
        let data: Vec<u64> = (0..1 << 12).map(|i| i * i).collect();
        s.copy_htod(&data, &mut m)?;
        assert_eq!(s.clone_dtoh(&m)?, data);
        Ok(())
    }

    device_objects_stay_on_their_device(dev) {
        let s = dev.create_stream()?;
        let buf = s.clone_htod(&[1.0f32; 8])?;
        let other = Device::all()?.into_iter().find(|d| d != dev);
        if let Some(other) = other {
            let os = other.create_stream()?;
            let e = os.clone_dtoh(&buf).unwrap_err();
            assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
            let ev = Event::new(&other)?;
            assert!(matches!(ev.record(&s), Err(Error::DeviceMismatch { .. })));
            let module = builtin::load(&other)?;
            let f = module.function("empty")?;
            assert!(matches!(unsafe { s.launch(&f, LaunchConfig::new(1, 1), &KernelArgs::new()) }, Err(Error::DeviceMismatch { .. })));
        }
        Ok(())
    }
}

#[test]
fn cpu_kernel_errors_surface_at_synchronize() {
    use ferrocm_runtime::{CpuKernel, CpuModule, LaunchDims};
    struct Faulty;
    impl CpuKernel for Faulty {
        unsafe fn launch(&self, _: LaunchDims, _: &[&[u8]]) -> Result<(), String> {
            Err("index 12 out of range for buffer `y` of length 10".into())
        }
    }
    impl CpuModule for Faulty {
        fn function(&self, _: &str) -> Option<Arc<dyn CpuKernel>> {
            Some(Arc::new(Faulty))
        }
    }
    let dev = Device::cpu().unwrap();
    let s = dev.create_stream().unwrap();
    let f = dev.load_module(ModuleImage::Cpu(Arc::new(Faulty))).unwrap().function("faulty").unwrap();
    unsafe { s.launch(&f, LaunchConfig::new(1, 1), &KernelArgs::new()).unwrap() };
    let e = s.synchronize().unwrap_err().to_string();
    assert!(e.contains("faulty") && e.contains("index 12"), "{e}");
    // The error is reported once; the stream keeps working.
    s.synchronize().unwrap();
    assert_eq!(s.clone_dtoh(&s.clone_htod(&[9u8]).unwrap()).unwrap(), vec![9]);
}

#[test]
fn default_device_prefers_a_gpu() {
    let d = Device::default_device().unwrap();
    let has_gpu = !Device::of_kind(BackendKind::Cuda).is_empty();
    assert_eq!(d.kind() == BackendKind::Cuda, has_gpu);
    assert_eq!(Device::cpu().unwrap().kind(), BackendKind::Cpu);
    let all = Device::all().unwrap();
    assert!(all.iter().enumerate().all(|(i, d)| d.index() == i));
}

#[test]
fn runtime_types_are_shareable_across_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Device>();
    shareable::<Stream>();
    shareable::<Event>();
    shareable::<ferrocm_runtime::DeviceBuffer<f32>>();
    shareable::<HostBuffer<f64>>();
    shareable::<ferrocm_runtime::Module>();
    shareable::<ferrocm_runtime::Function>();
    shareable::<KernelArgs>();
}
