//! Attributes, subscripts and the methods of built-in types.

use std::cell::RefCell;
use std::rc::Rc;

use super::dict::Dict;
use super::error::{PyErr, Res};
use super::host_object::{core_obj, CoreObj};
use super::interp::Interp;
use super::ops::num_i64;
use super::value::*;

const STR_METHODS: &[&str] = &[
    "format",
    "join",
    "split",
    "rsplit",
    "strip",
    "lstrip",
    "rstrip",
    "replace",
    "startswith",
    "endswith",
    "upper",
    "lower",
    "title",
    "capitalize",
    "find",
    "rfind",
    "index",
    "rindex",
    "count",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "isidentifier",
    "isnumeric",
    "isdecimal",
    "splitlines",
    "center",
    "ljust",
    "rjust",
    "zfill",
    "partition",
    "rpartition",
    "casefold",
    "swapcase",
    "removeprefix",
    "removesuffix",
    "expandtabs",
    "encode",
];
const LIST_METHODS: &[&str] = &[
    "append", "extend", "insert", "pop", "remove", "index", "count", "sort", "reverse", "copy",
    "clear",
];
const DICT_METHODS: &[&str] = &[
    "get",
    "keys",
    "values",
    "items",
    "pop",
    "popitem",
    "setdefault",
    "update",
    "copy",
    "clear",
];
const SET_METHODS: &[&str] = &[
    "add",
    "remove",
    "discard",
    "pop",
    "update",
    "union",
    "intersection",
    "difference",
    "copy",
    "clear",
    "issubset",
    "issuperset",
    "isdisjoint",
];
const TUPLE_METHODS: &[&str] = &["index", "count"];

fn has_method(v: &Value, name: &str) -> bool {
    let list: &[&str] = match v {
        Value::Str(_) => STR_METHODS,
        Value::List(_) => LIST_METHODS,
        Value::Dict(_) => DICT_METHODS,
        Value::Set(_) => SET_METHODS,
        Value::Tuple(_) => TUPLE_METHODS,
        Value::Int(_) | Value::Bool(_) => &["bit_length", "conjugate"],
        Value::Float(_) => &["is_integer", "conjugate"],
        _ => &[],
    };
    list.contains(&name)
}

fn no_attr(v: &Value, name: &str) -> Box<PyErr> {
    PyErr::attribute_error(format!(
        "'{}' object has no attribute '{name}'",
        v.type_name()
    ))
}

/// Resolves Python slice bounds against a length: `(start, stop, step)`.
pub fn slice_indices(len: i64, s: &SliceObj) -> Res<(i64, i64, i64)> {
    let get = |v: &Value, what: &str| -> Res<Option<i64>> {
        match v {
            Value::None => Ok(None),
            other => num_i64(other).map(Some).ok_or_else(|| {
                PyErr::type_error(format!(
                    "slice {what} must be integers or None or have an __index__ method"
                ))
            }),
        }
    };
    let step = get(&s.step, "indices")?.unwrap_or(1);
    if step == 0 {
        return Err(PyErr::value_error("slice step cannot be zero"));
    }
    let norm = |x: Option<i64>, default: i64, lo: i64, hi: i64| -> i64 {
        match x {
            None => default,
            Some(i) => {
                let i = if i < 0 { i.saturating_add(len) } else { i };
                i.clamp(lo, hi)
            }
        }
    };
    let (start, stop) = if step > 0 {
        (
            norm(get(&s.start, "indices")?, 0, 0, len),
            norm(get(&s.stop, "indices")?, len, 0, len),
        )
    } else {
        (
            norm(get(&s.start, "indices")?, len - 1, -1, len - 1),
            norm(get(&s.stop, "indices")?, -1, -1, len - 1),
        )
    };
    Ok((start, stop, step))
}

/// The positions a slice selects.
pub fn slice_positions(len: usize, s: &SliceObj) -> Res<Vec<usize>> {
    let (start, stop, step) = slice_indices(len as i64, s)?;
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i as usize);
        i += step;
    }
    Ok(out)
}

fn seq_index(i: i64, len: usize, what: &str) -> Res<usize> {
    let len = len as i64;
    let j = if i < 0 { i + len } else { i };
    if j < 0 || j >= len {
        return Err(PyErr::index_error(format!("{what} index out of range")));
    }
    Ok(j as usize)
}

fn index_of(v: &Value, what: &str) -> Res<i64> {
    num_i64(v).ok_or_else(|| {
        PyErr::type_error(format!(
            "{what} indices must be integers or slices, not {}",
            v.type_name()
        ))
    })
}

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
                super::numpy::get_attr(self, v, name)
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
                            return Ok(super::builtins::builtin_with(
                                "BaseException.__init__",
                                exc_init,
                                obj.clone(),
                            ));
                        }
                    }
                    if name == "__init__" {
                        return Ok(super::builtins::builtin("object.__init__", |_, _| {
                            Ok(Value::None)
                        }));
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
            Value::Array(a) => super::numpy::get_item(self, a, &idx),
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
            Value::Array(a) => super::numpy::set_item(self, a, &idx, &v),
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

fn exc_init(_it: &mut Interp, a: Args) -> Res<Value> {
    if let Some(Value::Instance(i)) = &a.data {
        i.dict
            .borrow_mut()
            .insert("args".into(), Value::tuple(a.pos));
    }
    Ok(Value::None)
}

/// Calls `recv.name(args)` for built-in and host values.
pub fn call_builtin_method(it: &mut Interp, recv: &Value, name: &str, a: Args) -> Res<Value> {
    match recv {
        Value::Str(s) => str_method(it, s, name, a),
        Value::List(l) => list_method(it, l, name, a),
        Value::Dict(d) => dict_method(it, d, name, a),
        Value::Set(d) => set_method(it, d, name, a),
        Value::Tuple(t) => match name {
            "index" | "count" => {
                let items = t.to_vec();
                seq_index_count(it, &items, name, a, "tuple")
            }
            _ => Err(no_attr(recv, name)),
        },
        Value::Int(i) => match name {
            "bit_length" => Ok(Value::Int(64 - i.unsigned_abs().leading_zeros() as i64)),
            "conjugate" => Ok(Value::Int(*i)),
            _ => Err(no_attr(recv, name)),
        },
        Value::Float(f) => match name {
            "is_integer" => Ok(Value::Bool(f.is_finite() && f.fract() == 0.0)),
            "conjugate" => Ok(Value::Float(*f)),
            _ => Err(no_attr(recv, name)),
        },
        Value::Array(_) | Value::NpScalar(_) | Value::NpDType(_) => {
            super::numpy::call_method(it, recv, name, a)
        }
        Value::Host(o) => o.clone().call_method(it, recv, name, a),
        _ => {
            let f = it.get_attr(recv, name)?;
            it.call(&f, a)
        }
    }
}

fn seq_index_count(
    it: &mut Interp,
    items: &[Value],
    name: &str,
    a: Args,
    what: &str,
) -> Res<Value> {
    let x = a
        .pos
        .first()
        .cloned()
        .ok_or_else(|| PyErr::type_error(format!("{name}() takes at least 1 argument")))?;
    if name == "count" {
        let mut n = 0;
        for y in items {
            if it.values_eq(y, &x)? {
                n += 1;
            }
        }
        return Ok(Value::Int(n));
    }
    for (i, y) in items.iter().enumerate() {
        if it.values_eq(y, &x)? {
            return Ok(Value::Int(i as i64));
        }
    }
    let r = it.repr(&x)?;
    Err(PyErr::value_error(if what == "list" {
        format!("{r} is not in list")
    } else {
        "tuple.index(x): x not in tuple".to_string()
    }))
}

fn str_arg(a: &Args, i: usize, func: &str) -> Res<Option<String>> {
    match a.pos.get(i) {
        None | Some(Value::None) => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s.to_string())),
        Some(v) => Err(PyErr::type_error(format!(
            "{func}() argument must be str or None, not {}",
            v.type_name()
        ))),
    }
}

fn int_arg(a: &Args, i: usize, default: i64) -> Res<i64> {
    match a.pos.get(i) {
        None | Some(Value::None) => Ok(default),
        Some(v) => num_i64(v).ok_or_else(|| {
            PyErr::type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                v.type_name()
            ))
        }),
    }
}

fn split_ws(s: &str, maxsplit: i64) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while !rest.is_empty() {
        if maxsplit >= 0 && out.len() as i64 >= maxsplit {
            out.push(rest.to_string());
            return out;
        }
        match rest.find(char::is_whitespace) {
            Some(i) => {
                out.push(rest[..i].to_string());
                rest = rest[i..].trim_start();
            }
            None => {
                out.push(rest.to_string());
                break;
            }
        }
    }
    out
}

fn str_method(it: &mut Interp, s: &Rc<str>, name: &str, mut a: Args) -> Res<Value> {
    let list =
        |it: &mut Interp, v: Vec<String>| it.new_list(v.into_iter().map(Value::str).collect());
    Ok(match name {
        "format" => {
            let out = str_format(it, s, &a)?;
            Value::str(out)
        }
        "join" => {
            let v =
                a.pos.first().cloned().ok_or_else(|| {
                    PyErr::type_error("join() takes exactly one argument (0 given)")
                })?;
            let items = it.items_of(&v)?;
            let mut parts = Vec::with_capacity(items.len());
            for (i, x) in items.iter().enumerate() {
                match x {
                    Value::Str(p) => parts.push(p.to_string()),
                    other => {
                        return Err(PyErr::type_error(format!(
                            "sequence item {i}: expected str instance, {} found",
                            other.type_name()
                        )))
                    }
                }
            }
            let total: usize = parts.iter().map(|p| p.len()).sum::<usize>() + s.len() * parts.len();
            it.check_alloc(total as u64)?;
            Value::str(parts.join(s))
        }
        "split" | "rsplit" => {
            let sep = match a.take(0, "sep") {
                None | Some(Value::None) => None,
                Some(Value::Str(x)) => Some(x.to_string()),
                Some(v) => {
                    return Err(PyErr::type_error(format!(
                        "must be str or None, not {}",
                        v.type_name()
                    )))
                }
            };
            let maxsplit = match a.take(1, "maxsplit") {
                Some(v) => num_i64(&v).unwrap_or(-1),
                None => -1,
            };
            let parts: Vec<String> = match sep {
                None => {
                    if name == "rsplit" && maxsplit >= 0 {
                        let rev: String = s.chars().rev().collect();
                        let mut p: Vec<String> = split_ws(&rev, maxsplit)
                            .into_iter()
                            .map(|x| x.chars().rev().collect())
                            .collect();
                        p.reverse();
                        p
                    } else {
                        split_ws(s, maxsplit)
                    }
                }
                Some(sep) => {
                    if sep.is_empty() {
                        return Err(PyErr::value_error("empty separator"));
                    }
                    if maxsplit < 0 {
                        s.split(sep.as_str()).map(str::to_string).collect()
                    } else if name == "split" {
                        s.splitn(maxsplit as usize + 1, sep.as_str())
                            .map(str::to_string)
                            .collect()
                    } else {
                        let mut p: Vec<String> = s
                            .rsplitn(maxsplit as usize + 1, sep.as_str())
                            .map(str::to_string)
                            .collect();
                        p.reverse();
                        p
                    }
                }
            };
            list(it, parts)?
        }
        "strip" | "lstrip" | "rstrip" => {
            let chars = str_arg(&a, 0, name)?;
            let pred = |c: char| match &chars {
                Some(cs) => cs.contains(c),
                None => c.is_whitespace(),
            };
            Value::str(match name {
                "strip" => s.trim_matches(pred),
                "lstrip" => s.trim_start_matches(pred),
                _ => s.trim_end_matches(pred),
            })
        }
        "replace" => {
            let old = str_arg(&a, 0, name)?.unwrap_or_default();
            let new = str_arg(&a, 1, name)?.unwrap_or_default();
            let count = int_arg(&a, 2, -1)?;
            // Check the result's size before building it.
            let hits = if old.is_empty() {
                s.chars().count() as u64 + 1
            } else {
                s.matches(old.as_str()).count() as u64
            };
            let hits = if count < 0 {
                hits
            } else {
                hits.min(count as u64)
            };
            it.check_alloc((s.len() as u64).saturating_add(hits.saturating_mul(new.len() as u64)))?;
            let out = if count < 0 {
                s.replace(&old, &new)
            } else {
                s.replacen(&old, &new, count as usize)
            };
            it.check_alloc(out.len() as u64)?;
            Value::str(out)
        }
        "startswith" | "endswith" => {
            let pats: Vec<String> = match a.pos.first() {
                Some(Value::Str(p)) => vec![p.to_string()],
                Some(Value::Tuple(t)) => t
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect(),
                _ => {
                    return Err(PyErr::type_error(format!(
                        "{name} first arg must be str or a tuple of str"
                    )))
                }
            };
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len() as i64;
            let norm = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
            let start = norm(int_arg(&a, 1, 0)?);
            let end = norm(int_arg(&a, 2, n)?);
            let sub: String = if start <= end {
                chars[start..end].iter().collect()
            } else {
                String::new()
            };
            Value::Bool(pats.iter().any(|p| {
                if name == "startswith" {
                    sub.starts_with(p.as_str())
                } else {
                    sub.ends_with(p.as_str())
                }
            }))
        }
        "upper" => Value::str(s.to_uppercase()),
        "lower" | "casefold" => Value::str(s.to_lowercase()),
        "swapcase" => Value::str(
            s.chars()
                .map(|c| {
                    if c.is_uppercase() {
                        c.to_lowercase().collect::<String>()
                    } else {
                        c.to_uppercase().collect()
                    }
                })
                .collect::<String>(),
        ),
        "title" => {
            let mut out = String::new();
            let mut prev_alpha = false;
            for c in s.chars() {
                if c.is_alphabetic() {
                    if prev_alpha {
                        out.extend(c.to_lowercase());
                    } else {
                        out.extend(c.to_uppercase());
                    }
                    prev_alpha = true;
                } else {
                    out.push(c);
                    prev_alpha = false;
                }
            }
            Value::str(out)
        }
        "capitalize" => {
            let mut cs = s.chars();
            Value::str(match cs.next() {
                Some(f) => f.to_uppercase().collect::<String>() + &cs.as_str().to_lowercase(),
                None => String::new(),
            })
        }
        "find" | "rfind" | "index" | "rindex" | "count" => {
            let sub = str_arg(&a, 0, name)?.unwrap_or_default();
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len() as i64;
            let norm = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
            let start = norm(int_arg(&a, 1, 0)?);
            let end = norm(int_arg(&a, 2, n)?);
            let hay: String = if start <= end {
                chars[start..end].iter().collect()
            } else {
                String::new()
            };
            let to_char = |byte: usize| hay[..byte].chars().count() as i64 + start as i64;
            match name {
                "count" => Value::Int(if sub.is_empty() {
                    hay.chars().count() as i64 + 1
                } else {
                    hay.matches(sub.as_str()).count() as i64
                }),
                _ => {
                    let found = if name.starts_with('r') {
                        hay.rfind(sub.as_str())
                    } else {
                        hay.find(sub.as_str())
                    };
                    match found {
                        Some(b) => Value::Int(to_char(b)),
                        None if name.ends_with("index") => {
                            return Err(PyErr::value_error("substring not found"))
                        }
                        None => Value::Int(-1),
                    }
                }
            }
        }
        "isdigit" | "isdecimal" | "isnumeric" => Value::Bool(
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_digit() || (name != "isdecimal" && c.is_numeric())),
        ),
        "isalpha" => Value::Bool(!s.is_empty() && s.chars().all(char::is_alphabetic)),
        "isalnum" => Value::Bool(!s.is_empty() && s.chars().all(char::is_alphanumeric)),
        "isspace" => Value::Bool(!s.is_empty() && s.chars().all(char::is_whitespace)),
        "isupper" => {
            Value::Bool(s.chars().any(char::is_uppercase) && !s.chars().any(char::is_lowercase))
        }
        "islower" => {
            Value::Bool(s.chars().any(char::is_lowercase) && !s.chars().any(char::is_uppercase))
        }
        "isidentifier" => Value::Bool(
            s.chars()
                .next()
                .is_some_and(|c| c == '_' || c.is_alphabetic())
                && s.chars().all(|c| c == '_' || c.is_alphanumeric()),
        ),
        "splitlines" => {
            let keep = a.take(0, "keepends").map_or(Ok(false), |v| it.truthy(&v))?;
            let mut out = Vec::new();
            let mut cur = String::new();
            let mut chars = s.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\n' || c == '\r' {
                    let mut end = c.to_string();
                    if c == '\r' && chars.peek() == Some(&'\n') {
                        chars.next();
                        end.push('\n');
                    }
                    if keep {
                        cur.push_str(&end);
                    }
                    out.push(std::mem::take(&mut cur));
                } else {
                    cur.push(c);
                }
            }
            if !cur.is_empty() {
                out.push(cur);
            }
            list(it, out)?
        }
        "center" | "ljust" | "rjust" => {
            let w = int_arg(&a, 0, 0)?.clamp(0, 100_000) as usize;
            let fill = str_arg(&a, 1, name)?
                .and_then(|f| f.chars().next())
                .unwrap_or(' ');
            let n = s.chars().count();
            if n >= w {
                Value::Str(s.clone())
            } else {
                let pad = w - n;
                let f = |k: usize| fill.to_string().repeat(k);
                Value::str(match name {
                    "ljust" => format!("{s}{}", f(pad)),
                    "rjust" => format!("{}{s}", f(pad)),
                    _ => {
                        let left = pad / 2 + (pad & w & 1);
                        format!("{}{s}{}", f(left), f(pad - left))
                    }
                })
            }
        }
        "zfill" => {
            let w = int_arg(&a, 0, 0)?.clamp(0, 100_000) as usize;
            let n = s.chars().count();
            if n >= w {
                Value::Str(s.clone())
            } else {
                let (sign, rest) = match s.chars().next() {
                    Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
                    _ => (String::new(), &s[..]),
                };
                Value::str(format!("{sign}{}{rest}", "0".repeat(w - n)))
            }
        }
        "partition" | "rpartition" => {
            let sep = str_arg(&a, 0, name)?.unwrap_or_default();
            if sep.is_empty() {
                return Err(PyErr::value_error("empty separator"));
            }
            let found = if name == "partition" {
                s.find(sep.as_str())
            } else {
                s.rfind(sep.as_str())
            };
            let parts = match found {
                Some(i) => (
                    s[..i].to_string(),
                    sep.clone(),
                    s[i + sep.len()..].to_string(),
                ),
                None if name == "partition" => (s.to_string(), String::new(), String::new()),
                None => (String::new(), String::new(), s.to_string()),
            };
            Value::tuple(vec![
                Value::str(parts.0),
                Value::str(parts.1),
                Value::str(parts.2),
            ])
        }
        "removeprefix" => {
            let p = str_arg(&a, 0, name)?.unwrap_or_default();
            Value::str(s.strip_prefix(p.as_str()).unwrap_or(s))
        }
        "removesuffix" => {
            let p = str_arg(&a, 0, name)?.unwrap_or_default();
            Value::str(s.strip_suffix(p.as_str()).unwrap_or(s))
        }
        "expandtabs" => {
            let tab = int_arg(&a, 0, 8)?.clamp(0, 1000) as usize;
            it.check_alloc(
                (s.len() as u64).saturating_add(s.matches('\t').count() as u64 * tab as u64),
            )?;
            let mut out = String::new();
            let mut col = 0;
            for c in s.chars() {
                match c {
                    '\t' => {
                        let n = if tab == 0 { 0 } else { tab - col % tab };
                        out.push_str(&" ".repeat(n));
                        col += n;
                    }
                    '\n' | '\r' => {
                        out.push(c);
                        col = 0;
                    }
                    c => {
                        out.push(c);
                        col += 1;
                    }
                }
            }
            Value::str(out)
        }
        "encode" => return Err(PyErr::type_error("bytes are not supported")),
        _ => return Err(no_attr(&Value::Str(s.clone()), name)),
    })
}

/// `str.format(*args, **kwargs)`.
pub fn str_format(it: &mut Interp, fmt: &str, a: &Args) -> Res<String> {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut auto = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' {
            if chars.get(i + 1) == Some(&'{') {
                out.push('{');
                i += 2;
                continue;
            }
            // Find the matching '}' (allowing one level of nesting in the spec).
            let mut depth = 1;
            let mut j = i + 1;
            while j < chars.len() {
                match chars[j] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if j >= chars.len() {
                return Err(PyErr::value_error(
                    "Single '{' encountered in format string",
                ));
            }
            let field: String = chars[i + 1..j].iter().collect();
            i = j + 1;
            // field_name[!conv][:spec]
            let (head, spec) = match field.find(':') {
                Some(p) => (field[..p].to_string(), field[p + 1..].to_string()),
                None => (field.clone(), String::new()),
            };
            let (fname, conv) = match head.find('!') {
                Some(p) => (head[..p].to_string(), head[p + 1..].chars().next()),
                None => (head, None),
            };
            // The first part of the name: index, keyword or auto.
            let split = fname.find(['.', '[']).unwrap_or(fname.len());
            let (first, rest) = fname.split_at(split);
            let mut v = if first.is_empty() {
                let v = a.pos.get(auto).cloned().ok_or_else(|| {
                    PyErr::index_error(format!(
                        "Replacement index {auto} out of range for positional args tuple"
                    ))
                })?;
                auto += 1;
                v
            } else if let Ok(n) = first.parse::<usize>() {
                a.pos.get(n).cloned().ok_or_else(|| {
                    PyErr::index_error(format!(
                        "Replacement index {n} out of range for positional args tuple"
                    ))
                })?
            } else {
                a.kw.iter()
                    .find(|(k, _)| &**k == first)
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| PyErr::key_error(Value::str(first)))?
            };
            // .attr and [key] accessors.
            let mut r = rest;
            while !r.is_empty() {
                if let Some(after) = r.strip_prefix('.') {
                    let end = after.find(['.', '[']).unwrap_or(after.len());
                    v = it.get_attr(&v, &after[..end])?;
                    r = &after[end..];
                } else if let Some(after) = r.strip_prefix('[') {
                    let end = after
                        .find(']')
                        .ok_or_else(|| PyErr::value_error("Missing ']' in format string"))?;
                    let key = &after[..end];
                    let k = match key.parse::<i64>() {
                        Ok(n) => Value::Int(n),
                        Err(_) => Value::str(key),
                    };
                    v = it.get_item(&v, k)?;
                    r = &after[end + 1..];
                } else {
                    break;
                }
            }
            let v = match conv {
                Some('r') | Some('a') => Value::str(it.repr(&v)?),
                Some('s') => Value::str(it.str_of(&v)?),
                _ => v,
            };
            // Nested fields inside the spec.
            let spec = if spec.contains('{') {
                let inner = Args {
                    pos: a.pos[auto.min(a.pos.len())..].to_vec(),
                    kw: a.kw.clone(),
                    data: None,
                };
                let s = str_format(it, &spec, &inner)?;
                if spec.matches('{').count() > 0 && spec.contains("{}") {
                    auto += spec.matches("{}").count();
                }
                s
            } else {
                spec
            };
            out.push_str(&it.format_value(&v, &spec)?);
        } else if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(PyErr::value_error(
                "Single '}' encountered in format string",
            ));
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}

fn list_method(it: &mut Interp, l: &Rc<List>, name: &str, mut a: Args) -> Res<Value> {
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
            super::builtins::sort_values(it, &mut items, key.as_ref(), reverse)?;
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
fn dict_method(it: &mut Interp, d: &Rc<RefCell<Dict>>, name: &str, a: Args) -> Res<Value> {
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

fn set_method(it: &mut Interp, d: &Rc<RefCell<Dict>>, name: &str, a: Args) -> Res<Value> {
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
