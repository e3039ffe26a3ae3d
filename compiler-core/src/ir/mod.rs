//! The TensorIR intermediate representation.
//!
//! Values are immutable trees shared through `Rc`: a transformation builds new
//! nodes and reuses untouched subtrees, so "before" and "after" can be held
//! (and printed, and compared) side by side — the playground shows every step.
//!
//! - [`dtype`]: `float32`, `int64`, vector lanes.
//! - [`expr`]: expressions, variables (identity by id), ranges.
//! - [`buffer`]: buffers (identity by id), regions.
//! - [`stmt`]: loops, blocks, stores and the rest.
//! - [`func`]: `PrimFunc`, `IRModule`, attribute values.
//! - [`mutate`]: rebuilding helpers — substitution and generic rewriting.
//!
//! Invariants the rest of the compiler relies on:
//! - a variable or buffer is *defined* exactly once (parameter, loop, block
//!   iterator, let, allocation) and used only inside its definition's scope;
//! - both operands of an arithmetic or comparison node have the same dtype;
//! - a `Load`/`Store` has one index per buffer dimension.
//!
//! The verifier ([`crate::analysis::verify`]) checks these on parsed input.

pub mod buffer;
pub mod dtype;
pub mod expr;
pub mod func;
pub mod mutate;
pub mod stmt;

pub use buffer::{Buffer, BufferId, BufferNode, BufferRegion, MatchBufferRegion};
pub use dtype::{DataType, ScalarKind};
pub use expr::{BinOp, CmpOp, Expr, ExprKind, Intrinsic, Range, Var, VarId};
pub use func::{AttrValue, BaseFunc, IRModule, PrimFunc};
pub use stmt::{Annotations, Block, BlockRealize, For, ForKind, IterKind, IterVar, Stmt, StmtKind};
