//! Parameter lists (`def` and `lambda`) and call arguments, with CPython's
//! ordering and duplicate checks.

use super::*;

impl<'a> Parser<'a> {
    // -----------------------------------------------------------------------
    // Parameters and arguments
    // -----------------------------------------------------------------------

    /// Parses a parameter list up to (not including) `)` or, for lambdas,
    /// `:`.
    pub(super) fn params(&mut self, lambda: bool) -> PResult<Params> {
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

    pub(super) fn check_dup(&self, names: &mut HashSet<String>, param: &Param) -> PResult<()> {
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

    pub(super) fn param(
        &mut self,
        start: u32,
        lambda: bool,
        allow_default: bool,
    ) -> PResult<Param> {
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
    pub(super) fn call_args(&mut self) -> PResult<Vec<Arg>> {
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
    pub(super) fn call_arg(&mut self, seen: &mut SeenArgs, first: bool) -> PResult<Arg> {
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

    pub(super) fn keyword_arg(&mut self, seen: &mut SeenArgs) -> PResult<Arg> {
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
    pub(super) fn genexp_arg(&mut self, elt: Expr, first: bool) -> PResult<Arg> {
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
    pub(super) fn positional_after_keyword(&self, e: &Expr, seen: &SeenArgs) -> Box<Diagnostic> {
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

    pub(super) fn genexp_parens(&self, span: Span) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::error("generator expression must be parenthesized", span)
                .with_label(span, "add parentheses around this"),
        )
    }
}
