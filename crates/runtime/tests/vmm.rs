//! Virtual memory on every backend: physical memory mapped into reserved address ranges, used by
//! copies and kernels (checked against an f64 host reference), aliasing between two mappings of
//! the same memory, lifetimes (a mapping keeps its memory alive; dropping a mapping waits for
//! the work that uses it), and a table of misuse cases, each checking the error and that nothing
//! was mapped.

mod common;

use common::{Rng, TestResult};
use ferrocm_runtime::{
    builtin, pointer_attributes, AddressRange, AsDeviceSlice, BackendKind, Device, Error, KernelArgs,
    LaunchConfig, MemoryKind, PhysicalMemory, Stream,
};

fn axpy(
    s: &Stream,
    dev: &Device,
    x: &impl AsDeviceSlice<f32>,
    y: &impl AsDeviceSlice<f32>,
    a: f32,
) -> TestResult {
    let f = builtin::load(dev)?.function("axpy_f32")?;
    let mut args = KernelArgs::new();
    args.push_buffer(x).push_buffer(y).push(y.len() as u64).push(a);
    // SAFETY: axpy_f32(x, y, n, a) over two live buffers of at least n elements.
    unsafe { s.launch(&f, LaunchConfig::for_num_elems(y.len() as u32), &args)? };
    Ok(())
}

fn close(got: &[f32], want: &[f64]) -> TestResult {
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if (g as f64 - w).abs() > 1e-5 * (1.0 + w.abs()) {
            return Err(format!("element {i}: got {g}, want {w}").into());
        }
    }
    Ok(())
}

conformance! {
    granularity_is_a_power_of_two(dev) {
        let g = dev.allocation_granularity()?;
        assert!(g.is_power_of_two() && g >= 4096, "granularity {g}");
        Ok(())
    }

    mappings_serve_copies_and_kernels(dev) {
        let g = dev.allocation_granularity()?;
        let memory = PhysicalMemory::new(dev, 2 * g)?;
        assert!(!memory.is_exportable() && memory.size() == 2 * g);
        let range = AddressRange::reserve(dev, 4 * g)?;
        assert_eq!(range.base().0 % g, 0, "a reservation is aligned to the granularity");
        // Mapped one granule into the range: the view starts there.
        let mut y = range.map::<f32>(g, &memory)?;
        assert_eq!(y.device_ptr(), range.base().offset(g));
        assert_eq!(y.len() as u64, 2 * g / 4);
        let s = dev.create_stream()?;
        let mut rng = Rng::new(21);
        let n = y.len();
        let (xh, yh) = (rng.vec_f32(n), rng.vec_f32(n));
        s.copy_htod(&yh, &mut y)?;
        let x = s.clone_htod(&xh)?;
        axpy(&s, dev, &x, &y, 1.25)?;
        let want: Vec<f64> = xh.iter().zip(&yh).map(|(&x, &y)| y as f64 + 1.25 * x as f64).collect();
        close(&s.clone_dtoh(&y)?, &want)?;
        // Sub-views and device-to-device copies work on mappings like on buffers.
        let mut z = s.alloc::<f32>(1000)?;
        s.copy_dtod(&y.slice(5..1005)?, &mut z)?;
        close(&s.clone_dtoh(&z)?, &want[5..1005])?;
        // Pointer attributes find the mapping from any address inside it.
        let inside = y.device_ptr().0 + 4 * 1234;
        let attrs = pointer_attributes(inside)?.ok_or("no attributes for a mapped address")?;
        assert_eq!((attrs.base, attrs.size, attrs.kind), (y.device_ptr(), 2 * g, MemoryKind::Device));
        assert_eq!(attrs.device, *dev);
        let base = y.device_ptr().0;
        drop(y);
        assert!(pointer_attributes(base)?.is_none(), "an unmapped address still has attributes");
        Ok(())
    }

    two_mappings_of_one_memory_alias(dev) {
        let g = dev.allocation_granularity()?;
        let memory = PhysicalMemory::new(dev, 2 * g)?;
        let (r1, r2) = (AddressRange::reserve(dev, 2 * g)?, AddressRange::reserve(dev, 3 * g)?);
        let mut first = r1.map::<u32>(0, &memory)?;
        // The same memory again, one granule into another range.
        let mut second = r2.map::<u32>(g, &memory)?;
        assert_ne!(first.device_ptr(), second.device_ptr());
        let s = dev.create_stream()?;
        let n = first.len();
        let pattern: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
        s.copy_htod(&pattern, &mut first)?;
        assert_eq!(s.clone_dtoh(&second)?, pattern, "the second mapping does not see the first's writes");
        let other: Vec<u32> = (0..n as u32 / 2).map(|i| !i).collect();
        s.copy_htod(&other, &mut second.slice_mut(n / 2..)?)?;
        let back = s.clone_dtoh(&first)?;
        assert_eq!(&back[..n / 2], &pattern[..n / 2]);
        assert_eq!(&back[n / 2..], &other[..], "the first mapping does not see the second's writes");
        Ok(())
    }

    a_mapping_keeps_its_memory_and_range_alive(dev) {
        let g = dev.allocation_granularity()?;
        let memory = PhysicalMemory::new(dev, g)?;
        let range = AddressRange::reserve(dev, g)?;
        let mut m = range.map::<u64>(0, &memory)?;
        drop((memory, range));
        let s = dev.create_stream()?;
        let data: Vec<u64> = (0..m.len() as u64).map(|i| i * i + 7).collect();
        s.copy_htod(&data, &mut m)?;
        assert_eq!(s.clone_dtoh(&m)?, data);
        Ok(())
    }

    dropping_a_mapping_waits_for_its_work(dev) {
        // Unmapping under a running kernel would fault (a segmentation fault on the CPU, an
        // illegal address on a GPU): the drop must wait for the stream.
        let g = dev.allocation_granularity()?;
        let memory = PhysicalMemory::new(dev, g)?;
        let range = AddressRange::reserve(dev, g)?;
        let mut x = range.map::<f32>(0, &memory)?;
        let s = dev.create_stream()?;
        let n = x.len();
        s.copy_htod(&vec![2.0f32; n], &mut x)?;
        let y = s.clone_htod(&vec![1.0f32; n])?;
        let m = builtin::load(dev)?;
        let mut ns = KernelArgs::new();
        ns.push(50_000_000u64);
        // SAFETY: `spin` takes one u64 and touches no memory.
        unsafe { s.launch(&m.function("spin")?, LaunchConfig::new(1, 1), &ns)? };
        axpy(&s, dev, &x, &y, 3.0)?;
        drop(x);
        s.synchronize()?;
        assert!(s.clone_dtoh(&y)?.iter().all(|&v| v == 7.0));
        Ok(())
    }

    a_graph_keeps_a_mapping_mapped(dev) {
        // A graph replays the mapping's address: dropping the mapping must leave it mapped
        // until the graph is gone (on the CPU an early unmap would crash the replay).
        let g = dev.allocation_granularity()?;
        let memory = PhysicalMemory::new(dev, g)?;
        let range = AddressRange::reserve(dev, g)?;
        let mut y = range.map::<f32>(0, &memory)?;
        let s = dev.create_stream()?;
        let n = y.len();
        s.copy_htod(&vec![1.0f32; n], &mut y)?;
        let x = s.clone_htod(&vec![0.5f32; n])?;
        let mut out = s.alloc::<f32>(n)?;
        let f = builtin::load(dev)?.function("axpy_f32")?;
        let mut args = KernelArgs::new();
        args.push_buffer(&x).push_buffer(&y).push(n as u64).push(2.0f32);
        let exec = s
            .capture(|s| {
                // SAFETY: axpy_f32 over two live n-element views, kept alive by the graph.
                unsafe { s.launch(&f, LaunchConfig::for_num_elems(n as u32), &args)? };
                s.copy_dtod(&y, &mut out)
            })?
            .instantiate()?;
        let base = y.device_ptr().0;
        drop((y, memory, range));
        assert!(pointer_attributes(base)?.is_some(), "the mapping went away under a graph");
        exec.launch(&s)?;
        exec.launch(&s)?;
        s.synchronize()?;
        assert!(s.clone_dtoh(&out)?.iter().all(|&v| v == 3.0));
        drop(exec);
        assert!(pointer_attributes(base)?.is_none(), "the mapping outlived its graph");
        Ok(())
    }

    access_can_be_granted_to_more_devices(dev) {
        let g = dev.allocation_granularity()?;
        let memory = PhysicalMemory::new(dev, g)?;
        let range = AddressRange::reserve(dev, g)?;
        let mut m = range.map::<u8>(0, &memory)?;
        // The mapping's own device, named again, is fine.
        m.set_access(&[dev])?;
        let peers: Vec<Device> = Device::of_kind(dev.kind()).into_iter().filter(|d| d != dev).collect();
        for p in &peers {
            if dev.can_access_peer(p)? {
                m.set_access(&[p])?;
            }
        }
        let s = dev.create_stream()?;
        s.copy_htod(&vec![0x5au8; m.len()], &mut m)?;
        assert!(s.clone_dtoh(&m)?.iter().all(|&b| b == 0x5a));
        let other_kind = if dev.kind() == BackendKind::Cpu { BackendKind::Cuda } else { BackendKind::Cpu };
        if let Some(other) = Device::of_kind(other_kind).first() {
            let e = m.set_access(&[other]).unwrap_err();
            assert!(matches!(e, Error::PeerAccessUnsupported { .. }), "{e}");
        }
        Ok(())
    }

    misuse_is_refused_and_maps_nothing(dev) {
        for case in MISUSE {
            check(dev, case)?;
        }
        Ok(())
    }
}

/// One misuse of the virtual memory API.
struct Misuse {
    name: &'static str,
    /// Runs the misuse against a 2-granule memory and a 2-granule range (`g` is the granularity);
    /// afterwards the whole memory must still map into the range.
    run: fn(&Device, u64, &PhysicalMemory, &AddressRange) -> Result<(), Error>,
    expect: fn(&Error) -> bool,
}

const MISUSE: &[Misuse] = &[
    Misuse {
        name: "physical size not a multiple of the granularity",
        run: |d, g, _, _| PhysicalMemory::new(d, g + 256).map(drop),
        expect: |e| matches!(e, Error::NotGranular { what: "physical memory size", .. }),
    },
    Misuse {
        name: "zero-sized physical memory",
        run: |d, _, _, _| PhysicalMemory::new(d, 0).map(drop),
        expect: |e| matches!(e, Error::ZeroSizedAllocation),
    },
    Misuse {
        name: "physical memory larger than the device",
        run: |d, g, _, _| {
            let too_big = (d.properties().total_memory / g + 1) * g;
            PhysicalMemory::new(d, too_big).map(drop)
        },
        expect: |e| matches!(e, Error::AllocationTooLarge { .. }),
    },
    Misuse {
        name: "reservation not a multiple of the granularity",
        run: |d, g, _, _| AddressRange::reserve(d, g / 2).map(drop),
        expect: |e| matches!(e, Error::NotGranular { what: "address range size", .. }),
    },
    Misuse {
        name: "mapping offset not a multiple of the granularity",
        run: |d, g, m, _| AddressRange::reserve(d, 4 * g)?.map::<u8>(4096, m).map(drop),
        expect: |e| matches!(e, Error::NotGranular { what: "mapping offset", .. }),
    },
    Misuse {
        name: "mapping past the end of the range",
        run: |_, g, m, r| r.map::<u8>(g, m).map(drop),
        expect: |e| matches!(e, Error::MappingOutOfRange { what: "mapping into the address range", end, size, .. } if end > size),
    },
    Misuse {
        name: "overlapping mappings",
        run: |_, g, m, r| {
            let wide = AddressRange::reserve(r.device(), 4 * g)?;
            let _first = wide.map::<u8>(0, m)?;
            wide.map::<u8>(g, m).map(drop)
        },
        expect: |e| matches!(e, Error::MappingOverlap { existing_offset: 0, .. }),
    },
    Misuse {
        name: "exporting memory that was not created exportable",
        run: |_, _, m, _| m.export().map(drop),
        expect: |e| matches!(e, Error::InvalidShareableHandle { reason } if reason.contains("not created exportable")),
    },
];

fn check(dev: &Device, case: &Misuse) -> TestResult {
    let g = dev.allocation_granularity()?;
    let memory = PhysicalMemory::new(dev, 2 * g)?;
    let range = AddressRange::reserve(dev, 2 * g)?;
    let e =
        (case.run)(dev, g, &memory, &range).err().ok_or_else(|| format!("{}: was accepted", case.name))?;
    assert!((case.expect)(&e), "{}: unexpected error {e:?}", case.name);
    assert!(!e.to_string().is_empty());
    // Nothing stayed mapped: the whole range maps, and the memory holds what is written.
    let mut whole = range.map::<u32>(0, &memory)?;
    let s = dev.create_stream()?;
    let data: Vec<u32> = (0..whole.len() as u32).collect();
    s.copy_htod(&data, &mut whole)?;
    assert_eq!(s.clone_dtoh(&whole)?, data, "{}", case.name);
    Ok(())
}
