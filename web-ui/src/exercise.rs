//! Course exercises in the worker: the checker, which grades an answer
//! with the session's checker on this platform's backend, so the page
//! shows the same verdict as `tessel exercise check`. The exercise comes
//! with each request, as the file the page fetched (`exercises/ID.json`):
//! no exercise is compiled into the worker.
//!
//! Checking is two steps: [`begin`] runs every check it can synchronously
//! (CPU speed checks included) and leaves GPU speed checks pending; the
//! worker times those on WebGPU (asynchronous) and [`finish`]es the
//! verdict with the session's own completion, so the text is the CLI's
//! for the same times. [`check`] is both steps where nothing times GPU
//! code (native tests): GPU speed checks are skipped with the reason.

use codegen_wgsl::{GpuLimits, WgslFunc};
use tessel_session::exercise::{
    begin_check, measure_speed, CheckEnv, PendingSpeed, SpeedError, SpeedTimes, Status, Verdict,
};
use tessel_session::structure_diff::HighlightedIr;

use crate::engine;

use crate::protocol::{CheckOutcome, CheckView, IrPane, StructureView};

/// Why GPU exercises check their numbers on the reference interpreter
/// here: the numbers check runs synchronously, WebGPU does not.
const NO_GPU: &str = "the page checks numbers synchronously, without WebGPU";

/// Why a GPU speed check is skipped where nothing times GPU code.
pub const NO_GPU_TIMER: &str = "this host does not time GPU code";

/// A check between [`begin`] and [`finish`]: the verdict so far and the
/// GPU speed checks still to time.
pub struct Begun {
    pub exercise: String,
    pub verdict: Verdict,
    pub pending: Vec<PendingSpeed>,
    started_ms: f64,
}

/// Grades `source` against exercise `id`, whose file (`exercises/ID.json`,
/// as the page fetched it) is `definition`, up to the timing of GPU code;
/// `now` (milliseconds) times the whole check. A file that does not read
/// is the finished (failed) outcome.
#[allow(clippy::result_large_err)]
pub fn begin(
    id: &str,
    definition: &str,
    source: &str,
    now: &dyn Fn() -> f64,
) -> Result<Begun, CheckOutcome> {
    let started_ms = now();
    let exercise = match tessel_course::parse_page_exercise(definition) {
        Ok((e, _)) if e.id == id => e,
        Ok((e, _)) => {
            return Err(failure(
                id,
                format!("the file of exercise `{id}` holds exercise `{}`", e.id),
            ))
        }
        Err(e) => return Err(failure(id, format!("exercise `{id}` does not read: {e}"))),
    };
    let env = CheckEnv {
        script: engine::script_env(),
        no_gpu: Some(NO_GPU.into()),
    };
    let (mut verdict, pending) = begin_check(&exercise, source, &env);
    let (gpu, cpu): (Vec<_>, Vec<_>) = pending.into_iter().partition(PendingSpeed::is_gpu);
    for p in &cpu {
        let measured = measure_speed(
            p,
            &*env.script.backend,
            &*env.script.host,
            env.script.limits.steps,
        );
        verdict.complete_speed(p, measured);
    }
    Ok(Begun {
        exercise: id.to_string(),
        verdict,
        pending: gpu,
        started_ms,
    })
}

/// The WGSL of a pending check's baseline and answer, checked against the
/// device's `limits`; an error names which one does not build, worded as
/// the native GPU backend words it.
pub fn gpu_kernels(
    pending: &PendingSpeed,
    limits: &GpuLimits,
) -> Result<(WgslFunc, WgslFunc), SpeedError> {
    use compiler_core::target::{Backend, BuildOptions, Target};
    use std::rc::Rc;
    let target =
        Target::parse(&pending.target).map_err(|e| SpeedError::BaselineBuild(e.to_string()))?;
    let backend = codegen_wgsl::source_only::WgslBackend {
        limits: limits.clone(),
    };
    let build = |f: &Rc<compiler_core::ir::PrimFunc>| -> Result<WgslFunc, String> {
        let exec = backend
            .build(&pending.module(f), &target, &BuildOptions::default())
            .map_err(|e| e.to_string())?;
        exec.as_any()
            .and_then(|a| a.downcast_ref::<codegen_wgsl::source_only::WgslExecutable>())
            .and_then(|w| w.funcs.first().cloned())
            .ok_or_else(|| format!("`{}` built no GPU kernel", pending.function))
    };
    let baseline = build(&pending.baseline).map_err(SpeedError::BaselineBuild)?;
    let student = build(&pending.student).map_err(SpeedError::StudentBuild)?;
    Ok((baseline, student))
}

/// The verdict once every pending speed check has its times (or why not),
/// in `begun.pending`'s order; `timing` says how GPU code was timed.
pub fn finish(
    mut begun: Begun,
    measured: Vec<Result<SpeedTimes, SpeedError>>,
    timing: Option<String>,
    now: &dyn Fn() -> f64,
) -> CheckOutcome {
    for (p, m) in begun.pending.iter().zip(measured) {
        begun.verdict.complete_speed(p, m);
    }
    let verdict = begun.verdict;
    CheckOutcome {
        exercise: begun.exercise,
        passed: verdict.passed(),
        text: verdict.render(),
        results: verdict
            .results
            .into_iter()
            .map(|r| CheckView {
                name: r.name,
                status: match r.status {
                    Status::Passed => "pass",
                    Status::Failed => "fail",
                    Status::Skipped => "skip",
                }
                .into(),
                message: r.message,
                details: r.details,
                line: r.line_col.map(|(l, _)| l),
                col: r.line_col.map(|(_, c)| c),
                structure: r.structure.map(|d| StructureView {
                    yours: pane(d.yours),
                    target: pane(d.target),
                }),
            })
            .collect(),
        timing,
        millis: now() - begun.started_ms,
    }
}

/// Grades `source` against exercise `id` (its file `definition`) without
/// timing GPU code (skipped, saying why).
pub fn check(id: &str, definition: &str, source: &str, now: &dyn Fn() -> f64) -> CheckOutcome {
    match begin(id, definition, source, now) {
        Ok(begun) => {
            let skipped = begun
                .pending
                .iter()
                .map(|_| Err(SpeedError::Unavailable(NO_GPU_TIMER.into())))
                .collect();
            finish(begun, skipped, None, now)
        }
        Err(out) => out,
    }
}

fn pane(ir: HighlightedIr) -> IrPane {
    IrPane {
        text: ir.text,
        lines: ir.lines,
        columns: ir.columns,
    }
}

fn failure(id: &str, message: String) -> CheckOutcome {
    CheckOutcome {
        exercise: id.to_string(),
        passed: false,
        text: format!("FAIL exercise: {message}\n"),
        results: vec![CheckView {
            name: "exercise".into(),
            status: "fail".into(),
            message,
            ..CheckView::default()
        }],
        timing: None,
        millis: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ExerciseInfo;
    use tessel_session::exercise::Exercise;

    /// A bundled exercise and its file as the built site serves it.
    fn served(id: &str) -> (Exercise, String) {
        let ex = tessel_course::bundled()
            .unwrap()
            .into_iter()
            .find(|e| e.id == id)
            .unwrap();
        let file = tessel_course::page_exercise_json(&ex);
        (ex, file)
    }

    #[test]
    fn the_page_reads_a_served_exercise_with_its_statement_rendered() {
        let (_, file) = served("broadcast-add");
        let add = ExerciseInfo::from_page_file(&file).unwrap();
        assert_eq!(add.id, "broadcast-add");
        assert!(!add.starting_code.is_empty());
        assert!(
            add.statement_html.contains("<code>add</code>"),
            "{}",
            add.statement_html
        );
        assert!(
            add.statement_html.contains("<pre><code>"),
            "{}",
            add.statement_html
        );
        assert!(!add.statement_html.contains('`'));
        assert_eq!(add.definition, file);
        // Raw HTML in a statement is shown as text.
        let html = tessel_course::statement_html("a <script>x()</script> b");
        assert!(!html.contains("<script>"), "{html}");
    }

    #[test]
    fn the_check_of_a_served_exercise_matches_the_cli_text() {
        let (ex, file) = served("broadcast-add");
        let out = check("broadcast-add", &file, &ex.starting_code, &|| 0.0);
        assert!(!out.passed);
        assert_eq!(out.results[1].name, "numbers");
        assert_eq!(out.results[1].status, "fail");
        assert!(out
            .text
            .contains("FAIL numbers: output `C` differs from the reference"));
        let unreadable = check("no-such", "{}", "", &|| 0.0);
        assert!(
            unreadable.results[0]
                .message
                .starts_with("exercise `no-such` does not read:"),
            "{}",
            unreadable.results[0].message
        );
        let other = check("conv2d", &file, "", &|| 0.0);
        assert_eq!(
            other.results[0].message,
            "the file of exercise `conv2d` holds exercise `broadcast-add`"
        );
    }

    #[test]
    fn a_failed_structure_check_sends_both_highlighted_functions() {
        let (ex, file) = served("bmm-relu-transform");
        let partial = ex.solution.replace("sch.unroll(k1)", "");
        let out = check(&ex.id, &file, &partial, &|| 0.0);
        let structure = out.results.iter().find(|r| r.name == "structure").unwrap();
        assert_eq!(structure.status, "fail");
        let view = structure.structure.as_ref().expect("both functions");
        let line = |p: &IrPane| {
            let (first, _) = p.lines.expect("highlighted");
            p.text.lines().nth(first - 1).unwrap().trim().to_string()
        };
        assert_eq!(line(&view.target), "for ax1_1 in T.unroll(4):");
        assert_eq!(line(&view.yours), "for k_0, k_1, j_1 in T.grid(32, 4, 8):");
        // It survives the worker's JSON.
        let json = serde_json::to_string(&out).unwrap();
        let back: CheckOutcome = serde_json::from_str(&json).unwrap();
        assert_eq!(back, out);
    }

    fn gpu_exercise() -> (Exercise, String) {
        served("gpu-shared-memory")
    }

    #[test]
    fn gpu_exercises_say_why_their_speed_is_skipped_without_a_gpu_timer() {
        let (gpu, file) = gpu_exercise();
        let out = check(&gpu.id, &file, &gpu.solution, &|| 0.0);
        assert!(out.passed, "{}", out.text);
        let speed = out.results.iter().find(|r| r.name == "speed").unwrap();
        assert_eq!(speed.status, "skip");
        assert!(speed.message.starts_with(NO_GPU_TIMER), "{}", speed.message);
        let numbers = out.results.iter().find(|r| r.name == "numbers").unwrap();
        assert!(numbers.details.iter().any(|d| d.starts_with(NO_GPU)));
    }

    #[test]
    fn a_gpu_speed_check_is_left_for_the_worker_to_time_and_then_finished() {
        let (gpu, file) = gpu_exercise();
        let begun = begin(&gpu.id, &file, &gpu.solution, &|| 0.0).unwrap();
        assert_eq!(begun.pending.len(), 1);
        let p = &begun.pending[0];
        assert_eq!(begun.verdict.results[p.index].name, "speed");
        assert_eq!(p.runs, 5);
        // Both build for the spec's minimum limits; the answer stages A in
        // workgroup memory, the baseline does not.
        let (baseline, student) = gpu_kernels(p, &GpuLimits::default()).unwrap();
        assert!(student.wgsl().contains("var<workgroup>"));
        assert!(!baseline.wgsl().contains("var<workgroup>"));
        let times = SpeedTimes {
            student: vec![1e-3; 5],
            baseline: vec![3e-3; 5],
        };
        let out = finish(begun, vec![Ok(times)], Some("wall clock".into()), &|| 0.0);
        assert!(out.passed, "{}", out.text);
        assert_eq!(out.timing.as_deref(), Some("wall clock"));
        assert!(
            out.text.contains(
                "PASS speed: your function is 3.00x as fast as the baseline (needed 1x)\n    \
             yours: 1.000 ms, baseline: 3.000 ms (median of 5 runs each): 3.00x\n"
            ),
            "{}",
            out.text
        );
    }

    #[test]
    fn an_answer_that_is_not_bound_to_threads_does_not_build_for_the_gpu() {
        let (gpu, file) = gpu_exercise();
        let unbound: String = gpu
            .solution
            .lines()
            .filter(|l| !l.starts_with("sch.bind("))
            .map(|l| format!("{l}\n"))
            .collect();
        let begun = begin(&gpu.id, &file, &unbound, &|| 0.0).unwrap();
        let p = &begun.pending[0];
        match gpu_kernels(p, &GpuLimits::default()) {
            Err(SpeedError::StudentBuild(m)) => {
                assert!(m.starts_with("cannot build `main` for webgpu: "), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
}
