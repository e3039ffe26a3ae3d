//! Operators: arithmetic, comparison, truthiness and equality.

use super::host_object::{core_obj, CoreObj};
use std::cmp::Ordering;
use std::rc::Rc;

use super::error::{ExcKind, PyErr, Res};
use super::interp::Interp;
use super::value::*;
use tessel_syntax::ast::{BinOp, CmpOp, UnaryOp};

/// Python's float floor division and modulo (`divmod` for floats).
pub fn float_divmod(a: f64, b: f64) -> (f64, f64) {
    let mut m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(b);
    }
    let fd = if div != 0.0 {
        let mut f = div.floor();
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        0.0f64.copysign(a / b)
    };
    (fd, m)
}

/// Python's integer floor division and modulo.
pub fn int_divmod(a: i64, b: i64) -> Res<(i64, i64)> {
    if b == 0 {
        return Err(PyErr::zero_division("integer division or modulo by zero"));
    }
    let q = a.checked_div(b).ok_or_else(PyErr::overflow)?;
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        Ok((q - 1, r + b))
    } else {
        Ok((q, r))
    }
}

/// A number as Python sees it for mixed arithmetic.
#[derive(Clone, Copy)]
enum PyNum {
    I(i64),
    F(f64),
}

fn py_num(v: &Value) -> Option<PyNum> {
    match v {
        Value::Int(i) => Some(PyNum::I(*i)),
        Value::Bool(b) => Some(PyNum::I(*b as i64)),
        Value::Float(f) => Some(PyNum::F(*f)),
        _ => None,
    }
}

fn int_op(op: BinOp, a: i64, b: i64) -> Res<Value> {
    let ovf = PyErr::overflow;
    Ok(match op {
        BinOp::Add => Value::Int(a.checked_add(b).ok_or_else(ovf)?),
        BinOp::Sub => Value::Int(a.checked_sub(b).ok_or_else(ovf)?),
        BinOp::Mul => Value::Int(a.checked_mul(b).ok_or_else(ovf)?),
        BinOp::Div => {
            if b == 0 {
                return Err(PyErr::zero_division("division by zero"));
            }
            Value::Float(a as f64 / b as f64)
        }
        BinOp::FloorDiv => Value::Int(int_divmod(a, b)?.0),
        BinOp::Mod => Value::Int(int_divmod(a, b)?.1),
        BinOp::Pow => {
            if b < 0 {
                if a == 0 {
                    return Err(PyErr::zero_division(
                        "0.0 cannot be raised to a negative power",
                    ));
                }
                Value::Float((a as f64).powf(b as f64))
            } else {
                let e = u32::try_from(b).map_err(|_| PyErr::overflow())?;
                Value::Int(a.checked_pow(e).ok_or_else(ovf)?)
            }
        }
        BinOp::LShift => {
            if b < 0 {
                return Err(PyErr::value_error("negative shift count"));
            }
            if a == 0 {
                Value::Int(0)
            } else {
                let s = u32::try_from(b).map_err(|_| PyErr::overflow())?;
                let r = a.checked_shl(s).ok_or_else(ovf)?;
                if r >> s != a {
                    return Err(PyErr::overflow());
                }
                Value::Int(r)
            }
        }
        BinOp::RShift => {
            if b < 0 {
                return Err(PyErr::value_error("negative shift count"));
            }
            Value::Int(a >> b.min(63))
        }
        BinOp::BitAnd => Value::Int(a & b),
        BinOp::BitOr => Value::Int(a | b),
        BinOp::BitXor => Value::Int(a ^ b),
        BinOp::MatMul => {
            return Err(PyErr::type_error(
                "unsupported operand type(s) for @: 'int' and 'int'",
            ))
        }
    })
}

fn float_op(op: BinOp, a: f64, b: f64) -> Res<Value> {
    Ok(Value::Float(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div => {
            if b == 0.0 {
                return Err(PyErr::zero_division("float division by zero"));
            }
            a / b
        }
        BinOp::FloorDiv => {
            if b == 0.0 {
                return Err(PyErr::zero_division("float floor division by zero"));
            }
            float_divmod(a, b).0
        }
        BinOp::Mod => {
            if b == 0.0 {
                return Err(PyErr::zero_division("float modulo"));
            }
            float_divmod(a, b).1
        }
        BinOp::Pow => {
            if a == 0.0 && b < 0.0 {
                return Err(PyErr::zero_division(
                    "0.0 cannot be raised to a negative power",
                ));
            }
            if a < 0.0 && b.fract() != 0.0 {
                return Err(PyErr::value_error(
                    "a negative number raised to a fractional power is complex; complex numbers are not supported",
                ));
            }
            let r = a.powf(b);
            if r.is_infinite() && a.is_finite() && b.is_finite() {
                return Err(PyErr::new(
                    ExcKind::OverflowError,
                    "(34, 'Numerical result out of range')",
                ));
            }
            r
        }
        _ => {
            return Err(PyErr::type_error(format!(
                "unsupported operand type(s) for {}: 'float' and 'float'",
                op.as_str()
            )))
        }
    }))
}

fn dunder(op: BinOp) -> (&'static str, &'static str) {
    match op {
        BinOp::Add => ("__add__", "__radd__"),
        BinOp::Sub => ("__sub__", "__rsub__"),
        BinOp::Mul => ("__mul__", "__rmul__"),
        BinOp::MatMul => ("__matmul__", "__rmatmul__"),
        BinOp::Div => ("__truediv__", "__rtruediv__"),
        BinOp::FloorDiv => ("__floordiv__", "__rfloordiv__"),
        BinOp::Mod => ("__mod__", "__rmod__"),
        BinOp::Pow => ("__pow__", "__rpow__"),
        BinOp::LShift => ("__lshift__", "__rlshift__"),
        BinOp::RShift => ("__rshift__", "__rrshift__"),
        BinOp::BitOr => ("__or__", "__ror__"),
        BinOp::BitXor => ("__xor__", "__rxor__"),
        BinOp::BitAnd => ("__and__", "__rand__"),
    }
}

impl Interp {
    pub(crate) fn binary_op(&mut self, op: BinOp, l: Value, r: Value) -> Res<Value> {
        if let (Some(a), Some(b)) = (py_num(&l), py_num(&r)) {
            return match (a, b) {
                (PyNum::I(x), PyNum::I(y)) => {
                    if let (Value::Bool(_), Value::Bool(_)) = (&l, &r) {
                        if let BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor = op {
                            if let Value::Int(v) = int_op(op, x, y)? {
                                return Ok(Value::Bool(v != 0));
                            }
                        }
                    }
                    int_op(op, x, y)
                }
                (PyNum::I(x), PyNum::F(y)) => float_op(op, x as f64, y),
                (PyNum::F(x), PyNum::I(y)) => float_op(op, x, y as f64),
                (PyNum::F(x), PyNum::F(y)) => float_op(op, x, y),
            };
        }
        if let (BinOp::Mod, Value::Str(fmt)) = (op, &l) {
            let s = super::fmt::percent_format(self, fmt, &r)?;
            return Ok(Value::str(s));
        }
        match (&l, &r) {
            (Value::Array(_) | Value::NpScalar(_), _)
            | (_, Value::Array(_) | Value::NpScalar(_)) => {
                return super::numpy::binary(self, op, &l, &r)
            }
            _ => {}
        }
        match (op, &l, &r) {
            (BinOp::Add, Value::Str(a), Value::Str(b)) => {
                self.check_alloc((a.len() + b.len()) as u64)?;
                let mut s = String::with_capacity(a.len() + b.len());
                s.push_str(a);
                s.push_str(b);
                return Ok(Value::str(s));
            }
            (BinOp::Mul, Value::Str(s), Value::Int(n))
            | (BinOp::Mul, Value::Int(n), Value::Str(s)) => {
                let n = (*n).max(0) as u64;
                let bytes = n.saturating_mul(s.len() as u64);
                self.check_alloc(bytes)?;
                self.charge_steps(bytes / 64)?;
                return Ok(Value::str(s.repeat(n as usize)));
            }
            (BinOp::Mod, Value::Str(fmt), _) => {
                let s = super::fmt::percent_format(self, fmt, &r)?;
                return Ok(Value::str(s));
            }
            (BinOp::Add, Value::List(a), Value::List(b)) => {
                let mut v = a.borrow().clone();
                v.extend(b.borrow().iter().cloned());
                return self.new_list(v);
            }
            (BinOp::Add, Value::Tuple(a), Value::Tuple(b)) => {
                let mut v = a.to_vec();
                v.extend(b.iter().cloned());
                return Ok(Value::tuple(v));
            }
            (BinOp::Mul, Value::List(_) | Value::Tuple(_), Value::Int(_) | Value::Bool(_))
            | (BinOp::Mul, Value::Int(_) | Value::Bool(_), Value::List(_) | Value::Tuple(_)) => {
                let (seq, n) = match (&l, &r) {
                    (Value::Int(_) | Value::Bool(_), _) => (&r, &l),
                    _ => (&l, &r),
                };
                let n = match n {
                    Value::Int(i) => (*i).max(0) as u64,
                    Value::Bool(b) => *b as u64,
                    _ => 0,
                };
                let items = match seq {
                    Value::List(x) => x.borrow().clone(),
                    Value::Tuple(t) => t.to_vec(),
                    _ => Vec::new(),
                };
                let total = n.saturating_mul(items.len() as u64);
                self.check_alloc(total.saturating_mul(SLOT_BYTES))?;
                self.charge_steps(total / 16)?;
                let mut out = Vec::with_capacity(total as usize);
                for _ in 0..n {
                    out.extend(items.iter().cloned());
                }
                return match seq {
                    Value::List(_) => self.new_list(out),
                    _ => Ok(Value::tuple(out)),
                };
            }
            (BinOp::BitOr, Value::Dict(a), Value::Dict(b)) => {
                let mut d = a.borrow().clone();
                for (k, v) in b.borrow().items() {
                    d.insert(k, v)?;
                }
                return Ok(self.new_dict(d));
            }
            (
                BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor,
                Value::Set(a),
                Value::Set(b),
            ) => {
                let (a, b) = (a.borrow().clone(), b.borrow().clone());
                let mut out = super::dict::Dict::new();
                match op {
                    BinOp::BitOr => {
                        for k in a.keys().into_iter().chain(b.keys()) {
                            out.insert(k, Value::None)?;
                        }
                    }
                    BinOp::BitAnd => {
                        for k in a.keys() {
                            if b.contains(&k)? {
                                out.insert(k, Value::None)?;
                            }
                        }
                    }
                    BinOp::Sub => {
                        for k in a.keys() {
                            if !b.contains(&k)? {
                                out.insert(k, Value::None)?;
                            }
                        }
                    }
                    _ => {
                        for k in a.keys() {
                            if !b.contains(&k)? {
                                out.insert(k, Value::None)?;
                            }
                        }
                        for k in b.keys() {
                            if !a.contains(&k)? {
                                out.insert(k, Value::None)?;
                            }
                        }
                    }
                }
                return Ok(Value::Set(Rc::new(std::cell::RefCell::new(out))));
            }
            _ => {}
        }
        if op == BinOp::Add {
            let seq = |v: &Value| matches!(v, Value::Str(_) | Value::List(_) | Value::Tuple(_));
            if seq(&l) && !matches!(r, Value::Instance(_)) {
                return Err(PyErr::type_error(format!(
                    "can only concatenate {} (not \"{}\") to {}",
                    l.type_name(),
                    r.type_name(),
                    l.type_name()
                )));
            }
        }
        let (name, rname) = dunder(op);
        if let Value::Instance(_) = &l {
            if let Ok(m) = self.get_attr(&l, name) {
                let res = self.call(&m, Args::new(vec![r.clone()]))?;
                if !is_not_implemented(&res) {
                    return Ok(res);
                }
            }
        }
        if let Value::Instance(_) = &r {
            if let Ok(m) = self.get_attr(&r, rname) {
                let res = self.call(&m, Args::new(vec![l.clone()]))?;
                if !is_not_implemented(&res) {
                    return Ok(res);
                }
            }
        }
        if let Some(v) = self.library.clone().binary(self, op, &l, &r)? {
            return Ok(v);
        }
        Err(PyErr::type_error(format!(
            "unsupported operand type(s) for {}: '{}' and '{}'",
            op.as_str(),
            l.type_name(),
            r.type_name()
        )))
    }

    pub(crate) fn unary_op(&mut self, op: UnaryOp, v: Value) -> Res<Value> {
        if let Some(r) = self.library.unary(op, &v)? {
            return Ok(r);
        }
        match (op, &v) {
            (UnaryOp::Not, _) => Ok(Value::Bool(!self.truthy(&v)?)),
            (UnaryOp::Neg, Value::Int(i)) => {
                Ok(Value::Int(i.checked_neg().ok_or_else(PyErr::overflow)?))
            }
            (UnaryOp::Neg, Value::Bool(b)) => Ok(Value::Int(-(*b as i64))),
            (UnaryOp::Neg, Value::Float(f)) => Ok(Value::Float(-f)),
            (UnaryOp::Pos, Value::Int(_) | Value::Float(_)) => Ok(v),
            (UnaryOp::Pos, Value::Bool(b)) => Ok(Value::Int(*b as i64)),
            (UnaryOp::Invert, Value::Int(i)) => Ok(Value::Int(!i)),
            (UnaryOp::Invert, Value::Bool(b)) => Ok(Value::Int(!(*b as i64))),
            (_, Value::Array(_) | Value::NpScalar(_)) => super::numpy::unary(self, op, &v),
            (_, Value::Instance(_)) => {
                let name = match op {
                    UnaryOp::Neg => "__neg__",
                    UnaryOp::Pos => "__pos__",
                    _ => "__invert__",
                };
                let m = self.get_attr(&v, name).map_err(|_| {
                    PyErr::type_error(format!(
                        "bad operand type for unary {}: '{}'",
                        op.as_str(),
                        v.type_name()
                    ))
                })?;
                self.call(&m, Args::default())
            }
            _ => Err(PyErr::type_error(format!(
                "bad operand type for unary {}: '{}'",
                op.as_str(),
                v.type_name()
            ))),
        }
    }

    pub(crate) fn truthy(&mut self, v: &Value) -> Res<bool> {
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            Value::Dict(d) | Value::Set(d) => !d.borrow().is_empty(),
            Value::Range(r) => !r.is_empty(),
            Value::NpScalar(s) => s.num.as_f64() != 0.0,
            Value::Array(a) => super::numpy::array_truthy(a)?,
            Value::Host(_) if self.library.truthy(v).is_some() => {
                return self.library.truthy(v).unwrap_or(Ok(true))
            }
            Value::Instance(_) => {
                if let Ok(m) = self.get_attr(v, "__bool__") {
                    let r = self.call(&m, Args::default())?;
                    return self.truthy(&r);
                }
                if let Ok(m) = self.get_attr(v, "__len__") {
                    let r = self.call(&m, Args::default())?;
                    return self.truthy(&r);
                }
                true
            }
            _ => true,
        })
    }

    pub(crate) fn compare(&mut self, op: CmpOp, l: &Value, r: &Value) -> Res<Value> {
        if let (Value::Int(a), Value::Int(b)) = (l, r) {
            return Ok(Value::Bool(match op {
                CmpOp::Eq => a == b,
                CmpOp::NotEq => a != b,
                CmpOp::Lt => a < b,
                CmpOp::LtE => a <= b,
                CmpOp::Gt => a > b,
                CmpOp::GtE => a >= b,
                CmpOp::Is => a == b,
                CmpOp::IsNot => a != b,
                CmpOp::In | CmpOp::NotIn => {
                    return Err(PyErr::type_error("argument of type 'int' is not iterable"))
                }
            }));
        }
        match op {
            CmpOp::Is => return Ok(Value::Bool(is_same(l, r))),
            CmpOp::IsNot => return Ok(Value::Bool(!is_same(l, r))),
            CmpOp::In => return Ok(Value::Bool(self.contains(r, l)?)),
            CmpOp::NotIn => return Ok(Value::Bool(!self.contains(r, l)?)),
            _ => {}
        }
        if matches!(l, Value::Array(_)) || matches!(r, Value::Array(_)) {
            return super::numpy::compare(self, op, l, r);
        }
        if let Some(v) = self.library.compare(op, l, r)? {
            return Ok(v);
        }
        match op {
            CmpOp::Eq => Ok(Value::Bool(self.values_eq(l, r)?)),
            CmpOp::NotEq => Ok(Value::Bool(!self.values_eq(l, r)?)),
            _ => {
                let ord = self.order(op, l, r)?;
                Ok(Value::Bool(match op {
                    CmpOp::Lt => ord == Ordering::Less,
                    CmpOp::LtE => ord != Ordering::Greater,
                    CmpOp::Gt => ord == Ordering::Greater,
                    _ => ord != Ordering::Less,
                }))
            }
        }
    }

    /// Ordering for `<`-style comparisons (NaN compares as unordered → false).
    fn order(&mut self, op: CmpOp, l: &Value, r: &Value) -> Res<Ordering> {
        if let (Some(a), Some(b)) = (num_f64(l), num_f64(r)) {
            if let (Some(x), Some(y)) = (num_i64(l), num_i64(r)) {
                return Ok(x.cmp(&y));
            }
            return Ok(match a.partial_cmp(&b) {
                Some(o) => o,
                // NaN: every ordered comparison is false.
                None => match op {
                    CmpOp::Lt | CmpOp::LtE => Ordering::Greater,
                    _ => Ordering::Less,
                },
            });
        }
        match (l, r) {
            (Value::Str(a), Value::Str(b)) => Ok(a.cmp(b)),
            (Value::List(_), Value::List(_)) | (Value::Tuple(_), Value::Tuple(_)) => {
                let a = self.items_of(l)?;
                let b = self.items_of(r)?;
                for (x, y) in a.iter().zip(&b) {
                    if !self.values_eq(x, y)? {
                        return self.order(op, x, y);
                    }
                }
                Ok(a.len().cmp(&b.len()))
            }
            (Value::Instance(_), _) | (_, Value::Instance(_)) => {
                let name = match op {
                    CmpOp::Lt => "__lt__",
                    CmpOp::LtE => "__le__",
                    CmpOp::Gt => "__gt__",
                    _ => "__ge__",
                };
                if let Ok(m) = self.get_attr(l, name) {
                    let res = self.call(&m, Args::new(vec![r.clone()]))?;
                    let t = self.truthy(&res)?;
                    return Ok(match op {
                        CmpOp::Lt | CmpOp::Gt if t => {
                            if op == CmpOp::Lt {
                                Ordering::Less
                            } else {
                                Ordering::Greater
                            }
                        }
                        CmpOp::LtE | CmpOp::GtE if t => Ordering::Equal,
                        CmpOp::Lt | CmpOp::LtE => Ordering::Greater,
                        _ => Ordering::Less,
                    });
                }
                Err(cmp_error(op, l, r))
            }
            _ => Err(cmp_error(op, l, r)),
        }
    }

    /// `l < r` for sorting.
    pub(crate) fn less_than(&mut self, l: &Value, r: &Value) -> Res<bool> {
        let v = self.compare(CmpOp::Lt, l, r)?;
        self.truthy(&v)
    }

    pub(crate) fn values_eq(&mut self, l: &Value, r: &Value) -> Res<bool> {
        if let (Some(a), Some(b)) = (num_f64(l), num_f64(r)) {
            if let (Some(x), Some(y)) = (num_i64(l), num_i64(r)) {
                return Ok(x == y);
            }
            return Ok(a == b);
        }
        Ok(match (l, r) {
            (Value::None, Value::None) => true,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(_), Value::List(_)) | (Value::Tuple(_), Value::Tuple(_)) => {
                let a = self.items_of(l)?;
                let b = self.items_of(r)?;
                if a.len() != b.len() {
                    return Ok(false);
                }
                for (x, y) in a.iter().zip(&b) {
                    if !self.values_eq(x, y)? {
                        return Ok(false);
                    }
                }
                true
            }
            (Value::Dict(a), Value::Dict(b)) => {
                let (a, b) = (a.borrow().clone(), b.borrow().clone());
                if a.len() != b.len() {
                    return Ok(false);
                }
                for (k, v) in a.items() {
                    match b.get(&k)? {
                        Some(w) if self.values_eq(&v, &w)? => {}
                        _ => return Ok(false),
                    }
                }
                true
            }
            (Value::Set(a), Value::Set(b)) => {
                let (a, b) = (a.borrow().clone(), b.borrow().clone());
                if a.len() != b.len() {
                    return Ok(false);
                }
                for k in a.keys() {
                    if !b.contains(&k)? {
                        return Ok(false);
                    }
                }
                true
            }
            (Value::Range(a), Value::Range(b)) => {
                a.len() == b.len()
                    && (a.is_empty() || (a.start == b.start && (a.len() == 1 || a.step == b.step)))
            }
            (Value::NpDType(a), Value::NpDType(b)) => a == b,
            (Value::NpDType(d), Value::Str(s)) | (Value::Str(s), Value::NpDType(d)) => {
                super::numpy::parse_dtype_str(s) == Some(*d)
            }
            (Value::NpDType(d), Value::Class(c)) | (Value::Class(c), Value::NpDType(d)) => {
                c.dtype == Some(*d)
            }
            (Value::Instance(_), _) | (_, Value::Instance(_)) => {
                for (a, b) in [(l, r), (r, l)] {
                    if let Value::Instance(i) = a {
                        if let Some(m) = i.class.lookup("__eq__") {
                            let res = self.call(&m, Args::new(vec![a.clone(), b.clone()]))?;
                            if !is_not_implemented(&res) {
                                return self.truthy(&res);
                            }
                        }
                    }
                }
                is_same(l, r)
            }
            (Value::Host(a), Value::Host(b)) => a.equals(&**b).unwrap_or_else(|| is_same(l, r)),
            _ => is_same(l, r),
        })
    }

    pub(crate) fn contains(&mut self, container: &Value, item: &Value) -> Res<bool> {
        match container {
            Value::Str(s) => match item {
                Value::Str(sub) => Ok(s.contains(&**sub)),
                _ => Err(PyErr::type_error(format!(
                    "'in <string>' requires string as left operand, not {}",
                    item.type_name()
                ))),
            },
            Value::Dict(d) | Value::Set(d) => {
                let r = d.borrow().contains(item);
                r
            }
            Value::Range(r) => match num_i64(item) {
                Some(i) => {
                    let n = r.len();
                    if r.step == 0 || n == 0 {
                        return Ok(false);
                    }
                    let off = i.wrapping_sub(r.start);
                    Ok(off % r.step == 0 && (0..n).contains(&(off / r.step)))
                }
                None => Ok(false),
            },
            Value::List(_) | Value::Tuple(_) | Value::Iter(_) => {
                let items = self.items_of(container)?;
                for x in &items {
                    if is_same(x, item) || self.values_eq(x, item)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Instance(_) => {
                let m = self.get_attr(container, "__contains__")?;
                let r = self.call(&m, Args::new(vec![item.clone()]))?;
                self.truthy(&r)
            }
            Value::Host(o) => o.clone().contains(self, item),
            _ => Err(PyErr::type_error(format!(
                "argument of type '{}' is not iterable",
                container.type_name()
            ))),
        }
    }
}

fn cmp_error(op: CmpOp, l: &Value, r: &Value) -> Box<PyErr> {
    PyErr::type_error(format!(
        "'{}' not supported between instances of '{}' and '{}'",
        op.as_str(),
        l.type_name(),
        r.type_name()
    ))
}

pub(crate) fn is_not_implemented(v: &Value) -> bool {
    matches!(core_obj(v), Some(CoreObj::NotImplemented))
}

/// `a is b`.
pub fn is_same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::None, Value::None) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Host(x), Value::Host(y)) => {
            Rc::ptr_eq(x, y)
                || matches!((core_obj(a), core_obj(b)), (Some(p), Some(q)) if p.same_singleton(q))
        }
        _ => match (a.identity(), b.identity()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// The value as an `f64` if it is a real number (Python or NumPy scalar).
pub fn num_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Bool(b) => Some(*b as i64 as f64),
        Value::Float(f) => Some(*f),
        Value::NpScalar(s) => Some(s.num.as_f64()),
        _ => None,
    }
}

/// The value as an `i64` if it is an integer (Python or NumPy, or a bool).
pub fn num_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(*b as i64),
        Value::NpScalar(NpScalar { num: Num::I(i), .. }) => Some(*i),
        _ => None,
    }
}
