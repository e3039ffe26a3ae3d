//! `cargo xtask bench`'s whole-model section: four models (the course MLP,
//! the mnist-8 CNN, SqueezeNet 1.1, MobileNetV2) at batch 1 in headless
//! Chromium, ONNX Runtime Web and TensorFlow.js (both wasm, SIMD, the same
//! thread count) and, when a step has measured it, Tessel.
//!
//! It orchestrates:
//! - `tools/models/make_models.py` writes the models (ONNX, TF.js weights,
//!   fixed input, onnxruntime's golden output) into `<target>/models/`,
//!   with a python that has `onnx`, `onnxruntime` and `numpy`
//!   (`TESSEL_MODELS_PYTHON`, else a venv in the tool cache that this
//!   creates from `tools/models/requirements.txt`);
//! - `e2e/bench/models/run.mjs` runs the peers and writes
//!   `<target>/bench/models.tsv`, `models-env.tsv` and `models-sizes.tsv`.
//!
//! The table is built from every `<target>/bench/models.tsv` and
//! `models.NAME.tsv` file, rows `MODEL RUNTIME MEDIAN_MS MIN_MS RUNS THREADS
//! MAX_ABS_DIFF VERSION BACKEND` (tab-separated). Tessel's column is filled
//! by rows with RUNTIME `tessel`, written to `models.tessel.tsv` by the step
//! that measures Tessel on the same model files; without them it says
//! "not measured".

use std::collections::BTreeMap;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

use super::{num, rows};
use crate::{fail, Ctx, Failure, Result, CHROMIUM};

/// Threads given to every runtime unless `--model-threads` says otherwise
/// (the benchmark machine has two cores).
pub(super) const DEFAULT_THREADS: u32 = 2;

/// The runtimes' columns, in this order (key, column, short name); other
/// runtimes follow under their key.
const KNOWN_RUNTIMES: [(&str, &str, &str); 3] = [
    ("tessel", "Tessel", "Tessel"),
    ("onnxruntime-web", "ORT Web (wasm)", "ORT"),
    ("tfjs-wasm", "TF.js (wasm)", "TF.js"),
];

/// Runs the models benchmark into `out` and returns its Markdown section
/// (a section saying why when a tool is missing).
pub(super) fn models(ctx: &Ctx, quick: bool, threads: u32, out: &Path) -> Result<String> {
    let note = match run_peers(ctx, quick, threads, out) {
        Ok(()) => None,
        Err(e) => Some(e.message),
    };
    // Tessel's measurement of the same model files (`<target>/models/`)
    // belongs here, between the peers' run and the table: it writes its
    // rows to `out/models.tessel.tsv` (the bench run clears `out` first).
    Ok(table(out, note.as_deref()))
}

fn run_peers(ctx: &Ctx, quick: bool, threads: u32, out: &Path) -> Result<()> {
    let python = models_python(ctx)?;
    let models_dir = ctx.target_dir()?.join("models");
    let mut make = ctx.cmd(&python.to_string_lossy());
    make.env("PYTHONDONTWRITEBYTECODE", "1")
        .arg("tools/models/make_models.py")
        .arg(&models_dir);
    ctx.run(&mut make)?;
    if !Path::new(CHROMIUM).exists() {
        return fail(format!("not available ({CHROMIUM} missing)"));
    }
    if ctx.output("node", &["--version"]).is_none() {
        return fail("not available (no node)");
    }
    ctx.setup_e2e_npm()?;
    setup_models_npm(ctx)?;
    let (runs, warmup) = if quick { ("20", "3") } else { ("30", "10") };
    let mut cmd = ctx.cmd("node");
    cmd.arg("e2e/bench/models/run.mjs")
        .arg(&models_dir)
        .arg(out)
        .args(["--threads", &threads.to_string()])
        .args(["--runs", runs, "--warmup", warmup]);
    ctx.run(&mut cmd)
}

/// A python with onnx, onnxruntime and numpy: `$TESSEL_MODELS_PYTHON`, else
/// the cache's `models-venv` (created and filled from
/// tools/models/requirements.txt when it cannot import them).
fn models_python(ctx: &Ctx) -> Result<PathBuf> {
    let can_import = |python: &Path| {
        python.exists()
            && ctx
                .cmd(&python.to_string_lossy())
                .args(["-c", "import onnx, onnxruntime, numpy"])
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
    };
    if let Some(python) = env::var_os("TESSEL_MODELS_PYTHON").filter(|p| !p.is_empty()) {
        let python = PathBuf::from(python);
        if can_import(&python) {
            return Ok(python);
        }
        return fail(format!(
            "TESSEL_MODELS_PYTHON={} cannot `import onnx, onnxruntime, numpy`",
            python.display()
        ));
    }
    let venv = ctx.cache.join("models-venv");
    let python = venv.join("bin").join("python");
    if can_import(&python) {
        return Ok(python);
    }
    if !python.exists() {
        let mut make_venv = ctx.cmd("python3");
        make_venv.args(["-m", "venv"]).arg(&venv);
        ctx.run(&mut make_venv).map_err(|e| {
            Failure::new(format!(
                "could not create {} ({}): is python3-venv installed? Or set \
                 TESSEL_MODELS_PYTHON to a python with onnx, onnxruntime and numpy",
                venv.display(),
                e.message
            ))
        })?;
    }
    let mut pip = ctx.cmd(&python.to_string_lossy());
    pip.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ])
    .args(["-r", "tools/models/requirements.txt"]);
    ctx.run(&mut pip)?;
    if !can_import(&python) {
        return fail(format!(
            "{} still cannot `import onnx, onnxruntime, numpy`",
            python.display()
        ));
    }
    Ok(python)
}

/// `npm ci` in e2e/bench/models unless the pinned runtimes are installed.
fn setup_models_npm(ctx: &Ctx) -> Result<()> {
    let dir = ctx.root.join("e2e/bench/models");
    let manifest = fs::read_to_string(dir.join("package.json"))
        .map_err(|e| Failure::new(format!("cannot read e2e/bench/models/package.json: {e}")))?;
    let pinned = [
        "onnxruntime-web",
        "@tensorflow/tfjs",
        "@tensorflow/tfjs-backend-wasm",
    ];
    let installed = pinned.iter().all(|name| {
        let want = crate::json_string_field(&manifest.replace(": ", ":"), name);
        let have = fs::read_to_string(dir.join("node_modules").join(name).join("package.json"))
            .ok()
            .and_then(|m| crate::json_string_field(&m.replace(": ", ":"), "version"));
        want.is_some() && want == have
    });
    if installed {
        return Ok(());
    }
    let mut cmd = ctx.cmd("npm");
    cmd.current_dir(&dir)
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]);
    ctx.run(&mut cmd)
}

/// One measured (model, runtime).
struct Cell {
    median_ms: f64,
    max_abs_diff: String,
    threads: String,
    version: String,
}

/// The rows of `models.tsv` and every `models.NAME.tsv` in `out`.
fn measured(out: &Path) -> Vec<Vec<String>> {
    let mut files: Vec<PathBuf> = fs::read_dir(out)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| {
        let name = p
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        name == "models.tsv" || (name.starts_with("models.") && name.ends_with(".tsv"))
    });
    files.sort();
    files.iter().flat_map(|p| rows(p)).collect()
}

/// The Markdown section: one row per model, one column per runtime.
fn table(out: &Path, note: Option<&str>) -> String {
    let mut cells: BTreeMap<(String, String), Cell> = BTreeMap::new();
    let mut model_order: Vec<String> = Vec::new();
    let mut runtimes: Vec<String> = KNOWN_RUNTIMES.iter().map(|r| r.0.to_string()).collect();
    for r in measured(out) {
        let (Some(model), Some(runtime), Some(median_ms)) = (r.first(), r.get(1), num(r.get(2)))
        else {
            continue;
        };
        if !model_order.contains(model) {
            model_order.push(model.clone());
        }
        if !runtimes.contains(runtime) {
            runtimes.push(runtime.clone());
        }
        let field = |i: usize| r.get(i).cloned().unwrap_or_default();
        cells.insert(
            (model.clone(), runtime.clone()),
            Cell {
                median_ms,
                max_abs_diff: field(6),
                threads: field(5),
                version: field(7),
            },
        );
    }
    let env: BTreeMap<String, String> = rows(&out.join("models-env.tsv"))
        .into_iter()
        .filter_map(|r| Some((r.first()?.clone(), r.get(1)?.clone())))
        .collect();
    let known = |rt: &str| KNOWN_RUNTIMES.iter().find(|r| r.0 == rt);
    let label = |rt: &str| known(rt).map_or(rt.to_string(), |r| r.1.to_string());
    let short = |rt: &str| known(rt).map_or(rt.to_string(), |r| r.2.to_string());
    let get = |k: &str| env.get(k).map_or("?", String::as_str);
    let mut s = format!(
        "### Whole models in Chromium{}: batch 1, median ms\n\n\
         Seeded random weights (`tools/models/make_models.py`); every output is checked against \
         onnxruntime's (native) output for the same input. {} for every runtime, \
         median of {} runs after {} warm-up runs, each runtime in its own cross-origin isolated \
         page (isolated: {}). \"ORT Web\" is onnxruntime-web's wasm EP (SIMD + threads), \"TF.js\" \
         is the wasm backend (threaded SIMD build) running the same network from tf ops with \
         BatchNormalization folded and bias + activation fused, as TF.js's converter would \
         (ORT Web does the same folding in its session's graph optimisations). \"ORT Web / \
         Tessel\" is the ratio of times: above 1× Tessel is faster.\n\n",
        match env.get("chromium") {
            Some(v) => format!(" ({v})"),
            None => String::new(),
        },
        threads(get("threads")),
        get("runs"),
        get("warmup"),
        get("cross_origin_isolated"),
    );
    if let Some(note) = note {
        s.push_str(&format!("The peers' run: {note}.\n\n"));
    }
    s.push_str("| model |");
    for rt in &runtimes {
        s.push_str(&format!(" {} |", label(rt)));
    }
    s.push_str(" ORT Web / Tessel | TF.js / Tessel | max abs diff vs onnxruntime |\n|---|");
    s.push_str(&"---:|".repeat(runtimes.len() + 2));
    s.push_str("---|\n");
    for model in &model_order {
        let cell = |rt: &str| cells.get(&(model.clone(), rt.to_string()));
        s.push_str(&format!("| {model} |"));
        for rt in &runtimes {
            let text = match cell(rt) {
                Some(c) => format!("{:.3}", c.median_ms),
                None if rt == "tessel" => "not measured".into(),
                None => note.map_or("–", |_| "not available").into(),
            };
            s.push_str(&format!(" {text} |"));
        }
        let tessel = cell("tessel").map(|c| c.median_ms);
        for peer in ["onnxruntime-web", "tfjs-wasm"] {
            let text = match (cell(peer).map(|c| c.median_ms), tessel) {
                (Some(p), Some(t)) if t > 0.0 => format!("{:.2}×", p / t),
                _ => "–".into(),
            };
            s.push_str(&format!(" {text} |"));
        }
        let diffs: Vec<String> = runtimes
            .iter()
            .filter_map(|rt| {
                let c = cell(rt)?;
                let diff = c
                    .max_abs_diff
                    .parse::<f64>()
                    .map_or(c.max_abs_diff.clone(), |d| format!("{d:.1e}"));
                Some(format!("{} {diff}", short(rt)))
            })
            .collect();
        s.push_str(&format!(" {} |\n", diffs.join(", ")));
    }
    let versions: Vec<String> = runtimes
        .iter()
        .filter_map(|rt| {
            let c = model_order
                .iter()
                .find_map(|m| cells.get(&(m.clone(), rt.clone())))?;
            Some(format!(
                "{} {} ({})",
                label(rt),
                c.version,
                threads(&c.threads)
            ))
        })
        .collect();
    if !versions.is_empty() {
        s.push_str(&format!("\nVersions: {}.\n", versions.join(", ")));
    }
    s.push_str(&sizes(out));
    s
}

/// "1 thread", "2 threads".
fn threads(count: &str) -> String {
    match count {
        "1" => "1 thread".into(),
        n => format!("{n} threads"),
    }
}

/// The wasm binaries each runtime's npm package ships.
fn sizes(out: &Path) -> String {
    let rows = rows(&out.join("models-sizes.tsv"));
    if rows.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\nThe wasm binaries as npm ships them (the one each runtime loads here is \
         `ort-wasm-simd-threaded.wasm` / `tfjs-backend-wasm-threaded-simd.wasm`):\n\n\
         | runtime | file | bytes | gzip -9 |\n|---|---|---:|---:|\n",
    );
    for r in &rows {
        let field = |i: usize| r.get(i).map_or("?", String::as_str);
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            field(0),
            field(1),
            field(2),
            field(3)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);
    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let dir = env::temp_dir().join(format!("tessel-xtask-{tag}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const PEERS: &str = "mlp\tonnxruntime-web\t0.0500\t0.0400\t30\t2\t3.576e-7\t1.30.0\twasm\n\
                         mlp\ttfjs-wasm\t0.1000\t0.0900\t30\t2\t9.239e-7\t4.22.0\twasm\n\
                         mobilenetv2\tonnxruntime-web\t40.0\t38.0\t30\t2\t3.7e-5\t1.30.0\twasm\n\
                         mobilenetv2\ttfjs-wasm\t60.0\t58.0\t30\t2\t4.7e-5\t4.22.0\twasm\n";

    #[test]
    fn tessel_column_says_not_measured_without_its_rows() {
        let dir = TempDir::new("models-peers");
        fs::write(dir.0.join("models.tsv"), PEERS).unwrap();
        let s = table(&dir.0, None);
        assert!(
            s.contains("| model | Tessel | ORT Web (wasm) | TF.js (wasm) |"),
            "{s}"
        );
        assert!(
            s.contains("| mlp | not measured | 0.050 | 0.100 | – | – |"),
            "{s}"
        );
        assert!(
            s.contains("| mobilenetv2 | not measured | 40.000 | 60.000 |"),
            "{s}"
        );
        assert!(s.contains("– | – | ORT 3.6e-7, TF.js 9.2e-7 |\n"), "{s}");
    }

    #[test]
    fn rows_of_another_file_fill_the_tessel_column_and_the_ratios() {
        let dir = TempDir::new("models-tessel");
        fs::write(dir.0.join("models.tsv"), PEERS).unwrap();
        fs::write(
            dir.0.join("models.tessel.tsv"),
            "mobilenetv2\ttessel\t20.0\t19.0\t30\t2\t1.0e-5\t0.1.0\twasm\n",
        )
        .unwrap();
        // Neither a measurement file nor read as one.
        fs::write(dir.0.join("models-env.tsv"), "threads\t2\nruns\t30\n").unwrap();
        let s = table(&dir.0, None);
        assert!(
            s.contains("| mobilenetv2 | 20.000 | 40.000 | 60.000 | 2.00× | 3.00× |"),
            "{s}"
        );
        assert!(
            s.contains("| mlp | not measured | 0.050 | 0.100 | – | – |"),
            "{s}"
        );
        assert!(
            s.contains("2 threads for every runtime, median of 30 runs"),
            "{s}"
        );
    }

    #[test]
    fn a_failed_peer_run_is_said_in_its_columns() {
        let dir = TempDir::new("models-failed");
        fs::write(
            dir.0.join("models.tessel.tsv"),
            "mlp\ttessel\t0.02\t0.02\t30\t2\t0\t0.1.0\twasm\n",
        )
        .unwrap();
        let s = table(&dir.0, Some("not available (/usr/bin/chromium missing)"));
        assert!(s.contains("The peers' run: not available"), "{s}");
        assert!(
            s.contains("| mlp | 0.020 | not available | not available | – | – |"),
            "{s}"
        );
    }
}
