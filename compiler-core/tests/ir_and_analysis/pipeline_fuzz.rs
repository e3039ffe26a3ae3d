//! Bad input never panics anywhere in the pipeline: mutated course programs
//! go through the builder, the verifier, the printer and (when they verify)
//! the interpreter with a step budget. A panic in wasm kills the page.

use compiler_core::analysis::verify::verify_module;
use compiler_core::eval::{random_inputs, run_prim_func, EvalOptions};
use compiler_core::tvmscript::builder::parse_script;
use compiler_core::tvmscript::printer::{print_module, PrintOptions};
use proptest::prelude::*;

fn seeds() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/seeds");
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    out.sort();
    out
}

/// Tokens worth splicing in: the ones TVMScript gives meaning to.
const TOKENS: &[&str] = &[
    "T.int64(",
    "128",
    "0",
    "-1",
    "T.float32(",
    "T.axis.reduce(",
    "T.axis.remap(\"SR\", [i, j])",
    "vi",
    "vk",
    "i",
    "T.grid(",
    "range(",
    "T.where(",
    "T.init()",
    "[vi, vj]",
    ":",
    ",",
    ")",
    "(",
    "\n    ",
    "T.Buffer((",
    "T.block(\"X\")",
    "//",
    "%",
    "*",
    "+",
    "T.max(",
    "T.alloc_buffer((4,), \"int8\")",
    "T.match_buffer(",
    "T.thread_binding(",
    "\"float16\"",
];

fn run_pipeline(src: &str) {
    let Ok(parsed) = parse_script(src) else {
        return;
    };
    let module = parsed.to_module();
    let diags = verify_module(&module);
    let _ = print_module(&module, &PrintOptions::default());
    if diags.iter().any(|d| d.is_error()) {
        return;
    }
    let opts = EvalOptions {
        step_budget: Some(20_000),
        check_regions: true,
        max_alloc_bytes: 1 << 22,
    };
    for (_, f) in module.prim_funcs() {
        if let Ok(mut args) = random_inputs(f, 1, &Default::default()) {
            let _ = run_prim_func(f, &mut args, &opts);
        }
    }
}

/// 300 cases by default; `PROPTEST_CASES` for a longer run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_seeds_never_panic(
        which in 0usize..64,
        edits in prop::collection::vec((0usize..100_000, 0usize..TOKENS.len(), 0u8..3, 1usize..12), 1..4),
    ) {
        let all = seeds();
        let mut src = all[which % all.len()].clone();
        for (pos, tok, kind, len) in edits {
            let mut at = pos % (src.len() + 1);
            while !src.is_char_boundary(at) { at -= 1; }
            match kind {
                0 => src.insert_str(at, TOKENS[tok]),
                1 => {
                    let mut end = (at + len).min(src.len());
                    while !src.is_char_boundary(end) { end -= 1; }
                    src.replace_range(at..end, "");
                }
                _ => {
                    let mut end = (at + len).min(src.len());
                    while !src.is_char_boundary(end) { end -= 1; }
                    src.replace_range(at..end, TOKENS[tok]);
                }
            }
        }
        run_pipeline(&src);
    }
}

#[test]
fn every_seed_runs_through_the_whole_pipeline() {
    for src in seeds() {
        run_pipeline(&src);
    }
}
