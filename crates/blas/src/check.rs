//! Argument rules, checked once before anything is queued (so nothing is written on error).

use ferrocm_kernel::runtime::{AsDeviceSlice, DeviceRepr};

use crate::error::{BlasError, Result};
use crate::handle::Handle;

/// The largest element count or index the GPU kernels address (they index with 32 bits).
pub(crate) const MAX_ELEMS: usize = u32::MAX as usize;

/// `(n - 1) * |inc| + 1`, the elements `n` strided values span (0 for `n = 0`).
pub(crate) fn vector_span(n: usize, inc: isize) -> Option<usize> {
    if n == 0 {
        return Some(0);
    }
    (n - 1).checked_mul(inc.unsigned_abs())?.checked_add(1)
}

/// `ld * (cols - 1) + rows`, the elements a column-major matrix spans (0 if empty).
pub(crate) fn matrix_span(rows: usize, cols: usize, ld: usize) -> Option<usize> {
    if rows == 0 || cols == 0 {
        return Some(0);
    }
    ld.checked_mul(cols - 1)?.checked_add(rows)
}

impl Handle {
    /// The view lives on the handle's device.
    pub(crate) fn check_device<T: DeviceRepr>(
        &self,
        arg: &'static str,
        v: &impl AsDeviceSlice<T>,
    ) -> Result<()> {
        let (device, handle_device) = (v.device().index(), self.stream().device().index());
        if device != handle_device {
            return Err(BlasError::DeviceMismatch { arg, device, handle_device });
        }
        if v.len() > MAX_ELEMS {
            return Err(BlasError::SizeTooLarge {
                arg,
                value: v.len() as u128,
                rule: "views hold at most 2^32 - 1 elements (the kernels index with 32 bits)",
            });
        }
        Ok(())
    }

    /// A vector of `n` elements at increment `inc` fits in `v` (and `inc` is not 0 if
    /// `nonzero_inc`).
    pub(crate) fn check_vector<T: DeviceRepr>(
        &self,
        arg: &'static str,
        inc_arg: &'static str,
        v: &impl AsDeviceSlice<T>,
        n: usize,
        inc: isize,
    ) -> Result<()> {
        self.check_device(arg, v)?;
        if inc == 0 {
            return Err(BlasError::ZeroIncrement { arg: inc_arg });
        }
        if inc.unsigned_abs() > i32::MAX as usize {
            return Err(BlasError::SizeTooLarge {
                arg: inc_arg,
                value: inc.unsigned_abs() as u128,
                rule: "|inc| is at most 2^31 - 1",
            });
        }
        let required = vector_span(n, inc).ok_or(BlasError::SizeTooLarge {
            arg,
            value: n as u128 * inc.unsigned_abs() as u128,
            rule: "(n - 1) * |inc| + 1 must fit in usize",
        })?;
        if v.len() < required {
            return Err(BlasError::VectorTooShort { arg, len: v.len(), n, inc, required });
        }
        Ok(())
    }

    /// `batch_count` vectors of `n` elements at increment `inc`, `stride` elements apart, fit
    /// in `v` (as [`Handle::check_vector`] for one); returns the elements they span.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_vector_batch<T: DeviceRepr>(
        &self,
        arg: &'static str,
        inc_arg: &'static str,
        v: &impl AsDeviceSlice<T>,
        n: usize,
        inc: isize,
        stride: usize,
        batch_count: usize,
    ) -> Result<usize> {
        if batch_count == 0 {
            self.check_vector(arg, inc_arg, v, 0, inc)?;
            return Ok(0);
        }
        self.check_vector(arg, inc_arg, v, n, inc)?;
        let one = vector_span(n, inc).unwrap_or(usize::MAX);
        if one == 0 {
            return Ok(0);
        }
        let required = (batch_count - 1).checked_mul(stride).and_then(|x| x.checked_add(one)).ok_or(
            BlasError::SizeTooLarge {
                arg,
                value: batch_count as u128 * stride as u128,
                rule: "(batch_count - 1) * stride + the vector's span must fit in usize",
            },
        )?;
        self.check_len(arg, v, "the batch ((batch_count - 1) * stride + (n - 1) * |inc| + 1)", required)?;
        Ok(required)
    }

    /// A column-major `rows x cols` matrix with leading dimension `ld` fits in `v`, and
    /// `ld >= max(1, rows)`.
    pub(crate) fn check_matrix<T: DeviceRepr>(
        &self,
        arg: &'static str,
        ld_arg: &'static str,
        v: &impl AsDeviceSlice<T>,
        rows: usize,
        cols: usize,
        ld: usize,
    ) -> Result<()> {
        self.check_device(arg, v)?;
        if ld < rows.max(1) {
            return Err(BlasError::LeadingDimension { arg: ld_arg, ld, rows });
        }
        let required = matrix_span(rows, cols, ld).ok_or(BlasError::SizeTooLarge {
            arg,
            value: ld as u128 * cols as u128,
            rule: "ld * (cols - 1) + rows must fit in usize",
        })?;
        if v.len() < required {
            return Err(BlasError::MatrixTooShort { arg, len: v.len(), rows, cols, ld, required });
        }
        Ok(())
    }

    /// `v` holds at least `required` elements.
    pub(crate) fn check_len<T: DeviceRepr>(
        &self,
        arg: &'static str,
        v: &impl AsDeviceSlice<T>,
        what: &'static str,
        required: usize,
    ) -> Result<()> {
        self.check_device(arg, v)?;
        if v.len() < required {
            return Err(BlasError::TooShort { arg, len: v.len(), what, required });
        }
        Ok(())
    }

    /// A device scalar holds at least one element on the handle's device.
    pub(crate) fn check_scalar<T: DeviceRepr>(
        &self,
        arg: &'static str,
        s: &crate::types::ScalarArg<'_, T>,
    ) -> Result<()> {
        if let crate::types::ScalarArg::Device(v) = s {
            self.check_len(arg, v, "a device scalar", 1)?;
        }
        Ok(())
    }
}

/// The `batch_count` output vectors of `n` elements at increment `inc`, `stride` apart,
/// share no element (they may interleave): an element `b stride + i |inc|` of one batch is
/// another's when `d stride = e |inc|` for some `0 < d < batch_count`, `|e| < n`.
pub(crate) fn check_disjoint(
    arg: &'static str,
    n: usize,
    inc: isize,
    stride: usize,
    batch_count: usize,
) -> Result<()> {
    if n == 0 || batch_count < 2 {
        return Ok(());
    }
    let inc = inc.unsigned_abs();
    // `d stride < n inc` bounds the d worth trying.
    let last = (batch_count - 1).min((n - 1).saturating_mul(inc).checked_div(stride).unwrap_or(1));
    let clash = (1..=last).any(|d| {
        let off = d * stride;
        off % inc == 0 && off / inc < n
    });
    if clash {
        return Err(BlasError::InvalidValue {
            arg,
            value: stride.to_string(),
            rule: "the batches' output vectors must not share an element (no d * stride = e * |inc| \
                   with 0 < d < batch_count and |e| < n)",
        });
    }
    Ok(())
}

/// `n` fits the kernels' 32-bit sizes.
pub(crate) fn size32(arg: &'static str, n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| BlasError::SizeTooLarge {
        arg,
        value: n as u128,
        rule: "sizes are at most 2^32 - 1 (the kernels index with 32 bits)",
    })
}
