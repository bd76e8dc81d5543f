//! Device memory as Python sees it: a [`Buffer`] is a byte range on one device, owned by ferrocm
//! (pooled on a stream) or borrowed from another library through DLPack. `ferrocm.Array` views
//! buffers with a shape, a dtype and strides.

use std::sync::{Arc, Mutex, MutexGuard};

use ferrocm::{AsDeviceSlice, Device, DeviceBuffer, DeviceSlice, DeviceSliceMut, ExternalBuffer, Stream};
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::device::{current, resolve, PyDevice, PyStream};
use crate::dlpack::{self, DLDataType, Imported};
use crate::errors::{runtime, value};

pub enum Storage {
    Owned(DeviceBuffer<u8>),
    /// Another library's memory; the import (if any) is released after the buffer's own drop
    /// has waited for ferrocm's work (fields drop in order).
    External(ExternalBuffer<u8>, Option<Imported>),
}

impl Storage {
    fn slice(&self, start: usize, len: usize) -> ferrocm::Result<DeviceSlice<'_, u8>> {
        match self {
            Storage::Owned(b) => b.slice(start..start + len),
            Storage::External(b, _) => b.slice(start..start + len),
        }
    }

    fn slice_mut(&mut self, start: usize, len: usize) -> ferrocm::Result<DeviceSliceMut<'_, u8>> {
        match self {
            Storage::Owned(b) => b.slice_mut(start..start + len),
            Storage::External(b, _) => b.slice_mut(start..start + len),
        }
    }
}

/// A range of device memory (bytes).
#[pyclass(name = "Buffer", module = "ferrocm._native", frozen)]
pub struct Buffer {
    storage: Arc<Mutex<Storage>>,
    device: Device,
    nbytes: usize,
    ptr: u64,
    /// Imported from a producer that marked it read-only: writes through ferrocm are refused.
    readonly: bool,
}

fn lock(m: &Mutex<Storage>) -> MutexGuard<'_, Storage> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn stream_for(device: &Device, stream: Option<&PyStream>) -> PyResult<Stream> {
    match stream {
        Some(s) => {
            if s.stream.device() != device {
                return Err(value(format!(
                    "the stream belongs to device {}, the buffer to device {}",
                    s.stream.device().index(),
                    device.index()
                )));
            }
            Ok(s.stream.clone())
        }
        None => current(device),
    }
}

fn range(nbytes: usize, offset: usize, len: usize, what: &str) -> PyResult<()> {
    match offset.checked_add(len) {
        Some(end) if end <= nbytes => Ok(()),
        _ => Err(value(format!(
            "{what}: bytes {offset}..{offset}+{len} are outside the buffer of {nbytes} bytes"
        ))),
    }
}

impl Buffer {
    pub fn from_storage(device: Device, storage: Storage, nbytes: usize, ptr: u64) -> Buffer {
        Buffer { storage: Arc::new(Mutex::new(storage)), device, nbytes, ptr, readonly: false }
    }

    pub fn set_readonly(&mut self, readonly: bool) {
        self.readonly = readonly;
    }

    fn writable(&self, what: &str) -> PyResult<()> {
        if self.readonly {
            return Err(value(format!("{what}: the array is read-only (its producer exported it so)")));
        }
        Ok(())
    }

    /// Runs `f` on a writable view of `len` bytes at `offset`.
    pub fn with_slice<R>(
        &self,
        offset: usize,
        len: usize,
        f: impl FnOnce(&mut DeviceSliceMut<'_, u8>) -> R,
    ) -> PyResult<R> {
        self.writable("writing")?;
        range(self.nbytes, offset, len, "buffer access")?;
        let mut st = lock(&self.storage);
        let mut view = st.slice_mut(offset, len).map_err(runtime)?;
        Ok(f(&mut view))
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The address of the first byte (as the `ptr` attribute).
    pub fn device_address(&self) -> u64 {
        self.ptr
    }
}

#[pymethods]
impl Buffer {
    /// `nbytes` bytes of device memory from the stream-ordered pool of `stream` (default: the
    /// device's current stream). The contents are unspecified.
    #[staticmethod]
    #[pyo3(signature = (nbytes, device = None, stream = None))]
    fn alloc(
        nbytes: usize,
        device: Option<&Bound<'_, PyAny>>,
        stream: Option<&PyStream>,
    ) -> PyResult<Buffer> {
        let device = match (device, stream) {
            (None, Some(s)) => s.stream.device().clone(),
            (d, _) => resolve(d)?,
        };
        let s = stream_for(&device, stream)?;
        // A zero-byte array still gets a (one-byte) allocation, so every buffer has an address.
        let b = s.alloc::<u8>(nbytes.max(1)).map_err(runtime)?;
        let ptr = ferrocm::AsDeviceSlice::device_ptr(&b).0;
        Ok(Buffer::from_storage(device, Storage::Owned(b), nbytes, ptr))
    }

    #[getter]
    fn nbytes(&self) -> usize {
        self.nbytes
    }

    /// The address of the first byte (a device address on GPUs, a host address on the CPU).
    #[getter]
    fn ptr(&self) -> u64 {
        self.ptr
    }

    #[getter(device)]
    fn py_device(&self) -> PyDevice {
        PyDevice::new(self.device.clone())
    }

    /// Whether writes through ferrocm are refused (a read-only import).
    #[getter]
    fn readonly(&self) -> bool {
        self.readonly
    }

    /// Whether the memory is borrowed from another library.
    #[getter]
    fn borrowed(&self) -> bool {
        matches!(*lock(&self.storage), Storage::External(..))
    }

    /// Copies the bytes of `data` (a C-contiguous buffer) to `offset` and waits for the copy.
    #[pyo3(signature = (offset, data, stream = None))]
    fn write(
        &self,
        py: Python<'_>,
        offset: usize,
        data: &Bound<'_, PyAny>,
        stream: Option<&PyStream>,
    ) -> PyResult<()> {
        self.writable("write")?;
        let src = PyBuffer::<u8>::get(data)?;
        if !src.is_c_contiguous() {
            return Err(value("write: the source must be C-contiguous bytes"));
        }
        let s = stream_for(&self.device, stream)?;
        let len = src.len_bytes();
        let ptr = src.buf_ptr() as usize;
        let storage = Arc::clone(&self.storage);
        range(self.nbytes, offset, len, "write")?;
        py.detach(move || {
            // SAFETY: `src` (held by the caller for the whole call) exposes `len` readable bytes.
            let host = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
            let mut st = lock(&storage);
            let mut view = st.slice_mut(offset, len)?;
            s.copy_htod(host, &mut view)
        })
        .map_err(runtime)?;
        drop(src);
        Ok(())
    }

    /// Copies `len(out)` bytes from `offset` into `out` (a writable C-contiguous buffer) and
    /// waits for the copy.
    #[pyo3(signature = (offset, out, stream = None))]
    fn read(
        &self,
        py: Python<'_>,
        offset: usize,
        out: &Bound<'_, PyAny>,
        stream: Option<&PyStream>,
    ) -> PyResult<()> {
        let dst = PyBuffer::<u8>::get(out)?;
        if dst.readonly() || !dst.is_c_contiguous() {
            return Err(value("read: the destination must be writable C-contiguous bytes"));
        }
        let s = stream_for(&self.device, stream)?;
        let len = dst.len_bytes();
        let ptr = dst.buf_ptr() as usize;
        let storage = Arc::clone(&self.storage);
        range(self.nbytes, offset, len, "read")?;
        py.detach(move || {
            // SAFETY: `dst` (held for the whole call) exposes `len` writable bytes.
            let host = unsafe { std::slice::from_raw_parts_mut(ptr as *mut u8, len) };
            let mut st = lock(&storage);
            let view = st.slice_mut(offset, len)?;
            s.copy_dtoh(&view, host)
        })
        .map_err(runtime)?;
        drop(dst);
        Ok(())
    }

    /// Sets `nbytes` bytes at `offset` to `value`, in stream order.
    #[pyo3(signature = (value, offset, nbytes, stream = None))]
    fn fill(&self, value: u8, offset: usize, nbytes: usize, stream: Option<&PyStream>) -> PyResult<()> {
        let s = stream_for(&self.device, stream)?;
        self.with_slice(offset, nbytes, |v| s.memset_bytes(v, value))?.map_err(runtime)
    }

    /// Copies `nbytes` bytes from `src` at `src_offset` to this buffer at `offset`, in stream
    /// order (across devices where peer access is enabled).
    #[pyo3(signature = (offset, src, src_offset, nbytes, stream = None))]
    fn copy_from(
        &self,
        offset: usize,
        src: &Buffer,
        src_offset: usize,
        nbytes: usize,
        stream: Option<&PyStream>,
    ) -> PyResult<()> {
        self.writable("copy")?;
        let s = stream_for(&self.device, stream)?;
        range(src.nbytes, src_offset, nbytes, "copy source")?;
        range(self.nbytes, offset, nbytes, "copy destination")?;
        if nbytes == 0 {
            return Ok(());
        }
        if Arc::ptr_eq(&self.storage, &src.storage) {
            // One lock: copy through the same storage.
            let mut st = lock(&self.storage);
            let tmp = s.alloc::<u8>(nbytes).map_err(runtime)?;
            let mut tmp = tmp;
            {
                let from = st.slice_mut(src_offset, nbytes).map_err(runtime)?;
                s.copy_dtod(&from, &mut tmp).map_err(runtime)?;
            }
            let mut to = st.slice_mut(offset, nbytes).map_err(runtime)?;
            return s.copy_dtod(&tmp, &mut to).map_err(runtime);
        }
        let mut from_st = lock(&src.storage);
        let from = from_st.slice_mut(src_offset, nbytes).map_err(runtime)?;
        let mut to_st = lock(&self.storage);
        let mut to = to_st.slice_mut(offset, nbytes).map_err(runtime)?;
        s.copy_dtod(&from, &mut to).map_err(runtime)
    }

    /// Exports the region that starts `byte_offset` bytes in as a DLPack capsule with the given
    /// shape, strides (in elements) and dtype (code, bits, lanes), keeping `owner` alive until
    /// the consumer deletes it. Pending work on the buffer's device is waited for first, so the
    /// consumer sees it whatever stream it uses.
    #[pyo3(signature = (owner, byte_offset, shape, strides, dtype, versioned = false))]
    #[allow(clippy::too_many_arguments)]
    fn to_dlpack<'py>(
        &self,
        py: Python<'py>,
        owner: Py<PyAny>,
        byte_offset: usize,
        shape: Vec<i64>,
        strides: Vec<i64>,
        dtype: (u8, u8, u16),
        versioned: bool,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        if byte_offset > self.nbytes {
            return Err(value("to_dlpack: offset outside the buffer"));
        }
        let d = self.device.clone();
        py.detach(move || d.synchronize()).map_err(runtime)?;
        let (code, bits, lanes) = dtype;
        dlpack::export(
            py,
            owner,
            &self.device,
            self.ptr + byte_offset as u64,
            shape,
            strides,
            DLDataType { code, bits, lanes },
            versioned,
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "<ferrocm._native.Buffer {} bytes at {:#x} on device {}>",
            self.nbytes,
            self.ptr,
            self.device.index()
        )
    }
}

/// Runs `f` on the whole of `buf` from `offset` as a typed writable view of `count` elements.
pub fn typed<T: ferrocm::DeviceRepr, R>(
    buf: &Buffer,
    offset: usize,
    count: usize,
    f: impl FnOnce(&mut DeviceSliceMut<'_, T>) -> R,
) -> PyResult<R> {
    let bytes =
        count.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| value("element count overflows"))?;
    buf.writable("writing")?;
    range(buf.nbytes, offset, bytes, "typed view")?;
    let mut st = lock(&buf.storage);
    let view = st.slice_mut(offset, bytes).map_err(runtime)?;
    let mut typed = view.reinterpret::<T>().map_err(runtime)?;
    Ok(f(&mut typed))
}

/// A byte region of a buffer a library call reads or writes: (buffer, offset, length).
pub type Region<'a> = (&'a Buffer, usize, usize);

/// Runs `f` on read-only views of `inputs` and a writable view of `output` (byte regions),
/// holding each buffer's lock once (in address order, so concurrent calls cannot deadlock).
/// Inputs may share a buffer with each other; the output must not share one with any input
/// (a library call's result would overwrite what it reads): that is a `ValueError` naming
/// `names[i]` (the input's argument name) and `out_name`.
pub fn read_write<R>(
    inputs: &[Region<'_>],
    names: &[&str],
    output: Region<'_>,
    out_name: &str,
    f: impl FnOnce(&[DeviceSlice<'_, u8>], &mut DeviceSliceMut<'_, u8>) -> R,
) -> PyResult<R> {
    let (out, out_off, out_len) = output;
    out.writable(out_name)?;
    range(out.nbytes, out_off, out_len, out_name)?;
    for (i, &(b, off, len)) in inputs.iter().enumerate() {
        let name = names.get(i).copied().unwrap_or("input");
        range(b.nbytes, off, len, name)?;
        if Arc::ptr_eq(&b.storage, &out.storage) {
            return Err(value(format!(
                "{out_name} shares memory with {name}: pass an output that does not overlap the inputs"
            )));
        }
    }
    let mut storages: Vec<&Arc<Mutex<Storage>>> = inputs.iter().map(|(b, _, _)| &b.storage).collect();
    storages.push(&out.storage);
    storages.sort_by_key(|s| Arc::as_ptr(s) as usize);
    storages.dedup_by(|a, b| Arc::ptr_eq(a, b));
    let mut guards: Vec<(usize, MutexGuard<'_, Storage>)> =
        storages.iter().map(|s| (Arc::as_ptr(s) as usize, lock(s))).collect();
    let out_key = Arc::as_ptr(&out.storage) as usize;
    let at = guards.iter().position(|(k, _)| *k == out_key).expect("the output's storage was locked");
    let (_, mut out_guard) = guards.swap_remove(at);
    let mut views = Vec::with_capacity(inputs.len());
    for &(b, off, len) in inputs {
        let key = Arc::as_ptr(&b.storage) as usize;
        let g = &guards.iter().find(|(k, _)| *k == key).expect("every input's storage was locked").1;
        views.push(g.slice(off, len).map_err(runtime)?);
    }
    let mut out_view = out_guard.slice_mut(out_off, out_len).map_err(runtime)?;
    Ok(f(&views, &mut out_view))
}
/// Runs `f` on a writable view of one region (an in-place operation).
pub fn write_one<R>(
    region: Region<'_>,
    name: &str,
    f: impl FnOnce(&mut DeviceSliceMut<'_, u8>) -> R,
) -> PyResult<R> {
    let (b, off, len) = region;
    b.writable(name)?;
    range(b.nbytes, off, len, name)?;
    let mut st = lock(&b.storage);
    let mut view = st.slice_mut(off, len).map_err(runtime)?;
    Ok(f(&mut view))
}

/// Runs `f` on a read-only view of one region (no write check: a read-only import is fine).
pub fn read_only<R>(
    b: &Buffer,
    off: usize,
    len: usize,
    name: &str,
    f: impl FnOnce(DeviceSlice<'_, u8>) -> R,
) -> PyResult<R> {
    range(b.nbytes, off, len, name)?;
    let st = lock(&b.storage);
    let view = st.slice(off, len).map_err(runtime)?;
    Ok(f(view))
}

fn overlap(a: (usize, usize), b: (usize, usize)) -> bool {
    a.1 > 0 && b.1 > 0 && a.0 < b.0 + b.1 && b.0 < a.0 + a.1
}

/// Runs `f` on read-only views of `reads` and writable views of `writes` (byte regions; any
/// number of regions of one buffer), holding each buffer's lock once (in address order, so
/// concurrent calls cannot deadlock). Regions read may overlap each other; a region written
/// must not overlap any other region, read or written: that is a `ValueError` naming both
/// (`read_names[i]`, `write_names[j]`). Nothing runs when a check fails.
pub fn regions<R>(
    reads: &[Region<'_>],
    read_names: &[String],
    writes: &[Region<'_>],
    write_names: &[String],
    f: impl FnOnce(&[DeviceSlice<'_, u8>], &mut [DeviceSliceMut<'_, u8>]) -> R,
) -> PyResult<R> {
    let name = |names: &[String], i: usize| names.get(i).cloned().unwrap_or_else(|| format!("region {i}"));
    for (i, &(b, off, len)) in reads.iter().enumerate() {
        range(b.nbytes, off, len, &name(read_names, i))?;
    }
    for (j, &(b, off, len)) in writes.iter().enumerate() {
        let wname = name(write_names, j);
        b.writable(&wname)?;
        range(b.nbytes, off, len, &wname)?;
        let clash = |other: &Region<'_>| {
            Arc::ptr_eq(&b.storage, &other.0.storage) && overlap((off, len), (other.1, other.2))
        };
        if let Some(i) = reads.iter().position(clash) {
            return Err(value(format!(
                "{wname} overlaps {}: a region written must not share memory with one read",
                name(read_names, i)
            )));
        }
        if let Some(k) = writes[j + 1..].iter().position(clash) {
            return Err(value(format!(
                "{wname} overlaps {}: regions written must not share memory",
                name(write_names, j + 1 + k)
            )));
        }
    }
    let mut storages: Vec<(&Arc<Mutex<Storage>>, usize)> =
        reads.iter().chain(writes).map(|(b, _, _)| (&b.storage, b.nbytes)).collect();
    storages.sort_by_key(|s| Arc::as_ptr(s.0) as usize);
    storages.dedup_by(|a, b| Arc::ptr_eq(a.0, b.0));
    let mut guards: Vec<MutexGuard<'_, Storage>> = storages.iter().map(|s| lock(s.0)).collect();
    let mut read_views: Vec<Option<DeviceSlice<'_, u8>>> = vec![None; reads.len()];
    let mut write_views: Vec<Option<DeviceSliceMut<'_, u8>>> = (0..writes.len()).map(|_| None).collect();
    for (guard, &(storage, nbytes)) in guards.iter_mut().zip(&storages) {
        let mine = |r: &&Region<'_>| Arc::ptr_eq(&r.0.storage, storage);
        let mut ws: Vec<usize> = (0..writes.len()).filter(|&j| mine(&&writes[j])).collect();
        let rs: Vec<usize> = (0..reads.len()).filter(|&i| mine(&&reads[i])).collect();
        if ws.is_empty() {
            let st: &Storage = guard;
            for i in rs {
                read_views[i] = Some(st.slice(reads[i].1, reads[i].2).map_err(runtime)?);
            }
            continue;
        }
        // Split the buffer at the written regions: written pieces, and read-only gaps around them
        // from which the read regions are viewed.
        ws.sort_by_key(|&j| (writes[j].1, writes[j].2));
        let mut rest = guard.slice_mut(0, nbytes).map_err(runtime)?;
        let (mut pos, mut gaps) = (0usize, Vec::new());
        for j in ws {
            let (off, len) = (writes[j].1, writes[j].2);
            let Some(gap_len) = off.checked_sub(pos) else {
                return Err(value(format!("{} lies inside another region written", name(write_names, j))));
            };
            let (gap, tail) = rest.split_at_mut(gap_len).map_err(runtime)?;
            let (piece, tail) = tail.split_at_mut(len).map_err(runtime)?;
            gaps.push((pos, gap.into_slice()));
            write_views[j] = Some(piece);
            rest = tail;
            pos = off + len;
        }
        gaps.push((pos, rest.into_slice()));
        for i in rs {
            let (off, len) = (reads[i].1, reads[i].2);
            let gap = gaps.iter().find(|(start, g)| *start <= off && off + len <= start + g.len());
            let view = match gap {
                Some((start, g)) => g.slice(off - start..off - start + len),
                // Only an empty region can fall outside every gap (inside a written one).
                None => gaps[0].1.slice(0..0),
            };
            read_views[i] = Some(view.map_err(runtime)?);
        }
    }
    let reads: Vec<DeviceSlice<'_, u8>> = read_views.into_iter().flatten().collect();
    let mut writes: Vec<DeviceSliceMut<'_, u8>> = write_views.into_iter().flatten().collect();
    Ok(f(&reads, &mut writes))
}
