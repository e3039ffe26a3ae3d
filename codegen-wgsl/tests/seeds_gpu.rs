//! The seeds' GPU schedules compiled to WGSL (naga-validated), compared
//! with golden shaders, and run on a WebGPU adapter (feature `native`).

use compiler_core::ir::IRModule;
use compiler_core::schedule::replay::run_python;
use compiler_core::schedule::Schedule;

use codegen_wgsl::{build_func, GpuLimits, WgslFunc};
use tessel_test_support::assert_golden;

#[path = "seeds_gpu/allreduce.rs"]
mod allreduce;
#[path = "seeds_gpu/launch.rs"]
mod launch;
#[cfg(feature = "native")]
#[path = "seeds_gpu/tuned_reductions.rs"]
mod tuned_reductions;

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

/// Compares the kernels' WGSL with `tests/golden/NAME.wgsl`; `BLESS=1`
/// rewrites the file.
fn golden(name: &str, w: &WgslFunc) {
    let path = format!("{}/tests/golden/{name}.wgsl", env!("CARGO_MANIFEST_DIR"));
    assert_golden(path, &w.wgsl());
}

#[test]
fn golden_vecadd() {
    golden(
        "vecadd_bind",
        &build_main(&scheduled("book_gpu_vecadd_bind", &[])),
    );
}

#[test]
fn golden_window_sum_coop_fetch() {
    golden(
        "window_sum_coop_fetch",
        &build_main(&scheduled("book_gpu_window_sum_3_coop_fetch", &[])),
    );
}

#[test]
fn golden_matmul_blocking_with_shared() {
    golden(
        "matmul_blocking_with_shared",
        &build_main(&scheduled("book_gpu_matmul_blocking_with_shared", &[])),
    );
}

fn build_err(program: &str, schedule: &str) -> String {
    let module = compiler_core::tvmscript::builder::parse_script(program)
        .map(|p| p.to_module())
        .unwrap_or_else(|d| panic!("{}", d.message));
    let mut sch = Schedule::new(module).expect("schedule");
    run_python(&mut sch, schedule).unwrap_or_else(|d| panic!("{}", d.message));
    let m = sch.module().clone();
    let (name, f) = m.prim_funcs().next().expect("a function");
    match build_func(name, f, &GpuLimits::default()) {
        Ok(w) => panic!("expected an error, got\n{}", w.wgsl()),
        Err(e) => e.message,
    }
}

const VECADD: &str = r#"
@tvm.script.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32")):
        for i in T.grid(4096):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * 2.0
"#;

#[test]
fn unbound_loop_is_an_error() {
    let e = build_err(VECADD, "");
    assert!(e.contains("loop i is not bound"), "{e}");
    assert!(e.contains("sch.bind(i"), "{e}");
}

#[test]
fn too_many_invocations_is_an_error() {
    let e = build_err(
        VECADD,
        r#"
b = sch.get_block("B")
i, = sch.get_loops(b)
i0, i1 = sch.split(i, [None, 512])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.x")
"#,
    );
    assert!(e.contains("threadIdx.x extent 512 (loop i_1)"), "{e}");
    assert!(e.contains("256"), "{e}");
}

#[test]
fn workgroup_z_limit_is_an_error() {
    let e = build_err(
        VECADD,
        r#"
b = sch.get_block("B")
i, = sch.get_loops(b)
i0, i1 = sch.split(i, [None, 128])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.z")
"#,
    );
    assert!(e.contains("threadIdx.z extent 128 (loop i_1)"), "{e}");
    assert!(e.contains("limit of 64"), "{e}");
}

#[test]
fn product_of_thread_extents_is_checked() {
    let e = build_err(
        VECADD,
        r#"
b = sch.get_block("B")
i, = sch.get_loops(b)
i0, i1, i2 = sch.split(i, [None, 32, 16])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.y")
sch.bind(i2, "threadIdx.x")
"#,
    );
    assert!(e.contains("512 invocations per workgroup"), "{e}");
    assert!(e.contains("loop i_1") && e.contains("loop i_2"), "{e}");
}

#[test]
fn wide_grid_is_folded() {
    // 4096 blocks of 1 thread fit; check the fold on a limit of 64 blocks.
    let module = compiler_core::tvmscript::builder::parse_script(VECADD)
        .map(|p| p.to_module())
        .expect("parse");
    let mut sch = Schedule::new(module).expect("schedule");
    run_python(
        &mut sch,
        r#"
b = sch.get_block("B")
i, = sch.get_loops(b)
i0, i1 = sch.split(i, [None, 16])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.x")
"#,
    )
    .expect("schedule");
    let m = sch.module().clone();
    let (name, f) = m.prim_funcs().next().expect("a function");
    let limits = GpuLimits {
        max_workgroups_per_dimension: 64,
        ..GpuLimits::default()
    };
    let w = build_func(name, f, &limits).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(w.kernels[0].dispatch, [64, 4, 1]);
    assert!(w.kernels[0].source.contains("block_linear"));
    #[cfg(feature = "native")]
    check_on_gpu(&m, &w);
}
