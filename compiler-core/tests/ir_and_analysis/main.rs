//! compiler-core's tests of the IR and what reads it, one binary: arith,
//! structural equality, regions, the verifier, the TVMScript printer and its
//! goldens, the reference interpreter, and the pipeline fuzz test.
//!
//! Each submodule was its own test binary; the helpers (`arith_util`,
//! `eval_support`, `printer_support`, `verify_support`) are shared modules.

// Helpers.
mod arith_util;
mod eval_support;
mod printer_support;
mod verify_support;

// arith
mod arith_api;
mod arith_iter_map;
mod arith_oracle;
mod arith_proptest;
mod regions;

// analysis: structural equality and the verifier
mod structural_equal;
mod structural_equal_data;
mod structural_equal_located;
mod verify;
mod verify_data;
mod verify_fuzz;

// the TVMScript printer
mod printer_marks;
mod printer_robust;
mod printer_rules;
mod printer_seeds;
mod printer_tvm;
mod tvmscript_golden;

// the reference interpreter
mod eval_ndarray;
mod eval_programs;
mod eval_proptest;
mod eval_script;
mod eval_seeds;
mod eval_semantics;

// the whole pipeline on mutated input
mod pipeline_fuzz;
