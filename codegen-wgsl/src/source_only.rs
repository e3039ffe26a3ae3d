//! GPU builds on a machine without a GPU: the WGSL of every thread-bound
//! function is still generated (that needs no adapter), so
//! `rt_mod.get_source()` and `rt_mod.imported_modules[0].get_source()` work
//! anywhere, while running goes to a fallback backend (the reference
//! interpreter in `tessel run`). Pure: no wgpu.

use std::rc::Rc;

use compiler_core::eval::NDArray;
use compiler_core::ir::{ForKind, IRModule, PrimFunc, StmtKind};
use compiler_core::target::{Backend, Executable, Host, SourceModule, TargetSpec};

use crate::{build_func, GpuLimits, WgslFunc};

/// Whether a function has a loop bound to a GPU thread axis.
pub fn is_thread_bound(f: &PrimFunc) -> bool {
    let mut found = false;
    f.body.walk(&mut |s| {
        if let StmtKind::For(l) = s.kind() {
            if l.kind == ForKind::ThreadBinding {
                found = true;
            }
        }
    });
    found
}

/// Every kernel's WGSL (`// kernel NAME` headers, functions in module order).
pub(crate) fn wgsl_text(kernels: &[WgslFunc]) -> String {
    kernels.iter().map(WgslFunc::wgsl).collect()
}

/// What `get_source(fmt)` returns for a GPU build of `kernels`.
pub(crate) fn wgsl_source(
    kernels: &[WgslFunc],
    target: &str,
    fmt: &str,
) -> Result<Option<String>, String> {
    match fmt {
        "" | "wgsl" | "webgpu" | "cu" | "metal" => Ok(Some(wgsl_text(kernels))),
        _ => Err(format!(
            "get_source: a {target} build has no `{fmt}` source (formats: \"\", \"wgsl\")"
        )),
    }
}

/// The device module of a GPU build (`rt_mod.imported_modules`).
pub(crate) fn wgsl_modules(kernels: &[WgslFunc]) -> Vec<SourceModule> {
    if kernels.is_empty() {
        return Vec::new();
    }
    vec![SourceModule {
        type_key: "webgpu".to_string(),
        source: wgsl_text(kernels),
    }]
}

/// Generates the WGSL of GPU builds (with WebGPU's default limits) and runs
/// them with `fallback`.
pub struct SourceOnlyBackend {
    pub fallback: Rc<dyn Backend>,
    pub limits: GpuLimits,
}

impl SourceOnlyBackend {
    pub fn new(fallback: Rc<dyn Backend>) -> SourceOnlyBackend {
        SourceOnlyBackend {
            fallback,
            limits: GpuLimits::default(),
        }
    }
}

impl Backend for SourceOnlyBackend {
    fn build(&self, module: &IRModule, target: &TargetSpec) -> Result<Rc<dyn Executable>, String> {
        let mut kernels = Vec::new();
        for (name, f) in module.prim_funcs() {
            if is_thread_bound(f) {
                kernels.push(build_func(name, f, &self.limits).map_err(|e| {
                    format!("cannot build `{name}` for {}: {}", target.kind, e.message)
                })?);
            }
        }
        Ok(Rc::new(SourceOnlyExecutable {
            inner: self.fallback.build(module, target)?,
            kernels,
            target: target.kind.clone(),
        }))
    }
}

/// A GPU build's code, run by another backend.
struct SourceOnlyExecutable {
    inner: Rc<dyn Executable>,
    kernels: Vec<WgslFunc>,
    target: String,
}

impl Executable for SourceOnlyExecutable {
    fn function_names(&self) -> Vec<String> {
        self.inner.function_names()
    }
    fn run(&self, name: &str, args: &mut [NDArray], step_budget: u64) -> Result<u64, String> {
        self.inner.run(name, args, step_budget)
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
        self.inner.time(name, args, number, repeat, clock)
    }
}
