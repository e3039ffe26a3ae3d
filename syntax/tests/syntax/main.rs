//! The syntax crate's tests, one binary: parser snapshots, error spans,
//! diagnostic rendering, and robustness on random and pathological input.

mod errors;
mod parse;
mod render;
mod robustness;
