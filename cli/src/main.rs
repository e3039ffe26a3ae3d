//! `tessel`: the command-line face of the compiler.
//!
//! - `tessel fmt FILE` prints the canonical TVMScript form of FILE.
//! - `tessel check FILE` verifies FILE and prints spanned diagnostics.
//! - `tessel eval FILE` runs a function on seeded random inputs.
//! - `tessel run SCRIPT.py` runs a Python script (a notebook's cells) with
//!   Tessel's interpreter; `--notebook` also shows each cell's last value.
//!   `tvm.build`/`tvm.compile` compile CPU targets to wasm (run on wasmtime)
//!   and GPU targets to WGSL (run on wgpu; on the reference interpreter,
//!   after one note, when there is no adapter); `--backend reference` runs
//!   every target on the reference interpreter instead.
//! - `tessel tune FILE` auto-tunes a function (`--target wasm|webgpu`,
//!   `--trials N`, `--work-dir DIR` keeps the records) and prints the best
//!   schedule's trace.
//! - `tessel build FILE` compiles every function to one WebAssembly module
//!   (`--wat` prints its text, `--lowered` the lowered TIR and lowering
//!   notes, `-o` writes the binary; `--schedule` applies schedule text first).
//! - `tessel exercise list|check|catalogue`: course exercises (see `exercise`).
//!
//! Exit codes: 0 success, 1 the input has errors (diagnostics printed) or
//! the script raised an uncaught exception (traceback on stderr), 2 usage or
//! I/O errors.

mod exercise;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::rc::Rc;

use clap::{Parser, Subcommand, ValueEnum};
use compiler_core::diag::{render, Diagnostic};
use compiler_core::ir::IRModule;
// The target layer (`tvm.build` backends, the clock) and the script's
// limits and output streams.
use compiler_core::target::{
    Backend, BuildError, BuildOptions, Executable, GpuKind, Host, ReferenceBackend, RoutingBackend,
    Target, TargetKind,
};
use compiler_core::tvmscript::builder::{Item, ParsedScript};
// Scripts are parsed, checked, scheduled and run through the session
// driver, the same path as the playground's.
use compiler_core::tvmscript::printer::{
    print_graph_func, print_module, print_prim_func, Dialect, PrintOptions,
};
use tessel_session::{
    apply_schedule, run_python, tvmscript, ApplyScheduleError, CellMode, OutputSink, ScriptEnv,
};

#[derive(Parser)]
#[command(
    name = "tessel",
    version,
    about = "Tessel: a tensor-program compiler playground"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum DialectArg {
    /// `T.block` with `from tvm.script import tir` (the course book).
    Block,
    /// `T.sblock` with `from tvm.script import tir`.
    Sblock,
    /// TVM 0.27: `tirx`, `T.sblock`, `@T.prim_func(s_tir=True)`.
    Tirx,
}

#[derive(Subcommand)]
enum Command {
    /// Print the canonical form of a TVMScript file.
    Fmt {
        file: PathBuf,
        /// Print in this dialect instead of the input's own.
        #[arg(long, value_enum)]
        dialect: Option<DialectArg>,
    },
    /// Verify a TVMScript file; exit 1 with diagnostics if it has errors.
    Check { file: PathBuf },
    /// Run a function with the reference interpreter on seeded random inputs
    /// and print every argument afterwards (outputs are written in place).
    Eval {
        file: PathBuf,
        /// The function to run (default: `main`, or the only function).
        #[arg(long)]
        func: Option<String>,
        /// Seed of the random inputs.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print a checksum per argument instead of the values.
        #[arg(long)]
        checksum: bool,
        /// Values for symbolic sizes and scalar parameters, e.g. `--size n=64`.
        #[arg(long = "size", value_parser = parse_size)]
        sizes: Vec<(String, i64)>,
    },
    /// Run a Python script with Tessel's sandboxed interpreter.
    Run {
        file: PathBuf,
        /// Split the script into cells at `# %%` / `# In[...]` lines and show
        /// each cell's last expression, like a notebook.
        #[arg(long)]
        notebook: bool,
        /// Step budget per cell.
        #[arg(long)]
        steps: Option<u64>,
        /// Memory budget in MiB.
        #[arg(long)]
        memory_mib: Option<u64>,
        /// What `tvm.build` / `tvm.compile` run on: `native` compiles CPU
        /// targets to wasm (wasmtime) and GPU targets to WGSL (wgpu);
        /// `reference` runs every target on the reference interpreter.
        #[arg(long, value_enum, default_value = "native")]
        backend: BackendArg,
    },
    /// Auto-tune a TVMScript file's function (MetaSchedule's default space,
    /// measured on the real backend) and print the best schedule's trace;
    /// progress and the task table go to stderr.
    Tune {
        file: PathBuf,
        /// What to tune for.
        #[arg(long, value_enum, default_value = "wasm")]
        target: TuneTargetArg,
        /// Measurements in all (`max_trials_global`).
        #[arg(long, default_value_t = 64)]
        trials: usize,
        /// Measurements per search round (`num_trials_per_iter`).
        #[arg(long, default_value_t = 64)]
        trials_per_iter: usize,
        /// Where the tuning database lives; a second tuning starts from it.
        #[arg(long)]
        work_dir: Option<PathBuf>,
        /// The function to tune (default: the only one).
        #[arg(long)]
        func: Option<String>,
        /// Seed of the search.
        #[arg(long, default_value_t = 42)]
        seed: u64,
    },
    /// Compile every function to one WebAssembly module (CPU backend) and
    /// print a summary of its kernels.
    Build {
        file: PathBuf,
        /// Schedule text to apply first (`sch.split(...)` lines, or a trace).
        #[arg(long)]
        schedule: Option<PathBuf>,
        /// Print the module in the text format.
        #[arg(long)]
        wat: bool,
        /// Print the lowered TIR and the lowering notes.
        #[arg(long)]
        lowered: bool,
        /// Write the binary module here.
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        /// What to compile for.
        #[arg(long, value_enum, default_value = "wasm")]
        target: BuildTarget,
    },
    /// Course exercises: list them, grade an answer.
    #[command(subcommand)]
    Exercise(exercise::ExerciseCommand),
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TuneTargetArg {
    /// `llvm --num-cores=1`: WebAssembly on wasmtime.
    Wasm,
    /// `webgpu`: WGSL on wgpu (the reference interpreter without an adapter).
    Webgpu,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BackendArg {
    /// CPU targets → WebAssembly on wasmtime, GPU targets → WGSL on wgpu
    /// (the reference interpreter when the machine has no GPU adapter).
    Native,
    /// The reference interpreter for every target.
    Reference,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BuildTarget {
    /// One WebAssembly module (SIMD128) for the CPU.
    Wasm,
    /// WGSL compute shaders (one per kernel), validated by naga.
    Webgpu,
}

/// Stack of the thread scripts run on.
const SCRIPT_STACK: usize = 256 << 20;

/// The wall clock for `time.time()` and `time_evaluator`.
struct WallClock(std::time::Instant);

impl Host for WallClock {
    fn now_seconds(&self) -> f64 {
        self.0.elapsed().as_secs_f64()
    }
    // Scripts' files (`ms.tune_tir`'s database under `work_dir`), relative
    // to the working directory.
    fn read_text(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
    fn write_text(&self, path: &str, text: &str) -> Result<(), String> {
        if let Some(dir) = Path::new(path).parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))
    }
}

/// GPU targets for `tessel run`: the wgpu backend, created at the first GPU
/// build (CPU-only scripts never probe for an adapter); without an adapter
/// the reference interpreter runs them, after one note on stderr, and their
/// WGSL is still there for `get_source()`.
struct LazyGpu {
    cpu: Rc<dyn Backend>,
    gpu: std::cell::OnceCell<Rc<dyn Backend>>,
}

impl Backend for LazyGpu {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        let gpu = self
            .gpu
            .get_or_init(|| match codegen_wgsl::backend::GpuBackend::new() {
                Ok(Some(b)) => Rc::new(b.with_host(self.cpu.clone())),
                Ok(None) => {
                    eprintln!(
                        "tessel: note: no WebGPU adapter on this machine; GPU targets \
                         (`{}`) run on the reference interpreter",
                        target.kind_name()
                    );
                    reference_with_wgsl()
                }
                Err(e) => {
                    eprintln!(
                        "tessel: note: the GPU adapter failed ({e}); GPU targets run on the \
                         reference interpreter"
                    );
                    reference_with_wgsl()
                }
            });
        gpu.build(module, target, options)
    }
}

/// GPU builds without an adapter: the WGSL is still generated (so
/// `get_source()` and `imported_modules` work), the reference interpreter
/// runs them.
fn reference_with_wgsl() -> Rc<dyn Backend> {
    Rc::new(codegen_wgsl::source_only::SourceOnlyBackend::new(Rc::new(
        ReferenceBackend::default(),
    )))
}

/// The backend `tvm.build` uses in `tessel run`.
fn script_backend(which: BackendArg) -> Rc<dyn Backend> {
    match which {
        BackendArg::Reference => Rc::new(ReferenceBackend::default()),
        BackendArg::Native => {
            let cpu: Rc<dyn Backend> = Rc::new(codegen_wasm::backend::WasmBackend::wasmtime());
            Rc::new(RoutingBackend {
                cpu: cpu.clone(),
                gpu: Rc::new(LazyGpu {
                    cpu,
                    gpu: Default::default(),
                }),
            })
        }
    }
}

fn run_script(
    file: &Path,
    notebook: bool,
    steps: Option<u64>,
    memory_mib: Option<u64>,
    backend: BackendArg,
) -> ExitCode {
    use std::io::Write as _;
    use tessel_script::{Limits, Stream};
    let src = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tessel: cannot read {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let mut limits = Limits {
        // Scripts run on a thread with a big stack (see `main`).
        stack_bytes: SCRIPT_STACK as u64 * 3 / 4,
        ..Limits::default()
    };
    if let Some(s) = steps {
        limits.steps = s;
    }
    if let Some(m) = memory_mib {
        limits.memory = m << 20;
    }
    let env = ScriptEnv {
        host: Rc::new(WallClock(std::time::Instant::now())),
        backend: script_backend(backend),
        limits,
        take_notes: None,
    };
    // Stream output as it is produced.
    let stream: OutputSink = Box::new(|chunk| {
        if chunk.stream == Stream::Stderr {
            eprint!("{}", chunk.text);
        } else {
            print!("{}", chunk.text);
            let _ = std::io::stdout().flush();
        }
    });
    let mode = if notebook {
        CellMode::Notebook
    } else {
        CellMode::Script
    };
    let name = file.display().to_string();
    // Tracebacks reach stderr through the stream, where they happen; in a
    // notebook the later cells still run. Any failed cell fails the run.
    let run = run_python(&src, &env, &name, mode, Some(stream));
    let _ = std::io::stdout().flush();
    if run.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn parse_size(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s.split_once('=').ok_or("expected NAME=VALUE")?;
    let value = value
        .trim()
        .parse()
        .map_err(|_| format!("`{value}` is not an integer"))?;
    Ok((name.trim().to_string(), value))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Exercise(command) => exercise::run(command),
        Command::Run {
            file,
            notebook,
            steps,
            memory_mib,
            backend,
        } => {
            // Deep Python recursion is deep Rust recursion: give it room.
            let worker = std::thread::Builder::new()
                .stack_size(SCRIPT_STACK)
                .spawn(move || run_script(&file, notebook, steps, memory_mib, backend));
            match worker.map(|h| h.join()) {
                Ok(Ok(code)) => code,
                _ => {
                    eprintln!("tessel: the script runner failed");
                    ExitCode::from(2)
                }
            }
        }
        Command::Tune {
            file,
            target,
            trials,
            trials_per_iter,
            work_dir,
            func,
            seed,
        } => with_script(&file, |parsed, _src| {
            let opts = TuneOptions {
                target,
                trials,
                trials_per_iter,
                work_dir: work_dir.as_deref(),
                func: func.as_deref(),
                seed,
            };
            match tune_file(parsed.to_module(), &opts) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("tessel: {e}");
                    ExitCode::from(1)
                }
            }
        }),
        Command::Fmt { file, dialect } => with_script(&file, |parsed, _src| {
            let dialect = match dialect {
                Some(DialectArg::Block) => Dialect::Block,
                Some(DialectArg::Sblock) => Dialect::SBlock,
                Some(DialectArg::Tirx) => Dialect::Tirx,
                None => Dialect::from(parsed.dialect),
            };
            print!("{}", format_script(parsed, dialect));
            ExitCode::SUCCESS
        }),
        Command::Check { file } => with_script(&file, |parsed, src| {
            let diags = tvmscript::check(parsed);
            report(&diags, src, &file);
            if diags.iter().any(Diagnostic::is_error) {
                ExitCode::from(1)
            } else {
                println!("{}: ok", file.display());
                ExitCode::SUCCESS
            }
        }),
        Command::Eval {
            file,
            func,
            seed,
            checksum,
            sizes,
        } => with_script(&file, |parsed, src| {
            match eval(
                parsed,
                func.as_deref(),
                seed,
                checksum,
                &sizes.into_iter().collect(),
            ) {
                Ok(out) => {
                    print!("{out}");
                    ExitCode::SUCCESS
                }
                Err(d) => {
                    report(&[d], src, &file);
                    ExitCode::from(1)
                }
            }
        }),
        Command::Build {
            file,
            schedule,
            target: BuildTarget::Webgpu,
            ..
        } => with_script(&file, |parsed, src| {
            let mut module = parsed.to_module();
            if let Some(path) = schedule.as_deref() {
                match apply_schedule_file(module, path) {
                    Ok(m) => module = m,
                    Err(code) => return code,
                }
            }
            let webgpu = Target::of_kind(TargetKind::Gpu(GpuKind::WebGpu));
            let built = codegen_wgsl::source_only::WgslBackend::default().build(
                &module,
                &webgpu,
                &BuildOptions::default(),
            );
            let wgsl = built.as_ref().map(|exec| {
                exec.as_any()
                    .and_then(|a| a.downcast_ref::<codegen_wgsl::source_only::WgslExecutable>())
                    .map_or(&[][..], |w| &w.funcs[..])
            });
            match wgsl {
                Ok(funcs) => {
                    for f in funcs {
                        for n in &f.report.notes {
                            println!("// note: {n}");
                        }
                        print!("{}", f.wgsl());
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => build_failed(e, src, &file),
            }
        }),
        Command::Build {
            file,
            schedule,
            wat,
            lowered,
            output,
            target: BuildTarget::Wasm,
        } => with_script(&file, |parsed, src| {
            build(
                parsed,
                src,
                &file,
                schedule.as_deref(),
                wat,
                lowered,
                output.as_deref(),
            )
        }),
    }
}

/// `tessel tune`'s settings.
struct TuneOptions<'a> {
    target: TuneTargetArg,
    trials: usize,
    trials_per_iter: usize,
    work_dir: Option<&'a Path>,
    func: Option<&'a str>,
    seed: u64,
}

/// `tessel tune`: tunes one function, keeps the records under `work_dir`,
/// prints the best trace (stdout) and the untuned and tuned speeds (stderr).
fn tune_file(module: IRModule, opts: &TuneOptions) -> Result<(), String> {
    use tessel_tune::{
        tune, Database, Runner, SearchConfig, SpaceGenerator, TuneSession, TuneTarget, Workload,
    };
    let names: Vec<String> = module.prim_funcs().map(|(n, _)| n.to_string()).collect();
    let name = match (opts.func, names.as_slice()) {
        (Some(f), _) if names.iter().any(|n| n == f) => f.to_string(),
        (Some(f), _) => {
            return Err(format!(
                "the file has no function `{f}` (it has: {})",
                names.join(", ")
            ))
        }
        (None, [only]) => only.clone(),
        (None, _) => {
            return Err(format!(
                "the file has several functions ({}): choose one with --func",
                names.join(", ")
            ))
        }
    };
    let mut single = IRModule::new();
    if let Some(f) = module.get_prim(&name) {
        single.insert(name.clone(), compiler_core::ir::BaseFunc::Prim(f.clone()));
    }
    let target_text = match opts.target {
        TuneTargetArg::Wasm => "llvm --num-cores=1",
        TuneTargetArg::Webgpu => "webgpu",
    };
    let target = TuneTarget::parse(target_text).map_err(|e| e.to_string())?;
    let workload = Workload::new(single.clone()).map_err(|e| e.to_string())?;
    let files = opts.work_dir.map(|d| {
        (
            d.join("database_workload.json"),
            d.join("database_tuning_record.json"),
        )
    });
    let database = match &files {
        Some((w, r)) if w.exists() && r.exists() => {
            let read =
                |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
            Database::from_json(&read(w)?, &read(r)?).map_err(|e| e.to_string())?
        }
        _ => Database::new(),
    };
    let mut config = SearchConfig::new(opts.trials, opts.trials_per_iter);
    config.seed = opts.seed;
    let mut space = SpaceGenerator::post_order_apply(&target);
    let started = std::time::Instant::now();
    let mut session = TuneSession::new(
        workload.clone(),
        target.clone(),
        &mut space,
        database,
        config,
    )
    .map_err(|e| e.to_string())?;
    let backend = script_backend(BackendArg::Native);
    let clock = WallClock(std::time::Instant::now());
    let mut runner =
        Runner::new(&*backend, &clock, &workload, &target).map_err(|e| e.to_string())?;
    let report = tune(&mut session, &mut runner, &mut |line| {
        eprintln!("[INFO] {line}")
    });
    let elapsed = started.elapsed().as_secs_f64();
    let db = session.into_database();
    if let Some((w, r)) = &files {
        if let Some(dir) = w.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(w, db.workloads_json()).map_err(|e| format!("{}: {e}", w.display()))?;
        std::fs::write(r, db.records_json()).map_err(|e| format!("{}: {e}", r.display()))?;
    }
    let report = report.map_err(|e| e.to_string())?;
    let untuned = runner.measure(&single).mean_seconds();
    let gflops = |s: f64| workload.flops / s / 1e9;
    eprintln!("tuned {} trials in {elapsed:.2} s", report.trials);
    match untuned {
        Some(u) => eprintln!(
            "untuned: {:.1} us ({:.2} GFLOPS); tuned: {:.1} us ({:.2} GFLOPS); {:.2}x",
            u * 1e6,
            gflops(u),
            report.best_seconds * 1e6,
            gflops(report.best_seconds),
            u / report.best_seconds
        ),
        None => eprintln!(
            "tuned: {:.1} us ({:.2} GFLOPS)",
            report.best_seconds * 1e6,
            gflops(report.best_seconds)
        ),
    }
    print!("{}", report.best.trace().python(report.best.dialect));
    Ok(())
}

/// Applies schedule text (`sch.split(...)` lines or a trace) from `path`,
/// through the session driver (the playground's schedule path).
fn apply_schedule_file(module: IRModule, path: &Path) -> Result<IRModule, ExitCode> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tessel: cannot read {}: {e}", path.display());
            return Err(ExitCode::from(2));
        }
    };
    match apply_schedule(module, &text) {
        Ok(sch) => Ok(sch.module().clone()),
        Err(ApplyScheduleError::Module(e)) => {
            eprintln!("tessel: {e}");
            Err(ExitCode::from(1))
        }
        Err(ApplyScheduleError::Schedule(d)) => {
            report(&[d], &text, path);
            Err(ExitCode::from(1))
        }
    }
}

/// `tessel build`: schedule (optional), lower, emit; print what was asked.
fn build(
    parsed: &ParsedScript,
    src: &str,
    file: &Path,
    schedule: Option<&Path>,
    wat: bool,
    lowered: bool,
    output: Option<&Path>,
) -> ExitCode {
    let mut module = parsed.to_module();
    if let Some(path) = schedule {
        match apply_schedule_file(module, path) {
            Ok(m) => module = m,
            Err(code) => return code,
        }
    }
    let exec = match codegen_wasm::backend::WasmBackend::compile_only().build(
        &module,
        &Target::llvm(),
        &BuildOptions::default(),
    ) {
        Ok(exec) => exec,
        Err(e) => return build_failed(&e, src, file),
    };
    let Some(built) = exec
        .as_any()
        .and_then(|a| a.downcast_ref::<codegen_wasm::backend::WasmExecutable>())
        .map(codegen_wasm::backend::WasmExecutable::module)
    else {
        eprintln!("tessel: the wasm backend built no wasm module");
        return ExitCode::from(1);
    };
    if lowered {
        let opts = PrintOptions::new(Dialect::from(parsed.dialect));
        println!("{}", print_module(&built.lowered.to_ir_module(), &opts));
        for n in built.lowered.report().notes {
            println!("# {n}");
        }
    }
    if wat {
        match built.wat() {
            Ok(t) => println!("{t}"),
            Err(e) => {
                eprintln!("tessel: {e}");
                return ExitCode::from(1);
            }
        }
    }
    if let Some(out) = output {
        if let Err(e) = std::fs::write(out, built.bytes()) {
            eprintln!("tessel: cannot write {}: {e}", out.display());
            return ExitCode::from(2);
        }
    }
    if !wat && !lowered {
        println!("{} bytes, validated", built.bytes().len());
        for k in &built.kernels {
            let params: Vec<String> = k
                .params
                .iter()
                .map(|p| match p {
                    codegen_wasm::ParamInfo::Buffer { name, dtype, shape } => {
                        let dims: Vec<String> = shape
                            .iter()
                            .map(|d| d.map_or("?".to_string(), |v| v.to_string()))
                            .collect();
                        format!("{name}: {dtype}[{}]", dims.join(", "))
                    }
                    codegen_wasm::ParamInfo::Scalar { name, dtype } => format!("{name}: {dtype}"),
                    codegen_wasm::ParamInfo::Size { name, dtype, .. } => {
                        format!("{name}: {dtype} (size)")
                    }
                })
                .collect();
            let stack = k
                .workspace_bytes
                .map_or("dynamic".to_string(), |b| format!("{b} bytes"));
            println!("kernel {}({}), stack {stack}", k.name, params.join(", "));
        }
        for n in built.lowered.report().notes {
            println!("note: {n}");
        }
    }
    ExitCode::SUCCESS
}

/// Reports a failed build: at its location when it has one.
fn build_failed(e: &BuildError, src: &str, file: &Path) -> ExitCode {
    match e.diagnostic() {
        Some(d) => report(std::slice::from_ref(d), src, file),
        None => eprintln!("tessel: {e}"),
    }
    ExitCode::from(1)
}

/// Runs one function of the script on random inputs; the printed arguments.
fn eval(
    parsed: &ParsedScript,
    func: Option<&str>,
    seed: u64,
    checksum: bool,
    sizes: &std::collections::HashMap<String, i64>,
) -> Result<String, Diagnostic> {
    use compiler_core::eval::{random_inputs, run_prim_func, EvalOptions};
    let module = parsed.to_module();
    let names: Vec<&str> = module.prim_funcs().map(|(n, _)| n).collect();
    let name = match func {
        Some(f) => f.to_string(),
        None if names.contains(&"main") => "main".to_string(),
        None if names.len() == 1 => names[0].to_string(),
        None => {
            return Err(Diagnostic::error(
                format!(
                    "the script has several functions ({}); choose one with --func",
                    names.join(", ")
                ),
                Default::default(),
            ))
        }
    };
    let f = module.get_prim(&name).ok_or_else(|| {
        Diagnostic::error(
            format!("no function `{name}` (have: {})", names.join(", ")),
            Default::default(),
        )
    })?;
    let mut args = random_inputs(f, seed, sizes).map_err(|e| e.to_diagnostic())?;
    run_prim_func(f, &mut args, &EvalOptions::default()).map_err(|e| e.to_diagnostic())?;
    let mut out = String::new();
    for (param, arr) in f.params.iter().zip(&args) {
        let label = f
            .param_buffer(param)
            .map(|b| b.name.clone())
            .unwrap_or_else(|| param.name().to_string());
        let shape: Vec<String> = arr.shape().iter().map(|d| d.to_string()).collect();
        if checksum {
            out.push_str(&format!(
                "{label}: {}[{}] {}\n",
                arr.dtype(),
                shape.join(", "),
                arr.checksum()
            ));
        } else {
            out.push_str(&format!(
                "{label}: {}[{}]\n{arr}\n",
                arr.dtype(),
                shape.join(", ")
            ));
        }
    }
    Ok(out)
}

/// Every item of the script in canonical form, separated by blank lines.
fn format_script(parsed: &ParsedScript, dialect: Dialect) -> String {
    let opts = PrintOptions::new(dialect);
    let mut out = String::new();
    for (i, item) in parsed.items.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match item {
            Item::Module { module, .. } => out.push_str(&print_module(module, &opts)),
            Item::PrimFunc { name, func } => out.push_str(&print_prim_func(func, name, &opts)),
            Item::GraphFunc { name, func } => out.push_str(&print_graph_func(func, name, &opts)),
        }
    }
    out
}

/// Reads and parses `file`, then runs `f`; parse errors are reported with exit code 1.
fn with_script(file: &Path, f: impl FnOnce(&ParsedScript, &str) -> ExitCode) -> ExitCode {
    let src = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tessel: cannot read {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    match tvmscript::parse(&src) {
        Ok(parsed) => f(&parsed, &src),
        Err(d) => {
            report(&[d], &src, file);
            ExitCode::from(1)
        }
    }
}

fn report(diags: &[Diagnostic], src: &str, file: &Path) {
    for d in diags {
        eprint!("{}", render(d, src, &file.display().to_string()));
    }
}
