//! ferrocm's PTX code generator: kernel IR in, PTX assembly text out, for the NVIDIA driver's
//! JIT (`cuModuleLoadDataEx`); no CUDA toolkit is involved.
//!
//! Design (after tinygrad's PTX renderer): lowering is table-driven. `class` maps each scalar
//! type to a register class, `sfx` to the PTX type suffix, and the op tables (`BINARY`,
//! `UNARY`, `CMP`) map IR ops to instruction templates; a few rewrite rules cover what PTX has no
//! single instruction for (half-precision arithmetic goes through f32, f64 `exp`/`ln`/`sin`/`cos`
//! through [`ferrocm_ir::expand_f64_math`]'s f64 sequences, other f64 transcendentals through
//! f32, `pow`, float remainder). Structured control flow becomes labels and `bra`.
//!
//! Invariants of the generated code: integers narrower than 32 bits live in 32-bit registers,
//! sign- or zero-extended according to their type after every instruction; `f16`/`bf16` live in
//! `.b16` registers; `bool` lives in predicates and is stored in memory as one byte. Float `add`,
//! `sub` and `mul` carry `.rn` so ptxas never contracts them into an `fma` the CPU executor would
//! not do. Accuracy of the math functions is listed in `ferrocm_kernel::dsl`.
//!
//! Targets: PTX is generated for a device's [`Target`]: `.target` is its architecture (`sm_90a` on
//! compute capability 9.0, so `wgmma` and `setmaxnreg` assemble), `.version` the lowest PTX ISA
//! version the architecture and the instructions used need, which must not exceed what the
//! driver takes; an intrinsic whose feature the target lacks is an error naming both. Intrinsics
//! are lowered by filling their row's template (`ferrocm_ir::intrinsics`).
//!
//! Launch ABI: a scalar parameter is one `.param`; a slice is two, its address (`.u64`) and its
//! length in elements (`.u64`); a tensor map is a 64-byte-aligned 128-byte `.param` whose generic
//! address (`cvta.param`) TMA instructions take.

use std::collections::HashMap;
use std::fmt::Write;

use ferrocm_backend::{Feature, Isa, Target};
use ferrocm_ir::intrinsics::Call;
use ferrocm_ir::*;

/// Why PTX could not be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PtxError {
    #[error("kernel `{kernel}` is invalid IR: {source}")]
    Invalid { kernel: String, source: VerifyError },
    #[error("kernel `{kernel}`: {what} is not supported by the PTX back end")]
    Unsupported { kernel: String, what: String },
    #[error("kernel `{kernel}`: {what} needs {feature} ({min_arch} or newer), but the target is {target}")]
    MissingFeature { kernel: String, what: String, feature: Feature, min_arch: &'static str, target: String },
    #[error(
        "kernel `{kernel}`: {what} needs PTX ISA {}.{}, but the driver takes at most {}.{}",
        needs.0, needs.1, max.0, max.1
    )]
    PtxVersion { kernel: String, what: String, needs: (u32, u32), max: (u32, u32) },
    #[error("kernel `{kernel}`: the PTX back end cannot generate code for {target}")]
    WrongTarget { kernel: String, target: String },
    #[error(transparent)]
    Limit(#[from] LimitError),
}

/// The PTX ISA version that introduced an architecture (`.target sm_90a` needs 8.0).
fn arch_ptx_version(arch: &str) -> (u32, u32) {
    const TABLE: &[(&str, (u32, u32))] = &[
        ("sm_80", (7, 0)),
        ("sm_86", (7, 1)),
        ("sm_87", (7, 4)),
        ("sm_89", (7, 8)),
        ("sm_90", (7, 8)),
        ("sm_90a", (8, 0)),
        ("sm_100", (8, 6)),
        ("sm_100a", (8, 6)),
        ("sm_101", (8, 6)),
        ("sm_101a", (8, 6)),
        ("sm_120", (8, 7)),
        ("sm_120a", (8, 7)),
    ];
    TABLE.iter().find(|(a, _)| *a == arch).map(|(_, v)| *v).unwrap_or((7, 0))
}

/// The oldest PTX ISA version every kernel's code needs (the sm_80 instructions the core ops
/// use: `bf16` conversions, `tanh.approx`, `shfl.sync`, `activemask`).
const BASE_PTX_VERSION: (u32, u32) = (7, 0);

/// An NVIDIA target for an architecture name such as `"sm_80"` or `"sm_90a"`, as a driver of the
/// newest known PTX version would report it (for generating PTX without a device).
pub fn target_for_arch(arch: &str) -> Target {
    let digits: String = arch.trim_start_matches("sm_").chars().take_while(|c| c.is_ascii_digit()).collect();
    let sm: u32 = digits.parse().unwrap_or(80);
    let mut t = Target::nvidia((sm / 10, sm % 10), 13000);
    // `Target::nvidia` picks `sm_90a` on 9.0; an explicit `sm_90` asks for the portable set.
    if arch == format!("sm_{sm}") && t.arch != arch {
        t.arch = arch.to_string();
        t.features = Feature::ALL.iter().copied().filter(|f| f.on_nvidia(sm, false)).collect();
    }
    t
}

/// Register classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Pred,
    B16,
    B32,
    B64,
    F32,
    F64,
}

const CLASSES: [(Class, &str, &str); 6] = [
    (Class::Pred, "pred", "p"),
    (Class::B16, "b16", "h"),
    (Class::B32, "b32", "r"),
    (Class::B64, "b64", "rd"),
    (Class::F32, "f32", "f"),
    (Class::F64, "f64", "fd"),
];

fn class(t: ScalarType) -> Class {
    use ScalarType::*;
    match t {
        Bool => Class::Pred,
        F16 | BF16 => Class::B16,
        I8 | I16 | I32 | U8 | U16 | U32 => Class::B32,
        I64 | U64 => Class::B64,
        F32 => Class::F32,
        F64 => Class::F64,
    }
}

/// The PTX type suffix of an arithmetic instruction on `t` (narrow integers compute in 32 bits).
fn sfx(t: ScalarType) -> &'static str {
    use ScalarType::*;
    match t {
        Bool => "pred",
        I8 | I16 | I32 => "s32",
        U8 | U16 | U32 => "u32",
        I64 => "s64",
        U64 => "u64",
        F16 | BF16 => "b16",
        F32 => "f32",
        F64 => "f64",
    }
}

/// The type suffix of a memory access to an element of type `t`.
fn mem_sfx(t: ScalarType) -> &'static str {
    use ScalarType::*;
    match t {
        Bool | U8 => "u8",
        I8 => "s8",
        I16 => "s16",
        U16 => "u16",
        I32 => "s32",
        U32 => "u32",
        I64 => "s64",
        U64 => "u64",
        F16 | BF16 => "b16",
        F32 => "f32",
        F64 => "f64",
    }
}

fn bits_sfx(t: ScalarType) -> &'static str {
    match class(t) {
        Class::B64 | Class::F64 => "b64",
        Class::B16 => "b16",
        _ => "b32",
    }
}

/// Integer and float mnemonics of each binary op (`None`: needs a rewrite rule).
const BINARY: &[(BinaryOp, Option<&str>, Option<&str>)] = &[
    (BinaryOp::Add, Some("add"), Some("add.rn")),
    (BinaryOp::Sub, Some("sub"), Some("sub.rn")),
    (BinaryOp::Mul, Some("mul.lo"), Some("mul.rn")),
    (BinaryOp::Div, Some("div"), Some("div.rn")),
    (BinaryOp::Rem, Some("rem"), None),
    (BinaryOp::Min, Some("min"), Some("min")),
    (BinaryOp::Max, Some("max"), Some("max")),
    (BinaryOp::And, Some("and"), None),
    (BinaryOp::Or, Some("or"), None),
    (BinaryOp::Xor, Some("xor"), None),
    (BinaryOp::Shl, Some("shl"), None),
    (BinaryOp::Shr, Some("shr"), None),
    (BinaryOp::Pow, None, None),
    (BinaryOp::MulHi, Some("mul.hi"), None),
    (BinaryOp::MulWide, Some("mul.wide"), None),
];

/// Integer bit operations (32- and 64-bit operands): a template where `{w}` is the width
/// (`b32`/`b64`), `{d}` the result (a `u32` for counts) and `{a}` the operand. PTX has no
/// count of trailing zeros, so it is the leading zeros of the reversed bits.
const UNARY_BITS: &[(UnaryOp, &str)] = &[
    (UnaryOp::LeadingZeros, "clz.{w} {d}, {a};"),
    (UnaryOp::TrailingZeros, "brev.{w} {t}, {a};\n\tclz.{w} {d}, {t};"),
    (UnaryOp::CountOnes, "popc.{w} {d}, {a};"),
    (UnaryOp::ReverseBits, "brev.{w} {d}, {a};"),
];

/// f32 unary math: a template where `{d}` is the result and `{a}` the operand.
const UNARY_F32: &[(UnaryOp, &str)] = &[
    (UnaryOp::Neg, "neg.f32 {d}, {a};"),
    (UnaryOp::Abs, "abs.f32 {d}, {a};"),
    (UnaryOp::Sqrt, "sqrt.rn.f32 {d}, {a};"),
    (UnaryOp::SqrtApprox, "sqrt.approx.ftz.f32 {d}, {a};"),
    (UnaryOp::Rsqrt, "sqrt.rn.f32 {d}, {a};\n\trcp.rn.f32 {d}, {d};"),
    (UnaryOp::Exp, "mul.rn.f32 {d}, {a}, 0f3FB8AA3B;\n\tex2.approx.f32 {d}, {d};"),
    (UnaryOp::Exp2, "ex2.approx.f32 {d}, {a};"),
    (UnaryOp::Log, "lg2.approx.f32 {d}, {a};\n\tmul.rn.f32 {d}, {d}, 0f3F317218;"),
    (UnaryOp::Log2, "lg2.approx.f32 {d}, {a};"),
    (UnaryOp::Sin, "sin.approx.f32 {d}, {a};"),
    (UnaryOp::Cos, "cos.approx.f32 {d}, {a};"),
    (UnaryOp::Tanh, "tanh.approx.f32 {d}, {a};"),
    (UnaryOp::Floor, "cvt.rmi.f32.f32 {d}, {a};"),
    (UnaryOp::Ceil, "cvt.rpi.f32.f32 {d}, {a};"),
];

/// f64 ops with a native instruction; `exp`, `ln`, `sin`, `cos` are expanded before lowering
/// and the other transcendentals go through f32.
const UNARY_F64: &[(UnaryOp, &str)] = &[
    (UnaryOp::Neg, "neg.f64 {d}, {a};"),
    (UnaryOp::Abs, "abs.f64 {d}, {a};"),
    (UnaryOp::Sqrt, "sqrt.rn.f64 {d}, {a};"),
    (UnaryOp::SqrtApprox, "sqrt.rn.f64 {d}, {a};"),
    (UnaryOp::Rsqrt, "sqrt.rn.f64 {d}, {a};\n\trcp.rn.f64 {d}, {d};"),
    (UnaryOp::Floor, "cvt.rmi.f64.f64 {d}, {a};"),
    (UnaryOp::Ceil, "cvt.rpi.f64.f64 {d}, {a};"),
];

const CMP: &[(CmpOp, &str, &str)] = &[
    (CmpOp::Eq, "eq", "eq"),
    (CmpOp::Ne, "ne", "neu"),
    (CmpOp::Lt, "lt", "lt"),
    (CmpOp::Le, "le", "le"),
    (CmpOp::Gt, "gt", "gt"),
    (CmpOp::Ge, "ge", "ge"),
];

fn fill(t: &str, d: &str, a: &str) -> String {
    t.replace("{d}", d).replace("{a}", a)
}

struct Gen<'a> {
    f: &'a Function,
    out: String,
    counts: [u32; 6],
    vals: Vec<Vec<String>>,
    vars: Vec<Vec<String>>,
    /// (address register, length register) of each global memory; symbol of shared/local ones.
    mem_base: Vec<String>,
    mem_len: Vec<String>,
    /// Labels (latch, exit) of the enclosing loops, innermost last.
    loops: Vec<(String, String)>,
    labels: u32,
    /// `u64` values that are a zero-extended `u32` (by the index of the value): the `u32`.
    widened: HashMap<u32, Value>,
    /// `u64` sums `a + j` with `j` a zero-extended `u32` (see [`Gen::address`]): `(a, j)`.
    wide_sums: HashMap<u32, (Value, Value)>,
    /// Values used only as indices of global loads and stores (see [`index_only_values`]).
    index_only: std::collections::HashSet<u32>,
}

/// The values whose every use is as the index of a global load or store. [`Gen::address`]
/// splits only those: an index also used otherwise (a bounds check) is computed anyway, and
/// its one product is then cheaper than the split.
fn index_only_values(f: &Function) -> std::collections::HashSet<u32> {
    let (mut uses, mut index_uses) = (HashMap::<u32, u32>::new(), HashMap::<u32, u32>::new());
    for inst in f.regions.iter().flatten() {
        for v in inst.op.operands() {
            *uses.entry(v.0).or_default() += 1;
        }
        if let Op::Load { mem, index } | Op::Store { mem, index, .. } = &inst.op {
            if matches!(f.mem(*mem).space, MemSpace::Global { .. }) {
                *index_uses.entry(index.0).or_default() += 1;
            }
        }
    }
    index_uses.into_iter().filter(|(v, n)| uses.get(v) == Some(n)).map(|(v, _)| v).collect()
}

impl Gen<'_> {
    fn reg(&mut self, c: Class) -> String {
        let i = CLASSES.iter().position(|(k, _, _)| *k == c).unwrap_or(0);
        self.counts[i] += 1;
        format!("%{}{}", CLASSES[i].2, self.counts[i])
    }

    fn regs_for(&mut self, t: Type) -> Vec<String> {
        (0..t.lanes()).map(|_| self.reg(class(t.elem()))).collect()
    }

    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("$L_{what}_{}", self.labels)
    }

    fn line(&mut self, s: impl AsRef<str>) {
        for l in s.as_ref().lines() {
            self.out.push('\t');
            self.out.push_str(l.trim_start_matches('\t'));
            self.out.push('\n');
        }
    }

    fn v(&self, v: Value) -> String {
        self.vals[v.0 as usize][0].clone()
    }

    fn ty(&self, v: Value) -> ScalarType {
        self.f.value_type(v).elem()
    }

    fn unsupported(&self, what: impl Into<String>) -> PtxError {
        PtxError::Unsupported { kernel: self.f.name.clone(), what: what.into() }
    }

    /// Re-establishes the narrow-integer invariant of register `r` of type `t`.
    fn normalize(&mut self, t: ScalarType, r: &str) {
        match t {
            ScalarType::I8 => self.line(format!("bfe.s32 {r}, {r}, 0, 8;")),
            ScalarType::I16 => self.line(format!("bfe.s32 {r}, {r}, 0, 16;")),
            ScalarType::U8 => self.line(format!("and.b32 {r}, {r}, 255;")),
            ScalarType::U16 => self.line(format!("and.b32 {r}, {r}, 65535;")),
            _ => {}
        }
    }

    /// Converts a half (`.b16`) register to a fresh f32 register.
    fn half_to_f32(&mut self, t: ScalarType, h: &str) -> String {
        let f = self.reg(Class::F32);
        if t == ScalarType::BF16 {
            let r = self.reg(Class::B32);
            self.line(format!("cvt.u32.u16 {r}, {h};\n\tshl.b32 {r}, {r}, 16;\n\tmov.b32 {f}, {r};"));
        } else {
            self.line(format!("cvt.f32.f16 {f}, {h};"));
        }
        f
    }

    fn f32_to_half(&mut self, t: ScalarType, f: &str, h: &str) {
        let ty = if t == ScalarType::BF16 { "bf16" } else { "f16" };
        self.line(format!("cvt.rn.{ty}.f32 {h}, {f};"));
    }

    /// Runs `body` on f32 copies of half or f64 operands and converts the result back to `t`.
    fn via_f32(
        &mut self,
        t: ScalarType,
        args: &[String],
        d: &str,
        body: impl FnOnce(&mut Self, &[String], &str),
    ) {
        let fargs: Vec<String> = args
            .iter()
            .map(|a| match t {
                ScalarType::F16 | ScalarType::BF16 => self.half_to_f32(t, a),
                ScalarType::F64 => {
                    let f = self.reg(Class::F32);
                    self.line(format!("cvt.rn.f32.f64 {f}, {a};"));
                    f
                }
                _ => a.clone(),
            })
            .collect();
        let fd = if t == ScalarType::F32 { d.to_string() } else { self.reg(Class::F32) };
        body(self, &fargs, &fd);
        match t {
            ScalarType::F16 | ScalarType::BF16 => self.f32_to_half(t, &fd, d),
            ScalarType::F64 => self.line(format!("cvt.f64.f32 {d}, {fd};")),
            _ => {}
        }
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        t: ScalarType,
        bt: ScalarType,
        a: &str,
        b: &str,
        d: &str,
    ) -> Result<(), PtxError> {
        let row = BINARY.iter().find(|r| r.0 == op).map(|r| (r.1, r.2)).unwrap_or((None, None));
        if t == ScalarType::Bool {
            let m = match op {
                BinaryOp::And => "and",
                BinaryOp::Or => "or",
                BinaryOp::Xor => "xor",
                _ => return Err(self.unsupported(format!("{op:?} on bool"))),
            };
            self.line(format!("{m}.pred {d}, {a}, {b};"));
            return Ok(());
        }
        if t.is_int() {
            let m = row.0.ok_or_else(|| self.unsupported(format!("{op:?} on {t}")))?;
            match op {
                BinaryOp::Shl | BinaryOp::Shr => {
                    // The shift amount is a u32; wider amounts saturate to 2^32-1 so they still
                    // shift everything out.
                    let amt = match class(bt) {
                        Class::B64 => {
                            let r = self.reg(Class::B32);
                            let w = self.reg(Class::B64);
                            self.line(format!("min.u64 {w}, {b}, 4294967295;\n\tcvt.u32.u64 {r}, {w};"));
                            r
                        }
                        _ => b.to_string(),
                    };
                    let kind = if op == BinaryOp::Shl {
                        "shl.b".to_string()
                    } else {
                        format!("shr.{}", &sfx(t)[..1])
                    };
                    let width = if class(t) == Class::B64 { "64" } else { "32" };
                    self.line(format!("{kind}{width} {d}, {a}, {amt};"));
                }
                BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
                    self.line(format!("{m}.{} {d}, {a}, {b};", bits_sfx(t)));
                }
                _ => self.line(format!("{m}.{} {d}, {a}, {b};", sfx(t))),
            }
            self.normalize(t, d);
            return Ok(());
        }
        // Floats.
        match (op, row.1) {
            (BinaryOp::Pow, _) => {
                self.via_f32(t, &[a.into(), b.into()], d, |g, x, fd| {
                    g.line(format!("lg2.approx.f32 {fd}, {};\n\tmul.rn.f32 {fd}, {fd}, {};\n\tex2.approx.f32 {fd}, {fd};", x[0], x[1]));
                });
            }
            (BinaryOp::Rem, _) if t == ScalarType::F64 => {
                // a - trunc(a / b) * b, in f64.
                let q = self.reg(Class::F64);
                self.line(format!(
                    "div.rn.f64 {q}, {a}, {b};\n\tcvt.rzi.f64.f64 {q}, {q};\n\tneg.f64 {q}, {q};\n\tfma.rn.f64 {d}, {q}, {b}, {a};"
                ));
            }
            (BinaryOp::Rem, _) => {
                // a - trunc(a / b) * b
                self.via_f32(t, &[a.into(), b.into()], d, |g, x, fd| {
                    g.line(format!(
                        "div.rn.f32 {fd}, {0}, {1};\n\tcvt.rzi.f32.f32 {fd}, {fd};\n\tneg.f32 {fd}, {fd};\n\tfma.rn.f32 {fd}, {fd}, {1}, {0};",
                        x[0], x[1]
                    ));
                });
            }
            (_, Some(m)) if t == ScalarType::F32 || t == ScalarType::F64 => {
                self.line(format!("{m}.{} {d}, {a}, {b};", sfx(t)))
            }
            (_, Some(m)) => self.via_f32(t, &[a.into(), b.into()], d, |g, x, fd| {
                g.line(format!("{m}.f32 {fd}, {}, {};", x[0], x[1]))
            }),
            (_, None) => return Err(self.unsupported(format!("{op:?} on {t}"))),
        }
        Ok(())
    }

    fn unary(&mut self, op: UnaryOp, t: ScalarType, a: &str, d: &str) -> Result<(), PtxError> {
        if t == ScalarType::Bool {
            self.line(format!("not.pred {d}, {a};"));
            return Ok(());
        }
        if t.is_int() {
            match op {
                UnaryOp::Neg => self.line(format!("neg.{} {d}, {a};", sfx(t).replace('u', "s"))),
                UnaryOp::Not => self.line(format!("not.{} {d}, {a};", bits_sfx(t))),
                UnaryOp::Abs => self.line(format!("abs.{} {d}, {a};", sfx(t))),
                _ => {
                    let tpl = UNARY_BITS
                        .iter()
                        .find(|r| r.0 == op)
                        .map(|r| r.1)
                        .ok_or_else(|| self.unsupported(format!("{op:?} on {t}")))?;
                    // The scratch register holds the reversed operand, so it has its class.
                    let scratch = if tpl.contains("{t}") { self.reg(class(t)) } else { String::new() };
                    self.line(fill(tpl, d, a).replace("{w}", bits_sfx(t)).replace("{t}", &scratch));
                    return Ok(());
                }
            }
            self.normalize(t, d);
            return Ok(());
        }
        if t == ScalarType::F64 {
            if let Some((_, tpl)) = UNARY_F64.iter().find(|r| r.0 == op) {
                self.line(fill(tpl, d, a));
                return Ok(());
            }
        }
        let tpl = UNARY_F32
            .iter()
            .find(|r| r.0 == op)
            .map(|r| r.1)
            .ok_or_else(|| self.unsupported(format!("{op:?} on {t}")))?;
        self.via_f32(t, &[a.into()], d, |g, x, fd| g.line(fill(tpl, fd, &x[0])));
        Ok(())
    }

    fn cmp(&mut self, op: CmpOp, t: ScalarType, a: &str, b: &str, d: &str) {
        let row = CMP.iter().find(|r| r.0 == op).copied().unwrap_or(CMP[0]);
        match t {
            ScalarType::Bool => {
                let (x, y) = (self.reg(Class::B32), self.reg(Class::B32));
                self.line(format!(
                    "selp.u32 {x}, 1, 0, {a};\n\tselp.u32 {y}, 1, 0, {b};\n\tsetp.{}.u32 {d}, {x}, {y};",
                    row.1
                ));
            }
            ScalarType::F16 | ScalarType::BF16 => {
                let (x, y) = (self.half_to_f32(t, a), self.half_to_f32(t, b));
                self.line(format!("setp.{}.f32 {d}, {x}, {y};", row.2));
            }
            _ if t.is_float() => self.line(format!("setp.{}.{} {d}, {a}, {b};", row.2, sfx(t))),
            _ => self.line(format!("setp.{}.{} {d}, {a}, {b};", row.1, sfx(t))),
        }
    }

    fn cast(&mut self, from: ScalarType, to: ScalarType, a: &str, d: &str) -> Result<(), PtxError> {
        use ScalarType::*;
        if from == to {
            let c = CLASSES.iter().find(|c| c.0 == class(to)).map(|c| c.1).unwrap_or("b32");
            self.line(format!("mov.{c} {d}, {a};"));
            return Ok(());
        }
        // Half sources go through f32.
        if matches!(from, F16 | BF16) {
            let f = self.half_to_f32(from, a);
            return self.cast(F32, to, &f, d);
        }
        match (from, to) {
            (Bool, _) if to.is_int() => self.line(format!(
                "selp.{} {d}, 1, 0, {a};",
                if class(to) == Class::B64 { "u64" } else { "u32" }
            )),
            (Bool, _) => return Err(self.unsupported(format!("cast from bool to {to}"))),
            (_, Bool) if from.is_float() => self.line(format!(
                "setp.neu.{} {d}, {a}, {};",
                sfx(from),
                if from == F64 { "0d0000000000000000" } else { "0f00000000" }
            )),
            (_, Bool) => self.line(format!("setp.ne.{} {d}, {a}, 0;", sfx(from))),
            (_, F16 | BF16) => {
                if from == F64 && to == F16 {
                    self.line(format!("cvt.rn.f16.f64 {d}, {a};"));
                } else {
                    let f = self.reg(Class::F32);
                    self.cast(from, F32, a, &f)?;
                    self.f32_to_half(to, &f, d);
                }
            }
            _ if from.is_int() && to.is_int() => {
                let (wf, wt) = (class(from) == Class::B64, class(to) == Class::B64);
                match (wf, wt) {
                    (false, false) => self.line(format!("mov.b32 {d}, {a};")),
                    (true, true) => self.line(format!("mov.b64 {d}, {a};")),
                    (true, false) => self.line(format!("cvt.u32.u64 {d}, {a};")),
                    (false, true) => self.line(format!("cvt.{}64.{} {d}, {a};", &sfx(from)[..1], sfx(from))),
                }
                self.normalize(to, d);
            }
            _ if from.is_int() => self.line(format!("cvt.rn.{}.{} {d}, {a};", sfx(to), sfx(from))),
            _ if to.is_int() => {
                // Saturating, round toward zero, NaN to 0: Rust's `as`.
                match to {
                    I8 | I16 | U8 | U16 => {
                        let (lo, hi) = match to {
                            I8 => (-128, 127),
                            I16 => (-32768, 32767),
                            U8 => (0, 255),
                            _ => (0, 65535),
                        };
                        self.line(format!(
                            "cvt.rzi.s32.{} {d}, {a};\n\tmax.s32 {d}, {d}, {lo};\n\tmin.s32 {d}, {d}, {hi};",
                            sfx(from)
                        ));
                    }
                    _ => self.line(format!("cvt.rzi.{}.{} {d}, {a};", sfx(to), sfx(from))),
                }
            }
            (F32, F64) => self.line(format!("cvt.f64.f32 {d}, {a};")),
            (F64, F32) => self.line(format!("cvt.rn.f32.f64 {d}, {a};")),
            _ => return Err(self.unsupported(format!("cast from {from} to {to}"))),
        }
        Ok(())
    }

    fn constant(&mut self, c: Const, d: &str) {
        use ScalarType::*;
        let s = match c.ty {
            Bool => format!("setp.ne.u32 {d}, {}, 0;", c.bits & 1),
            F16 | BF16 => format!("mov.b16 {d}, 0x{:04X};", c.bits as u16),
            F32 => format!("mov.f32 {d}, 0f{:08X};", c.bits as u32),
            F64 => format!("mov.f64 {d}, 0d{:016X};", c.bits),
            I8 | I16 | I32 => format!("mov.s32 {d}, {};", c.bits as u32 as i32),
            U8 | U16 | U32 => format!("mov.u32 {d}, {};", c.bits as u32),
            I64 => format!("mov.s64 {d}, {};", c.bits as i64),
            U64 => format!("mov.u64 {d}, {};", c.bits),
        };
        self.line(s);
    }

    /// The address of element `index` (`lanes` wide) of `mem` in a fresh 64-bit register.
    ///
    /// A global index `a + j` (`j` a zero-extended `u32`) used only as an index is addressed
    /// as `(base + a size) + j size`: the same address modulo 2^64, but the first part is the
    /// same for every access that shares `a` (ptxas computes it once), leaving one
    /// `mul.wide.u32`-and-add per access where the product of the whole 64-bit index costs
    /// five or more instructions (an FFT pass's ten loads of `row + j`).
    fn address(&mut self, mem: Mem, index: Value, lanes: u32) -> String {
        let m = self.f.mem(mem).clone();
        let bytes = m.elem.size() * lanes;
        if let (MemSpace::Global { .. }, Some(&(a, j))) = (&m.space, self.wide_sums.get(&index.0)) {
            let (av, jv) = (self.v(a), self.v(j));
            let base = self.mem_base[mem.0 as usize].clone();
            let (row, off, addr) = (self.reg(Class::B64), self.reg(Class::B64), self.reg(Class::B64));
            self.line(format!("mad.lo.s64 {row}, {av}, {bytes}, {base};"));
            self.line(format!("mul.wide.u32 {off}, {jv}, {bytes};"));
            self.line(format!("add.s64 {addr}, {row}, {off};"));
            return addr;
        }
        let it = self.ty(index);
        let iv = self.v(index);
        let off = self.reg(Class::B64);
        match class(it) {
            Class::B64 => self.line(format!("mul.lo.s64 {off}, {iv}, {bytes};")),
            _ => self.line(format!(
                "mul.wide.{} {off}, {iv}, {bytes};",
                if it.is_signed() { "s32" } else { "u32" }
            )),
        }
        let base = self.mem_base[mem.0 as usize].clone();
        let addr = self.reg(Class::B64);
        match m.space {
            MemSpace::Global { .. } => self.line(format!("add.s64 {addr}, {base}, {off};")),
            _ => {
                self.line(format!("mov.u64 {addr}, {base};\n\tadd.s64 {addr}, {addr}, {off};"));
            }
        }
        addr
    }

    /// The address of element `index` (`lanes` wide) of shared memory `mem` in a fresh 32-bit
    /// register, where the index is 32-bit: shared addresses are 32 bits, and in 32-bit
    /// arithmetic ptxas folds constant index offsets into the instruction's immediate offset
    /// (with a 64-bit address it cannot, not knowing that the index does not wrap).
    fn shared_address32(&mut self, mem: Mem, index: Value, lanes: u32) -> Option<String> {
        let m = self.f.mem(mem).clone();
        if !matches!(m.space, MemSpace::Shared { .. } | MemSpace::DynShared { .. }) {
            return None;
        }
        if class(self.ty(index)) != Class::B32 {
            return None;
        }
        let bytes = m.elem.size() * lanes;
        let iv = self.v(index);
        let base = self.mem_base[mem.0 as usize].clone();
        let addr = self.reg(Class::B32);
        self.line(format!("mov.u32 {addr}, {base};"));
        self.line(format!("mad.lo.u32 {addr}, {iv}, {bytes}, {addr};"));
        Some(addr)
    }

    /// The address of a load or store: 32-bit for shared memory with a 32-bit index.
    fn access_address(&mut self, mem: Mem, index: Value, lanes: u32) -> String {
        match self.shared_address32(mem, index, lanes) {
            Some(a) => a,
            None => self.address(mem, index, lanes),
        }
    }

    fn space(&self, mem: Mem) -> &'static str {
        match self.f.mem(mem).space {
            MemSpace::Global { .. } => "global",
            MemSpace::Shared { .. } | MemSpace::DynShared { .. } => "shared",
            MemSpace::Local { .. } => "local",
            MemSpace::TensorMap { .. } => "param",
            // Refused by `generate` before any code is emitted.
            MemSpace::Addressed(_) => "global",
        }
    }

    fn load(&mut self, mem: Mem, index: Value, dst: &[String]) {
        let elem = self.f.mem(mem).elem;
        let addr = self.access_address(mem, index, dst.len() as u32);
        let sp = self.space(mem);
        let ms = mem_sfx(elem);
        let regs: Vec<String> = if elem == ScalarType::Bool {
            dst.iter().map(|_| self.reg(Class::B32)).collect()
        } else {
            dst.to_vec()
        };
        if regs.len() == 1 {
            self.line(format!("ld.{sp}.{ms} {}, [{addr}];", regs[0]));
        } else if regs.len() == 4 && elem.size() == 8 {
            self.line(format!("ld.{sp}.v2.{ms} {{{}, {}}}, [{addr}];", regs[0], regs[1]));
            self.line(format!("ld.{sp}.v2.{ms} {{{}, {}}}, [{addr}+16];", regs[2], regs[3]));
        } else {
            self.line(format!("ld.{sp}.v{}.{ms} {{{}}}, [{addr}];", regs.len(), regs.join(", ")));
        }
        if elem == ScalarType::Bool {
            for (r, d) in regs.iter().zip(dst) {
                self.line(format!("setp.ne.u32 {d}, {r}, 0;"));
            }
        }
    }

    fn store(&mut self, mem: Mem, index: Value, src: &[String]) {
        let elem = self.f.mem(mem).elem;
        let addr = self.access_address(mem, index, src.len() as u32);
        let sp = self.space(mem);
        let ms = mem_sfx(elem);
        let regs: Vec<String> = if elem == ScalarType::Bool {
            src.iter()
                .map(|s| {
                    let r = self.reg(Class::B32);
                    self.line(format!("selp.u32 {r}, 1, 0, {s};"));
                    r
                })
                .collect()
        } else {
            src.to_vec()
        };
        if regs.len() == 1 {
            self.line(format!("st.{sp}.{ms} [{addr}], {};", regs[0]));
        } else if regs.len() == 4 && elem.size() == 8 {
            self.line(format!("st.{sp}.v2.{ms} [{addr}], {{{}, {}}};", regs[0], regs[1]));
            self.line(format!("st.{sp}.v2.{ms} [{addr}+16], {{{}, {}}};", regs[2], regs[3]));
        } else {
            self.line(format!("st.{sp}.v{}.{ms} [{addr}], {{{}}};", regs.len(), regs.join(", ")));
        }
    }

    /// Lowers an intrinsic call by filling its row's template (see `ferrocm_ir::intrinsics`).
    fn intrinsic(&mut self, call: &Call, args: &[Value], dst: &[String]) -> Result<(), PtxError> {
        let types: Vec<Type> = args.iter().map(|a| self.f.value_type(*a)).collect();
        let tpl = (call.def.ptx)(call, &types, self.f)
            .map_err(|e| self.unsupported(format!("`{}`: {e}", call.text_name())))?;
        let mut scratch: HashMap<String, String> = HashMap::new();
        let mut labels: HashMap<String, String> = HashMap::new();
        let mut out = String::with_capacity(tpl.len() + 64);
        let mut rest = tpl.as_str();
        let list = |regs: &[String]| {
            if regs.len() == 1 {
                regs[0].clone()
            } else {
                format!("{{{}}}", regs.join(", "))
            }
        };
        while let Some(i) = rest.find("$[") {
            out.push_str(&rest[..i]);
            let Some(j) = rest[i..].find(']') else { break };
            let hole = &rest[i + 2..i + j];
            rest = &rest[i + j + 1..];
            let bad = || self.unsupported(format!("`{}`: template hole `$[{hole}]`", call.text_name()));
            let operand = |s: &str, list_of: &[Vec<String>], ids: &[u32]| -> Option<(usize, Option<usize>)> {
                let (n, k) = match s.split_once('.') {
                    Some((n, k)) => (n.parse::<usize>().ok()?, Some(k.parse::<usize>().ok()?)),
                    None => (s.parse::<usize>().ok()?, None),
                };
                let id = *ids.get(n)? as usize;
                if let Some(k) = k {
                    list_of.get(id)?.get(k)?;
                }
                Some((id, k))
            };
            let text = if hole == "d" {
                list(dst)
            } else if let Some(k) = hole.strip_prefix("d.") {
                k.parse::<usize>().ok().and_then(|k| dst.get(k).cloned()).ok_or_else(bad)?
            } else if let Some(w) = hole.strip_prefix("w.") {
                call.word(w).to_string()
            } else if let Some(w) = hole.strip_prefix("i.") {
                call.imm(w).to_string()
            } else if let Some(t) = hole.strip_prefix("t.") {
                if !scratch.contains_key(t) {
                    let class = match t.split('.').next() {
                        Some("pred") => Class::Pred,
                        Some("b16") => Class::B16,
                        Some("b32") => Class::B32,
                        Some("b64") => Class::B64,
                        Some("f32") => Class::F32,
                        Some("f64") => Class::F64,
                        _ => return Err(bad()),
                    };
                    let r = self.reg(class);
                    scratch.insert(t.to_string(), r);
                }
                scratch[t].clone()
            } else if let Some(l) = hole.strip_prefix("l.") {
                if !labels.contains_key(l) {
                    let name = self.label("intrinsic");
                    labels.insert(l.to_string(), name);
                }
                labels[l].clone()
            } else if let Some((m, k)) = hole.strip_prefix("addr").and_then(|h| h.split_once(":a")) {
                let (m, k) = (m.parse::<usize>().ok(), k.parse::<usize>().ok());
                let (Some(&mem), Some(&idx)) =
                    (m.and_then(|m| call.mems.get(m)), k.and_then(|k| args.get(k)))
                else {
                    return Err(bad());
                };
                self.address(mem, idx, 1)
            } else if let Some((m, k)) = hole.strip_prefix("saddr").and_then(|h| h.split_once(":a")) {
                let (m, k) = (m.parse::<usize>().ok(), k.parse::<usize>().ok());
                let (Some(&mem), Some(&idx)) =
                    (m.and_then(|m| call.mems.get(m)), k.and_then(|k| args.get(k)))
                else {
                    return Err(bad());
                };
                let a = self.address(mem, idx, 1);
                let r = self.reg(Class::B32);
                self.line(format!("cvt.u32.u64 {r}, {a};"));
                r
            } else if let Some(m) = hole.strip_prefix("space") {
                let mem = m.parse::<usize>().ok().and_then(|m| call.mems.get(m)).ok_or_else(bad)?;
                self.space(*mem).to_string()
            } else if let Some(m) = hole.strip_prefix("mty") {
                let mem = m.parse::<usize>().ok().and_then(|m| call.mems.get(m)).ok_or_else(bad)?;
                mem_sfx(self.f.mem(*mem).elem).to_string()
            } else if let Some(m) = hole.strip_prefix("bty") {
                let mem = m.parse::<usize>().ok().and_then(|m| call.mems.get(m)).ok_or_else(bad)?;
                bits_sfx(self.f.mem(*mem).elem).to_string()
            } else if let Some(m) = hole.strip_prefix("tm") {
                let mem = m.parse::<usize>().ok().and_then(|m| call.mems.get(m)).ok_or_else(bad)?;
                self.mem_base[mem.0 as usize].clone()
            } else if let Some(n) = hole.strip_prefix("ty") {
                let t = n.parse::<usize>().ok().and_then(|n| types.get(n)).ok_or_else(bad)?;
                sfx(t.elem()).to_string()
            } else if let Some(a) = hole.strip_prefix('a') {
                let ids: Vec<u32> = args.iter().map(|v| v.0).collect();
                let (id, k) = operand(a, &self.vals, &ids).ok_or_else(bad)?;
                match k {
                    Some(k) => self.vals[id][k].clone(),
                    None => list(&self.vals[id]),
                }
            } else if let Some(v) = hole.strip_prefix('v') {
                let ids: Vec<u32> = call.vars.iter().map(|v| v.0).collect();
                let (id, k) = operand(v, &self.vars, &ids).ok_or_else(bad)?;
                match k {
                    Some(k) => self.vars[id][k].clone(),
                    None => list(&self.vars[id]),
                }
            } else {
                return Err(bad());
            };
            out.push_str(&text);
        }
        out.push_str(rest);
        // Labels are lines of their own, flush left.
        for l in out.lines() {
            if l.ends_with(':') && !l.contains(' ') {
                self.out.push_str(l);
                self.out.push('\n');
            } else {
                self.line(l);
            }
        }
        Ok(())
    }

    fn region(&mut self, r: Region) -> Result<(), PtxError> {
        for inst in self.f.region(r) {
            let dst = match inst.result {
                Some(v) => {
                    let regs = self.regs_for(self.f.value_type(v));
                    self.vals[v.0 as usize] = regs.clone();
                    regs
                }
                None => Vec::new(),
            };
            let d = dst.first().cloned().unwrap_or_default();
            match &inst.op {
                Op::Const(c) => self.constant(*c, &d),
                Op::Param(i) => {
                    let t = match self.f.params[*i as usize].kind {
                        ParamKind::Scalar(t) => t,
                        _ => return Err(self.unsupported("a slice or tensor map used as a scalar")),
                    };
                    let name = format!("{}_param_{i}", self.f.name);
                    if t == ScalarType::Bool {
                        let r = self.reg(Class::B32);
                        self.line(format!("ld.param.u8 {r}, [{name}];\n\tsetp.ne.u32 {d}, {r}, 0;"));
                    } else {
                        self.line(format!("ld.param.{} {d}, [{name}];", mem_sfx(t)));
                    }
                }
                Op::Special(s) => {
                    let src = match s {
                        Special::ThreadIdx(a) => format!("%tid.{}", a.name()),
                        Special::BlockIdx(a) => format!("%ctaid.{}", a.name()),
                        Special::BlockDim(a) => format!("%ntid.{}", a.name()),
                        Special::GridDim(a) => format!("%nctaid.{}", a.name()),
                        Special::LaneId => "%laneid".into(),
                        Special::WarpSize => "WARP_SZ".into(),
                        Special::ClusterRank => "%cluster_ctarank".into(),
                        Special::ClusterSize => "%cluster_nctarank".into(),
                        Special::ClusterBlockIdx(a) => format!("%cluster_ctaid.{}", a.name()),
                        Special::ClusterDim(a) => format!("%cluster_nctaid.{}", a.name()),
                        Special::ClusterIdx(a) => format!("%clusterid.{}", a.name()),
                        Special::ClusterGridDim(a) => format!("%nclusterid.{}", a.name()),
                    };
                    self.line(format!("mov.u32 {d}, {src};"));
                }
                Op::Len(m) => {
                    let len = self.mem_len[m.0 as usize].clone();
                    self.line(format!("mov.u64 {d}, {len};"));
                }
                Op::Unary(op, a) => {
                    let a_ = self.v(*a);
                    self.unary(*op, self.ty(*a), &a_, &d)?
                }
                Op::Binary(op, a, b) => {
                    let (a_, b_) = (self.v(*a), self.v(*b));
                    self.binary(*op, self.ty(*a), self.ty(*b), &a_, &b_, &d)?;
                    if let (BinaryOp::Add, Some(r), ScalarType::U64) = (op, inst.result, self.ty(*a)) {
                        let sum = match (self.widened.get(&b.0), self.widened.get(&a.0)) {
                            (Some(&j), _) => Some((*a, j)),
                            (None, Some(&j)) => Some((*b, j)),
                            _ => None,
                        };
                        if let (Some(sum), true) = (sum, self.index_only.contains(&r.0)) {
                            self.wide_sums.insert(r.0, sum);
                        }
                    }
                }
                Op::Cmp(op, a, b) => {
                    let (a_, b_) = (self.v(*a), self.v(*b));
                    self.cmp(*op, self.ty(*a), &a_, &b_, &d)
                }
                Op::Select(c, a, b) => {
                    let c_ = self.v(*c);
                    let (av, bv) = (self.vals[a.0 as usize].clone(), self.vals[b.0 as usize].clone());
                    let t = self.ty(*a);
                    for ((x, y), dd) in av.iter().zip(&bv).zip(&dst) {
                        if t == ScalarType::Bool {
                            self.line(format!("@{c_} mov.pred {dd}, {x};\n\t@!{c_} mov.pred {dd}, {y};"));
                        } else {
                            self.line(format!("selp.{} {dd}, {x}, {y}, {c_};", bits_sfx(t)));
                        }
                    }
                }
                Op::Cast(a) => {
                    let a_ = self.v(*a);
                    let to = inst.result.map(|v| self.ty(v)).unwrap_or(ScalarType::U32);
                    self.cast(self.ty(*a), to, &a_, &d)?;
                    if let (ScalarType::U32, ScalarType::U64, Some(r)) = (self.ty(*a), to, inst.result) {
                        self.widened.insert(r.0, *a);
                    }
                }
                Op::Bitcast(a) => {
                    let a_ = self.v(*a);
                    let (from, to) =
                        (self.ty(*a), inst.result.map(|v| self.ty(v)).unwrap_or(ScalarType::U32));
                    match (class(from), class(to)) {
                        (Class::B16, Class::B32) => self.line(format!("cvt.u32.u16 {d}, {a_};")),
                        (Class::B32, Class::B16) => self.line(format!("cvt.u16.u32 {d}, {a_};")),
                        _ => self.line(format!("mov.{} {d}, {a_};", bits_sfx(to))),
                    }
                    self.normalize(to, &d);
                }
                Op::Fma(a, b, c) => {
                    let (a_, b_, c_) = (self.v(*a), self.v(*b), self.v(*c));
                    let t = self.ty(*a);
                    if t == ScalarType::F32 || t == ScalarType::F64 {
                        self.line(format!("fma.rn.{} {d}, {a_}, {b_}, {c_};", sfx(t)));
                    } else {
                        self.via_f32(t, &[a_, b_, c_], &d, |g, x, fd| {
                            g.line(format!("fma.rn.f32 {fd}, {}, {}, {};", x[0], x[1], x[2]))
                        });
                    }
                }
                Op::MakeVector(parts) => {
                    for (p, dd) in parts.iter().zip(&dst) {
                        let pv = self.v(*p);
                        let t = self.ty(*p);
                        self.line(format!("mov.{} {dd}, {pv};", reg_ty(t)));
                    }
                }
                Op::Extract(v, lane) => {
                    let src = self.vals[v.0 as usize][*lane as usize].clone();
                    let t = self.ty(*v);
                    self.line(format!("mov.{} {d}, {src};", reg_ty(t)));
                }
                Op::ReadVar(var) => {
                    let t = self.f.vars[var.0 as usize].ty.elem();
                    for (s, dd) in self.vars[var.0 as usize].clone().iter().zip(&dst) {
                        self.line(format!("mov.{} {dd}, {s};", reg_ty(t)));
                    }
                }
                Op::WriteVar(var, v) => {
                    let t = self.f.vars[var.0 as usize].ty.elem();
                    for (dd, s) in
                        self.vars[var.0 as usize].clone().iter().zip(self.vals[v.0 as usize].clone())
                    {
                        self.line(format!("mov.{} {dd}, {s};", reg_ty(t)));
                    }
                }
                Op::Load { mem, index } => self.load(*mem, *index, &dst),
                Op::Store { mem, index, value } => {
                    let src = self.vals[value.0 as usize].clone();
                    self.store(*mem, *index, &src)
                }
                Op::ReadVarLane(var, lane) => {
                    let t = self.f.vars[var.0 as usize].ty.elem();
                    let src = self.vars[var.0 as usize][*lane as usize].clone();
                    self.line(format!("mov.{} {d}, {src};", reg_ty(t)));
                }
                Op::WriteVarLane(var, lane, v) => {
                    let t = self.f.vars[var.0 as usize].ty.elem();
                    let (dd, src) = (self.vars[var.0 as usize][*lane as usize].clone(), self.v(*v));
                    self.line(format!("mov.{} {dd}, {src};", reg_ty(t)));
                }
                Op::Barrier => self.line("bar.sync 0;"),
                Op::Intrinsic(call, args) => self.intrinsic(call, args, &dst)?,
                Op::If { cond, then_region, else_region } => {
                    let c = self.v(*cond);
                    let (l_else, l_end) = (self.label("else"), self.label("endif"));
                    self.line(format!("@!{c} bra {l_else};"));
                    self.region(*then_region)?;
                    if !self.f.region(*else_region).is_empty() {
                        self.line(format!("bra {l_end};"));
                        self.out.push_str(&format!("{l_else}:\n"));
                        self.region(*else_region)?;
                        self.out.push_str(&format!("{l_end}:\n"));
                    } else {
                        self.out.push_str(&format!("{l_else}:\n"));
                    }
                }
                Op::Loop { body, latch } => {
                    let (head, l_latch, exit) = (self.label("loop"), self.label("latch"), self.label("exit"));
                    self.out.push_str(&format!("{head}:\n"));
                    self.loops.push((l_latch.clone(), exit.clone()));
                    self.region(*body)?;
                    self.out.push_str(&format!("{l_latch}:\n"));
                    self.region(*latch)?;
                    self.loops.pop();
                    self.line(format!("bra {head};"));
                    self.out.push_str(&format!("{exit}:\n"));
                }
                Op::Break { depth } | Op::Continue { depth } => {
                    let i = self
                        .loops
                        .len()
                        .checked_sub(1 + *depth as usize)
                        .ok_or_else(|| self.unsupported("a jump outside of a loop"))?;
                    let target = if matches!(inst.op, Op::Break { .. }) {
                        self.loops[i].1.clone()
                    } else {
                        self.loops[i].0.clone()
                    };
                    self.line(format!("bra {target};"));
                }
                Op::Return => self.line("ret;"),
            }
        }
        Ok(())
    }
}

/// The `mov` type of a register holding a `t`.
fn reg_ty(t: ScalarType) -> &'static str {
    match class(t) {
        Class::Pred => "pred",
        Class::B16 => "b16",
        Class::B32 => "b32",
        Class::B64 => "b64",
        Class::F32 => "f32",
        Class::F64 => "f64",
    }
}

fn param_decl(t: ScalarType) -> &'static str {
    match t {
        ScalarType::Bool => "u8",
        _ => mem_sfx(t),
    }
}

/// What a kernel needs of its target, each with what needs it, and the module declarations its
/// instructions use.
struct Requirements {
    features: Vec<(Feature, String)>,
    versions: Vec<((u32, u32), String)>,
    globals: Vec<&'static str>,
}

fn requirements(f: &Function) -> Requirements {
    let mut features = Vec::new();
    let mut versions = Vec::new();
    let mut globals: Vec<&'static str> = Vec::new();
    f.walk(&mut |i| match &i.op {
        Op::Intrinsic(call, _) => {
            for feat in call.def.features(&call.imms) {
                features.push((feat, format!("`{}`", call.text_name())));
            }
            versions.push((call.def.ptx_version, format!("`{}`", call.text_name())));
            for g in call.def.ptx_globals {
                if !globals.contains(g) {
                    globals.push(g);
                }
            }
        }
        Op::Special(s) if s.needs_clusters() => {
            features.push((Feature::Clusters, "a cluster register".into()))
        }
        _ => {}
    });
    if f.attrs.cluster.is_some() {
        features.push((Feature::Clusters, "a required cluster shape".into()));
    }
    if f.params.iter().any(|p| p.kind == ParamKind::TensorMap) {
        // `cvta.param` of a by-value kernel parameter.
        versions.push(((7, 7), "a tensor-map parameter".into()));
    }
    Requirements { features, versions, globals }
}

/// Generates a PTX module holding `f` as a `.visible .entry`, for `target`: `.target` is the
/// target's architecture, `.version` the lowest the instructions used need (an error if that is
/// newer than the driver takes), and an instruction whose feature the target lacks is an error
/// naming both.
pub fn generate(f: &Function, target: &Target) -> Result<String, PtxError> {
    if target.isa != Isa::Ptx {
        return Err(PtxError::WrongTarget { kernel: f.name.clone(), target: target.to_string() });
    }
    verify(f).map_err(|source| PtxError::Invalid { kernel: f.name.clone(), source })?;
    // Byte-addressed memory comes from the PTX front end, whose IR runs on the CPU executor
    // only: GPUs load the PTX it was read from. (The host-call rows, `printf` and `assert_fail`,
    // refuse themselves through their PTX templates.)
    if let Some(m) = f.mems.iter().find(|m| matches!(m.space, MemSpace::Addressed(_))) {
        return Err(PtxError::Unsupported {
            kernel: f.name.clone(),
            what: format!(
                "byte-addressed memory `@{}` (IR read from PTX runs on the CPU executor; load the original PTX \
                 instead)",
                m.name
            ),
        });
    }
    // ptxas would refuse these too, with a less direct message.
    f.check_limits(&Limits::GPU)?;
    let Requirements { features, versions, globals } = requirements(f);
    for (feature, what) in features {
        if !target.has(feature) {
            return Err(PtxError::MissingFeature {
                kernel: f.name.clone(),
                what,
                feature,
                min_arch: feature.min_nvidia_arch(),
                target: target.arch.clone(),
            });
        }
    }
    let mut version = BASE_PTX_VERSION.max(arch_ptx_version(&target.arch));
    let mut newest_what = format!("the {} target", target.arch);
    for (v, what) in versions {
        if v > version {
            version = v;
            newest_what = what;
        }
    }
    if version > target.max_ptx_version {
        return Err(PtxError::PtxVersion {
            kernel: f.name.clone(),
            what: newest_what,
            needs: version,
            max: target.max_ptx_version,
        });
    }
    // PTX has no f64 transcendental instructions: f64 exp, ln, sin and cos become exactly
    // rounded IR sequences (the f32 `.approx` path would give only about 1e-7).
    let expanded;
    let f = if has_f64_math(f) {
        let mut g = f.clone();
        expand_f64_math(&mut g);
        debug_assert_eq!(verify(&g), Ok(()), "the f64 math expansion must verify");
        expanded = g;
        &expanded
    } else {
        f
    };
    let mut g = Gen {
        f,
        out: String::new(),
        counts: [0; 6],
        vals: vec![Vec::new(); f.values.len()],
        vars: Vec::new(),
        mem_base: vec![String::new(); f.mems.len()],
        mem_len: vec![String::new(); f.mems.len()],
        loops: Vec::new(),
        labels: 0,
        widened: HashMap::new(),
        wide_sums: HashMap::new(),
        index_only: index_only_values(f),
    };
    for v in &f.vars {
        let r = g.regs_for(v.ty);
        g.vars.push(r);
    }
    // Prologue: slice addresses (converted to the global window) and lengths.
    let mut decls = String::new();
    for (i, m) in f.mems.iter().enumerate() {
        match m.space {
            MemSpace::Global { param, .. } => {
                let (a, l) = (g.reg(Class::B64), g.reg(Class::B64));
                g.line(format!("ld.param.u64 {a}, [{}_param_{param}];", f.name));
                g.line(format!("cvta.to.global.u64 {a}, {a};"));
                g.line(format!("ld.param.u64 {l}, [{}_param_{param}_len];", f.name));
                g.mem_base[i] = a;
                g.mem_len[i] = l;
            }
            MemSpace::Shared { align, .. } => {
                let _ = writeln!(
                    decls,
                    ".shared .align {} .b8 {}_{}[{}];",
                    align.max(16),
                    f.name,
                    m.name,
                    m.bytes().max(1)
                );
                g.mem_base[i] = format!("{}_{}", f.name, m.name);
            }
            MemSpace::DynShared { .. } => {
                g.mem_base[i] = "ferrocm_dyn_shared".into();
                let (r, l) = (g.reg(Class::B32), g.reg(Class::B64));
                g.line(format!("mov.u32 {r}, %dynamic_smem_size;"));
                g.line(format!("cvt.u64.u32 {l}, {r};"));
                g.line(format!("div.u64 {l}, {l}, {};", m.elem.size()));
                g.mem_len[i] = l;
            }
            MemSpace::Local { .. } => {
                let _ =
                    writeln!(decls, "\t.local .align 16 .b8 {}_{}[{}];", f.name, m.name, m.bytes().max(1));
                g.mem_base[i] = format!("{}_{}", f.name, m.name);
            }
            MemSpace::TensorMap { param } => {
                // TMA takes the generic address of the by-value parameter.
                let a = g.reg(Class::B64);
                g.line(format!("mov.b64 {a}, {}_param_{param};", f.name));
                g.line(format!("cvta.param.u64 {a}, {a};"));
                g.mem_base[i] = a;
            }
            MemSpace::Addressed(_) => {}
        }
    }
    g.region(f.body)?;
    g.line("ret;");

    let mut out = String::new();
    let _ = writeln!(out, "//\n// Generated by ferrocm-ptx for kernel `{}`\n//\n", f.name);
    let _ = writeln!(out, ".version {}.{}", version.0, version.1);
    let _ = writeln!(out, ".target {}", target.arch);
    let _ = writeln!(out, ".address_size 64\n");
    if f.mems.iter().any(|m| matches!(m.space, MemSpace::DynShared { .. })) {
        let _ = writeln!(out, ".extern .shared .align {} .b8 ferrocm_dyn_shared[];", f.dyn_shared_align());
    }
    let (shared, local): (Vec<&str>, Vec<&str>) = decls.lines().partition(|l| l.starts_with(".shared"));
    for l in shared {
        let _ = writeln!(out, "{l}");
    }
    for g in globals {
        let _ = writeln!(out, "{g}");
    }
    let _ = writeln!(out, "\n.visible .entry {}(", f.name);
    let mut params = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        match p.kind {
            ParamKind::Scalar(t) => params.push(format!("\t.param .{} {}_param_{i}", param_decl(t), f.name)),
            ParamKind::Slice { .. } => {
                params.push(format!("\t.param .u64 {}_param_{i}", f.name));
                params.push(format!("\t.param .u64 {}_param_{i}_len", f.name));
            }
            ParamKind::TensorMap => params.push(format!("\t.param .align 64 .b8 {}_param_{i}[128]", f.name)),
        }
    }
    let _ = writeln!(out, "{}\n)", params.join(",\n"));
    if let Some(n) = f.attrs.max_threads {
        let _ = writeln!(out, ".maxntid {n}, 1, 1");
    }
    if let Some(n) = f.attrs.min_blocks_per_sm {
        let _ = writeln!(out, ".minnctapersm {n}");
    }
    if let Some([x, y, z]) = f.attrs.cluster {
        let _ = writeln!(out, ".reqnctapercluster {x}, {y}, {z}");
    }
    out.push_str("{\n");
    for l in local {
        let _ = writeln!(out, "{l}");
    }
    for (i, (_, ty, prefix)) in CLASSES.iter().enumerate() {
        if g.counts[i] > 0 {
            let _ = writeln!(out, "\t.reg .{ty} %{prefix}<{}>;", g.counts[i] + 1);
        }
    }
    out.push('\n');
    out.push_str(&g.out);
    out.push_str("}\n");
    Ok(out)
}

/// Appends, to each `line N` the driver's JIT log mentions, the PTX line it points at, so an
/// error reads `ptxas ... line 42; error ... \n    42 | add.f32 %f1, ...`.
pub fn annotate_jit_log(ptx: &str, log: &str) -> String {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut out = String::new();
    for l in log.lines() {
        out.push_str(l);
        out.push('\n');
        if let Some(pos) = l.find("line ") {
            let n: String = l[pos + 5..].chars().take_while(|c| c.is_ascii_digit()).collect();
            if let Ok(n) = n.parse::<usize>() {
                if n >= 1 && n <= lines.len() {
                    let _ = writeln!(out, "    {n} | {}", lines[n - 1].trim());
                }
            }
        }
    }
    out
}
