//! Evaluating expressions: operators, comparisons, displays,
//! comprehensions, subscripts and lambdas.

use super::*;

impl Interp {
    #[inline]
    pub(crate) fn eval(&mut self, e: &Expr) -> Res<Value> {
        match &e.kind {
            // Fast paths that cannot fail.
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            _ => self.eval_inner(e).map_err(|err| err.at(e.span)),
        }
    }

    fn eval_inner(&mut self, e: &Expr) -> Res<Value> {
        match &e.kind {
            ExprKind::Name(n) => self.load_name(n),
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            ExprKind::Float(f) => Ok(Value::Float(*f)),
            ExprKind::Str(s) => Ok(Value::str(s.as_str())),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::NoneLit => Ok(Value::None),
            ExprKind::Ellipsis => Ok(CoreObj::Ellipsis.value()),
            ExprKind::Imag(_) => Err(PyErr::type_error("complex numbers are not supported")),
            ExprKind::Bytes(_) => Err(PyErr::type_error("bytes literals are not supported")),
            ExprKind::FString(parts) => self.eval_fstring(parts),
            ExprKind::BoolOp { op, values } => self.eval_boolop(op, values),
            ExprKind::BinOp { left, op, right } => {
                let l = self.eval(left)?;
                let r = self.eval(right)?;
                self.binary_op(*op, l, r)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.eval(operand)?;
                self.unary_op(*op, v)
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => self.eval_compare(left, ops, comparators),
            ExprKind::Call { func, args } => self.eval_call(func, args),
            ExprKind::Attribute { value, attr, .. } => {
                let v = self.eval(value)?;
                self.get_attr(&v, attr)
            }
            ExprKind::Subscript { value, index } => self.eval_subscript(value, index),
            ExprKind::Slice { .. } => Err(PyErr::new(
                ExcKind::SyntaxError,
                "a slice is only valid inside `[...]`",
            )),
            ExprKind::Starred(_) => Err(PyErr::new(
                ExcKind::SyntaxError,
                "can't use starred expression here",
            )),
            ExprKind::Tuple(items) => Ok(Value::tuple(self.eval_items(items)?)),
            ExprKind::List(items) => {
                let v = self.eval_items(items)?;
                self.new_list(v)
            }
            ExprKind::Set(items) => self.eval_set(items),
            ExprKind::Dict(entries) => self.eval_dict(entries),
            ExprKind::ListComp { .. }
            | ExprKind::GeneratorExp { .. }
            | ExprKind::SetComp { .. }
            | ExprKind::DictComp { .. } => self.eval_comp(e),
            ExprKind::IfExp { test, body, orelse } => {
                let t = self.eval(test)?;
                if self.truthy(&t)? {
                    self.eval(body)
                } else {
                    self.eval(orelse)
                }
            }
            ExprKind::Lambda { params, body } => self.make_lambda(e.span, params, body),
            ExprKind::NamedExpr { target, value } => {
                let v = self.eval(value)?;
                self.assign(target, v.clone())?;
                Ok(v)
            }
            ExprKind::Yield(v) => {
                let v = match v {
                    Some(x) => self.eval(x)?,
                    None => Value::None,
                };
                self.collect_yield(vec![v])?;
                Ok(Value::None)
            }
            ExprKind::YieldFrom(x) => {
                let v = self.eval(x)?;
                let items = self.items_of(&v)?;
                self.collect_yield(items)?;
                Ok(Value::None)
            }
        }
    }

    #[inline(never)]
    fn eval_boolop(&mut self, op: &ast::BoolOp, values: &[Expr]) -> Res<Value> {
        let mut last = Value::None;
        for (i, v) in values.iter().enumerate() {
            last = self.eval(v)?;
            if i + 1 == values.len() {
                break;
            }
            let t = self.truthy(&last)?;
            match op {
                ast::BoolOp::And if !t => return Ok(last),
                ast::BoolOp::Or if t => return Ok(last),
                _ => {}
            }
        }
        Ok(last)
    }

    #[inline(never)]
    fn eval_compare(
        &mut self,
        left: &Expr,
        ops: &[ast::CmpOp],
        comparators: &[Expr],
    ) -> Res<Value> {
        let mut l = self.eval(left)?;
        let mut result = Value::Bool(true);
        for (op, c) in ops.iter().zip(comparators) {
            let r = self.eval(c)?;
            result = self.compare(*op, &l, &r)?;
            if ops.len() > 1 && !self.truthy(&result)? {
                return Ok(result);
            }
            l = r;
        }
        Ok(result)
    }

    #[inline(never)]
    fn eval_set(&mut self, items: &[Expr]) -> Res<Value> {
        let v = self.eval_items(items)?;
        let mut d = Dict::new();
        for x in v {
            d.insert(x, Value::None)?;
        }
        Ok(Value::Set(Rc::new(RefCell::new(d))))
    }

    #[inline(never)]
    fn eval_dict(&mut self, entries: &[(Option<Expr>, Expr)]) -> Res<Value> {
        let mut d = Dict::new();
        for (k, v) in entries {
            match k {
                Some(k) => {
                    let kv = self.eval(k)?;
                    let vv = self.eval(v)?;
                    d.insert(kv, vv).map_err(|e| e.at(k.span))?;
                }
                None => {
                    let m = self.eval(v)?;
                    for (k, v) in self.dict_items(&m).map_err(|e| e.at(v.span))? {
                        d.insert(k, v)?;
                    }
                }
            }
        }
        Ok(self.new_dict(d))
    }

    #[inline(never)]
    fn eval_comp(&mut self, e: &Expr) -> Res<Value> {
        match &e.kind {
            ExprKind::ListComp { elt, generators } => {
                let mut out = Vec::new();
                self.comprehension(e.span, generators, &mut |it| {
                    out.push(it.eval(elt)?);
                    if out.len() % 4096 == 0 {
                        it.check_alloc(out.len() as u64 * SLOT_BYTES)?;
                    }
                    Ok(())
                })?;
                self.new_list(out)
            }
            ExprKind::GeneratorExp { elt, generators } => {
                let mut out = Vec::new();
                self.comprehension(e.span, generators, &mut |it| {
                    out.push(it.eval(elt)?);
                    it.check_alloc(out.len() as u64 * SLOT_BYTES)?;
                    Ok(())
                })?;
                Ok(Value::Iter(Rc::new(RefCell::new(IterState::Seq {
                    items: out.into(),
                    index: 0,
                }))))
            }
            ExprKind::SetComp { elt, generators } => {
                let mut d = Dict::new();
                self.comprehension(e.span, generators, &mut |it| {
                    let v = it.eval(elt)?;
                    if d.len() % 4096 == 4095 {
                        it.check_alloc((d.len() as u64 + 1) * 3 * SLOT_BYTES)?;
                    }
                    d.insert(v, Value::None)
                })?;
                Ok(Value::Set(Rc::new(RefCell::new(d))))
            }
            ExprKind::DictComp {
                key,
                value,
                generators,
            } => {
                let mut d = Dict::new();
                self.comprehension(e.span, generators, &mut |it| {
                    let k = it.eval(key)?;
                    let v = it.eval(value)?;
                    if d.len() % 4096 == 4095 {
                        it.check_alloc((d.len() as u64 + 1) * 4 * SLOT_BYTES)?;
                    }
                    d.insert(k, v)
                })?;
                Ok(self.new_dict(d))
            }
            _ => Ok(Value::None),
        }
    }

    #[inline(never)]
    fn eval_subscript(&mut self, value: &Expr, index: &Expr) -> Res<Value> {
        let v = self.eval(value)?;
        if let Value::Array(arr) = &v {
            match self.int_indices(index)? {
                IntIndex::Ints(idx, n) => {
                    if let Some(r) = super::super::numpy::get_scalar_fast(arr, &idx[..n]) {
                        return r;
                    }
                    let vals = idx[..n].iter().map(|&i| Value::Int(i)).collect();
                    return self.get_item(&v, Value::tuple(vals));
                }
                IntIndex::Other(idx) => return self.get_item(&v, idx),
                IntIndex::NotATuple => {}
            }
        }
        let idx = self.eval_index(index)?;
        self.get_item(&v, idx)
    }

    /// Evaluates a tuple index `[i, j, …]` without allocating when every
    /// item is an integer (the inner loops of NumPy-style code).
    pub(super) fn int_indices(&mut self, index: &Expr) -> Res<IntIndex> {
        let ExprKind::Tuple(items) = &index.kind else {
            return Ok(IntIndex::NotATuple);
        };
        if items.len() > 8
            || items
                .iter()
                .any(|i| matches!(i.kind, ExprKind::Slice { .. } | ExprKind::Starred(_)))
        {
            return Ok(IntIndex::NotATuple);
        }
        let mut idx = [0i64; 8];
        for (k, item) in items.iter().enumerate() {
            match self.eval(item)? {
                Value::Int(i) => idx[k] = i,
                other => {
                    // Not all integers: build the tuple from what we have.
                    let mut vals: Vec<Value> = idx[..k].iter().map(|&i| Value::Int(i)).collect();
                    vals.push(other);
                    for rest in &items[k + 1..] {
                        vals.push(self.eval(rest)?);
                    }
                    return Ok(IntIndex::Other(Value::tuple(vals)));
                }
            }
        }
        Ok(IntIndex::Ints(idx, items.len()))
    }

    #[inline(never)]
    fn make_lambda(&mut self, span: Span, params: &ast::Params, body: &Expr) -> Res<Value> {
        let defaults = self.eval_defaults(params)?;
        let key = (self.frame.source.id, span.start);
        let (p, b) = match self.lambda_cache.get(&key) {
            Some(x) => x.clone(),
            None => {
                let x = (Rc::new(params.clone()), Rc::new(body.clone()));
                self.lambda_cache.insert(key, x.clone());
                x
            }
        };
        let code = self.cached_code(span, || CodeInfo::lambda(params));
        Ok(Value::Func(Rc::new(Function {
            name: "<lambda>".into(),
            qualname: self.qualname("<lambda>"),
            params: p,
            body: FuncBody::Lambda(b),
            code,
            defaults,
            closure: self.frame.env.clone(),
            source: self.frame.source.clone(),
            span,
            attrs: RefCell::new(HashMap::new()),
            owner: RefCell::new(None),
        })))
    }

    fn eval_items(&mut self, items: &[Expr]) -> Res<Vec<Value>> {
        let mut out = Vec::with_capacity(items.len());
        for i in items {
            match &i.kind {
                ExprKind::Starred(inner) => {
                    let v = self.eval(inner)?;
                    out.extend(self.items_of(&v).map_err(|e| e.at(i.span))?);
                }
                _ => out.push(self.eval(i)?),
            }
        }
        Ok(out)
    }

    /// The index of a subscript: slices become slice objects.
    pub(crate) fn eval_index(&mut self, index: &Expr) -> Res<Value> {
        match &index.kind {
            ExprKind::Slice { lower, upper, step } => {
                let part = |p: &Option<Box<Expr>>, it: &mut Self| -> Res<Value> {
                    match p {
                        Some(x) => it.eval(x),
                        None => Ok(Value::None),
                    }
                };
                let start = part(lower, self)?;
                let stop = part(upper, self)?;
                let step = part(step, self)?;
                Ok(Value::Slice(Rc::new(SliceObj { start, stop, step })))
            }
            ExprKind::Tuple(items)
                if items
                    .iter()
                    .any(|i| matches!(i.kind, ExprKind::Slice { .. })) =>
            {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.eval_index(i)?);
                }
                Ok(Value::tuple(out))
            }
            _ => self.eval(index),
        }
    }

    #[inline(never)]
    pub(super) fn comprehension(
        &mut self,
        span: Span,
        gens: &[ast::Comprehension],
        emit: &mut dyn FnMut(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let code = self.cached_code(span, || {
            let mut info = CodeInfo::default();
            for g in gens {
                collect_target(&g.target, &mut info.locals);
            }
            info
        });
        let Some(first) = gens.first() else {
            return Ok(());
        };
        // The first iterable is evaluated in the enclosing scope.
        let first_iter = self.eval(&first.iter)?;
        let env = Rc::new(Env {
            values: RefCell::new(vec![None; code.locals.len()]),
            code,
            parent: self.frame.env.clone(),
            comprehension: true,
        });
        let saved_env = self.frame.env.replace(env);
        let saved_ns = self.frame.class_ns.take();
        let r = self.comp_level(gens, 0, Some(first_iter), emit);
        self.frame.env = saved_env;
        self.frame.class_ns = saved_ns;
        r
    }

    fn comp_level(
        &mut self,
        gens: &[ast::Comprehension],
        level: usize,
        iter: Option<Value>,
        emit: &mut dyn FnMut(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let Some(g) = gens.get(level) else {
            return emit(self);
        };
        let it = match iter {
            Some(v) => v,
            None => self.eval(&g.iter)?,
        };
        let mut state = self.make_iter(&it).map_err(|e| e.at(g.iter.span))?;
        'outer: while let Some(item) = self.iter_next(&mut state)? {
            self.tick()?;
            self.assign(&g.target, item)?;
            for cond in &g.ifs {
                let c = self.eval(cond)?;
                if !self.truthy(&c)? {
                    continue 'outer;
                }
            }
            self.comp_level(gens, level + 1, None, emit)?;
        }
        Ok(())
    }
}
