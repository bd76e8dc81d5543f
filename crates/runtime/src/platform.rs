//! Which devices exist: backends loaded once per process, filtered by the environment.
//!
//! Variables read (once, at first use):
//! - `FERROCM_BACKEND=cpu|cuda`: `cpu` hides GPUs; `cuda` makes the default device a GPU or an
//!   error (the CPU stays available explicitly).
//! - `FERROCM_VISIBLE_DEVICES`, else `HIP_VISIBLE_DEVICES`: comma-separated GPU ordinals, in
//!   the order they should appear. `CUDA_VISIBLE_DEVICES` is applied by the NVIDIA driver
//!   itself before ferrocm sees the devices, so it is honoured without being read here.
//! - `FERROCM_CPU_DEVICES=N`: the number of CPU devices (1 to 64, default 1).

use std::sync::{Arc, OnceLock};

use ferrocm_backend::{Backend, BackendKind};
use ferrocm_backend_cpu::CpuBackend;
use ferrocm_backend_cuda::CudaBackend;

use crate::device::{Device, DeviceInner};
use crate::{Error, Result};

pub(crate) struct Platform {
    pub(crate) devices: Vec<Device>,
    /// Why the CUDA backend is absent, if it is.
    pub(crate) cuda_status: std::result::Result<Arc<dyn Backend>, String>,
    pub(crate) prefer: Option<BackendKind>,
}

static PLATFORM: OnceLock<std::result::Result<Platform, Error>> = OnceLock::new();

pub(crate) fn platform() -> Result<&'static Platform> {
    PLATFORM.get_or_init(Platform::from_env).as_ref().map_err(Clone::clone)
}

fn env(var: &'static str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.trim().is_empty())
}

fn parse_backend(value: &str) -> Result<BackendKind> {
    match value.trim().to_ascii_lowercase().as_str() {
        "cpu" => Ok(BackendKind::Cpu),
        "cuda" | "nvidia" => Ok(BackendKind::Cuda),
        _ => Err(Error::InvalidEnvironment {
            var: "FERROCM_BACKEND",
            value: value.into(),
            allowed: "expected `cpu` or `cuda`".into(),
        }),
    }
}

/// Parses a visible-devices list against `count` GPUs; returns ordinals in the listed order.
pub(crate) fn parse_visible(var: &'static str, value: &str, count: u32) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for item in value.split(',').map(str::trim) {
        let bad = |why: String| Error::InvalidEnvironment { var, value: value.into(), allowed: why };
        let ordinal: u32 = item.parse().map_err(|_| {
            bad(format!("`{item}` is not a device ordinal; expected a comma-separated list such as 0,1"))
        })?;
        if ordinal >= count {
            return Err(bad(format!(
                "ordinal {ordinal} is out of range: {count} GPU(s) present (0..{count})"
            )));
        }
        if out.contains(&ordinal) {
            return Err(bad(format!("ordinal {ordinal} is listed twice")));
        }
        out.push(ordinal);
    }
    Ok(out)
}

pub(crate) fn parse_cpu_devices(value: &str) -> Result<u32> {
    match value.trim().parse::<u32>() {
        Ok(n @ 1..=64) => Ok(n),
        _ => Err(Error::InvalidEnvironment {
            var: "FERROCM_CPU_DEVICES",
            value: value.into(),
            allowed: "expected a whole number of CPU devices from 1 to 64".into(),
        }),
    }
}

impl Platform {
    fn from_env() -> Result<Platform> {
        let prefer = env("FERROCM_BACKEND").map(|v| parse_backend(&v)).transpose()?;
        let cpu_count = env("FERROCM_CPU_DEVICES").map(|v| parse_cpu_devices(&v)).transpose()?.unwrap_or(1);

        let cuda_status: std::result::Result<Arc<dyn Backend>, String> = if prefer == Some(BackendKind::Cpu) {
            Err("disabled by FERROCM_BACKEND=cpu".into())
        } else {
            CudaBackend::load().map(|b| Arc::new(b) as Arc<dyn Backend>).map_err(|e| e.to_string())
        };

        let mut devices = Vec::new();
        if let Ok(cuda) = &cuda_status {
            let count = cuda.device_count();
            let visible = match env("FERROCM_VISIBLE_DEVICES")
                .map(|v| ("FERROCM_VISIBLE_DEVICES", v))
                .or_else(|| env("HIP_VISIBLE_DEVICES").map(|v| ("HIP_VISIBLE_DEVICES", v)))
            {
                Some((var, v)) => parse_visible(var, &v, count)?,
                None => (0..count).collect(),
            };
            for ordinal in visible {
                let index = devices.len();
                devices.push(Device::from_inner(DeviceInner::new(index, Arc::clone(cuda), ordinal)?));
            }
        }
        let cpu: Arc<dyn Backend> = Arc::new(CpuBackend::new(cpu_count));
        for ordinal in 0..cpu_count {
            let index = devices.len();
            devices.push(Device::from_inner(DeviceInner::new(index, Arc::clone(&cpu), ordinal)?));
        }
        crate::trace::install_from_env(&devices)?;
        Ok(Platform { devices, cuda_status, prefer })
    }
}

/// What the runtime found, for `ferrocm info`.
#[derive(Clone, Debug)]
pub struct PlatformReport {
    /// Every visible device, GPUs first.
    pub devices: Vec<Device>,
    /// CUDA driver version (e.g. 13000 for 13.0) and library path, or why CUDA is absent.
    pub cuda: std::result::Result<(u32, String), String>,
}

/// Reports the devices and backends found.
pub fn report() -> Result<PlatformReport> {
    let p = platform()?;
    let cuda = match &p.cuda_status {
        Ok(b) => {
            let info = b.info();
            Ok((info.driver_version, info.library.unwrap_or_default()))
        }
        Err(reason) => Err(reason.clone()),
    };
    Ok(PlatformReport { devices: p.devices.clone(), cuda })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_devices_are_parsed_in_order() {
        assert_eq!(parse_visible("HIP_VISIBLE_DEVICES", "2, 0", 4).unwrap(), vec![2, 0]);
        let e = parse_visible("HIP_VISIBLE_DEVICES", "0,7", 4).unwrap_err().to_string();
        assert!(
            e.contains("HIP_VISIBLE_DEVICES") && e.contains("ordinal 7 is out of range: 4 GPU(s)"),
            "{e}"
        );
        let e = parse_visible("FERROCM_VISIBLE_DEVICES", "gpu0", 4).unwrap_err().to_string();
        assert!(e.contains("`gpu0` is not a device ordinal"), "{e}");
        assert!(parse_visible("FERROCM_VISIBLE_DEVICES", "1,1", 4)
            .unwrap_err()
            .to_string()
            .contains("twice"));
    }

    #[test]
    fn cpu_device_count_and_backend_are_validated() {
        assert_eq!(parse_cpu_devices("3").unwrap(), 3);
        for bad in ["0", "65", "-1", "many"] {
            let e = parse_cpu_devices(bad).unwrap_err().to_string();
            assert!(e.contains("from 1 to 64"), "{e}");
        }
        assert_eq!(parse_backend("CUDA").unwrap(), BackendKind::Cuda);
        assert_eq!(parse_backend("cpu").unwrap(), BackendKind::Cpu);
        assert!(parse_backend("rocm").unwrap_err().to_string().contains("expected `cpu` or `cuda`"));
    }
}
