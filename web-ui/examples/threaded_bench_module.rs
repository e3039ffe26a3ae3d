//! Writes a small manifest for the Chromium CPU benchmark runner
//! (`e2e/bench/run.mjs`) whose modules run on threads, to check the runner
//! without the native benchmark:
//!
//! ```text
//! cargo run -p web-ui --example threaded_bench_module -- DIR [N] [THREADS]
//! node e2e/bench/run.mjs DIR out.tsv
//! ```
//!
//! The notebook's blocking schedule with `sch.parallel(yo)` at N (256),
//! built for host launches over a shared memory (what
//! `Threading::pool(THREADS).apply` asks), as variant `p`; the same schedule
//! built for one thread as variant `b`. The "LLVM" side of each row is a
//! Tessel module too (the manifest's `llvm_wasm`/`llvm_tasks`), so both
//! launch paths of the runner are exercised.

use std::path::PathBuf;

use codegen_wasm::runtime::{MemoryPlan, Threading};
use codegen_wasm::{build_with, BuildOptions, WasmModule};
use compiler_core::schedule::{replay::run_python, Schedule};
use compiler_core::tvmscript::builder::parse_script;

const BLOCKING: &str = include_str!("../../tools/bench/schedules/cpu_blocking.py");

fn matmul(n: usize) -> String {
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

fn entry(key: &str, module: &WasmModule, file: &str, threads: u32) -> String {
    let plan = MemoryPlan::for_threads(module, threads);
    let tasks = module
        .tasks
        .iter()
        .map(|t| {
            format!(
                "{{\"export\": \"{}\", \"wide\": {}}}",
                t.export,
                t.index_dtype.bits > 32
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "{{\"key\": \"{key}\", \"label\": \"({key}) blocking + parallel\", \"wasm\": \"{file}\", \
         \"kernel\": \"main\", \"tasks\": [{tasks}], \"stack_base\": {0}, \"stack_limit\": {1}, \
         \"heap_start\": {2}, \"llvm_fn\": \"main\", \"llvm_wasm\": \"{file}\", \
         \"llvm_tasks\": [{tasks}], \"llvm_stack_base\": {0}, \"llvm_stack_limit\": {1}, \
         \"threads\": {threads}, \"fma\": false, \"reps\": 3}}",
        plan.stack_base, plan.stack_limit, plan.heap_start
    )
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .ok_or("usage: threaded_bench_module DIR [N] [THREADS]")?,
    );
    let n: usize = args
        .next()
        .map_or(Ok(256), |a| a.parse())
        .map_err(|e| format!("N: {e}"))?;
    let threads: u32 = args
        .next()
        .map_or(Ok(2), |a| a.parse())
        .map_err(|e| format!("THREADS: {e}"))?;
    let parsed = parse_script(&matmul(n)).map_err(|e| e.message)?.to_module();
    let mut sch = Schedule::new(parsed).map_err(|e| format!("{e:?}"))?;
    run_python(&mut sch, BLOCKING).map_err(|e| e.message)?;
    let scheduled = sch.module().clone();
    let mut pooled = BuildOptions::default();
    Threading::pool(threads).apply(&mut pooled);
    let one = build_with(&scheduled, &BuildOptions::default()).map_err(|e| e.message)?;
    let many = build_with(&scheduled, &pooled).map_err(|e| e.message)?;
    std::fs::create_dir_all(dir.join("wasm")).map_err(|e| e.to_string())?;
    for (file, m) in [("mm_b.wasm", &one), ("mm_p.wasm", &many)] {
        std::fs::write(dir.join("wasm").join(file), m.bytes()).map_err(|e| e.to_string())?;
    }
    let manifest = format!(
        "{{\"n\": {n}, \"variants\": [\n{},\n{}\n]}}\n",
        entry("b", &one, "mm_b.wasm", 1),
        entry("p", &many, "mm_p.wasm", threads)
    );
    std::fs::write(dir.join("wasm/manifest.json"), manifest).map_err(|e| e.to_string())?;
    println!(
        "wrote {}/wasm: mm_b.wasm (1 thread), mm_p.wasm ({threads} threads)",
        dir.display()
    );
    Ok(())
}
