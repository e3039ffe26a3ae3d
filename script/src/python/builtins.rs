//! Built-in functions and classes (`print`, `len`, `range`, `int`, …).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::dict::Dict;
use super::error::{ExcKind, PyErr, Res};
use super::host_object::{core_obj, CoreObj};
use super::interp::Interp;
use super::ops::{num_f64, num_i64};
use super::value::*;
use crate::Stream;

/// The built-in classes, for `type()` and `isinstance`.
pub struct Types {
    pub object: Rc<Class>,
    pub type_: Rc<Class>,
    pub none: Rc<Class>,
    pub bool_: Rc<Class>,
    pub int: Rc<Class>,
    pub float: Rc<Class>,
    pub str_: Rc<Class>,
    pub list: Rc<Class>,
    pub tuple: Rc<Class>,
    pub dict: Rc<Class>,
    pub set: Rc<Class>,
    pub range: Rc<Class>,
    pub slice: Rc<Class>,
    pub function: Rc<Class>,
    pub builtin_function: Rc<Class>,
    pub method: Rc<Class>,
    pub module: Rc<Class>,
    pub iterator: Rc<Class>,
    pub ndarray: Rc<Class>,
    pub np_dtype: Rc<Class>,
    /// `numpy.float32` etc., by dtype name.
    pub np_scalars: HashMap<String, Rc<Class>>,
    /// Host classes by their qualified name (`tvm.ir.module.IRModule`).
    pub host: HashMap<String, Rc<Class>>,
}

/// Makes a class with a C3-like (depth-first, deduplicated) MRO.
pub fn make_class(
    name: &str,
    module: &str,
    bases: Vec<Rc<Class>>,
    dict: HashMap<String, Value>,
    object: &Rc<Class>,
) -> Rc<Class> {
    let mut mro: Vec<Rc<Class>> = Vec::new();
    for b in &bases {
        for c in std::iter::once(b).chain(b.mro.iter()) {
            if !mro.iter().any(|x| Rc::ptr_eq(x, c)) {
                mro.push(c.clone());
            }
        }
    }
    // `object` goes last.
    mro.retain(|c| !Rc::ptr_eq(c, object));
    if name != "object" {
        mro.push(object.clone());
    }
    let builtin = bases
        .iter()
        .find_map(|b| b.builtin)
        .filter(|b| *b != BuiltinType::Object);
    let dtype = bases.iter().find_map(|b| b.dtype);
    Rc::new(Class {
        name: name.to_string(),
        module: module.to_string(),
        bases,
        mro,
        dict: RefCell::new(dict),
        builtin,
        exc: None,
        dtype,
    })
}

pub(crate) fn builtin_class(
    name: &str,
    module: &str,
    b: BuiltinType,
    base: Option<&Rc<Class>>,
) -> Rc<Class> {
    let mro: Vec<Rc<Class>> = match base {
        Some(base) => std::iter::once(base.clone())
            .chain(base.mro.iter().cloned())
            .collect(),
        None => Vec::new(),
    };
    Rc::new(Class {
        name: name.to_string(),
        module: module.to_string(),
        bases: base.into_iter().cloned().collect(),
        mro,
        dict: RefCell::new(HashMap::new()),
        builtin: Some(b),
        exc: None,
        dtype: None,
    })
}

impl Default for Types {
    fn default() -> Self {
        Self::new()
    }
}

impl Types {
    pub fn new() -> Types {
        let object = builtin_class("object", "builtins", BuiltinType::Object, None);
        let c = |n: &str, b| builtin_class(n, "builtins", b, Some(&object));
        let int = c("int", BuiltinType::Int);
        let bool_ = builtin_class("bool", "builtins", BuiltinType::Bool, Some(&int));
        let generic = builtin_class("generic", "numpy", BuiltinType::NpScalar, Some(&object));
        let mut np_scalars = HashMap::new();
        for name in [
            "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
            "uint32", "uint64", "bool",
        ] {
            let dt = super::numpy::parse_dtype_str(name);
            let cls_name = if name == "bool" { "bool" } else { name };
            let class = Rc::new(Class {
                name: cls_name.to_string(),
                module: "numpy".into(),
                bases: vec![generic.clone()],
                mro: vec![generic.clone(), object.clone()],
                dict: RefCell::new(HashMap::new()),
                builtin: Some(BuiltinType::NpScalar),
                exc: None,
                dtype: dt,
            });
            np_scalars.insert(name.to_string(), class);
        }
        Types {
            type_: c("type", BuiltinType::Type),
            none: c("NoneType", BuiltinType::NoneType),
            bool_,
            float: c("float", BuiltinType::Float),
            str_: c("str", BuiltinType::Str),
            list: c("list", BuiltinType::List),
            tuple: c("tuple", BuiltinType::Tuple),
            dict: c("dict", BuiltinType::Dict),
            set: c("set", BuiltinType::Set),
            range: c("range", BuiltinType::Range),
            slice: c("slice", BuiltinType::Slice),
            function: c("function", BuiltinType::Function),
            builtin_function: c("builtin_function_or_method", BuiltinType::BuiltinFunction),
            method: c("method", BuiltinType::Method),
            module: c("module", BuiltinType::Module),
            iterator: c("iterator", BuiltinType::Iterator),
            ndarray: builtin_class("ndarray", "numpy", BuiltinType::NdArray, Some(&object)),
            np_dtype: builtin_class("dtype", "numpy", BuiltinType::NpDType, Some(&object)),
            np_scalars,
            host: HashMap::new(),
            int,
            object,
        }
    }

    /// A host class by qualified name, created on first use.
    pub fn host_class(&mut self, qualified: &str) -> Rc<Class> {
        if let Some(c) = self.host.get(qualified) {
            return c.clone();
        }
        let (module, name) = qualified.rsplit_once('.').unwrap_or(("", qualified));
        let c = builtin_class(name, module, BuiltinType::Host, Some(&self.object));
        self.host.insert(qualified.to_string(), c.clone());
        c
    }
}

/// The built-in exception classes.
pub fn exception_classes(object: &Rc<Class>) -> HashMap<ExcKind, Rc<Class>> {
    let mut out: HashMap<ExcKind, Rc<Class>> = HashMap::new();
    for kind in ExcKind::ALL {
        let base = match kind.parent() {
            Some(p) => out.get(&p).cloned().unwrap_or_else(|| object.clone()),
            None => object.clone(),
        };
        let mro: Vec<Rc<Class>> = std::iter::once(base.clone())
            .chain(base.mro.iter().cloned())
            .collect();
        out.insert(
            kind,
            Rc::new(Class {
                name: kind.name().to_string(),
                module: kind.module().to_string(),
                bases: vec![base],
                mro,
                dict: RefCell::new(HashMap::new()),
                builtin: Some(BuiltinType::Exception),
                exc: Some(kind),
                dtype: None,
            }),
        );
    }
    out
}

/// The function inside a method wrapper (`staticmethod`, `classmethod`, `property`).
pub fn underlying_function(v: &Value) -> Option<Rc<Function>> {
    match v {
        Value::Func(f) => Some(f.clone()),
        Value::Host(_) => match core_obj(v)? {
            CoreObj::StaticMethod(x) | CoreObj::ClassMethod(x) => underlying_function(x),
            CoreObj::Property { getter, .. } => underlying_function(getter),
            _ => None,
        },
        _ => None,
    }
}

pub fn builtin(name: &str, f: BuiltinFn) -> Value {
    Value::Builtin(Rc::new(Builtin {
        name: name.into(),
        f,
        data: None,
    }))
}

pub fn builtin_with(name: &str, f: BuiltinFn, data: Value) -> Value {
    Value::Builtin(Rc::new(Builtin {
        name: name.into(),
        f,
        data: Some(data),
    }))
}

/// The `builtins` namespace.
pub fn install(it: &mut Interp) {
    let mut b: super::interp::NameMap<&'static str> = Default::default();
    let fns: &[(&'static str, BuiltinFn)] = &[
        ("print", bi_print),
        ("len", bi_len),
        ("repr", bi_repr),
        ("isinstance", bi_isinstance),
        ("issubclass", bi_issubclass),
        ("enumerate", bi_enumerate),
        ("zip", bi_zip),
        ("map", bi_map),
        ("filter", bi_filter),
        ("min", bi_min),
        ("max", bi_max),
        ("sum", bi_sum),
        ("abs", bi_abs),
        ("round", bi_round),
        ("sorted", bi_sorted),
        ("reversed", bi_reversed),
        ("any", bi_any),
        ("all", bi_all),
        ("getattr", bi_getattr),
        ("setattr", bi_setattr),
        ("hasattr", bi_hasattr),
        ("iter", bi_iter),
        ("next", bi_next),
        ("hash", bi_hash),
        ("id", bi_id),
        ("chr", bi_chr),
        ("ord", bi_ord),
        ("divmod", bi_divmod),
        ("pow", bi_pow),
        ("callable", bi_callable),
        ("format", bi_format),
        ("hex", bi_hex),
        ("bin", bi_bin),
        ("oct", bi_oct),
        ("display", bi_display),
        ("super", bi_super),
        ("staticmethod", bi_staticmethod),
        ("classmethod", bi_classmethod),
        ("property", bi_property),
        ("vars", bi_vars),
        ("globals", bi_globals),
        ("locals", bi_globals),
        ("open", bi_sandboxed),
        ("eval", bi_sandboxed),
        ("exec", bi_sandboxed),
        ("compile", bi_sandboxed),
        ("input", bi_sandboxed),
        ("breakpoint", bi_sandboxed),
        ("exit", bi_sandboxed),
        ("quit", bi_sandboxed),
        ("help", bi_help),
        ("__import__", bi_import),
    ];
    for (name, f) in fns {
        b.insert(name, builtin(name, *f));
    }
    let t = &it.types;
    for (name, c) in [
        ("object", &t.object),
        ("type", &t.type_),
        ("bool", &t.bool_),
        ("int", &t.int),
        ("float", &t.float),
        ("str", &t.str_),
        ("list", &t.list),
        ("tuple", &t.tuple),
        ("dict", &t.dict),
        ("set", &t.set),
        ("frozenset", &t.set),
        ("range", &t.range),
        ("slice", &t.slice),
    ] {
        b.insert(name, Value::Class(c.clone()));
    }
    for kind in ExcKind::ALL {
        if kind.module() == "builtins" {
            if let Some(c) = it.exc_classes.get(&kind) {
                b.insert(kind.name(), Value::Class(c.clone()));
            }
        }
    }
    b.insert(
        "NotImplemented",
        Value::Host(Rc::new(CoreObj::NotImplemented)),
    );
    b.insert("Ellipsis", Value::Host(Rc::new(CoreObj::Ellipsis)));
    b.insert("__name__", Value::str("__main__"));
    it.builtins = b;
}

// ----------------------------------------------------------------------------
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
                    Value::Array(arr) => Value::Float(super::numpy::array_item_f64(arr)?),
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
        BuiltinType::NpScalar => super::numpy::construct_scalar(it, cls, a)?,
        BuiltinType::NpDType => match arg0 {
            Some(v) => Value::NpDType(super::numpy::dtype_arg(it, &v)?),
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
            super::fmt::str_repr(s)
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
            super::fmt::str_repr(s)
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
        Value::Array(a) => Value::Int(float_to_int(super::numpy::array_item_f64(a)?)?),
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
                .get(super::numpy::dtype_name(s.dtype))
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

// ----------------------------------------------------------------------------
// Built-in functions

fn bi_print(it: &mut Interp, mut a: Args) -> Res<Value> {
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

fn bi_len(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "len")?;
    Ok(Value::Int(len_of(it, &v)?))
}

fn bi_repr(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "repr")?;
    Ok(Value::str(it.repr(&v)?))
}

fn bi_isinstance(it: &mut Interp, a: Args) -> Res<Value> {
    a.done("isinstance", 2)?;
    match a.pos.as_slice() {
        [v, c] => Ok(Value::Bool(it.isinstance(v, c)?)),
        _ => Err(PyErr::type_error(format!(
            "isinstance expected 2 arguments, got {}",
            a.pos.len()
        ))),
    }
}

fn bi_issubclass(_it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_enumerate(it: &mut Interp, mut a: Args) -> Res<Value> {
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

fn bi_zip(it: &mut Interp, mut a: Args) -> Res<Value> {
    let _ = a.take_kw("strict");
    a.done("zip", usize::MAX)?;
    let mut inners = Vec::new();
    for v in &a.pos {
        inners.push(it.make_iter(v)?);
    }
    Ok(iter_value(IterState::Zip(inners)))
}

fn bi_map(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_filter(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_min(it: &mut Interp, a: Args) -> Res<Value> {
    min_max(it, a, false)
}

fn bi_max(it: &mut Interp, a: Args) -> Res<Value> {
    min_max(it, a, true)
}

fn bi_sum(it: &mut Interp, mut a: Args) -> Res<Value> {
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

fn bi_abs(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "abs")?;
    Ok(match &v {
        Value::Int(i) => Value::Int(i.checked_abs().ok_or_else(PyErr::overflow)?),
        Value::Bool(b) => Value::Int(*b as i64),
        Value::Float(f) => Value::Float(f.abs()),
        Value::Array(_) | Value::NpScalar(_) => super::numpy::ufunc1(it, "absolute", &v)?,
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

fn bi_round(it: &mut Interp, mut a: Args) -> Res<Value> {
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
                let (q, r) = super::ops::int_divmod(*i, p)?;
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
                Some(n) => super::numpy::make_scalar(s.dtype, Num::F(round_float(f, n))),
            }
        }
        (Value::Array(_), _) => {
            let n = nd.unwrap_or(0);
            super::numpy::round_array(it, &v, n)?
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

fn bi_sorted(it: &mut Interp, mut a: Args) -> Res<Value> {
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

fn bi_reversed(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_any(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_all(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_getattr(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_setattr(it: &mut Interp, a: Args) -> Res<Value> {
    match a.pos.as_slice() {
        [o, n, v] => {
            let n = attr_name(n)?;
            it.set_attr(o, &n, v.clone())?;
            Ok(Value::None)
        }
        _ => Err(PyErr::type_error("setattr expected 3 arguments")),
    }
}

fn bi_hasattr(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_iter(it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "iter")?;
    if let Value::Iter(_) = v {
        return Ok(v);
    }
    let s = it.make_iter(&v)?;
    Ok(iter_value(s))
}

fn bi_next(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_hash(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "hash")?;
    use std::hash::{Hash, Hasher};
    let k = super::dict::HKey::of(&v)?;
    if let super::dict::HKey::Int(i) = k {
        return Ok(Value::Int(if i == -1 { -2 } else { i }));
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    k.hash(&mut h);
    Ok(Value::Int((h.finish() >> 1) as i64))
}

fn bi_id(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "id")?;
    Ok(Value::Int(match &v {
        Value::Int(i) => *i,
        other => other.identity().unwrap_or(0) as i64,
    }))
}

fn bi_chr(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "chr")?;
    let i = num_i64(&v).ok_or_else(|| PyErr::type_error("an integer is required"))?;
    let c = u32::try_from(i)
        .ok()
        .and_then(char::from_u32)
        .ok_or_else(|| PyErr::value_error("chr() arg not in range(0x110000)"))?;
    Ok(Value::str(c.to_string()))
}

fn bi_ord(_it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_divmod(it: &mut Interp, a: Args) -> Res<Value> {
    match a.pos.as_slice() {
        [x, y] => {
            if let (Some(a), Some(b)) = (num_i64(x), num_i64(y)) {
                if !matches!(x, Value::NpScalar(_)) && !matches!(y, Value::NpScalar(_)) {
                    let (q, r) = super::ops::int_divmod(a, b)?;
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

fn bi_pow(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_callable(_it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_format(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_hex(_it: &mut Interp, a: Args) -> Res<Value> {
    let i = int_arg(&a, "hex")?;
    Ok(Value::str(if i < 0 {
        format!("-0x{:x}", i.unsigned_abs())
    } else {
        format!("0x{i:x}")
    }))
}

fn bi_bin(_it: &mut Interp, a: Args) -> Res<Value> {
    let i = int_arg(&a, "bin")?;
    Ok(Value::str(if i < 0 {
        format!("-0b{:b}", i.unsigned_abs())
    } else {
        format!("0b{i:b}")
    }))
}

fn bi_oct(_it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_super(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_staticmethod(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "staticmethod")?;
    Ok(Value::Host(Rc::new(CoreObj::StaticMethod(v))))
}

fn bi_classmethod(_it: &mut Interp, a: Args) -> Res<Value> {
    let v = one(&a, "classmethod")?;
    Ok(Value::Host(Rc::new(CoreObj::ClassMethod(v))))
}

fn bi_property(_it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_vars(it: &mut Interp, a: Args) -> Res<Value> {
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

fn bi_globals(it: &mut Interp, _a: Args) -> Res<Value> {
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

fn bi_sandboxed(_it: &mut Interp, _a: Args) -> Res<Value> {
    Err(PyErr::new(
        ExcKind::PermissionError,
        "this function is not available in Tessel's sandbox (no files, no dynamic code, no input)",
    ))
}

fn bi_help(it: &mut Interp, _a: Args) -> Res<Value> {
    it.stdout("help() is not available in Tessel.\n".into());
    Ok(Value::None)
}

fn bi_import(it: &mut Interp, a: Args) -> Res<Value> {
    let v = a
        .pos
        .first()
        .cloned()
        .ok_or_else(|| PyErr::type_error("__import__() missing name"))?;
    let name = attr_name(&v)?;
    it.import_module(&name)
}
