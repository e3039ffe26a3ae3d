//! Cache stages, layouts, scopes and annotations against TVM 0.27.
//!
//! `tests/data/schedule_cache/*.txt` hold the positive cases: a course-dialect
//! program, schedule calls, and TVM 0.27's result (printed program and trace,
//! converted to the course spelling) as written by
//! `tools/tvm_oracle/schedule_goldens.py`. For each, Tessel must
//! - print exactly TVM's text, and build IR structurally equal to TVM's text
//!   parsed back;
//! - produce IR the verifier accepts;
//! - compute what the original computes, on random inputs, with the
//!   interpreter checking every access against the declared regions (unless
//!   the case's `### numerics` section says why TVM's own result differs, or
//!   the program is too big to interpret in a test);
//! - print a trace that replays (as text and as a trace object) to itself.
//!
//! The negative cases below check every legality rule.

use std::fs;
use std::path::PathBuf;

use std::collections::HashMap;

use compiler_core::analysis::structural_equal::prim_func_equal;
use compiler_core::analysis::verify::{has_errors, verify_prim_func};
use compiler_core::eval::{allclose, random_inputs, run_prim_func, EvalOptions};
use compiler_core::ir::PrimFunc;
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
    /// Why the result does not compute what the original does (TVM's own
    /// behaviour), if it does not.
    numerics: Option<String>,
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
                numerics: s
                    .iter()
                    .find(|(k, _)| k == "numerics")
                    .map(|(_, v)| v.trim().to_string()),
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
        let (x, y) = (
            a.get(i).copied().unwrap_or("<end>"),
            b.get(i).copied().unwrap_or("<end>"),
        );
        if x != y {
            return format!("line {}:\n  tessel: {x}\n  tvm:    {y}\n", i + 1);
        }
    }
    String::new()
}

fn main_of(sch: &Schedule) -> PrimFunc {
    (**sch.module().get_prim("main").expect("main")).clone()
}

/// Runs both functions on the same random inputs (two seeds) and compares
/// every argument afterwards: whether they agree, `None` when the program is
/// too big to interpret here (or a parameter changed shape), `Err` for a
/// fault (the interpreter checks accesses against the declared regions).
fn same_results(before: &PrimFunc, after: &PrimFunc) -> Result<Option<bool>, String> {
    same_results_n(before, after, 2)
}

fn same_results_n(before: &PrimFunc, after: &PrimFunc, seeds: u64) -> Result<Option<bool>, String> {
    const BUDGET: u64 = 1_500_000;
    let shapes = |f: &PrimFunc| -> Vec<Vec<String>> {
        f.param_buffers()
            .map(|b| b.shape.iter().map(|e| format!("{e:?}")).collect())
            .collect()
    };
    if shapes(before) != shapes(after) {
        // A transformed parameter: the inputs would need the same permutation.
        return Ok(None);
    }
    if work(&before.body) > BUDGET / 2 {
        return Ok(None);
    }
    for seed in 0..seeds {
        let inputs = random_inputs(before, seed, &HashMap::new()).map_err(|e| e.message)?;
        let mut a = inputs.clone();
        let mut b = inputs;
        let opts = EvalOptions {
            step_budget: Some(BUDGET),
            check_regions: true,
            ..EvalOptions::default()
        };
        match run_prim_func(before, &mut a, &opts) {
            Err(e) if e.message.contains("step budget") => return Ok(None),
            Err(e) => return Err(format!("the original faults: {}", e.message)),
            Ok(()) => {}
        }
        let opts = EvalOptions {
            step_budget: Some(BUDGET * 4),
            ..opts
        };
        run_prim_func(after, &mut b, &opts)
            .map_err(|e| format!("the result faults: {}", e.message))?;
        for (x, y) in a.iter().zip(&b) {
            if allclose(x, y, 1e-5, 1e-5).is_err() {
                return Ok(Some(false));
            }
        }
    }
    Ok(Some(true))
}

/// Roughly how many stores running `s` takes (loop extents multiplied).
fn work(s: &compiler_core::ir::Stmt) -> u64 {
    use compiler_core::ir::StmtKind;
    match s.kind() {
        StmtKind::For(l) => {
            let n = l.extent.as_int().unwrap_or(16).max(0) as u64;
            n.saturating_mul(work(&l.body))
        }
        StmtKind::Store { .. } => 1,
        _ => {
            let mut total = 0u64;
            s.for_each_child(|c| total = total.saturating_add(work(c)));
            total
        }
    }
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
        let ours = main_of(&sch);
        let theirs = schedule_of(&c.after);
        if let Err(m) = prim_func_equal(&ours, &main_of(&theirs)) {
            failures.push(format!(
                "{}: not structurally equal to TVM's result: {m}",
                c.name
            ));
        }
        let diags = verify_prim_func(&ours, "main");
        if has_errors(&diags) {
            let msgs: Vec<String> = diags.iter().map(|d| d.message.clone()).collect();
            failures.push(format!(
                "{}: the verifier rejects the result: {}",
                c.name,
                msgs.join("; ")
            ));
        }
        match (
            &c.numerics,
            same_results(&main_of(&schedule_of(&c.before)), &ours),
        ) {
            (None, Err(e)) => failures.push(format!("{}: {e}", c.name)),
            (None, Ok(Some(false))) => failures.push(format!(
                "{}: computes something else than the original on random inputs",
                c.name
            )),
            (Some(why), Ok(Some(true))) => failures.push(format!(
                "{}: computes the same as the original, but the case says it does not ({why})",
                c.name
            )),
            _ => {}
        }
        // The printed trace replays to itself, as text and as a trace object.
        let mut again = schedule_of(&c.before);
        match run_python(&mut again, &trace) {
            Err(d) => failures.push(format!(
                "{}: the printed trace does not replay: {}",
                c.name, d.message
            )),
            Ok(_) => {
                if again.trace().python(TraceDialect::Tir) != trace {
                    failures.push(format!("{}: the replayed trace prints differently", c.name));
                }
                // Annotation values lose their type in TVM's trace (True is 1, 2.0 is 2).
                if !trace.contains("sch.annotate(") && print(&again) != print(&sch) {
                    failures.push(format!(
                        "{}: the replayed trace gives another program",
                        c.name
                    ));
                }
            }
        }
        let mut third = schedule_of(&c.before);
        match third.replay(sch.trace(), false) {
            Err(e) => failures.push(format!(
                "{}: the trace object does not replay: {}",
                c.name, e.message
            )),
            Ok(()) => {
                if third.trace().python(TraceDialect::Tir) != trace {
                    failures.push(format!(
                        "{}: the replayed trace object prints differently",
                        c.name
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Legality: every rule, with the program left unchanged.
// ---------------------------------------------------------------------------

const MATMUL: &str = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;

const CHAIN: &str = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), C: T.Buffer((64, 32), "float32")):
    B = T.alloc_buffer((64, 32))
    for i, j in T.grid(64, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(64, 32):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + A[vi, vj]
"#;

/// A producer/consumer pair: `B` is written at `write` for `vi < n` and read
/// at `read` for `vi < m`.
fn pair(n: i64, write: &str, m: i64, read: &str) -> String {
    format!(
        r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for i in range({n}):
        with T.block("B"):
            vi = T.axis.spatial({n}, i)
            B[{write}] = A[vi]
    for i in range({m}):
        with T.block("C"):
            vi = T.axis.spatial({m}, i)
            C[vi] = B[{read}] + A[vi]
"#
    )
}

/// Runs `schedule` on `src`; expects the last call to fail with a message
/// containing every one of `needles`, and the program to be unchanged by it.
fn rejects(src: &str, schedule: &str, needles: &[&str]) {
    let mut sch = schedule_of(src);
    let (setup, last) = match schedule.trim_end().rsplit_once('\n') {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None => (String::new(), schedule.trim().to_string()),
    };
    run_python(&mut sch, &setup).unwrap_or_else(|d| panic!("setup fails: {}", d.message));
    let before = print(&sch);
    let trace_len = sch.trace().instructions.len();
    let err = match run_python(&mut sch, &format!("{setup}\n{last}")) {
        Ok(_) => panic!("`{last}` should be refused"),
        Err(d) => d.message,
    };
    for n in needles {
        assert!(
            err.contains(n),
            "`{last}`: error {err:?} should mention {n:?}"
        );
    }
    // The setup ran twice (the variables are needed again); what failed changed nothing.
    let mut fresh = schedule_of(src);
    run_python(&mut fresh, &setup).unwrap();
    assert_eq!(print(&fresh), before);
    let _ = trace_len;
}

/// Like [`rejects`], for a schedule whose failing call is all there is.
fn rejects_call(src: &str, call: &str, needles: &[&str]) {
    let mut sch = schedule_of(src);
    let before = print(&sch);
    let err = match run_python(&mut sch, call) {
        Ok(_) => panic!("`{call}` should be refused"),
        Err(d) => d.message,
    };
    for n in needles {
        assert!(
            err.contains(n),
            "`{call}`: error {err:?} should mention {n:?}"
        );
    }
    assert_eq!(
        print(&sch),
        before,
        "a refused primitive leaves the program alone"
    );
}

#[test]
fn cache_rejects_invalid_scopes() {
    for scope in [
        "foo", "Global", "m.x", " global", "wmma", "wmma.x", "metal.x", "mma",
    ] {
        for p in ["cache_read", "cache_write"] {
            rejects_call(
                MATMUL,
                &format!("b = sch.get_block(\"C\")\nsch.{p}(b, 0, \"{scope}\")"),
                &[&format!("The input storage scope \"{scope}\" is invalid")],
            );
        }
    }
    // The scope is checked before the index, as in TVM.
    rejects_call(
        MATMUL,
        "b = sch.get_block(\"C\")\nsch.cache_read(b, 5, \"foo\")",
        &["storage scope \"foo\" is invalid"],
    );
    // Prefix matches are valid (TVM's StorageScope::Create).
    for scope in [
        "globalx",
        "warp",
        "local.foo",
        "shared.foo",
        "wmma.matrix_a",
        "texture2d",
        "metal.simdgroup",
        "",
    ] {
        let mut sch = schedule_of(MATMUL);
        run_python(
            &mut sch,
            &format!("b = sch.get_block(\"C\")\nsch.cache_read(b, 0, \"{scope}\")"),
        )
        .unwrap_or_else(|d| panic!("{scope:?}: {}", d.message));
    }
}

#[test]
fn cache_rejects_bad_indices() {
    rejects_call(
        MATMUL,
        "b = sch.get_block(\"C\")\nsch.cache_read(b, 2, \"shared\")",
        &["has 2 read regions", "required to be in [0, 2)", "is 2"],
    );
    rejects_call(
        MATMUL,
        "b = sch.get_block(\"C\")\nsch.cache_read(b, -1, \"shared\")",
        &["has 2 read regions", "is -1"],
    );
    rejects_call(
        MATMUL,
        "b = sch.get_block(\"C\")\nsch.cache_write(b, 1, \"local\")",
        &["has 1 write regions", "[0, 1)"],
    );
    // The root block has no regions: TVM reports the index.
    rejects_call(
        MATMUL,
        "b = sch.get_block(\"root\")\nsch.cache_read(b, 0, \"shared\")",
        &["has 0 read regions"],
    );
    rejects_call(
        MATMUL,
        "b = sch.get_block(\"root\")\nsch.cache_write(b, 0, \"shared\")",
        &["has 0 write regions"],
    );
}

#[test]
fn cache_rejects_several_writers() {
    let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for i in range(32):
        with T.block("B0"):
            vi = T.axis.spatial(32, i)
            B[vi] = A[vi]
    for i in range(32):
        with T.block("B1"):
            vi = T.axis.spatial(32, i)
            B[vi + 32] = A[vi + 32]
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = B[vi]
"#;
    let msg =
        "The buffer B is expected to be written by single block, but got 2 blocks who write it";
    rejects_call(
        src,
        "b = sch.get_block(\"C\")\nsch.cache_read(b, 0, \"shared\")",
        &[msg, "`B0`, `B1`"],
    );
    rejects_call(
        src,
        "b = sch.get_block(\"B0\")\nsch.cache_write(b, 0, \"shared\")",
        &[msg],
    );
    rejects_call(
        src,
        "b = sch.get_block(\"C\")\nb1 = sch.get_block(\"B1\")\nsch.cache_read(b, 0, \"shared\", [b1])",
        &[msg],
    );
}

#[test]
fn cache_read_needs_a_stage_pipeline() {
    let call = "c = sch.get_block(\"C\")\nsch.cache_read(c, 0, \"shared\")";
    let input = "c = sch.get_block(\"C\")\nsch.cache_read(c, 1, \"shared\")";
    // Each of these is refused by TVM 0.27 ("region cover is not complete"),
    // whichever buffer is cached: the property is the whole scope's.
    for (n, w, m, r, why) in [
        (32, "2 * vi", 16, "vi", "a strided write covers nothing"),
        (
            32,
            "vi",
            64,
            "vi",
            "the consumer reads past what is written",
        ),
        (
            32,
            "vi + 8",
            16,
            "vi",
            "the consumer reads before what is written",
        ),
        (16, "vi + 16", 16, "vi", "disjoint"),
        (32, "vi * 2", 32, "vi * 2", "strided on both sides"),
    ] {
        let src = pair(n, w, m, r);
        for c in [call, input] {
            let mut sch = schedule_of(&src);
            let err = run_python(&mut sch, c).expect_err(why).message;
            assert!(
                err.contains("not a stage pipeline") && err.contains("region cover"),
                "{why}: {err}"
            );
            assert!(
                err.contains("Block `C` reads a part of buffer `B`"),
                "{why}: {err}"
            );
        }
        // cache_write does not need the property (TVM: require_stage_pipeline=false).
        let mut sch = schedule_of(&src);
        run_python(
            &mut sch,
            "c = sch.get_block(\"C\")\nsch.cache_write(c, 0, \"local\")",
        )
        .expect(why);
    }
    // Dense writes TVM accepts: divisions, remainders, reversals, predicates.
    for (n, w, m, r) in [
        (64, "vi // 2", 32, "vi"),
        (64, "vi % 32", 32, "vi"),
        (32, "31 - vi", 32, "vi"),
        (32, "vi", 32, "vi * 2 // 2"),
        (32, "vi", 16, "vi * 2"),
    ] {
        let mut sch = schedule_of(&pair(n, w, m, r));
        run_python(&mut sch, call)
            .unwrap_or_else(|d| panic!("B[{w}] for {n} / B[{r}] for {m}: {}", d.message));
    }
    // Two producers whose writes together cover the read are fine; with a gap they are not.
    let two = |second: &str| {
        format!(
            r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for i in range(16):
        with T.block("B0"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
    for i in range(16):
        with T.block("B1"):
            vi = T.axis.spatial(16, i)
            B[{second}] = A[vi]
    for i in range(32):
        with T.block("C"):
            vi = T.axis.spatial(32, i)
            C[vi] = B[vi] + A[vi]
"#
        )
    };
    let mut sch = schedule_of(&two("vi + 32"));
    let err = run_python(&mut sch, input).expect_err("a gap").message;
    assert!(err.contains("region cover"), "{err}");
    // Covered, but then B has two writers.
    let mut sch = schedule_of(&two("vi + 16"));
    let err = run_python(&mut sch, call).expect_err("two writers").message;
    assert!(err.contains("written by single block"), "{err}");
    let mut sch = schedule_of(&two("vi + 16"));
    run_python(&mut sch, input).expect("covered by the union");
}

#[test]
fn cache_read_allows_write_after_read() {
    // D overwrites X after C read it: TVM 0.27 still caches A for E, and
    // refuses X only because two blocks write it.
    let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), D: T.Buffer((64,), "float32")):
    X = T.alloc_buffer((64,))
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            X[vi] = A[vi]
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = X[vi]
    for i in range(64):
        with T.block("D"):
            vi = T.axis.spatial(64, i)
            X[vi] = C[vi] + T.float32(1)
    for i in range(64):
        with T.block("E"):
            vi = T.axis.spatial(64, i)
            D[vi] = X[vi] + A[vi]
"#;
    let mut sch = schedule_of(src);
    run_python(
        &mut sch,
        "e = sch.get_block(\"E\")\nsch.cache_read(e, 1, \"shared\")",
    )
    .expect("A is cached");
    rejects_call(
        src,
        "c = sch.get_block(\"C\")\nsch.cache_read(c, 0, \"shared\")",
        &["The buffer X is expected to be written by single block, but got 2 blocks"],
    );
}

#[test]
fn cache_handles_must_be_live() {
    rejects(
        CHAIN,
        "b = sch.get_block(\"B\")\nc = sch.get_block(\"C\")\ni, j = sch.get_loops(c)\nsch.cache_read(c, 0, \"shared\", consumer_blocks=[i])",
        &["expected a block"],
    );
    rejects(
        CHAIN,
        "c = sch.get_block(\"C\")\nsch.cache_read(c, 0, storage_scope=3)",
        &["expected a string"],
    );
    rejects(
        CHAIN,
        "c = sch.get_block(\"C\")\nsch.cache_read(c, 0)",
        &["missing argument `storage_scope`"],
    );
}

#[test]
fn duplicate_cache_names_make_handles_ambiguous() {
    // TVM names both stages B_local; Tessel keeps the names, and a handle
    // to such a block says why it cannot be used.
    let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), D: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi]
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = B[vi]
    for i in range(64):
        with T.block("D"):
            vi = T.axis.spatial(64, i)
            D[vi] = B[vi] + C[vi]
"#;
    let setup = "c = sch.get_block(\"C\")\nd = sch.get_block(\"D\")\nx = sch.cache_read(d, 0, \"local\", [d])\ny = sch.cache_read(c, 0, \"local\", [c])\n";
    let mut sch = schedule_of(src);
    let err = run_python(&mut sch, &format!("{setup}sch.get_loops(x)")).expect_err("ambiguous");
    assert!(
        err.message.contains("several blocks are named `B_local`"),
        "{}",
        err.message
    );
    let mut sch = schedule_of(src);
    let err =
        run_python(&mut sch, &format!("{setup}sch.get_block(\"B_local\")")).expect_err("ambiguous");
    assert!(
        err.message.contains("2 blocks are named `B_local`"),
        "{}",
        err.message
    );
}

#[test]
fn set_scope_rules() {
    rejects_call(
        CHAIN,
        "b = sch.get_block(\"B\")\nsch.set_scope(b, 1, \"shared\")",
        &["has 1 write regions"],
    );
    // Index first, then the scope string, then the allocation (TVM's order).
    rejects_call(
        CHAIN,
        "b = sch.get_block(\"B\")\nsch.set_scope(b, 1, \"bad\")",
        &["has 1 write regions"],
    );
    rejects_call(
        CHAIN,
        "c = sch.get_block(\"C\")\nsch.set_scope(c, 0, \"bad\")",
        &["storage scope \"bad\" is invalid"],
    );
    rejects_call(
        CHAIN,
        "c = sch.get_block(\"C\")\nsch.set_scope(c, 0, \"shared\")",
        &[
            "The input buffer C is not allocated by a block",
            "function parameter",
        ],
    );
}

#[test]
fn storage_align_rules() {
    rejects_call(
        CHAIN,
        "b = sch.get_block(\"B\")\nsch.storage_align(b, 1, 0, 16, 1)",
        &["has 1 write regions"],
    );
    // TVM checks the factor before the axis, and both before the allocation.
    rejects_call(
        CHAIN,
        "c = sch.get_block(\"C\")\nsch.storage_align(c, 0, 5, 0, 1)",
        &[
            "`factor` of storage_align is expected to be a positive number",
            "is 0",
        ],
    );
    rejects_call(
        CHAIN,
        "b = sch.get_block(\"B\")\nsch.storage_align(b, 0, 0, -4, 1)",
        &["`factor`", "is -4"],
    );
    rejects_call(
        CHAIN,
        "c = sch.get_block(\"C\")\nsch.storage_align(c, 0, 5, 16, 1)",
        &["has 2 dimension(s)", "[-2, 2)", "`axis` is 5"],
    );
    rejects_call(
        CHAIN,
        "b = sch.get_block(\"B\")\nsch.storage_align(b, 0, -3, 16, 1)",
        &["`axis` is -3"],
    );
    rejects_call(
        CHAIN,
        "c = sch.get_block(\"C\")\nsch.storage_align(c, 0, 0, 16, 1)",
        &["C is not allocated by a block"],
    );
}

#[test]
fn transform_layout_rules() {
    let c = "c = sch.get_block(\"C\")\n";
    let cases: &[(&str, &[&str])] = &[
        ("sch.transform_layout(c, (\"wrte\", 0), lambda i, j: (i, j))", &["Expected 'read' or 'write', but received wrte"]),
        ("sch.transform_layout(c, (\"read\", 2), lambda i, j: (j, i))", &["Invalid buffer_index 2.  Block C has only 2 read buffers."]),
        ("sch.transform_layout(c, (\"write\", 1), lambda i, j: (j, i))", &["Block C has only 1 write buffers"]),
        ("sch.transform_layout(c, \"Q\", lambda i, j: (j, i))", &["Could not find buffer 'Q' in block 'C'"]),
        ("sch.transform_layout(c, 0, lambda i, j: (j, i))", &["needs buffer_index_type"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i: (i,))", &["takes 1 indices but buffer B has 2 dimension(s)"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i, j: (i // 2,))", &["not a bijection"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i, j: (i, i))", &["not a bijection"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i, j: (i + j, j))", &["not a bijection"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i, j: (i, j, i))", &["not a bijection"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i, j: (63 - i, j))", &["not a bijection"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i, j: (i + 1, j))", &["must start at 0"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i, j: (j, i, 0))", &["Instead received 0 of type <class 'int'>"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i, j: (i / 2, j))", &["operator `/` is not supported"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i, j: (k, j))", &["`k` is not a parameter"]),
        ("sch.transform_layout(c, (\"read\", 0), lambda i, j: (i // 0, j))", &["division by zero"]),
        ("sch.transform_layout(c, (\"read\", 0), 3)", &["index_map must be a lambda"]),
        (
            "sch.transform_layout(c, (\"read\", 0), lambda i, j: (i // 24, j, i % 24))",
            &["applied on buffer B of shape (64, 32) would result in shape (3, 32, 24)", "padding"],
        ),
        (
            "sch.transform_layout(c, (\"read\", 0), lambda i, j: (i // 24, j, i % 24), pad_value=0)",
            &["fills padding with lambda indices_0, indices_1, indices_2: (0,), which is of type int32"],
        ),
        (
            "sch.transform_layout(c, (\"read\", 0), lambda i, j: (i // 24, j, i % 24), pad_value=lambda a, b, c: (a, b))",
            &["should only have one output"],
        ),
        (
            "sch.transform_layout(c, (\"read\", 0), lambda i, j: (i // 24, j, i % 24), pad_value=lambda a, b: 0.0)",
            &["pad_value takes 2 indices but the transformed buffer has 3 dimension(s)"],
        ),
        (
            "sch.transform_layout(c, (\"read\", 1), lambda i, j: (i // 24, j, i % 24), pad_value=0.0)",
            &["buffer A is not written in this function", "T.assume"],
        ),
    ];
    for (call, needles) in cases {
        rejects_call(CHAIN, &format!("{c}{call}"), needles);
    }
}

#[test]
fn annotation_rules() {
    rejects_call(
        CHAIN,
        "b = sch.get_block(\"B\")\nsch.unannotate(b, \"k\")",
        &["Cannot find annotation key: k"],
    );
    rejects(
        CHAIN,
        "b = sch.get_block(\"B\")\ni, j = sch.get_loops(b)\nsch.annotate(i, \"x\", 2)\nsch.unannotate(i, \"y\")",
        &["Cannot find annotation key: y"],
    );
    rejects_call(
        CHAIN,
        "b = sch.get_block(\"B\")\nsch.annotate(b, \"k\", None)",
        &["cannot be None"],
    );
    rejects_call(
        CHAIN,
        "b = sch.get_block(\"B\")\nsch.annotate(b, \"k\", [])",
        &["empty list"],
    );
    rejects_call(
        CHAIN,
        "b = sch.get_block(\"B\")\nsch.annotate(b, \"k\", {1: 2})",
        &["string keys"],
    );
    rejects_call(
        CHAIN,
        "b = sch.get_block(\"B\")\nsch.annotate(b, \"k\", b)",
        &["schedule variable b"],
    );
}

// ---------------------------------------------------------------------------
// Symbolic shapes. TVM 0.27 prints these with module-level `TypeVar`s that
// neither it nor Tessel parses back, so the expectation is Tessel's printing;
// apart from the size-variable declarations it is TVM's text verbatim
// (checked with the oracle).
// ---------------------------------------------------------------------------

const DYNAMIC: &str = r#"
from tvm.script import tir as T
@T.prim_func
def main(x: T.handle, w: T.handle, b: T.handle, z: T.handle):
    m, n = T.int64(), T.int64()
    X = T.match_buffer(x, (1, m), "float32")
    W = T.match_buffer(w, (n, m), "float32")
    B = T.match_buffer(b, (n, ), "float32")
    Z = T.match_buffer(z, (1, n), "float32")
    Y = T.alloc_buffer((1, n), "float32")
    for i, j, k in T.grid(1, n, m):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
    for i, j in T.grid(1, n):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vi, vj] + B[vj]
"#;

#[test]
fn caches_of_symbolic_buffers() {
    let mut sch = schedule_of(DYNAMIC);
    run_python(
        &mut sch,
        "b = sch.get_block(\"Y\")\nx = sch.cache_read(b, 1, \"shared\")\nz = sch.get_block(\"Z\")\ny = sch.cache_read(z, 0, \"local\")\nw = sch.cache_write(z, 0, \"local\")",
    )
    .unwrap_or_else(|d| panic!("{}", d.message));
    let printed = print(&sch);
    let body = printed
        .split_once("    # with T.block(\"root\"):\n")
        .expect("root")
        .1;
    assert_eq!(
        body,
        r#"    Y = T.alloc_buffer((1, n))
    W_shared = T.alloc_buffer((n, m), scope="shared")
    Y_local = T.alloc_buffer((1, n), scope="local")
    Z_local = T.alloc_buffer((1, n), scope="local")
    for ax0, ax1 in T.grid(n, m):
        with T.block("W_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(W[v0, v1])
            T.writes(W_shared[v0, v1])
            W_shared[v0, v1] = W[v0, v1]
    for i, j, k in T.grid(1, n, m):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(X[vi, vk], W_shared[vj, vk])
            T.writes(Y[vi, vj])
            with T.init():
                Y[vi, vj] = T.float32(0.0)
            Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W_shared[vj, vk]
    for ax0, ax1 in T.grid(1, n):
        with T.block("Y_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(Y[v0, v1])
            T.writes(Y_local[v0, v1])
            Y_local[v0, v1] = Y[v0, v1]
    for i, j in T.grid(1, n):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(Y_local[vi, vj], B[vj])
            T.writes(Z_local[vi, vj])
            Z_local[vi, vj] = Y_local[vi, vj] + B[vj]
    for ax0, ax1 in T.grid(1, n):
        with T.block("Z_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(Z_local[v0, v1])
            T.writes(Z[v0, v1])
            Z[v0, v1] = Z_local[v0, v1]"#
    );
    let before = main_of(&schedule_of(DYNAMIC));
    let after = main_of(&sch);
    assert!(!has_errors(&verify_prim_func(&after, "main")));
    let sizes: HashMap<String, i64> = [("m".to_string(), 5), ("n".to_string(), 7)].into();
    let inputs = random_inputs(&before, 3, &sizes).expect("inputs");
    let (mut a, mut b) = (inputs.clone(), inputs);
    let opts = EvalOptions {
        check_regions: true,
        ..EvalOptions::default()
    };
    run_prim_func(&before, &mut a, &opts).expect("runs");
    run_prim_func(&after, &mut b, &opts).expect("runs");
    for (x, y) in a.iter().zip(&b) {
        allclose(x, y, 1e-6, 1e-6).expect("same results");
    }
    // Transposing a symbolic parameter is a bijection (TVM agrees); splitting
    // one needs constant shapes here (TVM: it would need padding).
    let mut sch = schedule_of(DYNAMIC);
    run_python(
        &mut sch,
        "y = sch.get_block(\"Y\")\nsch.transform_layout(y, (\"read\", 1), lambda i, j: (j, i))",
    )
    .unwrap_or_else(|d| panic!("{}", d.message));
    let printed = print(&sch);
    assert!(
        printed.contains("W = T.match_buffer(w, (m, n))"),
        "{printed}"
    );
    assert!(
        printed.contains("T.reads(X[vi, vk], W[vk, vj])"),
        "{printed}"
    );
    assert!(printed.contains("X[vi, vk] * W[vk, vj]"), "{printed}");
    let err = run_python(&mut sch, "y = sch.get_block(\"Y\")\nsch.transform_layout(y, (\"read\", 0), lambda i, j: (i, j // 4, j % 4))")
        .expect_err("symbolic")
        .message;
    assert!(err.contains("symbolic shape"), "{err}");
}

// ---------------------------------------------------------------------------
// Robustness: every primitive, with good and bad arguments, on every block
// of every seed program. Nothing may panic; whatever succeeds must verify,
// print, and leave a trace that replays.
// ---------------------------------------------------------------------------

fn calls_for(block: &str, func: &str, reads: usize, writes: usize, ndims: &[usize]) -> Vec<String> {
    let b = format!("b = sch.get_block(\"{block}\", func_name=\"{func}\")\n");
    let mut out = Vec::new();
    for i in -1..=(reads.max(writes) as i64) {
        for scope in ["shared", "local", "global.A_reg", "bad"] {
            out.push(format!("{b}sch.cache_read(b, {i}, \"{scope}\")"));
            out.push(format!("{b}sch.cache_write(b, {i}, \"{scope}\")"));
        }
        out.push(format!(
            "{b}sch.cache_read(b, {i}, \"shared\", consumer_blocks=[b])"
        ));
        out.push(format!("{b}sch.set_scope(b, {i}, \"shared\")"));
        for (axis, factor) in [(-1, 16), (0, 0), (5, 8)] {
            out.push(format!("{b}sch.storage_align(b, {i}, {axis}, {factor}, 1)"));
        }
    }
    for (kind, n) in [("read", reads), ("write", writes)] {
        for i in 0..n {
            let nd = ndims.get(i).copied().unwrap_or(1).max(1);
            let names: Vec<String> = (0..nd).map(|k| format!("x{k}")).collect();
            let params = names.join(", ");
            let rev: Vec<String> = names.iter().rev().cloned().collect();
            for body in [
                format!("({params},)"),
                format!("({},)", rev.join(", ")),
                format!(
                    "({} // 4, {} % 4{})",
                    names[0],
                    names[0],
                    names[1..]
                        .iter()
                        .map(|x| format!(", {x}"))
                        .collect::<String>()
                ),
                format!("({} * 2,)", names[0]),
                format!("({},)", names.join(" + ")),
            ] {
                out.push(format!(
                    "{b}sch.transform_layout(b, (\"{kind}\", {i}), lambda {params}: {body})"
                ));
            }
        }
    }
    out.push(format!(
        "{b}sch.annotate(b, \"k\", 1)\nsch.unannotate(b, \"k\")"
    ));
    out.push(format!("{b}sch.unannotate(b, \"missing\")"));
    out.push(format!(
        "{b}sch.annotate(b, \"d\", {{\"a\": [1, 2.5, \"s\"]}})"
    ));
    out
}

#[test]
fn primitives_never_panic_on_the_seeds() {
    use compiler_core::ir::StmtKind;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/seeds");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("seeds")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    let (mut ok, mut refused) = (0, 0);
    for path in files {
        let src = fs::read_to_string(&path).unwrap();
        let Ok(parsed) = parse_script(&src) else {
            continue;
        };
        let module = parsed.to_module();
        for (fname, func) in module.prim_funcs() {
            let mut blocks = Vec::new();
            func.body.walk(&mut |s| {
                if let StmtKind::BlockRealize(r) = s.kind() {
                    if !r.block.iter_vars.is_empty()
                        || !r.block.reads.is_empty()
                        || !r.block.writes.is_empty()
                    {
                        let ndims: Vec<usize> = r
                            .block
                            .reads
                            .iter()
                            .map(|x| x.buffer.ndim())
                            .chain(r.block.writes.iter().map(|x| x.buffer.ndim()))
                            .collect();
                        blocks.push((
                            r.block.name.clone(),
                            r.block.reads.len(),
                            r.block.writes.len(),
                            ndims,
                        ));
                    }
                }
            });
            // Cumulative: everything that succeeds stays applied.
            let mut cumulative = Schedule::new(module.clone()).unwrap();
            for (name, reads, writes, ndims) in &blocks {
                let mut nd_read = ndims.clone();
                let nd_write = nd_read.split_off((*reads).min(nd_read.len()));
                let _ = nd_write;
                for call in calls_for(name, fname, *reads, *writes, &nd_read) {
                    let mut sch = Schedule::new(module.clone()).unwrap();
                    match run_python(&mut sch, &call) {
                        Err(_) => refused += 1,
                        Ok(_) => {
                            ok += 1;
                            let f = sch.module().get_prim(fname).unwrap();
                            let diags = verify_prim_func(f, fname);
                            assert!(
                                !has_errors(&diags),
                                "{}: `{call}` gives IR the verifier rejects: {:?}",
                                path.display(),
                                diags.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
                            );
                            let _ = print_prim_func(f, fname, &PrintOptions::new(Dialect::Block));
                            // Everything but cache_write (TVM's own result may differ, see the
                            // goldens) and layouts of parameters preserves what the function computes.
                            let params_kept = func
                                .param_buffers()
                                .zip(f.param_buffers())
                                .all(|(x, y)| x == y);
                            if !call.contains("cache_write")
                                && params_kept
                                && work(&func.body) <= 50_000
                            {
                                match same_results_n(func, f, 1) {
                                    Ok(Some(false)) => {
                                        panic!("{}: `{call}` changes the results", path.display())
                                    }
                                    // Programs the interpreter cannot feed (strided parameters) are skipped.
                                    Err(e) if !e.starts_with("the original faults") => {
                                        panic!("{}: `{call}`: {e}", path.display())
                                    }
                                    _ => {}
                                }
                            }
                            let text = sch.trace().python(TraceDialect::Tir);
                            let mut again = Schedule::new(module.clone()).unwrap();
                            run_python(&mut again, &text).unwrap_or_else(|d| {
                                panic!("`{call}`: the trace does not replay: {}", d.message)
                            });
                        }
                    }
                    let _ = run_python(&mut cumulative, &call);
                }
            }
            let f = cumulative.module().get_prim(fname).unwrap();
            assert!(
                !has_errors(&verify_prim_func(f, fname)),
                "{}: cumulative result",
                path.display()
            );
        }
    }
    assert!(
        ok > 100 && refused > 100,
        "{ok} succeeded, {refused} refused"
    );
}

/// The padding a layout adds to an output is observable: after
/// `transform_layout` with a `pad_value` the output holds the original
/// results at the mapped positions and the pad value everywhere else, both
/// when the producer is rewritten and when a separate block fills it.
#[test]
fn transform_layout_padding_is_written() {
    let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((10,), "float32"), C: T.Buffer((10,), "float32"), D: T.Buffer((10,), "float32"), E: T.Buffer((10,), "float32")):
    for i in range(10):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = A[vi] * T.float32(2) + T.float32(1)
            E[vi] = A[vi] + T.float32(5)
    for i in range(10):
        with T.block("D"):
            vi = T.axis.remap("S", [i])
            D[vi] = A[vi] - T.float32(3)
"#;
    let schedules = [
        // C's producer also writes E: a fill block writes the padding.
        "c = sch.get_block(\"C\")\nsch.transform_layout(c, \"C\", lambda i: (i // 4, i % 4), pad_value=-7.0)",
        // D's producer writes only D: its loop covers the padded shape.
        "d = sch.get_block(\"D\")\nsch.transform_layout(d, (\"write\", 0), lambda i: (i // 4, i % 4), pad_value=lambda a, b: T.Cast(\"float32\", a * 4 + b))",
    ];
    for (k, call) in schedules.iter().enumerate() {
        let mut sch = schedule_of(src);
        let before = (*sch.module().get_prim("main").expect("main")).clone();
        run_python(&mut sch, call).unwrap_or_else(|d| panic!("`{call}`: {}", d.message));
        let after = (*sch.module().get_prim("main").expect("main")).clone();
        // The trace (with its pad_value) survives JSON and replays to the same function.
        let json = sch.trace().to_json_string();
        assert!(json.contains("lambda"), "{json}");
        let back = compiler_core::schedule::Trace::from_json_str(&json).expect("reads back");
        let mut again = schedule_of(src);
        again.replay(&back, false).expect("replays");
        assert_eq!(print(&again), print(&sch));
        assert!(
            !has_errors(&verify_prim_func(&after, "main")),
            "{}",
            print(&sch)
        );
        let inputs = random_inputs(&before, 7, &HashMap::new()).expect("inputs");
        let opts = EvalOptions {
            check_regions: true,
            ..EvalOptions::default()
        };
        let mut original = inputs.clone();
        run_prim_func(&before, &mut original, &opts).expect("the original runs");
        // The transformed buffer is the k-th output, now (3, 4).
        let padded_arg = 1 + k;
        let mut transformed = random_inputs(&after, 7, &HashMap::new()).expect("inputs");
        transformed[0] = inputs[0].clone();
        run_prim_func(&after, &mut transformed, &opts).unwrap_or_else(|e| {
            panic!(
                "the transformed function fails: {}\n{}",
                e.message,
                print(&sch)
            )
        });
        for (arg, out) in transformed.iter().enumerate().skip(1) {
            if arg != padded_arg {
                allclose(&original[arg], out, 1e-6, 1e-6).expect("untouched outputs agree");
                continue;
            }
            assert_eq!(out.shape(), &[3, 4]);
            for flat in 0..12 {
                let got = out.get_flat_f64(flat).expect("in range");
                let want = if flat < 10 {
                    original[arg].get_flat_f64(flat).expect("in range")
                } else if k == 0 {
                    -7.0
                } else {
                    flat as f64
                };
                assert!(
                    (got - want).abs() < 1e-5,
                    "schedule {k}: element {flat} is {got}, expected {want}\n{}",
                    print(&sch)
                );
            }
        }
    }
}
