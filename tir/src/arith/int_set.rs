//! Interval evaluation: the symbolic range an expression spans when some of
//! its variables range over intervals and the others stay symbolic.
//!
//! `A[vi * 4 + k]` with `k` in `[0, 4)` spans `[vi * 4, vi * 4 + 4)`.

use std::collections::HashMap;

use crate::ir::{BinOp, Expr, ExprKind, Range, VarId};

use super::{expr_deep_equal, Analyzer};

/// The range `[min, min + extent)` that `e` spans when each variable of
/// `dom` ranges over its range (other variables stay symbolic). `None` when
/// the expression is not one this evaluator can bound (non-monotonic use of
/// a relaxed variable, division by a non-constant…).
pub fn eval_bound(e: &Expr, dom: &HashMap<VarId, Range>) -> Option<Range> {
    eval_bound_with(&Analyzer::new(), e, dom)
}

/// [`eval_bound`] with an analyzer that knows the other variables' ranges.
pub fn eval_bound_with(ana: &Analyzer, e: &Expr, dom: &HashMap<VarId, Range>) -> Option<Range> {
    let (lo, hi) = eval_interval(ana, e, dom)?;
    let dt = lo.dtype();
    let extent = ana.simplify(&Expr::binary(
        BinOp::Add,
        Expr::binary(BinOp::Sub, hi, lo.clone()),
        Expr::int(1, dt),
    ));
    Some(Range::new(lo, extent))
}

/// The inclusive symbolic bounds `(lo, hi)` of `e` over `dom`, simplified.
pub fn eval_interval(
    ana: &Analyzer,
    e: &Expr,
    dom: &HashMap<VarId, Range>,
) -> Option<(Expr, Expr)> {
    if !e.dtype().is_scalar() || !(e.dtype().is_int() || e.dtype().is_uint()) {
        return None;
    }
    let (lo, hi) = interval(ana, e, dom, 0)?;
    Some((ana.simplify(&lo), ana.simplify(&hi)))
}

fn uses_dom(e: &Expr, dom: &HashMap<VarId, Range>) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let ExprKind::Var(v) = x.kind() {
            found |= dom.contains_key(&v.id());
        }
    });
    found
}

fn interval(
    ana: &Analyzer,
    e: &Expr,
    dom: &HashMap<VarId, Range>,
    depth: u32,
) -> Option<(Expr, Expr)> {
    if depth > 64 {
        return None;
    }
    if !uses_dom(e, dom) {
        return Some((e.clone(), e.clone()));
    }
    let dt = e.dtype();
    match e.kind() {
        ExprKind::Var(v) => {
            let r = dom.get(&v.id())?;
            let mut rest = dom.clone();
            rest.remove(&v.id());
            let last = Expr::binary(
                BinOp::Sub,
                Expr::binary(BinOp::Add, r.min.clone(), r.extent.clone()),
                Expr::int(1, dt),
            );
            let (lo, _) = interval(ana, &r.min, &rest, depth + 1)?;
            let (_, hi) = interval(ana, &last, &rest, depth + 1)?;
            Some((lo, hi))
        }
        ExprKind::Binary(op, a, b) => {
            let op = *op;
            match op {
                BinOp::Add | BinOp::Sub | BinOp::Min | BinOp::Max => {
                    let (alo, ahi) = interval(ana, a, dom, depth + 1)?;
                    let (blo, bhi) = interval(ana, b, dom, depth + 1)?;
                    Some(match op {
                        BinOp::Sub => (Expr::binary(op, alo, bhi), Expr::binary(op, ahi, blo)),
                        _ => (Expr::binary(op, alo, blo), Expr::binary(op, ahi, bhi)),
                    })
                }
                BinOp::Mul => {
                    let (x, c) = match (a.as_int(), b.as_int()) {
                        (_, Some(c)) => (a, c),
                        (Some(c), _) => (b, c),
                        _ => {
                            // A non-relaxed factor of known sign.
                            let (x, f) = if uses_dom(b, dom) { (b, a) } else { (a, b) };
                            if uses_dom(f, dom) {
                                return None;
                            }
                            let (lo, hi) = interval(ana, x, dom, depth + 1)?;
                            if ana.can_prove_ge(f, 0) {
                                return Some((
                                    Expr::binary(op, lo, f.clone()),
                                    Expr::binary(op, hi, f.clone()),
                                ));
                            }
                            return None;
                        }
                    };
                    let (lo, hi) = interval(ana, x, dom, depth + 1)?;
                    let k = Expr::int(c, dt);
                    if c >= 0 {
                        Some((Expr::binary(op, lo, k.clone()), Expr::binary(op, hi, k)))
                    } else {
                        Some((Expr::binary(op, hi, k.clone()), Expr::binary(op, lo, k)))
                    }
                }
                BinOp::FloorDiv | BinOp::Div => {
                    let c = b.as_int().filter(|c| *c > 0)?;
                    let (lo, hi) = interval(ana, a, dom, depth + 1)?;
                    if op == BinOp::Div && !ana.can_prove_ge(&lo, 0) {
                        return None;
                    }
                    let k = Expr::int(c, dt);
                    Some((Expr::binary(op, lo, k.clone()), Expr::binary(op, hi, k)))
                }
                BinOp::FloorMod | BinOp::Mod => {
                    let c = b.as_int().filter(|c| *c > 0)?;
                    let k = Expr::int(c, dt);
                    let full = (Expr::int(0, dt), Expr::int(c - 1, dt));
                    let Some((lo, hi)) = interval(ana, a, dom, depth + 1) else {
                        return if op == BinOp::FloorMod {
                            Some(full)
                        } else {
                            None
                        };
                    };
                    if op == BinOp::Mod && !ana.can_prove_ge(&lo, 0) {
                        return None;
                    }
                    // Within one period: the modulo is monotonic.
                    let qlo = ana.simplify(&Expr::binary(BinOp::FloorDiv, lo.clone(), k.clone()));
                    let qhi = ana.simplify(&Expr::binary(BinOp::FloorDiv, hi.clone(), k.clone()));
                    if expr_deep_equal(&qlo, &qhi) {
                        return Some((Expr::binary(op, lo, k.clone()), Expr::binary(op, hi, k)));
                    }
                    Some(full)
                }
            }
        }
        ExprKind::Cast(v) if dt.is_int() && v.dtype().is_int() && dt.bits >= v.dtype().bits => {
            let (lo, hi) = interval(ana, v, dom, depth + 1)?;
            Some((Expr::cast(dt, lo), Expr::cast(dt, hi)))
        }
        ExprKind::Select {
            then, otherwise, ..
        } => {
            let (alo, ahi) = interval(ana, then, dom, depth + 1)?;
            let (blo, bhi) = interval(ana, otherwise, dom, depth + 1)?;
            Some((
                Expr::binary(BinOp::Min, alo, blo),
                Expr::binary(BinOp::Max, ahi, bhi),
            ))
        }
        _ => None,
    }
}
