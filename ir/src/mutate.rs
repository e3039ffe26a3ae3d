//! Rebuilding IR: a [`Mutator`] trait whose default methods walk the tree and
//! rebuild only the nodes whose children changed (unchanged subtrees stay
//! shared), plus the substitutions every transformation needs.

use std::collections::HashMap;

use super::buffer::{Buffer, BufferRegion, MatchBufferRegion};
use super::expr::{Expr, ExprKind, Range, VarId};
use super::stmt::{Block, BlockRealize, For, IterVar, Stmt, StmtKind};

/// Override the hooks you need; call `walk_expr`/`walk_stmt` for the rest.
pub trait Mutator {
    fn expr(&mut self, e: &Expr) -> Expr {
        walk_expr(self, e)
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        walk_stmt(self, s)
    }
    /// Every place a buffer is mentioned: loads, stores, regions, allocations,
    /// match buffers. The default keeps it.
    fn buffer(&mut self, b: &Buffer) -> Buffer {
        b.clone()
    }
}

fn exprs_changed(old: &[Expr], new: &[Expr]) -> bool {
    old.iter().zip(new).any(|(a, b)| !a.same_node(b))
}

/// Rebuilds `e` from its mutated children.
pub fn walk_expr<M: Mutator + ?Sized>(m: &mut M, e: &Expr) -> Expr {
    let kind = match e.kind() {
        ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => {
            return e.clone()
        }
        ExprKind::Binary(op, a, b) => {
            let (na, nb) = (m.expr(a), m.expr(b));
            if na.same_node(a) && nb.same_node(b) {
                return e.clone();
            }
            ExprKind::Binary(*op, na, nb)
        }
        ExprKind::Cmp(op, a, b) => {
            let (na, nb) = (m.expr(a), m.expr(b));
            if na.same_node(a) && nb.same_node(b) {
                return e.clone();
            }
            ExprKind::Cmp(*op, na, nb)
        }
        ExprKind::And(a, b) => {
            let (na, nb) = (m.expr(a), m.expr(b));
            if na.same_node(a) && nb.same_node(b) {
                return e.clone();
            }
            ExprKind::And(na, nb)
        }
        ExprKind::Or(a, b) => {
            let (na, nb) = (m.expr(a), m.expr(b));
            if na.same_node(a) && nb.same_node(b) {
                return e.clone();
            }
            ExprKind::Or(na, nb)
        }
        ExprKind::Not(a) => {
            let na = m.expr(a);
            if na.same_node(a) {
                return e.clone();
            }
            ExprKind::Not(na)
        }
        ExprKind::Cast(a) => {
            let na = m.expr(a);
            if na.same_node(a) {
                return e.clone();
            }
            ExprKind::Cast(na)
        }
        ExprKind::Broadcast(a) => {
            let na = m.expr(a);
            if na.same_node(a) {
                return e.clone();
            }
            ExprKind::Broadcast(na)
        }
        ExprKind::Select {
            cond,
            then,
            otherwise,
        } => {
            let (c, t, o) = (m.expr(cond), m.expr(then), m.expr(otherwise));
            if c.same_node(cond) && t.same_node(then) && o.same_node(otherwise) {
                return e.clone();
            }
            ExprKind::Select {
                cond: c,
                then: t,
                otherwise: o,
            }
        }
        ExprKind::Call { op, args } => {
            let new: Vec<Expr> = args.iter().map(|a| m.expr(a)).collect();
            if !exprs_changed(args, &new) {
                return e.clone();
            }
            ExprKind::Call {
                op: op.clone(),
                args: new,
            }
        }
        ExprKind::Load { buffer, indices } => {
            let nb = m.buffer(buffer);
            let new: Vec<Expr> = indices.iter().map(|a| m.expr(a)).collect();
            if nb == *buffer && !exprs_changed(indices, &new) {
                return e.clone();
            }
            // A replacement buffer may change the element type (e.g. a cast cache); lanes stay.
            let dtype = nb.dtype.with_lanes(e.dtype().lanes);
            return Expr::new(
                ExprKind::Load {
                    buffer: nb,
                    indices: new,
                },
                dtype,
                e.span(),
            );
        }
        ExprKind::Let { var, value, body } => {
            let (nv, nbody) = (m.expr(value), m.expr(body));
            if nv.same_node(value) && nbody.same_node(body) {
                return e.clone();
            }
            ExprKind::Let {
                var: var.clone(),
                value: nv,
                body: nbody,
            }
        }
        ExprKind::Ramp { base, stride } => {
            let (nb, ns) = (m.expr(base), m.expr(stride));
            if nb.same_node(base) && ns.same_node(stride) {
                return e.clone();
            }
            ExprKind::Ramp {
                base: nb,
                stride: ns,
            }
        }
    };
    Expr::new(kind, e.dtype(), e.span())
}

fn walk_range<M: Mutator + ?Sized>(m: &mut M, r: &Range) -> Range {
    Range {
        min: m.expr(&r.min),
        extent: m.expr(&r.extent),
    }
}

fn walk_region<M: Mutator + ?Sized>(m: &mut M, r: &BufferRegion) -> BufferRegion {
    BufferRegion {
        buffer: m.buffer(&r.buffer),
        region: r.region.iter().map(|x| walk_range(m, x)).collect(),
    }
}

/// Rebuilds a block from its mutated parts.
pub fn walk_block<M: Mutator + ?Sized>(m: &mut M, b: &Block) -> Block {
    Block {
        name: b.name.clone(),
        iter_vars: b
            .iter_vars
            .iter()
            .map(|iv| IterVar {
                var: iv.var.clone(),
                dom: walk_range(m, &iv.dom),
                kind: iv.kind,
            })
            .collect(),
        reads: b.reads.iter().map(|r| walk_region(m, r)).collect(),
        writes: b.writes.iter().map(|r| walk_region(m, r)).collect(),
        alloc_buffers: b.alloc_buffers.iter().map(|x| m.buffer(x)).collect(),
        match_buffers: b
            .match_buffers
            .iter()
            .map(|mb| MatchBufferRegion {
                buffer: m.buffer(&mb.buffer),
                source: walk_region(m, &mb.source),
            })
            .collect(),
        annotations: b.annotations.clone(),
        init: b.init.as_ref().map(|s| m.stmt(s)),
        body: m.stmt(&b.body),
        span: b.span,
    }
}

/// Rebuilds `s` from its mutated children. (Always allocates a new node for
/// compound statements; cheap enough, and keeps this code obvious.)
pub fn walk_stmt<M: Mutator + ?Sized>(m: &mut M, s: &Stmt) -> Stmt {
    let kind = match s.kind() {
        StmtKind::For(l) => StmtKind::For(For {
            loop_var: l.loop_var.clone(),
            min: m.expr(&l.min),
            extent: m.expr(&l.extent),
            kind: l.kind,
            thread_tag: l.thread_tag.clone(),
            annotations: l.annotations.clone(),
            body: m.stmt(&l.body),
        }),
        StmtKind::BlockRealize(r) => StmtKind::BlockRealize(BlockRealize {
            iter_values: r.iter_values.iter().map(|e| m.expr(e)).collect(),
            predicate: m.expr(&r.predicate),
            block: walk_block(m, &r.block),
        }),
        StmtKind::Store {
            buffer,
            value,
            indices,
        } => StmtKind::Store {
            buffer: m.buffer(buffer),
            value: m.expr(value),
            indices: indices.iter().map(|e| m.expr(e)).collect(),
        },
        StmtKind::Let { var, value, body } => StmtKind::Let {
            var: var.clone(),
            value: m.expr(value),
            body: m.stmt(body),
        },
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => StmtKind::If {
            cond: m.expr(cond),
            then: m.stmt(then),
            otherwise: otherwise.as_ref().map(|o| m.stmt(o)),
        },
        StmtKind::Evaluate(e) => StmtKind::Evaluate(m.expr(e)),
        StmtKind::Seq(v) => StmtKind::Seq(v.iter().map(|x| m.stmt(x)).collect()),
        StmtKind::Allocate { buffer, body } => StmtKind::Allocate {
            buffer: m.buffer(buffer),
            body: m.stmt(body),
        },
    };
    Stmt::new(kind, s.span())
}

/// Replaces variables by expressions.
pub struct Substitute<'a> {
    pub map: &'a HashMap<VarId, Expr>,
}

impl Mutator for Substitute<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if let ExprKind::Var(v) = e.kind() {
            if let Some(r) = self.map.get(&v.id()) {
                return r.clone();
            }
            return e.clone();
        }
        walk_expr(self, e)
    }
}

pub fn substitute_expr(e: &Expr, map: &HashMap<VarId, Expr>) -> Expr {
    if map.is_empty() {
        return e.clone();
    }
    Substitute { map }.expr(e)
}

pub fn substitute_stmt(s: &Stmt, map: &HashMap<VarId, Expr>) -> Stmt {
    if map.is_empty() {
        return s.clone();
    }
    Substitute { map }.stmt(s)
}
