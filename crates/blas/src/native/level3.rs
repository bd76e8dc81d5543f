use std::collections::HashMap;

use super::NativeFn;
use crate::types::DataType;

pub(crate) fn register(_m: &mut HashMap<(&'static str, DataType), NativeFn>) {}
