//! Statements: simple statements, imports, assignments and their targets,
//! compound statements (`def`, `class`, `if`, `while`, `for`, `try`, `with`)
//! and indented blocks.

use super::*;

impl<'a> Parser<'a> {
    // -----------------------------------------------------------------------
    // Statements
    // -----------------------------------------------------------------------

    pub(super) fn statement(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
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
    pub(super) fn block(&mut self, what: &str, header_start: u32) -> PResult<Vec<Stmt>> {
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

    pub(super) fn missing_block(&self, what: &str, header_start: u32) -> Box<Diagnostic> {
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

    pub(super) fn simple_stmts(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
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
    pub(super) fn junk_after_statement(&self, stmt: Option<&Stmt>) -> Box<Diagnostic> {
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

    pub(super) fn small_stmt(&mut self) -> PResult<Stmt> {
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

    pub(super) fn dotted_name(&mut self, context: &str) -> PResult<Ident> {
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

    pub(super) fn alias(&mut self, dotted: bool) -> PResult<Alias> {
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

    pub(super) fn import_from(&mut self) -> PResult<StmtKind> {
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

    pub(super) fn expr_stmt(&mut self) -> PResult<StmtKind> {
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

    pub(super) fn aug_op(&self) -> Option<BinOp> {
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

    pub(super) fn no_bare_starred(&self, e: &Expr) -> PResult<()> {
        if let ExprKind::Starred(_) = e.kind {
            return Err(Box::new(
                Diagnostic::error("cannot use starred expression here", e.span)
                    .with_label(e.span, "starred expression"),
            ));
        }
        Ok(())
    }

    pub(super) fn check_target(&self, e: &Expr, ctx: TargetCtx) -> PResult<()> {
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

    pub(super) fn decorated(&mut self) -> PResult<Stmt> {
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

    pub(super) fn funcdef(&mut self, start: u32, decorators: Vec<Expr>) -> PResult<Stmt> {
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

    pub(super) fn classdef(&mut self, start: u32, decorators: Vec<Expr>) -> PResult<Stmt> {
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

    pub(super) fn if_stmt(&mut self) -> PResult<Stmt> {
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

    pub(super) fn else_block(&mut self) -> PResult<Vec<Stmt>> {
        match self.eat_kw(Kw::Else) {
            Some(s) => {
                self.expect_op(Op::Colon, "after `else`")?;
                self.block("`else` statement", s.start)
            }
            None => Ok(Vec::new()),
        }
    }

    pub(super) fn while_stmt(&mut self) -> PResult<Stmt> {
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

    pub(super) fn for_stmt(&mut self) -> PResult<Stmt> {
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

    pub(super) fn try_stmt(&mut self) -> PResult<Stmt> {
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

    pub(super) fn with_stmt(&mut self) -> PResult<Stmt> {
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

    pub(super) fn paren_with_items(&mut self) -> PResult<Vec<WithItem>> {
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

    pub(super) fn with_item(&mut self) -> PResult<WithItem> {
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
}
