//! ferrocm's kernel IR: the contract between the `#[kernel]` front end and the back ends (PTX
//! codegen, CPU executor).
//!
//! Design (after Cranelift): a [`Function`] owns arenas; values, variables, memories and regions
//! are typed `u32` indices into them. Control flow is structured: an instruction list
//! ([`Region`]) holds `if`, `loop` (with a latch that `continue` jumps to), `break`/`continue` to an
//! enclosing loop by depth, and `return`. Mutable state lives in [`Var`]s (registers that may be
//! written many times); every [`Value`] is defined exactly once. Memory is never addressed by raw
//! pointers: loads, stores and atomics name a [`Mem`] (a slice parameter, a shared or local array)
//! and an element index, so every back end knows the buffer and can check bounds.
//!
//! One exception to element addressing exists for front ends that start from pointer-based code
//! (the PTX front end): a [`MemSpace::Addressed`] memory is indexed by byte address in one of
//! the address spaces of [`AddrSpace`], and the CPU executor checks every access against the
//! allocations, shared memory or local memory it can reach. See [`generic`] for how generic
//! addresses name shared and local memory. The PTX back end refuses such functions: GPUs run
//! the PTX they were read from.
//!
//! [`timed`](mod@timed) and [`timed_ptx`] make the timed variants kernel tracing launches (from IR and from
//! PTX text).
//!
//! Instructions beyond the core ops are intrinsics, defined as data: one [`intrinsics::Def`] row
//! each (operands and result types, effects, minimum feature and PTX version, PTX template,
//! CPU executor semantics), from which the builder, the verifier, the printer, the parser and
//! both back ends derive.
//!
//! Invariants (checked by [`verify`]): a value is used only after its definition, in the region
//! that defines it or one nested in it; operand types match what each op expects (for an
//! intrinsic, what its row's `sig` says); unary and binary results have the type their op gives
//! ([`UnaryOp::result_type`], [`BinaryOp::result_type`]: bit counts are `u32`, `mul_wide` doubles
//! the width); `break` and `continue` lie inside as many loops as their depth says; stores target
//! writable memory. Array sizes are computed in `u64` and checked against the GPU's limits
//! ([`Limits`]) by every back end. The text form is produced by `Display` for [`Function`] and
//! read back by [`parse`]; names are `[A-Za-z_][A-Za-z0-9_]*`, so any function the builder
//! accepts prints to text that parses back to it.
//! [`expand_f64_math`] rewrites f64 `exp`/`ln`/`sin`/`cos` into exactly rounded ops for back
//! ends without accurate f64 transcendentals.

mod builder;
mod expand;
pub mod intrinsics;
mod layout;
mod parse;
mod print;
pub mod timed;
pub mod timed_ptx;
mod types;
mod verify;

pub use builder::{BuildError, Builder, MAX_ARRAY_BYTES};
pub use expand::{expand_f64_math, has_f64_math};
pub use intrinsics::{Call, Def};
pub use layout::{LimitError, Limits};
pub use parse::{parse, ParseError};
pub use timed::timed;
pub use types::{ScalarType, Type};
pub use verify::{verify, VerifyError};

/// An SSA value: defined once, by one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

/// A mutable variable (a register that may be written many times).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

/// A memory object: a slice parameter, a shared-memory array or a per-thread local array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mem(pub u32);

/// A list of instructions, executed in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region(pub u32);

/// A kernel parameter. The launch ABI: a scalar is passed as its bytes; a slice is passed as
/// two parameters, its device address (`u64`) then its length in elements (`u64`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Scalar(ScalarType),
    Slice {
        elem: ScalarType,
        mutable: bool,
    },
    /// A tensor map (`CUtensorMap`) passed by value: 128 bytes, 64-byte aligned. Intrinsics name
    /// it through the memory that [`MemSpace::TensorMap`] gives it.
    TensorMap,
}

/// Where a memory object lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemSpace {
    /// Global memory behind slice parameter `param` (an index into [`Function::params`]).
    Global { param: u32, mutable: bool },
    /// A statically sized shared-memory array of `len` elements, one per block, at an address
    /// aligned to `align` bytes (a power of two from 16 to 1024).
    Shared { len: u32, align: u32 },
    /// The block's dynamic shared memory (sized at launch), viewed as elements, its start
    /// aligned to `align` bytes (a power of two from 16 to 1024).
    DynShared { align: u32 },
    /// A per-thread array of `len` elements.
    Local { len: u32 },
    /// The tensor map passed in parameter `param` (TMA copies read the tensor it describes).
    TensorMap { param: u32 },
    /// Byte-addressed memory: the index is a byte address in `space` (an unsigned `u32` or
    /// `u64`), and the element type is what one access reads or writes (a vector access reads
    /// consecutive elements from that address). Several addressed memories of different
    /// element types may name the same bytes. Accesses must be aligned to their full size.
    /// Produced by front ends for pointer-based code (PTX); the kernel language never makes it.
    Addressed(AddrSpace),
}

/// The address space of a [`MemSpace::Addressed`] memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrSpace {
    /// Device addresses: an access must lie inside one allocation the kernel may reach (the
    /// executor asks its host which those are).
    Global,
    /// Byte offsets into the block's shared memory: the static shared arrays as
    /// [`Function::shared_layout`] places them, then the dynamic shared memory (at the offset
    /// [`Function::dyn_shared_offset`] gives).
    Shared,
    /// Byte offsets into the thread's local memory: the local arrays as
    /// [`Function::local_layout`] places them.
    Local,
    /// Generic addresses: the shared and local windows of [`generic`], else global.
    Generic,
}

impl AddrSpace {
    /// The name used by the text form.
    pub fn name(self) -> &'static str {
        match self {
            AddrSpace::Global => "global",
            AddrSpace::Shared => "shared",
            AddrSpace::Local => "local",
            AddrSpace::Generic => "generic",
        }
    }
}

/// Generic addressing (PTX's `cvta`): shared and local memory appear in the generic address
/// space as two windows above every host address (the upper half of the 64-bit space, which
/// user-space addresses never reach), the same windows for every block and thread, as on the
/// GPU. A generic address `a` with `SHARED_BASE <= a < SHARED_BASE + WINDOW_BYTES` names shared
/// byte `a - SHARED_BASE`; the local window likewise; every other address is global.
pub mod generic {
    /// First generic address of the shared-memory window.
    pub const SHARED_BASE: u64 = 0xffff_f000_0000_0000;
    /// First generic address of the local-memory window.
    pub const LOCAL_BASE: u64 = 0xffff_e000_0000_0000;
    /// Size of each window in bytes.
    pub const WINDOW_BYTES: u64 = 1 << 32;
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemData {
    pub name: String,
    pub elem: ScalarType,
    pub space: MemSpace,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarData {
    pub name: String,
    pub ty: Type,
}

/// One axis of a three-dimensional index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }
}

/// Values the hardware provides; all are `u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    ThreadIdx(Axis),
    BlockIdx(Axis),
    BlockDim(Axis),
    GridDim(Axis),
    LaneId,
    /// The device's warp size (32 on NVIDIA, 64 on some AMD GPUs): a device property.
    WarpSize,
    /// The block's rank within its cluster (`%cluster_ctarank`; 0 without clusters).
    ClusterRank,
    /// Blocks per cluster (`%cluster_nctarank`; 1 without clusters).
    ClusterSize,
    /// The block's position within its cluster (`%cluster_ctaid`).
    ClusterBlockIdx(Axis),
    /// The cluster's shape in blocks (`%cluster_nctaid`).
    ClusterDim(Axis),
    /// The cluster's position in the grid of clusters (`%clusterid`).
    ClusterIdx(Axis),
    /// The grid's shape in clusters (`%nclusterid`).
    ClusterGridDim(Axis),
}

impl Special {
    /// Whether the value needs thread-block clusters (sm_90).
    pub fn needs_clusters(self) -> bool {
        matches!(
            self,
            Special::ClusterRank
                | Special::ClusterSize
                | Special::ClusterBlockIdx(_)
                | Special::ClusterDim(_)
                | Special::ClusterIdx(_)
                | Special::ClusterGridDim(_)
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    /// Bitwise not on integers, logical not on bool.
    Not,
    Abs,
    Sqrt,
    /// Square root with a relative error of a few ulp (NVIDIA: `sqrt.approx.ftz.f32`, CUDA's
    /// `__fsqrt_rn` with fast math); correctly rounded for f64 and on the CPU executor.
    SqrtApprox,
    Rsqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Sin,
    Cos,
    Tanh,
    Floor,
    Ceil,
    /// Number of leading zero bits, as a `u32` (the width for 0). 32- and 64-bit integers.
    LeadingZeros,
    /// Number of trailing zero bits, as a `u32` (the width for 0). 32- and 64-bit integers.
    TrailingZeros,
    /// Number of one bits (population count), as a `u32`. 32- and 64-bit integers.
    CountOnes,
    /// The bits in reverse order, same type. 32- and 64-bit integers.
    ReverseBits,
}

impl UnaryOp {
    /// The result type for an operand of type `t` (bit counts are `u32`, all else `t`).
    pub fn result_type(self, t: ScalarType) -> ScalarType {
        match self {
            UnaryOp::LeadingZeros | UnaryOp::TrailingZeros | UnaryOp::CountOnes => ScalarType::U32,
            _ => t,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Min,
    Max,
    Pow,
    /// The high half of the full product of two 32- or 64-bit integers (same type).
    MulHi,
    /// The full product of two 32-bit integers: `u32 x u32 -> u64`, `i32 x i32 -> i64`.
    MulWide,
}

impl BinaryOp {
    /// The result type for a left operand of type `t` (`None` where the op has no wide type).
    pub fn result_type(self, t: ScalarType) -> Option<ScalarType> {
        match (self, t) {
            (BinaryOp::MulWide, ScalarType::U32) => Some(ScalarType::U64),
            (BinaryOp::MulWide, ScalarType::I32) => Some(ScalarType::I64),
            (BinaryOp::MulWide, _) => None,
            _ => Some(t),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exch,
    /// Compare and swap: `compare` holds the expected value.
    Cas,
}

/// Warp shuffle modes (the `shfl` intrinsic's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleMode {
    /// Read lane `lane`.
    Idx,
    /// Read lane `laneid - lane`, or keep the own value below lane 0.
    Up,
    /// Read lane `laneid + lane`, or keep the own value past the last lane.
    Down,
    /// Read lane `laneid ^ lane`.
    Xor,
}

/// Warp votes (the `vote` intrinsic's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    Any,
    All,
    /// A `u32` with bit `i` set where lane `i`'s predicate is true.
    Ballot,
}

/// Memory fence scopes (the `fence` intrinsic's `scope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceScope {
    Block,
    Device,
    System,
}

/// A constant: its type and its bit pattern (zero-extended to 64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Const {
    pub ty: ScalarType,
    pub bits: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Const(Const),
    /// The scalar kernel parameter with this index into [`Function::params`].
    Param(u32),
    Special(Special),
    /// The length in elements of a global slice or of the dynamic shared memory (`u64`).
    Len(Mem),
    Unary(UnaryOp, Value),
    Binary(BinaryOp, Value, Value),
    Cmp(CmpOp, Value, Value),
    /// `cond ? a : b`.
    Select(Value, Value, Value),
    /// Numeric conversion to the result type (Rust `as` semantics on the CPU; on the GPU
    /// float-to-int saturates and rounds toward zero too).
    Cast(Value),
    /// Reinterprets the bits as the result type, which has the same size.
    Bitcast(Value),
    /// `a * b + c` with one rounding.
    Fma(Value, Value, Value),
    MakeVector(Vec<Value>),
    Extract(Value, u8),
    ReadVar(Var),
    WriteVar(Var, Value),
    /// Element `lane` of a vector variable (a register fragment, indexed at compile time).
    ReadVarLane(Var, u8),
    /// Writes element `lane` of a vector variable.
    WriteVarLane(Var, u8, Value),
    /// Loads element `index` of `mem`; for a vector result of `n` lanes, elements
    /// `index*n .. index*n+n` (a wide access, aligned to its size).
    Load {
        mem: Mem,
        index: Value,
    },
    Store {
        mem: Mem,
        index: Value,
        value: Value,
    },
    /// Block-wide barrier (`__syncthreads`): every thread of the block must reach it, at the
    /// same barrier.
    Barrier,
    If {
        cond: Value,
        then_region: Region,
        else_region: Region,
    },
    /// Runs `body` then `latch` until a `break`. `continue` jumps to `latch`.
    Loop {
        body: Region,
        latch: Region,
    },
    /// Leaves the loop `depth` levels out (0 is the innermost).
    Break {
        depth: u32,
    },
    /// Jumps to the latch of the loop `depth` levels out.
    Continue {
        depth: u32,
    },
    Return,
    /// A call of an intrinsic (see [`intrinsics`]) with its value operands.
    Intrinsic(Call, Vec<Value>),
}

impl Op {
    /// The values the instruction reads, in operand order (regions, variables and memories
    /// are not values).
    pub fn operands(&self) -> Vec<Value> {
        match self {
            Op::Unary(_, a)
            | Op::Cast(a)
            | Op::Bitcast(a)
            | Op::Extract(a, _)
            | Op::WriteVar(_, a)
            | Op::WriteVarLane(_, _, a) => vec![*a],
            Op::Binary(_, a, b) | Op::Cmp(_, a, b) => vec![*a, *b],
            Op::Select(a, b, c) | Op::Fma(a, b, c) => vec![*a, *b, *c],
            Op::MakeVector(p) | Op::Intrinsic(_, p) => p.clone(),
            Op::Load { index, .. } => vec![*index],
            Op::Store { index, value, .. } => vec![*index, *value],
            Op::If { cond, .. } => vec![*cond],
            _ => vec![],
        }
    }
}

/// One instruction and the value it defines, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub result: Option<Value>,
    pub op: Op,
}

/// How a kernel must be launched, as PTX performance directives state it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelAttrs {
    /// The most threads a block may have (`.maxntid`); the compiler may then give each thread
    /// more registers. Launches with more threads are refused.
    pub max_threads: Option<u32>,
    /// Blocks that must fit on one multiprocessor at once (`.minnctapersm`).
    pub min_blocks_per_sm: Option<u32>,
    /// The cluster shape every launch uses (`.reqnctapercluster`).
    pub cluster: Option<[u32; 3]>,
}

/// A kernel: parameters, arenas and the body region.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub attrs: KernelAttrs,
    /// The type of each value, indexed by [`Value`].
    pub values: Vec<Type>,
    pub vars: Vec<VarData>,
    pub mems: Vec<MemData>,
    pub regions: Vec<Vec<Inst>>,
    pub body: Region,
}

impl Function {
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v.0 as usize]
    }

    pub fn region(&self, r: Region) -> &[Inst] {
        &self.regions[r.0 as usize]
    }

    pub fn mem(&self, m: Mem) -> &MemData {
        &self.mems[m.0 as usize]
    }

    /// Number of launch arguments under the ABI (a slice counts twice).
    pub fn abi_arg_count(&self) -> usize {
        self.params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Scalar(_) | ParamKind::TensorMap => 1,
                ParamKind::Slice { .. } => 2,
            })
            .sum()
    }

    /// Calls `f` on every instruction, depth first, in program order.
    pub fn walk(&self, f: &mut impl FnMut(&Inst)) {
        fn go(func: &Function, r: Region, f: &mut impl FnMut(&Inst)) {
            for inst in func.region(r) {
                f(inst);
                match &inst.op {
                    Op::If { then_region, else_region, .. } => {
                        go(func, *then_region, f);
                        go(func, *else_region, f);
                    }
                    Op::Loop { body, latch } => {
                        go(func, *body, f);
                        go(func, *latch, f);
                    }
                    _ => {}
                }
            }
        }
        go(self, self.body, f)
    }
}
