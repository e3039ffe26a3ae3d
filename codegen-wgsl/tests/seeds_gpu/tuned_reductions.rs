//! Candidates from the auto-tuner's GPU design spaces for reductions — a
//! row sum and softmax, which get a cross-thread reduction space (the
//! reduction split across a workgroup's threads) — built to WGSL, run on
//! the adapter and checked against the reference interpreter.

use compiler_core::ir::IRModule;
use compiler_core::schedule::TraceDialect;
use tessel_tune::postproc::default_postprocs;
use tessel_tune::search::materialize;
use tessel_tune::space::SpaceGenerator;
use tessel_tune::target::TuneTarget;
use tessel_tune::workload::Workload;

use super::{build_main, check_on_gpu};

fn parse(src: &str) -> IRModule {
    compiler_core::tvmscript::builder::parse_script(src)
        .map(|p| p.to_module())
        .unwrap_or_else(|d| panic!("{}", d.message))
}

/// Rows of 1000 (not a multiple of any sampled thread count).
fn row_sum() -> IRModule {
    parse(
        r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((24, 1000), "float32"), B: T.Buffer((24,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, k in T.grid(24, 1000):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
"#,
    )
}

/// Softmax over rows of 300: a max and a sum reduction.
fn softmax() -> IRModule {
    parse(
        r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16, 300), "float32"), S: T.Buffer((16, 300), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    M = T.alloc_buffer((16,))
    E = T.alloc_buffer((16, 300))
    Z = T.alloc_buffer((16,))
    for i, k in T.grid(16, 300):
        with T.block("maxelem"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                M[vi] = T.float32(-3.4028234663852886e38)
            M[vi] = T.max(M[vi], A[vi, vk])
    for i, k in T.grid(16, 300):
        with T.block("exp"):
            vi, vk = T.axis.remap("SS", [i, k])
            E[vi, vk] = T.exp(A[vi, vk] - M[vi])
    for i, k in T.grid(16, 300):
        with T.block("expsum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                Z[vi] = T.float32(0)
            Z[vi] = Z[vi] + E[vi, vk]
    for i, k in T.grid(16, 300):
        with T.block("norm"):
            vi, vk = T.axis.remap("SS", [i, k])
            S[vi, vk] = E[vi, vk] / Z[vi]
"#,
    )
}

#[test]
fn cross_thread_reduction_candidates_compute_the_right_values() {
    let target = TuneTarget::parse("webgpu").unwrap();
    let postprocs = default_postprocs(&target);
    for (name, module) in [("row_sum", row_sum()), ("softmax", softmax())] {
        let workload = Workload::new(module.clone()).unwrap();
        let spaces = SpaceGenerator::post_order_apply(&target)
            .generate(&workload, &target, 1)
            .unwrap();
        let mut cross_thread = 0;
        for space in &spaces {
            for seed in 0..3 {
                let (_, sch) = match materialize(&workload, &target, &postprocs, space, true, seed)
                {
                    Ok(ok) => ok,
                    // Past the adapter's limits: VerifyGPUCode's to refuse.
                    Err((Some(tessel_tune::postproc::Postproc::VerifyGpuCode), _)) => continue,
                    Err((p, e)) => panic!("{name} seed {seed}: {p:?}: {e}"),
                };
                let trace = sch.trace().python(TraceDialect::default());
                if trace.contains("sample_categorical(candidates=[4, 8") {
                    cross_thread += 1;
                }
                let w = build_main(sch.module());
                check_on_gpu(sch.module(), &w);
            }
        }
        assert!(
            cross_thread > 0,
            "{name}: no cross-thread reduction candidate"
        );
    }
}
