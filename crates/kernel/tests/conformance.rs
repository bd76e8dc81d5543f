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
