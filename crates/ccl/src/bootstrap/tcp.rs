//! The TCP bootstrap. A root thread (started by [`crate::UniqueId::new`], or by rank 0 for ids
//! computed from a launcher's environment) accepts one connection per rank and keeps it for the
//! communicator's life. Over it the root gathers what ranks publish, relays aborts, asks every
//! rank for its status when one reports a timeout, and tells everyone when a connection closes
//! without the rank having left (a dead rank).
//!
//! Messages are frames ([`crate::wire`]) whose first byte is their kind.

use std::collections::{BTreeMap, HashMap};
use std::io::ErrorKind;
use std::net::{Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{
    decode_failure, decode_status, encode_failure, encode_status, timeout_error, Bootstrap, TimeoutReport,
};
use crate::id::{RootMode, UniqueId};
use crate::state::{lock, Health, RankState, RankStatus};
use crate::wire::{read_frame, write_frame, Malformed, Reader, Writer};
use crate::{CclError, Result};

// rank -> root
const HELLO: u8 = 1;
const GATHER: u8 = 2;
const ABORT: u8 = 3;
const TIMEOUT: u8 = 4;
const STATUS_REPLY: u8 = 5;
const BYE: u8 = 6;
const QUERY_GATHER: u8 = 7;
// root -> rank
const REFUSED: u8 = 101;
const GATHERED: u8 = 102;
const ABORT_NOTICE: u8 = 103;
const STATUS_REQUEST: u8 = 104;
const GATHER_STATUS: u8 = 105;

/// How long the root waits for every rank's status before it writes a timeout report.
const STATUS_ROUND: Duration = Duration::from_secs(2);

/// A number that is the same for every communicator of this process and different from every
/// other process's (to tell ranks of one process apart from ranks of another).
pub(crate) fn process_token() -> u64 {
    static TOKEN: OnceLock<u64> = OnceLock::new();
    *TOKEN.get_or_init(crate::id::random_u64)
}

/// Root threads running in this process, by magic, so the rank that hosts one can let it finish
/// serving the others before its process exits.
fn roots() -> &'static Mutex<HashMap<u64, JoinHandle<()>>> {
    static ROOTS: OnceLock<Mutex<HashMap<u64, JoinHandle<()>>>> = OnceLock::new();
    ROOTS.get_or_init(Default::default)
}

/// Ranks of each communicator (by magic) that live in this process and have not left.
fn local_ranks() -> &'static Mutex<HashMap<u64, usize>> {
    static L: OnceLock<Mutex<HashMap<u64, usize>>> = OnceLock::new();
    L.get_or_init(Default::default)
}

/// Waits (at most `timeout`) for this process's root of `magic`, if it hosts one, to finish:
/// the process must not exit (and close the root's connections) while ranks elsewhere still use
/// the communicator.
fn join_root(magic: u64, timeout: Duration) {
    let Some(handle) = lock(roots()).remove(&magic) else { return };
    let deadline = Instant::now() + timeout;
    while !handle.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    if handle.is_finished() {
        let _ = handle.join();
    }
}

/// Starts the root of `id` on `listener`.
pub(crate) fn spawn_root(listener: TcpListener, id: UniqueId) -> Result<()> {
    listener.set_nonblocking(true).map_err(|e| CclError::bootstrap("starting the root", e))?;
    let handle = std::thread::Builder::new()
        .name("ferrocm-ccl-root".into())
        .spawn(move || Root::new(id.magic).run(listener))
        .map_err(|e| CclError::bootstrap("starting the root thread", e))?;
    lock(roots()).insert(id.magic, handle);
    Ok(())
}

enum Event {
    Conn(TcpStream),
    Frame(u64, Vec<u8>),
    Closed(u64, String),
}

struct Conn {
    writer: TcpStream,
    rank: Option<usize>,
}

struct Round {
    token: u64,
    report: TimeoutReport,
    replies: Vec<Option<RankStatus>>,
    deadline: Instant,
}

struct Root {
    magic: u64,
    nranks: usize,
    conns: HashMap<u64, Conn>,
    by_rank: Vec<Option<u64>>,
    processes: Vec<u64>,
    left: Vec<bool>,
    dead: Vec<bool>,
    gathers: BTreeMap<u64, Vec<Option<Vec<u8>>>>,
    failure: Option<Vec<u8>>,
    round: Option<Round>,
    next_token: u64,
}

fn frame(kind: u8, f: impl FnOnce(&mut Writer)) -> Vec<u8> {
    let mut w = Writer::new();
    w.u8(kind);
    f(&mut w);
    w.finish()
}

impl Root {
    fn new(magic: u64) -> Root {
        Root {
            magic,
            nranks: 0,
            conns: HashMap::new(),
            by_rank: Vec::new(),
            processes: Vec::new(),
            left: Vec::new(),
            dead: Vec::new(),
            gathers: BTreeMap::new(),
            failure: None,
            round: None,
            next_token: 1,
        }
    }

    fn run(mut self, listener: TcpListener) {
        let (tx, rx) = channel::<Event>();
        let stop = Arc::new(AtomicBool::new(false));
        let acceptor = {
            let (tx, stop) = (tx.clone(), stop.clone());
            std::thread::Builder::new().name("ferrocm-ccl-accept".into()).spawn(move || {
                while !stop.load(Ordering::Acquire) {
                    match listener.accept() {
                        Ok((s, _)) => {
                            if tx.send(Event::Conn(s)).is_err() {
                                return;
                            }
                        }
                        Err(e) if e.kind() == ErrorKind::WouldBlock => {
                            std::thread::sleep(Duration::from_millis(10))
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(10)),
                    }
                }
            })
        };
        let mut next_conn = 0u64;
        loop {
            let timeout = self.round.as_ref().map(|r| r.deadline.saturating_duration_since(Instant::now()));
            let event = match timeout {
                Some(t) => match rx.recv_timeout(t) {
                    Ok(e) => Some(e),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => break,
                },
                None => match rx.recv() {
                    Ok(e) => Some(e),
                    Err(_) => break,
                },
            };
            match event {
                Some(Event::Conn(s)) => {
                    next_conn += 1;
                    self.accept(next_conn, s, &tx);
                }
                Some(Event::Frame(c, bytes)) => {
                    if let Err(e) = self.handle(c, &bytes) {
                        self.refuse(c, &format!("the root could not read a message: {e}"));
                    }
                }
                Some(Event::Closed(c, why)) => self.closed(c, &why),
                None => {}
            }
            if self.round.as_ref().is_some_and(|r| Instant::now() >= r.deadline) {
                self.finish_round();
            }
            if self.nranks > 0 && (0..self.nranks).all(|r| self.left[r] || self.dead[r]) {
                break;
            }
        }
        stop.store(true, Ordering::Release);
        if let Ok(a) = acceptor {
            let _ = a.join();
        }
    }

    fn accept(&mut self, id: u64, s: TcpStream, tx: &Sender<Event>) {
        let _ = s.set_nodelay(true);
        let _ = s.set_nonblocking(false);
        let Ok(mut reader) = s.try_clone() else { return };
        let tx = tx.clone();
        let spawned = std::thread::Builder::new().name("ferrocm-ccl-root-conn".into()).spawn(move || loop {
            match read_frame(&mut reader) {
                Ok(Some(f)) => {
                    if tx.send(Event::Frame(id, f)).is_err() {
                        return;
                    }
                }
                Ok(None) => {
                    let _ = tx.send(Event::Closed(id, "the connection closed".into()));
                    return;
                }
                Err(e) => {
                    let _ = tx.send(Event::Closed(id, e.to_string()));
                    return;
                }
            }
        });
        if spawned.is_ok() {
            self.conns.insert(id, Conn { writer: s, rank: None });
        }
    }

    fn send(&mut self, conn: u64, bytes: &[u8]) {
        if let Some(c) = self.conns.get_mut(&conn) {
            // A failed write means the rank is gone; its reader reports the closed connection.
            let _ = write_frame(&mut c.writer, bytes);
        }
    }

    fn send_rank(&mut self, rank: usize, bytes: &[u8]) {
        if let Some(Some(c)) = self.by_rank.get(rank).copied() {
            self.send(c, bytes);
        }
    }

    fn live(&self) -> Vec<usize> {
        (0..self.nranks).filter(|&r| self.by_rank[r].is_some() && !self.dead[r] && !self.left[r]).collect()
    }

    fn refuse(&mut self, conn: u64, reason: &str) {
        let f = frame(REFUSED, |w| {
            w.str(reason);
        });
        self.send(conn, &f);
        if let Some(c) = self.conns.get(&conn) {
            let _ = c.writer.shutdown(Shutdown::Both);
        }
    }

    fn handle(&mut self, conn: u64, bytes: &[u8]) -> std::result::Result<(), Malformed> {
        let mut r = Reader::new(bytes);
        let kind = r.u8()?;
        let rank = self.conns.get(&conn).and_then(|c| c.rank);
        let Some(rank) = rank else {
            if kind != HELLO {
                return Err(Malformed("the first message must be a hello"));
            }
            return self.hello(conn, &mut r);
        };
        match kind {
            GATHER => {
                let tag = r.u64()?;
                let data = r.bytes()?.to_vec();
                self.gather(rank, tag, data);
            }
            QUERY_GATHER => {
                let tag = r.u64()?;
                let have: Vec<usize> = match self.gathers.get(&tag) {
                    Some(v) => (0..self.nranks).filter(|&i| v[i].is_some()).collect(),
                    None => Vec::new(),
                };
                let f = frame(GATHER_STATUS, |w| {
                    w.u64(tag);
                    super::put_ranks(w, &have);
                });
                self.send(conn, &f);
            }
            ABORT => {
                let failure = r.bytes()?.to_vec();
                decode_failure(&failure)?;
                self.fail(failure);
            }
            TIMEOUT => {
                let seq = r.u64()?;
                let operation = r.string()?;
                let waited = Duration::from_millis(r.u64()?);
                let waiting_on = r.u64()?;
                let report = TimeoutReport {
                    seq,
                    operation,
                    waited,
                    rank,
                    waiting_on: waiting_on.checked_sub(1).map(|p| p as usize),
                };
                self.start_round(report);
            }
            STATUS_REPLY => {
                let token = r.u64()?;
                let status = decode_status(&mut r)?;
                if let Some(round) = self.round.as_mut().filter(|x| x.token == token) {
                    round.replies[rank] = Some(status);
                    let live = self.live();
                    if live.iter().all(|&l| self.round.as_ref().is_some_and(|x| x.replies[l].is_some())) {
                        self.finish_round();
                    }
                }
            }
            BYE => {
                self.left[rank] = true;
            }
            _ => return Err(Malformed("unknown message kind")),
        }
        Ok(())
    }

    fn hello(&mut self, conn: u64, r: &mut Reader) -> std::result::Result<(), Malformed> {
        let (magic, rank, nranks, process) = (r.u64()?, r.usize()?, r.usize()?, r.u64()?);
        let info = r.bytes()?.to_vec();
        if magic != self.magic {
            self.refuse(conn, "its unique id belongs to another communicator (the magic numbers differ)");
            return Ok(());
        }
        if self.nranks == 0 {
            if nranks == 0 || nranks > 1 << 20 {
                self.refuse(conn, &format!("nranks = {nranks} is outside 1..={}", 1 << 20));
                return Ok(());
            }
            self.nranks = nranks;
            self.by_rank = vec![None; nranks];
            self.processes = vec![0; nranks];
            self.left = vec![false; nranks];
            self.dead = vec![false; nranks];
        }
        if nranks != self.nranks {
            let msg =
                format!("it says the communicator has {nranks} ranks but other ranks said {}", self.nranks);
            self.refuse(conn, &msg);
            return Ok(());
        }
        if rank >= nranks {
            self.refuse(conn, &format!("rank {rank} is outside 0..{nranks}"));
            return Ok(());
        }
        if self.by_rank[rank].is_some() {
            self.refuse(conn, &format!("rank {rank} has already joined (two processes claim the same rank)"));
            return Ok(());
        }
        if let Some(c) = self.conns.get_mut(&conn) {
            c.rank = Some(rank);
        }
        self.by_rank[rank] = Some(conn);
        self.processes[rank] = process;
        if let Some(f) = self.failure.clone() {
            let notice = frame(ABORT_NOTICE, |w| {
                w.bytes(&f);
            });
            self.send(conn, &notice);
        }
        self.gather(rank, 0, info);
        Ok(())
    }

    fn gather(&mut self, rank: usize, tag: u64, data: Vec<u8>) {
        let n = self.nranks;
        let entry = self.gathers.entry(tag).or_insert_with(|| vec![None; n]);
        entry[rank] = Some(data);
        if entry.iter().all(Option::is_some) {
            let all = self.gathers.remove(&tag).unwrap_or_default();
            let me = process_token();
            let host = self.processes.iter().position(|&p| p == me).map_or(0, |r| r as u64 + 1);
            let f = frame(GATHERED, |w| {
                w.u64(tag).u64(host).u32(n as u32);
                for d in all.iter().flatten() {
                    w.bytes(d);
                }
            });
            for r in 0..n {
                self.send_rank(r, &f);
            }
        }
    }

    fn fail(&mut self, failure: Vec<u8>) {
        if self.failure.is_some() {
            return;
        }
        let f = frame(ABORT_NOTICE, |w| {
            w.bytes(&failure);
        });
        self.failure = Some(failure);
        self.round = None;
        for r in self.live() {
            self.send_rank(r, &f);
        }
    }

    fn start_round(&mut self, report: TimeoutReport) {
        if let Some(f) = self.failure.clone() {
            let notice = frame(ABORT_NOTICE, |w| {
                w.bytes(&f);
            });
            self.send_rank(report.rank, &notice);
            return;
        }
        if self.round.is_some() {
            return;
        }
        let token = self.next_token;
        self.next_token += 1;
        self.round = Some(Round {
            token,
            report,
            replies: vec![None; self.nranks],
            deadline: Instant::now() + STATUS_ROUND,
        });
        let f = frame(STATUS_REQUEST, |w| {
            w.u64(token);
        });
        for r in self.live() {
            self.send_rank(r, &f);
        }
    }

    fn finish_round(&mut self) {
        let Some(round) = self.round.take() else { return };
        let dead: Vec<usize> =
            (0..self.nranks).filter(|&r| self.dead[r] || self.by_rank[r].is_none()).collect();
        let left: Vec<usize> = (0..self.nranks).filter(|&r| self.left[r]).collect();
        let e = timeout_error(&round.report, &round.replies, &dead, &left);
        self.fail(encode_failure(&e));
    }

    fn closed(&mut self, conn: u64, why: &str) {
        let Some(c) = self.conns.remove(&conn) else { return };
        let Some(rank) = c.rank else { return };
        if self.by_rank.get(rank) != Some(&Some(conn)) || self.left[rank] {
            return;
        }
        self.dead[rank] = true;
        let e = CclError::RankDied {
            ranks: vec![rank],
            operation: None,
            detail: format!(
                "its connection to the bootstrap root ended without it leaving the communicator ({why}); its \
                 process exited, crashed or was killed"
            ),
        };
        self.fail(encode_failure(&e));
    }
}

/// What a rank's reader thread has received from the root.
#[derive(Default)]
struct Inbox {
    gathered: HashMap<u64, Vec<Vec<u8>>>,
    gather_status: HashMap<u64, Vec<usize>>,
    refused: Option<String>,
    host_rank: Option<usize>,
}

struct ClientShared {
    inbox: Mutex<Inbox>,
    cv: Condvar,
    health: Arc<Health>,
    state: Arc<RankState>,
    writer: Mutex<TcpStream>,
    closing: AtomicBool,
    root: SocketAddr,
}

impl ClientShared {
    fn send(&self, bytes: &[u8]) -> std::io::Result<()> {
        write_frame(&mut *lock(&self.writer), bytes)
    }

    fn read_loop(self: Arc<Self>, mut reader: TcpStream) {
        let why = loop {
            match read_frame(&mut reader) {
                Ok(Some(f)) => {
                    if let Err(e) = self.handle(&f) {
                        break format!("a malformed message from the root ({e})");
                    }
                }
                Ok(None) => break "the root closed the connection".to_string(),
                Err(e) => break e.to_string(),
            }
        };
        if !self.closing.load(Ordering::Acquire) {
            let host = lock(&self.inbox).host_rank;
            let e = match host {
                Some(r) => CclError::RankDied {
                    ranks: vec![r],
                    operation: None,
                    detail: format!(
                        "the bootstrap root ran in its process and the connection to it ended ({why})"
                    ),
                },
                None => CclError::Aborted {
                    reason: format!("lost the connection to the bootstrap root at {} ({why})", self.root),
                },
            };
            self.health.fail(e);
        }
        self.cv.notify_all();
    }

    fn handle(&self, f: &[u8]) -> std::result::Result<(), Malformed> {
        let mut r = Reader::new(f);
        match r.u8()? {
            GATHERED => {
                let (tag, host, n) = (r.u64()?, r.u64()?, r.u32()? as usize);
                let all = (0..n)
                    .map(|_| r.bytes().map(<[u8]>::to_vec))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                let mut inbox = lock(&self.inbox);
                inbox.host_rank = host.checked_sub(1).map(|h| h as usize);
                inbox.gathered.insert(tag, all);
            }
            GATHER_STATUS => {
                let tag = r.u64()?;
                let have = super::get_ranks(&mut r)?;
                lock(&self.inbox).gather_status.insert(tag, have);
            }
            REFUSED => {
                lock(&self.inbox).refused = Some(r.string()?);
            }
            ABORT_NOTICE => {
                let e = decode_failure(r.bytes()?)?;
                self.health.fail(e);
            }
            STATUS_REQUEST => {
                let token = r.u64()?;
                let f = frame(STATUS_REPLY, |w| {
                    w.u64(token);
                    encode_status(w, &self.state.snapshot());
                });
                // A failed reply leaves this rank out of the report as "did not answer".
                let _ = self.send(&f);
            }
            _ => return Err(Malformed("unknown message kind")),
        }
        self.cv.notify_all();
        Ok(())
    }
}

/// A rank's end of the TCP bootstrap.
pub(crate) struct TcpBootstrap {
    rank: usize,
    nranks: usize,
    shared: Arc<ClientShared>,
    next_tag: AtomicU64,
    reader: Mutex<Option<JoinHandle<()>>>,
    magic: u64,
    timeout: Duration,
}

fn connect_with_retry(addr: SocketAddr, deadline: Instant) -> Result<TcpStream> {
    let mut last = String::new();
    while Instant::now() < deadline {
        let left = deadline.saturating_duration_since(Instant::now()).min(Duration::from_secs(5));
        match TcpStream::connect_timeout(&addr, left.max(Duration::from_millis(10))) {
            Ok(s) => return Ok(s),
            Err(e) => {
                // The root may not be listening yet (rank 0 starts it as it initialises).
                last = e.to_string();
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    Err(CclError::bootstrap("connecting to the root", format!("{addr}: {last} (gave up at the timeout)")))
}

impl TcpBootstrap {
    /// Joins the communicator of `id` as `rank` of `nranks`, publishing `info`; returns every
    /// rank's info.
    pub fn connect(
        id: &UniqueId,
        nranks: usize,
        rank: usize,
        info: Vec<u8>,
        timeout: Duration,
        health: Arc<Health>,
        state: Arc<RankState>,
    ) -> Result<(TcpBootstrap, Vec<Vec<u8>>)> {
        let deadline = Instant::now() + timeout;
        if id.mode == RootMode::RankZero && rank == 0 {
            let port = id.root.port();
            let bind: SocketAddr = if id.root.is_ipv4() {
                (Ipv4Addr::UNSPECIFIED, port).into()
            } else {
                (Ipv6Addr::UNSPECIFIED, port).into()
            };
            let listener = TcpListener::bind(bind).map_err(|e| {
                CclError::bootstrap("starting the root", format!("rank 0 could not listen on {bind}: {e}"))
            })?;
            spawn_root(listener, *id)?;
        }
        let stream = connect_with_retry(id.root, deadline)?;
        let _ = stream.set_nodelay(true);
        let reader = stream.try_clone().map_err(|e| CclError::bootstrap("connecting to the root", e))?;
        let shared = Arc::new(ClientShared {
            inbox: Mutex::default(),
            cv: Condvar::new(),
            health,
            state,
            writer: Mutex::new(stream),
            closing: AtomicBool::new(false),
            root: id.root,
        });
        let hello = frame(HELLO, |w| {
            w.u64(id.magic).u64(rank as u64).u64(nranks as u64).u64(process_token()).bytes(&info);
        });
        shared.send(&hello).map_err(|e| CclError::bootstrap("greeting the root", e))?;
        let handle = {
            let s = shared.clone();
            std::thread::Builder::new()
                .name(format!("ferrocm-ccl-boot{rank}"))
                .spawn(move || s.read_loop(reader))
                .map_err(|e| CclError::bootstrap("starting the bootstrap thread", e))?
        };
        *lock(local_ranks()).entry(id.magic).or_insert(0) += 1;
        let b = TcpBootstrap {
            rank,
            nranks,
            shared,
            next_tag: AtomicU64::new(1),
            reader: Mutex::new(Some(handle)),
            magic: id.magic,
            timeout,
        };
        let all = b.wait_gathered(0, timeout, "joining the communicator (init)")?;
        Ok((b, all))
    }

    fn wait_gathered(&self, tag: u64, timeout: Duration, what: &str) -> Result<Vec<Vec<u8>>> {
        let start = Instant::now();
        let deadline = start + timeout;
        let s = &self.shared;
        let mut inbox = lock(&s.inbox);
        loop {
            if let Some(reason) = inbox.refused.take() {
                return Err(CclError::bootstrap(
                    "joining the communicator",
                    format!("the root refused rank {}: {reason}", self.rank),
                ));
            }
            if let Some(all) = inbox.gathered.remove(&tag) {
                if all.len() != self.nranks {
                    return Err(CclError::bootstrap(
                        "gathering",
                        format!("{} entries for {} ranks", all.len(), self.nranks),
                    ));
                }
                return Ok(all);
            }
            if let Some(e) = s.health.failure() {
                return Err(e);
            }
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            inbox = s.cv.wait_timeout(inbox, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
        }
        drop(inbox);
        // Ask the root who has not arrived, to name them.
        let q = frame(QUERY_GATHER, |w| {
            w.u64(tag);
        });
        let _ = s.send(&q);
        let until = Instant::now() + Duration::from_secs(2);
        let mut inbox = lock(&s.inbox);
        while !inbox.gather_status.contains_key(&tag) && Instant::now() < until {
            inbox = s.cv.wait_timeout(inbox, Duration::from_millis(50)).unwrap_or_else(|e| e.into_inner()).0;
        }
        let have = inbox.gather_status.remove(&tag);
        let (missing, detail) = match have {
            Some(h) => (
                (0..self.nranks).filter(|r| !h.contains(r)).collect(),
                format!(
                    "reported by rank {}; the root at {} has heard from rank(s) {:?}",
                    self.rank, s.root, h
                ),
            ),
            None => (Vec::new(), format!("the root at {} did not say which ranks it has", s.root)),
        };
        Err(CclError::Timeout { operation: what.to_string(), waited: start.elapsed(), missing, detail })
    }
}

impl Bootstrap for TcpBootstrap {
    fn all_gather(&self, mine: Vec<u8>, timeout: Duration) -> Result<Vec<Vec<u8>>> {
        let tag = self.next_tag.fetch_add(1, Ordering::AcqRel);
        let f = frame(GATHER, |w| {
            w.u64(tag).bytes(&mine);
        });
        self.shared.send(&f).map_err(|e| CclError::bootstrap("sending to the root", e))?;
        self.wait_gathered(tag, timeout, "bootstrap all-gather")
    }

    fn abort(&self, failure: &CclError) {
        self.shared.health.fail(failure.clone());
        let f = frame(ABORT, |w| {
            w.bytes(&encode_failure(failure));
        });
        let _ = self.shared.send(&f);
    }

    fn report_timeout(&self, report: TimeoutReport) -> CclError {
        let f = frame(TIMEOUT, |w| {
            w.u64(report.seq)
                .str(&report.operation)
                .u64(report.waited.as_millis() as u64)
                .u64(report.waiting_on.map_or(0, |p| p as u64 + 1));
        });
        let s = &self.shared;
        if s.send(&f).is_ok() {
            // The root answers every timeout with the communicator's failure.
            let until = Instant::now() + STATUS_ROUND + Duration::from_secs(2);
            let mut inbox = lock(&s.inbox);
            while !s.health.is_failed() && Instant::now() < until {
                inbox =
                    s.cv.wait_timeout(inbox, Duration::from_millis(50)).unwrap_or_else(|e| e.into_inner()).0;
            }
        }
        if let Some(e) = s.health.failure() {
            return e;
        }
        let e = CclError::Timeout {
            operation: report.operation.clone(),
            waited: report.waited,
            missing: report.waiting_on.into_iter().collect(),
            detail: format!(
                "reported by rank {}, which was waiting for data from rank {}; the bootstrap root at {} did not \
                 answer, so the other ranks' progress is unknown",
                report.rank,
                report.waiting_on.map(|p| p.to_string()).unwrap_or_else(|| "?".into()),
                s.root
            ),
        };
        s.health.fail(e.clone());
        e
    }

    fn close(&self) {
        if self.shared.closing.swap(true, Ordering::AcqRel) {
            return;
        }
        let _ = self.shared.send(&frame(BYE, |_| {}));
        let _ = lock(&self.shared.writer).shutdown(Shutdown::Both);
        if let Some(h) = lock(&self.reader).take() {
            let _ = h.join();
        }
        let last = {
            let mut l = lock(local_ranks());
            let c = l.entry(self.magic).or_insert(1);
            *c -= 1;
            if *c == 0 {
                l.remove(&self.magic);
                true
            } else {
                false
            }
        };
        if last {
            join_root(self.magic, self.timeout);
        }
    }
}

impl Drop for TcpBootstrap {
    fn drop(&mut self) {
        self.close();
    }
}
