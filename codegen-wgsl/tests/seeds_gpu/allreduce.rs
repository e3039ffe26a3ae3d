//! Cross-thread reductions (reduce loops bound to `threadIdx.*`): the
//! kernels combine the invocations' partials with a shared-memory tree, run
//! on the adapter and match the reference interpreter; the shapes that
//! cannot be made race-free are refused with the block's name.

use compiler_core::ir::IRModule;
use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::Schedule;

use super::{build_err, build_main};
use codegen_wgsl::WgslFunc;

fn schedule(program: &str, schedule: &str) -> IRModule {
    let module = compiler_core::tvmscript::builder::parse_script(program)
        .map(|p| p.to_module())
        .unwrap_or_else(|d| panic!("{}", d.message));
    let mut sch = Schedule::new(module).expect("schedule");
    run_python(&mut sch, schedule).unwrap_or_else(|d| panic!("{}", d.message));
    sch.module().clone()
}

/// Builds, prints, and runs on the adapter against the interpreter.
fn build_and_check(program: &str, sched: &str) -> WgslFunc {
    let m = schedule(program, sched);
    let w = build_main(&m);
    println!("{}", w.wgsl());
    for n in &w.report.notes {
        println!("note: {n}");
    }
    #[cfg(feature = "native")]
    super::check_on_gpu(&m, &w);
    w
}

/// `B[i] = reduce_k A[i, k]` with the given init and update.
fn row_reduce(extent: usize, init: &str, update: &str) -> String {
    let init = if init.is_empty() {
        String::new()
    } else {
        format!("                with T.init():\n                    B[vi] = {init}\n")
    };
    format!(
        r#"
@tvm.script.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, {extent}), "float32"), B: T.Buffer((4,), "float32")):
        T.func_attr({{"global_symbol": "main", "tir.noalias": True}})
        for i, k in T.grid(4, {extent}):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
{init}                B[vi] = {update}
"#
    )
}

const BIND_ROWS: &str = r#"
i, k = sch.get_loops(sch.get_block("B"))
sch.bind(i, "blockIdx.x")
sch.bind(k, "threadIdx.x")
"#;

fn assert_tree(w: &WgslFunc) {
    let src = &w.kernels[0].source;
    assert!(src.contains("var<workgroup>"), "{src}");
    assert!(src.contains("workgroupBarrier()"), "{src}");
    assert!(
        w.report
            .notes
            .iter()
            .any(|n| n.contains("cross-thread reduction")),
        "{:?}",
        w.report.notes
    );
}

#[test]
fn row_sum_128() {
    let w = build_and_check(
        &row_reduce(128, "T.float32(0)", "B[vi] + A[vi, vk]"),
        BIND_ROWS,
    );
    assert_tree(&w);
    assert_eq!(w.kernels[0].workgroup_size, [128, 1, 1]);
    // Seven halving steps (64 … 1), as TVM's tree for 128 invocations.
    let src = &w.kernels[0].source;
    for s in ["64", "32", "16", "8", "4", "2"] {
        assert!(src.contains(&format!("< {s}")), "step {s} missing:\n{src}");
    }
}

#[test]
fn row_sum_100() {
    let w = build_and_check(
        &row_reduce(100, "T.float32(0)", "B[vi] + A[vi, vk]"),
        BIND_ROWS,
    );
    assert_tree(&w);
    // 100 = 64 + 36: the first step folds the top 36 slots onto the bottom.
    assert!(
        w.kernels[0].source.contains("< 36"),
        "{}",
        w.kernels[0].source
    );
}

#[test]
fn row_max() {
    let w = build_and_check(
        &row_reduce(96, "T.min_value(\"float32\")", "T.max(B[vi], A[vi, vk])"),
        BIND_ROWS,
    );
    assert_tree(&w);
    assert!(w.kernels[0].source.contains("max("));
}

#[test]
fn row_min_and_product() {
    build_and_check(
        &row_reduce(64, "T.max_value(\"float32\")", "T.min(B[vi], A[vi, vk])"),
        BIND_ROWS,
    );
    build_and_check(
        &row_reduce(12, "T.float32(1)", "B[vi] * A[vi, vk]"),
        BIND_ROWS,
    );
}

/// A row reduction written with its loops already bound (the schedule's
/// `bind` refuses some of these shapes; lowering must too, or lower them).
fn bound_row_reduce(row_tag: &str, red_tag: &str, init: bool, also_read: bool) -> String {
    let mut init_text = String::new();
    if init {
        init_text.push_str(&" ".repeat(20));
        init_text.push_str("with T.init():\n");
        init_text.push_str(&" ".repeat(24));
        init_text.push_str("B[vi] = T.float32(0)\n");
    }
    let read = if also_read {
        [
            (12, "for k in T.thread_binding(64, thread=\"threadIdx.x\"):"),
            (16, "with T.block(\"C\"):"),
            (20, "vi, vk = T.axis.remap(\"SS\", [i, k])"),
            (20, "C[vi, vk] = A[vi, vk] - B[vi]"),
        ]
        .iter()
        .map(|(n, line)| format!("{}{line}\n", " ".repeat(*n)))
        .collect()
    } else {
        String::new()
    };
    format!(
        r#"
@tvm.script.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 64), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4, 64), "float32")):
        T.func_attr({{"global_symbol": "main", "tir.noalias": True}})
        for i in T.thread_binding(4, thread="{row_tag}"):
            for k in T.thread_binding(64, thread="{red_tag}"):
                with T.block("B"):
                    vi, vk = T.axis.remap("SR", [i, k])
{init_text}                    B[vi] = B[vi] + A[vi, vk]
{read}"#
    )
}

#[test]
fn row_sum_without_init_adds_to_the_old_value() {
    let w = build_and_check(
        &bound_row_reduce("blockIdx.x", "threadIdx.x", false, false),
        "",
    );
    assert_tree(&w);
}

const MATVEC: &str = r#"
@tvm.script.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8, 200), "float32"), x: T.Buffer((200,), "float32"), y: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, k in T.grid(8, 200):
            with T.block("y"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    y[vi] = T.float32(0)
                y[vi] = y[vi] + A[vi, vk] * x[vk]
"#;

#[test]
fn matvec_threads_times_serial() {
    // 200 = 32 invocations × 7 serial steps, the last ones masked by T.where.
    let w = build_and_check(
        MATVEC,
        r#"
i, k = sch.get_loops(sch.get_block("y"))
k0, k1 = sch.split(k, [32, None])
sch.bind(i, "blockIdx.x")
sch.bind(k0, "threadIdx.x")
"#,
    );
    assert_tree(&w);
    assert!(
        w.report.notes.iter().any(|n| n.contains("k_1")),
        "{:?}",
        w.report.notes
    );
}

#[test]
fn matvec_serial_outside_threads() {
    // The serial loop outside the thread-bound one: each invocation still
    // accumulates its own partial first.
    let w = build_and_check(
        MATVEC,
        r#"
i, k = sch.get_loops(sch.get_block("y"))
k0, k1 = sch.split(k, [None, 40])
sch.bind(i, "blockIdx.x")
sch.bind(k1, "threadIdx.x")
"#,
    );
    assert_tree(&w);
}

#[test]
fn matvec_rows_on_threadidx_y() {
    // Two rows per workgroup: threadIdx.y picks the row, and each row's
    // 32 invocations along threadIdx.x reduce separately.
    let w = build_and_check(
        MATVEC,
        r#"
i, k = sch.get_loops(sch.get_block("y"))
i0, i1 = sch.split(i, [None, 2])
k0, k1 = sch.split(k, [None, 32])
sch.reorder(i0, i1, k1, k0)
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.y")
sch.bind(k1, "threadIdx.x")
"#,
    );
    assert_tree(&w);
    assert_eq!(w.kernels[0].workgroup_size, [32, 2, 1]);
}

#[test]
fn matvec_reduction_over_two_thread_axes() {
    // The reduction spans threadIdx.y × threadIdx.x (4 × 25 = 100 slots,
    // not a power of two) with a serial remainder inside.
    let w = build_and_check(
        MATVEC,
        r#"
i, k = sch.get_loops(sch.get_block("y"))
k0, k1, k2 = sch.split(k, [4, 25, None])
sch.bind(i, "blockIdx.x")
sch.bind(k0, "threadIdx.y")
sch.bind(k1, "threadIdx.x")
"#,
    );
    assert_tree(&w);
    assert_eq!(w.kernels[0].workgroup_size, [25, 4, 1]);
    assert!(
        w.report
            .notes
            .iter()
            .any(|n| n.contains("threadIdx.y, threadIdx.x (100 invocations")),
        "{:?}",
        w.report.notes
    );
}

const SOFTMAX: &str = r#"
@tvm.script.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4, 100), "float32"), C: T.Buffer((4, 100), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        M = T.alloc_buffer((4,), "float32")
        S = T.alloc_buffer((4,), "float32")
        for i, k in T.grid(4, 100):
            with T.block("M"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    M[vi] = T.min_value("float32")
                M[vi] = T.max(M[vi], A[vi, vk])
        for i, k in T.grid(4, 100):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + T.exp(A[vi, vk] - M[vi])
        for i, k in T.grid(4, 100):
            with T.block("C"):
                vi, vk = T.axis.remap("SS", [i, k])
                C[vi, vk] = T.exp(A[vi, vk] - M[vi]) / S[vi]
"#;

const SOFTMAX_SCHEDULE: &str = r#"
i, k = sch.get_loops(sch.get_block("C"))
sch.bind(i, "blockIdx.x")
sch.bind(k, "threadIdx.x")
sch.compute_at(sch.get_block("S"), i)
sch.compute_at(sch.get_block("M"), i)
_, k = sch.get_loops(sch.get_block("S"))
sch.bind(k, "threadIdx.x")
_, k = sch.get_loops(sch.get_block("M"))
sch.bind(k, "threadIdx.x")
"#;

#[test]
fn softmax_two_reductions_in_one_kernel() {
    let w = build_and_check(SOFTMAX, SOFTMAX_SCHEDULE);
    assert_eq!(w.kernels.len(), 1);
    let notes = w.report.notes.join("\n");
    assert!(notes.contains("block M: cross-thread reduction"), "{notes}");
    assert!(notes.contains("block S: cross-thread reduction"), "{notes}");
    // C reads M and S in the same kernel: every invocation writes them.
    assert!(notes.contains("every invocation"), "{notes}");
}

#[test]
fn reduction_loop_on_blockidx_is_refused() {
    let e = build_err(
        &bound_row_reduce("threadIdx.x", "blockIdx.x", true, false),
        "",
    );
    assert!(e.contains("block B"), "{e}");
    assert!(e.contains("bound to blockIdx.x"), "{e}");
}

#[test]
fn unknown_reducer_on_threads_is_refused() {
    let e = build_err(
        &row_reduce(128, "T.float32(0)", "B[vi] - A[vi, vk]"),
        BIND_ROWS,
    );
    assert!(
        e.contains("block B is a reduction bound to threadIdx"),
        "{e}"
    );
    assert!(e.contains("no commutative reducer"), "{e}");
}

#[test]
fn smaller_reduction_extent_than_the_kernel_is_refused() {
    // The reduction's 100 invocations in a kernel that launches 128: the
    // other 28 would skip the tree's barriers.
    let e = build_err(
        &SOFTMAX
            .replace(
                "for i, k in T.grid(4, 100):\n            with T.block(\"C\")",
                "for i, k in T.grid(4, 128):\n            with T.block(\"C\")",
            )
            .replace("C: T.Buffer((4, 100)", "C: T.Buffer((4, 128)")
            .replace("T.exp(A[vi, vk] - M[vi]) / S[vi]", "M[vi] / S[vi]"),
        SOFTMAX_SCHEDULE,
    );
    assert!(e.contains("block M") || e.contains("block S"), "{e}");
    assert!(e.contains("128"), "{e}");
}

#[test]
fn row_sum_with_spatial_where() {
    // 4 rows split by 3: the T.where on the row guards the write-back only.
    let w = build_and_check(
        &row_reduce(100, "T.float32(0)", "B[vi] + A[vi, vk]"),
        r#"
i, k = sch.get_loops(sch.get_block("B"))
i0, i1 = sch.split(i, [None, 3])
sch.bind(i0, "blockIdx.x")
sch.bind(k, "threadIdx.x")
"#,
    );
    assert_tree(&w);
}

#[test]
fn read_back_reduction_without_init_is_refused() {
    let e = build_err(
        &bound_row_reduce("blockIdx.x", "threadIdx.x", false, true),
        "",
    );
    assert!(e.contains("block B"), "{e}");
    assert!(e.contains("no T.init()"), "{e}");
}

#[test]
fn read_back_reduction_with_init_is_written_by_all() {
    let w = build_and_check(
        &bound_row_reduce("blockIdx.x", "threadIdx.x", true, true),
        "",
    );
    assert_tree(&w);
    let notes = w.report.notes.join("\n");
    assert!(notes.contains("every invocation"), "{notes}");
}
