//! The target layer: what a target is ([`TargetSpec`]), building a module
//! for it ([`Backend`]), and running and timing the result ([`Executable`],
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
use std::rc::Rc;

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

/// A parsed build target (`"llvm -mcpu=…"`, `{"kind": "cuda"}`, `tvm.target.Target`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetSpec {
    /// `llvm`, `c`, `cuda`, `webgpu`, `metal`, …
    pub kind: String,
    /// The target as written.
    pub text: String,
}

impl TargetSpec {
    /// A target from its kind alone (`"llvm"`, `"webgpu"`).
    pub fn new(kind: &str) -> TargetSpec {
        TargetSpec {
            kind: kind.to_string(),
            text: kind.to_string(),
        }
    }
    /// Whether the target's kernels run on a GPU (`cuda`, `metal`,
    /// `webgpu`, …) rather than on the host CPU (`llvm`, `c`).
    pub fn is_gpu(&self) -> bool {
        matches!(
            self.kind.as_str(),
            "cuda" | "nvptx" | "metal" | "webgpu" | "vulkan" | "opencl" | "rocm"
        )
    }
}

/// Compiles modules for `tvm.build`: the reference interpreter here; the
/// wasm (CPU, `codegen_wasm::backend`) and WGSL (GPU,
/// `codegen_wgsl::backend`) code generators plug in the same way.
pub trait Backend {
    fn build(&self, module: &IRModule, target: &TargetSpec) -> Result<Rc<dyn Executable>, String>;
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
    fn build(&self, module: &IRModule, target: &TargetSpec) -> Result<Rc<dyn Executable>, String> {
        if target.is_gpu() {
            self.gpu.build(module, target)
        } else {
            self.cpu.build(module, target)
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
    fn build(&self, module: &IRModule, _target: &TargetSpec) -> Result<Rc<dyn Executable>, String> {
        let mut compiled = HashMap::new();
        for (name, f) in module.prim_funcs() {
            let c = CompiledFunc::new(f).map_err(|e| format!("cannot build `{name}`: {e}"))?;
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
