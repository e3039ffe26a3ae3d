//! `tessel-tir`: the base layer of Tessel's compiler, everything about a
//! TensorIR program that neither transforms it nor depends on a machine.
//!
//! - [`arith`]: the integer analyzer (bounds, simplification, iterator maps);
//! - [`analysis`]: regions, dependences, verification, structural equality;
//! - [`eval`]: the reference interpreter every transformation is checked by;
//! - [`target`]: targets and the backend interface code generators implement.
//!
//! The IR itself ([`ir`]) and diagnostics ([`diag`]) are re-exported so the
//! layers above name one crate for the base.
//!
//! Invariant: pure. It never touches a file system, a clock or a thread, so it
//! builds for `wasm32-unknown-unknown` and runs the same in the browser and
//! natively. See `ARCHITECTURE.md` at the repository root for the layers.

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod analysis;
pub mod arith;
pub use tessel_syntax::diag;
pub mod eval;
pub use tessel_ir as ir;
pub use tessel_syntax as syntax;
pub mod target;
