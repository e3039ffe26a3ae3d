//! Where free variables get declared.
//!
//! A variable or buffer used without a definition (only in odd IR) is
//! declared the way TVM does it: in the innermost printed scope that
//! encloses all its uses (the common prefix of their scope paths), just
//! before the statement of that scope that first uses it. Unlike TVM, a use
//! in a loop's header counts as a use in the scope around the loop, so the
//! declaration comes before the `for` line rather than inside its body.

use std::collections::HashMap;

use crate::{Buffer, BufferId, Expr, ExprKind, Range, Stmt, StmtKind, VarId};

/// Identifies a scope: a statement node (by address) and which of its
/// bodies (loop or block body, `then`, `else`, `init`).
pub(crate) type ScopeKey = (usize, u8);

pub(crate) const FUNC_SCOPE: ScopeKey = (0, 0);
const BODY: u8 = 1;
const THEN: u8 = 2;
const ELSE: u8 = 3;
const INIT: u8 = 4;

fn addr(s: &Stmt) -> usize {
    s.kind() as *const StmtKind as usize
}

pub(crate) fn body_key(s: &Stmt) -> ScopeKey {
    (addr(s), BODY)
}
pub(crate) fn then_key(s: &Stmt) -> ScopeKey {
    (addr(s), THEN)
}
pub(crate) fn else_key(s: &Stmt) -> ScopeKey {
    (addr(s), ELSE)
}
pub(crate) fn init_key(s: &Stmt) -> ScopeKey {
    (addr(s), INIT)
}

/// For each variable and buffer, the common prefix of the scope paths of
/// its uses.
#[derive(Default)]
pub(crate) struct ScopePaths {
    pub(crate) vars: HashMap<VarId, Vec<ScopeKey>>,
    pub(crate) bufs: HashMap<BufferId, Vec<ScopeKey>>,
}

fn meet(slot: &mut Vec<ScopeKey>, path: &[ScopeKey]) {
    let n = slot.iter().zip(path).take_while(|(a, b)| a == b).count();
    slot.truncate(n);
}

impl ScopePaths {
    pub(crate) fn of_function_body(body: &Stmt) -> ScopePaths {
        let mut p = ScopePaths::default();
        let mut path = vec![FUNC_SCOPE];
        p.stmt(body, &mut path);
        p
    }

    fn use_var(&mut self, id: VarId, path: &[ScopeKey]) {
        match self.vars.get_mut(&id) {
            Some(slot) => meet(slot, path),
            None => {
                self.vars.insert(id, path.to_vec());
            }
        }
    }

    fn use_buffer(&mut self, b: &Buffer, path: &[ScopeKey]) {
        match self.bufs.get_mut(&b.id()) {
            Some(slot) => meet(slot, path),
            None => {
                self.bufs.insert(b.id(), path.to_vec());
            }
        }
    }

    fn expr(&mut self, e: &Expr, path: &[ScopeKey]) {
        e.walk(&mut |x| match x.kind() {
            ExprKind::Var(v) => self.use_var(v.id(), path),
            ExprKind::Load { buffer, .. } => self.use_buffer(buffer, path),
            _ => {}
        });
    }

    fn range(&mut self, r: &Range, path: &[ScopeKey]) {
        self.expr(&r.min, path);
        self.expr(&r.extent, path);
    }

    /// The expressions a buffer declaration prints.
    fn decl(&mut self, b: &Buffer, path: &[ScopeKey]) {
        for e in b.shape.iter().chain(&b.strides) {
            self.expr(e, path);
        }
        self.expr(&b.elem_offset, path);
    }

    fn stmt(&mut self, s: &Stmt, path: &mut Vec<ScopeKey>) {
        match s.kind() {
            StmtKind::Seq(items) => {
                for item in items {
                    self.stmt(item, path);
                }
            }
            StmtKind::For(f) => {
                self.expr(&f.min, path);
                self.expr(&f.extent, path);
                path.push(body_key(s));
                self.stmt(&f.body, path);
                path.pop();
            }
            StmtKind::BlockRealize(r) => {
                path.push(body_key(s));
                let b = &r.block;
                for v in &r.iter_values {
                    self.expr(v, path);
                }
                self.expr(&r.predicate, path);
                for iv in &b.iter_vars {
                    self.range(&iv.dom, path);
                }
                for region in b.reads.iter().chain(&b.writes) {
                    self.use_buffer(&region.buffer, path);
                    for r in &region.region {
                        self.range(r, path);
                    }
                }
                for buf in &b.alloc_buffers {
                    self.decl(buf, path);
                }
                for mb in &b.match_buffers {
                    self.use_buffer(&mb.source.buffer, path);
                    for r in &mb.source.region {
                        self.range(r, path);
                    }
                    self.decl(&mb.buffer, path);
                }
                if let Some(init) = &b.init {
                    path.push(init_key(s));
                    self.stmt(init, path);
                    path.pop();
                }
                self.stmt(&b.body, path);
                path.pop();
            }
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                self.use_buffer(buffer, path);
                self.expr(value, path);
                for i in indices {
                    self.expr(i, path);
                }
            }
            StmtKind::Let { value, body, .. } => {
                self.expr(value, path);
                self.stmt(body, path);
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond, path);
                path.push(then_key(s));
                self.stmt(then, path);
                path.pop();
                if let Some(o) = otherwise {
                    path.push(else_key(s));
                    self.stmt(o, path);
                    path.pop();
                }
            }
            StmtKind::Evaluate(e) => self.expr(e, path),
            StmtKind::Allocate { buffer, body } => {
                self.decl(buffer, path);
                self.stmt(body, path);
            }
        }
    }
}
