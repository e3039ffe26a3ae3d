//! compute_at, reverse_compute_at, compute_inline, reverse_compute_inline:
//! before/after pairs whose "after" text is TVM 0.27's output (generated
//! with tools/tvm_oracle/sched_oracle.py, converted to the course dialect).

mod schedule_util;

use schedule_util::*;

const MM_RELU: &str = include_str!("data/seeds/seed001_02_mm_relu.py");

#[test]
fn mm_relu_reverse_compute_at_book() {
    let sch = schedule(
        MM_RELU,
        r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 4])
sch.reorder(j0, k, j1)
block_C = sch.get_block("C", "mm_relu")
sch.reverse_compute_at(block_C, j0)
"#,
    );
    assert_func(
        &sch,
        r#"
from tvm.script import tir as T
@T.prim_func
def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"tir.noalias": True})
    Y = T.alloc_buffer((128, 128))
    for i, j_0 in T.grid(128, 32):
        for k, j_1 in T.grid(128, 4):
            with T.block("Y"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j_0 * 4 + j_1)
                vk = T.axis.reduce(128, k)
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(Y[vi, vj])
                with T.init():
                    Y[vi, vj] = T.float32(0.0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for ax0 in range(4):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j_0 * 4 + ax0)
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))
"#,
    );
    assert!(sch
        .trace()
        .python(compiler_core::schedule::TraceDialect::Tir)
        .contains("sch.reverse_compute_at(block=b6, loop=l4, preserve_unit_loops=False, index=-1)"));
}

/// Every case in tests/data/schedule_cases: TVM's result (or TVM's refusal)
/// must be reproduced. Regenerate with tools/tvm_oracle/schedule_cases.py.
#[test]
fn oracle_cases() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/schedule_cases");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("case directory")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    names.sort();
    assert!(names.len() >= 20, "cases missing");
    let mut failures = Vec::new();
    let mut numeric = 0;
    for path in &names {
        let text = std::fs::read_to_string(path).expect("readable");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let case = Case::parse(&text);
        match std::panic::catch_unwind(|| case.check()) {
            Ok(true) => numeric += 1,
            Ok(false) => {}
            Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{name}: {msg}"));
            }
        }
    }
    // Most cases are small enough to be run by the interpreter.
    assert!(numeric >= 30, "only {numeric} cases were checked numerically");
    assert!(failures.is_empty(), "{} case(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}
