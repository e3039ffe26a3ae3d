//! The `R.*` calls: built-in operators (`R.add`, `R.nn.relu`, `R.linear`,
//! …), `R.call_tir`, `R.call_dps_packed` and their checks.

use super::*;

impl<'a> GraphBuilder<'a> {
    pub(super) fn relax_call(&mut self, path: &str, args: &[ast::Arg], span: Span) -> Result<Val> {
        let what = format!("R.{path}");
        let a = Args::new(args, span, what.clone())?;
        match path {
            "Tensor" => Ok(Val::Sinfo(self.tensor_sinfo(args, span)?, span)),
            "Tuple" => {
                let mut fields = Vec::new();
                for x in &a.pos {
                    fields.push(self.sinfo_expr(x)?);
                }
                if let Some((_, _, s)) = a.kw.first() {
                    return Err(Diagnostic::error("R.Tuple takes struct infos", *s));
                }
                Ok(Val::Sinfo(StructInfo::Tuple(fields), span))
            }
            "Shape" => {
                a.check(&["values", "ndim"])?;
                let ndim = match a.get(1, "ndim")? {
                    Some(n) => match self.eval(n)? {
                        Val::Int(-1, _) => None,
                        Val::Int(k, _) if k >= 0 => Some(k as usize),
                        _ => return Err(Diagnostic::error("bad `ndim`", n.span)),
                    },
                    None => None,
                };
                let values = match a.get(0, "values")? {
                    Some(v) => {
                        let val = self.eval(v)?;
                        Some(self.dims_of(val, v.span)?)
                    }
                    None => None,
                };
                Ok(Val::Sinfo(
                    StructInfo::Shape(ShapeInfo {
                        ndim: values.as_ref().map(|v| v.len()).or(ndim),
                        values,
                    }),
                    span,
                ))
            }
            "Prim" => {
                a.check(&["dtype"])?;
                let d = a.required(0, "dtype")?;
                match self.dtype_arg(d)? {
                    Some(dt) => Ok(Val::Sinfo(StructInfo::Prim(dt), span)),
                    None => Err(Diagnostic::error("R.Prim needs a dtype", d.span)),
                }
            }
            "shape" => {
                a.check(&["value"])?;
                let v = a.required(0, "value")?;
                let val = self.eval(v)?;
                let dims = self.dims_of(val, v.span)?;
                Ok(Val::Expr(Expr::new(ExprKind::Shape(dims), span)))
            }
            "prim_value" => {
                a.check(&["value"])?;
                let v = a.required(0, "value")?;
                let val = self.eval(v)?;
                let p = match val {
                    Val::Int(i, _) => PrimExpr::i64(i),
                    Val::Prim(p, _) => p,
                    other => {
                        return Err(Diagnostic::error(
                            format!(
                                "R.prim_value takes an integer expression, found {}",
                                other.describe()
                            ),
                            v.span,
                        ))
                    }
                };
                Ok(Val::Expr(Expr::new(ExprKind::PrimValue(p), span)))
            }
            "str" => {
                a.check(&["value"])?;
                let v = a.required(0, "value")?;
                match self.eval(v)? {
                    Val::Str(s, _) => Ok(Val::Expr(Expr::new(ExprKind::Str(s), span))),
                    _ => Err(Diagnostic::error("R.str takes a string", v.span)),
                }
            }
            "tuple" => {
                a.check(&[])?;
                Ok(Val::Expr(Expr::new(ExprKind::Tuple(Vec::new()), span)))
            }
            "const" => {
                a.check(&["value", "dtype"])?;
                let v = a.required(0, "value")?;
                let dtype = match a.get(1, "dtype")? {
                    Some(d) => self.dtype_arg(d)?,
                    None => None,
                };
                let val = self.eval(v)?;
                let arr = const_array(val, dtype, v.span)?;
                Ok(Val::Expr(Expr::new(ExprKind::Constant(Rc::new(arr)), span)))
            }
            "call_tir" | "call_dps_packed" => self.dps_call(path, &a, span),
            "linear" => {
                a.check(&["data", "weight", "bias", "out_dtype"])?;
                let x = self.expr_arg(a.required(0, "data")?)?;
                let w = self.expr_arg(a.required(1, "weight")?)?;
                let b = match a.get(2, "bias")? {
                    Some(e) if !matches!(e.kind, ast::ExprKind::NoneLit) => Some(self.expr_arg(e)?),
                    _ => None,
                };
                let out_dtype = match a.get(3, "out_dtype")? {
                    Some(d) => self.dtype_arg(d)?,
                    None => None,
                };
                let wt = self.op_call(Op::PermuteDims { axes: None }, vec![w], span)?;
                let mm = self.op_call(Op::Matmul { out_dtype }, vec![x, wt], span)?;
                let out = match b {
                    Some(b) => self.op_call(Op::Binary(BinaryOp::Add), vec![mm, b], span)?,
                    None => mm,
                };
                Ok(Val::Expr(out))
            }
            "dataflow" | "output" | "func_attr" | "function" => Err(Diagnostic::error(
                format!("`R.{path}` cannot be used as a value"),
                span,
            )),
            _ => {
                let op = self.op_from_call(path, &a, span)?;
                let names: &[&str] = match &op {
                    Op::Binary(_) | Op::Matmul { .. } => &["x1", "x2"],
                    Op::EwiseFma => &["x1", "x2", "x3"],
                    Op::Reshape => &["x"],
                    Op::Conv2d(_) => &["data", "weight"],
                    Op::Relu | Op::Softmax { .. } => &["data"],
                    _ => &["x"],
                };
                let mut exprs = Vec::new();
                for (i, n) in names.iter().enumerate() {
                    let e = a.required(i, n)?;
                    exprs.push(self.expr_arg(e)?);
                }
                if let Op::Reshape = op {
                    let s = a.required(1, "shape")?;
                    let x_sinfo = exprs.first().map(|x| self.sinfo_of(x, span)).transpose()?;
                    exprs.push(self.reshape_shape(s, x_sinfo)?);
                }
                Ok(Val::Expr(self.op_call(op, exprs, span)?))
            }
        }
    }

    /// The new shape of `R.reshape`: a tuple (with at most one `-1`, resolved
    /// from the input's shape) or a shape value.
    fn reshape_shape(&mut self, e: &ast::Expr, x: Option<StructInfo>) -> Result<Expr> {
        let v = self.eval(e)?;
        if let Val::Expr(x) = &v {
            return Ok(x.clone());
        }
        let Val::Seq(items, span) = v else {
            return Err(Diagnostic::error(
                "R.reshape takes the new shape as a tuple or `R.shape([...])`",
                e.span,
            ));
        };
        let mut dims = Vec::with_capacity(items.len());
        let mut infer_at = None;
        for item in items {
            if let Val::Int(-1, s) = item {
                if infer_at.is_some() {
                    return Err(Diagnostic::error("at most one dimension can be -1", s));
                }
                infer_at = Some(dims.len());
                dims.push(PrimExpr::i64(-1));
                continue;
            }
            dims.push(self.dim_of(item)?);
        }
        if let Some(i) = infer_at {
            let old = match x
                .as_ref()
                .and_then(StructInfo::as_tensor)
                .and_then(|t| t.shape.clone())
            {
                Some(s) => s,
                None => {
                    return Err(Diagnostic::error(
                        "a -1 dimension needs an input of known shape",
                        span,
                    ))
                }
            };
            let total = old.iter().fold(PrimExpr::i64(1), |acc, d| {
                PrimExpr::binary(BinOp::Mul, acc, d.clone())
            });
            let known = dims
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .fold(PrimExpr::i64(1), |acc, (_, d)| {
                    PrimExpr::binary(BinOp::Mul, acc, d.clone())
                });
            let ana = tessel_tir::arith::Analyzer::new();
            let (t, k) = (ana.simplify(&total), ana.simplify(&known));
            let inferred = match (t.as_int(), k.as_int()) {
                (Some(a), Some(b)) if b != 0 && a % b == 0 => PrimExpr::i64(a / b),
                (Some(_), Some(_)) => {
                    return Err(Diagnostic::error(
                        format!(
                            "cannot reshape {} elements into a shape with {} elements per -1",
                            tessel_tir::ir::printer::describe_dim(&t),
                            tessel_tir::ir::printer::describe_dim(&k)
                        ),
                        span,
                    ))
                }
                _ => ana.simplify(&PrimExpr::binary(BinOp::FloorDiv, t, k)),
            };
            if let Some(slot) = dims.get_mut(i) {
                *slot = inferred;
            }
        }
        Ok(Expr::new(ExprKind::Shape(dims), span))
    }

    fn op_from_call(&mut self, path: &str, a: &Args, span: Span) -> Result<Op> {
        let op = match path {
            "add" | "subtract" | "multiply" | "divide" => {
                a.check(&["x1", "x2"])?;
                Op::Binary(match path {
                    "add" => BinaryOp::Add,
                    "subtract" => BinaryOp::Subtract,
                    "multiply" => BinaryOp::Multiply,
                    _ => BinaryOp::Divide,
                })
            }
            "nn.relu" => {
                a.check(&["data"])?;
                Op::Relu
            }
            "matmul" => {
                a.check(&["x1", "x2", "out_dtype"])?;
                let out_dtype = match a.get(2, "out_dtype")? {
                    Some(d) => self.dtype_arg(d)?,
                    None => None,
                };
                Op::Matmul { out_dtype }
            }
            "permute_dims" => {
                a.check(&["x", "axes"])?;
                Op::PermuteDims {
                    axes: self.opt_int_list(a.get(1, "axes")?, "axes")?,
                }
            }
            "ewise_fma" => {
                a.check(&["x1", "x2", "x3"])?;
                Op::EwiseFma
            }
            "reshape" => {
                a.check(&["x", "shape"])?;
                Op::Reshape
            }
            "nn.softmax" => {
                a.check(&["data", "axis"])?;
                Op::Softmax {
                    axis: self.int_arg(a.get(1, "axis")?, -1)?,
                }
            }
            "sum" | "mean" => {
                a.check(&["x", "axis", "keepdims"])?;
                let axis = self.opt_int_list(a.get(1, "axis")?, "axis")?;
                let keepdims = self.bool_arg(a.get(2, "keepdims")?, false)?;
                if path == "sum" {
                    Op::Sum { axis, keepdims }
                } else {
                    Op::Mean { axis, keepdims }
                }
            }
            "nn.conv2d" => {
                a.check(&[
                    "data",
                    "weight",
                    "strides",
                    "padding",
                    "dilation",
                    "groups",
                    "data_layout",
                    "kernel_layout",
                    "out_layout",
                    "out_dtype",
                ])?;
                let mut attrs = Conv2dAttrs::default();
                if let Some(e) = a.get(2, "strides")? {
                    attrs.strides = pair(&self.int_list(e, "strides")?, e.span, "strides")?;
                }
                if let Some(e) = a.get(3, "padding")? {
                    let p = self.int_list(e, "padding")?;
                    attrs.padding = match p.as_slice() {
                        [x] => [*x, *x, *x, *x],
                        [h, w] => [*h, *w, *h, *w],
                        [t, l, b, r] => [*t, *l, *b, *r],
                        _ => {
                            return Err(Diagnostic::error(
                                "`padding` takes 1, 2 or 4 integers",
                                e.span,
                            ))
                        }
                    };
                }
                if let Some(e) = a.get(4, "dilation")? {
                    attrs.dilation = pair(&self.int_list(e, "dilation")?, e.span, "dilation")?;
                }
                attrs.groups = self.int_arg(a.get(5, "groups")?, 1)?;
                if let Some(s) = self.str_arg(a.get(6, "data_layout")?)? {
                    attrs.data_layout = s;
                }
                if let Some(s) = self.str_arg(a.get(7, "kernel_layout")?)? {
                    attrs.kernel_layout = s;
                }
                attrs.out_layout = self
                    .str_arg(a.get(8, "out_layout")?)?
                    .unwrap_or_else(|| attrs.data_layout.clone());
                if let Some(d) = a.get(9, "out_dtype")? {
                    attrs.out_dtype = self.dtype_arg(d)?;
                }
                Op::Conv2d(attrs)
            }
            _ => {
                return Err(
                    Diagnostic::error(format!("unknown graph operator `R.{path}`"), span)
                        .with_note(format!(
                            "Tessel supports {}",
                            crate::graph::op::OP_NAMES
                                .iter()
                                .map(|n| format!("R.{n}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                )
            }
        };
        Ok(op)
    }

    /// `R.call_tir(f, args, out_sinfo)` and `R.call_dps_packed(f, args, out_sinfo)`.
    fn dps_call(&mut self, path: &str, a: &Args, span: Span) -> Result<Val> {
        let is_tir = path == "call_tir";
        let out_key = if a.kw.iter().any(|(k, _, _)| *k == "out_ty") {
            "out_ty"
        } else {
            "out_sinfo"
        };
        let mut allowed = vec!["func", "args", out_key, "dtype"];
        if is_tir {
            allowed[0] = "gvar";
            allowed.push("tir_vars");
        }
        // `tir_vars` is the 4th positional of call_tir.
        a.check(&allowed)?;
        let fe = a.required(0, allowed[0])?;
        if let Some(n) = fe.as_name() {
            if self.lookup(n).is_none() && !self.globals.0.contains_key(n) {
                let mut d =
                    Diagnostic::error(format!("`{n}` is not a function of this module"), fe.span);
                if is_tir {
                    d = d.with_note(format!(
                        "R.call_tir calls a PrimFunc defined in the same class (`cls.{n}`)"
                    ));
                }
                return Err(d);
            }
        }
        let callee = match self.eval(fe)? {
            Val::Global(name, gspan) if is_tir => {
                match self.globals.0.get(&name) {
                    Some(GlobalEntry::Prim(_)) => {}
                    _ => {
                        return Err(Diagnostic::error(
                            format!("`{name}` is not a PrimFunc of the module"),
                            gspan,
                        ))
                    }
                }
                Expr::global(&name).with_span(gspan)
            }
            Val::Str(s, sspan) if !is_tir => Expr::extern_func(&s).with_span(sspan),
            Val::Global(name, gspan) => Expr::global(&name).with_span(gspan),
            other => {
                return Err(Diagnostic::error(
                    if is_tir {
                        format!(
                            "R.call_tir calls a PrimFunc of the module (`cls.name`), not {}",
                            other.describe()
                        )
                    } else {
                        format!(
                            "R.call_dps_packed takes the function's name as a string, not {}",
                            other.describe()
                        )
                    },
                    fe.span,
                ))
            }
        };
        let ae = a.required(1, "args")?;
        let args_val = self.eval(ae)?;
        let args_expr = match args_val {
            Val::Seq(items, sspan) => {
                let mut fields = Vec::with_capacity(items.len());
                for x in items {
                    fields.push(self.to_expr(x)?);
                }
                Expr::new(ExprKind::Tuple(fields), sspan)
            }
            other => {
                let e = self.to_expr(other)?;
                match e.kind() {
                    ExprKind::Tuple(_) => e,
                    _ => Expr::new(ExprKind::Tuple(vec![e.clone()]), e.span()),
                }
            }
        };
        let oe = a.required(2, out_key)?;
        // The oldest spelling: an output shape and `dtype=`.
        let out = match (self.eval(oe)?, a.get(3, "dtype")?) {
            (Val::Seq(items, _), Some(d)) if !items.iter().any(|x| matches!(x, Val::Sinfo(..))) => {
                let dtype = self.dtype_arg(d)?;
                let dims = self.dims_of(Val::Seq(items, oe.span), oe.span)?;
                StructInfo::Tensor(TensorInfo::new(dims, dtype))
            }
            (_, Some(d)) => {
                return Err(Diagnostic::error(
                    "`dtype=` goes with an output shape (the old spelling); with a struct info, put the dtype in it",
                    d.span,
                ))
            }
            _ => self.out_sinfo(oe)?,
        };
        let mut call_args = vec![callee, args_expr];
        if is_tir {
            if let Some(tv) = a.get(4, "tir_vars")? {
                let v = self.eval(tv)?;
                let e = match v {
                    Val::Expr(e) if matches!(e.kind(), ExprKind::Shape(_)) => e,
                    Val::Seq(items, s) => {
                        let dims = self.dims_of(Val::Seq(items, s), s)?;
                        Expr::new(ExprKind::Shape(dims), s)
                    }
                    _ => {
                        return Err(Diagnostic::error(
                            "`tir_vars` takes `R.shape([...])`",
                            tv.span,
                        ))
                    }
                };
                call_args.push(e);
            }
        }
        let op = if is_tir {
            Op::CallTir
        } else {
            Op::CallDpsPacked
        };
        let call = Expr::new(
            ExprKind::Call(Call {
                callee: Callee::Op(op),
                args: call_args,
                sinfo_args: vec![out],
            }),
            span,
        );
        self.check_call(&call)?;
        if is_tir {
            self.check_call_tir(&call, span)?;
        }
        Ok(Val::Expr(call))
    }

    /// Checks a `call_tir` against the PrimFunc it calls: one parameter per
    /// input and output, with matching ranks, dtypes and constant sizes.
    fn check_call_tir(&self, call: &Expr, span: Span) -> Result<()> {
        let Some(c) = call.as_call() else {
            return Ok(());
        };
        let (Some(f), Some(args)) = (c.args.first(), c.args.get(1)) else {
            return Ok(());
        };
        let ExprKind::GlobalVar(g) = f.kind() else {
            return Ok(());
        };
        let Some(GlobalEntry::Prim(pf)) = self.globals.0.get(g.name()) else {
            return Ok(());
        };
        let ExprKind::Tuple(inputs) = args.kind() else {
            return Ok(());
        };
        let mut sinfos = Vec::new();
        for x in inputs {
            sinfos.push(self.sinfo_of(x, x.span())?);
        }
        let outs: Vec<StructInfo> = match c.sinfo_args.first() {
            Some(StructInfo::Tuple(fields)) => fields.clone(),
            Some(s) => vec![s.clone()],
            None => Vec::new(),
        };
        let n_scalar_extra = if c.args.len() > 2 { 1 } else { 0 };
        let buffers: Vec<_> = pf.params.iter().map(|p| pf.param_buffer(p)).collect();
        let expected = sinfos.len() + outs.len();
        let n_buffers = buffers.iter().filter(|b| b.is_some()).count();
        if n_buffers != expected || (n_scalar_extra == 0 && pf.params.len() != expected) {
            return Err(Diagnostic::error(
                format!(
                    "`{}` takes {} buffer{}, but this call passes {} input{} and {} output{}",
                    g.name(),
                    n_buffers,
                    if n_buffers == 1 { "" } else { "s" },
                    sinfos.len(),
                    if sinfos.len() == 1 { "" } else { "s" },
                    outs.len(),
                    if outs.len() == 1 { "" } else { "s" },
                ),
                span,
            ));
        }
        let all = sinfos.iter().chain(outs.iter());
        for (i, (s, b)) in all.zip(buffers.iter().flatten()).enumerate() {
            let what = if i < sinfos.len() {
                format!("input {}", i + 1)
            } else {
                format!("output {}", i - sinfos.len() + 1)
            };
            let StructInfo::Tensor(t) = s else {
                return Err(Diagnostic::error(
                    format!(
                        "{what} of `{}` must be a tensor, not {}",
                        g.name(),
                        s.describe()
                    ),
                    span,
                ));
            };
            if let Some(d) = t.dtype {
                if d != b.dtype {
                    return Err(Diagnostic::error(
                        format!(
                            "{what} of `{}` is {d}, but buffer `{}` is {}",
                            g.name(),
                            b.name,
                            b.dtype
                        ),
                        span,
                    ));
                }
            }
            if let Some(n) = t.ndim {
                if n != b.shape.len() {
                    return Err(Diagnostic::error(
                        format!(
                            "{what} of `{}` has {n} dimensions, but buffer `{}` has {}",
                            g.name(),
                            b.name,
                            b.shape.len()
                        ),
                        span,
                    ));
                }
            }
            if let Some(shape) = &t.shape {
                for (j, (x, y)) in shape.iter().zip(&b.shape).enumerate() {
                    if let (Some(p), Some(q)) = (x.as_int(), y.as_int()) {
                        if p != q {
                            return Err(Diagnostic::error(
                                format!(
                                    "{what} of `{}` has size {p} in dimension {j}, but buffer `{}` has {q}",
                                    g.name(),
                                    b.name
                                ),
                                span,
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
