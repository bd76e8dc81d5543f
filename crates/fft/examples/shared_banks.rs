//! Shared-memory bank conflicts of the FFT kernels, modelled on the CPU executor (no GPU): plans
//! a transform with the kernel-language engine on the CPU device, prints the plan and runs it
//! forward once; with `FERROCM_CPU_SHARED_BANKS=1` every launch reports the wavefronts per
//! shared load and store its warps would take on a GPU's 32 banks (the executor's model, see
//! `ferrocm_cpu_exec::SharedBankStats`; 1 is conflict-free for 4-byte accesses, 2 for 8-byte
//! ones, 4 for 16-byte ones). The access pattern of a block does not depend on the batch, so a
//! small batch shows what the benchmark's shapes do, as long as the plan is the same (compare
//! `describe` with the GPU's):
//!
//! ```text
//! FERROCM_CPU_SHARED_BANKS=1 cargo run --release -p ferrocm-fft --example shared_banks -- c2c 1000 64
//! FERROCM_CPU_SHARED_BANKS=1 cargo run --release -p ferrocm-fft --example shared_banks -- c2c 4096x4096 1
//! ```
//!
//! Arguments: `c2c` or `r2c` (f32), the lengths joined by `x` (slowest first), the batch.

use ferrocm_fft::{Complex, Direction, Engine, PlanBuilder, TransformType};
use ferrocm_kernel::runtime::{BackendKind, Device};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, dims, batch] = args.as_slice() else {
        return Err("usage: shared_banks c2c|r2c LENGTHS (such as 1000 or 4096x4096) BATCH".into());
    };
    let kind = match kind.as_str() {
        "c2c" => TransformType::C2C,
        "r2c" => TransformType::R2C,
        other => return Err(format!("transform `{other}`: give c2c or r2c").into()),
    };
    let n = dims
        .split('x')
        .map(|d| d.parse::<usize>().map_err(|e| format!("length `{d}`: {e}")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let batch: usize = batch.parse().map_err(|e| format!("batch `{batch}`: {e}"))?;
    if std::env::var_os(ferrocm_cpu_exec::BANKS_VAR).is_none() {
        eprintln!("note: {} is not set, so the launches report nothing", ferrocm_cpu_exec::BANKS_VAR);
    }
    let device = Device::of_kind(BackendKind::Cpu).into_iter().next().ok_or("no CPU device")?;
    let stream = device.create_stream()?;
    let plan = PlanBuilder::new(kind, &n).batch(batch).engine(Engine::Kernels).build::<f32>(&stream)?;
    println!("{}", plan.describe());
    let total: usize = n.iter().product::<usize>() * batch;
    // Any data will do: the access pattern does not depend on the values.
    match kind {
        TransformType::R2C => {
            let x = stream.clone_htod(&(0..total).map(|i| (i % 7) as f32).collect::<Vec<_>>())?;
            let inner = n[n.len() - 1] / 2 + 1;
            let mut y = stream.alloc::<Complex<f32>>(total / n[n.len() - 1] * inner)?;
            plan.exec_r2c(&x, &mut y)?;
        }
        _ => {
            let x = stream
                .clone_htod(&(0..total).map(|i| Complex::new((i % 7) as f32, 0.5)).collect::<Vec<_>>())?;
            let mut y = stream.alloc::<Complex<f32>>(total)?;
            plan.exec_c2c(&x, &mut y, Direction::Forward)?;
        }
    }
    stream.synchronize()?;
    Ok(())
}
