//! Assignment (unpacking, augmented), `del`, name lookup through the
//! scopes, and `def`/`class` definitions.

use super::*;

impl Interp {
    pub(crate) fn assign(&mut self, target: &Expr, v: Value) -> Res<()> {
        match &target.kind {
            ExprKind::Name(n) => self.store_name(n, v),
            ExprKind::Tuple(items) | ExprKind::List(items) => self.unpack(target, items, v),
            ExprKind::Attribute { value, attr, .. } => {
                let obj = self.eval(value)?;
                self.set_attr(&obj, attr, v).map_err(|e| e.at(target.span))
            }
            ExprKind::Subscript { value, index } => {
                let obj = self.eval(value)?;
                if let Value::Array(arr) = &obj {
                    match self.int_indices(index)? {
                        IntIndex::Ints(idx, n) => {
                            return super::super::numpy::set_scalar_fast(self, arr, &idx[..n], v)
                                .map_err(|e| e.at(target.span));
                        }
                        IntIndex::Other(idx) => {
                            return self.set_item(&obj, idx, v).map_err(|e| e.at(target.span))
                        }
                        IntIndex::NotATuple => {}
                    }
                }
                let idx = self.eval_index(index)?;
                self.set_item(&obj, idx, v).map_err(|e| e.at(target.span))
            }
            ExprKind::Starred(_) => Err(PyErr::new(
                ExcKind::SyntaxError,
                "starred assignment target must be in a list or tuple",
            )),
            _ => Err(PyErr::new(
                ExcKind::SyntaxError,
                "cannot assign to expression",
            )),
        }
    }

    #[inline(never)]
    fn unpack(&mut self, target: &Expr, items: &[Expr], v: Value) -> Res<()> {
        let values = self.items_of(&v).map_err(|_| {
            PyErr::type_error(format!(
                "cannot unpack non-iterable {} object",
                v.type_name()
            ))
            .at(target.span)
        })?;
        let star = items
            .iter()
            .position(|i| matches!(i.kind, ExprKind::Starred(_)));
        match star {
            None => {
                if values.len() != items.len() {
                    let msg = if values.len() > items.len() {
                        format!("too many values to unpack (expected {})", items.len())
                    } else {
                        format!(
                            "not enough values to unpack (expected {}, got {})",
                            items.len(),
                            values.len()
                        )
                    };
                    return Err(PyErr::value_error(msg).at(target.span));
                }
                for (t, x) in items.iter().zip(values) {
                    self.assign(t, x)?;
                }
                Ok(())
            }
            Some(si) => {
                let after = items.len() - si - 1;
                if values.len() < si + after {
                    return Err(PyErr::value_error(format!(
                        "not enough values to unpack (expected at least {}, got {})",
                        si + after,
                        values.len()
                    ))
                    .at(target.span));
                }
                let mut values = values;
                let tail = values.split_off(values.len() - after);
                let middle = values.split_off(si);
                for (t, x) in items[..si].iter().zip(values) {
                    self.assign(t, x)?;
                }
                if let Some(ExprKind::Starred(inner)) = items.get(si).map(|e| &e.kind) {
                    let list = self.new_list(middle)?;
                    self.assign(inner, list)?;
                }
                for (t, x) in items[si + 1..].iter().zip(tail) {
                    self.assign(t, x)?;
                }
                Ok(())
            }
        }
    }

    #[inline(never)]
    pub(super) fn aug_assign(&mut self, target: &Expr, op: ast::BinOp, value: &Expr) -> Flow {
        match &target.kind {
            ExprKind::Name(n) => {
                let cur = self.load_name(n).map_err(|e| e.at(target.span))?;
                let rhs = self.eval(value)?;
                let v = self.inplace_op(op, cur, rhs)?;
                self.store_name(n, v)?;
            }
            ExprKind::Attribute {
                value: obj, attr, ..
            } => {
                let o = self.eval(obj)?;
                let cur = self.get_attr(&o, attr).map_err(|e| e.at(target.span))?;
                let rhs = self.eval(value)?;
                let v = self.inplace_op(op, cur, rhs)?;
                self.set_attr(&o, attr, v)?;
            }
            ExprKind::Subscript { value: obj, index } => {
                let o = self.eval(obj)?;
                let idx = self.eval_index(index)?;
                let cur = self
                    .get_item(&o, idx.clone())
                    .map_err(|e| e.at(target.span))?;
                let rhs = self.eval(value)?;
                let v = self.inplace_op(op, cur, rhs)?;
                self.set_item(&o, idx, v)?;
            }
            _ => {
                return Err(PyErr::new(
                    ExcKind::SyntaxError,
                    "illegal expression for augmented assignment",
                )
                .into())
            }
        }
        Ok(())
    }

    /// `a op= b`: lists extend in place, arrays update in place.
    fn inplace_op(&mut self, op: ast::BinOp, cur: Value, rhs: Value) -> Res<Value> {
        match (&cur, op) {
            (Value::List(l), ast::BinOp::Add) => {
                let items = self.items_of(&rhs)?;
                l.borrow_mut().extend(items);
                self.recharge(l)?;
                Ok(cur)
            }
            (Value::Array(a), _) => {
                let result = self.binary_op(op, cur.clone(), rhs)?;
                super::super::numpy::assign_all(self, a, &result)?;
                Ok(cur)
            }
            _ => self.binary_op(op, cur, rhs),
        }
    }

    #[inline(never)]
    pub(super) fn delete(&mut self, target: &Expr) -> Res<()> {
        match &target.kind {
            ExprKind::Name(n) => self.delete_name(n).map_err(|e| e.at(target.span)),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for i in items {
                    self.delete(i)?;
                }
                Ok(())
            }
            ExprKind::Subscript { value, index } => {
                let obj = self.eval(value)?;
                let idx = self.eval_index(index)?;
                self.del_item(&obj, idx).map_err(|e| e.at(target.span))
            }
            ExprKind::Attribute { value, attr, .. } => {
                let obj = self.eval(value)?;
                match &obj {
                    Value::Instance(i) => {
                        if i.dict.borrow_mut().remove(attr.as_str()).is_none() {
                            return Err(PyErr::attribute_error(format!(
                                "'{}' object has no attribute '{}'",
                                i.class.name, attr
                            )));
                        }
                        Ok(())
                    }
                    _ => Err(PyErr::attribute_error(format!(
                        "cannot delete attribute '{attr}' of '{}' object",
                        obj.type_name()
                    ))),
                }
            }
            _ => Err(PyErr::new(ExcKind::SyntaxError, "cannot delete expression")),
        }
    }

    // ------------------------------------------------------------------
    // Names

    pub(crate) fn load_name(&self, name: &str) -> Res<Value> {
        if let Some(ns) = &self.frame.class_ns {
            if let Some(v) = ns.borrow().get(name) {
                return Ok(v.clone());
            }
        }
        let mut env = self.frame.env.as_ref();
        let mut own = true;
        while let Some(e) = env {
            if let Some(i) = e.code.slot(name) {
                if let Some(Some(v)) = e.values.borrow().get(i) {
                    return Ok(v.clone());
                }
                return Err(if own {
                    PyErr::new(
                ExcKind::UnboundLocalError,
                format!("cannot access local variable '{name}' where it is not associated with a value"),
            )
                } else {
                    PyErr::new(
                ExcKind::NameError,
                format!("cannot access free variable '{name}' where it is not associated with a value in enclosing scope"),
            )
                });
            }
            if e.code.globals.iter().any(|g| g == name) {
                break;
            }
            if !e.comprehension {
                own = false;
            }
            env = e.parent.as_ref();
        }
        if let Some(v) = self.globals.get(name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.builtins.get(name) {
            return Ok(v.clone());
        }
        Err(PyErr::new(
            ExcKind::NameError,
            format!("name '{name}' is not defined"),
        ))
    }

    pub(crate) fn store_name(&mut self, name: &str, v: Value) -> Res<()> {
        if let Some(ns) = &self.frame.class_ns {
            ns.borrow_mut().insert(name.to_string(), v);
            return Ok(());
        }
        let mut env = self.frame.env.as_ref();
        while let Some(e) = env {
            if let Some(i) = e.code.slot(name) {
                if let Some(slot) = e.values.borrow_mut().get_mut(i) {
                    *slot = Some(v);
                }
                return Ok(());
            }
            if e.code.nonlocals.iter().any(|n| n == name) {
                let mut p = e.parent.as_ref();
                while let Some(pe) = p {
                    if let Some(i) = pe.code.slot(name) {
                        if let Some(slot) = pe.values.borrow_mut().get_mut(i) {
                            *slot = Some(v);
                        }
                        return Ok(());
                    }
                    p = pe.parent.as_ref();
                }
                return Err(PyErr::new(
                    ExcKind::SyntaxError,
                    format!("no binding for nonlocal '{name}' found"),
                ));
            }
            if e.comprehension {
                env = e.parent.as_ref();
                continue;
            }
            break;
        }
        match self.globals.get_mut(name) {
            Some(slot) => *slot = v,
            None => {
                self.globals.insert(name.to_string(), v);
            }
        }
        Ok(())
    }

    pub(super) fn delete_name(&mut self, name: &str) -> Res<()> {
        if let Some(ns) = &self.frame.class_ns {
            if ns.borrow_mut().remove(name).is_some() {
                return Ok(());
            }
        }
        if let Some(e) = &self.frame.env {
            if let Some(i) = e.code.slot(name) {
                if let Some(slot) = e.values.borrow_mut().get_mut(i) {
                    if slot.take().is_some() {
                        return Ok(());
                    }
                }
                return Err(PyErr::new(
            ExcKind::UnboundLocalError,
            format!("cannot access local variable '{name}' where it is not associated with a value"),
        ));
            }
        }
        if self.globals.remove(name).is_none() {
            return Err(PyErr::new(
                ExcKind::NameError,
                format!("name '{name}' is not defined"),
            ));
        }
        Ok(())
    }

    // ------------------------------------------------------------------
    // Definitions

    fn cached_def(&mut self, def: &ast::FunctionDef, span: Span) -> Rc<ast::FunctionDef> {
        let key = (self.frame.source.id, span.start);
        if let Some(d) = self.def_cache.get(&key) {
            return d.clone();
        }
        let d = Rc::new(def.clone());
        self.def_cache.insert(key, d.clone());
        d
    }

    pub(super) fn cached_code(
        &mut self,
        span: Span,
        make: impl FnOnce() -> CodeInfo,
    ) -> Rc<CodeInfo> {
        let key = (self.frame.source.id, span.start);
        if let Some(c) = self.code_cache.get(&key) {
            return c.clone();
        }
        let c = Rc::new(make());
        self.code_cache.insert(key, c.clone());
        c
    }

    pub(super) fn eval_defaults(&mut self, params: &ast::Params) -> Res<Vec<Option<Value>>> {
        let mut out = Vec::new();
        for p in params
            .posonly
            .iter()
            .chain(&params.args)
            .chain(&params.kwonly)
        {
            out.push(match &p.default {
                Some(d) => Some(self.eval(d)?),
                None => None,
            });
        }
        Ok(out)
    }

    pub(super) fn qualname(&self, name: &str) -> Rc<str> {
        match &self.frame.func {
            Some(f) if self.frame.class_ns.is_none() => {
                format!("{}.<locals>.{name}", f.qualname).into()
            }
            _ => match &self.frame.class_ns {
                Some(ns) => match ns.borrow().get("__qualname__") {
                    Some(Value::Str(q)) => format!("{q}.{name}").into(),
                    _ => name.into(),
                },
                None => name.into(),
            },
        }
    }

    #[inline(never)]
    pub(super) fn exec_def(&mut self, s: &Stmt, def: &ast::FunctionDef) -> Flow {
        let mut decorators = Vec::with_capacity(def.decorators.len());
        for d in &def.decorators {
            decorators.push(self.eval(d)?);
        }
        if let Some(k) = decorators.iter().position(|d| {
            self.library
                .is_source_decorator(d, DefinitionKind::Function)
        }) {
            let at = def.decorators.get(k).map_or(def.name_span, |d| d.span);
            let library = self.library.clone();
            let v = library.build_definition(self, s).map_err(|e| e.at(at))?;
            self.store_name(&def.name, v)?;
            return Ok(());
        }
        let defaults = self.eval_defaults(&def.params)?;
        let d = self.cached_def(def, s.span);
        let code = self.cached_code(s.span, || CodeInfo::analyze(&d.params, &d.body));
        let f = Value::Func(Rc::new(Function {
            name: def.name.as_str().into(),
            qualname: self.qualname(&def.name),
            params: Rc::new(d.params.clone()),
            body: FuncBody::Def(d),
            code,
            defaults,
            closure: self.frame.env.clone(),
            source: self.frame.source.clone(),
            span: def.name_span,
            attrs: RefCell::new(HashMap::new()),
            owner: RefCell::new(None),
        }));
        let mut v = f;
        for (dec, expr) in decorators.iter().zip(&def.decorators).rev() {
            v = self
                .call(dec, Args::new(vec![v]))
                .map_err(|e| e.at(expr.span))?;
        }
        self.store_name(&def.name, v)?;
        Ok(())
    }

    #[inline(never)]
    pub(super) fn exec_class(&mut self, s: &Stmt, class: &ast::ClassDef) -> Flow {
        let mut decorators = Vec::with_capacity(class.decorators.len());
        for d in &class.decorators {
            decorators.push(self.eval(d)?);
        }
        if let Some(k) = decorators
            .iter()
            .position(|d| self.library.is_source_decorator(d, DefinitionKind::Class))
        {
            let at = class.decorators.get(k).map_or(class.name_span, |d| d.span);
            let library = self.library.clone();
            let v = library.build_definition(self, s).map_err(|e| e.at(at))?;
            self.store_name(&class.name, v)?;
            return Ok(());
        }
        let mut bases = Vec::new();
        for b in &class.bases {
            match self.eval(b)? {
                Value::Class(c) => bases.push(c),
                other => {
                    return Err(PyErr::type_error(format!(
                        "a class can only derive from classes, not {}",
                        other.type_name()
                    ))
                    .at(b.span)
                    .into())
                }
            }
        }
        let qualname = self.qualname(&class.name);
        let ns = Rc::new(RefCell::new(HashMap::new()));
        ns.borrow_mut()
            .insert("__qualname__".to_string(), Value::str(qualname.clone()));
        ns.borrow_mut()
            .insert("__module__".to_string(), Value::str("__main__"));
        let saved = self.frame.clone();
        self.frame.class_ns = Some(ns.clone());
        let r = self.exec_block(&class.body);
        self.frame = saved;
        r?;
        let mut dict = std::mem::take(&mut *ns.borrow_mut());
        dict.remove("__qualname__");
        let cls = super::super::builtins::make_class(
            &class.name,
            "__main__",
            bases,
            dict,
            &self.types.object,
        );
        // Functions defined in the body remember their class (for `super()`).
        for v in cls.dict.borrow().values() {
            if let Some(f) = super::super::builtins::underlying_function(v) {
                *f.owner.borrow_mut() = Some(Rc::downgrade(&cls));
            }
        }
        let mut v = Value::Class(cls);
        for (dec, expr) in decorators.iter().zip(&class.decorators).rev() {
            v = self
                .call(dec, Args::new(vec![v]))
                .map_err(|e| e.at(expr.span))?;
        }
        self.store_name(&class.name, v)?;
        Ok(())
    }
}
