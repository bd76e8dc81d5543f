//! Address-level copies and fills (`Stream::copy_raw`, `Stream::memset_raw`), module variables
//! (`Module::global`) and parameters given as bytes (`KernelArgs::push_bytes`), on every backend.

mod common;

use std::sync::Arc;

use ferrocm_runtime::{
    builtin, AsDeviceSlice, BackendKind, CpuKernel, CpuModule, Device, Error, HostBuffer, KernelArgs,
    LaunchConfig, ModuleImage,
};

/// A module with one variable, `table` (four u32: 1, 2, 3, 4), for each kind of device.
fn table_module(dev: &Device) -> ModuleImage {
    match dev.kind() {
        BackendKind::Cpu => ModuleImage::Cpu(Arc::new(TableModule(Box::new([1, 2, 3, 4])))),
        _ => ModuleImage::Ptx(
            ".version 7.0\n.target sm_70\n.address_size 64\n\
             .visible .global .align 4 .u32 table[4] = {1, 2, 3, 4};\n\
             .visible .entry touch() { ret; }\n"
                .into(),
        ),
    }
}

/// A CPU module whose only content is a variable in host memory it owns.
struct TableModule(Box<[u32; 4]>);

impl CpuModule for TableModule {
    fn function(&self, _name: &str) -> Option<Arc<dyn CpuKernel>> {
        None
    }
    fn global(&self, name: &str) -> Option<(u64, u64)> {
        (name == "table").then_some((self.0.as_ptr() as u64, 16))
    }
}

conformance! {
    untraced_ptx_modules_load_as_given(dev) {
        // This binary installs no tracer: PTX text is loaded as given, with no timed copies.
        assert!(!ferrocm_runtime::trace::kernels_traced());
        if dev.kind() == BackendKind::Cuda {
            let m = dev.load_module(table_module(dev))?;
            assert!(m.timed_entries().is_empty());
            let m = dev.load_module(ModuleImage::Ptx(builtin::PTX.into()))?;
            assert!(m.timed_entries().is_empty());
            m.function("empty")?;
        }
        Ok(())
    }

    raw_copies_round_trip_through_device_memory(dev) {
        let s = dev.create_stream()?;
        let mut a = dev.alloc::<u32>(1000)?;
        let b = dev.alloc::<u32>(1000)?;
        let host: Vec<u32> = (0..1000).map(|i| i * 3 + 1).collect();
        let (pa, pb) = (a.device_ptr().0, b.device_ptr().0);
        s.memset_zero(&mut a)?;
        // SAFETY: `host` and `back` are live host vectors of the copied sizes.
        unsafe {
            s.copy_raw(pa + 40, host.as_ptr() as u64, 4000 - 40)?;
            s.copy_raw(pb, pa, 4000)?;
        }
        let mut back = vec![0u32; 1000];
        unsafe { s.copy_raw(back.as_mut_ptr() as u64, pb, 4000)? };
        assert_eq!(&back[..10], &[0; 10], "the first 40 bytes were not written");
        assert_eq!(&back[10..], &host[..990]);
        Ok(())
    }

    a_raw_copy_past_the_allocation_is_refused_and_writes_nothing(dev) {
        let s = dev.create_stream()?;
        let mut a = dev.alloc::<u8>(64)?;
        s.memset_bytes(&mut a, 7)?;
        let src = [1u8; 128];
        let pa = a.device_ptr().0;
        // SAFETY: `src` holds 128 bytes.
        let e = unsafe { s.copy_raw(pa + 8, src.as_ptr() as u64, 57) }.unwrap_err();
        assert!(matches!(e, Error::InvalidAddress { bytes: 57, .. }), "{e}");
        let e = unsafe { s.copy_raw(0, src.as_ptr() as u64, 4) }.unwrap_err();
        assert!(matches!(e, Error::InvalidAddress { .. }), "{e}");
        assert_eq!(s.clone_dtoh(&a)?, vec![7u8; 64]);
        let e = s.memset_raw(pa + 60, 0, 5).unwrap_err();
        assert!(matches!(e, Error::InvalidAddress { .. }), "{e}");
        let e = s.memset_raw(src.as_ptr() as u64, 0, 4).unwrap_err();
        assert!(matches!(e, Error::InvalidAddress { .. }), "host memory is refused: {e}");
        s.memset_raw(pa + 16, 9, 4)?;
        let v = s.clone_dtoh(&a)?;
        assert_eq!(&v[14..22], &[7, 7, 9, 9, 9, 9, 7, 7]);
        Ok(())
    }

    raw_copies_with_pinned_memory_run_in_the_background(dev) {
        let s = dev.create_stream()?;
        let n = 1 << 16;
        let mut pinned = HostBuffer::<f32>::new(dev, n)?;
        for (i, v) in pinned.iter_mut().enumerate() {
            *v = i as f32 * 0.5;
        }
        let d = dev.alloc::<f32>(n)?;
        let out = HostBuffer::<f32>::new(dev, n)?;
        let (src, dst) = (pinned.as_ptr() as u64, out.as_ptr() as u64);
        // SAFETY: pinned buffers of `n` floats, kept alive until the stream is synchronized.
        unsafe {
            s.copy_raw(d.device_ptr().0, src, (n * 4) as u64)?;
            s.copy_raw(dst, d.device_ptr().0, (n * 4) as u64)?;
        }
        s.synchronize()?;
        assert_eq!(&out[..], &pinned[..]);
        // Host to host is a plain copy, after the stream's earlier work.
        let mut plain = vec![0f32; n];
        unsafe { s.copy_raw(plain.as_mut_ptr() as u64, dst, (n * 4) as u64)? };
        assert_eq!(&plain[..], &pinned[..]);
        Ok(())
    }

    module_variables_are_device_memory_while_the_module_lives(dev) {
        let m = dev.load_module(table_module(dev))?;
        let (ptr, size) = m.global("table")?;
        assert_eq!(size, 16);
        let a = ferrocm_runtime::pointer_attributes(ptr.0 + 4)?.expect("a module variable is registered");
        assert_eq!((a.base, a.size, a.device.index()), (ptr, 16, dev.index()));
        let s = dev.create_stream()?;
        let mut v = [0u32; 4];
        // SAFETY: `v` holds 16 bytes.
        unsafe { s.copy_raw(v.as_mut_ptr() as u64, ptr.0, 16)? };
        assert_eq!(v, [1, 2, 3, 4]);
        let nine = [9u32; 2];
        unsafe { s.copy_raw(ptr.0 + 8, nine.as_ptr() as u64, 8)? };
        unsafe { s.copy_raw(v.as_mut_ptr() as u64, ptr.0, 16)? };
        assert_eq!(v, [1, 2, 9, 9]);
        assert!(m.global("missing").is_err());
        let e = unsafe { s.copy_raw(ptr.0 + 8, nine.as_ptr() as u64, 12) }.unwrap_err();
        assert!(matches!(e, Error::InvalidAddress { .. }), "past the variable: {e}");
        drop(m);
        assert!(ferrocm_runtime::pointer_attributes(ptr.0)?.is_none(), "unregistered with the module");
        Ok(())
    }

    parameters_given_as_bytes_launch_like_typed_ones(dev) {
        let s = dev.create_stream()?;
        let m = builtin::load(dev)?;
        let f = m.function("axpy_f32")?;
        let n = 1000usize;
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let xd = s.clone_htod(&x)?;
        let mut yd = s.alloc_zeroed::<f32>(n)?;
        let mut args = KernelArgs::new();
        args.push_bytes(&xd.device_ptr().0.to_le_bytes())
            .push_bytes(&yd.device_ptr().0.to_le_bytes())
            .push_bytes(&(n as u64).to_le_bytes())
            .push_bytes(&2.5f32.to_le_bytes());
        // SAFETY: axpy_f32(x, y, n, a) with live buffers of n floats.
        unsafe { s.launch(&f, LaunchConfig::for_num_elems(n as u32), &args)? };
        let y = s.clone_dtoh(&yd)?;
        for i in 0..n {
            assert_eq!(y[i], 2.5 * x[i], "i={i}");
        }
        s.memset_zero(&mut yd)?;
        Ok(())
    }
}
