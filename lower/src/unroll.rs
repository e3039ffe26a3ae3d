//! `T.unroll` loops of constant extent → one copy of the body per iteration
//! (TVM: `UnrollLoop` for explicitly unrolled loops). Variables and buffers
//! defined inside the body get fresh identities in every copy, so each is
//! still defined exactly once.

use std::collections::HashMap;

use super::{LoweringReport, Result};
use tessel_tir::ir::mutate::{self, Mutator};
use tessel_tir::ir::{Buffer, BufferId, Expr, ExprKind, ForKind, Stmt, StmtKind, VarId};

pub(super) fn unroll(body: &Stmt, max_stmts: u64, report: &mut LoweringReport) -> Result<Stmt> {
    let mut u = Unroller { max_stmts, report };
    Ok(u.stmt(body))
}

struct Unroller<'r> {
    max_stmts: u64,
    report: &'r mut LoweringReport,
}

fn count_stmts(s: &Stmt) -> u64 {
    let mut n = 0u64;
    s.walk(&mut |_| n += 1);
    n
}

impl Mutator for Unroller<'_> {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let StmtKind::For(l) = s.kind() else {
            return mutate::walk_stmt(self, s);
        };
        let body = self.stmt(&l.body);
        let mut nl = l.clone();
        nl.body = body.clone();
        if l.kind != ForKind::Unrolled {
            return Stmt::new(StmtKind::For(nl), s.span());
        }
        let (Some(min), Some(extent)) = (l.min.as_int(), l.extent.as_int()) else {
            self.report.note(format!(
                "loop {} stays a loop: its bounds are not constant",
                l.loop_var.name()
            ));
            nl.kind = ForKind::Serial;
            return Stmt::new(StmtKind::For(nl), s.span());
        };
        let size = count_stmts(&body).saturating_mul(extent.max(0) as u64);
        if size > self.max_stmts {
            self.report.note(format!(
                "loop {} stays a loop: unrolling would make {size} statements (limit {})",
                l.loop_var.name(),
                self.max_stmts
            ));
            nl.kind = ForKind::Serial;
            return Stmt::new(StmtKind::For(nl), s.span());
        }
        let mut copies = Vec::with_capacity(extent.max(0) as usize);
        for i in min..min.saturating_add(extent.max(0)) {
            let mut f = FreshCopy {
                vars: HashMap::new(),
                bufs: HashMap::new(),
            };
            f.vars
                .insert(l.loop_var.id(), Expr::int(i, l.loop_var.dtype()));
            copies.push(f.stmt(&body));
        }
        Stmt::seq(copies)
    }
}

/// A copy of a statement with its own definitions renamed, and variables
/// substituted per `vars`.
pub(super) struct FreshCopy {
    pub vars: HashMap<VarId, Expr>,
    pub bufs: HashMap<BufferId, Buffer>,
}

impl Mutator for FreshCopy {
    fn expr(&mut self, e: &Expr) -> Expr {
        match e.kind() {
            ExprKind::Var(v) => match self.vars.get(&v.id()) {
                Some(r) => r.clone(),
                None => e.clone(),
            },
            ExprKind::Let { var, value, body } => {
                let value = self.expr(value);
                let nv = var.fresh_copy();
                self.vars.insert(var.id(), nv.to_expr());
                let body = self.expr(body);
                Expr::new(
                    ExprKind::Let {
                        var: nv,
                        value,
                        body,
                    },
                    e.dtype(),
                    e.span(),
                )
            }
            _ => mutate::walk_expr(self, e),
        }
    }

    fn buffer(&mut self, b: &Buffer) -> Buffer {
        self.bufs.get(&b.id()).cloned().unwrap_or_else(|| b.clone())
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::For(l) => {
                let mut nl = l.clone();
                nl.min = self.expr(&l.min);
                nl.extent = self.expr(&l.extent);
                nl.loop_var = l.loop_var.fresh_copy();
                self.vars.insert(l.loop_var.id(), nl.loop_var.to_expr());
                nl.body = self.stmt(&l.body);
                Stmt::new(StmtKind::For(nl), s.span())
            }
            StmtKind::Let { var, value, body } => {
                let value = self.expr(value);
                let nv = var.fresh_copy();
                self.vars.insert(var.id(), nv.to_expr());
                Stmt::new(
                    StmtKind::Let {
                        var: nv,
                        value,
                        body: self.stmt(body),
                    },
                    s.span(),
                )
            }
            StmtKind::Allocate { buffer, body } => {
                let shape: Vec<Expr> = buffer.shape.iter().map(|e| self.expr(e)).collect();
                let nb = buffer.derive(|n| n.shape = shape);
                self.bufs.insert(buffer.id(), nb.clone());
                self.vars.insert(buffer.data.id(), nb.data.to_expr());
                Stmt::new(
                    StmtKind::Allocate {
                        buffer: nb,
                        body: self.stmt(body),
                    },
                    s.span(),
                )
            }
            _ => mutate::walk_stmt(self, s),
        }
    }
}
