//! Tensor maps: the description of a tiled region of a global tensor that the tensor memory
//! accelerator (TMA, `cp.async.bulk.tensor`) copies to and from shared memory.
//!
//! A [`TensorMapDesc`] carries the fields of `cuTensorMapEncodeTiled`. [`TensorMapDesc::validate`]
//! applies the driver's rules on every backend, so the CPU never accepts a map a GPU would
//! refuse. A kernel receives a tensor map by value as a 128-byte, 64-byte-aligned parameter: on
//! NVIDIA the driver's opaque encoding, on the CPU executor [`TensorMapDesc::to_cpu_bytes`]'s
//! layout, which the executor decodes to perform the copies the map describes, swizzle included.

use std::fmt;

use crate::DevicePtr;

/// The size of an encoded tensor map (`CUtensorMap`), in bytes.
pub const TENSOR_MAP_BYTES: usize = 128;
/// The alignment a tensor map parameter needs, in bytes.
pub const TENSOR_MAP_ALIGN: usize = 64;
/// The largest tensor rank.
pub const MAX_RANK: usize = 5;

macro_rules! c_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $n:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        #[repr(u32)]
        pub enum $name { $($(#[$vm])* $v = $n),* }

        impl $name {
            /// The value from its driver enum number.
            pub fn from_raw(n: u32) -> Option<$name> {
                match n { $($n => Some($name::$v),)* _ => None }
            }
        }
    };
}

c_enum!(
    /// Element type (`CUtensorMapDataType`, same numbering).
    TensorMapDataType {
        U8 = 0, U16 = 1, U32 = 2, I32 = 3, U64 = 4, I64 = 5, F16 = 6, F32 = 7, F64 = 8, BF16 = 9,
        F32Ftz = 10, TF32 = 11, TF32Ftz = 12,
    }
);

impl TensorMapDataType {
    /// Bytes per element.
    pub fn size(self) -> u64 {
        use TensorMapDataType::*;
        match self {
            U8 => 1,
            U16 | F16 | BF16 => 2,
            U32 | I32 | F32 | F32Ftz | TF32 | TF32Ftz => 4,
            U64 | I64 | F64 => 8,
        }
    }

    /// Whether the type is a floating-point type (NaN fill is allowed only for those).
    pub fn is_float(self) -> bool {
        use TensorMapDataType::*;
        matches!(self, F16 | F32 | F64 | BF16 | F32Ftz | TF32 | TF32Ftz)
    }
}

c_enum!(
    /// Interleaved layouts (`CUtensorMapInterleave`).
    TensorMapInterleave { None = 0, B16 = 1, B32 = 2 }
);

c_enum!(
    /// Shared-memory swizzle (`CUtensorMapSwizzle`): the 16-byte chunks of each row are permuted
    /// by XOR with the row index within a repeating pattern, to avoid bank conflicts.
    TensorMapSwizzle { None = 0, B32 = 1, B64 = 2, B128 = 3 }
);

impl TensorMapSwizzle {
    /// The swizzle span in bytes (0 for none): a box row may be at most this long.
    pub fn span(self) -> u64 {
        match self {
            TensorMapSwizzle::None => 0,
            TensorMapSwizzle::B32 => 32,
            TensorMapSwizzle::B64 => 64,
            TensorMapSwizzle::B128 => 128,
        }
    }

    /// The shared-memory byte offset where the byte at unswizzled `offset` lands: bits 4.. of
    /// the offset (the 16-byte chunk) are XORed with bits 7.. (the 128-byte line), over 1, 2 or
    /// 3 bits. The pattern is a function of the absolute shared address, not of the offset into
    /// the box: an H100 loading a 128-byte-swizzled box to destinations 128 and 512 bytes past a
    /// 1024-byte boundary permuted it by the address bits (see the kernel crate's NOTES.md).
    pub fn apply(self, offset: u64) -> u64 {
        let bits = match self {
            TensorMapSwizzle::None => return offset,
            TensorMapSwizzle::B32 => 1,
            TensorMapSwizzle::B64 => 2,
            TensorMapSwizzle::B128 => 3,
        };
        let mask = (1u64 << bits) - 1;
        offset ^ (((offset >> 7) & mask) << 4)
    }

    /// The bytes after which the pattern repeats (1 line of 128 bytes when not swizzled; 256, 512
    /// or 1024 bytes for 32-, 64- and 128-byte swizzle). A copy's destination needs only 128-byte
    /// alignment; one aligned to the repeat sees the pattern from its first line.
    pub fn repeat_bytes(self) -> u64 {
        match self {
            TensorMapSwizzle::None => 128,
            TensorMapSwizzle::B32 => 256,
            TensorMapSwizzle::B64 => 512,
            TensorMapSwizzle::B128 => 1024,
        }
    }
}

c_enum!(
    /// L2 promotion (`CUtensorMapL2promotion`).
    TensorMapL2Promotion { None = 0, B64 = 1, B128 = 2, B256 = 3 }
);

c_enum!(
    /// What out-of-bounds elements read as (`CUtensorMapFloatOOBfill`).
    TensorMapOobFill {
        /// Zero.
        Zero = 0,
        /// A NaN that tensor-core FMAs treat as zero (float types only).
        NanRequestZeroFma = 1,
    }
);

/// A tiled tensor map, as `cuTensorMapEncodeTiled` takes it. Dimension 0 is the innermost
/// (contiguous) one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMapDesc {
    pub data_type: TensorMapDataType,
    /// Number of dimensions, 1 to 5 (3 to 5 with interleave).
    pub rank: u32,
    /// Address of element (0, 0, ...).
    pub global_address: DevicePtr,
    /// Elements along each dimension (entries past `rank` are ignored).
    pub global_dims: [u64; MAX_RANK],
    /// Bytes between consecutive indices of dimensions 1..rank (`global_strides[i]` is the
    /// stride of dimension `i + 1`); dimension 0 is contiguous.
    pub global_strides: [u64; MAX_RANK - 1],
    /// The box (tile) copied by one instruction, in elements per dimension.
    pub box_dims: [u32; MAX_RANK],
    /// Traversal stride per dimension (1 = every element).
    pub element_strides: [u32; MAX_RANK],
    pub interleave: TensorMapInterleave,
    pub swizzle: TensorMapSwizzle,
    pub l2_promotion: TensorMapL2Promotion,
    pub oob_fill: TensorMapOobFill,
}

/// A rule of `cuTensorMapEncodeTiled` that a description breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TensorMapRule {
    /// The rank is outside 1..=5 (3..=5 with interleave).
    Rank { rank: u32, min: u32 },
    /// The global address is not aligned as required.
    AddressAlignment { address: u64, align: u64 },
    /// A dimension is zero or larger than 2^32.
    GlobalDim { dim: usize, value: u64 },
    /// A stride is not a multiple of 16 (32 with 32-byte interleave) or not below 2^40.
    Stride { dim: usize, value: u64, multiple: u64 },
    /// A stride is smaller than the extent of the dimension inside it, so rows would overlap.
    StrideTooSmall { dim: usize, value: u64, min: u64 },
    /// A box side is zero or larger than 256 elements.
    BoxDim { dim: usize, value: u32 },
    /// The inner box side is not a multiple of 16 bytes.
    InnerBoxBytes { bytes: u64 },
    /// The inner box side is longer than the swizzle span.
    InnerBoxOverSwizzle { bytes: u64, span: u64 },
    /// An element stride is zero or larger than 8.
    ElementStride { dim: usize, value: u32 },
    /// 32-byte interleave needs 32-byte swizzle, or other interleave/swizzle combinations.
    InterleaveSwizzle,
    /// A NaN fill on an integer type.
    NanFillOnInteger,
}

impl fmt::Display for TensorMapRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorMapRule::Rank { rank, min } => write!(f, "rank {rank} is outside {min}..=5"),
            TensorMapRule::AddressAlignment { address, align } => {
                write!(f, "global address {address:#x} is not {align}-byte aligned")
            }
            TensorMapRule::GlobalDim { dim, value } => {
                write!(f, "global dimension {dim} is {value}; each must be from 1 to 2^32")
            }
            TensorMapRule::Stride { dim, value, multiple } => write!(
                f,
                "stride of dimension {dim} is {value} bytes; strides must be multiples of {multiple} below 2^40"
            ),
            TensorMapRule::StrideTooSmall { dim, value, min } => write!(
                f,
                "stride of dimension {dim} is {value} bytes, less than the {min} bytes of the dimension inside it"
            ),
            TensorMapRule::BoxDim { dim, value } => {
                write!(f, "box dimension {dim} is {value}; box sides must be from 1 to 256 elements")
            }
            TensorMapRule::InnerBoxBytes { bytes } => {
                write!(f, "the inner box side is {bytes} bytes; it must be a multiple of 16 bytes")
            }
            TensorMapRule::InnerBoxOverSwizzle { bytes, span } => write!(
                f,
                "the inner box side is {bytes} bytes, more than the {span}-byte swizzle span"
            ),
            TensorMapRule::ElementStride { dim, value } => {
                write!(f, "element stride {dim} is {value}; element strides must be from 1 to 8")
            }
            TensorMapRule::InterleaveSwizzle => {
                f.write_str("32-byte interleave requires 32-byte swizzle")
            }
            TensorMapRule::NanFillOnInteger => {
                f.write_str("NaN out-of-bounds fill is allowed only for floating-point element types")
            }
        }
    }
}

impl TensorMapDesc {
    /// Checks the description against the driver's rules for `cuTensorMapEncodeTiled`.
    pub fn validate(&self) -> Result<(), TensorMapRule> {
        let interleaved = self.interleave != TensorMapInterleave::None;
        let min_rank = if interleaved { 3 } else { 1 };
        if self.rank < min_rank || self.rank as usize > MAX_RANK {
            return Err(TensorMapRule::Rank { rank: self.rank, min: min_rank });
        }
        let rank = self.rank as usize;
        let align = if self.interleave == TensorMapInterleave::B32 { 32 } else { 16 };
        if !self.global_address.0.is_multiple_of(align) {
            return Err(TensorMapRule::AddressAlignment { address: self.global_address.0, align });
        }
        for (dim, &value) in self.global_dims[..rank].iter().enumerate() {
            if value == 0 || value > 1 << 32 {
                return Err(TensorMapRule::GlobalDim { dim, value });
            }
        }
        let esize = self.data_type.size();
        let mut inner_extent = self.global_dims[0] * esize;
        for (i, &value) in self.global_strides[..rank - 1].iter().enumerate() {
            let dim = i + 1;
            if !value.is_multiple_of(align) || value >= 1 << 40 {
                return Err(TensorMapRule::Stride { dim, value, multiple: align });
            }
            if !interleaved && value < inner_extent {
                return Err(TensorMapRule::StrideTooSmall { dim, value, min: inner_extent });
            }
            inner_extent = value.saturating_mul(self.global_dims[dim]);
        }
        for (dim, &value) in self.box_dims[..rank].iter().enumerate() {
            if value == 0 || value > 256 {
                return Err(TensorMapRule::BoxDim { dim, value });
            }
        }
        let inner_bytes = self.box_dims[0] as u64 * esize;
        if !interleaved {
            if !inner_bytes.is_multiple_of(16) {
                return Err(TensorMapRule::InnerBoxBytes { bytes: inner_bytes });
            }
            let span = self.swizzle.span();
            if span != 0 && inner_bytes > span {
                return Err(TensorMapRule::InnerBoxOverSwizzle { bytes: inner_bytes, span });
            }
        } else if self.interleave == TensorMapInterleave::B32 && self.swizzle != TensorMapSwizzle::B32 {
            return Err(TensorMapRule::InterleaveSwizzle);
        }
        for (dim, &value) in self.element_strides[..rank].iter().enumerate() {
            if value == 0 || value > 8 {
                return Err(TensorMapRule::ElementStride { dim, value });
            }
        }
        if self.oob_fill == TensorMapOobFill::NanRequestZeroFma && !self.data_type.is_float() {
            return Err(TensorMapRule::NanFillOnInteger);
        }
        Ok(())
    }

    /// The step between the elements a copy takes along dimension `dim`: its element stride,
    /// except along dimension 0, where the GPU takes every element whatever the stride says (an
    /// H100 given a stride of 2 there, unswizzled and swizzled, copied whole contiguous rows of
    /// `box_dims[0]` elements; see the kernel crate's NOTES.md).
    pub fn traversal_stride(&self, dim: usize) -> u64 {
        if dim == 0 {
            1
        } else {
            self.element_strides[dim].max(1) as u64
        }
    }

    /// Elements the box holds along dimension `dim`: `ceil(box_dims[dim] / traversal_stride)`
    /// (1 past the rank).
    pub fn box_elements(&self, dim: usize) -> u64 {
        if dim >= self.rank as usize {
            return 1;
        }
        (self.box_dims[dim] as u64).div_ceil(self.traversal_stride(dim))
    }

    /// The bytes one copy moves: every element of the box. A load completes this many bytes on
    /// its mbarrier (what `expect_tx` must count), padding or not.
    pub fn box_bytes(&self) -> u64 {
        (0..MAX_RANK).map(|d| self.box_elements(d)).product::<u64>() * self.data_type.size()
    }

    /// Bytes from the start of one inner row of the box (its dimension-0 elements) to the next
    /// in shared memory. Rows are dense, except that under a swizzle a row shorter than the
    /// swizzle span takes a whole span: an H100 (driver 580) laid 16-byte rows 32 bytes apart
    /// under the 32-byte swizzle, 32-byte rows 64 apart under the 64-byte one, and 16- and
    /// 32-byte rows 128 apart under the 128-byte one, writing nothing into the gaps (see the
    /// kernel crate's NOTES.md). Stores read the same layout.
    pub fn shared_row_pitch(&self) -> u64 {
        let row = self.box_elements(0) * self.data_type.size();
        row.max(self.swizzle.span())
    }

    /// The shared-memory bytes a box spans from the copy's address: rows times the row pitch.
    pub fn box_shared_bytes(&self) -> u64 {
        (1..MAX_RANK).map(|d| self.box_elements(d)).product::<u64>() * self.shared_row_pitch()
    }

    /// The shared-memory offset of box element `n` (dimension 0 fastest) from the copy's
    /// address, before the swizzle (which permutes by the absolute shared address:
    /// [`TensorMapSwizzle::apply`]).
    pub fn box_shared_offset(&self, n: u64) -> u64 {
        let row_len = self.box_elements(0);
        (n / row_len) * self.shared_row_pitch() + (n % row_len) * self.data_type.size()
    }

    /// The byte offset of element `coords` (one per dimension up to `rank`) from the global
    /// address, or `None` if it lies outside the tensor (then the copy fills it).
    pub fn element_offset(&self, coords: &[i64]) -> Option<u64> {
        let rank = self.rank as usize;
        let mut offset = 0u64;
        for (d, &c) in coords[..rank].iter().enumerate() {
            if c < 0 || c as u64 >= self.global_dims[d] {
                return None;
            }
            let stride = if d == 0 { self.data_type.size() } else { self.global_strides[d - 1] };
            offset += c as u64 * stride;
        }
        Some(offset)
    }

    /// The CPU executor's encoding: the description's fields little-endian in a fixed layout,
    /// with a magic number so a decoder recognises a map that was never encoded. The description
    /// is validated first, so every encoding decodes.
    pub fn to_cpu_bytes(&self) -> Result<[u8; TENSOR_MAP_BYTES], TensorMapRule> {
        self.validate()?;
        let mut b = [0u8; TENSOR_MAP_BYTES];
        let mut w = Writer { b: &mut b, at: 0 };
        w.u32(CPU_MAGIC);
        w.u8(self.data_type as u32 as u8);
        w.u8(self.rank as u8);
        w.u8(self.interleave as u32 as u8);
        w.u8(self.swizzle as u32 as u8);
        w.u8(self.l2_promotion as u32 as u8);
        w.u8(self.oob_fill as u32 as u8);
        w.at = 16;
        w.u64(self.global_address.0);
        self.global_dims.iter().for_each(|&d| w.u64(d));
        self.global_strides.iter().for_each(|&s| w.u64(s));
        // Validated: box sides are at most 256 and element strides at most 8.
        self.box_dims.iter().for_each(|&d| w.u16(d as u16));
        self.element_strides.iter().for_each(|&s| w.u8(s as u8));
        Ok(b)
    }

    /// Decodes [`TensorMapDesc::to_cpu_bytes`]; `None` for bytes that are not such an encoding
    /// or describe an invalid map.
    pub fn from_cpu_bytes(b: &[u8]) -> Option<TensorMapDesc> {
        if b.len() != TENSOR_MAP_BYTES {
            return None;
        }
        let mut r = Reader { b, at: 0 };
        if r.u32() != CPU_MAGIC {
            return None;
        }
        let data_type = TensorMapDataType::from_raw(r.u8() as u32)?;
        let rank = r.u8() as u32;
        let interleave = TensorMapInterleave::from_raw(r.u8() as u32)?;
        let swizzle = TensorMapSwizzle::from_raw(r.u8() as u32)?;
        let l2_promotion = TensorMapL2Promotion::from_raw(r.u8() as u32)?;
        let oob_fill = TensorMapOobFill::from_raw(r.u8() as u32)?;
        r.at = 16;
        let global_address = DevicePtr(r.u64());
        let global_dims = [(); MAX_RANK].map(|_| r.u64());
        let global_strides = [(); MAX_RANK - 1].map(|_| r.u64());
        let box_dims = [(); MAX_RANK].map(|_| r.u16() as u32);
        let element_strides = [(); MAX_RANK].map(|_| r.u8() as u32);
        let desc = TensorMapDesc {
            data_type,
            rank,
            global_address,
            global_dims,
            global_strides,
            box_dims,
            element_strides,
            interleave,
            swizzle,
            l2_promotion,
            oob_fill,
        };
        desc.validate().ok().map(|_| desc)
    }
}

/// "FTM1": marks a CPU-encoded tensor map.
const CPU_MAGIC: u32 = 0x314d_5446;

struct Writer<'a> {
    b: &'a mut [u8],
    at: usize,
}

impl Writer<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.b[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
    fn u8(&mut self, v: u8) {
        self.put(&[v]);
    }
    fn u16(&mut self, v: u16) {
        self.put(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.put(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.put(&v.to_le_bytes());
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        out.copy_from_slice(&self.b[self.at..self.at + N]);
        self.at += N;
        out
    }
    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc_2d() -> TensorMapDesc {
        TensorMapDesc {
            data_type: TensorMapDataType::BF16,
            rank: 2,
            global_address: DevicePtr(0x7000_0000),
            global_dims: [4096, 1000, 1, 1, 1],
            global_strides: [8192, 0, 0, 0],
            box_dims: [64, 256, 1, 1, 1],
            element_strides: [1; 5],
            interleave: TensorMapInterleave::None,
            swizzle: TensorMapSwizzle::B128,
            l2_promotion: TensorMapL2Promotion::B256,
            oob_fill: TensorMapOobFill::Zero,
        }
    }

    #[test]
    fn a_valid_map_round_trips_through_the_cpu_encoding() {
        let d = desc_2d();
        assert_eq!(d.validate(), Ok(()));
        assert_eq!(TensorMapDesc::from_cpu_bytes(&d.to_cpu_bytes().unwrap()), Some(d));
        assert_eq!(TensorMapDesc::from_cpu_bytes(&[0u8; 128]), None);
    }

    #[test]
    fn each_rule_is_reported() {
        type Mutation = Box<dyn Fn(&mut TensorMapDesc)>;
        let cases: Vec<(Mutation, TensorMapRule)> = vec![
            (Box::new(|d| d.rank = 0), TensorMapRule::Rank { rank: 0, min: 1 }),
            (Box::new(|d| d.rank = 6), TensorMapRule::Rank { rank: 6, min: 1 }),
            (
                Box::new(|d| d.global_address = DevicePtr(0x7000_0008)),
                TensorMapRule::AddressAlignment { address: 0x7000_0008, align: 16 },
            ),
            (Box::new(|d| d.global_dims[1] = 0), TensorMapRule::GlobalDim { dim: 1, value: 0 }),
            (
                Box::new(|d| d.global_strides[0] = 8200),
                TensorMapRule::Stride { dim: 1, value: 8200, multiple: 16 },
            ),
            (
                Box::new(|d| d.global_strides[0] = 4096),
                TensorMapRule::StrideTooSmall { dim: 1, value: 4096, min: 8192 },
            ),
            (Box::new(|d| d.box_dims[1] = 257), TensorMapRule::BoxDim { dim: 1, value: 257 }),
            (Box::new(|d| d.box_dims[0] = 4), TensorMapRule::InnerBoxBytes { bytes: 8 }),
            (Box::new(|d| d.box_dims[0] = 128), TensorMapRule::InnerBoxOverSwizzle { bytes: 256, span: 128 }),
            (Box::new(|d| d.element_strides[0] = 9), TensorMapRule::ElementStride { dim: 0, value: 9 }),
            (
                Box::new(|d| {
                    d.data_type = TensorMapDataType::U16;
                    d.oob_fill = TensorMapOobFill::NanRequestZeroFma
                }),
                TensorMapRule::NanFillOnInteger,
            ),
        ];
        for (mutate, rule) in cases {
            let mut d = desc_2d();
            mutate(&mut d);
            assert_eq!(d.validate(), Err(rule.clone()), "{rule}");
            assert_eq!(d.to_cpu_bytes(), Err(rule.clone()));
        }
    }

    #[test]
    fn swizzle_permutes_chunks_within_each_row_group() {
        let s = TensorMapSwizzle::B128;
        // Row 0 is unchanged; row 1 swaps chunk c for c ^ 1; row 7 reverses the chunks.
        assert_eq!(s.apply(0x00), 0x00);
        assert_eq!(s.apply(0x80), 0x90);
        assert_eq!(s.apply(0x80 + 0x15), 0x85);
        assert_eq!(s.apply(7 * 128), 7 * 128 + 0x70);
        assert_eq!(s.apply(1024 + 0x80), 1024 + 0x90);
        // Every swizzle is a permutation of each pattern repeat.
        for s in [TensorMapSwizzle::None, TensorMapSwizzle::B32, TensorMapSwizzle::B64, s] {
            let n = s.repeat_bytes();
            let mut seen: Vec<u64> = (0..n).map(|o| s.apply(o)).collect();
            seen.sort();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{s:?}");
        }
        assert_eq!(TensorMapSwizzle::B32.apply(0x80), 0x90);
        assert_eq!(TensorMapSwizzle::B32.apply(0x100), 0x100);
        assert_eq!(TensorMapSwizzle::B64.apply(0x180), 0x1b0);
    }

    #[test]
    fn rows_shorter_than_the_swizzle_span_are_padded_to_it() {
        let mut d = desc_2d(); // bf16, box 64 x 256, 128-byte swizzle: 128-byte rows, no padding
        assert_eq!((d.box_bytes(), d.shared_row_pitch(), d.box_shared_bytes()), (32768, 128, 32768));
        assert_eq!(d.box_shared_offset(65), 128 + 2);
        d.box_dims[0] = 8; // 16-byte rows under the 128-byte swizzle
        assert_eq!((d.box_bytes(), d.shared_row_pitch(), d.box_shared_bytes()), (4096, 128, 32768));
        assert_eq!(d.box_shared_offset(9), 128 + 2);
        d.swizzle = TensorMapSwizzle::B32;
        assert_eq!((d.shared_row_pitch(), d.box_shared_offset(17)), (32, 64 + 2));
        d.swizzle = TensorMapSwizzle::None;
        assert_eq!((d.shared_row_pitch(), d.box_shared_bytes(), d.box_shared_offset(17)), (16, 4096, 34));
        // Element strides shrink the box: every other row of 256 is 128 rows. Along dimension 0
        // the stride is not applied.
        d.element_strides[1] = 2;
        assert_eq!((d.box_elements(1), d.box_bytes(), d.box_elements(4)), (128, 2048, 1));
        d.element_strides[0] = 2;
        assert_eq!((d.traversal_stride(0), d.box_elements(0), d.box_bytes()), (1, 8, 2048));
    }

    #[test]
    fn element_offsets_use_the_strides_and_report_out_of_bounds() {
        let d = desc_2d();
        assert_eq!(d.element_offset(&[3, 2]), Some(3 * 2 + 2 * 8192));
        assert_eq!(d.element_offset(&[4096, 0]), None);
        assert_eq!(d.element_offset(&[-1, 0]), None);
        assert_eq!(d.element_offset(&[0, 999]), Some(999 * 8192));
    }
}
