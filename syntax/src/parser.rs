//! The recursive-descent parser: tokens → [`ast`](super::ast).
//!
//! See the [module documentation](super) for the overall design. Every
//! function that may recurse into a nested construct goes through
//! [`Parser::enter`], which bounds the nesting depth; loops that build
//! left-deep trees (`a + b + c`, `x.a.b.c`, `elif` chains) count towards a
//! separate tree-depth budget so that the AST itself stays shallow enough to
//! be dropped, printed and visited recursively.

use super::ast::*;
use super::lexer::{self, Kw, Lexed, Op, StrKind, StrTok, Tok, Token};
use crate::diag::{Diagnostic, LineIndex};
use std::collections::HashSet;

use super::{MAX_DEPTH, MAX_NESTING};

// The parser's methods, one file per part of the grammar.
mod expressions;
mod fstrings;
mod params;
mod statements;

type PResult<T> = Result<T, Box<Diagnostic>>;

// Binding powers, loosest first (Python's precedence table).
const BP_OR: u8 = 1;
const BP_AND: u8 = 2;
const BP_NOT: u8 = 3;
const BP_CMP: u8 = 4;
const BP_BITOR: u8 = 5;
const BP_BITXOR: u8 = 6;
const BP_BITAND: u8 = 7;
const BP_SHIFT: u8 = 8;
const BP_SUM: u8 = 9;
const BP_TERM: u8 = 10;
const BP_UNARY: u8 = 11;
const BP_POW: u8 = 12;

fn binding_power(op: BinOp) -> u8 {
    match op {
        BinOp::BitOr => BP_BITOR,
        BinOp::BitXor => BP_BITXOR,
        BinOp::BitAnd => BP_BITAND,
        BinOp::LShift | BinOp::RShift => BP_SHIFT,
        BinOp::Add | BinOp::Sub => BP_SUM,
        BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod | BinOp::MatMul => BP_TERM,
        BinOp::Pow => BP_POW,
    }
}

/// An infix operator as seen by [`Parser::operators`].
#[derive(Clone, Copy)]
enum Infix {
    Bin(BinOp),
    Bool(BoolOp),
    /// A comparison and how many tokens it takes (`not in` is two).
    Cmp(CmpOp, usize),
}

static EOF_TOKEN: Token = Token {
    kind: Tok::Eof,
    span: Span { start: 0, end: 0 },
};

/// What the arguments of a call so far contained (for validation).
#[derive(Default)]
struct SeenArgs {
    /// The last keyword argument's name.
    keyword: Option<Span>,
    keyword_names: HashSet<String>,
    double_starred: bool,
}

/// What an assignment-like target is used for (for error messages).
#[derive(Clone, Copy, PartialEq, Eq)]
enum TargetCtx {
    Assign,
    AugAssign,
    Annotated,
    Delete,
    For,
    Comprehension,
    With,
}

pub(crate) struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    lex_error: Option<Diagnostic>,
    /// End offset of the last consumed token other than NEWLINE, INDENT
    /// and DEDENT.
    last_end: u32,
    nesting: u32,
    depth: u32,
    /// Parsing the expression of an f-string field.
    in_fstring: bool,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str, lexed: Lexed) -> Parser<'a> {
        Parser {
            src,
            tokens: lexed.tokens,
            pos: 0,
            lex_error: lexed.error,
            last_end: 0,
            nesting: 0,
            depth: 0,
            in_fstring: false,
        }
    }

    // -----------------------------------------------------------------------
    // Token helpers
    // -----------------------------------------------------------------------

    fn tok(&self) -> &Token {
        self.tokens.get(self.pos).unwrap_or(&EOF_TOKEN)
    }

    fn peek(&self) -> &Tok {
        &self.tok().kind
    }

    fn peek_nth(&self, n: usize) -> &Tok {
        self.tokens.get(self.pos + n).map_or(&Tok::Eof, |t| &t.kind)
    }

    fn span(&self) -> Span {
        self.tok().span
    }

    fn start(&self) -> u32 {
        self.span().start
    }

    /// Consumes the current token and returns its span.
    fn bump(&mut self) -> Span {
        let span = self.span();
        match self.peek() {
            Tok::Eof | Tok::Error => {}
            // Layout tokens never end a node's span.
            Tok::Newline | Tok::Indent | Tok::Dedent => self.pos += 1,
            _ => {
                self.pos += 1;
                self.last_end = span.end;
            }
        }
        span
    }

    fn at_op(&self, op: Op) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    fn at_kw(&self, kw: Kw) -> bool {
        matches!(self.peek(), Tok::Kw(k) if *k == kw)
    }

    fn eat_op(&mut self, op: Op) -> Option<Span> {
        self.at_op(op).then(|| self.bump())
    }

    fn eat_kw(&mut self, kw: Kw) -> Option<Span> {
        self.at_kw(kw).then(|| self.bump())
    }

    fn expect_op(&mut self, op: Op, context: &str) -> PResult<Span> {
        match self.eat_op(op) {
            Some(s) => Ok(s),
            None => Err(self.expected(&format!("`{}`", op.as_str()), context)),
        }
    }

    fn expect_kw(&mut self, kw: Kw, context: &str) -> PResult<Span> {
        match self.eat_kw(kw) {
            Some(s) => Ok(s),
            None => Err(self.expected(&format!("`{}`", kw.as_str()), context)),
        }
    }

    fn expect_name(&mut self, what: &str, context: &str) -> PResult<Ident> {
        if let Tok::Name(name) = self.peek() {
            let name = name.clone();
            let span = self.bump();
            Ok(Ident { name, span })
        } else {
            Err(self.expected(what, context))
        }
    }

    fn span_from(&self, start: u32) -> Span {
        Span::new(start, self.last_end.max(start))
    }

    /// True at the end of a simple statement.
    fn at_stmt_end(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Newline | Tok::Eof | Tok::Op(Op::Semi) | Tok::Dedent | Tok::Error
        )
    }

    /// True if the current token can start an expression.
    fn starts_expr(&self) -> bool {
        match self.peek() {
            Tok::Name(_) | Tok::Int(_) | Tok::Float(_) | Tok::Imag(_) | Tok::Str(_) => true,
            Tok::Kw(k) => matches!(
                k,
                Kw::None | Kw::True | Kw::False | Kw::Not | Kw::Lambda | Kw::Await | Kw::Yield
            ),
            Tok::Op(o) => matches!(
                o,
                Op::LParen
                    | Op::LBracket
                    | Op::LBrace
                    | Op::Minus
                    | Op::Plus
                    | Op::Tilde
                    | Op::Star
                    | Op::Pow
                    | Op::Ellipsis
            ),
            _ => false,
        }
    }

    // -----------------------------------------------------------------------
    // Errors
    // -----------------------------------------------------------------------

    fn describe(&self, tok: &Tok) -> String {
        match tok {
            Tok::Name(n) => format!("identifier `{n}`"),
            Tok::Int(_) | Tok::Float(_) | Tok::Imag(_) => "number".into(),
            Tok::Str(s) => match s.kind {
                StrKind::Str => "string literal".into(),
                StrKind::Bytes => "bytes literal".into(),
                StrKind::FString => "f-string".into(),
            },
            Tok::Kw(k) => format!("keyword `{}`", k.as_str()),
            Tok::Op(o) => format!("`{}`", o.as_str()),
            Tok::Magic(_) => "IPython magic".into(),
            Tok::Newline => "end of line".into(),
            Tok::Indent => "indent".into(),
            Tok::Dedent => "dedent".into(),
            Tok::Error => "invalid token".into(),
            Tok::Eof if self.in_fstring => "end of the f-string field".into(),
            Tok::Eof => "end of input".into(),
        }
    }

    /// Where to point when the current token is unexpected: line ends point
    /// just after the previous token, like rustc does.
    fn error_span(&self) -> Span {
        match self.peek() {
            Tok::Newline | Tok::Eof | Tok::Dedent => Span::empty(self.last_end),
            _ => self.span(),
        }
    }

    /// The lexer's error if we are at the error token.
    fn lex_error_here(&self) -> Option<Box<Diagnostic>> {
        if matches!(self.peek(), Tok::Error) {
            if let Some(e) = &self.lex_error {
                return Some(Box::new(e.clone()));
            }
        }
        None
    }

    /// "expected {what} {context}, found {current token}".
    fn expected(&self, what: &str, context: &str) -> Box<Diagnostic> {
        if let Some(e) = self.lex_error_here() {
            return e;
        }
        if matches!(self.peek(), Tok::Indent) {
            return Box::new(
                Diagnostic::error("unexpected indent", self.span()).with_label(
                    self.span(),
                    "this line is indented more than the previous one",
                ),
            );
        }
        let sep = if context.is_empty() { "" } else { " " };
        let span = self.error_span();
        Box::new(
            Diagnostic::error(
                format!(
                    "expected {what}{sep}{context}, found {}",
                    self.describe(self.peek())
                ),
                span,
            )
            .with_label(span, format!("expected {what}")),
        )
    }

    fn error(&self, msg: impl Into<String>, span: Span) -> Box<Diagnostic> {
        Box::new(Diagnostic::error(msg, span))
    }

    fn line_of(&self, offset: u32) -> usize {
        LineIndex::new(self.src).line_col(offset).0
    }

    // -----------------------------------------------------------------------
    // Depth limits
    // -----------------------------------------------------------------------

    fn enter(&mut self) -> PResult<()> {
        self.nesting += 1;
        self.depth += 1;
        if self.nesting > MAX_NESTING || self.depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.nesting = self.nesting.saturating_sub(1);
        self.depth = self.depth.saturating_sub(1);
    }

    /// One more link in a left-deep chain (`a + b + c`, `x.y.z`, `elif`).
    fn chain(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(())
    }

    fn too_deep(&self) -> Box<Diagnostic> {
        let span = self.error_span();
        Box::new(
            Diagnostic::error("code is nested too deeply", span)
                .with_label(span, "limit reached here")
                .with_note(format!(
                    "nesting is limited to {MAX_NESTING} levels (brackets, blocks, \
                     operators, lambdas) and syntax trees to {MAX_DEPTH} levels"
                )),
        )
    }

    // -----------------------------------------------------------------------
    // Entry points
    // -----------------------------------------------------------------------

    pub(crate) fn parse_file(&mut self) -> PResult<Vec<Stmt>> {
        let mut body = Vec::new();
        loop {
            match self.peek() {
                Tok::Eof => break,
                Tok::Newline => {
                    self.bump();
                }
                _ => self.statement(&mut body)?,
            }
        }
        Ok(body)
    }

    /// Parses a whole expression input (tokenized with `tokenize_expr`).
    pub(crate) fn parse_expr_input(&mut self) -> PResult<Expr> {
        let e = self.star_exprs_or_yield()?;
        if !matches!(self.peek(), Tok::Eof) {
            return Err(self.expected("end of expression", ""));
        }
        Ok(e)
    }
}

/// A short description of an expression for "cannot assign to ..." errors.
fn describe_expr(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Call { .. } => "function call",
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Imag(_)
        | ExprKind::Str(_)
        | ExprKind::Bytes(_) => "literal",
        ExprKind::FString(_) => "f-string expression",
        ExprKind::Bool(true) => "`True`",
        ExprKind::Bool(false) => "`False`",
        ExprKind::NoneLit => "`None`",
        ExprKind::Ellipsis => "ellipsis",
        ExprKind::BoolOp { .. } | ExprKind::BinOp { .. } | ExprKind::UnaryOp { .. } => "expression",
        ExprKind::Compare { .. } => "comparison",
        ExprKind::Lambda { .. } => "lambda",
        ExprKind::IfExp { .. } => "conditional expression",
        ExprKind::ListComp { .. } => "list comprehension",
        ExprKind::SetComp { .. } => "set comprehension",
        ExprKind::DictComp { .. } => "dict comprehension",
        ExprKind::GeneratorExp { .. } => "generator expression",
        ExprKind::Dict(_) => "dict literal",
        ExprKind::Set(_) => "set display",
        ExprKind::NamedExpr { .. } => "named expression",
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) => "yield expression",
        ExprKind::Slice { .. } => "slice",
        ExprKind::Starred(_) => "starred expression",
        ExprKind::Tuple(_) => "tuple",
        ExprKind::List(_) => "list",
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => "expression",
    }
}
