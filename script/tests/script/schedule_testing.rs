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
