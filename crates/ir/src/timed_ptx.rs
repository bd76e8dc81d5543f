//! Timed variants of kernels given as PTX text (HIP programs' device code, modules users load
//! from PTX): the PTX counterpart of [`crate::timed`](mod@crate::timed), with the same slot
//! layout and launch ABI, so the tracer launches and reads them exactly as it does the kernel
//! language's.
//!
//! [`instrument`] returns the module's text with, right after each `.entry` it can instrument, a
//! copy of that entry (named [`TimedEntry::timed`]) which takes two more `.u64` parameters, a
//! timing slot's address and its length in words (the launch ABI of a slice parameter, which
//! the IR's timed variant adds too; the length is not read), and in which the first thread of each
//! block folds `%globaltimer` into the slot with `atom.global.max.u64`: `!start` at entry into
//! word `2 * lane`, the end into word `2 * lane + 1` before every `ret` and `exit` (predicated
//! ones under the same predicate) and where the body falls off its end, `lane` being
//! `%smid % TIMING_LANES`; each fold is a short forward branch around its instructions for
//! every other thread, so they reconverge right after it. Nothing else changes: the entry's own
//! instructions, control flow, labels and registers are the original's, so the copy computes
//! what the entry computes. The entries, `.func`s and module variables of the text are left
//! byte-identical, and the copies live in the same module, so they share its `.global` and
//! `.const` variables (a twin module would have its own copies of them, which the program never
//! wrote).
//!
//! Fresh names are made of a tag that occurs nowhere in the text ([`crate::timed::TIMING_PARAM`]
//! unless the text already holds it), so they cannot collide with the kernel's registers, labels
//! or parameters. Entries that cannot be instrumented safely are listed in
//! [`TimedPtx::refused`] with the reason (their launches stay timed by events): a parameter space
//! that the two more parameters would push past the limit, a parameter list that cannot be read.
//! Text this scanner cannot read at all (an unterminated comment or string, unbalanced braces),
//! 32-bit addressing and PTX older than 3.1 (`%globaltimer`) refuse the whole module.

use crate::timed::{TIMING_LANES, TIMING_PARAM};

/// Why a module's text cannot be instrumented at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimedPtxError {
    /// The text could not be scanned (line numbers start at 1).
    #[error("PTX line {line}: {message}")]
    Unreadable { line: usize, message: String },
    /// The module is valid PTX the timed copies cannot be added to.
    #[error("{what}")]
    Unsupported { what: String },
}

/// An entry and its timed copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedEntry {
    /// The entry's name.
    pub kernel: String,
    /// The timed copy's name, in the same module.
    pub timed: String,
}

/// An entry left without a timed copy, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedEntry {
    pub kernel: String,
    pub reason: String,
}

/// The text of a module with timed copies of its entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedPtx {
    /// The original text with each timed copy inserted after its entry.
    pub text: String,
    /// The entries that have a timed copy, in text order.
    pub entries: Vec<TimedEntry>,
    /// The entries that do not.
    pub refused: Vec<RefusedEntry>,
}

impl TimedPtx {
    /// The name of `kernel`'s timed copy, if it has one.
    pub fn timed_name(&self, kernel: &str) -> Option<&str> {
        self.entries.iter().find(|e| e.kernel == kernel).map(|e| e.timed.as_str())
    }
}

/// Parameter bytes an entry may take in every PTX version and target; PTX ISA 8.1 raised it to
/// 32764 bytes on `sm_70` and later.
pub const PARAM_BYTES_LIMIT: u64 = 4096;
const PARAM_BYTES_LIMIT_8_1: u64 = 32764;
/// Bytes the timed copy's two more parameters take (two 8-byte-aligned `u64`s).
const EXTRA_PARAM_BYTES: u64 = 16;

/// The text of `ptx` with a timed copy of each `.entry` that can have one (see the module
/// documentation).
pub fn instrument(ptx: &str) -> Result<TimedPtx, TimedPtxError> {
    let code = blank_comments(ptx)?;
    let header = Header::read(&code);
    if !header.address_64 {
        return Err(TimedPtxError::Unsupported {
            what: "the module does not declare `.address_size 64` (timing slots are 64-bit addresses)".into(),
        });
    }
    if header.version.is_some_and(|v| v < (3, 1)) {
        return Err(TimedPtxError::Unsupported {
            what: "the module's PTX version is older than 3.1, which `%globaltimer` needs".into(),
        });
    }
    let limit = match (header.version, header.sm) {
        (Some(v), Some(sm)) if v >= (8, 1) && sm >= 70 => PARAM_BYTES_LIMIT_8_1,
        _ => PARAM_BYTES_LIMIT,
    };
    let mut tag = TIMING_PARAM.to_string();
    let mut n = 0;
    while ptx.contains(&tag) {
        n += 1;
        tag = format!("{TIMING_PARAM}_{n}");
    }
    let entries = find_entries(&code)?;
    let mut out = String::with_capacity(ptx.len() * 2);
    let mut copied = 0;
    let mut result = TimedPtx { text: String::new(), entries: Vec::new(), refused: Vec::new() };
    for e in entries {
        let kernel = String::from_utf8_lossy(&code[e.name.clone()]).into_owned();
        match timed_copy(ptx, &code, &e, &tag, &kernel, limit) {
            Ok(copy) => {
                out.push_str(&ptx[copied..e.end]);
                out.push_str("\n\n");
                out.push_str(&copy);
                copied = e.end;
                result.entries.push(TimedEntry { timed: format!("{kernel}_{tag}"), kernel });
            }
            Err(reason) => result.refused.push(RefusedEntry { kernel, reason }),
        }
    }
    out.push_str(&ptx[copied..]);
    result.text = out;
    Ok(result)
}

/// `text` with comments and the contents of string literals replaced by spaces (newlines kept),
/// so every byte index means the same in both.
fn blank_comments(text: &str) -> Result<Vec<u8>, TimedPtxError> {
    let mut b = text.as_bytes().to_vec();
    let line = |b: &[u8], at: usize| b[..at].iter().filter(|&&c| c == b'\n').count() + 1;
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            (b'/', Some(b'/')) => {
                while i < b.len() && b[i] != b'\n' {
                    b[i] = b' ';
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                let start = i;
                let Some(end) = text[i + 2..].find("*/").map(|e| i + 2 + e + 2) else {
                    return Err(TimedPtxError::Unreadable {
                        line: line(&b, start),
                        message: "a `/*` comment is not closed".into(),
                    });
                };
                for c in &mut b[start..end] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = end;
            }
            (b'"', _) => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] != b'\n' {
                        b[i] = b' ';
                        i += 1;
                    }
                    b[i] = b' ';
                    i += 1;
                }
                if i >= b.len() || b[i] != b'"' {
                    return Err(TimedPtxError::Unreadable {
                        line: line(&b, start),
                        message: "a string is not closed on its line".into(),
                    });
                }
                i += 1;
            }
            (c, _) => {
                if !c.is_ascii() {
                    return Err(TimedPtxError::Unreadable {
                        line: line(&b, i),
                        message: "a character outside ASCII outside comments and strings".into(),
                    });
                }
                i += 1;
            }
        }
    }
    Ok(b)
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'%')
}

/// The module directives that decide what the copies may use.
struct Header {
    version: Option<(u32, u32)>,
    sm: Option<u32>,
    address_64: bool,
}

impl Header {
    fn read(code: &[u8]) -> Header {
        let text = String::from_utf8_lossy(code);
        let after = |directive: &str| {
            let mut words = text.split_whitespace();
            words.by_ref().find(|w| *w == directive)?;
            words.next().map(|w| w.trim_end_matches(',').to_string())
        };
        let version = after(".version").and_then(|v| {
            let (major, minor) = v.split_once('.')?;
            Some((major.parse().ok()?, minor.parse().ok()?))
        });
        let sm = after(".target").and_then(|t| {
            let digits: String = t.strip_prefix("sm_")?.chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse().ok()
        });
        Header { version, sm, address_64: after(".address_size").as_deref() == Some("64") }
    }
}

/// Where one `.entry` with a body lies in the text (byte ranges).
struct Entry {
    /// From its linkage directives (`.visible`, `.weak`) to `.entry`.
    linkage: std::ops::Range<usize>,
    name: std::ops::Range<usize>,
    /// The parameter list inside its parentheses (`None`: no parentheses).
    params: Option<std::ops::Range<usize>>,
    /// Between the parameters (or the name) and the body: performance directives.
    directives: std::ops::Range<usize>,
    /// The body's `{` and `}`.
    open: usize,
    close: usize,
    /// Just past the closing brace.
    end: usize,
}

fn unreadable(code: &[u8], at: usize, message: &str) -> TimedPtxError {
    let line = code[..at.min(code.len())].iter().filter(|&&c| c == b'\n').count() + 1;
    TimedPtxError::Unreadable { line, message: message.into() }
}

/// The index just past the bracket matching the one at `at`.
fn matching(code: &[u8], at: usize, open: u8, close: u8) -> Result<usize, TimedPtxError> {
    let mut depth = 0usize;
    for (i, &c) in code.iter().enumerate().skip(at) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Ok(i + 1);
            }
        }
    }
    Err(unreadable(code, at, &format!("`{}` is not closed", open as char)))
}

fn skip_space(code: &[u8], mut i: usize) -> usize {
    while i < code.len() && code[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Every `.entry` with a body, at the module's top level.
fn find_entries(code: &[u8]) -> Result<Vec<Entry>, TimedPtxError> {
    let mut entries = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < code.len() {
        let c = code[i];
        if c == b'{' {
            depth += 1;
        } else if c == b'}' {
            depth = depth.checked_sub(1).ok_or_else(|| unreadable(code, i, "a `}` closes nothing"))?;
        } else if depth == 0
            && code[i..].starts_with(b".entry")
            && (i == 0 || !(is_ident(code[i - 1]) || code[i - 1] == b'.'))
            && code.get(i + 6).is_some_and(|c| c.is_ascii_whitespace())
        {
            let e = entry_at(code, i)?;
            i = e.as_ref().map_or(i + 6, |e| e.end);
            entries.extend(e);
            continue;
        }
        i += 1;
    }
    if depth != 0 {
        return Err(unreadable(code, code.len(), "a `{` is not closed"));
    }
    Ok(entries)
}

/// The entry whose `.entry` directive is at `at` (`None`: a declaration without a body).
fn entry_at(code: &[u8], at: usize) -> Result<Option<Entry>, TimedPtxError> {
    // Linkage directives before `.entry`.
    let mut start = at;
    loop {
        let end = {
            let mut j = start;
            while j > 0 && code[j - 1].is_ascii_whitespace() {
                j -= 1;
            }
            j
        };
        let mut word = end;
        while word > 0 && (is_ident(code[word - 1]) || code[word - 1] == b'.') {
            word -= 1;
        }
        if matches!(&code[word..end], b".visible" | b".weak" | b".extern") {
            start = word;
        } else {
            break;
        }
    }
    let n0 = skip_space(code, at + 6);
    let mut n1 = n0;
    while n1 < code.len() && is_ident(code[n1]) {
        n1 += 1;
    }
    if n1 == n0 {
        return Err(unreadable(code, at, "`.entry` without a name"));
    }
    if code.get(n1) == Some(&b'.') {
        // PTX names have no dots: `name.x(` is no entry the PTX front end would read as `name`.
        return Err(unreadable(code, at, "an `.entry` name with a `.` in it"));
    }
    let mut i = skip_space(code, n1);
    let params = if code.get(i) == Some(&b'(') {
        let close = matching(code, i, b'(', b')')?;
        let p = i + 1..close - 1;
        i = close;
        Some(p)
    } else {
        None
    };
    let d0 = i;
    while i < code.len() && code[i] != b'{' && code[i] != b';' && code[i] != b'}' {
        i += 1;
    }
    match code.get(i) {
        Some(b'{') => {}
        Some(b';') => return Ok(None),
        _ => return Err(unreadable(code, at, "an `.entry` without a body or a `;`")),
    }
    let end = matching(code, i, b'{', b'}')?;
    Ok(Some(Entry {
        linkage: start..at,
        name: n0..n1,
        params,
        directives: d0..i,
        open: i,
        close: end - 1,
        end,
    }))
}

/// The bytes of the parameter list `params` (the text inside the parentheses).
fn param_bytes(params: &str) -> Result<u64, String> {
    let mut offset = 0u64;
    for p in params.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut words = p.split_whitespace().peekable();
        if words.next() != Some(".param") {
            return Err(format!("the parameter `{p}` is not a `.param`"));
        }
        let (mut size, mut align, mut count, mut pointer) = (None, None, 1u64, false);
        while let Some(w) = words.next() {
            if w == ".align" {
                let a = words.next().and_then(|a| a.parse::<u64>().ok());
                if a.is_none_or(|a| !a.is_power_of_two()) {
                    return Err(format!("the parameter `{p}` has a bad `.align`"));
                }
                // After `.ptr`, the alignment of what the pointer points to.
                if !pointer {
                    align = a;
                }
            } else if w == ".ptr" {
                pointer = true;
            } else if let Some(t) = w.strip_prefix('.') {
                let bits = t.trim_start_matches(|c: char| c.is_ascii_alphabetic());
                let known = matches!(t.chars().next(), Some('u' | 's' | 'b' | 'f'))
                    && matches!(bits, "8" | "16" | "32" | "64")
                    && t.len() == bits.len() + 1;
                // `.ptr` then a state space, or a type: both fine.
                if known {
                    size = Some(bits.parse::<u64>().map_err(|e| e.to_string())? / 8);
                } else if !matches!(t, "ptr" | "global" | "const" | "local" | "shared") {
                    return Err(format!("the parameter `{p}` has `{w}`, which the timer cannot lay out"));
                }
            } else {
                // The name, possibly with an array size.
                let name_and_more = std::iter::once(w).chain(words.by_ref()).collect::<String>();
                if let Some((_, rest)) = name_and_more.split_once('[') {
                    let n = rest.strip_suffix(']').and_then(|n| n.trim().parse::<u64>().ok());
                    count = n.ok_or_else(|| {
                        format!("the parameter `{p}` has an array size the timer cannot read")
                    })?;
                }
            }
        }
        let size = size.ok_or_else(|| format!("the parameter `{p}` has no type the timer knows"))?;
        let align = align.unwrap_or(size);
        offset = offset
            .checked_next_multiple_of(align)
            .and_then(|o| o.checked_add(size.checked_mul(count)?))
            .ok_or_else(|| format!("the parameter `{p}` is larger than any parameter space"))?;
    }
    Ok(offset)
}

/// One statement of an entry's body.
struct Stmt {
    /// Its first byte (after any label before it).
    start: usize,
    /// Its `;`.
    end: usize,
    /// Its guard, `@%p` or `@!%p`: (negated, predicate).
    guard: Option<(bool, String)>,
    /// The opcode up to its first `.` (`ret`, `exit`, `bra`, ...), the directive (`.reg`), or
    /// `:` for a label.
    op: String,
}

/// The statements of a body (`code[open + 1..close]`), in order, and whether each is at the
/// body's top level (outside nested `{ }` blocks).
fn statements(code: &[u8], open: usize, close: usize) -> Result<Vec<(Stmt, bool)>, TimedPtxError> {
    let mut out = Vec::new();
    let mut block = 0usize;
    let mut start: Option<usize> = None;
    let mut vector = 0usize;
    let mut i = open + 1;
    while i < close {
        let c = code[i];
        match start {
            None => {
                if c.is_ascii_whitespace() {
                } else if c == b'{' {
                    block += 1;
                } else if c == b'}' {
                    block =
                        block.checked_sub(1).ok_or_else(|| unreadable(code, i, "a `}` closes nothing"))?;
                } else {
                    start = Some(i);
                    vector = 0;
                    continue;
                }
            }
            Some(s) => match c {
                b'{' => vector += 1,
                b'}' => {
                    vector = vector
                        .checked_sub(1)
                        .ok_or_else(|| unreadable(code, i, "a `}` inside an instruction"))?
                }
                b':' if vector == 0 => {
                    let label = std::str::from_utf8(&code[s..i]).unwrap_or("").trim();
                    if !label.is_empty() && label.bytes().all(is_ident) {
                        out.push((Stmt { start: s, end: i, guard: None, op: ":".into() }, block == 0));
                        start = None;
                    }
                }
                // Debug line directives end at the end of their line, without a `;`.
                b'\n' if code[s..].starts_with(b".loc") || code[s..].starts_with(b"@@") => {
                    out.push((Stmt { start: s, end: i, guard: None, op: ".loc".into() }, block == 0));
                    start = None;
                }
                b';' if vector == 0 => {
                    let text = std::str::from_utf8(&code[s..i]).unwrap_or("");
                    let mut words = text.split_whitespace();
                    let mut first = words.next().unwrap_or("");
                    let guard = if let Some(g) = first.strip_prefix('@') {
                        let (neg, p) = match g.strip_prefix('!') {
                            Some(p) => (true, p),
                            None => (false, g),
                        };
                        let p = if p.is_empty() { words.next().unwrap_or("") } else { p };
                        first = words.next().unwrap_or("");
                        if p.is_empty() || !p.bytes().all(is_ident) || first.is_empty() {
                            return Err(unreadable(code, s, "a guard the timer cannot read"));
                        }
                        Some((neg, p.to_string()))
                    } else {
                        None
                    };
                    let op = match first.strip_prefix('.') {
                        Some(d) => format!(".{}", d.split('.').next().unwrap_or("")),
                        None => first.split('.').next().unwrap_or("").to_string(),
                    };
                    out.push((Stmt { start: s, end: i, guard, op }, block == 0));
                    start = None;
                }
                _ => {}
            },
        }
        i += 1;
    }
    if start.is_some() || block != 0 {
        return Err(unreadable(code, close, "the body ends inside a statement or block"));
    }
    Ok(out)
}

/// The instructions for the timing of one entry (names made of `tag`).
struct Folds<'a> {
    tag: &'a str,
    /// Folds made so far (each has its own label).
    count: std::cell::Cell<u32>,
}

impl Folds<'_> {
    fn declarations(&self) -> String {
        let t = self.tag;
        format!(
            "\n\t.reg .pred %{t}_lead;\n\t.reg .pred %{t}_q;\n\t.reg .b32 %{t}_r<2>;\n\t.reg .b64 %{t}_d<3>;"
        )
    }

    /// `%tag_lead` = this is thread (0, 0, 0) of its block; then the start's fold.
    fn prologue(&self) -> String {
        let t = self.tag;
        let (r0, r1) = (format!("%{t}_r0"), format!("%{t}_r1"));
        let mut s = format!("\n\tmov.u32 {r0}, %tid.x;\n\tmov.u32 {r1}, %tid.y;\n\tor.b32 {r0}, {r0}, {r1};");
        s.push_str(&format!("\n\tmov.u32 {r1}, %tid.z;\n\tor.b32 {r0}, {r0}, {r1};"));
        s.push_str(&format!("\n\tsetp.eq.u32 %{t}_lead, {r0}, 0;"));
        s.push_str(&self.fold(true, &format!("%{t}_lead")));
        s
    }

    /// The end's fold before an exit guarded by `guard`.
    fn epilogue(&self, guard: &Option<(bool, String)>) -> String {
        let t = self.tag;
        match guard {
            None => self.fold(false, &format!("%{t}_lead")),
            Some((false, p)) => {
                format!("\n\tand.pred %{t}_q, %{t}_lead, {p};{}", self.fold(false, &format!("%{t}_q")))
            }
            Some((true, p)) => format!(
                "\n\tnot.pred %{t}_q, {p};\n\tand.pred %{t}_q, %{t}_q, %{t}_lead;{}",
                self.fold(false, &format!("%{t}_q"))
            ),
        }
    }

    /// If `pred`: `slot[2 * (%smid % LANES) + word] max= timer` (`!timer` for the start, read
    /// first; the end's timer is read last). A branch around the fold rather than a predicate on
    /// each instruction: ptxas then keeps none of the fold's registers live across the kernel
    /// (with predicates it kept six to ten more registers per thread in clang's kernels).
    fn fold(&self, start: bool, pred: &str) -> String {
        let t = self.tag;
        self.count.set(self.count.get() + 1);
        let skip = format!("${t}_f{}", self.count.get());
        let timer = format!("\n\tmov.u64 %{t}_d0, %globaltimer;");
        let mut s = format!("\n\t@!{pred} bra {skip};");
        if start {
            s.push_str(&timer);
            s.push_str(&format!("\n\tnot.b64 %{t}_d0, %{t}_d0;"));
        }
        s.push_str(&format!(
            "\n\tmov.u32 %{t}_r1, %smid;\n\tand.b32 %{t}_r1, %{t}_r1, {mask};\n\t\
             mul.wide.u32 %{t}_d1, %{t}_r1, 16;\n\tld.param.u64 %{t}_d2, [{t}];\n\t\
             cvta.to.global.u64 %{t}_d2, %{t}_d2;\n\tadd.s64 %{t}_d2, %{t}_d2, %{t}_d1;",
            mask = TIMING_LANES - 1
        ));
        if !start {
            s.push_str(&timer);
        }
        let word = if start { "" } else { "+8" };
        s.push_str(&format!("\n\tatom.global.max.u64 %{t}_d1, [%{t}_d2{word}], %{t}_d0;\n{skip}:"));
        s
    }
}

/// The timed copy of entry `e`, or why it cannot have one.
fn timed_copy(
    ptx: &str,
    code: &[u8],
    e: &Entry,
    tag: &str,
    kernel: &str,
    limit: u64,
) -> Result<String, String> {
    let code_str = |r: std::ops::Range<usize>| String::from_utf8_lossy(&code[r]).into_owned();
    let bytes = match &e.params {
        Some(p) => param_bytes(&code_str(p.clone()))?,
        None => 0,
    };
    if bytes.saturating_add(7) / 8 * 8 + EXTRA_PARAM_BYTES > limit {
        return Err(format!(
            "its parameters take {bytes} bytes; with the timing slot's {EXTRA_PARAM_BYTES} they would pass \
             the limit of {limit} bytes"
        ));
    }
    let stmts = statements(code, e.open, e.close).map_err(|err| err.to_string())?;
    let folds = Folds { tag, count: Default::default() };
    // Instructions inserted at byte positions of the original body, in order.
    let mut inserts: Vec<(usize, String)> = Vec::new();
    inserts.push((e.open + 1, folds.declarations()));
    let leading = stmts.iter().take_while(|(s, top)| *top && s.op.starts_with('.')).last();
    let body_start = leading.map_or(e.open + 1, |(s, _)| s.end + 1);
    // Right after the declarations, before any label (a branch back to one must not start
    // the block again).
    inserts.push((body_start, folds.prologue()));
    for (s, _) in &stmts {
        if matches!(s.op.as_str(), "ret" | "exit") {
            let epilogue = folds.epilogue(&s.guard);
            // On lines of their own when the exit starts its line.
            let mut line = s.start;
            while line > e.open + 1 && matches!(code[line - 1], b' ' | b'\t') {
                line -= 1;
            }
            if code[line - 1] == b'\n' {
                inserts.push((line, format!("{}\n", &epilogue[1..])));
            } else {
                inserts.push((s.start, format!("{epilogue}\n\t")));
            }
        }
    }
    // Falling off the end is possible unless the last instruction leaves unconditionally and
    // no branch names a label after it.
    let last = stmts.iter().rposition(|(s, _)| s.op != ":" && s.op != ".loc");
    let reachable_label = stmts[last.map_or(0, |l| l + 1)..].iter().any(|(s, _)| {
        let name = &ptx[s.start..s.end];
        s.op == ":" && ptx[e.open..e.close].matches(name.trim()).count() > 1
    });
    let falls_off = reachable_label
        || last.is_none_or(|l| {
            let s = &stmts[l].0;
            s.guard.is_some() || !matches!(s.op.as_str(), "ret" | "exit" | "bra" | "trap" | "brx")
        });
    if falls_off {
        // After the last code (a comment after it stays after it).
        let mut at = e.close;
        while at > e.open + 1 && code[at - 1].is_ascii_whitespace() {
            at -= 1;
        }
        inserts.push((at.max(body_start), folds.epilogue(&None)));
    }
    inserts.sort_by_key(|i| i.0);

    let mut out = String::new();
    out.push_str(&ptx[e.linkage.clone()]);
    out.push_str(".entry ");
    out.push_str(kernel);
    out.push('_');
    out.push_str(tag);
    let extra = format!(".param .u64 {tag},\n\t.param .u64 {tag}_len");
    match &e.params {
        Some(p) => {
            out.push('(');
            let mut last = p.end;
            while last > p.start && code[last - 1].is_ascii_whitespace() {
                last -= 1;
            }
            if last == p.start {
                out.push_str(&ptx[p.clone()]);
                out.push_str(&extra);
            } else {
                out.push_str(&ptx[p.start..last]);
                out.push_str(",\n\t");
                out.push_str(&extra);
                out.push_str(&ptx[last..p.end]);
            }
            out.push(')');
        }
        None => {
            out.push('(');
            out.push_str(&extra);
            out.push_str(")\n");
        }
    }
    out.push_str(&ptx[e.directives.clone()]);
    let mut copied = e.open;
    for (at, text) in inserts {
        out.push_str(&ptx[copied..at]);
        out.push_str(&text);
        copied = at;
    }
    out.push_str(&ptx[copied..e.end]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_bytes_follow_alignment_and_arrays() {
        assert_eq!(param_bytes("").unwrap(), 0);
        assert_eq!(param_bytes(".param .u32 a, .param .u64 b").unwrap(), 16);
        assert_eq!(param_bytes(".param .u8 a, .param .align 8 .b8 s[20], .param .u16 c").unwrap(), 30);
        assert_eq!(param_bytes(".param .u64 .ptr .global .align 4 p").unwrap(), 8);
        assert!(param_bytes(".param .v2 .u32 a").is_err());
        assert!(param_bytes(".reg .u32 a").is_err());
        assert!(param_bytes(".param .b8 a[n]").is_err());
        assert!(param_bytes(".param .u64 a[18446744073709551615]").is_err());
    }
}
