//! Scripts' GPU kernels on WebGPU. A script runs synchronously in the full
//! worker and WebGPU only answers through promises, which a busy worker
//! never sees resolve. So the full worker starts a second instance of
//! itself, the *bridge* (worker name [`BRIDGE_NAME`]), which owns the
//! WebGPU device. A kernel call posts the compiled kernels as they were
//! built ([`WgslLaunch`], JSON) and the arguments (in a `SharedArrayBuffer`)
//! to the bridge and blocks on `Atomics.wait`; the bridge runs them with
//! [`crate::gpu_rt`], writes the arguments back into the shared buffer and
//! wakes the script with `Atomics.notify`. Nothing is printed, parsed or
//! compiled a second time.
//!
//! Sharing memory needs a cross-origin isolated page (the service worker
//! and `trunk serve` send the headers); without it, or without WebGPU,
//! scripts' GPU builds run on the reference interpreter and say why.
//!
//! The shared buffer of one call, in bytes: a 16-byte header (i32 words:
//! [`STATUS`], [`TEXT_LEN`]), [`TEXT_MAX`] bytes for an error message,
//! one f64 per timed run (seconds), then every argument's little-endian
//! bytes in parameter order.

use std::cell::RefCell;
use std::rc::Rc;

use codegen_wgsl::launch::WgslLaunch;
use codegen_wgsl::source_only::KernelRunner;
use codegen_wgsl::WgslFunc;
use compiler_core::eval::NDArray;
use compiler_core::ir::DataType;
use js_sys::{Atomics, Int32Array, Object, Reflect, SharedArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions};

use crate::cpu_rt::js_err;
use crate::thread_pool::{global, sleep_ms};

/// The bridge worker's name (`self.name` there).
pub const BRIDGE_NAME: &str = "gpu-bridge";

/// Header word: 0 while the bridge works, then [`DONE`] or [`FAILED`].
const STATUS: u32 = 0;
/// Header word: bytes of the error message.
const TEXT_LEN: u32 = 1;
const DONE: i32 = 1;
const FAILED: i32 = 2;
const HEADER: usize = 16;
const TEXT_MAX: usize = 4096;

/// How long a script waits for one kernel call (first run, pipeline
/// compile and timed runs together) before giving up.
const CALL_LIMIT_MS: f64 = 120_000.0;
/// How long the bridge lets one call's GPU work run (a runaway kernel).
const GPU_LIMIT_MS: f64 = 100_000.0;
/// How long the full worker waits for the bridge to report its device.
const START_LIMIT_MS: f64 = 15_000.0;

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn set(obj: &JsValue, key: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(obj, &key.into(), &value.into());
}

/// Whether this worker is the bridge.
pub fn is_bridge() -> bool {
    global("name").as_string().as_deref() == Some(BRIDGE_NAME)
}

// ---------------------------------------------------------------------------
// The script's side (the full worker)

enum Readiness {
    Starting(f64),
    Ready(Rc<BridgeRunner>),
    Unavailable(String),
}

thread_local! {
    static STATE: RefCell<Readiness> =
        RefCell::new(Readiness::Unavailable("the GPU bridge was not started".into()));
}

/// Whether a page like this one can run scripts' kernels on WebGPU (the
/// core worker asks, to send GPU scripts on to the full worker).
pub fn possible() -> Result<(), String> {
    if !global("crossOriginIsolated").as_bool().unwrap_or(false)
        || global("SharedArrayBuffer").is_undefined()
    {
        return Err("a script can wait for WebGPU only on a cross-origin isolated page (reload once the service worker is active)".into());
    }
    let gpu = get(&global("navigator"), "gpu");
    if gpu.is_undefined() || gpu.is_null() {
        return Err("this browser has no WebGPU (navigator.gpu is missing)".into());
    }
    Ok(())
}

/// Starts the bridge worker (call when the full worker starts: a nested
/// worker does not start while its parent is blocked).
pub fn start() {
    let state = match possible().and_then(|()| spawn()) {
        Ok(()) => Readiness::Starting(crate::cpu_rt::perf_now()),
        Err(m) => Readiness::Unavailable(m),
    };
    STATE.with(|s| *s.borrow_mut() = state);
}

fn spawn() -> Result<(), String> {
    let url = get(&global("location"), "href")
        .as_string()
        .ok_or("the worker has no location")?;
    let opts = WorkerOptions::new();
    opts.set_name(BRIDGE_NAME);
    let worker = Worker::new_with_options(&url, &opts).map_err(|e| js_err(&e))?;
    let bridge = worker.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let data = ev.data();
        let state = match get(&data, "adapter").as_string() {
            Some(adapter) => Readiness::Ready(Rc::new(BridgeRunner {
                worker: bridge.clone(),
                adapter,
            })),
            None => Readiness::Unavailable(
                get(&data, "error")
                    .as_string()
                    .unwrap_or_else(|| "the GPU bridge sent an unknown message".into()),
            ),
        };
        STATE.with(|s| *s.borrow_mut() = state);
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(|ev: web_sys::ErrorEvent| {
        let m = format!("the GPU bridge worker failed: {}", ev.message());
        STATE.with(|s| *s.borrow_mut() = Readiness::Unavailable(m));
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Ok(())
}

/// Waits (without blocking) until the bridge has its device or has said
/// why not, at most [`START_LIMIT_MS`].
pub async fn ready() {
    loop {
        let waiting = STATE.with(|s| match &*s.borrow() {
            Readiness::Starting(since) => Some(*since),
            _ => None,
        });
        match waiting {
            None => return,
            Some(since) if crate::cpu_rt::perf_now() - since > START_LIMIT_MS => {
                STATE.with(|s| {
                    *s.borrow_mut() = Readiness::Unavailable(
                        "the GPU bridge did not report a WebGPU device within 15 s".into(),
                    )
                });
                return;
            }
            Some(_) => sleep_ms(20).await,
        }
    }
}

/// The runner scripts' GPU builds use, or why there is none.
pub fn runner() -> Result<Rc<dyn KernelRunner>, String> {
    STATE.with(|s| match &*s.borrow() {
        Readiness::Ready(r) => Ok(r.clone() as Rc<dyn KernelRunner>),
        Readiness::Starting(_) => Err("WebGPU is still starting".into()),
        Readiness::Unavailable(m) => Err(m.clone()),
    })
}

/// Posts kernel calls to the bridge and waits for each.
pub struct BridgeRunner {
    worker: Worker,
    pub adapter: String,
}

impl KernelRunner for BridgeRunner {
    fn run(&self, f: &WgslFunc, args: &mut [NDArray], timed: u32) -> Result<Vec<f64>, String> {
        let launch = serde_json::to_string(&f.launch())
            .map_err(|e| format!("the kernels of `{}` could not be sent: {e}", f.name))?;
        let bytes: Vec<Vec<u8>> = args.iter().map(NDArray::to_le_bytes).collect();
        let times_at = HEADER + TEXT_MAX;
        let args_at = times_at + 8 * timed as usize;
        let total = args_at + bytes.iter().map(Vec::len).sum::<usize>();
        let shared = SharedArrayBuffer::new(total as u32);
        let view = Uint8Array::new(&shared);
        let mut at = args_at;
        for b in &bytes {
            view.subarray(at as u32, (at + b.len()) as u32).copy_from(b);
            at += b.len();
        }
        let metas = js_sys::Array::new();
        for a in args.iter() {
            let m = Object::new();
            set(&m, "dtype", a.dtype().to_string());
            let shape: js_sys::Array = a.shape().iter().map(|&d| JsValue::from(d as f64)).collect();
            set(&m, "shape", shape);
            metas.push(&m);
        }
        let msg = Object::new();
        set(&msg, "launch", launch);
        set(&msg, "args", metas);
        set(&msg, "timed", timed);
        set(&msg, "buffer", shared.clone());
        self.worker.post_message(&msg).map_err(|e| js_err(&e))?;
        let words = Int32Array::new(&shared);
        let waited =
            Atomics::wait_with_timeout(&words, STATUS, 0, CALL_LIMIT_MS).map_err(|e| js_err(&e))?;
        if waited.as_string().as_deref() == Some("timed-out") {
            return Err(format!(
                "WebGPU did not answer within {:.0} s",
                CALL_LIMIT_MS / 1000.0
            ));
        }
        if Atomics::load(&words, STATUS).unwrap_or(0) != DONE {
            let len = (Atomics::load(&words, TEXT_LEN).unwrap_or(0).max(0) as usize).min(TEXT_MAX);
            let mut text = vec![0u8; len];
            view.subarray(HEADER as u32, (HEADER + len) as u32)
                .copy_to(&mut text);
            return Err(String::from_utf8_lossy(&text).into_owned());
        }
        let mut at = args_at;
        for (a, b) in args.iter_mut().zip(&bytes) {
            let mut back = vec![0u8; b.len()];
            view.subarray(at as u32, (at + b.len()) as u32)
                .copy_to(&mut back);
            *a = NDArray::from_le_bytes(a.dtype(), a.shape(), &back).map_err(|e| e.to_string())?;
            at += b.len();
        }
        let times =
            js_sys::Float64Array::new_with_byte_offset_and_length(&shared, times_at as u32, timed);
        Ok(times.to_vec())
    }
}

// ---------------------------------------------------------------------------
// The bridge's side

/// Serves kernel calls (the bridge worker's `main`): reports the device,
/// then answers every call in its shared buffer.
pub fn serve() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let post = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let hello = Object::new();
        match crate::gpu_rt::device().await {
            Ok(g) => set(&hello, "adapter", g.adapter),
            Err(m) => set(&hello, "error", m),
        }
        let _ = post.post_message(&hello);
    });
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|ev: MessageEvent| {
        wasm_bindgen_futures::spawn_local(answer(ev.data()));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
}

async fn answer(msg: JsValue) {
    let Ok(shared) = get(&msg, "buffer").dyn_into::<SharedArrayBuffer>() else {
        return;
    };
    let words = Int32Array::new(&shared);
    let view = Uint8Array::new(&shared);
    let status = match call(&msg, &view).await {
        Ok(()) => DONE,
        Err(m) => {
            let text = m.as_bytes();
            let mut len = text.len().min(TEXT_MAX);
            while !m.is_char_boundary(len) {
                len -= 1;
            }
            view.subarray(HEADER as u32, (HEADER + len) as u32)
                .copy_from(&text[..len]);
            let _ = Atomics::store(&words, TEXT_LEN, len as i32);
            FAILED
        }
    };
    let _ = Atomics::store(&words, STATUS, status);
    let _ = Atomics::notify(&words, STATUS);
}

/// One call: the kernels as the script's worker built them, a run (outputs
/// written back) and the timed runs.
async fn call(msg: &JsValue, view: &Uint8Array) -> Result<(), String> {
    let launch = get(msg, "launch").as_string().ok_or("no kernels")?;
    let launch: WgslLaunch = serde_json::from_str(&launch)
        .map_err(|e| format!("the GPU bridge could not read the kernels: {e}"))?;
    let timed = get(msg, "timed").as_f64().unwrap_or(0.0) as u32;
    let metas: js_sys::Array = get(msg, "args").dyn_into().map_err(|_| "no arguments")?;
    let gpu = crate::gpu_rt::device().await?;
    let times_at = HEADER + TEXT_MAX;
    let args_at = times_at + 8 * timed as usize;
    let mut args = Vec::new();
    let mut spans = Vec::new();
    let mut at = args_at;
    for m in metas.iter() {
        let dtype = get(&m, "dtype").as_string().unwrap_or_default();
        let dtype = DataType::parse(&dtype).ok_or_else(|| format!("unknown dtype `{dtype}`"))?;
        let shape: Vec<usize> = js_sys::Array::from(&get(&m, "shape"))
            .iter()
            .map(|d| d.as_f64().unwrap_or(0.0) as usize)
            .collect();
        let len = shape.iter().product::<usize>() * dtype.bytes();
        let mut bytes = vec![0u8; len];
        view.subarray(at as u32, (at + len) as u32)
            .copy_to(&mut bytes);
        args.push(NDArray::from_le_bytes(dtype, &shape, &bytes).map_err(|e| e.to_string())?);
        spans.push((at, len));
        at += len;
    }
    let device = gpu.clone();
    let work = async move { crate::gpu_rt::run(&device, &launch, &args, timed).await };
    let r = crate::gpu_rt::guarded(&gpu, GPU_LIMIT_MS, work).await?;
    for (a, (at, len)) in r.got.iter().zip(spans) {
        let bytes = a.to_le_bytes();
        if bytes.len() == len {
            view.subarray(at as u32, (at + len) as u32)
                .copy_from(&bytes);
        }
    }
    let times: Vec<f64> = r.times_ms.iter().map(|ms| ms / 1000.0).collect();
    let out = js_sys::Float64Array::new_with_byte_offset_and_length(
        &view.buffer(),
        times_at as u32,
        timed,
    );
    for (i, t) in times.iter().take(timed as usize).enumerate() {
        out.set_index(i as u32, *t);
    }
    Ok(())
}
