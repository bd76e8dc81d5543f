//! From branches and labels to structured control flow.
//!
//! The flat instruction list is cut into basic blocks; the blocks reachable from the entry are
//! numbered in reverse postorder and their dominator tree is computed (Cooper, Harvey and
//! Kennedy's iterative algorithm). A reducible graph (every retreating edge goes to a block that
//! dominates its source, which is what compilers emit) is then translated with Ramsey's
//! "Beyond Relooper" scheme: a loop header becomes a loop, a block with several forward
//! predecessors (a merge point) is placed after a block construct that forward branches leave
//! with `break`, back edges become `continue`, and everything else nests. The IR has no block
//! construct, so a block is a loop that runs once (its body ends in `break`); the executor's
//! masks then reconverge lanes exactly at merge points, as the GPU does.

use std::collections::HashMap;

use crate::flatten::Item;
use crate::parse::Inst;
use crate::FrontendError;

/// How a basic block ends.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Term {
    Jump(usize),
    /// `if pred (negated when the bool is true) then .1 else .2`.
    Branch {
        pred: String,
        negated: bool,
        taken: usize,
        fallthrough: usize,
    },
    Return,
}

#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub insts: Vec<Inst>,
    pub term: Term,
}

/// Structured code over basic blocks.
#[derive(Clone, Debug)]
pub(crate) enum Code {
    /// The instructions of a basic block.
    Block(usize),
    Seq(Vec<Code>),
    If {
        pred: String,
        negated: bool,
        then: Box<Code>,
        else_: Box<Code>,
    },
    /// A loop whose body ends by leaving it (`break 0`); loop headers and block constructs.
    Loop(Box<Code>),
    Break(u32),
    Continue(u32),
    Return,
}

fn is_terminator(i: &Inst) -> bool {
    let base = i.opcode.split('.').next().unwrap_or("");
    matches!(base, "bra" | "ret" | "exit")
}

/// Cuts the flat list into basic blocks (block 0 is the entry).
pub(crate) fn blocks(items: &[Item]) -> Result<Vec<Block>, FrontendError> {
    // Label positions: a label starts a new block.
    let mut raw: Vec<(Option<String>, Vec<Inst>)> = vec![(None, Vec::new())];
    for it in items {
        match it {
            Item::Label(l) => raw.push((Some(l.clone()), Vec::new())),
            Item::Inst(i) => {
                let ends = is_terminator(i);
                if let Some(b) = raw.last_mut() {
                    b.1.push(i.clone());
                }
                if ends {
                    raw.push((None, Vec::new()));
                }
            }
        }
    }
    let mut label_block = HashMap::new();
    for (k, (l, insts)) in raw.iter().enumerate() {
        if let Some(l) = l {
            if label_block.insert(l.clone(), k).is_some() {
                let line = insts.first().map(|i| i.line).unwrap_or(0);
                return Err(FrontendError::Invalid {
                    line,
                    message: format!("label `{l}` is defined twice"),
                });
            }
        }
    }
    let n = raw.len();
    let target = |i: &Inst| -> Result<usize, FrontendError> {
        match i.operands.first() {
            Some(crate::parse::Operand::Sym(l)) => label_block.get(l).copied().ok_or_else(|| {
                FrontendError::Invalid { line: i.line, message: format!("unknown label `{l}`") }
            }),
            _ => Err(FrontendError::Unsupported { line: i.line, what: "an indirect branch".into() }),
        }
    };
    let mut out = Vec::with_capacity(n);
    for (k, (_, mut insts)) in raw.into_iter().enumerate() {
        let next = k + 1;
        let last = insts.last().filter(|i| is_terminator(i)).cloned();
        let term = match last {
            None => {
                if next < n {
                    Term::Jump(next)
                } else {
                    Term::Return
                }
            }
            Some(i) => {
                insts.pop();
                let base = i.opcode.split('.').next().unwrap_or("");
                let dest = if base == "bra" { Some(target(&i)?) } else { None };
                let fall = if next < n { next } else { usize::MAX };
                match (&i.guard, dest) {
                    (None, Some(t)) => Term::Jump(t),
                    (None, None) => Term::Return,
                    (Some((p, neg)), Some(t)) => {
                        if fall == t {
                            Term::Jump(t)
                        } else {
                            // A fall-through off the end of the kernel returns (fixed up below).
                            Term::Branch { pred: p.clone(), negated: *neg, taken: t, fallthrough: fall }
                        }
                    }
                    (Some((p, neg)), None) => {
                        // A guarded return: a branch to a block that returns.
                        Term::Branch { pred: p.clone(), negated: *neg, taken: usize::MAX, fallthrough: fall }
                    }
                }
            }
        };
        out.push(Block { insts, term });
    }
    // Blocks that return, for guarded returns and a guarded branch falling off the end.
    let ret_block = out.len();
    out.push(Block { insts: Vec::new(), term: Term::Return });
    for b in &mut out {
        if let Term::Branch { taken, fallthrough, .. } = &mut b.term {
            if *taken == usize::MAX {
                *taken = ret_block;
            }
            if *fallthrough == usize::MAX {
                *fallthrough = ret_block;
            }
        }
    }
    Ok(out)
}

fn succs(t: &Term) -> Vec<usize> {
    match t {
        Term::Jump(a) => vec![*a],
        Term::Branch { taken, fallthrough, .. } => vec![*taken, *fallthrough],
        Term::Return => vec![],
    }
}

struct Structurer<'a> {
    blocks: &'a [Block],
    /// Reverse-postorder number of each block (`usize::MAX` if unreachable).
    rpo: Vec<usize>,
    idom: Vec<usize>,
    children: Vec<Vec<usize>>,
    loop_header: Vec<bool>,
    merge: Vec<bool>,
    /// The blocks of each loop (by header), for loop headers.
    body: Vec<Vec<bool>>,
}

#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    IfThenElse,
    LoopHeadedBy(usize),
    BlockFollowedBy(usize),
}

impl Structurer<'_> {
    fn depth_of(&self, ctx: &[Ctx], want: Ctx) -> Option<u32> {
        let mut depth = 0;
        for c in ctx.iter().rev() {
            if *c == want {
                return Some(depth);
            }
            if !matches!(c, Ctx::IfThenElse) {
                depth += 1;
            }
        }
        None
    }

    fn branch(&self, from: usize, to: usize, ctx: &mut Vec<Ctx>) -> Result<Code, FrontendError> {
        let bad = |what: &str| FrontendError::Unsupported {
            line: self.blocks[from].insts.first().map(|i| i.line).unwrap_or(0),
            what: what.into(),
        };
        if self.rpo[to] <= self.rpo[from] {
            let d =
                self.depth_of(ctx, Ctx::LoopHeadedBy(to)).ok_or_else(|| bad("irreducible control flow"))?;
            Ok(Code::Continue(d))
        } else if self.merge[to] || self.follows_loop(from, to) {
            let d = self
                .depth_of(ctx, Ctx::BlockFollowedBy(to))
                .ok_or_else(|| bad("irreducible control flow"))?;
            Ok(Code::Break(d))
        } else {
            self.tree(to, ctx)
        }
    }

    /// Whether `to` is placed after a loop that `from` is in (a loop exit into a block its header
    /// dominates).
    fn follows_loop(&self, from: usize, to: usize) -> bool {
        let h = self.idom[to];
        self.loop_header[h] && self.body[h][from] && !self.body[h][to]
    }

    fn tree(&self, x: usize, ctx: &mut Vec<Ctx>) -> Result<Code, FrontendError> {
        // Highest reverse-postorder number first: the outermost block is followed by the
        // merge point that comes last.
        let by_rpo = |v: &mut Vec<usize>| v.sort_by_key(|&c| std::cmp::Reverse(self.rpo[c]));
        if !self.loop_header[x] {
            let mut merges: Vec<usize> =
                self.children[x].iter().copied().filter(|&c| self.merge[c]).collect();
            by_rpo(&mut merges);
            return self.within(x, &merges, ctx);
        }
        // A loop: what it dominates outside its body comes after it (lanes leave the loop at
        // different trips and must meet there, as on the GPU), reached by `break`.
        let body = &self.body[x];
        let (mut inside, mut after): (Vec<usize>, Vec<usize>) =
            self.children[x].iter().partition(|&&c| body[c]);
        inside.retain(|&c| self.merge[c]);
        by_rpo(&mut inside);
        by_rpo(&mut after);
        self.after_loop(x, &inside, &after, ctx)
    }

    /// `loop { x }` inside one block construct per node in `after`, each followed by that node.
    fn after_loop(
        &self,
        x: usize,
        inside: &[usize],
        after: &[usize],
        ctx: &mut Vec<Ctx>,
    ) -> Result<Code, FrontendError> {
        if let Some((&y, rest)) = after.split_first() {
            ctx.push(Ctx::BlockFollowedBy(y));
            let inner = self.after_loop(x, inside, rest, ctx);
            ctx.pop();
            let follow = self.tree(y, ctx)?;
            return Ok(Code::Seq(vec![Code::Loop(Box::new(inner?)), follow]));
        }
        ctx.push(Ctx::LoopHeadedBy(x));
        let body = self.within(x, inside, ctx);
        ctx.pop();
        Ok(Code::Loop(Box::new(body?)))
    }

    fn within(&self, x: usize, merges: &[usize], ctx: &mut Vec<Ctx>) -> Result<Code, FrontendError> {
        if let Some((&y, rest)) = merges.split_first() {
            ctx.push(Ctx::BlockFollowedBy(y));
            let inner = self.within(x, rest, ctx);
            ctx.pop();
            let after = self.tree(y, ctx)?;
            return Ok(Code::Seq(vec![Code::Loop(Box::new(inner?)), after]));
        }
        let end = match &self.blocks[x].term {
            Term::Return => Code::Return,
            Term::Jump(t) => self.branch(x, *t, ctx)?,
            Term::Branch { pred, negated, taken, fallthrough } => {
                ctx.push(Ctx::IfThenElse);
                let then = self.branch(x, *taken, ctx);
                let else_ = self.branch(x, *fallthrough, ctx);
                ctx.pop();
                Code::If {
                    pred: pred.clone(),
                    negated: *negated,
                    then: Box::new(then?),
                    else_: Box::new(else_?),
                }
            }
        };
        Ok(Code::Seq(vec![Code::Block(x), end]))
    }
}

/// Structures the blocks (entry 0). An irreducible graph is an error.
pub(crate) fn structure(blocks: &[Block]) -> Result<Code, FrontendError> {
    let n = blocks.len();
    // Postorder by an explicit stack.
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some((b, k)) = stack.pop() {
        let s = succs(&blocks[b].term);
        if k < s.len() {
            stack.push((b, k + 1));
            let c = s[k];
            if !seen[c] {
                seen[c] = true;
                stack.push((c, 0));
            }
        } else {
            post.push(b);
        }
    }
    let order: Vec<usize> = post.iter().rev().copied().collect();
    let mut rpo = vec![usize::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        rpo[b] = i;
    }
    let mut preds = vec![Vec::new(); n];
    for &b in &order {
        for s in succs(&blocks[b].term) {
            if !preds[s].contains(&b) {
                preds[s].push(b);
            }
        }
    }
    // Dominators.
    let mut idom = vec![usize::MAX; n];
    idom[0] = 0;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while rpo[a] > rpo[b] {
                a = idom[a];
            }
            while rpo[b] > rpo[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new = usize::MAX;
            for &p in &preds[b] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX { p } else { intersect(&idom, p, new) };
            }
            if new != usize::MAX && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    let dominates = |a: usize, mut b: usize| loop {
        if a == b {
            return true;
        }
        if b == 0 || idom[b] == b {
            return false;
        }
        b = idom[b];
    };
    let mut children = vec![Vec::new(); n];
    let mut loop_header = vec![false; n];
    let mut forward_in = vec![0u32; n];
    for &b in &order {
        if b != 0 {
            children[idom[b]].push(b);
        }
        for s in succs(&blocks[b].term) {
            if rpo[s] <= rpo[b] {
                if !dominates(s, b) {
                    let line =
                        blocks[b].insts.first().or(blocks[s].insts.first()).map(|i| i.line).unwrap_or(0);
                    return Err(FrontendError::Unsupported { line, what: "irreducible control flow".into() });
                }
                loop_header[s] = true;
            } else {
                forward_in[s] += 1;
            }
        }
    }
    let merge = forward_in.iter().map(|&k| k >= 2).collect();
    // Natural loops: the blocks that reach a back edge's source without passing the header.
    let mut body = vec![Vec::new(); n];
    for &b in &order {
        for s in succs(&blocks[b].term) {
            if rpo[s] <= rpo[b] {
                if body[s].is_empty() {
                    body[s] = vec![false; n];
                    body[s][s] = true;
                }
                let mut stack = vec![b];
                while let Some(v) = stack.pop() {
                    if std::mem::replace(&mut body[s][v], true) {
                        continue;
                    }
                    stack.extend(preds[v].iter().copied());
                }
            }
        }
    }
    let st = Structurer { blocks, rpo, idom, children, loop_header, merge, body };
    st.tree(0, &mut Vec::new())
}
