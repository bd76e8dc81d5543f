//! Timing helpers for the benchmark examples: device events around each repetition, the median
//! of the repetitions after warm-up.

use ferrocm_kernel::runtime::{Event, Stream};

/// Median milliseconds of `reps` runs of `f` on `stream` after `warmup` runs.
pub fn median_ms(
    stream: &Stream,
    warmup: usize,
    reps: usize,
    mut f: impl FnMut(),
) -> Result<f64, Box<dyn std::error::Error>> {
    for _ in 0..warmup {
        f();
    }
    stream.synchronize()?;
    let mut times = Vec::new();
    for _ in 0..reps {
        let (start, end) = (Event::new(stream.device())?, Event::new(stream.device())?);
        start.record(stream)?;
        f();
        end.record(stream)?;
        end.synchronize()?;
        times.push(start.elapsed_ms(&end)? as f64);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(times[times.len() / 2])
}
