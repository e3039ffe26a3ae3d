//! The seeds' GPU schedules compiled to WGSL (naga-validated), compared
//! with golden shaders, and run on a WebGPU adapter (feature `native`).

use compiler_core::ir::IRModule;
use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::Schedule;

use codegen_wgsl::{build_func, GpuLimits, WgslFunc};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../compiler-core/tests/data/schedule"
);

/// Loads a schedule case, with `(from, to)` text replacements applied to the
/// whole file (smaller sizes), and applies its schedule.
pub fn scheduled(case: &str, replace: &[(&str, &str)]) -> IRModule {
    let path = format!("{DATA}/{case}.py");
    let mut text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for (a, b) in replace {
        text = text.replace(a, b);
    }
    let (program, schedule) = text
        .split_once("# --- schedule ---")
        .expect("a schedule section");
    let schedule = schedule.split("# --- expect-error").next().unwrap_or("");
    let module = compiler_core::tvmscript::builder::parse_script(program)
        .map(|p| p.to_module())
        .unwrap_or_else(|d| panic!("{case}: {}", d.message));
    let mut sch = Schedule::new(module).expect("schedule");
    run_python(&mut sch, schedule).unwrap_or_else(|d| panic!("{case}: {}", d.message));
    sch.module().clone()
}

pub fn build_main(m: &IRModule) -> WgslFunc {
    let (name, f) = m.prim_funcs().next().expect("a function");
    build_func(name, f, &GpuLimits::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn vecadd_builds() {
    let m = scheduled("book_gpu_vecadd_bind", &[]);
    let w = build_main(&m);
    println!("{}", w.wgsl());
    assert_eq!(w.kernels.len(), 1);
    assert_eq!(w.kernels[0].workgroup_size, [128, 1, 1]);
    assert_eq!(w.kernels[0].dispatch, [8, 1, 1]);
}

/// Runs `w` on random inputs on the first WebGPU adapter and compares with
/// the reference interpreter on the source function; prints a skip line and
/// passes when there is no adapter.
#[cfg(feature = "native")]
pub fn check_on_gpu(m: &IRModule, w: &WgslFunc) {
    use compiler_core::eval::{allclose, random_inputs, run_prim_func, EvalOptions};
    use std::collections::HashMap;
    let rt = match codegen_wgsl::runtime::GpuRuntime::new() {
        Ok(Some(rt)) => rt,
        Ok(None) => {
            println!("skipped: no WebGPU adapter (install mesa-vulkan-drivers for lavapipe)");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let (_, f) = m.prim_funcs().next().expect("a function");
    let inputs = random_inputs(f, 7, &HashMap::new()).expect("inputs");
    let mut want = inputs.clone();
    run_prim_func(f, &mut want, &EvalOptions::default()).expect("interpreter");
    let mut got = inputs;
    let stats = rt.run(w, &mut got).expect("gpu run");
    println!(
        "{} on {}: wall {:?}, kernels {:?}",
        w.name, rt.adapter, stats.wall, stats.kernel_times
    );
    for (i, (a, b)) in got.iter().zip(&want).enumerate() {
        allclose(a, b, 1e-4, 1e-4).unwrap_or_else(|e| panic!("{}: argument {i}: {e}", w.name));
    }
}

#[cfg(feature = "native")]
#[test]
fn vecadd_runs() {
    let m = scheduled("book_gpu_vecadd_bind", &[]);
    let w = build_main(&m);
    check_on_gpu(&m, &w);
}

/// The matmul cases at 128 (1024³ is too slow for the interpreter): the
/// schedules' factors are all `None`-led, so they scale down unchanged.
const MATMUL_SMALL: &[(&str, &str)] = &[("1024", "128")];

fn build_and_check(case: &str, replace: &[(&str, &str)]) -> WgslFunc {
    let m = scheduled(case, replace);
    let w = build_main(&m);
    println!("{case}:\n{}", w.wgsl());
    for n in &w.report.notes {
        println!("note: {n}");
    }
    #[cfg(feature = "native")]
    check_on_gpu(&m, &w);
    w
}

#[test]
fn window_sum_bind() {
    build_and_check("book_gpu_window_sum_1_bind", &[]);
}

#[test]
fn window_sum_cache_read() {
    build_and_check("book_gpu_window_sum_2_cache_read", &[]);
}

#[test]
fn window_sum_coop_fetch() {
    let w = build_and_check("book_gpu_window_sum_3_coop_fetch", &[]);
    assert!(w.kernels[0].source.contains("workgroupBarrier()"));
}

#[test]
fn matmul_blocking_loops_only() {
    build_and_check("book_gpu_matmul_blocking_loops_only", MATMUL_SMALL);
}

#[test]
fn matmul_blocking() {
    build_and_check("book_gpu_matmul_blocking", MATMUL_SMALL);
}

#[test]
fn matmul_blocking_with_shared() {
    let w = build_and_check("book_gpu_matmul_blocking_with_shared", MATMUL_SMALL);
    assert!(w.kernels[0].source.contains("var<workgroup>"));
}

#[test]
fn seed_vecadd_bind() {
    build_and_check("seed002_vecadd_gpu_bind", &[]);
}
