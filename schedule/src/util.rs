//! Small helpers shared by `rfactor`, `blockize` and `tensorize`.

use std::collections::{HashMap, HashSet};

use super::tree::{self, StmtPath};
use tessel_tir::arith::Analyzer;
use tessel_tir::ir::mutate::{substitute_expr, walk_expr, Mutator};
use tessel_tir::ir::*;

/// Paths of the blocks directly under the statement at `root` (TVM's "child
/// blocks on the sref tree"): blocks reached without entering another block,
/// in pre-order. Looking under a block means looking at its body.
pub(crate) fn child_block_paths(body: &Stmt, root: &StmtPath) -> Vec<StmtPath> {
    fn go(s: &Stmt, path: &mut Vec<usize>, out: &mut Vec<StmtPath>) {
        if let StmtKind::BlockRealize(_) = s.kind() {
            out.push(StmtPath(path.clone()));
            return;
        }
        for (i, c) in tree::children(s).iter().enumerate() {
            path.push(i);
            go(c, path, out);
            path.pop();
        }
    }
    let Some(start) = tree::get(body, root) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut path = root.0.clone();
    match start.kind() {
        StmtKind::BlockRealize(r) => {
            path.push(0);
            go(&r.block.body, &mut path, &mut out);
        }
        _ => {
            for (i, c) in tree::children(&start).iter().enumerate() {
                path.push(i);
                go(c, &mut path, &mut out);
                path.pop();
            }
        }
    }
    out
}

/// The variables of `e` in order of first appearance (parents first, children
/// left to right), like TVM's `UndefinedVars`.
pub(crate) fn vars_in_order(e: &Expr) -> Vec<Var> {
    let mut out: Vec<Var> = Vec::new();
    e.walk(&mut |x| {
        if let ExprKind::Var(v) = x.kind() {
            if !out.contains(v) {
                out.push(v.clone());
            }
        }
    });
    out
}

/// The variables an expression uses, as a set of ids.
pub(crate) fn var_ids(e: &Expr) -> HashSet<VarId> {
    let mut out = HashSet::new();
    e.walk(&mut |x| {
        if let ExprKind::Var(v) = x.kind() {
            out.insert(v.id());
        }
    });
    out
}

/// The region a load touches: one point per index.
pub(crate) fn point_region(buffer: &Buffer, indices: &[Expr]) -> BufferRegion {
    BufferRegion {
        buffer: buffer.clone(),
        region: indices.iter().map(|i| Range::point(i.clone())).collect(),
    }
}

pub(crate) fn substitute_region(r: &BufferRegion, map: &HashMap<VarId, Expr>) -> BufferRegion {
    BufferRegion {
        buffer: r.buffer.clone(),
        region: r
            .region
            .iter()
            .map(|x| {
                Range::new(
                    substitute_expr(&x.min, map),
                    substitute_expr(&x.extent, map),
                )
            })
            .collect(),
    }
}

/// Substitutes variables and simplifies every integer expression that
/// changed (TVM's `Substitute` with an analyzer, as `blockize` uses it).
/// Non-integer expressions are rebuilt structurally, never reordered.
pub(crate) struct SubstSimplify<'a> {
    pub map: &'a HashMap<VarId, Expr>,
    pub ana: &'a Analyzer,
}

impl Mutator for SubstSimplify<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        let dt = e.dtype();
        if dt.is_scalar() && (dt.is_int() || dt.is_uint()) {
            let r = substitute_expr(e, self.map);
            if r.same_node(e) {
                return r;
            }
            return self.ana.simplify(&r);
        }
        if let ExprKind::Var(v) = e.kind() {
            if let Some(r) = self.map.get(&v.id()) {
                return r.clone();
            }
        }
        walk_expr(self, e)
    }
}

/// A `For` with the same attributes as `l` around `body`.
pub(crate) fn rebuild_loop(l: &For, loop_var: Var, body: Stmt) -> Stmt {
    Stmt::from_kind(StmtKind::For(For {
        loop_var,
        min: l.min.clone(),
        extent: l.extent.clone(),
        kind: l.kind,
        thread_tag: l.thread_tag.clone(),
        annotations: l.annotations.clone(),
        body,
    }))
}

pub(crate) fn realize(iter_values: Vec<Expr>, predicate: Expr, block: Block) -> Stmt {
    Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
        iter_values,
        predicate,
        block,
    }))
}

/// Whether `e` is the constant `True`.
pub(crate) fn is_true(e: &Expr) -> bool {
    e.as_int().is_some_and(|v| v != 0)
}
