//! Graphs on every backend: capture, instantiate, launch and kernel-node updates checked against
//! an f64 host reference; what a capture refuses and what an update refuses (tables of misuse
//! cases, each checking the error and that nothing ran or changed); and that a graph keeps
//! alive the memory it replays after the buffers are dropped.
//!
//! Tests here never synchronize a whole device: the cases run in parallel on one device, and a
//! device synchronize is refused while any of its streams captures.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::{Rng, TestResult};
use ferrocm_runtime::{
    builtin, AsDeviceSlice, Device, DeviceBuffer, Error, Event, GraphExec, HostBuffer, KernelArgs,
    LaunchConfig, Module, Stream,
};

/// y + times * a * x, in f64.
fn axpy_ref(a: f32, x: &[f32], y: &[f32], times: usize) -> Vec<f64> {
    x.iter().zip(y).map(|(&x, &y)| y as f64 + times as f64 * a as f64 * x as f64).collect()
}

fn assert_close(what: &str, got: &[f32], want: &[f64]) -> TestResult {
    assert_eq!(got.len(), want.len());
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if (g as f64 - w).abs() > 1e-5 * (1.0 + w.abs()) {
            return Err(format!("{what}: element {i}: got {g}, want {w}").into());
        }
    }
    Ok(())
}

fn axpy_args(x: &impl AsDeviceSlice<f32>, y: &impl AsDeviceSlice<f32>, n: usize, a: f32) -> KernelArgs {
    let mut args = KernelArgs::new();
    args.push_buffer(x).push_buffer(y).push(n as u64).push(a);
    args
}

fn axpy(
    s: &Stream,
    m: &Module,
    x: &impl AsDeviceSlice<f32>,
    y: &impl AsDeviceSlice<f32>,
    a: f32,
) -> Result<(), Error> {
    let f = m.function("axpy_f32")?;
    let n = y.len();
    // SAFETY: axpy_f32(x: *f32, y: *mut f32, n: u64, a: f32) over two live n-element buffers,
    // kept alive by the graph where captured.
    unsafe { s.launch(&f, LaunchConfig::for_num_elems(n as u32), &axpy_args(x, y, n, a))? };
    Ok(())
}

fn spin(s: &Stream, m: &Module, ms: u64) -> Result<(), Error> {
    let mut args = KernelArgs::new();
    args.push(ms * 1_000_000);
    // SAFETY: `spin` takes one u64 and touches no memory.
    unsafe { s.launch(&m.function("spin")?, LaunchConfig::new(1, 1), &args)? };
    Ok(())
}

fn upload(s: &Stream, data: &[f32]) -> Result<DeviceBuffer<f32>, Error> {
    let mut b = s.device().alloc::<f32>(data.len())?;
    s.copy_htod(data, &mut b)?;
    Ok(b)
}

/// A graph of one axpy over fresh random buffers of `n` elements, with its inputs.
struct OneAxpy {
    s: Stream,
    m: Module,
    x: Vec<f32>,
    y: Vec<f32>,
    dx: DeviceBuffer<f32>,
    dy: DeviceBuffer<f32>,
    exec: GraphExec,
}

fn one_axpy(dev: &Device, n: usize, a: f32, seed: u64) -> Result<OneAxpy, Box<dyn std::error::Error>> {
    let (s, m) = (dev.create_stream()?, builtin::load(dev)?);
    let mut rng = Rng::new(seed);
    let (x, y) = (rng.vec_f32(n), rng.vec_f32(n));
    let (dx, dy) = (upload(&s, &x)?, upload(&s, &y)?);
    let exec = s.capture(|s| axpy(s, &m, &dx, &dy, a))?.instantiate()?;
    Ok(OneAxpy { s, m, x, y, dx, dy, exec })
}

conformance! {
    capture_replays_kernels_memsets_and_copies(dev) {
        let (s, m) = (dev.create_stream()?, builtin::load(dev)?);
        let mut rng = Rng::new(11);
        let n = 10_007; // not a multiple of the block size
        let (x, y) = (rng.vec_f32(n), rng.vec_f32(n));
        let dx = s.clone_htod(&x)?; // pooled
        let dy = upload(&s, &y)?; // direct
        let mut dz = s.clone_htod(&vec![9.0f32; n])?;
        let (a, b) = (0.75f32, -2.0f32);
        let graph = s.capture(|s| {
            s.memset_zero(&mut dz)?;
            axpy(s, &m, &dx, &dy, a)?;
            s.copy_dtod(&dy, &mut dz)?;
            axpy(s, &m, &dx, &dz, b)
        })?;
        assert!(!s.is_capturing());
        // Capturing ran nothing.
        assert_eq!(s.clone_dtoh(&dy)?, y);
        assert!(s.clone_dtoh(&dz)?.iter().all(|&v| v == 9.0));
        assert_eq!(graph.kernel_node_count(), 2);
        let exec = graph.instantiate()?;
        for k in 1..=3 {
            exec.launch(&s)?;
            s.synchronize()?;
            let yk = axpy_ref(a, &x, &y, k);
            assert_close("y", &s.clone_dtoh(&dy)?, &yk)?;
            let yk32: Vec<f32> = s.clone_dtoh(&dy)?;
            assert_close("z", &s.clone_dtoh(&dz)?, &axpy_ref(b, &x, &yk32, 1))?;
        }
        // Launches on another stream of the device follow that stream's order.
        let other = dev.create_stream()?;
        exec.launch(&other)?;
        other.synchronize()?;
        assert_close("y on another stream", &s.clone_dtoh(&dy)?, &axpy_ref(a, &x, &y, 4))?;
        Ok(())
    }

    graph_updates_kernel_arguments_and_shape(dev) {
        let n = 3001;
        let mut g = one_axpy(dev, n, 1.5, 12)?;
        let mut rng = Rng::new(13);
        let y2 = rng.vec_f32(n);
        let dy2 = upload(&g.s, &y2)?;
        // New arguments: the node now updates y2 with another scalar; y is left alone.
        // SAFETY: the same kernel's arguments over two live n-element buffers.
        unsafe { g.exec.set_kernel_args(0, &axpy_args(&g.dx, &dy2, n, -0.5))? };
        g.exec.launch(&g.s)?;
        g.s.synchronize()?;
        assert_eq!(g.s.clone_dtoh(&g.dy)?, g.y, "the old arguments' buffer was written");
        assert_close("y2", &g.s.clone_dtoh(&dy2)?, &axpy_ref(-0.5, &g.x, &y2, 1))?;
        // A new shape: one block of 256 threads covers the first 256 elements only.
        // SAFETY: as above.
        unsafe { g.exec.set_kernel_node(0, LaunchConfig::new(1, 256), &axpy_args(&g.dx, &dy2, n, -0.5))? };
        assert_eq!(g.exec.kernel_node_config(0), Some(LaunchConfig::new(1, 256)));
        g.exec.launch(&g.s)?;
        g.s.synchronize()?;
        let got = g.s.clone_dtoh(&dy2)?;
        let (twice, once) = (axpy_ref(-0.5, &g.x, &y2, 2), axpy_ref(-0.5, &g.x, &y2, 1));
        assert_close("y2 head", &got[..256], &twice[..256])?;
        assert_close("y2 tail", &got[256..], &once[256..])?;
        // A launch queued before an update keeps the parameters it was launched with.
        spin(&g.s, &g.m, 50)?;
        g.exec.launch(&g.s)?; // still the 256-thread shape over y2
        // SAFETY: as above.
        unsafe { g.exec.set_kernel_node(0, LaunchConfig::for_num_elems(n as u32), &axpy_args(&g.dx, &g.dy, n, 2.0))? };
        g.exec.launch(&g.s)?; // the whole of y
        g.s.synchronize()?;
        let got = g.s.clone_dtoh(&dy2)?;
        assert_close("y2 head after", &got[..256], &axpy_ref(-0.5, &g.x, &y2, 3)[..256])?;
        assert_close("y2 tail after", &got[256..], &once[256..])?;
        assert_close("y after", &g.s.clone_dtoh(&g.dy)?, &axpy_ref(2.0, &g.x, &g.y, 1))?;
        Ok(())
    }

    graph_keeps_captured_memory_alive(dev) {
        // Without the graph's pins, dropping the buffers would free them (the pooled one back
        // to the pool, reused at once by the next allocation of its size on this stream) while
        // the graph still replays their addresses: a use after free.
        let (s, m) = (dev.create_stream()?, builtin::load(dev)?);
        let n = 12_345;
        let mut rng = Rng::new(14);
        let (x, y) = (rng.vec_f32(n), rng.vec_f32(n));
        let dx = upload(&s, &x)?; // direct
        let dy = s.clone_htod(&y)?; // pooled
        let mut out = s.alloc::<f32>(n)?;
        let (x_at, y_at) = (dx.device_ptr(), dy.device_ptr());
        let exec = s
            .capture(|s| {
                axpy(s, &m, &dx, &dy, 0.5)?;
                s.copy_dtod(&dy, &mut out)
            })?
            .instantiate()?;
        drop((dx, dy));
        let mut fresh = s.alloc::<f32>(n)?;
        assert_ne!(fresh.device_ptr(), y_at, "the pool handed out a block a graph still uses");
        assert_ne!(fresh.device_ptr(), x_at);
        s.copy_htod(&vec![7.0f32; n], &mut fresh)?;
        for _ in 0..3 {
            exec.launch(&s)?;
        }
        s.synchronize()?;
        assert!(s.clone_dtoh(&fresh)?.iter().all(|&v| v == 7.0), "the graph wrote into a new allocation");
        assert_close("out", &s.clone_dtoh(&out)?, &axpy_ref(0.5, &x, &y, 3))?;
        // Dropping the graph releases the deferred frees: the pooled block is cached again and
        // this stream's next allocation of its size reuses it.
        drop(exec);
        let again = s.alloc::<f32>(n)?;
        assert_eq!(again.device_ptr(), y_at, "the graph's block was not given back when the graph was dropped");
        Ok(())
    }

    an_empty_capture_launches(dev) {
        let s = dev.create_stream()?;
        let graph = s.capture(|_| Ok(()))?;
        assert_eq!(graph.kernel_node_count(), 0);
        let exec = graph.instantiate()?;
        exec.launch(&s)?;
        s.synchronize()?;
        Ok(())
    }

    other_streams_run_during_a_capture(dev) {
        let (a, b, m) = (dev.create_stream()?, dev.create_stream()?, builtin::load(dev)?);
        let mut rng = Rng::new(15);
        let (x, y) = (rng.vec_f32(777), rng.vec_f32(777));
        let (dx, dy) = (upload(&b, &x)?, upload(&b, &y)?);
        a.begin_capture()?;
        // Work on another stream runs at once, and its synchronous copies are allowed.
        axpy(&b, &m, &dx, &dy, 3.0)?;
        assert_close("b's y", &b.clone_dtoh(&dy)?, &axpy_ref(3.0, &x, &y, 1))?;
        let graph = a.end_capture()?;
        assert_eq!(graph.kernel_node_count(), 0);
        Ok(())
    }

    an_abandoned_capture_is_ended_with_its_stream(dev) {
        let m = builtin::load(dev)?;
        let keep = dev.create_stream()?;
        let x = upload(&keep, &[1.0f32; 64])?;
        let y = upload(&keep, &[2.0f32; 64])?;
        {
            let s = dev.create_stream()?;
            s.begin_capture()?;
            axpy(&s, &m, &x, &y, 1.0)?;
            // The stream's last owner goes away mid-capture.
        }
        // Nothing ran, the capture ended, its pins were released, and the buffers are freed
        // (once no other test of this binary is capturing on the device).
        assert!(keep.clone_dtoh(&y)?.iter().all(|&v| v == 2.0));
        let at = y.device_ptr().0;
        drop((x, y));
        let start = std::time::Instant::now();
        while ferrocm_runtime::pointer_attributes(at)?.is_some() {
            assert!(start.elapsed().as_secs() < 60, "a buffer used by an abandoned capture was never freed");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Ok(())
    }

    frees_wait_for_the_end_of_captures_on_their_device(dev) {
        // Freeing device memory may synchronize the device, which can invalidate a capture in
        // progress: while one runs, the free is deferred until the device's captures end.
        let s = dev.create_stream()?;
        let b = dev.alloc::<u8>(4096)?;
        let at = b.device_ptr().0;
        s.begin_capture()?;
        drop(b);
        assert!(ferrocm_runtime::pointer_attributes(at)?.is_some(), "memory was freed during a capture");
        s.end_capture()?;
        // Other tests of this binary capture on the same device too: the free happens once
        // none does.
        let start = std::time::Instant::now();
        while ferrocm_runtime::pointer_attributes(at)?.is_some() {
            assert!(start.elapsed().as_secs() < 60, "the deferred free never happened");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Ok(())
    }

    capture_refuses_what_it_cannot_record(dev) {
        for case in CAPTURE_MISUSE {
            check_capture(dev, case)?;
        }
        // Ending a capture that never began, and capturing the legacy default stream.
        let s = dev.create_stream()?;
        let e = s.end_capture().unwrap_err();
        assert!(matches!(e, Error::NotPermitted { what: "ending a capture", .. }), "{e}");
        let legacy = dev.legacy_default_stream()?;
        let e = legacy.begin_capture().unwrap_err();
        assert!(matches!(e, Error::NotPermitted { .. }) && e.to_string().contains("legacy"), "{e}");
        Ok(())
    }

    graph_updates_refuse_what_does_not_fit(dev) {
        for case in UPDATE_MISUSE {
            check_update(dev, case)?;
        }
        Ok(())
    }

    graphs_stay_on_their_device(dev) {
        let g = one_axpy(dev, 100, 1.0, 16)?;
        if let Some(other) = Device::all()?.into_iter().find(|d| d != dev) {
            let os = other.create_stream()?;
            let e = g.exec.launch(&os).unwrap_err();
            assert!(matches!(e, Error::DeviceMismatch { what: "graph", .. }), "{e}");
        }
        Ok(())
    }

    captures_and_operations_from_other_threads_do_not_interleave(dev) {
        // One thread copies host data through a stream while another repeatedly captures the
        // same stream: each copy is either refused (it met a capture) or done whole and right,
        // and no capture ever records one (it would replay a host buffer that is gone).
        let s = dev.create_stream()?;
        let mut buf = s.alloc::<u32>(4096)?;
        let stop = AtomicBool::new(false);
        let copied = AtomicUsize::new(0);
        std::thread::scope(|scope| -> TestResult {
            scope.spawn(|| {
                let mut round = 0u32;
                while !stop.load(Ordering::Acquire) {
                    let data: Vec<u32> = (0..4096).map(|i| i ^ round).collect();
                    match s.copy_htod(&data, &mut buf) {
                        Ok(()) => {
                            copied.fetch_add(1, Ordering::Relaxed);
                            match s.clone_dtoh(&buf) {
                                Ok(back) => assert_eq!(back, data, "a copy was not done whole"),
                                Err(Error::NotPermitted { .. }) => {}
                                Err(e) => panic!("read-back failed: {e}"),
                            }
                        }
                        Err(Error::NotPermitted { .. }) => {}
                        Err(e) => panic!("copy failed: {e}"),
                    }
                    round += 1;
                }
            });
            for _ in 0..ROUNDS {
                let graph = s.capture(|_| Ok(()))?;
                assert_eq!(graph.kernel_node_count(), 0);
                graph.instantiate()?.launch(&s)?;
            }
            stop.store(true, Ordering::Release);
            Ok(())
        })?;
        assert!(copied.load(Ordering::Relaxed) > 0, "no copy got through");
        Ok(())
    }
}

/// Captures raced against another thread's copies.
const ROUNDS: usize = 5000;

/// One operation that a capturing stream must refuse, by name.
struct CaptureMisuse {
    name: &'static str,
    /// The `what` of the expected `Error::NotPermitted`.
    what: &'static str,
    run: fn(&Stream, &mut DeviceBuffer<u32>) -> Result<(), Error>,
}

const CAPTURE_MISUSE: &[CaptureMisuse] = &[
    CaptureMisuse {
        name: "pool allocation",
        what: "allocating memory from the pool",
        run: |s, _| s.alloc::<u32>(16).map(drop),
    },
    CaptureMisuse { name: "stream synchronize", what: "synchronizing a stream", run: |s, _| s.synchronize() },
    CaptureMisuse { name: "stream query", what: "querying a stream", run: |s, _| s.query().map(drop) },
    CaptureMisuse {
        name: "pageable host-to-device copy",
        what: "copying memory",
        run: |s, b| s.copy_htod(&[5u32; 64], b),
    },
    CaptureMisuse {
        name: "pageable device-to-host copy",
        what: "copying memory",
        run: |s, b| s.copy_dtoh(b, &mut [0u32; 64]),
    },
    CaptureMisuse { name: "clone to host", what: "copying memory", run: |s, b| s.clone_dtoh(b).map(drop) },
    CaptureMisuse {
        name: "pinned host-to-device copy",
        what: "copying memory",
        run: |s, b| s.copy_htod_async(&HostBuffer::from_slice(s.device(), &[5u32; 64])?, b),
    },
    CaptureMisuse {
        name: "host callback",
        what: "adding a host callback",
        run: |s, _| s.add_callback(|| {}),
    },
    CaptureMisuse {
        name: "wait on an event",
        what: "making a stream wait on an event",
        run: |s, _| s.wait_event(&Event::new(s.device())?),
    },
    CaptureMisuse {
        name: "record an event",
        what: "recording an event",
        run: |s, _| Event::new(s.device())?.record(s),
    },
    CaptureMisuse {
        name: "device synchronize",
        what: "synchronizing a device",
        run: |s, _| s.device().synchronize(),
    },
    CaptureMisuse { name: "second begin", what: "beginning a capture", run: |s, _| s.begin_capture() },
    CaptureMisuse {
        name: "graph launch into a capture",
        what: "launching a graph",
        run: |s, _| {
            // A graph made on another stream, launched on the capturing one.
            let other = s.device().create_stream()?;
            other.capture(|_| Ok(()))?.instantiate()?.launch(s)
        },
    },
];

fn check_capture(dev: &Device, case: &CaptureMisuse) -> TestResult {
    let s = dev.create_stream()?;
    let initial: Vec<u32> = (0..64).map(|i| i * 3 + 1).collect();
    let mut buf = dev.alloc::<u32>(64)?;
    s.copy_htod(&initial, &mut buf)?;
    s.begin_capture()?;
    let result = (case.run)(&s, &mut buf);
    let graph = s.end_capture()?;
    match result {
        Err(Error::NotPermitted { what, reason }) if what == case.what => {
            assert!(reason.contains("capturing"), "{}: reason {reason:?}", case.name);
        }
        other => {
            return Err(format!("{}: expected NotPermitted({:?}), got {other:?}", case.name, case.what).into())
        }
    }
    assert_eq!(graph.kernel_node_count(), 0, "{}", case.name);
    let exec = graph.instantiate()?;
    exec.launch(&s)?;
    assert_eq!(s.clone_dtoh(&buf)?, initial, "{}: the refused operation wrote", case.name);
    Ok(())
}

/// One kernel-node update that must be refused.
struct UpdateMisuse {
    name: &'static str,
    node: usize,
    config: fn(usize) -> LaunchConfig,
    args: fn(&OneAxpy, usize) -> KernelArgs,
    expect: fn(&Error) -> bool,
}

const UPDATE_MISUSE: &[UpdateMisuse] = &[
    UpdateMisuse {
        name: "wrong argument count",
        node: 0,
        config: |n| LaunchConfig::for_num_elems(n as u32),
        args: |g, n| {
            let mut a = KernelArgs::new();
            a.push_buffer(&g.dx).push_buffer(&g.dy).push(n as u64);
            a
        },
        expect: |e| matches!(e, Error::GraphUpdate { node: 0, reason, .. } if reason.contains("4 argument(s)") && reason.contains("passes 3")),
    },
    UpdateMisuse {
        name: "wrong argument size",
        node: 0,
        config: |n| LaunchConfig::for_num_elems(n as u32),
        args: |g, n| {
            let mut a = KernelArgs::new();
            a.push_buffer(&g.dx).push_buffer(&g.dy).push(n as u32).push(1.0f32);
            a
        },
        expect: |e| matches!(e, Error::GraphUpdate { reason, .. } if reason.contains("argument 2 was captured as 8 bytes")),
    },
    UpdateMisuse {
        name: "node past the end",
        node: 1,
        config: |n| LaunchConfig::for_num_elems(n as u32),
        args: |g, n| axpy_args(&g.dx, &g.dy, n, 9.0),
        expect: |e| matches!(e, Error::OutOfRange { start: 1, len: 1, .. }),
    },
    UpdateMisuse {
        name: "empty grid",
        node: 0,
        config: |_| LaunchConfig::new(0, 256),
        args: |g, n| axpy_args(&g.dx, &g.dy, n, 9.0),
        expect: |e| matches!(e, Error::EmptyLaunch { what: "grid.x" }),
    },
    UpdateMisuse {
        name: "block over the limit",
        node: 0,
        config: |_| LaunchConfig::new(1, (32, 32, 2)),
        args: |g, n| axpy_args(&g.dx, &g.dy, n, 9.0),
        expect: |e| matches!(e, Error::LaunchTooLarge { what: "threads per block", .. }),
    },
    UpdateMisuse {
        name: "cooperative mode changed",
        node: 0,
        config: |n| LaunchConfig::for_num_elems(n as u32).cooperative(),
        args: |g, n| axpy_args(&g.dx, &g.dy, n, 9.0),
        expect: |e| matches!(e, Error::GraphUpdate { reason, .. } if reason.contains("cooperative")),
    },
];

fn check_update(dev: &Device, case: &UpdateMisuse) -> TestResult {
    let n = 999;
    let mut g = one_axpy(dev, n, 0.25, 17)?;
    let args = (case.args)(&g, n);
    // SAFETY: refused before reaching the device (checked below); the buffers are live.
    let e = unsafe { g.exec.set_kernel_node(case.node, (case.config)(n), &args) }.unwrap_err();
    assert!((case.expect)(&e), "{}: unexpected error {e:?}", case.name);
    // Nothing changed: the graph still computes the captured launch.
    g.exec.launch(&g.s)?;
    g.s.synchronize()?;
    assert_close(case.name, &g.s.clone_dtoh(&g.dy)?, &axpy_ref(0.25, &g.x, &g.y, 1))?;
    assert_eq!(g.exec.kernel_node_config(0), Some(LaunchConfig::for_num_elems(n as u32)));
    Ok(())
}

/// A tensor map passed to a captured launch pins the buffer it describes, as a buffer passed
/// directly does (checked on the CPU device, with a kernel that accepts any arguments).
#[test]
fn a_captured_tensor_map_pins_its_buffer() {
    use ferrocm_runtime::{CpuKernel, CpuModule, LaunchDims, ModuleImage, TensorMap, TiledLayout};
    struct AnyArgs;
    impl CpuKernel for AnyArgs {
        unsafe fn launch(&self, _: LaunchDims, _: &[&[u8]]) -> Result<(), String> {
            Ok(())
        }
    }
    impl CpuModule for AnyArgs {
        fn function(&self, _: &str) -> Option<std::sync::Arc<dyn CpuKernel>> {
            Some(std::sync::Arc::new(AnyArgs))
        }
    }
    let dev = Device::cpu().unwrap();
    let s = dev.create_stream().unwrap();
    let f = dev.load_module(ModuleImage::Cpu(std::sync::Arc::new(AnyArgs))).unwrap().function("k").unwrap();
    let n = 64 * 70;
    let buf = s.alloc::<f32>(n).unwrap(); // pooled
    let at = buf.device_ptr();
    let exec = {
        let map = TensorMap::tiled(&buf, &TiledLayout::new(&[64, 70], &[16, 16])).unwrap();
        let mut args = KernelArgs::new();
        args.push_tensor_map(&map);
        // SAFETY: the kernel reads nothing.
        s.capture(|s| unsafe { s.launch(&f, LaunchConfig::new(1, 1), &args) }).unwrap().instantiate().unwrap()
    };
    drop(buf);
    let fresh = s.alloc::<f32>(n).unwrap();
    assert_ne!(fresh.device_ptr(), at, "the pool handed out a block a captured tensor map describes");
    exec.launch(&s).unwrap();
    s.synchronize().unwrap();
    drop(exec);
    drop(fresh);
    let mut reused = vec![s.alloc::<f32>(n).unwrap(), s.alloc::<f32>(n).unwrap()];
    reused.retain(|b| b.device_ptr() == at);
    assert_eq!(reused.len(), 1, "the block was not given back with the graph");
}

#[test]
fn graph_types_are_shareable_across_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<ferrocm_runtime::Graph>();
    shareable::<GraphExec>();
}
