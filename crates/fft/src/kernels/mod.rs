//! The kernel-language kernels: [`fft_block`] (batched transforms in shared memory; see
//! [`block`]) and [`fft_pointwise`] (one thread per element: the steps of multi-pass Bluestein
//! and real transforms that do not fit a block pass). Each `#[kernel]` is a thin entry point;
//! the bodies are plain Rust against the DSL, specialised at plan time by a config struct.

pub(crate) mod block;
pub(crate) mod codelet;
pub(crate) mod pointwise;

use ferrocm_kernel::prelude::*;

#[allow(unused_imports)]
use crate::precision::FftFloat;

/// How a phase maps threads to a tile's elements (chosen for coalescing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Mode {
    /// Consecutive threads take consecutive elements of one transform.
    Row,
    /// Consecutive threads take the same element of consecutive transforms.
    Col,
}

/// What a block pass reads for each position of its FFT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Input {
    /// Complex elements.
    Complex,
    /// Real elements as complex pairs, `z[m] = x[2m] + i x[2m+1]` (even-length R2C).
    RealPairs,
    /// Real elements, imaginary part 0 (odd-length R2C).
    Real,
    /// The `n/2 + 1` complex values of a Hermitian half spectrum, expanded (odd-length C2R).
    HalfSpectrum,
    /// A Hermitian half spectrum folded into the half-length complex spectrum whose inverse
    /// holds the real output in pairs (even-length C2R).
    HalfSpectrumPairs,
}

/// What a block pass writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Output {
    /// Complex elements.
    Complex,
    /// The first `n/2 + 1` values of the spectrum (odd-length R2C).
    HalfSpectrum,
    /// The `n + 1` values of the spectrum of `2n` reals, unfolded from the half-length complex
    /// FFT of their pairs (even-length R2C).
    HalfSpectrumPairs,
    /// Real pairs from the real and imaginary parts (even-length C2R).
    RealPairs,
    /// Real parts (odd-length C2R).
    Real,
}

/// Whether an `f32` block pass reads real pairs (`Input::RealPairs`, its load side in
/// `Mode::Col`) 16 bytes at a time: element `j` of two adjacent transforms (`c` and `c + 1`, `c`
/// even) is one 16-byte piece. Lanes `2i` and `2i + 1` of a warp hold such a pair at the same
/// butterfly: in the first pass the even lane reads positions `2m` of its butterfly and the odd
/// lane positions `2m + 1`, each for both transforms, and a shuffle trades the halves that
/// belong to the other lane (an odd radix's last position moves 8 bytes per lane as before).
/// Complex sides stay 8-byte: 16-byte complex loads and stores were measured slower on the
/// H100 (the shuffle costs more than the halved instruction count saves; `NOTES.md`).
///
/// The planner sets it only where every such pair is one aligned 16-byte piece whatever the
/// buffer: real pairs one real apart with unit transform stride, even strides, an even
/// `per_block` and an even count of batch dimension 0, blocks of whole warps, no Bluestein,
/// mirrored or paired rows. The buffer's own address must be a multiple of 16 bytes: the plan
/// checks that at execution and runs the 8-byte kernel otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Wide {
    pub load: bool,
}

/// Bluestein's algorithm inside one block: a length-`n` transform as a circular convolution of
/// the FFT length (`BlockCfg::len`); `aux` holds the chirp (`n` values) and the filter (the
/// FFT of the conjugate chirp over the FFT length, divided by it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Bluestein {
    pub n: usize,
    pub chirp_off: usize,
    pub filter_off: usize,
}

/// The four-step twiddle `W_n^{k c}` on output `k` of the transform with index `c` in batch
/// dimension `dim` (0 or 1), from two tables in `aux` at `off`:
/// `W_n^e = lo[e % 2^bits] hi[e >> bits]`. A thread of a last pass of radix 4 or more looks
/// up two of them, `W_n^{k0 c}` and `W_n^{ns c}`, and multiplies on to those of its outputs
/// `k0 + x ns` (each at most `r` roundings from the exact value).
///
/// With input `HalfSpectrumPairs` (pass A of an even-length C2R: `n` the half length, `dim`
/// 0, batch dimension 0 the `n2 = n / len` transforms with the axis's own stride) the pass
/// folds the half spectrum as it reads: position `j` of transform `n2'` is logical position
/// `j n2 + n2'`, and the real-transform twiddles are those of length `n`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FourStep {
    pub n: u64,
    pub bits: u32,
    pub off: usize,
    pub dim: usize,
}

/// Where the real-transform twiddles `W_{2n}^k` (`k <= n`) are in `aux`: a table of `n + 1`
/// values at `off` (`bits` 0), or for long transforms the split `lo[k % 2^bits] hi[k >> bits]`
/// (`lo` at `off`, `hi` after it), so the table stays near `2 sqrt(n)` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct RealTable {
    pub off: usize,
    pub bits: u32,
}

/// Everything a block pass is specialised on.
///
/// Launch arguments (after the four slices `input`, `output`, `tw`, `aux`): the stride of
/// the transform's elements in the input and the output, the offset between the two reals of
/// a pair in the input and the output, then for each of the four batch dimensions its count,
/// input stride and output stride. Complex buffers count in complex elements, real buffers in
/// reals.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BlockCfg {
    /// The FFT length of the tile.
    pub len: usize,
    pub radices: Vec<usize>,
    /// Offset of each pass's twiddles in `tw` (see [`crate::twiddle::stockham`]).
    pub tw_offsets: Vec<usize>,
    pub threads_per_fft: usize,
    pub per_block: usize,
    pub inverse: bool,
    pub load: Mode,
    pub store: Mode,
    /// 16-byte global accesses on the strided (`Mode::Col`) side(s), see [`Wide`].
    pub wide: Wide,
    pub input: Input,
    pub output: Output,
    pub four_step: Option<FourStep>,
    pub bluestein: Option<Bluestein>,
    /// The real-transform twiddles in `aux`.
    pub real: RealTable,
    /// Batch dimensions used (1 to 4).
    pub dims: usize,
    /// `Some(n1)`: the last pass of an even-length R2C four-step, `n = n1 len` with output
    /// `k1 + n1 k2` in transform `k1` (batch dimension 0, exactly `n1` of them) at position
    /// `k2`. Each block holds mirrored transforms, `per_block / 2` consecutive `k1` and their
    /// mirrors `n1 - k1` (block 0 pairs `0` with `n1 / 2`, both their own mirrors), so the
    /// unfold (`Output::HalfSpectrumPairs`, which needs `Z[k]` and `Z[n - k]`) is done from
    /// shared memory by the pass's store instead of by a separate pass over the spectrum.
    /// `per_block` is even and divides `n1`.
    pub mirror: Option<usize>,
    /// The first pass of a multi-dimensional R2C that also does the radix-2 step of the next
    /// axis (see [`RowPairs`]).
    pub rows: Option<RowPairs>,
    /// One transform of `q len` over a cluster of `q` blocks (see [`Cluster`]).
    pub cluster: Option<Cluster>,
    /// Whether the element strides (`in_stride`, `out_stride`) are 1: then they are compiled
    /// in (the kernel's arguments are not read) and position `j` of a transform at `base` is
    /// the index `base + j`, which the PTX back end addresses with one `mul.wide.u32` per
    /// access from the transform's start instead of a 64-bit product per position.
    pub unit_strides: [bool; 2],
}

/// A transform of length `L = q len` computed by a thread-block cluster of `q` blocks (sm_90)
/// that share their tiles through distributed shared memory: a column pass (strided on both
/// sides) too long to hold enough transforms per block for long runs gets them this way (each
/// block holds `1 / q` of every transform). With `j = q m + r` and `k = k' + len s`,
/// `X[k' + len s] = sum_r W_q^{r s} W_L^{r k'} Y_r[k']`, `Y_r` the length-`len` FFT of the
/// elements `x[q m + r]`. Block `r` of the cluster computes `Y_r` of the tile's transforms in
/// its shared memory (the block pass over every `q`-th element): its last Stockham pass reads
/// its tile, waits at a cluster barrier until every block has read its own, and pushes
/// `Y_r[k']` into the tile of the block that owns position `k'` (block `b` owns `[b len / q,
/// (b + 1) len / q)`), at `[k' mod (len / q)][r][c]` for transform `c`: remote
/// stores only, adjacent for consecutive transforms. After a second barrier each block reads
/// `Y_r[k']` of every `r` from its own tile, applies the twiddles and the radix-`q` DFT and
/// stores outputs `k' + len s` with consecutive threads on consecutive transforms. The twiddles
/// `W_L^{r k'}` are a table at `off` in `aux`, entry `(r - 1) len + k'` for `1 <= r < q`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Cluster {
    pub q: usize,
    pub off: usize,
}

/// Rows of a multi-dimensional R2C's first pass taken in pairs `r`, `r + n0 / 2` of the next
/// axis (batch dimension 0, `n0` long, even), so the pass also does that axis's first
/// four-step step (`n0 = 2 (n0 / 2)`): slot `s < P` of block `g0` holds row `g0 P + s`, slot
/// `P + s` row `g0 P + s + n0 / 2` (`P = per_block / 2`), and each row's half spectrum `a`,
/// `b` is written as rows `2r` (`a + b`) and `2r + 1` (`(a - b) W_n0^r`; the table
/// `lo[e % 2^bits] hi[e >> bits]` at `off` in `aux`). The next axis is then a transform of
/// length `n0 / 2` over every other row, with twice as many transforms per block as `n0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RowPairs {
    pub n0: usize,
    pub off: usize,
    pub bits: u32,
}

impl BlockCfg {
    /// The length of the transform the pass computes (Bluestein's `n`, else the FFT length).
    pub fn logical_len(&self) -> usize {
        match (&self.bluestein, &self.cluster) {
            (Some(b), _) => b.n,
            (None, Some(c)) => c.q * self.len,
            (None, None) => self.len,
        }
    }

    pub fn output_positions(&self) -> usize {
        let n = self.logical_len();
        match self.output {
            Output::Complex | Output::RealPairs | Output::Real => n,
            Output::HalfSpectrum => n / 2 + 1,
            Output::HalfSpectrumPairs => n + 1,
        }
    }

    pub fn threads(&self) -> usize {
        self.threads_per_fft * self.per_block
    }
}

/// A block pass; see [`block`] and [`BlockCfg`].
#[kernel]
#[allow(clippy::too_many_arguments)]
pub(crate) fn fft_block<T: FftFloat>(
    #[comptime] cfg: BlockCfg,
    input: &[T],
    output: &mut [T],
    tw: &[T],
    aux: &[T],
    in_stride: u64,
    out_stride: u64,
    pair_in: u64,
    pair_out: u64,
    n0: u64,
    is0: u64,
    os0: u64,
    n1: u64,
    is1: u64,
    os1: u64,
    n2: u64,
    is2: u64,
    os2: u64,
    n3: u64,
    is3: u64,
    os3: u64,
) {
    block::body::<T>(
        &cfg,
        input,
        output,
        tw,
        aux,
        block::Geo::new(
            in_stride, out_stride, pair_in, pair_out, n0, is0, os0, n1, is1, os1, n2, is2, os2, n3, is3, os3,
        ),
    );
}

/// A pointwise step; see [`pointwise`]. Same layout arguments as [`fft_block`].
#[kernel]
#[allow(clippy::too_many_arguments)]
pub(crate) fn fft_pointwise<T: FftFloat>(
    #[comptime] cfg: pointwise::PointCfg,
    input: &[T],
    output: &mut [T],
    aux: &[T],
    in_stride: u64,
    out_stride: u64,
    pair_in: u64,
    pair_out: u64,
    n0: u64,
    is0: u64,
    os0: u64,
    n1: u64,
    is1: u64,
    os1: u64,
    n2: u64,
    is2: u64,
    os2: u64,
    n3: u64,
    is3: u64,
    os3: u64,
) {
    pointwise::body::<T>(
        &cfg,
        input,
        output,
        aux,
        block::Geo::new(
            in_stride, out_stride, pair_in, pair_out, n0, is0, os0, n1, is1, os1, n2, is2, os2, n3, is3, os3,
        ),
    );
}
