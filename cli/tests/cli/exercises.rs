//! `tessel exercise`: the list, the verdict (the same text the session's
//! checker renders for the page), and every bundled exercise's solution
//! passing and starting code failing through the real command.

use std::path::PathBuf;
use std::process::Command;
use std::rc::Rc;

use compiler_core::target::{NoClock, ReferenceBackend};
use tessel_session::exercise::{check_answer, CheckEnv};
use tessel_session::ScriptEnv;

fn tessel(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tessel"))
        .args(args)
        // wgpu's probe wants a runtime dir on headless machines.
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        // Answers that tune write their records under the working directory
        // (`work_dir="./tune_tmp"`, as in TVM): not into the source tree.
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run tessel");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessel-exercise-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn write(name: &str, text: &str) -> String {
    let path = scratch(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn list_prints_one_exercise_per_line_id_first() {
    let (code, stdout, _) = tessel(&["exercise", "list"]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let bundled: Vec<String> = tessel_course::bundled()
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, bundled);
    assert!(stdout.contains("broadcast-add\tllvm\tBroadcast add (MLC §2.5, Exercise 1)\n"));
}

#[test]
fn check_prints_the_pages_verdict() {
    let ex = tessel_course::bundled()
        .unwrap()
        .into_iter()
        .find(|e| e.id == "broadcast-add")
        .unwrap();
    let wrong = ex.solution.replace("B[vj]", "B[vi]");
    let file = write("wrong-broadcast.py", &wrong);
    let (code, stdout, _) = tessel(&["exercise", "check", "broadcast-add", &file]);
    assert_eq!(code, 1);
    let env = CheckEnv {
        script: ScriptEnv {
            host: Rc::new(NoClock),
            backend: Rc::new(ReferenceBackend::default()),
            limits: tessel_script::Limits::default(),
            take_notes: None,
        },
        no_gpu: Some("no WebGPU adapter on this machine".into()),
    };
    assert_eq!(stdout, check_answer(&ex, &wrong, &env).render());
    assert!(stdout.contains("FAIL numbers: output `C` differs from the reference: at index [0, 1]"));
}

#[test]
fn check_rejects_unknown_exercises_and_malformed_folders() {
    let file = write("any.py", "print(1)\n");
    let (code, _, stderr) = tessel(&["exercise", "check", "no-such", &file]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no exercise `no-such`"), "{stderr}");
    let dir = scratch("course");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.toml"), "id = \"bad\"\ntitle = 3\n").unwrap();
    let (code, _, stderr) = tessel(&["exercise", "list", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("bad.toml: line 2, column 9: invalid type"),
        "{stderr}"
    );
}

/// Every exercise through the command: the solution passes (exit 0), the
/// starting code fails (exit 1). CPU exercises run on the native backend,
/// speed checks included; GPU exercises on the reference interpreter (a
/// CI machine's GPU, if any, is often a software one whose timings mean
/// nothing), which checks their numbers and skips their speed.
#[test]
fn every_solution_passes_and_every_starting_code_fails() {
    for ex in tessel_course::bundled().unwrap() {
        let backend = if ex.is_gpu() { "reference" } else { "native" };
        let solution = write(&format!("{}-solution.py", ex.id), &ex.solution);
        let (code, stdout, stderr) =
            tessel(&["exercise", "check", "--backend", backend, &ex.id, &solution]);
        assert_eq!(code, 0, "{}: the solution fails:\n{stdout}{stderr}", ex.id);
        assert!(stdout.contains("All checks passed"), "{stdout}");
        let start = write(&format!("{}-start.py", ex.id), &ex.starting_code);
        let (code, stdout, stderr) =
            tessel(&["exercise", "check", "--backend", backend, &ex.id, &start]);
        assert_eq!(
            code, 1,
            "{}: the starting code passes:\n{stdout}{stderr}",
            ex.id
        );
        assert!(stdout.contains("Not yet"), "{stdout}");
    }
}

#[test]
fn a_failed_structure_check_shows_both_functions_around_the_mismatch() {
    let ex = tessel_course::bundled()
        .unwrap()
        .into_iter()
        .find(|e| e.id == "bmm-relu-transform")
        .unwrap();
    let partial = ex.solution.replace("sch.unroll(k1)", "");
    let file = write("partial-bmm-relu.py", &partial);
    let (code, stdout, _) = tessel(&["exercise", "check", "bmm-relu-transform", &file]);
    assert_eq!(code, 1);
    // The page's verdict first, word for word.
    let env = CheckEnv {
        script: ScriptEnv {
            host: Rc::new(NoClock),
            backend: Rc::new(ReferenceBackend::default()),
            limits: tessel_script::Limits::default(),
            take_notes: None,
        },
        no_gpu: None,
    };
    let verdict = check_answer(&ex, &partial, &env).render();
    assert!(stdout.starts_with(&verdict), "{stdout}");
    // Then an excerpt of each side, the mismatching line marked.
    let rest = &stdout[verdict.len()..];
    let yours = rest.find("\nyours:\n").expect("yours");
    let target = rest.find("\ntarget:\n").expect("target");
    assert!(yours < target, "{rest}");
    let marked: Vec<&str> = rest.lines().filter(|l| l.starts_with("> ")).collect();
    assert_eq!(marked.len(), 2, "{rest}");
    assert!(
        marked[0].starts_with("> 20 | ")
            && marked[0].ends_with(" for k_0, k_1, j_1 in T.grid(32, 4, 8):"),
        "{rest}"
    );
    assert!(
        marked[1].starts_with("> 21 | ") && marked[1].ends_with(" for ax1_1 in T.unroll(4):"),
        "{rest}"
    );
}
