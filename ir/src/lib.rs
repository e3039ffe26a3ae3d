//! `tessel-ir`: the data Tessel compiles — TensorIR and the graph-level
//! (Relax-like) IR — with its printing as TVMScript and the tensor values
//! (NDArray) that constants and the interpreters hold.
//!
//! Values are immutable trees shared through `Rc`: a transformation builds new
//! nodes and reuses untouched subtrees, so "before" and "after" can be held
//! (and printed, and compared) side by side — the playground shows every step.
//!
//! - [`tir`]: TensorIR's nodes, re-exported under their short paths:
//!   [`dtype`] (`float32`, `int64`, vector lanes), [`expr`] (expressions,
//!   variables by id, ranges), [`buffer`] (buffers by id, regions), [`stmt`]
//!   (loops, blocks, stores and the rest), [`func`] (`PrimFunc`, attribute values).
//! - [`module`]: `IRModule`, holding PrimFuncs and graph functions.
//! - [`mutate`]: rebuilding helpers — substitution and generic rewriting.
//! - [`visit`]: read-only walks — the `Visitor` trait and variable collectors.
//! - [`deep_equal`]: tree equality of expressions, variables by identity.
//! - [`graph`]: the graph-level IR (struct info, bindings, functions, operators).
//! - [`printer`]: TVMScript text of modules, functions and fragments, as TVM 0.27 prints it.
//! - [`sort`]: stable sorting through one shared instance of the standard sort
//!   (smaller WebAssembly than a copy per call site).
//! - [`values`]: NDArray, element arithmetic with exact rounding, the seeded
//!   random source, NumPy-style formatting.
//!
//! Invariants the rest of the compiler relies on:
//! - a variable or buffer is *defined* exactly once (parameter, loop, block
//!   iterator, let, allocation) and used only inside its definition's scope;
//! - both operands of an arithmetic or comparison node have the same dtype;
//! - a `Load`/`Store` has one index per buffer dimension.
//!
//! compiler-core's verifier (`analysis::verify`) checks these on parsed input.
//!
//! This crate depends on `tessel-syntax` (for spans) only: no analysis, no
//! transformation, no interpreter.

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod deep_equal;
pub mod graph;
pub mod module;
pub mod mutate;
pub mod printer;
pub mod sort;
pub mod tir;
pub mod values;
pub mod visit;

// The TensorIR node modules keep their short paths (`tessel_ir::expr::Var`).
pub use tir::{buffer, dtype, expr, func, stmt};

pub use buffer::{Buffer, BufferId, BufferNode, BufferRegion, MatchBufferRegion};
pub use dtype::{DataType, ScalarKind};
pub use expr::{BinOp, CmpOp, Expr, ExprKind, Intrinsic, Range, Var, VarId};
pub use func::{AttrValue, PrimFunc};
pub use module::{BaseFunc, IRModule};
pub use stmt::{Annotations, Block, BlockRealize, For, ForKind, IterKind, IterVar, Stmt, StmtKind};
