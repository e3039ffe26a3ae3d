//! Parallel tasks launched by the host (`ParallelLaunch::Host`): the kernel
//! calls `tessel.parallel_for`, the runtimes run the exported task over
//! sub-ranges — in reverse order on one thread, or on wasmtime's pool
//! threads over a shared memory — and the results still match the
//! interpreter.

use crate::common;

use codegen_wasm::{build_with, BuildOptions, ParallelLaunch};
use common::*;

#[test]
fn host_launched_tasks_match_the_interpreter() {
    let vecadd = schedule(
        &seed("seed000_01_vecadd.py"),
        r#"
block_c = sch.get_block("C")
(i,) = sch.get_loops(block_c)
i_0, i_1 = sch.split(i, factors=[None, 8])
sch.parallel(i_0)
sch.vectorize(i_1)
"#,
    );
    let wasm = check_host_launch(&vecadd);
    assert_eq!(wasm.tasks.len(), 1);
    assert!(wasm
        .wat()
        .unwrap()
        .contains("(import \"tessel\" \"parallel_for\""));
    check_host_launch(&seed("seed000_05_vecadd_parallel_printed.py"));
    check_host_launch(&seed("seed001_10_bmm_relu_target.py"));
    let m = matmul(64, "float32");
    check_host_launch(&schedule(&m, BLOCKING));
    check_host_launch(&schedule(&m, BLOCKING_VEC));
    let m = matmul(64, "int64");
    check_host_launch(&schedule(&m, BLOCKING));
}

#[test]
fn inline_launch_needs_no_import_and_shared_memory_validates() {
    let m = schedule(&matmul(64, "float32"), BLOCKING);
    let wasm = check(&m, false);
    assert!(!wasm.wat().unwrap().contains("parallel_for"));
    let shared = build_with(
        &m,
        &BuildOptions {
            parallel: ParallelLaunch::Host,
            shared_memory: true,
            ..BuildOptions::default()
        },
    )
    .unwrap();
    let wat = shared.wat().unwrap();
    assert!(wat.contains("(memory (;0;) 1 65536 shared)"), "{wat}");
}

#[test]
fn split_range_covers_the_range() {
    use codegen_wasm::runtime::split_range;
    assert_eq!(split_range(0, 10, 3), vec![(0, 4), (4, 7), (7, 10)]);
    assert_eq!(split_range(5, 7, 4), vec![(5, 6), (6, 7)]);
    assert!(split_range(3, 3, 2).is_empty());
}

#[test]
fn threads_share_the_memory_and_match_the_interpreter() {
    // The notebook's blocking + parallel matmul (In[46]), f32 and int64.
    for dtype in ["float32", "int64"] {
        let m = schedule(&matmul(64, dtype), BLOCKING);
        let (wasm, stats) = check_threaded(&m, 2, 2);
        assert!(wasm.wat().unwrap().contains("shared"));
        assert_eq!(stats.launches, 1, "{stats:?}");
        assert_eq!(stats.chunks, 2);
        assert_eq!(stats.threads, 2, "both threads ran a chunk");
    }
    // More chunks than threads, remainders, and a vectorized task body.
    // (160 / 32 = 5 iterations: five chunks of one on three threads.)
    let m = schedule(&matmul(160, "float32"), BLOCKING_VEC);
    let (_, stats) = check_threaded(&m, 3, 5);
    assert!(stats.launches >= 1, "{stats:?}");
    assert_eq!(stats.chunks, 5 * stats.launches, "{stats:?}");
    assert_eq!(stats.threads, 3, "{stats:?}");
    check_threaded(&seed("seed001_10_bmm_relu_target.py"), 2, 3);
    check_threaded(&seed("seed000_05_vecadd_parallel_printed.py"), 2, 2);
}

#[test]
fn a_trap_in_a_pool_thread_fails_the_run_and_the_next_run_works() {
    use codegen_wasm::runtime::{run_ndarrays, Runtime, WasmtimeRuntime};
    use compiler_core::eval::NDArray;
    use compiler_core::ir::DataType;
    // Integer division by B[i]: a zero in the second half traps only in the
    // chunk a pool thread runs.
    let m = parse(
        r#"
@T.prim_func
def main(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32"), C: T.Buffer((64,), "int32")):
    for i in T.parallel(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = T.truncdiv(A[vi], B[vi])
"#,
    );
    let wasm = build_threaded(&m);
    let mut rt = WasmtimeRuntime::new().with_threads(2);
    rt.load(&wasm).unwrap();
    let i32t = DataType::i32();
    let a = NDArray::from_i64(i32t, &[64], &(0..64).collect::<Vec<_>>()).unwrap();
    let mut b_vals = vec![1i64; 64];
    b_vals[50] = 0;
    let b = NDArray::from_i64(i32t, &[64], &b_vals).unwrap();
    let c = NDArray::zeros(i32t, &[64]).unwrap();
    let mut args = vec![a.clone(), b, c.clone()];
    let e = run_ndarrays(&mut rt, &wasm, "main", &mut args).unwrap_err();
    assert!(
        e.0.contains("divide by zero") || e.0.contains("division"),
        "{e}"
    );
    let ones = NDArray::from_i64(i32t, &[64], &[1; 64]).unwrap();
    let mut args = vec![a.clone(), ones, c];
    run_ndarrays(&mut rt, &wasm, "main", &mut args).unwrap();
    assert_eq!(args[2].to_le_bytes(), a.to_le_bytes());
    assert_eq!(rt.last_launches().threads, 2);
}

#[test]
fn a_buffer_used_only_inside_a_parallel_loop_is_private_to_each_thread() {
    // The write cache is declared at the root block but only used under
    // `yo`: each thread must get its own copy (allocated inside the task).
    let m = schedule(
        &matmul(128, "float32"),
        r#"
block_c = sch.get_block("C")
c_local = sch.cache_write(block_c, 0, "local")
(y, x, k) = sch.get_loops(block_c)
yo, yi = sch.split(y, [None, 8])
xo, xi = sch.split(x, [None, 8])
sch.reorder(yo, xo, k, yi, xi)
sch.reverse_compute_at(c_local, xo)
sch.parallel(yo)
"#,
    );
    let (_, stats) = check_threaded(&m, 2, 4);
    assert_eq!(stats.threads, 2, "{stats:?}");
}

#[test]
fn a_parallel_loop_whose_iterations_write_the_same_element_is_refused() {
    let racy = parse(
        r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((1,), "float32")):
    for i in T.parallel(64):
        with T.block("C"):
            vi = T.axis.reduce(64, i)
            with T.init():
                C[0] = T.float32(0)
            C[0] = C[0] + A[vi]
"#,
    );
    let e = codegen_wasm::build(&racy).unwrap_err();
    assert!(
        e.message.contains("parallel loop i")
            && e.message.contains("same elements of C")
            && e.message.contains("race"),
        "{}",
        e.message
    );
    assert_ne!(e.span, Default::default(), "points at the loop or store");
    // A store guarded by a condition on the loop variable, and one whose
    // index depends on it through a let-bound offset, are fine.
    let guarded = parse(
        r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((65,), "float32")):
    for i in T.parallel(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            if vi == 0:
                C[64] = A[0]
            C[vi] = A[vi] * T.float32(2)
"#,
    );
    check_threaded(&guarded, 2, 2);
}
