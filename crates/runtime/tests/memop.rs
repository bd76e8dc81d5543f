//! Stream memory operations on every backend present: a stream waiting on a word orders its
//! later work after another stream's write; every comparison, in both widths, is checked
//! against the definitions of CUDA's `CUstreamWaitValue_flags` written out here (not the
//! backend's own predicate), on words on both sides of each boundary (equality, the cyclic
//! wrap-around of the greater-or-equal, single bits); graph capture records the operations as
//! nodes that run on every launch; a destroyed stream with a wait pending does not hang.
//! The cross-process case is in `ipc.rs`; the misuse rows are in `misuse.rs`.

mod common;

use std::time::{Duration, Instant};

use common::{Rng, TestResult};
use ferrocm_runtime::{DeviceBuffer, Graph, MemoryWord, Stream, WaitCondition};

/// Long enough for a wait that is met to have completed on an idle stream; a wait that is not
/// met never completes, so this only decides how likely a wrong "met" is to be caught.
const SETTLE: Duration = Duration::from_millis(30);

/// How long a wait whose condition holds may take to be passed (a generous bound for a loaded
/// machine; on a correct backend it is micro- to milliseconds).
const MET_WITHIN: Duration = Duration::from_secs(10);

const CONDITIONS: [WaitCondition; 4] =
    [WaitCondition::Geq, WaitCondition::Eq, WaitCondition::And, WaitCondition::Nor];

/// CUDA's definitions, as the driver API documents them, on 32-bit words.
fn reference32(c: WaitCondition, word: u32, value: u32) -> bool {
    match c {
        WaitCondition::Geq => (word as i32).wrapping_sub(value as i32) >= 0,
        WaitCondition::Eq => word == value,
        WaitCondition::And => word & value != 0,
        WaitCondition::Nor => !(word | value) != 0,
    }
}

fn reference64(c: WaitCondition, word: u64, value: u64) -> bool {
    match c {
        WaitCondition::Geq => (word as i64).wrapping_sub(value as i64) >= 0,
        WaitCondition::Eq => word == value,
        WaitCondition::And => word & value != 0,
        WaitCondition::Nor => !(word | value) != 0,
    }
}

/// A device buffer of `len` zeros.
fn zeroed<T: ferrocm_runtime::DeviceRepr + Default>(
    dev: &ferrocm_runtime::Device,
    len: usize,
) -> ferrocm_runtime::Result<DeviceBuffer<T>> {
    let mut b = dev.alloc(len)?;
    dev.create_stream()?.copy_htod(&vec![T::default(); len], &mut b)?;
    Ok(b)
}

/// A word that meets the condition against `value` (for releasing a blocked wait).
fn satisfying<W: Copy + PartialEq>(c: WaitCondition, value: W, all_ones: W, zero: W) -> W {
    match c {
        WaitCondition::Geq | WaitCondition::Eq => value,
        WaitCondition::And => all_ones,
        WaitCondition::Nor => zero,
    }
}

/// One wait to check: the word's content, the value and whether the condition holds.
struct WaitCase<W> {
    condition: WaitCondition,
    word: W,
    value: W,
    want: bool,
    release: W,
}

/// Waits until `stream` has passed its work, failing after [`MET_WITHIN`] (not `synchronize`:
/// a wrongly unmet wait would block it for good).
fn passes_in_time(stream: &Stream) -> ferrocm_runtime::Result<bool> {
    let deadline = Instant::now() + MET_WITHIN;
    while !stream.query()? {
        if Instant::now() > deadline {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(true)
}

/// At most this many streams of a check are blocked at once. A stream waiting on a word blocks
/// the hardware queue it is mapped to (CUDA has `CUDA_DEVICE_MAX_CONNECTIONS` of them, 8 by
/// default, shared round-robin by the streams as they are made), so a check with more blocked
/// streams than queues would block its own releasing writes: the driver's documented hazard of
/// these operations, not something a backend can be asked to avoid.
const BLOCKED_AT_ONCE: usize = 3;

/// The CUDA cases of this file run one at a time, so the streams a check makes one after another
/// get queues of their own (streams made by another test in between could share one).
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Checks every case: the met ones together (they block nothing), the unmet ones a few at a
/// time (`BLOCKED_AT_ONCE`).
fn check_waits<W: MemoryWord + Default + std::fmt::Debug + PartialEq>(
    dev: &ferrocm_runtime::Device,
    cases: &[WaitCase<W>],
) -> TestResult {
    let (met, unmet): (Vec<&WaitCase<W>>, Vec<&WaitCase<W>>) = cases.iter().partition(|c| c.want);
    for group in met.chunks(16) {
        check_group(dev, group)?;
    }
    for group in unmet.chunks(BLOCKED_AT_ONCE) {
        check_group(dev, group)?;
    }
    Ok(())
}

/// Writes each case's word and waits for the writes, then queues each case's wait on a stream of
/// its own, checks which streams went past their wait (those whose condition holds) and which
/// did not, and releases the blocked ones with a write from the writer's stream. On a failure
/// the streams and words are leaked, not dropped: dropping a word waits for the stream blocked on
/// it.
fn check_group<W: MemoryWord + Default + std::fmt::Debug + PartialEq>(
    dev: &ferrocm_runtime::Device,
    cases: &[&WaitCase<W>],
) -> TestResult {
    let writer = dev.create_stream()?;
    let mut flags = Vec::new();
    for c in cases {
        let mut flag: DeviceBuffer<W> = dev.alloc(1)?;
        writer.copy_htod(&[c.word], &mut flag)?;
        flags.push(flag);
    }
    writer.synchronize()?;
    let mut queued = Vec::new();
    for (c, flag) in cases.iter().zip(flags) {
        let waiter = dev.create_stream()?;
        waiter.wait_value(&flag, c.value, c.condition)?;
        queued.push((waiter, flag));
    }
    if cases.iter().any(|c| !c.want) {
        std::thread::sleep(SETTLE);
    }
    let mut failures = Vec::new();
    for (c, (waiter, _)) in cases.iter().zip(&queued) {
        let what = format!("{:?}: word {:?} against {:?}", c.condition, c.word, c.value);
        if c.want && !passes_in_time(waiter)? {
            failures.push(format!("{what} is met, but the stream still waits"));
        } else if !c.want && waiter.query()? {
            failures.push(format!("{what} is not met, but the stream went on"));
        }
    }
    if failures.is_empty() {
        for (c, (waiter, flag)) in cases.iter().zip(&mut queued) {
            if !c.want {
                writer.write_value(flag, c.release)?;
                if !passes_in_time(waiter)? {
                    failures.push(format!(
                        "{:?}: writing {:?} did not release the wait for {:?}",
                        c.condition, c.release, c.value
                    ));
                }
            }
        }
    }
    if !failures.is_empty() {
        std::mem::forget(queued);
        return Err(failures.join("\n").into());
    }
    Ok(())
}

conformance! {
    a_wait_orders_a_stream_after_another_streams_write(dev) {
        let _one = one_at_a_time();
        let n = 100_003;
        let data = Rng::new(7).vec_f32(n);
        let (producer, consumer) = (dev.create_stream()?, dev.create_stream()?);
        let mut flag = zeroed::<u32>(dev, 1)?;
        let mut src = zeroed::<f32>(dev, n)?;
        let mut dst = zeroed::<f32>(dev, n)?;
        // The consumer waits for generation 1 before copying what the producer writes.
        consumer.wait_value(&flag, 1u32, WaitCondition::Geq)?;
        consumer.copy_dtod(&src, &mut dst)?;
        std::thread::sleep(SETTLE);
        assert!(!consumer.query()?, "the consumer went past a wait whose word is still 0");
        producer.copy_htod(&data, &mut src)?;
        producer.write_value(&mut flag, 1u32)?;
        consumer.synchronize()?;
        assert_eq!(consumer.clone_dtoh(&dst)?, data, "the consumer copied before the producer's data");
        // A second round on the same word: generation 2, 64 rounds of ping-pong between streams.
        let mut back = zeroed::<u32>(dev, 1)?;
        for round in 1..=64u32 {
            producer.write_value(&mut flag, round + 1)?;
            consumer.wait_value(&flag, round + 1, WaitCondition::Geq)?;
            consumer.write_value(&mut back, round)?;
            producer.wait_value(&back, round, WaitCondition::Eq)?;
        }
        producer.synchronize()?;
        assert_eq!(producer.clone_dtoh(&back)?, vec![64]);
        Ok(())
    }

    every_comparison_in_both_widths(dev) {
        let _one = one_at_a_time();
        // Boundaries: each word against itself, its neighbours, single bits and across the
        // wrap-around of the cyclic greater-or-equal, plus random pairs.
        let words32: [u32; 9] = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0x8000_0001, 0xffff_fffe, 0xffff_ffff, 0x5555_5555];
        let words64: [u64; 7] = [0, 1, 1 << 32, (1 << 63) - 1, 1 << 63, u64::MAX - 1, u64::MAX];
        let mut rng = Rng::new(99);
        for condition in CONDITIONS {
            let mut pairs32: Vec<(u32, u32)> = words32.iter().flat_map(|&w| words32.map(|v| (w, v))).collect();
            pairs32.extend((0..8).map(|_| (rng.next_u64() as u32, rng.next_u64() as u32)));
            let cases32: Vec<WaitCase<u32>> = pairs32
                .into_iter()
                .map(|(word, value)| WaitCase {
                    condition,
                    word,
                    value,
                    want: reference32(condition, word, value),
                    release: satisfying(condition, value, u32::MAX, 0),
                })
                // A wait that nothing satisfies (AND against zero, NOR against all ones) would
                // keep its stream blocked after the check.
                .filter(|c| c.want || reference32(condition, c.release, c.value))
                .collect();
            check_waits(dev, &cases32)?;
            let mut pairs64: Vec<(u64, u64)> = words64.iter().flat_map(|&w| words64.map(|v| (w, v))).collect();
            pairs64.extend((0..8).map(|_| (rng.next_u64(), rng.next_u64())));
            let cases64: Vec<WaitCase<u64>> = pairs64
                .into_iter()
                .map(|(word, value)| WaitCase {
                    condition,
                    word,
                    value,
                    want: reference64(condition, word, value),
                    release: satisfying(condition, value, u64::MAX, 0),
                })
                .filter(|c| c.want || reference64(condition, c.release, c.value))
                .collect();
            check_waits(dev, &cases64)?;
        }
        Ok(())
    }

    a_captured_graph_replays_waits_and_writes(dev) {
        let _one = one_at_a_time();
        let (s, other) = (dev.create_stream()?, dev.create_stream()?);
        let mut gate = zeroed::<u64>(dev, 1)?;
        let mut done = zeroed::<u64>(dev, 1)?;
        s.begin_capture()?;
        s.wait_value(&gate, 1u64, WaitCondition::Geq)?;
        s.write_value(&mut done, 7u64)?;
        let graph: Graph = s.end_capture()?;
        let exec = graph.instantiate()?;
        exec.launch(&s)?;
        std::thread::sleep(SETTLE);
        assert!(!s.query()?, "the graph's wait node did not hold the stream");
        assert_eq!(other.clone_dtoh(&done)?, vec![0], "the write node ran before the wait was met");
        other.write_value(&mut gate, 1u64)?;
        s.synchronize()?;
        assert_eq!(other.clone_dtoh(&done)?, vec![7]);
        Ok(())
    }
}
