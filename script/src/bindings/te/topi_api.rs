//! `tvm.topi`: broadcast operators, `relu`, `dense`, `matmul`,
//! `transpose`, `reshape`, `softmax`, `conv2d_nchw` and reductions over
//! [`compiler_core::te::topi`].

use super::*;

// tvm.topi

pub(super) fn operand(v: &Value) -> Res<topi::Operand> {
    match as_tensor(v) {
        Some(t) => Ok(topi::Operand::Tensor(t)),
        None => Ok(topi::Operand::Scalar(to_expr(v)?)),
    }
}

pub(super) fn operand_value(o: topi::Operand) -> Value {
    match o {
        topi::Operand::Tensor(t) => tensor_value(t),
        topi::Operand::Scalar(e) => expr_value(e),
    }
}

pub(super) fn topi_broadcast(_it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn topi_relu(_it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn topi_dense(_it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn topi_nn_matmul(it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn topi_matmul(it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = tensor_arg(&a.req(0, "a", "matmul")?, "matmul")?;
    let w = tensor_arg(&a.req(1, "b", "matmul")?, "matmul")?;
    let ta = a.take(2, "transp_a");
    let tb = a.take(3, "transp_b");
    a.done("matmul", 4)?;
    let (ta, tb) = (bool_arg(it, ta)?, bool_arg(it, tb)?);
    Ok(tensor_value(topi::matmul(&x, &w, ta, tb).map_err(te_err)?))
}

pub(super) fn topi_transpose(it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn topi_reshape(it: &mut Interp, mut a: Args) -> Res<Value> {
    let x = tensor_arg(&a.req(0, "a", "reshape")?, "reshape")?;
    let s = a.req(1, "newshape", "reshape")?;
    a.done("reshape", 2)?;
    let s = shape_arg(it, &s)?;
    Ok(tensor_value(topi::reshape(&x, &s).map_err(te_err)?))
}

pub(super) fn topi_softmax(_it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn topi_conv2d_nchw(it: &mut Interp, mut a: Args) -> Res<Value> {
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

pub(super) fn topi_reduce(it: &mut Interp, mut a: Args) -> Res<Value> {
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
