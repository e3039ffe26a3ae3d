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
use compiler_core::schedule::{Rv, Schedule, ScheduleError, TraceDialect};
use compiler_core::tvmscript::builder::{build_item, Item, PyConst, ScriptAliases};
use tessel_ir::printer::{print_module, print_prim_func, print_stmt, Dialect, PrintOptions};
use tessel_ir::{AttrValue, BaseFunc, IRModule, PrimFunc};
use tessel_syntax::ast;

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
// TVMScript in scripts

pub fn is_prim_func_decorator(v: &Value) -> bool {
    matches!(v, Value::Builtin(b) if &*b.name == PRIM_FUNC || &*b.name == RELAX_FUNCTION)
}

pub fn is_ir_module_decorator(v: &Value) -> bool {
    matches!(v, Value::Builtin(b) if &*b.name == IR_MODULE)
}

/// Which script names refer to TVM's script namespaces.
fn aliases(it: &Interp) -> ScriptAliases {
    let mut a = ScriptAliases::default();
    let mut look = |name: &str, v: &Value| {
        if let Some(c) = py_const(v, 0) {
            a.consts.push((name.to_string(), c));
        }
        if let Value::Module(m) = v {
            match m.name.as_str() {
                "tvm.script.tir" => a.tir.push(name.to_string()),
                "tvm.script.tirx" => {
                    a.tir.push(name.to_string());
                    a.tirx = true;
                }
                "tvm.script.ir" => a.ir.push(name.to_string()),
                "tvm.script.relax" => a.relax.push(name.to_string()),
                _ => {}
            }
        }
    };
    for (k, v) in &it.globals {
        look(k, v);
    }
    if let Some(env) = &it.frame.env {
        for (k, v) in env.code.locals.iter().zip(env.values.borrow().iter()) {
            if let Some(v) = v {
                look(k, v);
            }
        }
    }
    a
}

/// A script value TVMScript can use as a constant.
fn py_const(v: &Value, depth: u32) -> Option<PyConst> {
    Some(match v {
        Value::Bool(b) => PyConst::Bool(*b),
        Value::Int(i) => PyConst::Int(*i),
        Value::Float(f) => PyConst::Float(*f),
        Value::Str(s) => PyConst::Str(s.to_string()),
        Value::NpScalar(s) if !s.dtype.is_float() && !s.dtype.is_bool() => {
            PyConst::Int(s.num.as_i64())
        }
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Te(super::te::TeObj::Expr(e))) => match e.kind() {
                tessel_ir::ExprKind::Int(v) => PyConst::IntImm(*v, e.dtype()),
                tessel_ir::ExprKind::Float(v) => PyConst::FloatImm(*v, e.dtype()),
                _ => return None,
            },
            _ => return None,
        },
        Value::Tuple(items) if depth < 4 && items.len() <= 16 => PyConst::Tuple(
            items
                .iter()
                .map(|x| py_const(x, depth + 1))
                .collect::<Option<_>>()?,
        ),
        Value::List(l) if depth < 4 && l.borrow().len() <= 16 => PyConst::Tuple(
            l.borrow()
                .iter()
                .map(|x| py_const(x, depth + 1))
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

fn diagnostic_error(it: &Interp, diags: &[tessel_syntax::diag::Diagnostic]) -> Box<PyErr> {
    let src = &it.frame.source;
    let text: Vec<String> = diags
        .iter()
        .map(|d| tessel_syntax::diag::render(d, &src.text, &src.name))
        .collect();
    // Like TVM's, the message is the rendered diagnostics.
    PyErr::new(
        ExcKind::DiagnosticError,
        text.join("\n").trim_end().to_string(),
    )
}

/// Builds the IRModule or PrimFunc a decorated class or def defines.
pub fn build_tvmscript(it: &mut Interp, stmt: &ast::Stmt) -> Res<Value> {
    let ns = aliases(it);
    let parsed = build_item(stmt, &ns).map_err(|d| diagnostic_error(it, &[d]))?;
    let dialect = Dialect::from(parsed.dialect);
    let module = parsed.to_module();
    let errors: Vec<_> =
        compiler_core::analysis::verify::verify_module_as(&module, parsed.api_generation())
            .into_iter()
            .filter(|d| d.is_error())
            .collect();
    if !errors.is_empty() {
        return Err(diagnostic_error(it, &errors));
    }
    it.charge_steps(1000)?;
    Ok(match parsed.items.into_iter().next() {
        Some(Item::PrimFunc { func, .. }) => host(Obj::PrimFunc { func, dialect }),
        Some(Item::GraphFunc { func, .. }) => {
            Value::Host(Rc::new(Obj::Relax(super::relax::RObj::Func(func))))
        }
        _ => host(Obj::IRModule {
            module: RefCell::new(module),
            dialect,
        }),
    })
}

fn prim_func_decorator(_it: &mut Interp, a: Args) -> Res<Value> {
    if a.pos.is_empty() {
        // `@T.prim_func(private=True)`: a configured decorator.
        return Ok(builtin(PRIM_FUNC, prim_func_decorator));
    }
    Err(PyErr::type_error(
        "T.prim_func must be used as a decorator of a `def` (Tessel builds the function from its source)",
    ))
}

pub(crate) fn relax_function_decorator(_it: &mut Interp, a: Args) -> Res<Value> {
    if a.pos.is_empty() {
        // `@R.function(pure=False)`: a configured decorator.
        return Ok(builtin(RELAX_FUNCTION, relax_function_decorator));
    }
    Err(PyErr::type_error(
        "R.function must be used as a decorator of a `def` (Tessel builds the function from its source)",
    ))
}

fn ir_module_decorator(_it: &mut Interp, a: Args) -> Res<Value> {
    if a.pos.is_empty() {
        // `@I.ir_module(s_tir=True)`: a configured decorator.
        return Ok(builtin(IR_MODULE, ir_module_decorator));
    }
    Err(PyErr::type_error(
        "ir_module must be used as a class decorator (Tessel builds the module from its source)",
    ))
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
// Schedules

pub(super) fn schedule_error(e: ScheduleError) -> Box<PyErr> {
    PyErr::new(ExcKind::ScheduleError, e.to_string())
}

/// A refused call as the Python exception TVM raises: argument mistakes
/// are `TypeError`s (TVM's type checker), stale handles and an unchosen
/// function `ValueError`s, everything else a `ScheduleError`.
fn call_error(method: &str, e: ScheduleError) -> Box<PyErr> {
    let m = e.message.as_str();
    let arg_error = [
        "expected a ",
        "expected an ",
        "missing argument",
        "too many arguments",
        "unexpected keyword argument",
        "a split factor is",
    ];
    if arg_error.iter().any(|p| m.starts_with(p)) {
        return PyErr::type_error(format!("{method}(): {m}"));
    }
    if m.starts_with("the module has several functions") {
        return PyErr::value_error(format!(
            "`{method}` does not know which function to be working on. Please specify the function name explicitly, or call `work_on` to specify the function before using `{method}`."
        ));
    }
    if m.starts_with("the loop l")
        && (m.contains("no longer exists") || m.contains("no longer in the function"))
    {
        return PyErr::value_error("The loop no longer exists in the IRModule");
    }
    if m.starts_with("the block b") && m.contains("no longer exists")
        || (m.starts_with("block `") && m.contains("no longer exists"))
    {
        return PyErr::value_error("The block no longer exists in the IRModule");
    }
    schedule_error(e)
}

fn new_schedule(it: &mut Interp, mut a: Args, dialect: TraceDialect) -> Res<Value> {
    let m = a.req(0, "mod", "Schedule")?;
    let seed = a.take(1, "seed");
    let debug_mask = a.take(2, "debug_mask");
    let _ = a.take(3, "error_render_level");
    let _ = a.take(4, "enable_check");
    a.done("Schedule", 5)?;
    let (module, ir_dialect) = module_arg(&m, "Schedule")?;
    let seed = match seed.as_ref().and_then(num_i64) {
        Some(s) if s >= 0 => s as u64,
        // TVM draws a random seed for every unseeded schedule; Tessel draws
        // the next one of a per-session sequence, so runs are reproducible
        // but each schedule samples differently.
        _ => {
            let mut z = (it.next_id + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z ^ (z >> 31)
        }
    };
    let mut sch = Schedule::with_seed(module.clone(), seed).map_err(schedule_error)?;
    sch.dialect = dialect;
    sch.ir_dialect = ir_dialect;
    // TVM's ScheduleDebugMask: "all", or bit 2 (VERIFY_CACHED_FLAGS).
    sch.verify_cached_flags = match &debug_mask {
        Some(Value::Str(s)) => &**s == "all",
        Some(v) => num_i64(v).is_some_and(|m| m & 2 != 0),
        None => false,
    };
    it.next_id += 1;
    it.charge_steps(100)?;
    Ok(host(Obj::Schedule(RefCell::new(SchedObj::new(
        sch, module, ir_dialect, it.next_id,
    )))))
}

fn to_sched(it: &mut Interp, v: &Value) -> Res<SchedValue> {
    Ok(match v {
        Value::None => SchedValue::None,
        Value::Bool(b) => SchedValue::Bool(*b),
        Value::Int(i) => SchedValue::Int(*i),
        Value::Float(f) => SchedValue::Float(*f),
        Value::Str(s) => SchedValue::Str(s.to_string()),
        Value::NpScalar(s) => match s.num {
            Num::I(i) => SchedValue::Int(i),
            Num::F(f) => SchedValue::Float(f),
        },
        Value::List(_) | Value::Tuple(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(to_sched(it, x)?);
            }
            SchedValue::List(out)
        }
        Value::Func(f) => SchedValue::Source(f.source.slice(f.span).to_string()),
        // A dictionary (an annotation value) travels as its Python literal.
        Value::Dict(_) => {
            let mut text = String::new();
            literal_source(it, v, 0, &mut text)?;
            SchedValue::Source(text)
        }
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Rv { rv, .. }) => SchedValue::Rv(*rv),
            // An integer constant (`tvm.tirx.IntImm`, `te.const`) is its value.
            Some(Obj::Te(super::te::TeObj::Expr(e))) if e.as_int().is_some() => {
                SchedValue::Int(e.as_int().unwrap_or_default())
            }
            _ => {
                return Err(PyErr::type_error(format!(
                    "cannot pass a '{}' to a schedule primitive",
                    o.type_name()
                )))
            }
        },
        other => {
            return Err(PyErr::type_error(format!(
                "cannot pass a '{}' to a schedule primitive",
                other.type_name()
            )))
        }
    })
}

/// The Python literal of a value made of dictionaries, lists, strings and
/// numbers, which the primitives read back (`annotate`'s dictionaries).
fn literal_source(it: &mut Interp, v: &Value, depth: u32, out: &mut String) -> Res<()> {
    use std::fmt::Write;
    if depth > 64 {
        return Err(PyErr::value_error(
            "a schedule primitive argument is nested too deeply",
        ));
    }
    match v {
        Value::None => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) if f.is_finite() => {
            let _ = write!(out, "{f:?}");
        }
        Value::Str(s) => {
            let _ = write!(out, "{:?}", s.as_ref() as &str);
        }
        Value::List(_) | Value::Tuple(_) => {
            out.push('[');
            for (i, x) in it.items_of(v)?.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                literal_source(it, x, depth + 1, out)?;
            }
            out.push(']');
        }
        Value::Dict(d) => {
            out.push('{');
            let items = d.borrow().items();
            for (i, (k, x)) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                literal_source(it, k, depth + 1, out)?;
                out.push_str(": ");
                literal_source(it, x, depth + 1, out)?;
            }
            out.push('}');
        }
        other => {
            return Err(PyErr::type_error(format!(
                "cannot pass a '{}' inside a dict to a schedule primitive",
                other.type_name()
            )))
        }
    }
    Ok(())
}

/// A primitive's result with each sampled factor that has no value
/// (`sample_perfect_tile` of a symbolic loop) replaced by `None`.
fn absent_as_none(sch: &Schedule, v: SchedValue) -> SchedValue {
    match v {
        SchedValue::Rv(Rv::Expr(i)) if sch.is_absent(compiler_core::schedule::ExprRV(i)) => {
            SchedValue::None
        }
        SchedValue::List(items) => {
            SchedValue::List(items.into_iter().map(|x| absent_as_none(sch, x)).collect())
        }
        other => other,
    }
}

fn from_sched(it: &mut Interp, v: SchedValue, dialect: TraceDialect, sched: u64) -> Res<Value> {
    Ok(match v {
        SchedValue::Rv(rv) => host(Obj::Rv { rv, dialect, sched }),
        SchedValue::Int(i) => Value::Int(i),
        SchedValue::Float(f) => Value::Float(f),
        SchedValue::Bool(b) => Value::Bool(b),
        SchedValue::Str(s) => Value::str(s),
        SchedValue::None => Value::None,
        SchedValue::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for x in items {
                out.push(from_sched(it, x, dialect, sched)?);
            }
            it.new_list(out)?
        }
        SchedValue::Source(s) => Value::str(s),
    })
}

fn schedule_method(it: &mut Interp, o: &Obj, name: &str, mut a: Args) -> Res<Value> {
    let Obj::Schedule(cell) = o else {
        return Err(PyErr::type_error("not a schedule"));
    };
    match name {
        "copy" => {
            let (sch, original, ir_dialect, lineage, removed) = {
                let s = cell.borrow();
                let mut lineage = s.lineage.clone();
                lineage.push((s.id, s.sch.rv_count()));
                (
                    s.sch.clone(),
                    s.original.clone(),
                    s.ir_dialect,
                    lineage,
                    s.removed.clone(),
                )
            };
            it.next_id += 1;
            let mut copy = SchedObj::new(sch, original, ir_dialect, it.next_id);
            copy.lineage = lineage;
            copy.removed = removed;
            return Ok(host(Obj::Schedule(RefCell::new(copy))));
        }
        "get" => {
            let v = a
                .pos
                .first()
                .cloned()
                .ok_or_else(|| PyErr::type_error("get() takes a random variable"))?;
            let Value::Host(h) = &v else {
                return Err(PyErr::type_error("get() takes a random variable"));
            };
            let Some(Obj::Rv { rv, .. }) = tvm_obj(h) else {
                return Err(PyErr::type_error("get() takes a random variable"));
            };
            let s = cell.borrow();
            super::schedule_state::check_handles(it, &s, &v)?;
            return match rv {
                Rv::Expr(i) => Ok(Value::Int(
                    s.sch
                        .get_value(compiler_core::schedule::ExprRV(*i))
                        .map_err(schedule_error)?,
                )),
                Rv::Block(_) | Rv::Loop(_) => {
                    let node = s.sch.node_of("get", *rv).map_err(schedule_error)?;
                    let text = print_stmt(&node, &PrintOptions::new(s.ir_dialect));
                    let class = if matches!(rv, Rv::Block(_)) {
                        "tvm.s_tir.stmt.SBlock"
                    } else {
                        "tvm.tirx.stmt.For"
                    };
                    Ok(host(Obj::IRText {
                        text: text.trim_end().to_string(),
                        class,
                        node: Some(node),
                        dialect: s.ir_dialect,
                    }))
                }
            };
        }
        "fork_seed" => return Ok(Value::Int((cell.borrow_mut().sch.fork_seed() >> 33) as i64)),
        "seed" => {
            let s = a.pos.first().and_then(num_i64).unwrap_or(0);
            cell.borrow_mut().sch.seed(s as u64);
            return Ok(Value::None);
        }
        "show" => {
            let text = {
                let s = cell.borrow();
                print_mod(s.sch.module(), s.ir_dialect)
            };
            it.stdout(format!("{}\n", text.trim_end()));
            return Ok(Value::None);
        }
        "remove_rv" => {
            let v = a.req(0, "rand_var", "remove_rv")?;
            a.done("remove_rv", 1)?;
            let mut s = cell.borrow_mut();
            return super::schedule_state::remove_rv(&mut s, &v);
        }
        "get_sref" => {
            a.done("get_sref", 1)?;
            let v = a.pos.first().cloned().ok_or_else(|| {
                PyErr::type_error(
                    "get_sref() missing 1 required positional argument: 'rand_var_or_stmt'",
                )
            })?;
            let s = cell.borrow();
            return super::schedule_state::get_sref(it, &s, &v);
        }
        _ => {}
    }
    {
        let s = cell.borrow();
        for v in a.pos.iter().chain(a.kw.iter().map(|(_, v)| v)) {
            super::schedule_state::check_handles(it, &s, v)?;
        }
    }
    let mut positional = Vec::with_capacity(a.pos.len());
    for (k, v) in a.pos.iter().enumerate() {
        positional.push(match typed_pad_value(name, k == 3, v) {
            Some(text) => SchedValue::Source(text),
            None => to_sched(it, v)?,
        });
    }
    let mut keywords = Vec::with_capacity(a.kw.len());
    for (k, v) in &a.kw {
        keywords.push((
            k.to_string(),
            match typed_pad_value(name, &**k == "pad_value", v) {
                Some(text) => SchedValue::Source(text),
                None => to_sched(it, v)?,
            },
        ));
    }
    it.charge_steps(100)?;
    let (result, dialect, id) = {
        let mut s = cell.borrow_mut();
        if name == "tensorize" {
            s.sch.set_tensor_intrins(it.intrins.clone());
        }
        // A tile factor left to infer is Python's `None`.
        let r = s
            .sch
            .call(name, positional, keywords)
            .map(|out| absent_as_none(&s.sch, out));
        (r, s.sch.dialect, s.id)
    };
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            if e.is_left_out() {
                // A host whose full build is elsewhere (the playground's
                // first-load worker) learns here that the script needs it,
                // as from `tvm.build`, and runs the script again there.
                let _ = it.backend.ensure_loaded(Target::llvm().kind);
            }
            return Err(call_error(name, e));
        }
    };
    from_sched(it, out, dialect, id)
}

/// `transform_layout`'s `pad_value` given as a typed constant
/// (`tvm.tirx.IntImm("int8", 0)`) keeps its type, which TVM checks against
/// the buffer's: passed as its TVMScript text (`T.int8(0)`).
fn typed_pad_value(method: &str, is_pad_value: bool, v: &Value) -> Option<String> {
    if method != "transform_layout" || !is_pad_value {
        return None;
    }
    let Value::Host(o) = v else { return None };
    match tvm_obj(o) {
        Some(Obj::Te(super::te::TeObj::Expr(e))) => match e.kind() {
            tessel_ir::ExprKind::Int(i) => Some(format!("T.{}({i})", e.dtype())),
            tessel_ir::ExprKind::Float(f) => Some(format!("T.{}({f:?})", e.dtype())),
            _ => None,
        },
        _ => None,
    }
}

/// TVM's `same_as`: whether two values hold the same IR object, not merely
/// equal ones. Functions and the statements `sch.get` returns compare by
/// node; other objects only by the Python object itself. Tessel may wrap one
/// TVM object in several, and rebuilds the statements around a rewritten
/// part where TVM keeps unchanged nodes, so this can say no where TVM says
/// yes, never the reverse.
fn same_object(o: &Obj, recv: &Value, other: &Value) -> bool {
    match (o, obj_of(other)) {
        (Obj::PrimFunc { func: a, .. }, Some(Obj::PrimFunc { func: b, .. })) => Rc::ptr_eq(a, b),
        (Obj::IRText { node: Some(a), .. }, Some(Obj::IRText { node: Some(b), .. })) => {
            a.same_node(b)
        }
        (Obj::SRef(a), Some(Obj::SRef(b))) => a.same(b),
        _ => recv.identity().is_some() && recv.identity() == other.identity(),
    }
}

// ----------------------------------------------------------------------------
// Build and run

/// The target's text from a string, dict (its kind) or Target object
/// (`llvm` when absent), not yet parsed.
pub(crate) fn target_text(it: &mut Interp, v: Option<Value>) -> Res<String> {
    Ok(match v {
        None | Some(Value::None) => "llvm".to_string(),
        Some(Value::Str(s)) => s.to_string(),
        Some(Value::Dict(d)) => match d.borrow().get_str("kind") {
            Some(Value::Str(k)) => k.to_string(),
            _ => return Err(PyErr::value_error("a target dict needs a \"kind\"")),
        },
        Some(Value::Host(o)) => match tvm_obj(&o) {
            Some(Obj::Target(t)) => t.text.clone(),
            _ => {
                return Err(PyErr::type_error(
                    "target must be a string, a dict or a tvm.target.Target",
                ))
            }
        },
        Some(other) => {
            return Err(PyErr::type_error(format!(
                "target must be a string, a dict or a tvm.target.Target, not {}",
                it.repr(&other)?
            )))
        }
    })
}

/// The target of a build, from a string, dict or Target object (`llvm`
/// when absent), parsed by [`Target::parse`]; a dict names a kind only.
pub(crate) fn target_arg(it: &mut Interp, v: Option<Value>) -> Res<Target> {
    let undefined =
        |kind: &str| PyErr::value_error(format!("Target kind \"{kind}\" is not defined"));
    match v {
        Some(Value::Host(o)) => match tvm_obj(&o) {
            Some(Obj::Target(t)) => Ok(t.clone()),
            _ => Err(PyErr::type_error(
                "target must be a string, a dict or a tvm.target.Target",
            )),
        },
        Some(Value::Dict(d)) => {
            let text = target_text(it, Some(Value::Dict(d)))?;
            TargetKind::from_name(&text)
                .map(Target::of_kind)
                .ok_or_else(|| undefined(&text))
        }
        v => {
            let text = target_text(it, v)?;
            Target::parse(&text).map_err(|e| PyErr::value_error(e.to_string()))
        }
    }
}

fn tvm_build(it: &mut Interp, mut a: Args) -> Res<Value> {
    let m = a.req(0, "ir_mod", "build")?;
    let target = a.take(1, "target");
    let _ = a.take(2, "pipeline");
    let _ = a.take_kw("target_host");
    let _ = a.take_kw("name");
    a.done("build", 3)?;
    let (module, _) = module_arg(&m, "tvm.build")?;
    // A built PrimFunc also answers to its global symbol.
    let alias = match &m {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::PrimFunc { func, .. }) => name_of(func).filter(|n| n != "main"),
            _ => None,
        },
        _ => None,
    };
    let target = target_arg(it, target)?;
    if module.prim_funcs().next().is_none() {
        return Err(PyErr::value_error("the module has no PrimFunc to build"));
    }
    it.charge_steps(1000)?;
    let exec = it
        .backend
        .build(&module, &target, &BuildOptions::default())
        .map_err(|e| PyErr::new(ExcKind::TVMError, e.to_string()))?;
    let functions: Vec<String> = module.names().map(str::to_string).collect();
    let aliases: Vec<(String, String)> =
        alias.into_iter().map(|a| (a, "main".to_string())).collect();
    let entry = if functions.iter().any(|f| f == "main") {
        "main".to_string()
    } else {
        functions.first().cloned().unwrap_or_default()
    };
    Ok(host(Obj::RtModule(Rc::new(RtModule {
        exec,
        entry,
        target: target.kind_name().to_string(),
        functions,
        aliases,
        executable: args_is_compile(&a),
    }))))
}

fn args_is_compile(a: &Args) -> bool {
    matches!(&a.data, Some(Value::Str(s)) if &**s == "compile")
}

/// Calls a built function with tensors (written back in place).
pub fn call_packed(it: &mut Interp, m: &Rc<RtModule>, name: &str, a: Args) -> Res<Value> {
    let (mut arrays, targets) = packed_args(&a)?;
    let budget = it.steps_left().saturating_mul(IR_STEPS_PER_STEP);
    let used = m
        .exec
        .run(name, &mut arrays, budget)
        .map_err(|e| PyErr::new(ExcKind::TVMError, e))?;
    it.charge_steps(used / IR_STEPS_PER_STEP)?;
    write_back(targets, arrays);
    Ok(Value::None)
}

type WriteBack = Vec<Option<Rc<ArrayObj>>>;

fn write_back(targets: WriteBack, arrays: Vec<NDArray>) {
    for (t, arr) in targets.into_iter().zip(arrays) {
        if let Some(t) = t {
            t.update(|d| *d = arr);
        }
    }
}

/// The arrays of a packed call, and the tensors to write them back to.
fn packed_args(a: &Args) -> Res<(Vec<NDArray>, WriteBack)> {
    if !a.kw.is_empty() {
        return Err(PyErr::type_error(
            "compiled functions take positional arguments only",
        ));
    }
    let mut arrays: Vec<NDArray> = Vec::with_capacity(a.pos.len());
    let mut targets: Vec<Option<Rc<ArrayObj>>> = Vec::with_capacity(a.pos.len());
    for (i, v) in a.pos.iter().enumerate() {
        match v {
            Value::Host(o) => match tvm_obj(o) {
                Some(Obj::Tensor { data, .. }) => {
                    arrays.push(data.borrow().clone());
                    targets.push(Some(data.clone()));
                }
                _ => {
                    return Err(PyErr::type_error(format!(
                        "argument {i}: expected a tvm.runtime.Tensor, got {}",
                        o.type_name()
                    )))
                }
            },
            Value::Array(data) => {
                arrays.push(data.borrow().clone());
                targets.push(Some(data.clone()));
            }
            Value::Int(x) => {
                arrays.push(
                    NDArray::scalar_i64(tessel_ir::DataType::i64(), *x)
                        .map_err(PyErr::value_error)?,
                );
                targets.push(None);
            }
            Value::Bool(x) => {
                arrays.push(
                    NDArray::scalar_i64(tessel_ir::DataType::bool(), *x as i64)
                        .map_err(PyErr::value_error)?,
                );
                targets.push(None);
            }
            Value::Float(x) => {
                arrays.push(
                    NDArray::scalar_f64(tessel_ir::DataType::f64(), *x)
                        .map_err(PyErr::value_error)?,
                );
                targets.push(None);
            }
            Value::NpScalar(s) => {
                let arr = match s.num {
                    Num::F(f) => NDArray::scalar_f64(s.dtype, f),
                    Num::I(i) => NDArray::scalar_i64(s.dtype, i),
                };
                arrays.push(arr.map_err(PyErr::value_error)?);
                targets.push(None);
            }
            other => {
                return Err(PyErr::type_error(format!(
                    "argument {i}: expected a tvm.runtime.Tensor, got {}",
                    other.type_name()
                )))
            }
        }
    }
    Ok((arrays, targets))
}

pub fn time_evaluate(
    it: &mut Interp,
    m: &Rc<RtModule>,
    name: &str,
    number: u64,
    repeat: u64,
    a: Args,
) -> Res<Value> {
    // A backend with its own timer (compiled wasm, GPU timestamps).
    let (mut arrays, targets) = packed_args(&a)?;
    let clock = it.host.clone();
    if let Some(r) = m
        .exec
        .time(name, &mut arrays, number.max(1), repeat.max(1), &*clock)
    {
        let results = r.map_err(|e| PyErr::new(ExcKind::TVMError, e))?;
        it.charge_steps(number.max(1).saturating_mul(repeat.max(1)))?;
        write_back(targets, arrays);
        return Ok(host(Obj::BenchmarkResult(results)));
    }
    let mut results = Vec::with_capacity(repeat as usize);
    for _ in 0..repeat.max(1) {
        let t0 = it.host.now_seconds();
        for _ in 0..number.max(1) {
            let args = Args {
                pos: a.pos.clone(),
                kw: Vec::new(),
                data: None,
            };
            call_packed(it, m, name, args)?;
        }
        let t1 = it.host.now_seconds();
        results.push((t1 - t0).max(0.0) / number.max(1) as f64);
    }
    Ok(host(Obj::BenchmarkResult(results)))
}

/// A device module of a build (`rt_mod.imported_modules[i]`): its source
/// only; its functions are called through the host module.
struct DeviceModule(crate::SourceModule);

impl crate::Executable for DeviceModule {
    fn function_names(&self) -> Vec<String> {
        Vec::new()
    }
    fn run(&self, name: &str, _args: &mut [NDArray], _budget: u64) -> Result<u64, String> {
        Err(format!(
            "`{name}`: call functions through the host module, not an imported {} module",
            self.0.type_key
        ))
    }
    fn source(&self, _fmt: &str) -> Result<Option<String>, String> {
        Ok(Some(self.0.source.clone()))
    }
}

fn rt_function(m: &Rc<RtModule>, name: &str) -> Res<Value> {
    let resolved = match m.aliases.iter().find(|(a, _)| a == name) {
        Some((_, target)) => target.clone(),
        None => name.to_string(),
    };
    if !m.functions.contains(&resolved) {
        return Err(PyErr::attribute_error(format!(
            "Module has no function '{name}'"
        )));
    }
    Ok(host(Obj::PackedFunc {
        module: m.clone(),
        name: resolved,
    }))
}

// ----------------------------------------------------------------------------
// Tensors and devices

fn device_arg(it: &mut Interp, v: Option<Value>) -> Res<Device> {
    match v {
        None | Some(Value::None) => Ok(Device::cpu()),
        Some(Value::Host(o)) => match tvm_obj(&o) {
            Some(Obj::Device(d)) => Ok(*d),
            _ => Err(PyErr::type_error("expected a device")),
        },
        Some(Value::Str(s)) => make_device(it, &s, 0),
        Some(other) => Err(PyErr::type_error(format!(
            "expected a device, got {}",
            other.type_name()
        ))),
    }
}

fn make_device(it: &mut Interp, kind: &str, index: i64) -> Res<Device> {
    let _ = it;
    let k: &'static str = match kind.split_whitespace().next().unwrap_or("") {
        "cpu" | "llvm" | "c" | "ext_dev" => "cpu",
        "cuda" | "gpu" | "nvptx" => "cuda",
        "metal" => "metal",
        "vulkan" => "vulkan",
        "opencl" | "cl" => "opencl",
        "rocm" => "rocm",
        "webgpu" => "webgpu",
        other => return Err(PyErr::value_error(format!("Unknown device: {other}"))),
    };
    Ok(Device { kind: k, index })
}

fn dev_ctor(it: &mut Interp, a: Args) -> Res<Value> {
    let kind = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_else(|| "cpu".into());
    let index = a.pos.first().and_then(num_i64).unwrap_or(0);
    Ok(host(Obj::Device(make_device(it, &kind, index)?)))
}

fn tvm_device(it: &mut Interp, mut a: Args) -> Res<Value> {
    let kind = a.req(0, "dev_type", "device")?;
    let index = a.take(1, "dev_id").and_then(|v| num_i64(&v)).unwrap_or(0);
    let d = match &kind {
        Value::Str(s) => make_device(it, s, index)?,
        other => {
            let code = num_i64(other)
                .ok_or_else(|| PyErr::type_error("device type must be a string or an int"))?;
            let k = match code {
                1 => "cpu",
                2 => "cuda",
                4 => "opencl",
                7 => "vulkan",
                8 => "metal",
                10 => "rocm",
                15 => "webgpu",
                _ => return Err(PyErr::value_error(format!("Unknown device type {code}"))),
            };
            Device { kind: k, index }
        }
    };
    Ok(host(Obj::Device(d)))
}

fn tensor_value(it: &mut Interp, arr: NDArray, device: Device) -> Res<Value> {
    let data = it.array_obj(arr)?;
    Ok(host(Obj::Tensor { data, device }))
}

fn runtime_tensor(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "arr", "tensor")?;
    let dev = a.take(1, "device").or_else(|| a.take_kw("dev"));
    let device = device_arg(it, dev)?;
    let arr = match &v {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Tensor { data, .. }) => data.borrow().clone(),
            _ => crate::python::numpy::module::array_from(it, &v, None)?,
        },
        _ => crate::python::numpy::module::array_from(it, &v, None)?,
    };
    tensor_value(it, arr, device)
}

fn runtime_empty(it: &mut Interp, mut a: Args) -> Res<Value> {
    let shape = a.req(0, "shape", "empty")?;
    let dtype = a.take(1, "dtype").unwrap_or(Value::str("float32"));
    let dev = a.take(2, "device").or_else(|| a.take_kw("dev"));
    let device = device_arg(it, dev)?;
    let dims = crate::python::numpy::shape_args(it, std::slice::from_ref(&shape))?;
    let shape: Vec<usize> = dims.into_iter().map(|d| d.max(0) as usize).collect();
    let dt = crate::python::numpy::dtype_arg(it, &dtype)?;
    let n: usize = shape.iter().fold(1usize, |acc, &d| acc.saturating_mul(d));
    it.check_alloc((n as u64).saturating_mul(dt.bytes() as u64))?;
    let arr = NDArray::zeros(dt, &shape).map_err(|e| PyErr::new(ExcKind::MemoryError, e))?;
    tensor_value(it, arr, device)
}

fn tensor_method(it: &mut Interp, o: &Obj, this: &Value, name: &str, a: Args) -> Res<Value> {
    let Obj::Tensor { data, device } = o else {
        return Err(PyErr::type_error("not a tensor"));
    };
    match name {
        "numpy" | "asnumpy" => {
            let arr = data.borrow().clone();
            it.new_array(arr)
        }
        "copyfrom" => {
            let v = a
                .pos
                .first()
                .cloned()
                .ok_or_else(|| PyErr::type_error("copyfrom() takes an array"))?;
            let src = match &v {
                Value::Host(h) => match tvm_obj(h) {
                    Some(Obj::Tensor { data, .. }) => data.borrow().clone(),
                    _ => crate::python::numpy::module::array_from(it, &v, None)?,
                },
                _ => crate::python::numpy::module::array_from(it, &v, None)?,
            };
            let (shape, dt) = {
                let d = data.borrow();
                (d.shape().to_vec(), d.dtype())
            };
            if src.shape() != shape.as_slice() {
                return Err(PyErr::value_error(format!(
                    "array shape do not match the shape of Tensor {} vs {}",
                    shape_text(src.shape()),
                    shape_text(&shape)
                )));
            }
            let srcv = it.new_array(src)?;
            let conv = crate::python::numpy::module::array_from(it, &srcv, Some(dt))?;
            data.update(|d| *d = conv);
            Ok(this.clone())
        }
        "copyto" => {
            let target = a
                .pos
                .first()
                .cloned()
                .ok_or_else(|| PyErr::type_error("copyto() takes a device or tensor"))?;
            match &target {
                Value::Host(h) => match tvm_obj(h) {
                    Some(Obj::Device(d)) => {
                        let arr = data.borrow().clone();
                        tensor_value(it, arr, *d)
                    }
                    Some(Obj::Tensor { data: dst, .. }) => {
                        let src = data.borrow().clone();
                        dst.update(|d| *d = src);
                        Ok(target.clone())
                    }
                    _ => Err(PyErr::type_error("copyto() takes a device or tensor")),
                },
                _ => Err(PyErr::type_error("copyto() takes a device or tensor")),
            }
        }
        _ => {
            let _ = device;
            Err(PyErr::attribute_error(format!(
                "'Tensor' object has no attribute '{name}'"
            )))
        }
    }
}

// ----------------------------------------------------------------------------
// Attribute access and methods of TVM objects

pub fn get_attr(it: &mut Interp, o: &Obj, v: &Value, name: &str) -> Res<Value> {
    let bound = || Ok(Value::BoundMethod(Rc::new((v.clone(), name.into()))));
    let missing = || {
        Err(PyErr::attribute_error(format!(
            "'{}' object has no attribute '{name}'",
            o.type_name()
        )))
    };
    if name == "same_as" {
        return bound();
    }
    match o {
        Obj::IRModule { module, .. } => match name {
            "script" | "show" | "get_global_var" | "get_global_vars" | "update_func"
            | "with_attr" | "astext" => bound(),
            "functions" => {
                let items: Vec<(String, Rc<PrimFunc>)> = module
                    .borrow()
                    .prim_funcs()
                    .map(|(n, f)| (n.to_string(), f.clone()))
                    .collect();
                let dialect = match o {
                    Obj::IRModule { dialect, .. } => *dialect,
                    _ => Dialect::default(),
                };
                let mut d = Dict::new();
                for (n, f) in items {
                    d.insert(
                        host(Obj::GlobalVar(n)),
                        host(Obj::PrimFunc { func: f, dialect }),
                    )?;
                }
                let graphs: Vec<_> = module
                    .borrow()
                    .graph_funcs()
                    .map(|(n, f)| (n.to_string(), f.clone()))
                    .collect();
                for (n, f) in graphs {
                    d.insert(host(Obj::GlobalVar(n)), super::relax::func_value(&f))?;
                }
                Ok(it.new_dict(d))
            }
            "attrs" => {
                let attrs = module.borrow().attrs.clone();
                let mut items = Vec::new();
                for (k, a) in &attrs {
                    items.push((k.clone(), attr_to_value(it, a)?));
                }
                Ok(host(Obj::Attrs(items)))
            }
            _ => missing(),
        },
        Obj::PrimFunc { func, dialect } => match name {
            "script" | "show" | "with_attr" | "without_attr" | "astext" => bound(),
            "body" => Ok(super::schedule_state::stmt_value(
                &func.body, false, *dialect,
            )),
            "attrs" => {
                let mut items = Vec::new();
                for (k, a) in &func.attrs {
                    items.push((k.clone(), attr_to_value(it, a)?));
                }
                Ok(host(Obj::Attrs(items)))
            }
            // TVM 0.27's parameters are variables typed by their buffer:
            // a handle's `.ty` has the buffer's shape and dtype.
            "params" => {
                let params: Vec<Value> = func
                    .params
                    .iter()
                    .map(|p| match func.param_buffer(p) {
                        Some(b) => compiler_core::te::placeholder(&b.shape, b.dtype, &b.name)
                            .map(super::te::tensor_value)
                            .unwrap_or_else(|_| Value::str(p.name().to_string())),
                        None => super::te::expr_value(p.to_expr()),
                    })
                    .collect();
                it.new_list(params)
            }
            _ => missing(),
        },
        Obj::GlobalVar(n) => match name {
            "name_hint" => Ok(Value::str(n.as_str())),
            _ => missing(),
        },
        Obj::Attrs(items) => match name {
            "keys" | "values" | "items" | "get" => bound(),
            _ => match items.iter().find(|(k, _)| k == name) {
                Some((_, v)) => Ok(v.clone()),
                None => missing(),
            },
        },
        Obj::Schedule(s) => match name {
            "mod" => {
                let s = s.borrow();
                Ok(host(Obj::IRModule {
                    module: RefCell::new(s.sch.module().clone()),
                    dialect: s.ir_dialect,
                }))
            }
            "trace" => Ok(super::schedule_state::trace_value(&s.borrow())),
            "state" => Ok(host(Obj::State(v.clone()))),
            "func_working_on" => {
                let n = s.borrow().sch.func_name().to_string();
                Ok(host(Obj::GlobalVar(n)))
            }
            _ => bound(),
        },
        Obj::Trace { owner, insts, .. } => match name {
            "show" | "as_python" => bound(),
            "insts" => super::schedule_state::trace_insts(it, *owner, insts),
            "decisions" => super::schedule_state::trace_decisions(it, *owner, insts),
            _ => missing(),
        },
        Obj::SRef(r) => super::schedule_state::sref_attr(r, name).map_or_else(missing, Ok),
        Obj::State(sch) => match (name, obj_of(sch)) {
            ("mod", Some(o @ Obj::Schedule(_))) => get_attr(it, o, sch, "mod"),
            ("get_sref", _) => bound(),
            _ => missing(),
        },
        Obj::Tensor { data, device } => match name {
            "shape" => Ok(crate::python::numpy::shape_value(data.borrow().shape())),
            "dtype" => Ok(Value::NpDType(data.borrow().dtype())),
            "device" => Ok(host(Obj::Device(*device))),
            "ndim" => Ok(Value::Int(data.borrow().ndim() as i64)),
            "numpy" | "asnumpy" | "copyfrom" | "copyto" => bound(),
            _ => missing(),
        },
        Obj::Device(d) => match name {
            "type" => Ok(Value::str(d.kind)),
            "index" => Ok(Value::Int(d.index)),
            "exist" => Ok(Value::Bool(it.host.device_exists(d.kind))),
            "sync" | "dlpack_device_type" => bound(),
            _ => missing(),
        },
        Obj::Target(t) => match name {
            "kind" => Ok(Value::str(t.kind_name())),
            "keys" => {
                let keys: Vec<Value> = match t.kind_name() {
                    "cuda" => vec![Value::str("cuda"), Value::str("gpu")],
                    _ if t.is_gpu() => vec![Value::str("gpu")],
                    _ => vec![Value::str("cpu")],
                };
                it.new_list(keys)
            }
            _ => missing(),
        },
        Obj::RtModule(m) => match name {
            "entry_name" => Ok(Value::str(m.entry.as_str())),
            "time_evaluator"
            | "get_function"
            | "implements_function"
            | "export_library"
            | "get_source"
            | "inspect_source" => bound(),
            "type_key" | "kind" => Ok(Value::str(if m.target == "llvm" {
                "llvm"
            } else {
                m.target.as_str()
            })),
            "imported_modules" | "imports" => {
                let mods: Vec<Value> = m
                    .exec
                    .imported_modules()
                    .into_iter()
                    .map(|sm| {
                        host(Obj::RtModule(Rc::new(RtModule {
                            target: sm.type_key.clone(),
                            exec: Rc::new(DeviceModule(sm)),
                            entry: String::new(),
                            functions: Vec::new(),
                            aliases: Vec::new(),
                            executable: false,
                        })))
                    })
                    .collect();
                it.new_list(mods)
            }
            _ => missing(),
        },
        Obj::BenchmarkResult(r) => {
            let s = stats(r);
            match name {
                "mean" => Ok(Value::Float(s.mean)),
                "median" => Ok(Value::Float(s.median)),
                "min" => Ok(Value::Float(s.min)),
                "max" => Ok(Value::Float(s.max)),
                "std" => Ok(Value::Float(s.std)),
                "results" => {
                    let v: Vec<Value> = r.iter().map(|x| Value::Float(*x)).collect();
                    it.new_list(v)
                }
                _ => missing(),
            }
        }
        Obj::IRText {
            node: Some(node),
            class,
            dialect,
            ..
        } => {
            let dialect = *dialect;
            match super::schedule_state::stmt_attr(it, node, class, name, dialect)? {
                Some(v) => Ok(v),
                None => missing(),
            }
        }
        _ => missing(),
    }
}

pub fn call_method(it: &mut Interp, o: &Obj, recv: &Value, name: &str, mut a: Args) -> Res<Value> {
    if name == "same_as" {
        let other = a.req(0, "other", "same_as")?;
        a.done("same_as", 1)?;
        return Ok(Value::Bool(same_object(o, recv, &other)));
    }
    match o {
        Obj::Schedule(_) => schedule_method(it, o, name, a),
        Obj::Tensor { .. } => tensor_method(it, o, recv, name, a),
        Obj::IRModule { module, dialect } => match name {
            "script" | "astext" => Ok(Value::str(script_text(o).unwrap_or_default().trim_end())),
            "show" => {
                let t = script_text(o).unwrap_or_default();
                it.stdout(format!("{}\n", t.trim_end()));
                Ok(Value::None)
            }
            "get_global_var" => {
                let n = a.req(0, "name", "get_global_var")?;
                let n = func_name_arg(&n)?;
                if module.borrow().get(&n).is_none() {
                    return Err(PyErr::value_error(format!(
                        "Cannot find global var \"{n}\" in the Module"
                    )));
                }
                Ok(host(Obj::GlobalVar(n)))
            }
            "get_global_vars" => {
                // An FFI array, which prints like a tuple.
                let names: Vec<Value> = module
                    .borrow()
                    .names()
                    .map(|n| host(Obj::GlobalVar(n.to_string())))
                    .collect();
                Ok(Value::tuple(names))
            }
            "update_func" => {
                let gv = a.req(0, "gv", "update_func")?;
                let f = a.req(1, "func", "update_func")?;
                let n = func_name_arg(&gv)?;
                let (func, _) = module_func_arg(&f, "update_func")?;
                module.borrow_mut().insert(n, func);
                Ok(Value::None)
            }
            "with_attr" => {
                let k = a.req(0, "attr_key", "with_attr")?;
                let v = a.req(1, "attr_value", "with_attr")?;
                let key = k
                    .as_str()
                    .ok_or_else(|| PyErr::type_error("attribute key must be a string"))?
                    .to_string();
                let mut m = module.borrow().clone();
                m.attrs.insert(key, attr_value(it, &v)?);
                Ok(host(Obj::IRModule {
                    module: RefCell::new(m),
                    dialect: *dialect,
                }))
            }
            _ => Err(PyErr::attribute_error(format!(
                "'IRModule' object has no attribute '{name}'"
            ))),
        },
        Obj::PrimFunc { func, dialect } => match name {
            "script" | "astext" => Ok(Value::str(script_text(o).unwrap_or_default().trim_end())),
            "show" => {
                let t = script_text(o).unwrap_or_default();
                it.stdout(format!("{}\n", t.trim_end()));
                Ok(Value::None)
            }
            "with_attr" => {
                let mut f = (**func).clone();
                match a.pos.as_slice() {
                    [Value::Dict(d)] => {
                        for (k, v) in d.borrow().items() {
                            let key = k
                                .as_str()
                                .ok_or_else(|| PyErr::type_error("attribute key must be a string"))?
                                .to_string();
                            f.attrs.insert(key, attr_value(it, &v)?);
                        }
                    }
                    [k, v] => {
                        let key = k
                            .as_str()
                            .ok_or_else(|| PyErr::type_error("attribute key must be a string"))?
                            .to_string();
                        f.attrs.insert(key, attr_value(it, v)?);
                    }
                    _ => {
                        return Err(PyErr::type_error(
                            "with_attr() takes a key and a value, or a dict",
                        ))
                    }
                }
                Ok(host(Obj::PrimFunc {
                    func: Rc::new(f),
                    dialect: *dialect,
                }))
            }
            "without_attr" => {
                let k = a.req(0, "attr_key", "without_attr")?;
                let mut f = (**func).clone();
                if let Some(k) = k.as_str() {
                    f.attrs.remove(k);
                }
                Ok(host(Obj::PrimFunc {
                    func: Rc::new(f),
                    dialect: *dialect,
                }))
            }
            _ => Err(PyErr::attribute_error(format!(
                "'PrimFunc' object has no attribute '{name}'"
            ))),
        },
        Obj::Attrs(items) => match name {
            "keys" => {
                let v: Vec<Value> = items.iter().map(|(k, _)| Value::str(k.as_str())).collect();
                Ok(CoreObj::DictView("dict_keys", v).value())
            }
            "values" => Ok(Value::Host(Rc::new(CoreObj::DictView(
                "dict_values",
                items.iter().map(|(_, v)| v.clone()).collect(),
            )))),
            "items" => Ok(Value::Host(Rc::new(CoreObj::DictView(
                "dict_items",
                items
                    .iter()
                    .map(|(k, v)| Value::tuple(vec![Value::str(k.as_str()), v.clone()]))
                    .collect(),
            )))),
            "get" => {
                let k = a.req(0, "key", "get")?;
                let d = a.take(1, "default").unwrap_or(Value::None);
                Ok(items
                    .iter()
                    .find(|(x, _)| Some(x.as_str()) == k.as_str())
                    .map(|(_, v)| v.clone())
                    .unwrap_or(d))
            }
            _ => Err(PyErr::attribute_error(format!(
                "'DictAttrs' object has no attribute '{name}'"
            ))),
        },
        Obj::State(sch) => match (name, obj_of(sch)) {
            ("get_sref", Some(Obj::Schedule(s))) => {
                let arg = a.req(0, "stmt", "get_sref")?;
                a.done("get_sref", 1)?;
                let s = s.borrow();
                super::schedule_state::state_get_sref(&s, &arg)
            }
            _ => Err(PyErr::attribute_error(format!(
                "'ScheduleState' object has no attribute '{name}'"
            ))),
        },
        Obj::Trace { text, .. } => match name {
            "show" => {
                it.stdout(format!("{text}\n"));
                Ok(Value::None)
            }
            "as_python" => {
                let lines: Vec<Value> = text
                    .lines()
                    .skip(2)
                    .map(|l| Value::str(l.trim_start()))
                    .collect();
                it.new_list(lines)
            }
            _ => Err(PyErr::attribute_error(format!(
                "'Trace' object has no attribute '{name}'"
            ))),
        },
        Obj::Device(d) => match name {
            "sync" => Ok(Value::None),
            "dlpack_device_type" => Ok(Value::Int(d.type_code())),
            _ => Err(PyErr::attribute_error(format!(
                "'Device' object has no attribute '{name}'"
            ))),
        },
        Obj::RtModule(m) => match name {
            "time_evaluator" => {
                let fname = a.req(0, "func_name", "time_evaluator")?;
                let fname = fname
                    .as_str()
                    .ok_or_else(|| PyErr::type_error("func_name must be a string"))?
                    .to_string();
                let fname = match m.aliases.iter().find(|(x, _)| *x == fname) {
                    Some((_, t)) => t.clone(),
                    None => fname,
                };
                let dev = a.take(1, "dev");
                let _ = device_arg(it, dev)?;
                let number = a
                    .take(2, "number")
                    .and_then(|v| num_i64(&v))
                    .unwrap_or(10)
                    .max(1) as u64;
                let repeat = a
                    .take(3, "repeat")
                    .and_then(|v| num_i64(&v))
                    .unwrap_or(1)
                    .max(1) as u64;
                let _ = a.take(4, "min_repeat_ms");
                let _ = a.take_kw("cooldown_interval_ms");
                let _ = a.take_kw("repeats_to_cooldown");
                let _ = a.take_kw("f_preproc");
                if number.saturating_mul(repeat) > 1_000_000 {
                    return Err(PyErr::value_error(
                        "time_evaluator: number * repeat is too large",
                    ));
                }
                rt_function(m, &fname)?;
                Ok(host(Obj::TimeEvaluator {
                    module: m.clone(),
                    name: fname,
                    number,
                    repeat,
                }))
            }
            "get_function" => {
                let n = a.req(0, "name", "get_function")?;
                rt_function(m, n.as_str().unwrap_or(""))
            }
            "implements_function" => {
                let n = a.req(0, "name", "implements_function")?;
                Ok(Value::Bool(
                    rt_function(m, n.as_str().unwrap_or("")).is_ok(),
                ))
            }
            "get_source" | "inspect_source" => {
                let fmt = a.take(0, "fmt").or_else(|| a.take_kw("format"));
                a.done(name, 1)?;
                let fmt = match &fmt {
                    None => String::new(),
                    Some(v) => v
                        .as_str()
                        .ok_or_else(|| PyErr::type_error("fmt must be a string"))?
                        .to_string(),
                };
                match m.exec.source(&fmt) {
                    Ok(Some(text)) => Ok(Value::str(text.as_str())),
                    Ok(None) => Err(PyErr::new(
                        ExcKind::TVMError,
                        "this module was built by the reference interpreter, which generates no \
                         source (build with a code-generating backend, e.g. `tessel run \
                         --backend native`)",
                    )),
                    Err(e) => Err(PyErr::new(ExcKind::TVMError, e)),
                }
            }
            "export_library" => Err(PyErr::new(
                ExcKind::PermissionError,
                "export_library is not available in Tessel's sandbox (no file system)",
            )),
            _ => Err(PyErr::attribute_error(format!(
                "'Module' object has no attribute '{name}'"
            ))),
        },
        _ => {
            let f = get_attr(it, o, recv, name)?;
            it.call(&f, a)
        }
    }
}

pub fn get_item(it: &mut Interp, o: &Obj, idx: Value) -> Res<Value> {
    match o {
        Obj::IRModule { module, dialect } => {
            let n = func_name_arg(&idx)?;
            match module.borrow().get(&n) {
                Some(BaseFunc::Prim(f)) => Ok(host(Obj::PrimFunc {
                    func: f.clone(),
                    dialect: *dialect,
                })),
                Some(BaseFunc::Graph(f)) => Ok(super::relax::func_value(f)),
                None => Err(PyErr::value_error(format!(
                    "Cannot find global var \"{n}\" in the Module"
                ))),
            }
        }
        Obj::RtModule(m) => {
            let n = idx
                .as_str()
                .ok_or_else(|| PyErr::type_error("function name must be a string"))?;
            rt_function(m, n)
        }
        Obj::Attrs(items) => {
            let k = idx.as_str().unwrap_or("");
            items
                .iter()
                .find(|(x, _)| x == k)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| PyErr::key_error(idx.clone()))
        }
        Obj::Tensor { data, .. } => crate::python::numpy::get_item(it, data, &idx),
        Obj::IRText {
            node: Some(node),
            dialect,
            ..
        } if super::schedule_state::stmt_len(node).is_some() => {
            let dialect = *dialect;
            super::schedule_state::stmt_item(node, &idx, dialect)
                .unwrap_or_else(|| Err(PyErr::type_error("'SeqStmt' object is not subscriptable")))
        }
        _ => Err(PyErr::type_error(format!(
            "'{}' object is not subscriptable",
            o.type_name()
        ))),
    }
}

pub fn set_item(it: &mut Interp, o: &Obj, idx: Value, v: Value) -> Res<()> {
    match o {
        Obj::IRModule { module, .. } => {
            let n = func_name_arg(&idx)?;
            let (func, _) = module_func_arg(&v, "IRModule item assignment")?;
            module.borrow_mut().insert(n, func);
            Ok(())
        }
        Obj::Tensor { data, .. } => crate::python::numpy::set_item(it, data, &idx, &v),
        _ => Err(PyErr::type_error(format!(
            "'{}' object does not support item assignment",
            o.type_name()
        ))),
    }
}

// ----------------------------------------------------------------------------
// Classes

fn irmodule_from_dict(it: &mut Interp, funcs: Option<Value>) -> Res<Value> {
    let mut module = IRModule::new();
    let mut dialect = None;
    if let Some(Value::Dict(d)) = &funcs {
        for (k, v) in d.borrow().items() {
            let name = func_name_arg(&k)?;
            let (func, d) = module_func_arg(&v, "IRModule")?;
            if let Some(d) = d {
                dialect.get_or_insert(d);
            }
            module.insert(name, func);
        }
    } else if let Some(v) = funcs {
        if !matches!(v, Value::None) {
            return Err(PyErr::type_error(format!(
                "IRModule expects a dict of functions, got {}",
                it.repr(&v)?
            )));
        }
    }
    Ok(host(Obj::IRModule {
        module: RefCell::new(module),
        dialect: dialect.unwrap_or_default(),
    }))
}

fn irmodule_from_expr(it: &mut Interp, mut a: Args) -> Res<Value> {
    let f = a.req(0, "expr", "from_expr")?;
    // A graph function goes in under its global symbol, or as `main`.
    if let Some(Obj::Relax(super::relax::RObj::Func(g))) = obj_of(&f) {
        let name = match g.attrs.get("global_symbol") {
            Some(AttrValue::Str(s)) => s.clone(),
            _ => "main".to_string(),
        };
        let mut out = IRModule::new();
        out.insert(name, BaseFunc::Graph(g.clone()));
        return Ok(host(Obj::IRModule {
            module: RefCell::new(out),
            dialect: Dialect::default(),
        }));
    }
    let (m, dialect) = module_arg(&f, "IRModule.from_expr")?;
    let mut out = IRModule::new();
    if let Some((_, func)) = m.prim_funcs().next() {
        // Named by its global symbol, like TVM.
        let name = name_of(func).unwrap_or_else(|| "main".into());
        out.insert(name, BaseFunc::Prim(func.clone()));
    }
    let _ = it;
    Ok(host(Obj::IRModule {
        module: RefCell::new(out),
        dialect,
    }))
}

pub fn class_attr(_it: &mut Interp, c: &Rc<Class>, name: &str) -> Res<Option<Value>> {
    Ok(match (c.display_name().as_str(), name) {
        ("tvm.ir.module.IRModule", "from_expr") => Some(builtin(
            "tvm.ir.module.IRModule.from_expr",
            irmodule_from_expr,
        )),
        ("tvm.s_tir.schedule.TensorIntrin", "register") => {
            Some(builtin("tvm.s_tir.TensorIntrin.register", intrin_register))
        }
        ("tvm.s_tir.schedule.TensorIntrin", "get") => {
            Some(builtin("tvm.s_tir.TensorIntrin.get", intrin_get))
        }
        // The debug checks a schedule may run (an IntFlag in TVM); Tessel
        // always checks what its primitives check, and with
        // VERIFY_CACHED_FLAGS refuses what TVM's re-check would.
        ("tvm.s_tir.schedule.state.ScheduleDebugMask", "VERIFY_SREF_TREE") => Some(Value::Int(1)),
        ("tvm.s_tir.schedule.state.ScheduleDebugMask", "VERIFY_CACHED_FLAGS") => {
            Some(Value::Int(2))
        }
        _ => None,
    })
}

fn prim_func_arg(v: &Value, what: &str) -> Res<Rc<PrimFunc>> {
    match v {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::PrimFunc { func, .. }) => Ok(func.clone()),
            _ => Err(PyErr::type_error(format!("{what} must be a PrimFunc"))),
        },
        _ => Err(PyErr::type_error(format!("{what} must be a PrimFunc"))),
    }
}

/// `TensorIntrin.register(name, desc, impl, override=False)`.
fn intrin_register(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a.req(0, "name", "register")?;
    let name = name
        .as_str()
        .ok_or_else(|| PyErr::type_error("the intrinsic's name must be a string"))?
        .to_string();
    let desc = a.req(1, "desc", "register")?;
    let desc = prim_func_arg(&desc, "desc")?;
    let imp = a.req(2, "impl", "register")?;
    let imp = prim_func_arg(&imp, "impl")?;
    let over = match a.take(3, "override") {
        Some(v) => it.truthy(&v)?,
        None => false,
    };
    it.intrins
        .register(&name, desc, imp, over)
        .map_err(|e| PyErr::value_error(e.to_string()))?;
    Ok(Value::None)
}

/// `TensorIntrin.get(name, allow_missing=False)`: the description and implementation.
fn intrin_get(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a.req(0, "name", "get")?;
    let name = name.as_str().unwrap_or("").to_string();
    let allow_missing = match a.take(1, "allow_missing") {
        Some(v) => it.truthy(&v)?,
        None => false,
    };
    match it.intrins.get(&name) {
        Some(i) => Ok(Value::tuple(vec![
            host(Obj::PrimFunc {
                func: i.desc.clone(),
                dialect: Dialect::default(),
            }),
            host(Obj::PrimFunc {
                func: i.implementation.clone(),
                dialect: Dialect::default(),
            }),
        ])),
        None if allow_missing => Ok(Value::None),
        None => Err(PyErr::value_error(format!(
            "TensorIntrin `{name}` is not registered"
        ))),
    }
}

pub fn construct(it: &mut Interp, c: &Rc<Class>, mut a: Args) -> Res<Value> {
    match c.display_name().as_str() {
        "tvm.ir.module.IRModule" => {
            let funcs = a.take(0, "functions");
            let _ = a.take(1, "attrs");
            irmodule_from_dict(it, funcs)
        }
        "tvm.s_tir.schedule.schedule.Schedule" => new_schedule(it, a, TraceDialect::STir),
        "tvm.tir.schedule.schedule.Schedule" => new_schedule(it, a, TraceDialect::Tir),
        "tvm.target.target.Target" => {
            let t = a.req(0, "target", "Target")?;
            let mut target = target_arg(it, Some(t))?;
            if let Some(h) = a.take_kw("host").filter(|h| !matches!(h, Value::None)) {
                target = target.with_host(target_arg(it, Some(h))?);
            }
            Ok(host(Obj::Target(target)))
        }
        other => Err(PyErr::type_error(format!(
            "cannot create '{other}' objects directly"
        ))),
    }
}

// ----------------------------------------------------------------------------
// Structural equality

/// The statement a value holds (`sch.get(...)`, `sref.stmt`, `func.body`).
fn stmt_node(v: &Value) -> Option<&tessel_ir::Stmt> {
    match obj_of(v) {
        Some(Obj::IRText { node: Some(n), .. }) => Some(n),
        _ => None,
    }
}

fn ir_node(v: &Value) -> Res<(Option<IRModule>, Option<Rc<PrimFunc>>)> {
    if let Value::Host(o) = v {
        match tvm_obj(o) {
            Some(Obj::IRModule { module, .. }) => return Ok((Some(module.borrow().clone()), None)),
            Some(Obj::PrimFunc { func, .. }) => return Ok((None, Some(func.clone()))),
            _ => {}
        }
    }
    Err(PyErr::type_error(format!(
        "structural equality compares IRModules, PrimFuncs or statements, not {}",
        v.type_name()
    )))
}

fn structural_compare(it: &mut Interp, a: &mut Args, func: &str) -> Res<Result<(), String>> {
    let lhs = a.req(0, "lhs", func)?;
    let rhs = a.req(1, "rhs", func)?;
    let map_free_vars = match a.take(2, "map_free_vars") {
        Some(v) => it.truthy(&v)?,
        None => false,
    };
    let opts = EqualOptions {
        map_free_vars,
        ..EqualOptions::default()
    };
    if let (Some(x), Some(y)) = (stmt_node(&lhs), stmt_node(&rhs)) {
        return Ok(ir_equal(x, y, opts).map_err(|m| {
            format!(
                "StructuralEqual check failed, caused by lhs at {path}:\n{lhs}\nand rhs at {path}:\n{rhs}\n{msg}",
                path = m.path,
                lhs = m.lhs,
                rhs = m.rhs,
                msg = m.message
            )
        }));
    }
    let r = match (ir_node(&lhs)?, ir_node(&rhs)?) {
        ((Some(x), _), (Some(y), _)) => ir_equal(&x, &y, opts),
        ((_, Some(x)), (_, Some(y))) => ir_equal(&*x, &*y, opts),
        _ => {
            return Ok(Err(
                "StructuralEqual check failed: lhs and rhs are different kinds of IR (an IRModule and a PrimFunc)".into(),
            ))
        }
    };
    Ok(r.map_err(|m| {
        format!(
            "StructuralEqual check failed, caused by lhs at {path}:\n{lhs}\nand rhs at {path}:\n{rhs}\n{msg}",
            path = m.path,
            lhs = m.lhs,
            rhs = m.rhs,
            msg = m.message
        )
    }))
}

fn assert_structural_equal(it: &mut Interp, mut a: Args) -> Res<Value> {
    match structural_compare(it, &mut a, "assert_structural_equal")? {
        Ok(()) => Ok(Value::None),
        Err(msg) => Err(PyErr::value_error(msg)),
    }
}

/// `tvm.ir.structural_hash` / `tvm_ffi.structural_hash`: equal for
/// structurally equal IRModules or PrimFuncs (free variables, mapped or
/// not, never change it: the hash ignores variables' identity).
fn structural_hash(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let node = a.req(0, "node", "structural_hash")?;
    let _ = a.take(1, "map_free_vars");
    a.done("structural_hash", 2)?;
    let hash = match ir_node(&node)? {
        (Some(m), _) => compiler_core::analysis::structural_hash::structural_hash(&m),
        (_, Some(f)) => compiler_core::analysis::structural_hash::prim_func_hash(&f),
        _ => {
            return Err(PyErr::type_error(
                "structural_hash takes an IRModule or a PrimFunc",
            ))
        }
    };
    // Python's int of TVM's unsigned hash fits i64 once the sign bit is
    // folded in; only equality of hashes matters.
    Ok(Value::Int((hash >> 1) as i64))
}

fn structural_equal(it: &mut Interp, mut a: Args) -> Res<Value> {
    Ok(Value::Bool(
        structural_compare(it, &mut a, "structural_equal")?.is_ok(),
    ))
}

/// `tvm.s_tir.schedule.testing.assert_structural_equal_ignore_global_symbol`:
/// structural equality with the `global_symbol` attribute left out.
fn assert_structural_equal_ignore_global_symbol(it: &mut Interp, mut a: Args) -> Res<Value> {
    let func = "assert_structural_equal_ignore_global_symbol";
    let lhs = a.req(0, "func1", func)?;
    let rhs = a.req(1, "func2", func)?;
    let map_free_vars = match a.take(2, "map_free_vars") {
        Some(v) => it.truthy(&v)?,
        None => false,
    };
    let opts = EqualOptions {
        map_free_vars,
        ignore_global_symbol: true,
        ..EqualOptions::default()
    };
    let r = match (ir_node(&lhs)?, ir_node(&rhs)?) {
        ((Some(x), _), (Some(y), _)) => ir_equal(&x, &y, opts),
        ((_, Some(x)), (_, Some(y))) => ir_equal(&*x, &*y, opts),
        _ => {
            return Err(PyErr::value_error(
                "StructuralEqual check failed: lhs and rhs are different kinds of IR",
            ))
        }
    };
    r.map(|()| Value::None).map_err(|m| {
        PyErr::value_error(format!(
            "StructuralEqual check failed, caused by lhs at {path}:\n{lhs}\nand rhs at {path}:\n{rhs}\n{msg}",
            path = m.path,
            lhs = m.lhs,
            rhs = m.rhs,
            msg = m.message
        ))
    })
}

/// The primitives whose trace instruction keeps an `IndexMap`. TVM 0.27's
/// `trace.as_json()` crashes on such a trace (in `ffi::ToJSONGraph`), so its
/// JSON round trip never succeeds; the `"json"` check refuses them the same way.
const INDEX_MAP_PRIMITIVES: &[&str] = &[
    "transform_layout",
    "transform_block_layout",
    "reindex_cache_read",
    "reindex_cache_write",
];

/// `tvm.s_tir.schedule.testing.verify_trace_roundtrip(sch, mod, *,
/// debug_mask, text_format)`: replays `sch`'s trace on a fresh schedule of
/// `mod` — through its Python text (`"python"`) and through the recorded
/// instructions (`"json"`) — and checks the result and the new trace equal
/// the old ones, as TVM does. A trace holding an index map fails the JSON
/// round trip ([`INDEX_MAP_PRIMITIVES`]). Returns the fresh schedule.
fn verify_trace_roundtrip(it: &mut Interp, mut a: Args) -> Res<Value> {
    let func = "verify_trace_roundtrip";
    let sch_v = a.req(0, "sch", func)?;
    let mod_v = a.req(1, "mod", func)?;
    let _ = a.take_kw("debug_mask");
    let formats: Vec<String> = match a.take_kw("text_format") {
        None => vec!["python".into(), "json".into()],
        Some(Value::Str(s)) => vec![s.to_string()],
        Some(v) => {
            let mut out = Vec::new();
            for x in it.items_of(&v)? {
                match x {
                    Value::Str(s) => out.push(s.to_string()),
                    other => {
                        return Err(PyErr::type_error(format!(
                            "text_format must be strings, not {}",
                            other.type_name()
                        )))
                    }
                }
            }
            out
        }
    };
    a.done(func, 2)?;
    let Some(Obj::Schedule(old)) = obj_of(&sch_v) else {
        return Err(PyErr::type_error(format!(
            "{func}: `sch` must be a Schedule, not {}",
            sch_v.type_name()
        )));
    };
    let (module, ir_dialect) = module_arg(&mod_v, func)?;
    let old = old.borrow();
    let old_text = old.sch.trace().python(old.sch.dialect);
    let mut fresh = None;
    for format in &formats {
        let mut sch = Schedule::with_seed(module.clone(), 0).map_err(schedule_error)?;
        sch.dialect = old.sch.dialect;
        sch.ir_dialect = ir_dialect;
        match format.as_str() {
            "python" => {
                compiler_core::schedule::replay::run_python(&mut sch, &old_text).map_err(|d| {
                    PyErr::new(
                        ExcKind::AssertionError,
                        format!("replaying the trace's Python text failed: {}", d.message),
                    )
                })?;
            }
            "json" => {
                if let Some(inst) = old
                    .sch
                    .trace()
                    .instructions
                    .iter()
                    .find(|i| INDEX_MAP_PRIMITIVES.contains(&i.name.as_str()))
                {
                    return Err(PyErr::new(
                        ExcKind::RuntimeError,
                        format!(
                            "the trace cannot be written as JSON: `{}` holds an index map, \
                             which TVM 0.27's JSON writer cannot serialize",
                            inst.name
                        ),
                    ));
                }
                sch.replay(old.sch.trace(), false).map_err(schedule_error)?
            }
            other => {
                return Err(PyErr::new(
                    ExcKind::AssertionError,
                    format!("Unknown text format: {other}"),
                ))
            }
        }
        if let Err(m) = ir_equal(sch.module(), old.sch.module(), EqualOptions::default()) {
            return Err(PyErr::value_error(format!(
                "StructuralEqual check failed after replaying the trace ({format}), caused by lhs at {path}:\n{lhs}\nand rhs at {path}:\n{rhs}\n{msg}",
                path = m.path,
                lhs = m.lhs,
                rhs = m.rhs,
                msg = m.message
            )));
        }
        let new_text = sch.trace().python(sch.dialect);
        if new_text != old_text {
            return Err(PyErr::new(
                ExcKind::AssertionError,
                format!("the replayed trace differs:\n{new_text}\nvs\n{old_text}"),
            ));
        }
        fresh = Some(sch);
    }
    let Some(sch) = fresh else {
        return Ok(Value::None);
    };
    it.next_id += 1;
    Ok(host(Obj::Schedule(RefCell::new(SchedObj::new(
        sch, module, ir_dialect, it.next_id,
    )))))
}

fn testing_assert_allclose(it: &mut Interp, mut a: Args) -> Res<Value> {
    for v in a.pos.iter_mut() {
        if let Some(arr) = v.host().and_then(|o| o.to_array()) {
            *v = it.new_array(arr)?;
        }
    }
    crate::python::numpy::testing::assert_allclose(it, a)
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

    let prim_func = builtin(PRIM_FUNC, prim_func_decorator);
    let ir_module = builtin(IR_MODULE, ir_module_decorator);
    let dev = |kind: &str| builtin_with(&format!("tvm.{kind}"), dev_ctor, Value::str(kind));

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
    let tvm = module_with_note(
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
    );
    let subs: Vec<(&str, &Value)> = vec![
        ("ir", &ir),
        ("tir", &tir),
        ("s_tir", &s_tir),
        ("tirx", &tirx),
        ("script", &script),
        ("runtime", &runtime),
        ("nd", &nd),
        ("target", &target),
        ("testing", &testing),
        ("error", &error),
        ("te", &te),
        ("topi", &topi),
        ("relax", &relax),
        ("meta_schedule", &meta_schedule),
        ("transform", &transform),
    ];
    for (k, v) in &subs {
        set(&tvm, k, (*v).clone());
    }
    let all: Vec<(&str, Value)> = vec![
        ("tvm", tvm.clone()),
        ("tvm.ir", ir),
        ("tvm.ir.module", ir_module_mod),
        ("tvm.tir", tir),
        ("tvm.tir.schedule", tir_schedule),
        ("tvm.s_tir", s_tir),
        ("tvm.s_tir.schedule", s_tir_schedule),
        ("tvm.s_tir.schedule.testing", schedule_testing),
        ("tvm.s_tir.schedule.schedule", s_tir_schedule_schedule),
        ("tvm.s_tir.schedule.state", s_tir_schedule_state),
        ("tvm.s_tir.tensor_intrin", tensor_intrin),
        ("tvm_ffi", tvm_ffi),
        ("tvm.tirx", tirx),
        ("tvm.script", script),
        ("tvm.script.tir", script_tir),
        ("tvm.script.tirx", script_tirx),
        ("tvm.script.ir", script_ir),
        ("tvm.script.relax", script_relax),
        ("tvm.runtime", runtime),
        ("tvm.runtime.module", runtime_module),
        ("tvm.nd", nd),
        ("tvm.target", target),
        ("tvm.testing", testing),
        ("tvm.error", error),
        ("tvm.te", te),
        ("tvm.topi", topi),
        ("tvm.relax", relax),
        ("tvm.meta_schedule", meta_schedule),
        ("tvm.transform", transform),
    ];
    for (k, v) in all {
        it.modules.insert(k.to_string(), v);
    }
}
