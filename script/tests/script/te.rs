//! Tensor expressions in scripts: bad input gives Python-like errors that
//! point at the script's line (never a panic), and what TE builds computes
//! what NumPy computes.

use crate::support::*;

fn run(src: &str) -> Run {
    run_source(src, "<cell>", limits())
}

fn err_line(r: &Run) -> String {
    r.error
        .as_ref()
        .map(|e| format!("{}: {}", e.kind, e.message))
        .unwrap_or_default()
}

const PRELUDE: &str = "import tvm\nfrom tvm import te, topi\nimport numpy as np\n";

#[test]
fn lambda_with_too_many_parameters_is_a_type_error_at_its_line() {
    let src = format!(
        "{PRELUDE}A = te.placeholder((4,), name=\"A\")\n\nB = te.compute((4,), lambda i, j: A[i] + j)\n"
    );
    let r = run(&src);
    assert_eq!(
        err_line(&r),
        "TypeError: <lambda>() missing 1 required positional argument: 'j'"
    );
    assert!(r.output.contains("line 6, in <module>"), "{}", r.output);
}

#[test]
fn wrong_number_of_indices_is_an_error_not_a_panic() {
    let src = format!(
        "{PRELUDE}A = te.placeholder((4, 4), name=\"A\")\nB = te.compute((4,), lambda i: A[i, i, i])\n"
    );
    let r = run(&src);
    let e = err_line(&r);
    assert!(e.contains("Need to provide 2 index"), "{e}");
    assert!(r.output.contains("line 5"), "{}", r.output);
}

#[test]
fn reduction_inside_arithmetic_is_tvms_error() {
    let src = format!(
        "{PRELUDE}A = te.placeholder((4, 4), name=\"A\")\nk = te.reduce_axis((0, 4), name=\"k\")\n\
         B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k) * 2)\n"
    );
    let r = run(&src);
    assert!(
        err_line(&r).contains("Reductions are only allowed at the top level of compute"),
        "{}",
        err_line(&r)
    );
}

#[test]
fn huge_shapes_fail_cleanly_when_allocated() {
    // Declaring a huge computation is fine (nothing is allocated) ...
    let src = format!(
        "{PRELUDE}n = 1 << 20\nA = te.placeholder((n, n), name=\"A\")\n\
         B = te.compute((n, n), lambda i, j: A[i, j] * 2.0, name=\"B\")\n\
         f = te.create_prim_func([A, B])\nprint(B.shape)\n\
         lib = tvm.build(tvm.IRModule({{\"main\": f}}), target=\"llvm\")\n\
         a = tvm.runtime.empty((n, n), \"float32\")\n"
    );
    let r = run(&src);
    assert!(r.output.contains("(1048576, 1048576)"), "{}", r.output);
    // ... allocating 4 TiB is a MemoryError at the allocation's line.
    assert!(err_line(&r).starts_with("MemoryError"), "{}", err_line(&r));
    assert!(r.output.contains("line 10, in <module>"), "{}", r.output);
}

#[test]
fn negative_and_non_integer_shapes_are_errors() {
    let r = run(&format!("{PRELUDE}A = te.placeholder((-3,), name=\"A\")\n"));
    assert!(
        err_line(&r).contains("negative dimension"),
        "{}",
        err_line(&r)
    );
    let r = run(&format!(
        "{PRELUDE}A = te.placeholder((2.5,), name=\"A\")\n"
    ));
    assert!(err_line(&r).starts_with("TypeError"), "{}", err_line(&r));
    let r = run(&format!(
        "{PRELUDE}A = te.placeholder((4,), name=\"A\")\nx = A + \"s\"\n"
    ));
    assert!(err_line(&r).starts_with("TypeError"), "{}", err_line(&r));
}

/// Every topi operator the course needs, built, run and compared with NumPy.
#[test]
fn topi_operators_compute_what_numpy_computes() {
    let src = format!(
        "{PRELUDE}
def run(ins, out, arrays):
    f = te.create_prim_func(ins + [out])
    lib = tvm.build(tvm.IRModule({{'main': f}}), target='llvm')
    res = tvm.runtime.tensor(np.zeros([int(d) for d in out.shape], dtype=out.dtype))
    lib(*[tvm.runtime.tensor(a) for a in arrays], res)
    return res.numpy()

np.random.seed(0)
a = np.random.uniform(-1, 1, (3, 4)).astype('float32')
b = np.random.uniform(-1, 1, (4,)).astype('float32')
w = np.random.uniform(-1, 1, (5, 4)).astype('float32')
A = te.placeholder((3, 4), name='A')
B = te.placeholder((4,), name='B')
W = te.placeholder((5, 4), name='W')
checks = [
    (run([A, B], topi.add(A, B), [a, b]), a + b),
    (run([A, B], topi.subtract(A, B), [a, b]), a - b),
    (run([A, B], topi.multiply(A, B), [a, b]), a * b),
    (run([A, B], topi.divide(A, B), [a, b]), a / b),
    (run([A, B], A + B, [a, b]), a + b),
    (run([A], topi.nn.relu(A), [a]), np.maximum(a, 0)),
    (run([A, W], topi.nn.dense(A, W), [a, w]), a @ w.T),
    (run([A, W], topi.nn.matmul(A, W, transpose_b=True), [a, w]), a @ w.T),
    (run([A, W], topi.matmul(A, W, False, True), [a, w]), a @ w.T),
    (run([A], topi.transpose(A), [a]), a.T),
    (run([A], topi.reshape(A, (2, 6)), [a]), a.reshape(2, 6)),
    (run([A], topi.sum(A, axis=1), [a]), a.sum(axis=1)),
    (run([A], topi.max(A, axis=0), [a]), a.max(axis=0)),
    (run([A], topi.nn.softmax(A), [a]), np.exp(a) / np.exp(a).sum(axis=1, keepdims=True)),
]
for got, want in checks:
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
x = np.random.uniform(-1, 1, (1, 2, 5, 5)).astype('float32')
k = np.random.uniform(-1, 1, (3, 2, 3, 3)).astype('float32')
X = te.placeholder((1, 2, 5, 5), name='X')
K = te.placeholder((3, 2, 3, 3), name='K')
got = run([X, K], topi.nn.conv2d_nchw(X, K, 1, 1, 1), [x, k])
xp = np.zeros((1, 2, 7, 7), dtype='float32')
xp[:, :, 1:6, 1:6] = x
want = np.zeros((1, 3, 5, 5), dtype='float32')
for co in range(3):
    for h in range(5):
        for ww in range(5):
            want[0, co, h, ww] = (xp[0, :, h:h + 3, ww:ww + 3] * k[co]).sum()
np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
print(len(checks) + 1, 'operators ok')
"
    );
    let r = run(&src);
    assert!(r.error.is_none(), "{}", r.output);
    assert!(r.output.contains("15 operators ok"), "{}", r.output);
}

/// Multi-output compute, `lambda *i`, `if_then_else`, comparisons, `where=`.
#[test]
fn expression_forms_compute_what_numpy_computes() {
    let src = format!(
        "{PRELUDE}
A = te.placeholder((6,), name='A')
B, C = te.compute((6,), lambda i: (A[i] + 1.0, A[i] * 2.0), name='BC')
D = te.compute(A.shape, lambda *i: te.if_then_else(tvm.tir.all(i[0] >= 1, i[0] < 5), A(*i), -A(*i)), name='D')
k = te.reduce_axis((0, 6), name='k')
E = te.compute((1,), lambda _: te.max(A[k], axis=k, where=k % 2 == 0), name='E')
print(B.op.name, B.name, C.name, B.op.num_outputs, E.op.reduce_axis[0].var)
f = te.create_prim_func([A, B, C, D, E])
lib = tvm.build(tvm.IRModule({{'main': f}}), target='llvm')
a = np.arange(6, dtype='float32') - 2.5
outs = [tvm.runtime.tensor(np.zeros(s, dtype='float32')) for s in (6, 6, 6, 1)]
lib(tvm.runtime.tensor(a), *outs)
idx = np.arange(6)
np.testing.assert_allclose(outs[0].numpy(), a + 1)
np.testing.assert_allclose(outs[1].numpy(), a * 2)
np.testing.assert_allclose(outs[2].numpy(), np.where((idx >= 1) & (idx < 5), a, -a))
# TVM 0.27's create_prim_func drops `where=` (TVM itself prints [2.5] here).
np.testing.assert_allclose(outs[3].numpy(), [a.max()])
print('forms ok')
"
    );
    let r = run(&src);
    assert!(r.error.is_none(), "{}", r.output);
    assert!(r.output.contains("BC BC.v0 BC.v1 2 k"), "{}", r.output);
    assert!(r.output.contains("forms ok"), "{}", r.output);
}

/// TVM 0.27's explicit let spelling in TVMScript: `x: T.let[T.int32] = v`
/// and `x: T.let = v` (typed by `v`), next to the classic `x: T.int32 = v`.
#[test]
fn tvmscript_let_spellings_parse_and_run() {
    let src = "import tvm
import numpy as np
from tvm.script import tirx as T

@T.prim_func
def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):
    for i in range(4):
        with T.sblock(\"B\"):
            vi = T.axis.spatial(4, i)
            x: T.let[T.int32] = vi * 2
            y: T.let = A[vi] + T.Cast(\"float32\", x)
            z: T.float32 = y * T.float32(2)
            B[vi] = z

print(f.script())
lib = tvm.build(f, target='llvm')
a = np.arange(4, dtype='float32')
b = tvm.runtime.tensor(np.zeros(4, dtype='float32'))
lib(tvm.runtime.tensor(a), b)
print(b.numpy())
";
    let r = run(src);
    assert!(r.error.is_none(), "{}", r.output);
    // (a[i] + 2 i) * 2
    assert!(r.output.contains("[ 0.  6. 12. 18.]"), "{}", r.output);
    assert!(r.output.contains("x: T.int32 = vi * 2"), "{}", r.output);
    assert!(r.output.contains("y: T.float32 = A[vi]"), "{}", r.output);
}

#[test]
fn tvmscript_let_with_a_bad_type_points_at_it() {
    let src = "from tvm.script import tirx as T

@T.prim_func
def f(A: T.Buffer((4,), \"float32\")):
    for i in range(4):
        x: T.let[3] = i
        A[i] = T.float32(0)
";
    let r = run(src);
    assert!(
        err_line(&r).contains("expected a scalar type like `T.let[T.int32]`"),
        "{}",
        r.output
    );
    assert!(r.output.contains("<cell>:6:18"), "{}", r.output);
}
