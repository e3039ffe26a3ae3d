//! The MLC course's cells (`tests/data/scripts/*.py`) run in Tessel and print
//! what Apache TVM 0.27 + NumPy print (`<name>.out`, written by
//! `tools/tvm_oracle/script_outputs.py`): IR printouts are compared
//! structurally (TVM prints the 0.27 dialect, Tessel the script's own),
//! traces and other lines as text, numbers within a relative 1e-5, timings
//! and sampled decisions masked where a script's header says so.

use crate::support::*;

fn check(name: &str) {
    let path = data_dir("scripts").join(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let expected = std::fs::read_to_string(path.with_extension("out")).unwrap();
    let run = run_file(&path);
    let m = masks(&src);
    let (e, g) = (apply_masks(&expected, &m), apply_masks(&run.output, &m));
    if let Err(why) = compare_output(&e, &g) {
        panic!(
            "{name}: Tessel's output differs from TVM's: {why}\n\n=== Tessel printed:\n{}",
            run.output
        );
    }
}

#[test]
fn every_course_script_has_a_test() {
    let listed = [
        "nb_tensor_program_abstraction.py",
        "book_ch2_tensorir.py",
        "book_ch4_stochastic_schedule.py",
        "tutorial_tensorir_blitz.py",
        "tvm_api_surface.py",
        "book_ch6_gpu_schedules.py",
        "book_ch6_tensorization.py",
        "nb_te.py",
        "book_te.py",
        "tutorial_te.py",
        "te_lesson.py",
        "te_lesson_port.py",
        "te_api_surface.py",
        "tvm027_schedule_primitives.py",
        "tvm027_schedule_partition_caches.py",
        // Graph-layer scripts: tested in script_relax.rs.
        "relax_mlp_digits.py",
        "relax_book_ch7_mutators.py",
        "relax_book_ch7_ast.py",
        "relax_book_ch3_bare_function.py",
        "relax_book_ch3_end_to_end.py",
        "relax_book_ch5_emit_te.py",
        "relax_book_ch7_lowering.py",
    ];
    for p in scripts_in("scripts") {
        let n = p.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            listed.contains(&n.as_str()),
            "{n} has no test in script_course.rs"
        );
    }
}

#[test]
fn nb_tensor_program_abstraction() {
    check("nb_tensor_program_abstraction.py");
}

#[test]
fn book_ch2_tensorir() {
    check("book_ch2_tensorir.py");
}

#[test]
fn book_ch4_stochastic_schedule() {
    check("book_ch4_stochastic_schedule.py");
}

#[test]
fn tutorial_tensorir_blitz() {
    check("tutorial_tensorir_blitz.py");
}

#[test]
fn tvm_api_surface() {
    check("tvm_api_surface.py");
}

#[test]
fn tvm027_schedule_primitives() {
    check("tvm027_schedule_primitives.py");
}

#[test]
fn tvm027_schedule_partition_caches() {
    check("tvm027_schedule_partition_caches.py");
}

#[test]
fn book_ch6_gpu_schedules() {
    check("book_ch6_gpu_schedules.py");
}

#[test]
fn book_ch6_tensorization() {
    check("book_ch6_tensorization.py");
}

/// The book's tensorize cell crashes TVM 0.27, so it has no oracle; Tessel
/// must still run it and produce the `call_extern`.
#[test]
fn book_ch6_tensorize_runs() {
    let path = data_dir("scripts").join("book_ch6_tensorization.py");
    let src = std::fs::read_to_string(&path).unwrap()
        + "\n# %%\nsch.tensorize(block_mm, \"tmm16\")\nsch.mod.show()\n";
    let run = run_source(&src, "book_ch6_tensorization.py", limits());
    assert!(run.error.is_none(), "{}", run.output);
    assert!(
        run.output
            .contains("T.call_extern(\"int32\", \"tmm16\", T.tvm_access_ptr("),
        "{}",
        run.output
    );
}

#[test]
fn nb_te() {
    check("nb_te.py");
}

#[test]
fn book_te() {
    check("book_te.py");
}

#[test]
fn tutorial_te() {
    check("tutorial_te.py");
}

/// A script TVM 0.27 stops in (at an API it removed) while Tessel runs on:
/// up to the statement TVM's traceback names, Tessel must print what TVM
/// printed; the whole script must then run in Tessel.
fn check_until_tvm_stops(name: &str) {
    let path = data_dir("scripts").join(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let expected = std::fs::read_to_string(path.with_extension("out")).unwrap();
    let (printed, traceback) = expected
        .split_once("Traceback (most recent call last):")
        .expect("TVM's output ends with a traceback");
    let line: usize = traceback
        .split(&format!("File \"{name}\", line "))
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .and_then(|n| n.parse().ok())
        .expect("the traceback names a line of the script");
    // The script must not have moved since TVM ran it: the line TVM
    // quotes is the line it names.
    let quoted = traceback.lines().nth(2).unwrap_or_default().trim();
    assert_eq!(
        src.lines().nth(line - 1).map(str::trim),
        Some(quoted),
        "{name}: line {line} is not the statement TVM's traceback quotes; rerun the oracle"
    );
    let head: String = src
        .lines()
        .take(line - 1)
        .map(|l| format!("{l}\n"))
        .collect();
    let run = run_source(&head, name, limits());
    assert!(run.error.is_none(), "{}", run.output);
    if let Err(why) = compare_output(printed, &run.output) {
        panic!(
            "{name}: Tessel's output differs from TVM's: {why}\n\n=== Tessel printed:\n{}",
            run.output
        );
    }
    let full = run_file(&path);
    assert!(
        full.error.is_none(),
        "{name} stops in Tessel:\n{}",
        full.output
    );
}

/// TVM 0.27 has no `te.create_schedule`; Tessel translates it (the rest of
/// the lesson is `te_schedule.rs`'s golden).
#[test]
fn te_lesson() {
    check_until_tvm_stops("te_lesson.py");
}

#[test]
fn te_lesson_port() {
    check("te_lesson_port.py");
}

#[test]
fn te_api_surface() {
    check("te_api_surface.py");
}

#[test]
fn target_tags_build_for_their_vendors_kind() {
    // The book's ch. 6 target is a tag: `nvidia/…` builds for CUDA (here:
    // the GPU path), Apple GPUs for Metal, boards for the CPU.
    let r = run_source(
        r#"
import numpy as np
import tvm
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in T.thread_binding(8, thread="threadIdx.x"):
        with T.block("A"):
            vi = T.axis.remap("S", [i])
            A[vi] = A[vi] + T.float32(1)

for t in ["nvidia/tesla-p100", "nvidia/geforce-rtx-3070", "apple/m1-gpu", "raspberry-pi/4b-aarch64"]:
    print(t, tvm.target.Target(t).kind)
a = tvm.nd.array(np.zeros(8, dtype="float32"))
tvm.build(f, target="nvidia/tesla-p100")(a)
print(a.numpy()[:2])
try:
    tvm.build(f, target="nowhere/board")
except ValueError as e:
    print(e)
"#,
        "<cell>",
        limits(),
    );
    assert!(r.error.is_none(), "{}", r.output);
    assert_eq!(
        r.output,
        "nvidia/tesla-p100 cuda\nnvidia/geforce-rtx-3070 cuda\napple/m1-gpu metal\n\
         raspberry-pi/4b-aarch64 llvm\n[1. 1.]\nTarget kind \"nowhere/board\" is not defined\n"
    );
}
