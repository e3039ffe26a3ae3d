//! Parallel tasks launched by the host (`ParallelLaunch::Host`): the kernel
//! calls `tessel.parallel_for`, the runtimes run the exported task over
//! sub-ranges in reverse order — what Web Workers will do — and the results
//! still match the interpreter.

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
