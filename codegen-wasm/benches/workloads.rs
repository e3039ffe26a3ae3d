//! `cargo bench -p codegen-wasm --bench workloads`: the auto-tuner on the
//! course's other CPU workloads, each against its untuned program and its
//! hand schedule, in wasmtime on one thread.
//!
//! Workloads (sources in `tools/bench/workloads/`, hand schedules in
//! `tools/bench/schedules/`): a 512³ float32 matmul (the README's hand
//! schedule (c)), the book's MLP fused kernels (`linear0` + bias + relu,
//! `linear1` + bias, batch 1), a 3×3 conv2d (1×32×56×56 → 64 channels) and
//! a row softmax (256×1024).
//!
//! All three programs of a workload are timed by the tuner's own runner
//! (the same build, inputs and timer as the tuning), with enough calls per
//! repeat to last about 20 ms. The hand schedule is checked against the
//! original program before it is timed; the tuner checks what it returns.
//!
//! Environment: `BENCH_TUNE_TRIALS` (trials per workload, default 64);
//! `BENCH_ONLY=name,…` picks workloads; `BENCH_REPEAT=n` repeats per
//! timing (default 3); `BENCH_OUT=dir` writes `workloads.tsv` for
//! `cargo xtask bench`.

use std::path::PathBuf;
use std::time::Instant;

use codegen_wasm::backend::WasmBackend;
use codegen_wasm::runtime::WasmtimeRuntime;
use compiler_core::ir::IRModule;
use tessel_tune::{Runner, TuneTarget, Workload};

mod common;
use common::{matmul_src, parse, schedule, tuned, WallClock};

/// One workload: its name, what it is, its program and its hand schedule.
struct Case {
    name: &'static str,
    label: &'static str,
    source: String,
    hand: &'static str,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "matmul512",
            label: "matmul 512³",
            source: matmul_src(512),
            hand: include_str!("../../tools/bench/schedules/cpu_hand.py"),
        },
        Case {
            name: "mlp_linear0_relu",
            label: "MLP linear0+relu (1×784→128)",
            source: include_str!("../../tools/bench/workloads/mlp_linear0_relu.py").into(),
            hand: include_str!("../../tools/bench/schedules/mlp_linear_hand.py"),
        },
        Case {
            name: "mlp_linear1",
            label: "MLP linear1 (1×128→10)",
            source: include_str!("../../tools/bench/workloads/mlp_linear1.py").into(),
            hand: include_str!("../../tools/bench/schedules/mlp_linear_hand.py"),
        },
        Case {
            name: "conv2d",
            label: "conv2d 3×3 (32→64, 56×56)",
            source: include_str!("../../tools/bench/workloads/conv2d.py").into(),
            hand: include_str!("../../tools/bench/schedules/conv2d_hand.py"),
        },
        Case {
            name: "softmax",
            label: "softmax (256×1024)",
            source: include_str!("../../tools/bench/workloads/softmax.py").into(),
            hand: include_str!("../../tools/bench/schedules/softmax_hand.py"),
        },
    ]
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Mean seconds per call of `module`, timed by `runner` with its calls per
/// repeat set so that one repeat lasts about 20 ms.
fn time(runner: &mut Runner, module: &IRModule, what: &str) -> f64 {
    runner.number = 1;
    let first = runner.measure(module);
    let once = first
        .mean_seconds()
        .unwrap_or_else(|| panic!("{what}: {first:?}"));
    runner.number = ((0.02 / once.max(1e-9)) as u64).clamp(1, 10_000);
    let result = runner.measure(module);
    result
        .mean_seconds()
        .unwrap_or_else(|| panic!("{what}: {result:?}"))
}

fn main() {
    let only: Option<Vec<String>> = std::env::var("BENCH_ONLY")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let trials = env_usize("BENCH_TUNE_TRIALS", 64);
    let repeat = env_usize("BENCH_REPEAT", 3) as u64;
    let out = std::env::var("BENCH_OUT").ok().map(PathBuf::from);
    if let Some(dir) = &out {
        std::fs::create_dir_all(dir).expect("BENCH_OUT");
        let _ = std::fs::remove_file(dir.join("workloads.tsv"));
    }
    println!(
        "Tuning the course's other CPU workloads (wasmtime, 1 thread, {trials} trials each)\n"
    );
    println!(
        "| workload | GFLOP | untuned | hand | tuned | tuned / untuned | tuned / hand | tuning |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let target = TuneTarget::parse("llvm --num-cores=1").expect("target");
    let backend = WasmBackend::with_runtime(std::rc::Rc::new(|| {
        Box::new(WasmtimeRuntime::new().with_threads(1))
    }));
    let clock = WallClock(Instant::now());
    let mut rows = Vec::new();
    for case in cases() {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == case.name))
        {
            continue;
        }
        let original = parse(&case.source);
        let workload = Workload::new(original.clone()).expect("workload");
        let mut runner = Runner::new(&backend, &clock, &workload, &target).expect("runner");
        runner.repeat = repeat;
        let hand = schedule(&original, case.hand);
        runner
            .check(&hand)
            .unwrap_or_else(|e| panic!("{}: the hand schedule is wrong: {e}", case.name));
        let started = Instant::now();
        let common::Tuned {
            module: best,
            summary,
            trace,
        } = tuned(&original, trials);
        let tuning = started.elapsed().as_secs_f64();
        runner
            .check(&best)
            .unwrap_or_else(|e| panic!("{}: the tuned program is wrong: {e}", case.name));
        let gflops = |secs: f64| workload.flops / secs / 1e9;
        let untuned = gflops(time(&mut runner, &original, "untuned"));
        let hand = gflops(time(&mut runner, &hand, "hand"));
        let tuned = gflops(time(&mut runner, &best, "tuned"));
        println!(
            "| {} | {:.4} | {untuned:.2} | {hand:.2} | {tuned:.2} | {:.2}× | {:.2}× | {tuning:.1} s |",
            case.label,
            workload.flops / 1e9,
            tuned / untuned,
            tuned / hand,
        );
        eprintln!("  {}: {summary}\n{trace}", case.name);
        rows.push(format!(
            "{}\t{}\t{}\t{untuned:.4}\t{hand:.4}\t{tuned:.4}\t{trials}\t{tuning:.2}",
            case.name, case.label, workload.flops
        ));
    }
    if let Some(dir) = &out {
        let mut text = rows.join("\n");
        text.push('\n');
        std::fs::write(dir.join("workloads.tsv"), text).expect("BENCH_OUT");
    }
}
