//! TVMScript: the Python-syntax text form of TensorIR and of graph-level
//! (Relax) functions, in both directions.

pub mod builder;
pub use tessel_ir::printer;
pub mod relax_builder;
