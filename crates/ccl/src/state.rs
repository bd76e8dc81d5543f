//! What each rank publishes about itself (the sequence number of the operation it is in) and
//! the communicator's health (the failure every later call returns), plus the waiting loop every
//! blocking step uses: it spins, then yields, then sleeps, and gives up on abort or deadline.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::CclError;

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The library's tables are updated by whole inserts and removes, so a poisoned lock still
    // guards consistent data.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One rank's progress through its collective operations, numbered from 1 in call order.
#[derive(Default)]
pub(crate) struct RankState {
    /// The last operation the rank's program called (enqueued on a stream).
    pub enqueued: AtomicU64,
    /// The last operation whose execution began (its stream reached it).
    pub started: AtomicU64,
    /// The last operation that completed on this rank.
    pub completed: AtomicU64,
    /// Descriptions of recent operations, by sequence number.
    recent: Mutex<VecDeque<(u64, String)>>,
    /// The peer the rank is waiting for right now, plus one (0: none).
    pub waiting_on: AtomicUsize,
}

/// A snapshot of [`RankState`], as sent to the bootstrap root for a timeout report.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RankStatus {
    pub enqueued: u64,
    pub started: u64,
    pub completed: u64,
    pub enqueued_op: String,
    pub started_op: String,
}

impl RankState {
    pub fn record(&self, seq: u64, description: String) {
        let mut r = lock(&self.recent);
        if r.len() == 32 {
            r.pop_front();
        }
        r.push_back((seq, description));
        self.enqueued.fetch_max(seq, Ordering::AcqRel);
    }

    pub fn description(&self, seq: u64) -> String {
        if seq == 0 {
            return "none".into();
        }
        lock(&self.recent)
            .iter()
            .rev()
            .find(|(s, _)| *s == seq)
            .map(|(_, d)| d.clone())
            .unwrap_or_else(|| format!("#{seq}"))
    }

    pub fn snapshot(&self) -> RankStatus {
        let (enqueued, started, completed) = (
            self.enqueued.load(Ordering::Acquire),
            self.started.load(Ordering::Acquire),
            self.completed.load(Ordering::Acquire),
        );
        RankStatus {
            enqueued,
            started,
            completed,
            enqueued_op: self.description(enqueued),
            started_op: self.description(started),
        }
    }
}

/// The communicator's health on one rank: once failed, every wait and every later call returns
/// the failure.
#[derive(Default)]
pub(crate) struct Health {
    failed: AtomicBool,
    failure: Mutex<Option<CclError>>,
}

impl Health {
    /// Records the failure if none is recorded yet; returns whether this call recorded it.
    pub fn fail(&self, e: CclError) -> bool {
        let mut f = lock(&self.failure);
        if f.is_some() {
            return false;
        }
        *f = Some(e);
        self.failed.store(true, Ordering::Release);
        true
    }

    pub fn is_failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }

    pub fn failure(&self) -> Option<CclError> {
        if !self.is_failed() {
            return None;
        }
        lock(&self.failure).clone()
    }

    pub fn check(&self) -> Result<(), CclError> {
        self.failure().map_or(Ok(()), Err)
    }
}

/// Why a wait ended without its condition.
#[derive(Debug)]
pub(crate) enum WaitError {
    /// The communicator failed (the failure is in its health).
    Failed(CclError),
    /// The deadline passed.
    TimedOut,
}

/// The deadline and abort flag one operation waits under.
pub(crate) struct Waiter<'a> {
    pub health: &'a Health,
    pub state: &'a RankState,
    pub start: Instant,
    pub deadline: Instant,
}

impl<'a> Waiter<'a> {
    pub fn new(health: &'a Health, state: &'a RankState, timeout: Duration) -> Waiter<'a> {
        let start = Instant::now();
        Waiter { health, state, start, deadline: start + timeout }
    }

    /// Waits until `ready` returns `Some`, for data from `peer` (named in timeout reports).
    #[inline]
    pub fn wait_for<R>(
        &self,
        peer: Option<usize>,
        mut ready: impl FnMut() -> Option<R>,
    ) -> Result<R, WaitError> {
        if let Some(r) = ready() {
            return Ok(r);
        }
        self.state.waiting_on.store(peer.map_or(0, |p| p + 1), Ordering::Relaxed);
        let r = self.wait_slow(&mut ready);
        if r.is_ok() {
            // A failed wait leaves the peer named for the timeout report.
            self.state.waiting_on.store(0, Ordering::Relaxed);
        }
        r
    }

    /// Fails if the communicator failed or the deadline passed (for waits that block in the
    /// kernel, such as a socket write with a timeout).
    pub fn check(&self, peer: Option<usize>) -> Result<(), WaitError> {
        if let Some(e) = self.health.failure() {
            return Err(WaitError::Failed(e));
        }
        if Instant::now() >= self.deadline {
            self.state.waiting_on.store(peer.map_or(0, |p| p + 1), Ordering::Relaxed);
            return Err(WaitError::TimedOut);
        }
        Ok(())
    }

    #[cold]
    fn wait_slow<R>(&self, ready: &mut impl FnMut() -> Option<R>) -> Result<R, WaitError> {
        let mut round = 0u32;
        loop {
            if let Some(r) = ready() {
                return Ok(r);
            }
            round += 1;
            if round < 64 {
                std::hint::spin_loop();
                continue;
            }
            if round.is_multiple_of(16) {
                if let Some(e) = self.health.failure() {
                    return Err(WaitError::Failed(e));
                }
                if Instant::now() >= self.deadline {
                    return Err(WaitError::TimedOut);
                }
            }
            if round < 2048 {
                std::thread::yield_now();
            } else {
                // Long waits (a slow peer, oversubscribed cores) sleep briefly so that ranks
                // sharing few cores leave them to the ranks that have work.
                let us = ((round - 2048) / 64 + 5).min(200) as u64;
                std::thread::sleep(Duration::from_micros(us));
            }
        }
    }
}
