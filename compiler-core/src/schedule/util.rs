//! Small helpers shared by the block-restructuring primitives.

use std::collections::{HashMap, HashSet};

use super::tree::{self, StmtPath};
use crate::ir::mutate::substitute_expr;
use crate::ir::*;

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

pub(crate) fn realize(iter_values: Vec<Expr>, predicate: Expr, block: Block) -> Stmt {
    Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
        iter_values,
        predicate,
        block,
    }))
}
