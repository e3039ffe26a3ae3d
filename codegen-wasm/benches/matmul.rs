//! `cargo bench -p codegen-wasm`: float32 matmul 1024³ in wasmtime.
//!
//! 1. Tessel's wasm for (a) no schedule, (b) the seeds' blocking schedule,
//!    (c) a hand schedule (tiling + vectorize + unroll + decompose_reduction),
//!    against the same loop nests written in Rust and compiled by rustc/LLVM
//!    to wasm32 with +simd128 (`benches/llvm-ref`, built here) — the "LLVM
//!    limit" — in the same engine; one table with GFLOPS and ratios.
//! 2. Tessel's compile time (parse → schedule → lower → emit + validate, and
//!    wasmtime's compilation) for the course programs.
//! 3. wasmtime vs wasmi: compile + one run of a 256³ matmul.
//!
//! Environment: `BENCH_ONLY=a,b,c` picks variants; `BENCH_LLVM_WASM=path`
//! uses a prebuilt reference module; `BENCH_REPEAT=n` timed
//! runs per variant (default 3; (a) runs once); `BENCH_SKIP_ENGINES=1`,
//! `BENCH_SKIP_COMPILE=1` skip parts 3 and 2.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use codegen_wasm::runtime::{Arg, MemoryPlan, Runtime, Tensor, WasmiRuntime, WasmtimeRuntime};
use codegen_wasm::{build, KernelInfo, ParamInfo};
use compiler_core::eval::{NDArray, Rng};
use compiler_core::ir::{DataType, IRModule};
use compiler_core::lower::{lower_module, LowerOptions};
use compiler_core::schedule::{replay::run_python, Schedule};
use compiler_core::tvmscript::builder::parse_script;

const N: usize = 1024;

fn matmul_src(n: usize) -> String {
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

/// (b) The seeds' blocking schedule (seed 000, "Transforming a matrix
/// multiplication program").
const BLOCKING: &str = r#"
block_c = sch.get_block("C")
(y, x, k) = sch.get_loops(block_c)
block_size = 32
yo, yi = sch.split(y, [None, block_size])
xo, xi = sch.split(x, [None, block_size])
sch.reorder(yo, xo, k, yi, xi)
sch.parallel(yo)
"#;

/// (c) The hand schedule: 4 × 16 register tiles (4 rows unrolled, 16
/// columns as 4 float32x4 vectors) over 256-deep k-blocks, columns blocked
/// outermost so a 256 × 16 panel of B stays in L1 across all rows;
/// decompose_reduction zeroes C before the k loop. Lowering keeps the 16
/// accumulators in registers across the k loop.
const BEST: &str = r#"
block_c = sch.get_block("C")
i, j, k = sch.get_loops(block_c)
io, ii = sch.split(i, [None, 4])
jo, ji = sch.split(j, [None, 16])
ko, ki = sch.split(k, [None, 256])
sch.reorder(jo, ko, io, ki, ii, ji)
sch.parallel(jo)
sch.unroll(ii)
sch.vectorize(ji)
sch.decompose_reduction(block_c, ko)
"#;

fn parse(src: &str) -> IRModule {
    parse_script(src)
        .unwrap_or_else(|e| panic!("parse: {}", e.message))
        .to_module()
}

fn schedule(m: &IRModule, text: &str) -> IRModule {
    let mut sch = Schedule::new(m.clone()).expect("schedule");
    run_python(&mut sch, text).unwrap_or_else(|e| panic!("schedule: {}", e.message));
    sch.module().clone()
}

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

    println!("Tessel CPU backend benchmark (wasmtime 48, Cranelift, 1 thread)\n");
    let best_sched = match std::env::var("BENCH_SCHED_C") {
        Ok(path) => std::fs::read_to_string(path).expect("BENCH_SCHED_C"),
        Err(_) => BEST.to_string(),
    };
    let variants: Vec<(&str, &str, Option<String>, &str)> = vec![
        ("a", "(a) no schedule", None, "mm_naive"),
        (
            "b",
            "(b) seeds' blocking",
            Some(BLOCKING.to_string()),
            "mm_blocked",
        ),
        ("c", "(c) hand schedule", Some(best_sched), "mm_best"),
    ];

    // Inputs, shared by every run.
    let mut rng = Rng::new(42);
    let f32t = DataType::f32();
    let a = NDArray::random(f32t, &[N, N], &mut rng).unwrap();
    let b = NDArray::random(f32t, &[N, N], &mut rng).unwrap();
    let flops = 2.0 * (N as f64).powi(3);

    // The LLVM reference module.
    let llvm_wasm = build_llvm_ref();
    let mut rows = Vec::new();
    for (key, label, sched, llvm_fn) in &variants {
        if !want(key) {
            continue;
        }
        let reps = if *key == "a" { 2 } else { repeat };
        let m = parse(&matmul_src(N));
        let m = match sched {
            Some(s) => schedule(&m, s),
            None => m,
        };
        let module = build(&m).unwrap_or_else(|e| panic!("build: {e}"));
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
        let mut rt = WasmtimeRuntime::new();
        rt.load(&module).unwrap();
        let mut ours = Bench::new(rt, "main", &a, &b);
        let mut rt = WasmtimeRuntime::new();
        let plan = MemoryPlan {
            stack_base: 0,
            stack_limit: 0,
            heap_start: 2 << 20,
            heap_top: 2 << 20,
        };
        rt.load_bytes(&llvm_wasm, vec![abc_kernel(llvm_fn)], vec![], plan)
            .unwrap();
        let mut llvm = Bench::new(rt, llvm_fn, &a, &b);
        // Interleaved, so both see the same machine load; best of each.
        let (mut t_ours, mut t_llvm) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..reps {
            t_ours = t_ours.min(ours.run());
            t_llvm = t_llvm.min(llvm.run());
        }
        let diff = max_rel_diff(&ours.output(), &llvm.output());
        assert!(diff < 1e-3, "{label}: results differ from LLVM's by {diff}");
        let (ours, llvm) = (t_ours, t_llvm);
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
            "f32 matmul {N}x{N}x{N} (2.1 GFLOP per run); Tessel and LLVM runs interleaved, \
             best of {repeat} ((a): of 2)"
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
        println!();
    }

    if std::env::var_os("BENCH_SKIP_COMPILE").is_none() {
        compile_times();
    }
    if std::env::var_os("BENCH_SKIP_ENGINES").is_none() {
        engines(&mut rng);
    }
}

fn abc_kernel(name: &str) -> KernelInfo {
    let buf = |n: &str| ParamInfo::Buffer {
        name: n.to_string(),
        dtype: DataType::f32(),
        shape: vec![Some(N as i64), Some(N as i64)],
    };
    KernelInfo {
        name: name.to_string(),
        params: vec![buf("A"), buf("B"), buf("C")],
        workspace_bytes: Some(0),
    }
}

/// One kernel ready to run on fixed inputs in its own runtime.
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
fn build_llvm_ref() -> Vec<u8> {
    if let Ok(path) = std::env::var("BENCH_LLVM_WASM") {
        return std::fs::read(path).expect("BENCH_LLVM_WASM");
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/llvm-ref/Cargo.toml");
    // target/<profile>/deps/matmul-… → target/
    let exe = std::env::current_exe().unwrap();
    let target: PathBuf = exe
        .ancestors()
        .nth(3)
        .map(|p| p.join("llvm-ref"))
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
fn compile_times() {
    let mut seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler-core/tests/data/seeds");
    if !seeds.exists() {
        // A binary moved to another checkout: run it from the repository root.
        seeds = PathBuf::from("compiler-core/tests/data/seeds");
    }
    let read = |f: &str| std::fs::read_to_string(seeds.join(f)).unwrap();
    let mm_relu_sched = r#"
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 4])
sch.reorder(j0, k, j1)
block_C = sch.get_block("C", func_name="mm_relu")
sch.reverse_compute_at(block_C, j0)
sch.decompose_reduction(block_Y, k)
"#;
    let programs: Vec<(&str, String, Option<&str>)> = vec![
        ("vector add", read("seed000_01_vecadd.py"), None),
        ("mm_relu", read("seed001_02_mm_relu.py"), None),
        (
            "mm_relu + book schedule",
            read("seed001_02_mm_relu.py"),
            Some(mm_relu_sched),
        ),
        (
            "bmm_relu (target)",
            read("seed001_10_bmm_relu_target.py"),
            None,
        ),
        ("matmul 1024 (a)", matmul_src(N), None),
        ("matmul 1024 (b) blocking", matmul_src(N), Some(BLOCKING)),
        ("matmul 1024 (c) hand", matmul_src(N), Some(BEST)),
    ];
    println!(
        "Compile time per program (ms, mean of 20; wasmtime = Cranelift compile of the module)"
    );
    println!(
        "{:<26} {:>8} {:>9} {:>8} {:>8} {:>8} {:>10} {:>9}",
        "program", "parse", "schedule", "lower", "emit", "total", "wasmtime", "bytes"
    );
    for (label, src, sched) in programs {
        let runs = 20;
        let (mut tp, mut ts, mut tl, mut te, mut tw) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let mut bytes = 0;
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
        }
        let ms = |t: f64| 1e3 * t / runs as f64;
        println!(
            "{:<26} {:>8.2} {:>9.2} {:>8.2} {:>8.2} {:>8.2} {:>10.2} {:>9}",
            label,
            ms(tp),
            ms(ts),
            ms(tl),
            ms(te),
            ms(tp + ts + tl + te),
            ms(tw),
            bytes
        );
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
