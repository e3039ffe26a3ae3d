//! The methods of `list`, `dict` and `set`.

use super::*;

pub(super) fn list_method(it: &mut Interp, l: &Rc<List>, name: &str, mut a: Args) -> Res<Value> {
    let arg0 = a.pos.first().cloned();
    let need = |v: Option<Value>| {
        v.ok_or_else(|| PyErr::type_error(format!("{name}() takes exactly one argument (0 given)")))
    };
    Ok(match name {
        "append" => {
            let v = need(arg0)?;
            l.borrow_mut().push(v);
            let n = l.borrow().len();
            if n.is_power_of_two() || n.is_multiple_of(65536) {
                it.recharge(l)?;
            }
            Value::None
        }
        "extend" => {
            let v = need(arg0)?;
            let items = it.items_of(&v)?;
            l.borrow_mut().extend(items);
            it.recharge(l)?;
            Value::None
        }
        "insert" => {
            let i = int_arg(&a, 0, 0)?;
            let v = a
                .pos
                .get(1)
                .cloned()
                .ok_or_else(|| PyErr::type_error("insert expected 2 arguments"))?;
            let mut items = l.borrow_mut();
            let n = items.len() as i64;
            let j = if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
            items.insert(j, v);
            drop(items);
            it.recharge(l)?;
            Value::None
        }
        "pop" => {
            let mut items = l.borrow_mut();
            if items.is_empty() {
                return Err(PyErr::index_error("pop from empty list"));
            }
            let n = items.len();
            let i = int_arg(&a, 0, -1)?;
            let j = seq_index(i, n, "pop")?;
            let v = items.remove(j);
            drop(items);
            it.recharge(l)?;
            v
        }
        "remove" => {
            let x = need(arg0)?;
            let items = l.borrow().clone();
            for (i, y) in items.iter().enumerate() {
                if it.values_eq(y, &x)? {
                    l.borrow_mut().remove(i);
                    it.recharge(l)?;
                    return Ok(Value::None);
                }
            }
            return Err(PyErr::value_error("list.remove(x): x not in list"));
        }
        "index" | "count" => {
            let items = l.borrow().clone();
            return seq_index_count(it, &items, name, a, "list");
        }
        "sort" => {
            let key = a.take_kw("key");
            let reverse = match a.take_kw("reverse") {
                Some(v) => it.truthy(&v)?,
                None => false,
            };
            a.done("sort", 0)?;
            let mut items = l.borrow().clone();
            super::super::builtins::sort_values(it, &mut items, key.as_ref(), reverse)?;
            *l.borrow_mut() = items;
            Value::None
        }
        "reverse" => {
            l.borrow_mut().reverse();
            Value::None
        }
        "copy" => {
            let items = l.borrow().clone();
            it.new_list(items)?
        }
        "clear" => {
            l.borrow_mut().clear();
            it.recharge(l)?;
            Value::None
        }
        _ => return Err(no_attr(&Value::List(l.clone()), name)),
    })
}

/// `dict_keys([...])`-style views are returned as [`CoreObj::DictView`].
pub(super) fn dict_method(
    it: &mut Interp,
    d: &Rc<RefCell<Dict>>,
    name: &str,
    a: Args,
) -> Res<Value> {
    let arg = |i: usize| a.pos.get(i).cloned();
    Ok(match name {
        "get" => {
            let k = arg(0)
                .ok_or_else(|| PyErr::type_error("get expected at least 1 argument, got 0"))?;
            let r = d.borrow().get(&k)?;
            r.unwrap_or_else(|| arg(1).unwrap_or(Value::None))
        }
        "keys" => CoreObj::DictView("dict_keys", d.borrow().keys()).value(),
        "values" => CoreObj::DictView("dict_values", d.borrow().values()).value(),
        "items" => Value::Host(Rc::new(CoreObj::DictView(
            "dict_items",
            d.borrow()
                .items()
                .into_iter()
                .map(|(k, v)| Value::tuple(vec![k, v]))
                .collect(),
        ))),
        "pop" => {
            let k = arg(0)
                .ok_or_else(|| PyErr::type_error("pop expected at least 1 argument, got 0"))?;
            let r = d.borrow_mut().remove(&k)?;
            match (r, arg(1)) {
                (Some(v), _) => v,
                (None, Some(def)) => def,
                (None, None) => return Err(PyErr::key_error(k)),
            }
        }
        "popitem" => {
            let r = d.borrow_mut().pop_last();
            match r {
                Some((k, v)) => Value::tuple(vec![k, v]),
                None => {
                    return Err(PyErr::key_error(Value::str(
                        "popitem(): dictionary is empty",
                    )))
                }
            }
        }
        "setdefault" => {
            let k = arg(0)
                .ok_or_else(|| PyErr::type_error("setdefault expected at least 1 argument"))?;
            let cur = d.borrow().get(&k)?;
            match cur {
                Some(v) => v,
                None => {
                    let v = arg(1).unwrap_or(Value::None);
                    d.borrow_mut().insert(k, v.clone())?;
                    v
                }
            }
        }
        "update" => {
            if let Some(src) = arg(0) {
                let items = match &src {
                    Value::Dict(s) => s.borrow().items(),
                    other => {
                        let mut out = Vec::new();
                        for pair in it.items_of(other)? {
                            let kv = it.items_of(&pair)?;
                            match kv.as_slice() {
                                [k, v] => out.push((k.clone(), v.clone())),
                                _ => {
                                    return Err(PyErr::value_error(
                                        "dictionary update sequence element has wrong length",
                                    ))
                                }
                            }
                        }
                        out
                    }
                };
                for (k, v) in items {
                    d.borrow_mut().insert(k, v)?;
                }
            }
            for (k, v) in a.kw {
                d.borrow_mut().insert(Value::Str(k), v)?;
            }
            Value::None
        }
        "copy" => {
            let c = d.borrow().clone();
            it.new_dict(c)
        }
        "clear" => {
            d.borrow_mut().clear();
            Value::None
        }
        _ => return Err(no_attr(&Value::Dict(d.clone()), name)),
    })
}

pub(super) fn set_method(
    it: &mut Interp,
    d: &Rc<RefCell<Dict>>,
    name: &str,
    a: Args,
) -> Res<Value> {
    let arg0 = a.pos.first().cloned();
    let others = |it: &mut Interp| -> Res<Vec<Dict>> {
        let mut out = Vec::new();
        for v in &a.pos {
            let mut s = Dict::new();
            for x in it.items_of(v)? {
                s.insert(x, Value::None)?;
            }
            out.push(s);
        }
        Ok(out)
    };
    let new_set = |s: Dict| Value::Set(Rc::new(RefCell::new(s)));
    Ok(match name {
        "add" => {
            let v = arg0.ok_or_else(|| PyErr::type_error("add() takes exactly one argument"))?;
            d.borrow_mut().insert(v, Value::None)?;
            Value::None
        }
        "remove" | "discard" => {
            let v = arg0.ok_or_else(|| PyErr::type_error("remove() takes exactly one argument"))?;
            let r = d.borrow_mut().remove(&v)?;
            if r.is_none() && name == "remove" {
                return Err(PyErr::key_error(v));
            }
            Value::None
        }
        "pop" => match d.borrow_mut().pop_last() {
            Some((k, _)) => k,
            None => return Err(PyErr::key_error(Value::str("pop from an empty set"))),
        },
        "update" => {
            for o in others(it)? {
                for k in o.keys() {
                    d.borrow_mut().insert(k, Value::None)?;
                }
            }
            Value::None
        }
        "union" => {
            let mut s = d.borrow().clone();
            for o in others(it)? {
                for k in o.keys() {
                    s.insert(k, Value::None)?;
                }
            }
            new_set(s)
        }
        "intersection" => {
            let mut s = Dict::new();
            let os = others(it)?;
            for k in d.borrow().keys() {
                let mut all = true;
                for o in &os {
                    if !o.contains(&k)? {
                        all = false;
                    }
                }
                if all {
                    s.insert(k, Value::None)?;
                }
            }
            new_set(s)
        }
        "difference" => {
            let mut s = Dict::new();
            let os = others(it)?;
            for k in d.borrow().keys() {
                let mut any = false;
                for o in &os {
                    if o.contains(&k)? {
                        any = true;
                    }
                }
                if !any {
                    s.insert(k, Value::None)?;
                }
            }
            new_set(s)
        }
        "issubset" | "issuperset" | "isdisjoint" => {
            let os = others(it)?;
            let o = os.into_iter().next().unwrap_or_default();
            let me = d.borrow().clone();
            let (small, big) = if name == "issubset" {
                (&me, &o)
            } else {
                (&o, &me)
            };
            if name == "isdisjoint" {
                let mut none = true;
                for k in me.keys() {
                    if o.contains(&k)? {
                        none = false;
                    }
                }
                Value::Bool(none)
            } else {
                let mut all = true;
                for k in small.keys() {
                    if !big.contains(&k)? {
                        all = false;
                    }
                }
                Value::Bool(all)
            }
        }
        "copy" => new_set(d.borrow().clone()),
        "clear" => {
            d.borrow_mut().clear();
            Value::None
        }
        _ => return Err(no_attr(&Value::Set(d.clone()), name)),
    })
}
