//! The device API inside `#[kernel]`s, on every device: cuRAND's device known-answer vectors
//! replayed by kernels, and skip-ahead consistency across threads.

use crate::common;

use crate::common::{devices, is_gpu};
use ferrocm_kernel::dsl::{MemoryMut, SliceMut};
use ferrocm_kernel::prelude::*;
use ferrocm_kernel::runtime::Device;
use ferrocm_rand::device::{
    mrg32k3a_skip_table, xorwow_skip_table, DeviceGenerator, Mrg32k3a, Philox, Xorwow,
};
use ferrocm_rand::reference::{self as r, CurandDevice};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Int,
    F32,
    F64,
}

/// The kind of value slot `k` of a mode holds (as `curand_device.rs` produces them).
fn kind_of(mode: &str, k: usize) -> Kind {
    match mode {
        "curand" | "curand4" | "curand_curand4" => Kind::Int,
        m if m.starts_with("poisson") => Kind::Int,
        "uniform_double" | "normal_double" | "normal2_double" | "log_normal_double" | "uniform2_double"
        | "normal4_double" => Kind::F64,
        "mixed" => match k % 8 {
            1 => Kind::Int,
            3 | 4 => Kind::F64,
            _ => Kind::F32,
        },
        _ => Kind::F32,
    }
}

/// Modes the kernels replay: all of them.
fn supported(_mode: &str) -> bool {
    true
}

/// Poisson modes whose mean takes cuRAND's rejection sampler, which uses f32 `exp` and `ln`:
/// exact on the CPU executor; on NVIDIA (`.approx` instructions) a trial near its bound may
/// go the other way and shift the state's later draws, so there at least 90% of the values
/// must match.
fn approx_on_gpu(mode: &str) -> bool {
    lambda_of(mode).is_some_and(|l| (64.0..=4000.0).contains(&l))
}

/// The Poisson mean of a mode, if it is one.
fn lambda_of(mode: &str) -> Option<f32> {
    mode.rsplit('_').next().filter(|_| mode.starts_with("poisson")).and_then(|l| l.parse().ok())
}

struct Out {
    u: SliceMut<u32>,
    f: SliceMut<f32>,
    d: SliceMut<f64>,
}

impl Out {
    fn u(&self, k: &mut u32, v: Val<u32>) {
        self.u.store(*k, v);
        *k += 1;
    }
    fn f(&self, k: &mut u32, v: Val<f32>) {
        self.f.store(*k, v);
        *k += 1;
    }
    fn d(&self, k: &mut u32, v: Val<f64>) {
        self.d.store(*k, v);
        *k += 1;
    }
}

fn produce_common<G: DeviceGenerator>(g: &G, mode: &str, n: u32, o: &Out, exp_l: Val<f32>) {
    let mut k = 0u32;
    while k < n {
        match mode {
            m if m.starts_with("poisson") => {
                // The mean is part of the mode, so cuRAND's choice of method is made here.
                let lambda = lambda_of(m).unwrap_or(0.0) as f64;
                let v = if lambda < 64.0 {
                    g.poisson_knuth(exp_l)
                } else if lambda > 4000.0 {
                    g.poisson_normal_approx(Val::constant(lambda))
                } else {
                    g.poisson_gamma_rejection(Val::constant(lambda as f32))
                };
                o.u(&mut k, v)
            }
            "curand" => o.u(&mut k, g.next_u32()),
            "uniform" => o.f(&mut k, g.uniform()),
            "normal" => o.f(&mut k, g.normal()),
            "normal2" => {
                let (a, b) = g.normal2();
                o.f(&mut k, a);
                o.f(&mut k, b);
            }
            "uniform_double" => o.d(&mut k, g.uniform_double()),
            "normal_double" => o.d(&mut k, g.normal_double()),
            "normal2_double" => {
                let (a, b) = g.normal2_double();
                o.d(&mut k, a);
                o.d(&mut k, b);
            }
            "log_normal" => o.f(&mut k, g.log_normal(0.5f32, 0.75f32)),
            "log_normal_double" => o.d(&mut k, g.log_normal_double(0.5f64, 0.75f64)),
            "log_normal2" => {
                let (a, b) = g.log_normal2(0.5f32, 0.75f32);
                o.f(&mut k, a);
                o.f(&mut k, b);
            }
            "mixed" => match k % 8 {
                0 | 2 | 6 => o.f(&mut k, g.normal()),
                1 => o.u(&mut k, g.next_u32()),
                3 => o.d(&mut k, g.normal_double()),
                4 => o.d(&mut k, g.uniform_double()),
                5 => o.f(&mut k, g.log_normal(0.0f32, 1.0f32)),
                _ => o.f(&mut k, g.uniform()),
            },
            _ => k = n,
        }
    }
}

fn produce_philox(p: &Philox, mode: &str, n: u32, o: &Out, exp_l: Val<f32>) {
    let mut k = 0u32;
    while k < n {
        match mode {
            "poisson4_3.5" => (0..4).for_each(|_| o.u(&mut k, p.poisson_knuth(exp_l))),
            "curand4" => p.next4().into_iter().for_each(|x| o.u(&mut k, x)),
            "uniform4" => p.uniform4().into_iter().for_each(|x| o.f(&mut k, x)),
            "normal4" => p.normal4().into_iter().for_each(|x| o.f(&mut k, x)),
            "uniform2_double" => p.uniform2_double().into_iter().for_each(|x| o.d(&mut k, x)),
            "normal4_double" => p.normal4_double().into_iter().for_each(|x| o.d(&mut k, x)),
            "curand_curand4" => {
                o.u(&mut k, p.next_u32());
                o.u(&mut k, p.next4()[3]);
            }
            _ => return produce_common(p, mode, n, o, exp_l),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn replay_body(
    gen: &'static str,
    mode: &'static str,
    n: u32,
    seed: Val<u64>,
    sub: Val<u64>,
    off: Val<u64>,
    exp_l: Val<f32>,
    table: Slice<u32>,
    u: SliceMut<u32>,
    f: SliceMut<f32>,
    d: SliceMut<f64>,
) {
    // Struct literals are not supported inside a kernel body, so the outputs are bundled here.
    let o = Out { u, f, d };
    match gen {
        "philox" => produce_philox(&Philox::init(seed, sub, off), mode, n, &o, exp_l),
        "xorwow" => produce_common(&Xorwow::init(seed, sub, off, table), mode, n, &o, exp_l),
        _ => produce_common(&Mrg32k3a::init(seed, sub, off, table), mode, n, &o, exp_l),
    }
}

#[kernel]
fn replay(
    #[comptime] gen: &'static str,
    #[comptime] mode: &'static str,
    #[comptime] n: u32,
    seed: u64,
    sub: u64,
    off: u64,
    exp_l: f32,
    table: &[u32],
    ou: &mut [u32],
    of: &mut [f32],
    od: &mut [f64],
) {
    replay_body(gen, mode, n, seed, sub, off, exp_l, table, ou, of, od);
}

fn table_for(gen: &str) -> Vec<u32> {
    match gen {
        "xorwow" => xorwow_skip_table(),
        "mrg" => mrg32k3a_skip_table(),
        _ => vec![0],
    }
}

fn tol(d: &Device, kind: Kind) -> f64 {
    match (is_gpu(d), kind) {
        (_, Kind::Int) => 0.0,
        (false, Kind::F32) => 4e-6,
        // f32 `.approx` transcendentals.
        (true, Kind::F32) => 2e-5,
        // f64 `ln`, `sin`, `cos`, `exp` are f64 polynomials on every back end.
        (_, Kind::F64) => 2e-15,
    }
}

#[test]
fn kernels_reproduce_curand_device_vectors() {
    let cases = common::parse(common::DEVICE);
    for d in devices() {
        let stream = d.create_stream().unwrap();
        let mut ran = 0;
        for c in cases.iter().filter(|c| supported(c.get("mode"))) {
            let gen: &'static str = match c.get("gen") {
                "philox" => "philox",
                "xorwow" => "xorwow",
                _ => "mrg",
            };
            let mode: &'static str = Box::leak(c.get("mode").to_string().into_boxed_str());
            let n = c.values.len();
            let table = stream.clone_htod(&table_for(gen)).unwrap();
            let mut ou = stream.alloc_zeroed::<u32>(n + 4).unwrap();
            let mut of = stream.alloc_zeroed::<f32>(n + 4).unwrap();
            let mut od = stream.alloc_zeroed::<f64>(n + 4).unwrap();
            replay::launch(
                &stream,
                LaunchConfig::new(1, 1),
                gen,
                mode,
                n as u32,
                c.u64("seed"),
                c.u64("subsequence"),
                c.u64("offset"),
                lambda_of(mode).map(f32::exp).unwrap_or(1.0),
                &table,
                &mut ou,
                &mut of,
                &mut od,
            )
            .unwrap_or_else(|e| panic!("{}: {e}", c.label()));
            let (u, f, dd) = (
                stream.clone_dtoh(&ou).unwrap(),
                stream.clone_dtoh(&of).unwrap(),
                stream.clone_dtoh(&od).unwrap(),
            );
            let exact_mode = !(mode.contains("normal") || mode == "mixed");
            if is_gpu(&d) && approx_on_gpu(mode) {
                let same = c.values.iter().zip(&u).filter(|(w, g)| **w == **g as u64).count();
                assert!(same * 10 >= c.values.len() * 9, "{}: {same} of {} equal", c.label(), c.values.len());
                ran += 1;
                continue;
            }
            for (k, &want) in c.values.iter().enumerate() {
                let kind = kind_of(mode, k);
                let exact = exact_mode || (mode == "mixed" && matches!(k % 8, 1 | 4 | 7));
                let (got, w) = match kind {
                    Kind::Int => (u[k] as f64, want as f64),
                    Kind::F32 => (f[k] as f64, f32::from_bits(want as u32) as f64),
                    Kind::F64 => (dd[k], f64::from_bits(want)),
                };
                let t = if exact { 0.0 } else { tol(&d, kind) };
                assert!(
                    (got - w).abs() <= t * w.abs().max(1.0),
                    "{} value {k} on {}: got {got} want {w}",
                    c.label(),
                    d.properties().name
                );
                if exact && kind == Kind::F32 {
                    assert_eq!(f[k].to_bits(), want as u32, "{} value {k}", c.label());
                }
                if exact && kind == Kind::F64 {
                    assert_eq!(dd[k].to_bits(), want, "{} value {k}", c.label());
                }
            }
            ran += 1;
        }
        assert!(ran > 100, "only {ran} device vectors ran");
    }
}

#[device]
fn skip_body(
    #[comptime] gen: &'static str,
    seed: u64,
    subs: Slice<u64>,
    offs: Slice<u64>,
    table: Slice<u32>,
    out: SliceMut<u32>,
) {
    let i = global_index();
    let n = subs.len();
    if i < n {
        let (sub, off) = (subs.load(i), offs.load(i));
        // Three routes to one position: init at it; init, then skip the offset; init at
        // subsequence 0, then skip subsequences and offset.
        let route = |k: usize, v: [Val<u32>; 2]| {
            out.store(i * 6usize + k * 2, v[0]);
            out.store(i * 6usize + k * 2 + 1, v[1]);
        };
        let zero = Val::constant(0u64);
        match gen {
            "philox" => {
                let a = Philox::init(seed, sub, off);
                route(0, [a.next_u32(), a.next_u32()]);
                let b = Philox::init(seed, sub, zero);
                b.skipahead(off);
                route(1, [b.next_u32(), b.next_u32()]);
                let c = Philox::init(seed, zero, zero);
                c.skipahead_sequence(sub);
                c.skipahead(off);
                route(2, [c.next_u32(), c.next_u32()]);
            }
            "xorwow" => {
                let a = Xorwow::init(seed, sub, off, table);
                route(0, [a.next_u32(), a.next_u32()]);
                let b = Xorwow::init(seed, sub, zero, table);
                b.skipahead(off, table);
                route(1, [b.next_u32(), b.next_u32()]);
                let c = Xorwow::init(seed, zero, zero, table);
                c.skipahead_sequence(sub, table);
                c.skipahead(off, table);
                route(2, [c.next_u32(), c.next_u32()]);
            }
            _ => {
                let a = Mrg32k3a::init(seed, sub, off, table);
                route(0, [a.next_u32(), a.next_u32()]);
                let b = Mrg32k3a::init(seed, sub, zero, table);
                b.skipahead(off, table);
                route(1, [b.next_u32(), b.next_u32()]);
                let c = Mrg32k3a::init(seed, zero, zero, table);
                c.skipahead_sequence(sub, table);
                c.skipahead(off, table);
                route(2, [c.next_u32(), c.next_u32()]);
            }
        }
    }
}

#[kernel]
fn skip_routes(
    #[comptime] gen: &'static str,
    seed: u64,
    subs: &[u64],
    offs: &[u64],
    table: &[u32],
    out: &mut [u32],
) {
    skip_body(gen, seed, subs, offs, table, out);
}

#[test]
fn skip_ahead_routes_agree_in_kernels_and_with_the_reference() {
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let subs: Vec<u64> = (0..40).map(|k| if k < 8 { k } else { next() >> (next() % 64) }).collect();
    let offs: Vec<u64> = (0..40).map(|k| if k % 5 == 0 { k } else { next() >> (next() % 64) }).collect();
    let seed = 0xdead_beef_u64;
    for d in devices() {
        let stream = d.create_stream().unwrap();
        let (ds, dof) = (stream.clone_htod(&subs).unwrap(), stream.clone_htod(&offs).unwrap());
        for gen in ["philox", "xorwow", "mrg"] {
            let table = stream.clone_htod(&table_for(gen)).unwrap();
            let mut out = stream.alloc_zeroed::<u32>(subs.len() * 6).unwrap();
            skip_routes::launch(&stream, LaunchConfig::new(2, 32), gen, seed, &ds, &dof, &table, &mut out)
                .unwrap();
            let out = stream.clone_dtoh(&out).unwrap();
            for (i, (&s, &o)) in subs.iter().zip(&offs).enumerate() {
                let mut g: Box<dyn CurandDevice> = match gen {
                    "philox" => Box::new(r::Philox4x32_10::new(seed, s, o)),
                    "xorwow" => Box::new(r::Xorwow::new(seed, s, o)),
                    _ => Box::new(r::Mrg32k3a::new(seed, s, o)),
                };
                let want = [g.next_u32(), g.next_u32()];
                for route in 0..3 {
                    assert_eq!(
                        &out[i * 6 + route * 2..i * 6 + route * 2 + 2],
                        &want,
                        "{gen} thread {i} route {route} (sub {s}, offset {o}) on {}",
                        d.properties().name
                    );
                }
            }
        }
    }
}

/// The Poisson kernels for means of 64 and above lower to PTX (the GPU run replays them).
#[test]
fn poisson_kernels_for_large_means_lower_to_ptx() {
    for gen in ["philox", "xorwow", "mrg"] {
        for mode in ["poisson_100", "poisson_5000"] {
            let ptx = replay::kernel(gen, mode, 8).unwrap().ptx("sm_90").unwrap().to_string();
            if mode == "poisson_100" {
                assert!(ptx.contains("ex2.approx.f32"), "{gen} {mode}: no f32 exp");
            }
            assert!(!ptx.contains(".local"), "{gen} {mode}: local memory");
        }
    }
}
