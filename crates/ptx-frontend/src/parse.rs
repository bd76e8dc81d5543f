//! PTX text to a syntax tree: module directives, variables with initializers, functions with
//! their parameters, register and local declarations, scopes, labels and instructions.
//!
//! The grammar is the subset of the PTX ISA that compilers emit (clang's NVPTX back end in
//! particular); anything else is an error with its line. Opcodes keep their dotted modifiers as
//! one word (`ld.global.nc.v4.f32`); the translator interprets them.

use crate::FrontendError;

/// A PTX data type (`.u32`, `.f16`, `.pred`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PtxType {
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
    Pred,
}

impl PtxType {
    /// The type named by a modifier such as `.u32` (without or with the dot).
    pub fn from_name(s: &str) -> Option<PtxType> {
        use PtxType::*;
        Some(match s.trim_start_matches('.') {
            "b8" => B8,
            "b16" => B16,
            "b32" => B32,
            "b64" => B64,
            "u8" => U8,
            "u16" => U16,
            "u32" => U32,
            "u64" => U64,
            "s8" => S8,
            "s16" => S16,
            "s32" => S32,
            "s64" => S64,
            "f16" => F16,
            "f16x2" => F16x2,
            "bf16" => Bf16,
            "bf16x2" => Bf16x2,
            "f32" => F32,
            "f64" => F64,
            "pred" => Pred,
            _ => return None,
        })
    }

    /// Size in bytes (a predicate counts as one).
    pub fn size(self) -> u64 {
        use PtxType::*;
        match self {
            B8 | U8 | S8 | Pred => 1,
            B16 | U16 | S16 | F16 | Bf16 => 2,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 => 4,
            B64 | U64 | S64 | F64 => 8,
        }
    }
}

/// A state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Const,
    Shared,
    Local,
    Param,
}

/// One element of a variable's initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// An integer (as its two's-complement bits) or float (as its bits) constant.
    Bits(u64),
    /// The address of another variable, plus a byte offset (`generic(sym)` or `sym+8`).
    Symbol(String, i64),
}

/// A variable declaration (module scope, or `.local`/`.shared`/`.param` in a body).
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub name: String,
    pub space: Space,
    pub ty: PtxType,
    /// Lanes of a vector variable (`.v2`, `.v4`), 1 otherwise.
    pub vector: u32,
    pub align: u64,
    /// Array length (the product of the dimensions); `None` for a scalar, `Some(0)` for an
    /// unsized `[]` array (`.extern .shared`).
    pub count: Option<u64>,
    pub init: Vec<Init>,
    pub external: bool,
    pub line: usize,
}

impl VarDecl {
    /// Size in bytes (0 for an unsized array).
    pub fn size(&self) -> u64 {
        self.ty.size() * self.vector as u64 * self.count.unwrap_or(1)
    }
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register, or a special register such as `%tid.x`.
    Reg(String),
    /// An integer immediate, as its two's-complement bits.
    Imm(i64),
    /// A float immediate: its bits and whether it was written as a double (`0d...`).
    Float { bits: u64, double: bool },
    /// A symbol: a variable, function or label.
    Sym(String),
    /// `[base+offset]`.
    Addr { base: Box<Operand>, offset: i64 },
    /// `{a, b, ...}`: a vector of registers.
    Vector(Vec<Operand>),
    /// `!%p`: a negated predicate.
    Not(Box<Operand>),
    /// `%r|%p`: a result and its predicate (shfl, setp).
    Pair(Box<Operand>, Box<Operand>),
    /// `(a, b, ...)`: the parameter lists of `call`.
    List(Vec<Operand>),
    /// `_`: a discarded result.
    Sink,
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub line: usize,
    /// The guard predicate: the register and whether it is negated (`@!%p`).
    pub guard: Option<(String, bool)>,
    /// The opcode with its modifiers, e.g. `ld.global.nc.v4.f32`.
    pub opcode: String,
    pub operands: Vec<Operand>,
}

/// A statement of a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// Registers: each is a name (`%SP`) or a numbered family (`%r<12>` gives `%r0` to `%r11`).
    Reg {
        ty: PtxType,
        names: Vec<(String, Option<u64>)>,
    },
    Var(VarDecl),
    Label(String),
    Inst(Inst),
    Scope(Vec<Stmt>),
}

/// A kernel (`.entry`) or device function (`.func`).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub entry: bool,
    pub params: Vec<VarDecl>,
    pub rets: Vec<VarDecl>,
    /// `None` for a declaration (`.extern .func`).
    pub body: Option<Vec<Stmt>>,
    /// `.maxntid`/`.reqntid`: the largest block the kernel allows.
    pub max_threads: Option<u32>,
    pub line: usize,
}

/// A parsed PTX module.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub version: (u32, u32),
    pub target: String,
    pub address_size: u32,
    pub vars: Vec<VarDecl>,
    pub functions: Vec<Function>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions
            .iter()
            .find(|f| f.name == name && f.body.is_some())
            .or_else(|| self.functions.iter().find(|f| f.name == name))
    }
}

// ---------------------------------------------------------------------------------------------
// Lexer

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Int(i64),
    Float(f64),
    Str,
    P(char),
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
}

fn word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'%' | b'.')
}

fn word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'%' | b'.')
}

impl Lexer<'_> {
    fn err(&self, msg: impl Into<String>) -> FrontendError {
        FrontendError::Syntax { line: self.line, message: msg.into() }
    }

    fn tokens(mut self) -> Result<Vec<(Tok, usize)>, FrontendError> {
        let mut out = Vec::new();
        while self.i < self.s.len() {
            let c = self.s[self.i];
            if c == b'\n' {
                self.line += 1;
                self.i += 1;
            } else if c.is_ascii_whitespace() {
                self.i += 1;
            } else if self.s[self.i..].starts_with(b"//") {
                while self.i < self.s.len() && self.s[self.i] != b'\n' {
                    self.i += 1;
                }
            } else if self.s[self.i..].starts_with(b"/*") {
                self.i += 2;
                while self.i < self.s.len() && !self.s[self.i..].starts_with(b"*/") {
                    if self.s[self.i] == b'\n' {
                        self.line += 1;
                    }
                    self.i += 1;
                }
                self.i += 2;
            } else if c == b'"' {
                self.i += 1;
                while self.i < self.s.len() && self.s[self.i] != b'"' {
                    if self.s[self.i] == b'\\' {
                        self.i += 1;
                    }
                    if self.s.get(self.i) == Some(&b'\n') {
                        return Err(self.err("unterminated string"));
                    }
                    self.i += 1;
                }
                self.i += 1;
                out.push((Tok::Str, self.line));
            } else if c.is_ascii_digit() {
                out.push((self.number()?, self.line));
            } else if word_start(c) {
                let start = self.i;
                while self.i < self.s.len() && word_char(self.s[self.i]) {
                    self.i += 1;
                }
                let w = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                out.push((Tok::Word(w), self.line));
            } else if b"{}()[],;:+-@!=|<>".contains(&c) {
                out.push((Tok::P(c as char), self.line));
                self.i += 1;
            } else {
                return Err(self.err(format!("unexpected character `{}`", c as char)));
            }
        }
        Ok(out)
    }

    fn number(&mut self) -> Result<Tok, FrontendError> {
        let start = self.i;
        while self.i < self.s.len() && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'.') {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        let bad = || FrontendError::Syntax { line: self.line, message: format!("bad number `{text}`") };
        let lower = text.to_ascii_lowercase();
        let t = lower.trim_end_matches('u');
        if (t.starts_with("0f") && t.len() == 10) || (t.starts_with("0d") && t.len() == 18) {
            // Float bits: kept as a word, decoded where the operand is read.
            return Ok(Tok::Word(t.to_string()));
        }
        if let Some(hex) = t.strip_prefix("0x") {
            return u64::from_str_radix(hex, 16).map(|v| Tok::Int(v as i64)).map_err(|_| bad());
        }
        if t.contains('.') || t.contains('e') {
            return t.parse::<f64>().map(Tok::Float).map_err(|_| bad());
        }
        if t.len() > 1 && t.starts_with('0') && t.bytes().all(|b| b.is_ascii_digit()) {
            return u64::from_str_radix(&t[1..], 8).map(|v| Tok::Int(v as i64)).map_err(|_| bad());
        }
        t.parse::<u64>().map(|v| Tok::Int(v as i64)).map_err(|_| bad())
    }
}

// ---------------------------------------------------------------------------------------------
// Parser

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
}

type R<T> = Result<T, FrontendError>;

impl Parser {
    fn line(&self) -> usize {
        self.toks.get(self.pos).or(self.toks.last()).map(|t| t.1).unwrap_or(0)
    }

    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(FrontendError::Syntax { line: self.line(), message: msg.into() })
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|t| t.0.clone());
        self.pos += 1;
        t
    }

    fn is_p(&self, c: char) -> bool {
        self.peek() == Some(&Tok::P(c))
    }

    fn eat_p(&mut self, c: char) -> bool {
        if self.is_p(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_p(&mut self, c: char) -> R<()> {
        if self.eat_p(c) {
            Ok(())
        } else {
            self.err(format!("expected `{c}`, found {}", self.describe()))
        }
    }

    fn describe(&self) -> String {
        match self.peek() {
            Some(Tok::Word(w)) => format!("`{w}`"),
            Some(Tok::Int(i)) => format!("`{i}`"),
            Some(Tok::Float(f)) => format!("`{f}`"),
            Some(Tok::Str) => "a string".into(),
            Some(Tok::P(c)) => format!("`{c}`"),
            None => "the end of the text".into(),
        }
    }

    fn word(&mut self) -> R<String> {
        match self.next() {
            Some(Tok::Word(w)) => Ok(w),
            _ => {
                self.pos -= 1;
                self.err(format!("expected a name, found {}", self.describe()))
            }
        }
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }

    fn int(&mut self) -> R<i64> {
        let neg = self.eat_p('-');
        match self.next() {
            Some(Tok::Int(v)) => Ok(if neg { v.wrapping_neg() } else { v }),
            _ => {
                self.pos -= 1;
                self.err(format!("expected an integer, found {}", self.describe()))
            }
        }
    }

    /// Skips to the end of the current statement (`;`), for directives that carry no meaning
    /// for execution (`.file`, `.loc`, `.pragma`).
    fn skip_statement(&mut self) {
        while let Some(t) = self.next() {
            if t == Tok::P(';') {
                return;
            }
            // Directives such as `.loc` end at the line break, without a semicolon.
        }
    }

    fn skip_line(&mut self, line: usize) {
        while self.toks.get(self.pos).is_some_and(|t| t.1 == line) {
            self.pos += 1;
        }
    }

    fn module(&mut self) -> R<Module> {
        let mut m = Module::default();
        while let Some(t) = self.peek().cloned() {
            let line = self.line();
            let Tok::Word(w) = t else { return self.err(format!("unexpected {}", self.describe())) };
            match w.as_str() {
                ".version" => {
                    self.pos += 1;
                    match self.next() {
                        Some(Tok::Float(v)) => {
                            let s = format!("{v}");
                            let (a, b) = s.split_once('.').unwrap_or((&s, "0"));
                            m.version = (a.parse().unwrap_or(0), b.parse().unwrap_or(0));
                        }
                        Some(Tok::Int(v)) => m.version = (v as u32, 0),
                        _ => return self.err("expected a version number"),
                    }
                }
                ".target" => {
                    self.pos += 1;
                    m.target = self.word()?;
                    while self.eat_p(',') {
                        self.word()?;
                    }
                }
                ".address_size" => {
                    self.pos += 1;
                    m.address_size = self.int()? as u32;
                }
                ".file" | ".loc" | ".section" => self.skip_line(line),
                ".pragma" => self.skip_statement(),
                _ => {
                    // Linkage prefixes, then a variable or a function.
                    let mut external = false;
                    while let Some(Tok::Word(l)) = self.peek() {
                        match l.as_str() {
                            ".visible" | ".weak" | ".common" => self.pos += 1,
                            ".extern" => {
                                external = true;
                                self.pos += 1
                            }
                            _ => break,
                        }
                    }
                    match self.peek() {
                        Some(Tok::Word(k)) if k == ".entry" || k == ".func" => {
                            let f = self.function()?;
                            m.functions.push(f);
                        }
                        Some(Tok::Word(k))
                            if matches!(k.as_str(), ".global" | ".const" | ".shared" | ".local") =>
                        {
                            let mut v = self.var_decl(true)?;
                            v.external = external;
                            self.expect_p(';')?;
                            if m.vars.iter().any(|w| w.name == v.name) {
                                return Err(FrontendError::Syntax {
                                    line: v.line,
                                    message: format!("variable `{}` is declared twice", v.name),
                                });
                            }
                            m.vars.push(v);
                        }
                        _ => return self.err(format!("unexpected {} at module scope", self.describe())),
                    }
                }
            }
        }
        Ok(m)
    }

    /// `.global .align 4 .f32 name[3] = {...}` (the state-space word is next).
    fn var_decl(&mut self, allow_init: bool) -> R<VarDecl> {
        let line = self.line();
        let space = match self.word()?.as_str() {
            ".global" => Space::Global,
            ".const" => Space::Const,
            ".shared" => Space::Shared,
            ".local" => Space::Local,
            ".param" => Space::Param,
            s => return self.err(format!("`{s}` is not a state space")),
        };
        let mut align = 0;
        let mut ty = None;
        let mut vector = 1;
        loop {
            match self.peek().cloned() {
                Some(Tok::Word(w)) if w == ".align" => {
                    self.pos += 1;
                    align = self.int()? as u64;
                }
                Some(Tok::Word(w)) if w == ".v2" || w == ".v4" || w == ".v8" => {
                    self.pos += 1;
                    vector = w[2..].parse().unwrap_or(1);
                }
                Some(Tok::Word(w))
                    if w == ".ptr"
                        || w == ".global"
                        || w == ".shared"
                        || w == ".const"
                        || w == ".local"
                        || w == ".noreturn"
                        || w == ".attribute" =>
                {
                    self.pos += 1;
                    if w == ".attribute" {
                        self.expect_p('(')?;
                        while !self.eat_p(')') {
                            if self.next().is_none() {
                                return self.err("unterminated attribute");
                            }
                        }
                    }
                }
                Some(Tok::Word(w)) if w.starts_with('.') => {
                    let Some(t) = PtxType::from_name(&w) else {
                        return self.err(format!("unknown type or qualifier `{w}`"));
                    };
                    self.pos += 1;
                    ty = Some(t);
                }
                _ => break,
            }
        }
        let Some(ty) = ty else { return self.err("a variable needs a type") };
        let name = self.word()?;
        let mut count = None;
        while self.eat_p('[') {
            if self.eat_p(']') {
                count = Some(0);
                continue;
            }
            let n = self.int()?;
            if n < 0 {
                return self.err("a negative array length");
            }
            count = Some(count.unwrap_or(1).max(1) * n as u64);
            self.expect_p(']')?;
        }
        let mut init = Vec::new();
        if self.eat_p('=') {
            if !allow_init {
                return self.err("an initializer is not allowed here");
            }
            self.init(&mut init, ty)?;
        }
        Ok(VarDecl {
            name,
            space,
            ty,
            vector,
            align: if align == 0 { ty.size() * vector as u64 } else { align },
            count,
            init,
            external: false,
            line,
        })
    }

    fn init(&mut self, out: &mut Vec<Init>, ty: PtxType) -> R<()> {
        if self.eat_p('{') {
            if self.eat_p('}') {
                return Ok(());
            }
            loop {
                self.init(out, ty)?;
                if self.eat_p('}') {
                    return Ok(());
                }
                self.expect_p(',')?;
            }
        }
        let neg = self.eat_p('-');
        match self.next() {
            Some(Tok::Int(v)) => {
                let v = if neg { v.wrapping_neg() } else { v };
                let bits = match ty {
                    PtxType::F32 => (v as f32).to_bits() as u64,
                    PtxType::F64 => (v as f64).to_bits(),
                    _ => v as u64,
                };
                out.push(Init::Bits(bits));
            }
            Some(Tok::Float(f)) => {
                let f = if neg { -f } else { f };
                out.push(Init::Bits(if ty == PtxType::F64 {
                    f.to_bits()
                } else {
                    (f as f32).to_bits() as u64
                }));
            }
            Some(Tok::Word(w)) if w.starts_with("0f") || w.starts_with("0d") => {
                let bits = float_bits(&w).ok_or(()).or_else(|_| self.err(format!("bad float `{w}`")))?;
                let (bits, double) = bits;
                let v = match (ty, double) {
                    (PtxType::F64, false) => (f32::from_bits(bits as u32) as f64).to_bits(),
                    (PtxType::F32, true) => (f64::from_bits(bits) as f32).to_bits() as u64,
                    _ => bits,
                };
                out.push(Init::Bits(v));
            }
            Some(Tok::Word(w)) if w == "generic" => {
                self.expect_p('(')?;
                let s = self.word()?;
                self.expect_p(')')?;
                let off = self.init_offset()?;
                out.push(Init::Symbol(s, off));
            }
            Some(Tok::Word(w)) => {
                let off = self.init_offset()?;
                out.push(Init::Symbol(w, off));
            }
            _ => {
                self.pos -= 1;
                return self.err(format!("expected an initializer value, found {}", self.describe()));
            }
        }
        Ok(())
    }

    fn init_offset(&mut self) -> R<i64> {
        if self.eat_p('+') || self.is_p('-') {
            return self.int();
        }
        Ok(0)
    }

    fn param_list(&mut self) -> R<Vec<VarDecl>> {
        let mut v = Vec::new();
        self.expect_p('(')?;
        if self.eat_p(')') {
            return Ok(v);
        }
        loop {
            if !self.is_word(".param") && !self.is_word(".reg") {
                return self.err(format!("expected a parameter, found {}", self.describe()));
            }
            if self.is_word(".reg") {
                return self.err("register parameters (non-ABI functions) are not supported");
            }
            v.push(self.var_decl(false)?);
            if self.eat_p(')') {
                return Ok(v);
            }
            self.expect_p(',')?;
        }
    }

    fn function(&mut self) -> R<Function> {
        let line = self.line();
        let entry = self.word()? == ".entry";
        let rets = if self.is_p('(') { self.param_list()? } else { Vec::new() };
        let name = self.word()?;
        let params = if self.is_p('(') { self.param_list()? } else { Vec::new() };
        let mut max_threads = None;
        // Performance directives before the body.
        while let Some(Tok::Word(w)) = self.peek().cloned() {
            match w.as_str() {
                ".maxntid" | ".reqntid" => {
                    self.pos += 1;
                    let mut n = self.int()? as u64;
                    while self.eat_p(',') {
                        n *= self.int()? as u64;
                    }
                    max_threads = Some(n.min(u32::MAX as u64) as u32);
                }
                ".minnctapersm" | ".maxnctapersm" | ".maxnreg" | ".maxclusterrank" => {
                    self.pos += 1;
                    self.int()?;
                }
                ".reqnctapercluster" | ".explicitcluster" | ".noreturn" => {
                    self.pos += 1;
                    while self.eat_p(',') || matches!(self.peek(), Some(Tok::Int(_))) {
                        self.pos += 1;
                    }
                }
                ".pragma" => self.skip_statement(),
                _ => break,
            }
        }
        for (i, p) in params.iter().chain(&rets).enumerate() {
            if params.iter().chain(&rets).take(i).any(|q| q.name == p.name) {
                return Err(FrontendError::Syntax {
                    line: p.line,
                    message: format!("parameter `{}` of `{name}` is declared twice", p.name),
                });
            }
        }
        let body = if self.eat_p(';') {
            None
        } else {
            self.expect_p('{')?;
            Some(self.stmts()?)
        };
        Ok(Function { name, entry, params, rets, body, max_threads, line })
    }

    /// Statements up to and including the closing `}`.
    fn stmts(&mut self) -> R<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            let line = self.line();
            match self.peek().cloned() {
                None => return self.err("unterminated function body"),
                Some(Tok::P('}')) => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(Tok::P('{')) => {
                    self.pos += 1;
                    out.push(Stmt::Scope(self.stmts()?));
                }
                Some(Tok::Word(w)) if w == ".reg" => {
                    self.pos += 1;
                    let mut ty = None;
                    while let Some(Tok::Word(t)) = self.peek().cloned() {
                        if !t.starts_with('.') {
                            break;
                        }
                        self.pos += 1;
                        if t == ".v2" || t == ".v4" {
                            return self.err("vector registers are not supported");
                        }
                        ty = PtxType::from_name(&t).or(ty);
                    }
                    let Some(ty) = ty else { return self.err("a register declaration needs a type") };
                    let mut names = Vec::new();
                    loop {
                        let n = self.word()?;
                        if self.eat_p('<') {
                            let c = self.int()?;
                            self.expect_p('>')?;
                            names.push((n, Some(c.max(0) as u64)));
                        } else {
                            names.push((n, None));
                        }
                        if !self.eat_p(',') {
                            break;
                        }
                    }
                    self.expect_p(';')?;
                    out.push(Stmt::Reg { ty, names });
                }
                Some(Tok::Word(w))
                    if matches!(w.as_str(), ".local" | ".shared" | ".param" | ".global" | ".const") =>
                {
                    let v = self.var_decl(false)?;
                    self.expect_p(';')?;
                    out.push(Stmt::Var(v));
                }
                Some(Tok::Word(w)) if w == ".loc" || w == ".file" => self.skip_line(line),
                Some(Tok::Word(w)) if w == ".pragma" => self.skip_statement(),
                Some(Tok::Word(w)) if self.peek_at(1) == Some(&Tok::P(':')) && !w.starts_with('.') => {
                    self.pos += 2;
                    out.push(Stmt::Label(w));
                }
                Some(Tok::P('@')) | Some(Tok::Word(_)) => out.push(Stmt::Inst(self.inst()?)),
                Some(_) => return self.err(format!("unexpected {}", self.describe())),
            }
        }
    }

    fn inst(&mut self) -> R<Inst> {
        let line = self.line();
        let guard = if self.eat_p('@') {
            let neg = self.eat_p('!');
            Some((self.word()?, neg))
        } else {
            None
        };
        let opcode = self.word()?;
        if opcode.starts_with('.') {
            return self.err(format!("unknown directive `{opcode}`"));
        }
        let mut operands = Vec::new();
        if !self.eat_p(';') {
            loop {
                operands.push(self.operand()?);
                if self.eat_p(';') {
                    break;
                }
                self.expect_p(',')?;
            }
        }
        Ok(Inst { line, guard, opcode, operands })
    }

    fn operand(&mut self) -> R<Operand> {
        let op = match self.peek().cloned() {
            Some(Tok::P('!')) => {
                self.pos += 1;
                Operand::Not(Box::new(self.operand()?))
            }
            Some(Tok::P('[')) => {
                self.pos += 1;
                let base = match self.peek().cloned() {
                    Some(Tok::Word(w)) => {
                        self.pos += 1;
                        if w.starts_with('%') {
                            Operand::Reg(w)
                        } else {
                            Operand::Sym(w)
                        }
                    }
                    Some(Tok::Int(_)) | Some(Tok::P('-')) => Operand::Imm(self.int()?),
                    _ => return self.err(format!("expected an address, found {}", self.describe())),
                };
                let mut offset = 0;
                if self.eat_p('+') || self.is_p('-') {
                    offset = self.int()?;
                }
                if self.eat_p(',') {
                    // A texture or surface reference, `[tex, {coordinates}]`: kept for the
                    // translator to refuse by name.
                    let mut v = vec![base];
                    loop {
                        v.push(self.operand()?);
                        if self.eat_p(']') {
                            break;
                        }
                        self.expect_p(',')?;
                    }
                    return Ok(Operand::List(v));
                }
                self.expect_p(']')?;
                Operand::Addr { base: Box::new(base), offset }
            }
            Some(Tok::P('{')) => {
                self.pos += 1;
                let mut v = Vec::new();
                if !self.eat_p('}') {
                    loop {
                        v.push(self.operand()?);
                        if self.eat_p('}') {
                            break;
                        }
                        self.expect_p(',')?;
                    }
                }
                Operand::Vector(v)
            }
            Some(Tok::P('(')) => {
                self.pos += 1;
                let mut v = Vec::new();
                if !self.eat_p(')') {
                    loop {
                        v.push(self.operand()?);
                        if self.eat_p(')') {
                            break;
                        }
                        self.expect_p(',')?;
                    }
                }
                Operand::List(v)
            }
            Some(Tok::P('-')) | Some(Tok::Int(_)) => {
                if self.is_p('-') && matches!(self.peek_at(1), Some(Tok::Float(_))) {
                    self.pos += 1;
                    let Some(Tok::Float(f)) = self.next() else { return self.err("expected a number") };
                    Operand::Float { bits: (-f).to_bits(), double: true }
                } else {
                    Operand::Imm(self.int()?)
                }
            }
            Some(Tok::Float(f)) => {
                self.pos += 1;
                Operand::Float { bits: f.to_bits(), double: true }
            }
            Some(Tok::Word(w)) => {
                self.pos += 1;
                if w == "_" {
                    Operand::Sink
                } else if let Some((bits, double)) = float_bits(&w) {
                    Operand::Float { bits, double }
                } else if w.starts_with('%') {
                    Operand::Reg(w)
                } else {
                    Operand::Sym(w)
                }
            }
            _ => return self.err(format!("expected an operand, found {}", self.describe())),
        };
        if self.eat_p('|') {
            let p = self.operand()?;
            return Ok(Operand::Pair(Box::new(op), Box::new(p)));
        }
        Ok(op)
    }
}

/// The bits of a hexadecimal float literal (`0f3F800000`, `0d3FF0000000000000`).
fn float_bits(w: &str) -> Option<(u64, bool)> {
    let lower = w.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0f") {
        if h.len() == 8 {
            return u32::from_str_radix(h, 16).ok().map(|b| (b as u64, false));
        }
    }
    if let Some(h) = lower.strip_prefix("0d") {
        if h.len() == 16 {
            return u64::from_str_radix(h, 16).ok().map(|b| (b, true));
        }
    }
    None
}

/// Parses PTX text.
pub fn parse(text: &str) -> Result<Module, FrontendError> {
    let toks = Lexer { s: text.as_bytes(), i: 0, line: 1 }.tokens()?;
    let mut p = Parser { toks, pos: 0 };
    p.module()
}
