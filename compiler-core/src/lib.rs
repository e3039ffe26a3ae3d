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
pub mod diag;
pub mod eval;
pub mod graph;
pub mod ir;
pub mod schedule;
pub mod script;
pub mod syntax;
pub mod te;
pub mod tvmscript;
