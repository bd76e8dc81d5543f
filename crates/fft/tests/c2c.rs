//! Complex-to-complex accuracy on every backend, by rocFFT's rule against a higher-precision
//! reference (`rustfft` in `f64` for `f32`, double-double for `f64`).
//!
//! What runs where: every length 1..=4096 in f32 on the CPU device's rustfft engine (both
//! directions) and on GPUs (forward for even lengths, inverse for odd ones: each length
//! compiles its own kernels, and the driver's JIT is the cost); on the CPU executor (the kernel-language kernels on the CPU) a sampled
//! set that covers every boundary the planner has (each radix and codelet, Bluestein's
//! threshold, tile and thread limits, powers of two and their neighbours). Primes and prime
//! powers up to 100,000 on the rustfft engine and GPUs, powers of two up to 2^26 on GPUs.

use crate::common::runner::{run, Spec};
use crate::common::{Backend, Rng, TestResult};

/// Lengths the CPU executor runs: boundaries of the planner.
fn sampled_lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (1..=40).collect();
    v.extend([
        48, 49, 60, 63, 64, 65, 81, 96, 100, 121, 125, 127, 128, 129, 143, 169, 192, 208, 210, 243, 255, 256,
        257, 343, 360, 500, 509, 512, 625, 720, 1000, 1001, 1021, 1024, 1331, 2048, 2187, 2197, 2310, 3125,
        4095, 4096,
    ]);
    v
}

fn lengths(b: &Backend) -> Vec<usize> {
    if b.is_executor() {
        sampled_lengths()
    } else {
        (1..=4096).collect()
    }
}

/// Runs `f` over `items` on several threads (GPU runs: plan creation compiles kernels).
fn parallel<I: Send + Sync + Clone>(
    items: &[I],
    f: impl Fn(&I, &mut Rng) -> Result<(), String> + Sync,
) -> TestResult {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(16);
    let errors = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..threads {
            let (f, errors) = (&f, &errors);
            s.spawn(move || {
                let mut rng = Rng::new();
                for (i, item) in items.iter().enumerate().skip(t).step_by(threads) {
                    if let Err(e) = f(item, &mut rng) {
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
    eprintln!("checked {} sizes, {} failures", items.len(), errors.len());
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{} failures, first: {}", errors.len(), errors[0]).into())
    }
}

fft_conformance! {
    every_length_to_4096_f32(b) {
        // On GPUs each length compiles its kernels (the driver's JIT dominates): one direction
        // per length there, alternating, so both directions' kernels are covered.
        parallel(&lengths(b), |&n, rng| {
            let batch = 1 + n % 3;
            if !b.is_gpu() || n % 2 == 0 {
                run::<f32>(b, &Spec::c2c(&[n], batch), rng)?;
            }
            if !b.is_gpu() || n % 2 == 1 {
                run::<f32>(b, &Spec::c2c(&[n], batch).inverse(), rng)?;
            }
            Ok(())
        })
    }

    sampled_lengths_f64(b) {
        let mut ls = sampled_lengths();
        if b.is_executor() {
            ls.retain(|&n| n <= 1024 || n == 4096);
        }
        parallel(&ls, |&n, rng| {
            run::<f64>(b, &Spec::c2c(&[n], 2), rng)?;
            run::<f64>(b, &Spec::c2c(&[n], 1).inverse(), rng)
        })
    }

    primes_and_prime_powers(b) {
        let mut ls = vec![4099, 8191, 10007, 16411, 65537, 99991, 16384, 59049, 78125, 16807, 14641, 28561, 32768, 65536, 46656];
        if b.is_executor() {
            ls = vec![4099, 8191, 16384];
        } else if cfg!(debug_assertions) && !b.is_gpu() {
            ls.retain(|&n| n < 70000);
        }
        parallel(&ls, |&n, rng| {
            run::<f32>(b, &Spec::c2c(&[n], 1), rng)?;
            run::<f32>(b, &Spec::c2c(&[n], 1).inverse(), rng)
        })
    }

    primes_f64(b) {
        // The double-double reference is slow in unoptimised test builds.
        let ls: Vec<usize> = if b.is_executor() || cfg!(debug_assertions) { vec![4099, 8192, 12289] } else { vec![4099, 8192, 10007, 65536, 99991, 59049] };
        parallel(&ls, |&n, rng| run::<f64>(b, &Spec::c2c(&[n], 1), rng))
    }

    mixed_radices(b) {
        let ls = [6, 30, 210, 2310, 30030, 4620, 5040, 6000, 12000, 100000, 11 * 13 * 16, 9 * 25 * 49, 2 * 4099, 3 * 8191];
        let ls: Vec<usize> = if b.is_executor() { ls.iter().copied().filter(|&n| n <= 6000).collect() } else { ls.to_vec() };
        parallel(&ls, |&n, rng| {
            run::<f32>(b, &Spec::c2c(&[n], 2), rng)?;
            run::<f64>(b, &Spec::c2c(&[n], 1).inverse(), rng)
        })
    }

    three_pass_chains(b) {
        // Past about 2^23 points a 1D transform is planned as three passes of short transforms
        // (16 or more per block: runs of at least 128 bytes on every strided side) instead of two
        // of 4096 (4 per block, 32-byte runs): 2^24 = 256 x 256 x 256 (radix 16), 3^14 (odd
        // radices, unequal passes, inverse); batched 2^22 and f64 2^21 stay two passes; on GPUs
        // also 10^7 and f64 2^24 (crates/fft/NOTES.md has the plans and the cost model that picks
        // them).
        let mut rng = Rng::new();
        if !b.runs_kernels() {
            return Ok(run::<f32>(b, &Spec::c2c(&[4_782_969], 1).inverse(), &mut rng)?);
        }
        run::<f32>(b, &Spec::c2c(&[1 << 24], 1), &mut rng)?;
        run::<f32>(b, &Spec::c2c(&[1 << 22], 2), &mut rng)?;
        run::<f64>(b, &Spec::c2c(&[1 << 21], 1).inverse(), &mut rng)?;
        run::<f32>(b, &Spec::c2c(&[4_782_969], 1).inverse(), &mut rng)?;
        if b.is_gpu() {
            run::<f32>(b, &Spec::c2c(&[10_000_000], 1), &mut rng)?;
            run::<f64>(b, &Spec::c2c(&[1 << 24], 1), &mut rng)?;
        }
        Ok(())
    }

    large_powers_of_two(b) {
        if !b.is_gpu() {
            // 2^20 on the CPU engines (the executor and rustfft); 2^26 on GPUs.
            let mut rng = Rng::new();
            let k = if b.is_executor() { 17 } else { 20 };
            return Ok(run::<f32>(b, &Spec::c2c(&[1 << k], 1), &mut rng)?);
        }
        let ks: Vec<u32> = (17..=26).collect();
        parallel(&ks, |&k, rng| {
            run::<f32>(b, &Spec::c2c(&[1 << k], 1), rng)?;
            if k <= 24 {
                run::<f64>(b, &Spec::c2c(&[1 << k], 1).inverse(), rng)?;
            }
            Ok(())
        })
    }
}
