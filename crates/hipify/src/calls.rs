//! Call-site fixes that hipify-clang applies on top of renaming: wrapping a
//! symbol argument in `HIP_SYMBOL()`, adding or removing an argument, and
//! picking a different HIP function by argument count (C++ overloads).
//!
//! Data first: one table row per CUDA function; the code below only knows how
//! to find a call's arguments and turn a row into edits.

use std::borrow::Cow;

use crate::lexer::{Kind, Token};
use crate::structure::Structure;
use crate::translate::{next_sig, prev_sig, Edit};

/// What to do at a call of one CUDA function.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fix {
    /// Wrap argument `n` in `HIP_SYMBOL(...)`.
    HipSymbol(usize),
    /// Insert a constant as argument `n` (appended when the call has `n` arguments).
    AddArgument(usize, &'static str),
    /// Drop argument `n`; HIP has no equivalent for it.
    RemoveArgument(usize),
    /// With exactly `n` arguments the call maps to another HIP function.
    RenameWhenArguments(usize, &'static str),
}

/// The fixes, keyed by CUDA function name.
pub(crate) const FIXES: &[(&str, Fix)] = &[
    ("cudaMemcpyToSymbol", Fix::HipSymbol(0)),
    ("cudaMemcpyToSymbolAsync", Fix::HipSymbol(0)),
    ("cudaMemcpyFromSymbol", Fix::HipSymbol(1)),
    ("cudaMemcpyFromSymbolAsync", Fix::HipSymbol(1)),
    ("cudaGetSymbolAddress", Fix::HipSymbol(1)),
    ("cudaGetSymbolSize", Fix::HipSymbol(1)),
    ("cudaGraphAddMemcpyNodeToSymbol", Fix::HipSymbol(4)),
    ("cudaGraphAddMemcpyNodeFromSymbol", Fix::HipSymbol(5)),
    ("cudaGraphMemcpyNodeSetParamsToSymbol", Fix::HipSymbol(1)),
    ("cudaGraphMemcpyNodeSetParamsFromSymbol", Fix::HipSymbol(2)),
    ("cudaGraphExecMemcpyNodeSetParamsToSymbol", Fix::HipSymbol(2)),
    ("cudaGraphExecMemcpyNodeSetParamsFromSymbol", Fix::HipSymbol(3)),
    ("cudaGetTextureReference", Fix::HipSymbol(1)),
    // hipHostMalloc takes its flags explicitly.
    ("cudaMallocHost", Fix::AddArgument(2, "hipHostMallocDefault")),
    // The block-size-to-shared-memory callback has no HIP counterpart.
    ("cuOccupancyMaxPotentialBlockSize", Fix::RemoveArgument(3)),
    ("cuOccupancyMaxPotentialBlockSizeWithFlags", Fix::RemoveArgument(3)),
    // C++ overloads of the runtime API.
    ("cudaEventCreate", Fix::RenameWhenArguments(2, "hipEventCreateWithFlags")),
    ("cudaGraphInstantiate", Fix::RenameWhenArguments(3, "hipGraphInstantiateWithFlags")),
];

/// The fix for `name`, if any.
pub(crate) fn fix_for(name: &str) -> Option<Fix> {
    FIXES.iter().find(|(f, _)| *f == name).map(|&(_, fix)| fix)
}

/// The arguments of a call: trimmed byte ranges, and where `)` starts.
pub(crate) struct CallArgs {
    pub args: Vec<(usize, usize)>,
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
    for w in seps.windows(2) {
        match next_sig(tokens, w[0]).filter(|&f| f < w[1]) {
            Some(first) => {
                let last = prev_sig(tokens, w[1])?;
                args.push((tokens[first].start as usize, tokens[last].end as usize));
            }
            // `f()` has no arguments; an empty one between commas is malformed.
            None if seps.len() == 2 => {}
            None => return None,
        }
    }
    Some(CallArgs { args, close: tokens[close].start as usize })
}

/// Edits for `fix` at the call whose name is token `i`. `RenameWhenArguments`
/// is resolved by the caller, which owns the name edit.
pub(crate) fn edits(tokens: &[Token], src: &str, structure: &Structure, i: usize, fix: Fix) -> Vec<Edit> {
    let Some(call) = call_args(tokens, src, structure, i) else { return Vec::new() };
    let a = &call.args;
    let edit = |start: usize, end: usize, text: Cow<'static, str>| Edit { start, end, text };
    match fix {
        Fix::HipSymbol(n) => match a.get(n) {
            Some(&(s, e)) if !src[s..e].starts_with("HIP_SYMBOL") => {
                vec![edit(s, s, Cow::Borrowed("HIP_SYMBOL(")), edit(e, e, Cow::Borrowed(")"))]
            }
            _ => Vec::new(),
        },
        Fix::AddArgument(n, text) if a.len() == n && n > 0 => {
            vec![edit(call.close, call.close, Cow::Owned(format!(", {text}")))]
        }
        Fix::AddArgument(n, text) if n < a.len() => {
            let s = a[n].0;
            vec![edit(s, s, Cow::Owned(format!("{text}, ")))]
        }
        Fix::RemoveArgument(n) if n + 1 < a.len() => vec![edit(a[n].0, a[n + 1].0, Cow::Borrowed(""))],
        Fix::RemoveArgument(n) if n + 1 == a.len() && n > 0 => {
            vec![edit(a[n - 1].1, call.close, Cow::Borrowed(""))]
        }
        _ => Vec::new(),
    }
}
