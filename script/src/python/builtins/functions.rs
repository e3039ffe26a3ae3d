//! The built-in functions: `print`, `len`, `enumerate`/`zip`/`map`,
//! `min`/`max`/`sum`, `round`, `sorted`, `getattr` and the rest.

use super::*;

// Built-in functions

pub(super) fn bi_print(it: &mut Interp, mut a: Args) -> Res<Value> {
    let sep = match a.take_kw("sep") {
        Some(Value::None) | None => " ".to_string(),
        Some(Value::Str(s)) => s.to_string(),
        Some(v) => {
            return Err(PyErr::type_error(format!(
                "sep must be None or a string, not {}",
                v.type_name()
            )))
        }
    };
    let end = match a.take_kw("end") {
        Some(Value::None) | None => "\n".to_string(),
        Some(Value::Str(s)) => s.to_string(),
        Some(v) => {
            return Err(PyErr::type_error(format!(
                "end must be None or a string, not {}",
                v.type_name()
            )))
        }
    };
    let stream = match a.take_kw("file") {
        Some(v) if matches!(core_obj(&v), Some(CoreObj::StdStream(true))) => Stream::Stderr,
        _ => Stream::Stdout,
    };
    let _ = a.take_kw("flush");
    a.done("print", usize::MAX)?;
    let mut out = String::new();
    for (i, v) in a.pos.iter().enumerate() {
        if i > 0 {
            out.push_str(&sep);
        }
        out.push_str(&it.str_of(v)?);
    }
    out.push_str(&end);
    it.check_output(out.len())?;
    it.write(stream, out);
    Ok(Value::None)
}

pub fn len_of(it: &mut Interp, v: &Value) -> Res<i64> {
    Ok(match v {
        Value::Str(s) => s.chars().count() as i64,
        Value::List(l) => l.borrow().len() as i64,
        Value::Tuple(t) => t.len() as i64,
        Value::Dict(d) | Value::Set(d) => d.borrow().len() as i64,
        Value::Range(r) => r.len(),
        Value::Array(a) => match a.borrow().shape().first() {
            Some(n) => *n as i64,
            None => return Err(PyErr::type_error("len() of unsized object")),
        },
        Value::Instance(_) => {
            let m = it.get_attr(v, "__len__").map_err(|_| {
                PyErr::type_error(format!("object of type '{}' has no len()", v.type_name()))
            })?;
            let r = it.call(&m, Args::default())?;
            num_i64(&r).ok_or_else(|| PyErr::type_error("__len__ should return an int"))?
        }
        Value::Host(o) => match o.length() {
            Some(n) => n,
            None => {
                return Err(PyErr::type_error(format!(
                    "object of type '{}' has no len()",
                    v.type_name()
                )))
            }
        },
        _ => {
            return Err(PyErr::type_error(format!(
                "object of type '{}' has no len()",
                v.type_name()
            )))
        }
    })
}

fn one(a: &Args, func: &str) -> Res<Value> {
    a.done(func, 1)?;
    a.pos
        .first()
        .cloned()
        .ok_or_else(|| PyErr::type_error(format!("{func}() takes exactly one argument (0 given)")))
}

pub(super) fn bi_len(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "len")?;
    Ok(Value::Int(len_of(it, &v)?))
}

pub(super) fn bi_repr(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "repr")?;
    Ok(Value::str(it.repr(&v)?))
}

pub(super) fn bi_isinstance(it: &mut Interp, a: Args) -> Res<Value> {
    a.done("isinstance", 2)?;
    match a.pos.as_slice() {
        [v, c] => Ok(Value::Bool(it.isinstance(v, c)?)),
        _ => Err(PyErr::type_error(format!(
            "isinstance expected 2 arguments, got {}",
            a.pos.len()
        ))),
    }
}

pub(super) fn bi_issubclass(_it: &mut Interp, a: Args) -> Res<Value> {
    match a.pos.as_slice() {
        [Value::Class(c), Value::Class(d)] => Ok(Value::Bool(c.is_subclass(d))),
        [Value::Class(c), Value::Tuple(ds)] => Ok(Value::Bool(
            ds.iter()
                .any(|d| matches!(d, Value::Class(d) if c.is_subclass(d))),
        )),
        _ => Err(PyErr::type_error("issubclass() arg 1 must be a class")),
    }
}

fn iter_value(state: IterState) -> Value {
    Value::Iter(Rc::new(RefCell::new(state)))
}

pub(super) fn bi_enumerate(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "iterable", "enumerate")?;
    let start = match a.take(1, "start") {
        Some(s) => num_i64(&s).ok_or_else(|| PyErr::type_error("'start' must be an integer"))?,
        None => 0,
    };
    let inner = it.make_iter(&v)?;
    Ok(iter_value(IterState::Enumerate {
        inner: Box::new(inner),
        count: start,
    }))
}

pub(super) fn bi_zip(it: &mut Interp, mut a: Args) -> Res<Value> {
    let _ = a.take_kw("strict");
    a.done("zip", usize::MAX)?;
    let mut inners = Vec::new();
    for v in &a.pos {
        inners.push(it.make_iter(v)?);
    }
    Ok(iter_value(IterState::Zip(inners)))
}

pub(super) fn bi_map(it: &mut Interp, a: Args) -> Res<Value> {
    let mut pos = a.pos.into_iter();
    let func = pos
        .next()
        .ok_or_else(|| PyErr::type_error("map() must have at least two arguments."))?;
    let mut inner = Vec::new();
    for v in pos {
        inner.push(it.make_iter(&v)?);
    }
    if inner.is_empty() {
        return Err(PyErr::type_error("map() must have at least two arguments."));
    }
    Ok(iter_value(IterState::Map { func, inner }))
}

pub(super) fn bi_filter(it: &mut Interp, a: Args) -> Res<Value> {
    match a.pos.as_slice() {
        [f, v] => {
            let inner = it.make_iter(v)?;
            Ok(iter_value(IterState::Filter {
                func: f.clone(),
                inner: Box::new(inner),
            }))
        }
        _ => Err(PyErr::type_error("filter expected 2 arguments")),
    }
}

fn min_max(it: &mut Interp, mut a: Args, want_max: bool) -> Res<Value> {
    let name = if want_max { "max" } else { "min" };
    let key = a.take_kw("key");
    let default = a.take_kw("default");
    a.done(name, usize::MAX)?;
    let items = match a.pos.len() {
        0 => {
            return Err(PyErr::type_error(format!(
                "{name} expected at least 1 argument, got 0"
            )))
        }
        1 => {
            let v = a.pos[0].clone();
            it.items_of(&v)?
        }
        _ => a.pos,
    };
    let mut best: Option<(Value, Value)> = None;
    for x in items {
        let k = match &key {
            Some(Value::None) | None => x.clone(),
            Some(f) => it.call(f, Args::new(vec![x.clone()]))?,
        };
        best = match best {
            None => Some((x, k)),
            Some((bx, bk)) => {
                let better = if want_max {
                    it.less_than(&bk, &k)?
                } else {
                    it.less_than(&k, &bk)?
                };
                if better {
                    Some((x, k))
                } else {
                    Some((bx, bk))
                }
            }
        };
    }
    match best {
        Some((x, _)) => Ok(x),
        None => default
            .ok_or_else(|| PyErr::value_error(format!("{name}() iterable argument is empty"))),
    }
}

pub(super) fn bi_min(it: &mut Interp, a: Args) -> Res<Value> {
    min_max(it, a, false)
}

pub(super) fn bi_max(it: &mut Interp, a: Args) -> Res<Value> {
    min_max(it, a, true)
}

pub(super) fn bi_sum(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "iterable", "sum")?;
    let mut acc = a.take(1, "start").unwrap_or(Value::Int(0));
    if let Value::Array(_) = &v {
        // sum(array) adds its rows.
    }
    let items = it.items_of(&v)?;
    for x in items {
        it.tick()?;
        acc = it.binary_op(tessel_syntax::ast::BinOp::Add, acc, x)?;
    }
    Ok(acc)
}

pub(super) fn bi_abs(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "abs")?;
    Ok(match &v {
        Value::Int(i) => Value::Int(i.checked_abs().ok_or_else(PyErr::overflow)?),
        Value::Bool(b) => Value::Int(*b as i64),
        Value::Float(f) => Value::Float(f.abs()),
        Value::Array(_) | Value::NpScalar(_) => super::super::numpy::ufunc1(it, "absolute", &v)?,
        Value::Instance(_) => {
            let m = it.get_attr(&v, "__abs__")?;
            it.call(&m, Args::default())?
        }
        _ => {
            return Err(PyErr::type_error(format!(
                "bad operand type for abs(): '{}'",
                v.type_name()
            )))
        }
    })
}

/// Python's `round(x, n)` for floats: exact decimal rounding, ties to even.
pub fn round_float(x: f64, n: i64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    if n >= 0 {
        let n = n.min(330) as usize;
        format!("{x:.n$}").parse().unwrap_or(x)
    } else {
        let p = 10f64.powi(n.unsigned_abs().min(330) as i32);
        let y = x / p;
        let r = y.round();
        let r = if (y - y.trunc()).abs() == 0.5 {
            2.0 * (y / 2.0).round()
        } else {
            r
        };
        r * p
    }
}

pub(super) fn bi_round(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "number", "round")?;
    let nd = a.take(1, "ndigits");
    let nd = match nd {
        None | Some(Value::None) => None,
        Some(x) => {
            Some(num_i64(&x).ok_or_else(|| PyErr::type_error("ndigits must be an integer"))?)
        }
    };
    Ok(match (&v, nd) {
        (Value::Int(i), None) => Value::Int(*i),
        (Value::Bool(b), None) => Value::Int(*b as i64),
        (Value::Int(i), Some(n)) => {
            if n >= 0 {
                Value::Int(*i)
            } else {
                let p = 10i64
                    .checked_pow(n.unsigned_abs().min(19) as u32)
                    .unwrap_or(i64::MAX);
                let (q, r) = super::super::ops::int_divmod(*i, p)?;
                let twice = r * 2;
                let q = if twice > p || (twice == p && q % 2 != 0) {
                    q + 1
                } else {
                    q
                };
                Value::Int(q.checked_mul(p).ok_or_else(PyErr::overflow)?)
            }
        }
        (Value::Float(f), None) => {
            let r = f.round_ties_even();
            Value::Int(float_to_int(r)?)
        }
        (Value::Float(f), Some(n)) => Value::Float(round_float(*f, n)),
        (Value::NpScalar(s), n) => {
            let f = s.num.as_f64();
            match n {
                None => Value::Int(float_to_int(f.round_ties_even())?),
                Some(n) => super::super::numpy::make_scalar(s.dtype, Num::F(round_float(f, n))),
            }
        }
        (Value::Array(_), _) => {
            let n = nd.unwrap_or(0);
            super::super::numpy::round_array(it, &v, n)?
        }
        _ => {
            return Err(PyErr::type_error(format!(
                "type {} doesn't define __round__ method",
                v.type_name()
            )))
        }
    })
}

/// Sorts values (stable), propagating comparison errors.
pub fn sort_values(
    it: &mut Interp,
    items: &mut Vec<Value>,
    key: Option<&Value>,
    reverse: bool,
) -> Res<()> {
    let keys: Vec<Value> = match key {
        Some(Value::None) | None => items.clone(),
        Some(f) => {
            let mut k = Vec::with_capacity(items.len());
            for x in items.iter() {
                k.push(it.call(f, Args::new(vec![x.clone()]))?);
            }
            k
        }
    };
    it.charge_steps(items.len() as u64)?;
    let mut idx: Vec<usize> = (0..items.len()).collect();
    let mut err: Option<Box<PyErr>> = None;
    // Merge sort on indices so a failing comparison can be reported.
    let mut cmp = |a: usize, b: usize, it: &mut Interp| -> bool {
        if err.is_some() {
            return false;
        }
        let (x, y) = (&keys[a], &keys[b]);
        let r = if reverse {
            it.less_than(x, y)
        } else {
            it.less_than(y, x)
        };
        match r {
            Ok(v) => v,
            Err(e) => {
                err = Some(e);
                false
            }
        }
    };
    // `cmp(a, b)` is true when b must come before a.
    let n = idx.len();
    let mut width = 1;
    let mut buf = vec![0usize; n];
    while width < n {
        let mut i = 0;
        while i < n {
            let mid = (i + width).min(n);
            let end = (i + 2 * width).min(n);
            let (mut l, mut r, mut k) = (i, mid, i);
            while l < mid && r < end {
                if cmp(idx[l], idx[r], it) {
                    buf[k] = idx[r];
                    r += 1;
                } else {
                    buf[k] = idx[l];
                    l += 1;
                }
                k += 1;
            }
            while l < mid {
                buf[k] = idx[l];
                l += 1;
                k += 1;
            }
            while r < end {
                buf[k] = idx[r];
                r += 1;
                k += 1;
            }
            i += 2 * width;
        }
        std::mem::swap(&mut idx, &mut buf);
        width *= 2;
    }
    if let Some(e) = err {
        return Err(e);
    }
    let sorted: Vec<Value> = idx.iter().map(|&i| items[i].clone()).collect();
    *items = sorted;
    Ok(())
}

pub(super) fn bi_sorted(it: &mut Interp, mut a: Args) -> Res<Value> {
    let key = a.take_kw("key");
    let reverse = match a.take_kw("reverse") {
        Some(v) => it.truthy(&v)?,
        None => false,
    };
    let v = one(&a, "sorted")?;
    let mut items = it.items_of(&v)?;
    sort_values(it, &mut items, key.as_ref(), reverse)?;
    it.new_list(items)
}

pub(super) fn bi_reversed(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "reversed")?;
    let mut items = match &v {
        Value::Range(r) => {
            let n = r.len();
            it.check_alloc(n as u64 * SLOT_BYTES)?;
            return Ok(Value::Range(Rc::new(RangeObj {
                start: r.get(n - 1),
                stop: r.start.wrapping_sub(r.step),
                step: r.step.saturating_neg(),
            })))
            .map(|v| {
                if n == 0 {
                    Value::Range(Rc::new(RangeObj {
                        start: 0,
                        stop: 0,
                        step: 1,
                    }))
                } else {
                    v
                }
            });
        }
        _ => it.items_of(&v)?,
    };
    items.reverse();
    Ok(iter_value(IterState::Seq {
        items: items.into(),
        index: 0,
    }))
}

pub(super) fn bi_any(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "any")?;
    let mut s = it.make_iter(&v)?;
    while let Some(x) = it.iter_next(&mut s)? {
        it.tick()?;
        if it.truthy(&x)? {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

pub(super) fn bi_all(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "all")?;
    let mut s = it.make_iter(&v)?;
    while let Some(x) = it.iter_next(&mut s)? {
        it.tick()?;
        if !it.truthy(&x)? {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

fn attr_name(v: &Value) -> Res<String> {
    match v {
        Value::Str(s) => Ok(s.to_string()),
        _ => Err(PyErr::type_error("attribute name must be string")),
    }
}

pub(super) fn bi_getattr(it: &mut Interp, a: Args) -> Res<Value> {
    match a.pos.as_slice() {
        [o, n] => {
            let n = attr_name(n)?;
            it.get_attr(o, &n)
        }
        [o, n, d] => {
            let n = attr_name(n)?;
            match it.get_attr(o, &n) {
                Ok(v) => Ok(v),
                Err(e) if e.lazy_kind() == Some(ExcKind::AttributeError) => Ok(d.clone()),
                Err(e) => Err(e),
            }
        }
        _ => Err(PyErr::type_error("getattr expected 2 or 3 arguments")),
    }
}

pub(super) fn bi_setattr(it: &mut Interp, a: Args) -> Res<Value> {
    match a.pos.as_slice() {
        [o, n, v] => {
            let n = attr_name(n)?;
            it.set_attr(o, &n, v.clone())?;
            Ok(Value::None)
        }
        _ => Err(PyErr::type_error("setattr expected 3 arguments")),
    }
}

pub(super) fn bi_hasattr(it: &mut Interp, a: Args) -> Res<Value> {
    match a.pos.as_slice() {
        [o, n] => {
            let n = attr_name(n)?;
            match it.get_attr(o, &n) {
                Ok(_) => Ok(Value::Bool(true)),
                Err(e) if e.lazy_kind() == Some(ExcKind::AttributeError) => Ok(Value::Bool(false)),
                Err(e) => Err(e),
            }
        }
        _ => Err(PyErr::type_error("hasattr expected 2 arguments")),
    }
}

pub(super) fn bi_iter(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "iter")?;
    if let Value::Iter(_) = v {
        return Ok(v);
    }
    let s = it.make_iter(&v)?;
    Ok(iter_value(s))
}

pub(super) fn bi_next(it: &mut Interp, a: Args) -> Res<Value> {
    let (v, default) = match a.pos.as_slice() {
        [v] => (v.clone(), None),
        [v, d] => (v.clone(), Some(d.clone())),
        _ => return Err(PyErr::type_error("next expected 1 or 2 arguments")),
    };
    let Value::Iter(state) = &v else {
        return Err(PyErr::type_error(format!(
            "'{}' object is not an iterator",
            v.type_name()
        )));
    };
    let mut s = IterState::Shared(state.clone());
    match it.iter_next(&mut s)? {
        Some(x) => Ok(x),
        None => default.ok_or_else(|| PyErr::with_args(ExcKind::StopIteration, vec![])),
    }
}

pub(super) fn bi_hash(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "hash")?;
    use std::hash::{Hash, Hasher};
    let k = super::super::dict::HKey::of(&v)?;
    if let super::super::dict::HKey::Int(i) = k {
        return Ok(Value::Int(if i == -1 { -2 } else { i }));
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    k.hash(&mut h);
    Ok(Value::Int((h.finish() >> 1) as i64))
}

pub(super) fn bi_id(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "id")?;
    Ok(Value::Int(match &v {
        Value::Int(i) => *i,
        other => other.identity().unwrap_or(0) as i64,
    }))
}

pub(super) fn bi_chr(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "chr")?;
    let i = num_i64(&v).ok_or_else(|| PyErr::type_error("an integer is required"))?;
    let c = u32::try_from(i)
        .ok()
        .and_then(char::from_u32)
        .ok_or_else(|| PyErr::value_error("chr() arg not in range(0x110000)"))?;
    Ok(Value::str(c.to_string()))
}

pub(super) fn bi_ord(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "ord")?;
    match &v {
        Value::Str(s) if s.chars().count() == 1 => {
            Ok(Value::Int(s.chars().next().map_or(0, |c| c as i64)))
        }
        Value::Str(s) => Err(PyErr::type_error(format!(
            "ord() expected a character, but string of length {} found",
            s.chars().count()
        ))),
        _ => Err(PyErr::type_error(format!(
            "ord() expected string of length 1, but {} found",
            v.type_name()
        ))),
    }
}

pub(super) fn bi_divmod(it: &mut Interp, a: Args) -> Res<Value> {
    match a.pos.as_slice() {
        [x, y] => {
            if let (Some(a), Some(b)) = (num_i64(x), num_i64(y)) {
                if !matches!(x, Value::NpScalar(_)) && !matches!(y, Value::NpScalar(_)) {
                    let (q, r) = super::super::ops::int_divmod(a, b)?;
                    return Ok(Value::tuple(vec![Value::Int(q), Value::Int(r)]));
                }
            }
            let q = it.binary_op(tessel_syntax::ast::BinOp::FloorDiv, x.clone(), y.clone())?;
            let r = it.binary_op(tessel_syntax::ast::BinOp::Mod, x.clone(), y.clone())?;
            Ok(Value::tuple(vec![q, r]))
        }
        _ => Err(PyErr::type_error("divmod expected 2 arguments")),
    }
}

pub(super) fn bi_pow(it: &mut Interp, a: Args) -> Res<Value> {
    match a.pos.as_slice() {
        [x, y] => it.binary_op(tessel_syntax::ast::BinOp::Pow, x.clone(), y.clone()),
        [x, y, m] => {
            let (Some(b), Some(e), Some(m)) = (num_i64(x), num_i64(y), num_i64(m)) else {
                return Err(PyErr::type_error(
                    "pow() 3rd argument not allowed unless all arguments are integers",
                ));
            };
            if m == 0 {
                return Err(PyErr::value_error("pow() 3rd argument cannot be 0"));
            }
            if e < 0 {
                return Err(PyErr::value_error(
                    "negative exponents with a modulus are not supported",
                ));
            }
            let (mut r, mut b, mut e, m128) =
                (1i128, (b as i128).rem_euclid(m as i128), e, m as i128);
            while e > 0 {
                if e & 1 == 1 {
                    r = (r * b).rem_euclid(m128);
                }
                b = (b * b).rem_euclid(m128);
                e >>= 1;
            }
            let r = if m < 0 && r != 0 { r + m128 } else { r };
            Ok(Value::Int(r as i64))
        }
        _ => Err(PyErr::type_error("pow expected 2 or 3 arguments")),
    }
}

pub(super) fn bi_callable(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "callable")?;
    Ok(Value::Bool(is_callable(&v)))
}

/// Python's `callable(v)`.
pub(crate) fn is_callable(v: &Value) -> bool {
    match v {
        Value::Func(_)
        | Value::Method(_)
        | Value::Builtin(_)
        | Value::BoundMethod(_)
        | Value::Class(_) => true,
        Value::Instance(i) => i.class.lookup("__call__").is_some(),
        Value::Host(o) => o.is_callable(),
        _ => false,
    }
}

pub(super) fn bi_format(it: &mut Interp, a: Args) -> Res<Value> {
    let (v, spec) = match a.pos.as_slice() {
        [v] => (v.clone(), String::new()),
        [v, Value::Str(s)] => (v.clone(), s.to_string()),
        _ => return Err(PyErr::type_error("format expected 1 or 2 arguments")),
    };
    Ok(Value::str(it.format_value(&v, &spec)?))
}

fn int_arg(a: &Args, f: &str) -> Res<i64> {
    let v = one(a, f)?;
    num_i64(&v).ok_or_else(|| {
        PyErr::type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            v.type_name()
        ))
    })
}

pub(super) fn bi_hex(_it: &mut Interp, a: Args) -> Res<Value> {
    let i = int_arg(&a, "hex")?;
    Ok(Value::str(if i < 0 {
        format!("-0x{:x}", i.unsigned_abs())
    } else {
        format!("0x{i:x}")
    }))
}

pub(super) fn bi_bin(_it: &mut Interp, a: Args) -> Res<Value> {
    let i = int_arg(&a, "bin")?;
    Ok(Value::str(if i < 0 {
        format!("-0b{:b}", i.unsigned_abs())
    } else {
        format!("0b{i:b}")
    }))
}

pub(super) fn bi_oct(_it: &mut Interp, a: Args) -> Res<Value> {
    let i = int_arg(&a, "oct")?;
    Ok(Value::str(if i < 0 {
        format!("-0o{:o}", i.unsigned_abs())
    } else {
        format!("0o{i:o}")
    }))
}

/// IPython's `display(*objs)`.
pub fn bi_display(it: &mut Interp, mut a: Args) -> Res<Value> {
    let _ = a.take_kw("clear");
    let _ = a.take_kw("display_id");
    for v in std::mem::take(&mut a.pos) {
        it.display_value(&v)?;
    }
    Ok(Value::None)
}

pub(super) fn bi_super(it: &mut Interp, a: Args) -> Res<Value> {
    let (class, obj) = match a.pos.as_slice() {
        [Value::Class(c), o] => (c.clone(), o.clone()),
        [] => {
            let func = it
                .frame
                .func
                .clone()
                .ok_or_else(|| PyErr::new(ExcKind::RuntimeError, "super(): no arguments"))?;
            let class = func
                .owner
                .borrow()
                .as_ref()
                .and_then(|w| w.upgrade())
                .ok_or_else(|| {
                    PyErr::new(ExcKind::RuntimeError, "super(): __class__ cell not found")
                })?;
            let first = it
                .frame
                .env
                .as_ref()
                .and_then(|e| e.values.borrow().first().cloned().flatten())
                .ok_or_else(|| PyErr::new(ExcKind::RuntimeError, "super(): no arguments"))?;
            (class, first)
        }
        _ => return Err(PyErr::type_error("super() takes a class and an object")),
    };
    Ok(Value::Host(Rc::new(CoreObj::Super { class, obj })))
}

pub(super) fn bi_staticmethod(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "staticmethod")?;
    Ok(Value::Host(Rc::new(CoreObj::StaticMethod(v))))
}

pub(super) fn bi_classmethod(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "classmethod")?;
    Ok(Value::Host(Rc::new(CoreObj::ClassMethod(v))))
}

pub(super) fn bi_property(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = a
        .pos
        .first()
        .cloned()
        .ok_or_else(|| PyErr::type_error("property() needs a getter"))?;
    Ok(Value::Host(Rc::new(CoreObj::Property {
        getter: v,
        setter: RefCell::new(None),
    })))
}

pub(super) fn bi_vars(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "vars")?;
    match &v {
        Value::Instance(i) => {
            let mut d = Dict::new();
            let mut items: Vec<(String, Value)> = i
                .dict
                .borrow()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            tessel_ir::sort::by(&mut items, |a, b| a.0.cmp(&b.0));
            for (k, v) in items {
                d.insert(Value::str(k), v)?;
            }
            Ok(it.new_dict(d))
        }
        _ => Err(PyErr::type_error(
            "vars() argument must have __dict__ attribute",
        )),
    }
}

pub(super) fn bi_globals(it: &mut Interp, _a: Args) -> Res<Value> {
    let mut names: Vec<(String, Value)> = it
        .globals
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    tessel_ir::sort::by(&mut names, |a, b| a.0.cmp(&b.0));
    let mut d = Dict::new();
    for (k, v) in names {
        d.insert(Value::str(k), v)?;
    }
    Ok(it.new_dict(d))
}

pub(super) fn bi_sandboxed(_it: &mut Interp, _a: Args) -> Res<Value> {
    Err(PyErr::new(
        ExcKind::PermissionError,
        "this function is not available in Tessel's sandbox (no files, no dynamic code, no input)",
    ))
}

pub(super) fn bi_help(it: &mut Interp, _a: Args) -> Res<Value> {
    it.stdout("help() is not available in Tessel.\n".into());
    Ok(Value::None)
}

pub(super) fn bi_import(it: &mut Interp, a: Args) -> Res<Value> {
    let v = a
        .pos
        .first()
        .cloned()
        .ok_or_else(|| PyErr::type_error("__import__() missing name"))?;
    let name = attr_name(&v)?;
    it.import_module(&name)
}
