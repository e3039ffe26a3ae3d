//! The tuner end to end on the course's workloads, with the reference
//! interpreter as the backend and a deterministic timer (the interpreter's
//! step count): design spaces (golden traces), every sampled program checked
//! numerically, search determinism, the database round trip, a wrong
//! candidate rejected, and bad input refused.

use std::cell::Cell;
use std::rc::Rc;

use compiler_core::eval::NDArray;
use compiler_core::ir::IRModule;
use compiler_core::schedule::{Schedule, TraceDialect};
use compiler_core::target::{
    Backend, BuildError, BuildOptions, Executable, Host, NoClock, ReferenceBackend, Target,
};
use compiler_core::tvmscript::builder::parse_script;
use tessel_test_support::assert_golden;
use tessel_tune::search::{compile_tir, materialize};
use tessel_tune::{
    tune, Database, MeasureResult, Runner, SearchConfig, SpaceGenerator, TuneError, TuneSession,
    TuneTarget, Workload,
};

fn matmul(n: usize) -> IRModule {
    let src = format!(
        r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer(({n}, {n}), "float32"), B: T.Buffer(({n}, {n}), "float32"), C: T.Buffer(({n}, {n}), "float32")):
    T.func_attr({{"global_symbol": "main", "tir.noalias": True}})
    for i, j, k in T.grid({n}, {n}, {n}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0.0
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#
    );
    parse_script(&src)
        .map(|p| p.to_module())
        .unwrap_or_else(|d| panic!("{}", d.message))
}

/// The book's `mm_relu` (ch.2), at size `n`.
fn mm_relu(n: usize) -> IRModule {
    let src = format!(
        r#"
from tvm.script import tir as T
@T.prim_func
def mm_relu(A: T.Buffer(({n}, {n}), "float32"), B: T.Buffer(({n}, {n}), "float32"), C: T.Buffer(({n}, {n}), "float32")):
    T.func_attr({{"global_symbol": "mm_relu", "tir.noalias": True}})
    Y = T.alloc_buffer(({n}, {n}), "float32")
    for i, j, k in T.grid({n}, {n}, {n}):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid({n}, {n}):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
"#
    );
    parse_script(&src)
        .map(|p| p.to_module())
        .unwrap_or_else(|d| panic!("{}", d.message))
}

/// The book's `stochastic_schedule_mm` (§4.4).
fn stochastic_schedule_mm(sch: &mut Schedule) -> Result<(), String> {
    let c = sch
        .get_block("C", Some("main"))
        .map_err(|e| e.to_string())?;
    let loops = sch.get_loops(c).map_err(|e| e.to_string())?;
    let [i, j, k] = loops[..] else {
        return Err("three loops expected".into());
    };
    let f = sch
        .sample_perfect_tile(j, 2, 16, None)
        .map_err(|e| e.to_string())?;
    let factors: Vec<_> = f
        .into_iter()
        .map(compiler_core::schedule::Factor::Sampled)
        .collect();
    let js = sch.split(j, &factors, true).map_err(|e| e.to_string())?;
    sch.reorder(&[i, js[0], k, js[1]])
        .map_err(|e| e.to_string())?;
    sch.decompose_reduction(c, k).map_err(|e| e.to_string())?;
    Ok(())
}

/// The reference interpreter, timed by its step count (1 ns a step):
/// deterministic, and faster programs (fewer loop iterations, stores) win.
struct StepTimed {
    /// Corrupts the output of every module whose hash is odd (a backend bug
    /// the numerical check must catch).
    corrupt_odd: bool,
}

struct StepTimedExe {
    inner: Rc<dyn Executable>,
    corrupt: bool,
}

impl Backend for StepTimed {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        let corrupt = self.corrupt_odd && tessel_tune::workload::structural_hash(module) % 2 == 1;
        Ok(Rc::new(StepTimedExe {
            inner: ReferenceBackend::default().build(module, target, options)?,
            corrupt,
        }))
    }
}

impl Executable for StepTimedExe {
    fn function_names(&self) -> Vec<String> {
        self.inner.function_names()
    }
    fn run(&self, name: &str, args: &mut [NDArray], budget: u64) -> Result<u64, String> {
        let steps = self.inner.run(name, args, budget)?;
        if self.corrupt {
            if let Some(last) = args.last_mut() {
                let v = last.get_f64(&[0, 0]).unwrap_or(0.0);
                last.set_flat_f64(0, v + 1.0).map_err(|e| e.to_string())?;
            }
        }
        Ok(steps)
    }
    fn time(
        &self,
        name: &str,
        args: &mut [NDArray],
        _n: u64,
        repeat: u64,
        _c: &dyn Host,
    ) -> Option<Result<Vec<f64>, String>> {
        Some(
            self.run(name, args, u64::MAX)
                .map(|steps| vec![steps as f64 * 1e-9; repeat.max(1) as usize]),
        )
    }
}

fn cpu() -> TuneTarget {
    TuneTarget::parse("llvm --num-cores=1").unwrap()
}

fn traces_text(spaces: &[compiler_core::schedule::Trace]) -> String {
    let mut out = String::new();
    for (i, t) in spaces.iter().enumerate() {
        out.push_str(&format!(
            "# design space {i}\n{}\n",
            t.python(TraceDialect::default())
        ));
    }
    out
}

/// Samples `per_space` programs of every design space and checks each
/// against the original on the reference interpreter.
fn check_samples(
    module: &IRModule,
    target: &TuneTarget,
    spaces: &[compiler_core::schedule::Trace],
    per_space: u64,
) {
    let workload = Workload::new(module.clone()).unwrap();
    let backend = ReferenceBackend::default();
    let mut runner = Runner::new(&backend, &NoClock, &workload, target).unwrap();
    let postprocs = tessel_tune::postproc::default_postprocs(target);
    for (i, space) in spaces.iter().enumerate() {
        // Samples past the GPU's limits are VerifyGPUCode's to refuse; the
        // first `per_space` valid ones of each space are checked.
        let mut valid = 0;
        for seed in 0..per_space * 20 {
            if valid == per_space {
                break;
            }
            let sch = match materialize(&workload, target, &postprocs, space, true, seed) {
                Ok((_, sch)) => sch,
                Err((Some(tessel_tune::postproc::Postproc::VerifyGpuCode), _)) => continue,
                Err((p, e)) => panic!("space {i} seed {seed}: {p:?}: {e}"),
            };
            valid += 1;
            runner.check(sch.module()).unwrap_or_else(|e| {
                panic!(
                    "space {i} seed {seed}: {e}\n{}",
                    sch.trace().python(TraceDialect::default())
                )
            });
            // The printed trace replays to the same program.
            let mut again = Schedule::new(module.clone()).unwrap();
            again.replay(sch.trace(), false).unwrap();
            assert!(
                compiler_core::analysis::structural_equal::structural_equal(
                    again.module(),
                    sch.module()
                )
                .is_ok(),
                "space {i} seed {seed}: the trace does not replay to the same module"
            );
        }
        assert_eq!(valid, per_space, "space {i}: too few valid samples");
    }
}

#[test]
fn post_order_apply_cpu_matmul_spaces() {
    let module = matmul(64);
    let target = cpu();
    let workload = Workload::new(module.clone()).unwrap();
    let spaces = SpaceGenerator::post_order_apply(&target)
        .generate(&workload, &target, 1)
        .unwrap();
    // No write cache, and the write cache at tile levels 1 and 2.
    assert_eq!(spaces.len(), 3);
    assert_golden("tests/data/cpu_matmul_spaces.py", &traces_text(&spaces));
    check_samples(&module, &target, &spaces, 3);
}

#[test]
fn post_order_apply_cpu_mm_relu_spaces() {
    let module = mm_relu(32);
    let target = cpu();
    let workload = Workload::new(module.clone()).unwrap();
    let spaces = SpaceGenerator::post_order_apply(&target)
        .generate(&workload, &target, 1)
        .unwrap();
    assert_golden("tests/data/cpu_mm_relu_spaces.py", &traces_text(&spaces));
    check_samples(&module, &target, &spaces, 3);
}

#[test]
fn post_order_apply_gpu_matmul_spaces() {
    let module = matmul(32);
    let target = TuneTarget::parse("webgpu").unwrap();
    let workload = Workload::new(module.clone()).unwrap();
    let spaces = SpaceGenerator::post_order_apply(&target)
        .generate(&workload, &target, 1)
        .unwrap();
    // Global reads, and shared-memory read caches.
    assert_eq!(spaces.len(), 2);
    assert_golden("tests/data/gpu_matmul_spaces.py", &traces_text(&spaces));
    check_samples(&module, &target, &spaces, 3);
}

#[test]
fn schedule_fn_space_is_the_functions_trace() {
    let module = matmul(32);
    let target = cpu();
    let workload = Workload::new(module.clone()).unwrap();
    let mut space = SpaceGenerator::ScheduleFn(Box::new(stochastic_schedule_mm));
    let spaces = space.generate(&workload, &target, 3).unwrap();
    assert_golden("tests/data/schedule_fn_space.py", &traces_text(&spaces));
    check_samples(&module, &target, &spaces, 4);
}

fn run_search(
    module: &IRModule,
    seed: u64,
    trials: usize,
    db: Database,
    backend: &StepTimed,
) -> (
    Result<tessel_tune::TuneReport, TuneError>,
    Database,
    Vec<String>,
) {
    let target = cpu();
    let workload = Workload::new(module.clone()).unwrap();
    let mut config = SearchConfig::new(trials, 8);
    config.seed = seed;
    config.population_size = 16;
    config.cost_model.warmup = 8;
    let mut space = SpaceGenerator::post_order_apply(&target);
    let mut session =
        TuneSession::new(workload.clone(), target.clone(), &mut space, db, config).unwrap();
    let mut runner = Runner::new(backend, &NoClock, &workload, &target).unwrap();
    let mut log = Vec::new();
    let report = tune(&mut session, &mut runner, &mut |line| {
        log.push(line.to_string())
    });
    (report, session.into_database(), log)
}

#[test]
fn search_is_deterministic_for_a_seed_and_finds_a_correct_faster_program() {
    let module = matmul(32);
    let backend = StepTimed { corrupt_odd: false };
    let (a, db_a, log) = run_search(&module, 7, 24, Database::new(), &backend);
    let (b, db_b, _) = run_search(&module, 7, 24, Database::new(), &backend);
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(db_a.records_json(), db_b.records_json());
    assert_eq!(a.best.trace(), b.best.trace());
    assert_eq!(a.trials, 24);
    // The tuned program is right and is the fastest measured. (Step counts
    // do not reward tiling; speed-ups are measured on the real backends in
    // `cargo xtask bench`.)
    let workload = Workload::new(module.clone()).unwrap();
    let mut runner = Runner::new(&backend, &NoClock, &workload, &cpu()).unwrap();
    runner.check(a.best.module()).unwrap();
    let fastest = db_a
        .top_k(workload.hash, "llvm --num-cores=1", 1)
        .first()
        .map(|r| r.mean_seconds())
        .unwrap();
    assert_eq!(a.best_seconds, fastest);
    assert_eq!(
        runner.measure(a.best.module()).mean_seconds(),
        Some(fastest)
    );
    assert!(log.iter().any(|l| l.starts_with(" ID | Name |")), "{log:?}");
    assert!(log.iter().any(|l| l == "Total trials: 24"), "{log:?}");
    // Another seed searches differently.
    let (_, db_c, _) = run_search(&module, 8, 24, Database::new(), &backend);
    assert_ne!(db_a.records_json(), db_c.records_json());
}

#[test]
fn database_round_trips_and_a_second_tuning_starts_from_it() {
    let module = matmul(32);
    let backend = StepTimed { corrupt_odd: false };
    let (first, db, _) = run_search(&module, 11, 16, Database::new(), &backend);
    let first = first.unwrap();
    let (w, r) = (db.workloads_json(), db.records_json());
    let back = Database::from_json(&w, &r).unwrap();
    assert_eq!(
        (back.workloads_json(), back.records_json()),
        (w.clone(), r.clone())
    );
    assert_eq!(back.len(), 16);
    // Second tuning: its records add to the first's, never re-measure one of
    // them, and the best can only improve.
    let (second, db2, _) = run_search(&module, 12, 8, back, &backend);
    let second = second.unwrap();
    assert_eq!(db2.len(), 24);
    assert!(second.best_seconds <= first.best_seconds);
    let target = cpu();
    let workload = Workload::new(module.clone()).unwrap();
    let best = compile_tir(&db2, &workload, &target).unwrap();
    assert_eq!(best.trace(), second.best.trace());
    // Malformed files are errors, not panics.
    assert!(matches!(
        Database::from_json("[1]", ""),
        Err(TuneError::Database(_))
    ));
    assert!(matches!(
        Database::from_json(&w, "[0, 5]"),
        Err(TuneError::Database(_))
    ));
}

#[test]
fn a_wrong_candidate_is_discarded_and_never_chosen() {
    let module = matmul(32);
    let backend = StepTimed { corrupt_odd: true };
    let (report, db, log) = run_search(&module, 7, 24, Database::new(), &backend);
    let report = report.unwrap();
    assert!(!report.wrong.is_empty(), "no wrong candidate met: {log:?}");
    assert!(log
        .iter()
        .any(|l| l.contains("candidate discarded, wrong result")));
    // The chosen program is right (checked on an honest backend).
    let workload = Workload::new(module.clone()).unwrap();
    let honest = StepTimed { corrupt_odd: false };
    let mut runner = Runner::new(&honest, &NoClock, &workload, &cpu()).unwrap();
    runner.check(report.best.module()).unwrap();
    assert!(db.len() == 24);
}

#[test]
fn bad_input_is_refused_before_searching() {
    let target = cpu();
    let mut two = matmul(8);
    let other = mm_relu(8);
    for (n, f) in other.prim_funcs() {
        two.insert(n.to_string(), compiler_core::ir::BaseFunc::Prim(f.clone()));
    }
    assert!(matches!(Workload::new(two), Err(TuneError::Workload(m)) if m.contains("2 PrimFuncs")));
    let workload = Workload::new(matmul(8)).unwrap();
    let mut space = SpaceGenerator::post_order_apply(&target);
    let zero = TuneSession::new(
        workload.clone(),
        target.clone(),
        &mut space,
        Database::new(),
        SearchConfig::new(0, 8),
    );
    assert!(matches!(zero, Err(TuneError::Config(_))));
    assert!(matches!(
        TuneTarget::parse("fpga"),
        Err(TuneError::Config(_))
    ));
    // A schedule function that raises: the error names its failure.
    let calls = Cell::new(0);
    let mut raising = SpaceGenerator::ScheduleFn(Box::new(|_: &mut Schedule| {
        calls.set(calls.get() + 1);
        Err("ValueError: no such block".to_string())
    }));
    let r = TuneSession::new(
        workload,
        target,
        &mut raising,
        Database::new(),
        SearchConfig::new(4, 4),
    );
    assert!(matches!(r, Err(TuneError::Space(m)) if m.contains("ValueError")));
    assert_eq!(calls.get(), 1);
}

#[test]
fn measure_result_of_a_trap_is_a_failure() {
    let module = matmul(8);
    let workload = Workload::new(module.clone()).unwrap();
    let backend = ReferenceBackend::default();
    let mut runner = Runner::new(&backend, &NoClock, &workload, &cpu()).unwrap();
    runner.step_budget = 10;
    assert!(
        matches!(runner.measure(&module), MeasureResult::Failed(m) if m.contains("run failed"))
    );
}

/// A clock that advances by `step` seconds each time it is read.
struct TickingClock {
    now: Cell<f64>,
    step: f64,
}

impl Host for TickingClock {
    fn now_seconds(&self) -> f64 {
        let t = self.now.get() + self.step;
        self.now.set(t);
        t
    }
}

#[test]
fn a_candidate_slower_than_the_time_limit_fails_untimed() {
    let module = matmul(8);
    let workload = Workload::new(module.clone()).unwrap();
    let backend = ReferenceBackend::default();
    let clock = TickingClock {
        now: Cell::new(0.0),
        step: 3.0,
    };
    let mut runner = Runner::new(&backend, &clock, &workload, &cpu()).unwrap();
    runner.time_limit_seconds = 2.0;
    match runner.measure(&module) {
        MeasureResult::Failed(m) => assert!(m.contains("exceeded the time limit"), "{m}"),
        other => panic!("measured: {other:?}"),
    }
    // Within the limit, the same candidate is timed.
    runner.time_limit_seconds = 100.0;
    assert!(runner.measure(&module).mean_seconds().is_some());
}

/// `B = A * 2 + 1`: a block no tiling rule takes.
fn elementwise(n: usize) -> IRModule {
    let src = format!(
        r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer(({n}, {n}), "float32"), B: T.Buffer(({n}, {n}), "float32")):
    T.func_attr({{"global_symbol": "main", "tir.noalias": True}})
    for i, j in T.grid({n}, {n}):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)
"#
    );
    parse_script(&src)
        .map(|p| p.to_module())
        .unwrap_or_else(|d| panic!("{}", d.message))
}

#[test]
fn post_order_apply_gpu_elementwise_space_binds_threads() {
    let module = elementwise(48);
    let target = TuneTarget::parse("webgpu").unwrap();
    let workload = Workload::new(module.clone()).unwrap();
    let spaces = SpaceGenerator::post_order_apply(&target)
        .generate(&workload, &target, 1)
        .unwrap();
    assert_eq!(spaces.len(), 1);
    let text = traces_text(&spaces);
    assert!(
        text.contains("blockIdx.x") && text.contains("threadIdx.x"),
        "{text}"
    );
    assert_golden("tests/data/gpu_elementwise_space.py", &text);
    check_samples(&module, &target, &spaces, 4);
}

#[test]
fn verify_gpu_code_checks_the_compacted_kernel() {
    use compiler_core::schedule::Factor::Const;
    use tessel_tune::postproc::Postproc;
    let target = TuneTarget::parse("webgpu").unwrap();
    // The book's shared-memory matmul tiling at 256: the caches are
    // allocated whole (2 × 256 KB) but each workgroup uses a 32×8 and an
    // 8×32 tile (2 KB), which is what the kernel allocates.
    let mut sch = Schedule::new(matmul(256)).unwrap();
    let b = sch.get_block("C", None).unwrap();
    let [i, j, k] = sch.get_loops(b).unwrap()[..] else {
        panic!()
    };
    let is = sch.split(i, &[Const(8), Const(8), Const(4)], true).unwrap();
    let js = sch.split(j, &[Const(8), Const(8), Const(4)], true).unwrap();
    let ks = sch.split(k, &[Const(32), Const(8)], true).unwrap();
    sch.reorder(&[is[0], js[0], is[1], js[1], ks[0], ks[1], is[2], js[2]])
        .unwrap();
    let bx = sch.fuse(&[is[0], js[0]], true).unwrap();
    sch.bind(bx, "blockIdx.x").unwrap();
    let tx = sch.fuse(&[is[1], js[1]], true).unwrap();
    sch.bind(tx, "threadIdx.x").unwrap();
    let cw = sch.cache_write(b, 0, "local", &[]).unwrap();
    sch.reverse_compute_at(cw, tx, true, -1).unwrap();
    for input in 0..2 {
        let cr = sch.cache_read(b, input, "shared", &[]).unwrap();
        sch.compute_at(cr, ks[0], true, -1).unwrap();
    }
    let mut ok = sch.clone();
    Postproc::VerifyGpuCode.apply(&mut ok, &target).unwrap();

    // One thread computing every output: a 256 KB local accumulator.
    let mut sch = Schedule::new(matmul(256)).unwrap();
    let b = sch.get_block("C", None).unwrap();
    let [i, _, _] = sch.get_loops(b).unwrap()[..] else {
        panic!()
    };
    let is = sch
        .split(i, &[Const(1), Const(1), Const(256)], true)
        .unwrap();
    sch.bind(is[0], "blockIdx.x").unwrap();
    sch.bind(is[1], "threadIdx.x").unwrap();
    let cw = sch.cache_write(b, 0, "local", &[]).unwrap();
    sch.reverse_compute_at(cw, is[1], true, -1).unwrap();
    let err = Postproc::VerifyGpuCode
        .apply(&mut sch, &target)
        .unwrap_err();
    assert!(
        err.contains("262144 bytes of local memory per thread"),
        "{err}"
    );
}

#[test]
fn the_gpu_reference_of_a_large_workload_is_the_original_bound_to_threads() {
    let module = matmul(24);
    let bound = tessel_tune::rules::bind_for_gpu(&module, 64).unwrap();
    let text = compiler_core::ir::printer::print_module(&bound, &Default::default());
    assert!(text.contains("thread=\"threadIdx.x\""), "{text}");
    let workload = Workload::new(module.clone()).unwrap();
    let backend = ReferenceBackend::default();
    let mut runner = Runner::new(&backend, &NoClock, &workload, &cpu()).unwrap();
    runner.check(&bound).unwrap();
}

#[test]
fn cooperative_fetch_loads_vectors_of_the_sampled_width() {
    let module = matmul(32);
    let target = TuneTarget::parse("webgpu").unwrap();
    let workload = Workload::new(module.clone()).unwrap();
    let spaces = SpaceGenerator::post_order_apply(&target)
        .generate(&workload, &target, 1)
        .unwrap();
    let postprocs = tessel_tune::postproc::default_postprocs(&target);
    let backend = ReferenceBackend::default();
    let mut runner = Runner::new(&backend, &NoClock, &workload, &target).unwrap();
    let mut vectorized = 0;
    for seed in 0..40 {
        let Ok((_, sch)) = materialize(&workload, &target, &postprocs, &spaces[1], true, seed)
        else {
            continue;
        };
        let text = compiler_core::ir::printer::print_module(sch.module(), &Default::default());
        if text.contains("T.vectorized") {
            vectorized += 1;
            runner.check(sch.module()).unwrap();
        }
    }
    assert!(vectorized > 0, "no sample loads vectors");
}

/// `B[i] = sum_k A[i, k]`: 4 rows of 512, too few rows for the cores.
fn row_sum() -> IRModule {
    parse_script(
        r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((4, 512), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, k in T.grid(4, 512):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
"#,
    )
    .map(|p| p.to_module())
    .unwrap_or_else(|d| panic!("{}", d.message))
}

#[test]
fn post_order_apply_cpu_row_sum_spaces_add_rfactor() {
    let module = row_sum();
    let target = cpu();
    let workload = Workload::new(module.clone()).unwrap();
    let spaces = SpaceGenerator::post_order_apply(&target)
        .generate(&workload, &target, 1)
        .unwrap();
    let text = traces_text(&spaces);
    // The reduction as it is, and rfactor'ed on the outer and on the inner
    // part of its split. A row sum reuses no input, so MultiLevelTiling
    // leaves all three alone (TVM's `NeedsMultiLevelTiling`).
    assert_eq!(spaces.len(), 3, "{text}");
    assert_eq!(
        text.matches("sch.rfactor(loop=l5, factor_axis=0)").count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("sch.rfactor(loop=l6, factor_axis=0)").count(),
        1,
        "{text}"
    );
    assert!(!text.contains("sch.reorder"), "{text}");
    assert_golden("tests/data/cpu_row_sum_spaces.py", &text);
    check_samples(&module, &target, &spaces, 2);
    // A matmul has spatial work enough: no rfactor.
    let matmul_spaces = SpaceGenerator::post_order_apply(&target)
        .generate(&Workload::new(matmul(64)).unwrap(), &target, 1)
        .unwrap();
    assert!(!traces_text(&matmul_spaces).contains("rfactor"));
}

#[test]
fn vectorize_fuses_the_innermost_spatial_loops_up_to_the_limit() {
    // j split [4, 4, 1] and moved inside k: the trailing spatial loops are
    // 4, 4 and 1. With a limit of 8 the last two fuse (4 lanes, the unit
    // loop included) and are vectorized; the third would exceed the limit.
    let module = matmul(16);
    let mut sch = Schedule::new(module.clone()).unwrap();
    compiler_core::schedule::replay::run_python(
        &mut sch,
        r#"
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
j0, j1, j2 = sch.split(j, [4, 4, 1])
sch.reorder(i, k, j0, j1, j2)
sch.annotate(sch.get_block("root"), "meta_schedule.vectorize", 8)
"#,
    )
    .unwrap();
    tessel_tune::postproc::Postproc::RewriteParallelVectorizeUnroll
        .apply(&mut sch, &cpu())
        .unwrap();
    let text = compiler_core::ir::printer::print_module(sch.module(), &Default::default());
    assert!(
        text.contains("for j_1_j_2_fused in T.vectorized(4):"),
        "{text}"
    );
    assert!(
        text.contains("for i, k, j_0 in T.grid(16, 16, 4):"),
        "{text}"
    );
    let workload = Workload::new(module).unwrap();
    let backend = ReferenceBackend::default();
    let mut runner = Runner::new(&backend, &NoClock, &workload, &cpu()).unwrap();
    runner.check(sch.module()).unwrap();
}

#[test]
fn vectorize_fuses_only_loops_that_keep_accesses_contiguous() {
    // A 4 × 16 register tile: fusing its rows into the vector would make
    // the 64 lanes of `C` and `A` strided (TVM fuses contiguous loops
    // only), so the 16 columns alone are vectorized, although 64 is within
    // the limit; the rows stay a loop for the unroller.
    let module = matmul(64);
    let mut sch = Schedule::new(module.clone()).unwrap();
    compiler_core::schedule::replay::run_python(
        &mut sch,
        r#"
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
i0, i1 = sch.split(i, [16, 4])
j0, j1 = sch.split(j, [4, 16])
sch.reorder(i0, j0, k, i1, j1)
sch.annotate(sch.get_block("root"), "meta_schedule.vectorize", 64)
"#,
    )
    .unwrap();
    // The same with the outer loops fused for `parallel` first: the inner
    // tile still vectorizes its columns.
    let mut parallel = sch.clone();
    compiler_core::schedule::replay::run_python(
        &mut parallel,
        r#"sch.annotate(sch.get_block("root"), "meta_schedule.parallel", 32)"#,
    )
    .unwrap();
    tessel_tune::postproc::Postproc::RewriteParallelVectorizeUnroll
        .apply(&mut parallel, &cpu())
        .unwrap();
    let text = compiler_core::ir::printer::print_module(parallel.module(), &Default::default());
    assert!(text.contains("T.parallel(64)"), "{text}");
    assert!(text.contains("for j_1 in T.vectorized(16):"), "{text}");
    tessel_tune::postproc::Postproc::RewriteParallelVectorizeUnroll
        .apply(&mut sch, &cpu())
        .unwrap();
    let text = compiler_core::ir::printer::print_module(sch.module(), &Default::default());
    assert!(text.contains("for j_1 in T.vectorized(16):"), "{text}");
    assert!(
        text.contains("for i_0, j_0, k, i_1 in T.grid(16, 4, 64, 4):"),
        "{text}"
    );
    assert!(!text.contains("fused"), "{text}");
    let workload = Workload::new(module).unwrap();
    let backend = ReferenceBackend::default();
    let mut runner = Runner::new(&backend, &NoClock, &workload, &cpu()).unwrap();
    runner.check(sch.module()).unwrap();
}

#[test]
fn vectorize_takes_a_loop_indexed_non_linearly_alone() {
    // `A[vi, vj // 4]` repeats each element four times along `j`: its stride
    // in `j` is not a constant, so `j` may be vectorized alone (the lowering
    // decides how) but `i` is not fused onto it.
    let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8, 16), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j in T.grid(8, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj // 4] + T.float32(1)
"#;
    let module = parse_script(src)
        .map(|p| p.to_module())
        .unwrap_or_else(|d| panic!("{}", d.message));
    let mut sch = Schedule::new(module.clone()).unwrap();
    compiler_core::schedule::replay::run_python(
        &mut sch,
        r#"sch.annotate(sch.get_block("root"), "meta_schedule.vectorize", 64)"#,
    )
    .unwrap();
    tessel_tune::postproc::Postproc::RewriteParallelVectorizeUnroll
        .apply(&mut sch, &cpu())
        .unwrap();
    let text = compiler_core::ir::printer::print_module(sch.module(), &Default::default());
    assert!(text.contains("for j in T.vectorized(16):"), "{text}");
    assert!(!text.contains("fused"), "{text}");
    let workload = Workload::new(module).unwrap();
    let backend = ReferenceBackend::default();
    let mut runner = Runner::new(&backend, &NoClock, &workload, &cpu()).unwrap();
    runner.check(sch.module()).unwrap();
}

/// A padded stencil with an `exp` stage: `C[i] = P[i] + P[i + 2] + E[i]`,
/// `P` the zero-padded input, `E = exp(A)`.
fn padded_exp() -> IRModule {
    let src = r#"
from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    P = T.alloc_buffer((18,), "float32")
    E = T.alloc_buffer((16,), "float32")
    for i in range(18):
        with T.block("P"):
            vi = T.axis.spatial(18, i)
            P[vi] = T.if_then_else(1 <= vi and vi < 17, A[vi - 1], T.float32(0))
    for i in range(16):
        with T.block("E"):
            vi = T.axis.spatial(16, i)
            E[vi] = T.exp(A[vi])
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = P[vi] + P[vi + 2] + E[vi]
"#;
    parse_script(src).unwrap().to_module()
}

#[test]
fn cpu_auto_inline_keeps_padding_and_exp_blocks_gpu_inlines_them() {
    let module = padded_exp();
    let workload = Workload::new(module.clone()).unwrap();
    // The blocks each design space inlines (`bN = get_block("X")` then
    // `compute_inline(block=bN)`).
    let inlined = |target: &TuneTarget| -> Vec<Vec<String>> {
        let spaces = SpaceGenerator::post_order_apply(target)
            .generate(&workload, target, 1)
            .unwrap();
        check_samples(&module, target, &spaces, 2);
        spaces
            .iter()
            .map(|t| {
                let text = t.python(TraceDialect::default());
                let mut names = std::collections::HashMap::new();
                let mut out = Vec::new();
                for line in text.lines().map(str::trim) {
                    if let Some((rv, rest)) = line.split_once(" = sch.get_block(name=\"") {
                        names.insert(rv.to_string(), rest.split('"').next().unwrap().to_string());
                    }
                    if let Some(rest) = line.strip_prefix("sch.compute_inline(block=") {
                        out.push(names[rest.trim_end_matches(')')].clone());
                    }
                }
                out
            })
            .collect()
    };
    let cpu_spaces = inlined(&cpu());
    assert!(cpu_spaces.iter().all(Vec::is_empty), "{cpu_spaces:?}");
    let gpu_spaces = inlined(&TuneTarget::parse("webgpu").unwrap());
    assert!(
        gpu_spaces.iter().all(|s| s == &["E", "P"]),
        "{gpu_spaces:?}"
    );
}

#[test]
fn a_gpu_batch_is_found_when_few_samples_pass_the_limits() {
    // Four floats of local memory per thread: only samples whose register
    // tile holds at most 4 outputs pass VerifyGPUCode, so rare that the
    // first 64 samples (4 per population slot) hold none.
    let mut target = TuneTarget::parse("webgpu").unwrap();
    target.max_local_memory_bytes = 16;
    let workload = Workload::new(matmul(64)).unwrap();
    let mut config = SearchConfig::new(4, 4);
    config.population_size = 16;
    let mut space = SpaceGenerator::post_order_apply(&target);
    let mut session = TuneSession::new(
        workload,
        target.clone(),
        &mut space,
        Database::new(),
        config,
    )
    .unwrap();
    let batch = session.next_batch();
    assert_eq!(
        batch.len(),
        4,
        "a full batch despite the rare valid samples"
    );
    // Each one, replayed with its decisions, passes the limits.
    let workload = Workload::new(matmul(64)).unwrap();
    let postprocs = tessel_tune::postproc::default_postprocs(&target);
    for c in &batch {
        if let Err((p, e)) = materialize(&workload, &target, &postprocs, &c.design_trace, false, 0)
        {
            panic!("{p:?}: {e}");
        }
    }
}

#[test]
fn post_order_apply_gpu_row_sum_spaces_add_a_cross_thread_reduction() {
    let module = row_sum();
    let target = TuneTarget::parse("webgpu").unwrap();
    let workload = Workload::new(module.clone()).unwrap();
    let spaces = SpaceGenerator::post_order_apply(&target)
        .generate(&workload, &target, 1)
        .unwrap();
    let text = traces_text(&spaces);
    // A row sum reuses no input, so it is not tiled: the reduction split
    // across a workgroup's threads (rows to workgroups), and the reduction
    // as it is (rows to threads).
    assert_eq!(spaces.len(), 2, "{text}");
    let (cross, plain) = text.split_once("# design space 1").unwrap();
    assert!(
        cross.contains(r#"sch.bind(loop=l8, thread_axis="threadIdx.x")"#)
            && cross.contains(r#"sch.bind(loop=l10, thread_axis="blockIdx.x")"#),
        "{text}"
    );
    assert!(!plain.contains("sample_perfect_tile"), "{text}");
    assert_golden("tests/data/gpu_row_sum_spaces.py", &text);
    check_samples(&module, &target, &spaces, 3);
    // A matmul is tiled instead.
    let matmul_spaces = SpaceGenerator::post_order_apply(&target)
        .generate(&Workload::new(matmul(32)).unwrap(), &target, 1)
        .unwrap();
    assert!(!traces_text(&matmul_spaces).contains("sample_categorical(candidates=[4, 8"));
}
