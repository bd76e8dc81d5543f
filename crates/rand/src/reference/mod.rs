//! cuRAND device-API generators and distributions, one module per generator.
//!
//! Every pseudo-random generator implements [`CurandDevice`], the Rust face of cuRAND's
//! overloaded device functions (`curand`, `curand_uniform`, `curand_normal`, ...). The provided
//! methods carry cuRAND's exact formulas, including its Box-Muller caching: `normal` returns the
//! first value of a fresh pair and keeps the second for the next call, while `normal2` never
//! touches the cache.

pub mod distributions;
pub mod host;
pub mod host_poisson;
pub mod lfsr113;
pub mod mrg32k3a;
pub mod mtgp32;
pub mod philox;
pub mod sobol;
pub mod threefry;
pub mod xorwow;

pub use distributions::{DiscreteDistribution, LogNormal, Normal, Poisson};
pub use host_poisson::{PoissonTable, QuasiPoisson};
pub use lfsr113::Lfsr113;
pub use mrg32k3a::Mrg32k3a;
pub use philox::Philox4x32_10;
pub use sobol::{Sobol32, Sobol64, SOBOL_MAX_DIMENSIONS};
pub use threefry::ThreefryKind;
pub use xorwow::Xorwow;

use distributions as d;

/// Which kind of value a generator's Box-Muller cache holds (cuRAND's `boxmuller_flag`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum CacheFlag {
    /// Nothing cached.
    #[default]
    Empty = 0,
    /// The second output of a normal pair.
    Normal = 1,
    /// The second output of a log-normal pair.
    LogNormal = 2,
}

/// cuRAND's per-state Box-Muller cache: one `f32` and one `f64` slot with their flags.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BoxMullerCache {
    /// What `extra` holds.
    pub flag: CacheFlag,
    /// What `extra_double` holds.
    pub flag_double: CacheFlag,
    /// Cached single-precision value.
    pub extra: f32,
    /// Cached double-precision value.
    pub extra_double: f64,
}

/// The device API of one cuRAND pseudo-random state (`curandStateXORWOW_t`, ...).
///
/// Required methods are the generator-specific parts; the provided ones follow cuRAND's
/// `curand_normal.h`, `curand_lognormal.h` and `curand_poisson.h`.
pub trait CurandDevice {
    /// `curand(state)`: the next 32 random bits.
    fn next_u32(&mut self) -> u32;

    /// The Box-Muller cache of this state.
    fn cache(&mut self) -> &mut BoxMullerCache;

    /// `curand_uniform(state)`: a float in (0, 1].
    fn uniform(&mut self) -> f32 {
        d::uniform_f32(self.next_u32())
    }

    /// `curand_uniform_double(state)`: a double in (0, 1] built from two 32-bit draws.
    fn uniform_double(&mut self) -> f64 {
        let x = self.next_u32();
        let y = self.next_u32();
        d::uniform_f64_hq(x, y)
    }

    /// `curand_box_muller(state)`: one fresh pair of standard normal floats.
    fn box_muller(&mut self) -> [f32; 2] {
        let x = self.next_u32();
        let y = self.next_u32();
        d::box_muller(x, y)
    }

    /// `curand_box_muller_double(state)`: one fresh pair of standard normal doubles.
    fn box_muller_double(&mut self) -> [f64; 2] {
        let x0 = self.next_u32();
        let x1 = self.next_u32();
        let y0 = self.next_u32();
        let y1 = self.next_u32();
        d::box_muller_double(x0, x1, y0, y1)
    }

    /// `curand_normal(state)`: a standard normal float, using the cached half of a pair when
    /// the previous normal call left one.
    fn normal(&mut self) -> f32 {
        if self.cache().flag != CacheFlag::Normal {
            let [a, b] = self.box_muller();
            let c = self.cache();
            c.extra = b;
            c.flag = CacheFlag::Normal;
            return a;
        }
        let c = self.cache();
        c.flag = CacheFlag::Empty;
        c.extra
    }

    /// `curand_normal2(state)`: a fresh pair; the cache is left alone.
    fn normal2(&mut self) -> [f32; 2] {
        self.box_muller()
    }

    /// `curand_normal_double(state)`.
    fn normal_double(&mut self) -> f64 {
        if self.cache().flag_double != CacheFlag::Normal {
            let [a, b] = self.box_muller_double();
            let c = self.cache();
            c.extra_double = b;
            c.flag_double = CacheFlag::Normal;
            return a;
        }
        let c = self.cache();
        c.flag_double = CacheFlag::Empty;
        c.extra_double
    }

    /// `curand_normal2_double(state)`.
    fn normal2_double(&mut self) -> [f64; 2] {
        self.box_muller_double()
    }

    /// `curand_log_normal(state, mean, stddev)`: `exp(mean + stddev * n)`, sharing the float
    /// cache slot with [`normal`](Self::normal) under a different flag.
    fn log_normal(&mut self, mean: f32, stddev: f32) -> f32 {
        if self.cache().flag != CacheFlag::LogNormal {
            let [a, b] = self.box_muller();
            let c = self.cache();
            c.extra = (mean + stddev * b).exp();
            c.flag = CacheFlag::LogNormal;
            return (mean + stddev * a).exp();
        }
        let c = self.cache();
        c.flag = CacheFlag::Empty;
        c.extra
    }

    /// `curand_log_normal2(state, mean, stddev)`.
    fn log_normal2(&mut self, mean: f32, stddev: f32) -> [f32; 2] {
        let [a, b] = self.box_muller();
        [(mean + stddev * a).exp(), (mean + stddev * b).exp()]
    }

    /// `curand_log_normal_double(state, mean, stddev)`.
    fn log_normal_double(&mut self, mean: f64, stddev: f64) -> f64 {
        if self.cache().flag_double != CacheFlag::LogNormal {
            let [a, b] = self.box_muller_double();
            let c = self.cache();
            c.extra_double = (mean + stddev * b).exp();
            c.flag_double = CacheFlag::LogNormal;
            return (mean + stddev * a).exp();
        }
        let c = self.cache();
        c.flag_double = CacheFlag::Empty;
        c.extra_double
    }
}
