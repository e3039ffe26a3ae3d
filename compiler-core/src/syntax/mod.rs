//! Python-subset front-end: lexer, parser and AST.
//!
//! (The lexer and parser are being written; for now the entry points return
//! an error so that consumers can build against the AST.)

pub mod ast;

pub use crate::diag::Span;

use crate::diag::Diagnostic;

/// Parses a whole module (a `.py` file or a notebook cell).
pub fn parse_module(src: &str) -> Result<ast::Module, Diagnostic> {
    let _ = src;
    Err(Diagnostic::error(
        "the parser is not implemented yet",
        Span::default(),
    ))
}

/// Parses a single expression (surrounding whitespace and newlines allowed).
pub fn parse_expr(src: &str) -> Result<ast::Expr, Diagnostic> {
    let _ = src;
    Err(Diagnostic::error(
        "the parser is not implemented yet",
        Span::default(),
    ))
}
