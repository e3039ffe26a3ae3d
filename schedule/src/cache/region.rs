//! Region estimates for cache stages: a block's access region relaxed over
//! loops (TVM's upper- and lower-bound estimates), and the loops between a
//! block and a statement above it.

use super::*;

/// `e` with the block's iterators replaced by their bindings.
pub(super) fn unbind(e: &Expr, realize: &BlockRealize) -> Expr {
    let map: HashMap<VarId, Expr> = realize
        .block
        .iter_vars
        .iter()
        .zip(&realize.iter_values)
        .map(|(iv, v)| (iv.var.id(), v.clone()))
        .collect();
    substitute_expr(e, &map)
}

/// The loops above `path` (below its block) that lie strictly inside the
/// statement at `limit` (every one when `limit` is the scope block).
pub(crate) fn loops_below(body: &Stmt, path: &StmtPath, limit: &StmtPath) -> Vec<(StmtPath, For)> {
    enclosing_loops(body, path)
        .into_iter()
        .filter(|(p, _)| limit.is_prefix_of(p) && p.0.len() > limit.0.len())
        .collect()
}

/// The loops above `path` (below its block) that enclose `limit` or are it.
pub(crate) fn loops_outside(
    body: &Stmt,
    path: &StmtPath,
    limit: &StmtPath,
) -> Vec<(StmtPath, For)> {
    enclosing_loops(body, path)
        .into_iter()
        .filter(|(p, _)| p.is_prefix_of(limit))
        .collect()
}

pub(crate) fn analyzer_for(loops: &[(StmtPath, For)]) -> Analyzer {
    let mut ana = Analyzer::new();
    for (_, l) in loops {
        ana.bind(&l.loop_var, &Range::new(l.min.clone(), l.extent.clone()));
    }
    ana
}

pub(super) use tessel_tir::arith::conjuncts;

/// Tightens the inclusive upper bound `hi` of `index` with predicate
/// conjuncts `x < c` / `x <= c` where `index - x` is a constant.
pub(super) fn narrow_by_predicate(
    ana: &Analyzer,
    index: &Expr,
    hi: Expr,
    predicate: &Expr,
) -> Expr {
    let mut hi = hi;
    for c in conjuncts(predicate) {
        let (x, bound) = match c.kind() {
            ExprKind::Cmp(CmpOp::Lt, a, b) => match b.as_int() {
                Some(v) => (a, v.saturating_sub(1)),
                None => continue,
            },
            ExprKind::Cmp(CmpOp::Le, a, b) => match b.as_int() {
                Some(v) => (a, v),
                None => continue,
            },
            _ => continue,
        };
        if x.dtype() != index.dtype() {
            continue;
        }
        let diff = ana.simplify(&Expr::binary(BinOp::Sub, index.clone(), x.clone()));
        let (Some(k), Some(h)) = (diff.as_int(), hi.as_int()) else {
            continue;
        };
        let limit = bound.saturating_add(k);
        if limit < h {
            hi = Expr::int(limit, index.dtype());
        }
    }
    hi
}

/// The symbolic inclusive bounds `[lo, hi]` of region dimension `r` when the
/// loops in `relax` range over their domains (TVM's upper-bound estimate).
pub(super) fn upper_bound_dim(
    ana: &Analyzer,
    r: &Range,
    relax: &HashMap<VarId, Range>,
    predicate: &Expr,
) -> Option<(Expr, Expr)> {
    let last = ana.simplify(&Expr::binary(
        BinOp::Sub,
        Expr::binary(BinOp::Add, r.min.clone(), r.extent.clone()),
        Expr::int(1, r.min.dtype()),
    ));
    let (lo, _) = eval_interval(ana, &r.min, relax)?;
    let (_, hi) = eval_interval(ana, &last, relax)?;
    let hi = if r.extent.is_const_int(1) {
        narrow_by_predicate(ana, &r.min, hi, predicate)
    } else {
        hi
    };
    Some((lo, hi))
}

/// Like [`upper_bound_dim`], but only when every value between the bounds
/// is certainly accessed (TVM's lower-bound estimate): the index must be a
/// dense mixed-radix combination of the relaxed loops (`i * 16 + j`,
/// `i // 2`, `i % 32`), not a strided one (`2 * i`).
pub(super) fn lower_bound_dim(
    ana: &Analyzer,
    r: &Range,
    relax: &HashMap<VarId, Range>,
    predicate: &Expr,
) -> Option<(Expr, Expr)> {
    let dt = r.min.dtype();
    let mut dom = relax.clone();
    let index = match r.extent.as_int() {
        Some(1) => r.min.clone(),
        Some(k) if k > 1 => {
            let t = Var::new("t", dt);
            dom.insert(t.id(), Range::from_extent(Expr::int(k, dt)));
            Expr::binary(BinOp::Add, r.min.clone(), t.to_expr())
        }
        _ => return None,
    };
    let index = ana.simplify(&index);
    if !is_dense(ana, &index, &dom) {
        return None;
    }
    let (lo, hi) = eval_interval(ana, &index, &dom)?;
    Some((lo, narrow_by_predicate(ana, &index, hi, predicate)))
}

/// Whether `e` takes every integer value between its bounds as the
/// variables of `dom` range over their domains (a sufficient test).
pub(super) fn is_dense(ana: &Analyzer, e: &Expr, dom: &HashMap<VarId, Range>) -> bool {
    let mut terms: Vec<(Expr, i64)> = Vec::new();
    if !linear_terms(e, 1, dom, &mut terms) {
        return false;
    }
    // Merge equal atoms.
    let mut merged: Vec<(Expr, i64)> = Vec::new();
    for (atom, c) in terms {
        match merged.iter_mut().find(|(a, _)| expr_deep_equal(a, &atom)) {
            Some(slot) => slot.1 = slot.1.saturating_add(c),
            None => merged.push((atom, c)),
        }
    }
    // (|coefficient|, number of values - 1; `None` when symbolic)
    let mut spans: Vec<(i64, Option<i64>)> = Vec::new();
    for (atom, c) in merged {
        if c == 0 {
            continue;
        }
        let Some((lo, hi)) = eval_interval(ana, &atom, dom) else {
            return false;
        };
        let span = match (lo.as_int(), hi.as_int()) {
            (Some(lo), Some(hi)) => Some(hi.saturating_sub(lo)),
            _ => None,
        };
        if span.is_some_and(|s| s < 0) {
            return false;
        }
        if span != Some(0) {
            spans.push((c.saturating_abs(), span));
        }
    }
    tessel_ir::sort::ascending(&mut spans);
    // The values covered so far span [0, reach]; a symbolic span may only
    // come last (nothing is known about the gaps after it).
    let mut reach: Option<i64> = Some(0);
    for (c, span) in spans {
        let Some(r) = reach else {
            return false;
        };
        if c > r.saturating_add(1) {
            return false;
        }
        reach = span.map(|s| r.saturating_add(c.saturating_mul(s)));
    }
    true
}

/// Splits `e * scale` into `(atom, coefficient)` terms over the variables of
/// `dom`; parts not using them are dropped (they only shift the interval).
pub(super) fn linear_terms(
    e: &Expr,
    scale: i64,
    dom: &HashMap<VarId, Range>,
    out: &mut Vec<(Expr, i64)>,
) -> bool {
    let uses = {
        let mut found = false;
        e.walk(&mut |x| {
            if let ExprKind::Var(v) = x.kind() {
                found |= dom.contains_key(&v.id());
            }
        });
        found
    };
    if !uses {
        return true;
    }
    match e.kind() {
        ExprKind::Binary(BinOp::Add, a, b) => {
            linear_terms(a, scale, dom, out) && linear_terms(b, scale, dom, out)
        }
        ExprKind::Binary(BinOp::Sub, a, b) => {
            linear_terms(a, scale, dom, out) && linear_terms(b, scale.saturating_neg(), dom, out)
        }
        ExprKind::Binary(BinOp::Mul, a, b) => match (a.as_int(), b.as_int()) {
            (_, Some(c)) => linear_terms(a, scale.saturating_mul(c), dom, out),
            (Some(c), _) => linear_terms(b, scale.saturating_mul(c), dom, out),
            _ => false,
        },
        ExprKind::Cast(a) => linear_terms(a, scale, dom, out),
        ExprKind::Var(_) | ExprKind::Binary(BinOp::FloorDiv | BinOp::FloorMod, _, _) => {
            out.push((e.clone(), scale));
            true
        }
        _ => false,
    }
}

/// The predicates under which blocks nested in `block` access `buffer`
/// (reads or writes by their regions), each in `block`'s iterators (one
/// level of bindings substituted), joined by `or`: sibling blocks each cover
/// their part. `None` when no nested block accesses it (TVM's
/// `CollectNestedBlockPredicates`).
pub(super) fn nested_access_predicate(block: &Block, buffer: &Buffer, reads: bool) -> Option<Expr> {
    let mut found: Option<Expr> = None;
    block.body.walk(&mut |s| {
        if let StmtKind::BlockRealize(r) = s.kind() {
            let regions = if reads {
                &r.block.reads
            } else {
                &r.block.writes
            };
            if regions.iter().any(|x| x.buffer == *buffer) {
                let pred = unbind(&r.predicate, r);
                found = Some(match found.take() {
                    Some(p) => Expr::or(p, pred),
                    None => pred,
                });
            }
        }
    });
    found
}

/// `region` (in the block's iterators) relaxed over `relax_loops`, TVM's
/// `RelaxBufferRegion`: each dimension's upper-bound estimate under the
/// block's predicate and `extra` (a nested block's), the whole dimension
/// when it cannot be bounded.
pub(super) fn relax_region(
    realize: &BlockRealize,
    region: &BufferRegion,
    relax_loops: &[(StmtPath, For)],
    outer: &Analyzer,
    extra: Option<&Expr>,
) -> Vec<Range> {
    let relax: HashMap<VarId, Range> = relax_loops
        .iter()
        .map(|(_, l)| (l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone())))
        .collect();
    let predicate = match extra {
        Some(e) => unbind(&Expr::and(realize.predicate.clone(), e.clone()), realize),
        None => unbind(&realize.predicate, realize),
    };
    region
        .region
        .iter()
        .zip(&region.buffer.shape)
        .map(|(r, extent)| {
            let r = Range::new(unbind(&r.min, realize), unbind(&r.extent, realize));
            match upper_bound_dim(outer, &r, &relax, &predicate) {
                Some((lo, hi)) if lo.dtype() == hi.dtype() => {
                    let ext = outer.simplify(&Expr::binary(
                        BinOp::Add,
                        Expr::binary(BinOp::Sub, hi, lo.clone()),
                        Expr::int(1, lo.dtype()),
                    ));
                    Range::new(lo, ext)
                }
                _ => Range::from_extent(extent.clone()),
            }
        })
        .collect()
}
