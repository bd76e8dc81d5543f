//! The stream-ordered pool. The pool is per device and shared by everything on it, so these
//! checks live in their own binary with a single test that visits each backend in turn.

mod common;

use common::TestResult;
use ferrocm_runtime::{builtin, AsDeviceSlice, BackendKind, Device, KernelArgs, LaunchConfig, Stream};

fn spin(stream: &Stream, module: &ferrocm_runtime::Module, ms: u64) -> TestResult {
    let f = module.function("spin")?;
    let mut args = KernelArgs::new();
    args.push(ms * 1_000_000);
    // SAFETY: `spin` takes one u64 and touches no memory.
    unsafe { stream.launch(&f, LaunchConfig::new(1, 1), &args)? };
    Ok(())
}

fn axpy_args(x: &impl AsDeviceSlice<f32>, y: &impl AsDeviceSlice<f32>, n: u64, a: f32) -> KernelArgs {
    let mut args = KernelArgs::new();
    args.push_buffer(x).push_buffer(y).push(n).push(a);
    args
}

fn pool_reuses_blocks(dev: &Device) -> TestResult {
    let s = dev.create_stream()?;
    dev.trim_pool()?;
    let first = s.alloc::<f32>(1000)?.device_ptr();
    assert!(dev.pool_cached_bytes() >= 4000);
    for _ in 0..100 {
        let b = s.alloc::<f32>(1000)?;
        assert_eq!(
            b.device_ptr(),
            first,
            "a same-size allocation on the same stream reuses the cached block"
        );
    }
    // Another stream gets the block only after the freeing stream's work.
    let module = builtin::load(dev)?;
    let f = module.function("axpy_f32")?;
    let (x, y) = (vec![1.0f32; 1000], vec![0.0f32; 1000]);
    let dx = s.clone_htod(&x)?;
    {
        let dy = s.clone_htod(&y)?;
        spin(&s, &module, 30)?;
        // SAFETY: as in launch_computes_axpy.
        unsafe { s.launch(&f, LaunchConfig::for_num_elems(1000), &axpy_args(&dx, &dy, 1000, 1.0))? };
    }
    let other = dev.create_stream()?;
    let mut reused = other.alloc::<f32>(1000)?;
    other.copy_htod(&vec![5.0f32; 1000], &mut reused)?;
    s.synchronize()?;
    assert!(
        other.clone_dtoh(&reused)?.iter().all(|&v| v == 5.0),
        "the old stream's kernel wrote into a reused block"
    );
    drop(reused);
    dev.trim_pool()?;
    assert_eq!(dev.pool_cached_bytes(), 0);
    Ok(())
}

/// A release threshold gives cached blocks back to the driver at each synchronize.
fn pool_release_threshold_gives_memory_back(dev: &Device) -> TestResult {
    let s = dev.create_stream()?;
    dev.trim_pool()?;
    dev.set_pool_release_threshold(Some(1 << 20));
    for _ in 0..4 {
        let mut b = s.alloc::<u8>(16 << 20)?;
        s.memset_zero(&mut b)?;
    }
    assert!(dev.pool_cached_bytes() >= 16 << 20);
    s.synchronize()?;
    assert!(dev.pool_cached_bytes() <= 1 << 20, "{} bytes cached after synchronize", dev.pool_cached_bytes());
    dev.set_pool_release_threshold(None);
    let b = s.alloc::<u8>(16 << 20)?;
    drop(b);
    s.synchronize()?;
    assert!(dev.pool_cached_bytes() >= 16 << 20, "without a threshold the block stays cached");
    dev.trim_pool()?;
    Ok(())
}

#[test]
fn pool_on_every_backend() {
    common::on_backend(BackendKind::Cpu, pool_reuses_blocks);
    common::on_backend(BackendKind::Cuda, pool_reuses_blocks);
    common::on_backend(BackendKind::Cpu, pool_release_threshold_gives_memory_back);
    common::on_backend(BackendKind::Cuda, pool_release_threshold_gives_memory_back);
}
