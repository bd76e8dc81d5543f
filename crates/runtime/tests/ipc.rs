//! Memory shared between processes, on every backend, with two real processes: the test binary
//! re-executes itself (`current_exe`, the test's exact name, and `FERROCM_IPC_ROLE` naming the
//! child's part), and the two talk over a Unix-domain socket whose path the child gets in
//! `FERROCM_IPC_SOCKET`. The parent checks what the child wrote against an f64 host reference
//! and the child checks what the parent wrote, so both directions of sharing are tested. A table
//! of misuse cases checks the errors for handles that cannot be received or imported.

mod common;

use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Rng, TestResult};
use ferrocm_runtime::{
    builtin, AsDeviceSlice, BackendKind, Device, Error, KernelArgs, LaunchConfig, ShareableHandle,
    SharedBuffer, WaitCondition,
};

const ROLE: &str = "FERROCM_IPC_ROLE";
const SOCKET: &str = "FERROCM_IPC_SOCKET";
const TIMEOUT: Duration = Duration::from_secs(120);

/// Elements of the shared buffer: more than one granule, not a whole number of them.
const N: usize = (1 << 20) + 3;
const SEED: u64 = 0x1bc;
const A: f32 = -1.5;

fn role() -> Option<String> {
    std::env::var(ROLE).ok()
}

/// The parent's side of a two-process test: a listening socket and the child it started.
struct Parent {
    path: PathBuf,
    listener: UnixListener,
    child: Child,
}

impl Parent {
    /// Starts this test binary again as the child, running only `test` in role `role`.
    fn spawn(test: &str, role: &str, env: &[(&str, &str)]) -> Result<Parent, Box<dyn std::error::Error>> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "ferrocm-ipc-{}-{}.sock",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path)?;
        listener.set_nonblocking(true)?;
        let mut cmd = Command::new(std::env::current_exe()?);
        cmd.args([test, "--exact", "--nocapture", "--test-threads=1"])
            .env(ROLE, role)
            .env(SOCKET, &path)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = cmd.spawn()?;
        Ok(Parent { path, listener, child })
    }

    /// Waits for the child to connect.
    fn accept(&mut self) -> Result<UnixStream, Box<dyn std::error::Error>> {
        let start = Instant::now();
        loop {
            match self.listener.accept() {
                Ok((s, _)) => {
                    s.set_nonblocking(false)?;
                    s.set_read_timeout(Some(TIMEOUT))?;
                    return Ok(s);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if let Some(status) = self.child.try_wait()? {
                        return Err(format!(
                            "the child exited before connecting ({status}): {}",
                            self.stderr()
                        )
                        .into());
                    }
                    if start.elapsed() > TIMEOUT {
                        return Err("the child did not connect in time".into());
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    fn stderr(&mut self) -> String {
        let mut text = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut text);
        }
        text
    }

    /// Waits for the child to exit successfully.
    fn finish(mut self) -> TestResult {
        let status = self.child.wait()?;
        if !status.success() {
            return Err(format!("the child failed ({status}):\n{}", self.stderr()).into());
        }
        Ok(())
    }
}

impl Drop for Parent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The child's end of the socket.
fn connect() -> Result<UnixStream, Box<dyn std::error::Error>> {
    let s = UnixStream::connect(std::env::var(SOCKET)?)?;
    s.set_read_timeout(Some(TIMEOUT))?;
    Ok(s)
}

fn test_name(case: &str, dev: &Device) -> String {
    format!("{case}::{}", dev.kind().name())
}

/// The values the parent writes: y from a fixed seed.
fn parent_values() -> Vec<f32> {
    Rng::new(SEED).vec_f32(N)
}

/// The child's x, from another seed.
fn child_x() -> Vec<f32> {
    Rng::new(SEED + 1).vec_f32(N)
}

fn axpy(dev: &Device, x: &impl AsDeviceSlice<f32>, y: &impl AsDeviceSlice<f32>, a: f32) -> TestResult {
    let s = dev.create_stream()?;
    let f = builtin::load(dev)?.function("axpy_f32")?;
    let mut args = KernelArgs::new();
    args.push_buffer(x).push_buffer(y).push(y.len() as u64).push(a);
    // SAFETY: axpy_f32(x, y, n, a) over two live n-element buffers.
    unsafe { s.launch(&f, LaunchConfig::for_num_elems(y.len() as u32), &args)? };
    s.synchronize()?;
    Ok(())
}

fn check_close(what: &str, got: &[f32], want: &[f64]) -> TestResult {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if (g as f64 - w).abs() > 1e-5 * (1.0 + w.abs()) {
            return Err(format!("{what}: element {i}: got {g}, want {w}").into());
        }
    }
    Ok(())
}

/// The child of both two-process tests: receives the buffer, checks the parent's values, and
/// (in `share`) adds a * x with a kernel, then reports back.
fn child(dev: &Device, role: &str) -> TestResult {
    let socket = connect()?;
    let handle = ShareableHandle::recv(&socket)?;
    assert_eq!(handle.backend(), dev.kind());
    let shared = SharedBuffer::<f32>::import(dev, &handle)?;
    drop(handle);
    assert_eq!(shared.len(), N);
    let s = dev.create_stream()?;
    assert_eq!(s.clone_dtoh(&shared)?, parent_values(), "the child does not see the parent's values");
    if role == "share" {
        let x = s.clone_htod(&child_x())?;
        axpy(dev, &x, &shared, A)?;
    }
    (&socket).write_all(b"done")?;
    // Wait for the parent to have read the result before the mapping goes away.
    let mut bye = [0u8; 3];
    (&socket).read_exact(&mut bye)?;
    Ok(())
}

/// The child of `streams_of_two_processes_order_through_shared_words`: its stream waits on
/// word 0 of the shared flags before copying the parent's values, then writes its own values
/// and sets word 1 for the parent's stream, all in stream order (the host only checks).
fn memop_child(dev: &Device) -> TestResult {
    let socket = connect()?;
    let mut flags = SharedBuffer::<u64>::import(dev, &ShareableHandle::recv(&socket)?)?;
    let mut data = SharedBuffer::<f32>::import(dev, &ShareableHandle::recv(&socket)?)?;
    let s = dev.create_stream()?;
    let mut seen = dev.alloc::<f32>(N)?;
    s.wait_value(&flags.slice(0..1)?, 1u64, WaitCondition::Geq)?;
    s.copy_dtod(&data, &mut seen)?;
    let x = child_x();
    let mut x_dev = dev.alloc::<f32>(N)?;
    dev.create_stream()?.copy_htod(&x, &mut x_dev)?;
    s.copy_dtod(&x_dev, &mut data)?;
    s.write_value(&mut flags.slice_mut(1..2)?, 2u64)?;
    // The wait is queued before the parent writes anything: tell it so.
    (&socket).write_all(b"wait")?;
    s.synchronize()?;
    assert_eq!(
        s.clone_dtoh(&seen)?,
        parent_values(),
        "the child's stream went on before the parent's values"
    );
    let mut bye = [0u8; 3];
    (&socket).read_exact(&mut bye)?;
    Ok(())
}

conformance! {
    streams_of_two_processes_order_through_shared_words(dev) {
        if role().is_some() {
            return memop_child(dev);
        }
        let name = test_name("streams_of_two_processes_order_through_shared_words", dev);
        let mut parent = Parent::spawn(&name, "memop", &[])?;
        let mut flags = SharedBuffer::<u64>::new(dev, 2)?;
        let mut data = SharedBuffer::<f32>::new(dev, N)?;
        let (s, writer) = (dev.create_stream()?, dev.create_stream()?);
        writer.copy_htod(&[0u64, 0], &mut flags)?;
        writer.copy_htod(&vec![0.0f32; N], &mut data)?;
        let socket = parent.accept()?;
        flags.export()?.send(&socket)?;
        data.export()?.send(&socket)?;
        // This process's stream waits for the child's word 1 before reading what it wrote.
        let mut result = dev.alloc::<f32>(N)?;
        s.wait_value(&flags.slice(1..2)?, 2u64, WaitCondition::Eq)?;
        s.copy_dtod(&data, &mut result)?;
        let mut msg = [0u8; 4];
        (&socket).read_exact(&mut msg).map_err(|e| format!("{e}; child: {}", parent.stderr()))?;
        assert_eq!(&msg, b"wait");
        std::thread::sleep(Duration::from_millis(30));
        assert!(!s.query()?, "the parent's stream went past word 1 before the child set it");
        writer.copy_htod(&parent_values(), &mut data)?;
        writer.write_value(&mut flags.slice_mut(0..1)?, 1u64)?;
        // Not `synchronize`: a child that died would leave the stream blocked for good.
        let start = Instant::now();
        while !s.query()? {
            if let Some(status) = parent.child.try_wait()? {
                let message = format!("the child exited ({status}) before setting word 1: {}", parent.stderr());
                std::mem::forget((s, result, flags, data));
                return Err(message.into());
            }
            if start.elapsed() > TIMEOUT {
                std::mem::forget((s, result, flags, data));
                return Err("the child did not set word 1 in time".into());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(s.clone_dtoh(&result)?, child_x(), "the parent's stream did not see the child's values");
        (&socket).write_all(b"bye")?;
        parent.finish()
    }

    two_processes_share_a_buffer(dev) {
        if let Some(role) = role() {
            return child(dev, &role);
        }
        let mut parent = Parent::spawn(&test_name("two_processes_share_a_buffer", dev), "share", &[])?;
        let mut shared = SharedBuffer::<f32>::new(dev, N)?;
        let s = dev.create_stream()?;
        let y = parent_values();
        s.copy_htod(&y, &mut shared)?;
        let socket = parent.accept()?;
        shared.export()?.send(&socket)?;
        let mut done = [0u8; 4];
        (&socket).read_exact(&mut done).map_err(|e| format!("{e}; child: {}", parent.stderr()))?;
        assert_eq!(&done, b"done");
        // The child's kernel wrote into this process's mapping.
        let want: Vec<f64> = y.iter().zip(child_x()).map(|(&y, x)| y as f64 + A as f64 * x as f64).collect();
        check_close("the parent's view of the child's kernel", &s.clone_dtoh(&shared)?, &want)?;
        (&socket).write_all(b"bye")?;
        parent.finish()
    }

    a_sent_handle_outlives_its_exporter(dev) {
        if let Some(role) = role() {
            return child(dev, &role);
        }
        let mut parent = Parent::spawn(&test_name("a_sent_handle_outlives_its_exporter", dev), "outlive", &[])?;
        let socket = parent.accept()?;
        {
            let mut shared = SharedBuffer::<f32>::new(dev, N)?;
            let s = dev.create_stream()?;
            s.copy_htod(&parent_values(), &mut shared)?;
            let handle = shared.export()?;
            // The buffer (mapping, range, physical memory) goes before the handle is even sent;
            // the descriptor alone keeps the memory.
            drop(shared);
            handle.send(&socket)?;
        }
        let mut done = [0u8; 4];
        (&socket).read_exact(&mut done).map_err(|e| format!("{e}; child: {}", parent.stderr()))?;
        (&socket).write_all(b"bye")?;
        parent.finish()
    }

    devices_of_one_process_share_a_buffer(dev) {
        // Needs two devices of the backend: for CPU devices, in a child started with two.
        let devices = Device::of_kind(dev.kind());
        if devices.len() < 2 {
            if dev.kind() == BackendKind::Cpu && role().is_none() {
                let name = test_name("devices_of_one_process_share_a_buffer", dev);
                let parent = Parent::spawn(&name, "devices", &[("FERROCM_CPU_DEVICES", "2")])?;
                return parent.finish();
            }
            return Ok(());
        }
        let (a, b) = (&devices[0], &devices[1]);
        let mut on_a = SharedBuffer::<u64>::new(a, 100_000)?;
        let on_b = SharedBuffer::<u64>::import(b, &on_a.export()?)?;
        assert_ne!(on_a.device_ptr(), on_b.device_ptr(), "each device maps the memory at its own address");
        let (sa, sb) = (a.create_stream()?, b.create_stream()?);
        let data: Vec<u64> = (0..100_000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        sa.copy_htod(&data, &mut on_a)?;
        assert_eq!(sb.clone_dtoh(&on_b)?, data);
        Ok(())
    }

    handles_that_cannot_be_received_or_imported(dev) {
        for case in MISUSE {
            check(dev, case)?;
        }
        Ok(())
    }
}

/// What a misuse case hands to the receiving side.
enum Input {
    /// Bytes written to the socket (no descriptor), then the writer closes.
    Bytes(Vec<u8>),
    /// A handle built by `ShareableHandle::from_fd` and imported directly.
    Handle(ShareableHandle),
}

/// One handle that must be refused.
struct Misuse {
    name: &'static str,
    make: fn(&Device) -> Result<Input, Box<dyn std::error::Error>>,
    expect: fn(&Error) -> bool,
}

fn header(magic: &[u8; 8], backend: u32, size: u64, shared: u64) -> Vec<u8> {
    let mut h = magic.to_vec();
    h.extend_from_slice(&backend.to_le_bytes());
    h.extend_from_slice(&[0; 4]);
    h.extend_from_slice(&size.to_le_bytes());
    h.extend_from_slice(&shared.to_le_bytes());
    h
}

fn exported(dev: &Device) -> Result<ShareableHandle, Box<dyn std::error::Error>> {
    Ok(SharedBuffer::<u32>::new(dev, 1000)?.export()?)
}

fn reason(e: &Error, needle: &str) -> bool {
    matches!(e, Error::InvalidShareableHandle { reason } if reason.contains(needle))
}

const MISUSE: &[Misuse] = &[
    Misuse {
        name: "receiving from a connection closed before a handle was sent",
        make: |_| Ok(Input::Bytes(Vec::new())),
        expect: |e| matches!(e, Error::Ipc { reason, .. } if reason.contains("closed the connection")),
    },
    Misuse {
        name: "a message that is not a handle",
        make: |_| Ok(Input::Bytes(vec![0x42; 32])),
        expect: |e| reason(e, "bad magic"),
    },
    Misuse {
        name: "a handle's header without its descriptor",
        make: |d| {
            let g = d.allocation_granularity()?;
            Ok(Input::Bytes(header(b"FRCMIPC1", if d.kind() == BackendKind::Cpu { 1 } else { 2 }, g, g)))
        },
        expect: |e| reason(e, "no file descriptor"),
    },
    Misuse {
        name: "a header cut short",
        make: |_| Ok(Input::Bytes(b"FRCMIPC1\x01\0".to_vec())),
        expect: |e| matches!(e, Error::Ipc { reason, .. } if reason.contains("inside a handle's header")),
    },
    Misuse {
        name: "a descriptor that is not exported memory",
        make: |d| {
            let g = d.allocation_granularity()?;
            let file = std::fs::File::open("/dev/null")?;
            Ok(Input::Handle(ShareableHandle::from_fd(OwnedFd::from(file), d.kind(), g, g)))
        },
        expect: |e| matches!(e, Error::InvalidShareableHandle { .. }),
    },
    Misuse {
        name: "a handle that claims more memory than was exported",
        make: |d| {
            let h = exported(d)?;
            let size = h.size() * 2;
            Ok(Input::Handle(ShareableHandle::from_fd(OwnedFd::from(h), d.kind(), size, size)))
        },
        expect: |e| matches!(e, Error::InvalidShareableHandle { .. }),
    },
    Misuse {
        name: "a handle of memory from another backend",
        make: |d| {
            let h = exported(d)?;
            let other = if d.kind() == BackendKind::Cpu { BackendKind::Cuda } else { BackendKind::Cpu };
            let (size, shared) = (h.size(), h.shared_bytes());
            Ok(Input::Handle(ShareableHandle::from_fd(OwnedFd::from(h), other, size, shared)))
        },
        expect: |e| reason(e, "cannot be imported on device"),
    },
    Misuse {
        name: "a size that is not a multiple of the granularity",
        make: |d| {
            let h = exported(d)?;
            Ok(Input::Handle(ShareableHandle::from_fd(OwnedFd::from(h), d.kind(), 4096, 4096)))
        },
        expect: |e| reason(e, "granularity"),
    },
    Misuse {
        name: "shared bytes that are not a whole number of elements",
        make: |d| {
            let h = exported(d)?;
            let size = h.size();
            Ok(Input::Handle(ShareableHandle::from_fd(OwnedFd::from(h), d.kind(), size, 6)))
        },
        expect: |e| reason(e, "4-byte elements"),
    },
];

fn check(dev: &Device, case: &Misuse) -> TestResult {
    let e = match (case.make)(dev)? {
        Input::Bytes(bytes) => {
            let (tx, rx) = UnixStream::pair()?;
            (&tx).write_all(&bytes)?;
            drop(tx);
            ShareableHandle::recv(&rx).err()
        }
        Input::Handle(h) => SharedBuffer::<u32>::import(dev, &h).err(),
    };
    let e = e.ok_or_else(|| format!("{}: was accepted", case.name))?;
    assert!((case.expect)(&e), "{}: unexpected error {e:?}", case.name);
    Ok(())
}
