//! Tensor Expression (TE): declare tensor computations with index lambdas,
//! then turn them into schedulable TensorIR with [`create_prim_func`],
//! exactly as Apache TVM 0.27's `tvm.te` does (checked against TVM's own
//! printing in `tests/lower_te_graph/te_create.rs`).
//!
//! - [`op`]: TVM's expression operators (type promotion and constant folding
//!   of `+ - * / // % < …`, `tvm.tir.all/any/if_then_else/Select`, casts,
//!   math intrinsics, `const`, `min_value`/`max_value`).
//! - [`tensor`]: [`Tensor`], [`placeholder`], [`compute`]/[`compute_with`],
//!   [`reduce_axis`], reductions [`sum`]/[`max`]/[`min`] and general
//!   [`Combiner`]s.
//! - [`create`]: [`create_prim_func`] / [`create_prim_func_with`].
//! - [`topi`]: the operator library subset, named as TVM names it.
//! - [`schedule`]: older TVM's TE schedules (`te.create_schedule`,
//!   `s[C].split(…)`) translated into the TensorIR schedule.
//!
//! # For the script interpreter: Python → Rust
//!
//! | Python | Rust |
//! |---|---|
//! | Python literal `2`, `0.5`, `True` | [`op::py_int`], [`op::py_float`], [`op::py_bool`] (int32/int64, float32, bool: what TVM converts them to) |
//! | `te.var("n", "int32")`, `tvm.tir.Var` | [`var`] |
//! | `tvm.tir.const(v, dtype)` | [`op::const_int`] / [`op::const_float`] |
//! | `te.placeholder(shape, dtype="float32", name="placeholder")` | [`placeholder`] (shape entries: `py_int` or expressions) |
//! | `te.reduce_axis((lo, hi), name="rv")` | [`reduce_axis`] |
//! | `te.compute(shape, f, name="compute", tag="", attrs=None, varargs_names=None)` | [`compute_with`] with [`ComputeOptions`]; names from [`compute_arg_names`]`(ndim, lambda params, has *args, varargs_names)`, and pass only the effective `ndim` dimensions it returns; `f` gets the index variables and returns a [`ComputeBody`] (an `Expr`, a [`Reduce`], or a tuple); several outputs come back as several tensors |
//! | `A[i, j]`, `A(i, j)` | [`Tensor::index`] (a `TensorSlice` `A[i]` is the interpreter's, completed on the next subscript) |
//! | `A.shape`, `A.dtype`, `A.ndim`, `A.name`, `A.op.name` | [`Tensor::shape`], [`Tensor::dtype`], [`Tensor::ndim`], [`Tensor::name`], [`Operation::name`] |
//! | `C.op.axis`, `C.op.reduce_axis` | [`Operation::axis`], [`Operation::reduce_axis`] (their `.var` is the index variable) |
//! | `a + b`, `a - b`, `a * b`, `a / b`, `a // b`, `a % b`, `-a` | [`op::add`], [`op::sub`], [`op::mul`], [`op::truediv`], [`op::floordiv`], [`op::floormod`], [`op::neg`]; reflected ones swap operands (`2 - x` is `sub(2, x)`, `1 < x` is `gt(x, 1)`) |
//! | `<`, `<=`, `>`, `>=`, `==`, `!=` | [`op::lt`] … [`op::ne`] |
//! | `x.astype(dt)` on an expression / on a tensor | [`op::cast`] / [`topi::cast`] |
//! | `tvm.tir.all(...)`, `tvm.tir.any(...)`, `tvm.tir.Not` | [`op::all`], [`op::any`], [`op::logical_not`] |
//! | `te.if_then_else` / `tvm.tir.if_then_else`, `tvm.tir.Select` | [`op::if_then_else`], [`op::select`] |
//! | `te.exp/log/sqrt/tanh/sigmoid/erf/floor/…(x)`, `te.abs`, `te.power` | [`op::math`] / [`op::math_by_name`], [`op::abs`], [`op::power`] |
//! | `te.max(a, b)` / `te.min(a, b)` (two values) | [`op::max`] / [`op::min`] |
//! | `te.sum/max/min(e, axis=k or [k…], where=c, init=v)` | [`sum`] / [`max`] / [`min`]; using the result in arithmetic is TVM's [`NESTED_REDUCTION_ERROR`] |
//! | `te.comm_reducer(fcombine, fidentity)(exprs, axis=…)` | [`Combiner::new`] (lhs/rhs vars named `x_0`, `y_0`… as TVM names them) + [`comm_reduce`] |
//! | `te.min_value(dt)`, `te.max_value(dt)` | [`op::min_value`], [`op::max_value`] |
//! | `te.create_prim_func([A, n, B], index_dtype_override=None)` | [`create_prim_func_with`] with [`FuncArg`]s (or [`create_prim_func`] for tensors only) |
//!
//! # For the graph layer (`emit_te` / `call_te` / LegalizeOps)
//!
//! Relax builds placeholders with its (int64) shapes, calls a topi function,
//! then `create_prim_func(inputs + unbound size vars + outputs, "int64")` and
//! drops `global_symbol`: here [`placeholder`] with `Expr::i64` shapes or
//! int64 [`var`]s, a [`topi`] function, [`create_prim_func_with`]`(args,
//! Some(DataType::i64()))`, then remove the `global_symbol` attribute.
//!
//! Errors are [`TeError`]s carrying TVM's message where TVM has one; nothing
//! here panics on user input.

pub mod create;
pub mod index_dtype;
pub mod op;
pub mod schedule;
pub mod tensor;
pub mod topi;

use std::fmt;

pub use create::{create_prim_func, create_prim_func_with, FuncArg};
pub use tensor::{
    comm_reduce, compute, compute_arg_names, compute_cpp, compute_with, compute_with_names, max,
    min, placeholder, placeholder_const, reduce_axis, reduce_axis_const, sum, var, BodyItem,
    Combiner, ComputeBody, ComputeOp, ComputeOptions, OpAttr, Operation, Reduce, Tensor,
    NESTED_REDUCTION_ERROR,
};

/// A TE error: what went wrong, in TVM's words where TVM has them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeError {
    /// Which Python exception TVM raises for it.
    pub kind: TeErrorKind,
    pub message: String,
}

/// The family of a [`TeError`], as TVM's Python exception types draw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TeErrorKind {
    /// An argument of the wrong type or form: a non-integer index or shape,
    /// a non-boolean condition, a wrong number of loops (`TypeError`).
    ArgumentType,
    /// An argument whose value does not fit: a negative dimension, an axis
    /// out of range, an argument count that does not match (`ValueError`).
    InvalidValue,
    /// Everything else (`TVMError`).
    Other,
}

impl TeError {
    /// A [`TeErrorKind::Other`] error.
    pub fn new(message: impl Into<String>) -> TeError {
        TeError::of_kind(TeErrorKind::Other, message)
    }

    /// A [`TeErrorKind::ArgumentType`] error.
    pub fn argument_type(message: impl Into<String>) -> TeError {
        TeError::of_kind(TeErrorKind::ArgumentType, message)
    }

    /// A [`TeErrorKind::InvalidValue`] error.
    pub fn invalid_value(message: impl Into<String>) -> TeError {
        TeError::of_kind(TeErrorKind::InvalidValue, message)
    }

    pub fn of_kind(kind: TeErrorKind, message: impl Into<String>) -> TeError {
        TeError {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for TeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TeError {}

pub type TeResult<T> = Result<T, TeError>;
