//! One launch: its arguments decoded and checked, where each memory lives, and how blocks are
//! grouped (clusters, cooperative grids) and spread over the host's threads.

use ferrocm_backend::tensor_map::{TensorMapDesc, TENSOR_MAP_BYTES};
use ferrocm_backend::{Dim3, LaunchDims};
use ferrocm_ir::*;
use rayon::prelude::*;
use std::time::{Duration, Instant};

use crate::banks::{self, BankCounters};
use crate::memory::read_le;
use crate::sched::{run_group, GroupState};
use crate::{ExecKernel, MAX_CLUSTER_BLOCKS, MAX_SHARED_BYTES_OPTIN};

/// Where one memory object is, for this launch.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Place {
    Global {
        base: u64,
    },
    Shared {
        offset: u64,
    },
    Local {
        offset: u64,
    },
    TensorMap,
    /// Byte-addressed memory: accesses go through `addressed::resolve`.
    Addressed(AddrSpace),
}

pub(crate) struct MemInfo {
    pub place: Place,
    pub len: u64,
    pub size: u32,
    pub elem: ScalarType,
}

pub(crate) struct Launch<'a> {
    pub k: &'a ExecKernel,
    pub dims: LaunchDims,
    pub params: Vec<u64>,
    pub mems: Vec<MemInfo>,
    /// The decoded tensor map of each tensor-map memory, and the bytes its tensor spans.
    pub maps: Vec<Option<(TensorMapDesc, u64)>>,
    pub block_threads: u32,
    pub nwarps: u32,
    /// Words of shared memory per block (static and dynamic).
    pub shared_words: usize,
    pub shared_bytes: u64,
    /// Thread coordinates (x, y, z) of each lane of each warp; the same for every block.
    pub coords: Vec<[[u32; 32]; 3]>,
    /// Blocks per cluster (1, 1, 1 without clusters).
    pub cluster: Dim3,
    pub cooperative: bool,
    /// When the launch must have finished (`FERROCM_CPU_KERNEL_TIMEOUT`), and the limit.
    pub deadline: Option<(Instant, Duration)>,
    /// Shared-memory wavefront counters (see `banks`), when asked for.
    pub banks: Option<BankCounters>,
}

/// The environment variable that bounds how long one launch may run on the executor.
pub const TIMEOUT_VAR: &str = "FERROCM_CPU_KERNEL_TIMEOUT";

/// The time limit `FERROCM_CPU_KERNEL_TIMEOUT` sets: seconds, a positive number; unset or empty
/// means no limit.
fn time_limit() -> Result<Option<Duration>, String> {
    let Some(v) = std::env::var_os(TIMEOUT_VAR) else { return Ok(None) };
    let text = v.to_string_lossy();
    if text.trim().is_empty() {
        return Ok(None);
    }
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => Ok(Some(Duration::from_secs_f64(s))),
        _ => Err(format!(
            "{TIMEOUT_VAR}={text:?} is not a time limit: give it in seconds, a positive number such as 10 or 0.5 \
             (unset it for no limit)"
        )),
    }
}

/// The bytes a tensor map's tensor spans from its global address.
fn map_extent(d: &TensorMapDesc) -> u64 {
    let rank = d.rank as usize;
    let mut end = d.data_type.size();
    for i in 0..rank {
        let stride = if i == 0 { d.data_type.size() } else { d.global_strides[i - 1] };
        end = end.saturating_add((d.global_dims[i] - 1).saturating_mul(stride));
    }
    end
}

impl<'a> Launch<'a> {
    pub fn new(k: &'a ExecKernel, dims: LaunchDims, args: &[&[u8]]) -> Result<Launch<'a>, String> {
        let f = &k.func;
        let name = &f.name;
        if args.len() != f.abi_arg_count() {
            return Err(format!(
                "kernel `{name}` takes {} launch arguments (a slice counts as pointer and length), got {}",
                f.abi_arg_count(),
                args.len()
            ));
        }
        let mut params = Vec::new();
        let mut slices = Vec::new();
        let mut tensor_maps = Vec::new();
        let mut i = 0;
        for p in &f.params {
            match p.kind {
                ParamKind::Scalar(t) => {
                    if args[i].len() != t.size() as usize {
                        return Err(format!(
                            "kernel `{name}`: parameter `{}` is {} bytes, got {}",
                            p.name,
                            t.size(),
                            args[i].len()
                        ));
                    }
                    params.push(read_le(args[i]));
                    slices.push((0, 0));
                    tensor_maps.push(None);
                    i += 1;
                }
                ParamKind::Slice { elem, .. } => {
                    if args[i].len() != 8 || args[i + 1].len() != 8 {
                        return Err(format!(
                            "kernel `{name}`: slice parameter `{}` is passed as a u64 address and a u64 length",
                            p.name
                        ));
                    }
                    let (base, len) = (read_le(args[i]), read_le(args[i + 1]));
                    if base % elem.size() as u64 != 0 {
                        return Err(format!(
                            "kernel `{name}`: slice `{}` at {base:#x} is not aligned to its element size {}",
                            p.name,
                            elem.size()
                        ));
                    }
                    if base == 0 && len != 0 {
                        return Err(format!("kernel `{name}`: slice `{}` is a null pointer", p.name));
                    }
                    params.push(base);
                    params.push(len);
                    slices.push((base, len));
                    tensor_maps.push(None);
                    i += 2;
                }
                ParamKind::TensorMap => {
                    let desc = (args[i].len() == TENSOR_MAP_BYTES)
                        .then(|| TensorMapDesc::from_cpu_bytes(args[i]))
                        .flatten()
                        .ok_or_else(|| {
                            format!(
                                "kernel `{name}`: parameter `{}` is not a tensor map encoded for the CPU executor \
                                 ({} bytes)",
                                p.name,
                                args[i].len()
                            )
                        })?;
                    params.push(0);
                    slices.push((0, 0));
                    tensor_maps.push(Some((desc, map_extent(&desc))));
                    i += 1;
                }
            }
        }
        let block_threads = dims.block.volume();
        let max_threads = f.attrs.max_threads.unwrap_or(1024).min(1024);
        if block_threads > max_threads as u64 {
            return Err(format!(
                "kernel `{name}`: a block of {block_threads} threads is over the limit of {max_threads}"
            ));
        }
        let cluster = match (dims.has_cluster(), f.attrs.cluster) {
            (true, Some(c)) if [dims.cluster.x, dims.cluster.y, dims.cluster.z] != c => {
                return Err(format!(
                    "kernel `{name}` requires clusters of {c:?} blocks but was launched with clusters of {}",
                    dims.cluster
                ))
            }
            (_, Some([x, y, z])) => Dim3::new(x, y, z),
            (_, None) => dims.cluster,
        };
        let (g, c) = (dims.grid, cluster);
        if c.volume() == 0 || c.volume() > MAX_CLUSTER_BLOCKS as u64 {
            return Err(format!(
                "kernel `{name}`: a cluster of {} blocks ({c}) is outside 1 to {MAX_CLUSTER_BLOCKS}",
                c.volume()
            ));
        }
        if g.x % c.x != 0 || g.y % c.y != 0 || g.z % c.z != 0 {
            return Err(format!("kernel `{name}`: the grid {g} is not a whole number of clusters of {c}"));
        }
        let static_shared = k.static_shared;
        let dyn_shared = dims.shared_mem_bytes as u64;
        let dyn_offset = static_shared.next_multiple_of(k.dyn_shared_align);
        if dyn_offset + dyn_shared > MAX_SHARED_BYTES_OPTIN {
            return Err(format!(
                "kernel `{name}`: {static_shared} bytes of static and {dyn_shared} bytes of dynamic shared memory \
                 are more than the {MAX_SHARED_BYTES_OPTIN} bytes a block may use"
            ));
        }
        let shared_bytes = dyn_offset + dyn_shared;
        if dims.cooperative {
            let resident = k.resident_blocks(block_threads as u32, shared_bytes);
            if g.volume() > resident {
                return Err(format!(
                    "kernel `{name}`: a cooperative launch of {} blocks is more than the {resident} that can be \
                     resident at once ({} multiprocessors)",
                    g.volume(),
                    k.compute_units
                ));
            }
        }
        let mems = f
            .mems
            .iter()
            .enumerate()
            .map(|(m, data)| {
                let size = data.elem.size();
                let (place, len) = match data.space {
                    MemSpace::Global { param, .. } => {
                        let (base, len) = slices[param as usize];
                        (Place::Global { base }, len)
                    }
                    MemSpace::Shared { len, .. } => {
                        (Place::Shared { offset: k.shared_offsets[m].unwrap_or(0) }, len as u64)
                    }
                    MemSpace::DynShared { .. } => {
                        (Place::Shared { offset: dyn_offset }, dyn_shared / size as u64)
                    }
                    MemSpace::Local { len } => (Place::Local { offset: k.local_offsets[m] }, len as u64),
                    MemSpace::TensorMap { .. } => (Place::TensorMap, 0),
                    MemSpace::Addressed(space) => (Place::Addressed(space), 0),
                };
                MemInfo { place, len, size, elem: data.elem }
            })
            .collect();
        let maps = f
            .mems
            .iter()
            .map(|m| match m.space {
                MemSpace::TensorMap { param } => tensor_maps[param as usize],
                _ => None,
            })
            .collect();
        let b = dims.block;
        let nwarps = (block_threads as u32).div_ceil(32);
        let coords = (0..nwarps)
            .map(|w| {
                let mut c = [[0u32; 32]; 3];
                for lane in 0..32u32 {
                    let tid = w * 32 + lane;
                    c[0][lane as usize] = tid % b.x.max(1);
                    c[1][lane as usize] = (tid / b.x.max(1)) % b.y.max(1);
                    c[2][lane as usize] = tid / (b.x.max(1) * b.y.max(1));
                }
                c
            })
            .collect();
        Ok(Launch {
            k,
            dims,
            params,
            mems,
            maps,
            block_threads: block_threads as u32,
            nwarps,
            shared_words: (shared_bytes as usize).div_ceil(8),
            shared_bytes,
            coords,
            cluster,
            cooperative: dims.cooperative,
            deadline: time_limit()?.map(|limit| (Instant::now() + limit, limit)),
            banks: banks::requested().then(BankCounters::default),
        })
    }

    pub fn thread_coords(&self, tid: u32) -> (u32, u32, u32) {
        let b = self.dims.block;
        (tid % b.x, (tid / b.x) % b.y, tid / (b.x * b.y))
    }

    pub fn block_coords(&self, blk: u64) -> (u32, u32, u32) {
        let g = self.dims.grid;
        let (gx, gy) = (g.x as u64, g.y as u64);
        ((blk % gx) as u32, ((blk / gx) % gy) as u32, (blk / (gx * gy)) as u32)
    }

    /// The rank of the block at `coords` within its cluster (`%cluster_ctarank`).
    pub fn cluster_rank(&self, (x, y, z): (u32, u32, u32)) -> u32 {
        let c = self.cluster;
        x % c.x + c.x * (y % c.y + c.y * (z % c.z))
    }

    /// The linear ids of the blocks of cluster `n` (clusters numbered x fastest), by rank.
    fn cluster_blocks(&self, n: u64) -> Vec<u64> {
        let (g, c) = (self.dims.grid, self.cluster);
        let (cx, cy) = ((g.x / c.x) as u64, (g.y / c.y) as u64);
        let (ox, oy, oz) =
            ((n % cx) * c.x as u64, ((n / cx) % cy) * c.y as u64, (n / (cx * cy)) * c.z as u64);
        let mut ids = Vec::with_capacity(c.volume() as usize);
        for z in 0..c.z as u64 {
            for y in 0..c.y as u64 {
                for x in 0..c.x as u64 {
                    ids.push((ox + x) + g.x as u64 * ((oy + y) + g.y as u64 * (oz + z)));
                }
            }
        }
        ids
    }

    /// The name of the shared array element at shared address `addr` (`@full[1]`), for messages.
    pub fn shared_name(&self, addr: u64) -> String {
        let f = &self.k.func;
        for (m, info) in self.mems.iter().enumerate() {
            if let Place::Shared { offset } = info.place {
                let bytes = info.len * info.size as u64;
                if addr >= offset && addr < offset + bytes {
                    return format!("`@{}[{}]`", f.mems[m].name, (addr - offset) / info.size as u64);
                }
            }
        }
        format!("at shared address {addr:#x}")
    }

    /// Fails once the launch has run past its time limit, naming the kernel.
    pub fn check_deadline(&self) -> Result<(), String> {
        match self.deadline {
            Some((at, limit)) if Instant::now() >= at => Err(format!(
                "kernel `{}` ran longer than the CPU device's time limit of {limit:?} ({TIMEOUT_VAR}) and was \
                 stopped",
                self.k.func.name
            )),
            _ => Ok(()),
        }
    }

    /// Runs the whole grid: blocks in parallel, or the blocks of each cluster (or of the whole
    /// cooperative grid) together on one thread.
    pub fn run(&self) -> Result<(), String> {
        let nblocks = self.dims.grid.volume();
        let csize = self.cluster.volume();
        if self.cooperative {
            let ids: Vec<u64> = (0..nblocks / csize).flat_map(|c| self.cluster_blocks(c)).collect();
            return run_group(self, &ids, &mut GroupState::default());
        }
        if csize == 1 {
            return (0..nblocks)
                .into_par_iter()
                .try_for_each_init(GroupState::default, |gs, b| run_group(self, &[b], gs));
        }
        (0..nblocks / csize)
            .into_par_iter()
            .try_for_each_init(GroupState::default, |gs, c| run_group(self, &self.cluster_blocks(c), gs))
    }
}
