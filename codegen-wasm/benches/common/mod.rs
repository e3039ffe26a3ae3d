//! What the CPU benchmarks share: parsing and scheduling the benchmark
//! programs, the wall clock as the target layer's host, and a tuning run on
//! wasmtime (one thread) with the default search space.

use std::time::Instant;

use codegen_wasm::runtime::WasmtimeRuntime;
use compiler_core::ir::IRModule;
use compiler_core::schedule::{replay::run_python, Schedule};
use compiler_core::target::Host;
use compiler_core::tvmscript::builder::parse_script;

/// TVMScript of an n×n×n float32 matmul (`C = A @ B`, one block).
pub fn matmul_src(n: usize) -> String {
    format!(
        r#"
@T.prim_func
def main(A: T.Buffer(({n}, {n}), "float32"), B: T.Buffer(({n}, {n}), "float32"), C: T.Buffer(({n}, {n}), "float32")):
    T.func_attr({{"global_symbol": "main", "tir.noalias": True}})
    for i, j, k in T.grid({n}, {n}, {n}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#
    )
}

pub fn parse(src: &str) -> IRModule {
    parse_script(src)
        .unwrap_or_else(|e| panic!("parse: {}", e.message))
        .to_module()
}

pub fn schedule(m: &IRModule, text: &str) -> IRModule {
    let mut sch = Schedule::new(m.clone()).expect("schedule");
    run_python(&mut sch, text).unwrap_or_else(|e| panic!("schedule: {}", e.message));
    sch.module().clone()
}

/// The wall clock as the target layer's clock.
pub struct WallClock(pub Instant);

impl Host for WallClock {
    fn now_seconds(&self) -> f64 {
        self.0.elapsed().as_secs_f64()
    }
}

/// Tunes `module` for `trials` trials on wasmtime, one thread: the best
/// program and a one-line summary (tuning time, trials, failures).
pub fn tuned(module: &IRModule, trials: usize) -> Tuned {
    use codegen_wasm::backend::WasmBackend;
    use tessel_tune::{tune, Database, Runner, SearchConfig, SpaceGenerator, TuneSession};
    use tessel_tune::{TuneTarget, Workload};
    let target = TuneTarget::parse("llvm --num-cores=1").expect("target");
    let workload = Workload::new(module.clone()).expect("workload");
    let mut space = SpaceGenerator::post_order_apply(&target);
    let mut session = TuneSession::new(
        workload.clone(),
        target.clone(),
        &mut space,
        Database::new(),
        SearchConfig::new(trials, 64.min(trials)),
    )
    .expect("a tuning session");
    let backend = WasmBackend::with_runtime(std::rc::Rc::new(|| {
        Box::new(WasmtimeRuntime::new().with_threads(1))
    }));
    let clock = WallClock(Instant::now());
    let mut runner = Runner::new(&backend, &clock, &workload, &target).expect("a runner");
    let started = Instant::now();
    let report = tune(&mut session, &mut runner, &mut |_| {}).expect("tuning");
    let summary = format!(
        "tuned: {} trials in {:.1} s ({} failed, {} wrong), best {:.2} GFLOPS as the tuner measured it",
        report.trials,
        started.elapsed().as_secs_f64(),
        report.failed,
        report.wrong.len(),
        workload.flops / report.best_seconds / 1e9
    );
    let trace = report
        .best
        .trace()
        .python(compiler_core::schedule::TraceDialect::default());
    Tuned {
        module: report.best.module().clone(),
        summary,
        trace,
    }
}

/// What [`tuned`] found: the best program, a one-line report of the tuning
/// and the best candidate's trace.
pub struct Tuned {
    pub module: IRModule,
    pub summary: String,
    pub trace: String,
}
