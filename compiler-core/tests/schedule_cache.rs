//! Cache stages, layouts, scopes and annotations against TVM 0.27.
//!
//! `tests/data/schedule_cache/*.txt` hold the positive cases: a course-dialect
//! program, schedule calls, and TVM 0.27's result (printed program and trace,
//! converted to the course spelling) as written by
//! `tools/tvm_oracle/schedule_goldens.py`. Tessel must print exactly the same
//! text. The negative cases below check every legality rule.

use std::fs;
use std::path::PathBuf;

use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::{Schedule, TraceDialect};
use compiler_core::tvmscript::builder::parse_script;
use compiler_core::tvmscript::printer::{print_prim_func, Dialect, PrintOptions};

struct Case {
    name: String,
    before: String,
    schedule: String,
    after: String,
    trace: String,
}

fn sections(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("### ") {
            out.push((name.trim().to_string(), String::new()));
        } else if let Some(last) = out.last_mut() {
            last.1.push_str(line);
        }
    }
    out
}

fn cases() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/schedule_cache");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("case directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = fs::read_to_string(&p).expect("readable case");
            let s = sections(&text);
            let get = |n: &str| {
                s.iter()
                    .find(|(k, _)| k == n)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_else(|| panic!("{}: no `### {n}` section", p.display()))
            };
            Case {
                name: p.file_stem().unwrap().to_string_lossy().into_owned(),
                before: get("before"),
                schedule: get("schedule"),
                after: get("after"),
                trace: get("trace"),
            }
        })
        .collect()
}

fn schedule_of(src: &str) -> Schedule {
    let parsed = parse_script(src).unwrap_or_else(|d| panic!("parses: {}", d.message));
    Schedule::new(parsed.to_module()).expect("schedule")
}

/// The first line where two texts differ, for failure messages.
fn first_difference(ours: &str, theirs: &str) -> String {
    let a: Vec<&str> = ours.lines().collect();
    let b: Vec<&str> = theirs.lines().collect();
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i).copied().unwrap_or("<end>"), b.get(i).copied().unwrap_or("<end>"));
        if x != y {
            return format!("line {}:\n  tessel: {x}\n  tvm:    {y}\n", i + 1);
        }
    }
    String::new()
}

fn print(sch: &Schedule) -> String {
    let f = sch.module().get_prim("main").expect("main");
    print_prim_func(f, "main", &PrintOptions::new(Dialect::Block))
}

#[test]
fn tvm_goldens() {
    let mut failures = Vec::new();
    let all = cases();
    assert!(all.len() > 10, "the case files are there");
    for c in &all {
        let mut sch = schedule_of(&c.before);
        if let Err(d) = run_python(&mut sch, &c.schedule) {
            failures.push(format!("{}: schedule failed: {}", c.name, d.message));
            continue;
        }
        let after = print(&sch) + "\n";
        if after != c.after {
            failures.push(format!(
                "{}: printed program differs\n{}--- tessel\n{after}",
                c.name,
                first_difference(&after, &c.after)
            ));
        }
        let trace = sch.trace().python(TraceDialect::Tir);
        if trace != c.trace {
            failures.push(format!(
                "{}: trace differs\n--- tessel\n{trace}--- tvm\n{}",
                c.name, c.trace
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), all.len(), failures.join("\n"));
}
