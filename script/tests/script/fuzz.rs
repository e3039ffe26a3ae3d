//! The interpreter runs whatever is in the editor: mutated versions of the
//! test scripts (lines dropped, duplicated or swapped, tokens replaced) must
//! end normally or with a Python exception — never a panic — within small
//! budgets. `PROPTEST_CASES` overrides the number of cases (default 150).

use crate::support::*;
use proptest::prelude::*;
use tessel_script::{Interpreter, Limits};

fn corpus() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["script_lang", "scripts"] {
        for p in scripts_in(dir) {
            out.push(std::fs::read_to_string(p).unwrap());
        }
    }
    out
}

const TOKENS: &[&str] = &[
    "0",
    "-1",
    "2 ** 40",
    "None",
    "[]",
    "{}",
    "()",
    "'s'",
    "1.5",
    "np.zeros((3, 3))",
    "x",
    "sch",
    "T",
    "tvm",
    "lambda: 1",
    "*",
    "[",
    ")",
    ":",
    "yield",
    "raise",
    "i",
    "j0",
    "a_np",
    "range(10 ** 9)",
    "MyModule",
    "i0",
    "block",
    "float('nan')",
];

#[derive(Debug, Clone)]
enum Edit {
    Drop(usize),
    Dup(usize),
    Swap(usize, usize),
    Replace(usize, usize, usize),
}

fn apply(src: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    for e in edits {
        let n = lines.len().max(1);
        match *e {
            Edit::Drop(i) if !lines.is_empty() => {
                lines.remove(i % n);
            }
            Edit::Dup(i) if !lines.is_empty() => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Edit::Swap(i, j) if !lines.is_empty() => lines.swap(i % n, j % n),
            Edit::Replace(i, word, tok) if !lines.is_empty() => {
                let line = &lines[i % n];
                let words: Vec<&str> = line.split(' ').collect();
                let w = word % words.len().max(1);
                let mut new: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                if let Some(slot) = new.get_mut(w) {
                    *slot = TOKENS[tok % TOKENS.len()].to_string();
                }
                lines[i % n] = new.join(" ");
            }
            _ => {}
        }
    }
    lines.join("\n")
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Drop),
        any::<usize>().prop_map(Edit::Dup),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
        (any::<usize>(), any::<usize>(), any::<usize>())
            .prop_map(|(a, b, c)| Edit::Replace(a, b, c)),
    ]
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150)
}

#[test]
fn mutated_scripts_never_panic() {
    let corpus = corpus();
    let limits = Limits {
        steps: 200_000,
        memory: 64 << 20,
        ..limits()
    };
    let result = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
                cases: cases(),
                failure_persistence: None,
                ..ProptestConfig::default()
            });
            runner
                .run(
                    &(0..corpus.len(), proptest::collection::vec(edit(), 1..6)),
                    |(k, edits)| {
                        let src = apply(&corpus[k], &edits);
                        let mut interp = Interpreter::new(limits);
                        // Whole script, then as notebook cells.
                        let _ = interp.run_cell(&src, "<fuzz>");
                        for cell in tessel_script::notebook_cells(&src) {
                            let _ = interp.run_notebook_cell(&cell, "<fuzz>");
                        }
                        let _ = interp.take_output();
                        Ok(())
                    },
                )
                .map_err(|e| e.to_string())
        })
        .unwrap()
        .join();
    match result {
        Ok(Ok(())) => {}
        Ok(Err(e)) => panic!("{e}"),
        Err(_) => panic!("the interpreter panicked on a mutated script"),
    }
}
