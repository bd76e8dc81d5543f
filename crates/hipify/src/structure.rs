//! The bracket structure of a token stream, found once in linear time.
//!
//! Call-site fixes and launch rewriting need the argument list of a call or
//! the configuration of a `<<<...>>>` launch. Scanning forward from each call
//! would make the translator quadratic on inputs such as `k<<<a, ` repeated
//! (every scan runs to the end of the file), so one stack pass over the tokens
//! records, for every opening bracket, its closer and the chain of its
//! top-level commas. Everything after that is a walk along a chain.
//!
//! Rules: `(`, `[` and `{` pair as in C++; `<<<` (three adjacent `<`) opens a
//! launch configuration closed by the next `>>>` at the same depth, and is
//! abandoned at a `;` or at a closer of an enclosing bracket. Tokens in code
//! disabled by the preprocessor take no part. Brackets on a directive line
//! (a `#define` body) pair only among themselves.

use crate::lexer::{Kind, Token, IN_DIRECTIVE};

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Paren,
    Square,
    Brace,
    Launch,
}

struct Frame {
    opener: usize,
    kind: Open,
    /// The opener or the last top-level comma seen, whose link is pending.
    last: usize,
}

/// Closers and comma chains, indexed by token.
pub(crate) struct Structure {
    /// For an opener (`(`, `[`, `{`, first `<` of `<<<`): its closer (for a
    /// launch, the first `>` of `>>>`), or `NONE` when it has none.
    close: Vec<u32>,
    /// For an opener or a top-level comma: the next top-level comma of the
    /// same bracket, else its closer; `NONE` when the bracket is not closed.
    next: Vec<u32>,
}

fn is_punct(tokens: &[Token], src: &[u8], i: usize, c: u8) -> bool {
    tokens.get(i).is_some_and(|t| t.kind == Kind::Punct && src[t.start as usize] == c)
}

/// Token `i` starts a `<<<` (and is not the second `<` of `<<<<`).
pub(crate) fn is_launch_open(tokens: &[Token], src: &[u8], i: usize) -> bool {
    is_punct(tokens, src, i, b'<')
        && is_punct(tokens, src, i + 1, b'<')
        && is_punct(tokens, src, i + 2, b'<')
        && !(i > 0 && is_punct(tokens, src, i - 1, b'<'))
}

/// Token `i` starts a `>>>`.
pub(crate) fn is_launch_close(tokens: &[Token], src: &[u8], i: usize) -> bool {
    is_punct(tokens, src, i, b'>') && is_punct(tokens, src, i + 1, b'>') && is_punct(tokens, src, i + 2, b'>')
}

impl Structure {
    pub(crate) fn build(tokens: &[Token], src: &str) -> Structure {
        let b = src.as_bytes();
        let n = tokens.len();
        let mut s = Structure { close: vec![NONE; n], next: vec![NONE; n] };
        let mut stack: Vec<Frame> = Vec::new();
        // Stack depth when the current directive line began; closers on the
        // line never reach below it, and its openers are dropped at its end.
        let mut directive_floor: Option<usize> = None;
        let mut i = 0;
        while i < n {
            let t = tokens[i];
            if t.flags & IN_DIRECTIVE != 0 {
                if directive_floor.is_none() {
                    directive_floor = Some(stack.len());
                }
            } else if let Some(floor) = directive_floor.take() {
                stack.truncate(floor);
            }
            if t.kind != Kind::Punct || !t.is_active_code() {
                i += 1;
                continue;
            }
            let floor = directive_floor.unwrap_or(0);
            let c = b[t.start as usize];
            let mut step = 1;
            match c {
                b'(' | b'[' | b'{' => {
                    let kind = match c {
                        b'(' => Open::Paren,
                        b'[' => Open::Square,
                        _ => Open::Brace,
                    };
                    stack.push(Frame { opener: i, kind, last: i });
                }
                b'<' if is_launch_open(tokens, b, i) => {
                    stack.push(Frame { opener: i, kind: Open::Launch, last: i });
                    step = 3;
                }
                b'>' if stack.len() > floor
                    && stack.last().is_some_and(|f| f.kind == Open::Launch)
                    && is_launch_close(tokens, b, i) =>
                {
                    if let Some(f) = stack.pop() {
                        s.close[f.opener] = i as u32;
                        s.next[f.last] = i as u32;
                    }
                    step = 3;
                }
                b')' | b']' | b'}' => {
                    let kind = match c {
                        b')' => Open::Paren,
                        b']' => Open::Square,
                        _ => Open::Brace,
                    };
                    // An unclosed launch configuration ends at the enclosing closer.
                    while stack.len() > floor && stack.last().is_some_and(|f| f.kind == Open::Launch) {
                        stack.pop();
                    }
                    if stack.len() > floor && stack.last().is_some_and(|f| f.kind == kind) {
                        if let Some(f) = stack.pop() {
                            s.close[f.opener] = i as u32;
                            s.next[f.last] = i as u32;
                        }
                    }
                }
                b',' if stack.len() > floor => {
                    if let Some(f) = stack.last_mut() {
                        s.next[f.last] = i as u32;
                        f.last = i;
                    }
                }
                b';' => {
                    while stack.len() > floor && stack.last().is_some_and(|f| f.kind == Open::Launch) {
                        stack.pop();
                    }
                }
                _ => {}
            }
            i += step;
        }
        s
    }

    /// The closer of opener `i`.
    pub(crate) fn close_of(&self, i: usize) -> Option<usize> {
        self.close.get(i).filter(|&&c| c != NONE).map(|&c| c as usize)
    }

    /// The separators of the bracket opened at `i`: the opener, each top-level
    /// comma, then the closer. `None` when the bracket is not closed.
    pub(crate) fn separators(&self, i: usize) -> Option<Vec<usize>> {
        let close = self.close_of(i)?;
        let mut out = vec![i];
        let mut at = i;
        while at != close {
            let n = *self.next.get(at)?;
            if n == NONE {
                return None;
            }
            at = n as usize;
            out.push(at);
        }
        Some(out)
    }
}
