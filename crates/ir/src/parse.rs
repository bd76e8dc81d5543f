//! Reading the text form back into a [`Function`] (the inverse of `Display`), so IR can be
//! written by hand in tests and dumps can be replayed.
//!
//! The parser rebuilds the function through the [`Builder`], so every instruction is type-checked
//! again, and checks that each value gets the number the text gives it. Scalar parameters are
//! declared (and their `param` instructions emitted) in header order, which is how the kernel
//! language builds them.

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
    params: Vec<(String, Option<Value>, Option<Mem>)>,
    mems: Vec<(String, Mem)>,
    vars: Vec<Var>,
}

fn scalar(s: &str) -> Option<ScalarType> {
    ScalarType::ALL.iter().copied().find(|t| t.name() == s)
}

fn parse_type(s: &str) -> Option<Type> {
    if let Some((e, n)) = s.split_once('x') {
        if let (Some(e), Ok(n)) = (scalar(e), n.parse::<u8>()) {
            return Some(Type::Vector(e, n));
        }
    }
    scalar(s).map(Type::Scalar)
}

fn const_bits(ty: ScalarType, s: &str) -> Option<u64> {
    use ScalarType::*;
    Some(match ty {
        Bool => (s.parse::<bool>().ok()?) as u64,
        I8 | I16 | I32 | I64 => {
            let v = s.parse::<i64>().ok()?;
            let bits = ty.bits();
            if bits == 64 {
                v as u64
            } else {
                (v as u64) & ((1u64 << bits) - 1)
            }
        }
        U8 | U16 | U32 | U64 => s.parse::<u64>().ok()?,
        F16 => half::f16::from_f64(s.parse::<f64>().ok()?).to_bits() as u64,
        BF16 => half::bf16::from_f64(s.parse::<f64>().ok()?).to_bits() as u64,
        F32 => s.parse::<f32>().ok()?.to_bits() as u64,
        F64 => s.parse::<f64>().ok()?.to_bits(),
    })
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
        let s = s.trim().trim_end_matches(',');
        match s.strip_prefix('%').and_then(|n| n.parse::<u32>().ok()) {
            Some(n) if (n as usize) < self.b.func().values.len() => Ok(Value(n)),
            _ => self.err(format!("`{s}` is not a defined value")),
        }
    }

    fn mem(&self, s: &str) -> Result<Mem, ParseError> {
        let name = s.trim().trim_start_matches('@');
        match self.mems.iter().find(|(n, _)| n == name) {
            Some((_, m)) => Ok(*m),
            None => self.err(format!("unknown memory `@{name}`")),
        }
    }

    fn var(&self, s: &str) -> Result<Var, ParseError> {
        let idx = s.trim().trim_end_matches(',').rsplit_once('.').and_then(|(_, i)| i.parse::<usize>().ok());
        match idx.and_then(|i| self.vars.get(i)) {
            Some(v) => Ok(*v),
            None => self.err(format!("unknown variable `{s}`")),
        }
    }

    /// `@mem[%i]` -> (mem, index).
    fn mem_index(&self, s: &str) -> Result<(Mem, Value), ParseError> {
        let Some((m, rest)) = s.trim().split_once('[') else {
            return self.err(format!("expected `@mem[%i]`, found `{s}`"));
        };
        Ok((self.mem(m)?, self.value(rest.trim_end_matches(']'))?))
    }

    fn header(&mut self) -> Result<(), ParseError> {
        let Some(h) = self.next() else { return self.err("empty text") };
        let Some(rest) = h.strip_prefix("kernel ") else { return self.err("expected `kernel NAME(...) {`") };
        let Some((name, params)) = rest.split_once('(') else { return self.err("expected `(`") };
        let Some(params) = params.strip_suffix(" {") else { return self.err("expected `) {`") };
        let (params, max_threads) = match params.rsplit_once(") max_threads(") {
            Some((p, t)) => {
                let inner = t.strip_suffix(')').unwrap_or("");
                let (t_s, m_s) = inner.split_once(", ").unwrap_or((inner, "0"));
                match (t_s.parse::<u32>(), m_s.parse::<u32>()) {
                    (Ok(t), Ok(m)) => (p, Some((t, m))),
                    _ => return self.err(format!("bad `max_threads({t}`")),
                }
            }
            None => match params.strip_suffix(')') {
                Some(p) => (p, None),
                None => return self.err("expected `) {`"),
            },
        };
        self.b = Builder::new(name);
        if let Some((t, m)) = max_threads {
            self.b.set_launch_bounds(t, m);
        }
        for p in params.split(", ").filter(|p| !p.is_empty()) {
            let Some((pname, ty)) = p.split_once(": ") else {
                return self.err(format!("bad parameter `{p}`"));
            };
            let slice = |t: &str| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')).and_then(scalar);
            if let Some(e) = ty.strip_prefix("&mut ").and_then(slice) {
                let m = self.b.slice_param(pname, e, true);
                self.params.push((pname.into(), None, Some(m)));
                self.mems.push((pname.into(), m));
            } else if let Some(e) = ty.strip_prefix('&').and_then(slice) {
                let m = self.b.slice_param(pname, e, false);
                self.params.push((pname.into(), None, Some(m)));
                self.mems.push((pname.into(), m));
            } else if let Some(t) = scalar(ty) {
                let v = self.b.scalar_param(pname, t);
                self.params.push((pname.into(), Some(v), None));
            } else {
                return self.err(format!("bad parameter type `{ty}`"));
            }
        }
        Ok(())
    }

    fn decls(&mut self) -> Result<(), ParseError> {
        while let Some(l) = self.lines.get(self.pos).map(|l| l.1) {
            let (space, rest) = match l.split_once(' ') {
                Some(("shared", r)) => ("shared", r),
                Some(("local", r)) => ("local", r),
                Some(("var", r)) => ("var", r),
                _ => return Ok(()),
            };
            self.pos += 1;
            let Some((name, ty)) = rest.split_once(": ") else { return self.err("expected `name: type`") };
            if space == "var" {
                let Some((vname, _)) = name.trim_start_matches('$').rsplit_once('.') else {
                    return self.err("expected `$name.N`");
                };
                let Some(t) = parse_type(ty) else { return self.err(format!("bad type `{ty}`")) };
                let v = self.b.var(vname, t);
                self.vars.push(v);
                continue;
            }
            let inner = ty.trim_start_matches('[').trim_end_matches(']');
            let (elem, len) = match inner.split_once("; ") {
                Some((e, n)) => (e, n.parse::<u32>().ok()),
                None => (inner, None),
            };
            let Some(elem) = scalar(elem) else { return self.err(format!("bad element type `{elem}`")) };
            let memspace = match (space, len) {
                ("shared", Some(len)) => MemSpace::Shared { len },
                ("shared", None) => MemSpace::DynShared,
                (_, Some(len)) => MemSpace::Local { len },
                _ => return self.err("a local array needs a length"),
            };
            let mname = name.trim_start_matches('@');
            let m = self.b.add_mem(mname, elem, memspace);
            self.mems.push((mname.into(), m));
        }
        Ok(())
    }

    fn check(&self) -> Result<(), ParseError> {
        if self.b.has_error() {
            let line = self.lines.get(self.pos.saturating_sub(1)).map(|l| l.0).unwrap_or(0);
            let e = self.b.clone_error().unwrap_or(BuildError::Unbalanced { what: "unknown" });
            return Err(ParseError::Build { line, source: e });
        }
        Ok(())
    }

    /// Parses instructions until a line starting with `}`; returns that line.
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

    fn inst(&mut self, l: &'a str) -> Result<(), ParseError> {
        let (result, body) = match l.split_once(" = ") {
            Some((lhs, rhs)) if lhs.starts_with('%') => {
                let Some((v, ty)) = lhs.split_once(": ") else { return self.err("expected `%N: type`") };
                let n = v.trim_start_matches('%').parse::<u32>().ok();
                let Some(t) = parse_type(ty) else { return self.err(format!("bad type `{ty}`")) };
                (Some((n, t)), rhs)
            }
            _ => (None, l),
        };
        let (op, args) = body.split_once(' ').unwrap_or((body, ""));
        let list: Vec<&str> = if args.is_empty() { vec![] } else { args.split(", ").collect() };
        let ty = result.map(|r| r.1);
        let elem = ty.map(|t| t.elem()).unwrap_or(ScalarType::U32);
        let got: Option<Value> = match op {
            "const" => {
                let Some(bits) = const_bits(elem, args) else {
                    return self.err(format!("bad constant `{args}`"));
                };
                Some(self.b.constant(elem, bits))
            }
            "param" => match self.params.iter().find(|p| p.0 == args) {
                Some((_, Some(v), _)) => {
                    // Emitted with the header; the text repeats it in place.
                    let v = *v;
                    if result.and_then(|r| r.0) != Some(v.0) {
                        return self.err("scalar parameters are numbered in header order");
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
                let (kind, ax) = args.split_once('.').unwrap_or((args, ""));
                let s = match (kind, axis(ax)) {
                    ("thread_idx", Some(a)) => Special::ThreadIdx(a),
                    ("block_idx", Some(a)) => Special::BlockIdx(a),
                    ("block_dim", Some(a)) => Special::BlockDim(a),
                    ("grid_dim", Some(a)) => Special::GridDim(a),
                    ("lane_id", None) => Special::LaneId,
                    ("warp_size", None) => Special::WarpSize,
                    _ => return self.err(format!("unknown special `{args}`")),
                };
                Some(self.b.special(s))
            }
            "len" => {
                let m = self.mem(args)?;
                Some(self.b.len(m))
            }
            "select" | "fma" => {
                let [a, b, c] = [
                    self.value(list.first().copied().unwrap_or(""))?,
                    self.value(list.get(1).copied().unwrap_or(""))?,
                    self.value(list.get(2).copied().unwrap_or(""))?,
                ];
                Some(if op == "select" { self.b.select(a, b, c) } else { self.b.fma(a, b, c) })
            }
            "cast" => {
                let a = self.value(args)?;
                Some(self.b.cast(a, elem))
            }
            "bitcast" => {
                let a = self.value(args)?;
                Some(self.b.bitcast(a, elem))
            }
            "vector" => {
                let parts = list.iter().map(|p| self.value(p)).collect::<Result<Vec<_>, _>>()?;
                Some(self.b.make_vector(&parts))
            }
            "extract" => {
                let v = self.value(list.first().copied().unwrap_or(""))?;
                let Ok(k) = list.get(1).copied().unwrap_or("").parse::<u8>() else {
                    return self.err("bad lane");
                };
                Some(self.b.extract(v, k))
            }
            "read" => {
                let v = self.var(args)?;
                Some(self.b.read_var(v))
            }
            "write" => {
                let (v, x) = (
                    self.var(list.first().copied().unwrap_or(""))?,
                    self.value(list.get(1).copied().unwrap_or(""))?,
                );
                self.b.write_var(v, x);
                None
            }
            "load" => {
                let (m, i) = self.mem_index(args)?;
                Some(self.b.load(m, i, ty.map(|t| t.lanes() as u8).unwrap_or(1)))
            }
            "store" => {
                let Some((target, v)) = args.rsplit_once(", ") else {
                    return self.err("expected `@m[%i], %v`");
                };
                let (m, i) = self.mem_index(target)?;
                let v = self.value(v)?;
                self.b.store(m, i, v);
                None
            }
            "barrier" => {
                self.b.barrier();
                None
            }
            "return" => {
                self.b.return_();
                None
            }
            "break" | "continue" => {
                let Ok(d) = args.parse::<u32>() else { return self.err("expected a depth") };
                if op == "break" {
                    self.b.break_(d)
                } else {
                    self.b.continue_(d)
                }
                None
            }
            "if" => {
                let c = self.value(args.trim_end_matches(" {"))?;
                self.b.begin_if(c);
                let end = self.block()?;
                if end == "} else {" {
                    self.b.begin_else();
                    self.block()?;
                }
                self.b.end_if();
                None
            }
            "loop" => {
                self.b.begin_loop();
                let end = self.block()?;
                if end == "} latch {" {
                    self.b.begin_latch();
                    self.block()?;
                }
                self.b.end_loop();
                None
            }
            _ => return self.dotted(op, args, &list, ty, result.map(|r| r.0)),
        };
        self.numbered(got, result.and_then(|r| r.0))
    }

    fn numbered(&self, got: Option<Value>, want: Option<u32>) -> Result<(), ParseError> {
        match (got, want) {
            (Some(g), Some(w)) if g.0 != w => {
                self.err(format!("value %{w} would be %{}: values must be numbered in order", g.0))
            }
            _ => Ok(()),
        }
    }

    /// Ops whose name carries a suffix (`cmp.lt`, `atomic.add`, ...) or a plain unary/binary name.
    fn dotted(
        &mut self,
        op: &str,
        args: &str,
        list: &[&str],
        ty: Option<Type>,
        want: Option<Option<u32>>,
    ) -> Result<(), ParseError> {
        let want = want.flatten();
        let (head, tail) = op.split_once('.').unwrap_or((op, ""));
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
        const ATOMIC: [(&str, AtomicOp); 9] = [
            ("add", AtomicOp::Add),
            ("sub", AtomicOp::Sub),
            ("min", AtomicOp::Min),
            ("max", AtomicOp::Max),
            ("and", AtomicOp::And),
            ("or", AtomicOp::Or),
            ("xor", AtomicOp::Xor),
            ("exch", AtomicOp::Exch),
            ("cas", AtomicOp::Cas),
        ];
        let got = if let (Some(i), "") = (find(&UNARY, op), tail) {
            let a = self.value(args)?;
            Some(self.b.unary(UNARY[i].1, a))
        } else if let (Some(i), "") = (find(&BINARY, op), tail) {
            let (a, b) = (
                self.value(list.first().copied().unwrap_or(""))?,
                self.value(list.get(1).copied().unwrap_or(""))?,
            );
            Some(self.b.binary(BINARY[i].1, a, b))
        } else if let (Some(i), "cmp") = (find(&CMP, tail), head) {
            let (a, b) = (
                self.value(list.first().copied().unwrap_or(""))?,
                self.value(list.get(1).copied().unwrap_or(""))?,
            );
            Some(self.b.cmp(CMP[i].1, a, b))
        } else if let (Some(i), "atomic") = (find(&ATOMIC, tail), head) {
            let Some((target, rest)) = args.split_once("], ") else {
                return self.err("expected `@m[%i], %v`");
            };
            let (m, idx) = self.mem_index(&format!("{target}]"))?;
            let vals: Vec<&str> = rest.split(", ").collect();
            let v = self.value(vals.first().copied().unwrap_or(""))?;
            let c = match vals.get(1) {
                Some(c) => Some(self.value(c)?),
                None => None,
            };
            Some(self.b.atomic(ATOMIC[i].1, m, idx, v, c))
        } else if head == "shuffle" {
            let mode = match tail {
                "idx" => ShuffleMode::Idx,
                "up" => ShuffleMode::Up,
                "down" => ShuffleMode::Down,
                "xor" => ShuffleMode::Xor,
                _ => return self.err(format!("unknown shuffle `{tail}`")),
            };
            let (v, l) = (
                self.value(list.first().copied().unwrap_or(""))?,
                self.value(list.get(1).copied().unwrap_or(""))?,
            );
            Some(self.b.shuffle(mode, v, l))
        } else if head == "vote" {
            let mode = match tail {
                "any" => VoteMode::Any,
                "all" => VoteMode::All,
                "ballot" => VoteMode::Ballot,
                _ => return self.err(format!("unknown vote `{tail}`")),
            };
            let p = self.value(args)?;
            Some(self.b.vote(mode, p))
        } else if head == "fence" {
            let s = match tail {
                "block" => FenceScope::Block,
                "device" => FenceScope::Device,
                "system" => FenceScope::System,
                _ => return self.err(format!("unknown fence `{tail}`")),
            };
            self.b.fence(s);
            None
        } else if op.starts_with("mma.m16n8k16.") {
            let Some(e) = scalar(op.trim_start_matches("mma.m16n8k16.")) else {
                return self.err("bad mma type");
            };
            let vals = list.iter().map(|v| self.value(v)).collect::<Result<Vec<_>, _>>()?;
            self.b.intrinsic(Intrinsic::MmaM16N8K16 { elem: e }, vals, ty)
        } else if head == "ldmatrix" {
            let trans = tail.ends_with(".trans");
            let Ok(num) = tail.trim_end_matches(".trans").trim_start_matches('x').parse::<u8>() else {
                return self.err("bad ldmatrix count");
            };
            let (m, i) = self.mem_index(args)?;
            self.b.intrinsic(Intrinsic::LdMatrix { mem: m, num, trans }, vec![i], ty)
        } else if head == "cp_async" {
            match tail {
                "commit" => self.b.intrinsic(Intrinsic::CpAsyncCommit, vec![], None),
                "wait" => {
                    let Ok(pending) = args.parse::<u32>() else { return self.err("bad wait count") };
                    self.b.intrinsic(Intrinsic::CpAsyncWait { pending }, vec![], None)
                }
                bytes => {
                    let Ok(bytes) = bytes.parse::<u8>() else { return self.err("bad cp.async size") };
                    let Some((d, s)) = args.split_once("], ") else {
                        return self.err("expected two operands");
                    };
                    let (dm, di) = self.mem_index(&format!("{d}]"))?;
                    let (sm, si) = self.mem_index(s)?;
                    self.b.intrinsic(Intrinsic::CpAsync { dst: dm, src: sm, bytes }, vec![di, si], None)
                }
            }
        } else {
            return self.err(format!("unknown instruction `{op}`"));
        };
        self.numbered(got, want)
    }
}

fn find<T>(table: &[(&str, T)], k: &str) -> Option<usize> {
    table.iter().position(|(n, _)| *n == k)
}

/// Parses the text form of a function (as printed by `Display`).
pub fn parse(text: &str) -> Result<Function, ParseError> {
    let lines: Vec<(usize, &str)> =
        text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty()).collect();
    let mut p =
        Parser { lines, pos: 0, b: Builder::new(""), params: Vec::new(), mems: Vec::new(), vars: Vec::new() };
    p.header()?;
    p.decls()?;
    p.block()?;
    if p.pos < p.lines.len() {
        p.pos += 1;
        return p.err("text after the end of the kernel");
    }
    let line = p.lines.last().map(|l| l.0).unwrap_or(0);
    p.b.finish().map_err(|source| ParseError::Build { line, source })
}
