//! GPU builds where this crate has no device of its own: the WGSL of every
//! thread-bound function is still generated (that needs no adapter), so
//! `rt_mod.get_source()` and `rt_mod.imported_modules[0].get_source()` work
//! anywhere. The kernels run on a [`KernelRunner`] when one is given (the
//! browser's WebGPU, reached from a synchronous script through another
//! worker), else on a fallback backend (the reference interpreter in
//! `tessel run` on a machine without a GPU). Pure: no wgpu.

use std::rc::Rc;

use tessel_tir::eval::NDArray;
use tessel_tir::ir::{ForKind, IRModule, PrimFunc, StmtKind};
use tessel_tir::target::{
    Backend, BuildError, BuildOptions, Compiler, Executable, Host, SourceModule, Target,
};

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

/// Runs compiled GPU functions on a device this crate does not own.
pub trait KernelRunner {
    /// Runs `f` once on `args` (outputs written in place), then `timed`
    /// more times; returns the seconds of each timed run.
    fn run(&self, f: &WgslFunc, args: &mut [NDArray], timed: u32) -> Result<Vec<f64>, String>;
}

/// Generates the WGSL of GPU builds (with WebGPU's default limits) and runs
/// the kernels on `runner`, or everything with `fallback` when there is no
/// runner.
pub struct SourceOnlyBackend {
    pub fallback: Rc<dyn Backend>,
    pub limits: GpuLimits,
    pub runner: Option<Rc<dyn KernelRunner>>,
}

impl SourceOnlyBackend {
    pub fn new(fallback: Rc<dyn Backend>) -> SourceOnlyBackend {
        SourceOnlyBackend {
            fallback,
            limits: GpuLimits::default(),
            runner: None,
        }
    }

    /// Kernels run on `runner`; functions without thread bindings (host
    /// code) still run on the fallback.
    pub fn with_runner(mut self, runner: Rc<dyn KernelRunner>) -> SourceOnlyBackend {
        self.runner = Some(runner);
        self
    }
}

/// The error of the WGSL code generator on function `name` for `target`.
pub(crate) fn wgsl_error(name: &str, target: &Target, e: &crate::CodegenError) -> BuildError {
    BuildError::Compile {
        compiler: Compiler::Wgsl {
            target: target.kind_name().to_string(),
        },
        func: Some(name.to_string()),
        diagnostic: Box::new(e.to_diagnostic()),
    }
}

impl Backend for SourceOnlyBackend {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        let mut kernels = Vec::new();
        for (name, f) in module.prim_funcs() {
            if is_thread_bound(f) {
                kernels.push(
                    build_func(name, f, &self.limits).map_err(|e| wgsl_error(name, target, &e))?,
                );
            }
        }
        let work = module
            .prim_funcs()
            .map(|(name, f)| (name.to_string(), block_iterations(f)))
            .collect();
        Ok(Rc::new(SourceOnlyExecutable {
            inner: self.fallback.build(module, target, options)?,
            kernels,
            target: target.kind_name().to_string(),
            work,
            runner: self.runner.clone(),
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
    runner: Option<Rc<dyn KernelRunner>>,
}

impl SourceOnlyExecutable {
    /// The kernel `name` and the runner that runs it, when there is one.
    fn on_runner(&self, name: &str) -> Option<(&WgslFunc, &Rc<dyn KernelRunner>)> {
        let runner = self.runner.as_ref()?;
        self.kernels
            .iter()
            .find(|k| k.name == name)
            .map(|k| (k, runner))
    }
}

/// Block iterations one call of `f` executes: for every block, the product
/// of the constant extents of the loops around it (a lower bound where an
/// extent is not constant).
pub fn block_iterations(f: &PrimFunc) -> u64 {
    fn walk(s: &tessel_tir::ir::Stmt, trips: u64, total: &mut u64) {
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
        if let Some((kernel, runner)) = self.on_runner(name) {
            runner.run(kernel, args, 0)?;
            return Ok(args.iter().map(|a| a.len() as u64).sum());
        }
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
        let Some((kernel, runner)) = self.on_runner(name) else {
            return self.inner.time(name, args, number, repeat, clock);
        };
        let (number, repeat) = (number.max(1), repeat.max(1));
        let runs = u32::try_from(number * repeat).unwrap_or(u32::MAX);
        Some(runner.run(kernel, args, runs).map(|seconds| {
            seconds
                .chunks(number as usize)
                .map(|c| c.iter().sum::<f64>() / c.len() as f64)
                .collect()
        }))
    }
}

/// Compiles every PrimFunc of a module to WGSL and runs nothing (what
/// `tessel build --target webgpu` and the playground's code pane and GPU
/// run need: the kernels themselves, through
/// [`Executable::as_any`] as a [`WgslExecutable`]).
#[derive(Default)]
pub struct WgslBackend {
    pub limits: GpuLimits,
}

/// The WGSL of every function of a module, from [`WgslBackend`].
pub struct WgslExecutable {
    pub funcs: Vec<WgslFunc>,
    target: String,
}

impl Backend for WgslBackend {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        _options: &BuildOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        if !target.is_gpu() {
            return Err(BuildError::WrongTarget {
                backend_is_gpu: true,
                target: target.text.clone(),
            });
        }
        let funcs = module
            .prim_funcs()
            .map(|(name, f)| {
                build_func(name, f, &self.limits).map_err(|e| wgsl_error(name, target, &e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Rc::new(WgslExecutable {
            funcs,
            target: target.kind_name().to_string(),
        }))
    }
}

impl Executable for WgslExecutable {
    fn function_names(&self) -> Vec<String> {
        self.funcs.iter().map(|f| f.name.clone()).collect()
    }
    fn run(&self, name: &str, _args: &mut [NDArray], _step_budget: u64) -> Result<u64, String> {
        Err(format!(
            "`{name}` was only compiled to WGSL: nothing runs this {} build",
            self.target
        ))
    }
    fn source(&self, fmt: &str) -> Result<Option<String>, String> {
        wgsl_source(&self.funcs, &self.target, fmt)
    }
    fn imported_modules(&self) -> Vec<SourceModule> {
        wgsl_modules(&self.funcs)
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler_core::tvmscript::builder::parse_script;
    use std::cell::RefCell;
    use tessel_tir::eval::run_prim_func;
    use tessel_tir::ir::DataType;
    use tessel_tir::target::{NoClock, ReferenceBackend};

    const MIXED: &str = r#"
from tvm.script import tir as T
@T.prim_func
def host_add(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)

@T.prim_func
def gpu_scale(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i0 in T.thread_binding(2, thread="blockIdx.x"):
        for i1 in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("B"):
                vi = T.axis.spatial(64, i0 * 32 + i1)
                B[vi] = A[vi] * T.float32(3)
"#;

    /// Runs kernels on the reference interpreter and records each call:
    /// the function's name and how many timed runs were asked for.
    #[derive(Default)]
    struct Recorder {
        calls: RefCell<Vec<(String, u32)>>,
    }

    impl KernelRunner for Recorder {
        fn run(&self, f: &WgslFunc, args: &mut [NDArray], timed: u32) -> Result<Vec<f64>, String> {
            self.calls.borrow_mut().push((f.name.clone(), timed));
            run_prim_func(&f.func, args, &Default::default()).map_err(|e| e.to_string())?;
            Ok((0..timed).map(|k| 0.001 * (k + 1) as f64).collect())
        }
    }

    fn target(text: &str) -> Target {
        Target::parse(text).unwrap()
    }

    fn args() -> Vec<NDArray> {
        let a: Vec<f64> = (0..64).map(|x| x as f64 * 0.5).collect();
        vec![
            NDArray::from_f64_as(DataType::f32(), &[64], &a).unwrap(),
            NDArray::zeros(DataType::f32(), &[64]).unwrap(),
        ]
    }

    #[test]
    fn kernels_run_on_the_runner_and_host_code_on_the_fallback() {
        let module = parse_script(MIXED).unwrap().to_module();
        let recorder = Rc::new(Recorder::default());
        let backend = SourceOnlyBackend::new(Rc::new(ReferenceBackend::default()))
            .with_runner(recorder.clone());
        let exec = backend
            .build(&module, &target("webgpu"), &BuildOptions::default())
            .unwrap();
        for name in ["gpu_scale", "host_add"] {
            let mut ours = args();
            exec.run(name, &mut ours, u64::MAX).unwrap();
            let mut expected = args();
            run_prim_func(
                module.get_prim(name).unwrap(),
                &mut expected,
                &Default::default(),
            )
            .unwrap();
            assert_eq!(ours[1], expected[1], "{name}");
        }
        assert_eq!(*recorder.calls.borrow(), vec![("gpu_scale".to_string(), 0)]);
        let wgsl = exec.source("").unwrap().unwrap();
        assert!(
            wgsl.contains("// kernel gpu_scale") && wgsl.contains("@compute"),
            "{wgsl}"
        );
        assert!(!wgsl.contains("host_add"), "{wgsl}");
    }

    #[test]
    fn time_evaluator_asks_for_number_times_repeat_runs_and_averages_each_repeat() {
        let module = parse_script(MIXED).unwrap().to_module();
        let recorder = Rc::new(Recorder::default());
        let backend = SourceOnlyBackend::new(Rc::new(ReferenceBackend::default()))
            .with_runner(recorder.clone());
        let exec = backend
            .build(&module, &target("cuda"), &BuildOptions::default())
            .unwrap();
        let times = exec
            .time("gpu_scale", &mut args(), 2, 3, &NoClock)
            .expect("the runner times kernels")
            .unwrap();
        // Runs of 1..6 ms, two per repeat.
        let want = [0.0015, 0.0035, 0.0055];
        assert_eq!(times.len(), 3);
        for (t, w) in times.iter().zip(want) {
            assert!((t - w).abs() < 1e-12, "{times:?}");
        }
        assert_eq!(*recorder.calls.borrow(), vec![("gpu_scale".to_string(), 6)]);
    }

    #[test]
    fn wgsl_builds_every_function_and_a_codegen_error_carries_its_span() {
        let module = parse_script(MIXED).unwrap().to_module();
        let gpu_only = {
            let mut m = IRModule::new();
            let f = module.get_prim("gpu_scale").unwrap().clone();
            m.insert("gpu_scale", tessel_tir::ir::BaseFunc::Prim(f));
            m
        };
        let backend = WgslBackend::default();
        let exec = backend
            .build(&gpu_only, &target("webgpu"), &BuildOptions::default())
            .unwrap();
        let funcs = &exec
            .as_any()
            .and_then(|a| a.downcast_ref::<WgslExecutable>())
            .expect("a WGSL build")
            .funcs;
        assert_eq!(funcs.len(), 1);
        assert!(exec.run("gpu_scale", &mut args(), u64::MAX).is_err());
        assert!(matches!(
            backend.build(&gpu_only, &Target::llvm(), &BuildOptions::default()),
            Err(BuildError::WrongTarget {
                backend_is_gpu: true,
                ..
            })
        ));

        // `host_add` has no thread binding: the generator refuses it, at
        // the loop it names, inside the function's source.
        let Err(e) = backend.build(&module, &target("cuda"), &BuildOptions::default()) else {
            panic!("a function without thread bindings builds for the GPU");
        };
        let BuildError::Compile {
            func, diagnostic, ..
        } = &e
        else {
            panic!("not a compile error: {e}");
        };
        assert_eq!(func.as_deref(), Some("host_add"));
        assert!(
            diagnostic.span.start < diagnostic.span.end,
            "{diagnostic:?}"
        );
        assert!(
            e.to_string()
                .starts_with("cannot build `host_add` for cuda: "),
            "{e}"
        );
    }
}
