//! The compiler worker: a Web Worker that owns `compiler-core`. The UI posts
//! [`Request`]s as JSON strings; the worker answers each with one
//! [`Response`]. Compiling off the main thread keeps typing smooth whatever
//! the program; the UI sends at most one request at a time and keeps only
//! the newest pending one, so requests never queue up here.

use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use web_ui::engine;
use web_ui::protocol::{Request, Response, RunOutcome};

/// The clock of Python scripts (`time.time()`, `time_evaluator`).
struct PerfClock;

impl compiler_core::target::Host for PerfClock {
    fn now_seconds(&self) -> f64 {
        web_ui::cpu_rt::perf_now() / 1000.0
    }
}

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
    let started = now();
    match req {
        Request::Compile { id, source } => {
            let mut outcome = engine::compile(&source);
            outcome.millis = now() - started;
            Response::Compiled { id, outcome }
        }
        Request::Run {
            id,
            source,
            backend,
            repeats,
        } => Response::Ran {
            id,
            outcome: engine::run(&source, &backend, repeats.clamp(1, 50), now),
        },
        Request::Code {
            id,
            source,
            step,
            backend,
        } => Response::Code {
            id,
            outcome: engine::code(&source, step, &backend),
        },
        Request::Exercises { id } => Response::Exercises {
            id,
            outcome: web_ui::exercise::catalogue(),
        },
        Request::Check {
            id,
            exercise,
            source,
        } => Response::Checked {
            id,
            outcome: web_ui::exercise::check(&exercise, &source, now),
        },
        Request::Regions {
            id,
            source,
            step,
            func,
            loop_index,
            at,
        } => Response::Regions {
            id,
            outcome: engine::regions(&source, step, &func, loop_index, at),
        },
    }
}

fn main() {
    console_error_panic_hook::set_once();
    engine::set_platform(engine::Platform {
        cpu: Some(Rc::new(|| {
            Box::new(web_ui::cpu_rt::BrowserRuntime::new()) as Box<dyn codegen_wasm::Runtime>
        })),
        host: Some(Rc::new(PerfClock)),
    });
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let performance = scope.performance();
    let now = move || performance.as_ref().map_or(0.0, |p| p.now());
    let reply_to = scope.clone();
    let post = move |resp: &Response| {
        if let Ok(text) = serde_json::to_string(resp) {
            let _ = reply_to.post_message(&JsValue::from_str(&text));
        }
    };
    post(&Response::Ready);
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let Some(text) = ev.data().as_string() else {
            return;
        };
        match serde_json::from_str::<Request>(&text) {
            Ok(Request::Run {
                id,
                source,
                backend,
                repeats,
            }) if backend == "webgpu" => {
                let post = post.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let outcome = run_gpu(source, repeats.clamp(1, 50)).await;
                    post(&Response::Ran { id, outcome });
                });
            }
            Ok(req) => post(&handle(req, &now)),
            Err(e) => web_sys::console::warn_1(&format!("worker: bad request: {e}").into()),
        }
    });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
}
