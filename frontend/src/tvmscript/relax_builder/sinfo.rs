//! Annotations: `R.xxx` paths, struct info (`R.Tensor(...)`, `R.Shape`,
//! `R.Tuple`, …), dtypes and symbolic dimensions.

use super::*;

impl<'a> GraphBuilder<'a> {
    /// `R.xxx.yyy` → `xxx.yyy` (also `relax.op.xxx`).
    pub(super) fn relax_path(&self, e: &ast::Expr) -> Option<String> {
        let d = dotted(e)?;
        match d.as_slice() {
            [r, rest @ ..] if self.aliases.is_relax(r) && !rest.is_empty() => Some(rest.join(".")),
            [r, "op", rest @ ..] if self.aliases.is_relax_py(r) && !rest.is_empty() => {
                Some(rest.join("."))
            }
            ["tvm", "relax", "op", rest @ ..] if !rest.is_empty() => Some(rest.join(".")),
            _ => None,
        }
    }

    pub(super) fn is_relax_call(&self, e: &ast::Expr, name: &str) -> bool {
        match &e.kind {
            ast::ExprKind::Call { func, args } => {
                args.is_empty() && self.relax_path(func).as_deref() == Some(name)
            }
            _ => false,
        }
    }

    pub(super) fn tir_dtype_path(&self, e: &ast::Expr) -> Option<DataType> {
        match dotted(e).as_deref() {
            Some([t, name]) if self.aliases.is_tir(t) => DataType::parse(name),
            _ => None,
        }
    }

    pub(super) fn is_sym_decl(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ast::ExprKind::Call { func, args } if args.is_empty() => self
                .tir_dtype_path(func)
                .is_some_and(|d| d.is_integer() && d.is_scalar()),
            _ => false,
        }
    }

    pub(super) fn sym_decl_dtype(&self, e: &ast::Expr) -> Result<DataType> {
        match &e.kind {
            ast::ExprKind::Call { func, .. } => self
                .tir_dtype_path(func)
                .ok_or_else(|| Diagnostic::error("expected `T.int64()`", e.span)),
            _ => Err(Diagnostic::error("expected `T.int64()`", e.span)),
        }
    }

    // ----- struct info -----------------------------------------------------

    /// Reads an annotation (`R.Tensor(...)`, …).
    pub(super) fn sinfo_expr(&mut self, e: &ast::Expr) -> Result<StructInfo> {
        match self.eval(e)? {
            Val::Sinfo(s, _) => Ok(s),
            Val::Expr(x) if matches!(x.kind(), ExprKind::Tuple(_)) => Err(Diagnostic::error(
                "expected a struct info annotation",
                e.span,
            )),
            other => Err(Diagnostic::error(
                format!(
                    "expected a struct info annotation such as `R.Tensor((2, 3), \"float32\")`, found {}",
                    other.describe()
                ),
                e.span,
            )),
        }
    }

    pub(super) fn is_tensor_ctor(&self, func: &ast::Expr) -> bool {
        match dotted(func).as_deref() {
            Some([r, "Tensor"]) => self.aliases.is_relax(r),
            // The course's oldest spelling: a bare `Tensor(...)`.
            Some(["Tensor"]) => self.lookup("Tensor").is_none(),
            _ => false,
        }
    }

    pub(super) fn tensor_sinfo(&mut self, args: &[ast::Arg], span: Span) -> Result<StructInfo> {
        let a = Args::new(args, span, "R.Tensor")?;
        a.check(&["shape", "dtype", "vdevice", "ndim"])?;
        let dtype = match a.get(1, "dtype")? {
            Some(d) => self.dtype_arg(d)?,
            None => None,
        };
        if let Some(v) = a.get(2, "vdevice")? {
            return Err(Diagnostic::error(
                "virtual devices are not supported",
                v.span,
            ));
        }
        let ndim = match a.get(3, "ndim")? {
            Some(n) => match self.eval(n)? {
                Val::Int(-1, _) => None,
                Val::Int(k, _) if k >= 0 => Some(k as usize),
                _ => return Err(Diagnostic::error("`ndim` must be an integer >= -1", n.span)),
            },
            None => None,
        };
        let shape = match a.get(0, "shape")? {
            None => None,
            Some(s) => match self.eval(s)? {
                Val::None(_) => None,
                v => Some(self.dims_of(v, s.span)?),
            },
        };
        if let (Some(s), Some(n)) = (&shape, ndim) {
            if s.len() != n {
                return Err(Diagnostic::error(
                    format!("the shape has {} dimensions but ndim={n}", s.len()),
                    span,
                ));
            }
        }
        Ok(StructInfo::Tensor(match shape {
            Some(s) => TensorInfo::new(s, dtype),
            None => TensorInfo::with_ndim(ndim, dtype),
        }))
    }

    pub(super) fn dtype_arg(&mut self, e: &ast::Expr) -> Result<Option<DataType>> {
        match self.eval(e)? {
            Val::Str(s, span) => {
                if s.is_empty() || s == "void" {
                    return Ok(None);
                }
                DataType::parse(&s)
                    .map(Some)
                    .ok_or_else(|| Diagnostic::error(format!("unknown dtype \"{s}\""), span))
            }
            Val::None(_) => Ok(None),
            other => Err(Diagnostic::error(
                format!("expected a dtype string, found {}", other.describe()),
                e.span,
            )),
        }
    }

    /// A shape: a tuple/list of dimensions or an `R.shape(...)` value.
    pub(super) fn dims_of(&mut self, v: Val, span: Span) -> Result<Vec<PrimExpr>> {
        match v {
            Val::Seq(items, _) => items.into_iter().map(|x| self.dim_of(x)).collect(),
            Val::Expr(e) => match e.kind() {
                ExprKind::Shape(values) => Ok(values.clone()),
                _ => Err(Diagnostic::error("expected a shape", span)),
            },
            other => Err(Diagnostic::error(
                format!(
                    "expected a shape (a tuple of dimensions), found {}",
                    other.describe()
                ),
                span,
            )),
        }
    }

    /// One dimension: an integer, a symbolic variable or an expression of them.
    pub(super) fn dim_of(&mut self, v: Val) -> Result<PrimExpr> {
        match v {
            Val::Int(i, span) => Ok(PrimExpr::i64(i).with_span(span)),
            Val::Prim(e, _) => {
                if e.dtype() != DataType::i64() {
                    return Err(Diagnostic::error(
                        format!("dimensions are int64, but this is {}", e.dtype()),
                        e.span(),
                    ));
                }
                Ok(e)
            }
            Val::Str(s, span) => self.string_dim(&s, span),
            other => Err(Diagnostic::error(
                format!("expected a dimension, found {}", other.describe()),
                other.span(),
            )),
        }
    }

    /// A string dimension (`"n"`, `"n * 2"`): only in a signature.
    fn string_dim(&mut self, s: &str, span: Span) -> Result<PrimExpr> {
        if !self.in_sig {
            return Err(Diagnostic::error(
                "a string dimension is only allowed in a function's parameter and return annotations",
                span,
            )
            .with_note("declare the variable in the body (`n = T.int64()`) and use the name"));
        }
        if is_identifier(s) {
            return Ok(self.sig_sym(s).to_expr().with_span(span));
        }
        let parsed = tessel_tir::syntax::parse_expr(s).map_err(|d| {
            Diagnostic::error(format!("in the dimension {s:?}: {}", d.message), span)
        })?;
        self.prim_from_ast(&parsed, span)
    }

    /// The symbolic variable `name` of the signature (created on first use).
    pub(super) fn sig_sym(&mut self, name: &str) -> SymVar {
        if let Some(v) = self.syms.get(name) {
            return v.clone();
        }
        let v = SymVar::new(name, DataType::i64());
        self.syms.insert(name.to_string(), v.clone());
        v
    }

    /// A dimension expression parsed from a string, with names as symbolic
    /// variables.
    fn prim_from_ast(&mut self, e: &ast::Expr, span: Span) -> Result<PrimExpr> {
        match &e.kind {
            ast::ExprKind::Int(i) => Ok(PrimExpr::i64(*i)),
            ast::ExprKind::Name(n) => Ok(self.sig_sym(n).to_expr()),
            ast::ExprKind::UnaryOp {
                op: ast::UnaryOp::Neg,
                operand,
            } => {
                let x = self.prim_from_ast(operand, span)?;
                Ok(PrimExpr::binary(BinOp::Sub, PrimExpr::i64(0), x))
            }
            ast::ExprKind::BinOp { left, op, right } => {
                let a = self.prim_from_ast(left, span)?;
                let b = self.prim_from_ast(right, span)?;
                prim_binop(*op, a, b, span)
            }
            _ => Err(Diagnostic::error("unsupported dimension expression", span)),
        }
    }
}
