//! Attributes, subscripts and the methods of built-in types.

use std::cell::RefCell;
use std::rc::Rc;

use super::dict::Dict;
use super::error::{PyErr, Res};
use super::host_object::{core_obj, CoreObj};
use super::interp::Interp;
use super::ops::num_i64;
use super::value::*;

mod access;
mod collection_methods;
mod str_methods;

use collection_methods::{dict_method, list_method, set_method};
use str_methods::str_method;

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
