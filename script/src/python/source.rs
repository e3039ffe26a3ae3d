//! Source text of a cell, with line lookups for tracebacks.

use tessel_syntax::diag::LineIndex;

/// One cell (or file) of source, shared by everything defined in it.
pub struct Source {
    /// The name tracebacks print (`<cell>`, `Cell In[3]`, `script.py`).
    pub name: String,
    pub text: String,
    /// A number identifying the cell within one interpreter.
    pub id: u32,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>, id: u32) -> Source {
        Source {
            name: name.into(),
            text: text.into(),
            id,
        }
    }
    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        LineIndex::new(&self.text).line_col(offset)
    }
    /// The text of 1-based `line`, without its terminator.
    pub fn line_text(&self, line: usize) -> &str {
        LineIndex::new(&self.text).line_text(line)
    }
    /// The source text a span covers (`""` if out of range).
    pub fn slice(&self, span: tessel_syntax::diag::Span) -> &str {
        span.slice(&self.text)
    }
}
