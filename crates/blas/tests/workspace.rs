//! The handle's workspace limit against what calls really take from the stream-ordered pool.
//!
//! A binary of its own: the pool's cached-byte count is device-wide, so a measure taken while
//! other tests run in the same process would count their memory too (this check once failed so
//! inside the merged `blas` binary). Here the only work in the process is this test's.

mod common;

use common::{fresh_seed, targets, Rng, Target};
use ferrocm_blas::{ComputeType, GemmFamily, MatmulDesc, MatmulType, Operation};
use ferrocm_kernel::runtime::backend::Feature;
use ferrocm_kernel::runtime::BackendKind;
use half::bf16;

/// The Hopper kernel's split-K (the planner's choice for one tile with a long K) takes its
/// partial sums from the pool. A handle's workspace limit bounds that: with a limit of 0 the
/// same product runs unsplit and takes nothing from the pool. The heuristic
/// (`matmul_algorithms`) reports the split's bytes when they fit and 0 when they do not, and
/// every call's product is checked against an f64 host reference.
#[test]
fn split_k_workspace_stays_within_the_handle_limit() {
    let seed = fresh_seed();
    // T, N: A is k x m, B is k x n, both with K contiguous; 1 tile, long K: the planner splits.
    let (m, n, k) = (16usize, 64usize, 2048usize);
    let split = (2 * m * n * 4) as u64; // at least two slices of m x n f32
    let mut ran = false;
    for t in targets() {
        let device = t.stream.device();
        if !(t.executor || (device.kind() != BackendKind::Cpu && device.target().has(Feature::Wgmma))) {
            continue;
        }
        ran = true;
        let mut r = Rng::new(seed);
        let a: Vec<bf16> = (0..k * m).map(|_| bf16::from_f64(r.uniform())).collect();
        let b: Vec<bf16> = (0..k * n).map(|_| bf16::from_f64(r.uniform())).collect();
        let da = t.stream.clone_htod(&a).unwrap();
        let db = t.stream.clone_htod(&b).unwrap();
        let check = |t: &Target, c: &[f32], what: &str| {
            for j in 0..n {
                for i in 0..m {
                    let (mut want, mut mag) = (0.0f64, 0.0f64);
                    for l in 0..k {
                        let p = a[l + i * k].to_f64() * b[l + j * k].to_f64();
                        want += p;
                        mag += p.abs();
                    }
                    let got = c[i + j * m] as f64;
                    assert!(
                        (got - want).abs() <= (k as f64 + 4.0) * f32::EPSILON as f64 * mag,
                        "[{}] seed {seed} {what}: C({i}, {j}) = {got}, want {want}",
                        t.label
                    );
                }
            }
        };
        // The heuristic's view.
        let mut h = t.handle();
        h.set_gemm_family(Some(GemmFamily::Wgmma));
        let desc = MatmulDesc::new(Operation::T, Operation::N, m, n, k, MatmulType::BF16, MatmulType::F32)
            .with_leading_dims(k, k, m);
        let wgmma = |limit: u64| {
            h.matmul_algorithms(&desc, limit).into_iter().find(|a| a.family == GemmFamily::Wgmma)
        };
        let unlimited = wgmma(u64::MAX).unwrap_or_else(|| panic!("[{}] no Wgmma algorithm", t.label));
        assert!(unlimited.workspace_bytes >= split, "[{}] heuristic: {unlimited:?}", t.label);
        let none = wgmma(0).unwrap_or_else(|| panic!("[{}] no Wgmma algorithm within 0 bytes", t.label));
        assert_eq!(none.workspace_bytes, 0, "[{}] heuristic within 0 bytes", t.label);

        // What the calls take: gemm_ex and matmul, each without a limit and with a limit of 0.
        for (via, limit) in [("gemm_ex", None), ("gemm_ex", Some(0)), ("matmul", None), ("matmul", Some(0))] {
            h.set_workspace_limit(limit);
            let mut dc = t.stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
            t.stream.synchronize().unwrap();
            device.trim_pool().unwrap();
            let what = format!("{via}, limit {limit:?}");
            let done = if via == "gemm_ex" {
                h.gemm_ex(
                    Operation::T,
                    Operation::N,
                    m,
                    n,
                    k,
                    1.0f32,
                    &da,
                    k,
                    &db,
                    k,
                    0.0f32,
                    &mut dc,
                    m,
                    ComputeType::F32,
                )
            } else {
                let algo = if limit.is_some() { none } else { unlimited };
                h.matmul::<bf16, f32, f32>(&desc, &algo, 1.0, &da, &db, 0.0, &mut dc, None, None)
            };
            done.unwrap_or_else(|e| panic!("[{}] {what}: {e}", t.label));
            t.stream.synchronize().unwrap();
            // The split's partial sums come from the pool and go back to its cache. A GPU launch
            // takes a little pool memory of its own (1 KiB on the H100), so the unsplit call is
            // told apart by staying under one split's size.
            let pooled = device.pool_cached_bytes();
            match limit {
                None => assert!(
                    pooled >= split,
                    "[{}] {what}: no split-K workspace ({pooled} bytes pooled)",
                    t.label
                ),
                Some(_) => assert!(
                    pooled < split,
                    "[{}] {what}: {pooled} bytes (a split's workspace) taken past a zero workspace limit",
                    t.label
                ),
            }
            check(&t, &t.stream.clone_dtoh(&dc).unwrap(), &what);
        }
    }
    assert!(ran, "no device runs the Hopper kernel (the CPU executor always should)");
}
