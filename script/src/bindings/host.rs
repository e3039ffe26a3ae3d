//! Host objects: values that are not plain Python data — TVM objects
//! (modules, functions, schedules, tensors, runtime modules), IPython
//! display objects, and the interpreter's own helper objects (`super()`,
//! `staticmethod`, dict views…). Each kind answers attribute access, calls,
//! printing and comparison here; the TVM-specific behaviour is in
//! [`super::tvm`].

use std::cell::RefCell;
use std::rc::Rc;

use super::tvm;
use crate::python::error::{ExcKind, PyErr, Res};
use crate::python::interp::Interp;
use crate::python::value::*;
use crate::Executable;
use compiler_core::schedule::{Rv, Schedule, TraceDialect};
use tessel_ir::printer::Dialect;
use tessel_ir::{IRModule, PrimFunc};
use tessel_syntax::ast::BinOp;

/// A TVM device (`tvm.cpu(0)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device {
    /// `cpu`, `cuda`, `metal`, `vulkan`, `opencl`, `rocm`, `webgpu`.
    pub kind: &'static str,
    pub index: i64,
}

impl Device {
    pub fn cpu() -> Device {
        Device {
            kind: "cpu",
            index: 0,
        }
    }
    /// DLPack device type code.
    pub fn type_code(&self) -> i64 {
        match self.kind {
            "cpu" => 1,
            "cuda" => 2,
            "opencl" => 4,
            "vulkan" => 7,
            "metal" => 8,
            "rocm" => 10,
            "webgpu" => 15,
            _ => 0,
        }
    }
}

/// A schedule and which API created it.
pub struct SchedObj {
    pub sch: Schedule,
    /// The module the schedule was created on (`Schedule` keeps only its
    /// current module): hosts replay the trace on it to show every step.
    pub original: IRModule,
    /// The dialect `sch.mod` prints in.
    pub ir_dialect: Dialect,
    pub id: u64,
}

/// A built runtime module.
pub struct RtModule {
    pub exec: Rc<dyn Executable>,
    pub entry: String,
    pub target: String,
    pub functions: Vec<String>,
    /// Other names functions answer to (a built PrimFunc's global symbol).
    pub aliases: Vec<(String, String)>,
    /// Made by `tvm.compile` (class `tvm.runtime.executable.Executable`).
    pub executable: bool,
}

/// Host-provided objects.
pub enum Obj {
    // ---- interpreter helpers
    Ellipsis,
    NotImplemented,
    PlainObject,
    StaticMethod(Value),
    ClassMethod(Value),
    Property {
        getter: Value,
        setter: RefCell<Option<Value>>,
    },
    Super {
        class: Rc<Class>,
        obj: Value,
    },
    /// `dict.keys()` and friends (a snapshot).
    DictView(&'static str, Vec<Value>),
    /// `sys.stdout` (false) / `sys.stderr` (true).
    StdStream(bool),
    /// IPython rich-display objects (`Code`, `HTML`, `Markdown`).
    Display {
        kind: &'static str,
        text: String,
    },

    // ---- TVM
    IRModule {
        module: RefCell<IRModule>,
        dialect: Dialect,
    },
    PrimFunc {
        func: Rc<PrimFunc>,
        dialect: Dialect,
    },
    GlobalVar(String),
    /// A function's attribute dictionary.
    Attrs(Vec<(String, Value)>),
    Schedule(RefCell<SchedObj>),
    /// A block, loop or sampled-value handle of a schedule.
    Rv {
        rv: Rv,
        dialect: TraceDialect,
        sched: u64,
    },
    Trace {
        text: String,
    },
    /// A printed IR fragment (`sch.get(block)`).
    IRText {
        text: String,
        class: &'static str,
    },
    Tensor {
        data: Rc<ArrayObj>,
        device: Device,
    },
    Device(Device),
    Target {
        kind: String,
        text: String,
    },
    RtModule(Rc<RtModule>),
    PackedFunc {
        module: Rc<RtModule>,
        name: String,
    },
    TimeEvaluator {
        module: Rc<RtModule>,
        name: String,
        number: u64,
        repeat: u64,
    },
    BenchmarkResult(Vec<f64>),
    /// Tensor expressions (`tvm.te`): see [`super::te`].
    Te(super::te::TeObj),
    /// Graph-layer objects (`tvm.relax`), handled in [`super::relax`].
    Relax(super::relax::RObj),
}

impl Obj {
    pub fn type_name(&self) -> &'static str {
        match self.class_name() {
            Some(n) => n.rsplit('.').next().unwrap_or(n),
            None => "object",
        }
    }

    /// The qualified class name `type()` reports.
    pub fn class_name(&self) -> Option<&'static str> {
        Some(match self {
            Obj::Ellipsis => "builtins.ellipsis",
            Obj::NotImplemented => "builtins.NotImplementedType",
            Obj::PlainObject => "builtins.object",
            Obj::StaticMethod(_) => "builtins.staticmethod",
            Obj::ClassMethod(_) => "builtins.classmethod",
            Obj::Property { .. } => "builtins.property",
            Obj::Super { .. } => "builtins.super",
            Obj::DictView(k, _) => match *k {
                "dict_keys" => "builtins.dict_keys",
                "dict_values" => "builtins.dict_values",
                _ => "builtins.dict_items",
            },
            Obj::StdStream(_) => "_io.TextIOWrapper",
            Obj::Display { kind, .. } => match *kind {
                "Code" => "IPython.core.display.Code",
                "HTML" => "IPython.core.display.HTML",
                _ => "IPython.core.display.Markdown",
            },
            Obj::IRModule { .. } => "tvm.ir.module.IRModule",
            // TVM 0.27's class, whichever dialect the function was written in.
            Obj::PrimFunc { .. } => "tvm.tirx.function.PrimFunc",
            Obj::GlobalVar(_) => "tvm.ir.expr.GlobalVar",
            Obj::Attrs(_) => "tvm.ir.attrs.DictAttrs",
            Obj::Schedule(s) => match s.borrow().sch.dialect {
                TraceDialect::STir => "tvm.s_tir.schedule.schedule.Schedule",
                TraceDialect::Tir => "tvm.tir.schedule.schedule.Schedule",
            },
            Obj::Rv { rv, dialect, .. } => match (rv, dialect) {
                (Rv::Block(_), TraceDialect::STir) => "tvm.s_tir.schedule.schedule.SBlockRV",
                (Rv::Block(_), TraceDialect::Tir) => "tvm.tir.schedule.schedule.BlockRV",
                (Rv::Loop(_), TraceDialect::STir) => "tvm.s_tir.schedule.schedule.LoopRV",
                (Rv::Loop(_), TraceDialect::Tir) => "tvm.tir.schedule.schedule.LoopRV",
                (Rv::Expr(_), _) => "tvm.ir.expr.Var",
            },
            Obj::Trace { .. } => "tvm.s_tir.schedule.trace.Trace",
            Obj::IRText { class, .. } => class,
            Obj::Tensor { .. } => "tvm.runtime._tensor.Tensor",
            Obj::Device(_) => "tvm_ffi.core.Device",
            Obj::Target { .. } => "tvm.target.target.Target",
            Obj::RtModule(m) if m.executable => "tvm.runtime.executable.Executable",
            Obj::RtModule(_) => "tvm.runtime.module.Module",
            Obj::PackedFunc { .. } => "tvm_ffi.core.Function",
            Obj::TimeEvaluator { .. } => "tvm_ffi.core.Function",
            Obj::BenchmarkResult(_) => "tvm.runtime.module.BenchmarkResult",
            Obj::Te(t) => super::te::class_name(t),
            Obj::Relax(r) => r.class_name(),
        })
    }

    /// Objects whose attributes may hold Python functions (looked up generically).
    pub fn is_user_like(&self) -> bool {
        matches!(self, Obj::Super { .. })
    }

    pub fn is_callable(&self) -> bool {
        matches!(
            self,
            Obj::StaticMethod(_)
                | Obj::ClassMethod(_)
                | Obj::RtModule(_)
                | Obj::PackedFunc { .. }
                | Obj::TimeEvaluator { .. }
                | Obj::Te(super::te::TeObj::Tensor(_))
        ) || matches!(self, Obj::Relax(r) if r.is_callable())
    }

    /// What IPython shows for the object as a cell's last expression, when
    /// it differs from `repr`.
    pub fn display_text(&self) -> Option<String> {
        match self {
            Obj::Display { text, .. } => Some(text.trim_end_matches('\n').to_string()),
            _ => None,
        }
    }

    /// Value identity for hashing (`GlobalVar`s are equal by name).
    pub fn hash_name(&self) -> Option<(&'static str, String)> {
        match self {
            Obj::GlobalVar(n) => Some(("GlobalVar", n.clone())),
            // `tvm.ir.Op.get("relax.add")` as a dict key (the book's op maps).
            Obj::Relax(super::relax::RObj::OpRef(n)) => Some(("Op", n.clone())),
            Obj::Device(d) => Some(("Device", format!("{}:{}", d.kind, d.index))),
            Obj::Ellipsis => Some(("Ellipsis", String::new())),
            Obj::NotImplemented => Some(("NotImplemented", String::new())),
            _ => None,
        }
    }
}

pub fn host_same(a: &Obj, b: &Obj) -> bool {
    matches!(
        (a, b),
        (Obj::Ellipsis, Obj::Ellipsis) | (Obj::NotImplemented, Obj::NotImplemented)
    )
}

pub fn host_eq(a: &Obj, b: &Obj) -> Option<bool> {
    Some(match (a, b) {
        (Obj::GlobalVar(x), Obj::GlobalVar(y)) => x == y,
        (Obj::Device(x), Obj::Device(y)) => x == y,
        (
            Obj::Rv {
                rv: x, sched: s, ..
            },
            Obj::Rv {
                rv: y, sched: t, ..
            },
        ) => x == y && s == t,
        (Obj::Ellipsis, Obj::Ellipsis) | (Obj::NotImplemented, Obj::NotImplemented) => true,
        (Obj::Relax(x), Obj::Relax(y)) => return x.eq(y),
        _ => return None,
    })
}

/// Items when iterating a host object.
pub fn host_iter(it: &mut Interp, o: &Rc<Obj>) -> Res<Option<Vec<Value>>> {
    Ok(match &**o {
        Obj::DictView(_, items) => Some(items.clone()),
        Obj::IRModule { module, .. } => Some(
            module
                .borrow()
                .functions
                .iter()
                .map(|(n, _)| Value::Host(Rc::new(Obj::GlobalVar(n.clone()))))
                .collect(),
        ),
        Obj::Attrs(items) => Some(items.iter().map(|(k, _)| Value::str(k.as_str())).collect()),
        Obj::Tensor { data, .. } => {
            let v = Value::Array(data.clone());
            let mut out = Vec::new();
            let mut s = it.make_iter(&v)?;
            while let Some(x) = it.iter_next(&mut s)? {
                out.push(x);
            }
            Some(out)
        }
        _ => None,
    })
}

pub fn host_len(o: &Obj) -> Option<i64> {
    Some(match o {
        Obj::DictView(_, items) => items.len() as i64,
        Obj::IRModule { module, .. } => module.borrow().functions.len() as i64,
        Obj::Attrs(items) => items.len() as i64,
        Obj::Tensor { data, .. } => *data.borrow().shape().first()? as i64,
        _ => return None,
    })
}

pub fn host_contains(it: &mut Interp, o: &Rc<Obj>, item: &Value) -> Res<bool> {
    match &**o {
        Obj::DictView(_, items) => {
            for x in items.clone() {
                if it.values_eq(&x, item)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Obj::IRModule { module, .. } => {
            let name = tvm::func_name_arg(item)?;
            Ok(module.borrow().get(&name).is_some())
        }
        Obj::Attrs(items) => Ok(items.iter().any(|(k, _)| Some(k.as_str()) == item.as_str())),
        _ => Err(PyErr::type_error(format!(
            "argument of type '{}' is not iterable",
            o.type_name()
        ))),
    }
}

/// A host value as a float (`float(result.mean)` works on plain floats anyway).
pub fn host_float(v: &Value) -> Option<f64> {
    let _ = v;
    None
}

pub fn host_int(v: &Value) -> Option<i64> {
    match v {
        Value::Host(o) => match &**o {
            Obj::Device(d) => Some(d.index),
            Obj::Te(t) => super::te::const_int(t),
            _ => None,
        },
        _ => None,
    }
}

/// The array inside a TVM tensor (for NumPy functions given a tensor).
pub fn host_array(v: &Value) -> Option<compiler_core::eval::NDArray> {
    match v {
        Value::Host(o) => match &**o {
            Obj::Tensor { data, .. } => Some(data.borrow().clone()),
            _ => None,
        },
        _ => None,
    }
}

pub fn host_binary(it: &mut Interp, op: BinOp, l: &Value, r: &Value) -> Res<Option<Value>> {
    let _ = it;
    super::te::binary(op, l, r)
}

pub fn host_str(it: &mut Interp, o: &Rc<Obj>) -> Res<Option<String>> {
    Ok(Some(match &**o {
        Obj::Tensor { data, .. } => crate::python::numpy::array_str(&data.borrow()),
        Obj::Device(d) => format!("{}:{}", d.kind, d.index),
        Obj::BenchmarkResult(r) => tvm::benchmark_str(r),
        Obj::Display { text, .. } => text.clone(),
        _ => return host_repr(it, o).map(Some),
    }))
}

pub fn host_repr(it: &mut Interp, o: &Rc<Obj>) -> Res<String> {
    Ok(match &**o {
        Obj::Ellipsis => "Ellipsis".into(),
        Obj::NotImplemented => "NotImplemented".into(),
        Obj::PlainObject => "<object object>".into(),
        Obj::StaticMethod(_) => "<staticmethod object>".into(),
        Obj::ClassMethod(_) => "<classmethod object>".into(),
        Obj::Property { .. } => "<property object>".into(),
        Obj::Super { class, .. } => {
            format!("<super: <class '{}'>, <{} object>>", class.name, class.name)
        }
        Obj::DictView(kind, items) => {
            let items = items.clone();
            let inner = it.repr(&Value::List(Rc::new(List {
                items: RefCell::new(items),
                charge: Charge::new(&it.mem),
            })))?;
            format!("{kind}({inner})")
        }
        Obj::StdStream(err) => {
            if *err {
                "<_io.TextIOWrapper name='<stderr>' mode='w' encoding='utf-8'>".into()
            } else {
                "<_io.TextIOWrapper name='<stdout>' mode='w' encoding='utf-8'>".into()
            }
        }
        Obj::Display { kind, .. } => format!("<IPython.core.display.{kind} object>"),
        Obj::Attrs(items) => tvm::attrs_text(it, items)?,
        Obj::Te(t) => super::te::repr(t),
        Obj::Relax(r) => r.repr(),
        other => tvm::repr(other),
    })
}

pub fn call_host(it: &mut Interp, o: &Rc<Obj>, args: Args) -> Res<Value> {
    match &**o {
        Obj::StaticMethod(f) => {
            let f = f.clone();
            it.call(&f, args)
        }
        Obj::RtModule(m) => {
            let m = m.clone();
            let entry = m.entry.clone();
            tvm::call_packed(it, &m, &entry, args)
        }
        Obj::PackedFunc { module, name } => {
            let (m, n) = (module.clone(), name.clone());
            tvm::call_packed(it, &m, &n, args)
        }
        Obj::TimeEvaluator {
            module,
            name,
            number,
            repeat,
        } => {
            let (m, n) = (module.clone(), name.clone());
            tvm::time_evaluate(it, &m, &n, *number, *repeat, args)
        }
        Obj::Te(t) => super::te::call(it, t, args),
        Obj::Relax(r) => super::relax::call(it, r, args),
        _ => Err(PyErr::type_error(format!(
            "'{}' object is not callable",
            o.type_name()
        ))),
    }
}

pub fn get_attr(it: &mut Interp, o: &Rc<Obj>, v: &Value, name: &str) -> Res<Value> {
    match &**o {
        Obj::Display { text, .. } if name == "data" => Ok(Value::str(text.as_str())),
        Obj::Property { getter, .. } => match name {
            "setter" => Ok(Value::BoundMethod(Rc::new((v.clone(), name.into())))),
            "fget" => Ok(getter.clone()),
            _ => Err(PyErr::attribute_error(format!(
                "'property' object has no attribute '{name}'"
            ))),
        },
        Obj::DictView(..) | Obj::StdStream(_) | Obj::Display { .. } | Obj::PlainObject => {
            if matches!(&**o, Obj::StdStream(_)) && matches!(name, "write" | "flush") {
                return Ok(Value::BoundMethod(Rc::new((v.clone(), name.into()))));
            }
            Err(PyErr::attribute_error(format!(
                "'{}' object has no attribute '{name}'",
                o.type_name()
            )))
        }
        Obj::Te(t) => super::te::get_attr(it, t, v, name),
        Obj::Relax(r) => super::relax::get_attr(it, r, v, name),
        _ => tvm::get_attr(it, o, v, name),
    }
}

pub fn set_attr(it: &mut Interp, o: &Rc<Obj>, name: &str, v: Value) -> Res<()> {
    let _ = it;
    match &**o {
        Obj::Property { setter, .. } if name == "setter" => {
            *setter.borrow_mut() = Some(v);
            Ok(())
        }
        _ => Err(PyErr::attribute_error(format!(
            "'{}' object attribute '{name}' is read-only",
            o.type_name()
        ))),
    }
}

pub fn get_item(it: &mut Interp, o: &Rc<Obj>, idx: Value) -> Res<Value> {
    if let Obj::Te(t) = &**o {
        return super::te::get_item(it, t, idx);
    }
    if let Obj::Relax(r) = &**o {
        return super::relax::get_item(it, r, idx);
    }
    tvm::get_item(it, o, idx)
}

pub fn set_item(it: &mut Interp, o: &Rc<Obj>, idx: Value, v: Value) -> Res<()> {
    tvm::set_item(it, o, idx, v)
}

pub fn call_method(it: &mut Interp, o: &Rc<Obj>, recv: &Value, name: &str, a: Args) -> Res<Value> {
    match &**o {
        Obj::StdStream(err) => match name {
            "write" => {
                let s = a.pos.first().cloned().unwrap_or(Value::str(""));
                let s = it.str_of(&s)?;
                let n = s.chars().count() as i64;
                it.write(
                    if *err {
                        crate::Stream::Stderr
                    } else {
                        crate::Stream::Stdout
                    },
                    s,
                );
                Ok(Value::Int(n))
            }
            "flush" => Ok(Value::None),
            _ => Err(PyErr::attribute_error(format!(
                "'TextIOWrapper' object has no attribute '{name}'"
            ))),
        },
        Obj::Property { setter, getter } if name == "setter" => {
            let f = a
                .pos
                .first()
                .cloned()
                .ok_or_else(|| PyErr::type_error("setter() takes a function"))?;
            *setter.borrow_mut() = Some(f);
            Ok(Value::Host(Rc::new(Obj::Property {
                getter: getter.clone(),
                setter: RefCell::new(setter.borrow().clone()),
            })))
        }
        Obj::DictView(..)
        | Obj::Display { .. }
        | Obj::PlainObject
        | Obj::Ellipsis
        | Obj::NotImplemented => Err(PyErr::attribute_error(format!(
            "'{}' object has no attribute '{name}'",
            o.type_name()
        ))),
        Obj::Te(t) => super::te::call_method(it, t, name, a),
        Obj::Relax(r) => super::relax::call_method(it, r, recv, name, a),
        _ => tvm::call_method(it, o, recv, name, a),
    }
}

/// Attributes of host classes (`IRModule.from_expr`).
pub fn class_attr(it: &mut Interp, c: &Rc<Class>, name: &str) -> Res<Option<Value>> {
    tvm::class_attr(it, c, name)
}

/// Constructs a host class instance (`tvm.IRModule({...})`).
pub fn construct_host(it: &mut Interp, c: &Rc<Class>, a: Args) -> Res<Value> {
    if super::relax::constructs(c) {
        return super::relax::construct(it, c, a);
    }
    tvm::construct(it, c, a)
}

/// Attribute fallbacks for user instances whose class derives from a host class.
pub fn instance_host_attr(it: &mut Interp, inst: &Instance, name: &str) -> Res<Option<Value>> {
    let _ = (it, inst, name);
    Ok(None)
}

/// Errors for host objects that do not support an operation.
pub fn unsupported(o: &Obj, what: &str) -> Box<PyErr> {
    PyErr::new(
        ExcKind::TypeError,
        format!("'{}' object does not support {what}", o.type_name()),
    )
}
