//! `libferrocm_hip`: the HIP runtime API as a C library over ferrocm's runtime, so that HIP
//! programs (and CUDA programs through `ferrocm hipify`) built by `ferrocm hipcc` run unmodified
//! on NVIDIA GPUs, through the driver alone, and on the CPU device.
//!
//! Design: a thin C ABI over the safe runtime. Every export runs its body under
//! [`error::guard`]: arguments are checked (null pointers, unknown handles, sizes, copy
//! directions, ranges against the pointer table), a failure becomes HIP's error code and the
//! thread's last error, and a panic can never unwind into C. Handles are table keys, never
//! pointers this library dereferences. The devices are the GPUs, or the CPU device where there
//! is none (`FERROCM_BACKEND=cpu` forces it), chosen by the same environment as the rest of
//! ferrocm. Device code arrives as PTX: from the fat binaries `ferrocm hipcc` embeds (through the
//! registration hooks of both the CUDA and HIP families, called before `main`) or from
//! `hipModuleLoadData`; a GPU loads it through the driver's JIT, the CPU device through
//! `ferrocm-ptx-frontend`.
//!
//! Headers for C and C++ are in `include/hip/` (see `ferrocm hipcc`). `FERROCM_HIP_LOG=1` prints
//! every failing call with the full reason; `ferrocmHipGetLastErrorMessage()` returns it.
//!
//! Limits: no textures, surfaces, graphs or IPC; `__managed__` variables are refused (use
//! `hipMallocManaged`); raw copies and launches are not tracked per allocation, so `hipFree`
//! waits for the device, as HIP's does.

mod cpu;
pub mod device;
pub mod error;
pub mod memory;
pub mod module;
mod state;
pub mod stream;

/// The HIP version this library implements (`HIP_VERSION` in the headers: 6.2).
pub const HIP_VERSION: i32 = 6 * 10_000_000 + 2 * 100_000;

/// The headers, for tools that install them (`ferrocm hipcc`).
pub mod headers {
    /// Every header as (path under `include/`, contents).
    pub const FILES: &[(&str, &str)] = &[
        ("hip/hip_runtime.h", include_str!("../include/hip/hip_runtime.h")),
        ("hip/hip_runtime_api.h", include_str!("../include/hip/hip_runtime_api.h")),
        ("hip/hip_vector_types.h", include_str!("../include/hip/hip_vector_types.h")),
        ("hip/hip_fp16.h", include_str!("../include/hip/hip_fp16.h")),
        ("hip/hip_bf16.h", include_str!("../include/hip/hip_bf16.h")),
        ("hip/hip_complex.h", include_str!("../include/hip/hip_complex.h")),
        ("hip/hip_cooperative_groups.h", include_str!("../include/hip/hip_cooperative_groups.h")),
        ("hip/ferrocm/qualifiers.h", include_str!("../include/hip/ferrocm/qualifiers.h")),
        ("hip/ferrocm/device.h", include_str!("../include/hip/ferrocm/device.h")),
        ("hip/ferrocm/math.h", include_str!("../include/hip/ferrocm/math.h")),
    ];
}
