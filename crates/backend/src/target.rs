//! What code a device runs: its instruction set, architecture and the features a code generator
//! may use. Devices report a [`Target`]; the kernel compiler picks its code generator by
//! [`Target::isa`] and checks each instruction's required [`Feature`] against
//! [`Target::features`], so a new backend adds a target (and a code generator), not a `match` arm
//! in the compiler.

use std::fmt;

/// The instruction set code is generated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[non_exhaustive]
pub enum Isa {
    /// NVIDIA PTX, compiled to machine code by the driver's JIT.
    Ptx,
    /// ferrocm's CPU executor, which runs the kernel IR itself.
    CpuExec,
}

impl Isa {
    /// The lower-case name used in dumps and messages.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Ptx => "ptx",
            Isa::CpuExec => "cpu-exec",
        }
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

macro_rules! features {
    ($( $(#[$m:meta])* $name:ident = $bit:literal, $text:literal, sm $sm:literal $(, $a:ident)?; )*) => {
        /// A hardware capability that some instructions need. Each variant documents the
        /// smallest NVIDIA architecture that has it; the CPU executor emulates all of them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[repr(u8)]
        pub enum Feature {
            $( $(#[$m])* $name = $bit, )*
        }

        impl Feature {
            /// Every feature, in bit order.
            pub const ALL: &'static [Feature] = &[$(Feature::$name),*];

            /// The feature's name as messages print it.
            pub fn name(self) -> &'static str {
                match self { $( Feature::$name => $text, )* }
            }

            /// The NVIDIA architecture that first has the feature (`"sm_90a"` for the
            /// architecture-specific Hopper instructions).
            pub fn min_nvidia_arch(self) -> &'static str {
                match self { $( Feature::$name => concat!("sm_", $sm $(, features!(@suffix $a))?), )* }
            }

            /// Whether an NVIDIA device of compute capability `sm` (major * 10 + minor), with
            /// or without the architecture-specific (`a`) instruction set, has the feature.
            pub fn on_nvidia(self, sm: u32, arch_specific: bool) -> bool {
                match self {
                    $( Feature::$name => sm >= $sm $(&& features!(@needs_a $a, sm, arch_specific))?, )*
                }
            }
        }
    };
    (@suffix a) => { "a" };
    (@needs_a a, $sm:expr, $arch_specific:expr) => { $arch_specific && $sm == 90 };
}

features! {
    /// `mma.sync` tensor-core instructions for f16/bf16 (m16n8k16).
    MmaSync = 0, "mma.sync", sm 80;
    /// `ldmatrix` from shared memory.
    LdMatrix = 1, "ldmatrix", sm 80;
    /// `cp.async` global-to-shared copies with commit/wait groups.
    CpAsync = 2, "cp.async", sm 80;
    /// `mbarrier` objects in shared memory (init, arrive, test/try_wait).
    Mbarrier = 3, "mbarrier", sm 80;
    /// 8-bit floating point (`e4m3`, `e5m2`) conversions and tensor-core inputs.
    Fp8 = 4, "fp8", sm 89;
    /// Thread-block clusters: cluster launch, cluster special registers, `barrier.cluster`,
    /// `mapa` and distributed shared memory.
    Clusters = 5, "thread-block clusters", sm 90;
    /// The tensor memory accelerator: `cp.async.bulk.tensor` with tensor maps, `mbarrier`
    /// transaction counts (`expect_tx`, `complete_tx`) and bulk groups.
    Tma = 6, "TMA (cp.async.bulk.tensor)", sm 90;
    /// `stmatrix` to shared memory.
    StMatrix = 7, "stmatrix", sm 90;
    /// `elect.sync`.
    ElectSync = 8, "elect.sync", sm 90;
    /// Warpgroup matrix multiply-accumulate (`wgmma.mma_async` and its fence/commit/wait).
    Wgmma = 9, "wgmma", sm 90, a;
    /// `setmaxnreg`: moving registers between warpgroups.
    SetMaxNReg = 10, "setmaxnreg", sm 90, a;
    /// TMA and bulk copies multicast to several CTAs of a cluster (`.multicast::cluster`).
    TmaMulticast = 11, "TMA multicast", sm 90, a;
    /// The Hopper FP64 tensor-core shapes `mma.sync.m16n8k{4,8,16}.f64` (m16n8k16 is SASS
    /// `DMMA.16x8x16`: 2048 multiply-adds per warp instruction, 8x those of `m8n8k4`).
    MmaF64M16 = 12, "mma.sync f64 m16n8k16", sm 90;
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`Feature`]s.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FeatureSet(u64);

impl FeatureSet {
    /// No features.
    pub const EMPTY: FeatureSet = FeatureSet(0);

    /// Every feature.
    pub fn all() -> FeatureSet {
        Feature::ALL.iter().copied().collect()
    }

    pub fn contains(self, f: Feature) -> bool {
        self.0 & (1 << f as u8) != 0
    }

    pub fn insert(&mut self, f: Feature) {
        self.0 |= 1 << f as u8;
    }

    /// The features in the set, in bit order.
    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.iter().copied().filter(move |&f| self.contains(f))
    }
}

impl FromIterator<Feature> for FeatureSet {
    fn from_iter<I: IntoIterator<Item = Feature>>(iter: I) -> Self {
        let mut s = FeatureSet::EMPTY;
        for f in iter {
            s.insert(f);
        }
        s
    }
}

impl fmt::Debug for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(Feature::name)).finish()
    }
}

impl serde::Serialize for FeatureSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(Feature::name))
    }
}

/// What code a device runs and which features that code may use.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Target {
    /// The instruction set.
    pub isa: Isa,
    /// The architecture name code is generated for: `"sm_90a"` on a compute capability 9.0
    /// GPU (so `wgmma` and `setmaxnreg` are usable), `"sm_80"`, ...; the host architecture
    /// (`"x86_64"`) for the CPU executor.
    pub arch: String,
    /// NVIDIA compute capability (major, minor); (0, 0) elsewhere.
    pub compute_capability: (u32, u32),
    /// The features code for this target may use.
    pub features: FeatureSet,
    /// The newest PTX ISA version the driver accepts, (major, minor); (0, 0) for other ISAs.
    pub max_ptx_version: (u32, u32),
    /// The largest thread-block cluster (blocks) a launch may use without opting in; 1 where
    /// there are no clusters.
    pub max_cluster_blocks: u32,
}

/// PTX ISA versions by the CUDA version that introduced them (from the PTX ISA release notes):
/// a driver of CUDA version `v` accepts PTX up to the entry with the largest version `<= v`.
const PTX_BY_CUDA: &[(u32, (u32, u32))] = &[
    (11000, (7, 0)),
    (11010, (7, 1)),
    (11020, (7, 2)),
    (11030, (7, 3)),
    (11040, (7, 4)),
    (11050, (7, 5)),
    (11060, (7, 6)),
    (11070, (7, 7)),
    (11080, (7, 8)),
    (12000, (8, 0)),
    (12010, (8, 1)),
    (12020, (8, 2)),
    (12030, (8, 3)),
    (12040, (8, 4)),
    (12050, (8, 5)),
    (12070, (8, 6)),
    (12080, (8, 7)),
    (12090, (8, 8)),
    (13000, (9, 0)),
];

/// The newest PTX ISA version a CUDA driver of `driver_version` (e.g. 13000) accepts.
pub fn max_ptx_version(driver_version: u32) -> (u32, u32) {
    PTX_BY_CUDA.iter().rev().find(|(cuda, _)| *cuda <= driver_version).map(|&(_, v)| v).unwrap_or((7, 0))
}

impl Target {
    /// The target of an NVIDIA GPU of compute capability `(major, minor)` driven by a driver of
    /// CUDA version `driver_version`. Compute capability 9.0 gets the architecture-specific
    /// `sm_90a`, the only architecture whose `a` instructions (`wgmma`, `setmaxnreg`) ferrocm
    /// uses.
    pub fn nvidia(compute_capability: (u32, u32), driver_version: u32) -> Target {
        let (major, minor) = compute_capability;
        let sm = major * 10 + minor;
        let arch_specific = sm == 90;
        let arch = format!("sm_{sm}{}", if arch_specific { "a" } else { "" });
        let features = Feature::ALL.iter().copied().filter(|f| f.on_nvidia(sm, arch_specific)).collect();
        Target {
            isa: Isa::Ptx,
            arch,
            compute_capability,
            features,
            max_ptx_version: max_ptx_version(driver_version),
            max_cluster_blocks: if sm >= 90 { 8 } else { 1 },
        }
    }

    /// The CPU executor: every feature is emulated, clusters up to the portable size of 8.
    pub fn cpu_exec() -> Target {
        Target {
            isa: Isa::CpuExec,
            arch: std::env::consts::ARCH.to_string(),
            compute_capability: (0, 0),
            features: FeatureSet::all(),
            max_ptx_version: (0, 0),
            max_cluster_blocks: 8,
        }
    }

    /// Whether code for this target may use `feature`.
    pub fn has(&self, feature: Feature) -> bool {
        self.features.contains(feature)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.isa, self.arch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hopper_gets_sm_90a_and_its_features() {
        let t = Target::nvidia((9, 0), 13000);
        assert_eq!(t.arch, "sm_90a");
        assert_eq!(t.max_ptx_version, (9, 0));
        for f in Feature::ALL {
            assert!(t.has(*f), "{f} missing on sm_90a");
        }
        assert_eq!(t.max_cluster_blocks, 8);
    }

    #[test]
    fn older_and_newer_gpus_lack_what_they_lack() {
        let ampere = Target::nvidia((8, 0), 12040);
        assert_eq!(ampere.arch, "sm_80");
        assert!(ampere.has(Feature::MmaSync) && ampere.has(Feature::CpAsync));
        assert!(!ampere.has(Feature::Fp8) && !ampere.has(Feature::Tma) && !ampere.has(Feature::Wgmma));
        assert!(!ampere.has(Feature::MmaF64M16));
        assert_eq!(ampere.max_ptx_version, (8, 4));
        let ada = Target::nvidia((8, 9), 12080);
        assert!(ada.has(Feature::Fp8) && !ada.has(Feature::Clusters));
        // sm_100 has TMA and clusters but not the sm_90a-only wgmma.
        let blackwell = Target::nvidia((10, 0), 13000);
        assert_eq!(blackwell.arch, "sm_100");
        assert!(blackwell.has(Feature::Tma) && !blackwell.has(Feature::Wgmma));
        assert!(blackwell.has(Feature::MmaF64M16));
    }

    #[test]
    fn ptx_versions_follow_the_driver() {
        assert_eq!(max_ptx_version(12000), (8, 0));
        assert_eq!(max_ptx_version(12060), (8, 5));
        assert_eq!(max_ptx_version(13020), (9, 0));
        assert_eq!(max_ptx_version(10020), (7, 0));
    }

    #[test]
    fn the_cpu_executor_has_everything() {
        let t = Target::cpu_exec();
        assert_eq!(t.isa, Isa::CpuExec);
        assert_eq!(t.features, FeatureSet::all());
        assert_eq!(format!("{:?}", FeatureSet::EMPTY), "{}");
    }
}
