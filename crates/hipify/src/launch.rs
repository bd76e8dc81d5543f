//! Kernel launches: finding `kernel<<<grid, block[, shmem[, stream]]>>>(args)`
//! and rewriting it into `hipLaunchKernelGGL(kernel, dim3(grid), dim3(block),
//! shmem, stream, args)`.
//!
//! The rewrite is a handful of edits on the punctuation between the parts, so
//! identifiers inside the grid, block and argument expressions are still
//! translated by the ordinary identifier pass and never overlap these edits.

use std::borrow::Cow;

use crate::lexer::{Kind, Token};
use crate::translate::{next_sig, prev_sig, Edit};

/// Byte range of one comma-separated part, without surrounding space or comments.
#[derive(Debug, Clone, Copy)]
struct Part {
    start: usize,
    end: usize,
}

/// A recognised launch; token indices and byte offsets into the source.
#[derive(Debug)]
pub(crate) struct Launch {
    name_start: usize,
    name_end: usize,
    templated: bool,
    config: Vec<Part>,
    /// Offset where the kernel arguments start (first argument token, or the
    /// closing parenthesis when there are none).
    args_start: usize,
    has_args: bool,
}

fn text<'a>(tokens: &[Token], src: &'a str, i: usize) -> &'a str {
    tokens[i].text(src)
}

fn is_char(tokens: &[Token], src: &str, i: usize, c: &str) -> bool {
    tokens.get(i).is_some_and(|t| t.kind == Kind::Punct && t.text(src) == c)
}

/// Recognises a launch whose `<<<` starts at token `i`.
pub(crate) fn find(tokens: &[Token], src: &str, i: usize) -> Option<Launch> {
    if !(is_char(tokens, src, i, "<") && is_char(tokens, src, i + 1, "<") && is_char(tokens, src, i + 2, "<"))
    {
        return None;
    }
    if i > 0 && is_char(tokens, src, i - 1, "<") {
        return None;
    }
    // The kernel name: `ns::name`, optionally followed by template arguments.
    let mut j = prev_sig(tokens, i)?;
    let name_end = tokens[j].end as usize;
    let mut templated = false;
    if is_char(tokens, src, j, ">") {
        let mut depth = 0i32;
        let mut k = j;
        loop {
            match text(tokens, src, k) {
                ">" if tokens[k].kind == Kind::Punct => depth += 1,
                "<" if tokens[k].kind == Kind::Punct => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
            k = k.checked_sub(1)?;
        }
        templated = true;
        j = prev_sig(tokens, k)?;
    }
    if tokens[j].kind != Kind::Ident {
        return None;
    }
    while let Some(c2) = prev_sig(tokens, j) {
        if !(c2 > 0 && is_char(tokens, src, c2, ":") && is_char(tokens, src, c2 - 1, ":")) {
            break;
        }
        match prev_sig(tokens, c2 - 1) {
            Some(q) if tokens[q].kind == Kind::Ident => j = q,
            _ => break,
        }
    }
    // A member (`obj.k<<<...>>>`) or a pointer expression cannot be wrapped
    // without parsing more of the expression; such launches stay as they are.
    let mut name_start = tokens[j].start as usize;
    if let Some(p) = prev_sig(tokens, j) {
        let before = text(tokens, src, p);
        if before == "." || (before == ">" && p > 0 && is_char(tokens, src, p - 1, "-")) {
            return None;
        }
        // A leading `::` belongs to the name.
        if before == ":" && p > 0 && is_char(tokens, src, p - 1, ":") {
            let qualified = prev_sig(tokens, p - 1).is_some_and(|q| tokens[q].kind == Kind::Ident);
            if !qualified {
                name_start = tokens[p - 1].start as usize;
            }
        }
    }

    // The launch configuration up to the matching `>>>`.
    let mut depth = 0i32;
    let mut k = i + 3;
    let mut config = Vec::new();
    let mut part: Option<Part> = None;
    loop {
        let t = tokens.get(k)?;
        if matches!(t.kind, Kind::Space | Kind::Comment) {
            k += 1;
            continue;
        }
        let s = t.text(src);
        if t.kind == Kind::Punct {
            match s {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                ";" => return None,
                _ => {}
            }
            if depth < 0 {
                return None;
            }
            if depth == 0 && s == ">" && is_char(tokens, src, k + 1, ">") && is_char(tokens, src, k + 2, ">")
            {
                config.push(part?);
                k += 2;
                break;
            }
            if depth == 0 && s == "," {
                config.push(part.take()?);
                k += 1;
                continue;
            }
        }
        let p = part.get_or_insert(Part { start: t.start as usize, end: t.end as usize });
        p.end = t.end as usize;
        k += 1;
    }
    if !(2..=4).contains(&config.len()) {
        return None;
    }
    // The argument list.
    let open = next_sig(tokens, k)?;
    if !is_char(tokens, src, open, "(") {
        return None;
    }
    let mut depth = 0i32;
    let mut close = open;
    loop {
        let t = tokens.get(close)?;
        if t.kind == Kind::Punct {
            match t.text(src) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                _ => {}
            }
        }
        if depth == 0 {
            break;
        }
        close += 1;
    }
    let first_arg = next_sig(tokens, open).filter(|&a| a < close);
    let (args_start, has_args) = match first_arg {
        Some(a) => (tokens[a].start as usize, true),
        None => (tokens[close].start as usize, false),
    };
    Some(Launch { name_start, name_end, templated, config, args_start, has_args })
}

impl Launch {
    /// The edits that turn this launch into `hipLaunchKernelGGL(...)`.
    pub(crate) fn rewrite(&self, _tokens: &[Token], _src: &str) -> Option<Vec<Edit>> {
        let edit = |start: usize, end: usize, text: String| Edit { start, end, text: Cow::Owned(text) };
        let sep = if self.has_args { ", " } else { "" };
        let c = &self.config;
        let mut edits = Vec::with_capacity(6);
        let open = if self.templated { "hipLaunchKernelGGL(HIP_KERNEL_NAME(" } else { "hipLaunchKernelGGL(" };
        edits.push(edit(self.name_start, self.name_start, open.to_string()));
        let close_name = if self.templated { ")" } else { "" };
        edits.push(edit(self.name_end, c[0].start, format!("{close_name}, dim3(")));
        edits.push(edit(c[0].end, c[1].start, "), dim3(".to_string()));
        match c.len() {
            2 => edits.push(edit(c[1].end, self.args_start, format!("), 0, 0{sep}"))),
            3 => {
                edits.push(edit(c[1].end, c[2].start, "), ".to_string()));
                edits.push(edit(c[2].end, self.args_start, format!(", 0{sep}")));
            }
            _ => {
                edits.push(edit(c[1].end, c[2].start, "), ".to_string()));
                edits.push(edit(c[2].end, c[3].start, ", ".to_string()));
                edits.push(edit(c[3].end, self.args_start, sep.to_string()));
            }
        }
        Some(edits)
    }
}
