//! Python mode: notebook cells run by the interpreter, the schedule found
//! by typed inspection of the globals.

use tessel_script::{Inspected, Interpreter, Limits};
use tessel_session::{is_python_mode, run_script, Mime, Mode, RichSpan, ScriptEnv};

use super::at;

const ABSTRACTION: &str =
    include_str!("../../../compiler-core/tests/data/scripts/nb_tensor_program_abstraction.py");
const BOOK_CH2: &str =
    include_str!("../../../compiler-core/tests/data/scripts/book_ch2_tensorir.py");

#[test]
fn notebook_script_steps_and_output() {
    assert!(is_python_mode(ABSTRACTION));
    let out = run_script(ABSTRACTION, &ScriptEnv::default());
    assert_eq!(out.mode, Mode::Python);
    assert!(out.errors.is_empty(), "{}", out.console);
    assert!(out.console.contains("T.parallel"), "{}", out.console);
    assert!(
        out.module_snapshots.len() >= 4,
        "{:?}",
        out.module_snapshots
            .iter()
            .map(|s| &s.label)
            .collect::<Vec<_>>()
    );
    assert!(out.cells.len() > 1);
    let joined: String = out.cells.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(joined, out.console);
    assert!(out.trace.is_some());
}

/// The book's chapter 2 (mm_relu, then a vector add) ends with its own
/// bug (an undefined function): the error carries its span, and the last
/// schedule `sch` made before it is still found and stepped through.
#[test]
fn book_mm_relu_schedule_and_the_error_span() {
    let out = run_script(BOOK_CH2, &ScriptEnv::default());
    assert_eq!(out.errors.len(), 1, "{}", out.console);
    let e = &out.errors[0];
    assert!(e.message.starts_with("NameError"), "{}", e.message);
    assert_eq!(at(BOOK_CH2, e), "numpy_mm_relu_v2");
    assert_eq!(out.func.as_deref(), Some("add"));
    let labels: Vec<&str> = out
        .module_snapshots
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(labels[0], "original");
    assert!(labels.len() >= 2, "{labels:?}");
    // The first snapshot is the module the schedule was created on.
    assert!(out.module_snapshots[0].module.get_prim("add").is_some());
}

#[test]
fn inspection_gives_the_schedule_and_its_original() {
    let mut it = Interpreter::new(Limits::default());
    let cells = tessel_session::run_python(
        ABSTRACTION,
        &ScriptEnv::default(),
        "nb.py",
        tessel_session::CellMode::Notebook,
        None,
    );
    assert!(cells.errors.is_empty());
    let globals = cells.interpreter.inspect_globals();
    let Some((
        _,
        Inspected::Schedule {
            schedule, original, ..
        },
    )) = globals.iter().find(|(n, _)| n == "sch")
    else {
        panic!(
            "no schedule `sch`: {:?}",
            globals.iter().map(|g| &g.0).collect::<Vec<_>>()
        );
    };
    assert!(!schedule.trace().instructions.is_empty());
    assert_ne!(original.functions.len(), 0);
    assert!(globals
        .iter()
        .any(|(n, v)| n == "MyModule" && matches!(v, Inspected::Module { .. })));
    // Plain values are not inspected.
    it.run_cell("x = 1\n", "<cell>").unwrap();
    assert!(it.inspect_globals().is_empty());
}

#[test]
fn without_a_schedule_the_last_module_is_shown() {
    let src = "import tvm\nfrom tvm.script import tir as T\n\n\
@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        with T.block(\"B\"):\n            vi = T.axis.spatial(4, i)\n            B[vi] = A[vi] * 2.0\n\nprint(1)\n";
    let out = run_script(src, &ScriptEnv::default());
    assert_eq!(out.mode, Mode::Python);
    assert!(out.errors.is_empty(), "{}", out.console);
    assert_eq!(out.console, "1\n");
    assert_eq!(out.module_snapshots.len(), 1);
    assert!(out.module_snapshots[0].module.get_prim("main").is_some());
    assert!(out.trace.is_none());
}

#[test]
fn python_error_has_a_span() {
    let src = "import tvm\nx = 1\nprint(y)\n";
    let out = run_script(src, &ScriptEnv::default());
    assert_eq!(out.errors.len(), 1, "{}", out.console);
    let e = &out.errors[0];
    assert_eq!(at(src, e), "y");
    assert!(e.message.contains("NameError"));
    assert!(out.console.contains("Traceback"), "{}", out.console);
}

#[test]
fn tvmscript_with_an_error_stays_in_script_mode() {
    let src = "from tvm.script import tir as T\n@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        A[i] = T.nope(1)\n";
    assert!(!is_python_mode(src));
    assert!(is_python_mode("import tvm\nprint(1)\n"));
}

/// A notebook whose middle cell raises still runs its later cells (as
/// Jupyter does): the error is a diagnostic at its line, the console has
/// the traceback under that cell, and the later cells' output follows.
#[test]
fn a_failing_cell_does_not_stop_the_notebook() {
    let src = "# %%\nx = 2\n# %%\nprint(undefined_name)\n# %%\nprint('after', x)\n";
    let out = tessel_session::run_script(src, &ScriptEnv::default());
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert!(
        out.errors[0].message.starts_with("NameError"),
        "{:?}",
        out.errors
    );
    assert_eq!(
        &src[out.errors[0].span.start as usize..out.errors[0].span.end as usize],
        "undefined_name"
    );
    assert_eq!(out.cells.len(), 3);
    assert!(out.cells[1].text.contains("Traceback"), "{:?}", out.cells);
    assert_eq!(out.cells[2].text, "after 2\n");
    assert!(out.console.ends_with("after 2\n"), "{}", out.console);
}

/// Rich display output keeps its kind as spans of the console text, per
/// cell and for the whole notebook (offsets past the earlier cells).
#[test]
fn rich_display_output_is_marked_in_the_console() {
    let src = "from IPython.display import HTML, Code\nprint('first')\n\
               # %%\nprint('x')\nHTML('<b>b</b>')\n\
               # %%\nCode('y = 1', language='python')\n";
    let out = run_script(src, &ScriptEnv::default());
    assert!(out.errors.is_empty(), "{}", out.console);
    assert_eq!(out.console, "first\nx\n<b>b</b>\ny = 1\n");
    let spans: Vec<(&str, Mime)> = out
        .rich
        .iter()
        .map(|s| (&out.console[s.start..s.end], s.mime.clone()))
        .collect();
    assert_eq!(
        spans,
        vec![
            ("<b>b</b>\n", Mime::Html),
            (
                "y = 1\n",
                Mime::Code {
                    language: Some("python".into())
                }
            ),
        ]
    );
    // Within its cell, the HTML comes after the cell's own print.
    assert_eq!(out.cells[1].text, "x\n<b>b</b>\n");
    assert_eq!(
        out.cells[1].rich,
        vec![RichSpan {
            start: 2,
            end: 11,
            mime: Mime::Html
        }]
    );
    assert!(out.cells[0].rich.is_empty());
}

/// A TE schedule (older TVM's `te.create_schedule`) shows as the TensorIR
/// schedule it was translated into: its steps and its trace.
#[test]
fn a_te_schedule_steps_through_its_tensorir_translation() {
    let src = "# %%
import tvm
from tvm import te
A = te.placeholder((16, 16), name=\"A\")
B = te.compute((16, 16), lambda i, j: A[i, j] * 2.0, name=\"B\")
s = te.create_schedule(B.op)
io, ii = s[B].split(B.op.axis[0], factor=4)
s[B].reorder(ii, io)
s[B].vectorize(B.op.axis[1])
";
    let out = run_script(src, &ScriptEnv::default());
    assert!(out.errors.is_empty(), "{}", out.console);
    let trace = out.trace.as_ref().expect("a trace");
    let names: Vec<&str> = trace.instructions.iter().map(|i| i.name.as_str()).collect();
    for k in ["split", "reorder", "vectorize"] {
        assert!(names.contains(&k), "{names:?}");
    }
    assert!(
        out.module_snapshots.len() >= 4,
        "{}",
        out.module_snapshots.len()
    );
    assert_eq!(out.module_snapshots[0].label, "original");
}
