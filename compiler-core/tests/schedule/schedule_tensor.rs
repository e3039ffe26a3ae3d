//! `rfactor`, `blockize`, `tensorize` and trace JSON, against Apache TVM 0.27.
//!
//! Data-driven cases live in `tests/data/schedule_tensor/` (see `gen_tvm.py`
//! there): `<case>.py` is the program before, `<case>.sched.py` the schedule;
//! `<case>.after.py` and `<case>.trace.py` are TVM's results in the course
//! dialect (hand-written for tensorize, which crashes in TVM 0.27), and
//! `<case>.tvm_error.txt` records that TVM rejects a case we must reject.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use compiler_core::analysis::structural_equal::{assert_structural_equal, EqualOptions};
use compiler_core::analysis::verify::{has_errors, verify_module};
use compiler_core::eval::{allclose, random_inputs, run_prim_func, EvalOptions};

use compiler_core::schedule::json::Json;
use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::{Schedule, Trace, TraceDialect};
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

/// A schedule over the case's program (`<case>.py`, or `# program: FILE`),
/// with its intrinsics (`<case>.intrin.py`, or `# intrin: FILE`).
fn schedule_for(case: &str) -> Schedule {
    let dir = data_dir();
    let sched = read(&dir.join(format!("{case}.sched.py")));
    let program = directive(&sched, "program").unwrap_or_else(|| format!("{case}.py"));
    let src = read(&dir.join(&program));
    let parsed = parse_script(&src).unwrap_or_else(|d| panic!("{program}: {}", d.message));
    let mut sch = Schedule::new(parsed.to_module()).expect("schedule");
    let intrin = directive(&sched, "intrin").unwrap_or_else(|| format!("{case}.intrin.py"));
    register_intrinsics(&mut sch, &dir.join(intrin));
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
        let l = l.strip_prefix('#')?.trim();
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

/// Runs one data case; returns whether its numerics were checked, or what
/// went wrong.
fn check_case(case: &str) -> Result<bool, String> {
    let dir = data_dir();
    let sched = read(&dir.join(format!("{case}.sched.py")));
    let mut sch = schedule_for(case);
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
                // The failing call (the last line) left the program as the
                // calls before it made it.
                let lines: Vec<&str> = sched.trim_end().lines().collect();
                let mut prefix = schedule_for(case);
                let head = lines[..lines.len().saturating_sub(1)].join("\n");
                run_python(&mut prefix, &head).map_err(|d| {
                    format!(
                        "{case}: the calls before the failing one fail: {}",
                        d.message
                    )
                })?;
                if block_dialect(&prefix) != block_dialect(&sch) {
                    return Err(format!("{case}: the failing call changed the program"));
                }
                Ok(false)
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
        // `# printer: normalize`: the printer spells some of this IR
        // differently from TVM (it is checked by the printer's own tests), so
        // compare with TVM's text parsed and printed by Tessel.
        let normalized = directive(&sched, "printer")
            .filter(|d| d.starts_with("normalize"))
            .and_then(|_| parse_script(&expected).ok())
            .map(|p| print_module(&p.to_module(), &PrintOptions::new(Dialect::Block)) + "\n");
        match normalized {
            Some(n) if n == ours => {}
            Some(n) => {
                return Err(format!(
                    "{case}: module differs from {case}.after.py (reprinted)\n{}",
                    diff(&n, &ours)
                ))
            }
            None => {
                return Err(format!(
                    "{case}: module differs from {case}.after.py\n{}",
                    diff(&expected, &ours)
                ))
            }
        }
    }
    // Structurally equal to TVM's result (block names included), and well formed.
    if let Ok(p) = parse_script(&expected) {
        let opts = EqualOptions {
            compare_block_names: true,
            ..EqualOptions::default()
        };
        if let Err(m) = assert_structural_equal(sch.module(), &p.to_module(), opts) {
            return Err(format!(
                "{case}: not structurally equal to {case}.after.py: {m}"
            ));
        }
    } else {
        return Err(format!("{case}: {case}.after.py does not parse"));
    }
    let diags = verify_module(sch.module());
    if has_errors(&diags) {
        return Err(format!(
            "{case}: the result does not verify: {}",
            diags
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    // Same outputs as the original program on random inputs (not for
    // tensorize, whose implementation is an extern call).
    let numerics =
        !sched.contains("sch.tensorize(") && check_numerics(case, &schedule_for(case), &sch)?;
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
    // TVM's JSON form of the trace: ours is the same, and TVM's replays
    // (after a round trip through our reader) to the same module.
    let json_path = dir.join(format!("{case}.trace.json"));
    if json_path.exists() {
        let theirs = Json::parse(&read(&json_path)).map_err(|e| format!("{case}: {e}"))?;
        let ours = sch.trace().to_json();
        if ours != theirs {
            return Err(format!(
                "{case}: trace JSON differs\n  TVM:  {}\n  ours: {}",
                theirs.dump(),
                ours.dump()
            ));
        }
        let trace = Trace::from_json(&theirs).map_err(|e| format!("{case}: from_json: {e}"))?;
        if trace.to_json() != theirs {
            return Err(format!("{case}: JSON -> Trace -> JSON changes it"));
        }
        let mut again = schedule_for(case);
        again
            .replay(&trace, false)
            .map_err(|e| format!("{case}: replaying TVM's JSON trace failed: {}", e.message))?;
        if block_dialect(&again) != block_dialect(&sch) {
            return Err(format!(
                "{case}: TVM's JSON trace replays to another module"
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
    Ok(numerics)
}

/// Runs the original and the scheduled `main` on the same random inputs;
/// every array must agree (float reductions may reassociate: rtol 1e-4). The
/// scheduled run also checks that every access stays within the regions its
/// blocks declare. Programs too big to interpret quickly are skipped.
fn check_numerics(case: &str, before: &Schedule, after: &Schedule) -> Result<bool, String> {
    let f0 = before.module().get_prim("main").expect("main").clone();
    let f1 = after.module().get_prim("main").expect("main").clone();
    let inputs = random_inputs(&f0, 7, &HashMap::new()).map_err(|e| format!("{case}: {e}"))?;
    let budget = EvalOptions {
        step_budget: Some(1_500_000),
        ..EvalOptions::default()
    };
    let mut expected = inputs.clone();
    match run_prim_func(&f0, &mut expected, &budget) {
        Ok(()) => {}
        Err(e) if e.message.contains("budget") => return Ok(false),
        Err(e) => return Err(format!("{case}: the original program fails: {e}")),
    }
    let mut actual = inputs;
    let checked = EvalOptions {
        check_regions: true,
        ..budget
    };
    run_prim_func(&f1, &mut actual, &checked)
        .map_err(|e| format!("{case}: the scheduled program fails: {e}"))?;
    for (i, (a, e)) in actual.iter().zip(&expected).enumerate() {
        allclose(a, e, 1e-4, 1e-4).map_err(|m| format!("{case}: argument {i} differs: {m}"))?;
    }
    Ok(true)
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

/// Runs every case with the prefix; returns how many had their numerics checked.
fn check_all(prefix: &str) -> usize {
    let all = cases(prefix);
    assert!(!all.is_empty(), "no {prefix}* cases");
    let results: Vec<Result<bool, String>> = all.iter().map(|c| check_case(c)).collect();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        all.len(),
        failures
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    results.iter().filter(|r| matches!(r, Ok(true))).count()
}

#[test]
fn rfactor_matches_tvm() {
    // Every successful case computes what the original computes.
    assert_eq!(check_all("rfactor_"), 8);
}

#[test]
fn blockize_matches_tvm() {
    // All but the book's 1024^3 matmul (too big to interpret here).
    assert_eq!(check_all("blockize_"), 9);
}

#[test]
fn tensorize_matches_tvm() {
    // The implementations are extern calls: structure only.
    assert_eq!(check_all("tensorize_"), 0);
}

// ----------------------------------------------------------------- intrinsics

fn prim_funcs(src: &str) -> Vec<(String, std::rc::Rc<compiler_core::ir::PrimFunc>)> {
    parse_script(src)
        .expect("parses")
        .items
        .into_iter()
        .filter_map(|i| match i {
            Item::PrimFunc { name, func } => Some((name, func)),
            _ => None,
        })
        .collect()
}

fn mma16() -> (
    std::rc::Rc<compiler_core::ir::PrimFunc>,
    std::rc::Rc<compiler_core::ir::PrimFunc>,
) {
    let f = prim_funcs(&read(&data_dir().join("mma16.intrin.py")));
    let get = |n: &str| f.iter().find(|(m, _)| m == n).expect(n).1.clone();
    (get("mma16_desc"), get("mma16_impl"))
}

#[test]
fn intrinsic_table_rules() {
    use compiler_core::schedule::TensorIntrinTable;
    let (desc, imp) = mma16();
    let mut t = TensorIntrinTable::new();
    t.register("mma16", desc.clone(), imp.clone(), false)
        .expect("registers");
    let err = t
        .register("mma16", desc.clone(), imp.clone(), false)
        .unwrap_err();
    assert!(err.0.contains("already been registered"), "{err}");
    t.register("mma16", desc.clone(), imp.clone(), true)
        .expect("override");
    assert_eq!(t.names().collect::<Vec<_>>(), vec!["mma16"]);
    // Parameter counts must agree.
    let two = prim_funcs(
        r#"
from tvm.script import tir as T
@T.prim_func
def two(a: T.handle, b: T.handle) -> None:
    A = T.match_buffer(a, (16,), "float32")
    B = T.match_buffer(b, (16,), "float32")
    with T.block("root"):
        T.reads(A[0:16])
        T.writes(B[0:16])
        for i in range(16):
            with T.block("x"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]
"#,
    );
    let err = t
        .register("bad", desc.clone(), two[0].1.clone(), false)
        .unwrap_err();
    assert!(
        err.0.contains("3 parameters but the implementation 2"),
        "{err}"
    );
    // The description must be a block.
    let flat = prim_funcs(
        r#"
from tvm.script import tir as T
@T.prim_func
def flat(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, (16,), "float32")
    B = T.match_buffer(b, (16,), "float32")
    C = T.match_buffer(c, (16,), "float32")
    for i in range(16):
        C[i] = A[i] + B[i]
"#,
    );
    let err = t
        .register("bad", flat[0].1.clone(), imp.clone(), false)
        .unwrap_err();
    assert!(
        err.0.contains("body of the description must be a block"),
        "{err}"
    );
    assert!(t.get("bad").is_none());
}

const MM64: &str = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j, k in T.grid(64, 64, 64):
        with T.block("D"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vk, vj]
"#;

fn mm64_schedule() -> Schedule {
    let mut sch = Schedule::new(parse_script(MM64).unwrap().to_module()).unwrap();
    let (desc, imp) = mma16();
    sch.tensor_intrins_mut()
        .register("mma16", desc, imp, false)
        .unwrap();
    sch
}

const TILE: &str = r#"
i, j, k = sch.get_loops(sch.get_block("BLOCK"))
i_0, i_1 = sch.split(i, [None, 16])
j_0, j_1 = sch.split(j, [None, 16])
k_0, k_1 = sch.split(k, [None, 16])
sch.reorder(i_0, j_0, k_0, i_1, j_1, k_1)
"#;

#[test]
fn tensorize_trace_handles_and_fresh_buffers() {
    let mut sch = mm64_schedule();
    let env = run_python(
        &mut sch,
        &(TILE.replace("BLOCK", "C")
            + "o = sch.blockize(i_1)\nsch.tensorize(o, \"mma16\")\n"
            + &TILE.replace("BLOCK", "D")
            + "sch.tensorize(i_1, \"mma16\", preserve_unit_iters=False)\n"),
    )
    .expect("schedule runs");
    let trace = sch.trace().python(TraceDialect::Tir);
    assert!(
        trace.contains(
            "  sch.tensorize(block_or_loop=b10, tensor_intrin=\"mma16\", preserve_unit_iters=True)\n"
        ),
        "{trace}"
    );
    assert!(
        trace.contains(
            "sch.tensorize(block_or_loop=l16, tensor_intrin=\"mma16\", preserve_unit_iters=False)"
        ),
        "{trace}"
    );
    // TVM's JSON shape, and back.
    let json = sch.trace().to_json_string();
    assert!(
        json.contains(r#"["Tensorize", ["b10"], ["mma16", true], []]"#),
        "{json}"
    );
    assert!(
        json.contains(r#"["Tensorize", ["l16"], ["mma16", false], []]"#),
        "{json}"
    );
    let back = Trace::from_json_str(&json).expect("reads back");
    assert_eq!(&back, sch.trace());
    let mut again = mm64_schedule();
    again.replay(&back, false).expect("replays");
    assert_eq!(block_dialect(&again), block_dialect(&sch));
    // The blockized block's handle still names it after tensorize; the inner
    // block of the loop form is gone.
    let compiler_core::schedule::replay::SchedValue::Rv(compiler_core::schedule::Rv::Block(o)) =
        env["o"]
    else {
        panic!("a block")
    };
    assert_eq!(
        sch.block_name(compiler_core::schedule::BlockRV(o)).unwrap(),
        "C_o"
    );
    let err = run_python(&mut sch, "sch.get_loops(sch.get_block(\"D\"))").unwrap_err();
    assert!(
        err.message.contains("no block named `D`"),
        "{}",
        err.message
    );
    // Each tensorize binds its own copy of the implementation's buffers.
    let main = sch.module().get_prim("main").unwrap().clone();
    let mut matched: Vec<compiler_core::ir::BufferId> = Vec::new();
    main.body.walk(&mut |s| {
        if let compiler_core::ir::StmtKind::BlockRealize(r) = s.kind() {
            matched.extend(r.block.match_buffers.iter().map(|m| m.buffer.id()));
        }
    });
    assert_eq!(matched.len(), 6);
    let mut unique = matched.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 6, "the two blocks share match buffers");
}

#[test]
fn failed_tensorize_leaves_the_program_unchanged() {
    let mut sch = mm64_schedule();
    let env = run_python(&mut sch, &TILE.replace("BLOCK", "C").replace("16])", "8])")).unwrap();
    let before = block_dialect(&sch);
    let trace_before = sch.trace().instructions.len();
    let compiler_core::schedule::replay::SchedValue::Rv(i_1) = env["i_1"] else {
        panic!("a loop")
    };
    let err = sch.tensorize(i_1, "mma16", true).unwrap_err();
    assert!(
        err.message.contains("does not match the description"),
        "{}",
        err.message
    );
    assert!(err.location.is_some());
    assert_eq!(block_dialect(&sch), before);
    assert_eq!(sch.trace().instructions.len(), trace_before);
    // Nor does an unknown intrinsic, or a schedule without any.
    let mut bare = Schedule::new(parse_script(MM64).unwrap().to_module()).unwrap();
    let err = run_python(&mut bare, "sch.tensorize(sch.get_block(\"C\"), \"mma16\")").unwrap_err();
    assert!(err.message.contains("(none are)"), "{}", err.message);
}

#[test]
fn trace_json_matches_tvm() {
    assert_eq!(check_all("trace_"), 1);
}

#[test]
fn json_and_trace_readers_never_panic() {
    let text = read(&data_dir().join("trace_kinds.trace.json"));
    let text = text.trim();
    let mut inputs: Vec<String> = (0..text.len())
        .filter(|i| text.is_char_boundary(*i))
        .map(|i| text[..i].to_string())
        .collect();
    for (i, c) in text.char_indices().filter(|(i, _)| i % 3 == 0) {
        for r in [
            "0", "\"", "[", "]", ",", "-1", "1e999", "\"None\"", "\"b99\"", "{}", "null",
        ] {
            let mut t = text.to_string();
            t.replace_range(i..i + c.len_utf8(), r);
            inputs.push(t);
        }
    }
    let mut replayed = 0;
    for t in &inputs {
        let Ok(j) = Json::parse(t) else { continue };
        let Ok(trace) = Trace::from_json(&j) else {
            continue;
        };
        let mut sch = schedule_for("trace_kinds");
        let _ = sch.replay(&trace, false);
        replayed += 1;
    }
    assert!(
        replayed > 100,
        "only {replayed} mutations got as far as replay"
    );
}

/// Every loop of the programs above, after a few tilings, through every
/// primitive here with every argument: no panic, and every result prints as
/// TVMScript that parses back to the same printing.
#[test]
fn primitives_never_panic_and_results_reparse() {
    use compiler_core::schedule::replay::SchedValue;
    use compiler_core::schedule::{LoopRV, Rv};
    let programs = [
        ("rfactor_matmul.py", "C"),
        ("rfactor_sum_inner.py", "B"),
        ("rfactor_max.py", "B"),
        ("blockize_spatial.py", "B"),
        ("tensorize_batch.py", "C"),
        ("rfactor_err_two_blocks.py", "B"),
    ];
    let mut ok = 0;
    for (program, block) in programs {
        for split in [false, true] {
            for op in 0..5 {
                for target in 0..6usize {
                    let mut sch = Schedule::new(
                        parse_script(&read(&data_dir().join(program)))
                            .unwrap()
                            .to_module(),
                    )
                    .unwrap();
                    let (desc, imp) = mma16();
                    sch.tensor_intrins_mut()
                        .register("mma16", desc, imp, false)
                        .unwrap();
                    let b = sch.get_block(block, None).unwrap();
                    if split {
                        let loops = sch.get_loops(b).unwrap();
                        let last = *loops.last().unwrap();
                        let _ = sch.split(
                            last,
                            &[
                                compiler_core::schedule::Factor::Infer,
                                compiler_core::schedule::Factor::Const(16),
                            ],
                            true,
                        );
                    }
                    let loops = sch.get_loops(b).unwrap_or_default();
                    let Some(&l) = loops.get(target % loops.len().max(1)) else {
                        continue;
                    };
                    let r = match op {
                        0 => sch.rfactor(l, target as i64 - 3).map(|_| ()),
                        1 => sch.blockize(l, target % 2 == 0).map(|_| ()),
                        2 => sch.tensorize(Rv::Loop(l.0), "mma16", target % 2 == 0),
                        3 => sch.tensorize(Rv::Block(b.0), "mma16", true),
                        _ => sch
                            .call(
                                "rfactor",
                                vec![
                                    SchedValue::Rv(Rv::Loop(LoopRV(l.0).0)),
                                    SchedValue::Int(i64::MIN),
                                ],
                                vec![],
                            )
                            .map(|_| ()),
                    };
                    if r.is_ok() {
                        ok += 1;
                        let printed = block_dialect(&sch);
                        let again = parse_script(&printed).unwrap_or_else(|d| {
                            panic!("{program} op {op}: reparse: {}\n{printed}", d.message)
                        });
                        assert_eq!(
                            print_module(&again.to_module(), &PrintOptions::new(Dialect::Block)),
                            printed,
                            "{program} op {op} target {target}"
                        );
                    }
                }
            }
        }
    }
    assert!(ok > 20, "only {ok} calls succeeded");
}
