//! Typed inspection of a session's globals: the TVM objects a script made
//! (schedules, modules, functions) as Rust values, so hosts learn what a
//! notebook produced without printing and re-parsing it.

use std::rc::Rc;

use crate::bindings::host::{tvm_obj, Obj};
use crate::python::value::Value;
use crate::Interpreter;
use compiler_core::schedule::{Schedule, TraceDialect};
use tessel_ir::printer::Dialect;
use tessel_ir::{IRModule, PrimFunc};

/// A global that holds a TVM object a host can show.
#[derive(Clone, Debug)]
pub enum Inspected {
    /// A `tvm.tir.Schedule`, or the TensorIR schedule a TE schedule
    /// (`te.create_schedule`) was translated into (a copy: the script's own
    /// stays untouched).
    Schedule {
        schedule: Schedule,
        /// The module the schedule was created on.
        original: IRModule,
        /// The dialect `sch.mod` prints in.
        dialect: Dialect,
        /// How `print(sch.trace)` writes the trace.
        trace_dialect: TraceDialect,
    },
    /// An `IRModule`.
    Module { module: IRModule, dialect: Dialect },
    /// A `PrimFunc`, with the name it prints under (its `global_symbol`,
    /// else `main`).
    PrimFunc {
        name: String,
        func: Rc<PrimFunc>,
        dialect: Dialect,
    },
}

impl Interpreter {
    /// The module-level names that hold a schedule, module or PrimFunc, sorted
    /// by name; other values are left out.
    pub fn inspect_globals(&self) -> Vec<(String, Inspected)> {
        let mut found: Vec<(String, Inspected)> = self
            .inner
            .globals
            .iter()
            .filter_map(|(name, value)| Some((name.clone(), inspect(value)?)))
            .collect();
        tessel_ir::sort::by(&mut found, |a, b| a.0.cmp(&b.0));
        found
    }
}

fn inspect(value: &Value) -> Option<Inspected> {
    let Value::Host(obj) = value else {
        return None;
    };
    Some(match tvm_obj(obj) {
        Some(Obj::Schedule(cell)) => {
            let s = cell.borrow();
            Inspected::Schedule {
                schedule: s.sch.clone(),
                original: s.original.clone(),
                dialect: s.ir_dialect,
                trace_dialect: s.sch.dialect,
            }
        }
        // Older TVM's TE schedule: its TensorIR translation.
        Some(Obj::Te(crate::bindings::te::TeObj::Schedule(s))) => {
            let s = s.borrow();
            Inspected::Schedule {
                schedule: s.schedule().clone(),
                original: s.original().clone(),
                dialect: Dialect::Tirx,
                trace_dialect: s.schedule().dialect,
            }
        }
        Some(Obj::IRModule { module, dialect }) => Inspected::Module {
            module: module.borrow().clone(),
            dialect: *dialect,
        },
        Some(Obj::PrimFunc { func, dialect }) => Inspected::PrimFunc {
            name: crate::bindings::tvm::name_of(func).unwrap_or_else(|| "main".into()),
            func: func.clone(),
            dialect: *dialect,
        },
        _ => return None,
    })
}
