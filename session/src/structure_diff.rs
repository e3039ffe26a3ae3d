//! A failed structure check shown like a diff viewer: both functions
//! printed as TVMScript (the way the playground prints modules) with the
//! lines of the first mismatch highlighted on each side, and a short text
//! excerpt of both for the command line.

use std::fmt::Write as _;
use std::rc::Rc;

use compiler_core::analysis::structural_equal::Mismatch;
use compiler_core::ir::{BaseFunc, IRModule, PrimFunc};
use compiler_core::tvmscript::printer::{print_module_located, Dialect, PrintOptions};

/// Lines of context an excerpt shows around the highlighted lines.
pub const EXCERPT_CONTEXT: usize = 2;

/// Both sides of a structural mismatch, printed and highlighted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructureDiff {
    /// The student's function.
    pub yours: HighlightedIr,
    /// The exercise's target.
    pub target: HighlightedIr,
}

/// One function as TVMScript and where the mismatch is in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HighlightedIr {
    /// The function as a one-function module.
    pub text: String,
    /// 1-based lines of the mismatch, `first..=last`; `None` when the
    /// mismatch has no place in a function (shown without highlight).
    pub lines: Option<(usize, usize)>,
    /// The characters of the first highlighted line that show it, when
    /// narrower than the line (a parameter): 0-based, end exclusive.
    pub columns: Option<(usize, usize)>,
}

impl StructureDiff {
    /// Prints `yours` and `target` (both as function `name`, in `dialect`)
    /// and highlights where `mismatch` is in each.
    pub fn new(
        name: &str,
        yours: &Rc<PrimFunc>,
        target: &Rc<PrimFunc>,
        mismatch: &Mismatch,
        dialect: Dialect,
    ) -> StructureDiff {
        let opts = PrintOptions::new(dialect);
        let side = |func: &Rc<PrimFunc>, anchor| {
            let mut module = IRModule::new();
            module.insert(name.to_string(), BaseFunc::Prim(func.clone()));
            let anchors: Vec<_> = Some(anchor).into_iter().flatten().collect();
            let located = print_module_located(&module, &opts, &anchors);
            let range = located.ranges.first().copied().flatten();
            HighlightedIr {
                text: located.text,
                lines: range.map(|r| (r.first_line, r.last_line)),
                columns: range.and_then(|r| r.columns),
            }
        };
        let (a, b) = match mismatch.at.as_deref() {
            Some((a, b)) => (Some(a.clone()), Some(b.clone())),
            None => (None, None),
        };
        StructureDiff {
            yours: side(yours, a),
            target: side(target, b),
        }
    }

    /// Both excerpts under their titles, for a terminal.
    pub fn excerpt(&self) -> String {
        let mut out = String::new();
        for (title, side) in [("yours", &self.yours), ("target", &self.target)] {
            let _ = writeln!(out, "{title}:");
            out.push_str(&side.excerpt(EXCERPT_CONTEXT));
        }
        out
    }
}

impl HighlightedIr {
    /// The highlighted lines with `context` lines around them, numbered,
    /// the highlighted ones marked `>` in the gutter and a parameter's
    /// columns underlined with carets. Empty when nothing is highlighted.
    pub fn excerpt(&self, context: usize) -> String {
        let Some((first, last)) = self.lines else {
            return String::new();
        };
        let lines: Vec<&str> = self.text.lines().collect();
        let from = first.saturating_sub(context).max(1);
        let to = (last + context).min(lines.len());
        let width = to.to_string().len();
        let mut out = String::new();
        for n in from..=to {
            let text = lines.get(n - 1).copied().unwrap_or_default();
            let marked = (first..=last).contains(&n);
            let gutter = if marked { '>' } else { ' ' };
            let _ = writeln!(out, "{gutter} {n:>width$} | {text}");
            if let (true, Some((a, b))) = (n == first, self.columns) {
                let pad = " ".repeat(width + 5 + a);
                let _ = writeln!(out, "{pad}{}", "^".repeat(b.saturating_sub(a).max(1)));
            }
        }
        out
    }
}
