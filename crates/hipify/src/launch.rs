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

/// Names of the kernels declared in this file as templates, found on first
/// use: hipify-clang wraps every launch of a template in `HIP_KERNEL_NAME()`,
/// also when the template arguments are deduced.
#[derive(Debug, Default)]
pub(crate) struct TemplatedKernels {
    names: Option<Vec<String>>,
}

impl TemplatedKernels {
    fn contains(&mut self, tokens: &[Token], src: &str, name: &str) -> bool {
        self.names.get_or_insert_with(|| templated_kernels(tokens, src)).iter().any(|n| n == name)
    }
}

/// Scans for `template <...> ... __global__ ... name(`.
fn templated_kernels(tokens: &[Token], src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (g, t) in tokens.iter().enumerate() {
        if t.kind != Kind::Ident || t.text(src) != "__global__" {
            continue;
        }
        // Back to the start of the declaration.
        let mut templated = false;
        let mut k = g;
        while let Some(p) = prev_sig(tokens, k) {
            match text(tokens, src, p) {
                ";" | "{" | "}" => break,
                "template" => {
                    templated = true;
                    break;
                }
                _ => k = p,
            }
        }
        if !templated {
            continue;
        }
        // Forward to the name: the identifier before the first `(` that does not
        // belong to an attribute such as `__launch_bounds__(...)`.
        let mut j = g;
        let mut last_ident: Option<usize> = None;
        while let Some(n) = next_sig(tokens, j) {
            let s = text(tokens, src, n);
            if s == "(" {
                let attribute = last_ident.is_some_and(|l| text(tokens, src, l).starts_with("__"));
                if !attribute {
                    if let Some(l) = last_ident {
                        out.push(text(tokens, src, l).to_string());
                    }
                    break;
                }
                // Skip the attribute's parenthesised arguments.
                let mut depth = 0;
                let mut m = n;
                while m < tokens.len() {
                    match text(tokens, src, m) {
                        "(" => depth += 1,
                        ")" => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    m += 1;
                }
                j = m;
                last_ident = None;
                continue;
            }
            if matches!(s, ";" | "{") {
                break;
            }
            if tokens[n].kind == Kind::Ident {
                last_ident = Some(n);
            }
            j = n;
        }
    }
    out
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
    /// End of the last argument and start of the closing parenthesis.
    args_end: usize,
    close_start: usize,
    has_args: bool,
    /// Which of grid and block already read `dim3(...)`.
    is_dim3: [bool; 2],
}

fn text<'a>(tokens: &[Token], src: &'a str, i: usize) -> &'a str {
    tokens[i].text(src)
}

fn is_char(tokens: &[Token], src: &str, i: usize, c: &str) -> bool {
    tokens.get(i).is_some_and(|t| t.kind == Kind::Punct && t.text(src) == c)
}

/// Recognises a launch whose `<<<` starts at token `i`.
pub(crate) fn find(
    tokens: &[Token],
    src: &str,
    i: usize,
    templates: &mut TemplatedKernels,
) -> Option<Launch> {
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
    let close_start = tokens[close].start as usize;
    let (args_start, args_end, has_args) = match first_arg {
        Some(a) => (tokens[a].start as usize, tokens[prev_sig(tokens, close)?].end as usize, true),
        None => (close_start, close_start, false),
    };
    if !templated {
        let name = &src[tokens[j].start as usize..tokens[j].end as usize];
        templated = templates.contains(tokens, src, name);
    }
    let is_dim3 = [0, 1].map(|p| src[config[p].start..config[p].end].starts_with("dim3("));
    Some(Launch {
        name_start,
        name_end,
        templated,
        config,
        args_start,
        args_end,
        close_start,
        has_args,
        is_dim3,
    })
}

impl Launch {
    /// The edits that turn this launch into `hipLaunchKernelGGL(...)`.
    pub(crate) fn rewrite(&self, _tokens: &[Token], _src: &str) -> Option<Vec<Edit>> {
        let edit = |start: usize, end: usize, text: String| Edit { start, end, text: Cow::Owned(text) };
        let sep = if self.has_args { ", " } else { "" };
        let c = &self.config;
        // hipify-clang writes grid and block as `dim3(...)` unless they already are.
        let (open0, close0) = if self.is_dim3[0] { ("", "") } else { ("dim3(", ")") };
        let (open1, close1) = if self.is_dim3[1] { ("", "") } else { ("dim3(", ")") };
        let mut edits = Vec::with_capacity(7);
        let open = if self.templated { "hipLaunchKernelGGL(HIP_KERNEL_NAME(" } else { "hipLaunchKernelGGL(" };
        edits.push(edit(self.name_start, self.name_start, open.to_string()));
        let close_name = if self.templated { ")" } else { "" };
        edits.push(edit(self.name_end, c[0].start, format!("{close_name}, {open0}")));
        edits.push(edit(c[0].end, c[1].start, format!("{close0}, {open1}")));
        match c.len() {
            2 => edits.push(edit(c[1].end, self.args_start, format!("{close1}, 0, 0{sep}"))),
            3 => {
                edits.push(edit(c[1].end, c[2].start, format!("{close1}, ")));
                edits.push(edit(c[2].end, self.args_start, format!(", 0{sep}")));
            }
            _ => {
                edits.push(edit(c[1].end, c[2].start, format!("{close1}, ")));
                edits.push(edit(c[2].end, c[3].start, ", ".to_string()));
                edits.push(edit(c[3].end, self.args_start, sep.to_string()));
            }
        }
        if self.has_args && self.args_end < self.close_start {
            edits.push(edit(self.args_end, self.close_start, String::new()));
        }
        Some(edits)
    }
}
