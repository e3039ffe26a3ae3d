//! Shared by the playground's two binaries: the UI (`src/main.rs`, main
//! thread) and the compiler worker (`src/bin/worker.rs`).
//!
//! - [`protocol`]: the JSON messages between them.
//! - [`exercise`]: the course exercises' catalogue and checker (worker side).
//! - [`worker_host`]: what the core worker (no code generators, started
//!   first) and the full worker share.
//! - [`engine`]: what the worker does with a script (parse, schedule, step
//!   through the trace, loop nests, regions, runs). Pure Rust over
//!   `compiler-core`, so it also runs natively in tests.
//! - [`cpu_rt`] and [`gpu_rt`] (wasm32 only): the CPU backend's runtime on
//!   the JS `WebAssembly` API and the GPU backend's on WebGPU, used by the
//!   run worker; [`thread_pool`]: the full worker's pool of sub-workers
//!   that runs parallel loops on several cores; [`gpu_bridge`]: the
//!   worker that runs scripts' GPU kernels on WebGPU while the script
//!   waits.
//! - [`memory_picture`]: the memory picture's grids as HTML (full worker).
//! - [`tuning`]: the Tune action (the tuning worker's search, and the
//!   schedule text, progress and plots it sends the page).
//! - The UI's pure parts, here so that they are tested natively too:
//!   [`ir_view`] (clickable IR, schedule code for a click), [`diff`],
//!   [`highlight`], [`share`] (the URL/localStorage state format) and the
//!   [`examples`] gallery.
//! - [`record_store`] (wasm32 only): the tuning records in IndexedDB.
//! - [`capabilities`]: what this device offers (relaxed SIMD, threads,
//!   WebGPU; detected on the page) and the Device panel's table;
//!   [`progress`]: the course progress over every exercise, its table and
//!   its export/import file; [`info_panels`]: the Device and Progress
//!   panels as HTML and the progress file's export and import, in the
//!   full worker.

pub mod capabilities;
#[cfg(target_arch = "wasm32")]
pub mod cpu_rt;
pub mod diff;
pub mod engine;
pub mod examples;
pub mod exercise;
#[cfg(target_arch = "wasm32")]
pub mod gpu_bridge;
#[cfg(target_arch = "wasm32")]
pub mod gpu_rt;
pub mod highlight;
pub mod html;
pub mod info_panels;
pub mod ir_view;
pub mod memory_picture;
pub mod progress;
pub mod protocol;
#[cfg(target_arch = "wasm32")]
pub mod record_store;
pub mod share;
pub mod thread_pool;
pub mod tuning;
pub mod worker_host;
