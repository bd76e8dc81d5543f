//! The runtime's part of the misuse suite: a table of wrong calls, each checked for the error
//! kind it returns and that nothing was written (the buffers the call could have touched are
//! poisoned first and compared afterwards). Runs on every backend present.

mod common;

use common::TestResult;
use ferrocm_runtime::{
    builtin, AsDeviceSlice, Device, DeviceBuffer, Dim3, Error, Event, EventFlags, Function, HostBuffer,
    KernelArgs, LaunchConfig, ModuleImage, Stream, StreamWord, TensorMap, TiledLayout, WaitCondition,
};

const POISON: u8 = 0xAB;
const N: usize = 1000;

/// What a case may touch: a poisoned device buffer, a poisoned host vector, the built-in kernels.
struct Ctx {
    dev: Device,
    s: Stream,
    buf: DeviceBuffer<f32>,
    host: Vec<f32>,
    axpy: Function,
    empty: Function,
    /// Another device (of any backend): the table always runs with one (see `misuse_cpu`).
    other: Device,
}

struct Case {
    name: &'static str,
    run: fn(&mut Ctx) -> ferrocm_runtime::Result<()>,
    expect: fn(&Error) -> bool,
}

fn poisoned() -> f32 {
    f32::from_bits(u32::from_ne_bytes([POISON; 4]))
}

fn launch(c: &mut Ctx, f: &Function, cfg: LaunchConfig) -> ferrocm_runtime::Result<()> {
    let mut args = KernelArgs::new();
    if f.name() == "axpy_f32" {
        args.push_buffer(&c.buf).push_buffer(&c.buf).push(N as u64).push(2.0f32);
    }
    // SAFETY: the arguments match the kernel (axpy over the N-element buffer, or none).
    unsafe { c.s.launch(f, cfg, &args) }
}

fn axpy_with(c: &mut Ctx, cfg: LaunchConfig) -> ferrocm_runtime::Result<()> {
    let f = c.axpy.clone();
    launch(c, &f, cfg)
}

fn empty_with(c: &mut Ctx, cfg: LaunchConfig) -> ferrocm_runtime::Result<()> {
    let f = c.empty.clone();
    launch(c, &f, cfg)
}

const CASES: &[Case] = &[
    Case {
        name: "host-to-device copy from a shorter slice",
        run: |c| c.s.copy_htod(&[1.0; N - 1], &mut c.buf),
        expect: |e| matches!(e, Error::LengthMismatch { destination: N, source_len: 999, .. }),
    },
    Case {
        name: "host-to-device copy from a longer slice",
        run: |c| c.s.copy_htod(&[1.0; N + 1], &mut c.buf),
        expect: |e| matches!(e, Error::LengthMismatch { .. }),
    },
    Case {
        name: "device-to-host copy into a shorter slice",
        run: |c| c.s.copy_dtoh(&c.buf, &mut c.host[..N - 1]),
        expect: |e| matches!(e, Error::LengthMismatch { .. }),
    },
    Case {
        name: "device-to-device copy between different lengths",
        run: |c| {
            let src = c.s.alloc::<f32>(N + 1)?;
            c.s.copy_dtod(&src, &mut c.buf)
        },
        expect: |e| matches!(e, Error::LengthMismatch { .. }),
    },
    Case {
        name: "copy into a view past the end",
        run: |c| c.buf.slice_mut(N - 10..N + 1).map(|_| ()),
        expect: |e| matches!(e, Error::OutOfRange { start: 990, end: 1001, len: N }),
    },
    Case {
        name: "a reversed view range",
        #[allow(clippy::reversed_empty_ranges)]
        run: |c| c.buf.slice(10..5).map(|_| ()),
        expect: |e| matches!(e, Error::OutOfRange { .. }),
    },
    Case {
        name: "a view whose inclusive end overflows",
        run: |c| c.buf.slice(0..=usize::MAX).map(|_| ()),
        expect: |e| matches!(e, Error::OutOfRange { .. }),
    },
    Case {
        name: "pooled allocation of zero elements",
        run: |c| c.s.alloc::<f32>(0).map(|_| ()),
        expect: |e| matches!(e, Error::ZeroSizedAllocation),
    },
    Case {
        name: "device allocation of zero elements",
        run: |c| c.dev.alloc::<u8>(0).map(|_| ()),
        expect: |e| matches!(e, Error::ZeroSizedAllocation),
    },
    Case {
        name: "an allocation whose byte size overflows",
        run: |c| c.s.alloc::<u64>(usize::MAX).map(|_| ()),
        expect: |e| matches!(e, Error::AllocationTooLarge { .. }),
    },
    Case {
        name: "an allocation larger than the device",
        run: |c| c.dev.alloc::<u8>(c.dev.properties().total_memory as usize + 1).map(|_| ()),
        expect: |e| matches!(e, Error::AllocationTooLarge { .. }),
    },
    Case {
        name: "pinned allocation of zero elements",
        run: |c| HostBuffer::<u32>::new(&c.dev, 0).map(|_| ()),
        expect: |e| matches!(e, Error::ZeroSizedAllocation),
    },
    Case {
        name: "a grid with zero blocks",
        run: |c| axpy_with(c, LaunchConfig::new(0, 256)),
        expect: |e| matches!(e, Error::EmptyLaunch { what: "grid.x" }),
    },
    Case {
        name: "a block with zero threads in y",
        run: |c| axpy_with(c, LaunchConfig::new(4, (256, 0))),
        expect: |e| matches!(e, Error::EmptyLaunch { what: "block.y" }),
    },
    Case {
        name: "a block of 2048 threads",
        run: |c| axpy_with(c, LaunchConfig::new(1, 2048)),
        expect: |e| matches!(e, Error::LaunchTooLarge { what: "block.x" | "threads per block", .. }),
    },
    Case {
        name: "a block of 32 x 32 x 2 threads",
        run: |c| axpy_with(c, LaunchConfig::new(1, (32, 32, 2))),
        expect: |e| matches!(e, Error::LaunchTooLarge { what: "threads per block", requested: 2048, .. }),
    },
    Case {
        name: "block.z over 64",
        run: |c| axpy_with(c, LaunchConfig::new(1, (1, 1, 65))),
        expect: |e| matches!(e, Error::LaunchTooLarge { what: "block.z", requested: 65, max: 64 }),
    },
    Case {
        name: "grid.y over 65535",
        run: |c| axpy_with(c, LaunchConfig::new((1, 65536), 32)),
        expect: |e| matches!(e, Error::LaunchTooLarge { what: "grid.y", requested: 65536, .. }),
    },
    Case {
        name: "dynamic shared memory over the opt-in limit",
        run: |c| axpy_with(c, LaunchConfig::new(4, 256).with_shared_mem(u32::MAX)),
        expect: |e| matches!(e, Error::LaunchTooLarge { what: "dynamic shared memory bytes", .. }),
    },
    Case {
        name: "a cluster that does not divide the grid",
        run: |c| axpy_with(c, LaunchConfig::new(5, 256).with_cluster(2)),
        expect: |e| matches!(e, Error::InvalidLaunch { .. } | Error::Unsupported { .. }),
    },
    Case {
        name: "a cluster of 16 blocks",
        run: |c| axpy_with(c, LaunchConfig::new(16, 256).with_cluster(16)),
        expect: |e| {
            matches!(e, Error::LaunchTooLarge { what: "blocks per cluster", .. } | Error::Unsupported { .. })
        },
    },
    Case {
        name: "a cluster with a zero dimension",
        run: |c| axpy_with(c, LaunchConfig::new(4, 256).with_cluster((2, 0, 1))),
        expect: |e| matches!(e, Error::EmptyLaunch { .. } | Error::Unsupported { .. }),
    },
    Case {
        name: "a cooperative grid too large to be resident",
        run: |c| axpy_with(c, LaunchConfig::new(1 << 20, 1024).cooperative()),
        expect: |e| matches!(e, Error::InvalidLaunch { .. }),
    },
    Case {
        name: "a launch both cooperative and clustered",
        run: |c| empty_with(c, LaunchConfig::new(2, 32).with_cluster(2).cooperative()),
        expect: |e| matches!(e, Error::InvalidLaunch { .. } | Error::Unsupported { .. }),
    },
    Case {
        name: "a kernel name the module lacks",
        run: |c| builtin::load(&c.dev)?.function("no_such_kernel").map(|_| ()),
        expect: |e| e.to_string().contains("no kernel named `no_such_kernel`"),
    },
    Case {
        name: "a module image for the other backend",
        run: |c| {
            let image = match c.dev.kind() {
                ferrocm_runtime::BackendKind::Cpu => ModuleImage::Ptx(builtin::PTX.into()),
                _ => builtin::image(ferrocm_runtime::BackendKind::Cpu),
            };
            c.dev.load_module(image).map(|_| ())
        },
        expect: |e| matches!(e, Error::ModuleTarget { .. }),
    },
    Case {
        name: "a device index past the end",
        run: |_| Device::get(9999).map(|_| ()),
        expect: |e| matches!(e, Error::InvalidDevice { index: 9999, .. }),
    },
    Case {
        name: "elapsed time of events never recorded",
        run: |c| {
            let (a, b) = (Event::new(&c.dev)?, Event::new(&c.dev)?);
            a.elapsed_ms(&b).map(|_| ())
        },
        expect: |e| matches!(e, Error::EventNotReady { .. } | Error::Backend { .. }),
    },
    Case {
        name: "elapsed time of events created without timing",
        run: |c| {
            let flags = EventFlags { timing: false, blocking_sync: false };
            let (a, b) = (Event::with_flags(&c.dev, flags)?, Event::with_flags(&c.dev, flags)?);
            a.record(&c.s)?;
            b.record(&c.s)?;
            c.s.synchronize()?;
            a.elapsed_ms(&b).map(|_| ())
        },
        expect: |e| matches!(e, Error::EventNotReady { .. } | Error::Backend { .. }),
    },
    Case {
        name: "peer access to the device itself",
        run: |c| c.dev.enable_peer_access(&c.dev),
        expect: |e| matches!(e, Error::PeerAccessUnsupported { .. }),
    },
    Case {
        name: "a tensor map of rank 0",
        run: |c| TensorMap::tiled(&c.buf, &TiledLayout::new(&[], &[])).map(|_| ()),
        expect: |e| matches!(e, Error::InvalidTensorMap { .. } | Error::Unsupported { .. }),
    },
    Case {
        name: "a tensor map larger than its buffer",
        run: |c| TensorMap::tiled(&c.buf, &TiledLayout::new(&[N as u64 + 4], &[4])).map(|_| ()),
        expect: |e| matches!(e, Error::InvalidTensorMap { .. } | Error::Unsupported { .. }),
    },
    Case {
        name: "a stream memory wait on a misaligned word",
        run: |c| c.s.wait_value_raw(c.buf.device_ptr().0 + 2, StreamWord::U32(0), WaitCondition::Geq),
        expect: |e| matches!(e, Error::InvalidAddress { reason, .. } if reason.contains("aligned to 4 bytes")),
    },
    Case {
        name: "a stream memory write to a misaligned 64-bit word",
        run: |c| c.s.write_value_raw(c.buf.device_ptr().0 + 4, StreamWord::U64(7)),
        expect: |e| matches!(e, Error::InvalidAddress { reason, .. } if reason.contains("aligned to 8 bytes")),
    },
    Case {
        name: "a stream memory write to freed memory",
        run: |c| {
            let freed = c.dev.alloc::<u32>(64)?;
            let address = freed.device_ptr().0;
            drop(freed);
            c.s.write_value_raw(address, StreamWord::U32(7))
        },
        expect: |e| matches!(e, Error::InvalidAddress { reason, .. } if reason.contains("not a live device allocation")),
    },
    Case {
        name: "a stream memory write past the end of an allocation",
        run: |c| {
            let words = c.dev.alloc::<u32>(16)?;
            c.s.write_value_raw(words.device_ptr().0 + 64, StreamWord::U32(7))
        },
        expect: |e| matches!(e, Error::InvalidAddress { .. }),
    },
    Case {
        name: "a stream memory wait on a view of two words",
        run: |c| {
            let view = c.buf.slice(0..2)?.reinterpret::<u32>()?;
            c.s.wait_value(&view, 0u32, WaitCondition::Geq)
        },
        expect: |e| matches!(e, Error::InvalidAddress { reason, .. } if reason.contains("one word")),
    },
    Case {
        name: "a stream memory write to managed memory",
        run: |c| {
            let mut m = c.dev.alloc_managed::<u32>(1)?;
            c.s.write_value(&mut m, 7u32)
        },
        expect: |e| matches!(e, Error::InvalidAddress { reason, .. } if reason.contains("managed memory")),
    },
    Case {
        name: "a stream memory write to a word of another device",
        run: |c| {
            let other = c.other.clone();
            let mut word = other.alloc::<u32>(1)?;
            c.s.write_value(&mut word, 7u32)
        },
        expect: |e| matches!(e, Error::DeviceMismatch { what: "memory word", .. }),
    },
    Case {
        name: "a stream memory wait on a word of another device, by address",
        run: |c| {
            let other = c.other.clone();
            let word = other.alloc::<u32>(1)?;
            c.s.wait_value_raw(word.device_ptr().0, StreamWord::U32(0), WaitCondition::Geq)
        },
        expect: |e| matches!(e, Error::DeviceMismatch { what: "memory word", .. }),
    },
    Case {
        name: "a grid over the x limit",
        run: |c| axpy_with(c, LaunchConfig::new(Dim3::new(u32::MAX, 1, 1), 32)),
        expect: |e| matches!(e, Error::LaunchTooLarge { what: "grid.x", .. }),
    },
];

fn check_all(dev: &Device) -> TestResult {
    let s = dev.create_stream()?;
    let module = builtin::load(dev)?;
    let other = Device::all()?.into_iter().find(|d| d != dev).ok_or("the table needs a second device")?;
    let mut c = Ctx {
        other,
        dev: dev.clone(),
        buf: s.alloc::<f32>(N)?,
        host: vec![poisoned(); N],
        axpy: module.function("axpy_f32")?,
        empty: module.function("empty")?,
        s,
    };
    for case in CASES {
        c.s.memset_bytes(&mut c.buf, POISON)?;
        c.host = vec![poisoned(); N];
        let e = match (case.run)(&mut c) {
            Ok(()) => return Err(format!("{}: accepted", case.name).into()),
            Err(e) => e,
        };
        if !(case.expect)(&e) {
            return Err(format!("{}: unexpected error {e:?} ({e})", case.name).into());
        }
        c.s.synchronize()?;
        let after = c.s.clone_dtoh(&c.buf)?;
        if after.iter().any(|v| v.to_bits() != poisoned().to_bits()) {
            return Err(format!("{}: the device buffer was written", case.name).into());
        }
        if c.host.iter().any(|v| v.to_bits() != poisoned().to_bits()) {
            return Err(format!("{}: the host buffer was written", case.name).into());
        }
    }
    assert!(CASES.len() >= 30);
    Ok(())
}

/// Runs the table on the first CPU device. With no second device in this process (one CPU
/// device, no GPU), the table runs in a child of this binary started with two CPU devices, so
/// the rows about another device's memory always run.
#[test]
fn misuse_cpu() {
    let alone = Device::all().map(|d| d.len() < 2).unwrap_or(false);
    if alone {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["misuse_cpu", "--exact", "--test-threads=1"])
            .env("FERROCM_CPU_DEVICES", "2")
            .status()
            .unwrap();
        assert!(status.success(), "the misuse table with two CPU devices failed: {status}");
        return;
    }
    common::on_backend(ferrocm_runtime::BackendKind::Cpu, check_all);
}

#[test]
fn misuse_cuda() {
    common::on_backend(ferrocm_runtime::BackendKind::Cuda, check_all);
}
