use std::fmt;

/// The kinds of backend ferrocm knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BackendKind {
    /// The embedded CPU backend (always present).
    Cpu,
    /// NVIDIA GPUs through `libcuda.so.1`.
    Cuda,
}

impl BackendKind {
    /// The lower-case name used in environment variables and output.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cpu => "cpu",
            BackendKind::Cuda => "cuda",
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A three-dimensional extent (grid or block), as `dim3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }

    /// x * y * z, without overflow.
    pub fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

impl Default for Dim3 {
    fn default() -> Self {
        Dim3::new(1, 1, 1)
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3::new(x, 1, 1)
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3::new(x, y, 1)
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3::new(x, y, z)
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

/// What a device is and what it allows (the fields of `hipDeviceProp_t` that matter).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DeviceProperties {
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Architecture name: "sm_90" on NVIDIA, the host CPU architecture ("x86_64") on the CPU.
    pub arch: String,
    /// Compute capability (major, minor); (0, 0) on the CPU.
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors / compute units (CPU: worker threads).
    pub compute_units: u32,
    /// Threads per warp (wavefront).
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_block_dim: [u32; 3],
    pub max_grid_dim: [u32; 3],
    /// Shared memory a block may use without opting in, in bytes.
    pub shared_mem_per_block: u64,
    /// Shared memory a block may use after opting in, in bytes.
    pub shared_mem_per_block_optin: u64,
    pub shared_mem_per_cu: u64,
    pub registers_per_block: u32,
    pub registers_per_cu: u32,
    pub max_threads_per_cu: u32,
    /// Core clock in kHz.
    pub clock_khz: u32,
    /// Memory clock in kHz (0 where unknown).
    pub memory_clock_khz: u32,
    /// Memory bus width in bits (0 where unknown).
    pub memory_bus_width: u32,
    pub l2_cache_bytes: u64,
    pub total_memory: u64,
    /// PCI bus id "dddd:bb:dd.f", empty on the CPU.
    pub pci_bus_id: String,
    /// Device UUID in the usual 8-4-4-4-12 form.
    pub uuid: String,
    pub managed_memory: bool,
    pub concurrent_kernels: bool,
    pub async_engines: u32,
    /// What code the device runs and which features it may use.
    pub target: crate::Target,
}
