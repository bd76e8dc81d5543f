//! The data-driven harness shared by the BLAS suites (after rocBLAS's YAML tests): case
//! files of `routine key=v1,v2,... ` lines expand to the cartesian product of their values;
//! each case runs on every device and engine present with fresh random inputs, and is checked
//! against a host reference in double-double arithmetic with a per-routine error bound.
#![allow(dead_code)]

pub mod dd;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use ferrocm_blas::{Engine, Handle, RealScalar, Scalar};
use ferrocm_kernel::runtime::{BackendKind, Device, Stream};

#[allow(unused_imports)]
pub use dd::{Cd, Dd};

/// One expanded case: each key with one value.
#[derive(Clone, Debug)]
pub struct Case {
    pub routine: String,
    pub keys: BTreeMap<String, String>,
}

impl Case {
    pub fn get(&self, key: &str) -> &str {
        self.keys.get(key).map(String::as_str).unwrap_or_else(|| panic!("case lacks {key}: {}", self.label()))
    }
    pub fn get_or<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        self.keys.get(key).map(String::as_str).unwrap_or(default)
    }
    pub fn usize(&self, key: &str) -> usize {
        self.get(key).parse().unwrap_or_else(|e| panic!("{key}: {e} in {}", self.label()))
    }
    pub fn usize_or(&self, key: &str, d: usize) -> usize {
        self.keys.get(key).map(|v| v.parse().expect("integer")).unwrap_or(d)
    }
    pub fn isize(&self, key: &str) -> isize {
        self.get(key).parse().unwrap_or_else(|e| panic!("{key}: {e} in {}", self.label()))
    }
    /// A scalar written `re` or `re+imi` / `re-imi` (`2+1i`, `-1.5`, `nan`, `inf`).
    pub fn complex(&self, key: &str) -> (f64, f64) {
        parse_complex(self.get(key))
    }
    pub fn label(&self) -> String {
        let k: Vec<String> = self.keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{} {}", self.routine, k.join(" "))
    }
}

pub fn parse_complex(s: &str) -> (f64, f64) {
    let num = |t: &str| -> f64 {
        match t {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            _ => t.parse().unwrap_or_else(|e| panic!("number {t}: {e}")),
        }
    };
    if let Some(body) = s.strip_suffix('i') {
        // Split at the last sign that is not the first character nor after an exponent.
        let b = body.as_bytes();
        let mut at = None;
        for i in (1..b.len()).rev() {
            if (b[i] == b'+' || b[i] == b'-') && b[i - 1] != b'e' {
                at = Some(i);
                break;
            }
        }
        let i = at.unwrap_or_else(|| panic!("complex {s}"));
        (num(&body[..i]), num(&body[i..]))
    } else {
        (num(s), 0.0)
    }
}

/// Expands a case file: each line `routine key=a,b,c ...` is the cartesian product of its
/// values; `#` starts a comment.
pub fn expand(text: &str) -> Vec<Case> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let routine = words.next().expect("routine").to_string();
        let lists: Vec<(String, Vec<String>)> = words
            .map(|w| {
                let (k, v) = w.split_once('=').unwrap_or_else(|| panic!("key=values: {w}"));
                (k.to_string(), v.split(',').map(str::to_string).collect())
            })
            .collect();
        let mut combos: Vec<BTreeMap<String, String>> = vec![BTreeMap::new()];
        for (k, vs) in &lists {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    vs.iter().map(move |v| {
                        let mut c = c.clone();
                        c.insert(k.clone(), v.clone());
                        c
                    })
                })
                .collect();
        }
        out.extend(combos.into_iter().map(|keys| Case { routine: routine.clone(), keys }));
    }
    out
}

/// Where a case runs: a device and an engine.
pub struct Target {
    pub label: String,
    pub stream: Stream,
    pub engine: Engine,
    /// Whether the kernel-language kernels run on the CPU executor (slow: sizes are capped).
    pub executor: bool,
}

impl Target {
    pub fn handle(&self) -> Handle {
        let mut h = Handle::new(&self.stream).expect("handle");
        h.set_engine(self.engine);
        h
    }
}

/// Every device and engine: the CPU device with the native engine and with the kernels on
/// the executor, and each GPU. With `FERROCM_REQUIRE_GPU=1` a missing GPU is a failure.
pub fn targets() -> Vec<Target> {
    let all = Device::all().expect("device list");
    if std::env::var("FERROCM_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        assert!(
            all.iter().any(|d| d.kind() == BackendKind::Cuda),
            "FERROCM_REQUIRE_GPU=1 but no CUDA device"
        );
    }
    let mut t = Vec::new();
    for d in all {
        let stream = d.create_stream().expect("stream");
        if d.kind() == BackendKind::Cpu {
            t.push(Target {
                label: format!("cpu{} native", d.index()),
                stream: stream.clone(),
                engine: Engine::Auto,
                executor: false,
            });
            t.push(Target {
                label: format!("cpu{} kernels", d.index()),
                stream,
                engine: Engine::Kernels,
                executor: true,
            });
        } else {
            t.push(Target {
                label: format!("gpu{} {}", d.index(), d.properties().name),
                stream,
                engine: Engine::Auto,
                executor: false,
            });
        }
    }
    t
}

/// A fresh seed per call (time-based, so every run sees new inputs); printed on failure.
pub fn fresh_seed() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let t =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(1);
    let seed = (t as u64) ^ COUNTER.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
    std::env::var("FERROCM_BLAS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(seed)
}

/// xorshift64* with uniform values in [-1, 1).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    /// `n` random elements of `T`.
    pub fn vec<T: Scalar>(&mut self, n: usize) -> Vec<T> {
        (0..n)
            .map(|_| {
                let re = T::Real::from_f64(self.uniform());
                let im = T::Real::from_f64(self.uniform());
                T::from_parts(re, im)
            })
            .collect()
    }
}

/// `T` from f64 parts.
pub fn scalar<T: Scalar>(p: (f64, f64)) -> T {
    T::from_parts(T::Real::from_f64(p.0), T::Real::from_f64(p.1))
}

/// The `outer x k` elements `f(o, l)` (rows of op(A) with `f = |i, l| ..`, columns of op(B)
/// with `f = |j, l| ..`) widened once, laid out `o * k + l`, with their magnitudes: the GEMM
/// references' inner loops then read them instead of widening each element once per product
/// (the same sums in the same order; unoptimised, the widening was most of the suites' time).
pub fn widened(outer: usize, k: usize, f: impl Fn(usize, usize) -> Cd) -> (Vec<Cd>, Vec<f64>) {
    let v: Vec<Cd> = (0..outer).flat_map(|o| (0..k).map(move |l| (o, l))).map(|(o, l)| f(o, l)).collect();
    let mags = v.iter().map(|x| x.mag()).collect();
    (v, mags)
}

/// The exact value of `v` in double-double.
pub fn cd<T: Scalar>(v: T) -> Cd {
    let (re, im) = v.parts();
    Cd::new(re.to_f64(), im.to_f64())
}

/// Checks `got` against the reference `want` within `bound` (absolute, per element), treating
/// NaN as equal to NaN and infinities as equal when their signs agree.
pub fn close<T: Scalar>(label: &str, what: &str, idx: usize, got: T, want: Cd, bound: f64) {
    let (gr, gi) = got.parts();
    let (gr, gi) = (gr.to_f64(), gi.to_f64());
    let (wr, wi) = (want.re.to_f64(), want.im.to_f64());
    for (g, w, part) in [(gr, wr, "re"), (gi, wi, "im")] {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= bound
        };
        assert!(
            ok,
            "{label}: {what}[{idx}].{part} = {g:e}, reference {w:e}, error {:e} > bound {bound:e}",
            (g - w).abs()
        );
    }
}

/// The unit roundoff of `T`.
pub fn u<T: Scalar>() -> f64 {
    T::Real::UNIT_ROUNDOFF
}

/// The error bound factor for a sum of `k` products: `(k + 2) u` times 2 for complex types
/// (each complex product is two real products and a sum), the standard a-priori bound
/// `gamma_k` for any summation order (blocked, pairwise, fused or not).
pub fn gamma<T: Scalar>(k: usize) -> f64 {
    let f = if T::COMPLEX { 4.0 } else { 1.0 };
    f * (k as f64 + 2.0) * u::<T>() * 1.01
}

/// Runs `f(case, target, seed)` for every case and target, printing the case, target and seed
/// of a failure.
pub fn run_cases(cases: &[Case], mut f: impl FnMut(&Case, &Target, u64)) {
    let targets = targets();
    for t in &targets {
        for c in cases {
            let seed = fresh_seed();
            let label = format!("[{}] {} seed={seed}", t.label, c.label());
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(c, t, seed)));
            if let Err(e) = r {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
                panic!("{label}: {}", msg.unwrap_or_default());
            }
        }
    }
}
