//! Tests of the session driver, one binary: script mode (sections, steps,
//! expected errors), Python mode (typed inspection of a notebook's
//! schedule) and the helpers the CLI uses.

mod check;
mod exercise_speed;
mod graph_numbers;
mod memory_access;
mod python_mode;
mod script_mode;
mod tvmscript;

/// The book's `mm_relu` as a TVMScript module.
pub const MM: &str = include_str!("../../../compiler-core/tests/data/seeds/seed004_01_mm_relu.py");

/// The text at a diagnostic's span.
pub fn at(source: &str, d: &compiler_core::diag::Diagnostic) -> String {
    source[d.span.start as usize..d.span.end as usize].to_string()
}
