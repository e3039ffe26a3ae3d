//! Shared by the playground's two binaries: the UI (`src/main.rs`, main
//! thread) and the compiler worker (`src/bin/worker.rs`).
//!
//! - [`protocol`]: the JSON messages between them.
//! - [`engine`]: what the worker does with a script (parse, schedule, step
//!   through the trace, loop nests, regions, runs). Pure Rust over
//!   `compiler-core`, so it also runs natively in tests.

pub mod engine;
pub mod examples;
pub mod protocol;
