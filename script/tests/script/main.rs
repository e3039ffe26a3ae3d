//! The script interpreter's tests, one binary: the course's cells against
//! TVM 0.27's and NumPy's output, the language against CPython, the
//! sandbox's budgets, rich display output, the graph layer and TE in
//! scripts, and a fuzz test.

mod course;
mod display;
mod fuzz;
mod lang;
mod meta_schedule;
mod pygments;
mod relax;
mod sandbox;
mod schedule_state;
mod schedule_testing;
mod support;
mod te;
mod te_schedule;
mod tvm_objects;
