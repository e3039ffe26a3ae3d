//! The step-through: the module after every instruction of a schedule's
//! trace that changed it, as the schedule recorded them.

use compiler_core::ir::{BaseFunc, IRModule};
use compiler_core::schedule::tensorize::TensorIntrinTable;
use compiler_core::schedule::trace::TraceDialect;
use compiler_core::schedule::Schedule;
use compiler_core::tvmscript::printer::Dialect;

use crate::Snapshot;

/// What a schedule starts from: the module, the print dialects and the
/// tensor intrinsics `tensorize` may name.
#[derive(Clone)]
pub(crate) struct ScheduleStart {
    pub module: IRModule,
    pub dialect: Dialect,
    pub trace_dialect: TraceDialect,
    pub intrins: TensorIntrinTable,
}

impl ScheduleStart {
    /// A fresh schedule on the module; `None` when the module cannot be
    /// scheduled (no function).
    pub fn schedule(&self) -> Option<Schedule> {
        let mut s = Schedule::new(self.module.clone()).ok()?;
        s.dialect = self.trace_dialect;
        s.ir_dialect = self.dialect;
        s.set_tensor_intrins(self.intrins.clone());
        Some(s)
    }
}

/// The module after each instruction of the schedule's trace that changed
/// it (the original not included), as the schedule recorded them while it
/// ran: the step-through applies no primitive a second time.
pub(crate) fn recorded_steps(start: &IRModule, schedule: &Schedule) -> Vec<Snapshot> {
    let mut snapshots = Vec::new();
    let mut pending: Vec<usize> = Vec::new();
    let mut last = start;
    let instructions = &schedule.trace().instructions;
    for (i, (inst, module)) in instructions
        .iter()
        .zip(schedule.modules_after())
        .enumerate()
    {
        pending.push(i + 1);
        if !same_module(last, module) {
            last = module;
            snapshots.push(Snapshot {
                label: inst.python(),
                instructions: std::mem::take(&mut pending),
                module: module.clone(),
            });
        }
    }
    snapshots
}

/// Whether two modules share every function (schedules rebuild only what
/// they change, so an unchanged function is the same allocation).
fn same_module(a: &IRModule, b: &IRModule) -> bool {
    a.functions.len() == b.functions.len()
        && a.functions
            .iter()
            .zip(&b.functions)
            .all(|((na, fa), (nb, fb))| {
                na == nb
                    && match (fa, fb) {
                        (BaseFunc::Prim(x), BaseFunc::Prim(y)) => std::rc::Rc::ptr_eq(x, y),
                        #[allow(unreachable_patterns)]
                        _ => false,
                    }
            })
}
