//! Runs of a live session's scheduled function: the reference (the
//! original program on random inputs, in the interpreter), then the CPU
//! backend's wasm or the GPU backend's WGSL, checked against it and timed.

use compiler_core::diag::Diagnostic;
use compiler_core::eval::NDArray;
use compiler_core::ir::{BaseFunc, IRModule};
use compiler_core::target::{
    Backend, BuildError, BuildOptions, Executable, GpuKind, Host, ReferenceBackend, Target,
    TargetKind,
};
use tessel_session::{check, LiveSession};

use codegen_wasm::backend::{RuntimeFactory, WasmBackend, WasmExecutable};
use codegen_wgsl::source_only::{WgslBackend, WgslExecutable};
use codegen_wgsl::{GpuLimits, WgslFunc};

use super::platform::platform;
use super::{editor_diag, module_nests};
use crate::protocol::*;

/// Steps the interpreter may take in one run (keeps a runaway loop from
/// hanging the worker forever).
pub const STEP_BUDGET: u64 = 400_000_000;

/// A run's backend-independent part: the scheduled function, random inputs
/// and the original program's outputs on them (the reference).
pub struct RunSetup {
    pub out: RunOutcome,
    /// The session's plan of the check: the function, the scheduled module
    /// backends compile, the inputs and the expected outputs.
    pub plan: check::RunPlan,
    source: String,
    /// The backend fused multiply-adds: the comparison's tolerances grow
    /// with the reduction length ([`check::compare_outputs_fused`]).
    fused: bool,
}

impl RunSetup {
    /// An editor diagnostic for a backend error at `span`.
    pub fn diag(&self, d: &Diagnostic) -> EditorDiag {
        editor_diag(&self.source, d)
    }
}

/// Parses and schedules `source`, makes inputs and runs the original
/// program on them in the reference interpreter. The error is the finished
/// (failed) outcome, which the worker sends as it is.
#[allow(clippy::result_large_err)]
pub fn prepare_run(
    live: &LiveSession,
    backend: &str,
    now: &dyn Fn() -> f64,
) -> Result<RunSetup, RunOutcome> {
    let mut out = RunOutcome {
        backend: backend.to_string(),
        ..RunOutcome::default()
    };
    let (source, script) = (live.source(), live.outcome());
    let last = script.module_snapshots.last().map(|s| s.module.clone());
    let plan = match check::plan_run(script, STEP_BUDGET, now) {
        Ok(plan) => plan,
        Err(e) => {
            if e == check::PlanError::ScriptErrors {
                out.errors = script
                    .errors
                    .iter()
                    .map(|d| editor_diag(source, d))
                    .collect();
            }
            if !matches!(
                e,
                check::PlanError::ScriptErrors | check::PlanError::NoFunction
            ) {
                // The function was chosen before the check failed.
                out.func = check::checked_function(script).unwrap_or_default();
            }
            out.message = e.to_string();
            return Err(out);
        }
    };
    out.func = plan.name.clone();
    out.reference_ms = Some(plan.reference_time);
    out.flops = last
        .as_ref()
        .map(module_nests)
        .unwrap_or_default()
        .into_iter()
        .find(|n| n.func == plan.name)
        .and_then(|n| n.flops);
    Ok(RunSetup {
        out,
        plan,
        source: source.to_string(),
        fused: false,
    })
}

/// Compares a backend's outputs with the reference and fills in the verdict,
/// errors, median time and GFLOPS (`setup.out.times_ms` holds the times).
pub fn finish_run(setup: RunSetup, got: &[NDArray]) -> RunOutcome {
    let mut out = setup.out;
    let cmp = if setup.fused {
        check::compare_outputs_fused(&setup.plan, got)
    } else {
        check::compare_outputs(&setup.plan, got)
    };
    out.max_abs_err = Some(cmp.max_abs_err);
    out.max_rel_err = Some(cmp.max_rel_err);
    out.matches = Some(cmp.matches());
    out.outputs = cmp.changed.clone();
    let mut sorted = out.times_ms.clone();
    compiler_core::ir::sort::by(&mut sorted, |a, b| a.total_cmp(b));
    out.median_ms = sorted.get(sorted.len() / 2).copied();
    if let (Some(fl), Some(ms)) = (out.flops, out.median_ms) {
        if ms > 0.0 {
            out.gflops = Some(fl / (ms * 1e6));
        }
    }
    out.ok = true;
    out.message = cmp.verdict(setup.plan.scheduled);
    if setup.fused {
        let (rtol, atol) = check::fused_tolerances(&setup.plan);
        out.message.push_str(&format!(
            " (FMA: tolerances widened for a reduction of {}: rtol {rtol:.1e}, atol {atol:.1e})",
            check::reduction_length(&setup.plan.after)
        ));
    }
    out
}

/// The CPU backend with relaxed-SIMD multiply-adds (`relaxed_madd`).
pub const WASM_FMA: &str = "wasm-fma";

/// What the FMA backend does without relaxed SIMD.
pub const NO_RELAXED_SIMD_NOTE: &str = "this browser's WebAssembly engine has no relaxed SIMD: \
     built with plain SIMD128 (multiply and add, no relaxed FMA)";

/// Whether `backend` fuses multiply-adds on an engine that has relaxed
/// SIMD or not, and the note when the FMA backend falls back to plain SIMD.
pub(super) fn fma_choice(backend: &str, relaxed_simd: bool) -> (bool, Option<String>) {
    match (backend == WASM_FMA, relaxed_simd) {
        (true, true) => (true, None),
        (true, false) => (false, Some(NO_RELAXED_SIMD_NOTE.to_string())),
        (false, _) => (false, None),
    }
}

/// Runs the scheduled function with `backend` (`interpreter`, `wasm` or
/// [`WASM_FMA`]; `webgpu` is asynchronous: the worker drives it with
/// [`build_gpu`]).
pub fn run(live: &LiveSession, backend: &str, repeats: u32, now: &dyn Fn() -> f64) -> RunOutcome {
    if backend == "interpreter" {
        return run_reference(live, repeats, now);
    }
    let mut setup = match prepare_run(live, backend, now) {
        Ok(s) => s,
        Err(out) => return out,
    };
    let p = platform();
    let (fma, fallback) = fma_choice(backend, p.relaxed_simd);
    let got = match backend {
        "wasm" | WASM_FMA => match p.cpu {
            Some(make) => run_wasm(&mut setup, &make, repeats, now, fma),
            None => {
                Err("the CPU backend needs a WebAssembly runtime, and this host has none".into())
            }
        },
        other => Err(format!("the {other} backend cannot run here")),
    };
    setup.out.notes.extend(fallback);
    settle(setup, got)
}

/// Runs the scheduled function on the reference interpreter (no code
/// generator involved: the first worker runs this itself).
pub fn run_reference(live: &LiveSession, repeats: u32, now: &dyn Fn() -> f64) -> RunOutcome {
    let mut setup = match prepare_run(live, "interpreter", now) {
        Ok(s) => s,
        Err(out) => return out,
    };
    let got = run_interpreter(&mut setup, repeats, now);
    settle(setup, got)
}

fn settle(setup: RunSetup, got: Result<Vec<NDArray>, String>) -> RunOutcome {
    match got {
        Ok(got) => finish_run(setup, &got),
        Err(m) => {
            let mut out = setup.out;
            out.ok = false;
            out.message = m;
            out
        }
    }
}

/// `performance.now()` (milliseconds) as the target layer's clock.
struct MsClock<'a>(&'a dyn Fn() -> f64);

impl Host for MsClock<'_> {
    fn now_seconds(&self) -> f64 {
        (self.0)() / 1000.0
    }
}

/// `repeats` timing samples of the scheduled function on `exec`, `batch`
/// calls each, into `setup.out.times_ms` (milliseconds per call).
fn time_samples(
    setup: &mut RunSetup,
    exec: &dyn Executable,
    batch: u64,
    repeats: u32,
    now: &dyn Fn() -> f64,
) -> Result<(), String> {
    let name = setup.plan.name.clone();
    let clock = MsClock(now);
    let repeats = u64::from(repeats.max(1));
    let mut timed = setup.plan.inputs.clone();
    let seconds = match exec.time(&name, &mut timed, batch, repeats, &clock) {
        Some(times) => times?,
        // No timer of its own (the reference interpreter): time `run`.
        None => (0..repeats)
            .map(|_| {
                let mut args = setup.plan.inputs.clone();
                let t0 = clock.now_seconds();
                exec.run(&name, &mut args, STEP_BUDGET)?;
                Ok(clock.now_seconds() - t0)
            })
            .collect::<Result<Vec<f64>, String>>()?,
    };
    setup
        .out
        .times_ms
        .extend(seconds.iter().map(|s| s * 1000.0));
    Ok(())
}

fn run_interpreter(
    setup: &mut RunSetup,
    repeats: u32,
    now: &dyn Fn() -> f64,
) -> Result<Vec<NDArray>, String> {
    let exec = ReferenceBackend::default()
        .build(
            &setup.plan.module,
            &Target::llvm(),
            &BuildOptions::default(),
        )
        .map_err(|m| format!("the scheduled function does not compile: {m}"))?;
    let mut got = setup.plan.inputs.clone();
    exec.run(&setup.plan.name, &mut got, STEP_BUDGET)
        .and_then(|_| time_samples(setup, exec.as_ref(), 1, repeats, now))
        .map_err(|m| format!("the scheduled function failed: {m}"))?;
    setup.out.timing = "reference interpreter, performance.now()".into();
    Ok(got)
}

/// Milliseconds one timing sample of a wasm kernel aims for, and the most
/// calls batched into one sample.
const SAMPLE_MS: f64 = 1.0;
const MAX_BATCH: u64 = 1000;

/// Compiles the scheduled function to wasm (with relaxed-SIMD multiply-adds
/// when `fma`) on a runtime `make` gives, runs it once on the inputs (the
/// outputs compared), then `repeats` samples for the timing.
pub fn run_wasm(
    setup: &mut RunSetup,
    make: &RuntimeFactory,
    repeats: u32,
    now: &dyn Fn() -> f64,
    fma: bool,
) -> Result<Vec<NDArray>, String> {
    let t0 = now();
    setup.fused = fma;
    let options = BuildOptions {
        relaxed_fma: fma,
        ..BuildOptions::default()
    };
    let built = match WasmBackend::with_runtime(make.clone()).build(
        &setup.plan.module,
        &Target::llvm(),
        &options,
    ) {
        Ok(exec) => exec,
        Err(BuildError::Compile { diagnostic, .. }) => {
            let d = setup.diag(&diagnostic);
            setup.out.errors.push(d);
            return Err(format!(
                "the CPU backend cannot compile this: {}",
                diagnostic.message
            ));
        }
        Err(BuildError::Load(e)) if fma => return Err(format!(
            "instantiating the module: {e} (this engine may lack relaxed SIMD: pick the plain CPU backend)"
        )),
        Err(BuildError::Load(e)) => return Err(format!("instantiating the module: {e}")),
        Err(e) => return Err(e.to_string()),
    };
    let Some(exec) = built
        .as_any()
        .and_then(|a| a.downcast_ref::<WasmExecutable>())
    else {
        return Err("the CPU backend built no wasm module".into());
    };
    setup.out.notes = exec.module().lowered.report().notes;
    let bytes = exec.module().bytes().len();
    setup.out.compile_ms = Some(now() - t0);
    // Browsers coarsen `performance.now()` (100 µs in a worker without
    // cross-origin isolation): a sample is `batch` calls, enough for about
    // a millisecond, and reports the time per call.
    // The probe's outputs are the ones compared.
    let name = setup.plan.name.clone();
    let mut got = setup.plan.inputs.clone();
    let failed = |e: String| format!("the wasm module failed: {e}");
    let once_ms = match exec.time(&name, &mut got, 1, 1, &MsClock(now)) {
        Some(t) => t.map_err(failed)?.first().map_or(0.0, |s| s * 1000.0),
        None => {
            exec.run(&name, &mut got, STEP_BUDGET).map_err(failed)?;
            0.0
        }
    };
    let batch = if once_ms > 0.0 {
        (SAMPLE_MS / once_ms).ceil().clamp(1.0, MAX_BATCH as f64) as u64
    } else {
        MAX_BATCH
    };
    time_samples(setup, exec, batch, repeats, now).map_err(failed)?;
    setup.out.timing = format!(
        "WebAssembly ({bytes} bytes{}), performance.now() around {batch} call{} per sample; {}",
        if fma {
            ", relaxed-SIMD FMA: one rounding per multiply-add, so the last bits may differ from the reference"
        } else {
            ""
        },
        if batch == 1 { "" } else { "s" },
        threads_line(
            &exec.threading(),
            &exec.last_launches(),
            !exec.module().tasks.is_empty(),
        )
    );
    Ok(got)
}

/// How a CPU run used threads: "2 threads: 1 parallel launch, 2 chunks on
/// 2 threads", or, with one thread, whether parallel loops ran inline and
/// why there was one thread.
pub(super) fn threads_line(
    threading: &codegen_wasm::runtime::Threading,
    last: &codegen_wasm::runtime::LaunchStats,
    has_parallel_loops: bool,
) -> String {
    if threading.threads > 1 {
        return format!("{} threads: {}", threading.threads, last.describe());
    }
    match (&threading.single_reason, has_parallel_loops) {
        (Some(r), true) => format!("1 thread: parallel loops ran inline ({r})"),
        (None, true) => "1 thread: parallel loops ran inline".into(),
        (_, false) => "1 thread: no parallel loop".into(),
    }
}

/// The WGSL of the scheduled function, checked against `limits`.
pub fn build_gpu(setup: &mut RunSetup, limits: &GpuLimits) -> Result<WgslFunc, String> {
    let backend = WgslBackend {
        limits: limits.clone(),
    };
    let mut module = IRModule::new();
    module.insert(
        setup.plan.name.clone(),
        BaseFunc::Prim(setup.plan.after.clone()),
    );
    match build_wgsl(&backend, &module) {
        Ok(mut funcs) if funcs.len() == 1 => {
            let w = funcs.remove(0);
            setup.out.notes = w.report.notes.clone();
            Ok(w)
        }
        Ok(_) => Err("the GPU backend built no kernel for this function".into()),
        Err(BuildError::Compile { diagnostic, .. }) => {
            let d = setup.diag(&diagnostic);
            setup.out.errors.push(d);
            Err(format!(
                "the GPU backend cannot compile this: {}",
                diagnostic.message
            ))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Every function of `module` compiled to WGSL by `backend` (for WebGPU).
pub(super) fn build_wgsl(
    backend: &WgslBackend,
    module: &IRModule,
) -> Result<Vec<WgslFunc>, BuildError> {
    let webgpu = Target::of_kind(TargetKind::Gpu(GpuKind::WebGpu));
    let exec = backend.build(module, &webgpu, &BuildOptions::default())?;
    exec.as_any()
        .and_then(|a| a.downcast_ref::<WgslExecutable>())
        .map(|w| w.funcs.clone())
        .ok_or_else(|| BuildError::Failed("the GPU backend built no WGSL".into()))
}
