//! The commutative reducers a reduction block's update can be matched to
//! (TVM's reducer registry for one buffer), shared by `rfactor` and the GPU
//! lowering of cross-thread reductions.

use crate::ir::{BinOp, Buffer, DataType, Expr, ExprKind};

/// The commutative reducers `rfactor` and cross-thread reductions
/// recognise: TVM's reducer registry for one buffer. A reduction matches
/// when its init stores the identity and its update is
/// `C[…] = combine(C[…], rhs)` with the buffer load on the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reducer {
    /// `x + y`, identity 0.
    Sum,
    /// `x * y`, identity 1.
    Product,
    /// `T.min(x, y)`, identity `T.max_value(dtype)`.
    Min,
    /// `T.max(x, y)`, identity `T.min_value(dtype)`.
    Max,
}

impl Reducer {
    /// In TVM's registry order (the first match wins).
    pub const ALL: [Reducer; 4] = [Reducer::Sum, Reducer::Product, Reducer::Min, Reducer::Max];

    fn op(self) -> BinOp {
        match self {
            Reducer::Sum => BinOp::Add,
            Reducer::Product => BinOp::Mul,
            Reducer::Min => BinOp::Min,
            Reducer::Max => BinOp::Max,
        }
    }

    /// The identity element for values of type `dt` (`None` when the type has none).
    pub fn identity(self, dt: DataType) -> Option<Expr> {
        let constant = |v: i64| {
            if dt.is_float() {
                Expr::float(v as f64, dt)
            } else {
                Expr::int(v, dt)
            }
        };
        match self {
            Reducer::Sum => Some(constant(0)),
            Reducer::Product => Some(constant(1)),
            Reducer::Min => crate::ir::expr::extreme_value(dt, true),
            Reducer::Max => crate::ir::expr::extreme_value(dt, false),
        }
    }

    /// `combine(x, y)`.
    pub fn combine(self, x: Expr, y: Expr) -> Expr {
        Expr::binary(self.op(), x, y)
    }

    /// How the combiner is written, for messages.
    pub fn pattern(self) -> &'static str {
        match self {
            Reducer::Sum => "x + y (init 0)",
            Reducer::Product => "x * y (init 1)",
            Reducer::Min => "T.min(x, y) (init T.max_value)",
            Reducer::Max => "T.max(x, y) (init T.min_value)",
        }
    }
}

/// The reducer of a reduction whose init stores `init` and whose update
/// stores `value` into `buffer[indices]`, with the combiner's operands
/// `(lhs, rhs)` (TVM's `FromIdentityCombiner`: `lhs` must be the load of the
/// updated element, operands are not swapped).
pub fn match_reducer(
    init: &Expr,
    buffer: &Buffer,
    indices: &[Expr],
    value: &Expr,
) -> Option<(Reducer, Expr, Expr)> {
    let load = Expr::load(buffer, indices.to_vec());
    for r in Reducer::ALL {
        let Some(id) = r.identity(init.dtype()) else {
            continue;
        };
        if !crate::arith::expr_deep_equal(&id, init) {
            continue;
        }
        if let ExprKind::Binary(op, a, b) = value.kind() {
            if *op == r.op() && crate::arith::expr_deep_equal(a, &load) {
                return Some((r, a.clone(), b.clone()));
            }
        }
    }
    None
}

/// The reducer of an update without an init: `buffer[indices] =
/// combine(buffer[indices], rhs)`, with `rhs` (the operator alone decides).
pub fn match_update(buffer: &Buffer, indices: &[Expr], value: &Expr) -> Option<(Reducer, Expr)> {
    let load = Expr::load(buffer, indices.to_vec());
    let ExprKind::Binary(op, a, b) = value.kind() else {
        return None;
    };
    Reducer::ALL
        .into_iter()
        .find(|r| r.op() == *op && crate::arith::expr_deep_equal(a, &load))
        .map(|r| (r, b.clone()))
}
