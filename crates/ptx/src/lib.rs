//! stub
use ferrocm_ir::Function;
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PtxError(String);
pub struct Target {
    pub arch: String,
}
impl Target {
    pub fn from_arch(a: &str) -> Target {
        Target { arch: a.into() }
    }
}
pub fn generate(_f: &Function, _t: &Target) -> Result<String, PtxError> {
    Err(PtxError("todo".into()))
}
