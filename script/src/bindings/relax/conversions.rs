//! Conversions between script values and graph values: struct info, shapes,
//! dtypes, expressions and constants.

use super::*;

// ----------------------------------------------------------------------------
// Conversions

/// A script value used as a graph expression.
pub(super) fn to_expr(it: &mut Interp, v: &Value) -> Res<Expr> {
    if let Some(r) = relax_obj(v) {
        return match r {
            RObj::Var(v) => Ok(v.to_expr()),
            RObj::Expr(e) => Ok(e.clone()),
            other => Err(PyErr::type_error(format!(
                "expected a Relax expression, got {}",
                other.class_name()
            ))),
        };
    }
    match v {
        Value::Tuple(_) | Value::List(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(to_expr(it, x)?);
            }
            Ok(Expr::tuple(out))
        }
        Value::Array(a) => Ok(Expr::constant(a.borrow().clone())),
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Tensor { data, .. }) => Ok(Expr::constant(data.borrow().clone())),
            Some(Obj::GlobalVar(n)) => Ok(Expr::global(n)),
            _ => Err(PyErr::type_error(format!(
                "expected a Relax expression, got {}",
                o.type_name()
            ))),
        },
        Value::Float(f) => Ok(Expr::constant(
            NDArray::scalar_f64(DataType::f32(), *f).map_err(PyErr::value_error)?,
        )),
        other => Err(PyErr::type_error(format!(
            "expected a Relax expression, got {}",
            other.type_name()
        ))),
    }
}

/// A dimension: an int, or a string naming a symbolic `int64` variable (the
/// same name is the same variable for the whole run).
pub(super) fn to_dim(it: &mut Interp, v: &Value) -> Res<PrimExpr> {
    match v {
        Value::Int(i) => Ok(PrimExpr::i64(*i)),
        Value::NpScalar(s) if !s.dtype.is_float() => Ok(PrimExpr::i64(s.num.as_i64())),
        Value::Str(name) => {
            let reg = registry_module(it, SYMBOLS);
            let Value::Module(m) = &reg else {
                return Err(PyErr::value_error("no symbol table"));
            };
            if let Some(Value::Host(o)) = m.attrs.borrow().get(&**name) {
                if let Some(Obj::Relax(RObj::Expr(e))) = tvm_obj(o) {
                    if let ExprKind::PrimValue(p) = e.kind() {
                        return Ok(p.clone());
                    }
                }
            }
            let var = tessel_ir::Var::new(name.to_string(), DataType::i64());
            let p: PrimExpr = PrimExpr::from(&var);
            let stored = Expr::new(ExprKind::PrimValue(p.clone()), Default::default());
            m.attrs
                .borrow_mut()
                .insert(name.to_string(), host(RObj::Expr(stored)));
            Ok(p)
        }
        other => Err(PyErr::type_error(format!(
            "a dimension must be an int or a name, not {}",
            other.type_name()
        ))),
    }
}

pub(super) fn to_dims(it: &mut Interp, v: &Value) -> Res<Vec<PrimExpr>> {
    if let Some(RObj::Expr(e)) = relax_obj(v) {
        if let ExprKind::Shape(s) = e.kind() {
            return Ok(s.clone());
        }
    }
    let items = match v {
        Value::Int(_) => vec![v.clone()],
        _ => it.items_of(v)?,
    };
    items.iter().map(|d| to_dim(it, d)).collect()
}

pub(super) fn dtype_opt(it: &mut Interp, v: Option<Value>) -> Res<Option<DataType>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => {
            if v.as_str() == Some("") {
                return Ok(None);
            }
            Ok(Some(crate::python::numpy::dtype_arg(it, &v)?))
        }
    }
}

/// A script value used as struct info.
pub(super) fn to_sinfo(it: &mut Interp, v: &Value) -> Res<StructInfo> {
    if let Some(RObj::SInfo(s)) = relax_obj(v) {
        return Ok(s.clone());
    }
    match v {
        Value::Tuple(_) | Value::List(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(to_sinfo(it, x)?);
            }
            Ok(StructInfo::Tuple(out))
        }
        other => Err(PyErr::type_error(format!(
            "expected struct info (relax.TensorStructInfo or R.Tensor), got {}",
            other.type_name()
        ))),
    }
}

pub(super) fn to_axes(it: &mut Interp, v: Option<Value>) -> Res<Option<Vec<i64>>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(Value::Int(i)) => Ok(Some(vec![i])),
        Some(v) => {
            let items = it.items_of(&v)?;
            let mut out = Vec::new();
            for x in items {
                out.push(
                    crate::python::ops::num_i64(&x)
                        .ok_or_else(|| PyErr::type_error("axes must be integers"))?,
                );
            }
            Ok(Some(out))
        }
    }
}

pub(super) fn to_array(it: &mut Interp, v: &Value) -> Res<NDArray> {
    match v {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Tensor { data, .. }) => Ok(data.borrow().clone()),
            _ => Err(PyErr::type_error(format!(
                "expected a tensor, got {}",
                o.type_name()
            ))),
        },
        _ => crate::python::numpy::module::array_from(it, v, None),
    }
}

pub(super) fn tensor_value(it: &mut Interp, arr: NDArray) -> Res<Value> {
    let data = it.array_obj(arr)?;
    Ok(Value::Host(Rc::new(Obj::Tensor {
        data,
        device: Device::cpu(),
    })))
}

pub(super) fn from_vm(it: &mut Interp, v: VmValue) -> Res<Value> {
    Ok(match v {
        VmValue::Tensor(t) => tensor_value(it, t)?,
        VmValue::Tuple(items) => {
            let mut out = Vec::with_capacity(items.len());
            for x in items {
                out.push(from_vm(it, x)?);
            }
            Value::tuple(out)
        }
        VmValue::Shape(s) => Value::tuple(s.into_iter().map(Value::Int).collect()),
        VmValue::Prim(p) => Value::Int(p),
        VmValue::Str(s) => Value::str(s),
        VmValue::Func(f) => Value::str(f),
    })
}

pub(super) fn to_vm(it: &mut Interp, v: &Value) -> Res<VmValue> {
    match v {
        Value::Tuple(_) | Value::List(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(to_vm(it, x)?);
            }
            Ok(VmValue::Tuple(out))
        }
        Value::Int(i) => Ok(VmValue::Prim(*i)),
        _ => Ok(VmValue::Tensor(to_array(it, v)?)),
    }
}
