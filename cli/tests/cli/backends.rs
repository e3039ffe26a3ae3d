//! `tessel run` with the real backends: the course's CPU cells on wasm
//! (wasmtime) and GPU cells on WGSL (wgpu; lavapipe on CI), compared with
//! the same script under `--backend reference` (the reference interpreter)
//! where that is fast enough, and with NumPy checks inside the scripts
//! (`np.testing.assert_allclose`) at the 1024 sizes. GPU tests print a skip
//! line when the machine has no WebGPU adapter.

use std::path::{Path, PathBuf};
use std::process::Command;

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/backends")
        .join(name)
}

fn tessel_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tessel"));
    cmd.args(args);
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        cmd.env("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run tessel");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs a script with `--backend native` and `--backend reference`; both
/// must succeed and print the same thing. Returns the output.
fn same_as_reference(name: &str) -> (String, String) {
    let path = script(name);
    let path = path.to_str().unwrap();
    let (code, native, err) = tessel_env(&["run", "--backend", "native", path], &[]);
    assert_eq!(code, 0, "{name} (native) failed:\n{native}\n{err}");
    let (code, reference, rerr) = tessel_env(&["run", "--backend", "reference", path], &[]);
    assert_eq!(code, 0, "{name} (reference) failed:\n{reference}\n{rerr}");
    assert_eq!(
        native, reference,
        "{name}: the native backend printed something else than the reference interpreter"
    );
    (native, err)
}

fn gpu_available() -> bool {
    std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    match codegen_wgsl::runtime::GpuRuntime::new() {
        Ok(Some(_)) => true,
        Ok(None) => {
            eprintln!("skip: no WebGPU adapter on this machine");
            false
        }
        Err(e) => {
            eprintln!("skip: the WebGPU adapter failed: {e}");
            false
        }
    }
}

#[test]
fn cpu_cells_on_wasm_match_the_reference_interpreter() {
    let (out, err) = same_as_reference("cpu_mm_relu.py");
    assert!(out.contains("after == before: True"), "{out}");
    assert!(out.contains("[12 12 12 12]"), "{out}");
    // A CPU-only script never probes for a GPU.
    assert!(!err.contains("note"), "{err}");
}

#[test]
fn cpu_1024_matmul_and_bmm_relu_run_on_wasm() {
    let path = script("cpu_bmm_relu_1024.py");
    let (code, out, err) = tessel_env(&["run", path.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("bmm_relu ok"), "{out}");
    assert!(out.contains("matmul 1024 ok"), "{out}");
}

/// TE schedules (older TVM's API) build for the CPU backend as for the
/// reference interpreter: same output, exact results.
#[test]
fn te_schedules_on_wasm_match_the_reference_interpreter() {
    let (out, _) = same_as_reference("te_schedules.py");
    assert!(
        out.contains("matmul_optimized\nmatmul exact: True"),
        "{out}"
    );
    assert!(
        out.contains("default_function add+relu exact: True"),
        "{out}"
    );
}

#[test]
fn cpu_get_source_is_wat_and_reference_has_none() {
    let path = script("cpu_source.py");
    let p = path.to_str().unwrap();
    let (code, out, err) = tessel_env(&["run", p], &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("(module"));
    assert!(lines.next().unwrap().parse::<u32>().unwrap() >= 1, "{out}");
    let (code, _, err) = tessel_env(&["run", "--backend", "reference", p], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("generates no source"), "{err}");
}

#[test]
fn gpu_cells_on_wgsl_match_the_reference_interpreter() {
    if !gpu_available() {
        return;
    }
    let (out, err) = same_as_reference("gpu_ch6.py");
    assert!(!err.contains("no WebGPU adapter"), "{err}");
    assert!(out.contains("blocking_with_shared:"), "{out}");
}

#[test]
fn gpu_sources_are_naga_valid_wgsl_and_mixed_modules_split_like_tvm() {
    if !gpu_available() {
        return;
    }
    let path = script("gpu_source.py");
    let (code, out, err) = tessel_env(&["run", path.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("1 webgpu\n"), "{out}");
    let device = out
        .split("=== device source\n")
        .nth(1)
        .and_then(|s| s.split("=== host source\n").next())
        .unwrap();
    let host = out
        .split("=== host source\n")
        .nth(1)
        .and_then(|s| s.split("=== end\n").next())
        .unwrap();
    for src in [device, host] {
        let kernels: Vec<&str> = src
            .split("// kernel ")
            .filter(|k| !k.trim().is_empty())
            .collect();
        assert_eq!(kernels.len(), 1, "{src}");
        for k in kernels {
            let body = k.split_once('\n').unwrap().1;
            codegen_wgsl::validate(body).unwrap_or_else(|e| panic!("{e}\n{body}"));
            assert!(body.contains("var<workgroup> A_shared"), "{body}");
            assert!(body.contains("workgroupBarrier()"), "{body}");
        }
    }
    assert!(out.contains("host: [1. 2. 3. 4. 5. 6. 7. 8.]"), "{out}");
    assert!(out.contains("gpu: [2. 3. 4. 5. 6. 7. 8. 9.]"), "{out}");
    assert!(out.contains("kernels: 1\n"), "{out}");
    assert!(
        out.contains("TVMError: cannot build `main` for webgpu: main: loop i encloses thread-bound loops but is not bound itself"),
        "{out}"
    );
    assert!(out.contains("wat: True True 0"), "{out}");
}

#[test]
fn without_an_adapter_gpu_targets_fall_back_with_one_note() {
    // No adapter for a backend this build does not have.
    let path = script("gpu_fallback.py");
    let (code, out, err) = tessel_env(
        &["run", path.to_str().unwrap()],
        &[("WGPU_BACKEND", "dx12")],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(out, "[3. 3. 3.]\nTrue True\n");
    assert_eq!(err.matches("no WebGPU adapter").count(), 1, "{err}");
}

#[test]
fn without_an_adapter_a_1024_gpu_matmul_stops_at_once_saying_why() {
    // 10^9 block iterations would take minutes on the interpreter: refused
    // before it starts, with what to do instead.
    let path = script("gpu_matmul_1024.py");
    let (code, out, err) = tessel_env(
        &["run", path.to_str().unwrap()],
        &[("WGPU_BACKEND", "dx12")],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        err.contains("block iterations per call")
            && err.contains("no WebGPU adapter")
            && err.contains("smaller size"),
        "{err}"
    );
}

/// The book's 1024 GPU matmul cells as written (`time_evaluator(number=10)`
/// twice): minutes on lavapipe, so only on request
/// (`cargo test -p tessel-cli --test cli backends -- --ignored`).
#[test]
#[ignore = "minutes on a software Vulkan adapter"]
fn gpu_1024_matmul_cells_on_wgsl() {
    if !gpu_available() {
        return;
    }
    let path = script("gpu_matmul_1024.py");
    let (code, out, err) = tessel_env(&["run", path.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(out.matches("GEMM-Blocking:").count(), 2, "{out}");
    assert!(out.contains("shared: True"), "{out}");
}
