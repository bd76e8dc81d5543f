//! Compile time: building the IR and generating PTX for the GEMM and for SAXPY (fresh, not
//! from the cache), and the driver JIT time to load the PTX where a GPU is visible.
//!
//!     bench=compile kernel=gemm stage=ir_build us=...
//!     bench=compile kernel=gemm stage=ptx_codegen us=... ptx_bytes=...
//!     bench=compile kernel=gemm stage=driver_jit us=... arch=sm_90
//!
//!     cargo run --release -p ferrocm-kernel --example bench_compile

use std::time::Instant;

use ferrocm_kernel::prelude::*;
use ferrocm_kernel::runtime::{BackendKind, ModuleImage};

#[path = "support/gemm.rs"]
mod gemm;

#[kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = global_index();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

fn median_us(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    t[reps / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpus = Device::of_kind(BackendKind::Cuda);
    let target =
        gpus.first().map(|d| d.target().clone()).unwrap_or_else(|| ferrocm_ptx::target_for_arch("sm_90a"));
    let arch = target.arch.clone();
    let kernels: [(&str, &dyn Fn() -> ferrocm_kernel::ir::Function); 2] = [
        ("gemm", &|| gemm::gemm_bf16_nt::build::<3, 4>().expect("gemm builds")),
        ("saxpy", &|| saxpy::build().expect("saxpy builds")),
    ];
    for (name, build) in kernels {
        let ir_us = median_us(11, || {
            build();
        });
        let f = build();
        let ptx_us = median_us(11, || {
            ferrocm_ptx::generate(&f, &target).expect("ptx");
        });
        let ptx = ferrocm_ptx::generate(&f, &target)?;
        let insts = {
            let mut n = 0;
            f.walk(&mut |_| n += 1);
            n
        };
        println!("bench=compile kernel={name} stage=ir_build us={ir_us:.1} ir_insts={insts}");
        println!("bench=compile kernel={name} stage=ptx_codegen us={ptx_us:.1} ptx_bytes={}", ptx.len());
        if let Some(gpu) = gpus.first() {
            let first = Instant::now();
            gpu.load_module(ModuleImage::Ptx(ptx.clone()))?;
            let first_us = first.elapsed().as_secs_f64() * 1e6;
            println!("bench=compile kernel={name} stage=driver_jit_first us={first_us:.1} arch={arch}");
            // Later loads of the same text (the driver may serve these from its JIT cache).
            let jit_us = median_us(5, || {
                gpu.load_module(ModuleImage::Ptx(ptx.clone())).expect("driver JIT");
            });
            println!("bench=compile kernel={name} stage=driver_jit us={jit_us:.1} arch={arch}");
        }
    }
    Ok(())
}
