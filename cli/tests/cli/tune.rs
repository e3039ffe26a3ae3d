//! Auto-tuning from the command line: the book's ch.4 §4.5/§4.5.1 cells
//! (`ms.tune_tir` with the student's schedule function, then the default
//! space) run verbatim under `tessel run` on the wasm backend, and
//! `tessel tune FILE`. Timings differ from run to run, so the checks are on
//! what is deterministic: the tuned modules compute what the original
//! computes (the notebook asserts it with NumPy), the printed trace replays
//! to the printed module, the task table's trial counts, and the database
//! kept under the work directory.

use std::path::{Path, PathBuf};
use std::process::Command;

use compiler_core::ir::printer::{print_module, PrintOptions};
use compiler_core::tvmscript::builder::parse_script;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tune")
        .join(name)
}

/// A fresh directory for one test's work files.
fn work_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessel-tune-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tessel_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tessel"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run tessel");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The text from the last line starting with `start` up to (not including)
/// the next line starting with `end` (or the end).
fn last_section<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .rfind(&format!("\n{start}"))
        .map(|i| i + 1)
        .unwrap_or(0);
    let rest = &text[from..];
    let to = rest[1..]
        .find(&format!("\n{end}"))
        .map(|i| i + 2)
        .unwrap_or(rest.len());
    &rest[..to]
}

#[test]
fn book_ch4_tuning_cells_run_and_the_tuned_modules_are_right() {
    let dir = work_dir("book");
    let script = data("book_ch4_tuning.py");
    let (code, stdout, stderr) = tessel_in(&dir, &["run", "--notebook", script.to_str().unwrap()]);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("tuned modules match MyModule"), "{stdout}");
    // §4.5: the schedule function's space has five programs (j = 128 split
    // with an inner factor ≤ 16), all measured; §4.5.1 then measures 64.
    assert!(
        stderr.contains("[INFO] [task_scheduler.cc:193] Sending 5 sample(s) to builder"),
        "{stderr}"
    );
    assert!(stderr.contains("[INFO] Total trials: 5\n"), "{stderr}");
    assert!(
        stderr.contains("[INFO] [task_scheduler.cc:193] Sending 64 sample(s) to builder"),
        "{stderr}"
    );
    assert!(stderr.contains("[INFO] Total trials: 64\n"), "{stderr}");
    // Both tunings' records are kept under work_dir (69 measurements).
    let records =
        std::fs::read_to_string(dir.join(".tune_tmp/database_tuning_record.json")).unwrap();
    assert_eq!(records.lines().count(), 69);
    let workloads = std::fs::read_to_string(dir.join(".tune_tmp/database_workload.json")).unwrap();
    assert_eq!(workloads.lines().count(), 1);
    // The last trace shown replays on MyModule to the module shown after it.
    let trace = last_section(&stdout, "# from tvm import tir", "# from tvm.script");
    let shown = last_section(
        &stdout,
        "# from tvm.script import ir as I",
        "tuned modules match",
    );
    let src = std::fs::read_to_string(&script).unwrap();
    let class = &src[src.find("@tvm.script.ir_module").unwrap()..];
    let class = &class[..class.find("\n# %%").unwrap()];
    let module = parse_script(&format!(
        "import tvm\nfrom tvm.script import tir as T\n{class}"
    ))
    .unwrap_or_else(|d| panic!("{}", d.message))
    .to_module();
    let replayed = tessel_session::apply_schedule(module, trace)
        .unwrap_or_else(|_| panic!("the trace does not replay:\n{trace}"));
    assert_eq!(
        print_module(replayed.module(), &PrintOptions::default()).trim_end(),
        shown.trim_end(),
        "the replayed trace gives another module"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tessel_tune_prints_the_best_trace_and_resumes_from_its_work_dir() {
    let dir = work_dir("cli");
    let file = dir.join("mm.py");
    std::fs::write(
        &file,
        r#"from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#,
    )
    .unwrap();
    let args = [
        "tune",
        "mm.py",
        "--trials",
        "12",
        "--trials-per-iter",
        "6",
        "--work-dir",
        "db",
    ];
    let (code, stdout, stderr) = tessel_in(&dir, &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:\n"),
        "{stdout}"
    );
    assert!(stdout.contains("sch.sample_perfect_tile("), "{stdout}");
    assert!(stderr.contains("tuned 12 trials"), "{stderr}");
    assert!(stderr.contains("untuned: "), "{stderr}");
    let records = || std::fs::read_to_string(dir.join("db/database_tuning_record.json")).unwrap();
    assert_eq!(records().lines().count(), 12);
    // A second tuning starts from the records and adds its own.
    let (code, _, stderr) = tessel_in(&dir, &args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(records().lines().count(), 24);
    // Bad input: a clear error, exit 1.
    let (code, _, stderr) = tessel_in(&dir, &["tune", "mm.py", "--func", "nope"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no function `nope`"), "{stderr}");
    let (code, _, stderr) = tessel_in(&dir, &["tune", "mm.py", "--trials", "0"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("max_trials_global must be positive"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn book_ch4_end_to_end_cells_put_the_tuned_linear0_back() {
    let dir = work_dir("e2e");
    let script = data("book_ch4_end_to_end.py");
    let (code, stdout, stderr) = tessel_in(&dir, &["run", "--notebook", script.to_str().unwrap()]);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("the tuned model matches NumPy"), "{stdout}");
    assert!(
        stdout.contains("MyModuleWithParams2 Prediction:"),
        "{stdout}"
    );
    // TVM's FLOP count of linear0: 2·128·784 for the matmul, 128 for the bias.
    assert!(stderr.contains("[INFO]   0 | main |  200832 |"), "{stderr}");
    assert!(stderr.contains("[INFO] Total trials: 64\n"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The book's ch.6 §6.1.7 cell (`ms.tune_tir` for `nvidia/tesla-p100`, then
/// `compile_tir`, `tvm.build` and `time_evaluator`) tunes on the machine's
/// WebGPU adapter: MetaSchedule's default GPU space, 64 trials, the tuned
/// module checked against NumPy by the script.
#[test]
fn book_ch6_gpu_tuning_cell_runs_on_the_webgpu_adapter() {
    std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    if !matches!(codegen_wgsl::runtime::GpuRuntime::new(), Ok(Some(_))) {
        eprintln!("skip: no WebGPU adapter on this machine");
        return;
    }
    let dir = work_dir("ch6");
    let script = data("book_ch6_gpu_tuning.py");
    let (code, stdout, stderr) = tessel_in(&dir, &["run", "--notebook", script.to_str().unwrap()]);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("tuned module matches A @ B"), "{stdout}");
    assert!(stdout.contains("MetaSchedule: "), "{stdout}");
    // The tuned program is a GPU kernel, bound to blocks and threads.
    assert!(stdout.contains("thread=\"blockIdx.x\""), "{stdout}");
    assert!(stdout.contains("// kernel main_kernel0"), "{stdout}");
    assert!(stderr.contains("[INFO] Total trials: 64\n"), "{stderr}");
    let records =
        std::fs::read_to_string(dir.join("tune_tmp/database_tuning_record.json")).unwrap();
    assert_eq!(records.lines().count(), 64);
    let _ = std::fs::remove_dir_all(&dir);
}
