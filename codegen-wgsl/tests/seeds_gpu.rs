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
