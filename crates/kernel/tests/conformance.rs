//! The conformance suite: kernels that together use every construct of the kernel language,
//! each run on every backend present and checked against a host reference computed in f64 from
//! fresh random inputs. See `common` for the harness.

mod common;

use common::*;
use ferrocm_kernel::prelude::*;

const N: usize = 1000;

fn grid_for(n: usize, block: u32) -> u32 {
    (n as u32).div_ceil(block)
}

// ------------------------------------------------------------------ arithmetic and types

#[kernel]
fn vec_add(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = global_index();
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

#[test]
fn vector_add_f32() {
    let mut r = Rng::new();
    let (a, b) = (r.f32s(N, -10.0, 10.0), r.f32s(N, -10.0, 10.0));
    let out = Launch::new("vec_add", vec_add::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0f32; N])
        .run();
    let want: Vec<f64> = (0..N).map(|i| a[i] as f64 + b[i] as f64).collect();
    check_close("c", &f64s(&out.get::<f32>(2)), &want, 1e-6, 1e-6);
}

#[kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = global_index();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[test]
fn saxpy_f32() {
    let mut r = Rng::new();
    let (x, y) = (r.f32s(N, -1.0, 1.0), r.f32s(N, -1.0, 1.0));
    let a = r.f64_in(-2.0, 2.0) as f32;
    let out = Launch::new("saxpy", saxpy::kernel(), grid_for(N, 256), 256).scalar(a).buf(&x).buf(&y).run();
    let want: Vec<f64> = (0..N).map(|i| a as f64 * x[i] as f64 + y[i] as f64).collect();
    check_close("y", &f64s(&out.get::<f32>(2)), &want, 1e-6, 1e-6);
}

#[kernel]
fn daxpy(a: f64, x: &[f64], y: &mut [f64]) {
    let i = global_index();
    if i < y.len() {
        y[i] += a * x[i];
    }
}

#[test]
fn daxpy_f64_compound_assign() {
    let mut r = Rng::new();
    let (x, y) = (r.f64s(N, -1.0, 1.0), r.f64s(N, -1.0, 1.0));
    let a = r.f64_in(-2.0, 2.0);
    let out = Launch::new("daxpy", daxpy::kernel(), grid_for(N, 64), 64).scalar(a).buf(&x).buf(&y).run();
    let want: Vec<f64> = (0..N).map(|i| a * x[i] + y[i]).collect();
    check_close("y", &out.get::<f64>(2), &want, 1e-15, 0.0);
}

#[kernel]
fn int_ops_i32(a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = global_index();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        out[i * 8] = x + y;
        out[i * 8 + 1] = x - y;
        out[i * 8 + 2] = x * y;
        out[i * 8 + 3] = x / y;
        out[i * 8 + 4] = x % y;
        out[i * 8 + 5] = (x & y) | (x ^ 0x5a5a);
        out[i * 8 + 6] = x << 3u32;
        out[i * 8 + 7] = -(x >> 2u32);
    }
}

#[test]
fn integer_arithmetic_i32() {
    let mut r = Rng::new();
    let a = r.i32s(N, -100_000, 100_000);
    let b: Vec<i32> = r.i32s(N, -1000, 1000).into_iter().map(|v| if v == 0 { 7 } else { v }).collect();
    let out = Launch::new("int_ops_i32", int_ops_i32::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0i32; N * 8])
        .run()
        .get::<i32>(2);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let want = [x + y, x - y, x.wrapping_mul(y), x / y, x % y, (x & y) | (x ^ 0x5a5a), x << 3, -(x >> 2)];
        assert_eq!(&out[i * 8..i * 8 + 8], &want, "element {i}");
    }
}

#[kernel]
fn int_ops_u32(a: &[u32], b: &[u32], out: &mut [u32]) {
    let i = global_index();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        out[i * 6] = x.wrapping_add_dsl(y);
        out[i * 6 + 1] = x / (y | 1u32);
        out[i * 6 + 2] = x % (y | 1u32);
        out[i * 6 + 3] = x >> (y & 63u32);
        out[i * 6 + 4] = x << (y & 63u32);
        out[i * 6 + 5] = !x;
    }
}

trait WrapAdd {
    fn wrapping_add_dsl(self, o: Self) -> Self;
}
impl WrapAdd for Val<u32> {
    fn wrapping_add_dsl(self, o: Self) -> Self {
        self + o
    }
}

#[test]
fn integer_arithmetic_u32_with_wide_shifts() {
    let mut r = Rng::new();
    let (a, b) = (r.u32s(N, u32::MAX), r.u32s(N, u32::MAX));
    let out = Launch::new("int_ops_u32", int_ops_u32::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0u32; N * 6])
        .run()
        .get::<u32>(2);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let s = y & 63;
        let shr = if s >= 32 { 0 } else { x >> s };
        let shl = if s >= 32 { 0 } else { x << s };
        let want = [x.wrapping_add(y), x / (y | 1), x % (y | 1), shr, shl, !x];
        assert_eq!(&out[i * 6..i * 6 + 6], &want, "element {i}");
    }
}

#[kernel]
fn int_ops_i64(a: &[i64], b: &[i64], out: &mut [i64]) {
    let i = global_index();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        out[i * 4] = x * y + 1i64;
        out[i * 4 + 1] = x / y;
        out[i * 4 + 2] = (x >> 7u32) ^ y;
        out[i * 4 + 3] = x.max(y) - x.min(y);
    }
}

#[test]
fn integer_arithmetic_i64() {
    let mut r = Rng::new();
    let a: Vec<i64> = (0..N).map(|_| r.u64() as i64 >> 20).collect();
    let b: Vec<i64> = (0..N).map(|_| (r.u64() as i64 >> 40) | 1).collect();
    let out = Launch::new("int_ops_i64", int_ops_i64::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0i64; N * 4])
        .run()
        .get::<i64>(2);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let want = [x.wrapping_mul(y) + 1, x / y, (x >> 7) ^ y, x.max(y) - x.min(y)];
        assert_eq!(&out[i * 4..i * 4 + 4], &want, "element {i}");
    }
}

#[kernel]
fn int_ops_u64(a: &[u64], out: &mut [u64]) {
    let i = global_index();
    if i < a.len() {
        let x = a[i];
        out[i] = (x * 0x9e37_79b9_7f4a_7c15u64) ^ (x >> 33u32) ^ (i as u64);
    }
}

#[test]
fn integer_hash_u64() {
    let mut r = Rng::new();
    let a: Vec<u64> = (0..N).map(|_| r.u64()).collect();
    let out = Launch::new("int_ops_u64", int_ops_u64::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&vec![0u64; N])
        .run()
        .get::<u64>(1);
    for i in 0..N {
        let x = a[i];
        assert_eq!(out[i], x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (x >> 33) ^ i as u64);
    }
}

#[kernel]
fn narrow_ints(a: &[i8], b: &[u16], oa: &mut [i8], ob: &mut [u16]) {
    let i = global_index();
    if i < a.len() {
        oa[i] = a[i] * 3i8 + 100i8;
        ob[i] = b[i] * 7u16 - 3u16;
    }
}

#[test]
fn narrow_integers_wrap() {
    let mut r = Rng::new();
    let a: Vec<i8> = (0..N).map(|_| r.u32() as i8).collect();
    let b: Vec<u16> = (0..N).map(|_| r.u32() as u16).collect();
    let out = Launch::new("narrow_ints", narrow_ints::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0i8; N])
        .buf(&vec![0u16; N])
        .run();
    let (oa, ob) = (out.get::<i8>(2), out.get::<u16>(3));
    for i in 0..N {
        assert_eq!(oa[i], a[i].wrapping_mul(3).wrapping_add(100), "i8 {i}");
        assert_eq!(ob[i], b[i].wrapping_mul(7).wrapping_sub(3), "u16 {i}");
    }
}

#[kernel]
fn half_math(a: &[f16], b: &[f16], s: &mut [f16], p: &mut [bf16]) {
    let i = global_index();
    if i < a.len() {
        s[i] = a[i] + b[i];
        let x = a[i] as f32;
        p[i] = cast_bf16(x * 2.0f32);
    }
}

#[device]
fn cast_bf16(x: f32) -> bf16 {
    x as bf16
}

#[test]
fn half_precision_f16_and_bf16() {
    let mut r = Rng::new();
    let a: Vec<f16> = r.f32s(N, -4.0, 4.0).into_iter().map(f16::from_f32).collect();
    let b: Vec<f16> = r.f32s(N, -4.0, 4.0).into_iter().map(f16::from_f32).collect();
    let out = Launch::new("half_math", half_math::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&vec![f16::ZERO; N])
        .buf(&vec![bf16::ZERO; N])
        .run();
    let (s, p) = (out.get::<f16>(2), out.get::<bf16>(3));
    for i in 0..N {
        let want = f16::from_f64(a[i].to_f64() + b[i].to_f64());
        assert_eq!(s[i], want, "f16 sum {i}");
        assert_eq!(p[i], bf16::from_f64(a[i].to_f64() * 2.0), "bf16 {i}");
    }
}

#[kernel]
fn casts(x: &[f32], i: &[i32], o_i: &mut [i32], o_u8: &mut [u8], o_f: &mut [f64], o_u: &mut [u32]) {
    let k = global_index();
    if k < x.len() {
        o_i[k] = x[k] as i32;
        o_u8[k] = x[k] as u8;
        o_f[k] = i[k] as f64 + x[k] as f64;
        o_u[k] = i[k] as u32;
    }
}

#[test]
fn numeric_casts_saturate_and_truncate() {
    let mut r = Rng::new();
    let mut x = r.f32s(N, -1e3, 1e3);
    x[0] = f32::NAN;
    x[1] = 1e20;
    x[2] = -1e20;
    let ints = r.i32s(N, -1_000_000, 1_000_000);
    let out = Launch::new("casts", casts::kernel(), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&ints)
        .buf(&vec![0i32; N])
        .buf(&vec![0u8; N])
        .buf(&vec![0f64; N])
        .buf(&vec![0u32; N])
        .run();
    let (oi, ou8, of, ou) = (out.get::<i32>(2), out.get::<u8>(3), out.get::<f64>(4), out.get::<u32>(5));
    for k in 0..N {
        assert_eq!(oi[k], x[k] as i32, "f32->i32 {k}");
        assert_eq!(ou8[k], x[k] as u8, "f32->u8 {k}");
        if !x[k].is_nan() {
            assert_eq!(of[k], ints[k] as f64 + x[k] as f64, "i32->f64 {k}");
        }
        assert_eq!(ou[k], ints[k] as u32, "i32->u32 {k}");
    }
}

#[kernel]
fn bool_logic(a: &[i32], flags: &mut [bool], out: &mut [u32]) {
    let i = global_index();
    if i < a.len() {
        let x = a[i];
        let pos = x > 0;
        let even = (x & 1) == 0;
        flags[i] = pos && !even;
        out[i] = ((pos || even) as u32) + (((x == 5) ^ pos) as u32) * 2u32;
    }
}

#[test]
fn bool_values_and_logic() {
    let mut r = Rng::new();
    let mut a = r.i32s(N, -50, 50);
    a[0] = 5;
    let out = Launch::new("bool_logic", bool_logic::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&vec![false; N])
        .buf(&vec![0u32; N])
        .run();
    let (f, o) = (out.get::<bool>(1), out.get::<u32>(2));
    for i in 0..N {
        let x = a[i];
        let (pos, even) = (x > 0, x & 1 == 0);
        assert_eq!(f[i], pos && !even, "flag {i}");
        assert_eq!(o[i], (pos || even) as u32 + ((x == 5) ^ pos) as u32 * 2, "out {i}");
    }
}

#[kernel]
fn comparisons(a: &[f32], b: &[f32], out: &mut [u32]) {
    let i = global_index();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        out[i] = (x < y) as u32
            | ((x <= y) as u32) << 1u32
            | ((x > y) as u32) << 2u32
            | ((x >= y) as u32) << 3u32
            | ((x == y) as u32) << 4u32
            | ((x != y) as u32) << 5u32;
    }
}

#[test]
fn float_comparisons_with_nan() {
    let mut r = Rng::new();
    let mut a = r.f32s(N, -2.0, 2.0);
    let mut b = r.f32s(N, -2.0, 2.0);
    a[0] = f32::NAN;
    b[1] = f32::NAN;
    b[2] = a[2];
    let o = Launch::new("comparisons", comparisons::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0u32; N])
        .run()
        .get::<u32>(2);
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        let want = (x < y) as u32
            | ((x <= y) as u32) << 1
            | ((x > y) as u32) << 2
            | ((x >= y) as u32) << 3
            | ((x == y) as u32) << 4
            | ((x != y) as u32) << 5;
        assert_eq!(o[i], want, "element {i}");
    }
}

#[kernel]
fn select_kernel(a: &[f32], out: &mut [f32]) {
    let i = global_index();
    if i < a.len() {
        out[i] = select(a[i] > 0.0f32, a[i], a[i] * 0.1f32);
    }
}

#[test]
fn select_is_leaky_relu() {
    let mut r = Rng::new();
    let a = r.f32s(N, -3.0, 3.0);
    let o = Launch::new("select", select_kernel::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&vec![0f32; N])
        .run()
        .get::<f32>(1);
    let want: Vec<f64> = a.iter().map(|&x| if x > 0.0 { x as f64 } else { x as f64 * 0.1 }).collect();
    check_close("out", &f64s(&o), &want, 1e-6, 0.0);
}

// ------------------------------------------------------------------ control flow

#[kernel]
fn if_else_chain(a: &[i32], out: &mut [i32]) {
    let i = global_index();
    if i < a.len() {
        let x = a[i];
        let y = if x < -10 {
            x * 2
        } else if x < 10 {
            x + 100
        } else {
            x - 1
        };
        out[i] = y;
    }
}

#[test]
fn runtime_if_else_chain_with_values() {
    let mut r = Rng::new();
    let a = r.i32s(N, -30, 30);
    let o = Launch::new("if_else_chain", if_else_chain::kernel(), grid_for(N, 64), 64)
        .buf(&a)
        .buf(&vec![0; N])
        .run()
        .get::<i32>(1);
    for i in 0..N {
        let x = a[i];
        assert_eq!(
            o[i],
            if x < -10 {
                x * 2
            } else if x < 10 {
                x + 100
            } else {
                x - 1
            },
            "{i}"
        );
    }
}

#[kernel]
fn comptime_branch<const SQUARE: bool>(a: &[f32], out: &mut [f32]) {
    let i = global_index();
    if i < a.len() {
        if SQUARE {
            out[i] = a[i] * a[i];
        } else {
            out[i] = -a[i];
        }
    }
}

#[test]
fn compile_time_if_builds_two_instantiations() {
    let mut r = Rng::new();
    let a = r.f32s(N, -3.0, 3.0);
    let sq = Launch::new("comptime_branch<true>", comptime_branch::kernel::<true>(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&vec![0f32; N])
        .run()
        .get::<f32>(1);
    let neg =
        Launch::new("comptime_branch<false>", comptime_branch::kernel::<false>(), grid_for(N, 128), 128)
            .buf(&a)
            .buf(&vec![0f32; N])
            .run()
            .get::<f32>(1);
    check_close("square", &f64s(&sq), &a.iter().map(|&x| x as f64 * x as f64).collect::<Vec<_>>(), 1e-6, 0.0);
    check_close("neg", &f64s(&neg), &a.iter().map(|&x| -x as f64).collect::<Vec<_>>(), 0.0, 0.0);
    let (k1, k2) = (comptime_branch::kernel::<true>().unwrap(), comptime_branch::kernel::<false>().unwrap());
    assert_ne!(k1.name(), k2.name());
    assert!(!k1.ir().to_string().contains("if %") || k1.ir().to_string().matches("if %").count() == 1);
}

#[kernel]
fn runtime_for(rows: &[f32], width: u32, sums: &mut [f32]) {
    let r = global_index();
    if r < sums.len() {
        let mut acc = 0.0f32;
        for k in 0..width {
            acc += rows[r * (width as usize) + (k as usize)];
        }
        sums[r] = acc;
    }
}

#[test]
fn runtime_for_loop_row_sums() {
    let mut r = Rng::new();
    let (rows, width) = (300, 17u32);
    let x = r.f32s(rows * width as usize, -1.0, 1.0);
    let o = Launch::new("runtime_for", runtime_for::kernel(), grid_for(rows, 64), 64)
        .buf(&x)
        .scalar(width)
        .buf(&vec![0f32; rows])
        .run()
        .get::<f32>(2);
    let want: Vec<f64> = (0..rows).map(|i| x[i * 17..i * 17 + 17].iter().map(|&v| v as f64).sum()).collect();
    check_close("sums", &f64s(&o), &want, 1e-5, 1e-5);
}

#[kernel]
fn unrolled_for<const W: usize>(x: &[f32], out: &mut [f32]) {
    let r = global_index();
    if r < out.len() {
        let mut acc = 0.0f32;
        for k in 0..W {
            acc += x[r * W + k] * ((k + 1) as f32);
        }
        out[r] = acc;
    }
}

#[test]
fn compile_time_for_unrolls() {
    let mut r = Rng::new();
    let rows = 200;
    let x = r.f32s(rows * 4, -1.0, 1.0);
    let k = unrolled_for::kernel::<4>().unwrap();
    assert!(!k.ir().to_string().contains("loop"), "the loop over 0..W should be unrolled");
    let o = Launch::new("unrolled_for", unrolled_for::kernel::<4>(), grid_for(rows, 64), 64)
        .buf(&x)
        .buf(&vec![0f32; rows])
        .run()
        .get::<f32>(1);
    let want: Vec<f64> =
        (0..rows).map(|i| (0..4).map(|k| x[i * 4 + k] as f64 * (k + 1) as f64).sum()).collect();
    check_close("out", &f64s(&o), &want, 1e-5, 1e-6);
}

#[kernel]
fn strided_for(n: u32, out: &mut [u32]) {
    let t = global_index();
    if t < out.len() {
        let mut s = 0u32;
        for k in (t as u32..n).step_by(7u32) {
            s += k;
        }
        out[t] = s;
    }
}

#[test]
fn for_with_step_by() {
    let o = Launch::new("strided_for", strided_for::kernel(), 2, 64)
        .scalar(500u32)
        .buf(&vec![0u32; 100])
        .run()
        .get::<u32>(1);
    for t in 0..100u32 {
        assert_eq!(o[t as usize], (t..500).step_by(7).sum::<u32>(), "{t}");
    }
}

#[kernel]
fn collatz(x: &[u32], steps: &mut [u32]) {
    let i = global_index();
    if i < x.len() {
        let mut v = x[i];
        let mut n = 0u32;
        while v != 1u32 {
            if (v & 1u32) == 0u32 {
                v = v / 2u32;
            } else {
                v = v * 3u32 + 1u32;
            }
            n += 1u32;
        }
        steps[i] = n;
    }
}

#[test]
fn while_loop_with_divergent_trip_counts() {
    let mut r = Rng::new();
    let x: Vec<u32> = r.u32s(N, 10_000).into_iter().map(|v| v + 1).collect();
    let o = Launch::new("collatz", collatz::kernel(), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&vec![0u32; N])
        .run()
        .get::<u32>(1);
    for i in 0..N {
        let (mut v, mut n) = (x[i], 0);
        while v != 1 {
            v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
            n += 1;
        }
        assert_eq!(o[i], n, "{i}");
    }
}

#[kernel]
fn first_above(x: &[f32], width: u32, threshold: f32, out: &mut [i32]) {
    let r = global_index();
    if r < out.len() {
        let mut found = -1i32;
        let mut k = 0u32;
        loop {
            if k >= width {
                break;
            }
            if x[r * (width as usize) + (k as usize)] > threshold {
                found = k as i32;
                break;
            }
            k += 1u32;
        }
        out[r] = found;
    }
}

#[test]
fn loop_with_break() {
    let mut r = Rng::new();
    let (rows, w) = (256, 32u32);
    let x = r.f32s(rows * 32, 0.0, 1.0);
    let o = Launch::new("first_above", first_above::kernel(), grid_for(rows, 64), 64)
        .buf(&x)
        .scalar(w)
        .scalar(0.95f32)
        .buf(&vec![0i32; rows])
        .run()
        .get::<i32>(3);
    for i in 0..rows {
        let want = x[i * 32..i * 32 + 32].iter().position(|&v| v > 0.95).map(|p| p as i32).unwrap_or(-1);
        assert_eq!(o[i], want, "{i}");
    }
}

#[kernel]
fn sum_skipping_negatives(x: &[f32], width: u32, out: &mut [f32]) {
    let r = global_index();
    if r < out.len() {
        let mut s = 0.0f32;
        for k in 0..width {
            let v = x[r * (width as usize) + (k as usize)];
            if v < 0.0f32 {
                continue;
            }
            s += v;
        }
        out[r] = s;
    }
}

#[test]
fn loop_with_continue() {
    let mut r = Rng::new();
    let rows = 300;
    let x = r.f32s(rows * 10, -1.0, 1.0);
    let o = Launch::new("sum_skipping_negatives", sum_skipping_negatives::kernel(), grid_for(rows, 64), 64)
        .buf(&x)
        .scalar(10u32)
        .buf(&vec![0f32; rows])
        .run()
        .get::<f32>(2);
    let want: Vec<f64> = (0..rows)
        .map(|i| x[i * 10..i * 10 + 10].iter().filter(|&&v| v >= 0.0).map(|&v| v as f64).sum())
        .collect();
    check_close("out", &f64s(&o), &want, 1e-5, 1e-6);
}

#[kernel]
fn early_return(x: &[f32], out: &mut [f32]) {
    let i = global_index();
    if i >= out.len() {
        return;
    }
    if x[i] < 0.0f32 {
        out[i] = 0.0f32;
        return;
    }
    out[i] = x[i].sqrt();
}

#[test]
fn early_return_in_divergent_code() {
    let mut r = Rng::new();
    let x = r.f32s(N, -1.0, 4.0);
    let o = Launch::new("early_return", early_return::kernel(), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&vec![9f32; N])
        .run()
        .get::<f32>(1);
    let want: Vec<f64> = x.iter().map(|&v| if v < 0.0 { 0.0 } else { (v as f64).sqrt() }).collect();
    check_close("out", &f64s(&o), &want, 1e-6, 0.0);
}

/// Indexing a device function's memory parameters (`impl Memory` inside): reads, a store and a
/// compound assignment, on global slices and on a shared array alike.
#[device]
fn gather_add(src: &[u32], idx: &[u32], dst: &mut [u32], i: u32) {
    dst[i] = src[idx[i]];
    dst[i] += src[i] * 3u32;
}

#[kernel]
fn device_indexes_memory_params(src: &[u32], idx: &[u32], lidx: &[u32], out: &mut [u32], staged: &mut [u32]) {
    let t = thread_idx_x();
    let i = global_index();
    gather_add(src, idx, out, i as u32);
    // Shared memory as source and destination (`lidx`: 128 indices below 128).
    let sh = shared_array::<u32>(128);
    let acc = shared_array::<u32>(128);
    sh[t] = src[i];
    sync_threads();
    gather_add(sh, lidx, acc, t);
    staged[i] = acc[t];
}

#[test]
fn device_function_indexes_its_memory_parameters() {
    let n = 512usize;
    let mut r = Rng::new();
    let src = r.u32s(n, 1 << 20);
    let idx = r.u32s(n, n as u32);
    let lidx = r.u32s(128, 128);
    let o = Launch::new("device_indexes_memory_params", device_indexes_memory_params::kernel(), 4, 128)
        .buf(&src)
        .buf(&idx)
        .buf(&lidx)
        .buf(&vec![0u32; n])
        .buf(&vec![0u32; n])
        .run();
    let want: Vec<u32> = (0..n).map(|i| src[idx[i] as usize].wrapping_add(src[i].wrapping_mul(3))).collect();
    assert_eq!(o.get::<u32>(3), want);
    let want: Vec<u32> = (0..n)
        .map(|i| {
            let b = i / 128 * 128;
            src[b + lidx[i % 128] as usize].wrapping_add(src[i].wrapping_mul(3))
        })
        .collect();
    assert_eq!(o.get::<u32>(4), want);
}

#[device]
fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).max(0.0f32).min(1.0f32);
    t * t * (3.0f32 - 2.0f32 * t)
}

#[kernel]
fn device_call(x: &[f32], out: &mut [f32]) {
    let i = global_index();
    if i < x.len() {
        out[i] = smoothstep(-1.0f32, 1.0f32, x[i]);
    }
}

#[test]
fn device_function_call() {
    let mut r = Rng::new();
    let x = r.f32s(N, -2.0, 2.0);
    let o = Launch::new("device_call", device_call::kernel(), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&vec![0f32; N])
        .run()
        .get::<f32>(1);
    let want: Vec<f64> = x
        .iter()
        .map(|&v| {
            let t = ((v as f64 + 1.0) / 2.0).clamp(0.0, 1.0);
            t * t * (3.0 - 2.0 * t)
        })
        .collect();
    check_close("out", &f64s(&o), &want, 1e-5, 1e-6);
}

#[device]
fn sign_class(x: i32) -> i32 {
    if x < 0 {
        return -1;
    }
    if x == 0 {
        return 0;
    }
    let mut k = 0i32;
    let mut v = x;
    while v > 0 {
        if v == 1 {
            return 100 + k;
        }
        v = v / 2;
        k += 1;
    }
    k
}

#[kernel]
fn device_return(x: &[i32], out: &mut [i32]) {
    let i = global_index();
    if i < x.len() {
        out[i] = sign_class(x[i]);
    }
}

#[test]
fn device_function_with_early_returns_from_loops() {
    let mut r = Rng::new();
    let x = r.i32s(N, -100, 5000);
    let o = Launch::new("device_return", device_return::kernel(), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&vec![0; N])
        .run()
        .get::<i32>(1);
    for i in 0..N {
        let v = x[i];
        let want = if v < 0 {
            -1
        } else if v == 0 {
            0
        } else {
            100 + (31 - v.leading_zeros() as i32)
        };
        assert_eq!(o[i], want, "{i}: {v}");
    }
}

#[kernel]
fn generic_scale<T: Float>(a: T, x: &[T], y: &mut [T]) {
    let i = global_index();
    if i < y.len() {
        y[i] = x[i] * a + y[i] * a;
    }
}

#[test]
fn generic_element_type_f32_and_f64() {
    let mut r = Rng::new();
    let x = r.f64s(N, -1.0, 1.0);
    let y = r.f64s(N, -1.0, 1.0);
    let o64 = Launch::new("generic_scale<f64>", generic_scale::kernel::<f64>(), grid_for(N, 128), 128)
        .scalar(3.0f64)
        .buf(&x)
        .buf(&y)
        .run()
        .get::<f64>(2);
    let (x32, y32): (Vec<f32>, Vec<f32>) =
        (x.iter().map(|&v| v as f32).collect(), y.iter().map(|&v| v as f32).collect());
    let o32 = Launch::new("generic_scale<f32>", generic_scale::kernel::<f32>(), grid_for(N, 128), 128)
        .scalar(3.0f32)
        .buf(&x32)
        .buf(&y32)
        .run()
        .get::<f32>(2);
    let want: Vec<f64> = (0..N).map(|i| 3.0 * (x[i] + y[i])).collect();
    check_close("f64", &o64, &want, 1e-14, 1e-14);
    check_close("f32", &f64s(&o32), &want, 1e-5, 1e-5);
}

#[derive(Clone, Debug)]
pub struct Poly {
    pub coeffs: Vec<f32>,
}

#[kernel]
fn poly_eval(#[comptime] p: Poly, x: &[f32], y: &mut [f32]) {
    let i = global_index();
    if i < x.len() {
        let v = x[i];
        let mut acc = 0.0f32;
        for k in 0..p.coeffs.len() {
            acc = acc * v + p.coeffs[k];
        }
        y[i] = acc;
    }
}

#[test]
fn compile_time_config_struct() {
    let mut r = Rng::new();
    let x = r.f32s(N, -1.0, 1.0);
    let p = Poly { coeffs: vec![0.5, -1.0, 2.0, 0.25] };
    let o = Launch::new("poly_eval", poly_eval::kernel(p.clone()), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&vec![0f32; N])
        .run()
        .get::<f32>(1);
    let want: Vec<f64> =
        x.iter().map(|&v| p.coeffs.iter().fold(0.0, |a, &c| a * v as f64 + c as f64)).collect();
    check_close("y", &f64s(&o), &want, 1e-5, 1e-5);
    let before = ferrocm_kernel::cache::cached_count();
    let _ = poly_eval::kernel(p.clone()).unwrap();
    assert_eq!(ferrocm_kernel::cache::cached_count(), before, "the same config must hit the cache");
}

// ------------------------------------------------------------------ indexing

#[kernel]
fn grid2d(width: u32, height: u32, out: &mut [u32]) {
    let x = block_idx_x() * block_dim_x() + thread_idx_x();
    let y = block_idx_y() * block_dim_y() + thread_idx_y();
    if x < width && y < height {
        out[(y * width + x) as usize] = x * 1000u32 + y + grid_dim_y() * 0u32;
    }
}

#[test]
fn two_dimensional_grid() {
    let (w, h) = (70u32, 45u32);
    let o = Launch::new("grid2d", grid2d::kernel(), (w.div_ceil(16), h.div_ceil(8)), (16, 8))
        .scalar(w)
        .scalar(h)
        .buf(&vec![0u32; (w * h) as usize])
        .run()
        .get::<u32>(2);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(o[(y * w + x) as usize], x * 1000 + y);
        }
    }
}

#[kernel]
fn grid3d(out: &mut [u32]) {
    let bx = block_dim_x();
    let by = block_dim_y();
    let t = thread_idx_x() + bx * (thread_idx_y() + by * thread_idx_z());
    let b = block_idx_x() + grid_dim_x() * (block_idx_y() + grid_dim_y() * block_idx_z());
    let threads = bx * by * block_dim_z();
    let idx = b * threads + t;
    out[idx] = thread_idx_z() * 10000u32 + block_idx_z() * 100u32 + grid_dim_z();
}

#[test]
fn three_dimensional_indices() {
    let o = Launch::new("grid3d", grid3d::kernel(), (2, 2, 3), (4, 2, 4))
        .buf(&vec![0u32; 12 * 32])
        .run()
        .get::<u32>(0);
    for bz in 0..3u32 {
        for by in 0..2u32 {
            for bx in 0..2u32 {
                for tz in 0..4u32 {
                    for ty in 0..2u32 {
                        for tx in 0..4u32 {
                            let b = bx + 2 * (by + 2 * bz);
                            let t = tx + 4 * (ty + 2 * tz);
                            assert_eq!(o[(b * 32 + t) as usize], tz * 10000 + bz * 100 + 3);
                        }
                    }
                }
            }
        }
    }
}

#[kernel]
fn grid_stride_copy(x: &[f32], y: &mut [f32]) {
    let mut i = global_index();
    while i < x.len() {
        y[i] = x[i] * 2.0f32;
        i += grid_stride();
    }
}

#[test]
fn grid_stride_loop() {
    let mut r = Rng::new();
    let x = r.f32s(5000, -1.0, 1.0);
    let o = Launch::new("grid_stride_copy", grid_stride_copy::kernel(), 3, 128)
        .buf(&x)
        .buf(&vec![0f32; 5000])
        .run()
        .get::<f32>(1);
    check_close("y", &f64s(&o), &x.iter().map(|&v| v as f64 * 2.0).collect::<Vec<_>>(), 0.0, 0.0);
}

// ------------------------------------------------------------------ math

#[kernel]
fn math_f32(x: &[f32], out: &mut [f32]) {
    let i = global_index();
    if i < x.len() {
        let v = x[i];
        let a = v.abs() + 0.5f32;
        out[i * 15] = a.sqrt();
        out[i * 15 + 1] = a.rsqrt();
        out[i * 15 + 2] = v.exp();
        out[i * 15 + 3] = v.exp2();
        out[i * 15 + 4] = a.ln();
        out[i * 15 + 5] = a.log2();
        out[i * 15 + 6] = v.sin();
        out[i * 15 + 7] = v.cos();
        out[i * 15 + 8] = v.tanh();
        out[i * 15 + 9] = a.powf(v);
        out[i * 15 + 10] = v.erf();
        out[i * 15 + 11] = (v * 3.0f32).floor() + (v * 3.0f32).ceil() * 10.0f32;
        out[i * 15 + 12] = v.mul_add(2.0f32, -1.0f32);
        out[i * 15 + 13] = v.min(0.25f32).max(-0.25f32);
        out[i * 15 + 14] = a.sqrt_approx();
    }
}

fn erf_ref(x: f64) -> f64 {
    // Abramowitz & Stegun 7.1.26 in f64, the function the DSL documents.
    let t = 1.0 / (1.0 + 0.3275911 * x.abs());
    let y = 1.0
        - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
            * (-x * x).exp();
    if x < 0.0 {
        -y
    } else {
        y
    }
}

#[test]
fn math_functions_f32_within_documented_accuracy() {
    let mut r = Rng::new();
    let x = r.f32s(N, -3.0, 3.0);
    let o = Launch::new("math_f32", math_f32::kernel(), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&vec![0f32; N * 15])
        .gpu_tol(2e-3, 2e-5)
        .run()
        .get::<f32>(1);
    for i in 0..N {
        let v = x[i] as f64;
        let a = v.abs() + 0.5;
        let want = [
            a.sqrt(),
            1.0 / a.sqrt(),
            v.exp(),
            v.exp2(),
            a.ln(),
            a.log2(),
            v.sin(),
            v.cos(),
            v.tanh(),
            a.powf(v),
            erf_ref(v),
            (x[i] * 3.0).floor() as f64 + (x[i] * 3.0).ceil() as f64 * 10.0,
            v * 2.0 - 1.0,
            v.clamp(-0.25, 0.25),
            a.sqrt(),
        ];
        let got: Vec<f64> = f64s(&o[i * 15..i * 15 + 15]);
        check_close(&format!("math of {v}"), &got, &want, 2e-6, 2e-6);
    }
}

#[kernel]
fn math_f64(x: &[f64], out: &mut [f64]) {
    let i = global_index();
    if i < x.len() {
        let v = x[i];
        out[i * 4] = (v * v + 1.0f64).sqrt();
        out[i * 4 + 1] = v.exp();
        out[i * 4 + 2] = v.abs().max(1e-3f64).ln();
        out[i * 4 + 3] = v.sin() * v.cos();
    }
}

#[test]
fn math_functions_f64() {
    let mut r = Rng::new();
    let x = r.f64s(N, -2.0, 2.0);
    let o = Launch::new("math_f64", math_f64::kernel(), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&vec![0f64; N * 4])
        .gpu_tol_exact(1e-14, 1e-15)
        .run()
        .get::<f64>(1);
    for i in 0..N {
        let v = x[i];
        let want = [(v * v + 1.0).sqrt(), v.exp(), v.abs().max(1e-3).ln(), v.sin() * v.cos()];
        check_close("f64 math", &o[i * 4..i * 4 + 4], &want, 1e-14, 1e-14);
    }
}

#[kernel]
fn int_min_max_abs(a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = global_index();
    if i < a.len() {
        out[i] = a[i].min(b[i]) * 3 + a[i].max(b[i]) + (a[i] - b[i]).abs();
    }
}

#[test]
fn integer_min_max_abs() {
    let mut r = Rng::new();
    let (a, b) = (r.i32s(N, -1000, 1000), r.i32s(N, -1000, 1000));
    let o = Launch::new("int_min_max_abs", int_min_max_abs::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0; N])
        .run()
        .get::<i32>(2);
    for i in 0..N {
        assert_eq!(o[i], a[i].min(b[i]) * 3 + a[i].max(b[i]) + (a[i] - b[i]).abs());
    }
}

// ------------------------------------------------------------------ shared memory and barriers

#[kernel]
fn block_reverse(x: &[f32], y: &mut [f32]) {
    let tile = shared_array::<f32>(256);
    let t = thread_idx_x();
    let base = (block_idx_x() * 256u32) as usize;
    tile[t] = x[base + t as usize];
    sync_threads();
    y[base + t as usize] = tile[255u32 - t];
}

#[test]
fn shared_memory_reverse_with_barrier() {
    let mut r = Rng::new();
    let x = r.f32s(1024, -1.0, 1.0);
    let o = Launch::new("block_reverse", block_reverse::kernel(), 4, 256)
        .buf(&x)
        .buf(&vec![0f32; 1024])
        .run()
        .get::<f32>(1);
    for b in 0..4 {
        for t in 0..256 {
            assert_eq!(o[b * 256 + t], x[b * 256 + 255 - t]);
        }
    }
}

#[kernel]
fn block_sum<const BLOCK: usize>(x: &[f32], partial: &mut [f32]) {
    let s = shared_array::<f32>(BLOCK);
    let t = thread_idx_x();
    let i = global_index();
    s[t] = select(i < x.len(), x[i.min(x.len() - 1)], 0.0f32);
    sync_threads();
    let mut stride = (BLOCK / 2) as u32;
    while stride > 0u32 {
        if t < stride {
            s[t] += s[t + stride];
        }
        sync_threads();
        stride = stride / 2u32;
    }
    if t == 0u32 {
        partial[block_idx_x()] = s[0u32];
    }
}

#[test]
fn block_reduction_tree_in_shared_memory() {
    let mut r = Rng::new();
    let n = 5000;
    let x = r.f32s(n, -1.0, 1.0);
    let blocks = grid_for(n, 256);
    let o = Launch::new("block_sum", block_sum::kernel::<256>(), blocks, 256)
        .buf(&x)
        .buf(&vec![0f32; blocks as usize])
        .gpu_tol(1e-5, 1e-5)
        .run()
        .get::<f32>(1);
    let want: Vec<f64> = (0..blocks as usize)
        .map(|b| x[b * 256..((b + 1) * 256).min(n)].iter().map(|&v| v as f64).sum())
        .collect();
    check_close("partials", &f64s(&o), &want, 1e-5, 1e-5);
}

#[kernel]
fn dyn_shared_rotate(x: &[u32], y: &mut [u32]) {
    let s = dyn_shared::<u32>();
    let t = thread_idx_x();
    let n = block_dim_x();
    s[t] = x[global_index()];
    sync_threads();
    y[global_index()] = s[(t + 1u32) % n] + (s.len() as u32) * 0u32;
}

#[test]
fn dynamic_shared_memory() {
    let mut r = Rng::new();
    let x = r.u32s(512, 1 << 30);
    let o = Launch::new("dyn_shared_rotate", dyn_shared_rotate::kernel(), 4, 128)
        .shared(128 * 4)
        .buf(&x)
        .buf(&vec![0u32; 512])
        .run()
        .get::<u32>(1);
    for b in 0..4 {
        for t in 0..128 {
            assert_eq!(o[b * 128 + t], x[b * 128 + (t + 1) % 128]);
        }
    }
}

/// 40 KiB of static shared memory plus dynamic shared memory: over 48 KiB in all, which a GPU
/// launches only after the function's dynamic limit is raised (the runtime used to raise it only
/// when the dynamic part alone was over 48 KiB).
#[kernel]
fn static_plus_dynamic_shared(x: &[u32], y: &mut [u32]) {
    let fixed = shared_array::<u32>(10240);
    let extra = dyn_shared::<u32>();
    let t = thread_idx_x();
    let n = block_dim_x();
    let mut i = t;
    while i < 10240u32 {
        fixed[i] = x[i % 256u32] + i;
        i += n;
    }
    let mut j = t;
    while j < extra.len() as u32 {
        extra[j] = j * 3u32;
        j += n;
    }
    sync_threads();
    y[t] = fixed[10239u32 - t] + extra[extra.len() as u32 - 1u32 - t];
}

#[test]
fn static_plus_dynamic_shared_memory_over_48_kib() {
    let mut r = Rng::new();
    let x = r.u32s(256, 1 << 20);
    let dynamic = 16 * 1024u32;
    let o = Launch::new("static_plus_dynamic_shared", static_plus_dynamic_shared::kernel(), 1, 256)
        .shared(dynamic)
        .buf(&x)
        .buf(&vec![0u32; 256])
        .run()
        .get::<u32>(1);
    let words = dynamic / 4;
    for t in 0..256u32 {
        let i = 10239 - t;
        let want = x[(i % 256) as usize] + i + (words - 1 - t) * 3;
        assert_eq!(o[t as usize], want, "thread {t}");
    }
}

#[kernel]
fn tiled_matmul<const T: usize>(a: &[f32], b: &[f32], c: &mut [f32], n: u32) {
    let ta = shared_array::<f32>(T * T);
    let tb = shared_array::<f32>(T * T);
    let tx = thread_idx_x();
    let ty = thread_idx_y();
    let row = block_idx_y() * (T as u32) + ty;
    let col = block_idx_x() * (T as u32) + tx;
    let mut acc = 0.0f32;
    let tiles = (n + (T as u32) - 1u32) / (T as u32);
    for k0 in 0u32..tiles {
        let ak = k0 * (T as u32) + tx;
        let bk = k0 * (T as u32) + ty;
        let av = if row < n && ak < n { a[row * n + ak] } else { 0.0f32 };
        let bv = if bk < n && col < n { b[bk * n + col] } else { 0.0f32 };
        ta[ty * (T as u32) + tx] = av;
        tb[ty * (T as u32) + tx] = bv;
        sync_threads();
        for k in 0..T {
            acc += ta[ty * (T as u32) + (k as u32)] * tb[(k as u32) * (T as u32) + tx];
        }
        sync_threads();
    }
    if row < n && col < n {
        c[row * n + col] = acc;
    }
}

#[test]
fn shared_memory_tiled_matmul() {
    let mut r = Rng::new();
    let n = 45usize;
    let (a, b) = (r.f32s(n * n, -1.0, 1.0), r.f32s(n * n, -1.0, 1.0));
    let g = (n as u32).div_ceil(16);
    let o = Launch::new("tiled_matmul", tiled_matmul::kernel::<16>(), (g, g), (16, 16))
        .buf(&a)
        .buf(&b)
        .buf(&vec![0f32; n * n])
        .scalar(n as u32)
        .gpu_tol(1e-5, 1e-5)
        .run()
        .get::<f32>(2);
    let mut want = vec![0f64; n * n];
    for i in 0..n {
        for j in 0..n {
            want[i * n + j] = (0..n).map(|k| a[i * n + k] as f64 * b[k * n + j] as f64).sum();
        }
    }
    check_close("c", &f64s(&o), &want, 1e-5, 1e-5);
}

#[kernel]
fn local_sort<const K: usize>(x: &[i32], y: &mut [i32]) {
    let i = global_index();
    if i < x.len() / K {
        let l = local_array::<i32>(K);
        for k in 0..K {
            l[k] = x[i * K + k];
        }
        // Insertion sort with runtime loops over the per-thread array.
        for p in 1u32..(K as u32) {
            let v = l[p];
            let mut j = p;
            while j > 0u32 && l[j - 1u32] > v {
                l[j] = l[j - 1u32];
                j -= 1u32;
            }
            l[j] = v;
        }
        for k in 0..K {
            y[i * K + k] = l[k];
        }
    }
}

#[test]
fn per_thread_local_array_sort() {
    let mut r = Rng::new();
    let x = r.i32s(8 * 300, -1000, 1000);
    let o = Launch::new("local_sort", local_sort::kernel::<8>(), 3, 128)
        .buf(&x)
        .buf(&vec![0; 2400])
        .run()
        .get::<i32>(1);
    for c in 0..300 {
        let mut want = x[c * 8..c * 8 + 8].to_vec();
        want.sort();
        assert_eq!(&o[c * 8..c * 8 + 8], &want[..], "chunk {c}");
    }
}

// ------------------------------------------------------------------ warps

#[kernel]
fn warp_sum_xor(x: &[f32], out: &mut [f32]) {
    let i = global_index();
    let mut v = x[i];
    for k in 0..5u32 {
        v += shfl_xor(v, 16u32 >> k);
    }
    out[i] = v;
}

#[test]
fn warp_butterfly_reduction_with_shfl_xor() {
    let mut r = Rng::new();
    let x = r.f32s(256, -1.0, 1.0);
    let o = Launch::new("warp_sum_xor", warp_sum_xor::kernel(), 2, 128)
        .buf(&x)
        .buf(&vec![0f32; 256])
        .gpu_tol(1e-6, 1e-6)
        .run()
        .get::<f32>(1);
    for w in 0..8 {
        let s: f64 = x[w * 32..w * 32 + 32].iter().map(|&v| v as f64).sum();
        check_close("warp sums", &f64s(&o[w * 32..w * 32 + 32]), &[s; 32], 1e-5, 1e-5);
    }
}

#[kernel]
fn warp_sum_down(x: &[i32], out: &mut [i32]) {
    let i = global_index();
    let mut v = x[i];
    let mut off = 16u32;
    while off > 0u32 {
        v += shfl_down(v, off);
        off = off / 2u32;
    }
    if lane_id() == 0u32 {
        out[i / 32usize] = v;
    }
}

#[test]
fn warp_reduction_with_shfl_down() {
    let mut r = Rng::new();
    let x = r.i32s(512, -1000, 1000);
    let o = Launch::new("warp_sum_down", warp_sum_down::kernel(), 4, 128)
        .buf(&x)
        .buf(&[0; 16])
        .run()
        .get::<i32>(1);
    for w in 0..16 {
        assert_eq!(o[w], x[w * 32..w * 32 + 32].iter().sum::<i32>(), "warp {w}");
    }
}

#[kernel]
fn warp_scan_up(x: &[u32], out: &mut [u32]) {
    let i = global_index();
    let lane = lane_id();
    let mut v = x[i];
    for k in 0..5u32 {
        let d = 1u32 << k;
        let n = shfl_up(v, d);
        if lane >= d {
            v += n;
        }
    }
    out[i] = v;
}

#[test]
fn warp_inclusive_scan_with_shfl_up() {
    let mut r = Rng::new();
    let x = r.u32s(256, 100);
    let o = Launch::new("warp_scan_up", warp_scan_up::kernel(), 1, 256)
        .buf(&x)
        .buf(&vec![0u32; 256])
        .run()
        .get::<u32>(1);
    for w in 0..8 {
        let mut acc = 0;
        for l in 0..32 {
            acc += x[w * 32 + l];
            assert_eq!(o[w * 32 + l], acc, "warp {w} lane {l}");
        }
    }
}

#[kernel]
fn warp_broadcast(x: &[f64], src: u32, out: &mut [f64]) {
    let i = global_index();
    out[i] = shfl_idx(x[i], src);
}

#[test]
fn shfl_idx_broadcasts_64_bit_values() {
    let mut r = Rng::new();
    let x = r.f64s(128, -1.0, 1.0);
    let o = Launch::new("warp_broadcast", warp_broadcast::kernel(), 1, 128)
        .buf(&x)
        .scalar(7u32)
        .buf(&vec![0f64; 128])
        .run()
        .get::<f64>(2);
    for i in 0..128 {
        assert_eq!(o[i], x[(i / 32) * 32 + 7]);
    }
}

#[kernel]
fn votes(x: &[i32], out: &mut [u32]) {
    let i = global_index();
    let p = x[i] > 0;
    let any = vote_any(p);
    let all = vote_all(p);
    let b = ballot(p);
    out[i] = (any as u32) + (all as u32) * 2u32 + select(lane_id() == 0u32, b, 0u32) * 0u32;
    if lane_id() == 0u32 {
        out[x.len() + i / 32usize] = b;
    }
}

#[test]
fn warp_votes_any_all_ballot() {
    let mut r = Rng::new();
    let mut x: Vec<i32> = r.i32s(128, -5, 5);
    for v in &mut x[32..64] {
        *v = 1; // a warp where all lanes vote yes
    }
    for v in &mut x[64..96] {
        *v = -1; // and one where none do
    }
    let o = Launch::new("votes", votes::kernel(), 1, 128).buf(&x).buf(&vec![0u32; 132]).run().get::<u32>(1);
    for w in 0..4 {
        let lanes = &x[w * 32..w * 32 + 32];
        let ballot: u32 = lanes.iter().enumerate().map(|(l, &v)| ((v > 0) as u32) << l).sum();
        let any = lanes.iter().any(|&v| v > 0) as u32;
        let all = lanes.iter().all(|&v| v > 0) as u32;
        assert_eq!(o[128 + w], ballot, "ballot of warp {w}");
        for l in 0..32 {
            assert_eq!(o[w * 32 + l], any + 2 * all, "warp {w} lane {l}");
        }
    }
}

#[kernel]
fn lanes_and_warp_size(out: &mut [u32]) {
    let t = thread_idx_x();
    out[t] = lane_id() + warp_size() * 100u32 + (t / warp_size()) * 10000u32;
}

#[test]
fn lane_id_and_warp_size() {
    let o =
        Launch::new("lanes", lanes_and_warp_size::kernel(), 1, 96).buf(&vec![0u32; 96]).run().get::<u32>(0);
    for t in 0..96u32 {
        assert_eq!(o[t as usize], t % 32 + 3200 + (t / 32) * 10000);
    }
}

// ------------------------------------------------------------------ atomics

#[kernel]
fn histogram(x: &[u32], bins: &mut [u32]) {
    let i = global_index();
    if i < x.len() {
        bins.atomic_add(x[i] % (bins.len() as u32), 1u32);
    }
}

#[test]
fn global_atomic_add_histogram() {
    let mut r = Rng::new();
    let x = r.u32s(20_000, 1 << 20);
    let o = Launch::new("histogram", histogram::kernel(), grid_for(20_000, 256), 256)
        .buf(&x)
        .buf(&vec![0u32; 64])
        .run()
        .get::<u32>(1);
    let mut want = vec![0u32; 64];
    for v in &x {
        want[(v % 64) as usize] += 1;
    }
    assert_eq!(o, want);
}

#[kernel]
fn shared_histogram(x: &[u32], bins: &mut [u32]) {
    let local = shared_array::<u32>(32);
    let t = thread_idx_x();
    if t < 32u32 {
        local[t] = 0u32;
    }
    sync_threads();
    let mut i = global_index();
    while i < x.len() {
        local.atomic_add(x[i] & 31u32, 1u32);
        i += grid_stride();
    }
    sync_threads();
    if t < 32u32 {
        bins.atomic_add(t, local[t]);
    }
}

#[test]
fn shared_memory_atomics_histogram() {
    let mut r = Rng::new();
    let x = r.u32s(30_000, u32::MAX);
    let o = Launch::new("shared_histogram", shared_histogram::kernel(), 8, 128)
        .buf(&x)
        .buf(&[0u32; 32])
        .run()
        .get::<u32>(1);
    let mut want = vec![0u32; 32];
    for v in &x {
        want[(v & 31) as usize] += 1;
    }
    assert_eq!(o, want);
}

#[kernel]
fn atomic_float_sums(x: &[f32], d: &[f64], s32: &mut [f32], s64: &mut [f64]) {
    let i = global_index();
    if i < x.len() {
        s32.atomic_add(0u32, x[i]);
        s64.atomic_add(0u32, d[i]);
    }
}

#[test]
fn atomic_add_f32_and_f64() {
    let mut r = Rng::new();
    let (x, d) = (r.f32s(4096, 0.0, 1.0), r.f64s(4096, 0.0, 1.0));
    let out = Launch::new("atomic_float_sums", atomic_float_sums::kernel(), 16, 256)
        .buf(&x)
        .buf(&d)
        .buf(&[0f32])
        .buf(&[0f64])
        .gpu_tol(1e-5, 1e-3)
        .run();
    let (s32, s64) = (out.get::<f32>(2)[0] as f64, out.get::<f64>(3)[0]);
    check_close("f32 sum", &[s32], &[x.iter().map(|&v| v as f64).sum()], 1e-4, 0.0);
    check_close("f64 sum", &[s64], &[d.iter().sum()], 1e-12, 0.0);
}

#[kernel]
fn atomic_int_ops(
    x: &[i32],
    u: &[u32],
    mins: &mut [i32],
    bits: &mut [u32],
    wide: &mut [i64],
    uwide: &mut [u64],
) {
    let i = global_index();
    if i < x.len() {
        mins.atomic_min(0u32, x[i]);
        mins.atomic_max(1u32, x[i]);
        mins.atomic_sub(2u32, x[i]);
        bits.atomic_and(0u32, u[i] | 0xffff_0000u32);
        bits.atomic_or(1u32, u[i] & 0x0000_ffffu32);
        bits.atomic_xor(2u32, u[i]);
        wide.atomic_add(0u32, x[i] as i64 * 1_000_000i64);
        wide.atomic_min(1u32, x[i] as i64);
        uwide.atomic_add(0u32, u[i] as u64);
        uwide.atomic_max(1u32, u[i] as u64);
    }
}

#[test]
fn atomic_min_max_sub_and_or_xor_on_32_and_64_bits() {
    let mut r = Rng::new();
    let n = 3000;
    let (x, u) = (r.i32s(n, -1_000_000, 1_000_000), r.u32s(n, u32::MAX));
    let out = Launch::new("atomic_int_ops", atomic_int_ops::kernel(), grid_for(n, 128), 128)
        .buf(&x)
        .buf(&u)
        .buf(&[i32::MAX, i32::MIN, 0])
        .buf(&[u32::MAX, 0, 0])
        .buf(&[0i64, i64::MAX])
        .buf(&[0u64, 0])
        .run();
    let (m, b, w, uw) = (out.get::<i32>(2), out.get::<u32>(3), out.get::<i64>(4), out.get::<u64>(5));
    assert_eq!(m[0], *x.iter().min().unwrap());
    assert_eq!(m[1], *x.iter().max().unwrap());
    assert_eq!(m[2], x.iter().fold(0i32, |a, &v| a.wrapping_sub(v)));
    assert_eq!(b[0], u.iter().fold(u32::MAX, |a, &v| a & (v | 0xffff_0000)));
    assert_eq!(b[1], u.iter().fold(0, |a, &v| a | (v & 0xffff)));
    assert_eq!(b[2], u.iter().fold(0, |a, &v| a ^ v));
    assert_eq!(w[0], x.iter().map(|&v| v as i64 * 1_000_000).sum::<i64>());
    assert_eq!(w[1], *x.iter().min().unwrap() as i64);
    assert_eq!(uw[0], u.iter().map(|&v| v as u64).sum::<u64>());
    assert_eq!(uw[1], *u.iter().max().unwrap() as u64);
}

#[kernel]
fn ticket_lock_free(slots: &mut [u32], counter: &mut [u32], owners: &mut [u32]) {
    let i = global_index();
    // Claim a unique ticket with a CAS loop, then record who got it with an exchange.
    let mut done = false;
    while !done {
        let cur = counter[0u32];
        let old = counter.atomic_cas(0u32, cur, cur + 1u32);
        if old == cur {
            slots[cur] = i as u32;
            done = true;
        }
    }
    owners.atomic_exch(i, 1u32);
}

#[test]
fn compare_and_swap_and_exchange() {
    let n = 512;
    let out = Launch::new("ticket", ticket_lock_free::kernel(), 4, 128)
        .buf_unordered(&vec![u32::MAX; n])
        .buf(&[0u32])
        .buf(&vec![0u32; n])
        .run();
    let mut slots = out.get::<u32>(0);
    slots.sort();
    assert_eq!(slots, (0..n as u32).collect::<Vec<_>>(), "every thread gets exactly one ticket");
    assert_eq!(out.get::<u32>(1), vec![n as u32]);
    assert_eq!(out.get::<u32>(2), vec![1u32; n]);
}

// ------------------------------------------------------------------ wide memory access and fences

#[kernel]
fn wide_copy(x: &[f32], y: &mut [f32]) {
    let i = global_index();
    if i < x.len() / 4usize {
        let v = x.load4(i);
        y.store4(i, vec4(v.get(3), v.get(2), v.get(1), v.get(0)));
    }
}

#[test]
fn sixteen_byte_vector_loads_and_stores() {
    let mut r = Rng::new();
    let x = r.f32s(4096, -1.0, 1.0);
    let k = wide_copy::kernel().unwrap();
    assert!(k.ptx("sm_90").unwrap().contains("ld.global.v4.f32"), "expected a 16-byte load");
    let o = Launch::new("wide_copy", wide_copy::kernel(), 4, 256)
        .buf(&x)
        .buf(&vec![0f32; 4096])
        .run()
        .get::<f32>(1);
    for q in 0..1024 {
        for k in 0..4 {
            assert_eq!(o[q * 4 + k], x[q * 4 + 3 - k]);
        }
    }
}

#[kernel]
fn wide_f64(x: &[f64], y: &mut [f64]) {
    let i = global_index();
    if i < x.len() / 2usize {
        let v = x.load2(i);
        y.store2(i, vec2(v.get(0) + v.get(1), v.get(0) - v.get(1)));
    }
}

#[test]
fn two_wide_f64_vectors() {
    let mut r = Rng::new();
    let x = r.f64s(1000, -1.0, 1.0);
    let o = Launch::new("wide_f64", wide_f64::kernel(), 4, 128)
        .buf(&x)
        .buf(&vec![0f64; 1000])
        .run()
        .get::<f64>(1);
    for q in 0..500 {
        assert_eq!(o[q * 2], x[q * 2] + x[q * 2 + 1]);
        assert_eq!(o[q * 2 + 1], x[q * 2] - x[q * 2 + 1]);
    }
}

#[kernel]
fn fenced_publish(data: &mut [u32], flags: &mut [u32]) {
    let i = global_index();
    data[i] = (i as u32) * 3u32;
    fence_device();
    fence_block();
    fence_system();
    flags.atomic_exch(i, 1u32);
}

#[test]
fn memory_fences() {
    let out = Launch::new("fenced_publish", fenced_publish::kernel(), 2, 64)
        .buf(&vec![0u32; 128])
        .buf(&vec![0u32; 128])
        .run();
    assert_eq!(out.get::<u32>(0), (0..128u32).map(|i| i * 3).collect::<Vec<_>>());
    assert_eq!(out.get::<u32>(1), vec![1u32; 128]);
    let ptx = fenced_publish::kernel().unwrap().ptx("sm_90").unwrap();
    assert!(ptx.contains("membar.gl") && ptx.contains("membar.cta") && ptx.contains("membar.sys"));
}

// ------------------------------------------------------------------ tensor cores

/// One warp multiplies a 16x16 A (row major) by a 16x8 B (given as B^T, 8x16 row major), in
/// f16 or bf16 with f32 accumulation, loading its fragments by the PTX layout.
#[kernel]
fn mma_tile<H: Elem>(a: &[H], bt: &[H], c: &mut [f32]) {
    let lane = lane_id();
    let g = lane / 4u32;
    let t = lane % 4u32;
    let a0 = pack_half2(a[g * 16u32 + t * 2u32], a[g * 16u32 + t * 2u32 + 1u32]);
    let a1 = pack_half2(a[(g + 8u32) * 16u32 + t * 2u32], a[(g + 8u32) * 16u32 + t * 2u32 + 1u32]);
    let a2 = pack_half2(a[g * 16u32 + t * 2u32 + 8u32], a[g * 16u32 + t * 2u32 + 9u32]);
    let a3 = pack_half2(a[(g + 8u32) * 16u32 + t * 2u32 + 8u32], a[(g + 8u32) * 16u32 + t * 2u32 + 9u32]);
    let b0 = pack_half2(bt[g * 16u32 + t * 2u32], bt[g * 16u32 + t * 2u32 + 1u32]);
    let b1 = pack_half2(bt[g * 16u32 + t * 2u32 + 8u32], bt[g * 16u32 + t * 2u32 + 9u32]);
    let acc = vec4(0.0f32, 0.0f32, 0.0f32, 0.0f32);
    let d = mma_m16n8k16::<H>(vec4(a0, a1, a2, a3), vec2(b0, b1), acc);
    c[g * 8u32 + t * 2u32] = d.get(0);
    c[g * 8u32 + t * 2u32 + 1u32] = d.get(1);
    c[(g + 8u32) * 8u32 + t * 2u32] = d.get(2);
    c[(g + 8u32) * 8u32 + t * 2u32 + 1u32] = d.get(3);
}

#[test]
fn tensor_core_mma_f16_and_bf16() {
    let mut r = Rng::new();
    let (af, bf) = (r.f32s(256, -1.0, 1.0), r.f32s(128, -1.0, 1.0));
    let mut want = vec![0f64; 128];
    for i in 0..16 {
        for j in 0..8 {
            want[i * 8 + j] = (0..16)
                .map(|k| f16::from_f32(af[i * 16 + k]).to_f64() * f16::from_f32(bf[j * 16 + k]).to_f64())
                .sum();
        }
    }
    let a: Vec<f16> = af.iter().map(|&v| f16::from_f32(v)).collect();
    let b: Vec<f16> = bf.iter().map(|&v| f16::from_f32(v)).collect();
    let o = Launch::new("mma_tile<f16>", mma_tile::kernel::<f16>(), 1, 32)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0f32; 128])
        .gpu_tol(1e-5, 1e-5)
        .run();
    check_close("f16 mma", &f64s(&o.get::<f32>(2)), &want, 1e-5, 1e-5);
    assert!(mma_tile::kernel::<f16>()
        .unwrap()
        .ptx("sm_80")
        .unwrap()
        .contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));

    let a: Vec<bf16> = af.iter().map(|&v| bf16::from_f32(v)).collect();
    let b: Vec<bf16> = bf.iter().map(|&v| bf16::from_f32(v)).collect();
    let mut want = vec![0f64; 128];
    for i in 0..16 {
        for j in 0..8 {
            want[i * 8 + j] = (0..16).map(|k| a[i * 16 + k].to_f64() * b[j * 16 + k].to_f64()).sum();
        }
    }
    let o = Launch::new("mma_tile<bf16>", mma_tile::kernel::<bf16>(), 1, 32)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0f32; 128])
        .gpu_tol(1e-5, 1e-5)
        .run();
    check_close("bf16 mma", &f64s(&o.get::<f32>(2)), &want, 1e-5, 1e-5);
}

/// One warp multiplies an 8x4 A (row major) by a 4x8 B (row major) on the FP64 tensor core,
/// adding a C (8x8 row major), loading its fragments by the PTX layout; twice, so the second
/// step accumulates onto the first's output.
#[kernel]
fn dmma_tile(a: &[f64], b: &[f64], c: &[f64], d: &mut [f64]) {
    let lane = lane_id();
    let g = lane / 4u32;
    let t = lane % 4u32;
    let acc = vec2(c[g * 8u32 + t * 2u32], c[g * 8u32 + t * 2u32 + 1u32]);
    let once = mma_m8n8k4_f64(a[g * 4u32 + t], b[t * 8u32 + g], acc);
    let twice = mma_m8n8k4_f64(a[32u32 + g * 4u32 + t], b[32u32 + t * 8u32 + g], once);
    d[g * 8u32 + t * 2u32] = twice.get(0);
    d[g * 8u32 + t * 2u32 + 1u32] = twice.get(1);
}

#[test]
fn tensor_core_mma_f64() {
    let mut r = Rng::new();
    let f = |r: &mut Rng, n| r.f64s(n, -1.0, 1.0);
    let (a, b, c) = (f(&mut r, 64), f(&mut r, 64), f(&mut r, 64));
    let mut want = c.clone();
    for step in 0..2 {
        for i in 0..8 {
            for j in 0..8 {
                want[i * 8 + j] +=
                    (0..4).map(|k| a[32 * step + i * 4 + k] * b[32 * step + k * 8 + j]).sum::<f64>();
            }
        }
    }
    let o = Launch::new("dmma_tile", dmma_tile::kernel(), 1, 32)
        .buf(&a)
        .buf(&b)
        .buf(&c)
        .buf(&vec![0f64; 64])
        .gpu_tol_exact(1e-14, 1e-14)
        .run();
    check_close("f64 mma", &o.get::<f64>(3), &want, 1e-14, 1e-14);
    assert!(dmma_tile::kernel()
        .unwrap()
        .ptx("sm_80")
        .unwrap()
        .contains("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"));
}

/// Where C/D element `i` of the lane in group `g`, thread `t` sits in a row-major 16 x 8 tile
/// (the PTX ISA's layout for the f64 m16n8k16 and m16n8k8 shapes): row `g + 8 (i / 2)`, column
/// `2 t + i % 2`.
fn dmma_c_at(g: Val<u32>, t: Val<u32>, i: usize) -> Val<u32> {
    (g + (8 * (i / 2)) as u32) * 8u32 + 2u32 * t + (i % 2) as u32
}

/// Two chained `mma.m16n8k16.f64` steps on row-major tiles: A `16 x 16` (two, 256 apart),
/// B `16 x 8` (k x n, two, 128 apart), C and D `16 x 8`. The fragment positions are the PTX
/// ISA's ("Matrix Fragments for mma.m16n8k16", `.f64`), written out here independently of the
/// executor's table.
#[kernel]
fn dmma16_tile(a: &[f64], b: &[f64], c: &[f64], d: &mut [f64]) {
    let lane = lane_id();
    let g = lane / 4u32;
    let t = lane % 4u32;
    let cv = var_array(4, 0.0f64);
    for i in 0..4usize {
        cv.set(i, c[dmma_c_at(g, t, i)]);
    }
    let mut out = vec4(cv.get(0), cv.get(1), cv.get(2), cv.get(3));
    for step in 0..2usize {
        // A element i: row g + 8 (i % 2), column t + 4 (i / 2); B element i: row t + 4 i,
        // column g.
        let fa = var_array(8, 0.0f64);
        let fb = var_array(4, 0.0f64);
        for i in 0..8usize {
            fa.set(i, a[(256 * step) as u32 + (g + (8 * (i % 2)) as u32) * 16u32 + t + (4 * (i / 2)) as u32]);
        }
        for i in 0..4usize {
            fb.set(i, b[(128 * step) as u32 + (t + (4 * i) as u32) * 8u32 + g]);
        }
        let av = [fa.get(0), fa.get(1), fa.get(2), fa.get(3), fa.get(4), fa.get(5), fa.get(6), fa.get(7)];
        out = mma_m16n8k16_f64(av, [fb.get(0), fb.get(1), fb.get(2), fb.get(3)], out);
    }
    for i in 0..4usize {
        d[dmma_c_at(g, t, i)] = out.get(i);
    }
}

/// `c + a0 b0 + a1 b1` on the host for `dmma16_tile`'s layout, A read through `a_at(row, k)`
/// (the identity for the true layout).
fn dmma16_host(a: &[f64], b: &[f64], c: &[f64], a_at: impl Fn(usize, usize) -> (usize, usize)) -> Vec<f64> {
    let mut want = c.to_vec();
    for step in 0..2 {
        for i in 0..16 {
            for j in 0..8 {
                want[i * 8 + j] += (0..16)
                    .map(|k| {
                        let (r, q) = a_at(i, k);
                        a[256 * step + r * 16 + q] * b[128 * step + k * 8 + j]
                    })
                    .sum::<f64>();
            }
        }
    }
    want
}

/// Runs `kernel` (a tile kernel of `dmma16_tile`'s form for the FP64 `shape`, "m16n8k16" or
/// "m16n8k8") on random operands against the host product, checks that the check would see a
/// permuted fragment layout, that the PTX holds the shape's `mma`, and that sm_80 refuses it.
fn check_dmma_tile(
    name: &str,
    kernel: fn() -> Result<std::sync::Arc<ferrocm_kernel::CompiledKernel>, ferrocm_kernel::KernelError>,
    shape: &str,
) {
    let mut r = Rng::new();
    let f = |r: &mut Rng, n| r.f64s(n, -1.0, 1.0);
    let (a, b, c) = (f(&mut r, 512), f(&mut r, 256), f(&mut r, 128));
    let want = dmma16_host(&a, &b, &c, |i, k| (i, k));
    // 32 products per element: the bound covers any summation order.
    let o = Launch::new(name, kernel(), 1, 32)
        .buf(&a)
        .buf(&b)
        .buf(&c)
        .buf(&vec![0f64; 128])
        .gpu_tol_exact(1e-13, 1e-13)
        .run();
    let got = o.get::<f64>(3);
    check_close(&format!("f64 mma {shape}"), &got, &want, 1e-13, 1e-13);
    // The check sees the layout: A's two row halves swapped (a_i's `8 (i % 2)` read as
    // `8 (i / 2 % 2)`, what a layout permuted inside the fragment computes) differs by far more
    // than the bound in some element.
    let permuted = dmma16_host(&a, &b, &c, |i, k| ((i + 8 * (k / 4 % 2)) % 16, k));
    let worst = got.iter().zip(&permuted).map(|(g, p)| (g - p).abs()).fold(0.0, f64::max);
    assert!(worst > 1e-3, "a permuted A layout agrees within {worst:e}: the check cannot see the layout");
    let op = format!("mma.sync.aligned.{shape}.row.col.f64.f64.f64.f64");
    assert!(kernel().unwrap().ptx("sm_90").unwrap().contains(&op), "{name}: no {op}");
    // Below sm_90 the shape does not exist: the kernel must not compile there.
    let e = kernel().unwrap().ptx("sm_80").expect_err("no f64 m16n8k* on sm_80");
    assert!(e.to_string().contains("needs mma.sync f64 m16n8k16 (sm_90 or newer), but"), "{e}");
}

#[test]
fn tensor_core_mma_f64_m16n8k16() {
    check_dmma_tile("dmma16_tile", dmma16_tile::kernel, "m16n8k16");
}

/// `dmma16_tile`'s product as four 16x8x8 steps (each 16-deep step split at k = 8), the 8-deep
/// fragments written out from the PTX ISA ("Matrix Fragments for mma.m16n8k8", `.f64`): A element
/// i at row g + 8 (i % 2), column t + 4 (i / 2); B element i at row t + 4 i, column g.
#[kernel]
fn dmma8_tile(a: &[f64], b: &[f64], c: &[f64], d: &mut [f64]) {
    let lane = lane_id();
    let g = lane / 4u32;
    let t = lane % 4u32;
    let cv = var_array(4, 0.0f64);
    for i in 0..4usize {
        cv.set(i, c[dmma_c_at(g, t, i)]);
    }
    let mut out = vec4(cv.get(0), cv.get(1), cv.get(2), cv.get(3));
    for step in 0..4usize {
        // k0: the first of this step's 8 columns of A (rows of B) inside its 16-deep half.
        let (half, k0) = (step / 2, 8 * (step % 2));
        let fa = var_array(4, 0.0f64);
        let fb = var_array(2, 0.0f64);
        for i in 0..4usize {
            let col = (k0 + 4 * (i / 2)) as u32 + t;
            fa.set(i, a[(256 * half) as u32 + (g + (8 * (i % 2)) as u32) * 16u32 + col]);
        }
        for i in 0..2usize {
            fb.set(i, b[(128 * half) as u32 + ((k0 + 4 * i) as u32 + t) * 8u32 + g]);
        }
        out = mma_m16n8k8_f64([fa.get(0), fa.get(1), fa.get(2), fa.get(3)], [fb.get(0), fb.get(1)], out);
    }
    for i in 0..4usize {
        d[dmma_c_at(g, t, i)] = out.get(i);
    }
}

#[test]
fn tensor_core_mma_f64_m16n8k8() {
    check_dmma_tile("dmma8_tile", dmma8_tile::kernel, "m16n8k8");
}

// ------------------------------------------------------------------ errors the executor reports

#[kernel]
fn unguarded_store(x: &[f32], y: &mut [f32]) {
    let i = global_index();
    y[i] = x[i];
}

#[test]
fn out_of_range_access_names_kernel_buffer_and_index() {
    let l = Launch::new("unguarded", unguarded_store::kernel(), 2, 64)
        .buf(&vec![1f32; 128])
        .buf(&vec![0f32; 100]);
    let err = l.try_run().err().expect("an out-of-range store must fail");
    assert!(err.contains("unguarded_store") && err.contains("`y`") && err.contains("index 100"), "{err}");
}

#[kernel]
fn divergent_barrier(y: &mut [u32]) {
    let t = thread_idx_x();
    if t < 16u32 {
        sync_threads();
    }
    y[t] = t;
}

#[test]
fn barrier_reached_by_part_of_a_block_is_an_error() {
    let err = Launch::new("divergent_barrier", divergent_barrier::kernel(), 1, 64)
        .buf(&vec![0u32; 64])
        .try_run()
        .err();
    let err = err.expect("a divergent barrier must fail");
    assert!(err.contains("divergent_barrier") && err.contains("barrier"), "{err}");
}

#[kernel]
fn break_in_unrolled(y: &mut [u32]) {
    for k in 0..4usize {
        if k == 2usize {
            break;
        }
        y[k] = 1u32;
    }
}

#[test]
fn break_in_a_compile_time_loop_is_a_build_error() {
    let e = break_in_unrolled::kernel().expect_err("must not build");
    assert!(e.to_string().contains("unrolled"), "{e}");
}

#[test]
fn gpu_backend_present_when_required() {
    // The GPU half of this suite runs through the ferrocm runtime; until the typed launch is wired
    // to it, a GPU run (FERROCM_REQUIRE_GPU=1) must fail here rather than pass on the CPU alone.
    assert!(
        !gpu_required_but_unavailable(),
        "FERROCM_REQUIRE_GPU=1 but this suite has no GPU backend to run on"
    );
}

// ------------------------------------------------------------------ typed launch through the runtime

#[test]
fn typed_launch_on_every_device() {
    let mut r = Rng::new();
    let (x, y) = (r.f32s(N, -1.0, 1.0), r.f32s(N, -1.0, 1.0));
    for device in Device::all().unwrap() {
        let stream = device.create_stream().unwrap();
        let dx = stream.clone_htod(&x).unwrap();
        let mut dy = stream.clone_htod(&y).unwrap();
        saxpy::launch(&stream, LaunchConfig::for_num_elems(N as u32), 0.5, &dx, &mut dy).unwrap();
        let got = stream.clone_dtoh(&dy).unwrap();
        let want: Vec<f64> = (0..N).map(|i| 0.5 * x[i] as f64 + y[i] as f64).collect();
        check_close(&format!("typed saxpy on {}", device.kind()), &f64s(&got), &want, 1e-6, 1e-6);
    }
}

#[test]
fn kernel_error_is_reported_by_synchronize_with_kernel_buffer_and_index() {
    let device = Device::cpu().unwrap();
    let stream = device.create_stream().unwrap();
    let dx = stream.clone_htod(&[1f32; 64]).unwrap();
    let mut dy = stream.alloc_zeroed::<f32>(40).unwrap();
    unguarded_store::launch(&stream, LaunchConfig::new(1, 64), &dx, &mut dy).unwrap();
    let err = stream.synchronize().expect_err("the out-of-range store must surface").to_string();
    assert!(err.contains("unguarded_store") && err.contains("`y`") && err.contains("index 40"), "{err}");
}

#[test]
fn launch_validation_comes_from_the_runtime() {
    let device = Device::cpu().unwrap();
    let stream = device.create_stream().unwrap();
    let dx = stream.clone_htod(&[1f32; 64]).unwrap();
    let mut dy = stream.alloc_zeroed::<f32>(64).unwrap();
    let err = vec_add::launch(&stream, LaunchConfig::new(1, 4096), &dx, &dx, &mut dy)
        .expect_err("4096 threads per block");
    assert!(err.to_string().contains("4096"), "{err}");
}

// ------------------------------------------------------------------ more types and control flow

#[kernel]
fn narrow_more(a: &[i16], b: &[u8], oa: &mut [i16], ob: &mut [u8]) {
    let i = global_index();
    if i < a.len() {
        oa[i] = (a[i] >> 3u32) - (a[i] << 2u32);
        ob[i] = (b[i] << 1u32) ^ (b[i] >> 5u32) | 1u8;
    }
}

#[test]
fn narrow_integer_shifts_i16_u8() {
    let mut r = Rng::new();
    let a: Vec<i16> = (0..N).map(|_| r.u32() as i16).collect();
    let b: Vec<u8> = (0..N).map(|_| r.u32() as u8).collect();
    let out = Launch::new("narrow_more", narrow_more::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0i16; N])
        .buf(&vec![0u8; N])
        .run();
    let (oa, ob) = (out.get::<i16>(2), out.get::<u8>(3));
    for i in 0..N {
        assert_eq!(oa[i], (a[i] >> 3).wrapping_sub(a[i].wrapping_shl(2)), "i16 {i}");
        assert_eq!(ob[i], (b[i].wrapping_shl(1) ^ (b[i] >> 5)) | 1, "u8 {i}");
    }
}

#[kernel]
fn shuffle_small_types(h: &[f16], p: &[bool], oh: &mut [f16], op: &mut [bool]) {
    let i = global_index();
    oh[i] = shfl_xor(h[i], 1u32);
    op[i] = shfl_down(p[i], 2u32);
}

#[test]
fn shuffles_of_half_and_bool() {
    let mut r = Rng::new();
    let h: Vec<f16> = r.f32s(64, -2.0, 2.0).into_iter().map(f16::from_f32).collect();
    let p: Vec<bool> = r.u32s(64, 2).into_iter().map(|v| v == 1).collect();
    let out = Launch::new("shuffle_small_types", shuffle_small_types::kernel(), 1, 64)
        .buf(&h)
        .buf(&p)
        .buf(&[f16::ZERO; 64])
        .buf(&[false; 64])
        .run();
    let (oh, op) = (out.get::<f16>(2), out.get::<bool>(3));
    for i in 0..64 {
        assert_eq!(oh[i], h[i ^ 1], "f16 lane {i}");
        let src = if i % 32 + 2 < 32 { i + 2 } else { i };
        assert_eq!(op[i], p[src], "bool lane {i}");
    }
}

#[kernel]
fn nested_loops(m: &[i32], w: u32, out: &mut [i32]) {
    // For each row: sum the entries of each segment of 4 until a negative entry, skipping
    // segments that start with zero.
    let r = global_index();
    if r < out.len() {
        let mut total = 0i32;
        for s in 0u32..(w / 4u32) {
            if m[r * (w as usize) + (s * 4u32) as usize] == 0 {
                continue;
            }
            // A runtime bound (w / 4 is 4 here): loops that break must not be unrolled.
            for k in 0u32..(w / 4u32) {
                let v = m[r * (w as usize) + (s * 4u32 + k) as usize];
                if v < 0 {
                    break;
                }
                total += v;
            }
        }
        out[r] = total;
    }
}

#[test]
fn nested_runtime_loops_with_break_and_continue() {
    let mut r = Rng::new();
    let (rows, w) = (200, 16u32);
    let m = r.i32s(rows * 16, -3, 10);
    let o = Launch::new("nested_loops", nested_loops::kernel(), grid_for(rows, 64), 64)
        .buf(&m)
        .scalar(w)
        .buf(&vec![0i32; rows])
        .run()
        .get::<i32>(2);
    for row in 0..rows {
        let mut total = 0;
        for s in 0..4 {
            let seg = &m[row * 16 + s * 4..row * 16 + s * 4 + 4];
            if seg[0] == 0 {
                continue;
            }
            for &v in seg {
                if v < 0 {
                    break;
                }
                total += v;
            }
        }
        assert_eq!(o[row], total, "row {row}");
    }
}

#[kernel]
fn return_from_loop(x: &[u32], out: &mut [u32]) {
    let i = global_index();
    out[i] = 0u32;
    for k in 0u32..64u32 {
        if ((x[i] >> (k % 32u32)) & 1u32) == 1u32 {
            out[i] = k + 1u32;
            return;
        }
    }
    out[i] = 999u32;
}

#[test]
fn kernel_return_from_inside_a_loop() {
    let mut r = Rng::new();
    let mut x = r.u32s(128, u32::MAX);
    x[5] = 0;
    let o = Launch::new("return_from_loop", return_from_loop::kernel(), 1, 128)
        .buf(&x)
        .buf(&vec![7u32; 128])
        .run()
        .get::<u32>(1);
    for i in 0..128 {
        let want = if x[i] == 0 { 999 } else { x[i].trailing_zeros() + 1 };
        assert_eq!(o[i], want, "{i}");
    }
}

#[kernel]
fn cas_u64_max(x: &[u64], best: &mut [u64]) {
    let i = global_index();
    if i < x.len() {
        let v = x[i];
        let mut cur = best[0u32];
        while cur < v {
            let seen = best.atomic_cas(0u32, cur, v);
            if seen == cur {
                break;
            }
            cur = seen;
        }
    }
}

#[test]
fn atomic_cas_u64_loop() {
    let mut r = Rng::new();
    let x: Vec<u64> = (0..2048).map(|_| r.u64()).collect();
    let o =
        Launch::new("cas_u64_max", cas_u64_max::kernel(), 8, 256).buf(&x).buf(&[0u64]).run().get::<u64>(1);
    assert_eq!(o[0], *x.iter().max().unwrap());
}

#[kernel]
fn shared_float_atomics(x: &[f32], out: &mut [f64]) {
    let acc = shared_array::<f32>(1);
    let dacc = dyn_shared::<f64>();
    let t = thread_idx_x();
    if t == 0u32 {
        acc[0u32] = 0.0f32;
        dacc[0u32] = 0.0f64;
    }
    sync_threads();
    acc.atomic_add(0u32, x[global_index()]);
    dacc.atomic_add(0u32, x[global_index()] as f64);
    sync_threads();
    if t == 0u32 {
        out[block_idx_x() * 2u32] = acc[0u32] as f64;
        out[block_idx_x() * 2u32 + 1u32] = dacc[0u32];
    }
}

#[test]
fn shared_memory_float_atomics() {
    let mut r = Rng::new();
    let x = r.f32s(512, 0.0, 1.0);
    let o = Launch::new("shared_float_atomics", shared_float_atomics::kernel(), 4, 128)
        .shared(8)
        .buf(&x)
        .buf(&[0f64; 8])
        .gpu_tol(1e-5, 1e-5)
        .run()
        .get::<f64>(1);
    for b in 0..4 {
        let s: f64 = x[b * 128..b * 128 + 128].iter().map(|&v| v as f64).sum();
        check_close("f32 shared sum", &[o[b * 2]], &[s], 1e-5, 1e-5);
        check_close("f64 shared sum", &[o[b * 2 + 1]], &[s], 1e-12, 1e-12);
    }
}

#[kernel]
fn half_transcendentals(x: &[f16], out: &mut [f16]) {
    let i = global_index();
    if i < x.len() {
        out[i] = x[i].exp() + x[i].sin();
    }
}

#[test]
fn half_precision_math() {
    let mut r = Rng::new();
    let x: Vec<f16> = r.f32s(N, -2.0, 2.0).into_iter().map(f16::from_f32).collect();
    let o = Launch::new("half_transcendentals", half_transcendentals::kernel(), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&vec![f16::ZERO; N])
        .gpu_tol(2e-3, 2e-3)
        .run()
        .get::<f16>(1);
    let want: Vec<f64> = x.iter().map(|v| v.to_f64().exp() + v.to_f64().sin()).collect();
    check_close("f16 math", &o.iter().map(|v| v.to_f64()).collect::<Vec<_>>(), &want, 2e-3, 2e-3);
}

#[device]
fn digits(v: u32) -> u32 {
    let mut n = 0u32;
    let mut x = v;
    loop {
        n += 1u32;
        x = x / 10u32;
        if x == 0u32 {
            break;
        }
    }
    n
}

#[kernel]
fn count_digits(x: &[u32], out: &mut [u32]) {
    let i = global_index();
    if i < x.len() {
        out[i] = digits(x[i]);
    }
}

#[test]
fn device_function_with_a_loop_and_break() {
    let mut r = Rng::new();
    let mut x = r.u32s(N, u32::MAX);
    x[0] = 0;
    let o = Launch::new("count_digits", count_digits::kernel(), grid_for(N, 128), 128)
        .buf(&x)
        .buf(&vec![0u32; N])
        .run()
        .get::<u32>(1);
    for i in 0..N {
        assert_eq!(o[i], x[i].to_string().len() as u32, "{}", x[i]);
    }
}

#[kernel]
fn signed_sizes(a: &[isize], out: &mut [isize]) {
    let i = global_index();
    if i < a.len() {
        let v = a[i];
        out[i] = select(v < 0isize, -v, v * 2isize) + (i as isize);
    }
}

#[test]
fn isize_values() {
    let mut r = Rng::new();
    let a: Vec<isize> = (0..N).map(|_| (r.u64() as i64 >> 8) as isize).collect();
    let o = Launch::new("signed_sizes", signed_sizes::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&vec![0isize; N])
        .run()
        .get::<isize>(1);
    for i in 0..N {
        let v = a[i];
        assert_eq!(o[i], if v < 0 { -v } else { v * 2 } + i as isize);
    }
}

/// The tensor-core data path: `cp.async` global->shared, `ldmatrix` fragments (B once from B^T,
/// once transposed from B itself), `mma.sync`; two results that must both equal A*B.
#[kernel]
fn mma_ldmatrix(a: &[f16], bt: &[f16], b: &[f16], c: &mut [f32], c2: &mut [f32]) {
    let sa = shared_array::<f16>(256);
    let sbt = shared_array::<f16>(128);
    let sb = shared_array::<f16>(128);
    let lane = lane_id();
    cp_async(&sa, lane * 8u32, &a, lane * 8u32, 16);
    if lane < 16u32 {
        cp_async(&sbt, lane * 8u32, &bt, lane * 8u32, 16);
        cp_async(&sb, lane * 8u32, &b, lane * 8u32, 16);
    }
    cp_async_commit();
    cp_async_wait(0);
    sync_threads();
    let m = lane / 8u32;
    let r = lane % 8u32;
    let af = ldmatrix_x4(&sa, (r + (m % 2u32) * 8u32) * 16u32 + (m / 2u32) * 8u32);
    let bf = ldmatrix_x2(&sbt, r * 16u32 + (m % 2u32) * 8u32);
    let bf2 = ldmatrix_x2_trans(&sb, (lane % 16u32) * 8u32);
    let zero = vec4(0.0f32, 0.0f32, 0.0f32, 0.0f32);
    let d = mma_m16n8k16::<f16>(af, bf, zero);
    let d2 = mma_m16n8k16::<f16>(af, bf2, zero);
    let g = lane / 4u32;
    let t = lane % 4u32;
    for k in 0..4u32 {
        let row = g + (k / 2u32) * 8u32;
        let col = t * 2u32 + (k % 2u32);
        c[row * 8u32 + col] = d.get(k as usize);
        c2[row * 8u32 + col] = d2.get(k as usize);
    }
}

#[test]
fn cp_async_ldmatrix_and_mma() {
    let mut r = Rng::new();
    let a: Vec<f16> = r.f32s(256, -1.0, 1.0).into_iter().map(f16::from_f32).collect();
    let b: Vec<f16> = r.f32s(128, -1.0, 1.0).into_iter().map(f16::from_f32).collect(); // 16 x 8, k-major
    let bt: Vec<f16> = (0..128).map(|i| b[(i % 16) * 8 + i / 16]).collect(); // 8 x 16, n-major
    let out = Launch::new("mma_ldmatrix", mma_ldmatrix::kernel(), 1, 32)
        .buf(&a)
        .buf(&bt)
        .buf(&b)
        .buf(&[0f32; 128])
        .buf(&[0f32; 128])
        .gpu_tol(1e-5, 1e-5)
        .run();
    let mut want = vec![0f64; 128];
    for i in 0..16 {
        for j in 0..8 {
            want[i * 8 + j] = (0..16).map(|k| a[i * 16 + k].to_f64() * b[k * 8 + j].to_f64()).sum();
        }
    }
    check_close("via B^T", &f64s(&out.get::<f32>(3)), &want, 1e-5, 1e-5);
    check_close("via ldmatrix.trans", &f64s(&out.get::<f32>(4)), &want, 1e-5, 1e-5);
    let ptx = mma_ldmatrix::kernel().unwrap().ptx("sm_90").unwrap();
    assert!(
        ptx.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16") && ptx.contains("cp.async.cg.shared.global")
    );
}

#[path = "../examples/support/gemm.rs"]
mod gemm;

#[test]
fn tensor_core_gemm_with_cp_async_pipeline() {
    let mut r = Rng::new();
    let (m, n, k) = (256usize, 256usize, 96usize);
    let a: Vec<bf16> = r.f32s(m * k, -1.0, 1.0).into_iter().map(bf16::from_f32).collect();
    let b: Vec<bf16> = r.f32s(n * k, -1.0, 1.0).into_iter().map(bf16::from_f32).collect();
    let mut want = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            want[i * n + j] = (0..k).map(|p| a[i * k + p].to_f64() * b[j * k + p].to_f64()).sum();
        }
    }
    let variants = [
        ("2 stages, 128x128 tile", gemm::gemm_bf16_nt::kernel::<2, 4>(), 4),
        ("3 stages, 128x128 tile", gemm::gemm_bf16_nt::kernel::<3, 4>(), 4),
        ("2 stages, 128x256 tile", gemm::gemm_bf16_nt::kernel::<2, 8>(), 8),
    ];
    for (stages, kernel, nt) in variants {
        let cfg = gemm::gemm_config(m as u32, n as u32, nt);
        let o = Launch::new(&format!("gemm_bf16_nt ({stages})"), kernel, cfg.grid, cfg.block)
            .buf(&a)
            .buf(&b)
            .buf(&vec![0f32; m * n])
            .scalar(m as u32)
            .scalar(n as u32)
            .scalar(k as u32)
            .gpu_tol(1e-5, 1e-4)
            .run()
            .get::<f32>(2);
        check_close(&format!("C with {stages} stages"), &f64s(&o), &want, 1e-5, 1e-4);
    }
}

#[kernel]
fn float_rem(a: &[f32], b: &[f32], d: &[f64], e: &[f64], o32: &mut [f32], o64: &mut [f64]) {
    let i = global_index();
    if i < a.len() {
        o32[i] = a[i] % b[i];
        o64[i] = d[i] % e[i];
    }
}

#[test]
fn float_remainder_f32_and_f64() {
    let mut r = Rng::new();
    let (a, b) = (r.f32s(N, -100.0, 100.0), r.f32s(N, 0.5, 7.0));
    let (d, e) = (r.f64s(N, -1e6, 1e6), r.f64s(N, 0.5, 7.0));
    let out = Launch::new("float_rem", float_rem::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&d)
        .buf(&e)
        .buf(&vec![0f32; N])
        .buf(&vec![0f64; N])
        .gpu_tol(1e-5, 1e-5)
        .run();
    let want32: Vec<f64> = (0..N).map(|i| (a[i] % b[i]) as f64).collect();
    let want64: Vec<f64> = (0..N).map(|i| d[i] % e[i]).collect();
    check_close("f32 rem", &f64s(&out.get::<f32>(4)), &want32, 1e-6, 1e-6);
    check_close("f64 rem", &out.get::<f64>(5), &want64, 1e-9, 1e-9);
}

#[kernel]
fn divergent_shuffle(x: &[u32], y: &mut [u32]) {
    let t = thread_idx_x();
    if t < 16u32 {
        y[t] = shfl_xor(x[t], 1u32);
    }
}

#[test]
fn shuffle_in_a_partial_warp_is_an_error() {
    let err = Launch::new("divergent_shuffle", divergent_shuffle::kernel(), 1, 32)
        .buf(&[1u32; 32])
        .buf(&[0u32; 32])
        .try_run()
        .err()
        .unwrap_or_else(|| panic!("a shuffle by half a warp must fail"));
    assert!(
        err.contains("divergent_shuffle") && err.contains("shuffle") && err.contains("part of warp 0"),
        "{err}"
    );
}

// ------------------------------------------------------------------ integer and bit intrinsics

/// Random words of every magnitude (so every count of leading zeros occurs), with the edge
/// cases first: 0, 1, all ones, the sign bit alone, the largest positive value, 32-bit limits.
fn words_u64(r: &mut Rng, n: usize) -> Vec<u64> {
    let edges = [0, 1, u64::MAX, 1 << 63, (1 << 63) - 1, 1 << 31, 0xffff_ffff, 1 << 32];
    (0..n)
        .map(|i| match i {
            _ if i < edges.len() => edges[i],
            _ if i % 5 == 0 => 1u64 << (r.u32() % 64),
            _ => r.u64() >> (r.u32() % 64),
        })
        .collect()
}

fn words_u32(r: &mut Rng, n: usize) -> Vec<u32> {
    let edges = [0, 1, u32::MAX, 1 << 31, (1 << 31) - 1, 0xffff, 1 << 16];
    (0..n)
        .map(|i| match i {
            _ if i < edges.len() => edges[i],
            _ if i % 5 == 0 => 1u32 << (r.u32() % 32),
            _ => r.u32() >> (r.u32() % 32),
        })
        .collect()
}

#[kernel]
fn mul_hi_words(
    a32: &[u32],
    b32: &[u32],
    a64: &[u64],
    b64: &[u64],
    hu32: &mut [u32],
    hi32: &mut [i32],
    hu64: &mut [u64],
    hi64: &mut [i64],
) {
    let i = global_index();
    if i < a32.len() {
        hu32[i * 2] = a32[i].mul_hi(b32[i]);
        hu32[i * 2 + 1] = a32[i].mul_hi(0xD251_1F53u32);
        hi32[i] = (a32[i] as i32).mul_hi(b32[i] as i32);
        hu64[i] = a64[i].mul_hi(b64[i]);
        hi64[i] = (a64[i] as i64).mul_hi(b64[i] as i64);
    }
}

#[test]
fn mul_hi_u32_i32_u64_i64() {
    let mut r = Rng::new();
    let (a32, b32) = (words_u32(&mut r, N), r.u32s(N, u32::MAX));
    let (a64, mut b64) = (words_u64(&mut r, N), words_u64(&mut r, N));
    b64.reverse();
    let out = Launch::new("mul_hi_words", mul_hi_words::kernel(), grid_for(N, 128), 128)
        .buf(&a32)
        .buf(&b32)
        .buf(&a64)
        .buf(&b64)
        .buf(&vec![0u32; 2 * N])
        .buf(&vec![0i32; N])
        .buf(&vec![0u64; N])
        .buf(&vec![0i64; N])
        .run();
    let (hu32, hi32, hu64, hi64) =
        (out.get::<u32>(4), out.get::<i32>(5), out.get::<u64>(6), out.get::<i64>(7));
    for i in 0..N {
        let (x, y, p, q) = (a32[i], b32[i], a64[i], b64[i]);
        assert_eq!(hu32[2 * i], ((x as u64 * y as u64) >> 32) as u32, "u32 element {i}: {x} * {y}");
        assert_eq!(
            hu32[2 * i + 1],
            ((x as u64 * 0xD251_1F53) >> 32) as u32,
            "u32 by a constant, element {i}"
        );
        let s = (x as i32 as i64 * y as i32 as i64) >> 32;
        assert_eq!(hi32[i], s as i32, "i32 element {i}: {} * {}", x as i32, y as i32);
        assert_eq!(hu64[i], ((p as u128 * q as u128) >> 64) as u64, "u64 element {i}: {p} * {q}");
        let s = (p as i64 as i128 * q as i64 as i128) >> 64;
        assert_eq!(hi64[i], s as i64, "i64 element {i}: {} * {}", p as i64, q as i64);
    }
}

#[kernel]
fn mul_wide_words(a: &[u32], b: &[u32], wu: &mut [u64], wi: &mut [i64]) {
    let i = global_index();
    if i < a.len() {
        wu[i * 2] = a[i].mul_wide(b[i]);
        wu[i * 2 + 1] = a[i].mul_wide(0xCD9E_8D57u32);
        wi[i] = (a[i] as i32).mul_wide(b[i] as i32);
    }
}

#[test]
fn mul_wide_u32_and_i32() {
    let mut r = Rng::new();
    let (a, mut b) = (words_u32(&mut r, N), words_u32(&mut r, N));
    b.reverse();
    let out = Launch::new("mul_wide_words", mul_wide_words::kernel(), grid_for(N, 128), 128)
        .buf(&a)
        .buf(&b)
        .buf(&vec![0u64; 2 * N])
        .buf(&vec![0i64; N])
        .run();
    let (wu, wi) = (out.get::<u64>(2), out.get::<i64>(3));
    for i in 0..N {
        let (x, y) = (a[i], b[i]);
        assert_eq!(wu[2 * i], x as u64 * y as u64, "u32 element {i}: {x} * {y}");
        assert_eq!(wu[2 * i + 1], x as u64 * 0xCD9E_8D57, "u32 by a constant, element {i}");
        assert_eq!(wi[i], x as i32 as i64 * y as i32 as i64, "i32 element {i}");
    }
}

#[kernel]
fn bit_counts(a32: &[u32], a64: &[u64], counts: &mut [u32], rev32: &mut [u32], rev64: &mut [u64]) {
    let i = global_index();
    if i < a32.len() {
        let x = a32[i];
        let s = x as i32;
        let y = a64[i];
        let t = y as i64;
        let o = i * 12;
        counts[o] = x.leading_zeros();
        counts[o + 1] = x.trailing_zeros();
        counts[o + 2] = x.count_ones();
        counts[o + 3] = s.leading_zeros();
        counts[o + 4] = s.trailing_zeros();
        counts[o + 5] = s.count_ones();
        counts[o + 6] = y.leading_zeros();
        counts[o + 7] = y.trailing_zeros();
        counts[o + 8] = y.count_ones();
        counts[o + 9] = t.leading_zeros();
        counts[o + 10] = t.trailing_zeros();
        counts[o + 11] = t.count_ones();
        rev32[i * 2] = x.reverse_bits();
        rev32[i * 2 + 1] = s.reverse_bits() as u32;
        rev64[i * 2] = y.reverse_bits();
        rev64[i * 2 + 1] = t.reverse_bits() as u64;
    }
}

#[test]
fn bit_counts_and_reversal_u32_i32_u64_i64() {
    let mut r = Rng::new();
    let (a32, a64) = (words_u32(&mut r, N), words_u64(&mut r, N));
    let out = Launch::new("bit_counts", bit_counts::kernel(), grid_for(N, 128), 128)
        .buf(&a32)
        .buf(&a64)
        .buf(&vec![0u32; 12 * N])
        .buf(&vec![0u32; 2 * N])
        .buf(&vec![0u64; 2 * N])
        .run();
    let (counts, rev32, rev64) = (out.get::<u32>(2), out.get::<u32>(3), out.get::<u64>(4));
    for i in 0..N {
        let (x, y) = (a32[i], a64[i]);
        let (s, t) = (x as i32, y as i64);
        let want = [
            x.leading_zeros(),
            x.trailing_zeros(),
            x.count_ones(),
            s.leading_zeros(),
            s.trailing_zeros(),
            s.count_ones(),
            y.leading_zeros(),
            y.trailing_zeros(),
            y.count_ones(),
            t.leading_zeros(),
            t.trailing_zeros(),
            t.count_ones(),
        ];
        assert_eq!(&counts[i * 12..i * 12 + 12], &want, "element {i}: {x:#x}, {y:#x}");
        assert_eq!(&rev32[i * 2..i * 2 + 2], &[x.reverse_bits(), s.reverse_bits() as u32], "element {i}");
        assert_eq!(&rev64[i * 2..i * 2 + 2], &[y.reverse_bits(), t.reverse_bits() as u64], "element {i}");
    }
}

#[allow(clippy::too_many_arguments)]
#[kernel]
fn bit_casts(
    f: &[f32],
    d: &[f64],
    h: &[f16],
    g: &[bf16],
    fb: &mut [u32],
    db: &mut [u64],
    hb: &mut [u16],
    gb: &mut [u16],
    f2: &mut [f32],
    d2: &mut [f64],
    h2: &mut [f16],
    g2: &mut [bf16],
) {
    let i = global_index();
    if i < f.len() {
        // A plain `from_bits` is a compile-time float.
        let one = f32::from_bits(0x3F80_0000u32);
        let u = f[i].to_bits();
        fb[i] = u;
        f2[i] = f32::from_bits(u ^ 0x8000_0000u32) * one;
        let v = d[i].to_bits();
        db[i] = v;
        d2[i] = f64::from_bits(v ^ (1u64 << 63));
        hb[i] = h[i].to_bits();
        h2[i] = f16::from_bits(h[i].to_bits() ^ 0x8000u16);
        gb[i] = g[i].to_bits();
        g2[i] = Val::<bf16>::from_bits(g[i].to_bits() ^ 0x8000u16);
    }
}

#[test]
fn bit_casts_f32_f64_f16_bf16() {
    let mut r = Rng::new();
    let mut f = r.f32s(N, -1e6, 1e6);
    let mut d = r.f64s(N, -1e300, 1e300);
    let edges32 = [0.0, -0.0, f32::INFINITY, f32::MIN_POSITIVE / 4.0, f32::MAX, 1.0];
    let edges64 = [0.0, -0.0, f64::NEG_INFINITY, f64::MIN_POSITIVE / 4.0, f64::MIN, 1.0];
    f[..edges32.len()].copy_from_slice(&edges32);
    d[..edges64.len()].copy_from_slice(&edges64);
    let h: Vec<f16> = r.f32s(N, -6e4, 6e4).into_iter().map(f16::from_f32).collect();
    let g: Vec<bf16> = r.f32s(N, -1e30, 1e30).into_iter().map(bf16::from_f32).collect();
    let out = Launch::new("bit_casts", bit_casts::kernel(), grid_for(N, 128), 128)
        .buf(&f)
        .buf(&d)
        .buf(&h)
        .buf(&g)
        .buf(&vec![0u32; N])
        .buf(&vec![0u64; N])
        .buf(&vec![0u16; N])
        .buf(&vec![0u16; N])
        .buf(&vec![0f32; N])
        .buf(&vec![0f64; N])
        .buf(&vec![f16::ZERO; N])
        .buf(&vec![bf16::ZERO; N])
        .run();
    let (fb, db, hb, gb) = (out.get::<u32>(4), out.get::<u64>(5), out.get::<u16>(6), out.get::<u16>(7));
    let (f2, d2, h2, g2) = (out.get::<f32>(8), out.get::<f64>(9), out.get::<f16>(10), out.get::<bf16>(11));
    for i in 0..N {
        assert_eq!(fb[i], f[i].to_bits(), "f32 element {i}: {}", f[i]);
        assert_eq!(db[i], d[i].to_bits(), "f64 element {i}: {}", d[i]);
        assert_eq!(hb[i], h[i].to_bits(), "f16 element {i}: {}", h[i]);
        assert_eq!(gb[i], g[i].to_bits(), "bf16 element {i}: {}", g[i]);
        assert_eq!(f2[i].to_bits(), (-f[i]).to_bits(), "f32 from_bits element {i}");
        assert_eq!(d2[i].to_bits(), (-d[i]).to_bits(), "f64 from_bits element {i}");
        assert_eq!(h2[i].to_bits(), (-h[i]).to_bits(), "f16 from_bits element {i}");
        assert_eq!(g2[i].to_bits(), (-g[i]).to_bits(), "bf16 from_bits element {i}");
    }
}

#[kernel]
fn math_f64_wide(e: &[f64], l: &[f64], t: &[f64], out: &mut [f64]) {
    let i = global_index();
    if i < e.len() {
        out[i * 4] = e[i].exp();
        out[i * 4 + 1] = l[i].ln();
        out[i * 4 + 2] = t[i].sin();
        out[i * 4 + 3] = t[i].cos();
    }
}

#[test]
fn f64_exp_ln_sin_cos_to_1e_14_over_wide_ranges() {
    // On NVIDIA these are f64 range reductions and polynomials (not the f32 approximations).
    let mut r = Rng::new();
    let e = r.f64s(N, -700.0, 700.0);
    let l: Vec<f64> = r.f64s(N, -690.0, 690.0).into_iter().map(f64::exp).collect();
    let t = r.f64s(N, -1e4, 1e4);
    let o = Launch::new("math_f64_wide", math_f64_wide::kernel(), grid_for(N, 128), 128)
        .buf(&e)
        .buf(&l)
        .buf(&t)
        .buf(&vec![0f64; N * 4])
        .gpu_tol_exact(1e-14, 1e-300)
        .run()
        .get::<f64>(3);
    for i in 0..N {
        let want = [e[i].exp(), l[i].ln(), t[i].sin(), t[i].cos()];
        check_close("f64 wide-range math", &o[i * 4..i * 4 + 4], &want, 1e-14, 1e-300);
    }
}
