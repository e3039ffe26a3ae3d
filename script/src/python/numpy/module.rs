//! The `numpy` module object: array creation, functions, `np.random`.

use std::collections::HashMap;

use super::*;
use crate::python::builtins::{builtin, builtin_with};

/// Builds the `numpy` module (with `numpy.random` and `numpy.testing`).
pub fn make_numpy(it: &mut Interp) -> Value {
    let mut m: HashMap<String, Value> = HashMap::new();
    let fns: &[(&str, BuiltinFn)] = &[
        ("array", np_array),
        ("asarray", np_asarray),
        ("zeros", np_zeros),
        ("ones", np_ones),
        ("empty", np_zeros),
        ("full", np_full),
        ("zeros_like", np_zeros_like),
        ("ones_like", np_ones_like),
        ("empty_like", np_zeros_like),
        ("full_like", np_full_like),
        ("arange", np_arange),
        ("linspace", np_linspace),
        ("eye", np_eye),
        ("identity", np_eye),
        ("reshape", np_reshape),
        ("transpose", np_transpose),
        ("matmul", np_matmul),
        ("dot", np_matmul),
        ("einsum", np_einsum),
        ("maximum", np_maximum),
        ("minimum", np_minimum),
        ("allclose", np_allclose),
        ("isclose", np_isclose),
        ("array_equal", np_array_equal),
        ("where", np_where),
        ("concatenate", np_concatenate),
        ("stack", np_stack),
        ("clip", np_clip),
        ("round", np_round),
        ("around", np_round),
        ("shape", np_shape),
        ("ndim", np_ndim),
        ("size", np_size),
        ("copy", np_asarray_copy),
        ("expand_dims", np_expand_dims),
        ("squeeze", np_squeeze),
        ("result_type", np_result_type),
    ];
    for (name, f) in fns {
        m.insert(name.to_string(), builtin(&format!("numpy.{name}"), *f));
    }
    for name in [
        "exp",
        "exp2",
        "log",
        "log2",
        "log10",
        "sqrt",
        "tanh",
        "sin",
        "cos",
        "tan",
        "floor",
        "ceil",
        "trunc",
        "rint",
        "absolute",
        "abs",
        "negative",
        "positive",
        "square",
        "sign",
        "reciprocal",
    ] {
        m.insert(
            name.to_string(),
            builtin_with(&format!("numpy.{name}"), np_ufunc1, Value::str(name)),
        );
    }
    for (name, op) in [
        ("add", "+"),
        ("subtract", "-"),
        ("multiply", "*"),
        ("divide", "/"),
        ("true_divide", "/"),
        ("floor_divide", "//"),
        ("mod", "%"),
        ("remainder", "%"),
        ("power", "**"),
    ] {
        m.insert(
            name.to_string(),
            builtin_with(&format!("numpy.{name}"), np_binary, Value::str(op)),
        );
    }
    for name in [
        "sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "prod", "std", "var",
        "any", "all",
    ] {
        m.insert(
            name.to_string(),
            builtin_with(&format!("numpy.{name}"), np_reduce, Value::str(name)),
        );
    }
    for (name, class) in it.types.np_scalars.iter() {
        let key = if name == "bool" {
            "bool_"
        } else {
            name.as_str()
        };
        m.insert(key.to_string(), Value::Class(class.clone()));
        if name == "bool" {
            m.insert("bool".to_string(), Value::Class(class.clone()));
        }
    }
    m.insert(
        "float_".into(),
        m.get("float64").cloned().unwrap_or(Value::None),
    );
    m.insert(
        "int_".into(),
        m.get("int64").cloned().unwrap_or(Value::None),
    );
    m.insert(
        "intc".into(),
        m.get("int32").cloned().unwrap_or(Value::None),
    );
    m.insert(
        "double".into(),
        m.get("float64").cloned().unwrap_or(Value::None),
    );
    m.insert(
        "single".into(),
        m.get("float32").cloned().unwrap_or(Value::None),
    );
    m.insert(
        "half".into(),
        m.get("float16").cloned().unwrap_or(Value::None),
    );
    m.insert("ndarray".into(), Value::Class(it.types.ndarray.clone()));
    m.insert("dtype".into(), Value::Class(it.types.np_dtype.clone()));
    m.insert("newaxis".into(), Value::None);
    m.insert("pi".into(), Value::Float(std::f64::consts::PI));
    m.insert("e".into(), Value::Float(std::f64::consts::E));
    m.insert("inf".into(), Value::Float(f64::INFINITY));
    m.insert("nan".into(), Value::Float(f64::NAN));
    m.insert("__version__".into(), Value::str("2.4.6"));

    let mut r: HashMap<String, Value> = HashMap::new();
    let rfns: &[(&str, BuiltinFn)] = &[
        ("seed", rnd_seed),
        ("rand", rnd_rand),
        ("randn", rnd_randn),
        ("uniform", rnd_uniform),
        ("normal", rnd_normal),
        ("randint", rnd_randint),
        ("random", rnd_random),
        ("random_sample", rnd_random),
        ("standard_normal", rnd_standard_normal),
    ];
    for (name, f) in rfns {
        r.insert(
            name.to_string(),
            builtin(&format!("numpy.random.{name}"), *f),
        );
    }
    let random = module("numpy.random", r);

    let mut t: HashMap<String, Value> = HashMap::new();
    let tfns: &[(&str, BuiltinFn)] = &[
        ("assert_allclose", super::testing::assert_allclose),
        ("assert_array_equal", super::testing::assert_array_equal),
        ("assert_equal", super::testing::assert_array_equal),
        (
            "assert_array_almost_equal",
            super::testing::assert_array_almost_equal,
        ),
    ];
    for (name, f) in tfns {
        t.insert(
            name.to_string(),
            builtin(&format!("numpy.testing.{name}"), *f),
        );
    }
    let testing = module("numpy.testing", t);
    it.modules.insert("numpy.random".into(), random.clone());
    it.modules.insert("numpy.testing".into(), testing.clone());
    m.insert("random".into(), random);
    m.insert("testing".into(), testing);
    module("numpy", m)
}

// ----------------------------------------------------------------------------
// Creating arrays

fn leaf_dtype(v: &Value) -> Option<DataType> {
    Some(match v {
        Value::Bool(_) => DataType::bool(),
        Value::Int(_) => DataType::i64(),
        Value::Float(_) => DataType::f64(),
        Value::NpScalar(s) => s.dtype,
        _ => return None,
    })
}

fn leaf_num(v: &Value) -> Option<Num> {
    Some(match v {
        Value::Bool(b) => Num::I(*b as i64),
        Value::Int(i) => Num::I(*i),
        Value::Float(f) => Num::F(*f),
        Value::NpScalar(s) => s.num,
        _ => return None,
    })
}

/// Flattens nested sequences: leaves in row-major order, checking the shape.
fn flatten(
    it: &mut Interp,
    v: &Value,
    depth: usize,
    shape: &mut Vec<usize>,
    leaves: &mut Vec<(Num, DataType)>,
) -> Res<()> {
    if depth > 32 {
        return Err(PyErr::value_error("array is nested too deeply"));
    }
    match v {
        Value::List(_) | Value::Tuple(_) => {
            let items = it.items_of(v)?;
            if shape.len() == depth {
                shape.push(items.len());
            } else if shape.get(depth) != Some(&items.len()) {
                return Err(PyErr::value_error(format!(
                    "setting an array element with a sequence. The requested array has an inhomogeneous shape after {depth} dimensions. The detected shape was {} + inhomogeneous part.",
                    shape_str(&shape[..depth])
                )));
            }
            it.check_alloc((leaves.len() + items.len()) as u64 * 16)?;
            for x in &items {
                flatten(it, x, depth + 1, shape, leaves)?;
            }
            Ok(())
        }
        Value::Array(a) => {
            let a = a.borrow();
            for (k, &d) in a.shape().iter().enumerate() {
                if shape.len() == depth + k {
                    shape.push(d);
                } else if shape.get(depth + k) != Some(&d) {
                    return Err(PyErr::value_error(
                        "setting an array element with a sequence: inhomogeneous shape",
                    ));
                }
            }
            if shape.len() != depth + a.ndim() {
                return Err(PyErr::value_error(
                    "setting an array element with a sequence: inhomogeneous shape",
                ));
            }
            for i in 0..a.len() {
                leaves.push((elem(&a, i), a.dtype()));
            }
            Ok(())
        }
        other => {
            if shape.len() != depth {
                return Err(PyErr::value_error(format!(
                    "setting an array element with a sequence. The requested array has an inhomogeneous shape after {depth} dimensions."
                )));
            }
            let (n, dt) = match (leaf_num(other), leaf_dtype(other)) {
                (Some(n), Some(dt)) => (n, dt),
                _ => match other.host().and_then(|o| o.to_array()) {
                    Some(a) => {
                        let av = it.new_array(a)?;
                        return flatten(it, &av, depth, shape, leaves);
                    }
                    None => {
                        return Err(PyErr::type_error(format!(
                            "Tessel's NumPy arrays hold numbers only, not '{}'",
                            other.type_name()
                        )))
                    }
                },
            };
            leaves.push((n, dt));
            Ok(())
        }
    }
}

/// `np.array(v, dtype)`.
pub fn array_from(it: &mut Interp, v: &Value, dtype: Option<DataType>) -> Res<NDArray> {
    if let Value::Array(a) = v {
        let a = a.borrow().clone();
        return match dtype {
            Some(dt) if dt != a.dtype() => match astype(it, &a, dt)? {
                Value::Array(r) => Ok(r.borrow().clone()),
                _ => Ok(a),
            },
            _ => Ok(a),
        };
    }
    if let Some(a) = v.host().and_then(|o| o.to_array()) {
        let av = it.new_array(a)?;
        return array_from(it, &av, dtype);
    }
    let mut shape = Vec::new();
    let mut leaves = Vec::new();
    flatten(it, v, 0, &mut shape, &mut leaves)?;
    let dt = match dtype {
        Some(d) => d,
        None => leaves
            .iter()
            .map(|(_, d)| *d)
            .reduce(promote)
            .unwrap_or(DataType::f64()),
    };
    if is_float(dt) {
        let vals: Vec<f64> = leaves.iter().map(|(n, _)| n.as_f64()).collect();
        from_f(dt, &shape, &vals)
    } else {
        let vals: Vec<i64> = leaves
            .iter()
            .map(|(n, _)| match n {
                Num::I(i) => *i,
                Num::F(f) => *f as i64,
            })
            .collect();
        from_i(dt, &shape, &vals)
    }
}

fn opt_dtype(it: &mut Interp, v: Option<Value>) -> Res<Option<DataType>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(d) => Ok(Some(dtype_arg(it, &d)?)),
    }
}

fn np_array(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "object", "array")?;
    let dt = a.take(1, "dtype");
    let dt = opt_dtype(it, dt)?;
    let _ = a.take_kw("copy");
    let arr = array_from(it, &v, dt)?;
    it.new_array(arr)
}

fn np_asarray(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "a", "asarray")?;
    let dt = a.take(1, "dtype");
    let dt = opt_dtype(it, dt)?;
    if let (Value::Array(arr), None) = (&v, dt) {
        return Ok(Value::Array(arr.clone()));
    }
    let arr = array_from(it, &v, dt)?;
    it.new_array(arr)
}

fn np_asarray_copy(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "a", "copy")?;
    let arr = array_from(it, &v, None)?;
    it.new_array(arr)
}

fn shape_of(it: &mut Interp, v: &Value) -> Res<Vec<usize>> {
    let dims = shape_args(it, std::slice::from_ref(v))?;
    dims.into_iter()
        .map(|d| {
            usize::try_from(d)
                .map_err(|_| PyErr::value_error("negative dimensions are not allowed"))
        })
        .collect()
}

fn filled(it: &mut Interp, shape: &[usize], dt: DataType, value: Num) -> Res<Value> {
    let n = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).ok_or_else(|| {
        PyErr::value_error("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.")
    })?;
    alloc_check(it, dt, n)?;
    let mut arr = NDArray::zeros(dt, shape).map_err(|e| PyErr::new(ExcKind::MemoryError, e))?;
    if value.as_f64() != 0.0 {
        for i in 0..n {
            set_elem(&mut arr, i, value)?;
        }
    }
    it.new_array(arr)
}

fn np_zeros(it: &mut Interp, mut a: Args) -> Res<Value> {
    let s = a.req(0, "shape", "zeros")?;
    let shape = shape_of(it, &s)?;
    let dt = a.take(1, "dtype");
    let dt = opt_dtype(it, dt)?.unwrap_or(DataType::f64());
    filled(it, &shape, dt, Num::I(0))
}

fn np_ones(it: &mut Interp, mut a: Args) -> Res<Value> {
    let s = a.req(0, "shape", "ones")?;
    let shape = shape_of(it, &s)?;
    let dt = a.take(1, "dtype");
    let dt = opt_dtype(it, dt)?.unwrap_or(DataType::f64());
    filled(it, &shape, dt, Num::I(1))
}

fn np_full(it: &mut Interp, mut a: Args) -> Res<Value> {
    let s = a.req(0, "shape", "full")?;
    let shape = shape_of(it, &s)?;
    let fill = a.req(1, "fill_value", "full")?;
    let n = leaf_num(&fill).ok_or_else(|| PyErr::type_error("fill_value must be a number"))?;
    let dt = a.take(2, "dtype");
    let dt = opt_dtype(it, dt)?
        .or_else(|| leaf_dtype(&fill))
        .unwrap_or(DataType::f64());
    filled(it, &shape, dt, n)
}

fn like(it: &mut Interp, a: &mut Args, func: &str) -> Res<(Vec<usize>, DataType)> {
    let v = a.req(0, "a", func)?;
    let arr = array_from(it, &v, None)?;
    let dt = a.take(if func == "full_like" { 2 } else { 1 }, "dtype");
    let dt = opt_dtype(it, dt)?.unwrap_or(arr.dtype());
    Ok((arr.shape().to_vec(), dt))
}

fn np_zeros_like(it: &mut Interp, mut a: Args) -> Res<Value> {
    let (shape, dt) = like(it, &mut a, "zeros_like")?;
    filled(it, &shape, dt, Num::I(0))
}

fn np_ones_like(it: &mut Interp, mut a: Args) -> Res<Value> {
    let (shape, dt) = like(it, &mut a, "ones_like")?;
    filled(it, &shape, dt, Num::I(1))
}

fn np_full_like(it: &mut Interp, mut a: Args) -> Res<Value> {
    let fill = a.req(1, "fill_value", "full_like")?;
    let n = leaf_num(&fill).ok_or_else(|| PyErr::type_error("fill_value must be a number"))?;
    let (shape, dt) = like(it, &mut a, "full_like")?;
    filled(it, &shape, dt, n)
}

fn np_arange(it: &mut Interp, mut a: Args) -> Res<Value> {
    let dt = a.take_kw("dtype");
    let dt = opt_dtype(it, dt)?;
    let nums: Vec<Value> = a.pos.clone();
    let (start, stop, step) = match nums.as_slice() {
        [stop] => (Value::Int(0), stop.clone(), Value::Int(1)),
        [start, stop] => (start.clone(), stop.clone(), Value::Int(1)),
        [start, stop, step] => (start.clone(), stop.clone(), step.clone()),
        _ => return Err(PyErr::type_error("arange() requires stop to be specified.")),
    };
    let all_int = [&start, &stop, &step].iter().all(|v| num_i64(v).is_some());
    let dt = dt.unwrap_or(if all_int {
        DataType::i64()
    } else {
        DataType::f64()
    });
    let (s, e, st) = (
        num_f64(&start).ok_or_else(|| PyErr::type_error("arange: start must be a number"))?,
        num_f64(&stop).ok_or_else(|| PyErr::type_error("arange: stop must be a number"))?,
        num_f64(&step).ok_or_else(|| PyErr::type_error("arange: step must be a number"))?,
    );
    if st == 0.0 {
        return Err(PyErr::new(ExcKind::ZeroDivisionError, "division by zero"));
    }
    let n = ((e - s) / st).ceil().max(0.0);
    if n > 1e12 {
        return Err(PyErr::memory_budget(
            it.limits.memory,
            (n as u64).saturating_mul(8),
        ));
    }
    let n = n as usize;
    alloc_check(it, dt, n)?;
    let arr = if all_int && !is_float(dt) {
        let (s, st) = (num_i64(&start).unwrap_or(0), num_i64(&step).unwrap_or(1));
        let v: Vec<i64> = (0..n as i64)
            .map(|i| s.wrapping_add(i.wrapping_mul(st)))
            .collect();
        from_i(dt, &[n], &v)?
    } else {
        let v: Vec<f64> = (0..n).map(|i| s + i as f64 * st).collect();
        from_f(dt, &[n], &v)?
    };
    it.new_array(arr)
}

fn np_linspace(it: &mut Interp, mut a: Args) -> Res<Value> {
    let start = a.req(0, "start", "linspace")?;
    let stop = a.req(1, "stop", "linspace")?;
    let num = a
        .take(2, "num")
        .and_then(|v| num_i64(&v))
        .unwrap_or(50)
        .max(0) as usize;
    let endpoint = match a.take(3, "endpoint") {
        Some(v) => it.truthy(&v)?,
        None => true,
    };
    let dt = a.take_kw("dtype");
    let dt = opt_dtype(it, dt)?.unwrap_or(DataType::f64());
    let (s, e) = (
        num_f64(&start).unwrap_or(0.0),
        num_f64(&stop).unwrap_or(0.0),
    );
    alloc_check(it, dt, num)?;
    let div = if endpoint { num.saturating_sub(1) } else { num } as f64;
    let step = if div > 0.0 { (e - s) / div } else { 0.0 };
    let mut v: Vec<f64> = (0..num).map(|i| s + i as f64 * step).collect();
    if endpoint && num > 1 {
        v[num - 1] = e;
    }
    let arr = from_f(dt, &[num], &v)?;
    it.new_array(arr)
}

fn np_eye(it: &mut Interp, mut a: Args) -> Res<Value> {
    let n = a.req(0, "N", "eye")?;
    let n = num_i64(&n).unwrap_or(0).max(0) as usize;
    let m = match a.take(1, "M") {
        None | Some(Value::None) => n,
        Some(v) => num_i64(&v).unwrap_or(0).max(0) as usize,
    };
    let dt = a.take_kw("dtype");
    let dt = opt_dtype(it, dt)?.unwrap_or(DataType::f64());
    alloc_check(it, dt, n.saturating_mul(m))?;
    let mut arr = NDArray::zeros(dt, &[n, m]).map_err(PyErr::value_error)?;
    for i in 0..n.min(m) {
        set_elem(&mut arr, i * m + i, Num::I(1))?;
    }
    it.new_array(arr)
}

fn arg_array(it: &mut Interp, v: &Value) -> Res<NDArray> {
    array_from(it, v, None)
}

fn np_reshape(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "a", "reshape")?;
    let s = a.req(1, "newshape", "reshape")?;
    let arr = arg_array(it, &v)?;
    let dims = shape_args(it, std::slice::from_ref(&s))?;
    reshape(it, &arr, &dims)
}

fn np_transpose(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "a", "transpose")?;
    let axes = match a.take(1, "axes") {
        None | Some(Value::None) => None,
        Some(x) => Some(
            shape_args(it, std::slice::from_ref(&x))?
                .into_iter()
                .map(|d| d.max(0) as usize)
                .collect(),
        ),
    };
    if let Value::Array(obj) = &v {
        return transpose_view(it, obj, axes);
    }
    let arr = arg_array(it, &v)?;
    transpose(it, &arr, axes)
}

fn two(a: &Args, f: &str) -> Res<(Value, Value)> {
    match a.pos.as_slice() {
        [x, y, ..] => Ok((x.clone(), y.clone())),
        _ => Err(PyErr::type_error(format!("{f}() takes 2 arguments"))),
    }
}

fn np_matmul(it: &mut Interp, a: Args) -> Res<Value> {
    let (x, y) = two(&a, "matmul")?;
    let scalar = |v: &Value| {
        matches!(
            v,
            Value::Int(_) | Value::Float(_) | Value::NpScalar(_) | Value::Bool(_)
        )
    };
    if scalar(&x) || scalar(&y) {
        return binary(it, BinOp::Mul, &x, &y);
    }
    matmul(it, &x, &y)
}

fn np_einsum(it: &mut Interp, a: Args) -> Res<Value> {
    let Some((spec, operands)) = a.pos.split_first() else {
        return Err(PyErr::type_error("einsum() needs subscripts and operands"));
    };
    let Some(spec) = spec.as_str() else {
        return Err(PyErr::type_error(
            "einsum: the first argument must be the subscripts string",
        ));
    };
    einsum(it, spec, operands)
}

fn np_maximum(it: &mut Interp, a: Args) -> Res<Value> {
    let (x, y) = two(&a, "maximum")?;
    max_min(it, &x, &y, true)
}

fn np_minimum(it: &mut Interp, a: Args) -> Res<Value> {
    let (x, y) = two(&a, "minimum")?;
    max_min(it, &x, &y, false)
}

fn np_ufunc1(it: &mut Interp, a: Args) -> Res<Value> {
    let name = match &a.data {
        Some(Value::Str(s)) => s.to_string(),
        _ => String::new(),
    };
    let v = a
        .pos
        .first()
        .cloned()
        .ok_or_else(|| PyErr::type_error(format!("{name}() takes 1 argument")))?;
    ufunc1(it, &name, &v)
}

fn np_binary(it: &mut Interp, a: Args) -> Res<Value> {
    let op = match a.data.as_ref().and_then(|d| d.as_str()) {
        Some("+") => BinOp::Add,
        Some("-") => BinOp::Sub,
        Some("*") => BinOp::Mul,
        Some("/") => BinOp::Div,
        Some("//") => BinOp::FloorDiv,
        Some("%") => BinOp::Mod,
        _ => BinOp::Pow,
    };
    let (x, y) = two(&a, "ufunc")?;
    let xa = if matches!(x, Value::List(_) | Value::Tuple(_)) {
        let arr = array_from(it, &x, None)?;
        it.new_array(arr)?
    } else {
        x
    };
    binary(it, op, &xa, &y)
}

fn np_reduce(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    let r = match name.as_str() {
        "sum" => Red::Sum,
        "mean" => Red::Mean,
        "max" | "amax" => Red::Max,
        "min" | "amin" => Red::Min,
        "argmax" => Red::ArgMax,
        "argmin" => Red::ArgMin,
        "prod" => Red::Prod,
        "std" => Red::Std,
        "var" => Red::Var,
        "any" => Red::Any,
        _ => Red::All,
    };
    let v = a.req(0, "a", &name)?;
    let axis = a.take(1, "axis");
    let dtype = a.take(2, "dtype");
    let keepdims = matches!(a.take_kw("keepdims"), Some(Value::Bool(true)));
    let v = match v {
        Value::Array(_) | Value::NpScalar(_) => v,
        other => {
            let arr = array_from(it, &other, None)?;
            it.new_array(arr)?
        }
    };
    let v = in_dtype(it, &v, r, dtype)?;
    reduce(it, &v, r, axis.as_ref(), keepdims)
}

fn close_mask(
    it: &mut Interp,
    x: &Value,
    y: &Value,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Res<(Vec<bool>, Vec<usize>)> {
    let a = opnd(it, x)?;
    let b = opnd(it, y)?;
    let shape = broadcast_shapes(&a.shape, &b.shape)?;
    let n = numel(&shape);
    let (ma, mb) = (bmap(&a.shape, &shape), bmap(&b.shape, &shape));
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (p, q) = (a.f(at(&ma, i)), b.f(at(&mb, i)));
        out.push(if p.is_nan() || q.is_nan() {
            equal_nan && p.is_nan() && q.is_nan()
        } else if p.is_infinite() || q.is_infinite() {
            p == q
        } else {
            (p - q).abs() <= atol + rtol * q.abs()
        });
    }
    Ok((out, shape))
}

fn tol_args(
    it: &mut Interp,
    a: &mut Args,
    rtol_default: f64,
    atol_default: f64,
) -> Res<(f64, f64, bool)> {
    let rtol = a
        .take(2, "rtol")
        .and_then(|v| num_f64(&v))
        .unwrap_or(rtol_default);
    let atol = a
        .take(3, "atol")
        .and_then(|v| num_f64(&v))
        .unwrap_or(atol_default);
    let equal_nan = match a.take(4, "equal_nan") {
        Some(v) => it.truthy(&v)?,
        None => false,
    };
    Ok((rtol, atol, equal_nan))
}

fn np_allclose(it: &mut Interp, mut a: Args) -> Res<Value> {
    let (x, y) = two(&a, "allclose")?;
    let (rtol, atol, en) = tol_args(it, &mut a, 1e-5, 1e-8)?;
    let (mask, _) = close_mask(it, &x, &y, rtol, atol, en)?;
    Ok(Value::Bool(mask.iter().all(|&b| b)))
}

fn np_isclose(it: &mut Interp, mut a: Args) -> Res<Value> {
    let (x, y) = two(&a, "isclose")?;
    let (rtol, atol, en) = tol_args(it, &mut a, 1e-5, 1e-8)?;
    let (mask, shape) = close_mask(it, &x, &y, rtol, atol, en)?;
    let v: Vec<i64> = mask.iter().map(|&b| b as i64).collect();
    let arr = from_i(DataType::bool(), &shape, &v)?;
    finish(it, arr)
}

fn np_array_equal(it: &mut Interp, a: Args) -> Res<Value> {
    let (x, y) = two(&a, "array_equal")?;
    let ax = array_from(it, &x, None)?;
    let ay = array_from(it, &y, None)?;
    if ax.shape() != ay.shape() {
        return Ok(Value::Bool(false));
    }
    let eq = (0..ax.len()).all(|i| ax.get_flat_f64(i) == ay.get_flat_f64(i));
    Ok(Value::Bool(eq))
}

fn np_where(it: &mut Interp, a: Args) -> Res<Value> {
    let [c, x, y] = a.pos.as_slice() else {
        return Err(PyErr::type_error(
            "where() with one argument is not supported; pass where(cond, x, y)",
        ));
    };
    let (c, x, y) = (opnd(it, c)?, opnd(it, x)?, opnd(it, y)?);
    let out = promote_opnds(&x, &y);
    let shape = broadcast_shapes(&broadcast_shapes(&c.shape, &x.shape)?, &y.shape)?;
    let n = numel(&shape);
    alloc_check(it, out, n)?;
    let (mc, mx, my) = (
        bmap(&c.shape, &shape),
        bmap(&x.shape, &shape),
        bmap(&y.shape, &shape),
    );
    let arr = if is_float(out) {
        let v: Vec<f64> = (0..n)
            .map(|i| {
                if c.f(at(&mc, i)) != 0.0 {
                    x.f(at(&mx, i))
                } else {
                    y.f(at(&my, i))
                }
            })
            .collect();
        from_f(out, &shape, &v)?
    } else {
        let v: Vec<i64> = (0..n)
            .map(|i| {
                if c.f(at(&mc, i)) != 0.0 {
                    x.i(at(&mx, i))
                } else {
                    y.i(at(&my, i))
                }
            })
            .collect();
        from_i(out, &shape, &v)?
    };
    finish(it, arr)
}

fn concat_arrays(it: &mut Interp, arrays: Vec<NDArray>, axis: usize) -> Res<Value> {
    let first = arrays
        .first()
        .ok_or_else(|| PyErr::value_error("need at least one array to concatenate"))?;
    let nd = first.ndim();
    if axis >= nd {
        return Err(PyErr::value_error(format!(
            "axis {axis} is out of bounds for array of dimension {nd}"
        )));
    }
    let mut dt = first.dtype();
    let mut shape = first.shape().to_vec();
    shape[axis] = 0;
    for a in &arrays {
        if a.ndim() != nd
            || a.shape()
                .iter()
                .enumerate()
                .any(|(i, &d)| i != axis && d != first.shape()[i])
        {
            return Err(PyErr::value_error(
                "all the input array dimensions except for the concatenation axis must match exactly",
            ));
        }
        shape[axis] += a.shape()[axis];
        dt = promote(dt, a.dtype());
    }
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut f = Vec::new();
    let mut iv = Vec::new();
    for o in 0..outer {
        for a in &arrays {
            let block = a.shape()[axis] * inner;
            for j in 0..block {
                let flat = o * block + j;
                if is_float(dt) {
                    f.push(a.get_flat_f64(flat).unwrap_or(0.0));
                } else {
                    iv.push(a.get_flat_i64(flat).unwrap_or(0));
                }
            }
        }
    }
    alloc_check(it, dt, numel(&shape))?;
    let arr = if is_float(dt) {
        from_f(dt, &shape, &f)?
    } else {
        from_i(dt, &shape, &iv)?
    };
    it.new_array(arr)
}

fn np_concatenate(it: &mut Interp, mut a: Args) -> Res<Value> {
    let seq = a.req(0, "arrays", "concatenate")?;
    let axis = a.take(1, "axis").and_then(|v| num_i64(&v)).unwrap_or(0);
    let mut arrays = Vec::new();
    for v in it.items_of(&seq)? {
        arrays.push(array_from(it, &v, None)?);
    }
    let nd = arrays.first().map_or(1, |a| a.ndim()) as i64;
    let axis = if axis < 0 { axis + nd } else { axis };
    concat_arrays(it, arrays, axis.max(0) as usize)
}

fn np_stack(it: &mut Interp, mut a: Args) -> Res<Value> {
    let seq = a.req(0, "arrays", "stack")?;
    let axis = a.take(1, "axis").and_then(|v| num_i64(&v)).unwrap_or(0);
    let mut arrays = Vec::new();
    for v in it.items_of(&seq)? {
        let arr = array_from(it, &v, None)?;
        let nd = arr.ndim() as i64 + 1;
        let ax = if axis < 0 { axis + nd } else { axis };
        if ax < 0 || ax >= nd {
            return Err(PyErr::value_error(format!(
                "axis {axis} is out of bounds for array of dimension {nd}"
            )));
        }
        let mut shape = arr.shape().to_vec();
        shape.insert(ax as usize, 1);
        arrays.push(arr.reshape(&shape).map_err(PyErr::value_error)?);
    }
    let nd = arrays.first().map_or(1, |a| a.ndim()) as i64;
    let ax = if axis < 0 { axis + nd } else { axis };
    concat_arrays(it, arrays, ax.max(0) as usize)
}

pub fn clip(it: &mut Interp, v: &Value, lo: &Value, hi: &Value) -> Res<Value> {
    let mut r = v.clone();
    if !matches!(lo, Value::None) {
        r = max_min(it, &r, lo, true)?;
    }
    if !matches!(hi, Value::None) {
        r = max_min(it, &r, hi, false)?;
    }
    Ok(r)
}

fn np_clip(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "a", "clip")?;
    let lo = a.take(1, "a_min").unwrap_or(Value::None);
    let hi = a.take(2, "a_max").unwrap_or(Value::None);
    clip(it, &v, &lo, &hi)
}

fn np_round(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "a", "round")?;
    let d = a.take(1, "decimals").and_then(|x| num_i64(&x)).unwrap_or(0);
    match &v {
        Value::Float(f) => Ok(Value::Float(crate::python::builtins::round_float(*f, d))),
        _ => round_array(it, &v, d),
    }
}

fn np_shape(it: &mut Interp, a: Args) -> Res<Value> {
    let v = a.pos.first().cloned().unwrap_or(Value::None);
    let arr = array_from(it, &v, None)?;
    Ok(shape_value(arr.shape()))
}

fn np_ndim(it: &mut Interp, a: Args) -> Res<Value> {
    let v = a.pos.first().cloned().unwrap_or(Value::None);
    let arr = array_from(it, &v, None)?;
    Ok(Value::Int(arr.ndim() as i64))
}

fn np_size(it: &mut Interp, a: Args) -> Res<Value> {
    let v = a.pos.first().cloned().unwrap_or(Value::None);
    let arr = array_from(it, &v, None)?;
    Ok(Value::Int(arr.len() as i64))
}

fn np_expand_dims(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "a", "expand_dims")?;
    let axis = a.req(1, "axis", "expand_dims")?;
    let arr = array_from(it, &v, None)?;
    let nd = arr.ndim() as i64 + 1;
    let ax = num_i64(&axis).unwrap_or(0);
    let ax = if ax < 0 { ax + nd } else { ax };
    if ax < 0 || ax >= nd {
        return Err(PyErr::value_error(format!(
            "axis {ax} is out of bounds for array of dimension {nd}"
        )));
    }
    let mut shape = arr.shape().to_vec();
    shape.insert(ax as usize, 1);
    let r = arr.reshape(&shape).map_err(PyErr::value_error)?;
    it.new_array(r)
}

fn np_squeeze(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "a", "squeeze")?;
    let arr = array_from(it, &v, None)?;
    let shape: Vec<usize> = arr.shape().iter().copied().filter(|&d| d != 1).collect();
    let r = arr.reshape(&shape).map_err(PyErr::value_error)?;
    finish(it, r)
}

fn np_result_type(it: &mut Interp, a: Args) -> Res<Value> {
    let mut dt: Option<DataType> = None;
    for v in &a.pos {
        let d = match v {
            Value::Array(x) => x.borrow().dtype(),
            Value::NpScalar(s) => s.dtype,
            other => dtype_arg(it, other)?,
        };
        dt = Some(match dt {
            None => d,
            Some(p) => promote(p, d),
        });
    }
    Ok(Value::NpDType(dt.unwrap_or(DataType::f64())))
}

// ----------------------------------------------------------------------------
// np.random

fn rnd_seed(it: &mut Interp, a: Args) -> Res<Value> {
    let s = match a.pos.first() {
        None | Some(Value::None) => 0x5EED,
        Some(v) => {
            let i =
                num_i64(v).ok_or_else(|| PyErr::type_error("Cannot cast seed to an integer"))?;
            if !(0..=u32::MAX as i64).contains(&i) {
                return Err(PyErr::value_error("Seed must be between 0 and 2**32 - 1"));
            }
            i as u32
        }
    };
    it.np_rng = super::random::Mt19937::new(s);
    Ok(Value::None)
}

fn size_shape(it: &mut Interp, v: Option<Value>) -> Res<Option<Vec<usize>>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(s) => Ok(Some(shape_of(it, &s)?)),
    }
}

fn random_array(
    it: &mut Interp,
    shape: Option<Vec<usize>>,
    mut draw: impl FnMut(&mut Interp) -> f64,
) -> Res<Value> {
    match shape {
        None => Ok(Value::Float(draw(it))),
        Some(shape) => {
            let n = numel(&shape);
            alloc_check(it, DataType::f64(), n)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(draw(it));
            }
            let arr = from_f(DataType::f64(), &shape, &v)?;
            it.new_array(arr)
        }
    }
}

fn dims_shape(it: &mut Interp, a: &Args) -> Res<Option<Vec<usize>>> {
    if a.pos.is_empty() {
        return Ok(None);
    }
    let dims = shape_args(it, &a.pos)?;
    Ok(Some(dims.into_iter().map(|d| d.max(0) as usize).collect()))
}

fn rnd_rand(it: &mut Interp, a: Args) -> Res<Value> {
    let shape = dims_shape(it, &a)?;
    random_array(it, shape, |it| it.np_rng.next_double())
}

fn rnd_randn(it: &mut Interp, a: Args) -> Res<Value> {
    let shape = dims_shape(it, &a)?;
    random_array(it, shape, |it| it.np_rng.next_gauss())
}

fn rnd_random(it: &mut Interp, mut a: Args) -> Res<Value> {
    let s = a.take(0, "size");
    let shape = size_shape(it, s)?;
    random_array(it, shape, |it| it.np_rng.next_double())
}

fn rnd_standard_normal(it: &mut Interp, mut a: Args) -> Res<Value> {
    let s = a.take(0, "size");
    let shape = size_shape(it, s)?;
    random_array(it, shape, |it| it.np_rng.next_gauss())
}

fn rnd_uniform(it: &mut Interp, mut a: Args) -> Res<Value> {
    let lo = a.take(0, "low").and_then(|v| num_f64(&v)).unwrap_or(0.0);
    let hi = a.take(1, "high").and_then(|v| num_f64(&v)).unwrap_or(1.0);
    let s = a.take(2, "size");
    let shape = size_shape(it, s)?;
    random_array(it, shape, |it| lo + (hi - lo) * it.np_rng.next_double())
}

fn rnd_normal(it: &mut Interp, mut a: Args) -> Res<Value> {
    let loc = a.take(0, "loc").and_then(|v| num_f64(&v)).unwrap_or(0.0);
    let scale = a.take(1, "scale").and_then(|v| num_f64(&v)).unwrap_or(1.0);
    let s = a.take(2, "size");
    let shape = size_shape(it, s)?;
    random_array(it, shape, |it| loc + scale * it.np_rng.next_gauss())
}

fn rnd_randint(it: &mut Interp, mut a: Args) -> Res<Value> {
    let low = a.req(0, "low", "randint")?;
    let high = a.take(1, "high");
    let (lo, hi) = match high {
        None | Some(Value::None) => (0, num_i64(&low).unwrap_or(0)),
        Some(h) => (num_i64(&low).unwrap_or(0), num_i64(&h).unwrap_or(0)),
    };
    if hi <= lo {
        return Err(PyErr::value_error("high <= low"));
    }
    let s = a.take(2, "size");
    let dt = a.take(3, "dtype");
    let dt = opt_dtype(it, dt)?.unwrap_or(DataType::i64());
    let shape = size_shape(it, s)?;
    let rng = (hi - lo - 1) as u64;
    match shape {
        None => Ok(Value::Int(lo + it.np_rng.bounded(rng) as i64)),
        Some(shape) => {
            let n = numel(&shape);
            alloc_check(it, dt, n)?;
            let v: Vec<i64> = (0..n).map(|_| lo + it.np_rng.bounded(rng) as i64).collect();
            let arr = from_i(dt, &shape, &v)?;
            it.new_array(arr)
        }
    }
}
