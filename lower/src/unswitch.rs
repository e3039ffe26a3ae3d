//! Loop unswitching (LLVM's `LoopUnswitch`, which TVM's CPU code relies on):
//! an `if` inside a loop whose condition does not change in the loop is
//! decided once, before the loop, which runs in one of two versions.
//!
//! The typical case is the `T.init()` guard of a reduction whose reduction
//! loop is outside the spatial loops (`for k: for i, j: if k == 0: ...`):
//! after unswitching the inner loops carry no branch, and can vectorize.
//!
//! Bounds on code growth: only loops of at most [`MAX_BODY`] statements are
//! unswitched, each loop nest at most [`MAX_DEPTH`] times.

use std::collections::HashSet;

use super::unroll::FreshCopy;
use super::LoweringReport;
use tessel_tir::arith::expr_deep_equal;
use tessel_tir::ir::mutate::{self, Mutator};
use tessel_tir::ir::{Expr, ExprKind, ForKind, Stmt, StmtKind, VarId};

const MAX_BODY: u64 = 256;
const MAX_DEPTH: usize = 2;

pub(super) fn unswitch(body: &Stmt, report: &mut LoweringReport) -> Stmt {
    let mut u = Unswitcher { report, depth: 0 };
    u.stmt(body)
}

struct Unswitcher<'r> {
    report: &'r mut LoweringReport,
    depth: usize,
}

fn count(s: &Stmt) -> u64 {
    let mut n = 0u64;
    s.walk(&mut |_| n += 1);
    n
}

/// Variables defined inside `s` (loops, lets, allocations).
fn defined_in(s: &Stmt) -> HashSet<VarId> {
    let mut d = HashSet::new();
    s.walk(&mut |x| match x.kind() {
        StmtKind::For(l) => {
            d.insert(l.loop_var.id());
        }
        StmtKind::Let { var, .. } => {
            d.insert(var.id());
        }
        StmtKind::Allocate { buffer, .. } => {
            d.insert(buffer.data.id());
        }
        _ => {}
    });
    d
}

/// The first `if` condition in `s` that uses none of `inner` and reads no
/// memory (a load could change inside the loop).
fn invariant_cond(s: &Stmt, inner: &HashSet<VarId>) -> Option<Expr> {
    let mut found: Option<Expr> = None;
    s.walk(&mut |x| {
        if found.is_some() {
            return;
        }
        if let StmtKind::If { cond, .. } = x.kind() {
            let mut ok = true;
            cond.walk(&mut |y| match y.kind() {
                ExprKind::Var(v) if inner.contains(&v.id()) => ok = false,
                ExprKind::Load { .. } | ExprKind::Call { .. } => ok = false,
                _ => {}
            });
            if ok {
                found = Some(cond.clone());
            }
        }
    });
    found
}

/// `s` with every `if cond` decided as `value`.
struct Decide<'a> {
    cond: &'a Expr,
    value: bool,
}

impl Mutator for Decide<'_> {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        if let StmtKind::If {
            cond,
            then,
            otherwise,
        } = s.kind()
        {
            if expr_deep_equal(cond, self.cond) {
                return if self.value {
                    self.stmt(then)
                } else {
                    match otherwise {
                        Some(o) => self.stmt(o),
                        None => Stmt::from_kind(StmtKind::Seq(Vec::new())),
                    }
                };
            }
        }
        mutate::walk_stmt(self, s)
    }
}

impl Mutator for Unswitcher<'_> {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let StmtKind::For(l) = s.kind() else {
            return mutate::walk_stmt(self, s);
        };
        if self.depth < MAX_DEPTH
            && !matches!(l.kind, ForKind::Parallel | ForKind::ThreadBinding)
            && count(&l.body) <= MAX_BODY
        {
            let mut inner = defined_in(&l.body);
            inner.insert(l.loop_var.id());
            if let Some(c) = invariant_cond(&l.body, &inner) {
                let yes = Decide {
                    cond: &c,
                    value: true,
                }
                .stmt(s);
                let no = Decide {
                    cond: &c,
                    value: false,
                }
                .stmt(s);
                // The second copy defines its variables afresh.
                let no = FreshCopy {
                    vars: Default::default(),
                    bufs: Default::default(),
                }
                .stmt(&no);
                self.report.note(format!(
                    "loop {}: unswitched on `{}` (decided once, outside the loop)",
                    l.loop_var.name(),
                    tessel_tir::ir::printer::print_expr(&c)
                ));
                self.depth += 1;
                let yes = self.stmt(&yes);
                let no = self.stmt(&no);
                self.depth -= 1;
                return Stmt::new(
                    StmtKind::If {
                        cond: c,
                        then: yes,
                        otherwise: Some(no),
                    },
                    s.span(),
                );
            }
        }
        mutate::walk_stmt(self, s)
    }
}
