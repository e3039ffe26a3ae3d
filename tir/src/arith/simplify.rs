//! The simplifier: a canonical-form pass for integer index arithmetic and a
//! rule-based pass for everything else (min/max, comparisons, logic).
//!
//! Integer sums are brought to a *sum of splits* normal form, where a split
//! is `(index % upper) // lower * scale`: the same normal form TVM's
//! canonical simplifier uses, so the printed results agree with TVM's. The
//! terms of a sum print with the largest scale first (ties keep the order of
//! first appearance), positive terms before the constant, negative terms
//! subtracted after it: `j + i * 16 + 3` → `i * 16 + j + 3`,
//! `i * 2 - j * 3 + 5` → `i * 2 + 5 - j * 3`.
//!
//! Every integer operation on coefficients is checked; when one would
//! overflow, the node is left as it is (with simplified children).

use crate::ir::{BinOp, CmpOp, DataType, Expr, ExprKind, VarId};

use super::bound::{self, Bound, POS_INF};
use super::expr_deep_equal;
use super::fold::{floordiv_i64, floormod_i64, gcd, try_fold_binary};
use super::Analyzer;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum DivMode {
    Trunc,
    Floor,
}

/// `(index % upper) / lower * scale` (`upper == POS_INF`: no modulo).
#[derive(Clone, Debug)]
pub(crate) struct Split {
    pub index: Expr,
    pub lower: i64,
    pub upper: i64,
    pub scale: i64,
    pub mode: DivMode,
}

impl Split {
    fn new(index: Expr) -> Split {
        Split {
            index,
            lower: 1,
            upper: POS_INF,
            scale: 1,
            mode: DivMode::Trunc,
        }
    }
    fn dtype(&self) -> DataType {
        self.index.dtype()
    }
    fn index_equal(&self, o: &Split) -> bool {
        expr_deep_equal(&self.index, &o.index)
    }
    fn mode_compatible(&self, mode: DivMode) -> bool {
        self.mode == mode || (self.lower == 1 && self.upper == POS_INF)
    }
    /// The expression `(index % upper) / lower * (scale * sscale)`.
    fn normalize_with_scale(&self, sscale: i64) -> Option<Expr> {
        let dtype = self.dtype();
        if self.scale == 0 {
            return Some(Expr::int(0, dtype));
        }
        let mut res = self.index.clone();
        if self.upper != POS_INF {
            res = mk_mod(res, Expr::int(self.upper, dtype), self.mode);
        }
        if self.lower != 1 {
            res = mk_div(res, Expr::int(self.lower, dtype), self.mode);
        }
        let s = sscale.checked_mul(self.scale)?;
        if s != 1 {
            res = fold_op(BinOp::Mul, res, Expr::int(s, dtype));
        }
        Some(res)
    }
    fn normalize(&self) -> Option<Expr> {
        self.normalize_with_scale(1)
    }
}

/// `sum(args) + base`. Args with the same index sit next to each other,
/// larger `lower` first.
#[derive(Clone, Debug)]
pub(crate) struct Sum {
    pub args: Vec<Split>,
    pub base: i64,
    pub dtype: DataType,
}

impl Sum {
    fn new(dtype: DataType) -> Sum {
        Sum {
            args: Vec::new(),
            base: 0,
            dtype,
        }
    }
    fn is_zero(&self) -> bool {
        self.base == 0 && self.args.is_empty()
    }
    fn mul_to_self(&mut self, c: i64) -> Option<()> {
        self.base = self.base.checked_mul(c)?;
        for a in &mut self.args {
            a.scale = a.scale.checked_mul(c)?;
        }
        Some(())
    }
    fn divide_by(&mut self, c: i64) {
        self.base /= c;
        for a in &mut self.args {
            a.scale /= c;
        }
    }
    fn add_const(&mut self, v: i64) -> Option<()> {
        self.base = self.base.checked_add(v)?;
        Some(())
    }
    /// `self += other * scale`, keeping the segment invariant.
    fn add_split(&mut self, mut other: Split, scale: i64) -> Option<()> {
        if other.scale == 0 {
            return Some(());
        }
        let start = self
            .args
            .iter()
            .position(|a| a.index_equal(&other))
            .unwrap_or(self.args.len());
        for j in start..self.args.len() {
            let aj = &self.args[j];
            if !aj.index_equal(&other) || other.lower > aj.lower {
                other.scale = other.scale.checked_mul(scale)?;
                self.args.insert(j, other);
                return Some(());
            }
            if other.lower == aj.lower && other.upper == aj.upper && other.mode_compatible(aj.mode)
            {
                let add = other.scale.checked_mul(scale)?;
                let aj = &mut self.args[j];
                aj.scale = aj.scale.checked_add(add)?;
                return Some(());
            }
        }
        other.scale = other.scale.checked_mul(scale)?;
        self.args.push(other);
        Some(())
    }
    fn add_sum(&mut self, other: &Sum, scale: i64) -> Option<()> {
        for a in &other.args {
            self.add_split(a.clone(), scale)?;
        }
        self.add_const(other.base.checked_mul(scale)?)
    }

    /// Merges splits that combine (`x // 4 * 4 + x % 4 → x`, `a*s + a*t`),
    /// then orders terms: larger scale first, then larger lower factor,
    /// larger upper factor, floor before trunc; ties keep their order.
    fn simplified_args(&self) -> Vec<Split> {
        let mut args = self.args.clone();
        for i in 0..args.len() {
            if args[i].scale == 0 {
                continue;
            }
            for j in i + 1..args.len() {
                let (lhs, rhs) = (&args[i], &args[j]);
                if !lhs.index_equal(rhs) {
                    break;
                }
                if lhs.upper < rhs.lower {
                    break;
                }
                if lhs.upper == rhs.upper && lhs.lower == rhs.lower && lhs.mode_compatible(rhs.mode)
                {
                    if let Some(s) = rhs.scale.checked_add(lhs.scale) {
                        args[j].scale = s;
                        args[i].scale = 0;
                    }
                } else if lhs.lower == rhs.upper
                    && rhs.scale != 0
                    && lhs.scale.checked_rem(rhs.scale) == Some(0)
                    && lhs
                        .scale
                        .checked_div(rhs.scale)
                        .and_then(|q| q.checked_mul(rhs.lower))
                        == Some(lhs.lower)
                    && lhs.mode_compatible(rhs.mode)
                {
                    // (x // (c*s)) * s + (x % (c*s)) // c == x // c, scaled.
                    args[j].upper = lhs.upper;
                    args[i].scale = 0;
                    break;
                }
            }
        }
        // Stable sort, descending.
        tessel_ir::sort::by(&mut args, |l, r| {
            r.scale
                .cmp(&l.scale)
                .then(r.lower.cmp(&l.lower))
                .then(r.upper.cmp(&l.upper))
                .then(r.mode.cmp(&l.mode))
        });
        args
    }

    fn normalize(&self) -> Option<Expr> {
        let dtype = self.dtype;
        if self.args.is_empty() {
            return Some(Expr::int(self.base, dtype));
        }
        let args = self.simplified_args();
        let is_min_value = self.base == Bound::of_dtype(dtype).min;
        let mut res = Expr::int(0, dtype);
        for a in &args {
            if a.scale > 0 {
                res = fold_op(BinOp::Add, res, a.normalize()?);
            }
        }
        if self.base > 0 || is_min_value {
            res = fold_op(BinOp::Add, res, Expr::int(self.base, dtype));
        }
        for a in &args {
            if a.scale < 0 {
                res = fold_op(BinOp::Sub, res, a.normalize_with_scale(-1)?);
            }
        }
        if self.base < 0 && !is_min_value {
            res = fold_op(BinOp::Sub, res, Expr::int(self.base.checked_neg()?, dtype));
        }
        Some(res)
    }
}

/// The result of the canonical visitor: a plain expression or a normal form.
#[derive(Clone, Debug)]
pub(crate) enum CExpr {
    E(Expr),
    Split(Split),
    Sum(Sum),
}

impl CExpr {
    fn as_const(&self) -> Option<i64> {
        match self {
            CExpr::E(e) => e.as_int(),
            _ => None,
        }
    }
}

/// `a op b` with constant folding (TVM's operator overloads fold too).
pub(crate) fn fold_op(op: BinOp, a: Expr, b: Expr) -> Expr {
    try_fold_binary(op, &a, &b).unwrap_or_else(|| Expr::binary(op, a, b))
}

fn mk_mod(a: Expr, b: Expr, mode: DivMode) -> Expr {
    fold_op(
        match mode {
            DivMode::Trunc => BinOp::Mod,
            DivMode::Floor => BinOp::FloorMod,
        },
        a,
        b,
    )
}

fn mk_div(a: Expr, b: Expr, mode: DivMode) -> Expr {
    fold_op(
        match mode {
            DivMode::Trunc => BinOp::Div,
            DivMode::Floor => BinOp::FloorDiv,
        },
        a,
        b,
    )
}

/// Whether the canonical form applies to this dtype (signed scalar integers;
/// TVM's index types).
pub(crate) fn is_index_type(dtype: DataType) -> bool {
    dtype.is_scalar() && dtype.is_int()
}

/// Result of comparing an expression with a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CompareResult {
    Lt,
    Le,
    Eq,
    Ge,
    Gt,
    Ne,
    Unknown,
}

/// Which simplification pass is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Canonical,
    Rewrite,
}

pub(crate) struct Simplifier<'a> {
    pub ana: &'a Analyzer,
    pub mode: Mode,
    /// Bounds of let-bound variables in scope.
    pub lets: Vec<(VarId, Bound)>,
    /// Recursion guard for recursive rewrites.
    pub depth: u32,
}

const MAX_DEPTH: u32 = 64;

impl<'a> Simplifier<'a> {
    pub fn new(ana: &'a Analyzer, mode: Mode) -> Self {
        Simplifier {
            ana,
            mode,
            lets: Vec::new(),
            depth: 0,
        }
    }

    pub fn bound(&self, e: &Expr) -> Bound {
        let lookup = |id: VarId| {
            if let Some((_, b)) = self.lets.iter().rev().find(|(v, _)| *v == id) {
                return Some(*b);
            }
            self.ana.var_bound_by_id(id)
        };
        bound::eval_with(e, &lookup)
    }

    pub fn can_prove_ge(&self, e: &Expr, v: i64) -> bool {
        if let Some(c) = e.as_int() {
            return c >= v;
        }
        self.bound(e).min >= v
    }

    /// Compares `x` with the constant `val` using bounds of `x` and, for
    /// `val == 0`, its divisibility.
    pub fn try_compare_const(&self, x: &Expr, val: i64) -> CompareResult {
        if let Some(c) = x.as_int() {
            return match c.cmp(&val) {
                std::cmp::Ordering::Less => CompareResult::Lt,
                std::cmp::Ordering::Equal => CompareResult::Eq,
                std::cmp::Ordering::Greater => CompareResult::Gt,
            };
        }
        let b = self.bound(x);
        if b.min == val && b.max == val {
            return CompareResult::Eq;
        }
        if b.min > val {
            return CompareResult::Gt;
        }
        if b.max < val {
            return CompareResult::Lt;
        }
        if b.min >= val {
            return CompareResult::Ge;
        }
        if b.max <= val {
            return CompareResult::Le;
        }
        CompareResult::Unknown
    }

    /// Compares `a` with `b` by simplifying `a - b` and bounding it.
    pub fn try_compare(&mut self, a: &Expr, b: &Expr) -> CompareResult {
        if !is_index_type(a.dtype()) || a.dtype() != b.dtype() {
            return CompareResult::Unknown;
        }
        let diff = self.canonical_expr(&Expr::binary(BinOp::Sub, a.clone(), b.clone()));
        let r = self.try_compare_const(&diff, 0);
        if (r == CompareResult::Unknown || r == CompareResult::Le || r == CompareResult::Ge)
            && self.not_divisible_zero(&diff)
        {
            {
                return match r {
                    CompareResult::Le => CompareResult::Lt,
                    CompareResult::Ge => CompareResult::Gt,
                    _ => CompareResult::Ne,
                };
            }
        }
        r
    }

    /// Whether `e` (a normalized sum) is provably non-zero because the gcd of
    /// its scales does not divide its constant.
    fn not_divisible_zero(&mut self, e: &Expr) -> bool {
        if let CExpr::Sum(s) = self.canon(e) {
            let mut g = 0i64;
            for a in &s.args {
                if a.scale != 0 {
                    g = gcd(g, a.scale);
                }
            }
            if g > 1 {
                return floormod_i64(s.base, g).is_some_and(|r| r != 0);
            }
        }
        false
    }

    /// Simplifies `e` in the current pass.
    pub fn visit(&mut self, e: &Expr) -> Expr {
        if self.depth > MAX_DEPTH {
            return e.clone();
        }
        self.depth += 1;
        let r = match self.mode {
            Mode::Canonical => {
                let c = self.canon(e);
                self.normalize(c)
            }
            Mode::Rewrite => self.rewrite(e),
        };
        self.depth -= 1;
        r
    }

    /// The canonical pass applied to `e`, whatever pass is running.
    pub fn canonical_expr(&mut self, e: &Expr) -> Expr {
        let saved = self.mode;
        self.mode = Mode::Canonical;
        let r = self.visit(e);
        self.mode = saved;
        r
    }

    pub(crate) fn normalize(&self, c: CExpr) -> Expr {
        match c {
            CExpr::E(e) => e,
            CExpr::Split(s) => s.normalize().unwrap_or_else(|| s.index.clone()),
            CExpr::Sum(s) => match s.normalize() {
                Some(e) => e,
                // Unreachable in practice (normal forms are only built when
                // their coefficients fit); keep something valid.
                None => s
                    .args
                    .first()
                    .map(|a| a.index.clone())
                    .unwrap_or_else(|| Expr::int(s.base, s.dtype)),
            },
        }
    }

    fn to_split(&self, c: CExpr) -> Split {
        match c {
            CExpr::Split(s) => s,
            CExpr::Sum(s) if s.base == 0 && s.args.len() == 1 => {
                match s.args.into_iter().next() {
                    Some(only) => only,
                    // Not reached (one argument); an empty sum of base 0 is zero.
                    None => Split::new(Expr::int(0, s.dtype)),
                }
            }
            other => Split::new(self.normalize(other)),
        }
    }

    fn to_sum(&self, c: CExpr) -> Sum {
        match c {
            CExpr::Sum(s) => s,
            CExpr::E(e) if e.as_int().is_some() => {
                let mut s = Sum::new(e.dtype());
                s.base = e.as_int().unwrap_or(0);
                s
            }
            other => {
                let split = self.to_split(other);
                let mut s = Sum::new(split.dtype());
                s.args.push(split);
                s
            }
        }
    }

    /// The canonical visitor ("CanonicalMutate"): integer arithmetic goes to
    /// normal forms, everything else to the rules of the rewrite pass.
    pub(crate) fn canon(&mut self, e: &Expr) -> CExpr {
        if self.depth > MAX_DEPTH {
            return CExpr::E(e.clone());
        }
        if let ExprKind::Binary(op, a, b) = e.kind() {
            if is_index_type(e.dtype()) && a.dtype() == b.dtype() {
                self.depth += 1;
                let r = self.canon_binary(*op, a, b);
                self.depth -= 1;
                if let Some(r) = r {
                    return r;
                }
                // Overflow somewhere: keep the node with simplified children.
                let (na, nb) = (self.visit(a), self.visit(b));
                return CExpr::E(fold_op(*op, na, nb));
            }
        }
        if let ExprKind::Var(v) = e.kind() {
            if let Some(value) = self.ana.var_value(v.id()) {
                return CExpr::E(value.clone());
            }
        }
        if let ExprKind::Cmp(CmpOp::Lt, a, b) = e.kind() {
            if is_index_type(a.dtype()) && a.dtype() == b.dtype() {
                self.depth += 1;
                let r = self.canon_lt(a, b);
                self.depth -= 1;
                return CExpr::E(r);
            }
        }
        CExpr::E(self.rewrite_node(e))
    }

    fn canon_binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Option<CExpr> {
        match op {
            BinOp::Add | BinOp::Sub => {
                let ca = self.canon(a);
                let cb = self.canon(b);
                let sign = if op == BinOp::Add { 1 } else { -1 };
                if let (Some(x), Some(y)) = (ca.as_const(), cb.as_const()) {
                    let dt = a.dtype();
                    return Some(CExpr::E(fold_op(op, Expr::int(x, dt), Expr::int(y, dt))));
                }
                if op == BinOp::Add && ca.as_const() == Some(0) {
                    return Some(cb);
                }
                if cb.as_const() == Some(0) {
                    return Some(ca);
                }
                let mut sum = self.to_sum(ca);
                match cb {
                    CExpr::E(ref e) if e.as_int().is_some() => {
                        sum.add_const(e.as_int()?.checked_mul(sign)?)?;
                    }
                    CExpr::Sum(ref s) => sum.add_sum(s, sign)?,
                    other => {
                        let split = self.to_split(other);
                        sum.add_split(split, sign)?;
                    }
                }
                Some(CExpr::Sum(sum))
            }
            BinOp::Mul => {
                let mut ca = self.canon(a);
                let mut cb = self.canon(b);
                if let (Some(x), Some(y)) = (ca.as_const(), cb.as_const()) {
                    let dt = a.dtype();
                    return Some(CExpr::E(fold_op(op, Expr::int(x, dt), Expr::int(y, dt))));
                }
                match (ca.as_const(), cb.as_const()) {
                    (Some(1), _) => return Some(cb),
                    (_, Some(1)) => return Some(ca),
                    (Some(0), _) => return Some(ca),
                    (_, Some(0)) => return Some(cb),
                    _ => {}
                }
                if ca.as_const().is_some() {
                    std::mem::swap(&mut ca, &mut cb);
                }
                if let Some(c) = cb.as_const() {
                    return Some(match ca {
                        CExpr::Sum(mut s) => {
                            s.mul_to_self(c)?;
                            CExpr::Sum(s)
                        }
                        other => {
                            let mut s = self.to_split(other);
                            s.scale = s.scale.checked_mul(c)?;
                            CExpr::Split(s)
                        }
                    });
                }
                let na = self.normalize(ca);
                let nb = self.normalize(cb);
                Some(CExpr::E(mul_and_normalize(na, nb)))
            }
            BinOp::FloorDiv | BinOp::Div => {
                let mode = if op == BinOp::FloorDiv {
                    DivMode::Floor
                } else {
                    DivMode::Trunc
                };
                let ca = self.canon(a);
                let cb = self.canon(b);
                let dt = a.dtype();
                if let (Some(x), Some(y)) = (ca.as_const(), cb.as_const()) {
                    if let Some(r) = try_fold_binary(op, &Expr::int(x, dt), &Expr::int(y, dt)) {
                        return Some(CExpr::E(r));
                    }
                }
                if cb.as_const() == Some(1) {
                    return Some(ca);
                }
                if ca.as_const() == Some(0) && cb.as_const().is_some_and(|c| c != 0) {
                    return Some(ca);
                }
                match cb.as_const() {
                    Some(c) if c > 0 => self.canon_div_const(ca, c, mode),
                    _ => {
                        let na = self.normalize(ca);
                        let nb = self.normalize(cb);
                        Some(CExpr::E(fold_op(op, na, nb)))
                    }
                }
            }
            BinOp::FloorMod | BinOp::Mod => {
                let mode = if op == BinOp::FloorMod {
                    DivMode::Floor
                } else {
                    DivMode::Trunc
                };
                let ca = self.canon(a);
                let cb = self.canon(b);
                let dt = a.dtype();
                if let (Some(x), Some(y)) = (ca.as_const(), cb.as_const()) {
                    if let Some(r) = try_fold_binary(op, &Expr::int(x, dt), &Expr::int(y, dt)) {
                        return Some(CExpr::E(r));
                    }
                }
                if cb.as_const() == Some(1) {
                    return Some(CExpr::E(Expr::int(0, dt)));
                }
                if ca.as_const() == Some(0) && cb.as_const().is_some_and(|c| c != 0) {
                    return Some(ca);
                }
                match cb.as_const() {
                    Some(c) if c > 0 => self.canon_mod_const(ca, c, mode),
                    _ => {
                        let na = self.normalize(ca);
                        let nb = self.normalize(cb);
                        Some(CExpr::E(fold_op(op, na, nb)))
                    }
                }
            }
            BinOp::Min | BinOp::Max => {
                let na = self.visit(a);
                let nb = self.visit(b);
                Some(CExpr::E(self.rw_min_max(op, na, nb)))
            }
        }
    }

    fn separate(&self, s: &Sum, c: i64) -> (Sum, Sum) {
        let mut div = Sum::new(s.dtype);
        let mut rest = Sum::new(s.dtype);
        if s.base % c == 0 {
            div.base = s.base;
        } else {
            rest.base = s.base;
        }
        for a in &s.args {
            if a.scale % c == 0 {
                div.args.push(a.clone());
            } else {
                rest.args.push(a.clone());
            }
        }
        (div, rest)
    }

    fn canon_div_const(&mut self, ca: CExpr, c: i64, mode: DivMode) -> Option<CExpr> {
        if let CExpr::Sum(psum) = &ca {
            let (mut lhs, extra) = self.separate(psum, c);
            if extra.is_zero() {
                lhs.divide_by(c);
                return Some(CExpr::Sum(lhs));
            }
            let proceed = match mode {
                DivMode::Floor => true,
                DivMode::Trunc => {
                    let ln = lhs.normalize()?;
                    let en = extra.normalize()?;
                    self.can_prove_ge(&ln, 0) && self.can_prove_ge(&en, 0)
                }
            };
            if proceed {
                lhs.divide_by(c);
                let temp = extra.normalize()?;
                if let Some(t) = temp.as_int() {
                    let q = match mode {
                        DivMode::Floor => floordiv_i64(t, c)?,
                        DivMode::Trunc => t / c,
                    };
                    lhs.add_const(q)?;
                } else {
                    let small = self.try_compare_const(&temp, c) == CompareResult::Lt
                        && (mode == DivMode::Trunc || self.can_prove_ge(&temp, 0));
                    if !small {
                        let sp = self.split_div_const(Split::new(temp), c, mode)?;
                        lhs.add_split(sp, 1)?;
                    }
                }
                return Some(CExpr::Sum(lhs));
            }
        } else {
            let n = self.normalize(ca.clone());
            let b = self.bound(&n);
            if b.min >= 0 && b.max < c {
                return Some(CExpr::E(Expr::int(0, n.dtype())));
            }
        }
        let sp = self.to_split(ca);
        Some(CExpr::Split(self.split_div_const(sp, c, mode)?))
    }

    fn canon_mod_const(&mut self, ca: CExpr, c: i64, mode: DivMode) -> Option<CExpr> {
        let dtype = match &ca {
            CExpr::E(e) => e.dtype(),
            CExpr::Split(s) => s.dtype(),
            CExpr::Sum(s) => s.dtype,
        };
        if let CExpr::Sum(psum) = &ca {
            let (lhs, extra) = self.separate(psum, c);
            let mut a = psum.clone();
            match mode {
                DivMode::Floor => {
                    let temp = extra.normalize()?;
                    if let Some(t) = temp.as_int() {
                        return Some(CExpr::E(Expr::int(floormod_i64(t, c)?, dtype)));
                    }
                    if self.try_compare_const(&temp, c) == CompareResult::Lt
                        && self.can_prove_ge(&temp, 0)
                    {
                        return Some(CExpr::E(temp));
                    }
                    a = extra;
                    a.base = floormod_i64(a.base, c)?;
                    let sp = self.to_split(CExpr::Sum(a));
                    return Some(CExpr::Split(self.split_mod_const(sp, c, mode)?));
                }
                DivMode::Trunc => {
                    if extra.is_zero() {
                        return Some(CExpr::E(Expr::int(0, dtype)));
                    }
                    let ln = lhs.normalize()?;
                    let en = extra.normalize()?;
                    if self.can_prove_ge(&ln, 0) && self.can_prove_ge(&en, 0) {
                        if let Some(t) = en.as_int() {
                            return Some(CExpr::E(Expr::int(t % c, dtype)));
                        }
                        if self.try_compare_const(&en, c) == CompareResult::Lt {
                            return Some(CExpr::E(en));
                        }
                        a = extra;
                    }
                    let an = a.normalize()?;
                    let b = self.bound(&an);
                    let new_base = a.base % c;
                    if b.min >= 0
                        && b.min
                            .checked_sub(a.base)
                            .and_then(|v| v.checked_add(new_base))?
                            >= 0
                    {
                        a.base = new_base;
                    }
                    let sp = self.to_split(CExpr::Sum(a));
                    return Some(CExpr::Split(self.split_mod_const(sp, c, mode)?));
                }
            }
        }
        let n = self.normalize(ca.clone());
        let b = self.bound(&n);
        if b.min >= 0 && b.max < c {
            return Some(ca);
        }
        let sp = self.to_split(ca);
        Some(CExpr::Split(self.split_mod_const(sp, c, mode)?))
    }

    fn convert_div_mode(&self, s: Split, mode: DivMode) -> Option<Split> {
        if s.mode == mode {
            return Some(s);
        }
        if s.mode_compatible(mode) {
            return Some(Split { mode, ..s });
        }
        let mut n = Split::new(s.normalize()?);
        n.mode = mode;
        Some(n)
    }

    fn split_div_const(&mut self, lhs: Split, c: i64, mode: DivMode) -> Option<Split> {
        let mut lhs = self.convert_div_mode(lhs, mode)?;
        if lhs.scale % c == 0 {
            lhs.scale /= c;
            return Some(lhs);
        }
        if lhs.scale != 0 && c % lhs.scale == 0 {
            let scaled = c / lhs.scale;
            let new_lower = lhs.lower.checked_mul(scaled)?;
            if scaled > 0 {
                if lhs.upper == POS_INF || lhs.upper % new_lower == 0 {
                    lhs.scale = 1;
                    lhs.lower = new_lower;
                    return Some(lhs);
                } else if lhs.upper <= new_lower {
                    return Some(Split::new(Expr::int(0, lhs.dtype())));
                } else {
                    let dt = lhs.dtype();
                    lhs.index = mk_mod(lhs.index.clone(), Expr::int(lhs.upper, dt), mode);
                    lhs.upper = POS_INF;
                    lhs.scale = 1;
                    lhs.lower = new_lower;
                    return Some(lhs);
                }
            }
        }
        let mut n = Split::new(lhs.normalize()?);
        n.lower = c;
        n.mode = mode;
        Some(n)
    }

    fn split_mod_const(&mut self, lhs: Split, c: i64, mode: DivMode) -> Option<Split> {
        let mut lhs = self.convert_div_mode(lhs, mode)?;
        if lhs.scale % c == 0 {
            lhs.scale = 0;
            return Some(lhs);
        }
        if lhs.scale < 0 && lhs.lower == 1 && lhs.upper == POS_INF && c % lhs.scale == 0 {
            // (x * s) % (s * q) == (x % q) * s, also for s < 0 (then q < 0).
            lhs.upper = c / lhs.scale;
            return Some(lhs);
        }
        if lhs.scale > 0 && c % lhs.scale == 0 {
            let scaled = c / lhs.scale;
            let new_upper = lhs.lower.checked_mul(scaled)?;
            if lhs.upper == POS_INF || lhs.upper % new_upper == 0 {
                if new_upper < lhs.upper && lhs.upper != POS_INF {
                    let dt = lhs.dtype();
                    let inner = mk_mod(lhs.index.clone(), Expr::int(new_upper, dt), mode);
                    let c_inner = self.canon(&inner);
                    let updated = self.to_split(CExpr::E(self.normalize(c_inner)));
                    if lhs.lower != 1 {
                        let mut r = self.split_div_const(updated, lhs.lower, mode)?;
                        r.scale = r.scale.checked_mul(lhs.scale)?;
                        return Some(r);
                    }
                    let mut r = updated;
                    r.scale = r.scale.checked_mul(lhs.scale)?;
                    return Some(r);
                }
                lhs.upper = new_upper;
                return Some(lhs);
            } else if new_upper.checked_rem(lhs.upper) == Some(0) {
                return Some(lhs);
            }
        }
        let mut n = Split::new(lhs.normalize()?);
        n.mode = mode;
        n.upper = c;
        Some(n)
    }

    /// `a < b` in the canonical pass: `x0*s0 + ... + xn + c < 0` with
    /// `d = gcd(s0, ..., c)` becomes `x0*(s0/d) + ... < -c/d` when `|xn| < d`.
    fn canon_lt(&mut self, a: &Expr, b: &Expr) -> Expr {
        let diff = fold_op(BinOp::Sub, a.clone(), b.clone());
        if let CExpr::Sum(lhs) = self.canon(&diff) {
            let mut g = lhs.base;
            let mut has_non_one = false;
            for s in &lhs.args {
                if s.scale > 1 || s.scale < -1 {
                    has_non_one = true;
                    g = gcd(g, s.scale);
                }
            }
            if has_non_one && g > 1 {
                let (mut divisible, extra) = self.separate(&lhs, g);
                let dtype = lhs.dtype;
                if let Some(ne) = extra.normalize() {
                    let b = self.bound(&ne);
                    // Only sound for a non-negative remainder: 0 <= xn < d.
                    if b.max < g && b.min >= 0 {
                        divisible.divide_by(g);
                        if let Some(d) = divisible.normalize() {
                            return self.visit(&Expr::cmp(CmpOp::Lt, d, Expr::int(0, dtype)));
                        }
                    } else if extra.args.len() == 1
                        && extra.base == 0
                        && extra.args[0].scale == 1
                        && (extra.args[0].mode == DivMode::Floor
                            || self.bound(&extra.args[0].index).min >= 0)
                        && extra.args[0].upper != POS_INF
                        && extra.args[0]
                            .lower
                            .checked_mul(g)
                            .is_some_and(|m| extra.args[0].upper % m == 0)
                    {
                        divisible.divide_by(g);
                        let sp = &extra.args[0];
                        let lower = g * sp.lower;
                        let e = fold_op(
                            BinOp::FloorMod,
                            fold_op(BinOp::FloorDiv, sp.index.clone(), Expr::int(lower, dtype)),
                            Expr::int(sp.upper / lower, dtype),
                        );
                        if let Some(d) = divisible.normalize() {
                            let sum = fold_op(BinOp::Add, d, e);
                            return self.visit(&Expr::cmp(CmpOp::Lt, sum, Expr::int(0, dtype)));
                        }
                    }
                }
            }
        }
        let na = self.visit(a);
        let nb = self.visit(b);
        self.rw_cmp(CmpOp::Lt, na, nb)
    }
}

/// `a * b` for non-constant operands: constant factors move to the end
/// (`m * 2 * (n * 3)` → `m * n * 6`).
fn mul_and_normalize(a: Expr, b: Expr) -> Expr {
    let dtype = a.dtype();
    let mut factors = Vec::new();
    let mut c: i64 = 1;
    let mut ok = true;
    for side in [&a, &b] {
        unpack_mul(side, &mut factors, &mut c, &mut ok);
    }
    if !ok {
        return Expr::binary(BinOp::Mul, a, b);
    }
    let mut res: Option<Expr> = None;
    for f in factors {
        res = Some(match res {
            None => f,
            Some(r) => Expr::binary(BinOp::Mul, r, f),
        });
    }
    let c = super::fold::wrap_to_dtype(c, dtype);
    match res {
        None => Expr::int(c, dtype),
        Some(r) if c == 1 => r,
        Some(r) => fold_op(BinOp::Mul, r, Expr::int(c, dtype)),
    }
}

fn unpack_mul(e: &Expr, out: &mut Vec<Expr>, c: &mut i64, ok: &mut bool) {
    match e.kind() {
        ExprKind::Binary(BinOp::Mul, a, b) => {
            unpack_mul(a, out, c, ok);
            unpack_mul(b, out, c, ok);
        }
        ExprKind::Int(v) => match c.checked_mul(*v) {
            Some(n) => *c = n,
            None => *ok = false,
        },
        _ => out.push(e.clone()),
    }
}
