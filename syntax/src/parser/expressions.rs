//! Expressions: starred and named expressions, lambdas, operators by
//! binding power, comparisons, trailers, subscripts, atoms, displays and
//! comprehensions.

use super::*;

impl<'a> Parser<'a> {
    // -----------------------------------------------------------------------
    // Expressions
    // -----------------------------------------------------------------------

    /// `star_expressions`, or a `yield` expression.
    pub(super) fn star_exprs_or_yield(&mut self) -> PResult<Expr> {
        if self.at_kw(Kw::Yield) {
            self.yield_expr()
        } else {
            self.star_exprs()
        }
    }

    pub(super) fn yield_expr(&mut self) -> PResult<Expr> {
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
    pub(super) fn star_exprs(&mut self) -> PResult<Expr> {
        self.comma_tuple(Self::star_expr)
    }

    /// Items parsed by `item`, separated by commas (a trailing one allowed):
    /// the lone item, or an unparenthesized tuple if there is a comma.
    fn comma_tuple(&mut self, item: fn(&mut Self) -> PResult<Expr>) -> PResult<Expr> {
        let start = self.start();
        let first = item(self)?;
        if !self.at_op(Op::Comma) {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(Op::Comma).is_some() {
            if !self.starts_expr() {
                break;
            }
            items.push(item(self)?);
        }
        Ok(Expr::new(ExprKind::Tuple(items), self.span_from(start)))
    }

    /// `*bitwise_or` or an expression.
    pub(super) fn star_expr(&mut self) -> PResult<Expr> {
        self.starred_or(Self::test)
    }

    /// `*bitwise_or`, or what `otherwise` parses.
    fn starred_or(&mut self, otherwise: fn(&mut Self) -> PResult<Expr>) -> PResult<Expr> {
        if let Some(star) = self.eat_op(Op::Star) {
            let e = self.bitwise_or()?;
            return Ok(Expr::new(
                ExprKind::Starred(Box::new(e)),
                self.span_from(star.start),
            ));
        }
        otherwise(self)
    }

    /// `*bitwise_or` or a named expression (display and subscript items).
    pub(super) fn star_named(&mut self) -> PResult<Expr> {
        if self.at_op(Op::Star) {
            self.star_expr()
        } else {
            self.named_expr()
        }
    }

    /// `NAME := expression` or an expression.
    pub(super) fn named_expr(&mut self) -> PResult<Expr> {
        if matches!(self.peek_nth(1), Tok::Op(Op::Walrus)) {
            return self.walrus();
        }
        self.test()
    }

    pub(super) fn walrus(&mut self) -> PResult<Expr> {
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
    pub(super) fn target_list(&mut self) -> PResult<Expr> {
        self.comma_tuple(Self::target_item)
    }

    pub(super) fn target_item(&mut self) -> PResult<Expr> {
        self.starred_or(Self::bitwise_or)
    }

    /// `expression`: a conditional expression, a lambda or a disjunction.
    pub(super) fn test(&mut self) -> PResult<Expr> {
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
    pub(super) fn if_exp(&mut self, body: Expr, start: u32) -> PResult<Expr> {
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

    pub(super) fn lambda(&mut self) -> PResult<Expr> {
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
    pub(super) fn or_test(&mut self) -> PResult<Expr> {
        self.operators(BP_OR)
    }

    /// `bitwise_or`: the operand level of starred items and loop targets.
    pub(super) fn bitwise_or(&mut self) -> PResult<Expr> {
        self.operators(BP_BITOR)
    }

    /// The infix operator at the current token and its binding power.
    pub(super) fn infix(&self) -> Option<(Infix, u8)> {
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
    pub(super) fn operators(&mut self, min_bp: u8) -> PResult<Expr> {
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
    pub(super) fn prefix(&mut self, min_bp: u8) -> PResult<Expr> {
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
    pub(super) fn binary_rhs(&mut self, lhs: Expr, op: BinOp, start: u32) -> PResult<Expr> {
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
    pub(super) fn bool_rhs(&mut self, lhs: Expr, op: BoolOp, bp: u8, start: u32) -> PResult<Expr> {
        let kw = if op == BoolOp::And { Kw::And } else { Kw::Or };
        let mut values = vec![lhs];
        while self.eat_kw(kw).is_some() {
            values.push(self.operators(bp + 1)?);
        }
        let span = self.span_from(start);
        Ok(Expr::new(ExprKind::BoolOp { op, values }, span))
    }

    /// `lhs < b <= c` (a flattened chain), at the first comparison operator.
    pub(super) fn compare_rhs(&mut self, lhs: Expr, start: u32) -> PResult<Expr> {
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
    pub(super) fn primary(&mut self) -> PResult<Expr> {
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
    pub(super) fn trailer(&mut self, e: Expr, start: u32) -> PResult<Expr> {
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

    pub(super) fn subscript_index(&mut self) -> PResult<Expr> {
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

    pub(super) fn slice_item(&mut self) -> PResult<Expr> {
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

    pub(super) fn atom(&mut self) -> PResult<Expr> {
        match self.peek() {
            Tok::Str(_) => self.strings(),
            Tok::Op(Op::LParen) => self.paren(),
            Tok::Op(Op::LBracket) => self.list(),
            Tok::Op(Op::LBrace) => self.brace(),
            _ => self.literal(),
        }
    }

    /// Names, numbers, `True`/`False`/`None` and `...`.
    pub(super) fn literal(&mut self) -> PResult<Expr> {
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

    pub(super) fn paren(&mut self) -> PResult<Expr> {
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

    pub(super) fn list(&mut self) -> PResult<Expr> {
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
    pub(super) fn display_items(
        &mut self,
        first: Expr,
        close: Op,
        what: &str,
    ) -> PResult<Vec<Expr>> {
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

    pub(super) fn brace(&mut self) -> PResult<Expr> {
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

    pub(super) fn dict_items(&mut self, key: Option<Expr>, value: Expr) -> PResult<ExprKind> {
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

    pub(super) fn comprehension(&mut self) -> PResult<Vec<Comprehension>> {
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
}
