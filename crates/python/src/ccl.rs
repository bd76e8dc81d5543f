//! `ferrocm.ccl`'s native half: communicators of ferrocm-ccl (made from a unique id or from a
//! launcher's environment) and their collectives on buffer regions. The Python half
//! (`python/ferrocm/ccl.py`) works out shapes, in-place calls and dtypes.

use std::sync::{Mutex, MutexGuard};

use ferrocm::ccl::{CclType, Communicator, Group, LaunchEnv, ReduceOp, UniqueId};
use ferrocm::{AsDeviceSliceMut, DeviceSlice, DeviceSliceMut, Stream};
use half::{bf16, f16};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffer::{read_write, regions, write_one, Buffer};
use crate::device::{current, resolve, PyDevice, PyStream};
use crate::errors::{ccl, runtime, value};

/// A new unique id (its bootstrap root starts listening in this process), as bytes.
#[pyfunction]
pub fn unique_id_new<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
    let id = py.detach(UniqueId::new).map_err(ccl)?;
    Ok(PyBytes::new(py, &id.to_bytes()))
}

/// Checks that `data` is a unique id's binary form; returns its bootstrap root ("host:port").
#[pyfunction]
pub fn unique_id_root(data: &[u8]) -> PyResult<String> {
    Ok(UniqueId::from_bytes(data).map_err(ccl)?.root_address().to_string())
}

/// One rank of a communicator (ferrocm-ccl's `Communicator`).
#[pyclass(name = "Communicator", module = "ferrocm._native")]
pub struct PyCommunicator {
    comm: Mutex<Option<Communicator>>,
    rank: usize,
    size: usize,
    device: ferrocm::Device,
}

impl PyCommunicator {
    fn new(comm: Communicator) -> PyCommunicator {
        PyCommunicator {
            rank: comm.rank(),
            size: comm.size(),
            device: comm.device().clone(),
            comm: Mutex::new(Some(comm)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Communicator>> {
        self.comm.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Which collective a call runs.
#[derive(Clone, Copy)]
enum Kind {
    AllReduce,
    Broadcast,
    Reduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    Send,
    Recv,
}

impl Kind {
    fn parse(name: &str) -> PyResult<Kind> {
        Ok(match name {
            "all_reduce" => Kind::AllReduce,
            "broadcast" => Kind::Broadcast,
            "reduce" => Kind::Reduce,
            "all_gather" => Kind::AllGather,
            "reduce_scatter" => Kind::ReduceScatter,
            "all_to_all" => Kind::AllToAll,
            "send" => Kind::Send,
            "recv" => Kind::Recv,
            k => return Err(value(format!("unknown collective {k:?}"))),
        })
    }
}

/// The arguments of one collective besides its buffers.
#[derive(Clone, Copy)]
struct Call {
    kind: Kind,
    op: ReduceOp,
    root: usize,
}

fn run_typed<T: CclType>(
    comm: &Communicator,
    call: Call,
    send: Option<DeviceSlice<'_, u8>>,
    recv: &mut DeviceSliceMut<'_, u8>,
    stream: &Stream,
) -> PyResult<()> {
    let mut recv = recv.as_device_slice_mut().reinterpret::<T>().map_err(runtime)?;
    stream.record_use(&recv);
    let Call { kind, op, root } = call;
    let r = match send {
        Some(s) => {
            let s = s.reinterpret::<T>().map_err(runtime)?;
            stream.record_use(&s);
            match kind {
                Kind::AllReduce => comm.all_reduce(&s, &mut recv, op, stream),
                Kind::Broadcast => comm.broadcast(&s, &mut recv, root, stream),
                Kind::Reduce => comm.reduce(&s, &mut recv, op, root, stream),
                Kind::AllGather => comm.all_gather(&s, &mut recv, stream),
                Kind::ReduceScatter => comm.reduce_scatter(&s, &mut recv, op, stream),
                Kind::AllToAll => comm.all_to_all(&s, &mut recv, stream),
                Kind::Send | Kind::Recv => return Err(value("send/recv take one buffer")),
            }
        }
        None => match kind {
            Kind::AllReduce => comm.all_reduce_in_place(&mut recv, op, stream),
            Kind::Broadcast => comm.broadcast_in_place(&mut recv, root, stream),
            Kind::Reduce => comm.reduce_in_place(&mut recv, op, root, stream),
            Kind::AllGather => comm.all_gather_in_place(&mut recv, stream),
            Kind::ReduceScatter => comm.reduce_scatter_in_place(&mut recv, op, stream),
            Kind::AllToAll => return Err(value("all_to_all cannot run in place: pass an out array")),
            Kind::Send => comm.send(&recv, root, stream),
            Kind::Recv => comm.recv(&mut recv, root, stream),
        },
    };
    r.map_err(ccl)
}

fn dispatch(
    comm: &Communicator,
    dtype: &str,
    call: Call,
    send: Option<DeviceSlice<'_, u8>>,
    recv: &mut DeviceSliceMut<'_, u8>,
    stream: &Stream,
) -> PyResult<()> {
    match dtype {
        "int8" => run_typed::<i8>(comm, call, send, recv, stream),
        "uint8" => run_typed::<u8>(comm, call, send, recv, stream),
        "int32" => run_typed::<i32>(comm, call, send, recv, stream),
        "uint32" => run_typed::<u32>(comm, call, send, recv, stream),
        "int64" => run_typed::<i64>(comm, call, send, recv, stream),
        "uint64" => run_typed::<u64>(comm, call, send, recv, stream),
        "float16" => run_typed::<f16>(comm, call, send, recv, stream),
        "bfloat16" => run_typed::<bf16>(comm, call, send, recv, stream),
        "float32" => run_typed::<f32>(comm, call, send, recv, stream),
        "float64" => run_typed::<f64>(comm, call, send, recv, stream),
        d => Err(value(format!(
            "CCL dtype {d} is not one of int8, uint8, int32, uint32, int64, uint64, float16, bfloat16, float32, float64"
        ))),
    }
}

#[pymethods]
impl PyCommunicator {
    /// Joins the communicator of the unique id `uid` (bytes) as `rank` of `nranks` on `device`
    /// (default: the default device). Blocks (without the GIL) until every rank has joined.
    #[staticmethod]
    #[pyo3(signature = (uid, nranks, rank, device = None))]
    fn init_rank(
        py: Python<'_>,
        uid: &[u8],
        nranks: usize,
        rank: usize,
        device: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyCommunicator> {
        let id = UniqueId::from_bytes(uid).map_err(ccl)?;
        let device = resolve(device)?;
        let comm = py.detach(|| Communicator::init_rank(&id, nranks, rank, &device)).map_err(ccl)?;
        Ok(PyCommunicator::new(comm))
    }

    /// Joins the job's communicator from the launcher's variables (torchrun's RANK/WORLD_SIZE/
    /// LOCAL_RANK/MASTER_ADDR/MASTER_PORT, mpirun's OMPI_COMM_WORLD_*, srun's SLURM_*), on GPU
    /// `LOCAL_RANK` (or a CPU device without GPUs).
    #[staticmethod]
    fn from_env(py: Python<'_>) -> PyResult<PyCommunicator> {
        let comm = py.detach(|| LaunchEnv::detect()?.init()).map_err(ccl)?;
        Ok(PyCommunicator::new(comm))
    }

    #[getter]
    fn rank(&self) -> usize {
        self.rank
    }

    #[getter]
    fn size(&self) -> usize {
        self.size
    }

    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice::new(self.device.clone())
    }

    /// Whether `destroy` has been called.
    #[getter]
    fn destroyed(&self) -> bool {
        self.lock().is_none()
    }

    /// Runs collective `kind` on `dtype` elements: from `send` (buffer, byte offset, byte
    /// length), or in place when `send` is None, into `recv`; `op` one of sum, prod, min, max,
    /// avg; `root` the root (broadcast, reduce) or the peer (send, recv). Queued on `stream`
    /// (default: the current stream of the communicator's device).
    #[pyo3(signature = (kind, dtype, send, recv, op = "sum", root = 0, stream = None))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        py: Python<'_>,
        kind: &str,
        dtype: &str,
        send: Option<(PyRef<'_, Buffer>, usize, usize)>,
        recv: (PyRef<'_, Buffer>, usize, usize),
        op: &str,
        root: usize,
        stream: Option<&PyStream>,
    ) -> PyResult<()> {
        let kind = Kind::parse(kind)?;
        let op = ReduceOp::parse(op).ok_or_else(|| {
            value(format!("op {op:?} is not one of \"sum\", \"prod\", \"min\", \"max\", \"avg\""))
        })?;
        let stream = match stream {
            Some(s) => s.stream.clone(),
            None => current(&self.device)?,
        };
        let call = Call { kind, op, root };
        let guard = self.lock();
        let comm = guard.as_ref().ok_or_else(|| value("the communicator has been destroyed"))?;
        let (rb, ro, rl) = (&*recv.0, recv.1, recv.2);
        match &send {
            Some((sb, so, sl)) => {
                let inputs = [(&**sb, *so, *sl)];
                py.detach(|| {
                    read_write(&inputs, &["the input"], (rb, ro, rl), "out", |v, o| {
                        dispatch(comm, dtype, call, Some(v[0]), o, &stream)
                    })?
                })
            }
            None => {
                let name = if matches!(kind, Kind::Send) { "the input" } else { "out" };
                if matches!(kind, Kind::Send) {
                    // A send only reads its buffer: a read-only input is fine.
                    return py.detach(|| {
                        crate::buffer::read_only(rb, ro, rl, name, |v| {
                            send_typed(comm, dtype, root, &v, &stream)
                        })?
                    });
                }
                py.detach(|| {
                    write_one((rb, ro, rl), name, |o| dispatch(comm, dtype, call, None, o, &stream))?
                })
            }
        }
    }

    /// Fails the communicator on every rank (operations in flight stop with an error).
    fn abort(&self) {
        if let Some(c) = self.lock().as_ref() {
            c.abort();
        }
    }

    /// Leaves the communicator: waits for this rank's queued operations, then closes its
    /// connections. Later calls raise `ValueError`; a second destroy does nothing.
    fn destroy(&self, py: Python<'_>) -> PyResult<()> {
        let comm = self.lock().take();
        match comm {
            Some(c) => py.detach(|| c.destroy()).map_err(ccl),
            None => Ok(()),
        }
    }

    /// One communicator per device, all in this process (NCCL's `ncclCommInitAll`): rank `i`
    /// runs on `devices[i]` (a device may appear more than once). Returns the ranks in order.
    #[staticmethod]
    fn init_all(py: Python<'_>, devices: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<PyCommunicator>> {
        let devices = devices.iter().map(|d| resolve(Some(d))).collect::<PyResult<Vec<_>>>()?;
        let comms = py.detach(|| Communicator::init_all(&devices)).map_err(ccl)?;
        Ok(comms.into_iter().map(PyCommunicator::new).collect())
    }

    /// Splits the communicator (NCCL's `ncclCommSplit`): every rank calls it; ranks with one
    /// `color` form a new communicator, ranked by `key` (ties by their rank). `color` None takes
    /// part but gets no communicator (None is returned). Blocks without the GIL.
    #[pyo3(signature = (color, key))]
    fn split(&self, py: Python<'_>, color: Option<u32>, key: i32) -> PyResult<Option<PyCommunicator>> {
        let guard = self.lock();
        let comm = guard.as_ref().ok_or_else(|| value("the communicator has been destroyed"))?;
        let child = py.detach(|| comm.split(color, key)).map_err(ccl)?;
        Ok(child.map(PyCommunicator::new))
    }

    /// [`split`] of every rank of communicators driven by this thread (from `init_all`):
    /// `colors[i]`, `keys[i]` are rank `i`'s.
    #[staticmethod]
    fn split_all(
        py: Python<'_>,
        comms: Vec<PyRef<'_, PyCommunicator>>,
        colors: Vec<Option<u32>>,
        keys: Vec<i32>,
    ) -> PyResult<Vec<Option<PyCommunicator>>> {
        let refs: Vec<&PyCommunicator> = comms.iter().map(|c| &**c).collect();
        if colors.len() != refs.len() || keys.len() != refs.len() {
            return Err(value(format!(
                "split_all: {} colors and {} keys for {} communicators: give one of each per communicator",
                colors.len(),
                keys.len(),
                refs.len()
            )));
        }
        let guards = lock_all(&refs)?;
        let owned: Vec<&Communicator> = refs.iter().map(|c| comm_of(&guards, c)).collect();
        // `split_all` takes a slice of communicators; these are owned by separate mutexes, so
        // run one split per rank on scoped threads, as `split_all` itself does.
        let results = py.detach(|| {
            std::thread::scope(|s| {
                let handles: Vec<_> = owned
                    .iter()
                    .zip(&colors)
                    .zip(&keys)
                    .map(|((c, &col), &k)| s.spawn(move || c.split(col, k)))
                    .collect();
                handles.into_iter().map(|h| h.join()).collect::<Vec<_>>()
            })
        });
        results
            .into_iter()
            .map(|r| match r {
                Ok(r) => r.map(|c| c.map(PyCommunicator::new)).map_err(ccl),
                Err(_) => Err(value("split_all: a splitting thread panicked")),
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "<ferrocm.ccl.Communicator rank {} of {} on device {}{}>",
            self.rank,
            self.size,
            self.device.index(),
            if self.lock().is_none() { ", destroyed" } else { "" }
        )
    }
}

fn send_typed(
    comm: &Communicator,
    dtype: &str,
    peer: usize,
    buf: &DeviceSlice<'_, u8>,
    stream: &Stream,
) -> PyResult<()> {
    fn go<T: CclType>(
        comm: &Communicator,
        peer: usize,
        buf: &DeviceSlice<'_, u8>,
        stream: &Stream,
    ) -> PyResult<()> {
        let b = buf.reinterpret::<T>().map_err(runtime)?;
        stream.record_use(&b);
        comm.send(&b, peer, stream).map_err(ccl)
    }
    match dtype {
        "int8" => go::<i8>(comm, peer, buf, stream),
        "uint8" => go::<u8>(comm, peer, buf, stream),
        "int32" => go::<i32>(comm, peer, buf, stream),
        "uint32" => go::<u32>(comm, peer, buf, stream),
        "int64" => go::<i64>(comm, peer, buf, stream),
        "uint64" => go::<u64>(comm, peer, buf, stream),
        "float16" => go::<f16>(comm, peer, buf, stream),
        "bfloat16" => go::<bf16>(comm, peer, buf, stream),
        "float32" => go::<f32>(comm, peer, buf, stream),
        "float64" => go::<f64>(comm, peer, buf, stream),
        d => Err(value(format!("CCL dtype {d} is not supported"))),
    }
}

/// The communicators' locks, each taken once in address order (so concurrent calls cannot
/// deadlock); a destroyed one is a `ValueError`.
fn lock_all<'c>(
    comms: &[&'c PyCommunicator],
) -> PyResult<Vec<(usize, MutexGuard<'c, Option<Communicator>>)>> {
    let mut distinct: Vec<&PyCommunicator> = comms.to_vec();
    distinct.sort_by_key(|c| *c as *const PyCommunicator as usize);
    distinct.dedup_by(|a, b| std::ptr::eq(*a, *b));
    let guards: Vec<_> = distinct.iter().map(|c| (*c as *const PyCommunicator as usize, c.lock())).collect();
    if let Some((_, _)) = guards.iter().find(|(_, g)| g.is_none()) {
        return Err(value("the communicator has been destroyed"));
    }
    Ok(guards)
}

/// The communicator of `c` among locked `guards` (every one checked alive by [`lock_all`]).
fn comm_of<'g>(
    guards: &'g [(usize, MutexGuard<'_, Option<Communicator>>)],
    c: &PyCommunicator,
) -> &'g Communicator {
    let key = c as *const PyCommunicator as usize;
    let (_, g) = guards.iter().find(|(k, _)| *k == key).expect("every communicator was locked");
    g.as_ref().expect("lock_all checked that none is destroyed")
}

macro_rules! typed_views {
    ($($name:literal => $t:ty, $v:ident;)*) => {
        /// A read-only view of one of the CCL types.
        enum In<'b> { $($v(DeviceSlice<'b, $t>),)* }
        /// A writable view of one of the CCL types.
        enum Out<'b> { $($v(DeviceSliceMut<'b, $t>),)* }

        fn typed_in<'b>(dtype: &str, s: DeviceSlice<'b, u8>) -> PyResult<In<'b>> {
            match dtype {
                $($name => Ok(In::$v(s.reinterpret().map_err(runtime)?)),)*
                d => Err(value(format!("CCL dtype {d} is not supported"))),
            }
        }

        fn typed_out<'b>(dtype: &str, s: DeviceSliceMut<'b, u8>) -> PyResult<Out<'b>> {
            match dtype {
                $($name => Ok(Out::$v(s.reinterpret().map_err(runtime)?)),)*
                d => Err(value(format!("CCL dtype {d} is not supported"))),
            }
        }

        /// Adds one call to the group, with its views at their element type.
        fn add<'a, 'b: 'a>(
            g: &mut Group<'a>,
            comm: &'a Communicator,
            call: Call,
            send: Option<&'a In<'b>>,
            recv: Option<&'a mut Out<'b>>,
            stream: &'a Stream,
        ) -> ferrocm::ccl::Result<()> {
            match (send, recv) {
                $(
                    (Some(In::$v(s)), Some(Out::$v(r))) => add_typed::<$t>(g, comm, call, Some(s), Some(r), stream),
                    (Some(In::$v(s)), None) => add_typed::<$t>(g, comm, call, Some(s), None, stream),
                    (None, Some(Out::$v(r))) => add_typed::<$t>(g, comm, call, None, Some(r), stream),
                )*
                _ => Err(misuse("a call's input and output differ in type")),
            }
        }
    };
}

typed_views! {
    "int8" => i8, I8;
    "uint8" => u8, U8;
    "int32" => i32, I32;
    "uint32" => u32, U32;
    "int64" => i64, I64;
    "uint64" => u64, U64;
    "float16" => f16, F16;
    "bfloat16" => bf16, BF16;
    "float32" => f32, F32;
    "float64" => f64, F64;
}

fn misuse(reason: &str) -> ferrocm::ccl::CclError {
    ferrocm::ccl::CclError::Group { reason: reason.to_string() }
}

fn add_typed<'a, 'b: 'a, T: CclType>(
    g: &mut Group<'a>,
    comm: &'a Communicator,
    call: Call,
    send: Option<&'a DeviceSlice<'b, T>>,
    recv: Option<&'a mut DeviceSliceMut<'b, T>>,
    stream: &'a Stream,
) -> ferrocm::ccl::Result<()> {
    let Call { kind, op, root } = call;
    match (kind, send, recv) {
        (Kind::AllReduce, Some(s), Some(r)) => g.all_reduce(comm, s, r, op, stream),
        (Kind::AllReduce, None, Some(r)) => g.all_reduce_in_place(comm, r, op, stream),
        (Kind::Broadcast, Some(s), Some(r)) => g.broadcast(comm, s, r, root, stream),
        (Kind::Broadcast, None, Some(r)) => g.broadcast_in_place(comm, r, root, stream),
        (Kind::Reduce, Some(s), Some(r)) => g.reduce(comm, s, r, op, root, stream),
        (Kind::Reduce, None, Some(r)) => g.reduce_in_place(comm, r, op, root, stream),
        (Kind::AllGather, Some(s), Some(r)) => g.all_gather(comm, s, r, stream),
        (Kind::AllGather, None, Some(r)) => g.all_gather_in_place(comm, r, stream),
        (Kind::ReduceScatter, Some(s), Some(r)) => g.reduce_scatter(comm, s, r, op, stream),
        (Kind::ReduceScatter, None, Some(r)) => g.reduce_scatter_in_place(comm, r, op, stream),
        (Kind::AllToAll, Some(s), Some(r)) => g.all_to_all(comm, s, r, stream),
        (Kind::Send, Some(s), None) => g.send(comm, s, root, stream),
        (Kind::Recv, None, Some(r)) => g.recv(comm, r, root, stream),
        _ => Err(misuse("a call has the wrong buffers for its kind")),
    }
}

/// One call of a group as the Python half records it: (communicator, kind, dtype, send region
/// or None, the other region, op, root or peer, stream or None). For `send` the other region is
/// the one sent (read); for every other kind it is written.
type GroupCall<'py> = (
    PyRef<'py, PyCommunicator>,
    String,
    String,
    Option<(PyRef<'py, Buffer>, usize, usize)>,
    (PyRef<'py, Buffer>, usize, usize),
    String,
    usize,
    Option<PyRef<'py, PyStream>>,
);

/// Launches `calls` as one group (NCCL's `ncclGroupStart` ... `ncclGroupEnd`): sends and
/// receives progress together, the calls of one communicator become one launch on its stream,
/// and one thread may drive several ranks of `init_all`. Every call is checked first; nothing is
/// launched if one is wrong.
#[pyfunction]
pub fn ccl_group(py: Python<'_>, calls: Vec<GroupCall<'_>>) -> PyResult<()> {
    let mut parsed = Vec::with_capacity(calls.len());
    let (mut reads, mut read_names, mut writes, mut write_names) = (vec![], vec![], vec![], vec![]);
    // Per call: (index of its read region, index of its written region).
    let mut slots: Vec<(Option<usize>, Option<usize>)> = Vec::with_capacity(calls.len());
    for (i, (comm, kind_name, dtype, send, other, op, root, stream)) in calls.iter().enumerate() {
        let kind = Kind::parse(kind_name)?;
        let op = ReduceOp::parse(op).ok_or_else(|| {
            value(format!("op {op:?} is not one of \"sum\", \"prod\", \"min\", \"max\", \"avg\""))
        })?;
        let stream = match stream {
            Some(s) => s.stream.clone(),
            None => current(&comm.device)?,
        };
        let what = format!("call {i} ({kind_name})");
        let mut slot = (None, None);
        if let Some((b, off, len)) = send {
            slot.0 = Some(reads.len());
            reads.push((&**b, *off, *len));
            read_names.push(format!("the input of {what}"));
        }
        let (b, off, len) = other;
        if matches!(kind, Kind::Send) {
            if send.is_some() {
                return Err(value(format!("{what}: a send takes one buffer")));
            }
            slot.0 = Some(reads.len());
            reads.push((&**b, *off, *len));
            read_names.push(format!("the input of {what}"));
        } else {
            if matches!(kind, Kind::Recv | Kind::AllToAll) && matches!(kind, Kind::Recv) == send.is_some() {
                return Err(value(format!("{what}: wrong buffers for {kind_name}")));
            }
            slot.1 = Some(writes.len());
            writes.push((&**b, *off, *len));
            write_names.push(format!("the output of {what}"));
        }
        slots.push(slot);
        parsed.push((&**comm, dtype.as_str(), Call { kind, op, root: *root }, stream));
    }
    let refs: Vec<&PyCommunicator> = parsed.iter().map(|p| p.0).collect();
    let guards = lock_all(&refs)?;
    let comms: Vec<&Communicator> = refs.iter().map(|c| comm_of(&guards, c)).collect();
    py.detach(|| {
        regions(&reads, &read_names, &writes, &write_names, |rv, wv| -> PyResult<()> {
            let ins = parsed
                .iter()
                .zip(&slots)
                .map(|(p, s)| s.0.map(|i| typed_in(p.1, rv[i])).transpose())
                .collect::<PyResult<Vec<_>>>()?;
            let mut outs: Vec<Option<Out<'_>>> = Vec::with_capacity(parsed.len());
            let mut pieces: Vec<Option<DeviceSliceMut<'_, u8>>> =
                wv.iter_mut().map(|w| Some(w.as_device_slice_mut())).collect();
            for (p, s) in parsed.iter().zip(&slots) {
                let piece = s.1.and_then(|j| pieces[j].take());
                outs.push(piece.map(|w| typed_out(p.1, w)).transpose()?);
            }
            ferrocm::ccl::group(|g| {
                for (((p, comm), send), recv) in parsed.iter().zip(&comms).zip(&ins).zip(outs.iter_mut()) {
                    add(g, comm, p.2, send.as_ref(), recv.as_mut(), &p.3)?;
                }
                Ok(())
            })
            .map_err(ccl)
        })?
    })
}
