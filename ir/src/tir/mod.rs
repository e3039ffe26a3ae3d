//! TensorIR's nodes: dtypes, expressions, buffers, statements and
//! functions. They refer to each other (a buffer's shape is expressions, an
//! expression loads from a buffer), so they form one module; the rest of
//! the crate builds on it.

pub mod buffer;
pub mod dtype;
pub mod expr;
pub mod func;
pub mod stmt;
