//! `tvm.build` for GPU targets (`"webgpu"`, `"cuda"`, `"metal"`,
//! `Target("webgpu", host="llvm")`, dict targets with a GPU kind):
//! [`GpuBackend`] implements [`tessel_tir::target::Backend`] with the
//! WGSL code generator and the wgpu [`GpuRuntime`] (feature `native`).
//!
//! As in TVM, a function with thread-bound loops becomes GPU kernels (a
//! top-level loop left unbound in it is an error naming the loop), and a
//! function without any thread binding stays on the host: it is built by the
//! backend's `host` backend (the wasm backend in `tessel run`, the reference
//! interpreter by default). `rt_mod.get_source()` and
//! `rt_mod.imported_modules[0].get_source()` return every kernel's WGSL,
//! each under a `// kernel NAME` header; `time_evaluator` reports the
//! kernels' GPU time from timestamp queries when the adapter has them, else
//! the wall time from submission to completion.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use tessel_tir::eval::NDArray;
use tessel_tir::ir::{BaseFunc, IRModule};
use tessel_tir::target::{
    Backend, BuildError, BuildOptions, Executable, Host, ReferenceBackend, SourceModule, Target,
};

use crate::runtime::{CompiledFunc, GpuRuntime, RunStats};
use crate::source_only::{wgsl_error, wgsl_modules, wgsl_source, wgsl_text};
use crate::{build_func, GpuLimits, WgslFunc};

/// Builds GPU targets to WGSL and runs them with wgpu.
pub struct GpuBackend {
    rt: Rc<GpuRuntime>,
    /// Builds the functions without thread bindings (TVM's host code).
    host: Rc<dyn Backend>,
    limits: GpuLimits,
}

impl GpuBackend {
    /// A backend on the first adapter wgpu finds; `Ok(None)` when the
    /// machine has none. Host-only functions run on the reference
    /// interpreter until [`GpuBackend::with_host`] names another backend.
    pub fn new() -> Result<Option<GpuBackend>, String> {
        Ok(GpuRuntime::new()?.map(|rt| GpuBackend::with_runtime(Rc::new(rt))))
    }

    /// A backend on an existing runtime.
    pub fn with_runtime(rt: Rc<GpuRuntime>) -> GpuBackend {
        GpuBackend {
            rt,
            host: Rc::new(ReferenceBackend::default()),
            limits: GpuLimits::default(),
        }
    }

    /// Builds host-only functions with `host` (given an `llvm` target).
    pub fn with_host(mut self, host: Rc<dyn Backend>) -> GpuBackend {
        self.host = host;
        self
    }

    /// `name (backend, device type)` of the adapter.
    pub fn adapter(&self) -> &str {
        &self.rt.adapter
    }
}

pub use crate::source_only::is_thread_bound;

/// A module built by [`GpuBackend`].
pub struct GpuExecutable {
    rt: Rc<GpuRuntime>,
    kernels: Vec<WgslFunc>,
    host: Option<Rc<dyn Executable>>,
    host_names: Vec<String>,
    names: Vec<String>,
    target: String,
    /// Each kernel function's pipelines, compiled on its first run and
    /// reused by every later run and timing.
    compiled: RefCell<HashMap<String, Rc<CompiledFunc>>>,
}

impl GpuExecutable {
    /// The compiled thread-bound functions.
    pub fn funcs(&self) -> &[WgslFunc] {
        &self.kernels
    }

    /// Every kernel's WGSL (`// kernel NAME` headers, functions in module
    /// order).
    pub fn wgsl(&self) -> String {
        wgsl_text(&self.kernels)
    }

    fn func(&self, name: &str) -> Option<&WgslFunc> {
        self.kernels.iter().find(|f| f.name == name)
    }

    /// Runs `f` on its cached pipelines (compiled first when new).
    fn run_func(&self, f: &WgslFunc, args: &mut [NDArray]) -> Result<RunStats, String> {
        let cached = self.compiled.borrow().get(&f.name).cloned();
        let compiled = match cached {
            Some(c) => c,
            None => {
                let c = Rc::new(self.rt.compile(f)?);
                self.compiled.borrow_mut().insert(f.name.clone(), c.clone());
                c
            }
        };
        self.rt.run_compiled(f, &compiled, args)
    }
}

impl Backend for GpuBackend {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        if !target.is_gpu() {
            return Err(BuildError::WrongTarget {
                backend_is_gpu: true,
                target: target.text.clone(),
            });
        }
        let mut kernels = Vec::new();
        let mut host_mod = IRModule::new();
        for (name, f) in module.prim_funcs() {
            if is_thread_bound(f) {
                let built =
                    build_func(name, f, &self.limits).map_err(|e| wgsl_error(name, target, &e))?;
                kernels.push(built);
            } else {
                host_mod.insert(name, BaseFunc::Prim(f.clone()));
            }
        }
        let host_names: Vec<String> = host_mod.names().map(str::to_string).collect();
        let host = if host_names.is_empty() {
            None
        } else {
            let host_target = target.host.as_deref().cloned().unwrap_or_else(Target::llvm);
            Some(self.host.build(&host_mod, &host_target, options)?)
        };
        Ok(Rc::new(GpuExecutable {
            rt: self.rt.clone(),
            kernels,
            host,
            host_names,
            names: module.names().map(str::to_string).collect(),
            target: target.kind_name().to_string(),
            compiled: RefCell::default(),
        }))
    }
}

impl Executable for GpuExecutable {
    fn function_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn run(&self, name: &str, args: &mut [NDArray], step_budget: u64) -> Result<u64, String> {
        if let Some(f) = self.func(name) {
            self.run_func(f, args)?;
            return Ok(args.iter().map(|a| a.len() as u64).sum());
        }
        match &self.host {
            Some(h) if self.host_names.iter().any(|n| n == name) => h.run(name, args, step_budget),
            _ => Err(format!("the module has no function `{name}`")),
        }
    }

    fn source(&self, fmt: &str) -> Result<Option<String>, String> {
        wgsl_source(&self.kernels, &self.target, fmt)
    }

    fn imported_modules(&self) -> Vec<SourceModule> {
        wgsl_modules(&self.kernels)
    }

    fn time(
        &self,
        name: &str,
        args: &mut [NDArray],
        number: u64,
        repeat: u64,
        clock: &dyn Host,
    ) -> Option<Result<Vec<f64>, String>> {
        let Some(f) = self.func(name) else {
            // A host function: its backend's timer, or the interpreter's.
            return self
                .host
                .as_ref()
                .and_then(|h| h.time(name, args, number, repeat, clock));
        };
        let mut run = || -> Result<Vec<f64>, String> {
            // One warm-up run (the first run compiles the pipelines).
            self.run_func(f, args)?;
            let mut out = Vec::with_capacity(repeat as usize);
            for _ in 0..repeat.max(1) {
                let mut total = 0.0;
                for _ in 0..number.max(1) {
                    let stats = self.run_func(f, args)?;
                    total += match &stats.kernel_times {
                        Some(ts) => ts.iter().map(|d| d.as_secs_f64()).sum::<f64>(),
                        None => stats.wall.as_secs_f64(),
                    };
                }
                out.push(total / number.max(1) as f64);
            }
            Ok(out)
        };
        Some(run())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler_core::tvmscript::builder::parse_script;
    use tessel_tir::eval::run_prim_func;
    use tessel_tir::ir::DataType;
    use tessel_tir::target::NoClock;

    const MIXED: &str = r#"
from tvm.script import tir as T
@T.prim_func
def host_scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * T.float32(3)

@T.prim_func
def gpu_scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i0 in T.thread_binding(4, thread="blockIdx.x"):
        for i1 in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("B"):
                vi = T.axis.spatial(256, i0 * 64 + i1)
                B[vi] = A[vi] * T.float32(3) + T.float32(1)
"#;

    fn args() -> Vec<NDArray> {
        let a: Vec<f64> = (0..256).map(|x| x as f64 * 0.25 - 7.0).collect();
        vec![
            NDArray::from_f64_as(DataType::f32(), &[256], &a).unwrap(),
            NDArray::zeros(DataType::f32(), &[256]).unwrap(),
        ]
    }

    #[test]
    fn thread_bound_functions_run_on_the_gpu_and_the_others_on_the_host() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
        let Some(backend) = GpuBackend::new().unwrap() else {
            eprintln!("skip: no WebGPU adapter");
            return;
        };
        let module = parse_script(MIXED).unwrap().to_module();
        let cuda = Target::parse("cuda").unwrap();
        let exec = backend
            .build(&module, &cuda, &BuildOptions::default())
            .unwrap();
        for name in ["host_scale", "gpu_scale"] {
            let mut ours = args();
            exec.run(name, &mut ours, u64::MAX).unwrap();
            let mut reference = args();
            let f = module.get_prim(name).unwrap();
            run_prim_func(f, &mut reference, &Default::default()).unwrap();
            assert_eq!(ours[1], reference[1], "{name}");
        }
        let imported = exec.imported_modules();
        assert_eq!(imported.len(), 1);
        assert_eq!(imported[0].type_key, "webgpu");
        assert_eq!(imported[0].source.matches("@compute").count(), 1);
        assert!(imported[0].source.contains("fn gpu_scale_kernel"));
        assert_eq!(exec.source("").unwrap().unwrap(), imported[0].source);

        let mut a = args();
        let times = exec
            .time("gpu_scale", &mut a, 2, 3, &NoClock)
            .unwrap()
            .unwrap();
        assert_eq!(times.len(), 3);
        assert!(
            times.iter().all(|t| t.is_finite() && *t >= 0.0),
            "{times:?}"
        );
        // The reference interpreter has no timer of its own.
        assert!(exec.time("host_scale", &mut a, 1, 1, &NoClock).is_none());
        assert!(backend
            .build(&module, &Target::llvm(), &BuildOptions::default())
            .is_err());
    }
}
