//! Constructors of graph values: `relax.Var`, `TensorStructInfo`, `const` and
//! the like.

use super::*;

// ----------------------------------------------------------------------------
// Constructors

pub(super) fn relax_var(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a.req(0, "name_hint", "Var")?;
    let sinfo = a.take(1, "struct_info");
    a.done("Var", 2)?;
    let name = it.str_of(&name)?;
    let sinfo = match sinfo {
        Some(v) if !matches!(v, Value::None) => to_sinfo(it, &v)?,
        _ => StructInfo::Object,
    };
    Ok(host(RObj::Var(Var::new(name, sinfo))))
}

pub(super) fn tensor_sinfo(it: &mut Interp, mut a: Args) -> Res<Value> {
    let shape = a.take(0, "shape");
    let dtype = a.take(1, "dtype").unwrap_or(Value::str("float32"));
    let ndim = a.take_kw("ndim");
    let _ = a.take_kw("vdevice");
    a.done("TensorStructInfo", 2)?;
    let dtype = dtype_opt(it, Some(dtype))?;
    let info = match shape {
        Some(s) if !matches!(s, Value::None) => TensorInfo::new(to_dims(it, &s)?, dtype),
        _ => TensorInfo::with_ndim(
            ndim.and_then(|v| crate::python::ops::num_i64(&v))
                .filter(|&n| n >= 0)
                .map(|n| n as usize),
            dtype,
        ),
    };
    Ok(host(RObj::SInfo(StructInfo::Tensor(info))))
}

pub(super) fn relax_const(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "value", "const")?;
    let dtype = a.take(1, "dtype");
    a.done("const", 2)?;
    let dtype = dtype_opt(it, dtype)?;
    let arr =
        match &v {
            Value::Float(f) => NDArray::scalar_f64(dtype.unwrap_or(DataType::f32()), *f)
                .map_err(PyErr::value_error)?,
            Value::Int(i) => NDArray::scalar_i64(dtype.unwrap_or(DataType::i32()), *i)
                .map_err(PyErr::value_error)?,
            _ => {
                let arr = to_array(it, &v)?;
                match dtype {
                    Some(d) if d != arr.dtype() => {
                        NDArray::from_f64_as(d, arr.shape(), &arr.to_f64_vec())
                            .map_err(PyErr::value_error)?
                    }
                    _ => arr,
                }
            }
        };
    Ok(host(RObj::Expr(Expr::constant(arr))))
}

pub(super) fn shape_expr(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "values", "shape")?;
    let dims = to_dims(it, &v)?;
    Ok(host(RObj::Expr(Expr::shape(dims))))
}

pub(super) fn op_get(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a.req(0, "op_name", "Op.get")?;
    let name = it.str_of(&name)?;
    let known = name
        .strip_prefix("relax.")
        .map(|n| compiler_core::graph::op::OP_NAMES.contains(&n) || n == "linear")
        .unwrap_or(false);
    if !known {
        return Err(PyErr::value_error(format!(
            "Cannot find op `{name}` (Tessel knows relax.{})",
            compiler_core::graph::op::OP_NAMES.join(", relax.")
        )));
    }
    Ok(host(RObj::OpRef(name)))
}
