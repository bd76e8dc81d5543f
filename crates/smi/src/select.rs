//! `-d`/`--device`: which devices a view shows. A device is named by its index in ferrocm's
//! numbering (the one `ferrocm info` prints: GPUs first, then CPU devices), its PCI bus id (any
//! of `dddddddd:bb:dd.f`, `dddd:bb:dd.f`, `bb:dd.f`, hex, any case), its UUID (with or without
//! the `GPU-` prefix, any case) or `all`. Values may be repeated or comma-separated; the order
//! given is the order shown.

use crate::SmiError;

/// What identifies one device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceId {
    pub index: usize,
    pub name: String,
    pub uuid: String,
    /// PCI bus id where the device has one.
    pub pci_bus_id: Option<String>,
}

/// A PCI address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BusId {
    pub domain: u32,
    pub bus: u8,
    pub device: u8,
    pub function: u8,
}

/// Parses `[domain:]bus:device.function` (hex). The domain defaults to 0.
pub fn parse_bus_id(s: &str) -> Option<BusId> {
    let s = s.trim();
    let (rest, function) = s.rsplit_once('.')?;
    let parts: Vec<&str> = rest.split(':').collect();
    let (domain, bus, device) = match parts.as_slice() {
        [bus, device] => ("0", *bus, *device),
        [domain, bus, device] => (*domain, *bus, *device),
        _ => return None,
    };
    let hex = |t: &str, max_digits: usize| {
        (!t.is_empty() && t.len() <= max_digits && t.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(t, 16).ok())
            .flatten()
    };
    let device = hex(device, 2)?;
    let function = hex(function, 1)?;
    if device > 0x1f || function > 7 {
        return None;
    }
    Some(BusId {
        domain: hex(domain, 8)?,
        bus: hex(bus, 2)? as u8,
        device: device as u8,
        function: function as u8,
    })
}

fn normal_uuid(s: &str) -> String {
    let s = s.trim().to_ascii_lowercase();
    s.strip_prefix("gpu-").map(str::to_string).unwrap_or(s)
}

fn describe(devices: &[DeviceId]) -> String {
    if devices.is_empty() {
        return "none".into();
    }
    devices
        .iter()
        .map(|d| match &d.pci_bus_id {
            Some(bus) => format!("{}: {} ({}, {bus})", d.index, d.name, d.uuid),
            None => format!("{}: {} ({})", d.index, d.name, d.uuid),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The device one spec names, as indices into `devices`.
fn one(spec: &str, devices: &[DeviceId]) -> Result<Vec<usize>, SmiError> {
    let unknown = |reason: String| SmiError::UnknownDevice {
        spec: spec.to_string(),
        reason,
        available: format!("{} visible: {}", devices.len(), describe(devices)),
    };
    if spec.eq_ignore_ascii_case("all") {
        return Ok((0..devices.len()).collect());
    }
    if !spec.is_empty() && spec.bytes().all(|b| b.is_ascii_digit()) {
        return match spec.parse::<usize>().ok().and_then(|i| devices.iter().position(|d| d.index == i)) {
            Some(p) => Ok(vec![p]),
            None => {
                Err(unknown(format!("index {spec} is out of range (valid indices 0..{})", devices.len())))
            }
        };
    }
    if let Some(bus) = parse_bus_id(spec) {
        return match devices.iter().position(|d| d.pci_bus_id.as_deref().and_then(parse_bus_id) == Some(bus))
        {
            Some(p) => Ok(vec![p]),
            None => Err(unknown("no device is at that PCI bus id".into())),
        };
    }
    let looks_like_uuid = spec.len() >= 32 && spec.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
        || spec.to_ascii_lowercase().starts_with("gpu-");
    if looks_like_uuid {
        let want = normal_uuid(spec);
        return match devices.iter().position(|d| normal_uuid(&d.uuid) == want) {
            Some(p) => Ok(vec![p]),
            None => Err(unknown("no device has that UUID".into())),
        };
    }
    Err(unknown(
        "expected a device index, a PCI bus id (dddd:bb:dd.f), a UUID (GPU-xxxxxxxx-...) or `all`".into(),
    ))
}

/// Resolves `-d` values to positions in `devices`, in the order given; no values means every
/// device.
pub fn resolve(specs: &[String], devices: &[DeviceId]) -> Result<Vec<usize>, SmiError> {
    if specs.is_empty() {
        return Ok((0..devices.len()).collect());
    }
    let mut out: Vec<usize> = Vec::new();
    for list in specs {
        for spec in list.split(',').map(str::trim) {
            if spec.is_empty() {
                return Err(SmiError::EmptyDevice { list: list.clone() });
            }
            for p in one(spec, devices)? {
                if out.contains(&p) {
                    return Err(SmiError::DuplicateDevice {
                        spec: spec.to_string(),
                        index: devices[p].index,
                    });
                }
                out.push(p);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_ids_in_every_spelling() {
        let want = Some(BusId { domain: 0, bus: 0x18, device: 0, function: 0 });
        for s in ["00000000:18:00.0", "0000:18:00.0", "18:00.0", "0000:18:00.0 ", "00000000:18:0.0"] {
            assert_eq!(parse_bus_id(s), want, "{s}");
        }
        assert_eq!(
            parse_bus_id("0001:AB:1f.7"),
            Some(BusId { domain: 1, bus: 0xab, device: 0x1f, function: 7 })
        );
        for bad in [
            "",
            "18:00",
            "18.0",
            "zz:00.0",
            "18:20.0",
            "18:00.8",
            "1:2:3:4.0",
            "100:00.0",
            "123456789:00:00.0",
        ] {
            assert_eq!(parse_bus_id(bad), None, "{bad}");
        }
    }
}
