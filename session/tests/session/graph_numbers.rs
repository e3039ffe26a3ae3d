//! Numbers checks of graph-level functions: a BlockBuilder's `main` and a
//! hand-written `R.function` that compute the same tensors both pass,
//! whatever route built them; a graph that computes something else fails,
//! naming the first differing element.

use std::rc::Rc;

use compiler_core::target::{NoClock, ReferenceBackend};
use tessel_session::exercise::{check_answer, Check, CheckEnv, CheckKind, Exercise, Status};
use tessel_session::ScriptEnv;

/// `relu(A @ B)` built with `bb.emit_te`.
const EMIT_TE: &str = r#"
from tvm import relax, te

def te_matmul(A, B):
    k = te.reduce_axis((0, 16), name="k")
    return te.compute((8, 4), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")

def te_relu(A):
    return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")

A = relax.Var("A", relax.TensorStructInfo((8, 16), "float32"))
B = relax.Var("B", relax.TensorStructInfo((16, 4), "float32"))
bb = relax.BlockBuilder()
with bb.function("main"):
    with bb.dataflow():
        C = bb.emit_te(te_matmul, A, B)
        D = bb.emit_te(te_relu, C)
        R = bb.emit_output(D)
    bb.emit_func_output(R, params=[A, B])
MyModule = bb.get()
"#;

/// The same computation as a TVMScript module with `R.call_tir`.
const CALL_TIR: &str = r#"
import tvm
from tvm.script import relax as R, tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer((8, 16), "float32"), B: T.Buffer((16, 4), "float32"),
                C: T.Buffer((8, 4), "float32")):
        Y = T.alloc_buffer((8, 4), "float32")
        for i, j, k in T.grid(8, 4, 16):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(8, 4):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))

    @R.function
    def main(A: R.Tensor((8, 16), "float32"), B: R.Tensor((16, 4), "float32")):
        with R.dataflow():
            out = R.call_tir(MyModule.mm_relu, (A, B), R.Tensor((8, 4), dtype="float32"))
            R.output(out)
        return out
"#;

fn exercise() -> Exercise {
    Exercise {
        id: "graph".into(),
        title: "Graph".into(),
        statement: String::new(),
        starting_code: String::new(),
        hints: Vec::new(),
        solution: EMIT_TE.into(),
        alternatives: Vec::new(),
        function: "main".into(),
        target: "llvm".into(),
        sizes: Vec::new(),
        checks: vec![Check {
            kind: CheckKind::Numbers {
                reference: None,
                tolerance: None,
            },
            advice: None,
        }],
    }
}

fn env() -> CheckEnv {
    CheckEnv {
        script: ScriptEnv {
            host: Rc::new(NoClock),
            backend: Rc::new(ReferenceBackend::default()),
            limits: tessel_script::Limits::default(),
            take_notes: None,
        },
        no_gpu: Some("no GPU here".into()),
    }
}

#[test]
fn a_graph_built_another_way_passes() {
    let ex = exercise();
    let v = check_answer(&ex, EMIT_TE, &env());
    assert!(v.passed(), "{}", v.render());
    let v = check_answer(&ex, CALL_TIR, &env());
    assert!(v.passed(), "{}", v.render());
    let numbers = &v.results[1];
    assert!(
        numbers
            .message
            .contains("`main` computes what the reference computes"),
        "{}",
        numbers.message
    );
}

#[test]
fn a_graph_that_computes_something_else_names_the_element() {
    let ex = exercise();
    // Without the ReLU, negative sums stay negative.
    let no_relu = CALL_TIR.replace("T.max(Y[vi, vj], T.float32(0))", "Y[vi, vj]");
    assert_ne!(no_relu, CALL_TIR);
    let v = check_answer(&ex, &no_relu, &env());
    assert!(!v.passed(), "{}", v.render());
    let numbers = &v.results[1];
    assert_eq!(numbers.status, Status::Failed);
    assert!(
        numbers
            .message
            .contains("differs from the reference: at index ["),
        "{}",
        numbers.message
    );
}
