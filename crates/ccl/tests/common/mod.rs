//! Shared by the CCL test binaries: CPU devices for many ranks, deterministic inputs, the host
//! reference of every operation, and a runner that drives each rank from its own thread.
#![allow(dead_code)]

use std::sync::Once;
use std::time::Duration;

use ferrocm_ccl::{CclType, Communicator, Config, DataType, ReduceOp};
use ferrocm_runtime::{BackendKind, Device};
use half::{bf16, f16};

/// Enough CPU devices for the largest communicator the tests make (set before the runtime
/// reads its environment: every test calls this first).
pub fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var("FERROCM_CPU_DEVICES").is_err() {
            std::env::set_var("FERROCM_CPU_DEVICES", "8");
        }
    });
}

/// `n` devices for `n` ranks: distinct CPU devices where there are enough, shared otherwise.
pub fn cpu_devices(n: usize) -> Vec<Device> {
    setup();
    let cpus = Device::of_kind(BackendKind::Cpu);
    assert!(!cpus.is_empty(), "no CPU device");
    (0..n).map(|r| cpus[r % cpus.len()].clone()).collect()
}

pub fn config() -> Config {
    Config::default().with_timeout(Duration::from_secs(60))
}

/// Runs `f` for every rank, each on its own thread; returns the results in rank order.
pub fn each_rank<R: Send>(comms: &[Communicator], f: impl Fn(&Communicator) -> R + Sync) -> Vec<R> {
    std::thread::scope(|s| {
        let hs: Vec<_> = comms.iter().map(|c| s.spawn(|| f(c))).collect();
        hs.into_iter().map(|h| h.join().expect("a rank's thread panicked")).collect()
    })
}

/// A small deterministic generator (splitmix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A CCL type with what the tests need: inputs, conversion to f64, and the reference reduction.
pub trait TestType: CclType + std::fmt::Debug + PartialEq {
    /// An input value for reductions by `op` (products stay near 1 for floats).
    fn gen(rng: &mut Rng, op: ReduceOp) -> Self;
    fn to_f64(self) -> f64;
    /// The bits, to compare results exactly.
    fn bits(self) -> u64;
    /// The exact reference for integers (wrapping), `None` for floats.
    fn int_reduce(op: ReduceOp, vals: &[Self]) -> Option<Self>;
    /// Unit roundoff of the type (0 for integers).
    const EPS: f64;
}

macro_rules! int_type {
    ($($t:ty),*) => {$(
        impl TestType for $t {
            fn gen(rng: &mut Rng, _op: ReduceOp) -> Self {
                rng.next() as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn bits(self) -> u64 {
                self as u64
            }
            fn int_reduce(op: ReduceOp, vals: &[Self]) -> Option<Self> {
                let mut acc = vals[0];
                for &v in &vals[1..] {
                    acc = match op {
                        ReduceOp::Sum | ReduceOp::Avg => acc.wrapping_add(v),
                        ReduceOp::Prod => acc.wrapping_mul(v),
                        ReduceOp::Min => acc.min(v),
                        ReduceOp::Max => acc.max(v),
                        _ => unreachable!(),
                    };
                }
                if op == ReduceOp::Avg {
                    acc = acc.wrapping_div(vals.len() as $t);
                }
                Some(acc)
            }
            const EPS: f64 = 0.0;
        }
    )*};
}
int_type!(i8, u8, i32, u32, i64, u64);

macro_rules! float_type {
    ($t:ty, $from:expr, $to:expr, $bits:expr, $eps:expr) => {
        impl TestType for $t {
            fn gen(rng: &mut Rng, op: ReduceOp) -> Self {
                let v = if op == ReduceOp::Prod { rng.uniform(0.5, 1.5) } else { rng.uniform(-1.0, 1.0) };
                ($from)(v)
            }
            fn to_f64(self) -> f64 {
                ($to)(self)
            }
            fn bits(self) -> u64 {
                ($bits)(self)
            }
            fn int_reduce(_op: ReduceOp, _vals: &[Self]) -> Option<Self> {
                None
            }
            const EPS: f64 = $eps;
        }
    };
}
float_type!(f32, |v: f64| v as f32, |x: f32| x as f64, |x: f32| x.to_bits() as u64, f32::EPSILON as f64);
float_type!(f64, |v: f64| v, |x: f64| x, |x: f64| x.to_bits(), f64::EPSILON);
float_type!(f16, f16::from_f64, |x: f16| x.to_f64(), |x: f16| x.to_bits() as u64, 0.0009765625);
float_type!(bf16, bf16::from_f64, |x: bf16| x.to_f64(), |x: bf16| x.to_bits() as u64, 0.0078125);

/// Checks `got` against the reduction of `vals` by `op`: exact for integers and for min/max,
/// within rounding bounds for float sums and products.
pub fn check_reduced<T: TestType>(what: &dyn Fn() -> String, op: ReduceOp, vals: &[T], got: T) {
    if let Some(want) = T::int_reduce(op, vals) {
        if got != want {
            panic!("{}: {op} of {vals:?} is {want:?}, got {got:?}", what());
        }
        return;
    }
    let f: Vec<f64> = vals.iter().map(|v| v.to_f64()).collect();
    let n = f.len() as f64;
    let (want, tol) = match op {
        ReduceOp::Min => (f.iter().cloned().fold(f64::INFINITY, f64::min), 0.0),
        ReduceOp::Max => (f.iter().cloned().fold(f64::NEG_INFINITY, f64::max), 0.0),
        ReduceOp::Prod => {
            let p: f64 = f.iter().product();
            (p, T::EPS * (n + 1.0) * p.abs())
        }
        ReduceOp::Sum => (f.iter().sum(), T::EPS * (n + 1.0) * f.iter().map(|x| x.abs()).sum::<f64>()),
        _ => {
            let s: f64 = f.iter().sum();
            (s / n, T::EPS * (n + 2.0) * f.iter().map(|x| x.abs()).sum::<f64>() / n)
        }
    };
    let g = got.to_f64();
    if (g - want).abs() > tol {
        panic!("{}: {op} of {f:?} is {want}, got {g} (tolerance {tol:e})", what());
    }
}

/// Runs `f::<T>()` for the Rust type of `dt`.
#[macro_export]
macro_rules! by_type {
    ($dt:expr, $f:ident $(, $arg:expr)*) => {
        match $dt {
            ferrocm_ccl::DataType::I8 => $f::<i8>($($arg),*),
            ferrocm_ccl::DataType::U8 => $f::<u8>($($arg),*),
            ferrocm_ccl::DataType::I32 => $f::<i32>($($arg),*),
            ferrocm_ccl::DataType::U32 => $f::<u32>($($arg),*),
            ferrocm_ccl::DataType::I64 => $f::<i64>($($arg),*),
            ferrocm_ccl::DataType::U64 => $f::<u64>($($arg),*),
            ferrocm_ccl::DataType::F16 => $f::<half::f16>($($arg),*),
            ferrocm_ccl::DataType::Bf16 => $f::<half::bf16>($($arg),*),
            ferrocm_ccl::DataType::F32 => $f::<f32>($($arg),*),
            ferrocm_ccl::DataType::F64 => $f::<f64>($($arg),*),
            other => panic!("no test type for {other:?}"),
        }
    };
}

pub fn all_types() -> [DataType; 10] {
    DataType::ALL
}

/// One operation to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    AllReduce,
    Broadcast,
    Reduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    /// Every rank sends to the next and receives from the previous, in one group.
    SendRecv,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::AllReduce,
        Kind::Broadcast,
        Kind::Reduce,
        Kind::AllGather,
        Kind::ReduceScatter,
        Kind::AllToAll,
        Kind::SendRecv,
    ];
    pub fn reduces(self) -> bool {
        matches!(self, Kind::AllReduce | Kind::Reduce | Kind::ReduceScatter)
    }
    pub fn has_in_place(self) -> bool {
        !matches!(self, Kind::AllToAll | Kind::SendRecv)
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub kind: Kind,
    pub dtype: DataType,
    pub op: ReduceOp,
    pub in_place: bool,
    pub count: usize,
    pub root: usize,
}

impl Case {
    fn seed(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in format!("{self:?}").bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        h
    }
}

/// Runs `case` on every rank of `comms` and checks every rank's result against the host
/// reference.
pub fn run_case(comms: &[Communicator], case: &Case) {
    crate::by_type!(case.dtype, run_typed, comms, case)
}

/// Runs `case` on this process's rank of a communicator whose ranks live in several processes
/// (each runs the same case) and checks this rank's result against the host reference (every
/// rank's inputs are a function of the case).
pub fn run_case_on(comm: &Communicator, case: &Case) {
    crate::by_type!(case.dtype, run_one, comm, case)
}

fn lens(kind: Kind, n: usize, count: usize) -> (usize, usize) {
    match kind {
        Kind::AllReduce | Kind::Broadcast | Kind::Reduce | Kind::SendRecv => (count, count),
        Kind::AllGather => (count, n * count),
        Kind::ReduceScatter => (n * count, count),
        Kind::AllToAll => (n * count, n * count),
    }
}

/// Every rank's inputs and the values its output buffer holds before the call.
struct Data<T> {
    inputs: Vec<Vec<T>>,
    sentinel: Vec<Vec<T>>,
    recv_len: usize,
}

fn data<T: TestType>(c: &Case, n: usize) -> Data<T> {
    let mut rng = Rng::new(c.seed());
    let (send_len, recv_len) = lens(c.kind, n, c.count);
    let inputs: Vec<Vec<T>> =
        (0..n).map(|_| (0..send_len).map(|_| T::gen(&mut rng, c.op)).collect()).collect();
    let sentinel: Vec<Vec<T>> = (0..n)
        .map(|_| (0..recv_len.max(send_len)).map(|_| T::gen(&mut rng, ReduceOp::Sum)).collect())
        .collect();
    Data { inputs, sentinel, recv_len }
}

/// Runs `c` on `comm`'s rank; returns what its output buffer holds afterwards.
fn run_rank<T: TestType>(comm: &Communicator, c: &Case, d: &Data<T>) -> Vec<T> {
    let (r, n) = (comm.rank(), comm.size());
    let (inputs, sentinel, recv_len) = (&d.inputs, &d.sentinel, d.recv_len);
    // What each rank's buffer holds before an in-place operation.
    let in_place_init = |r: usize| -> Vec<T> {
        match c.kind {
            Kind::Broadcast if r != c.root => sentinel[r][..c.count].to_vec(),
            Kind::AllGather => {
                let mut b = sentinel[r][..n * c.count].to_vec();
                b[r * c.count..(r + 1) * c.count].copy_from_slice(&inputs[r]);
                b
            }
            _ => inputs[r].clone(),
        }
    };
    let s = comm.device().create_stream().expect("stream");
    let what = format!("{c:?} rank {r}");
    let run = || -> ferrocm_ccl::Result<Vec<T>> {
        if c.in_place {
            let init = in_place_init(r);
            let mut buf = if init.is_empty() { s.alloc::<T>(1)? } else { s.clone_htod(&init)? };
            let mut view = buf.slice_mut(..init.len())?;
            match c.kind {
                Kind::AllReduce => comm.all_reduce_in_place(&mut view, c.op, &s)?,
                Kind::Broadcast => comm.broadcast_in_place(&mut view, c.root, &s)?,
                Kind::Reduce => comm.reduce_in_place(&mut view, c.op, c.root, &s)?,
                Kind::AllGather => comm.all_gather_in_place(&mut view, &s)?,
                Kind::ReduceScatter => comm.reduce_scatter_in_place(&mut view, c.op, &s)?,
                _ => unreachable!("no in-place form"),
            }
            let mut v = s.clone_dtoh(&buf)?;
            v.truncate(init.len());
            return Ok(v);
        }
        let input = &inputs[r];
        let send = if input.is_empty() { s.alloc::<T>(1)? } else { s.clone_htod(input)? };
        let send = send.slice(..input.len())?;
        let init = &sentinel[r][..recv_len];
        let mut recv_buf = if init.is_empty() { s.alloc::<T>(1)? } else { s.clone_htod(init)? };
        let mut recv = recv_buf.slice_mut(..recv_len)?;
        match c.kind {
            Kind::AllReduce => comm.all_reduce(&send, &mut recv, c.op, &s)?,
            Kind::Broadcast => comm.broadcast(&send, &mut recv, c.root, &s)?,
            Kind::Reduce => comm.reduce(&send, &mut recv, c.op, c.root, &s)?,
            Kind::AllGather => comm.all_gather(&send, &mut recv, &s)?,
            Kind::ReduceScatter => comm.reduce_scatter(&send, &mut recv, c.op, &s)?,
            Kind::AllToAll => comm.all_to_all(&send, &mut recv, &s)?,
            Kind::SendRecv => ferrocm_ccl::group(|g| {
                g.send(comm, &send, (r + 1) % n, &s)?;
                g.recv(comm, &mut recv, (r + n - 1) % n, &s)
            })?,
        }
        let mut v = s.clone_dtoh(&recv_buf)?;
        v.truncate(recv_len);
        Ok(v)
    };
    run().unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// Checks rank `r`'s output `out` of `c` on `n` ranks against the host reference.
fn check_rank<T: TestType>(c: &Case, n: usize, r: usize, out: &[T], d: &Data<T>) {
    let (inputs, sentinel, count) = (&d.inputs, &d.sentinel, c.count);
    let what = format!("{c:?} rank {r}");
    match c.kind {
        Kind::AllReduce => {
            for i in 0..count {
                let vals: Vec<T> = (0..n).map(|j| inputs[j][i]).collect();
                check_reduced(&|| format!("{what} element {i}"), c.op, &vals, out[i]);
            }
        }
        Kind::Broadcast => assert_eq!(out, &inputs[c.root][..], "{what}"),
        Kind::Reduce if r == c.root => {
            for i in 0..count {
                let vals: Vec<T> = (0..n).map(|j| inputs[j][i]).collect();
                check_reduced(&|| format!("{what} element {i}"), c.op, &vals, out[i]);
            }
        }
        Kind::Reduce => {
            let untouched = if c.in_place { &inputs[r][..] } else { &sentinel[r][..count] };
            assert_eq!(out, untouched, "{what}: a non-root's buffer must be left as it was");
        }
        Kind::AllGather => {
            for j in 0..n {
                assert_eq!(&out[j * count..(j + 1) * count], &inputs[j][..], "{what} block {j}");
            }
        }
        Kind::ReduceScatter => {
            let (lo, hi) = if c.in_place { (r * count, (r + 1) * count) } else { (0, count) };
            for i in 0..count {
                let vals: Vec<T> = (0..n).map(|j| inputs[j][r * count + i]).collect();
                check_reduced(&|| format!("{what} element {i}"), c.op, &vals, out[lo + i]);
            }
            if c.in_place {
                assert_eq!(&out[..lo], &inputs[r][..lo], "{what}: other blocks must be left as they were");
                assert_eq!(&out[hi..], &inputs[r][hi..], "{what}: other blocks must be left as they were");
            }
        }
        Kind::AllToAll => {
            for j in 0..n {
                assert_eq!(
                    &out[j * count..(j + 1) * count],
                    &inputs[j][r * count..(r + 1) * count],
                    "{what} block {j}"
                );
            }
        }
        Kind::SendRecv => assert_eq!(out, &inputs[(r + n - 1) % n][..], "{what}"),
    }
}

fn run_typed<T: TestType>(comms: &[Communicator], c: &Case) {
    let n = comms.len();
    let d = data::<T>(c, n);
    let outs: Vec<Vec<T>> = each_rank(comms, |comm| run_rank(comm, c, &d));
    for (r, out) in outs.iter().enumerate() {
        check_rank(c, n, r, out, &d);
        if c.kind == Kind::AllReduce {
            for i in 0..c.count {
                if out[i].bits() != outs[0][i].bits() {
                    panic!(
                        "{c:?} rank {r} element {i}: ranks disagree bit for bit ({:?} vs {:?})",
                        out[i], outs[0][i]
                    );
                }
            }
        }
    }
}

fn run_one<T: TestType>(comm: &Communicator, c: &Case) {
    let d = data::<T>(c, comm.size());
    let out = run_rank(comm, c, &d);
    check_rank(c, comm.size(), comm.rank(), &out, &d);
}

/// The environment variable that makes a test binary a child rank of a multi-process test.
pub const ROLE: &str = "FERROCM_CCL_TEST_ROLE";

/// This process's rank, the number of ranks and the unique id, when it is a child rank.
pub fn child() -> Option<(usize, usize, ferrocm_ccl::UniqueId)> {
    std::env::var(ROLE).ok()?;
    let get = |v: &str| std::env::var(v).unwrap_or_else(|_| panic!("{v} is not set in a child rank"));
    let rank = get("FERROCM_CCL_TEST_RANK").parse().unwrap();
    let n = get("FERROCM_CCL_TEST_NRANKS").parse().unwrap();
    let id = get("FERROCM_CCL_TEST_ID").parse().unwrap();
    Some((rank, n, id))
}

/// What a child rank printed and how it ended.
#[derive(Debug)]
pub struct ChildResult {
    pub rank: usize,
    pub code: Option<i32>,
    pub output: String,
}

/// Runs the test `test` of this binary in `n` child processes, rank `r` with `env(r)` added,
/// all joined by one unique id whose root runs here. A watchdog kills every child still
/// running after `limit` and fails the test, so nothing can hang.
pub fn spawn_ranks(
    test: &str,
    n: usize,
    limit: Duration,
    env: impl Fn(usize) -> Vec<(String, String)>,
) -> Vec<ChildResult> {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let id = ferrocm_ccl::UniqueId::new().expect("unique id");
    let exe = std::env::current_exe().expect("current exe");
    let mut children = Vec::new();
    for r in 0..n {
        let mut cmd = Command::new(&exe);
        // `--include-ignored`: the parent may be an ignored test run on demand.
        cmd.args([test, "--exact", "--nocapture", "--test-threads=1", "--include-ignored"])
            .env(ROLE, "child")
            .env("FERROCM_CCL_TEST_RANK", r.to_string())
            .env("FERROCM_CCL_TEST_NRANKS", n.to_string())
            .env("FERROCM_CCL_TEST_ID", id.to_string())
            .env_remove("FERROCM_CPU_DEVICES")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env(r) {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn a child rank");
        // Drain both pipes on threads so a chatty child never blocks on a full pipe.
        let drain = |mut p: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut s = String::new();
                let _ = p.read_to_string(&mut s);
                s
            })
        };
        let out = drain(Box::new(child.stdout.take().expect("stdout")));
        let err = drain(Box::new(child.stderr.take().expect("stderr")));
        children.push((child, out, err));
    }
    let deadline = std::time::Instant::now() + limit;
    let mut codes: Vec<Option<Option<i32>>> = vec![None; n];
    while codes.iter().any(Option::is_none) {
        for (r, (c, _, _)) in children.iter_mut().enumerate() {
            if codes[r].is_none() {
                if let Ok(Some(status)) = c.try_wait() {
                    codes[r] = Some(status.code());
                }
            }
        }
        if std::time::Instant::now() > deadline {
            for (r, (c, _, _)) in children.iter_mut().enumerate() {
                if codes[r].is_none() {
                    let _ = c.kill();
                    let _ = c.wait();
                }
            }
            let outs: Vec<String> = children
                .into_iter()
                .map(|(_, o, e)| format!("{}{}", o.join().unwrap_or_default(), e.join().unwrap_or_default()))
                .collect();
            panic!(
                "watchdog: child ranks of {test} still ran after {limit:?}; killed them. Output:\n{}",
                outs.join("\n-----\n")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    children
        .into_iter()
        .enumerate()
        .map(|(r, (_, o, e))| ChildResult {
            rank: r,
            code: codes[r].flatten(),
            output: format!("{}{}", o.join().unwrap_or_default(), e.join().unwrap_or_default()),
        })
        .collect()
}

/// Fails unless every child passed its test.
pub fn all_passed(results: &[ChildResult]) {
    for r in results {
        assert!(
            r.code == Some(0) && r.output.contains("test result: ok. 1 passed"),
            "rank {} failed (exit {:?}):\n{}",
            r.rank,
            r.code,
            r.output
        );
    }
}

/// Whether UCX tests should run: UCX is present, or its absence is an error
/// (`FERROCM_REQUIRE_UCX=1`, as CI sets).
pub fn ucx_or_skip() -> bool {
    match ferrocm_ccl::ucx_available() {
        Ok(()) => true,
        Err(e) => {
            assert!(
                std::env::var("FERROCM_REQUIRE_UCX").map_or(true, |v| v != "1"),
                "FERROCM_REQUIRE_UCX=1 but UCX cannot be loaded: {e}"
            );
            eprintln!("skipping: UCX is not available ({e})");
            false
        }
    }
}
