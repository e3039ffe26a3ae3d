//! The CPU backend's runtime in the browser: codegen-wasm's [`Runtime`]
//! over the JS `WebAssembly` API. Used in the run worker (synchronous
//! `new WebAssembly.Module` is allowed in workers) and by `tvm.build` in
//! scripts. It follows `codegen_wasm::runtime` exactly: a JS-created
//! `WebAssembly.Memory` imported as `env.memory` and laid out by
//! [`MemoryPlan`], the stack globals set after instantiation, math imports
//! (`tessel_math.*`) answered by the same Rust functions the native runtimes
//! use ([`MathFn::eval`]), arguments marshalled by [`kernel_args`].
//!
//! Threads: when the worker's pool is up ([`crate::thread_pool`]), modules
//! are built for host launches over a shared memory
//! ([`Runtime::threading`]); `tessel.parallel_for` then splits each range
//! into one static chunk per thread, runs chunk 0 here and the others on
//! the pool (each instance with its own stack, [`MemoryPlan::for_threads`]).
//! Otherwise launches run here, whole, and the memory is not shared.

use std::collections::HashMap;
use std::rc::Rc;

use codegen_wasm::runtime::{
    array_from, kernel_args, tensor_bytes, Arg, LaunchStats, MemoryPlan, Result, RuntimeError,
    Tensor, Threading, Timing, Value, PAGE,
};
use codegen_wasm::{
    KernelInfo, MathFn, Runtime, WasmModule, LAUNCH_MODULE, LAUNCH_NAME, MEMORY_MODULE,
    MEMORY_NAME, STACK_LIMIT, STACK_POINTER,
};
use compiler_core::eval::NDArray;
use compiler_core::ir::DataType;
use js_sys::{Array, Function, Object, Reflect, Uint8Array, WebAssembly};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub use crate::thread_pool::{js_err, perf_now};
use crate::thread_pool::{Launcher, LocalTask};

/// Whether this thread's WebAssembly engine validates relaxed SIMD (the
/// probe module with one `f32x4.relaxed_madd`). Safari's does not; the
/// code generator then emits plain SIMD128 only.
pub fn engine_has_relaxed_simd() -> bool {
    let probe = Uint8Array::from(codegen_wasm::backend::RELAXED_SIMD_PROBE);
    WebAssembly::validate(&probe.into()).unwrap_or(false)
}

fn rerr(what: &str, e: &JsValue) -> RuntimeError {
    RuntimeError(format!("{what}: {}", js_err(e)))
}

fn set(obj: &JsValue, key: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

thread_local! {
    /// `tessel_math`: one JS function per [`MathFn`], made once.
    static MATH: Object = {
        let obj = Object::new();
        for m in MathFn::ALL {
            let f: JsValue = if m.arity() == 2 {
                Closure::<dyn Fn(f64, f64) -> f64>::new(move |a, b| m.eval(a, b)).into_js_value()
            } else {
                Closure::<dyn Fn(f64) -> f64>::new(move |a| m.eval(a, 0.0)).into_js_value()
            };
            set(&obj, m.name(), &f);
        }
        obj
    };
}

/// `tessel.parallel_for(task, begin, end, closure)` (bounds as BigInt).
type LaunchFn = dyn FnMut(i32, JsValue, JsValue, i32) -> std::result::Result<(), JsValue>;

struct Loaded {
    memory: WebAssembly::Memory,
    funcs: HashMap<String, Function>,
    kernels: Vec<KernelInfo>,
    plan: MemoryPlan,
    launcher: Rc<Launcher>,
    /// `tessel.parallel_for`, kept alive with the instance.
    _launch: Option<Closure<LaunchFn>>,
}

/// codegen-wasm's runtime interface on the browser's WebAssembly engine.
#[derive(Default)]
pub struct BrowserRuntime {
    loaded: Option<Loaded>,
}

impl BrowserRuntime {
    pub fn new() -> BrowserRuntime {
        BrowserRuntime::default()
    }

    fn loaded(&mut self) -> Result<&mut Loaded> {
        self.loaded
            .as_mut()
            .ok_or_else(|| RuntimeError("no module loaded".into()))
    }
}

impl Runtime for BrowserRuntime {
    fn load(&mut self, module: &WasmModule) -> Result<f64> {
        let t0 = perf_now();
        // The module says whether it imports a shared memory: it was built
        // for the threads `threading` reported then (`Threading::apply`),
        // and the pool may have become ready since (scripts build while the
        // worker starts). A shared module without a pool runs its launches
        // here, whole.
        let shared = module.shared_memory;
        let threads = if shared { self.threading().threads } else { 1 };
        let plan = MemoryPlan::for_threads(module, threads);
        let desc = Object::new();
        set(
            &desc,
            "initial",
            &JsValue::from_f64(plan.initial_pages() as f64),
        );
        if shared {
            set(&desc, "maximum", &JsValue::from(65536));
            set(&desc, "shared", &JsValue::TRUE);
        }
        let memory = WebAssembly::Memory::new(&desc).map_err(|e| rerr("memory", &e))?;
        let bytes = Uint8Array::from(module.bytes());
        let compiled = WebAssembly::Module::new(&bytes).map_err(|e| rerr("compile", &e))?;
        let imports = Object::new();
        let env = Object::new();
        set(&env, MEMORY_NAME, &memory);
        set(&imports, MEMORY_MODULE, &env);
        MATH.with(|m| set(&imports, codegen_wasm::math::MATH_MODULE, m));
        let launcher = Rc::new(Launcher::new(
            &compiled,
            &memory,
            &plan,
            &module.tasks,
            shared,
        ));
        let launch = (!module.tasks.is_empty()).then(|| {
            let l = launcher.clone();
            let launch =
                Closure::<LaunchFn>::new(move |task, begin: JsValue, end: JsValue, closure| {
                    let bound = |v: &JsValue| {
                        i64::try_from(v.clone())
                            .map_err(|_| JsValue::from_str("tessel.parallel_for: bad bounds"))
                    };
                    l.launch(task, bound(&begin)?, bound(&end)?, closure)
                        .map_err(|m| js_sys::Error::new(&m).into())
                });
            let tessel = Object::new();
            set(&tessel, LAUNCH_NAME, launch.as_ref());
            set(&imports, LAUNCH_MODULE, &tessel);
            launch
        });
        let instance =
            WebAssembly::Instance::new(&compiled, &imports).map_err(|e| rerr("instantiate", &e))?;
        let exports = instance.exports();
        for (name, v) in [
            (STACK_POINTER, plan.stack_base),
            (STACK_LIMIT, plan.stack_limit),
        ] {
            if let Ok(g) = Reflect::get(&exports, &name.into()) {
                if !g.is_undefined() {
                    set(&g, "value", &JsValue::from_f64(v as f64));
                }
            }
        }
        let mut local_tasks = Vec::new();
        for t in &module.tasks {
            let func: Function = Reflect::get(&exports, &t.export.as_str().into())
                .ok()
                .and_then(|f| f.dyn_into().ok())
                .ok_or_else(|| RuntimeError(format!("no export {}", t.export)))?;
            local_tasks.push(LocalTask {
                func,
                i64_bounds: t.index_dtype.bits == 64,
            });
        }
        *launcher.tasks.borrow_mut() = local_tasks;
        let mut funcs = HashMap::new();
        for k in &module.kernels {
            let f: Function = Reflect::get(&exports, &k.name.as_str().into())
                .ok()
                .and_then(|f| f.dyn_into().ok())
                .ok_or_else(|| RuntimeError(format!("no export {}", k.name)))?;
            funcs.insert(k.name.clone(), f);
        }
        self.loaded = Some(Loaded {
            memory,
            funcs,
            kernels: module.kernels.clone(),
            plan,
            launcher,
            _launch: launch,
        });
        Ok((perf_now() - t0) / 1000.0)
    }

    fn alloc(&mut self, dtype: DataType, shape: &[usize]) -> Result<Tensor> {
        let l = self.loaded()?;
        let bytes = shape.iter().product::<usize>() * dtype.bytes();
        let (addr, pages) = l.plan.alloc(bytes as u64)?;
        // `byteLength` of an ArrayBuffer or, for a shared memory, a
        // SharedArrayBuffer.
        let have = Reflect::get(&l.memory.buffer(), &"byteLength".into())
            .ok()
            .and_then(|b| b.as_f64())
            .map_or(0, |b| b as u64 / PAGE);
        if pages > have {
            let grow = (pages - have) as u32;
            // Through `Function.call`, so a failed grow (RangeError) is an
            // error here rather than an exception through Rust frames.
            let grow_fn: Function = Reflect::get(&l.memory, &"grow".into())
                .ok()
                .and_then(|f| f.dyn_into().ok())
                .ok_or_else(|| RuntimeError("WebAssembly.Memory has no grow".into()))?;
            grow_fn
                .call1(&l.memory, &JsValue::from(grow))
                .map_err(|e| rerr(&format!("out of memory: growing by {grow} pages"), &e))?;
        }
        Ok(Tensor {
            addr,
            dtype,
            shape: shape.to_vec(),
        })
    }

    fn free_all(&mut self) {
        if let Some(l) = &mut self.loaded {
            l.plan.free_all();
        }
    }

    fn copy_in(&mut self, t: &Tensor, data: &NDArray) -> Result<()> {
        let bytes = tensor_bytes(t, data)?;
        let l = self.loaded()?;
        let view = Uint8Array::new(&l.memory.buffer());
        view.set(&Uint8Array::from(bytes.as_slice()), t.addr);
        Ok(())
    }

    fn copy_out(&mut self, t: &Tensor) -> Result<NDArray> {
        let l = self.loaded()?;
        let view = Uint8Array::new_with_byte_offset_and_length(
            &l.memory.buffer(),
            t.addr,
            t.bytes() as u32,
        );
        array_from(t, &view.to_vec())
    }

    fn call(&mut self, kernel: &str, args: &[Arg]) -> Result<()> {
        let l = self.loaded()?;
        let info = l
            .kernels
            .iter()
            .find(|k| k.name == kernel)
            .ok_or_else(|| RuntimeError(format!("no kernel {kernel}")))?;
        let values = kernel_args(info, args)?;
        let f = &l.funcs[kernel];
        l.launcher.stats.set(LaunchStats::default());
        let arr = Array::new();
        for v in values {
            arr.push(&match v {
                Value::I32(x) => JsValue::from(x),
                Value::I64(x) => js_sys::BigInt::from(x).into(),
                Value::F32(x) => JsValue::from_f64(x as f64),
                Value::F64(x) => JsValue::from_f64(x),
            });
        }
        f.apply(&JsValue::UNDEFINED, &arr)
            .map_err(|e| rerr(kernel, &e))?;
        Ok(())
    }

    fn threading(&self) -> Threading {
        crate::thread_pool::threading()
    }

    fn last_launches(&self) -> LaunchStats {
        self.loaded
            .as_ref()
            .map(|l| l.launcher.stats.get())
            .unwrap_or_default()
    }

    fn time(&mut self, kernel: &str, args: &[Arg], repeat: u32) -> Result<Timing> {
        self.call(kernel, args)?;
        let (mut total, mut min) = (0.0f64, f64::INFINITY);
        for _ in 0..repeat.max(1) {
            let t0 = perf_now();
            self.call(kernel, args)?;
            let s = (perf_now() - t0) / 1000.0;
            total += s;
            min = min.min(s);
        }
        Ok(Timing {
            mean: total / repeat.max(1) as f64,
            min,
            runs: repeat.max(1),
        })
    }
}
