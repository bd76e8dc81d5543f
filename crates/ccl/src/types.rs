//! Element types and reduction operators, as NCCL names them (`ncclDataType_t`, `ncclRedOp_t`).

use std::fmt;

use ferrocm_runtime::DeviceRepr;
use half::{bf16, f16};

/// The element type of a collective's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataType {
    I8,
    U8,
    I32,
    U32,
    I64,
    U64,
    F16,
    Bf16,
    F32,
    F64,
}

impl DataType {
    /// Every type, in NCCL's order.
    pub const ALL: [DataType; 10] = [
        DataType::I8,
        DataType::U8,
        DataType::I32,
        DataType::U32,
        DataType::I64,
        DataType::U64,
        DataType::F16,
        DataType::Bf16,
        DataType::F32,
        DataType::F64,
    ];

    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            DataType::I8 | DataType::U8 => 1,
            DataType::F16 | DataType::Bf16 => 2,
            DataType::I32 | DataType::U32 | DataType::F32 => 4,
            DataType::I64 | DataType::U64 | DataType::F64 => 8,
        }
    }

    /// The name nccl-tests prints (`int8`, `float`, `bfloat16`, ...).
    pub const fn nccl_name(self) -> &'static str {
        match self {
            DataType::I8 => "int8",
            DataType::U8 => "uint8",
            DataType::I32 => "int32",
            DataType::U32 => "uint32",
            DataType::I64 => "int64",
            DataType::U64 => "uint64",
            DataType::F16 => "half",
            DataType::Bf16 => "bfloat16",
            DataType::F32 => "float",
            DataType::F64 => "double",
        }
    }

    /// Parses a Rust name (`f32`), an NCCL name (`float`) or an nccl-tests name (`float`,
    /// `int32`, `half`).
    pub fn parse(name: &str) -> Option<DataType> {
        let n = name.to_ascii_lowercase();
        DataType::ALL.into_iter().find(|t| {
            let rust = format!("{t}");
            n == rust || n == t.nccl_name() || Some(n.as_str()) == t.alias()
        })
    }

    fn alias(self) -> Option<&'static str> {
        Some(match self {
            DataType::I8 => "char",
            DataType::I32 => "int",
            DataType::F16 => "float16",
            DataType::F32 => "float32",
            DataType::F64 => "float64",
            DataType::Bf16 => "bf16",
            _ => return None,
        })
    }

    /// Whether the type is a floating-point type.
    pub const fn is_float(self) -> bool {
        matches!(self, DataType::F16 | DataType::Bf16 | DataType::F32 | DataType::F64)
    }

    pub(crate) fn code(self) -> u8 {
        DataType::ALL.iter().position(|&t| t == self).unwrap_or(0) as u8
    }

    pub(crate) fn from_code(code: u8) -> Option<DataType> {
        DataType::ALL.get(code as usize).copied()
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DataType::I8 => "i8",
            DataType::U8 => "u8",
            DataType::I32 => "i32",
            DataType::U32 => "u32",
            DataType::I64 => "i64",
            DataType::U64 => "u64",
            DataType::F16 => "f16",
            DataType::Bf16 => "bf16",
            DataType::F32 => "f32",
            DataType::F64 => "f64",
        })
    }
}

/// A reduction operator. Integer sums and products wrap; `Avg` is the sum divided by the number
/// of ranks (a truncating division for integer types, as NCCL's `ncclAvg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReduceOp {
    Sum,
    Prod,
    Min,
    Max,
    Avg,
}

impl ReduceOp {
    /// Every operator.
    pub const ALL: [ReduceOp; 5] =
        [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max, ReduceOp::Avg];

    /// Parses `sum`, `prod`, `min`, `max` or `avg`.
    pub fn parse(name: &str) -> Option<ReduceOp> {
        ReduceOp::ALL.into_iter().find(|o| o.to_string().eq_ignore_ascii_case(name))
    }

    /// The operator applied while combining two partial results (`Avg` sums, and divides once
    /// at the end).
    pub(crate) fn combine(self) -> ReduceOp {
        match self {
            ReduceOp::Avg => ReduceOp::Sum,
            op => op,
        }
    }

    pub(crate) fn code(self) -> u8 {
        ReduceOp::ALL.iter().position(|&o| o == self).unwrap_or(0) as u8
    }

    pub(crate) fn from_code(code: u8) -> Option<ReduceOp> {
        ReduceOp::ALL.get(code as usize).copied()
    }
}

impl fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
            ReduceOp::Avg => "avg",
        })
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type a collective can move and reduce: `i8`, `u8`, `i32`, `u32`, `i64`, `u64`,
/// `f16`, `bf16`, `f32` and `f64`. Sealed: the library has a reduction for exactly these.
pub trait CclType:
    DeviceRepr + sealed::Sealed + ferrocm_kernel::dsl::Num + ferrocm_kernel::dsl::Elem<Repr = Self>
{
    /// The matching [`DataType`].
    const TYPE: DataType;
}

macro_rules! ccl_type {
    ($($t:ty => $d:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl CclType for $t {
            const TYPE: DataType = DataType::$d;
        }
    )*};
}
ccl_type!(i8 => I8, u8 => U8, i32 => I32, u32 => U32, i64 => I64, u64 => U64, f16 => F16, bf16 => Bf16,
    f32 => F32, f64 => F64);
