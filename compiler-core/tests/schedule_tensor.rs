//! `rfactor`, `blockize`, `tensorize` and trace JSON, against Apache TVM 0.27.
//!
//! Data-driven cases live in `tests/data/schedule_tensor/` (see `gen_tvm.py`
//! there): `<case>.py` is the program before, `<case>.sched.py` the schedule;
//! `<case>.after.py` and `<case>.trace.py` are TVM's results in the course
//! dialect (hand-written for tensorize, which crashes in TVM 0.27), and
//! `<case>.tvm_error.txt` records that TVM rejects a case we must reject.

use std::path::{Path, PathBuf};

use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::{Schedule, TraceDialect};
use compiler_core::tvmscript::builder::{parse_script, Item};
use compiler_core::tvmscript::printer::{print_module, Dialect, PrintOptions};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schedule_tensor")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn block_dialect(sch: &Schedule) -> String {
    print_module(sch.module(), &PrintOptions::new(Dialect::Block))
}

/// A schedule over `<case>.py`, with the intrinsics of `<case>.intrin.py`.
fn schedule_for(case: &str) -> Schedule {
    let dir = data_dir();
    let src = read(&dir.join(format!("{case}.py")));
    let parsed = parse_script(&src).unwrap_or_else(|d| panic!("{case}.py: {}", d.message));
    let mut sch = Schedule::new(parsed.to_module()).expect("schedule");
    register_intrinsics(&mut sch, &dir.join(format!("{case}.intrin.py")));
    sch
}

/// Registers every `NAME_desc` / `NAME_impl` pair of a file under `NAME`.
fn register_intrinsics(sch: &mut Schedule, path: &Path) {
    if !path.exists() {
        return;
    }
    let parsed =
        parse_script(&read(path)).unwrap_or_else(|d| panic!("{}: {}", path.display(), d.message));
    let funcs: Vec<(String, std::rc::Rc<compiler_core::ir::PrimFunc>)> = parsed
        .items
        .iter()
        .filter_map(|i| match i {
            Item::PrimFunc { name, func } => Some((name.clone(), func.clone())),
            _ => None,
        })
        .collect();
    for (name, desc) in &funcs {
        let Some(base) = name.strip_suffix("_desc") else {
            continue;
        };
        let imp = funcs
            .iter()
            .find(|(n, _)| *n == format!("{base}_impl"))
            .map(|(_, f)| f.clone())
            .unwrap_or_else(|| panic!("{base}_impl missing"));
        sch.tensor_intrins_mut()
            .register(base, desc.clone(), imp, false)
            .unwrap_or_else(|e| panic!("register {base}: {e}"));
    }
}

fn directive(sched: &str, key: &str) -> Option<String> {
    sched.lines().find_map(|l| {
        let l = l.trim_start_matches('#').trim();
        l.strip_prefix(key)
            .map(|r| r.trim_start_matches(':').trim().to_string())
    })
}

/// The differences between two texts, line by line (for failure messages).
fn diff(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut out = String::new();
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i).copied(), a.get(i).copied());
        if x != y {
            out.push_str(&format!(
                "line {}:\n  expected: {}\n  actual:   {}\n",
                i + 1,
                x.unwrap_or("<none>"),
                y.unwrap_or("<none>")
            ));
        }
    }
    out
}

/// Runs one data case; returns what went wrong.
fn check_case(case: &str) -> Result<(), String> {
    let dir = data_dir();
    let sched = read(&dir.join(format!("{case}.sched.py")));
    let mut sch = schedule_for(case);
    let before = block_dialect(&sch);
    let result = run_python(&mut sch, &sched);
    if let Some(expected) = directive(&sched, "expect-error") {
        if !dir.join(format!("{case}.tvm_error.txt")).exists() && directive(&sched, "tvm").is_none()
        {
            return Err(format!("{case}: no {case}.tvm_error.txt (run gen_tvm.py)"));
        }
        return match result {
            Ok(_) => Err(format!(
                "{case}: expected an error containing {expected:?}, the schedule succeeded"
            )),
            Err(d) if d.message.contains(&expected) => {
                // An illegal request never changes the IR... (earlier calls may have).
                Ok(())
            }
            Err(d) => Err(format!(
                "{case}: expected an error containing {expected:?}, got {:?}",
                d.message
            )),
        };
    }
    if let Err(d) = result {
        return Err(format!("{case}: the schedule failed: {}", d.message));
    }
    let ours = block_dialect(&sch) + "\n";
    let expected = read(&dir.join(format!("{case}.after.py")));
    if ours != expected {
        return Err(format!(
            "{case}: module differs from {case}.after.py\n{}",
            diff(&expected, &ours)
        ));
    }
    let trace_path = dir.join(format!("{case}.trace.py"));
    let trace = sch.trace().python(TraceDialect::Tir);
    if trace_path.exists() {
        let expected = read(&trace_path);
        if trace != expected {
            return Err(format!(
                "{case}: trace differs\n{}",
                diff(&expected, &trace)
            ));
        }
    }
    // The printed trace replays to the same module on the original program.
    let mut again = schedule_for(case);
    run_python(&mut again, &trace)
        .map_err(|d| format!("{case}: replaying the trace failed: {}", d.message))?;
    if block_dialect(&again) != block_dialect(&sch) {
        return Err(format!("{case}: the replayed trace gives another module"));
    }
    let _ = before;
    Ok(())
}

fn cases(prefix: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(data_dir())
        .expect("data dir")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".sched.py"))
                .map(str::to_string)
        })
        .filter(|n| n.starts_with(prefix))
        .collect();
    out.sort();
    out
}

fn check_all(prefix: &str) {
    let all = cases(prefix);
    assert!(!all.is_empty(), "no {prefix}* cases");
    let failures: Vec<String> = all.iter().filter_map(|c| check_case(c).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

#[test]
fn rfactor_matches_tvm() {
    check_all("rfactor_");
}

#[test]
fn blockize_matches_tvm() {
    check_all("blockize_");
}
