//! Operands and promotion: how arrays, NumPy scalars and weak Python scalars
//! combine (NEP 50), and building results of the promoted dtype.

use super::*;

/// How a Python scalar takes part in promotion (NEP 50).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Weak {
    No,
    Bool,
    Int,
    Float,
}

/// An operand of an array operation, flattened.
pub(super) struct Opnd {
    pub(super) shape: Vec<usize>,
    pub(super) dtype: DataType,
    pub(super) weak: Weak,
    pub(super) vals: Vals,
}

pub(super) enum Vals {
    F(Vec<f64>),
    I(Vec<i64>),
}

impl Opnd {
    #[inline]
    pub(super) fn f(&self, i: usize) -> f64 {
        match &self.vals {
            Vals::F(v) => v.get(i).copied().unwrap_or(0.0),
            Vals::I(v) => v.get(i).copied().unwrap_or(0) as f64,
        }
    }
    #[inline]
    pub(super) fn i(&self, i: usize) -> i64 {
        match &self.vals {
            Vals::F(v) => v.get(i).copied().unwrap_or(0.0) as i64,
            Vals::I(v) => v.get(i).copied().unwrap_or(0),
        }
    }
}

fn vals_of(a: &NDArray) -> Vals {
    if is_float(a.dtype()) {
        Vals::F(a.to_f64_vec())
    } else {
        Vals::I(a.to_i64_vec())
    }
}

pub(super) fn opnd(it: &mut Interp, v: &Value) -> Res<Opnd> {
    Ok(match v {
        Value::Array(a) => {
            let a = a.borrow();
            Opnd {
                shape: a.shape().to_vec(),
                dtype: a.dtype(),
                weak: Weak::No,
                vals: vals_of(&a),
            }
        }
        Value::NpScalar(s) => Opnd {
            shape: vec![],
            dtype: s.dtype,
            weak: Weak::No,
            vals: match s.num {
                Num::F(f) => Vals::F(vec![f]),
                Num::I(i) => Vals::I(vec![i]),
            },
        },
        Value::Bool(b) => Opnd {
            shape: vec![],
            dtype: DataType::bool(),
            weak: Weak::Bool,
            vals: Vals::I(vec![*b as i64]),
        },
        Value::Int(i) => Opnd {
            shape: vec![],
            dtype: DataType::i64(),
            weak: Weak::Int,
            vals: Vals::I(vec![*i]),
        },
        Value::Float(f) => Opnd {
            shape: vec![],
            dtype: DataType::f64(),
            weak: Weak::Float,
            vals: Vals::F(vec![*f]),
        },
        Value::List(_) | Value::Tuple(_) => {
            let a = module::array_from(it, v, None)?;
            Opnd {
                shape: a.shape().to_vec(),
                dtype: a.dtype(),
                weak: Weak::No,
                vals: vals_of(&a),
            }
        }
        Value::Host(o) => match o.to_array() {
            Some(a) => Opnd {
                shape: a.shape().to_vec(),
                dtype: a.dtype(),
                weak: Weak::No,
                vals: vals_of(&a),
            },
            None => {
                return Err(PyErr::type_error(format!(
                    "unsupported operand type: '{}'",
                    v.type_name()
                )))
            }
        },
        other => {
            return Err(PyErr::type_error(format!(
                "unsupported operand type for NumPy: '{}'",
                other.type_name()
            )))
        }
    })
}

fn rank(dt: DataType) -> u8 {
    match dt.kind {
        ScalarKind::Bool => 0,
        ScalarKind::UInt | ScalarKind::Int => 1,
        _ => 2,
    }
}

/// NumPy's type promotion of two concrete dtypes.
pub fn promote(a: DataType, b: DataType) -> DataType {
    if a == b {
        return a;
    }
    if a.is_bool() {
        return b;
    }
    if b.is_bool() {
        return a;
    }
    let (ra, rb) = (rank(a), rank(b));
    if ra == 2 && rb == 2 {
        return DataType::float(a.bits.max(b.bits));
    }
    if ra == 2 || rb == 2 {
        let (f, i) = if ra == 2 { (a, b) } else { (b, a) };
        let need = match i.bits {
            8 => 16,
            16 => 32,
            _ => 64,
        };
        return DataType::float(f.bits.max(need));
    }
    // Two integers.
    match (a.kind, b.kind) {
        (ScalarKind::Int, ScalarKind::Int) | (ScalarKind::UInt, ScalarKind::UInt) => {
            DataType::new(a.kind, a.bits.max(b.bits))
        }
        _ => {
            let (s, u) = if a.kind == ScalarKind::Int {
                (a, b)
            } else {
                (b, a)
            };
            if s.bits > u.bits {
                s
            } else if u.bits < 64 {
                DataType::int(u.bits * 2)
            } else {
                DataType::f64()
            }
        }
    }
}

pub(super) fn weak_with(dt: DataType, w: Weak) -> DataType {
    match w {
        Weak::No | Weak::Bool => dt,
        Weak::Int => {
            if dt.is_bool() {
                DataType::i64()
            } else {
                dt
            }
        }
        Weak::Float => {
            if is_float(dt) {
                dt
            } else {
                DataType::f64()
            }
        }
    }
}

pub(super) fn promote_opnds(a: &Opnd, b: &Opnd) -> DataType {
    match (a.weak, b.weak) {
        (Weak::No, Weak::No) => promote(a.dtype, b.dtype),
        (Weak::No, w) => weak_with(a.dtype, w),
        (w, Weak::No) => weak_with(b.dtype, w),
        _ => promote(a.dtype, b.dtype),
    }
}

/// The broadcast shape of two shapes.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Res<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i < n - a.len() {
            1
        } else {
            a[i - (n - a.len())]
        };
        let db = if i < n - b.len() {
            1
        } else {
            b[i - (n - b.len())]
        };
        out[i] = if da == db {
            da
        } else if da == 1 {
            db
        } else if db == 1 {
            da
        } else {
            return Err(PyErr::value_error(format!(
                "operands could not be broadcast together with shapes {} {} ",
                shape_str(a),
                shape_str(b)
            )));
        };
    }
    Ok(out)
}

/// For each element of `out` (row-major), the flat index into an array of
/// shape `inp` broadcast to it. `None` means identity.
pub(super) fn bmap(inp: &[usize], out: &[usize]) -> Option<Vec<usize>> {
    if inp == out {
        return None;
    }
    let n = numel(out);
    if numel(inp) == 1 {
        return Some(vec![0; n]);
    }
    let off = out.len() - inp.len();
    // Strides of the input, 0 on broadcast dimensions.
    let mut strides = vec![0usize; out.len()];
    let mut s = 1;
    for i in (0..inp.len()).rev() {
        strides[i + off] = if inp[i] == 1 { 0 } else { s };
        s *= inp[i];
    }
    let mut map = Vec::with_capacity(n);
    let mut idx = vec![0usize; out.len()];
    let mut flat = 0usize;
    for _ in 0..n {
        map.push(flat);
        // Increment the multi-index.
        for d in (0..out.len()).rev() {
            idx[d] += 1;
            flat += strides[d];
            if idx[d] < out[d] {
                break;
            }
            flat -= strides[d] * idx[d];
            idx[d] = 0;
        }
    }
    Some(map)
}

#[inline]
pub(super) fn at(map: &Option<Vec<usize>>, i: usize) -> usize {
    match map {
        None => i,
        Some(m) => m.get(i).copied().unwrap_or(0),
    }
}

/// Wraps a result: 0-d becomes a NumPy scalar, like NumPy's ufuncs.
pub(super) fn finish(it: &mut Interp, a: NDArray) -> Res<Value> {
    if a.ndim() == 0 {
        let n = elem(&a, 0);
        return Ok(make_scalar(a.dtype(), n));
    }
    it.new_array(a)
}

pub(super) fn alloc_check(it: &mut Interp, dt: DataType, n: usize) -> Res<()> {
    it.check_alloc((n as u64).saturating_mul(dt.bytes().max(1) as u64))?;
    it.charge_steps(n as u64 / 16)
}

pub(super) fn from_f(dt: DataType, shape: &[usize], v: &[f64]) -> Res<NDArray> {
    NDArray::from_f64_as(dt, shape, v).map_err(PyErr::value_error)
}

pub(super) fn from_i(dt: DataType, shape: &[usize], v: &[i64]) -> Res<NDArray> {
    NDArray::from_i64(dt, shape, v).map_err(PyErr::value_error)
}
