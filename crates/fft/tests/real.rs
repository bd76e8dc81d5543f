//! Real transforms (R2C forward, C2R inverse) on every backend, checked like `c2c.rs`: every
//! length 1..=4096 on the rustfft engine and GPUs (even lengths run the half-length complex
//! FFT, odd ones a full one), a sampled set on the CPU executor, long and prime lengths, and
//! multi-dimensional real transforms.

use crate::common::runner::{run, Spec};
use crate::common::{Backend, Rng, TestResult};
use ferrocm_fft::Layout;
use ferrocm_fft::TransformType::{C2R, R2C};

fn lengths(b: &Backend) -> Vec<usize> {
    if b.is_executor() {
        let mut v: Vec<usize> = (1..=34).collect();
        v.extend([
            63,
            64,
            65,
            100,
            127,
            128,
            255,
            256,
            1000,
            1021,
            2042,
            4096,
            4097,
            8192,
            16384,
            32768,
            2 * 4099,
            1 << 17,
        ]);
        v
    } else {
        (1..=4096).collect()
    }
}

fn each(items: &[usize], f: impl Fn(usize, &mut Rng) -> Result<(), String> + Sync) -> TestResult {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(16);
    let errors = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..threads {
            let (f, errors) = (&f, &errors);
            s.spawn(move || {
                let mut rng = Rng::new();
                for (i, &n) in items.iter().enumerate().skip(t).step_by(threads) {
                    if let Err(e) = f(n, &mut rng) {
                        errors.lock().unwrap().push(e);
                    }
                    if i % 512 == 0 && i > 0 {
                        eprintln!("progress: {i} of {} sizes", items.len());
                    }
                }
            });
        }
    });
    let errors = errors.into_inner().unwrap();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{} failures, first: {}", errors.len(), errors[0]).into())
    }
}

fft_conformance! {
    every_length_to_4096_f32(b) {
        // On GPUs, R2C for even lengths and C2R for odd ones (each plan compiles its kernels).
        each(&lengths(b), |n, rng| {
            if !b.is_gpu() || n % 2 == 0 {
                run::<f32>(b, &Spec::real(R2C, &[n], 1 + n % 2), rng)?;
            }
            if !b.is_gpu() || n % 2 == 1 {
                run::<f32>(b, &Spec::real(C2R, &[n], 1 + n % 2), rng)?;
            }
            Ok(())
        })
    }

    sampled_f64(b) {
        let ls = [1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 17, 30, 64, 97, 100, 128, 1000, 1021, 2048, 4096, 8192, 2 * 4099];
        each(&ls, |n, rng| {
            run::<f64>(b, &Spec::real(R2C, &[n], 2), rng)?;
            run::<f64>(b, &Spec::real(C2R, &[n], 1), rng)
        })
    }

    long_and_prime(b) {
        let ls: Vec<usize> = if b.is_executor() {
            vec![1 << 15, 3 * 8191]
        } else {
            let mut v = vec![1 << 15, 1 << 16, 1 << 18, 3 * 8191, 99991, 2 * 99991, 65537, 59049, 100000];
            if b.is_gpu() {
                v.extend([1 << 22, 1 << 24, 1 << 26]);
            }
            v
        };
        each(&ls, |n, rng| {
            run::<f32>(b, &Spec::real(R2C, &[n], 1), rng)?;
            run::<f32>(b, &Spec::real(C2R, &[n], 1), rng)
        })
    }

    multi_dimensional(b) {
        let shapes: Vec<Vec<usize>> = if b.is_executor() {
            vec![vec![8, 6], vec![5, 7], vec![16, 17], vec![4, 6, 10], vec![3, 5, 9], vec![64, 64]]
        } else {
            vec![vec![8, 6], vec![5, 7], vec![16, 17], vec![4, 6, 10], vec![3, 5, 9], vec![64, 64], vec![128, 100], vec![33, 65, 12], vec![256, 512], vec![5000, 4], vec![4, 5000]]
        };
        let mut rng = Rng::new();
        for s in &shapes {
            run::<f32>(b, &Spec::real(R2C, s, 2), &mut rng)?;
            run::<f32>(b, &Spec::real(C2R, s, 2), &mut rng)?;
            run::<f64>(b, &Spec::real(R2C, s, 1), &mut rng)?;
            run::<f64>(b, &Spec::real(C2R, s, 1), &mut rng)?;
        }
        Ok(())
    }

    fused_unfold(b) {
        // Even lengths past one block (half length h above 16384): two four-step passes, the
        // unfold in the second one's store, whose blocks hold mirrored transforms k1 and
        // n1 - k1 (h = 2^15 = 128 x 256: 8 pairs per block; 2^16 = 256 x 256; 17496 =
        // 108 x 162: 2 pairs; 20250 = 150 x 135: 1 pair, n1 / 2 odd), next to h = 2^14 (one
        // block). Batched, strided and padded in-place layouts, and the C2R of each length; on
        // GPUs also long powers of two (2^25 = 8192 x 4096, 2^26 = 8192 x 8192: 1 pair).
        let mut halves = vec![1 << 14, 1 << 15, 1 << 16, 17496, 20250];
        if b.is_gpu() {
            halves.extend([3 << 14, 1 << 19, 1 << 21, 1 << 23, 1 << 24, 1 << 25, 1 << 26]);
        }
        let mut rng = Rng::new();
        for &h in &halves {
            let n = 2 * h;
            let batch = if h <= 1 << 21 { 3 } else { 1 };
            run::<f32>(b, &Spec::real(R2C, &[n], batch), &mut rng)?;
            run::<f32>(b, &Spec::real(C2R, &[n], batch), &mut rng)?;
            if h > 1 << 21 {
                continue;
            }
            // Output stride 2 with gaps between batches.
            let out = Layout::new(&[h + 1], 2, 2 * (h + 1) + 5);
            run::<f32>(b, &Spec::real(R2C, &[n], 2).layouts(Layout::packed(), out), &mut rng)?;
            // In place, rows of 2 (n/2 + 1) reals.
            let (real, cx) = (Layout::new(&[n + 2], 1, n + 2), Layout::new(&[h + 1], 1, h + 1));
            run::<f32>(b, &Spec::real(R2C, &[n], 2).layouts(real, cx).in_place(), &mut rng)?;
            if h <= 1 << 16 {
                run::<f64>(b, &Spec::real(R2C, &[n], 2), &mut rng)?;
            }
        }
        Ok(())
    }

    three_pass_real(b) {
        // Even lengths whose half-length complex FFT is planned as three passes. R2C of 2^24 (x2
        // batched) and 2^26: the first pass of the two-pass chain split in two (see
        // `Planner::chain_split`), the unfold fused into the last pass; 2 * 3^14 (an odd half
        // length: no mirrored pairs) unfolds in a pointwise step after three passes. C2R of 2^25
        // and 2^26 fold in the first pass's reads.
        let mut rng = Rng::new();
        if !b.runs_kernels() {
            return Ok(run::<f32>(b, &Spec::real(R2C, &[2 * 4_782_969], 1), &mut rng)?);
        }
        run::<f32>(b, &Spec::real(R2C, &[1 << 24], 2), &mut rng)?;
        run::<f32>(b, &Spec::real(R2C, &[2 * 4_782_969], 1), &mut rng)?;
        run::<f32>(b, &Spec::real(C2R, &[1 << 25], 1), &mut rng)?;
        if b.is_gpu() {
            run::<f32>(b, &Spec::real(R2C, &[1 << 26], 1), &mut rng)?;
            run::<f32>(b, &Spec::real(C2R, &[1 << 26], 1), &mut rng)?;
            run::<f64>(b, &Spec::real(R2C, &[1 << 25], 1), &mut rng)?;
        }
        Ok(())
    }

    row_pairs(b) {
        // Multi-dimensional R2C whose second-last axis n0 lies in (tile / 4, tile / 2] (tile =
        // 16384 complex in f32, 8192 in f64): the first pass takes rows r and r + n0 / 2 and
        // does that axis's radix-2 step, the column pass runs n0 / 2 over every other row
        // (n0 = 6144 and 8192 around the upper bound, 5000: n0 / 2 = 2500, and a 3D shape), with
        // batches, an embedded input, and in place. The other side of each bound plans the
        // plain way; f64 crosses its own bounds at half the sizes.
        let mut rng = Rng::new();
        // [8192, 40] and [4096, 40] (21 columns) run the column pass as thread-block clusters
        // where the device has them (f32 and f64 respectively: see `Cluster`).
        // The rustfft engine has no passes to pair: one shape, then the layouts below.
        let shapes: Vec<Vec<usize>> = if !b.runs_kernels() {
            vec![vec![6144, 4]]
        } else {
            vec![
                vec![6144, 4],
                vec![8192, 2],
                vec![5000, 6],
                vec![3, 4098, 4],
                vec![4096, 6],
                vec![8194, 4],
                vec![8192, 40],
                vec![4096, 40],
            ]
        };
        for s in &shapes {
            run::<f32>(b, &Spec::real(R2C, s, 2), &mut rng)?;
            run::<f64>(b, &Spec::real(R2C, s, 1), &mut rng)?;
        }
        let n = [6144usize, 6];
        let embed = Layout::new(&[6144, 9], 1, 6144 * 9 + 3);
        run::<f32>(b, &Spec::real(R2C, &n, 2).layouts(embed, Layout::packed()), &mut rng)?;
        let (real, cx) = (Layout::new(&[6144, 8], 1, 6144 * 8), Layout::new(&[6144, 4], 1, 6144 * 4));
        run::<f32>(b, &Spec::real(R2C, &n, 2).layouts(real, cx).in_place(), &mut rng)?;
        if b.is_gpu() {
            for s in [vec![8192, 1000], vec![6000, 64], vec![2, 5000, 30]] {
                run::<f32>(b, &Spec::real(R2C, &s, 1), &mut rng)?;
            }
        }
        if b.is_gpu() {
            run::<f32>(b, &Spec::real(R2C, &[8192, 8192], 1), &mut rng)?;
        }
        Ok(())
    }
}
