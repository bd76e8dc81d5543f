//! The bootstrap: how the ranks of a communicator find each other and agree on things before
//! (and besides) moving data. It gathers every rank's connection information at init and
//! split, carries aborts to every rank, answers the question "which ranks have not arrived?"
//! when an operation times out, and notices ranks that die.
//!
//! Two implementations: [`tcp`] for ranks in any processes and hosts (a root thread listening on
//! TCP, each rank connected to it for the communicator's lifetime, so a rank that dies closes its
//! connection and the root tells everyone), and [`local`] for [`crate::Communicator::init_all`],
//! where every rank lives in one process and shares the state directly.

pub(crate) mod local;
pub(crate) mod tcp;

use std::time::Duration;

use crate::state::RankStatus;
use crate::wire::{Malformed, Reader, Writer};
use crate::{CclError, Result};

/// What a timed-out operation tells the bootstrap.
#[derive(Clone, Debug)]
pub(crate) struct TimeoutReport {
    /// The collective's sequence number, or 0 for a point-to-point operation.
    pub seq: u64,
    /// The operation, as the timed-out rank describes it.
    pub operation: String,
    pub waited: Duration,
    /// The reporting rank.
    pub rank: usize,
    /// The peer the reporting rank was waiting for, if it knows.
    pub waiting_on: Option<usize>,
}

pub(crate) trait Bootstrap: Send + Sync {
    /// Every rank's `mine`, in rank order. Every rank calls it the same number of times.
    fn all_gather(&self, mine: Vec<u8>, timeout: Duration) -> Result<Vec<Vec<u8>>>;
    /// Fails the communicator on every rank with `failure` (the first failure wins).
    fn abort(&self, failure: &CclError);
    /// Asks every rank where it is and fails the communicator with a timeout error naming the
    /// ranks that have not arrived; returns that error.
    fn report_timeout(&self, report: TimeoutReport) -> CclError;
    /// Leaves the communicator cleanly (no rank treats this one as dead).
    fn close(&self);
}

/// Builds the timeout error from every rank's status (`None`: dead or silent).
pub(crate) fn timeout_error(
    report: &TimeoutReport,
    statuses: &[Option<RankStatus>],
    dead: &[usize],
    left: &[usize],
) -> CclError {
    let mut missing = Vec::new();
    let mut notes = Vec::new();
    let describe = |r: usize, notes: &mut Vec<String>| -> bool {
        if dead.contains(&r) {
            notes.push(format!("rank {r} is dead"));
        } else if left.contains(&r) {
            notes.push(format!("rank {r} has destroyed its communicator"));
        } else if statuses.get(r).is_none_or(|s| s.is_none()) {
            notes.push(format!("rank {r} did not answer"));
        } else {
            return false;
        }
        true
    };
    if report.seq == 0 {
        // Point to point: the peer is the one missing.
        if let Some(p) = report.waiting_on {
            missing.push(p);
            if !describe(p, &mut notes) {
                notes.push(format!(
                    "rank {} waited for rank {p}, which did not post the matching call",
                    report.rank
                ));
            }
        }
    } else {
        for (r, status) in statuses.iter().enumerate() {
            if describe(r, &mut notes) {
                missing.push(r);
                continue;
            }
            let Some(s) = status else { continue };
            if s.started >= report.seq {
                continue;
            }
            missing.push(r);
            if s.enqueued < report.seq {
                notes.push(format!(
                    "rank {r} has not called it (its last call is #{} {})",
                    s.enqueued, s.enqueued_op
                ));
            } else {
                notes.push(format!(
                    "rank {r} called it but its stream has not reached it (the stream is at #{} {})",
                    s.started, s.started_op
                ));
            }
        }
        if missing.is_empty() {
            missing.extend(report.waiting_on);
            notes.push(format!(
                "every rank is inside the operation; rank {} was waiting for data from rank {}",
                report.rank,
                report.waiting_on.map(|p| p.to_string()).unwrap_or_else(|| "?".into())
            ));
        }
    }
    missing.sort_unstable();
    missing.dedup();
    CclError::Timeout {
        operation: report.operation.clone(),
        waited: report.waited,
        missing,
        detail: format!("reported by rank {}; {}", report.rank, notes.join("; ")),
    }
}

fn put_ranks(w: &mut Writer, ranks: &[usize]) {
    w.u32(ranks.len() as u32);
    for &r in ranks {
        w.u64(r as u64);
    }
}

fn get_ranks(r: &mut Reader) -> std::result::Result<Vec<usize>, Malformed> {
    let n = r.u32()? as usize;
    if n > 1 << 20 {
        return Err(Malformed("rank list too long"));
    }
    (0..n).map(|_| r.usize()).collect()
}

/// Encodes a communicator failure for the other ranks.
pub(crate) fn encode_failure(e: &CclError) -> Vec<u8> {
    let mut w = Writer::new();
    match e {
        CclError::Timeout { operation, waited, missing, detail } => {
            w.u8(1).str(operation).u64(waited.as_millis() as u64);
            put_ranks(&mut w, missing);
            w.str(detail);
        }
        CclError::RankDied { ranks, operation, detail } => {
            w.u8(2);
            put_ranks(&mut w, ranks);
            w.str(operation.as_deref().unwrap_or("")).str(detail);
        }
        CclError::Mismatch { operation, rank, peer, detail } => {
            w.u8(3).str(operation).u64(*rank as u64).u64(*peer as u64).str(detail);
        }
        CclError::Aborted { reason } => {
            w.u8(4).str(reason);
        }
        other => {
            w.u8(4).str(&other.to_string());
        }
    }
    w.finish()
}

pub(crate) fn decode_failure(b: &[u8]) -> std::result::Result<CclError, Malformed> {
    let mut r = Reader::new(b);
    Ok(match r.u8()? {
        1 => CclError::Timeout {
            operation: r.string()?,
            waited: Duration::from_millis(r.u64()?),
            missing: get_ranks(&mut r)?,
            detail: r.string()?,
        },
        2 => {
            let ranks = get_ranks(&mut r)?;
            let op = r.string()?;
            CclError::RankDied { ranks, operation: (!op.is_empty()).then_some(op), detail: r.string()? }
        }
        3 => CclError::Mismatch {
            operation: r.string()?,
            rank: r.usize()?,
            peer: r.usize()?,
            detail: r.string()?,
        },
        4 => CclError::Aborted { reason: r.string()? },
        _ => return Err(Malformed("unknown failure kind")),
    })
}

pub(crate) fn encode_status(w: &mut Writer, s: &RankStatus) {
    w.u64(s.enqueued).u64(s.started).u64(s.completed).str(&s.enqueued_op).str(&s.started_op);
}

pub(crate) fn decode_status(r: &mut Reader) -> std::result::Result<RankStatus, Malformed> {
    Ok(RankStatus {
        enqueued: r.u64()?,
        started: r.u64()?,
        completed: r.u64()?,
        enqueued_op: r.string()?,
        started_op: r.string()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_cross_the_wire_unchanged() {
        let cases = [
            CclError::Timeout {
                operation: "all_reduce #3".into(),
                waited: Duration::from_millis(1500),
                missing: vec![1, 4],
                detail: "d".into(),
            },
            CclError::RankDied { ranks: vec![2], operation: Some("broadcast #9".into()), detail: "x".into() },
            CclError::RankDied { ranks: vec![0, 1], operation: None, detail: "y".into() },
            CclError::Mismatch {
                operation: "all_gather #1".into(),
                rank: 0,
                peer: 3,
                detail: "count".into(),
            },
            CclError::Aborted { reason: "user".into() },
        ];
        for c in cases {
            assert_eq!(decode_failure(&encode_failure(&c)).unwrap(), c);
        }
        assert!(decode_failure(&[1, 2]).is_err());
    }

    #[test]
    fn timeout_names_ranks_that_have_not_arrived() {
        let at = |e, s| {
            Some(RankStatus { enqueued: e, started: s, completed: s.saturating_sub(1), ..Default::default() })
        };
        let report = TimeoutReport {
            seq: 5,
            operation: "all_reduce #5".into(),
            waited: Duration::from_secs(2),
            rank: 0,
            waiting_on: Some(1),
        };
        let e = timeout_error(&report, &[at(5, 5), at(4, 4), at(5, 4), None, at(6, 6)], &[3], &[]);
        let CclError::Timeout { missing, detail, .. } = &e else { panic!("{e}") };
        assert_eq!(missing, &[1, 2, 3]);
        assert!(detail.contains("rank 1 has not called it"), "{detail}");
        assert!(detail.contains("rank 2 called it but its stream"), "{detail}");
        assert!(detail.contains("rank 3 is dead"), "{detail}");
        assert!(e.to_string().contains("rank(s) 1, 2, 3 did not arrive"), "{e}");
    }
}
