//! `tvm.build` for CPU targets (`"llvm"`, `"c"`, `"llvm -mcpu=…"`, dict
//! targets with a CPU kind): [`WasmBackend`] implements
//! [`tessel_tir::target::Backend`] by compiling the module to one wasm
//! module ([`crate::build`]) and running it on a [`Runtime`]: wasmtime
//! natively ([`WasmBackend::wasmtime`], feature `native`), the browser's
//! `WebAssembly` in the playground's worker.
//!
//! Each built module owns its runtime (one store and memory). A call
//! allocates the arguments in the module's memory, copies them in, calls the
//! kernel, copies every buffer back and frees them
//! ([`crate::runtime::run_ndarrays`]). `time_evaluator` uploads once and
//! times `number` calls per repeat with the host's clock. `get_source()`
//! is the module's text format (wasmprinter).

use std::cell::RefCell;
use std::rc::Rc;

use tessel_tir::eval::NDArray;
use tessel_tir::ir::IRModule;
use tessel_tir::target::{
    Backend, BuildError, BuildOptions as TargetOptions, Compiler, Executable, Host, Target,
};

use crate::runtime::{run_ndarrays, upload, Runtime};
use crate::{BuildOptions, WasmModule};

/// Makes a fresh runtime for each built module.
pub type RuntimeFactory = Rc<dyn Fn() -> Box<dyn Runtime>>;

/// Builds CPU targets to WebAssembly and runs them on the runtimes its
/// factory makes (or only compiles them: [`WasmBackend::compile_only`]).
#[derive(Clone)]
pub struct WasmBackend {
    runtime: Option<RuntimeFactory>,
    /// Options of every build; a target with `-mattr=+relaxed-simd` also
    /// turns on [`BuildOptions::relaxed_fma`] where the engine has relaxed
    /// SIMD ([`WasmBackend::relaxed_simd`]).
    pub options: BuildOptions,
    /// The engine that runs the modules validates relaxed SIMD (wasmtime
    /// does; Safari's engine does not): without it no build uses
    /// relaxed-SIMD instructions, whatever the target asks.
    pub relaxed_simd: bool,
}

/// The target attribute that asks for relaxed-SIMD multiply-adds (LLVM's
/// name for the wasm feature).
pub use tessel_tir::target::RELAXED_SIMD_ATTR;

/// The smallest module that uses relaxed SIMD (one `f32x4.relaxed_madd`
/// of three zero vectors): a host asks its engine whether it validates
/// (`WebAssembly.validate` in the browser) before offering relaxed FMA.
pub const RELAXED_SIMD_PROBE: &[u8] = &[
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
    0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // type: () -> v128
    0x03, 0x02, 0x01, 0x00, // function 0 has type 0
    0x0a, 0x3d, 0x01, 0x3b, 0x00, // code: one body of 59 bytes, no locals
    0xfd, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // v128.const 0
    0xfd, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // v128.const 0
    0xfd, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // v128.const 0
    0xfd, 0x85, 0x02, // f32x4.relaxed_madd
    0x0b, // end
];

/// Whether `target` asks for relaxed SIMD: `+relaxed-simd` among the
/// comma-separated features of its `-mattr=` option (LLVM's syntax, as in
/// `"llvm -mcpu=generic -mattr=+simd128,+relaxed-simd"`).
pub fn wants_relaxed_simd(target: &Target) -> bool {
    target.wants_relaxed_simd()
}

/// Whether a build for `target` fuses multiply-adds with relaxed SIMD on
/// an engine that has it (`engine_has_relaxed_simd`) or not, and the note
/// that says why a target asking for it gets the plain-SIMD build.
pub fn relaxed_fma_for(target: &Target, engine_has_relaxed_simd: bool) -> (bool, Option<String>) {
    match (wants_relaxed_simd(target), engine_has_relaxed_simd) {
        (true, true) => (true, None),
        (true, false) => (
            false,
            Some(format!(
                "target \"{}\" asks for relaxed SIMD, which this WebAssembly engine does not have: \
                 built with plain SIMD128 (multiply and add, no relaxed FMA)",
                target.text
            )),
        ),
        (false, _) => (false, None),
    }
}

impl WasmBackend {
    /// Runs built modules on the runtimes `runtime` makes.
    pub fn with_runtime(runtime: RuntimeFactory) -> WasmBackend {
        WasmBackend {
            runtime: Some(runtime),
            options: BuildOptions::default(),
            relaxed_simd: true,
        }
    }

    /// Compiles without loading the module anywhere: its executable has
    /// the module (bytes, text, lowered TIR) and runs nothing (what
    /// `tessel build` and the playground's code pane need). Assumes an
    /// engine with relaxed SIMD; clear [`WasmBackend::relaxed_simd`]
    /// otherwise.
    pub fn compile_only() -> WasmBackend {
        WasmBackend {
            runtime: None,
            options: BuildOptions::default(),
            relaxed_simd: true,
        }
    }

    /// Runs built modules on wasmtime.
    #[cfg(feature = "native")]
    pub fn wasmtime() -> WasmBackend {
        WasmBackend::with_runtime(Rc::new(|| Box::new(crate::runtime::WasmtimeRuntime::new())))
    }
}

/// A module built by [`WasmBackend`].
pub struct WasmExecutable {
    module: WasmModule,
    names: Vec<String>,
    /// `None` for a compile-only build.
    rt: Option<RefCell<Box<dyn Runtime>>>,
}

impl WasmExecutable {
    /// The compiled module.
    pub fn module(&self) -> &WasmModule {
        &self.module
    }

    /// How its runtime runs parallel loops.
    pub fn threading(&self) -> crate::runtime::Threading {
        match &self.rt {
            Some(rt) => rt.borrow().threading(),
            None => crate::runtime::Threading::single("the module was only compiled"),
        }
    }

    /// How the parallel loops of the most recent call ran.
    pub fn last_launches(&self) -> crate::runtime::LaunchStats {
        self.rt
            .as_ref()
            .map(|rt| rt.borrow().last_launches())
            .unwrap_or_default()
    }

    /// The runtime that runs the module, or why there is none.
    fn runtime(&self) -> Result<std::cell::RefMut<'_, Box<dyn Runtime>>, String> {
        self.rt
            .as_ref()
            .map(RefCell::borrow_mut)
            .ok_or_else(|| "the wasm module was only compiled: nothing runs it".to_string())
    }
}

impl WasmBackend {
    /// [`Backend::build`] with the executable's own type: a wasm module
    /// for `target` (relaxed-SIMD multiply-adds where the target or
    /// `options` ask and the engine has them; host-launched parallel loops
    /// where the runtime has threads and `options` allow more than one),
    /// loaded on a fresh runtime unless compile-only.
    pub fn build_wasm(
        &self,
        module: &IRModule,
        target: &Target,
        options: &TargetOptions,
    ) -> Result<WasmExecutable, BuildError> {
        if target.is_gpu() {
            return Err(BuildError::WrongTarget {
                backend_is_gpu: false,
                target: target.text.clone(),
            });
        }
        let mut build = self.options.clone();
        build.relaxed_fma |= options.relaxed_fma || relaxed_fma_for(target, self.relaxed_simd).0;
        build.relaxed_fma &= self.relaxed_simd;
        let rt = self.runtime.as_ref().map(|make| make());
        if let Some(rt) = &rt {
            if options.max_threads != Some(1) {
                rt.threading().apply(&mut build);
            }
        }
        let built = crate::build_with(module, &build).map_err(|e| BuildError::Compile {
            compiler: Compiler::Wasm,
            func: None,
            diagnostic: Box::new(e.to_diagnostic()),
        })?;
        let names = module.names().map(str::to_string).collect();
        match rt {
            Some(rt) => WasmExecutable::load(built, names, rt).map_err(BuildError::Load),
            None => Ok(WasmExecutable {
                module: built,
                names,
                rt: None,
            }),
        }
    }
}

impl Backend for WasmBackend {
    fn build(
        &self,
        module: &IRModule,
        target: &Target,
        options: &TargetOptions,
    ) -> Result<Rc<dyn Executable>, BuildError> {
        Ok(Rc::new(self.build_wasm(module, target, options)?))
    }
}

impl WasmExecutable {
    /// Instantiates a compiled module on `rt`; `names` are the functions it
    /// answers to.
    pub fn load(
        module: WasmModule,
        names: Vec<String>,
        mut rt: Box<dyn Runtime>,
    ) -> Result<WasmExecutable, String> {
        rt.load(&module).map_err(|e| e.0)?;
        Ok(WasmExecutable {
            names,
            module,
            rt: Some(RefCell::new(rt)),
        })
    }
}

/// Work charged to the script for a native call: one step per element moved
/// (copying in and out is what a native call costs the interpreter).
fn elements(args: &[NDArray]) -> u64 {
    args.iter().map(|a| a.len() as u64).sum()
}

impl Executable for WasmExecutable {
    fn function_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn run(&self, name: &str, args: &mut [NDArray], _step_budget: u64) -> Result<u64, String> {
        if self.module.kernel(name).is_none() {
            return Err(format!("the module has no function `{name}`"));
        }
        let mut rt = self.runtime()?;
        run_ndarrays(rt.as_mut(), &self.module, name, args).map_err(|e| e.0)?;
        Ok(elements(args))
    }

    fn source(&self, fmt: &str) -> Result<Option<String>, String> {
        match fmt {
            "" | "wat" | "wasm" | "asm" | "ll" | "s" => {
                self.module.wat().map(Some).map_err(|e| e.message)
            }
            _ => Err(format!(
                "get_source: a wasm module has no `{fmt}` source (formats: \"\", \"wat\")"
            )),
        }
    }

    fn time(
        &self,
        name: &str,
        args: &mut [NDArray],
        number: u64,
        repeat: u64,
        clock: &dyn Host,
    ) -> Option<Result<Vec<f64>, String>> {
        Some(self.time_calls(name, args, number, repeat, clock))
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

impl WasmExecutable {
    fn time_calls(
        &self,
        name: &str,
        args: &mut [NDArray],
        number: u64,
        repeat: u64,
        clock: &dyn Host,
    ) -> Result<Vec<f64>, String> {
        let info = self
            .module
            .kernel(name)
            .ok_or_else(|| format!("the module has no function `{name}`"))?;
        let mut rt = self.runtime()?;
        let rt: &mut dyn Runtime = rt.as_mut();
        let result = (|| {
            let wasm_args = upload(rt, info, args).map_err(|e| e.0)?;
            // One warm-up call, as TVM's time_evaluator does.
            rt.call(name, &wasm_args).map_err(|e| e.0)?;
            let mut out = Vec::with_capacity(repeat as usize);
            for _ in 0..repeat.max(1) {
                let t0 = clock.now_seconds();
                for _ in 0..number.max(1) {
                    rt.call(name, &wasm_args).map_err(|e| e.0)?;
                }
                let t1 = clock.now_seconds();
                out.push((t1 - t0).max(0.0) / number.max(1) as f64);
            }
            for (a, arr) in wasm_args.iter().zip(args.iter_mut()) {
                if let crate::runtime::Arg::Tensor(t) = a {
                    *arr = rt.copy_out(t).map_err(|e| e.0)?;
                }
            }
            Ok(out)
        })();
        rt.free_all();
        result
    }
}

#[cfg(all(test, feature = "native"))]
mod tests {
    use super::*;
    use compiler_core::tvmscript::builder::parse_script;
    use tessel_tir::eval::run_prim_func;
    use tessel_tir::target::TickClock;

    const MM: &str = r#"
from tvm.script import tir as T
@T.prim_func
def mm(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    for i, j, k in T.grid(16, 12, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;

    fn inputs() -> Vec<NDArray> {
        let f32 = tessel_tir::ir::DataType::f32();
        let a: Vec<f64> = (0..128).map(|x| (x % 7) as f64 - 3.0).collect();
        let b: Vec<f64> = (0..96).map(|x| (x % 5) as f64 * 0.5).collect();
        vec![
            NDArray::from_f64_as(f32, &[16, 8], &a).unwrap(),
            NDArray::from_f64_as(f32, &[8, 12], &b).unwrap(),
            NDArray::zeros(f32, &[16, 12]).unwrap(),
        ]
    }

    #[test]
    fn runs_times_and_prints_like_the_reference_interpreter() {
        let module = parse_script(MM).unwrap().to_module();
        let exec = WasmBackend::wasmtime()
            .build(&module, &Target::llvm(), &TargetOptions::default())
            .unwrap();
        assert_eq!(exec.function_names(), vec!["mm".to_string()]);
        let mut ours = inputs();
        exec.run("mm", &mut ours, u64::MAX).unwrap();
        let mut reference = inputs();
        run_prim_func(
            module.get_prim("mm").unwrap(),
            &mut reference,
            &Default::default(),
        )
        .unwrap();
        assert_eq!(ours[2], reference[2]);

        // Each clock reading advances 0.5 s: 2 calls per repeat take 0.25 s each.
        let clock = TickClock::new(0.5);
        let mut args = inputs();
        let times = exec.time("mm", &mut args, 2, 3, &clock).unwrap().unwrap();
        assert_eq!(times, vec![0.25; 3]);
        assert_eq!(args[2], reference[2]);

        let wat = exec.source("").unwrap().unwrap();
        assert!(
            wat.starts_with("(module") && wat.contains("(export \"mm\""),
            "{wat}"
        );
        assert!(exec.source("cuda").is_err());
        assert!(exec.imported_modules().is_empty());
        assert!(exec.run("nope", &mut inputs(), 0).is_err());
        assert!(WasmBackend::wasmtime()
            .build(
                &module,
                &Target::parse("cuda").unwrap(),
                &TargetOptions::default()
            )
            .is_err());
    }
}

#[cfg(test)]
mod probe_tests {
    use super::{relaxed_fma_for, wants_relaxed_simd, RELAXED_SIMD_PROBE};
    use tessel_tir::target::Target;
    use wasmparser::{Validator, WasmFeatures};

    fn llvm(text: &str) -> Target {
        Target::parse(text).unwrap()
    }

    #[test]
    fn relaxed_simd_is_read_from_the_mattr_feature_list() {
        assert!(wants_relaxed_simd(&llvm("llvm -mattr=+relaxed-simd")));
        assert!(wants_relaxed_simd(&llvm(
            "llvm -mcpu=generic -mattr=+simd128,+relaxed-simd"
        )));
        assert!(!wants_relaxed_simd(&llvm("llvm")));
        assert!(!wants_relaxed_simd(&llvm("llvm -mattr=-relaxed-simd")));
        // Only inside `-mattr=`: another option's value does not count.
        assert!(!wants_relaxed_simd(&llvm("llvm -mcpu=+relaxed-simd")));
    }

    #[test]
    fn an_engine_without_relaxed_simd_gets_the_plain_build_and_a_note() {
        let asks = llvm("llvm -mattr=+relaxed-simd");
        assert_eq!(relaxed_fma_for(&asks, true), (true, None));
        let (fused, note) = relaxed_fma_for(&asks, false);
        assert!(!fused);
        let note = note.expect("a note saying why");
        assert!(note.contains("plain SIMD128"), "{note}");
        assert!(note.contains("llvm -mattr=+relaxed-simd"), "{note}");
        assert_eq!(relaxed_fma_for(&llvm("llvm"), false), (false, None));
    }

    #[test]
    fn the_probe_needs_relaxed_simd_and_nothing_else() {
        let with = WasmFeatures::default() | WasmFeatures::RELAXED_SIMD;
        Validator::new_with_features(with)
            .validate_all(RELAXED_SIMD_PROBE)
            .expect("valid with relaxed SIMD");
        let without = WasmFeatures::default() - WasmFeatures::RELAXED_SIMD;
        assert!(Validator::new_with_features(without)
            .validate_all(RELAXED_SIMD_PROBE)
            .is_err());
    }
}
