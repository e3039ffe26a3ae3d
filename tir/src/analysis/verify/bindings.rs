//! Which values a block iterator's binding takes, for the domain check.
//!
//! Handles the bindings TVMScript programs are made of: a constant, a loop
//! variable (or an outer block iterator), and affine sums
//! `c0 + Σ ci·vi` of distinct variables with known constant ranges — which
//! covers every fused/split binding such as `i_0 * 16 + i_1 * 4 + i_2`.
//!
//! [`block_coverage`] first asks [`crate::arith::detect_iter_map`] (TVM's
//! `DetectIterMap`: all bindings of a block jointly, splits and fusions with
//! `//` and `%`, predicates `fused < c`); when that succeeds each binding's
//! [`IterSum`](crate::arith::IterSum) is an exact interval *with the predicate
//! applied*. Otherwise each binding goes through the affine analysis above
//! on its own, and the predicate is not accounted for. Anything neither
//! understands (symbolic extents, non-affine forms) is [`Coverage::Unknown`]
//! and the caller skips the check.

use std::collections::HashSet;

use crate::arith::detect_iter_map;
use crate::ir::{BinOp, Expr, ExprKind, Range, Var, VarId};

/// How deep [`affine`] looks into a binding before giving up.
const MAX_DEPTH: usize = 64;

/// The set of values a binding takes over all iterations of its loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Exactly the integers of `[lo, hi)`, each reached once.
    Interval { lo: i128, hi: i128 },
    /// Some values inside `[lo, hi)`, with gaps (e.g. `2 * i`) or reached
    /// more than once (a halo).
    Within { lo: i128, hi: i128 },
    /// Not analysed (non-affine, or a variable with unknown range).
    Unknown,
}

/// `c0 + Σ coef·var`, with distinct variables and non-zero coefficients.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Affine {
    pub constant: i128,
    pub terms: Vec<(VarId, i128)>,
}

impl Affine {
    fn constant(c: i128) -> Affine {
        Affine {
            constant: c,
            terms: Vec::new(),
        }
    }
    fn add(mut self, other: Affine, sign: i128) -> Option<Affine> {
        self.constant = self
            .constant
            .checked_add(other.constant.checked_mul(sign)?)?;
        for (v, c) in other.terms {
            let c = c.checked_mul(sign)?;
            match self.terms.iter_mut().find(|(w, _)| *w == v) {
                Some(slot) => slot.1 = slot.1.checked_add(c)?,
                None => self.terms.push((v, c)),
            }
        }
        self.terms.retain(|(_, c)| *c != 0);
        Some(self)
    }
    fn scale(mut self, k: i128) -> Option<Affine> {
        self.constant = self.constant.checked_mul(k)?;
        for (_, c) in &mut self.terms {
            *c = c.checked_mul(k)?;
        }
        self.terms.retain(|(_, c)| *c != 0);
        Some(self)
    }
    fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.constant)
    }
}

/// The affine form of an integer expression, if it has one.
pub fn affine(e: &Expr) -> Option<Affine> {
    affine_at(e, 0)
}

fn affine_at(e: &Expr, depth: usize) -> Option<Affine> {
    if depth > MAX_DEPTH || !e.dtype().is_integer() || !e.dtype().is_scalar() {
        return None;
    }
    match e.kind() {
        ExprKind::Int(v) => Some(Affine::constant(*v as i128)),
        ExprKind::Var(v) => Some(Affine {
            constant: 0,
            terms: vec![(v.id(), 1)],
        }),
        // Integer widening/narrowing casts of in-range loop values keep the value.
        ExprKind::Cast(x) if x.dtype().is_integer() => affine_at(x, depth + 1),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (affine_at(a, depth + 1)?, affine_at(b, depth + 1)?);
            match op {
                BinOp::Add => a.add(b, 1),
                BinOp::Sub => a.add(b, -1),
                BinOp::Mul => match (a.as_constant(), b.as_constant()) {
                    (_, Some(k)) => a.scale(k),
                    (Some(k), _) => b.scale(k),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// The values `e` takes when each variable `v` ranges over `ranges[v]`
/// (`(min, extent)`, extent ≥ 1).
///
/// Extension point for `crate::arith`'s iter-map analysis: see the module docs.
pub fn binding_coverage(e: &Expr, ranges: impl Fn(VarId) -> Option<(i128, i128)>) -> Coverage {
    let Some(form) = affine(e) else {
        return Coverage::Unknown;
    };
    coverage_of(&form, &ranges).unwrap_or(Coverage::Unknown)
}

fn coverage_of(form: &Affine, ranges: &impl Fn(VarId) -> Option<(i128, i128)>) -> Option<Coverage> {
    let mut lo = form.constant;
    let mut hi = form.constant; // inclusive while summing
                                // (|coefficient|, extent) of the terms that actually vary.
    let mut steps: Vec<(i128, i128)> = Vec::new();
    for (v, c) in &form.terms {
        let (min, ext) = ranges(*v)?;
        if ext < 1 {
            return None;
        }
        let first = c.checked_mul(min)?;
        let last = c.checked_mul(min.checked_add(ext - 1)?)?;
        lo = lo.checked_add(first.min(last))?;
        hi = hi.checked_add(first.max(last))?;
        if ext > 1 {
            steps.push((c.checked_abs()?, ext));
        }
    }
    let hi = hi.checked_add(1)?;
    // The sum of progressions {0, s, 2s, …} is gap-free exactly when, taken
    // by increasing step, each step is at most the length covered so far.
    tessel_ir::sort::ascending(&mut steps);
    let mut covered: i128 = 1;
    // Overlapping progressions (a halo: `i_0 * 128 + ax0` with `ax0 < 130`)
    // reach some values twice: not a one-to-one binding, so only "stays
    // inside the domain" is required of it, as TVM does.
    let mut one_to_one = true;
    for (step, ext) in steps {
        if step > covered {
            return Some(Coverage::Within { lo, hi });
        }
        one_to_one &= step == covered;
        covered = covered.checked_add(step.checked_mul(ext - 1)?)?;
    }
    Some(if one_to_one {
        Coverage::Interval { lo, hi }
    } else {
        Coverage::Within { lo, hi }
    })
}

/// What is known about one binding of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindingCoverage {
    pub coverage: Coverage,
    /// Whether `coverage` already takes the block's predicate into account
    /// (always true for a trivially true predicate).
    pub predicate_applied: bool,
}

/// Deepest binding handed to the (recursive) iter-map detection.
const MAX_ITER_MAP_DEPTH: usize = 48;

/// The coverage of every binding of a block (see the module docs).
pub fn block_coverage(
    values: &[Expr],
    predicate: &Expr,
    ranges: impl Fn(VarId) -> Option<(i128, i128)>,
) -> Vec<BindingCoverage> {
    if let Some(exact) = via_iter_map(values, predicate, &ranges) {
        return exact;
    }
    let trivial = predicate.as_int() == Some(1);
    values
        .iter()
        .map(|e| BindingCoverage {
            coverage: binding_coverage(e, &ranges),
            predicate_applied: trivial,
        })
        .collect()
}

fn via_iter_map(
    values: &[Expr],
    predicate: &Expr,
    ranges: &impl Fn(VarId) -> Option<(i128, i128)>,
) -> Option<Vec<BindingCoverage>> {
    if values.is_empty() {
        return None;
    }
    let mut seen = HashSet::new();
    let mut loops: Vec<(Var, Range)> = Vec::new();
    for e in values.iter().chain(std::iter::once(predicate)) {
        // Bounded: the detection recurses over the expression.
        let mut stack = vec![(e, 0usize)];
        while let Some((x, depth)) = stack.pop() {
            if depth > MAX_ITER_MAP_DEPTH {
                return None;
            }
            if let ExprKind::Var(v) = x.kind() {
                if seen.insert(v.id()) {
                    let (min, ext) = ranges(v.id())?;
                    let (min, ext) = (i64::try_from(min).ok()?, i64::try_from(ext).ok()?);
                    let dt = v.dtype();
                    loops.push((
                        v.clone(),
                        Range::new(Expr::int(min, dt), Expr::int(ext, dt)),
                    ));
                }
            }
            stack.extend(super::children(x).into_iter().map(|c| (c, depth + 1)));
        }
    }
    let map = detect_iter_map(values, &loops, predicate).ok()?;
    if map.indices.len() != values.len() {
        return None;
    }
    map.indices
        .iter()
        .map(|sum| {
            let lo = sum.base as i128;
            Some(BindingCoverage {
                coverage: Coverage::Interval {
                    lo,
                    hi: lo.checked_add(sum.extent as i128)?,
                },
                predicate_applied: true,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DataType, Var};
    use std::collections::HashMap;

    fn v(x: &Var) -> Expr {
        x.to_expr()
    }
    fn c(k: i64) -> Expr {
        Expr::i32(k)
    }

    #[test]
    fn mixed_radix_sums_are_exact() {
        let (i0, i1, i2) = (
            Var::new("i_0", DataType::i32()),
            Var::new("i_1", DataType::i32()),
            Var::new("i_2", DataType::i32()),
        );
        let ranges: HashMap<VarId, (i128, i128)> =
            [(i0.id(), (0, 8)), (i1.id(), (0, 4)), (i2.id(), (0, 4))].into();
        let e = Expr::binary(
            BinOp::Add,
            Expr::binary(
                BinOp::Add,
                Expr::binary(BinOp::Mul, v(&i0), c(16)),
                Expr::binary(BinOp::Mul, v(&i1), c(4)),
            ),
            v(&i2),
        );
        assert_eq!(
            binding_coverage(&e, |v| ranges.get(&v).copied()),
            Coverage::Interval { lo: 0, hi: 128 }
        );
        // 2 * i_0 has gaps.
        let g = Expr::binary(BinOp::Mul, c(2), v(&i0));
        assert_eq!(
            binding_coverage(&g, |v| ranges.get(&v).copied()),
            Coverage::Within { lo: 0, hi: 15 }
        );
        // i_1 + i_2 has no gap but reaches values twice (a halo): only
        // "within [0, 7)" is claimed, so it is never held to full coverage.
        let o = Expr::binary(BinOp::Add, v(&i1), v(&i2));
        assert_eq!(
            binding_coverage(&o, |v| ranges.get(&v).copied()),
            Coverage::Within { lo: 0, hi: 7 }
        );
        // i_0 - i_0 + 3 is the constant 3.
        let z = Expr::binary(BinOp::Add, Expr::binary(BinOp::Sub, v(&i0), v(&i0)), c(3));
        assert_eq!(
            binding_coverage(&z, |v| ranges.get(&v).copied()),
            Coverage::Interval { lo: 3, hi: 4 }
        );
        // Non-affine and unknown ranges are skipped.
        let q = Expr::binary(BinOp::FloorDiv, v(&i0), c(2));
        assert_eq!(
            binding_coverage(&q, |v| ranges.get(&v).copied()),
            Coverage::Unknown
        );
        let n = Var::new("n", DataType::i32());
        assert_eq!(
            binding_coverage(&v(&n), |v| ranges.get(&v).copied()),
            Coverage::Unknown
        );
        // Products beyond i64 are computed exactly (i128, checked).
        let big = Expr::binary(BinOp::Mul, Expr::i64(i64::MAX), Expr::i64(i64::MAX));
        assert!(matches!(
            binding_coverage(&big, |v| ranges.get(&v).copied()),
            Coverage::Interval { .. }
        ));
    }
}
