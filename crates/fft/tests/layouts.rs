//! Layouts, batches, strides and multi-dimensional transforms on every backend: the advanced
//! data layout (embedded sizes, strides, distances, on either side), in-place execution
//! (C2C, and the padded real layout), transforms along strided axes long enough to need
//! several passes, and 2D/3D shapes crossing the planner's single-pass limits. Each run
//! checks the transformed elements against the reference and that nothing outside the output
//! layout (and nothing of an out-of-place input) was written.

use crate::common::runner::{run, Spec};
use crate::common::{Backend, Rng};
use ferrocm_fft::Layout;
use ferrocm_fft::TransformType::{C2R, R2C};

fn shapes(b: &Backend) -> Vec<Vec<usize>> {
    let mut v = vec![
        vec![2, 3],
        vec![16, 16],
        vec![7, 64],
        vec![64, 7],
        vec![5, 6, 7],
        vec![8, 8, 8],
        vec![1, 9],
        vec![9, 1, 4],
    ];
    if !b.is_executor() {
        v.extend([
            vec![128, 1000],
            vec![1021, 12],
            vec![12, 1021],
            vec![64, 64, 64],
            vec![3, 300, 17],
            vec![8192, 4],
            vec![2, 16384],
        ]);
    }
    if b.is_gpu() {
        v.extend([vec![4096, 4096], vec![10000, 8], vec![32, 9000], vec![256, 256, 256]]);
    }
    v
}

fft_conformance! {
    // Column axes too long for a block to hold runs of them: passes of thread-block clusters
    // where the device has clusters (8 blocks; partial tiles of columns; f64; the R2C column
    // pass moves rows of an odd length, so its runs are 128 bytes). Small enough for
    // compute-sanitizer's racecheck.
    cluster_column_passes(b) {
        let mut rng = Rng::new();
        for s in [vec![4096, 20], vec![4096, 10], vec![3, 4096, 6]] {
            run::<f32>(b, &Spec::c2c(&s, 2), &mut rng)?;
            run::<f32>(b, &Spec::c2c(&s, 1).inverse(), &mut rng)?;
            run::<f64>(b, &Spec::c2c(&s, 1), &mut rng)?;
        }
        run::<f32>(b, &Spec::real(R2C, &[8192, 6], 1), &mut rng)?;
        Ok(())
    }

    multi_dimensional_c2c(b) {
        let mut rng = Rng::new();
        for s in shapes(b) {
            run::<f32>(b, &Spec::c2c(&s, 2), &mut rng)?;
            run::<f32>(b, &Spec::c2c(&s, 1).inverse(), &mut rng)?;
            if s.iter().product::<usize>() <= 1 << 16 {
                run::<f64>(b, &Spec::c2c(&s, 1), &mut rng)?;
            }
        }
        Ok(())
    }

    advanced_layouts(b) {
        let mut rng = Rng::new();
        let cases = vec![
            // Strided 1D input and output, with distances leaving gaps.
            Spec::c2c(&[12], 3).layouts(Layout::new(&[12], 3, 40), Layout::new(&[12], 2, 30)),
            // Interleaved batches: batch distance 1, element stride = batch.
            Spec::c2c(&[10], 4).layouts(Layout::new(&[10], 4, 1), Layout::new(&[10], 4, 1)),
            Spec::c2c(&[97], 5).layouts(Layout::new(&[97], 5, 1), Layout::packed()).inverse(),
            // Embedded 2D arrays (sub-blocks of larger ones).
            Spec::c2c(&[6, 10], 2).layouts(Layout::new(&[8, 13], 1, 120), Layout::new(&[7, 11], 2, 170)),
            Spec::c2c(&[5, 4, 6], 2).layouts(Layout::new(&[6, 5, 7], 1, 230), Layout::packed()),
            // Real transforms with embeds and strides on either side.
            Spec::real(R2C, &[20], 3).layouts(Layout::new(&[25], 1, 25), Layout::new(&[13], 2, 30)),
            Spec::real(C2R, &[21], 3).layouts(Layout::new(&[12], 1, 14), Layout::new(&[21], 3, 70)),
            Spec::real(R2C, &[6, 9], 2).layouts(Layout::new(&[7, 10], 1, 75), Layout::new(&[6, 6], 1, 40)),
            Spec::real(C2R, &[6, 8], 2).layouts(Layout::new(&[8, 5], 1, 40), Layout::new(&[6, 9], 1, 60)),
            // A long strided axis (four-step across a column) with interleaved batches.
            Spec::c2c(&[1 << 15], 2).layouts(Layout::new(&[1 << 15], 2, 1), Layout::new(&[1 << 15], 2, 1)),
            Spec::real(R2C, &[1 << 16], 2).layouts(Layout::new(&[1 << 16], 2, 1), Layout::new(&[(1 << 15) + 1], 2, 1)),
        ];
        for s in &cases {
            if b.is_executor() && s.n.iter().product::<usize>() > 1 << 15 {
                continue;
            }
            run::<f32>(b, s, &mut rng)?;
            run::<f64>(b, s, &mut rng)?;
        }
        Ok(())
    }

    in_place(b) {
        let mut rng = Rng::new();
        let pad = |n: &[usize]| {
            // The padded real layout: rows of 2 (n/2 + 1) reals.
            let mut e = n.to_vec();
            let last = e.len() - 1;
            e[last] = 2 * (n[last] / 2 + 1);
            let mut h = n.to_vec();
            h[last] = n[last] / 2 + 1;
            (Layout::new(&e, 1, e.iter().product()), Layout::new(&h, 1, h.iter().product()))
        };
        let mut cases = vec![Spec::c2c(&[64], 3).in_place(), Spec::c2c(&[1000], 2).in_place().inverse(), Spec::c2c(&[12, 15], 2).in_place()];
        for n in [vec![16], vec![15], vec![6, 10], vec![5, 4, 7], vec![1 << 15]] {
            let (real, cx) = pad(&n);
            cases.push(Spec::real(R2C, &n, 2).layouts(real.clone(), cx.clone()).in_place());
            cases.push(Spec::real(C2R, &n, 2).layouts(cx, real).in_place());
        }
        if !b.is_executor() {
            cases.push(Spec::c2c(&[1 << 16], 1).in_place());
            cases.push(Spec::c2c(&[300, 300], 1).in_place());
        }
        for s in &cases {
            run::<f32>(b, s, &mut rng)?;
            run::<f64>(b, s, &mut rng)?;
        }
        Ok(())
    }

    batches(b) {
        let mut rng = Rng::new();
        let batches: &[usize] = if b.is_executor() { &[1, 2, 7, 33] } else { &[1, 2, 7, 33, 1000, 4097] };
        for &bt in batches {
            for n in [1usize, 8, 30, 257] {
                run::<f32>(b, &Spec::c2c(&[n], bt), &mut rng)?;
                run::<f32>(b, &Spec::real(R2C, &[n], bt), &mut rng)?;
            }
        }
        Ok(())
    }
}

/// `got` is the forward transform of `data` (against the f64 reference, to 1e-4 of its largest
/// magnitude; a NaN never passes).
fn check_forward(
    data: &[ferrocm_fft::Complex<f32>],
    got: &[ferrocm_fft::Complex<f32>],
    round: usize,
) -> crate::common::TestResult {
    let mut want = crate::common::widen(data);
    crate::common::fft64(&mut want, data.len(), false);
    let scale = want.iter().map(|v| v.norm()).fold(0.0, f64::max);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let err = ((g.re as f64 - w.re).powi(2) + (g.im as f64 - w.im).powi(2)).sqrt();
        if err.is_nan() || err > 1e-4 * scale {
            return Err(format!("round {round}: element {k} is {g} where {w} was expected").into());
        }
    }
    Ok(())
}

fft_conformance! {
    input_dropped_right_after_exec_is_not_reused_early(b) {
        // The plan launches with raw addresses; the runtime must still learn that its stream
        // uses the input, or the pool hands the dropped input's memory to another stream (here
        // filled with NaN at once) while the transform still reads it.
        use ferrocm_fft::{Direction, PlanBuilder, TransformType::C2C};
        let n = if b.is_executor() { 1 << 14 } else { 1 << 20 };
        let (s1, s2) = (b.device.create_stream()?, b.device.create_stream()?);
        let plan = PlanBuilder::new(C2C, &[n]).engine(b.engine).build::<f32>(&s1)?;
        let mut rng = Rng::new();
        for round in 0..4 {
            let data = rng.complex::<f32>(n);
            let x = s2.clone_htod(&data)?;
            s2.synchronize()?;
            let mut y = s1.alloc(n)?;
            plan.exec_c2c(&x, &mut y, Direction::Forward)?;
            drop(x);
            let junk = s2.clone_htod(&vec![ferrocm_fft::Complex::new(f32::NAN, f32::NAN); n])?;
            let got = s1.clone_dtoh(&y)?;
            s2.synchronize()?;
            drop(junk);
            check_forward(&data, &got, round)?;
        }
        Ok(())
    }
}

fft_conformance! {
    work_area_handed_back_mid_transform_is_not_reused_early(b) {
        // The work area is passed by raw address too: one allocated on another stream and
        // handed back by `set_work_area` right after an execution must not be reused by that
        // stream (here filled with NaN at once) before the transform has run.
        use ferrocm_fft::{Direction, Engine, PlanBuilder, TransformType::C2C};
        if !b.is_gpu() && b.engine != Engine::Kernels {
            return Ok(()); // the CPU device's rustfft engine has no work area
        }
        // Long enough for the four-step plan, which works through a work area.
        let n = if b.is_executor() { 1 << 16 } else { 1 << 22 };
        let (s1, s2) = (b.device.create_stream()?, b.device.create_stream()?);
        let mut plan = PlanBuilder::new(C2C, &[n]).engine(b.engine).build::<f32>(&s1)?;
        let words = plan.work_size() / 4;
        if words == 0 {
            return Err(format!("a plan of {n} points has no work area: the test needs one").into());
        }
        let mut rng = Rng::new();
        for round in 0..4 {
            let data = rng.complex::<f32>(n);
            let x = s1.clone_htod(&data)?;
            let mut y = s1.alloc(n)?;
            let _ = plan.set_work_area(s2.alloc::<f32>(words)?)?;
            s2.synchronize()?;
            plan.exec_c2c(&x, &mut y, Direction::Forward)?;
            drop(plan.set_work_area(s1.alloc::<f32>(words)?)?);
            let junk = s2.clone_htod(&vec![f32::NAN; words])?;
            let got = s1.clone_dtoh(&y)?;
            s2.synchronize()?;
            drop(junk);
            check_forward(&data, &got, round)?;
        }
        Ok(())
    }
}

fft_conformance! {
    col_phases_16_byte(b) {
        // Strided (column) phases with 16-byte accesses, two adjacent transforms per lane pair
        // (f32): even and odd counts of columns, odd radices, partial last tiles (200 columns,
        // 128 per block), batch strides that keep or break the 16-byte pieces, both
        // directions, four-step 1D transforms (both passes, one with a partial last tile), a
        // long R2C (real pairs), and buffers that start off 16 bytes (the plan falls back to
        // the 8-byte kernel there: on GPUs a misaligned 16-byte access faults).
        use ferrocm_fft::PlanBuilder;
        let mut rng = Rng::new();
        let odd_dist = Layout::new(&[24, 200], 1, 24 * 200 + 1);
        // (case, whether a pass of its plan takes 16-byte accesses)
        // Complex sides stay 8-byte (the planner's choice since the H100 A/B, NOTES.md); real
        // pairs' loads take 16 bytes.
        let cases = [
            (Spec::c2c(&[24, 200], 2), false),
            (Spec::c2c(&[24, 200], 2).inverse(), false),
            (Spec::c2c(&[24, 199], 2), false),
            // Odd radices in the first and last pass (their last position moves 8 bytes).
            (Spec::c2c(&[45, 200], 1), false),
            (Spec::c2c(&[24, 200], 2).layouts(odd_dist.clone(), Layout::packed()), false),
            (Spec::c2c(&[24, 200], 2).layouts(odd_dist.clone(), odd_dist), false),
            (Spec::c2c(&[3 << 13], 2), false),
            (Spec::c2c(&[3 << 13], 1).inverse(), false),
            // Four-step passes with a partial last tile (162 transforms, 32 per block).
            (Spec::c2c(&[17496], 1), false),
            // A long R2C's pass A reads real pairs 16 bytes at a time.
            (Spec::real(R2C, &[2 * 17496], 2), true),
            (Spec::real(R2C, &[2 * 17496], 1).shifted(1), true),
            (Spec::c2c(&[24, 200], 2).shifted(1), false),
            (Spec::c2c(&[3 << 13], 1).shifted(1), false),
            (Spec::c2c(&[24, 200], 1).shifted(2), false),
        ];
        for (s, wide) in &cases {
            if b.is_executor() || b.is_gpu() {
                let stream = b.device.create_stream()?;
                let plan = PlanBuilder::new(s.kind, &s.n)
                    .batch(s.batch)
                    .input_layout(s.input.clone())
                    .output_layout(s.output.clone())
                    .engine(b.engine)
                    .build::<f32>(&stream)?;
                let d = plan.describe();
                if d.contains("16-byte") != *wide {
                    return Err(format!("{s:?}: 16-byte accesses expected: {wide}, plan:\n{d}").into());
                }
            }
            run::<f32>(b, s, &mut rng)?;
        }
        Ok(())
    }
}
