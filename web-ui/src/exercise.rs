//! Course exercises in the worker: the catalogue the page lists (without
//! solutions) and the checker, which grades an answer with the session's
//! checker on this platform's backend, so the page shows the same verdict
//! as `tessel exercise check`.

use tessel_session::exercise::{check_answer, CheckEnv, Exercise, Status};
use tessel_session::structure_diff::HighlightedIr;

use crate::engine;
use crate::protocol::{CheckOutcome, CheckView, ExerciseInfo, IrPane, StructureView};

/// Why GPU exercises run on the reference interpreter here: WebGPU is
/// asynchronous and the checker runs synchronously.
const NO_GPU: &str = "the page's checker does not use WebGPU yet";

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
            id: e.id,
            title: e.title,
            statement: e.statement,
            starting_code: e.starting_code,
            hints: e.hints,
            target: e.target,
        })
        .collect())
}

/// Grades `source` against exercise `id`; `now` (milliseconds) times it.
pub fn check(id: &str, source: &str, now: &dyn Fn() -> f64) -> CheckOutcome {
    let started = now();
    let exercise = match bundled().map(|all| all.into_iter().find(|e| e.id == id)) {
        Ok(Some(e)) => e,
        Ok(None) => return failure(id, format!("no exercise `{id}`")),
        Err(m) => return failure(id, m),
    };
    let env = CheckEnv {
        script: engine::script_env(),
        no_gpu: Some(NO_GPU.into()),
    };
    let verdict = check_answer(&exercise, source, &env);
    CheckOutcome {
        exercise: id.to_string(),
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
        millis: now() - started,
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
        millis: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn gpu_exercises_say_why_their_speed_is_skipped() {
        let gpu = tessel_course::bundled()
            .unwrap()
            .into_iter()
            .find(|e| e.id == "gpu-shared-memory")
            .unwrap();
        let out = check(&gpu.id, &gpu.solution, &|| 0.0);
        assert!(out.passed, "{}", out.text);
        let speed = out.results.iter().find(|r| r.name == "speed").unwrap();
        assert_eq!(speed.status, "skip");
        assert!(speed.message.starts_with(NO_GPU), "{}", speed.message);
    }
}
