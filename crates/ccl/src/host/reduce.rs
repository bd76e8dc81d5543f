//! Reductions on host memory: the CPU devices' arithmetic (design decision 9: on CPU devices the
//! library runs native code). Buffers are raw bytes whose length is a whole number of elements;
//! `f16`/`bf16` are computed in `f32` and rounded once, which equals the correctly rounded half
//! operation (f32 holds more than twice their precision), as the GPU's half instructions give.

use half::{bf16, f16};

use crate::types::{DataType, ReduceOp};

trait Arith: Copy {
    fn sum(a: Self, b: Self) -> Self;
    fn prod(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    fn div_n(a: Self, n: usize) -> Self;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn sum(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline(always)]
            fn prod(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            #[inline(always)]
            fn min(a: Self, b: Self) -> Self { Ord::min(a, b) }
            #[inline(always)]
            fn max(a: Self, b: Self) -> Self { Ord::max(a, b) }
            #[inline(always)]
            fn div_n(a: Self, n: usize) -> Self { a.wrapping_div(n as $t) }
        }
    )*};
}
int_arith!(i8, u8, i32, u32, i64, u64);

macro_rules! float_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn sum(a: Self, b: Self) -> Self { a + b }
            #[inline(always)]
            fn prod(a: Self, b: Self) -> Self { a * b }
            #[inline(always)]
            fn min(a: Self, b: Self) -> Self { a.min(b) }
            #[inline(always)]
            fn max(a: Self, b: Self) -> Self { a.max(b) }
            #[inline(always)]
            fn div_n(a: Self, n: usize) -> Self { a / n as $t }
        }
    )*};
}
float_arith!(f32, f64);

macro_rules! half_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)]
            fn sum(a: Self, b: Self) -> Self { <$t>::from_f32(a.to_f32() + b.to_f32()) }
            #[inline(always)]
            fn prod(a: Self, b: Self) -> Self { <$t>::from_f32(a.to_f32() * b.to_f32()) }
            #[inline(always)]
            fn min(a: Self, b: Self) -> Self { <$t>::from_f32(a.to_f32().min(b.to_f32())) }
            #[inline(always)]
            fn max(a: Self, b: Self) -> Self { <$t>::from_f32(a.to_f32().max(b.to_f32())) }
            #[inline(always)]
            fn div_n(a: Self, n: usize) -> Self { <$t>::from_f32(a.to_f32() / n as f32) }
        }
    )*};
}
half_arith!(f16, bf16);

/// Applies `f` element by element over typed views of the byte slices, aligned or not.
#[inline(always)]
fn zip2<T: Copy>(dst: &mut [u8], src: &[u8], f: impl Fn(T, T) -> T) {
    let size = std::mem::size_of::<T>();
    debug_assert_eq!(dst.len(), src.len());
    debug_assert_eq!(dst.len() % size, 0);
    let n = dst.len() / size;
    let (d, s) = (dst.as_mut_ptr(), src.as_ptr());
    let align = std::mem::align_of::<T>();
    if (d as usize).is_multiple_of(align) && (s as usize).is_multiple_of(align) {
        // SAFETY: both ranges hold `n` elements of `T`, are aligned for it, and every bit pattern
        // is a valid value of the number types used here; `dst` and `src` do not overlap
        // (distinct borrows).
        let (d, s) = unsafe {
            (std::slice::from_raw_parts_mut(d as *mut T, n), std::slice::from_raw_parts(s as *const T, n))
        };
        for (x, &y) in d.iter_mut().zip(s) {
            *x = f(*x, y);
        }
    } else {
        for i in 0..n {
            // SAFETY: element `i` lies inside both ranges; unaligned accesses are explicit.
            unsafe {
                let x = (d as *mut T).add(i);
                let y = (s as *const T).add(i).read_unaligned();
                x.write_unaligned(f(x.read_unaligned(), y));
            }
        }
    }
}

fn reduce_typed<T: Arith>(op: ReduceOp, dst: &mut [u8], src: &[u8]) {
    match op.combine() {
        ReduceOp::Sum => zip2::<T>(dst, src, T::sum),
        ReduceOp::Prod => zip2::<T>(dst, src, T::prod),
        ReduceOp::Min => zip2::<T>(dst, src, T::min),
        _ => zip2::<T>(dst, src, T::max),
    }
}

/// `dst[i] = dst[i] op src[i]` (with `Avg` summing; see [`finalize`]).
pub(crate) fn reduce_into(dt: DataType, op: ReduceOp, dst: &mut [u8], src: &[u8]) {
    match dt {
        DataType::I8 => reduce_typed::<i8>(op, dst, src),
        DataType::U8 => reduce_typed::<u8>(op, dst, src),
        DataType::I32 => reduce_typed::<i32>(op, dst, src),
        DataType::U32 => reduce_typed::<u32>(op, dst, src),
        DataType::I64 => reduce_typed::<i64>(op, dst, src),
        DataType::U64 => reduce_typed::<u64>(op, dst, src),
        DataType::F16 => reduce_typed::<f16>(op, dst, src),
        DataType::Bf16 => reduce_typed::<bf16>(op, dst, src),
        DataType::F32 => reduce_typed::<f32>(op, dst, src),
        DataType::F64 => reduce_typed::<f64>(op, dst, src),
    }
}

fn div_typed<T: Arith>(buf: &mut [u8], n: usize) {
    let size = std::mem::size_of::<T>();
    for i in 0..buf.len() / size {
        // SAFETY: element `i` lies inside `buf`; unaligned access is explicit.
        unsafe {
            let p = (buf.as_mut_ptr() as *mut T).add(i);
            p.write_unaligned(T::div_n(p.read_unaligned(), n));
        }
    }
}

/// The last step of a reduction, applied once to a fully reduced result: `Avg` divides by the
/// number of ranks; the other operators leave it as it is.
pub(crate) fn finalize(dt: DataType, op: ReduceOp, buf: &mut [u8], nranks: usize) {
    if op != ReduceOp::Avg {
        return;
    }
    match dt {
        DataType::I8 => div_typed::<i8>(buf, nranks),
        DataType::U8 => div_typed::<u8>(buf, nranks),
        DataType::I32 => div_typed::<i32>(buf, nranks),
        DataType::U32 => div_typed::<u32>(buf, nranks),
        DataType::I64 => div_typed::<i64>(buf, nranks),
        DataType::U64 => div_typed::<u64>(buf, nranks),
        DataType::F16 => div_typed::<f16>(buf, nranks),
        DataType::Bf16 => div_typed::<bf16>(buf, nranks),
        DataType::F32 => div_typed::<f32>(buf, nranks),
        DataType::F64 => div_typed::<f64>(buf, nranks),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes<T: Copy>(v: &[T]) -> Vec<u8> {
        // SAFETY: plain numbers viewed as bytes.
        unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }.to_vec()
    }

    #[test]
    fn integer_sums_wrap_and_avg_truncates() {
        let mut d = bytes(&[120i8, -128, 7]);
        reduce_into(DataType::I8, ReduceOp::Sum, &mut d, &bytes(&[10i8, -1, -10]));
        assert_eq!(d, bytes(&[-126i8, 127, -3]));
        finalize(DataType::I8, ReduceOp::Avg, &mut d, 2);
        assert_eq!(d, bytes(&[-63i8, 63, -1]));
    }

    #[test]
    fn half_arithmetic_rounds_once() {
        let a = [f16::from_f32(1.0), f16::from_f32(2048.0)];
        let b = [f16::from_f32(2f32.powi(-11)), f16::from_f32(1.0)];
        let mut d = bytes(&a);
        reduce_into(DataType::F16, ReduceOp::Sum, &mut d, &bytes(&b));
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: ties go to even (1.0); 2048 + 1 likewise.
        assert_eq!(d, bytes(&[f16::from_f32(1.0), f16::from_f32(2048.0)]));
    }

    #[test]
    fn unaligned_views_reduce_like_aligned_ones() {
        let a: Vec<f64> = (0..9).map(|i| i as f64 * 1.5).collect();
        let b: Vec<f64> = (0..9).map(|i| 10.0 - i as f64).collect();
        let mut buf = [0u8; 9 * 8 + 1];
        buf[1..].copy_from_slice(&bytes(&a));
        let src = bytes(&b);
        reduce_into(DataType::F64, ReduceOp::Max, &mut buf[1..], &src);
        let want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x.max(*y)).collect();
        assert_eq!(&buf[1..], &bytes(&want)[..]);
    }
}
