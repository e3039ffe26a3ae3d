//! Every CPU seed program and its schedules, built by this backend, gives
//! the reference interpreter's results exactly (random inputs; float32,
//! float64, int32, int64), and every emitted module validates.

use crate::common;

use common::*;

#[test]
fn vector_add_seeds() {
    for name in [
        "seed000_01_vecadd.py",
        "seed000_03_vecadd_split_printed.py",
        "seed000_04_vecadd_reorder_printed.py",
        "seed000_05_vecadd_parallel_printed.py",
        "seed001_01_vecadd_buffer_subscript.py",
        "seed002_01_vecadd_handles.py",
        "seed002_04_split_printed.py",
        "seed002_05_reorder_printed.py",
        "seed001_14_gpu_vecadd.py",
    ] {
        eprintln!("{name}");
        check(&seed(name), true);
    }
}

#[test]
fn vector_add_vectorized_and_parallel() {
    let m = seed("seed000_01_vecadd.py");
    let m = schedule(
        &m,
        r#"
block_c = sch.get_block("C")
(i,) = sch.get_loops(block_c)
i_0, i_1, i_2 = sch.split(i, factors=[None, 4, 4])
sch.parallel(i_0)
sch.vectorize(i_2)
"#,
    );
    let wasm = check(&m, true);
    let wat = wasm.wat().unwrap();
    assert!(
        wat.contains("f32x4.add") || wat.contains("v128.load"),
        "{wat}"
    );
}

#[test]
fn mm_relu_and_its_transforms() {
    let m = seed("seed001_02_mm_relu.py");
    check(&m, true);
    let scheds = [
        // split
        r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 4])
"#,
        // split + reorder
        r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 4])
sch.reorder(j0, k, j1)
"#,
        // + reverse_compute_at
        r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 4])
sch.reorder(j0, k, j1)
block_C = sch.get_block("C", func_name="mm_relu")
sch.reverse_compute_at(block_C, j0)
"#,
        // + decompose_reduction (the book's final form)
        r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 4])
sch.reorder(j0, k, j1)
block_C = sch.get_block("C", func_name="mm_relu")
sch.reverse_compute_at(block_C, j0)
sch.decompose_reduction(block_Y, k)
"#,
        // + vectorize/unroll/parallel
        r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 8])
k0, k1 = sch.split(k, factors=[None, 4])
sch.reorder(j0, k0, k1, j1)
block_C = sch.get_block("C", func_name="mm_relu")
sch.reverse_compute_at(block_C, j0)
sch.parallel(i)
sch.unroll(k1)
sch.vectorize(j1)
ci, cj0, cj1 = sch.get_loops(block_C)
sch.vectorize(cj1)
sch.decompose_reduction(block_Y, k0)
"#,
    ];
    for s in scheds {
        check(&schedule(&m, s), true);
    }
    // TVM's own printing of split + reverse_compute_at + decompose_reduction.
    check(&core_data("printer/sched_split_decompose.tvm.txt"), true);
}

#[test]
fn bmm_relu_target() {
    check(&seed("seed001_10_bmm_relu_target.py"), false);
}

#[test]
fn blocked_matmul_128_all_dtypes() {
    for dtype in ["float32", "float64", "int32", "int64"] {
        eprintln!("{dtype}");
        let m = matmul(128, dtype);
        check(&schedule(&m, BLOCKING), false);
        check(&schedule(&m, BLOCKING_VEC), false);
    }
}

#[test]
fn other_seed_programs() {
    for name in [
        "seed001_05_two_functions.py",
        "seed001_06_myadd_int64.py",
        "seed001_11_mlp_tir_part_dynamic.py",
        "seed001_12_matmul_c_init_literal.py",
        "seed001_13_mixture_linear0_static_tir_part.py",
        "seed001_15_gpu_window_sum.py",
        "seed002_03_te_printed.py",
        "seed002_06_gpu_bind_printed.py",
        "seed004_01_mm_relu.py",
    ] {
        eprintln!("{name}");
        check(&seed(name), true);
    }
}

#[test]
fn scalar_semantics_match_the_interpreter() {
    // Integer floor division/modulo (negative operands), casts, select,
    // if_then_else, min/max, math imports, small integer types.
    let src = r#"
@T.prim_func
def ints(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32"), C: T.Buffer((64,), "int32"), D: T.Buffer((64,), "int8")):
    for i in range(64):
        with T.block("c"):
            vi = T.axis.spatial(64, i)
            C[vi] = A[vi] // T.max(T.abs(B[vi]) % 7, 1) + A[vi] % 5 - T.min(A[vi], B[vi]) * 3 + T.Select(A[vi] > B[vi], 1, 2) + (vi - 32) // 8 + (vi - 32) % 8
            D[vi] = T.Cast("int8", A[vi] * 7)

@T.prim_func
def floats(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), D: T.Buffer((64,), "float64"), E: T.Buffer((64,), "int32")):
    for i in range(64):
        with T.block("c"):
            vi = T.axis.spatial(64, i)
            C[vi] = T.exp(A[vi]) + T.tanh(B[vi]) + T.sigmoid(A[vi]) + T.sqrt(T.fabs(A[vi])) + T.floor(B[vi] * T.float32(3)) + T.max(A[vi], B[vi]) - T.min(A[vi], B[vi]) + T.if_then_else(vi < 10, T.log(T.fabs(A[vi]) + T.float32(1)), T.pow(T.fabs(B[vi]), T.float32(1.5)))
            D[vi] = T.Cast("float64", A[vi]) * T.float64(1.5) + T.erf(T.Cast("float64", B[vi]))
            E[vi] = T.Cast("int32", A[vi] * T.float32(1000)) + T.Cast("int32", vi > 3)
"#;
    check(&parse(src), true);
}

#[test]
fn vectorized_casts_selects_and_int_vectors() {
    let src = r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "int32"), C: T.Buffer((64,), "float32"), D: T.Buffer((64,), "int32")):
    for i in T.vectorized(64):
        with T.block("c"):
            vi = T.axis.spatial(64, i)
            C[vi] = T.Select(A[vi] > T.float32(0), A[vi] * T.Cast("float32", B[vi]), T.sqrt(T.fabs(A[vi]))) + T.Cast("float32", vi)
            D[vi] = T.max(B[vi], vi) * 3 + T.Cast("int32", A[vi] * T.float32(100))
"#;
    let wasm = check(&parse(src), true);
    let notes = wasm.lowered.report().notes.join("\n");
    assert!(
        notes.contains("vectorized as 16 unrolled steps of 4 × float32"),
        "{notes}"
    );
}

#[test]
fn symbolic_shapes_take_size_parameters() {
    let src = r#"
@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 4), "float32")
    B = T.match_buffer(b, (n, 4), "float32")
    for i, j in T.grid(n, 4):
        with T.block("b"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
"#;
    let wasm = check(&parse(src), true);
    let k = wasm.kernel("main").unwrap();
    assert_eq!(k.params.len(), 3, "{:?}", k.params);
}
