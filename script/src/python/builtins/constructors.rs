//! Constructors of the built-in types (`int(...)`, `str(...)`, `list(...)`,
//! …) with their parsing, and `type`/`isinstance` on any value.

use super::*;

// Constructors of built-in types

pub fn construct(it: &mut Interp, cls: &Rc<Class>, mut a: Args) -> Res<Value> {
    let b = cls.builtin.unwrap_or(BuiltinType::Object);
    let arg0 = a.pos.first().cloned();
    Ok(match b {
        BuiltinType::Object => {
            a.done("object", 0)?;
            Value::Host(Rc::new(CoreObj::PlainObject))
        }
        BuiltinType::Type => match (a.pos.len(), arg0) {
            (1, Some(v)) => Value::Class(it.class_of(&v)),
            _ => {
                return Err(PyErr::type_error(
                    "type() takes 1 argument (creating classes with type() is not supported)",
                ))
            }
        },
        BuiltinType::NoneType => Value::None,
        BuiltinType::Bool => match arg0 {
            Some(v) => Value::Bool(it.truthy(&v)?),
            None => Value::Bool(false),
        },
        BuiltinType::Int => {
            let base = a.take(1, "base");
            match (arg0, base) {
                (None, _) => Value::Int(0),
                (Some(Value::Str(s)), base) => {
                    let base = base.as_ref().and_then(num_i64).unwrap_or(10);
                    parse_int(&s, base)?
                }
                (Some(v), _) => to_int(it, &v)?,
            }
        }
        BuiltinType::Float => match arg0 {
            None => Value::Float(0.0),
            Some(Value::Str(s)) => Value::Float(parse_float(&s)?),
            Some(v) => match num_f64(&v) {
                Some(f) => Value::Float(f),
                None => match &v {
                    Value::Array(arr) => Value::Float(super::super::numpy::array_item_f64(arr)?),
                    Value::Instance(_) => {
                        let m = it.get_attr(&v, "__float__")?;
                        it.call(&m, Args::default())?
                    }
                    _ => {
                        return Err(PyErr::type_error(format!(
                            "float() argument must be a string or a real number, not '{}'",
                            v.type_name()
                        )))
                    }
                },
            },
        },
        BuiltinType::Str => match arg0 {
            None => Value::str(""),
            Some(v) => Value::str(it.str_of(&v)?),
        },
        BuiltinType::List => {
            let items = match arg0 {
                Some(v) => it.items_of(&v)?,
                None => Vec::new(),
            };
            it.new_list(items)?
        }
        BuiltinType::Tuple => match arg0 {
            Some(v @ Value::Tuple(_)) => v,
            Some(v) => Value::tuple(it.items_of(&v)?),
            None => Value::tuple(vec![]),
        },
        BuiltinType::Dict => {
            let mut d = Dict::new();
            if let Some(v) = arg0 {
                match &v {
                    Value::Dict(src) => {
                        d = src.borrow().clone();
                        // `dict(a_defaultdict)` is a plain dict.
                        d.default_factory = None;
                    }
                    _ => {
                        for pair in it.items_of(&v)? {
                            let kv = it.items_of(&pair)?;
                            match kv.as_slice() {
                                [k, v] => d.insert(k.clone(), v.clone())?,
                                _ => {
                                    return Err(PyErr::value_error(
                                        "dictionary update sequence element has wrong length",
                                    ))
                                }
                            }
                        }
                    }
                }
            }
            for (k, v) in std::mem::take(&mut a.kw) {
                d.insert(Value::Str(k), v)?;
            }
            it.new_dict(d)
        }
        BuiltinType::Set => {
            let mut d = Dict::new();
            if let Some(v) = arg0 {
                for x in it.items_of(&v)? {
                    d.insert(x, Value::None)?;
                }
            }
            Value::Set(Rc::new(RefCell::new(d)))
        }
        BuiltinType::Range => {
            let ints: Vec<i64> = a
                .pos
                .iter()
                .map(|v| {
                    num_i64(v).ok_or_else(|| {
                        PyErr::type_error(format!(
                            "'{}' object cannot be interpreted as an integer",
                            v.type_name()
                        ))
                    })
                })
                .collect::<Res<_>>()?;
            let (start, stop, step) = match ints.as_slice() {
                [stop] => (0, *stop, 1),
                [start, stop] => (*start, *stop, 1),
                [start, stop, step] => (*start, *stop, *step),
                _ => {
                    return Err(PyErr::type_error(format!(
                        "range expected at most 3 arguments, got {}",
                        ints.len()
                    )))
                }
            };
            if step == 0 {
                return Err(PyErr::value_error("range() arg 3 must not be zero"));
            }
            Value::Range(Rc::new(RangeObj { start, stop, step }))
        }
        BuiltinType::Slice => {
            let p = &a.pos;
            let (start, stop, step) = match p.len() {
                1 => (Value::None, p[0].clone(), Value::None),
                2 => (p[0].clone(), p[1].clone(), Value::None),
                3 => (p[0].clone(), p[1].clone(), p[2].clone()),
                _ => return Err(PyErr::type_error("slice expected 1 to 3 arguments")),
            };
            Value::Slice(Rc::new(SliceObj { start, stop, step }))
        }
        BuiltinType::Exception => {
            let kind = cls.exc.unwrap_or(ExcKind::Exception);
            let _ = kind;
            let mut dict = HashMap::new();
            dict.insert("args".to_string(), Value::tuple(a.pos));
            Value::Instance(Rc::new(Instance {
                class: cls.clone(),
                dict: RefCell::new(dict),
            }))
        }
        BuiltinType::NpScalar => super::super::numpy::construct_scalar(it, cls, a)?,
        BuiltinType::NpDType => match arg0 {
            Some(v) => Value::NpDType(super::super::numpy::dtype_arg(it, &v)?),
            None => return Err(PyErr::type_error("dtype() missing required argument")),
        },
        BuiltinType::NdArray => {
            return Err(PyErr::type_error(
                "create arrays with np.array, np.zeros or np.empty",
            ))
        }
        BuiltinType::Host => it.library.clone().construct(it, cls, a)?,
        other => {
            return Err(PyErr::type_error(format!(
                "cannot create '{}' instances ({other:?})",
                cls.name
            )))
        }
    })
}

fn parse_int(s: &str, base: i64) -> Res<Value> {
    let t = s.trim().replace('_', "");
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r.to_string()),
        None => (false, t.strip_prefix('+').unwrap_or(&t).to_string()),
    };
    let (base, body) = match (base, body.get(..2)) {
        (0 | 16, Some("0x" | "0X")) => (16, body[2..].to_string()),
        (0 | 8, Some("0o" | "0O")) => (8, body[2..].to_string()),
        (0 | 2, Some("0b" | "0B")) => (2, body[2..].to_string()),
        (0, _) => (10, body),
        (b, _) => (b, body),
    };
    if !(2..=36).contains(&base) {
        return Err(PyErr::value_error(
            "int() base must be >= 2 and <= 36, or 0",
        ));
    }
    match i64::from_str_radix(&body, base as u32) {
        Ok(v) => Ok(Value::Int(if neg { -v } else { v })),
        Err(e) if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) => Err(PyErr::overflow()),
        Err(_) => Err(PyErr::value_error(format!(
            "invalid literal for int() with base {base}: {}",
            super::super::fmt::str_repr(s)
        ))),
    }
}

fn parse_float(s: &str) -> Res<f64> {
    let t = s.trim().to_ascii_lowercase().replace('_', "");
    match t.as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => return Ok(f64::INFINITY),
        "-inf" | "-infinity" => return Ok(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => return Ok(f64::NAN),
        _ => {}
    }
    t.parse::<f64>().map_err(|_| {
        PyErr::value_error(format!(
            "could not convert string to float: {}",
            super::super::fmt::str_repr(s)
        ))
    })
}

/// `int(v)` for numbers and numeric objects.
pub fn to_int(it: &mut Interp, v: &Value) -> Res<Value> {
    Ok(match v {
        Value::Int(i) => Value::Int(*i),
        Value::Bool(b) => Value::Int(*b as i64),
        Value::Float(f) => Value::Int(float_to_int(*f)?),
        Value::NpScalar(s) => match s.num {
            Num::I(i) => Value::Int(i),
            Num::F(f) => Value::Int(float_to_int(f)?),
        },
        Value::Array(a) => Value::Int(float_to_int(super::super::numpy::array_item_f64(a)?)?),
        Value::Instance(_) => {
            let m = it.get_attr(v, "__int__")?;
            it.call(&m, Args::default())?
        }
        other => match other.host().and_then(|o| o.to_int()) {
            Some(i) => Value::Int(i),
            None => {
                return Err(PyErr::type_error(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                other.type_name()
            )))
            }
        },
    })
}

pub fn float_to_int(f: f64) -> Res<i64> {
    if f.is_nan() {
        return Err(PyErr::value_error("cannot convert float NaN to integer"));
    }
    if f.is_infinite() {
        return Err(PyErr::new(
            ExcKind::OverflowError,
            "cannot convert float infinity to integer",
        ));
    }
    let t = f.trunc();
    if t.abs() >= 9.223_372_036_854_776e18 {
        return Err(PyErr::overflow());
    }
    Ok(t as i64)
}

impl Interp {
    /// `type(v)`.
    pub(crate) fn class_of(&mut self, v: &Value) -> Rc<Class> {
        let t = &self.types;
        match v {
            Value::None => t.none.clone(),
            Value::Bool(_) => t.bool_.clone(),
            Value::Int(_) => t.int.clone(),
            Value::Float(_) => t.float.clone(),
            Value::Str(_) => t.str_.clone(),
            Value::List(_) => t.list.clone(),
            Value::Tuple(_) => t.tuple.clone(),
            Value::Dict(_) => t.dict.clone(),
            Value::Set(_) => t.set.clone(),
            Value::Range(_) => t.range.clone(),
            Value::Slice(_) => t.slice.clone(),
            Value::Func(_) => t.function.clone(),
            Value::Method(_) => t.method.clone(),
            Value::Builtin(_) | Value::BoundMethod(_) => t.builtin_function.clone(),
            Value::Class(_) => t.type_.clone(),
            Value::Instance(i) => i.class.clone(),
            Value::Module(_) => t.module.clone(),
            Value::Iter(_) => t.iterator.clone(),
            Value::Array(_) => t.ndarray.clone(),
            Value::NpScalar(s) => t
                .np_scalars
                .get(super::super::numpy::dtype_name(s.dtype))
                .cloned()
                .unwrap_or_else(|| t.object.clone()),
            Value::NpDType(_) => t.np_dtype.clone(),
            Value::Host(o) => match o.class_name() {
                Some(name) => self.types.host_class(name),
                None => self.types.object.clone(),
            },
        }
    }

    pub(crate) fn type_of(&mut self, v: &Value) -> Value {
        Value::Class(self.class_of(v))
    }

    pub(crate) fn isinstance(&mut self, v: &Value, cls: &Value) -> Res<bool> {
        match cls {
            Value::Class(c) => {
                // bool is an int; NumPy scalars are what their dtype says.
                let vc = self.class_of(v);
                if vc.is_subclass(c) {
                    return Ok(true);
                }
                if let Value::NpScalar(s) = v {
                    // np.float64 is a float, np.int64 an int in Python's eyes.
                    if Rc::ptr_eq(c, &self.types.float) && s.dtype == tessel_ir::DataType::f64() {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Tuple(items) => {
                for c in items.iter() {
                    if self.isinstance(v, c)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Err(PyErr::type_error(
                "isinstance() arg 2 must be a type, a tuple of types, or a union",
            )),
        }
    }
}
