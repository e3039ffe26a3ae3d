//! Running statements: modules and blocks, loops, imports, `assert`,
//! `raise`, `with`, `try` and exception matching.

use super::*;

impl Interp {
    /// Executes a cell's statements in the module frame. With `display_last`,
    /// a final expression statement's value is displayed like IPython does.
    pub(crate) fn exec_module(
        &mut self,
        module: &ast::Module,
        source: Rc<Source>,
        display_last: bool,
    ) -> Res<()> {
        self.frame = Frame {
            env: None,
            class_ns: None,
            source: source.clone(),
            func: None,
        };
        self.depth = 0;
        self.handling.clear();
        let n = module.body.len();
        for (i, stmt) in module.body.iter().enumerate() {
            let r = match (&stmt.kind, display_last && i + 1 == n) {
                (StmtKind::Expr(e), true) => self
                    .tick()
                    .and_then(|_| self.eval(e))
                    .and_then(|v| self.display_value(&v))
                    .map_err(Ctrl::Err),
                _ => self.exec_stmt(stmt),
            };
            match r {
                Ok(()) => {}
                Err(Ctrl::Err(mut e)) => {
                    let span = e.pending.take().unwrap_or(stmt.span);
                    e.tb.push(TbEntry {
                        source: source.clone(),
                        span,
                        func: "<module>".into(),
                    });
                    return Err(e);
                }
                Err(Ctrl::Return(_)) => {
                    return Err(
                        PyErr::new(ExcKind::SyntaxError, "'return' outside function").at(stmt.span),
                    )
                }
                Err(Ctrl::Break) | Err(Ctrl::Continue) => {
                    return Err(PyErr::new(
                        ExcKind::SyntaxError,
                        "'break' or 'continue' outside loop",
                    )
                    .at(stmt.span))
                }
            }
        }
        Ok(())
    }

    pub(crate) fn exec_block(&mut self, body: &[Stmt]) -> Flow {
        for s in body {
            self.exec_stmt(s)?;
        }
        Ok(())
    }

    pub(crate) fn exec_stmt(&mut self, s: &Stmt) -> Flow {
        self.check_stack().map_err(|e| Ctrl::Err(e.at(s.span)))?;
        self.tick().map_err(|e| Ctrl::Err(e.at(s.span)))?;
        match self.exec_stmt_inner(s) {
            Ok(()) => Ok(()),
            Err(Ctrl::Err(e)) => Err(Ctrl::Err(e.at(s.span))),
            Err(c) => Err(c),
        }
    }

    fn exec_stmt_inner(&mut self, s: &Stmt) -> Flow {
        match &s.kind {
            StmtKind::Expr(e) => {
                self.eval(e)?;
                Ok(())
            }
            StmtKind::Assign { targets, value } => {
                let v = self.eval(value)?;
                if let [t] = targets.as_slice() {
                    self.assign(t, v)?;
                } else {
                    for t in targets {
                        self.assign(t, v.clone())?;
                    }
                }
                Ok(())
            }
            StmtKind::AugAssign { target, op, value } => self.aug_assign(target, *op, value),
            StmtKind::AnnAssign { target, value, .. } => {
                if let Some(v) = value {
                    let v = self.eval(v)?;
                    self.assign(target, v)?;
                }
                Ok(())
            }
            StmtKind::FunctionDef(def) => self.exec_def(s, def),
            StmtKind::ClassDef(class) => self.exec_class(s, class),
            StmtKind::Return(v) => {
                let v = match v {
                    Some(e) => self.eval(e)?,
                    None => Value::None,
                };
                Err(Ctrl::Return(v))
            }
            StmtKind::If { test, body, orelse } => {
                let t = self.eval(test)?;
                if self.truthy(&t).map_err(|e| e.at(test.span))? {
                    self.exec_block(body)
                } else {
                    self.exec_block(orelse)
                }
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => self.exec_for(target, iter, body, orelse),
            StmtKind::While { test, body, orelse } => self.exec_while(test, body, orelse),
            StmtKind::Break => Err(Ctrl::Break),
            StmtKind::Continue => Err(Ctrl::Continue),
            StmtKind::Pass | StmtKind::Global(_) | StmtKind::Nonlocal(_) => Ok(()),
            StmtKind::Magic(_) => Ok(()),
            StmtKind::With { items, body } => self.exec_with(items, body),
            StmtKind::Import(aliases) => self.exec_import(aliases),
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } => self.exec_import_from(module, names, *level),
            StmtKind::Assert { test, msg } => self.exec_assert(test, msg),
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => self.exec_try(body, handlers, orelse, finalbody),
            StmtKind::Raise { exc, .. } => self.exec_raise(exc),
            StmtKind::Delete(targets) => {
                for t in targets {
                    self.delete(t)?;
                }
                Ok(())
            }
        }
    }

    #[inline(never)]
    fn exec_while(&mut self, test: &Expr, body: &[Stmt], orelse: &[Stmt]) -> Flow {
        loop {
            let t = self.eval(test)?;
            if !self.truthy(&t).map_err(|e| e.at(test.span))? {
                break;
            }
            self.tick()?;
            match self.exec_block(body) {
                Ok(()) | Err(Ctrl::Continue) => {}
                Err(Ctrl::Break) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        self.exec_block(orelse)
    }

    #[inline(never)]
    fn exec_import(&mut self, aliases: &[ast::Alias]) -> Flow {
        for a in aliases {
            let module = self.import_module(&a.name.name).map_err(|e| e.at(a.span))?;
            match &a.asname {
                Some(n) => self.store_name(&n.name, module)?,
                None => {
                    let top = a.name.name.split('.').next().unwrap_or("");
                    let top_mod = self.import_module(top).map_err(|e| e.at(a.span))?;
                    self.store_name(top, top_mod)?;
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn exec_import_from(
        &mut self,
        module: &Option<ast::Ident>,
        names: &[ast::Alias],
        level: u32,
    ) -> Flow {
        if level > 0 {
            return Err(PyErr::new(
                ExcKind::ImportError,
                "relative imports are not supported in a script",
            )
            .into());
        }
        let Some(m) = module else {
            return Err(PyErr::new(ExcKind::ImportError, "missing module name").into());
        };
        let module = self.import_module(&m.name).map_err(|e| e.at(m.span))?;
        for a in names {
            if a.name.name == "*" {
                if let Value::Module(mo) = &module {
                    let attrs: Vec<(String, Value)> = mo
                        .attrs
                        .borrow()
                        .iter()
                        .filter(|(k, _)| !k.starts_with('_'))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    for (k, v) in attrs {
                        self.store_name(&k, v)?;
                    }
                }
                continue;
            }
            let v = match self.get_attr(&module, &a.name.name) {
                Ok(v) => v,
                Err(_) => {
                    // `from a import b` where b is a submodule.
                    let full = format!("{}.{}", m.name, a.name.name);
                    self.import_module(&full).map_err(|_| {
                        PyErr::new(
                            ExcKind::ImportError,
                            format!("cannot import name '{}' from '{}'", a.name.name, m.name),
                        )
                        .at(a.span)
                    })?
                }
            };
            let local = a.asname.as_ref().unwrap_or(&a.name);
            self.store_name(&local.name, v)?;
        }
        Ok(())
    }

    #[inline(never)]
    fn exec_assert(&mut self, test: &Expr, msg: &Option<Expr>) -> Flow {
        let t = self.eval(test)?;
        if !self.truthy(&t)? {
            let args = match msg {
                Some(m) => vec![self.eval(m)?],
                None => vec![],
            };
            return Err(PyErr::with_args(ExcKind::AssertionError, args)
                .at(test.span)
                .into());
        }
        Ok(())
    }

    #[inline(never)]
    fn exec_raise(&mut self, exc: &Option<Expr>) -> Flow {
        let Some(exc) = exc else {
            return match self.handling.last() {
                Some((v, tb, pending)) => {
                    let mut e = PyErr::from_value(v.clone());
                    e.tb = tb.clone();
                    e.pending = *pending;
                    Err(e.into())
                }
                None => {
                    Err(PyErr::new(ExcKind::RuntimeError, "No active exception to reraise").into())
                }
            };
        };
        let v = self.eval(exc)?;
        let exc_value = self.make_exception(v)?;
        Err(PyErr::from_value(exc_value).into())
    }

    #[inline(never)]
    fn exec_for(&mut self, target: &Expr, iter: &Expr, body: &[Stmt], orelse: &[Stmt]) -> Flow {
        let it = self.eval(iter)?;
        let mut state = self.make_iter(&it).map_err(|e| e.at(iter.span))?;
        loop {
            let Some(item) = self.iter_next(&mut state).map_err(|e| e.at(iter.span))? else {
                break;
            };
            self.tick()?;
            self.assign(target, item)?;
            match self.exec_block(body) {
                Ok(()) | Err(Ctrl::Continue) => {}
                Err(Ctrl::Break) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        self.exec_block(orelse)
    }

    #[inline(never)]
    fn exec_with(&mut self, items: &[ast::WithItem], body: &[Stmt]) -> Flow {
        let Some((first, rest)) = items.split_first() else {
            return self.exec_block(body);
        };
        let ctx = self.eval(&first.context)?;
        let entered = match &ctx {
            Value::Instance(_) => {
                let enter = self
                    .get_attr(&ctx, "__enter__")
                    .map_err(|e| e.at(first.span))?;
                self.call(&enter, Args::default())?
            }
            _ => ctx.clone(),
        };
        if let Some(v) = &first.vars {
            self.assign(v, entered)?;
        }
        let r = if rest.is_empty() {
            self.exec_block(body)
        } else {
            self.exec_with(rest, body)
        };
        if let Value::Instance(_) = &ctx {
            let exit = self.get_attr(&ctx, "__exit__")?;
            let (args, suppress_allowed) = match &r {
                Err(Ctrl::Err(e)) if catchable(e) => {
                    let ev = self.exception_value(e);
                    let ty = self.type_of(&ev);
                    (vec![ty, ev, Value::None], true)
                }
                _ => (vec![Value::None, Value::None, Value::None], false),
            };
            let out = self.call(&exit, Args::new(args))?;
            if suppress_allowed && self.truthy(&out)? {
                return Ok(());
            }
        }
        r
    }

    #[inline(never)]
    fn exec_try(
        &mut self,
        body: &[Stmt],
        handlers: &[ast::ExceptHandler],
        orelse: &[Stmt],
        finalbody: &[Stmt],
    ) -> Flow {
        let result = match self.exec_block(body) {
            Err(Ctrl::Err(e)) if catchable(&e) => self.handle_exception(e, handlers),
            Ok(()) => self.exec_block(orelse),
            other => other,
        };
        if !finalbody.is_empty() {
            if let Err(Ctrl::Err(e)) = &result {
                if !catchable(e) {
                    return result;
                }
            }
            self.exec_block(finalbody)?;
        }
        result
    }

    #[inline(never)]
    fn handle_exception(&mut self, err: Box<PyErr>, handlers: &[ast::ExceptHandler]) -> Flow {
        let exc_value = self.exception_value(&err);
        for h in handlers {
            let matches = match &h.type_ {
                None => true,
                Some(t) => {
                    let tv = self.eval(t)?;
                    self.exception_matches(&exc_value, &tv)
                        .map_err(|e| e.at(t.span))?
                }
            };
            if !matches {
                continue;
            }
            if let Some(n) = &h.name {
                self.store_name(&n.name, exc_value.clone())?;
            }
            self.handling
                .push((exc_value.clone(), err.tb.clone(), err.pending));
            let r = self.exec_block(&h.body);
            self.handling.pop();
            if let Some(n) = &h.name {
                let _ = self.delete_name(&n.name);
            }
            return r;
        }
        // Not handled: keep the (materialized) exception and its traceback.
        let mut err = err;
        err.exc = Exc::Obj(exc_value);
        Err(Ctrl::Err(err))
    }

    /// Does the exception instance match an `except` clause's class (or tuple)?
    fn exception_matches(&mut self, exc: &Value, clause: &Value) -> Res<bool> {
        match clause {
            Value::Class(c) => {
                if c.exc_kind().is_none() {
                    return Err(PyErr::type_error(
                        "catching classes that do not inherit from BaseException is not allowed",
                    ));
                }
                let ec = self.class_of(exc);
                Ok(ec.is_subclass(c))
            }
            Value::Tuple(items) => {
                for i in items.iter() {
                    if self.exception_matches(exc, i)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Err(PyErr::type_error(
                "catching classes that do not inherit from BaseException is not allowed",
            )),
        }
    }

    /// The exception as a Python object (materializing a lazy one).
    pub(crate) fn exception_value(&mut self, e: &PyErr) -> Value {
        match &e.exc {
            Exc::Obj(v) => v.clone(),
            Exc::Lazy { kind, args } => self.new_exception(*kind, args.clone()),
        }
    }

    pub(crate) fn new_exception(&mut self, kind: ExcKind, args: Vec<Value>) -> Value {
        let class = self.exc_class(kind);
        let mut dict = HashMap::new();
        dict.insert("args".to_string(), Value::tuple(args));
        Value::Instance(Rc::new(Instance {
            class,
            dict: RefCell::new(dict),
        }))
    }

    pub(crate) fn exc_class(&self, kind: ExcKind) -> Rc<Class> {
        match self.exc_classes.get(&kind) {
            Some(c) => c.clone(),
            None => self.types.object.clone(),
        }
    }

    /// `raise X` / `raise X(...)`: the value to raise.
    fn make_exception(&mut self, v: Value) -> Res<Value> {
        match &v {
            Value::Class(c) if c.exc_kind().is_some() => self.call(&v, Args::default()),
            Value::Instance(i) if i.class.exc_kind().is_some() => Ok(v),
            _ => Err(PyErr::type_error(
                "exceptions must derive from BaseException",
            )),
        }
    }
}
