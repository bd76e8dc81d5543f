//! The IR verifier: structural and type invariants every back end relies on.

use crate::*;

/// An invariant a [`Function`] breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    #[error("%{value} is used before its definition or outside its region (in `{op}`)")]
    UseNotDominated { value: u32, op: String },
    #[error("%{value} is defined twice")]
    Redefined { value: u32 },
    #[error("`{op}`: {problem}")]
    BadOperand { op: String, problem: String },
    #[error("`{what}` {depth} levels out but only {loops} loops enclose it")]
    BadDepth { what: &'static str, depth: u32, loops: u32 },
    #[error("region {region} is used twice")]
    RegionReused { region: u32 },
}

struct Checker<'a> {
    f: &'a Function,
    defined: Vec<bool>,
    visible: Vec<bool>,
    region_seen: Vec<bool>,
}

impl Checker<'_> {
    fn use_(&self, v: Value, op: &Op) -> Result<(), VerifyError> {
        if (v.0 as usize) < self.visible.len() && self.visible[v.0 as usize] {
            Ok(())
        } else {
            Err(VerifyError::UseNotDominated { value: v.0, op: format!("{op:?}") })
        }
    }

    fn ty(&self, v: Value) -> Type {
        self.f.value_type(v)
    }

    fn region(&mut self, r: Region, loops: u32) -> Result<(), VerifyError> {
        if std::mem::replace(&mut self.region_seen[r.0 as usize], true) {
            return Err(VerifyError::RegionReused { region: r.0 });
        }
        let mut defined_here = Vec::new();
        for inst in self.f.region(r) {
            let op = &inst.op;
            let bad = |problem: &str| VerifyError::BadOperand {
                op: format!("{op:?}"),
                problem: problem.to_string(),
            };
            let operands = op.operands();
            for &v in &operands {
                self.use_(v, op)?;
            }
            // Unary and binary results have the type their op gives for the operand type.
            let result_ty = inst.result.map(|r| self.f.value_type(r));
            match op {
                Op::Unary(u, a) if result_ty != Some(u.result_type(self.ty(*a).elem()).into()) => {
                    return Err(bad("result type differs from what the op gives"));
                }
                Op::Binary(bop, a, _)
                    if result_ty.is_none()
                        || result_ty.map(|t| t.elem()) != bop.result_type(self.ty(*a).elem()) =>
                {
                    return Err(bad("result type differs from what the op gives"));
                }
                _ => {}
            }
            match op {
                Op::Binary(BinaryOp::Shl | BinaryOp::Shr, _, _) => {}
                Op::Binary(_, a, b) | Op::Cmp(_, a, b) if self.ty(*a) != self.ty(*b) => {
                    return Err(bad("operand types differ"))
                }
                Op::Select(c, a, b)
                    if self.ty(*c) != ScalarType::Bool.into() || self.ty(*a) != self.ty(*b) =>
                {
                    return Err(bad("needs a bool and two operands of one type"));
                }
                Op::If { cond, then_region, else_region } => {
                    if self.ty(*cond) != ScalarType::Bool.into() {
                        return Err(bad("condition is not bool"));
                    }
                    self.region(*then_region, loops)?;
                    self.region(*else_region, loops)?;
                }
                Op::Loop { body, latch } => {
                    self.region(*body, loops + 1)?;
                    self.region(*latch, loops + 1)?;
                }
                Op::Break { depth } if *depth >= loops => {
                    return Err(VerifyError::BadDepth { what: "break", depth: *depth, loops })
                }
                Op::Continue { depth } if *depth >= loops => {
                    return Err(VerifyError::BadDepth { what: "continue", depth: *depth, loops })
                }
                Op::Load { mem, index } | Op::Store { mem, index, .. } => {
                    if self.f.mems.get(mem.0 as usize).is_none() {
                        return Err(bad("unknown memory"));
                    }
                    if matches!(self.f.mem(*mem).space, MemSpace::TensorMap { .. }) {
                        return Err(bad("tensor maps are not loaded or stored"));
                    }
                    if !self.ty(*index).is_scalar() || !self.ty(*index).elem().is_int() {
                        return Err(bad("index is not an integer"));
                    }
                    if matches!(self.f.mem(*mem).space, MemSpace::Addressed(_))
                        && !matches!(self.ty(*index).elem(), ScalarType::U32 | ScalarType::U64)
                    {
                        return Err(bad("a byte address is not u32 or u64"));
                    }
                    if let Op::Store { value, .. } = op {
                        if self.ty(*value).elem() != self.f.mem(*mem).elem {
                            return Err(bad("stored value does not match the memory's element type"));
                        }
                        if let MemSpace::Global { mutable: false, .. } = self.f.mem(*mem).space {
                            return Err(bad("store to read-only memory"));
                        }
                    }
                }
                Op::Intrinsic(call, args) => {
                    let types: Vec<Type> = args.iter().map(|a| self.ty(*a)).collect();
                    let result = inst.result.map(|r| self.f.value_type(r));
                    match call.check(self.f, &types) {
                        Ok(t) if t == result => {}
                        Ok(t) => {
                            return Err(bad(&format!(
                                "the result is {}, but `{}` gives {}",
                                result.map_or("nothing".to_string(), |t| t.to_string()),
                                call.text_name(),
                                t.map_or("nothing".to_string(), |t| t.to_string())
                            )))
                        }
                        Err(problem) => return Err(bad(&format!("`{}`: {problem}", call.text_name()))),
                    }
                }
                Op::ReadVarLane(var, lane) | Op::WriteVarLane(var, lane, _) => {
                    let vt = self.f.vars.get(var.0 as usize).map(|v| v.ty);
                    let Some(vt) = vt.filter(|t| !t.is_scalar() && (*lane as u32) < t.lanes()) else {
                        return Err(bad("not an element of a vector variable"));
                    };
                    let elem: Type = vt.elem().into();
                    let ok = match op {
                        Op::WriteVarLane(_, _, v) => self.ty(*v) == elem,
                        _ => inst.result.map(|r| self.f.value_type(r)) == Some(elem),
                    };
                    if !ok {
                        return Err(bad("value type differs from the variable's elements"));
                    }
                }
                Op::WriteVar(var, v) if self.f.vars[var.0 as usize].ty != self.ty(*v) => {
                    return Err(bad("value type differs from the variable's"))
                }
                _ => {}
            }
            if let Some(v) = inst.result {
                let i = v.0 as usize;
                if i >= self.defined.len() || std::mem::replace(&mut self.defined[i], true) {
                    return Err(VerifyError::Redefined { value: v.0 });
                }
                self.visible[i] = true;
                defined_here.push(i);
            }
        }
        // Values defined in this region are not visible after it.
        for i in defined_here {
            self.visible[i] = false;
        }
        Ok(())
    }
}

/// Checks the invariants listed in the crate documentation.
pub fn verify(f: &Function) -> Result<(), VerifyError> {
    let mut c = Checker {
        f,
        defined: vec![false; f.values.len()],
        visible: vec![false; f.values.len()],
        region_seen: vec![false; f.regions.len()],
    };
    c.region(f.body, 0)
}
