//! `compiler-core`: Tessel's compiler as its hosts (the CLI, the script
//! runtime, sessions, the tuner, the web UI) see it, one name for its layers:
//!
//! - the TIR base ([`tessel_tir`]: [`ir`], [`arith`], [`analysis`], [`eval`],
//!   [`target`]);
//! - lowering ([`lower`], `tessel-lower`) and schedules ([`schedule`],
//!   `tessel-schedule`), which never use each other;
//! - the front-ends ([`tvmscript`], [`te`], [`graph`], `tessel-frontend`).
//!
//! It holds no code of its own: its tests are the ones that cross layers
//! (schedules checked on parsed TVMScript, the course's programs end to end).
//! The code generators depend on the base and lowering only, not on this.
//! See `ARCHITECTURE.md` at the repository root for the data flow.

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub use tessel_frontend::{graph, te, tvmscript};
pub use tessel_lower as lower;
pub use tessel_schedule as schedule;
pub use tessel_tir::{analysis, arith, diag, eval, ir, syntax, target};
