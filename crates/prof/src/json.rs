//! The Chrome/Perfetto trace-event JSON (`*_results.json`): ui.perfetto.dev and
//! chrome://tracing open it.
//!
//! Tracks: the program is one process (its pid) with one thread track per host thread (API
//! calls as complete events, allocations as instant events); each agent is a process of its
//! own (pid `AGENT_PID_BASE + agent`) with one thread track per stream (kernels, copies and
//! memsets). Times are microseconds of `CLOCK_MONOTONIC` with nanosecond decimals. Events of
//! a track never partly overlap: API calls are the outermost calls of their thread, and work
//! on a stream runs one item at a time.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::json;

use crate::record::{AllocOp, DeviceOp, Trace, MEMSET_KERNEL_NAME};

/// The pid of agent `a`'s process in the trace is `AGENT_PID_BASE + a`.
pub const AGENT_PID_BASE: u64 = 1 << 30;

/// Nanoseconds as microseconds with three decimals, exactly.
fn us(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

fn event(out: &mut String, first: &mut bool, body: serde_json::Value, ts: u64, dur: Option<u64>) {
    // `ts` and `dur` are written by hand so that no nanosecond is lost to floating point.
    let mut s = body.to_string();
    s.pop();
    let _ = write!(s, ",\"ts\":{}", us(ts));
    if let Some(d) = dur {
        let _ = write!(s, ",\"dur\":{}", us(d));
    }
    s.push('}');
    out.push_str(if *first { "\n" } else { ",\n" });
    *first = false;
    out.push_str(&s);
}

fn meta(out: &mut String, first: &mut bool, pid: u64, tid: Option<u64>, key: &str, name: String) {
    let mut body = json!({"ph": "M", "pid": pid, "name": key, "args": {"name": name}});
    if let Some(t) = tid {
        body["tid"] = json!(t);
    }
    let s = body.to_string();
    out.push_str(if *first { "\n" } else { ",\n" });
    *first = false;
    out.push_str(&s);
}

pub(crate) fn trace_events(trace: &Trace) -> String {
    let mut out = String::from("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    let mut first = true;
    let pid = trace.process_id as u64;
    meta(&mut out, &mut first, pid, None, "process_name", format!("host (pid {pid})"));
    let threads: BTreeSet<u64> =
        trace.api.iter().map(|r| r.thread).chain(trace.allocations.iter().map(|r| r.thread)).collect();
    for t in threads {
        meta(&mut out, &mut first, pid, Some(t), "thread_name", format!("host thread {t}"));
    }
    let streams: BTreeSet<(u32, u64)> = trace.device.iter().map(|r| (r.agent, r.stream)).collect();
    let mut agents_seen = BTreeSet::new();
    for &(agent, stream) in &streams {
        let apid = AGENT_PID_BASE + agent as u64;
        if agents_seen.insert(agent) {
            let name = trace
                .agents
                .iter()
                .find(|a| a.id == agent)
                .map(|a| format!("Agent {agent}: {} [{}]", a.name, a.backend))
                .unwrap_or_else(|| format!("Agent {agent}"));
            meta(&mut out, &mut first, apid, None, "process_name", name);
        }
        meta(&mut out, &mut first, apid, Some(stream), "thread_name", format!("stream {stream}"));
    }
    for r in &trace.api {
        let body = json!({
            "name": r.name, "cat": "api", "ph": "X", "pid": pid, "tid": r.thread,
            "args": {"correlation_id": r.correlation},
        });
        event(&mut out, &mut first, body, r.start_ns, Some(r.end_ns.saturating_sub(r.start_ns)));
    }
    for r in &trace.allocations {
        let name = match r.op {
            AllocOp::Allocate => "allocate",
            AllocOp::Free => "free",
        };
        let body = json!({
            "name": name, "cat": "allocation", "ph": "i", "s": "t", "pid": pid, "tid": r.thread,
            "args": {"bytes": r.bytes, "address": format!("{:#x}", r.address), "agent": r.agent,
                     "kind": format!("{:?}", r.kind), "correlation_id": r.correlation},
        });
        event(&mut out, &mut first, body, r.start_ns, None);
    }
    for r in &trace.device {
        let (name, cat, mut args) = match &r.op {
            DeviceOp::Kernel(k) => (
                k.name.to_string(),
                "kernel",
                json!({"grid": k.grid, "block": k.block, "dynamic_shared_bytes": k.dynamic_shared_bytes,
                       "static_shared_bytes": k.static_shared_bytes, "registers_per_thread": k.registers_per_thread}),
            ),
            DeviceOp::Copy { direction, bytes, src_agent, dst_agent } => (
                direction.rocprof_name().to_string(),
                "copy",
                json!({"bytes": bytes, "src_agent": src_agent, "dst_agent": dst_agent}),
            ),
            DeviceOp::Memset { bytes } => (MEMSET_KERNEL_NAME.to_string(), "memset", json!({"bytes": bytes})),
        };
        args["correlation_id"] = json!(r.correlation);
        args["dispatch_id"] = json!(r.dispatch);
        args["timed_by"] = json!(r.timed_by.name());
        if let Some(w) = r.work {
            args["flops"] = json!(w.flops);
            args["work_bytes"] = json!(w.bytes);
        }
        let body = json!({
            "name": name, "cat": cat, "ph": "X", "pid": AGENT_PID_BASE + r.agent as u64, "tid": r.stream,
            "args": args,
        });
        event(&mut out, &mut first, body, r.start_ns, Some(r.end_ns.saturating_sub(r.start_ns)));
    }
    out.push_str("\n]}\n");
    out
}
