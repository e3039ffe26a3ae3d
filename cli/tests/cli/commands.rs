//! The `tessel` binary end to end: exit codes and what it prints.

use std::path::{Path, PathBuf};
use std::process::Command;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../compiler-core/tests/data")
        .join(rel)
}

fn tessel(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tessel"))
        .args(args)
        .output()
        .expect("run tessel");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn fmt_prints_the_golden() {
    let input = data("seeds/seed001_02_mm_relu.py");
    let (code, stdout, _) = tessel(&["fmt", input.to_str().unwrap()]);
    assert_eq!(code, 0);
    let golden = std::fs::read_to_string(data("seeds_fmt/seed001_02_mm_relu.py")).unwrap();
    assert_eq!(stdout, golden);
}

#[test]
fn fmt_can_switch_dialect() {
    let input = data("seeds/seed001_02_mm_relu.py");
    let (code, stdout, _) = tessel(&["fmt", "--dialect", "tirx", input.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("from tvm.script import tirx as T"));
    assert!(stdout.contains("@T.prim_func(s_tir=True)"));
    assert!(stdout.contains("T.sblock(\"Y\")"));
    assert!(stdout.contains("T.sblock_alloc_buffer"));
}

#[test]
fn check_reports_spanned_errors_without_panicking() {
    let dir = data("verify_fail");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "py") {
            continue;
        }
        let (code, _, stderr) = tessel(&["check", path.to_str().unwrap()]);
        assert_eq!(
            code,
            1,
            "{}: expected exit 1, got {code}\n{stderr}",
            path.display()
        );
        assert!(stderr.contains("error"), "{}: {stderr}", path.display());
        assert!(
            stderr.contains('^'),
            "{}: no caret in\n{stderr}",
            path.display()
        );
        seen += 1;
    }
    assert!(seen >= 20, "only {seen} broken programs");
}

#[test]
fn check_accepts_the_seeds() {
    let (code, stdout, stderr) = tessel(&[
        "check",
        data("seeds/seed001_16_gpu_matmul.py").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("ok"));
}

#[test]
fn the_books_extent_127_example_points_at_the_binding() {
    let path = data("verify_fail/seed001_loop_extent_127_vs_axis_128.py");
    let (code, _, stderr) = tessel(&["check", path.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.contains("127") && stderr.contains("128"), "{stderr}");
}

#[test]
fn eval_is_deterministic_and_computes() {
    let input = data("seeds/seed000_01_vecadd.py");
    let (code, a, _) = tessel(&["eval", input.to_str().unwrap(), "--seed", "7"]);
    assert_eq!(code, 0);
    let (_, b, _) = tessel(&["eval", input.to_str().unwrap(), "--seed", "7"]);
    assert_eq!(a, b);
    let (_, c, _) = tessel(&["eval", input.to_str().unwrap(), "--seed", "8"]);
    assert_ne!(a, c);
    // C = A + B, element by element, in the printed arrays.
    let arrays: Vec<Vec<f32>> = a
        .split(['[', ']'])
        .filter(|s| s.contains('.'))
        .map(|s| {
            s.split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect()
        })
        .filter(|v: &Vec<f32>| !v.is_empty())
        .collect();
    let flat: Vec<f32> = arrays.concat();
    assert_eq!(flat.len(), 3 * 128, "{a}");
    for i in 0..128 {
        let (x, y, z) = (flat[i], flat[128 + i], flat[256 + i]);
        assert!((x + y - z).abs() < 1e-5, "{x} + {y} != {z}");
    }
}

#[test]
fn bad_input_is_an_error_not_a_crash() {
    let dir = std::env::temp_dir().join(format!("tessel-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.py");
    std::fs::write(
        &file,
        "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    for i in range(4:\n",
    )
    .unwrap();
    for cmd in ["fmt", "check", "eval"] {
        let (code, _, stderr) = tessel(&[cmd, file.to_str().unwrap()]);
        assert_eq!(code, 1, "{cmd}: {stderr}");
        assert!(stderr.contains("bad.py:3:"), "{cmd}: {stderr}");
    }
    let (code, _, _) = tessel(&["fmt", dir.join("missing.py").to_str().unwrap()]);
    assert_eq!(code, 2);
}

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessel-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn run_executes_a_script() {
    let script = write_temp(
        "ok.py",
        "import numpy as np\nimport tvm\nfrom tvm.script import tir as T\n\n@T.prim_func\ndef add_one(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        with T.block(\"B\"):\n            vi = T.axis.spatial(4, i)\n            B[vi] = A[vi] + T.float32(1)\n\nlib = tvm.build(add_one, target=\"llvm\")\na = tvm.runtime.tensor(np.arange(4, dtype=\"float32\"))\nb = tvm.runtime.empty((4,), \"float32\")\nlib[\"add_one\"](a, b)\nprint(b)\nprint(f\"{b.numpy().sum():.1f}\")\n",
    );
    let (code, stdout, stderr) = tessel(&["run", script.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "[1. 2. 3. 4.]\n10.0\n");
}

#[test]
fn run_reports_an_uncaught_exception() {
    let script = write_temp(
        "fail.py",
        "print('before')\ndef f(x):\n    return x / 0\nf(1)\nprint('after')\n",
    );
    let (code, stdout, stderr) = tessel(&["run", script.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "before\n");
    let name = script.display().to_string();
    assert_eq!(
        stderr,
        format!(
            "Traceback (most recent call last):\n  File \"{name}\", line 4, in <module>\n    f(1)\n  File \"{name}\", line 3, in f\n    return x / 0\n           ~~^~~\nZeroDivisionError: division by zero\n"
        )
    );
}

#[test]
fn run_notebook_shows_last_values() {
    let script = write_temp(
        "nb.py",
        "# %%\nx = 2\nx * 21\n# %%\ntype(x)\n# %%\nprint('done')\n",
    );
    let (code, stdout, stderr) = tessel(&["run", "--notebook", script.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "42\nint\ndone\n");
}

/// As in Jupyter: a failing cell shows its traceback, the later cells still
/// run with the state so far, and the exit code says a cell failed.
#[test]
fn run_notebook_goes_on_after_a_failing_cell() {
    let script = write_temp(
        "nb_fail.py",
        "# %%
x = 2
# %%
print(undefined_name)
# %%
print('after', x)
",
    );
    let (code, stdout, stderr) = tessel(&["run", "--notebook", script.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(stdout, "after 2\n");
    assert!(
        stderr.contains("line 4")
            && stderr.ends_with("NameError: name 'undefined_name' is not defined\n"),
        "{stderr}"
    );
}

#[test]
fn run_enforces_the_step_budget() {
    let script = write_temp("loop.py", "while True:\n    pass\n");
    let (code, _, stderr) = tessel(&["run", "--steps", "10000", script.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(stderr.ends_with("RuntimeError: script exceeded its step budget of 10000 steps; is there an infinite loop?\n"), "{stderr}");
}

#[test]
fn build_prints_kernels_wat_and_lowered_ir() {
    let input = data("seeds/seed001_02_mm_relu.py");
    let (code, stdout, _) = tessel(&["build", input.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("validated"), "{stdout}");
    assert!(
        stdout.contains("kernel mm_relu(A: float32[128, 128]"),
        "{stdout}"
    );
    let (code, stdout, _) = tessel(&["build", "--wat", input.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("(module"), "{stdout}");
    assert!(stdout.contains("(export \"mm_relu\""), "{stdout}");
    let (code, stdout, _) = tessel(&["build", "--lowered", input.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("data=A.data"), "{stdout}");
    assert!(!stdout.contains("T.block("), "{stdout}");
}

#[test]
fn build_applies_a_schedule_file_and_writes_the_binary() {
    let input = data("seeds/seed000_01_vecadd.py");
    let dir = std::env::temp_dir().join(format!("tessel-build-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sched = dir.join("sched.py");
    std::fs::write(
        &sched,
        "b = sch.get_block(\"C\")\n(i,) = sch.get_loops(b)\ni0, i1 = sch.split(i, [None, 8])\nsch.parallel(i0)\nsch.vectorize(i1)\n",
    )
    .unwrap();
    let out = dir.join("m.wasm");
    let (code, stdout, stderr) = tessel(&[
        "build",
        input.to_str().unwrap(),
        "--schedule",
        sched.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("parallel task 0"), "{stdout}");
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(&bytes[..4], b"\0asm");
    std::fs::remove_dir_all(&dir).ok();
}
