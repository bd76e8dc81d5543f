//! Kernel launches: finding `kernel<<<grid, block[, shmem[, stream]]>>>(args)`
//! and rewriting it into `hipLaunchKernelGGL(kernel, dim3(grid), dim3(block),
//! shmem, stream, args)`, as hipify-clang writes it.
//!
//! The rewrite is a handful of edits on the punctuation between the parts, so
//! identifiers inside the grid, block and argument expressions are still
//! translated by the ordinary identifier pass and never overlap these edits.
//! Where hipify-clang would drop text between the parts (a comment, a
//! preprocessor line inside the argument list), that text is kept in place:
//! a whitespace-only gap is normalised as hipify-clang does, anything else
//! stays byte for byte. A launch with a directive inside its configuration is
//! left in CUDA syntax (valid HIP).

use std::borrow::Cow;
use std::collections::HashSet;

type Set<'a> = HashSet<&'a str, foldhash::fast::FixedState>;

use crate::lexer::{Kind, Token, DIRECTIVE_START, IN_DIRECTIVE};
use crate::structure::{is_launch_close, is_launch_open, Structure};
use crate::translate::{next_sig, prev_sig, Edit};

/// How far back the template argument list of a launched kernel name is
/// followed; longer lists are not kernel names written by people, and the
/// bound keeps the scan linear.
const MAX_TEMPLATE_TOKENS: usize = 4096;

/// Names of the kernels declared in this file as templates, found on first
/// use: hipify-clang wraps every launch of a template in `HIP_KERNEL_NAME()`,
/// also when the template arguments are deduced.
#[derive(Debug, Default)]
pub(crate) struct TemplatedKernels<'a> {
    names: Option<Set<'a>>,
}

impl<'a> TemplatedKernels<'a> {
    fn contains(&mut self, tokens: &[Token], src: &'a str, name: &str) -> bool {
        self.names.get_or_insert_with(|| templated_kernels(tokens, src)).contains(name)
    }
}

/// One forward pass over the declarations: `template <...> ... __global__ ...
/// name(`. A declaration starts after `;`, `{` or `}`; attributes written as
/// `__name__(...)` before the kernel name are skipped.
fn templated_kernels<'a>(tokens: &[Token], src: &'a str) -> Set<'a> {
    let mut out = Set::default();
    let mut template_seen = false;
    // Inside a `__global__` declaration: whether it is a template, and the last
    // identifier seen (the name, once `(` follows).
    let mut kernel: Option<bool> = None;
    let mut last_ident: Option<&'a str> = None;
    let mut skip_until: Option<usize> = None;
    for (i, t) in tokens.iter().enumerate() {
        if matches!(t.kind, Kind::Space | Kind::Comment) || t.flags & IN_DIRECTIVE != 0 {
            continue;
        }
        if let Some(end) = skip_until {
            if i <= end {
                continue;
            }
            skip_until = None;
        }
        let s = t.text(src);
        match t.kind {
            Kind::Ident => {
                if s == "template" {
                    template_seen = true;
                } else if s == "__global__" && kernel.is_none() {
                    kernel = Some(template_seen);
                    last_ident = None;
                } else if kernel.is_some() {
                    last_ident = Some(s);
                }
            }
            Kind::Punct => match s {
                ";" | "{" | "}" => {
                    template_seen = false;
                    kernel = None;
                }
                "(" if kernel.is_some() => {
                    let attribute = last_ident.is_some_and(|l| l.starts_with("__"));
                    if attribute {
                        // Skip the attribute's parenthesised arguments by their
                        // matching parenthesis, found with a bounded scan.
                        let mut depth_paren = 0usize;
                        let mut m = i;
                        while m < tokens.len() && m - i < MAX_TEMPLATE_TOKENS {
                            match tokens[m].text(src) {
                                "(" => depth_paren += 1,
                                ")" => depth_paren = depth_paren.saturating_sub(1),
                                _ => {}
                            }
                            if depth_paren == 0 {
                                break;
                            }
                            m += 1;
                        }
                        skip_until = Some(m);
                        last_ident = None;
                    } else {
                        if let (Some(true), Some(name)) = (kernel, last_ident) {
                            out.insert(name);
                        }
                        kernel = None;
                        template_seen = false;
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    out
}

/// A recognised launch, as token indices.
#[derive(Debug)]
pub(crate) struct Launch {
    name_first: usize,
    name_last: usize,
    templated: bool,
    /// First and last token of each configuration part.
    config: Vec<(usize, usize)>,
    /// The first `<` of `<<<` and the first `>` of `>>>`.
    lt: usize,
    gt: usize,
    open: usize,
    close: usize,
    /// First and last token of the argument list, when there are arguments.
    args: Option<(usize, usize)>,
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
pub(crate) fn find<'a>(
    tokens: &[Token],
    src: &'a str,
    structure: &Structure,
    i: usize,
    templates: &mut TemplatedKernels<'a>,
) -> Option<Launch> {
    if !is_launch_open(tokens, src.as_bytes(), i) {
        return None;
    }
    let gt = structure.close_of(i)?;
    // The kernel name: `ns::name`, optionally followed by template arguments.
    let mut j = prev_sig(tokens, i)?;
    let name_last = j;
    let mut templated = false;
    if is_char(tokens, src, j, ">") {
        let mut depth = 0i32;
        let mut k = j;
        let mut steps = 0;
        loop {
            if tokens[k].kind == Kind::Punct {
                // A `<<<` or `>>>` among the template arguments means these are
                // not a kernel's template arguments (nested launch syntax).
                let b = src.as_bytes();
                let part_of =
                    |f: fn(&[Token], &[u8], usize) -> bool| (0..3).any(|d| k >= d && f(tokens, b, k - d));
                match text(tokens, src, k) {
                    "<" if part_of(is_launch_open) => return None,
                    ">" if part_of(is_launch_close) => return None,
                    ">" => depth += 1,
                    "<" => depth -= 1,
                    ";" | "{" | "}" => return None,
                    _ => {}
                }
            }
            if depth == 0 {
                break;
            }
            steps += 1;
            if steps > MAX_TEMPLATE_TOKENS {
                return None;
            }
            k = k.checked_sub(1)?;
        }
        templated = true;
        j = prev_sig(tokens, k)?;
    }
    if tokens[j].kind != Kind::Ident {
        return None;
    }
    let simple_name = j;
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
    let mut name_first = j;
    if let Some(p) = prev_sig(tokens, j) {
        let before = text(tokens, src, p);
        if before == "." || (before == ">" && p > 0 && is_char(tokens, src, p - 1, "-")) {
            return None;
        }
        // A leading `::` belongs to the name.
        if before == ":" && p > 0 && is_char(tokens, src, p - 1, ":") {
            let qualified = prev_sig(tokens, p - 1).is_some_and(|q| tokens[q].kind == Kind::Ident);
            if !qualified {
                name_first = p - 1;
            }
        }
    }
    // The name must be on the same side of a directive line as the `<<<`: not
    // on the line before a launch in code, nor split over directives.
    let in_directive = tokens[i].flags & IN_DIRECTIVE;
    if (name_first..i)
        .any(|k| tokens[k].flags & DIRECTIVE_START != 0 || tokens[k].flags & IN_DIRECTIVE != in_directive)
    {
        return None;
    }

    // The configuration: parts between the top-level commas.
    let seps = structure.separators(i)?;
    let mut config = Vec::with_capacity(4);
    for w in seps.windows(2) {
        // The opener is three tokens wide.
        let from = if w[0] == i { i + 2 } else { w[0] };
        let first = next_sig(tokens, from).filter(|&f| f < w[1])?;
        let last = prev_sig(tokens, w[1]).filter(|&l| l > from)?;
        config.push((first, last));
    }
    if !(2..=4).contains(&config.len()) {
        return None;
    }
    // A preprocessor line inside the configuration: leave the launch alone.
    if (i..gt + 3).any(|k| tokens[k].flags & IN_DIRECTIVE != tokens[i].flags & IN_DIRECTIVE) {
        return None;
    }
    // The argument list.
    let open = next_sig(tokens, gt + 2)?;
    if !is_char(tokens, src, open, "(") || tokens[open].flags & DIRECTIVE_START != 0 {
        return None;
    }
    if tokens[gt + 2..open].iter().any(|t| t.flags & IN_DIRECTIVE != tokens[i].flags & IN_DIRECTIVE) {
        return None;
    }
    let close = structure.close_of(open)?;
    let args =
        next_sig(tokens, open).filter(|&a| a < close).and_then(|a| Some((a, prev_sig(tokens, close)?)));
    if !templated {
        templated = templates.contains(tokens, src, text(tokens, src, simple_name));
    }
    let is_dim3 = [0, 1].map(|p| {
        let (f, l) = config[p];
        src[tokens[f].start as usize..tokens[l].end as usize].starts_with("dim3(")
    });
    Some(Launch { name_first, name_last, templated, config, lt: i, gt, open, close, args, is_dim3 })
}

/// The text between tokens `from` and `to` (both excluded) as the rewrite
/// keeps it: nothing when it is plain whitespace, as hipify-clang writes it,
/// else byte for byte (comments, and the line break that ends or starts a
/// preprocessor line).
fn keep<'a>(tokens: &[Token], src: &'a str, from: usize, to: usize) -> &'a str {
    if to <= from + 1 {
        return "";
    }
    let plain = tokens[from + 1..to].iter().all(|t| t.kind == Kind::Space);
    let leaves_directive = tokens[from].flags & IN_DIRECTIVE != 0 && tokens[to].flags & IN_DIRECTIVE == 0;
    let enters_directive = tokens[to].flags & DIRECTIVE_START != 0;
    if plain && !leaves_directive && !enters_directive {
        ""
    } else {
        &src[tokens[from].end as usize..tokens[to].start as usize]
    }
}

impl Launch {
    /// The edits that turn this launch into `hipLaunchKernelGGL(...)`.
    pub(crate) fn rewrite(&self, tokens: &[Token], src: &str) -> Vec<Edit> {
        let start = |i: usize| tokens[i].start as usize;
        let end = |i: usize| tokens[i].end as usize;
        let k = |from: usize, to: usize| keep(tokens, src, from, to);
        let edit = |s: usize, e: usize, text: String| Edit { start: s, end: e, text: Cow::Owned(text) };
        let c = &self.config;
        let (open0, close0) = if self.is_dim3[0] { ("", "") } else { ("dim3(", ")") };
        let (open1, close1) = if self.is_dim3[1] { ("", "") } else { ("dim3(", ")") };
        let sep = if self.args.is_some() { ", " } else { "" };
        let mut edits = Vec::with_capacity(7);
        let head = if self.templated { "hipLaunchKernelGGL(HIP_KERNEL_NAME(" } else { "hipLaunchKernelGGL(" };
        edits.push(edit(start(self.name_first), start(self.name_first), head.to_string()));
        let close_name = if self.templated { ")" } else { "" };
        edits.push(edit(
            end(self.name_last),
            start(c[0].0),
            format!("{close_name}{}, {}{open0}", k(self.name_last, self.lt), k(self.lt + 2, c[0].0)),
        ));
        // The comma tokens between the parts: the one after part p.
        let comma = |p: usize| -> usize {
            (c[p].1 + 1..c[p + 1].0).find(|&t| tokens[t].kind == Kind::Punct).unwrap_or(c[p].1 + 1)
        };
        let between = |p: usize| {
            let after = k(comma(p), c[p + 1].0);
            let space = if after.starts_with([' ', '\t']) { "" } else { " " };
            format!("{},{space}{after}", k(c[p].1, comma(p)))
        };
        edits.push(edit(end(c[0].1), start(c[1].0), format!("{close0}{}{open1}", between(0))));
        let last = c.len() - 1;
        let (tail_from, defaults) = match c.len() {
            2 => (1, ", 0, 0"),
            3 => (2, ", 0"),
            _ => (3, ""),
        };
        if c.len() >= 3 {
            edits.push(edit(end(c[1].1), start(c[2].0), format!("{close1}{}", between(1))));
        }
        if c.len() == 4 {
            edits.push(edit(end(c[2].1), start(c[3].0), between(2)));
        }
        let close_last = if c.len() == 2 { close1 } else { "" };
        let after_open = match self.args {
            Some((first, _)) => first,
            None => self.close,
        };
        edits.push(edit(
            end(c[last].1),
            start(after_open),
            format!(
                "{close_last}{}{defaults}{}{sep}{}",
                k(c[tail_from].1, self.gt),
                k(self.gt + 2, self.open),
                k(self.open, after_open)
            ),
        ));
        if let Some((_, last_arg)) = self.args {
            let tail = k(last_arg, self.close);
            if end(last_arg) < start(self.close) && tail.is_empty() {
                edits.push(edit(end(last_arg), start(self.close), String::new()));
            }
        }
        edits
    }
}
