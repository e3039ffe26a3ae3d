//! Shape manipulation: `reshape`, `transpose` (as a copy or a view),
//! `astype`, `tolist`, and the Python scalar of a dtype.

use super::*;

fn reshape_target(total: usize, dims: &[i64]) -> Res<Vec<usize>> {
    let neg = dims.iter().filter(|&&d| d == -1).count();
    if neg > 1 {
        return Err(PyErr::value_error("can only specify one unknown dimension"));
    }
    let known: i64 = dims
        .iter()
        .filter(|&&d| d != -1)
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| {
            PyErr::value_error("maximum supported dimension for an ndarray is exceeded")
        })?;
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        if d == -1 {
            if known == 0 || total as i64 % known != 0 {
                return Err(PyErr::value_error(format!(
                    "cannot reshape array of size {total} into shape {}",
                    shape_tuple_str(dims)
                )));
            }
            out.push((total as i64 / known) as usize);
        } else if d < 0 {
            return Err(PyErr::value_error("negative dimensions not allowed"));
        } else {
            out.push(d as usize);
        }
    }
    if numel(&out) != total {
        return Err(PyErr::value_error(format!(
            "cannot reshape array of size {total} into shape {}",
            shape_tuple_str(dims)
        )));
    }
    Ok(out)
}

fn shape_tuple_str(dims: &[i64]) -> String {
    match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!(
            "({})",
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Shape arguments: `reshape(2, 3)`, `reshape((2, 3))`, `zeros(5)`.
pub fn shape_args(it: &mut Interp, args: &[Value]) -> Res<Vec<i64>> {
    let items: Vec<Value> = match args {
        [v @ (Value::Tuple(_) | Value::List(_))] => it.items_of(v)?,
        other => other.to_vec(),
    };
    items
        .iter()
        .map(|x| {
            num_i64(x).ok_or_else(|| {
                PyErr::type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    x.type_name()
                ))
            })
        })
        .collect()
}

pub fn reshape(it: &mut Interp, a: &NDArray, dims: &[i64]) -> Res<Value> {
    let shape = reshape_target(a.len(), dims)?;
    let r = a.reshape(&shape).map_err(PyErr::value_error)?;
    it.new_array(r)
}

/// Where the elements of a transposed array come from, and its shape.
fn transpose_offsets(shape: &[usize], axes: Option<Vec<usize>>) -> Res<(Vec<usize>, Vec<usize>)> {
    let nd = shape.len();
    let axes = axes.unwrap_or_else(|| (0..nd).rev().collect());
    let mut seen = vec![false; nd];
    if axes.len() != nd
        || axes
            .iter()
            .any(|&x| x >= nd || std::mem::replace(&mut seen[x], true))
    {
        return Err(PyErr::value_error("axes don't match array"));
    }
    let out_shape: Vec<usize> = axes.iter().map(|&x| shape[x]).collect();
    let mut strides = vec![1usize; nd];
    for i in (0..nd.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    let perm_strides: Vec<usize> = axes.iter().map(|&x| strides[x]).collect();
    let mut offs = vec![0usize];
    for (d, &n) in out_shape.iter().enumerate() {
        let mut next = Vec::with_capacity(offs.len() * n);
        for &b in &offs {
            for p in 0..n {
                next.push(b + p * perm_strides[d]);
            }
        }
        offs = next;
    }
    Ok((offs, out_shape))
}

pub fn transpose(it: &mut Interp, a: &NDArray, axes: Option<Vec<usize>>) -> Res<Value> {
    let (offs, out_shape) = transpose_offsets(a.shape(), axes)?;
    alloc_check(it, a.dtype(), offs.len())?;
    let out = gather(a, &offs, &out_shape)?;
    finish(it, out)
}

/// `a.T` / `a.transpose()`: a view, as in NumPy.
pub fn transpose_view(it: &mut Interp, a: &Rc<ArrayObj>, axes: Option<Vec<usize>>) -> Res<Value> {
    let arr = a.borrow().clone();
    if arr.ndim() == 0 {
        return finish(it, arr);
    }
    let (offs, out_shape) = transpose_offsets(arr.shape(), axes)?;
    alloc_check(it, arr.dtype(), offs.len())?;
    let out = gather(&arr, &offs, &out_shape)?;
    it.new_view(a, offs, out)
}

pub fn astype(it: &mut Interp, a: &NDArray, dt: DataType) -> Res<Value> {
    alloc_check(it, dt, a.len())?;
    let out = if is_float(a.dtype()) {
        let v = a.to_f64_vec();
        if dt.is_bool() {
            from_i(
                dt,
                a.shape(),
                &v.iter().map(|&x| (x != 0.0) as i64).collect::<Vec<_>>(),
            )?
        } else {
            from_f(dt, a.shape(), &v)?
        }
    } else {
        from_i(dt, a.shape(), &a.to_i64_vec())?
    };
    it.new_array(out)
}

/// `a.tolist()`.
pub fn tolist(it: &mut Interp, a: &NDArray) -> Res<Value> {
    fn rec(it: &mut Interp, a: &NDArray, dim: usize, base: usize) -> Res<Value> {
        if dim == a.ndim() {
            return Ok(py_scalar(a.dtype(), elem(a, base)));
        }
        let n = a.shape()[dim];
        let inner: usize = a.shape()[dim + 1..].iter().product();
        let mut items = Vec::with_capacity(n);
        for i in 0..n {
            items.push(rec(it, a, dim + 1, base + i * inner)?);
        }
        it.new_list(items)
    }
    it.check_alloc(a.len() as u64 * SLOT_BYTES)?;
    rec(it, a, 0, 0)
}

/// A NumPy value as the Python scalar `item()` returns.
pub fn py_scalar(dt: DataType, n: Num) -> Value {
    if dt.is_bool() {
        Value::Bool(n.as_i64() != 0)
    } else if is_float(dt) {
        Value::Float(n.as_f64())
    } else {
        Value::Int(n.as_i64())
    }
}
