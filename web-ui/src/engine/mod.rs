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
use compiler_core::ir::{BaseFunc, IRModule, PrimFunc};
// The script host's interfaces (`tvm.build` backends, the clock).
use compiler_core::target::{Backend, BuildError, BuildOptions, Target};
use compiler_core::tvmscript::printer::{print_module, Dialect, PrintOptions};
use tessel_session::{LiveSession, Mime, RichSpan};

use codegen_wasm::backend::{WasmBackend, WasmExecutable};
use codegen_wgsl::source_only::WgslBackend;

use crate::protocol::*;

pub use tessel_session::{ScriptOutcome, Snapshot, SCHEDULE_MARKER};

mod platform;
mod run;

pub use platform::*;
pub use run::*;

/// Runs a script through the session driver with this thread's platform:
/// its wasm runtime behind `tvm.build` for CPU targets, its clock.
pub fn run_script(source: &str) -> ScriptOutcome {
    tessel_session::run_script(source, &script_env())
}

/// UTF-16 offset of a byte offset in `source` (CodeMirror counts UTF-16).
fn utf16_offset(source: &str, byte: u32) -> u32 {
    let mut b = (byte as usize).min(source.len());
    while !source.is_char_boundary(b) {
        b -= 1;
    }
    source[..b].encode_utf16().count() as u32
}

pub(crate) fn editor_diag(source: &str, d: &Diagnostic) -> EditorDiag {
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

/// A live session of `source`, as the worker keeps it (for the tests).
#[cfg(test)]
pub(crate) fn live(source: &str) -> LiveSession {
    LiveSession::open(0, source.to_string(), &script_env())
}

#[cfg(test)]
mod tests;
