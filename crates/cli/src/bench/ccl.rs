//! `ferrocm bench ccl`: the output of nccl-tests, column for column (`size count type redop root
//! time algbw busbw #wrong`, out of place then in place, then `# Avg bus bandwidth`), with its
//! flags (`-b -e -f -g -n -w -c -o -d -r`) and bus-bandwidth formulas. Every size is checked on
//! fresh random inputs against a host reference before it is timed (`#wrong` counts elements
//! outside the rounding bound).
//!
//! Ranks: `-g N` drives N ranks from this process (GPUs where present, ranks sharing them when
//! there are fewer; CPU devices otherwise), one thread launching every rank's operation per
//! iteration in one group, as nccl-tests' `-g`. Started by mpirun, srun or torchrun with `-g 1`,
//! each process is one rank (its launcher's environment) and rank 0 prints.
//!
//! Sizes as nccl-tests: `size` is the largest buffer in bytes (for all-gather the gathered
//! output, for reduce-scatter the input), `count` its elements; algbw = size / time; busbw =
//! algbw x 2(n-1)/n (all-reduce), x (n-1)/n (all-gather, reduce-scatter, all-to-all), x 1
//! (broadcast, reduce, sendrecv). Time is the mean of `-n` iterations after `-w` warm-up ones.

use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use ferrocm::{BackendKind, Device, DeviceBuffer, Stream};
use ferrocm_ccl::{group, CclType, Communicator, DataType, LaunchEnv, ReduceOp};
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall or sendrecv.
    #[arg(default_value = "all_reduce")]
    collective: String,
    /// Smallest size in bytes (suffixes K, M, G).
    #[arg(short = 'b', long = "minbytes", default_value = "32M")]
    min_bytes: String,
    /// Largest size in bytes.
    #[arg(short = 'e', long = "maxbytes", default_value = "32M")]
    max_bytes: String,
    /// Multiply the size by this between rows.
    #[arg(short = 'f', long = "stepfactor", default_value_t = 2)]
    step_factor: u64,
    /// Ranks driven by this process.
    #[arg(short = 'g', long = "ngpus", default_value_t = 1)]
    ngpus: usize,
    /// Timed iterations per size.
    #[arg(short = 'n', long = "iters", default_value_t = 20)]
    iters: usize,
    /// Warm-up iterations per size.
    #[arg(short = 'w', long = "warmup_iters", default_value_t = 5)]
    warmup: usize,
    /// Check results (1) or not (0).
    #[arg(short = 'c', long = "check", default_value_t = 1)]
    check: u32,
    /// Reduction: sum, prod, min, max or avg.
    #[arg(short = 'o', long = "op", default_value = "sum")]
    op: String,
    /// Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16.
    #[arg(short = 'd', long = "datatype", default_value = "float")]
    dtype: String,
    /// Root of broadcast and reduce.
    #[arg(short = 'r', long = "root", default_value_t = 0)]
    root: usize,
    /// One JSON object per row (as well as the table, which goes to stderr).
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coll {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Reduce,
    AllToAll,
    SendRecv,
}

impl Coll {
    fn parse(s: &str) -> Result<Coll> {
        Ok(match s.trim_end_matches("_perf").replace('-', "_").as_str() {
            "all_reduce" | "allreduce" => Coll::AllReduce,
            "all_gather" | "allgather" => Coll::AllGather,
            "reduce_scatter" | "reducescatter" => Coll::ReduceScatter,
            "broadcast" => Coll::Broadcast,
            "reduce" => Coll::Reduce,
            "alltoall" | "all_to_all" => Coll::AllToAll,
            "sendrecv" | "send_recv" => Coll::SendRecv,
            _ => bail!(
                "unknown collective {s:?}: use all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall or sendrecv"
            ),
        })
    }
    fn name(self) -> &'static str {
        match self {
            Coll::AllReduce => "all_reduce",
            Coll::AllGather => "all_gather",
            Coll::ReduceScatter => "reduce_scatter",
            Coll::Broadcast => "broadcast",
            Coll::Reduce => "reduce",
            Coll::AllToAll => "alltoall",
            Coll::SendRecv => "sendrecv",
        }
    }
    /// busbw / algbw.
    fn bus_factor(self, n: usize) -> f64 {
        let n = n as f64;
        match self {
            Coll::AllReduce => 2.0 * (n - 1.0) / n,
            Coll::AllGather | Coll::ReduceScatter | Coll::AllToAll => (n - 1.0) / n,
            _ => 1.0,
        }
    }
    fn reduces(self) -> bool {
        matches!(self, Coll::AllReduce | Coll::ReduceScatter | Coll::Reduce)
    }
    fn rooted(self) -> bool {
        matches!(self, Coll::Broadcast | Coll::Reduce)
    }
    fn has_in_place(self) -> bool {
        !matches!(self, Coll::AllToAll | Coll::SendRecv)
    }
    /// Elements of the send and receive buffers for `count` elements of the largest buffer.
    fn lens(self, count: usize, n: usize) -> (usize, usize) {
        match self {
            Coll::AllGather => (count / n, count / n * n),
            Coll::ReduceScatter => (count / n * n, count / n),
            Coll::AllToAll => (count / n * n, count / n * n),
            _ => (count, count),
        }
    }
}

fn parse_bytes(flag: &str, s: &str) -> Result<u64> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                _ => bail!("{flag} {s:?}: the size suffix must be K, M or G"),
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    let v: u64 =
        num.parse().with_context(|| format!("{flag} {s:?} is not a size in bytes (e.g. 8, 64K, 32M, 1G)"))?;
    v.checked_mul(mult).with_context(|| format!("{flag} {s:?} is too large"))
}

#[derive(Serialize)]
struct JsonRow {
    bench: &'static str,
    collective: &'static str,
    ranks: usize,
    device: String,
    size: u64,
    count: usize,
    r#type: &'static str,
    redop: String,
    root: i64,
    in_place: bool,
    time_us: f64,
    algbw_gbs: f64,
    busbw_gbs: f64,
    wrong: u64,
}

/// The ranks this process drives, with a stream each.
struct Ranks {
    comms: Vec<Communicator>,
    streams: Vec<Stream>,
    /// Each process is one rank of a launched job.
    launched: bool,
}

impl Ranks {
    fn n(&self) -> usize {
        self.comms[0].size()
    }
    fn printer(&self) -> bool {
        !self.launched || self.comms[0].rank() == 0
    }
    fn sync(&self) -> Result<()> {
        for s in &self.streams {
            s.synchronize()?;
        }
        Ok(())
    }
    /// Sums (or maxes) a value over every rank of the job.
    fn combine(&self, v: f64, op: ReduceOp) -> Result<f64> {
        if !self.launched {
            return Ok(v);
        }
        let s = &self.streams[0];
        let mut b = s.clone_htod(&[v])?;
        self.comms[0].all_reduce_in_place(&mut b, op, s)?;
        Ok(s.clone_dtoh(&b)?[0])
    }
}

pub fn run(a: Args) -> Result<()> {
    let coll = Coll::parse(&a.collective)?;
    let dtype = DataType::parse(&a.dtype).with_context(|| {
        format!(
            "-d {:?}: use int8, uint8, int32, uint32, int64, uint64, half, float, double or bfloat16",
            a.dtype
        )
    })?;
    let op =
        ReduceOp::parse(&a.op).with_context(|| format!("-o {:?}: use sum, prod, min, max or avg", a.op))?;
    let min = parse_bytes("-b", &a.min_bytes)?;
    let max = parse_bytes("-e", &a.max_bytes)?;
    ensure!(min > 0, "-b must be at least 1 byte");
    ensure!(min <= max, "-b {min} is larger than -e {max}");
    ensure!(a.step_factor >= 2 && a.step_factor <= 1024, "-f must be in 2..=1024, got {}", a.step_factor);
    ensure!((1..=64).contains(&a.ngpus), "-g must be in 1..=64, got {}", a.ngpus);
    ensure!((1..=100_000).contains(&a.iters), "-n must be in 1..=100000, got {}", a.iters);
    ensure!(a.warmup <= 100_000, "-w must be in 0..=100000, got {}", a.warmup);
    ensure!(a.check <= 1, "-c must be 0 or 1, got {}", a.check);
    let launch = if a.ngpus == 1 { LaunchEnv::detect().ok() } else { None };
    if launch.is_none() && std::env::var("FERROCM_CPU_DEVICES").is_err() {
        // Enough CPU devices for the ranks (used only where there is no GPU). Set before the
        // runtime reads its environment: nothing has touched it yet.
        std::env::set_var("FERROCM_CPU_DEVICES", a.ngpus.to_string());
    }
    let ranks = match &launch {
        Some(env) => {
            let comm = env.init()?;
            let s = comm.device().create_stream()?;
            Ranks { comms: vec![comm], streams: vec![s], launched: true }
        }
        None => {
            let all = Device::all()?;
            let gpus: Vec<Device> = all.iter().filter(|d| d.kind() != BackendKind::Cpu).cloned().collect();
            let pool = if gpus.is_empty() { Device::of_kind(BackendKind::Cpu) } else { gpus };
            ensure!(!pool.is_empty(), "no device is visible");
            let devices: Vec<Device> = (0..a.ngpus).map(|r| pool[r % pool.len()].clone()).collect();
            let comms = Communicator::init_all(&devices)?;
            let streams =
                comms.iter().map(|c| c.device().create_stream()).collect::<std::result::Result<_, _>>()?;
            Ranks { comms, streams, launched: false }
        }
    };
    let n = ranks.n();
    ensure!(a.root < n, "-r {} is not a rank: ranks are 0..{n}", a.root);
    macro_rules! go {
        ($($d:ident => $t:ty),*) => {
            match dtype {
                $(DataType::$d => bench::<$t>(&a, coll, op, min, max, &ranks, dtype),)*
                other => bail!("-d {other}: not supported"),
            }
        };
    }
    go!(I8 => i8, U8 => u8, I32 => i32, U32 => u32, I64 => i64, U64 => u64, F16 => half::f16, Bf16 => half::bf16,
        F32 => f32, F64 => f64)
}

/// A value type with host arithmetic for the check.
trait Value: CclType + PartialEq + std::fmt::Debug {
    fn gen(seed: u64, rank: usize, i: usize, op: ReduceOp) -> Self;
    /// The exact (wrapping) reduction for integer types; `None` for floats.
    fn exact(op: ReduceOp, vals: &[Self]) -> Option<Self>;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
    const EPS: f64;
}

fn mix(seed: u64, rank: usize, i: usize) -> u64 {
    let mut z = seed
        ^ (rank as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (i as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn unit(seed: u64, rank: usize, i: usize) -> f64 {
    (mix(seed, rank, i) >> 11) as f64 / (1u64 << 53) as f64
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn gen(seed: u64, rank: usize, i: usize, op: ReduceOp) -> Self {
                // Small values keep products and sums inside the type, as nccl-tests does.
                let u = mix(seed, rank, i);
                if op == ReduceOp::Prod { (u % 3) as $t } else { (u % 100) as $t }
            }
            fn exact(op: ReduceOp, vals: &[Self]) -> Option<Self> {
                let mut acc = vals[0];
                for &v in &vals[1..] {
                    acc = match op {
                        ReduceOp::Prod => acc.wrapping_mul(v),
                        ReduceOp::Min => acc.min(v),
                        ReduceOp::Max => acc.max(v),
                        _ => acc.wrapping_add(v),
                    };
                }
                Some(if op == ReduceOp::Avg { acc.wrapping_div(vals.len() as $t) } else { acc })
            }
            fn to_f64(self) -> f64 { self as f64 }
            fn from_f64(v: f64) -> Self { v as $t }
            const EPS: f64 = 0.0;
        }
    )*};
}
int_value!(i8, u8, i32, u32, i64, u64);

macro_rules! float_value {
    ($t:ty, $to:expr, $from:expr, $eps:expr) => {
        impl Value for $t {
            fn gen(seed: u64, rank: usize, i: usize, op: ReduceOp) -> Self {
                let u = unit(seed, rank, i);
                ($from)(if op == ReduceOp::Prod { 0.5 + u } else { 2.0 * u - 1.0 })
            }
            fn exact(_op: ReduceOp, _vals: &[Self]) -> Option<Self> {
                None
            }
            fn to_f64(self) -> f64 {
                ($to)(self)
            }
            fn from_f64(v: f64) -> Self {
                ($from)(v)
            }
            const EPS: f64 = $eps;
        }
    };
}
float_value!(f32, |x: f32| x as f64, |v: f64| v as f32, f32::EPSILON as f64);
float_value!(f64, |x: f64| x, |v: f64| v, f64::EPSILON);
float_value!(half::f16, |x: half::f16| x.to_f64(), half::f16::from_f64, 0.0009765625);
float_value!(half::bf16, |x: half::bf16| x.to_f64(), half::bf16::from_f64, 0.0078125);

/// The exact (integers, min, max) or f64 reference of reducing `typed`, and its tolerance.
fn reference<T: Value>(op: ReduceOp, typed: &[T]) -> (f64, f64) {
    if let Some(e) = T::exact(op, typed) {
        return (e.to_f64(), 0.0);
    }
    let vals: Vec<f64> = typed.iter().map(|v| v.to_f64()).collect();
    let n = vals.len() as f64;
    let mag: f64 = vals.iter().map(|v| v.abs()).sum();
    let (v, tol) = match op {
        ReduceOp::Min => (vals.iter().cloned().fold(f64::INFINITY, f64::min), 0.0),
        ReduceOp::Max => (vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max), 0.0),
        ReduceOp::Prod => {
            let p: f64 = vals.iter().product();
            (p, T::EPS * (n + 1.0) * p.abs())
        }
        ReduceOp::Sum => (vals.iter().sum(), T::EPS * (n + 1.0) * mag),
        _ => {
            let s: f64 = vals.iter().sum();
            (s / n, T::EPS * (n + 2.0) * mag / n)
        }
    };
    (v, tol)
}

/// One timed form (out of place or in place) of one size: buffers per local rank.
struct Bufs<T: CclType> {
    send: Vec<DeviceBuffer<T>>,
    recv: Vec<DeviceBuffer<T>>,
}

fn enqueue<T: Value>(
    ranks: &Ranks,
    coll: Coll,
    op: ReduceOp,
    root: usize,
    in_place: bool,
    b: &mut Bufs<T>,
) -> Result<()> {
    let n = ranks.n();
    group(|g| {
        for (i, ((c, s), (send, recv))) in
            ranks.comms.iter().zip(&ranks.streams).zip(b.send.iter().zip(b.recv.iter_mut())).enumerate()
        {
            let _ = i;
            let r = c.rank();
            match (coll, in_place) {
                (Coll::AllReduce, false) => g.all_reduce(c, send, recv, op, s)?,
                (Coll::AllReduce, true) => g.all_reduce_in_place(c, recv, op, s)?,
                (Coll::AllGather, false) => g.all_gather(c, send, recv, s)?,
                (Coll::AllGather, true) => g.all_gather_in_place(c, recv, s)?,
                (Coll::ReduceScatter, false) => g.reduce_scatter(c, send, recv, op, s)?,
                (Coll::ReduceScatter, true) => g.reduce_scatter_in_place(c, recv, op, s)?,
                (Coll::Broadcast, false) => g.broadcast(c, send, recv, root, s)?,
                (Coll::Broadcast, true) => g.broadcast_in_place(c, recv, root, s)?,
                (Coll::Reduce, false) => g.reduce(c, send, recv, op, root, s)?,
                (Coll::Reduce, true) => g.reduce_in_place(c, recv, op, root, s)?,
                (Coll::AllToAll, _) => g.all_to_all(c, send, recv, s)?,
                (Coll::SendRecv, _) => {
                    g.send(c, send, (r + 1) % n, s)?;
                    g.recv(c, recv, (r + n - 1) % n, s)?;
                }
            }
        }
        Ok(())
    })?;
    Ok(())
}

/// Fills the buffers with fresh inputs for `seed` (what each rank starts with).
fn fill<T: Value>(
    ranks: &Ranks,
    coll: Coll,
    op: ReduceOp,
    in_place: bool,
    count: usize,
    seed: u64,
    b: &mut Bufs<T>,
) -> Result<()> {
    let n = ranks.n();
    let (sl, rl) = coll.lens(count, n);
    for (k, c) in ranks.comms.iter().enumerate() {
        let r = c.rank();
        let s = &ranks.streams[k];
        let input: Vec<T> = (0..sl).map(|i| T::gen(seed, r, i, op)).collect();
        s.copy_htod(&input, &mut b.send[k])?;
        let poison: Vec<T> = vec![T::from_f64(-7.0); if in_place { sl.max(rl) } else { rl }];
        s.copy_htod(&poison, &mut b.recv[k])?;
        if in_place {
            let init: Vec<T> = match coll {
                Coll::AllGather => {
                    let mut v = poison.clone();
                    v[r * sl..(r + 1) * sl].copy_from_slice(&input);
                    v
                }
                _ => input.clone(),
            };
            s.copy_htod(&init, &mut b.recv[k])?;
        }
    }
    Ok(())
}

/// Counts elements outside the rounding bound on every local rank.
#[allow(clippy::too_many_arguments)]
fn wrong<T: Value>(
    ranks: &Ranks,
    coll: Coll,
    op: ReduceOp,
    root: usize,
    in_place: bool,
    count: usize,
    seed: u64,
    b: &Bufs<T>,
) -> Result<u64> {
    let n = ranks.n();
    let (sl, rl) = coll.lens(count, n);
    let typed = |j: usize, i: usize| T::gen(seed, j, i, op);
    let input = |j: usize, i: usize| typed(j, i).to_f64();
    let mut bad = 0u64;
    for (k, c) in ranks.comms.iter().enumerate() {
        let r = c.rank();
        let got = ranks.streams[k].clone_dtoh(&b.recv[k])?;
        let mut cmp = |i: usize, want: f64, tol: f64| {
            let g = got[i].to_f64();
            if g.is_nan() || (g - want).abs() > tol {
                bad += 1;
            }
        };
        match coll {
            Coll::AllReduce => {
                for i in 0..rl {
                    let vals: Vec<T> = (0..n).map(|j| typed(j, i)).collect();
                    let (w, t) = reference::<T>(op, &vals);
                    cmp(i, w, t);
                }
            }
            Coll::Reduce if r == root => {
                for i in 0..rl {
                    let vals: Vec<T> = (0..n).map(|j| typed(j, i)).collect();
                    let (w, t) = reference::<T>(op, &vals);
                    cmp(i, w, t);
                }
            }
            Coll::Reduce => {
                for i in 0..rl {
                    cmp(i, if in_place { input(r, i) } else { -7.0 }, 0.0);
                }
            }
            Coll::Broadcast => {
                for i in 0..rl {
                    cmp(i, input(root, i), 0.0);
                }
            }
            Coll::AllGather => {
                for j in 0..n {
                    for i in 0..sl {
                        cmp(j * sl + i, input(j, i), 0.0);
                    }
                }
            }
            Coll::ReduceScatter => {
                let off = if in_place { r * rl } else { 0 };
                for i in 0..rl {
                    let vals: Vec<T> = (0..n).map(|j| typed(j, r * rl + i)).collect();
                    let (w, t) = reference::<T>(op, &vals);
                    cmp(off + i, w, t);
                }
            }
            Coll::AllToAll => {
                let blk = sl / n;
                for j in 0..n {
                    for i in 0..blk {
                        cmp(j * blk + i, input(j, r * blk + i), 0.0);
                    }
                }
            }
            Coll::SendRecv => {
                for i in 0..rl {
                    cmp(i, input((r + n - 1) % n, i), 0.0);
                }
            }
        }
    }
    Ok(bad)
}

fn bench<T: Value>(
    a: &Args,
    coll: Coll,
    op: ReduceOp,
    min: u64,
    max: u64,
    ranks: &Ranks,
    dtype: DataType,
) -> Result<()> {
    let n = ranks.n();
    let es = dtype.size() as u64;
    let unit_elems = match coll {
        Coll::AllGather | Coll::ReduceScatter | Coll::AllToAll => n as u64,
        _ => 1,
    };
    let printer = ranks.printer();
    let dev = ranks.comms[0].device();
    let redop = if coll.reduces() { op.to_string() } else { "none".into() };
    let root_col: i64 = if coll.rooted() { a.root as i64 } else { -1 };
    if printer {
        let p = |s: String| eprintln!("{s}");
        p(format!(
            "# ferrocm bench ccl {}: nThread 1 nGpus {} minBytes {min} maxBytes {max} step: {}(factor) warmup iters: {} iters: {} validation: {}",
            coll.name(),
            ranks.comms.len(),
            a.step_factor,
            a.warmup,
            a.iters,
            a.check
        ));
        p("#".into());
        p("# Using devices".into());
        for c in &ranks.comms {
            p(format!(
                "#  Rank {:2} Group  0 Pid {:6} on {:>10} device {:2} [{}] {} ({} engine)",
                c.rank(),
                std::process::id(),
                std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default().trim(),
                c.device().index(),
                c.device().kind(),
                c.device().properties().name,
                c.engine()
            ));
        }
        p("#".into());
        p(format!(
            "# {:>10} {:>12} {:>8} {:>6} {:>6}  {:>7} {:>7} {:>7} {:>6}  {:>7} {:>7} {:>7} {:>6}",
            "", "", "", "", "", "", "out-of-place", "", "", "", "in-place", "", ""
        ));
        p(format!(
            "# {:>10} {:>12} {:>8} {:>6} {:>6}  {:>7} {:>7} {:>7} {:>6}  {:>7} {:>7} {:>7} {:>6}",
            "size",
            "count",
            "type",
            "redop",
            "root",
            "time",
            "algbw",
            "busbw",
            "#wrong",
            "time",
            "algbw",
            "busbw",
            "#wrong"
        ));
        p(format!(
            "# {:>10} {:>12} {:>8} {:>6} {:>6}  {:>7} {:>7} {:>7} {:>6}  {:>7} {:>7} {:>7} {:>6}",
            "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""
        ));
    }
    let mut busbw_sum = 0.0;
    let mut busbw_n = 0usize;
    let mut total_wrong = 0u64;
    let mut size = min;
    while size <= max {
        let count = (size / es / unit_elems * unit_elems) as usize;
        let bytes = count as u64 * es;
        if count == 0 {
            size = size.saturating_mul(a.step_factor);
            continue;
        }
        let (sl, rl) = coll.lens(count, n);
        let mut line =
            format!("{:>12} {:>12} {:>8} {:>6} {:>6}", bytes, count, dtype.nccl_name(), redop, root_col);
        for in_place in [false, true] {
            if in_place && !coll.has_in_place() {
                line.push_str(&format!("  {:>7} {:>7} {:>7} {:>6}", "N/A", "N/A", "N/A", "N/A"));
                continue;
            }
            let mut b = Bufs {
                send: ranks
                    .streams
                    .iter()
                    .map(|s| s.alloc::<T>(sl.max(1)))
                    .collect::<std::result::Result<_, _>>()?,
                // In place, the one buffer is the larger of the two (a reduce-scatter's input).
                recv: ranks
                    .streams
                    .iter()
                    .map(|s| s.alloc::<T>(if in_place { sl.max(rl) } else { rl }.max(1)))
                    .collect::<std::result::Result<_, _>>()?,
            };
            let seed = fresh_seed(ranks)?;
            let mut bad = 0u64;
            if a.check == 1 {
                fill(ranks, coll, op, in_place, count, seed, &mut b)?;
                enqueue(ranks, coll, op, a.root, in_place, &mut b)?;
                ranks.sync()?;
                bad = wrong(ranks, coll, op, a.root, in_place, count, seed, &b)?;
                bad = ranks.combine(bad as f64, ReduceOp::Sum)? as u64;
                total_wrong += bad;
            }
            fill(ranks, coll, op, in_place, count, seed ^ 1, &mut b)?;
            for _ in 0..a.warmup {
                enqueue(ranks, coll, op, a.root, in_place, &mut b)?;
            }
            ranks.sync()?;
            let t = Instant::now();
            for _ in 0..a.iters {
                enqueue(ranks, coll, op, a.root, in_place, &mut b)?;
            }
            ranks.sync()?;
            let us = ranks.combine(t.elapsed().as_secs_f64() * 1e6 / a.iters as f64, ReduceOp::Max)?;
            let algbw = bytes as f64 / us / 1e3;
            let busbw = algbw * coll.bus_factor(n);
            busbw_sum += busbw;
            busbw_n += 1;
            line.push_str(&format!(
                "  {:>7} {:>7.2} {:>7.2} {:>6}",
                fmt_time(us),
                algbw,
                busbw,
                if a.check == 1 { bad.to_string() } else { "N/A".into() }
            ));
            if a.json && printer {
                let row = JsonRow {
                    bench: "ccl",
                    collective: coll.name(),
                    ranks: n,
                    device: dev.properties().name.clone(),
                    size: bytes,
                    count,
                    r#type: dtype.nccl_name(),
                    redop: redop.clone(),
                    root: root_col,
                    in_place,
                    time_us: us,
                    algbw_gbs: algbw,
                    busbw_gbs: busbw,
                    wrong: bad,
                };
                println!("{}", serde_json::to_string(&row)?);
            }
        }
        if printer {
            eprintln!("{line}");
        }
        size = match size.checked_mul(a.step_factor) {
            Some(s) => s,
            None => break,
        };
    }
    if printer {
        eprintln!(
            "# Out of bounds values : {} {}",
            total_wrong,
            if total_wrong == 0 { "OK" } else { "FAILED" }
        );
        eprintln!(
            "# Avg bus bandwidth    : {:.6} ",
            if busbw_n > 0 { busbw_sum / busbw_n as f64 } else { 0.0 }
        );
        eprintln!("#");
    }
    ensure!(total_wrong == 0, "{total_wrong} element(s) were wrong");
    Ok(())
}

fn fmt_time(us: f64) -> String {
    if us >= 10000.0 {
        format!("{us:.0}")
    } else if us >= 100.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.2}")
    }
}

/// A seed that differs between runs, the same on every rank of a launched job.
fn fresh_seed(ranks: &Ranks) -> Result<u64> {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(7);
    let mine = (t ^ 0x5851_f42d_4c95_7f2d).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 12;
    // The root's seed wins; exact as an f64 (52 bits).
    let s = if ranks.launched {
        let st = &ranks.streams[0];
        let mut b = st.clone_htod(&[if ranks.comms[0].rank() == 0 { mine as f64 } else { 0.0 }])?;
        ranks.comms[0].all_reduce_in_place(&mut b, ReduceOp::Max, st)?;
        st.clone_dtoh(&b)?[0] as u64
    } else {
        mine
    };
    Ok(s)
}
