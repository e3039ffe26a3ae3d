//! Functions: a `@T.prim_func`'s parameters, body and implicit root
//! block, and its function-level declarations (`T.func_attr`, size
//! variables, `T.match_buffer`).

use super::*;

impl<'a> FuncBuilder<'a> {
    // ----- functions --------------------------------------------------------

    pub(super) fn build(mut self, def: &ast::FunctionDef) -> Result<PrimFunc> {
        self.private = def.decorators.iter().any(is_private_decorator);
        // `@T.prim_func(s_tir=True)` only exists in TVM 0.27's dialect.
        if def.decorators.iter().any(|d| decorator_flag(d, "s_tir")) {
            self.dialect.tirx = true;
            self.dialect.sblock = true;
        }
        let mut params = Vec::new();
        let mut buffer_map = Vec::new();
        if def.params.vararg.is_some() || def.params.kwarg.is_some() {
            return Err(Diagnostic::error(
                "a prim_func takes plain parameters only",
                def.name_span,
            ));
        }
        for p in def.params.iter() {
            let Some(ann) = &p.annotation else {
                return Err(Diagnostic::error(
                    format!("parameter `{}` needs a type annotation", p.name),
                    p.name_span,
                )
                .with_note(
                    "e.g. `A: T.Buffer((128,), \"float32\")`, `a: T.handle` or `n: T.int32`",
                ));
            };
            match self.param_annotation(ann)? {
                ParamKind::Buffer(spec) => {
                    let handle = Var::new(p.name.clone(), DataType::handle());
                    let buffer = self.make_buffer(&p.name, spec, ann.span)?;
                    params.push(handle.clone());
                    buffer_map.push((handle, buffer.clone()));
                    self.define(&p.name, Binding::Buffer(buffer));
                }
                ParamKind::Scalar(dtype) => {
                    let v = Var::new(p.name.clone(), dtype);
                    params.push(v.clone());
                    self.define(&p.name, Binding::Var(v));
                }
            }
        }

        // The function's own frame collects root-block allocations.
        self.frames.push(BlockFrame::default());
        let mut attrs = BTreeMap::new();
        let mut body_stmts: Vec<&ast::Stmt> = Vec::new();
        for stmt in &def.body {
            // Function-level declarations.
            if let Some(handled) =
                self.function_decl(stmt, &mut params, &mut buffer_map, &mut attrs)?
            {
                if handled {
                    continue;
                }
            }
            body_stmts.push(stmt);
        }
        let body = self.build_stmt_list(&body_stmts)?;
        let root = self.frames.pop().unwrap_or_default();

        let body = if self.uses_blocks || !root.alloc_buffers.is_empty() {
            self.wrap_root(body, root)
        } else {
            body
        };
        // Like TVM's parser: a public function carries its own name as its
        // `global_symbol` (which is why printers omit it when it matches).
        if !self.private && !attrs.contains_key("global_symbol") {
            attrs.insert(
                "global_symbol".to_string(),
                AttrValue::Str(def.name.clone()),
            );
        }
        Ok(PrimFunc {
            params,
            buffer_map,
            body,
            attrs,
            span: def.name_span,
        })
    }

    /// Wraps a function body in the implicit root block, unless the body is
    /// already a single block without iterators (an explicit root, whose
    /// reads and writes stay as written: none unless given, as in TVM).
    pub(super) fn wrap_root(&mut self, body: Stmt, root: BlockFrame) -> Stmt {
        if root.alloc_buffers.is_empty() {
            if let StmtKind::BlockRealize(r) = body.kind() {
                if r.block.iter_vars.is_empty() {
                    let Some(&(reads_inferred, writes_inferred)) = self.top_block_inferred.last()
                    else {
                        return body;
                    };
                    let mut r = r.clone();
                    if reads_inferred {
                        r.block.reads.clear();
                    }
                    if writes_inferred {
                        r.block.writes.clear();
                    }
                    return Stmt::new(StmtKind::BlockRealize(r), body.span());
                }
            }
        }
        let block = Block {
            name: "root".into(),
            iter_vars: vec![],
            reads: vec![],
            writes: vec![],
            alloc_buffers: root.alloc_buffers,
            match_buffers: vec![],
            annotations: root.annotations,
            init: None,
            body,
            span: Span::default(),
        };
        Stmt::new(
            StmtKind::BlockRealize(BlockRealize {
                iter_values: vec![],
                predicate: Expr::bool(true),
                block,
            }),
            Span::default(),
        )
    }

    /// Handles `T.func_attr`, `x = T.int64()`, `X = T.match_buffer(x, …)` at
    /// function level. Returns `Some(true)` when the statement was consumed.
    pub(super) fn function_decl(
        &mut self,
        stmt: &ast::Stmt,
        params: &mut [Var],
        buffer_map: &mut Vec<(Var, Buffer)>,
        attrs: &mut BTreeMap<String, AttrValue>,
    ) -> Result<Option<bool>> {
        match &stmt.kind {
            ast::StmtKind::Expr(e) => {
                if let Some((path, args)) = self.tir_call(e) {
                    if path == "func_attr" {
                        let [arg] = args else {
                            return Err(Diagnostic::error("`T.func_attr` takes one dict", e.span));
                        };
                        let AttrValue::Map(map) = self.attr_value(positional(arg)?)? else {
                            return Err(Diagnostic::error(
                                "`T.func_attr` takes a dict",
                                arg.span(),
                            ));
                        };
                        // TVM 0.27's `tirx.noalias` is the course's `tir.noalias`
                        // (what `te.create_prim_func` sets); printing spells it
                        // per dialect.
                        attrs.extend(map.into_iter().map(|(k, v)| match k.as_str() {
                            "tirx.noalias" => ("tir.noalias".to_string(), v),
                            _ => (k, v),
                        }));
                        return Ok(Some(true));
                    }
                }
                if matches!(e.kind, ast::ExprKind::Str(_)) {
                    return Ok(Some(true));
                }
                Ok(None)
            }
            ast::StmtKind::Assign { targets, value } if targets.len() == 1 => {
                let target = &targets[0];
                // `m, n = T.int64(), T.int64()` and `n = T.int64()`.
                let pairs: Vec<(&ast::Expr, &ast::Expr)> = match (&target.kind, &value.kind) {
                    (ast::ExprKind::Tuple(ts), ast::ExprKind::Tuple(vs))
                        if ts.len() == vs.len() =>
                    {
                        ts.iter().zip(vs.iter()).collect()
                    }
                    _ => vec![(target, value)],
                };
                if pairs.iter().all(|(_, v)| self.is_size_var_decl(v)) {
                    for (t, v) in pairs {
                        let Some(name) = t.as_name() else {
                            return Err(Diagnostic::error("expected a name", t.span));
                        };
                        let dtype = self.size_var_dtype(v)?;
                        self.define(name, Binding::Var(Var::new(name, dtype)));
                    }
                    return Ok(Some(true));
                }
                if let Some((path, args)) = self.tir_call(value) {
                    if path == "match_buffer" {
                        let Some(name) = target.as_name() else {
                            return Err(Diagnostic::error("expected a name", target.span));
                        };
                        let Some(first) = args.first() else {
                            return Err(Diagnostic::error(
                                "`T.match_buffer` needs a handle",
                                value.span,
                            ));
                        };
                        let handle_expr = positional(first)?;
                        let handle = match handle_expr.as_name().and_then(|n| self.lookup(n)) {
                            Some(Binding::Var(v)) if v.dtype().is_handle() => v.clone(),
                            _ => {
                                // `T.match_buffer(B[vi, 0:16], …)` inside blocks is handled there.
                                return Err(Diagnostic::error(
                                    "`T.match_buffer` at function level takes a `T.handle` parameter",
                                    handle_expr.span,
                                ));
                            }
                        };
                        if !params.contains(&handle) {
                            return Err(Diagnostic::error(
                                "not a parameter of this function",
                                handle_expr.span,
                            ));
                        }
                        if buffer_map.iter().any(|(v, _)| *v == handle) {
                            return Err(Diagnostic::error(
                                "this handle is already matched to a buffer",
                                handle_expr.span,
                            ));
                        }
                        let spec = self.buffer_spec(&args[1..], value.span)?;
                        let buffer = self.make_buffer(name, spec, value.span)?;
                        buffer_map.push((handle, buffer.clone()));
                        self.define(name, Binding::Buffer(buffer));
                        return Ok(Some(true));
                    }
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    pub(super) fn is_size_var_decl(&self, e: &ast::Expr) -> bool {
        match self.tir_call(e) {
            Some((path, args)) => {
                args.is_empty() && DataType::parse(&path).is_some_and(|d| d.is_integer())
            }
            None => false,
        }
    }

    pub(super) fn size_var_dtype(&self, e: &ast::Expr) -> Result<DataType> {
        match self.tir_call(e) {
            Some((path, _)) => {
                DataType::parse(&path).ok_or_else(|| Diagnostic::error("unknown dtype", e.span))
            }
            None => Err(Diagnostic::error("expected `T.int64()`", e.span)),
        }
    }
}
