//! The step-through: a schedule's trace replayed instruction by instruction
//! on its original module, keeping the module after every instruction that
//! changed it.

use compiler_core::ir::{BaseFunc, IRModule};
use compiler_core::schedule::tensorize::TensorIntrinTable;
use compiler_core::schedule::trace::{Trace, TraceDialect};
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

/// The module after each instruction of `trace` that changed it (the
/// original not included); stops at the first instruction that does not
/// replay.
pub(crate) fn replay_steps(start: &ScheduleStart, trace: &Trace) -> Vec<Snapshot> {
    let mut snapshots = Vec::new();
    let Some(mut step) = start.schedule() else {
        return snapshots;
    };
    let mut pending: Vec<usize> = Vec::new();
    let mut last = start.module.clone();
    for (i, inst) in trace.instructions.iter().enumerate() {
        pending.push(i + 1);
        let one = Trace {
            instructions: vec![inst.clone()],
        };
        if step.replay(&one, false).is_err() {
            // Handles should number identically on a fresh schedule; if not,
            // replay the whole prefix instead.
            let prefix = Trace {
                instructions: trace.instructions[..=i].to_vec(),
            };
            let Some(mut fresh) = start.schedule() else {
                break;
            };
            if fresh.replay(&prefix, false).is_err() {
                break;
            }
            step = fresh;
        }
        if !same_module(&last, step.module()) {
            last = step.module().clone();
            snapshots.push(Snapshot {
                label: inst.python(),
                instructions: std::mem::take(&mut pending),
                module: last.clone(),
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
