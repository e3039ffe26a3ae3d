//! Python mode: notebook cells run by the Python-subset interpreter; the
//! schedule and modules the notebook made are read from its globals as
//! typed values, and the modules the schedule recorded after each
//! instruction make the step-through.

use compiler_core::analysis::structural_equal::structural_equal;
use compiler_core::diag::{self, Diagnostic, Span};
use compiler_core::ir::{BaseFunc, IRModule};
use tessel_script::{
    notebook_cells, Inspected, Interpreter, Mime, OutputChunk, ScriptError, Stream,
};

use crate::script_mode::{original, trace_dialect_of};
use crate::steps::{recorded_steps, ScheduleStart};
use crate::{Mode, ScriptEnv, ScriptOutcome};

/// How a Python source is cut into cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellMode {
    /// Cells at `# %%` / `# In[...]` lines; each cell's last expression is
    /// displayed, as in a notebook.
    Notebook,
    /// The whole source as one plain script.
    Script,
}

/// What one cell wrote: the backend's notes, its output, and the traceback
/// if it raised.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellOutput {
    /// 1-based line of the script where the cell's text starts.
    pub first_line: usize,
    pub text: String,
    /// The parts of `text` that are rich display output.
    pub rich: Vec<RichSpan>,
}

/// Bytes `start..end` of a console text are display output of kind `mime`
/// (never [`Mime::Plain`]): a host renders them, a terminal prints them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RichSpan {
    pub start: usize,
    pub end: usize,
    pub mime: Mime,
}

impl RichSpan {
    /// The same span `by` bytes further on (when texts are concatenated).
    fn shifted(&self, by: usize) -> RichSpan {
        RichSpan {
            start: self.start + by,
            end: self.end + by,
            mime: self.mime.clone(),
        }
    }
}

/// Receives the interpreter's output as it is produced.
pub type OutputSink = Box<dyn FnMut(&OutputChunk)>;

/// A finished Python run: the interpreter (its globals stay inspectable),
/// the output per cell, and the uncaught exceptions, in cell order.
pub struct PythonRun {
    pub interpreter: Interpreter,
    pub cells: Vec<CellOutput>,
    pub errors: Vec<ScriptError>,
}

impl PythonRun {
    /// The first uncaught exception, if any cell raised.
    pub fn first_error(&self) -> Option<&ScriptError> {
        self.errors.first()
    }
}

/// Runs `source` cell by cell with `env`. As in Jupyter, a cell that raises
/// shows its traceback (in its output, and on `on_output` as stderr) and the
/// following cells still run with the state so far; a plain script
/// (`CellMode::Script`) is one cell. `file_name` is what tracebacks call the
/// source; `on_output` receives output as it is produced (a terminal
/// streams it).
pub fn run_python(
    source: &str,
    env: &ScriptEnv,
    file_name: &str,
    mode: CellMode,
    on_output: Option<OutputSink>,
) -> PythonRun {
    let mut interpreter = Interpreter::with_host(env.limits, env.host.clone(), env.backend.clone());
    // The sink is shared with the loop below, which sends it each traceback
    // where it happens.
    let sink = on_output.map(|s| std::rc::Rc::new(std::cell::RefCell::new(s)));
    if let Some(sink) = &sink {
        let sink = sink.clone();
        interpreter.set_output_callback(Box::new(move |chunk| (sink.borrow_mut())(chunk)));
    }
    let cells = match mode {
        CellMode::Notebook => notebook_cells(source),
        CellMode::Script => vec![source.to_string()],
    };
    let mut run = PythonRun {
        interpreter,
        cells: Vec::new(),
        errors: Vec::new(),
    };
    for cell in cells {
        let result = match mode {
            CellMode::Notebook => run.interpreter.run_notebook_cell(&cell, file_name),
            CellMode::Script => run.interpreter.run_cell(&cell, file_name),
        };
        let mut text = String::new();
        if let Some(take_notes) = &env.take_notes {
            for note in take_notes() {
                text.push_str(&note);
                text.push('\n');
            }
        }
        let mut rich = Vec::new();
        for chunk in run.interpreter.take_output() {
            if chunk.mime != Mime::Plain {
                rich.push(RichSpan {
                    start: text.len(),
                    end: text.len() + chunk.text.len(),
                    mime: chunk.mime,
                });
            }
            text.push_str(&chunk.text);
        }
        if let Err(e) = &result {
            text.push_str(&e.traceback);
            if let Some(sink) = &sink {
                (sink.borrow_mut())(&OutputChunk {
                    stream: Stream::Stderr,
                    text: e.traceback.clone(),
                    mime: Mime::Plain,
                });
            }
        }
        run.cells.push(CellOutput {
            first_line: cell.len() - cell.trim_start_matches('\n').len() + 1,
            text,
            rich,
        });
        if let Err(e) = result {
            run.errors.push(e);
        }
    }
    run
}

/// The span in `source` of the innermost frame of `error` in `file_name`
/// (cells keep the script's line numbers); empty at 0 when none is there.
pub fn notebook_error_span(source: &str, error: &ScriptError, file_name: &str) -> Span {
    let index = diag::LineIndex::new(source);
    match error.location_in(file_name) {
        Some(f) if f.line >= 1 => {
            let start = index.line_start(f.line);
            let line = index.line_text(f.line);
            let col: usize = line
                .chars()
                .take(f.col.saturating_sub(1))
                .map(char::len_utf8)
                .sum();
            let from = (start + col) as u32;
            Span::new(from, from + f.span.len())
        }
        _ => Span::new(0, 0),
    }
}

/// The name the playground's Python mode gives its script in tracebacks.
const SCRIPT_NAME: &str = "script.py";

pub(crate) fn python_mode(source: &str, env: &ScriptEnv) -> ScriptOutcome {
    let mut out = ScriptOutcome {
        mode: Mode::Python,
        ..ScriptOutcome::default()
    };
    let run = run_python(source, env, SCRIPT_NAME, CellMode::Notebook, None);
    for cell in &run.cells {
        let offset = out.console.len();
        out.rich
            .extend(cell.rich.iter().map(|span| span.shifted(offset)));
        out.console.push_str(&cell.text);
    }
    out.cells = run.cells;
    for e in &run.errors {
        out.errors.push(Diagnostic::error(
            format!("{}: {}", e.kind, e.message),
            notebook_error_span(source, e, SCRIPT_NAME),
        ));
    }
    let globals: Vec<(String, Inspected)> = run
        .interpreter
        .inspect_globals()
        .into_iter()
        .filter(|(n, _)| !n.starts_with('_') && n.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .collect();
    // The schedule named `sch` if there is one, else the last by name.
    let schedule = globals
        .iter()
        .filter(|(_, v)| matches!(v, Inspected::Schedule { .. }))
        .max_by_key(|(n, _)| n == "sch");
    let Some((
        _,
        Inspected::Schedule {
            schedule,
            original: start_module,
            dialect,
            ..
        },
    )) = schedule
    else {
        // No schedule: show the last module the script defined.
        let last_module = globals.iter().rev().find_map(|(_, v)| match v {
            Inspected::Module { module, dialect } => Some((module.clone(), *dialect)),
            Inspected::PrimFunc {
                name,
                func,
                dialect,
            } => {
                let mut module = IRModule::new();
                module.insert(name.clone(), BaseFunc::Prim(func.clone()));
                Some((module, *dialect))
            }
            Inspected::Schedule { .. } => None,
        });
        if let Some((module, dialect)) = last_module {
            out.dialect = dialect;
            if !module.functions.is_empty() {
                out.module_snapshots.push(original(module));
            }
        }
        return out;
    };
    let start = ScheduleStart {
        module: start_module.clone(),
        dialect: *dialect,
        // As script mode derives it from the module, so both modes print a
        // module's trace alike.
        trace_dialect: trace_dialect_of(*dialect),
        intrins: schedule.tensor_intrins().clone(),
    };
    let trace = schedule.trace().clone();
    let steps = recorded_steps(&start.module, schedule);
    let reached = steps.last().map_or(&start.module, |s| &s.module);
    out.dialect = *dialect;
    if structural_equal(reached, schedule.module()).is_err() {
        // The recorded steps do not reach the schedule's module (it was
        // changed outside the trace): show that module alone rather than
        // steps that lead elsewhere.
        out.module_snapshots
            .push(original(schedule.module().clone()));
        return out;
    }
    out.module_snapshots.push(original(start.module.clone()));
    out.module_snapshots.extend(steps);
    out.trace = Some(trace);
    out.trace_dialect = start.trace_dialect;
    out.func = Some(schedule.func_name().to_string()).filter(|n| !n.is_empty());
    out
}
