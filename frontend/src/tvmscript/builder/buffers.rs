//! Buffers: parameter annotations (`T.Buffer(...)`), buffer specifications
//! (shape, dtype, strides, offset, scope), and the symbolic variables and
//! constant arguments they use.

use super::*;

impl<'a> FuncBuilder<'a> {
    // ----- buffers ------------------------------------------------------------

    pub(super) fn param_annotation(&mut self, ann: &ast::Expr) -> Result<ParamKind> {
        // `T.Buffer((..), "dt")`, `T.Buffer[(..), "dt"]`, `T.handle`, `T.int32`.
        match &ann.kind {
            ast::ExprKind::Call { func, args } if self.is_tir_attr(func, "Buffer") => {
                Ok(ParamKind::Buffer(self.buffer_spec(args, ann.span)?))
            }
            ast::ExprKind::Subscript { value, index } if self.is_tir_attr(value, "Buffer") => {
                let parts: Vec<ast::Arg> = match &index.kind {
                    // `T.Buffer[(128, 128), "float32"]`: a tuple of shape and dtype.
                    ast::ExprKind::Tuple(items) => {
                        items.iter().cloned().map(ast::Arg::Positional).collect()
                    }
                    _ => vec![ast::Arg::Positional((**index).clone())],
                };
                Ok(ParamKind::Buffer(self.buffer_spec(&parts, ann.span)?))
            }
            _ => {
                let path = dotted(ann).unwrap_or_default();
                match path.as_slice() {
                    [t, name] if self.ns.is_tir(t) => {
                        if *name == "handle" {
                            return Ok(ParamKind::Scalar(DataType::handle()));
                        }
                        if let Some(dt) = DataType::parse(name) {
                            return Ok(ParamKind::Scalar(dt));
                        }
                        Err(Diagnostic::error(format!("unknown parameter type `T.{name}`"), ann.span))
                    }
                    _ => Err(Diagnostic::error("unsupported parameter annotation", ann.span)
                        .with_note("use `T.Buffer(shape, dtype)`, `T.handle` or a scalar type like `T.int32`")),
                }
            }
        }
    }

    /// Reads the arguments of `T.Buffer`, `T.match_buffer` (after the handle)
    /// and `T.alloc_buffer`: shape, dtype and keyword options.
    pub(super) fn buffer_spec(&mut self, args: &[ast::Arg], span: Span) -> Result<BufferSpec> {
        let mut spec = BufferSpec {
            shape: vec![],
            dtype: DataType::f32(),
            scope: None,
            strides: vec![],
            elem_offset: None,
            align: None,
            offset_factor: None,
        };
        let mut positional_index = 0;
        let mut have_shape = false;
        for arg in args {
            let (key, value) = match arg {
                ast::Arg::Positional(e) => {
                    let key = match positional_index {
                        0 => "shape",
                        1 => "dtype",
                        2 => "data",
                        3 => "strides",
                        4 => "elem_offset",
                        5 => "scope",
                        6 => "align",
                        7 => "offset_factor",
                        _ => return Err(Diagnostic::error("too many arguments", e.span)),
                    };
                    positional_index += 1;
                    (key, e)
                }
                ast::Arg::Keyword(k) => (k.name.as_str(), &k.value),
                other => return Err(Diagnostic::error("unsupported argument form", other.span())),
            };
            match key {
                "shape" => {
                    have_shape = true;
                    spec.shape = match self.eval(value)? {
                        Value::Tuple(items, _) => items
                            .into_iter()
                            .map(|v| self.index_expr(v))
                            .collect::<Result<_>>()?,
                        v => vec![self.index_expr(v)?],
                    };
                }
                "dtype" => spec.dtype = self.dtype_arg(value)?,
                "scope" => match self.eval(value)? {
                    // An empty scope is the default one, as in TVM.
                    Value::Str(s, _) if s.is_empty() => spec.scope = Some("global".into()),
                    Value::Str(s, _) => spec.scope = Some(s),
                    v => return Err(Diagnostic::error("`scope` must be a string", v.span())),
                },
                "strides" => {
                    spec.strides = match self.eval(value)? {
                        // `strides=("sa", -1)`: a string names a symbolic stride variable.
                        Value::Tuple(items, _) => items
                            .into_iter()
                            .map(|v| match v {
                                Value::Str(name, _) => Ok(self.symbolic_var(&name)),
                                v => self.index_expr(v),
                            })
                            .collect::<Result<_>>()?,
                        Value::None(_) => vec![],
                        v => vec![self.index_expr(v)?],
                    }
                }
                "elem_offset" => match self.eval(value)? {
                    Value::None(_) => {}
                    v => spec.elem_offset = Some(self.index_expr(v)?),
                },
                "align" => spec.align = Some(self.const_int_arg(value)?),
                "offset_factor" => spec.offset_factor = Some(self.const_int_arg(value)?),
                "data" | "buffer_type" | "axis_separators" => {}
                other => {
                    let span = match arg {
                        ast::Arg::Keyword(k) => k.name_span,
                        _ => value.span,
                    };
                    return Err(Diagnostic::error(
                        format!("unknown buffer option `{other}`"),
                        span,
                    ));
                }
            }
        }
        if !have_shape {
            return Err(Diagnostic::error("a buffer needs a shape", span));
        }
        Ok(spec)
    }

    pub(super) fn make_buffer(
        &mut self,
        name: &str,
        spec: BufferSpec,
        span: Span,
    ) -> Result<Buffer> {
        let index_dtype = spec
            .shape
            .first()
            .map(|e| e.dtype())
            // TVM's default index type of a zero-dimensional buffer.
            .unwrap_or(DataType::i64());
        let node = BufferNode {
            id: BufferId(0),
            name: name.to_string(),
            data: Var::new(name, DataType::handle()),
            dtype: spec.dtype,
            shape: spec.shape,
            strides: spec.strides,
            // With an `offset_factor`, the element offset is a variable the
            // caller supplies (TVM names it `<buffer>_elem_offset`).
            elem_offset: match (spec.elem_offset, spec.offset_factor) {
                (Some(e), _) => e,
                (None, Some(f)) if f != 0 => {
                    Var::new(format!("{name}_elem_offset"), index_dtype).to_expr()
                }
                (None, _) => Expr::int(0, index_dtype),
            },
            scope: spec.scope.unwrap_or_else(|| "global".into()),
            align: spec.align.unwrap_or(64),
            offset_factor: spec.offset_factor.unwrap_or(1),
            span,
        };
        Ok(Buffer::from_node(node))
    }

    /// The size or stride variable `name`, created (int32) on first mention.
    pub(super) fn symbolic_var(&mut self, name: &str) -> Expr {
        if let Some(Binding::Var(v)) = self.lookup(name) {
            return v.to_expr();
        }
        let v = Var::new(name, DataType::i32());
        if let Some(scope) = self.scopes.first_mut() {
            scope.insert(name.to_string(), Binding::Var(v.clone()));
        }
        v.to_expr()
    }

    pub(super) fn dtype_arg(&mut self, e: &ast::Expr) -> Result<DataType> {
        match self.eval(e)? {
            Value::Str(s, span) => DataType::parse(&s)
                .ok_or_else(|| Diagnostic::error(format!("unknown dtype `{s}`"), span)),
            Value::DType(dt, _) => Ok(dt),
            v => Err(Diagnostic::error(
                format!("expected a dtype string, found {}", v.describe()),
                v.span(),
            )),
        }
    }

    pub(super) fn const_int_arg(&mut self, e: &ast::Expr) -> Result<i64> {
        match self.eval(e)? {
            Value::PyInt(v, _) => Ok(v),
            Value::Expr(x) if x.as_int().is_some() => Ok(x.as_int().unwrap_or(0)),
            v => Err(Diagnostic::error(
                format!("expected an integer constant, found {}", v.describe()),
                v.span(),
            )),
        }
    }
}
