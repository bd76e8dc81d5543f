//! The translation pass: lexed tokens in, a list of non-overlapping edits out,
//! then the source copied with the edits applied.
//!
//! Invariant: bytes outside an edit are copied unchanged, so a file with
//! nothing to translate comes back byte for byte (line endings, trailing
//! whitespace, missing final newline and all).

use std::borrow::Cow;

use crate::calls;
use crate::error::HipifyError;
use crate::half2;
use crate::launch;
use crate::lexer::{self, Kind, Token, DIRECTIVE_START, IN_DIRECTIVE};
use crate::stats::Stats;
use crate::structure::{self, Structure};
use crate::tables::{self, tables, Api};

/// How to translate. Build with [`Options::new`] and the setter methods.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Use the ROC libraries (rocBLAS, rocRAND, rocSPARSE, rocSOLVER, MIOpen)
    /// instead of the hip* wrappers (hipify-clang's `--roc`).
    pub roc: bool,
    /// Translate cuDNN to MIOpen instead of hipDNN (hipify-clang's `--miopen`;
    /// `--roc` implies it).
    pub miopen: bool,
    /// With `--roc`, keep `hipDataType` and `HIP_R_32F` for the CUDA library
    /// data types instead of rocBLAS's `rocblas_datatype` names.
    pub use_hip_data_types: bool,
    /// Rewrite `k<<<g, b, s, q>>>(args)` into `hipLaunchKernelGGL(...)`.
    pub hip_kernel_execution_syntax: bool,
    /// Translates the names HIPIFY marks experimental in HIP (`HIP_EXPERIMENTAL`,
    /// the fourth table column `experimental`); without it they are left with a
    /// warning, as hipify-clang leaves them.
    pub experimental: bool,
    /// Translate only the `#if` groups the preprocessor keeps (hipify-clang's
    /// `--default-preprocessor`, synonym `--skip-excluded-preprocessor-conditional-blocks`).
    /// Off by default: hipify-clang retains excluded conditional blocks of the
    /// file it translates (clang's `RetainExcludedConditionalBlocks`), so every
    /// group is translated, whatever its condition.
    pub default_preprocessor: bool,
    /// With [`Options::default_preprocessor`], also rename identifiers in code the
    /// preprocessor excludes (hipify-clang's `--amap`, "as much as possible").
    pub amap: bool,
    /// Macros defined (`-D NAME[=VALUE]`) or undefined (`-U NAME`) before the
    /// file, in order; with [`Options::default_preprocessor`] they decide which
    /// `#if` groups are translated.
    pub macros: Vec<Macro>,
    /// Library headers spelled as HIPIFY writes them (`hipblas.h`) or with
    /// ROCm 7's subdirectories (`hipblas/hipblas.h`).
    pub header_style: HeaderStyle,
    /// Identifiers never translated (hipify-perl's `--whitelist`).
    pub keep: Vec<String>,
    /// When to add `#include <hip/hip_runtime.h>` to a file that includes no
    /// runtime header (nvcc includes it implicitly in `.cu` files).
    pub runtime_include: RuntimeInclude,
    /// Rewrite what relies on undocumented CUDA behaviour as hipify-clang does
    /// (off: `--no-undocumented-features`): the `x`/`y` members of a `half2`
    /// object, which nvcc reads as `half` and HIP declares `unsigned short`,
    /// become `reinterpret_cast<half&>(h.x)`.
    pub undocumented_features: bool,
    /// Warn at each such rewrite (off: `--no-warnings-on-undocumented-features`).
    pub warn_undocumented: bool,
}

/// A command-line macro definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Macro {
    /// `-D NAME` (value 1) or `-D NAME=VALUE`.
    Define { name: String, value: String },
    /// `-U NAME`.
    Undefine { name: String },
}

/// How library headers are spelled in the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum HeaderStyle {
    /// HIPIFY's table: `cublas_v2.h` -> `hipblas.h`, `cusparse.h` -> `hipsparse.h`.
    #[default]
    Hipify,
    /// ROCm 7's install layout: `hipblas/hipblas.h`, `hipsparse/hipsparse.h`.
    Subdirectories,
}

/// When the translator adds the HIP runtime header to a file lacking one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuntimeInclude {
    Never,
    /// When the file has device code (`__global__`, `__device__`, `__shared__`,
    /// `threadIdx`, a `<<<...>>>` launch, ...), as hipify-perl does for any file.
    ForDeviceCode,
    /// When the file uses any CUDA name, device code, a CUDA-only qualifier
    /// (`__host__`, `__forceinline__`, ...), `dim3`, `warpSize` or `__CUDA_ARCH__`.
    /// hipify-clang adds it to every file; a file with none of these is left
    /// byte for byte here.
    ForCuda,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            roc: false,
            miopen: false,
            use_hip_data_types: false,
            hip_kernel_execution_syntax: false,
            experimental: false,
            default_preprocessor: false,
            amap: false,
            macros: Vec::new(),
            header_style: HeaderStyle::Hipify,
            keep: Vec::new(),
            runtime_include: RuntimeInclude::ForCuda,
            undocumented_features: true,
            warn_undocumented: true,
        }
    }
}

impl Options {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn roc(mut self, on: bool) -> Self {
        self.roc = on;
        self
    }
    pub fn miopen(mut self, on: bool) -> Self {
        self.miopen = on;
        self
    }
    pub fn use_hip_data_types(mut self, on: bool) -> Self {
        self.use_hip_data_types = on;
        self
    }
    pub fn hip_kernel_execution_syntax(mut self, on: bool) -> Self {
        self.hip_kernel_execution_syntax = on;
        self
    }
    pub fn experimental(mut self, on: bool) -> Self {
        self.experimental = on;
        self
    }
    /// Translates only the `#if` groups the preprocessor keeps
    /// (`--default-preprocessor`); see [`Options::default_preprocessor`].
    pub fn default_preprocessor(mut self, on: bool) -> Self {
        self.default_preprocessor = on;
        self
    }
    pub fn amap(mut self, on: bool) -> Self {
        self.amap = on;
        self
    }
    /// Defines `name` as `value` before the file (`-D name=value`).
    pub fn define(mut self, name: &str, value: &str) -> Self {
        self.macros.push(Macro::Define { name: name.to_string(), value: value.to_string() });
        self
    }
    /// Undefines `name` before the file (`-U name`).
    pub fn undefine(mut self, name: &str) -> Self {
        self.macros.push(Macro::Undefine { name: name.to_string() });
        self
    }
    pub fn header_style(mut self, style: HeaderStyle) -> Self {
        self.header_style = style;
        self
    }
    /// Never translates `name` (hipify-perl's `--whitelist`).
    pub fn keep(mut self, name: &str) -> Self {
        self.keep.push(name.to_string());
        self
    }
    pub fn undocumented_features(mut self, on: bool) -> Self {
        self.undocumented_features = on;
        self
    }
    pub fn warn_undocumented(mut self, on: bool) -> Self {
        self.warn_undocumented = on;
        self
    }
    pub fn runtime_include(mut self, when: RuntimeInclude) -> Self {
        self.runtime_include = when;
        self
    }

    /// Whether names of the ROC-capable APIs go to ROC libraries: `--miopen`
    /// implies it, as in hipify-clang.
    pub(crate) fn to_roc(&self) -> bool {
        self.roc || self.miopen
    }

    /// What `entry` (the table row of CUDA name `name`) becomes under these options.
    pub(crate) fn target(&self, entry: &crate::tables::Entry, name: &str) -> Option<&'static str> {
        let data_type =
            name.starts_with("CUDA_R_") || name.starts_with("CUDA_C_") || name.starts_with("cudaDataType");
        if self.use_hip_data_types && data_type {
            return entry.hip;
        }
        entry.target(self.to_roc())
    }
}

/// A CUDA identifier that was found but left as is: it has no HIP equivalent,
/// its equivalent is experimental in HIP and [`Options::experimental`] is off,
/// or it is a legacy cuBLAS routine in a file without `cublas_v2.h`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub line: usize,
    pub column: usize,
    pub identifier: String,
    /// The name has an experimental HIP equivalent (`--experimental` translates it).
    pub experimental: bool,
    /// Only the `_v2` form of this cuBLAS routine is translated, and the file
    /// does not include `cublas_v2.h` (hipify-clang's `HIP_SUPPORTED_V2_ONLY`).
    pub v2_only: bool,
    /// `identifier` is a member expression of a `half2` object, written as
    /// `reinterpret_cast<half&>(...)` (an undocumented CUDA feature).
    pub half2_member: bool,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.half2_member {
            write!(
                f,
                "{}:{}: warning: undocumented CUDA feature: '{}' reads a 'half2' member as 'half', which HIP declares 'unsigned short'; written as 'reinterpret_cast<half&>({})' ('--no-undocumented-features' leaves it)",
                self.line, self.column, self.identifier, self.identifier
            )
        } else if self.v2_only {
            write!(
                f,
                "{}:{}: warning: Only '{}_v2' version of '{}' is supported in 'HIP'; to hipify it, include 'cublas_v2.h' in the source.",
                self.line, self.column, self.identifier, self.identifier
            )
        } else if self.experimental {
            write!(
                f,
                "{}:{}: warning: '{}' is experimental in 'HIP'; to hipify it, use the '--experimental' option.",
                self.line, self.column, self.identifier
            )
        } else {
            write!(
                f,
                "{}:{}: warning: unsupported HIP identifier: {}",
                self.line, self.column, self.identifier
            )
        }
    }
}

/// The result of translating one source text.
#[derive(Debug, Clone)]
pub struct Translation {
    /// The HIP source. For input that is not UTF-8 (see [`translate_bytes`]),
    /// each byte outside UTF-8 stands here as the private-use character
    /// U+10FF00 + byte; [`Translation::output_bytes`] gives the real output.
    pub text: String,
    pub stats: Stats,
    pub warnings: Vec<Warning>,
    /// The output bytes, when the input was not UTF-8.
    raw: Option<Vec<u8>>,
}

impl Translation {
    /// True when the output differs from the input.
    pub fn changed(&self) -> bool {
        self.stats.lines_changed > 0
    }

    /// The output as bytes: bytes of the input that were not UTF-8 come back
    /// unchanged.
    pub fn output_bytes(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(self.text.as_bytes())
    }
}

/// First code point standing for a byte that is not UTF-8.
const ESCAPE_BASE: u32 = 0x10FF00;

/// Replaces each byte of `input` outside UTF-8 by U+10FF00 + byte; `None`
/// when the input already holds such characters (it could not be undone).
fn escape_non_utf8(input: &[u8]) -> Option<String> {
    let mut out = String::with_capacity(input.len() + 64);
    for chunk in input.utf8_chunks() {
        if chunk.valid().chars().any(|c| c as u32 >= ESCAPE_BASE) {
            return None;
        }
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.push(char::from_u32(ESCAPE_BASE + u32::from(b))?);
        }
    }
    Some(out)
}

fn unescape_non_utf8(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        match (c as u32).checked_sub(ESCAPE_BASE) {
            Some(b) => out.push(b as u8),
            None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    out
}

/// One replacement of `start..end` in the source.
#[derive(Debug)]
pub(crate) struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: Cow<'static, str>,
}

/// The text hipify-clang inserts for nvcc's implicit runtime header.
const RUNTIME_INCLUDE: &str = "\n#include <hip/hip_runtime.h>\n";

/// Headers after which no runtime header is added, before or after translation.
const RUNTIME_HEADERS: [&str; 3] = ["cuda_runtime.h", "cuda.h", "hip/hip_runtime.h"];

/// What an identifier that no table lists says about the file: `Some(true)` for
/// names that only make sense in CUDA/HIP device code, `Some(false)` for other
/// names only CUDA (and HIP) define (host/device qualifiers, `dim3`); the file
/// then uses CUDA and gets the runtime header, as hipify-clang gives it to every
/// file it translates.
fn cuda_marker(name: &str) -> Option<bool> {
    match name {
        "__global__" | "__device__" | "__shared__" | "__constant__" | "threadIdx" | "blockIdx"
        | "blockDim" | "gridDim" => Some(true),
        "__host__" | "__managed__" | "__launch_bounds__" | "__forceinline__" | "__noinline__"
        | "__grid_constant__" | "__CUDA_ARCH__" | "__NVCC__" | "dim3" | "warpSize" => Some(false),
        _ => None,
    }
}

/// Checks raw bytes (binary, UTF-8) before translating them.
///
/// A NUL byte marks a binary and is refused. Bytes that are not UTF-8 (a
/// Windows-1252 character in a comment or string) pass through untouched:
/// write [`Translation::output_bytes`].
pub fn translate_bytes(input: &[u8], options: &Options) -> Result<Translation, HipifyError> {
    if let Some(offset) = input.iter().position(|&b| b == 0) {
        return Err(HipifyError::Binary { offset });
    }
    match std::str::from_utf8(input) {
        Ok(text) => translate(text, options),
        Err(e) => {
            let escaped =
                escape_non_utf8(input).ok_or(HipifyError::InvalidUtf8 { offset: e.valid_up_to() })?;
            let mut t = translate(&escaped, options)?;
            t.raw = Some(unescape_non_utf8(&t.text));
            Ok(t)
        }
    }
}

/// Translates CUDA source text into HIP source text.
///
/// The output is a fixpoint: translating it again changes nothing. One pass gives that for
/// real code; for inputs where a launch's macro arguments overlap another rewrite (found by
/// fuzzing, on garbled files) the overlapping rewrite is left for a later pass, so the
/// translation repeats (at most three more times) until its output stops changing.
pub fn translate(source: &str, options: &Options) -> Result<Translation, HipifyError> {
    let mut t = translate_once(source, options)?;
    for _ in 0..3 {
        if t.stats.lines_changed == 0 {
            break;
        }
        let again = translate_once(&t.text, options)?;
        if again.text == t.text {
            break;
        }
        t.stats.lines_changed = (t.stats.lines_changed + again.stats.lines_changed).min(t.stats.lines_total);
        t.stats.kernel_launches += again.stats.kernel_launches;
        t.text = again.text;
    }
    Ok(t)
}

fn translate_once(source: &str, options: &Options) -> Result<Translation, HipifyError> {
    if source.len() > u32::MAX as usize {
        return Err(HipifyError::Usage { reason: "input larger than 4 GiB".into() });
    }
    let tokens = lexer::lex_groups(source, &options.macros, options.default_preprocessor)?;
    let t = tables();
    let mut stats = Stats::default();
    let mut warnings = Vec::new();
    let mut edits: Vec<Edit> = Vec::new();
    let mut lines = LineIndex::new(source);

    let mut uses_cuda = false;
    let mut has_device_code = false;
    let mut first_include: Option<usize> = None;
    let mut pragma_once_end: Option<usize> = None;
    let include_guard_end = include_guard(&tokens, source);
    // `#include` lines first: a launch is judged as the output will read, with
    // the include lines this translation drops already blank.
    let includes = includes(&tokens, source, options, &mut edits, &mut stats, &mut lines);
    uses_cuda |= includes.uses_cuda;
    let has_runtime_include = includes.has_runtime_include;
    let has_cublas_v2 = includes.has_cublas_v2;
    let dropped = includes.dropped;
    let mut templated_kernels = launch::TemplatedKernels::default();
    // Built on first need: most files have no launch and no call-site fix.
    let structure = std::cell::OnceCell::new();
    let structure = || structure.get_or_init(|| Structure::build(&tokens, source));
    // `#define`s that expand to a launch configuration, for HIP launch syntax.
    let config_macros = std::cell::OnceCell::new();
    let config_macros = || config_macros.get_or_init(|| launch::config_macros(&tokens, source, structure()));
    // The text of tokens `first..=last` with identifiers translated.
    let translated = |first: usize, last: usize| -> String {
        tokens[first..=last]
            .iter()
            .map(|t| {
                let text = t.text(source);
                if t.kind == Kind::Ident {
                    renamed(text, options).unwrap_or(text)
                } else {
                    text
                }
            })
            .collect()
    };
    // Byte ranges replaced by call-site rules, by start; and the end of those
    // already reached.
    let mut masks: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
    let mut masked_until = 0usize;
    let mut directive_name: &str = "";
    let mut prev_sig: Option<usize> = None;

    for (i, tok) in tokens.iter().enumerate() {
        if matches!(tok.kind, Kind::Space | Kind::Comment) {
            continue;
        }
        // Arguments a call-site rule replaces or removes are not translated.
        while let Some((&s, &e)) = masks.first_key_value() {
            if s > tok.start as usize {
                break;
            }
            masked_until = masked_until.max(e);
            masks.pop_first();
        }
        if (tok.start as usize) < masked_until {
            continue;
        }
        let prev = prev_sig;
        prev_sig = Some(i);
        if tok.flags & DIRECTIVE_START != 0 {
            directive_name = next_sig(&tokens, i).map_or("", |j| tokens[j].text(source));
            if directive_name == "include" && tok.is_active_code() && first_include.is_none() {
                first_include = Some(tok.start as usize);
            }
            if directive_name == "pragma" && tok.is_active_code() && pragma_once_end.is_none() {
                let once = next_sig(&tokens, i).and_then(|j| next_sig(&tokens, j));
                if let Some(j) = once.filter(|&j| tokens[j].text(source) == "once") {
                    // Right after `once`, as hipify-clang does; should more tokens
                    // follow on the line, after them, so they stay on the directive.
                    pragma_once_end = Some(directive_code_end(&tokens, j));
                }
            }
            continue;
        }
        match tok.kind {
            // With --default-preprocessor, code in excluded groups is left as it is,
            // as hipify-clang leaves the ranges its preprocessor skips then; `--amap`
            // renames identifiers there too. By default no token is inactive.
            Kind::HeaderName | Kind::Punct if !tok.is_active_code() => {}
            Kind::Ident if !tok.is_active_code() && !options.amap => {}
            Kind::HeaderName => {}
            Kind::Ident => {
                let name = tok.text(source);
                if options.hip_kernel_execution_syntax
                    && tok.is_active_code()
                    && tok.flags & IN_DIRECTIVE == 0
                {
                    let found = config_macros().get(name).and_then(|m| {
                        let structure = structure();
                        launch::find_macro(
                            &tokens,
                            source,
                            structure,
                            &dropped,
                            i,
                            m,
                            &mut templated_kernels,
                            &translated,
                        )
                    });
                    if let Some((launch_edits, (start, end))) = found {
                        has_device_code = true;
                        stats.kernel_launches += 1;
                        lines.touch(tok.start as usize);
                        stats.record(Api::Runtime, "hipLaunchKernelGGL");
                        edits.extend(launch_edits);
                        let e = masks.entry(start).or_insert(end);
                        *e = (*e).max(end);
                        continue;
                    }
                }
                if let Some((&key, entry)) = t.namespaces.get_key_value(name) {
                    let qualifies = next_sig(&tokens, i).is_some_and(|j| is_scope(&tokens, source, j));
                    let after_namespace = prev.is_some_and(|p| tokens[p].text(source) == "namespace");
                    if qualifies || after_namespace {
                        uses_cuda = true;
                    }
                    if namespace_renamed_here(&tokens, source, i) {
                        apply(
                            entry.target(options.to_roc()),
                            (false, false),
                            tok,
                            key,
                            entry.api,
                            &mut edits,
                            &mut stats,
                            &mut warnings,
                            &mut lines,
                        );
                    }
                    continue;
                }
                // Names HIP shares with CUDA (`float4`, `CUB_MAX`) need nothing and
                // say nothing about the file, so they are neither counted nor edited.
                let shared = |e: &crate::tables::Entry| options.target(e, name) == Some(name);
                if !options.keep.is_empty() && options.keep.iter().any(|k| k == name) {
                    continue;
                }
                if let Some((&key, entry)) = t.idents.get_key_value(name).filter(|(_, e)| !shared(e)) {
                    uses_cuda = true;
                    let gated = entry.experimental && !options.experimental;
                    // hipify-clang leaves a legacy cuBLAS routine (HIP_SUPPORTED_V2_ONLY)
                    // in a file that does not include cublas_v2.h (FindAndReplace).
                    let v2_only = entry.v2_only && !has_cublas_v2;
                    let mut target = if gated || v2_only { None } else { options.target(entry, key) };
                    if target.is_some()
                        && entry.call_rules
                        && calls::rules_for(name, options).next().is_some()
                    {
                        if let Some(call) = calls::call_args(&tokens, source, structure(), i) {
                            if let Some(other) = calls::overload(name, options, call.args.len()) {
                                target = Some(other);
                            }
                            // Copied and moved arguments are written translated.
                            let (call_edits, covered) =
                                calls::edits(&call, calls::rules_for(name, options), &translated);
                            for (s, e) in covered {
                                let end = masks.entry(s).or_insert(e);
                                *end = (*end).max(e);
                            }
                            edits.extend(call_edits);
                        }
                    }
                    apply(
                        target,
                        (gated, v2_only),
                        tok,
                        key,
                        entry.api,
                        &mut edits,
                        &mut stats,
                        &mut warnings,
                        &mut lines,
                    );
                } else if !has_device_code {
                    match cuda_marker(name) {
                        Some(true) => has_device_code = true,
                        Some(false) => uses_cuda = true,
                        None => {}
                    }
                }
            }
            Kind::Literal if tok.is_active_code() || options.amap => {
                let before = edits.len();
                string_literal(tok, source, options, &mut edits, &mut stats);
                if edits.len() > before {
                    uses_cuda = true;
                    lines.touch(tok.start as usize);
                }
            }
            Kind::Punct if tok.flags & IN_DIRECTIVE == 0 || directive_name == "define" => {
                let launch = if structure::is_launch_open(&tokens, source.as_bytes(), i) {
                    launch::find(&tokens, source, structure(), &dropped, i, &mut templated_kernels)
                } else {
                    None
                };
                if let Some(launch) = launch {
                    has_device_code = true;
                    stats.kernel_launches += 1;
                    if options.hip_kernel_execution_syntax {
                        lines.touch(tok.start as usize);
                        stats.record(Api::Runtime, "hipLaunchKernelGGL");
                        edits.extend(launch.rewrite(&tokens, source, &dropped));
                    }
                }
            }
            _ => {}
        }
    }

    // The undocumented-feature rewrite, both insertions or neither, never inside a
    // range another rule replaces (a rewritten launch keeps its own text).
    if options.undocumented_features && source.contains("half2") {
        for (start, end) in half2::members(&tokens, source, structure()) {
            let inside = |at: usize| edits.iter().any(|e| e.start < at && at < e.end);
            if inside(start) || inside(end) {
                continue;
            }
            edits.push(Edit { start, end: start, text: Cow::Borrowed("reinterpret_cast<half&>(") });
            edits.push(Edit { start: end, end, text: Cow::Borrowed(")") });
            lines.touch(start);
            uses_cuda = true;
            if options.warn_undocumented {
                let (line, column) = lexer::line_col(source, start);
                warnings.push(Warning {
                    line,
                    column,
                    identifier: source[start..end].to_string(),
                    experimental: false,
                    v2_only: false,
                    half2_member: true,
                });
            }
        }
    }

    // hipify-clang adds the runtime header unless the file includes `cuda.h` or
    // `cuda_runtime.h` (nvcc includes it implicitly): after the name of the
    // include guard's `#ifndef` or after `#pragma once` (whichever comes first),
    // else at the `#` of the first `#include`, else at the top of the file
    // (after a byte order mark), always as "\n#include <hip/hip_runtime.h>\n".
    // Unlike hipify-clang it is added only to files that use CUDA, so a file
    // with nothing to translate stays byte for byte.
    let wanted = match options.runtime_include {
        RuntimeInclude::Never => false,
        RuntimeInclude::ForDeviceCode => has_device_code,
        RuntimeInclude::ForCuda => has_device_code || uses_cuda,
    };
    if wanted && !has_runtime_include {
        let top = if source.starts_with('\u{feff}') { 3 } else { 0 };
        let at = match (pragma_once_end, include_guard_end) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).or(first_include).unwrap_or(top),
        };
        // First among edits at the same offset (the sort below is stable), so a
        // launch rewritten at the top of the file comes after the include.
        edits.insert(0, Edit { start: at, end: at, text: Cow::Borrowed(RUNTIME_INCLUDE) });
        stats.record(Api::Include, "[implicit cuda_runtime.h]");
        stats.lines_changed += 1;
    }

    stats.lines_changed += lines.changed();
    stats.lines_total = lines.total_lines();
    let text = apply_edits(source, edits);
    Ok(Translation { text, stats, warnings, raw: None })
}

/// What the `#include` pass found.
struct Includes {
    uses_cuda: bool,
    has_runtime_include: bool,
    /// `cublas_v2.h` is included (HipifyAction's `insertedBLASHeader_V2`).
    has_cublas_v2: bool,
    /// The include lines dropped, in source order.
    dropped: Vec<launch::Dropped>,
}

/// Translates the header names of active `#include` directives: HIP headers
/// for CUDA ones; a header with no HIP counterpart, or a second include of an
/// API's main header, loses its directive (the line stays).
fn includes(
    tokens: &[Token],
    source: &str,
    options: &Options,
    edits: &mut Vec<Edit>,
    stats: &mut Stats,
    lines: &mut LineIndex,
) -> Includes {
    let t = tables();
    let mut out =
        Includes { uses_cuda: false, has_runtime_include: false, has_cublas_v2: false, dropped: Vec::new() };
    // Main-header groups already included (`runtime`, `blas`, ...).
    let mut included_groups: Vec<&'static str> = Vec::new();
    let mut directive = 0usize;
    for (i, tok) in tokens.iter().enumerate() {
        if tok.flags & DIRECTIVE_START != 0 {
            directive = i;
        }
        if tok.kind != Kind::HeaderName || !tok.is_active_code() {
            continue;
        }
        let text = tok.text(source);
        let inner = &text[1..text.len() - 1];
        if RUNTIME_HEADERS.contains(&inner) {
            out.has_runtime_include = true;
        }
        let Some((&key, &header)) = t.headers.get_key_value(inner) else { continue };
        out.uses_cuda = true;
        out.has_cublas_v2 |= key == "cublas_v2.h";
        // hipify-clang keeps the first include of each API's main header
        // and drops later ones (`cublas_v2.h` also after `cublas.h`).
        let repeated = header.group.is_some_and(|g| {
            let base = g.strip_suffix("_v2");
            let seen = included_groups.contains(&g) || base.is_some_and(|b| included_groups.contains(&b));
            included_groups.push(g);
            seen
        });
        match header.target(options.to_roc()) {
            Some(new) if !repeated => {
                let new = match options.header_style {
                    HeaderStyle::Subdirectories => tables::header_subdirectory(new).unwrap_or(new),
                    _ => new,
                };
                let (open, close) = (&text[..1], &text[text.len() - 1..]);
                edits.push(Edit {
                    start: tok.start as usize,
                    end: tok.end as usize,
                    text: format!("{open}{new}{close}").into(),
                });
            }
            _ => {
                // No HIP counterpart, or already included: drop the directive,
                // keep the line. Tokens after the header name go too, or they
                // would become code; comments stay.
                let start = tokens[directive].start as usize;
                let code_end = directive_code_end(tokens, i);
                let end = tokens[i..]
                    .iter()
                    .take_while(|t| t.flags & IN_DIRECTIVE != 0)
                    .last()
                    .map_or(tok.end as usize, |t| t.end as usize);
                edits.push(Edit { start, end: code_end, text: Cow::Borrowed("") });
                out.dropped.push(launch::Dropped { start, code_end, end });
            }
        }
        stats.record(Api::Include, key);
        lines.touch(tok.start as usize);
    }
    out
}

/// The translation of identifier `name`, when it has one.
fn renamed(name: &str, options: &Options) -> Option<&'static str> {
    if options.keep.iter().any(|k| k == name) {
        return None;
    }
    let (&key, entry) = tables().idents.get_key_value(name)?;
    options.target(entry, key).filter(|&new| new != key)
}

/// CUDA names inside a plain string literal (`"..."` or `R"(...)"`), found as
/// hipify-clang finds them: from each `cu` to the next space (or the end of
/// the string) must be a whole CUDA name with a HIP equivalent.
fn string_literal(tok: &Token, src: &str, options: &Options, edits: &mut Vec<Edit>, stats: &mut Stats) {
    let text = tok.text(src);
    let (from, to) = if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
        (1, text.len() - 1)
    } else if let Some(raw) = text.strip_prefix("R\"") {
        let (Some(open), Some(close)) = (raw.find('('), raw.rfind(')')) else { return };
        if close < open {
            return;
        }
        (2 + open + 1, 2 + close)
    } else {
        return;
    };
    let body = &text.as_bytes()[from..to];
    let t = tables();
    let mut begin = 0;
    while let Some(p) = body[begin..].windows(2).position(|w| w == b"cu") {
        begin += p;
        let end = body
            .get(begin + 4..)
            .and_then(|rest| rest.iter().position(|&b| b == b' '))
            .map(|e| begin + 4 + e);
        let name = &body[begin..end.unwrap_or(body.len())];
        if let Some((&key, entry)) = std::str::from_utf8(name).ok().and_then(|n| t.idents.get_key_value(n)) {
            if let Some(new) = options.target(entry, key).filter(|&new| new != key) {
                if !options.keep.iter().any(|k| k == key) {
                    let at = tok.start as usize + from + begin;
                    edits.push(Edit { start: at, end: at + key.len(), text: Cow::Borrowed(new) });
                    stats.record(entry.api, key);
                }
            }
        }
        match end {
            Some(e) => begin = e + 1,
            None => break,
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn apply(
    target: Option<&'static str>,
    (experimental, v2_only): (bool, bool),
    tok: &Token,
    name: &'static str,
    api: Api,
    edits: &mut Vec<Edit>,
    stats: &mut Stats,
    warnings: &mut Vec<Warning>,
    lines: &mut LineIndex,
) {
    match target {
        Some(new) => {
            stats.record(api, name);
            if new != name {
                edits.push(Edit {
                    start: tok.start as usize,
                    end: tok.end as usize,
                    text: Cow::Borrowed(new),
                });
                lines.touch(tok.start as usize);
            }
        }
        None => {
            let (line, column) = lines.line_col(tok.start as usize);
            warnings.push(Warning {
                line,
                column,
                identifier: name.to_string(),
                experimental,
                v2_only,
                half2_member: false,
            });
            stats.record_unconverted(name);
        }
    }
}

/// End offset of the last token of the directive holding token `i` that is
/// not a comment or space.
fn directive_code_end(tokens: &[Token], i: usize) -> usize {
    let mut end = tokens[i].end as usize;
    for t in tokens[i + 1..].iter().take_while(|t| t.flags & IN_DIRECTIVE != 0) {
        if !matches!(t.kind, Kind::Space | Kind::Comment) {
            end = t.end as usize;
        }
    }
    end
}

/// End offset of the macro name of an include guard: the file opens with
/// `#ifndef X` (only space and comments before it: any other directive or
/// token first means no guard, as for clang's multiple-include optimization,
/// which hipify-clang asks for the controlling macro), that `#ifndef` has no
/// `#else`/`#elif`, and the `#endif` that closes it ends the file.
fn include_guard(tokens: &[Token], src: &str) -> Option<usize> {
    let first = (0..tokens.len()).find(|&j| !matches!(tokens[j].kind, Kind::Space | Kind::Comment))?;
    if tokens[first].flags & DIRECTIVE_START == 0 {
        return None;
    }
    let ifndef = next_sig(tokens, first)?;
    let name = next_sig(tokens, ifndef)?;
    if tokens[ifndef].text(src) != "ifndef" || tokens[name].kind != Kind::Ident {
        return None;
    }
    let mut depth = 0usize;
    let mut i = first;
    while i < tokens.len() {
        if tokens[i].flags & DIRECTIVE_START != 0 {
            let d = next_sig(tokens, i).map_or("", |j| tokens[j].text(src));
            match d {
                "if" | "ifdef" | "ifndef" => depth += 1,
                // An `#else` or `#elif` of the guard's own `#ifndef` leaves part of the
                // file unguarded: clang's multiple-include optimization then reports no
                // controlling macro (MultipleIncludeOpt::EnterTopLevelConditional).
                "else" | "elif" | "elifdef" | "elifndef" if depth == 1 => return None,
                "endif" => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        // Nothing but space and comments may follow this directive.
                        let end = next_sig(tokens, i)?;
                        return next_sig(tokens, end).is_none().then_some(directive_code_end(tokens, name));
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The next token after `i` that is not space or comment.
pub(crate) fn next_sig(tokens: &[Token], i: usize) -> Option<usize> {
    (i + 1..tokens.len()).find(|&j| !matches!(tokens[j].kind, Kind::Space | Kind::Comment))
}

/// The previous token before `i` that is not space or comment.
pub(crate) fn prev_sig(tokens: &[Token], i: usize) -> Option<usize> {
    (0..i).rev().find(|&j| !matches!(tokens[j].kind, Kind::Space | Kind::Comment))
}

/// Whether hipify-clang renames the namespace name (`cub`) at token `i`. Its
/// token pass does not know the name (`CUDA_CUB_NAMESPACE_MAP` is not part of
/// `CUDA_RENAMES_MAP`); only AST matchers of `HipifyAction` rename it:
/// `using namespace cub;` (cubUsingNamespaceDecl); the qualifier of the type a
/// `typedef` declares, `typedef cub::X<...> Y;` (cubNamespacePrefix: a
/// `typedefDecl` whose type is qualified by the namespace itself); and the
/// qualifier of the type of a non-type template parameter of a function
/// template, `template <cub::BlockReduceAlgorithm A> __global__ void k()`
/// (cubFunctionTemplateDecl). Everything else stays: `cub::DeviceReduce::Sum(...)`,
/// `cub::X v;`, `using R = cub::X;`, `typedef typename cub::X<T>::Y Z;`.
fn namespace_renamed_here(tokens: &[Token], src: &str, i: usize) -> bool {
    let text = |j: usize| tokens[j].text(src);
    let Some(next) = next_sig(tokens, i) else { return false };
    if !is_scope(tokens, src, next) {
        // `using namespace cub;` (not `using namespace cub::detail;`).
        let p = prev_sig(tokens, i);
        let pp = p.and_then(|p| prev_sig(tokens, p));
        return p.is_some_and(|p| text(p) == "namespace") && pp.is_some_and(|pp| text(pp) == "using");
    }
    // `cub :: NAME [<...>]`, and no `::` after it: the namespace qualifies the type.
    let Some(name) = next_sig(tokens, next + 1).filter(|&j| tokens[j].kind == Kind::Ident) else {
        return false;
    };
    let Some(after) = skip_angles(tokens, src, next_sig(tokens, name)) else { return false };
    if after.is_some_and(|j| is_scope(tokens, src, j)) {
        return false;
    }
    // Before it: an optional global `::` and cv-qualifiers, then `typedef`, or
    // the `<` or `,` of a template parameter list.
    let mut p = prev_sig(tokens, i);
    if let Some(q) = p.filter(|&q| q > 0 && text(q) == ":" && text(q - 1) == ":") {
        p = prev_sig(tokens, q - 1);
    }
    while let Some(q) = p.filter(|&q| matches!(text(q), "const" | "volatile")) {
        p = prev_sig(tokens, q);
    }
    let Some(p) = p else { return false };
    match text(p) {
        "typedef" => true,
        "<" | "," => {
            // A non-type parameter: its name, a default, or the end of the list follows.
            let param_end = after
                .is_none_or(|j| tokens[j].kind == Kind::Ident || matches!(text(j), "=" | "," | ">" | "."));
            param_end && function_template_parameter(tokens, src, p)
        }
        _ => false,
    }
}

/// Skips balanced template arguments starting at token `at` (when it is `<`):
/// the token after them, `Some(None)` at the end of the input; `None` when the
/// arguments do not close within a statement (or a bound).
fn skip_angles(tokens: &[Token], src: &str, at: Option<usize>) -> Option<Option<usize>> {
    let Some(mut j) = at else { return Some(None) };
    if tokens[j].text(src) != "<" {
        return Some(Some(j));
    }
    let (mut angles, mut parens) = (0usize, 0usize);
    for _ in 0..512 {
        match tokens[j].text(src) {
            "(" | "[" => parens += 1,
            ")" | "]" => parens = parens.checked_sub(1)?,
            "<" if parens == 0 => angles += 1,
            ">" if parens == 0 => {
                angles -= 1;
                if angles == 0 {
                    return Some(next_sig(tokens, j));
                }
            }
            ";" | "{" | "}" => return None,
            _ => {}
        }
        j = next_sig(tokens, j)?;
    }
    None
}

/// Token `p` (a `<` or `,`) is in the parameter list of `template <...>`
/// declaring a function template (not a class or alias template: `(` comes
/// before any `;`, `=`, `{` after the list).
fn function_template_parameter(tokens: &[Token], src: &str, p: usize) -> bool {
    let text = |j: usize| tokens[j].text(src);
    // Back to the `<` that opens the list.
    let (mut angles, mut parens, mut j) = (0usize, 0usize, p);
    let mut open = None;
    for _ in 0..256 {
        match text(j) {
            ")" | "]" => parens += 1,
            "(" | "[" => match parens.checked_sub(1) {
                Some(d) => parens = d,
                None => return false,
            },
            ">" if parens == 0 => angles += 1,
            "<" if parens == 0 => {
                if angles == 0 {
                    open = Some(j);
                    break;
                }
                angles -= 1;
            }
            ";" | "{" | "}" => return false,
            _ => {}
        }
        match prev_sig(tokens, j) {
            Some(q) => j = q,
            None => return false,
        }
    }
    let Some(open) = open else { return false };
    if prev_sig(tokens, open).is_none_or(|t| text(t) != "template") {
        return false;
    }
    let Some(Some(mut j)) = skip_angles(tokens, src, Some(open)) else { return false };
    if matches!(text(j), "class" | "struct" | "union" | "using" | "concept" | "template") {
        return false;
    }
    for _ in 0..256 {
        match text(j) {
            "(" => return true,
            ";" | "=" | "{" | "}" => return false,
            _ => {}
        }
        match next_sig(tokens, j) {
            Some(q) => j = q,
            None => return false,
        }
    }
    false
}

/// `tokens[j]` starts a `::`.
fn is_scope(tokens: &[Token], src: &str, j: usize) -> bool {
    tokens[j].text(src) == ":" && tokens.get(j + 1).is_some_and(|t| t.text(src) == ":")
}

fn apply_edits(source: &str, mut edits: Vec<Edit>) -> String {
    if edits.is_empty() {
        return source.to_string();
    }
    edits.sort_by_key(|e| (e.start, e.end));
    let extra: usize = edits.iter().map(|e| e.text.len()).sum();
    let mut out = String::with_capacity(source.len() + extra);
    let mut at = 0;
    for e in &edits {
        // Overlapping edits cannot come out of the passes above; skipping one
        // keeps the output well formed should that ever change.
        if e.start < at {
            continue;
        }
        out.push_str(&source[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(&source[at..]);
    out
}

/// Lazily built line-start index, plus the lines changed.
struct LineIndex<'a> {
    src: &'a str,
    starts: Option<Vec<usize>>,
    last_touched: Option<usize>,
    touched: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(src: &'a str) -> Self {
        LineIndex { src, starts: None, last_touched: None, touched: Vec::new() }
    }

    fn starts(&mut self) -> &[usize] {
        let src = self.src;
        self.starts.get_or_insert_with(|| {
            let mut v = vec![0];
            v.extend(src.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
            v
        })
    }

    fn line_of(&mut self, offset: usize) -> usize {
        let starts = self.starts();
        match starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    fn line_col(&mut self, offset: usize) -> (usize, usize) {
        let l = self.line_of(offset);
        (l + 1, offset - self.starts()[l] + 1)
    }

    /// Marks the line holding `offset` as changed.
    fn touch(&mut self, offset: usize) {
        let l = self.line_of(offset);
        if self.last_touched != Some(l) {
            self.last_touched = Some(l);
            self.touched.push(l);
        }
    }

    /// How many distinct lines were marked changed.
    fn changed(&mut self) -> usize {
        self.touched.sort_unstable();
        self.touched.dedup();
        self.touched.len()
    }

    fn total_lines(&self) -> usize {
        if self.src.is_empty() {
            return 0;
        }
        let newlines = self.src.bytes().filter(|&b| b == b'\n').count();
        newlines + usize::from(!self.src.ends_with('\n'))
    }
}
