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
