//! TVMScript: the Python-syntax text form of TensorIR, in both directions.

pub mod builder;
pub mod printer;
