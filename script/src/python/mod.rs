//! The Python core: values, the evaluator, built-in functions and methods,
//! operators, formatting, and the NumPy subset. It knows nothing of TVM:
//! the objects a host library adds (tensors, modules, schedules) reach it
//! only through [`host_object::HostObject`] and [`host_object::HostLibrary`].
//!
//! Its submodules call each other the way an interpreter's parts do (the
//! evaluator runs operators, and an operator may call back into Python code
//! through `__add__`); they are one layer.

pub mod builtins;
pub mod dict;
pub mod error;
pub mod fmt;
pub mod host_object;
pub mod interp;
pub mod methods;
pub mod numpy;
pub mod ops;
pub mod source;
pub mod value;
