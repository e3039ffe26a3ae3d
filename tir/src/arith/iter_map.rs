//! Iter-map detection: are block bindings a bijective quasi-affine function
//! of the surrounding loops, and how is each built from splits and fusions?
//!
//! The practical subset: each binding is a sum of terms
//! `(x // lower) % extent * scale` plus a constant, where `x` is a loop variable or a *fused* sum of
//! loop splits (`(i * 16 + j) // 4`); every loop must be covered exactly once
//! across all bindings (split pieces of one loop must tile it), and each
//! binding's terms must form a mixed-radix number (`i_0 * 16 + i_1 * 4 + i_2`),
//! so it spans `[base, base + extent)` without holes. A predicate
//! `fused < c` (from a non-divisible split) shrinks the extent of the binding
//! whose sum it names. Loop extents must be constants.

use std::collections::HashMap;

use crate::ir::{BinOp, CmpOp, Expr, ExprKind, Range, Var, VarId};

/// What a mark iterates: a loop variable or a fused sum of splits.
#[derive(Clone, Debug)]
pub enum MarkSource {
    Var(Var),
    Fused(IterSum),
}

/// An iterator of `extent` values (`0..extent`).
#[derive(Clone, Debug)]
pub struct IterMark {
    pub source: MarkSource,
    pub extent: i64,
}

/// `(mark // lower_factor) % extent * scale`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterSplit {
    /// Index into [`IterMap::marks`].
    pub mark: usize,
    pub lower_factor: i64,
    pub extent: i64,
    pub scale: i64,
}

/// `sum(args) + base`, taking every value of `[base, base + extent)` once.
/// `args` are ordered by decreasing scale (outermost first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterSum {
    pub args: Vec<IterSplit>,
    pub base: i64,
    pub extent: i64,
}

/// The structure of a list of bindings.
#[derive(Clone, Debug)]
pub struct IterMap {
    /// One mark per loop (in `loop_ranges` order), then the fused marks.
    pub marks: Vec<IterMark>,
    /// One sum per binding.
    pub indices: Vec<IterSum>,
}

impl IterMap {
    /// The loop variables a binding depends on (through splits and fusions).
    pub fn vars_of(&self, index: usize) -> Vec<Var> {
        let mut out = Vec::new();
        if let Some(sum) = self.indices.get(index) {
            self.collect_vars(sum, &mut out);
        }
        out
    }
    fn collect_vars(&self, sum: &IterSum, out: &mut Vec<Var>) {
        for a in &sum.args {
            match self.marks.get(a.mark).map(|m| &m.source) {
                Some(MarkSource::Var(v)) if !out.contains(v) => out.push(v.clone()),
                Some(MarkSource::Var(_)) => {}
                Some(MarkSource::Fused(s)) => self.collect_vars(s, out),
                None => {}
            }
        }
    }
}

struct Detector {
    marks: Vec<IterMark>,
    loops: HashMap<VarId, (usize, i64)>,
}

/// Why [`detect_iter_map`] found no bijective affine map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterMapError {
    pub kind: IterMapErrorKind,
    pub message: String,
}

/// The rule an iter map broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IterMapErrorKind {
    /// A split's factor does not divide the iterator's extent.
    NotDivisible,
    /// A loop is covered by the bindings only in part.
    PartlyCovered,
    /// Anything else: a non-affine term, overlapping splits, a non-constant
    /// range, an unsupported predicate.
    NotAffine,
}

impl std::fmt::Display for IterMapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<&str> for IterMapError {
    fn from(message: &str) -> IterMapError {
        IterMapError {
            kind: IterMapErrorKind::NotAffine,
            message: message.to_string(),
        }
    }
}

fn err_of<T>(kind: IterMapErrorKind, message: impl Into<String>) -> Result<T, IterMapError> {
    Err(IterMapError {
        kind,
        message: message.into(),
    })
}

fn err<T>(message: impl Into<String>) -> Result<T, IterMapError> {
    err_of(IterMapErrorKind::NotAffine, message)
}

impl Detector {
    fn parse(&mut self, e: &Expr) -> Result<IterSum, IterMapError> {
        match e.kind() {
            ExprKind::Int(v) => Ok(IterSum {
                args: vec![],
                base: *v,
                extent: 1,
            }),
            ExprKind::Var(v) => {
                let Some(&(mark, min)) = self.loops.get(&v.id()) else {
                    return err(format!(
                        "`{}` is not a loop variable of the block's scope",
                        v.name()
                    ));
                };
                let extent = self.marks[mark].extent;
                if extent == 1 {
                    return Ok(IterSum {
                        args: vec![],
                        base: min,
                        extent: 1,
                    });
                }
                Ok(IterSum {
                    args: vec![IterSplit {
                        mark,
                        lower_factor: 1,
                        extent,
                        scale: 1,
                    }],
                    base: min,
                    extent,
                })
            }
            ExprKind::Binary(op, a, b) => match op {
                BinOp::Add | BinOp::Sub => {
                    let mut x = self.parse(a)?;
                    let y = self.parse(b)?;
                    let s = if *op == BinOp::Add { 1 } else { -1 };
                    for mut t in y.args {
                        t.scale = t.scale.checked_mul(s).ok_or("overflow")?;
                        x.args.push(t);
                    }
                    x.base = x
                        .base
                        .checked_add(y.base.checked_mul(s).ok_or("overflow")?)
                        .ok_or("overflow")?;
                    Ok(x)
                }
                BinOp::Mul => {
                    let (x, c) = match (a.as_int(), b.as_int()) {
                        (_, Some(c)) => (a, c),
                        (Some(c), _) => (b, c),
                        _ => return err("product of two iterators is not affine"),
                    };
                    let mut s = self.parse(x)?;
                    if c == 0 {
                        return Ok(IterSum {
                            args: vec![],
                            base: 0,
                            extent: 1,
                        });
                    }
                    for t in &mut s.args {
                        t.scale = t.scale.checked_mul(c).ok_or("overflow")?;
                    }
                    s.base = s.base.checked_mul(c).ok_or("overflow")?;
                    Ok(s)
                }
                BinOp::FloorDiv | BinOp::FloorMod => {
                    let Some(c) = b.as_int().filter(|c| *c > 0) else {
                        return err("division by a non-constant or non-positive value");
                    };
                    let s = self.parse(a)?;
                    let is_div = *op == BinOp::FloorDiv;
                    // Every term divisible: exact.
                    if s.args.iter().all(|t| t.scale % c == 0) {
                        if is_div {
                            if s.base % c == 0 || s.args.is_empty() {
                                let mut s = s;
                                for t in &mut s.args {
                                    t.scale /= c;
                                }
                                s.base = s.base.div_euclid(c);
                                return Ok(s);
                            }
                        } else {
                            return Ok(IterSum {
                                args: vec![],
                                base: s.base.rem_euclid(c),
                                extent: 1,
                            });
                        }
                    }
                    let t = self.single_split(s)?;
                    let Some(t) = t else {
                        return Ok(IterSum {
                            args: vec![],
                            base: 0,
                            extent: 1,
                        });
                    };
                    let r = if is_div {
                        if t.extent <= c {
                            None
                        } else if t.extent % c == 0 {
                            Some(IterSplit {
                                lower_factor: t.lower_factor.checked_mul(c).ok_or("overflow")?,
                                extent: t.extent / c,
                                ..t
                            })
                        } else {
                            return err_of(
                                IterMapErrorKind::NotDivisible,
                                format!("iterator of extent {} is not divisible by {c}", t.extent),
                            );
                        }
                    } else if t.extent <= c {
                        Some(t)
                    } else if t.extent % c == 0 {
                        Some(IterSplit { extent: c, ..t })
                    } else {
                        return err_of(
                            IterMapErrorKind::NotDivisible,
                            format!("iterator of extent {} is not divisible by {c}", t.extent),
                        );
                    };
                    Ok(match r {
                        Some(t) => IterSum {
                            extent: t.extent,
                            args: vec![t],
                            base: 0,
                        },
                        None => IterSum {
                            args: vec![],
                            base: 0,
                            extent: 1,
                        },
                    })
                }
                _ => err("binding is not a quasi-affine expression of the loops"),
            },
            _ => err("binding is not a quasi-affine expression of the loops"),
        }
    }

    /// A sum with base 0 as one split of scale 1: the sum itself when it has
    /// one term of scale 1, else a new fused mark over its terms.
    fn single_split(&mut self, s: IterSum) -> Result<Option<IterSplit>, IterMapError> {
        if s.base != 0 {
            return err("a split of an iterator with an offset is not supported");
        }
        let s = normalize(s)?;
        if s.args.is_empty() {
            return Ok(None);
        }
        if s.args.len() == 1 && s.args[0].scale == 1 {
            return Ok(Some(s.args[0].clone()));
        }
        let extent = s.extent;
        // The same fused sum split twice (`f // 128`, `f % 128`) is one mark.
        if let Some(mark) = self.marks.iter().position(|m| match &m.source {
            MarkSource::Fused(f) => *f == s,
            MarkSource::Var(_) => false,
        }) {
            return Ok(Some(IterSplit {
                mark,
                lower_factor: 1,
                extent,
                scale: 1,
            }));
        }
        self.marks.push(IterMark {
            source: MarkSource::Fused(s),
            extent,
        });
        Ok(Some(IterSplit {
            mark: self.marks.len() - 1,
            lower_factor: 1,
            extent,
            scale: 1,
        }))
    }
}

/// Merges adjacent splits of one mark, orders terms by decreasing scale and
/// checks they form a mixed-radix number; sets the extent.
fn normalize(mut s: IterSum) -> Result<IterSum, IterMapError> {
    s.args.retain(|t| t.scale != 0 && t.extent != 1);
    if s.args.iter().any(|t| t.scale < 0) {
        return err("binding decreases with a loop (negative coefficient)");
    }
    tessel_ir::sort::by_key(&mut s.args, |a| a.scale);
    // Merge (m // l) % e * s + (m // (l*e)) % e2 * (s*e) → (m // l) % (e*e2) * s.
    let mut i = 0;
    while i + 1 < s.args.len() {
        let (a, b) = (&s.args[i], &s.args[i + 1]);
        if a.mark == b.mark
            && a.lower_factor.checked_mul(a.extent) == Some(b.lower_factor)
            && a.scale.checked_mul(a.extent) == Some(b.scale)
        {
            let merged = IterSplit {
                mark: a.mark,
                lower_factor: a.lower_factor,
                extent: a.extent.checked_mul(b.extent).ok_or("overflow")?,
                scale: a.scale,
            };
            s.args[i] = merged;
            s.args.remove(i + 1);
        } else {
            i += 1;
        }
    }
    let mut expected = match s.args.first() {
        Some(t) => t.scale,
        None => {
            s.extent = 1;
            return Ok(s);
        }
    };
    let unit = expected;
    for t in &s.args {
        if t.scale != expected {
            return err("binding terms overlap or leave holes (not a mixed-radix sum)");
        }
        expected = expected.checked_mul(t.extent).ok_or("overflow")?;
    }
    if unit != 1 {
        return err("binding is strided (its smallest coefficient is not 1)");
    }
    s.extent = expected;
    s.args.reverse();
    Ok(s)
}

fn flatten_and(e: &Expr, out: &mut Vec<Expr>) {
    if let ExprKind::And(a, b) = e.kind() {
        flatten_and(a, out);
        flatten_and(b, out);
    } else {
        out.push(e.clone());
    }
}

/// Decides whether `bindings` are a bijective quasi-affine map of the loops
/// in `loop_ranges` (under `predicate`), returning each binding's structure.
pub fn detect_iter_map(
    bindings: &[Expr],
    loop_ranges: &[(Var, Range)],
    predicate: &Expr,
) -> Result<IterMap, IterMapError> {
    let mut d = Detector {
        marks: Vec::new(),
        loops: HashMap::new(),
    };
    for (v, r) in loop_ranges {
        let (Some(min), Some(extent)) = (r.min.as_int(), r.extent.as_int()) else {
            return err(format!("loop `{}` has a non-constant range", v.name()));
        };
        if extent <= 0 {
            return err(format!("loop `{}` has an empty range", v.name()));
        }
        d.loops.insert(v.id(), (d.marks.len(), min));
        d.marks.push(IterMark {
            source: MarkSource::Var(v.clone()),
            extent,
        });
    }
    let mut indices = Vec::new();
    for b in bindings {
        let s = d.parse(b)?;
        indices.push(normalize(s)?);
    }
    // The predicate: conjuncts `sum < c` restrict the binding with that sum.
    let mut conds = Vec::new();
    flatten_and(predicate, &mut conds);
    for c in conds {
        if c.as_int().is_some_and(|v| v != 0) {
            continue;
        }
        let (lhs, bound) = match c.kind() {
            ExprKind::Cmp(CmpOp::Lt, a, b) if b.as_int().is_some() => (a, b.as_int().unwrap_or(0)),
            ExprKind::Cmp(CmpOp::Le, a, b) if b.as_int().is_some() => {
                (a, b.as_int().unwrap_or(0).saturating_add(1))
            }
            _ => return err("unsupported predicate (expected `fused < constant` conjuncts)"),
        };
        let marks_before = d.marks.len();
        let s = normalize(d.parse(lhs)?)?;
        d.marks.truncate(marks_before);
        let limit = bound.saturating_sub(s.base);
        let mut matched = false;
        for idx in &mut indices {
            if idx.args == s.args {
                matched = true;
                if limit < idx.extent {
                    idx.extent = limit.max(0);
                }
            }
        }
        if !matched {
            return err("the predicate does not bound any binding");
        }
    }
    // Every loop covered exactly once: the splits of a mark tile it.
    let mut pieces: Vec<Vec<(i64, i64)>> = vec![Vec::new(); d.marks.len()];
    fn collect(sum: &IterSum, marks: &[IterMark], pieces: &mut [Vec<(i64, i64)>]) {
        for t in &sum.args {
            pieces[t.mark].push((t.lower_factor, t.extent));
        }
        let _ = marks;
    }
    for idx in &indices {
        collect(idx, &d.marks, &mut pieces);
    }
    for m in &d.marks {
        if let MarkSource::Fused(s) = &m.source {
            collect(s, &d.marks, &mut pieces);
        }
    }
    for (mi, p) in pieces.iter_mut().enumerate() {
        if p.is_empty() {
            continue;
        }
        tessel_ir::sort::ascending(p);
        let mut expect = 1i64;
        for &(lower, extent) in p.iter() {
            if lower != expect {
                return err(format!(
                    "{} is used in overlapping or incomplete splits",
                    mark_name(&d.marks, mi)
                ));
            }
            expect = expect.checked_mul(extent).ok_or("overflow")?;
        }
        if expect != d.marks[mi].extent {
            return err_of(
                IterMapErrorKind::PartlyCovered,
                format!(
                    "{} is only partly covered by the bindings",
                    mark_name(&d.marks, mi)
                ),
            );
        }
    }
    Ok(IterMap {
        marks: d.marks,
        indices,
    })
}

fn mark_name(marks: &[IterMark], i: usize) -> String {
    match &marks[i].source {
        MarkSource::Var(v) => format!("loop `{}`", v.name()),
        MarkSource::Fused(_) => "a fused iterator".to_string(),
    }
}
