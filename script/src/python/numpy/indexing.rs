//! Indexing: reading (basic indexing returns views), assignment through an
//! index, the fast paths for scalar elements, and truth values of arrays.

use super::*;

enum Ix {
    Int(i64),
    Slice(Rc<SliceObj>),
    NewAxis,
    Ellipsis,
    Fancy(Vec<i64>),
}

fn parse_ix(it: &mut Interp, v: &Value) -> Res<Ix> {
    Ok(match v {
        Value::Slice(s) => Ix::Slice(s.clone()),
        Value::None => Ix::NewAxis,
        v if matches!(core_obj(v), Some(CoreObj::Ellipsis)) => Ix::Ellipsis,
        Value::List(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(num_i64(x).ok_or_else(|| PyErr::index_error("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices"))?);
            }
            Ix::Fancy(out)
        }
        Value::Array(a) => {
            let a = a.borrow();
            if a.ndim() == 1 && !is_float(a.dtype()) && !a.dtype().is_bool() {
                Ix::Fancy(a.to_i64_vec())
            } else if a.ndim() == 0 && !is_float(a.dtype()) {
                Ix::Int(a.get_flat_i64(0).unwrap_or(0))
            } else {
                return Err(PyErr::index_error(
                    "only 1-D integer arrays are supported as array indices",
                ));
            }
        }
        other => match num_i64(other) {
            Some(i) if !matches!(other, Value::Bool(_)) => Ix::Int(i),
            _ => {
                return Err(PyErr::index_error(
                    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices",
                ))
            }
        },
    })
}

/// A basic-indexing selection: per input dimension the positions taken, and
/// the output shape.
struct Selection {
    positions: Vec<Vec<usize>>,
    out_shape: Vec<usize>,
}

/// The selection, and whether it is basic indexing (no integer lists),
/// which makes a view.
fn select(it: &mut Interp, shape: &[usize], idx: &Value) -> Res<(Selection, bool)> {
    let items: Vec<Ix> = match idx {
        Value::Tuple(t) => t.iter().map(|x| parse_ix(it, x)).collect::<Res<_>>()?,
        other => vec![parse_ix(it, other)?],
    };
    let consuming = items
        .iter()
        .filter(|i| !matches!(i, Ix::NewAxis | Ix::Ellipsis))
        .count();
    if consuming > shape.len() {
        return Err(PyErr::index_error(format!(
            "too many indices for array: array is {}-dimensional, but {} were indexed",
            shape.len(),
            consuming
        )));
    }
    let mut positions = Vec::with_capacity(shape.len());
    let mut out_shape = Vec::new();
    let mut dim = 0usize;
    let mut seen_ellipsis = false;
    for ix in &items {
        match ix {
            Ix::NewAxis => out_shape.push(1),
            Ix::Ellipsis => {
                if seen_ellipsis {
                    return Err(PyErr::index_error(
                        "an index can only have a single ellipsis ('...')",
                    ));
                }
                seen_ellipsis = true;
                let skip = shape.len() - consuming;
                for _ in 0..skip {
                    positions.push((0..shape[dim]).collect());
                    out_shape.push(shape[dim]);
                    dim += 1;
                }
            }
            Ix::Int(i) => {
                let n = shape[dim] as i64;
                let j = if *i < 0 { i + n } else { *i };
                if j < 0 || j >= n {
                    return Err(PyErr::index_error(format!(
                        "index {i} is out of bounds for axis {dim} with size {n}"
                    )));
                }
                positions.push(vec![j as usize]);
                dim += 1;
            }
            Ix::Slice(s) => {
                let p = super::super::methods::slice_positions(shape[dim], s)?;
                out_shape.push(p.len());
                positions.push(p);
                dim += 1;
            }
            Ix::Fancy(list) => {
                let n = shape[dim] as i64;
                let mut p = Vec::with_capacity(list.len());
                for &i in list {
                    let j = if i < 0 { i + n } else { i };
                    if j < 0 || j >= n {
                        return Err(PyErr::index_error(format!(
                            "index {i} is out of bounds for axis {dim} with size {n}"
                        )));
                    }
                    p.push(j as usize);
                }
                out_shape.push(p.len());
                positions.push(p);
                dim += 1;
            }
        }
    }
    while dim < shape.len() {
        positions.push((0..shape[dim]).collect());
        out_shape.push(shape[dim]);
        dim += 1;
    }
    let basic = !items.iter().any(|i| matches!(i, Ix::Fancy(_)));
    Ok((
        Selection {
            positions,
            out_shape,
        },
        basic,
    ))
}

/// Flat input offsets of a selection, in output order.
fn selection_offsets(shape: &[usize], sel: &Selection) -> Vec<usize> {
    let mut strides = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    let mut out = vec![0usize];
    for (d, pos) in sel.positions.iter().enumerate() {
        let mut next = Vec::with_capacity(out.len() * pos.len());
        for &base in &out {
            for &p in pos {
                next.push(base + p * strides[d]);
            }
        }
        out = next;
    }
    out
}

/// `a[i, j]` with one integer per dimension: the element, or `None` to take
/// the general path.
pub fn get_scalar_fast(a: &ArrayObj, idx: &[i64]) -> Option<Res<Value>> {
    // The shape of a view never changes: no need to refresh it.
    let arr = a.data.borrow();
    let shape = arr.shape();
    if idx.len() != shape.len() {
        return None;
    }
    let mut flat = 0usize;
    for (d, (&i, &n)) in idx.iter().zip(shape).enumerate() {
        let j = if i < 0 { i + n as i64 } else { i };
        if j < 0 || j >= n as i64 {
            return Some(Err(PyErr::index_error(format!(
                "index {i} is out of bounds for axis {d} with size {n}"
            ))));
        }
        flat = flat * n + j as usize;
    }
    if let Some((base, offs)) = a.view_of() {
        let o = offs.get(flat).copied()?;
        let b = base.data.try_borrow().ok()?;
        return Some(Ok(make_scalar(b.dtype(), elem(&b, o))));
    }
    Some(Ok(make_scalar(arr.dtype(), elem(&arr, flat))))
}

pub fn get_item(it: &mut Interp, a: &Rc<ArrayObj>, idx: &Value) -> Res<Value> {
    // Boolean mask.
    if let Value::Array(m) = idx {
        let is_mask = m.borrow().dtype().is_bool();
        if is_mask {
            let arr = a.borrow();
            let mask = m.borrow();
            if mask.shape() != arr.shape() {
                return Err(PyErr::index_error(format!(
                    "boolean index did not match indexed array; shape {} vs {}",
                    shape_str(mask.shape()),
                    shape_str(arr.shape())
                )));
            }
            let offs: Vec<usize> = (0..arr.len())
                .filter(|&i| mask.get_flat_i64(i).unwrap_or(0) != 0)
                .collect();
            let out = gather(&arr, &offs, &[offs.len()])?;
            drop(arr);
            drop(mask);
            return it.new_array(out);
        }
    }
    let shape = a.borrow().shape().to_vec();
    let (sel, basic) = select(it, &shape, idx)?;
    let offs = selection_offsets(&shape, &sel);
    let arr = a.borrow();
    if sel.out_shape.is_empty() {
        let flat = offs.first().copied().unwrap_or(0);
        return Ok(make_scalar(arr.dtype(), elem(&arr, flat)));
    }
    alloc_check(it, arr.dtype(), offs.len())?;
    let out = gather(&arr, &offs, &sel.out_shape)?;
    drop(arr);
    if basic {
        // Basic indexing gives a view, as in NumPy.
        return it.new_view(a, offs, out);
    }
    it.new_array(out)
}

pub(super) fn gather(arr: &NDArray, offs: &[usize], shape: &[usize]) -> Res<NDArray> {
    let dt = arr.dtype();
    if is_float(dt) {
        let v: Vec<f64> = offs
            .iter()
            .map(|&o| arr.get_flat_f64(o).unwrap_or(0.0))
            .collect();
        from_f(dt, shape, &v)
    } else {
        let v: Vec<i64> = offs
            .iter()
            .map(|&o| arr.get_flat_i64(o).unwrap_or(0))
            .collect();
        from_i(dt, shape, &v)
    }
}

/// Row `i` of an array (iteration).
pub fn index_row(it: &mut Interp, a: &Rc<ArrayObj>, i: usize) -> Res<Value> {
    get_item(it, a, &Value::Int(i as i64))
}

/// `a[i, j] = v` with one integer per dimension; other cases take the
/// general path.
pub fn set_scalar_fast(it: &mut Interp, a: &Rc<ArrayObj>, idx: &[i64], v: Value) -> Res<()> {
    if let Some(n) = scalar_num(&v) {
        let shape = a.data.borrow().shape().to_vec();
        if idx.len() == shape.len() {
            let mut flat = 0usize;
            for (d, (&i, &n)) in idx.iter().zip(&shape).enumerate() {
                let j = if i < 0 { i + n as i64 } else { i };
                if j < 0 || j >= n as i64 {
                    return Err(PyErr::index_error(format!(
                        "index {i} is out of bounds for axis {d} with size {n}"
                    )));
                }
                flat = flat * n + j as usize;
            }
            return write_elem(a, flat, n);
        }
    }
    let t = Value::tuple(idx.iter().map(|&i| Value::Int(i)).collect());
    set_item(it, a, &t, &v)
}

pub fn set_item(it: &mut Interp, a: &Rc<ArrayObj>, idx: &Value, v: &Value) -> Res<()> {
    // Fast path: one integer per dimension and a scalar value.
    if let (Value::Tuple(t), Some(n)) = (idx, scalar_num(v)) {
        if t.iter().all(|x| matches!(x, Value::Int(_))) {
            let shape = a.data.borrow().shape().to_vec();
            if t.len() == shape.len() {
                let mut flat = 0usize;
                for (d, (x, &n)) in t.iter().zip(&shape).enumerate() {
                    let i = num_i64(x).unwrap_or(0);
                    let j = if i < 0 { i + n as i64 } else { i };
                    if j < 0 || j >= n as i64 {
                        return Err(PyErr::index_error(format!(
                            "index {i} is out of bounds for axis {d} with size {n}"
                        )));
                    }
                    flat = flat * n + j as usize;
                }
                return write_elem(a, flat, n);
            }
        }
    }
    let shape = a.borrow().shape().to_vec();
    let (offs, out_shape) = match idx {
        Value::Array(m) if m.borrow().dtype().is_bool() => {
            let mask = m.borrow();
            let offs: Vec<usize> = (0..mask.len())
                .filter(|&i| mask.get_flat_i64(i).unwrap_or(0) != 0)
                .collect();
            let n = offs.len();
            (offs, vec![n])
        }
        _ => {
            let (sel, _) = select(it, &shape, idx)?;
            (selection_offsets(&shape, &sel), sel.out_shape)
        }
    };
    let src = opnd(it, v)?;
    let full = broadcast_shapes(&src.shape, &out_shape)?;
    if full != out_shape {
        return Err(PyErr::value_error(format!(
            "could not broadcast input array from shape {} into shape {}",
            shape_str(&src.shape),
            shape_str(&out_shape)
        )));
    }
    let map = bmap(&src.shape, &out_shape);
    let float_src = matches!(src.vals, Vals::F(_));
    for (i, &o) in offs.iter().enumerate() {
        let j = at(&map, i);
        let n = if float_src {
            Num::F(src.f(j))
        } else {
            Num::I(src.i(j))
        };
        write_elem(a, o, n)?;
    }
    Ok(())
}

pub(super) fn scalar_num(v: &Value) -> Option<Num> {
    match v {
        Value::Int(i) => Some(Num::I(*i)),
        Value::Bool(b) => Some(Num::I(*b as i64)),
        Value::Float(f) => Some(Num::F(*f)),
        Value::NpScalar(s) => Some(s.num),
        _ => None,
    }
}

/// `a op= b` for arrays: writes the result into `a` (NumPy's same-kind casting).
pub fn assign_all(it: &mut Interp, a: &Rc<ArrayObj>, result: &Value) -> Res<()> {
    let dt = a.borrow().dtype();
    let rdt = match result {
        Value::Array(r) => r.borrow().dtype(),
        Value::NpScalar(s) => s.dtype,
        _ => dt,
    };
    if is_float(rdt) && !is_float(dt) {
        return Err(PyErr::type_error(format!(
            "Cannot cast ufunc output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
            dtype_name(rdt),
            dtype_name(dt)
        )));
    }
    let n = a.borrow().ndim();
    let all = Value::tuple(
        (0..n)
            .map(|_| {
                Value::Slice(Rc::new(SliceObj {
                    start: Value::None,
                    stop: Value::None,
                    step: Value::None,
                }))
            })
            .collect(),
    );
    if n == 0 {
        let num = scalar_num(result).unwrap_or(Num::I(0));
        return write_elem(a, 0, num);
    }
    set_item(it, a, &all, result)
}

pub fn array_truthy(a: &ArrayObj) -> Res<bool> {
    let arr = a.borrow();
    match arr.len() {
        1 => Ok(arr.get_flat_f64(0).unwrap_or(0.0) != 0.0),
        0 => Ok(false),
        _ => Err(PyErr::value_error(
            "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
        )),
    }
}

pub fn array_item_f64(a: &ArrayObj) -> Res<f64> {
    let arr = a.borrow();
    if arr.len() != 1 {
        return Err(PyErr::type_error(
            "only length-1 arrays can be converted to Python scalars",
        ));
    }
    Ok(arr.get_flat_f64(0).unwrap_or(0.0))
}
