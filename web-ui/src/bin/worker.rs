//! The compiler worker: a Web Worker that owns `compiler-core`. The UI posts
//! [`Request`]s as JSON strings; the worker answers each with one
//! [`Response`]. Compiling off the main thread keeps typing smooth whatever
//! the program; the UI sends at most one request at a time and keeps only
//! the newest pending one, so requests never queue up here.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};
use web_ui::engine;
use web_ui::protocol::{Request, Response};

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
            Ok(req) => post(&handle(req, &now)),
            Err(e) => web_sys::console::warn_1(&format!("worker: bad request: {e}").into()),
        }
    });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
}
