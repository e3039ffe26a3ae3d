//! The core compiler worker, the one a page starts first: the compiler,
//! the reference interpreter, the session driver and the exercise checker,
//! without the code generators. A request that needs a backend is answered
//! with `NeedsBackends`, and the UI moves to the full worker
//! (`src/bin/worker.rs`; see `web_ui::worker_host`). Nothing here may
//! reach `codegen-wasm` or `codegen-wgsl` code, or they are linked in again
//! (the e2e suite checks the first load this worker is part of).

use std::cell::Cell;
use std::rc::Rc;

use web_ui::engine;
use web_ui::protocol::Response;
use web_ui::worker_host::{answer_without_codegen, PerfClock};

fn main() {
    // No panic hook here (the full worker has one): formatting its message
    // costs 2 KB of the first load, and a panic still reaches the page as
    // this worker's error event.
    let needs_codegen = Rc::new(Cell::new(false));
    engine::set_platform(engine::Platform {
        host: Some(Rc::new(PerfClock)),
        // GPU scripts move on too where the full worker can reach WebGPU.
        scripts: Some(engine::deferred_scripts(
            needs_codegen.clone(),
            web_ui::gpu_bridge::possible(),
        )),
        ..engine::Platform::default()
    });
    web_ui::worker_host::serve(move |req, post, now| {
        let resp = match answer_without_codegen(req, now, &needs_codegen) {
            Ok(resp) => resp,
            Err(req) => Response::NeedsBackends { id: req.id() },
        };
        post(&resp);
    });
}
