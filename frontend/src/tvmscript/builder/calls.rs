//! Calls: `T.*` operators and intrinsics (`T.max`, `T.Cast`,
//! `T.if_then_else`, …), evaluation without diagnostics, and buffer methods
//! (`access_ptr`, …).

use super::*;

/// A `T.*` call's arguments: the positional ones evaluated, the keyword ones
/// as written (each family of calls reads the keywords it knows).
struct CallArgs<'e> {
    /// The name after `T.`.
    path: String,
    span: Span,
    vals: Vec<Value>,
    kwargs: Vec<(&'e str, &'e ast::Expr)>,
}

impl<'e> CallArgs<'e> {
    fn arity_error(&self, want: usize, got: usize) -> Diagnostic {
        Diagnostic::error(
            format!("`T.{}` takes {want} argument(s), got {got}", self.path),
            self.span,
        )
    }

    /// Fails unless the call has exactly `n` positional arguments.
    fn want(&self, n: usize) -> Result<()> {
        match self.vals.len() {
            got if got == n => Ok(()),
            got => Err(self.arity_error(n, got)),
        }
    }

    /// Exactly `N` positional arguments, in order.
    fn take<const N: usize>(&mut self) -> Result<[Value; N]> {
        <[Value; N]>::try_from(std::mem::take(&mut self.vals))
            .map_err(|vals| self.arity_error(N, vals.len()))
    }

    /// All positional arguments, in order.
    fn take_all(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.vals)
    }

    /// The expression given for keyword `name`.
    fn keyword(&self, name: &str) -> Option<&'e ast::Expr> {
        self.kwargs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|&(_, v)| v)
    }
}

/// A dtype given as a string (`"float32"`) or as a dtype (`T.float32`).
fn dtype_value(v: Value) -> Result<DataType> {
    match v {
        Value::Str(s, sp) => {
            DataType::parse(&s).ok_or_else(|| Diagnostic::error(format!("unknown dtype `{s}`"), sp))
        }
        Value::DType(d, _) => Ok(d),
        v => Err(Diagnostic::error("expected a dtype", v.span())),
    }
}

/// The lane count of `T.Ramp` and `T.Broadcast`: an integer from 1 to 65535.
fn lanes_value(path: &str, lanes: Value) -> Result<u16> {
    let Value::PyInt(lanes, lspan) = lanes else {
        return Err(Diagnostic::error(
            format!("`T.{path}` lanes must be an integer"),
            lanes.span(),
        ));
    };
    u16::try_from(lanes)
        .ok()
        .filter(|l| *l >= 1)
        .ok_or_else(|| Diagnostic::error("lanes must be between 1 and 65535", lspan))
}

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
        let mut call = CallArgs {
            path,
            span,
            vals: Vec::new(),
            kwargs: Vec::new(),
        };
        for a in args {
            match a {
                ast::Arg::Positional(x) => call.vals.push(self.eval(x)?),
                ast::Arg::Keyword(k) => call.kwargs.push((k.name.as_str(), &k.value)),
                other => return Err(Diagnostic::error("unsupported argument form", other.span())),
            }
        }
        // `T.float32(0)`, `T.int64(5)`, `T.bool(True)`: typed constants and casts.
        if let Some(dt) = DataType::parse(&call.path) {
            if call.vals.is_empty() {
                return Err(Diagnostic::error(
                    format!(
                        "`T.{}()` declares a size variable; it is only allowed at the top of a function",
                        call.path
                    ),
                    span,
                ));
            }
            let [v] = call.take()?;
            return Ok(Value::Expr(spanned(self.cast_value(v, dt)?, span)));
        }
        // Each family answers `None` for names outside it; the rest are
        // intrinsics by name.
        let expr = if let Some(x) = self.operator_call(&mut call)? {
            x
        } else if let Some(x) = self.vector_call(&mut call)? {
            x
        } else if let Some(x) = self.dtype_call(&mut call)? {
            x
        } else if let Some(x) = self.opaque_call(&mut call)? {
            x
        } else {
            self.intrinsic_call(call)?
        };
        Ok(Value::Expr(spanned(expr, span)))
    }

    /// Arithmetic, comparison and logical operators: `T.max`, `T.floordiv`,
    /// `T.Select`, `T.And`, `T.abs`, … and the explicit operator forms
    /// (`T.Add`, `T.EQ`, …) printed where a literal expression would
    /// otherwise fold on re-parse.
    fn operator_call(&mut self, call: &mut CallArgs) -> Result<Option<Expr>> {
        let path = call.path.clone();
        let expr = match path.as_str() {
            "Add" | "Sub" | "Mul" | "Min" | "Max" => {
                let [a, b] = call.take()?;
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
                let [a, b] = call.take()?;
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
            "max" | "min" => {
                let [a, b] = call.take()?;
                let (a, b) = self.unify_pair(a, b)?;
                let op = if path == "max" {
                    BinOp::Max
                } else {
                    BinOp::Min
                };
                Expr::binary(op, a, b)
            }
            "floordiv" | "floormod" | "truncdiv" | "truncmod" | "Div" | "Mod" | "FloorDiv"
            | "FloorMod" => {
                let [a, b] = call.take()?;
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
                let [c, t, f] = call.take()?;
                let c = self.bool_expr(c)?;
                let (t, f) = self.unify_pair(t, f)?;
                if path == "Select" {
                    Expr::select(c, t, f)
                } else {
                    let dt = t.dtype();
                    Expr::call(Intrinsic::IfThenElse, vec![c, t, f], dt)
                }
            }
            "And" | "Or" => {
                let [a, b] = call.take()?;
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
                let [a] = call.take()?;
                if let Some(v) = call.keyword("dtype") {
                    self.dtype_arg(v)?;
                }
                let a = self.bool_expr(a)?;
                let dt = a.dtype();
                Expr::call(Intrinsic::Other(path), vec![a], dt)
            }
            "Not" => {
                let [a] = call.take()?;
                Expr::logical_not(self.bool_expr(a)?)
            }
            "abs" => {
                let [a] = call.take()?;
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
            _ => return Ok(None),
        };
        Ok(Some(expr))
    }

    /// Vector constructors: `T.Ramp(base, stride, lanes)` and
    /// `T.Broadcast(value, lanes)`.
    fn vector_call(&mut self, call: &mut CallArgs) -> Result<Option<Expr>> {
        let expr = match call.path.as_str() {
            "Ramp" => {
                let [base, stride, lanes] = call.take()?;
                let lanes = lanes_value(&call.path, lanes)?;
                let (base, stride) = self.unify_pair(base, stride)?;
                let dt = base.dtype().with_lanes(lanes);
                Expr::new(ExprKind::Ramp { base, stride }, dt, call.span)
            }
            "Broadcast" => {
                let [value, lanes] = call.take()?;
                let lanes = lanes_value(&call.path, lanes)?;
                let value = self.expr_of(value)?;
                let dt = value.dtype().with_lanes(lanes);
                Expr::new(ExprKind::Broadcast(value), dt, call.span)
            }
            _ => return Ok(None),
        };
        Ok(Some(expr))
    }

    /// Calls about dtypes: `T.Cast`/`T.cast`, `T.max_value`/`T.min_value`
    /// and `T.type_annotation`.
    fn dtype_call(&mut self, call: &mut CallArgs) -> Result<Option<Expr>> {
        let expr = match call.path.as_str() {
            "Cast" | "cast" => {
                // `T.Cast("float32", x)` and `T.cast(x, "float32")`.
                let [first, second] = call.take()?;
                let (dt_v, x) = if call.path == "Cast" {
                    (first, second)
                } else {
                    (second, first)
                };
                let dt = dtype_value(dt_v)?;
                let x = self.expr_of(x)?;
                Expr::new(ExprKind::Cast(x), dt, call.span)
            }
            "max_value" | "min_value" => {
                let [dt] = call.take()?;
                let dt = dtype_value(dt)?;
                extreme_value(dt, call.path == "max_value")
                    .ok_or_else(|| Diagnostic::error("no such value for this dtype", call.span))?
            }
            "type_annotation" => {
                // `T.type_annotation("float16")` or `(dtype="float16")`.
                let dt = match call.keyword("dtype") {
                    Some(v) => {
                        call.want(0)?;
                        self.dtype_arg(v)?
                    }
                    None => {
                        let [dt] = call.take()?;
                        dtype_value(dt)?
                    }
                };
                Expr::call(Intrinsic::Other("type_annotation".into()), vec![], dt)
            }
            _ => return Ok(None),
        };
        Ok(Some(expr))
    }

    /// Opaque calls the interpreter does not evaluate: `T.call_extern`,
    /// tensor-core fragment operations, quantized multiplies and
    /// `T.tvm_access_ptr`.
    fn opaque_call(&mut self, call: &mut CallArgs) -> Result<Option<Expr>> {
        let path = call.path.clone();
        let expr = match path.as_str() {
            "call_extern" | "call_pure_extern" => {
                // `T.call_extern("int32", "f", …)` (TVM 0.27) or
                // `T.call_extern("f", …, dtype="int32")` (the course).
                let mut dtype = None;
                for &(k, v) in &call.kwargs {
                    if k == "dtype" {
                        // `dtype=""`: a call made for its effect (TVM's void).
                        dtype = Some(match &v.kind {
                            ast::ExprKind::Str(s) if s.is_empty() => DataType::void(),
                            _ => self.dtype_arg(v)?,
                        });
                    }
                }
                let mut rest = call.take_all().into_iter();
                let dtype = match dtype {
                    Some(d) => d,
                    None => match rest.next() {
                        Some(Value::Str(s, sp)) => DataType::parse(&s)
                            .ok_or_else(|| Diagnostic::error(format!("unknown dtype `{s}`"), sp))?,
                        _ => {
                            return Err(Diagnostic::error(
                                "`T.call_extern` needs a result dtype",
                                call.span,
                            ))
                        }
                    },
                };
                let mut args = Vec::new();
                for v in rest {
                    args.push(self.expr_of(v)?);
                }
                Expr::call(Intrinsic::Other(path), args, dtype)
            }
            "tvm_fill_fragment"
            | "tvm_load_matrix_sync"
            | "tvm_store_matrix_sync"
            | "tvm_mma_sync"
            | "tvm_bmma_sync" => {
                // Tensor-core fragment operations: opaque handle-typed
                // calls on buffers' data pointers.
                call.want(if path == "tvm_fill_fragment" { 6 } else { 8 })?;
                if let Some(v) = call.keyword("dtype") {
                    if self.dtype_arg(v)? != DataType::handle() {
                        return Err(Diagnostic::error(
                            format!("`T.{path}` returns a handle"),
                            v.span,
                        ));
                    }
                }
                let mut args = Vec::new();
                for v in call.take_all() {
                    args.push(self.index_or_expr(v)?);
                }
                Expr::call(Intrinsic::Other(path), args, DataType::handle())
            }
            "q_multiply_shift" | "q_multiply_shift_per_axis" => {
                // Fixed-point multiplies of quantized kernels: opaque
                // int32 calls (TVM 0.27 ignores a `dtype=` argument; the
                // interpreter refuses to evaluate them).
                call.want(if path == "q_multiply_shift" { 4 } else { 7 })?;
                let mut args = Vec::new();
                for v in call.take_all() {
                    args.push(self.expr_of(v)?);
                }
                Expr::call(Intrinsic::Other(path), args, DataType::i32())
            }
            "tvm_access_ptr" => {
                call.want(5)?;
                let mut args = Vec::new();
                for v in call.take_all() {
                    args.push(self.index_or_expr(v)?);
                }
                Expr::call(
                    Intrinsic::Other("tvm_access_ptr".into()),
                    args,
                    DataType::handle(),
                )
            }
            _ => return Ok(None),
        };
        Ok(Some(expr))
    }

    /// Any other `T.*` call: an intrinsic by name (`T.exp`, `T.pow`, …).
    fn intrinsic_call(&mut self, mut call: CallArgs) -> Result<Expr> {
        let Some(op) = Intrinsic::from_name(&call.path) else {
            return Err(Diagnostic::error(
                format!("unknown function `T.{}`", call.path),
                call.span,
            ));
        };
        if let Some(n) = op.arity() {
            call.want(n)?;
        }
        let mut exprs = Vec::new();
        for v in call.take_all() {
            exprs.push(self.float_or_expr(v)?);
        }
        // Two-argument intrinsics take a common dtype.
        let exprs = match <[Expr; 2]>::try_from(exprs) {
            Ok([a, b]) => {
                let (a, b) = self.unify_pair(Value::Expr(a), Value::Expr(b))?;
                vec![a, b]
            }
            Err(exprs) => exprs,
        };
        let dt = exprs.first().map(|x| x.dtype()).unwrap_or(DataType::f32());
        Ok(Expr::call(op, exprs, dt))
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
