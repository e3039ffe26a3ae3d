//! Evaluating body expressions to graph values: names, attributes, calls of
//! graph functions, and the typed argument readers the operators use.

use super::*;

impl<'a> GraphBuilder<'a> {
    /// A value bound to a name or returned: like TVM, a Python number or
    /// bool becomes a scalar constant (`r = 3` is `R.const(3, "int32")`).
    pub(super) fn bound_expr(&self, v: Val) -> Result<Expr> {
        match v {
            v @ (Val::Int(..) | Val::Float(..) | Val::Bool(..)) => {
                let span = v.span();
                let arr = const_array(v, None, span)?;
                Ok(Expr::new(ExprKind::Constant(Rc::new(arr)), span))
            }
            v => self.to_expr(v),
        }
    }

    pub(super) fn to_expr(&self, v: Val) -> Result<Expr> {
        match v {
            Val::Expr(e) => Ok(e),
            Val::Seq(items, span) => {
                let mut fields = Vec::with_capacity(items.len());
                for x in items {
                    fields.push(self.to_expr(x)?);
                }
                Ok(Expr::new(ExprKind::Tuple(fields), span))
            }
            Val::Global(name, span) => Ok(Expr::global(&name).with_span(span)),
            other => Err(Diagnostic::error(
                format!("expected a graph value, found {}", other.describe()),
                other.span(),
            )
            .with_note(match other {
                Val::Int(..) | Val::Float(..) | Val::Bool(..) => {
                    "write constants as `R.const(value, \"dtype\")`"
                }
                _ => "graph values are variables, calls, constants and tuples of them",
            })),
        }
    }

    pub(super) fn eval(&mut self, e: &ast::Expr) -> Result<Val> {
        let span = e.span;
        match &e.kind {
            ast::ExprKind::Int(i) => Ok(Val::Int(*i, span)),
            ast::ExprKind::Float(f) => Ok(Val::Float(*f, span)),
            ast::ExprKind::Bool(b) => Ok(Val::Bool(*b, span)),
            ast::ExprKind::Str(s) => Ok(Val::Str(s.clone(), span)),
            ast::ExprKind::NoneLit => Ok(Val::None(span)),
            ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for x in items {
                    out.push(self.eval(x)?);
                }
                Ok(Val::Seq(out, span))
            }
            ast::ExprKind::UnaryOp {
                op: ast::UnaryOp::Neg,
                operand,
            } => match self.eval(operand)? {
                Val::Int(i, _) => Ok(Val::Int(i.wrapping_neg(), span)),
                Val::Float(f, _) => Ok(Val::Float(-f, span)),
                Val::Prim(p, _) => Ok(Val::Prim(
                    PrimExpr::binary(BinOp::Sub, PrimExpr::i64(0), p),
                    span,
                )),
                other => Err(Diagnostic::error(
                    format!("cannot negate {}", other.describe()),
                    span,
                )),
            },
            ast::ExprKind::Name(n) => self.eval_name(n, span),
            ast::ExprKind::Attribute { value, attr, .. } => self.eval_attribute(e, value, attr),
            ast::ExprKind::Subscript { value, index } => {
                if value.as_name() == Some("metadata") {
                    return Err(Diagnostic::error(
                        "`metadata[...]` constants are not available: the printing that produced this text omitted them",
                        span,
                    )
                    .with_note("write small constants as `R.const(...)`"));
                }
                let t = self.eval(value)?;
                let t = self.to_expr(t)?;
                let i = match self.eval(index)? {
                    Val::Int(i, _) if i >= 0 => i as usize,
                    _ => {
                        return Err(Diagnostic::error(
                            "a tuple index must be a non-negative integer",
                            index.span,
                        ))
                    }
                };
                let item = Expr::new(ExprKind::TupleGetItem(t, i), span);
                Ok(Val::Expr(item))
            }
            ast::ExprKind::BinOp { left, op, right } => {
                let a = self.eval(left)?;
                let b = self.eval(right)?;
                match (a, b) {
                    (Val::Int(x, _), Val::Int(y, _)) => {
                        let v = match op {
                            ast::BinOp::Add => x.checked_add(y),
                            ast::BinOp::Sub => x.checked_sub(y),
                            ast::BinOp::Mul => x.checked_mul(y),
                            ast::BinOp::FloorDiv if y != 0 => Some(x.div_euclid(y)),
                            ast::BinOp::Mod if y != 0 => Some(x.rem_euclid(y)),
                            _ => None,
                        };
                        v.map(|v| Val::Int(v, span)).ok_or_else(|| {
                            Diagnostic::error("unsupported integer arithmetic", span)
                        })
                    }
                    (a @ (Val::Int(..) | Val::Prim(..)), b @ (Val::Int(..) | Val::Prim(..))) => {
                        let x = self.dim_of(a)?;
                        let y = self.dim_of(b)?;
                        Ok(Val::Prim(prim_binop(*op, x, y, span)?, span))
                    }
                    (Val::Expr(x), Val::Expr(y)) => {
                        let op = match op {
                            ast::BinOp::Add => BinaryOp::Add,
                            ast::BinOp::Sub => BinaryOp::Subtract,
                            ast::BinOp::Mul => BinaryOp::Multiply,
                            ast::BinOp::Div => BinaryOp::Divide,
                            _ => {
                                return Err(Diagnostic::error(
                                    "unsupported operator on graph values",
                                    span,
                                ))
                            }
                        };
                        Ok(Val::Expr(self.op_call(Op::Binary(op), vec![x, y], span)?))
                    }
                    _ => Err(Diagnostic::error("unsupported operands", span)),
                }
            }
            ast::ExprKind::Call { func, args } => self.eval_call(func, args, span),
            _ => Err(Diagnostic::error(
                "unsupported expression in an R.function",
                span,
            )),
        }
    }

    fn eval_name(&mut self, n: &str, span: Span) -> Result<Val> {
        if let Some(b) = self.lookup(n) {
            return Ok(match b {
                Bound::Var(v) => Val::Expr(v.to_expr().with_span(span)),
                Bound::Sym(s) => Val::Prim(s.to_expr().with_span(span), span),
                Bound::Module => Val::Module(span),
            });
        }
        if let Some(s) = self.syms.get(n) {
            if self.in_sig {
                return Ok(Val::Prim(s.to_expr().with_span(span), span));
            }
        }
        if self.in_sig && is_identifier(n) {
            // A bare name in a signature (TVM 0.27 prints module-level
            // `n = TypeVar("n")` and uses the name): a symbolic variable.
            if n != "Tensor" {
                return Ok(Val::Prim(self.sig_sym(n).to_expr().with_span(span), span));
            }
        }
        if self.globals.0.contains_key(n) {
            // The course's old `R.call_tir(linear0, ...)` names the function.
            return Ok(Val::Global(n.to_string(), span));
        }
        if Some(n) == self.class_name || (self.class_name.is_some() && n == "Module") {
            return Ok(Val::Module(span));
        }
        if let Some(s) = self.syms.get(n) {
            return Err(Diagnostic::error(
                format!("symbolic variable `{n}` is not declared in the body"),
                span,
            )
            .with_note(format!("add `{} = T.{}()` before using it", n, s.dtype())));
        }
        Err(Diagnostic::error(format!("undefined name `{n}`"), span))
    }

    fn eval_attribute(&mut self, whole: &ast::Expr, value: &ast::Expr, attr: &str) -> Result<Val> {
        let span = whole.span;
        // `cls.linear0` (or `Module.linear0`).
        if let Some(n) = value.as_name() {
            let is_module = match self.lookup(n) {
                Some(Bound::Module) => true,
                Some(_) => false,
                None => self.class_name.is_some() && (Some(n) == self.class_name || n == "Module"),
            };
            if is_module {
                if !self.globals.0.contains_key(attr) {
                    return Err(Diagnostic::error(
                        format!("the module has no function `{attr}`"),
                        span,
                    ));
                }
                return Ok(Val::Global(attr.to_string(), span));
            }
        }
        if let Some(path) = self.relax_path(whole) {
            return match path.as_str() {
                "Tensor" => Ok(Val::Sinfo(
                    StructInfo::Tensor(TensorInfo::with_ndim(None, None)),
                    span,
                )),
                "Object" | "Any" => Ok(Val::Sinfo(StructInfo::Object, span)),
                "Shape" => Ok(Val::Sinfo(StructInfo::Shape(ShapeInfo::default()), span)),
                "Tuple" => Ok(Val::Sinfo(StructInfo::Tuple(Vec::new()), span)),
                "Callable" => Ok(Val::Sinfo(
                    StructInfo::Func(FuncInfo {
                        params: None,
                        ret: Box::new(StructInfo::Object),
                        pure: false,
                    }),
                    span,
                )),
                _ => Err(Diagnostic::error(
                    format!("`R.{path}` is not a value"),
                    span,
                )),
            };
        }
        if let Some(d) = self.tir_dtype_path(whole) {
            // `p: T.int64` annotates a scalar parameter.
            return Ok(Val::Sinfo(StructInfo::Prim(d), span));
        }
        if let Some(n) = value.as_name() {
            if self.lookup(n).is_none() {
                // Reports `undefined name` for `cls.f` without `cls = ...`.
                self.eval_name(n, value.span)?;
            }
        }
        Err(Diagnostic::error(
            format!("unknown attribute `{attr}`"),
            span,
        ))
    }

    fn eval_call(&mut self, func: &ast::Expr, args: &[ast::Arg], span: Span) -> Result<Val> {
        if self.is_tensor_ctor(func) {
            return Ok(Val::Sinfo(self.tensor_sinfo(args, span)?, span));
        }
        if let Some(path) = self.relax_path(func) {
            return self.relax_call(&path, args, span);
        }
        // `cls.f(...)`: a call of a graph function of the module.
        match self.eval(func)? {
            Val::Global(name, gspan) => {
                if !matches!(self.globals.0.get(&name), Some(GlobalEntry::Graph(_))) {
                    return Err(Diagnostic::error(
                        format!("`{name}` is a PrimFunc: call it with `R.call_tir(cls.{name}, (args...), out_sinfo=...)`"),
                        gspan,
                    ));
                }
                let a = Args::new(args, span, format!("`{name}`"))?;
                if !a.kw.is_empty() {
                    return Err(Diagnostic::error(
                        "graph functions take positional arguments",
                        a.kw[0].2,
                    ));
                }
                let mut exprs = Vec::new();
                for x in &a.pos {
                    let v = self.eval(x)?;
                    exprs.push(self.to_expr(v)?);
                }
                let call = Expr::new(
                    ExprKind::Call(Call {
                        callee: Callee::Global(crate::graph::GlobalVar::new(&name)),
                        args: exprs,
                        sinfo_args: Vec::new(),
                    }),
                    span,
                );
                self.check_call(&call)?;
                Ok(Val::Expr(call))
            }
            Val::Sinfo(..) => Err(Diagnostic::error("unexpected call", span)),
            other => Err(Diagnostic::error(
                format!("{} is not callable", other.describe()),
                func.span,
            )),
        }
    }

    /// Checks that a call's struct info can be inferred (reporting shape and
    /// dtype errors where the call is written).
    pub(super) fn check_call(&self, call: &Expr) -> Result<()> {
        // Arguments may themselves be calls: infer through them.
        self.sinfo_of(call, call.span()).map(|_| ())
    }

    pub(super) fn op_call(&self, op: Op, args: Vec<Expr>, span: Span) -> Result<Expr> {
        let e = Expr::new(
            ExprKind::Call(Call {
                callee: Callee::Op(op),
                args,
                sinfo_args: Vec::new(),
            }),
            span,
        );
        self.check_call(&e)?;
        Ok(e)
    }

    pub(super) fn expr_arg(&mut self, e: &ast::Expr) -> Result<Expr> {
        let v = self.eval(e)?;
        self.to_expr(v)
    }

    pub(super) fn int_list(&mut self, e: &ast::Expr, what: &str) -> Result<Vec<i64>> {
        match self.eval(e)? {
            Val::Int(i, _) => Ok(vec![i]),
            Val::Seq(items, _) => items
                .into_iter()
                .map(|x| match x {
                    Val::Int(i, _) => Ok(i),
                    other => Err(Diagnostic::error(
                        format!("`{what}` takes integers"),
                        other.span(),
                    )),
                })
                .collect(),
            _ => Err(Diagnostic::error(
                format!("`{what}` takes an integer or a list of integers"),
                e.span,
            )),
        }
    }

    pub(super) fn opt_int_list(
        &mut self,
        e: Option<&ast::Expr>,
        what: &str,
    ) -> Result<Option<Vec<i64>>> {
        match e {
            None => Ok(None),
            Some(x) if matches!(x.kind, ast::ExprKind::NoneLit) => Ok(None),
            Some(x) => Ok(Some(self.int_list(x, what)?)),
        }
    }

    pub(super) fn bool_arg(&mut self, e: Option<&ast::Expr>, default: bool) -> Result<bool> {
        match e {
            None => Ok(default),
            Some(x) => match self.eval(x)? {
                Val::Bool(b, _) => Ok(b),
                _ => Err(Diagnostic::error("expected True or False", x.span)),
            },
        }
    }

    pub(super) fn int_arg(&mut self, e: Option<&ast::Expr>, default: i64) -> Result<i64> {
        match e {
            None => Ok(default),
            Some(x) => match self.eval(x)? {
                Val::Int(i, _) => Ok(i),
                _ => Err(Diagnostic::error("expected an integer", x.span)),
            },
        }
    }

    pub(super) fn str_arg(&mut self, e: Option<&ast::Expr>) -> Result<Option<String>> {
        match e {
            None => Ok(None),
            Some(x) => match self.eval(x)? {
                Val::Str(s, _) => Ok(Some(s)),
                Val::None(_) => Ok(None),
                _ => Err(Diagnostic::error("expected a string", x.span)),
            },
        }
    }

    /// The output struct info of `call_tir`/`call_dps_packed`: a struct info
    /// or a list of them (a tuple output).
    pub(super) fn out_sinfo(&mut self, e: &ast::Expr) -> Result<StructInfo> {
        match self.eval(e)? {
            Val::Sinfo(s, _) => Ok(s),
            Val::Seq(items, _)
                if !items.is_empty() && items.iter().all(|x| matches!(x, Val::Sinfo(..))) =>
            {
                Ok(StructInfo::Tuple(
                    items
                        .into_iter()
                        .filter_map(|x| match x {
                            Val::Sinfo(s, _) => Some(s),
                            _ => None,
                        })
                        .collect(),
                ))
            }
            other => Err(Diagnostic::error(
                format!(
                    "expected the output struct info (`R.Tensor(...)` or a list of them), found {}",
                    other.describe()
                ),
                e.span,
            )),
        }
    }
}
