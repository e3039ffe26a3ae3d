//! The trace: printing in TVM's format, and replay.

use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::{Schedule, TraceDialect};
use compiler_core::tvmscript::builder::parse_script;

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

fn schedule() -> Schedule {
    let parsed = parse_script(MATMUL).expect("parses");
    Schedule::with_seed(parsed.to_module(), 1).expect("schedule")
}

#[test]
fn trace_prints_like_tvm() {
    let mut sch = schedule();
    run_python(
        &mut sch,
        r#"
block_C = sch.get_block("C", "main")
i, j, k = sch.get_loops(block=block_C)
j_factors = sch.sample_perfect_tile(loop=j, n=2, max_innermost_factor=16, decision=[16, 8])
j_0, j_1 = sch.split(loop=j, factors=j_factors)
sch.reorder(i, j_0, k, j_1)
"#,
    )
    .expect("schedule runs");
    let expected = r#"# from tvm import tir
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  v4, v5 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16, decision=[16, 8])
  l6, l7 = sch.split(loop=l2, factors=[v4, v5], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l1, l6, l3, l7)
"#;
    assert_eq!(sch.trace().python(TraceDialect::Tir), expected);
    assert!(sch
        .trace()
        .python(TraceDialect::STir)
        .contains("sch.get_sblock(name=\"C\""));
}

#[test]
fn printed_trace_replays_to_the_same_trace() {
    let mut sch = schedule();
    run_python(
        &mut sch,
        r#"
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
f = sch.sample_perfect_tile(j, n=2, max_innermost_factor=16)
j0, j1 = sch.split(j, factors=f)
sch.reorder(i, j0, k, j1)
ij = sch.fuse(i, j0)
"#,
    )
    .expect("schedule runs");
    let text = sch.trace().python(TraceDialect::Tir);
    // Replaying the printed text on the original module gives the same trace
    // (the decision is part of the text).
    let mut again = schedule();
    run_python(&mut again, &text).expect("replays");
    assert_eq!(again.trace().python(TraceDialect::Tir), text);
    // And so does replaying the trace object itself.
    let mut third = schedule();
    third.replay(sch.trace(), false).expect("replays");
    assert_eq!(third.trace().python(TraceDialect::Tir), text);
}

#[test]
fn sampled_tiles_are_perfect_and_bounded() {
    for seed in 0..50 {
        let mut sch = Schedule::with_seed(parse_script(MATMUL).unwrap().to_module(), seed).unwrap();
        let env = run_python(
            &mut sch,
            "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nf = sch.sample_perfect_tile(j, n=3, max_innermost_factor=8)\n",
        )
        .unwrap();
        let compiler_core::schedule::replay::SchedValue::List(items) = &env["f"] else {
            panic!("a list")
        };
        let values: Vec<i64> = items
            .iter()
            .map(|v| match v {
                compiler_core::schedule::replay::SchedValue::Rv(
                    compiler_core::schedule::Rv::Expr(e),
                ) => sch.get_value(compiler_core::schedule::ExprRV(*e)).unwrap(),
                _ => panic!("sampled values"),
            })
            .collect();
        assert_eq!(
            values.iter().product::<i64>(),
            128,
            "seed {seed}: {values:?}"
        );
        assert!(values[2] <= 8, "seed {seed}: {values:?}");
    }
}

#[test]
fn stale_handles_and_illegal_requests_explain_themselves() {
    let mut sch = schedule();
    let err = run_python(&mut sch, "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\ni0, i1 = sch.split(i, [None, 4])\nsch.parallel(i)\n")
        .unwrap_err();
    assert!(err.message.contains("no longer exists"), "{}", err.message);

    let mut sch = schedule();
    let err = run_python(
        &mut sch,
        "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nsch.parallel(k)\n",
    )
    .unwrap_err();
    assert!(
        err.message.contains("reduce iterator `vk`"),
        "{}",
        err.message
    );

    let mut sch = schedule();
    let err = run_python(&mut sch, "b = sch.get_block(\"D\")\n").unwrap_err();
    assert!(
        err.message.contains("no block named `D`"),
        "{}",
        err.message
    );

    let mut sch = schedule();
    let err = run_python(
        &mut sch,
        "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nx = sch.split(i, [None, None])\n",
    )
    .unwrap_err();
    assert!(
        err.message.contains("at most one factor"),
        "{}",
        err.message
    );
}

#[test]
fn a_refusal_shows_the_ir_with_the_loop_marked() {
    let mut sch = schedule();
    let err = run_python(
        &mut sch,
        "b = sch.get_block(\"C\")\ni, j, k = sch.get_loops(b)\nsch.vectorize(k)\n",
    )
    .unwrap_err();
    // The marked IR is the diagnostic's `marked_code`, not one of its notes.
    let note = err.marked_code.map(|m| m.code).unwrap_or_default();
    // The whole function is printed, with the reduction loop underlined.
    let lines: Vec<&str> = note.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("for i, j, k in T.grid(128, 128, 128):"))
        .expect("loop printed");
    assert!(lines[at + 1].trim_start().starts_with('^'), "{note}");
    assert!(
        note.contains("C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]"),
        "{note}"
    );
}

const PRODUCER_CONSUMER: &str = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    B = T.alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
"#;

/// TVM 0.27's results for each decision (checked with the oracle):
/// -2 inlines B into C, -1 leaves it at the root, 0 computes it under `i`
/// (a new `ax0` loop), 1 under `j` (both blocks share the nest).
#[test]
fn sample_compute_location_follows_tvm_decisions() {
    use compiler_core::eval::{allclose, random_inputs, run_prim_func, EvalOptions};
    use compiler_core::tvmscript::printer::{print_module, PrintOptions};
    let original = parse_script(PRODUCER_CONSUMER).unwrap().to_module();
    let run = |m: &compiler_core::ir::IRModule| {
        let f = m.get_prim("main").unwrap();
        let mut args = random_inputs(f, 5, &Default::default()).unwrap();
        run_prim_func(f, &mut args, &EvalOptions::default()).unwrap();
        args.pop().unwrap()
    };
    let expected_out = run(&original);
    for (decision, must_contain, must_not) in [
        (
            -2,
            "C[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)",
            "T.block(\"B\")",
        ),
        (-1, "B[vi, vj] = A[vi, vj] * T.float32(2.0)", "ax0"),
        (
            0,
            "for ax0 in range(128):",
            "T.grid(128, 128):\n            with T.block(\"B\")",
        ),
        (1, "with T.block(\"C\")", "ax0"),
    ] {
        let mut sch = Schedule::new(original.clone()).unwrap();
        run_python(
            &mut sch,
            &format!(
                "b = sch.get_block(\"B\")\nl = sch.sample_compute_location(b, decision={decision})\nsch.compute_at(b, l)\n"
            ),
        )
        .unwrap_or_else(|e| panic!("decision {decision}: {}", e.message));
        let text = print_module(sch.module(), &PrintOptions::default());
        assert!(text.contains(must_contain), "decision {decision}:\n{text}");
        assert!(!text.contains(must_not), "decision {decision}:\n{text}");
        assert!(
            sch.trace().python(TraceDialect::Tir).contains(&format!(
                "l1 = sch.sample_compute_location(block=b0, decision={decision})"
            )),
            "{}",
            sch.trace().python(TraceDialect::Tir)
        );
        allclose(&run(sch.module()), &expected_out, 1e-6, 1e-6).unwrap();
    }
    // Location 1 puts both blocks in one nest.
    let mut sch = Schedule::new(original.clone()).unwrap();
    run_python(&mut sch, "b = sch.get_block(\"B\")\nl = sch.sample_compute_location(b, decision=1)\nsch.compute_at(b, l)\n").unwrap();
    let text = print_module(sch.module(), &PrintOptions::default());
    assert_eq!(
        text.matches("for i, j in T.grid(128, 128):").count(),
        1,
        "{text}"
    );
    // A decision that is no candidate falls back to the one before it, as
    // in TVM (5 becomes 1); random draws always pick a legal one.
    let mut sch = Schedule::new(original.clone()).unwrap();
    run_python(
        &mut sch,
        "b = sch.get_block(\"B\")\nl = sch.sample_compute_location(b, decision=5)\n",
    )
    .unwrap();
    assert!(sch
        .trace()
        .python(TraceDialect::Tir)
        .contains("sample_compute_location(block=b0, decision=1)"));
    for seed in 0..20 {
        let mut sch = Schedule::with_seed(original.clone(), seed).unwrap();
        run_python(
            &mut sch,
            "b = sch.get_block(\"B\")\nl = sch.sample_compute_location(b)\nsch.compute_at(b, l)\n",
        )
        .unwrap();
        allclose(&run(sch.module()), &expected_out, 1e-6, 1e-6).unwrap();
        // The printed trace replays to the same module.
        let mut again = Schedule::new(original.clone()).unwrap();
        run_python(&mut again, &sch.trace().python(TraceDialect::Tir)).unwrap();
        assert_eq!(
            print_module(again.module(), &PrintOptions::default()),
            print_module(sch.module(), &PrintOptions::default())
        );
    }
}

const TILED_REDUCTION: &str = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16, 8))
    for i, k in T.grid(16, 8):
        with T.block("B"):
            vi, vk = T.axis.remap("SS", [i, k])
            B[vi, vk] = A[vi, vk] * T.float32(2)
    for i0, j, i1, k in T.grid(4, 1, 4, 8):
        with T.block("C"):
            vi = T.axis.spatial(16, i0 * 4 + i1)
            vk = T.axis.reduce(8, k)
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + B[vi, vk]
"#;

/// TVM 0.27's candidates (checked with the oracle): inline, root, and the
/// consumer's loops by position — `i0` (0) and `i1` (2), not the unit loop
/// `j` nor the reduction loop `k` below the last spatial one; a decision
/// that is no candidate takes the one before it (3 becomes 2, 1 becomes 0).
#[test]
fn sample_compute_location_candidates_are_tvms() {
    let original = parse_script(TILED_REDUCTION).unwrap().to_module();
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..64 {
        let mut sch = Schedule::with_seed(original.clone(), seed).unwrap();
        run_python(
            &mut sch,
            "b = sch.get_block(\"B\")\nl = sch.sample_compute_location(b)\n",
        )
        .unwrap();
        let trace = sch.trace().python(TraceDialect::Tir);
        let d = trace.split("decision=").nth(1).unwrap();
        seen.insert(d[..d.find(')').unwrap()].parse::<i64>().unwrap());
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![-2, -1, 0, 2]);
    for (given, kept) in [(5, 2), (3, 2), (1, 0)] {
        let mut sch = Schedule::new(original.clone()).unwrap();
        let text = format!(
            "b = sch.get_block(\"B\")\nl = sch.sample_compute_location(b, decision={given})\n"
        );
        run_python(&mut sch, &text).unwrap();
        assert!(
            sch.trace()
                .python(TraceDialect::Tir)
                .contains(&format!("decision={kept})")),
            "{given}"
        );
    }
}

/// `pad_einsum` then `decompose_padding`: the JSON is TVM 0.27's
/// `sch.trace.as_json()` for the same calls on the same 14x10 by 10x6 matmul
/// (case `prim_pad_einsum_partial`'s calls), and replaying it gives the
/// same module.
#[test]
fn pad_einsum_and_decompose_padding_json_like_tvm() {
    const SMALL: &str = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((14, 10), "float32"), B: T.Buffer((10, 6), "float32"), C: T.Buffer((14, 6), "float32")):
    for i, j, k in T.grid(14, 6, 10):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;
    let fresh = || {
        let parsed = parse_script(SMALL).expect("parses");
        Schedule::with_seed(parsed.to_module(), 1).expect("schedule")
    };
    let mut sch = fresh();
    run_python(
        &mut sch,
        r#"
b = sch.get_block("C")
sch.pad_einsum(b, [7, 4, 16])
bp = sch.get_block("B_pad")
i0, i1 = sch.get_loops(bp)
fill = sch.decompose_padding(bp, i0)
"#,
    )
    .expect("schedule runs");
    let tvm = r#"[[["GetSBlock", [], ["C", "main"], ["b0"]], ["PadEinsum", ["b0"], [[7, 4, 16]], []], ["GetSBlock", [], ["B_pad", "main"], ["b1"]], ["GetLoops", ["b1"], [], ["l2", "l3"]], ["DecomposePadding", ["b1", "l2"], [], ["b4"]]], []]"#;
    let ours = sch
        .trace()
        .to_json_string()
        .replace("GetBlock", "GetSBlock");
    assert_eq!(ours, tvm);
    let back = compiler_core::schedule::Trace::from_json_str(&sch.trace().to_json_string())
        .expect("reads back");
    let mut again = fresh();
    again.replay(&back, false).expect("replays");
    assert_eq!(
        again.trace().python(TraceDialect::STir),
        sch.trace().python(TraceDialect::STir)
    );
    let printed = |s: &Schedule| {
        use compiler_core::tvmscript::printer::{print_module, Dialect, PrintOptions};
        print_module(s.module(), &PrintOptions::new(Dialect::Block))
    };
    assert!(
        printed(&sch).contains("B_pad_pad_const"),
        "{}",
        printed(&sch)
    );
    assert_eq!(printed(&again), printed(&sch));
}

/// The JSON traces of the cases of `loop_partition`, `cache_index`,
/// `read_at`/`write_at`, `rolling_buffer` and `fuse_reduction_epilogue` are
/// TVM 0.27's `sch.trace.as_json()` for the same calls (inputs, attributes
/// and their encodings: `loop_partition`'s `preserve_unit_iters` is an
/// integer, `split`'s a boolean), and replaying the JSON gives the same
/// module.
#[test]
fn newer_primitives_json_like_tvm() {
    use crate::support::schedule_case::{data_dir, load_case};
    use compiler_core::tvmscript::printer::{print_module, PrintOptions};
    let cases = [
        (
            "prim_loop_partition",
            r#"[[["GetSBlock", [], ["B", "main"], ["b0"]], ["GetLoops", ["b0"], [], ["l1", "l2"]], ["LoopPartition", ["l1", "None", 4, 3], [1], ["l3", "l4", "l5"]], ["GetSBlock", [], ["B_i0", "main"], ["b6"]], ["GetLoops", ["b6"], [], ["l7", "l8"]], ["Split", ["l8", "None", 4], [true, false], ["l9", "l10"]]], []]"#,
        ),
        (
            "prim_cache_index",
            r#"[[["GetSBlock", [], ["B", "main"], ["b0"]], ["CacheIndex", ["b0"], ["global", 0], ["b1", "b2"]]], []]"#,
        ),
        (
            "prim_read_write_at",
            r#"[[["GetSBlock", [], ["B", "main"], ["b0"]], ["GetLoops", ["b0"], [], ["l1", "l2", "l3", "l4"]], ["ReadAt", ["l2", "b0"], [0, "shared"], ["b5"]], ["WriteAt", ["l2", "b0"], [0, "local"], ["b6"]]], []]"#,
        ),
        (
            "prim_rolling_buffer",
            r#"[[["GetSBlock", [], ["B", "main"], ["b0"]], ["GetSBlock", [], ["C", "main"], ["b1"]], ["GetLoops", ["b1"], [], ["l2"]], ["Split", ["l2", 3, 3], [true, false], ["l3", "l4"]], ["ComputeAt", ["b0", "l3"], [0, -1], []], ["RollingBuffer", ["b0"], [0], []]], []]"#,
        ),
        (
            "prim_fuse_reduction_epilogue",
            r#"[[["GetSBlock", [], ["matmul", "main"], ["b0"]], ["GetSBlock", [], ["bias", "main"], ["b1"]], ["FuseReductionEpilogue", ["b0", "b1"], [], []], ["GetLoops", ["b0"], [], ["l2", "l3", "l4"]], ["Split", ["l4", "None", 2], [true, false], ["l5", "l6"]]], []]"#,
        ),
    ];
    for (name, tvm) in cases {
        let case = load_case(&data_dir().join(format!("{name}.py"))).expect("case");
        let module = parse_script(&case.module_src).expect("parses").to_module();
        let mut sch = Schedule::new(module.clone()).expect("schedule");
        run_python(&mut sch, &case.schedule_src).expect("schedule runs");
        let ours = sch
            .trace()
            .to_json_string()
            .replace("GetBlock", "GetSBlock");
        assert_eq!(ours, tvm, "{name}");
        let back = compiler_core::schedule::Trace::from_json_str(&sch.trace().to_json_string())
            .expect("reads back");
        let mut again = Schedule::new(module).expect("schedule");
        again.replay(&back, false).expect("replays");
        let printed = |s: &Schedule| print_module(s.module(), &PrintOptions::default());
        assert_eq!(printed(&again), printed(&sch), "{name}");
    }
}
