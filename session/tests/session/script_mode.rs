//! Script mode: a TVMScript module, then `# --- … ---` sections.

use tessel_session::{is_python_mode, run_script, split_script, Mode, ScriptEnv};

use super::{at, MM};

/// The book's mm_relu schedule after a schedule marker.
pub fn book() -> String {
    format!(
        "{MM}\n# --- schedule ---\nsch = tvm.tir.Schedule(MyModule)\n\
         block_Y = sch.get_block(\"Y\", func_name=\"mm_relu\")\n\
         i, j, k = sch.get_loops(block_Y)\n\
         j0, j1 = sch.split(j, factors=[None, 4])\n\
         sch.reorder(j0, k, j1)\n\
         block_C = sch.get_block(\"C\", \"mm_relu\")\n\
         sch.reverse_compute_at(block_C, j0)\n\
         block_Y = sch.get_block(\"Y\", \"mm_relu\")\n\
         sch.decompose_reduction(block_Y, k)\n"
    )
}

#[test]
fn book_schedule_steps() {
    let src = book();
    let out = run_script(&src, &ScriptEnv::default());
    assert_eq!(out.mode, Mode::Script);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let labels: Vec<&str> = out
        .module_snapshots
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(labels.len(), 5, "{labels:?}");
    assert_eq!(labels[0], "original");
    assert!(labels[1].contains("split"));
    assert!(labels[4].contains("decompose_reduction"));
    // `get_block`/`get_loops` fold into the split that follows them.
    assert_eq!(out.module_snapshots[1].instructions, vec![1, 2, 3]);
    let last = &out.module_snapshots[4].module;
    assert!(last.get_prim("mm_relu").is_some());
    let printed = compiler_core::tvmscript::printer::print_module(
        last,
        &compiler_core::tvmscript::printer::PrintOptions::new(out.dialect),
    );
    assert!(printed.contains("Y_init"), "{printed}");
    assert_eq!(out.func.as_deref(), Some("mm_relu"));
    assert_eq!(out.trace.map(|t| t.instructions.len()), Some(8));
}

#[test]
fn error_span_in_schedule() {
    let src = format!("{MM}\n# --- schedule ---\nsch.get_block(\"nope\")\n");
    let out = run_script(&src, &ScriptEnv::default());
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(at(&src, &out.errors[0]), "sch.get_block(\"nope\")");
    // The module before the failing call is still shown.
    assert_eq!(out.module_snapshots.len(), 1);
}

#[test]
fn expected_error_marker() {
    let failing = "sch.get_block(\"nope\")\n";
    let src = format!("{MM}\n# --- schedule ---\n{failing}# --- expect-error: nope ---\n");
    let sections = split_script(&src);
    assert_eq!(sections.expect_error.as_deref(), Some("nope"));
    let out = run_script(&src, &ScriptEnv::default());
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(
        out.console.starts_with("As expected, the schedule fails:"),
        "{}",
        out.console
    );

    let src = format!(
        "{MM}\n# --- schedule ---\nsch.get_block(\"Y\", \"mm_relu\")\n# --- expect-error: nope ---\n"
    );
    let out = run_script(&src, &ScriptEnv::default());
    assert!(
        out.console.contains("but the schedule ran"),
        "{}",
        out.console
    );
}

#[test]
fn sections_keep_offsets() {
    let src = book();
    let sections = split_script(&src);
    assert_eq!(sections.module.len(), src.len());
    let schedule = sections.schedule.expect("a schedule section");
    assert_eq!(schedule.len(), src.len());
    // Notebook lines that are not schedule calls are blanked.
    assert!(!schedule.contains("tvm.tir.Schedule"));
    assert!(schedule.contains("sch.split"));
}

#[test]
fn a_parse_error_has_its_span() {
    let src = "from tvm.script import tir as T\n@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        A[i] = T.nope(1)\n";
    assert!(!is_python_mode(src));
    let out = run_script(src, &ScriptEnv::default());
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert!(
        at(src, &out.errors[0]).contains("nope"),
        "{:?}",
        out.errors[0]
    );
    assert!(out.module_snapshots.is_empty());
}

#[test]
fn a_script_without_functions_says_so() {
    let out = run_script("import tvm\n", &ScriptEnv::default());
    assert_eq!(out.mode, Mode::Script);
    assert!(out.errors[0].message.contains("no TVMScript function"));
}
