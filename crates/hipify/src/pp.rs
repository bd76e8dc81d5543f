//! Preprocessor conditions: which `#if` groups a preprocessor keeps, decided
//! without reading headers. hipify-clang translates every group by default;
//! these decisions apply with `--default-preprocessor` (and always decide
//! where a stray quote in excluded code is tolerated).
//!
//! Macros come from the command line (`-D`/`-U`), from the `#define`s and
//! `#undef`s met so far in the file, and from what clang predefines when it
//! compiles CUDA host code (`__CUDACC__`, `__CUDA__`, `__cplusplus`,
//! `CUDA_VERSION` and `CUDART_VERSION` of a CUDA 12 toolkit; `__CUDA_ARCH__`
//! is not defined on the host). A name defined nowhere is 0 and `defined(...)`
//! of it is false, as in C, except for names that CUDA's library headers
//! define (`CUBLAS_VERSION`, `CUDNN_MAJOR`, ...): their value is unknown, and
//! a condition that depends on an unknown value keeps its group (translated,
//! as `--amap` would), because guessing wrong would leave CUDA code behind.
//!
//! Evaluation is bounded (expansion depth and work per directive), so a
//! file's conditions cost time linear in its size.

use std::collections::{HashMap, HashSet};

use crate::translate::Macro;

/// The outcome of a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truth {
    True,
    False,
    Unknown,
}

/// A value during evaluation: known, or depending on something unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Val {
    Known(i64),
    Unknown,
}

#[derive(Debug, Clone)]
enum Def {
    /// Object-like, with its replacement text.
    Object(String),
    /// Function-like: defined, but its uses are not expanded here.
    Function,
}

/// A fixed hasher: the same input takes the same path through the maps in
/// every process (fuzzing runs replay exactly), and it is faster than SipHash.
type Fixed = foldhash::fast::FixedState;

/// Macros defined at a point of the file.
#[derive(Debug, Clone)]
pub struct Macros {
    defs: HashMap<String, Def, Fixed>,
    /// Names undefined by `-U` or `#undef`: known to be undefined, even
    /// those CUDA's headers would define.
    undefined: HashSet<String, Fixed>,
}

/// Predefined by clang in CUDA host compilation, or by `cuda.h` and
/// `cuda_runtime.h`, which clang's CUDA wrapper includes implicitly.
/// The HIP spellings the translator writes (`__HIPCC__`) are predefined with
/// the same values, so translating the output again keeps the same groups.
const PREDEFINED: &[(&str, &str)] = &[
    ("__CUDACC__", "1"),
    ("__HIPCC__", "1"),
    ("__CUDA__", "1"),
    ("__cplusplus", "201703L"),
    ("__clang__", "1"),
    ("__linux__", "1"),
    ("__unix__", "1"),
    ("__x86_64__", "1"),
    ("CUDA_VERSION", "12080"),
    ("CUDART_VERSION", "12080"),
    ("__CUDACC_VER_MAJOR__", "12"),
    ("__CUDACC_VER_MINOR__", "8"),
];

/// Prefixes of macros that CUDA's headers define; without the headers their
/// values are unknown.
const HEADER_PREFIXES: &[&str] = &[
    "CUDA_", "CUDART_", "CUBLAS", "CUDNN_", "CUSPARSE", "CUFFT_", "CURAND_", "CUSOLVER", "CUTENSOR",
    "NVRTC_", "CUB_", "THRUST_", "NV_", "__NV", "__CUDACC", "__CUDA_", "NPP_", "NVCC",
];

/// Most expansion steps and tokens one condition may take.
const MAX_DEPTH: usize = 16;
const MAX_WORK: usize = 4096;

impl Macros {
    pub fn new(command_line: &[Macro]) -> Macros {
        let mut defs = HashMap::default();
        for (name, value) in PREDEFINED {
            defs.insert(name.to_string(), Def::Object(value.to_string()));
        }
        let mut m = Macros { defs, undefined: HashSet::default() };
        for c in command_line {
            match c {
                Macro::Define { name, value } => m.define_text(name, value),
                Macro::Undefine { name } => m.undefine(name),
            }
        }
        m
    }

    fn define_text(&mut self, name: &str, value: &str) {
        match name.split_once('(') {
            Some((n, _)) => self.defs.insert(n.to_string(), Def::Function),
            None => self.defs.insert(name.to_string(), Def::Object(value.to_string())),
        };
        self.undefined.remove(name);
    }

    /// Applies `#define` with the directive's text after `define`.
    pub fn define(&mut self, rest: &str) {
        let rest = rest.trim_start();
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let name = &rest[..end];
        if name.is_empty() {
            return;
        }
        let def = if rest[end..].starts_with('(') {
            Def::Function
        } else {
            Def::Object(rest[end..].trim().to_string())
        };
        self.defs.insert(name.to_string(), def);
        self.undefined.remove(name);
    }

    pub fn undefine(&mut self, rest: &str) {
        let name = rest.split_whitespace().next().unwrap_or("");
        self.defs.remove(name);
        self.undefined.insert(name.to_string());
    }

    fn is_defined(&self, name: &str) -> Val {
        if self.defs.contains_key(name) {
            Val::Known(1)
        } else if from_headers(name) && !self.undefined.contains(name) {
            Val::Unknown
        } else {
            Val::Known(0)
        }
    }

    /// `#ifdef NAME` (or `#ifndef` with `negate`).
    pub fn ifdef(&self, rest: &str, negate: bool) -> Truth {
        let name = rest.split_whitespace().next().unwrap_or("");
        let name = name.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or("");
        match self.is_defined(name) {
            Val::Known(v) => truth((v != 0) != negate),
            Val::Unknown => Truth::Unknown,
        }
    }

    /// `#if EXPR` / `#elif EXPR`.
    pub fn eval(&self, expr: &str) -> Truth {
        let mut p = Parser { toks: tokenize(expr), pos: 0, macros: self, depth: 0, work: 0 };
        let v = p.expr();
        if p.pos != p.toks.len() {
            return Truth::Unknown;
        }
        match v {
            Val::Known(v) => truth(v != 0),
            Val::Unknown => Truth::Unknown,
        }
    }
}

fn truth(b: bool) -> Truth {
    if b {
        Truth::True
    } else {
        Truth::False
    }
}

fn from_headers(name: &str) -> bool {
    HEADER_PREFIXES.iter().any(|p| name.starts_with(p)) && name != "__CUDA_ARCH__"
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(Val),
    Ident(String),
    Op(&'static str),
}

/// Splits a condition into tokens; comments are already gone. Anything the
/// evaluator does not know becomes an unknown number.
fn tokenize(s: &str) -> Vec<Tok> {
    const OPS: [&str; 24] = [
        "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "?", ":", "+", "-", "*", "/", "%", "<",
        ">", "!", "~", "&", "|", "^",
    ];
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() || c == b'\\' {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[st..i].to_string()));
        } else if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'\'' || b[i] == b'.') {
                i += 1;
            }
            out.push(Tok::Num(number(&s[st..i])));
        } else if c == b'\'' || c == b'"' {
            // Character and string literals: skip, value unknown.
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(Tok::Num(Val::Unknown));
        } else if let Some(op) = OPS.iter().find(|op| b[i..].starts_with(op.as_bytes())) {
            out.push(Tok::Op(op));
            i += op.len();
        } else {
            out.push(Tok::Num(Val::Unknown));
            i += 1;
        }
    }
    out
}

fn number(text: &str) -> Val {
    let t = text.replace('\'', "");
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    let parsed = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        i64::from_str_radix(b, 2).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        i64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    };
    parsed.map_or(Val::Unknown, Val::Known)
}

struct Parser<'a> {
    toks: Vec<Tok>,
    pos: usize,
    macros: &'a Macros,
    depth: usize,
    work: usize,
}

fn bin(a: Val, b: Val, f: impl Fn(i64, i64) -> Option<i64>) -> Val {
    match (a, b) {
        (Val::Known(x), Val::Known(y)) => f(x, y).map_or(Val::Unknown, Val::Known),
        _ => Val::Unknown,
    }
}

impl Parser<'_> {
    fn peek_op(&self) -> Option<&'static str> {
        match self.toks.get(self.pos) {
            Some(Tok::Op(o)) => Some(o),
            _ => None,
        }
    }

    fn eat(&mut self, op: &str) -> bool {
        if self.peek_op() == Some(op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self) -> Val {
        let c = self.binary(0);
        if self.eat("?") {
            let a = self.expr();
            if !self.eat(":") {
                return Val::Unknown;
            }
            let b = self.expr();
            return match c {
                Val::Known(0) => b,
                Val::Known(_) => a,
                Val::Unknown if a == b => a,
                Val::Unknown => Val::Unknown,
            };
        }
        c
    }

    /// Binary operators by C precedence, lowest first.
    fn binary(&mut self, level: usize) -> Val {
        const LEVELS: [&[&str]; 10] = [
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<", ">", "<=", ">="],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut a = self.binary(level + 1);
        while let Some(op) = self.peek_op().filter(|o| LEVELS[level].contains(o)) {
            self.pos += 1;
            let b = self.binary(level + 1);
            a = match op {
                // Short circuits decide even with an unknown side.
                "||" => match (a, b) {
                    (Val::Known(x), _) if x != 0 => Val::Known(1),
                    (_, Val::Known(y)) if y != 0 => Val::Known(1),
                    (Val::Known(_), Val::Known(_)) => Val::Known(0),
                    _ => Val::Unknown,
                },
                "&&" => match (a, b) {
                    (Val::Known(0), _) | (_, Val::Known(0)) => Val::Known(0),
                    (Val::Known(_), Val::Known(_)) => Val::Known(1),
                    _ => Val::Unknown,
                },
                "|" => bin(a, b, |x, y| Some(x | y)),
                "^" => bin(a, b, |x, y| Some(x ^ y)),
                "&" => bin(a, b, |x, y| Some(x & y)),
                "==" => bin(a, b, |x, y| Some(i64::from(x == y))),
                "!=" => bin(a, b, |x, y| Some(i64::from(x != y))),
                "<" => bin(a, b, |x, y| Some(i64::from(x < y))),
                ">" => bin(a, b, |x, y| Some(i64::from(x > y))),
                "<=" => bin(a, b, |x, y| Some(i64::from(x <= y))),
                ">=" => bin(a, b, |x, y| Some(i64::from(x >= y))),
                "<<" => bin(a, b, |x, y| u32::try_from(y).ok().and_then(|y| x.checked_shl(y))),
                ">>" => bin(a, b, |x, y| u32::try_from(y).ok().and_then(|y| x.checked_shr(y))),
                "+" => bin(a, b, i64::checked_add),
                "-" => bin(a, b, i64::checked_sub),
                "*" => bin(a, b, i64::checked_mul),
                "/" => bin(a, b, i64::checked_div),
                _ => bin(a, b, i64::checked_rem),
            };
        }
        a
    }

    fn unary(&mut self) -> Val {
        self.work += 1;
        if self.work > MAX_WORK {
            self.pos = self.toks.len();
            return Val::Unknown;
        }
        match self.peek_op() {
            Some("!") => {
                self.pos += 1;
                return match self.unary() {
                    Val::Known(v) => Val::Known(i64::from(v == 0)),
                    Val::Unknown => Val::Unknown,
                };
            }
            Some("-") => {
                self.pos += 1;
                return bin(Val::Known(0), self.unary(), i64::checked_sub);
            }
            Some("+") => {
                self.pos += 1;
                return self.unary();
            }
            Some("~") => {
                self.pos += 1;
                return match self.unary() {
                    Val::Known(v) => Val::Known(!v),
                    Val::Unknown => Val::Unknown,
                };
            }
            Some("(") => {
                self.pos += 1;
                let v = self.expr();
                return if self.eat(")") { v } else { Val::Unknown };
            }
            _ => {}
        }
        match self.toks.get(self.pos).cloned() {
            Some(Tok::Num(v)) => {
                self.pos += 1;
                v
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                self.identifier(&name)
            }
            _ => {
                self.pos = self.toks.len();
                Val::Unknown
            }
        }
    }

    fn identifier(&mut self, name: &str) -> Val {
        match name {
            "defined" => {
                let paren = self.eat("(");
                let v = match self.toks.get(self.pos).cloned() {
                    Some(Tok::Ident(n)) => {
                        self.pos += 1;
                        self.macros.is_defined(&n)
                    }
                    _ => Val::Unknown,
                };
                if paren && !self.eat(")") {
                    return Val::Unknown;
                }
                v
            }
            "true" => Val::Known(1),
            "false" => Val::Known(0),
            _ => {
                // A call of a function-like macro or of `__has_include(...)`:
                // skip its arguments; the value is unknown.
                if self.peek_op() == Some("(") {
                    let mut depth = 0usize;
                    while let Some(t) = self.toks.get(self.pos) {
                        self.pos += 1;
                        match t {
                            Tok::Op("(") => depth += 1,
                            Tok::Op(")") => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    return Val::Unknown;
                }
                match self.macros.defs.get(name) {
                    Some(Def::Object(body)) if self.depth < MAX_DEPTH => {
                        if body.is_empty() {
                            return Val::Unknown;
                        }
                        let mut inner = Parser {
                            toks: tokenize(body),
                            pos: 0,
                            macros: self.macros,
                            depth: self.depth + 1,
                            work: self.work,
                        };
                        let v = inner.expr();
                        self.work = inner.work;
                        if inner.pos == inner.toks.len() {
                            v
                        } else {
                            Val::Unknown
                        }
                    }
                    Some(_) => Val::Unknown,
                    None if from_headers(name) && !self.macros.undefined.contains(name) => Val::Unknown,
                    None => Val::Known(0),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(defs: &[Macro], e: &str) -> Truth {
        Macros::new(defs).eval(e)
    }

    #[test]
    fn arithmetic_and_logic_as_in_c() {
        assert_eq!(eval(&[], "1 + 2 * 3 == 7"), Truth::True);
        assert_eq!(eval(&[], "(1 << 4) > 0x0F && !0"), Truth::True);
        assert_eq!(eval(&[], "010 == 8 ? 0 : 1"), Truth::False);
        assert_eq!(eval(&[], "UNDEFINED_THING"), Truth::False);
        assert_eq!(eval(&[], "1 / 0"), Truth::Unknown);
    }

    #[test]
    fn defines_predefinitions_and_unknowns() {
        let d = [
            Macro::Define { name: "A".into(), value: "2".into() },
            Macro::Undefine { name: "__CUDACC__".into() },
        ];
        assert_eq!(eval(&d, "defined(A) && A > 1"), Truth::True);
        assert_eq!(eval(&d, "defined __CUDACC__"), Truth::False);
        assert_eq!(eval(&[], "CUDA_VERSION >= 11000"), Truth::True);
        assert_eq!(eval(&[], "defined(__CUDA_ARCH__)"), Truth::False);
        assert_eq!(eval(&[], "CUBLAS_VERSION >= 11000"), Truth::Unknown);
        assert_eq!(eval(&[], "0 && CUBLAS_VERSION"), Truth::False);
        assert_eq!(eval(&[], "__has_include(<x.h>)"), Truth::Unknown);
        // Found by fuzzing: a multi-byte character in a condition.
        assert_eq!(eval(&[], "CUDA_VERSION >= 1\u{e7}u"), Truth::Unknown);
    }

    #[test]
    fn file_defines_chain() {
        let mut m = Macros::new(&[]);
        m.define(" B (A + 1)");
        m.define(" A 3");
        m.define(" F(x) x");
        assert_eq!(m.eval("B == 4"), Truth::True);
        assert_eq!(m.eval("F(1)"), Truth::Unknown);
        m.undefine(" A");
        assert_eq!(m.eval("B == 1"), Truth::True);
        assert_eq!(m.ifdef(" F", false), Truth::True);
    }
}
