//! hipify-clang's `half2Member` rewrite, without types.
//!
//! nvcc lets `h.x` and `h.y` of a `half2` read as `half`; HIP declares those members
//! `unsigned short`, so hipify-clang (unless `--no-undocumented-features`) writes a member
//! expression whose object has the type spelled `half2` as `reinterpret_cast<half&>(h.x)`,
//! except where it already is the operand of a `reinterpret_cast` to a reference. Its matcher
//! compares the printed type of the object with `half2` exactly: `__half2`, `const half2`,
//! `half2 *` and `auto` objects are left alone.
//!
//! Here the types come from declarations in the file: a variable, parameter or member declared
//! `half2 name` (or `half2 &name`) is an object of type `half2`; `half2 name[N]` and
//! `half2 *name` make `name[i]` one. Names are scoped by braces (parameters belong to the body
//! that follows their list). Not seen: a name redeclared with another type in an inner scope
//! (it stays `half2` here), objects reached through other expressions (`s.v.x`, `f().x`,
//! `(*p).x`), and declarations in other files.

use crate::lexer::{Kind, Token, IN_DIRECTIVE};
use crate::structure::Structure;
use crate::translate::{next_sig, prev_sig};

/// How a `half2` name reaches a `half2` object.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    /// `name.x`: a variable or reference.
    Direct,
    /// `name[i].x`: an array or a pointer.
    Indexed,
}

/// The member expressions to wrap, as byte ranges `(start, end)` of the whole expression.
pub(crate) fn members(tokens: &[Token], src: &str, structure: &Structure) -> Vec<(usize, usize)> {
    let text = |j: usize| tokens[j].text(src);
    let code = |j: usize| {
        let t = &tokens[j];
        t.is_active_code() && t.flags & IN_DIRECTIVE == 0 && !matches!(t.kind, Kind::Space | Kind::Comment)
    };
    let mut scopes: Vec<Scope> = vec![Scope { kind: ScopeKind::Other, names: Vec::new() }];
    // Declarations inside parentheses (parameters, `for` init) wait for the body.
    let mut pending: Vec<(&str, Access)> = Vec::new();
    let mut parens = 0usize;
    let mut out = Vec::new();
    for i in 0..tokens.len() {
        if !code(i) {
            continue;
        }
        let t = text(i);
        match tokens[i].kind {
            Kind::Punct => match t {
                "(" => parens += 1,
                ")" => parens = parens.saturating_sub(1),
                "{" => {
                    let params = std::mem::take(&mut pending);
                    let kind = scope_kind(tokens, src, i);
                    let names = if kind == ScopeKind::Other { Vec::new() } else { params };
                    scopes.push(Scope { kind, names });
                    parens = 0;
                }
                "}" => {
                    if scopes.len() > 1 {
                        scopes.pop();
                    }
                    pending.clear();
                }
                ";" if parens == 0 => pending.clear(),
                _ => {}
            },
            Kind::Ident if t == "half2" => {
                let declared = declarators(tokens, src, structure, i, parens > 0);
                if parens > 0 {
                    pending.extend(declared);
                } else if let Some(scope) = scopes.last_mut() {
                    scope.names.extend(declared);
                }
            }
            Kind::Ident => {
                let access = lookup(&scopes, t);
                if let Some(end) = access.and_then(|a| member_end(tokens, src, structure, i, a)) {
                    if !already_cast(tokens, src, i, end) {
                        out.push((tokens[i].start as usize, tokens[end].end as usize));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    /// A function body (the parameters are its names).
    Body,
    /// The body of a `const` member function: the class's members are `const half2` there.
    ConstBody,
    /// A `struct`, `class` or `union` body.
    Class,
    /// Any other block (and the file).
    Other,
}

struct Scope<'s> {
    kind: ScopeKind,
    names: Vec<(&'s str, Access)>,
}

/// What the `{` at `open` begins.
fn scope_kind(tokens: &[Token], src: &str, open: usize) -> ScopeKind {
    let text = |j: usize| tokens[j].text(src);
    match prev_sig(tokens, open).map(text) {
        Some("const") => return ScopeKind::ConstBody,
        Some(")" | "noexcept" | "override" | "final") => return ScopeKind::Body,
        _ => {}
    }
    // `struct S : Base {`: a class keyword since the previous statement or block.
    let mut k = open;
    while let Some(p) = prev_sig(tokens, k) {
        match text(p) {
            "struct" | "class" | "union" => return ScopeKind::Class,
            ";" | "{" | "}" | "(" | ")" | "=" => return ScopeKind::Other,
            _ => k = p,
        }
    }
    ScopeKind::Other
}

/// How `name` reaches a `half2` object where the innermost scope is the last: `None` when it
/// names none, or a class member inside a `const` member function (its type there is
/// `const half2`, which hipify-clang's matcher does not take).
fn lookup(scopes: &[Scope<'_>], name: &str) -> Option<Access> {
    let mut in_const_method = false;
    for scope in scopes.iter().rev() {
        if let Some(&(_, access)) = scope.names.iter().rev().find(|(n, _)| *n == name) {
            return (!(in_const_method && scope.kind == ScopeKind::Class)).then_some(access);
        }
        in_const_method |= scope.kind == ScopeKind::ConstBody;
    }
    None
}

/// The names a declaration with type `half2` at token `at` declares: one declarator in a
/// parameter list (`in_parens`), every comma-separated one of a statement. `None` of them
/// when `half2` is qualified (`const half2`, `half2 const`, `ns::half2`), a template argument
/// or part of an expression.
fn declarators<'s>(
    tokens: &[Token],
    src: &'s str,
    structure: &Structure,
    at: usize,
    in_parens: bool,
) -> Vec<(&'s str, Access)> {
    let text = |j: usize| tokens[j].text(src);
    let mut names = Vec::new();
    if let Some(p) = prev_sig(tokens, at) {
        if matches!(text(p), "const" | "volatile" | "." | "<" | "typedef" | "using") || joined(tokens, src, p)
        {
            return names;
        }
    }
    let mut j = next_sig(tokens, at);
    while let Some(mut k) = j {
        // `half2 const`, `half2<` and other non-names end the declaration at the check below.
        let mut access = if text(k) == "*" { Access::Indexed } else { Access::Direct };
        if matches!(text(k), "*" | "&") {
            let Some(n) = next_sig(tokens, k) else { break };
            k = n;
        }
        if tokens[k].kind != Kind::Ident
            || matches!(text(k), "const" | "volatile" | "__restrict__" | "operator")
        {
            break;
        }
        let name = text(k);
        let Some(mut after) = next_sig(tokens, k) else { break };
        if text(after) == "[" {
            access = Access::Indexed;
            // Skip every array dimension.
            while text(after) == "[" {
                let Some(close) = structure.close_of(after) else { return names };
                let Some(n) = next_sig(tokens, close) else { return names };
                after = n;
            }
        }
        if !matches!(text(after), ";" | "," | "=" | ")" | "{") {
            // `half2 f(...)`, `half2(...)`: a function or an expression.
            break;
        }
        names.push((name, access));
        if in_parens {
            break;
        }
        // Past the initializer to the next top-level `,` or the end of the statement.
        let mut e = after;
        loop {
            match text(e) {
                "," => break,
                ";" => return names,
                "(" | "[" | "{" => match structure.close_of(e) {
                    Some(c) => e = c,
                    None => return names,
                },
                ")" | "]" | "}" => return names,
                _ => {}
            }
            match next_sig(tokens, e) {
                Some(n) => e = n,
                None => return names,
            }
        }
        j = next_sig(tokens, e);
    }
    names
}

/// The token `x` or `y` ending `name.x` (`Direct`) or `name[...].x` (`Indexed`) at `at`, when
/// the name is used so (not itself a member, a qualified name or a declarator).
fn member_end(
    tokens: &[Token],
    src: &str,
    structure: &Structure,
    at: usize,
    access: Access,
) -> Option<usize> {
    let text = |j: usize| tokens[j].text(src);
    if let Some(p) = prev_sig(tokens, at) {
        let after_type = |q: usize| prev_sig(tokens, q).is_some_and(|r| text(r) == "half2");
        // The declarator itself, a member of something else, or a qualified name.
        let declarator = text(p) == "half2" || (matches!(text(p), "*" | "&") && after_type(p));
        if declarator || text(p) == "." || joined(tokens, src, p) {
            return None;
        }
    }
    let mut k = next_sig(tokens, at)?;
    if access == Access::Indexed {
        if text(k) != "[" {
            return None;
        }
        k = next_sig(tokens, structure.close_of(k)?)?;
    }
    if text(k) != "." {
        return None;
    }
    let m = next_sig(tokens, k)?;
    if !matches!(text(m), "x" | "y") {
        return None;
    }
    // `h.x(...)` would be a call, not a data member.
    if next_sig(tokens, m).is_some_and(|n| text(n) == "(") {
        return None;
    }
    Some(m)
}

/// Whether the punctuation at `p` ends `::` or `->` (the lexer gives one byte per token).
fn joined(tokens: &[Token], src: &str, p: usize) -> bool {
    let pair = |a: &str, b: &str| tokens[p].text(src) == b && p > 0 && tokens[p - 1].text(src) == a;
    pair(":", ":") || pair("-", ">")
}

/// Whether tokens `first..=last` are already the whole operand of a `reinterpret_cast` to a
/// reference type (`reinterpret_cast<half&>(h.x)`), which hipify-clang's matcher skips.
fn already_cast(tokens: &[Token], src: &str, first: usize, last: usize) -> bool {
    let text = |j: usize| tokens[j].text(src);
    let (Some(open), Some(close)) = (prev_sig(tokens, first), next_sig(tokens, last)) else {
        return false;
    };
    if text(open) != "(" || text(close) != ")" {
        return false;
    }
    let Some(gt) = prev_sig(tokens, open).filter(|&g| text(g) == ">") else { return false };
    let Some(amp) = prev_sig(tokens, gt) else { return false };
    if !matches!(text(amp), "&") {
        return false;
    }
    // Back to the `<` and the cast's name.
    let mut k = amp;
    let mut depth = 0;
    while let Some(p) = prev_sig(tokens, k) {
        match text(p) {
            ">" => depth += 1,
            "<" if depth == 0 => {
                return prev_sig(tokens, p).is_some_and(|c| text(c) == "reinterpret_cast");
            }
            "<" => depth -= 1,
            ";" | "{" | "}" => return false,
            _ => {}
        }
        k = p;
    }
    false
}
