//! The bootstrap of [`crate::Communicator::init_all`]: every rank in this process, so gathering
//! is a rendezvous on a shared table, an abort fails every rank's health directly, and a timeout
//! report reads every rank's published state.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::{timeout_error, Bootstrap, TimeoutReport};
use crate::state::{lock, Health, RankState};
use crate::{CclError, Result};

/// One gather round: its number, each rank's contribution, how many ranks have taken the result.
type Round = (u64, Vec<Option<Vec<u8>>>, usize);

struct Table {
    /// Gather rounds in progress.
    rounds: Vec<Round>,
    left: Vec<bool>,
}

pub(crate) struct LocalShared {
    nranks: usize,
    healths: Vec<Arc<Health>>,
    states: Vec<Arc<RankState>>,
    table: Mutex<Table>,
    cv: Condvar,
}

impl LocalShared {
    /// The shared state of `nranks` ranks, each with its own health and published state.
    pub fn new(nranks: usize) -> Arc<LocalShared> {
        Arc::new(LocalShared {
            nranks,
            healths: (0..nranks).map(|_| Arc::default()).collect(),
            states: (0..nranks).map(|_| Arc::default()).collect(),
            table: Mutex::new(Table { rounds: Vec::new(), left: vec![false; nranks] }),
            cv: Condvar::new(),
        })
    }
}

impl LocalShared {
    pub fn nranks(&self) -> usize {
        self.nranks
    }

    pub fn health(&self, rank: usize) -> Arc<Health> {
        self.healths[rank].clone()
    }

    pub fn state(&self, rank: usize) -> Arc<RankState> {
        self.states[rank].clone()
    }
}

/// One rank's handle on the shared bootstrap.
pub(crate) struct LocalBootstrap {
    shared: Arc<LocalShared>,
    rank: usize,
    round: Mutex<u64>,
}

impl LocalBootstrap {
    pub fn new(shared: Arc<LocalShared>, rank: usize) -> LocalBootstrap {
        LocalBootstrap { shared, rank, round: Mutex::new(0) }
    }
}

impl Bootstrap for LocalBootstrap {
    fn all_gather(&self, mine: Vec<u8>, timeout: Duration) -> Result<Vec<Vec<u8>>> {
        let s = &self.shared;
        let round = {
            let mut r = lock(&self.round);
            *r += 1;
            *r
        };
        let start = Instant::now();
        let mut t = lock(&s.table);
        let idx = match t.rounds.iter().position(|(n, _, _)| *n == round) {
            Some(i) => i,
            None => {
                t.rounds.push((round, vec![None; s.nranks], 0));
                t.rounds.len() - 1
            }
        };
        t.rounds[idx].1[self.rank] = Some(mine);
        s.cv.notify_all();
        loop {
            let idx = t.rounds.iter().position(|(n, _, _)| *n == round).unwrap_or(usize::MAX);
            if idx == usize::MAX {
                return Err(CclError::bootstrap("gathering", "the round disappeared"));
            }
            if t.rounds[idx].1.iter().all(Option::is_some) {
                let all: Vec<Vec<u8>> =
                    t.rounds[idx].1.iter().map(|v| v.clone().unwrap_or_default()).collect();
                t.rounds[idx].2 += 1;
                if t.rounds[idx].2 == s.nranks {
                    t.rounds.remove(idx);
                }
                return Ok(all);
            }
            if let Some(e) = s.healths[self.rank].failure() {
                return Err(e);
            }
            let elapsed = start.elapsed();
            if elapsed >= timeout {
                let missing = (0..s.nranks).filter(|&r| t.rounds[idx].1[r].is_none()).collect();
                return Err(CclError::Timeout {
                    operation: "bootstrap all-gather".into(),
                    waited: elapsed,
                    missing,
                    detail: format!("reported by rank {}", self.rank),
                });
            }
            t =
                s.cv.wait_timeout(t, (timeout - elapsed).min(Duration::from_millis(100)))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
        }
    }

    fn abort(&self, failure: &CclError) {
        for h in &self.shared.healths {
            h.fail(failure.clone());
        }
        self.shared.cv.notify_all();
    }

    fn report_timeout(&self, report: TimeoutReport) -> CclError {
        let s = &self.shared;
        let statuses: Vec<_> = s.states.iter().map(|st| Some(st.snapshot())).collect();
        let left: Vec<usize> = {
            let t = lock(&s.table);
            (0..s.nranks).filter(|&r| t.left[r]).collect()
        };
        let e = timeout_error(&report, &statuses, &[], &left);
        self.abort(&e);
        s.healths[self.rank].failure().unwrap_or(e)
    }

    fn close(&self) {
        lock(&self.shared.table).left[self.rank] = true;
    }
}
