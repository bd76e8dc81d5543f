//! What a communicator may be told: the timeout, forced algorithm, protocol, transport and
//! engine, and the debug level. [`Config::from_env`] reads the `FERROCM_CCL_*` variables; the
//! builder methods override them per communicator.

use std::fmt;
use std::time::Duration;

use crate::{CclError, Result};

/// How a collective moves data between ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Algorithm {
    /// Each rank sends to the next around a ring, in pipelined chunks: bandwidth-optimal.
    Ring,
    /// A binary tree: reduce up to the root, broadcast down; latency grows as log2 of the ranks.
    Tree,
    /// Every rank sends its whole input to every peer and reduces what it receives (all-reduce);
    /// for the rooted and gathering collectives, direct exchange with each peer. One step: the
    /// lowest latency for small messages.
    OneShot,
    /// All-reduce as a direct reduce-scatter (each rank reduces its slice from every peer) then
    /// a direct all-gather. Two steps, each moving 1/n of the data per peer.
    TwoShot,
}

impl Algorithm {
    pub const ALL: [Algorithm; 4] =
        [Algorithm::Ring, Algorithm::Tree, Algorithm::OneShot, Algorithm::TwoShot];

    pub(crate) fn code(self) -> u8 {
        Algorithm::ALL.iter().position(|&a| a == self).unwrap_or(0) as u8
    }

    pub(crate) fn from_code(code: u8) -> Option<Algorithm> {
        Algorithm::ALL.get(code as usize).copied()
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Algorithm::Ring => "ring",
            Algorithm::Tree => "tree",
            Algorithm::OneShot => "oneshot",
            Algorithm::TwoShot => "twoshot",
        })
    }
}

/// How data and its readiness travel through a shared-memory connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Protocol {
    /// Low latency: every 8-byte store carries 4 bytes of data and a 4-byte flag, so the
    /// receiver needs no separate fence or counter; half the bandwidth. NCCL's LL.
    LowLatency,
    /// Bulk: data is copied into a slot, then a counter is published; full bandwidth.
    Simple,
}

impl Protocol {
    pub const ALL: [Protocol; 2] = [Protocol::LowLatency, Protocol::Simple];
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::LowLatency => "LL",
            Protocol::Simple => "simple",
        })
    }
}

/// How two ranks are connected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportKind {
    /// Ranks of one process: the receiver's buffers are reached through pointers.
    P2p,
    /// Ranks of one host in different processes: memory exported as a file descriptor (memfd
    /// on CPU devices), passed over a Unix socket and mapped by the peer.
    Shm,
    /// UCX (`libucp.so.0`, opened at run time): shared memory, TCP, InfiniBand or RoCE, as UCX
    /// chooses.
    Ucx,
    /// Plain TCP sockets: the fallback that always works.
    Tcp,
}

impl TransportKind {
    pub const ALL: [TransportKind; 4] =
        [TransportKind::P2p, TransportKind::Shm, TransportKind::Ucx, TransportKind::Tcp];

    pub fn name(self) -> &'static str {
        match self {
            TransportKind::P2p => "p2p",
            TransportKind::Shm => "shm",
            TransportKind::Ucx => "ucx",
            TransportKind::Tcp => "tcp",
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Who moves the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Engine {
    /// Native host code run in stream order on the rank's stream, over the transports. The
    /// default on CPU devices; GPUs whose peers are in other processes use it through pinned
    /// host staging buffers.
    Host,
    /// Kernels of the kernel language over peer pointers, ordered between ranks by events
    /// (every rank in one process), or, for ranks of one host in several processes, over
    /// staging buffers in exportable device memory ordered by stream memory operations. The
    /// default on GPUs of one host; on CPU devices it runs the same kernels on the CPU
    /// executor (for checking the GPU data path without a GPU).
    Device,
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Engine::Host => "host",
            Engine::Device => "device",
        })
    }
}

/// How much the library logs to standard error (`FERROCM_CCL_DEBUG`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DebugLevel {
    #[default]
    None,
    /// Failures and fallbacks.
    Warn,
    /// Initialisation, topology and transports, and one line per operation (algorithm,
    /// protocol, sizes).
    Info,
    /// Everything above, plus each algorithm step.
    Trace,
}

/// A communicator's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// How long an operation may wait for the other ranks before the communicator fails.
    pub timeout: Duration,
    /// Forces an algorithm where the operation has it (`FERROCM_CCL_ALGO`).
    pub algorithm: Option<Algorithm>,
    /// Forces a protocol on shared-memory connections (`FERROCM_CCL_PROTO`).
    pub protocol: Option<Protocol>,
    /// Forces one transport between every pair of ranks it can connect
    /// (`FERROCM_CCL_TRANSPORT`): `tcp` or `ucx` to test network paths on one machine.
    pub transport: Option<TransportKind>,
    /// Forces the engine (`FERROCM_CCL_ENGINE`).
    pub engine: Option<Engine>,
    /// Logging (`FERROCM_CCL_DEBUG`).
    pub debug: DebugLevel,
    /// Bytes of the staging lane each rank keeps for each other rank in the device engine
    /// between processes (`FERROCM_CCL_BUFFSIZE`, as NCCL's `NCCL_BUFFSIZE`; a rank's device
    /// memory for it is `buffsize * (nranks - 1)`): a power of two from
    /// [`Config::MIN_BUFFSIZE`] to [`Config::MAX_BUFFSIZE`], split into 4 slots; messages larger
    /// than a slot pipeline through it. Read once at init; every rank must use the same value
    /// (init fails naming the ranks that differ).
    pub buffsize: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            timeout: Duration::from_secs(600),
            algorithm: None,
            protocol: None,
            transport: None,
            engine: None,
            debug: DebugLevel::None,
            buffsize: Config::DEFAULT_BUFFSIZE,
        }
    }
}

fn env(var: &'static str) -> Option<String> {
    std::env::var(var).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

fn parse_choice<T: Copy + fmt::Display>(var: &'static str, all: &[T]) -> Result<Option<T>> {
    let Some(v) = env(var) else { return Ok(None) };
    all.iter().copied().find(|c| c.to_string().eq_ignore_ascii_case(&v)).map(Some).ok_or_else(|| {
        let names: Vec<String> = all.iter().map(|c| c.to_string()).collect();
        CclError::InvalidEnvironment { var, value: v, allowed: format!("one of {}", names.join(", ")) }
    })
}

impl Config {
    /// The default staging area: 4 MiB (four slots of 1 MiB).
    pub const DEFAULT_BUFFSIZE: usize = 4 << 20;
    /// The smallest staging area: 16 KiB (four slots of 4 KiB).
    pub const MIN_BUFFSIZE: usize = 16 << 10;
    /// The largest staging area: 1 GiB.
    pub const MAX_BUFFSIZE: usize = 1 << 30;

    /// Checks [`Config::buffsize`]: a power of two within [`Config::MIN_BUFFSIZE`] and
    /// [`Config::MAX_BUFFSIZE`].
    pub(crate) fn check_buffsize(bytes: usize) -> Result<usize> {
        if bytes.is_power_of_two() && (Config::MIN_BUFFSIZE..=Config::MAX_BUFFSIZE).contains(&bytes) {
            Ok(bytes)
        } else {
            Err(CclError::invalid("staging area size (buffsize)", bytes, Config::buffsize_allowed()))
        }
    }

    fn buffsize_allowed() -> String {
        format!("a power of two from {} to {} bytes", Config::MIN_BUFFSIZE, Config::MAX_BUFFSIZE)
    }

    /// The defaults, changed by the `FERROCM_CCL_*` variables that are set. A variable with a
    /// value the library does not know is an error naming it and what is allowed.
    pub fn from_env() -> Result<Config> {
        let mut c = Config::default();
        if let Some(v) = env("FERROCM_CCL_TIMEOUT") {
            let secs: f64 =
                v.parse().ok().filter(|s: &f64| s.is_finite() && *s > 0.0 && *s < 1e9).ok_or_else(|| {
                    CclError::InvalidEnvironment {
                        var: "FERROCM_CCL_TIMEOUT",
                        value: v.clone(),
                        allowed: "a positive number of seconds (fractions allowed, e.g. 0.5)".into(),
                    }
                })?;
            c.timeout = Duration::from_secs_f64(secs);
        }
        if let Some(v) = env("FERROCM_CCL_BUFFSIZE") {
            c.buffsize = v.parse().ok().and_then(|b| Config::check_buffsize(b).ok()).ok_or_else(|| {
                CclError::InvalidEnvironment {
                    var: "FERROCM_CCL_BUFFSIZE",
                    value: v.clone(),
                    allowed: format!("{} (e.g. 4194304)", Config::buffsize_allowed()),
                }
            })?;
        }
        c.algorithm = parse_choice("FERROCM_CCL_ALGO", &Algorithm::ALL)?;
        c.protocol = parse_choice("FERROCM_CCL_PROTO", &Protocol::ALL)?;
        c.transport = parse_choice("FERROCM_CCL_TRANSPORT", &TransportKind::ALL)?;
        c.engine = parse_choice("FERROCM_CCL_ENGINE", &[Engine::Host, Engine::Device])?;
        if let Some(v) = env("FERROCM_CCL_DEBUG") {
            c.debug = match v.to_ascii_uppercase().as_str() {
                "NONE" | "0" => DebugLevel::None,
                "WARN" => DebugLevel::Warn,
                "INFO" => DebugLevel::Info,
                "TRACE" => DebugLevel::Trace,
                _ => {
                    return Err(CclError::InvalidEnvironment {
                        var: "FERROCM_CCL_DEBUG",
                        value: v,
                        allowed: "NONE, WARN, INFO or TRACE".into(),
                    })
                }
            };
        }
        Ok(c)
    }

    /// The same settings with another timeout.
    pub fn with_timeout(self, timeout: Duration) -> Config {
        Config { timeout, ..self }
    }

    /// The same settings with a forced algorithm.
    pub fn with_algorithm(self, algorithm: Algorithm) -> Config {
        Config { algorithm: Some(algorithm), ..self }
    }

    /// The same settings with a forced protocol.
    pub fn with_protocol(self, protocol: Protocol) -> Config {
        Config { protocol: Some(protocol), ..self }
    }

    /// The same settings with a forced transport.
    pub fn with_transport(self, transport: TransportKind) -> Config {
        Config { transport: Some(transport), ..self }
    }

    /// The same settings with a forced engine.
    pub fn with_engine(self, engine: Engine) -> Config {
        Config { engine: Some(engine), ..self }
    }

    /// The same settings with another staging area size (checked at init: see
    /// [`Config::buffsize`]).
    pub fn with_buffsize(self, buffsize: usize) -> Config {
        Config { buffsize, ..self }
    }

    /// The same settings with another debug level.
    pub fn with_debug(self, debug: DebugLevel) -> Config {
        Config { debug, ..self }
    }
}
