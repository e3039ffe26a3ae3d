//! Loop-range-aware simplification (TVM: `Simplify` with the loop domains
//! bound): indices, conditions, extents and `let` values go through
//! [`Analyzer::simplify`]; provably true or false `if`s keep one branch;
//! loops of extent 1 disappear (their variable replaced by the start);
//! loops that never run and unused `let`s go.

use std::collections::HashMap;

use tessel_tir::arith::Analyzer;
use tessel_tir::ir::mutate::{self, substitute_stmt, Mutator};
use tessel_tir::ir::visit::{VarCollector, Visitor};
use tessel_tir::ir::{Expr, ExprKind, PrimFunc, Range, Stmt, StmtKind};

pub(super) fn simplify(func: &PrimFunc, body: &Stmt) -> Stmt {
    let mut ana = Analyzer::new();
    // Sizes of parameters are never negative.
    for p in super::size_params(func) {
        ana.bind_bound(&p.var, 0, i32::MAX as i64);
    }
    Simp { ana }.stmt(body)
}

pub(super) struct Simp {
    pub ana: Analyzer,
}

fn is_int_scalar(e: &Expr) -> bool {
    let dt = e.dtype();
    dt.is_scalar() && (dt.is_integer() || dt.is_bool())
}

fn empty() -> Stmt {
    Stmt::from_kind(StmtKind::Seq(Vec::new()))
}

fn is_empty(s: &Stmt) -> bool {
    matches!(s.kind(), StmtKind::Seq(v) if v.is_empty())
}

impl Mutator for Simp {
    fn expr(&mut self, e: &Expr) -> Expr {
        // Leaves: nothing to do.
        if matches!(
            e.kind(),
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_)
        ) {
            return e.clone();
        }
        let e = mutate::walk_expr(self, e);
        if is_int_scalar(&e) && !has_load(&e) {
            return self.ana.simplify(&e);
        }
        e
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let span = s.span();
        match s.kind() {
            StmtKind::For(l) => {
                let min = self.expr(&l.min);
                let extent = self.expr(&l.extent);
                if let Some(n) = extent.as_int() {
                    if n <= 0 {
                        return empty();
                    }
                    if n == 1 {
                        let mut map = HashMap::new();
                        map.insert(l.loop_var.id(), min.clone());
                        return self.stmt(&substitute_stmt(&l.body, &map));
                    }
                }
                self.ana
                    .bind(&l.loop_var, &Range::new(min.clone(), extent.clone()));
                let body = self.stmt(&l.body);
                self.ana.unbind(&l.loop_var);
                if is_empty(&body) {
                    return empty();
                }
                let mut nl = l.clone();
                nl.min = min;
                nl.extent = extent;
                nl.body = body;
                Stmt::new(StmtKind::For(nl), span)
            }
            StmtKind::Let { var, value, body } => {
                let value = self.expr(value);
                let trivial = value.as_int().is_some() || value.as_var().is_some();
                if trivial {
                    let mut map = HashMap::new();
                    map.insert(var.id(), value);
                    return self.stmt(&substitute_stmt(body, &map));
                }
                if let Some((lo, hi)) = self.ana.const_int_bound(&value) {
                    self.ana.bind_bound(var, lo, hi);
                }
                let body = self.stmt(body);
                self.ana.unbind(var);
                if !stmt_uses(&body, var) {
                    return body;
                }
                Stmt::new(
                    StmtKind::Let {
                        var: var.clone(),
                        value,
                        body,
                    },
                    span,
                )
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.expr(cond);
                if let Some(c) = cond.as_int() {
                    return if c != 0 {
                        self.stmt(then)
                    } else {
                        match otherwise {
                            Some(o) => self.stmt(o),
                            None => empty(),
                        }
                    };
                }
                let then = self.stmt(then);
                let otherwise = otherwise.as_ref().map(|o| self.stmt(o));
                let otherwise = otherwise.filter(|o| !is_empty(o));
                if is_empty(&then) && otherwise.is_none() {
                    return empty();
                }
                Stmt::new(
                    StmtKind::If {
                        cond,
                        then,
                        otherwise,
                    },
                    span,
                )
            }
            StmtKind::Seq(v) => {
                let items: Vec<Stmt> = v
                    .iter()
                    .map(|x| self.stmt(x))
                    .filter(|x| !is_empty(x))
                    .collect();
                match items.len() {
                    0 => empty(),
                    1 => items.into_iter().next().unwrap_or_else(empty),
                    _ => Stmt::new(StmtKind::Seq(flatten_seq(items)), span),
                }
            }
            StmtKind::Allocate { buffer, body } => {
                let body = self.stmt(body);
                if is_empty(&body) {
                    return empty();
                }
                Stmt::new(
                    StmtKind::Allocate {
                        buffer: buffer.clone(),
                        body,
                    },
                    span,
                )
            }
            _ => mutate::walk_stmt(self, s),
        }
    }
}

fn flatten_seq(items: Vec<Stmt>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(items.len());
    for s in items {
        match s.kind() {
            StmtKind::Seq(inner) => out.extend(inner.iter().cloned()),
            _ => out.push(s),
        }
    }
    out
}

fn has_load(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x.kind(), ExprKind::Load { .. } | ExprKind::Call { .. }));
    found
}

/// Whether `v` is used in `s`, allocation shapes included.
pub(super) fn stmt_uses(s: &Stmt, v: &tessel_tir::ir::Var) -> bool {
    struct WithAllocationShapes(VarCollector);
    impl Visitor for WithAllocationShapes {
        fn visit_var(&mut self, var: &tessel_tir::ir::Var) {
            self.0.note(var);
        }
        fn visit_buffer_def(&mut self, buffer: &tessel_tir::ir::Buffer) {
            for e in &buffer.shape {
                self.visit_expr(e);
            }
        }
    }
    let mut c = WithAllocationShapes(VarCollector::default());
    c.visit_stmt(s);
    c.0.seen.contains(&v.id())
}
