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

mod attrs;
mod binary;
mod indexing;
mod matmul;
mod operands;
mod reductions;
mod shape;

pub use attrs::{call_method, construct_scalar, get_attr, in_dtype};
pub use binary::{binary, compare, max_min, round_array, ufunc1, unary};
pub use indexing::{
    array_item_f64, array_truthy, assign_all, get_item, get_scalar_fast, index_row, set_item,
    set_scalar_fast,
};
use indexing::{gather, scalar_num};
pub use matmul::{einsum, matmul};
use operands::{
    alloc_check, at, bmap, finish, from_f, from_i, opnd, promote_opnds, weak_with, Opnd, Vals, Weak,
};
pub use operands::{broadcast_shapes, promote};
pub use reductions::{reduce, Red};
pub use shape::{astype, py_scalar, reshape, shape_args, tolist, transpose, transpose_view};

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
