//! The misuse table: wrong calls, each refused with the error that names what was wrong and
//! what is allowed, and nothing written (every buffer involved keeps its contents).

mod common;

use std::sync::OnceLock;

use common::{config, cpu_devices};
use ferrocm_ccl::{group, CclError, Communicator, Config, ReduceOp, UniqueId};
use ferrocm_runtime::{DeviceBuffer, Stream};

struct Env {
    comms: Vec<Communicator>,
}

fn env() -> &'static Env {
    static E: OnceLock<Env> = OnceLock::new();
    E.get_or_init(|| Env { comms: Communicator::init_all_with(&cpu_devices(2), config()).unwrap() })
}

const PATTERN: f32 = 42.5;

fn buf(s: &Stream, n: usize) -> DeviceBuffer<f32> {
    s.clone_htod(&vec![PATTERN; n]).unwrap()
}

fn untouched(s: &Stream, b: &DeviceBuffer<f32>) -> bool {
    s.synchronize().is_ok() && s.clone_dtoh(b).unwrap().iter().all(|&v| v == PATTERN)
}

/// A wrong call made by rank 0 (rank 1 stays idle: the call must fail before any
/// communication): returns the error and whether its buffers were left alone.
type Call = fn(&Communicator, &Stream) -> (ferrocm_ccl::Result<()>, bool);

struct Case {
    name: &'static str,
    call: Call,
    /// The error variant.
    kind: fn(&CclError) -> bool,
    /// Words the message must contain.
    says: &'static [&'static str],
}

fn check(case: &Case) {
    let comm = &env().comms[0];
    let s = comm.device().create_stream().unwrap();
    let (r, clean) = (case.call)(comm, &s);
    let e = r.err().unwrap_or_else(|| panic!("{}: the call was accepted", case.name));
    assert!((case.kind)(&e), "{}: wrong error variant {e:?}", case.name);
    let text = e.to_string();
    for w in case.says {
        assert!(text.contains(w), "{}: `{text}` does not say `{w}`", case.name);
    }
    assert!(clean, "{}: a buffer was written", case.name);
    assert!(comm.async_error().is_none(), "{}: a refused call must not fail the communicator", case.name);
}

fn other_device_stream(comm: &Communicator) -> Stream {
    env().comms[1].device().create_stream().unwrap_or_else(|_| comm.device().create_stream().unwrap())
}

const CASES: &[Case] = &[
    Case {
        name: "all_reduce with a shorter receive buffer",
        call: |c, s| {
            let (a, mut b) = (buf(s, 10), buf(s, 9));
            (c.all_reduce(&a, &mut b, ReduceOp::Sum, s), untouched(s, &b) && untouched(s, &a))
        },
        kind: |e| matches!(e, CclError::BufferTooSmall { len: 9, required: 10, .. }),
        says: &["receive buffer", "9", "10"],
    },
    Case {
        name: "all_gather whose receive buffer is not size x send",
        call: |c, s| {
            let (a, mut b) = (buf(s, 10), buf(s, 19));
            (c.all_gather(&a, &mut b, s), untouched(s, &b))
        },
        kind: |e| matches!(e, CclError::BufferTooSmall { required: 20, .. }),
        says: &["receive buffer", "20"],
    },
    Case {
        name: "reduce_scatter whose send buffer is not size x receive",
        call: |c, s| {
            let (a, mut b) = (buf(s, 21), buf(s, 10));
            (c.reduce_scatter(&a, &mut b, ReduceOp::Max, s), untouched(s, &b))
        },
        kind: |e| matches!(e, CclError::BufferTooSmall { what: "send buffer", .. }),
        says: &["send buffer", "21", "20"],
    },
    Case {
        name: "all_gather in place on a buffer not divisible among the ranks",
        call: |c, s| {
            let mut b = buf(s, 7);
            (c.all_gather_in_place(&mut b, s), untouched(s, &b))
        },
        kind: |e| matches!(e, CclError::InvalidArgument { .. }),
        says: &["7 elements", "multiple of the number of ranks (2)"],
    },
    Case {
        name: "reduce_scatter in place on a buffer not divisible among the ranks",
        call: |c, s| {
            let mut b = buf(s, 9);
            (c.reduce_scatter_in_place(&mut b, ReduceOp::Sum, s), untouched(s, &b))
        },
        kind: |e| matches!(e, CclError::InvalidArgument { .. }),
        says: &["9 elements", "multiple"],
    },
    Case {
        name: "all_to_all of buffers not divisible among the ranks",
        call: |c, s| {
            let (a, mut b) = (buf(s, 5), buf(s, 5));
            (c.all_to_all(&a, &mut b, s), untouched(s, &b))
        },
        kind: |e| matches!(e, CclError::InvalidArgument { .. }),
        says: &["5 elements"],
    },
    Case {
        name: "broadcast from a root outside the communicator",
        call: |c, s| {
            let mut b = buf(s, 4);
            (c.broadcast_in_place(&mut b, 2, s), untouched(s, &b))
        },
        kind: |e| matches!(e, CclError::InvalidArgument { what: "root", .. }),
        says: &["root 2", "0..2"],
    },
    Case {
        name: "reduce to a root outside the communicator",
        call: |c, s| {
            let (a, mut b) = (buf(s, 4), buf(s, 4));
            (c.reduce(&a, &mut b, ReduceOp::Sum, 7, s), untouched(s, &b))
        },
        kind: |e| matches!(e, CclError::InvalidArgument { what: "root", .. }),
        says: &["root 7"],
    },
    Case {
        name: "send to a peer outside the communicator",
        call: |c, s| {
            let a = buf(s, 4);
            (c.send(&a, 5, s), untouched(s, &a))
        },
        kind: |e| matches!(e, CclError::InvalidArgument { what: "peer", .. }),
        says: &["peer 5", "0..2"],
    },
    Case {
        name: "recv from a peer outside the communicator",
        call: |c, s| {
            let mut b = buf(s, 4);
            (c.recv(&mut b, 9, s), untouched(s, &b))
        },
        kind: |e| matches!(e, CclError::InvalidArgument { what: "peer", .. }),
        says: &["peer 9"],
    },
    Case {
        name: "a stream of another device",
        call: |c, s| {
            let other = other_device_stream(c);
            let mut b = buf(s, 4);
            (c.all_reduce_in_place(&mut b, ReduceOp::Sum, &other), untouched(s, &b))
        },
        // Device indices are the runtime's (CPU devices come after any GPU), so the table
        // compares against the communicators' own devices.
        kind: |e| {
            let (mine, other) = (env().comms[0].device().index(), env().comms[1].device().index());
            let text = e.to_string();
            matches!(e, CclError::DeviceMismatch { what: "stream", expected, actual }
                if *expected == mine && *actual == other)
                && text.contains(&format!("device {mine}"))
                && text.contains(&format!("device {other}"))
        },
        says: &["stream"],
    },
    Case {
        name: "a buffer of another device",
        call: |c, s| {
            let other = other_device_stream(c);
            let a = buf(s, 4);
            let mut b = buf(&other, 4);
            (c.all_reduce(&a, &mut b, ReduceOp::Sum, s), untouched(&other, &b))
        },
        kind: |e| {
            let other = env().comms[1].device().index();
            matches!(e, CclError::DeviceMismatch { what: "receive buffer", actual, .. } if *actual == other)
                && e.to_string().contains(&format!("device {other}"))
        },
        says: &["receive buffer"],
    },
    Case {
        name: "a group that fails before it ends launches nothing",
        call: |c, s| {
            let mut good = buf(s, 4);
            let mut bad = buf(s, 3);
            let r = group(|g| {
                g.all_reduce_in_place(c, &mut good, ReduceOp::Sum, s)?;
                g.all_gather_in_place(c, &mut bad, s)
            });
            (r, untouched(s, &good) && untouched(s, &bad))
        },
        kind: |e| matches!(e, CclError::InvalidArgument { .. }),
        says: &["multiple"],
    },
    Case {
        name: "init_rank with a rank past the end",
        call: |c, _| {
            let id = UniqueId::at_address("127.0.0.1:9".parse().unwrap(), "misuse");
            (Communicator::init_rank_with(&id, 2, 2, c.device(), config()).map(|_| ()), true)
        },
        kind: |e| matches!(e, CclError::InvalidArgument { what: "rank", .. }),
        says: &["rank 2", "0..2"],
    },
    Case {
        name: "init_rank with no ranks",
        call: |c, _| {
            let id = UniqueId::at_address("127.0.0.1:9".parse().unwrap(), "misuse");
            (Communicator::init_rank_with(&id, 0, 0, c.device(), config()).map(|_| ()), true)
        },
        kind: |e| matches!(e, CclError::InvalidArgument { what: "nranks", .. }),
        says: &["at least one rank"],
    },
    Case {
        name: "init_all of no devices",
        call: |_, _| (Communicator::init_all_with(&[], config()).map(|_| ()), true),
        kind: |e| matches!(e, CclError::InvalidArgument { .. }),
        says: &["at least one device"],
    },
    Case {
        name: "init_rank with a staging area that is not a power of two",
        call: |c, _| {
            let id = UniqueId::at_address("127.0.0.1:9".parse().unwrap(), "misuse");
            let bad = config().with_buffsize(3 << 20);
            (Communicator::init_rank_with(&id, 2, 0, c.device(), bad).map(|_| ()), true)
        },
        kind: |e| matches!(e, CclError::InvalidArgument { .. }),
        says: &["buffsize", "3145728", "a power of two from 16384 to 1073741824 bytes"],
    },
    Case {
        name: "init_all with a staging area past the largest",
        call: |c, _| {
            let bad = config().with_buffsize(Config::MAX_BUFFSIZE * 2);
            (Communicator::init_all_with(&[c.device().clone()], bad).map(|_| ()), true)
        },
        kind: |e| matches!(e, CclError::InvalidArgument { .. }),
        says: &["buffsize", "2147483648", "1073741824"],
    },
    Case {
        name: "a unique id that is not one",
        call: |_, _| ("not an id".parse::<UniqueId>().map(|_| ()), true),
        kind: |e| matches!(e, CclError::InvalidUniqueId { .. }),
        says: &["256 hexadecimal digits"],
    },
    Case {
        name: "split_all with fewer colors than communicators",
        call: |_, _| (Communicator::split_all(&env().comms, &[Some(1)], &[0, 0]).map(|_| ()), true),
        kind: |e| matches!(e, CclError::InvalidArgument { .. }),
        says: &["one color and one key per communicator (2)"],
    },
];

#[test]
fn misuse_table() {
    for case in CASES {
        check(case);
    }
}

/// Bad `FERROCM_CCL_*` values name the variable and what is allowed (this binary reads the
/// environment only here).
#[test]
fn bad_environment_values() {
    let cases = [
        ("FERROCM_CCL_TIMEOUT", "soon", "positive number of seconds"),
        ("FERROCM_CCL_TIMEOUT", "-1", "positive number of seconds"),
        ("FERROCM_CCL_ALGO", "bubble", "ring, tree, oneshot, twoshot"),
        ("FERROCM_CCL_PROTO", "fast", "LL, simple"),
        ("FERROCM_CCL_TRANSPORT", "pigeon", "p2p, shm, ucx, tcp"),
        ("FERROCM_CCL_ENGINE", "gpu", "host, device"),
        ("FERROCM_CCL_DEBUG", "LOUD", "NONE, WARN, INFO or TRACE"),
        ("FERROCM_CCL_BUFFSIZE", "4M", "a power of two from 16384 to 1073741824 bytes"),
        ("FERROCM_CCL_BUFFSIZE", "100000", "a power of two from 16384 to 1073741824 bytes"),
        ("FERROCM_CCL_BUFFSIZE", "8192", "a power of two from 16384 to 1073741824 bytes"),
        ("FERROCM_CCL_BUFFSIZE", "2147483648", "a power of two from 16384 to 1073741824 bytes"),
    ];
    for (var, value, allowed) in cases {
        std::env::set_var(var, value);
        let e = Config::from_env().unwrap_err();
        std::env::remove_var(var);
        assert!(matches!(&e, CclError::InvalidEnvironment { var: v, .. } if *v == var), "{e:?}");
        let text = e.to_string();
        assert!(text.contains(var) && text.contains(value) && text.contains(allowed), "{text}");
    }
    std::env::set_var("FERROCM_CCL_ALGO", "Ring");
    assert_eq!(Config::from_env().unwrap().algorithm, Some(ferrocm_ccl::Algorithm::Ring));
    std::env::remove_var("FERROCM_CCL_ALGO");
    std::env::set_var("FERROCM_CCL_BUFFSIZE", "16384");
    assert_eq!(Config::from_env().unwrap().buffsize, 16384);
    std::env::remove_var("FERROCM_CCL_BUFFSIZE");
    assert_eq!(Config::from_env().unwrap().buffsize, Config::DEFAULT_BUFFSIZE);
}
