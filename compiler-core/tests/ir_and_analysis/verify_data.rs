//! The verifier on real TVMScript: every `tests/data/verify_fail/*.py` must be
//! rejected (by the builder or the verifier) with an error at a sensible span,
//! and every `tests/data/seeds/*.py` must verify without errors.
//!
//! Both directories are filled by the oracle work; while one is absent the
//! corresponding test only says so (it cannot check what is not there).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use compiler_core::analysis::verify::{has_errors, verify_module_as};
use compiler_core::diag::{Diagnostic, LineIndex, Severity};
use compiler_core::tvmscript::builder::parse_script;

fn data_files(dir: &str) -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(dir);
    let entries = std::fs::read_dir(&dir).ok()?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    Some(files)
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// `line:col: severity: message [source text]`, one diagnostic per line.
fn describe(d: &Diagnostic, src: &str) -> String {
    let (l, c) = LineIndex::new(src).line_col(d.span.start);
    let text = d.span.slice(src).lines().next().unwrap_or("");
    format!("{}:{}: {}: {} [{}]", l, c, d.severity, d.message, text)
}

/// The backticked snippets of the file's `# expect:` line: the source the
/// error is about (`A[i]`, `T.axis.spatial(128, i)`). A snippet with `...`
/// stands for its part before the ellipsis.
fn expected_snippets(src: &str) -> Vec<String> {
    let Some(line) = src.lines().find(|l| l.starts_with("# expect:")) else {
        return Vec::new();
    };
    line.split('`')
        .skip(1)
        .step_by(2)
        .map(|snip| match snip.find("...") {
            Some(k) if k > 0 => snip[..k].trim_end_matches([',', ' ', '(']).to_string(),
            _ => snip.to_string(),
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// Where the file's code starts: after the leading `#` comment block.
fn code_start(src: &str) -> u32 {
    let mut off = 0;
    for line in src.split_inclusive('\n') {
        let t = line.trim_start();
        if !(t.starts_with('#') || t.is_empty()) {
            break;
        }
        off += line.len();
    }
    off as u32
}

#[test]
fn verify_fail_programs_are_rejected_at_a_sensible_span() {
    let Some(files) = data_files("verify_fail") else {
        eprintln!("tests/data/verify_fail is not there yet: nothing to check");
        return;
    };
    let mut report = String::new();
    let mut failures = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let n = name(path);
        let diags = match parse_script(&src) {
            Err(d) => vec![d],
            Ok(script) => verify_module_as(&script.to_module(), script.api_generation()),
        };
        let Some(first) = diags.iter().find(|d| d.severity == Severity::Error) else {
            failures.push(format!("{n}: accepted"));
            continue;
        };
        // (A parse error may point at an empty span, e.g. the end of a line.)
        let ok_span =
            first.span.start >= code_start(&src) && (first.span.end as usize) <= src.len();
        if !ok_span {
            failures.push(format!(
                "{n}: error outside the program: {}",
                describe(first, &src)
            ));
        }
        // The error must be on a line showing what the expectation is about.
        let snippets = expected_snippets(&src);
        let idx = LineIndex::new(&src);
        let (line, _) = idx.line_col(first.span.start);
        let text = idx.line_text(line);
        if !snippets.is_empty() && !snippets.iter().any(|s| text.contains(s.as_str())) {
            failures.push(format!(
                "{n}: error on a line showing none of {snippets:?}: {}",
                describe(first, &src)
            ));
        }
        let _ = writeln!(report, "{n}\n  {}", describe(first, &src));
    }
    println!("{report}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn seed_programs_verify_without_errors() {
    check_clean("seeds");
}

/// TVM 0.27's own printing of the seeds (with the regions TVM inferred).
#[test]
fn tvm_printed_seeds_verify_without_errors() {
    check_clean("seeds_tvm");
}

/// Programs in TVM 0.27's `T.sblock` generation that the course's rules
/// would reject and TVM 0.27 accepts (see `ApiGeneration`).
#[test]
fn tvm027_generation_programs_verify_without_errors() {
    check_clean("verify_pass_tvm027");
}

/// The same programs spelled in the course's `T.block` generation are errors.
#[test]
fn tvm027_generation_programs_are_errors_in_the_course_generation() {
    let files = data_files("verify_pass_tvm027").expect("tests/data/verify_pass_tvm027");
    assert!(!files.is_empty());
    let mut accepted = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path)
            .unwrap()
            .replace(
                "from tvm.script import tirx as T",
                "from tvm.script import tir as T",
            )
            .replace("@T.prim_func(s_tir=True)", "@T.prim_func")
            .replace("T.sblock(", "T.block(");
        let script = parse_script(&src).unwrap_or_else(|d| panic!("{}: {}", name(path), d.message));
        let diags = verify_module_as(&script.to_module(), script.api_generation());
        if !has_errors(&diags) {
            accepted.push(name(path));
        }
    }
    assert!(
        accepted.is_empty(),
        "accepted in the course generation: {accepted:?}"
    );
}

fn check_clean(dir: &str) {
    let Some(files) = data_files(dir) else {
        eprintln!("tests/data/{dir} is not there yet: nothing to check");
        return;
    };
    let mut failures = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let n = name(path);
        let script = match parse_script(&src) {
            Ok(s) => s,
            // Building is the builder's business (its own tests cover the seeds).
            Err(d) => {
                eprintln!("{n}: not built: {}", describe(&d, &src));
                continue;
            }
        };
        let diags = verify_module_as(&script.to_module(), script.api_generation());
        for d in &diags {
            println!("{n}: {}", describe(d, &src));
        }
        if has_errors(&diags) {
            let errs: Vec<String> = diags
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{n}: {}", describe(d, &src)))
                .collect();
            failures.extend(errs);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// TVM 0.27's parser casts a stored value to the buffer's element type; the
/// course's generation keeps the value and the verifier reports it.
#[test]
fn stores_cast_to_the_buffer_type_in_the_tvm027_generation_only() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/verify_pass_tvm027/store_casts_to_buffer_dtype.py");
    let src = std::fs::read_to_string(path).unwrap();
    let script = parse_script(&src).unwrap();
    let printed = compiler_core::tvmscript::builder::print_item(
        &script.items[0],
        &compiler_core::tvmscript::printer::PrintOptions::new(script.dialect.into()),
    );
    assert!(
        printed.contains(r#"B[vi] = T.Cast("float32", A[vi] + 1)"#),
        "{printed}"
    );
    let course = src
        .replace(
            "from tvm.script import tirx as T",
            "from tvm.script import tir as T",
        )
        .replace("@T.prim_func(s_tir=True)", "@T.prim_func")
        .replace("T.sblock(", "T.block(");
    let script = parse_script(&course).unwrap();
    let diags = verify_module_as(&script.to_module(), script.api_generation());
    assert!(
        diags.iter().any(|d| d.is_error()
            && d.message == "cannot store a int32 value into buffer `B` of float32"),
        "{diags:?}"
    );
}
