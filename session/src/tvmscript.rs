//! TVMScript files for the front-ends: parsing, checking, and applying
//! schedule text (what `tessel check` and `tessel build --schedule` do, and
//! what script mode builds on).

use compiler_core::analysis::verify::{verify_module_as, ApiGeneration};
use compiler_core::diag::Diagnostic;
use compiler_core::ir::IRModule;
use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::{Schedule, ScheduleError};
use compiler_core::tvmscript::builder::{parse_script, ParsedScript};

/// Parses a TVMScript file (modules and functions).
pub fn parse(source: &str) -> Result<ParsedScript, Diagnostic> {
    parse_script(source)
}

/// The verifier's diagnostics for a parsed file (errors and warnings),
/// under the rules of the block-API generation it was written in.
pub fn check(parsed: &ParsedScript) -> Vec<Diagnostic> {
    check_module(&parsed.to_module(), parsed.api_generation())
}

/// The verifier's diagnostics for a module written in `generation`.
pub fn check_module(module: &IRModule, generation: ApiGeneration) -> Vec<Diagnostic> {
    verify_module_as(module, generation)
}

/// Why schedule text could not be applied.
#[derive(Clone, Debug)]
pub enum ApplyScheduleError {
    /// The module cannot be scheduled at all (e.g. it has no function).
    Module(ScheduleError),
    /// A call in the schedule text failed; the span is in that text.
    Schedule(Diagnostic),
}

/// Applies schedule text (`sch.split(...)` lines, or a printed trace) to
/// `module`; the schedule afterwards (its module, trace and function).
pub fn apply_schedule(module: IRModule, text: &str) -> Result<Schedule, ApplyScheduleError> {
    let mut sch = Schedule::new(module).map_err(ApplyScheduleError::Module)?;
    run_python(&mut sch, text).map_err(ApplyScheduleError::Schedule)?;
    Ok(sch)
}
