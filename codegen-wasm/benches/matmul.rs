//! `cargo bench -p codegen-wasm`: float32 matmul 1024³ in wasmtime.
//!
//! 1. Tessel's wasm for (a) no schedule, (b) the seeds' blocking schedule
//!    (with `parallel`), (c) a hand schedule (tiling + vectorize + unroll +
//!    decompose_reduction + `parallel`), (d) the same with relaxed-SIMD
//!    multiply-adds (`relaxed_madd`), against the same loop nests written in
//!    Rust and compiled by rustc/LLVM to wasm32 with +simd128
//!    (`benches/llvm-ref`, built here) — the "LLVM limit" — in the same
//!    engine; one table with GFLOPS and ratios. (b)–(d) run on one thread,
//!    then again on all cores (keys `b2`, `c2`, `d2` on two): Tessel's
//!    modules built for host launches over a shared memory, the LLVM
//!    kernels' outer loops launched the same way (`*_par`).
//! 2. Tessel's compile time (parse → schedule → lower → emit + validate, and
//!    wasmtime's compilation) for the course programs.
//! 3. wasmtime vs wasmi: compile + one run of a 256³ matmul.
//! 4. Tuning time: the book's ch.4 §4.5 tuning (`MyModule`, 128³ matmul, 64
//!    trials of the default space, one thread), end to end.
//!    With `BENCH_TUNE_TRIALS=N`, part 1 also runs (t), the program the
//!    auto-tuner finds in N trials for the 1024³ matmul, one thread;
//!    `BENCH_TUNED_TRACE=file` runs (t) from the trace a tuning printed
//!    (`tessel tune`) instead of tuning again.
//! 5. The f32x4 arithmetic peak (mul + add, and relaxed FMA) of wasmtime on
//!    this machine, one thread: what the matmul figures read against.
//!
//! The schedules are the files `tools/bench/schedules/cpu_*.py`, which
//! `tools/bench/tvm_cpu.py` gives Apache TVM too.
//!
//! Environment: `BENCH_N` (1024, or 256 for the quick run); `BENCH_ONLY=a,b,c,d`
//! picks variants; `BENCH_LLVM_WASM=path` uses a prebuilt reference module;
//! `BENCH_REPEAT=n` timed runs per variant (default 3; (a) runs twice);
//! `BENCH_SKIP_ENGINES=1`, `BENCH_SKIP_COMPILE=1`, `BENCH_SKIP_TUNING=1`,
//! `BENCH_SKIP_PEAK=1` skip parts 3, 2, 4 and 5;
//! `BENCH_OUT=dir` writes the results as tab-separated rows (`cpu.tsv`,
//! `compile.tsv`) and the modules with a manifest (`wasm/`) for the browser
//! run (`e2e/bench/run.mjs`), as `cargo xtask bench` does.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod common;
use common::{matmul_src, parse, schedule, tuned, WallClock};

use codegen_wasm::backend::WasmExecutable;
use codegen_wasm::runtime::{Arg, MemoryPlan, Runtime, Tensor, WasmiRuntime, WasmtimeRuntime};
use codegen_wasm::{build, build_with, BuildOptions, KernelInfo, ParamInfo, TaskInfo};
use compiler_core::eval::{NDArray, Rng};
use compiler_core::ir::{DataType, IRModule};
use compiler_core::lower::{lower_module, LowerOptions};
use compiler_core::target::Executable;

/// The matrix size (`BENCH_N`, default 1024; the LLVM reference is built
/// for 1024 or 256).
fn size() -> usize {
    match std::env::var("BENCH_N").ok().and_then(|v| v.parse().ok()) {
        Some(256) => 256,
        Some(1024) | None => 1024,
        Some(n) => panic!("BENCH_N={n}: the LLVM reference is built for 1024 or 256"),
    }
}

/// (b) The seeds' blocking schedule (seed 000, "Transforming a matrix
/// multiplication program").
const BLOCKING: &str = include_str!("../../tools/bench/schedules/cpu_blocking.py");

/// (c) The hand schedule (see the file for what it does).
const BEST: &str = include_str!("../../tools/bench/schedules/cpu_hand.py");

/// The book's mm_relu schedule (compile-time table).
const MM_RELU: &str = include_str!("../../tools/bench/schedules/mm_relu.py");

fn env_list(name: &str) -> Option<Vec<String>> {
    std::env::var(name)
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
}

fn main() {
    // `cargo bench` passes `--bench`; ignore arguments.
    let only = env_list("BENCH_ONLY");
    let want = |v: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == v));
    let repeat: u32 = std::env::var("BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);

    let n = size();
    let out_dir = std::env::var("BENCH_OUT").ok().map(PathBuf::from);
    if let Some(dir) = &out_dir {
        std::fs::create_dir_all(dir.join("wasm")).expect("BENCH_OUT");
        for f in ["cpu.tsv", "compile.tsv", "tuning.tsv"] {
            let _ = std::fs::remove_file(dir.join(f));
        }
    }
    println!("Tessel CPU backend benchmark (wasmtime 48, Cranelift, 1 thread)\n");
    let best_sched = match std::env::var("BENCH_SCHED_C") {
        Ok(path) => std::fs::read_to_string(path).expect("BENCH_SCHED_C"),
        Err(_) => BEST.to_string(),
    };
    // One thread each, then the variants whose schedule has `parallel` on
    // all cores (modules built for host launches over a shared memory).
    let all = WasmtimeRuntime::new().threading().threads;
    let one = |key: &'static str, label: &str, sched: Option<String>, llvm_fn, fma| Variant {
        key: key.to_string(),
        label: label.to_string(),
        sched,
        module: None,
        llvm_fn,
        fma,
        threads: 1,
    };
    let mut variants = vec![
        one("a", "(a) no schedule", None, "mm_naive", false),
        one(
            "b",
            "(b) seeds' blocking",
            Some(BLOCKING.to_string()),
            "mm_blocked",
            false,
        ),
        one(
            "c",
            "(c) hand schedule",
            Some(best_sched.clone()),
            "mm_best",
            false,
        ),
        one("d", "(c) + relaxed FMA", Some(best_sched), "mm_best", true),
    ];
    if all > 1 {
        let threaded: Vec<Variant> = variants[1..]
            .iter()
            .map(|v| Variant {
                key: format!("{}{all}", v.key),
                label: format!("{}, {all} threads", v.label),
                sched: v.sched.clone(),
                module: None,
                llvm_fn: match v.llvm_fn {
                    "mm_blocked" => "mm_blocked_par",
                    _ => "mm_best_par",
                },
                fma: v.fma,
                threads: all,
            })
            .collect();
        variants.extend(threaded);
    }

    // (t) The auto-tuner's program: MetaSchedule's default CPU space, one
    // thread, measured by the same backend (`BENCH_TUNE_TRIALS=N`).
    let tune_trials: usize = std::env::var("BENCH_TUNE_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if tune_trials > 0 && want("t") {
        let common::Tuned {
            module,
            summary,
            trace,
        } = tuned(&parse(&matmul_src(n)), tune_trials);
        println!("{summary}\nthe best trace:\n{trace}");
        if let Some(dir) = &out_dir {
            append(
                &dir.join("tuning.tsv"),
                &format!("cpu_matmul\t{n}\t{summary}"),
            );
            std::fs::write(dir.join("cpu_tuned_trace.py"), &trace).expect("BENCH_OUT");
        }
        variants.push(Variant {
            key: "t".into(),
            label: format!("(t) tuned, {tune_trials} trials"),
            sched: None,
            module: Some(module),
            llvm_fn: "mm_best",
            fma: false,
            threads: 1,
        });
    } else if let (Ok(path), true) = (std::env::var("BENCH_TUNED_TRACE"), want("t")) {
        // A trace an earlier tuning printed (`tessel tune`), replayed here.
        let trace = std::fs::read_to_string(&path).expect("BENCH_TUNED_TRACE");
        variants.push(Variant {
            key: "t".into(),
            label: "(t) tuned (trace)".into(),
            sched: Some(trace),
            module: None,
            llvm_fn: "mm_best",
            fma: false,
            threads: 1,
        });
    }

    // Inputs, shared by every run.
    let mut rng = Rng::new(42);
    let f32t = DataType::f32();
    let a = NDArray::random(f32t, &[n, n], &mut rng).unwrap();
    let b = NDArray::random(f32t, &[n, n], &mut rng).unwrap();
    let flops = 2.0 * (n as f64).powi(3);

    // The LLVM reference module, and the same with its memory shared (for
    // its `*_par` kernels on threads).
    let llvm_wasm = build_llvm_ref(n);
    let llvm_shared = with_shared_memory(&llvm_wasm);
    let mut manifest = Vec::new();
    if let Some(dir) = &out_dir {
        std::fs::write(dir.join("wasm/llvm_ref.wasm"), &llvm_wasm).expect("BENCH_OUT");
        std::fs::write(dir.join("wasm/llvm_ref_shared.wasm"), &llvm_shared).expect("BENCH_OUT");
    }
    let mut rows = Vec::new();
    for v in &variants {
        let (key, label, llvm_fn) = (v.key.as_str(), v.label.as_str(), v.llvm_fn);
        if !want(key) && !want(&key[..1]) {
            continue;
        }
        let reps = if key == "a" { 2 } else { repeat };
        let m = parse(&matmul_src(n));
        let m = match (&v.module, &v.sched) {
            (Some(m), _) => m.clone(),
            (None, Some(s)) => schedule(&m, s),
            (None, None) => m,
        };
        let mut options = BuildOptions {
            relaxed_fma: v.fma,
            ..BuildOptions::default()
        };
        let ours_rt = WasmtimeRuntime::new().with_threads(v.threads);
        if v.threads > 1 {
            ours_rt.threading().apply(&mut options);
        }
        let module = build_with(&m, &options).unwrap_or_else(|e| panic!("build: {e}"));
        if std::env::var_os("BENCH_PRINT").is_some() {
            let l = lower_module(&m, &LowerOptions::default()).unwrap();
            println!(
                "{}",
                compiler_core::tvmscript::printer::print_module(
                    &l.to_ir_module(),
                    &compiler_core::tvmscript::printer::PrintOptions::default()
                )
            );
            println!("{}", l.report().notes.join("\n"));
        }
        if let Some(dir) = &out_dir {
            std::fs::write(dir.join(format!("wasm/mm_{key}.wasm")), module.bytes())
                .expect("BENCH_OUT");
            manifest.push(manifest_entry(v, &module, reps));
        }
        // Tessel's kernel through the target layer, as `tvm.build` and the
        // tuner run it: one call per sample, timed by the executable.
        let ours =
            WasmExecutable::load(module, vec!["main".to_string()], Box::new(ours_rt)).unwrap();
        let mut ours_args = vec![a.clone(), b.clone(), NDArray::zeros(f32t, &[n, n]).unwrap()];
        let clock = WallClock(Instant::now());
        let mut rt = WasmtimeRuntime::new().with_threads(v.threads);
        let plan = MemoryPlan {
            stack_base: 0,
            stack_limit: 0,
            heap_start: 2 << 20,
            heap_top: 2 << 20,
        };
        if v.threads > 1 {
            rt.load_bytes(
                &llvm_shared,
                vec![abc_kernel(llvm_fn, n)],
                llvm_tasks(),
                plan,
            )
            .unwrap();
        } else {
            rt.load_bytes(&llvm_wasm, vec![abc_kernel(llvm_fn, n)], vec![], plan)
                .unwrap();
        }
        let mut llvm = Bench::new(rt, llvm_fn, &a, &b);
        // Interleaved, so both see the same machine load; best of each.
        let (mut t_ours, mut t_llvm) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..reps {
            let t = ours
                .time("main", &mut ours_args, 1, 1, &clock)
                .expect("the wasm executable has a timer")
                .unwrap();
            t_ours = t_ours.min(t[0]);
            t_llvm = t_llvm.min(llvm.run());
        }
        let (ours_threads, llvm_threads) = (
            ours.last_launches().threads.max(1),
            llvm.rt.last_launches().threads.max(1),
        );
        assert_eq!(
            (ours_threads, llvm_threads),
            (v.threads, v.threads),
            "{label}: the kernels ran on other thread counts"
        );
        let diff = max_rel_diff(&ours_args[2], &llvm.output());
        assert!(diff < 1e-3, "{label}: results differ from LLVM's by {diff}");
        let (ours, llvm) = (t_ours, t_llvm);
        if let Some(dir) = &out_dir {
            append(
                &dir.join("cpu.tsv"),
                &format!(
                    "wasmtime\t{key}\t{:.4}\t{:.4}",
                    flops / ours / 1e9,
                    flops / llvm / 1e9
                ),
            );
        }
        rows.push((
            label.to_string(),
            flops / ours / 1e9,
            flops / llvm / 1e9,
            ours,
            llvm,
        ));
    }
    if !rows.is_empty() {
        println!(
            "f32 matmul {n}x{n}x{n} ({:.3} GFLOP per run); Tessel and LLVM runs interleaved, \
             best of {repeat} ((a): of 2)",
            flops / 1e9
        );
        println!(
            "{:<24} {:>12} {:>12} {:>14} {:>12}",
            "variant", "Tessel GF/s", "LLVM GF/s", "Tessel/LLVM", "Tessel s"
        );
        for (label, ours, llvm, t_ours, _) in &rows {
            println!(
                "{:<24} {:>12.2} {:>12.2} {:>13.0}% {:>12.3}",
                label,
                ours,
                llvm,
                100.0 * ours / llvm,
                t_ours
            );
        }
        if let Some(first) = rows.first() {
            for (label, ours, _, _, _) in rows.iter().skip(1) {
                println!(
                    "speed-up of {label} over {}: {:.1}x",
                    first.0,
                    ours / first.1
                );
            }
        }
        // Each threaded variant against its one-thread run.
        for (label, ours, llvm, _, _) in &rows {
            let Some((base, _)) = label.split_once(", ") else {
                continue;
            };
            if let Some((_, o1, l1, _, _)) = rows.iter().find(|r| r.0 == base) {
                println!(
                    "{label}: {:.2}x the one-thread run (LLVM: {:.2}x)",
                    ours / o1,
                    llvm / l1
                );
            }
        }
        println!();
    }

    if let Some(dir) = &out_dir {
        let text = format!(
            "{{\"n\": {n}, \"variants\": [\n{}\n]}}\n",
            manifest.join(",\n")
        );
        std::fs::write(dir.join("wasm/manifest.json"), text).expect("BENCH_OUT");
    }
    if std::env::var_os("BENCH_SKIP_COMPILE").is_none() {
        compile_times(n, out_dir.as_deref());
    }
    if std::env::var_os("BENCH_SKIP_TUNING").is_none() {
        tuning_time(out_dir.as_deref());
    }
    if std::env::var_os("BENCH_SKIP_PEAK").is_none() {
        simd_peaks(out_dir.as_deref());
    }
    if std::env::var_os("BENCH_SKIP_ENGINES").is_none() {
        engines(&mut rng);
    }
}

fn append(path: &Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("BENCH_OUT");
    writeln!(f, "{line}").expect("BENCH_OUT");
}

/// A benchmarked variant: Tessel's schedule and the LLVM kernel of the
/// same loop nest, with FMA or not, on a number of threads.
struct Variant {
    key: String,
    label: String,
    sched: Option<String>,
    /// A program given whole (the tuned one) instead of a schedule.
    module: Option<IRModule>,
    llvm_fn: &'static str,
    fma: bool,
    threads: u32,
}

/// The parallel tasks of the LLVM reference (`benches/llvm-ref`), numbered
/// as its `*_par` kernels launch them.
fn llvm_tasks() -> Vec<TaskInfo> {
    [
        ("__task_mm_blocked", "mm_blocked_par"),
        ("__task_mm_best", "mm_best_par"),
    ]
    .into_iter()
    .map(|(export, kernel)| TaskInfo {
        export: export.to_string(),
        kernel: kernel.to_string(),
        index_dtype: DataType::i32(),
    })
    .collect()
}

/// `bytes` with its memory import made shared (maximum 4 GiB), as threads
/// need; every other section is copied as it is. (rustc's `--shared-memory`
/// would need a standard library built with atomics.)
fn with_shared_memory(bytes: &[u8]) -> Vec<u8> {
    use wasm_encoder::{EntityType, ImportSection, MemoryType, RawSection};
    use wasmparser::{Parser, Payload, TypeRef};
    let mut out = wasm_encoder::Module::new();
    for payload in Parser::new(0).parse_all(bytes) {
        let payload = payload.expect("the LLVM module parses");
        if let Payload::ImportSection(reader) = &payload {
            let mut imports = ImportSection::new();
            for import in reader.clone().into_imports() {
                let import = import.expect("an import");
                let ty = match import.ty {
                    TypeRef::Func(t) => EntityType::Function(t),
                    TypeRef::Memory(m) => EntityType::Memory(MemoryType {
                        minimum: m.initial,
                        maximum: Some(65536),
                        memory64: false,
                        shared: true,
                        page_size_log2: None,
                    }),
                    other => panic!("unexpected import in the LLVM module: {other:?}"),
                };
                imports.import(import.module, import.name, ty);
            }
            out.section(&imports);
        } else if let Some((id, range)) = payload.as_section() {
            out.section(&RawSection {
                id,
                data: &bytes[range.start as usize..range.end as usize],
            });
        }
    }
    let shared = out.finish();
    codegen_wasm::validate(&shared).expect("the shared LLVM module validates");
    shared
}

/// What the browser runner (`e2e/bench/run.mjs`) needs to run one variant:
/// the kernel, its parallel tasks, the memory plan, the LLVM function (and
/// its module and tasks when it runs on threads), the thread count.
fn manifest_entry(v: &Variant, module: &codegen_wasm::WasmModule, reps: u32) -> String {
    let plan = MemoryPlan::for_threads(module, v.threads);
    let kernel = module
        .kernels
        .iter()
        .find(|k| k.name == "main")
        .expect("a main kernel");
    assert_eq!(kernel.params.len(), 3, "main(A, B, C) with static shapes");
    let tasks = |tasks: &[TaskInfo]| -> String {
        tasks
            .iter()
            .map(|t| {
                format!(
                    "{{\"export\": \"{}\", \"wide\": {}}}",
                    t.export,
                    t.index_dtype.bits > 32
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (llvm_wasm, llvm_tasks) = if v.threads > 1 {
        ("llvm_ref_shared.wasm", tasks(&llvm_tasks()))
    } else {
        ("llvm_ref.wasm", String::new())
    };
    format!(
        "{{\"key\": \"{}\", \"label\": \"{}\", \"wasm\": \"mm_{}.wasm\", \
         \"kernel\": \"main\", \"tasks\": [{}], \"stack_base\": {}, \"stack_limit\": {}, \
         \"heap_start\": {}, \"llvm_fn\": \"{}\", \"llvm_wasm\": \"{llvm_wasm}\", \
         \"llvm_tasks\": [{llvm_tasks}], \"threads\": {}, \"fma\": {}, \"reps\": {reps}}}",
        v.key,
        v.label,
        v.key,
        tasks(&module.tasks),
        plan.stack_base,
        plan.stack_limit,
        plan.heap_start,
        v.llvm_fn,
        v.threads,
        v.fma
    )
}

fn abc_kernel(name: &str, n: usize) -> KernelInfo {
    let buf = |b: &str| ParamInfo::Buffer {
        name: b.to_string(),
        dtype: DataType::f32(),
        shape: vec![Some(n as i64), Some(n as i64)],
    };
    KernelInfo {
        name: name.to_string(),
        params: vec![buf("A"), buf("B"), buf("C")],
        workspace_bytes: Some(0),
    }
}

/// The LLVM reference kernel, ready to run on fixed inputs in its own
/// runtime (a foreign module: below the target layer).
struct Bench {
    rt: WasmtimeRuntime,
    name: String,
    args: Vec<Arg>,
    c: Tensor,
}

impl Bench {
    fn new(mut rt: WasmtimeRuntime, name: &str, a: &NDArray, b: &NDArray) -> Bench {
        let ta = rt.alloc(a.dtype(), a.shape()).unwrap();
        let tb = rt.alloc(b.dtype(), b.shape()).unwrap();
        let c = rt.alloc(a.dtype(), a.shape()).unwrap();
        rt.copy_in(&ta, a).unwrap();
        rt.copy_in(&tb, b).unwrap();
        let args = vec![Arg::Tensor(ta), Arg::Tensor(tb), Arg::Tensor(c.clone())];
        Bench {
            rt,
            name: name.to_string(),
            args,
            c,
        }
    }
    /// Seconds for one call.
    fn run(&mut self) -> f64 {
        let t0 = Instant::now();
        self.rt.call(&self.name, &self.args).unwrap();
        t0.elapsed().as_secs_f64()
    }
    fn output(&mut self) -> NDArray {
        self.rt.copy_out(&self.c).unwrap()
    }
}

fn max_rel_diff(x: &NDArray, y: &NDArray) -> f64 {
    let (x, y) = (x.to_f64_vec(), y.to_f64_vec());
    x.iter()
        .zip(&y)
        .map(|(a, b)| (a - b).abs() / (1.0 + a.abs().max(b.abs())))
        .fold(0.0, f64::max)
}

/// Builds `benches/llvm-ref` for wasm32 (+simd128, imported memory), or
/// reads a prebuilt one from `BENCH_LLVM_WASM`.
fn build_llvm_ref(n: usize) -> Vec<u8> {
    if let Ok(path) = std::env::var("BENCH_LLVM_WASM") {
        return std::fs::read(path).expect("BENCH_LLVM_WASM");
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/llvm-ref/Cargo.toml");
    // target/<profile>/deps/matmul-… → target/
    let exe = std::env::current_exe().unwrap();
    let target: PathBuf = exe
        .ancestors()
        .nth(3)
        .map(|p| p.join(format!("llvm-ref-{n}")))
        .unwrap_or_else(|| PathBuf::from("target/llvm-ref"));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-unknown-unknown",
            "--manifest-path",
        ])
        .arg(&manifest)
        .args(if n == 256 {
            &["--features", "n256"][..]
        } else {
            &[]
        })
        .env("CARGO_TARGET_DIR", &target)
        .env(
            "RUSTFLAGS",
            "-C target-feature=+simd128 -C link-arg=--import-memory",
        )
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .status()
        .expect("running cargo for benches/llvm-ref");
    assert!(status.success(), "building benches/llvm-ref failed");
    std::fs::read(target.join("wasm32-unknown-unknown/release/tessel_llvm_ref.wasm")).unwrap()
}

/// Parse → schedule → lower → emit (+ validate), and wasmtime's compile,
/// for the course programs; mean over several runs.
fn compile_times(n: usize, out_dir: Option<&Path>) {
    let mut seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler-core/tests/data/seeds");
    if !seeds.exists() {
        // A binary moved to another checkout: run it from the repository root.
        seeds = PathBuf::from("compiler-core/tests/data/seeds");
    }
    let read = |f: &str| std::fs::read_to_string(seeds.join(f)).unwrap();
    // The labels are the ones `tools/bench/tvm_cpu.py` writes.
    let (mm_a, mm_b, mm_c) = (
        format!("matmul {n} (a)"),
        format!("matmul {n} (b) blocking"),
        format!("matmul {n} (c) hand"),
    );
    let programs: Vec<(&str, String, Option<&str>)> = vec![
        ("vector add", read("seed000_01_vecadd.py"), None),
        ("mm_relu", read("seed001_02_mm_relu.py"), None),
        (
            "mm_relu + book schedule",
            read("seed001_02_mm_relu.py"),
            Some(MM_RELU),
        ),
        (
            "bmm_relu (target)",
            read("seed001_10_bmm_relu_target.py"),
            None,
        ),
        (&mm_a, matmul_src(n), None),
        (&mm_b, matmul_src(n), Some(BLOCKING)),
        (&mm_c, matmul_src(n), Some(BEST)),
    ];
    println!(
        "Compile time per program (ms, mean of 20 per stage, and the median total; wasmtime = \
         Cranelift compile of the module)"
    );
    println!(
        "{:<26} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8} {:>10} {:>9}",
        "program", "parse", "schedule", "lower", "emit", "total", "median", "wasmtime", "bytes"
    );
    for (label, src, sched) in programs {
        let runs = 20;
        let (mut tp, mut ts, mut tl, mut te, mut tw) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let mut bytes = 0;
        let mut totals = Vec::new();
        for _ in 0..runs {
            let t0 = Instant::now();
            let m = parse(&src);
            let t1 = Instant::now();
            let m = match sched {
                Some(s) => schedule(&m, s),
                None => m,
            };
            let t2 = Instant::now();
            let lowered = lower_module(&m, &LowerOptions::default()).unwrap();
            let t3 = Instant::now();
            let module = codegen_wasm::build_lowered(lowered, &Default::default()).unwrap();
            let t4 = Instant::now();
            let mut rt = WasmtimeRuntime::new();
            tw += rt.load(&module).unwrap();
            bytes = module.bytes().len();
            tp += (t1 - t0).as_secs_f64();
            ts += (t2 - t1).as_secs_f64();
            tl += (t3 - t2).as_secs_f64();
            te += (t4 - t3).as_secs_f64();
            totals.push((t4 - t0).as_secs_f64());
        }
        // The median total: robust to the other processes of a busy
        // machine (tools/bench/tvm_cpu.py reports TVM's the same way).
        totals.sort_by(f64::total_cmp);
        let median = totals[totals.len() / 2];
        let ms = |t: f64| 1e3 * t / runs as f64;
        println!(
            "{:<26} {:>8.2} {:>9.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>10.2} {:>9}",
            label,
            ms(tp),
            ms(ts),
            ms(tl),
            ms(te),
            ms(tp + ts + tl + te),
            median * 1e3,
            ms(tw),
            bytes
        );
        if let Some(dir) = out_dir {
            append(
                &dir.join("compile.tsv"),
                &format!("{label}\t{:.4}", median * 1e3),
            );
        }
    }
    println!();
}

/// wasmtime vs wasmi on a 256³ matmul (no schedule): compile + one run.
fn engines(rng: &mut Rng) {
    let n = 256;
    let m = parse(&matmul_src(n));
    let module = build(&m).unwrap();
    let a = NDArray::random(DataType::f32(), &[n, n], rng).unwrap();
    let b = NDArray::random(DataType::f32(), &[n, n], rng).unwrap();
    println!("Engines: f32 matmul {n}^3, no schedule, compile + one run");
    println!(
        "{:<10} {:>12} {:>10} {:>10}",
        "engine", "compile ms", "run ms", "GFLOPS"
    );
    let mut outs = Vec::new();
    let mut rts: Vec<(&str, Box<dyn Runtime>)> = vec![
        ("wasmtime", Box::new(WasmtimeRuntime::new())),
        ("wasmi", Box::new(WasmiRuntime::new())),
    ];
    for (name, rt) in &mut rts {
        let compile = rt.load(&module).unwrap();
        let ta = rt.alloc(a.dtype(), a.shape()).unwrap();
        let tb = rt.alloc(b.dtype(), b.shape()).unwrap();
        let tc = rt.alloc(a.dtype(), a.shape()).unwrap();
        rt.copy_in(&ta, &a).unwrap();
        rt.copy_in(&tb, &b).unwrap();
        let t0 = Instant::now();
        rt.call(
            "main",
            &[Arg::Tensor(ta), Arg::Tensor(tb), Arg::Tensor(tc.clone())],
        )
        .unwrap();
        let run = t0.elapsed().as_secs_f64();
        outs.push(rt.copy_out(&tc).unwrap());
        println!(
            "{:<10} {:>12.2} {:>10.1} {:>10.3}",
            name,
            compile * 1e3,
            run * 1e3,
            2.0 * (n as f64).powi(3) / run / 1e9
        );
    }
    assert_eq!(outs[0].to_le_bytes(), outs[1].to_le_bytes());
    println!();
}

/// Independent accumulator chains in the peak loops: enough to hide the
/// latency of an add or an FMA on two pipes.
const PEAK_CHAINS: u32 = 12;

/// A module exporting `peak(iterations)`: a loop of [`PEAK_CHAINS`]
/// independent `acc = acc + x * y` on f32x4, as `f32x4.mul` then
/// `f32x4.add`, or one `f32x4.relaxed_madd` when `fma`.
fn peak_module(fma: bool) -> Vec<u8> {
    use wasm_encoder::{
        BlockType, CodeSection, ExportKind, ExportSection, Function, FunctionSection, Instruction,
        Module, TypeSection, ValType,
    };
    let mut types = TypeSection::new();
    types.ty().function([ValType::I32], [ValType::F32]);
    let mut funcs = FunctionSection::new();
    funcs.function(0);
    let mut exports = ExportSection::new();
    exports.export("peak", ExportKind::Func, 0);
    // Locals: 1 = x, 2 = y, 3.. = accumulators.
    let mut f = Function::new([(2 + PEAK_CHAINS, ValType::V128)]);
    f.instruction(&Instruction::F32Const(1.0001.into()))
        .instruction(&Instruction::F32x4Splat)
        .instruction(&Instruction::LocalSet(1))
        .instruction(&Instruction::F32Const(0.9999.into()))
        .instruction(&Instruction::F32x4Splat)
        .instruction(&Instruction::LocalSet(2))
        .instruction(&Instruction::Loop(BlockType::Empty));
    for c in 0..PEAK_CHAINS {
        let acc = 3 + c;
        f.instruction(&Instruction::LocalGet(1))
            .instruction(&Instruction::LocalGet(2));
        if fma {
            f.instruction(&Instruction::LocalGet(acc))
                .instruction(&Instruction::F32x4RelaxedMadd);
        } else {
            f.instruction(&Instruction::F32x4Mul)
                .instruction(&Instruction::LocalGet(acc))
                .instruction(&Instruction::F32x4Add);
        }
        f.instruction(&Instruction::LocalSet(acc));
    }
    f.instruction(&Instruction::LocalGet(0))
        .instruction(&Instruction::I32Const(1))
        .instruction(&Instruction::I32Sub)
        .instruction(&Instruction::LocalTee(0))
        .instruction(&Instruction::BrIf(0))
        .instruction(&Instruction::End);
    // Sum the accumulators' first lanes, so no chain is dead code.
    f.instruction(&Instruction::F32Const(0.0.into()));
    for c in 0..PEAK_CHAINS {
        f.instruction(&Instruction::LocalGet(3 + c))
            .instruction(&Instruction::F32x4ExtractLane(0))
            .instruction(&Instruction::F32Add);
    }
    f.instruction(&Instruction::End);
    let mut code = CodeSection::new();
    code.function(&f);
    let mut m = Module::new();
    m.section(&types)
        .section(&funcs)
        .section(&exports)
        .section(&code);
    m.finish()
}

/// The f32x4 arithmetic peaks of wasmtime on this machine, one thread:
/// mul + add (what SIMD128 alone offers a multiply-add) and relaxed FMA.
/// The matmul figures above read against these.
fn simd_peaks(out_dir: Option<&Path>) {
    let engine = wasmtime::Engine::default();
    let iterations: i32 = 50_000_000;
    println!("f32x4 arithmetic peak, wasmtime, one thread, {PEAK_CHAINS} independent chains:");
    for (key, fma) in [("muladd", false), ("fma", true)] {
        let module = wasmtime::Module::new(&engine, peak_module(fma)).expect("peak module");
        let mut store = wasmtime::Store::new(&engine, ());
        let instance = wasmtime::Instance::new(&mut store, &module, &[]).expect("instantiate");
        let peak = instance
            .get_typed_func::<i32, f32>(&mut store, "peak")
            .expect("peak export");
        peak.call(&mut store, 1000).expect("warm-up");
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let t0 = Instant::now();
            peak.call(&mut store, iterations).expect("peak run");
            best = best.min(t0.elapsed().as_secs_f64());
        }
        let flops = f64::from(iterations) * f64::from(PEAK_CHAINS) * 8.0;
        let gflops = flops / best / 1e9;
        println!("  {key:<7} {gflops:>7.2} GFLOPS");
        if let Some(dir) = out_dir {
            append(
                &dir.join("cpu.tsv"),
                &format!("peak\t{key}\t{gflops:.4}\t0"),
            );
        }
    }
    println!();
}

/// The book's ch.4 §4.5 tuning, timed end to end (search, builds, runs,
/// checks): `MyModule`'s 128³ matmul, 64 trials, one thread.
fn tuning_time(out_dir: Option<&Path>) {
    let module = parse(&matmul_src(128));
    let started = Instant::now();
    let summary = tuned(&module, 64).summary;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "Tuning time: the book's 128x128x128 MyModule, 64 trials: {seconds:.2} s (goal < 10 s)"
    );
    println!("  {summary}\n");
    if let Some(dir) = out_dir {
        append(
            &dir.join("tuning.tsv"),
            &format!("book_128_64_trials\t{seconds:.3}"),
        );
    }
}
