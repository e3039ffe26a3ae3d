//! One driver for Tessel's front-ends: a playground script in, plain data
//! out. The browser's compiler worker and the `tessel` command both go
//! through it, so the playground's file format and its meaning live here.
//!
//! A script is one of two kinds ([`detect_mode`]):
//!
//! - **script mode**: a TVMScript module, then optional `# --- kind ---`
//!   sections ([`split_script`]): `schedule` (schedule calls),
//!   `tensor-intrin: NAME` (an intrinsic's description and implementation)
//!   and `expect-error: TEXT` (the schedule must fail with TEXT);
//! - **Python mode**: course notebook cells (`# %%`-separated), run by the
//!   Python-subset interpreter; what the notebook produced is found by
//!   typed inspection of its globals (`Interpreter::inspect_globals`).
//!
//! Either way [`run_script`] returns a [`ScriptOutcome`]: the module before
//! scheduling and after every step that changed it ([`Snapshot`]), the
//! trace, spanned diagnostics, the console (per cell too), the print
//! dialects and the function the schedule worked on.
//!
//! The crate is pure (it builds for `wasm32-unknown-unknown`): no files,
//! threads or clocks; hosts pass a clock and a `tvm.build` backend in a
//! [`ScriptEnv`].

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod check;
pub mod exercise;
mod graph_numbers;
pub mod live;
pub mod loop_nests;
pub mod loop_regions;
pub mod memory_access;
mod python;
mod script_mode;
mod sections;
mod steps;
pub mod structure_diff;
pub mod tvmscript;

use std::rc::Rc;

use compiler_core::diag::Diagnostic;
use compiler_core::ir::IRModule;
use compiler_core::schedule::trace::{Trace, TraceDialect};
use compiler_core::target::{Backend, Host, NoClock, ReferenceBackend};
use compiler_core::tvmscript::printer::Dialect;
use tessel_script::Limits;

pub use live::{LiveSession, SessionCounts};
pub use python::{
    notebook_error_span, run_python, CellMode, CellOutput, OutputSink, PythonRun, RichSpan,
};
pub use sections::{split_script, Sections, SCHEDULE_MARKER};
pub use tessel_script::Mime;
pub use tvmscript::{apply_schedule, ApplyScheduleError};

/// What a Python script runs with: provided by the host.
#[derive(Clone)]
pub struct ScriptEnv {
    /// The clock of `time.time()` and `time_evaluator`.
    pub host: Rc<dyn Host>,
    /// What `tvm.build` / `tvm.compile` compile and run with.
    pub backend: Rc<dyn Backend>,
    pub limits: Limits,
    /// Console notes the host's backend collected (e.g. "compiled to
    /// WebAssembly"), taken after each cell and shown before its output.
    pub take_notes: Option<Rc<dyn Fn() -> Vec<String>>>,
}

impl Default for ScriptEnv {
    /// No clock, the reference interpreter for `tvm.build`, default limits.
    fn default() -> Self {
        ScriptEnv {
            host: Rc::new(NoClock),
            backend: Rc::new(ReferenceBackend::default()),
            limits: Limits::default(),
            take_notes: None,
        }
    }
}

/// A module state in the step-through: label, trace instructions, module.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// `original`, or the primitive call as Python.
    pub label: String,
    /// 1-based trace instructions this step covers (lookups such as
    /// `get_block` fold into the next step that changes the module).
    pub instructions: Vec<usize>,
    pub module: IRModule,
}

/// What running a script produced.
#[derive(Clone, Debug, Default)]
pub struct ScriptOutcome {
    /// Which kind of script it was.
    pub mode: Mode,
    /// What the script printed (every cell, in order).
    pub console: String,
    /// The console split by notebook cell (Python mode only).
    pub cells: Vec<CellOutput>,
    /// The parts of `console` that are rich display output (HTML, Markdown,
    /// code), in order; the rest is plain text.
    pub rich: Vec<RichSpan>,
    /// The module before scheduling, then after each primitive that changed it.
    pub module_snapshots: Vec<Snapshot>,
    pub trace: Option<Trace>,
    /// Errors and warnings, with spans into the script's text.
    pub errors: Vec<Diagnostic>,
    /// How to print IR (the dialect the script was written in).
    pub dialect: Dialect,
    /// How to print the trace.
    pub trace_dialect: TraceDialect,
    /// The function the schedule worked on.
    pub func: Option<String>,
}

/// The two kinds of playground script.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// TVMScript, then `# --- schedule ---` and schedule calls.
    #[default]
    Script,
    /// Python notebook cells run by the interpreter.
    Python,
}

/// Runs a script of either kind. Script mode needs nothing from the host;
/// Python mode runs with `env`.
pub fn run_script(source: &str, env: &ScriptEnv) -> ScriptOutcome {
    live::count_script_run();
    match detect_mode(source) {
        Mode::Python => python::python_mode(source, env),
        Mode::Script => script_mode::script_mode(source),
    }
}

/// Python mode: no section marker, and Python with a top-level statement a
/// TVMScript file cannot have (anything but imports, definitions,
/// docstrings and `pass`). A TVMScript file with an error stays in script
/// mode, so the error keeps its exact span.
pub fn detect_mode(source: &str) -> Mode {
    use compiler_core::syntax::ast::{ExprKind as E, StmtKind as S};
    let sections = split_script(source);
    if sections.schedule.is_some() || !sections.intrins.is_empty() {
        return Mode::Script;
    }
    let Ok(module) = compiler_core::syntax::parse_module(source) else {
        return Mode::Script;
    };
    let python = module.body.iter().any(|stmt| match &stmt.kind {
        S::Import(_) | S::ImportFrom { .. } | S::Pass | S::FunctionDef(_) | S::ClassDef(_) => false,
        S::Expr(e) => !matches!(e.kind, E::Str(_)),
        _ => true,
    });
    if python {
        Mode::Python
    } else {
        Mode::Script
    }
}

/// Whether [`detect_mode`] says Python mode.
pub fn is_python_mode(source: &str) -> bool {
    detect_mode(source) == Mode::Python
}
