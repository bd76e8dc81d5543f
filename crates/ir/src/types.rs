//! Scalar and vector types of the IR.

use std::fmt;

/// The scalar element types a kernel can compute with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    BF16,
    F32,
    F64,
}

impl ScalarType {
    /// Every scalar type, in declaration order.
    pub const ALL: [ScalarType; 13] = [
        ScalarType::Bool,
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::F16,
        ScalarType::BF16,
        ScalarType::F32,
        ScalarType::F64,
    ];

    /// Size in bytes in memory (a bool is one byte).
    pub fn size(self) -> u32 {
        use ScalarType::*;
        match self {
            Bool | I8 | U8 => 1,
            I16 | U16 | F16 | BF16 => 2,
            I32 | U32 | F32 => 4,
            I64 | U64 | F64 => 8,
        }
    }

    /// Size in bits of the value (a bool is one bit).
    pub fn bits(self) -> u32 {
        if self == ScalarType::Bool {
            1
        } else {
            self.size() * 8
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F16 | ScalarType::BF16 | ScalarType::F32 | ScalarType::F64)
    }

    pub fn is_int(self) -> bool {
        !self.is_float() && self != ScalarType::Bool
    }

    pub fn is_signed(self) -> bool {
        matches!(self, ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64)
            || self.is_float()
    }

    /// The text name used by the printer (Rust spelling).
    pub fn name(self) -> &'static str {
        use ScalarType::*;
        match self {
            Bool => "bool",
            I8 => "i8",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            F16 => "f16",
            BF16 => "bf16",
            F32 => "f32",
            F64 => "f64",
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The type of an IR value: a scalar, or a vector of scalars: 2 or 4 elements for wide memory
/// accesses, up to [`Type::MAX_LANES`] for register fragments (a `wgmma` accumulator), always
/// indexed by compile-time constants so they stay in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Scalar(ScalarType),
    /// `lanes` is 2 to [`Type::MAX_LANES`].
    Vector(ScalarType, u8),
}

impl Type {
    /// The most elements a vector has (an m64n256 f32 accumulator per thread).
    pub const MAX_LANES: u32 = 128;

    /// The element type (the type itself for a scalar).
    pub fn elem(self) -> ScalarType {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) => s,
        }
    }

    /// Number of elements (1 for a scalar).
    pub fn lanes(self) -> u32 {
        match self {
            Type::Scalar(_) => 1,
            Type::Vector(_, n) => n as u32,
        }
    }

    pub fn is_scalar(self) -> bool {
        matches!(self, Type::Scalar(_))
    }
}

impl From<ScalarType> for Type {
    fn from(s: ScalarType) -> Self {
        Type::Scalar(s)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Vector(s, n) => write!(f, "{s}x{n}"),
        }
    }
}
