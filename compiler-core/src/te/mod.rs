//! Tensor Expression (TE): declare tensor computations with index lambdas,
//! then turn them into schedulable TensorIR with [`create_prim_func`],
//! exactly as Apache TVM 0.27's `tvm.te` does.
//!
//! ```text
//! A = te.placeholder((128,), name="A")          placeholder(&[128], f32, "A")
//! k = te.reduce_axis((0, K), "k")                reduce_axis(0, K, "k")
//! C = te.compute((M, N), lambda i, j:            compute_with(&shape, opts.with_names(["i", "j"]),
//!       te.sum(A[i, k] * B[k, j], axis=k))         |ix| sum(A.index(..) * .., &[k], None, None))
//! te.create_prim_func([A, B, C])                 create_prim_func(&[A, B, C])
//! ```
//!
//! - [`op`]: TVM's expression operators (type promotion and constant folding
//!   of `+ - * / // % < …`, `tvm.tir.all/any/if_then_else/Select`, casts,
//!   math intrinsics, `const`, `min_value`/`max_value`).
//! - [`tensor`]: [`Tensor`], [`placeholder`], [`compute`]/[`compute_with`]
//!   (index names as Python derives them: [`compute_arg_names`]),
//!   [`reduce_axis`], reductions [`sum`]/[`max`]/[`min`] and general
//!   [`Combiner`]s.
//! - [`create`]: [`create_prim_func`] / [`create_prim_func_with`] (scalar
//!   parameters, `index_dtype_override`).
//! - [`topi`]: the operator library subset (`topi.add`, `topi.nn.dense`, …),
//!   named as TVM names them.
//!
//! Errors are [`TeError`]s carrying TVM's message where TVM has one; nothing
//! here panics on user input.

pub mod create;
pub mod index_dtype;
pub mod op;
pub mod tensor;
pub mod topi;

use std::fmt;

pub use create::{create_prim_func, create_prim_func_with, FuncArg};
pub use tensor::{
    comm_reduce, compute, compute_arg_names, compute_cpp, compute_with, max, min, placeholder,
    placeholder_const, reduce_axis, reduce_axis_const, sum, var, BodyItem, Combiner, ComputeBody,
    ComputeOp, ComputeOptions, OpAttr, Operation, Reduce, Tensor, NESTED_REDUCTION_ERROR,
};

/// A TE error: what went wrong, in TVM's words where TVM has them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeError {
    pub message: String,
}

impl TeError {
    pub fn new(message: impl Into<String>) -> TeError {
        TeError {
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
