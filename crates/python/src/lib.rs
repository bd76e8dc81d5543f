//! `ferrocm._native`: the Rust half of the Python package (hip-python's role).
//!
//! The native module owns what must be Rust: devices, streams and events, device memory
//! ([`buffer::Buffer`]: owned by ferrocm or borrowed from another library through DLPack), the
//! DLPack capsules in both directions, the RAND generators and hipify. The Python half
//! (`python/ferrocm/`) builds the NumPy-like `Array` (shape, dtype, strides, slicing) on top of
//! buffers. Every call that waits for a device releases the GIL; no call can crash the
//! interpreter: errors become Python exceptions (`ValueError` for bad arguments, `MemoryError`
//! for out-of-memory, `ferrocm.DeviceError` for device failures).

use pyo3::prelude::*;

mod blas;
mod buffer;
mod ccl;
mod device;
mod dlpack;
mod errors;
mod fft;
mod hipify;
mod random;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", ferrocm::VERSION)?;
    m.add("Error", py.get_type::<errors::Error>())?;
    m.add("DeviceError", py.get_type::<errors::DeviceError>())?;
    m.add("CommError", py.get_type::<errors::CommError>())?;
    m.add_class::<device::PyDevice>()?;
    m.add_class::<device::PyStream>()?;
    m.add_class::<device::PyEvent>()?;
    m.add_class::<buffer::Buffer>()?;
    m.add_class::<random::PyGenerator>()?;
    m.add_function(wrap_pyfunction!(device::devices, m)?)?;
    m.add_function(wrap_pyfunction!(device::default_device, m)?)?;
    m.add_function(wrap_pyfunction!(device::info_json, m)?)?;
    m.add_function(wrap_pyfunction!(device::current_stream, m)?)?;
    m.add_function(wrap_pyfunction!(device::push_stream, m)?)?;
    m.add_function(wrap_pyfunction!(device::pop_stream, m)?)?;
    m.add_function(wrap_pyfunction!(dlpack::import_capsule, m)?)?;
    m.add_function(wrap_pyfunction!(hipify::hipify, m)?)?;
    m.add_function(wrap_pyfunction!(fft::fft_exec, m)?)?;
    m.add_function(wrap_pyfunction!(blas::gemm_exec, m)?)?;
    m.add_function(wrap_pyfunction!(blas::gemv_exec, m)?)?;
    m.add_function(wrap_pyfunction!(blas::copy_exec, m)?)?;
    m.add_class::<ccl::PyCommunicator>()?;
    m.add_function(wrap_pyfunction!(ccl::unique_id_new, m)?)?;
    m.add_function(wrap_pyfunction!(ccl::unique_id_root, m)?)?;
    m.add_function(wrap_pyfunction!(ccl::ccl_group, m)?)?;
    Ok(())
}
