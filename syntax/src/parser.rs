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

    // -----------------------------------------------------------------------
    // Statements
    // -----------------------------------------------------------------------

    fn statement(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        // One call and one `?` keeps this frame small: it is on the
        // recursion path of nested blocks.
        let stmt = match self.peek() {
            Tok::Kw(Kw::If) => self.if_stmt(),
            Tok::Kw(Kw::While) => self.while_stmt(),
            Tok::Kw(Kw::For) => self.for_stmt(),
            Tok::Kw(Kw::Try) => self.try_stmt(),
            Tok::Kw(Kw::With) => self.with_stmt(),
            Tok::Kw(Kw::Def | Kw::Class) | Tok::Op(Op::At) => self.decorated(),
            Tok::Kw(Kw::Async) => Err(self.error(
                "`async` functions and statements are not supported",
                self.span(),
            )),
            Tok::Indent => Err(self.expected("statement", "")),
            _ => return self.simple_stmts(out),
        };
        out.push(stmt?);
        Ok(())
    }

    /// Parses the block after a header's `:`.
    fn block(&mut self, what: &str, header_start: u32) -> PResult<Vec<Stmt>> {
        let mut body = Vec::new();
        if !matches!(self.peek(), Tok::Newline) {
            if matches!(self.peek(), Tok::Eof) {
                return Err(self.missing_block(what, header_start));
            }
            self.simple_stmts(&mut body)?;
            return Ok(body);
        }
        self.bump();
        if !matches!(self.peek(), Tok::Indent) {
            return Err(self.missing_block(what, header_start));
        }
        self.bump();
        self.enter()?;
        loop {
            match self.peek() {
                Tok::Dedent => {
                    self.bump();
                    break;
                }
                Tok::Eof => break,
                _ => self.statement(&mut body)?,
            }
        }
        self.leave();
        Ok(body)
    }

    fn missing_block(&self, what: &str, header_start: u32) -> Box<Diagnostic> {
        if let Some(e) = self.lex_error_here() {
            return e;
        }
        let span = self.error_span();
        let line = self.line_of(header_start);
        Box::new(
            Diagnostic::error(
                format!("expected an indented block after {what} on line {line}"),
                span,
            )
            .with_label(span, "expected an indented block"),
        )
    }

    fn simple_stmts(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        loop {
            let stmt = self.small_stmt()?;
            out.push(stmt);
            if self.eat_op(Op::Semi).is_none() || matches!(self.peek(), Tok::Newline | Tok::Eof) {
                break;
            }
        }
        match self.peek() {
            Tok::Newline => {
                self.bump();
                Ok(())
            }
            Tok::Eof | Tok::Dedent => Ok(()),
            _ => Err(self.junk_after_statement(out.last())),
        }
    }

    /// The error for a token that should not follow a statement, with a
    /// hint for the usual causes.
    #[cold]
    fn junk_after_statement(&self, stmt: Option<&Stmt>) -> Box<Diagnostic> {
        let mut d = self.expected("end of statement", "");
        if self.lex_error_here().is_some() || !self.starts_expr() {
            return d;
        }
        let is_print = stmt
            .is_some_and(|s| matches!(&s.kind, StmtKind::Expr(e) if e.as_name() == Some("print")));
        let note = if is_print {
            "`print` is a function in Python 3: write `print(...)`"
        } else {
            "perhaps you forgot a comma or an operator?"
        };
        d.notes.push(note.to_string());
        d
    }

    fn small_stmt(&mut self) -> PResult<Stmt> {
        let start = self.start();
        let kind = match self.peek().clone() {
            Tok::Magic(text) => {
                self.bump();
                StmtKind::Magic(text)
            }
            Tok::Kw(Kw::Pass) => {
                self.bump();
                StmtKind::Pass
            }
            Tok::Kw(Kw::Break) => {
                self.bump();
                StmtKind::Break
            }
            Tok::Kw(Kw::Continue) => {
                self.bump();
                StmtKind::Continue
            }
            Tok::Kw(Kw::Return) => {
                self.bump();
                if self.at_stmt_end() {
                    StmtKind::Return(None)
                } else {
                    let value = self.star_exprs()?;
                    self.no_bare_starred(&value)?;
                    StmtKind::Return(Some(value))
                }
            }
            Tok::Kw(Kw::Raise) => {
                self.bump();
                let (mut exc, mut cause) = (None, None);
                if !self.at_stmt_end() {
                    exc = Some(self.test()?);
                    if self.eat_kw(Kw::From).is_some() {
                        cause = Some(self.test()?);
                    }
                }
                StmtKind::Raise { exc, cause }
            }
            Tok::Kw(kw @ (Kw::Global | Kw::Nonlocal)) => {
                self.bump();
                let mut names = Vec::new();
                loop {
                    names.push(self.expect_name("identifier", &format!("in `{}`", kw.as_str()))?);
                    if self.eat_op(Op::Comma).is_none() {
                        break;
                    }
                }
                if kw == Kw::Global {
                    StmtKind::Global(names)
                } else {
                    StmtKind::Nonlocal(names)
                }
            }
            Tok::Kw(Kw::Del) => {
                self.bump();
                let mut targets = Vec::new();
                loop {
                    let t = self.target_item()?;
                    self.check_target(&t, TargetCtx::Delete)?;
                    targets.push(t);
                    if self.eat_op(Op::Comma).is_none() || self.at_stmt_end() {
                        break;
                    }
                }
                StmtKind::Delete(targets)
            }
            Tok::Kw(Kw::Assert) => {
                self.bump();
                let test = self.test()?;
                let msg = match self.eat_op(Op::Comma) {
                    Some(_) => Some(self.test()?),
                    None => None,
                };
                StmtKind::Assert { test, msg }
            }
            Tok::Kw(Kw::Import) => {
                self.bump();
                let mut names = Vec::new();
                loop {
                    names.push(self.alias(true)?);
                    if self.eat_op(Op::Comma).is_none() {
                        break;
                    }
                }
                StmtKind::Import(names)
            }
            Tok::Kw(Kw::From) => self.import_from()?,
            _ => self.expr_stmt()?,
        };
        Ok(Stmt {
            kind,
            span: self.span_from(start),
        })
    }

    fn dotted_name(&mut self, context: &str) -> PResult<Ident> {
        let first = self.expect_name("module name", context)?;
        let mut name = first.name;
        while self.at_op(Op::Dot) {
            self.bump();
            let part = self.expect_name("identifier", "after `.` in module name")?;
            name.push('.');
            name.push_str(&part.name);
        }
        Ok(Ident {
            name,
            span: self.span_from(first.span.start),
        })
    }

    fn alias(&mut self, dotted: bool) -> PResult<Alias> {
        let start = self.start();
        let name = if dotted {
            self.dotted_name("after `import`")?
        } else {
            self.expect_name("name", "to import")?
        };
        let asname = match self.eat_kw(Kw::As) {
            Some(_) => Some(self.expect_name("identifier", "after `as`")?),
            None => None,
        };
        Ok(Alias {
            name,
            asname,
            span: self.span_from(start),
        })
    }

    fn import_from(&mut self) -> PResult<StmtKind> {
        self.bump();
        let mut level = 0u32;
        loop {
            if self.eat_op(Op::Dot).is_some() {
                level += 1;
            } else if self.eat_op(Op::Ellipsis).is_some() {
                level += 3;
            } else {
                break;
            }
        }
        let module = if level > 0 && self.at_kw(Kw::Import) {
            None
        } else {
            Some(self.dotted_name("after `from`")?)
        };
        self.expect_kw(Kw::Import, "after module name in `from` import")?;
        let mut names = Vec::new();
        if let Some(span) = self.eat_op(Op::Star) {
            names.push(Alias {
                name: Ident {
                    name: "*".into(),
                    span,
                },
                asname: None,
                span,
            });
        } else if self.eat_op(Op::LParen).is_some() {
            loop {
                names.push(self.alias(false)?);
                if self.eat_op(Op::Comma).is_none() || self.at_op(Op::RParen) {
                    break;
                }
            }
            self.expect_op(Op::RParen, "to close the import list")?;
        } else {
            loop {
                names.push(self.alias(false)?);
                if self.eat_op(Op::Comma).is_none() {
                    break;
                }
            }
        }
        Ok(StmtKind::ImportFrom {
            module,
            names,
            level,
        })
    }

    fn expr_stmt(&mut self) -> PResult<StmtKind> {
        if !self.starts_expr() {
            return Err(self.expected("statement", ""));
        }
        let first = self.star_exprs_or_yield()?;
        if self.at_op(Op::Colon) {
            self.bump();
            if let ExprKind::Tuple(_) = first.kind {
                return Err(Box::new(
                    Diagnostic::error(
                        "only single target (not tuple) can be annotated",
                        first.span,
                    )
                    .with_label(first.span, "tuple target"),
                ));
            }
            self.check_target(&first, TargetCtx::Annotated)?;
            let annotation = self.test()?;
            let value = match self.eat_op(Op::Assign) {
                Some(_) => Some(self.star_exprs_or_yield()?),
                None => None,
            };
            return Ok(StmtKind::AnnAssign {
                target: first,
                annotation,
                value,
            });
        }
        if let Some(op) = self.aug_op() {
            self.bump();
            self.check_target(&first, TargetCtx::AugAssign)?;
            let value = self.star_exprs_or_yield()?;
            self.no_bare_starred(&value)?;
            return Ok(StmtKind::AugAssign {
                target: first,
                op,
                value,
            });
        }
        if self.at_op(Op::Assign) {
            let mut exprs = vec![first];
            while self.eat_op(Op::Assign).is_some() {
                exprs.push(self.star_exprs_or_yield()?);
            }
            let value = exprs
                .pop()
                .unwrap_or_else(|| Expr::new(ExprKind::NoneLit, Span::default()));
            self.no_bare_starred(&value)?;
            for t in &exprs {
                self.check_target(t, TargetCtx::Assign)?;
            }
            return Ok(StmtKind::Assign {
                targets: exprs,
                value,
            });
        }
        if self.at_op(Op::Walrus) {
            let span = self.span();
            return Err(Box::new(
                Diagnostic::error("unparenthesized `:=` is not allowed as a statement", span)
                    .with_label(span, "use `=` or wrap the expression in parentheses"),
            ));
        }
        self.no_bare_starred(&first)?;
        Ok(StmtKind::Expr(first))
    }

    fn aug_op(&self) -> Option<BinOp> {
        let Tok::Op(op) = self.peek() else {
            return None;
        };
        Some(match op {
            Op::AddAssign => BinOp::Add,
            Op::SubAssign => BinOp::Sub,
            Op::MulAssign => BinOp::Mul,
            Op::MatMulAssign => BinOp::MatMul,
            Op::DivAssign => BinOp::Div,
            Op::FloorDivAssign => BinOp::FloorDiv,
            Op::ModAssign => BinOp::Mod,
            Op::PowAssign => BinOp::Pow,
            Op::ShlAssign => BinOp::LShift,
            Op::ShrAssign => BinOp::RShift,
            Op::OrAssign => BinOp::BitOr,
            Op::XorAssign => BinOp::BitXor,
            Op::AndAssign => BinOp::BitAnd,
            _ => return None,
        })
    }

    fn no_bare_starred(&self, e: &Expr) -> PResult<()> {
        if let ExprKind::Starred(_) = e.kind {
            return Err(Box::new(
                Diagnostic::error("cannot use starred expression here", e.span)
                    .with_label(e.span, "starred expression"),
            ));
        }
        Ok(())
    }

    fn check_target(&self, e: &Expr, ctx: TargetCtx) -> PResult<()> {
        match &e.kind {
            ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => Ok(()),
            ExprKind::Tuple(items) | ExprKind::List(items)
                if !matches!(ctx, TargetCtx::AugAssign | TargetCtx::Annotated) =>
            {
                let mut starred = items
                    .iter()
                    .filter(|i| matches!(i.kind, ExprKind::Starred(_)));
                if let (Some(_), Some(second)) = (starred.next(), starred.next()) {
                    return Err(Box::new(
                        Diagnostic::error(
                            "multiple starred expressions in assignment",
                            second.span,
                        )
                        .with_label(second.span, "second starred target"),
                    ));
                }
                for item in items {
                    match &item.kind {
                        ExprKind::Starred(inner) if ctx != TargetCtx::Delete => {
                            self.check_target(inner, ctx)?;
                        }
                        _ => self.check_target(item, ctx)?,
                    }
                }
                Ok(())
            }
            ExprKind::Starred(_) if ctx != TargetCtx::Delete => Err(Box::new(
                Diagnostic::error(
                    "starred assignment target must be in a list or tuple",
                    e.span,
                )
                .with_label(e.span, "starred target"),
            )),
            _ => {
                let what = describe_expr(e);
                let msg = match ctx {
                    TargetCtx::Delete => format!("cannot delete {what}"),
                    TargetCtx::AugAssign => {
                        format!("{what} is an illegal target for augmented assignment")
                    }
                    TargetCtx::Annotated => format!("{what} cannot be annotated"),
                    TargetCtx::With => format!("cannot use {what} as a `with` target"),
                    _ => format!("cannot assign to {what}"),
                };
                let mut d = Diagnostic::error(msg, e.span).with_label(e.span, "not a valid target");
                if ctx == TargetCtx::Assign
                    && matches!(e.kind, ExprKind::Call { .. } | ExprKind::Compare { .. })
                {
                    d = d.with_note("maybe you meant `==` instead of `=`?");
                }
                if matches!(ctx, TargetCtx::For | TargetCtx::Comprehension) {
                    d = d.with_note("a loop target must be a name, attribute, subscript or tuple");
                }
                Err(Box::new(d))
            }
        }
    }

    // Compound statements ----------------------------------------------------

    fn decorated(&mut self) -> PResult<Stmt> {
        let start = self.start();
        let mut decorators = Vec::new();
        while self.eat_op(Op::At).is_some() {
            decorators.push(self.named_expr()?);
            if !matches!(self.peek(), Tok::Newline) {
                return Err(self.expected("end of line", "after decorator"));
            }
            self.bump();
        }
        match self.peek() {
            Tok::Kw(Kw::Def) => self.funcdef(start, decorators),
            Tok::Kw(Kw::Class) => self.classdef(start, decorators),
            Tok::Kw(Kw::Async) => Err(self.error(
                "`async` functions and statements are not supported",
                self.span(),
            )),
            _ => Err(self.expected("`def` or `class`", "after decorator")),
        }
    }

    fn funcdef(&mut self, start: u32, decorators: Vec<Expr>) -> PResult<Stmt> {
        let def_start = self.bump().start;
        let name = self.expect_name("function name", "after `def`")?;
        self.expect_op(Op::LParen, "after function name")?;
        let params = self.params(false)?;
        self.expect_op(Op::RParen, "to close the parameter list")?;
        let returns = match self.eat_op(Op::Arrow) {
            Some(_) => Some(self.test()?),
            None => None,
        };
        self.expect_op(Op::Colon, "after function signature")?;
        let body = self.block("function definition", def_start)?;
        Ok(Stmt {
            kind: StmtKind::FunctionDef(Box::new(FunctionDef {
                name: name.name,
                name_span: name.span,
                decorators,
                params,
                returns,
                body,
            })),
            span: self.span_from(start),
        })
    }

    fn classdef(&mut self, start: u32, decorators: Vec<Expr>) -> PResult<Stmt> {
        let class_start = self.bump().start;
        let name = self.expect_name("class name", "after `class`")?;
        let (mut bases, mut keywords) = (Vec::new(), Vec::new());
        if self.eat_op(Op::LParen).is_some() {
            for arg in self.call_args()? {
                match arg {
                    Arg::Positional(e) => bases.push(e),
                    Arg::Starred(e) => {
                        let span = e.span;
                        bases.push(Expr::new(ExprKind::Starred(Box::new(e)), span));
                    }
                    Arg::Keyword(k) => keywords.push(k),
                    Arg::DoubleStarred(e) => {
                        return Err(self.error("`**` in class bases is not supported", e.span))
                    }
                }
            }
        }
        self.expect_op(Op::Colon, "after class header")?;
        let body = self.block("class definition", class_start)?;
        Ok(Stmt {
            kind: StmtKind::ClassDef(Box::new(ClassDef {
                name: name.name,
                name_span: name.span,
                decorators,
                bases,
                keywords,
                body,
            })),
            span: self.span_from(start),
        })
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        // (start, test, body) for the `if` and each `elif`, built into a
        // nested chain afterwards (no recursion while parsing).
        let mut arms = Vec::new();
        let mut orelse = Vec::new();
        let saved = self.depth;
        let mut kw = "`if`";
        loop {
            let start = self.bump().start;
            let test = self.named_expr()?;
            self.expect_op(Op::Colon, &format!("after {kw} condition"))?;
            let body = self.block(&format!("{kw} statement"), start)?;
            arms.push((start, test, body));
            if self.at_kw(Kw::Elif) {
                self.chain()?;
                kw = "`elif`";
                continue;
            }
            if let Some(s) = self.eat_kw(Kw::Else) {
                self.expect_op(Op::Colon, "after `else`")?;
                orelse = self.block("`else` statement", s.start)?;
            }
            break;
        }
        self.depth = saved;
        let end = self.last_end;
        let mut result = None;
        while let Some((start, test, body)) = arms.pop() {
            let stmt = Stmt {
                kind: StmtKind::If { test, body, orelse },
                span: Span::new(start, end),
            };
            orelse = Vec::new();
            if arms.is_empty() {
                result = Some(stmt);
            } else {
                orelse.push(stmt);
            }
        }
        result.ok_or_else(|| self.error("internal error: empty `if` chain", self.span()))
    }

    fn else_block(&mut self) -> PResult<Vec<Stmt>> {
        match self.eat_kw(Kw::Else) {
            Some(s) => {
                self.expect_op(Op::Colon, "after `else`")?;
                self.block("`else` statement", s.start)
            }
            None => Ok(Vec::new()),
        }
    }

    fn while_stmt(&mut self) -> PResult<Stmt> {
        let start = self.bump().start;
        let test = self.named_expr()?;
        self.expect_op(Op::Colon, "after `while` condition")?;
        let body = self.block("`while` statement", start)?;
        let orelse = self.else_block()?;
        Ok(Stmt {
            kind: StmtKind::While { test, body, orelse },
            span: self.span_from(start),
        })
    }

    fn for_stmt(&mut self) -> PResult<Stmt> {
        let start = self.bump().start;
        let target = self.target_list()?;
        self.check_target(&target, TargetCtx::For)?;
        self.expect_kw(Kw::In, "after `for` target")?;
        let iter = self.star_exprs()?;
        self.no_bare_starred(&iter)?;
        self.expect_op(Op::Colon, "after `for` header")?;
        let body = self.block("`for` statement", start)?;
        let orelse = self.else_block()?;
        Ok(Stmt {
            kind: StmtKind::For {
                target,
                iter,
                body,
                orelse,
            },
            span: self.span_from(start),
        })
    }

    fn try_stmt(&mut self) -> PResult<Stmt> {
        let start = self.bump().start;
        self.expect_op(Op::Colon, "after `try`")?;
        let body = self.block("`try` statement", start)?;
        let mut handlers = Vec::new();
        while self.at_kw(Kw::Except) {
            let hstart = self.bump().start;
            if self.at_op(Op::Star) {
                return Err(self.error("`except*` is not supported", self.span()));
            }
            let (mut type_, mut name) = (None, None);
            if !self.at_op(Op::Colon) {
                type_ = Some(self.test()?);
                if self.eat_kw(Kw::As).is_some() {
                    name = Some(self.expect_name("identifier", "after `as`")?);
                }
            }
            self.expect_op(Op::Colon, "after `except` clause")?;
            let hbody = self.block("`except` clause", hstart)?;
            handlers.push(ExceptHandler {
                type_,
                name,
                body: hbody,
                span: self.span_from(hstart),
            });
        }
        let orelse = if handlers.is_empty() {
            Vec::new()
        } else {
            self.else_block()?
        };
        let finalbody = match self.eat_kw(Kw::Finally) {
            Some(s) => {
                self.expect_op(Op::Colon, "after `finally`")?;
                self.block("`finally` clause", s.start)?
            }
            None => Vec::new(),
        };
        if handlers.is_empty() && finalbody.is_empty() {
            return Err(self.expected("`except` or `finally` block", "after `try` block"));
        }
        Ok(Stmt {
            kind: StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            },
            span: self.span_from(start),
        })
    }

    fn with_stmt(&mut self) -> PResult<Stmt> {
        let start = self.bump().start;
        let mut items = None;
        if self.at_op(Op::LParen) {
            // `with (a as b, c):` — try the parenthesized item list first and
            // fall back to an ordinary expression (`with (a, b):`).
            let (pos, last_end, nesting, depth) =
                (self.pos, self.last_end, self.nesting, self.depth);
            match self.paren_with_items() {
                Ok(parsed) => items = Some(parsed),
                Err(_) => {
                    self.pos = pos;
                    self.last_end = last_end;
                    self.nesting = nesting;
                    self.depth = depth;
                }
            }
        }
        let items = match items {
            Some(items) => items,
            None => {
                let mut items = Vec::new();
                loop {
                    items.push(self.with_item()?);
                    if self.eat_op(Op::Comma).is_none() {
                        break;
                    }
                }
                items
            }
        };
        self.expect_op(Op::Colon, "after `with` items")?;
        let body = self.block("`with` statement", start)?;
        Ok(Stmt {
            kind: StmtKind::With { items, body },
            span: self.span_from(start),
        })
    }

    fn paren_with_items(&mut self) -> PResult<Vec<WithItem>> {
        self.bump();
        self.enter()?;
        let mut items = Vec::new();
        loop {
            items.push(self.with_item()?);
            if self.eat_op(Op::Comma).is_none() || self.at_op(Op::RParen) {
                break;
            }
        }
        self.expect_op(Op::RParen, "")?;
        if !self.at_op(Op::Colon) {
            return Err(self.expected("`:`", ""));
        }
        self.leave();
        Ok(items)
    }

    fn with_item(&mut self) -> PResult<WithItem> {
        let start = self.start();
        let context = self.test()?;
        let vars = match self.eat_kw(Kw::As) {
            Some(_) => {
                let t = self.target_item()?;
                self.check_target(&t, TargetCtx::With)?;
                Some(t)
            }
            None => None,
        };
        Ok(WithItem {
            context,
            vars,
            span: self.span_from(start),
        })
    }

    // -----------------------------------------------------------------------
    // Parameters and arguments
    // -----------------------------------------------------------------------

    /// Parses a parameter list up to (not including) `)` or, for lambdas,
    /// `:`.
    fn params(&mut self, lambda: bool) -> PResult<Params> {
        let closer = if lambda { Op::Colon } else { Op::RParen };
        let mut p = Params::default();
        let mut seen_star: Option<Span> = None;
        let mut bare_star: Option<Span> = None;
        let mut seen_default = false;
        let mut names: HashSet<String> = HashSet::new();
        loop {
            if self.at_op(closer) {
                break;
            }
            if let Some(slash) = self.eat_op(Op::Slash) {
                if seen_star.is_some() || !p.posonly.is_empty() || p.args.is_empty() {
                    let msg = if p.args.is_empty() && p.posonly.is_empty() {
                        "at least one parameter must precede `/`"
                    } else if seen_star.is_some() {
                        "`/` must come before `*`"
                    } else {
                        "`/` may appear only once"
                    };
                    return Err(self.error(msg, slash));
                }
                p.posonly = std::mem::take(&mut p.args);
            } else if let Some(star) = self.eat_op(Op::Pow) {
                let param = self.param(star.start, lambda, false)?;
                self.check_dup(&mut names, &param)?;
                p.kwarg = Some(param);
                self.eat_op(Op::Comma);
                if !self.at_op(closer) {
                    return Err(Box::new(
                        Diagnostic::error(
                            "parameters cannot follow the `**` parameter",
                            self.error_span(),
                        )
                        .with_label(star, "`**` parameter here"),
                    ));
                }
                break;
            } else if let Some(star) = self.eat_op(Op::Star) {
                if seen_star.is_some() {
                    return Err(self.error("`*` may appear only once", star));
                }
                seen_star = Some(star);
                if self.at_op(Op::Comma) || self.at_op(closer) {
                    bare_star = Some(star);
                } else {
                    let param = self.param(star.start, lambda, false)?;
                    self.check_dup(&mut names, &param)?;
                    p.vararg = Some(param);
                }
            } else {
                let param = self.param(self.start(), lambda, true)?;
                self.check_dup(&mut names, &param)?;
                if seen_star.is_some() {
                    p.kwonly.push(param);
                } else {
                    if param.default.is_some() {
                        seen_default = true;
                    } else if seen_default {
                        return Err(Box::new(
                            Diagnostic::error(
                                "parameter without a default follows parameter with a default",
                                param.span,
                            )
                            .with_label(param.name_span, "needs a default value"),
                        ));
                    }
                    p.args.push(param);
                }
            }
            if self.eat_op(Op::Comma).is_none() {
                break;
            }
        }
        if let Some(star) = bare_star {
            if p.kwonly.is_empty() {
                return Err(self.error("named parameters must follow bare `*`", star));
            }
        }
        Ok(p)
    }

    fn check_dup(&self, names: &mut HashSet<String>, param: &Param) -> PResult<()> {
        if !names.insert(param.name.clone()) {
            return Err(self.error(
                format!(
                    "duplicate parameter `{}` in function definition",
                    param.name
                ),
                param.name_span,
            ));
        }
        Ok(())
    }

    fn param(&mut self, start: u32, lambda: bool, allow_default: bool) -> PResult<Param> {
        let name = self.expect_name("parameter name", "")?;
        let annotation = if !lambda && self.eat_op(Op::Colon).is_some() {
            Some(self.test()?)
        } else {
            None
        };
        let default = if allow_default && self.eat_op(Op::Assign).is_some() {
            Some(self.test()?)
        } else {
            None
        };
        Ok(Param {
            name: name.name,
            name_span: name.span,
            annotation,
            default,
            span: self.span_from(start),
        })
    }

    /// Parses call arguments after `(`, including the closing `)`.
    fn call_args(&mut self) -> PResult<Vec<Arg>> {
        self.enter()?;
        let mut args: Vec<Arg> = Vec::new();
        let mut seen = SeenArgs::default();
        while !self.at_op(Op::RParen) {
            let arg = self.call_arg(&mut seen, args.is_empty())?;
            args.push(arg);
            if self.eat_op(Op::Comma).is_none() {
                break;
            }
        }
        if !self.at_op(Op::RParen) {
            return Err(self.expected("`,` or `)`", "in argument list"));
        }
        self.bump();
        self.leave();
        Ok(args)
    }

    /// One call argument; `seen` summarizes the arguments before it.
    fn call_arg(&mut self, seen: &mut SeenArgs, first: bool) -> PResult<Arg> {
        let start = self.start();
        if self.eat_op(Op::Star).is_some() {
            let e = self.test()?;
            let span = self.span_from(start);
            return Ok(Arg::Starred(Expr::new(
                ExprKind::Starred(Box::new(e)),
                span,
            )));
        }
        if self.eat_op(Op::Pow).is_some() {
            seen.double_starred = true;
            return Ok(Arg::DoubleStarred(self.test()?));
        }
        if matches!(self.peek(), Tok::Name(_)) && matches!(self.peek_nth(1), Tok::Op(Op::Assign)) {
            return self.keyword_arg(seen);
        }
        let e = self.named_expr()?;
        if self.at_kw(Kw::For) {
            return self.genexp_arg(e, first);
        }
        if seen.keyword.is_some() || seen.double_starred {
            return Err(self.positional_after_keyword(&e, seen));
        }
        Ok(Arg::Positional(e))
    }

    fn keyword_arg(&mut self, seen: &mut SeenArgs) -> PResult<Arg> {
        let name = self.expect_name("argument name", "")?;
        self.bump();
        let value = self.test()?;
        if !seen.keyword_names.insert(name.name.clone()) {
            return Err(self.error(
                format!("keyword argument repeated: `{}`", name.name),
                name.span,
            ));
        }
        seen.keyword = Some(name.span);
        Ok(Arg::Keyword(Keyword {
            span: self.span_from(name.span.start),
            name: name.name,
            name_span: name.span,
            value,
        }))
    }

    /// `f(x for x in y)`: a generator expression as the sole argument.
    fn genexp_arg(&mut self, elt: Expr, first: bool) -> PResult<Arg> {
        if !first {
            return Err(self.genexp_parens(elt.span));
        }
        let start = elt.span.start;
        let generators = self.comprehension()?;
        let g = Expr::new(
            ExprKind::GeneratorExp {
                elt: Box::new(elt),
                generators,
            },
            self.span_from(start),
        );
        if self.at_op(Op::Comma) && !matches!(self.peek_nth(1), Tok::Op(Op::RParen)) {
            return Err(self.genexp_parens(g.span));
        }
        Ok(Arg::Positional(g))
    }

    #[cold]
    fn positional_after_keyword(&self, e: &Expr, seen: &SeenArgs) -> Box<Diagnostic> {
        let what = if seen.double_starred {
            "keyword argument unpacking"
        } else {
            "keyword argument"
        };
        let mut d = Diagnostic::error(format!("positional argument follows {what}"), e.span);
        if let Some(k) = seen.keyword {
            d = d.with_label(k, "keyword argument here");
        }
        Box::new(d)
    }

    fn genexp_parens(&self, span: Span) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::error("generator expression must be parenthesized", span)
                .with_label(span, "add parentheses around this"),
        )
    }

    // -----------------------------------------------------------------------
    // Expressions
    // -----------------------------------------------------------------------

    /// `star_expressions`, or a `yield` expression.
    fn star_exprs_or_yield(&mut self) -> PResult<Expr> {
        if self.at_kw(Kw::Yield) {
            self.yield_expr()
        } else {
            self.star_exprs()
        }
    }

    fn yield_expr(&mut self) -> PResult<Expr> {
        let start = self.bump().start;
        if self.eat_kw(Kw::From).is_some() {
            let e = self.test()?;
            return Ok(Expr::new(
                ExprKind::YieldFrom(Box::new(e)),
                self.span_from(start),
            ));
        }
        let value = if self.starts_expr() {
            Some(Box::new(self.star_exprs()?))
        } else {
            None
        };
        Ok(Expr::new(ExprKind::Yield(value), self.span_from(start)))
    }

    /// `a, *b, c` — an unparenthesized tuple if there is a comma.
    fn star_exprs(&mut self) -> PResult<Expr> {
        let start = self.start();
        let first = self.star_expr()?;
        if !self.at_op(Op::Comma) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(Op::Comma).is_some() {
            if !self.starts_expr() {
                break;
            }
            items.push(self.star_expr()?);
        }
        Ok(Expr::new(ExprKind::Tuple(items), self.span_from(start)))
    }

    /// `*bitwise_or` or an expression.
    fn star_expr(&mut self) -> PResult<Expr> {
        if let Some(star) = self.eat_op(Op::Star) {
            let e = self.bitwise_or()?;
            return Ok(Expr::new(
                ExprKind::Starred(Box::new(e)),
                self.span_from(star.start),
            ));
        }
        self.test()
    }

    /// `*bitwise_or` or a named expression (display and subscript items).
    fn star_named(&mut self) -> PResult<Expr> {
        if self.at_op(Op::Star) {
            self.star_expr()
        } else {
            self.named_expr()
        }
    }

    /// `NAME := expression` or an expression.
    fn named_expr(&mut self) -> PResult<Expr> {
        if matches!(self.peek_nth(1), Tok::Op(Op::Walrus)) {
            return self.walrus();
        }
        self.test()
    }

    fn walrus(&mut self) -> PResult<Expr> {
        let target = self.expect_name("identifier", "before `:=`")?;
        self.bump();
        let value = self.test()?;
        let target = Expr::new(ExprKind::Name(target.name), target.span);
        let span = self.span_from(target.span.start);
        Ok(Expr::new(
            ExprKind::NamedExpr {
                target: Box::new(target),
                value: Box::new(value),
            },
            span,
        ))
    }

    /// A target list for `for` loops and comprehensions (stops before `in`).
    fn target_list(&mut self) -> PResult<Expr> {
        let start = self.start();
        let first = self.target_item()?;
        if !self.at_op(Op::Comma) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(Op::Comma).is_some() {
            if !self.starts_expr() {
                break;
            }
            items.push(self.target_item()?);
        }
        Ok(Expr::new(ExprKind::Tuple(items), self.span_from(start)))
    }

    fn target_item(&mut self) -> PResult<Expr> {
        if let Some(star) = self.eat_op(Op::Star) {
            let e = self.bitwise_or()?;
            return Ok(Expr::new(
                ExprKind::Starred(Box::new(e)),
                self.span_from(star.start),
            ));
        }
        self.bitwise_or()
    }

    /// `expression`: a conditional expression, a lambda or a disjunction.
    fn test(&mut self) -> PResult<Expr> {
        if self.at_kw(Kw::Lambda) {
            return self.lambda();
        }
        let start = self.start();
        let body = self.or_test()?;
        if self.at_kw(Kw::If) {
            return self.if_exp(body, start);
        }
        Ok(body)
    }

    /// The rest of `body if test else orelse`, at the `if`.
    fn if_exp(&mut self, body: Expr, start: u32) -> PResult<Expr> {
        self.bump();
        let test = self.or_test()?;
        self.expect_kw(Kw::Else, "in conditional expression")?;
        self.enter()?;
        let orelse = self.test()?;
        self.leave();
        let span = self.span_from(start);
        Ok(Expr::new(
            ExprKind::IfExp {
                test: Box::new(test),
                body: Box::new(body),
                orelse: Box::new(orelse),
            },
            span,
        ))
    }

    fn lambda(&mut self) -> PResult<Expr> {
        self.enter()?;
        let start = self.bump().start;
        let params = self.params(true)?;
        self.expect_op(Op::Colon, "after lambda parameters")?;
        let body = self.test()?;
        self.leave();
        Ok(Expr::new(
            ExprKind::Lambda {
                params: Box::new(params),
                body: Box::new(body),
            },
            self.span_from(start),
        ))
    }

    /// `disjunction`: everything below conditional expressions.
    fn or_test(&mut self) -> PResult<Expr> {
        self.operators(BP_OR)
    }

    /// `bitwise_or`: the operand level of starred items and loop targets.
    fn bitwise_or(&mut self) -> PResult<Expr> {
        self.operators(BP_BITOR)
    }

    /// The infix operator at the current token and its binding power.
    fn infix(&self) -> Option<(Infix, u8)> {
        let infix = match self.peek() {
            Tok::Kw(Kw::Or) => (Infix::Bool(BoolOp::Or), BP_OR),
            Tok::Kw(Kw::And) => (Infix::Bool(BoolOp::And), BP_AND),
            Tok::Kw(Kw::In) => (Infix::Cmp(CmpOp::In, 1), BP_CMP),
            Tok::Kw(Kw::Not) if matches!(self.peek_nth(1), Tok::Kw(Kw::In)) => {
                (Infix::Cmp(CmpOp::NotIn, 2), BP_CMP)
            }
            Tok::Kw(Kw::Is) if matches!(self.peek_nth(1), Tok::Kw(Kw::Not)) => {
                (Infix::Cmp(CmpOp::IsNot, 2), BP_CMP)
            }
            Tok::Kw(Kw::Is) => (Infix::Cmp(CmpOp::Is, 1), BP_CMP),
            Tok::Op(op) => match op {
                Op::EqEq => (Infix::Cmp(CmpOp::Eq, 1), BP_CMP),
                Op::NotEq => (Infix::Cmp(CmpOp::NotEq, 1), BP_CMP),
                Op::Lt => (Infix::Cmp(CmpOp::Lt, 1), BP_CMP),
                Op::LtE => (Infix::Cmp(CmpOp::LtE, 1), BP_CMP),
                Op::Gt => (Infix::Cmp(CmpOp::Gt, 1), BP_CMP),
                Op::GtE => (Infix::Cmp(CmpOp::GtE, 1), BP_CMP),
                Op::Pipe => (Infix::Bin(BinOp::BitOr), BP_BITOR),
                Op::Caret => (Infix::Bin(BinOp::BitXor), BP_BITXOR),
                Op::Amp => (Infix::Bin(BinOp::BitAnd), BP_BITAND),
                Op::Shl => (Infix::Bin(BinOp::LShift), BP_SHIFT),
                Op::Shr => (Infix::Bin(BinOp::RShift), BP_SHIFT),
                Op::Plus => (Infix::Bin(BinOp::Add), BP_SUM),
                Op::Minus => (Infix::Bin(BinOp::Sub), BP_SUM),
                Op::Star => (Infix::Bin(BinOp::Mul), BP_TERM),
                Op::Slash => (Infix::Bin(BinOp::Div), BP_TERM),
                Op::FloorDiv => (Infix::Bin(BinOp::FloorDiv), BP_TERM),
                Op::Percent => (Infix::Bin(BinOp::Mod), BP_TERM),
                Op::At => (Infix::Bin(BinOp::MatMul), BP_TERM),
                Op::Pow => (Infix::Bin(BinOp::Pow), BP_POW),
                _ => return None,
            },
            _ => return None,
        };
        Some(infix)
    }

    /// Operator-precedence parsing of everything from `or` down to `**`,
    /// accepting only operators that bind at least as tightly as `min_bp`.
    ///
    /// One function for all levels keeps the recursion per nested bracket
    /// short: the stack cost of deeply nested input is dominated by the
    /// number of frames per nesting level.
    fn operators(&mut self, min_bp: u8) -> PResult<Expr> {
        let start = self.start();
        let mut lhs = self.prefix(min_bp)?;
        let saved = self.depth;
        while let Some((op, bp)) = self.infix() {
            if bp < min_bp {
                break;
            }
            lhs = match op {
                Infix::Bin(op) => self.binary_rhs(lhs, op, start)?,
                Infix::Bool(op) => self.bool_rhs(lhs, op, bp, start)?,
                Infix::Cmp(..) => self.compare_rhs(lhs, start)?,
            };
        }
        self.depth = saved;
        Ok(lhs)
    }

    /// A prefix operator (`not`, `-`, `+`, `~`) applied to its operand, or a
    /// primary.
    fn prefix(&mut self, min_bp: u8) -> PResult<Expr> {
        let (op, bp) = match self.peek() {
            Tok::Kw(Kw::Not) if min_bp <= BP_NOT => (UnaryOp::Not, BP_NOT),
            Tok::Op(Op::Minus) => (UnaryOp::Neg, BP_UNARY),
            Tok::Op(Op::Plus) => (UnaryOp::Pos, BP_UNARY),
            Tok::Op(Op::Tilde) => (UnaryOp::Invert, BP_UNARY),
            Tok::Kw(Kw::Await) => {
                return Err(self.error("`await` is not supported", self.span()));
            }
            _ => return self.primary(),
        };
        self.enter()?;
        let start = self.bump().start;
        let operand = self.operators(bp)?;
        self.leave();
        Ok(Expr::new(
            ExprKind::UnaryOp {
                op,
                operand: Box::new(operand),
            },
            self.span_from(start),
        ))
    }

    /// `lhs op rhs` for a binary operator at the current token. All are
    /// left-associative except `**`, whose right operand may carry a unary
    /// operator (`2 ** -1`).
    fn binary_rhs(&mut self, lhs: Expr, op: BinOp, start: u32) -> PResult<Expr> {
        let rhs = if op == BinOp::Pow {
            self.enter()?;
            self.bump();
            let rhs = self.operators(BP_UNARY)?;
            self.leave();
            rhs
        } else {
            self.chain()?;
            self.bump();
            self.operators(binding_power(op) + 1)?
        };
        let span = self.span_from(start);
        Ok(Expr::new(
            ExprKind::BinOp {
                left: Box::new(lhs),
                op,
                right: Box::new(rhs),
            },
            span,
        ))
    }

    /// `lhs and b and c` (flattened), at the first `and`/`or`.
    fn bool_rhs(&mut self, lhs: Expr, op: BoolOp, bp: u8, start: u32) -> PResult<Expr> {
        let kw = if op == BoolOp::And { Kw::And } else { Kw::Or };
        let mut values = vec![lhs];
        while self.eat_kw(kw).is_some() {
            values.push(self.operators(bp + 1)?);
        }
        let span = self.span_from(start);
        Ok(Expr::new(ExprKind::BoolOp { op, values }, span))
    }

    /// `lhs < b <= c` (a flattened chain), at the first comparison operator.
    fn compare_rhs(&mut self, lhs: Expr, start: u32) -> PResult<Expr> {
        let mut ops = Vec::new();
        let mut comparators = Vec::new();
        while let Some((Infix::Cmp(op, tokens), _)) = self.infix() {
            for _ in 0..tokens {
                self.bump();
            }
            ops.push(op);
            comparators.push(self.operators(BP_CMP + 1)?);
        }
        let span = self.span_from(start);
        Ok(Expr::new(
            ExprKind::Compare {
                left: Box::new(lhs),
                ops,
                comparators,
            },
            span,
        ))
    }

    /// An atom followed by `.name`, `(args)` and `[index]` trailers.
    fn primary(&mut self) -> PResult<Expr> {
        let start = self.start();
        let mut e = self.atom()?;
        let saved = self.depth;
        while matches!(self.peek(), Tok::Op(Op::Dot | Op::LParen | Op::LBracket)) {
            self.chain()?;
            e = self.trailer(e, start)?;
        }
        self.depth = saved;
        Ok(e)
    }

    /// Applies one trailer to `e` (which started at `start`).
    fn trailer(&mut self, e: Expr, start: u32) -> PResult<Expr> {
        let kind = match self.peek() {
            Tok::Op(Op::Dot) => {
                self.bump();
                let attr = self.expect_name("attribute name", "after `.`")?;
                ExprKind::Attribute {
                    value: Box::new(e),
                    attr: attr.name,
                    attr_span: attr.span,
                }
            }
            Tok::Op(Op::LParen) => {
                self.bump();
                ExprKind::Call {
                    func: Box::new(e),
                    args: self.call_args()?,
                }
            }
            _ => {
                self.bump();
                let index = self.subscript_index()?;
                self.expect_op(Op::RBracket, "to close the subscript")?;
                ExprKind::Subscript {
                    value: Box::new(e),
                    index: Box::new(index),
                }
            }
        };
        Ok(Expr::new(kind, self.span_from(start)))
    }

    fn subscript_index(&mut self) -> PResult<Expr> {
        self.enter()?;
        let start = self.start();
        let first = self.slice_item()?;
        let result = if self.at_op(Op::Comma) {
            let mut items = vec![first];
            while self.eat_op(Op::Comma).is_some() {
                if self.at_op(Op::RBracket) {
                    break;
                }
                items.push(self.slice_item()?);
            }
            Expr::new(ExprKind::Tuple(items), self.span_from(start))
        } else {
            first
        };
        self.leave();
        Ok(result)
    }

    fn slice_item(&mut self) -> PResult<Expr> {
        let start = self.start();
        let lower = if self.at_op(Op::Colon) {
            None
        } else if self.at_op(Op::Star) {
            return self.star_expr();
        } else {
            Some(self.named_expr()?)
        };
        if self.eat_op(Op::Colon).is_none() {
            return lower.ok_or_else(|| self.expected("expression", "in subscript"));
        }
        let ends = |p: &Self| p.at_op(Op::Colon) || p.at_op(Op::Comma) || p.at_op(Op::RBracket);
        let upper = if ends(self) {
            None
        } else {
            Some(Box::new(self.test()?))
        };
        let mut step = None;
        if self.eat_op(Op::Colon).is_some() && !(self.at_op(Op::Comma) || self.at_op(Op::RBracket))
        {
            step = Some(Box::new(self.test()?));
        }
        Ok(Expr::new(
            ExprKind::Slice {
                lower: lower.map(Box::new),
                upper,
                step,
            },
            self.span_from(start),
        ))
    }

    fn atom(&mut self) -> PResult<Expr> {
        match self.peek() {
            Tok::Str(_) => self.strings(),
            Tok::Op(Op::LParen) => self.paren(),
            Tok::Op(Op::LBracket) => self.list(),
            Tok::Op(Op::LBrace) => self.brace(),
            _ => self.literal(),
        }
    }

    /// Names, numbers, `True`/`False`/`None` and `...`.
    fn literal(&mut self) -> PResult<Expr> {
        let span = self.span();
        let kind = match self.peek() {
            Tok::Name(n) => ExprKind::Name(n.clone()),
            Tok::Int(v) => ExprKind::Int(*v),
            Tok::Float(v) => ExprKind::Float(*v),
            Tok::Imag(v) => ExprKind::Imag(*v),
            Tok::Kw(Kw::True) => ExprKind::Bool(true),
            Tok::Kw(Kw::False) => ExprKind::Bool(false),
            Tok::Kw(Kw::None) => ExprKind::NoneLit,
            Tok::Op(Op::Ellipsis) => ExprKind::Ellipsis,
            _ => return Err(self.expected("expression", "")),
        };
        self.bump();
        Ok(Expr::new(kind, span))
    }

    fn paren(&mut self) -> PResult<Expr> {
        self.enter()?;
        let start = self.bump().start;
        if self.eat_op(Op::RParen).is_some() {
            self.leave();
            return Ok(Expr::new(
                ExprKind::Tuple(Vec::new()),
                self.span_from(start),
            ));
        }
        if self.at_kw(Kw::Yield) {
            let e = self.yield_expr()?;
            self.expect_op(Op::RParen, "to close the parenthesized expression")?;
            self.leave();
            return Ok(e);
        }
        let first = self.star_named()?;
        let result = if self.at_kw(Kw::For) {
            let generators = self.comprehension()?;
            self.expect_op(Op::RParen, "to close the generator expression")?;
            Expr::new(
                ExprKind::GeneratorExp {
                    elt: Box::new(first),
                    generators,
                },
                self.span_from(start),
            )
        } else if self.at_op(Op::Comma) {
            let mut items = vec![first];
            while self.eat_op(Op::Comma).is_some() {
                if self.at_op(Op::RParen) {
                    break;
                }
                items.push(self.star_named()?);
            }
            self.expect_op(Op::RParen, "to close the tuple")?;
            Expr::new(ExprKind::Tuple(items), self.span_from(start))
        } else {
            self.expect_op(Op::RParen, "to close the parenthesized expression")?;
            self.no_bare_starred(&first)?;
            first
        };
        self.leave();
        Ok(result)
    }

    fn list(&mut self) -> PResult<Expr> {
        self.enter()?;
        let start = self.bump().start;
        if self.eat_op(Op::RBracket).is_some() {
            self.leave();
            return Ok(Expr::new(ExprKind::List(Vec::new()), self.span_from(start)));
        }
        let first = self.star_named()?;
        let result = if self.at_kw(Kw::For) {
            let generators = self.comprehension()?;
            self.expect_op(Op::RBracket, "to close the list comprehension")?;
            ExprKind::ListComp {
                elt: Box::new(first),
                generators,
            }
        } else {
            let items = self.display_items(first, Op::RBracket, "list")?;
            ExprKind::List(items)
        };
        self.leave();
        Ok(Expr::new(result, self.span_from(start)))
    }

    /// The rest of a list/set display after its first item, including the
    /// closing bracket.
    fn display_items(&mut self, first: Expr, close: Op, what: &str) -> PResult<Vec<Expr>> {
        let mut items = vec![first];
        while self.eat_op(Op::Comma).is_some() {
            if self.at_op(close) {
                break;
            }
            items.push(self.star_named()?);
        }
        if !self.at_op(close) {
            return Err(self.expected(
                &format!("`,` or `{}`", close.as_str()),
                &format!("in {what}"),
            ));
        }
        self.bump();
        Ok(items)
    }

    fn brace(&mut self) -> PResult<Expr> {
        self.enter()?;
        let start = self.bump().start;
        let kind = if self.eat_op(Op::RBrace).is_some() {
            ExprKind::Dict(Vec::new())
        } else if self.eat_op(Op::Pow).is_some() {
            let value = self.bitwise_or()?;
            self.dict_items(None, value)?
        } else {
            let first = self.star_named()?;
            if self.eat_op(Op::Colon).is_some() {
                if let ExprKind::Starred(_) = first.kind {
                    return Err(
                        self.error("cannot use a starred expression as a dict key", first.span)
                    );
                }
                let value = self.test()?;
                if self.at_kw(Kw::For) {
                    let generators = self.comprehension()?;
                    self.expect_op(Op::RBrace, "to close the dict comprehension")?;
                    ExprKind::DictComp {
                        key: Box::new(first),
                        value: Box::new(value),
                        generators,
                    }
                } else {
                    self.dict_items(Some(first), value)?
                }
            } else if self.at_kw(Kw::For) {
                let generators = self.comprehension()?;
                self.expect_op(Op::RBrace, "to close the set comprehension")?;
                ExprKind::SetComp {
                    elt: Box::new(first),
                    generators,
                }
            } else {
                ExprKind::Set(self.display_items(first, Op::RBrace, "set")?)
            }
        };
        self.leave();
        Ok(Expr::new(kind, self.span_from(start)))
    }

    fn dict_items(&mut self, key: Option<Expr>, value: Expr) -> PResult<ExprKind> {
        let mut items = vec![(key, value)];
        while self.eat_op(Op::Comma).is_some() {
            if self.at_op(Op::RBrace) {
                break;
            }
            if self.eat_op(Op::Pow).is_some() {
                items.push((None, self.bitwise_or()?));
            } else {
                let k = self.test()?;
                self.expect_op(Op::Colon, "after dictionary key")?;
                let v = self.test()?;
                items.push((Some(k), v));
            }
        }
        if !self.at_op(Op::RBrace) {
            return Err(self.expected("`,` or `}`", "in dictionary"));
        }
        self.bump();
        Ok(ExprKind::Dict(items))
    }

    fn comprehension(&mut self) -> PResult<Vec<Comprehension>> {
        let mut generators = Vec::new();
        while self.at_kw(Kw::For) {
            let start = self.bump().start;
            let target = self.target_list()?;
            self.check_target(&target, TargetCtx::Comprehension)?;
            self.expect_kw(Kw::In, "after comprehension target")?;
            let iter = self.or_test()?;
            let mut ifs = Vec::new();
            while self.eat_kw(Kw::If).is_some() {
                ifs.push(self.or_test()?);
            }
            generators.push(Comprehension {
                target,
                iter,
                ifs,
                span: self.span_from(start),
            });
        }
        if self.at_kw(Kw::Async) {
            return Err(self.error("`async for` is not supported", self.span()));
        }
        Ok(generators)
    }

    // -----------------------------------------------------------------------
    // Strings and f-strings
    // -----------------------------------------------------------------------

    /// One or more adjacent string literals.
    fn strings(&mut self) -> PResult<Expr> {
        let start = self.start();
        let mut toks: Vec<Box<StrTok>> = Vec::new();
        let mut first_kind = None;
        while let Tok::Str(s) = self.peek() {
            let s = s.clone();
            let is_bytes = s.kind == StrKind::Bytes;
            match first_kind {
                None => first_kind = Some(is_bytes),
                Some(b) if b != is_bytes => {
                    return Err(self.error("cannot mix bytes and nonbytes literals", self.span()));
                }
                Some(_) => {}
            }
            self.bump();
            toks.push(s);
        }
        let span = self.span_from(start);
        if first_kind == Some(true) {
            let bytes = toks.iter().flat_map(|t| t.bytes.iter().copied()).collect();
            return Ok(Expr::new(ExprKind::Bytes(bytes), span));
        }
        if toks.iter().all(|t| t.kind != StrKind::FString) {
            let s: String = toks.iter().map(|t| t.value.as_str()).collect();
            return Ok(Expr::new(ExprKind::Str(s), span));
        }
        let mut parts = Vec::new();
        for t in &toks {
            if t.kind == StrKind::FString {
                let (body_parts, _) =
                    self.fstring_parts(t.body.start as usize, t.body.end as usize, t.raw, 0)?;
                for p in body_parts {
                    push_part(&mut parts, p);
                }
            } else {
                push_part(&mut parts, FStringPart::Literal(t.value.clone()));
            }
        }
        Ok(Expr::new(ExprKind::FString(parts), span))
    }

    /// Parses f-string text in `src[pos..end]`. At `level` 0 this is a whole
    /// f-string body; at higher levels it is a format spec, which ends at an
    /// unmatched `}`. Returns the parts and the offset where parsing stopped.
    fn fstring_parts(
        &self,
        mut pos: usize,
        end: usize,
        raw: bool,
        level: u32,
    ) -> PResult<(Vec<FStringPart>, usize)> {
        let bytes = self.src.as_bytes();
        let at = |i: usize| if i < end { bytes.get(i).copied() } else { None };
        let mut parts = Vec::new();
        let mut lit_start = pos;
        let flush = |parts: &mut Vec<FStringPart>, from: usize, to: usize| -> PResult<()> {
            if from < to {
                let text = self.src.get(from..to).unwrap_or("");
                let value = if raw {
                    text.to_string()
                } else {
                    lexer::decode_str(text, from)?
                };
                push_part(parts, FStringPart::Literal(value));
            }
            Ok(())
        };
        while let Some(b) = at(pos) {
            match b {
                b'\\' if !raw => {
                    // Keep escapes intact for `decode_str`, but never let
                    // them swallow a brace; skip over `\N{...}` names.
                    if at(pos + 1) == Some(b'N') && at(pos + 2) == Some(b'{') {
                        pos += 3;
                        while !matches!(at(pos), None | Some(b'}')) {
                            pos += 1;
                        }
                        pos += 1;
                    } else if matches!(at(pos + 1), Some(b'{' | b'}') | None) {
                        pos += 1;
                    } else {
                        pos += 2;
                    }
                }
                b'{' if level == 0 && at(pos + 1) == Some(b'{') => {
                    flush(&mut parts, lit_start, pos + 1)?;
                    pos += 2;
                    lit_start = pos;
                }
                b'}' if level == 0 && at(pos + 1) == Some(b'}') => {
                    flush(&mut parts, lit_start, pos + 1)?;
                    pos += 2;
                    lit_start = pos;
                }
                b'}' if level > 0 => break,
                b'}' => {
                    return Err(Box::new(
                        Diagnostic::error(
                            "f-string: single `}` is not allowed",
                            Span::from_range(pos..pos + 1),
                        )
                        .with_note("write `}}` for a literal `}`"),
                    ));
                }
                b'{' => {
                    flush(&mut parts, lit_start, pos)?;
                    let (field, next) = self.fstring_field(pos, end, raw, level)?;
                    parts.push(FStringPart::Field(field));
                    pos = next;
                    lit_start = pos;
                }
                _ => pos += 1,
            }
        }
        let stop = pos.min(end);
        flush(&mut parts, lit_start, stop)?;
        Ok((parts, stop))
    }

    /// Parses the replacement field starting at the `{` at `open`; returns
    /// it and the offset after its closing `}`.
    fn fstring_field(
        &self,
        open: usize,
        end: usize,
        raw: bool,
        level: u32,
    ) -> PResult<(FStringField, usize)> {
        if level >= 2 {
            return Err(self.error(
                "f-string: expressions nested too deeply",
                Span::from_range(open..open + 1),
            ));
        }
        let bytes = self.src.as_bytes();
        let at = |i: usize| if i < end { bytes.get(i).copied() } else { None };
        let unclosed = || {
            Box::new(
                Diagnostic::error("f-string: expecting `}`", Span::from_range(open..open + 1))
                    .with_label(Span::from_range(open..open + 1), "field opened here"),
            )
        };
        // Find where the expression ends: a top-level `}`, `!`, `:` or the
        // `=` of a self-documenting field.
        let expr_start = open + 1;
        let mut pos = expr_start;
        let mut depth = 0usize;
        let mut debug_eq = None;
        loop {
            let Some(b) = at(pos) else {
                return Err(unclosed());
            };
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' if depth > 0 => depth -= 1,
                b'}' if depth > 0 => depth -= 1,
                b'\'' | b'"' => {
                    let q = b;
                    let triple = at(pos + 1) == Some(q) && at(pos + 2) == Some(q);
                    pos += if triple { 3 } else { 1 };
                    loop {
                        match at(pos) {
                            None => {
                                return Err(self.error(
                                    "f-string: unterminated string",
                                    Span::from_range(open..end),
                                ))
                            }
                            Some(b'\\') => pos += 2,
                            Some(c)
                                if c == q
                                    && (!triple
                                        || (at(pos + 1) == Some(q) && at(pos + 2) == Some(q))) =>
                            {
                                pos += if triple { 3 } else { 1 };
                                break;
                            }
                            Some(_) => pos += 1,
                        }
                    }
                    continue;
                }
                _ if depth > 0 => {}
                b'}' | b':' => break,
                b'!' if at(pos + 1) != Some(b'=') => break,
                b'!' | b'<' | b'>' | b'=' if at(pos + 1) == Some(b'=') => pos += 1,
                b'=' => {
                    debug_eq = Some(pos);
                    break;
                }
                _ => {}
            }
            pos += 1;
        }
        let expr_end = pos;
        let text = self.src.get(expr_start..expr_end).unwrap_or("");
        if text.trim().is_empty() {
            return Err(self.error(
                "f-string: empty expression not allowed",
                Span::from_range(open..expr_end + 1),
            ));
        }
        let expr = self.sub_parse(expr_start, expr_end)?;
        let mut debug_text = None;
        if let Some(eq) = debug_eq {
            pos = eq + 1;
            while matches!(at(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                pos += 1;
            }
            debug_text = Some(self.src.get(expr_start..pos).unwrap_or("").to_string());
        }
        let mut conversion = None;
        if at(pos) == Some(b'!') {
            let c = at(pos + 1);
            match c {
                Some(c @ (b's' | b'r' | b'a')) if matches!(at(pos + 2), Some(b':' | b'}')) => {
                    conversion = Some(c as char);
                    pos += 2;
                }
                _ => {
                    let len = self
                        .src
                        .get(pos + 1..end)
                        .and_then(|s| s.chars().next())
                        .map_or(0, char::len_utf8);
                    return Err(Box::new(
                        Diagnostic::error(
                            "f-string: invalid conversion character",
                            Span::from_range(pos..pos + 1 + len),
                        )
                        .with_note("expected `!s`, `!r` or `!a`"),
                    ));
                }
            }
        }
        let mut format_spec = None;
        if at(pos) == Some(b':') {
            let (spec, stop) = self.fstring_parts(pos + 1, end, raw, level + 1)?;
            format_spec = Some(spec);
            pos = stop;
        }
        if at(pos) != Some(b'}') {
            return Err(unclosed());
        }
        pos += 1;
        if debug_text.is_some() && conversion.is_none() && format_spec.is_none() {
            conversion = Some('r');
        }
        Ok((
            FStringField {
                expr: Box::new(expr),
                debug_text,
                conversion,
                format_spec,
                span: Span::from_range(open..pos),
            },
            pos,
        ))
    }

    /// Parses the expression of an f-string field in `src[start..end]`.
    fn sub_parse(&self, start: usize, end: usize) -> PResult<Expr> {
        let lexed = lexer::tokenize_expr(self.src, start, end, true);
        let mut sub = Parser::new(self.src, lexed);
        sub.nesting = self.nesting + 1;
        sub.depth = self.depth + 1;
        sub.in_fstring = true;
        sub.last_end = u32::try_from(start).unwrap_or(u32::MAX);
        if sub.nesting > MAX_NESTING || sub.depth > MAX_DEPTH {
            return Err(sub.too_deep());
        }
        let e = sub.star_exprs_or_yield()?;
        if !matches!(sub.peek(), Tok::Eof) {
            return Err(sub.expected("`}`", "after f-string expression"));
        }
        Ok(e)
    }
}

fn push_part(parts: &mut Vec<FStringPart>, part: FStringPart) {
    if let FStringPart::Literal(new) = &part {
        if new.is_empty() {
            return;
        }
        if let Some(FStringPart::Literal(last)) = parts.last_mut() {
            last.push_str(new);
            return;
        }
    }
    parts.push(part);
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
