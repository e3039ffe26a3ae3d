//! Golden WAT for three small kernels: the text the UI shows, kept stable.
//! `BLESS=1 cargo test -p codegen-wasm --test wasm golden` rewrites the files
//! after a reviewed change.

use crate::common;

use common::*;
use tessel_test_support::assert_golden;

fn golden(name: &str, m: &compiler_core::ir::IRModule) {
    let wasm = check(m, true);
    let wat = wasm.wat().unwrap();
    let path = format!("{}/tests/golden/{name}.wat", env!("CARGO_MANIFEST_DIR"));
    assert_golden(path, &wat);
}

#[test]
fn vecadd() {
    golden("vecadd", &seed("seed000_01_vecadd.py"));
}

#[test]
fn vecadd_parallel_vectorized() {
    let m = schedule(
        &seed("seed000_01_vecadd.py"),
        r#"
block_c = sch.get_block("C")
(i,) = sch.get_loops(block_c)
i_0, i_1 = sch.split(i, factors=[None, 8])
sch.parallel(i_0)
sch.vectorize(i_1)
"#,
    );
    golden("vecadd_parallel_vectorized", &m);
}

#[test]
fn mm_relu_small() {
    let src = r#"
@T.prim_func
def mm_relu(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
    Y = T.alloc_buffer((8, 8), "float32")
    for i, j, k in T.grid(8, 8, 8):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
"#;
    golden("mm_relu_small", &parse(src));
}
