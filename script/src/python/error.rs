//! Python exceptions inside the interpreter, and the tracebacks they print.

use std::fmt::Write as _;
use std::rc::Rc;

use super::source::Source;
use super::value::Value;
use tessel_syntax::diag::Span;

/// The result of evaluating something that may raise.
pub type Res<T> = Result<T, Box<PyErr>>;

/// The built-in exception classes (and TVM's), in a fixed hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExcKind {
    BaseException,
    Exception,
    ArithmeticError,
    ZeroDivisionError,
    OverflowError,
    LookupError,
    IndexError,
    KeyError,
    ValueError,
    TypeError,
    AttributeError,
    NameError,
    UnboundLocalError,
    AssertionError,
    RuntimeError,
    NotImplementedError,
    RecursionError,
    ImportError,
    ModuleNotFoundError,
    StopIteration,
    MemoryError,
    SyntaxError,
    OSError,
    PermissionError,
    KeyboardInterrupt,
    /// `tvm.error.TVMError` (TVM's generic runtime error).
    TVMError,
    /// `tvm.error.DiagnosticError` (TVMScript that does not parse).
    DiagnosticError,
    /// `tvm.s_tir.schedule.schedule.ScheduleError`.
    ScheduleError,
}

impl ExcKind {
    pub const ALL: [ExcKind; 28] = [
        ExcKind::BaseException,
        ExcKind::Exception,
        ExcKind::ArithmeticError,
        ExcKind::ZeroDivisionError,
        ExcKind::OverflowError,
        ExcKind::LookupError,
        ExcKind::IndexError,
        ExcKind::KeyError,
        ExcKind::ValueError,
        ExcKind::TypeError,
        ExcKind::AttributeError,
        ExcKind::NameError,
        ExcKind::UnboundLocalError,
        ExcKind::AssertionError,
        ExcKind::RuntimeError,
        ExcKind::NotImplementedError,
        ExcKind::RecursionError,
        ExcKind::ImportError,
        ExcKind::ModuleNotFoundError,
        ExcKind::StopIteration,
        ExcKind::MemoryError,
        ExcKind::SyntaxError,
        ExcKind::OSError,
        ExcKind::PermissionError,
        ExcKind::KeyboardInterrupt,
        ExcKind::TVMError,
        ExcKind::DiagnosticError,
        ExcKind::ScheduleError,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ExcKind::BaseException => "BaseException",
            ExcKind::Exception => "Exception",
            ExcKind::ArithmeticError => "ArithmeticError",
            ExcKind::ZeroDivisionError => "ZeroDivisionError",
            ExcKind::OverflowError => "OverflowError",
            ExcKind::LookupError => "LookupError",
            ExcKind::IndexError => "IndexError",
            ExcKind::KeyError => "KeyError",
            ExcKind::ValueError => "ValueError",
            ExcKind::TypeError => "TypeError",
            ExcKind::AttributeError => "AttributeError",
            ExcKind::NameError => "NameError",
            ExcKind::UnboundLocalError => "UnboundLocalError",
            ExcKind::AssertionError => "AssertionError",
            ExcKind::RuntimeError => "RuntimeError",
            ExcKind::NotImplementedError => "NotImplementedError",
            ExcKind::RecursionError => "RecursionError",
            ExcKind::ImportError => "ImportError",
            ExcKind::ModuleNotFoundError => "ModuleNotFoundError",
            ExcKind::StopIteration => "StopIteration",
            ExcKind::MemoryError => "MemoryError",
            ExcKind::SyntaxError => "SyntaxError",
            ExcKind::OSError => "OSError",
            ExcKind::PermissionError => "PermissionError",
            ExcKind::KeyboardInterrupt => "KeyboardInterrupt",
            ExcKind::TVMError => "TVMError",
            ExcKind::DiagnosticError => "DiagnosticError",
            ExcKind::ScheduleError => "ScheduleError",
        }
    }

    /// The module the class lives in (printed in tracebacks unless `builtins`).
    pub fn module(self) -> &'static str {
        match self {
            ExcKind::TVMError | ExcKind::DiagnosticError => "tvm.error",
            ExcKind::ScheduleError => "tvm.s_tir.schedule.schedule",
            _ => "builtins",
        }
    }

    pub fn parent(self) -> Option<ExcKind> {
        use ExcKind::*;
        Some(match self {
            BaseException => return None,
            Exception | KeyboardInterrupt => BaseException,
            ArithmeticError | LookupError | ValueError | TypeError | AttributeError | NameError
            | AssertionError | RuntimeError | ImportError | StopIteration | MemoryError
            | SyntaxError | OSError => Exception,
            ZeroDivisionError | OverflowError => ArithmeticError,
            IndexError | KeyError => LookupError,
            UnboundLocalError => NameError,
            NotImplementedError | RecursionError | TVMError | DiagnosticError | ScheduleError => {
                RuntimeError
            }
            ModuleNotFoundError => ImportError,
            PermissionError => OSError,
        })
    }
}

/// The exception object: created lazily (kind and arguments) by code that
/// has no interpreter at hand, or a real instance once Python code sees it.
#[derive(Clone)]
pub enum Exc {
    Lazy { kind: ExcKind, args: Vec<Value> },
    Obj(Value),
}

/// One frame of a traceback.
#[derive(Clone)]
pub struct TbEntry {
    pub source: Rc<Source>,
    pub span: Span,
    /// `<module>` or the function's name.
    pub func: Rc<str>,
}

/// A raised exception travelling up the Rust stack.
pub struct PyErr {
    pub exc: Exc,
    /// Frames the exception has left, innermost first.
    pub tb: Vec<TbEntry>,
    /// Where in the current frame it happened (set by the innermost node).
    pub pending: Option<Span>,
    /// An error no `except` may catch (the step budget).
    pub fatal: bool,
}

impl PyErr {
    pub fn new(kind: ExcKind, msg: impl Into<String>) -> Box<PyErr> {
        PyErr::with_args(kind, vec![Value::str(msg.into())])
    }
    pub fn with_args(kind: ExcKind, args: Vec<Value>) -> Box<PyErr> {
        Box::new(PyErr {
            exc: Exc::Lazy { kind, args },
            tb: Vec::new(),
            pending: None,
            fatal: false,
        })
    }
    pub fn from_value(exc: Value) -> Box<PyErr> {
        Box::new(PyErr {
            exc: Exc::Obj(exc),
            tb: Vec::new(),
            pending: None,
            fatal: false,
        })
    }
    pub fn type_error(msg: impl Into<String>) -> Box<PyErr> {
        PyErr::new(ExcKind::TypeError, msg)
    }
    pub fn value_error(msg: impl Into<String>) -> Box<PyErr> {
        PyErr::new(ExcKind::ValueError, msg)
    }
    pub fn index_error(msg: impl Into<String>) -> Box<PyErr> {
        PyErr::new(ExcKind::IndexError, msg)
    }
    pub fn attribute_error(msg: impl Into<String>) -> Box<PyErr> {
        PyErr::new(ExcKind::AttributeError, msg)
    }
    pub fn zero_division(msg: impl Into<String>) -> Box<PyErr> {
        PyErr::new(ExcKind::ZeroDivisionError, msg)
    }
    pub fn overflow() -> Box<PyErr> {
        PyErr::new(
            ExcKind::OverflowError,
            "integer overflow: Tessel's Python integers are 64-bit",
        )
    }
    pub fn memory_budget(limit: u64, bytes: u64) -> Box<PyErr> {
        PyErr::new(
            ExcKind::MemoryError,
            format!(
                "script exceeded its memory budget of {} (allocating {} more)",
                human_bytes(limit),
                human_bytes(bytes)
            ),
        )
    }
    pub fn step_budget(limit: u64) -> Box<PyErr> {
        let mut e = PyErr::new(
            ExcKind::RuntimeError,
            format!("script exceeded its step budget of {limit} steps; is there an infinite loop?"),
        );
        e.fatal = true;
        e
    }

    /// Sets the location in the current frame if the innermost node has not.
    #[inline]
    pub fn at(mut self: Box<Self>, span: Span) -> Box<Self> {
        if self.pending.is_none() {
            self.pending = Some(span);
        }
        self
    }

    /// The built-in kind, when the exception is lazy or a built-in instance.
    pub fn lazy_kind(&self) -> Option<ExcKind> {
        match &self.exc {
            Exc::Lazy { kind, .. } => Some(*kind),
            Exc::Obj(_) => None,
        }
    }
}

/// `512 MB`, `12.5 GB`, `300 bytes`.
pub fn human_bytes(b: u64) -> String {
    const K: f64 = 1024.0;
    let f = b as f64;
    if f >= K * K * K {
        format!("{:.1} GB", f / (K * K * K)).replace(".0 ", " ")
    } else if f >= K * K {
        format!("{:.1} MB", f / (K * K)).replace(".0 ", " ")
    } else if f >= K {
        format!("{:.1} KB", f / K).replace(".0 ", " ")
    } else {
        format!("{b} bytes")
    }
}

/// A frame of a reported traceback, outermost first.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceFrame {
    /// The cell or file name (`<cell>`, `Cell In[3]`, `script.py`).
    pub file: String,
    /// 1-based line and column (columns count characters).
    pub line: usize,
    pub col: usize,
    /// Byte span in that cell's source.
    pub span: Span,
    /// `<module>` or the function's name.
    pub func: String,
}

/// An uncaught exception, as the host sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptError {
    /// The exception class as Python prints it: `NameError`,
    /// `tvm.s_tir.schedule.schedule.ScheduleError`.
    pub kind: String,
    /// `str(exception)`.
    pub message: String,
    /// Frames, outermost first (empty for syntax errors).
    pub frames: Vec<TraceFrame>,
    /// The text Python would print: `Traceback (most recent call last): …`.
    pub traceback: String,
}

impl ScriptError {
    /// The innermost frame in the source named `file`, for editor markers.
    pub fn location_in(&self, file: &str) -> Option<&TraceFrame> {
        self.frames.iter().rev().find(|f| f.file == file)
    }
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.traceback)
    }
}

impl std::error::Error for ScriptError {}

/// CPython 3.11's caret line under a traceback entry: `^` under the failing
/// expression, or `~~^~~` with `^` under the operator of a binary operation
/// or the brackets of a subscript; nothing when plain carets would cover the
/// whole line.
fn caret_line(text: &str, line: usize, col: usize, e: &TbEntry) -> Option<String> {
    let chars: Vec<char> = text.trim_end().chars().collect();
    let stripped = text.trim_start();
    let indent = text.chars().count() - stripped.chars().count();
    let stripped_len = stripped.trim_end().chars().count();
    let (end_line, end_col) = e.source.line_col(e.span.end);
    let start = col - 1;
    let end = if end_line == line {
        (end_col - 1).min(chars.len())
    } else {
        chars.len()
    };
    if end <= start {
        return None;
    }
    let anchors = if end_line == line {
        let segment: String = chars[start..end].iter().collect();
        anchors(&segment)
    } else {
        None
    };
    let covers_line = end - start >= stripped_len;
    let anchored = matches!(anchors, Some((l, r)) if r > l);
    if covers_line && !anchored {
        return None;
    }
    let mut s = " ".repeat(start.saturating_sub(indent));
    match anchors {
        Some((l, r)) => {
            s.push_str(&"~".repeat(l));
            s.push_str(&"^".repeat(r - l));
            s.push_str(&"~".repeat((end - start).saturating_sub(r)));
        }
        None => s.push_str(&"^".repeat(end - start)),
    }
    Some(s)
}

/// CPython's `_extract_caret_anchors_from_line_segment` (character offsets
/// into `segment`).
fn anchors(segment: &str) -> Option<(usize, usize)> {
    use tessel_syntax::ast::ExprKind;
    let expr = tessel_syntax::parse_expr(segment).ok()?;
    let seg: Vec<char> = segment.chars().collect();
    let to_char = |byte: u32| {
        segment
            .get(..byte as usize)
            .map_or(0, |s| s.chars().count())
    };
    match &expr.kind {
        ExprKind::BinOp { left, right, .. } => {
            let op_start = to_char(left.span.end);
            let op_end = to_char(right.span.start);
            let op: String = seg.get(op_start..op_end.max(op_start))?.iter().collect();
            let offset = op.chars().count() - op.trim_start().chars().count();
            let mut l = op_start + offset;
            let mut r = l + 1;
            if op
                .chars()
                .nth(offset + 1)
                .is_some_and(|c| !c.is_whitespace())
            {
                r += 1;
            }
            while l < seg.len() && (seg[l].is_whitespace() || seg[l] == ')' || seg[l] == '#') {
                l += 1;
                r += 1;
            }
            Some((l, r.min(seg.len())))
        }
        ExprKind::Subscript { value, index } => {
            let mut l = to_char(value.span.end);
            let mut r = to_char(index.span.end) + 1;
            while l < seg.len() && seg[l] != '[' {
                l += 1;
            }
            while r < seg.len() && seg[r] != ']' {
                r += 1;
            }
            if r < seg.len() {
                r += 1;
            }
            Some((l, r.min(seg.len())))
        }
        _ => None,
    }
}

/// Renders frames (outermost first) and the final line like CPython 3.11+.
pub fn render_traceback(
    entries: &[TbEntry],
    kind: &str,
    message: &str,
) -> (String, Vec<TraceFrame>) {
    let mut out = String::new();
    let mut frames = Vec::new();
    if !entries.is_empty() {
        out.push_str("Traceback (most recent call last):\n");
    }
    // Like CPython, runs of the same line print three times, then a count.
    let mut last: Option<(String, usize, Rc<str>)> = None;
    let mut repeats = 0usize;
    let flush_repeats = |out: &mut String, repeats: usize| {
        if repeats > 3 {
            let n = repeats - 3;
            let _ = writeln!(
                out,
                "  [Previous line repeated {n} more time{}]",
                if n == 1 { "" } else { "s" }
            );
        }
    };
    for e in entries {
        let (line, col) = e.source.line_col(e.span.start);
        let key = (e.source.name.clone(), line, e.func.clone());
        if last.as_ref() == Some(&key) {
            repeats += 1;
        } else {
            flush_repeats(&mut out, repeats);
            repeats = 1;
            last = Some(key);
        }
        frames.push(TraceFrame {
            file: e.source.name.clone(),
            line,
            col,
            span: e.span,
            func: e.func.to_string(),
        });
        if repeats > 3 {
            continue;
        }
        let _ = writeln!(
            out,
            "  File \"{}\", line {}, in {}",
            e.source.name, line, e.func
        );
        let text = e.source.line_text(line);
        let stripped = text.trim_start();
        if !stripped.is_empty() {
            let _ = writeln!(out, "    {}", stripped.trim_end());
            if let Some(marks) = caret_line(text, line, col, e) {
                let _ = writeln!(out, "    {marks}");
            }
        }
    }
    flush_repeats(&mut out, repeats);
    if message.is_empty() {
        let _ = writeln!(out, "{kind}");
    } else {
        let _ = writeln!(out, "{kind}: {message}");
    }
    (out, frames)
}
