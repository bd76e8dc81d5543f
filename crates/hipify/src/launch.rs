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
use std::collections::{HashMap, HashSet};

type Set<'a> = HashSet<&'a str, foldhash::fast::FixedState>;

use crate::lexer::{Kind, Token, DIRECTIVE_START, IN_DIRECTIVE};
use crate::structure::{is_launch_close, is_launch_open, Structure};
use crate::translate::Edit;

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

/// An `#include` line the translation drops: the directive's code
/// (`start..code_end`) goes, comments after it stay; `end` is the end of the
/// directive line as the lexer marks it. The output reads a blank line there,
/// so a launch is judged as if the line were blank: otherwise the launch would
/// be left alone here and rewritten when the output is translated again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dropped {
    pub start: usize,
    pub code_end: usize,
    pub end: usize,
}

/// The dropped include line holding byte `offset`, if any.
fn dropped_at(dropped: &[Dropped], offset: usize) -> Option<&Dropped> {
    let n = dropped.partition_point(|d| d.start <= offset);
    n.checked_sub(1).map(|k| &dropped[k]).filter(|d| offset < d.end)
}

/// Token `t` is code of a dropped include line: the output does not have it.
fn removed(dropped: &[Dropped], t: &Token) -> bool {
    !dropped.is_empty()
        && dropped_at(dropped, t.start as usize).is_some_and(|d| (t.start as usize) < d.code_end)
}

/// Token `k` is code the output keeps: not space, comment or dropped.
fn significant(tokens: &[Token], dropped: &[Dropped], k: usize) -> bool {
    !matches!(tokens[k].kind, Kind::Space | Kind::Comment) && !removed(dropped, &tokens[k])
}

/// The flags of token `k` as the output will have them: a token on a dropped
/// include line is no longer on a directive line.
fn flags(tokens: &[Token], dropped: &[Dropped], k: usize) -> u8 {
    let f = tokens[k].flags;
    if f & IN_DIRECTIVE != 0 && dropped_at(dropped, tokens[k].start as usize).is_some() {
        f & !(IN_DIRECTIVE | DIRECTIVE_START)
    } else {
        f
    }
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

/// The kernel name before token `i` (the `<<<`, or a macro that expands to
/// one): `ns::name`, optionally followed by template arguments.
struct KernelName {
    first: usize,
    last: usize,
    /// Written with explicit template arguments.
    templated: bool,
    /// The unqualified name.
    simple: usize,
}

fn kernel_name(tokens: &[Token], src: &str, dropped: &[Dropped], i: usize) -> Option<KernelName> {
    let flags = |k: usize| flags(tokens, dropped, k);
    let prev = |i: usize| (0..i).rev().find(|&j| significant(tokens, dropped, j));
    // The kernel name: `ns::name`, optionally followed by template arguments.
    let mut j = prev(i)?;
    let name_last = j;
    let mut templated = false;
    if is_char(tokens, src, j, ">") {
        // Walk back to the matching `<`. Template arguments are constant
        // expressions: their brackets balance, they hold no `;`, brace or
        // launch (in either syntax), and a `<` or `>` inside parentheses or
        // square brackets is a comparison, not a template bracket.
        let mut depth = 0i32;
        let mut nested = 0i32;
        let mut k = j;
        let mut steps = 0;
        loop {
            // The code of a dropped include line is not there in the output.
            let kind = if removed(dropped, &tokens[k]) { Kind::Space } else { tokens[k].kind };
            match kind {
                Kind::Punct => {
                    let b = src.as_bytes();
                    let part_of =
                        |f: fn(&[Token], &[u8], usize) -> bool| (0..3).any(|d| k >= d && f(tokens, b, k - d));
                    match text(tokens, src, k) {
                        "<" if part_of(is_launch_open) => return None,
                        ">" if part_of(is_launch_close) => return None,
                        ")" | "]" => nested += 1,
                        "(" | "[" => {
                            nested -= 1;
                            if nested < 0 {
                                return None;
                            }
                        }
                        ">" if nested == 0 => depth += 1,
                        "<" if nested == 0 => depth -= 1,
                        ";" | "{" | "}" => return None,
                        _ => {}
                    }
                }
                Kind::Ident if text(tokens, src, k) == "hipLaunchKernelGGL" => return None,
                _ => {}
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
        j = prev(k)?;
    }
    if tokens[j].kind != Kind::Ident {
        return None;
    }
    let simple_name = j;
    while let Some(c2) = prev(j) {
        if !(c2 > 0 && is_char(tokens, src, c2, ":") && is_char(tokens, src, c2 - 1, ":")) {
            break;
        }
        match prev(c2 - 1) {
            Some(q) if tokens[q].kind == Kind::Ident => j = q,
            _ => break,
        }
    }
    // A member (`obj.k<<<...>>>`) or a pointer expression cannot be wrapped
    // without parsing more of the expression; such launches stay as they are.
    let mut name_first = j;
    if let Some(p) = prev(j) {
        let before = text(tokens, src, p);
        if before == "." || (before == ">" && p > 0 && is_char(tokens, src, p - 1, "-")) {
            return None;
        }
        // A leading `::` belongs to the name.
        if before == ":" && p > 0 && is_char(tokens, src, p - 1, ":") {
            let qualified = prev(p - 1).is_some_and(|q| tokens[q].kind == Kind::Ident);
            if !qualified {
                name_first = p - 1;
            }
        }
    }
    // The name must be on the same side of a directive line as the `<<<`: not
    // on the line before a launch in code, nor split over directives.
    let in_directive = flags(i) & IN_DIRECTIVE;
    if (name_first..i).any(|k| flags(k) & DIRECTIVE_START != 0 || flags(k) & IN_DIRECTIVE != in_directive) {
        return None;
    }
    Some(KernelName { first: name_first, last: name_last, templated, simple: simple_name })
}

/// Recognises a launch whose `<<<` starts at token `i`.
pub(crate) fn find<'a>(
    tokens: &[Token],
    src: &'a str,
    structure: &Structure,
    dropped: &[Dropped],
    i: usize,
    templates: &mut TemplatedKernels<'a>,
) -> Option<Launch> {
    let flags = |k: usize| flags(tokens, dropped, k);
    let next = |i: usize| (i + 1..tokens.len()).find(|&j| significant(tokens, dropped, j));
    let prev = |i: usize| (0..i).rev().find(|&j| significant(tokens, dropped, j));
    if !is_launch_open(tokens, src.as_bytes(), i) {
        return None;
    }
    let gt = structure.close_of(i)?;
    let KernelName { first: name_first, last: name_last, templated, simple } =
        kernel_name(tokens, src, dropped, i)?;
    let in_directive = flags(i) & IN_DIRECTIVE;

    // The configuration: parts between the top-level commas.
    let seps = structure.separators(i)?;
    let mut config = Vec::with_capacity(4);
    for w in seps.windows(2) {
        // The opener is three tokens wide.
        let from = if w[0] == i { i + 2 } else { w[0] };
        let first = next(from).filter(|&f| f < w[1])?;
        let last = prev(w[1]).filter(|&l| l > from)?;
        config.push((first, last));
    }
    if !(2..=4).contains(&config.len()) {
        return None;
    }
    // A preprocessor line inside the configuration: leave the launch alone.
    if (i..gt + 3).any(|k| flags(k) & IN_DIRECTIVE != in_directive) {
        return None;
    }
    // The argument list.
    let open = next(gt + 2)?;
    if !is_char(tokens, src, open, "(") || flags(open) & DIRECTIVE_START != 0 {
        return None;
    }
    if (gt + 2..open).any(|k| flags(k) & IN_DIRECTIVE != in_directive) {
        return None;
    }
    let close = structure.close_of(open)?;
    let args = next(open).filter(|&a| a < close).and_then(|a| Some((a, prev(close)?)));
    let templated = templated || templates.contains(tokens, src, text(tokens, src, simple));
    let is_dim3 = [0, 1].map(|p| {
        let (f, l) = config[p];
        src[tokens[f].start as usize..tokens[l].end as usize].starts_with("dim3(")
    });
    Some(Launch { name_first, name_last, templated, config, lt: i, gt, open, close, args, is_dim3 })
}

/// The text between tokens `from` and `to` (both excluded) as the rewrite
/// keeps it: nothing when it is plain whitespace, as hipify-clang writes it,
/// else byte for byte (comments, and the line break that ends or starts a
/// preprocessor line). The code of a dropped include line in the gap is not
/// kept: the rewrite's edit covers it, and it reads as a blank line.
fn keep<'a>(tokens: &[Token], src: &'a str, dropped: &[Dropped], from: usize, to: usize) -> Cow<'a, str> {
    if to <= from + 1 {
        return Cow::Borrowed("");
    }
    let (start, end) = (tokens[from].end as usize, tokens[to].start as usize);
    let plain = tokens[from + 1..to].iter().all(|t| t.kind == Kind::Space || removed(dropped, t));
    let flags = |k: usize| flags(tokens, dropped, k);
    let leaves_directive = flags(from) & IN_DIRECTIVE != 0 && flags(to) & IN_DIRECTIVE == 0;
    let enters_directive = flags(to) & DIRECTIVE_START != 0;
    if plain && !leaves_directive && !enters_directive {
        return Cow::Borrowed("");
    }
    let first = dropped.partition_point(|d| d.code_end <= start);
    let inside: Vec<&Dropped> = dropped[first..].iter().take_while(|d| d.start < end).collect();
    if inside.is_empty() {
        return Cow::Borrowed(&src[start..end]);
    }
    let mut out = String::with_capacity(end - start);
    let mut at = start;
    for d in inside {
        out.push_str(&src[at..d.start.max(at)]);
        at = d.code_end.min(end).max(at);
    }
    out.push_str(&src[at..end]);
    Cow::Owned(out)
}

/// hipify-clang writes the name of a template kernel it launches with every
/// `cub::` turned into `hipcub::` (HipifyAction::cudaLaunchKernel, a text
/// replacement in the callee's source, which would also turn `mycub::` into
/// `myhipcub::` and `hipcub::` into `hiphipcub::`; here only the identifier
/// `cub`, so a second run changes nothing); elsewhere `cub` stays unless a
/// typedef, a template parameter or `using namespace` names it.
fn cub_in_kernel_name(tokens: &[Token], src: &str, first: usize, last: usize, edits: &mut Vec<Edit>) {
    for j in first..=last.min(tokens.len().saturating_sub(3)) {
        let t = &tokens[j];
        let scope = |k: usize| tokens[k].kind == Kind::Punct && tokens[k].text(src) == ":";
        if t.kind == Kind::Ident
            && t.text(src) == "cub"
            && scope(j + 1)
            && scope(j + 2)
            && tokens[j + 1].start == t.end
        {
            let at = t.end as usize - 3;
            edits.push(Edit { start: at, end: at + 3, text: Cow::Borrowed("hipcub") });
        }
    }
}

impl Launch {
    /// The edits that turn this launch into `hipLaunchKernelGGL(...)`.
    pub(crate) fn rewrite(&self, tokens: &[Token], src: &str, dropped: &[Dropped]) -> Vec<Edit> {
        let start = |i: usize| tokens[i].start as usize;
        let end = |i: usize| tokens[i].end as usize;
        let k = |from: usize, to: usize| keep(tokens, src, dropped, from, to);
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
            (c[p].1 + 1..c[p + 1].0)
                .find(|&t| tokens[t].kind == Kind::Punct && !removed(dropped, &tokens[t]))
                .unwrap_or(c[p].1 + 1)
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
        if self.templated {
            cub_in_kernel_name(tokens, src, self.name_first, self.name_last, &mut edits);
        }
        edits
    }
}

/// A `#define` whose whole body is a launch configuration, used as
/// `kernel NAME(grid, block)(args)` or `kernel NAME(args)`:
///
/// ```text
/// #define KERNEL_ARGS2(grid, block) <<<grid, block>>>
/// #define CONFIG <<<blocks, 256>>>
/// ```
#[derive(Debug)]
pub(crate) struct ConfigMacro<'a> {
    /// The token of the `#`; uses must come after it.
    at: usize,
    /// The parameters of a function-like macro.
    params: Option<Vec<&'a str>>,
    /// First and last token of each configuration part in the body.
    parts: Vec<(usize, usize)>,
}

pub(crate) type ConfigMacros<'a> = HashMap<&'a str, ConfigMacro<'a>, foldhash::fast::FixedState>;

/// The active `#define`s whose body is exactly `<<<...>>>` with two to four
/// parts. One pass over the directive lines.
pub(crate) fn config_macros<'a>(tokens: &[Token], src: &'a str, structure: &Structure) -> ConfigMacros<'a> {
    let mut out = ConfigMacros::default();
    // Significant tokens of one directive line.
    let sig = |i: usize| {
        (i + 1..tokens.len())
            .take_while(|&j| tokens[j].flags & IN_DIRECTIVE != 0 && tokens[j].flags & DIRECTIVE_START == 0)
            .find(|&j| !matches!(tokens[j].kind, Kind::Space | Kind::Comment))
    };
    for (at, t) in tokens.iter().enumerate() {
        if t.flags & DIRECTIVE_START == 0 || !t.is_active_code() {
            continue;
        }
        let Some(define) = sig(at).filter(|&d| tokens[d].text(src) == "define") else { continue };
        let Some(name) = sig(define).filter(|&n| tokens[n].kind == Kind::Ident) else { continue };
        let mut body = sig(name);
        let mut params = None;
        // A function-like macro has `(` right after its name.
        if body.is_some_and(|b| b == name + 1 && is_char(tokens, src, b, "(")) {
            let mut list = Vec::new();
            let mut k = name + 1;
            let mut expect_name = true;
            while let Some(p) = sig(k) {
                let t = tokens[p].text(src);
                match tokens[p].kind {
                    Kind::Ident if expect_name && list.len() < 64 => list.push(t),
                    Kind::Punct if t == "," && !expect_name => {}
                    Kind::Punct if t == ")" && (!expect_name || list.is_empty()) => {
                        body = sig(p);
                        params = Some(std::mem::take(&mut list));
                        break;
                    }
                    _ => break,
                }
                expect_name = !expect_name;
                k = p;
            }
            if params.is_none() {
                continue;
            }
        }
        let Some(open) = body.filter(|&b| is_launch_open(tokens, src.as_bytes(), b)) else { continue };
        let Some(gt) = structure.close_of(open) else { continue };
        // Nothing may follow the `>>>` on the line.
        if sig(gt + 2).is_some() {
            continue;
        }
        let Some(seps) = structure.separators(open) else { continue };
        let mut parts = Vec::with_capacity(4);
        for w in seps.windows(2) {
            let from = if w[0] == open { open + 2 } else { w[0] };
            let first = sig(from).filter(|&f| f < w[1]);
            let last =
                (from + 1..w[1]).rev().find(|&l| !matches!(tokens[l].kind, Kind::Space | Kind::Comment));
            match (first, last) {
                (Some(f), Some(l)) => parts.push((f, l)),
                _ => break,
            }
        }
        if parts.len() + 1 != seps.len() || !(2..=4).contains(&parts.len()) {
            continue;
        }
        out.insert(tokens[name].text(src), ConfigMacro { at, params, parts });
    }
    // A body that names one of these macros (itself included), or holds a
    // `<<<` of its own, would leave a use or a launch in the expansion written
    // out, to be translated by the next translation. A body holding a
    // translated launch is refused too, so that the translation of a nested
    // `<<<` does not make the macro one on the next translation.
    let names: Set<'a> = out.keys().copied().collect();
    out.retain(|_, m| {
        !m.parts.iter().any(|&(f, l)| {
            src[tokens[f].start as usize..tokens[l].end as usize].contains("hipLaunchKernelGGL")
                || (f..=l).any(|k| {
                    (tokens[k].kind == Kind::Ident && names.contains(tokens[k].text(src)))
                        || is_launch_open(tokens, src.as_bytes(), k)
                })
        })
    });
    out
}

/// A launch whose configuration comes from a [`ConfigMacro`], found at the
/// macro's name (token `i`): the edits that turn it into
/// `hipLaunchKernelGGL(...)`, and the byte range they replace (the macro use),
/// in which nothing else may be translated. The configuration is written as
/// the macro expands it, each parameter replaced by its argument;
/// `rename(first, last)` gives the translated text of tokens `first..=last`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn find_macro<'a>(
    tokens: &[Token],
    src: &'a str,
    structure: &Structure,
    dropped: &[Dropped],
    i: usize,
    m: &ConfigMacro,
    templates: &mut TemplatedKernels<'a>,
    rename: &dyn Fn(usize, usize) -> String,
) -> Option<(Vec<Edit>, (usize, usize))> {
    if m.at >= i || tokens[i].flags & IN_DIRECTIVE != 0 {
        return None;
    }
    let next = |i: usize| (i + 1..tokens.len()).find(|&j| significant(tokens, dropped, j));
    let prev = |i: usize| (0..i).rev().find(|&j| significant(tokens, dropped, j));
    let KernelName { first, last, templated, simple } = kernel_name(tokens, src, dropped, i)?;
    // The macro's arguments.
    let mut args: Vec<(usize, usize)> = Vec::new();
    let mut after = i;
    if let Some(params) = &m.params {
        let open = next(i).filter(|&o| is_char(tokens, src, o, "("))?;
        let seps = structure.separators(open)?;
        for w in seps.windows(2) {
            let a = next(w[0]).filter(|&f| f < w[1])?;
            args.push((a, prev(w[1])?));
        }
        if args.len() != params.len() {
            return None;
        }
        // An argument holding a launch would be written out untranslated; one
        // holding a translated launch is refused too, as the first kind is
        // after its translation.
        if args.iter().any(|&(f, l)| {
            src[tokens[f].start as usize..tokens[l].end as usize].contains("hipLaunchKernelGGL")
                || (f..=l).any(|k| is_launch_open(tokens, src.as_bytes(), k))
        }) {
            return None;
        }
        after = *seps.last()?;
    }
    // The kernel's arguments.
    let kopen = next(after).filter(|&o| is_char(tokens, src, o, "("))?;
    let kclose = structure.close_of(kopen)?;
    let kargs = next(kopen).filter(|&a| a < kclose);
    // Comments or directive lines inside the use: leave it alone.
    if (last + 1..=kopen)
        .any(|k| tokens[k].kind == Kind::Comment || flags(tokens, dropped, k) & IN_DIRECTIVE != 0)
    {
        return None;
    }
    let part = |p: usize| -> String {
        let (f, l) = m.parts[p];
        let mut out = String::new();
        let mut k = f;
        while k <= l {
            let param = m.params.as_ref().and_then(|ps| {
                (tokens[k].kind == Kind::Ident).then(|| ps.iter().position(|&q| q == tokens[k].text(src)))?
            });
            match param {
                Some(n) => out.push_str(&rename(args[n].0, args[n].1)),
                None => out.push_str(&rename(k, k)),
            }
            k += 1;
        }
        out
    };
    let dim3 = |p: usize| {
        let t = part(p);
        if t.starts_with("dim3(") {
            t
        } else {
            format!("dim3({t})")
        }
    };
    let templated = templated || templates.contains(tokens, src, text(tokens, src, simple));
    let mut config = format!("{}, {}, {}", if templated { ")" } else { "" }, dim3(0), dim3(1));
    for p in 2..4 {
        config.push_str(", ");
        if p < m.parts.len() {
            config.push_str(&part(p));
        } else {
            config.push('0');
        }
    }
    let until = match kargs {
        Some(a) => {
            config.push_str(", ");
            tokens[a].start as usize
        }
        None => tokens[kclose].start as usize,
    };
    let head = if templated { "hipLaunchKernelGGL(HIP_KERNEL_NAME(" } else { "hipLaunchKernelGGL(" };
    let at = tokens[first].start as usize;
    let from = tokens[last].end as usize;
    let mut edits = vec![
        Edit { start: at, end: at, text: Cow::Borrowed(head) },
        Edit { start: from, end: until, text: Cow::Owned(config) },
    ];
    if templated {
        cub_in_kernel_name(tokens, src, first, last, &mut edits);
    }
    Some((edits, (from, until)))
}
