//! Built-in graph operators: the operator enum and its attributes. Their
//! struct-info (shape and dtype) inference is compiler-core's `graph::op`.
//!
//! Each operator carries its attributes in the enum, so a pass matches
//! `Callee::Op(Op::Add)` directly. Names are TVM's (`relax.add`,
//! `relax.nn.relu`); the script spelling drops the `relax.` prefix
//! (`R.add`, `R.nn.relu`). Attributes print in TVM's field order.
//!
//! `R.linear` is not an operator in TVM 0.27 but a helper that builds
//! `permute_dims` + `matmul` (+ `add`); [`linear`] does the same.

use crate::DataType;

use super::{Call, Callee, Expr, PrimExpr, ShapeInfo, StructInfo};

/// `R.nn.conv2d` attributes, in TVM's field order.
#[derive(Clone, Debug, PartialEq)]
pub struct Conv2dAttrs {
    pub strides: [i64; 2],
    /// Top, left, bottom, right.
    pub padding: [i64; 4],
    pub dilation: [i64; 2],
    pub groups: i64,
    pub data_layout: String,
    pub kernel_layout: String,
    pub out_layout: String,
    pub out_dtype: Option<DataType>,
}

impl Default for Conv2dAttrs {
    fn default() -> Self {
        Conv2dAttrs {
            strides: [1, 1],
            padding: [0, 0, 0, 0],
            dilation: [1, 1],
            groups: 1,
            data_layout: "NCHW".into(),
            kernel_layout: "OIHW".into(),
            out_layout: "NCHW".into(),
            out_dtype: None,
        }
    }
}

/// Element-wise binary operators (numpy broadcasting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Subtract,
    Multiply,
    Divide,
}

impl BinaryOp {
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Subtract => "subtract",
            BinaryOp::Multiply => "multiply",
            BinaryOp::Divide => "divide",
        }
    }
}

/// A built-in operator with its attributes.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Binary(BinaryOp),
    /// `R.nn.relu(x)`.
    Relu,
    /// `R.matmul(a, b, out_dtype=None)`.
    Matmul {
        out_dtype: Option<DataType>,
    },
    /// `R.permute_dims(x, axes=None)` (`None` reverses the axes).
    PermuteDims {
        axes: Option<Vec<i64>>,
    },
    /// `R.ewise_fma(a, b, c)` = `a * b + c`.
    EwiseFma,
    /// `R.reshape(x, R.shape([...]))`.
    Reshape,
    /// `R.nn.softmax(x, axis=-1)`.
    Softmax {
        axis: i64,
    },
    /// `R.nn.conv2d(data, weight, ...)`.
    Conv2d(Conv2dAttrs),
    /// `R.sum(x, axis=None, keepdims=False)`.
    Sum {
        axis: Option<Vec<i64>>,
        keepdims: bool,
    },
    /// `R.mean(x, axis=None, keepdims=False)`.
    Mean {
        axis: Option<Vec<i64>>,
        keepdims: bool,
    },
    /// `R.call_tir(cls.f, (args...), out_sinfo=...)`: destination-passing
    /// call of a PrimFunc of the module.
    CallTir,
    /// `R.call_dps_packed("name", (args...), out_sinfo=...)`: destination-
    /// passing call of a function found by name at run time.
    CallDpsPacked,
}

/// Every operator name the script accepts after `R.` (or `relax.op.`).
pub const OP_NAMES: &[&str] = &[
    "add",
    "subtract",
    "multiply",
    "divide",
    "nn.relu",
    "matmul",
    "permute_dims",
    "ewise_fma",
    "reshape",
    "nn.softmax",
    "nn.conv2d",
    "sum",
    "mean",
    "call_tir",
    "call_dps_packed",
];

impl Op {
    /// The script name after `R.`: `add`, `nn.relu`, `call_tir`.
    pub fn script_name(&self) -> &'static str {
        match self {
            Op::Binary(b) => b.name(),
            Op::Relu => "nn.relu",
            Op::Matmul { .. } => "matmul",
            Op::PermuteDims { .. } => "permute_dims",
            Op::EwiseFma => "ewise_fma",
            Op::Reshape => "reshape",
            Op::Softmax { .. } => "nn.softmax",
            Op::Conv2d(_) => "nn.conv2d",
            Op::Sum { .. } => "sum",
            Op::Mean { .. } => "mean",
            Op::CallTir => "call_tir",
            Op::CallDpsPacked => "call_dps_packed",
        }
    }
    /// TVM's registry name: `relax.add`.
    pub fn name(&self) -> String {
        format!("relax.{}", self.script_name())
    }
    /// Whether the operator is pure (all built-ins here are).
    pub fn is_pure(&self) -> bool {
        true
    }
    /// The number of value arguments (`None` for the call_* operators).
    pub fn arity(&self) -> Option<usize> {
        match self {
            Op::Binary(_) | Op::Matmul { .. } | Op::Reshape | Op::Conv2d(_) => Some(2),
            Op::Relu
            | Op::PermuteDims { .. }
            | Op::Softmax { .. }
            | Op::Sum { .. }
            | Op::Mean { .. } => Some(1),
            Op::EwiseFma => Some(3),
            Op::CallTir | Op::CallDpsPacked => None,
        }
    }
}

/// `x @ w.T + b` as TVM's `R.linear` builds it: `add(matmul(x,
/// permute_dims(w)), b)` (no `add` without a bias), as one nested
/// expression; binding it normalises the inner calls to their own bindings.
pub fn linear(x: Expr, w: Expr, b: Option<Expr>, out_dtype: Option<DataType>) -> Expr {
    let wt = Expr::op(Op::PermuteDims { axes: None }, vec![w]);
    let mm = Expr::op(Op::Matmul { out_dtype }, vec![x, wt]);
    match b {
        Some(b) => Expr::op(Op::Binary(BinaryOp::Add), vec![mm, b]),
        None => mm,
    }
}

/// A shape value's struct info.
pub fn shape_sinfo(values: &[PrimExpr]) -> StructInfo {
    StructInfo::Shape(ShapeInfo {
        values: Some(values.to_vec()),
        ndim: Some(values.len()),
    })
}

/// Whether `call` is `R.call_tir` / `R.call_dps_packed` (the calls whose
/// output struct info is given explicitly).
pub fn is_dps_call(call: &Call) -> bool {
    matches!(
        call.callee,
        Callee::Op(Op::CallTir) | Callee::Op(Op::CallDpsPacked)
    )
}
