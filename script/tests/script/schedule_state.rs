//! A schedule's state as TVM's tests read it: `sch.get_sref` (the
//! statement, its parent, identity per schedule, handles of other
//! schedules refused), `sch.state`, the fields of the statements it returns
//! (`For.loop_var`, `.extent`, `SeqStmt` items), a trace's instructions and
//! decisions, and dictionaries as annotation values. Expected outputs are
//! TVM 0.27's for the same cells.

use crate::support::*;
use tessel_script::Limits;

const PRELUDE: &str = r#"import tvm
from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def scale(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):
    for i, j in T.grid(64, 32):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)

@T.prim_func(s_tir=True)
def pair(A: T.Buffer((8, 16), "float32"), C: T.Buffer((8, 16), "float32")):
    B = T.sblock_alloc_buffer((8, 16))
    for i in range(8):
        for j in range(16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for j in range(16):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] * T.float32(3)

"#;

fn run(cell: &str) -> Run {
    run_source(&format!("{PRELUDE}{cell}"), "<cell>", Limits::default())
}

fn ok(cell: &str) -> String {
    let r = run(cell);
    assert!(r.error.is_none(), "{:?}\n{}", r.error, r.output);
    r.output
}

#[test]
fn get_sref_walks_up_to_the_root_block() {
    let out = ok("sch = tvm.s_tir.Schedule(scale)\n\
         b = sch.get_sblock(\"B\")\n\
         i, j = sch.get_loops(b)\n\
         r = sch.get_sref(b)\n\
         print(r.stmt.name_hint, r.parent.stmt.loop_var.name, r.parent.parent.stmt.loop_var.name)\n\
         print(r.parent.parent.parent.stmt.name_hint, r.parent.parent.parent.parent)\n\
         print(sch.get_sref(i).same_as(sch.get_sref(i)), sch.get_sref(i) == sch.get_sref(j))\n\
         print(sch.get_sref(j).stmt.same_as(sch.get(j)), sch.state.get_sref(sch.get(b)).same_as(r))\n\
         print(repr(r), r.seq_index)\n\
         print(sch.state.mod[\"main\"].same_as(sch.mod[\"main\"]))\n");
    assert_eq!(
        out,
        "B j i\nroot None\nTrue False\nTrue True\ns_tir.StmtSRef(seq_index=-1) -1\nTrue\n"
    );
}

#[test]
fn a_copy_has_its_own_srefs_and_refuses_later_handles_of_the_original() {
    let out = ok("sch = tvm.s_tir.Schedule(scale)\n\
         i, j = sch.get_loops(sch.get_sblock(\"B\"))\n\
         c = sch.copy()\n\
         print(c.get_sref(i).same_as(sch.get_sref(i)), c.get_sref(i).stmt.same_as(sch.get_sref(i).stmt))\n\
         io, ii = sch.split(i, [None, 16])\n\
         print(sch.get_sref(io).stmt.extent, bool(sch.get_sref(ii).stmt.extent == 16))\n\
         for f in [lambda: c.get_sref(io), lambda: c.get(ii), lambda: c.split(io, [2, 2])]:\n\
         \x20   try:\n\
         \x20       f()\n\
         \x20   except IndexError as e:\n\
         \x20       print(\"IndexError\", e)\n");
    assert_eq!(
        out,
        "False True\n4 True\n\
         IndexError Cannot find corresponding LoopRV: s_tir.LoopRV\n\
         IndexError Cannot find corresponding LoopRV: s_tir.LoopRV\n\
         IndexError Cannot find corresponding LoopRV: s_tir.LoopRV\n"
    );
}

#[test]
fn get_sref_refuses_what_is_not_a_block_or_loop() {
    let r = run("sch = tvm.s_tir.Schedule(scale)\nsch.get_sref(3)\n");
    let e = r.error.expect("an int is no block or loop");
    assert_eq!(e.kind, "TypeError");
    assert!(
        e.message
            .contains("Expected \"Union[SBlockRV, LoopRV, SBlock, For]\"")
            && e.message.contains("\"int\""),
        "{}",
        e.message
    );
    let r = run("sch = tvm.s_tir.Schedule(scale)\nsch.state.get_sref(\"B\")\n");
    let e = r.error.expect("a name is no statement");
    assert_eq!(e.kind, "TypeError");
    assert!(e.message.contains("Expected `tirx.Stmt`"), "{}", e.message);
}

#[test]
fn statements_expose_their_fields_down_to_sequence_items() {
    let out = ok("loop = scale.body.block.body\n\
         print(loop.loop_var.name, loop.extent, loop.min, loop.kind, loop.body.loop_var.name, loop.body.body.block.name_hint)\n\
         seq = pair.body.block.body.body\n\
         print(len(seq), seq[1].body.block.name_hint, seq[-2].loop_var.name, seq[0].same_as(seq[0]))\n\
         sch = tvm.s_tir.Schedule(pair)\n\
         rc = sch.get_sref(sch.get_sblock(\"C\"))\n\
         print(rc.parent.seq_index, rc.parent.parent.stmt.loop_var.name)\n\
         tvm.ir.assert_structural_equal(sch.get_sref(sch.get_sblock(\"C\")).stmt, rc.stmt)\n\
         try:\n\
         \x20   seq[2]\n\
         except IndexError:\n\
         \x20   print(\"IndexError\")\n");
    assert_eq!(out, "i 64 0 0 j B\n2 C j True\n1 i\nIndexError\n");
}

#[test]
fn trace_instructions_key_their_decisions() {
    let out = ok("sch = tvm.s_tir.Schedule(pair, seed=7)\n\
         rc = sch.get_sref(sch.get_sblock(\"C\"))\n\
         v = sch.sample_categorical([3, 5, 7], [0.2, 0.3, 0.5])\n\
         tiles = sch.sample_perfect_tile(sch.get_loops(\"C\")[1], n=2)\n\
         t = sch.trace\n\
         print(len(t.insts), len(t.decisions))\n\
         print([3, 5, 7][t.decisions[t.insts[1]]] == sch.get(v))\n\
         d = sch.trace.decisions[sch.trace.insts[-1]]\n\
         print(len(d), d[0] * d[1])\n\
         print(sch.trace.insts[1] in sch.trace.decisions, sch.trace.insts[0] in sch.trace.decisions, sch.trace.insts[0] == sch.trace.insts[0])\n\
         try:\n\
         \x20   print(sch.trace.decisions[sch.trace.insts[0]])\n\
         except KeyError:\n\
         \x20   print(\"KeyError\")\n");
    assert_eq!(out, "5 2\nTrue\n2 16\nTrue False True\nKeyError\n");
}

#[test]
fn a_dict_is_an_annotation_value() {
    let out = ok("sch = tvm.s_tir.Schedule(scale)\n\
         b = sch.get_sblock(\"B\")\n\
         i, j = sch.get_loops(b)\n\
         sch.annotate(i, \"meta\", {\"arr\": [0, 2], \"key\": 3})\n\
         sch.annotate(b, \"tag\", {\"w\": 0.5, \"on\": True})\n\
         ann = sch.get(i).annotations[\"meta\"]\n\
         print(ann[\"arr\"][1], ann[\"key\"], sch.get(b).annotations[\"tag\"][\"w\"])\n\
         print(\"ann_val={\\\"arr\\\": [0, 2], \\\"key\\\": 3}\" in str(sch.trace))\n");
    assert_eq!(out, "2 3 0.5\nTrue\n");
    let r = run("sch = tvm.s_tir.Schedule(scale)\n\
         sch.annotate(sch.get_sblock(\"B\"), \"bad\", {\"f\": print})\n");
    let e = r.error.expect("a function is no annotation value");
    assert_eq!(e.kind, "TypeError");
    assert!(e.message.contains("inside a dict"), "{}", e.message);
}

#[test]
fn a_removed_handle_is_refused_here_and_in_later_copies() {
    let out = ok("sch = tvm.s_tir.Schedule(scale)\n\
         b = sch.get_sblock(\"B\")\n\
         i, j = sch.get_loops(b)\n\
         v = sch.sample_categorical([1, 2], [0.5, 0.5])\n\
         sch.remove_rv(b)\n\
         sch.remove_rv(i)\n\
         sch.remove_rv(v)\n\
         for f in [lambda: sch.get(b), lambda: sch.get(i), lambda: sch.get(v), lambda: sch.get_sref(b), lambda: sch.split(i, [2, 32]), lambda: sch.remove_rv(b), lambda: sch.remove_rv(3)]:\n\
         \x20   try:\n\
         \x20       print(f())\n\
         \x20   except Exception as e:\n\
         \x20       print(type(e).__name__, str(e).splitlines()[0][:34])\n\
         print(\"remove_rv\" in str(sch.trace))\n\
         c = sch.copy()\n\
         try:\n\
         \x20   c.get(b)\n\
         except IndexError as e:\n\
         \x20   print(\"IndexError\", e)\n\
         print(c.get(j).loop_var)\n");
    assert_eq!(
        out,
        "IndexError Cannot find corresponding SBlockRV\n\
         IndexError Cannot find corresponding LoopRV: \n\
         IndexError Cannot find corresponding ExprRV: \n\
         IndexError Cannot find corresponding SBlockRV\n\
         IndexError Cannot find corresponding LoopRV: \n\
         IndexError Cannot find the object in the symb\n\
         TypeError In \"Schedule.remove_rv\", \"rand_var\n\
         False\n\
         IndexError Cannot find corresponding SBlockRV: s_tir.SBlockRV\n\
         j\n"
    );
}

#[test]
fn schedule_debug_masks_are_their_flag_values() {
    let out = ok("from tvm.s_tir.schedule.state import ScheduleDebugMask\n\
         m = tvm.s_tir.schedule.state.ScheduleDebugMask.VERIFY_SREF_TREE\n\
         print(int(m), int(ScheduleDebugMask.VERIFY_CACHED_FLAGS), int(m | ScheduleDebugMask.VERIFY_CACHED_FLAGS))\n\
         sch = tvm.s_tir.Schedule(scale, debug_mask=m)\n\
         print(sch.get(sch.get_sblock(\"B\")).name_hint)\n");
    assert_eq!(out, "1 2 3\nB\n");
    let r = run("tvm.s_tir.schedule.state.ScheduleDebugMask.VERIFY_ALL\n");
    let e = r.error.expect("no such flag");
    assert_eq!(e.kind, "AttributeError");
}
