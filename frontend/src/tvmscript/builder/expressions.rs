//! Expressions: evaluating Python expressions to TIR values (names,
//! constants, operators, subscripts), and converting values to typed `Expr`s.

use super::*;

impl<'a> FuncBuilder<'a> {
    // ----- expressions --------------------------------------------------------

    /// `T.<path>(args)` calls, with the path after the `T.` alias.
    pub(super) fn tir_call<'e>(&self, e: &'e ast::Expr) -> Option<(String, &'e [ast::Arg])> {
        let ast::ExprKind::Call { func, args } = &e.kind else {
            return None;
        };
        let path = dotted(func)?;
        let (first, rest) = path.split_first()?;
        if !self.ns.is_tir(first) || rest.is_empty() {
            return None;
        }
        Some((rest.join("."), args))
    }

    pub(super) fn is_tir_attr(&self, e: &ast::Expr, attr: &str) -> bool {
        matches!(dotted(e).as_deref(), Some([t, a]) if self.ns.is_tir(t) && *a == attr)
    }

    pub(super) fn eval(&mut self, e: &ast::Expr) -> Result<Value> {
        let span = e.span;
        Ok(match &e.kind {
            ast::ExprKind::Int(v) => Value::PyInt(*v, span),
            ast::ExprKind::Float(v) => Value::PyFloat(*v, span),
            ast::ExprKind::Bool(v) => Value::PyBool(*v, span),
            ast::ExprKind::Str(s) => Value::Str(s.clone(), span),
            ast::ExprKind::NoneLit => Value::None(span),
            ast::ExprKind::Name(n) => match self.lookup(n) {
                Some(Binding::Var(v)) => {
                    Value::Expr(Expr::new(ExprKind::Var(v.clone()), v.dtype(), span))
                }
                Some(Binding::Buffer(b)) => Value::Buffer(b.clone(), span),
                None => match self.ns.consts.get(n) {
                    Some(c) => const_value(c, span),
                    None => return Err(Diagnostic::error(format!("undefined name `{n}`"), span)),
                },
            },
            ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => Value::Tuple(
                items.iter().map(|i| self.eval(i)).collect::<Result<_>>()?,
                span,
            ),
            ast::ExprKind::BinOp { left, op, right } => {
                let l = self.eval(left)?;
                let r = self.eval(right)?;
                self.binary(*op, l, r, span)?
            }
            ast::ExprKind::UnaryOp { op, operand } => {
                let v = self.eval(operand)?;
                match (op, v) {
                    (ast::UnaryOp::Neg, Value::PyInt(x, _)) => Value::PyInt(x.wrapping_neg(), span),
                    (ast::UnaryOp::Neg, Value::PyFloat(x, _)) => Value::PyFloat(-x, span),
                    (ast::UnaryOp::Pos, v) => v,
                    (ast::UnaryOp::Neg, v) => {
                        let x = self.expr_of(v)?;
                        let zero = zero_of(x.dtype());
                        Value::Expr(spanned(Expr::binary(BinOp::Sub, zero, x), span))
                    }
                    (ast::UnaryOp::Not, Value::PyBool(b, _)) => Value::PyBool(!b, span),
                    (ast::UnaryOp::Not, v) => {
                        let x = self.bool_expr(v)?;
                        Value::Expr(spanned(Expr::logical_not(x), span))
                    }
                    (ast::UnaryOp::Invert, _) => {
                        return Err(Diagnostic::error("`~` is not supported", span))
                    }
                }
            }
            ast::ExprKind::BoolOp { op, values } => {
                let mut acc: Option<Expr> = None;
                for v in values {
                    let x = self.eval(v)?;
                    let x = self.bool_expr(x)?;
                    acc = Some(match acc {
                        None => x,
                        Some(a) => spanned(
                            match op {
                                ast::BoolOp::And => Expr::and(a, x),
                                ast::BoolOp::Or => Expr::or(a, x),
                            },
                            span,
                        ),
                    });
                }
                Value::Expr(acc.ok_or_else(|| Diagnostic::error("empty boolean expression", span))?)
            }
            ast::ExprKind::Compare {
                left,
                ops,
                comparators,
            } => {
                let mut lhs = self.eval(left)?;
                let mut acc: Option<Expr> = None;
                for (op, c) in ops.iter().zip(comparators) {
                    let rhs = self.eval(c)?;
                    let cmp = match op {
                        ast::CmpOp::Eq => CmpOp::Eq,
                        ast::CmpOp::NotEq => CmpOp::Ne,
                        ast::CmpOp::Lt => CmpOp::Lt,
                        ast::CmpOp::LtE => CmpOp::Le,
                        ast::CmpOp::Gt => CmpOp::Gt,
                        ast::CmpOp::GtE => CmpOp::Ge,
                        _ => {
                            return Err(Diagnostic::error("this comparison is not TVMScript", span))
                        }
                    };
                    let (a, b) = self.unify_pair(lhs, rhs.clone())?;
                    let e = spanned(Expr::cmp(cmp, a, b), span);
                    acc = Some(match acc {
                        None => e,
                        Some(prev) => spanned(Expr::and(prev, e), span),
                    });
                    lhs = rhs;
                }
                Value::Expr(acc.ok_or_else(|| Diagnostic::error("empty comparison", span))?)
            }
            ast::ExprKind::Subscript { value, index } => {
                let base = self.eval(value)?;
                match base {
                    Value::Buffer(buffer, _) => {
                        let indices = self.indices(&buffer, index)?;
                        // A vector index (`T.Ramp`, a slice) makes a vector load.
                        let lanes = indices.iter().map(|i| i.dtype().lanes).max().unwrap_or(1);
                        Value::Expr(Expr::new(
                            ExprKind::Load {
                                buffer: buffer.clone(),
                                indices,
                            },
                            buffer.dtype.with_lanes(lanes),
                            span,
                        ))
                    }
                    Value::Tuple(items, _) => {
                        let i = match self.eval(index)? {
                            Value::PyInt(i, _) => i,
                            v => {
                                return Err(Diagnostic::error(
                                    "a tuple index is an integer",
                                    v.span(),
                                ))
                            }
                        };
                        let n = items.len() as i64;
                        let k = if i < 0 { i + n } else { i };
                        if k < 0 || k >= n {
                            return Err(Diagnostic::error(
                                format!("index {i} is out of range for {n} items"),
                                index.span,
                            ));
                        }
                        items[k as usize].clone()
                    }
                    other => {
                        return Err(Diagnostic::error(
                            format!("cannot index {}", other.describe()),
                            other.span(),
                        ))
                    }
                }
            }
            ast::ExprKind::Slice { .. } => {
                return Err(Diagnostic::error(
                    "a slice is only allowed in a region like `A[0:128]`",
                    span,
                ))
            }
            ast::ExprKind::Attribute { value, attr, .. }
                if matches!(self.eval_quiet(value), Some(Value::Buffer(..))) =>
            {
                let Some(Value::Buffer(b, _)) = self.eval_quiet(value) else {
                    return Err(Diagnostic::error("expected a buffer", value.span));
                };
                match attr.as_str() {
                    "data" => Value::Expr(Expr::new(
                        ExprKind::Var(b.data.clone()),
                        DataType::handle(),
                        span,
                    )),
                    "elem_offset" => Value::Expr(b.elem_offset.with_span(span)),
                    "strides" => Value::Tuple(
                        b.strides.iter().map(|x| Value::Expr(x.clone())).collect(),
                        span,
                    ),
                    "shape" => Value::Tuple(
                        b.shape.iter().map(|x| Value::Expr(x.clone())).collect(),
                        span,
                    ),
                    "dtype" => Value::Str(b.dtype.to_string(), span),
                    other => {
                        return Err(Diagnostic::error(
                            format!("buffers have no attribute `{other}`"),
                            span,
                        ))
                    }
                }
            }
            ast::ExprKind::Attribute { .. } => {
                let path = dotted(e).unwrap_or_default();
                match path.as_slice() {
                    [t, name] if self.ns.is_tir(t) => match DataType::parse(name) {
                        Some(dt) => Value::DType(dt, span),
                        None => {
                            return Err(Diagnostic::error(format!("unknown name `T.{name}`"), span))
                        }
                    },
                    _ => return Err(Diagnostic::error("unsupported attribute access", span)),
                }
            }
            ast::ExprKind::Call { .. } => self.eval_call(e)?,
            ast::ExprKind::IfExp { .. } => {
                return Err(Diagnostic::error(
                    "use `T.if_then_else(cond, a, b)` or `T.Select` instead of `a if c else b`",
                    span,
                ))
            }
            _ => return Err(Diagnostic::error("this expression is not TVMScript", span)),
        })
    }

    pub(super) fn index_or_expr(&mut self, v: Value) -> Result<Expr> {
        match v {
            Value::PyInt(x, s) => Ok(Expr::int(x, DataType::i32()).with_span(s)),
            v => self.expr_of(v),
        }
    }

    pub(super) fn binary(
        &mut self,
        op: ast::BinOp,
        l: Value,
        r: Value,
        span: Span,
    ) -> Result<Value> {
        // Fold Python literals the way Python would.
        if let (Value::PyInt(a, _), Value::PyInt(b, _)) = (&l, &r) {
            let (a, b) = (*a, *b);
            let v = match op {
                ast::BinOp::Add => a.checked_add(b),
                ast::BinOp::Sub => a.checked_sub(b),
                ast::BinOp::Mul => a.checked_mul(b),
                ast::BinOp::FloorDiv if b != 0 => {
                    Some(a.div_euclid(b) - if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 })
                }
                ast::BinOp::Mod if b != 0 => Some(
                    a - b * (a.div_euclid(b) - if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 }),
                ),
                ast::BinOp::Pow if (0..64).contains(&b) => a.checked_pow(b as u32),
                ast::BinOp::Div if b != 0 => return Ok(Value::PyFloat(a as f64 / b as f64, span)),
                _ => None,
            };
            if let Some(v) = v {
                return Ok(Value::PyInt(v, span));
            }
            return Err(Diagnostic::error(
                "cannot fold this integer expression",
                span,
            ));
        }
        let bin = match op {
            ast::BinOp::Add => BinOp::Add,
            ast::BinOp::Sub => BinOp::Sub,
            ast::BinOp::Mul => BinOp::Mul,
            ast::BinOp::Div => BinOp::Div,
            ast::BinOp::FloorDiv => BinOp::FloorDiv,
            ast::BinOp::Mod => BinOp::FloorMod,
            ast::BinOp::Pow => {
                let (a, b) = self.unify_pair(l, r)?;
                let dt = a.dtype();
                return Ok(Value::Expr(spanned(
                    Expr::call(Intrinsic::Pow, vec![a, b], dt),
                    span,
                )));
            }
            _ => {
                return Err(Diagnostic::error(
                    "this operator is not supported in TVMScript",
                    span,
                ))
            }
        };
        let (a, b) = self.unify_pair(l, r)?;
        Ok(Value::Expr(spanned(Expr::binary(bin, a, b), span)))
    }

    /// Converts two values to expressions of one dtype, typing literals from
    /// the other side and widening int32 to int64 when they meet.
    pub(super) fn unify_pair(&mut self, a: Value, b: Value) -> Result<(Expr, Expr)> {
        self.unify_pair_default(a, b, DataType::i32())
    }

    pub(super) fn unify_pair_default(
        &mut self,
        a: Value,
        b: Value,
        default_int: DataType,
    ) -> Result<(Expr, Expr)> {
        let typed = |v: &Value| matches!(v, Value::Expr(_));
        match (typed(&a), typed(&b)) {
            (true, false) => {
                let a = self.expr_of(a)?;
                let b = self.expr_as(b, a.dtype())?;
                Ok((a, b))
            }
            (false, true) => {
                let b = self.expr_of(b)?;
                let a = self.expr_as(a, b.dtype())?;
                Ok((a, b))
            }
            (false, false) => {
                let dt = if matches!(a, Value::PyFloat(..)) || matches!(b, Value::PyFloat(..)) {
                    DataType::f32()
                } else {
                    default_int
                };
                Ok((self.expr_as(a, dt)?, self.expr_as(b, dt)?))
            }
            (true, true) => {
                let (a, b) = (self.expr_of(a)?, self.expr_of(b)?);
                let (da, db) = (a.dtype(), b.dtype());
                if da == db {
                    return Ok((a, b));
                }
                // Integer widening, the one promotion TVM applies silently.
                if da.is_integer() && db.is_integer() {
                    let wide = if da.bits >= db.bits { da } else { db };
                    return Ok((Expr::cast(wide, a), Expr::cast(wide, b)));
                }
                // Leave other mismatches for the verifier to report with both spans.
                Ok((a, b))
            }
        }
    }

    pub(super) fn expr_of(&mut self, v: Value) -> Result<Expr> {
        match v {
            Value::Expr(e) => Ok(e),
            Value::PyInt(x, s) => Ok(Expr::int(x, DataType::i32()).with_span(s)),
            Value::PyFloat(x, s) => Ok(Expr::float(x, DataType::f32()).with_span(s)),
            Value::PyBool(b, s) => Ok(Expr::bool(b).with_span(s)),
            Value::Str(x, s) => Ok(Expr::new(ExprKind::Str(x), DataType::handle(), s)),
            other => Err(Diagnostic::error(
                format!("expected a scalar expression, found {}", other.describe()),
                other.span(),
            )),
        }
    }

    pub(super) fn float_or_expr(&mut self, v: Value) -> Result<Expr> {
        match v {
            Value::PyInt(x, s) => Ok(Expr::float(x as f64, DataType::f32()).with_span(s)),
            v => self.expr_of(v),
        }
    }

    /// A value in a context that expects `dtype` (literal typing).
    pub(super) fn expr_as(&mut self, v: Value, dtype: DataType) -> Result<Expr> {
        match v {
            Value::PyInt(x, s) if dtype.is_float() => Ok(Expr::float(x as f64, dtype).with_span(s)),
            Value::PyInt(x, s) if dtype.is_integer() || dtype.is_bool() => {
                Ok(Expr::int(x, dtype).with_span(s))
            }
            Value::PyFloat(x, s) if dtype.is_float() => Ok(Expr::float(x, dtype).with_span(s)),
            Value::PyBool(b, s) if dtype.is_bool() => Ok(Expr::bool(b).with_span(s)),
            Value::Expr(e)
                if e.dtype() != dtype
                    && e.dtype().is_integer()
                    && dtype.is_integer()
                    && e.as_int().is_some() =>
            {
                Ok(Expr::int(e.as_int().unwrap_or(0), dtype).with_span(e.span()))
            }
            v => self.expr_of(v),
        }
    }

    /// `T.float32(x)`: a typed constant for literals, a cast otherwise.
    pub(super) fn cast_value(&mut self, v: Value, dtype: DataType) -> Result<Expr> {
        match v {
            Value::PyInt(x, s) if dtype.is_float() => Ok(Expr::float(x as f64, dtype).with_span(s)),
            Value::PyInt(x, s) if dtype.is_integer() => Ok(Expr::int(x, dtype).with_span(s)),
            Value::PyInt(x, s) if dtype.is_bool() => Ok(Expr::bool(x != 0).with_span(s)),
            Value::PyFloat(x, s) if dtype.is_float() => Ok(Expr::float(x, dtype).with_span(s)),
            Value::PyFloat(x, s) if dtype.is_integer() => {
                Ok(Expr::int(x as i64, dtype).with_span(s))
            }
            Value::PyBool(b, s) => Ok(Expr::int(b as i64, dtype).with_span(s)),
            Value::Str(text, s) if dtype.is_float() => {
                // `T.float32("inf")` / `T.float32("-inf")`.
                let x: f64 = match text.as_str() {
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    "nan" => f64::NAN,
                    t => t.parse().map_err(|_| Diagnostic::error("not a float", s))?,
                };
                Ok(Expr::float(x, dtype).with_span(s))
            }
            v => {
                let e = self.expr_of(v)?;
                Ok(Expr::cast(dtype, e))
            }
        }
    }

    pub(super) fn bool_expr(&mut self, v: Value) -> Result<Expr> {
        match v {
            Value::PyBool(b, s) => Ok(Expr::bool(b).with_span(s)),
            v => self.expr_of(v),
        }
    }

    /// An index or extent: literals become int32.
    pub(super) fn index_expr(&mut self, v: Value) -> Result<Expr> {
        match v {
            Value::PyInt(x, s) => Ok(Expr::int(x, DataType::i32()).with_span(s)),
            v @ Value::Expr(_) => self.expr_of(v),
            other => Err(Diagnostic::error(
                format!("expected an integer expression, found {}", other.describe()),
                other.span(),
            )),
        }
    }

    pub(super) fn attr_value(&mut self, e: &ast::Expr) -> Result<AttrValue> {
        Ok(match &e.kind {
            ast::ExprKind::Dict(items) => {
                let mut map = BTreeMap::new();
                for (k, v) in items {
                    let Some(k) = k else {
                        return Err(Diagnostic::error(
                            "`**` is not allowed in attributes",
                            v.span,
                        ));
                    };
                    let ast::ExprKind::Str(key) = &k.kind else {
                        return Err(Diagnostic::error("attribute keys are strings", k.span));
                    };
                    map.insert(key.clone(), self.attr_value(v)?);
                }
                AttrValue::Map(map)
            }
            ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => AttrValue::Array(
                items
                    .iter()
                    .map(|i| self.attr_value(i))
                    .collect::<Result<_>>()?,
            ),
            ast::ExprKind::Bool(b) => AttrValue::Bool(*b),
            ast::ExprKind::Str(s) => AttrValue::Str(s.clone()),
            _ => match self.eval(e)? {
                Value::PyInt(x, _) => AttrValue::Int(x),
                Value::PyFloat(x, _) => AttrValue::Float(x),
                Value::Expr(x) => AttrValue::Expr(x),
                other => {
                    return Err(Diagnostic::error(
                        format!("unsupported attribute value: {}", other.describe()),
                        other.span(),
                    ))
                }
            },
        })
    }
}
