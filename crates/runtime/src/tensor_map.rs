//! Tensor maps (`cuTensorMapEncodeTiled`): the description of a tiled region of a device buffer
//! that TMA copies (`cp.async.bulk.tensor`) move between global and shared memory. A kernel takes
//! one by value as a 128-byte, 64-byte-aligned parameter.

use std::marker::PhantomData;
use std::sync::Arc;

use ferrocm_backend::tensor_map::{
    TensorMapDataType, TensorMapDesc, TensorMapInterleave, TensorMapL2Promotion, TensorMapOobFill,
    TensorMapSwizzle, MAX_RANK, TENSOR_MAP_BYTES,
};
use ferrocm_backend::{BackendError, Feature};

use crate::device::Device;
use crate::memory::{AsDeviceSlice, DeviceRepr, UseTracker};
use crate::{Error, Result};

/// An element type a tensor map can describe.
pub trait TensorMapElement: DeviceRepr {
    /// The matching `CUtensorMapDataType`.
    const DATA_TYPE: TensorMapDataType;
}

macro_rules! elements {
    ($($t:ty => $d:ident),*) => { $( impl TensorMapElement for $t { const DATA_TYPE: TensorMapDataType = TensorMapDataType::$d; } )* };
}
elements!(u8 => U8, u16 => U16, u32 => U32, i32 => I32, u64 => U64, i64 => I64, half::f16 => F16,
    f32 => F32, f64 => F64, half::bf16 => BF16);

/// The shape of a tiled tensor map, dimension 0 innermost (contiguous). Build one with
/// [`TiledLayout::new`] and the `with_*` methods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledLayout {
    /// Elements along each dimension (1 to 5 dimensions).
    pub dims: Vec<u64>,
    /// Bytes between consecutive indices of dimensions 1.. (one fewer entry than `dims`).
    pub strides_bytes: Vec<u64>,
    /// The box one copy moves, in elements per dimension (each 1 to 256).
    pub box_dims: Vec<u32>,
    /// Traversal stride per dimension; empty means 1 everywhere.
    pub element_strides: Vec<u32>,
    pub swizzle: TensorMapSwizzle,
    pub interleave: TensorMapInterleave,
    pub l2_promotion: TensorMapL2Promotion,
    pub oob_fill: TensorMapOobFill,
    /// Describe f32 data as tf32 (rounded by the copy), where the element type is f32.
    pub tf32: bool,
}

impl TiledLayout {
    /// A row-major layout: `dims` (innermost first) densely packed unless strides are given
    /// with [`TiledLayout::with_strides`], copied in boxes of `box_dims`, no swizzle.
    pub fn new(dims: &[u64], box_dims: &[u32]) -> TiledLayout {
        TiledLayout {
            dims: dims.to_vec(),
            strides_bytes: Vec::new(),
            box_dims: box_dims.to_vec(),
            element_strides: Vec::new(),
            swizzle: TensorMapSwizzle::None,
            interleave: TensorMapInterleave::None,
            l2_promotion: TensorMapL2Promotion::None,
            oob_fill: TensorMapOobFill::Zero,
            tf32: false,
        }
    }

    /// Explicit strides in bytes for dimensions 1.. (for padded rows or sub-tensors).
    pub fn with_strides(mut self, strides_bytes: &[u64]) -> TiledLayout {
        self.strides_bytes = strides_bytes.to_vec();
        self
    }

    pub fn with_swizzle(mut self, swizzle: TensorMapSwizzle) -> TiledLayout {
        self.swizzle = swizzle;
        self
    }

    pub fn with_l2_promotion(mut self, l2: TensorMapL2Promotion) -> TiledLayout {
        self.l2_promotion = l2;
        self
    }

    pub fn with_oob_fill(mut self, fill: TensorMapOobFill) -> TiledLayout {
        self.oob_fill = fill;
        self
    }

    pub fn with_element_strides(mut self, strides: &[u32]) -> TiledLayout {
        self.element_strides = strides.to_vec();
        self
    }

    pub fn with_interleave(mut self, interleave: TensorMapInterleave) -> TiledLayout {
        self.interleave = interleave;
        self
    }

    /// Describe f32 data as tf32.
    pub fn tf32(mut self) -> TiledLayout {
        self.tf32 = true;
        self
    }
}

/// A tensor map over a device buffer, encoded for the buffer's device. It borrows the buffer, so
/// the memory it describes outlives it; pass it to a kernel by value
/// ([`crate::KernelArgs::push_tensor_map`]).
#[derive(Clone)]
pub struct TensorMap<'a> {
    device: Device,
    desc: TensorMapDesc,
    bytes: TensorMapBytes,
    /// The buffer's use tracker: a launch that passes the map records its stream there (and a
    /// graph that captures it pins the buffer), as for a buffer passed directly.
    uses: Arc<UseTracker>,
    _buffer: PhantomData<&'a ()>,
}

/// The 128 encoded bytes, 64-byte aligned as `CUtensorMap` is.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct TensorMapBytes(pub [u8; TENSOR_MAP_BYTES]);

impl std::fmt::Debug for TensorMap<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TensorMap").field("device", &self.device.index()).field("desc", &self.desc).finish()
    }
}

impl<'a> TensorMap<'a> {
    /// Encodes a tiled tensor map over `buffer` (`cuTensorMapEncodeTiled`). Every rule of the
    /// driver is checked on every backend, and the whole tensor must lie inside the view; a
    /// broken rule is [`Error::InvalidTensorMap`] naming it.
    pub fn tiled<T: TensorMapElement>(
        buffer: &'a impl AsDeviceSlice<T>,
        layout: &TiledLayout,
    ) -> Result<Self> {
        let device = buffer.device().clone();
        if !device.target().has(Feature::Tma) {
            return Err(Error::Unsupported {
                device: device.index(),
                what: format!("tensor maps need {} ({})", Feature::Tma, Feature::Tma.min_nvidia_arch()),
            });
        }
        let bad = |rule: String| Error::InvalidTensorMap { rule };
        let rank = layout.dims.len();
        if rank == 0 || rank > MAX_RANK {
            return Err(bad(format!("rank {rank} is outside 1..=5")));
        }
        if layout.box_dims.len() != rank {
            return Err(bad(format!(
                "{} box dimensions given for a rank-{rank} tensor",
                layout.box_dims.len()
            )));
        }
        if !layout.element_strides.is_empty() && layout.element_strides.len() != rank {
            return Err(bad(format!(
                "{} element strides given for a rank-{rank} tensor",
                layout.element_strides.len()
            )));
        }
        let esize = std::mem::size_of::<T>() as u64;
        let mut strides = [0u64; MAX_RANK - 1];
        if layout.strides_bytes.is_empty() {
            let mut s = esize;
            for (stride, &dim) in strides.iter_mut().zip(&layout.dims[..rank - 1]) {
                s = s.checked_mul(dim).ok_or_else(|| bad("the tensor's size overflows".into()))?;
                *stride = s;
            }
        } else if layout.strides_bytes.len() != rank - 1 {
            return Err(bad(format!(
                "{} strides given for a rank-{rank} tensor; give one per dimension after the first ({})",
                layout.strides_bytes.len(),
                rank - 1
            )));
        } else {
            strides[..rank - 1].copy_from_slice(&layout.strides_bytes);
        }
        let data_type = match (T::DATA_TYPE, layout.tf32) {
            (TensorMapDataType::F32, true) => TensorMapDataType::TF32,
            (t, false) => t,
            (_, true) => return Err(bad("tf32 applies only to f32 elements".into())),
        };
        let mut desc = TensorMapDesc {
            data_type,
            rank: rank as u32,
            global_address: buffer.device_ptr(),
            global_dims: [1; MAX_RANK],
            global_strides: strides,
            box_dims: [1; MAX_RANK],
            element_strides: [1; MAX_RANK],
            interleave: layout.interleave,
            swizzle: layout.swizzle,
            l2_promotion: layout.l2_promotion,
            oob_fill: layout.oob_fill,
        };
        desc.global_dims[..rank].copy_from_slice(&layout.dims);
        desc.box_dims[..rank].copy_from_slice(&layout.box_dims);
        if !layout.element_strides.is_empty() {
            desc.element_strides[..rank].copy_from_slice(&layout.element_strides);
        }
        desc.validate().map_err(|rule| bad(rule.to_string()))?;
        // The last element must lie inside the view.
        let mut last = esize;
        for d in 0..rank {
            let stride = if d == 0 { esize } else { strides[d - 1] };
            last = (layout.dims[d] - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(last))
                .ok_or_else(|| bad("the tensor's extent overflows".into()))?;
        }
        if last > buffer.byte_len() {
            return Err(bad(format!(
                "the tensor spans {last} bytes but the buffer view holds {}",
                buffer.byte_len()
            )));
        }
        let bytes = device.inner.backend.tensor_map_encode(device.ordinal(), &desc).map_err(|e| match e {
            BackendError::InvalidValue { message, .. } => Error::InvalidTensorMap { rule: message },
            e => device.error(e),
        })?;
        Ok(TensorMap {
            device,
            desc,
            bytes: TensorMapBytes(bytes),
            uses: Arc::clone(buffer.uses()),
            _buffer: PhantomData,
        })
    }

    /// The use tracker of the buffer the map describes.
    pub(crate) fn uses(&self) -> &Arc<UseTracker> {
        &self.uses
    }

    /// The device the map was encoded for.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// What the map describes.
    pub fn desc(&self) -> &TensorMapDesc {
        &self.desc
    }

    /// The encoded bytes, as a kernel receives them.
    pub fn bytes(&self) -> &TensorMapBytes {
        &self.bytes
    }
}
