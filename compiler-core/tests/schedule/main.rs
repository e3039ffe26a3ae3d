//! compiler-core's schedule tests, one binary: the primitives against
//! Apache TVM 0.27 case by case (`tests/data/schedule*/`), cache stages,
//! compute_at and friends, rfactor/blockize/tensorize, the trace and its
//! replay, and random schedules that must keep what a program computes.
//!
//! Each submodule was its own test binary; `support` (schedule case files)
//! and `schedule_util` are shared helper modules.

// Helpers.
mod schedule_util;
mod support;

mod schedule_cache;
mod schedule_cases;
mod schedule_compute;
mod schedule_primitive_checks;
mod schedule_proptest;
mod schedule_symbolic;
mod schedule_tensor;
mod schedule_trace;
