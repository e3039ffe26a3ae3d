//! Loop-invariant address computation (TVM leaves this to LLVM's LICM; we
//! do it here so every engine — Cranelift, V8's baseline compiler, a WGSL
//! driver — sees cheap inner loops).
//!
//! An index is a sum of terms; each term belongs to the innermost loop whose
//! variable it uses. The terms of outer loops are summed once per iteration
//! of the loop they depend on, in a `let` at the start of its body (the part
//! from yet outer loops in a `let` further out, and so on), and the index in
//! the inner loop adds only its own terms to that variable. Equal partial
//! sums are shared between accesses.

use std::collections::HashMap;

use tessel_tir::arith::expr_deep_equal;
use tessel_tir::ir::mutate::{self, Mutator};
use tessel_tir::ir::{BinOp, Expr, ExprKind, PrimFunc, Stmt, StmtKind, Var, VarId};

pub(super) fn hoist(_func: &PrimFunc, body: &Stmt) -> Stmt {
    let mut h = Hoister {
        frames: vec![Frame::default()],
        level: HashMap::new(),
    };
    let body = h.stmt(body);
    let top = h.frames.pop().unwrap_or_default();
    wrap(body, top.lets)
}

#[derive(Default)]
struct Frame {
    lets: Vec<(Var, Expr)>,
}

struct Hoister {
    /// Frame 0 is the function; frame d the body of the d-th enclosing loop.
    frames: Vec<Frame>,
    /// The frame a variable belongs to (loop variables); `usize::MAX` for
    /// variables that cannot move (`let`s, which are defined mid-body).
    level: HashMap<VarId, usize>,
}

fn wrap(mut body: Stmt, lets: Vec<(Var, Expr)>) -> Stmt {
    for (v, e) in lets.into_iter().rev() {
        body = Stmt::from_kind(StmtKind::Let {
            var: v,
            value: e,
            body,
        });
    }
    body
}

/// A term of a sum, negated or not.
#[derive(Clone)]
struct Term {
    e: Expr,
    neg: bool,
    level: usize,
}

fn collect_terms(e: &Expr, neg: bool, out: &mut Vec<(Expr, bool)>, konst: &mut i64) {
    match e.kind() {
        ExprKind::Binary(BinOp::Add, a, b) => {
            collect_terms(a, neg, out, konst);
            collect_terms(b, neg, out, konst);
        }
        ExprKind::Binary(BinOp::Sub, a, b) => {
            collect_terms(a, neg, out, konst);
            collect_terms(b, !neg, out, konst);
        }
        ExprKind::Int(v) => {
            *konst = if neg {
                konst.wrapping_sub(*v)
            } else {
                konst.wrapping_add(*v)
            }
        }
        _ => out.push((e.clone(), neg)),
    }
}

fn sum(terms: &[(Expr, bool)], konst: i64, dtype: tessel_tir::ir::DataType) -> Expr {
    let mut acc: Option<Expr> = None;
    for (t, neg) in terms {
        acc = Some(match (acc, neg) {
            (None, false) => t.clone(),
            (None, true) => Expr::binary(BinOp::Sub, Expr::int(0, dtype), t.clone()),
            (Some(a), false) => Expr::binary(BinOp::Add, a, t.clone()),
            (Some(a), true) => Expr::binary(BinOp::Sub, a, t.clone()),
        });
    }
    match acc {
        None => Expr::int(konst, dtype),
        Some(a) if konst == 0 => a,
        Some(a) if konst > 0 => Expr::binary(BinOp::Add, a, Expr::int(konst, dtype)),
        Some(a) => Expr::binary(BinOp::Sub, a, Expr::int(konst.wrapping_neg(), dtype)),
    }
}

impl Hoister {
    fn current(&self) -> usize {
        self.frames.len() - 1
    }

    fn term_level(&self, e: &Expr) -> usize {
        let cur = self.current();
        let mut lvl = 0usize;
        e.walk(&mut |x| {
            if let ExprKind::Var(v) = x.kind() {
                let l = self.level.get(&v.id()).copied().unwrap_or(0);
                lvl = lvl.max(if l == usize::MAX { cur } else { l });
            }
            // A load in an index is not hoisted (its memory may change).
            if let ExprKind::Load { .. } = x.kind() {
                lvl = cur;
            }
        });
        lvl.min(cur)
    }

    /// The sum of `terms` (all below the current frame) as an expression
    /// whose outer-loop parts are `let`s in their frames.
    fn materialize(&mut self, terms: &[Term], name: &str) -> Expr {
        let dtype = terms[0].e.dtype();
        let top = terms.iter().map(|t| t.level).max().unwrap_or(0);
        let lower: Vec<Term> = terms.iter().filter(|t| t.level < top).cloned().collect();
        let mut parts: Vec<(Expr, bool)> = Vec::new();
        if !lower.is_empty() {
            parts.push((self.as_var(&lower, name), false));
        }
        parts.extend(
            terms
                .iter()
                .filter(|t| t.level == top)
                .map(|t| (t.e.clone(), t.neg)),
        );
        sum(&parts, 0, dtype)
    }

    /// `terms` as a single variable or `let`-bound sum in the innermost frame
    /// it can live in (a lone variable stays itself).
    fn as_var(&mut self, terms: &[Term], name: &str) -> Expr {
        if let [t] = terms {
            if !t.neg && t.e.as_var().is_some() {
                return t.e.clone();
            }
        }
        let frame = terms.iter().map(|t| t.level).max().unwrap_or(0);
        let value = self.materialize(terms, name);
        if let Some((v, _)) = self.frames[frame]
            .lets
            .iter()
            .find(|(_, e)| expr_deep_equal(e, &value))
        {
            return v.to_expr();
        }
        let v = Var::new(format!("{name}_off"), value.dtype());
        self.level.insert(v.id(), frame);
        self.frames[frame].lets.push((v.clone(), value));
        v.to_expr()
    }

    fn index(&mut self, idx: &Expr, name: &str) -> Expr {
        if let ExprKind::Ramp { base, stride } = idx.kind() {
            let nb = self.index(base, name);
            if nb.same_node(base) {
                return idx.clone();
            }
            return Expr::new(
                ExprKind::Ramp {
                    base: nb,
                    stride: stride.clone(),
                },
                idx.dtype(),
                idx.span(),
            );
        }
        let dt = idx.dtype();
        if !(dt.is_scalar() && dt.is_integer()) || self.current() == 0 {
            return idx.clone();
        }
        let mut raw = Vec::new();
        let mut konst = 0i64;
        collect_terms(idx, false, &mut raw, &mut konst);
        let cur = self.current();
        let terms: Vec<Term> = raw
            .into_iter()
            .map(|(e, neg)| Term {
                level: self.term_level(&e),
                e,
                neg,
            })
            .collect();
        let invariant: Vec<Term> = terms.iter().filter(|t| t.level < cur).cloned().collect();
        let trivial = match invariant.as_slice() {
            [] => true,
            [t] => !t.neg && t.e.as_var().is_some(),
            _ => false,
        };
        if trivial {
            return idx.clone();
        }
        let mut parts: Vec<(Expr, bool)> = vec![(self.as_var(&invariant, name), false)];
        parts.extend(
            terms
                .iter()
                .filter(|t| t.level >= cur)
                .map(|t| (t.e.clone(), t.neg)),
        );
        sum(&parts, konst, dt)
    }
}

impl Mutator for Hoister {
    fn expr(&mut self, e: &Expr) -> Expr {
        let e = mutate::walk_expr(self, e);
        if let ExprKind::Load { buffer, indices } = e.kind() {
            if let [idx] = indices.as_slice() {
                let ni = self.index(idx, &buffer.name);
                if !ni.same_node(idx) {
                    return Expr::new(
                        ExprKind::Load {
                            buffer: buffer.clone(),
                            indices: vec![ni],
                        },
                        e.dtype(),
                        e.span(),
                    );
                }
            }
        }
        e
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::For(l) => {
                let min = self.expr(&l.min);
                let extent = self.expr(&l.extent);
                self.level.insert(l.loop_var.id(), self.frames.len());
                self.frames.push(Frame::default());
                let body = self.stmt(&l.body);
                let frame = self.frames.pop().unwrap_or_default();
                let mut nl = l.clone();
                nl.min = min;
                nl.extent = extent;
                nl.body = wrap(body, frame.lets);
                Stmt::new(StmtKind::For(nl), s.span())
            }
            StmtKind::Let { var, .. } => {
                self.level.insert(var.id(), usize::MAX);
                mutate::walk_stmt(self, s)
            }
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                let value = self.expr(value);
                let indices = match indices.as_slice() {
                    [idx] => vec![self.index(idx, &buffer.name)],
                    _ => indices.clone(),
                };
                Stmt::new(
                    StmtKind::Store {
                        buffer: buffer.clone(),
                        value,
                        indices,
                    },
                    s.span(),
                )
            }
            _ => mutate::walk_stmt(self, s),
        }
    }
}
