//! The text form of a [`Function`], used by dumps and snapshot tests.

use crate::*;
use std::fmt::{self, Write};

fn const_text(c: Const) -> String {
    use ScalarType::*;
    // NaNs print as their bits, so a payload survives the text form.
    let nan = match c.ty {
        F16 => half::f16::from_bits(c.bits as u16).is_nan(),
        BF16 => half::bf16::from_bits(c.bits as u16).is_nan(),
        F32 => f32::from_bits(c.bits as u32).is_nan(),
        F64 => f64::from_bits(c.bits).is_nan(),
        _ => false,
    };
    if nan {
        return format!("nan:0x{:0w$x}", c.bits, w = c.ty.bits() as usize / 4);
    }
    match c.ty {
        Bool => (c.bits != 0).to_string(),
        I8 => (c.bits as i8).to_string(),
        I16 => (c.bits as i16).to_string(),
        I32 => (c.bits as i32).to_string(),
        I64 => (c.bits as i64).to_string(),
        U8 | U16 | U32 | U64 => c.bits.to_string(),
        F16 => format!("{:?}", half::f16::from_bits(c.bits as u16)),
        BF16 => format!("{:?}", half::bf16::from_bits(c.bits as u16)),
        F32 => format!("{:?}", f32::from_bits(c.bits as u32)),
        F64 => format!("{:?}", f64::from_bits(c.bits)),
    }
}

fn lower(s: impl fmt::Debug) -> String {
    let s = format!("{s:?}");
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if ch.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(ch.to_lowercase());
    }
    out
}

fn special_text(s: Special) -> String {
    match s {
        Special::ThreadIdx(a) => format!("thread_idx.{}", a.name()),
        Special::BlockIdx(a) => format!("block_idx.{}", a.name()),
        Special::BlockDim(a) => format!("block_dim.{}", a.name()),
        Special::GridDim(a) => format!("grid_dim.{}", a.name()),
        Special::LaneId => "lane_id".into(),
        Special::WarpSize => "warp_size".into(),
        Special::ClusterRank => "cluster_rank".into(),
        Special::ClusterSize => "cluster_size".into(),
        Special::ClusterBlockIdx(a) => format!("cluster_block_idx.{}", a.name()),
        Special::ClusterDim(a) => format!("cluster_dim.{}", a.name()),
        Special::ClusterIdx(a) => format!("cluster_idx.{}", a.name()),
        Special::ClusterGridDim(a) => format!("cluster_grid_dim.{}", a.name()),
    }
}

impl Function {
    fn print_region(&self, out: &mut String, r: Region, indent: usize) -> fmt::Result {
        let pad = "  ".repeat(indent);
        for inst in self.region(r) {
            out.push_str(&pad);
            if let Some(v) = inst.result {
                write!(out, "%{}: {} = ", v.0, self.value_type(v))?;
            }
            let m = |m: Mem| format!("@{}", self.mem(m).name);
            match &inst.op {
                Op::Const(c) => write!(out, "const {}", const_text(*c))?,
                Op::Param(i) => write!(out, "param {}", self.params[*i as usize].name)?,
                Op::Special(s) => write!(out, "special {}", special_text(*s))?,
                Op::Len(mem) => write!(out, "len {}", m(*mem))?,
                Op::Unary(op, a) => write!(out, "{} %{}", lower(op), a.0)?,
                Op::Binary(op, a, b) => write!(out, "{} %{}, %{}", lower(op), a.0, b.0)?,
                Op::Cmp(op, a, b) => write!(out, "cmp.{} %{}, %{}", lower(op), a.0, b.0)?,
                Op::Select(c, a, b) => write!(out, "select %{}, %{}, %{}", c.0, a.0, b.0)?,
                Op::Cast(a) => write!(out, "cast %{}", a.0)?,
                Op::Bitcast(a) => write!(out, "bitcast %{}", a.0)?,
                Op::Fma(a, b, c) => write!(out, "fma %{}, %{}, %{}", a.0, b.0, c.0)?,
                Op::MakeVector(parts) => {
                    let p: Vec<String> = parts.iter().map(|v| format!("%{}", v.0)).collect();
                    write!(out, "vector {}", p.join(", "))?
                }
                Op::Extract(v, l) => write!(out, "extract %{}, {}", v.0, l)?,
                Op::ReadVar(v) => write!(out, "read ${}.{}", self.vars[v.0 as usize].name, v.0)?,
                Op::WriteVar(v, x) => {
                    write!(out, "write ${}.{}, %{}", self.vars[v.0 as usize].name, v.0, x.0)?
                }
                Op::ReadVarLane(v, l) => {
                    write!(out, "read_lane ${}.{}, {l}", self.vars[v.0 as usize].name, v.0)?
                }
                Op::WriteVarLane(v, l, x) => {
                    write!(out, "write_lane ${}.{}, {l}, %{}", self.vars[v.0 as usize].name, v.0, x.0)?
                }
                Op::Load { mem, index } => write!(out, "load {}[%{}]", m(*mem), index.0)?,
                Op::Store { mem, index, value } => {
                    write!(out, "store {}[%{}], %{}", m(*mem), index.0, value.0)?
                }
                Op::Barrier => write!(out, "barrier")?,
                Op::If { cond, then_region, else_region } => {
                    writeln!(out, "if %{} {{", cond.0)?;
                    self.print_region(out, *then_region, indent + 1)?;
                    if !self.region(*else_region).is_empty() {
                        writeln!(out, "{pad}}} else {{")?;
                        self.print_region(out, *else_region, indent + 1)?;
                    }
                    write!(out, "{pad}}}")?;
                }
                Op::Loop { body, latch } => {
                    writeln!(out, "loop {{")?;
                    self.print_region(out, *body, indent + 1)?;
                    if !self.region(*latch).is_empty() {
                        writeln!(out, "{pad}}} latch {{")?;
                        self.print_region(out, *latch, indent + 1)?;
                    }
                    write!(out, "{pad}}}")?;
                }
                Op::Break { depth } => write!(out, "break {depth}")?,
                Op::Continue { depth } => write!(out, "continue {depth}")?,
                Op::Return => write!(out, "return")?,
                Op::Intrinsic(call, args) => {
                    let operands: Vec<String> = call
                        .mems
                        .iter()
                        .map(|&mem| m(mem))
                        .chain(call.vars.iter().map(|v| format!("${}.{}", self.vars[v.0 as usize].name, v.0)))
                        .chain(args.iter().map(|v| format!("%{}", v.0)))
                        .collect();
                    write!(out, "{}", call.text_name())?;
                    if !operands.is_empty() {
                        write!(out, " {}", operands.join(", "))?;
                    }
                }
            }
            out.push('\n');
        }
        Ok(())
    }
}

/// ` align N` for alignments other than the default 16 bytes.
fn align_text(align: u32) -> String {
    if align == 16 {
        String::new()
    } else {
        format!(" align {align}")
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Scalar(t) => format!("{}: {t}", p.name),
                ParamKind::Slice { elem, mutable: false } => format!("{}: &[{elem}]", p.name),
                ParamKind::Slice { elem, mutable: true } => format!("{}: &mut [{elem}]", p.name),
                ParamKind::TensorMap => format!("{}: tensor_map", p.name),
            })
            .collect();
        writeln!(f, "kernel {}({}) {{", self.name, params.join(", "))?;
        let a = &self.attrs;
        if let Some(n) = a.max_threads {
            writeln!(f, "  max_threads {n}")?;
        }
        if let Some(n) = a.min_blocks_per_sm {
            writeln!(f, "  min_blocks_per_sm {n}")?;
        }
        if let Some([x, y, z]) = a.cluster {
            writeln!(f, "  cluster {x}, {y}, {z}")?;
        }
        for m in &self.mems {
            match m.space {
                MemSpace::Global { .. } | MemSpace::TensorMap { .. } => {}
                MemSpace::Shared { len, align } => {
                    writeln!(f, "  shared @{}: [{}; {len}]{}", m.name, m.elem, align_text(align))?
                }
                MemSpace::DynShared { align } => {
                    writeln!(f, "  shared @{}: [{}]{}", m.name, m.elem, align_text(align))?
                }
                MemSpace::Local { len } => writeln!(f, "  local @{}: [{}; {len}]", m.name, m.elem)?,
            }
        }
        for (i, v) in self.vars.iter().enumerate() {
            writeln!(f, "  var ${}.{i}: {}", v.name, v.ty)?;
        }
        let mut body = String::new();
        self.print_region(&mut body, self.body, 1)?;
        f.write_str(&body)?;
        writeln!(f, "}}")
    }
}
