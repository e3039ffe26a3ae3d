//! The full compiler worker: the core worker's work plus the code
//! generators (runs on the CPU and GPU backends, generated code, scripts'
//! `tvm.build` on the CPU, and on WebGPU through its GPU bridge, a second
//! instance of this worker: `web_ui::gpu_bridge`). The page starts it when a backend is first
//! needed (see `web_ui::worker_host`).
//!
//! A Web Worker that owns `compiler-core`. The UI posts
//! [`Request`]s as JSON strings; the worker answers each with one
//! [`Response`]. Compiling off the main thread keeps typing smooth whatever
//! the program; the UI sends at most one request at a time and keeps only
//! the newest pending one, so requests never queue up here.

use std::cell::Cell;
use std::rc::Rc;

use tessel_session::LiveSession;
use web_ui::engine;
use web_ui::protocol::{Request, Response, RunOutcome};
use web_ui::worker_host::{BackendRequest, PerfClock};

/// A GPU run: WebGPU is asynchronous, so this one replies later.
async fn run_gpu(live: Rc<LiveSession>, repeats: u32) -> RunOutcome {
    let now = web_ui::cpu_rt::perf_now;
    let mut setup = match engine::prepare_run(&live, "webgpu", &now) {
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
    match web_ui::gpu_rt::run(&gpu, &w.launch(), &setup.plan.inputs, repeats).await {
        Ok(r) => {
            setup.out.times_ms = r.times_ms;
            setup.out.compile_ms = Some(codegen_ms + r.compile_ms);
            setup.out.timing = r.timing;
            engine::finish_run(setup, &r.got)
        }
        Err(m) => fail(setup, m),
    }
}

/// How long timing an exercise's GPU code may take before the check
/// gives up on the device.
const SPEED_LIMIT_MS: f64 = 60_000.0;

/// A check whose GPU speed checks are timed on WebGPU: the rest of the
/// verdict is synchronous, the timing replies later.
async fn check_with_gpu(
    id: String,
    definition: String,
    source: String,
) -> web_ui::protocol::CheckOutcome {
    use tessel_session::exercise::SpeedError;
    let now = web_ui::cpu_rt::perf_now;
    let begun = match web_ui::exercise::begin(&id, &definition, &source, &now) {
        Ok(b) => b,
        Err(out) => return out,
    };
    if begun.pending.is_empty() {
        return web_ui::exercise::finish(begun, Vec::new(), None, &now);
    }
    let gpu = match web_ui::gpu_rt::device().await {
        Ok(g) => g,
        Err(m) => {
            let skipped = begun
                .pending
                .iter()
                .map(|_| Err(SpeedError::Unavailable(m.clone())))
                .collect();
            return web_ui::exercise::finish(begun, skipped, None, &now);
        }
    };
    let mut measured = Vec::new();
    let mut timing = None;
    for p in &begun.pending {
        let work =
            web_ui::gpu_rt::guarded(&gpu, SPEED_LIMIT_MS, time_speed(gpu.clone(), p.clone()));
        match work.await {
            Ok((times, how)) => {
                measured.push(times);
                timing = timing.or(how);
            }
            Err(m) => measured.push(Err(SpeedError::Device(m))),
        }
    }
    web_ui::exercise::finish(begun, measured, timing, &now)
}

/// Times a pending speed check on WebGPU: baseline and answer one after
/// the other, `runs` times (the native checker's order), and how they were
/// timed. Every run uses one clock: the GPU's timestamps when each run had
/// them, else the worker's clock around each submission.
async fn time_speed(
    gpu: web_ui::gpu_rt::Gpu,
    p: tessel_session::exercise::PendingSpeed,
) -> Result<
    (
        Result<tessel_session::exercise::SpeedTimes, tessel_session::exercise::SpeedError>,
        Option<String>,
    ),
    String,
> {
    use tessel_session::exercise::{SpeedError, SpeedTimes};
    let (baseline, student) = match web_ui::exercise::gpu_kernels(&p, &gpu.limits) {
        Ok(k) => k,
        Err(e) => return Ok((Err(e), None)),
    };
    let mut runs = Vec::new();
    for _ in 0..p.runs.max(1) {
        let b = match web_ui::gpu_rt::run(&gpu, &baseline.launch(), &p.inputs, 1).await {
            Ok(r) => r,
            Err(m) => return Ok((Err(SpeedError::BaselineRun(m)), None)),
        };
        let s = match web_ui::gpu_rt::run(&gpu, &student.launch(), &p.inputs, 1).await {
            Ok(r) => r,
            Err(m) => return Ok((Err(SpeedError::StudentRun(m)), None)),
        };
        runs.push((b, s));
    }
    let on_gpu = runs.iter().all(|(b, s)| b.gpu_timed && s.gpu_timed);
    let seconds = |r: &web_ui::gpu_rt::GpuRun| {
        let ms = if on_gpu { &r.times_ms } else { &r.wall_ms };
        ms.first().copied().unwrap_or(0.0) / 1000.0
    };
    let times = SpeedTimes {
        baseline: runs.iter().map(|(b, _)| seconds(b)).collect(),
        student: runs.iter().map(|(_, s)| seconds(s)).collect(),
    };
    let how = runs
        .iter()
        .flat_map(|(b, s)| [b, s])
        .find(|r| r.gpu_timed == on_gpu)
        .map(|r| r.timing.clone());
    Ok((Ok(times), how))
}

/// Answers a request that needs the code generators (a run on WebGPU is
/// asynchronous: it replies through `post` later).
fn answer_with_codegen(req: BackendRequest, post: Rc<dyn Fn(&Response)>, now: &dyn Fn() -> f64) {
    let resp = match req {
        BackendRequest::Run {
            id,
            live,
            backend,
            repeats,
        } if backend == "webgpu" => {
            wasm_bindgen_futures::spawn_local(async move {
                let outcome = run_gpu(live, repeats.clamp(1, 50)).await;
                post(&Response::Ran { id, outcome });
            });
            return;
        }
        BackendRequest::Run {
            id,
            live,
            backend,
            repeats,
        } => Response::Ran {
            id,
            outcome: engine::run(&live, &backend, repeats.clamp(1, 50), now),
        },
        BackendRequest::Code {
            id,
            live,
            step,
            backend,
        } => Response::Code {
            id,
            outcome: engine::code(&live, step, &backend),
        },
        BackendRequest::MemoryAccess {
            id,
            live,
            step,
            func,
            unit,
            loop_index,
            at,
            playing,
        } => Response::MemoryAccess {
            id,
            outcome: serde_json::to_string(&engine::memory_access(
                &live, step, &func, &unit, loop_index, at, playing,
            ))
            .unwrap_or_default(),
        },
        BackendRequest::Panel { id, ask } => Response::Panel {
            id,
            outcome: serde_json::to_string(&web_ui::info_panels::answer(&ask)).unwrap_or_default(),
        },
        // Many replies, one after each measured candidate.
        BackendRequest::Tune { id, live, job } => {
            tune(id, &live, &job, post);
            return;
        }
    };
    post(&resp);
}

/// A tuning, in the page's tuning worker (a second full worker, so typing
/// and Run stay with the others): candidates built by the CPU backend and
/// run on this browser's `WebAssembly`, as Run does; an update after each.
fn tune(id: u64, live: &LiveSession, job: &str, post: Rc<dyn Fn(&Response)>) {
    let mut send = move |update: web_ui::tuning::TuneUpdate| {
        post(&Response::Tuning {
            id,
            update: serde_json::to_string(&update).unwrap_or_default(),
        })
    };
    let job = serde_json::from_str::<web_ui::tuning::TuneSpec>(job)
        .map_err(|e| format!("bad tuning request: {e}"))
        .and_then(|spec| {
            web_ui::tuning::TuneJob::new(
                live,
                &spec.target,
                spec.trials,
                &web_ui::tuning::split_stored(&spec.stored),
            )
        });
    let job = match job {
        Ok(job) => job,
        Err(e) => {
            send(web_ui::tuning::TuneUpdate {
                finished: true,
                error: Some(e),
                ..Default::default()
            });
            return;
        }
    };
    if job.target_choice() == "webgpu" {
        wasm_bindgen_futures::spawn_local(tune_gpu(job, send));
        return;
    }
    let mut backend = codegen_wasm::backend::WasmBackend::with_runtime(Rc::new(|| {
        Box::new(web_ui::cpu_rt::BrowserRuntime::new()) as Box<dyn codegen_wasm::Runtime>
    }));
    backend.relaxed_simd = web_ui::cpu_rt::engine_has_relaxed_simd();
    job.run(&backend, &PerfClock, &web_ui::cpu_rt::perf_now, &mut send);
}

/// A candidate that runs longer than this fails (the tuner's runner limit;
/// the device is dropped and the next candidate starts on a fresh one).
const TUNE_RUN_LIMIT_MS: f64 = 10_000.0;

/// Timed runs per GPU candidate (after the first, checked one).
const TUNE_GPU_REPEATS: u32 = 3;

/// A tuning on this browser's WebGPU adapter: the same search as on the
/// CPU, each candidate built by the GPU backend and run through WebGPU
/// (asynchronous, so measured here rather than by the tuner's runner, by
/// its rules: a first run whose outputs are checked when it would be the
/// new best, then timed runs; GPU timestamps where the adapter has them).
async fn tune_gpu(
    mut job: web_ui::tuning::TuneJob,
    mut send: impl FnMut(web_ui::tuning::TuneUpdate),
) {
    use tessel_tune::MeasureResult;
    use web_ui::tuning::GpuCheck;
    let now = web_ui::cpu_rt::perf_now;
    let started = now();
    let elapsed = || (now() - started) / 1000.0;
    let fail = |job: &mut web_ui::tuning::TuneJob, why: String| {
        let mut u = job.begin(elapsed());
        u.finished = true;
        u.error = Some(why);
        u
    };
    let gpu = match web_ui::gpu_rt::device().await {
        Ok(g) => g,
        Err(m) => return send(fail(&mut job, format!("no WebGPU device: {m}"))),
    };
    let mut check = match GpuCheck::new(job.workload()) {
        Ok(c) => c,
        Err(m) => return send(fail(&mut job, m)),
    };
    let name = job.workload().func_name.clone();
    let build = |gpu: &web_ui::gpu_rt::Gpu, module: &compiler_core::ir::IRModule| {
        let func = module
            .get_prim(&name)
            .ok_or("the candidate has no function")?;
        codegen_wgsl::build_func(&name, func, &gpu.limits)
            .map_err(|e| format!("build failed: {}", e.message))
    };
    if check.expected.is_none() {
        // Too large to interpret: the original, bound to threads, on the GPU.
        let reference = match GpuCheck::gpu_reference(job.workload()).and_then(|m| build(&gpu, &m))
        {
            Ok(w) => web_ui::gpu_rt::run(&gpu, &w.launch(), &check.inputs, 0).await,
            Err(m) => Err(m),
        };
        match reference {
            Ok(r) => check.expected = Some(r.got),
            Err(m) => return send(fail(&mut job, format!("the original program: {m}"))),
        }
    }
    send(job.begin(elapsed()));
    let mut gpu = gpu;
    loop {
        let batch = job.next_batch();
        if batch.is_empty() {
            break;
        }
        for c in &batch {
            let measured = match build(&gpu, c.module()) {
                Ok(w) => {
                    let (device, inputs) = (gpu.clone(), check.inputs.clone());
                    let run = async move {
                        web_ui::gpu_rt::run(&device, &w.launch(), &inputs, TUNE_GPU_REPEATS).await
                    };
                    web_ui::gpu_rt::guarded(&gpu, TUNE_RUN_LIMIT_MS, run).await
                }
                Err(m) => Err(m),
            };
            let r = match measured {
                Ok(run) => {
                    let ms = if run.gpu_timed {
                        &run.times_ms
                    } else {
                        &run.wall_ms
                    };
                    let r = MeasureResult::Ok(ms.iter().map(|t| t / 1000.0).collect());
                    match (job.improves(&r), check.compare(&run.got)) {
                        (true, Err(e)) => MeasureResult::Failed(format!("wrong result: {e}")),
                        _ => r,
                    }
                }
                Err(m) => {
                    // A lost or timed-out device was dropped: take a new one.
                    if let Ok(g) = web_ui::gpu_rt::device().await {
                        gpu = g;
                    }
                    MeasureResult::Failed(format!("run failed: {m}"))
                }
            };
            send(job.observe(r, elapsed()));
        }
    }
    send(job.finish(elapsed()));
}

fn main() {
    console_error_panic_hook::set_once();
    // The instance that runs scripts' GPU kernels for another one.
    if web_ui::gpu_bridge::is_bridge() {
        web_ui::gpu_bridge::serve();
        return;
    }
    engine::set_platform(engine::Platform::with_codegen(
        Some(Rc::new(|| {
            Box::new(web_ui::cpu_rt::BrowserRuntime::new()) as Box<dyn codegen_wasm::Runtime>
        })),
        Some(Rc::new(PerfClock)),
        Some(Rc::new(web_ui::gpu_bridge::runner)),
        web_ui::cpu_rt::engine_has_relaxed_simd(),
    ));
    // Nested workers start only while this one is idle: spawned now, and
    // every request waits (asynchronously) until they have started.
    web_ui::thread_pool::start();
    web_ui::gpu_bridge::start();
    web_ui::worker_host::serve(|req, post, _now| {
        wasm_bindgen_futures::spawn_local(async move {
            web_ui::thread_pool::ready().await;
            web_ui::gpu_bridge::ready().await;
            answer(req, post, &web_ui::cpu_rt::perf_now);
        })
    });
}

fn answer(req: Request, post: Rc<dyn Fn(&Response)>, now: &dyn Fn() -> f64) {
    match req {
        // Timing GPU code is asynchronous too: its Check replies later.
        Request::Check {
            id,
            exercise,
            definition,
            source,
        } => {
            wasm_bindgen_futures::spawn_local(async move {
                let outcome = check_with_gpu(exercise, definition, source).await;
                post(&Response::Checked { id, outcome });
            });
        }
        req => match web_ui::worker_host::answer_without_codegen(req, now, &Cell::new(false)) {
            Ok(resp) => post(&resp),
            Err(backend_req) => answer_with_codegen(backend_req, post, now),
        },
    }
}
