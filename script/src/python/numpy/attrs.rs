//! Attributes and methods of `ndarray` and NumPy scalars.

use super::*;

pub fn get_attr(it: &mut Interp, v: &Value, name: &str) -> Res<Value> {
    match v {
        Value::Array(a) => {
            let arr = a.borrow();
            Ok(match name {
                "shape" => shape_value(arr.shape()),
                "dtype" => Value::NpDType(arr.dtype()),
                "ndim" => Value::Int(arr.ndim() as i64),
                "size" => Value::Int(arr.len() as i64),
                "itemsize" => Value::Int(arr.dtype().bytes() as i64),
                "nbytes" => Value::Int((arr.len() * arr.dtype().bytes()) as i64),
                "T" => {
                    drop(arr);
                    return transpose_view(it, a, None);
                }
                _ if ARRAY_METHODS.contains(&name) => {
                    drop(arr);
                    return Ok(Value::BoundMethod(Rc::new((v.clone(), name.into()))));
                }
                _ => {
                    return Err(PyErr::attribute_error(format!(
                        "'numpy.ndarray' object has no attribute '{name}'"
                    )))
                }
            })
        }
        Value::NpScalar(s) => Ok(match name {
            "dtype" => Value::NpDType(s.dtype),
            "shape" => Value::tuple(vec![]),
            "ndim" => Value::Int(0),
            "size" => Value::Int(1),
            "real" => v.clone(),
            _ if SCALAR_METHODS.contains(&name) => {
                Value::BoundMethod(Rc::new((v.clone(), name.into())))
            }
            _ => {
                return Err(PyErr::attribute_error(format!(
                    "'numpy.{}' object has no attribute '{name}'",
                    dtype_name(s.dtype)
                )))
            }
        }),
        Value::NpDType(d) => Ok(match name {
            "name" => Value::str(dtype_name(*d)),
            "itemsize" => Value::Int(d.bytes() as i64),
            "kind" => Value::str(match d.kind {
                ScalarKind::Float => "f",
                ScalarKind::Int => "i",
                ScalarKind::UInt => "u",
                _ => "b",
            }),
            "type" => Value::Class(
                it.types
                    .np_scalars
                    .get(dtype_name(*d))
                    .cloned()
                    .unwrap_or_else(|| it.types.object.clone()),
            ),
            _ => {
                return Err(PyErr::attribute_error(format!(
                    "'numpy.dtype' object has no attribute '{name}'"
                )))
            }
        }),
        _ => Err(PyErr::attribute_error(format!("no attribute '{name}'"))),
    }
}

const ARRAY_METHODS: &[&str] = &[
    "reshape",
    "astype",
    "transpose",
    "copy",
    "flatten",
    "ravel",
    "sum",
    "mean",
    "max",
    "min",
    "argmax",
    "argmin",
    "prod",
    "any",
    "all",
    "std",
    "var",
    "tolist",
    "item",
    "fill",
    "squeeze",
    "clip",
    "dot",
    "round",
    "numpy",
];
const SCALAR_METHODS: &[&str] = &["item", "astype", "tolist", "is_integer"];

fn reduction_args(a: &mut Args) -> (Option<Value>, Option<Value>, bool) {
    let axis = a.take(0, "axis");
    let dtype = a.take(1, "dtype");
    let keepdims = matches!(a.take_kw("keepdims"), Some(Value::Bool(true)));
    (axis, dtype, keepdims)
}

/// The array a reduction with `dtype=` works on: `v` cast to it (NumPy
/// accumulates in the requested type), or `v` itself.
pub fn in_dtype(it: &mut Interp, v: &Value, r: Red, dtype: Option<Value>) -> Res<Value> {
    let wants_cast = matches!(r, Red::Sum | Red::Prod | Red::Mean | Red::Std | Red::Var);
    match (dtype, v) {
        (Some(d), Value::Array(arr)) if wants_cast && !matches!(d, Value::None) => {
            let dt = dtype_arg(it, &d)?;
            let copy = arr.borrow().clone();
            astype(it, &copy, dt)
        }
        _ => Ok(v.clone()),
    }
}

pub fn call_method(it: &mut Interp, recv: &Value, name: &str, mut a: Args) -> Res<Value> {
    match recv {
        Value::Array(arr) => {
            let red = |n: &str| -> Option<Red> {
                Some(match n {
                    "sum" => Red::Sum,
                    "prod" => Red::Prod,
                    "mean" => Red::Mean,
                    "max" => Red::Max,
                    "min" => Red::Min,
                    "argmax" => Red::ArgMax,
                    "argmin" => Red::ArgMin,
                    "any" => Red::Any,
                    "all" => Red::All,
                    "std" => Red::Std,
                    "var" => Red::Var,
                    _ => return None,
                })
            };
            if let Some(r) = red(name) {
                let (axis, dtype, keepdims) = reduction_args(&mut a);
                let v = in_dtype(it, recv, r, dtype)?;
                return reduce(it, &v, r, axis.as_ref(), keepdims);
            }
            let copy = arr.borrow().clone();
            match name {
                "reshape" => {
                    let dims = shape_args(it, &a.pos)?;
                    reshape(it, &copy, &dims)
                }
                "astype" => {
                    let d = a.req(0, "dtype", "astype")?;
                    let dt = dtype_arg(it, &d)?;
                    astype(it, &copy, dt)
                }
                "transpose" => {
                    let axes = if a.pos.is_empty() {
                        None
                    } else {
                        Some(
                            shape_args(it, &a.pos)?
                                .into_iter()
                                .map(|x| x.max(0) as usize)
                                .collect(),
                        )
                    };
                    transpose_view(it, arr, axes)
                }
                "copy" => it.new_array(copy),
                "flatten" | "ravel" => {
                    let n = copy.len();
                    let r = copy.reshape(&[n]).map_err(PyErr::value_error)?;
                    it.new_array(r)
                }
                "squeeze" => {
                    let shape: Vec<usize> =
                        copy.shape().iter().copied().filter(|&d| d != 1).collect();
                    let r = copy.reshape(&shape).map_err(PyErr::value_error)?;
                    finish(it, r)
                }
                "tolist" => tolist(it, &copy),
                "item" => {
                    if copy.len() != 1 {
                        return Err(PyErr::value_error(
                            "can only convert an array of size 1 to a Python scalar",
                        ));
                    }
                    Ok(py_scalar(copy.dtype(), elem(&copy, 0)))
                }
                "fill" => {
                    let v = a.req(0, "value", "fill")?;
                    let n = scalar_num(&v)
                        .ok_or_else(|| PyErr::type_error("fill value must be a number"))?;
                    let len = arr.data.borrow().len();
                    for i in 0..len {
                        write_elem(arr, i, n)?;
                    }
                    Ok(Value::None)
                }
                "clip" => {
                    let lo = a
                        .take(0, "a_min")
                        .or_else(|| a.take_kw("min"))
                        .unwrap_or(Value::None);
                    let hi = a
                        .take(1, "a_max")
                        .or_else(|| a.take_kw("max"))
                        .unwrap_or(Value::None);
                    module::clip(it, recv, &lo, &hi)
                }
                "dot" => {
                    let other = a.req(0, "b", "dot")?;
                    matmul(it, recv, &other)
                }
                "round" => {
                    let d = a.take(0, "decimals").and_then(|v| num_i64(&v)).unwrap_or(0);
                    round_array(it, recv, d)
                }
                _ => Err(PyErr::attribute_error(format!(
                    "'numpy.ndarray' object has no attribute '{name}'"
                ))),
            }
        }
        Value::NpScalar(s) => match name {
            "item" | "tolist" => Ok(py_scalar(s.dtype, s.num)),
            "astype" => {
                let d = a.req(0, "dtype", "astype")?;
                let dt = dtype_arg(it, &d)?;
                Ok(make_scalar(dt, s.num))
            }
            "is_integer" => Ok(Value::Bool(s.num.as_f64().fract() == 0.0)),
            _ => Err(PyErr::attribute_error(format!(
                "'numpy.{}' object has no attribute '{name}'",
                dtype_name(s.dtype)
            ))),
        },
        _ => {
            let f = get_attr(it, recv, name)?;
            it.call(&f, a)
        }
    }
}

/// `np.float32(x)` and friends.
pub fn construct_scalar(it: &mut Interp, cls: &Rc<Class>, a: Args) -> Res<Value> {
    let dt = cls.dtype.unwrap_or(DataType::f64());
    match a.pos.first() {
        None => Ok(make_scalar(dt, Num::I(0))),
        Some(Value::Str(s)) => {
            let f: f64 = s.trim().parse().map_err(|_| {
                PyErr::value_error(format!(
                    "could not convert string to float: {}",
                    super::super::fmt::str_repr(s)
                ))
            })?;
            Ok(make_scalar(dt, Num::F(f)))
        }
        Some(v @ (Value::Array(_) | Value::List(_) | Value::Tuple(_))) => {
            let arr = module::array_from(it, v, Some(dt))?;
            finish(it, arr)
        }
        Some(v) => {
            let n = match v {
                Value::Float(f) => Num::F(*f),
                other => match num_i64(other) {
                    Some(i) => Num::I(i),
                    None => Num::F(num_f64(other).ok_or_else(|| {
                        PyErr::type_error(format!(
                            "cannot convert '{}' to {}",
                            other.type_name(),
                            dtype_name(dt)
                        ))
                    })?),
                },
            };
            Ok(make_scalar(dt, n))
        }
    }
}
