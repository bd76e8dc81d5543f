//! The misuse suite: each bad call is a row of the table, and `check` asserts the error's kind
//! (and the argument it names) and that no buffer was written. One test, so it can give the
//! process two CPU devices before the runtime reads the environment.

use ferrocm_fft::{
    Complex, Direction, Engine, FftError, Layout, Plan, PlanBuilder, TransformType,
    TransformType::{C2C, C2R, R2C},
};
use ferrocm_kernel::runtime::{Device, DeviceBuffer, Stream};

/// The pattern every buffer starts with; a failed call must leave it.
const P: f32 = 1234.5;

struct Ctx {
    stream: Stream,
    other: Stream,
    engine: Engine,
}

impl Ctx {
    fn cbuf(&self, n: usize) -> DeviceBuffer<Complex<f32>> {
        self.stream.clone_htod(&vec![Complex::new(P, -P); n]).unwrap()
    }
    fn rbuf(&self, n: usize) -> DeviceBuffer<f32> {
        self.stream.clone_htod(&vec![P; n]).unwrap()
    }
    fn plan(&self, b: PlanBuilder) -> Result<Plan<f32>, FftError> {
        b.engine(self.engine).build(&self.stream)
    }
}

fn untouched_c(ctx: &Ctx, b: &DeviceBuffer<Complex<f32>>) -> bool {
    ctx.stream.clone_dtoh(b).unwrap().iter().all(|c| c.re == P && c.im == -P)
}

fn untouched_r(ctx: &Ctx, b: &DeviceBuffer<f32>) -> bool {
    ctx.stream.clone_dtoh(b).unwrap().iter().all(|&v| v == P)
}

/// What a case did: its result, and whether every buffer it passed kept the pattern.
type Outcome = (Result<(), FftError>, bool);

struct Case {
    name: &'static str,
    run: fn(&Ctx) -> Outcome,
    want: fn(&FftError) -> bool,
}

fn plan_only(r: Result<Plan<f32>, FftError>) -> Outcome {
    (r.map(|_| ()), true)
}

fn size_named(e: &FftError, what: &str) -> bool {
    matches!(e, FftError::InvalidSize { what: w, .. } if w == what)
}

const CASES: &[Case] = &[
    Case {
        name: "zero transform size",
        run: |c| plan_only(c.plan(PlanBuilder::new(C2C, &[8, 0]))),
        want: |e| size_named(e, "n[1]"),
    },
    Case {
        name: "zero batch",
        run: |c| plan_only(c.plan(PlanBuilder::new(C2C, &[8]).batch(0))),
        want: |e| size_named(e, "batch"),
    },
    Case {
        name: "rank 0",
        run: |c| plan_only(c.plan(PlanBuilder::new(C2C, &[]))),
        want: |e| matches!(e, FftError::InvalidRank { rank: 0 }),
    },
    Case {
        name: "rank 4",
        run: |c| plan_only(c.plan(PlanBuilder::new(C2C, &[2, 2, 2, 2]))),
        want: |e| matches!(e, FftError::InvalidRank { rank: 4 }),
    },
    Case {
        name: "axis longer than 2^31",
        run: |c| plan_only(c.plan(PlanBuilder::new(C2C, &[(1 << 31) + 1]))),
        want: |e| size_named(e, "n[0]"),
    },
    Case {
        name: "sizes whose product overflows",
        run: |c| plan_only(c.plan(PlanBuilder::new(C2C, &[1 << 31, 1 << 31, 1 << 31]))),
        want: |e| matches!(e, FftError::Overflow { .. }),
    },
    Case {
        name: "embed smaller than the size",
        run: |c| plan_only(c.plan(PlanBuilder::new(C2C, &[4, 8]).input_layout(Layout::new(&[4, 7], 1, 28)))),
        want: |e| matches!(e, FftError::EmbedTooSmall { side: "input", axis: 1, embed: 7, size: 8 }),
    },
    Case {
        name: "embed of the wrong rank",
        run: |c| plan_only(c.plan(PlanBuilder::new(C2C, &[4, 8]).output_layout(Layout::new(&[32], 1, 32)))),
        want: |e| matches!(e, FftError::EmbedRank { side: "output", len: 1, rank: 2 }),
    },
    Case {
        name: "output batches overlapping (distance 1, stride 1)",
        run: |c| {
            plan_only(c.plan(PlanBuilder::new(C2C, &[4]).batch(2).output_layout(Layout::new(&[4], 1, 1))))
        },
        want: |e| matches!(e, FftError::OverlappingOutput { .. }),
    },
    Case {
        name: "output batches landing inside the previous transform (stride 2, distance 16)",
        run: |c| {
            plan_only(c.plan(PlanBuilder::new(C2C, &[4, 4]).batch(2).output_layout(Layout::new(
                &[4, 4],
                2,
                16,
            ))))
        },
        want: |e| matches!(e, FftError::OverlappingOutput { dim, .. } if dim == "batch"),
    },
    Case {
        name: "zero distance with several batches",
        run: |c| {
            plan_only(c.plan(PlanBuilder::new(C2C, &[4]).batch(3).input_layout(Layout::new(&[4], 1, 0))))
        },
        want: |e| size_named(e, "input distance"),
    },
    Case {
        name: "input buffer too short",
        run: |c| {
            let p = c.plan(PlanBuilder::new(C2C, &[16]).batch(4)).unwrap();
            let (x, mut y) = (c.cbuf(63), c.cbuf(64));
            let r = p.exec_c2c(&x, &mut y, Direction::Forward);
            (r, untouched_c(c, &x) && untouched_c(c, &y))
        },
        want: |e| matches!(e, FftError::BufferTooShort { what: "input", len: 63, required: 64 }),
    },
    Case {
        name: "output buffer too short",
        run: |c| {
            let p = c.plan(PlanBuilder::new(R2C, &[16]).batch(2)).unwrap();
            let (x, mut y) = (c.rbuf(32), c.cbuf(17));
            let r = p.exec_r2c(&x, &mut y);
            (r, untouched_r(c, &x) && untouched_c(c, &y))
        },
        want: |e| matches!(e, FftError::BufferTooShort { what: "output", len: 17, required: 18 }),
    },
    Case {
        name: "in-place C2C with different layouts",
        run: |c| {
            let p = c
                .plan(
                    PlanBuilder::new(C2C, &[8])
                        .batch(2)
                        .input_layout(Layout::new(&[8], 1, 8))
                        .output_layout(Layout::new(&[8], 1, 10)),
                )
                .unwrap();
            let mut x = c.cbuf(20);
            let r = p.exec_c2c_inplace(&mut x, Direction::Inverse);
            (r, untouched_c(c, &x))
        },
        want: |e| matches!(e, FftError::InPlaceLayout { kind: "C2C", .. }),
    },
    Case {
        name: "in-place R2C without the padding",
        run: |c| {
            let p = c.plan(PlanBuilder::new(R2C, &[16]).batch(3)).unwrap();
            let mut x = c.rbuf(64);
            let r = p.exec_r2c_inplace(&mut x);
            (r, untouched_r(c, &x))
        },
        want: |e| matches!(e, FftError::InPlaceLayout { kind: "R2C", .. }),
    },
    Case {
        name: "in-place C2R without the padding",
        run: |c| {
            let p = c.plan(PlanBuilder::new(C2R, &[6, 10])).unwrap();
            let mut x = c.rbuf(200);
            let r = p.exec_c2r_inplace(&mut x);
            (r, untouched_r(c, &x))
        },
        want: |e| matches!(e, FftError::InPlaceLayout { kind: "C2R", .. }),
    },
    Case {
        name: "output on another device",
        run: |c| {
            let p = c.plan(PlanBuilder::new(C2C, &[8])).unwrap();
            let x = c.cbuf(8);
            let mut y = c.other.clone_htod(&[Complex::new(P, -P); 8]).unwrap();
            let r = p.exec_c2c(&x, &mut y, Direction::Forward);
            let kept = c.other.clone_dtoh(&y).unwrap().iter().all(|v| v.re == P && v.im == -P);
            (r, untouched_c(c, &x) && kept)
        },
        // Device indices are the runtime's: CPU devices follow any GPU, so "another device" is
        // the plan's next one.
        want: |e| matches!(e, FftError::WrongDevice { what: "output", device, plan_device } if *device == plan_device + 1),
    },
    Case {
        name: "stream of another device",
        run: |c| {
            let mut p = c.plan(PlanBuilder::new(C2C, &[8])).unwrap();
            (p.set_stream(&c.other), true)
        },
        want: |e| matches!(e, FftError::WrongDevice { what: "stream", .. }),
    },
    Case {
        name: "C2C execution on an R2C plan",
        run: |c| {
            let p = c.plan(PlanBuilder::new(R2C, &[8])).unwrap();
            let (x, mut y) = (c.cbuf(8), c.cbuf(8));
            let r = p.exec_c2c(&x, &mut y, Direction::Forward);
            (r, untouched_c(c, &x) && untouched_c(c, &y))
        },
        want: |e| matches!(e, FftError::WrongTransformType { called: "exec_c2c", plan: "R2C" }),
    },
    Case {
        name: "work area too small",
        run: |c| {
            // A multi-dimensional C2R always works through a work area on the kernel engine.
            let mut p: Plan<f32> =
                PlanBuilder::new(C2R, &[8, 6]).engine(Engine::Kernels).build(&c.stream).unwrap();
            let need = p.work_size() / 4;
            assert!(need > 0);
            let small = c.rbuf(need - 1);
            (p.set_work_area(small).map(|_| ()), true)
        },
        want: |e| matches!(e, FftError::BufferTooShort { what: "work area", .. }),
    },
];

fn check(ctx: &Ctx, case: &Case) {
    let (r, kept) = (case.run)(ctx);
    match r {
        Ok(()) => panic!("{} ({:?}): expected an error, got Ok", case.name, ctx.engine),
        Err(e) => {
            assert!((case.want)(&e), "{} ({:?}): unexpected error {e:?}", case.name, ctx.engine);
            let msg = e.to_string();
            assert!(!msg.is_empty() && !msg.ends_with('.'), "{}: message {msg:?}", case.name);
        }
    }
    assert!(kept, "{} ({:?}): a buffer was written", case.name, ctx.engine);
}

/// Every row, on both engines of the CPU device (and on a GPU if present: the checks are the
/// plan's, so the first GPU with a second CPU device as "another device").
#[test]
fn misuse_is_an_error_and_writes_nothing() {
    // Set before the runtime reads the environment; this binary has one test, so nothing races.
    std::env::set_var("FERROCM_CPU_DEVICES", "2");
    let cpus = Device::of_kind(ferrocm_kernel::runtime::BackendKind::Cpu);
    assert!(cpus.len() >= 2, "FERROCM_CPU_DEVICES=2 gives two CPU devices");
    for engine in [Engine::Auto, Engine::Kernels] {
        let ctx =
            Ctx { stream: cpus[0].create_stream().unwrap(), other: cpus[1].create_stream().unwrap(), engine };
        for case in CASES {
            check(&ctx, case);
        }
    }
    // The messages say what was asked and what is allowed.
    let e = Plan::<f32>::new_1d(&cpus[0].create_stream().unwrap(), 0, TransformType::C2C, 1).unwrap_err();
    assert_eq!(e.to_string(), "n[0] is 0: each transform size must be at least 1");
    let e = PlanBuilder::new(C2C, &[4])
        .batch(2)
        .output_layout(Layout::new(&[4], 1, 1))
        .build::<f32>(&cpus[0].create_stream().unwrap())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "output layout overlaps: batch (stride 1) does not step past the 4 elements spanned by the dimensions with smaller strides; each stride must exceed that span"
    );
}
