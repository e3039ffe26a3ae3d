//! `compiler-core`: everything Tessel knows about tensor programs that does not
//! depend on a particular machine.
//!
//! Invariant: this crate is pure. It never touches a file system, a clock or a
//! thread, so that it builds for `wasm32-unknown-unknown` and runs the same in
//! the browser and natively. Hosts (the CLI, the web UI) pass such things in.
//!
//! See `ARCHITECTURE.md` at the repository root for the data flow.

pub mod analysis;
pub mod arith;
pub use tessel_syntax::diag;
pub mod eval;
pub mod graph;
pub use tessel_ir as ir;
pub mod lower;
pub mod schedule;
pub use tessel_syntax as syntax;
pub mod target;
pub mod te;
pub mod tvmscript;
