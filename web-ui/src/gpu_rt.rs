//! The GPU backend's runtime in the browser: runs a [`WgslLaunch`] on WebGPU
//! from the run worker (`navigator.gpu` exists in dedicated workers).
//!
//! WebGPU is reached through js-sys reflection (see the note in
//! `web-ui/Cargo.toml`: no wgpu, no unstable web-sys cfg). It mirrors
//! codegen-wgsl's native runtime: one storage buffer per tensor parameter
//! and temporary, bound at the bindings the kernel lists, scalar and size
//! parameters packed into the `Params` uniform (4 bytes each, padded to
//! 16), kernels dispatched in order in one command buffer. Times are GPU
//! timestamp queries when the adapter has `timestamp-query`, else the wall
//! clock from submit to `onSubmittedWorkDone`.

use std::cell::RefCell;

use codegen_wgsl::launch::WgslLaunch;
use codegen_wgsl::BindingSource;
use compiler_core::eval::NDArray;
use js_sys::{Array, Function, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::cpu_rt::{js_err, perf_now};

// GPUBufferUsage / GPUMapMode flags.
const MAP_READ: u32 = 0x1;
const COPY_SRC: u32 = 0x4;
const COPY_DST: u32 = 0x8;
const UNIFORM: u32 = 0x40;
const STORAGE: u32 = 0x80;
const QUERY_RESOLVE: u32 = 0x200;

type R<T> = Result<T, String>;

fn get(obj: &JsValue, key: &str) -> R<JsValue> {
    Reflect::get(obj, &JsValue::from_str(key)).map_err(|e| js_err(&e))
}

fn set(obj: &JsValue, key: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), &value.into());
}

/// `obj.method(...args)`, with a JS exception as an error.
fn call(obj: &JsValue, method: &str, args: &[JsValue]) -> R<JsValue> {
    let f: Function = get(obj, method)?
        .dyn_into()
        .map_err(|_| format!("WebGPU: `{method}` is not a function"))?;
    let arr: Array = args.iter().collect();
    f.apply(obj, &arr)
        .map_err(|e| format!("WebGPU {method}: {}", js_err(&e)))
}

async fn wait(p: JsValue) -> R<JsValue> {
    let p: js_sys::Promise = p.dyn_into().map_err(|_| "WebGPU: expected a promise")?;
    JsFuture::from(p).await.map_err(|e| js_err(&e))
}

fn obj() -> Object {
    Object::new()
}

/// A device, requested once per worker.
#[derive(Clone)]
pub struct Gpu {
    device: JsValue,
    queue: JsValue,
    pub timestamps: bool,
    /// Adapter description for the run report.
    pub adapter: String,
    pub limits: codegen_wgsl::GpuLimits,
}

thread_local! {
    static GPU: RefCell<Option<Gpu>> = const { RefCell::new(None) };
}

/// The worker's WebGPU device (requested on first use).
pub async fn device() -> R<Gpu> {
    if let Some(g) = GPU.with(|g| g.borrow().clone()) {
        return Ok(g);
    }
    let nav = get(&js_sys::global(), "navigator")?;
    let gpu = get(&nav, "gpu")?;
    if gpu.is_undefined() || gpu.is_null() {
        return Err("this browser has no WebGPU (navigator.gpu is missing)".into());
    }
    let adapter = wait(call(&gpu, "requestAdapter", &[])?).await?;
    if adapter.is_null() || adapter.is_undefined() {
        return Err("WebGPU has no adapter here (requestAdapter returned null)".into());
    }
    let features = get(&adapter, "features")?;
    let timestamps = call(&features, "has", &["timestamp-query".into()])?
        .as_bool()
        .unwrap_or(false);
    let desc = obj();
    if timestamps {
        let f = Array::new();
        f.push(&"timestamp-query".into());
        set(&desc, "requiredFeatures", f);
    }
    // Ask for the adapter's workgroup limits (the defaults are the spec's
    // minimums, which are also what the kernels were checked against when
    // the adapter offers no more).
    let alimits = get(&adapter, "limits")?;
    let num = |k: &str, d: i64| {
        get(&alimits, k)
            .ok()
            .and_then(|v| v.as_f64())
            .map_or(d, |v| v as i64)
    };
    let d = codegen_wgsl::GpuLimits::default();
    let limits = codegen_wgsl::GpuLimits {
        max_invocations_per_workgroup: num(
            "maxComputeInvocationsPerWorkgroup",
            d.max_invocations_per_workgroup,
        ),
        max_workgroup_size: [
            num("maxComputeWorkgroupSizeX", d.max_workgroup_size[0]),
            num("maxComputeWorkgroupSizeY", d.max_workgroup_size[1]),
            num("maxComputeWorkgroupSizeZ", d.max_workgroup_size[2]),
        ],
        max_workgroup_storage_bytes: num(
            "maxComputeWorkgroupStorageSize",
            d.max_workgroup_storage_bytes,
        ),
        max_workgroups_per_dimension: num(
            "maxComputeWorkgroupsPerDimension",
            d.max_workgroups_per_dimension,
        ),
    };
    let req = obj();
    for (k, v) in [
        (
            "maxComputeInvocationsPerWorkgroup",
            limits.max_invocations_per_workgroup,
        ),
        ("maxComputeWorkgroupSizeX", limits.max_workgroup_size[0]),
        ("maxComputeWorkgroupSizeY", limits.max_workgroup_size[1]),
        ("maxComputeWorkgroupSizeZ", limits.max_workgroup_size[2]),
        (
            "maxComputeWorkgroupStorageSize",
            limits.max_workgroup_storage_bytes,
        ),
    ] {
        set(&req, k, v as f64);
    }
    set(&desc, "requiredLimits", req);
    let device = wait(call(&adapter, "requestDevice", &[desc.into()])?).await?;
    let queue = get(&device, "queue")?;
    let info = get(&adapter, "info").unwrap_or(JsValue::UNDEFINED);
    let field = |k: &str| {
        get(&info, k)
            .ok()
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty())
    };
    let fallback = get(&info, "isFallbackAdapter")
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let mut adapter_name = [field("vendor"), field("architecture"), field("description")]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    if adapter_name.is_empty() {
        adapter_name = "WebGPU adapter".into();
    }
    if fallback {
        adapter_name.push_str(" (fallback adapter)");
    }
    let g = Gpu {
        device,
        queue,
        timestamps,
        adapter: adapter_name,
        limits,
    };
    GPU.with(|c| *c.borrow_mut() = Some(g.clone()));
    Ok(g)
}

fn buffer(dev: &JsValue, size: u64, usage: u32) -> R<JsValue> {
    let d = obj();
    set(&d, "size", (size.max(4).div_ceil(4) * 4) as f64);
    set(&d, "usage", usage);
    call(dev, "createBuffer", &[d.into()])
}

fn write(queue: &JsValue, buf: &JsValue, bytes: &[u8]) -> R<()> {
    let mut b = bytes.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    call(
        queue,
        "writeBuffer",
        &[
            buf.clone(),
            JsValue::from(0),
            Uint8Array::from(b.as_slice()).into(),
        ],
    )?;
    Ok(())
}

async fn read(dev: &JsValue, queue: &JsValue, src: &JsValue, size: u64) -> R<Vec<u8>> {
    let size = size.max(4).div_ceil(4) * 4;
    let staging = buffer(dev, size, MAP_READ | COPY_DST)?;
    let enc = call(dev, "createCommandEncoder", &[])?;
    call(
        &enc,
        "copyBufferToBuffer",
        &[
            src.clone(),
            0.into(),
            staging.clone(),
            0.into(),
            (size as f64).into(),
        ],
    )?;
    let cmd = call(&enc, "finish", &[])?;
    call(queue, "submit", &[Array::of1(&cmd).into()])?;
    wait(call(&staging, "mapAsync", &[MAP_READ.into()])?).await?;
    let range = call(&staging, "getMappedRange", &[])?;
    let bytes = Uint8Array::new(&range).to_vec();
    call(&staging, "unmap", &[])?;
    call(&staging, "destroy", &[])?;
    Ok(bytes)
}

/// The result of a GPU run.
pub struct GpuRun {
    /// The arguments after the first run (outputs written).
    pub got: Vec<NDArray>,
    /// Milliseconds per timed run.
    pub times_ms: Vec<f64>,
    /// Milliseconds per timed run by the worker's clock, submit to done
    /// (the same runs as `times_ms`, whatever timed those).
    pub wall_ms: Vec<f64>,
    /// Whether `times_ms` are GPU timestamps.
    pub gpu_timed: bool,
    /// Pipeline creation (shader compile) in milliseconds.
    pub compile_ms: f64,
    pub timing: String,
}

/// Runs `f` once on `args` (outputs read back), then `repeats` more times
/// for the timing. WebGPU validation and out-of-memory errors of the whole
/// run are caught in error scopes and reported.
pub async fn run(g: &Gpu, f: &WgslLaunch, args: &[NDArray], repeats: u32) -> R<GpuRun> {
    let dev = &g.device;
    call(dev, "pushErrorScope", &["validation".into()])?;
    call(dev, "pushErrorScope", &["out-of-memory".into()])?;
    let r = run_in_scope(g, f, args, repeats).await;
    let oom = wait(call(dev, "popErrorScope", &[])?).await?;
    let invalid = wait(call(dev, "popErrorScope", &[])?).await?;
    for e in [invalid, oom] {
        if !e.is_null() && !e.is_undefined() {
            let msg = get(&e, "message")
                .ok()
                .and_then(|m| m.as_string())
                .unwrap_or_default();
            return Err(format!("WebGPU error: {msg}"));
        }
    }
    r
}

async fn run_in_scope(g: &Gpu, f: &WgslLaunch, args: &[NDArray], repeats: u32) -> R<GpuRun> {
    let dev = &g.device;
    let queue = &g.queue;
    if args.len() != f.buffer_params.len() {
        return Err(format!(
            "{} takes {} arguments",
            f.name,
            f.buffer_params.len()
        ));
    }
    let (bufs, temps) = upload_arguments(dev, queue, f, args)?;
    let ubytes = f.uniform_bytes(args);
    let ubuf = buffer(dev, ubytes.len() as u64, UNIFORM | COPY_DST)?;
    write(queue, &ubuf, &ubytes)?;

    // Pipelines and bind groups.
    let t0 = perf_now();
    let passes = create_passes(dev, f, &bufs, &temps, &ubuf).await?;
    let compile_ms = perf_now() - t0;

    let n = f.kernels.len() as u32;
    let queries = if g.timestamps && n > 0 {
        let qd = obj();
        set(&qd, "type", "timestamp");
        set(&qd, "count", 2 * n);
        let set_ = call(dev, "createQuerySet", &[qd.into()])?;
        let resolve = buffer(dev, 16 * n as u64, QUERY_RESOLVE | COPY_SRC)?;
        Some((set_, resolve))
    } else {
        None
    };
    // One submission: every kernel in order (with timestamps when we have them).
    let submit = |with_queries: bool| -> R<()> {
        let enc = call(dev, "createCommandEncoder", &[])?;
        for (i, (pipeline, bind, d)) in passes.iter().enumerate() {
            let pd = obj();
            if let (true, Some((qs, _))) = (with_queries, &queries) {
                let tw = obj();
                set(&tw, "querySet", qs.clone());
                set(&tw, "beginningOfPassWriteIndex", 2 * i as u32);
                set(&tw, "endOfPassWriteIndex", 2 * i as u32 + 1);
                set(&pd, "timestampWrites", tw);
            }
            let pass = call(&enc, "beginComputePass", &[pd.into()])?;
            call(&pass, "setPipeline", std::slice::from_ref(pipeline))?;
            call(&pass, "setBindGroup", &[0.into(), bind.clone()])?;
            call(
                &pass,
                "dispatchWorkgroups",
                &[d[0].into(), d[1].into(), d[2].into()],
            )?;
            call(&pass, "end", &[])?;
        }
        if let (true, Some((qs, resolve))) = (with_queries, &queries) {
            call(
                &enc,
                "resolveQuerySet",
                &[
                    qs.clone(),
                    0.into(),
                    (2 * n).into(),
                    resolve.clone(),
                    0.into(),
                ],
            )?;
        }
        let cmd = call(&enc, "finish", &[])?;
        call(queue, "submit", &[Array::of1(&cmd).into()])?;
        Ok(())
    };

    // The run whose outputs are compared.
    submit(false)?;
    let got = read_outputs(dev, queue, f, args, &bufs).await?;

    // Timed runs.
    let mut times_ms = Vec::new();
    let mut gpu_times = Vec::new();
    for _ in 0..repeats.max(1) {
        let t0 = perf_now();
        submit(true)?;
        wait(call(queue, "onSubmittedWorkDone", &[])?).await?;
        times_ms.push(perf_now() - t0);
        if let Some((_, resolve)) = &queries {
            let bytes = read(dev, queue, resolve, 16 * n as u64).await?;
            let ts: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                .collect();
            let ns: u64 = (0..n as usize)
                .map(|k| ts[2 * k + 1].saturating_sub(ts[2 * k]))
                .sum();
            gpu_times.push(ns as f64 / 1e6);
        }
    }
    for b in bufs.iter().flatten() {
        let _ = call(&b.0, "destroy", &[]);
    }
    for b in temps.iter().chain([&ubuf]) {
        let _ = call(b, "destroy", &[]);
    }
    // Browsers quantize timestamps (Chrome to 100 µs): a kernel shorter
    // than that reads as 0, so fall back to the wall clock then.
    let wall_ms = times_ms.clone();
    let gpu_timed = !gpu_times.is_empty() && gpu_times.iter().all(|&t| t > 0.0);
    let timing = if gpu_timed {
        times_ms = gpu_times;
        format!("GPU timestamp queries on {}", g.adapter)
    } else {
        wall_clock_timing(g)
    };
    Ok(GpuRun {
        got,
        times_ms,
        wall_ms,
        gpu_timed,
        compile_ms,
        timing,
    })
}

/// The argument buffers (one per tensor parameter; `None` for scalars) with
/// the arguments written in, and the kernels' temporary buffers.
#[allow(clippy::type_complexity)]
fn upload_arguments(
    dev: &JsValue,
    queue: &JsValue,
    f: &WgslLaunch,
    args: &[NDArray],
) -> R<(Vec<Option<(JsValue, u64)>>, Vec<JsValue>)> {
    let mut bufs: Vec<Option<(JsValue, u64)>> = Vec::new();
    for (arg, &is_buffer) in args.iter().zip(&f.buffer_params) {
        if !is_buffer {
            bufs.push(None);
            continue;
        }
        let bytes = arg.to_le_bytes();
        let b = buffer(dev, bytes.len() as u64, STORAGE | COPY_SRC | COPY_DST)?;
        write(queue, &b, &bytes)?;
        bufs.push(Some((b, bytes.len() as u64)));
    }
    let mut temps = Vec::new();
    for &bytes in &f.temp_bytes {
        temps.push(buffer(dev, bytes, STORAGE | COPY_SRC | COPY_DST)?);
    }
    Ok((bufs, temps))
}

/// One compute pass per kernel: its pipeline, bind group and dispatch size.
async fn create_passes(
    dev: &JsValue,
    f: &WgslLaunch,
    bufs: &[Option<(JsValue, u64)>],
    temps: &[JsValue],
    ubuf: &JsValue,
) -> R<Vec<(JsValue, JsValue, [u32; 3])>> {
    let mut passes = Vec::new();
    for k in &f.kernels {
        let d = obj();
        set(&d, "code", k.source.as_str());
        set(&d, "label", k.name.as_str());
        let module = call(dev, "createShaderModule", &[d.into()])?;
        let stage = obj();
        set(&stage, "module", module);
        set(&stage, "entryPoint", k.name.as_str());
        let pd = obj();
        set(&pd, "layout", "auto");
        set(&pd, "compute", stage);
        let pipeline = wait(call(dev, "createComputePipelineAsync", &[pd.into()])?)
            .await
            .map_err(|e| format!("kernel {}: {e}", k.name))?;
        let entries = Array::new();
        for b in &k.storage {
            let buf = match b.source {
                BindingSource::Param(i) => bufs[i]
                    .as_ref()
                    .map(|(b, _)| b.clone())
                    .ok_or_else(|| format!("parameter {i} is not a tensor"))?,
                BindingSource::Temp(i) => temps[i].clone(),
            };
            let e = obj();
            set(&e, "binding", b.binding);
            let r = obj();
            set(&r, "buffer", buf);
            set(&e, "resource", r);
            entries.push(&e);
        }
        if let Some(b) = k.params_binding {
            let e = obj();
            set(&e, "binding", b);
            let r = obj();
            set(&r, "buffer", ubuf.clone());
            set(&e, "resource", r);
            entries.push(&e);
        }
        let layout = call(&pipeline, "getBindGroupLayout", &[0.into()])?;
        let bd = obj();
        set(&bd, "layout", layout);
        set(&bd, "entries", entries);
        let bind = call(dev, "createBindGroup", &[bd.into()])?;
        passes.push((pipeline, bind, k.dispatch));
    }
    Ok(passes)
}

/// The arguments after a run: the buffers a kernel writes read back.
async fn read_outputs(
    dev: &JsValue,
    queue: &JsValue,
    f: &WgslLaunch,
    args: &[NDArray],
    bufs: &[Option<(JsValue, u64)>],
) -> R<Vec<NDArray>> {
    let mut got = args.to_vec();
    for (i, b) in bufs.iter().enumerate() {
        let Some((b, size)) = b else { continue };
        let written = f.kernels.iter().any(|k| {
            k.storage
                .iter()
                .any(|s| s.read_write && s.source == BindingSource::Param(i))
        });
        if !written {
            continue;
        }
        let bytes = read(dev, queue, b, *size).await?;
        let a = &args[i];
        let len = a.len() * a.dtype().bytes();
        got[i] = NDArray::from_le_bytes(a.dtype(), a.shape(), &bytes[..len])?;
    }
    Ok(got)
}

/// How a run without usable timestamps was timed, and why.
fn wall_clock_timing(g: &Gpu) -> String {
    if g.timestamps {
        format!(
            "wall clock, submit to onSubmittedWorkDone, on {} (timestamp queries read 0: the browser quantizes them)",
            g.adapter
        )
    } else {
        format!(
            "wall clock, submit to onSubmittedWorkDone, on {} (no timestamp-query)",
            g.adapter
        )
    }
}

/// Forgets the worker's device (lost or stuck): the next use requests a
/// new one.
fn forget_device(g: &Gpu) {
    let _ = call(&g.device, "destroy", &[]);
    GPU.with(|c| *c.borrow_mut() = None);
}

/// A promise that resolves with `value` after `ms` milliseconds.
fn after(ms: f64, value: &str) -> js_sys::Promise {
    let value = JsValue::from_str(value);
    js_sys::Promise::new(&mut |resolve, _| {
        // setTimeout(f, ms, arg) calls f(arg).
        let _ = call(
            &js_sys::global(),
            "setTimeout",
            &[resolve.into(), JsValue::from(ms), value.clone()],
        );
    })
}

/// `work` on `g`, or an error once `limit_ms` pass or the device is lost
/// first; then the device is dropped so the next use starts afresh. So a
/// stuck or lost GPU fails the caller instead of leaving it waiting.
pub async fn guarded<T: 'static>(
    g: &Gpu,
    limit_ms: f64,
    work: impl std::future::Future<Output = R<T>> + 'static,
) -> R<T> {
    let slot: std::rc::Rc<RefCell<Option<R<T>>>> = Default::default();
    let fill = slot.clone();
    let done = wasm_bindgen_futures::future_to_promise(async move {
        let r = work.await;
        *fill.borrow_mut() = Some(r);
        Ok(JsValue::from_str("done"))
    });
    // Resolves with a GPUDeviceLostInfo.
    let lost = get(&g.device, "lost")
        .ok()
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
    let racers = Array::new();
    racers.push(&done);
    racers.push(&after(limit_ms, "timeout"));
    if let Some(lost) = &lost {
        racers.push(lost);
    }
    let winner = JsFuture::from(js_sys::Promise::race(&racers))
        .await
        .map_err(|e| js_err(&e))?;
    if let Some(r) = slot.borrow_mut().take() {
        return r;
    }
    forget_device(g);
    if winner.as_string().as_deref() == Some("timeout") {
        return Err(format!(
            "WebGPU did not finish within {:.0} s",
            limit_ms / 1000.0
        ));
    }
    let field = |k: &str| {
        get(&winner, k)
            .ok()
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty())
    };
    let why = [field("reason"), field("message")]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(": ");
    Err(if why.is_empty() {
        "the WebGPU device was lost".to_string()
    } else {
        format!("the WebGPU device was lost ({why})")
    })
}
