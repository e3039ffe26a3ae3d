//! The graph level: Relax-like functions that stitch tensor programs into
//! an end-to-end model (chapters 3, 5 and 7 of the MLC course).
//!
//! - [`ir`]: struct info (`R.Tensor((1, "m"), "float32")`), variables,
//!   expressions, bindings, dataflow blocks and [`Function`]s. Graph
//!   functions live in the same [`tessel_tir::ir::IRModule`] as PrimFuncs
//!   ([`tessel_tir::ir::BaseFunc::Graph`]); symbolic dimensions are TensorIR
//!   variables.
//! - [`op`]: the built-in operators (`R.add`, `R.matmul`, `R.nn.conv2d`,
//!   `R.call_tir`, …) and their shape/dtype inference.
//! - [`infer`]: struct info of expressions and calls of graph functions.
//! - structural equality with TVM's semantics (variables mapped by
//!   definition, names ignored) is `analysis::structural_equal::graph`.
//! - [`vm`]: the virtual machine that runs a graph function: `call_tir`
//!   through [`vm::Kernels`], normally the module built by a target backend
//!   ([`vm::ExecutableKernels`]; the reference interpreter by default),
//!   `call_dps_packed` through a [`vm::PackedRegistry`], built-in
//!   operators by reference implementations ([`reference`]).
//!
//! TVMScript parsing is in `tvmscript::relax_builder` (above this module),
//! printing in `tessel_ir::printer` (its `relax` part).

pub mod infer;
pub use tessel_ir::graph as ir;
pub mod op;
pub mod reference;
pub mod transform;
pub mod vm;

pub use ir::{
    Binding, BindingBlock, Call, Callee, Expr, ExprKind, FuncInfo, Function, GlobalVar, PrimExpr,
    SeqExpr, ShapeInfo, StructInfo, SymVar, TensorInfo, Var,
};
pub use op::{BinaryOp, Conv2dAttrs, Op};
