//! A subset of TVM's operator library (`tvm.topi`), built from the same TE
//! as TVM's definitions so that `create_prim_func` of a result prints as
//! TVM's does: the same stage names (`T_add`, `T_matmul_NT`, `compute`,
//! `x_red`, `T_softmax_norm`, `pad_temp`…), index names (`ax0` for TVM's C++
//! operators, `i0` for its Python ones, `nn, ff, yy, xx` for convolutions),
//! reduce-axis names (`k`, `k1`, `rc`, `ry`, `rx`) and attributes.
//!
//! - broadcast arithmetic: [`add`], [`subtract`], [`multiply`], [`divide`]
//!   on tensors and scalars ([`Operand`]);
//! - [`transpose`], [`reshape`], [`matmul`] (`topi.matmul`), [`cast`];
//! - reductions [`sum`], [`max`], [`min`] with `axis`/`keepdims`;
//! - [`nn`]: `relu`, `dense`, `matmul`, `softmax`, `pad`, `conv2d_nchw`.

mod broadcast;
pub mod nn;
mod reduction;
mod transform;

pub use broadcast::{add, divide, multiply, subtract, Operand};
pub use reduction::{argmax, argmin, max, min, sum};
pub use transform::{cast, matmul, reshape, transpose};

use tessel_tir::ir::Expr;

use super::{TeError, TeResult};

/// A constant integer out of a shape entry, for operators that need one.
pub(crate) fn const_dim(e: &Expr, what: &str) -> TeResult<i64> {
    e.as_int().ok_or_else(|| {
        TeError::argument_type(format!("{what} must be a constant, found a symbolic size"))
    })
}

/// An axis index, negative counting from the end, checked against `ndim`.
pub(crate) fn normalize_axis(axis: i64, ndim: usize, what: &str) -> TeResult<usize> {
    let n = ndim as i64;
    let a = if axis < 0 { axis + n } else { axis };
    if a < 0 || a >= n {
        return Err(TeError::invalid_value(format!(
            "{what}: axis={axis} is invalid for the {ndim}-dimensional input tensor"
        )));
    }
    Ok(a as usize)
}
