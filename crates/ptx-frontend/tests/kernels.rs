//! Kernels compiled by clang-19 from `data/kernels.hip` (with ferrocm's HIP headers), run on the
//! CPU executor through the PTX front end and checked against host computations.

// Element loops index several buffers by one index, as the kernels do.
#![allow(clippy::needless_range_loop)]

use std::sync::{Arc, Mutex, OnceLock};

use ferrocm_backend::{CpuModule, Dim3, LaunchDims};
use ferrocm_cpu_exec::HostEnv;
use ferrocm_ptx_frontend::{CpuPtxModule, PtxModule};

/// The allocations the kernels may touch (the test's buffers) and their printf output.
#[derive(Default)]
struct Host {
    ranges: Mutex<Vec<(u64, u64)>>,
    printed: Mutex<Vec<u8>>,
}

impl HostEnv for Host {
    fn global_range(&self, addr: u64) -> Option<(u64, u64)> {
        self.ranges.lock().unwrap().iter().copied().find(|&(b, n)| addr >= b && addr - b < n)
    }
    fn print(&self, text: &[u8]) {
        self.printed.lock().unwrap().extend_from_slice(text);
    }
}

struct Fixture {
    host: Arc<Host>,
    module: Arc<CpuPtxModule>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let host = Arc::new(Host::default());
        let m = PtxModule::parse(include_str!("data/kernels.ptx")).expect("clang's PTX parses");
        let module = m.load_cpu(host.clone()).expect("the module loads");
        Fixture { host, module }
    })
}

/// A device buffer: host memory the kernels may reach (through the pointer taken from a
/// mutable borrow when it was made; the test reads it after each launch).
struct Buf<T>(Vec<T>, u64);

impl<T: Copy> Buf<T> {
    fn new(mut v: Vec<T>) -> Buf<T> {
        let at = v.as_mut_ptr() as u64;
        let bytes = (v.len() * std::mem::size_of::<T>()).max(1) as u64;
        fixture().host.ranges.lock().unwrap().push((at, bytes));
        Buf(v, at)
    }
    fn arg(&self) -> [u8; 8] {
        self.1.to_le_bytes()
    }
}

impl<T> Drop for Buf<T> {
    fn drop(&mut self) {
        let a = self.1;
        fixture().host.ranges.lock().unwrap().retain(|r| r.0 != a);
    }
}

fn launch(name: &str, grid: (u32, u32), block: (u32, u32), smem: u32, args: &[&[u8]]) -> Result<(), String> {
    let k = fixture().module.function(name).unwrap_or_else(|| panic!("no kernel {name}"));
    let dims = LaunchDims::new(Dim3::new(grid.0, grid.1, 1), Dim3::new(block.0, block.1, 1), smem);
    // SAFETY: a translated PTX kernel trusts no argument as an address (its accesses are checked
    // against the host's allocations).
    unsafe { k.launch(dims, args) }
}

/// xorshift test data.
struct Rng(u64);
impl Rng {
    fn u32(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    fn f32(&mut self) -> f32 {
        (self.u32() >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    }
}

#[test]
fn every_kernel_of_the_module_translates() {
    let m = PtxModule::parse(include_str!("data/kernels.ptx")).unwrap();
    for k in m.kernels() {
        assert_eq!(fixture().module.kernel_error(&k.name), None, "{}", k.name);
    }
}

#[test]
fn vector_add_covers_a_ragged_last_block() {
    let mut r = Rng(1);
    for n in [1usize, 255, 256, 257, 1000] {
        let a = Buf::new((0..n).map(|_| r.f32()).collect());
        let b = Buf::new((0..n).map(|_| r.f32()).collect());
        let c = Buf::new(vec![f32::NAN; n + 1]);
        launch(
            "vector_add",
            (n.div_ceil(256) as u32, 1),
            (256, 1),
            0,
            &[&a.arg(), &b.arg(), &c.arg(), &(n as i32).to_le_bytes()],
        )
        .unwrap();
        for i in 0..n {
            assert_eq!(c.0[i], a.0[i] + b.0[i], "n={n} i={i}");
        }
        assert!(c.0[n].is_nan(), "nothing past n is written");
    }
}

#[test]
fn grid_stride_saxpy() {
    let n = 5000;
    let mut r = Rng(2);
    let x = Buf::new((0..n).map(|_| r.f32()).collect::<Vec<f32>>());
    let y0: Vec<f32> = (0..n).map(|_| r.f32()).collect();
    let y = Buf::new(y0.clone());
    launch(
        "saxpy_loop",
        (3, 1),
        (128, 1),
        0,
        &[&(n as i32).to_le_bytes(), &1.5f32.to_le_bytes(), &x.arg(), &y.arg()],
    )
    .unwrap();
    for i in 0..n {
        assert_eq!(y.0[i], 1.5f32.mul_add(x.0[i], y0[i]), "i={i}");
    }
}

#[test]
fn block_sum_with_shuffles_and_shared_memory() {
    let mut r = Rng(3);
    for (n, block) in [(1000usize, 256u32), (77, 64), (4096, 1024), (96, 96)] {
        let data: Vec<f32> = (0..n).map(|_| (r.u32() % 100) as f32).collect();
        let grid = n.div_ceil(block as usize);
        let input = Buf::new(data.clone());
        let out = Buf::new(vec![0f32; grid]);
        launch(
            "block_sum",
            (grid as u32, 1),
            (block, 1),
            0,
            &[&input.arg(), &out.arg(), &(n as i32).to_le_bytes()],
        )
        .unwrap();
        for g in 0..grid {
            let want: f32 = data[g * block as usize..((g + 1) * block as usize).min(n)].iter().sum();
            assert_eq!(out.0[g], want, "n={n} block={block} g={g}");
        }
    }
}

#[test]
fn tiled_matmul_matches_a_float64_reference() {
    let mut r = Rng(4);
    for (m, n, k) in [(16, 16, 16), (33, 17, 50), (64, 40, 31)] {
        let a: Vec<f32> = (0..m * k).map(|_| r.f32()).collect();
        let b: Vec<f32> = (0..k * n).map(|_| r.f32()).collect();
        let (ab, bb, cb) = (Buf::new(a.clone()), Buf::new(b.clone()), Buf::new(vec![0f32; m * n]));
        let grid = (n.div_ceil(16) as u32, m.div_ceil(16) as u32);
        let d = |v: usize| (v as i32).to_le_bytes();
        launch("matmul", grid, (16, 16), 0, &[&ab.arg(), &bb.arg(), &cb.arg(), &d(m), &d(n), &d(k)]).unwrap();
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..k).map(|p| a[i * k + p] as f64 * b[p * n + j] as f64).sum();
                assert!((cb.0[i * n + j] as f64 - want).abs() < 1e-4, "({m},{n},{k}) [{i},{j}]");
            }
        }
    }
}

#[test]
fn histogram_with_shared_and_global_atomics() {
    let n: i32 = 20000;
    let mut r = Rng(5);
    let data: Vec<u8> = (0..n).map(|_| (r.u32() % 251) as u8).collect();
    let mut want = vec![0u32; 256];
    for &v in &data {
        want[v as usize] += 1;
    }
    let db = Buf::new(data);
    let bins = Buf::new(vec![0u32; 256]);
    launch("histogram", (7, 1), (192, 1), 0, &[&db.arg(), &n.to_le_bytes(), &bins.arg()]).unwrap();
    assert_eq!(bins.0, want);
}

#[test]
fn libclc_math_matches_the_host_library() {
    let n = 300;
    let mut r = Rng(6);
    let x: Vec<f32> = (0..n).map(|i| if i < 4 { [0.0, -0.0, 1.0, -3.0][i] } else { r.f32() * 8.0 }).collect();
    let xd: Vec<f64> = x.iter().map(|&v| v as f64 * 1.25).collect();
    let (xb, out, xdb, outd) =
        (Buf::new(x.clone()), Buf::new(vec![0f32; 8 * n]), Buf::new(xd.clone()), Buf::new(vec![0f64; 4 * n]));
    launch(
        "math_funcs",
        (2, 1),
        (256, 1),
        0,
        &[&xb.arg(), &out.arg(), &xdb.arg(), &outd.arg(), &(n as i32).to_le_bytes()],
    )
    .unwrap();
    let ulp = |a: f32, b: f64| (a as f64 - b).abs() / (b.abs().max(1e-30) * f32::EPSILON as f64);
    for i in 0..n {
        let v = x[i] as f64;
        let want = [
            v.sin(),
            v.exp(),
            (v.abs() + 1.0).ln(),
            v.abs().powf(1.5),
            v.tanh(),
            v.abs().sqrt(),
            v.atan2(0.5),
            libm_erf(v),
        ];
        for (k, w) in want.iter().enumerate() {
            let got = out.0[8 * i + k];
            assert!(
                ulp(got, *w) <= 4.0 || (got as f64 - w).abs() < 1e-6,
                "fn {k} x={} got {got} want {w}",
                x[i]
            );
        }
        let d = xd[i];
        let wd = [d.sin(), d.exp(), (d.abs() + 1.0).ln(), d.cos()];
        for (k, w) in wd.iter().enumerate() {
            let got = outd.0[4 * i + k];
            assert!(
                (got - w).abs() <= 4.0 * f64::EPSILON * w.abs().max(1e-300) || (got - w).abs() < 1e-15,
                "dfn {k} x={d} got {got} want {w}"
            );
        }
    }
}

/// erf in f64: its Maclaurin series below 2.5, else 1 - erfc by erfc's continued fraction.
fn libm_erf(x: f64) -> f64 {
    if x.abs() >= 2.5 {
        let a = x.abs();
        let mut t = a;
        for k in (1..=80).rev() {
            t = a + (k as f64 / 2.0) / t;
        }
        let erfc = (-a * a).exp() / std::f64::consts::PI.sqrt() / t;
        return x.signum() * (1.0 - erfc);
    }
    // erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
    let mut sum = 0.0;
    let mut term = x;
    let mut n = 0.0f64;
    loop {
        let add = term / (2.0 * n + 1.0);
        sum += add;
        if add.abs() < 1e-17 * sum.abs() || n > 400.0 {
            break;
        }
        n += 1.0;
        term *= -x * x / n;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

#[test]
fn constant_and_device_variables_live_in_the_module() {
    let n = 100;
    let x = Buf::new((0..n).map(|i| i as f32 * 0.1 - 3.0).collect::<Vec<f32>>());
    let y = Buf::new(vec![0f32; n]);
    let (launches, size) = fixture().module.global("launches").expect("the __device__ variable is visible");
    assert_eq!(size, 4);
    let before = unsafe { std::ptr::read_volatile(launches as *const i32) };
    launch("polynomial", (1, 1), (128, 1), 0, &[&x.arg(), &y.arg(), &(n as i32).to_le_bytes()]).unwrap();
    let after = unsafe { std::ptr::read_volatile(launches as *const i32) };
    assert_eq!(after, before + 1);
    for i in 0..n {
        let v = x.0[i];
        let want = ((0.25f32 * v + 2.0) * v + -1.0) * v + 0.5;
        assert!((y.0[i] - want).abs() <= 1e-5 * want.abs().max(1.0), "i={i}");
    }
}

#[test]
fn dynamic_shared_memory_is_sized_at_launch() {
    let n: i32 = 200;
    let d = Buf::new((0..n).collect::<Vec<i32>>());
    launch("dynamic_reverse", (1, 1), (256, 1), (n * 4) as u32, &[&d.arg(), &(n).to_le_bytes()]).unwrap();
    assert_eq!(d.0, (0..n).rev().collect::<Vec<_>>());
    // Too little dynamic shared memory: an error, not a stray write.
    let d = Buf::new((0..n).collect::<Vec<i32>>());
    let e = launch("dynamic_reverse", (1, 1), (256, 1), 64, &[&d.arg(), &(n).to_le_bytes()]).unwrap_err();
    assert!(e.contains("shared"), "{e}");
}

#[test]
fn printf_prints_every_thread() {
    fixture().host.printed.lock().unwrap().clear();
    launch("hello", (2, 1), (3, 1), 0, &[&7i32.to_le_bytes()]).unwrap();
    let text = String::from_utf8(std::mem::take(&mut *fixture().host.printed.lock().unwrap())).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    let mut want = Vec::new();
    for b in 0..2 {
        for t in 0..3 {
            want.push(format!("block {b} thread {t} tag 7 ok {:.3}", 0.5 * t as f64));
        }
    }
    assert_eq!(lines, want);
}

#[test]
fn a_failed_assert_is_an_error_naming_the_condition() {
    let v = Buf::new(vec![1, 2, -3, 4]);
    let e = launch("checked", (1, 1), (32, 1), 0, &[&v.arg(), &4i32.to_le_bytes()]).unwrap_err();
    assert!(e.contains("v[i] >= 0") && e.contains("kernels.hip"), "{e}");
    let v = Buf::new(vec![1, 2, 3, 4]);
    launch("checked", (1, 1), (32, 1), 0, &[&v.arg(), &4i32.to_le_bytes()]).unwrap();
}

#[test]
fn a_struct_parameter_passes_by_value() {
    // struct Params { float scale; int offset; double bias; char tag; } (24 bytes)
    let mut p = Vec::new();
    p.extend_from_slice(&2.5f32.to_le_bytes());
    p.extend_from_slice(&(-4i32).to_le_bytes());
    p.extend_from_slice(&0.125f64.to_le_bytes());
    p.extend_from_slice(&[7u8, 0, 0, 0, 0, 0, 0, 0]);
    let n = 50;
    let input = Buf::new((0..n as i32).map(|i| i * 3).collect::<Vec<i32>>());
    let out = Buf::new(vec![0f64; n]);
    launch("by_value", (1, 1), (64, 1), 0, &[&p, &input.arg(), &out.arg(), &(n as i32).to_le_bytes()])
        .unwrap();
    for i in 0..n {
        let want = (2.5f32 * (input.0[i] - 4) as f32) as f64 + 0.125 + 7.0;
        assert_eq!(out.0[i], want, "i={i}");
    }
}

#[test]
fn ballot_any_and_all_per_warp() {
    let mut r = Rng(7);
    let n = 128;
    let v: Vec<i32> = (0..n).map(|i| if i < 32 { 5 } else { (r.u32() % 300) as i32 - 100 }).collect();
    let input = Buf::new(v.clone());
    let (ballots, anys, alls) = (Buf::new(vec![0u32; 4]), Buf::new(vec![0i32; 4]), Buf::new(vec![0i32; 4]));
    launch("ballot_votes", (2, 1), (64, 1), 0, &[&input.arg(), &ballots.arg(), &anys.arg(), &alls.arg()])
        .unwrap();
    for w in 0..4 {
        let lanes = &v[w * 32..w * 32 + 32];
        let ballot = lanes.iter().enumerate().fold(0u32, |acc, (l, &x)| acc | ((x > 0) as u32) << l);
        assert_eq!(ballots.0[w], ballot, "warp {w}");
        assert_eq!(anys.0[w] != 0, lanes.iter().any(|&x| x > 100), "warp {w}");
        assert_eq!(alls.0[w] != 0, lanes.iter().all(|&x| x >= 0), "warp {w}");
    }
}

#[test]
fn a_dynamically_indexed_local_array() {
    let n = 70;
    let input: Vec<f64> = (0..5 * n).map(|i| (i as f64).sqrt()).collect();
    let ib = Buf::new(input.clone());
    let ob = Buf::new(vec![0f64; n]);
    launch("local_array", (1, 1), (96, 1), 0, &[&ib.arg(), &ob.arg(), &(n as i32).to_le_bytes()]).unwrap();
    for i in 0..n {
        let mut s = 0.0;
        // clang contracts `s += a * b` into one fma, as CUDA compilers do by default.
        for k in (0..5).rev() {
            s = input[i + k * n].mul_add((k + 1) as f64, s);
        }
        assert_eq!(ob.0[i], s, "i={i}");
    }
}

#[test]
fn integer_intrinsics() {
    let mut r = Rng(8);
    let n = 200;
    let v: Vec<u32> = (0..n).map(|i| if i < 3 { [0, 1, u32::MAX][i] } else { r.u32() }).collect();
    let ib = Buf::new(v.clone());
    let ob = Buf::new(vec![0u32; 8 * n]);
    launch("integer_ops", (1, 1), (256, 1), 0, &[&ib.arg(), &ob.arg(), &(n as i32).to_le_bytes()]).unwrap();
    let byte_perm = |x: u32, y: u32, s: u32| {
        let v = ((y as u64) << 32) | x as u64;
        (0..4).fold(0u32, |acc, i| acc | (((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) as u32) << (8 * i))
    };
    for i in 0..n {
        let x = v[i];
        let want = [
            x.count_ones(),
            x.leading_zeros(),
            x.reverse_bits(),
            if x == 0 { 0 } else { x.trailing_zeros() + 1 },
            byte_perm(x, 0x01234567, 0x5140),
            (x >> 7) & 0x3ff,
            ((x as i32).wrapping_div(7) as u32) ^ (x % 13),
            ((x as u64 * 0x9e3779b9) >> 32) as u32 + ((x as u64 * x as u64) >> 40) as u32,
        ];
        assert_eq!(&ob.0[8 * i..8 * i + 8], &want, "x={x:#x}");
    }
}

#[test]
fn an_out_of_bounds_access_is_an_error_and_writes_nothing_past_the_buffer() {
    let n = 64;
    let a = Buf::new(vec![1f32; n]);
    let b = Buf::new(vec![2f32; n]);
    let c = Buf::new(vec![0f32; n]);
    // The kernel believes there are 65 elements.
    let e = launch("vector_add", (1, 1), (128, 1), 0, &[&a.arg(), &b.arg(), &c.arg(), &65i32.to_le_bytes()])
        .unwrap_err();
    assert!(e.contains("illegal address"), "{e}");
}
