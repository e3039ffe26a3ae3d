//! Rule-based simplification: constant folding, min/max, comparisons,
//! logic, select and cast, plus the few integer rewrites the pipeline
//! `canonical → rewrite → canonical` relies on (as TVM's `Analyzer::Simplify`).

use crate::ir::{BinOp, CmpOp, Expr, ExprKind};

use super::bound::{NEG_INF, POS_INF};
use super::expr_deep_equal;
use super::fold::{fold_int_binary, try_fold_binary, try_fold_cast, try_fold_cmp};
use super::simplify::{fold_op, is_index_type, CompareResult, Simplifier};

fn as_bin(e: &Expr, op: BinOp) -> Option<(&Expr, &Expr)> {
    match e.kind() {
        ExprKind::Binary(o, a, b) if *o == op => Some((a, b)),
        _ => None,
    }
}

/// `x * c` with a constant `c`.
fn as_mul_c(e: &Expr) -> Option<(&Expr, i64)> {
    let (a, b) = as_bin(e, BinOp::Mul)?;
    Some((a, b.as_int()?))
}

fn c(e: &Expr) -> Option<i64> {
    e.as_int()
}

fn cmp(op: CmpOp, a: Expr, b: Expr) -> Expr {
    Expr::cmp(op, a, b)
}

impl Simplifier<'_> {
    /// A constant of `like`'s dtype, when `v` fits it.
    fn konst(&self, v: i64, like: &Expr) -> Option<Expr> {
        let dt = like.dtype();
        let b = super::bound::Bound::of_dtype(dt);
        if v < b.min || v > b.max {
            return None;
        }
        Some(Expr::int(v, dt))
    }

    /// The rewrite pass proper: post-order, rules at each node.
    pub(crate) fn rewrite(&mut self, e: &Expr) -> Expr {
        if let ExprKind::Var(v) = e.kind() {
            if let Some(value) = self.ana.var_value(v.id()) {
                return value.clone();
            }
        }
        self.rewrite_node(e)
    }

    /// Simplifies the children of `e` with the current pass and applies the
    /// rules for `e`'s kind.
    pub(crate) fn rewrite_node(&mut self, e: &Expr) -> Expr {
        match e.kind() {
            ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => {
                e.clone()
            }
            ExprKind::Binary(op, a, b) => {
                let na = self.visit(a);
                let nb = self.visit(b);
                match op {
                    BinOp::Min | BinOp::Max => self.rw_min_max(*op, na, nb),
                    _ => self.rw_arith(*op, na, nb),
                }
            }
            ExprKind::Cmp(op, a, b) => match op {
                CmpOp::Gt => self.visit(&cmp(CmpOp::Lt, b.clone(), a.clone())),
                CmpOp::Ge => self.visit(&cmp(CmpOp::Le, b.clone(), a.clone())),
                _ => {
                    let na = self.visit(a);
                    let nb = self.visit(b);
                    self.rw_cmp(*op, na, nb)
                }
            },
            ExprKind::And(a, b) => {
                let na = self.visit(a);
                let nb = self.visit(b);
                self.rw_and(na, nb)
            }
            ExprKind::Or(a, b) => {
                let na = self.visit(a);
                let nb = self.visit(b);
                self.rw_or(na, nb)
            }
            ExprKind::Not(a) => {
                let na = self.visit(a);
                self.rw_not(na)
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let nc = self.visit(cond);
                let nt = self.visit(then);
                let no = self.visit(otherwise);
                match c(&nc) {
                    Some(0) => no,
                    Some(_) => nt,
                    None if expr_deep_equal(&nt, &no) => nt,
                    None => Expr::select(nc, nt, no),
                }
            }
            ExprKind::Cast(v) => {
                let nv = self.visit(v);
                if nv.dtype() == e.dtype() {
                    return nv;
                }
                if let Some(f) = try_fold_cast(e.dtype(), &nv) {
                    return f;
                }
                if nv.same_node(v) {
                    return e.clone();
                }
                Expr::new(ExprKind::Cast(nv), e.dtype(), e.span())
            }
            ExprKind::Let { var, value, body } => {
                let nv = self.visit(value);
                let b = self.bound(&nv);
                self.lets.push((var.id(), b));
                let nb = self.visit(body);
                self.lets.pop();
                if nv.same_node(value) && nb.same_node(body) {
                    return e.clone();
                }
                Expr::new(
                    ExprKind::Let {
                        var: var.clone(),
                        value: nv,
                        body: nb,
                    },
                    e.dtype(),
                    e.span(),
                )
            }
            ExprKind::Call { op, args } => {
                let new: Vec<Expr> = args.iter().map(|a| self.visit(a)).collect();
                if *op == crate::ir::Intrinsic::IfThenElse && new.len() == 3 {
                    match c(&new[0]) {
                        Some(0) => return new[2].clone(),
                        Some(_) => return new[1].clone(),
                        None => {}
                    }
                }
                if new.iter().zip(args).all(|(n, o)| n.same_node(o)) {
                    return e.clone();
                }
                Expr::new(
                    ExprKind::Call {
                        op: op.clone(),
                        args: new,
                    },
                    e.dtype(),
                    e.span(),
                )
            }
            ExprKind::Load { buffer, indices } => {
                let new: Vec<Expr> = indices.iter().map(|a| self.visit(a)).collect();
                if new.iter().zip(indices).all(|(n, o)| n.same_node(o)) {
                    return e.clone();
                }
                Expr::new(
                    ExprKind::Load {
                        buffer: buffer.clone(),
                        indices: new,
                    },
                    e.dtype(),
                    e.span(),
                )
            }
            ExprKind::Ramp { base, stride } => {
                let nb = self.visit(base);
                let ns = self.visit(stride);
                Expr::new(
                    ExprKind::Ramp {
                        base: nb,
                        stride: ns,
                    },
                    e.dtype(),
                    e.span(),
                )
            }
            ExprKind::Broadcast(v) => {
                let nv = self.visit(v);
                Expr::new(ExprKind::Broadcast(nv), e.dtype(), e.span())
            }
        }
    }

    /// Arithmetic on simplified operands (the canonical pass handles index
    /// types itself; this serves floats, unsigned types and the rewrite pass).
    fn rw_arith(&mut self, op: BinOp, a: Expr, b: Expr) -> Expr {
        if let Some(r) = try_fold_binary(op, &a, &b) {
            return r;
        }
        if is_index_type(a.dtype()) && a.dtype() == b.dtype() {
            match op {
                // Constants move outwards: (x + c) + y → (x + y) + c ; x + (y + c) → (x + y) + c
                BinOp::Add if c(&b).is_none() => {
                    if let Some((x, c1)) = as_bin(&a, BinOp::Add) {
                        if c(c1).is_some() {
                            let inner = self.visit(&Expr::binary(BinOp::Add, x.clone(), b.clone()));
                            return Expr::binary(BinOp::Add, inner, c1.clone());
                        }
                    }
                    if let Some((y, c1)) = as_bin(&b, BinOp::Add) {
                        if c(c1).is_some() && c(&a).is_none() {
                            let inner = self.visit(&Expr::binary(BinOp::Add, a.clone(), y.clone()));
                            return Expr::binary(BinOp::Add, inner, c1.clone());
                        }
                    }
                }
                BinOp::Sub => {
                    // (x + c) - y  →  (x - y) + c
                    if let Some((x, c1)) = as_bin(&a, BinOp::Add) {
                        if c(c1).is_some() && c(&b).is_none() {
                            let inner = self.visit(&Expr::binary(BinOp::Sub, x.clone(), b.clone()));
                            return Expr::binary(BinOp::Add, inner, c1.clone());
                        }
                    }
                    // x - c  →  x + (-c)
                    if let Some(k) = c(&b)
                        .and_then(|v| v.checked_neg())
                        .and_then(|v| self.konst(v, &b))
                    {
                        return Expr::binary(BinOp::Add, a, k);
                    }
                    // x - y * c  →  x + y * (-c) ;  0 - y * c  →  y * (-c)
                    if let Some((y, k)) = as_mul_c(&b) {
                        if let Some(nk) = k.checked_neg().and_then(|v| self.konst(v, &b)) {
                            let m = Expr::binary(BinOp::Mul, y.clone(), nk);
                            if c(&a) == Some(0) {
                                return m;
                            }
                            return self.rw_arith(BinOp::Add, a, m);
                        }
                    }
                }
                BinOp::FloorDiv => {
                    if let Some(c2) = c(&b).filter(|v| *v > 0) {
                        // x % c1 // c2  →  x // c2 % (c1 / c2)   when c1 % c2 == 0
                        if let Some((x, c1)) = as_bin(&a, BinOp::FloorMod) {
                            if let Some(c1) = c(c1).filter(|v| *v > 0 && *v % c2 == 0) {
                                let d = Expr::binary(BinOp::FloorDiv, x.clone(), b.clone());
                                let m =
                                    Expr::binary(BinOp::FloorMod, d, Expr::int(c1 / c2, b.dtype()));
                                return self.visit(&m);
                            }
                        }
                        // (x * c1 + y) // c2  →  x * (c1 / c2) + y // c2   when c1 % c2 == 0
                        if let Some((l, r)) = as_bin(&a, BinOp::Add) {
                            for (xc, y) in [(l, r), (r, l)] {
                                if let Some((x, c1)) = as_mul_c(xc) {
                                    if c1 % c2 == 0 && c(y).is_none() {
                                        let q = fold_op(
                                            BinOp::Mul,
                                            x.clone(),
                                            Expr::int(c1 / c2, b.dtype()),
                                        );
                                        let d = Expr::binary(BinOp::FloorDiv, y.clone(), b.clone());
                                        return self.visit(&Expr::binary(BinOp::Add, q, d));
                                    }
                                }
                            }
                        }
                        // x * c1 // c2  →  x // (c2 / c1)   when c2 % c1 == 0
                        if let Some((x, c1)) = as_mul_c(&a) {
                            if c1 > 0 && c2 % c1 == 0 {
                                let d = Expr::int(c2 / c1, b.dtype());
                                return self.visit(&Expr::binary(BinOp::FloorDiv, x.clone(), d));
                            }
                        }
                        // x // c1 // c2  →  x // (c1 * c2)
                        if let Some((x, c1)) = as_bin(&a, BinOp::FloorDiv) {
                            if let Some(k) = c(c1)
                                .filter(|v| *v > 0)
                                .and_then(|c1| c1.checked_mul(c2))
                                .and_then(|v| self.konst(v, &b))
                            {
                                return self.visit(&Expr::binary(BinOp::FloorDiv, x.clone(), k));
                            }
                        }
                        // (x * c1 + y) // c2  →  x // (c2 / c1)   when c2 % c1 == 0, 0 <= y < c1
                        if let Some((xc, y)) = as_bin(&a, BinOp::Add) {
                            if let Some((x, c1)) = as_mul_c(xc) {
                                if c1 > 0 && c2 % c1 == 0 {
                                    let yb = self.bound(y);
                                    if yb.min >= 0 && yb.max < c1 {
                                        let d = Expr::int(c2 / c1, b.dtype());
                                        return self.visit(&Expr::binary(
                                            BinOp::FloorDiv,
                                            x.clone(),
                                            d,
                                        ));
                                    }
                                }
                            }
                        }
                        if let Some(r) = self.floordiv_residue(&a, &b, c2) {
                            return r;
                        }
                    }
                }
                BinOp::FloorMod => {
                    if let Some(c2) = c(&b).filter(|v| *v > 0) {
                        // (x * c1) % c2  →  (x * (c1 % c2)) % c2
                        if let Some((x, c1)) = as_mul_c(&a) {
                            if let Some(r) = fold_int_binary(BinOp::FloorMod, c1, c2, b.dtype())
                                .filter(|_| c1 > c2 || c1 < 0)
                            {
                                if r != c1 {
                                    let inner =
                                        fold_op(BinOp::Mul, x.clone(), Expr::int(r, b.dtype()));
                                    return self.visit(&Expr::binary(BinOp::FloorMod, inner, b));
                                }
                            }
                        }
                        // (x * c1 + y) % c2  →  x % (c2 / c1) * c1 + y   when c2 % c1 == 0, 0 <= y < c1
                        if let Some((xc, y)) = as_bin(&a, BinOp::Add) {
                            if let Some((x, c1)) = as_mul_c(xc) {
                                if c1 > 0 && c2 % c1 == 0 {
                                    let yb = self.bound(y);
                                    if yb.min >= 0 && yb.max < c1 {
                                        let m = fold_op(
                                            BinOp::FloorMod,
                                            x.clone(),
                                            Expr::int(c2 / c1, b.dtype()),
                                        );
                                        let r = fold_op(
                                            BinOp::Add,
                                            fold_op(BinOp::Mul, m, Expr::int(c1, b.dtype())),
                                            y.clone(),
                                        );
                                        return r;
                                    }
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Expr::binary(op, a, b)
    }

    /// TVM's residue rule: `(x * c1 + y) // c2` is
    /// `x * (c1 // c2) + y // c2 + r` when the residue
    /// `(x * (c1 % c2) + y % c2) // c2` is a constant `r` over the bounds
    /// (`(co * 360 + 359) // 16` is `co * 22 + 22` for `co` in `[0, 1]`).
    fn floordiv_residue(&mut self, a: &Expr, b: &Expr, c2: i64) -> Option<Expr> {
        let (x, c1, y) = match as_bin(a, BinOp::Add) {
            Some((l, r)) => match (as_mul_c(l), as_mul_c(r)) {
                (Some((x, c1)), _) => (x, c1, Some(r)),
                (_, Some((x, c1))) => (x, c1, Some(l)),
                _ => return None,
            },
            None => {
                let (x, c1) = as_mul_c(a)?;
                (x, c1, None)
            }
        };
        let dt = b.dtype();
        let y_mod = match y {
            None => Expr::int(0, dt),
            Some(y) => match c(y) {
                Some(v) => Expr::int(v.rem_euclid(c2), dt),
                None => Expr::binary(BinOp::FloorMod, y.clone(), b.clone()),
            },
        };
        let scaled = Expr::binary(BinOp::Mul, x.clone(), Expr::int(c1.rem_euclid(c2), dt));
        let residue = Expr::binary(
            BinOp::FloorDiv,
            Expr::binary(BinOp::Add, scaled, y_mod),
            b.clone(),
        );
        let r = self.bound(&residue);
        if r.min != r.max || r.min == NEG_INF || r.max == POS_INF {
            return None;
        }
        let mut out = fold_op(BinOp::Mul, x.clone(), Expr::int(c1.div_euclid(c2), dt));
        if let Some(y) = y {
            let y_div = self.visit(&Expr::binary(BinOp::FloorDiv, y.clone(), b.clone()));
            if c(&y_div) != Some(0) {
                out = Expr::binary(BinOp::Add, out, y_div);
            }
        }
        if r.min != 0 {
            out = Expr::binary(BinOp::Add, out, Expr::int(r.min, dt));
        }
        Some(self.visit(&out))
    }

    pub(crate) fn rw_min_max(&mut self, op: BinOp, a: Expr, b: Expr) -> Expr {
        if let Some(r) = try_fold_binary(op, &a, &b) {
            return r;
        }
        if expr_deep_equal(&a, &b) {
            return a;
        }
        let is_min = op == BinOp::Min;
        // Absorption, as TVM's rules: `min(max(x, y), x)` is `x`, and so on.
        let dual = if is_min { BinOp::Max } else { BinOp::Min };
        for (inner, other) in [(&a, &b), (&b, &a)] {
            if let Some((x, y)) = as_bin(inner, dual) {
                if expr_deep_equal(x, other) || expr_deep_equal(y, other) {
                    return other.clone();
                }
            }
        }
        if is_index_type(a.dtype()) && a.dtype() == b.dtype() {
            let ba = self.bound(&a);
            let bb = self.bound(&b);
            if ba.max <= bb.min {
                return if is_min { a } else { b };
            }
            if bb.max <= ba.min {
                return if is_min { b } else { a };
            }
            // The difference is a constant (`min(x + 1, x + 3)`): pick a side.
            // (Like TVM, a symbolic difference is not bounded here.)
            let diff = self.canonical_expr(&Expr::binary(BinOp::Sub, a.clone(), b.clone()));
            if let Some(d) = diff.as_int() {
                return if (d <= 0) == is_min { a } else { b };
            }
            // Nested constants merge.
            if let (Some((x, c1)), Some(c2)) = (as_bin(&a, op), c(&b)) {
                if let Some(c1) = c(c1) {
                    if let Some(m) = fold_int_binary(op, c1, c2, b.dtype()) {
                        return Expr::binary(op, x.clone(), Expr::int(m, b.dtype()));
                    }
                }
            }
        }
        Expr::binary(op, a, b)
    }

    /// A comparison of simplified operands.
    pub(crate) fn rw_cmp(&mut self, op: CmpOp, a: Expr, b: Expr) -> Expr {
        if let Some(r) = try_fold_cmp(op, &a, &b) {
            return r;
        }
        if !is_index_type(a.dtype()) || a.dtype() != b.dtype() {
            return cmp(op, a, b);
        }
        match op {
            CmpOp::Lt => self.apply_lt(a, b),
            CmpOp::Gt => self.apply_lt(b, a),
            CmpOp::Le => self.apply_le(a, b),
            CmpOp::Ge => self.apply_le(b, a),
            CmpOp::Eq => self.apply_eq(a, b),
            CmpOp::Ne => {
                match self.try_compare(&a, &b) {
                    CompareResult::Le => return self.apply_lt(a, b),
                    CompareResult::Ge => return self.apply_lt(b, a),
                    _ => {}
                }
                let r = self.apply_eq(a, b);
                self.rw_not(r)
            }
        }
    }

    fn apply_le(&mut self, a: Expr, b: Expr) -> Expr {
        let lt = self.apply_lt(b.clone(), a.clone());
        let r = self.rw_not(lt);
        if let ExprKind::Cmp(CmpOp::Le, x, y) = r.kind() {
            match self.try_compare(x, y) {
                CompareResult::Le | CompareResult::Lt | CompareResult::Eq => {
                    return Expr::bool(true)
                }
                CompareResult::Gt => return Expr::bool(false),
                CompareResult::Ge => return cmp(CmpOp::Eq, x.clone(), y.clone()),
                _ => {}
            }
        }
        r
    }

    fn apply_eq(&mut self, a: Expr, b: Expr) -> Expr {
        match self.try_compare(&a, &b) {
            CompareResult::Eq => return Expr::bool(true),
            CompareResult::Ne | CompareResult::Gt | CompareResult::Lt => return Expr::bool(false),
            _ => {}
        }
        if c(&a).is_some() && c(&b).is_none() {
            return self.apply_eq(b, a);
        }
        if c(&b) == Some(0) {
            // x * c == 0  →  x == 0
            if let Some((x, k)) = as_mul_c(&a) {
                if k != 0 {
                    return self.visit(&cmp(CmpOp::Eq, x.clone(), b.clone()));
                }
            }
        }
        if let Some(c2) = c(&b) {
            // x + c1 == c2  →  x == c2 - c1 ;  x - c1 == c2  →  x == c2 + c1
            if let Some((x, c1)) = as_bin(&a, BinOp::Add) {
                if let Some(k) = c(c1)
                    .and_then(|c1| c2.checked_sub(c1))
                    .and_then(|v| self.konst(v, &b))
                {
                    return self.visit(&cmp(CmpOp::Eq, x.clone(), k));
                }
            }
            if let Some((x, c1)) = as_bin(&a, BinOp::Sub) {
                if let Some(k) = c(c1)
                    .and_then(|c1| c2.checked_add(c1))
                    .and_then(|v| self.konst(v, &b))
                {
                    return self.visit(&cmp(CmpOp::Eq, x.clone(), k));
                }
            }
        }
        cmp(CmpOp::Eq, a, b)
    }

    /// TVM's rewrite rules for `a < b` (operands already simplified).
    fn apply_lt(&mut self, a: Expr, b: Expr) -> Expr {
        if let Some(r) = try_fold_cmp(CmpOp::Lt, &a, &b) {
            return r;
        }
        match self.try_compare(&a, &b) {
            CompareResult::Lt => return Expr::bool(true),
            CompareResult::Eq | CompareResult::Gt | CompareResult::Ge => return Expr::bool(false),
            _ => {}
        }
        // The rule groups, in TVM's order: the first that applies wins.
        let rewritten = self
            .lt_cancel_common_terms(&a, &b)
            .or_else(|| self.lt_fold_constant_factors(&a, &b))
            .or_else(|| self.lt_fold_division(&a, &b))
            .or_else(|| self.lt_split_min_max(&a, &b))
            .or_else(|| self.lt_move_constants(&a, &b));
        if let Some(r) = rewritten {
            return r;
        }
        // Both sides divisible by a common factor.
        if let Some(r) = self.divide_cmp_by_gcd(CmpOp::Lt, &a, &b) {
            return r;
        }
        cmp(CmpOp::Lt, a, b)
    }

    /// `a < b` with a term common to both sides cancelled.
    fn lt_cancel_common_terms(&mut self, a: &Expr, b: &Expr) -> Option<Expr> {
        let dt = a.dtype();
        let eq = expr_deep_equal;
        // x + y < x + z  →  y < z (and commuted forms); y - x < z - x; x - y < x - z.
        if let (Some((a1, a2)), Some((b1, b2))) = (as_bin(a, BinOp::Add), as_bin(b, BinOp::Add)) {
            if eq(a1, b1) {
                return Some(self.visit(&cmp(CmpOp::Lt, a2.clone(), b2.clone())));
            }
            if eq(a1, b2) {
                return Some(self.visit(&cmp(CmpOp::Lt, a2.clone(), b1.clone())));
            }
            if eq(a2, b1) {
                return Some(self.visit(&cmp(CmpOp::Lt, a1.clone(), b2.clone())));
            }
            if eq(a2, b2) {
                return Some(self.visit(&cmp(CmpOp::Lt, a1.clone(), b1.clone())));
            }
        }
        if let (Some((a1, a2)), Some((b1, b2))) = (as_bin(a, BinOp::Sub), as_bin(b, BinOp::Sub)) {
            if eq(a2, b2) {
                return Some(self.visit(&cmp(CmpOp::Lt, a1.clone(), b1.clone())));
            }
            if eq(a1, b1) {
                return Some(self.visit(&cmp(CmpOp::Lt, b2.clone(), a2.clone())));
            }
        }
        let zero = Expr::int(0, dt);
        if let Some((b1, b2)) = as_bin(b, BinOp::Add) {
            if eq(a, b1) {
                return Some(self.visit(&cmp(CmpOp::Lt, zero, b2.clone())));
            }
            if eq(a, b2) {
                return Some(self.visit(&cmp(CmpOp::Lt, zero, b1.clone())));
            }
        }
        if let Some((b1, b2)) = as_bin(b, BinOp::Sub) {
            if eq(a, b1) {
                return Some(self.visit(&cmp(CmpOp::Lt, b2.clone(), zero)));
            }
        }
        None
    }

    /// `a < b` with a constant on one side folded into a sum or a product by
    /// a constant on the other.
    fn lt_fold_constant_factors(&mut self, a: &Expr, b: &Expr) -> Option<Expr> {
        let dt = a.dtype();
        let k = |v: Option<i64>| constant_of_dtype(v, dt);
        // c1 < x + c2  →  c1 - c2 < x ;  c1 < c2 - x  →  x < c2 - c1
        if let Some(c1) = c(a) {
            if let Some((x, c2)) = as_bin(b, BinOp::Add) {
                if let Some(kk) = k(c(c2).and_then(|c2| c1.checked_sub(c2))) {
                    return Some(cmp(CmpOp::Lt, kk, x.clone()));
                }
            }
            if let Some((c2, x)) = as_bin(b, BinOp::Sub) {
                if let Some(kk) = k(c(c2).and_then(|c2| c2.checked_sub(c1))) {
                    return Some(cmp(CmpOp::Lt, x.clone(), kk));
                }
            }
        }
        // x * c1 < y * c1
        if let (Some((x, c1)), Some((y, c1b))) = (as_mul_c(a), as_mul_c(b)) {
            if c1 == c1b && c1 > 0 {
                return Some(cmp(CmpOp::Lt, x.clone(), y.clone()));
            }
            if c1 == c1b && c1 < 0 {
                return Some(cmp(CmpOp::Lt, y.clone(), x.clone()));
            }
        }
        // x * c2 < c1
        if let (Some((x, c2)), Some(c1)) = (as_mul_c(a), c(b)) {
            let r = if c1 > 0 && c2 > 0 {
                k((c1 - 1).checked_div(c2).and_then(|v| v.checked_add(1)))
                    .map(|v| cmp(CmpOp::Lt, x.clone(), v))
            } else if c1 <= 0 && c2 > 0 {
                k(c1.checked_div(c2)).map(|v| cmp(CmpOp::Lt, x.clone(), v))
            } else if c1 > 0 && c2 < 0 {
                k((c1 - 1).checked_div(c2).and_then(|v| v.checked_sub(1)))
                    .map(|v| cmp(CmpOp::Lt, v, x.clone()))
            } else if c1 <= 0 && c2 < 0 {
                k(c1.checked_div(c2)).map(|v| cmp(CmpOp::Lt, v, x.clone()))
            } else {
                None
            };
            if let Some(r) = r {
                return Some(r);
            }
        }
        // c1 < x * c2
        if let (Some(c1), Some((x, c2))) = (c(a), as_mul_c(b)) {
            let r = if c1 < 0 && c2 > 0 {
                k((c1 + 1).checked_div(c2).and_then(|v| v.checked_sub(1)))
                    .map(|v| cmp(CmpOp::Lt, v, x.clone()))
            } else if c1 >= 0 && c2 > 0 {
                k(c1.checked_div(c2)).map(|v| cmp(CmpOp::Lt, v, x.clone()))
            } else if c1 < 0 && c2 < 0 {
                k((c1 + 1).checked_div(c2).and_then(|v| v.checked_add(1)))
                    .map(|v| cmp(CmpOp::Lt, x.clone(), v))
            } else if c1 >= 0 && c2 < 0 {
                k(c1.checked_div(c2)).map(|v| cmp(CmpOp::Lt, x.clone(), v))
            } else {
                None
            };
            if let Some(r) = r {
                return Some(r);
            }
        }
        None
    }

    /// `a < b` with a division by a positive constant on one side and a
    /// constant on the other.
    fn lt_fold_division(&mut self, a: &Expr, b: &Expr) -> Option<Expr> {
        let dt = a.dtype();
        let k = |v: Option<i64>| constant_of_dtype(v, dt);
        // Division by a positive constant.
        if let Some(c2) = c(b) {
            if let Some((x, c1)) = as_bin(a, BinOp::FloorDiv) {
                if let Some(c1) = c(c1).filter(|v| *v > 0) {
                    if let Some(kk) = k(c1.checked_mul(c2)) {
                        return Some(cmp(CmpOp::Lt, x.clone(), kk));
                    }
                }
            }
            if let Some((x, c1)) = as_bin(a, BinOp::Div) {
                if let Some(c1) = c(c1).filter(|v| *v > 0) {
                    let v = if c2 > 0 {
                        c1.checked_mul(c2)
                    } else {
                        c2.checked_sub(1)
                            .and_then(|t| t.checked_mul(c1))
                            .and_then(|t| t.checked_add(1))
                    };
                    if let Some(kk) = k(v) {
                        return Some(cmp(CmpOp::Lt, x.clone(), kk));
                    }
                }
            }
        }
        if let Some(c1) = c(a) {
            if let Some((x, c2)) = as_bin(b, BinOp::FloorDiv) {
                if let Some(c2) = c(c2).filter(|v| *v > 0) {
                    let v = c1
                        .checked_add(1)
                        .and_then(|t| t.checked_mul(c2))
                        .and_then(|t| t.checked_sub(1));
                    if let Some(kk) = k(v) {
                        return Some(cmp(CmpOp::Lt, kk, x.clone()));
                    }
                }
            }
            if let Some((x, c2)) = as_bin(b, BinOp::Div) {
                if let Some(c2) = c(c2).filter(|v| *v > 0) {
                    let v = if c1 >= 0 {
                        c1.checked_add(1)
                            .and_then(|t| t.checked_mul(c2))
                            .and_then(|t| t.checked_sub(1))
                    } else {
                        c1.checked_mul(c2)
                    };
                    if let Some(kk) = k(v) {
                        return Some(cmp(CmpOp::Lt, kk, x.clone()));
                    }
                }
            }
        }
        None
    }

    /// `a < b` with a `min` or `max` on one side split into a disjunction or
    /// conjunction.
    fn lt_split_min_max(&mut self, a: &Expr, b: &Expr) -> Option<Expr> {
        // min/max split into conjunctions / disjunctions.
        if let Some((x, y)) = as_bin(a, BinOp::Min) {
            let e = Expr::or(
                cmp(CmpOp::Lt, x.clone(), b.clone()),
                cmp(CmpOp::Lt, y.clone(), b.clone()),
            );
            return Some(self.visit(&e));
        }
        if let Some((x, y)) = as_bin(a, BinOp::Max) {
            let e = Expr::and(
                cmp(CmpOp::Lt, x.clone(), b.clone()),
                cmp(CmpOp::Lt, y.clone(), b.clone()),
            );
            return Some(self.visit(&e));
        }
        if let Some((x, y)) = as_bin(b, BinOp::Min) {
            let e = Expr::and(
                cmp(CmpOp::Lt, a.clone(), x.clone()),
                cmp(CmpOp::Lt, a.clone(), y.clone()),
            );
            return Some(self.visit(&e));
        }
        if let Some((x, y)) = as_bin(b, BinOp::Max) {
            let e = Expr::or(
                cmp(CmpOp::Lt, a.clone(), x.clone()),
                cmp(CmpOp::Lt, a.clone(), y.clone()),
            );
            return Some(self.visit(&e));
        }
        None
    }

    /// `a < b` with constants moved across the comparison, and `< y + 1`
    /// as `<= y`.
    fn lt_move_constants(&mut self, a: &Expr, b: &Expr) -> Option<Expr> {
        let dt = a.dtype();
        let k = |v: Option<i64>| constant_of_dtype(v, dt);
        // Constants across the comparison.
        if let Some((c1, y)) = as_bin(b, BinOp::Sub) {
            if c(c1).is_some() {
                let e = cmp(
                    CmpOp::Lt,
                    Expr::binary(BinOp::Add, a.clone(), y.clone()),
                    c1.clone(),
                );
                return Some(self.visit(&e));
            }
        }
        if let Some((c1, y)) = as_bin(b, BinOp::Add) {
            if c(c1).is_some() {
                let e = cmp(
                    CmpOp::Lt,
                    Expr::binary(BinOp::Sub, a.clone(), y.clone()),
                    c1.clone(),
                );
                return Some(self.visit(&e));
            }
        }
        if let Some((c1, y)) = as_bin(a, BinOp::Sub) {
            if c(c1).is_some() {
                let e = cmp(
                    CmpOp::Lt,
                    c1.clone(),
                    Expr::binary(BinOp::Add, b.clone(), y.clone()),
                );
                return Some(self.visit(&e));
            }
        }
        if let Some((c1, y)) = as_bin(a, BinOp::Add) {
            if c(c1).is_some() {
                let e = cmp(
                    CmpOp::Lt,
                    c1.clone(),
                    Expr::binary(BinOp::Sub, b.clone(), y.clone()),
                );
                return Some(self.visit(&e));
            }
        }
        if let Some(c2) = c(b) {
            if let Some((x, c1)) = as_bin(a, BinOp::Add) {
                if let Some(kk) = k(c(c1).and_then(|c1| c2.checked_sub(c1))) {
                    return Some(self.visit(&cmp(CmpOp::Lt, x.clone(), kk)));
                }
            }
            if let Some((x, c1)) = as_bin(a, BinOp::Sub) {
                if let Some(kk) = k(c(c1).and_then(|c1| c2.checked_add(c1))) {
                    return Some(self.visit(&cmp(CmpOp::Lt, x.clone(), kk)));
                }
            }
        }
        // x < y + 1  →  x <= y ;  x + -1 < y  →  x <= y
        if let Some((y, one)) = as_bin(b, BinOp::Add) {
            if c(one) == Some(1) {
                return Some(cmp(CmpOp::Le, a.clone(), y.clone()));
            }
        }
        if let Some((x, m1)) = as_bin(a, BinOp::Add) {
            if c(m1) == Some(-1) {
                return Some(cmp(CmpOp::Le, x.clone(), b.clone()));
            }
        }
        if let Some((x, one)) = as_bin(a, BinOp::Sub) {
            if c(one) == Some(1) {
                return Some(cmp(CmpOp::Le, x.clone(), b.clone()));
            }
        }
        // x < y + c (c < 0)  →  x + (-c) < y
        if let Some((y, c1)) = as_bin(b, BinOp::Add) {
            if let Some(k) = c(c1)
                .filter(|v| *v < 0)
                .and_then(|v| v.checked_neg())
                .and_then(|v| self.konst(v, b))
            {
                let e = cmp(CmpOp::Lt, Expr::binary(BinOp::Add, a.clone(), k), y.clone());
                return Some(self.visit(&e));
            }
        }
        if let Some((y, c1)) = as_bin(b, BinOp::Sub) {
            if let Some(k) = c(c1).filter(|v| *v > 0) {
                let e = cmp(
                    CmpOp::Lt,
                    Expr::binary(BinOp::Add, a.clone(), Expr::int(k, dt)),
                    y.clone(),
                );
                return Some(self.visit(&e));
            }
        }
        None
    }

    /// `a op b` with every coefficient and constant on both sides divisible
    /// by some `g > 1`: divide both sides by `g`.
    fn divide_cmp_by_gcd(&mut self, op: CmpOp, a: &Expr, b: &Expr) -> Option<Expr> {
        fn gcd_of(e: &Expr, g: &mut i64) -> bool {
            match e.kind() {
                ExprKind::Binary(BinOp::Add | BinOp::Sub, x, y) => gcd_of(x, g) && gcd_of(y, g),
                ExprKind::Binary(BinOp::Mul, _, y) if y.as_int().is_some() => {
                    *g = super::fold::gcd(*g, y.as_int().unwrap_or(1));
                    true
                }
                ExprKind::Int(v) => {
                    *g = super::fold::gcd(*g, *v);
                    true
                }
                _ => false,
            }
        }
        fn divide(e: &Expr, g: i64) -> Expr {
            match e.kind() {
                ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), x, y) => {
                    fold_op(*op, divide(x, g), divide(y, g))
                }
                ExprKind::Binary(BinOp::Mul, x, y) => {
                    let k = y.as_int().unwrap_or(g) / g;
                    fold_op(BinOp::Mul, x.clone(), Expr::int(k, y.dtype()))
                }
                ExprKind::Int(v) => Expr::int(v / g, e.dtype()),
                _ => e.clone(),
            }
        }
        let mut g = 0;
        if !gcd_of(a, &mut g) || !gcd_of(b, &mut g) || g <= 1 {
            return None;
        }
        Some(self.visit(&cmp(op, divide(a, g), divide(b, g))))
    }

    pub(crate) fn rw_not(&mut self, a: Expr) -> Expr {
        match a.kind() {
            ExprKind::Int(v) => Expr::bool(*v == 0),
            ExprKind::Not(x) => x.clone(),
            ExprKind::Cmp(op, x, y) => {
                let (x, y) = (x.clone(), y.clone());
                match op {
                    CmpOp::Lt => cmp(CmpOp::Le, y, x),
                    CmpOp::Le => cmp(CmpOp::Lt, y, x),
                    CmpOp::Gt => cmp(CmpOp::Le, x, y),
                    CmpOp::Ge => cmp(CmpOp::Lt, x, y),
                    CmpOp::Eq => cmp(CmpOp::Ne, x, y),
                    CmpOp::Ne => cmp(CmpOp::Eq, x, y),
                }
            }
            ExprKind::And(x, y) => {
                let (x, y) = (x.clone(), y.clone());
                let nx = self.rw_not(x);
                let ny = self.rw_not(y);
                self.rw_or(nx, ny)
            }
            ExprKind::Or(x, y) => {
                let (x, y) = (x.clone(), y.clone());
                let nx = self.rw_not(x);
                let ny = self.rw_not(y);
                self.rw_and(nx, ny)
            }
            _ => Expr::logical_not(a),
        }
    }

    fn is_negation(&self, a: &Expr, b: &Expr) -> bool {
        if let ExprKind::Not(x) = b.kind() {
            if expr_deep_equal(x, a) {
                return true;
            }
        }
        if let ExprKind::Not(x) = a.kind() {
            if expr_deep_equal(x, b) {
                return true;
            }
        }
        false
    }

    pub(crate) fn rw_and(&mut self, a: Expr, b: Expr) -> Expr {
        match (c(&a), c(&b)) {
            (Some(0), _) => return a,
            (_, Some(0)) => return b,
            (Some(_), _) => return b,
            (_, Some(_)) => return a,
            _ => {}
        }
        if expr_deep_equal(&a, &b) {
            return a;
        }
        if self.is_negation(&a, &b) {
            return Expr::bool(false);
        }
        // x < c1 && c2 < x  →  false   when c2 >= c1 - 1
        let contradiction = |p: &Expr, q: &Expr| -> bool {
            if let (ExprKind::Cmp(CmpOp::Lt, x1, c1), ExprKind::Cmp(CmpOp::Lt, c2, x2)) =
                (p.kind(), q.kind())
            {
                if let (Some(c1), Some(c2)) = (c(c1), c(c2)) {
                    return expr_deep_equal(x1, x2) && c1.checked_sub(1).is_some_and(|v| c2 >= v);
                }
            }
            false
        };
        if contradiction(&a, &b) || contradiction(&b, &a) {
            return Expr::bool(false);
        }
        // x < c1 && x % c2 < c3  →  x < c1 - c2 + c3 && x % c2 < c3   when
        // c2 divides c1: the last period before c1 stops at c3.
        if let (ExprKind::Cmp(CmpOp::Lt, x, c1), ExprKind::Cmp(CmpOp::Lt, m, c3)) =
            (a.kind(), b.kind())
        {
            if let (Some(c1), Some(c3), Some((mx, c2))) = (c(c1), c(c3), as_bin(m, BinOp::FloorMod))
            {
                if let Some(c2) = c(c2).filter(|c2| *c2 > 0 && c1 % c2 == 0 && c3 < *c2) {
                    if expr_deep_equal(x, mx) {
                        let bound = Expr::int(c1 - c2 + c3, x.dtype());
                        return Expr::and(Expr::cmp(CmpOp::Lt, x.clone(), bound), b);
                    }
                }
            }
        }
        Expr::and(a, b)
    }

    pub(crate) fn rw_or(&mut self, a: Expr, b: Expr) -> Expr {
        match (c(&a), c(&b)) {
            (Some(0), _) => return b,
            (_, Some(0)) => return a,
            (Some(_), _) => return a,
            (_, Some(_)) => return b,
            _ => {}
        }
        if expr_deep_equal(&a, &b) {
            return a;
        }
        if self.is_negation(&a, &b) {
            return Expr::bool(true);
        }
        Expr::or(a, b)
    }
}

/// `v` as a constant of type `dt`, when it fits in that type.
fn constant_of_dtype(v: Option<i64>, dt: crate::ir::DataType) -> Option<Expr> {
    let v = v?;
    let bd = super::bound::Bound::of_dtype(dt);
    (v >= bd.min && v <= bd.max).then(|| Expr::int(v, dt))
}
