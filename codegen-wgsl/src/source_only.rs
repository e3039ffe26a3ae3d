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
        let work = module
            .prim_funcs()
            .map(|(name, f)| (name.to_string(), block_iterations(f)))
            .collect();
        Ok(Rc::new(SourceOnlyExecutable {
            inner: self.fallback.build(module, target)?,
            kernels,
            target: target.kind.clone(),
            work,
        }))
    }
}

/// A GPU build's code, run by another backend.
struct SourceOnlyExecutable {
    inner: Rc<dyn Executable>,
    kernels: Vec<WgslFunc>,
    target: String,
    /// Block iterations one call of each function executes.
    work: Vec<(String, u64)>,
}

/// Block iterations one call of `f` executes: for every block, the product
/// of the constant extents of the loops around it (a lower bound where an
/// extent is not constant).
pub fn block_iterations(f: &PrimFunc) -> u64 {
    fn walk(s: &compiler_core::ir::Stmt, trips: u64, total: &mut u64) {
        match s.kind() {
            StmtKind::For(l) => {
                let n = l.extent.as_int().unwrap_or(1).max(0) as u64;
                walk(&l.body, trips.saturating_mul(n), total);
            }
            StmtKind::BlockRealize(r) => {
                *total = total.saturating_add(trips);
                if let Some(init) = &r.block.init {
                    walk(init, trips, total);
                }
                walk(&r.block.body, trips, total);
            }
            StmtKind::Seq(items) => items.iter().for_each(|i| walk(i, trips, total)),
            StmtKind::Let { body, .. } | StmtKind::Allocate { body, .. } => {
                walk(body, trips, total)
            }
            StmtKind::If {
                then, otherwise, ..
            } => {
                walk(then, trips, total);
                if let Some(o) = otherwise {
                    walk(o, trips, total);
                }
            }
            StmtKind::Store { .. } | StmtKind::Evaluate(_) => {}
        }
    }
    let mut total = 0;
    walk(&f.body, 1, &mut total);
    total
}

impl Executable for SourceOnlyExecutable {
    fn function_names(&self) -> Vec<String> {
        self.inner.function_names()
    }
    fn run(&self, name: &str, args: &mut [NDArray], step_budget: u64) -> Result<u64, String> {
        // Refuse at once what would only fail on the budget much later.
        let work = self
            .work
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, w)| *w);
        if work > step_budget {
            return Err(format!(
                "`{name}` executes about {work:.2e} block iterations per call, more than the \
                 {step_budget:.2e} steps left to this script: this {} build runs on the reference \
                 interpreter because this machine has no WebGPU adapter, where it would take \
                 minutes. Run it where a GPU adapter exists (on Linux, `apt install \
                 mesa-vulkan-drivers` gives a software one), or in the playground in a browser \
                 with WebGPU, or try a smaller size here",
                self.target,
                work = work as f64,
                step_budget = step_budget as f64,
            ));
        }
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
