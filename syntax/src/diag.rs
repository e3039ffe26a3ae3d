//! Diagnostics: source spans, error/warning values and a rustc-style renderer.
//!
//! Everything in the front-end reports problems as a [`Diagnostic`]: a
//! severity, a message, a primary [`Span`] and optional secondary labels and
//! notes. Spans are byte offsets into the source text; the web UI turns the
//! same data into editor markers, the CLI prints it with [`render`].

use std::fmt;

/// A half-open byte range `start..end` into a source string.
///
/// Offsets are `u32` to keep AST nodes small; sources larger than 4 GiB are
/// not supported (the lexer reports an error for them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end`; the bounds are swapped if reversed.
    pub fn new(start: u32, end: u32) -> Span {
        if start <= end {
            Span { start, end }
        } else {
            Span {
                start: end,
                end: start,
            }
        }
    }

    /// An empty span at `offset`.
    pub fn empty(offset: u32) -> Span {
        Span {
            start: offset,
            end: offset,
        }
    }

    /// Builds a span from `usize` offsets, saturating at `u32::MAX`.
    pub fn from_range(range: std::ops::Range<usize>) -> Span {
        let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Span::new(clamp(range.start), clamp(range.end))
    }

    /// The smallest span covering both `self` and `other`.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Length in bytes.
    pub fn len(self) -> u32 {
        self.end.saturating_sub(self.start)
    }

    /// True if the span covers no bytes.
    pub fn is_empty(self) -> bool {
        self.end <= self.start
    }

    /// The span as a `usize` range (for slicing; see [`Span::slice`]).
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The source text covered by the span, or `""` if the span is out of
    /// bounds or does not fall on char boundaries. Never panics.
    pub fn slice(self, source: &str) -> &str {
        source.get(self.range()).unwrap_or("")
    }
}

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    /// The lowercase word rustc prints (`error`, `warning`, `note`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A message about a place in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// The primary location.
    pub span: Span,
    /// Secondary locations with a short explanation each. A label whose span
    /// equals `span` is rendered as the primary caret's text.
    pub labels: Vec<(Span, String)>,
    /// Free-standing notes printed after the snippet (`= note: ...`).
    pub notes: Vec<String>,
    /// The program with the offending part marked (the IR, when a schedule
    /// primitive refused): printed as the last note, and kept apart so that
    /// hosts can show it on its own. Boxed: most diagnostics have none, and
    /// a `Diagnostic` is the error type of every parse.
    pub marked_code: Option<Box<MarkedCode>>,
}

/// A program listing with the offending part marked, under a heading
/// (`the IR, with the offending statement marked:`).
#[derive(Clone, Debug, PartialEq)]
pub struct MarkedCode {
    pub heading: String,
    pub code: String,
}

impl Diagnostic {
    /// A diagnostic with the given severity and no labels or notes.
    pub fn new(severity: Severity, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            marked_code: None,
        }
    }

    /// An error at `span`.
    pub fn error(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Severity::Error, message, span)
    }

    /// A warning at `span`.
    pub fn warning(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Severity::Warning, message, span)
    }

    /// A note at `span`.
    pub fn note(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Severity::Note, message, span)
    }

    /// Adds a labelled location.
    #[must_use]
    pub fn with_label(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.labels.push((span, label.into()));
        self
    }

    /// Adds a note printed after the snippet.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Attaches the program with the offending part marked.
    #[must_use]
    pub fn with_marked_code(
        mut self,
        heading: impl Into<String>,
        code: impl Into<String>,
    ) -> Diagnostic {
        self.marked_code = Some(Box::new(MarkedCode {
            heading: heading.into(),
            code: code.into(),
        }));
        self
    }

    /// True for [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

/// Maps byte offsets to 1-based line and column numbers.
///
/// Lines end at `\n`, `\r\n` or a lone `\r` (the same rule as the lexer).
/// Columns count Unicode scalar values (`char`s), not bytes. All lookups
/// clamp out-of-range offsets and offsets inside a UTF-8 sequence, so they
/// never panic.
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    src: &'a str,
    /// Byte offset of the start of each line; always starts with 0.
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(src: &'a str) -> LineIndex<'a> {
        let bytes = src.as_bytes();
        let mut line_starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes.get(i) {
                Some(b'\n') => line_starts.push(i + 1),
                Some(b'\r') if bytes.get(i + 1) != Some(&b'\n') => line_starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        LineIndex { src, line_starts }
    }

    /// The source this index was built for.
    pub fn source(&self) -> &'a str {
        self.src
    }

    /// Number of lines (at least 1; a trailing newline starts a new, empty
    /// line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Clamps `offset` into the source and down to a char boundary.
    pub fn clamp(&self, offset: u32) -> usize {
        let mut o = (offset as usize).min(self.src.len());
        while o > 0 && !self.src.is_char_boundary(o) {
            o -= 1;
        }
        o
    }

    /// 0-based index of the line containing the (clamped) offset.
    fn line_index(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// 1-based `(line, column)` of `offset`; the column counts `char`s.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let o = self.clamp(offset);
        let line = self.line_index(o);
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let col = self.src.get(start..o).map_or(0, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// 1-based `(line, column)` with the column counted in UTF-16 code
    /// units, as JavaScript editors expect.
    pub fn line_col_utf16(&self, offset: u32) -> (usize, usize) {
        let o = self.clamp(offset);
        let line = self.line_index(o);
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let col = self
            .src
            .get(start..o)
            .map_or(0, |s| s.chars().map(char::len_utf16).sum());
        (line + 1, col + 1)
    }

    /// Byte offset of the start of 1-based `line` (clamped to the last line).
    pub fn line_start(&self, line: usize) -> usize {
        let i = line
            .saturating_sub(1)
            .min(self.line_starts.len().saturating_sub(1));
        self.line_starts.get(i).copied().unwrap_or(0)
    }

    /// The text of 1-based `line` without its line terminator ("" if out
    /// of range).
    pub fn line_text(&self, line: usize) -> &'a str {
        if line == 0 || line > self.line_starts.len() {
            return "";
        }
        let start = self.line_start(line);
        let end = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.src.len());
        let text = self.src.get(start..end).unwrap_or("");
        text.trim_end_matches(['\n', '\r'])
    }
}

/// Width of a tab in rendered snippets.
const TAB_WIDTH: usize = 4;

/// Display width of `text` (tabs expanded, one column per `char`).
fn display_width(text: &str) -> usize {
    text.chars()
        .map(|c| if c == '\t' { TAB_WIDTH } else { 1 })
        .sum()
}

/// Renders a diagnostic as rustc-style plain text:
///
/// ```text
/// error: expected `:` after `for` header, found end of line
///  --> main.py:1:18
///   |
/// 1 | for i in range(3)
///   |                  ^ expected `:`
/// ```
///
/// The primary span is marked with `^`, secondary labels with `-`; a label
/// whose span equals the primary span becomes the primary caret's text.
/// Spans past the end of `source` or inside UTF-8 sequences are clamped, so
/// this never panics. The output ends with a newline.
pub fn render(diag: &Diagnostic, source: &str, file_name: &str) -> String {
    use std::fmt::Write as _;

    let index = LineIndex::new(source);
    let primary_label = diag
        .labels
        .iter()
        .find(|(s, _)| *s == diag.span)
        .map_or("", |(_, l)| l.as_str());
    // (span, label, is_primary), primary first.
    let mut marks: Vec<(Span, &str, bool)> = vec![(diag.span, primary_label, true)];
    let mut primary_label_used = false;
    for (span, label) in &diag.labels {
        if *span == diag.span && !primary_label_used {
            primary_label_used = true;
            continue;
        }
        marks.push((*span, label, false));
    }

    let mut lines: Vec<usize> = marks
        .iter()
        .map(|(s, _, _)| index.line_col(s.start.min(s.end)).0)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    let width = lines.last().map_or(1, |l| l.to_string().len());
    let pad = " ".repeat(width);

    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", diag.severity, diag.message);
    let (line, col) = index.line_col(diag.span.start.min(diag.span.end));
    let _ = writeln!(out, "{pad}--> {file_name}:{line}:{col}");
    let _ = writeln!(out, "{pad} |");
    let source_line = |out: &mut String, line: usize| {
        let shown = index.line_text(line).replace('\t', &" ".repeat(TAB_WIDTH));
        if shown.is_empty() {
            let _ = writeln!(out, "{line:>width$} |");
        } else {
            let _ = writeln!(out, "{line:>width$} | {shown}");
        }
    };
    let mut prev: Option<usize> = None;
    for &line in &lines {
        match prev {
            // A single line between two annotated ones is shown; a longer
            // gap is elided.
            Some(p) if line == p + 2 => source_line(&mut out, p + 1),
            Some(p) if line > p + 2 => {
                let _ = writeln!(out, "...");
            }
            _ => {}
        }
        prev = Some(line);
        source_line(&mut out, line);
        let text = index.line_text(line);
        let line_start = index.line_start(line);
        let line_end = line_start + text.len();
        for &(span, label, primary) in &marks {
            let (s, e) = (span.start.min(span.end), span.start.max(span.end));
            if index.line_col(s).0 != line {
                continue;
            }
            let s = index.clamp(s).max(line_start);
            let e = index.clamp(e).clamp(s, line_end.max(s));
            let before = display_width(source.get(line_start..s).unwrap_or(""));
            let len = display_width(source.get(s..e).unwrap_or("")).max(1);
            let marker = if primary { "^" } else { "-" };
            let mut row = format!("{pad} | {}{}", " ".repeat(before), marker.repeat(len));
            if !label.is_empty() {
                row.push(' ');
                row.push_str(label);
            }
            let _ = writeln!(out, "{}", row.trim_end());
        }
    }
    if !diag.notes.is_empty() || diag.marked_code.is_some() {
        let _ = writeln!(out, "{pad} |");
        for note in &diag.notes {
            let _ = writeln!(out, "{pad} = note: {note}");
        }
        if let Some(marked) = &diag.marked_code {
            let _ = writeln!(out, "{pad} = note: {}\n{}", marked.heading, marked.code);
        }
    }
    out
}
