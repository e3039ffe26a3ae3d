//! The sandboxed Python-subset interpreter that runs the MLC course's
//! notebook cells: plain Python (functions, classes, closures, exceptions,
//! comprehensions, f-strings and `%`-formatting), a NumPy subset, and the
//! `tvm` package surface — TVMScript classes and functions become IR through
//! [`compiler_core::tvmscript::builder`], schedules go through
//! [`compiler_core::schedule::Schedule::call`], and `tvm.build` goes through a
//! [`Backend`] (by default [`ReferenceBackend`], the reference interpreter).
//!
//! # Using it
//!
//! ```
//! use tessel_script::{Interpreter, Stream};
//! let mut interp = Interpreter::new(Default::default());
//! let result = interp.run_cell("x = [i * i for i in range(4)]\nprint(x)", "<cell>");
//! assert!(result.is_ok());
//! let out = interp.take_output();
//! assert_eq!(out[0].stream, Stream::Stdout);
//! assert_eq!(out[0].text, "[0, 1, 4, 9]\n");
//! ```
//!
//! An [`Interpreter`] keeps its globals between cells, like a notebook
//! kernel. [`Interpreter::run_notebook_cell`] also displays the value of a
//! cell's last expression, the way IPython does. Output never goes to the
//! process's stdout: it is collected as [`OutputChunk`]s (and optionally
//! passed to a callback as it is produced). An uncaught exception is returned
//! as a [`ScriptError`] holding the Python-style traceback text and the
//! frames with their byte spans, for editor markers.
//!
//! # For hosts (the web UI, the CLI)
//!
//! - Create one [`Interpreter`] per notebook with
//!   [`Interpreter::with_host`]: a [`Host`] clock (`performance.now()` in the
//!   browser) and a [`Backend`] for `tvm.build`.
//! - Run each cell with [`Interpreter::run_notebook_cell`]`(text, name)`;
//!   `name` is what tracebacks print (`"Cell In[3]"`) and identifies the cell
//!   in [`ScriptError::frames`]. Then [`Interpreter::take_output`]: chunks
//!   tagged [`Stream::Stdout`], [`Stream::Stderr`] or [`Stream::Display`];
//!   a display chunk's [`Mime`] says whether its text is HTML, Markdown or
//!   code (`display(HTML(...))`, a cell ending in `Markdown(...)`).
//! - On `Err(e)`: show `e.traceback`; mark `e.location_in(name)` (the
//!   innermost frame in that cell) — its `span` is a byte range of the cell's
//!   text (`diag::LineIndex::line_col_utf16` gives editor columns). Frames in
//!   other cells (a function defined earlier) carry those cells' names.
//!   Syntax errors come back the same way, with one frame.
//! - [`notebook_cells`] splits a whole `.py` file at `# %%` markers, keeping
//!   line numbers (what `tessel run --notebook` does).
//! - wasm32's default stack is 1 MiB; [`Limits::default`] keeps the
//!   interpreter's native stack use under 768 KiB (a `RecursionError`
//!   otherwise). Hosts that link a bigger stack can raise
//!   [`Limits::stack_bytes`].
//!
//! # Sandbox
//!
//! No file system, network, processes or dynamic code (`open`, `eval`,
//! `exec`, `__import__` of unknown modules are errors); only built-in
//! modules can be imported. Every statement, call and loop iteration costs a
//! step, as does built-in work proportional to its size (array operations,
//! IR execution); [`Limits`] caps steps (per cell), memory held by lists,
//! arrays and tensors, and the Python call depth (`RecursionError`), so a
//! runaway script ends with an error instead of hanging or crashing the page.
//! Integers are 64-bit; overflow is an `OverflowError`. Generators run
//! eagerly: calling a function with `yield` runs it to the end and returns an
//! iterator over the yielded values (an endless generator hits a budget).

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub(crate) mod bindings;
pub(crate) mod inspect;
pub(crate) mod modules;
pub(crate) mod pygments;
pub(crate) mod python;

use std::collections::HashMap;
use std::rc::Rc;

pub use compiler_core::target::{
    Backend, BuildError, BuildOptions, Executable, Host, NoClock, ReferenceBackend, RoutingBackend,
    SourceModule, Target, TargetKind, TickClock,
};
pub use inspect::Inspected;
pub use python::error::{ScriptError, TraceFrame};

use python::error::{Exc, PyErr};
use python::interp::{Frame, Interp};
use python::source::Source;
use python::value::MemTracker;

/// Where a piece of output went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// `print(...)`.
    Stdout,
    /// `print(..., file=sys.stderr)`.
    Stderr,
    /// IPython's display of a cell's last value, `display(...)`, and rich
    /// objects like `IPython.display.Code`.
    Display,
}

/// What a piece of output is, like the richest entry of IPython's MIME
/// bundle: hosts that render rich output (the playground's console) show
/// HTML and Markdown rendered and code highlighted; a text console prints
/// [`OutputChunk::text`] whatever the kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Mime {
    /// `text/plain`: `print`, tracebacks, the repr of a cell's last value.
    #[default]
    Plain,
    /// `text/html`: `IPython.display.HTML` (untrusted: hosts sanitise it).
    Html,
    /// `text/markdown`: `IPython.display.Markdown`.
    Markdown,
    /// Source code: `IPython.display.Code`, with its `language=` if given.
    Code { language: Option<String> },
}

impl Mime {
    /// The MIME type IPython's bundle would use (`text/x-python` for Python
    /// code, `text/plain` for code in no language).
    pub fn mime_type(&self) -> String {
        match self {
            Mime::Plain | Mime::Code { language: None } => "text/plain".into(),
            Mime::Html => "text/html".into(),
            Mime::Markdown => "text/markdown".into(),
            Mime::Code {
                language: Some(language),
            } => format!("text/x-{}", language.to_ascii_lowercase()),
        }
    }
}

/// A piece of output.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputChunk {
    pub stream: Stream,
    pub text: String,
    /// What `text` is; never other than [`Mime::Plain`] outside
    /// [`Stream::Display`].
    pub mime: Mime,
}

/// Resource limits of a script.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Steps per cell: statements, calls, loop iterations, plus built-in
    /// work (one step per 8 reference-interpreter steps, per 16 array
    /// elements). The default allows a few seconds of work in a release build.
    pub steps: u64,
    /// Bytes held by lists, arrays and tensors at any time.
    pub memory: u64,
    /// Nested Python calls before `RecursionError`.
    pub max_depth: u32,
    /// Native stack the interpreter may use before `RecursionError` (a
    /// deep Python call chain is a deep Rust call chain). wasm32's default
    /// stack is 1 MiB; a release build uses about 5 KiB per Python call, a
    /// debug build ten times more, so hosts with a bigger stack (the CLI
    /// runs scripts on a 256 MiB thread) raise this.
    pub stack_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            steps: 100_000_000,
            memory: 512 << 20,
            max_depth: 200,
            stack_bytes: 768 << 10,
        }
    }
}

/// A Python session: globals persist across cells.
pub struct Interpreter {
    inner: Interp,
}

impl Interpreter {
    /// A session with no clock and the reference backend.
    pub fn new(limits: Limits) -> Interpreter {
        Interpreter::with_host(
            limits,
            Rc::new(NoClock),
            Rc::new(ReferenceBackend::default()),
        )
    }

    pub fn with_host(limits: Limits, host: Rc<dyn Host>, backend: Rc<dyn Backend>) -> Interpreter {
        let types = python::builtins::Types::new();
        let exc_classes = python::builtins::exception_classes(&types.object);
        let mut inner = Interp {
            globals: Default::default(),
            builtins: Default::default(),
            types,
            exc_classes,
            modules: HashMap::new(),
            output: Vec::new(),
            sink: None,
            limits,
            steps: 0,
            depth: 0,
            mem: Rc::new(MemTracker::new(limits.memory)),
            host,
            backend,
            library: Rc::new(bindings::host::TvmLibrary),
            frame: Frame {
                env: None,
                class_ns: None,
                source: Rc::new(Source::new("<cell>", "", 0)),
                func: None,
            },
            handling: Vec::new(),
            next_cell: 0,
            code_cache: HashMap::new(),
            def_cache: HashMap::new(),
            lambda_cache: HashMap::new(),
            np_rng: python::numpy::random::Mt19937::default(),
            next_id: 0,
            stack_base: 0,
            stack_peak: 0,
            yields: Vec::new(),
            out_bytes: 0,
            intrins: Default::default(),
        };
        python::builtins::install(&mut inner);
        inner
            .globals
            .insert("__name__".into(), python::value::Value::str("__main__"));
        Interpreter { inner }
    }

    /// Runs a cell as a script (no display of the last expression).
    /// `name` is what tracebacks call the source (`<cell>`, `script.py`).
    pub fn run_cell(&mut self, src: &str, name: &str) -> Result<(), ScriptError> {
        self.run(src, name, false)
    }

    /// Runs a cell like a notebook: a final expression's value is displayed.
    pub fn run_notebook_cell(&mut self, src: &str, name: &str) -> Result<(), ScriptError> {
        self.run(src, name, true)
    }

    fn run(&mut self, src: &str, name: &str, display_last: bool) -> Result<(), ScriptError> {
        let module = match tessel_syntax::parse_module(src) {
            Ok(m) => m,
            Err(d) => return Err(syntax_error(src, name, &d)),
        };
        let it = &mut self.inner;
        it.next_cell += 1;
        let source = Rc::new(Source::new(name, src, it.next_cell));
        it.steps = 0;
        it.out_bytes = 0;
        it.stack_base = python::interp::stack_addr();
        it.stack_peak = 0;
        match it.exec_module(&module, source, display_last) {
            Ok(()) => Ok(()),
            Err(e) => Err(it.script_error(*e)),
        }
    }

    /// The output produced since the last call.
    pub fn take_output(&mut self) -> Vec<OutputChunk> {
        std::mem::take(&mut self.inner.output)
    }

    /// All output as one string (streams interleaved in order).
    pub fn take_output_text(&mut self) -> String {
        self.take_output().into_iter().map(|c| c.text).collect()
    }

    /// Receives every chunk as it is written (output is still collected).
    pub fn set_output_callback(&mut self, f: Box<dyn FnMut(&OutputChunk)>) {
        self.inner.sink = Some(f);
    }

    /// Steps used by the last cell.
    pub fn steps_used(&self) -> u64 {
        self.inner.steps
    }

    /// The most native stack the last cell used, in bytes.
    pub fn stack_peak(&self) -> u64 {
        self.inner.stack_peak as u64
    }

    /// Bytes currently held by lists, arrays and tensors.
    pub fn memory_used(&self) -> u64 {
        self.inner.mem.used()
    }

    /// The names defined at module level, sorted.
    pub fn global_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.inner.globals.keys().cloned().collect();
        tessel_ir::sort::ascending(&mut v);
        v
    }
}

/// Splits a script into notebook cells at `# %%` and `# In[...]` marker
/// lines. Each cell is padded with blank lines so that its line numbers are
/// those of the whole script (tracebacks then point at the script's lines).
pub fn notebook_cells(src: &str) -> Vec<String> {
    let mut cells: Vec<String> = vec![String::new()];
    for (line_no, line) in src.split_inclusive('\n').enumerate() {
        let t = line.trim_start();
        if t.starts_with("# %%") || t.starts_with("#%%") || t.starts_with("# In[") {
            cells.push("\n".repeat(line_no + 1));
        } else if let Some(c) = cells.last_mut() {
            c.push_str(line);
        }
    }
    cells.retain(|c| !c.trim().is_empty());
    cells
}

/// Runs a whole script in a fresh interpreter: its output and the error, if any.
pub fn run_script(
    src: &str,
    name: &str,
    limits: Limits,
) -> (Vec<OutputChunk>, Option<ScriptError>) {
    let mut i = Interpreter::new(limits);
    let r = i.run_cell(src, name);
    (i.take_output(), r.err())
}

fn syntax_error(src: &str, name: &str, d: &tessel_syntax::diag::Diagnostic) -> ScriptError {
    let index = tessel_syntax::diag::LineIndex::new(src);
    let (line, col) = index.line_col(d.span.start);
    let text = index.line_text(line);
    let stripped = text.trim_start();
    let indent = text.chars().count() - stripped.chars().count();
    let caret_col = col.saturating_sub(1).saturating_sub(indent);
    let traceback = format!(
        "  File \"{name}\", line {line}\n    {}\n    {}^\nSyntaxError: {}\n",
        stripped.trim_end(),
        " ".repeat(caret_col),
        d.message
    );
    ScriptError {
        kind: "SyntaxError".into(),
        message: d.message.clone(),
        frames: vec![TraceFrame {
            file: name.to_string(),
            line,
            col,
            span: d.span,
            func: "<module>".into(),
        }],
        traceback,
    }
}

impl Interp {
    /// Turns an uncaught exception into the host's error value.
    fn script_error(&mut self, e: PyErr) -> ScriptError {
        let value = match &e.exc {
            Exc::Obj(v) => v.clone(),
            Exc::Lazy { kind, args } => self.new_exception(*kind, args.clone()),
        };
        let class = self.class_of(&value);
        let kind = class.display_name();
        let saved_steps = self.steps;
        // `str(e)` may run user code: give it a fresh allowance.
        self.steps = 0;
        let message = self
            .str_of(&value)
            .unwrap_or_else(|_| "<exception str() failed>".to_string());
        self.steps = saved_steps;
        let entries: Vec<_> = e.tb.iter().rev().cloned().collect();
        let (traceback, frames) = python::error::render_traceback(&entries, &kind, &message);
        ScriptError {
            kind,
            message,
            frames,
            traceback,
        }
    }
}
