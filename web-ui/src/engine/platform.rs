//! What the host gives the engine (its [`Platform`]: the wasm runtime, the
//! clock, scripts' `tvm.build`), and the `tvm.build` backends of Python
//! scripts: the reference interpreter where the code generators are not
//! loaded, the CPU and GPU backends where they are.

use std::rc::Rc;

use compiler_core::ir::{BaseFunc, IRModule};
use compiler_core::target::{
    Backend, BuildError, BuildOptions, Executable, Host, NoClock, ReferenceBackend, Target,
    TargetKind,
};
use tessel_session::ScriptEnv;

use codegen_wasm::backend::{RuntimeFactory, WasmBackend};
use codegen_wgsl::source_only::{KernelRunner, SourceOnlyBackend};

/// What the host provides to the engine besides a clock: a way to run
/// generated wasm (the browser's `WebAssembly` API in the worker, wasmi in
/// native tests), the backend behind scripts' `tvm.build` and the clock of
/// Python scripts. Set once per thread by the host ([`set_platform`]);
/// without one, the CPU backend reports that it is unavailable and
/// scripts' `tvm.build` uses the reference interpreter.
///
/// The playground's first worker has no code generators (they are most of
/// its size): its `scripts` come from [`deferred_scripts`], so a script
/// that builds for the CPU marks that it needs them instead of linking
/// them; [`codegen_scripts`] is the real thing.
#[derive(Clone, Default)]
pub struct Platform {
    pub cpu: Option<RuntimeFactory>,
    pub host: Option<Rc<dyn Host>>,
    pub scripts: Option<ScriptBackendFactory>,
    /// The wasm engine behind `cpu` validates relaxed SIMD. Without it
    /// (Safari) nothing built here uses relaxed-SIMD instructions: the FMA
    /// backend and `-mattr=+relaxed-simd` targets get the plain-SIMD build
    /// and a note.
    pub relaxed_simd: bool,
}

impl Platform {
    /// A platform with the code generators: CPU targets compile to wasm
    /// and run on `cpu` (whose engine has relaxed SIMD or not); scripts'
    /// GPU kernels on `gpu` when there is one.
    pub fn with_codegen(
        cpu: Option<RuntimeFactory>,
        host: Option<Rc<dyn Host>>,
        gpu: Option<ScriptGpu>,
        relaxed_simd: bool,
    ) -> Platform {
        Platform {
            scripts: Some(codegen_scripts(cpu.clone(), gpu, relaxed_simd)),
            cpu,
            host,
            relaxed_simd,
        }
    }
}

thread_local! {
    static PLATFORM: std::cell::RefCell<Platform> = std::cell::RefCell::new(Platform::default());
}

pub fn set_platform(p: Platform) {
    PLATFORM.with(|c| *c.borrow_mut() = p);
}

pub(super) fn platform() -> Platform {
    PLATFORM.with(|c| c.borrow().clone())
}

/// What scripts run with here: the platform's `tvm.build` backend (the
/// wasm runtime for CPU targets where the code generators are loaded), its
/// clock, the default budgets.
pub fn script_env() -> ScriptEnv {
    let p = platform();
    let (backend, take_notes) = match &p.scripts {
        Some(make) => make(),
        None => InterpreterScripts::parts(
            None,
            Err("WebGPU is asynchronous and a script runs synchronously".into()),
        ),
    };
    ScriptEnv {
        host: p.host.unwrap_or_else(|| Rc::new(NoClock)),
        backend,
        take_notes: Some(take_notes),
        ..ScriptEnv::default()
    }
}

/// The `tvm.build` backend of one script run, and the closure that takes
/// its notes for the console (after each cell).
pub type ScriptBackendParts = (Rc<dyn Backend>, Rc<dyn Fn() -> Vec<String>>);

/// Makes the [`ScriptBackendParts`] of each script run.
pub type ScriptBackendFactory = Rc<dyn Fn() -> ScriptBackendParts>;

/// `tvm.build` for scripts without the code generators: everything runs on
/// the reference interpreter (GPU targets with a note). With `needs_codegen`
/// (the first worker), a CPU target instead sets the flag and fails, so the
/// worker hands the request to the worker that has the CPU backend.
pub struct InterpreterScripts {
    reference: ReferenceBackend,
    notes: std::cell::RefCell<Vec<String>>,
    needs_codegen: Option<Rc<std::cell::Cell<bool>>>,
    /// `Ok`: GPU targets set `needs_codegen` too (the full worker runs
    /// their kernels on WebGPU); `Err`: why GPU builds run here, on the
    /// reference interpreter.
    gpu_in_full_worker: Result<(), String>,
}

impl InterpreterScripts {
    fn parts(
        needs_codegen: Option<Rc<std::cell::Cell<bool>>>,
        gpu_in_full_worker: Result<(), String>,
    ) -> ScriptBackendParts {
        let backend = Rc::new(InterpreterScripts {
            reference: ReferenceBackend::default(),
            notes: Default::default(),
            needs_codegen,
            gpu_in_full_worker,
        });
        let notes = backend.clone();
        (
            backend,
            Rc::new(move || notes.notes.borrow_mut().drain(..).collect()),
        )
    }
}

impl Backend for InterpreterScripts {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        self.ensure_loaded(target.kind)?;
        if target.is_gpu() {
            let why =
                self.gpu_in_full_worker.clone().err().unwrap_or_else(|| {
                    "WebGPU is asynchronous and a script runs synchronously".into()
                });
            self.notes.borrow_mut().push(format!(
                "note: tvm.build(target=\"{}\") runs on the reference interpreter here: {why} (the Run button runs the GPU backend on WebGPU)",
                target.text
            ));
        }
        self.reference.build(module, target, options)
    }

    /// In the first worker (`needs_codegen`), CPU builds, and GPU builds
    /// where the full worker reaches WebGPU, belong to the full worker:
    /// the flag says so and the build fails as not loaded.
    fn ensure_loaded(&self, kind: TargetKind) -> Result<(), BuildError> {
        match &self.needs_codegen {
            Some(flag) if !kind.is_gpu() || self.gpu_in_full_worker.is_ok() => {
                flag.set(true);
                Err(BuildError::BackendNotLoaded { kind })
            }
            _ => Ok(()),
        }
    }
}

/// Scripts whose CPU `tvm.build` marks `flag` (see [`InterpreterScripts`]),
/// and their GPU `tvm.build` too where `gpu_in_full_worker` is `Ok` (the
/// full worker can reach WebGPU from a script; `Err` says why not).
pub fn deferred_scripts(
    flag: Rc<std::cell::Cell<bool>>,
    gpu_in_full_worker: Result<(), String>,
) -> ScriptBackendFactory {
    Rc::new(move || InterpreterScripts::parts(Some(flag.clone()), gpu_in_full_worker.clone()))
}

/// Where scripts' GPU kernels run: the runner, or why there is none now
/// (asked at each GPU `tvm.build`; in the browser, WebGPU through a worker
/// that the script's worker waits on, see `web_ui::gpu_bridge`).
pub type ScriptGpu = Rc<dyn Fn() -> Result<Rc<dyn KernelRunner>, String>>;

/// Scripts whose CPU `tvm.build` compiles to wasm and runs on `cpu`, and
/// whose GPU `tvm.build` compiles to WGSL and runs on `gpu`'s runner (or
/// on the reference interpreter, WGSL still printable, without one).
pub fn codegen_scripts(
    cpu: Option<RuntimeFactory>,
    gpu: Option<ScriptGpu>,
    relaxed_simd: bool,
) -> ScriptBackendFactory {
    Rc::new(move || {
        let backend = Rc::new(ScriptBackend {
            cpu: cpu.clone(),
            gpu: gpu.clone(),
            relaxed_simd,
            fallback: InterpreterScripts {
                reference: ReferenceBackend::default(),
                notes: Default::default(),
                needs_codegen: None,
                gpu_in_full_worker: Err("this host gives scripts no GPU".into()),
            },
        });
        let notes = backend.clone();
        let take_notes: Rc<dyn Fn() -> Vec<String>> =
            Rc::new(move || notes.fallback.notes.borrow_mut().drain(..).collect());
        (backend as Rc<dyn Backend>, take_notes)
    })
}

/// `tvm.build` for scripts in the browser: CPU targets (`llvm`, `c`, …)
/// compile to wasm and run on the host's wasm runtime; everything else (and
/// a module the wasm backend cannot compile) runs on the reference
/// interpreter, with a note for the console (kept by `fallback`, in order).
struct ScriptBackend {
    cpu: Option<RuntimeFactory>,
    gpu: Option<ScriptGpu>,
    /// `cpu`'s engine has relaxed SIMD (`-mattr=+relaxed-simd` fuses).
    relaxed_simd: bool,
    fallback: InterpreterScripts,
}

impl ScriptBackend {
    /// A GPU build: WGSL for every thread-bound function (so the source
    /// cells work), kernels on the GPU runner when there is one, the rest
    /// (and everything without a runner) on the reference interpreter.
    fn build_gpu(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
        gpu: &ScriptGpu,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        let note = |m: String| self.fallback.notes.borrow_mut().push(m);
        let reference: Rc<dyn Backend> = Rc::new(ReferenceBackend::default());
        let (backend, how) = match gpu() {
            Ok(runner) => (
                SourceOnlyBackend::new(reference).with_runner(runner),
                "compiled to WGSL, kernels running on this browser's WebGPU".to_string(),
            ),
            Err(why) => (
                SourceOnlyBackend::new(reference),
                format!("compiled to WGSL, run on the reference interpreter here: {why}"),
            ),
        };
        match backend.build(module, target, options) {
            Ok(exec) => {
                note(format!(
                    "note: tvm.build(target=\"{}\"): {how}",
                    target.text
                ));
                Ok(exec)
            }
            Err(e) => {
                note(format!(
                    "note: the GPU backend cannot compile this module ({e}); tvm.build runs it on the reference interpreter"
                ));
                self.fallback.reference.build(module, target, options)
            }
        }
    }
}

impl Backend for ScriptBackend {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        let note = |m: String| self.fallback.notes.borrow_mut().push(m);
        if let (true, Some(gpu)) = (target.is_gpu(), &self.gpu) {
            return self.build_gpu(module, target, options, gpu);
        }
        let Some(make) = &self.cpu else {
            return self.fallback.build(module, target, options);
        };
        if target.is_gpu() {
            return self.fallback.build(module, target, options);
        }
        let mut prims = IRModule::new();
        for (n, f) in module.prim_funcs() {
            prims.insert(n.to_string(), BaseFunc::Prim(f.clone()));
        }
        let (relaxed_fma, fallback) =
            codegen_wasm::backend::relaxed_fma_for(target, self.relaxed_simd);
        if let Some(why) = fallback {
            note(format!("note: {why}"));
        }
        let mut wasm = WasmBackend::with_runtime(make.clone());
        wasm.relaxed_simd = self.relaxed_simd;
        // Scripts' kernels run their parallel loops inline (one thread).
        let options = BuildOptions {
            max_threads: Some(1),
            ..options.clone()
        };
        match wasm.build_wasm(&prims, target, &options) {
            Ok(exec) => {
                let bytes = exec.module().bytes().len();
                note(format!(
                    "note: tvm.build(target=\"{}\"): compiled to WebAssembly ({bytes} bytes{}), running on this browser's CPU",
                    target.text,
                    if relaxed_fma { ", relaxed-SIMD FMA" } else { "" }
                ));
                Ok(Rc::new(exec))
            }
            Err(BuildError::Load(e)) => Err(BuildError::Load(format!(
                "instantiating the wasm module: {e}"
            ))),
            Err(e) => {
                note(format!(
                    "note: the CPU backend cannot compile this module ({e}); tvm.build runs it on the reference interpreter"
                ));
                self.fallback
                    .build(module, target, &BuildOptions::default())
            }
        }
    }
}
