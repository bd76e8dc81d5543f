//! `ferrocm.ccl`'s native half: communicators of ferrocm-ccl (made from a unique id or from a
//! launcher's environment) and their collectives on buffer regions. The Python half
//! (`python/ferrocm/ccl.py`) works out shapes, in-place calls and dtypes.

use std::sync::{Mutex, MutexGuard};

use ferrocm::ccl::{CclType, Communicator, LaunchEnv, ReduceOp, UniqueId};
use ferrocm::{AsDeviceSliceMut, DeviceSlice, DeviceSliceMut, Stream};
use half::{bf16, f16};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffer::{read_write, write_one, Buffer};
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
