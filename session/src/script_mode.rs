//! Script mode: a TVMScript module, its tensor-intrinsic sections, then
//! schedule calls; parsed and scheduled directly, every step kept.

use std::rc::Rc;

use compiler_core::diag::{Diagnostic, Span};
use compiler_core::ir::{IRModule, PrimFunc};
use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::tensorize::TensorIntrinTable;
use compiler_core::schedule::trace::TraceDialect;
use compiler_core::tvmscript::printer::Dialect;

use crate::sections::split_script;
use crate::steps::{recorded_steps, ScheduleStart};
use crate::{tvmscript, Mode, ScriptOutcome, Snapshot};

/// The trace dialect that goes with a module's print dialect: S-TIR
/// (`s_tir.Schedule`) for `T.sblock`/`tirx` modules, TIR for `T.block`.
pub(crate) fn trace_dialect_of(dialect: Dialect) -> TraceDialect {
    if dialect == Dialect::Block {
        TraceDialect::Tir
    } else {
        TraceDialect::STir
    }
}

/// The module as the first snapshot.
pub(crate) fn original(module: IRModule) -> Snapshot {
    Snapshot {
        label: "original".into(),
        instructions: vec![],
        module,
    }
}

pub(crate) fn script_mode(source: &str) -> ScriptOutcome {
    let mut out = ScriptOutcome {
        mode: Mode::Script,
        ..ScriptOutcome::default()
    };
    let sections = split_script(source);
    let parsed = match tvmscript::parse(&sections.module) {
        Ok(p) => p,
        Err(d) => {
            out.errors.push(d);
            return out;
        }
    };
    out.dialect = Dialect::from(parsed.dialect);
    out.trace_dialect = trace_dialect_of(out.dialect);
    let module = parsed.to_module();
    if module.functions.is_empty() {
        out.errors.push(
            Diagnostic::error(
                "the script defines no TVMScript function or module",
                Span::new(0, 0),
            )
            .with_note("start with `@T.prim_func def …` or `@I.ir_module class …`"),
        );
        return out;
    }
    out.errors
        .extend(tvmscript::check_module(&module, parsed.api_generation()));
    out.module_snapshots.push(original(module.clone()));
    if out.errors.iter().any(|d| d.is_error()) {
        return out;
    }
    let Some(sched_src) = &sections.schedule else {
        return out;
    };
    let intrins = match register_intrins(&sections.intrins) {
        Ok(table) => table,
        Err(d) => {
            out.errors.push(d);
            return out;
        }
    };
    let start = ScheduleStart {
        module,
        dialect: out.dialect,
        trace_dialect: out.trace_dialect,
        intrins,
    };
    let Some(mut sch) = start.schedule() else {
        return out;
    };
    match (run_python(&mut sch, sched_src), &sections.expect_error) {
        (Err(d), Some(expected)) if d.message.contains(expected.as_str()) => out
            .console
            .push_str(&format!("As expected, the schedule fails: {}\n", d.message)),
        (Err(d), _) => out.errors.push(d),
        (Ok(_), Some(expected)) => out.console.push_str(&format!(
            "Expected an error containing “{expected}”, but the schedule ran.\n"
        )),
        (Ok(_), None) => {}
    }
    let trace = sch.trace().clone();
    out.func = Some(sch.func_name().to_string()).filter(|n| !n.is_empty());
    out.module_snapshots
        .extend(recorded_steps(&start.module, &sch));
    out.trace = Some(trace);
    out
}

/// The `# --- tensor-intrin: NAME ---` sections as a table; the first
/// section that does not parse or register is the error.
fn register_intrins(sections: &[(String, String)]) -> Result<TensorIntrinTable, Diagnostic> {
    let mut intrins = TensorIntrinTable::new();
    for (name, text) in sections {
        let funcs: Vec<Rc<PrimFunc>> = tvmscript::parse(text)?
            .to_module()
            .prim_funcs()
            .map(|(_, f)| f.clone())
            .collect();
        let span = Span::new(
            text.len() as u32 - text.trim_start().len() as u32,
            text.trim_end().len() as u32,
        );
        let registered = match funcs.as_slice() {
            [desc, implementation] => intrins
                .register(name, desc.clone(), implementation.clone(), true)
                .map_err(|e| e.to_string()),
            _ => Err("a tensor-intrin section needs two functions: the description, then the implementation".into()),
        };
        if let Err(message) = registered {
            return Err(Diagnostic::error(
                format!("tensor intrinsic `{name}`: {message}"),
                span,
            ));
        }
    }
    Ok(intrins)
}
