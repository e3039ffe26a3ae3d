//! The commutative reducers a reduction block's update can be matched to
//! (TVM's reducer registry), shared by `rfactor` and the GPU lowering of
//! cross-thread reductions.

use crate::ir::{BinOp, Buffer, CmpOp, DataType, Expr, ExprKind};

/// The commutative reducers `rfactor` and cross-thread reductions
/// recognise: TVM's reducer registry, for one buffer and for pairs
/// (`(index, value)` for argmax / argmin; `rfactor` only). A
/// reduction matches when its init stores the identities and its update
/// stores `combine(C[…], rhs)` with the buffer loads on the left.
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
    /// `(x0 + y0, x1 + y1)`, identities 0.
    PairSum,
    /// `c = x1 >= y1`: `(Select(c, x0, y0), Select(c, x1, y1))`, identities
    /// -1 and `T.min_value`.
    ArgMax,
    /// argmax keeping the lower index on ties (topi's form).
    ArgMaxFirst,
    /// `c = x1 <= y1`, identities -1 and `T.max_value`.
    ArgMin,
    /// argmin keeping the lower index on ties.
    ArgMinFirst,
}

impl Reducer {
    /// In TVM's registry order (the first match wins).
    pub const ALL: [Reducer; 9] = [
        Reducer::Sum,
        Reducer::Product,
        Reducer::Min,
        Reducer::Max,
        Reducer::PairSum,
        Reducer::ArgMax,
        Reducer::ArgMaxFirst,
        Reducer::ArgMin,
        Reducer::ArgMinFirst,
    ];

    /// How many buffers it reduces into.
    pub fn arity(self) -> usize {
        match self {
            Reducer::Sum | Reducer::Product | Reducer::Min | Reducer::Max => 1,
            _ => 2,
        }
    }

    /// The identity elements for values of types `dts` (`None` when a type
    /// has none).
    pub fn identities(self, dts: &[DataType]) -> Option<Vec<Expr>> {
        let constant = |v: i64, dt: DataType| {
            if dt.is_float() {
                Expr::float(v as f64, dt)
            } else {
                Expr::int(v, dt)
            }
        };
        let extreme = crate::ir::expr::extreme_value;
        let (first, last) = (*dts.first()?, *dts.last()?);
        Some(match self {
            Reducer::Sum => vec![constant(0, first)],
            Reducer::Product => vec![constant(1, first)],
            Reducer::Min => vec![extreme(first, true)?],
            Reducer::Max => vec![extreme(first, false)?],
            Reducer::PairSum => vec![constant(0, first), constant(0, last)],
            Reducer::ArgMax | Reducer::ArgMaxFirst => {
                vec![constant(-1, first), extreme(last, false)?]
            }
            Reducer::ArgMin | Reducer::ArgMinFirst => {
                vec![constant(-1, first), extreme(last, true)?]
            }
        })
    }

    /// `combine(x, y)`, one value per buffer.
    pub fn combine(self, x: &[Expr], y: &[Expr]) -> Vec<Expr> {
        let bin = |op, k: usize| Expr::binary(op, x[k].clone(), y[k].clone());
        let cmp = |op, k: usize| Expr::cmp(op, x[k].clone(), y[k].clone());
        let pick = |c: Expr, k: usize| Expr::select(c, x[k].clone(), y[k].clone());
        let arg = |strict: CmpOp, wide: Option<CmpOp>| match wide {
            Some(w) => vec![pick(cmp(w, 1), 0), pick(cmp(w, 1), 1)],
            None => {
                let tie = Expr::and(cmp(CmpOp::Eq, 1), cmp(CmpOp::Lt, 0));
                vec![
                    pick(Expr::or(cmp(strict, 1), tie), 0),
                    pick(cmp(strict, 1), 1),
                ]
            }
        };
        match self {
            Reducer::Sum => vec![bin(BinOp::Add, 0)],
            Reducer::Product => vec![bin(BinOp::Mul, 0)],
            Reducer::Min => vec![bin(BinOp::Min, 0)],
            Reducer::Max => vec![bin(BinOp::Max, 0)],
            Reducer::PairSum => vec![bin(BinOp::Add, 0), bin(BinOp::Add, 1)],
            Reducer::ArgMax => arg(CmpOp::Gt, Some(CmpOp::Ge)),
            Reducer::ArgMaxFirst => arg(CmpOp::Gt, None),
            Reducer::ArgMin => arg(CmpOp::Lt, Some(CmpOp::Le)),
            Reducer::ArgMinFirst => arg(CmpOp::Lt, None),
        }
    }

    /// How the combiner is written, for messages.
    pub fn pattern(self) -> &'static str {
        match self {
            Reducer::Sum => "x + y (init 0)",
            Reducer::Product => "x * y (init 1)",
            Reducer::Min => "T.min(x, y) (init T.max_value)",
            Reducer::Max => "T.max(x, y) (init T.min_value)",
            Reducer::PairSum => "(x0 + y0, x1 + y1) (init 0, 0)",
            Reducer::ArgMax | Reducer::ArgMaxFirst => {
                "argmax over (index, value) (init -1, T.min_value)"
            }
            Reducer::ArgMin | Reducer::ArgMinFirst => {
                "argmin over (index, value) (init -1, T.max_value)"
            }
        }
    }
}

/// The reducer of a reduction whose init stores `inits` and whose update
/// stores `values` into the elements `loads` reads, with the combiner's
/// operands `(lhs, rhs)` (TVM's `FromIdentityCombiner`: `lhs` must be the
/// loads of the updated elements, operands are not swapped). Every combiner
/// holds its operands in the same places (`a ∘ b`, `Select(c, a, b)`), so
/// they are read from there and the match checked by rebuilding the values.
pub fn match_reducer(
    inits: &[Expr],
    loads: &[Expr],
    values: &[Expr],
) -> Option<(Reducer, Vec<Expr>, Vec<Expr>)> {
    let eq = crate::arith::expr_deep_equal;
    let (lhs, rhs): (Vec<Expr>, Vec<Expr>) = values
        .iter()
        .map(|v| match v.kind() {
            ExprKind::Binary(_, a, b) => Some((a.clone(), b.clone())),
            ExprKind::Select {
                then, otherwise, ..
            } => Some((then.clone(), otherwise.clone())),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?
        .into_iter()
        .unzip();
    if !lhs.iter().zip(loads).all(|(a, b)| eq(a, b)) {
        return None;
    }
    let dts: Vec<DataType> = inits.iter().map(|e| e.dtype()).collect();
    Reducer::ALL.into_iter().find_map(|r| {
        let ids = r.identities(&dts).filter(|_| r.arity() == inits.len())?;
        let matched = ids.iter().zip(inits).all(|(a, b)| eq(a, b))
            && r.combine(&lhs, &rhs)
                .iter()
                .zip(values)
                .all(|(a, b)| eq(a, b));
        matched.then(|| (r, lhs.clone(), rhs.clone()))
    })
}

impl Reducer {
    /// The operator of a one-buffer reducer (`None` for pairs).
    fn op(self) -> Option<BinOp> {
        match self {
            Reducer::Sum => Some(BinOp::Add),
            Reducer::Product => Some(BinOp::Mul),
            Reducer::Min => Some(BinOp::Min),
            Reducer::Max => Some(BinOp::Max),
            _ => None,
        }
    }

    /// The identity of a one-buffer reducer for values of type `dt`
    /// (`None` for pairs, or when the type has none).
    pub fn identity(self, dt: DataType) -> Option<Expr> {
        if self.arity() != 1 {
            return None;
        }
        self.identities(&[dt])?.into_iter().next()
    }

    /// `combine(x, y)` of a one-buffer reducer.
    pub fn combine_one(self, x: Expr, y: Expr) -> Expr {
        self.combine(&[x], &[y]).remove(0)
    }
}

/// [`match_reducer`] for one buffer: the reducer of a reduction whose init
/// stores `init` and whose update stores `value` into `buffer[indices]`.
pub fn match_single(
    init: &Expr,
    buffer: &Buffer,
    indices: &[Expr],
    value: &Expr,
) -> Option<(Reducer, Expr, Expr)> {
    let load = Expr::load(buffer, indices.to_vec());
    let (r, mut lhs, mut rhs) = match_reducer(
        std::slice::from_ref(init),
        &[load],
        std::slice::from_ref(value),
    )?;
    Some((r, lhs.remove(0), rhs.remove(0)))
}

/// The one-buffer reducer of an update without an init: `buffer[indices] =
/// combine(buffer[indices], rhs)`, with `rhs` (the operator alone decides).
pub fn match_update(buffer: &Buffer, indices: &[Expr], value: &Expr) -> Option<(Reducer, Expr)> {
    let load = Expr::load(buffer, indices.to_vec());
    let ExprKind::Binary(op, a, b) = value.kind() else {
        return None;
    };
    Reducer::ALL
        .into_iter()
        .find(|r| r.op() == Some(*op) && crate::arith::expr_deep_equal(a, &load))
        .map(|r| (r, b.clone()))
}
