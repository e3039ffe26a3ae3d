//! Relaxed-SIMD multiply-add (`BuildOptions::relaxed_fma`): vector
//! `c + a * b` becomes one `relaxed_madd`, only when asked, and the results
//! stay within the rounding a fused multiply-add may change: one rounding
//! instead of two per step of the reduction.

use crate::common;

use codegen_wasm::runtime::{run_ndarrays, Runtime, WasmtimeRuntime};
use codegen_wasm::{build_with, BuildOptions};
use common::*;
use compiler_core::eval::{random_inputs, run_prim_func, EvalOptions};
use std::collections::HashMap;

fn build(
    n: usize,
    dtype: &str,
    fma: bool,
) -> (compiler_core::ir::IRModule, codegen_wasm::WasmModule) {
    let m = schedule(&matmul(n, dtype), BLOCKING_VEC);
    let opts = BuildOptions {
        relaxed_fma: fma,
        ..BuildOptions::default()
    };
    let wasm = build_with(&m, &opts).unwrap_or_else(|e| panic!("build: {e}"));
    codegen_wasm::validate(wasm.bytes()).unwrap();
    (m, wasm)
}

#[test]
fn multiply_adds_fuse_only_when_asked() {
    let (_, plain) = build(64, "float32", false);
    let wat = plain.wat().unwrap();
    assert!(!wat.contains("relaxed_madd"), "{wat}");
    assert!(wat.contains("f32x4.mul") && wat.contains("f32x4.add"));
    let (_, fused) = build(64, "float32", true);
    let wat = fused.wat().unwrap();
    assert!(wat.contains("f32x4.relaxed_madd"), "{wat}");
    assert!(
        !wat.contains("f32x4.mul"),
        "every vector product is fused:\n{wat}"
    );
    let (_, fused64) = build(64, "float64", true);
    assert!(fused64.wat().unwrap().contains("f64x2.relaxed_madd"));
}

#[test]
fn fused_results_stay_within_the_reduction_rounding() {
    for (dtype, eps) in [("float32", f32::EPSILON as f64), ("float64", f64::EPSILON)] {
        let n = 64;
        let (m, wasm) = build(n, dtype, true);
        let f = m.get_prim("main").unwrap();
        let inputs = random_inputs(f, 5, &HashMap::new()).unwrap();
        let mut want = inputs.clone();
        run_prim_func(f, &mut want, &EvalOptions::default()).unwrap();
        let mut rt = WasmtimeRuntime::new();
        rt.load(&wasm).unwrap();
        let mut got = inputs.clone();
        run_ndarrays(&mut rt, &wasm, "main", &mut got).unwrap();
        // Each of the n steps may round differently: |Δ| ≤ n · ε · Σ|a·b|,
        // bounded with the largest magnitudes of A and B.
        let max_abs = |i: usize| {
            (0..inputs[i].len())
                .map(|k| inputs[i].get_flat_f64(k).unwrap().abs())
                .fold(0.0, f64::max)
        };
        let bound = (n as f64) * eps * (n as f64) * max_abs(0) * max_abs(1);
        let mut worst = 0.0f64;
        for k in 0..want[2].len() {
            let (w, g) = (
                want[2].get_flat_f64(k).unwrap(),
                got[2].get_flat_f64(k).unwrap(),
            );
            worst = worst.max((w - g).abs());
        }
        assert!(
            worst <= bound,
            "{dtype}: max difference {worst} over the bound {bound}"
        );
    }
}

#[test]
fn a_relaxed_simd_target_attribute_turns_fusion_on() {
    use codegen_wasm::backend::WasmBackend;
    use compiler_core::target::{Backend, BuildOptions, Target};
    let m = schedule(&matmul(64, "float32"), BLOCKING_VEC);
    let backend = WasmBackend::wasmtime();
    let source = |text: &str| {
        let target = Target::parse(text).unwrap();
        let exec = backend
            .build(&m, &target, &BuildOptions::default())
            .unwrap();
        exec.source("").unwrap().unwrap()
    };
    assert!(!source("llvm").contains("relaxed_madd"));
    assert!(source("llvm -mattr=+relaxed-simd").contains("f32x4.relaxed_madd"));
    // An engine without relaxed SIMD (Safari's): the plain-SIMD build,
    // even where the backend's options asked for fusion.
    let mut plain = WasmBackend::wasmtime();
    plain.relaxed_simd = false;
    plain.options.relaxed_fma = true;
    let exec = plain
        .build(
            &m,
            &Target::parse("llvm -mattr=+relaxed-simd").unwrap(),
            &BuildOptions::default(),
        )
        .unwrap();
    let wat = exec.source("").unwrap().unwrap();
    assert!(!wat.contains("relaxed"), "{wat}");
    assert!(
        wat.contains("f32x4.mul"),
        "no SIMD multiply in the plain build"
    );
}
