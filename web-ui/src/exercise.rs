//! Course exercises in the worker: the catalogue the page lists (without
//! solutions) and the checker, which grades an answer with the session's
//! checker on this platform's backend, so the page shows the same verdict
//! as `tessel exercise check`.
//!
//! Checking is two steps: [`begin`] runs every check it can synchronously
//! (CPU speed checks included) and leaves GPU speed checks pending; the
//! worker times those on WebGPU (asynchronous) and [`finish`]es the
//! verdict with the session's own completion, so the text is the CLI's
//! for the same times. [`check`] is both steps where nothing times GPU
//! code (native tests): GPU speed checks are skipped with the reason.

use codegen_wgsl::{GpuLimits, WgslFunc};
use tessel_session::exercise::{
    begin_check, measure_speed, CheckEnv, Exercise, PendingSpeed, SpeedError, SpeedTimes, Status,
    Verdict,
};
use tessel_session::structure_diff::HighlightedIr;

use crate::engine;

// `STATEMENTS`: each exercise's statement as HTML (see build.rs).
include!(concat!(env!("OUT_DIR"), "/statements.rs"));
use crate::protocol::{CheckOutcome, CheckView, ExerciseInfo, IrPane, StructureView};

/// Why GPU exercises check their numbers on the reference interpreter
/// here: the numbers check runs synchronously, WebGPU does not.
const NO_GPU: &str = "the page checks numbers synchronously, without WebGPU";

/// Why a GPU speed check is skipped where nothing times GPU code.
pub const NO_GPU_TIMER: &str = "this host does not time GPU code";

fn bundled() -> Result<Vec<Exercise>, String> {
    tessel_course::bundled().map_err(|errors| {
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// Every exercise as the page shows it.
pub fn catalogue() -> Result<Vec<ExerciseInfo>, String> {
    Ok(bundled()?
        .into_iter()
        .map(|e| ExerciseInfo {
            statement_html: STATEMENTS
                .iter()
                .find(|(id, _)| *id == e.id)
                .map(|(_, html)| html.to_string())
                .unwrap_or_default(),
            id: e.id,
            title: e.title,
            statement: e.statement,
            starting_code: e.starting_code,
            hints: e.hints,
            target: e.target,
        })
        .collect())
}

/// A check between [`begin`] and [`finish`]: the verdict so far and the
/// GPU speed checks still to time.
pub struct Begun {
    pub exercise: String,
    pub verdict: Verdict,
    pub pending: Vec<PendingSpeed>,
    started_ms: f64,
}

/// Grades `source` against exercise `id` up to the timing of GPU code;
/// `now` (milliseconds) times the whole check. An unknown exercise is the
/// finished (failed) outcome.
#[allow(clippy::result_large_err)]
pub fn begin(id: &str, source: &str, now: &dyn Fn() -> f64) -> Result<Begun, CheckOutcome> {
    let started_ms = now();
    let exercise = match bundled().map(|all| all.into_iter().find(|e| e.id == id)) {
        Ok(Some(e)) => e,
        Ok(None) => return Err(failure(id, format!("no exercise `{id}`"))),
        Err(m) => return Err(failure(id, m)),
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
    let target = compiler_core::target::TargetSpec::new(&pending.target).kind;
    let build = |f| {
        codegen_wgsl::build_func(&pending.function, f, limits).map_err(|e| {
            format!(
                "cannot build `{}` for {target}: {}",
                pending.function, e.message
            )
        })
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

/// Grades `source` against exercise `id` without timing GPU code (skipped,
/// saying why).
pub fn check(id: &str, source: &str, now: &dyn Fn() -> f64) -> CheckOutcome {
    match begin(id, source, now) {
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

    #[test]
    fn statements_come_rendered_with_raw_html_as_text() {
        let list = catalogue().unwrap();
        for e in &list {
            assert!(
                !e.statement_html.is_empty(),
                "{} has no rendered statement",
                e.id
            );
        }
        let add = list.iter().find(|e| e.id == "broadcast-add").unwrap();
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
    }

    #[test]
    fn the_catalogue_hides_solutions_and_the_check_matches_the_cli_text() {
        let list = catalogue().unwrap();
        assert!(list.len() >= 12);
        let json = serde_json::to_string(&list).unwrap();
        assert!(!json.contains("\"solution\""));
        let ex = list.iter().find(|e| e.id == "broadcast-add").unwrap();
        let out = check("broadcast-add", &ex.starting_code, &|| 0.0);
        assert!(!out.passed);
        assert_eq!(out.results[1].name, "numbers");
        assert_eq!(out.results[1].status, "fail");
        assert!(out
            .text
            .contains("FAIL numbers: output `C` differs from the reference"));
        let unknown = check("no-such", "", &|| 0.0);
        assert_eq!(unknown.results[0].message, "no exercise `no-such`");
    }

    #[test]
    fn a_failed_structure_check_sends_both_highlighted_functions() {
        let ex = tessel_course::bundled()
            .unwrap()
            .into_iter()
            .find(|e| e.id == "bmm-relu-transform")
            .unwrap();
        let partial = ex.solution.replace("sch.unroll(k1)", "");
        let out = check(&ex.id, &partial, &|| 0.0);
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

    fn gpu_exercise() -> Exercise {
        tessel_course::bundled()
            .unwrap()
            .into_iter()
            .find(|e| e.id == "gpu-shared-memory")
            .unwrap()
    }

    #[test]
    fn gpu_exercises_say_why_their_speed_is_skipped_without_a_gpu_timer() {
        let gpu = gpu_exercise();
        let out = check(&gpu.id, &gpu.solution, &|| 0.0);
        assert!(out.passed, "{}", out.text);
        let speed = out.results.iter().find(|r| r.name == "speed").unwrap();
        assert_eq!(speed.status, "skip");
        assert!(speed.message.starts_with(NO_GPU_TIMER), "{}", speed.message);
        let numbers = out.results.iter().find(|r| r.name == "numbers").unwrap();
        assert!(numbers.details.iter().any(|d| d.starts_with(NO_GPU)));
    }

    #[test]
    fn a_gpu_speed_check_is_left_for_the_worker_to_time_and_then_finished() {
        let gpu = gpu_exercise();
        let begun = begin(&gpu.id, &gpu.solution, &|| 0.0).unwrap();
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
        let gpu = gpu_exercise();
        let unbound: String = gpu
            .solution
            .lines()
            .filter(|l| !l.starts_with("sch.bind("))
            .map(|l| format!("{l}\n"))
            .collect();
        let begun = begin(&gpu.id, &unbound, &|| 0.0).unwrap();
        let p = &begun.pending[0];
        match gpu_kernels(p, &GpuLimits::default()) {
            Err(SpeedError::StudentBuild(m)) => {
                assert!(m.starts_with("cannot build `main` for webgpu: "), "{m}")
            }
            other => panic!("{other:?}"),
        }
    }
}
