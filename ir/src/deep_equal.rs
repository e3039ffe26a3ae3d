//! Deep (structural) equality of expressions, variables compared by identity.

use crate::{Expr, ExprKind};

/// Whether two expressions are the same tree (same dtypes, same variables by
/// identity, same buffers by identity, floats bit-equal).
pub fn expr_deep_equal(a: &Expr, b: &Expr) -> bool {
    if a.same_node(b) {
        return true;
    }
    if a.dtype() != b.dtype() {
        return false;
    }
    match (a.kind(), b.kind()) {
        (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
        (ExprKind::Int(x), ExprKind::Int(y)) => x == y,
        (ExprKind::Float(x), ExprKind::Float(y)) => x.to_bits() == y.to_bits(),
        (ExprKind::Str(x), ExprKind::Str(y)) => x == y,
        (ExprKind::Binary(o1, a1, b1), ExprKind::Binary(o2, a2, b2)) => {
            o1 == o2 && expr_deep_equal(a1, a2) && expr_deep_equal(b1, b2)
        }
        (ExprKind::Cmp(o1, a1, b1), ExprKind::Cmp(o2, a2, b2)) => {
            o1 == o2 && expr_deep_equal(a1, a2) && expr_deep_equal(b1, b2)
        }
        (ExprKind::And(a1, b1), ExprKind::And(a2, b2))
        | (ExprKind::Or(a1, b1), ExprKind::Or(a2, b2)) => {
            expr_deep_equal(a1, a2) && expr_deep_equal(b1, b2)
        }
        (ExprKind::Not(x), ExprKind::Not(y))
        | (ExprKind::Cast(x), ExprKind::Cast(y))
        | (ExprKind::Broadcast(x), ExprKind::Broadcast(y)) => expr_deep_equal(x, y),
        (
            ExprKind::Select {
                cond: c1,
                then: t1,
                otherwise: o1,
            },
            ExprKind::Select {
                cond: c2,
                then: t2,
                otherwise: o2,
            },
        ) => expr_deep_equal(c1, c2) && expr_deep_equal(t1, t2) && expr_deep_equal(o1, o2),
        (ExprKind::Call { op: p1, args: a1 }, ExprKind::Call { op: p2, args: a2 }) => {
            p1 == p2 && all_equal(a1, a2)
        }
        (
            ExprKind::Load {
                buffer: b1,
                indices: i1,
            },
            ExprKind::Load {
                buffer: b2,
                indices: i2,
            },
        ) => b1 == b2 && all_equal(i1, i2),
        (
            ExprKind::Let {
                var: v1,
                value: x1,
                body: y1,
            },
            ExprKind::Let {
                var: v2,
                value: x2,
                body: y2,
            },
        ) => v1 == v2 && expr_deep_equal(x1, x2) && expr_deep_equal(y1, y2),
        (
            ExprKind::Ramp {
                base: b1,
                stride: s1,
            },
            ExprKind::Ramp {
                base: b2,
                stride: s2,
            },
        ) => expr_deep_equal(b1, b2) && expr_deep_equal(s1, s2),
        _ => false,
    }
}

pub(crate) fn all_equal(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| expr_deep_equal(x, y))
}
