//! Tensor expressions in scripts: `tvm.te`, `tvm.topi` and the
//! `tvm.tir` expression helpers, as script values over [`compiler_core::te`].
//!
//! A TE object is a host value `Obj::Te(`[`TeObj`]`)`: a tensor, an
//! expression (`tir.Var`, constants, loads, arithmetic), an iteration
//! variable (`te.reduce_axis`, `C.op.axis[i]`), a reduction (`te.sum(...)`,
//! only valid as a compute body), an operation (`C.op`) or a partly indexed
//! tensor (`A[i]` of a 2-D `A`, completed by the next subscript).
//!
//! # API for the rest of the crate (graph helper: `emit_te` / `call_te`)
//!
//! - [`tensor_value`]`(t)` / [`expr_value`]`(e)`: a Rust [`Tensor`] / [`Expr`]
//!   as a script value (what a TE function receives).
//! - [`as_tensor`]`(&v)`: the [`Tensor`] inside a script value, if it is one.
//! - [`to_expr`]`(&v)`: a script value as an expression (Python numbers
//!   convert as TVM converts them; iteration variables give their variable).
//! - [`tensors_of`]`(it, &v)`: the tensors of a result (one tensor, or a
//!   tuple/list of them), else a `TypeError`.
//! - [`call_te_function`]`(it, &f, args, index_dtype)`: calls the Python
//!   function `f` with `args` (tensor values made with [`tensor_value`] of
//!   placeholders, numbers, …) and turns the result into a PrimFunc with
//!   `create_prim_func(inputs + unbound size vars + outputs, index_dtype)`;
//!   `inputs` are the tensors found in `args` (positional then keyword,
//!   through lists and tuples), in order, without duplicates. Returns a
//!   [`TeCall`] (the function, inputs, outputs). Errors in `f` come back as
//!   the Python exception with its traceback. Relax drops the
//!   `global_symbol` attribute afterwards (the caller's business).
//! - [`prim_func_value`]`(f)`: a PrimFunc as a script value (prints as TVM
//!   0.27's `tirx` dialect, as TVM prints TE-made functions).
//!
//! Everything else here is the Python surface: [`install`] fills the
//! `tvm.te`, `tvm.topi` (`tvm.topi.nn`) modules and adds `if_then_else`,
//! `all`, `any`, `const`, `Select`… to `tvm.tir`/`tvm.tirx`.

use std::rc::Rc;

use super::host::{tvm_obj, Obj};
use crate::python::builtins::builtin;
use crate::python::error::{ExcKind, PyErr, Res};
use crate::python::interp::Interp;
use crate::python::value::*;
use compiler_core::te::{
    self, op, topi, BodyItem, ComputeBody, ComputeOptions, FuncArg, Operation, Reduce, TeError,
    TeErrorKind, Tensor,
};
use tessel_ir::printer::{print_expr, Dialect};
use tessel_ir::visit::{VarCollector, Visitor};
use tessel_ir::{DataType, Expr, IterKind, IterVar, PrimFunc, Var};
use tessel_syntax::ast::{BinOp, CmpOp, UnaryOp};

/// A TE script object.
pub enum TeObj {
    Tensor(Tensor),
    Expr(Expr),
    IterVar(IterVar),
    Reduce(Reduce),
    Op(Operation),
    /// `A[i]` of a tensor with more dimensions: the indices so far.
    Slice(Tensor, Vec<Expr>),
    /// `te.create_schedule(...)` (see [`super::te_schedule`]).
    Schedule(super::te_schedule::SharedSchedule),
    /// `s[C]`: a stage of a schedule, by index.
    Stage(super::te_schedule::SharedSchedule, usize),
    /// `te.thread_axis("threadIdx.x")`: the tag.
    ThreadAxis(String),
}

/// The result of [`call_te_function`].
pub struct TeCall {
    pub func: PrimFunc,
    pub inputs: Vec<Tensor>,
    pub outputs: Vec<Tensor>,
}

fn te_value(o: TeObj) -> Value {
    Value::Host(Rc::new(Obj::Te(o)))
}

/// A tensor as a script value.
pub fn tensor_value(t: Tensor) -> Value {
    te_value(TeObj::Tensor(t))
}

/// An expression as a script value.
pub fn expr_value(e: Expr) -> Value {
    te_value(TeObj::Expr(e))
}

/// A PrimFunc as a script value (printed in TVM 0.27's dialect).
pub fn prim_func_value(f: PrimFunc) -> Value {
    Value::Host(Rc::new(Obj::PrimFunc {
        func: Rc::new(f),
        dialect: Dialect::Tirx,
    }))
}

fn te_obj(v: &Value) -> Option<&TeObj> {
    match v {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Te(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// The tensor inside a script value.
pub fn as_tensor(v: &Value) -> Option<Tensor> {
    match te_obj(v)? {
        TeObj::Tensor(t) => Some(t.clone()),
        _ => None,
    }
}

/// A TE error as a Python exception: TVM raises `ValueError`/`TypeError`
/// for argument problems and `TVMError` for the rest.
fn te_err(e: TeError) -> Box<PyErr> {
    let kind = match e.kind {
        TeErrorKind::ArgumentType => ExcKind::TypeError,
        TeErrorKind::InvalidValue => ExcKind::ValueError,
        TeErrorKind::Other => ExcKind::TVMError,
    };
    PyErr::new(kind, e.message)
}

/// A script value as an expression.
pub fn to_expr(v: &Value) -> Res<Expr> {
    Ok(match v {
        Value::Bool(b) => op::py_bool(*b),
        Value::Int(i) => op::py_int(*i),
        Value::Float(f) => op::py_float(*f),
        Value::NpScalar(s) => match s.num {
            Num::I(i) if s.dtype.is_bool() => Expr::bool(i != 0),
            Num::I(i) => op::const_int(i, s.dtype).map_err(te_err)?,
            Num::F(f) => op::const_float(f, s.dtype).map_err(te_err)?,
        },
        _ => match te_obj(v) {
            Some(TeObj::Expr(e)) => e.clone(),
            Some(TeObj::IterVar(iv)) => iv.var.to_expr(),
            Some(TeObj::Reduce(_)) => {
                return Err(PyErr::new(ExcKind::TVMError, te::NESTED_REDUCTION_ERROR))
            }
            Some(TeObj::Tensor(t)) if t.ndim() == 0 => t.index(&[]).map_err(te_err)?,
            Some(TeObj::Tensor(t)) => {
                return Err(PyErr::type_error(format!(
                    "tensor {} cannot be used as a scalar expression; index it (`{}[i, …]`)",
                    t.name(),
                    t.name()
                )))
            }
            _ => {
                return Err(PyErr::type_error(format!(
                    "cannot use a '{}' as a TVM expression",
                    v.type_name()
                )))
            }
        },
    })
}

fn is_te(v: &Value) -> bool {
    te_obj(v).is_some()
}

/// The tensors of a TE function's result: one tensor, or a tuple/list.
pub fn tensors_of(it: &mut Interp, v: &Value) -> Res<Vec<Tensor>> {
    if let Some(t) = as_tensor(v) {
        return Ok(vec![t]);
    }
    if matches!(v, Value::Tuple(_) | Value::List(_)) {
        let mut out = Vec::new();
        for x in it.items_of(v)? {
            out.extend(tensors_of(it, &x)?);
        }
        return Ok(out);
    }
    Err(PyErr::type_error(format!(
        "expected a te.Tensor or a tuple of them, found {}",
        v.type_name()
    )))
}

fn collect_tensors(it: &mut Interp, v: &Value, out: &mut Vec<Tensor>, depth: u32) -> Res<()> {
    if let Some(t) = as_tensor(v) {
        if !out.contains(&t) {
            out.push(t);
        }
    } else if depth < 8 && matches!(v, Value::Tuple(_) | Value::List(_)) {
        for x in it.items_of(v)? {
            collect_tensors(it, &x, out, depth + 1)?;
        }
    }
    Ok(())
}

fn shape_vars(ts: &[Tensor]) -> Vec<Var> {
    let mut vars = VarCollector::default();
    for t in ts {
        for d in t.shape() {
            vars.visit_expr(d);
        }
    }
    vars.vars
}

/// Calls a Python TE function and makes a PrimFunc of it (see the module
/// documentation).
pub fn call_te_function(
    it: &mut Interp,
    f: &Value,
    args: Args,
    index_dtype: Option<DataType>,
) -> Res<TeCall> {
    let mut inputs = Vec::new();
    for v in args.pos.iter().chain(args.kw.iter().map(|(_, v)| v)) {
        collect_tensors(it, v, &mut inputs, 0)?;
    }
    let result = it.call(f, args)?;
    let outputs = tensors_of(it, &result)?;
    let in_vars = shape_vars(&inputs);
    let unbound: Vec<Var> = shape_vars(&outputs)
        .into_iter()
        .filter(|v| !in_vars.iter().any(|x| x.id() == v.id()))
        .collect();
    let mut fargs: Vec<FuncArg> = inputs.iter().map(FuncArg::from).collect();
    fargs.extend(unbound.into_iter().map(FuncArg::Var));
    fargs.extend(
        outputs
            .iter()
            .filter(|t| !inputs.contains(t))
            .map(FuncArg::from),
    );
    let func = te::create_prim_func_with(&fargs, index_dtype).map_err(te_err)?;
    Ok(TeCall {
        func,
        inputs,
        outputs,
    })
}

// ----------------------------------------------------------------------------
// Argument helpers

fn dtype_arg(v: &Value) -> Res<DataType> {
    let s = match v {
        Value::Str(s) => s.to_string(),
        Value::NpDType(d) => return Ok(*d),
        other => {
            return Err(PyErr::type_error(format!(
                "dtype must be a string, not {}",
                other.type_name()
            )))
        }
    };
    DataType::parse(&s).ok_or_else(|| PyErr::value_error(format!("unknown dtype {s:?}")))
}

fn str_arg(v: Option<Value>, default: &str) -> Res<String> {
    match v {
        None | Some(Value::None) => Ok(default.to_string()),
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(other) => Err(PyErr::type_error(format!(
            "expected a string, found {}",
            other.type_name()
        ))),
    }
}

/// A shape: an int, an expression, or a tuple/list of them.
fn shape_arg(it: &mut Interp, v: &Value) -> Res<Vec<Expr>> {
    let items = match v {
        Value::Tuple(_) | Value::List(_) => it.items_of(v)?,
        other => vec![other.clone()],
    };
    if items.len() > 32 {
        return Err(PyErr::value_error(format!(
            "a shape of {} dimensions is too many",
            items.len()
        )));
    }
    items
        .iter()
        .map(|x| {
            let e = to_expr(x)?;
            if !(e.dtype().is_int() || e.dtype().is_uint()) {
                return Err(PyErr::type_error(format!(
                    "shape entries must be integers, found a {}",
                    e.dtype()
                )));
            }
            Ok(e)
        })
        .collect()
}

fn int_list(it: &mut Interp, v: &Value, what: &str) -> Res<Vec<i64>> {
    let items = match v {
        Value::Tuple(_) | Value::List(_) => it.items_of(v)?,
        other => vec![other.clone()],
    };
    items
        .iter()
        .map(|x| match x {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(*b as i64),
            other => match te_obj(other) {
                Some(TeObj::Expr(e)) if e.as_int().is_some() => Ok(e.as_int().unwrap_or(0)),
                _ => Err(PyErr::type_error(format!(
                    "{what} must be integers, found {}",
                    other.type_name()
                ))),
            },
        })
        .collect()
}

fn iter_vars(it: &mut Interp, v: &Value) -> Res<Vec<IterVar>> {
    let items = match v {
        Value::Tuple(_) | Value::List(_) => it.items_of(v)?,
        other => vec![other.clone()],
    };
    items
        .iter()
        .map(|x| match te_obj(x) {
            Some(TeObj::IterVar(iv)) => Ok(iv.clone()),
            _ => Err(PyErr::type_error(format!(
                "axis must be te.reduce_axis iteration variables, found {}",
                x.type_name()
            ))),
        })
        .collect()
}

fn is_axis_like(v: &Value) -> bool {
    match v {
        Value::List(l) => l
            .borrow()
            .iter()
            .all(|x| matches!(te_obj(x), Some(TeObj::IterVar(_)))),
        Value::Tuple(t) => t
            .iter()
            .all(|x| matches!(te_obj(x), Some(TeObj::IterVar(_)))),
        _ => matches!(te_obj(v), Some(TeObj::IterVar(iv)) if iv.kind == IterKind::Reduce),
    }
}

fn tensor_arg(v: &Value, what: &str) -> Res<Tensor> {
    as_tensor(v).ok_or_else(|| {
        PyErr::type_error(format!(
            "{what} expects a te.Tensor, found {}",
            v.type_name()
        ))
    })
}

fn opt_dtype(v: Option<Value>) -> Res<Option<DataType>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => Ok(Some(dtype_arg(&v)?)),
    }
}

// ----------------------------------------------------------------------------
// tvm.te

fn te_placeholder(it: &mut Interp, mut a: Args) -> Res<Value> {
    let shape = a.req(0, "shape", "placeholder")?;
    let dtype = match a.take(1, "dtype") {
        None | Some(Value::None) => DataType::f32(),
        Some(v) => dtype_arg(&v)?,
    };
    let name = str_arg(a.take(2, "name"), "placeholder")?;
    a.done("placeholder", 3)?;
    let shape = shape_arg(it, &shape)?;
    let t = te::placeholder(&shape, dtype, &name).map_err(te_err)?;
    Ok(tensor_value(t))
}

fn te_var(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = str_arg(a.take(0, "name"), "tindex")?;
    let dtype = match a.take(1, "dtype") {
        None | Some(Value::None) => DataType::i32(),
        Some(v) => dtype_arg(&v)?,
    };
    let _ = a.take_kw("span");
    a.done("var", 2)?;
    Ok(expr_value(te::var(&name, dtype).to_expr()))
}

fn te_reduce_axis(it: &mut Interp, mut a: Args) -> Res<Value> {
    let dom = a.req(0, "dom", "reduce_axis")?;
    let name = str_arg(a.take(1, "name"), "rv")?;
    let _ = a.take(2, "thread_tag");
    let _ = a.take_kw("span");
    a.done("reduce_axis", 3)?;
    let items = match &dom {
        Value::Tuple(_) | Value::List(_) => it.items_of(&dom)?,
        _ => {
            return Err(PyErr::type_error(
                "reduce_axis takes a (min, max) range, e.g. te.reduce_axis((0, K), name=\"k\")",
            ))
        }
    };
    let [lo, hi] = items.as_slice() else {
        return Err(PyErr::value_error(format!(
            "reduce_axis takes a (min, max) range of 2 values, found {}",
            items.len()
        )));
    };
    let iv = te::reduce_axis(&to_expr(lo)?, &to_expr(hi)?, &name).map_err(te_err)?;
    Ok(te_value(TeObj::IterVar(iv)))
}

fn te_compute(it: &mut Interp, mut a: Args) -> Res<Value> {
    let shape = a.req(0, "shape", "compute")?;
    let f = a.req(1, "fcompute", "compute")?;
    let name = str_arg(a.take(2, "name"), "compute")?;
    let tag = str_arg(a.take(3, "tag"), "")?;
    let attrs = a.take(4, "attrs");
    let varargs_names = a.take(5, "varargs_names");
    a.done("compute", 6)?;
    let shape = shape_arg(it, &shape)?;
    let (params, has_varargs) = match &f {
        Value::Func(func) => (
            func.params
                .posonly
                .iter()
                .chain(func.params.args.iter())
                .map(|p| p.name.clone())
                .collect::<Vec<_>>(),
            func.params.vararg.is_some(),
        ),
        Value::Builtin(_) | Value::Method(_) | Value::BoundMethod(_) => (Vec::new(), true),
        other => {
            return Err(PyErr::type_error(format!(
                "te.compute's fcompute must be a function, found {}",
                other.type_name()
            )))
        }
    };
    let varargs_names = match varargs_names {
        None | Some(Value::None) => None,
        Some(v) => Some(
            it.items_of(&v)?
                .iter()
                .map(|x| str_arg(Some(x.clone()), ""))
                .collect::<Res<Vec<_>>>()?,
        ),
    };
    // More parameters than dimensions: TVM zips names with the shape and
    // calls the function with fewer arguments (a Python TypeError).
    let (names, ndim) = if !has_varargs && params.len() > shape.len() {
        (params[..shape.len()].to_vec(), shape.len())
    } else {
        te::compute_arg_names(shape.len(), &params, has_varargs, varargs_names.as_deref())
            .map_err(te_err)?
    };
    let mut opts = ComputeOptions::named(&name).with_tag(&tag);
    if let Some(Value::Dict(d)) = &attrs {
        let items: Vec<(Value, Value)> = d.borrow().items();
        for (k, v) in items {
            let k = str_arg(Some(k), "")?;
            let v = match &v {
                Value::Int(i) => tessel_ir::AttrValue::Int(*i),
                Value::Bool(b) => tessel_ir::AttrValue::Bool(*b),
                Value::Str(s) => tessel_ir::AttrValue::Str(s.to_string()),
                other => tessel_ir::AttrValue::Expr(to_expr(other)?),
            };
            opts = opts.with_attr(&k, v);
        }
    }
    opts = opts.with_names(&names);
    let mut py_err: Option<Box<PyErr>> = None;
    let res = te::compute_with(&shape[..ndim], opts, |ix| {
        let args: Vec<Value> = ix.iter().map(|e| expr_value(e.clone())).collect();
        let out = it.call(&f, Args::new(args)).and_then(|v| body_of(it, &v));
        out.map_err(|e| {
            py_err = Some(e);
            TeError::new("")
        })
    });
    let outs = match res {
        Ok(o) => o,
        Err(e) => return Err(py_err.unwrap_or_else(|| te_err(e))),
    };
    let mut outs = outs;
    if outs.len() == 1 {
        if let Some(t) = outs.pop() {
            return Ok(tensor_value(t));
        }
    }
    Ok(Value::tuple(outs.into_iter().map(tensor_value).collect()))
}

/// What a compute lambda returned, as a body.
fn body_of(it: &mut Interp, v: &Value) -> Res<ComputeBody> {
    let items = match v {
        Value::Tuple(_) | Value::List(_) => it.items_of(v)?,
        other => vec![other.clone()],
    };
    let mut out = Vec::new();
    for x in &items {
        match te_obj(x) {
            Some(TeObj::Reduce(r)) => out.push(BodyItem::Reduce(r.clone())),
            Some(TeObj::Slice(t, ix)) => {
                return Err(PyErr::value_error(format!(
                    "tensor {} indexed with {} of its {} indices; a compute body must be a scalar",
                    t.name(),
                    ix.len(),
                    t.ndim()
                )))
            }
            _ => out.push(BodyItem::Expr(to_expr(x)?)),
        }
    }
    if out.is_empty() {
        return Err(PyErr::value_error("the compute function returned no value"));
    }
    Ok(ComputeBody(out))
}

/// `te.sum` / `te.max` / `te.min`: a reduction, or (max/min with two
/// values) the element-wise maximum/minimum.
fn te_reduce(it: &mut Interp, mut a: Args) -> Res<Value> {
    let which = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    let fname = which.as_str();
    let expr = a.req(0, "expr", fname)?;
    let axis_pos = a.pos.get(1).cloned();
    let axis_kw = a.take_kw("axis");
    if axis_kw.is_none() && fname != "sum" {
        if let Some(b) = &axis_pos {
            if !is_axis_like(b) {
                a.done(fname, 2)?;
                let (x, y) = (to_expr(&expr)?, to_expr(b)?);
                let r = if fname == "max" {
                    op::max(&x, &y)
                } else {
                    op::min(&x, &y)
                };
                return Ok(expr_value(r.map_err(te_err)?));
            }
        }
    }
    let axis = axis_kw
        .or(axis_pos)
        .ok_or_else(|| PyErr::type_error(format!("{fname}() missing required argument: 'axis'")))?;
    let cond = match a.take(2, "where") {
        None | Some(Value::None) => None,
        Some(v) => Some(to_expr(&v)?),
    };
    let init = match a.take(3, "init") {
        None | Some(Value::None) => None,
        Some(v) => Some(to_expr(&v)?),
    };
    a.done(fname, 4)?;
    let axis = iter_vars(it, &axis)?;
    let src = to_expr(&expr)?;
    let r = match fname {
        "sum" => te::sum(&src, &axis, cond.as_ref(), init.as_ref()),
        "max" => te::max(&src, &axis, cond.as_ref(), init.as_ref()),
        _ => te::min(&src, &axis, cond.as_ref(), init.as_ref()),
    }
    .map_err(te_err)?;
    Ok(te_value(TeObj::Reduce(r)))
}

fn if_then_else(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let c = a.req(0, "cond", "if_then_else")?;
    let t = a.req(1, "t", "if_then_else")?;
    let f = a.req(2, "f", "if_then_else")?;
    let _ = a.take_kw("span");
    a.done("if_then_else", 3)?;
    let r = op::if_then_else(&to_expr(&c)?, &to_expr(&t)?, &to_expr(&f)?).map_err(te_err)?;
    Ok(expr_value(r))
}

fn select(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let c = a.req(0, "condition", "Select")?;
    let t = a.req(1, "true_value", "Select")?;
    let f = a.req(2, "false_value", "Select")?;
    a.done("Select", 3)?;
    let r = op::select(&to_expr(&c)?, &to_expr(&t)?, &to_expr(&f)?).map_err(te_err)?;
    Ok(expr_value(r))
}

fn all_any(_it: &mut Interp, a: Args) -> Res<Value> {
    let any = a.data.as_ref().and_then(|d| d.as_str()) == Some("any");
    let conds = a.pos.iter().map(to_expr).collect::<Res<Vec<_>>>()?;
    if conds.is_empty() {
        return Err(PyErr::value_error(format!(
            "{}() requires at least one condition",
            if any { "any" } else { "all" }
        )));
    }
    let r = if any {
        op::any(&conds)
    } else {
        op::all(&conds)
    };
    Ok(expr_value(r.map_err(te_err)?))
}

fn tir_const(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "value", "const")?;
    let dtype = a.take(1, "dtype");
    let _ = a.take_kw("span");
    a.done("const", 2)?;
    let dt = match dtype {
        None | Some(Value::None) => None,
        Some(d) => Some(dtype_arg(&d)?),
    };
    let e = match (&v, dt) {
        (Value::Float(f), None) => op::const_float(*f, DataType::f32()),
        (Value::Int(i), None) => Ok(op::py_int(*i)),
        (Value::Bool(b), None) => Ok(op::py_bool(*b)),
        (Value::Float(f), Some(dt)) => {
            if dt.is_float() {
                op::const_float(*f, dt)
            } else {
                op::const_int(*f as i64, dt)
            }
        }
        (Value::Int(i), Some(dt)) => {
            if dt.is_float() {
                op::const_float(*i as f64, dt)
            } else {
                op::const_int(*i, dt)
            }
        }
        (Value::Bool(b), Some(dt)) => op::const_int(*b as i64, dt),
        (other, _) => {
            return Err(PyErr::type_error(format!(
                "const() takes a number, found {}",
                other.type_name()
            )))
        }
    }
    .map_err(te_err)?;
    Ok(expr_value(e))
}

/// `tvm.tirx.IntImm(dtype, value)`: an integer constant of an int, uint
/// or bool type, refused (as TVM refuses it) outside the type's range.
fn int_imm(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let dtype = dtype_arg(&a.req(0, "dtype", "IntImm")?)?;
    let value = a.req(1, "value", "IntImm")?;
    let _ = a.take_kw("span");
    a.done("IntImm", 2)?;
    let value = match value {
        Value::Int(i) => i,
        Value::Bool(b) => b as i64,
        other => {
            return Err(PyErr::type_error(format!(
                "IntImm() takes an int value, found {}",
                other.type_name()
            )))
        }
    };
    if !(dtype.is_integer() || dtype.is_bool()) || !dtype.is_scalar() {
        return Err(PyErr::value_error(format!(
            "IntImm supports only int or uint or bool type, but {dtype} was supplied."
        )));
    }
    let bits = u32::from(dtype.bits);
    if dtype.is_uint() && value < 0 {
        return Err(PyErr::value_error(format!(
            "Literal value {value} is negative for unsigned integer type {dtype}"
        )));
    }
    if dtype.is_int()
        && bits < 64
        && !(-(1i64 << (bits - 1))..(1i64 << (bits - 1))).contains(&value)
    {
        return Err(PyErr::value_error(format!(
            "Literal value {value} exceeds range of {dtype}"
        )));
    }
    Ok(expr_value(op::const_int(value, dtype).map_err(te_err)?))
}

/// `tvm.tirx.FloatImm(dtype, value)`: a float constant of a float type.
fn float_imm(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let dtype = dtype_arg(&a.req(0, "dtype", "FloatImm")?)?;
    let value = a.req(1, "value", "FloatImm")?;
    let _ = a.take_kw("span");
    a.done("FloatImm", 2)?;
    let value = match value {
        Value::Float(f) => f,
        Value::Int(i) => i as f64,
        other => {
            return Err(PyErr::type_error(format!(
                "FloatImm() takes a float value, found {}",
                other.type_name()
            )))
        }
    };
    if !dtype.is_float() || !dtype.is_scalar() {
        return Err(PyErr::value_error(format!(
            "FloatImm supports only float, but {dtype} was supplied."
        )));
    }
    Ok(expr_value(op::const_float(value, dtype).map_err(te_err)?))
}

fn te_math(_it: &mut Interp, a: Args) -> Res<Value> {
    let name = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    let x = a
        .pos
        .first()
        .ok_or_else(|| PyErr::type_error(format!("{name}() missing required argument: 'x'")))?;
    let x = to_expr(x)?;
    let r = match name.as_str() {
        "abs" => op::abs(&x),
        _ => op::math_by_name(&name, &x),
    };
    Ok(expr_value(r.map_err(te_err)?))
}

fn te_power(_it: &mut Interp, a: Args) -> Res<Value> {
    let [x, y] = a.pos.as_slice() else {
        return Err(PyErr::type_error("power() takes 2 arguments"));
    };
    Ok(expr_value(
        op::power(&to_expr(x)?, &to_expr(y)?).map_err(te_err)?,
    ))
}

fn min_max_value(_it: &mut Interp, a: Args) -> Res<Value> {
    let max = a.data.as_ref().and_then(|d| d.as_str()) == Some("max");
    let dt = dtype_arg(
        a.pos
            .first()
            .ok_or_else(|| PyErr::type_error("missing required argument: 'dtype'"))?,
    )?;
    let r = if max {
        op::max_value(dt)
    } else {
        op::min_value(dt)
    };
    Ok(expr_value(r.map_err(te_err)?))
}

fn te_create_prim_func(it: &mut Interp, mut a: Args) -> Res<Value> {
    let ops = a.req(0, "ops", "create_prim_func")?;
    let idx = opt_dtype(a.take(1, "index_dtype_override"))?;
    a.done("create_prim_func", 2)?;
    let items = match &ops {
        Value::Tuple(_) | Value::List(_) => it.items_of(&ops)?,
        other => vec![other.clone()],
    };
    let mut args = Vec::new();
    for x in &items {
        match te_obj(x) {
            Some(TeObj::Tensor(t)) => args.push(FuncArg::Tensor(t.clone())),
            Some(TeObj::Expr(e)) if e.as_var().is_some() => {
                if let Some(v) = e.as_var() {
                    args.push(FuncArg::Var(v.clone()));
                }
            }
            _ => {
                return Err(PyErr::type_error(format!(
                    "create_prim_func takes te.Tensors and tir.Vars, found {}",
                    x.type_name()
                )))
            }
        }
    }
    let f = te::create_prim_func_with(&args, idx).map_err(te_err)?;
    Ok(prim_func_value(f))
}

fn removed(_it: &mut Interp, a: Args) -> Res<Value> {
    let name = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    Err(PyErr::attribute_error(format!(
        "module 'tvm.te' has no attribute '{name}'"
    )))
}

// ----------------------------------------------------------------------------
// tvm.topi

fn operand(v: &Value) -> Res<topi::Operand> {
    match as_tensor(v) {
        Some(t) => Ok(topi::Operand::Tensor(t)),
        None => Ok(topi::Operand::Scalar(to_expr(v)?)),
    }
}

fn operand_value(o: topi::Operand) -> Value {
    match o {
        topi::Operand::Tensor(t) => tensor_value(t),
        topi::Operand::Scalar(e) => expr_value(e),
    }
}

fn topi_broadcast(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    let x = operand(&a.req(0, "lhs", &name)?)?;
    let y = operand(&a.req(1, "rhs", &name)?)?;
    a.done(&name, 2)?;
    let r = match name.as_str() {
        "add" => topi::add(x, y),
        "subtract" => topi::subtract(x, y),
        "multiply" => topi::multiply(x, y),
        _ => topi::divide(x, y),
    }
    .map_err(te_err)?;
    Ok(operand_value(r))
}

fn topi_relu(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = tensor_arg(&a.req(0, "x", "relu")?, "relu")?;
    a.done("relu", 1)?;
    Ok(tensor_value(topi::nn::relu(&x).map_err(te_err)?))
}

fn bool_arg(it: &mut Interp, v: Option<Value>) -> Res<bool> {
    match v {
        None => Ok(false),
        Some(v) => it.truthy(&v),
    }
}

fn topi_dense(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = tensor_arg(&a.req(0, "data", "dense")?, "dense")?;
    let w = tensor_arg(&a.req(1, "weight", "dense")?, "dense")?;
    let bias = match a.take(2, "bias") {
        None | Some(Value::None) => None,
        Some(v) => Some(tensor_arg(&v, "dense")?),
    };
    let odt = opt_dtype(a.take(3, "out_dtype"))?;
    a.done("dense", 4)?;
    Ok(tensor_value(
        topi::nn::dense(&x, &w, bias.as_ref(), odt).map_err(te_err)?,
    ))
}

fn topi_nn_matmul(it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = tensor_arg(&a.req(0, "tensor_a", "matmul")?, "matmul")?;
    let w = tensor_arg(&a.req(1, "tensor_b", "matmul")?, "matmul")?;
    let bias = match a.take(2, "bias") {
        None | Some(Value::None) => None,
        Some(v) => Some(tensor_arg(&v, "matmul")?),
    };
    let odt = opt_dtype(a.take(3, "out_dtype"))?;
    let ta = a.take(4, "transpose_a");
    let tb = a.take(5, "transpose_b");
    a.done("matmul", 6)?;
    let (ta, tb) = (bool_arg(it, ta)?, bool_arg(it, tb)?);
    Ok(tensor_value(
        topi::nn::matmul(&x, &w, bias.as_ref(), odt, ta, tb).map_err(te_err)?,
    ))
}

fn topi_matmul(it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = tensor_arg(&a.req(0, "a", "matmul")?, "matmul")?;
    let w = tensor_arg(&a.req(1, "b", "matmul")?, "matmul")?;
    let ta = a.take(2, "transp_a");
    let tb = a.take(3, "transp_b");
    a.done("matmul", 4)?;
    let (ta, tb) = (bool_arg(it, ta)?, bool_arg(it, tb)?);
    Ok(tensor_value(topi::matmul(&x, &w, ta, tb).map_err(te_err)?))
}

fn topi_transpose(it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = tensor_arg(&a.req(0, "a", "transpose")?, "transpose")?;
    let axes = match a.take(1, "axes") {
        None | Some(Value::None) => None,
        Some(v) => Some(int_list(it, &v, "axes")?),
    };
    a.done("transpose", 2)?;
    Ok(tensor_value(
        topi::transpose(&x, axes.as_deref()).map_err(te_err)?,
    ))
}

fn topi_reshape(it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = tensor_arg(&a.req(0, "a", "reshape")?, "reshape")?;
    let s = a.req(1, "newshape", "reshape")?;
    a.done("reshape", 2)?;
    let s = shape_arg(it, &s)?;
    Ok(tensor_value(topi::reshape(&x, &s).map_err(te_err)?))
}

fn topi_softmax(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = tensor_arg(&a.req(0, "x", "softmax")?, "softmax")?;
    let axis = match a.take(1, "axis") {
        None => -1,
        Some(Value::Int(i)) => i,
        Some(other) => {
            return Err(PyErr::type_error(format!(
                "softmax axis must be an int, found {}",
                other.type_name()
            )))
        }
    };
    a.done("softmax", 2)?;
    Ok(tensor_value(topi::nn::softmax(&x, axis).map_err(te_err)?))
}

fn topi_conv2d_nchw(it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = tensor_arg(&a.req(0, "Input", "conv2d_nchw")?, "conv2d_nchw")?;
    let w = tensor_arg(&a.req(1, "Filter", "conv2d_nchw")?, "conv2d_nchw")?;
    let stride = a.req(2, "stride", "conv2d_nchw")?;
    let padding = a.req(3, "padding", "conv2d_nchw")?;
    let dilation = a.req(4, "dilation", "conv2d_nchw")?;
    let odt = opt_dtype(a.take(5, "out_dtype"))?;
    a.done("conv2d_nchw", 6)?;
    let stride = int_list(it, &stride, "stride")?;
    let padding = int_list(it, &padding, "padding")?;
    let dilation = int_list(it, &dilation, "dilation")?;
    Ok(tensor_value(
        topi::nn::conv2d_nchw(&x, &w, &stride, &padding, &dilation, odt).map_err(te_err)?,
    ))
}

fn topi_reduce(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    let x = tensor_arg(&a.req(0, "data", &name)?, &name)?;
    let axis = match a.take(1, "axis") {
        None | Some(Value::None) => None,
        Some(v) => Some(int_list(it, &v, "axis")?),
    };
    let keep = a.take(2, "keepdims");
    a.done(&name, 3)?;
    let keep = bool_arg(it, keep)?;
    let r = match name.as_str() {
        "sum" => topi::sum(&x, axis.as_deref(), keep),
        "max" => topi::max(&x, axis.as_deref(), keep),
        "argmax" => topi::argmax(&x, axis.as_deref(), keep),
        "argmin" => topi::argmin(&x, axis.as_deref(), keep),
        _ => topi::min(&x, axis.as_deref(), keep),
    }
    .map_err(te_err)?;
    Ok(tensor_value(r))
}

// ----------------------------------------------------------------------------
// Installation

fn with(name: &str, f: BuiltinFn, data: &str) -> Value {
    crate::python::builtins::builtin_with(name, f, Value::str(data))
}

fn set_attr(m: &Value, k: &str, v: Value) {
    if let Value::Module(m) = m {
        m.attrs.borrow_mut().insert(k.to_string(), v);
    }
}

const MATH: &[&str] = &[
    "exp", "log", "log2", "log10", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "floor", "ceil",
    "round", "trunc", "sin", "cos", "tan", "abs",
];

/// Replaces the placeholder `tvm.te` / `tvm.topi` modules and adds the
/// expression helpers to `tvm.tir` / `tvm.tirx` (after `tvm::install`).
pub fn install(it: &mut Interp) {
    let ite = builtin("tvm.tir.if_then_else", if_then_else);
    let all = with("tvm.tir.all", all_any, "all");
    let any = with("tvm.tir.any", all_any, "any");
    let cnst = builtin("tvm.tir.const", tir_const);
    let mut te_attrs: Vec<(&str, Value)> = vec![
        ("placeholder", builtin("tvm.te.placeholder", te_placeholder)),
        ("compute", builtin("tvm.te.compute", te_compute)),
        ("reduce_axis", builtin("tvm.te.reduce_axis", te_reduce_axis)),
        ("var", builtin("tvm.te.var", te_var)),
        ("size_var", builtin("tvm.te.size_var", te_var)),
        ("sum", with("tvm.te.sum", te_reduce, "sum")),
        ("max", with("tvm.te.max", te_reduce, "max")),
        ("min", with("tvm.te.min", te_reduce, "min")),
        ("if_then_else", ite.clone()),
        ("all", all.clone()),
        ("any", any.clone()),
        ("const", cnst.clone()),
        ("power", builtin("tvm.te.power", te_power)),
        ("min_value", with("tvm.te.min_value", min_max_value, "min")),
        ("max_value", with("tvm.te.max_value", min_max_value, "max")),
        (
            "create_prim_func",
            builtin("tvm.te.create_prim_func", te_create_prim_func),
        ),
        (
            "create_schedule",
            builtin(
                "tvm.te.create_schedule",
                super::te_schedule::create_schedule,
            ),
        ),
        (
            "thread_axis",
            builtin("tvm.te.thread_axis", super::te_schedule::thread_axis),
        ),
    ];
    for m in MATH {
        te_attrs.push((m, with(&format!("tvm.te.{m}"), te_math, m)));
    }
    let te_mod = module("tvm.te", te_attrs);
    let _ = removed;
    let nn = module(
        "tvm.topi.nn",
        vec![
            ("relu", builtin("tvm.topi.nn.relu", topi_relu)),
            ("dense", builtin("tvm.topi.nn.dense", topi_dense)),
            ("matmul", builtin("tvm.topi.nn.matmul", topi_nn_matmul)),
            ("softmax", builtin("tvm.topi.nn.softmax", topi_softmax)),
            (
                "conv2d_nchw",
                builtin("tvm.topi.nn.conv2d_nchw", topi_conv2d_nchw),
            ),
        ],
    );
    let mut topi_attrs: Vec<(&str, Value)> = vec![
        ("nn", nn.clone()),
        ("matmul", builtin("tvm.topi.matmul", topi_matmul)),
        ("transpose", builtin("tvm.topi.transpose", topi_transpose)),
        ("reshape", builtin("tvm.topi.reshape", topi_reshape)),
        ("sum", with("tvm.topi.sum", topi_reduce, "sum")),
        ("max", with("tvm.topi.max", topi_reduce, "max")),
        ("min", with("tvm.topi.min", topi_reduce, "min")),
        ("argmax", with("tvm.topi.argmax", topi_reduce, "argmax")),
        ("argmin", with("tvm.topi.argmin", topi_reduce, "argmin")),
    ];
    for n in ["add", "subtract", "multiply", "divide"] {
        topi_attrs.push((n, with(&format!("tvm.topi.{n}"), topi_broadcast, n)));
    }
    let topi_mod = module("tvm.topi", topi_attrs);
    let int_imm = builtin("tvm.tirx.IntImm", int_imm);
    let float_imm = builtin("tvm.tirx.FloatImm", float_imm);
    for tir in ["tvm.tir", "tvm.tirx"] {
        // `tvm.tirx.expr`: the expression node classes, as constructors.
        let expr = module(
            &format!("{tir}.expr"),
            vec![("IntImm", int_imm.clone()), ("FloatImm", float_imm.clone())],
        );
        it.modules.insert(format!("{tir}.expr"), expr.clone());
        if let Some(m) = it.modules.get(tir).cloned() {
            set_attr(&m, "expr", expr);
            set_attr(&m, "IntImm", int_imm.clone());
            set_attr(&m, "FloatImm", float_imm.clone());
            set_attr(&m, "if_then_else", ite.clone());
            set_attr(&m, "all", all.clone());
            set_attr(&m, "any", any.clone());
            set_attr(&m, "const", cnst.clone());
            set_attr(&m, "Select", builtin("tvm.tir.Select", select));
            set_attr(&m, "Var", builtin("tvm.tir.Var", te_var));
            for f in MATH {
                set_attr(&m, f, with(&format!("tvm.tir.{f}"), te_math, f));
            }
        }
    }
    if let Some(tvm) = it.modules.get("tvm").cloned() {
        set_attr(&tvm, "te", te_mod.clone());
        // `tvm.build(s, args, …)` of a TE schedule lowers it first, then
        // builds through the ordinary `tvm.build`.
        if let Value::Module(m) = &tvm {
            let plain = m.attrs.borrow().get("build").cloned();
            if let Some(plain) = plain {
                let build = crate::python::builtins::builtin_with(
                    "tvm.build",
                    super::te_schedule::build,
                    plain,
                );
                set_attr(&tvm, "build", build);
            }
        }
        set_attr(
            &tvm,
            "lower",
            builtin("tvm.lower", super::te_schedule::lower),
        );
        set_attr(&tvm, "topi", topi_mod.clone());
    }
    it.modules.insert("tvm.te".into(), te_mod);
    it.modules.insert("tvm.topi".into(), topi_mod);
    it.modules.insert("tvm.topi.nn".into(), nn);
}

// ----------------------------------------------------------------------------
// Objects: class names, printing, attributes, operators

pub fn class_name(o: &TeObj) -> &'static str {
    match o {
        TeObj::Tensor(_) => "tvm.te.tensor.Tensor",
        TeObj::Slice(..) => "tvm.te.tensor.TensorSlice",
        TeObj::IterVar(_) => "tvm.tirx.expr.IterVar",
        TeObj::Reduce(_) => "tvm.tirx.expr.Reduce",
        TeObj::Op(op) if op.is_placeholder() => "tvm.te.tensor.PlaceholderOp",
        TeObj::Op(_) => "tvm.te.tensor.ComputeOp",
        TeObj::Schedule(_) => "tvm.te.schedule.Schedule",
        TeObj::Stage(..) => "tvm.te.schedule.Stage",
        TeObj::ThreadAxis(_) => "tvm.tirx.expr.IterVar",
        TeObj::Expr(e) => expr_class(e),
    }
}

fn expr_class(e: &Expr) -> &'static str {
    use tessel_ir::{BinOp as B, CmpOp as C, ExprKind as K};
    match e.kind() {
        K::Var(_) => "tvm.ir.expr.Var",
        K::Int(_) => "tvm.ir.prim.expr.IntImm",
        K::Float(_) => "tvm.ir.prim.expr.FloatImm",
        K::Str(_) => "tvm.ir.prim.expr.StringImm",
        K::Binary(op, ..) => match op {
            B::Add => "tvm.ir.prim.expr.Add",
            B::Sub => "tvm.ir.prim.expr.Sub",
            B::Mul => "tvm.ir.prim.expr.Mul",
            B::Div => "tvm.ir.prim.expr.Div",
            B::Mod => "tvm.ir.prim.expr.Mod",
            B::FloorDiv => "tvm.ir.prim.expr.FloorDiv",
            B::FloorMod => "tvm.ir.prim.expr.FloorMod",
            B::Min => "tvm.ir.prim.expr.Min",
            B::Max => "tvm.ir.prim.expr.Max",
        },
        K::Cmp(op, ..) => match op {
            C::Eq => "tvm.ir.prim.expr.EQ",
            C::Ne => "tvm.ir.prim.expr.NE",
            C::Lt => "tvm.ir.prim.expr.LT",
            C::Le => "tvm.ir.prim.expr.LE",
            C::Gt => "tvm.ir.prim.expr.GT",
            C::Ge => "tvm.ir.prim.expr.GE",
        },
        K::And(..) => "tvm.ir.prim.expr.And",
        K::Or(..) => "tvm.ir.prim.expr.Or",
        K::Not(_) => "tvm.ir.prim.expr.Not",
        K::Select { .. } => "tvm.ir.prim.expr.Select",
        K::Cast(_) => "tvm.ir.prim.expr.Cast",
        K::Call { .. } => "tvm.ir.prim.expr.Call",
        K::Load { .. } => "tvm.ir.prim.expr.ProducerLoad",
        K::Let { .. } => "tvm.ir.prim.expr.Let",
        K::Ramp { .. } => "tvm.ir.prim.expr.Ramp",
        K::Broadcast(_) => "tvm.ir.prim.expr.Broadcast",
    }
}

fn tuple_text(items: &[String]) -> String {
    if items.len() == 1 {
        format!("({},)", items[0])
    } else {
        format!("({})", items.join(", "))
    }
}

fn iter_var_text(iv: &IterVar) -> String {
    let kind = match iv.kind {
        IterKind::Reduce => "CommReduce",
        _ => "DataPar",
    };
    format!(
        "T.iter_var({}, T.Range({}, {}), \"{kind}\", \"\")",
        iv.var.name(),
        print_expr(&iv.dom.min),
        print_expr(&iv.dom.extent)
    )
}

pub fn repr(o: &TeObj) -> String {
    if let Some(text) = super::te_schedule::repr(o) {
        return text;
    }
    match o {
        TeObj::Tensor(t) => format!(
            "Tensor(shape={}, op.name={})",
            tuple_text(&t.shape().iter().map(print_expr).collect::<Vec<_>>()),
            t.op().name()
        ),
        TeObj::Slice(t, ix) => format!(
            "TensorSlice({}, [{}])",
            t.name(),
            ix.iter().map(print_expr).collect::<Vec<_>>().join(", ")
        ),
        TeObj::Expr(e) => print_expr(e),
        TeObj::IterVar(iv) => iter_var_text(iv),
        TeObj::Reduce(r) => format!(
            "T.reduce({}, axis=[{}])",
            print_expr(&r.source[r.value_index]),
            r.axis
                .iter()
                .map(iter_var_text)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TeObj::Op(op) => {
            if op.is_placeholder() {
                format!("te.PlaceholderOp(name=\"{}\")", op.name())
            } else {
                format!(
                    "te.ComputeOp(name=\"{}\", tag=\"{}\", axis={}, reduce_axis={})",
                    op.name(),
                    op.tag(),
                    tuple_text(&op.axis().iter().map(iter_var_text).collect::<Vec<_>>()),
                    tuple_text(
                        &op.reduce_axis()
                            .iter()
                            .map(iter_var_text)
                            .collect::<Vec<_>>()
                    )
                )
            }
        }
        // Printed by `te_schedule::repr` above.
        TeObj::Schedule(_) | TeObj::Stage(..) | TeObj::ThreadAxis(_) => String::new(),
    }
}

fn no_attr(o: &TeObj, name: &str) -> Box<PyErr> {
    let cls = class_name(o);
    PyErr::attribute_error(format!(
        "'{}' object has no attribute '{name}'",
        cls.rsplit('.').next().unwrap_or(cls)
    ))
}

fn dtype_value(d: DataType) -> Value {
    Value::str(d.to_string())
}

pub fn get_attr(_it: &mut Interp, o: &TeObj, v: &Value, name: &str) -> Res<Value> {
    if let Some(r) = super::te_schedule::get_attr(o, v, name) {
        return r;
    }
    let bound = || Value::BoundMethod(Rc::new((v.clone(), name.into())));
    match o {
        TeObj::Tensor(t) => Ok(match name {
            "shape" => Value::tuple(t.shape().iter().cloned().map(expr_value).collect()),
            "dtype" => dtype_value(t.dtype()),
            "ndim" => Value::Int(t.ndim() as i64),
            "name" => Value::str(t.name()),
            "op" => te_value(TeObj::Op(t.op().clone())),
            "value_index" => Value::Int(t.value_index() as i64),
            "astype" => bound(),
            // A function parameter's type (see `PrimFunc.params`).
            "ty" => v.clone(),
            _ => return Err(no_attr(o, name)),
        }),
        TeObj::Op(op) => Ok(match name {
            "name" => Value::str(op.name()),
            "tag" => Value::str(op.tag()),
            "axis" => Value::tuple(
                op.axis()
                    .iter()
                    .cloned()
                    .map(|iv| te_value(TeObj::IterVar(iv)))
                    .collect(),
            ),
            "reduce_axis" => Value::tuple(
                op.reduce_axis()
                    .iter()
                    .cloned()
                    .map(|iv| te_value(TeObj::IterVar(iv)))
                    .collect(),
            ),
            "input_tensors" => Value::tuple(
                op.input_tensors()
                    .iter()
                    .cloned()
                    .map(tensor_value)
                    .collect(),
            ),
            "num_outputs" => Value::Int(op.num_outputs() as i64),
            "output" => bound(),
            _ => return Err(no_attr(o, name)),
        }),
        TeObj::IterVar(iv) => Ok(match name {
            "var" => expr_value(iv.var.to_expr()),
            "dom" => Value::tuple(vec![
                expr_value(iv.dom.min.clone()),
                expr_value(iv.dom.extent.clone()),
            ]),
            "iter_type" => Value::Int(if iv.kind == IterKind::Reduce { 2 } else { 0 }),
            "dtype" => dtype_value(iv.var.dtype()),
            _ => return Err(no_attr(o, name)),
        }),
        TeObj::Expr(e) => Ok(match name {
            "dtype" => dtype_value(e.dtype()),
            // Its type, of which only `.dtype` is read.
            "ty" => v.clone(),
            "name" if e.as_var().is_some() => {
                Value::str(e.as_var().map(|v| v.name().to_string()).unwrap_or_default())
            }
            "value" => match e.kind() {
                tessel_ir::ExprKind::Int(i) => Value::Int(*i),
                tessel_ir::ExprKind::Float(f) => Value::Float(*f),
                _ => return Err(no_attr(o, name)),
            },
            "astype" => bound(),
            _ => return Err(no_attr(o, name)),
        }),
        TeObj::Reduce(r) => Ok(match name {
            "dtype" => dtype_value(r.dtype()),
            "value_index" => Value::Int(r.value_index as i64),
            _ => return Err(no_attr(o, name)),
        }),
        TeObj::Slice(..) | TeObj::Schedule(_) | TeObj::Stage(..) | TeObj::ThreadAxis(_) => {
            Err(no_attr(o, name))
        }
    }
}

pub fn call_method(it: &mut Interp, o: &TeObj, name: &str, mut a: Args) -> Res<Value> {
    if matches!(o, TeObj::Schedule(_) | TeObj::Stage(..)) {
        if let Some(r) = super::te_schedule::call_method(it, o, name, a) {
            return r;
        }
        return Err(no_attr(o, name));
    }
    match (o, name) {
        (TeObj::Op(op), "output") => {
            let i = match a.req(0, "index", "output")? {
                Value::Int(i) => i,
                other => {
                    return Err(PyErr::type_error(format!(
                        "output index must be an int, found {}",
                        other.type_name()
                    )))
                }
            };
            let t = usize::try_from(i)
                .ok()
                .and_then(|i| op.output(i))
                .ok_or_else(|| PyErr::index_error(format!("output index {i} out of range")))?;
            Ok(tensor_value(t))
        }
        (TeObj::Expr(e), "astype") => {
            let dt = dtype_arg(&a.req(0, "dtype", "astype")?)?;
            Ok(expr_value(op::cast(dt, e).map_err(te_err)?))
        }
        (TeObj::Tensor(t), "astype") => {
            let dt = dtype_arg(&a.req(0, "dtype", "astype")?)?;
            Ok(tensor_value(topi::cast(t, dt).map_err(te_err)?))
        }
        _ => Err(no_attr(o, name)),
    }
}

/// `A[i, j]`, `A[i][j]`.
pub fn get_item(it: &mut Interp, o: &TeObj, idx: Value) -> Res<Value> {
    if let TeObj::Schedule(s) = o {
        return super::te_schedule::get_item(s, &idx);
    }
    let (t, mut ix) = match o {
        TeObj::Tensor(t) => (t.clone(), Vec::new()),
        TeObj::Slice(t, ix) => (t.clone(), ix.clone()),
        _ => {
            return Err(PyErr::type_error(format!(
                "'{}' object is not subscriptable",
                class_name(o).rsplit('.').next().unwrap_or("object")
            )))
        }
    };
    let items = match &idx {
        Value::Tuple(_) | Value::List(_) => it.items_of(&idx)?,
        other => vec![other.clone()],
    };
    for x in &items {
        if matches!(x, Value::Slice(_)) {
            return Err(PyErr::type_error(format!(
                "tensor {} cannot be sliced in a tensor expression; index every dimension",
                t.name()
            )));
        }
        ix.push(to_expr(x)?);
    }
    if ix.len() < t.ndim() {
        return Ok(te_value(TeObj::Slice(t, ix)));
    }
    Ok(expr_value(t.index(&ix).map_err(te_err)?))
}

/// `A(i, j)`.
pub fn call(it: &mut Interp, o: &TeObj, a: Args) -> Res<Value> {
    match o {
        TeObj::Tensor(_) => {
            let idx = Value::tuple(a.pos);
            get_item(it, o, idx)
        }
        _ => Err(PyErr::type_error(format!(
            "'{}' object is not callable",
            class_name(o).rsplit('.').next().unwrap_or("object")
        ))),
    }
}

/// Arithmetic with a TE operand: expressions build expressions; tensors
/// broadcast through topi (`A + B`, `A * 2`).
pub fn binary(op_: BinOp, l: &Value, r: &Value) -> Res<Option<Value>> {
    if !is_te(l) && !is_te(r) {
        return Ok(None);
    }
    if as_tensor(l).is_some_and(|t| t.ndim() > 0) || as_tensor(r).is_some_and(|t| t.ndim() > 0) {
        let (x, y) = (operand(l)?, operand(r)?);
        let res = match op_ {
            BinOp::Add => topi::add(x, y),
            BinOp::Sub => topi::subtract(x, y),
            BinOp::Mul => topi::multiply(x, y),
            BinOp::Div => topi::divide(x, y),
            _ => return Ok(None),
        }
        .map_err(te_err)?;
        return Ok(Some(operand_value(res)));
    }
    let (x, y) = (to_expr(l)?, to_expr(r)?);
    let res = match op_ {
        BinOp::Add => op::add(&x, &y),
        BinOp::Sub => op::sub(&x, &y),
        BinOp::Mul => op::mul(&x, &y),
        BinOp::Div => op::truediv(&x, &y),
        BinOp::FloorDiv => op::floordiv(&x, &y),
        BinOp::Mod => op::floormod(&x, &y),
        BinOp::Pow => op::power(&x, &y),
        BinOp::BitAnd if x.dtype().is_bool() && y.dtype().is_bool() => op::logical_and(&x, &y),
        BinOp::BitOr if x.dtype().is_bool() && y.dtype().is_bool() => op::logical_or(&x, &y),
        _ => return Ok(None),
    }
    .map_err(te_err)?;
    Ok(Some(expr_value(res)))
}

/// `<`, `<=`, `>`, `>=`, `==`, `!=` with an expression operand build
/// comparison expressions (as TVM's `PrimExpr` operators do).
pub fn compare(op_: CmpOp, l: &Value, r: &Value) -> Res<Option<Value>> {
    let te_expr = |v: &Value| {
        matches!(
            te_obj(v),
            Some(TeObj::Expr(_) | TeObj::IterVar(_) | TeObj::Reduce(_))
        )
    };
    if !te_expr(l) && !te_expr(r) {
        return Ok(None);
    }
    let (x, y) = (to_expr(l)?, to_expr(r)?);
    let res = match op_ {
        CmpOp::Lt => op::lt(&x, &y),
        CmpOp::LtE => op::le(&x, &y),
        CmpOp::Gt => op::gt(&x, &y),
        CmpOp::GtE => op::ge(&x, &y),
        CmpOp::Eq => op::eq(&x, &y),
        CmpOp::NotEq => op::ne(&x, &y),
        _ => return Ok(None),
    }
    .map_err(te_err)?;
    // Constant comparisons (`A.shape[1] == B.shape[0]`) fold to `T.bool(…)`,
    // whose truth value `assert` and `if` see (see [`truthy`]).
    Ok(Some(expr_value(res)))
}

const EXPR_BOOL_ERROR: &str =
    "Cannot use and / or / not operator to Expr, hint: use tvm.tirx.all / \
     tvm.tirx.any, if it is None checking, use node is not None";

/// `bool(x)` of a TE object: constants have their value; a symbolic
/// expression is TVM's error (Python's `and`/`or`/`not`/`if` cannot build
/// expressions). `None` for values that are not TE objects.
pub fn truthy(v: &Value) -> Option<Res<bool>> {
    match te_obj(v)? {
        TeObj::Expr(e) => Some(match e.kind() {
            tessel_ir::ExprKind::Int(i) => Ok(*i != 0),
            tessel_ir::ExprKind::Float(f) => Ok(*f != 0.0),
            _ => Err(PyErr::value_error(EXPR_BOOL_ERROR)),
        }),
        TeObj::IterVar(_) | TeObj::Reduce(_) => Some(Err(PyErr::value_error(EXPR_BOOL_ERROR))),
        _ => Some(Ok(true)),
    }
}

/// `-x` on an expression.
pub fn unary(op_: UnaryOp, v: &Value) -> Res<Option<Value>> {
    if !matches!(te_obj(v), Some(TeObj::Expr(_) | TeObj::IterVar(_))) {
        return Ok(None);
    }
    let x = to_expr(v)?;
    Ok(Some(match op_ {
        UnaryOp::Neg => expr_value(op::neg(&x).map_err(te_err)?),
        UnaryOp::Pos => expr_value(x),
        UnaryOp::Not => return Ok(None),
        UnaryOp::Invert if x.dtype().is_bool() => expr_value(op::logical_not(&x).map_err(te_err)?),
        UnaryOp::Invert => return Ok(None),
    }))
}

/// `int(e)` / `range(A.shape[0])` of a constant integer expression.
pub fn const_int(o: &TeObj) -> Option<i64> {
    match o {
        TeObj::Expr(e) => e.as_int(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Interpreter, Limits};
    use tessel_ir::printer::{print_prim_func, PrintOptions};

    const DEFS: &str = "from tvm import te
def te_matmul(A, B):
    k = te.reduce_axis((0, A.shape[1]), name='k')
    return te.compute((A.shape[0], B.shape[1]),
                      lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name='matmul')
def te_take(A, n):
    return te.compute((n,), lambda i: A[i % A.shape[0]], name='take')
def te_bad(A):
    return 3
";

    fn session() -> Interpreter {
        let mut s = Interpreter::new(Limits::default());
        s.run_cell(DEFS, "<defs>").expect("definitions run");
        s
    }

    fn global(s: &Interpreter, name: &str) -> Value {
        s.inner.globals.get(name).cloned().expect("defined")
    }

    #[test]
    fn call_te_function_builds_the_prim_func_of_a_python_function() {
        let mut s = session();
        let f = global(&s, "te_matmul");
        let a = te::placeholder(&[Expr::i64(4), Expr::i64(3)], DataType::f32(), "A").unwrap();
        let b = te::placeholder(&[Expr::i64(3), Expr::i64(5)], DataType::f32(), "B").unwrap();
        let args = Args::new(vec![tensor_value(a.clone()), tensor_value(b.clone())]);
        let call = call_te_function(&mut s.inner, &f, args, Some(DataType::i64()))
            .unwrap_or_else(|_| panic!("call_te_function failed"));
        assert_eq!(call.inputs, vec![a, b]);
        assert_eq!(call.outputs.len(), 1);
        assert_eq!(call.outputs[0].name(), "matmul");
        assert_eq!(call.func.params.len(), 3);
        let text = print_prim_func(&call.func, "main", &PrintOptions::new(Dialect::Tirx));
        assert!(text.contains("T.sblock(\"matmul\")"), "{text}");
        assert!(text.contains("T.int64(4)"), "{text}");
        // And it computes a matmul (reference interpreter).
        use compiler_core::eval::{run_prim_func, EvalOptions, NDArray};
        let av: Vec<f64> = (0..12).map(|x| x as f64 * 0.5 - 2.0).collect();
        let bv: Vec<f64> = (0..15).map(|x| 1.0 - x as f64 * 0.25).collect();
        let mut args = vec![
            NDArray::from_f64_as(DataType::f32(), &[4, 3], &av).unwrap(),
            NDArray::from_f64_as(DataType::f32(), &[3, 5], &bv).unwrap(),
            NDArray::zeros(DataType::f32(), &[4, 5]).unwrap(),
        ];
        assert!(run_prim_func(&call.func, &mut args, &EvalOptions::default()).is_ok());
        let got = args[2].to_f64_vec();
        for i in 0..4 {
            for j in 0..5 {
                let want: f64 = (0..3).map(|k| av[i * 3 + k] * bv[k * 5 + j]).sum();
                assert!((got[i * 5 + j] - want).abs() < 1e-5, "({i}, {j})");
            }
        }
    }

    #[test]
    fn call_te_function_passes_unbound_size_vars_as_scalar_params() {
        let mut s = session();
        let f = global(&s, "te_take");
        let a = te::placeholder(&[Expr::i64(8)], DataType::f32(), "A").unwrap();
        let n = te::var("n", DataType::i64());
        let args = Args::new(vec![tensor_value(a), expr_value(n.to_expr())]);
        let call = call_te_function(&mut s.inner, &f, args, Some(DataType::i64()))
            .unwrap_or_else(|_| panic!("call_te_function failed"));
        // A, n, take
        assert_eq!(call.func.params.len(), 3);
        assert_eq!(call.func.buffer_map.len(), 2);
        assert_eq!(
            call.outputs[0].shape()[0].as_var().map(|v| v.id()),
            Some(n.id())
        );
    }

    #[test]
    fn call_te_function_reports_a_non_tensor_result_as_a_type_error() {
        let mut s = session();
        let f = global(&s, "te_bad");
        let a = te::placeholder(&[Expr::i64(8)], DataType::f32(), "A").unwrap();
        let err = call_te_function(&mut s.inner, &f, Args::new(vec![tensor_value(a)]), None)
            .err()
            .expect("an error");
        assert_eq!(err.lazy_kind(), Some(ExcKind::TypeError));
    }
}
