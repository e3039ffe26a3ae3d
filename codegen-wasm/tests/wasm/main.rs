//! The CPU backend's tests, one binary: every seed program and schedule
//! against the reference interpreter on wasmtime and wasmi, host-launched
//! parallel tasks, golden WAT, and robustness on mutated programs.

mod common;
mod fma;

mod golden;
mod parallel;
mod programs;
mod robustness;
