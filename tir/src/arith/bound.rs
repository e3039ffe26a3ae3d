//! Constant integer bounds: the closed interval `[min, max]` an integer
//! expression can take, given the bounds of its variables.
//!
//! `i64::MIN` / `i64::MAX` stand for minus / plus infinity (as in TVM's
//! `ConstIntBound`). All arithmetic saturates: nothing here can overflow.

use std::collections::HashMap;

use crate::ir::{BinOp, DataType, Expr, ExprKind, ScalarKind, VarId};

/// Minus infinity.
pub const NEG_INF: i64 = i64::MIN;
/// Plus infinity.
pub const POS_INF: i64 = i64::MAX;

/// A closed interval `[min, max]`; either end may be infinite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    pub min: i64,
    pub max: i64,
}

impl Bound {
    pub const fn new(min: i64, max: i64) -> Bound {
        Bound { min, max }
    }
    pub const fn point(v: i64) -> Bound {
        Bound { min: v, max: v }
    }
    pub const fn everything() -> Bound {
        Bound {
            min: NEG_INF,
            max: POS_INF,
        }
    }
    /// The values a dtype can hold (bool is `[0, 1]`, floats are unbounded).
    pub fn of_dtype(dtype: DataType) -> Bound {
        match dtype.kind {
            ScalarKind::Bool => Bound::new(0, 1),
            ScalarKind::Int if dtype.bits < 64 => {
                let half = 1i64 << (dtype.bits - 1);
                Bound::new(-half, half - 1)
            }
            ScalarKind::UInt if dtype.bits < 64 => Bound::new(0, (1i64 << dtype.bits) - 1),
            ScalarKind::UInt => Bound::new(0, POS_INF),
            _ => Bound::everything(),
        }
    }
    pub fn is_const(&self) -> bool {
        self.min == self.max && self.min != NEG_INF && self.min != POS_INF
    }
    pub fn intersect(self, o: Bound) -> Bound {
        Bound::new(self.min.max(o.min), self.max.min(o.max))
    }
    pub fn union(self, o: Bound) -> Bound {
        Bound::new(self.min.min(o.min), self.max.max(o.max))
    }
}

fn is_inf(x: i64) -> bool {
    x == NEG_INF || x == POS_INF
}

/// `x + y` where infinities absorb; `+inf + -inf` gives `undecided`.
fn inf_add(x: i64, y: i64, undecided: i64) -> i64 {
    match (is_inf(x), is_inf(y)) {
        (true, true) if x != y => undecided,
        (true, _) => x,
        (_, true) => y,
        _ => match x.checked_add(y) {
            Some(v) if !is_inf(v) => v,
            _ => {
                if x > 0 {
                    POS_INF
                } else {
                    NEG_INF
                }
            }
        },
    }
}

fn inf_neg(x: i64) -> i64 {
    match x {
        NEG_INF => POS_INF,
        POS_INF => NEG_INF,
        v => -v,
    }
}

fn inf_mul(x: i64, y: i64) -> i64 {
    if x == 0 || y == 0 {
        return 0;
    }
    let positive = (x > 0) == (y > 0);
    if is_inf(x) || is_inf(y) {
        return if positive { POS_INF } else { NEG_INF };
    }
    match x.checked_mul(y) {
        Some(v) if !is_inf(v) => v,
        _ => {
            if positive {
                POS_INF
            } else {
                NEG_INF
            }
        }
    }
}

/// `x / y` for `y != 0`, rounding towards minus infinity (`floor`) or zero.
fn inf_div(x: i64, y: i64, floor: bool) -> i64 {
    if y == 0 {
        return 0;
    }
    if is_inf(x) {
        if is_inf(y) {
            return if (x > 0) == (y > 0) { 1 } else { -1 };
        }
        return if (x > 0) == (y > 0) { POS_INF } else { NEG_INF };
    }
    if is_inf(y) {
        // |x| < inf: the quotient is 0 or -1 (floor of a small negative number).
        return if floor && x != 0 && (x > 0) != (y > 0) {
            -1
        } else {
            0
        };
    }
    if floor {
        crate::arith::fold::floordiv_i64(x, y).unwrap_or(POS_INF)
    } else {
        x.checked_div(y).unwrap_or(POS_INF)
    }
}

fn from_corners(vals: [i64; 4]) -> Bound {
    let mut lo = POS_INF;
    let mut hi = NEG_INF;
    for v in vals {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    Bound::new(lo, hi)
}

pub(crate) fn add(a: Bound, b: Bound) -> Bound {
    Bound::new(
        inf_add(a.min, b.min, NEG_INF),
        inf_add(a.max, b.max, POS_INF),
    )
}
pub(crate) fn sub(a: Bound, b: Bound) -> Bound {
    Bound::new(
        inf_add(a.min, inf_neg(b.max), NEG_INF),
        inf_add(a.max, inf_neg(b.min), POS_INF),
    )
}
pub(crate) fn mul(a: Bound, b: Bound) -> Bound {
    from_corners([
        inf_mul(a.min, b.min),
        inf_mul(a.min, b.max),
        inf_mul(a.max, b.min),
        inf_mul(a.max, b.max),
    ])
}
pub(crate) fn div(a: Bound, b: Bound, floor: bool, dtype: DataType) -> Bound {
    if b.min <= 0 && b.max >= 0 {
        // The divisor may be zero (or change sign): give up.
        if b.min == 0 && b.max > 0 {
            return div(a, Bound::new(1, b.max), floor, dtype);
        }
        if b.max == 0 && b.min < 0 {
            return div(a, Bound::new(b.min, -1), floor, dtype);
        }
        return Bound::of_dtype(dtype);
    }
    from_corners([
        inf_div(a.min, b.min, floor),
        inf_div(a.min, b.max, floor),
        inf_div(a.max, b.min, floor),
        inf_div(a.max, b.max, floor),
    ])
}
pub(crate) fn floormod(a: Bound, b: Bound, dtype: DataType) -> Bound {
    if b.min > 0 {
        let cap = inf_add(b.max, -1, POS_INF);
        if a.min >= 0 {
            if a.max < b.min {
                return a;
            }
            return Bound::new(0, a.max.min(cap));
        }
        return Bound::new(0, cap);
    }
    if b.max < 0 {
        // The result takes the divisor's sign: (b.min, 0].
        return Bound::new(inf_add(b.min, 1, NEG_INF), 0);
    }
    Bound::of_dtype(dtype)
}
pub(crate) fn truncmod(a: Bound, b: Bound, dtype: DataType) -> Bound {
    if b.min > 0 {
        let cap = inf_add(b.max, -1, POS_INF);
        if a.min >= 0 {
            if a.max < b.min {
                return a;
            }
            return Bound::new(0, a.max.min(cap));
        }
        return Bound::new(a.min.max(inf_neg(cap)), a.max.max(0).min(cap));
    }
    Bound::of_dtype(dtype)
}

/// Evaluates the bound of `e`, reading variable bounds from `vars`.
#[allow(dead_code)]
pub(crate) fn eval(e: &Expr, vars: &HashMap<VarId, Bound>) -> Bound {
    let lookup = |id: VarId| vars.get(&id).copied();
    eval_with(e, &lookup)
}

/// Evaluates the bound of `e`, reading variable bounds through `lookup`.
pub(crate) fn eval_with(e: &Expr, lookup: &dyn Fn(VarId) -> Option<Bound>) -> Bound {
    let mut local = Vec::new();
    eval_in(e, lookup, &mut local)
}

type Lookup<'a> = &'a dyn Fn(VarId) -> Option<Bound>;

fn eval_in(e: &Expr, vars: Lookup<'_>, lets: &mut Vec<(VarId, Bound)>) -> Bound {
    let dtype = e.dtype();
    if !dtype.is_scalar() {
        return Bound::everything();
    }
    match e.kind() {
        ExprKind::Int(v) => Bound::point(*v),
        ExprKind::Float(_) | ExprKind::Str(_) => Bound::everything(),
        ExprKind::Var(v) => {
            if let Some((_, b)) = lets.iter().rev().find(|(id, _)| *id == v.id()) {
                return *b;
            }
            match vars(v.id()) {
                Some(b) => b,
                None => Bound::of_dtype(dtype),
            }
        }
        ExprKind::Binary(op, a, b) => {
            if !dtype.is_integer() {
                return Bound::everything();
            }
            let ba = eval_in(a, vars, lets);
            let bb = eval_in(b, vars, lets);
            match op {
                BinOp::Add => add(ba, bb),
                BinOp::Sub => sub(ba, bb),
                BinOp::Mul => mul(ba, bb),
                BinOp::FloorDiv => div(ba, bb, true, dtype),
                BinOp::Div => div(ba, bb, false, dtype),
                BinOp::FloorMod => floormod(ba, bb, dtype),
                BinOp::Mod => truncmod(ba, bb, dtype),
                BinOp::Min => Bound::new(ba.min.min(bb.min), ba.max.min(bb.max)),
                BinOp::Max => Bound::new(ba.min.max(bb.min), ba.max.max(bb.max)),
            }
        }
        ExprKind::Cmp(..) | ExprKind::And(..) | ExprKind::Or(..) | ExprKind::Not(_) => {
            Bound::new(0, 1)
        }
        ExprKind::Select {
            then, otherwise, ..
        } => eval_in(then, vars, lets).union(eval_in(otherwise, vars, lets)),
        ExprKind::Cast(v) => {
            let target = Bound::of_dtype(dtype);
            if v.dtype().is_integer() || v.dtype().is_bool() {
                let inner = eval_in(v, vars, lets);
                // A narrowing cast may wrap: only keep the inner bound when it fits.
                if inner.min >= target.min && inner.max <= target.max {
                    return inner;
                }
            }
            target
        }
        ExprKind::Let { var, value, body } => {
            let vb = eval_in(value, vars, lets);
            lets.push((var.id(), vb));
            let r = eval_in(body, vars, lets);
            lets.pop();
            r
        }
        ExprKind::Call { op, args }
            if *op == crate::ir::Intrinsic::IfThenElse && args.len() == 3 =>
        {
            eval_in(&args[1], vars, lets).union(eval_in(&args[2], vars, lets))
        }
        _ => Bound::of_dtype(dtype),
    }
}
