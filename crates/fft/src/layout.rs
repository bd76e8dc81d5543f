//! Transform descriptions and the data layouts of `cufftPlanMany`/rocFFT: sizes, embedded
//! sizes, strides and distances, resolved to per-axis strides and checked once.

use crate::FftError;

/// What a plan transforms (hipFFT's `hipfftType`, with the precision given by the plan's
/// element type: `C2C` is `Z2Z` in `f64`, `R2C` is `D2Z`, `C2R` is `Z2D`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransformType {
    /// Complex to complex, forward or inverse.
    C2C,
    /// Real to complex (forward): `n` reals to `n/2 + 1` complex values along the last axis.
    R2C,
    /// Complex to real (inverse): `n/2 + 1` complex values to `n` reals along the last axis.
    C2R,
}

impl TransformType {
    pub(crate) fn name(self) -> &'static str {
        match self {
            TransformType::C2C => "C2C",
            TransformType::R2C => "R2C",
            TransformType::C2R => "C2R",
        }
    }
}

/// The sign of the exponent: forward `e^{-2 pi i jk/n}`, inverse `e^{+2 pi i jk/n}`. Inverse
/// transforms are unnormalised, as in cuFFT and rocFFT: a forward then an inverse transform
/// multiplies the data by the number of elements transformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    Forward,
    Inverse,
}

/// Where the elements of one side (input or output) live, as in `cufftPlanMany`: element
/// `(b, i_0, .., i_{r-1})` of batch `b` is at
/// `b * distance + ((i_0 * embed[1] + i_1) * embed[2] + i_2 ..) * stride`,
/// in elements of that side's type (reals or complex values).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Layout {
    /// The storage sizes of each axis (`inembed`/`onembed`); `None`: the logical sizes.
    /// `embed[0]` only enters the default distance.
    pub embed: Option<Vec<usize>>,
    /// The distance between consecutive elements of the last axis (`istride`/`ostride`);
    /// 0 is read as 1 (the packed default).
    pub stride: usize,
    /// The distance between the first elements of consecutive transforms (`idist`/`odist`);
    /// `None`: `stride * embed[0] * .. * embed[r-1]`.
    pub distance: Option<usize>,
}

impl Layout {
    /// The packed layout.
    pub fn packed() -> Layout {
        Layout::default()
    }

    /// A layout with every field given (`cufftPlanMany`'s `embed`, `stride`, `dist`).
    pub fn new(embed: &[usize], stride: usize, distance: usize) -> Layout {
        Layout { embed: Some(embed.to_vec()), stride, distance: Some(distance) }
    }
}

/// One side's layout resolved: the stride of each axis and the distance between batches.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Strides {
    pub axes: Vec<usize>,
    pub dist: usize,
    /// Elements a buffer must hold.
    pub required: usize,
}

/// A validated transform: logical sizes, batch and both sides' strides.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Problem {
    pub kind: TransformType,
    pub n: Vec<usize>,
    pub batch: usize,
    pub input: Strides,
    pub output: Strides,
}

/// The largest size of one axis (the kernels index an axis with 32-bit integers).
pub const MAX_AXIS: usize = 1 << 31;

fn bad(what: impl Into<String>, value: usize, rule: &'static str) -> FftError {
    FftError::InvalidSize { what: what.into(), value, rule }
}

fn overflow(what: &'static str) -> FftError {
    FftError::Overflow { what, max: usize::MAX as u64 }
}

impl Problem {
    /// Checks sizes and layouts and resolves the strides.
    pub fn new(
        kind: TransformType,
        n: &[usize],
        batch: usize,
        input: &Layout,
        output: &Layout,
    ) -> Result<Problem, FftError> {
        if n.is_empty() || n.len() > 3 {
            return Err(FftError::InvalidRank { rank: n.len() });
        }
        for (d, &x) in n.iter().enumerate() {
            if x == 0 {
                return Err(bad(format!("n[{d}]"), x, "each transform size must be at least 1"));
            }
            if x > MAX_AXIS {
                return Err(bad(format!("n[{d}]"), x, "each transform size must be at most 2^31"));
            }
        }
        if batch == 0 {
            return Err(bad("batch", 0, "the batch count must be at least 1"));
        }
        let mut half = n.to_vec();
        let last = n.len() - 1;
        half[last] = n[last] / 2 + 1;
        let (in_sizes, out_sizes) = match kind {
            TransformType::C2C => (n.to_vec(), n.to_vec()),
            TransformType::R2C => (n.to_vec(), half),
            TransformType::C2R => (half, n.to_vec()),
        };
        let total =
            n.iter().try_fold(batch, |a, &b| a.checked_mul(b)).ok_or_else(|| overflow("batch * n"))?;
        if total as u128 * 16 > isize::MAX as u128 {
            return Err(overflow("batch * n"));
        }
        let input = resolve("input", input, &in_sizes, batch)?;
        let output = resolve("output", output, &out_sizes, batch)?;
        check_no_overlap(&output, &out_sizes, batch)?;
        Ok(Problem { kind, n: n.to_vec(), batch, input, output })
    }

    /// The logical sizes of the input side (the half spectrum's for C2R).
    pub fn input_sizes(&self) -> Vec<usize> {
        self.side_sizes(self.kind == TransformType::C2R)
    }

    /// The logical sizes of the output side (the half spectrum's for R2C).
    pub fn output_sizes(&self) -> Vec<usize> {
        self.side_sizes(self.kind == TransformType::R2C)
    }

    fn side_sizes(&self, half: bool) -> Vec<usize> {
        let mut s = self.n.clone();
        if half {
            let last = s.len() - 1;
            s[last] = s[last] / 2 + 1;
        }
        s
    }

    /// Checks that an in-place execution reads and writes the same memory per transform.
    pub fn check_in_place(&self) -> Result<(), FftError> {
        let (i, o) = (&self.input, &self.output);
        match self.kind {
            TransformType::C2C => {
                if i.axes != o.axes || i.dist != o.dist {
                    return Err(FftError::InPlaceLayout {
                        kind: "C2C",
                        rule: "the same strides and distance for input and output",
                    });
                }
            }
            TransformType::R2C | TransformType::C2R => {
                // The real side counts in reals, the complex side in complex values: the real
                // array of each row must be the complex row's storage (the padded layout).
                let (real, cx) = if self.kind == TransformType::R2C { (i, o) } else { (o, i) };
                let last = real.axes.len() - 1;
                let ok = real.axes[last] == 1
                    && cx.axes[last] == 1
                    && real.axes[..last].iter().zip(&cx.axes[..last]).all(|(r, c)| *r == 2 * c)
                    && real.dist == 2 * cx.dist;
                if !ok {
                    return Err(FftError::InPlaceLayout {
                        kind: self.kind.name(),
                        rule: "the padded layout: unit stride along the last axis on both sides, and every \
                               other stride and the distance of the real side twice the complex side's \
                               (each row of n reals padded to 2 (n/2 + 1))",
                    });
                }
            }
        }
        Ok(())
    }
}

fn resolve(side: &'static str, l: &Layout, sizes: &[usize], batch: usize) -> Result<Strides, FftError> {
    let rank = sizes.len();
    let stride = if l.stride == 0 { 1 } else { l.stride };
    let embed = match &l.embed {
        None => sizes.to_vec(),
        Some(e) => {
            if e.len() != rank {
                return Err(FftError::EmbedRank { side, len: e.len(), rank });
            }
            for (axis, (&em, &sz)) in e.iter().zip(sizes).enumerate() {
                if axis > 0 && em < sz {
                    return Err(FftError::EmbedTooSmall { side, axis, embed: em, size: sz });
                }
                if em == 0 {
                    return Err(FftError::EmbedTooSmall { side, axis, embed: em, size: sz });
                }
            }
            e.clone()
        }
    };
    let mut axes = vec![0usize; rank];
    axes[rank - 1] = stride;
    for d in (0..rank - 1).rev() {
        axes[d] = axes[d + 1].checked_mul(embed[d + 1]).ok_or_else(|| overflow("a layout stride"))?;
    }
    let dist = match l.distance {
        Some(d) => d,
        None => axes[0].checked_mul(embed[0]).ok_or_else(|| overflow("the default distance"))?,
    };
    if batch > 1 && dist == 0 {
        return Err(bad(format!("{side} distance"), 0, "the distance must be at least 1 when batch > 1"));
    }
    let mut last = (batch - 1).checked_mul(dist).ok_or_else(|| overflow("the layout's extent"))?;
    for (&sz, &s) in sizes.iter().zip(&axes) {
        let step = (sz - 1).checked_mul(s).ok_or_else(|| overflow("the layout's extent"))?;
        last = last.checked_add(step).ok_or_else(|| overflow("the layout's extent"))?;
    }
    let required = last.checked_add(1).ok_or_else(|| overflow("the layout's extent"))?;
    Ok(Strides { axes, dist, required })
}

/// Output elements must not collide: sorted by stride, each dimension must step past
/// everything the smaller-stride dimensions span (sufficient for the nested layouts of
/// cuFFT's advanced data layout; interleavings beyond that are rejected).
fn check_no_overlap(s: &Strides, sizes: &[usize], batch: usize) -> Result<(), FftError> {
    let mut dims: Vec<(String, usize, usize)> =
        sizes.iter().zip(&s.axes).enumerate().map(|(d, (&n, &st))| (format!("axis {d}"), n, st)).collect();
    dims.push(("batch".to_string(), batch, s.dist));
    dims.retain(|d| d.1 > 1);
    dims.sort_by_key(|d| d.2);
    let mut extent = 0usize; // the largest offset reached by the dimensions so far
    for (name, count, stride) in dims {
        if stride <= extent || stride == 0 {
            return Err(FftError::OverlappingOutput { dim: name, stride, extent: extent + 1 });
        }
        extent += (count - 1) * stride;
    }
    Ok(())
}
