//! `import`: the modules a script may use. Everything is built in; there is
//! no file system, so anything else is a `ModuleNotFoundError`.

use crate::python::builtins::builtin;
use crate::python::error::{ExcKind, PyErr, Res};
use crate::python::host_object::CoreObj;
use crate::python::interp::Interp;
use crate::python::ops::num_f64;
use crate::python::value::*;
use crate::Mime;

/// Modules that exist in Python but not in Tessel's sandbox.
const SANDBOXED: &[&str] = &[
    "os",
    "subprocess",
    "urllib",
    "shutil",
    "socket",
    "requests",
    "pathlib",
    "io",
    "pickle",
    "multiprocessing",
    "threading",
    "ctypes",
    "importlib",
    "tempfile",
    "glob",
    "http",
];

impl Interp {
    /// Imports `name` (dotted), building built-in modules on first use.
    pub(crate) fn import_module(&mut self, name: &str) -> Res<Value> {
        if let Some(m) = self.modules.get(name) {
            return Ok(m.clone());
        }
        let top = name.split('.').next().unwrap_or(name);
        match top {
            // `tvm_ffi` comes with the `tvm` package, as in TVM 0.27.
            "tvm" | "tvm_ffi" => {
                crate::bindings::tvm::install(self);
                crate::bindings::te::install(self);
                crate::bindings::relax::install(self);
                #[cfg(feature = "meta-schedule")]
                crate::bindings::meta_schedule::install(self);
                #[cfg(not(feature = "meta-schedule"))]
                crate::bindings::meta_schedule_names::install_unavailable(self);
            }
            "numpy" => {
                let np = crate::python::numpy::module::make_numpy(self);
                self.modules.insert("numpy".into(), np);
            }
            "IPython" => install_ipython(self),
            "pygments" => crate::pygments::install(self),
            "math" => {
                let m = make_math();
                self.modules.insert("math".into(), m);
            }
            "time" => {
                let m = module(
                    "time",
                    vec![
                        ("time", builtin("time.time", time_time)),
                        ("perf_counter", builtin("time.perf_counter", time_time)),
                        ("monotonic", builtin("time.monotonic", time_time)),
                        ("sleep", builtin("time.sleep", |_, _| Ok(Value::None))),
                    ],
                );
                self.modules.insert("time".into(), m);
            }
            "sys" => {
                let argv = self.new_list(vec![])?;
                let m = module(
                    "sys",
                    vec![
                        ("version", Value::str("3.11.7 (Tessel sandbox)")),
                        ("platform", Value::str("tessel")),
                        ("executable", Value::str("")),
                        ("argv", argv),
                        ("maxsize", Value::Int(i64::MAX)),
                        ("stdout", CoreObj::StdStream(false).value()),
                        ("stderr", CoreObj::StdStream(true).value()),
                    ],
                );
                self.modules.insert("sys".into(), m);
            }
            "collections" => {
                let m = module(
                    "collections",
                    vec![(
                        "defaultdict",
                        builtin("collections.defaultdict", defaultdict),
                    )],
                );
                self.modules.insert("collections".into(), m);
            }
            "__future__" => {
                let m = module("__future__", vec![("annotations", Value::None)]);
                self.modules.insert("__future__".into(), m);
            }
            "typing" => {
                let names = [
                    "List", "Dict", "Tuple", "Optional", "Any", "Union", "Callable", "Sequence",
                ];
                let attrs: Vec<(&str, Value)> = names
                    .iter()
                    .map(|n| (*n, Value::Class(self.types.object.clone())))
                    .collect();
                let m = module("typing", attrs);
                self.modules.insert("typing".into(), m);
            }
            _ => {}
        }
        if let Some(m) = self.modules.get(name) {
            return Ok(m.clone());
        }
        let msg = if SANDBOXED.contains(&top) {
            format!("No module named '{name}' (Tessel's sandbox has no file system, network or processes)")
        } else if self.modules.contains_key(top) {
            format!("No module named '{name}'")
        } else {
            format!("No module named '{name}' (Tessel provides tvm, tvm_ffi, numpy, IPython, pygments, math, time, sys and collections)")
        };
        Err(PyErr::new(ExcKind::ModuleNotFoundError, msg))
    }
}

/// `collections.defaultdict(factory, ...)`: a dict (built from the other
/// arguments as `dict(...)` builds one) whose missing keys get
/// `factory()` on `d[key]`.
fn defaultdict(it: &mut Interp, mut a: Args) -> Res<Value> {
    let factory = if a.pos.is_empty() {
        Value::None
    } else {
        a.pos.remove(0)
    };
    let factory = match factory {
        Value::None => None,
        f if crate::python::builtins::is_callable(&f) => Some(f),
        _ => {
            return Err(PyErr::new(
                ExcKind::TypeError,
                "first argument must be callable or None",
            ))
        }
    };
    let dict_class = Value::Class(it.types.dict.clone());
    let d = it.call(&dict_class, a)?;
    if let Value::Dict(inner) = &d {
        inner.borrow_mut().default_factory = factory;
    }
    Ok(d)
}

fn time_time(it: &mut Interp, _a: Args) -> Res<Value> {
    Ok(Value::Float(it.host.now_seconds()))
}

fn display_obj(kind: &'static str) -> BuiltinFn {
    match kind {
        "Code" => |it, mut a| {
            let data = a.take(0, "data").unwrap_or(Value::str(""));
            let language = match a.take_kw("language") {
                None | Some(Value::None) => None,
                Some(l) => Some(it.str_of(&l)?),
            };
            let _ = a.take_kw("url");
            let _ = a.take_kw("filename");
            let text = it.str_of(&data)?;
            Ok(CoreObj::Display {
                mime: Mime::Code { language },
                text,
            }
            .value())
        },
        "HTML" => |it, mut a| {
            let data = a.take(0, "data").unwrap_or(Value::str(""));
            let text = it.str_of(&data)?;
            Ok(CoreObj::Display {
                mime: Mime::Html,
                text,
            }
            .value())
        },
        _ => |it, mut a| {
            let data = a.take(0, "data").unwrap_or(Value::str(""));
            let text = it.str_of(&data)?;
            Ok(CoreObj::Display {
                mime: Mime::Markdown,
                text,
            }
            .value())
        },
    }
}

fn install_ipython(it: &mut Interp) {
    let display = module(
        "IPython.display",
        vec![
            (
                "display",
                builtin(
                    "IPython.display.display",
                    crate::python::builtins::bi_display,
                ),
            ),
            ("Code", builtin("IPython.display.Code", display_obj("Code"))),
            ("HTML", builtin("IPython.display.HTML", display_obj("HTML"))),
            (
                "Markdown",
                builtin("IPython.display.Markdown", display_obj("Markdown")),
            ),
        ],
    );
    let ipython = module(
        "IPython",
        vec![
            ("display", display.clone()),
            (
                "get_ipython",
                builtin("IPython.get_ipython", |_, _| Ok(Value::None)),
            ),
        ],
    );
    it.modules.insert("IPython".into(), ipython);
    it.modules.insert("IPython.display".into(), display);
}

fn math1(it: &mut Interp, a: Args) -> Res<Value> {
    let name = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    let x = a
        .pos
        .first()
        .and_then(|v| {
            num_f64(v).or_else(|| {
                if let Value::NpScalar(s) = v {
                    Some(s.num.as_f64())
                } else {
                    None
                }
            })
        })
        .ok_or_else(|| PyErr::type_error("must be real number"))?;
    let domain = || PyErr::value_error("math domain error");
    let _ = it;
    Ok(match name.as_str() {
        "sqrt" => {
            if x < 0.0 {
                return Err(domain());
            }
            Value::Float(x.sqrt())
        }
        "exp" => Value::Float(x.exp()),
        "log" => {
            if x <= 0.0 {
                return Err(domain());
            }
            match a.pos.get(1).and_then(num_f64) {
                Some(b) => Value::Float(x.ln() / b.ln()),
                None => Value::Float(x.ln()),
            }
        }
        "log2" => {
            if x <= 0.0 {
                return Err(domain());
            }
            Value::Float(x.log2())
        }
        "log10" => {
            if x <= 0.0 {
                return Err(domain());
            }
            Value::Float(x.log10())
        }
        "floor" => Value::Int(crate::python::builtins::float_to_int(x.floor())?),
        "ceil" => Value::Int(crate::python::builtins::float_to_int(x.ceil())?),
        "trunc" => Value::Int(crate::python::builtins::float_to_int(x.trunc())?),
        "fabs" => Value::Float(x.abs()),
        "sin" => Value::Float(x.sin()),
        "cos" => Value::Float(x.cos()),
        "tan" => Value::Float(x.tan()),
        "tanh" => Value::Float(x.tanh()),
        "erf" => Value::Float(compiler_core::eval::erf(x)),
        "isnan" => Value::Bool(x.is_nan()),
        "isinf" => Value::Bool(x.is_infinite()),
        "isfinite" => Value::Bool(x.is_finite()),
        _ => {
            return Err(PyErr::attribute_error(format!(
                "module 'math' has no attribute '{name}'"
            )))
        }
    })
}

fn math_pow(_it: &mut Interp, a: Args) -> Res<Value> {
    match a.pos.as_slice() {
        [x, y] => Ok(Value::Float(
            num_f64(x)
                .unwrap_or(f64::NAN)
                .powf(num_f64(y).unwrap_or(f64::NAN)),
        )),
        _ => Err(PyErr::type_error("pow expected 2 arguments")),
    }
}

fn math_prod(it: &mut Interp, a: Args) -> Res<Value> {
    let v = a.pos.first().cloned().unwrap_or(Value::None);
    let mut acc = Value::Int(1);
    for x in it.items_of(&v)? {
        acc = it.binary_op(tessel_syntax::ast::BinOp::Mul, acc, x)?;
    }
    Ok(acc)
}

fn math_gcd(_it: &mut Interp, a: Args) -> Res<Value> {
    let mut g: i64 = 0;
    for v in &a.pos {
        let mut x = crate::python::ops::num_i64(v)
            .ok_or_else(|| PyErr::type_error("gcd() takes integers"))?
            .abs();
        let mut y = g;
        while y != 0 {
            let t = x % y;
            x = y;
            y = t;
        }
        g = x;
    }
    Ok(Value::Int(g))
}

fn math_isclose(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = a.req(0, "a", "isclose")?;
    let y = a.req(1, "b", "isclose")?;
    let rel = a
        .take_kw("rel_tol")
        .and_then(|v| num_f64(&v))
        .unwrap_or(1e-9);
    let abs = a
        .take_kw("abs_tol")
        .and_then(|v| num_f64(&v))
        .unwrap_or(0.0);
    let (x, y) = (
        num_f64(&x).unwrap_or(f64::NAN),
        num_f64(&y).unwrap_or(f64::NAN),
    );
    Ok(Value::Bool(
        x == y || (x - y).abs() <= (rel * x.abs().max(y.abs())).max(abs),
    ))
}

fn make_math() -> Value {
    let mut attrs: Vec<(&str, Value)> = vec![
        ("pi", Value::Float(std::f64::consts::PI)),
        ("e", Value::Float(std::f64::consts::E)),
        ("inf", Value::Float(f64::INFINITY)),
        ("nan", Value::Float(f64::NAN)),
        ("pow", builtin("math.pow", math_pow)),
        ("prod", builtin("math.prod", math_prod)),
        ("gcd", builtin("math.gcd", math_gcd)),
        ("isclose", builtin("math.isclose", math_isclose)),
    ];
    for name in [
        "sqrt", "exp", "log", "log2", "log10", "floor", "ceil", "trunc", "fabs", "sin", "cos",
        "tan", "tanh", "erf", "isnan", "isinf", "isfinite",
    ] {
        attrs.push((
            name,
            crate::python::builtins::builtin_with(&format!("math.{name}"), math1, Value::str(name)),
        ));
    }
    module("math", attrs)
}
