//! Libraries in the kernel language: types with `#[device]` methods (a generator state whose
//! fields are variables, a tile over shared memory) and device functions over them, written as
//! plain Rust, checked on every backend against the same code run on the host.

mod common;

use common::*;
use ferrocm_kernel::prelude::*;

/// A xorshift32 generator state: one variable, updated by its methods.
#[derive(Clone, Copy)]
pub struct Xorshift {
    state: Var<Val<u32>>,
}

#[device]
impl Xorshift {
    pub fn new(seed: u32) -> Xorshift {
        Xorshift { state: Var::new(seed | 1u32) }
    }

    pub fn next(&self) -> u32 {
        let mut x = self.state.get();
        x ^= x << 13u32;
        x ^= x >> 17u32;
        x ^= x << 5u32;
        self.state = x;
        x
    }

    /// A draw below `n`, taking different paths on odd and even draws.
    pub fn below(&self, n: u32) -> u32 {
        let r = self.next();
        if r % 2u32 == 0u32 && n > 1u32 {
            r % n
        } else {
            (r / 2u32) % n
        }
    }

    /// Skips `k` draws.
    pub fn skip(&self, k: u32) {
        let mut i = 0u32;
        while i < k {
            self.next();
            i += 1u32;
        }
    }
}

/// The same generator on the host.
struct HostXorshift(u32);

impl HostXorshift {
    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u32) -> u32 {
        let r = self.next();
        if r.is_multiple_of(2) && n > 1 {
            r % n
        } else {
            (r / 2) % n
        }
    }
}

/// A square tile of a matrix in shared memory.
#[derive(Clone, Copy)]
pub struct Tile {
    s: Shared<f32>,
    width: u32,
}

#[device]
impl Tile {
    pub fn at(&self, r: u32, c: u32) -> f32 {
        self.s[r * self.width + c]
    }

    pub fn put(&self, r: u32, c: u32, v: f32) {
        self.s[r * self.width + c] = v;
    }
}

/// A device function over a struct of device values.
#[device]
fn row_sum(t: Tile, r: u32) -> f32 {
    let mut acc = 0.0f32;
    for c in 0u32..t.width {
        acc += t.at(r, c);
    }
    acc
}

#[kernel]
fn walk(seed: u32, out: &mut [u32]) {
    let t = thread_idx_x();
    let g = Xorshift::new(seed + t);
    g.skip(t % 3u32);
    let mut sum = 0u32;
    for k in 0u32..16u32 {
        sum += g.below(k + 1u32);
    }
    out[t] = sum;
}

#[kernel]
fn tile_sums(x: &[f32], out: &mut [f32]) {
    let tile = Tile { s: shared_array::<f32>(16 * 16), width: 16u32 };
    let t = thread_idx_x();
    for c in 0u32..16u32 {
        tile.put(t, c, x[t * 16u32 + c] * 2.0f32);
    }
    sync_threads();
    out[t] = row_sum(tile, 15u32 - t);
}

#[test]
fn generator_state_with_device_methods() {
    let seed = Rng::new().u32();
    let out = Launch::new("walk", walk::kernel(), 1, 64).scalar(seed).buf(&[0u32; 64]).run();
    let want: Vec<u32> = (0..64u32)
        .map(|t| {
            let mut g = HostXorshift(seed.wrapping_add(t) | 1);
            for _ in 0..t % 3 {
                g.next();
            }
            (0..16).map(|k| g.below(k + 1)).sum()
        })
        .collect();
    assert_eq!(out.get::<u32>(1), want);
}

#[test]
fn tiles_and_device_functions_over_structs() {
    let x = Rng::new().f32s(256, -1.0, 1.0);
    let out = Launch::new("tile_sums", tile_sums::kernel(), 1, 16).buf(&x).buf(&[0f32; 16]).run();
    let want: Vec<f64> =
        (0..16).map(|t| (0..16).map(|c| 2.0 * x[(15 - t) * 16 + c] as f64).sum::<f64>()).collect();
    check_close("tile_sums", &f64s(&out.get::<f32>(1)), &want, 1e-5, 1e-5);
}
