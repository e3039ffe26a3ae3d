//! Lowering and emission never panic and never emit an invalid module:
//! every seed builds (or is refused with a message), and so do mutated
//! seeds that pass the verifier. An "internal" error is a backend bug.

use codegen_wasm::build;
use compiler_core::analysis::verify::verify_module;
use compiler_core::tvmscript::builder::parse_script;
use proptest::prelude::*;

fn seeds() -> Vec<(String, String)> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler-core/tests/data/seeds");
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// `Ok(true)` built, `Ok(false)` refused with a user-facing message.
fn try_build(src: &str) -> Result<bool, String> {
    let Ok(parsed) = parse_script(src) else {
        return Ok(false);
    };
    let module = parsed.to_module();
    if verify_module(&module).iter().any(|d| d.is_error()) {
        return Ok(false);
    }
    match build(&module) {
        Ok(m) => {
            codegen_wasm::validate(m.bytes()).map_err(|e| e.message)?;
            m.wat().map_err(|e| e.message)?;
            Ok(true)
        }
        Err(e) if e.message.contains("internal") => Err(e.message),
        Err(_) => Ok(false),
    }
}

#[test]
fn every_seed_builds_or_is_refused_cleanly() {
    let mut built = 0;
    for (name, src) in seeds() {
        match try_build(&src) {
            Ok(true) => built += 1,
            Ok(false) => eprintln!("{name}: refused"),
            Err(e) => panic!("{name}: {e}"),
        }
    }
    assert!(built >= 25, "only {built} seeds built");
}

const TOKENS: &[&str] = &[
    "T.int64(",
    "128",
    "0",
    "-1",
    "3",
    "T.float32(",
    "T.float64(",
    "\"int8\"",
    "\"float64\"",
    "T.axis.reduce(",
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
    "//",
    "%",
    "*",
    "+",
    "-",
    "T.max(",
    "T.min(",
    "T.exp(",
    "T.vectorized(",
    "T.unroll(",
    "T.parallel(",
    "T.alloc_buffer((4,), \"int8\")",
    "T.match_buffer(",
    "T.thread_binding(",
    "\"float16\"",
    "T.Cast(\"int32\", ",
];

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_seeds_build_or_are_refused(
        which in 0usize..64,
        edits in prop::collection::vec((0usize..100_000, 0usize..TOKENS.len(), 0u8..3, 1usize..12), 1..4),
    ) {
        let all = seeds();
        let mut src = all[which % all.len()].1.clone();
        for (pos, tok, kind, len) in edits {
            let mut at = pos % (src.len() + 1);
            while !src.is_char_boundary(at) { at -= 1; }
            let mut end = (at + len).min(src.len());
            while !src.is_char_boundary(end) { end -= 1; }
            match kind {
                0 => src.insert_str(at, TOKENS[tok]),
                1 => src.replace_range(at..end, ""),
                _ => src.replace_range(at..end, TOKENS[tok]),
            }
        }
        if let Err(e) = try_build(&src) {
            panic!("{e}\n--- source ---\n{src}");
        }
    }
}
