//! UCX (`libucp.so.0`, opened at run time with `libloading`; nothing links against it): the
//! transport for ranks on other hosts, where UCX picks InfiniBand, RoCE or TCP, and, forced, on
//! one host over its shared-memory and TCP transports. Each rank has one UCP context and
//! worker; peers exchange worker addresses through the bootstrap and connect endpoints. Messages
//! are tag-matched with the sender's rank as the tag, so UCX keeps them in order per sender.
//!
//! One proxy thread per rank owns the worker (created `UCS_THREAD_MODE_SERIALIZED`): it posts a
//! receive into a free FIFO slot for every peer, progresses the worker, publishes completed
//! receives, and posts the sends that ranks queue to it (each send owns a copy of its bytes, so a
//! sender that gives up on a timeout never leaves UCX reading freed memory).
//!
//! Layers after cudarc: [`sys`] resolves the symbols, the functions below wrap each call and turn
//! `ucs_status_t` into an error carrying `ucs_status_string`.

use std::collections::VecDeque;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use super::{Link, SendConn, SendError, SetupCtx, Transport};
use crate::config::{Protocol, TransportKind};
use crate::fifo::{Fifo, FifoWriter, HeapFifo, SLOT_BYTES};
use crate::state::{lock, Health, Waiter};
use crate::{CclError, Result};

#[allow(non_camel_case_types)]
mod sys {
    use super::*;

    pub type ucs_status_t = c_int;
    pub type Handle = *mut c_void;

    pub const UCS_OK: ucs_status_t = 0;
    pub const UCS_INPROGRESS: ucs_status_t = 1;
    pub const UCS_ERR_LAST: isize = -100;

    pub const UCP_PARAM_FIELD_FEATURES: u64 = 1 << 0;
    pub const UCP_FEATURE_TAG: u64 = 1 << 0;
    pub const UCP_WORKER_PARAM_FIELD_THREAD_MODE: u64 = 1 << 0;
    pub const UCS_THREAD_MODE_SERIALIZED: u64 = 1;
    pub const UCP_EP_PARAM_FIELD_REMOTE_ADDRESS: u64 = 1 << 0;
    pub const UCP_OP_ATTR_FIELD_FLAGS: u32 = 1 << 4;
    pub const UCP_OP_ATTR_FLAG_NO_IMM_CMPL: u32 = 1 << 16;
    pub const UCP_EP_CLOSE_FLAG_FORCE: u32 = 1 << 0;

    /// `ucp_tag_recv_info_t`.
    #[repr(C)]
    pub struct TagRecvInfo {
        pub sender_tag: u64,
        pub length: usize,
    }

    /// The functions used, resolved once from `libucp.so.0` and `libucs.so.0`.
    pub struct Lib {
        pub init_version:
            unsafe extern "C" fn(c_uint, c_uint, *const c_void, *const c_void, *mut Handle) -> ucs_status_t,
        pub cleanup: unsafe extern "C" fn(Handle),
        pub worker_create: unsafe extern "C" fn(Handle, *const c_void, *mut Handle) -> ucs_status_t,
        pub worker_destroy: unsafe extern "C" fn(Handle),
        pub worker_get_address: unsafe extern "C" fn(Handle, *mut *mut c_void, *mut usize) -> ucs_status_t,
        pub worker_release_address: unsafe extern "C" fn(Handle, *mut c_void),
        pub worker_progress: unsafe extern "C" fn(Handle) -> c_uint,
        pub ep_create: unsafe extern "C" fn(Handle, *const c_void, *mut Handle) -> ucs_status_t,
        pub ep_close_nbx: unsafe extern "C" fn(Handle, *const c_void) -> *mut c_void,
        pub tag_send_nbx:
            unsafe extern "C" fn(Handle, *const c_void, usize, u64, *const c_void) -> *mut c_void,
        pub tag_recv_nbx:
            unsafe extern "C" fn(Handle, *mut c_void, usize, u64, u64, *const c_void) -> *mut c_void,
        pub tag_recv_request_test: unsafe extern "C" fn(*mut c_void, *mut TagRecvInfo) -> ucs_status_t,
        pub request_check_status: unsafe extern "C" fn(*mut c_void) -> ucs_status_t,
        pub request_cancel: unsafe extern "C" fn(Handle, *mut c_void),
        pub request_free: unsafe extern "C" fn(*mut c_void),
        pub status_string: unsafe extern "C" fn(ucs_status_t) -> *const c_char,
        _ucp: libloading::Library,
        _ucs: libloading::Library,
    }

    impl Lib {
        pub fn load() -> std::result::Result<Lib, String> {
            // SAFETY: loading UCX runs its initialisers, which have no preconditions.
            let ucs = unsafe { libloading::Library::new("libucs.so.0") }.map_err(|e| e.to_string())?;
            // SAFETY: as above.
            let ucp = unsafe { libloading::Library::new("libucp.so.0") }.map_err(|e| e.to_string())?;
            macro_rules! sym {
                ($lib:expr, $name:literal) => {
                    // SAFETY: the symbol is declared above with the C signature of UCX's
                    // public header (ucp.h, UCX 1.10 and later).
                    *unsafe { $lib.get($name) }
                        .map_err(|e| format!("{}: {e}", String::from_utf8_lossy(&$name[..$name.len() - 1])))?
                };
            }
            Ok(Lib {
                init_version: sym!(ucp, b"ucp_init_version\0"),
                cleanup: sym!(ucp, b"ucp_cleanup\0"),
                worker_create: sym!(ucp, b"ucp_worker_create\0"),
                worker_destroy: sym!(ucp, b"ucp_worker_destroy\0"),
                worker_get_address: sym!(ucp, b"ucp_worker_get_address\0"),
                worker_release_address: sym!(ucp, b"ucp_worker_release_address\0"),
                worker_progress: sym!(ucp, b"ucp_worker_progress\0"),
                ep_create: sym!(ucp, b"ucp_ep_create\0"),
                ep_close_nbx: sym!(ucp, b"ucp_ep_close_nbx\0"),
                tag_send_nbx: sym!(ucp, b"ucp_tag_send_nbx\0"),
                tag_recv_nbx: sym!(ucp, b"ucp_tag_recv_nbx\0"),
                tag_recv_request_test: sym!(ucp, b"ucp_tag_recv_request_test\0"),
                request_check_status: sym!(ucp, b"ucp_request_check_status\0"),
                request_cancel: sym!(ucp, b"ucp_request_cancel\0"),
                request_free: sym!(ucp, b"ucp_request_free\0"),
                status_string: sym!(ucs, b"ucs_status_string\0"),
                _ucp: ucp,
                _ucs: ucs,
            })
        }
    }
}

fn lib() -> std::result::Result<&'static sys::Lib, String> {
    static LIB: OnceLock<std::result::Result<sys::Lib, String>> = OnceLock::new();
    LIB.get_or_init(sys::Lib::load).as_ref().map_err(Clone::clone)
}

/// Whether UCX can be used here (`libucp.so.0` found with every symbol), and if not, why.
pub fn available() -> std::result::Result<(), String> {
    lib().map(|_| ())
}

fn status_text(l: &sys::Lib, s: sys::ucs_status_t) -> String {
    // SAFETY: ucs_status_string returns a static string for every status.
    let p = unsafe { (l.status_string)(s) };
    if p.is_null() {
        return format!("status {s}");
    }
    // SAFETY: a NUL-terminated static string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn check(l: &sys::Lib, what: &str, s: sys::ucs_status_t) -> std::result::Result<(), String> {
    if s == sys::UCS_OK {
        Ok(())
    } else {
        Err(format!("{what}: {}", status_text(l, s)))
    }
}

/// A `ucs_status_ptr_t`: completed, an error, or a request still in flight.
enum Posted {
    Done,
    Failed(sys::ucs_status_t),
    Pending(*mut c_void),
}

fn posted(p: *mut c_void) -> Posted {
    if p.is_null() {
        Posted::Done
    } else if (p as usize) >= (sys::UCS_ERR_LAST as usize) {
        Posted::Failed(p as isize as sys::ucs_status_t)
    } else {
        Posted::Pending(p)
    }
}

/// The UCP context and worker of one rank.
struct Worker {
    lib: &'static sys::Lib,
    context: sys::Handle,
    worker: sys::Handle,
    eps: Vec<(usize, sys::Handle)>,
}

// SAFETY: the worker is created SERIALIZED and used by one thread at a time: the setup thread,
// then (handed over) only the proxy thread. No method takes `&self` from two threads.
unsafe impl Send for Worker {}
// SAFETY: as above; shared references are never used concurrently.
unsafe impl Sync for Worker {}

impl Worker {
    fn new(lib: &'static sys::Lib) -> std::result::Result<Worker, String> {
        let mut params = [0u64; 16];
        params[0] = sys::UCP_PARAM_FIELD_FEATURES;
        params[1] = sys::UCP_FEATURE_TAG;
        let mut context: sys::Handle = std::ptr::null_mut();
        // SAFETY: `params` is a zeroed ucp_params_t (field_mask, features) larger than the
        // struct; a null config reads UCX's defaults from the environment.
        check(lib, "ucp_init", unsafe {
            (lib.init_version)(1, 10, params.as_ptr() as *const c_void, std::ptr::null(), &mut context)
        })?;
        let mut wp = [0u64; 32];
        wp[0] = sys::UCP_WORKER_PARAM_FIELD_THREAD_MODE;
        wp[1] = sys::UCS_THREAD_MODE_SERIALIZED;
        let mut worker: sys::Handle = std::ptr::null_mut();
        // SAFETY: a live context and a zeroed ucp_worker_params_t (field_mask, thread_mode).
        let s = unsafe { (lib.worker_create)(context, wp.as_ptr() as *const c_void, &mut worker) };
        if let Err(e) = check(lib, "ucp_worker_create", s) {
            // SAFETY: the context was created above and has no worker.
            unsafe { (lib.cleanup)(context) };
            return Err(e);
        }
        Ok(Worker { lib, context, worker, eps: Vec::new() })
    }

    fn address(&self) -> std::result::Result<Vec<u8>, String> {
        let (mut p, mut len) = (std::ptr::null_mut(), 0usize);
        // SAFETY: a live worker and valid out pointers.
        check(self.lib, "ucp_worker_get_address", unsafe {
            (self.lib.worker_get_address)(self.worker, &mut p, &mut len)
        })?;
        // SAFETY: UCX returned `len` bytes at `p`, released just below.
        let v = unsafe { std::slice::from_raw_parts(p as *const u8, len) }.to_vec();
        // SAFETY: the address came from ucp_worker_get_address on this worker.
        unsafe { (self.lib.worker_release_address)(self.worker, p) };
        Ok(v)
    }

    fn connect(&mut self, peer: usize, address: &[u8]) -> std::result::Result<(), String> {
        let mut ep_params = [0u64; 32];
        ep_params[0] = sys::UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
        ep_params[1] = address.as_ptr() as u64;
        let mut ep: sys::Handle = std::ptr::null_mut();
        // SAFETY: a live worker; a zeroed ucp_ep_params_t with field_mask and the address of a
        // peer's worker, which UCX copies during the call.
        check(self.lib, "ucp_ep_create", unsafe {
            (self.lib.ep_create)(self.worker, ep_params.as_ptr() as *const c_void, &mut ep)
        })?;
        self.eps.push((peer, ep));
        Ok(())
    }

    fn progress(&self) -> u32 {
        // SAFETY: a live worker, used by one thread at a time.
        unsafe { (self.lib.worker_progress)(self.worker) }
    }

    /// Waits (progressing) for a request to complete, then frees it.
    fn finish(&self, req: *mut c_void) {
        for _ in 0..1_000_000 {
            // SAFETY: a live request of this worker.
            if unsafe { (self.lib.request_check_status)(req) } != sys::UCS_INPROGRESS {
                break;
            }
            self.progress();
        }
        // SAFETY: the request is complete (or given up on after a long time) and freed once.
        unsafe { (self.lib.request_free)(req) };
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let mut param = [0u64; 16];
        param[0] = sys::UCP_OP_ATTR_FIELD_FLAGS as u64 | ((sys::UCP_EP_CLOSE_FLAG_FORCE as u64) << 32);
        let eps: Vec<(usize, sys::Handle)> = self.eps.drain(..).collect();
        for (_, ep) in eps {
            // SAFETY: a live endpoint closed once; `param` is a zeroed ucp_request_param_t with
            // op_attr_mask = FLAGS and flags = FORCE.
            let p = unsafe { (self.lib.ep_close_nbx)(ep, param.as_ptr() as *const c_void) };
            if let Posted::Pending(r) = posted(p) {
                self.finish(r);
            }
        }
        // SAFETY: the worker and context were created in `new`, destroyed once, after every
        // endpoint and request.
        unsafe {
            (self.lib.worker_destroy)(self.worker);
            (self.lib.cleanup)(self.context);
        }
    }
}

/// A send queued to the proxy.
struct SendJob {
    peer: usize,
    data: Vec<u8>,
    /// 0 in flight, 1 done, 2 failed.
    done: Arc<AtomicU8>,
}

struct Shared {
    jobs: Mutex<VecDeque<SendJob>>,
    stop: AtomicBool,
    error: Mutex<Option<String>>,
    /// The communicator's health, set once connected: a failed receive fails it.
    health: OnceLock<Arc<Health>>,
}

struct UcxSender {
    shared: Arc<Shared>,
    peer: usize,
}

impl SendConn for UcxSender {
    fn send(&mut self, data: &[u8], _proto: Protocol, w: &Waiter) -> std::result::Result<(), SendError> {
        let done = Arc::new(AtomicU8::new(0));
        lock(&self.shared.jobs).push_back(SendJob {
            peer: self.peer,
            data: data.to_vec(),
            done: done.clone(),
        });
        let state = w.wait_for(Some(self.peer), || match done.load(Ordering::Acquire) {
            0 => None,
            s => Some(s),
        })?;
        if state == 2 {
            let e = lock(&self.shared.error).clone().unwrap_or_else(|| "a UCX send failed".into());
            return Err(SendError::Broken(e));
        }
        Ok(())
    }
    fn supports_ll(&self) -> bool {
        false
    }
}

struct PeerRecv {
    peer: usize,
    writer: FifoWriter,
    posted: Option<*mut c_void>,
    info: Box<sys::TagRecvInfo>,
}

fn proxy_loop(worker: Worker, mut peers: Vec<PeerRecv>, shared: Arc<Shared>, rank: usize) {
    let lib = worker.lib;
    let mut in_flight: Vec<(*mut c_void, SendJob)> = Vec::new();
    let mut idle = 0u32;
    let fail = |e: String| {
        lock(&shared.error).get_or_insert(e);
    };
    // Receives always return a request (never complete inside the call), so the length of
    // every message comes from ucp_tag_recv_request_test.
    let mut recv_param = [0u64; 16];
    recv_param[0] = sys::UCP_OP_ATTR_FLAG_NO_IMM_CMPL as u64;
    while !shared.stop.load(Ordering::Acquire) {
        let mut busy = false;
        // Post new sends.
        let jobs: Vec<SendJob> = lock(&shared.jobs).drain(..).collect();
        for job in jobs {
            busy = true;
            let Some(&(_, ep)) = worker.eps.iter().find(|(p, _)| *p == job.peer) else {
                job.done.store(2, Ordering::Release);
                continue;
            };
            let param = [0u64; 16];
            // SAFETY: a live endpoint; the data is owned by the job, which is kept until the
            // request completes; `param` is a zeroed ucp_request_param_t (no attributes).
            let p = unsafe {
                (lib.tag_send_nbx)(
                    ep,
                    job.data.as_ptr() as *const c_void,
                    job.data.len(),
                    rank as u64,
                    param.as_ptr() as *const c_void,
                )
            };
            match posted(p) {
                Posted::Done => job.done.store(1, Ordering::Release),
                Posted::Failed(s) => {
                    fail(format!("ucp_tag_send_nbx to rank {}: {}", job.peer, status_text(lib, s)));
                    job.done.store(2, Ordering::Release);
                }
                Posted::Pending(r) => in_flight.push((r, job)),
            }
        }
        // Post receives into free FIFO slots.
        for pr in peers.iter_mut() {
            if pr.posted.is_some() {
                continue;
            }
            let Some(slot) = pr.writer.try_slot() else { continue };
            // SAFETY: a live worker; the slot is free and stays the proxy's until published;
            // `recv_param` is a zeroed ucp_request_param_t asking for no immediate completion.
            let p = unsafe {
                (lib.tag_recv_nbx)(
                    worker.worker,
                    slot.as_mut_ptr() as *mut c_void,
                    SLOT_BYTES,
                    pr.peer as u64,
                    u64::MAX,
                    recv_param.as_ptr() as *const c_void,
                )
            };
            match posted(p) {
                Posted::Pending(r) => {
                    pr.posted = Some(r);
                    busy = true;
                }
                Posted::Failed(s) => {
                    fail(format!("ucp_tag_recv_nbx from rank {}: {}", pr.peer, status_text(lib, s)))
                }
                Posted::Done => fail("ucp_tag_recv_nbx completed inside the call despite NO_IMM_CMPL".into()),
            }
        }
        while worker.progress() > 0 {
            busy = true;
        }
        in_flight.retain(|(r, job)| {
            // SAFETY: a live request of this worker.
            let s = unsafe { (lib.request_check_status)(*r) };
            if s == sys::UCS_INPROGRESS {
                return true;
            }
            if s == sys::UCS_OK {
                job.done.store(1, Ordering::Release);
            } else {
                lock(&shared.error).get_or_insert(format!(
                    "UCX send to rank {}: {}",
                    job.peer,
                    status_text(lib, s)
                ));
                job.done.store(2, Ordering::Release);
            }
            // SAFETY: a completed request, freed once.
            unsafe { (lib.request_free)(*r) };
            busy = true;
            false
        });
        for pr in peers.iter_mut() {
            let Some(r) = pr.posted else { continue };
            // SAFETY: a live receive request; `info` is a valid out pointer.
            let s = unsafe { (lib.tag_recv_request_test)(r, &mut *pr.info) };
            if s == sys::UCS_INPROGRESS {
                continue;
            }
            busy = true;
            if s == sys::UCS_OK {
                pr.writer.publish(pr.info.length.min(SLOT_BYTES));
            } else {
                let reason = format!("receiving from rank {}: {}", pr.peer, status_text(lib, s));
                if let Some(h) = shared.health.get() {
                    h.fail(CclError::Transport { transport: "ucx", peer: pr.peer, reason: reason.clone() });
                }
                fail(reason);
            }
            // SAFETY: a completed request, freed once.
            unsafe { (lib.request_free)(r) };
            pr.posted = None;
        }
        if busy {
            idle = 0;
        } else {
            idle += 1;
            if idle > 256 {
                std::thread::sleep(Duration::from_micros(if idle > 4096 { 200 } else { 20 }));
            } else {
                std::thread::yield_now();
            }
        }
    }
    // Cancel what is still posted, then let the worker's drop close endpoints.
    for pr in peers.iter_mut() {
        if let Some(r) = pr.posted.take() {
            // SAFETY: a live request of this worker, cancelled then completed and freed once.
            unsafe { (lib.request_cancel)(worker.worker, r) };
            worker.finish(r);
        }
    }
    for (r, job) in in_flight.drain(..) {
        worker.finish(r);
        job.done.store(2, Ordering::Release);
    }
    drop(worker);
}

pub(crate) struct Ucx {
    worker: Option<Worker>,
    shared: Arc<Shared>,
    proxy: Option<JoinHandle<()>>,
}

impl Ucx {
    pub fn new() -> Result<Ucx> {
        lib().map_err(|reason| CclError::Unavailable {
            what: "UCX (libucp.so.0)",
            reason: format!(
                "{reason}; install UCX (Debian: apt-get install libucx0) or use the tcp transport"
            ),
        })?;
        Ok(Ucx {
            worker: None,
            shared: Arc::new(Shared {
                jobs: Mutex::default(),
                stop: AtomicBool::new(false),
                error: Mutex::default(),
                health: OnceLock::new(),
            }),
            proxy: None,
        })
    }
}

impl Drop for Ucx {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(p) = self.proxy.take() {
            let _ = p.join();
        }
    }
}

impl Transport for Ucx {
    fn prepare(&mut self, ctx: &SetupCtx, _peers: &[usize]) -> Result<Vec<u8>> {
        let err = |reason: String| CclError::Transport { transport: "ucx", peer: ctx.rank, reason };
        let l = lib().map_err(err)?;
        let w = Worker::new(l).map_err(err)?;
        let addr = w.address().map_err(err)?;
        self.worker = Some(w);
        Ok(addr)
    }

    fn connect(
        &mut self,
        ctx: &SetupCtx,
        peers: &[usize],
        published: &[Vec<u8>],
    ) -> Result<Vec<(usize, Link)>> {
        let mut worker = self.worker.take().ok_or_else(|| CclError::bootstrap("ucx", "not prepared"))?;
        let mut links = Vec::new();
        let mut recvs = Vec::new();
        for &p in peers {
            worker.connect(p, &published[p]).map_err(|reason| CclError::Transport {
                transport: "ucx",
                peer: p,
                reason,
            })?;
            let fifo = Fifo::new(HeapFifo::new());
            recvs.push(PeerRecv {
                peer: p,
                writer: fifo.writer(),
                posted: None,
                info: Box::new(sys::TagRecvInfo { sender_tag: 0, length: 0 }),
            });
            let sender = UcxSender { shared: self.shared.clone(), peer: p };
            links.push((
                p,
                Link { kind: TransportKind::Ucx, sender: Box::new(sender), reader: fifo.reader() },
            ));
        }
        let _ = self.shared.health.set(ctx.health.clone());
        let shared = self.shared.clone();
        let rank = ctx.rank;
        // SAFETY-relevant: the receive requests hold raw pointers; the proxy thread is their only
        // user, so moving them with it is sound.
        struct SendBox(Worker, Vec<PeerRecv>);
        // SAFETY: see above; the worker is SERIALIZED and handed over whole.
        unsafe impl Send for SendBox {}
        let moved = SendBox(worker, recvs);
        self.proxy = Some(
            std::thread::Builder::new()
                .name(format!("ferrocm-ccl-ucx{rank}"))
                .spawn(move || {
                    let whole = moved;
                    let SendBox(worker, recvs) = whole;
                    proxy_loop(worker, recvs, shared, rank)
                })
                .map_err(|e| CclError::bootstrap("starting the UCX proxy", e))?,
        );
        Ok(links)
    }
}
