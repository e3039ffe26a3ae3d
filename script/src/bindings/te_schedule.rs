//! Older TVM's TE schedules in scripts: `te.create_schedule`, `s[C]` and its
//! methods, `s.cache_read`/`cache_write`, `te.thread_axis`, `tvm.lower(s,
//! args)` and `tvm.build(s, args, target, name)`, over
//! [`compiler_core::te::schedule::TeSchedule`] (which translates every call
//! into the TensorIR schedule). TVM 0.27 removed this API; Tessel keeps it so
//! that lessons written for it run.
//!
//! `tvm.lower` returns the scheduled module (printed as TVMScript, as TVM
//! printed lowered functions); `tvm.build` builds that module through the
//! ordinary `tvm.build`, so the built function is named `name`
//! (`default_function` by default, as in TVM) and `func.entry_name` says so.

use std::cell::RefCell;
use std::rc::Rc;

use super::host::{tvm_obj, Obj};
use super::te::{as_tensor, TeObj};
use crate::python::error::{ExcKind, PyErr, Res};
use crate::python::interp::Interp;
use crate::python::value::*;
use compiler_core::te::schedule::{thread_tag, TeSchedule};
use compiler_core::te::{Operation, TeError, Tensor};
use tessel_ir::printer::Dialect;
use tessel_ir::IterVar;

/// A shared legacy schedule: stages hold it too.
pub type SharedSchedule = Rc<RefCell<TeSchedule>>;

fn te_value(o: TeObj) -> Value {
    Value::Host(Rc::new(Obj::Te(o)))
}

fn te_of(v: &Value) -> Option<&TeObj> {
    match v {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Te(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// A schedule misuse or a refused transformation: TVM raised `TVMError`.
fn err(e: TeError) -> Box<PyErr> {
    PyErr::new(ExcKind::TVMError, e.message)
}

fn iter_var(v: &Value, what: &str) -> Res<IterVar> {
    match te_of(v) {
        Some(TeObj::IterVar(iv)) => Ok(iv.clone()),
        _ => Err(PyErr::type_error(format!(
            "{what} takes axes (C.op.axis[0], an axis split returned), found {}",
            v.type_name()
        ))),
    }
}

fn operation(v: &Value, what: &str) -> Res<Operation> {
    match te_of(v) {
        Some(TeObj::Op(op)) => Ok(op.clone()),
        Some(TeObj::Tensor(t)) => Ok(t.op().clone()),
        _ => Err(PyErr::type_error(format!(
            "{what} takes operations (C.op) or tensors, found {}",
            v.type_name()
        ))),
    }
}

fn int_value(v: &Value, what: &str) -> Res<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::NpScalar(s) => match s.num {
            Num::I(i) => Ok(i),
            Num::F(_) => Err(PyErr::type_error(format!("{what} must be an integer"))),
        },
        other => match te_of(other) {
            Some(TeObj::Expr(e)) if e.as_int().is_some() => Ok(e.as_int().unwrap_or(0)),
            _ => Err(PyErr::type_error(format!(
                "{what} must be an integer, found {}",
                other.type_name()
            ))),
        },
    }
}

fn opt_int(v: Option<Value>, what: &str) -> Res<Option<i64>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => int_value(&v, what).map(Some),
    }
}

/// The items of a list/tuple argument, or the value itself.
fn items(it: &mut Interp, v: &Value) -> Res<Vec<Value>> {
    match v {
        Value::Tuple(_) | Value::List(_) => it.items_of(v),
        other => Ok(vec![other.clone()]),
    }
}

/// Axes given as `f(a, b, c)` or `f([a, b, c])`.
fn axes_of(it: &mut Interp, a: &Args, what: &str) -> Res<Vec<IterVar>> {
    let vals = match a.pos.as_slice() {
        [one @ (Value::List(_) | Value::Tuple(_))] => items(it, one)?,
        other => other.to_vec(),
    };
    vals.iter().map(|v| iter_var(v, what)).collect()
}

/// `te.create_schedule(ops)`.
pub fn create_schedule(it: &mut Interp, mut a: Args) -> Res<Value> {
    let ops = a.req(0, "ops", "create_schedule")?;
    a.done("create_schedule", 1)?;
    let mut list = Vec::new();
    for v in items(it, &ops)? {
        match te_of(&v) {
            Some(TeObj::Op(op)) => list.push(op.clone()),
            Some(TeObj::Tensor(t)) => {
                return Err(PyErr::type_error(format!(
                    "create_schedule takes operations: pass {}.op, not the tensor",
                    t.name()
                )))
            }
            _ => {
                return Err(PyErr::type_error(format!(
                    "create_schedule takes operations (C.op) or a list of them, found {}",
                    v.type_name()
                )))
            }
        }
    }
    it.charge_steps(100)?;
    let s = TeSchedule::new(&list).map_err(err)?;
    Ok(te_value(TeObj::Schedule(Rc::new(RefCell::new(s)))))
}

/// `te.thread_axis("threadIdx.x")` or `te.thread_axis((0, n), "threadIdx.x")`.
pub fn thread_axis(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let first = a.take(0, "dom");
    let tag = match (first, a.take(1, "tag")) {
        (Some(Value::Str(s)), None) => s.to_string(),
        (_, Some(Value::Str(s))) => s.to_string(),
        _ => {
            return Err(PyErr::type_error(
                "thread_axis takes a thread tag, e.g. te.thread_axis(\"threadIdx.x\")",
            ))
        }
    };
    let _ = a.take_kw("name");
    let _ = a.take_kw("span");
    a.done("thread_axis", 2)?;
    Ok(te_value(TeObj::ThreadAxis(
        thread_tag(&tag).map_err(|e| PyErr::value_error(e.message))?,
    )))
}

/// The legacy schedule inside a value, if it is one.
fn schedule_of(v: &Value) -> Option<SharedSchedule> {
    match te_of(v) {
        Some(TeObj::Schedule(s)) => Some(s.clone()),
        _ => None,
    }
}

fn tensor_list(it: &mut Interp, v: &Value, what: &str) -> Res<Vec<Tensor>> {
    items(it, v)?
        .iter()
        .map(|x| {
            as_tensor(x).ok_or_else(|| {
                PyErr::type_error(format!(
                    "{what}'s arguments must be te.Tensors, found {}",
                    x.type_name()
                ))
            })
        })
        .collect()
}

fn str_kw(v: Option<Value>, default: &str, what: &str) -> Res<String> {
    match v {
        None | Some(Value::None) => Ok(default.to_string()),
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(other) => Err(PyErr::type_error(format!(
            "{what} must be a string, found {}",
            other.type_name()
        ))),
    }
}

fn module_value(m: tessel_ir::IRModule) -> Value {
    Value::Host(Rc::new(Obj::IRModule {
        module: RefCell::new(m),
        dialect: Dialect::Tirx,
    }))
}

/// `tvm.lower(s, [A, B, C], name="main", simple_mode=…)`: the scheduled
/// module. A module or function passes through unchanged.
pub fn lower(it: &mut Interp, mut a: Args) -> Res<Value> {
    let s = a.req(0, "inp", "lower")?;
    let args = a.take(1, "args");
    let name = str_kw(a.take(2, "name"), "main", "name")?;
    let _ = a.take(3, "binds");
    let _ = a.take(4, "simple_mode");
    a.done("lower", 5)?;
    let Some(sch) = schedule_of(&s) else {
        return match tvm_obj_of(&s) {
            Some(Obj::IRModule { .. }) => Ok(s),
            Some(Obj::PrimFunc { func, .. }) => Ok(module_value(
                tessel_ir::IRModule::from_prim_func(name, (**func).clone()),
            )),
            _ => Err(PyErr::type_error(format!(
                "lower takes a te schedule (te.create_schedule) or an IRModule, found {}",
                s.type_name()
            ))),
        };
    };
    let args = match args {
        None | Some(Value::None) => sch.borrow().default_args().to_vec(),
        Some(v) => tensor_list(it, &v, "lower")?,
    };
    it.charge_steps(100)?;
    let m = sch.borrow().lower(&args, &name).map_err(err)?;
    Ok(module_value(m))
}

fn tvm_obj_of(v: &Value) -> Option<&Obj> {
    match v {
        Value::Host(o) => tvm_obj(o),
        _ => None,
    }
}

/// `tvm.build(s, [A, B, C], target=…, name=…)`: lowers the schedule and
/// builds the module with the ordinary `tvm.build` (this builtin's data);
/// anything else goes straight to it.
pub fn build(it: &mut Interp, mut a: Args) -> Res<Value> {
    let plain = a.data.take().unwrap_or(Value::None);
    let Some(sch) = a.pos.first().and_then(schedule_of) else {
        return it.call(&plain, a);
    };
    let args = a.take(1, "args");
    let target = a.take(2, "target");
    let _ = a.take(3, "target_host");
    let name = str_kw(a.take(4, "name"), "default_function", "name")?;
    let _ = a.take(5, "binds");
    a.done("build", 6)?;
    let args = match args {
        None | Some(Value::None) => sch.borrow().default_args().to_vec(),
        Some(v) => tensor_list(it, &v, "build")?,
    };
    it.charge_steps(100)?;
    let m = sch.borrow().lower(&args, &name).map_err(err)?;
    let mut pos = vec![module_value(m)];
    pos.extend(target);
    it.call(&plain, Args::new(pos))
}

// ----------------------------------------------------------------------------
// Objects

pub fn repr(o: &TeObj) -> Option<String> {
    Some(match o {
        TeObj::Schedule(s) => format!(
            "te.Schedule(stages of {})",
            s.borrow()
                .default_args()
                .iter()
                .map(|t| t.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TeObj::Stage(s, i) => format!(
            "stage({})",
            s.borrow()
                .stage_op(*i)
                .map(|o| o.name().to_string())
                .unwrap_or_default()
        ),
        TeObj::ThreadAxis(t) => format!("T.iter_var({t}, None, \"ThreadIndex\", \"{t}\")"),
        _ => return None,
    })
}

/// `s[C]`, `s[C.op]`.
pub fn get_item(s: &SharedSchedule, idx: &Value) -> Res<Value> {
    let op = operation(idx, "a schedule's [ ]")?;
    let i = s.borrow().stage(&op).map_err(err)?;
    Ok(te_value(TeObj::Stage(s.clone(), i)))
}

fn iter_value(iv: IterVar) -> Value {
    te_value(TeObj::IterVar(iv))
}

pub fn get_attr(o: &TeObj, v: &Value, name: &str) -> Option<Res<Value>> {
    let bound = || Value::BoundMethod(Rc::new((v.clone(), name.into())));
    match o {
        TeObj::Schedule(_) => match name {
            "cache_read" | "cache_write" | "rfactor" | "create_group" | "normalize" => {
                Some(Ok(bound()))
            }
            _ => None,
        },
        TeObj::Stage(s, i) => match name {
            "op" => Some(Ok(s
                .borrow()
                .stage_op(*i)
                .cloned()
                .map(|op| te_value(TeObj::Op(op)))
                .unwrap_or(Value::None))),
            "leaf_iter_vars" => Some(Ok(Value::tuple(
                s.borrow()
                    .leaf_axes(*i)
                    .into_iter()
                    .map(iter_value)
                    .collect(),
            ))),
            "split"
            | "fuse"
            | "reorder"
            | "tile"
            | "vectorize"
            | "parallel"
            | "unroll"
            | "bind"
            | "compute_at"
            | "compute_inline"
            | "compute_root"
            | "pragma"
            | "double_buffer"
            | "prefetch"
            | "tensorize"
            | "storage_align"
            | "env_threads"
            | "set_store_predicate"
            | "set_scope" => Some(Ok(bound())),
            _ => None,
        },
        TeObj::ThreadAxis(t) => match name {
            "thread_tag" => Some(Ok(Value::str(t.clone()))),
            _ => None,
        },
        _ => None,
    }
}

/// What older TVM's stage primitives without a TensorIR twin became.
fn no_counterpart(name: &str) -> Option<&'static str> {
    Some(match name {
        "pragma" => {
            "Stage.pragma has no TensorIR counterpart here: annotate the loop instead \
             (sch.annotate(loop, \"pragma_<name>\", value) on a tvm.s_tir.Schedule)"
        }
        "double_buffer" => {
            "Stage.double_buffer has no TensorIR counterpart here: annotate the block \
             (sch.annotate(block, \"double_buffer_scope\", 0) on a tvm.s_tir.Schedule)"
        }
        "prefetch" => {
            "Stage.prefetch has no TensorIR counterpart (TensorIR has no prefetch primitive)"
        }
        "tensorize" => {
            "Stage.tensorize takes a TE intrinsic, which TensorIR replaced: register a \
             tir.TensorIntrin and call sch.tensorize(loop, name) on a tvm.s_tir.Schedule"
        }
        "storage_align" => {
            "Stage.storage_align works on a buffer in TensorIR: \
             sch.storage_align(block, buffer_index, axis, factor, offset) on a tvm.s_tir.Schedule"
        }
        "env_threads" | "set_store_predicate" => {
            "this Stage method has no TensorIR counterpart: bind loops with s[C].bind \
             (sch.bind in TensorIR) and let blocks' predicates come from split"
        }
        "set_scope" => {
            "Stage.set_scope is sch.set_scope(block, buffer_index, scope) in TensorIR, \
             on a tvm.s_tir.Schedule"
        }
        "rfactor" => {
            "Schedule.rfactor of a TE schedule is not translated: use sch.rfactor(loop, \
             factor_axis) on a tvm.s_tir.Schedule(te.create_prim_func([...]))"
        }
        "create_group" | "normalize" => {
            "this Schedule method has no TensorIR counterpart (TensorIR schedules work on \
             blocks and loops directly)"
        }
        _ => return None,
    })
}

pub fn call_method(it: &mut Interp, o: &TeObj, name: &str, mut a: Args) -> Option<Res<Value>> {
    Some(match o {
        TeObj::Schedule(s) => schedule_method(it, s, name, a),
        TeObj::Stage(s, i) => it
            .charge_steps(100)
            .and_then(|_| stage_method(it, s, *i, name, &mut a)),
        _ => return None,
    })
}

fn schedule_method(it: &mut Interp, s: &SharedSchedule, name: &str, mut a: Args) -> Res<Value> {
    match name {
        "cache_read" => {
            let t = a.req(0, "tensor", "cache_read")?;
            let scope = str_kw(a.take(1, "scope"), "", "scope")?;
            let readers = a.req(2, "readers", "cache_read")?;
            a.done("cache_read", 3)?;
            let t = as_tensor(&t).ok_or_else(|| {
                PyErr::type_error("cache_read takes the tensor to cache (a te.Tensor)")
            })?;
            let readers = items(it, &readers)?
                .iter()
                .map(|v| operation(v, "cache_read's readers"))
                .collect::<Res<Vec<_>>>()?;
            let r = s.borrow_mut().cache_read(&t, &scope, &readers).map_err(err);
            r.map(|t| te_value(TeObj::Tensor(t)))
        }
        "cache_write" => {
            let t = a.req(0, "tensor", "cache_write")?;
            let scope = str_kw(a.take(1, "scope"), "", "scope")?;
            a.done("cache_write", 2)?;
            let t = as_tensor(&t).ok_or_else(|| {
                PyErr::type_error("cache_write takes the tensor to cache (a te.Tensor)")
            })?;
            let r = s.borrow_mut().cache_write(&t, &scope).map_err(err);
            r.map(|t| te_value(TeObj::Tensor(t)))
        }
        other => Err(PyErr::new(
            ExcKind::TVMError,
            no_counterpart(other).unwrap_or("unknown schedule method"),
        )),
    }
}

fn stage_method(
    it: &mut Interp,
    s: &SharedSchedule,
    i: usize,
    name: &str,
    a: &mut Args,
) -> Res<Value> {
    let unit = |r: Result<(), TeError>| r.map(|_| Value::None).map_err(err);
    match name {
        "split" => {
            let parent = iter_var(&a.req(0, "parent", "split")?, "split")?;
            let factor = opt_int(a.take(1, "factor"), "factor")?;
            let nparts = opt_int(a.take(2, "nparts"), "nparts")?;
            a.done("split", 3)?;
            if factor.is_some() == nparts.is_some() {
                return Err(PyErr::value_error(
                    "split takes exactly one of factor= and nparts=",
                ));
            }
            let r = s.borrow_mut().split(i, &parent, factor, nparts);
            let (o, n) = r.map_err(err)?;
            Ok(Value::tuple(vec![iter_value(o), iter_value(n)]))
        }
        "fuse" => {
            let axes = axes_of(it, a, "fuse")?;
            let r = s.borrow_mut().fuse(i, &axes);
            r.map(iter_value).map_err(err)
        }
        "reorder" => {
            let axes = axes_of(it, a, "reorder")?;
            let r = s.borrow_mut().reorder(i, &axes);
            unit(r)
        }
        "tile" => {
            let x = iter_var(&a.req(0, "x_parent", "tile")?, "tile")?;
            let y = iter_var(&a.req(1, "y_parent", "tile")?, "tile")?;
            let xf = int_value(&a.req(2, "x_factor", "tile")?, "x_factor")?;
            let yf = int_value(&a.req(3, "y_factor", "tile")?, "y_factor")?;
            a.done("tile", 4)?;
            let r = s.borrow_mut().tile(i, &x, &y, xf, yf);
            let axes = r.map_err(err)?;
            Ok(Value::tuple(axes.into_iter().map(iter_value).collect()))
        }
        "vectorize" | "parallel" | "unroll" => {
            let v = iter_var(&a.req(0, "var", name)?, name)?;
            a.done(name, 1)?;
            let r = s.borrow_mut().loop_kind(name, i, &v);
            unit(r)
        }
        "bind" => {
            let v = iter_var(&a.req(0, "ivar", "bind")?, "bind")?;
            let t = a.req(1, "thread_ivar", "bind")?;
            a.done("bind", 2)?;
            let tag = match te_of(&t) {
                Some(TeObj::ThreadAxis(t)) => t.clone(),
                _ => return Err(PyErr::type_error(
                    "bind takes a thread axis: s[C].bind(axis, te.thread_axis(\"threadIdx.x\"))",
                )),
            };
            let r = s.borrow_mut().bind(i, &v, &tag);
            unit(r)
        }
        "compute_at" => {
            let parent = a.req(0, "parent", "compute_at")?;
            let scope = iter_var(&a.req(1, "scope", "compute_at")?, "compute_at")?;
            a.done("compute_at", 2)?;
            let p = match te_of(&parent) {
                Some(TeObj::Stage(ps, pi)) if Rc::ptr_eq(ps, s) => *pi,
                Some(TeObj::Stage(..)) => {
                    return Err(PyErr::value_error(
                        "compute_at: the parent stage belongs to another schedule",
                    ))
                }
                _ => {
                    return Err(PyErr::type_error(
                        "compute_at takes the parent stage and one of its axes: \
                         s[B].compute_at(s[C], axis)",
                    ))
                }
            };
            let r = s.borrow_mut().compute_at(i, p, &scope);
            unit(r)
        }
        "compute_inline" => {
            a.done("compute_inline", 0)?;
            let r = s.borrow_mut().compute_inline(i);
            unit(r)
        }
        "compute_root" => {
            a.done("compute_root", 0)?;
            let r = s.borrow_mut().compute_root(i);
            unit(r)
        }
        other => Err(PyErr::new(
            ExcKind::TVMError,
            no_counterpart(other).unwrap_or("unknown stage method"),
        )),
    }
}
