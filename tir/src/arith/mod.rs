//! Arithmetic analysis: the base of schedule legality checks and lowering.
//!
//! - [`Analyzer`]: variable bounds, [`Analyzer::simplify`] (TVM-compatible
//!   canonical forms), [`Analyzer::const_int_bound`], proofs.
//! - [`eval_bound`]: the symbolic interval an expression spans when some
//!   variables range over intervals (region inference).
//! - [`detect_iter_map`]: whether block bindings are a bijective
//!   quasi-affine function of the loops, and their split/fuse structure.
//!
//! Invariant: nothing here panics on any input. Coefficient arithmetic is
//! checked; a simplification that would overflow is skipped.

pub mod bound;
pub mod fold;
pub mod int_set;
pub mod iter_map;
mod rewrite;
mod simplify;

use std::collections::HashMap;

use crate::ir::{CmpOp, Expr, ExprKind, Range, Var, VarId};

pub use crate::ir::deep_equal::expr_deep_equal;
pub use bound::{Bound, NEG_INF, POS_INF};
pub use int_set::eval_bound;
pub use iter_map::{
    detect_iter_map, IterMap, IterMapError, IterMapErrorKind, IterMark, IterSplit, IterSum,
    MarkSource,
};

use simplify::{Mode, Simplifier};

/// Facts about variables, and the operations that use them.
#[derive(Clone, Debug, Default)]
pub struct Analyzer {
    bounds: HashMap<VarId, Bound>,
    values: HashMap<VarId, Expr>,
}

impl Analyzer {
    pub fn new() -> Analyzer {
        Analyzer::default()
    }

    /// Declares that `var` ranges over `range` (`[min, min + extent)`).
    /// As in TVM, a range of extent 1 binds the variable to its minimum:
    /// simplification then replaces it.
    pub fn bind(&mut self, var: &Var, range: &Range) {
        if range.extent.as_int() == Some(1) {
            self.bind_value(var, &range.min);
            return;
        }
        let lo = self.bound_of(&range.min);
        let last = Expr::binary(
            crate::ir::BinOp::Sub,
            Expr::binary(
                crate::ir::BinOp::Add,
                range.min.clone(),
                range.extent.clone(),
            ),
            Expr::int(1, range.min.dtype()),
        );
        let hi = self.bound_of(&last);
        self.values.remove(&var.id());
        self.bounds.insert(var.id(), Bound::new(lo.min, hi.max));
    }

    /// Declares that `var` ranges over `[min, min + extent)`.
    pub fn bind_range(&mut self, var: &Var, min: i64, extent: i64) {
        let r = Range::new(Expr::int(min, var.dtype()), Expr::int(extent, var.dtype()));
        self.bind(var, &r);
    }

    /// Declares the closed bound `[min, max]` of `var`.
    pub fn bind_bound(&mut self, var: &Var, min: i64, max: i64) {
        self.values.remove(&var.id());
        self.bounds.insert(var.id(), Bound::new(min, max));
    }

    /// Declares that `var` equals `value` (simplification substitutes it).
    pub fn bind_value(&mut self, var: &Var, value: &Expr) {
        let v = self.simplify(value);
        let b = self.bound_of(&v);
        self.values.insert(var.id(), v);
        self.bounds.insert(var.id(), b);
    }

    /// Forgets what was declared about `var`.
    pub fn unbind(&mut self, var: &Var) {
        self.bounds.remove(&var.id());
        self.values.remove(&var.id());
    }

    /// The declared bound of a variable, if any.
    pub fn var_bound(&self, var: &Var) -> Option<Bound> {
        self.bounds.get(&var.id()).copied()
    }

    pub(crate) fn var_bound_by_id(&self, id: VarId) -> Option<Bound> {
        self.bounds.get(&id).copied()
    }

    pub(crate) fn var_value(&self, id: VarId) -> Option<&Expr> {
        self.values.get(&id)
    }

    fn bound_of(&self, e: &Expr) -> Bound {
        let s = Simplifier::new(self, Mode::Canonical);
        s.bound(e)
    }

    /// Simplifies `e` the way TVM's `Analyzer.simplify` does: a canonical
    /// pass, a rewrite pass, a canonical pass.
    pub fn simplify(&self, e: &Expr) -> Expr {
        let r = self.canonical_simplify(e);
        if r.as_int().is_some() {
            return r;
        }
        let r = self.rewrite_simplify(&r);
        if r.as_int().is_some() {
            return r;
        }
        self.canonical_simplify(&r)
    }

    /// The canonical pass alone.
    pub fn canonical_simplify(&self, e: &Expr) -> Expr {
        Simplifier::new(self, Mode::Canonical).visit(e)
    }

    /// The rewrite pass alone.
    pub fn rewrite_simplify(&self, e: &Expr) -> Expr {
        Simplifier::new(self, Mode::Rewrite).visit(e)
    }

    /// The bound of an integer (or bool) expression as `(min, max)`, with
    /// [`NEG_INF`]/[`POS_INF`] for unbounded ends; `None` for other dtypes.
    pub fn const_int_bound(&self, e: &Expr) -> Option<(i64, i64)> {
        let dt = e.dtype();
        if !dt.is_scalar() || !(dt.is_integer() || dt.is_bool()) {
            return None;
        }
        let b = self.bound_of(e);
        Some((b.min, b.max))
    }

    /// Whether `cond` is provably true.
    pub fn can_prove(&self, cond: &Expr) -> bool {
        if let Some(v) = cond.as_int() {
            return v != 0;
        }
        let r = self.simplify(cond);
        if let Some(v) = r.as_int() {
            return v != 0;
        }
        // A conjunction is proven when both sides are.
        if let ExprKind::And(a, b) = r.kind() {
            return self.can_prove(a) && self.can_prove(b);
        }
        false
    }

    /// Whether `a == b` for every value of the variables.
    pub fn can_prove_equal(&self, a: &Expr, b: &Expr) -> bool {
        if expr_deep_equal(a, b) {
            return true;
        }
        if a.dtype() != b.dtype() {
            return false;
        }
        if a.dtype().is_int() && a.dtype().is_scalar() {
            let d = self.simplify(&Expr::binary(crate::ir::BinOp::Sub, a.clone(), b.clone()));
            return d.as_int() == Some(0);
        }
        self.can_prove(&Expr::cmp(CmpOp::Eq, a.clone(), b.clone()))
    }

    /// Whether `e >= v` always.
    pub fn can_prove_ge(&self, e: &Expr, v: i64) -> bool {
        if !e.dtype().is_int() && !e.dtype().is_uint() {
            return false;
        }
        if self.bound_of(e).min >= v {
            return true;
        }
        self.bound_of(&self.simplify(e)).min >= v
    }

    /// Whether `e < v` always.
    pub fn can_prove_lt(&self, e: &Expr, v: i64) -> bool {
        if !e.dtype().is_int() && !e.dtype().is_uint() {
            return false;
        }
        if self.bound_of(e).max < v {
            return true;
        }
        self.bound_of(&self.simplify(e)).max < v
    }
}

/// `a and b and c` as `[a, b, c]` (a literal `True` gives nothing): the
/// conditions a predicate is made of.
pub fn conjuncts(e: &Expr) -> Vec<Expr> {
    match e.kind() {
        ExprKind::And(a, b) => {
            let mut v = conjuncts(a);
            v.extend(conjuncts(b));
            v
        }
        ExprKind::Int(1) if e.dtype().is_bool() => vec![],
        _ => vec![e.clone()],
    }
}
