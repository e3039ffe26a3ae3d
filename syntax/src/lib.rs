//! The Python-subset front-end: source text → tokens → [`ast`].
//!
//! Tessel reads two kinds of Python: TVMScript (decorated classes and
//! functions that the `tvmscript` builder turns into IR) and ordinary Python
//! from the MLC course's notebook cells (which a later interpreter runs).
//! Both go through this module, which knows nothing about TVM: it produces a
//! faithful syntax tree of a large, well-defined subset of Python 3.12, with
//! precise byte spans on every node, and reports the first syntax error as a
//! [`Diagnostic`] good enough to show to a user.
//!
//! # Pipeline
//!
//! ```text
//!   &str ──lexer::tokenize──▶ Vec<Token> ──Parser──▶ ast::Module
//!              │                              │
//!              └──────── Diagnostic ◀─────────┘   (first error, with span)
//! ```
//!
//! ## Lexing
//!
//! The lexer (`lexer.rs`) turns the whole source into a vector of tokens up front. It
//! implements Python's tokenizer rules:
//!
//! * **Indentation.** At the start of each logical line the indentation is
//!   measured (tabs advance to the next multiple of 8, and the line is also
//!   measured with tabs as 1 column to detect inconsistent mixing) and
//!   compared with a stack, producing `INDENT`/`DEDENT` tokens. Blank and
//!   comment-only lines never affect indentation. A dedent to a level that
//!   is not on the stack is an error.
//! * **Line joining.** Inside `()`, `[]` and `{}` newlines and indentation
//!   are ignored (implicit joining); a backslash before a newline joins
//!   lines explicitly. Brackets are matched in the lexer, so `(]` and an
//!   unclosed `(` get precise errors pointing at the opening bracket.
//! * **Literals.** Integers (decimal, `0x`, `0o`, `0b`, with `_`
//!   separators) are `i64`; floats include `1e-5`, `.5` and `1.`; `2j` is an
//!   imaginary literal. Strings take the prefixes `r`, `u`, `b`, `f`, `rb`,
//!   `fr` in either case and either quote, single or triple. Escapes of
//!   ordinary string and bytes literals are decoded by the lexer; the body
//!   of an f-string is kept as a span and parsed by the parser.
//! * **Notebook magics.** A logical line starting with `%` or `!` (such as
//!   `%pip install mlc-ai` or `!nvidia-smi`) becomes a single `Magic` token,
//!   and later a [`ast::StmtKind::Magic`] statement. A cell whose first line
//!   starts with `%%` is a cell magic and becomes one `Magic` statement
//!   holding the whole cell.
//!
//! The lexer stops at its first error. It then emits an `Error` token where
//! the error is, and the parser reports the lexer's diagnostic when it
//! reaches that token. This keeps errors in source order: a syntax error on
//! line 2 is reported before a bad character on line 9.
//!
//! ## Parsing
//!
//! The parser (`parser.rs`) is a hand-written recursive-descent parser over the token
//! vector following the structure of CPython's PEG grammar:
//! statements, then `expression` (conditional expressions and `lambda`),
//! `or`/`and`/`not`, comparisons (chained, flattened into one
//! [`ast::ExprKind::Compare`]), binary operators by precedence climbing
//! (`|` < `^` < `&` < shifts < `+ -` < `* / // % @`), unary `+ - ~`, `**`
//! (right-associative, binding tighter than a unary operator on its left),
//! and primaries with `.attr`, `(args)` and `[index]` trailers.
//!
//! Some points worth knowing:
//!
//! * Assignment targets are parsed as expressions and validated afterwards
//!   (`f() = 1` → "cannot assign to function call").
//! * `for` targets and comprehension targets are parsed at the
//!   `bitwise_or` level so that the `in` that follows is not taken as a
//!   comparison.
//! * `with (a as b, c as d):` is tried first as a parenthesized item list,
//!   and falls back to an ordinary expression (`with (a, b):`). This is the
//!   only backtracking in the parser.
//! * f-string fields (`{expr=!r:>{width}}`) are parsed by running a fresh
//!   lexer and parser over the field's source range, so spans inside
//!   f-strings are exact. Format specs may nest fields one level deep, as
//!   in Python.
//! * Adjacent string literals are concatenated; mixing bytes with strings
//!   is an error.
//!
//! ## Errors
//!
//! Parsing stops at the first error. Messages follow the pattern "expected
//! _what_ _context_, found _token_" (for example "expected `:` after `for`
//! header, found end of line"), with the span on the offending token — or,
//! when the problem is a missing token at the end of a line, an empty span
//! just after the previous token. A few situations get dedicated messages
//! modelled on CPython's: "expected an indented block after `if` statement
//! on line 3", "`(` was never closed", "unindent does not match any outer
//! indentation level", "positional argument follows keyword argument",
//! "cannot assign to ...". If the input contains a bracket that is never
//! closed, that is almost always the real cause of whatever error the parser
//! hit later, so it is reported instead.
//!
//! Use [`crate::diag::render`] to turn a diagnostic into rustc-style text.
//!
//! # Robustness
//!
//! This code runs in the browser (`wasm32-unknown-unknown`), where a panic
//! or a stack overflow kills the page, on whatever half-typed text is in the
//! editor. Therefore:
//!
//! * nothing indexes or unwraps on input-dependent values; offsets are
//!   clamped and slices taken with `get`;
//! * recursion is bounded. Brackets, blocks, unary operators, `**`,
//!   lambdas and conditional expressions may nest at most [`MAX_NESTING`]
//!   levels (CPython's tokenizer allows 200 brackets; real code rarely goes
//!   past 10). Left-deep chains that the parser builds with loops
//!   (`a + b + ...`, `x.a.b...`, `f()()...`, `elif` chains) count towards
//!   [`MAX_DEPTH`], which bounds the depth of the tree itself so that
//!   dropping, printing or walking it recursively stays bounded too. Beyond
//!   these limits parsing fails with "code is nested too deeply"; the lexer
//!   also caps indentation at 100 levels and brackets at 200;
//! * the functions on the recursion path are kept small (one
//!   operator-precedence loop handles everything from `or` down to `**`,
//!   instead of one function per precedence level). Parsing input at the
//!   limits needs about 300 KiB of stack in release builds and 720 KiB in
//!   debug builds, inside wasm's default 1 MiB; a test checks this on a
//!   1 MiB thread;
//! * lexing and parsing are linear in the input size (5,000 lines parse in
//!   about 10 ms in a release build).
//!
//! # Not supported
//!
//! `async`/`await`, `match` statements, `except*`, type-parameter syntax
//! (`def f[T]()`, `type X = ...`), `\N{...}` escapes, integers that do not
//! fit in `i64`, and PEP 701's reuse of the enclosing quote inside f-string
//! fields. Each is reported as an error rather than misparsed.

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod ast;
pub mod diag;
pub mod dump;
pub(crate) mod lexer;
pub(crate) mod parser;

/// How deeply brackets, blocks, unary operators, `**`, lambdas and
/// conditional expressions may nest before parsing fails.
pub const MAX_NESTING: u32 = 100;

/// The maximum depth of a parsed syntax tree, counting nesting and the
/// left-deep chains built for `a + b + c`, `x.y.z` and `elif`.
pub const MAX_DEPTH: u32 = 500;

pub use crate::diag::Span;

use crate::diag::Diagnostic;

/// Parses a whole module (a `.py` file or a notebook cell).
///
/// Returns the first syntax error. Never panics.
pub fn parse_module(src: &str) -> Result<ast::Module, Diagnostic> {
    if let Some(magic) = cell_magic(src) {
        return Ok(magic);
    }
    let lexed = lexer::tokenize(src);
    let unclosed = if lexed.unclosed {
        lexed.error.clone()
    } else {
        None
    };
    let mut parser = parser::Parser::new(src, lexed);
    match parser.parse_file() {
        Ok(body) => Ok(ast::Module { body }),
        Err(e) => {
            // An unclosed bracket is reported at the end of the input, but it
            // is nearly always why parsing failed after it was opened.
            match unclosed {
                Some(u) if u.span.start <= e.span.start => Err(u),
                _ => Err(*e),
            }
        }
    }
}

/// Parses a single expression (surrounding whitespace and newlines allowed,
/// as inside parentheses). A top-level comma makes a tuple.
///
/// Returns the first syntax error. Never panics.
pub fn parse_expr(src: &str) -> Result<ast::Expr, Diagnostic> {
    let lexed = lexer::tokenize_expr(src, 0, src.len(), false);
    let mut parser = parser::Parser::new(src, lexed);
    parser.parse_expr_input().map_err(|e| *e)
}

/// A cell starting with a `%%` cell magic is not Python at all: return it
/// as a single `Magic` statement.
fn cell_magic(src: &str) -> Option<ast::Module> {
    let trimmed = src.trim_start();
    if !trimmed.starts_with("%%") {
        return None;
    }
    let start = src.len() - trimmed.len();
    let text = trimmed.trim_end();
    let span = Span::from_range(start..start + text.len());
    Some(ast::Module {
        body: vec![ast::Stmt {
            kind: ast::StmtKind::Magic(text.to_string()),
            span,
        }],
    })
}
