//! Reading the text form back into a [`Function`] (the inverse of `Display`), so IR can be
//! written by hand in tests and dumps can be replayed.
//!
//! The parser rebuilds the function through the [`Builder`], so every instruction is type-checked
//! again; it checks that each value gets the number and the type the text gives it, that names
//! are names, and that every line has exactly the shape the printer writes, so whatever it
//! accepts prints back to text that parses to the same function. Scalar parameters are declared
//! (and their `param` instructions emitted) in header order, which is how the kernel language
//! builds them.

use crate::builder::is_name;
use crate::intrinsics::lookup;
use crate::*;

/// Why IR text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    #[error("line {line}: {message}")]
    Syntax { line: usize, message: String },
    #[error("line {line}: {source}")]
    Build { line: usize, source: BuildError },
}

struct Parser<'a> {
    lines: Vec<(usize, &'a str)>,
    pos: usize,
    b: Builder,
    /// Each parameter's name, its value (scalars) and its memory (slices, tensor maps).
    params: Vec<(String, Option<Value>)>,
    mems: Vec<(String, Mem)>,
    vars: Vec<Var>,
}

fn scalar(s: &str) -> Option<ScalarType> {
    ScalarType::ALL.iter().copied().find(|t| t.name() == s)
}

fn parse_type(s: &str) -> Option<Type> {
    if let Some((e, n)) = s.split_once('x') {
        let n = n.parse::<u8>().ok().filter(|n| (2..=Type::MAX_LANES).contains(&(*n as u32)))?;
        // `f32x04` would print back as `f32x4`.
        if n.to_string().len() != s.len() - e.len() - 1 {
            return None;
        }
        return scalar(e).map(|e| Type::Vector(e, n));
    }
    scalar(s).map(Type::Scalar)
}

/// A decimal number with no sign, no leading zeros and no `+`: the only way the printer
/// writes one.
fn number<T: std::str::FromStr + ToString>(s: &str) -> Option<T> {
    let v = s.parse::<T>().ok()?;
    (v.to_string() == s).then_some(v)
}

fn const_bits(ty: ScalarType, s: &str) -> Option<u64> {
    use ScalarType::*;
    let float_bits = |hex: &str, bits: u32| -> Option<u64> {
        let v = u64::from_str_radix(hex, 16).ok()?;
        (hex.len() == bits as usize / 4 && v >> (bits - 1) >> 1 == 0).then_some(v)
    };
    Some(match ty {
        Bool => match s {
            "true" => 1,
            "false" => 0,
            _ => return None,
        },
        I8 | I16 | I32 | I64 => {
            let v: i64 = number(s)?;
            let bits = ty.bits();
            let (min, max) = if bits == 64 {
                (i64::MIN, i64::MAX)
            } else {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            };
            if v < min || v > max {
                return None;
            }
            if bits == 64 {
                v as u64
            } else {
                (v as u64) & ((1u64 << bits) - 1)
            }
        }
        U8 | U16 | U32 | U64 => {
            let v: u64 = number(s)?;
            if ty.bits() < 64 && v >> ty.bits() != 0 {
                return None;
            }
            v
        }
        // NaNs print as their bits (`nan:0x7fc00000`), every other float as the shortest
        // decimal that reads back to it.
        F16 | BF16 | F32 | F64 if s.starts_with("nan:0x") => float_bits(&s[6..], ty.bits())?,
        F16 => f16_bits(
            s.parse::<f64>().ok()?,
            s,
            |x| half::f16::from_f64(x).to_bits(),
            |b| format!("{:?}", half::f16::from_bits(b)),
        )?,
        BF16 => f16_bits(
            s.parse::<f64>().ok()?,
            s,
            |x| half::bf16::from_f64(x).to_bits(),
            |b| format!("{:?}", half::bf16::from_bits(b)),
        )?,
        F32 => {
            let v = s.parse::<f32>().ok().filter(|v| !v.is_nan())?;
            (format!("{v:?}") == s).then_some(v.to_bits() as u64)?
        }
        F64 => {
            let v = s.parse::<f64>().ok().filter(|v| !v.is_nan())?;
            (format!("{v:?}") == s).then_some(v.to_bits())?
        }
    })
}

/// A half-precision constant that prints back as `s`.
fn f16_bits(v: f64, s: &str, enc: impl Fn(f64) -> u16, show: impl Fn(u16) -> String) -> Option<u64> {
    if v.is_nan() {
        return None;
    }
    let b = enc(v);
    (show(b) == s).then_some(b as u64)
}

impl<'a> Parser<'a> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        let line = self.lines.get(self.pos.saturating_sub(1)).map(|l| l.0).unwrap_or(0);
        Err(ParseError::Syntax { line, message: message.into() })
    }

    fn next(&mut self) -> Option<&'a str> {
        let l = self.lines.get(self.pos).map(|l| l.1);
        self.pos += 1;
        l
    }

    fn value(&self, s: &str) -> Result<Value, ParseError> {
        match s.strip_prefix('%').and_then(number::<u32>) {
            Some(n) if (n as usize) < self.b.func().values.len() => Ok(Value(n)),
            _ => self.err(format!("`{s}` is not a defined value")),
        }
    }

    fn mem(&self, s: &str) -> Result<Mem, ParseError> {
        let Some(name) = s.strip_prefix('@') else {
            return self.err(format!("expected `@memory`, found `{s}`"));
        };
        match self.mems.iter().find(|(n, _)| n == name) {
            Some((_, m)) => Ok(*m),
            None => self.err(format!("unknown memory `@{name}`")),
        }
    }

    /// `$name.N`: variable N, whose name must be the one declared.
    fn var(&self, s: &str) -> Result<Var, ParseError> {
        let found = s
            .strip_prefix('$')
            .and_then(|s| s.rsplit_once('.'))
            .and_then(|(name, i)| number::<usize>(i).map(|i| (name, i)))
            .and_then(|(name, i)| self.vars.get(i).filter(|v| self.b.func().vars[v.0 as usize].name == name));
        match found {
            Some(v) => Ok(*v),
            None => self.err(format!("unknown variable `{s}`")),
        }
    }

    /// `@mem[%i]` -> (mem, index).
    fn mem_index(&self, s: &str) -> Result<(Mem, Value), ParseError> {
        let Some((m, rest)) = s.split_once('[') else {
            return self.err(format!("expected `@mem[%i]`, found `{s}`"));
        };
        let Some(i) = rest.strip_suffix(']') else { return self.err(format!("expected `]` in `{s}`")) };
        Ok((self.mem(m)?, self.value(i)?))
    }

    fn header(&mut self) -> Result<(), ParseError> {
        let Some(h) = self.next() else { return self.err("empty text") };
        let Some(rest) = h.strip_prefix("kernel ") else { return self.err("expected `kernel NAME(...) {`") };
        let Some((name, params)) = rest.split_once('(') else { return self.err("expected `(`") };
        let Some(params) = params.strip_suffix(") {") else { return self.err("expected `) {`") };
        if !is_name(name) {
            return self.err(format!("`{name}` is not a kernel name"));
        }
        self.b = Builder::new(name);
        if params.is_empty() {
            return Ok(());
        }
        for p in params.split(", ") {
            let Some((pname, ty)) = p.split_once(": ") else {
                return self.err(format!("bad parameter `{p}`: expected `name: type`"));
            };
            if !is_name(pname) {
                return self.err(format!("`{pname}` is not a parameter name"));
            }
            let slice = |t: &str| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')).and_then(scalar);
            if let Some(e) = ty.strip_prefix("&mut ").and_then(slice) {
                let m = self.b.slice_param(pname, e, true);
                self.params.push((pname.into(), None));
                self.mems.push((pname.into(), m));
            } else if let Some(e) = ty.strip_prefix('&').and_then(slice) {
                let m = self.b.slice_param(pname, e, false);
                self.params.push((pname.into(), None));
                self.mems.push((pname.into(), m));
            } else if ty == "tensor_map" {
                let m = self.b.tensor_map_param(pname);
                self.params.push((pname.into(), None));
                self.mems.push((pname.into(), m));
            } else if let Some(t) = scalar(ty) {
                let v = self.b.scalar_param(pname, t);
                self.params.push((pname.into(), Some(v)));
            } else {
                return self.err(format!("bad parameter type `{ty}`"));
            }
        }
        self.check()
    }

    fn decls(&mut self) -> Result<(), ParseError> {
        let mut attrs = KernelAttrs::default();
        while let Some(l) = self.lines.get(self.pos).map(|l| l.1) {
            let Some((kw, rest)) = l.split_once(' ') else { break };
            match kw {
                "max_threads" | "min_blocks_per_sm" | "cluster" => {
                    self.pos += 1;
                    let nums: Option<Vec<u32>> = rest.split(", ").map(number::<u32>).collect();
                    match (kw, nums.as_deref()) {
                        ("max_threads", Some(&[n])) if attrs.max_threads.is_none() => {
                            attrs.max_threads = Some(n)
                        }
                        ("min_blocks_per_sm", Some(&[n])) if attrs.min_blocks_per_sm.is_none() => {
                            attrs.min_blocks_per_sm = Some(n)
                        }
                        ("cluster", Some(&[x, y, z])) if attrs.cluster.is_none() => {
                            attrs.cluster = Some([x, y, z])
                        }
                        _ => return self.err(format!("bad or repeated `{kw}` line")),
                    }
                }
                "shared" | "local" | "var" => {
                    self.pos += 1;
                    self.decl(kw, rest)?;
                }
                _ => break,
            }
        }
        if attrs != KernelAttrs::default() {
            self.b.set_attrs(attrs);
        }
        self.check()
    }

    fn decl(&mut self, kw: &str, rest: &str) -> Result<(), ParseError> {
        let Some((name, ty)) = rest.split_once(": ") else { return self.err("expected `name: type`") };
        if kw == "var" {
            let idx = name
                .strip_prefix('$')
                .and_then(|n| n.rsplit_once('.'))
                .and_then(|(n, i)| number::<usize>(i).map(|i| (n, i)));
            let Some((vname, i)) = idx else { return self.err("expected `$name.N`") };
            if i != self.vars.len() {
                return self.err(format!("variable `{name}` is declared as number {}", self.vars.len()));
            }
            let Some(t) = parse_type(ty) else { return self.err(format!("bad type `{ty}`")) };
            let v = self.b.var(vname, t);
            self.vars.push(v);
            return Ok(());
        }
        let (ty, align) = match ty.split_once("] align ") {
            Some((t, a)) => match number::<u32>(a) {
                // The default is printed as nothing.
                Some(a) if a != 16 => (t, a),
                _ => return self.err(format!("bad alignment `{a}`")),
            },
            None => match ty.strip_suffix(']') {
                Some(t) => (t, 16),
                None => return self.err(format!("bad array type `{ty}`")),
            },
        };
        let Some(inner) = ty.strip_prefix('[') else { return self.err(format!("bad array type `{ty}`")) };
        let (elem, len) = match inner.split_once("; ") {
            Some((e, n)) => match number::<u32>(n) {
                Some(n) => (e, Some(n)),
                None => return self.err(format!("bad array length `{n}`")),
            },
            None => (inner, None),
        };
        let Some(elem) = scalar(elem) else { return self.err(format!("bad element type `{elem}`")) };
        let space = match (kw, len) {
            ("shared", Some(len)) => MemSpace::Shared { len, align },
            ("shared", None) => MemSpace::DynShared { align },
            ("local", Some(len)) if align == 16 => MemSpace::Local { len },
            ("local", Some(_)) => return self.err("local arrays take no alignment"),
            _ => return self.err("a local array needs a length"),
        };
        let Some(mname) = name.strip_prefix('@') else {
            return self.err(format!("expected `@name`, found `{name}`"));
        };
        let m = self.b.add_mem(mname, elem, space);
        self.mems.push((mname.into(), m));
        Ok(())
    }

    fn check(&self) -> Result<(), ParseError> {
        if let Some(e) = self.b.clone_error() {
            let line = self.lines.get(self.pos.saturating_sub(1)).map(|l| l.0).unwrap_or(0);
            return Err(ParseError::Build { line, source: e });
        }
        Ok(())
    }

    /// Parses instructions until a closing line (`}`, `} else {`, `} latch {`); returns it.
    fn block(&mut self) -> Result<&'a str, ParseError> {
        loop {
            let Some(l) = self.next() else { return self.err("unexpected end of text") };
            if l.starts_with('}') {
                return Ok(l);
            }
            self.inst(l)?;
            self.check()?;
        }
    }

    fn close(&self, end: &str, allowed: &[&str]) -> Result<(), ParseError> {
        if allowed.contains(&end) {
            Ok(())
        } else {
            self.err(format!(
                "expected {}, found `{end}`",
                allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(" or ")
            ))
        }
    }

    fn inst(&mut self, l: &'a str) -> Result<(), ParseError> {
        let (result, body) = match l.split_once(" = ") {
            Some((lhs, rhs)) if lhs.starts_with('%') => {
                let Some((v, ty)) = lhs.split_once(": ") else { return self.err("expected `%N: type`") };
                let Some(n) = v.strip_prefix('%').and_then(number::<u32>) else {
                    return self.err(format!("bad value name `{v}`"));
                };
                let Some(t) = parse_type(ty) else { return self.err(format!("bad type `{ty}`")) };
                (Some((n, t)), rhs)
            }
            _ => (None, l),
        };
        let (op, args) = body.split_once(' ').unwrap_or((body, ""));
        let list: Vec<&str> = if args.is_empty() { vec![] } else { args.split(", ").collect() };
        let ty = result.map(|r| r.1);
        let elem = ty.map(|t| t.elem()).unwrap_or(ScalarType::U32);
        let arg = |i: usize| list.get(i).copied().unwrap_or("");
        let arity = |n: usize| -> Result<(), ParseError> {
            if list.len() == n {
                Ok(())
            } else {
                self.err(format!("`{op}` takes {n} operands, got {}", list.len()))
            }
        };
        let got: Option<Value> = match op {
            "const" => {
                let Some(bits) = const_bits(elem, args) else {
                    return self.err(format!("bad {elem} constant `{args}`"));
                };
                if !ty.is_some_and(|t| t.is_scalar()) {
                    return self.err("a constant needs a scalar result");
                }
                Some(self.b.constant(elem, bits))
            }
            "param" => match self.params.iter().find(|p| p.0 == args) {
                Some((_, Some(v))) => {
                    // Emitted with the header; the text repeats it in place.
                    let v = *v;
                    if result.map(|r| r.0) != Some(v.0) || ty != Some(self.b.value_type(v)) {
                        return self.err("scalar parameters are numbered in header order, with their type");
                    }
                    return Ok(());
                }
                _ => return self.err(format!("unknown scalar parameter `{args}`")),
            },
            "special" => {
                let axis = |s: &str| match s {
                    "x" => Some(Axis::X),
                    "y" => Some(Axis::Y),
                    "z" => Some(Axis::Z),
                    _ => None,
                };
                let (kind, ax) = match args.split_once('.') {
                    Some((k, a)) => (k, axis(a)),
                    None => (args, None),
                };
                let has_axis = args.contains('.');
                let s = match (kind, ax, has_axis) {
                    ("thread_idx", Some(a), _) => Special::ThreadIdx(a),
                    ("block_idx", Some(a), _) => Special::BlockIdx(a),
                    ("block_dim", Some(a), _) => Special::BlockDim(a),
                    ("grid_dim", Some(a), _) => Special::GridDim(a),
                    ("cluster_block_idx", Some(a), _) => Special::ClusterBlockIdx(a),
                    ("cluster_dim", Some(a), _) => Special::ClusterDim(a),
                    ("cluster_idx", Some(a), _) => Special::ClusterIdx(a),
                    ("cluster_grid_dim", Some(a), _) => Special::ClusterGridDim(a),
                    ("lane_id", None, false) => Special::LaneId,
                    ("warp_size", None, false) => Special::WarpSize,
                    ("cluster_rank", None, false) => Special::ClusterRank,
                    ("cluster_size", None, false) => Special::ClusterSize,
                    _ => return self.err(format!("unknown special `{args}`")),
                };
                Some(self.b.special(s))
            }
            "len" => {
                arity(1)?;
                let m = self.mem(args)?;
                if !matches!(self.b.func().mem(m).space, MemSpace::Global { .. } | MemSpace::DynShared { .. })
                {
                    // The builder folds the length of a fixed-size array to a constant.
                    return self
                        .err(format!("`len` of `{args}`: only slices and dynamic shared memory have one"));
                }
                Some(self.b.len(m))
            }
            "select" | "fma" => {
                arity(3)?;
                let [a, b, c] = [self.value(arg(0))?, self.value(arg(1))?, self.value(arg(2))?];
                Some(if op == "select" { self.b.select(a, b, c) } else { self.b.fma(a, b, c) })
            }
            "cast" => {
                arity(1)?;
                let a = self.value(args)?;
                if self.b.value_type(a) == ty.unwrap_or(Type::Scalar(elem)) {
                    // The builder folds a cast to the same type away.
                    return self.err("a cast to the operand's own type");
                }
                Some(self.b.cast(a, elem))
            }
            "bitcast" => {
                arity(1)?;
                let a = self.value(args)?;
                Some(self.b.bitcast(a, elem))
            }
            "vector" => {
                let parts = list.iter().map(|p| self.value(p)).collect::<Result<Vec<_>, _>>()?;
                Some(self.b.make_vector(&parts))
            }
            "extract" => {
                arity(2)?;
                let v = self.value(arg(0))?;
                let Some(k) = number::<u8>(arg(1)) else { return self.err("bad lane") };
                Some(self.b.extract(v, k))
            }
            "read" => {
                arity(1)?;
                let v = self.var(args)?;
                Some(self.b.read_var(v))
            }
            "write" => {
                arity(2)?;
                let (v, x) = (self.var(arg(0))?, self.value(arg(1))?);
                self.b.write_var(v, x);
                None
            }
            "read_lane" => {
                arity(2)?;
                let v = self.var(arg(0))?;
                let Some(k) = number::<u8>(arg(1)) else { return self.err("bad lane") };
                Some(self.b.read_var_lane(v, k))
            }
            "write_lane" => {
                arity(3)?;
                let v = self.var(arg(0))?;
                let Some(k) = number::<u8>(arg(1)) else { return self.err("bad lane") };
                let x = self.value(arg(2))?;
                self.b.write_var_lane(v, k, x);
                None
            }
            "load" => {
                arity(1)?;
                let (m, i) = self.mem_index(args)?;
                Some(self.b.load(m, i, ty.map(|t| t.lanes() as u8).unwrap_or(1)))
            }
            "store" => {
                arity(2)?;
                let (m, i) = self.mem_index(arg(0))?;
                let v = self.value(arg(1))?;
                self.b.store(m, i, v);
                None
            }
            "barrier" | "return" => {
                arity(0)?;
                if op == "barrier" {
                    self.b.barrier()
                } else {
                    self.b.return_()
                }
                None
            }
            "break" | "continue" => {
                let Some(d) = number::<u32>(args) else { return self.err("expected a depth") };
                if op == "break" {
                    self.b.break_(d)
                } else {
                    self.b.continue_(d)
                }
                None
            }
            "if" => {
                let Some(c) = args.strip_suffix(" {") else { return self.err("expected `if %c {`") };
                let c = self.value(c)?;
                self.b.begin_if(c);
                self.check()?;
                let end = self.block()?;
                self.close(end, &["}", "} else {"])?;
                if end == "} else {" {
                    self.b.begin_else();
                    let end = self.block()?;
                    self.close(end, &["}"])?;
                }
                self.b.end_if();
                None
            }
            "loop" => {
                if args != "{" {
                    return self.err("expected `loop {`");
                }
                self.b.begin_loop();
                let end = self.block()?;
                self.close(end, &["}", "} latch {"])?;
                if end == "} latch {" {
                    self.b.begin_latch();
                    let end = self.block()?;
                    self.close(end, &["}"])?;
                }
                self.b.end_loop();
                None
            }
            _ => match self.dotted(op, args, &list)? {
                Some(v) => v,
                None => self.intrinsic(op, &list)?,
            },
        };
        self.check()?;
        self.numbered(got, result)
    }

    /// Checks that a result gets the number and type the text gives it, and that an
    /// instruction without a result is written without one.
    fn numbered(&self, got: Option<Value>, want: Option<(u32, Type)>) -> Result<(), ParseError> {
        match (got, want) {
            (Some(g), Some((w, _))) if g.0 != w => {
                self.err(format!("value %{w} would be %{}: values must be numbered in order", g.0))
            }
            (Some(g), Some((_, t))) if self.b.value_type(g) != t => self.err(format!(
                "%{} is declared {t} but the instruction gives {}",
                g.0,
                self.b.value_type(g)
            )),
            (Some(g), None) => self.err(format!("the result %{} needs a name and type", g.0)),
            (None, Some((w, _))) => self.err(format!("this instruction has no result for %{w}")),
            _ => Ok(()),
        }
    }

    /// Unary and binary ops (`neg`, `add`, ...) and comparisons (`cmp.lt`); `None` for other names.
    fn dotted(&mut self, op: &str, args: &str, list: &[&str]) -> Result<Option<Option<Value>>, ParseError> {
        const UNARY: [(&str, UnaryOp); 19] = [
            ("neg", UnaryOp::Neg),
            ("not", UnaryOp::Not),
            ("abs", UnaryOp::Abs),
            ("sqrt", UnaryOp::Sqrt),
            ("sqrt_approx", UnaryOp::SqrtApprox),
            ("rsqrt", UnaryOp::Rsqrt),
            ("exp", UnaryOp::Exp),
            ("exp2", UnaryOp::Exp2),
            ("log", UnaryOp::Log),
            ("log2", UnaryOp::Log2),
            ("sin", UnaryOp::Sin),
            ("cos", UnaryOp::Cos),
            ("tanh", UnaryOp::Tanh),
            ("floor", UnaryOp::Floor),
            ("ceil", UnaryOp::Ceil),
            ("leading_zeros", UnaryOp::LeadingZeros),
            ("trailing_zeros", UnaryOp::TrailingZeros),
            ("count_ones", UnaryOp::CountOnes),
            ("reverse_bits", UnaryOp::ReverseBits),
        ];
        const BINARY: [(&str, BinaryOp); 15] = [
            ("add", BinaryOp::Add),
            ("sub", BinaryOp::Sub),
            ("mul", BinaryOp::Mul),
            ("div", BinaryOp::Div),
            ("rem", BinaryOp::Rem),
            ("and", BinaryOp::And),
            ("or", BinaryOp::Or),
            ("xor", BinaryOp::Xor),
            ("shl", BinaryOp::Shl),
            ("shr", BinaryOp::Shr),
            ("min", BinaryOp::Min),
            ("max", BinaryOp::Max),
            ("pow", BinaryOp::Pow),
            ("mul_hi", BinaryOp::MulHi),
            ("mul_wide", BinaryOp::MulWide),
        ];
        const CMP: [(&str, CmpOp); 6] = [
            ("eq", CmpOp::Eq),
            ("ne", CmpOp::Ne),
            ("lt", CmpOp::Lt),
            ("le", CmpOp::Le),
            ("gt", CmpOp::Gt),
            ("ge", CmpOp::Ge),
        ];
        let two = |p: &Self| -> Result<(Value, Value), ParseError> {
            if list.len() != 2 {
                return p.err(format!("`{op}` takes 2 operands, got {}", list.len()));
            }
            Ok((p.value(list[0])?, p.value(list[1])?))
        };
        if let Some((_, u)) = UNARY.iter().find(|(n, _)| *n == op) {
            if list.len() != 1 {
                return self.err(format!("`{op}` takes 1 operand, got {}", list.len()));
            }
            let a = self.value(args)?;
            return Ok(Some(Some(self.b.unary(*u, a))));
        }
        if let Some((_, bop)) = BINARY.iter().find(|(n, _)| *n == op) {
            let (a, b) = two(self)?;
            return Ok(Some(Some(self.b.binary(*bop, a, b))));
        }
        if let Some((_, c)) = op.strip_prefix("cmp.").and_then(|t| CMP.iter().find(|(n, _)| *n == t)) {
            let (a, b) = two(self)?;
            return Ok(Some(Some(self.b.cmp(*c, a, b))));
        }
        Ok(None)
    }

    /// An intrinsic call: `name.imm... @mem, ..., $var.N, ..., %value, ...`.
    fn intrinsic(&mut self, op: &str, list: &[&str]) -> Result<Option<Value>, ParseError> {
        let (def, imms) = match lookup(op) {
            Ok(x) => x,
            Err(e) => return self.err(e),
        };
        let nm = def.mems.len();
        if list.len() < nm + def.vars {
            return self.err(format!("`{op}` takes {nm} memories and {} variables first", def.vars));
        }
        let mems = list[..nm].iter().map(|m| self.mem(m)).collect::<Result<Vec<_>, _>>()?;
        let vars = list[nm..nm + def.vars].iter().map(|v| self.var(v)).collect::<Result<Vec<_>, _>>()?;
        let values = list[nm + def.vars..].iter().map(|v| self.value(v)).collect::<Result<Vec<_>, _>>()?;
        let call = Call { def, imms, mems, vars };
        // The text name must be the canonical spelling (flags in order, no repeats).
        if call.text_name() != op {
            return self.err(format!("`{op}` is written `{}`", call.text_name()));
        }
        Ok(self.b.intrinsic(call, values))
    }
}

/// Parses the text form of a function (as printed by `Display`).
pub fn parse(text: &str) -> Result<Function, ParseError> {
    let lines: Vec<(usize, &str)> =
        text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty()).collect();
    let mut p = Parser {
        lines,
        pos: 0,
        b: Builder::new("_"),
        params: Vec::new(),
        mems: Vec::new(),
        vars: Vec::new(),
    };
    p.header()?;
    p.decls()?;
    let end = p.block()?;
    p.close(end, &["}"])?;
    if p.pos < p.lines.len() {
        p.pos += 1;
        return p.err("text after the end of the kernel");
    }
    let line = p.lines.last().map(|l| l.0).unwrap_or(0);
    p.b.finish().map_err(|source| ParseError::Build { line, source })
}
