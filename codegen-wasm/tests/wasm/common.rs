//! Shared test helpers: programs, schedules, and the comparison of a built
//! module against the reference interpreter.
#![allow(dead_code)]

use std::collections::HashMap;

use codegen_wasm::runtime::{run_ndarrays, LaunchStats, Runtime, WasmiRuntime, WasmtimeRuntime};
use codegen_wasm::{build, build_with, BuildOptions, ParallelLaunch, WasmModule};
use compiler_core::eval::{random_inputs, run_prim_func, EvalOptions, NDArray};
use compiler_core::ir::IRModule;
use compiler_core::schedule::{replay::run_python, Schedule};
use compiler_core::tvmscript::builder::parse_script;

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

pub fn seed(name: &str) -> IRModule {
    let path = format!(
        "{}/../compiler-core/tests/data/seeds/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    parse(&std::fs::read_to_string(path).unwrap())
}

pub fn core_data(name: &str) -> IRModule {
    let path = format!(
        "{}/../compiler-core/tests/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    parse(&std::fs::read_to_string(path).unwrap())
}

/// A `C = A @ B` (+ init) matmul of `n`³ in `dtype`.
pub fn matmul(n: usize, dtype: &str) -> IRModule {
    parse(&format!(
        r#"
@T.prim_func
def main(A: T.Buffer(({n}, {n}), "{dtype}"), B: T.Buffer(({n}, {n}), "{dtype}"), C: T.Buffer(({n}, {n}), "{dtype}")):
    T.func_attr({{"global_symbol": "main", "tir.noalias": True}})
    for i, j, k in T.grid({n}, {n}, {n}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.{dtype}(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#
    ))
}

/// The book's blocking schedule (seed 000: split by 32, reorder, parallel).
pub const BLOCKING: &str = r#"
block_c = sch.get_block("C")
(y, x, k) = sch.get_loops(block_c)
block_size = 32
yo, yi = sch.split(y, [None, block_size])
xo, xi = sch.split(x, [None, block_size])
sch.reorder(yo, xo, k, yi, xi)
sch.parallel(yo)
"#;

/// Blocking plus vectorize and unroll (and decompose_reduction).
pub const BLOCKING_VEC: &str = r#"
block_c = sch.get_block("C")
(y, x, k) = sch.get_loops(block_c)
yo, yi = sch.split(y, [None, 32])
xo, xi = sch.split(x, [None, 32])
k0, k1 = sch.split(k, [None, 4])
xi0, xi1 = sch.split(xi, [None, 8])
sch.reorder(yo, xo, k0, yi, k1, xi0, xi1)
sch.parallel(yo)
sch.unroll(k1)
sch.vectorize(xi1)
sch.decompose_reduction(block_c, k0)
"#;

/// Runs every function of `m` on random inputs through the interpreter and
/// the built module (wasmtime, and wasmi when `interp`), and requires
/// identical results. Returns the module.
pub fn check(m: &IRModule, interp_too: bool) -> WasmModule {
    let wasm = build(m).unwrap_or_else(|e| panic!("build: {e}"));
    let mut rts: Vec<Box<dyn Runtime>> = vec![Box::new(WasmtimeRuntime::new())];
    if interp_too {
        rts.push(Box::new(WasmiRuntime::new()));
    }
    check_with(m, &wasm, rts);
    wasm
}

/// [`check`] for a module built with host-launched parallel tasks, each
/// task split into several sub-ranges by the runtimes (run in reverse).
pub fn check_host_launch(m: &IRModule) -> WasmModule {
    let opts = BuildOptions {
        parallel: ParallelLaunch::Host,
        ..BuildOptions::default()
    };
    let wasm = build_with(m, &opts).unwrap_or_else(|e| panic!("build: {e}"));
    let rts: Vec<Box<dyn Runtime>> = vec![
        Box::new(WasmtimeRuntime::new().with_parallel_chunks(3)),
        Box::new(WasmiRuntime::new().with_parallel_chunks(2)),
    ];
    check_with(m, &wasm, rts);
    wasm
}

/// `m` built for threads: host launches over a shared memory.
pub fn build_threaded(m: &IRModule) -> WasmModule {
    let opts = BuildOptions {
        parallel: ParallelLaunch::Host,
        shared_memory: true,
        ..BuildOptions::default()
    };
    build_with(m, &opts).unwrap_or_else(|e| panic!("build: {e}"))
}

/// [`check`] for a module built for threads (host launches over a shared
/// memory) on wasmtime with `threads` threads, each task split into
/// `chunks` sub-ranges; returns how the last call's launches ran.
pub fn check_threaded(m: &IRModule, threads: u32, chunks: u32) -> (WasmModule, LaunchStats) {
    let wasm = build_threaded(m);
    let rt = WasmtimeRuntime::new()
        .with_threads(threads)
        .with_parallel_chunks(chunks);
    let stats = check_with(m, &wasm, vec![Box::new(rt)]);
    (wasm, stats[0])
}

fn check_with(m: &IRModule, wasm: &WasmModule, mut rts: Vec<Box<dyn Runtime>>) -> Vec<LaunchStats> {
    let mut stats = Vec::new();
    codegen_wasm::validate(wasm.bytes()).unwrap();
    let mut cases = Vec::new();
    for (name, f) in m.prim_funcs() {
        let inputs = random_inputs(f, 11, &HashMap::new()).unwrap();
        let mut want = inputs.clone();
        let t0 = std::time::Instant::now();
        run_prim_func(f, &mut want, &EvalOptions::default()).unwrap();
        if std::env::var_os("TIMES").is_some() {
            eprintln!("  interpreter {name}: {:.2}s", t0.elapsed().as_secs_f64());
        }
        cases.push((name, inputs, want));
    }
    for rt in &mut rts {
        let t0 = std::time::Instant::now();
        rt.load(wasm).unwrap_or_else(|e| panic!("load: {e}"));
        for (name, inputs, want) in &cases {
            let name: &str = name;
            let mut got = inputs.clone();
            run_ndarrays(rt.as_mut(), wasm, name, &mut got)
                .unwrap_or_else(|e| panic!("{name}: {e}\n{}", wasm.wat().unwrap_or_default()));
            for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                assert_same(name, i, w, g);
            }
        }
        if std::env::var_os("TIMES").is_some() {
            eprintln!("  runtime: {:.2}s", t0.elapsed().as_secs_f64());
        }
        stats.push(rt.last_launches());
    }
    stats
}

pub fn assert_same(name: &str, i: usize, w: &NDArray, g: &NDArray) {
    if w.to_le_bytes() == g.to_le_bytes() {
        return;
    }
    let (wv, gv) = (w.to_f64_vec(), g.to_f64_vec());
    let first = wv
        .iter()
        .zip(&gv)
        .position(|(a, b)| a.to_bits() != b.to_bits())
        .unwrap_or(0);
    panic!(
        "{name}: argument {i} differs from the interpreter at flat index {first}: \
         expected {} got {}",
        wv[first], gv[first]
    );
}
