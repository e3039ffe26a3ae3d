//! Attribute access and subscripts on built-in values: `getattr` (bound
//! methods, class attributes, host objects), `setattr`, and item get, set
//! and delete.

use super::*;

impl Interp {
    pub(crate) fn get_attr(&mut self, v: &Value, name: &str) -> Res<Value> {
        match v {
            Value::Instance(inst) => {
                if let Some(x) = inst.dict.borrow().get(name) {
                    return Ok(x.clone());
                }
                if name == "__class__" {
                    return Ok(Value::Class(inst.class.clone()));
                }
                if name == "__dict__" {
                    let mut d = Dict::new();
                    for (k, x) in inst.dict.borrow().iter() {
                        d.insert(Value::str(k.as_str()), x.clone())?;
                    }
                    return Ok(self.new_dict(d));
                }
                match inst.class.lookup(name) {
                    Some(x) => self.bind(x, v, &inst.class),
                    None => Err(PyErr::attribute_error(format!(
                        "'{}' object has no attribute '{name}'",
                        inst.class.name
                    ))),
                }
            }
            Value::Class(c) => {
                match name {
                    "__name__" | "__qualname__" => return Ok(Value::str(c.name.as_str())),
                    "__module__" => return Ok(Value::str(c.module.as_str())),
                    "__bases__" => {
                        return Ok(Value::tuple(
                            c.bases.iter().map(|b| Value::Class(b.clone())).collect(),
                        ))
                    }
                    "__mro__" => {
                        let mut v = vec![Value::Class(c.clone())];
                        v.extend(c.mro.iter().map(|b| Value::Class(b.clone())));
                        return Ok(Value::tuple(v));
                    }
                    "__doc__" => return Ok(Value::None),
                    _ => {}
                }
                match c.lookup(name) {
                    Some(x) => match core_obj(&x) {
                        Some(CoreObj::StaticMethod(f)) => Ok(f.clone()),
                        Some(CoreObj::ClassMethod(f)) => {
                            Ok(Value::Method(Rc::new((v.clone(), f.clone()))))
                        }
                        _ => Ok(x),
                    },
                    None => match self.library.clone().class_attr(self, c, name)? {
                        Some(x) => Ok(x),
                        None => Err(PyErr::attribute_error(format!(
                            "type object '{}' has no attribute '{name}'",
                            c.name
                        ))),
                    },
                }
            }
            Value::Module(m) => {
                if let Some(x) = m.attrs.borrow().get(name) {
                    return Ok(x.clone());
                }
                if name == "__name__" {
                    return Ok(Value::str(m.name.as_str()));
                }
                let mut msg = format!("module '{}' has no attribute '{name}'", m.name);
                if let Some(note) = m.missing_note {
                    msg.push_str(" (");
                    msg.push_str(note);
                    msg.push(')');
                }
                Err(PyErr::attribute_error(msg))
            }
            Value::Func(f) => match name {
                "__name__" => Ok(Value::Str(f.name.clone())),
                "__qualname__" => Ok(Value::Str(f.qualname.clone())),
                "__module__" => Ok(Value::str("__main__")),
                "__doc__" => Ok(match &f.body {
                    FuncBody::Def(d) => match d.body.first().map(|s| &s.kind) {
                        Some(tessel_syntax::ast::StmtKind::Expr(e)) => match &e.kind {
                            tessel_syntax::ast::ExprKind::Str(s) => Value::str(s.as_str()),
                            _ => Value::None,
                        },
                        _ => Value::None,
                    },
                    _ => Value::None,
                }),
                _ => f
                    .attrs
                    .borrow()
                    .get(name)
                    .cloned()
                    .ok_or_else(|| no_attr(v, name)),
            },
            Value::Builtin(b) => match name {
                "__name__" | "__qualname__" => {
                    Ok(Value::str(b.name.rsplit('.').next().unwrap_or(&b.name)))
                }
                _ => Err(no_attr(v, name)),
            },
            Value::Method(m) => match name {
                "__self__" => Ok(m.0.clone()),
                "__func__" => Ok(m.1.clone()),
                _ => self.get_attr(&m.1.clone(), name),
            },
            Value::Array(_) | Value::NpScalar(_) | Value::NpDType(_) => {
                super::super::numpy::get_attr(self, v, name)
            }
            Value::Host(o) => {
                if let Some(CoreObj::Super { class, obj }) = core_obj(v) {
                    let start = self.class_of(obj);
                    // Look the name up after `class` in the object's MRO.
                    let mut chain = vec![start.clone()];
                    chain.extend(start.mro.iter().cloned());
                    let pos = chain
                        .iter()
                        .position(|c| Rc::ptr_eq(c, class))
                        .map_or(0, |p| p + 1);
                    for c in &chain[pos..] {
                        if let Some(x) = c.dict.borrow().get(name).cloned() {
                            return self.bind(x, obj, c);
                        }
                        if c.exc.is_some() && name == "__init__" {
                            return Ok(super::super::builtins::builtin_with(
                                "BaseException.__init__",
                                exc_init,
                                obj.clone(),
                            ));
                        }
                    }
                    if name == "__init__" {
                        return Ok(super::super::builtins::builtin(
                            "object.__init__",
                            |_, _| Ok(Value::None),
                        ));
                    }
                    return Err(PyErr::attribute_error(format!(
                        "'super' object has no attribute '{name}'"
                    )));
                }
                o.clone().get_attr(self, v, name)
            }
            Value::Range(r) => match name {
                "start" => Ok(Value::Int(r.start)),
                "stop" => Ok(Value::Int(r.stop)),
                "step" => Ok(Value::Int(r.step)),
                _ => Err(no_attr(v, name)),
            },
            Value::Slice(s) => match name {
                "start" => Ok(s.start.clone()),
                "stop" => Ok(s.stop.clone()),
                "step" => Ok(s.step.clone()),
                _ => Err(no_attr(v, name)),
            },
            Value::Float(f) if name == "real" => Ok(Value::Float(*f)),
            Value::Float(_) if name == "imag" => Ok(Value::Float(0.0)),
            Value::Int(i) if name == "real" || name == "numerator" => Ok(Value::Int(*i)),
            Value::Int(_) if name == "imag" => Ok(Value::Int(0)),
            Value::Int(_) if name == "denominator" => Ok(Value::Int(1)),
            _ => {
                if has_method(v, name) {
                    return Ok(Value::BoundMethod(Rc::new((v.clone(), name.into()))));
                }
                Err(no_attr(v, name))
            }
        }
    }

    /// Binds a class attribute found through an instance.
    fn bind(&mut self, x: Value, inst: &Value, class: &Rc<Class>) -> Res<Value> {
        Ok(match &x {
            Value::Func(_) => Value::Method(Rc::new((inst.clone(), x))),
            Value::Host(_) => match core_obj(&x) {
                Some(CoreObj::StaticMethod(f)) => f.clone(),
                Some(CoreObj::ClassMethod(f)) => {
                    Value::Method(Rc::new((Value::Class(class.clone()), f.clone())))
                }
                Some(CoreObj::Property { getter, .. }) => {
                    let g = getter.clone();
                    return self.call(&g, Args::new(vec![inst.clone()]));
                }
                _ => x.clone(),
            },
            _ => x,
        })
    }

    pub(crate) fn set_attr(&mut self, obj: &Value, name: &str, v: Value) -> Res<()> {
        match obj {
            Value::Instance(inst) => {
                if let Some(p) = inst.class.lookup(name) {
                    if let Some(CoreObj::Property { setter, .. }) = core_obj(&p) {
                        let s = setter.borrow().clone();
                        return match s {
                            Some(f) => {
                                self.call(&f, Args::new(vec![obj.clone(), v]))?;
                                Ok(())
                            }
                            None => Err(PyErr::attribute_error(format!(
                                "property '{name}' of '{}' object has no setter",
                                inst.class.name
                            ))),
                        };
                    }
                }
                inst.dict.borrow_mut().insert(name.to_string(), v);
                Ok(())
            }
            Value::Class(c) if c.builtin.is_none() || c.module == "__main__" => {
                c.dict.borrow_mut().insert(name.to_string(), v);
                Ok(())
            }
            Value::Func(f) => {
                f.attrs.borrow_mut().insert(name.to_string(), v);
                Ok(())
            }
            Value::Module(m) => {
                m.attrs.borrow_mut().insert(name.to_string(), v);
                Ok(())
            }
            Value::Host(o) => o.clone().set_attr(self, name, v),
            _ => Err(PyErr::attribute_error(format!(
                "'{}' object has no attribute '{name}' (and attributes of built-in objects are read-only)",
                obj.type_name()
            ))),
        }
    }

    pub(crate) fn get_item(&mut self, obj: &Value, idx: Value) -> Res<Value> {
        match obj {
            Value::List(l) => match &idx {
                Value::Slice(s) => {
                    let items = l.borrow();
                    let pos = slice_positions(items.len(), s)?;
                    let out: Vec<Value> =
                        pos.iter().filter_map(|&i| items.get(i).cloned()).collect();
                    drop(items);
                    self.new_list(out)
                }
                _ => {
                    let items = l.borrow();
                    let i = seq_index(index_of(&idx, "list")?, items.len(), "list")?;
                    Ok(items[i].clone())
                }
            },
            Value::Tuple(t) => match &idx {
                Value::Slice(s) => {
                    let pos = slice_positions(t.len(), s)?;
                    Ok(Value::tuple(
                        pos.iter().filter_map(|&i| t.get(i).cloned()).collect(),
                    ))
                }
                _ => {
                    let i = seq_index(index_of(&idx, "tuple")?, t.len(), "tuple")?;
                    Ok(t[i].clone())
                }
            },
            Value::Str(s) => {
                let chars: Vec<char> = s.chars().collect();
                match &idx {
                    Value::Slice(sl) => {
                        let pos = slice_positions(chars.len(), sl)?;
                        Ok(Value::str(
                            pos.iter().filter_map(|&i| chars.get(i)).collect::<String>(),
                        ))
                    }
                    _ => {
                        let i = seq_index(index_of(&idx, "string")?, chars.len(), "string")?;
                        Ok(Value::str(chars[i].to_string()))
                    }
                }
            }
            Value::Dict(d) => {
                let r = d.borrow().get(&idx)?;
                if let Some(v) = r {
                    return Ok(v);
                }
                let factory = d.borrow().default_factory.clone();
                match factory {
                    Some(f) => {
                        let v = self.call(&f, Args::new(Vec::new()))?;
                        d.borrow_mut().insert(idx, v.clone())?;
                        Ok(v)
                    }
                    None => Err(PyErr::key_error(idx)),
                }
            }
            Value::Range(r) => match &idx {
                Value::Slice(s) => {
                    let (start, stop, step) = slice_indices(r.len(), s)?;
                    Ok(Value::Range(Rc::new(RangeObj {
                        start: r.get(start),
                        stop: r.get(stop),
                        step: r.step.saturating_mul(step),
                    })))
                }
                _ => {
                    let n = r.len();
                    let i = index_of(&idx, "range")?;
                    let j = if i < 0 { i + n } else { i };
                    if j < 0 || j >= n {
                        return Err(PyErr::index_error("range object index out of range"));
                    }
                    Ok(Value::Int(r.get(j)))
                }
            },
            Value::Array(a) => super::super::numpy::get_item(self, a, &idx),
            Value::Instance(_) => {
                let m = self.get_attr(obj, "__getitem__").map_err(|_| {
                    PyErr::type_error(format!("'{}' object is not subscriptable", obj.type_name()))
                })?;
                self.call(&m, Args::new(vec![idx]))
            }
            Value::Host(o) => o.clone().get_item(self, idx),
            Value::Class(_) => Ok(obj.clone()),
            _ => Err(PyErr::type_error(format!(
                "'{}' object is not subscriptable",
                obj.type_name()
            ))),
        }
    }

    pub(crate) fn set_item(&mut self, obj: &Value, idx: Value, v: Value) -> Res<()> {
        match obj {
            Value::List(l) => {
                match &idx {
                    Value::Slice(s) => {
                        let new = self.items_of(&v)?;
                        let mut items = l.borrow_mut();
                        let (start, stop, step) = slice_indices(items.len() as i64, s)?;
                        if step == 1 {
                            let start = start as usize;
                            let stop = (stop as usize).max(start);
                            items.splice(start..stop, new);
                        } else {
                            let pos = slice_positions(items.len(), s)?;
                            if pos.len() != new.len() {
                                return Err(PyErr::value_error(format!(
                                    "attempt to assign sequence of size {} to extended slice of size {}",
                                    new.len(),
                                    pos.len()
                                )));
                            }
                            for (p, x) in pos.into_iter().zip(new) {
                                items[p] = x;
                            }
                        }
                        drop(items);
                        self.recharge(l)?;
                    }
                    _ => {
                        let mut items = l.borrow_mut();
                        let i = seq_index(index_of(&idx, "list")?, items.len(), "list assignment")?;
                        items[i] = v;
                    }
                }
                Ok(())
            }
            Value::Dict(d) => d.borrow_mut().insert(idx, v),
            Value::Array(a) => super::super::numpy::set_item(self, a, &idx, &v),
            Value::Instance(_) => {
                let m = self.get_attr(obj, "__setitem__").map_err(|_| {
                    PyErr::type_error(format!(
                        "'{}' object does not support item assignment",
                        obj.type_name()
                    ))
                })?;
                self.call(&m, Args::new(vec![idx, v]))?;
                Ok(())
            }
            Value::Host(o) => o.clone().set_item(self, idx, v),
            _ => Err(PyErr::type_error(format!(
                "'{}' object does not support item assignment",
                obj.type_name()
            ))),
        }
    }

    pub(crate) fn del_item(&mut self, obj: &Value, idx: Value) -> Res<()> {
        match obj {
            Value::List(l) => {
                {
                    let mut items = l.borrow_mut();
                    match &idx {
                        Value::Slice(s) => {
                            let pos = slice_positions(items.len(), s)?;
                            let mut keep = vec![true; items.len()];
                            for p in pos {
                                keep[p] = false;
                            }
                            let mut k = keep.into_iter();
                            items.retain(|_| k.next().unwrap_or(true));
                        }
                        _ => {
                            let i =
                                seq_index(index_of(&idx, "list")?, items.len(), "list assignment")?;
                            items.remove(i);
                        }
                    }
                }
                self.recharge(l)
            }
            Value::Dict(d) => {
                let r = d.borrow_mut().remove(&idx)?;
                match r {
                    Some(_) => Ok(()),
                    None => Err(PyErr::key_error(idx)),
                }
            }
            Value::Instance(_) => {
                let m = self.get_attr(obj, "__delitem__")?;
                self.call(&m, Args::new(vec![idx]))?;
                Ok(())
            }
            _ => Err(PyErr::type_error(format!(
                "'{}' object does not support item deletion",
                obj.type_name()
            ))),
        }
    }
}
