//! ThreeFry (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11; the Skein
//! hash's Threefish mix without the tweak): the counter-based block functions 2x32, 4x32,
//! 2x64 and 4x64 with 20 rounds, as Random123 defines them (its `kat_vectors` are the tests'
//! known answers), and the counter streams the host API builds on them.
//!
//! A block maps an N-word counter and an N-word key to N words: the key schedule appends the
//! parity word (`0x1BD11BDA` or `0x1BD11BDAA9FC1A22` XOR all key words); every round adds,
//! rotates by a fixed amount and XORs pairs of words; every fourth round injects the key
//! schedule rotated by the injection count, plus the count in the last word.

/// Key-schedule parity constants (Skein's `SKEIN_KS_PARITY`).
const PARITY32: u32 = 0x1BD1_1BDA;
const PARITY64: u64 = 0x1BD1_1BDA_A9FC_1A22;

/// Rotation amounts, round `r` uses entry `r % 8`.
const R_32X2: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
const R_32X4: [[u32; 2]; 8] = [[10, 26], [11, 21], [13, 27], [23, 5], [6, 20], [17, 11], [25, 10], [18, 20]];
const R_64X2: [u32; 8] = [16, 42, 12, 31, 16, 32, 24, 21];
const R_64X4: [[u32; 2]; 8] = [[14, 16], [52, 57], [23, 40], [5, 37], [25, 33], [46, 12], [58, 22], [32, 32]];

/// The word operations the block functions need, for `u32` and `u64`.
pub trait Word: Copy {
    /// Skein's parity constant for this width.
    const PARITY: Self;
    /// Wrapping addition.
    fn add(self, o: Self) -> Self;
    /// Left rotation.
    fn rotl(self, r: u32) -> Self;
    /// Exclusive or.
    fn xor(self, o: Self) -> Self;
    /// `i` as a word.
    fn from_u32(i: u32) -> Self;
}

impl Word for u32 {
    const PARITY: u32 = PARITY32;
    fn add(self, o: u32) -> u32 {
        self.wrapping_add(o)
    }
    fn rotl(self, r: u32) -> u32 {
        self.rotate_left(r)
    }
    fn xor(self, o: u32) -> u32 {
        self ^ o
    }
    fn from_u32(i: u32) -> u32 {
        i
    }
}

impl Word for u64 {
    const PARITY: u64 = PARITY64;
    fn add(self, o: u64) -> u64 {
        self.wrapping_add(o)
    }
    fn rotl(self, r: u32) -> u64 {
        self.rotate_left(r)
    }
    fn xor(self, o: u64) -> u64 {
        self ^ o
    }
    fn from_u32(i: u32) -> u64 {
        i as u64
    }
}

/// The two-word block function with `rounds` rounds and rotation table `rot`.
pub fn threefry2<W: Word>(ctr: [W; 2], key: [W; 2], rounds: u32, rot: &[u32; 8]) -> [W; 2] {
    let ks = [key[0], key[1], W::PARITY.xor(key[0]).xor(key[1])];
    let mut x = [ctr[0].add(ks[0]), ctr[1].add(ks[1])];
    for r in 0..rounds {
        x[0] = x[0].add(x[1]);
        x[1] = x[1].rotl(rot[(r % 8) as usize]).xor(x[0]);
        if r % 4 == 3 {
            let i = (r + 1) / 4;
            x[0] = x[0].add(ks[(i % 3) as usize]);
            x[1] = x[1].add(ks[((i + 1) % 3) as usize]).add(W::from_u32(i));
        }
    }
    x
}

/// The four-word block function with `rounds` rounds and rotation table `rot`.
pub fn threefry4<W: Word>(ctr: [W; 4], key: [W; 4], rounds: u32, rot: &[[u32; 2]; 8]) -> [W; 4] {
    let p = W::PARITY.xor(key[0]).xor(key[1]).xor(key[2]).xor(key[3]);
    let ks = [key[0], key[1], key[2], key[3], p];
    let mut x: [W; 4] = std::array::from_fn(|j| ctr[j].add(ks[j]));
    for r in 0..rounds {
        let [a, b] = rot[(r % 8) as usize];
        if r % 2 == 0 {
            x[0] = x[0].add(x[1]);
            x[1] = x[1].rotl(a).xor(x[0]);
            x[2] = x[2].add(x[3]);
            x[3] = x[3].rotl(b).xor(x[2]);
        } else {
            x[0] = x[0].add(x[3]);
            x[3] = x[3].rotl(a).xor(x[0]);
            x[2] = x[2].add(x[1]);
            x[1] = x[1].rotl(b).xor(x[2]);
        }
        if r % 4 == 3 {
            let i = (r + 1) / 4;
            for (j, w) in x.iter_mut().enumerate() {
                *w = w.add(ks[(i as usize + j) % 5]);
            }
            x[3] = x[3].add(W::from_u32(i));
        }
    }
    x
}

/// Threefry2x32 with `rounds` rounds (20 in the generators).
pub fn threefry2x32(ctr: [u32; 2], key: [u32; 2], rounds: u32) -> [u32; 2] {
    threefry2(ctr, key, rounds, &R_32X2)
}

/// Threefry4x32 with `rounds` rounds.
pub fn threefry4x32(ctr: [u32; 4], key: [u32; 4], rounds: u32) -> [u32; 4] {
    threefry4(ctr, key, rounds, &R_32X4)
}

/// Threefry2x64 with `rounds` rounds.
pub fn threefry2x64(ctr: [u64; 2], key: [u64; 2], rounds: u32) -> [u64; 2] {
    threefry2(ctr, key, rounds, &R_64X2)
}

/// Threefry4x64 with `rounds` rounds.
pub fn threefry4x64(ctr: [u64; 4], key: [u64; 4], rounds: u32) -> [u64; 4] {
    threefry4(ctr, key, rounds, &R_64X4)
}

/// Which ThreeFry variant a generator runs (all with 20 rounds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreefryKind {
    /// Two 32-bit words per block.
    X2x32,
    /// Four 32-bit words per block.
    X4x32,
    /// Two 64-bit words per block.
    X2x64,
    /// Four 64-bit words per block.
    X4x64,
}

impl ThreefryKind {
    /// 32-bit values per block.
    pub fn words(self) -> u64 {
        match self {
            ThreefryKind::X2x32 => 2,
            ThreefryKind::X4x32 | ThreefryKind::X2x64 => 4,
            ThreefryKind::X4x64 => 8,
        }
    }

    /// The 32-bit values of block `b` of the stream of `seed`: the counter is `b` (low word
    /// first; the other counter words 0), the key is the seed (64-bit variants: key word 0 is
    /// the seed; 32-bit ones: its low and high halves in key words 0 and 1), the other key
    /// words 0. 64-bit words give their low half first.
    pub fn block(self, seed: u64, b: u64) -> Vec<u32> {
        let (lo, hi) = (seed as u32, (seed >> 32) as u32);
        let (b_lo, b_hi) = (b as u32, (b >> 32) as u32);
        let split = |w: &[u64]| w.iter().flat_map(|&x| [x as u32, (x >> 32) as u32]).collect();
        match self {
            ThreefryKind::X2x32 => threefry2x32([b_lo, b_hi], [lo, hi], 20).to_vec(),
            ThreefryKind::X4x32 => threefry4x32([b_lo, b_hi, 0, 0], [lo, hi, 0, 0], 20).to_vec(),
            ThreefryKind::X2x64 => split(&threefry2x64([b, 0], [seed, 0], 20)),
            ThreefryKind::X4x64 => split(&threefry4x64([b, 0, 0, 0], [seed, 0, 0, 0], 20)),
        }
    }

    /// Value `i` of the 32-bit stream of `seed` (block `i / words`, word `i % words`).
    pub fn value(self, seed: u64, i: u64) -> u32 {
        let w = self.words();
        self.block(seed, i / w)[(i % w) as usize]
    }
}
