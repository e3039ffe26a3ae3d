//! `cargo xtask bench`: the CPU and GPU benchmarks in one run, with Apache
//! TVM 0.27 alongside, printed as two Markdown tables (the README's
//! "Benchmarks" section is these tables).
//!
//! It orchestrates; the measuring is done by
//! - `codegen-wasm/benches/matmul.rs` (Tessel's wasm and the rustc/LLVM
//!   reference in wasmtime, Tessel's compile times; it also writes the
//!   modules for the browser run),
//! - `codegen-wasm/benches/workloads.rs` (the tuner on the MLP, conv2d,
//!   softmax and a 512³ matmul, against untuned and hand schedules),
//! - `e2e/bench/run.mjs` (the same modules in headless Chromium),
//! - `tools/bench/tvm_cpu.py` (TVM's LLVM build of the same schedules and
//!   `tvm.compile`'s time),
//! - `tools/bench/tvm_wgsl.py` (TVM's WGSL; the committed
//!   `tools/bench/data/tvm_wgsl.json` when TVM is not installed),
//! - `codegen-wgsl/benches/matmul_gpu.rs` (Tessel's and TVM's WGSL on one
//!   wgpu adapter),
//! - `bench/models.rs` (whole models in Chromium: ONNX Runtime Web and
//!   TensorFlow.js, with a column for Tessel).
//!
//! Each writes tab-separated rows into `<target>/bench/`, which this file
//! reads back to print the tables. A part whose tool is missing prints
//! "not installed" / "not available" in its column instead of failing.

use std::collections::BTreeMap;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::{fail, secs, Ctx, Result, CHROMIUM};

mod models;

const HELP: &str = "\
usage: cargo xtask bench [--quick] [--cpu-only | --gpu-only | --models-only]
                         [--model-threads N]

  --quick        256x256 matrices and fewer runs (a smoke run, minutes)
  --cpu-only     only the CPU table (wasm in wasmtime and Chromium, LLVM, TVM llvm)
  --gpu-only     only the GPU table (WGSL on the wgpu adapter, Tessel vs TVM)
  --models-only  only the whole-model table (MLP, MNIST CNN, SqueezeNet 1.1,
                 MobileNetV2 in Chromium: ONNX Runtime Web, TF.js, Tessel)
  --model-threads N  threads of every runtime in the models table (default 2)

The models come from tools/models/make_models.py, run by TESSEL_MODELS_PYTHON
or a venv that this creates in the tool cache (models-venv, from
tools/models/requirements.txt); the peers' npm packages are installed in
e2e/bench/models. Tessel's column is read from <target>/bench/models.tessel.tsv
(rows as in e2e/bench/models/run.mjs); without it it says \"not measured\".

TVM comes from TESSEL_TVM_PYTHON, ~/.cache/tessel/tvm-venv or
~/.cache/tessel-tvm-venv (not installed by this command); without it the
TVM columns say \"not installed\" and the GPU part uses the committed
tools/bench/data/tvm_wgsl.json.
";

struct Opts {
    quick: bool,
    cpu: bool,
    gpu: bool,
    models: bool,
    /// Threads of every runtime in the models section.
    model_threads: u32,
}

pub(crate) fn bench(ctx: &Ctx, args: &[String]) -> Result<()> {
    let mut o = Opts {
        quick: false,
        cpu: true,
        gpu: true,
        models: true,
        model_threads: models::DEFAULT_THREADS,
    };
    let mut only = 0;
    let mut args = args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => o.quick = true,
            "--model-threads" => {
                let n = args.next().and_then(|n| n.parse::<u32>().ok());
                let Some(n) = n.filter(|n| *n >= 1) else {
                    return fail("bench: --model-threads needs a thread count >= 1");
                };
                o.model_threads = n;
            }
            "--cpu-only" | "--gpu-only" | "--models-only" => {
                only += 1;
                o.cpu = a == "--cpu-only";
                o.gpu = a == "--gpu-only";
                o.models = a == "--models-only";
            }
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(());
            }
            other => return fail(format!("bench: unknown option `{other}`\n\n{HELP}")),
        }
    }
    if only > 1 {
        return fail("bench: --cpu-only, --gpu-only and --models-only exclude each other");
    }
    let started = Instant::now();
    let out = ctx.target_dir()?.join("bench");
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(&out).map_err(|e| crate::Failure::new(format!("{}: {e}", out.display())))?;
    let n = if o.quick { 256 } else { 1024 };
    let python = if o.cpu || o.gpu {
        tvm_python(ctx)
    } else {
        None
    };
    match &python {
        Some(p) => println!("xtask: bench: TVM python {}", p.display()),
        None if o.cpu || o.gpu => {
            println!("xtask: bench: TVM not installed (its columns say so)")
        }
        None => {}
    }
    let mut tables = String::new();
    if o.cpu {
        tables.push_str(&cpu(ctx, &o, n, &out, python.as_deref())?);
    }
    if o.gpu {
        tables.push_str(&gpu(ctx, &o, n, &out, python.as_deref())?);
    }
    if o.models {
        tables.push_str(&models::models(ctx, o.quick, o.model_threads, &out)?);
    }
    println!("\n{}", machine());
    println!("{tables}");
    println!("xtask: bench done in {}", secs(started.elapsed()));
    Ok(())
}

/// A python that can `import tvm`, without installing anything.
fn tvm_python(ctx: &Ctx) -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(p) = env::var_os("TESSEL_TVM_PYTHON").filter(|p| !p.is_empty()) {
        candidates.push(PathBuf::from(p));
    }
    candidates.push(ctx.cache.join("tvm-venv/bin/python"));
    if let Some(home) = env::var_os("HOME") {
        candidates.push(PathBuf::from(home).join(".cache/tessel-tvm-venv/bin/python"));
    }
    candidates.into_iter().find(|p| {
        p.exists()
            && Command::new(p)
                .args(["-c", "import tvm, numpy"])
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
    })
}

/// Tab-separated rows of a result file (empty when it is missing).
fn rows(path: &Path) -> Vec<Vec<String>> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn num(s: Option<&String>) -> Option<f64> {
    s.and_then(|s| s.parse().ok())
}

fn gf(v: Option<f64>, missing: &str) -> String {
    v.map_or(missing.to_string(), |v| format!("{v:.2}"))
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "–".into(),
    }
}

fn cpu(ctx: &Ctx, o: &Opts, n: usize, out: &Path, python: Option<&Path>) -> Result<String> {
    let repeat = if o.quick { 2 } else { 3 };
    // 1. wasmtime: Tessel and LLVM, compile times, modules for the browser.
    let mut cmd = ctx.cmd("cargo");
    cmd.args(["bench", "-p", "codegen-wasm", "--bench", "matmul"])
        .env("BENCH_OUT", out)
        .env("BENCH_N", n.to_string())
        .env("BENCH_REPEAT", repeat.to_string())
        .env("BENCH_SKIP_ENGINES", "1");
    ctx.run(&mut cmd)?;
    // The tuner on the other workloads, against untuned and hand schedules.
    let mut cmd = ctx.cmd("cargo");
    cmd.args(["bench", "-p", "codegen-wasm", "--bench", "workloads"])
        .env("BENCH_OUT", out)
        .env("BENCH_TUNE_TRIALS", if o.quick { "16" } else { "64" })
        .env("BENCH_REPEAT", repeat.to_string());
    ctx.run(&mut cmd)?;

    // 2. Chromium.
    let chromium_note = if !Path::new(CHROMIUM).exists() {
        Some(format!("not available ({CHROMIUM} missing)"))
    } else if ctx.output("node", &["--version"]).is_none() {
        Some("not available (no node)".to_string())
    } else if let Err(e) = ctx.setup_e2e_npm() {
        Some(format!("not available (playwright-core: {})", e.message))
    } else {
        let mut cmd = ctx.cmd("node");
        cmd.arg("e2e/bench/run.mjs")
            .arg(out)
            .arg(out.join("chromium.tsv"));
        match ctx.run(&mut cmd) {
            Ok(()) => None,
            Err(e) => Some(format!("failed: {}", e.message)),
        }
    };

    // 3. TVM.
    let tvm_ok = match python {
        Some(py) => {
            let mut cmd = ctx.cmd(&py.to_string_lossy());
            cmd.env("PYTHONDONTWRITEBYTECODE", "1")
                .arg("tools/bench/tvm_cpu.py")
                .args(["--n", &n.to_string()])
                .args(["--repeat", &repeat.to_string()])
                .args(["--compile-runs", if o.quick { "2" } else { "5" }])
                .arg("--out")
                .arg(out.join("tvm_cpu.tsv"));
            ctx.run(&mut cmd).is_ok()
        }
        None => false,
    };
    let tvm_missing = if python.is_none() {
        "not installed"
    } else if tvm_ok {
        "–"
    } else {
        "failed"
    };

    // The table.
    let by_key = |rows: Vec<Vec<String>>, engine: &str| -> BTreeMap<String, (f64, f64)> {
        rows.into_iter()
            .filter(|r| r.first().map(String::as_str) == Some(engine))
            .filter_map(|r| Some((r.get(1)?.clone(), (num(r.get(2))?, num(r.get(3))?))))
            .collect()
    };
    let wasmtime = by_key(rows(&out.join("cpu.tsv")), "wasmtime");
    let chrome_rows = rows(&out.join("chromium.tsv"));
    let chrome_version = chrome_rows
        .first()
        .and_then(|r| r.get(4))
        .cloned()
        .unwrap_or_default();
    let chrome = by_key(chrome_rows, "chromium");
    let tvm_rows = rows(&out.join("tvm_cpu.tsv"));
    let tvm_run: BTreeMap<String, f64> = tvm_rows
        .iter()
        .filter(|r| r.first().map(String::as_str) == Some("run"))
        .filter_map(|r| Some((r.get(1)?.clone(), num(r.get(2))?)))
        .collect();
    let chrome_missing = chromium_note.as_deref().unwrap_or("–");
    let mut s = format!(
        "### CPU: f32 matmul {n}×{n}×{n}, one thread, GFLOPS\n\n\
         wasm32 + SIMD128. \"LLVM\" is the same loop nest in Rust compiled by rustc/LLVM to \
         wasm32+simd128 (the LLVM limit), run in the same engine; TVM is Apache TVM 0.27's \
         native `llvm` build of the same schedule (x86-64, TVM_NUM_THREADS=1).\n\n\
         | schedule | wasmtime: Tessel | wasmtime: LLVM | Tessel/LLVM | Chromium{}: Tessel | Chromium: LLVM | Tessel/LLVM | TVM 0.27 llvm (native) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
        if chrome_version.is_empty() {
            String::new()
        } else {
            format!(" ({chrome_version})")
        }
    );
    for (key, label) in [
        ("a", "(a) no schedule"),
        ("b", "(b) seeds' blocking"),
        ("c", "(c) hand schedule"),
        ("d", "(c) + relaxed FMA (LLVM: (c) without)"),
        ("t", "(t) tuned (LLVM: (c))"),
    ] {
        let w = wasmtime.get(key).copied();
        if key == "t" && w.is_none() {
            // Only with BENCH_TUNE_TRIALS or BENCH_TUNED_TRACE.
            continue;
        }
        let c = chrome.get(key).copied();
        s.push_str(&format!(
            "| {label} | {} | {} | {} | {} | {} | {} | {} |\n",
            gf(w.map(|x| x.0), "–"),
            gf(w.map(|x| x.1), "–"),
            ratio(w.map(|x| x.0), w.map(|x| x.1)),
            gf(c.map(|x| x.0), chrome_missing),
            gf(c.map(|x| x.1), chrome_missing),
            ratio(c.map(|x| x.0), c.map(|x| x.1)),
            gf(tvm_run.get(key).copied(), tvm_missing),
        ));
    }

    let peaks = by_key(rows(&out.join("cpu.tsv")), "peak");
    if let (Some(ma), Some(fma)) = (peaks.get("muladd"), peaks.get("fma")) {
        s.push_str(&format!(
            "\nThe f32x4 arithmetic peak of wasmtime on this machine, one thread (independent \
             chains, no memory): {:.1} GFLOPS as mul + add, {:.1} GFLOPS as relaxed FMA.\n",
            ma.0, fma.0
        ));
    }

    // All cores: the variants with `parallel`, on every thread the machine
    // has, against their one-thread runs above.
    let threads = wasmtime
        .keys()
        .chain(chrome.keys())
        .filter_map(|k| k.get(1..).and_then(|t| t.parse::<u32>().ok()))
        .max();
    if let Some(t) = threads {
        s.push_str(&format!(
            "\n### CPU: the same on {t} threads, GFLOPS\n\n\
             The parallel loop of each schedule split into {t} static chunks, one per thread: \
             Tessel's modules over a shared memory (a thread pool in wasmtime, Web Workers in \
             Chromium), the LLVM kernels' outer loop launched the same way. \"×1\" is the speed-up \
             over the one-thread row above.\n\n\
             | schedule | wasmtime: Tessel | ×1 | wasmtime: LLVM | ×1 | Tessel/LLVM | Chromium: Tessel | ×1 | Chromium: LLVM | ×1 | Tessel/LLVM |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        ));
        for (key, label) in [
            ("b", "(b) seeds' blocking + parallel (In[46])"),
            ("c", "(c) hand schedule"),
            ("d", "(c) + relaxed FMA (LLVM: (c) without)"),
        ] {
            let many = format!("{key}{t}");
            let (w1, wn) = (wasmtime.get(key).copied(), wasmtime.get(&many).copied());
            let (c1, cn) = (chrome.get(key).copied(), chrome.get(&many).copied());
            s.push_str(&format!(
                "| {label} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                gf(wn.map(|x| x.0), "–"),
                ratio(wn.map(|x| x.0), w1.map(|x| x.0)),
                gf(wn.map(|x| x.1), "–"),
                ratio(wn.map(|x| x.1), w1.map(|x| x.1)),
                ratio(wn.map(|x| x.0), wn.map(|x| x.1)),
                gf(cn.map(|x| x.0), chrome_missing),
                ratio(cn.map(|x| x.0), c1.map(|x| x.0)),
                gf(cn.map(|x| x.1), chrome_missing),
                ratio(cn.map(|x| x.1), c1.map(|x| x.1)),
                ratio(cn.map(|x| x.0), cn.map(|x| x.1)),
            ));
        }
    }

    // Compile times.
    let tvm_compile: BTreeMap<String, f64> = tvm_rows
        .iter()
        .filter(|r| r.first().map(String::as_str) == Some("compile"))
        .filter_map(|r| Some((r.get(1)?.clone(), num(r.get(2))?)))
        .collect();
    s.push_str(
        "\nCompile time, ms: Tessel = parse → schedule → lower → emit wasm (+ validate), \
         in-process, median of 20; TVM = `tvm.compile(mod, target=\"llvm\")` of the \
         scheduled module, median of 5 (2 with --quick).\n\n\
         | program | Tessel | TVM 0.27 | TVM/Tessel |\n|---|---:|---:|---:|\n",
    );
    for r in rows(&out.join("compile.tsv")) {
        let (Some(label), ours) = (r.first(), num(r.get(1))) else {
            continue;
        };
        let theirs = tvm_compile.get(label).copied();
        s.push_str(&format!(
            "| {label} | {} | {} | {} |\n",
            ours.map_or("–".into(), |v| format!("{v:.2}")),
            theirs.map_or(tvm_missing.to_string(), |v| format!("{v:.0}")),
            match (theirs, ours) {
                (Some(t), Some(o)) if o > 0.0 => format!("{:.0}×", t / o),
                _ => "–".into(),
            }
        ));
    }
    // Tuning.
    for r in rows(&out.join("tuning.tsv")) {
        match r.first().map(String::as_str) {
            Some("book_128_64_trials") => {
                if let Some(secs) = num(r.get(1)) {
                    s.push_str(&format!(
                        "\nTuning: the book's ch.4 §4.5 tuning (128³ `MyModule`, 64 trials of the \
                         default space, wasmtime, one thread) took {secs:.2} s end to end \
                         (goal: under 10 s).\n"
                    ));
                }
            }
            Some("cpu_matmul") => {
                s.push_str(&format!(
                    "\nTuning the {}³ matmul (row (t) above): {}\n",
                    r.get(1).map_or("?", String::as_str),
                    r.get(2).map_or("", String::as_str)
                ));
            }
            _ => {}
        }
    }
    s.push_str(&workloads_table(out));
    s.push('\n');
    Ok(s)
}

/// The tuner on the other CPU workloads (`benches/workloads.rs`): GFLOPS of
/// the untuned program, the hand schedule and the tuned program, one run.
fn workloads_table(out: &Path) -> String {
    let rows = rows(&out.join("workloads.tsv"));
    let Some(trials) = rows.first().and_then(|r| r.get(6)) else {
        return String::new();
    };
    let mut s = format!(
        "\nTuning the course's other workloads ({trials} trials each, wasmtime, one thread; GFLOPS):\n\n\
         | workload | untuned | hand schedule | tuned | tuned / untuned | tuned / hand | tuning time |\n\
         |---|---:|---:|---:|---:|---:|---:|\n"
    );
    for r in &rows {
        let (untuned, hand, tuned) = (num(r.get(3)), num(r.get(4)), num(r.get(5)));
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} s |\n",
            r.get(1).map_or("?", String::as_str),
            gf(untuned, "–"),
            gf(hand, "–"),
            gf(tuned, "–"),
            ratio(tuned, untuned),
            ratio(tuned, hand),
            r.get(7).map_or("?", String::as_str),
        ));
    }
    s
}

fn gpu(ctx: &Ctx, o: &Opts, n: usize, out: &Path, python: Option<&Path>) -> Result<String> {
    // TVM's WGSL: fresh from TVM when it is installed, else the committed file.
    let committed = ctx.root.join("tools/bench/data/tvm_wgsl.json");
    let mut source = "committed tools/bench/data/tvm_wgsl.json".to_string();
    let mut json = committed.clone();
    if let Some(py) = python {
        let fresh = out.join("tvm_wgsl.json");
        let mut cmd = ctx.cmd(&py.to_string_lossy());
        cmd.env("PYTHONDONTWRITEBYTECODE", "1")
            .arg("tools/bench/tvm_wgsl.py")
            .args(["--sizes", &n.to_string()])
            .arg("-o")
            .arg(&fresh);
        if ctx.run(&mut cmd).is_ok() {
            json = fresh;
            source = "generated now by tools/bench/tvm_wgsl.py".to_string();
        }
    }
    let mut cmd = ctx.cmd("cargo");
    cmd.args(["bench", "-p", "codegen-wgsl", "--bench", "matmul_gpu"])
        .env("BENCH_OUT", out)
        .env("BENCH_N", n.to_string())
        .env("BENCH_REPEAT", if o.quick { "3" } else { "5" })
        .env("BENCH_TVM_WGSL", &json);
    ctx.run(&mut cmd)?;
    let rows = rows(&out.join("gpu.tsv"));
    let adapter = rows
        .first()
        .and_then(|r| r.get(4))
        .cloned()
        .unwrap_or_else(|| "no WebGPU adapter".into());
    let timing = match rows.first().and_then(|r| r.get(5)).map(String::as_str) {
        Some("timestamps") => "GPU timestamp queries",
        Some(_) => "wall clock (no timestamp queries)",
        None => "–",
    };
    let mut s = format!(
        "### GPU: f32 matmul {n}×{n}×{n}, WGSL on {adapter}, GFLOPS\n\n\
         Both shaders run through one wgpu harness (`codegen-wgsl/benches/matmul_gpu.rs`): same \
         device, buffers and launch code, best of {} runs each, interleaved, timed by {timing}; both outputs are \
         checked against each other and f64 dot products. TVM's WGSL: \
         `tvm.compile(mod, target=Target(\"webgpu\", host=\"llvm\"))` of the same schedule \
         ({source}).\n\n\
         | schedule (book ch. 6.1) | Tessel | TVM 0.27 | Tessel/TVM |\n|---|---:|---:|---:|\n",
        if o.quick { 3 } else { 5 }
    );
    for r in &rows {
        let (ours, theirs) = (num(r.get(2)), num(r.get(3)));
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            r.first().map_or("?", |s| s.as_str()),
            gf(ours, "–"),
            gf(theirs, "–"),
            ratio(ours, theirs)
        ));
    }
    s.push('\n');
    Ok(s)
}

/// CPU model, cores and date, for the tables' caption.
fn machine() -> String {
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    format!("Machine: {cpu}, {cores} cores; {date}.")
}
