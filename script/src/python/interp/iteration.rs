//! The iterator protocol over built-in and user values, and IPython-style
//! display of a cell's last expression.

use super::*;

impl Interp {
    pub(crate) fn make_iter(&mut self, v: &Value) -> Res<IterState> {
        Ok(match v {
            Value::Range(r) => IterState::Range {
                next: r.start,
                stop: r.stop,
                step: r.step,
            },
            Value::List(l) => IterState::List {
                list: l.clone(),
                index: 0,
            },
            Value::Tuple(t) => IterState::Seq {
                items: t.clone(),
                index: 0,
            },
            Value::Str(s) => IterState::Chars {
                s: s.clone(),
                pos: 0,
            },
            Value::Dict(d) | Value::Set(d) => IterState::Seq {
                items: d.borrow().keys().into(),
                index: 0,
            },
            Value::Iter(i) => IterState::Shared(i.clone()),
            Value::Array(a) => {
                if a.borrow().ndim() == 0 {
                    return Err(PyErr::type_error("iteration over a 0-d array"));
                }
                IterState::Rows {
                    array: a.clone(),
                    index: 0,
                }
            }
            Value::Instance(inst) => {
                if inst.class.lookup("__iter__").is_none() {
                    if let Some(getitem) = inst.class.lookup("__getitem__") {
                        // The old sequence protocol: items 0, 1, 2… until IndexError.
                        let mut items = Vec::new();
                        loop {
                            self.tick()?;
                            let r = self.call(
                                &getitem,
                                Args::new(vec![v.clone(), Value::Int(items.len() as i64)]),
                            );
                            match r {
                                Ok(x) => items.push(x),
                                Err(e) if e.lazy_kind() == Some(ExcKind::IndexError) => break,
                                Err(e) => {
                                    let ev = self.exception_value(&e);
                                    if self.class_of(&ev).exc_kind() == Some(ExcKind::IndexError) {
                                        break;
                                    }
                                    return Err(e);
                                }
                            }
                        }
                        return Ok(IterState::Seq {
                            items: items.into(),
                            index: 0,
                        });
                    }
                    return Err(PyErr::type_error(format!(
                        "'{}' object is not iterable",
                        v.type_name()
                    )));
                }
                let it = self.call_method(v, "__iter__", Args::default())?;
                if let Value::Instance(_) = it {
                    return Err(PyErr::type_error(
                        "user-defined iterators (__next__) are not supported",
                    ));
                }
                return self.make_iter(&it);
            }
            Value::Host(o) => match o.clone().iter(self)? {
                Some(items) => IterState::Seq {
                    items: items.into(),
                    index: 0,
                },
                None => {
                    return Err(PyErr::type_error(format!(
                        "'{}' object is not iterable",
                        v.type_name()
                    )))
                }
            },
            _ => {
                return Err(PyErr::type_error(format!(
                    "'{}' object is not iterable",
                    v.type_name()
                )))
            }
        })
    }

    pub(crate) fn iter_next(&mut self, it: &mut IterState) -> Res<Option<Value>> {
        Ok(match it {
            IterState::Range { next, stop, step } => {
                if (*step > 0 && *next < *stop) || (*step < 0 && *next > *stop) {
                    let v = *next;
                    *next = next.saturating_add(*step);
                    if *next == v {
                        *stop = v;
                    }
                    Some(Value::Int(v))
                } else {
                    None
                }
            }
            IterState::List { list, index } => {
                let v = list.borrow().get(*index).cloned();
                *index += 1;
                v
            }
            IterState::Seq { items, index } => {
                let v = items.get(*index).cloned();
                *index += 1;
                v
            }
            IterState::Chars { s, pos } => {
                let c = s.get(*pos..).and_then(|r| r.chars().next());
                match c {
                    Some(c) => {
                        *pos += c.len_utf8();
                        Some(Value::str(c.to_string()))
                    }
                    None => None,
                }
            }
            IterState::Enumerate { inner, count } => match self.iter_next(inner)? {
                Some(v) => {
                    let i = *count;
                    *count = count.wrapping_add(1);
                    Some(Value::tuple(vec![Value::Int(i), v]))
                }
                None => None,
            },
            IterState::Zip(inners) => {
                let mut items = Vec::with_capacity(inners.len());
                for i in inners.iter_mut() {
                    match self.iter_next(i)? {
                        Some(v) => items.push(v),
                        None => return Ok(None),
                    }
                }
                if items.is_empty() {
                    None
                } else {
                    Some(Value::tuple(items))
                }
            }
            IterState::Map { func, inner } => {
                let mut items = Vec::with_capacity(inner.len());
                for i in inner.iter_mut() {
                    match self.iter_next(i)? {
                        Some(v) => items.push(v),
                        None => return Ok(None),
                    }
                }
                let f = func.clone();
                Some(self.call(&f, Args::new(items))?)
            }
            IterState::Filter { func, inner } => loop {
                self.tick()?;
                match self.iter_next(inner)? {
                    Some(v) => {
                        let keep = match &*func {
                            Value::None => self.truthy(&v)?,
                            f => {
                                let f = f.clone();
                                let r = self.call(&f, Args::new(vec![v.clone()]))?;
                                self.truthy(&r)?
                            }
                        };
                        if keep {
                            break Some(v);
                        }
                    }
                    None => break None,
                }
            },
            IterState::Rows { array, index } => {
                let n = array.borrow().shape().first().copied().unwrap_or(0);
                if *index >= n {
                    None
                } else {
                    let i = *index;
                    *index += 1;
                    let a = array.clone();
                    Some(super::super::numpy::index_row(self, &a, i)?)
                }
            }
            IterState::Shared(shared) => {
                let shared = shared.clone();
                let mut state = std::mem::replace(&mut *shared.borrow_mut(), IterState::Done);
                let r = self.iter_next(&mut state);
                *shared.borrow_mut() = state;
                r?
            }
            IterState::Done => None,
        })
    }

    /// All items of an iterable.
    pub(crate) fn items_of(&mut self, v: &Value) -> Res<Vec<Value>> {
        match v {
            Value::List(l) => return Ok(l.borrow().clone()),
            Value::Tuple(t) => return Ok(t.to_vec()),
            _ => {}
        }
        let mut it = self.make_iter(v)?;
        let mut out = Vec::new();
        while let Some(x) = self.iter_next(&mut it)? {
            out.push(x);
            if out.len() % 4096 == 0 {
                self.charge_steps(4096)?;
                self.check_alloc(out.len() as u64 * SLOT_BYTES)?;
            }
        }
        Ok(out)
    }

    /// `(key, value)` pairs of a mapping (for `**kwargs` and `dict(m)`).
    pub(crate) fn dict_items(&mut self, v: &Value) -> Res<Vec<(Value, Value)>> {
        match v {
            Value::Dict(d) => Ok(d.borrow().items()),
            _ => Err(PyErr::type_error(format!(
                "'{}' object is not a mapping",
                v.type_name()
            ))),
        }
    }

    // ------------------------------------------------------------------
    // Display (IPython's last-expression output)

    pub(crate) fn display_value(&mut self, v: &Value) -> Res<()> {
        if let Value::None = v {
            return Ok(());
        }
        let text = match v {
            Value::Class(c) if c.module == "builtins" || c.module.is_empty() => c.name.clone(),
            Value::Class(c) => format!("{}.{}", c.module, c.name),
            Value::Host(o) => match o.display_text() {
                Some(t) => t,
                None => self.repr(v)?,
            },
            _ => self.repr(v)?,
        };
        let mime = match super::super::host_object::core_obj(v) {
            Some(CoreObj::Display { mime, .. }) => mime.clone(),
            _ => Mime::Plain,
        };
        self.check_output(text.len() + 1)?;
        self.write_as(Stream::Display, format!("{text}\n"), mime);
        Ok(())
    }
}
