//! The `tvm` package as scripts see it: TVMScript definitions, `IRModule`
//! and `PrimFunc` objects, schedules (every primitive goes through
//! [`Schedule::call`]), `tvm.build` through the [`crate::Backend`], runtime
//! modules, tensors, devices and `time_evaluator`.

use std::cell::RefCell;
use std::rc::Rc;

use super::host::{obj_of, tvm_obj, Device, Obj, RtModule, SchedObj};
use crate::python::builtins::{builtin, builtin_with};
use crate::python::dict::Dict;
use crate::python::error::{ExcKind, PyErr, Res};
use crate::python::host_object::{CoreObj, HostObject};
use crate::python::interp::Interp;
use crate::python::ops::num_i64;
use crate::python::value::*;
use crate::{BuildOptions, Target, TargetKind};
use compiler_core::analysis::structural_equal::{
    assert_structural_equal as ir_equal, EqualOptions,
};
use compiler_core::eval::NDArray;
use compiler_core::schedule::replay::SchedValue;
use compiler_core::schedule::{
    HandleKind, Rv, Schedule, ScheduleError, ScheduleErrorKind, TraceDialect,
};
use compiler_core::tvmscript::builder::{build_item, Item, PyConst, ScriptAliases};
use tessel_ir::printer::{print_module, print_prim_func, print_stmt, Dialect, PrintOptions};
use tessel_ir::{AttrValue, BaseFunc, IRModule, PrimFunc};
use tessel_syntax::ast;

mod build;
mod classes;
mod objects;
mod schedules;
mod structural;
mod tensors;
mod tvmscript;

// Only `tvm.meta_schedule` reads a target outside `build`.
#[cfg(feature = "meta-schedule")]
pub(crate) use build::target_text;
pub use build::{call_packed, time_evaluate};
use build::{rt_function, target_arg, tvm_build, DeviceModule};
pub use classes::{class_attr, construct};
pub use objects::{call_method, get_attr, get_item, set_item};
pub(super) use schedules::schedule_error;
use schedules::{new_schedule, same_object, schedule_method};
use structural::{
    assert_structural_equal, assert_structural_equal_ignore_global_symbol, structural_equal,
    structural_hash, testing_assert_allclose, verify_trace_roundtrip,
};
use tensors::{dev_ctor, device_arg, runtime_empty, runtime_tensor, tensor_method, tvm_device};
pub(crate) use tvmscript::relax_function_decorator;
pub use tvmscript::{build_tvmscript, is_ir_module_decorator, is_prim_func_decorator};
use tvmscript::{ir_module_decorator, prim_func_decorator};

const PRIM_FUNC: &str = "tvm.script.tir.prim_func";
/// Reference-interpreter steps (loop iterations and stores) per script step:
/// an IR step costs a few nanoseconds, a Python statement tens.
const IR_STEPS_PER_STEP: u64 = 8;
const IR_MODULE: &str = "tvm.script.ir_module";
/// `@R.function` on a `def` outside a module.
pub(crate) const RELAX_FUNCTION: &str = "tvm.script.relax.function";

fn host(o: Obj) -> Value {
    Value::Host(Rc::new(o))
}

// ----------------------------------------------------------------------------
// Helpers

pub(crate) fn name_of(f: &PrimFunc) -> Option<String> {
    match f.attrs.get("global_symbol") {
        Some(AttrValue::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

pub fn func_name_arg(v: &Value) -> Res<String> {
    match v {
        Value::Str(s) => Ok(s.to_string()),
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::GlobalVar(n)) => Ok(n.clone()),
            _ => Err(PyErr::type_error("expected a function name or a GlobalVar")),
        },
        _ => Err(PyErr::type_error("expected a function name or a GlobalVar")),
    }
}

/// A function an IRModule can hold: a PrimFunc (with its print dialect) or
/// a graph-level function (`@R.function`, a mutator's or a builder's
/// result), as `tvm.IRModule({...})`, `mod[name] = f` and
/// `mod.update_func(gv, f)` take them.
fn module_func_arg(v: &Value, what: &str) -> Res<(BaseFunc, Option<Dialect>)> {
    if let Value::Host(h) = v {
        match tvm_obj(h) {
            Some(Obj::PrimFunc { func, dialect }) => {
                return Ok((BaseFunc::Prim(func.clone()), Some(*dialect)))
            }
            Some(Obj::Relax(super::relax::RObj::Func(g))) => {
                return Ok((BaseFunc::Graph(g.clone()), None))
            }
            _ => {}
        }
    }
    Err(PyErr::type_error(format!(
        "{what} expects a PrimFunc or a relax.Function"
    )))
}

/// An IRModule (and its print dialect) from an IRModule or PrimFunc value;
/// a lone PrimFunc goes in as `main` (what `tvm.s_tir.Schedule` and
/// `tvm.build` do with one).
fn module_arg(v: &Value, what: &str) -> Res<(IRModule, Dialect)> {
    if let Value::Host(o) = v {
        match tvm_obj(o) {
            Some(Obj::IRModule { module, dialect }) => {
                return Ok((module.borrow().clone(), *dialect))
            }
            Some(Obj::PrimFunc { func, dialect }) => {
                let name = "main".to_string();
                let mut m = IRModule::new();
                m.insert(name, BaseFunc::Prim(func.clone()));
                return Ok((m, *dialect));
            }
            _ => {}
        }
    }
    Err(PyErr::type_error(format!(
        "{what} expects an IRModule or a PrimFunc, got {}",
        v.type_name()
    )))
}

fn attr_value(it: &mut Interp, v: &Value) -> Res<AttrValue> {
    Ok(match v {
        Value::Bool(b) => AttrValue::Bool(*b),
        Value::Int(i) => AttrValue::Int(*i),
        Value::Float(f) => AttrValue::Float(*f),
        Value::Str(s) => AttrValue::Str(s.to_string()),
        Value::NpScalar(s) => match s.num {
            Num::I(i) => AttrValue::Int(i),
            Num::F(f) => AttrValue::Float(f),
        },
        Value::List(_) | Value::Tuple(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(attr_value(it, x)?);
            }
            AttrValue::Array(out)
        }
        Value::Dict(d) => {
            let mut m = std::collections::BTreeMap::new();
            for (k, x) in d.borrow().items() {
                let key = match k {
                    Value::Str(s) => s.to_string(),
                    other => {
                        return Err(PyErr::type_error(format!(
                            "attribute keys must be strings, not {}",
                            other.type_name()
                        )))
                    }
                };
                m.insert(key, attr_value(it, &x)?);
            }
            AttrValue::Map(m)
        }
        other => {
            return Err(PyErr::type_error(format!(
                "cannot use a '{}' as a function attribute",
                other.type_name()
            )))
        }
    })
}

fn attr_to_value(it: &mut Interp, a: &AttrValue) -> Res<Value> {
    Ok(match a {
        AttrValue::Bool(b) => Value::Bool(*b),
        AttrValue::Int(i) => Value::Int(*i),
        AttrValue::Float(f) => Value::Float(*f),
        AttrValue::Str(s) => Value::str(s.as_str()),
        AttrValue::Expr(e) => Value::str(tessel_ir::printer::print_expr(e)),
        AttrValue::Array(items) => {
            let mut out = Vec::new();
            for x in items {
                out.push(attr_to_value(it, x)?);
            }
            it.new_list(out)?
        }
        AttrValue::Map(m) => {
            let mut d = Dict::new();
            for (k, x) in m {
                let v = attr_to_value(it, x)?;
                d.insert(Value::str(k.as_str()), v)?;
            }
            it.new_dict(d)
        }
    })
}

/// Loop or block annotations as a Python dict.
pub(crate) fn annotations_value(it: &mut Interp, items: &tessel_ir::Annotations) -> Res<Value> {
    let mut d = Dict::new();
    for (k, a) in items {
        let v = attr_to_value(it, a)?;
        d.insert(Value::str(k.as_str()), v)?;
    }
    Ok(it.new_dict(d))
}

pub fn attrs_text(it: &mut Interp, items: &[(String, Value)]) -> Res<String> {
    let mut parts = Vec::new();
    for (k, v) in items {
        let vs = match v {
            Value::Bool(b) => {
                if *b {
                    "True".into()
                } else {
                    "False".into()
                }
            }
            Value::Str(s) => format!("\"{s}\""),
            other => it.repr(other)?,
        };
        parts.push(format!("\"{k}\": {vs}"));
    }
    Ok(format!("{{{}}}", parts.join(", ")))
}

fn print_func(func: &PrimFunc, dialect: Dialect) -> String {
    let name = name_of(func).unwrap_or_else(|| "main".into());
    print_prim_func(func, &name, &PrintOptions::new(dialect))
}

fn print_mod(module: &IRModule, dialect: Dialect) -> String {
    print_module(module, &PrintOptions::new(dialect))
}

fn script_text(o: &Obj) -> Option<String> {
    Some(match o {
        Obj::IRModule { module, dialect } => print_mod(&module.borrow(), *dialect),
        Obj::PrimFunc { func, dialect } => print_func(func, *dialect),
        _ => return None,
    })
}

pub fn repr(o: &Obj) -> String {
    match o {
        Obj::IRModule { .. } | Obj::PrimFunc { .. } => {
            script_text(o).unwrap_or_default().trim_end().to_string()
        }
        Obj::GlobalVar(n) => format!("I.GlobalVar(\"{n}\")"),
        Obj::Attrs(_) => "<attrs>".into(),
        Obj::Schedule(s) => match s.borrow().sch.dialect {
            TraceDialect::STir => "s_tir.Schedule".into(),
            TraceDialect::Tir => "tir.Schedule".into(),
        },
        Obj::Rv { rv, dialect, .. } => match (rv, dialect) {
            (Rv::Block(_), TraceDialect::STir) => "s_tir.SBlockRV".into(),
            (Rv::Block(_), TraceDialect::Tir) => "tir.BlockRV".into(),
            (Rv::Loop(_), TraceDialect::STir) => "s_tir.LoopRV".into(),
            (Rv::Loop(_), TraceDialect::Tir) => "tir.LoopRV".into(),
            (Rv::Expr(_), _) => rv.name(),
        },
        Obj::Trace { text, .. } | Obj::IRText { text, .. } => text.clone(),
        Obj::Instruction { inst, .. } => inst.python(),
        Obj::SRef(r) => super::schedule_state::sref_repr(r),
        Obj::State(sch) => match obj_of(sch) {
            Some(Obj::Schedule(s)) => {
                let s = s.borrow();
                format!(
                    "s_tir.ScheduleState(mod={}, debug_mask=0, enable_check=True)",
                    print_mod(s.sch.module(), s.ir_dialect).trim_end()
                )
            }
            _ => "s_tir.ScheduleState".into(),
        },
        Obj::Tensor { data, device } => {
            let a = data.borrow();
            format!(
                "<tvm.runtime.Tensor shape={}, {}:{}>\n{}",
                shape_text(a.shape()),
                device.kind,
                device.index,
                crate::python::numpy::array_repr(&a)
            )
        }
        Obj::Device(d) => format!("device(type='{}', index={})", d.kind, d.index),
        Obj::Target(t) => target_json(t.kind),
        Obj::RtModule(_) => "ffi.Module(imports_=())".into(),
        Obj::PackedFunc { .. } | Obj::TimeEvaluator { .. } => "ffi.Function".into(),
        Obj::BenchmarkResult(r) => {
            let s = stats(r);
            format!(
                "BenchmarkResult(min={}, mean={}, median={}, max={}, std={}, results=[{}])",
                crate::python::fmt::float_repr(s.min),
                crate::python::fmt::float_repr(s.mean),
                crate::python::fmt::float_repr(s.median),
                crate::python::fmt::float_repr(s.max),
                crate::python::fmt::float_repr(s.std),
                r.iter()
                    .map(|x| crate::python::fmt::float_repr(*x))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        _ => "<object>".into(),
    }
}

fn shape_text(shape: &[usize]) -> String {
    match shape.len() {
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn target_json(kind: TargetKind) -> String {
    let keys = match kind {
        TargetKind::Gpu(compiler_core::target::GpuKind::Cuda) => "[\"cuda\", \"gpu\"]",
        TargetKind::Gpu(_) => "[\"gpu\"]",
        TargetKind::Cpu(_) => "[\"cpu\"]",
    };
    format!("{{\"kind\":\"{kind}\",\"tag\":\"\",\"keys\":{keys}}}")
}

struct Stats {
    mean: f64,
    median: f64,
    min: f64,
    max: f64,
    std: f64,
}

fn stats(r: &[f64]) -> Stats {
    let n = r.len().max(1) as f64;
    let mean = r.iter().sum::<f64>() / n;
    let mut s = r.to_vec();
    tessel_ir::sort::by(&mut s, |a, b| {
        a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal)
    });
    let median = match s.len() {
        0 => 0.0,
        l if l % 2 == 1 => s[l / 2],
        l => (s[l / 2 - 1] + s[l / 2]) / 2.0,
    };
    let std = (r.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    Stats {
        mean,
        median,
        min: s.first().copied().unwrap_or(0.0),
        max: s.last().copied().unwrap_or(0.0),
        std,
    }
}

/// `str(BenchmarkResult)`, as TVM prints it.
pub fn benchmark_str(r: &[f64]) -> String {
    let s = stats(r);
    let c = |t: &str| crate::python::fmt::format_str(t, "^12").unwrap_or_default();
    let f = |x: f64| crate::python::fmt::format_float(x * 1000.0, "^12.4f").unwrap_or_default();
    format!(
        "Execution time summary:\n{} {} {} {} {}\n{} {} {} {} {}               ",
        c("mean (ms)"),
        c("median (ms)"),
        c("max (ms)"),
        c("min (ms)"),
        c("std (ms)"),
        f(s.mean),
        f(s.median),
        f(s.max),
        f(s.min),
        f(s.std)
    )
}

// ----------------------------------------------------------------------------
// The module tree

fn set(m: &Value, k: &str, v: Value) {
    if let Value::Module(m) = m {
        m.attrs.borrow_mut().insert(k.to_string(), v);
    }
}

const TE_NOTE: &str = "tensor expressions (te/topi) are not supported by Tessel yet";
const RELAX_NOTE: &str = "Relax is not supported by Tessel yet";
const T_NOTE: &str = "TVMScript builders like T.grid or T.Buffer only work inside an @T.prim_func";

/// Creates every `tvm.*` module and registers them by full name.
pub fn install(it: &mut Interp) {
    let exc = |it: &Interp, k: ExcKind| Value::Class(it.exc_class(k));
    let irmodule = Value::Class(it.types.host_class("tvm.ir.module.IRModule"));
    let stir_sched = Value::Class(it.types.host_class("tvm.s_tir.schedule.schedule.Schedule"));
    let tir_sched = Value::Class(it.types.host_class("tvm.tir.schedule.schedule.Schedule"));
    let target_cls = Value::Class(it.types.host_class("tvm.target.target.Target"));
    let tensor_cls = Value::Class(it.types.host_class("tvm.runtime._tensor.Tensor"));
    let rtmod_cls = Value::Class(it.types.host_class("tvm.runtime.module.Module"));
    let primfunc_tirx = Value::Class(it.types.host_class("tvm.tirx.function.PrimFunc"));
    let sched_err = exc(it, ExcKind::ScheduleError);
    let intrin_cls = Value::Class(it.types.host_class("tvm.s_tir.schedule.TensorIntrin"));
    let tvm_err = exc(it, ExcKind::TVMError);
    let diag_err = exc(it, ExcKind::DiagnosticError);

    let schedule_classes = ScheduleClasses {
        stir_sched,
        tir_sched,
        sched_err,
        intrin_cls,
        primfunc_tirx,
    };
    let mut all = ir_packages(&irmodule);
    all.extend(schedule_packages(it, schedule_classes));
    all.extend(script_packages());
    all.extend(runtime_packages(
        tensor_cls,
        rtmod_cls,
        target_cls,
        tvm_err.clone(),
        diag_err,
    ));
    all.extend(unsupported_packages());
    let tvm = root_package(irmodule, tvm_err);
    let subs = [
        "ir",
        "tir",
        "s_tir",
        "tirx",
        "script",
        "runtime",
        "nd",
        "target",
        "testing",
        "error",
        "te",
        "topi",
        "relax",
        "meta_schedule",
        "transform",
    ];
    for k in subs {
        let full = format!("tvm.{k}");
        if let Some((_, v)) = all.iter().find(|(name, _)| *name == full) {
            set(&tvm, k, v.clone());
        }
    }
    it.modules.insert("tvm".to_string(), tvm);
    for (k, v) in all {
        it.modules.insert(k.to_string(), v);
    }
}

/// The `tvm` package itself: `build`/`compile`, devices, `IRModule`,
/// `TVMError` (its subpackages are set by [`install`]).
fn root_package(irmodule: Value, tvm_err: Value) -> Value {
    let dev = |kind: &str| builtin_with(&format!("tvm.{kind}"), dev_ctor, Value::str(kind));
    module_with_note(
        "tvm",
        vec![
            ("build", builtin("tvm.build", tvm_build)),
            (
                "compile",
                builtin_with("tvm.compile", tvm_build, Value::str("compile")),
            ),
            ("IRModule", irmodule),
            ("cpu", dev("cpu")),
            ("cuda", dev("cuda")),
            ("gpu", dev("cuda")),
            ("webgpu", dev("webgpu")),
            ("metal", dev("metal")),
            ("vulkan", dev("vulkan")),
            ("opencl", dev("opencl")),
            ("rocm", dev("rocm")),
            ("device", builtin("tvm.device", tvm_device)),
            ("TVMError", tvm_err),
            ("__version__", Value::str("0.27.0 (Tessel)")),
        ],
        None,
    )
}

/// `tvm.ir` and `tvm_ffi`: `IRModule` and structural comparison.
fn ir_packages(irmodule: &Value) -> Vec<(&'static str, Value)> {
    let ir_module_mod =
        module_with_note("tvm.ir.module", vec![("IRModule", irmodule.clone())], None);
    let ir = module_with_note(
        "tvm.ir",
        vec![
            ("IRModule", irmodule.clone()),
            ("module", ir_module_mod.clone()),
            (
                "assert_structural_equal",
                builtin("tvm.ir.assert_structural_equal", assert_structural_equal),
            ),
            (
                "structural_equal",
                builtin("tvm.ir.structural_equal", structural_equal),
            ),
            (
                "structural_hash",
                builtin("tvm.ir.structural_hash", structural_hash),
            ),
        ],
        None,
    );
    // `tvm_ffi`, the FFI package TVM 0.27 builds on: its structural
    // comparison and hashing.
    let tvm_ffi = module_with_note(
        "tvm_ffi",
        vec![
            (
                "structural_equal",
                builtin("tvm_ffi.structural_equal", structural_equal),
            ),
            (
                "structural_hash",
                builtin("tvm_ffi.structural_hash", structural_hash),
            ),
        ],
        Some("Tessel's tvm_ffi has only structural_equal and structural_hash"),
    );
    vec![
        ("tvm.ir", ir),
        ("tvm.ir.module", ir_module_mod),
        ("tvm_ffi", tvm_ffi),
    ]
}

/// The classes the schedule packages (`tvm.s_tir`, `tvm.tir`) share.
struct ScheduleClasses {
    stir_sched: Value,
    tir_sched: Value,
    sched_err: Value,
    intrin_cls: Value,
    primfunc_tirx: Value,
}

/// `tvm.s_tir`, `tvm.tir` and `tvm.tirx`: schedules, their errors and
/// testing helpers, tensor intrinsics, `PrimFunc`.
fn schedule_packages(it: &mut Interp, classes: ScheduleClasses) -> Vec<(&'static str, Value)> {
    let ScheduleClasses {
        stir_sched,
        tir_sched,
        sched_err,
        intrin_cls,
        primfunc_tirx,
    } = classes;
    let schedule_testing = module_with_note(
        "tvm.s_tir.schedule.testing",
        vec![
            (
                "verify_trace_roundtrip",
                builtin(
                    "tvm.s_tir.schedule.testing.verify_trace_roundtrip",
                    verify_trace_roundtrip,
                ),
            ),
            (
                "assert_structural_equal_ignore_global_symbol",
                builtin(
                    "tvm.s_tir.schedule.testing.assert_structural_equal_ignore_global_symbol",
                    assert_structural_equal_ignore_global_symbol,
                ),
            ),
            (
                "assert_structural_equal",
                builtin("tvm.ir.assert_structural_equal", assert_structural_equal),
            ),
        ],
        None,
    );
    let s_tir_schedule_schedule = module_with_note(
        "tvm.s_tir.schedule.schedule",
        vec![
            ("Schedule", stir_sched.clone()),
            ("ScheduleError", sched_err.clone()),
        ],
        None,
    );
    let s_tir_schedule_state = module_with_note(
        "tvm.s_tir.schedule.state",
        vec![
            (
                "ScheduleDebugMask",
                Value::Class(
                    it.types
                        .host_class("tvm.s_tir.schedule.state.ScheduleDebugMask"),
                ),
            ),
            (
                "ScheduleState",
                Value::Class(
                    it.types
                        .host_class("tvm.s_tir.schedule.state.ScheduleState"),
                ),
            ),
        ],
        None,
    );
    let s_tir_schedule = module_with_note(
        "tvm.s_tir.schedule",
        vec![
            ("schedule", s_tir_schedule_schedule.clone()),
            ("state", s_tir_schedule_state.clone()),
            ("testing", schedule_testing.clone()),
            ("Schedule", stir_sched.clone()),
            ("ScheduleError", sched_err.clone()),
            ("TensorIntrin", intrin_cls.clone()),
        ],
        None,
    );
    // TVM registers its library of hardware intrinsics (WMMA, MMA, VNNI,
    // SDOT, …) on import of this package; Tessel has none built in, so the
    // import succeeds but registers nothing, and `tensorize` with one of
    // those names says it is not registered.
    let tensor_intrin = module_with_note(
        "tvm.s_tir.tensor_intrin",
        Vec::<(&str, Value)>::new(),
        Some(
            "Tessel has no built-in tensor intrinsic library; \
             declare intrinsics with tvm.s_tir.TensorIntrin.register",
        ),
    );
    let s_tir = module_with_note(
        "tvm.s_tir",
        vec![
            ("tensor_intrin", tensor_intrin.clone()),
            ("Schedule", stir_sched.clone()),
            ("ScheduleError", sched_err.clone()),
            ("TensorIntrin", intrin_cls.clone()),
            ("schedule", s_tir_schedule.clone()),
        ],
        None,
    );
    let tir_schedule = module_with_note(
        "tvm.tir.schedule",
        vec![
            ("Schedule", tir_sched.clone()),
            ("ScheduleError", sched_err.clone()),
        ],
        None,
    );
    let tir = module_with_note(
        "tvm.tir",
        vec![
            ("Schedule", tir_sched),
            ("ScheduleError", sched_err.clone()),
            ("TensorIntrin", intrin_cls.clone()),
            ("schedule", tir_schedule.clone()),
            ("PrimFunc", primfunc_tirx.clone()),
        ],
        None,
    );
    let tirx = module_with_note("tvm.tirx", vec![("PrimFunc", primfunc_tirx)], None);
    vec![
        ("tvm.tir", tir),
        ("tvm.tir.schedule", tir_schedule),
        ("tvm.s_tir", s_tir),
        ("tvm.s_tir.schedule", s_tir_schedule),
        ("tvm.s_tir.schedule.testing", schedule_testing),
        ("tvm.s_tir.schedule.schedule", s_tir_schedule_schedule),
        ("tvm.s_tir.schedule.state", s_tir_schedule_state),
        ("tvm.s_tir.tensor_intrin", tensor_intrin),
        ("tvm.tirx", tirx),
    ]
}

/// `tvm.script`: the `@T.prim_func` and `@I.ir_module` decorators (the
/// builders themselves only work inside a definition).
fn script_packages() -> Vec<(&'static str, Value)> {
    let prim_func = builtin(PRIM_FUNC, prim_func_decorator);
    let ir_module = builtin(IR_MODULE, ir_module_decorator);
    let script_tir = module_with_note(
        "tvm.script.tir",
        vec![("prim_func", prim_func.clone())],
        Some(T_NOTE),
    );
    let script_tirx = module_with_note(
        "tvm.script.tirx",
        vec![("prim_func", prim_func)],
        Some(T_NOTE),
    );
    let script_ir = module_with_note(
        "tvm.script.ir",
        vec![("ir_module", ir_module.clone())],
        None,
    );
    let script_relax = module_with_note(
        "tvm.script.relax",
        Vec::<(&str, Value)>::new(),
        Some(RELAX_NOTE),
    );
    let script = module_with_note(
        "tvm.script",
        vec![
            ("ir_module", ir_module),
            ("tir", script_tir.clone()),
            ("tirx", script_tirx.clone()),
            ("ir", script_ir.clone()),
            ("relax", script_relax.clone()),
        ],
        None,
    );
    vec![
        ("tvm.script", script),
        ("tvm.script.tir", script_tir),
        ("tvm.script.tirx", script_tirx),
        ("tvm.script.ir", script_ir),
        ("tvm.script.relax", script_relax),
    ]
}

/// `tvm.runtime`, `tvm.nd`, `tvm.target`, `tvm.testing` and `tvm.error`.
fn runtime_packages(
    tensor_cls: Value,
    rtmod_cls: Value,
    target_cls: Value,
    tvm_err: Value,
    diag_err: Value,
) -> Vec<(&'static str, Value)> {
    let dev = |kind: &str| builtin_with(&format!("tvm.{kind}"), dev_ctor, Value::str(kind));
    let runtime_module = module_with_note(
        "tvm.runtime.module",
        vec![("Module", rtmod_cls.clone())],
        None,
    );
    let runtime = module_with_note(
        "tvm.runtime",
        vec![
            ("tensor", builtin("tvm.runtime.tensor", runtime_tensor)),
            ("empty", builtin("tvm.runtime.empty", runtime_empty)),
            ("Tensor", tensor_cls.clone()),
            ("Module", rtmod_cls),
            ("module", runtime_module.clone()),
            ("cpu", dev("cpu")),
            ("cuda", dev("cuda")),
            ("device", builtin("tvm.runtime.device", tvm_device)),
        ],
        None,
    );
    let nd = module_with_note(
        "tvm.nd",
        vec![
            ("array", builtin("tvm.nd.array", runtime_tensor)),
            ("empty", builtin("tvm.nd.empty", runtime_empty)),
            ("NDArray", tensor_cls),
        ],
        None,
    );
    let target = module_with_note("tvm.target", vec![("Target", target_cls)], None);
    let testing = module_with_note(
        "tvm.testing",
        vec![(
            "assert_allclose",
            builtin("tvm.testing.assert_allclose", testing_assert_allclose),
        )],
        None,
    );
    let error = module_with_note(
        "tvm.error",
        vec![("TVMError", tvm_err.clone()), ("DiagnosticError", diag_err)],
        None,
    );
    vec![
        ("tvm.runtime", runtime),
        ("tvm.runtime.module", runtime_module),
        ("tvm.nd", nd),
        ("tvm.target", target),
        ("tvm.testing", testing),
        ("tvm.error", error),
    ]
}

/// Packages scripts may import but Tessel does not offer here; their
/// attributes fail with a note.
fn unsupported_packages() -> Vec<(&'static str, Value)> {
    let te = module_with_note("tvm.te", Vec::<(&str, Value)>::new(), Some(TE_NOTE));
    let topi = module_with_note("tvm.topi", Vec::<(&str, Value)>::new(), Some(TE_NOTE));
    let relax = module_with_note("tvm.relax", Vec::<(&str, Value)>::new(), Some(RELAX_NOTE));
    let meta_schedule = module_with_note(
        "tvm.meta_schedule",
        Vec::<(&str, Value)>::new(),
        Some("meta_schedule tuning is not supported by Tessel"),
    );
    let transform = module_with_note(
        "tvm.transform",
        Vec::<(&str, Value)>::new(),
        Some("pass infrastructure is not supported by Tessel yet"),
    );
    vec![
        ("tvm.te", te),
        ("tvm.topi", topi),
        ("tvm.relax", relax),
        ("tvm.meta_schedule", meta_schedule),
        ("tvm.transform", transform),
    ]
}
