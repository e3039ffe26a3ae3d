//! Calls: `T.*` operators and intrinsics (`T.max`, `T.Cast`,
//! `T.if_then_else`, …), evaluation without diagnostics, and buffer methods
//! (`access_ptr`, …).

use super::*;

impl<'a> FuncBuilder<'a> {
    pub(super) fn eval_call(&mut self, e: &ast::Expr) -> Result<Value> {
        let span = e.span;
        if let Some(v) = self.buffer_method(e)? {
            return Ok(v);
        }
        let Some((path, args)) = self.tir_call(e) else {
            let ast::ExprKind::Call { func, .. } = &e.kind else {
                return Err(Diagnostic::error("expected a call", span));
            };
            return Err(Diagnostic::error(
                "only `T.*` functions can be called in TVMScript",
                func.span,
            ));
        };
        let mut vals = Vec::new();
        let mut kwargs: Vec<(&str, &ast::Expr)> = Vec::new();
        for a in args {
            match a {
                ast::Arg::Positional(x) => vals.push(self.eval(x)?),
                ast::Arg::Keyword(k) => kwargs.push((k.name.as_str(), &k.value)),
                other => return Err(Diagnostic::error("unsupported argument form", other.span())),
            }
        }
        let nargs = vals.len();
        let want = |n: usize| -> Result<()> {
            if nargs == n {
                Ok(())
            } else {
                Err(Diagnostic::error(
                    format!("`T.{path}` takes {n} argument(s), got {nargs}"),
                    span,
                ))
            }
        };
        // `T.float32(0)`, `T.int64(5)`, `T.bool(True)`: typed constants and casts.
        if let Some(dt) = DataType::parse(&path) {
            if nargs == 0 {
                return Err(Diagnostic::error(
                    format!("`T.{path}()` declares a size variable; it is only allowed at the top of a function"),
                    span,
                ));
            }
            want(1)?;
            let v = vals.pop().expect("one argument");
            return Ok(Value::Expr(spanned(self.cast_value(v, dt)?, span)));
        }
        Ok(Value::Expr(spanned(
            match path.as_str() {
                "Add" | "Sub" | "Mul" | "Min" | "Max" => {
                    // Explicit operator forms, printed where a literal
                    // expression would otherwise fold on re-parse.
                    want(2)?;
                    let b = vals.pop().expect("two");
                    let a = vals.pop().expect("two");
                    let (a, b) = self.unify_pair(a, b)?;
                    let op = match path.as_str() {
                        "Add" => BinOp::Add,
                        "Sub" => BinOp::Sub,
                        "Mul" => BinOp::Mul,
                        "Min" => BinOp::Min,
                        _ => BinOp::Max,
                    };
                    Expr::binary(op, a, b)
                }
                "EQ" | "NE" | "LT" | "LE" | "GT" | "GE" => {
                    want(2)?;
                    let b = vals.pop().expect("two");
                    let a = vals.pop().expect("two");
                    let (a, b) = self.unify_pair(a, b)?;
                    let op = match path.as_str() {
                        "EQ" => CmpOp::Eq,
                        "NE" => CmpOp::Ne,
                        "LT" => CmpOp::Lt,
                        "LE" => CmpOp::Le,
                        "GT" => CmpOp::Gt,
                        _ => CmpOp::Ge,
                    };
                    Expr::cmp(op, a, b)
                }
                "Ramp" => {
                    want(3)?;
                    let lanes = vals.pop().expect("three");
                    let stride = vals.pop().expect("three");
                    let base = vals.pop().expect("three");
                    let Value::PyInt(lanes, lspan) = lanes else {
                        return Err(Diagnostic::error(
                            "`T.Ramp` lanes must be an integer",
                            lanes.span(),
                        ));
                    };
                    let lanes = u16::try_from(lanes)
                        .ok()
                        .filter(|l| *l >= 1)
                        .ok_or_else(|| {
                            Diagnostic::error("lanes must be between 1 and 65535", lspan)
                        })?;
                    let (base, stride) = self.unify_pair(base, stride)?;
                    let dt = base.dtype().with_lanes(lanes);
                    Expr::new(ExprKind::Ramp { base, stride }, dt, span)
                }
                "Broadcast" => {
                    want(2)?;
                    let lanes = vals.pop().expect("two");
                    let value = vals.pop().expect("two");
                    let Value::PyInt(lanes, lspan) = lanes else {
                        return Err(Diagnostic::error(
                            "`T.Broadcast` lanes must be an integer",
                            lanes.span(),
                        ));
                    };
                    let lanes = u16::try_from(lanes)
                        .ok()
                        .filter(|l| *l >= 1)
                        .ok_or_else(|| {
                            Diagnostic::error("lanes must be between 1 and 65535", lspan)
                        })?;
                    let value = self.expr_of(value)?;
                    let dt = value.dtype().with_lanes(lanes);
                    Expr::new(ExprKind::Broadcast(value), dt, span)
                }
                "max" | "min" => {
                    want(2)?;
                    let b = vals.pop().expect("two");
                    let a = vals.pop().expect("two");
                    let (a, b) = self.unify_pair(a, b)?;
                    Expr::binary(
                        if path == "max" {
                            BinOp::Max
                        } else {
                            BinOp::Min
                        },
                        a,
                        b,
                    )
                }
                "floordiv" | "floormod" | "truncdiv" | "truncmod" | "Div" | "Mod" | "FloorDiv"
                | "FloorMod" => {
                    want(2)?;
                    let b = vals.pop().expect("two");
                    let a = vals.pop().expect("two");
                    let (a, b) = self.unify_pair(a, b)?;
                    let op = match path.as_str() {
                        "floordiv" | "FloorDiv" => BinOp::FloorDiv,
                        "floormod" | "FloorMod" => BinOp::FloorMod,
                        "truncdiv" | "Div" => BinOp::Div,
                        _ => BinOp::Mod,
                    };
                    Expr::binary(op, a, b)
                }
                "Select" | "if_then_else" => {
                    want(3)?;
                    let f = vals.pop().expect("three");
                    let t = vals.pop().expect("three");
                    let c = vals.pop().expect("three");
                    let c = self.bool_expr(c)?;
                    let (t, f) = self.unify_pair(t, f)?;
                    if path == "Select" {
                        Expr::select(c, t, f)
                    } else {
                        let dt = t.dtype();
                        Expr::call(Intrinsic::IfThenElse, vec![c, t, f], dt)
                    }
                }
                "Cast" | "cast" => {
                    want(2)?;
                    // `T.Cast("float32", x)` and `T.cast(x, "float32")`.
                    let (dt_v, x) = if path == "Cast" {
                        let x = vals.pop().expect("two");
                        (vals.pop().expect("two"), x)
                    } else {
                        let d = vals.pop().expect("two");
                        (d, vals.pop().expect("two"))
                    };
                    let dt = match dt_v {
                        Value::Str(s, sp) => DataType::parse(&s)
                            .ok_or_else(|| Diagnostic::error(format!("unknown dtype `{s}`"), sp))?,
                        Value::DType(d, _) => d,
                        v => return Err(Diagnostic::error("expected a dtype", v.span())),
                    };
                    let x = self.expr_of(x)?;
                    Expr::new(ExprKind::Cast(x), dt, span)
                }
                "And" | "Or" => {
                    want(2)?;
                    let b = vals.pop().expect("two");
                    let a = vals.pop().expect("two");
                    let (a, b) = (self.bool_expr(a)?, self.bool_expr(b)?);
                    if path == "And" {
                        Expr::and(a, b)
                    } else {
                        Expr::or(a, b)
                    }
                }
                "likely" => {
                    // A hint that the condition usually holds; the value is
                    // the argument (a `dtype=` is accepted and unused, as in TVM).
                    want(1)?;
                    if let Some((_, v)) = kwargs.iter().find(|(k, _)| *k == "dtype") {
                        self.dtype_arg(v)?;
                    }
                    let a = self.bool_expr(vals.pop().expect("one"))?;
                    let dt = a.dtype();
                    Expr::call(Intrinsic::Other(path.clone()), vec![a], dt)
                }
                "Not" => {
                    want(1)?;
                    let a = vals.pop().expect("one");
                    Expr::logical_not(self.bool_expr(a)?)
                }
                "abs" => {
                    want(1)?;
                    let a = vals.pop().expect("one");
                    let a = self.float_or_expr(a)?;
                    if a.dtype().is_float() {
                        let dt = a.dtype();
                        Expr::call(Intrinsic::Fabs, vec![a], dt)
                    } else {
                        let zero = zero_of(a.dtype());
                        let neg = Expr::binary(BinOp::Sub, zero.clone(), a.clone());
                        Expr::select(Expr::cmp(CmpOp::Ge, a.clone(), zero), a, neg)
                    }
                }
                "max_value" | "min_value" => {
                    want(1)?;
                    let dt = match vals.pop().expect("one") {
                        Value::Str(s, sp) => DataType::parse(&s)
                            .ok_or_else(|| Diagnostic::error(format!("unknown dtype `{s}`"), sp))?,
                        Value::DType(d, _) => d,
                        v => return Err(Diagnostic::error("expected a dtype", v.span())),
                    };
                    extreme_value(dt, path == "max_value")
                        .ok_or_else(|| Diagnostic::error("no such value for this dtype", span))?
                }
                "call_extern" | "call_pure_extern" => {
                    // `T.call_extern("int32", "f", …)` (TVM 0.27) or
                    // `T.call_extern("f", …, dtype="int32")` (the course).
                    let mut dtype = None;
                    for (k, v) in &kwargs {
                        if *k == "dtype" {
                            // `dtype=""`: a call made for its effect (TVM's void).
                            dtype = Some(match &v.kind {
                                ast::ExprKind::Str(s) if s.is_empty() => DataType::void(),
                                _ => self.dtype_arg(v)?,
                            });
                        }
                    }
                    let mut rest = vals.into_iter();
                    let dtype = match dtype {
                        Some(d) => d,
                        None => match rest.next() {
                            Some(Value::Str(s, sp)) => DataType::parse(&s).ok_or_else(|| {
                                Diagnostic::error(format!("unknown dtype `{s}`"), sp)
                            })?,
                            _ => {
                                return Err(Diagnostic::error(
                                    "`T.call_extern` needs a result dtype",
                                    span,
                                ))
                            }
                        },
                    };
                    let mut args = Vec::new();
                    for v in rest {
                        args.push(self.expr_of(v)?);
                    }
                    Expr::call(Intrinsic::Other(path.clone()), args, dtype)
                }
                "type_annotation" => {
                    // `T.type_annotation("float16")` or `(dtype="float16")`.
                    let dt = match kwargs.iter().find(|(k, _)| *k == "dtype") {
                        Some((_, v)) => {
                            want(0)?;
                            self.dtype_arg(v)?
                        }
                        None => {
                            want(1)?;
                            match vals.pop().expect("one") {
                                Value::Str(s, sp) => DataType::parse(&s).ok_or_else(|| {
                                    Diagnostic::error(format!("unknown dtype `{s}`"), sp)
                                })?,
                                Value::DType(d, _) => d,
                                v => return Err(Diagnostic::error("expected a dtype", v.span())),
                            }
                        }
                    };
                    Expr::call(Intrinsic::Other("type_annotation".into()), vec![], dt)
                }
                "tvm_fill_fragment"
                | "tvm_load_matrix_sync"
                | "tvm_store_matrix_sync"
                | "tvm_mma_sync"
                | "tvm_bmma_sync" => {
                    // Tensor-core fragment operations: opaque handle-typed
                    // calls on buffers' data pointers.
                    want(if path == "tvm_fill_fragment" { 6 } else { 8 })?;
                    if let Some((_, v)) = kwargs.iter().find(|(k, _)| *k == "dtype") {
                        if self.dtype_arg(v)? != DataType::handle() {
                            return Err(Diagnostic::error(
                                format!("`T.{path}` returns a handle"),
                                v.span,
                            ));
                        }
                    }
                    let mut args = Vec::new();
                    for v in vals {
                        args.push(self.index_or_expr(v)?);
                    }
                    Expr::call(Intrinsic::Other(path.clone()), args, DataType::handle())
                }
                "q_multiply_shift" | "q_multiply_shift_per_axis" => {
                    // Fixed-point multiplies of quantized kernels: opaque
                    // int32 calls (TVM 0.27 ignores a `dtype=` argument; the
                    // interpreter refuses to evaluate them).
                    want(if path == "q_multiply_shift" { 4 } else { 7 })?;
                    let mut args = Vec::new();
                    for v in vals {
                        args.push(self.expr_of(v)?);
                    }
                    Expr::call(Intrinsic::Other(path.clone()), args, DataType::i32())
                }
                "tvm_access_ptr" => {
                    want(5)?;
                    let mut args = Vec::new();
                    for v in vals {
                        args.push(self.index_or_expr(v)?);
                    }
                    Expr::call(
                        Intrinsic::Other("tvm_access_ptr".into()),
                        args,
                        DataType::handle(),
                    )
                }
                name => {
                    let Some(op) = Intrinsic::from_name(name) else {
                        return Err(Diagnostic::error(
                            format!("unknown function `T.{name}`"),
                            span,
                        ));
                    };
                    if let Some(n) = op.arity() {
                        want(n)?;
                    }
                    let mut exprs = Vec::new();
                    for v in vals {
                        exprs.push(self.float_or_expr(v)?);
                    }
                    // Two-argument intrinsics take a common dtype.
                    if exprs.len() == 2 {
                        let b = exprs.pop().expect("two");
                        let a = exprs.pop().expect("two");
                        let (a, b) = self.unify_pair(Value::Expr(a), Value::Expr(b))?;
                        exprs = vec![a, b];
                    }
                    let dt = exprs.first().map(|x| x.dtype()).unwrap_or(DataType::f32());
                    Expr::call(op, exprs, dt)
                }
            },
            span,
        )))
    }

    /// Evaluates without reporting errors (to ask "is this a buffer?").
    pub(super) fn eval_quiet(&mut self, e: &ast::Expr) -> Option<Value> {
        match &e.kind {
            ast::ExprKind::Name(n) => match self.lookup(n) {
                Some(Binding::Buffer(b)) => Some(Value::Buffer(b.clone(), e.span)),
                _ => None,
            },
            _ => None,
        }
    }

    /// `C.access_ptr("w")`: a `T.tvm_access_ptr` over the whole buffer.
    pub(super) fn buffer_method(&mut self, e: &ast::Expr) -> Result<Option<Value>> {
        let ast::ExprKind::Call { func, args } = &e.kind else {
            return Ok(None);
        };
        let ast::ExprKind::Attribute {
            value,
            attr,
            attr_span,
        } = &func.kind
        else {
            return Ok(None);
        };
        let Some(Value::Buffer(b, _)) = self.eval_quiet(value) else {
            return Ok(None);
        };
        if attr != "access_ptr" {
            return Err(Diagnostic::error(
                format!("buffers have no method `{attr}`"),
                *attr_span,
            ));
        }
        let mask = match args.first().map(positional).transpose()? {
            Some(a) => match self.eval(a)? {
                Value::Str(s, sp) => match s.as_str() {
                    "r" => 1,
                    "w" => 2,
                    "rw" => 3,
                    _ => {
                        return Err(Diagnostic::error(
                            "the access mask is \"r\", \"w\" or \"rw\"",
                            sp,
                        ))
                    }
                },
                Value::PyInt(i, _) => i,
                v => return Err(Diagnostic::error("expected an access mask", v.span())),
            },
            None => 3,
        };
        let index_dtype = b
            .shape
            .first()
            .map(|x| x.dtype())
            .unwrap_or(DataType::i32());
        // The extent in elements: the outermost stride times its extent for
        // strided buffers, the product of the shape otherwise.
        let extent = match (b.strides.first(), b.shape.first()) {
            (Some(st), Some(sh)) => Expr::binary(BinOp::Mul, st.clone(), sh.clone()),
            _ => {
                let mut acc: Option<Expr> = None;
                for d in &b.shape {
                    acc = Some(match acc {
                        None => d.clone(),
                        Some(a) => Expr::binary(BinOp::Mul, a, d.clone()),
                    });
                }
                acc.unwrap_or_else(|| Expr::int(1, index_dtype))
            }
        };
        let extent = match (extent.kind(), extent.as_int()) {
            (ExprKind::Binary(BinOp::Mul, a, c), _)
                if a.as_int().is_some() && c.as_int().is_some() =>
            {
                Expr::int(
                    a.as_int()
                        .unwrap_or(0)
                        .wrapping_mul(c.as_int().unwrap_or(0)),
                    index_dtype,
                )
            }
            _ => extent,
        };
        let args = vec![
            Expr::call(Intrinsic::Other("type_annotation".into()), vec![], b.dtype),
            b.data.to_expr(),
            b.elem_offset.clone(),
            extent,
            Expr::int(mask, DataType::i32()),
        ];
        Ok(Some(Value::Expr(spanned(
            Expr::call(
                Intrinsic::Other("tvm_access_ptr".into()),
                args,
                DataType::handle(),
            ),
            e.span,
        ))))
    }
}
