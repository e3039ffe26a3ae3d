//! `tessel-frontend`: the ways a program enters Tessel's compiler.
//!
//! - [`tvmscript`]: TVMScript (TIR and Relax) parsed and built into IR;
//! - [`te`]: tensor expressions, the topi subset and legacy TE schedules;
//! - [`graph`]: the Relax-like graph layer (BlockBuilder, passes, VM).
//!
//! Invariant: pure, like the layers below it (see `ARCHITECTURE.md`).

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod graph;
pub mod te;
pub mod tvmscript;
