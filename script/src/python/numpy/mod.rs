//! A NumPy subset: `ndarray` (stored as [`compiler_core::eval::NDArray`], the
//! reference interpreter's array), NumPy scalars, dtype promotion (NEP 50:
//! Python scalars are "weak"), broadcasting, indexing, reductions, `matmul`,
//! printing exactly like NumPy 2, `np.random` (MT19937, bit-exact with
//! NumPy's legacy `RandomState`) and `np.testing`.
//!
//! Arithmetic on `float32` is computed in `f64` and rounded to `f32`, which
//! is exact for `+ - * /` and `sqrt`; reductions accumulate in `f64` (NumPy
//! uses pairwise `float32` sums, so sums of many `float32` values can differ
//! in the last bit). Basic indexing and transposes return views (see
//! [`ArrayObj`]); reshapes return copies.

pub mod module;
pub mod random;
pub mod testing;

use std::rc::Rc;

use super::error::{ExcKind, PyErr, Res};
use super::host_object::{core_obj, CoreObj};
use super::interp::Interp;
use super::ops::{num_f64, num_i64};
use super::value::*;
use compiler_core::eval::NDArray;
use tessel_ir::{DataType, ScalarKind};
use tessel_syntax::ast::{BinOp, CmpOp, UnaryOp};

// ----------------------------------------------------------------------------
// dtypes

pub fn dtype_name(dt: DataType) -> &'static str {
    match (dt.kind, dt.bits) {
        (ScalarKind::Bool, _) => "bool",
        (ScalarKind::Int, 8) => "int8",
        (ScalarKind::Int, 16) => "int16",
        (ScalarKind::Int, 32) => "int32",
        (ScalarKind::Int, 64) => "int64",
        (ScalarKind::UInt, 8) => "uint8",
        (ScalarKind::UInt, 16) => "uint16",
        (ScalarKind::UInt, 32) => "uint32",
        (ScalarKind::UInt, 64) => "uint64",
        (ScalarKind::Float, 16) => "float16",
        (ScalarKind::Float, 32) => "float32",
        (ScalarKind::Float, 64) => "float64",
        _ => "object",
    }
}

pub fn parse_dtype_str(s: &str) -> Option<DataType> {
    Some(match s {
        "float32" | "f4" | "single" | "float32_" => DataType::f32(),
        "float64" | "f8" | "float" | "double" | "d" | "float_" => DataType::f64(),
        "float16" | "f2" | "half" => DataType::float(16),
        "int32" | "i4" | "intc" => DataType::i32(),
        "int64" | "i8" | "int" | "int_" | "long" | "intp" => DataType::i64(),
        "int8" | "i1" | "byte" => DataType::int(8),
        "int16" | "i2" | "short" => DataType::int(16),
        "uint8" | "u1" | "ubyte" => DataType::uint(8),
        "uint16" | "u2" => DataType::uint(16),
        "uint32" | "u4" => DataType::uint(32),
        "uint64" | "u8" => DataType::uint(64),
        "bool" | "bool_" | "?" | "b1" => DataType::bool(),
        _ => return None,
    })
}

/// A dtype argument: a string, a dtype, a NumPy scalar class or a Python type.
pub fn dtype_arg(it: &mut Interp, v: &Value) -> Res<DataType> {
    match v {
        Value::Str(s) => parse_dtype_str(s)
            .ok_or_else(|| PyErr::type_error(format!("data type '{s}' not understood"))),
        Value::NpDType(d) => Ok(*d),
        Value::Class(c) => {
            if let Some(d) = c.dtype {
                return Ok(d);
            }
            if Rc::ptr_eq(c, &it.types.float) {
                Ok(DataType::f64())
            } else if Rc::ptr_eq(c, &it.types.int) {
                Ok(DataType::i64())
            } else if Rc::ptr_eq(c, &it.types.bool_) {
                Ok(DataType::bool())
            } else {
                Err(PyErr::type_error(format!(
                    "Cannot interpret '{}' as a data type",
                    c.repr()
                )))
            }
        }
        other => Err(PyErr::type_error(format!(
            "Cannot interpret '{}' as a data type",
            it.repr(other)?
        ))),
    }
}

fn is_float(dt: DataType) -> bool {
    dt.kind == ScalarKind::Float
}

/// A value of `dtype` (rounded to float precision, integers wrapped).
pub fn normalize(dt: DataType, n: Num) -> Num {
    match (dt.kind, dt.bits) {
        (ScalarKind::Float, 32) => Num::F(n.as_f64() as f32 as f64),
        (ScalarKind::Float, 16) => Num::F(compiler_core::eval::round_to_f16(n.as_f64())),
        (ScalarKind::Float, _) => Num::F(n.as_f64()),
        (ScalarKind::Bool, _) => Num::I((n.as_f64() != 0.0) as i64),
        (ScalarKind::Int, bits) | (ScalarKind::UInt, bits) => {
            let i = match n {
                Num::I(i) => i,
                Num::F(f) => f as i64,
            };
            Num::I(match (dt.kind, bits) {
                (ScalarKind::Int, 8) => i as i8 as i64,
                (ScalarKind::Int, 16) => i as i16 as i64,
                (ScalarKind::Int, 32) => i as i32 as i64,
                (ScalarKind::UInt, 8) => i as u8 as i64,
                (ScalarKind::UInt, 16) => i as u16 as i64,
                (ScalarKind::UInt, 32) => i as u32 as i64,
                _ => i,
            })
        }
        _ => n,
    }
}

pub fn make_scalar(dt: DataType, n: Num) -> Value {
    Value::NpScalar(NpScalar {
        dtype: dt,
        num: normalize(dt, n),
    })
}

pub fn scalar_str(s: &NpScalar) -> String {
    compiler_core::eval::format::format_numpy_scalar(s.num.as_f64(), s.num.as_i64(), s.dtype)
}

pub fn scalar_repr(s: &NpScalar) -> String {
    if s.dtype.is_bool() {
        return if s.num.as_i64() != 0 {
            "np.True_".into()
        } else {
            "np.False_".into()
        };
    }
    format!("np.{}({})", dtype_name(s.dtype), scalar_str(s))
}

pub fn array_str(a: &NDArray) -> String {
    compiler_core::eval::format::format_array(a)
}

pub fn array_repr(a: &NDArray) -> String {
    compiler_core::eval::format::format_array_repr(a)
}

/// Element `flat` as a NumPy scalar value.
pub fn elem(a: &NDArray, flat: usize) -> Num {
    if is_float(a.dtype()) {
        Num::F(a.get_flat_f64(flat).unwrap_or(0.0))
    } else {
        Num::I(a.get_flat_i64(flat).unwrap_or(0))
    }
}

/// Stores element `flat` of an array object (through to a view's base).
fn write_elem(a: &ArrayObj, flat: usize, n: Num) -> Res<()> {
    match a.view_of() {
        Some((base, offs)) => {
            let o = offs
                .get(flat)
                .copied()
                .ok_or_else(|| PyErr::index_error("index out of range"))?;
            let mut b = base
                .data
                .try_borrow_mut()
                .map_err(|_| PyErr::new(ExcKind::RuntimeError, "array is in use"))?;
            set_elem(&mut b, o, n)
        }
        None => {
            let mut d = a
                .data
                .try_borrow_mut()
                .map_err(|_| PyErr::new(ExcKind::RuntimeError, "array is in use"))?;
            set_elem(&mut d, flat, n)
        }
    }
}

fn set_elem(a: &mut NDArray, flat: usize, n: Num) -> Res<()> {
    let r = match n {
        Num::F(f) => a.set_flat_f64(flat, f),
        Num::I(i) => a.set_flat_i64(flat, i),
    };
    r.map_err(PyErr::index_error)
}

/// Number of elements (saturating: a shape that overflows is caught by the
/// memory budget, never by a panic).
fn numel(shape: &[usize]) -> usize {
    shape.iter().fold(1usize, |acc, &d| acc.saturating_mul(d))
}

fn shape_str(shape: &[usize]) -> String {
    match shape.len() {
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

pub fn shape_value(shape: &[usize]) -> Value {
    Value::tuple(shape.iter().map(|&d| Value::Int(d as i64)).collect())
}

// ----------------------------------------------------------------------------
// Operands and promotion

/// How a Python scalar takes part in promotion (NEP 50).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Weak {
    No,
    Bool,
    Int,
    Float,
}

/// An operand of an array operation, flattened.
struct Opnd {
    shape: Vec<usize>,
    dtype: DataType,
    weak: Weak,
    vals: Vals,
}

enum Vals {
    F(Vec<f64>),
    I(Vec<i64>),
}

impl Opnd {
    #[inline]
    fn f(&self, i: usize) -> f64 {
        match &self.vals {
            Vals::F(v) => v.get(i).copied().unwrap_or(0.0),
            Vals::I(v) => v.get(i).copied().unwrap_or(0) as f64,
        }
    }
    #[inline]
    fn i(&self, i: usize) -> i64 {
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

fn opnd(it: &mut Interp, v: &Value) -> Res<Opnd> {
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

fn weak_with(dt: DataType, w: Weak) -> DataType {
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

fn promote_opnds(a: &Opnd, b: &Opnd) -> DataType {
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
fn bmap(inp: &[usize], out: &[usize]) -> Option<Vec<usize>> {
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
fn at(map: &Option<Vec<usize>>, i: usize) -> usize {
    match map {
        None => i,
        Some(m) => m.get(i).copied().unwrap_or(0),
    }
}

/// Wraps a result: 0-d becomes a NumPy scalar, like NumPy's ufuncs.
fn finish(it: &mut Interp, a: NDArray) -> Res<Value> {
    if a.ndim() == 0 {
        let n = elem(&a, 0);
        return Ok(make_scalar(a.dtype(), n));
    }
    it.new_array(a)
}

fn alloc_check(it: &mut Interp, dt: DataType, n: usize) -> Res<()> {
    it.check_alloc((n as u64).saturating_mul(dt.bytes().max(1) as u64))?;
    it.charge_steps(n as u64 / 16)
}

fn from_f(dt: DataType, shape: &[usize], v: &[f64]) -> Res<NDArray> {
    NDArray::from_f64_as(dt, shape, v).map_err(PyErr::value_error)
}

fn from_i(dt: DataType, shape: &[usize], v: &[i64]) -> Res<NDArray> {
    NDArray::from_i64(dt, shape, v).map_err(PyErr::value_error)
}

// ----------------------------------------------------------------------------
// Binary operations

fn int_pow(a: i64, b: i64) -> Res<i64> {
    if b < 0 {
        return Err(PyErr::value_error(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    Ok(a.wrapping_pow(b.min(u32::MAX as i64) as u32))
}

fn int_binop(op: BinOp, x: i64, y: i64) -> Res<i64> {
    Ok(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::FloorDiv => {
            if y == 0 {
                0
            } else {
                super::ops::int_divmod(x, y).map(|r| r.0).unwrap_or(0)
            }
        }
        BinOp::Mod => {
            if y == 0 {
                0
            } else {
                super::ops::int_divmod(x, y).map(|r| r.1).unwrap_or(0)
            }
        }
        BinOp::Pow => int_pow(x, y)?,
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::LShift => x.wrapping_shl(y.clamp(0, 63) as u32),
        BinOp::RShift => x >> y.clamp(0, 63),
        BinOp::Div | BinOp::MatMul => 0,
    })
}

fn float_binop(op: BinOp, x: f64, y: f64) -> f64 {
    match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::FloorDiv => {
            if y == 0.0 {
                x / y
            } else {
                super::ops::float_divmod(x, y).0
            }
        }
        BinOp::Mod => {
            if y == 0.0 {
                f64::NAN
            } else {
                super::ops::float_divmod(x, y).1
            }
        }
        BinOp::Pow => x.powf(y),
        _ => f64::NAN,
    }
}

fn check_op_types(op: BinOp, out: DataType, a: &Opnd, b: &Opnd) -> Res<()> {
    let bitwise = matches!(
        op,
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::LShift | BinOp::RShift
    );
    if bitwise && is_float(out) {
        let name = match op {
            BinOp::BitAnd => "bitwise_and",
            BinOp::BitOr => "bitwise_or",
            BinOp::BitXor => "bitwise_xor",
            BinOp::LShift => "left_shift",
            _ => "right_shift",
        };
        return Err(PyErr::type_error(format!(
            "ufunc '{name}' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''"
        )));
    }
    if op == BinOp::Sub && a.dtype.is_bool() && b.dtype.is_bool() && out.is_bool() {
        return Err(PyErr::type_error(
            "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.",
        ));
    }
    Ok(())
}

/// Fast path for two scalars (the inner loop of `Y[i, j] + A[i, k] * B[k, j]`).
fn scalar_binary(op: BinOp, l: &Value, r: &Value) -> Option<Res<Value>> {
    let as_s = |v: &Value| -> Option<(DataType, Num, Weak)> {
        Some(match v {
            Value::NpScalar(s) => (s.dtype, s.num, Weak::No),
            Value::Int(i) => (DataType::i64(), Num::I(*i), Weak::Int),
            Value::Float(f) => (DataType::f64(), Num::F(*f), Weak::Float),
            Value::Bool(b) => (DataType::bool(), Num::I(*b as i64), Weak::Bool),
            _ => return None,
        })
    };
    let (da, na, wa) = as_s(l)?;
    let (db, nb, wb) = as_s(r)?;
    if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) {
        return None;
    }
    if da.is_bool() || db.is_bool() {
        return None;
    }
    let out = match (wa, wb) {
        (Weak::No, Weak::No) => promote(da, db),
        (Weak::No, w) => weak_with(da, w),
        (w, _) => weak_with(db, w),
    };
    let out = if op == BinOp::Div && !is_float(out) {
        DataType::f64()
    } else {
        out
    };
    let n = if is_float(out) {
        let operand = operand_rounding(out);
        Num::F(float_binop(op, operand(na.as_f64()), operand(nb.as_f64())))
    } else {
        match int_binop(op, na.as_i64(), nb.as_i64()) {
            Ok(i) => Num::I(i),
            Err(e) => return Some(Err(e)),
        }
    };
    Some(Ok(make_scalar(out, n)))
}

/// How an operand enters arithmetic whose result has dtype `out`: NumPy
/// converts both to `out` first (a Python float times a float32 array is a
/// float32 multiply). Computing in f64 on the converted operands and rounding
/// once gives the float32 result exactly for `+ - * /`.
fn operand_rounding(out: DataType) -> fn(f64) -> f64 {
    if out == DataType::f32() {
        |x| x as f32 as f64
    } else {
        |x| x
    }
}

pub fn binary(it: &mut Interp, op: BinOp, l: &Value, r: &Value) -> Res<Value> {
    if op == BinOp::MatMul {
        return matmul(it, l, r);
    }
    if let Some(v) = scalar_binary(op, l, r) {
        return v;
    }
    let a = opnd(it, l)?;
    let b = opnd(it, r)?;
    let mut out = promote_opnds(&a, &b);
    if op == BinOp::Div && !is_float(out) {
        out = DataType::f64();
    }
    if matches!(op, BinOp::FloorDiv | BinOp::Mod | BinOp::Pow) && out.is_bool() {
        out = DataType::int(8);
    }
    check_op_types(op, out, &a, &b)?;
    let shape = broadcast_shapes(&a.shape, &b.shape)?;
    let n = numel(&shape);
    alloc_check(it, out, n)?;
    let (ma, mb) = (bmap(&a.shape, &shape), bmap(&b.shape, &shape));
    let arr = if is_float(out) {
        let mut v = Vec::with_capacity(n);
        let operand = operand_rounding(out);
        for i in 0..n {
            let (x, y) = (operand(a.f(at(&ma, i))), operand(b.f(at(&mb, i))));
            v.push(float_binop(op, x, y));
        }
        from_f(out, &shape, &v)?
    } else if out.is_bool() {
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = (a.i(at(&ma, i)) != 0, b.i(at(&mb, i)) != 0);
            v.push(match op {
                BinOp::Add | BinOp::BitOr => x | y,
                BinOp::Mul | BinOp::BitAnd => x & y,
                BinOp::BitXor => x ^ y,
                _ => false,
            } as i64);
        }
        from_i(out, &shape, &v)?
    } else {
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            v.push(int_binop(op, a.i(at(&ma, i)), b.i(at(&mb, i)))?);
        }
        from_i(out, &shape, &v)?
    };
    finish(it, arr)
}

/// `np.maximum` / `np.minimum` (NaN propagates).
pub fn max_min(it: &mut Interp, l: &Value, r: &Value, want_max: bool) -> Res<Value> {
    let a = opnd(it, l)?;
    let b = opnd(it, r)?;
    let out = promote_opnds(&a, &b);
    let shape = broadcast_shapes(&a.shape, &b.shape)?;
    let n = numel(&shape);
    alloc_check(it, out, n)?;
    let (ma, mb) = (bmap(&a.shape, &shape), bmap(&b.shape, &shape));
    let arr = if is_float(out) {
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = (a.f(at(&ma, i)), b.f(at(&mb, i)));
            v.push(if x.is_nan() || y.is_nan() {
                f64::NAN
            } else if want_max {
                x.max(y)
            } else {
                x.min(y)
            });
        }
        from_f(out, &shape, &v)?
    } else {
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = (a.i(at(&ma, i)), b.i(at(&mb, i)));
            v.push(if want_max { x.max(y) } else { x.min(y) });
        }
        from_i(out, &shape, &v)?
    };
    finish(it, arr)
}

pub fn compare(it: &mut Interp, op: CmpOp, l: &Value, r: &Value) -> Res<Value> {
    let (a, b) = match (opnd(it, l), opnd(it, r)) {
        (Ok(a), Ok(b)) => (a, b),
        _ => {
            return match op {
                CmpOp::Eq => Ok(Value::Bool(false)),
                CmpOp::NotEq => Ok(Value::Bool(true)),
                _ => Err(PyErr::type_error(format!(
                    "'{}' not supported between instances of '{}' and '{}'",
                    op.as_str(),
                    l.type_name(),
                    r.type_name()
                ))),
            }
        }
    };
    let shape = broadcast_shapes(&a.shape, &b.shape)?;
    let n = numel(&shape);
    alloc_check(it, DataType::bool(), n)?;
    let (ma, mb) = (bmap(&a.shape, &shape), bmap(&b.shape, &shape));
    let float = is_float(a.dtype) || is_float(b.dtype);
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        let (ia, ib) = (at(&ma, i), at(&mb, i));
        let ord = if float {
            a.f(ia).partial_cmp(&b.f(ib))
        } else {
            Some(a.i(ia).cmp(&b.i(ib)))
        };
        use std::cmp::Ordering::*;
        let t = match (op, ord) {
            (CmpOp::Eq, o) => o == Some(Equal),
            (CmpOp::NotEq, o) => o != Some(Equal),
            (CmpOp::Lt, o) => o == Some(Less),
            (CmpOp::LtE, o) => matches!(o, Some(Less | Equal)),
            (CmpOp::Gt, o) => o == Some(Greater),
            (CmpOp::GtE, o) => matches!(o, Some(Greater | Equal)),
            _ => false,
        };
        v.push(t as i64);
    }
    let arr = from_i(DataType::bool(), &shape, &v)?;
    finish(it, arr)
}

pub fn unary(it: &mut Interp, op: UnaryOp, v: &Value) -> Res<Value> {
    let a = opnd(it, v)?;
    let n = numel(&a.shape);
    alloc_check(it, a.dtype, n)?;
    let arr = match op {
        UnaryOp::Not => return Ok(Value::Bool(!it.truthy(v)?)),
        UnaryOp::Neg if a.dtype.is_bool() => {
            return Err(PyErr::type_error(
                "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead.",
            ))
        }
        UnaryOp::Neg | UnaryOp::Pos => {
            let sign = if op == UnaryOp::Neg { -1 } else { 1 };
            if is_float(a.dtype) {
                let v: Vec<f64> = (0..n).map(|i| a.f(i) * sign as f64).collect();
                from_f(a.dtype, &a.shape, &v)?
            } else {
                let v: Vec<i64> = (0..n).map(|i| a.i(i).wrapping_mul(sign)).collect();
                from_i(a.dtype, &a.shape, &v)?
            }
        }
        UnaryOp::Invert => {
            if is_float(a.dtype) {
                return Err(PyErr::type_error("ufunc 'invert' not supported for the input types"));
            }
            let v: Vec<i64> = if a.dtype.is_bool() {
                (0..n).map(|i| (a.i(i) == 0) as i64).collect()
            } else {
                (0..n).map(|i| !a.i(i)).collect()
            };
            from_i(a.dtype, &a.shape, &v)?
        }
    };
    finish(it, arr)
}

/// Element-wise math (`np.exp`, `np.sqrt`, `abs`…).
pub fn ufunc1(it: &mut Interp, name: &str, v: &Value) -> Res<Value> {
    let a = opnd(it, v)?;
    let n = numel(&a.shape);
    let keeps_int = matches!(
        name,
        "absolute" | "abs" | "negative" | "square" | "sign" | "positive"
    );
    let out = if is_float(a.dtype) || keeps_int {
        a.dtype
    } else {
        match a.dtype.bits {
            8 if !a.dtype.is_bool() => DataType::float(16),
            16 => DataType::f32(),
            _ if a.dtype.is_bool() => DataType::float(16),
            _ => DataType::f64(),
        }
    };
    alloc_check(it, out, n)?;
    let f: fn(f64) -> f64 = match name {
        "exp" => f64::exp,
        "exp2" => f64::exp2,
        "log" => f64::ln,
        "log2" => f64::log2,
        "log10" => f64::log10,
        "sqrt" => f64::sqrt,
        "tanh" => f64::tanh,
        "sin" => f64::sin,
        "cos" => f64::cos,
        "tan" => f64::tan,
        "floor" => f64::floor,
        "ceil" => f64::ceil,
        "trunc" => f64::trunc,
        "rint" => f64::round_ties_even,
        "absolute" | "abs" => f64::abs,
        "negative" => |x: f64| -x,
        "positive" => |x: f64| x,
        "square" => |x: f64| x * x,
        "sign" => |x: f64| {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            }
        },
        "reciprocal" => |x: f64| 1.0 / x,
        "sigmoid" => |x: f64| 1.0 / (1.0 + (-x).exp()),
        "erf" => compiler_core::eval::erf,
        _ => {
            return Err(PyErr::attribute_error(format!(
                "module 'numpy' has no attribute '{name}'"
            )))
        }
    };
    let arr = if is_float(out) {
        let v: Vec<f64> = (0..n).map(|i| f(a.f(i))).collect();
        from_f(out, &a.shape, &v)?
    } else {
        let v: Vec<i64> = (0..n)
            .map(|i| {
                let x = a.i(i);
                match name {
                    "absolute" | "abs" => x.wrapping_abs(),
                    "negative" => x.wrapping_neg(),
                    "square" => x.wrapping_mul(x),
                    "sign" => x.signum(),
                    _ => x,
                }
            })
            .collect();
        from_i(out, &a.shape, &v)?
    };
    finish(it, arr)
}

pub fn round_array(it: &mut Interp, v: &Value, decimals: i64) -> Res<Value> {
    let a = opnd(it, v)?;
    let n = numel(&a.shape);
    alloc_check(it, a.dtype, n)?;
    let arr = if is_float(a.dtype) {
        let p = 10f64.powi(decimals.clamp(-300, 300) as i32);
        let v: Vec<f64> = (0..n).map(|i| (a.f(i) * p).round_ties_even() / p).collect();
        from_f(a.dtype, &a.shape, &v)?
    } else {
        let v: Vec<i64> = (0..n).map(|i| a.i(i)).collect();
        from_i(a.dtype, &a.shape, &v)?
    };
    finish(it, arr)
}

// ----------------------------------------------------------------------------
// matmul

/// Multiply-adds of a library call charged as one step: `a @ b` runs
/// natively, so a 1024³ matmul (about a second of work) costs 16.8M of the
/// 100M steps a cell has, while Python-level loops keep their price.
const MACS_PER_STEP: u64 = 64;

/// `a @ b` / `np.matmul`: 1-D operands are promoted to a row (left) or a
/// column (right) and the added axis removed again; the axes before the last
/// two broadcast as batch axes.
pub fn matmul(it: &mut Interp, l: &Value, r: &Value) -> Res<Value> {
    let a = opnd(it, l)?;
    let b = opnd(it, r)?;
    if a.shape.is_empty() || b.shape.is_empty() {
        return Err(PyErr::value_error(
            "matmul: Input operand 0 does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)",
        ));
    }
    let out = promote(a.dtype, b.dtype);
    let (a_vec, b_vec) = (a.shape.len() == 1, b.shape.len() == 1);
    let a_shape: Vec<usize> = if a_vec {
        vec![1, a.shape[0]]
    } else {
        a.shape.clone()
    };
    let b_shape: Vec<usize> = if b_vec {
        vec![b.shape[0], 1]
    } else {
        b.shape.clone()
    };
    let (m, k) = (a_shape[a_shape.len() - 2], a_shape[a_shape.len() - 1]);
    let (k2, n) = (b_shape[b_shape.len() - 2], b_shape[b_shape.len() - 1]);
    if k != k2 {
        return Err(PyErr::value_error(format!(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {k2} is different from {k})"
        )));
    }
    let a_batch = &a_shape[..a_shape.len() - 2];
    let b_batch = &b_shape[..b_shape.len() - 2];
    let batch = broadcast_shapes(a_batch, b_batch)?;
    let batches: usize = batch.iter().product();
    let mut shape = batch.clone();
    if !a_vec {
        shape.push(m);
    }
    if !b_vec {
        shape.push(n);
    }
    alloc_check(it, out, batches * m * n)?;
    let macs = (batches as u64)
        .saturating_mul(m as u64)
        .saturating_mul(n as u64)
        .saturating_mul(k as u64);
    it.charge_steps(macs / MACS_PER_STEP)?;
    // The flat offset of batch `i`'s matrix in an operand whose batch axes
    // are `own` (broadcast against `batch`).
    let offset = |own: &[usize], i: usize, size: usize| -> usize {
        let mut rest = i;
        let mut flat = 0;
        let mut stride = 1;
        for (d, &full) in batch.iter().enumerate().rev() {
            let idx = rest % full;
            rest /= full;
            let skip = batch.len() - own.len();
            if d >= skip {
                let extent = own[d - skip];
                flat += if extent == 1 { 0 } else { idx } * stride;
                stride *= extent;
            }
        }
        flat * size
    };
    let arr = if is_float(out) {
        let av: Vec<f64> = (0..a.shape.iter().product()).map(|i| a.f(i)).collect();
        let bv: Vec<f64> = (0..b.shape.iter().product()).map(|i| b.f(i)).collect();
        let mut c = vec![0.0f64; batches * m * n];
        for bi in 0..batches {
            let (ao, bo) = (offset(a_batch, bi, m * k), offset(b_batch, bi, k * n));
            let c_mat = &mut c[bi * m * n..(bi + 1) * m * n];
            for i in 0..m {
                for p in 0..k {
                    let x = av[ao + i * k + p];
                    let row = &bv[bo + p * n..bo + p * n + n];
                    let out_row = &mut c_mat[i * n..i * n + n];
                    for (o, y) in out_row.iter_mut().zip(row) {
                        *o += x * y;
                    }
                }
            }
        }
        from_f(out, &shape, &c)?
    } else {
        let mut c = vec![0i64; batches * m * n];
        for bi in 0..batches {
            let (ao, bo) = (offset(a_batch, bi, m * k), offset(b_batch, bi, k * n));
            for i in 0..m {
                for p in 0..k {
                    let x = a.i(ao + i * k + p);
                    for j in 0..n {
                        let o = &mut c[bi * m * n + i * n + j];
                        *o = o.wrapping_add(x.wrapping_mul(b.i(bo + p * n + j)));
                    }
                }
            }
        }
        from_i(out, &shape, &c)?
    };
    finish(it, arr)
}

/// `np.einsum(subscripts, *operands)`: explicit (`"ij,jk->ik"`) and
/// implicit (`"ij,jk"`: the letters used once, in alphabetical order) modes,
/// repeated letters in one operand (diagonals), sums over letters the
/// output lacks. Ellipses (`...`) are refused with a clear error.
pub fn einsum(it: &mut Interp, subscripts: &str, operands: &[Value]) -> Res<Value> {
    let spec: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    if spec.contains('.') {
        return Err(PyErr::value_error(
            "einsum: ellipsis ('...') subscripts are not supported; name every axis",
        ));
    }
    let (inputs, output) = match spec.split_once("->") {
        Some((i, o)) => (i.to_string(), Some(o.to_string())),
        None => (spec.clone(), None),
    };
    let terms: Vec<&str> = inputs.split(',').collect();
    if terms.len() != operands.len() {
        return Err(PyErr::value_error(format!(
            "einsum: {} operands for {} subscript terms in '{subscripts}'",
            operands.len(),
            terms.len()
        )));
    }
    let letter = |c: char| -> Res<char> {
        if c.is_ascii_alphabetic() {
            Ok(c)
        } else {
            Err(PyErr::value_error(format!(
                "einsum: invalid subscript '{c}' in '{subscripts}' (letters only)"
            )))
        }
    };
    // Every letter's extent, checked across operands.
    let mut sizes: Vec<(char, usize)> = Vec::new();
    let mut ops = Vec::with_capacity(operands.len());
    for (term, v) in terms.iter().zip(operands) {
        let o = opnd(it, v)?;
        let letters: Vec<char> = term.chars().map(letter).collect::<Res<_>>()?;
        if letters.len() != o.shape.len() {
            return Err(PyErr::value_error(format!(
                "einsum: operand has {} dimensions but '{term}' names {}",
                o.shape.len(),
                letters.len()
            )));
        }
        for (&c, &n) in letters.iter().zip(&o.shape) {
            match sizes.iter().find(|(l, _)| *l == c) {
                Some(&(_, m)) if m != n => {
                    return Err(PyErr::value_error(format!(
                        "einsum: size of label '{c}' for operand ({n}) does not match previous terms ({m})"
                    )))
                }
                Some(_) => {}
                None => sizes.push((c, n)),
            }
        }
        ops.push((letters, o));
    }
    let out_letters: Vec<char> = match output {
        Some(o) => {
            let letters: Vec<char> = o.chars().map(letter).collect::<Res<_>>()?;
            for (k, c) in letters.iter().enumerate() {
                if letters[..k].contains(c) {
                    return Err(PyErr::value_error(format!(
                        "einsum: output subscript '{c}' appears more than once"
                    )));
                }
                if !sizes.iter().any(|(l, _)| l == c) {
                    return Err(PyErr::value_error(format!(
                        "einsum: output subscript '{c}' does not appear in the input"
                    )));
                }
            }
            letters
        }
        None => {
            let mut once: Vec<char> = sizes
                .iter()
                .map(|&(c, _)| c)
                .filter(|c| inputs.chars().filter(|x| x == c).count() == 1)
                .collect();
            tessel_ir::sort::ascending(&mut once);
            once
        }
    };
    // Loop order: the output's letters, then the summed ones.
    let mut order = out_letters.clone();
    order.extend(
        sizes
            .iter()
            .map(|&(c, _)| c)
            .filter(|c| !out_letters.contains(c)),
    );
    let extent = |c: char| sizes.iter().find(|(l, _)| *l == c).map_or(1, |&(_, n)| n);
    let extents: Vec<usize> = order.iter().map(|&c| extent(c)).collect();
    let out_shape: Vec<usize> = out_letters.iter().map(|&c| extent(c)).collect();
    let out_len: usize = out_shape.iter().product();
    let inner: usize = extents[out_letters.len()..].iter().product();
    // Each operand's stride along each loop letter (repeated letters add up).
    let strides: Vec<Vec<usize>> = ops
        .iter()
        .map(|(letters, o)| {
            let mut own = vec![0usize; letters.len()];
            let mut acc = 1;
            for d in (0..letters.len()).rev() {
                own[d] = acc;
                acc *= o.shape[d];
            }
            order
                .iter()
                .map(|c| {
                    letters
                        .iter()
                        .zip(&own)
                        .filter(|(l, _)| *l == c)
                        .map(|(_, s)| *s)
                        .sum()
                })
                .collect()
        })
        .collect();
    let dtype = ops
        .iter()
        .map(|(_, o)| o.dtype)
        .reduce(promote)
        .unwrap_or(DataType::f64());
    alloc_check(it, dtype, out_len)?;
    let work = (out_len as u64)
        .saturating_mul(inner as u64)
        .saturating_mul(ops.len() as u64);
    it.charge_steps(work / MACS_PER_STEP)?;
    let mut index = vec![0usize; order.len()];
    let mut flat_f = vec![0.0f64; out_len];
    let mut flat_i = vec![0i64; out_len];
    let float = is_float(dtype);
    for out_pos in 0..out_len {
        for _ in 0..inner {
            let (mut pf, mut pi) = (1.0f64, 1i64);
            for ((_, o), st) in ops.iter().zip(&strides) {
                let at: usize = index.iter().zip(st).map(|(i, s)| i * s).sum();
                if float {
                    pf *= o.f(at);
                } else {
                    pi = pi.wrapping_mul(o.i(at));
                }
            }
            if float {
                flat_f[out_pos] += pf;
            } else {
                flat_i[out_pos] = flat_i[out_pos].wrapping_add(pi);
            }
            // Next index, innermost letter fastest.
            for d in (0..order.len()).rev() {
                index[d] += 1;
                if index[d] < extents[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }
    let arr = if float {
        from_f(dtype, &out_shape, &flat_f)?
    } else {
        from_i(dtype, &out_shape, &flat_i)?
    };
    finish(it, arr)
}

// ----------------------------------------------------------------------------
// Reductions

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Red {
    Sum,
    Prod,
    Mean,
    Max,
    Min,
    ArgMax,
    ArgMin,
    Any,
    All,
    Std,
    Var,
}

fn red_name(r: Red) -> &'static str {
    match r {
        Red::Max => "maximum",
        Red::Min => "minimum",
        Red::ArgMax => "argmax",
        Red::ArgMin => "argmin",
        _ => "reduce",
    }
}

fn red_dtype(r: Red, dt: DataType) -> DataType {
    match r {
        Red::Sum | Red::Prod => match dt.kind {
            ScalarKind::Bool | ScalarKind::Int => DataType::i64(),
            ScalarKind::UInt => DataType::uint(64),
            _ => dt,
        },
        Red::Mean | Red::Std | Red::Var => {
            if is_float(dt) {
                dt
            } else {
                DataType::f64()
            }
        }
        Red::Max | Red::Min => dt,
        Red::ArgMax | Red::ArgMin => DataType::i64(),
        Red::Any | Red::All => DataType::bool(),
    }
}

/// `x` rounded to the precision NumPy accumulates `dt` in (float16 sums
/// accumulate in float32).
fn accumulate_in(dt: DataType, x: f64) -> f64 {
    if dt.kind == ScalarKind::Float && dt.bits <= 32 {
        x as f32 as f64
    } else {
        x
    }
}

/// NumPy's summation of floats in their own precision: pairwise over a
/// contiguous run (eight interleaved partial sums up to 128 elements,
/// halves above), one element after another when the reduced axis is not
/// the innermost; both added to the reduction's identity, 0.
fn float_sum(dt: DataType, vals: &[f64], pairwise: bool) -> f64 {
    let add = |x: f64, y: f64| accumulate_in(dt, x + y);
    fn pairs(v: &[f64], add: &dyn Fn(f64, f64) -> f64) -> f64 {
        let n = v.len();
        if n < 8 {
            v.iter().fold(-0.0, |r, &x| add(r, x))
        } else if n <= 128 {
            let mut r = [0.0f64; 8];
            r.copy_from_slice(&v[..8]);
            let whole = n - n % 8;
            let mut i = 8;
            while i < whole {
                for (j, acc) in r.iter_mut().enumerate() {
                    *acc = add(*acc, v[i + j]);
                }
                i += 8;
            }
            let mut res = add(
                add(add(r[0], r[1]), add(r[2], r[3])),
                add(add(r[4], r[5]), add(r[6], r[7])),
            );
            for &x in &v[whole..] {
                res = add(res, x);
            }
            res
        } else {
            let mut half = n / 2;
            half -= half % 8;
            add(pairs(&v[..half], add), pairs(&v[half..], add))
        }
    }
    if pairwise {
        add(0.0, pairs(vals, &add))
    } else {
        vals.iter().fold(0.0, |r, &x| add(r, x))
    }
}

fn reduce_lane(r: Red, a: &Opnd, idx: &[usize], float: bool, contiguous: bool) -> Res<Num> {
    let n = idx.len();
    if n == 0 {
        return match r {
            Red::Sum => Ok(if float { Num::F(0.0) } else { Num::I(0) }),
            Red::Prod => Ok(if float { Num::F(1.0) } else { Num::I(1) }),
            Red::Any => Ok(Num::I(0)),
            Red::All => Ok(Num::I(1)),
            Red::Mean | Red::Std | Red::Var => Ok(Num::F(f64::NAN)),
            _ => Err(PyErr::value_error(format!(
                "zero-size array to reduction operation {} which has no identity",
                red_name(r)
            ))),
        };
    }
    let dt = a.dtype;
    let values = || idx.iter().map(|&i| a.f(i)).collect::<Vec<f64>>();
    let mean_of = |v: &[f64]| accumulate_in(dt, float_sum(dt, v, contiguous) / n as f64);
    Ok(match r {
        Red::Sum => {
            if float {
                Num::F(float_sum(dt, &values(), contiguous))
            } else {
                Num::I(idx.iter().fold(0i64, |s, &i| s.wrapping_add(a.i(i))))
            }
        }
        Red::Prod => {
            if float {
                Num::F(idx.iter().map(|&i| a.f(i)).product())
            } else {
                Num::I(idx.iter().fold(1i64, |s, &i| s.wrapping_mul(a.i(i))))
            }
        }
        // Floats in their own precision, as NumPy's `_mean`/`_var` compute
        // them; integers in float64.
        Red::Mean if float => Num::F(mean_of(&values())),
        Red::Mean => Num::F(idx.iter().map(|&i| a.f(i)).sum::<f64>() / n as f64),
        Red::Var | Red::Std if float => {
            let v = values();
            let mean = mean_of(&v);
            let squares: Vec<f64> = v
                .iter()
                .map(|&x| {
                    let d = accumulate_in(dt, x - mean);
                    accumulate_in(dt, d * d)
                })
                .collect();
            let var = mean_of(&squares);
            Num::F(if r == Red::Std {
                accumulate_in(dt, var.sqrt())
            } else {
                var
            })
        }
        Red::Var | Red::Std => {
            let mean = idx.iter().map(|&i| a.f(i)).sum::<f64>() / n as f64;
            let var = idx.iter().map(|&i| (a.f(i) - mean).powi(2)).sum::<f64>() / n as f64;
            Num::F(if r == Red::Std { var.sqrt() } else { var })
        }
        Red::Max | Red::Min | Red::ArgMax | Red::ArgMin => {
            let want_max = matches!(r, Red::Max | Red::ArgMax);
            let mut best = 0usize;
            for j in 1..n {
                let (x, y) = (idx[j], idx[best]);
                let better = if float {
                    let (fx, fy) = (a.f(x), a.f(y));
                    if fy.is_nan() {
                        false
                    } else if fx.is_nan() {
                        true
                    } else if want_max {
                        fx > fy
                    } else {
                        fx < fy
                    }
                } else if want_max {
                    a.i(x) > a.i(y)
                } else {
                    a.i(x) < a.i(y)
                };
                if better {
                    best = j;
                }
            }
            match r {
                Red::ArgMax | Red::ArgMin => Num::I(best as i64),
                _ => {
                    if float {
                        Num::F(a.f(idx[best]))
                    } else {
                        Num::I(a.i(idx[best]))
                    }
                }
            }
        }
        Red::Any => Num::I(idx.iter().any(|&i| a.f(i) != 0.0) as i64),
        Red::All => Num::I(idx.iter().all(|&i| a.f(i) != 0.0) as i64),
    })
}

/// `axis` argument: `None` or an int (negative counts from the end).
pub fn axis_arg(v: Option<&Value>, ndim: usize) -> Res<Option<usize>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(x) => {
            let i = num_i64(x)
                .ok_or_else(|| PyErr::type_error("an integer is required for the axis"))?;
            let n = ndim as i64;
            let j = if i < 0 { i + n } else { i };
            if j < 0 || j >= n {
                return Err(PyErr::new(
                    ExcKind::ValueError,
                    format!("axis {i} is out of bounds for array of dimension {ndim}"),
                ));
            }
            Ok(Some(j as usize))
        }
    }
}

pub fn reduce(
    it: &mut Interp,
    v: &Value,
    r: Red,
    axis: Option<&Value>,
    keepdims: bool,
) -> Res<Value> {
    let a = opnd(it, v)?;
    let ndim = a.shape.len();
    let axis = axis_arg(axis, ndim)?;
    let out_dt = red_dtype(r, a.dtype);
    let float = is_float(a.dtype) && !matches!(r, Red::Any | Red::All);
    let total = numel(&a.shape);
    it.charge_steps(total as u64 / 16)?;
    // NumPy sums a run of memory pairwise, and across rows one row at a
    // time: the whole (C-ordered) array, or the innermost axis, is a run.
    let contiguous = axis.is_none_or(|k| a.shape[k + 1..].iter().product::<usize>() == 1);
    let (shape, lanes): (Vec<usize>, Vec<Vec<usize>>) = match axis {
        None => {
            let shape = if keepdims { vec![1; ndim] } else { vec![] };
            (shape, vec![(0..total).collect()])
        }
        Some(k) => {
            let outer: usize = a.shape[..k].iter().product();
            let len = a.shape[k];
            let inner: usize = a.shape[k + 1..].iter().product();
            let mut lanes = Vec::with_capacity(outer * inner);
            for o in 0..outer {
                for i in 0..inner {
                    lanes.push((0..len).map(|j| (o * len + j) * inner + i).collect());
                }
            }
            let mut shape = a.shape.clone();
            if keepdims {
                shape[k] = 1;
            } else {
                shape.remove(k);
            }
            (shape, lanes)
        }
    };
    let mut res = Vec::with_capacity(lanes.len());
    for lane in &lanes {
        res.push(normalize(
            out_dt,
            reduce_lane(r, &a, lane, float, contiguous)?,
        ));
    }
    let arr = if is_float(out_dt) {
        let v: Vec<f64> = res.iter().map(|n| n.as_f64()).collect();
        from_f(out_dt, &shape, &v)?
    } else {
        let v: Vec<i64> = res.iter().map(|n| n.as_i64()).collect();
        from_i(out_dt, &shape, &v)?
    };
    finish(it, arr)
}

// ----------------------------------------------------------------------------
// Indexing

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
                let p = super::methods::slice_positions(shape[dim], s)?;
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

fn gather(arr: &NDArray, offs: &[usize], shape: &[usize]) -> Res<NDArray> {
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

fn scalar_num(v: &Value) -> Option<Num> {
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

// ----------------------------------------------------------------------------
// Shape manipulation

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

// ----------------------------------------------------------------------------
// Attributes and methods

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
                    super::fmt::str_repr(s)
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
