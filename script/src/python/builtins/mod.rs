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

mod constructors;
mod functions;

pub use constructors::{construct, float_to_int};
pub(crate) use functions::is_callable;
use functions::{
    bi_abs, bi_all, bi_any, bi_bin, bi_callable, bi_chr, bi_classmethod, bi_divmod, bi_enumerate,
    bi_filter, bi_format, bi_getattr, bi_globals, bi_hasattr, bi_hash, bi_help, bi_hex, bi_id,
    bi_import, bi_isinstance, bi_issubclass, bi_iter, bi_len, bi_map, bi_max, bi_min, bi_next,
    bi_oct, bi_ord, bi_pow, bi_print, bi_property, bi_repr, bi_reversed, bi_round, bi_sandboxed,
    bi_setattr, bi_sorted, bi_staticmethod, bi_sum, bi_super, bi_vars, bi_zip,
};
pub use functions::{bi_display, round_float, sort_values};

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
