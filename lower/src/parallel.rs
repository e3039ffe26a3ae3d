//! `T.parallel` loops → tasks (TVM: the `parallel_launch` closure of
//! `LowerTVMBuiltin`/`codegen_cpu`).
//!
//! Each outermost parallel loop gets the annotation
//! `tessel.parallel_task = id` and a [`ParallelTask`] listing the variables
//! its body captures from the enclosing function (buffer pointers, scalars,
//! enclosing loop variables, hoisted offsets). A backend emits the body as a
//! function of an iteration range `[begin, end)` that reads its captures from
//! a closure record, and the loop as a launch of that function: one direct
//! call over the whole range, or a host launch that hands sub-ranges to
//! threads sharing the memory. The lowered IR keeps the loop itself, so the
//! interpreter runs it as before.
//!
//! A parallel loop nested in another task runs serially inside it (noted).
//!
//! Since iterations may run at the same time, a loop whose iterations all
//! store to the same elements of a buffer they share is refused
//! ([`check_races`]): the schedule's `parallel` refuses reduction loops, but
//! a hand-written `T.parallel` reaches the backend as it is.

use std::collections::HashSet;

use super::{LowerError, LoweringReport, Result};
use tessel_tir::diag::Span;
use tessel_tir::ir::mutate::{self, Mutator};
use tessel_tir::ir::visit::{expr_vars, walk_expr, walk_stmt, VarCollector, Visitor};
use tessel_tir::ir::For;
use tessel_tir::ir::{
    AttrValue, Buffer, Expr, ExprKind, ForKind, PrimFunc, Stmt, StmtKind, Var, VarId,
};

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
        race: None,
    };
    let body = o.stmt(body);
    match o.race {
        Some(e) => Err(e),
        None => Ok((body, o.tasks)),
    }
}

struct Outliner<'r> {
    tasks: Vec<ParallelTask>,
    inside: bool,
    report: &'r mut LoweringReport,
    /// The first race found.
    race: Option<LowerError>,
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
        if self.race.is_none() {
            self.race = check_races(l, s.span()).err();
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
            "loop {}: parallel task {id} over its iterations, capturing {}",
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
    // A definition anywhere in `s` hides the variable everywhere in it.
    let mut definitions = Definitions::default();
    definitions.visit_stmt(s);
    let mut uses = FreeUses {
        defined: definitions.0,
        found: VarCollector::default(),
    };
    uses.visit_stmt(s);
    uses.found.vars
}

/// Loop and let variables, and the data pointers of allocations.
#[derive(Default)]
struct Definitions(HashSet<VarId>);

impl Visitor for Definitions {
    fn visit_var_def(&mut self, var: &Var) {
        self.0.insert(var.id());
    }
    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        self.0.insert(buffer.data.id());
    }
}

/// Uses of variables not in `defined`, counting a load or store as a use of
/// the buffer's data pointer and offset, and an allocation as one of its shape.
struct FreeUses {
    defined: HashSet<VarId>,
    found: VarCollector,
}

impl FreeUses {
    fn note(&mut self, var: &Var) {
        if !self.defined.contains(&var.id()) {
            self.found.note(var);
        }
    }
}

impl Visitor for FreeUses {
    fn visit_var(&mut self, var: &Var) {
        self.note(var);
    }
    fn visit_expr(&mut self, e: &Expr) {
        if let ExprKind::Load { buffer, .. } = e.kind() {
            self.note(&buffer.data);
            for var in expr_vars(&buffer.elem_offset) {
                self.note(&var);
            }
        }
        walk_expr(self, e);
    }
    fn visit_stmt(&mut self, s: &Stmt) {
        match s.kind() {
            StmtKind::Store { buffer, .. } => {
                self.note(&buffer.data);
                walk_stmt(self, s);
                self.visit_expr(&buffer.elem_offset);
            }
            StmtKind::Allocate { buffer, .. } => {
                for e in &buffer.shape {
                    self.visit_expr(e);
                }
                walk_stmt(self, s);
            }
            _ => walk_stmt(self, s),
        }
    }
}

/// Refuses the parallel loop `l` when its iterations would race: a store
/// to a buffer allocated outside the loop whose index does not depend on
/// the loop variable (through let-bound offsets and inner loop bounds
/// either), and that no condition on the loop variable guards, writes the
/// same elements in every iteration.
pub fn check_races(l: &For, span: Span) -> Result<()> {
    if l.extent.as_int().is_some_and(|e| e <= 1) {
        return Ok(());
    }
    let mut c = RaceFinder {
        dependent: HashSet::from([l.loop_var.id()]),
        private: HashSet::new(),
        guarded: 0,
        found: None,
    };
    c.stmt(&l.body);
    match c.found {
        None => Ok(()),
        Some((buffer, at)) => {
            let v = l.loop_var.name();
            Err(LowerError::new(
                format!(
                    "parallel loop {v}: every iteration writes the same elements of {buffer} \
                     (the index does not depend on {v}), so iterations running on several \
                     threads would race; parallelize a loop that every store's index depends \
                     on, or keep {v} serial"
                ),
                if at == Span::default() { span } else { at },
            ))
        }
    }
}

struct RaceFinder {
    /// The loop variable and the variables whose values depend on it.
    dependent: HashSet<VarId>,
    /// Data pointers of buffers allocated inside the loop (each iteration's).
    private: HashSet<VarId>,
    /// Depth of conditions that depend on the loop variable.
    guarded: usize,
    found: Option<(String, Span)>,
}

impl RaceFinder {
    fn depends(&self, e: &Expr) -> bool {
        expr_vars(e)
            .iter()
            .any(|v| self.dependent.contains(&v.id()))
    }

    fn stmt(&mut self, s: &Stmt) {
        if self.found.is_some() {
            return;
        }
        match s.kind() {
            StmtKind::For(f) => {
                if self.depends(&f.min) || self.depends(&f.extent) {
                    self.dependent.insert(f.loop_var.id());
                }
                self.stmt(&f.body);
            }
            StmtKind::Let { var, value, body } => {
                if self.depends(value) {
                    self.dependent.insert(var.id());
                }
                self.stmt(body);
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let guard = self.depends(cond);
                self.guarded += usize::from(guard);
                self.stmt(then);
                if let Some(o) = otherwise {
                    self.stmt(o);
                }
                self.guarded -= usize::from(guard);
            }
            StmtKind::Allocate { buffer, body } => {
                self.private.insert(buffer.data.id());
                self.stmt(body);
            }
            StmtKind::Seq(items) => items.iter().for_each(|i| self.stmt(i)),
            StmtKind::BlockRealize(r) => self.stmt(&r.block.body),
            StmtKind::Store {
                buffer, indices, ..
            } => {
                if self.guarded == 0
                    && !self.private.contains(&buffer.data.id())
                    && !indices.iter().any(|i| self.depends(i))
                {
                    self.found = Some((buffer.name.to_string(), s.span()));
                }
            }
            StmtKind::Evaluate(_) => {}
        }
    }
}
