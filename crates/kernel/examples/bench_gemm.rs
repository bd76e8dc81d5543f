//! Tensor-core bf16 GEMM written in the kernel language (`support/gemm.rs`), timed at the sizes
//! given (default 4096 and 8192, cubed) and checked on sampled entries against f64 on the host.
//! `bench/torch_gemm.py` times cuBLAS (through PyTorch) on the same shapes for the comparison.
//!
//!     bench=gemm device=... m=... n=... k=... ms=... tflops=... max_rel_err=...
//!
//!     cargo run --release -p ferrocm-kernel --example bench_gemm [size ...]

use ferrocm_kernel::prelude::*;

#[path = "support/gemm.rs"]
mod gemm;
#[path = "support/timing.rs"]
mod timing;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::default_device()?;
    let stream = device.create_stream()?;
    let gpu = device.kind() != ferrocm_kernel::runtime::BackendKind::Cpu;
    let mut sizes: Vec<usize> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = if gpu { vec![4096, 8192] } else { vec![256] };
    }
    let name = device.properties().name.replace(' ', "_");
    for s in sizes {
        let (m, n, k) = (s, s, s);
        let mut seed = 0x1234_5678u64 ^ s as u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            bf16::from_f32((seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
        };
        let a: Vec<bf16> = (0..m * k).map(|_| rnd()).collect();
        let b: Vec<bf16> = (0..n * k).map(|_| rnd()).collect();
        let (da, db) = (stream.clone_htod(&a)?, stream.clone_htod(&b)?);
        let mut dc = stream.alloc::<f32>(m * n)?;
        let (warmup, reps) = if gpu { (2, 10) } else { (0, 1) };
        let (m32, n32, k32) = (m as u32, n as u32, k as u32);
        let mut best = 0f64;
        for (stages, nt) in [(2u32, 4u32), (3, 4), (2, 8)] {
            if m % 128 != 0 || n % (32 * nt as usize) != 0 || k % 32 != 0 {
                println!("bench=gemm_variant device={name} stages={stages} block_n={} m={m} n={n} k={k} skipped=shape", 32 * nt);
                continue;
            }
            let cfg = gemm::gemm_config(m32, n32, nt);
            let ms = timing::median_ms(&stream, warmup, reps, || {
                let r = match (stages, nt) {
                    (2, 4) => {
                        gemm::gemm_bf16_nt::launch::<2, 4>(&stream, cfg, &da, &db, &mut dc, m32, n32, k32)
                    }
                    (3, 4) => {
                        gemm::gemm_bf16_nt::launch::<3, 4>(&stream, cfg, &da, &db, &mut dc, m32, n32, k32)
                    }
                    _ => gemm::gemm_bf16_nt::launch::<2, 8>(&stream, cfg, &da, &db, &mut dc, m32, n32, k32),
                };
                r.expect("gemm")
            })?;
            let c = stream.clone_dtoh(&dc)?;
            let mut worst = 0f64;
            for t in 0..64 {
                let (i, j) = ((t * 7919) % m, (t * 104_729) % n);
                let want: f64 = (0..k).map(|p| a[i * k + p].to_f64() * b[j * k + p].to_f64()).sum();
                worst = worst.max((c[i * n + j] as f64 - want).abs() / want.abs().max(1.0));
            }
            let tflops = 2.0 * (m * n * k) as f64 / ms / 1e9;
            println!(
                "bench=gemm_variant device={name} stages={stages} block_n={} m={m} n={n} k={k} ms={ms:.4} \
                 tflops={tflops:.1} max_rel_err={worst:.2e}",
                32 * nt
            );
            if worst < 1e-3 {
                best = best.max(tflops);
            }
        }
        // The faster correct variant, in the line `bench/torch_gemm.py` compares with cuBLAS.
        let ms = 2.0 * (m * n * k) as f64 / best / 1e9;
        println!("bench=gemm device={name} m={m} n={n} k={k} ms={ms:.4} tflops={best:.1}");
    }
    Ok(())
}
