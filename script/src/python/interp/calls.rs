//! Calls: argument evaluation and binding to parameters, methods,
//! functions and class instantiation.

use super::*;

impl Interp {
    fn eval_args(&mut self, args: &[ast::Arg]) -> Res<Args> {
        let mut out = Args::default();
        for a in args {
            match a {
                ast::Arg::Positional(e) => match &e.kind {
                    ExprKind::Starred(inner) => {
                        let v = self.eval(inner)?;
                        out.pos
                            .extend(self.items_of(&v).map_err(|err| err.at(e.span))?);
                    }
                    _ => out.pos.push(self.eval(e)?),
                },
                ast::Arg::Starred(e) => {
                    let inner = match &e.kind {
                        ExprKind::Starred(inner) => inner,
                        _ => e,
                    };
                    let v = self.eval(inner)?;
                    out.pos
                        .extend(self.items_of(&v).map_err(|err| err.at(e.span))?);
                }
                ast::Arg::Keyword(k) => {
                    let v = self.eval(&k.value)?;
                    out.kw.push((k.name.as_str().into(), v));
                }
                ast::Arg::DoubleStarred(e) => {
                    let v = self.eval(e)?;
                    for (k, v) in self.dict_items(&v).map_err(|err| err.at(e.span))? {
                        match k {
                            Value::Str(s) => out.kw.push((s, v)),
                            _ => {
                                return Err(PyErr::type_error("keywords must be strings").at(e.span))
                            }
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    pub(super) fn eval_call(&mut self, func: &Expr, args: &[ast::Arg]) -> Res<Value> {
        self.check_stack()?;
        if let ExprKind::Attribute { value, attr, .. } = &func.kind {
            let recv = self.eval(value)?;
            if let Value::Module(_) = &recv {
                // As in CPython: the attribute is looked up before the
                // arguments are evaluated, and a missing one is reported at
                // `mod.name`, not at the whole call.
                let f = self.get_attr(&recv, attr).map_err(|e| e.at(func.span))?;
                let a = self.eval_args(args)?;
                return self.call(&f, a);
            }
            let a = self.eval_args(args)?;
            return self.call_method(&recv, attr, a);
        }
        let f = self.eval(func)?;
        let a = self.eval_args(args)?;
        self.call(&f, a)
    }

    /// `recv.name(args)`.
    pub(crate) fn call_method(&mut self, recv: &Value, name: &str, args: Args) -> Res<Value> {
        match recv {
            Value::Instance(_) | Value::Class(_) | Value::Module(_) | Value::Func(_) => {
                let f = self.get_attr(recv, name)?;
                self.call(&f, args)
            }
            Value::Host(_)
                if matches!(
                    super::super::host_object::core_obj(recv),
                    Some(CoreObj::Super { .. })
                ) =>
            {
                let f = self.get_attr(recv, name)?;
                self.call(&f, args)
            }
            _ => super::super::methods::call_builtin_method(self, recv, name, args),
        }
    }

    /// Calls any callable value.
    pub(crate) fn call(&mut self, f: &Value, mut args: Args) -> Res<Value> {
        match f {
            Value::Func(func) => self.call_function(func, args),
            Value::Method(m) => {
                args.pos.insert(0, m.0.clone());
                self.call(&m.1, args)
            }
            Value::Builtin(b) => {
                args.data = b.data.clone();
                (b.f)(self, args)
            }
            Value::BoundMethod(m) => {
                let (recv, name) = (m.0.clone(), m.1.clone());
                super::super::methods::call_builtin_method(self, &recv, &name, args)
            }
            Value::Class(c) => self.instantiate(c, args),
            Value::Instance(_) => {
                let call = self.get_attr(f, "__call__").map_err(|_| {
                    PyErr::type_error(format!("'{}' object is not callable", f.type_name()))
                })?;
                self.call(&call, args)
            }
            Value::Host(o) => o.clone().call(self, args),
            _ => Err(PyErr::type_error(format!(
                "'{}' object is not callable",
                f.type_name()
            ))),
        }
    }

    pub(crate) fn call_function(&mut self, func: &Rc<Function>, args: Args) -> Res<Value> {
        self.tick()?;
        if self.depth >= self.limits.max_depth {
            return Err(PyErr::new(
                ExcKind::RecursionError,
                "maximum recursion depth exceeded",
            ));
        }
        self.check_stack()?;
        let values = self.bind_args(func, args)?;
        let env = Rc::new(Env {
            code: func.code.clone(),
            values: RefCell::new(values),
            parent: func.closure.clone(),
            comprehension: false,
        });
        let saved = std::mem::replace(
            &mut self.frame,
            Frame {
                env: Some(env),
                class_ns: None,
                source: func.source.clone(),
                func: Some(func.clone()),
            },
        );
        self.depth += 1;
        if func.code.generator {
            self.yields.push(Vec::new());
        }
        let r = match &func.body {
            FuncBody::Def(d) => match self.exec_block(&d.body) {
                Ok(()) => Ok(Value::None),
                Err(Ctrl::Return(v)) => Ok(v),
                Err(Ctrl::Err(e)) => Err(e),
                Err(Ctrl::Break) | Err(Ctrl::Continue) => Err(PyErr::new(
                    ExcKind::SyntaxError,
                    "'break' or 'continue' outside loop",
                )),
            },
            FuncBody::Lambda(body) => self.eval(body),
        };
        let r = if func.code.generator {
            let items = self.yields.pop().unwrap_or_default();
            r.map(|_| {
                Value::Iter(Rc::new(RefCell::new(IterState::Seq {
                    items: items.into(),
                    index: 0,
                })))
            })
        } else {
            r
        };
        self.depth -= 1;
        self.frame = saved;
        r.map_err(|mut e| {
            let span = e.pending.take().unwrap_or(func.span);
            e.tb.push(TbEntry {
                source: func.source.clone(),
                span,
                func: func.name.clone(),
            });
            e
        })
    }

    #[inline(never)]
    fn bind_args(&mut self, func: &Function, args: Args) -> Res<Vec<Option<Value>>> {
        let p = &func.params;
        let name = &func.qualname;
        let n_slots = func.code.locals.len();
        let mut values: Vec<Option<Value>> = vec![None; n_slots];
        let n_pos = p.posonly.len() + p.args.len();
        let mut extra = Vec::new();
        let given = args.pos.len();
        if given > n_pos && p.vararg.is_none() {
            let n_req = p
                .posonly
                .iter()
                .chain(&p.args)
                .filter(|x| x.default.is_none())
                .count();
            let takes = if n_req < n_pos {
                format!("from {n_req} to {n_pos} positional arguments")
            } else {
                format!(
                    "{n_pos} positional argument{}",
                    if n_pos == 1 { "" } else { "s" }
                )
            };
            return Err(PyErr::type_error(format!(
                "{name}() takes {takes} but {given} {} given",
                if given == 1 { "was" } else { "were" }
            )));
        }
        for (i, v) in args.pos.into_iter().enumerate() {
            if i < n_pos {
                if let Some(slot) = values.get_mut(i) {
                    *slot = Some(v);
                }
            } else {
                extra.push(v);
            }
        }
        let vararg_slot = n_pos;
        let kwonly_start = n_pos + p.vararg.is_some() as usize;
        let kwarg_slot = kwonly_start + p.kwonly.len();
        if p.vararg.is_some() {
            if let Some(slot) = values.get_mut(vararg_slot) {
                *slot = Some(Value::tuple(extra));
            }
        }
        let mut kwdict = Dict::new();
        for (k, v) in args.kw {
            let pos_index = p
                .args
                .iter()
                .position(|x| *x.name == *k)
                .map(|i| i + p.posonly.len());
            let kw_index = p
                .kwonly
                .iter()
                .position(|x| *x.name == *k)
                .map(|i| i + kwonly_start);
            match pos_index.or(kw_index) {
                Some(i) => {
                    let slot = values.get_mut(i);
                    match slot {
                        Some(s) if s.is_some() => {
                            return Err(PyErr::type_error(format!(
                                "{name}() got multiple values for argument '{k}'"
                            )))
                        }
                        Some(s) => *s = Some(v),
                        None => {}
                    }
                }
                None if p.kwarg.is_some() => {
                    kwdict.insert(Value::Str(k), v)?;
                }
                None => {
                    return Err(PyErr::type_error(format!(
                        "{name}() got an unexpected keyword argument '{k}'"
                    )))
                }
            }
        }
        if p.kwarg.is_some() {
            if let Some(slot) = values.get_mut(kwarg_slot) {
                *slot = Some(self.new_dict(kwdict));
            }
        }
        // Defaults and missing arguments.
        let mut missing = Vec::new();
        for i in 0..n_pos {
            if values.get(i).is_some_and(|v| v.is_none()) {
                match func.defaults.get(i).cloned().flatten() {
                    Some(d) => values[i] = Some(d),
                    None => missing.push(
                        p.posonly
                            .iter()
                            .chain(&p.args)
                            .nth(i)
                            .map(|x| x.name.clone())
                            .unwrap_or_default(),
                    ),
                }
            }
        }
        if !missing.is_empty() {
            return Err(PyErr::type_error(format!(
                "{name}() missing {} required positional argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                quote_list(&missing)
            )));
        }
        for (j, kp) in p.kwonly.iter().enumerate() {
            let i = kwonly_start + j;
            if values.get(i).is_some_and(|v| v.is_none()) {
                match func.defaults.get(n_pos + j).cloned().flatten() {
                    Some(d) => values[i] = Some(d),
                    None => missing.push(kp.name.clone()),
                }
            }
        }
        if !missing.is_empty() {
            return Err(PyErr::type_error(format!(
                "{name}() missing {} required keyword-only argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                quote_list(&missing)
            )));
        }
        Ok(values)
    }

    /// `cls(args)`.
    #[inline(never)]
    fn instantiate(&mut self, cls: &Rc<Class>, args: Args) -> Res<Value> {
        if cls.builtin.is_some() && cls.module != "__main__" {
            return super::super::builtins::construct(self, cls, args);
        }
        let dict = HashMap::new();
        let inst = Rc::new(Instance {
            class: cls.clone(),
            dict: RefCell::new(dict),
        });
        if cls.exc_kind().is_some() {
            inst.dict
                .borrow_mut()
                .insert("args".into(), Value::tuple(args.pos.clone()));
        }
        let v = Value::Instance(inst);
        match cls.lookup("__init__") {
            Some(init) => {
                let mut args = args;
                args.pos.insert(0, v.clone());
                let r = self.call(&init, args)?;
                if !matches!(r, Value::None) {
                    return Err(PyErr::type_error(format!(
                        "__init__() should return None, not '{}'",
                        r.type_name()
                    )));
                }
            }
            None => {
                if cls.exc_kind().is_none() && (!args.pos.is_empty() || !args.kw.is_empty()) {
                    return Err(PyErr::type_error(format!(
                        "{}() takes no arguments",
                        cls.name
                    )));
                }
            }
        }
        Ok(v)
    }
}
