//! `ferrocm.random`'s generators: ferrocm's RAND (cuRAND's generators) writing into any device
//! buffer region, so a `ferrocm.Array` or another library's tensor is filled in place.

use std::sync::Mutex;

use ferrocm_rand::{Generator, Ordering, RngType};
use pyo3::prelude::*;

use crate::buffer::{typed, Buffer};
use crate::device::{current, resolve, PyDevice, PyStream};
use crate::errors::{rand, value};

/// The generator names `ferrocm.random.Generator` accepts.
const NAMES: &[(&str, RngType)] = &[
    ("philox", RngType::Philox4x32_10),
    ("xorwow", RngType::Xorwow),
    ("mrg32k3a", RngType::Mrg32k3a),
    ("sobol32", RngType::Sobol32),
    ("sobol64", RngType::Sobol64),
    ("mtgp32", RngType::Mtgp32),
    ("lfsr113", RngType::Lfsr113),
    ("threefry2x32_20", RngType::Threefry2x32_20),
    ("threefry4x32_20", RngType::Threefry4x32_20),
    ("threefry2x64_20", RngType::Threefry2x64_20),
    ("threefry4x64_20", RngType::Threefry4x64_20),
];

/// A random number generator on one device (the Rust `ferrocm_rand::Generator`).
#[pyclass(name = "Generator", module = "ferrocm._native")]
pub struct PyGenerator {
    generator: Mutex<Generator>,
    device: ferrocm::Device,
    name: &'static str,
}

#[pymethods]
impl PyGenerator {
    /// A generator of kind `name` (one of `NAMES`: philox, xorwow, mrg32k3a, sobol32, sobol64,
    /// mtgp32, lfsr113, threefry2x32_20, threefry4x32_20, threefry2x64_20, threefry4x64_20) on `device`,
    /// working on `stream` (default: the device's current stream), seeded with `seed`.
    /// `ordering="legacy"` reproduces cuRAND's host API bit for bit.
    #[new]
    #[pyo3(signature = (name = "philox", seed = 0, device = None, stream = None, ordering = "default", offset = 0, dimensions = 1))]
    fn new(
        name: &str,
        seed: u64,
        device: Option<&Bound<'_, PyAny>>,
        stream: Option<&PyStream>,
        ordering: &str,
        offset: u64,
        dimensions: u32,
    ) -> PyResult<PyGenerator> {
        let (key, rng) =
            NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).copied().ok_or_else(|| {
                value(format!(
                    "unknown generator {name:?}; expected one of {}",
                    NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                ))
            })?;
        let stream = match stream {
            Some(s) => s.stream.clone(),
            None => current(&resolve(device)?)?,
        };
        let mut g = Generator::new(&stream, rng).map_err(rand)?;
        g.set_seed(seed);
        g.set_offset(offset);
        g.set_ordering(match ordering {
            "default" => Ordering::Default,
            "legacy" => Ordering::Legacy,
            o => return Err(value(format!("unknown ordering {o:?}; expected \"default\" or \"legacy\""))),
        });
        if dimensions != 1 {
            g.set_dimensions(dimensions).map_err(rand)?;
        }
        Ok(PyGenerator { generator: Mutex::new(g), device: stream.device().clone(), name: key })
    }

    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }

    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice::new(self.device.clone())
    }

    /// Fills `count` elements of `dtype` ("float32", "float64", "float16") at `offset` of `buf`
    /// with uniforms in (0, 1].
    fn fill_uniform(
        &self,
        py: Python<'_>,
        buf: &Buffer,
        offset: usize,
        count: usize,
        dtype: &str,
    ) -> PyResult<()> {
        self.check(buf)?;
        py.detach(|| match dtype {
            "float32" => typed::<f32, _>(buf, offset, count, |v| self.lock().generate_uniform(v)),
            "float64" => typed::<f64, _>(buf, offset, count, |v| self.lock().generate_uniform_double(v)),
            "float16" => typed::<half::f16, _>(buf, offset, count, |v| self.lock().generate_uniform_half(v)),
            d => Err(value(format!("uniform: dtype {d} is not float32, float64 or float16"))),
        })?
        .map_err(rand)
    }

    /// Fills with normals of `mean` and `stddev` (an even count: values come in pairs).
    #[allow(clippy::too_many_arguments)]
    fn fill_normal(
        &self,
        py: Python<'_>,
        buf: &Buffer,
        offset: usize,
        count: usize,
        dtype: &str,
        mean: f64,
        stddev: f64,
        log: bool,
    ) -> PyResult<()> {
        self.check(buf)?;
        py.detach(|| match (dtype, log) {
            ("float32", false) => typed::<f32, _>(buf, offset, count, |v| {
                self.lock().generate_normal(v, mean as f32, stddev as f32)
            }),
            ("float64", false) => {
                typed::<f64, _>(buf, offset, count, |v| self.lock().generate_normal_double(v, mean, stddev))
            }
            ("float32", true) => typed::<f32, _>(buf, offset, count, |v| {
                self.lock().generate_log_normal(v, mean as f32, stddev as f32)
            }),
            ("float64", true) => typed::<f64, _>(buf, offset, count, |v| {
                self.lock().generate_log_normal_double(v, mean, stddev)
            }),
            (d, _) => Err(value(format!("normal: dtype {d} is not float32 or float64"))),
        })?
        .map_err(rand)
    }

    /// Fills `count` uint32 with Poisson variates of mean `lam`.
    fn fill_poisson(
        &self,
        py: Python<'_>,
        buf: &Buffer,
        offset: usize,
        count: usize,
        lam: f64,
    ) -> PyResult<()> {
        self.check(buf)?;
        py.detach(|| typed::<u32, _>(buf, offset, count, |v| self.lock().generate_poisson(v, lam)))?
            .map_err(rand)
    }

    /// Fills `count` raw integers of `dtype` ("uint32", or "uint64" for sobol64).
    fn fill_integers(
        &self,
        py: Python<'_>,
        buf: &Buffer,
        offset: usize,
        count: usize,
        dtype: &str,
    ) -> PyResult<()> {
        self.check(buf)?;
        py.detach(|| match dtype {
            "uint32" => typed::<u32, _>(buf, offset, count, |v| self.lock().generate_u32(v)),
            "uint64" => typed::<u64, _>(buf, offset, count, |v| self.lock().generate_u64(v)),
            d => Err(value(format!("integers: dtype {d} is not uint32 or uint64"))),
        })?
        .map_err(rand)
    }

    fn __repr__(&self) -> String {
        format!("<ferrocm.random.Generator {} on device {}>", self.name, self.device.index())
    }
}

impl PyGenerator {
    fn lock(&self) -> std::sync::MutexGuard<'_, Generator> {
        self.generator.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn check(&self, buf: &Buffer) -> PyResult<()> {
        if buf.device() != &self.device {
            return Err(value(format!(
                "the output is on device {} but the generator on device {}",
                buf.device().index(),
                self.device.index()
            )));
        }
        Ok(())
    }
}
