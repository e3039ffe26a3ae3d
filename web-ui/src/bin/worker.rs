//! The full compiler worker: the core worker's work plus the code
//! generators (runs on the CPU and GPU backends, generated code, scripts'
//! `tvm.build` on the CPU). The page starts it when a backend is first
//! needed (see `web_ui::worker_host`).
//!
//! A Web Worker that owns `compiler-core`. The UI posts
//! [`Request`]s as JSON strings; the worker answers each with one
//! [`Response`]. Compiling off the main thread keeps typing smooth whatever
//! the program; the UI sends at most one request at a time and keeps only
//! the newest pending one, so requests never queue up here.

use std::cell::Cell;
use std::rc::Rc;

use web_ui::engine;
use web_ui::protocol::{Request, Response, RunOutcome};
use web_ui::worker_host::{BackendRequest, PerfClock};

/// A GPU run: WebGPU is asynchronous, so this one replies later.
async fn run_gpu(source: String, repeats: u32) -> RunOutcome {
    let now = web_ui::cpu_rt::perf_now;
    let mut setup = match engine::prepare_run(&source, "webgpu", &now) {
        Ok(s) => s,
        Err(out) => return out,
    };
    let fail = |mut setup: engine::RunSetup, m: String| {
        setup.out.ok = false;
        setup.out.message = m;
        setup.out
    };
    let gpu = match web_ui::gpu_rt::device().await {
        Ok(g) => g,
        Err(m) => return fail(setup, m),
    };
    let t0 = now();
    let w = match engine::build_gpu(&mut setup, &gpu.limits) {
        Ok(w) => w,
        Err(m) => return fail(setup, m),
    };
    let codegen_ms = now() - t0;
    match web_ui::gpu_rt::run(&gpu, &w, &setup.plan.inputs, repeats).await {
        Ok(r) => {
            setup.out.times_ms = r.times_ms;
            setup.out.compile_ms = Some(codegen_ms + r.compile_ms);
            setup.out.timing = r.timing;
            engine::finish_run(setup, &r.got)
        }
        Err(m) => fail(setup, m),
    }
}

fn handle(req: Request, now: &dyn Fn() -> f64) -> Response {
    match web_ui::worker_host::answer_without_codegen(req, now, &Cell::new(false)) {
        Ok(resp) => resp,
        Err(BackendRequest::Run {
            id,
            source,
            backend,
            repeats,
        }) => Response::Ran {
            id,
            outcome: engine::run(&source, &backend, repeats.clamp(1, 50), now),
        },
        Err(BackendRequest::Code {
            id,
            source,
            step,
            backend,
        }) => Response::Code {
            id,
            outcome: engine::code(&source, step, &backend),
        },
    }
}

fn main() {
    console_error_panic_hook::set_once();
    engine::set_platform(engine::Platform::with_codegen(
        Some(Rc::new(|| {
            Box::new(web_ui::cpu_rt::BrowserRuntime::new()) as Box<dyn codegen_wasm::Runtime>
        })),
        Some(Rc::new(PerfClock)),
    ));
    web_ui::worker_host::serve(|req, post, now| match req {
        Request::Run {
            id,
            source,
            backend,
            repeats,
        } if backend == "webgpu" => {
            wasm_bindgen_futures::spawn_local(async move {
                let outcome = run_gpu(source, repeats.clamp(1, 50)).await;
                post(&Response::Ran { id, outcome });
            });
        }
        req => post(&handle(req, now)),
    });
}
