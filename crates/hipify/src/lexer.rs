//! A C/C++/CUDA lexer that keeps every byte.
//!
//! Tokens are byte ranges into the source; concatenating all of them gives the
//! source back exactly, so the translator can copy untouched text verbatim. The
//! lexer also follows preprocessor structure: it marks tokens on directive lines
//! and, when asked ([`lex_with_macros`]), tokens of the `#if` groups the
//! preprocessor excludes, which the translator then leaves alone.

use crate::error::HipifyError;
use crate::pp::{Macros, Truth};
use crate::translate::Macro;

/// What a token is; only the distinctions the translator needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    /// String or character literal, raw or not, with its prefix.
    Literal,
    Comment,
    /// Spaces, tabs, newlines and backslash-newline continuations.
    Space,
    /// One punctuation byte (`<`, `(`, `:`, ...).
    Punct,
    /// The `<...>` or `"..."` operand of `#include`.
    HeaderName,
    /// Text the lexer does not look into: the rest of `#error`/`#warning` lines.
    Opaque,
}

/// The token is part of a preprocessor directive line.
pub const IN_DIRECTIVE: u8 = 1;
/// The token is inside a region disabled by `#if 0`.
pub const INACTIVE: u8 = 2;
/// The token is the first token (`#`) of a directive.
pub const DIRECTIVE_START: u8 = 4;

#[derive(Debug, Clone, Copy)]
pub struct Token {
    pub kind: Kind,
    pub flags: u8,
    pub start: u32,
    pub end: u32,
}

impl Token {
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start as usize..self.end as usize]
    }
    pub fn is_active_code(&self) -> bool {
        self.flags & INACTIVE == 0
    }
}

/// Turns a byte offset into a 1-based line and column (column counts bytes).
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let before = &src.as_bytes()[..offset.min(src.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = match before.iter().rposition(|&b| b == b'\n') {
        Some(nl) => offset - nl,
        None => offset + 1,
    };
    (line, col)
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b >= 0x80
}

fn is_ident_continue(b: u8) -> bool {
    is_ident_start(b) || b.is_ascii_digit()
}

/// State of one `#if` level.
#[derive(Clone, Copy)]
struct Cond {
    /// The preprocessor excludes the current group.
    dead: bool,
    /// The whole `#if` is nested inside an excluded group.
    outer_dead: bool,
    /// An earlier group of this `#if` is known to be taken.
    taken: bool,
    /// An earlier group's condition was unknown, so later groups may or may
    /// not be reached.
    unknown: bool,
}

struct Lexer<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    /// True until a non-space token appears on the current line.
    line_start: bool,
    in_directive: bool,
    conds: Vec<Cond>,
    macros: Macros,
    /// Mark the tokens of excluded groups [`INACTIVE`].
    mark_excluded: bool,
}

/// Lexes `src` into tokens covering every byte, with only the predefined macros.
pub fn lex(src: &str) -> Result<Vec<Token>, HipifyError> {
    lex_with_macros(src, &[])
}

/// Lexes `src` with macros defined or undefined on the command line; groups
/// the preprocessor excludes are marked [`INACTIVE`].
pub fn lex_with_macros(src: &str, command_line: &[Macro]) -> Result<Vec<Token>, HipifyError> {
    lex_groups(src, command_line, true)
}

/// Lexes `src`; with `mark_excluded`, the groups the preprocessor excludes
/// (given the command-line macros) are marked [`INACTIVE`]. Without it no
/// token is: every group is code, as hipify-clang's preprocessor keeps them by
/// default. Either way a stray quote in an excluded group is tolerated.
pub fn lex_groups(src: &str, command_line: &[Macro], mark_excluded: bool) -> Result<Vec<Token>, HipifyError> {
    let mut lx = Lexer {
        src,
        b: src.as_bytes(),
        pos: 0,
        tokens: Vec::with_capacity(src.len() / 3),
        line_start: true,
        in_directive: false,
        conds: Vec::new(),
        macros: Macros::new(command_line),
        mark_excluded,
    };
    // A UTF-8 byte order mark is kept as it is and does not hide a directive
    // on the first line.
    if src.starts_with('\u{feff}') {
        lx.pos = 3;
        lx.push(Kind::Space, 0, 0);
    }
    lx.run()?;
    Ok(lx.tokens)
}

impl<'a> Lexer<'a> {
    fn dead(&self) -> bool {
        self.conds.last().is_some_and(|c| c.dead || c.outer_dead)
    }

    fn push(&mut self, kind: Kind, start: usize, extra: u8) {
        let mut flags = extra;
        if self.in_directive {
            flags |= IN_DIRECTIVE;
        }
        if self.mark_excluded && self.dead() {
            flags |= INACTIVE;
        }
        self.tokens.push(Token { kind, flags, start: start as u32, end: self.pos as u32 });
    }

    fn peek(&self, off: usize) -> u8 {
        *self.b.get(self.pos + off).unwrap_or(&0)
    }

    fn error(&self, at: usize, what: &'static str) -> HipifyError {
        let (line, column) = line_col(self.src, at);
        HipifyError::Unterminated { what, line, column }
    }

    fn run(&mut self) -> Result<(), HipifyError> {
        while self.pos < self.b.len() {
            let start = self.pos;
            let c = self.b[self.pos];
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.in_directive = false;
                    self.line_start = true;
                    self.push(Kind::Space, start, 0);
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    while matches!(self.peek(0), b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
                        self.pos += 1;
                    }
                    self.push(Kind::Space, start, 0);
                }
                b'\\' if self.continuation_len() > 0 => {
                    self.pos += self.continuation_len();
                    self.push(Kind::Space, start, 0);
                }
                b'/' if self.peek(1) == b'/' => {
                    self.line_comment();
                    self.push(Kind::Comment, start, 0);
                }
                b'/' if self.peek(1) == b'*' => {
                    match memfind(&self.b[self.pos + 2..], b"*/") {
                        Some(i) => self.pos += 2 + i + 2,
                        None => return Err(self.error(start, "block comment")),
                    }
                    self.push(Kind::Comment, start, 0);
                }
                b'#' if self.line_start => {
                    self.pos += 1;
                    self.in_directive = true;
                    self.line_start = false;
                    self.push(Kind::Punct, start, DIRECTIVE_START);
                    self.directive()?;
                }
                b'"' | b'\'' => {
                    self.quoted(c)?;
                    self.line_start = false;
                    self.push(Kind::Literal, start, 0);
                }
                b'0'..=b'9' => {
                    self.number();
                    self.line_start = false;
                    self.push(Kind::Number, start, 0);
                }
                b'.' if self.peek(1).is_ascii_digit() => {
                    self.number();
                    self.line_start = false;
                    self.push(Kind::Number, start, 0);
                }
                _ if is_ident_start(c) => {
                    self.line_start = false;
                    if self.literal_prefix()? {
                        self.push(Kind::Literal, start, 0);
                        continue;
                    }
                    while self.pos < self.b.len() && is_ident_continue(self.b[self.pos]) {
                        self.pos += 1;
                    }
                    self.push(Kind::Ident, start, 0);
                }
                _ => {
                    self.pos += 1;
                    self.line_start = false;
                    self.push(Kind::Punct, start, 0);
                }
            }
        }
        Ok(())
    }

    /// Length of a backslash-newline at the cursor (`\` `\r`? `\n`), or 0.
    fn continuation_len(&self) -> usize {
        match (self.peek(1), self.peek(2)) {
            (b'\n', _) => 2,
            (b'\r', b'\n') => 3,
            _ => 0,
        }
    }

    fn line_comment(&mut self) {
        while self.pos < self.b.len() {
            match self.b[self.pos] {
                b'\n' => return,
                b'\\' if self.continuation_len() > 0 => self.pos += self.continuation_len(),
                _ => self.pos += 1,
            }
        }
    }

    fn number(&mut self) {
        self.pos += 1;
        while self.pos < self.b.len() {
            let c = self.b[self.pos];
            let exponent_sign =
                matches!(c, b'+' | b'-') && matches!(self.b[self.pos - 1], b'e' | b'E' | b'p' | b'P');
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || exponent_sign {
                self.pos += 1;
            } else if c == b'\'' && self.peek(1).is_ascii_alphanumeric() {
                // C++14 digit separator.
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// A string or character literal at the cursor (the opening quote).
    fn quoted(&mut self, quote: u8) -> Result<(), HipifyError> {
        let start = self.pos;
        self.pos += 1;
        while self.pos < self.b.len() {
            match self.b[self.pos] {
                b'\\' => self.pos += 2,
                b'\n' => break,
                c if c == quote => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(self.b.len());
        // A stray quote in dead code or on a directive line is tolerated as the
        // preprocessor does; anywhere else it is an error.
        if self.dead() || self.in_directive {
            while self.pos > start + 1 && self.b[self.pos - 1] == b'\n' {
                self.pos -= 1;
            }
            return Ok(());
        }
        Err(self.error(start, if quote == b'"' { "string literal" } else { "character literal" }))
    }

    /// Handles an identifier that is really a literal prefix (`u8"..."`,
    /// `R"d(...)d"`, `L'x'`). Returns true when a literal was consumed.
    fn literal_prefix(&mut self) -> Result<bool, HipifyError> {
        let rest = &self.b[self.pos..];
        let prefixes: [&[u8]; 10] = [b"u8R", b"uR", b"UR", b"LR", b"R", b"u8", b"u", b"U", b"L", b""];
        for p in prefixes {
            if p.is_empty() || !rest.starts_with(p) {
                continue;
            }
            let q = rest.get(p.len()).copied().unwrap_or(0);
            if p.ends_with(b"R") && q == b'"' {
                let start = self.pos;
                self.pos += p.len();
                return self.raw_string(start).map(|_| true);
            }
            if !p.ends_with(b"R") && (q == b'"' || q == b'\'') {
                self.pos += p.len();
                self.quoted(q)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn raw_string(&mut self, start: usize) -> Result<(), HipifyError> {
        // Cursor is on the opening quote. The delimiter is at most 16 characters
        // from the basic source set, without spaces, parentheses, backslashes or
        // control characters ([lex.string]).
        let open = self.pos + 1;
        let mut paren = None;
        for (i, &c) in self.b[open..].iter().enumerate() {
            if c == b'(' {
                paren = Some(open + i);
                break;
            }
            if i == 16 {
                let (line, column) = line_col(self.src, start);
                return Err(HipifyError::RawStringDelimiter {
                    line,
                    column,
                    reason: "is longer than 16 characters",
                });
            }
            if matches!(c, b' ' | b')' | b'\\' | b'"') || c.is_ascii_control() || c >= 0x80 {
                let (line, column) = line_col(self.src, start);
                let reason = if c == b'\n' || c == b'"' {
                    "has no opening parenthesis"
                } else {
                    "holds a space, ')', '\\' or control character"
                };
                return Err(HipifyError::RawStringDelimiter { line, column, reason });
            }
        }
        let Some(paren) = paren else { return Err(self.error(start, "raw string literal")) };
        let delim = &self.b[open..paren];
        let mut close = Vec::with_capacity(delim.len() + 2);
        close.push(b')');
        close.extend_from_slice(delim);
        close.push(b'"');
        match memfind(&self.b[paren + 1..], &close) {
            Some(i) => {
                self.pos = paren + 1 + i + close.len();
                Ok(())
            }
            None => Err(self.error(start, "raw string literal")),
        }
    }

    /// Lexes the directive name after `#` and applies its special rules.
    fn directive(&mut self) -> Result<(), HipifyError> {
        // Spaces between `#` and the name.
        let s = self.pos;
        while matches!(self.peek(0), b' ' | b'\t') {
            self.pos += 1;
        }
        if self.pos > s {
            self.push(Kind::Space, s, 0);
        }
        let name_start = self.pos;
        while self.pos < self.b.len() && is_ident_continue(self.b[self.pos]) {
            self.pos += 1;
        }
        let name = &self.src[name_start..self.pos];
        match name {
            "if" | "ifdef" | "ifndef" => {
                let outer_dead = self.dead();
                let t = if outer_dead { Truth::False } else { self.condition(name) };
                // The directive itself belongs to the enclosing region.
                self.push(Kind::Ident, name_start, 0);
                self.conds.push(Cond {
                    dead: t == Truth::False,
                    outer_dead,
                    taken: t == Truth::True,
                    unknown: t == Truth::Unknown,
                });
                return Ok(());
            }
            "elif" | "elifdef" | "elifndef" | "else" => {
                let t = match self.conds.last() {
                    Some(c) if c.outer_dead || c.taken => Truth::False,
                    Some(_) if name == "else" => Truth::True,
                    Some(_) => self.condition(name),
                    None => Truth::True,
                };
                if let Some(c) = self.conds.last_mut() {
                    c.dead = t == Truth::False;
                    if c.unknown {
                        // Reached only if no earlier unknown group was taken.
                    } else {
                        c.taken |= t == Truth::True;
                        c.unknown = t == Truth::Unknown;
                    }
                }
                self.push(Kind::Ident, name_start, 0);
                return Ok(());
            }
            "endif" => {
                self.conds.pop();
                self.push(Kind::Ident, name_start, 0);
                return Ok(());
            }
            "define" | "undef" if !self.dead() => {
                let rest = self.directive_text(self.pos);
                if name == "define" {
                    self.macros.define(&rest);
                } else {
                    self.macros.undefine(&rest);
                }
            }
            _ => {}
        }
        if !name.is_empty() {
            self.push(Kind::Ident, name_start, 0);
        }
        match name {
            "include" | "include_next" | "import" => {
                let s = self.pos;
                while matches!(self.peek(0), b' ' | b'\t') {
                    self.pos += 1;
                }
                if self.pos > s {
                    self.push(Kind::Space, s, 0);
                }
                let open = self.peek(0);
                let close = match open {
                    b'<' => b'>',
                    b'"' => b'"',
                    _ => return Ok(()),
                };
                let hs = self.pos;
                let end = self.b[hs + 1..].iter().position(|&c| c == close || c == b'\n');
                if let Some(i) = end {
                    if self.b[hs + 1 + i] == close {
                        self.pos = hs + 1 + i + 1;
                        self.push(Kind::HeaderName, hs, 0);
                    }
                }
            }
            "error" | "warning" => {
                let s = self.pos;
                while self.pos < self.b.len() && self.b[self.pos] != b'\n' {
                    if self.b[self.pos] == b'\\' && self.continuation_len() > 0 {
                        self.pos += self.continuation_len();
                    } else {
                        self.pos += 1;
                    }
                }
                // Keep a trailing `\r` out of the opaque text so CRLF stays visible.
                if self.pos > s {
                    self.push(Kind::Opaque, s, 0);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The condition of the directive `name` whose text starts at the cursor.
    fn condition(&self, name: &str) -> Truth {
        let text = self.directive_text(self.pos);
        match name {
            "ifdef" | "elifdef" => self.macros.ifdef(&text, false),
            "ifndef" | "elifndef" => self.macros.ifdef(&text, true),
            _ => self.macros.eval(&text),
        }
    }

    /// The rest of the directive line from `at`: continuations joined,
    /// comments replaced by a space, as translation phases 2 and 3 do.
    fn directive_text(&self, at: usize) -> String {
        let b = self.b;
        let mut out = Vec::new();
        let mut i = at;
        while i < b.len() {
            match b[i] {
                b'\n' => break,
                b'\\' if b.get(i + 1) == Some(&b'\n') => i += 2,
                b'\\' if b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') => i += 3,
                b'/' if b.get(i + 1) == Some(&b'/') => break,
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i = memfind(&b[i + 2..], b"*/").map_or(b.len(), |j| i + 2 + j + 2);
                    out.push(b' ');
                }
                c => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Finds `needle` in `hay`; small and dependency-free because needles are short.
fn memfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut from = 0;
    while let Some(i) = hay[from..].iter().position(|&c| c == first) {
        let at = from + i;
        if hay[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Kind, String)> {
        lex(src)
            .expect("lexes")
            .into_iter()
            .filter(|t| t.kind != Kind::Space)
            .map(|t| (t.kind, t.text(src).to_string()))
            .collect()
    }

    #[test]
    fn tokens_cover_every_byte() {
        let src = "a /* x */ \"s\\\"\" 'c' R\"d(q)\"d)d\" // e\\\n f\r\n#include <x.h>\n1'000u";
        let toks = lex(src).expect("lexes");
        let joined: String = toks.iter().map(|t| t.text(src)).collect();
        assert_eq!(joined, src);
    }

    #[test]
    fn raw_string_with_quotes_inside() {
        let k = kinds("R\"x(a)\" cudaMalloc )x\" b");
        assert_eq!(k[0], (Kind::Literal, "R\"x(a)\" cudaMalloc )x\"".to_string()));
        assert_eq!(k[1], (Kind::Ident, "b".to_string()));
    }

    #[test]
    fn prefixed_literals() {
        let k = kinds("u8\"a\" L'b' U\"c\" u\"d\" LR\"(e)\" x");
        assert_eq!(k.iter().filter(|(k, _)| *k == Kind::Literal).count(), 5);
    }

    #[test]
    fn unterminated_comment_is_an_error() {
        let err = lex("int x;\n/* open").unwrap_err();
        assert_eq!(err.to_string(), "unterminated block comment starting at 2:1");
    }

    #[test]
    fn stray_quote_in_if0_is_tolerated() {
        let k = lex("#if 0\nit's dead\n#endif\nx").expect("lexes");
        assert!(k.iter().any(|t| t.flags & INACTIVE != 0));
    }
}
