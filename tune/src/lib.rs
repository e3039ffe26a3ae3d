//! Tessel's auto-tuner: MetaSchedule's `tune_tir`, re-created.
//!
//! Pure (no files, threads or clocks): measuring goes through
//! `compiler_core::target::Backend`/`Executable` and the host's clock; the
//! database is in memory and (de)serialises to TVM's JSON-lines shape, for
//! the host to store.
//!
//! The parts, in the order a search uses them: a [`Workload`] (one PrimFunc
//! and its key) for a [`TuneTarget`]; design spaces from a
//! [`SpaceGenerator`] (the user's schedule function, or schedule
//! [`rules`] applied post-order); candidates replayed from them and fixed up
//! by [`postproc`]s; [`mutator`]s and the evolutionary [`search`] guided by
//! a [`cost_model`] over [`features`] of the lowered program; a [`runner`]
//! that builds, checks and times candidates; the [`database`] of records.
//!
//! [`TuneSession`] drives a search step by step (`next_batch` → measure →
//! `report`), so a host can measure asynchronously (a web worker);
//! [`tune`] runs the whole loop with a [`Runner`].

// A panic in WebAssembly kills the page: library code returns typed errors (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod cost_model;
pub mod database;
pub mod error;
pub mod features;
pub mod mutator;
pub mod postproc;
pub mod rules;
pub mod runner;
pub mod search;
pub mod space;
pub mod target;
pub mod tune;
pub mod workload;

pub use database::{Database, TuningRecord};
pub use error::TuneError;
pub use runner::{MeasureResult, Runner};
pub use search::{Candidate, SearchConfig, TuneSession};
pub use space::{ScheduleFn, SpaceGenerator};
pub use target::TuneTarget;
pub use tune::{tune, TuneReport};
pub use workload::Workload;
