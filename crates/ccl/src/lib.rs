//! ferrocm CCL: collective communication (what RCCL and NCCL are to their users).
//!
//! A [`Communicator`] is one rank of a group of ranks, each on a device; operations take a
//! stream of that device and are queued on it: [`Communicator::all_reduce`] (sum, prod, min,
//! max, avg), [`Communicator::broadcast`], [`Communicator::reduce`],
//! [`Communicator::all_gather`], [`Communicator::reduce_scatter`],
//! [`Communicator::all_to_all`], [`Communicator::send`]/[`Communicator::recv`], each in place
//! or out of place, over `i8 u8 i32 u32 i64 u64 f16 bf16 f32 f64` ([`CclType`]). [`group`]
//! fuses several into one launch (NCCL's group calls).
//!
//! ```no_run
//! use ferrocm_ccl::{Communicator, ReduceOp, UniqueId};
//! use ferrocm_runtime::Device;
//! # fn main() -> ferrocm_ccl::Result<()> {
//! // One process driving two devices:
//! let devices = [Device::get(0)?, Device::get(1)?];
//! let comms = Communicator::init_all(&devices)?;
//! // One rank per process: rank 0 makes the id and shares it (a file, MPI, ...).
//! let id = UniqueId::new()?;
//! let comm = Communicator::init_rank(&id, 2, 0, &devices[0])?;
//! let stream = comm.device().create_stream()?;
//! let mut x = stream.clone_htod(&[1.0f32, 2.0, 3.0])?;
//! comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &stream)?;
//! # Ok(()) }
//! ```
//!
//! # What runs where
//! - **Host engine** (CPU devices, GPUs on several hosts, and beside the device engine between
//!   processes for the operations that one does not run): native code
//!   moves and reduces the data (design decision 9: on CPU devices the library runs native code).
//!   On a CPU device the operation is a native kernel on the rank's stream, so it runs in stream
//!   order; on a GPU it is staged through host memory and the call returns once the data has
//!   moved. Transports, one trait: `p2p` (ranks of one process: the receiver's FIFO in its
//!   device memory, written through a pointer), `shm` (ranks of one host: FIFOs in `memfd`s
//!   passed as file descriptors over a Unix socket and mapped by the peer), `ucx` (UCX's
//!   `libucp.so.0`, opened at run time: InfiniBand/RoCE/TCP across hosts) and `tcp` (plain
//!   sockets, the fallback). Shared-memory connections carry the low-latency protocol (data and
//!   flag in one 8-byte store, as NCCL's LL) and the bulk one.
//! - **Device engine** (GPUs, every rank in one process; on CPU devices with
//!   `FERROCM_CCL_ENGINE=device`): kernels of the kernel language read and write the ranks'
//!   buffers through peer pointers; ranks are ordered by events between their streams, never by
//!   a kernel spinning on memory, so ranks sharing one GPU cannot deadlock.
//! - **Device engine between processes** (GPUs of one host in several processes, as torchrun
//!   and mpirun start them; on CPU devices with `FERROCM_CCL_ENGINE=device`): all-reduce,
//!   all-gather, reduce-scatter, broadcast and reduce run as rings, and all-to-all as pairwise
//!   exchanges, through staging slots in each rank's exportable device memory (one lane of
//!   `FERROCM_CCL_BUFFSIZE` bytes per other rank), mapped by the other ranks; every piece is a kernel between
//!   a stream wait on a memory word and a stream write of the neighbour's word (stream memory
//!   operations), so the host only queues. Send/recv groups run there too (each send and
//!   receive matched with its peer's through the mailboxes, at most four per peer and direction
//!   per group); groups mixing them with collectives, or sending to the rank itself, use the
//!   host engine (logged at `INFO`). One rendezvous per operation through mailboxes in shared host memory
//!   (no message) checks that every rank called the same thing; when the communicator fails, a watchdog releases the rank's
//!   waiting streams (their results are garbage) and the failure is returned by every later
//!   call and by [`Communicator::async_error`].
//!
//! Algorithms: ring (pipelined), tree (binary), one-shot and two-shot all-reduce, direct
//! exchange; the tuner ([`tuner`](crate::config::Algorithm)) picks by size and rank count, and
//! `FERROCM_CCL_ALGO`/`FERROCM_CCL_PROTO` force a choice.
//!
//! # Failures you can debug
//! `FERROCM_CCL_DEBUG=INFO` logs initialisation, the topology (which transport joins each pair
//! of ranks) and one line per operation with its algorithm and protocol. Every rank publishes
//! the sequence number of the operation it is in; an operation that does not finish within
//! `FERROCM_CCL_TIMEOUT` seconds (default 600) fails on every rank with
//! [`CclError::Timeout`] naming the operation and the ranks that did not arrive (and where
//! they are). A rank whose process dies fails the others with [`CclError::RankDied`]. Ranks
//! that call different things (counts, types, operators, roots, order) fail with
//! [`CclError::Mismatch`] naming both ranks and what differs. After any of these the
//! communicator is dead on every rank: destroy it.
//!
//! # Environment
//! | variable | effect |
//! |---|---|
//! | `FERROCM_CCL_TIMEOUT` | seconds an operation may wait for the other ranks (default 600) |
//! | `FERROCM_CCL_ALGO` | `ring`, `tree`, `oneshot` or `twoshot`, where the operation has it |
//! | `FERROCM_CCL_PROTO` | `LL` or `simple`, on shared-memory connections |
//! | `FERROCM_CCL_TRANSPORT` | `p2p`, `shm`, `ucx` or `tcp` between every pair it can connect |
//! | `FERROCM_CCL_ENGINE` | `host` or `device` |
//! | `FERROCM_CCL_BUFFSIZE` | bytes of the staging lane each rank keeps for each other rank in the device engine between processes: a power of two from 16384 to 1073741824 (default 4194304, four slots of 1 MiB); the same on every rank |
//! | `FERROCM_CCL_DEBUG` | `WARN`, `INFO` or `TRACE` |
//! | `FERROCM_CCL_SOCKET_ADDR` | the address this host advertises for TCP |
//! | `FERROCM_CCL_ROOT` | `host:port` of the bootstrap root for launcher initialisation |
//!
//! Never uses NVLink multicast (`cuMulticastCreate`, NVLS).

mod bootstrap;
mod comm;
pub mod config;
mod device;
mod error;
mod fifo;
mod group;
mod host;
mod id;
pub mod launcher;
mod log;
mod op;
mod state;
mod transport;
mod tuner;
mod types;
mod wire;

pub use comm::Communicator;
pub use config::{Algorithm, Config, DebugLevel, Engine, Protocol, TransportKind};
pub use error::{CclError, Result};
pub use group::{group, Group};
pub use id::{UniqueId, UNIQUE_ID_BYTES};
pub use launcher::{LaunchEnv, Launcher};
pub use types::{CclType, DataType, ReduceOp};

/// Whether UCX (`libucp.so.0`) can be loaded here, and if not, why.
pub fn ucx_available() -> std::result::Result<(), String> {
    transport::ucx::available()
}
