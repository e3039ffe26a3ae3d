//! What the compiler worker does with a script. Pure Rust over
//! `compiler-core` (no browser APIs; clocks are passed in), so it can be
//! tested natively.
//!
//! Turning a script into modules, steps, a trace and diagnostics is the
//! session driver's job (`tessel_session::run_script`, shared with the
//! CLI); this file maps its results to the worker's [`crate::protocol`]
//! messages (printed steps, loop nests, regions, editor diagnostics) and
//! adds what is browser-specific: the platform's wasm runtime behind
//! `tvm.build`, runs on the CPU and GPU backends, generated code.

use std::rc::Rc;

use compiler_core::diag::{self, Diagnostic, Severity};
use compiler_core::eval::NDArray;
use compiler_core::ir::{BaseFunc, IRModule, PrimFunc};
// The script host's interfaces (`tvm.build` backends, the clock).
use compiler_core::target::{
    Backend, BuildError, BuildOptions, Executable, GpuKind, Host, NoClock, ReferenceBackend,
    Target, TargetKind,
};
use compiler_core::tvmscript::printer::{print_module, Dialect, PrintOptions};
use tessel_session::{check, LiveSession, Mime, RichSpan, ScriptEnv};

use codegen_wasm::backend::{RuntimeFactory, WasmBackend, WasmExecutable};
use codegen_wgsl::source_only::{KernelRunner, SourceOnlyBackend, WgslBackend, WgslExecutable};
use codegen_wgsl::{GpuLimits, WgslFunc};

use crate::protocol::*;

pub use tessel_session::{ScriptOutcome, Snapshot, SCHEDULE_MARKER};

/// Runs a script through the session driver with this thread's platform:
/// its wasm runtime behind `tvm.build` for CPU targets, its clock.
pub fn run_script(source: &str) -> ScriptOutcome {
    tessel_session::run_script(source, &script_env())
}

/// What scripts run with here: the platform's `tvm.build` backend (the
/// wasm runtime for CPU targets where the code generators are loaded), its
/// clock, the default budgets.
pub fn script_env() -> ScriptEnv {
    let p = platform();
    let (backend, take_notes) = match &p.scripts {
        Some(make) => make(),
        None => InterpreterScripts::parts(
            None,
            Err("WebGPU is asynchronous and a script runs synchronously".into()),
        ),
    };
    ScriptEnv {
        host: p.host.unwrap_or_else(|| Rc::new(NoClock)),
        backend,
        take_notes: Some(take_notes),
        ..ScriptEnv::default()
    }
}

/// UTF-16 offset of a byte offset in `source` (CodeMirror counts UTF-16).
fn utf16_offset(source: &str, byte: u32) -> u32 {
    let mut b = (byte as usize).min(source.len());
    while !source.is_char_boundary(b) {
        b -= 1;
    }
    source[..b].encode_utf16().count() as u32
}

fn editor_diag(source: &str, d: &Diagnostic) -> EditorDiag {
    let index = diag::LineIndex::new(source);
    let (line, col) = index.line_col(d.span.start);
    let mut message = d.message.clone();
    for (span, label) in &d.labels {
        if !label.is_empty() && *span != d.span {
            message.push_str(&format!("\n{label}"));
        }
    }
    // The marked IR (`d.marked_code`) has its own view, not the editor's.
    for note in &d.notes {
        message.push_str(&format!("\nnote: {note}"));
    }
    EditorDiag {
        from: utf16_offset(source, d.span.start),
        to: utf16_offset(source, d.span.end),
        line: line as u32,
        col: col as u32,
        severity: match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            _ => "info",
        }
        .into(),
        message,
    }
}

fn rich_part(span: &RichSpan) -> RichPart {
    let (kind, language) = match &span.mime {
        Mime::Html => ("html", None),
        Mime::Markdown => ("markdown", None),
        Mime::Code { language } => ("code", language.clone()),
        Mime::Plain => ("text", None),
    };
    RichPart {
        start: span.start,
        end: span.end,
        kind: kind.into(),
        language,
    }
}

fn print(module: &IRModule, dialect: Dialect) -> String {
    print_module(module, &PrintOptions::new(dialect))
}

/// Compiles a script for the UI: every step printed, with loop nests.
pub fn compile(live: &LiveSession) -> CompileOutcome {
    let (source, script) = (live.source(), live.outcome());
    let mut console = script.console.clone();
    let mut marked_ir = None;
    for d in &script.errors {
        console.push_str(&diag::render(d, source, "script.py"));
        console.push('\n');
        if let Some(marked) = &d.marked_code {
            marked_ir = Some(marked.code.clone());
        }
    }
    let steps: Vec<Step> = script
        .module_snapshots
        .iter()
        .map(|s| {
            let (ir, nests, targets) = tessel_session::loop_nests::print_with_targets(
                &s.module,
                &PrintOptions::new(script.dialect),
            );
            Step {
                label: s.label.clone(),
                instructions: s.instructions.clone(),
                ir,
                nests,
                targets,
            }
        })
        .collect();
    CompileOutcome {
        console,
        rich: script.rich.iter().map(rich_part).collect(),
        trace: script
            .trace
            .as_ref()
            .map(|t| t.python(script.trace_dialect))
            .unwrap_or_default(),
        errors: script
            .errors
            .iter()
            .map(|d| editor_diag(source, d))
            .collect(),
        steps,
        marked_ir,
        millis: 0.0,
        revision: live.revision(),
    }
}

// ---------------------------------------------------------------------------
// Loop nests (computed by the session driver)

pub use tessel_session::loop_nests::module_nests;

// ---------------------------------------------------------------------------
// Regions one iteration of a loop touches

/// The regions one iteration of loop `loop_index` of `func` touches at
/// `step` ([`tessel_session::loop_regions`]), for the "Regions" view.
pub fn regions(
    live: &LiveSession,
    step: usize,
    func: &str,
    loop_index: usize,
    at: i64,
) -> RegionsOutcome {
    let script = live.outcome();
    let mut out = RegionsOutcome {
        func: func.to_string(),
        at,
        ..RegionsOutcome::default()
    };
    let Some(snap) = script.module_snapshots.get(step) else {
        out.message = "no such step".into();
        return out;
    };
    let Some(f) = snap.module.get_prim(func) else {
        out.message = format!("no function `{func}`");
        return out;
    };
    match tessel_session::loop_regions::loop_regions(f, loop_index, at) {
        Ok(r) => {
            out.loop_name = r.loop_name;
            out.extent = r.extent;
            out.at = r.at;
            out.regions = r
                .regions
                .into_iter()
                .map(|g| RegionInfo {
                    block: g.block,
                    buffer: g.buffer,
                    access: g.access,
                    shape: g.shape,
                    text: g.text,
                    concrete: g.concrete,
                })
                .collect();
        }
        Err(why) => out.message = why,
    }
    out
}

/// The memory picture of one `unit` (`iteration`, `lane`, `thread`,
/// `workgroup`) of `func` at `step` ([`tessel_session::memory_access`]),
/// with its panel rendered ([`crate::memory_picture::panel`]).
pub fn memory_access(
    live: &LiveSession,
    step: usize,
    func: &str,
    unit: &str,
    loop_index: Option<usize>,
    at: i64,
    playing: bool,
) -> MemoryOutcome {
    let mut out = MemoryOutcome {
        func: func.to_string(),
        unit: unit.to_string(),
        loop_index,
        at,
        ..MemoryOutcome::default()
    };
    let script = live.outcome();
    let func_at_step = script
        .module_snapshots
        .get(step)
        .ok_or_else(|| format!("no step {step}"))
        .and_then(|snap| {
            snap.module
                .get_prim(func)
                .cloned()
                .ok_or_else(|| format!("no function `{func}`"))
        });
    let (picture, loops) = match func_at_step {
        Ok(f) => (
            memory_picture_of(&f, &mut out),
            crate::memory_picture::loops_of(&f),
        ),
        Err(why) => {
            out.error = Some(why);
            (None, Vec::new())
        }
    };
    out.html = crate::memory_picture::panel(&out, &loops, picture.as_ref(), playing);
    out
}

/// The picture `out` asks for, filling in its units, range and label (or
/// why there is none).
fn memory_picture_of(
    f: &PrimFunc,
    out: &mut MemoryOutcome,
) -> Option<tessel_session::memory_access::MemoryAccess> {
    use tessel_session::memory_access::{memory_access, units_for, AccessError, DEFAULT_BUDGET};
    let units = units_for(f, out.loop_index);
    out.units = units.iter().map(|u| u.name().to_string()).collect();
    let Some(&chosen) = units.iter().find(|u| u.name() == out.unit) else {
        out.error = Some(format!(
            "no {} here: this {} offers {}",
            out.unit,
            if out.loop_index.is_some() {
                "loop"
            } else {
                "function"
            },
            if out.units.is_empty() {
                "none".to_string()
            } else {
                out.units.join(", ")
            }
        ));
        return None;
    };
    match memory_access(f, chosen, out.at, DEFAULT_BUDGET) {
        Ok(picture) => {
            out.loop_name = picture.loop_name.clone().unwrap_or_default();
            out.steps = picture.steps;
            out.label = picture.label.clone();
            Some(picture)
        }
        Err(e) => {
            // The slider's range, for a request past it.
            if let AccessError::OutOfRange { steps, .. } = e {
                out.steps = steps;
            }
            out.error = Some(e.to_string());
            None
        }
    }
}

// ---------------------------------------------------------------------------
// Running

/// Steps the interpreter may take in one run (keeps a runaway loop from
/// hanging the worker forever).
pub const STEP_BUDGET: u64 = 400_000_000;

/// What the host provides to the engine besides a clock: a way to run
/// generated wasm (the browser's `WebAssembly` API in the worker, wasmi in
/// native tests), the backend behind scripts' `tvm.build` and the clock of
/// Python scripts. Set once per thread by the host ([`set_platform`]);
/// without one, the CPU backend reports that it is unavailable and
/// scripts' `tvm.build` uses the reference interpreter.
///
/// The playground's first worker has no code generators (they are most of
/// its size): its `scripts` come from [`deferred_scripts`], so a script
/// that builds for the CPU marks that it needs them instead of linking
/// them; [`codegen_scripts`] is the real thing.
#[derive(Clone, Default)]
pub struct Platform {
    pub cpu: Option<RuntimeFactory>,
    pub host: Option<Rc<dyn Host>>,
    pub scripts: Option<ScriptBackendFactory>,
    /// The wasm engine behind `cpu` validates relaxed SIMD. Without it
    /// (Safari) nothing built here uses relaxed-SIMD instructions: the FMA
    /// backend and `-mattr=+relaxed-simd` targets get the plain-SIMD build
    /// and a note.
    pub relaxed_simd: bool,
}

impl Platform {
    /// A platform with the code generators: CPU targets compile to wasm
    /// and run on `cpu` (whose engine has relaxed SIMD or not); scripts'
    /// GPU kernels on `gpu` when there is one.
    pub fn with_codegen(
        cpu: Option<RuntimeFactory>,
        host: Option<Rc<dyn Host>>,
        gpu: Option<ScriptGpu>,
        relaxed_simd: bool,
    ) -> Platform {
        Platform {
            scripts: Some(codegen_scripts(cpu.clone(), gpu, relaxed_simd)),
            cpu,
            host,
            relaxed_simd,
        }
    }
}

thread_local! {
    static PLATFORM: std::cell::RefCell<Platform> = std::cell::RefCell::new(Platform::default());
}

pub fn set_platform(p: Platform) {
    PLATFORM.with(|c| *c.borrow_mut() = p);
}

fn platform() -> Platform {
    PLATFORM.with(|c| c.borrow().clone())
}

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
fn fma_choice(backend: &str, relaxed_simd: bool) -> (bool, Option<String>) {
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
fn threads_line(
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
fn build_wgsl(backend: &WgslBackend, module: &IRModule) -> Result<Vec<WgslFunc>, BuildError> {
    let webgpu = Target::of_kind(TargetKind::Gpu(GpuKind::WebGpu));
    let exec = backend.build(module, &webgpu, &BuildOptions::default())?;
    exec.as_any()
        .and_then(|a| a.downcast_ref::<WgslExecutable>())
        .map(|w| w.funcs.clone())
        .ok_or_else(|| BuildError::Failed("the GPU backend built no WGSL".into()))
}

/// Generated code larger than this is cut (the pane stays responsive).
pub const MAX_CODE_CHARS: usize = 400_000;

fn cut(mut text: String) -> String {
    if text.len() > MAX_CODE_CHARS {
        let mut at = MAX_CODE_CHARS;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
        text.push_str("\n… (cut: the code is longer than the pane shows)\n");
    }
    text
}

/// The code a backend generates for one step of the script: the lowered
/// TIR, WAT (`wasm`) or WGSL (`webgpu`), and the lowering notes.
pub fn code(live: &LiveSession, step: usize, backend: &str) -> CodeOutcome {
    let source = live.source();
    let (fma, fallback) = fma_choice(backend, platform().relaxed_simd);
    let backend = if backend == "webgpu" {
        "webgpu"
    } else {
        "wasm"
    };
    let mut out = CodeOutcome {
        backend: backend.to_string(),
        ..CodeOutcome::default()
    };
    let script = live.outcome();
    if script.module_snapshots.is_empty() {
        out.error = Some("no program to compile (fix the errors first)".into());
        return out;
    }
    let i = step.min(script.module_snapshots.len() - 1);
    out.step = i;
    let module = &script.module_snapshots[i].module;
    let mut prims = IRModule::new();
    for (n, f) in module.prim_funcs() {
        prims.insert(n.to_string(), BaseFunc::Prim(f.clone()));
    }
    if prims.prim_funcs().next().is_none() {
        out.error = Some("the module has no TensorIR function to compile".into());
        return out;
    }
    let fail = |out: &mut CodeOutcome, what: &str, d: Diagnostic| {
        out.error = Some(format!("{what}: {}", d.message));
        out.errors.push(editor_diag(source, &d));
    };
    if backend == "webgpu" {
        let mut lowered = IRModule::new();
        let mut wgsl = String::new();
        let wgsl_backend = WgslBackend::default();
        for (name, f) in prims.prim_funcs() {
            let mut single = IRModule::new();
            single.insert(name.to_string(), BaseFunc::Prim(f.clone()));
            match build_wgsl(&wgsl_backend, &single).map(|mut funcs| funcs.pop()) {
                Ok(None) => {
                    out.error = Some(format!("`{name}` built no GPU kernel"));
                    return out;
                }
                Ok(Some(w)) => {
                    lowered.insert(
                        name.to_string(),
                        BaseFunc::Prim(Rc::new(w.lowered.to_prim_func())),
                    );
                    for n in &w.report.notes {
                        out.notes.push(format!("{name}: {n}"));
                    }
                    for k in &w.kernels {
                        out.notes.push(format!(
                            "{name}: kernel {} — {} workgroups of {} invocations",
                            k.name,
                            k.dispatch.iter().map(|&d| d as u64).product::<u64>(),
                            k.workgroup_size.iter().map(|&d| d as u64).product::<u64>()
                        ));
                    }
                    wgsl.push_str(&w.wgsl());
                }
                Err(BuildError::Compile { diagnostic, .. }) => {
                    fail(
                        &mut out,
                        &format!("`{name}` cannot run on the GPU"),
                        *diagnostic,
                    );
                    return out;
                }
                Err(e) => {
                    out.error = Some(e.to_string());
                    return out;
                }
            }
        }
        out.lowered = print(&lowered, script.dialect);
        out.code = cut(wgsl);
    } else {
        let options = BuildOptions {
            relaxed_fma: fma,
            ..BuildOptions::default()
        };
        let built = WasmBackend::compile_only().build(&prims, &Target::llvm(), &options);
        let module = built.as_ref().map(|exec| {
            exec.as_any()
                .and_then(|a| a.downcast_ref::<WasmExecutable>())
                .map(WasmExecutable::module)
        });
        match module {
            Ok(None) => out.error = Some("the CPU backend built no wasm module".into()),
            Ok(Some(m)) => {
                out.lowered = print(&m.lowered.to_ir_module(), script.dialect);
                out.notes = m.lowered.report().notes;
                out.notes.extend(fallback);
                out.bytes = Some(m.bytes().len());
                match m.wat() {
                    Ok(w) => out.code = cut(w),
                    Err(e) => out.error = Some(e.message),
                }
            }
            Err(BuildError::Compile { diagnostic, .. }) => fail(
                &mut out,
                "the CPU backend cannot compile this",
                diagnostic.as_ref().clone(),
            ),
            Err(e) => out.error = Some(e.to_string()),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// `tvm.build` in Python scripts

/// The `tvm.build` backend of one script run, and the closure that takes
/// its notes for the console (after each cell).
pub type ScriptBackendParts = (Rc<dyn Backend>, Rc<dyn Fn() -> Vec<String>>);

/// Makes the [`ScriptBackendParts`] of each script run.
pub type ScriptBackendFactory = Rc<dyn Fn() -> ScriptBackendParts>;

/// `tvm.build` for scripts without the code generators: everything runs on
/// the reference interpreter (GPU targets with a note). With `needs_codegen`
/// (the first worker), a CPU target instead sets the flag and fails, so the
/// worker hands the request to the worker that has the CPU backend.
pub struct InterpreterScripts {
    reference: ReferenceBackend,
    notes: std::cell::RefCell<Vec<String>>,
    needs_codegen: Option<Rc<std::cell::Cell<bool>>>,
    /// `Ok`: GPU targets set `needs_codegen` too (the full worker runs
    /// their kernels on WebGPU); `Err`: why GPU builds run here, on the
    /// reference interpreter.
    gpu_in_full_worker: Result<(), String>,
}

impl InterpreterScripts {
    fn parts(
        needs_codegen: Option<Rc<std::cell::Cell<bool>>>,
        gpu_in_full_worker: Result<(), String>,
    ) -> ScriptBackendParts {
        let backend = Rc::new(InterpreterScripts {
            reference: ReferenceBackend::default(),
            notes: Default::default(),
            needs_codegen,
            gpu_in_full_worker,
        });
        let notes = backend.clone();
        (
            backend,
            Rc::new(move || notes.notes.borrow_mut().drain(..).collect()),
        )
    }
}

impl Backend for InterpreterScripts {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        self.ensure_loaded(target.kind)?;
        if target.is_gpu() {
            let why =
                self.gpu_in_full_worker.clone().err().unwrap_or_else(|| {
                    "WebGPU is asynchronous and a script runs synchronously".into()
                });
            self.notes.borrow_mut().push(format!(
                "note: tvm.build(target=\"{}\") runs on the reference interpreter here: {why} (the Run button runs the GPU backend on WebGPU)",
                target.text
            ));
        }
        self.reference.build(module, target, options)
    }

    /// In the first worker (`needs_codegen`), CPU builds, and GPU builds
    /// where the full worker reaches WebGPU, belong to the full worker:
    /// the flag says so and the build fails as not loaded.
    fn ensure_loaded(&self, kind: TargetKind) -> Result<(), BuildError> {
        match &self.needs_codegen {
            Some(flag) if !kind.is_gpu() || self.gpu_in_full_worker.is_ok() => {
                flag.set(true);
                Err(BuildError::BackendNotLoaded { kind })
            }
            _ => Ok(()),
        }
    }
}

/// Scripts whose CPU `tvm.build` marks `flag` (see [`InterpreterScripts`]),
/// and their GPU `tvm.build` too where `gpu_in_full_worker` is `Ok` (the
/// full worker can reach WebGPU from a script; `Err` says why not).
pub fn deferred_scripts(
    flag: Rc<std::cell::Cell<bool>>,
    gpu_in_full_worker: Result<(), String>,
) -> ScriptBackendFactory {
    Rc::new(move || InterpreterScripts::parts(Some(flag.clone()), gpu_in_full_worker.clone()))
}

/// Where scripts' GPU kernels run: the runner, or why there is none now
/// (asked at each GPU `tvm.build`; in the browser, WebGPU through a worker
/// that the script's worker waits on, see `web_ui::gpu_bridge`).
pub type ScriptGpu = Rc<dyn Fn() -> Result<Rc<dyn KernelRunner>, String>>;

/// Scripts whose CPU `tvm.build` compiles to wasm and runs on `cpu`, and
/// whose GPU `tvm.build` compiles to WGSL and runs on `gpu`'s runner (or
/// on the reference interpreter, WGSL still printable, without one).
pub fn codegen_scripts(
    cpu: Option<RuntimeFactory>,
    gpu: Option<ScriptGpu>,
    relaxed_simd: bool,
) -> ScriptBackendFactory {
    Rc::new(move || {
        let backend = Rc::new(ScriptBackend {
            cpu: cpu.clone(),
            gpu: gpu.clone(),
            relaxed_simd,
            fallback: InterpreterScripts {
                reference: ReferenceBackend::default(),
                notes: Default::default(),
                needs_codegen: None,
                gpu_in_full_worker: Err("this host gives scripts no GPU".into()),
            },
        });
        let notes = backend.clone();
        let take_notes: Rc<dyn Fn() -> Vec<String>> =
            Rc::new(move || notes.fallback.notes.borrow_mut().drain(..).collect());
        (backend as Rc<dyn Backend>, take_notes)
    })
}

/// `tvm.build` for scripts in the browser: CPU targets (`llvm`, `c`, …)
/// compile to wasm and run on the host's wasm runtime; everything else (and
/// a module the wasm backend cannot compile) runs on the reference
/// interpreter, with a note for the console (kept by `fallback`, in order).
struct ScriptBackend {
    cpu: Option<RuntimeFactory>,
    gpu: Option<ScriptGpu>,
    /// `cpu`'s engine has relaxed SIMD (`-mattr=+relaxed-simd` fuses).
    relaxed_simd: bool,
    fallback: InterpreterScripts,
}

impl ScriptBackend {
    /// A GPU build: WGSL for every thread-bound function (so the source
    /// cells work), kernels on the GPU runner when there is one, the rest
    /// (and everything without a runner) on the reference interpreter.
    fn build_gpu(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
        gpu: &ScriptGpu,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        let note = |m: String| self.fallback.notes.borrow_mut().push(m);
        let reference: Rc<dyn Backend> = Rc::new(ReferenceBackend::default());
        let (backend, how) = match gpu() {
            Ok(runner) => (
                SourceOnlyBackend::new(reference).with_runner(runner),
                "compiled to WGSL, kernels running on this browser's WebGPU".to_string(),
            ),
            Err(why) => (
                SourceOnlyBackend::new(reference),
                format!("compiled to WGSL, run on the reference interpreter here: {why}"),
            ),
        };
        match backend.build(module, target, options) {
            Ok(exec) => {
                note(format!(
                    "note: tvm.build(target=\"{}\"): {how}",
                    target.text
                ));
                Ok(exec)
            }
            Err(e) => {
                note(format!(
                    "note: the GPU backend cannot compile this module ({e}); tvm.build runs it on the reference interpreter"
                ));
                self.fallback.reference.build(module, target, options)
            }
        }
    }
}

impl Backend for ScriptBackend {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        let note = |m: String| self.fallback.notes.borrow_mut().push(m);
        if let (true, Some(gpu)) = (target.is_gpu(), &self.gpu) {
            return self.build_gpu(module, target, options, gpu);
        }
        let Some(make) = &self.cpu else {
            return self.fallback.build(module, target, options);
        };
        if target.is_gpu() {
            return self.fallback.build(module, target, options);
        }
        let mut prims = IRModule::new();
        for (n, f) in module.prim_funcs() {
            prims.insert(n.to_string(), BaseFunc::Prim(f.clone()));
        }
        let (relaxed_fma, fallback) =
            codegen_wasm::backend::relaxed_fma_for(target, self.relaxed_simd);
        if let Some(why) = fallback {
            note(format!("note: {why}"));
        }
        let mut wasm = WasmBackend::with_runtime(make.clone());
        wasm.relaxed_simd = self.relaxed_simd;
        // Scripts' kernels run their parallel loops inline (one thread).
        let options = BuildOptions {
            max_threads: Some(1),
            ..options.clone()
        };
        match wasm.build_wasm(&prims, target, &options) {
            Ok(exec) => {
                let bytes = exec.module().bytes().len();
                note(format!(
                    "note: tvm.build(target=\"{}\"): compiled to WebAssembly ({bytes} bytes{}), running on this browser's CPU",
                    target.text,
                    if relaxed_fma { ", relaxed-SIMD FMA" } else { "" }
                ));
                Ok(Rc::new(exec))
            }
            Err(BuildError::Load(e)) => Err(BuildError::Load(format!(
                "instantiating the wasm module: {e}"
            ))),
            Err(e) => {
                note(format!(
                    "note: the CPU backend cannot compile this module ({e}); tvm.build runs it on the reference interpreter"
                ));
                self.fallback
                    .build(module, target, &BuildOptions::default())
            }
        }
    }
}

/// A live session of `source`, as the worker keeps it (for the tests).
#[cfg(test)]
pub(crate) fn live(source: &str) -> LiveSession {
    LiveSession::open(0, source.to_string(), &script_env())
}

#[cfg(test)]
mod tests;
