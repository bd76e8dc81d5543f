//! rocprofv3's CSV files: the same file names, columns and quoting (strings quoted, numbers
//! bare), so scripts written for rocprofv3 read them unchanged.

use std::fmt::Write as _;

use crate::record::{AgentKind, AllocOp, DeviceOp, MemoryKind, Trace, MEMSET_KERNEL_NAME};
use crate::stats::Stats;

/// A CSV string field: quoted, with quotes doubled.
pub(crate) fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

fn header(cols: &[&str]) -> String {
    let mut s = cols.iter().map(|c| quoted(c)).collect::<Vec<_>>().join(",");
    s.push('\n');
    s
}

pub(crate) const KERNEL_COLUMNS: &[&str] = &[
    "Kind",
    "Agent_Id",
    "Queue_Id",
    "Stream_Id",
    "Thread_Id",
    "Dispatch_Id",
    "Kernel_Id",
    "Kernel_Name",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
    "LDS_Block_Size",
    "Scratch_Size",
    "VGPR_Count",
    "Accum_VGPR_Count",
    "SGPR_Count",
    "Workgroup_Size_X",
    "Workgroup_Size_Y",
    "Workgroup_Size_Z",
    "Grid_Size_X",
    "Grid_Size_Y",
    "Grid_Size_Z",
];

fn agent(id: u32) -> String {
    quoted(&format!("Agent {id}"))
}

/// `kernel_trace.csv`: kernels and memsets. `Kernel_Id` numbers distinct kernel names from 1 in
/// order of first dispatch; `Queue_Id` is the stream; `Grid_Size` counts threads (blocks times
/// block size) as rocprofv3 does; `LDS_Block_Size` is the dynamic plus static shared memory,
/// `Scratch_Size` the local memory per thread, `VGPR_Count` the registers per thread; the
/// GPU-specific `Accum_VGPR_Count` and `SGPR_Count` are 0 (NVIDIA has no such registers).
pub(crate) fn kernel_trace(trace: &Trace) -> String {
    let mut out = header(KERNEL_COLUMNS);
    let mut ids: Vec<&str> = Vec::new();
    for r in &trace.device {
        let (name, grid, block, lds, scratch, vgpr) = match &r.op {
            DeviceOp::Kernel(k) => (
                &*k.name,
                k.grid,
                k.block,
                k.dynamic_shared_bytes as u64 + k.static_shared_bytes as u64,
                k.local_bytes_per_thread,
                k.registers_per_thread,
            ),
            DeviceOp::Memset { .. } => (MEMSET_KERNEL_NAME, [1, 1, 1], [1, 1, 1], 0, 0, 0),
            DeviceOp::Copy { .. } => continue,
        };
        let id = match ids.iter().position(|n| *n == name) {
            Some(i) => i + 1,
            None => {
                ids.push(name);
                ids.len()
            }
        };
        let threads = |i: usize| grid[i] as u64 * block[i] as u64;
        let _ = writeln!(
            out,
            "\"KERNEL_DISPATCH\",{},{},{},{},{},{},{},{},{},{},{},{},{},0,0,{},{},{},{},{},{}",
            agent(r.agent),
            r.stream,
            r.stream,
            r.thread,
            r.dispatch,
            id,
            quoted(name),
            r.correlation,
            r.start_ns,
            r.end_ns,
            lds,
            scratch,
            vgpr,
            block[0],
            block[1],
            block[2],
            threads(0),
            threads(1),
            threads(2),
        );
    }
    out
}

pub(crate) const COPY_COLUMNS: &[&str] = &[
    "Kind",
    "Direction",
    "Stream_Id",
    "Source_Agent_Id",
    "Destination_Agent_Id",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
    "Bytes",
];

/// `memory_copy_trace.csv`, with rocprofv3's columns plus `Bytes` at the end.
pub(crate) fn memory_copy_trace(trace: &Trace) -> String {
    let mut out = header(COPY_COLUMNS);
    for r in &trace.device {
        let DeviceOp::Copy { direction, bytes, src_agent, dst_agent } = r.op else { continue };
        let _ = writeln!(
            out,
            "\"MEMORY_COPY\",{},{},{},{},{},{},{},{}",
            quoted(direction.rocprof_name()),
            r.stream,
            agent(src_agent),
            agent(dst_agent),
            r.correlation,
            r.start_ns,
            r.end_ns,
            bytes
        );
    }
    out
}

pub(crate) const ALLOCATION_COLUMNS: &[&str] = &[
    "Kind",
    "Operation",
    "Agent_Id",
    "Allocation_Size",
    "Address",
    "Correlation_Id",
    "Start_Timestamp",
    "End_Timestamp",
    "Memory_Kind",
];

/// `memory_allocation_trace.csv`, with rocprofv3's columns plus `Memory_Kind`.
pub(crate) fn memory_allocation_trace(trace: &Trace) -> String {
    let mut out = header(ALLOCATION_COLUMNS);
    for r in &trace.allocations {
        let op = match r.op {
            AllocOp::Allocate => "MEMORY_ALLOCATION_ALLOCATE",
            AllocOp::Free => "MEMORY_ALLOCATION_FREE",
        };
        let kind = match r.kind {
            MemoryKind::Device => "DEVICE",
            MemoryKind::Pooled => "POOLED",
            MemoryKind::Managed => "MANAGED",
            MemoryKind::PinnedHost => "PINNED_HOST",
        };
        let _ = writeln!(
            out,
            "\"MEMORY_ALLOCATION\",{},{},{},{},{},{},{},{}",
            quoted(op),
            agent(r.agent),
            r.bytes,
            quoted(&format!("{:#018x}", r.address)),
            r.correlation,
            r.start_ns,
            r.end_ns,
            quoted(kind)
        );
    }
    out
}

pub(crate) const API_COLUMNS: &[&str] =
    &["Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id", "Start_Timestamp", "End_Timestamp"];

/// `hip_api_trace.csv`: the runtime's API calls (ferrocm's runtime plays HIP's role), named as
/// in Rust (`Stream::launch`).
pub(crate) fn api_trace(trace: &Trace) -> String {
    let mut out = header(API_COLUMNS);
    for r in &trace.api {
        let _ = writeln!(
            out,
            "\"HIP_RUNTIME_API\",{},{},{},{},{},{}",
            quoted(r.name),
            trace.process_id,
            r.thread,
            r.correlation,
            r.start_ns,
            r.end_ns
        );
    }
    out
}

pub(crate) const AGENT_COLUMNS: &[&str] = &["Node_Id", "Logical_Node_Id", "Agent_Type", "Name", "Backend"];

/// `agent_info.csv` (a subset of rocprofv3's columns, plus the backend).
pub(crate) fn agent_info(trace: &Trace) -> String {
    let mut out = header(AGENT_COLUMNS);
    for a in &trace.agents {
        let kind = match a.kind {
            AgentKind::Host => "CPU",
            AgentKind::Gpu => "GPU",
            AgentKind::CpuDevice => "CPU_DEVICE",
        };
        let _ =
            writeln!(out, "{},{},{},{},{}", a.id, a.id, quoted(kind), quoted(&a.name), quoted(&a.backend));
    }
    out
}

pub(crate) const STATS_COLUMNS: &[&str] =
    &["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage", "MinNs", "MaxNs", "StdDev"];

/// A `*_stats.csv` file, rows by total duration, longest first.
pub(crate) fn stats(rows: &[Stats]) -> String {
    let mut out = header(STATS_COLUMNS);
    for s in rows {
        let _ = writeln!(
            out,
            "{},{},{},{:.6},{:.6},{},{},{:.6}",
            quoted(&s.name),
            s.calls,
            s.total_ns,
            s.average_ns,
            s.percentage,
            s.min_ns,
            s.max_ns,
            s.stddev_ns
        );
    }
    out
}
