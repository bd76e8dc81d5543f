//! Multi-device behaviour, on two CPU devices (and on every GPU pair present). This binary
//! sets `FERROCM_CPU_DEVICES` before the runtime first reads the environment, so it holds a
//! single test.

mod common;

use ferrocm_runtime::{builtin, BackendKind, Device, Error, Event, KernelArgs, LaunchConfig};

fn check_pair(a: &Device, b: &Device) -> common::TestResult {
    let (sa, sb) = (a.create_stream()?, b.create_stream()?);
    let data: Vec<u32> = (0..10_000).map(|i| i ^ 0x5555).collect();
    let on_b = sb.clone_htod(&data)?;
    let mut on_a = sa.alloc::<u32>(data.len())?;
    // Without peer access, neither copies nor kernels may touch the other device's memory.
    let e = sa.copy_dtod(&on_b, &mut on_a).unwrap_err();
    assert!(matches!(e, Error::NoPeerAccess { .. }), "{e}");
    assert!(e.to_string().contains("enable peer access"), "{e}");
    let f = builtin::load(a)?.function("axpy_f32")?;
    let (x, mut y) = (sb.clone_htod(&[1.0f32; 64])?, sa.clone_htod(&[0.0f32; 64])?);
    let mut args = KernelArgs::new();
    args.push_buffer(&x).push_buffer(&y).push(64u64).push(3.0f32);
    // SAFETY: axpy_f32 over two 64-element f32 buffers.
    let e = unsafe { sa.launch(&f, LaunchConfig::for_num_elems(64), &args) }.unwrap_err();
    assert!(matches!(e, Error::NoPeerAccess { .. }), "{e}");

    assert!(a.can_access_peer(b)?);
    a.enable_peer_access(b)?;
    a.enable_peer_access(b)?; // enabling twice is fine
    assert!(a.has_peer_access(b) && !b.has_peer_access(a));
    sa.copy_dtod(&on_b, &mut on_a)?;
    assert_eq!(sa.clone_dtoh(&on_a)?, data);
    // SAFETY: as above; device a may now read b's memory.
    unsafe { sa.launch(&f, LaunchConfig::for_num_elems(64), &args)? };
    sa.synchronize()?;
    assert!(sa.clone_dtoh(&y)?.iter().all(|&v| v == 3.0));
    sa.memset_zero(&mut y)?;
    assert!(matches!(a.enable_peer_access(a), Err(Error::PeerAccessUnsupported { .. })));
    cross_device_event_wait(a, b)?;
    Ok(())
}

/// A stream of one device waits on an event recorded on another (ring collectives need it):
/// b's copy out of a's buffer must see what a's slow kernel wrote before the event.
fn cross_device_event_wait(a: &Device, b: &Device) -> common::TestResult {
    let (sa, sb) = (a.create_stream()?, b.create_stream()?);
    b.enable_peer_access(a)?;
    let ma = builtin::load(a)?;
    let n = 4096u64;
    let x = sa.clone_htod(&vec![1.0f32; n as usize])?;
    let y = sa.clone_htod(&vec![0.0f32; n as usize])?;
    sa.synchronize()?;
    let mut spin = KernelArgs::new();
    spin.push(200_000_000u64);
    let mut axpy = KernelArgs::new();
    axpy.push_buffer(&x).push_buffer(&y).push(n).push(5.0f32);
    // SAFETY: `spin` takes a u64; axpy_f32 runs over two n-element f32 buffers of device a.
    unsafe {
        sa.launch(&ma.function("spin")?, LaunchConfig::new(1, 1), &spin)?;
        sa.launch(&ma.function("axpy_f32")?, LaunchConfig::for_num_elems(n as u32), &axpy)?;
    }
    let done = Event::new(a)?;
    done.record(&sa)?;
    sb.wait_event(&done)?;
    let mut on_b = sb.alloc::<f32>(n as usize)?;
    sb.copy_dtod(&y, &mut on_b)?;
    assert!(sb.clone_dtoh(&on_b)?.iter().all(|&v| v == 5.0), "b did not wait for a's event");
    sa.synchronize()?;
    Ok(())
}

#[test]
fn peer_access_between_devices() {
    // Set before the runtime reads the environment (this is the binary's only test).
    std::env::set_var("FERROCM_CPU_DEVICES", "2");
    let cpus = Device::of_kind(BackendKind::Cpu);
    assert_eq!(cpus.len(), 2, "FERROCM_CPU_DEVICES=2 gives two CPU devices");
    assert_ne!(cpus[0].properties().uuid, cpus[1].properties().uuid);
    check_pair(&cpus[0], &cpus[1]).unwrap();
    let gpus = Device::of_kind(BackendKind::Cuda);
    if gpus.len() >= 2 && gpus[0].can_access_peer(&gpus[1]).unwrap() {
        check_pair(&gpus[0], &gpus[1]).unwrap();
    }
    // Different backends never share memory.
    if let Some(gpu) = gpus.first() {
        assert!(matches!(cpus[0].enable_peer_access(gpu), Err(Error::PeerAccessUnsupported { .. })));
    }
}
