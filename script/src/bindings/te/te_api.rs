//! `tvm.te` and the `tvm.tir` expression helpers: placeholders, variables,
//! reduce axes, `te.compute` and reductions, constants, math functions and
//! `create_prim_func`.

use super::*;

// tvm.te

pub(super) fn te_placeholder(it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn te_var(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = str_arg(a.take(0, "name"), "tindex")?;
    let dtype = match a.take(1, "dtype") {
        None | Some(Value::None) => DataType::i32(),
        Some(v) => dtype_arg(&v)?,
    };
    let _ = a.take_kw("span");
    a.done("var", 2)?;
    Ok(expr_value(te::var(&name, dtype).to_expr()))
}

pub(super) fn te_reduce_axis(it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn te_compute(it: &mut Interp, mut a: Args) -> Res<Value> {
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
pub(super) fn te_reduce(it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn if_then_else(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let c = a.req(0, "cond", "if_then_else")?;
    let t = a.req(1, "t", "if_then_else")?;
    let f = a.req(2, "f", "if_then_else")?;
    let _ = a.take_kw("span");
    a.done("if_then_else", 3)?;
    let r = op::if_then_else(&to_expr(&c)?, &to_expr(&t)?, &to_expr(&f)?).map_err(te_err)?;
    Ok(expr_value(r))
}

pub(super) fn select(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let c = a.req(0, "condition", "Select")?;
    let t = a.req(1, "true_value", "Select")?;
    let f = a.req(2, "false_value", "Select")?;
    a.done("Select", 3)?;
    let r = op::select(&to_expr(&c)?, &to_expr(&t)?, &to_expr(&f)?).map_err(te_err)?;
    Ok(expr_value(r))
}

pub(super) fn all_any(_it: &mut Interp, a: Args) -> Res<Value> {
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

pub(super) fn tir_const(_it: &mut Interp, mut a: Args) -> Res<Value> {
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
pub(super) fn int_imm(_it: &mut Interp, mut a: Args) -> Res<Value> {
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
pub(super) fn float_imm(_it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn te_math(_it: &mut Interp, a: Args) -> Res<Value> {
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

pub(super) fn te_power(_it: &mut Interp, a: Args) -> Res<Value> {
    let [x, y] = a.pos.as_slice() else {
        return Err(PyErr::type_error("power() takes 2 arguments"));
    };
    Ok(expr_value(
        op::power(&to_expr(x)?, &to_expr(y)?).map_err(te_err)?,
    ))
}

pub(super) fn min_max_value(_it: &mut Interp, a: Args) -> Res<Value> {
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

pub(super) fn te_create_prim_func(it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn removed(_it: &mut Interp, a: Args) -> Res<Value> {
    let name = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    Err(PyErr::attribute_error(format!(
        "module 'tvm.te' has no attribute '{name}'"
    )))
}
