//! The kernel language's compile-time constructs: `for` over compile-time iterators, `match` and
//! `if let` on compile-time values, closures, `#[comptime] let mut`, `vec!`, `==` on plain
//! enums, compile-time `if` of any type and `#[device]` traits. Each kernel runs on every
//! backend present against a host reference; where the point is what the build emits (no
//! kernel variable, no loop, no branch), the IR text is checked too.

mod common;

use common::*;
use ferrocm_kernel::dsl::{Val, Var};
use ferrocm_kernel::prelude::*;

const N: usize = 1000;

fn grid_for(n: usize, block: u32) -> u32 {
    (n as u32).div_ceil(block)
}

/// Whether the IR text declares a kernel variable or a loop (unrolled code has neither).
fn has_var_or_loop(ir: &str) -> bool {
    ir.lines().any(|l| l.trim_start().starts_with("var ") || l.trim_start().starts_with("loop"))
}

// ------------------------------------------------------------------ unrolled `for`

const COEFFS: [f32; 5] = [0.5, -1.25, 2.0, 0.75, -3.0];

/// Horner over a constant array with a `#[comptime] let mut` accumulator, and the same sum
/// term by term over `.iter().enumerate()` and a reversed range.
#[device]
fn horner(x: f32) -> f32 {
    #[comptime]
    let mut p = Val::constant(COEFFS[0]);
    for &c in &COEFFS[1..] {
        p = p.mul_add(x, c);
    }
    p
}

#[kernel]
fn polynomials(x: &[f32], out: &mut [f32]) {
    let i = global_index();
    if i < x.len() {
        let v = x[i];
        out[2usize * i] = horner(v);
        // The same polynomial as a sum of powers: x^(4 - k) * c_k.
        #[comptime]
        let mut sum = Val::constant(0.0f32);
        for (k, &c) in COEFFS.iter().enumerate() {
            #[comptime]
            let mut power = Val::constant(1.0f32);
            for _ in (0..4 - k).rev() {
                power *= v;
            }
            sum += power * c;
        }
        out[2usize * i + 1usize] = sum;
    }
}

#[test]
fn unrolled_for_over_arrays_and_reversed_ranges() {
    let mut r = Rng::new();
    let x = r.f32s(N, -2.0, 2.0);
    let out = Launch::new("polynomials", polynomials::kernel(), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&vec![0f32; 2 * N])
        .run();
    let want: Vec<f64> = x
        .iter()
        .flat_map(|&v| {
            let p = COEFFS.iter().fold(0.0f64, |p, &c| p * v as f64 + c as f64);
            [p, p]
        })
        .collect();
    check_close("out", &f64s(&out.get::<f32>(1)), &want, 1e-5, 1e-5);
    // The loops ran while the kernel was built: the IR has one branch (the bound check), no
    // kernel variable and no loop.
    let ir = polynomials::kernel().unwrap().ir().to_string();
    assert!(!has_var_or_loop(&ir), "{ir}");
}

/// A loop of stores (side effects only) over a compile-time list of taps, each behind a
/// runtime bound check.
const TAPS: [(u32, f32); 3] = [(0, 0.25), (1, 0.5), (2, 0.25)];

#[kernel]
fn smooth(x: &[f32], out: &mut [f32]) {
    let i = global_index() as u32;
    let n = x.len() as u32;
    if i < n {
        let mut acc = 0.0f32;
        for &(d, w) in TAPS.iter() {
            if i + d < n {
                acc += x[i + d] * w;
            }
        }
        out[i] = acc;
    }
}

#[test]
fn unrolled_for_with_runtime_branches() {
    let mut r = Rng::new();
    let x = r.f32s(N, -1.0, 1.0);
    let out =
        Launch::new("smooth", smooth::kernel(), grid_for(N, 128), 128).buf(&x).buf(&vec![0f32; N]).run();
    let want: Vec<f64> = (0..N)
        .map(|i| {
            TAPS.iter()
                .filter(|(d, _)| i + (*d as usize) < N)
                .map(|&(d, w)| x[i + d as usize] as f64 * w as f64)
                .sum()
        })
        .collect();
    check_close("out", &f64s(&out.get::<f32>(1)), &want, 1e-6, 1e-6);
}

// ------------------------------------------------------------------ `match`, `if let`, `==`

/// A compile-time plan: an enum without `PartialOrd` (so `==` on it needs only `PartialEq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Op {
    Double,
    Square,
    Offset(i32),
}

#[kernel]
fn apply(#[comptime] op: Op, #[comptime] bias: Option<i32>, x: &[i32], out: &mut [i32]) {
    let i = global_index();
    if i < x.len() {
        let v = x[i];
        let y = match op {
            Op::Double => v * 2i32,
            Op::Offset(c) if c < 0 => v - (-c),
            Op::Offset(c) => v + c,
            Op::Square => v * v,
        };
        let y = if op == Op::Square && y > 100i32 { 100i32 } else { y };
        out[i] = if let Some(b) = bias { y + b } else { y };
    }
}

#[test]
fn match_if_let_and_eq_on_compile_time_values() {
    let mut r = Rng::new();
    let x = r.i32s(N, -20, 20);
    for op in [Op::Double, Op::Square, Op::Offset(7), Op::Offset(-3)] {
        for bias in [None, Some(5)] {
            let k = apply::kernel(op, bias);
            let out = Launch::new("apply", k, grid_for(N, 128), 128).buf(&x).buf(&vec![0i32; N]).run();
            let want: Vec<i32> = x
                .iter()
                .map(|&v| {
                    let y = match op {
                        Op::Double => v * 2,
                        Op::Offset(c) => v + c,
                        Op::Square => v * v,
                    };
                    let y = if op == Op::Square { y.min(100) } else { y };
                    y + bias.unwrap_or(0)
                })
                .collect();
            assert_eq!(out.get::<i32>(1), want, "{op:?}, bias {bias:?}");
        }
    }
}

// ------------------------------------------------------------------ closures, `vec!`, `if`

#[kernel]
fn closures(#[comptime] swap: bool, x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = global_index();
    if i < x.len() {
        let (a, b) = if swap { (y[i], x[i]) } else { (x[i], y[i]) };
        // A closure over runtime values, with a runtime branch and a comparison inside.
        let clamp = |v: Val<f32>, lo: f32, hi: f32| {
            if v < lo {
                lo
            } else if v > hi {
                hi
            } else {
                v
            }
        };
        let parts = vec![clamp(a, -0.5f32, 0.5f32), b * 2.0f32];
        let sums: [Val<f32>; 2] = std::array::from_fn(|k| parts[k] + parts[1 - k] * 0.0f32);
        out[i] = sums.iter().fold(Val::constant(0.0f32), |s, &t| s + t);
    }
}

#[test]
fn closures_vec_and_compile_time_if_of_tuples() {
    let mut r = Rng::new();
    let (x, y) = (r.f32s(N, -1.0, 1.0), r.f32s(N, -1.0, 1.0));
    for swap in [false, true] {
        let out = Launch::new("closures", closures::kernel(swap), grid_for(N, 128), 128)
            .buf(&x)
            .buf(&y)
            .buf(&vec![0f32; N])
            .run();
        let want: Vec<f64> = (0..N)
            .map(|i| {
                let (a, b) = if swap { (y[i], x[i]) } else { (x[i], y[i]) };
                a.clamp(-0.5, 0.5) as f64 + b as f64 * 2.0
            })
            .collect();
        check_close("out", &f64s(&out.get::<f32>(2)), &want, 1e-6, 1e-6);
    }
}

/// A closure predicate whose `&&` guards a load: the grid runs past the data, so without the
/// short circuit the CPU executor's bounds check would fail the launch.
#[kernel]
fn count_positive_neighbours(x: &[f32], out: &mut [u32]) {
    let i = global_index();
    let positive = |j: Val<usize>| j < x.len() && x[j] > 0.0f32;
    if i < out.len() {
        out[i] = (positive(i) as u32) + (positive(i + 1usize) as u32);
    }
}

#[test]
fn closure_with_short_circuit_guarding_a_load() {
    let mut r = Rng::new();
    let x = r.f32s(N, -1.0, 1.0);
    let out =
        Launch::new("count_positive_neighbours", count_positive_neighbours::kernel(), grid_for(N, 128), 128)
            .buf(&x)
            .buf(&vec![0u32; N])
            .run();
    let want: Vec<u32> = (0..N).map(|i| (x[i] > 0.0) as u32 + (i + 1 < N && x[i + 1] > 0.0) as u32).collect();
    assert_eq!(out.get::<u32>(1), want);
}

// ------------------------------------------------------------------ `#[comptime] let mut` misuse

#[kernel]
fn comptime_assigned_in_runtime_if(x: &[u32], out: &mut [u32]) {
    let i = global_index();
    #[comptime]
    let mut v = x[i];
    if i < out.len() {
        v = v + 1u32;
    }
    out[i] = v;
}

/// A `#[comptime] let mut` holds a value of the build, so an assignment under a runtime
/// condition cannot change it at run time: a build error naming the binding.
#[test]
fn comptime_binding_assigned_under_a_runtime_condition_is_a_build_error() {
    let e = comptime_assigned_in_runtime_if::kernel().unwrap_err().to_string();
    assert!(e.contains("compile-time binding `v`"), "{e}");
}

// ------------------------------------------------------------------ `#[device]` traits

/// A counter-based stream of the kind the RAND states share: `next` is provided once, over the
/// state's `word`.
#[device]
trait WordStream {
    fn word(&self, k: Val<u32>) -> Val<u32>;
    fn position(&self) -> Var<Val<u32>>;
    /// The next word, skipping zero words (at most three in a row).
    fn next(&self) -> Val<u32> {
        let p = self.position();
        let mut w = self.word(p.get());
        let mut tries = 0u32;
        while w == 0u32 && tries < 3u32 {
            p.set(p.get() + 1u32);
            w = self.word(p.get());
            tries += 1u32;
        }
        p.set(p.get() + 1u32);
        w
    }
}

struct Mod7 {
    seed: Val<u32>,
    pos: Var<Val<u32>>,
}

impl WordStream for Mod7 {
    fn word(&self, k: Val<u32>) -> Val<u32> {
        (self.seed + k) % 7u32
    }
    fn position(&self) -> Var<Val<u32>> {
        self.pos
    }
}

#[kernel]
fn draw(seed: u32, out: &mut [u32]) {
    let i = global_index();
    if i < out.len() {
        let s = Mod7 { seed: seed + i as u32, pos: Var::new(0u32) };
        let a = s.next();
        let b = s.next();
        out[i] = a * 10u32 + b;
    }
}

#[test]
fn device_trait_provided_methods() {
    let out =
        Launch::new("draw", draw::kernel(), grid_for(N, 128), 128).scalar(3u32).buf(&vec![0u32; N]).run();
    let want: Vec<u32> = (0..N as u32)
        .map(|i| {
            let word = |k: u32| (3 + i + k) % 7;
            let mut pos = 0;
            let mut next = || {
                let mut w = word(pos);
                let mut tries = 0;
                while w == 0 && tries < 3 {
                    pos += 1;
                    w = word(pos);
                    tries += 1;
                }
                pos += 1;
                w
            };
            let a = next();
            a * 10 + next()
        })
        .collect();
    assert_eq!(out.get::<u32>(1), want);
}
