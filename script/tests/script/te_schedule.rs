//! Older TVM's TE schedules (`te.create_schedule`, `s[C].split`, …), which
//! TVM 0.27 removed and Tessel translates into TensorIR schedules: the TE
//! lesson's cells run to the end and print what the schedules mean
//! (`te_lesson_schedules.out`, reviewed by hand: no oracle runs them), and
//! misuse is an error at its line, never a panic.

use crate::support::*;

fn golden_run(name: &str) -> Run {
    let path = data_dir("scripts_legacy_te").join(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let run = run_file(&path);
    assert!(run.error.is_none(), "{name} stopped:\n{}", run.output);
    let m = masks(&src);
    tessel_test_support::assert_golden(path.with_extension("out"), &apply_masks(&run.output, &m));
    run
}

#[test]
fn te_lesson_schedules_run_to_the_end() {
    let run = golden_run("te_lesson_schedules.py");
    for line in [
        "✓ Matmul result matches numpy",
        "✓ Fused add+relu correct",
        "matmul_optimized",
    ] {
        assert!(
            run.output.contains(line),
            "{line:?} missing:\n{}",
            run.output
        );
    }
}

fn run(src: &str) -> Run {
    run_source(src, "t.py", limits())
}

/// The last line of the traceback (the exception).
fn err_line(r: &Run) -> String {
    assert!(r.error.is_some(), "no error:\n{}", r.output);
    r.output.lines().last().unwrap_or_default().to_string()
}

const MATMUL: &str = "import tvm
from tvm import te
A = te.placeholder((8, 8), name=\"A\")
B = te.placeholder((8, 8), name=\"B\")
k = te.reduce_axis((0, 8), name=\"k\")
C = te.compute((8, 8), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name=\"C\")
D = te.compute((8, 8), lambda i, j: C[i, j] + 1.0, name=\"D\")
s = te.create_schedule(D.op)
";

/// Runs `MATMUL` then `tail`; the error must be on `tail`'s first line
/// (line 9 of the script) and its message must contain `needle`.
fn misuse(tail: &str, needle: &str) {
    let r = run(&format!("{MATMUL}{tail}"));
    let e = err_line(&r);
    assert!(e.contains(needle), "{e}\n{}", r.output);
    assert!(r.output.contains("line 9, in <module>"), "{}", r.output);
}

#[test]
fn splitting_an_axis_of_another_stage_names_its_stage() {
    misuse(
        "s[D].split(C.op.axis[0], factor=2)\n",
        "axis i belongs to stage C, not to stage D; use s[C]",
    );
}

#[test]
fn an_unknown_axis_is_an_error_listing_the_stage_axes() {
    misuse(
        "s[C].split(te.reduce_axis((0, 4), name=\"r\"), factor=2)\n",
        "r is not an axis of stage C (its axes are i, j, k)",
    );
}

#[test]
fn an_axis_split_already_names_its_parts() {
    misuse(
        "i, j = C.op.axis; io, ii = s[C].split(i, factor=2); s[C].split(i, factor=2)\n",
        "axis i of stage C was split into i_0 and i_1; use those",
    );
}

#[test]
fn compute_at_to_a_loop_the_stage_does_not_have_is_an_error() {
    misuse(
        "s[C].compute_at(s[D], C.op.axis[0])\n",
        "compute_at: axis i belongs to stage C, not to stage D",
    );
}

#[test]
fn illegal_transformations_are_tensorir_errors() {
    // Vectorizing a reduction loop is refused by the TensorIR primitive.
    misuse("s[C].vectorize(C.op.reduce_axis[0])\n", "vectorize");
    // A split needs exactly one of factor= and nparts=.
    misuse(
        "s[C].split(C.op.axis[0])\n",
        "exactly one of factor= and nparts=",
    );
}

#[test]
fn placeholders_and_tensors_are_not_stages() {
    misuse("s[A]\n", "A is a placeholder (an input)");
    misuse(
        "te.create_schedule(C)\n",
        "create_schedule takes operations: pass C.op",
    );
}

#[test]
fn legacy_primitives_without_a_tensorir_twin_name_the_tensorir_way() {
    misuse(
        "s[C].pragma(C.op.axis[0], \"unroll\")\n",
        "sch.annotate(loop",
    );
    misuse("s[C].double_buffer()\n", "double_buffer_scope");
}

#[test]
fn bind_compute_at_inline_and_caches_build_and_compute_the_same() {
    // Every schedule below is built and run on the reference interpreter
    // and compared with the unscheduled function's result.
    let r = run(&format!(
        "{MATMUL}import numpy as np
E = te.compute((8, 8), lambda i, j: D[i, j] * 2.0, name=\"E\")
a = np.random.randn(8, 8).astype(\"float32\")
b = np.random.randn(8, 8).astype(\"float32\")
def run(s, name):
    f = tvm.build(s, [A, B, E], target=\"llvm\", name=name)
    e = tvm.nd.array(np.zeros((8, 8), dtype=\"float32\"))
    f(tvm.nd.array(a), tvm.nd.array(b), e)
    assert f.entry_name == name
    return e.numpy()
want = run(te.create_schedule(E.op), \"plain\")
np.testing.assert_allclose(want, (a @ b + 1.0) * 2.0, rtol=1e-5)

s = te.create_schedule(E.op)
s[D].compute_inline()
xo, xi = s[E].split(E.op.axis[0], nparts=2)
s[C].compute_at(s[E], xo)
print(tvm.lower(s, [A, B, E]))
np.testing.assert_array_equal(run(s, \"at\"), want)

s = te.create_schedule(E.op)
f = s[E].fuse(*E.op.axis)
bx, tx = s[E].split(f, factor=16)
s[E].bind(bx, te.thread_axis(\"blockIdx.x\"))
s[E].bind(tx, te.thread_axis(\"threadIdx.x\"))
print(tvm.lower(s, [A, B, E]))
np.testing.assert_array_equal(run(s, \"bound\"), want)

s = te.create_schedule(E.op)
AA = s.cache_read(A, \"shared\", [C])
CL = s.cache_write(C, \"local\")
i, j = s[C].op.axis
s[CL].compute_at(s[C], j)
print(tvm.lower(s, [A, B, E]))
np.testing.assert_array_equal(run(s, \"cached\"), want)
print(\"ok\")
"
    ));
    assert!(r.error.is_none(), "{}", r.output);
    assert!(r.output.ends_with("ok\n"), "{}", r.output);
}

#[test]
fn a_list_of_ops_schedules_several_outputs_and_leaf_iter_vars_follow_the_loops() {
    let r = run(&format!(
        "{MATMUL}import numpy as np
s = te.create_schedule([C.op, D.op])
xo, xi = s[D].split(D.op.axis[1], nparts=2)
s[D].reorder(xi, D.op.axis[0])
print(s[D].leaf_iter_vars)
print(s[C], s[D].op.name)
m = tvm.lower(s, [A, B, C, D], name=\"two\")
print(m)
f = tvm.build(s, [A, B, C, D], target=\"llvm\")
print(f.entry_name)
a = np.random.randn(8, 8).astype(\"float32\")
b = np.random.randn(8, 8).astype(\"float32\")
c = tvm.nd.array(np.zeros((8, 8), dtype=\"float32\"))
d = tvm.nd.array(np.zeros((8, 8), dtype=\"float32\"))
f(tvm.nd.array(a), tvm.nd.array(b), c, d)
np.testing.assert_allclose(d.numpy(), c.numpy() + 1.0)
print(\"ok\")
"
    ));
    assert!(r.error.is_none(), "{}", r.output);
    let out = &r.output;
    // The leaves in loop order: reorder puts the listed loops (j_1, i) in
    // the places the listed loops held (the first and the last), as TVM.
    let leaves = out.lines().next().unwrap_or_default();
    let at = |name: &str| {
        leaves
            .find(&format!("iter_var({name},"))
            .unwrap_or(usize::MAX)
    };
    assert!(
        at("j_1") < at("j_0") && at("j_0") < at("i") && at("i") < usize::MAX,
        "{leaves}"
    );
    assert!(out.contains("stage(C) D"), "{out}");
    assert!(out.contains("def two("), "{out}");
    assert!(out.contains("for j_1, j_0, i in T.grid(4, 2, 8):"), "{out}");
    assert!(out.contains("default_function"), "{out}");
    assert!(out.ends_with("ok\n"), "{out}");
}
