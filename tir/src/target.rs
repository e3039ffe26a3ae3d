//! The target layer: what a target is ([`Target`], parsed once from TVM's
//! spellings; [`TargetKind`] decides CPU or GPU), building a module for it
//! ([`Backend`], failing with a [`BuildError`]), and running and timing the result ([`Executable`],
//! with `time_evaluator` semantics). Everything that executes compiled code
//! goes through these traits: the script interpreter's `tvm.build`, the
//! CLI, the web worker, the benchmarks. The reference interpreter
//! ([`ReferenceBackend`]) is one implementation; `codegen-wasm` (CPU) and
//! `codegen-wgsl` (GPU) are the others, and [`RoutingBackend`] picks one by
//! target.
//!
//! Pure like the rest of the crate: a host passes in its clock ([`Host`]).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use crate::diag::Diagnostic;

use crate::eval::{CompiledFunc, EvalOptions, NDArray};
use crate::ir::IRModule;

/// What the interpreter needs from its host.
pub trait Host {
    /// Seconds since some fixed point (for `time.time()` and `time_evaluator`).
    fn now_seconds(&self) -> f64;
    /// Whether a device of this kind (`cpu`, `cuda`, `webgpu`…) is present.
    fn device_exists(&self, kind: &str) -> bool {
        kind == "cpu"
    }
    /// The text of a file the host keeps for scripts (a tuning database
    /// under `work_dir`); `None` when absent or the host keeps no files.
    fn read_text(&self, _path: &str) -> Option<String> {
        None
    }
    /// Stores a file for scripts; `Err` when the host keeps no files.
    fn write_text(&self, _path: &str, _text: &str) -> Result<(), String> {
        Err("this host keeps no files".to_string())
    }
}

/// A host without a clock: time stands still.
#[derive(Default)]
pub struct NoClock;

impl Host for NoClock {
    fn now_seconds(&self) -> f64 {
        0.0
    }
}

/// A deterministic clock for tests: every reading advances by `tick` seconds.
pub struct TickClock {
    now: Cell<f64>,
    pub tick: f64,
}

impl TickClock {
    pub fn new(tick: f64) -> TickClock {
        TickClock {
            now: Cell::new(0.0),
            tick,
        }
    }
}

impl Host for TickClock {
    fn now_seconds(&self) -> f64 {
        let t = self.now.get();
        self.now.set(t + self.tick);
        t
    }
}

/// The CPU target kinds: both compile to WebAssembly here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpuKind {
    Llvm,
    C,
}

/// The GPU target kinds: all compile to WGSL here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpuKind {
    Cuda,
    Nvptx,
    Metal,
    WebGpu,
    Vulkan,
    OpenCl,
    Rocm,
}

/// What a target's kernels run on. The one place that decides which of
/// TVM's kind names (and tags, `"nvidia/…"`) mean a CPU and which a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetKind {
    Cpu(CpuKind),
    Gpu(GpuKind),
}

impl TargetKind {
    /// Every kind, in TVM's spelling.
    pub const ALL: [TargetKind; 9] = [
        TargetKind::Cpu(CpuKind::Llvm),
        TargetKind::Cpu(CpuKind::C),
        TargetKind::Gpu(GpuKind::Cuda),
        TargetKind::Gpu(GpuKind::Nvptx),
        TargetKind::Gpu(GpuKind::Metal),
        TargetKind::Gpu(GpuKind::WebGpu),
        TargetKind::Gpu(GpuKind::Vulkan),
        TargetKind::Gpu(GpuKind::OpenCl),
        TargetKind::Gpu(GpuKind::Rocm),
    ];

    /// The kind from its TVM name (`"llvm"`, `"cuda"`); `None` when TVM
    /// defines no such kind here.
    pub fn from_name(name: &str) -> Option<TargetKind> {
        TargetKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind behind one of TVM's target tags (`"nvidia/tesla-p100"`,
    /// the book's ch. 6 target; `"apple/m1-gpu"`;
    /// `"raspberry-pi/4b-aarch64"`): the vendor decides, the model only
    /// tunes TVM's code generator.
    pub fn from_tag(tag: &str) -> Option<TargetKind> {
        let (vendor, model) = tag.split_once('/')?;
        if model.is_empty() {
            return None;
        }
        Some(match vendor {
            "nvidia" => TargetKind::Gpu(GpuKind::Cuda),
            "apple" if model.contains("gpu") => TargetKind::Gpu(GpuKind::Metal),
            "apple" | "raspberry-pi" | "aws" | "arm" | "intel" => TargetKind::Cpu(CpuKind::Llvm),
            _ => return None,
        })
    }

    /// TVM's name of the kind.
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::Cpu(CpuKind::Llvm) => "llvm",
            TargetKind::Cpu(CpuKind::C) => "c",
            TargetKind::Gpu(GpuKind::Cuda) => "cuda",
            TargetKind::Gpu(GpuKind::Nvptx) => "nvptx",
            TargetKind::Gpu(GpuKind::Metal) => "metal",
            TargetKind::Gpu(GpuKind::WebGpu) => "webgpu",
            TargetKind::Gpu(GpuKind::Vulkan) => "vulkan",
            TargetKind::Gpu(GpuKind::OpenCl) => "opencl",
            TargetKind::Gpu(GpuKind::Rocm) => "rocm",
        }
    }

    pub fn is_gpu(self) -> bool {
        matches!(self, TargetKind::Gpu(_))
    }
}

impl fmt::Display for TargetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a target's text does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetError {
    /// The first word names no kind or tag (`kind` is that word).
    UnknownKind { kind: String },
    /// A `-num-cores=` option whose value is not a positive integer
    /// (`option` is the option as written).
    BadCoreCount { option: String },
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetError::UnknownKind { kind } => write!(f, "Target kind \"{kind}\" is not defined"),
            TargetError::BadCoreCount { option } => {
                write!(f, "`{option}`: the core count must be a positive integer")
            }
        }
    }
}

impl std::error::Error for TargetError {}

/// The LLVM feature that asks for relaxed-SIMD multiply-adds (wasm's
/// `f32x4.relaxed_madd`).
pub const RELAXED_SIMD_ATTR: &str = "+relaxed-simd";

/// A build target, parsed once from TVM's spellings: `"llvm"`,
/// `"llvm -mcpu=generic -mattr=+simd128,+relaxed-simd"`,
/// `"llvm --num-cores=4"`, `"webgpu"`, `"cuda"`, tags (`"nvidia/…"`),
/// a dict's `"kind"`, `tvm.target.Target("webgpu", host="llvm")`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub kind: TargetKind,
    /// The target as written (what notes and messages quote).
    pub text: String,
    /// The other `-key=value` options (`mcpu`, `mtriple`, …) in order,
    /// keys without their dashes; a bare word has an empty value.
    pub attrs: Vec<(String, String)>,
    /// The features of `-mattr=` (`+simd128`, `+relaxed-simd`).
    pub mattr: Vec<String>,
    /// `-num-cores=N` / `--num-cores=N`: the threads the target may use.
    pub num_cores: Option<u32>,
    /// The host target of a device target (`Target("webgpu", host="llvm")`).
    pub host: Option<Box<Target>>,
}

impl Target {
    /// Parses a target string: its first word is a kind or a tag, the
    /// rest options.
    pub fn parse(text: &str) -> Result<Target, TargetError> {
        let text = text.trim();
        let mut words = text.split_whitespace();
        let head = words.next().unwrap_or("");
        let kind = TargetKind::from_name(head)
            .or_else(|| TargetKind::from_tag(head))
            .ok_or_else(|| TargetError::UnknownKind {
                kind: head.to_string(),
            })?;
        let mut target = Target::of_kind(kind);
        target.text = text.to_string();
        for word in words {
            let option = word.trim_start_matches('-');
            let (key, value) = option.split_once('=').unwrap_or((option, ""));
            match key {
                "mattr" => target.mattr.extend(
                    value
                        .split(',')
                        .map(str::trim)
                        .filter(|f| !f.is_empty())
                        .map(str::to_string),
                ),
                "num-cores" => {
                    let cores = value.parse::<u32>().ok().filter(|n| *n > 0);
                    target.num_cores = Some(cores.ok_or_else(|| TargetError::BadCoreCount {
                        option: word.to_string(),
                    })?);
                }
                _ => target.attrs.push((key.to_string(), value.to_string())),
            }
        }
        Ok(target)
    }

    /// A target of `kind` with no options (its text is the kind's name).
    pub fn of_kind(kind: TargetKind) -> Target {
        Target {
            kind,
            text: kind.name().to_string(),
            attrs: Vec::new(),
            mattr: Vec::new(),
            num_cores: None,
            host: None,
        }
    }

    /// `"llvm"`: the host CPU.
    pub fn llvm() -> Target {
        Target::of_kind(TargetKind::Cpu(CpuKind::Llvm))
    }

    /// This target with `host` as its host target.
    pub fn with_host(mut self, host: Target) -> Target {
        self.host = Some(Box::new(host));
        self
    }

    /// TVM's name of the target's kind (`"llvm"` for `"apple/m1"`).
    pub fn kind_name(&self) -> &'static str {
        self.kind.name()
    }

    /// Whether the target's kernels run on a GPU (`cuda`, `metal`,
    /// `webgpu`, …) rather than on the host CPU (`llvm`, `c`).
    pub fn is_gpu(&self) -> bool {
        self.kind.is_gpu()
    }

    /// Whether `-mattr=` asks for relaxed SIMD (`+relaxed-simd`): CPU
    /// builds then fuse multiply-adds where the engine has it.
    pub fn wants_relaxed_simd(&self) -> bool {
        self.mattr.iter().any(|f| f == RELAXED_SIMD_ATTR)
    }

    /// The value of option `-key=value` (`"mcpu"`), if given.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// What a host asks of a build besides the target: choices the target's
/// text cannot carry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// Fuse multiply-adds with relaxed SIMD even when the target does not
    /// ask for it (the playground's "CPU + FMA" backend). A backend whose
    /// engine lacks relaxed SIMD still builds without.
    pub relaxed_fma: bool,
    /// The most threads parallel loops may use: `Some(1)` runs them
    /// inline; `None` leaves it to the runtime.
    pub max_threads: Option<u32>,
}

/// The code generator that rejected a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compiler {
    /// The reference interpreter's compile step.
    Interpreter,
    /// The WebAssembly code generator.
    Wasm,
    /// The WGSL code generator, building for target kind `target`.
    Wgsl { target: String },
}

/// Why a build failed.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    /// A code generator rejected function `func` (`None`: the module as a
    /// whole), with the location in the source (boxed: errors stay small).
    Compile {
        compiler: Compiler,
        func: Option<String>,
        diagnostic: Box<Diagnostic>,
    },
    /// This host has not loaded the code generator for `kind` (the
    /// playground's first-load worker): the request belongs elsewhere.
    BackendNotLoaded { kind: TargetKind },
    /// The backend builds only GPU targets (`backend_is_gpu`) or only CPU
    /// ones, and `target` (as written) is the other kind.
    WrongTarget {
        backend_is_gpu: bool,
        target: String,
    },
    /// The compiled code did not load into its runtime.
    Load(String),
    /// Any other failure (a device that went away, a host's own reason).
    Failed(String),
}

impl BuildError {
    /// The location of the failure, for a compile error.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            BuildError::Compile { diagnostic, .. } => Some(diagnostic.as_ref()),
            _ => None,
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Compile {
                compiler,
                func: Some(func),
                diagnostic,
            } => match compiler {
                Compiler::Interpreter => write!(f, "cannot build `{func}`: {}", diagnostic.message),
                Compiler::Wasm => f.write_str(&diagnostic.message),
                Compiler::Wgsl { target } => {
                    write!(
                        f,
                        "cannot build `{func}` for {target}: {}",
                        diagnostic.message
                    )
                }
            },
            BuildError::Compile { diagnostic, .. } => f.write_str(&diagnostic.message),
            BuildError::BackendNotLoaded { kind } => write!(
                f,
                "the {} code generator is not loaded in this worker",
                if kind.is_gpu() { "GPU" } else { "CPU" }
            ),
            BuildError::WrongTarget {
                backend_is_gpu: true,
                target,
            } => write!(
                f,
                "the GPU backend builds GPU targets (webgpu, cuda, metal), not `{target}`"
            ),
            BuildError::WrongTarget { target, .. } => write!(
                f,
                "the wasm backend builds CPU targets (llvm, c), not `{target}`"
            ),
            BuildError::Load(m) | BuildError::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<String> for BuildError {
    fn from(m: String) -> BuildError {
        BuildError::Failed(m)
    }
}

/// Compiles modules for `tvm.build`, the CLI and the playground: the
/// reference interpreter here; the wasm (CPU, `codegen_wasm::backend`) and
/// WGSL (GPU, `codegen_wgsl::backend`) code generators plug in the same
/// way.
pub trait Backend {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError>;

    /// Whether this backend can build for `kind` here: `Err`
    /// ([`BuildError::BackendNotLoaded`]) where the code generator lives
    /// elsewhere (the playground's first-load worker, which then hands
    /// the request to the worker that has it). Asked before work that
    /// needs the full build (the tuner), without building anything.
    fn ensure_loaded(&self, _kind: TargetKind) -> Result<(), BuildError> {
        Ok(())
    }
}

/// Generated code of a device module (`rt_mod.imported_modules[i]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceModule {
    /// `type_key` of the module (`"webgpu"`, `"wasm"`).
    pub type_key: String,
    /// What `get_source()` returns (every kernel's code).
    pub source: String,
}

/// A built module.
pub trait Executable {
    fn function_names(&self) -> Vec<String>;
    /// Runs function `name` on `args` (one array per parameter, outputs
    /// written in place) within `step_budget` steps; returns the steps used.
    fn run(&self, name: &str, args: &mut [NDArray], step_budget: u64) -> Result<u64, String>;
    /// The host module's generated code (`rt_mod.get_source(fmt)`,
    /// `inspect_source()`): `Ok(None)` when the backend generates none (the
    /// reference interpreter); `fmt` is TVM's format argument (`""` for the
    /// default), `Err` for a format the backend cannot produce.
    fn source(&self, _fmt: &str) -> Result<Option<String>, String> {
        Ok(None)
    }
    /// The device modules (`rt_mod.imported_modules`): a GPU build's
    /// kernels. Empty for CPU builds.
    fn imported_modules(&self) -> Vec<SourceModule> {
        Vec::new()
    }
    /// The executable as its own type, for a host that built it with a
    /// backend it knows and wants what only that backend records (the
    /// wasm bytes, the WGSL kernels): `None` where the backend offers none.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// `time_evaluator`: runs `name` on `args` (outputs written in place)
    /// `repeat` times `number` calls, and returns the seconds per call of
    /// each repeat, measured on the device (GPU timestamps) or with
    /// `clock`. `None` when the backend has no timer of its own: the
    /// interpreter then times [`Executable::run`] with the host clock.
    fn time(
        &self,
        _name: &str,
        _args: &mut [NDArray],
        _number: u64,
        _repeat: u64,
        _clock: &dyn Host,
    ) -> Option<Result<Vec<f64>, String>> {
        None
    }
}

/// Routes each build by target: CPU targets (`llvm`, `c`) to `cpu`, GPU
/// targets (`cuda`, `metal`, `webgpu`, …) to `gpu` (what `tessel run`
/// uses, with the wasm and WGSL backends).
pub struct RoutingBackend {
    pub cpu: Rc<dyn Backend>,
    pub gpu: Rc<dyn Backend>,
}

impl Backend for RoutingBackend {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        if target.is_gpu() {
            self.gpu.build(module, target, options)
        } else {
            self.cpu.build(module, target, options)
        }
    }

    fn ensure_loaded(&self, kind: TargetKind) -> Result<(), BuildError> {
        if kind.is_gpu() {
            self.gpu.ensure_loaded(kind)
        } else {
            self.cpu.ensure_loaded(kind)
        }
    }
}

/// Runs every target with [`crate::eval`], the reference interpreter.
#[derive(Default)]
pub struct ReferenceBackend {
    /// Check block regions while running (slower; catches bad schedules).
    pub check_regions: bool,
}

struct ReferenceExecutable {
    module: IRModule,
    compiled: RefCell<HashMap<String, Rc<CompiledFunc>>>,
    check_regions: bool,
}

impl Backend for ReferenceBackend {
    fn build(
        &self,
        module: &IRModule,
        _target: &Target,
        _options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        let mut compiled = HashMap::new();
        for (name, f) in module.prim_funcs() {
            let c = CompiledFunc::new(f).map_err(|e| BuildError::Compile {
                compiler: Compiler::Interpreter,
                func: Some(name.to_string()),
                diagnostic: Box::new(e.to_diagnostic()),
            })?;
            compiled.insert(name.to_string(), Rc::new(c));
        }
        Ok(Rc::new(ReferenceExecutable {
            module: module.clone(),
            compiled: RefCell::new(compiled),
            check_regions: self.check_regions,
        }))
    }
}

impl Executable for ReferenceExecutable {
    fn function_names(&self) -> Vec<String> {
        self.module.names().map(str::to_string).collect()
    }
    fn run(&self, name: &str, args: &mut [NDArray], step_budget: u64) -> Result<u64, String> {
        let f = self
            .compiled
            .borrow()
            .get(name)
            .cloned()
            .ok_or_else(|| format!("the module has no function `{name}`"))?;
        let opts = EvalOptions {
            step_budget: Some(step_budget),
            check_regions: self.check_regions,
            ..EvalOptions::default()
        };
        let stats = f.run(args, &opts).map_err(|e| e.message)?;
        Ok(stats.steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;

    #[test]
    fn target_parses_each_spelling() {
        let llvm = Target::parse("llvm").unwrap();
        assert_eq!(llvm.kind, TargetKind::Cpu(CpuKind::Llvm));
        assert_eq!(llvm, Target::llvm());
        assert!(!llvm.is_gpu());

        let relaxed = Target::parse("llvm -mcpu=generic -mattr=+simd128,+relaxed-simd").unwrap();
        assert_eq!(relaxed.mattr, vec!["+simd128", "+relaxed-simd"]);
        assert!(relaxed.wants_relaxed_simd());
        assert_eq!(relaxed.attr("mcpu"), Some("generic"));
        assert_eq!(
            relaxed.text,
            "llvm -mcpu=generic -mattr=+simd128,+relaxed-simd"
        );
        assert!(!Target::parse("llvm -mattr=+simd128")
            .unwrap()
            .wants_relaxed_simd());

        for text in ["llvm --num-cores=4", "llvm -num-cores=4"] {
            assert_eq!(Target::parse(text).unwrap().num_cores, Some(4), "{text}");
        }
        assert_eq!(
            Target::parse("c").unwrap().kind,
            TargetKind::Cpu(CpuKind::C)
        );

        let webgpu = Target::parse("webgpu").unwrap();
        assert_eq!(webgpu.kind, TargetKind::Gpu(GpuKind::WebGpu));
        assert!(webgpu.is_gpu());
        let with_host = webgpu.clone().with_host(Target::llvm());
        assert_eq!(with_host.host.as_deref(), Some(&Target::llvm()));

        assert_eq!(
            Target::parse("cuda").unwrap().kind,
            TargetKind::Gpu(GpuKind::Cuda)
        );
        assert_eq!(
            Target::parse("nvidia/tesla-p100").unwrap().kind,
            TargetKind::Gpu(GpuKind::Cuda)
        );
        assert_eq!(Target::parse("apple/m1-gpu").unwrap().kind_name(), "metal");
        assert_eq!(
            Target::parse("raspberry-pi/4b-aarch64")
                .unwrap()
                .kind_name(),
            "llvm"
        );
        for kind in TargetKind::ALL {
            assert_eq!(Target::parse(kind.name()).unwrap().kind, kind);
        }
    }

    #[test]
    fn target_parse_errors_are_typed() {
        assert_eq!(
            Target::parse("hexagon -mcpu=v68"),
            Err(TargetError::UnknownKind {
                kind: "hexagon".into()
            })
        );
        assert_eq!(
            Target::parse("nvidia/").unwrap_err().to_string(),
            "Target kind \"nvidia/\" is not defined"
        );
        assert_eq!(
            Target::parse("llvm --num-cores=0"),
            Err(TargetError::BadCoreCount {
                option: "--num-cores=0".into()
            })
        );
    }

    #[test]
    fn build_errors_read_as_before() {
        let not_loaded = BuildError::BackendNotLoaded {
            kind: TargetKind::Cpu(CpuKind::Llvm),
        };
        assert_eq!(
            not_loaded.to_string(),
            "the CPU code generator is not loaded in this worker"
        );
        let gpu = BuildError::Compile {
            compiler: Compiler::Wgsl {
                target: "cuda".into(),
            },
            func: Some("main".into()),
            diagnostic: Box::new(Diagnostic::error("no thread binding", Span::new(3, 9))),
        };
        assert_eq!(
            gpu.to_string(),
            "cannot build `main` for cuda: no thread binding"
        );
        assert_eq!(gpu.diagnostic().map(|d| d.span), Some(Span::new(3, 9)));
        let wrong = BuildError::WrongTarget {
            backend_is_gpu: false,
            target: "cuda".into(),
        };
        assert_eq!(
            wrong.to_string(),
            "the wasm backend builds CPU targets (llvm, c), not `cuda`"
        );
    }

    #[test]
    fn routing_sends_gpu_targets_to_the_gpu_backend() {
        struct NotHere;
        impl Backend for NotHere {
            fn build(
                &self,
                _: &IRModule,
                target: &Target,
                _: &BuildOptions,
            ) -> Result<Rc<dyn Executable>, BuildError> {
                Err(BuildError::BackendNotLoaded { kind: target.kind })
            }
        }
        let routing = RoutingBackend {
            cpu: Rc::new(ReferenceBackend::default()),
            gpu: Rc::new(NotHere),
        };
        let empty = IRModule::new();
        let options = BuildOptions::default();
        assert!(routing.build(&empty, &Target::llvm(), &options).is_ok());
        let cuda = Target::parse("cuda").unwrap();
        assert!(matches!(
            routing.build(&empty, &cuda, &options),
            Err(BuildError::BackendNotLoaded { kind }) if kind.is_gpu()
        ));
    }
}
