//! `ferrocm.hipify(source, **options)`: CUDA source to HIP, as `ferrocm hipify` does.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::value;

/// Translates CUDA source text to HIP. Options (all booleans): `roc` (the roc* libraries instead
/// of the hip* wrappers), `hip_kernel_execution_syntax` (`<<<>>>` to `hipLaunchKernelGGL`),
/// `amap` (also inside `#if 0`). Returns `(text, stats)`, stats a dict of counts.
#[pyfunction]
#[pyo3(signature = (source, **options))]
pub fn hipify<'py>(
    py: Python<'py>,
    source: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    let mut o = ferrocm_hipify::Options::default();
    if let Some(opts) = options {
        for (k, v) in opts.iter() {
            let key: String = k.extract()?;
            let on: bool =
                v.extract().map_err(|_| PyTypeError::new_err(format!("option {key} takes a bool")))?;
            match key.as_str() {
                "roc" => o.roc = on,
                "hip_kernel_execution_syntax" => o.hip_kernel_execution_syntax = on,
                "amap" => o.amap = on,
                _ => {
                    return Err(PyTypeError::new_err(format!(
                        "unknown hipify option {key:?}; expected roc, hip_kernel_execution_syntax or amap"
                    )))
                }
            }
        }
    }
    let source = source.to_owned();
    let t = py.detach(move || ferrocm_hipify::translate(&source, &o)).map_err(|e| value(e.to_string()))?;
    let s = &t.stats;
    let stats = PyDict::new(py);
    stats.set_item("converted", s.converted())?;
    stats.set_item("unconverted", s.unconverted())?;
    stats.set_item("kernel_launches", s.kernel_launches)?;
    stats.set_item("lines_changed", s.lines_changed)?;
    stats.set_item("lines_total", s.lines_total)?;
    stats.set_item("conversion_percent", s.conversion_percent())?;
    let by_name = PyDict::new(py);
    for (name, count) in &s.converted_by_name {
        by_name.set_item(*name, *count)?;
    }
    stats.set_item("converted_by_name", by_name)?;
    let missing = PyDict::new(py);
    for (name, count) in &s.unconverted_by_name {
        missing.set_item(*name, *count)?;
    }
    stats.set_item("unconverted_by_name", missing)?;
    Ok((t.text, stats))
}
