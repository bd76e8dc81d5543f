//! What `ferrocm info` reports (rocminfo's role), as data: the CLI prints it as text or JSON, and
//! the Python package returns it from `ferrocm.info()`.

use serde::Serialize;

use crate::{report, Device, Result};

/// Whether the CUDA driver was found, and why not.
#[derive(Clone, Debug, Serialize)]
pub struct CudaStatus {
    pub available: bool,
    /// "13.0" for CUDA 13.0.
    pub driver_version: Option<String>,
    pub library: Option<String>,
    pub reason: Option<String>,
}

/// One device: its position, backend and properties.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceReport {
    pub index: usize,
    pub backend: String,
    pub ordinal: u32,
    pub memory_free: Option<u64>,
    #[serde(flatten)]
    pub properties: crate::DeviceProperties,
}

/// The runtime, the drivers found and every device.
#[derive(Clone, Debug, Serialize)]
pub struct InfoReport {
    pub runtime_version: &'static str,
    pub cuda: CudaStatus,
    pub devices: Vec<DeviceReport>,
}

fn cuda_version(v: u32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

fn device_report(d: &Device) -> DeviceReport {
    DeviceReport {
        index: d.index(),
        backend: d.kind().to_string(),
        ordinal: d.ordinal(),
        memory_free: d.memory_info().ok().map(|(f, _)| f),
        properties: d.properties().clone(),
    }
}

/// Everything `ferrocm info` shows.
pub fn info() -> Result<InfoReport> {
    let r = report()?;
    let cuda = match &r.cuda {
        Ok((v, lib)) => CudaStatus {
            available: true,
            driver_version: Some(cuda_version(*v)),
            library: Some(lib.clone()),
            reason: None,
        },
        Err(reason) => {
            CudaStatus { available: false, driver_version: None, library: None, reason: Some(reason.clone()) }
        }
    };
    Ok(InfoReport {
        runtime_version: crate::VERSION,
        cuda,
        devices: r.devices.iter().map(device_report).collect(),
    })
}
