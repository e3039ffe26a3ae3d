//! The `tvm` package as the Python core sees it: host objects for IR
//! modules, functions, schedules, tensors, runtime modules, tensor
//! expressions and Relax, with their attributes, methods and calls.

pub mod host;
#[cfg(feature = "meta-schedule")]
pub mod meta_schedule;
pub mod meta_schedule_names;
pub mod relax;
pub mod schedule_state;
pub mod te;
pub mod te_schedule;
pub mod tvm;
