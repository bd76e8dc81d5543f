//! ThreeFry ([`crate::reference::threefry`]) in the kernel language: the four block functions
//! and a stream state over the host API's counter layout.

use ferrocm_kernel::device;
use ferrocm_kernel::dsl::{self, cast, select, IntoVal, Val, Var};

use super::{Cache, DeviceGenerator};
use crate::reference::threefry::ThreefryKind;

const R_32X2: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
const R_32X4: [[u32; 2]; 8] = [[10, 26], [11, 21], [13, 27], [23, 5], [6, 20], [17, 11], [25, 10], [18, 20]];
const R_64X2: [u32; 8] = [16, 42, 12, 31, 16, 32, 24, 21];
const R_64X4: [[u32; 2]; 8] = [[14, 16], [52, 57], [23, 40], [5, 37], [25, 33], [46, 12], [58, 22], [32, 32]];

// The rounds keep two pipes busy: the integer ALU pipe (funnel shifts, xors, some adds) and
// the FMA pipe's heavy half (integer multiply-adds: the other adds, and the products below);
// see NOTES.md ("Sixteenth session"). So some rotations are written as products by `2^r`,
// whose halves `x << r` and `x >> (32 - r)` come from one `IMAD.WIDE` on the FMA pipe (`ptxas`
// keeps the product and folds the `or` into the round's `xor`: one `LOP3`): every 64-bit
// rotation (two products), and in the 32-bit variants the (first) rotation of odd rounds,
// which balances the two pipes. The values are the same.

/// Whether round `r`'s (first) 32-bit rotation goes to the FMA pipe.
const fn on_fma(r: u32) -> bool {
    r % 2 == 1
}

fn rotl32(x: Val<u32>, r: u32) -> Val<u32> {
    (x << r) | (x >> (32 - r))
}

/// [`rotl32`] as a product: `x 2^r` is `(x >> (32 - r)) 2^32 + (x << r mod 2^32)`.
fn rotl32_fma(x: Val<u32>, r: u32) -> Val<u32> {
    let w = x.mul_wide(1u32 << r);
    cast::<u32, _>(w) | cast::<u32, _>(w >> 32u32)
}

/// `x` rotated left by `r` bits, by two 32-bit products (a rotation by 32 or more first swaps
/// the halves).
fn rotl64(x: Val<u64>, r: u32) -> Val<u64> {
    let (lo, hi): (Val<u32>, Val<u32>) = (cast::<u32, _>(x), cast::<u32, _>(x >> 32u32));
    let (lo, hi, r) = if r >= 32 { (hi, lo, r - 32) } else { (lo, hi, r) };
    let (new_lo, new_hi) = if r == 0 {
        (lo, hi)
    } else {
        let (a, b) = (lo.mul_wide(1u32 << r), hi.mul_wide(1u32 << r));
        (cast::<u32, _>(a) | cast::<u32, _>(b >> 32u32), cast::<u32, _>(b) | cast::<u32, _>(a >> 32u32))
    };
    cast::<u64, _>(new_lo) | (cast::<u64, _>(new_hi) << 32u32)
}

/// Threefry2x32-20.
pub fn threefry2x32(ctr: [Val<u32>; 2], key: [Val<u32>; 2]) -> [Val<u32>; 2] {
    let ks = [key[0], key[1], key[0] ^ key[1] ^ 0x1BD1_1BDAu32];
    let mut x = [ctr[0] + ks[0], ctr[1] + ks[1]];
    for r in 0..20u32 {
        x[0] = x[0] + x[1];
        let rot = if on_fma(r) { rotl32_fma } else { rotl32 };
        x[1] = rot(x[1], R_32X2[(r % 8) as usize]) ^ x[0];
        if r % 4 == 3 {
            let i = (r + 1) / 4;
            x[0] = x[0] + ks[(i % 3) as usize];
            x[1] = x[1] + ks[((i + 1) % 3) as usize] + i;
        }
    }
    x
}

/// Threefry4x32-20.
pub fn threefry4x32(ctr: [Val<u32>; 4], key: [Val<u32>; 4]) -> [Val<u32>; 4] {
    let ks = [key[0], key[1], key[2], key[3], key[0] ^ key[1] ^ key[2] ^ key[3] ^ 0x1BD1_1BDAu32];
    let mut x: [Val<u32>; 4] = std::array::from_fn(|j| ctr[j] + ks[j]);
    for r in 0..20u32 {
        let [a, b] = R_32X4[(r % 8) as usize];
        let rot = if on_fma(r) { rotl32_fma } else { rotl32 };
        if r % 2 == 0 {
            x[0] = x[0] + x[1];
            x[1] = rot(x[1], a) ^ x[0];
            x[2] = x[2] + x[3];
            x[3] = rotl32(x[3], b) ^ x[2];
        } else {
            x[0] = x[0] + x[3];
            x[3] = rot(x[3], a) ^ x[0];
            x[2] = x[2] + x[1];
            x[1] = rotl32(x[1], b) ^ x[2];
        }
        if r % 4 == 3 {
            let i = (r + 1) / 4;
            for (j, w) in x.iter_mut().enumerate() {
                *w = *w + ks[(i as usize + j) % 5];
            }
            x[3] = x[3] + i;
        }
    }
    x
}

/// Threefry2x64-20.
pub fn threefry2x64(ctr: [Val<u64>; 2], key: [Val<u64>; 2]) -> [Val<u64>; 2] {
    let ks = [key[0], key[1], key[0] ^ key[1] ^ 0x1BD1_1BDA_A9FC_1A22u64];
    let mut x = [ctr[0] + ks[0], ctr[1] + ks[1]];
    for r in 0..20u32 {
        x[0] = x[0] + x[1];
        x[1] = rotl64(x[1], R_64X2[(r % 8) as usize]) ^ x[0];
        if r % 4 == 3 {
            let i = (r + 1) / 4;
            x[0] = x[0] + ks[(i % 3) as usize];
            x[1] = x[1] + ks[((i + 1) % 3) as usize] + i as u64;
        }
    }
    x
}

/// Threefry4x64-20.
pub fn threefry4x64(ctr: [Val<u64>; 4], key: [Val<u64>; 4]) -> [Val<u64>; 4] {
    let ks = [key[0], key[1], key[2], key[3], key[0] ^ key[1] ^ key[2] ^ key[3] ^ 0x1BD1_1BDA_A9FC_1A22u64];
    let mut x: [Val<u64>; 4] = std::array::from_fn(|j| ctr[j] + ks[j]);
    for r in 0..20u32 {
        let [a, b] = R_64X4[(r % 8) as usize];
        if r % 2 == 0 {
            x[0] = x[0] + x[1];
            x[1] = rotl64(x[1], a) ^ x[0];
            x[2] = x[2] + x[3];
            x[3] = rotl64(x[3], b) ^ x[2];
        } else {
            x[0] = x[0] + x[3];
            x[3] = rotl64(x[3], a) ^ x[0];
            x[2] = x[2] + x[1];
            x[1] = rotl64(x[1], b) ^ x[2];
        }
        if r % 4 == 3 {
            let i = (r + 1) / 4;
            for (j, w) in x.iter_mut().enumerate() {
                *w = *w + ks[(i as usize + j) % 5];
            }
            x[3] = x[3] + i as u64;
        }
    }
    x
}

fn split(w: &[Val<u64>]) -> Vec<Val<u32>> {
    w.iter().flat_map(|&x| [cast::<u32, _>(x), cast::<u32, _>(x >> 32u32)]).collect()
}

/// The 32-bit values of block `b` of `kind`'s stream for `seed`
/// ([`ThreefryKind::block`]).
pub fn threefry_block(kind: ThreefryKind, seed: Val<u64>, b: Val<u64>) -> Vec<Val<u32>> {
    let (lo, hi): (Val<u32>, Val<u32>) = (cast::<u32, _>(seed), cast::<u32, _>(seed >> 32u32));
    let (b_lo, b_hi): (Val<u32>, Val<u32>) = (cast::<u32, _>(b), cast::<u32, _>(b >> 32u32));
    let z32 = Val::constant(0u32);
    let z64 = Val::constant(0u64);
    match kind {
        ThreefryKind::X2x32 => threefry2x32([b_lo, b_hi], [lo, hi]).to_vec(),
        ThreefryKind::X4x32 => threefry4x32([b_lo, b_hi, z32, z32], [lo, hi, z32, z32]).to_vec(),
        ThreefryKind::X2x64 => split(&threefry2x64([b, z64], [seed, z64])),
        ThreefryKind::X4x64 => split(&threefry4x64([b, z64, z64, z64], [seed, z64, z64, z64])),
    }
}

/// Four consecutive values `4u .. 4u + 4` of the stream (one or two blocks, or half of one).
#[device]
pub fn threefry_unit(#[comptime] kind: ThreefryKind, seed: u64, u: u64) -> [Val<u32>; 4] {
    match kind {
        ThreefryKind::X2x32 => {
            let a = threefry_block(kind, seed, u * 2u64);
            let b = threefry_block(kind, seed, u * 2u64 + 1u64);
            [a[0], a[1], b[0], b[1]]
        }
        ThreefryKind::X4x64 => {
            let w = threefry_block(kind, seed, u >> 1u32);
            let odd = (u & 1u64) != 0u64;
            std::array::from_fn(|k| select(odd, w[4 + k], w[k]))
        }
        _ => {
            let w = threefry_block(kind, seed, u);
            [w[0], w[1], w[2], w[3]]
        }
    }
}

/// [`threefry_unit`] of unit `hi 2^32 + lo` in the narrow plan, where every unit of a launch
/// shares `hi` and bit 31 of `lo` (`top`): the blocks' counters then have high words that are
/// the same for the whole launch, which the compiler keeps out of the loop (and in 2x32 and
/// 4x32, the first round's rotation of them).
pub fn threefry_unit_narrow(
    kind: ThreefryKind,
    seed: Val<u64>,
    lo: Val<u32>,
    hi: Val<u32>,
    top: Val<u32>,
) -> [Val<u32>; 4] {
    let key = [cast::<u32, _>(seed), cast::<u32, _>(seed >> 32u32)];
    let z32 = Val::constant(0u32);
    match kind {
        ThreefryKind::X2x32 => {
            // Blocks 2u and 2u + 1.
            let (b_lo, b_hi) = (lo << 1u32, (hi << 1u32) | top);
            let a = threefry2x32([b_lo, b_hi], key);
            let b = threefry2x32([b_lo | 1u32, b_hi], key);
            [a[0], a[1], b[0], b[1]]
        }
        ThreefryKind::X4x32 => threefry4x32([lo, hi, z32, z32], [key[0], key[1], z32, z32]),
        _ => {
            let u = cast::<u64, _>(lo) | (cast::<u64, _>(hi) << 32u32);
            threefry_unit(kind, seed, u)
        }
    }
}

/// A ThreeFry stream position: value `i` of `kind`'s 32-bit stream for `seed` (counter-based,
/// so any position costs one block; there are no subsequences: use disjoint offsets or
/// seeds), with the Box-Muller cache of the shared distributions.
#[derive(Clone, Copy)]
pub struct Threefry {
    kind: ThreefryKind,
    seed: Val<u64>,
    position: Var<Val<u64>>,
    cache: Cache,
}

impl Threefry {
    /// The stream of `seed` at value `offset`.
    pub fn init(kind: ThreefryKind, seed: impl IntoVal<u64>, offset: impl IntoVal<u64>) -> Threefry {
        Threefry {
            kind,
            seed: seed.into_val(),
            position: dsl::var("tf_pos", offset.into_val()),
            cache: Cache::new(),
        }
    }

    /// Skips `n` values.
    pub fn skipahead(&self, n: impl IntoVal<u64>) {
        self.position.set(self.position.get() + n.into_val());
    }
}

impl DeviceGenerator for Threefry {
    /// One block per call (a state that draws many values in a row should use
    /// [`threefry_unit`] instead).
    #[device]
    fn next_u32(&self) -> Val<u32> {
        let p = self.position.get();
        let w = self.kind.words();
        let words = threefry_block(self.kind, self.seed, p / w);
        let k = (p % w) as u32;
        #[comptime]
        let mut v = words[0];
        for (j, &x) in words.iter().enumerate().skip(1) {
            v = select(k == j as u32, x, v);
        }
        self.position = p + 1u64;
        v
    }

    fn cache(&self) -> Cache {
        self.cache
    }
}
