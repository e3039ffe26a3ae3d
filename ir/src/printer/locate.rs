//! Where a node is printed: the line range (and, for a parameter, the
//! columns) of the printed text that shows a statement or one part of it,
//! so a report about a node (a structural mismatch) can point into the
//! TVMScript a reader sees.
//!
//! The printer notes each line it writes for a statement part as it goes;
//! lines that free-variable declarations later insert above shift the
//! noted ranges, so the result always refers to the final text.

use std::fmt;

use crate::Stmt;

/// A node of a printed function, or one part of it.
#[derive(Clone)]
pub enum Anchor {
    /// The `def` line.
    Signature,
    /// The `i`-th parameter: its text in the `def` line, or its
    /// `T.match_buffer` line when it prints as a handle.
    Param(usize),
    /// The `T.func_attr` line (else the `def` line).
    FuncAttrs,
    /// A statement (by node identity) or one part of it; a part that does
    /// not print (an empty `T.block_attr`) falls back to the statement's
    /// first line.
    Stmt(Stmt, StmtPart),
}

/// Which lines of a statement an [`Anchor`] means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StmtPart {
    /// The first line: `for …:`, `with T.block(…):`, a store, `if …:`; for
    /// a loop folded into `T.grid`, the grid's line; for the implicit root
    /// block, its `# with T.block("root"):` comment.
    Header,
    /// Block iterator `i` (its `T.axis.*` line, or the `T.axis.remap` line
    /// it is part of).
    IterVar(usize),
    /// `T.where(…)`.
    Predicate,
    /// `T.reads(…)`.
    Reads,
    /// `T.writes(…)`.
    Writes,
    /// `T.block_attr({…})`.
    Annotations,
    /// The `i`-th buffer the block allocates.
    AllocBuffer(usize),
    /// The `i`-th `T.match_buffer` of the block.
    MatchBuffer(usize),
    /// `with T.init():`.
    Init,
    /// A loop's variable in its `for` line (in a `T.grid`, its own name
    /// among the grid's): always with columns.
    LoopName,
}

impl Anchor {
    fn stmt(&self) -> Option<&Stmt> {
        match self {
            Anchor::Stmt(s, _) => Some(s),
            _ => None,
        }
    }
}

impl PartialEq for Anchor {
    fn eq(&self, other: &Anchor) -> bool {
        match (self, other) {
            (Anchor::Signature, Anchor::Signature) | (Anchor::FuncAttrs, Anchor::FuncAttrs) => true,
            (Anchor::Param(a), Anchor::Param(b)) => a == b,
            (Anchor::Stmt(a, p), Anchor::Stmt(b, q)) => a.same_node(b) && p == q,
            _ => false,
        }
    }
}

impl Eq for Anchor {}

impl fmt::Debug for Anchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Anchor::Signature => write!(f, "Signature"),
            Anchor::Param(i) => write!(f, "Param({i})"),
            Anchor::FuncAttrs => write!(f, "FuncAttrs"),
            Anchor::Stmt(s, part) => write!(f, "Stmt({:?}, {part:?})", s.kind() as *const _),
        }
    }
}

/// Where an anchor is printed: 1-based lines, `first_line..=last_line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextRange {
    pub first_line: usize,
    pub last_line: usize,
    /// The characters of `first_line` that show the node, when narrower
    /// than the line: 0-based, end exclusive.
    pub columns: Option<(usize, usize)>,
}

/// Byte range of printed lines (`start..end`, `end` after the newline),
/// and columns.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Noted {
    pub start: usize,
    pub end: usize,
    pub columns: Option<(usize, usize)>,
    /// Whether it was noted for the anchor's own part (not a fallback).
    pub exact: bool,
}

/// The anchors a printing looks for and what it found so far.
#[derive(Default)]
pub(crate) struct Locator {
    anchors: Vec<Anchor>,
    found: Vec<Option<Noted>>,
}

impl Locator {
    pub fn new(anchors: &[Anchor]) -> Locator {
        Locator {
            anchors: anchors.to_vec(),
            found: vec![None; anchors.len()],
        }
    }

    pub fn is_empty(&self) -> bool {
        self.anchors.is_empty()
    }

    /// Notes that `at` was printed at `range`: sets every anchor equal to
    /// it, and, as a fallback, unset anchors of the same node (a statement's
    /// other parts; the function's other parts for [`Anchor::Signature`]).
    pub fn note(&mut self, at: &Anchor, start: usize, end: usize, columns: Option<(usize, usize)>) {
        for (anchor, found) in self.anchors.iter().zip(self.found.iter_mut()) {
            let exact = anchor == at;
            let same_node = match (anchor.stmt(), at) {
                (Some(s), Anchor::Stmt(t, StmtPart::Header)) => s.same_node(t),
                (None, Anchor::Signature) => true,
                _ => false,
            };
            if exact || (same_node && found.is_none_or(|f| !f.exact)) {
                *found = Some(Noted {
                    start,
                    end,
                    columns: columns.filter(|_| exact),
                    exact,
                });
            }
        }
    }

    /// Text was inserted at byte `at`, `len` bytes long.
    pub fn shift(&mut self, at: usize, len: usize) {
        for n in self.found.iter_mut().flatten() {
            if n.start >= at {
                n.start += len;
            }
            if n.end > at {
                n.end += len;
            }
        }
    }

    /// Converts the noted byte ranges into lines of `text`.
    pub fn ranges(&self, text: &str) -> Vec<Option<TextRange>> {
        let line_of = |byte: usize| text[..byte.min(text.len())].matches('\n').count() + 1;
        self.found
            .iter()
            .map(|n| {
                n.map(|n| TextRange {
                    first_line: line_of(n.start),
                    last_line: line_of(n.end.saturating_sub(1).max(n.start)),
                    columns: n.columns,
                })
            })
            .collect()
    }
}
