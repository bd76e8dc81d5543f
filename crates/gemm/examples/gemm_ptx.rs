//! Writes the PTX of the planner's Hopper kernels to a directory, for reading the compiler's
//! output with `ptxas -arch=sm_90a -v` and `cuobjdump -sass` (see NOTES.md).
//!
//!     cargo run -p ferrocm-gemm --example gemm_ptx -- OUT_DIR [DRIVER_VERSION]

use ferrocm_gemm::sm90::{gemm_sm90, gemm_sm90_tma, reduce_split_k, Config};
use ferrocm_kernel::dsl::MmaType;
use ferrocm_kernel::{bf16, Target};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().ok_or("usage: gemm_ptx OUT_DIR [DRIVER_VERSION]")?);
    let driver: u32 = args.next().map(|v| v.parse()).transpose()?.unwrap_or(13000);
    std::fs::create_dir_all(&dir)?;
    let target = Target::nvidia((9, 0), driver);
    // bf16 in every layout; 8-bit and tf32 inputs (K-major only) in tile widths the planner may pick;
    // each with the register epilogue and with the shared-memory + TMA-store one (whose C
    // buffers take a stage of the 128 x 256 and 128 x 192 rings: NOTES.md, gemm5).
    let mut shapes = Vec::new();
    for (bn, stages, tma) in [(256, 4, false), (256, 3, true), (128, 6, false), (128, 6, true)] {
        for (ak, bk) in [(true, true), (true, false), (false, true), (false, false)] {
            shapes.push((MmaType::BF16, bn, stages, ak, bk, tma, false, false));
        }
    }
    // The batched kernels (rank-3 tensor maps, (product, tile) work items): the strided-batched
    // bf16 GEMMs' shapes, NN (BLAS's column-major C) and TN.
    for (bn, stages, tma) in [(256, 3, true), (256, 4, false)] {
        for (ak, bk) in [(false, false), (true, false)] {
            shapes.push((MmaType::BF16, bn, stages, ak, bk, tma, true, false));
        }
    }
    // Split-K (f32 partial sums into a workspace, register epilogue): the decode shape's kernel
    // (BLAS's column-major C makes it TN with n 16: the 128-wide tile).
    shapes.push((MmaType::BF16, 128, 6, true, false, false, true, true));
    for (bn, stages, tma) in [(192, 5, false), (192, 4, true), (128, 6, false), (128, 6, true)] {
        shapes.push((MmaType::E4M3, bn, stages, true, true, tma, false, false));
    }
    // tf32 (K-major only) into an f32 C: the register epilogue.
    for (bn, stages) in [(256, 4), (128, 6)] {
        shapes.push((MmaType::TF32, bn, stages, true, true, false, false, false));
    }
    for (input, bn, stages, ak, bk, tma, batched, split_k) in shapes {
        {
            let cfg = Config {
                input,
                bn,
                stages,
                a_k_major: ak,
                b_k_major: bk,
                group_m: 8,
                cluster_m: 1,
                pair_stores: !tma,
                tma_store: tma,
                batched,
                split_k,
            };
            let t = std::time::Instant::now();
            let k = if tma {
                gemm_sm90_tma::kernel::<bf16>(cfg)?
            } else if split_k || input == MmaType::TF32 {
                gemm_sm90::kernel::<f32>(cfg)?
            } else {
                gemm_sm90::kernel::<bf16>(cfg)?
            };
            let built = t.elapsed();
            let t = std::time::Instant::now();
            let ptx = k.ptx_for(&target)?;
            let name = format!(
                "gemm_{}_bn{bn}_s{stages}_{}{}{}{}{}.ptx",
                format!("{input:?}").to_lowercase(),
                if ak { 'T' } else { 'N' },
                if bk { 'T' } else { 'N' },
                if tma { "_tma" } else { "" },
                if batched { "_batched" } else { "" },
                if split_k { "_splitk" } else { "" }
            );
            println!("{name}: IR built in {built:?}, PTX in {:?}", t.elapsed());
            std::fs::write(dir.join(name), ptx.as_bytes())?;
        }
    }
    let ptx = reduce_split_k::kernel::<bf16>()?.ptx_for(&target)?;
    std::fs::write(dir.join("reduce_split_k_bf16.ptx"), ptx.as_bytes())?;
    Ok(())
}
