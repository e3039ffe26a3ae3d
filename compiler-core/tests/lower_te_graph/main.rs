//! compiler-core's tests of the layers above schedules, one binary:
//! lowering, tensor expressions (`te.create_prim_func` against TVM 0.27 and
//! numerically), and the graph level (inference, printing, passes, VM).
//!
//! Each submodule was its own test binary; `te_support` and `te_cases` are
//! shared helper modules, and `printer_support` is the IR-building helper
//! of the `ir_and_analysis` binary.

// Helpers.
#[path = "../ir_and_analysis/printer_support.rs"]
mod printer_support;
mod te_cases;
mod te_support;

// lowering
mod lower;

// tensor expressions
mod te_api;
mod te_create;
mod te_legacy_schedule;
mod te_numerics;

// the graph level
mod graph_infer;
mod graph_passes;
mod graph_print;
mod graph_vm;
