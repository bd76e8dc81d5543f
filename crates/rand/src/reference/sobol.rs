//! Sobol32 and Sobol64 quasi-random sequences with cuRAND's direction vectors and Gray-code
//! ordering (`curandStateSobol32_t`, `curandStateSobol64_t`, `CURAND_RNG_QUASI_SOBOL32/64`).
//!
//! Direction numbers are Joe and Kuo's new-joe-kuo-6.21201, read from
//! `data/joe_kuo_6_21201.bin` (see `data/README.md`). Dimension 0 is the van der Corput
//! sequence (`v_k = 2^(31-k)`); dimension `d > 0` uses the `d`-th primitive polynomial of the
//! file. Point `i` of a dimension is the XOR of the direction vectors selected by the bits of
//! the Gray code `i ^ (i >> 1)`; the first point is 0.

use std::sync::OnceLock;

use crate::RandError;

/// The most dimensions cuRAND's Sobol generators support.
pub const SOBOL_MAX_DIMENSIONS: u32 = 20_000;

static PACKED: &[u8] = include_bytes!("../../data/joe_kuo_6_21201.bin");

/// Primitive polynomial and initial direction numbers of one dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectionNumbers {
    /// Degree `s` of the polynomial.
    pub degree: u32,
    /// Interior coefficients `a_1 .. a_{s-1}`, `a_1` most significant.
    pub coefficients: u32,
    /// `m_1 .. m_s` (only the first `degree` are used).
    pub m: [u32; 18],
}

struct BitReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl BitReader<'_> {
    fn read(&mut self, width: u32) -> Option<u32> {
        let mut v = 0u32;
        for i in 0..width {
            let byte = *self.bytes.get(self.pos / 8)?;
            v |= (((byte >> (self.pos % 8)) & 1) as u32) << i;
            self.pos += 1;
        }
        Some(v)
    }
}

fn parse(bytes: &[u8]) -> Option<Vec<DirectionNumbers>> {
    if bytes.get(0..4)? != b"JKDN" {
        return None;
    }
    let word =
        |at: usize| -> Option<u32> { Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?)) };
    if word(4)? != 1 {
        return None;
    }
    let count = word(8)? as usize;
    let mut r = BitReader { bytes: &bytes[12..], pos: 0 };
    let mut out = Vec::with_capacity(count);
    out.push(DirectionNumbers { degree: 0, coefficients: 0, m: [1; 18] });
    for _ in 1..count {
        let degree = r.read(5)?;
        if degree == 0 || degree > 18 {
            return None;
        }
        let coefficients = r.read(degree - 1)?;
        let mut m = [0u32; 18];
        for k in 1..=degree {
            m[k as usize - 1] = r.read(k)?;
        }
        out.push(DirectionNumbers { degree, coefficients, m });
    }
    Some(out)
}

/// All direction numbers of the data file, parsed on first use.
pub fn direction_numbers() -> &'static [DirectionNumbers] {
    static TABLE: OnceLock<Vec<DirectionNumbers>> = OnceLock::new();
    // The file is part of this crate and checked by the tests; an unreadable file yields an
    // empty table, which every dimension lookup reports as unsupported.
    TABLE.get_or_init(|| parse(PACKED).unwrap_or_default())
}

fn check_dimension(dimension: u32) -> Result<&'static DirectionNumbers, RandError> {
    let table = direction_numbers();
    if dimension >= SOBOL_MAX_DIMENSIONS {
        return Err(RandError::UnsupportedDimensions {
            dimensions: dimension.saturating_add(1),
            max: SOBOL_MAX_DIMENSIONS,
        });
    }
    table
        .get(dimension as usize)
        .ok_or(RandError::UnsupportedDimensions { dimensions: dimension + 1, max: table.len() as u32 })
}

/// The `B` direction vectors (`B` = 32 or 64) of one dimension, `v_k = m_k << (B - 1 - k)`.
fn vectors<const B: usize>(dn: &DirectionNumbers, dimension: u32) -> [u64; B] {
    let mut m = [0u64; B];
    if dimension == 0 {
        m = [1; B];
    } else {
        let s = dn.degree as usize;
        for (mk, &init) in m.iter_mut().zip(dn.m.iter()).take(s) {
            *mk = init as u64;
        }
        for k in s..B {
            let mut new = m[k - s] ^ (m[k - s] << s);
            for j in 1..s {
                if (dn.coefficients >> (s - 1 - j)) & 1 == 1 {
                    new ^= m[k - j] << j;
                }
            }
            m[k] = new;
        }
    }
    let mut v = [0u64; B];
    for (k, (vk, mk)) in v.iter_mut().zip(m.iter()).enumerate() {
        *vk = mk << (B - 1 - k);
    }
    v
}

/// `curandGetDirectionVectors32(CURAND_DIRECTION_VECTORS_32_JOEKUO6)[dimension]`.
pub fn direction_vectors32(dimension: u32) -> Result<[u32; 32], RandError> {
    let dn = check_dimension(dimension)?;
    Ok(vectors::<32>(dn, dimension).map(|x| x as u32))
}

/// `curandGetDirectionVectors64(CURAND_DIRECTION_VECTORS_64_JOEKUO6)[dimension]`.
pub fn direction_vectors64(dimension: u32) -> Result<[u64; 64], RandError> {
    let dn = check_dimension(dimension)?;
    Ok(vectors::<64>(dn, dimension))
}

/// `curandStateSobol32_t`: one dimension of a Sobol32 sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sobol32 {
    /// Index of the next point.
    pub i: u32,
    /// The next point.
    pub x: u32,
    /// Scramble constant (0 for the unscrambled sequence).
    pub c: u32,
    /// Direction vectors of this dimension.
    pub direction_vectors: [u32; 32],
}

impl Sobol32 {
    /// `curand_init(direction_vectors, offset, &state)`.
    pub fn from_vectors(direction_vectors: [u32; 32], offset: u32) -> Self {
        let mut s = Self { i: 0, x: 0, c: 0, direction_vectors };
        s.skip(offset);
        s
    }

    /// Dimension `dimension` (0-based) of cuRAND's Joe-Kuo direction vectors, at `offset`.
    pub fn new(dimension: u32, offset: u32) -> Result<Self, RandError> {
        Ok(Self::from_vectors(direction_vectors32(dimension)?, offset))
    }

    /// `skipahead(n, &state)`: recompute the point from the Gray code of the new index.
    pub fn skip(&mut self, n: u32) {
        self.i = self.i.wrapping_add(n);
        let gray = self.i ^ (self.i >> 1);
        let mut x = self.c;
        for k in 0..32 {
            if gray & (1 << k) != 0 {
                x ^= self.direction_vectors[k];
            }
        }
        self.x = x;
    }

    /// `curand(&state)`: the current point; moving to the next flips the direction vector of
    /// the lowest zero bit of `i`.
    pub fn next_u32(&mut self) -> u32 {
        let res = self.x;
        let k = (!self.i).trailing_zeros().min(31);
        self.x ^= self.direction_vectors[k as usize];
        self.i = self.i.wrapping_add(1);
        res
    }
}

/// `curandStateSobol64_t`: one dimension of a Sobol64 sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sobol64 {
    /// Index of the next point.
    pub i: u64,
    /// The next point.
    pub x: u64,
    /// Scramble constant (0 for the unscrambled sequence).
    pub c: u64,
    /// Direction vectors of this dimension.
    pub direction_vectors: [u64; 64],
}

impl Sobol64 {
    /// `curand_init(direction_vectors, offset, &state)`.
    pub fn from_vectors(direction_vectors: [u64; 64], offset: u64) -> Self {
        let mut s = Self { i: 0, x: 0, c: 0, direction_vectors };
        s.skip(offset);
        s
    }

    /// Dimension `dimension` (0-based) of cuRAND's Joe-Kuo direction vectors, at `offset`.
    pub fn new(dimension: u32, offset: u64) -> Result<Self, RandError> {
        Ok(Self::from_vectors(direction_vectors64(dimension)?, offset))
    }

    /// `skipahead(n, &state)`.
    pub fn skip(&mut self, n: u64) {
        self.i = self.i.wrapping_add(n);
        let gray = self.i ^ (self.i >> 1);
        let mut x = self.c;
        for k in 0..64 {
            if gray & (1 << k) != 0 {
                x ^= self.direction_vectors[k];
            }
        }
        self.x = x;
    }

    /// `curand(&state)`.
    pub fn next_u64(&mut self) -> u64 {
        let res = self.x;
        let k = (!self.i).trailing_zeros().min(63);
        self.x ^= self.direction_vectors[k as usize];
        self.i = self.i.wrapping_add(1);
        res
    }
}
