//! Reading IR: a [`Visitor`] trait whose default methods walk every child of
//! a statement or expression without rebuilding anything (the read-only
//! counterpart of [`crate::mutate::Mutator`]), plus the variable collectors
//! that analyses, lowering, the code generators and the printer share.
//!
//! Override the hooks you need and call the matching `walk_*` function to
//! keep descending. The walk is recursive, like `Expr::walk`: code that must
//! survive arbitrarily deep user input (the verifier) keeps its own work stack.
//!
//! What the default walk visits, in order:
//! - expressions: the node, then its operands left to right; a `Let`'s value,
//!   its variable (as a definition), then its body;
//! - `For`: the loop variable (definition), `min`, `extent`, the body;
//! - `BlockRealize`: the iterator values, the predicate, then the block: each
//!   iterator (definition, then domain), read regions, write regions,
//!   allocated buffers, match buffers (the buffer, then its source region),
//!   the init statement, the body;
//! - `Store`: the value, then the indices; `Let`: value, variable, body;
//!   `If`: condition, then-branch, else-branch; `Allocate`: the buffer, the body.
//!
//! Buffer shapes, strides and offsets are not expressions of the statement:
//! the walk reaches them only where a visitor asks ([`walk_buffer_fields`]).

use std::collections::HashSet;

use crate::{
    Block, Buffer, BufferId, BufferRegion, Expr, ExprKind, Range, Stmt, StmtKind, Var, VarId,
};

/// Override the hooks you need; call `walk_*` from an override to descend.
pub trait Visitor {
    fn visit_expr(&mut self, e: &Expr) {
        walk_expr(self, e)
    }
    fn visit_stmt(&mut self, s: &Stmt) {
        walk_stmt(self, s)
    }
    fn visit_block(&mut self, b: &Block) {
        walk_block(self, b)
    }
    fn visit_buffer_region(&mut self, r: &BufferRegion) {
        walk_buffer_region(self, r)
    }
    /// A use of a variable (an `ExprKind::Var` node).
    fn visit_var(&mut self, _var: &Var) {}
    /// A definition: a loop variable, a `Let` variable (statement or
    /// expression), a block iterator.
    fn visit_var_def(&mut self, _var: &Var) {}
    /// A buffer declared in the tree: `Allocate`, a block's `alloc_buffers`,
    /// a match buffer. The default does not descend into its shape.
    fn visit_buffer_def(&mut self, _buffer: &Buffer) {}
}

/// Visits the variable of a `Var` node, or the operands of any other node.
pub fn walk_expr<V: Visitor + ?Sized>(v: &mut V, e: &Expr) {
    match e.kind() {
        ExprKind::Var(var) => v.visit_var(var),
        ExprKind::Let { var, value, body } => {
            v.visit_expr(value);
            v.visit_var_def(var);
            v.visit_expr(body);
        }
        _ => e.for_each_child(|c| v.visit_expr(c)),
    }
}

pub fn walk_range<V: Visitor + ?Sized>(v: &mut V, r: &Range) {
    v.visit_expr(&r.min);
    v.visit_expr(&r.extent);
}

pub fn walk_buffer_region<V: Visitor + ?Sized>(v: &mut V, r: &BufferRegion) {
    for range in &r.region {
        walk_range(v, range);
    }
}

/// The expressions a buffer declaration carries: shape, strides, offset.
pub fn walk_buffer_fields<V: Visitor + ?Sized>(v: &mut V, b: &Buffer) {
    for e in b.shape.iter().chain(&b.strides) {
        v.visit_expr(e);
    }
    v.visit_expr(&b.elem_offset);
}

pub fn walk_block<V: Visitor + ?Sized>(v: &mut V, b: &Block) {
    for iv in &b.iter_vars {
        v.visit_var_def(&iv.var);
        walk_range(v, &iv.dom);
    }
    for r in b.reads.iter().chain(&b.writes) {
        v.visit_buffer_region(r);
    }
    for buffer in &b.alloc_buffers {
        v.visit_buffer_def(buffer);
    }
    for mb in &b.match_buffers {
        v.visit_buffer_def(&mb.buffer);
        v.visit_buffer_region(&mb.source);
    }
    if let Some(init) = &b.init {
        v.visit_stmt(init);
    }
    v.visit_stmt(&b.body);
}

pub fn walk_stmt<V: Visitor + ?Sized>(v: &mut V, s: &Stmt) {
    match s.kind() {
        StmtKind::For(l) => {
            v.visit_var_def(&l.loop_var);
            v.visit_expr(&l.min);
            v.visit_expr(&l.extent);
            v.visit_stmt(&l.body);
        }
        StmtKind::BlockRealize(r) => {
            for e in &r.iter_values {
                v.visit_expr(e);
            }
            v.visit_expr(&r.predicate);
            v.visit_block(&r.block);
        }
        StmtKind::Store { value, indices, .. } => {
            v.visit_expr(value);
            for e in indices {
                v.visit_expr(e);
            }
        }
        StmtKind::Let { var, value, body } => {
            v.visit_expr(value);
            v.visit_var_def(var);
            v.visit_stmt(body);
        }
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            v.visit_expr(cond);
            v.visit_stmt(then);
            if let Some(o) = otherwise {
                v.visit_stmt(o);
            }
        }
        StmtKind::Evaluate(e) => v.visit_expr(e),
        StmtKind::Seq(items) => {
            for x in items {
                v.visit_stmt(x);
            }
        }
        StmtKind::Allocate { buffer, body } => {
            v.visit_buffer_def(buffer);
            v.visit_stmt(body);
        }
    }
}

/// Collects used variables, each once, in order of first use.
#[derive(Default)]
pub struct VarCollector {
    pub seen: HashSet<VarId>,
    pub vars: Vec<Var>,
}

impl VarCollector {
    /// Records `var` unless it was seen before.
    pub fn note(&mut self, var: &Var) {
        if self.seen.insert(var.id()) {
            self.vars.push(var.clone());
        }
    }
}

impl Visitor for VarCollector {
    fn visit_var(&mut self, var: &Var) {
        self.note(var);
    }
}

/// The variables used in `e`, each once, in order of first use.
pub fn expr_vars(e: &Expr) -> Vec<Var> {
    let mut c = VarCollector::default();
    c.visit_expr(e);
    c.vars
}

/// The ids of the variables used in the expressions of `s` (buffer shapes
/// not included).
pub fn stmt_var_ids(s: &Stmt) -> HashSet<VarId> {
    let mut c = VarCollector::default();
    c.visit_stmt(s);
    c.seen
}

/// Whether `var` is used in an expression of `s` (buffer shapes not included).
pub fn stmt_uses_var(s: &Stmt, var: &Var) -> bool {
    stmt_var_ids(s).contains(&var.id())
}

/// The buffers loaded from and stored to, each once, in order of first access.
#[derive(Default)]
pub struct BufferAccesses {
    pub loaded: Vec<Buffer>,
    pub stored: Vec<Buffer>,
    loaded_ids: HashSet<BufferId>,
    stored_ids: HashSet<BufferId>,
}

impl BufferAccesses {
    /// The accesses in the expressions of `s`.
    pub fn of_stmt(s: &Stmt) -> BufferAccesses {
        let mut accesses = BufferAccesses::default();
        accesses.visit_stmt(s);
        accesses
    }
    pub fn loads(&self, buffer: &Buffer) -> bool {
        self.loaded_ids.contains(&buffer.id())
    }
    pub fn stores(&self, buffer: &Buffer) -> bool {
        self.stored_ids.contains(&buffer.id())
    }
}

impl Visitor for BufferAccesses {
    fn visit_expr(&mut self, e: &Expr) {
        if let ExprKind::Load { buffer, .. } = e.kind() {
            if self.loaded_ids.insert(buffer.id()) {
                self.loaded.push(buffer.clone());
            }
        }
        walk_expr(self, e);
    }
    fn visit_stmt(&mut self, s: &Stmt) {
        if let StmtKind::Store { buffer, .. } = s.kind() {
            if self.stored_ids.insert(buffer.id()) {
                self.stored.push(buffer.clone());
            }
        }
        walk_stmt(self, s);
    }
}
