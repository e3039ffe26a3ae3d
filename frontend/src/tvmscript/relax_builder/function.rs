//! Building one `@R.function`: its parameters and signature, the body's
//! statements and dataflow blocks, and normalisation to A-normal form
//! (fresh `lv`/`gv` bindings).

use super::*;

impl<'a> GraphBuilder<'a> {
    fn check_params(&self, def: &ast::FunctionDef) -> Result<()> {
        if def.params.vararg.is_some() || def.params.kwarg.is_some() {
            return Err(Diagnostic::error(
                "an R.function takes plain parameters only",
                def.name_span,
            ));
        }
        for p in def.params.iter() {
            if p.default.is_some() {
                return Err(Diagnostic::error(
                    "parameters of an R.function cannot have defaults",
                    p.span,
                ));
            }
        }
        Ok(())
    }

    /// Reads the parameters (defining symbolic variables) and returns the
    /// declared return struct info, if any.
    pub(super) fn params(
        &mut self,
        def: &ast::FunctionDef,
    ) -> Result<(Vec<Var>, Option<StructInfo>)> {
        self.check_params(def)?;
        self.in_sig = true;
        let mut params = Vec::new();
        for p in def.params.iter() {
            let Some(ann) = &p.annotation else {
                return Err(Diagnostic::error(
                    format!("parameter `{}` needs a struct info annotation", p.name),
                    p.name_span,
                )
                .with_note("e.g. `x: R.Tensor((1, 784), \"float32\")`"));
            };
            let sinfo = self.sinfo_expr(ann)?;
            let v = Var::with(p.name.clone(), sinfo, false, p.name_span);
            if params.iter().any(|q: &Var| q.name() == p.name) {
                return Err(Diagnostic::error(
                    format!("duplicate parameter `{}`", p.name),
                    p.name_span,
                ));
            }
            params.push(v);
        }
        // The return annotation may only use variables the parameters define.
        let ret = match &def.returns {
            Some(r) => {
                let before: Vec<String> = self.syms.keys().cloned().collect();
                let s = self.sinfo_expr(r)?;
                if let Some(new) = self.syms.keys().find(|k| !before.contains(k)) {
                    return Err(Diagnostic::error(
                        format!(
                            "symbolic variable `{new}` in the return annotation is not defined by any parameter"
                        ),
                        r.span,
                    ));
                }
                Some(s)
            }
            None => None,
        };
        self.in_sig = false;
        Ok((params, ret))
    }

    pub(super) fn signature(&mut self, def: &ast::FunctionDef) -> Result<FuncInfo> {
        let (params, ret) = self.params(def)?;
        Ok(FuncInfo {
            params: Some(params.iter().map(|p| p.sinfo().clone()).collect()),
            ret: Box::new(ret.unwrap_or(StructInfo::Object)),
            pure: !decorator_flag_false(def, "pure"),
        })
    }

    pub(super) fn build(mut self, def: &ast::FunctionDef) -> Result<Function> {
        let private = def
            .decorators
            .iter()
            .any(|d| decorator_flag(d, "private", true));
        let pure = !decorator_flag_false(def, "pure");
        let (params, ret_ann) = self.params(def)?;
        for p in &params {
            self.define(p.name(), Bound::Var(p.clone()));
        }
        let mut attrs = BTreeMap::new();
        let mut result: Option<Expr> = None;
        let n = def.body.len();
        for (i, stmt) in def.body.iter().enumerate() {
            if let ast::StmtKind::Return(value) = &stmt.kind {
                if i + 1 != n {
                    return Err(Diagnostic::error(
                        "`return` must be the last statement of an R.function",
                        stmt.span,
                    ));
                }
                let Some(value) = value else {
                    return Err(Diagnostic::error(
                        "an R.function must return a value",
                        stmt.span,
                    ));
                };
                let v = self.eval(value)?;
                let e = self.bound_expr(v)?;
                result = Some(self.normalize_result(e)?);
                continue;
            }
            self.function_stmt(stmt, &mut attrs)?;
        }
        let Some(body) = result else {
            return Err(Diagnostic::error(
                format!("R.function `{}` has no `return`", def.name),
                def.name_span,
            ));
        };
        self.flush_block();
        let deduced = self.sinfo_of(&body, body.span())?;
        let ret = match ret_ann {
            Some(ann) => {
                check_compatible(&ann, &deduced).map_err(|m| {
                    Diagnostic::error(
                        format!("the returned value does not match the return annotation: {m}"),
                        def.returns
                            .as_ref()
                            .map(|r| r.span)
                            .unwrap_or(def.name_span),
                    )
                    .with_note(format!("the value is {}", deduced.describe()))
                })?;
                ann
            }
            None => deduced,
        };
        if !private {
            attrs
                .entry("global_symbol".to_string())
                .or_insert_with(|| AttrValue::Str(def.name.clone()));
        }
        Ok(Function {
            params,
            body: SeqExpr {
                blocks: std::mem::take(&mut self.blocks),
                body,
            },
            ret,
            attrs,
            pure,
            span: def.name_span,
        })
    }

    /// Ends the current block. Like TVM's parser, a block that directly
    /// follows one of the same kind is merged into it (two consecutive
    /// `with R.dataflow():` blocks make one dataflow block).
    fn flush_block(&mut self) {
        if self.current.is_empty() && !self.in_dataflow {
            return;
        }
        let bindings = std::mem::take(&mut self.current);
        match self.blocks.last_mut() {
            Some(last) if last.dataflow == self.in_dataflow => last.bindings.extend(bindings),
            _ => self.blocks.push(BindingBlock {
                bindings,
                dataflow: self.in_dataflow,
            }),
        }
    }

    /// A returned value: calls are bound first (`gv` names), tuples keep
    /// their shape.
    fn normalize_result(&mut self, e: Expr) -> Result<Expr> {
        match e.kind() {
            ExprKind::Call(_) => {
                let span = e.span();
                let v = self.emit(e, None, None, span)?;
                Ok(v.to_expr().with_span(span))
            }
            _ => self.normalize_leaf(e),
        }
    }

    /// Makes `e` a leaf: nested calls are bound to fresh variables.
    fn normalize_leaf(&mut self, e: Expr) -> Result<Expr> {
        match e.kind() {
            ExprKind::Call(_) => {
                let span = e.span();
                let v = self.emit(e, None, None, span)?;
                Ok(v.to_expr().with_span(span))
            }
            ExprKind::Tuple(fields) => {
                if fields.iter().all(Expr::is_leaf) {
                    return Ok(e);
                }
                let mut out = Vec::with_capacity(fields.len());
                for f in fields {
                    out.push(self.normalize_leaf(f.clone())?);
                }
                Ok(Expr::new(ExprKind::Tuple(out), e.span()))
            }
            ExprKind::TupleGetItem(t, i) => {
                if t.is_leaf() {
                    return Ok(e);
                }
                let t = self.normalize_leaf(t.clone())?;
                Ok(Expr::new(ExprKind::TupleGetItem(t, *i), e.span()))
            }
            _ => Ok(e),
        }
    }

    /// Binds `value` to a new variable: its call arguments are normalised
    /// first, its struct info inferred (and checked against `ann`).
    fn emit(
        &mut self,
        value: Expr,
        name: Option<(&str, Span)>,
        ann: Option<(StructInfo, Span)>,
        span: Span,
    ) -> Result<Var> {
        let value = match value.kind() {
            ExprKind::Call(c) => {
                let mut args = Vec::with_capacity(c.args.len());
                for a in &c.args {
                    args.push(self.normalize_leaf(a.clone())?);
                }
                Expr::new(
                    ExprKind::Call(Call {
                        callee: c.callee.clone(),
                        args,
                        sinfo_args: c.sinfo_args.clone(),
                    }),
                    value.span(),
                )
            }
            _ => self.normalize_leaf(value)?,
        };
        let deduced = self.sinfo_of(&value, span)?;
        let sinfo = match ann {
            Some((a, aspan)) => {
                check_compatible(&a, &deduced).map_err(|m| {
                    Diagnostic::error(
                        format!("the value does not match the annotation: {m}"),
                        aspan,
                    )
                    .with_label(value.span(), format!("this is {}", deduced.describe()))
                })?;
                a
            }
            None => deduced,
        };
        let (prefix, count) = if self.in_dataflow {
            ("lv", &mut self.lv_count)
        } else {
            ("gv", &mut self.gv_count)
        };
        let auto = if *count == 0 {
            prefix.to_string()
        } else {
            format!("{prefix}{count}")
        };
        *count += 1;
        let (vname, vspan) = match name {
            Some((n, s)) => (n.to_string(), s),
            None => (auto, span),
        };
        let dataflow = self.in_dataflow
            && !(name.is_some() && self.outputs.get(&vname) == Some(&self.stmt_index));
        let var = Var::with(vname, sinfo, dataflow, vspan);
        self.current.push(Binding {
            var: var.clone(),
            value,
            span,
        });
        Ok(var)
    }

    pub(super) fn sinfo_of(&self, e: &Expr, span: Span) -> Result<StructInfo> {
        expr_sinfo(e, self.globals).map_err(|m| Diagnostic::error(m, span))
    }

    /// A statement of the function body (not `return`).
    fn function_stmt(
        &mut self,
        stmt: &ast::Stmt,
        attrs: &mut BTreeMap<String, AttrValue>,
    ) -> Result<()> {
        match &stmt.kind {
            ast::StmtKind::With { items, body } => {
                let [item] = items.as_slice() else {
                    return Err(Diagnostic::error(
                        "expected `with R.dataflow():`",
                        stmt.span,
                    ));
                };
                if !self.is_relax_call(&item.context, "dataflow") || item.vars.is_some() {
                    return Err(Diagnostic::error(
                        "only `with R.dataflow():` blocks are allowed in an R.function",
                        item.context.span,
                    ));
                }
                if self.in_dataflow {
                    return Err(Diagnostic::error(
                        "dataflow blocks cannot be nested",
                        stmt.span,
                    ));
                }
                self.dataflow_block(body, stmt.span)
            }
            ast::StmtKind::Expr(e) => {
                if matches!(e.kind, ast::ExprKind::Str(_)) {
                    return Ok(());
                }
                if let ast::ExprKind::Call { func, args } = &e.kind {
                    if self.relax_path(func).as_deref() == Some("func_attr") {
                        let [ast::Arg::Positional(d)] = args.as_slice() else {
                            return Err(Diagnostic::error("`R.func_attr` takes one dict", e.span));
                        };
                        let AttrValue::Map(m) = attr_value(d)? else {
                            return Err(Diagnostic::error("`R.func_attr` takes a dict", d.span));
                        };
                        attrs.extend(m);
                        return Ok(());
                    }
                    if self.is_output(func) {
                        return Err(Diagnostic::error(
                            "`R.output` is only allowed at the end of a dataflow block",
                            e.span,
                        ));
                    }
                }
                Err(Diagnostic::error(
                    "an expression statement has no effect in an R.function; bind its value to a name",
                    e.span,
                ))
            }
            ast::StmtKind::Pass => Ok(()),
            _ => self.binding_stmt(stmt),
        }
    }

    fn is_output(&self, func: &ast::Expr) -> bool {
        match dotted(func).as_deref() {
            Some([r, "output"]) => self.aliases.is_relax(r) || self.aliases.is_relax_py(r),
            _ => false,
        }
    }

    fn dataflow_block(&mut self, body: &[ast::Stmt], span: Span) -> Result<()> {
        // The outputs come from the final `R.output(...)`.
        let mut outputs: Vec<(String, Span)> = Vec::new();
        let mut stmts: Vec<&ast::Stmt> = Vec::new();
        for (i, s) in body.iter().enumerate() {
            if let ast::StmtKind::Expr(e) = &s.kind {
                if let ast::ExprKind::Call { func, args } = &e.kind {
                    if self.is_output(func) {
                        if i + 1 != body.len() {
                            return Err(Diagnostic::error(
                                "`R.output(...)` must be the last statement of a dataflow block",
                                s.span,
                            ));
                        }
                        for a in args {
                            match a {
                                ast::Arg::Positional(x) => match x.as_name() {
                                    Some(n) => outputs.push((n.to_string(), x.span)),
                                    None => {
                                        return Err(Diagnostic::error(
                                            "`R.output` takes the names of variables bound in the block",
                                            x.span,
                                        ))
                                    }
                                },
                                other => {
                                    return Err(Diagnostic::error(
                                        "`R.output` takes the names of variables bound in the block",
                                        other.span(),
                                    ))
                                }
                            }
                        }
                        continue;
                    }
                }
            }
            stmts.push(s);
        }
        // Which statement binds each output last.
        let mut last: HashMap<String, usize> = HashMap::new();
        for (i, s) in stmts.iter().enumerate() {
            let target = match &s.kind {
                ast::StmtKind::Assign { targets, .. } if targets.len() == 1 => &targets[0],
                ast::StmtKind::AnnAssign { target, .. } => target,
                _ => continue,
            };
            if let Some(n) = target.as_name() {
                last.insert(n.to_string(), i);
            }
        }
        let mut out_map = HashMap::new();
        for (n, s) in &outputs {
            match last.get(n) {
                Some(i) => {
                    out_map.insert(n.clone(), *i);
                }
                None => {
                    return Err(Diagnostic::error(
                        format!("`{n}` is not bound in this dataflow block"),
                        *s,
                    ))
                }
            }
        }
        self.flush_block();
        self.in_dataflow = true;
        self.outputs = out_map;
        self.scopes.push(HashMap::new());
        let mut result = Ok(());
        for (i, s) in stmts.iter().enumerate() {
            self.stmt_index = i;
            if let Err(e) = self.function_stmt(s, &mut BTreeMap::new()) {
                result = Err(e);
                break;
            }
        }
        let scope = self.scopes.pop().unwrap_or_default();
        self.flush_block();
        self.in_dataflow = false;
        self.outputs.clear();
        result?;
        if self.blocks.last().is_some_and(|b| b.bindings.is_empty()) {
            return Err(Diagnostic::error(
                "a dataflow block must bind something",
                span,
            ));
        }
        // Outputs (and symbolic names) stay visible; dataflow variables do not.
        for (name, b) in scope {
            match &b {
                Bound::Var(v) if v.is_dataflow() => {}
                _ => self.define(&name, b),
            }
        }
        Ok(())
    }

    fn binding_stmt(&mut self, stmt: &ast::Stmt) -> Result<()> {
        let (target, ann, value) = match &stmt.kind {
            ast::StmtKind::Assign { targets, value } => {
                let [t] = targets.as_slice() else {
                    return Err(Diagnostic::error(
                        "chained assignment is not supported in an R.function",
                        stmt.span,
                    ));
                };
                (t, None, value)
            }
            ast::StmtKind::AnnAssign {
                target,
                annotation,
                value: Some(value),
            } => (target, Some(annotation), value),
            _ => {
                return Err(Diagnostic::error(
                    "unsupported statement in an R.function",
                    stmt.span,
                )
                .with_note("an R.function holds bindings `x = ...`, `with R.dataflow():` blocks and a final `return`"))
            }
        };
        // `m, n = T.int64(), T.int64()` and `n = T.int64()`.
        let pairs: Vec<(&ast::Expr, &ast::Expr)> = match (&target.kind, &value.kind) {
            (ast::ExprKind::Tuple(ts), ast::ExprKind::Tuple(vs)) if ts.len() == vs.len() => {
                ts.iter().zip(vs.iter()).collect()
            }
            _ => vec![(target, value)],
        };
        if ann.is_none() && pairs.iter().all(|(_, v)| self.is_sym_decl(v)) {
            for (t, v) in pairs {
                let Some(name) = t.as_name() else {
                    return Err(Diagnostic::error("expected a name", t.span));
                };
                let dtype = self.sym_decl_dtype(v)?;
                let var = match self.syms.get(name) {
                    Some(existing) if existing.dtype() == dtype => existing.clone(),
                    _ => {
                        let var = SymVar::new(name, dtype);
                        self.syms.insert(name.to_string(), var.clone());
                        var
                    }
                };
                self.define(name, Bound::Sym(var));
            }
            return Ok(());
        }
        let Some(name) = target.as_name() else {
            return Err(Diagnostic::error(
                "bind a value to a single name (tuple unpacking is not supported)",
                target.span,
            ));
        };
        // `cls = Module`: an alias of the module.
        if ann.is_none() {
            if let Some(rhs) = value.as_name() {
                let is_module = Some(rhs) == self.class_name || rhs == "Module";
                if is_module && self.lookup(rhs).is_none() {
                    if self.class_name.is_none() {
                        return Err(Diagnostic::error(
                            "a function outside a module cannot refer to a module",
                            value.span,
                        ));
                    }
                    self.define(name, Bound::Module);
                    return Ok(());
                }
            }
        }
        let ann = match ann {
            Some(a) => Some((self.sinfo_expr(a)?, a.span)),
            None => None,
        };
        let v = self.eval(value)?;
        let e = self.bound_expr(v)?;
        let var = self.emit(e, Some((name, target.span)), ann, stmt.span)?;
        self.define(name, Bound::Var(var));
        Ok(())
    }
}
