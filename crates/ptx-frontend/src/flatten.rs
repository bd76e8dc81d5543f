//! One kernel as a flat list of labels and instructions: scopes resolved (names declared in a
//! `{ }` block are renamed apart), device functions inlined at their call sites (their
//! registers, locals and labels renamed per call, their parameters made aliases of the caller's
//! call-sequence parameters, `ret` a branch to the end of the copy), and the PTX system calls
//! (`vprintf`, `__assertfail`) turned into pseudo-instructions.

use std::collections::HashMap;

use crate::parse::{Function, Inst, Module, Operand, PtxType, Space, Stmt, VarDecl};
use crate::FrontendError;

/// Nested inlining beyond this depth is refused (it can only be recursion in practice).
const MAX_INLINE_DEPTH: usize = 24;

#[derive(Clone, Debug)]
pub(crate) enum Item {
    Label(String),
    Inst(Inst),
}

/// A kernel with every call inlined.
#[derive(Debug, Default)]
pub(crate) struct Flat {
    pub items: Vec<Item>,
    /// Every register by its final name.
    pub regs: HashMap<String, PtxType>,
    /// Per-thread storage: `.local` variables and call-sequence `.param` variables, in order.
    pub locals: Vec<VarDecl>,
    /// Function-scope `.shared` variables (names are kept: each names one block-wide array).
    pub shared: Vec<VarDecl>,
}

struct Flattener<'m> {
    module: &'m Module,
    flat: Flat,
    next_scope: usize,
    next_inline: usize,
    /// The functions being inlined, innermost last (for the recursion check).
    stack: Vec<String>,
}

/// Name resolution for one function copy: scopes of renames, innermost last.
struct Names {
    scopes: Vec<HashMap<String, String>>,
    /// Suffix for the labels of this copy (empty for the kernel itself).
    label_suffix: String,
}

impl Names {
    fn resolve(&self, name: &str) -> String {
        for s in self.scopes.iter().rev() {
            if let Some(n) = s.get(name) {
                return n.clone();
            }
        }
        name.to_string()
    }

    fn label(&self, name: &str) -> String {
        format!("{name}{}", self.label_suffix)
    }
}

impl Flattener<'_> {
    fn body(&mut self, stmts: &[Stmt], names: &mut Names, suffix: &str) -> Result<(), FrontendError> {
        // Declarations first (PTX lets a scope use names declared later in it).
        for s in stmts {
            match s {
                Stmt::Reg { ty, names: regs } => {
                    for (n, count) in regs {
                        match count {
                            Some(c) => {
                                for i in 0..*c {
                                    let orig = format!("{n}{i}");
                                    let renamed = format!("{orig}{suffix}");
                                    self.flat.regs.insert(renamed.clone(), *ty);
                                    if renamed != orig {
                                        names.scopes.last_mut().map(|m| m.insert(orig, renamed));
                                    }
                                }
                            }
                            None => {
                                let renamed = format!("{n}{suffix}");
                                self.flat.regs.insert(renamed.clone(), *ty);
                                if renamed != *n {
                                    names.scopes.last_mut().map(|m| m.insert(n.clone(), renamed));
                                }
                            }
                        }
                    }
                }
                Stmt::Var(v) => match v.space {
                    Space::Local | Space::Param => {
                        let mut v = v.clone();
                        let renamed = format!("{}{suffix}", v.name);
                        if renamed != v.name {
                            names.scopes.last_mut().map(|m| m.insert(v.name.clone(), renamed.clone()));
                        }
                        v.name = renamed;
                        self.flat.locals.push(v);
                    }
                    Space::Shared => {
                        if !self.flat.shared.iter().any(|s| s.name == v.name) {
                            self.flat.shared.push(v.clone());
                        }
                    }
                    Space::Global | Space::Const => {
                        return Err(FrontendError::Unsupported {
                            line: v.line,
                            what: format!("a function-scope .global/.const variable `{}`", v.name),
                        })
                    }
                },
                _ => {}
            }
        }
        for s in stmts {
            match s {
                Stmt::Reg { .. } | Stmt::Var(_) => {}
                Stmt::Label(l) => self.flat.items.push(Item::Label(names.label(l))),
                Stmt::Scope(inner) => {
                    self.next_scope += 1;
                    let scope_suffix = format!("{suffix}#{}", self.next_scope);
                    names.scopes.push(HashMap::new());
                    self.body(inner, names, &scope_suffix)?;
                    names.scopes.pop();
                }
                Stmt::Inst(i) => self.inst(i, names)?,
            }
        }
        Ok(())
    }

    fn rename(&self, op: &Operand, names: &Names) -> Operand {
        match op {
            Operand::Reg(r) => Operand::Reg(names.resolve(r)),
            Operand::Sym(s) => {
                let r = names.resolve(s);
                // Registers may have plain names (`.reg .b32 tmp;`).
                if self.flat.regs.contains_key(&r) {
                    return Operand::Reg(r);
                }
                // A symbol that names no variable or function of any scope is a label.
                if r == *s && self.is_label_like(s) {
                    Operand::Sym(names.label(s))
                } else {
                    Operand::Sym(r)
                }
            }
            Operand::Addr { base, offset } => {
                Operand::Addr { base: Box::new(self.rename(base, names)), offset: *offset }
            }
            Operand::Vector(v) => Operand::Vector(v.iter().map(|o| self.rename(o, names)).collect()),
            Operand::List(v) => Operand::List(v.iter().map(|o| self.rename(o, names)).collect()),
            Operand::Not(o) => Operand::Not(Box::new(self.rename(o, names))),
            Operand::Pair(a, b) => {
                Operand::Pair(Box::new(self.rename(a, names)), Box::new(self.rename(b, names)))
            }
            o => o.clone(),
        }
    }

    fn is_label_like(&self, s: &str) -> bool {
        !self.module.vars.iter().any(|v| v.name == s) && !self.module.functions.iter().any(|f| f.name == s)
    }

    fn inst(&mut self, i: &Inst, names: &mut Names) -> Result<(), FrontendError> {
        let mut inst = Inst {
            line: i.line,
            guard: i.guard.as_ref().map(|(r, n)| (names.resolve(r), *n)),
            opcode: i.opcode.clone(),
            operands: i.operands.iter().map(|o| self.rename(o, names)).collect(),
        };
        let base = inst.opcode.split('.').next().unwrap_or("").to_string();
        if base == "ret" && !names.label_suffix.is_empty() {
            // Returning from an inlined function: to the end of its copy.
            inst.opcode = "bra".into();
            inst.operands = vec![Operand::Sym(format!("$ferrocm_ret{}", names.label_suffix))];
        }
        if base == "call" {
            return self.call(inst);
        }
        self.flat.items.push(Item::Inst(inst));
        Ok(())
    }

    fn call(&mut self, inst: Inst) -> Result<(), FrontendError> {
        let line = inst.line;
        let mut ops = inst.operands.clone().into_iter();
        let mut rets = Vec::new();
        let mut first = ops.next();
        if let Some(Operand::List(r)) = &first {
            rets = r.clone();
            first = ops.next();
        }
        let Some(Operand::Sym(callee)) = first else {
            return Err(FrontendError::Unsupported { line, what: "an indirect call".into() });
        };
        let args = match ops.next() {
            Some(Operand::List(a)) => a,
            None => Vec::new(),
            Some(_) => {
                return Err(FrontendError::Unsupported { line, what: "a call with a prototype".into() })
            }
        };
        let unsupported = |what: String| FrontendError::Unsupported { line, what };
        match callee.as_str() {
            "vprintf" | "__assertfail" => {
                let opcode = if callee == "vprintf" { "ferrocm.vprintf" } else { "ferrocm.assertfail" };
                self.flat.items.push(Item::Inst(Inst {
                    line,
                    guard: inst.guard,
                    opcode: opcode.into(),
                    operands: vec![Operand::List(rets), Operand::List(args)],
                }));
                return Ok(());
            }
            _ => {}
        }
        let Some(f) = self.module.function(&callee) else {
            return Err(unsupported(format!("a call to `{callee}`, which the module does not define")));
        };
        let Some(body) = &f.body else {
            return Err(unsupported(format!(
                "a call to the external function `{callee}` (device malloc/free and libraries other than \
                 libclc's math are not available)"
            )));
        };
        if self.stack.len() >= MAX_INLINE_DEPTH || self.stack.contains(&callee) {
            return Err(unsupported(format!("a recursive call to `{callee}`")));
        }
        if f.params.len() != args.len() || f.rets.len() != rets.len() {
            return Err(FrontendError::Invalid {
                line,
                message: format!(
                    "`{callee}` takes {} parameters and returns {} values; the call passes {} and receives {}",
                    f.params.len(),
                    f.rets.len(),
                    args.len(),
                    rets.len()
                ),
            });
        }
        // The callee's parameters name the caller's call-sequence variables.
        let mut top = HashMap::new();
        for (formal, actual) in f.params.iter().chain(&f.rets).zip(args.iter().chain(&rets)) {
            let Operand::Sym(actual) = actual else {
                return Err(unsupported("a call whose arguments are not .param variables".into()));
            };
            top.insert(formal.name.clone(), actual.clone());
        }
        self.next_inline += 1;
        let suffix = format!("~{}", self.next_inline);
        let guard = inst.guard.clone();
        let skip = format!("$ferrocm_skip{suffix}");
        if let Some((p, neg)) = &guard {
            // A guarded call: branch around the copy when the guard is false.
            self.flat.items.push(Item::Inst(Inst {
                line,
                guard: Some((p.clone(), !neg)),
                opcode: "bra".into(),
                operands: vec![Operand::Sym(skip.clone())],
            }));
        }
        let mut names = Names { scopes: vec![top], label_suffix: suffix.clone() };
        self.stack.push(callee.clone());
        self.body(body, &mut names, &suffix)?;
        self.stack.pop();
        self.flat.items.push(Item::Label(format!("$ferrocm_ret{suffix}")));
        if guard.is_some() {
            self.flat.items.push(Item::Label(skip));
        }
        Ok(())
    }
}

/// Flattens kernel `f` of `module`.
pub(crate) fn flatten(module: &Module, f: &Function) -> Result<Flat, FrontendError> {
    let Some(body) = &f.body else {
        return Err(FrontendError::Invalid { line: f.line, message: format!("`{}` has no body", f.name) });
    };
    let mut fl = Flattener {
        module,
        flat: Flat::default(),
        next_scope: 0,
        next_inline: 0,
        stack: vec![f.name.clone()],
    };
    let mut names = Names { scopes: vec![HashMap::new()], label_suffix: String::new() };
    fl.body(body, &mut names, "")?;
    Ok(fl.flat)
}
