//! `tvm.s_tir.schedule.testing`, the helpers TVM's own schedule tests use:
//! `verify_trace_roundtrip` replays a trace on a fresh schedule and checks
//! the result, `assert_structural_equal_ignore_global_symbol` compares
//! functions whatever their `global_symbol`.

use crate::support::*;
use tessel_script::Limits;

const PRELUDE: &str = r#"import tvm
from tvm import s_tir
from tvm.script import tir as T
from tvm.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol,
    verify_trace_roundtrip,
)

@T.prim_func
def add(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)

"#;

fn run(cell: &str) -> Run {
    run_source(&format!("{PRELUDE}{cell}"), "<cell>", Limits::default())
}

#[test]
fn verify_trace_roundtrip_replays_a_schedule() {
    let r = run("sch = s_tir.Schedule(add)\n\
         i, j = sch.get_loops(sch.get_block(\"B\"))\n\
         io, ii = sch.split(i, factors=[None, 4])\n\
         sch.reorder(ii, io)\n\
         new = verify_trace_roundtrip(sch=sch, mod=add)\n\
         tvm.ir.assert_structural_equal(new.mod, sch.mod)\n\
         print(len(new.trace.as_python()) > 0)\n\
         verify_trace_roundtrip(sch, add, text_format=\"json\")\n\
         print(\"ok\")\n");
    assert!(r.error.is_none(), "{:?}\n{}", r.error, r.output);
    assert!(r.output.ends_with("ok\n"), "{}", r.output);
}

#[test]
fn verify_trace_roundtrip_fails_on_another_module() {
    let r = run("@T.prim_func\n\
         def other(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\")):\n\
         \x20   for i, j in T.grid(16, 16):\n\
         \x20       with T.block(\"B\"):\n\
         \x20           vi, vj = T.axis.remap(\"SS\", [i, j])\n\
         \x20           B[vi, vj] = A[vi, vj] * T.float32(2)\n\
         sch = s_tir.Schedule(add)\n\
         sch.split(sch.get_loops(sch.get_block(\"B\"))[0], factors=[4, 4])\n\
         verify_trace_roundtrip(sch, other)\n");
    let err = r
        .error
        .expect("a trace replayed on another program differs");
    assert!(
        err.message.contains("StructuralEqual check failed"),
        "{}",
        err.message
    );
}

#[test]
fn verify_trace_roundtrip_refuses_json_of_an_index_map() {
    // TVM 0.27 cannot write an index map into a trace's JSON: the Python
    // round trip passes, the JSON one fails.
    let r = run("sch = s_tir.Schedule(add)\n\
         sch.transform_layout(sch.get_block(\"B\"), (\"write\", 0), lambda i, j: (j, i))\n\
         verify_trace_roundtrip(sch, add, text_format=\"python\")\n\
         print(\"python ok\")\n\
         verify_trace_roundtrip(sch, add, text_format=\"json\")\n");
    assert!(r.output.contains("python ok"), "{}", r.output);
    let err = r.error.expect("an index map has no JSON form");
    assert!(
        err.message
            .contains("`transform_layout` holds an index map"),
        "{}",
        err.message
    );
}

#[test]
fn structural_equality_can_ignore_the_global_symbol() {
    let r = run("renamed = add.with_attr(\"global_symbol\", \"renamed\")\n\
         assert_structural_equal_ignore_global_symbol(add, renamed)\n\
         print(tvm.ir.structural_equal(add, renamed))\n\
         print(\"ok\")\n");
    assert!(r.error.is_none(), "{:?}\n{}", r.error, r.output);
    assert_eq!(r.output, "False\nok\n");
}

#[test]
fn structural_equality_ignoring_the_symbol_still_compares_bodies() {
    let r = run("sch = s_tir.Schedule(add)\n\
         sch.split(sch.get_loops(sch.get_block(\"B\"))[0], factors=[4, 4])\n\
         assert_structural_equal_ignore_global_symbol(add, sch.mod[\"main\"])\n");
    let err = r
        .error
        .expect("a split loop nest differs from the original");
    assert!(
        err.message.contains("StructuralEqual check failed"),
        "{}",
        err.message
    );
}

const ROW_SUM: &str = r#"@T.prim_func
def row_sum(A: T.Buffer((4, 30), "float32"), S: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 30):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]

"#;

#[test]
fn debug_mask_refuses_an_rfactor_whose_predicate_bounds_no_binding() {
    // TVM 0.27 accepts this rfactor, but the re-check of cached flags that
    // `debug_mask="all"` asks for fails: the rfactor block's split
    // iterators no longer match the split's `T.where`.
    let schedule = |mask: &str| {
        format!(
            "{ROW_SUM}sch = s_tir.Schedule(row_sum{mask})\n\
             ko, ki = sch.split(sch.get_loops(sch.get_block(\"S\"))[1], factors=[None, 8])\n\
             sch.rfactor(ko, 1)\n\
             print(\"ok\")\n"
        )
    };
    let r = run(&schedule(", debug_mask=\"all\""));
    let err = r.error.expect("the cached-flag check refuses it");
    assert!(
        err.message.contains("Wrong affine_binding"),
        "{}",
        err.message
    );
    let r = run(&schedule(""));
    assert!(r.error.is_none(), "{:?}\n{}", r.error, r.output);
    assert_eq!(r.output, "ok\n");
}

#[test]
fn index_maps_close_over_the_function_parameters() {
    // As in TVM 0.27: `params` are typed variables (a handle's `.ty` has
    // its buffer's shape), and a lambda may use them by name.
    let r = run("@T.prim_func\n\
         def rows(a: T.handle, b: T.handle):\n\
         \x20   n = T.int64()\n\
         \x20   A = T.match_buffer(a, (T.int64(4), n), \"float32\")\n\
         \x20   B = T.match_buffer(b, (T.int64(4), n), \"float32\")\n\
         \x20   for i, j in T.grid(T.int64(4), n):\n\
         \x20       with T.block(\"B\"):\n\
         \x20           vi, vj = T.axis.remap(\"SS\", [i, j])\n\
         \x20           B[vi, vj] = A[vi, vj] + T.float32(1)\n\
         print(rows.params[0].ty.dtype, len(rows.params[0].ty.shape))\n\
         _, n = rows.params[0].ty.shape\n\
         sch = s_tir.Schedule(rows)\n\
         sch.transform_layout(\"B\", (\"write\", 0), lambda x, y: x * n + y, assume_injective_transform=True)\n\
         sch.mod[\"main\"].show()\n\
         print(sch.trace)\n");
    assert!(r.error.is_none(), "{:?}\n{}", r.error, r.output);
    // TVM 0.27's results.
    assert!(r.output.starts_with("float32 2\n"), "{}", r.output);
    assert!(
        r.output
            .contains("B[vi * n + vj] = A[vi, vj] + T.float32(1.0)"),
        "{}",
        r.output
    );
    assert!(
        r.output
            .contains("B = T.match_buffer(b, (n * T.int64(4),))"),
        "{}",
        r.output
    );
    assert!(
        r.output.contains("index_map=lambda x, y: (x * n + y,)"),
        "{}",
        r.output
    );
}
