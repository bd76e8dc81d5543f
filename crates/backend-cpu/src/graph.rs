//! Stream capture and graphs on the CPU device.
//!
//! Work queued on a capturing stream becomes a [`Node`] (plain data: addresses, sizes, a kernel
//! and its argument bytes) appended to the stream's capture instead of a job on its queue. A
//! graph is the captured list; an instantiated graph shares it until one of its kernel nodes is
//! updated (copy on write), and a launch queues one job that runs a snapshot of the list in
//! order, so updates made after a launch was queued do not change that launch (as on a GPU).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ferrocm_backend::{
    BackendError, FunctionHandle, GraphExecHandle, GraphHandle, GraphNodeHandle, LaunchDims, Result,
    StreamHandle, StreamWord, WaitCondition,
};

use crate::{lock, memop, CpuBackend, Function};

/// One recorded operation.
#[derive(Clone)]
pub(crate) enum Node {
    Memset { dst: u64, value: u8, bytes: u64 },
    Copy { src: u64, dst: u64, bytes: u64 },
    Kernel { function: Arc<Function>, dims: LaunchDims, args: Vec<Vec<u8>> },
    WaitValue { addr: u64, value: StreamWord, condition: WaitCondition },
    WriteValue { addr: u64, value: StreamWord },
}

impl Node {
    /// Runs the operation.
    ///
    /// # Safety
    /// The addresses it names are valid for it (the promise of the backend call that made the
    /// node, which lasts for every launch of a graph holding it).
    pub(crate) unsafe fn run(&self) -> Result<()> {
        match self {
            // SAFETY: forwarded from the caller.
            Node::Memset { dst, value, bytes } => unsafe {
                std::ptr::write_bytes(*dst as *mut u8, *value, *bytes as usize)
            },
            // SAFETY: forwarded from the caller; `copy` allows overlap.
            Node::Copy { src, dst, bytes } => unsafe {
                std::ptr::copy(*src as *const u8, *dst as *mut u8, *bytes as usize)
            },
            Node::Kernel { function, dims, args } => {
                let views: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
                // SAFETY: forwarded from the caller: the recorded arguments match the kernel and
                // their addresses stay valid while the graph runs.
                return unsafe { function.kernel.launch(*dims, &views) }.map_err(|message| {
                    BackendError::KernelFailed { kernel: function.name.clone(), message }
                });
            }
            // SAFETY: forwarded from the caller: the word is aligned and lies in live memory.
            Node::WaitValue { addr, value, condition } => {
                return unsafe { memop::wait(*addr, *value, *condition) }
            }
            // SAFETY: as above.
            Node::WriteValue { addr, value } => unsafe { memop::write(*addr, *value) },
        }
        Ok(())
    }
}

struct Graph {
    device: u32,
    nodes: Arc<Vec<Node>>,
}

/// Captures in progress, captured graphs and their instantiations.
#[derive(Default)]
pub(crate) struct Graphs {
    /// The number of captures in progress, so queuing work checks the table only when one is.
    active: AtomicUsize,
    captures: Mutex<HashMap<u64, Vec<Node>>>,
    graphs: Mutex<HashMap<u64, Graph>>,
    execs: Mutex<HashMap<u64, Graph>>,
}

fn capturing_error(what: &'static str) -> BackendError {
    BackendError::NotPermitted { what, reason: "on a stream that is capturing a graph" }
}

impl CpuBackend {
    /// Queues `node` on `stream`, or records it if the stream is capturing.
    pub(crate) fn submit(&self, stream: StreamHandle, node: Node) -> Result<()> {
        let s = self.stream(stream)?;
        if self.graphs.active.load(Ordering::Acquire) > 0 {
            if let Some(capture) = lock(&self.graphs.captures).get_mut(&stream.0) {
                capture.push(node);
                return Ok(());
            }
        }
        self.enqueue(
            &s,
            Box::new(move || {
                // SAFETY: the caller of the backend call that made the node promised its
                // addresses stay valid until the work completes.
                unsafe { node.run() }
            }),
        )
    }

    /// Refuses `what` on a capturing stream.
    pub(crate) fn refuse_if_capturing(&self, stream: StreamHandle, what: &'static str) -> Result<()> {
        if self.graphs.active.load(Ordering::Acquire) > 0
            && lock(&self.graphs.captures).contains_key(&stream.0)
        {
            return Err(capturing_error(what));
        }
        Ok(())
    }

    pub(crate) fn begin_capture(&self, stream: StreamHandle) -> Result<()> {
        let s = self.stream(stream)?;
        let state = &self.devices[s.device as usize];
        if state.legacy.get() == Some(&stream.0) {
            return Err(BackendError::NotPermitted {
                what: "capturing the legacy default stream",
                reason: "(it synchronizes with other streams); capture a created stream",
            });
        }
        let mut captures = lock(&self.graphs.captures);
        if captures.contains_key(&stream.0) {
            return Err(capturing_error("beginning a capture"));
        }
        captures.insert(stream.0, Vec::new());
        self.graphs.active.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    pub(crate) fn end_capture(&self, stream: StreamHandle) -> Result<GraphHandle> {
        let s = self.stream(stream)?;
        let nodes = lock(&self.graphs.captures).remove(&stream.0).ok_or(BackendError::InvalidValue {
            call: "stream_end_capture",
            message: "the stream is not capturing".into(),
        })?;
        self.graphs.active.fetch_sub(1, Ordering::AcqRel);
        let id = self.handle();
        lock(&self.graphs.graphs).insert(id, Graph { device: s.device, nodes: Arc::new(nodes) });
        Ok(GraphHandle(id))
    }

    pub(crate) fn capture_last_node(&self, stream: StreamHandle) -> Result<GraphNodeHandle> {
        match lock(&self.graphs.captures).get(&stream.0) {
            Some(nodes) if !nodes.is_empty() => Ok(GraphNodeHandle(nodes.len() as u64 - 1)),
            Some(_) => Err(BackendError::InvalidValue {
                call: "stream_capture_last_node",
                message: "nothing has been captured yet".into(),
            }),
            None => Err(BackendError::InvalidValue {
                call: "stream_capture_last_node",
                message: "the stream is not capturing".into(),
            }),
        }
    }

    pub(crate) fn destroy_graph(&self, graph: GraphHandle) -> Result<()> {
        lock(&self.graphs.graphs)
            .remove(&graph.0)
            .map(drop)
            .ok_or(BackendError::InvalidHandle { what: "graph", handle: graph.0 })
    }

    pub(crate) fn instantiate(&self, graph: GraphHandle) -> Result<GraphExecHandle> {
        let (device, nodes) = lock(&self.graphs.graphs)
            .get(&graph.0)
            .map(|g| (g.device, Arc::clone(&g.nodes)))
            .ok_or(BackendError::InvalidHandle { what: "graph", handle: graph.0 })?;
        let id = self.handle();
        lock(&self.graphs.execs).insert(id, Graph { device, nodes });
        Ok(GraphExecHandle(id))
    }

    pub(crate) fn destroy_exec(&self, exec: GraphExecHandle) -> Result<()> {
        lock(&self.graphs.execs)
            .remove(&exec.0)
            .map(drop)
            .ok_or(BackendError::InvalidHandle { what: "instantiated graph", handle: exec.0 })
    }

    pub(crate) fn launch_graph(&self, exec: GraphExecHandle, stream: StreamHandle) -> Result<()> {
        self.refuse_if_capturing(stream, "launching a graph")?;
        let s = self.stream(stream)?;
        let (device, nodes) = lock(&self.graphs.execs)
            .get(&exec.0)
            .map(|g| (g.device, Arc::clone(&g.nodes)))
            .ok_or(BackendError::InvalidHandle { what: "instantiated graph", handle: exec.0 })?;
        if device != s.device {
            return Err(BackendError::InvalidValue {
                call: "graph_launch",
                message: format!("a graph of device {device} launched on a stream of device {}", s.device),
            });
        }
        self.enqueue(
            &s,
            Box::new(move || {
                for node in nodes.iter() {
                    // SAFETY: `graph_launch`'s caller promised every address the graph's nodes
                    // use stays valid until the launch completes.
                    unsafe { node.run()? };
                }
                Ok(())
            }),
        )
    }

    pub(crate) fn set_kernel_node(
        &self,
        exec: GraphExecHandle,
        node: GraphNodeHandle,
        function: FunctionHandle,
        dims: LaunchDims,
        args: &[&[u8]],
    ) -> Result<()> {
        let f = self.function(function)?;
        let mut execs = lock(&self.graphs.execs);
        let g = execs
            .get_mut(&exec.0)
            .ok_or(BackendError::InvalidHandle { what: "instantiated graph", handle: exec.0 })?;
        let bad =
            |message: String| BackendError::InvalidValue { call: "graph_exec_set_kernel_params", message };
        match g.nodes.get(node.0 as usize) {
            Some(Node::Kernel { function, .. }) if Arc::ptr_eq(function, &f) => {}
            Some(Node::Kernel { .. }) => return Err(bad(format!("node {} launches another kernel", node.0))),
            Some(_) => return Err(bad(format!("node {} is not a kernel node", node.0))),
            None => return Err(bad(format!("the graph has no node {}", node.0))),
        }
        // Launches already queued hold the old list; later ones see the new node.
        Arc::make_mut(&mut g.nodes)[node.0 as usize] =
            Node::Kernel { function: f, dims, args: args.iter().map(|a| a.to_vec()).collect() };
        Ok(())
    }
}
