//! Intrinsics as data: every instruction beyond the core ops (warp shuffles and votes, atomics,
//! fences, tensor cores, asynchronous copies, `mbarrier`, TMA, `wgmma`, clusters, ...) is one
//! [`Def`] row, and everything else reads the row:
//!
//! - the [`Builder`] and the verifier check a call with the row's `sig` (operand and result
//!   types as a function of the immediates, memories and variables);
//! - the printer and the parser spell a call from the row's `name` and `imms`
//!   (`name.imm.imm @mem, $var.N, %value, ...`);
//! - the PTX back end fills the row's `ptx` template and checks `feature` and `ptx_version`
//!   against the target;
//! - the CPU executor runs the row's `exec` semantics against the [`Exec`] services it provides
//!   (registers, bounds-checked memory, barriers), which makes the row the definition the GPU is
//!   checked against.
//!
//! Adding an intrinsic is adding a row (and, for the kernel language, a DSL function that emits
//! it). Rows live in one module per family; [`TABLE`] lists them all.
//!
//! PTX templates are text with `$[...]` holes, filled by the PTX back end:
//! `$[d]` the result (a vector as `{r1, r2, ...}`), `$[d.K]` its element K, `$[aN]` value
//! operand N (`$[aN.K]` an element), `$[vN]` variable operand N's registers, `$[addrM:aK]` the
//! address (in its own state space) of the element of memory operand M at the index in value
//! operand K, `$[saddrM:aK]` the same as a 32-bit shared-window address, `$[spaceM]` the memory's
//! state space, `$[tmM]` the generic address of tensor-map operand M, `$[tyN]` the arithmetic type
//! suffix of value operand N, `$[mtyM]`/`$[btyM]` the memory/bit-size suffix of memory M's
//! element, `$[w.NAME]`/`$[i.NAME]` an immediate's word or number, `$[t.CLASS.N]` scratch
//! register N of a class (`pred`, `b16`, `b32`, `b64`, `f32`, `f64`) and `$[l.N]` a fresh label.

// Semantics index several parallel per-lane arrays by lane or element number; iterators would
// hide that.
#![allow(clippy::needless_range_loop)]

pub mod async_copy;
pub mod atomic;
pub mod cluster;
pub mod exec;
pub mod host;
pub mod mbarrier;
pub mod tensor;
pub mod timer;
pub mod tma;
pub mod warp;
pub mod wgmma;

use std::fmt;

pub use exec::{each_lane, index_value, uniform, Exec, Flow, Lanes, MbarrierOp, Wait};
pub use ferrocm_backend::Feature;

use crate::*;

/// How an immediate (a compile-time operand) is spelled after the intrinsic's name.
#[derive(Clone, Copy, Debug)]
pub enum ImmKind {
    /// One of these words; the value is the word's position.
    Word(&'static [&'static str]),
    /// A number written after a prefix (`x4`, `n128`, or no prefix), within `min..=max`.
    Num { prefix: &'static str, min: i64, max: i64 },
    /// A flag, written as its name when set (value 1) and left out when clear (value 0).
    Flag(&'static str),
}

/// A named immediate of an intrinsic.
#[derive(Clone, Copy, Debug)]
pub struct Imm {
    pub name: &'static str,
    pub kind: ImmKind,
}

/// Where an intrinsic's memory operand must live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemRule {
    /// Global memory (a slice parameter).
    Global,
    /// Global memory the kernel may write.
    GlobalMut,
    /// Static or dynamic shared memory.
    Shared,
    /// Global (writable) or shared memory, or byte-addressed memory that may be either
    /// (global, shared or generic addresses: the executor refuses a generic address that turns
    /// out to be local).
    GlobalMutOrShared,
    /// A tensor-map parameter.
    TensorMap,
}

impl MemRule {
    fn accepts(self, space: MemSpace) -> bool {
        let shared = matches!(space, MemSpace::Shared { .. } | MemSpace::DynShared { .. });
        match self {
            MemRule::Global => matches!(space, MemSpace::Global { .. }),
            MemRule::GlobalMut => matches!(space, MemSpace::Global { mutable: true, .. }),
            MemRule::Shared => shared,
            MemRule::GlobalMutOrShared => {
                shared
                    || matches!(
                        space,
                        MemSpace::Global { mutable: true, .. }
                            | MemSpace::Addressed(AddrSpace::Global | AddrSpace::Shared | AddrSpace::Generic)
                    )
            }
            MemRule::TensorMap => matches!(space, MemSpace::TensorMap { .. }),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            MemRule::Global => "global memory",
            MemRule::GlobalMut => "writable global memory",
            MemRule::Shared => "shared memory",
            MemRule::GlobalMutOrShared => {
                "writable global or shared memory (byte-addressed: global, shared or generic)"
            }
            MemRule::TensorMap => "a tensor-map parameter",
        }
    }
}

/// Which threads must execute an intrinsic together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Converged {
    /// Any subset of threads.
    No,
    /// Every live thread of the warp (`.sync.aligned` forms, shuffles with a full mask).
    Warp,
    /// Every thread of the warpgroup (four consecutive warps, the first one's index a multiple
    /// of four); the executor checks each warp and that the block holds whole warpgroups.
    Warpgroup,
}

/// What an intrinsic does besides computing its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    /// Reads memory (its memory operands, the shared window, or tensors).
    pub reads: bool,
    /// Writes memory.
    pub writes: bool,
    /// Orders memory or synchronizes threads (fences, barriers, waits): never removed or moved.
    pub sync: bool,
    pub converged: Converged,
}

impl Effects {
    pub const PURE: Effects = Effects { reads: false, writes: false, sync: false, converged: Converged::No };
    pub const WARP: Effects =
        Effects { reads: false, writes: false, sync: false, converged: Converged::Warp };
    pub const READ: Effects = Effects { reads: true, writes: false, sync: false, converged: Converged::No };
    pub const WRITE: Effects = Effects { reads: true, writes: true, sync: false, converged: Converged::No };
    pub const SYNC: Effects = Effects { reads: true, writes: true, sync: true, converged: Converged::No };

    pub const fn converged(self, c: Converged) -> Effects {
        Effects { converged: c, ..self }
    }
}

/// What a call's `sig` sees: its immediates and the types of its operands.
pub struct SigCtx<'a> {
    pub imms: &'a [i64],
    pub mems: &'a [MemData],
    pub vars: &'a [Type],
    pub args: &'a [Type],
}

impl SigCtx<'_> {
    /// The immediate called `name` of `def` (0 when there is none).
    pub fn imm(&self, def: &Def, name: &str) -> i64 {
        def.imm_index(name).and_then(|i| self.imms.get(i)).copied().unwrap_or(0)
    }
}

/// The PTX lowering of a call: a template (see the module documentation), chosen from the
/// call and its value operands' types.
pub type PtxFn = fn(&Call, &[Type], &Function) -> Result<String, String>;
/// The executor semantics of a call, against the executor's services.
pub type ExecFn = fn(&mut dyn Exec, &Call) -> Result<Flow, String>;
/// The operand and result types of a call: `Ok(result type)` or why the operands do not fit.
pub type SigFn = fn(&Def, &SigCtx) -> Result<Option<Type>, String>;

/// One intrinsic: everything the compiler and the executor know about it.
pub struct Def {
    /// The text name (`shfl`, `mma.m16n8k16`, `cp_async.commit`); immediates follow as
    /// `.`-separated segments.
    pub name: &'static str,
    /// One line for messages and documentation.
    pub doc: &'static str,
    pub imms: &'static [Imm],
    /// The memory operands and where each must live.
    pub mems: &'static [MemRule],
    /// Number of variable operands (registers the intrinsic reads and writes in place, such as
    /// `wgmma` accumulators).
    pub vars: usize,
    pub sig: SigFn,
    pub effects: Effects,
    /// The hardware feature the intrinsic needs (`None`: every target).
    pub feature: Option<Feature>,
    /// A feature some immediates add (multicast needs clusters, for example).
    pub extra_feature: fn(&[i64]) -> Option<Feature>,
    /// The oldest PTX ISA version that has the instruction.
    pub ptx_version: (u32, u32),
    pub ptx: PtxFn,
    /// Module-scope PTX declarations the lowering refers to (emitted once per module).
    pub ptx_globals: &'static [&'static str],
    pub exec: ExecFn,
}

impl fmt::Debug for Def {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// No extra feature.
pub fn no_extra(_: &[i64]) -> Option<Feature> {
    None
}

impl Def {
    /// The position of the immediate called `name`.
    pub fn imm_index(&self, name: &str) -> Option<usize> {
        self.imms.iter().position(|i| i.name == name)
    }

    /// The features a call with immediates `imms` needs.
    pub fn features(&self, imms: &[i64]) -> impl Iterator<Item = Feature> {
        self.feature.into_iter().chain((self.extra_feature)(imms))
    }
}

/// One use of an intrinsic: the row and its compile-time operands. Value operands are the
/// instruction's operand list ([`Op::Intrinsic`]).
#[derive(Clone)]
pub struct Call {
    pub def: &'static Def,
    pub imms: Vec<i64>,
    pub mems: Vec<Mem>,
    pub vars: Vec<Var>,
}

impl PartialEq for Call {
    fn eq(&self, o: &Call) -> bool {
        std::ptr::eq(self.def, o.def) && self.imms == o.imms && self.mems == o.mems && self.vars == o.vars
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:?} mems {:?} vars {:?}", self.def.name, self.imms, self.mems, self.vars)
    }
}

impl Call {
    /// A call of `def` with immediates by name (missing ones are 0).
    pub fn new(def: &'static Def, imms: &[(&str, i64)], mems: &[Mem], vars: &[Var]) -> Call {
        let values = def
            .imms
            .iter()
            .map(|i| imms.iter().find(|(n, _)| *n == i.name).map(|(_, v)| *v).unwrap_or(0))
            .collect();
        Call { def, imms: values, mems: mems.to_vec(), vars: vars.to_vec() }
    }

    /// The immediate called `name` (0 when the row has none).
    pub fn imm(&self, name: &str) -> i64 {
        self.def.imm_index(name).and_then(|i| self.imms.get(i)).copied().unwrap_or(0)
    }

    /// The word an immediate of kind [`ImmKind::Word`] stands for.
    pub fn word(&self, name: &str) -> &'static str {
        match self.def.imm_index(name).map(|i| self.def.imms[i].kind) {
            Some(ImmKind::Word(words)) => words.get(self.imm(name) as usize).copied().unwrap_or("?"),
            _ => "?",
        }
    }

    /// The call's text name: the row's name and its immediates (`ldmatrix.x4.trans`).
    pub fn text_name(&self) -> String {
        let mut s = self.def.name.to_string();
        for (spec, &v) in self.def.imms.iter().zip(&self.imms) {
            match spec.kind {
                ImmKind::Word(words) => {
                    s.push('.');
                    s.push_str(words.get(v as usize).copied().unwrap_or("?"));
                }
                ImmKind::Num { prefix, .. } => {
                    s.push('.');
                    s.push_str(prefix);
                    s.push_str(&v.to_string());
                }
                ImmKind::Flag(name) => {
                    if v != 0 {
                        s.push('.');
                        s.push_str(name);
                    }
                }
            }
        }
        s
    }

    /// Checks the immediates against their kinds, the memories against the row, and the operand
    /// types with the row's `sig`; returns the result type.
    pub fn check(&self, func: &Function, args: &[Type]) -> Result<Option<Type>, String> {
        let def = self.def;
        if self.imms.len() != def.imms.len() {
            return Err(format!("takes {} immediates, got {}", def.imms.len(), self.imms.len()));
        }
        for (spec, &v) in def.imms.iter().zip(&self.imms) {
            let ok = match spec.kind {
                ImmKind::Word(words) => v >= 0 && (v as usize) < words.len(),
                ImmKind::Num { min, max, .. } => (min..=max).contains(&v),
                ImmKind::Flag(_) => v == 0 || v == 1,
            };
            if !ok {
                return Err(match spec.kind {
                    ImmKind::Num { min, max, .. } => {
                        format!("{} is {v}; it must be from {min} to {max}", spec.name)
                    }
                    _ => format!("{} has no value {v}", spec.name),
                });
            }
        }
        if self.mems.len() != def.mems.len() {
            return Err(format!("takes {} memory operands, got {}", def.mems.len(), self.mems.len()));
        }
        let mut mems = Vec::with_capacity(self.mems.len());
        for (rule, m) in def.mems.iter().zip(&self.mems) {
            let Some(data) = func.mems.get(m.0 as usize) else {
                return Err(format!("memory {} does not exist", m.0));
            };
            if !rule.accepts(data.space) {
                return Err(format!("`{}` is not {}", data.name, rule.describe()));
            }
            mems.push(data.clone());
        }
        if self.vars.len() != def.vars {
            return Err(format!("takes {} variables, got {}", def.vars, self.vars.len()));
        }
        let mut vars = Vec::with_capacity(self.vars.len());
        for v in &self.vars {
            match func.vars.get(v.0 as usize) {
                Some(d) => vars.push(d.ty),
                None => return Err(format!("variable {} does not exist", v.0)),
            }
        }
        (def.sig)(def, &SigCtx { imms: &self.imms, mems: &mems, vars: &vars, args })
    }
}

/// Every intrinsic, by family.
pub static TABLE: &[&Def] = &[
    &warp::SHFL,
    &warp::VOTE,
    &warp::ELECT,
    &warp::NAMED_BARRIER,
    &warp::WARP_SYNC,
    &warp::GRID_SYNC,
    &atomic::ATOMIC,
    &atomic::FENCE,
    &atomic::FENCE_PROXY_ASYNC,
    &atomic::FENCE_MBARRIER_INIT,
    &atomic::SHARED_ADDR,
    &tensor::MMA,
    &tensor::DMMA,
    &tensor::DMMA16,
    &tensor::DMMA8,
    &tensor::LDMATRIX,
    &tensor::STMATRIX,
    &async_copy::CP_ASYNC,
    &async_copy::CP_ASYNC_COMMIT,
    &async_copy::CP_ASYNC_WAIT,
    &async_copy::BULK_COMMIT,
    &async_copy::BULK_WAIT,
    &mbarrier::INIT,
    &mbarrier::ARRIVE,
    &mbarrier::ARRIVE_EXPECT_TX,
    &mbarrier::EXPECT_TX,
    &mbarrier::TRY_WAIT,
    &mbarrier::TEST_WAIT,
    &mbarrier::ARRIVE_REMOTE,
    &mbarrier::ARRIVE_REMOTE_CTA,
    &tma::LOAD,
    &tma::STORE,
    &cluster::ARRIVE,
    &cluster::WAIT,
    &cluster::DSMEM_LOAD,
    &cluster::DSMEM_LOAD2,
    &cluster::DSMEM_STORE,
    &cluster::DSMEM_STORE2,
    &wgmma::FENCE,
    &wgmma::COMMIT,
    &wgmma::WAIT,
    &wgmma::MMA,
    &wgmma::SETMAXNREG,
    &host::PRINTF,
    &host::ASSERT_FAIL,
    &host::TRAP,
    &host::NANOSLEEP,
    &timer::GLOBAL_TIMER,
    &timer::SMID,
];

/// The row whose name `text` (a full call name such as `ldmatrix.x4.trans`) starts with, and the
/// immediates its remaining segments spell.
pub fn lookup(text: &str) -> Result<(&'static Def, Vec<i64>), String> {
    let segs: Vec<&str> = text.split('.').collect();
    // The longest row name that is a prefix on a segment boundary wins (`cp_async.commit`
    // before `cp_async`).
    let mut best: Option<(&'static Def, usize)> = None;
    for def in TABLE {
        let n = def.name.split('.').count();
        if n <= segs.len() && segs[..n].join(".") == def.name && best.is_none_or(|(_, m)| n > m) {
            best = Some((def, n));
        }
    }
    let Some((def, n)) = best else { return Err(format!("unknown instruction `{text}`")) };
    let mut rest = &segs[n..];
    let mut imms = Vec::with_capacity(def.imms.len());
    for spec in def.imms {
        let seg = rest.first().copied();
        let v = match spec.kind {
            ImmKind::Word(words) => match seg.and_then(|s| words.iter().position(|w| *w == s)) {
                Some(i) => {
                    rest = &rest[1..];
                    i as i64
                }
                None => return Err(format!("`{text}`: expected {} ({})", spec.name, words.join(", "))),
            },
            ImmKind::Num { prefix, .. } => {
                match seg.and_then(|s| s.strip_prefix(prefix)).and_then(|s| s.parse().ok()) {
                    Some(v) => {
                        rest = &rest[1..];
                        v
                    }
                    None => return Err(format!("`{text}`: expected {} as `{prefix}N`", spec.name)),
                }
            }
            ImmKind::Flag(name) => {
                if seg == Some(name) {
                    rest = &rest[1..];
                    1
                } else {
                    0
                }
            }
        };
        imms.push(v);
    }
    if let Some(extra) = rest.first() {
        return Err(format!("`{text}`: unexpected `.{extra}`"));
    }
    Ok((def, imms))
}

// ---------------------------------------------------------------- signature helpers

/// Checks that value operand types are exactly `want`.
pub fn args_are(args: &[Type], want: &[Type]) -> Result<(), String> {
    if args.len() != want.len() {
        return Err(format!("takes {} operands, got {}", want.len(), args.len()));
    }
    for (i, (a, w)) in args.iter().zip(want).enumerate() {
        if a != w {
            return Err(format!("operand {i} is {a}, expected {w}"));
        }
    }
    Ok(())
}

/// Checks that operand `i` is an integer scalar (an element index).
pub fn is_index(args: &[Type], i: usize) -> Result<(), String> {
    match args.get(i) {
        Some(Type::Scalar(t)) if t.is_int() => Ok(()),
        Some(t) => Err(format!("operand {i} is {t}, expected an integer index")),
        None => Err(format!("operand {i} (an integer index) is missing")),
    }
}

/// Checks the operand count.
pub fn arg_count(args: &[Type], n: usize) -> Result<(), String> {
    if args.len() == n {
        Ok(())
    } else {
        Err(format!("takes {n} operands, got {}", args.len()))
    }
}

pub const U32: Type = Type::Scalar(ScalarType::U32);
pub const U64: Type = Type::Scalar(ScalarType::U64);
pub const BOOL: Type = Type::Scalar(ScalarType::Bool);

/// A `sig` for intrinsics without operands or result.
pub fn sig_none(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    arg_count(c.args, 0).map(|_| None)
}

/// A PTX template that is the same text for every call.
#[macro_export]
macro_rules! ptx_text {
    ($t:expr) => {{
        fn f(
            _: &$crate::intrinsics::Call,
            _: &[$crate::Type],
            _: &$crate::Function,
        ) -> Result<String, String> {
            Ok($t.to_string())
        }
        f
    }};
}
pub use ptx_text;
