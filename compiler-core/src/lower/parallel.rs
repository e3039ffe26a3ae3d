//! `T.parallel` loops → tasks (TVM: the `parallel_launch` closure of
//! `LowerTVMBuiltin`/`codegen_cpu`).
//!
//! Each outermost parallel loop gets the annotation
//! `tessel.parallel_task = id` and a [`ParallelTask`] listing the variables
//! its body captures from the enclosing function (buffer pointers, scalars,
//! enclosing loop variables, hoisted offsets). A backend emits the body as a
//! function of an iteration range `[begin, end)` that reads its captures from
//! a closure record, and the loop as a launch of that function: today one
//! direct call over the whole range on the calling thread; later a host
//! launch that hands sub-ranges to workers sharing the memory. The lowered
//! IR keeps the loop itself, so the interpreter runs it as before.
//!
//! A parallel loop nested in another task runs serially inside it (noted).

use std::collections::HashSet;

use super::{LoweringReport, Result};
use crate::ir::mutate::{self, Mutator};
use crate::ir::{AttrValue, ExprKind, ForKind, PrimFunc, Stmt, StmtKind, Var, VarId};

/// The loop annotation naming a loop's task id.
pub const PARALLEL_TASK_ATTR: &str = "tessel.parallel_task";

/// An outlined parallel loop.
#[derive(Clone, Debug)]
pub struct ParallelTask {
    pub id: usize,
    pub loop_var: Var,
    /// Free variables of the loop (bounds and body), in order of first use:
    /// what the closure record holds. Handle variables are buffer pointers.
    pub captures: Vec<Var>,
}

pub(super) fn outline(
    _func: &PrimFunc,
    body: &Stmt,
    report: &mut LoweringReport,
) -> Result<(Stmt, Vec<ParallelTask>)> {
    let mut o = Outliner {
        tasks: Vec::new(),
        inside: false,
        report,
    };
    let body = o.stmt(body);
    Ok((body, o.tasks))
}

struct Outliner<'r> {
    tasks: Vec<ParallelTask>,
    inside: bool,
    report: &'r mut LoweringReport,
}

impl Mutator for Outliner<'_> {
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let StmtKind::For(l) = s.kind() else {
            return mutate::walk_stmt(self, s);
        };
        if l.kind != ForKind::Parallel {
            return mutate::walk_stmt(self, s);
        }
        let mut nl = l.clone();
        if self.inside {
            self.report.note(format!(
                "loop {}: a parallel loop inside a parallel task runs serially",
                l.loop_var.name()
            ));
            nl.kind = ForKind::Serial;
            nl.body = self.stmt(&l.body);
            return Stmt::new(StmtKind::For(nl), s.span());
        }
        self.inside = true;
        nl.body = self.stmt(&l.body);
        self.inside = false;
        let id = self.tasks.len();
        nl.annotations.insert(
            super::PARALLEL_TASK_ATTR.to_string(),
            AttrValue::Int(id as i64),
        );
        let stmt = Stmt::new(StmtKind::For(nl.clone()), s.span());
        let captures = free_vars(&stmt);
        self.report.note(format!(
            "loop {}: parallel task {id} over its iterations (one thread for now), capturing {}",
            l.loop_var.name(),
            if captures.is_empty() {
                "nothing".to_string()
            } else {
                captures
                    .iter()
                    .map(|v| v.name().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ));
        self.tasks.push(ParallelTask {
            id,
            loop_var: l.loop_var.clone(),
            captures,
        });
        stmt
    }
}

/// Free variables of a lowered statement, in order of first use: variables
/// in expressions, and the data pointers of accessed buffers not allocated
/// inside (plus variables in their offsets).
pub fn free_vars(s: &Stmt) -> Vec<Var> {
    let mut defined: HashSet<VarId> = HashSet::new();
    s.walk(&mut |x| match x.kind() {
        StmtKind::For(l) => {
            defined.insert(l.loop_var.id());
        }
        StmtKind::Let { var, .. } => {
            defined.insert(var.id());
        }
        StmtKind::Allocate { buffer, .. } => {
            defined.insert(buffer.data.id());
        }
        _ => {}
    });
    s.walk(&mut |x| {
        x.for_each_expr(|e| {
            e.walk(&mut |y| {
                if let ExprKind::Let { var, .. } = y.kind() {
                    defined.insert(var.id());
                }
            })
        })
    });
    let mut out: Vec<Var> = Vec::new();
    let mut seen: HashSet<VarId> = HashSet::new();
    let mut note = |v: &Var, out: &mut Vec<Var>| {
        if !defined.contains(&v.id()) && seen.insert(v.id()) {
            out.push(v.clone());
        }
    };
    s.walk(&mut |x| {
        let mut exprs = Vec::new();
        x.for_each_expr(|e| exprs.push(e.clone()));
        if let StmtKind::Store { buffer, .. } = x.kind() {
            note(&buffer.data, &mut out);
            exprs.push(buffer.elem_offset.clone());
        }
        if let StmtKind::Allocate { buffer, .. } = x.kind() {
            exprs.extend(buffer.shape.iter().cloned());
        }
        for e in exprs {
            e.walk(&mut |y| match y.kind() {
                ExprKind::Var(v) => note(v, &mut out),
                ExprKind::Load { buffer, .. } => {
                    note(&buffer.data, &mut out);
                    buffer.elem_offset.walk(&mut |z| {
                        if let ExprKind::Var(v) = z.kind() {
                            note(v, &mut out);
                        }
                    });
                }
                _ => {}
            });
        }
    });
    out
}
