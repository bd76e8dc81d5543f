//! Call-site rewrites that hipify-clang applies on top of renaming: wrapping
//! a symbol argument in `HIP_SYMBOL()`, adding, replacing, removing, copying
//! or moving arguments where the HIP, rocSPARSE or MIOpen signature differs
//! from CUDA's, casting buffer-size pointers, and picking a different HIP
//! function by argument count (C++ overloads).
//!
//! Data first: the rules are rows of `data/calls.tsv`; the code below only
//! knows how to find a call's arguments and turn a rule into edits. Argument
//! numbers always count in the CUDA call as written.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::lexer::{Kind, Token};
use crate::structure::Structure;
use crate::translate::{next_sig, prev_sig, Edit, Options};

/// When a row applies, as hipify-clang decides it from `--roc`/`--miopen`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum When {
    /// The default translation (neither `--roc` nor `--miopen`).
    Hip,
    /// cuSPARSE to rocSPARSE (`--roc`).
    Roc,
    /// cuDNN to MIOpen (`--roc` or `--miopen`).
    Miopen,
}

impl When {
    fn applies(self, o: &Options) -> bool {
        match self {
            When::Hip => !o.roc && !o.miopen,
            When::Roc => o.roc && !o.miopen,
            When::Miopen => o.roc || o.miopen,
        }
    }
}

/// One rewrite of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rule {
    Symbol(usize),
    Add(usize, String),
    Replace(usize, String),
    Remove(usize),
    Copy(usize, usize),
    Move {
        from: usize,
        to: usize,
        count: usize,
    },
    SizeT(usize),
    /// With exactly `n` arguments the call maps to another HIP function.
    Args(usize, String),
}

type CallTable = HashMap<String, Vec<(When, Vec<Rule>)>, foldhash::fast::FixedState>;

fn parse_rule(s: &str) -> Option<Rule> {
    let mut parts = s.splitn(3, ':');
    let kind = parts.next()?;
    let n: usize = parts.next()?.parse().ok()?;
    let rest = parts.next();
    let num = |r: Option<&str>| r.and_then(|r| r.parse::<usize>().ok());
    Some(match kind {
        "symbol" => Rule::Symbol(n),
        "add" => Rule::Add(n, rest?.to_string()),
        "replace" => Rule::Replace(n, rest?.to_string()),
        "remove" => Rule::Remove(n),
        "copy" => Rule::Copy(n, num(rest)?),
        "move" => {
            let mut r = rest?.split(':');
            let to = num(r.next())?;
            let count = num(r.next()).unwrap_or(1);
            Rule::Move { from: n, to, count }
        }
        "size_t" => Rule::SizeT(n),
        "args" => Rule::Args(n, rest?.to_string()),
        _ => return None,
    })
}

fn table() -> &'static CallTable {
    static TABLE: OnceLock<CallTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = CallTable::default();
        for line in include_str!("../data/calls.tsv").lines() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut cols = line.split('\t');
            let (Some(name), Some(when)) = (cols.next(), cols.next()) else { continue };
            let when = match when {
                "hip" => When::Hip,
                "roc" => When::Roc,
                "miopen" => When::Miopen,
                _ => continue,
            };
            let rules: Vec<Rule> = cols.filter_map(parse_rule).collect();
            let names: Vec<String> = match name.split_once("{SDCZ}") {
                Some((a, b)) => "SDCZ".chars().map(|p| format!("{a}{p}{b}")).collect(),
                None => vec![name.to_string()],
            };
            for n in names {
                t.entry(n).or_default().push((when, rules.clone()));
            }
        }
        t
    })
}

/// Every function name that has rules.
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    table().keys().map(String::as_str)
}

/// The rules for a call of `name` under `options`.
pub(crate) fn rules_for(name: &str, options: &Options) -> impl Iterator<Item = &'static Rule> {
    let o = options.clone();
    table()
        .get(name)
        .into_iter()
        .flatten()
        .filter(move |(when, _)| when.applies(&o))
        .flat_map(|(_, rules)| rules.iter())
}

/// The function a call of `name` with `count` arguments maps to instead of
/// its table name, for C++ overloads.
pub(crate) fn overload(name: &str, options: &Options, count: usize) -> Option<&'static str> {
    rules_for(name, options).find_map(|r| match r {
        Rule::Args(n, other) if *n == count => Some(other.as_str()),
        _ => None,
    })
}

/// The arguments of a call: trimmed byte ranges, and where `)` starts.
pub(crate) struct CallArgs {
    pub args: Vec<(usize, usize)>,
    /// First and last token of each argument.
    pub arg_tokens: Vec<(usize, usize)>,
    pub close: usize,
}

/// Parses the argument list of the call whose name is token `i`, from the
/// bracket structure (no scanning, so a file of unclosed calls stays linear).
pub(crate) fn call_args(tokens: &[Token], src: &str, structure: &Structure, i: usize) -> Option<CallArgs> {
    let open =
        next_sig(tokens, i).filter(|&o| tokens[o].kind == Kind::Punct && tokens[o].text(src) == "(")?;
    let seps = structure.separators(open)?;
    let close = *seps.last()?;
    let mut args = Vec::with_capacity(seps.len());
    let mut arg_tokens = Vec::with_capacity(seps.len());
    for w in seps.windows(2) {
        match next_sig(tokens, w[0]).filter(|&f| f < w[1]) {
            Some(first) => {
                let last = prev_sig(tokens, w[1])?;
                args.push((tokens[first].start as usize, tokens[last].end as usize));
                arg_tokens.push((first, last));
            }
            // `f()` has no arguments; an empty one between commas is malformed.
            None if seps.len() == 2 => {}
            None => return None,
        }
    }
    Some(CallArgs { args, arg_tokens, close: tokens[close].start as usize })
}

/// Edits for the rules of one call, plus the byte ranges they replace (no
/// rename may happen inside those). `translated(first, last)` gives the
/// translation of the tokens `first..=last`, for arguments copied or moved.
pub(crate) fn edits<'r>(
    call: &CallArgs,
    rules: impl Iterator<Item = &'r Rule>,
    translated: &dyn Fn(usize, usize) -> String,
) -> (Vec<Edit>, Vec<(usize, usize)>) {
    let a = &call.args;
    let mut out = Vec::new();
    let mut covered = Vec::new();
    let edit = |start: usize, end: usize, text: Cow<'static, str>| Edit { start, end, text };
    // Inserts `text` as argument `at`, or appends it.
    let insert_at = |at: usize, text: &str| -> Edit {
        match a.get(at) {
            Some(&(s, _)) => edit(s, s, Cow::Owned(format!("{text}, "))),
            None if a.is_empty() => edit(call.close, call.close, Cow::Owned(text.to_string())),
            None => edit(call.close, call.close, Cow::Owned(format!(", {text}"))),
        }
    };
    // The range that removes arguments `from..from + count` with their separators.
    let removal = |from: usize, count: usize| -> Option<(usize, usize)> {
        let last = from + count - 1;
        if last >= a.len() {
            return None;
        }
        match (a.get(last + 1), from.checked_sub(1)) {
            (Some(&(next, _)), _) => Some((a[from].0, next)),
            (None, Some(prev)) => Some((a[prev].1, a[last].1)),
            (None, None) => Some((a[from].0, a[last].1)),
        }
    };
    for rule in rules {
        match rule {
            Rule::Symbol(n) => {
                if let Some(&(s, e)) = a.get(*n) {
                    out.push(edit(s, s, Cow::Borrowed("HIP_SYMBOL(")));
                    out.push(edit(e, e, Cow::Borrowed(")")));
                }
            }
            Rule::SizeT(n) => {
                if let Some(&(s, e)) = a.get(*n) {
                    out.push(edit(s, s, Cow::Borrowed("reinterpret_cast<size_t*>(")));
                    out.push(edit(e, e, Cow::Borrowed(")")));
                }
            }
            Rule::Add(n, text) => out.push(insert_at(*n, text)),
            Rule::Replace(n, text) => {
                if let Some(&(s, e)) = a.get(*n) {
                    out.push(edit(s, e, Cow::Owned(text.clone())));
                    covered.push((s, e));
                }
            }
            Rule::Remove(n) => {
                if let Some((s, e)) = removal(*n, 1) {
                    out.push(edit(s, e, Cow::Borrowed("")));
                    covered.push((s, e));
                }
            }
            Rule::Copy(n, to) => {
                if let Some(&(first, last)) = call.arg_tokens.get(*n) {
                    out.push(insert_at(*to, &translated(first, last)));
                }
            }
            Rule::Move { from, to, count } => {
                let Some((s, e)) = removal(*from, *count) else { continue };
                let text = translated(call.arg_tokens[*from].0, call.arg_tokens[*from + *count - 1].1);
                out.push(insert_at(*to, &text));
                out.push(edit(s, e, Cow::Borrowed("")));
                covered.push((s, e));
            }
            Rule::Args(..) => {}
        }
    }
    (out, covered)
}
