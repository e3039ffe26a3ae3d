//! Every seed program (TVMScript from the course) through the interpreter,
//! with region checking on and a step budget: a seed must either finish or
//! run into the budget (the 1024³ matmuls are too big for a debug test);
//! any other error fails the test unless it is listed as expected.

use std::collections::HashMap;

use compiler_core::eval::*;
use compiler_core::tvmscript::builder::parse_script;

const BUDGET: u64 = 100_000;

/// Seeds whose failure is correct, with a fragment of the expected message.
const EXPECTED_ERRORS: &[(&str, &str)] = &[
    // The seed declares `strides=[sa, -1]`; a compact argument has stride 1.
    (
        "seed001_20_tmm16_impl.py",
        "argument A, stride 1 (the array is compact): expected -1, got 1",
    ),
];

#[test]
fn every_seed_runs_or_reaches_the_budget() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/seeds");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 25, "seeds missing: {}", paths.len());
    let opts = EvalOptions {
        check_regions: true,
        step_budget: Some(BUDGET),
        ..EvalOptions::default()
    };
    let mut finished = 0;
    let mut failures = Vec::new();
    for path in &paths {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(path).unwrap();
        let module = parse_script(&src)
            .unwrap_or_else(|e| panic!("{file}: parse error {}", e.message))
            .to_module();
        for (name, f) in module.prim_funcs() {
            let result = random_inputs(f, 1, &HashMap::new()).and_then(|mut args| {
                let compiled = CompiledFunc::new(f)?;
                compiled.run(&mut args, &opts)
            });
            let expected = EXPECTED_ERRORS
                .iter()
                .find(|(f, _)| *f == file)
                .map(|e| e.1);
            match (result, expected) {
                (Ok(_), None) => finished += 1,
                (Err(e), None) if e.message.starts_with("step budget") => {}
                (Err(e), Some(want)) if e.message.contains(want) => {}
                (r, _) => failures.push(format!(
                    "{file} {name}: {:?} `{}`",
                    r.as_ref().map_err(|e| &e.message),
                    r.as_ref().err().map(|e| e.span.slice(&src)).unwrap_or("")
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(finished >= 15, "only {finished} seed functions finished");
}
